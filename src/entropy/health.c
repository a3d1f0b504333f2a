/*
 * health.c - continuous health tests of the raw noise sources (jitter
 * deltas, RDSEED/RDRAND words): NIST SP 800-90B section 4.4, the repetition
 * count test (4.4.1) and the adaptive proportion test (4.4.2), with cut-offs
 * for the claimed min-entropy H and a false-positive probability of at most
 * alpha = 2^-30 per test; and the policy around them (start-up, hold-off,
 * disable).  Conditioned sources (the kernel) and application input are
 * never tested here.
 *
 * Sections: 1. binomial arithmetic (no libm); 2. the cut-offs; 3. the tests;
 * 4. the per-source policy (RDSEED/RDRAND; jitter.c keeps its own, with
 * the power-up qualification); 5. the most common value estimate.
 * docs/entropy.md derives the cut-offs and lists their values.
 * SPDX-License-Identifier: MIT
 */
#include "entropy/entropy.h"

/* ==== 1. binomial arithmetic ================================================= */

#define LN2 0.69314718055994530942
#define POW2_SERIES_TERMS 24 /* |x| < ln 2: the 24th term is below 1e-25 */

double surand_health_pow2_neg(double x)
{
	double r = 1.0, f, term = 1.0, sum = 1.0;
	unsigned n, i;

	if (x <= 0)
		return 1.0;
	n = x > 2000 ? 2000 : (unsigned)x;
	/* 2^-n exactly (to the underflow), then 2^-f = e^(-f ln 2) by its series. */
	for (i = 0; i < n && r > 0; i++)
		r *= 0.5;
	f = -(x - n) * LN2;
	for (i = 1; i < POW2_SERIES_TERMS; i++) {
		term *= f / i;
		sum += term;
	}
	return r * sum;
}

/*
 * P(X >= k), X ~ Binomial(n, p).  The probabilities are built relative to the
 * mode (ratio of neighbours: pmf(j+1)/pmf(j) = (n-j)/(j+1) * p/(1-p)), so
 * nothing underflows near the mode, and normalised by their sum; far tails
 * underflow harmlessly to 0.
 */
double surand_health_binom_tail(unsigned n, double p, unsigned k)
{
	double q, v, total = 1.0, tail;
	unsigned mode, j;

	if (k == 0 || p >= 1.0)
		return 1.0;
	if (k > n || p <= 0.0)
		return 0.0;
	q = p / (1.0 - p);
	mode = (unsigned)((double)(n + 1) * p);
	if (mode > n)
		mode = n;
	tail = mode >= k ? 1.0 : 0.0;
	v = 1.0;
	for (j = mode; j < n; j++) {
		v *= (double)(n - j) / (double)(j + 1) * q;
		if (v == 0.0)
			break;
		total += v;
		if (j + 1 >= k)
			tail += v;
	}
	v = 1.0;
	for (j = mode; j > 0; j--) {
		v *= (double)j / ((double)(n - j + 1) * q);
		if (v == 0.0)
			break;
		total += v;
		if (j - 1 >= k)
			tail += v;
	}
	return tail / total;
}

/* ==== 2. the cut-offs ======================================================== */

static double alpha(void)
{
	return surand_health_pow2_neg((double)SURAND_HEALTH_ALPHA_LOG2);
}

/* RCT (4.4.1): C = 1 + ceil(-log2(alpha) / H); P(C-1 repeats) = 2^-H(C-1) <= alpha. */
unsigned surand_health_rct_cutoff(unsigned h_num, unsigned h_den)
{
	uint64_t a = (uint64_t)SURAND_HEALTH_ALPHA_LOG2 * h_den;

	if (h_num == 0 || h_den == 0)
		return 0;
	/* ceil(30 / (num/den)) = ceil(30 den / num), exact in integers */
	return (unsigned)(1 + (a + h_num - 1) / h_num);
}

/* Smallest k in [lo, n + 1] with P(Binomial(n, p) >= k) <= a (binary search). */
static unsigned binom_critical(unsigned n, double p, double a, unsigned lo)
{
	unsigned hi = n + 1, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (surand_health_binom_tail(n, p, mid) <= a)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/*
 * NIST's formula (4.4.2): C = 1 + CRITBINOM(W, 2^-H, 1 - alpha), CRITBINOM
 * being the smallest k with P(Binomial(W, p) <= k) >= 1 - alpha, i.e. with
 * P(Binomial(W, p) >= k + 1) <= alpha.
 */
unsigned surand_health_apt_cutoff_nist(unsigned h_num, unsigned h_den, unsigned w)
{
	double p = surand_health_pow2_neg((double)h_num / (double)h_den);

	return binom_critical(w, p, alpha(), 1); /* = 1 + CRITBINOM(...) */
}

/*
 * The test counts B = 1 (the window's first sample A) + the repeats of A
 * among the other W - 1 samples, and alarms at B >= C.  Any value repeats
 * with probability at most p = 2^-H, so P(alarm) <= P(Binomial(W-1, p) >= C-1).
 * NIST's C does not always keep that at or below alpha (it counts W trials);
 * we take the larger of NIST's C and the smallest C for which it does.
 */
unsigned surand_health_apt_cutoff(unsigned h_num, unsigned h_den, unsigned w)
{
	double p = surand_health_pow2_neg((double)h_num / (double)h_den);
	unsigned exact = 1 + binom_critical(w - 1, p, alpha(), 1);
	unsigned nist = surand_health_apt_cutoff_nist(h_num, h_den, w);

	return exact > nist ? exact : nist;
}

/* ==== 3. the tests =========================================================== */

void surand_health_init(struct surand_health *h, unsigned h_num, unsigned h_den)
{
	memset(h, 0, sizeof(*h));
	h->rct_cutoff = surand_health_rct_cutoff(h_num, h_den);
	h->apt_window = SURAND_HEALTH_APT_WINDOW;
	h->apt_cutoff = surand_health_apt_cutoff(h_num, h_den, h->apt_window);
}

int surand_health_feed(struct surand_health *h, uint64_t x)
{
	int r = SURAND_HEALTH_OK;

	h->samples++;
	/* 4.4.1: a run of C identical samples alarms; the count then restarts,
	 * so a stuck source alarms again every C - 1 further samples. */
	if (h->rct_run && x == h->rct_value) {
		if (++h->rct_run >= h->rct_cutoff) {
			r |= SURAND_HEALTH_RCT;
			h->rct_alarms++;
			h->rct_run = 1;
		}
	} else {
		h->rct_value = x;
		h->rct_run = 1;
	}
	/* 4.4.2: the first sample of each window of W, counted in the window
	 * (itself included); one alarm at most per window. */
	if (h->apt_pos == 0) {
		h->apt_value = x;
		h->apt_count = 1;
		h->apt_pos = 1;
	} else {
		if (x == h->apt_value && ++h->apt_count == h->apt_cutoff) {
			r |= SURAND_HEALTH_APT;
			h->apt_alarms++;
		}
		if (++h->apt_pos >= h->apt_window)
			h->apt_pos = 0;
	}
	return r;
}

/* ==== 4. the per-source policy =============================================== */

void surand_source_health_init(struct surand_source_health *sh, unsigned h_num, unsigned h_den,
			       unsigned startup, unsigned holdoff)
{
	int disabled = __atomic_load_n(&sh->disabled, __ATOMIC_RELAXED);

	surand_health_init(&sh->t, h_num, h_den);
	sh->holdoff = startup; /* start-up: no credit before these samples passed */
	sh->holdoff_len = holdoff;
	sh->alarms = 0;
	sh->ready = 1;
	/* A source disabled for the process stays disabled (fork child too). */
	__atomic_store_n(&sh->disabled, disabled, __ATOMIC_RELAXED);
}

int surand_source_health_feed(struct surand_source_health *sh, enum surand_entropy_source src,
			      uint64_t sample)
{
	int r = surand_health_feed(&sh->t, sample);

	if (SURAND_UNLIKELY(r != SURAND_HEALTH_OK)) {
		if (r & SURAND_HEALTH_RCT)
			SURAND_COUNT(surand_es_cnt[src].health_rct);
		if (r & SURAND_HEALTH_APT)
			SURAND_COUNT(surand_es_cnt[src].health_apt);
		/* The source stays mixed (harmless) but earns no credit for a while. */
		sh->holdoff = sh->holdoff_len;
		if (++sh->alarms >= SURAND_HEALTH_MAX_ALARMS)
			__atomic_store_n(&sh->disabled, 1, __ATOMIC_RELAXED);
		if (surand_config()->debug)
			surand_warn("entropy: %s health test alarm (%s%s%s), %u of %u; %s",
				    surand_entropy_source_name(src),
				    (r & SURAND_HEALTH_RCT) ? "repetition count" : "",
				    r == (SURAND_HEALTH_RCT | SURAND_HEALTH_APT) ? ", " : "",
				    (r & SURAND_HEALTH_APT) ? "adaptive proportion" : "",
				    sh->alarms, SURAND_HEALTH_MAX_ALARMS,
				    __atomic_load_n(&sh->disabled, __ATOMIC_RELAXED)
					    ? "source disabled for this process"
					    : "credit paused");
		return 0;
	}
	if (sh->holdoff) {
		sh->holdoff--;
		return 0;
	}
	return 1;
}

/* ==== 5. the most common value estimate ====================================== */

#define LOG_SERIES_TERMS 40 /* |y| <= 1/3: the 40th term is below 1e-38 */
#define SQRT_NEWTON_STEPS 64
#define MCV_Z99 2.576 /* SP 800-90B 6.3.1: Z(1 - 0.005), the upper 99% bound */

double surand_health_neg_log2(double x)
{
	double y, y2, term, sum = 0.0;
	int e = 0, i;

	if (x <= 0.0)
		return 2000.0; /* below every probability we compute: "no entropy bound" */
	if (x >= 1.0)
		return 0.0;
	/* x = m 2^e, m in [1, 2); ln m = 2 atanh((m - 1) / (m + 1)) */
	while (x < 1.0) {
		x *= 2.0;
		e--;
	}
	y = (x - 1.0) / (x + 1.0);
	y2 = y * y;
	term = y;
	for (i = 0; i < LOG_SERIES_TERMS; i++) {
		sum += term / (2 * i + 1);
		term *= y2;
	}
	return -((double)e + 2.0 * sum / LN2);
}

static double sqrt_newton(double x)
{
	double s = x > 1.0 ? x : 1.0;
	int i;

	if (x <= 0.0)
		return 0.0;
	for (i = 0; i < SQRT_NEWTON_STEPS; i++)
		s = 0.5 * (s + x / s);
	return s;
}

/* Heapsort: in place, no allocation, O(n log n). */
static void sift_down(uint64_t *v, unsigned root, unsigned n)
{
	unsigned child;
	uint64_t t;

	while ((child = 2 * root + 1) < n) {
		if (child + 1 < n && v[child + 1] > v[child])
			child++;
		if (v[root] >= v[child])
			return;
		t = v[root];
		v[root] = v[child];
		v[child] = t;
		root = child;
	}
}

static void heapsort_u64(uint64_t *v, unsigned n)
{
	unsigned i;
	uint64_t t;

	for (i = n / 2; i-- > 0;)
		sift_down(v, i, n);
	for (i = n; i-- > 1;) {
		t = v[0];
		v[0] = v[i];
		v[i] = t;
		sift_down(v, 0, i);
	}
}

/*
 * 6.3.1: p^ = (occurrences of the most common value) / n,
 * p_u = min(1, p^ + 2.576 sqrt(p^ (1 - p^) / (n - 1))), H = -log2(p_u).
 */
unsigned surand_health_mcv_millibits(uint64_t *v, unsigned n)
{
	unsigned i, run = 1, most = 1;
	double p, pu;

	if (!v || n < 2)
		return 0;
	heapsort_u64(v, n);
	for (i = 1; i < n; i++) {
		run = v[i] == v[i - 1] ? run + 1 : 1;
		if (run > most)
			most = run;
	}
	p = (double)most / (double)n;
	pu = p + MCV_Z99 * sqrt_newton(p * (1.0 - p) / (double)(n - 1));
	if (pu > 1.0)
		pu = 1.0;
	return (unsigned)(1000.0 * surand_health_neg_log2(pu));
}
