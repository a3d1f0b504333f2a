/*
 * test_chacha_diff.c - every ChaCha20 body this CPU runs against two
 * independent implementations, on random keys, nonces, counters and lengths:
 *   libsodium crypto_stream_chacha20_xor_ic: DJB layout, 8-byte nonce
 *     (words 14-15), 64-bit initial counter (words 12-13) - ours exactly;
 *   OpenSSL EVP_chacha20: 16-byte IV = words 12..15 as little-endian bytes
 *     (OpenSSL calls it a 4-byte counter and a 12-byte nonce, and its EVP
 *     layer carries a counter overflow of word 12 into word 13), so the IV
 *     is our counter (8 bytes LE) followed by our nonce (8 bytes LE).
 * Counters are drawn uniformly and also near 2^32 and 2^64, so random
 * lengths cross the carry into word 13 and the wrap to 0.
 * SPDX-License-Identifier: MIT
 */
#include "harness.h"
#include "internal.h"

#include <string.h>

#ifdef HAVE_SODIUM
#include <sodium.h>
#endif
#ifdef HAVE_OPENSSL
#include <openssl/evp.h>
#endif

#define MAX_BLOCKS 80 /* > 4 * 16: several AVX-512 steps plus every tail */
#define TRIALS_PER_BODY 300

struct body {
	const char *name;
	surand_chacha20_fn fn;
};

static size_t bodies(struct body *b)
{
	static const char *const names[] = { "portable", "ssse3", "avx2", "avx512", "neon" };
	size_t n = 0, i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		surand_chacha20_fn fn = surand_chacha20_impl_by_name(names[i]);
		if (fn) {
			b[n].name = names[i];
			b[n++].fn = fn;
		}
	}
	b[n].name = "dispatcher";
	b[n++].fn = surand_chacha20_blocks;
	return n;
}

/* A random trial: key bytes, nonce, counter (a third near 2^32, a third near 2^64), length. */
struct trial {
	uint8_t kb[32];
	uint32_t key[8];
	uint64_t nonce, counter;
	size_t nblocks;
};

static void draw(uint64_t *seed, struct trial *t)
{
	uint64_t r;
	int i;

	t_randbytes(seed, t->kb, sizeof(t->kb));
	for (i = 0; i < 8; i++)
		t->key[i] = surand_load32_le(t->kb + 4 * i);
	t->nonce = t_rand64(seed);
	r = t_rand64(seed);
	switch (r % 3) {
	case 0:
		t->counter = t_rand64(seed);
		break;
	case 1:
		t->counter = ((uint64_t)1 << 32) - 1 - t_rand64(seed) % MAX_BLOCKS;
		t->counter += (t_rand64(seed) & 0xffffffff00000000ull); /* any high word */
		break;
	default:
		t->counter = (uint64_t)0 - 1 - t_rand64(seed) % MAX_BLOCKS;
		break;
	}
	t->nblocks = (size_t)(t_rand64(seed) % (MAX_BLOCKS + 1));
}

#if defined(HAVE_SODIUM) || defined(HAVE_OPENSSL)
static void le64(uint8_t *p, uint64_t v)
{
	surand_store32_le(p, (uint32_t)v);
	surand_store32_le(p + 4, (uint32_t)(v >> 32));
}
#endif

static void vs_sodium(void)
{
#ifdef HAVE_SODIUM
	static uint8_t zeros[MAX_BLOCKS * 64], want[MAX_BLOCKS * 64], got[MAX_BLOCKS * 64 + 1];
	uint64_t seed = 0xd1ff5001u;
	struct body b[8];
	struct trial t;
	uint8_t nonce_b[8];
	size_t nb = bodies(b), i, k;

	T_ASSERT(sodium_init() >= 0);
	for (i = 0; i < nb; i++) {
		for (k = 0; k < TRIALS_PER_BODY; k++) {
			draw(&seed, &t);
			le64(nonce_b, t.nonce);
			T_ASSERT(crypto_stream_chacha20_xor_ic(want, zeros, t.nblocks * 64, nonce_b,
							       t.counter, t.kb) == 0);
			b[i].fn(t.key, t.counter, t.nonce, got + 1, t.nblocks);
			T_ASSERT_MSG(t_memdiff(got + 1, want, t.nblocks * 64) == (size_t)-1,
				     "%s != libsodium: counter %#llx, %zu blocks, byte %zu", b[i].name,
				     (unsigned long long)t.counter, t.nblocks,
				     t_memdiff(got + 1, want, t.nblocks * 64));
		}
	}
#else
	t_skip("built without libsodium", "libsodium-dev");
#endif
}

static void vs_openssl(void)
{
#ifdef HAVE_OPENSSL
	static uint8_t zeros[MAX_BLOCKS * 64], want[MAX_BLOCKS * 64], got[MAX_BLOCKS * 64 + 1];
	uint64_t seed = 0xd1ff0551u;
	struct body b[8];
	struct trial t;
	uint8_t iv[16];
	size_t nb = bodies(b), i, k;
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
	int len;

	T_ASSERT(ctx != NULL);
	for (i = 0; i < nb; i++) {
		for (k = 0; k < TRIALS_PER_BODY; k++) {
			draw(&seed, &t);
			le64(iv, t.counter); /* words 12-13 */
			le64(iv + 8, t.nonce); /* words 14-15 */
			len = 0;
			if (EVP_EncryptInit_ex(ctx, EVP_chacha20(), NULL, t.kb, iv) != 1 ||
			    EVP_EncryptUpdate(ctx, want, &len, zeros, (int)(t.nblocks * 64)) != 1 ||
			    (size_t)len != t.nblocks * 64) {
				EVP_CIPHER_CTX_free(ctx);
				T_ASSERT_MSG(0, "OpenSSL EVP_chacha20 failed");
			}
			b[i].fn(t.key, t.counter, t.nonce, got + 1, t.nblocks);
			if (t_memdiff(got + 1, want, t.nblocks * 64) != (size_t)-1) {
				EVP_CIPHER_CTX_free(ctx);
				T_ASSERT_MSG(0, "%s != OpenSSL: counter %#llx, %zu blocks, byte %zu",
					     b[i].name, (unsigned long long)t.counter, t.nblocks,
					     t_memdiff(got + 1, want, t.nblocks * 64));
			}
		}
	}
	EVP_CIPHER_CTX_free(ctx);
#else
	t_skip("built without OpenSSL", "libssl-dev");
#endif
}

/*
 * One long stream in random pieces equals the same stream in one call:
 * every body continues exactly where the previous call stopped, across the
 * 2^64 wrap.
 */
static void pieces_equal_whole(void)
{
	static uint8_t whole[4 * MAX_BLOCKS * 64], pieces[4 * MAX_BLOCKS * 64];
	uint64_t seed = 0x91ece5u;
	struct body b[8];
	struct trial t;
	size_t nb = bodies(b), i, done, step, total = 4 * MAX_BLOCKS;

	for (i = 0; i < nb; i++) {
		draw(&seed, &t);
		t.counter = (uint64_t)0 - total / 2;
		surand_chacha20_blocks_portable(t.key, t.counter, t.nonce, whole, total);
		for (done = 0; done < total; done += step) {
			step = 1 + (size_t)(t_rand64(&seed) % 40);
			if (step > total - done)
				step = total - done;
			b[i].fn(t.key, t.counter + done, t.nonce, pieces + 64 * done, step);
		}
		T_ASSERT_MSG(t_memdiff(whole, pieces, sizeof(whole)) == (size_t)-1,
			     "%s: pieces differ from the whole stream at byte %zu", b[i].name,
			     t_memdiff(whole, pieces, sizeof(whole)));
	}
}

int main(int argc, char **argv)
{
	t_init(argc, argv);
	T_RUN(vs_sodium);
	T_RUN(vs_openssl);
	T_RUN(pieces_equal_whole);
	return t_done();
}
