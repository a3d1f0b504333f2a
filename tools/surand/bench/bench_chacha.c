/*
 * bench_chacha.c - `surand bench chacha`: throughput of every ChaCha20 body
 * this CPU runs, and of OpenSSL's EVP ChaCha20 in the same run (when built
 * with libssl-dev's headers and libcrypto opens at run time: bench_peers.c),
 * on 8, 16, 32 and 64 KiB outputs.
 *
 *   surand bench chacha [--quick] [--ms N] [--reps N]
 *
 * Each figure is the best of --reps runs (default 3) of about --ms
 * milliseconds (default 200) each; runs of the bodies and of OpenSSL are
 * interleaved, so a slow moment of the machine hits all of them alike.
 * The bodies write keystream (nblocks * 64 bytes per call); OpenSSL encrypts
 * a zero buffer of the same size with EVP_EncryptUpdate (keystream XOR 0).
 * A byte of every output is folded into a sink, so no call is dead code.
 * 1 MB = 10^6 bytes.  Exit status 0, or 64 on a bad option.
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_peers.h"
#include "cli.h"
#include "internal.h"

#define BENCH_MAX_BYTES (64 * 1024)
#define BENCH_NSIZES 4
#define BENCH_MAX_IMPLS 6

static const size_t bench_sizes[BENCH_NSIZES] = { 8 * 1024, 16 * 1024, 32 * 1024, 64 * 1024 };

static volatile uint8_t bench_sink;

static double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* An implementation under test: a body, or OpenSSL (fn == NULL). */
struct bench_impl {
	const char *name;
	surand_chacha20_fn fn;
	double best[BENCH_NSIZES]; /* MB/s */
};

/* Bytes per second of one body on `size`-byte outputs for about `secs`. */
static double bench_body(surand_chacha20_fn fn, uint8_t *buf, size_t size, double secs)
{
	/* A fixed, public benchmark key: nothing secret is produced here. */
	static const uint32_t key[8] = { 0x03020100, 0x07060504, 0x0b0a0908, 0x0f0e0d0c,
					 0x13121110, 0x17161514, 0x1b1a1918, 0x1f1e1d1c };
	const size_t nblocks = size / SURAND_CHACHA20_BLOCK_SIZE;
	uint64_t counter = 0, bytes = 0;
	double t0 = bench_now(), t;
	uint8_t acc = 0;

	fn(key, counter, 0, buf, nblocks); /* warm up caches and the clock */
	t0 = bench_now();
	do {
		fn(key, counter, 0, buf, nblocks);
		counter += nblocks;
		bytes += size;
		acc ^= buf[(counter * 61) % size];
	} while ((t = bench_now() - t0) < secs);
	bench_sink ^= acc;
	return (double)bytes / t;
}

#ifdef HAVE_OPENSSL
static const struct bench_openssl *ossl; /* libcrypto, when it opened */

/* Bytes per second of EVP ChaCha20 (EVP_EncryptUpdate over zeros), or -1. */
static double bench_evp(uint8_t *buf, const uint8_t *zeros, size_t size, double secs)
{
	static const uint8_t key[32] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
					 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31 };
	static const uint8_t iv[16];
	EVP_CIPHER_CTX *ctx = ossl->ctx_new();
	uint64_t bytes = 0, i = 0;
	double t0, t = 0;
	uint8_t acc = 0;
	int len, ok;

	if (!ctx)
		return -1;
	ok = ossl->encrypt_init(ctx, ossl->chacha20(), NULL, key, iv) == 1 &&
	     ossl->encrypt_update(ctx, buf, &len, zeros, (int)size) == 1;
	t0 = bench_now();
	while (ok) {
		ok = ossl->encrypt_update(ctx, buf, &len, zeros, (int)size) == 1 && (size_t)len == size;
		bytes += size;
		acc ^= buf[(++i * 61) % size];
		if ((t = bench_now() - t0) >= secs)
			break;
	}
	ossl->ctx_free(ctx);
	bench_sink ^= acc;
	return ok ? (double)bytes / t : -1;
}
#endif

static const char bench_usage[] =
	"usage: surand bench chacha [--quick] [--ms N] [--reps N]\n"
	"  --ms N    milliseconds per measurement, 1..10000 (default 200)\n"
	"  --reps N  measurements per figure, best kept, 1..100 (default 3)\n"
	"  --quick   --ms 50 --reps 2\n";

/* A bad command line: one line on stderr (surand(1)), exit 64. */
static int bench_bad(const char *what, const char *arg, const char *range)
{
	fprintf(stderr, "surand: bench chacha: %s '%s' (%s%ssee surand bench chacha --help)\n",
		what, arg, range ? range : "", range ? "; " : "");
	return SURAND_EX_USAGE;
}

static int bench_parse_uint(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	if (!s || !*s)
		return -1;
	v = strtol(s, &end, 10);
	if (*end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

/* The command line into ms and reps: -1 when the run goes on, otherwise the
 * exit status (0 after --help, 64 on a bad option). */
static int bench_options(int argc, char **argv, long *ms, long *reps)
{
	int a;

	for (a = 1; a < argc; a++) {
		if (strcmp(argv[a], "--help") == 0 || strcmp(argv[a], "-h") == 0) {
			fputs(bench_usage, stdout);
			return SURAND_EX_OK; /* the caller checks that it reached stdout */
		} else if (strcmp(argv[a], "--quick") == 0) {
			*ms = 50;
			*reps = 2;
		} else if ((strcmp(argv[a], "--ms") == 0 || strcmp(argv[a], "--reps") == 0) &&
			   a + 1 >= argc) {
			return bench_bad("no value after", argv[a], NULL);
		} else if (strcmp(argv[a], "--ms") == 0) {
			if (bench_parse_uint(argv[++a], 1, 10000, ms) < 0)
				return bench_bad("bad --ms value", argv[a], "1 to 10000");
		} else if (strcmp(argv[a], "--reps") == 0) {
			if (bench_parse_uint(argv[++a], 1, 100, reps) < 0)
				return bench_bad("bad --reps value", argv[a], "1 to 100");
		} else {
			return bench_bad("unknown option", argv[a], NULL);
		}
	}
	return -1;
}

/* Why OpenSSL has no row: not built in, or libcrypto did not open. */
static char openssl_why[160] = "not built in (apt-get install libssl-dev, then rebuild)";

/* The bodies this CPU runs, then OpenSSL when built with it and libcrypto
 * opens (its index in *openssl, else (size_t)-1), every figure 0; returns
 * how many. */
static size_t bench_impls(struct bench_impl impls[BENCH_MAX_IMPLS], size_t *openssl)
{
	static const char *const names[] = { "portable", "ssse3", "avx2", "avx512", "neon" };
	size_t nimpl = 0, i, s;

	*openssl = (size_t)-1;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		surand_chacha20_fn fn = surand_chacha20_impl_by_name(names[i]);
		if (fn) {
			impls[nimpl].name = names[i];
			impls[nimpl++].fn = fn;
		}
	}
#ifdef HAVE_OPENSSL
	if ((ossl = bench_openssl(openssl_why, sizeof(openssl_why))) != NULL) {
		*openssl = nimpl;
		impls[nimpl].name = "openssl";
		impls[nimpl++].fn = NULL;
	}
#endif
	for (i = 0; i < nimpl; i++)
		for (s = 0; s < BENCH_NSIZES; s++)
			impls[i].best[s] = 0;
	return nimpl;
}

/* Interleaved: every repetition measures every implementation and size. */
static void bench_measure(struct bench_impl *impls, size_t nimpl, long ms, long reps)
{
	static uint8_t buf[BENCH_MAX_BYTES + 64];
	size_t i, s;
	long r;
#ifdef HAVE_OPENSSL
	static const uint8_t zeros[BENCH_MAX_BYTES];
#endif

	for (r = 0; r < reps; r++) {
		for (s = 0; s < BENCH_NSIZES; s++) {
			for (i = 0; i < nimpl; i++) {
				double bps;
#ifdef HAVE_OPENSSL
				if (!impls[i].fn)
					bps = bench_evp(buf, zeros, bench_sizes[s], ms / 1000.0);
				else
#endif
					bps = bench_body(impls[i].fn, buf, bench_sizes[s], ms / 1000.0);
				if (bps / 1e6 > impls[i].best[s])
					impls[i].best[s] = bps / 1e6;
			}
		}
	}
}

/* Each body's figures over OpenSSL's, or why there are none. */
static void bench_print_ratios(const struct bench_impl *impls, size_t nimpl, size_t openssl)
{
	size_t i, s;
	int ok = 1;

	if (openssl == (size_t)-1) {
		printf("openssl: %s\n", openssl_why);
		return;
	}
	for (s = 0; s < BENCH_NSIZES; s++)
		ok = ok && impls[openssl].best[s] > 0;
	if (!ok) {
		printf("openssl: EVP ChaCha20 failed; no ratios\n");
		return;
	}
#ifdef HAVE_OPENSSL
	printf("ratio body/OpenSSL (%s, EVP_chacha20):\n", ossl->version(OPENSSL_VERSION));
#endif
	for (i = 0; i < nimpl; i++) {
		if (i == openssl)
			continue;
		printf("%-10s", impls[i].name);
		for (s = 0; s < BENCH_NSIZES; s++)
			printf(" %12.2fx", impls[i].best[s] / impls[openssl].best[s]);
		printf("\n");
	}
}

int surand_bench_chacha(int argc, char **argv)
{
	struct bench_impl impls[BENCH_MAX_IMPLS];
	long ms = 200, reps = 3;
	size_t nimpl, i, s, openssl;
	int rc = bench_options(argc, argv, &ms, &reps);

	if (rc >= 0)
		return rc;
	nimpl = bench_impls(impls, &openssl);
	bench_measure(impls, nimpl, ms, reps);
	printf("ChaCha20 keystream, MB/s (10^6 bytes/s), best of %ld x %ld ms; dispatcher uses %s\n",
	       reps, ms, surand_chacha20_impl_name());
	printf("%-10s", "body");
	for (s = 0; s < BENCH_NSIZES; s++)
		printf(" %9zu KiB", bench_sizes[s] / 1024);
	printf("\n");
	for (i = 0; i < nimpl; i++) {
		printf("%-10s", impls[i].name);
		for (s = 0; s < BENCH_NSIZES; s++)
			printf(" %13.1f", impls[i].best[s]);
		printf("\n");
	}
	bench_print_ratios(impls, nimpl, openssl);
	printf("(sink %u)\n", (unsigned)bench_sink);
	return SURAND_EX_OK;
}
