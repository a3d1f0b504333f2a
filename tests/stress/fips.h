/*
 * fips.h - the FIPS 140-2 statistical tests on 20,000-bit blocks (the
 * 2001-10-10 errata intervals, the ones rngtest from rng-tools applies), the
 * probability that a block of a TRUE random source fails each of them, and
 * the tolerance held against the failing-block count.  Header-only: used by
 * tests/test_stats_quality.c and the CI helpers in tests/stress/.
 *
 * Intervals (FIPS 140-2 section 4.9.1, change notice of 2001-10-10):
 *   monobit   ones X in a block:      pass 9725 < X < 10275
 *   poker     5000 4-bit nibbles, f(i) their counts,
 *             X = 16/5000 * sum f(i)^2 - 5000:  pass 2.16 < X < 46.17
 *             (rngtest compares sum f(i)^2 with 1563176 .. 1576928)
 *   runs      runs of length 1, 2, 3, 4, 5, 6+ of zeros and of ones, each
 *             count inside [2315,2685] [1114,1386] [527,723] [240,384]
 *             [103,209] [103,209]
 *   long run  no run of 26 or more equal bits
 * Bits are taken most significant first within each byte, as rngtest does.
 *
 * False-positive probabilities of a true random block (all computed here at
 * run time, nothing typed in):
 *   monobit   exact: the two tails of Binomial(20000, 1/2);
 *   poker     the chi-square(15) approximation of X (each cell expects
 *             312.5 nibbles, where the approximation is close);
 *   runs      exact marginal of each of the 12 counts, by dynamic programming
 *             over (current run length, count) along the 20,000 bits, summed
 *             over the 12 counts: a union bound, so an UPPER bound of the
 *             runs test's rate (the 12 counts are positively correlated);
 *   long run  exact, by dynamic programming over the current run length.
 * The per-block rate of the whole battery is at most the sum.
 *
 * Tolerance: a true random source fails each block independently with
 * probability p, so the failing-block count of n blocks is Binomial(n, p).
 * The tolerance is the smallest k with P(Binomial(n, p) > k) <= 1e-6: the
 * tail a 4.9-sigma one-sided bound would give a normal variable ("mean + 5
 * sigma"), computed on the binomial itself because with n * p below 1 a
 * normal mean + 5 sigma would allow a count a true random source exceeds far
 * more often than one run in a million.  A run fails only if more blocks
 * fail than that.
 * SPDX-License-Identifier: MIT
 */
#ifndef SURAND_TESTS_FIPS_H
#define SURAND_TESTS_FIPS_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FIPS_BLOCK_BYTES 2500
#define FIPS_BLOCK_BITS 20000
#define FIPS_TAIL 1e-6 /* false-alarm probability of a tolerance */

enum fips_test { FIPS_MONOBIT, FIPS_POKER, FIPS_RUNS, FIPS_LONGRUN, FIPS_NTESTS };
static const char *const fips_test_name[FIPS_NTESTS] = {"monobit", "poker", "runs", "longrun"};

#define FIPS_MONO_LO 9725   /* fail at or below */
#define FIPS_MONO_HI 10275  /* fail at or above */
#define FIPS_POKER_LO 1563176 /* sum f(i)^2 below: fail (X < 2.1632) */
#define FIPS_POKER_HI 1576928 /* sum f(i)^2 above: fail (X > 46.1696) */
#define FIPS_LONG_MIN 26    /* a run this long or longer fails */
static const int fips_runs_lo[6] = {2315, 1114, 527, 240, 103, 103};
static const int fips_runs_hi[6] = {2685, 1386, 723, 384, 209, 209};

/*
 * rngtest (rng-tools 5, fips.c) counts runs in two ways that FIPS 140-2 does
 * not, and fips_block_peer() counts as it does, so that a comparison with it
 * can be exact (*last_bit: the previous block's last bit, 0 before the first
 * block); fips_block() is the test as FIPS 140-2 states it.
 *  - A run that ends at a bit change is filed under the colour of the new
 *    bit, the block's last run under its own colour.  The bounds are the same
 *    for both colours, so only the last run's place differs from the spec.
 *  - It carries the last bit of one block into the next but starts each
 *    block with its run length at -1: when a block's first bit differs from
 *    the previous block's last, it files a "run" at index -1 + 6 * bit, for
 *    a 0 bit one before its runs array, which is its poker[15], for a 1 bit
 *    the first colour's runs of 6 or more.
 * Either moves a block that lies next to a bound across it.
 */
static inline unsigned fips_block_peer(const uint8_t *b, int *last_bit);

/* Bit mask (1 << enum fips_test) of the tests a 2500-byte block fails. */
static inline unsigned fips_block(const uint8_t *b)
{
	return fips_block_peer(b, NULL);
}

static inline unsigned fips_block_peer(const uint8_t *b, int *last_bit)
{
	int poker[16] = {0}, runs[2][6] = {{0}}, ones = 0, cur = -1, len = 0, longest = 0;
	unsigned fail = 0;
	long sq = 0;
	int i, j, k;

	if (last_bit && (b[0] >> 7) != *last_bit) {
		if (b[0] >> 7)
			runs[0][5]++;
		else
			poker[15]++;
	}
	for (i = 0; i < FIPS_BLOCK_BYTES; i++) {
		ones += __builtin_popcount(b[i]);
		poker[b[i] >> 4]++;
		poker[b[i] & 15]++;
		for (j = 7; j >= 0; j--) {
			int bit = (b[i] >> j) & 1;
			if (bit == cur) {
				len++;
				continue;
			}
			if (cur >= 0) {
				runs[last_bit ? 1 - cur : cur][len < 6 ? len - 1 : 5]++;
				if (len > longest)
					longest = len;
			}
			cur = bit;
			len = 1;
		}
	}
	runs[cur][len < 6 ? len - 1 : 5]++;
	if (len > longest)
		longest = len;
	if (last_bit)
		*last_bit = cur;
	if (ones <= FIPS_MONO_LO || ones >= FIPS_MONO_HI)
		fail |= 1u << FIPS_MONOBIT;
	for (i = 0; i < 16; i++)
		sq += (long)poker[i] * poker[i];
	if (sq < FIPS_POKER_LO || sq > FIPS_POKER_HI)
		fail |= 1u << FIPS_POKER;
	for (k = 0; k < 2; k++)
		for (i = 0; i < 6; i++)
			if (runs[k][i] < fips_runs_lo[i] || runs[k][i] > fips_runs_hi[i])
				fail |= 1u << FIPS_RUNS;
	if (longest >= FIPS_LONG_MIN)
		fail |= 1u << FIPS_LONGRUN;
	return fail;
}

/* ---- distributions -------------------------------------------------------- */

/* Regularized lower incomplete gamma P(a, x) (series) and upper Q(a, x)
 * (Lentz's continued fraction), each where it converges fast. */
static inline double fips_gamma_p_series(double a, double x)
{
	double sum = 1.0 / a, term = sum, ap = a;
	int n;

	for (n = 0; n < 100000; n++) {
		ap += 1;
		term *= x / ap;
		sum += term;
		if (fabs(term) < fabs(sum) * 1e-16)
			break;
	}
	return sum * exp(-x + a * log(x) - lgamma(a));
}

static inline double fips_gamma_q_cf(double a, double x)
{
	const double tiny = 1e-300;
	double b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d, an, del;
	int i;

	for (i = 1; i < 100000; i++) {
		an = -i * (i - a);
		b += 2;
		d = an * d + b;
		if (fabs(d) < tiny)
			d = tiny;
		c = b + an / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < 1e-16)
			break;
	}
	return exp(-x + a * log(x) - lgamma(a)) * h;
}

/* Chi-square with df degrees of freedom: P(X <= x) and P(X > x). */
static inline double fips_chi2_cdf(double x, double df)
{
	if (x <= 0)
		return 0;
	/* the series where x/2 < a + 1, the continued fraction above (each
	 * converges there; the other does not) */
	if (x / 2 < df / 2 + 1)
		return fips_gamma_p_series(df / 2, x / 2);
	return 1 - fips_gamma_q_cf(df / 2, x / 2);
}

static inline double fips_chi2_sf(double x, double df)
{
	if (x <= 0)
		return 1;
	if (x / 2 < df / 2 + 1)
		return 1 - fips_gamma_p_series(df / 2, x / 2);
	return fips_gamma_q_cf(df / 2, x / 2);
}

/* log of the Binomial(n, p) probability of exactly k. */
static inline double fips_log_binom(long n, long k, double p)
{
	return lgamma((double)n + 1) - lgamma((double)k + 1) - lgamma((double)(n - k) + 1) +
	       (double)k * log(p) + (double)(n - k) * log1p(-p);
}

/* ---- false-positive probability of each test ------------------------------ */

static inline double fips_p_monobit(void)
{
	double p = 0;
	long x;

	for (x = 0; x <= FIPS_MONO_LO; x++)
		p += exp(fips_log_binom(FIPS_BLOCK_BITS, x, 0.5));
	for (x = FIPS_MONO_HI; x <= FIPS_BLOCK_BITS; x++)
		p += exp(fips_log_binom(FIPS_BLOCK_BITS, x, 0.5));
	return p;
}

static inline double fips_p_poker(void)
{
	double lo = 16.0 / 5000 * FIPS_POKER_LO - 5000, hi = 16.0 / 5000 * FIPS_POKER_HI - 5000;

	return fips_chi2_cdf(lo, 15) + fips_chi2_sf(hi, 15);
}

/* P(a true random 20,000-bit block holds a run of FIPS_LONG_MIN or more). */
static inline double fips_p_longrun(void)
{
	double st[FIPS_LONG_MIN], nx[FIPS_LONG_MIN], failed = 0, same;
	int i, r;

	memset(st, 0, sizeof(st));
	st[1] = 1; /* after the first bit: a run of length 1 */
	for (i = 1; i < FIPS_BLOCK_BITS; i++) {
		memset(nx, 0, sizeof(nx));
		for (r = 1; r < FIPS_LONG_MIN; r++) {
			nx[1] += st[r] / 2; /* the next bit differs */
			same = st[r] / 2;
			if (r + 1 >= FIPS_LONG_MIN)
				failed += same;
			else
				nx[r + 1] += same;
		}
		memcpy(st, nx, sizeof(st));
	}
	return failed;
}

/*
 * P(the count of runs of ones of length `bucket` + 1 (bucket 5: 6 or more)
 * falls outside its interval) for a true random block; runs of zeros have the
 * same distribution.  State: the length r of the current run of ones (0: the
 * last bit was a zero), capped at cap; the count c, capped at hi + 1 (counts
 * only grow, so the cap is absorbing).
 */
static inline double fips_p_runs_one(int bucket)
{
	const int target = bucket + 1, hi = fips_runs_hi[bucket], lo = fips_runs_lo[bucket];
	const int cap = bucket < 5 ? target + 1 : 6, nc = hi + 2;
	double *st = calloc((size_t)(cap + 1) * nc, sizeof(double));
	double *nx = calloc((size_t)(cap + 1) * nc, sizeof(double));
	double p = 0, *t;
	int i, r, c, done;

	if (!st || !nx) {
		free(st);
		free(nx);
		return -1;
	}
#define S(a, r_, c_) (a)[(size_t)(r_) * nc + (c_)]
	S(st, 0, 0) = 1;
	for (i = 0; i < FIPS_BLOCK_BITS; i++) {
		memset(nx, 0, (size_t)(cap + 1) * nc * sizeof(double));
		for (r = 0; r <= cap; r++) {
			int r1 = r + 1 > cap ? cap : r + 1;
			int ends = r == target || (bucket == 5 && r >= 6);
			for (c = 0; c < nc; c++) {
				double v = S(st, r, c) / 2;
				/* Mass below 1e-40 is dropped: at most 1e-40 * 7 * 2687
				 * states * 20000 bits in all, far below what is computed. */
				if (v < 1e-40)
					continue;
				S(nx, r1, c) += v; /* a one: the run grows */
				/* a zero: the run of ones (if any) ends */
				S(nx, 0, ends && c + 1 < nc ? c + 1 : c) += v;
			}
		}
		t = st;
		st = nx;
		nx = t;
	}
	for (r = 0; r <= cap; r++)
		for (c = 0; c < nc; c++) {
			done = (r == target || (bucket == 5 && r >= 6)) && c + 1 < nc ? c + 1 : c;
			if (done < lo || done > hi)
				p += S(st, r, c);
		}
#undef S
	free(st);
	free(nx);
	return p;
}

struct fips_rates {
	double p[FIPS_NTESTS]; /* per block, per test */
	double total;          /* per block, any test (upper bound: the sum) */
	double runs_marginal[6];
};

static inline int fips_rates(struct fips_rates *fr)
{
	int b;

	memset(fr, 0, sizeof(*fr));
	fr->p[FIPS_MONOBIT] = fips_p_monobit();
	fr->p[FIPS_POKER] = fips_p_poker();
	for (b = 0; b < 6; b++) {
		fr->runs_marginal[b] = fips_p_runs_one(b);
		if (fr->runs_marginal[b] < 0)
			return -1;
		fr->p[FIPS_RUNS] += 2 * fr->runs_marginal[b]; /* zeros and ones */
	}
	fr->p[FIPS_LONGRUN] = fips_p_longrun();
	for (b = 0; b < FIPS_NTESTS; b++)
		fr->total += fr->p[b];
	return 0;
}

/* Smallest k with P(Binomial(n, p) > k) <= FIPS_TAIL. */
static inline long fips_tolerance(long n, double p)
{
	double below = 0;
	long k;

	for (k = 0; k <= n; k++) {
		below += exp(fips_log_binom(n, k, p));
		if (1 - below <= FIPS_TAIL)
			return k;
	}
	return n;
}

#endif
