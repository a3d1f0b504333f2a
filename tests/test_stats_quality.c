/*
 * test_stats_quality.c - statistical quality of every backend's output.
 *
 * Per backend (each in a fresh process that selects it with
 * surand_set_backend() before first use), 10 MB of output drawn through the
 * public API in a mix of request sizes (16-byte calls: the batch path;
 * 1..1100-byte calls through surand_getrandom; 64 KiB calls: the direct path)
 * is held to:
 *   - FIPS 140-2 monobit, poker, runs and long run on its 4000 consecutive
 *     20,000-bit blocks: the failing-block count of each test and of all of
 *     them against the count a TRUE random source exceeds with probability
 *     1e-6 (tests/stress/fips.h: rates computed at run time, documented
 *     there), not against zero;
 *   - byte chi-square (255 df) and 16-bit chi-square (65535 df) p-values in
 *     [1e-6, 1 - 1e-6] (too uniform is as suspicious as too lumpy);
 *   - serial correlation of consecutive bytes (Knuth's / ent's coefficient)
 *     within 5 standard deviations of its expectation under independence;
 *   - no duplicate among the 625,000 16-byte records.
 * Each statistic's false-alarm rate is at most about 2e-6 per backend.
 *
 * Controls show every statistic can fail: streams with a known defect (bias,
 * a long run, a missing nibble, doubled bits, a missing byte value, a serial
 * dependence, a pair dependence) are rejected, and a good non-surand stream
 * (splitmix64) is accepted.
 * SPDX-License-Identifier: MIT
 */
#include <math.h>
#include <stdint.h>

#include "reliability.h"
#include "stress/fips.h"

#define QUALITY_BYTES 10000000u      /* 10 MB: 4000 FIPS blocks */
#define QUALITY_BYTES_SLOW 2500000u  /* under a sanitizer or valgrind: 1000 blocks */
#define P_MIN 1e-6                   /* p-value window of the chi-square tests */
#define SERIAL_Z_MAX 5.0             /* |z| of the serial correlation */
#define ENV_RATES "SURAND_TEST_FIPS_RATES"

struct quality {
	long blocks, fail[FIPS_NTESTS], fail_any;
	long tol[FIPS_NTESTS], tol_any;
	double chi2_byte, p_byte, chi2_pair, p_pair, serial, serial_z;
};

static struct fips_rates rates;

/* The parent computes the rates once; children read them from the environment. */
static int rates_load(void)
{
	const char *e = getenv(ENV_RATES);
	int i;

	if (!e)
		return fips_rates(&rates);
	memset(&rates, 0, sizeof(rates));
	if (sscanf(e, "%lg,%lg,%lg,%lg", &rates.p[0], &rates.p[1], &rates.p[2], &rates.p[3]) != 4)
		return -1;
	for (i = 0; i < FIPS_NTESTS; i++)
		rates.total += rates.p[i];
	return 0;
}

static void analyze(const uint8_t *buf, size_t n, struct quality *q)
{
	static unsigned long byte[256], pair[65536];
	double e, x, sum = 0, sum2 = 0, sumx = 0, mean, sd, npairs;
	size_t i;
	int t;

	memset(q, 0, sizeof(*q));
	q->blocks = (long)(n / FIPS_BLOCK_BYTES);
	for (i = 0; i + FIPS_BLOCK_BYTES <= n; i += FIPS_BLOCK_BYTES) {
		unsigned f = fips_block(buf + i);
		for (t = 0; t < FIPS_NTESTS; t++)
			if (f & (1u << t))
				q->fail[t]++;
		if (f)
			q->fail_any++;
	}
	for (t = 0; t < FIPS_NTESTS; t++)
		q->tol[t] = fips_tolerance(q->blocks, rates.p[t]);
	q->tol_any = fips_tolerance(q->blocks, rates.total);

	memset(byte, 0, sizeof(byte));
	memset(pair, 0, sizeof(pair));
	for (i = 0; i < n; i++)
		byte[buf[i]]++;
	for (i = 0; i + 1 < n; i += 2)
		pair[(unsigned)buf[i] << 8 | buf[i + 1]]++;
	e = (double)n / 256;
	for (i = 0; i < 256; i++)
		q->chi2_byte += ((double)byte[i] - e) * ((double)byte[i] - e) / e;
	q->p_byte = fips_chi2_sf(q->chi2_byte, 255);
	npairs = (double)(n / 2);
	e = npairs / 65536;
	for (i = 0; i < 65536; i++)
		q->chi2_pair += ((double)pair[i] - e) * ((double)pair[i] - e) / e;
	q->p_pair = fips_chi2_sf(q->chi2_pair, 65535);

	/* Serial correlation coefficient with wrap-around (Knuth 3.3.2 K, as ent
	 * computes it); under independence its mean is -1/(n-1) and its standard
	 * deviation about 1/sqrt(n). */
	for (i = 0; i < n; i++) {
		x = buf[i];
		sum += x;
		sum2 += x * x;
		sumx += x * buf[(i + 1) % n];
	}
	q->serial = ((double)n * sumx - sum * sum) / ((double)n * sum2 - sum * sum);
	mean = -1.0 / ((double)n - 1);
	sd = sqrt((double)n * ((double)n - 3)) / (((double)n - 1) * sqrt((double)n + 1));
	q->serial_z = (q->serial - mean) / sd;
}

/* 1 when q is what a good source gives; else prints why on stdout. */
static int acceptable(const struct quality *q, const char *what, int quiet)
{
	int ok = 1, t;

	for (t = 0; t < FIPS_NTESTS; t++)
		if (q->fail[t] > q->tol[t]) {
			if (!quiet)
				printf("# %s: FIPS %s failed %ld of %ld blocks (tolerance %ld)\n", what,
				       fips_test_name[t], q->fail[t], q->blocks, q->tol[t]);
			ok = 0;
		}
	if (q->fail_any > q->tol_any) {
		if (!quiet)
			printf("# %s: %ld of %ld blocks failed some FIPS test (tolerance %ld)\n", what,
			       q->fail_any, q->blocks, q->tol_any);
		ok = 0;
	}
	if (q->p_byte < P_MIN || q->p_byte > 1 - P_MIN) {
		if (!quiet)
			printf("# %s: byte chi-square %.1f (255 df), p = %.3g\n", what, q->chi2_byte,
			       q->p_byte);
		ok = 0;
	}
	if (q->p_pair < P_MIN || q->p_pair > 1 - P_MIN) {
		if (!quiet)
			printf("# %s: 16-bit chi-square %.1f (65535 df), p = %.3g\n", what, q->chi2_pair,
			       q->p_pair);
		ok = 0;
	}
	if (fabs(q->serial_z) > SERIAL_Z_MAX) {
		if (!quiet)
			printf("# %s: serial correlation %.6f (z = %.2f)\n", what, q->serial, q->serial_z);
		ok = 0;
	}
	return ok;
}

/* ---- per backend, in a fresh process ------------------------------------------- */

static void quality_child(void)
{
	size_t n = rel_slow_checker() ? QUALITY_BYTES_SLOW : QUALITY_BYTES, off = 0, a, b;
	uint64_t sizes = 0x5eed;
	unsigned long long dups;
	struct quality q;
	uint8_t *buf, *recs;
	int ok;

	if (rel_select_backend() != 0)
		return;
	T_ASSERT(rates_load() == 0);
	buf = malloc(n);
	recs = malloc(n);
	T_ASSERT(buf && recs);
	a = n / 10 * 4; /* 40%: 16-byte calls (the batch path) */
	b = n / 10 * 6; /* 20%: 1..1100-byte calls through surand_getrandom */
	for (; off + 16 <= a; off += 16)
		surand_bytes(buf + off, 16);
	while (off < b) {
		size_t len = 1 + t_rand64(&sizes) % 1100;
		if (len > b - off)
			len = b - off;
		T_ASSERT(surand_getrandom(buf + off, len, 0) == (ssize_t)len);
		off += len;
	}
	while (off < n) { /* 40%: 64 KiB calls (the direct path) */
		size_t len = n - off < 65536 ? n - off : 65536;
		surand_bytes(buf + off, len);
		off += len;
	}
	analyze(buf, n, &q);
	memcpy(recs, buf, n);
	dups = rel_count_dups(recs, n / 16, 16);
	ok = acceptable(&q, rel_backend(), 0) && dups == 0;
	printf("# %s: %zu bytes, FIPS fails mono %ld poker %ld runs %ld long %ld any %ld of %ld "
	       "(tolerance %ld, expected %.2f); chi2 byte p=%.3f pair p=%.3f; serial z=%.2f\n",
	       rel_backend(), n, q.fail[FIPS_MONOBIT], q.fail[FIPS_POKER], q.fail[FIPS_RUNS],
	       q.fail[FIPS_LONGRUN], q.fail_any, q.blocks, q.tol_any, rates.total * (double)q.blocks,
	       q.p_byte, q.p_pair, q.serial_z);
	rel_report("stats-quality",
		   rel_fmt("%zu MB, %ld FIPS blocks (%ld failed, tolerance %ld), chi2, serial", n / 1000000,
			   q.blocks, q.fail_any, q.tol_any),
		   ok, dups, 0, 0);
	T_ASSERT_MSG(dups == 0, "%llu repeated 16-byte records in %zu bytes", dups, n);
	T_ASSERT_MSG(ok, "the output of %s is not what a random source gives (see above)",
		     rel_backend());
	free(buf);
	free(recs);
}

/* ---- the statistics themselves --------------------------------------------------- */

static void rates_as_documented(void)
{
	/* The rates behind every tolerance: each near the 1e-4 the intervals were
	 * drawn for, the whole battery near the 0.08% rngtest users see. */
	T_ASSERT_MSG(rates.p[FIPS_MONOBIT] > 0.9e-4 && rates.p[FIPS_MONOBIT] < 1.2e-4, "monobit %.3g",
		     rates.p[FIPS_MONOBIT]);
	T_ASSERT_MSG(rates.p[FIPS_POKER] > 0.8e-4 && rates.p[FIPS_POKER] < 1.2e-4, "poker %.3g",
		     rates.p[FIPS_POKER]);
	T_ASSERT_MSG(rates.p[FIPS_RUNS] > 1e-4 && rates.p[FIPS_RUNS] < 6e-4, "runs %.3g",
		     rates.p[FIPS_RUNS]);
	/* Long run: about (20000 - 25) * 2^-26 runs of >= 26 bits are expected. */
	T_ASSERT_MSG(fabs(rates.p[FIPS_LONGRUN] - 19975.0 / 67108864) < 0.05 * 19975.0 / 67108864,
		     "long run %.4g", rates.p[FIPS_LONGRUN]);
	T_ASSERT(rates.total > 6e-4 && rates.total < 1e-3);
	/* Chi-square: the 1% points of chi2(15) and chi2(255). */
	T_ASSERT(fabs(fips_chi2_sf(30.578, 15) - 0.01) < 1e-4);
	T_ASSERT(fabs(fips_chi2_cdf(5.229, 15) - 0.01) < 1e-4);
	T_ASSERT(fabs(fips_chi2_sf(310.457, 255) - 0.01) < 1e-4);
	/* Against the Wilson-Hilferty normal approximation (close for these df):
	 * below the mean (the series) and for 65535 df on both sides. */
	T_ASSERT(fabs(fips_chi2_cdf(200, 255) - 0.004586) < 5e-4);
	T_ASSERT(fabs(fips_chi2_sf(64817, 65535) - 0.97663) < 1e-3);
	T_ASSERT(fabs(fips_chi2_sf(65535, 65535) - 0.49927) < 1e-3);
	T_ASSERT(fabs(fips_chi2_sf(66400, 65535) - 0.008641) < 5e-4);
	for (double x = 60000; x < 72000; x += 500) {
		double p = fips_chi2_sf(x, 65535);
		T_ASSERT_MSG(p >= 0 && p <= 1 && fabs(p + fips_chi2_cdf(x, 65535) - 1) < 1e-9,
			     "chi2(65535) at %.0f: sf %.6f", x, p);
	}
	/* Tolerance: the smallest k with P(Bin(n, p) > k) <= 1e-6. */
	for (long n = 500; n <= 8000; n *= 2) {
		long k = fips_tolerance(n, rates.total);
		double le = 0;
		for (long j = 0; j <= k; j++)
			le += exp(fips_log_binom(n, j, rates.total));
		T_ASSERT(1 - le <= FIPS_TAIL);
		T_ASSERT(1 - (le - exp(fips_log_binom(n, k, rates.total))) > FIPS_TAIL);
	}
	printf("# per-block false-positive rates: monobit %.3g poker %.3g runs %.3g (union bound) "
	       "long run %.3g, any %.3g; tolerance for 4000 blocks: %ld\n",
	       rates.p[0], rates.p[1], rates.p[2], rates.p[3], rates.total,
	       fips_tolerance(4000, rates.total));
}

/* Control streams: splitmix64 (good), then with one defect each. */
static uint8_t *ctl_buf;
static const size_t ctl_n = 4000000; /* 1600 blocks */

static void ctl_fill(uint64_t seed)
{
	t_randbytes(&seed, ctl_buf, ctl_n);
}

static void controls(void)
{
	struct quality q;
	uint64_t s = 99;
	size_t i;

	ctl_buf = malloc(ctl_n);
	T_ASSERT(ctl_buf);

	ctl_fill(1);
	analyze(ctl_buf, ctl_n, &q);
	T_ASSERT_MSG(acceptable(&q, "splitmix64", 0), "a good stream was rejected");

	/* Bias: each bit is 1 with probability 1/2 + 1/64. */
	ctl_fill(2);
	for (i = 0; i < ctl_n; i++) {
		uint64_t r = t_rand64(&s);
		ctl_buf[i] |= (uint8_t)(r & r >> 8 & r >> 16 & r >> 24 & r >> 32);
	}
	analyze(ctl_buf, ctl_n, &q);
	T_ASSERT_MSG(q.fail[FIPS_MONOBIT] > q.tol[FIPS_MONOBIT], "bias 1/64: monobit %ld", q.fail[0]);
	T_ASSERT(!acceptable(&q, "biased", 1));

	/* A run of 32 zero bits in every tenth block. */
	ctl_fill(3);
	for (i = 0; i + FIPS_BLOCK_BYTES <= ctl_n; i += 10 * FIPS_BLOCK_BYTES)
		memset(ctl_buf + i + 1000, 0, 4);
	analyze(ctl_buf, ctl_n, &q);
	T_ASSERT_MSG(q.fail[FIPS_LONGRUN] >= q.blocks / 10, "long runs: %ld", q.fail[FIPS_LONGRUN]);
	T_ASSERT(!acceptable(&q, "long runs", 1));

	/* Nibble 0xF never occurs (each is redrawn among the other 15). */
	ctl_fill(4);
	for (i = 0; i < ctl_n; i++) {
		uint8_t hi = ctl_buf[i] >> 4, lo = ctl_buf[i] & 15;
		if (hi == 15)
			hi = (uint8_t)(t_rand64(&s) % 15);
		if (lo == 15)
			lo = (uint8_t)(t_rand64(&s) % 15);
		ctl_buf[i] = (uint8_t)(hi << 4 | lo);
	}
	analyze(ctl_buf, ctl_n, &q);
	T_ASSERT_MSG(q.fail[FIPS_POKER] > q.blocks / 2, "poker: %ld", q.fail[FIPS_POKER]);

	/* Every bit doubled: no run of odd length. */
	ctl_fill(5);
	for (i = 0; i < ctl_n; i++) {
		uint8_t v = ctl_buf[i], o = 0;
		for (int j = 0; j < 4; j++)
			if (v >> j & 1)
				o |= (uint8_t)(3u << (2 * j));
		ctl_buf[i] = o;
	}
	analyze(ctl_buf, ctl_n, &q);
	T_ASSERT_MSG(q.fail[FIPS_RUNS] == q.blocks, "doubled bits: runs failed %ld", q.fail[FIPS_RUNS]);

	/* Byte value 0 missing. */
	ctl_fill(6);
	for (i = 0; i < ctl_n; i++)
		while (ctl_buf[i] == 0)
			ctl_buf[i] = (uint8_t)t_rand64(&s);
	analyze(ctl_buf, ctl_n, &q);
	T_ASSERT_MSG(q.p_byte < P_MIN, "missing byte value: p = %g", q.p_byte);

	/* A byte repeats its predecessor with probability 1/64. */
	ctl_fill(7);
	for (i = 1; i < ctl_n; i++)
		if (t_rand64(&s) % 64 == 0)
			ctl_buf[i] = ctl_buf[i - 1];
	analyze(ctl_buf, ctl_n, &q);
	T_ASSERT_MSG(q.serial_z > SERIAL_Z_MAX, "serial dependence: z = %.2f", q.serial_z);

	/* Within each pair, the second byte is the first plus one, one time in 32
	 * (each byte alone stays uniform). */
	ctl_fill(8);
	for (i = 0; i + 1 < ctl_n; i += 2)
		if (t_rand64(&s) % 32 == 0)
			ctl_buf[i + 1] = (uint8_t)(ctl_buf[i] + 1);
	analyze(ctl_buf, ctl_n, &q);
	T_ASSERT_MSG(q.p_pair < P_MIN, "pair dependence: p = %g", q.p_pair);
	T_ASSERT_MSG(q.p_byte >= P_MIN, "pair dependence changed the byte counts: p = %g", q.p_byte);

	free(ctl_buf);
}

static const struct t_child_case child_cases[] = {
	{"quality", quality_child},
	{NULL, NULL},
};

int main(int argc, char **argv)
{
	char env[256];

	t_init(argc, argv);
	t_child_main(argc, argv, child_cases);
	if (fips_rates(&rates) != 0) {
		printf("FAIL test_stats_quality/rates: out of memory\n");
		return 1;
	}
	snprintf(env, sizeof(env), "%.17g,%.17g,%.17g,%.17g", rates.p[0], rates.p[1], rates.p[2],
		 rates.p[3]);
	setenv(ENV_RATES, env, 1);
	T_RUN(rates_as_documented);
	T_RUN(controls);
	rel_per_backend("quality", "quality", "stats-quality", 120);
	return t_done();
}
