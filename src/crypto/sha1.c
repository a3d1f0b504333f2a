// SPDX-License-Identifier: MIT
/*
 * sha1.c - SHA-1, written from FIPS 180-4: sections 4.1.1 (functions
 * Ch/Parity/Maj), 4.2.1 (constants K), 5.1.1 (padding), 5.3.1 (initial hash
 * value) and 6.1.2 (computation, with the 80-word schedule kept as a 16-word
 * circular buffer as 6.1.3 allows).
 * Freestanding (see crypto_types.h); the kernel module builds it.
 */
#include "sha1.h"

void surand_sha1_init_state(uint32_t state[5])
{
	state[0] = 0x67452301u;
	state[1] = 0xefcdab89u;
	state[2] = 0x98badcfeu;
	state[3] = 0x10325476u;
	state[4] = 0xc3d2e1f0u;
}

void surand_sha1_transform(uint32_t state[5], const uint8_t block[64])
{
	uint32_t w[16], a, b, c, d, e, f, k, tmp;
	int t;

	for (t = 0; t < 16; t++)
		w[t] = surand_load32_be(block + 4 * t);
	a = state[0];
	b = state[1];
	c = state[2];
	d = state[3];
	e = state[4];
	for (t = 0; t < 80; t++) {
		if (t >= 16) {
			tmp = w[(t - 3) & 15] ^ w[(t - 8) & 15] ^ w[(t - 14) & 15] ^ w[t & 15];
			w[t & 15] = surand_rotl32(tmp, 1);
		}
		if (t < 20) {
			f = (b & c) | (~b & d);           /* Ch */
			k = 0x5a827999u;
		} else if (t < 40) {
			f = b ^ c ^ d;                    /* Parity */
			k = 0x6ed9eba1u;
		} else if (t < 60) {
			f = (b & c) | (b & d) | (c & d);  /* Maj */
			k = 0x8f1bbcdcu;
		} else {
			f = b ^ c ^ d;                    /* Parity */
			k = 0xca62c1d6u;
		}
		tmp = surand_rotl32(a, 5) + f + e + k + w[t & 15];
		e = d;
		d = c;
		c = surand_rotl32(b, 30);
		b = a;
		a = tmp;
	}
	state[0] += a;
	state[1] += b;
	state[2] += c;
	state[3] += d;
	state[4] += e;
	/* The schedule holds the block (pool contents in the 2015 design). */
	surand_wipe(w, sizeof(w));
}

void surand_sha1_init(struct surand_sha1_state *s)
{
	memset(s, 0, sizeof(*s));
	surand_sha1_init_state(s->h);
}

void surand_sha1_update(struct surand_sha1_state *s, const void *in, size_t inlen)
{
	const uint8_t *p = in;
	size_t fill;

	s->len += inlen;
	if (s->buflen) {
		fill = SURAND_SHA1_BLOCK_SIZE - s->buflen;
		if (inlen < fill) {
			memcpy(s->buf + s->buflen, p, inlen);
			s->buflen += (uint32_t)inlen;
			return;
		}
		memcpy(s->buf + s->buflen, p, fill);
		surand_sha1_transform(s->h, s->buf);
		p += fill;
		inlen -= fill;
		s->buflen = 0;
	}
	while (inlen >= SURAND_SHA1_BLOCK_SIZE) {
		surand_sha1_transform(s->h, p);
		p += SURAND_SHA1_BLOCK_SIZE;
		inlen -= SURAND_SHA1_BLOCK_SIZE;
	}
	if (inlen)
		memcpy(s->buf, p, inlen);
	s->buflen = (uint32_t)inlen;
}

void surand_sha1_final(struct surand_sha1_state *s, uint8_t out[SURAND_SHA1_DIGEST_SIZE])
{
	uint64_t bits = s->len * 8;
	int i;

	/* FIPS 180-4 5.1.1: a 1 bit, zeros to 56 mod 64 bytes, the 64-bit bit length. */
	s->buf[s->buflen++] = 0x80;
	if (s->buflen > 56) {
		memset(s->buf + s->buflen, 0, SURAND_SHA1_BLOCK_SIZE - s->buflen);
		surand_sha1_transform(s->h, s->buf);
		s->buflen = 0;
	}
	memset(s->buf + s->buflen, 0, 56 - s->buflen);
	surand_store32_be(s->buf + 56, (uint32_t)(bits >> 32));
	surand_store32_be(s->buf + 60, (uint32_t)bits);
	surand_sha1_transform(s->h, s->buf);
	for (i = 0; i < 5; i++)
		surand_store32_be(out + 4 * i, s->h[i]);
	/* Buffer and chain value may be secret (pool contents). */
	surand_wipe(s, sizeof(*s));
}

void surand_sha1(const void *in, size_t inlen, uint8_t out[SURAND_SHA1_DIGEST_SIZE])
{
	struct surand_sha1_state s;

	surand_sha1_init(&s);
	surand_sha1_update(&s, in, inlen);
	surand_sha1_final(&s, out);
}
