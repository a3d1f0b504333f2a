/*
 * jitter.c - CPU timing jitter as a noise source: the time a short loop of
 * data-dependent memory reads and writes takes varies with cache, TLB,
 * pipeline and interrupt state (the idea of Stephan Mueller's jitterentropy;
 * this is our own, much smaller loop, and our own accounting modelled on how
 * that library qualifies its timer).
 *
 * One sample is the duration of one loop (a "delta"), in TSC ticks on x86-64,
 * in ticks of the generic timer's virtual count (CNTVCT_EL0) on aarch64, else
 * in CLOCK_MONOTONIC ns.  CNTVCT_EL0 runs at CNTFRQ_EL0, often only 1 to
 * 100 MHz (Armv8.6 fixes 1 GHz): a coarse counter gives many deltas of 0 or
 * stuck deltas, which the qualification below disqualifies (mixed, never
 * credited), so a slow timer costs credit, never safety.  Every delta is mixed into the entropy pool.
 * What is credited, and when (docs/entropy.md section 3):
 *  1. power-up qualification: the first 1024 deltas earn nothing; then the
 *     timer is rejected for good (disqualified: mixed, never credited) when it
 *     is coarse (a delta of 0), non-monotonic (more than 3 backward steps),
 *     stuck (more than 90% stuck deltas), raised a health-test alarm, or its
 *     most-common-value estimate (SP 800-90B 6.3.1) is below the credited H;
 *  2. H = 1/8 bit per delta (1 bit at an oversampling rate of 8): both the
 *     credit and the health tests' cut-offs (SP 800-90B 4.4) use it;
 *  3. a stuck delta (zero 1st, 2nd or 3rd difference) is tested but never
 *     counted toward credit;
 *  4. credit is granted when an adaptive proportion window (512 deltas)
 *     closes with no alarm in it: the window's counted deltas / 8, the
 *     remainder carried; a window with an alarm gives nothing, the next 1024
 *     deltas give nothing (hold-off), and the 3rd alarm after qualification
 *     disables the source for the process (a round that disables it credits
 *     nothing, and it is never sampled again).
 * Sampling is bounded in count and time (64 deltas or 200 us, whichever
 * comes first, checked after each delta) at each scheduled reseed, never a
 * wait; the qualification and the windows run across rounds.
 * SPDX-License-Identifier: MIT
 */
#include "entropy/entropy.h"

#include <time.h>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#ifdef SURAND_TEST_BUILD
#include "test_hooks.h"
static int test_fault;
static uint64_t test_slow_ns; /* each delta takes at least this long */
static unsigned test_round_max; /* 0: JITTER_SAMPLES */
#define SIM_SEED 0x6a09e667f3bcc909ull
static uint64_t sim_rng = SIM_SEED;
static uint64_t sim_clock = 1ull << 32; /* the simulated timer */
static uint64_t sim_i;                  /* deltas since the last health reset */

/* splitmix64 (Steele, Lea, Flood 2014): the simulated timers' coin. */
static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}
#endif

#define JITTER_SAMPLES 64u              /* deltas per sampling round ... */
#define JITTER_BUDGET_NS 200000ull      /* ... or this long, whichever comes first */
#define JITTER_TOUCHES 64u              /* memory reads+writes per delta */
#define JITTER_BUF_BYTES 16384u         /* spread over more than one L1 way set */
/*
 * The claim: 1 bit per delta at an oversampling rate of 8, so H = 1/8 bit per
 * delta, which is both what a counted delta is credited and what the health
 * tests' cut-offs are computed for (alpha = 2^-30, health.c):
 *   RCT, SP 800-90B 4.4.1: C = 1 + ceil(-log2(alpha) / H) = 1 + 30 * 8 = 241;
 *   APT, SP 800-90B 4.4.2: C = 1 + CRITBINOM(W = 512, 2^-H, 1 - alpha) = 502,
 *   raised where P(Binomial(W - 1, 2^-H) >= C - 1) > alpha (here it is not).
 */
#define JITTER_OSR 8u                   /* oversampling rate: 8 deltas per credited bit */
#define JITTER_H_NUM 1u                 /* H = 1/8 bit per delta: tested AND credited */
#define JITTER_H_DEN JITTER_OSR
#define JITTER_H_MILLIBITS (1000u * JITTER_H_NUM / JITTER_H_DEN)
#define JITTER_QUAL_DELTAS 1024u        /* SP 800-90B 4.3: 1024 samples before use */
#define JITTER_QUAL_BYTES (JITTER_QUAL_DELTAS * 8u)
#define JITTER_QUAL_STUCK_PERMILLE 900u /* more than 90% stuck: rejected */
#define JITTER_QUAL_MAX_BACKWARDS 3u    /* more backward steps: rejected */
#define JITTER_HOLDOFF 1024u            /* deltas without credit after an alarm */
#define JITTER_ALLOC_BYTES (JITTER_BUF_BYTES + JITTER_QUAL_BYTES)

/*
 * The loop's buffer and, after it, the qualification's record of the first
 * 1024 deltas (for the most-common-value estimate; wiped at the verdict):
 * their bytes follow from the timings, so they are kept as secret as the
 * pool (wipe-on-fork memory, never dumped), mapped by the first sampling
 * round, never in a signal handler's path.  Touched only by the sampler
 * (reseed.c's sampler flag).  A dropped page reads as zeros: the loop takes
 * that as any other content; the qualification notices it and starts again.
 */
static uint8_t *jbuf;
static uint64_t *jqual;

/* The sampler's state; the fields stats read from other threads are atomic. */
static struct {
	struct surand_health t; /* RCT + APT at H = 1/8 */
	uint32_t ready;
	uint32_t phase;         /* SURAND_QUAL_PENDING/QUALIFIED/DISQUALIFIED (atomic) */
	uint32_t reason;        /* SURAND_DISQ_* (atomic) */
	uint32_t q_n, q_zero, q_back, q_stuck, q_alarms; /* qualification counts (atomic) */
	uint32_t h_est;         /* the 6.3.1 estimate at the verdict, millibits (atomic) */
	uint64_t last, last_d2; /* the previous delta and 2nd difference */
	uint32_t win_units;     /* counted deltas of the open window */
	uint32_t win_alarm;     /* the open window saw an alarm */
	uint32_t holdoff;
	uint32_t alarms;        /* after qualification */
	uint32_t credit_rem;    /* counted deltas carried to the next credited bit */
	int disabled;           /* atomic */
	int paused;             /* atomic: start-up or hold-off */
} js;

#define JS_SET(f, v) __atomic_store_n(&js.f, (v), __ATOMIC_RELAXED)
#define JS_GET(f) __atomic_load_n(&js.f, __ATOMIC_RELAXED)

static inline uint64_t ticks(void)
{
#if defined(__x86_64__)
	return __rdtsc();
#elif defined(__aarch64__)
	uint64_t v;

	/* The isb keeps the read from being taken early, ahead of the loop it
	 * times (a counter read is not ordered with the instructions around it;
	 * Linux's __arch_counter_get_cntvct puts the same isb before it).  EL0
	 * access is enabled by Linux (CNTKCTL_EL1.EL0VCTEN). */
	__asm__ __volatile__("isb\n\tmrs %0, cntvct_el0" : "=r"(v) : : "memory");
	return v;
#else
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#ifdef SURAND_TEST_BUILD
/* Healthy simulated jitter: 1000 half the time, else a spread tail. */
static uint64_t sim_healthy(void)
{
	uint64_t r = splitmix(&sim_rng);

	return (r & 1) ? 1000 : 1001 + (uint64_t)__builtin_ctzll(r | (1ull << 40)) * 3 + ((r >> 44) & 1023);
}

/* The simulated timer's two reads around delta number sim_i; 0: not simulated. */
static int sim_reads(uint64_t *t0, uint64_t *t1)
{
	uint64_t i = sim_i, d, r;

	switch (test_fault) {
	case SURAND_TEST_JITTER_STUCK:
		d = 1000;
		break;
	case SURAND_TEST_JITTER_BIASED:
		/* one value 3 times in 4 */
		r = splitmix(&sim_rng);
		d = (r & 3) ? 1000 : 1001 + (r >> 2) % 1024;
		break;
	case SURAND_TEST_JITTER_SIM_HEALTHY:
		d = sim_healthy();
		break;
	case SURAND_TEST_JITTER_SIM_COARSE:
		/* the true loop takes 300..899 units; the timer shows multiples of 1000 */
		r = splitmix(&sim_rng);
		*t0 = sim_clock / 1000 * 1000;
		sim_clock += 300 + r % 600;
		*t1 = sim_clock / 1000 * 1000;
		sim_clock += 37;
		sim_i++;
		return 1;
	case SURAND_TEST_JITTER_SIM_BACKWARDS:
		d = sim_healthy();
		if (i % 128 == 127) {
			/* the second read comes from a counter 500 behind */
			*t0 = sim_clock;
			*t1 = sim_clock - 500;
			sim_clock += d + 37;
			sim_i++;
			return 1;
		}
		break;
	case SURAND_TEST_JITTER_SIM_LINEAR:
		d = 1000 + 7 * (i % 509);
		break;
	case SURAND_TEST_JITTER_SIM_LOW:
		r = splitmix(&sim_rng);
		d = (r % 100) < 92 ? 1000 : 1001 + (r >> 32) % 4096;
		break;
	case SURAND_TEST_JITTER_SIM_ALARM_ONCE:
		d = sim_healthy();
		if (i >= SURAND_TEST_JITTER_RUN_AT && i < SURAND_TEST_JITTER_RUN_AT + SURAND_TEST_JITTER_RUN_LEN)
			d = 777;
		break;
	case SURAND_TEST_JITTER_SIM_TURNS_REGULAR:
		d = sim_healthy();
		if (i >= SURAND_TEST_JITTER_REGULAR_AT)
			d = 1000;
		break;
	default:
		return 0;
	}
	*t0 = sim_clock;
	*t1 = sim_clock + d;
	sim_clock += d + 37;
	sim_i++;
	return 1;
}
#endif

/* One delta: the timer read before and after JITTER_TOUCHES data-dependent touches. */
static void jitter_delta(uint8_t *buf, uint32_t *lcg, uint64_t *t0o, uint64_t *t1o)
{
	uint64_t t0, t1;
	uint32_t x = *lcg, p;
	unsigned i;

	t0 = ticks();
	for (i = 0; i < JITTER_TOUCHES; i++) {
		/* Numerical Recipes' LCG picks the next address. */
		x = x * 1664525u + 1013904223u;
		p = (x >> 18) & (JITTER_BUF_BYTES - 1);
		buf[p] = (uint8_t)(buf[p] + buf[(p + JITTER_BUF_BYTES / 2) & (JITTER_BUF_BYTES - 1)] + i);
	}
	t1 = ticks();
	*lcg = x ^ (uint32_t)t1;
	*t0o = t0;
	*t1o = t1;
#ifdef SURAND_TEST_BUILD
	if (__atomic_load_n(&test_slow_ns, __ATOMIC_RELAXED)) {
		/* a slow machine, or a delta preempted: the round's time budget */
		uint64_t w0 = mono_ns(), slow = __atomic_load_n(&test_slow_ns, __ATOMIC_RELAXED);

		while (mono_ns() - w0 < slow)
			;
	}
	(void)sim_reads(t0o, t1o);
#endif
}

int surand_jitter_disabled(void)
{
	return JS_GET(disabled);
}

int surand_jitter_paused(void)
{
	return JS_GET(paused);
}

static const char *reason_name(uint32_t r)
{
	switch (r) {
	case SURAND_DISQ_COARSE:
		return "coarse";
	case SURAND_DISQ_NONMONOTONIC:
		return "non-monotonic";
	case SURAND_DISQ_STUCK:
		return "stuck";
	case SURAND_DISQ_HEALTH:
		return "health";
	case SURAND_DISQ_LOW_ENTROPY:
		return "low-entropy";
	default:
		return "";
	}
}

void surand_jitter_qual(struct surand_source_qual *q)
{
	uint32_t phase = JS_GET(phase), reason = JS_GET(reason);
	const char *nm = reason_name(reason);

	memset(q, 0, sizeof(*q));
	q->state = phase ? phase : SURAND_QUAL_PENDING; /* no round yet: pending */
	q->reason = phase == SURAND_QUAL_DISQUALIFIED ? reason : 0;
	if (q->reason)
		memcpy(q->reason_name, nm, strlen(nm) + 1); /* at most 14 bytes */
	q->samples = JS_GET(q_n);
	q->zero_deltas = JS_GET(q_zero);
	q->backwards = JS_GET(q_back);
	q->stuck = JS_GET(q_stuck);
	q->alarms = JS_GET(q_alarms);
	q->h_estimate_millibits = JS_GET(h_est);
	q->h_credited_millibits = JITTER_H_MILLIBITS;
}

/* Start-up (or a restart): keeps a disabled source disabled and a
 * disqualified one disqualified (fork child too). */
static void state_init(void)
{
	surand_health_init(&js.t, JITTER_H_NUM, JITTER_H_DEN);
	js.last = 0;
	js.last_d2 = 0;
	js.win_units = 0;
	js.win_alarm = 0;
	js.holdoff = 0;
	js.alarms = 0;
	js.credit_rem = 0;
	if (JS_GET(phase) != SURAND_QUAL_DISQUALIFIED) {
		JS_SET(phase, SURAND_QUAL_PENDING);
		JS_SET(reason, 0);
		JS_SET(q_n, 0);
		JS_SET(q_zero, 0);
		JS_SET(q_back, 0);
		JS_SET(q_stuck, 0);
		JS_SET(q_alarms, 0);
		JS_SET(h_est, 0);
	}
	js.ready = 1;
}

/* The verdict over the first JITTER_QUAL_DELTAS deltas (jqual). */
static void qualify(void)
{
	uint32_t reason = 0, est;
	unsigned i;

	if (!JS_GET(q_zero)) {
		for (i = 0; i < JITTER_QUAL_DELTAS; i++)
			if (jqual[i] == 0)
				break;
		if (i < JITTER_QUAL_DELTAS) {
			/* A record page was dropped (reads as zeros; no delta was 0):
			 * the estimate would be wrong, so qualify again from here. */
			surand_wipe(jqual, JITTER_QUAL_BYTES);
			JS_SET(q_n, 0);
			JS_SET(q_zero, 0);
			JS_SET(q_back, 0);
			JS_SET(q_stuck, 0);
			JS_SET(q_alarms, 0);
			return;
		}
	}
	est = surand_health_mcv_millibits(jqual, JITTER_QUAL_DELTAS);
	surand_wipe(jqual, JITTER_QUAL_BYTES); /* the record is pool input: never kept */
	if (JS_GET(q_zero))
		reason = SURAND_DISQ_COARSE;
	else if (JS_GET(q_back) > JITTER_QUAL_MAX_BACKWARDS)
		reason = SURAND_DISQ_NONMONOTONIC;
	else if ((uint64_t)JS_GET(q_stuck) * 1000u > (uint64_t)JITTER_QUAL_STUCK_PERMILLE * JITTER_QUAL_DELTAS)
		reason = SURAND_DISQ_STUCK;
	else if (JS_GET(q_alarms))
		reason = SURAND_DISQ_HEALTH;
	else if (est < JITTER_H_MILLIBITS)
		reason = SURAND_DISQ_LOW_ENTROPY; /* 6.3.1 says less than what we would credit */
	JS_SET(h_est, est);
	JS_SET(reason, reason);
	/* Rejected for the process: still mixed, never credited again. */
	JS_SET(phase, reason ? SURAND_QUAL_DISQUALIFIED : SURAND_QUAL_QUALIFIED);
	if (reason && surand_config()->debug)
		surand_warn("entropy: jitter disqualified at power-up (%s; %u of %u deltas stuck, "
			    "%u zero, %u backwards, %u alarms, estimate %u.%03u bit per delta); "
			    "mixed, never credited",
			    reason_name(reason), JS_GET(q_stuck), JITTER_QUAL_DELTAS, JS_GET(q_zero),
			    JS_GET(q_back), JS_GET(q_alarms), est / 1000, est % 1000);
}

/*
 * Tests and accounts one delta (read t0, then t1).  Adds to *units the
 * counted deltas of a window this delta closed clean.
 */
static void account(uint64_t t0, uint64_t t1, unsigned *units)
{
	struct surand_es_counters *c = &surand_es_cnt[SURAND_ES_JITTER];
	uint64_t d = t1 - t0, d2 = d - js.last, d3 = d2 - js.last_d2;
	uint32_t phase = JS_GET(phase);
	int back = t1 < t0, held = js.holdoff != 0, r;
	/* Stuck (jitterentropy's test): the delta, its difference from the last
	 * one, or the difference of those differences is 0; a backward step
	 * is no timing either.  Tested below, never counted toward credit. */
	int stuck = d == 0 || d2 == 0 || d3 == 0 || back;

	js.last = d;
	js.last_d2 = d2;
	/* SP 800-90B 4.4: every sample is tested, stuck or not. */
	r = surand_health_feed(&js.t, d);
	if (stuck)
		SURAND_COUNT(c->stuck);
	if (SURAND_UNLIKELY(r != SURAND_HEALTH_OK)) {
		if (r & SURAND_HEALTH_RCT)
			SURAND_COUNT(c->health_rct);
		if (r & SURAND_HEALTH_APT)
			SURAND_COUNT(c->health_apt);
		js.win_alarm = 1;        /* nothing from this window */
		js.holdoff = JITTER_HOLDOFF; /* nor from the next 1024 deltas */
		if (phase == SURAND_QUAL_PENDING) {
			JS_SET(q_alarms, JS_GET(q_alarms) + 1); /* decides the verdict */
		} else if (++js.alarms >= SURAND_HEALTH_MAX_ALARMS) {
			JS_SET(disabled, 1);
		}
		if (surand_config()->debug)
			surand_warn("entropy: jitter health test alarm (%s%s%s)%s; %s",
				    (r & SURAND_HEALTH_RCT) ? "repetition count" : "",
				    r == (SURAND_HEALTH_RCT | SURAND_HEALTH_APT) ? ", " : "",
				    (r & SURAND_HEALTH_APT) ? "adaptive proportion" : "",
				    phase == SURAND_QUAL_PENDING ? " in the power-up qualification" : "",
				    JS_GET(disabled) ? "source disabled for this process"
						     : "credit of this window withheld");
	} else if (js.holdoff) {
		js.holdoff--;
	}
	if (phase == SURAND_QUAL_PENDING) {
		uint32_t n = JS_GET(q_n);

		jqual[n] = d;
		JS_SET(q_zero, JS_GET(q_zero) + (d == 0));
		JS_SET(q_back, JS_GET(q_back) + (uint32_t)back);
		JS_SET(q_stuck, JS_GET(q_stuck) + (uint32_t)stuck);
		JS_SET(q_n, n + 1);
		if (n + 1 == JITTER_QUAL_DELTAS)
			qualify();
	} else if (phase == SURAND_QUAL_QUALIFIED && !stuck && !r && !held) {
		js.win_units++; /* may earn 1/8 bit, once its window closes clean */
	}
	if (js.t.apt_pos == 0) {
		/* The APT window closed: its credit only now, and only if clean. */
		if (JS_GET(phase) == SURAND_QUAL_QUALIFIED && phase == SURAND_QUAL_QUALIFIED) {
			if (js.win_alarm) {
				SURAND_COUNT(c->windows_alarmed);
			} else {
				*units += js.win_units;
				SURAND_COUNT(c->windows_clean);
			}
		}
		js.win_units = 0;
		js.win_alarm = 0;
	}
}

void surand_jitter_collect(void)
{
	struct surand_es_counters *c = &surand_es_cnt[SURAND_ES_JITTER];
	uint64_t d[JITTER_SAMPLES], start, t0, t1;
	uint32_t lcg, rem;
	unsigned n = 0, units = 0, credit, max = JITTER_SAMPLES;

	if (!surand_entropy_source_on(SURAND_ES_JITTER) || JS_GET(disabled)) {
		SURAND_COUNT(c->skipped);
		return;
	}
	if (!jbuf) {
		jbuf = surand_secmem_alloc(JITTER_ALLOC_BYTES);
		if (!jbuf) {
			SURAND_COUNT(c->failures); /* no memory: nothing sampled this round */
			return;
		}
		jqual = (uint64_t *)(void *)(jbuf + JITTER_BUF_BYTES);
	}
	if (!js.ready)
		state_init();
#ifdef SURAND_TEST_BUILD
	if (test_round_max && test_round_max < max)
		max = test_round_max;
#endif
	start = mono_ns();
	lcg = (uint32_t)ticks();
	while (n < max) {
		jitter_delta(jbuf, &lcg, &t0, &t1);
		d[n] = t1 - t0;
		SURAND_COUNT(c->samples);
		account(t0, t1, &units);
		n++;
		if (JS_GET(disabled))
			break;
		/* Checked after every delta (a vDSO clock read, ~20 ns against a
		 * delta's ~150): a round ends at most one delta past the budget. */
		if (mono_ns() - start > JITTER_BUDGET_NS)
			break; /* preempted or slow: the rest waits for the next reseed */
	}
	JS_SET(paused, JS_GET(phase) == SURAND_QUAL_PENDING || js.holdoff != 0);
	if (JS_GET(disabled) || JS_GET(phase) != SURAND_QUAL_QUALIFIED)
		units = 0; /* nothing after disable, nothing unqualified */
	rem = js.credit_rem;
	credit = (units + rem) / JITTER_OSR;
	js.credit_rem = (units + rem) % JITTER_OSR;
	if (surand_pool_add(d, n * sizeof(d[0]), credit) == 0) {
		SURAND_COUNT_N(c->bytes, n * sizeof(d[0]));
		SURAND_COUNT_N(c->credited, credit);
		SURAND_COUNT_N(c->counted, units);
	} else {
		SURAND_COUNT(c->failures);
		js.credit_rem = rem; /* not granted: neither counted nor carried */
	}
	surand_wipe(d, sizeof(d));
	surand_wipe(&lcg, sizeof(lcg));
	surand_wipe(&t0, sizeof(t0));
	surand_wipe(&t1, sizeof(t1));
}

void surand_jitter_atfork_child(void)
{
	/* A parent thread may have been sampling: qualify again, keeping a
	 * source disabled or disqualified for the process so. */
	js.ready = 0;
	JS_SET(paused, 0);
	/* Wiped by the kernel where wipe-on-fork works; explicit where not. */
	if (jbuf && surand_secmem_kind() < 0)
		surand_wipe(jbuf, JITTER_ALLOC_BYTES);
}

#ifdef SURAND_TEST_BUILD
void surand_test_jitter_fault(enum surand_test_jitter_fault f)
{
	test_fault = (int)f;
}

void surand_test_jitter_slow(uint64_t ns)
{
	__atomic_store_n(&test_slow_ns, ns, __ATOMIC_RELAXED);
}

void surand_test_jitter_round_max(unsigned n)
{
	test_round_max = n;
}

const void *surand_test_jitter_buffer(size_t *len)
{
	if (len)
		*len = jbuf ? JITTER_ALLOC_BYTES : 0;
	return jbuf;
}

void surand_test_jitter_health_reset(void)
{
	memset(&js, 0, sizeof(js));
	if (jqual)
		surand_wipe(jqual, JITTER_QUAL_BYTES);
	sim_rng = SIM_SEED;
	sim_i = 0;
}
#endif

static void jitter_stats(struct surand_entropy_source_stats *out)
{
	out->disabled = (uint32_t)surand_jitter_disabled();
	out->credit_paused = (uint32_t)surand_jitter_paused();
	/* the only source with a power-up qualification (others: NONE, zeros) */
	surand_jitter_qual(&out->q);
	out->q.stuck_total = out->c.stuck;
	out->q.counted = out->c.counted;
	out->q.windows_clean = out->c.windows_clean;
	out->q.windows_alarmed = out->c.windows_alarmed;
}

const struct surand_input_source surand_source_jitter = {
	.id = SURAND_ES_JITTER,
	SURAND_SOURCE_HOOKS(jitter)
};
