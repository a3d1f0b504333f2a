/*
 * jitter.c - CPU timing jitter as a noise source: the time a short loop of
 * data-dependent memory reads and writes takes varies with cache, TLB,
 * pipeline and interrupt state (the idea of Stephan Mueller's jitterentropy;
 * this is our own, much smaller loop).
 *
 * One sample is the duration of one loop, in TSC ticks on x86-64 (else
 * CLOCK_MONOTONIC ns).  The raw deltas are health-tested (SP 800-90B 4.4,
 * claimed min-entropy 1 bit per delta) and mixed into the entropy pool;
 * they are credited at one eighth of that claim (1 bit per 8 deltas that
 * passed), and nothing while the tests are in start-up or hold-off.
 * Sampling is bounded in count and time (64 deltas or 200 us, whichever
 * comes first, checked after each delta) at each scheduled reseed, never a
 * wait.
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
static uint64_t test_rng = 0x6a09e667f3bcc909ull;

/* splitmix64 (Steele, Lea, Flood 2014): the biased fault's coin. */
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
#define JITTER_H_NUM 1u                 /* claimed min-entropy per delta: 1 bit */
#define JITTER_H_DEN 1u
#define JITTER_DELTAS_PER_CREDIT_BIT 8u /* credited: 1/8 of the claim */
#define JITTER_STARTUP 1024u            /* SP 800-90B 4.3: 1024 samples before use */
#define JITTER_HOLDOFF 1024u            /* deltas without credit after an alarm */

/*
 * The loop's buffer: its bytes follow from the timings, so it is kept as
 * secret as the pool (wipe-on-fork memory, never dumped), mapped by the
 * first sampling round, never in a signal handler's path.  Touched only by
 * the sampler (reseed.c's sampler flag).  A dropped page reads as zeros,
 * which the loop takes as any other content.
 */
static uint8_t *jbuf;
static struct surand_source_health jhealth;
static unsigned jcredit_rem;
static int paused_v;

static inline uint64_t ticks(void)
{
#if defined(__x86_64__)
	return __rdtsc();
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

/* One delta: the duration of JITTER_TOUCHES data-dependent touches. */
static uint64_t jitter_delta(uint8_t *buf, uint32_t *lcg)
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
#ifdef SURAND_TEST_BUILD
	if (__atomic_load_n(&test_slow_ns, __ATOMIC_RELAXED)) {
		/* a slow machine, or a delta preempted: the round's time budget */
		uint64_t w0 = mono_ns(), slow = __atomic_load_n(&test_slow_ns, __ATOMIC_RELAXED);

		while (mono_ns() - w0 < slow)
			;
	}
	if (test_fault == SURAND_TEST_JITTER_STUCK)
		return 1000;
	if (test_fault == SURAND_TEST_JITTER_BIASED) {
		/* one value 3 times in 4: far below the claimed 1 bit */
		uint64_t r = splitmix(&test_rng);
		return (r & 3) ? 1000 : 1001 + (r >> 2) % 1024;
	}
#endif
	return t1 - t0;
}

int surand_jitter_disabled(void)
{
	return __atomic_load_n(&jhealth.disabled, __ATOMIC_RELAXED);
}

int surand_jitter_paused(void)
{
	return __atomic_load_n(&paused_v, __ATOMIC_RELAXED);
}

void surand_jitter_collect(void)
{
	struct surand_es_counters *c = &surand_es_cnt[SURAND_ES_JITTER];
	uint64_t d[JITTER_SAMPLES], start;
	uint32_t lcg;
	unsigned n = 0, ok = 0, credit;

	if (!surand_entropy_source_on(SURAND_ES_JITTER) ||
	    __atomic_load_n(&jhealth.disabled, __ATOMIC_RELAXED)) {
		SURAND_COUNT(c->skipped);
		return;
	}
	if (!jbuf) {
		jbuf = surand_secmem_alloc(JITTER_BUF_BYTES);
		if (!jbuf) {
			SURAND_COUNT(c->failures); /* no memory: nothing sampled this round */
			return;
		}
	}
	if (!jhealth.ready)
		surand_source_health_init(&jhealth, JITTER_H_NUM, JITTER_H_DEN, JITTER_STARTUP,
					  JITTER_HOLDOFF);
	start = mono_ns();
	lcg = (uint32_t)ticks();
	while (n < JITTER_SAMPLES) {
		d[n] = jitter_delta(jbuf, &lcg);
		SURAND_COUNT(c->samples);
		/* Raw deltas are tested; only those that passed earn credit. */
		ok += (unsigned)surand_source_health_feed(&jhealth, SURAND_ES_JITTER, d[n]);
		n++;
		if (__atomic_load_n(&jhealth.disabled, __ATOMIC_RELAXED))
			break;
		/* Checked after every delta (a vDSO clock read, ~20 ns against a
		 * delta's ~150): a round ends at most one delta past the budget. */
		if (mono_ns() - start > JITTER_BUDGET_NS)
			break; /* preempted or slow: the rest waits for the next reseed */
	}
	__atomic_store_n(&paused_v, jhealth.holdoff != 0, __ATOMIC_RELAXED);
	ok += jcredit_rem;
	credit = ok / JITTER_DELTAS_PER_CREDIT_BIT;
	jcredit_rem = ok % JITTER_DELTAS_PER_CREDIT_BIT;
	if (surand_pool_add(d, n * sizeof(d[0]), credit) == 0) {
		SURAND_COUNT_N(c->bytes, n * sizeof(d[0]));
		SURAND_COUNT_N(c->credited, credit);
	} else {
		SURAND_COUNT(c->failures);
	}
	surand_wipe(d, sizeof(d));
	surand_wipe(&lcg, sizeof(lcg));
}

void surand_jitter_atfork_child(void)
{
	/* A parent thread may have been sampling: start-up again, keeping a
	 * source disabled for the process disabled. */
	jhealth.ready = 0;
	jcredit_rem = 0;
	paused_v = 0;
	/* Wiped by the kernel where wipe-on-fork works; explicit where not. */
	if (jbuf && surand_secmem_kind() < 0)
		surand_wipe(jbuf, JITTER_BUF_BYTES);
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

const void *surand_test_jitter_buffer(size_t *len)
{
	if (len)
		*len = jbuf ? JITTER_BUF_BYTES : 0;
	return jbuf;
}

void surand_test_jitter_health_reset(void)
{
	memset(&jhealth, 0, sizeof(jhealth));
	jcredit_rem = 0;
	paused_v = 0;
}
#endif
