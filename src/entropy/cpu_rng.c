/*
 * cpu_rng.c - the CPU's random number instructions as a noise source: RDSEED
 * (the conditioned output of the on-chip entropy source), RDRAND (the output
 * of the on-chip DRBG) when RDSEED has no data.  On aarch64 the same two roles
 * are played by FEAT_RNG's registers: RNDRRS (reseeded from the entropy
 * source before the read, what Linux's arch_get_random_seed_longs uses) and
 * RNDR, read when the kernel reports HWCAP2_RNG.  Elsewhere the source is
 * absent.
 *
 * Every word is mixed into the entropy pool; RDSEED words are credited only
 * with SURAND_TRUST_CPU=1 (as Linux's random.trust_cpu), and only while their
 * health tests pass; RDRAND words are never credited (a DRBG's output carries
 * at most the entropy of its seed, which RDSEED already offers).  Retries are
 * bounded: a CPU that has no data (RDSEED under contention, a broken RDRAND)
 * costs a few microseconds at a reseed, never a wait.
 *
 * The instructions are compiled with __attribute__((target("rdseed,rdrnd")))
 * and executed only when surand_cpu_features() reports them: the rest of the
 * library keeps running on any x86-64.
 * SPDX-License-Identifier: MIT
 */
#include "entropy/entropy.h"

#if defined(__x86_64__)
#include <immintrin.h>
#define CPU_RNG_X86 1
#elif defined(__aarch64__)
#define CPU_RNG_ARM64 1
#endif

#ifdef SURAND_TEST_BUILD
#include "test_hooks.h"
static int test_fault;
#endif

#define CPU_RNG_WORDS 4u            /* 64-bit words per sampling round */
#define RDSEED_RETRIES 16u          /* per word: RDSEED may be briefly out of data */
#define RDRAND_RETRIES 10u          /* per word: Intel's DRNG guide suggests 10 */
/* Claimed min-entropy of a 64-bit word, for the health tests' cut-offs, and
 * what a trusted RDSEED word is credited: half its width. */
#define CPU_RNG_H_NUM 32u
#define CPU_RNG_H_DEN 1u
#define CPU_RNG_CREDIT_BITS_PER_WORD 32u
#define CPU_RNG_STARTUP_WORDS 64u   /* words that must pass before any credit */
#define CPU_RNG_HOLDOFF_WORDS 64u   /* words without credit after an alarm */
#define STUCK_WORD 0x5555555555555555ull

/* Under reseed.c's sampler flag: one sampler at a time. */
static struct surand_source_health rdseed_health, rdrand_health;
static int paused_v;

/* One word from RDSEED (seed) or RDRAND, retried; 1, or 0: no data. */
#ifdef CPU_RNG_X86
__attribute__((target("rdseed,rdrnd"))) static int cpu_word(uint64_t *w, int seed)
{
	unsigned long long v;
	unsigned i, tries = seed ? RDSEED_RETRIES : RDRAND_RETRIES;

	for (i = 0; i < tries; i++) {
		if (seed ? _rdseed64_step(&v) : _rdrand64_step(&v)) {
			*w = v;
			return 1;
		}
		if (seed)
			_mm_pause(); /* RDSEED's conditioner refills slowly: let it */
	}
	return 0;
}
#endif

#ifdef CPU_RNG_ARM64
/*
 * RNDR is s3_3_c2_c4_0, RNDRRS s3_3_c2_c4_1 (Arm ARM C5.2; named by encoding
 * so no -march=+rng is needed).  A read that has no data in reasonable time
 * returns 0 and sets PSTATE.Z (NZCV = 0b0100); success clears NZCV.
 */
#define ARM64_RNG_READ(reg, w, ok)                                               \
	__asm__ __volatile__("mrs %0, " reg "\n\tcset %w1, ne"                 \
			     : "=r"(w), "=r"(ok) : : "cc")

static int cpu_word(uint64_t *w, int seed)
{
	uint64_t v;
	unsigned i, ok, tries = seed ? RDSEED_RETRIES : RDRAND_RETRIES;

	for (i = 0; i < tries; i++) {
		if (seed)
			ARM64_RNG_READ("s3_3_c2_c4_1", v, ok); /* RNDRRS */
		else
			ARM64_RNG_READ("s3_3_c2_c4_0", v, ok); /* RNDR */
		if (ok) {
			*w = v;
			return 1;
		}
		if (seed)
			__asm__ __volatile__("yield");
	}
	return 0;
}
#endif

/* The instruction's word, or the test build's stand-in for it. */
static int get_word(uint64_t *w, int seed)
{
#ifdef SURAND_TEST_BUILD
	if (test_fault == SURAND_TEST_CPU_RNG_FAILING)
		return 0;
	if (test_fault == SURAND_TEST_CPU_RNG_STUCK) {
		*w = STUCK_WORD;
		return 1;
	}
	if (test_fault == SURAND_TEST_CPU_RNG_RDRAND_ONLY) {
		static uint64_t ctr;

		if (seed)
			return 0;
		/* splitmix64 of a counter: words that pass the health tests */
		*w = (ctr += 0x9e3779b97f4a7c15ull);
		*w = (*w ^ (*w >> 30)) * 0xbf58476d1ce4e5b9ull;
		*w = (*w ^ (*w >> 27)) * 0x94d049bb133111ebull;
		*w ^= *w >> 31;
		return 1;
	}
#endif
#if defined(CPU_RNG_X86) || defined(CPU_RNG_ARM64)
	return cpu_word(w, seed);
#else
	(void)w;
	(void)seed;
	return 0;
#endif
}

static void features(int *seed, int *rand)
{
	const struct surand_cpu_features *f = surand_cpu_features();

	*seed = f->rdseed;
	*rand = f->rdrand;
#if !defined(CPU_RNG_X86) && !defined(CPU_RNG_ARM64)
	*seed = *rand = 0;
#endif
#ifdef SURAND_TEST_BUILD
	if (test_fault == SURAND_TEST_CPU_RNG_ABSENT)
		*seed = *rand = 0;
	/* The failing and stuck faults never run the instructions (get_word):
	 * they stand in for both, on any CPU. */
	if (test_fault == SURAND_TEST_CPU_RNG_FAILING || test_fault == SURAND_TEST_CPU_RNG_STUCK)
		*seed = *rand = 1;
	if (test_fault == SURAND_TEST_CPU_RNG_RDRAND_ONLY) {
		*seed = 0;
		*rand = 1;
	}
#endif
}

int surand_cpu_rng_available(void)
{
	int s, r;

	features(&s, &r);
	return s || r;
}

int surand_cpu_rng_disabled(void)
{
	return __atomic_load_n(&rdseed_health.disabled, __ATOMIC_RELAXED) &&
	       __atomic_load_n(&rdrand_health.disabled, __ATOMIC_RELAXED);
}

int surand_cpu_rng_paused(void)
{
	return __atomic_load_n(&paused_v, __ATOMIC_RELAXED);
}

void surand_cpu_rng_collect(void)
{
	struct surand_es_counters *c = &surand_es_cnt[SURAND_ES_CPU];
	uint64_t w[CPU_RNG_WORDS], x;
	unsigned i, n = 0, creditable = 0, credit;
	int have_seed, have_rand, seed_ok, rand_ok;

	features(&have_seed, &have_rand);
	if (!rdseed_health.ready) {
		surand_source_health_init(&rdseed_health, CPU_RNG_H_NUM, CPU_RNG_H_DEN,
					  CPU_RNG_STARTUP_WORDS, CPU_RNG_HOLDOFF_WORDS);
		surand_source_health_init(&rdrand_health, CPU_RNG_H_NUM, CPU_RNG_H_DEN,
					  CPU_RNG_STARTUP_WORDS, CPU_RNG_HOLDOFF_WORDS);
	}
	seed_ok = have_seed && !__atomic_load_n(&rdseed_health.disabled, __ATOMIC_RELAXED);
	rand_ok = have_rand && !__atomic_load_n(&rdrand_health.disabled, __ATOMIC_RELAXED);
	if (!surand_entropy_source_on(SURAND_ES_CPU) || (!seed_ok && !rand_ok)) {
		SURAND_COUNT(c->skipped);
		return;
	}
	for (i = 0; i < CPU_RNG_WORDS; i++) {
		if (seed_ok) {
			if (get_word(&x, 1)) {
				SURAND_COUNT(c->samples);
				/* Health-tested raw word; credit only if it passed. */
				creditable += (unsigned)surand_source_health_feed(&rdseed_health,
										  SURAND_ES_CPU, x);
				w[n++] = x;
				continue;
			}
			SURAND_COUNT(c->failures); /* no data within the retries: skipped */
		}
		if (rand_ok) {
			if (get_word(&x, 0)) {
				SURAND_COUNT(c->samples);
				/* Tested too (a stuck RDRAND is detected), never credited. */
				(void)surand_source_health_feed(&rdrand_health, SURAND_ES_CPU, x);
				w[n++] = x;
				continue;
			}
			SURAND_COUNT(c->failures);
		}
	}
	__atomic_store_n(&paused_v, rdseed_health.holdoff != 0, __ATOMIC_RELAXED);
	if (n == 0)
		return;
	/* Mixed always; credited only when the user trusts the CPU. */
	credit = surand_config()->trust_cpu ? creditable * CPU_RNG_CREDIT_BITS_PER_WORD : 0;
	if (surand_pool_add(w, n * sizeof(w[0]), credit) == 0) {
		SURAND_COUNT_N(c->bytes, n * sizeof(w[0]));
		SURAND_COUNT_N(c->credited, credit);
	} else {
		SURAND_COUNT(c->failures);
	}
	surand_wipe(w, sizeof(w));
	surand_wipe(&x, sizeof(x));
}

void surand_cpu_rng_atfork_child(void)
{
	/* A parent thread may have been sampling: restart the tests (start-up
	 * again), keeping a source disabled for the process disabled. */
	rdseed_health.ready = 0;
	rdrand_health.ready = 0;
	paused_v = 0;
}

#ifdef SURAND_TEST_BUILD
void surand_test_cpu_rng_fault(enum surand_test_cpu_rng_fault f)
{
	test_fault = (int)f;
}

void surand_test_cpu_rng_health_reset(void)
{
	memset(&rdseed_health, 0, sizeof(rdseed_health));
	memset(&rdrand_health, 0, sizeof(rdrand_health));
	paused_v = 0;
}
#endif

static void cpu_rng_stats(struct surand_entropy_source_stats *out)
{
	out->available = (uint32_t)surand_cpu_rng_available();
	out->disabled = (uint32_t)surand_cpu_rng_disabled();
	out->credit_paused = (uint32_t)surand_cpu_rng_paused();
}

const struct surand_input_source surand_source_cpu = {
	.id = SURAND_ES_CPU,
	SURAND_SOURCE_HOOKS(cpu_rng)
};
