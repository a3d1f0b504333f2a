/*
 * test_blake2s.c - BLAKE2s (RFC 7693) known answers, incremental use, and
 * differential checks against OpenSSL.  SPDX-License-Identifier: MIT
 */
#include "harness.h"
#include "crypto/blake2s.h"

#ifdef HAVE_OPENSSL
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#endif

/* RFC 7693 Appendix B: BLAKE2s-256("abc"). */
static void rfc7693_abc(void)
{
	uint8_t out[32], want[32];

	T_ASSERT(t_hex("508C5E8C327C14E2E1A72BA34EEB452F37458B209ED63A294D999B4C86675982",
		       want, 32) == 32);
	T_ASSERT(surand_blake2s(out, 32, NULL, 0, "abc", 3) == 0);
	T_ASSERT_MEM_EQ(out, want, 32);
}

/*
 * The BLAKE2 reference package's keyed known answers (blake2s-kat.txt): key
 * 00..1f, input 00 01 .. (len-1), 32-byte output.  Values as published there.
 */
static void kat_keyed(void)
{
	static const struct {
		size_t len;
		const char *hex;
	} kat[] = {
		{ 0, "48a8997da407876b3d79c0d92325ad3b89cbb754d86ab71aee047ad345fd2c49" },
		{ 1, "40d15fee7c328830166ac3f918650f807e7e01e177258cdc0a39b11f598066f1" },
		{ 2, "6bb71300644cd3991b26ccd4d274acd1adeab8b1d7914546c1198bbe9fc9d803" },
		{ 3, "1d220dbe2ee134661fdf6d9e74b41704710556f2f6e5a091b227697445dbea6b" },
		{ 7, "e6c8125637438d0905b749f46560ac89fd471cf8692e28fab982f73f019b83a9" },
		{ 128, "0c311f38c35a4fb90d651c289d486856cd1413df9b0677f53ece2cd9e477c60a" },
		{ 192, "5950d39a23e1545f301270aa1a12f2e6c453776e4d6355de425cc153f9818867" },
		{ 255, "3fb735061abc519dfe979e54c1ee5bfad0a9d858b3315bad34bde999efd724dd" },
	};
	uint8_t key[32], in[256], out[32], want[32];
	size_t i;

	for (i = 0; i < 32; i++)
		key[i] = (uint8_t)i;
	for (i = 0; i < 256; i++)
		in[i] = (uint8_t)i;
	for (i = 0; i < sizeof(kat) / sizeof(kat[0]); i++) {
		T_ASSERT(t_hex(kat[i].hex, want, 32) == 32);
		T_ASSERT(surand_blake2s(out, 32, key, 32, in, kat[i].len) == 0);
		T_ASSERT_MSG(t_memdiff(out, want, 32) == (size_t)-1, "KAT length %zu differs",
			     kat[i].len);
	}
}

#ifdef HAVE_OPENSSL
/* OpenSSL 3's BLAKE2SMAC: keyed BLAKE2s with any key length 1..32 and output 1..32. */
static int ossl_blake2s_mac(uint8_t *out, size_t outlen, const uint8_t *key, size_t keylen,
			    const uint8_t *in, size_t inlen)
{
	EVP_MAC *mac = EVP_MAC_fetch(NULL, "BLAKE2SMAC", NULL);
	EVP_MAC_CTX *ctx;
	OSSL_PARAM params[2];
	size_t got = 0;
	int ok = 0;

	if (!mac)
		return -1;
	ctx = EVP_MAC_CTX_new(mac);
	params[0] = OSSL_PARAM_construct_size_t(OSSL_MAC_PARAM_SIZE, &outlen);
	params[1] = OSSL_PARAM_construct_end();
	if (ctx && EVP_MAC_init(ctx, key, keylen, params) && EVP_MAC_update(ctx, in, inlen) &&
	    EVP_MAC_final(ctx, out, &got, outlen) && got == outlen)
		ok = 1;
	EVP_MAC_CTX_free(ctx);
	EVP_MAC_free(mac);
	return ok ? 0 : -1;
}
#endif

/* The whole keyed KAT family (lengths 0..255) against OpenSSL's BLAKE2SMAC. */
static void kat_keyed_vs_openssl(void)
{
#ifdef HAVE_OPENSSL
	uint8_t key[32], in[256], out[32], want[32];
	size_t i;

	for (i = 0; i < 32; i++)
		key[i] = (uint8_t)i;
	for (i = 0; i < 256; i++)
		in[i] = (uint8_t)i;
	for (i = 0; i < 256; i++) {
		T_ASSERT_MSG(ossl_blake2s_mac(want, 32, key, 32, in, i) == 0,
			     "OpenSSL BLAKE2SMAC unavailable");
		T_ASSERT(surand_blake2s(out, 32, key, 32, in, i) == 0);
		T_ASSERT_MSG(t_memdiff(out, want, 32) == (size_t)-1, "length %zu differs", i);
	}
#else
	t_skip("OpenSSL (libcrypto) not found", "libssl-dev");
#endif
}

/* Random key lengths 1..32, output lengths 1..32 and inputs vs BLAKE2SMAC. */
static void keyed_random_vs_openssl(void)
{
#ifdef HAVE_OPENSSL
	uint64_t rs = 0x6b2a5e11u;
	uint8_t key[32], in[1100], out[32], want[32];
	int it;

	for (it = 0; it < 400; it++) {
		size_t keylen = 1 + t_rand64(&rs) % 32, outlen = 1 + t_rand64(&rs) % 32;
		size_t inlen = t_rand64(&rs) % sizeof(in);

		t_randbytes(&rs, key, keylen);
		t_randbytes(&rs, in, inlen);
		T_ASSERT(ossl_blake2s_mac(want, outlen, key, keylen, in, inlen) == 0);
		memset(out, 0xa5, sizeof(out));
		T_ASSERT(surand_blake2s(out, outlen, key, keylen, in, inlen) == 0);
		T_ASSERT_MSG(t_memdiff(out, want, outlen) == (size_t)-1,
			     "key %zu out %zu in %zu differs", keylen, outlen, inlen);
		/* Nothing written past outlen. */
		T_ASSERT(outlen == 32 || out[outlen] == 0xa5);
	}
#else
	t_skip("OpenSSL (libcrypto) not found", "libssl-dev");
#endif
}

/* Unkeyed BLAKE2s-256 vs OpenSSL EVP_blake2s256 on random inputs. */
static void unkeyed_vs_openssl(void)
{
#ifdef HAVE_OPENSSL
	uint64_t rs = 0x1234abcdu;
	uint8_t in[3000], out[32], want[32];
	unsigned int wl;
	int it;

	for (it = 0; it < 500; it++) {
		size_t inlen = it < 200 ? (size_t)it : t_rand64(&rs) % sizeof(in);

		t_randbytes(&rs, in, inlen);
		wl = 0;
		T_ASSERT(EVP_Digest(in, inlen, want, &wl, EVP_blake2s256(), NULL) == 1);
		T_ASSERT(wl == 32);
		T_ASSERT(surand_blake2s(out, 32, NULL, 0, in, inlen) == 0);
		T_ASSERT_MSG(t_memdiff(out, want, 32) == (size_t)-1, "length %zu differs", inlen);
	}
#else
	t_skip("OpenSSL (libcrypto) not found", "libssl-dev");
#endif
}

/* Every split point of a 300-byte input, keyed and unkeyed, and byte by byte. */
static void incremental_splits(void)
{
	uint64_t rs = 99;
	uint8_t key[32], in[300], one[32], inc[32];
	struct surand_blake2s_state s;
	size_t split, i;
	int keyed;

	t_randbytes(&rs, key, sizeof(key));
	t_randbytes(&rs, in, sizeof(in));
	for (keyed = 0; keyed < 2; keyed++) {
		size_t kl = keyed ? 32 : 0;

		T_ASSERT(surand_blake2s(one, 32, key, kl, in, sizeof(in)) == 0);
		for (split = 0; split <= sizeof(in); split++) {
			T_ASSERT(surand_blake2s_init_key(&s, 32, key, kl) == 0);
			surand_blake2s_update(&s, in, split);
			surand_blake2s_update(&s, in + split, sizeof(in) - split);
			surand_blake2s_final(&s, inc);
			T_ASSERT_MSG(t_memdiff(one, inc, 32) == (size_t)-1,
				     "keyed %d split %zu differs", keyed, split);
		}
		T_ASSERT(surand_blake2s_init_key(&s, 32, key, kl) == 0);
		for (i = 0; i < sizeof(in); i++)
			surand_blake2s_update(&s, in + i, 1);
		surand_blake2s_final(&s, inc);
		T_ASSERT_MEM_EQ(one, inc, 32);
	}
}

/* Out-of-range parameters fail closed: -1, nothing written, state unusable. */
static void bad_params(void)
{
	uint8_t key[33] = { 0 }, out[40];
	struct surand_blake2s_state s;
	size_t i;

	memset(out, 0x5a, sizeof(out));
	T_ASSERT(surand_blake2s(out, 0, NULL, 0, "x", 1) == -1);
	T_ASSERT(surand_blake2s(out, 33, NULL, 0, "x", 1) == -1);
	T_ASSERT(surand_blake2s(out, 32, key, 33, "x", 1) == -1);
	T_ASSERT(surand_blake2s(out, 32, NULL, 5, "x", 1) == -1);
	for (i = 0; i < sizeof(out); i++)
		T_ASSERT(out[i] == 0x5a);
	T_ASSERT(surand_blake2s_init(&s, 33) == -1);
	surand_blake2s_update(&s, "abc", 3);
	surand_blake2s_final(&s, out);
	for (i = 0; i < sizeof(out); i++)
		T_ASSERT(out[i] == 0x5a);
}

/* final() wipes the state: no chain value or key block is left behind. */
static void final_wipes(void)
{
	uint8_t key[32], out[32], zero[sizeof(struct surand_blake2s_state)];
	struct surand_blake2s_state s;

	memset(key, 0x77, sizeof(key));
	memset(zero, 0, sizeof(zero));
	T_ASSERT(surand_blake2s_init_key(&s, 32, key, sizeof(key)) == 0);
	surand_blake2s_update(&s, "some input", 10);
	surand_blake2s_final(&s, out);
	T_ASSERT_MEM_EQ(&s, zero, sizeof(s));
}

int main(int argc, char **argv)
{
	t_init(argc, argv);
	T_RUN(rfc7693_abc);
	T_RUN(kat_keyed);
	T_RUN(kat_keyed_vs_openssl);
	T_RUN(keyed_random_vs_openssl);
	T_RUN(unkeyed_vs_openssl);
	T_RUN(incremental_splits);
	T_RUN(bad_params);
	T_RUN(final_wipes);
	return t_done();
}
