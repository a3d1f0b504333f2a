/*
 * test_bench_peers.c - the benchmark's OpenSSL and libsodium peers, opened
 * with dlopen (bench/lib/bench_peers.c).
 *
 * The test links the loader twice: once as shipped (the libraries open,
 * and their functions answer as the libraries do) and once renamed, built
 * with sonames that cannot open or lack the names (tests/bench_peers_absent.c,
 * through the macros the header lets a build override): then the peer is
 * NULL with one line that names the package, and asking again gives the
 * same answer.
 * SPDX-License-Identifier: MIT
 */
#include "harness.h"

#include <string.h>

#include "bench_peers.h"

/* The loader built with sonames that cannot give the peers
 * (tests/bench_peers_absent.c). */
#if defined(HAVE_OPENSSL)
const struct bench_openssl *absent_openssl(char *why, size_t why_len);
#endif
#if defined(HAVE_SODIUM)
const struct bench_sodium *absent_sodium(char *why, size_t why_len);
#endif

static void openssl_opens_and_answers(void)
{
#ifdef HAVE_OPENSSL
	char why[200] = "";
	const struct bench_openssl *o = bench_openssl(why, sizeof(why));
	unsigned char out[64], zeros[64] = {0}, key[32] = {0}, iv[16] = {0};
	/* RFC 8439 section 2.3.2's block function with an all-zero key and
	 * nonce, counter 0: the keystream's first bytes (also A.1 test vector 1). */
	static const unsigned char ks0[8] = {0x76, 0xb8, 0xe0, 0xad, 0xa0, 0xf1, 0x3d, 0x90};
	EVP_CIPHER_CTX *ctx;
	int len = 0;

	T_ASSERT_MSG(o != NULL, "libcrypto did not open: %s", why);
	if (!o)
		return;
	T_ASSERT(strncmp(o->version(OPENSSL_VERSION), "OpenSSL ", 8) == 0);
	T_ASSERT(o->rand_bytes(out, sizeof(out)) == 1);
	ctx = o->ctx_new();
	T_ASSERT(ctx != NULL);
	T_ASSERT(o->encrypt_init(ctx, o->chacha20(), NULL, key, iv) == 1);
	T_ASSERT(o->encrypt_update(ctx, out, &len, zeros, sizeof(zeros)) == 1 && len == 64);
	T_ASSERT_MEM_EQ(out, ks0, sizeof(ks0));
	o->ctx_free(ctx);
	T_ASSERT(bench_openssl(why, sizeof(why)) == o);
#else
	t_skip("built without OpenSSL's headers", "libssl-dev");
#endif
}

static void sodium_opens_and_answers(void)
{
#ifdef HAVE_SODIUM
	char why[200] = "";
	const struct bench_sodium *s = bench_sodium(why, sizeof(why));
	unsigned char a[32] = {0}, b[32] = {0};

	T_ASSERT_MSG(s != NULL, "libsodium did not open: %s", why);
	if (!s)
		return;
	T_ASSERT(s->init() >= 0);
	T_ASSERT(strcmp(s->version(), sodium_version_string()) == 0);
	T_ASSERT(s->impl_name() != NULL);
	s->buf(a, sizeof(a));
	s->buf(b, sizeof(b));
	T_ASSERT(t_random_looking(a, sizeof(a)) && memcmp(a, b, sizeof(a)) != 0);
	T_ASSERT(bench_sodium(why, sizeof(why)) == s);
#else
	t_skip("built without libsodium's headers", "libsodium-dev");
#endif
}

static void absent_library_says_which_package(void)
{
#ifdef HAVE_OPENSSL
	char why[200] = "", again[200] = "";

	T_ASSERT(absent_openssl(why, sizeof(why)) == NULL);
	T_ASSERT_MSG(strcmp(why, "libcrypto.so.0-absent not found (" BENCH_LIBCRYPTO_APT ")") == 0,
		     "why: '%s'", why);
	T_ASSERT(absent_openssl(again, sizeof(again)) == NULL);
	T_ASSERT_MSG(strcmp(why, again) == 0, "asked again: '%s'", again);
#else
	t_skip("built without OpenSSL's headers", "libssl-dev");
#endif
}

static void library_without_the_names_is_absent(void)
{
#ifdef HAVE_SODIUM
	char why[200] = "";

	/* libc.so.6 opens but has no sodium_init: the whole peer is absent. */
	T_ASSERT(absent_sodium(why, sizeof(why)) == NULL);
	T_ASSERT_MSG(strcmp(why, "libc.so.6 has no sodium_init (" BENCH_LIBSODIUM_APT ")") == 0,
		     "why: '%s'", why);
#else
	t_skip("built without libsodium's headers", "libsodium-dev");
#endif
}

int main(int argc, char **argv)
{
	t_init(argc, argv);
	T_RUN(openssl_opens_and_answers);
	T_RUN(sodium_opens_and_answers);
	T_RUN(absent_library_says_which_package);
	T_RUN(library_without_the_names_is_absent);
	return t_done();
}
