/*
 * cmd_selftest.c - `surand selftest`: known answers of every ChaCha20 body
 * this CPU supports (and of the dispatcher, and of the reproducible stream),
 * then the generator's basic sanity.  One line per check:
 *   PASS <check>: <what>      FAIL <check>: <what>      n/a  <check>: <why>
 * Exit 0 when every check that ran passed, 1 otherwise, 74 when standard
 * output fails (the report is the point).
 *
 * Vectors: RFC 8439 section 2.3.2 (block function), appendix A.1 #1, section
 * 2.4.2 (the "sunscreen" keystream, as ciphertext XOR plaintext), mapped onto
 * our 64-bit-counter layout as src/crypto/chacha20.h describes; and a pinned
 * two-block vector across the 2^32 counter carry computed with libsodium's
 * crypto_stream_chacha20_xor_ic (key 00..1f, nonce bytes 00..07, ic 2^32 - 1).
 * BLAKE2s: RFC 7693 appendix B ("abc") and the keyed vectors of the BLAKE2
 * reference KAT (key 00..1f, input 00..i-1).  SHA-1: FIPS 180 examples
 * ("abc", the 448-bit message) and the empty message, plus the bare
 * compression function over the padded "abc" block.
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "crypto/blake2s.h"
#include "crypto/sha1.h"
#include "internal.h"

static int st_failed, st_passed;

static void report(int ok, const char *check, const char *what)
{
	printf("%s %s: %s\n", ok ? "PASS" : "FAIL", check, what);
	if (ok)
		st_passed++;
	else
		st_failed++;
}

static int nib(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Lower-case hex without separators into out; returns the byte count. */
static size_t unhex(const char *h, uint8_t *out, size_t cap)
{
	size_t n = 0;

	while (h[0] && h[1] && n < cap) {
		out[n++] = (uint8_t)(nib(h[0]) << 4 | nib(h[1]));
		h += 2;
	}
	return n;
}

static const char kat_232[] =
	"10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e"
	"d2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e";
static const char kat_a1_1[] =
	"76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7"
	"da41597c5157488d7724e03fb8d84a376a43b8f41518a11cc387b669b2ee6586";
static const char sunscreen[] = "Ladies and Gentlemen of the class of '99: If I could offer you "
				"only one tip for the future, sunscreen would be it.";
static const char sunscreen_ct[] =
	"6e2e359a2568f98041ba0728dd0d6981e97e7aec1d4360c20a27afccfd9fae0b"
	"f91b65c5524733ab8f593dabcd62b3571639d624e65152ab8f530c359f0861d8"
	"07ca0dbf500d6a6156a38e088a22b65e52bc514d16ccf806818ce91ab7793736"
	"5af90bbf74a35be6b40b8eedf2785e42874d";
static const char kat_carry[] =
	"a2b8d04b13877b4a7013cb9031e4b70836e9705a9691bd18f8fca48502eacdca"
	"e0b8faaeef6c5dfee436afd8268aa6385dabb2855761127a3946b50d649f9a4b"
	"2fcab2c09a960545c6f57e9269ebc22b4ed12782e66dc4cb612536f5cdbed4bc"
	"ba16af8a92140bf4ded4808af8eee82bd0f18fbb64f073c2a547bc2372528f36";

static void key_seq(uint32_t key[8], uint8_t seed[32])
{
	int i;

	for (i = 0; i < 32; i++)
		seed[i] = (uint8_t)i;
	for (i = 0; i < 8; i++)
		key[i] = surand_load32_le(seed + 4 * i);
}

/* All known answers of one body; NULL on success, else which one failed. */
static const char *chacha_kats(surand_chacha20_fn fn)
{
	static uint8_t got[64 * 48], ref[64 * 48];
	uint8_t seed[32], want[128];
	uint32_t key[8], zero[8] = {0};
	size_t n, i, nb;

	key_seq(key, seed);
	unhex(kat_232, want, sizeof(want));
	fn(key, 1 | (uint64_t)0x09000000 << 32, 0x4a000000, got, 1);
	if (memcmp(got, want, 64) != 0)
		return "RFC 8439 2.3.2";
	unhex(kat_a1_1, want, sizeof(want));
	fn(zero, 0, 0, got, 1);
	if (memcmp(got, want, 64) != 0)
		return "RFC 8439 A.1 #1";
	n = unhex(sunscreen_ct, want, sizeof(want));
	fn(key, 1, 0x4a000000, got, 2);
	for (i = 0; i < n; i++)
		if ((uint8_t)(got[i] ^ (uint8_t)sunscreen[i]) != want[i])
			return "RFC 8439 2.4.2";
	unhex(kat_carry, want, sizeof(want));
	fn(key, 0xffffffffull, 0x0706050403020100ull, got, 2);
	if (memcmp(got, want, 128) != 0)
		return "2^32 counter carry (libsodium vector)";
	/* every width and tail against the portable body, across the 2^64 wrap */
	for (nb = 1; nb <= 48; nb++) {
		fn(key, UINT64_MAX - 20, 0x0123456789abcdefull, got, nb);
		surand_chacha20_blocks_portable(key, UINT64_MAX - 20, 0x0123456789abcdefull, ref, nb);
		if (memcmp(got, ref, 64 * nb) != 0)
			return "1..48 blocks across the 2^64 wrap = portable";
	}
	return NULL;
}

static void check_bodies(void)
{
	static const char *const names[] = {"portable", "ssse3", "avx2", "avx512", "neon"};
	char check[48], what[160];
	const char *bad;
	unsigned i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		surand_chacha20_fn fn = surand_chacha20_impl_by_name(names[i]);

		snprintf(check, sizeof(check), "chacha20-%s", names[i]);
		if (!fn) {
			printf("n/a  %s: not supported by this CPU or build\n", check);
			continue;
		}
		bad = chacha_kats(fn);
		snprintf(what, sizeof(what), "%s", bad ? bad :
			 "RFC 8439 2.3.2, A.1 #1, 2.4.2, counter carry, 1..48 blocks");
		report(!bad, check, what);
	}
	bad = chacha_kats(surand_chacha20_blocks);
	snprintf(what, sizeof(what), "dispatcher (body in use: %s)%s%s",
		 surand_chacha20_impl_name(), bad ? ": " : "", bad ? bad : "");
	report(!bad, "chacha20-dispatch", what);
}

static void check_stream(void)
{
	struct surand_stream s;
	uint8_t seed[32], got[128], want[128];
	uint32_t key[8];
	size_t n, i;
	int ok;

	key_seq(key, seed);
	n = unhex(sunscreen_ct, want, sizeof(want));
	surand_stream_init(&s, seed, 0x4a000000);
	surand_stream_seek(&s, 64);
	surand_stream_bytes(&s, got, 5);
	surand_stream_bytes(&s, got + 5, n - 5);
	ok = 1;
	for (i = 0; i < n; i++)
		ok &= (uint8_t)(got[i] ^ (uint8_t)sunscreen[i]) == want[i];
	surand_stream_wipe(&s);
	report(ok, "stream", "RFC 8439 2.4.2 through surand_stream_* (seed 00..1f, id 0x4a000000, "
			     "offset 64)");
}

static void check_blake2s(void)
{
	static const struct {
		size_t inlen;
		const char *hex;
	} keyed[] = {
		{0, "48a8997da407876b3d79c0d92325ad3b89cbb754d86ab71aee047ad345fd2c49"},
		{3, "1d220dbe2ee134661fdf6d9e74b41704710556f2f6e5a091b227697445dbea6b"},
		{255, "3fb735061abc519dfe979e54c1ee5bfad0a9d858b3315bad34bde999efd724dd"},
	};
	struct surand_blake2s_state st;
	uint8_t key[32], in[255], out[32], want[32];
	const char *bad = NULL;
	size_t i;

	for (i = 0; i < sizeof(key); i++)
		key[i] = (uint8_t)i;
	for (i = 0; i < sizeof(in); i++)
		in[i] = (uint8_t)i;
	unhex("508c5e8c327c14e2e1a72ba34eeb452f37458b209ed63a294d999b4c86675982", want, 32);
	if (surand_blake2s(out, 32, NULL, 0, "abc", 3) != 0 || memcmp(out, want, 32) != 0)
		bad = "RFC 7693 B (\"abc\")";
	for (i = 0; !bad && i < sizeof(keyed) / sizeof(keyed[0]); i++) {
		unhex(keyed[i].hex, want, 32);
		if (surand_blake2s(out, 32, key, 32, in, keyed[i].inlen) != 0 ||
		    memcmp(out, want, 32) != 0)
			bad = "keyed reference KAT";
	}
	/* incremental, in odd pieces, equals one shot (the 255-byte vector) */
	if (!bad) {
		if (surand_blake2s_init_key(&st, 32, key, 32) != 0) {
			bad = "init_key";
		} else {
			surand_blake2s_update(&st, in, 1);
			surand_blake2s_update(&st, in + 1, 64);
			surand_blake2s_update(&st, in + 65, 190);
			surand_blake2s_final(&st, out);
			if (memcmp(out, want, 32) != 0)
				bad = "incremental = one shot";
		}
	}
	report(!bad, "blake2s", bad ? bad : "RFC 7693 B, keyed reference KAT (0, 3, 255 bytes), "
					 "incremental");
}

static void check_sha1(void)
{
	static const char m448[] = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	uint8_t out[20], want[20], block[64];
	uint32_t h[5];
	const char *bad = NULL;
	int i;

	unhex("a9993e364706816aba3e25717850c26c9cd0d89d", want, 20);
	surand_sha1("abc", 3, out);
	if (memcmp(out, want, 20) != 0)
		bad = "FIPS 180 \"abc\"";
	/* the bare transform of the padded "abc" block is the same digest */
	memset(block, 0, sizeof(block));
	memcpy(block, "abc", 3); /* NOLINT(bugprone-not-null-terminated-result): message bytes, not a string */
	block[3] = 0x80;
	block[63] = 24; /* message length in bits, big-endian */
	surand_sha1_init_state(h);
	surand_sha1_transform(h, block);
	for (i = 0; i < 5; i++)
		surand_store32_be(out + 4 * i, h[i]);
	if (!bad && memcmp(out, want, 20) != 0)
		bad = "bare transform of the padded \"abc\" block";
	unhex("84983e441c3bd26ebaae4aa1f95129e5e54670f1", want, 20);
	surand_sha1(m448, sizeof(m448) - 1, out);
	if (!bad && memcmp(out, want, 20) != 0)
		bad = "FIPS 180 448-bit message";
	unhex("da39a3ee5e6b4b0d3255bfef95601890afd80709", want, 20);
	surand_sha1("", 0, out);
	if (!bad && memcmp(out, want, 20) != 0)
		bad = "empty message";
	report(!bad, "sha1", bad ? bad : "FIPS 180 \"abc\" and 448-bit message, empty message, "
				     "bare transform");
}

static int all_zero(const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

static void check_generator(void)
{
	uint8_t a[64], b[64];

	surand_bytes(a, sizeof(a));
	surand_bytes(b, sizeof(b));
	report(!all_zero(a, sizeof(a)) && memcmp(a, b, sizeof(a)) != 0, "generator",
	       "two 64-byte surand_bytes() draws are nonzero and differ");
	explicit_bzero(a, sizeof(a));
	explicit_bzero(b, sizeof(b));
}

int surand_cmd_selftest(int argc, char **argv)
{
	int out;

	if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		fputs("usage: surand selftest\n"
		      "Known-answer tests of every ChaCha20 body this CPU runs, the reproducible\n"
		      "stream, BLAKE2s and SHA-1, and the generator's sanity: one PASS/FAIL/n/a\n"
		      "line each.  Exit status: 0 every check passed, 1 one failed, 64 usage\n"
		      "error, 74 standard output failed.\n", stdout);
		return surand_stdout_status("selftest");
	}
	if (argc > 1) {
		fprintf(stderr, "surand: selftest takes no arguments (see surand selftest --help)\n");
		return SURAND_EX_USAGE;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	check_bodies();
	check_stream();
	check_blake2s();
	check_sha1();
	check_generator();
	printf("selftest: %d passed, %d failed\n", st_passed, st_failed);
	out = surand_stdout_status("selftest"); /* the report is the point: 74 when lost */
	if (out != SURAND_EX_OK)
		return out;
	return st_failed ? SURAND_EX_FAIL : SURAND_EX_OK;
}
