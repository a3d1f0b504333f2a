// SPDX-License-Identifier: MIT
/*
 * blake2s.c - BLAKE2s, written from RFC 7693 (sections 2.1-2.8, 3.1-3.3):
 * 10 rounds, rotations 16, 12, 8, 7, the SHA-256 IV, the sigma table of
 * section 2.7, parameter block word 0 = 0x01010000 ^ (kk << 8) ^ nn.
 * Freestanding (see crypto_types.h); the kernel module builds it.
 */
#include "blake2s.h"

/* RFC 7693 section 2.6: the SHA-256 IV. */
static const uint32_t blake2s_iv[8] = {
	0x6A09E667u, 0xBB67AE85u, 0x3C6EF372u, 0xA54FF53Au,
	0x510E527Fu, 0x9B05688Cu, 0x1F83D9ABu, 0x5BE0CD19u,
};

/* RFC 7693 section 2.7: message word schedule, rounds 0..9. */
static const uint8_t blake2s_sigma[10][16] = {
	{ 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 },
	{ 14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3 },
	{ 11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4 },
	{ 7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8 },
	{ 9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13 },
	{ 2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9 },
	{ 12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11 },
	{ 13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10 },
	{ 6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5 },
	{ 10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0 },
};

static inline uint32_t rotr32(uint32_t x, unsigned int n)
{
	return (x >> n) | (x << (32 - n));
}

/* RFC 7693 section 3.1, the mixing function G with R1..R4 = 16, 12, 8, 7. */
#define G(a, b, c, d, x, y)                             \
	do {                                            \
		v[a] = v[a] + v[b] + (x);               \
		v[d] = rotr32(v[d] ^ v[a], 16);         \
		v[c] = v[c] + v[d];                     \
		v[b] = rotr32(v[b] ^ v[c], 12);         \
		v[a] = v[a] + v[b] + (y);               \
		v[d] = rotr32(v[d] ^ v[a], 8);          \
		v[c] = v[c] + v[d];                     \
		v[b] = rotr32(v[b] ^ v[c], 7);          \
	} while (0)

/* RFC 7693 section 3.2, the compression function F; last: the final-block flag. */
static void blake2s_compress(struct surand_blake2s_state *s, const uint8_t block[64], int last)
{
	uint32_t m[16], v[16];
	int i;

	for (i = 0; i < 16; i++)
		m[i] = surand_load32_le(block + 4 * i);
	for (i = 0; i < 8; i++) {
		v[i] = s->h[i];
		v[i + 8] = blake2s_iv[i];
	}
	v[12] ^= s->t[0];
	v[13] ^= s->t[1];
	if (last)
		v[14] = ~v[14];
	for (i = 0; i < 10; i++) {
		const uint8_t *z = blake2s_sigma[i];

		G(0, 4, 8, 12, m[z[0]], m[z[1]]);
		G(1, 5, 9, 13, m[z[2]], m[z[3]]);
		G(2, 6, 10, 14, m[z[4]], m[z[5]]);
		G(3, 7, 11, 15, m[z[6]], m[z[7]]);
		G(0, 5, 10, 15, m[z[8]], m[z[9]]);
		G(1, 6, 11, 12, m[z[10]], m[z[11]]);
		G(2, 7, 8, 13, m[z[12]], m[z[13]]);
		G(3, 4, 9, 14, m[z[14]], m[z[15]]);
	}
	for (i = 0; i < 8; i++)
		s->h[i] ^= v[i] ^ v[i + 8];
	/* The working vector and the message words may hold key material. */
	surand_wipe(v, sizeof(v));
	surand_wipe(m, sizeof(m));
}

static void blake2s_count(struct surand_blake2s_state *s, uint32_t n)
{
	s->t[0] += n;
	if (s->t[0] < n) /* carry into the high word (RFC 7693: 64-bit counter) */
		s->t[1]++;
}

int surand_blake2s_init_key(struct surand_blake2s_state *s, size_t outlen, const void *key,
			    size_t keylen)
{
	int i;

	memset(s, 0, sizeof(*s));
	/* Out-of-range parameters: fail closed with outlen 0 (final then writes nothing). */
	if (outlen == 0 || outlen > SURAND_BLAKE2S_OUT_SIZE || keylen > SURAND_BLAKE2S_KEY_SIZE ||
	    (keylen && !key))
		return -1;
	for (i = 0; i < 8; i++)
		s->h[i] = blake2s_iv[i];
	/* Parameter block: digest length, key length, fanout 1, depth 1. */
	s->h[0] ^= 0x01010000u ^ ((uint32_t)keylen << 8) ^ (uint32_t)outlen;
	s->outlen = (uint32_t)outlen;
	if (keylen) {
		/* RFC 7693 3.3: the key, zero-padded, is the first whole block. */
		memcpy(s->buf, key, keylen);
		s->buflen = SURAND_BLAKE2S_BLOCK_SIZE;
	}
	return 0;
}

int surand_blake2s_init(struct surand_blake2s_state *s, size_t outlen)
{
	return surand_blake2s_init_key(s, outlen, (const void *)0, 0);
}

void surand_blake2s_update(struct surand_blake2s_state *s, const void *in, size_t inlen)
{
	const uint8_t *p = in;
	size_t fill;

	if (s->outlen == 0 || inlen == 0)
		return;
	/*
	 * A full buffer is compressed only once more input arrives: the last
	 * block must be compressed with the final flag, in final().
	 */
	fill = SURAND_BLAKE2S_BLOCK_SIZE - s->buflen;
	if (inlen > fill) {
		memcpy(s->buf + s->buflen, p, fill);
		p += fill;
		inlen -= fill;
		blake2s_count(s, SURAND_BLAKE2S_BLOCK_SIZE);
		blake2s_compress(s, s->buf, 0);
		s->buflen = 0;
		while (inlen > SURAND_BLAKE2S_BLOCK_SIZE) {
			blake2s_count(s, SURAND_BLAKE2S_BLOCK_SIZE);
			blake2s_compress(s, p, 0);
			p += SURAND_BLAKE2S_BLOCK_SIZE;
			inlen -= SURAND_BLAKE2S_BLOCK_SIZE;
		}
	}
	memcpy(s->buf + s->buflen, p, inlen);
	s->buflen += (uint32_t)inlen;
}

void surand_blake2s_final(struct surand_blake2s_state *s, uint8_t *out)
{
	uint8_t digest[SURAND_BLAKE2S_OUT_SIZE];
	int i;

	if (s->outlen == 0) /* never initialised (or init failed): write nothing */
		return;
	blake2s_count(s, s->buflen);
	memset(s->buf + s->buflen, 0, SURAND_BLAKE2S_BLOCK_SIZE - s->buflen);
	blake2s_compress(s, s->buf, 1);
	for (i = 0; i < 8; i++)
		surand_store32_le(digest + 4 * i, s->h[i]);
	memcpy(out, digest, s->outlen);
	/* The chain value and buffer (keyed: derived from the key) must not linger. */
	surand_wipe(digest, sizeof(digest));
	surand_wipe(s, sizeof(*s));
}

int surand_blake2s(uint8_t *out, size_t outlen, const void *key, size_t keylen, const void *in,
		   size_t inlen)
{
	struct surand_blake2s_state s;

	if (surand_blake2s_init_key(&s, outlen, key, keylen) != 0)
		return -1;
	surand_blake2s_update(&s, in, inlen);
	surand_blake2s_final(&s, out); /* wipes s */
	return 0;
}
