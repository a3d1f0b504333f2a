/*
 * test_sha1.c - SHA-1 (FIPS 180-4) known answers, incremental use, the bare
 * compression function, and a differential check against OpenSSL.
 * SPDX-License-Identifier: MIT
 */
#include <stdlib.h>

#include "harness.h"
#include "crypto/sha1.h"

#ifdef HAVE_OPENSSL
#include <openssl/evp.h>
#endif

static int check_hex(const uint8_t *got, const char *hex)
{
	uint8_t want[20];

	return t_hex(hex, want, 20) == 20 && t_memdiff(got, want, 20) == (size_t)-1;
}

/* FIPS 180 examples (NIST CSRC "SHA1.pdf", FIPS 180-1 appendices A-C). */
static void fips180_abc(void)
{
	uint8_t out[20];

	surand_sha1("abc", 3, out);
	T_ASSERT(check_hex(out, "a9993e364706816aba3e25717850c26c9cd0d89d"));
}

static void fips180_448bit(void)
{
	static const char m[] = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	uint8_t out[20];

	T_ASSERT(sizeof(m) - 1 == 56);
	surand_sha1(m, 56, out);
	T_ASSERT(check_hex(out, "84983e441c3bd26ebaae4aa1f95129e5e54670f1"));
}

static void fips180_million_a(void)
{
	struct surand_sha1_state s;
	uint8_t chunk[1000], out[20];
	char *big;
	int i;

	memset(chunk, 'a', sizeof(chunk));
	surand_sha1_init(&s);
	for (i = 0; i < 1000; i++)
		surand_sha1_update(&s, chunk, sizeof(chunk));
	surand_sha1_final(&s, out);
	T_ASSERT(check_hex(out, "34aa973cd4c4daa4f61eeb2bdbad27316534016f"));
	/* One shot over the same million bytes. */
	big = malloc(1000000);
	T_ASSERT(big != NULL);
	memset(big, 'a', 1000000);
	surand_sha1(big, 1000000, out);
	free(big);
	T_ASSERT(check_hex(out, "34aa973cd4c4daa4f61eeb2bdbad27316534016f"));
}

static void empty_message(void)
{
	uint8_t out[20];

	surand_sha1(NULL, 0, out);
	T_ASSERT(check_hex(out, "da39a3ee5e6b4b0d3255bfef95601890afd80709"));
}

/*
 * The bare transform against the padded hash: SHA-1("abc") is one block,
 * "abc" 0x80, zeros, then the 64-bit big-endian bit length 24 (FIPS 180-4
 * 5.1.1), compressed once from the standard IV.
 */
static void bare_transform(void)
{
	uint8_t block[64], want[20], got[20];
	uint32_t st[5];
	int i;

	memset(block, 0, sizeof(block));
	memcpy(block, "abc", 3);
	block[3] = 0x80;
	block[63] = 24;
	surand_sha1_init_state(st);
	T_ASSERT(st[0] == 0x67452301u && st[4] == 0xc3d2e1f0u);
	surand_sha1_transform(st, block);
	for (i = 0; i < 5; i++)
		surand_store32_be(got + 4 * i, st[i]);
	surand_sha1("abc", 3, want);
	T_ASSERT_MEM_EQ(got, want, 20);
	T_ASSERT(check_hex(got, "a9993e364706816aba3e25717850c26c9cd0d89d"));
}

/* Two bare transforms of 128 unpadded bytes = the first 128 bytes' chain value,
 * checked against the incremental hash's internal state after 128 bytes. */
static void bare_transform_chain(void)
{
	uint64_t rs = 5;
	uint8_t in[128];
	struct surand_sha1_state s;
	uint32_t st[5];

	t_randbytes(&rs, in, sizeof(in));
	surand_sha1_init_state(st);
	surand_sha1_transform(st, in);
	surand_sha1_transform(st, in + 64);
	surand_sha1_init(&s);
	surand_sha1_update(&s, in, sizeof(in));
	T_ASSERT_MEM_EQ(st, s.h, sizeof(st));
}

static void incremental_splits(void)
{
	uint64_t rs = 77;
	uint8_t in[300], one[20], inc[20];
	struct surand_sha1_state s;
	size_t split, i;

	t_randbytes(&rs, in, sizeof(in));
	surand_sha1(in, sizeof(in), one);
	for (split = 0; split <= sizeof(in); split++) {
		surand_sha1_init(&s);
		surand_sha1_update(&s, in, split);
		surand_sha1_update(&s, in + split, sizeof(in) - split);
		surand_sha1_final(&s, inc);
		T_ASSERT_MSG(t_memdiff(one, inc, 20) == (size_t)-1, "split %zu differs", split);
	}
	surand_sha1_init(&s);
	for (i = 0; i < sizeof(in); i++)
		surand_sha1_update(&s, in + i, 1);
	surand_sha1_final(&s, inc);
	T_ASSERT_MEM_EQ(one, inc, 20);
}

static void vs_openssl(void)
{
#ifdef HAVE_OPENSSL
	uint64_t rs = 0xfeedu;
	uint8_t in[3000], out[20], want[20];
	unsigned int wl;
	int it;

	for (it = 0; it < 500; it++) {
		size_t inlen = it < 200 ? (size_t)it : t_rand64(&rs) % sizeof(in);

		t_randbytes(&rs, in, inlen);
		wl = 0;
		T_ASSERT(EVP_Digest(in, inlen, want, &wl, EVP_sha1(), NULL) == 1);
		T_ASSERT(wl == 20);
		surand_sha1(in, inlen, out);
		T_ASSERT_MSG(t_memdiff(out, want, 20) == (size_t)-1, "length %zu differs", inlen);
	}
#else
	t_skip("OpenSSL (libcrypto) not found", "libssl-dev");
#endif
}

static void final_wipes(void)
{
	uint8_t out[20], zero[sizeof(struct surand_sha1_state)];
	struct surand_sha1_state s;

	memset(zero, 0, sizeof(zero));
	surand_sha1_init(&s);
	surand_sha1_update(&s, "secret pool words", 17);
	surand_sha1_final(&s, out);
	T_ASSERT_MEM_EQ(&s, zero, sizeof(s));
}

int main(int argc, char **argv)
{
	t_init(argc, argv);
	T_RUN(fips180_abc);
	T_RUN(fips180_448bit);
	T_RUN(fips180_million_a);
	T_RUN(empty_message);
	T_RUN(bare_transform);
	T_RUN(bare_transform_chain);
	T_RUN(incremental_splits);
	T_RUN(vs_openssl);
	T_RUN(final_wipes);
	return t_done();
}
