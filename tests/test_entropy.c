/*
 * test_entropy.c - the input side: entropy pool, fast pools, health tests,
 * sources, catastrophic reseeds (src/entropy/, docs/entropy.md).
 * SPDX-License-Identifier: MIT
 */
#include "harness.h"
#include "surand.h"
#include "internal.h"
#include "entropy/entropy.h"
#include "crypto/blake2s.h"
#include "test_hooks.h"
#include "reliability.h"
#include "vregs.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#if defined(__has_include)
#if __has_include(<sys/rseq.h>) && __has_include(<linux/membarrier.h>)
#include <sys/rseq.h>
#include <linux/membarrier.h>
#define T_HAVE_RSEQ_H 1
#endif
#endif
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define T_TSAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define T_TSAN 1
#endif

static uint64_t rng = 0x243f6a8885a308d3ull; /* fixed seed: reproducible cases */

static struct surand_stats stats(void)
{
	struct surand_stats s;

	memset(&s, 0, sizeof(s));
	surand_stats(&s, sizeof(s));
	return s;
}

static struct surand_entropy_source_stats src_stats(int src)
{
	struct surand_entropy_source_stats s;

	surand_entropy_source_stats((enum surand_entropy_source)src, &s);
	return s;
}

/* Sampled sources off, so the pool's credit changes only where a case says. */
static void quiet_sources(void)
{
	surand_test_entropy_source_set(SURAND_ES_CPU, 0);
	surand_test_entropy_source_set(SURAND_ES_JITTER, 0);
}

static void all_sources_back(void)
{
	int i;

	for (i = 0; i < SURAND_ES_COUNT; i++)
		surand_test_entropy_source_set(i, 1);
}

/*
 * Run before every case (E_RUN): the switches, faults and environment
 * variables a case may change are put back as the run found them, so a case
 * that failed half-way (its assertion returned before its own clean-up)
 * cannot fail the next one too.
 */
static const char *const case_env_names[] = { "SURAND_TRUST_CPU", "SURAND_DEBUG",
					      "SURAND_ENTROPY_OFF" };
#define CASE_ENV_N (sizeof(case_env_names) / sizeof(case_env_names[0]))
static char *case_env_start[CASE_ENV_N]; /* NULL: unset when the run began */

static void case_env_save(void)
{
	const char *v;
	size_t i;

	for (i = 0; i < CASE_ENV_N; i++) {
		v = getenv(case_env_names[i]);
		case_env_start[i] = v ? strdup(v) : NULL;
	}
}

static void case_setup(void)
{
	size_t i;

	for (i = 0; i < CASE_ENV_N; i++) {
		if (case_env_start[i])
			setenv(case_env_names[i], case_env_start[i], 1);
		else
			unsetenv(case_env_names[i]);
	}
	surand_test_config_reload();
	all_sources_back();
	surand_test_cpu_rng_fault(SURAND_TEST_CPU_RNG_NONE);
	surand_test_jitter_fault(SURAND_TEST_JITTER_NONE);
	surand_test_jitter_slow(0);
	surand_test_jitter_round_max(0);
	surand_test_entropy_hold_sampler(0);
	surand_test_fastpool_force_slot(-1);
	(void)surand_test_fastpool_drop_in_spill(-1);
	surand_test_entropy_health_reset(SURAND_ES_CPU);
	surand_test_entropy_health_reset(SURAND_ES_JITTER);
}

#define E_RUN(fn)              \
	do {                   \
		case_setup();  \
		T_RUN(fn);     \
	} while (0)

/* A scheduled (timer) reseed now: the clock jumps past the reseed ceiling and
 * a large request makes this thread's slot check the schedule. */
static int timer_reseed(void)
{
	static uint8_t big[4096]; /* a slot's length: a one-use key, which checks the schedule */
	struct surand_stats s0 = stats();

	surand_test_clock_advance(301ull * 1000000000ull);
	surand_bytes(big, sizeof(big));
	return stats().reseeds_timer > s0.reseeds_timer ? 0 : -1;
}

/* Empties the pool's credit (an extraction restarts it at 0). */
static int drain_credit(void)
{
	uint8_t x[32];

	return surand_pool_extract(x, sizeof(x));
}

/* Runs fn in a child with stderr sent to a pipe; returns what it wrote. */
static int capture_stderr(void (*fn)(void), char *out, size_t cap)
{
	int p[2], saved;
	ssize_t n;
	size_t got = 0;

	if (pipe(p) != 0)
		return -1;
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	dup2(p[1], STDERR_FILENO);
	close(p[1]);
	fn();
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	while (got + 1 < cap && (n = read(p[0], out + got, cap - 1 - got)) > 0)
		got += (size_t)n;
	out[got] = '\0';
	close(p[0]);
	return (int)got;
}

/* ==== the pool =============================================================== */

static void mix_does_not_credit_and_credit_does_not_mix(void)
{
	uint8_t d0[32], d1[32], d2[32], buf[32];
	unsigned c0;

	quiet_sources();
	T_ASSERT(drain_credit() == 0);
	T_ASSERT(surand_test_entropy_pool_digest(d0) == 0);
	c0 = surand_pool_credit_bits();
	T_ASSERT_EQ_U64(c0, 0);
	t_randbytes(&rng, buf, sizeof(buf));
	/* mix: the content changes, the estimate does not */
	T_ASSERT(surand_pool_mix(buf, sizeof(buf)) == 0);
	T_ASSERT(surand_test_entropy_pool_digest(d1) == 0);
	T_ASSERT(memcmp(d0, d1, 32) != 0);
	T_ASSERT_EQ_U64(surand_pool_credit_bits(), c0);
	/* the public call with credit 0 is a mix */
	T_ASSERT(surand_add_entropy(buf, sizeof(buf), 0) == 0);
	T_ASSERT(surand_test_entropy_pool_digest(d2) == 0);
	T_ASSERT(memcmp(d1, d2, 32) != 0);
	T_ASSERT_EQ_U64(stats().pool_credit_bits, 0);
	/* credit: the estimate changes, the content does not */
	T_ASSERT(surand_pool_credit(17) == 0);
	T_ASSERT(surand_test_entropy_pool_digest(d1) == 0);
	T_ASSERT_MEM_EQ(d1, d2, 32);
	T_ASSERT_EQ_U64(surand_pool_credit_bits(), 17);
	T_ASSERT_EQ_U64(stats().pool_credit_bits, 17);
	/* the same bytes mixed twice still change the content */
	T_ASSERT(surand_pool_mix(buf, sizeof(buf)) == 0);
	T_ASSERT(surand_test_entropy_pool_digest(d2) == 0);
	T_ASSERT(memcmp(d1, d2, 32) != 0);
	all_sources_back();
}

static void credit_cap_and_bad_input(void)
{
	uint8_t buf[64], d0[32], d1[32];
	struct surand_stats s0;

	quiet_sources();
	T_ASSERT(drain_credit() == 0);
	t_randbytes(&rng, buf, sizeof(buf));
	s0 = stats();
	/* 8 bits a byte is allowed; the pool caps at 256 */
	T_ASSERT(surand_add_entropy(buf, 40, 320) == 0);
	T_ASSERT_EQ_U64(surand_pool_credit_bits(), SURAND_POOL_MAX_CREDIT_BITS);
	T_ASSERT_EQ_U64(stats().entropy_bytes_added, s0.entropy_bytes_added + 40);
	T_ASSERT(surand_add_entropy(buf, 1, 8) == 0);
	T_ASSERT_EQ_U64(surand_pool_credit_bits(), SURAND_POOL_MAX_CREDIT_BITS);
	T_ASSERT(drain_credit() == 0);
	T_ASSERT(surand_add_entropy(buf, 2, 5) == 0);
	T_ASSERT(surand_add_entropy(buf, 2, 16) == 0);
	T_ASSERT_EQ_U64(surand_pool_credit_bits(), 21);

	/* too much credit: EINVAL, nothing mixed, nothing credited */
	T_ASSERT(surand_test_entropy_pool_digest(d0) == 0);
	s0 = stats();
	errno = 0;
	T_ASSERT(surand_add_entropy(buf, 4, 33) == -1);
	T_ASSERT_EQ_U64(errno, EINVAL);
	errno = 0;
	T_ASSERT(surand_add_entropy(buf, 0, 1) == -1);
	T_ASSERT_EQ_U64(errno, EINVAL);
	errno = 0;
	T_ASSERT(surand_add_entropy(buf, 1, ~0u) == -1);
	T_ASSERT_EQ_U64(errno, EINVAL);
	T_ASSERT(surand_test_entropy_pool_digest(d1) == 0);
	T_ASSERT_MEM_EQ(d0, d1, 32);
	T_ASSERT_EQ_U64(surand_pool_credit_bits(), 21);
	T_ASSERT_EQ_U64(stats().entropy_bytes_added, s0.entropy_bytes_added);

	/* NULL with len > 0: EFAULT (even with a huge length: never read) */
	errno = 0;
	T_ASSERT(surand_add_entropy(NULL, 1, 0) == -1);
	T_ASSERT_EQ_U64(errno, EFAULT);
	errno = 0;
	T_ASSERT(surand_add_entropy(NULL, SIZE_MAX, 0) == -1);
	T_ASSERT_EQ_U64(errno, EFAULT);
	/* NULL with 0 bytes and no credit: nothing to do */
	T_ASSERT(surand_add_entropy(NULL, 0, 0) == 0);
	T_ASSERT(surand_test_entropy_pool_digest(d1) == 0);
	T_ASSERT_MEM_EQ(d0, d1, 32);
	T_ASSERT_EQ_U64(surand_pool_credit_bits(), 21);
	all_sources_back();
}

static void extraction_rekeys_and_never_repeats(void)
{
	uint8_t d0[32], d1[32], d2[32], a[64], b[64], big[SURAND_POOL_EXTRACT_MAX];
	uint64_t n0 = surand_pool_extractions();

	quiet_sources();
	T_ASSERT(surand_add_entropy("pool", 4, 32) == 0);
	T_ASSERT(surand_test_entropy_pool_digest(d0) == 0);
	T_ASSERT(surand_pool_extract(a, sizeof(a)) == 0);
	T_ASSERT(surand_test_entropy_pool_digest(d1) == 0);
	/* the pool changed (re-keyed) and its credit restarted */
	T_ASSERT(memcmp(d0, d1, 32) != 0);
	T_ASSERT_EQ_U64(surand_pool_credit_bits(), 0);
	/* no input in between, still different output and state */
	T_ASSERT(surand_pool_extract(b, sizeof(b)) == 0);
	T_ASSERT(surand_test_entropy_pool_digest(d2) == 0);
	T_ASSERT(memcmp(a, b, sizeof(a)) != 0);
	T_ASSERT(memcmp(a, b, 32) != 0 && memcmp(a + 32, b + 32, 32) != 0);
	T_ASSERT(memcmp(d1, d2, 32) != 0);
	/* the output is not the pool's fingerprint */
	T_ASSERT(memcmp(a, d0, 32) != 0 && memcmp(b, d1, 32) != 0);
	T_ASSERT_EQ_U64(surand_pool_extractions(), n0 + 2);
	/* the largest extraction works, a larger one is refused */
	T_ASSERT(surand_pool_extract(big, sizeof(big)) == 0);
	T_ASSERT(surand_pool_extract(big, sizeof(big) + 1) == -EINVAL);
	T_ASSERT(surand_pool_extract(NULL, 1) == -EINVAL);
	T_ASSERT(surand_pool_extract(NULL, 0) == 0);
	all_sources_back();
}

/*
 * Nothing secret stays in the vector registers after the pool's calls: the
 * BLAKE2s digest of a long input, the input's copy into the pool and the
 * next key of an extraction all pass through them (the compiler's vector
 * code, memcpy), and anything that saves the registers later puts them on
 * the stack: a signal frame, or glibc's lazy-binding trampoline in a
 * program linked without -z now (a core dump found a pool digest there).
 * The registers are read right after each call, with nothing between.
 */
static void pool_calls_leave_no_secret_in_vector_registers(void)
{
	static uint8_t dump[VREG_BYTES];
	uint8_t in[512], d[32], out[64];
	const void *h;
	size_t hlen = 0;
	int i, found;

	if (!vregs_init()) {
		t_skip("no vector register dump for this architecture (x86-64 and aarch64 have one)", NULL);
		return;
	}
	quiet_sources();
	for (i = 0; i < (int)sizeof(in); i++)
		in[i] = (uint8_t)(i * 7 + 1);
	/* What the pool will condense this input to (then out of the registers). */
	T_ASSERT(surand_blake2s(d, sizeof(d), NULL, 0, in, sizeof(in)) == 0);
	surand_scrub_vector_regs();
	T_ASSERT(surand_pool_mix(in, sizeof(in)) == 0);
	vregs_dump(dump);
	found = vregs_hold(dump, d, sizeof(d));
	h = surand_test_entropy_pool_area(&hlen);
	T_ASSERT(h != NULL && hlen >= 64);
	found += vregs_hold(dump, h, hlen);
	T_ASSERT_MSG(found == 0, "after a %zu-byte mix: %d windows of the digest or the pool's "
				 "state in the vector registers", sizeof(in), found);
	/* An extraction: the new pool key (the keyed block) and the ChaCha20
	 * key it was made with pass through the registers. */
	surand_scrub_vector_regs();
	T_ASSERT(surand_pool_extract(out, sizeof(out)) == 0);
	vregs_dump(dump);
	found = vregs_hold(dump, h, hlen);
	T_ASSERT_MSG(found == 0, "after an extraction: %d windows of the pool's new state in the "
				 "vector registers", found);
	/* The dump reads the registers: a value put there is found. */
	surand_scrub_vector_regs();
	{
		volatile uint8_t probe[16];
		uint8_t copy[16];

		for (i = 0; i < 16; i++)
			probe[i] = (uint8_t)(0xa5 ^ (i * 13));
		for (i = 0; i < 16; i++)
			copy[i] = probe[i];
#if defined(__x86_64__)
		__asm__ __volatile__("movdqu (%0), %%xmm5" : : "r"(copy) : "xmm5", "memory");
#elif defined(__aarch64__)
		__asm__ __volatile__("ld1 {v5.16b}, [%0]" : : "r"(copy) : "v5", "memory");
#endif
		vregs_dump(dump);
		T_ASSERT_MSG(vregs_hold(dump, copy, sizeof(copy)) == 9,
			     "the register dump misses a value loaded into xmm5/v5");
	}
	surand_wipe(d, sizeof(d));
	surand_wipe(out, sizeof(out));
	all_sources_back();
}

/* ==== catastrophic reseeds ==================================================== */

static void catastrophic_threshold_255_vs_256(void)
{
	uint8_t buf[32];
	struct surand_stats s0, s1;
	uint8_t out[16];

	quiet_sources();
	surand_bytes(out, sizeof(out)); /* the generator is set up */
	T_ASSERT(drain_credit() == 0);
	t_randbytes(&rng, buf, sizeof(buf));
	T_ASSERT(surand_add_entropy(buf, sizeof(buf), 255) == 0);
	s0 = stats();
	T_ASSERT_EQ_U64(s0.pool_credit_bits, 255);
	T_ASSERT(surand_reseed() == 0);
	s1 = stats();
	/* 255 bits: the pool stays out, its credit stays */
	T_ASSERT_EQ_U64(surand_test_entropy_last_reseed_pooled(), 0);
	T_ASSERT_EQ_U64(s1.reseeds_catastrophic, s0.reseeds_catastrophic);
	T_ASSERT_EQ_U64(s1.pool_credit_bits, 255);
	T_ASSERT_EQ_U64(s1.reseeds_forced, s0.reseeds_forced + 1);
	/* one more bit: 256, the pool joins and the credit restarts at 0 */
	T_ASSERT(surand_add_entropy(buf, 1, 1) == 0);
	T_ASSERT_EQ_U64(stats().pool_credit_bits, 256);
	T_ASSERT(surand_reseed() == 0);
	s1 = stats();
	T_ASSERT_EQ_U64(surand_test_entropy_last_reseed_pooled(), 1);
	T_ASSERT_EQ_U64(s1.reseeds_catastrophic, s0.reseeds_catastrophic + 1);
	T_ASSERT_EQ_U64(s1.pool_credit_bits, 0);
	/* and the next reseed is a kernel-only one again */
	T_ASSERT(surand_reseed() == 0);
	T_ASSERT_EQ_U64(surand_test_entropy_last_reseed_pooled(), 0);
	T_ASSERT_EQ_U64(stats().reseeds_catastrophic, s0.reseeds_catastrophic + 1);
	surand_bytes(out, sizeof(out));
	all_sources_back();
}

/*
 * Deterministic mode: kernel bytes are a known function of a seed, so two
 * fork children that differ only in the pool's content give the same output
 * exactly when the pool did not join.
 */
static int det_child(uint8_t tag, unsigned credit, uint8_t out[32])
{
	static const uint8_t seed[32] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	uint8_t content[32];
	int p[2], status;
	pid_t pid;
	ssize_t n;

	if (pipe(p) != 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(p[0]);
		surand_test_INSECURE_deterministic(seed);
		memset(content, tag, sizeof(content));
		if (surand_add_entropy(content, sizeof(content), credit) != 0 || surand_reseed() != 0)
			_exit(2);
		surand_bytes(content, sizeof(content));
		if (write(p[1], content, sizeof(content)) != (ssize_t)sizeof(content))
			_exit(3);
		_exit(surand_test_entropy_last_reseed_pooled() == (credit >= 256) ? 0 : 4);
	}
	close(p[1]);
	n = read(p[0], out, 32);
	close(p[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return -1;
	return n == 32 ? 0 : -1;
}

static void catastrophic_threshold_deterministic(void)
{
	uint8_t a255[32], b255[32], a256[32], b256[32], a256again[32];

	quiet_sources(); /* inherited by the children: no sampled credit */
	T_ASSERT(det_child(0xaa, 255, a255) == 0);
	T_ASSERT(det_child(0xbb, 255, b255) == 0);
	T_ASSERT(det_child(0xaa, 256, a256) == 0);
	T_ASSERT(det_child(0xbb, 256, b256) == 0);
	T_ASSERT(det_child(0xaa, 256, a256again) == 0);
	/* the children are deterministic */
	T_ASSERT_MEM_EQ(a256, a256again, 32);
	/* 255 bits: the pool's content does not reach the output */
	T_ASSERT_MEM_EQ(a255, b255, 32);
	/* 256 bits: it does */
	T_ASSERT(memcmp(a256, b256, 32) != 0);
	T_ASSERT(memcmp(a255, a256, 32) != 0);
	all_sources_back();
}

/* ==== fast pools ============================================================== */

static void spills_after_64_events(unsigned slot)
{
	unsigned count = 99;
	uint64_t spills0, i;
	struct surand_stats s0;
	struct surand_entropy_source_stats e0, e1;

	quiet_sources();
	surand_test_fastpool_force_slot((int)slot);
	surand_add_event(1); /* may spill: the slot may be idle for > 1 s */
	T_ASSERT(surand_test_fastpool_slot(slot, &count, NULL) == 0);
	while (count != 0) { /* up to a spill boundary */
		surand_add_event(t_rand64(&rng));
		T_ASSERT(surand_test_fastpool_slot(slot, &count, NULL) == 0);
	}
	T_ASSERT(drain_credit() == 0);
	spills0 = surand_fastpool_spills();
	s0 = stats();
	e0 = src_stats(SURAND_ES_EVENTS);
	for (i = 0; i < SURAND_FP_SPILL_EVENTS - 1; i++)
		surand_add_event(t_rand64(&rng));
	T_ASSERT(surand_test_fastpool_slot(slot, &count, NULL) == 0);
	T_ASSERT_EQ_U64(count, 63);
	T_ASSERT_EQ_U64(surand_fastpool_spills(), spills0);
	T_ASSERT_EQ_U64(surand_pool_credit_bits(), 0);
	/* the 64th event spills 128 bits and credits exactly 1 bit */
	surand_add_event(t_rand64(&rng));
	T_ASSERT(surand_test_fastpool_slot(slot, &count, NULL) == 0);
	T_ASSERT_EQ_U64(count, 0);
	T_ASSERT_EQ_U64(surand_fastpool_spills(), spills0 + 1);
	T_ASSERT_EQ_U64(surand_pool_credit_bits(), 1);
	e1 = src_stats(SURAND_ES_EVENTS);
	T_ASSERT_EQ_U64(e1.c.credited, e0.c.credited + 1);
	T_ASSERT_EQ_U64(e1.c.bytes, e0.c.bytes + 16);
	T_ASSERT_EQ_U64(stats().events, s0.events + 64);
	surand_test_fastpool_force_slot(-1);
	all_sources_back();
}

static void fastpool_spills_after_64_events(void)
{
	spills_after_64_events(0);
	surand_test_fastpool_force_slot(-1);
}

/*
 * The slot's page dropped between the spill's copy of the state and its
 * re-check (the hook zeroes it there): the spill mixes the copy but credits
 * nothing.  The same 64 events spilled without the drop credit 1 bit.
 */
static void fastpool_dropped_during_spill_credits_nothing(void)
{
	unsigned slot = 0, count = 99;
	unsigned long drops0;
	uint64_t spills0, i;
	uint8_t d0[32], d1[32];
	struct surand_entropy_source_stats e0, e1;

	quiet_sources();
	surand_test_fastpool_force_slot((int)slot);
	surand_add_event(5);
	T_ASSERT(surand_test_fastpool_slot(slot, &count, NULL) == 0);
	while (count != 0) { /* up to a spill boundary */
		surand_add_event(t_rand64(&rng));
		T_ASSERT(surand_test_fastpool_slot(slot, &count, NULL) == 0);
	}
	/* a normal spill of 64 events: 1 bit */
	T_ASSERT(drain_credit() == 0);
	e0 = src_stats(SURAND_ES_EVENTS);
	for (i = 0; i < SURAND_FP_SPILL_EVENTS; i++)
		surand_add_event(t_rand64(&rng));
	e1 = src_stats(SURAND_ES_EVENTS);
	T_ASSERT_EQ_U64(surand_pool_credit_bits(), 1);
	T_ASSERT_EQ_U64(e1.c.credited, e0.c.credited + 1);
	/* the same, with the page dropped inside the spill: mixed, not credited */
	T_ASSERT(drain_credit() == 0);
	T_ASSERT(surand_test_entropy_pool_digest(d0) == 0);
	spills0 = surand_fastpool_spills();
	e0 = src_stats(SURAND_ES_EVENTS);
	drops0 = surand_test_fastpool_drop_in_spill((int)slot);
	for (i = 0; i < SURAND_FP_SPILL_EVENTS; i++)
		surand_add_event(t_rand64(&rng));
	T_ASSERT_EQ_U64(surand_test_fastpool_drop_in_spill(-1), drops0 + 1);
	e1 = src_stats(SURAND_ES_EVENTS);
	T_ASSERT_EQ_U64(surand_fastpool_spills(), spills0 + 1);
	T_ASSERT_EQ_U64(e1.c.bytes, e0.c.bytes + 16);
	T_ASSERT(surand_test_entropy_pool_digest(d1) == 0);
	T_ASSERT(memcmp(d0, d1, sizeof(d0)) != 0);
	T_ASSERT_EQ_U64(e1.c.credited, e0.c.credited);
	T_ASSERT_EQ_U64(surand_pool_credit_bits(), 0);
	/* the slot restarts with its next event; 64 more events credit again */
	for (i = 0; i < SURAND_FP_SPILL_EVENTS; i++)
		surand_add_event(t_rand64(&rng));
	T_ASSERT_EQ_U64(surand_pool_credit_bits(), 1);
	T_ASSERT_EQ_U64(surand_test_fastpool_inconsistent(), 0);
	surand_test_fastpool_force_slot(-1);
	all_sources_back();
}

static void fastpool_spills_after_1s(void)
{
	unsigned slot = surand_fastpool_nslots() > 1 ? 1 : 0, count = 99;
	uint64_t spills0;

	quiet_sources();
	/* no other slot holds events (earlier cases leave some): the flush at
	 * the end must find this slot only */
	surand_test_clock_advance(SURAND_FP_SPILL_NS);
	surand_fastpool_flush_stale(surand_now_ns());
	surand_test_fastpool_force_slot((int)slot);
	surand_add_event(2);
	T_ASSERT(surand_test_fastpool_slot(slot, &count, NULL) == 0);
	while (count != 0) {
		surand_add_event(t_rand64(&rng));
		T_ASSERT(surand_test_fastpool_slot(slot, &count, NULL) == 0);
	}
	spills0 = surand_fastpool_spills();
	surand_add_event(3);
	surand_add_event(4);
	T_ASSERT_EQ_U64(surand_fastpool_spills(), spills0);
	/* 0.9 s later: still no spill */
	surand_test_clock_advance(900000000ull);
	surand_add_event(5);
	T_ASSERT_EQ_U64(surand_fastpool_spills(), spills0);
	T_ASSERT(surand_test_fastpool_slot(slot, &count, NULL) == 0);
	T_ASSERT_EQ_U64(count, 3);
	/* past 1 s: the next event spills, with 4 events: no credited bit */
	surand_test_clock_advance(200000000ull);
	T_ASSERT(drain_credit() == 0);
	surand_add_event(6);
	T_ASSERT_EQ_U64(surand_fastpool_spills(), spills0 + 1);
	T_ASSERT(surand_test_fastpool_slot(slot, &count, NULL) == 0);
	T_ASSERT_EQ_U64(count, 0);
	T_ASSERT(surand_pool_credit_bits() <= 1); /* only a carried remainder can make a bit */
	/* a slot left alone for 1 s is spilled at the next sampling round */
	surand_add_event(7);
	surand_test_clock_advance(1000000000ull);
	surand_fastpool_flush_stale(surand_now_ns());
	T_ASSERT_EQ_U64(surand_fastpool_spills(), spills0 + 2);
	surand_test_fastpool_force_slot(-1);
	all_sources_back();
}

typedef void (*mix_fn)(uint32_t v[4], uint64_t x);

/*
 * Avalanche of a mix step: random state and event, one event bit flipped.
 * mean: flipped state bits per trial over `trials` trials (any input bit);
 * worst: the largest |P(output bit flips) - 1/2| over all 64 x 128 pairs,
 * each estimated from `trials` trials.
 */
static void avalanche(mix_fn mix, int trials, double *mean, double *worst)
{
	static unsigned flips[128];
	uint64_t total = 0, x;
	uint32_t a[4], b[4];
	int t, bit, i, j;
	double w = 0, p;

	for (t = 0; t < trials; t++) {
		for (i = 0; i < 4; i++)
			a[i] = b[i] = (uint32_t)t_rand64(&rng);
		x = t_rand64(&rng);
		bit = (int)(t_rand64(&rng) % 64);
		mix(a, x);
		mix(b, x ^ (1ull << bit));
		for (i = 0; i < 4; i++)
			total += (uint64_t)__builtin_popcount(a[i] ^ b[i]);
	}
	*mean = (double)total / trials;
	for (bit = 0; bit < 64; bit++) {
		memset(flips, 0, sizeof(flips));
		for (t = 0; t < trials; t++) {
			for (i = 0; i < 4; i++)
				a[i] = b[i] = (uint32_t)t_rand64(&rng);
			x = t_rand64(&rng);
			mix(a, x);
			mix(b, x ^ (1ull << bit));
			for (i = 0; i < 4; i++)
				for (j = 0; j < 32; j++)
					flips[i * 32 + j] += ((a[i] ^ b[i]) >> j) & 1;
		}
		for (i = 0; i < 128; i++) {
			p = (double)flips[i] / trials;
			if (fabs(p - 0.5) > w)
				w = fabs(p - 0.5);
		}
	}
	*worst = w;
}

/*
 * Tolerances: with 10,000 trials the mean of 128 fair coin flips has a
 * standard deviation of sqrt(32)/100 = 0.057, so 64 +- 2 is 35 sigma wide: it
 * only rejects a mix that falls short (a weak mix gives well under 60).  A
 * single bit's flip rate has a standard deviation of 0.005; over 8192 pairs
 * the largest deviation of a good mix is about 4.5 sigma = 0.023, so 0.05
 * (10 sigma) rejects only real bias.
 */
#define AVALANCHE_TRIALS 10000
#define AVALANCHE_MEAN_TOL 2.0
#define AVALANCHE_SAC_TOL 0.05

static void weak_mix_xor(uint32_t v[4], uint64_t x)
{
	v[0] ^= (uint32_t)x;
	v[1] ^= (uint32_t)(x >> 32);
}

/* Two rounds without the spreading step: diffusion falls short. */
static void weak_mix_two_rounds(uint32_t v[4], uint64_t x)
{
	int i;

	v[3] ^= (uint32_t)x;
	v[2] ^= (uint32_t)(x >> 32);
	for (i = 0; i < 2; i++) {
		v[0] += v[1];
		v[1] = surand_rotl32(v[1], 5) ^ v[0];
		v[0] = surand_rotl32(v[0], 16);
		v[2] += v[3];
		v[3] = surand_rotl32(v[3], 8) ^ v[2];
		v[0] += v[3];
		v[3] = surand_rotl32(v[3], 7) ^ v[0];
		v[2] += v[1];
		v[1] = surand_rotl32(v[1], 13) ^ v[2];
		v[2] = surand_rotl32(v[2], 16);
	}
}

static int cmp_state(const void *a, const void *b)
{
	return memcmp(a, b, 16);
}

static void fastpool_avalanche(void)
{
	double mean, worst;

	avalanche(surand_fastpool_mix, AVALANCHE_TRIALS, &mean, &worst);
	T_ASSERT_MSG(fabs(mean - 64.0) <= AVALANCHE_MEAN_TOL, "mean flipped bits %.3f", mean);
	T_ASSERT_MSG(worst <= AVALANCHE_SAC_TOL, "worst bit bias %.4f", worst);
	/* the measure tells a weak mix from a good one */
	avalanche(weak_mix_xor, 2000, &mean, &worst);
	T_ASSERT_MSG(fabs(mean - 64.0) > AVALANCHE_MEAN_TOL, "xor-only mean %.3f", mean);
	avalanche(weak_mix_two_rounds, 2000, &mean, &worst);
	T_ASSERT_MSG(fabs(mean - 64.0) > AVALANCHE_MEAN_TOL || worst > AVALANCHE_SAC_TOL,
		     "two-round mean %.3f worst %.4f", mean, worst);
	/* and the step is a permutation of the state for a fixed event:
	 * distinct states stay distinct (no collision among 65536) */
	{
		static uint32_t v[65536][4];
		int i;

		for (i = 0; i < 65536; i++) {
			v[i][0] = (uint32_t)i;
			v[i][1] = v[i][2] = v[i][3] = 0;
			surand_fastpool_mix(v[i], 42);
		}
		qsort(v, 65536, sizeof(v[0]), cmp_state);
		for (i = 1; i < 65536; i++)
			T_ASSERT(memcmp(v[i - 1], v[i], 16) != 0);
	}
}

#define EV_THREADS 8
static uint64_t ev_per_thread(void)
{
	return t_quick() ? 20000 : 100000;
}

static void *event_writer(void *arg)
{
	uint64_t i, n = ev_per_thread(), x = (uint64_t)(uintptr_t)arg;

	for (i = 0; i < n; i++)
		surand_add_event(x * 0x9e3779b97f4a7c15ull + i);
	return NULL;
}

static void events_from_8_threads_none_lost(void)
{
	pthread_t th[EV_THREADS];
	struct surand_stats s0, s1;
	struct surand_entropy_source_stats e0, e1;
	uint64_t i, spills0;

	quiet_sources();
	s0 = stats();
	e0 = src_stats(SURAND_ES_EVENTS);
	spills0 = surand_fastpool_spills();
	for (i = 0; i < EV_THREADS; i++)
		T_ASSERT(pthread_create(&th[i], NULL, event_writer, (void *)(uintptr_t)(i + 1)) == 0);
	for (i = 0; i < EV_THREADS; i++)
		pthread_join(th[i], NULL);
	s1 = stats();
	e1 = src_stats(SURAND_ES_EVENTS);
	/* every event reached a slot or the lock-free path */
	T_ASSERT_EQ_U64(s1.events - s0.events, EV_THREADS * ev_per_thread());
	T_ASSERT_EQ_U64(e1.c.samples - e0.c.samples, EV_THREADS * ev_per_thread());
	/* and the credit never exceeds 1 bit per 64 events: over the process's
	 * life (a window can also credit events from before it, carried) */
	T_ASSERT(e1.c.credited <= s1.events / 64);
	/* and within the window, counting what each slot held before it began:
	 * up to 63 events not yet spilled plus a carried remainder below 64 */
	T_ASSERT(e1.c.credited - e0.c.credited <=
		 (s1.events - s0.events + 126ull * surand_fastpool_nslots()) / 64);
	/* events that reached a slot were spilled at least every 64 */
	T_ASSERT(surand_fastpool_spills() - spills0 + surand_fastpool_nslots() >=
		 (s1.events - s0.events - (e1.c.overflow - e0.c.overflow)) / SURAND_FP_SPILL_EVENTS);
	all_sources_back();
}

/*
 * The two slot lock modes (src/entropy/fastpool.c, section 2): rseq mode
 * where glibc registered rseq, the kernel has membarrier's RSEQ command and
 * the build is x86-64 without TSan; else xchg mode.  The cases below run in
 * both (surand_test_fastpool_rseq switches with no event in flight).
 */
static int rseq_mode_expected(void)
{
#if defined(__x86_64__) && defined(T_HAVE_RSEQ_H) && !defined(T_TSAN) && defined(__NR_membarrier)
	long q;

	if (__rseq_size == 0)
		return 0;
	q = syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
	return q > 0 && (q & MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ) ? 1 : 0;
#else
	return 0;
#endif
}

/* Runs fn in xchg mode, then back in the mode set-up chose. */
static void in_xchg_mode(void (*fn)(void))
{
	int mode = surand_test_fastpool_rseq(-1);

	T_ASSERT(mode >= 0);
	T_ASSERT_EQ_U64(surand_test_fastpool_rseq(0), 0);
	fn();
	surand_test_fastpool_rseq(mode);
}

static int pin_to_current_cpu(cpu_set_t *old)
{
	cpu_set_t one;
	int cpu = sched_getcpu();

	if (cpu < 0 || sched_getaffinity(0, sizeof(*old), old) != 0)
		return -1;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one) != 0)
		return -1;
	return sched_getcpu() == cpu ? cpu : -1;
}

static void fastpool_lock_mode_chosen_at_setup(void)
{
	uint64_t t0, i;
	cpu_set_t old;
	int cpu, mode = surand_test_fastpool_rseq(-1);

	T_ASSERT_MSG(mode == rseq_mode_expected(), "mode %d, expected %d", mode,
		     rseq_mode_expected());
	T_ASSERT(surand_test_fastpool_cpu_slots() >= 1);
	T_ASSERT(surand_fastpool_nslots() > surand_test_fastpool_cpu_slots());
	cpu = pin_to_current_cpu(&old);
	T_ASSERT(cpu >= 0);
	t0 = surand_test_fastpool_rseq_takes();
	for (i = 0; i < 1000; i++)
		surand_add_event(i);
	if (mode == 1)
		/* all but an aborted sequence or two take the CPU's slot with rseq */
		T_ASSERT_MSG(surand_test_fastpool_rseq_takes() - t0 >= 990, "%llu rseq takes",
			     (unsigned long long)(surand_test_fastpool_rseq_takes() - t0));
	else
		T_ASSERT_EQ_U64(surand_test_fastpool_rseq_takes(), t0);
	sched_setaffinity(0, sizeof(old), &old);
	T_ASSERT_EQ_U64(surand_test_fastpool_inconsistent(), 0);
}

/* The spill test on this CPU's own slot, pinned: in rseq mode every event
 * takes it with the restartable sequence. */
static void fastpool_spills_own_cpu_slot(void)
{
	uint64_t t0 = surand_test_fastpool_rseq_takes();
	cpu_set_t old;
	int cpu = pin_to_current_cpu(&old);

	T_ASSERT(cpu >= 0);
	if ((unsigned)cpu < surand_test_fastpool_cpu_slots()) {
		spills_after_64_events((unsigned)cpu);
		if (surand_test_fastpool_rseq(-1) == 1)
			T_ASSERT(surand_test_fastpool_rseq_takes() - t0 >= 64);
	}
	surand_test_fastpool_force_slot(-1);
	sched_setaffinity(0, sizeof(old), &old);
}

static volatile int flusher_stop;

/* A sampling round's stale-slot flush, over and over, with a clock 2 s ahead:
 * every slot that holds events is taken from this thread (cross-CPU). */
static void *flusher(void *arg)
{
	uint64_t *rounds = arg;

	while (!__atomic_load_n(&flusher_stop, __ATOMIC_ACQUIRE)) {
		surand_fastpool_flush_stale(surand_now_ns() + 2000000000ull);
		__atomic_fetch_add(rounds, 1, __ATOMIC_RELAXED);
		/* A chance for the writers where threads take turns (valgrind
		 * runs one at a time: a flusher that never blocks starves them). */
		sched_yield();
	}
	return NULL;
}

/*
 * 8 writers and a flusher: no event lost, no slot ever held twice (a slot
 * held by two at once loses or doubles a count: with the membarrier step of
 * the cross-CPU trylock taken out, this case fails within a run or two).
 */
static void events_8_threads_and_flusher_body(void)
{
	pthread_t th[EV_THREADS], fl;
	struct surand_stats s0, s1;
	struct surand_entropy_source_stats e0, e1;
	uint64_t i, rounds = 0, remote0 = surand_test_fastpool_remote_takes(), spills0;

	s0 = stats();
	e0 = src_stats(SURAND_ES_EVENTS);
	spills0 = surand_fastpool_spills();
	flusher_stop = 0;
	T_ASSERT(pthread_create(&fl, NULL, flusher, &rounds) == 0);
	while (__atomic_load_n(&rounds, __ATOMIC_RELAXED) == 0)
		sched_yield(); /* the flusher runs before the writers start */
	for (i = 0; i < EV_THREADS; i++)
		T_ASSERT(pthread_create(&th[i], NULL, event_writer, (void *)(uintptr_t)(i + 1)) == 0);
	for (i = 0; i < EV_THREADS; i++)
		pthread_join(th[i], NULL);
	__atomic_store_n(&flusher_stop, 1, __ATOMIC_RELEASE);
	pthread_join(fl, NULL);
	s1 = stats();
	e1 = src_stats(SURAND_ES_EVENTS);
	T_ASSERT_EQ_U64(s1.events - s0.events, EV_THREADS * ev_per_thread());
	T_ASSERT_EQ_U64(e1.c.samples - e0.c.samples, EV_THREADS * ev_per_thread());
	T_ASSERT(e1.c.credited <= s1.events / 64); /* 1 bit per 64 events, process life */
	/* every slot's count is its events less those spilled: no lost update */
	T_ASSERT_EQ_U64(surand_test_fastpool_inconsistent(), 0);
	T_ASSERT(surand_fastpool_spills() > spills0);
	if (surand_test_fastpool_rseq(-1) == 1)
		T_ASSERT(surand_test_fastpool_remote_takes() > remote0);
}

static void events_8_threads_and_flusher(void)
{
	quiet_sources();
	events_8_threads_and_flusher_body();
	all_sources_back(); /* also after a failed assertion */
}

static volatile sig_atomic_t fp_sig_events;

static void on_alarm_event(int sig)
{
	int e = errno;

	surand_add_event((uint64_t)sig * 0x9e3779b97f4a7c15ull + (uint64_t)fp_sig_events);
	fp_sig_events = fp_sig_events + 1;
	errno = e;
}

/* A SIGALRM every usec microseconds calling handler; alarm_stop restores. */
static int alarm_start(void (*handler)(int), long usec, struct sigaction *old)
{
	struct sigaction sa;
	struct itimerval it;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGALRM, &sa, old) != 0)
		return -1;
	memset(&it, 0, sizeof(it));
	it.it_interval.tv_usec = usec;
	it.it_value.tv_usec = usec;
	return setitimer(ITIMER_REAL, &it, NULL);
}

static void alarm_stop(const struct sigaction *old)
{
	struct itimerval off;

	memset(&off, 0, sizeof(off));
	setitimer(ITIMER_REAL, &off, NULL);
	signal(SIGALRM, SIG_IGN); /* discards a signal still pending (valgrind delivers late) */
	sigaction(SIGALRM, old, NULL);
}

/* A signal handler adding events while the interrupted loop does: in rseq
 * mode the handler that finds the slot held (or aborts the loop's sequence)
 * goes to a shared slot; every event is counted once. */
static void fastpool_signal_handler_events_body(void)
{
	struct sigaction old;
	struct surand_stats s0, s1;
	uint64_t main_events = 0, t0 = surand_test_fastpool_rseq_takes();
	double end;

	s0 = stats();
	fp_sig_events = 0;
	T_ASSERT(alarm_start(on_alarm_event, 100, &old) == 0);
	end = t_now_s() + (t_quick() ? 0.15 : 0.3);
	while (t_now_s() < end) {
		int k;

		for (k = 0; k < 64; k++)
			surand_add_event(main_events++);
	}
	alarm_stop(&old);
	s1 = stats();
	T_ASSERT(fp_sig_events > 0);
	T_ASSERT_EQ_U64(s1.events - s0.events, main_events + (uint64_t)fp_sig_events);
	T_ASSERT_EQ_U64(surand_test_fastpool_inconsistent(), 0);
	if (surand_test_fastpool_rseq(-1) == 1)
		T_ASSERT(surand_test_fastpool_rseq_takes() - t0 >= main_events / 2);
}

static void fastpool_signal_handler_events(void)
{
	quiet_sources();
	fastpool_signal_handler_events_body();
	all_sources_back();
}

static void fastpool_spills_after_64_events_xchg(void)
{
	in_xchg_mode(fastpool_spills_after_64_events);
}

static void fastpool_spills_after_1s_xchg(void)
{
	in_xchg_mode(fastpool_spills_after_1s);
}

static void events_from_8_threads_none_lost_xchg(void)
{
	in_xchg_mode(events_from_8_threads_none_lost);
}

static void events_8_threads_and_flusher_xchg(void)
{
	in_xchg_mode(events_8_threads_and_flusher);
}

static void fastpool_signal_handler_events_xchg(void)
{
	in_xchg_mode(fastpool_signal_handler_events);
}

/* Child (fresh library, GLIBC_TUNABLES=glibc.pthread.rseq=0): xchg mode
 * chosen at set-up, and the fast pools work in it. */
static void child_rseq_off(void)
{
#ifdef T_HAVE_RSEQ_H
	T_ASSERT_EQ_U64(__rseq_size, 0);
#endif
	T_ASSERT_EQ_U64(surand_test_fastpool_rseq(-1), 0);
	T_ASSERT_EQ_U64(surand_test_fastpool_rseq(1), 0); /* not available: stays off */
	events_8_threads_and_flusher();
	if (t_case_failed())
		return;
	fastpool_spills_after_64_events();
	T_ASSERT_EQ_U64(surand_test_fastpool_rseq_takes(), 0);
}

static void fastpool_xchg_mode_when_rseq_off(void)
{
	const char *old = getenv("GLIBC_TUNABLES");
	char *saved = old ? strdup(old) : NULL;

	setenv("GLIBC_TUNABLES", "glibc.pthread.rseq=0", 1);
	t_exec_child("rseq_off", 60);
	if (saved) {
		setenv("GLIBC_TUNABLES", saved, 1);
		free(saved);
	} else {
		unsetenv("GLIBC_TUNABLES");
	}
}

/* ==== health tests ============================================================ */

/* Independent of health.c: libm's lgamma/exp, summed from the far tail. */
static double tail_libm(unsigned n, double p, unsigned k)
{
	double s = 0;
	unsigned j;

	for (j = n + 1; j-- > k;)
		s += exp(lgamma(n + 1.0) - lgamma(j + 1.0) - lgamma(n - j + 1.0) + j * log(p) +
			 (n - j) * log1p(-p));
	return s;
}

static void health_cutoffs(void)
{
	static const unsigned claims[][2] = { { 1, 1 }, { 1, 2 }, { 2, 1 }, { 8, 1 }, { 32, 1 }, { 3, 4 },
					      { 1, 8 } };
	const double alpha = ldexp(1.0, -30);
	unsigned i, c, nist, w = SURAND_HEALTH_APT_WINDOW, k;
	double h, p;

	for (i = 0; i < sizeof(claims) / sizeof(claims[0]); i++) {
		h = (double)claims[i][0] / claims[i][1];
		p = exp2(-h);
		T_ASSERT(fabs(surand_health_pow2_neg(h) - p) <= 1e-15 * p);
		/* RCT: 1 + ceil(30 / H) */
		T_ASSERT_EQ_U64(surand_health_rct_cutoff(claims[i][0], claims[i][1]),
				1 + (unsigned)ceil(30.0 / h - 1e-12));
		/* the binomial tails agree with libm's */
		for (k = 1; k < 40; k += 7)
			T_ASSERT(fabs(surand_health_binom_tail(w - 1, p, k) - tail_libm(w - 1, p, k)) <=
				 1e-9 * tail_libm(w - 1, p, k) + 1e-300);
		/* NIST: 1 + CRITBINOM(W, p, 1 - alpha), i.e. the smallest C with
		 * P(Bin(W, p) >= C) <= alpha */
		nist = surand_health_apt_cutoff_nist(claims[i][0], claims[i][1], w);
		T_ASSERT(tail_libm(w, p, nist) <= alpha);
		T_ASSERT(tail_libm(w, p, nist - 1) > alpha);
		/* ours: at least NIST's, and P(alarm) = P(Bin(W-1, p) >= C-1) <= alpha */
		c = surand_health_apt_cutoff(claims[i][0], claims[i][1], w);
		T_ASSERT(c >= nist);
		T_ASSERT_MSG(tail_libm(w - 1, p, c - 1) <= alpha, "H=%g C=%u", h, c);
		T_ASSERT(c == nist || tail_libm(w - 1, p, c - 2) > alpha);
	}
	/* the values docs/entropy.md states for the two claims in use */
	T_ASSERT_EQ_U64(surand_health_rct_cutoff(1, 1), 31);
	T_ASSERT_EQ_U64(surand_health_rct_cutoff(32, 1), 2);
}

static void health_fires_on_stuck_source(void)
{
	struct surand_health h;
	unsigned i;
	int r = 0;

	surand_health_init(&h, 1, 1);
	for (i = 1; i <= h.rct_cutoff; i++) {
		r = surand_health_feed(&h, 1234);
		if (i < h.rct_cutoff)
			T_ASSERT_MSG(!(r & SURAND_HEALTH_RCT), "RCT alarm at %u of %u", i, h.rct_cutoff);
	}
	T_ASSERT(r & SURAND_HEALTH_RCT); /* exactly at the C-th identical sample */
	for (; i <= h.apt_window; i++)
		(void)surand_health_feed(&h, 1234);
	T_ASSERT(h.apt_alarms == 1); /* once per window */
	T_ASSERT(h.rct_alarms >= h.apt_window / h.rct_cutoff);
	/* an RDSEED word claim: the second identical word alarms */
	surand_health_init(&h, 32, 1);
	T_ASSERT_EQ_U64(surand_health_feed(&h, 0xffffffffffffffffull), 0);
	T_ASSERT(surand_health_feed(&h, 0xffffffffffffffffull) & SURAND_HEALTH_RCT);
}

static void health_fires_on_biased_source(void)
{
	struct surand_health h;
	uint64_t r;
	unsigned i, run = 0;

	/* one value 3 times in 4, runs capped at 20: the APT fires, the RCT cannot */
	surand_health_init(&h, 1, 1);
	for (i = 0; i < 20 * h.apt_window; i++) {
		r = t_rand64(&rng);
		if ((r & 3) && run < 20) {
			run++;
			(void)surand_health_feed(&h, 7);
		} else {
			run = 0;
			(void)surand_health_feed(&h, 8 + (r >> 2) % 100000);
		}
	}
	T_ASSERT_EQ_U64(h.rct_alarms, 0);
	/* a window alarms when its first sample is the biased value (3 in 4) */
	T_ASSERT_MSG(h.apt_alarms >= 5, "APT alarms %llu in 20 windows", (unsigned long long)h.apt_alarms);
	/* a value with probability 0.6 against an 8-bit claim */
	surand_health_init(&h, 8, 1);
	for (i = 0; i < 40 * h.apt_window; i++) {
		r = t_rand64(&rng);
		(void)surand_health_feed(&h, (r % 10) < 6 ? 0 : r);
	}
	T_ASSERT_MSG(h.apt_alarms >= 10, "APT alarms %llu in 40 windows", (unsigned long long)h.apt_alarms);
	T_ASSERT(h.rct_alarms > 0);
}

static void health_quiet_on_healthy_sources(void)
{
	struct surand_health h;
	uint64_t r, n = 1000000, i;

	/* simulated jitter at exactly its claim (H = 1): the likeliest delta has
	 * probability 1/2, the rest spread as a geometric-like tail */
	surand_health_init(&h, 1, 1);
	for (i = 0; i < n; i++) {
		r = t_rand64(&rng);
		(void)surand_health_feed(&h, (r & 1) ? 210 : 211 + (uint64_t)__builtin_ctzll(r | (1ull << 40)) * 3 +
							     ((r >> 44) & 1023));
	}
	T_ASSERT_EQ_U64(h.samples, n);
	T_ASSERT_EQ_U64(h.rct_alarms, 0);
	T_ASSERT_EQ_U64(h.apt_alarms, 0);
	/* RDSEED-like words against the 32-bit claim */
	surand_health_init(&h, 32, 1);
	for (i = 0; i < n; i++)
		(void)surand_health_feed(&h, t_rand64(&rng));
	T_ASSERT_EQ_U64(h.rct_alarms + h.apt_alarms, 0);
}

/*
 * 4.4.2: the APT alarms exactly when the window's first value A has been seen
 * C = apt_cutoff times in the window (the first sample counted), not at C - 1
 * nor later.  A comes in runs shorter than the RCT cut-off, split by distinct
 * values, in the second window (a first window of distinct values before it).
 */
static void health_apt_alarms_at_exactly_c(void)
{
	static const unsigned claims[][2] = { { 1, 1 }, { 1, 8 }, { 8, 1 }, { 32, 1 } };
	const uint64_t a = 7;
	struct surand_health h;
	uint64_t other = 1000;
	unsigned i, k, seen, run, fed;
	int r = 0;

	for (k = 0; k < sizeof(claims) / sizeof(claims[0]); k++) {
		surand_health_init(&h, claims[k][0], claims[k][1]);
		T_ASSERT(h.apt_cutoff >= 2 && h.rct_cutoff >= 2);
		for (i = 0; i < h.apt_window; i++)
			T_ASSERT_EQ_U64(surand_health_feed(&h, other++), 0);
		seen = run = fed = 0;
		while (seen < h.apt_cutoff) {
			if (run == h.rct_cutoff - 1) {
				r = surand_health_feed(&h, other++);
				T_ASSERT_EQ_U64(r, 0);
				run = 0;
			} else {
				r = surand_health_feed(&h, a);
				seen++;
				run++;
				T_ASSERT_MSG(!(r & SURAND_HEALTH_RCT), "H = %u/%u: RCT alarm", claims[k][0],
					     claims[k][1]);
				if (seen < h.apt_cutoff)
					T_ASSERT_MSG(!(r & SURAND_HEALTH_APT),
						     "H = %u/%u: APT alarm at occurrence %u of C = %u",
						     claims[k][0], claims[k][1], seen, h.apt_cutoff);
			}
			fed++;
		}
		T_ASSERT_MSG(fed <= h.apt_window, "H = %u/%u: %u samples for C = %u", claims[k][0],
			     claims[k][1], fed, h.apt_cutoff);
		T_ASSERT_MSG(r & SURAND_HEALTH_APT, "H = %u/%u: no APT alarm at occurrence C = %u",
			     claims[k][0], claims[k][1], h.apt_cutoff);
		T_ASSERT_EQ_U64(h.apt_alarms, 1);
		T_ASSERT_EQ_U64(h.rct_alarms, 0);
		/* one alarm at most per window: more of A up to the window's end */
		for (; fed < h.apt_window; fed++)
			(void)surand_health_feed(&h, (fed & 1) ? a : other++);
		T_ASSERT_EQ_U64(h.apt_alarms, 1);
	}
}

/* SP 800-90B 6.3.1 against libm, on samples with a known most common value. */
static void health_mcv_estimate(void)
{
	static const unsigned counts[] = { 1, 2, 100, 512, 768, 942, 1000, 1023, 1024 };
	static uint64_t v[1024];
	double p, pu, want;
	unsigned i, k, got;

	for (i = 0; i < 40; i++) {
		p = (i + 1) / 41.0;
		T_ASSERT_MSG(fabs(surand_health_neg_log2(p) + log2(p)) < 1e-12, "-log2(%g)", p);
	}
	T_ASSERT(surand_health_neg_log2(1.0) == 0.0);
	for (k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
		/* counts[k] copies of one value, the rest distinct, shuffled */
		for (i = 0; i < 1024; i++)
			v[i] = i < counts[k] ? 5 : 1000 + i;
		for (i = 1023; i > 0; i--) {
			unsigned j = (unsigned)(t_rand64(&rng) % (i + 1));
			uint64_t t = v[i];

			v[i] = v[j];
			v[j] = t;
		}
		p = counts[k] / 1024.0;
		pu = fmin(1.0, p + 2.576 * sqrt(p * (1 - p) / 1023));
		want = -log2(pu) * 1000;
		got = surand_health_mcv_millibits(v, 1024);
		T_ASSERT_MSG(fabs(got - floor(want + 1e-9)) <= 1, "%u of 1024: %u millibits, libm %.3f",
			     counts[k], got, want);
		/* sorted in place */
		for (i = 1; i < 1024; i++)
			T_ASSERT(v[i - 1] <= v[i]);
	}
	/* the jitter source's claim: RCT and APT cut-offs at H = 1/8 (docs/entropy.md) */
	T_ASSERT_EQ_U64(surand_health_rct_cutoff(1, 8), 241);
	T_ASSERT_EQ_U64(surand_health_apt_cutoff(1, 8, SURAND_HEALTH_APT_WINDOW), 502);
}

static void alarm_policy_once(void)
{
	struct surand_source_health sh;

	memset(&sh, 0, sizeof(sh));
	surand_source_health_init(&sh, 32, 1, 10, 20);
	(void)surand_source_health_feed(&sh, SURAND_ES_CPU, 4);
	(void)surand_source_health_feed(&sh, SURAND_ES_CPU, 5);
	(void)surand_source_health_feed(&sh, SURAND_ES_CPU, 5); /* alarm */
}

static void health_policy_startup_holdoff_disable(void)
{
	struct surand_source_health sh;
	struct surand_entropy_source_stats e0 = src_stats(SURAND_ES_CPU), e1;
	unsigned i, credited = 0;
	char err[512];

	memset(&sh, 0, sizeof(sh));
	surand_source_health_init(&sh, 32, 1, 10, 20);
	/* start-up: nothing creditable before 10 samples passed */
	for (i = 0; i < 10; i++)
		credited += (unsigned)surand_source_health_feed(&sh, SURAND_ES_CPU, t_rand64(&rng));
	T_ASSERT_EQ_U64(credited, 0);
	T_ASSERT_EQ_U64(surand_source_health_feed(&sh, SURAND_ES_CPU, t_rand64(&rng)), 1);
	/* an alarm: no credit for the next 20 */
	T_ASSERT_EQ_U64(surand_source_health_feed(&sh, SURAND_ES_CPU, 5), 1);
	T_ASSERT_EQ_U64(surand_source_health_feed(&sh, SURAND_ES_CPU, 5), 0);
	e1 = src_stats(SURAND_ES_CPU);
	T_ASSERT_EQ_U64(e1.c.health_rct, e0.c.health_rct + 1);
	for (i = 0, credited = 0; i < 20; i++)
		credited += (unsigned)surand_source_health_feed(&sh, SURAND_ES_CPU, t_rand64(&rng));
	T_ASSERT_EQ_U64(credited, 0);
	T_ASSERT_EQ_U64(surand_source_health_feed(&sh, SURAND_ES_CPU, t_rand64(&rng)), 1);
	T_ASSERT(!sh.disabled);
	/* the third alarm disables the source for the process */
	(void)surand_source_health_feed(&sh, SURAND_ES_CPU, 6);
	(void)surand_source_health_feed(&sh, SURAND_ES_CPU, 6);
	T_ASSERT(!sh.disabled);
	(void)surand_source_health_feed(&sh, SURAND_ES_CPU, 6);
	T_ASSERT(sh.disabled);
	/* stderr: silent by default, one line per alarm with SURAND_DEBUG=1 */
	unsetenv("SURAND_DEBUG");
	surand_test_config_reload();
	T_ASSERT(capture_stderr(alarm_policy_once, err, sizeof(err)) == 0);
	setenv("SURAND_DEBUG", "1", 1);
	surand_test_config_reload();
	T_ASSERT(capture_stderr(alarm_policy_once, err, sizeof(err)) > 0);
	unsetenv("SURAND_DEBUG");
	surand_test_config_reload();
	T_ASSERT_MSG(strstr(err, "surand: entropy: cpu health test alarm (repetition count)") != NULL,
		     "stderr: %s", err);
	T_ASSERT(strchr(err, '\n') == err + strlen(err) - 1);
}

/* ==== the sampled sources ===================================================== */

/*
 * The jitter source's credit accounting (src/entropy/jitter.c): its power-up
 * qualification over the first JQ_DELTAS deltas, 1/8 bit per counted delta,
 * granted only when a clean adaptive proportion window closes.
 */
#define JQ_DELTAS 1024u /* the power-up qualification */
#define JQ_OSR 8u       /* counted deltas per credited bit */
#define JQ_WINDOW SURAND_HEALTH_APT_WINDOW

/* A RELIABILITY row of a jitter-qualification case (tests/reliability.h's
 * format; the bracket names the timer, not a backend). */
static void jq_row(const char *timer, int ok, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void jq_row(const char *timer, int ok, const char *fmt, ...)
{
	char load[320];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(load, sizeof(load), fmt, ap);
	va_end(ap);
	printf("RELIABILITY jitter-qualification[%s]%s%s|%s|%s|0|0|0\n", timer,
	       strcmp(rel_build_tag(), "plain") ? " " : "",
	       strcmp(rel_build_tag(), "plain") ? rel_build_tag() : "", load, ok ? "pass" : "FAIL");
	fflush(stdout);
}

/*
 * The invariants every jitter run keeps, whatever the timer (d = e1 - e0,
 * e0 taken right after a health reset): credit is 1/8 of the counted deltas
 * (remainder carried); nothing is counted before qualification, nor a stuck
 * delta, nor outside a clean closed window; bytes are all the deltas.
 * Returns NULL, or what broke.
 */
static const char *jq_invariants(const struct surand_entropy_source_stats *e0,
				 const struct surand_entropy_source_stats *e1)
{
	uint64_t n = e1->c.samples - e0->c.samples, cr = e1->c.credited - e0->c.credited,
		 cnt = e1->c.counted - e0->c.counted, st = e1->c.stuck - e0->c.stuck,
		 wc = e1->c.windows_clean - e0->c.windows_clean;

	if (e1->c.bytes - e0->c.bytes != 8 * n)
		return "a delta was not mixed";
	if (cr != cnt / JQ_OSR)
		return "credited != counted / 8";
	if (n < JQ_DELTAS ? cnt != 0 : cnt > n - JQ_DELTAS)
		return "counted a delta of the start-up";
	if (cr > (n < JQ_DELTAS ? 0 : (n - JQ_DELTAS) / JQ_OSR))
		return "credited > (n - start-up) / 8";
	if (cnt + st > n)
		return "counted a stuck delta";
	if (cnt > wc * JQ_WINDOW)
		return "counted more than the clean windows hold";
	if (e1->q.state != SURAND_QUAL_QUALIFIED && cr != 0)
		return "credit without qualification";
	return NULL;
}

struct jq_sim {
	enum surand_test_jitter_fault timer;
	const char *name;
	uint32_t state, reason; /* the expected verdict */
	const char *what;
};

/* The counters of a verdict: a disqualified timer is still mixed and never
 * credited; a qualified one is credited, every window after the
 * qualification closed clean, and each gave its deltas that were not stuck. */
static void jq_sim_check_credit(const struct jq_sim *s, const struct surand_entropy_source_stats *e0,
				const struct surand_entropy_source_stats *e1)
{
	if (s->state == SURAND_QUAL_DISQUALIFIED) {
		/* still mixed, never credited; the stats name the reason */
		T_ASSERT(e1->c.bytes > e0->c.bytes);
		T_ASSERT_EQ_U64(e1->c.credited, e0->c.credited);
		T_ASSERT_EQ_U64(e1->c.counted, e0->c.counted);
		T_ASSERT(e1->q.reason_name[0] != 0);
	} else {
		T_ASSERT(e1->c.credited > e0->c.credited);
		T_ASSERT(e1->q.reason_name[0] == 0);
		/* no alarm: every window after the qualification closed clean,
		 * and each gave its deltas that were not stuck */
		T_ASSERT_EQ_U64(e1->c.windows_alarmed, e0->c.windows_alarmed);
		T_ASSERT_EQ_U64(e1->c.windows_clean - e0->c.windows_clean,
				(e1->c.samples - e0->c.samples) / JQ_WINDOW - JQ_DELTAS / JQ_WINDOW);
		T_ASSERT(e1->c.counted - e0->c.counted + (e1->c.stuck - e0->c.stuck) >=
			 JQ_WINDOW * (e1->c.windows_clean - e0->c.windows_clean));
	}
}

/* What the qualification saw, by the reason it gave (and the biased
 * timer's estimate). */
static void jq_sim_check_reason(const struct jq_sim *s, const struct surand_entropy_source_stats *e1)
{
	switch (s->reason) {
	case SURAND_DISQ_COARSE:
		T_ASSERT(e1->q.zero_deltas > 0);
		break;
	case SURAND_DISQ_NONMONOTONIC:
		T_ASSERT(e1->q.backwards > 3);
		break;
	case SURAND_DISQ_STUCK:
		T_ASSERT(e1->q.stuck * 10 > JQ_DELTAS * 9);
		break;
	case SURAND_DISQ_LOW_ENTROPY:
		T_ASSERT(e1->q.stuck * 10 <= JQ_DELTAS * 9 && e1->q.h_estimate_millibits < 125);
		break;
	default:
		break;
	}
	if (s->timer == SURAND_TEST_JITTER_BIASED)
		/* p = 3/4: p_u = 0.75 + 2.576 sqrt(0.1875 / 1023) ~ 0.785, 0.35 bit */
		T_ASSERT_MSG(e1->q.h_estimate_millibits > 300 && e1->q.h_estimate_millibits < 420,
			     "biased: estimate %u millibits", e1->q.h_estimate_millibits);
}

/* One simulated timer from a fresh health state, collected until it gave
 * the qualification's deltas and 16 windows more (or was disabled): its
 * row, and the verdict it must reach. */
static void jq_sim_run(const struct jq_sim *s)
{
	const uint64_t total = JQ_DELTAS + 16 * JQ_WINDOW;
	struct surand_entropy_source_stats e0, e1;
	const char *bad;
	int early_credit = 0, ok;

	surand_test_entropy_health_reset(SURAND_ES_JITTER);
	surand_test_jitter_fault(s->timer);
	e0 = src_stats(SURAND_ES_JITTER);
	T_ASSERT_EQ_U64(e0.q.state, SURAND_QUAL_PENDING);
	do {
		surand_entropy_collect();
		e1 = src_stats(SURAND_ES_JITTER);
		/* no credit while the qualification is pending */
		if (e1.q.state == SURAND_QUAL_PENDING && e1.c.credited != e0.c.credited)
			early_credit = 1;
	} while (e1.c.samples - e0.c.samples < total && !e1.disabled);
	bad = jq_invariants(&e0, &e1);
	ok = !early_credit && !bad && e1.q.state == s->state && e1.q.reason == s->reason &&
	     e1.q.samples == JQ_DELTAS &&
	     (s->state == SURAND_QUAL_QUALIFIED
		      ? e1.c.credited > e0.c.credited && e1.q.h_estimate_millibits >= 125
		      : e1.c.credited == e0.c.credited);
	jq_row(s->name, ok,
	       "simulated timer (%s), %llu deltas: %s%s%s, estimate %u.%03u bit/delta, "
	       "%llu of the first 1024 stuck, %llu bits credited",
	       s->what, (unsigned long long)(e1.c.samples - e0.c.samples),
	       e1.q.state == SURAND_QUAL_QUALIFIED ? "qualified" : "disqualified",
	       e1.q.reason ? " " : "", e1.q.reason_name, e1.q.h_estimate_millibits / 1000,
	       e1.q.h_estimate_millibits % 1000, (unsigned long long)e1.q.stuck,
	       (unsigned long long)(e1.c.credited - e0.c.credited));
	T_ASSERT_MSG(!early_credit, "%s: credit before the qualification ended", s->name);
	T_ASSERT_MSG(!bad, "%s: %s", s->name, bad);
	T_ASSERT_MSG(e1.q.state == s->state && e1.q.reason == s->reason,
		     "%s: state %u reason %u (%s), expected %u/%u", s->name, e1.q.state, e1.q.reason,
		     e1.q.reason_name, s->state, s->reason);
	T_ASSERT_EQ_U64(e1.q.samples, JQ_DELTAS);
	T_ASSERT_EQ_U64(e1.q.h_credited_millibits, 125);
	jq_sim_check_credit(s, &e0, &e1);
	if (t_case_failed())
		return;
	jq_sim_check_reason(s, &e1);
}

static void jitter_qualification_simulated(void)
{
	static const struct jq_sim sims[] = {
		{ SURAND_TEST_JITTER_SIM_HEALTHY, "healthy", SURAND_QUAL_QUALIFIED, 0,
		  "1000 half the time, else spread" },
		{ SURAND_TEST_JITTER_BIASED, "biased", SURAND_QUAL_QUALIFIED, 0,
		  "one value 3 times in 4 (about 0.35 bit by 6.3.1)" },
		{ SURAND_TEST_JITTER_SIM_COARSE, "coarse", SURAND_QUAL_DISQUALIFIED, SURAND_DISQ_COARSE,
		  "ticks of 1000 around loops of 300..899" },
		{ SURAND_TEST_JITTER_SIM_BACKWARDS, "non-monotonic", SURAND_QUAL_DISQUALIFIED,
		  SURAND_DISQ_NONMONOTONIC, "every 128th pair of reads backwards" },
		{ SURAND_TEST_JITTER_STUCK, "stuck-constant", SURAND_QUAL_DISQUALIFIED, SURAND_DISQ_STUCK,
		  "one delta value: zero 2nd difference" },
		{ SURAND_TEST_JITTER_SIM_LINEAR, "stuck-linear", SURAND_QUAL_DISQUALIFIED, SURAND_DISQ_STUCK,
		  "deltas in arithmetic progression: zero 3rd difference" },
		{ SURAND_TEST_JITTER_SIM_LOW, "low-entropy", SURAND_QUAL_DISQUALIFIED,
		  SURAND_DISQ_LOW_ENTROPY, "one value 92 times in 100" },
	};

	surand_test_entropy_source_set(SURAND_ES_CPU, 0);
	for (unsigned i = 0; i < sizeof(sims) / sizeof(sims[0]); i++) {
		jq_sim_run(&sims[i]);
		if (t_case_failed())
			return;
	}
	surand_test_jitter_fault(SURAND_TEST_JITTER_NONE);
	surand_test_entropy_health_reset(SURAND_ES_JITTER);
	all_sources_back();
}

/*
 * One delta per round: the credit moves only when a window closes clean.
 * SIM_ALARM_ONCE has one run of equal deltas (an RCT alarm) inside the
 * window [2048, 2560): that window gives nothing, nor the one after it (the
 * 1024-delta hold-off), and the credit resumes afterwards.
 */
static void jitter_credit_only_when_a_clean_window_closes(void)
{
	struct surand_entropy_source_stats e0, e1;
	uint64_t n, prev = 0, at2048 = 0, at3072 = 0, moved_off_close = 0, cr;
	const char *bad = NULL;
	int ok;

	surand_test_entropy_source_set(SURAND_ES_CPU, 0);
	surand_test_entropy_health_reset(SURAND_ES_JITTER);
	surand_test_jitter_fault(SURAND_TEST_JITTER_SIM_ALARM_ONCE);
	surand_test_jitter_round_max(1);
	e0 = src_stats(SURAND_ES_JITTER);
	for (n = 1; n <= 5 * JQ_DELTAS; n++) {
		surand_entropy_collect();
		e1 = src_stats(SURAND_ES_JITTER);
		T_ASSERT_EQ_U64(e1.c.samples - e0.c.samples, n);
		cr = e1.c.credited - e0.c.credited;
		if (cr != prev && n % JQ_WINDOW != 0)
			moved_off_close++;
		if (!bad)
			bad = jq_invariants(&e0, &e1);
		if (n == 2048)
			at2048 = cr;
		if (n == 3072)
			at3072 = cr;
		prev = cr;
	}
	surand_test_jitter_round_max(0);
	ok = !bad && moved_off_close == 0 && at2048 > 0 && at3072 == at2048 && prev > at3072 &&
	     e1.c.windows_alarmed - e0.c.windows_alarmed == 1 &&
	     e1.c.health_rct - e0.c.health_rct == 1 && !e1.disabled;
	jq_row("alarm-in-window", ok,
	       "simulated healthy timer with a run of %u equal deltas at %u, 1 delta per round, "
	       "%llu deltas: %llu bits at 2048, %llu at 3072 (alarmed window and hold-off), %llu at "
	       "the end; credit moved off a window close %llu times",
	       SURAND_TEST_JITTER_RUN_LEN, SURAND_TEST_JITTER_RUN_AT, (unsigned long long)(n - 1),
	       (unsigned long long)at2048, (unsigned long long)at3072, (unsigned long long)prev,
	       (unsigned long long)moved_off_close);
	T_ASSERT_MSG(!bad, "%s", bad);
	T_ASSERT_EQ_U64(moved_off_close, 0);
	/* the two qualification windows give nothing; two clean ones did */
	T_ASSERT(at2048 > 0);
	/* the alarmed window [2048, 2560) and the held-off [2560, 3072): nothing */
	T_ASSERT_EQ_U64(at3072, at2048);
	T_ASSERT(prev > at3072);
	T_ASSERT_EQ_U64(e1.c.windows_alarmed - e0.c.windows_alarmed, 1);
	T_ASSERT_EQ_U64(e1.c.health_rct - e0.c.health_rct, 1);
	T_ASSERT(!e1.disabled);
	surand_test_jitter_fault(SURAND_TEST_JITTER_NONE);
	surand_test_entropy_health_reset(SURAND_ES_JITTER);
	all_sources_back();
}

/*
 * A timer that qualifies, then turns regular at delta 2048: the alarms
 * disable it before its window closes; nothing is credited from that window
 * or after, and it is never sampled again.
 */
static void jitter_nothing_after_disable(void)
{
	struct surand_entropy_source_stats e0, e1, e2;
	uint64_t at2048 = 0, n;
	const char *bad;
	int ok, i;

	surand_test_entropy_source_set(SURAND_ES_CPU, 0);
	surand_test_entropy_health_reset(SURAND_ES_JITTER);
	surand_test_jitter_fault(SURAND_TEST_JITTER_SIM_TURNS_REGULAR);
	surand_test_jitter_round_max(1); /* so the count passes 2048 exactly */
	e0 = src_stats(SURAND_ES_JITTER);
	do {
		surand_entropy_collect();
		e1 = src_stats(SURAND_ES_JITTER);
		if (e1.c.samples - e0.c.samples == SURAND_TEST_JITTER_REGULAR_AT)
			at2048 = e1.c.credited - e0.c.credited;
	} while (!e1.disabled && e1.c.samples - e0.c.samples < 8 * JQ_DELTAS);
	surand_test_jitter_round_max(0);
	/* disabled: rounds skip it, nothing more is sampled or credited */
	for (i = 0; i < 10; i++)
		surand_entropy_collect();
	e2 = src_stats(SURAND_ES_JITTER);
	n = e1.c.samples - e0.c.samples;
	bad = jq_invariants(&e0, &e2);
	ok = !bad && e1.disabled && at2048 > 0 && e1.c.credited - e0.c.credited == at2048 &&
	     e2.c.credited == e1.c.credited && e2.c.samples == e1.c.samples &&
	     e2.c.skipped == e1.c.skipped + 10 && n < SURAND_TEST_JITTER_REGULAR_AT + JQ_WINDOW;
	jq_row("turns-regular", ok,
	       "simulated timer healthy up to delta %u, then one value: disabled after %llu deltas "
	       "(%llu RCT / %llu APT alarms), %llu bits credited, all before delta %u; none in 10 "
	       "rounds after",
	       SURAND_TEST_JITTER_REGULAR_AT, (unsigned long long)n,
	       (unsigned long long)(e1.c.health_rct - e0.c.health_rct),
	       (unsigned long long)(e1.c.health_apt - e0.c.health_apt),
	       (unsigned long long)(e1.c.credited - e0.c.credited), SURAND_TEST_JITTER_REGULAR_AT);
	T_ASSERT_MSG(!bad, "%s", bad);
	T_ASSERT(e1.disabled);
	T_ASSERT(at2048 > 0);
	/* its window [2048, 2560) never closed clean: nothing from it */
	T_ASSERT(n < SURAND_TEST_JITTER_REGULAR_AT + JQ_WINDOW);
	T_ASSERT_EQ_U64(e1.c.credited - e0.c.credited, at2048);
	T_ASSERT(e1.c.health_rct + e1.c.health_apt - e0.c.health_rct - e0.c.health_apt >=
		 SURAND_HEALTH_MAX_ALARMS);
	T_ASSERT_EQ_U64(e2.c.credited, e1.c.credited);
	T_ASSERT_EQ_U64(e2.c.samples, e1.c.samples);
	T_ASSERT_EQ_U64(e2.c.skipped, e1.c.skipped + 10);
	/* everything else works */
	T_ASSERT(surand_reseed() == 0);
	surand_test_jitter_fault(SURAND_TEST_JITTER_NONE);
	surand_test_entropy_health_reset(SURAND_ES_JITTER);
	all_sources_back();
}

/* SP 800-90B's sample count for a source's assessment: 10^6 real deltas. */
#define JITTER_REAL_DELTAS 1000000ull

/*
 * The real timer: whether it qualifies depends on the machine (CPU,
 * hypervisor, clock source), so this asserts only what holds everywhere:
 * nothing before the verdict, the accounting invariants, and nothing when
 * disqualified or after a disable.  "Disqualified, 0 bits" is a pass.
 */
static void jitter_source_real(void)
{
	struct surand_entropy_source_stats e0, e1, e2;
	uint64_t n, rounds = 0;
	const char *bad;
	double t0, dt;
	int early = 0, ok, i;

	surand_test_entropy_source_set(SURAND_ES_CPU, 0);
	surand_test_entropy_health_reset(SURAND_ES_JITTER);
	e0 = src_stats(SURAND_ES_JITTER);
	t0 = t_now_s();
	surand_entropy_collect();
	/* bounded: one round is 64 deltas or 200 us (plus a preemption) */
	dt = t_now_s() - t0;
	T_ASSERT_MSG(dt < 0.5, "one jitter round took %.3f s", dt);
	t0 = t_now_s();
	do {
		surand_entropy_collect();
		rounds++;
		e1 = src_stats(SURAND_ES_JITTER);
		if (e1.q.state == SURAND_QUAL_PENDING && e1.c.credited != e0.c.credited)
			early = 1;
	} while (e1.c.samples - e0.c.samples < JITTER_REAL_DELTAS && !e1.disabled);
	dt = t_now_s() - t0;
	n = e1.c.samples - e0.c.samples;
	/* a disabled source is sampled no more, and earns nothing more */
	for (i = 0; i < 4; i++)
		surand_entropy_collect();
	e2 = src_stats(SURAND_ES_JITTER);
	bad = jq_invariants(&e0, &e2);
	printf("# jitter: %llu real deltas in %llu rounds, %.2f s: %s%s%s (estimate %u.%03u bit per "
	       "delta by SP 800-90B 6.3.1 over the first 1024, %u of them stuck, %u zero, %u "
	       "backwards); %llu bits credited, %llu RCT / %llu APT alarms, %llu clean / %llu "
	       "alarmed windows%s\n",
	       (unsigned long long)n, (unsigned long long)rounds, dt,
	       e1.q.state == SURAND_QUAL_QUALIFIED ? "qualified" : "disqualified",
	       e1.q.reason ? ": " : "", e1.q.reason_name, e1.q.h_estimate_millibits / 1000,
	       e1.q.h_estimate_millibits % 1000, e1.q.stuck, e1.q.zero_deltas, e1.q.backwards,
	       (unsigned long long)(e1.c.credited - e0.c.credited),
	       (unsigned long long)(e1.c.health_rct - e0.c.health_rct),
	       (unsigned long long)(e1.c.health_apt - e0.c.health_apt),
	       (unsigned long long)(e1.c.windows_clean - e0.c.windows_clean),
	       (unsigned long long)(e1.c.windows_alarmed - e0.c.windows_alarmed),
	       e1.disabled ? "; disabled by the alarms" : "");
	ok = !early && !bad && e1.q.state != SURAND_QUAL_PENDING &&
	     (e1.q.state == SURAND_QUAL_QUALIFIED || e2.c.credited == e0.c.credited) &&
	     (!e1.disabled || (e2.c.samples == e1.c.samples && e2.c.credited == e1.c.credited)) &&
	     (e1.disabled || n >= JITTER_REAL_DELTAS);
	jq_row(e1.q.state == SURAND_QUAL_QUALIFIED ? "real-timer qualified" : "real-timer disqualified",
	       ok, "this machine's timer, %llu deltas: %s%s%s, estimate %u.%03u bit/delta, %llu bits "
	       "credited, %llu alarms%s",
	       (unsigned long long)n, e1.q.state == SURAND_QUAL_QUALIFIED ? "qualified" : "disqualified",
	       e1.q.reason ? " " : "", e1.q.reason_name, e1.q.h_estimate_millibits / 1000,
	       e1.q.h_estimate_millibits % 1000, (unsigned long long)(e1.c.credited - e0.c.credited),
	       (unsigned long long)(e1.c.health_rct + e1.c.health_apt - e0.c.health_rct -
				    e0.c.health_apt),
	       e1.disabled ? ", disabled" : "");
	T_ASSERT_MSG(!early, "credit before the qualification ended");
	T_ASSERT_MSG(!bad, "%s", bad);
	T_ASSERT(e1.q.state != SURAND_QUAL_PENDING);
	T_ASSERT_EQ_U64(e1.q.samples, JQ_DELTAS);
	T_ASSERT_EQ_U64(e1.c.failures, e0.c.failures);
	if (e1.q.state == SURAND_QUAL_DISQUALIFIED) {
		T_ASSERT(e1.q.reason != 0 && e1.q.reason_name[0] != 0);
		T_ASSERT_EQ_U64(e2.c.credited, e0.c.credited);
	}
	if (e1.disabled) {
		T_ASSERT_EQ_U64(e2.c.samples, e1.c.samples);
		T_ASSERT_EQ_U64(e2.c.credited, e1.c.credited);
	} else {
		T_ASSERT(n >= JITTER_REAL_DELTAS);
	}
	surand_test_entropy_health_reset(SURAND_ES_JITTER);
	all_sources_back();
}
/* A round stops once 200 us have passed, at most one delta late. */
static void jitter_round_keeps_its_time_budget(void)
{
	struct surand_entropy_source_stats e0, e1;
	const uint64_t slow_ns = 50000; /* 64 such deltas: 3.2 ms */
	uint64_t n, most = 0;
	double t0, dt, worst = 0;
	int i;

	surand_test_entropy_source_set(SURAND_ES_CPU, 0);
	surand_test_entropy_health_reset(SURAND_ES_JITTER);
	surand_test_jitter_slow(slow_ns);
	for (i = 0; i < 10; i++) {
		e0 = src_stats(SURAND_ES_JITTER);
		t0 = t_now_s();
		surand_entropy_collect();
		dt = t_now_s() - t0;
		e1 = src_stats(SURAND_ES_JITTER);
		n = e1.c.samples - e0.c.samples;
		/* after 4 deltas at least 4 x 50 us have passed: over budget */
		T_ASSERT_MSG(n >= 1 && n <= 200000 / slow_ns, "round %d: %llu slow deltas", i,
			     (unsigned long long)n);
		T_ASSERT_EQ_U64(e1.c.bytes - e0.c.bytes, 8 * n);
		if (n > most)
			most = n;
		if (dt > worst)
			worst = dt;
	}
	surand_test_jitter_slow(0);
	printf("# jitter with 50 us deltas: at most %llu deltas per round, slowest round %.0f us\n",
	       (unsigned long long)most, worst * 1e6);
	/* 64 deltas would take 3.2 ms; a preemption may add to one round */
	T_ASSERT_MSG(worst < 0.5, "a slow jitter round took %.3f s", worst);
	/* and a scheduled reseed with the slow source is bounded the same way */
	surand_test_jitter_slow(slow_ns);
	e0 = src_stats(SURAND_ES_JITTER);
	T_ASSERT(timer_reseed() == 0);
	e1 = src_stats(SURAND_ES_JITTER);
	surand_test_jitter_slow(0);
	n = e1.c.samples - e0.c.samples;
	T_ASSERT_MSG(n >= 1 && n <= 200000 / slow_ns, "the reseed's round took %llu slow deltas",
		     (unsigned long long)n);
	surand_test_entropy_health_reset(SURAND_ES_JITTER);
	all_sources_back();
}

/*
 * A sampler that hangs (held here through the single-sampler flag, as a
 * thread stuck in a source would hold it): a scheduled reseed goes on
 * without sampling, raises the sources' skipped counters and returns at
 * once.  In a child with a time limit, so a reseed that waited shows as a
 * failure, not as a hung test.
 */
static void sampler_held_body(void)
{
	struct surand_entropy_source_stats j0, c0, j1, c1;
	uint8_t x[16];
	double t0, dt;
	int r;

	surand_bytes(x, sizeof(x)); /* the fork child's own re-seed first */
	j0 = src_stats(SURAND_ES_JITTER);
	c0 = src_stats(SURAND_ES_CPU);
	surand_test_entropy_hold_sampler(1);
	t0 = t_now_s();
	r = timer_reseed();
	dt = t_now_s() - t0;
	j1 = src_stats(SURAND_ES_JITTER);
	c1 = src_stats(SURAND_ES_CPU);
	surand_test_entropy_hold_sampler(0);
	T_ASSERT_MSG(r == 0, "no scheduled reseed happened");
	T_ASSERT_MSG(dt < 0.5, "a reseed with the sampler held took %.3f s", dt);
	T_ASSERT_EQ_U64(j1.c.samples, j0.c.samples);
	T_ASSERT_EQ_U64(c1.c.samples, c0.c.samples);
	T_ASSERT_EQ_U64(j1.c.skipped, j0.c.skipped + 1);
	T_ASSERT_EQ_U64(c1.c.skipped, c0.c.skipped + 1);
	/* released, the next scheduled reseed samples again */
	T_ASSERT(timer_reseed() == 0);
	T_ASSERT(src_stats(SURAND_ES_JITTER).c.samples > j1.c.samples);
}

static void reseed_never_waits_for_a_hung_sampler(void)
{
	(void)t_in_child(sampler_held_body, 30);
}

static void cpu_rng_absent_failing_stuck(void)
{
	struct surand_entropy_source_stats e0, e1;
	uint8_t out[64];
	double t0, dt;
	int i;

	surand_test_entropy_source_set(SURAND_ES_JITTER, 0);
	setenv("SURAND_TRUST_CPU", "1", 1);
	surand_test_config_reload();

	/* absent: skipped, nothing sampled, everything works */
	surand_test_entropy_health_reset(SURAND_ES_CPU);
	surand_test_cpu_rng_fault(SURAND_TEST_CPU_RNG_ABSENT);
	e0 = src_stats(SURAND_ES_CPU);
	T_ASSERT_EQ_U64(e0.available, 0);
	for (i = 0; i < 3; i++)
		surand_entropy_collect();
	T_ASSERT(timer_reseed() == 0 && surand_reseed() == 0);
	surand_bytes(out, sizeof(out));
	e1 = src_stats(SURAND_ES_CPU);
	T_ASSERT_EQ_U64(e1.c.samples, e0.c.samples);
	T_ASSERT(e1.c.skipped >= e0.c.skipped + 4);

	/* failing: counted, bounded, nothing credited.  The fault stands in for
	 * both instructions (present, never any data), on any CPU. */
	surand_test_cpu_rng_fault(SURAND_TEST_CPU_RNG_FAILING);
	e0 = src_stats(SURAND_ES_CPU);
	T_ASSERT_EQ_U64(e0.available, 1);
	t0 = t_now_s();
	for (i = 0; i < 3; i++)
		surand_entropy_collect();
	dt = t_now_s() - t0;
	T_ASSERT(timer_reseed() == 0 && surand_reseed() == 0);
	surand_bytes(out, sizeof(out));
	e1 = src_stats(SURAND_ES_CPU);
	/* 4 words a round, each tried on RDSEED, then on RDRAND */
	T_ASSERT(e1.c.failures >= e0.c.failures + 3 * 4 * 2);
	T_ASSERT_EQ_U64(e1.c.samples, e0.c.samples);
	T_ASSERT_EQ_U64(e1.c.bytes, e0.c.bytes);
	T_ASSERT_EQ_U64(e1.c.credited, e0.c.credited);
	T_ASSERT_MSG(dt < 0.5, "3 rounds with a failing RDSEED took %.3f s", dt);

	/* stuck: health alarms, disabled (RDSEED, then RDRAND), never credited
	 * even when trusted */
	surand_test_cpu_rng_fault(SURAND_TEST_CPU_RNG_STUCK);
	surand_test_entropy_health_reset(SURAND_ES_CPU);
	e0 = src_stats(SURAND_ES_CPU);
	T_ASSERT_EQ_U64(e0.available, 1);
	for (i = 0; i < 10; i++)
		surand_entropy_collect();
	e1 = src_stats(SURAND_ES_CPU);
	T_ASSERT(e1.c.health_rct >= e0.c.health_rct + 2 * SURAND_HEALTH_MAX_ALARMS);
	T_ASSERT(e1.disabled);
	T_ASSERT(e1.c.bytes > e0.c.bytes); /* mixed while it ran */
	T_ASSERT_EQ_U64(e1.c.credited, e0.c.credited);
	/* disabled: no longer sampled */
	surand_entropy_collect();
	T_ASSERT_EQ_U64(src_stats(SURAND_ES_CPU).c.samples, e1.c.samples);
	T_ASSERT_EQ_U64(src_stats(SURAND_ES_CPU).c.skipped, e1.c.skipped + 1);
	T_ASSERT(timer_reseed() == 0 && surand_reseed() == 0);
	surand_bytes(out, sizeof(out));
	surand_test_cpu_rng_fault(SURAND_TEST_CPU_RNG_NONE);
	surand_test_entropy_health_reset(SURAND_ES_CPU);
	unsetenv("SURAND_TRUST_CPU");
	surand_test_config_reload();
	all_sources_back();
}

static void cpu_rng_credited_only_when_trusted(void)
{
	const struct surand_cpu_features *f = surand_cpu_features();
	struct surand_entropy_source_stats e0, e1;
	int i;

	surand_test_entropy_source_set(SURAND_ES_JITTER, 0);
	if (!f->rdseed && !f->rdrand) {
		/* nothing to credit here: the source reports itself absent */
		e0 = src_stats(SURAND_ES_CPU);
		surand_entropy_collect();
		e1 = src_stats(SURAND_ES_CPU);
		T_ASSERT_EQ_U64(e1.available, 0);
		T_ASSERT_EQ_U64(e1.c.samples, e0.c.samples);
		T_ASSERT_EQ_U64(e1.c.skipped, e0.c.skipped + 1);
		all_sources_back();
		return;
	}
	surand_test_entropy_health_reset(SURAND_ES_CPU);
	unsetenv("SURAND_TRUST_CPU");
	surand_test_config_reload();
	e0 = src_stats(SURAND_ES_CPU);
	for (i = 0; i < 40; i++)
		surand_entropy_collect();
	e1 = src_stats(SURAND_ES_CPU);
	/* not trusted: mixed, never credited */
	T_ASSERT(e1.c.samples > e0.c.samples);
	T_ASSERT_EQ_U64(e1.c.bytes - e0.c.bytes, 8 * (e1.c.samples - e0.c.samples));
	T_ASSERT_EQ_U64(e1.c.credited, e0.c.credited);
	/* trusted: RDSEED words that passed earn 32 bits each */
	setenv("SURAND_TRUST_CPU", "1", 1);
	surand_test_config_reload();
	e0 = e1;
	for (i = 0; i < 40; i++)
		surand_entropy_collect();
	e1 = src_stats(SURAND_ES_CPU);
	T_ASSERT_EQ_U64((e1.c.credited - e0.c.credited) % 32, 0);
	T_ASSERT(e1.c.credited - e0.c.credited <= 32 * (e1.c.samples - e0.c.samples));
	if (f->rdseed && e1.c.failures == e0.c.failures && !e1.disabled)
		T_ASSERT_MSG(e1.c.credited > e0.c.credited, "trusted RDSEED earned no credit");
	unsetenv("SURAND_TRUST_CPU");
	surand_test_config_reload();
	all_sources_back();
}

/* RDRAND words are mixed and health-tested, never credited, even trusted:
 * RDSEED absent, RDRAND answering (a test stand-in, on any CPU). */
static void cpu_rng_rdrand_never_credited(void)
{
	struct surand_entropy_source_stats e0, e1;

	surand_test_entropy_source_set(SURAND_ES_JITTER, 0);
	surand_test_cpu_rng_fault(SURAND_TEST_CPU_RNG_RDRAND_ONLY);
	surand_test_entropy_health_reset(SURAND_ES_CPU);
	setenv("SURAND_TRUST_CPU", "1", 1);
	surand_test_config_reload();
	e0 = src_stats(SURAND_ES_CPU);
	for (int i = 0; i < 40; i++) /* 160 words: past the 64-word start-up */
		surand_entropy_collect();
	e1 = src_stats(SURAND_ES_CPU);
	T_ASSERT_EQ_U64(e1.c.samples - e0.c.samples, 160);
	T_ASSERT_EQ_U64(e1.c.bytes - e0.c.bytes, 8 * 160);
	T_ASSERT_EQ_U64(e1.c.failures, e0.c.failures);
	T_ASSERT(!e1.disabled);
	T_ASSERT_MSG(e1.c.credited == e0.c.credited, "trusted RDRAND words earned %llu bits",
		     (unsigned long long)(e1.c.credited - e0.c.credited));
	surand_test_cpu_rng_fault(SURAND_TEST_CPU_RNG_NONE);
	surand_test_entropy_health_reset(SURAND_ES_CPU);
	unsetenv("SURAND_TRUST_CPU");
	surand_test_config_reload();
	all_sources_back();
}

static void scheduled_reseeds_sample_the_sources(void)
{
	struct surand_entropy_source_stats j0, c0, j1, c1;

	surand_test_entropy_health_reset(SURAND_ES_JITTER);
	j0 = src_stats(SURAND_ES_JITTER);
	c0 = src_stats(SURAND_ES_CPU);
	/* a forced reseed stays cheap: no sampling */
	T_ASSERT(surand_reseed() == 0);
	T_ASSERT_EQ_U64(src_stats(SURAND_ES_JITTER).c.samples, j0.c.samples);
	/* a scheduled one samples */
	T_ASSERT(timer_reseed() == 0);
	j1 = src_stats(SURAND_ES_JITTER);
	c1 = src_stats(SURAND_ES_CPU);
	T_ASSERT(j1.c.samples > j0.c.samples);
	T_ASSERT(c1.c.samples + c1.c.failures + c1.c.skipped > c0.c.samples + c0.c.failures + c0.c.skipped);
	/* a source switched off is not sampled */
	surand_test_entropy_source_set(SURAND_ES_JITTER, 0);
	T_ASSERT(timer_reseed() == 0);
	T_ASSERT_EQ_U64(src_stats(SURAND_ES_JITTER).c.samples, j1.c.samples);
	T_ASSERT_EQ_U64(src_stats(SURAND_ES_JITTER).on, 0);
	all_sources_back();
}

/* The pool joins a scheduled reseed too, and the reseed counts as a timer one. */
static void catastrophic_at_scheduled_reseed(void)
{
	uint8_t buf[32];
	struct surand_stats s0, s1;

	quiet_sources();
	T_ASSERT(drain_credit() == 0);
	t_randbytes(&rng, buf, sizeof(buf));
	T_ASSERT(surand_add_entropy(buf, sizeof(buf), 256) == 0);
	s0 = stats();
	T_ASSERT(timer_reseed() == 0);
	s1 = stats();
	T_ASSERT_EQ_U64(surand_test_entropy_last_reseed_pooled(), 1);
	T_ASSERT_EQ_U64(s1.reseeds_catastrophic, s0.reseeds_catastrophic + 1);
	T_ASSERT_EQ_U64(s1.pool_credit_bits, 0);
	all_sources_back();
}

static void entropy_off_unknown(void)
{
	setenv("SURAND_ENTROPY_OFF", "app,bogus,events", 1);
	surand_test_config_reload();
}

static void environment_switches(void)
{
	uint8_t d0[32], d1[32], buf[16] = { 9 };
	struct surand_stats s0;
	char err[512];

	quiet_sources();
	T_ASSERT(capture_stderr(entropy_off_unknown, err, sizeof(err)) > 0);
	T_ASSERT_MSG(strstr(err, "SURAND_ENTROPY_OFF: unknown source \"bogus\"") != NULL, "%s", err);
	T_ASSERT_EQ_U64(surand_entropy_off(), (1u << SURAND_ES_APP) | (1u << SURAND_ES_EVENTS));
	T_ASSERT(drain_credit() == 0);
	T_ASSERT(surand_test_entropy_pool_digest(d0) == 0);
	s0 = stats();
	/* app off: accepted (0), but neither mixed nor credited */
	T_ASSERT(surand_add_entropy(buf, sizeof(buf), 64) == 0);
	surand_add_event(1);
	T_ASSERT(surand_test_entropy_pool_digest(d1) == 0);
	T_ASSERT_MEM_EQ(d0, d1, 32);
	T_ASSERT_EQ_U64(surand_pool_credit_bits(), 0);
	T_ASSERT_EQ_U64(stats().events, s0.events);
	/* bad input is still refused */
	T_ASSERT(surand_add_entropy(buf, 1, 9) == -1 && errno == EINVAL);
	/* back on */
	unsetenv("SURAND_ENTROPY_OFF");
	surand_test_config_reload();
	T_ASSERT_EQ_U64(surand_entropy_off(), 0);
	T_ASSERT(surand_add_entropy(buf, sizeof(buf), 64) == 0);
	T_ASSERT_EQ_U64(surand_pool_credit_bits(), 64);
	surand_add_event(1);
	T_ASSERT_EQ_U64(stats().events, s0.events + 1);
	all_sources_back();
}

/* ==== the public per-source stats (surand_source_stats) ======================== */

static struct surand_source_stats pub_stats(void)
{
	struct surand_source_stats s;

	memset(&s, 0, sizeof(s));
	(void)surand_source_stats(&s, sizeof(s));
	return s;
}

/* 1 when the public entry says what the internal counters say. */
static int pub_matches_internal(const struct surand_source_stat *p, int src)
{
	struct surand_entropy_source_stats e = src_stats(src);

	return p->enabled == e.on && p->available == e.available && p->disabled == e.disabled &&
	       p->credit_paused == e.credit_paused && p->samples == e.c.samples &&
	       p->bytes == e.c.bytes && p->credited_bits == e.c.credited &&
	       p->failures == e.c.failures && p->skipped == e.c.skipped &&
	       p->health_rct == e.c.health_rct && p->health_apt == e.c.health_apt &&
	       p->overflow == e.c.overflow;
}

/* 1 when the public qualification entry says what the internal stats say. */
static int pub_qual_matches_internal(const struct surand_source_qual *p, int src)
{
	struct surand_entropy_source_stats e = src_stats(src);

	return memcmp(p, &e.q, sizeof(*p)) == 0 &&
	       (src != SURAND_ES_JITTER ||
		(p->stuck_total == e.c.stuck && p->counted == e.c.counted &&
		 p->windows_clean == e.c.windows_clean && p->windows_alarmed == e.c.windows_alarmed));
}

/* Bytes of b from off on that still hold the fill byte. */
static int untouched_from(const unsigned char *b, size_t off, size_t end, unsigned char fill)
{
	for (; off < end; off++)
		if (b[off] != fill)
			return 0;
	return 1;
}

static void source_stats_size_and_bad_input(void)
{
	static const char *const names[] = { "kernel", "cpu", "jitter", "app", "events" };
	static union {
		struct surand_source_stats s;
		unsigned char b[sizeof(struct surand_source_stats) + 32];
	} u;
	const size_t full = sizeof(struct surand_source_stats);
	const size_t one = offsetof(struct surand_source_stats, source[1]);
	const size_t v1 = offsetof(struct surand_source_stats, qual);
	unsigned i;

	/* as surand_stats: NULL or a size without the header is EINVAL */
	errno = 0;
	T_ASSERT(surand_source_stats(NULL, full) == -1 && errno == EINVAL);
	errno = 0;
	T_ASSERT(surand_source_stats(&u.s, 0) == -1 && errno == EINVAL);
	errno = 0;
	T_ASSERT(surand_source_stats(&u.s, 7) == -1 && errno == EINVAL);
	/* an older, shorter struct: exactly size bytes are written */
	memset(u.b, 0xa5, sizeof(u.b));
	T_ASSERT(surand_source_stats(&u.s, 8) == 0);
	T_ASSERT_EQ_U64(u.s.size, 8);
	T_ASSERT_EQ_U64(u.s.version, 2);
	T_ASSERT(untouched_from(u.b, 8, sizeof(u.b), 0xa5));
	memset(u.b, 0xa5, sizeof(u.b));
	T_ASSERT(surand_source_stats(&u.s, one) == 0);
	T_ASSERT_EQ_U64(u.s.size, one);
	T_ASSERT(strcmp(u.s.source[0].name, "kernel") == 0);
	T_ASSERT(untouched_from(u.b, one, sizeof(u.b), 0xa5));
	/* a version-1 caller (up to source[]): qual[] is not written */
	memset(u.b, 0xa5, sizeof(u.b));
	T_ASSERT(surand_source_stats(&u.s, v1) == 0);
	T_ASSERT_EQ_U64(u.s.size, v1);
	T_ASSERT(untouched_from(u.b, v1, sizeof(u.b), 0xa5));
	/* a newer, longer struct: only what this library knows */
	memset(u.b, 0xa5, sizeof(u.b));
	T_ASSERT(surand_source_stats(&u.s, sizeof(u.b)) == 0);
	T_ASSERT_EQ_U64(u.s.size, full);
	T_ASSERT(untouched_from(u.b, full, sizeof(u.b), 0xa5));
	/* one entry per source, in order, named as SURAND_ENTROPY_OFF names them */
	T_ASSERT_EQ_U64(u.s.nsources, SURAND_ES_COUNT);
	T_ASSERT_EQ_U64(sizeof(names) / sizeof(names[0]), SURAND_ES_COUNT);
	for (i = 0; i < SURAND_ES_COUNT; i++) {
		T_ASSERT_MSG(strcmp(u.s.source[i].name, names[i]) == 0, "source %u is \"%.16s\"", i,
			     u.s.source[i].name);
		T_ASSERT_MSG(pub_matches_internal(&u.s.source[i], (int)i),
			     "source %s: public and internal counters differ", names[i]);
		T_ASSERT_MSG(pub_qual_matches_internal(&u.s.qual[i], (int)i),
			     "source %s: public and internal qualification differ", names[i]);
	}
	for (; i < SURAND_SOURCES_MAX; i++)
		T_ASSERT(u.s.source[i].name[0] == 0 && u.s.source[i].samples == 0);
	/* only jitter has a power-up qualification */
	for (i = 0; i < SURAND_SOURCES_MAX; i++)
		T_ASSERT_MSG((u.s.qual[i].state == SURAND_QUAL_NONE) == (i != SURAND_ES_JITTER),
			     "qual[%u].state %u", i, u.s.qual[i].state);
	T_ASSERT_EQ_U64(u.s.qual[SURAND_ES_JITTER].h_credited_millibits, 125);
}

static void source_stats_move_with_the_sources(void)
{
	struct surand_source_stats a, b;
	const struct surand_cpu_features *f = surand_cpu_features();
	uint8_t buf[16];
	unsigned count = 99;
	uint64_t i;
	int k;

	quiet_sources();
	T_ASSERT(drain_credit() == 0);
	/* app: one call, its bytes and its credit */
	t_randbytes(&rng, buf, sizeof(buf));
	a = pub_stats();
	T_ASSERT(surand_add_entropy(buf, sizeof(buf), 24) == 0);
	b = pub_stats();
	T_ASSERT_EQ_U64(b.source[SURAND_ES_APP].samples, a.source[SURAND_ES_APP].samples + 1);
	T_ASSERT_EQ_U64(b.source[SURAND_ES_APP].bytes, a.source[SURAND_ES_APP].bytes + 16);
	T_ASSERT_EQ_U64(b.source[SURAND_ES_APP].credited_bits, a.source[SURAND_ES_APP].credited_bits + 24);
	T_ASSERT_EQ_U64(b.pool_credit_bits, 24);
	T_ASSERT_EQ_U64(b.pool_credit_bits, stats().pool_credit_bits);
	/* events: 64 from a spill boundary are one spill of 16 bytes, 1 bit */
	surand_test_fastpool_force_slot(0);
	surand_add_event(1);
	T_ASSERT(surand_test_fastpool_slot(0, &count, NULL) == 0);
	while (count != 0) {
		surand_add_event(t_rand64(&rng));
		T_ASSERT(surand_test_fastpool_slot(0, &count, NULL) == 0);
	}
	a = pub_stats();
	for (i = 0; i < SURAND_FP_SPILL_EVENTS; i++)
		surand_add_event(t_rand64(&rng));
	b = pub_stats();
	surand_test_fastpool_force_slot(-1);
	T_ASSERT_EQ_U64(b.source[SURAND_ES_EVENTS].samples, a.source[SURAND_ES_EVENTS].samples + 64);
	T_ASSERT_EQ_U64(b.source[SURAND_ES_EVENTS].bytes, a.source[SURAND_ES_EVENTS].bytes + 16);
	T_ASSERT_EQ_U64(b.source[SURAND_ES_EVENTS].credited_bits,
			a.source[SURAND_ES_EVENTS].credited_bits + 1);
	/* a catastrophic reseed: counted, the credit spent, one extraction */
	T_ASSERT(surand_add_entropy(buf, sizeof(buf), 128) == 0);
	T_ASSERT(surand_add_entropy(buf, sizeof(buf), 128) == 0);
	a = pub_stats();
	T_ASSERT_EQ_U64(a.pool_credit_bits, 256);
	T_ASSERT(surand_reseed() == 0);
	b = pub_stats();
	T_ASSERT_EQ_U64(b.reseeds_catastrophic, a.reseeds_catastrophic + 1);
	T_ASSERT_EQ_U64(b.reseeds_catastrophic, stats().reseeds_catastrophic);
	T_ASSERT_EQ_U64(b.pool_extractions, a.pool_extractions + 1);
	T_ASSERT_EQ_U64(b.pool_credit_bits, 0);
	/* jitter: off, then sampled by a round */
	T_ASSERT_EQ_U64(b.source[SURAND_ES_JITTER].enabled, 0);
	surand_test_entropy_source_set(SURAND_ES_JITTER, 1);
	surand_test_entropy_health_reset(SURAND_ES_JITTER);
	a = pub_stats();
	T_ASSERT_EQ_U64(a.source[SURAND_ES_JITTER].enabled, 1);
	T_ASSERT_EQ_U64(a.source[SURAND_ES_JITTER].credit_paused, 0); /* no round yet */
	surand_entropy_collect();
	b = pub_stats();
	T_ASSERT(b.source[SURAND_ES_JITTER].samples > a.source[SURAND_ES_JITTER].samples);
	T_ASSERT_EQ_U64(b.source[SURAND_ES_JITTER].bytes - a.source[SURAND_ES_JITTER].bytes,
			8 * (b.source[SURAND_ES_JITTER].samples - a.source[SURAND_ES_JITTER].samples));
	T_ASSERT_EQ_U64(b.source[SURAND_ES_JITTER].credit_paused, 1); /* start-up */
	T_ASSERT_EQ_U64(b.source[SURAND_ES_CPU].skipped, a.source[SURAND_ES_CPU].skipped + 1);
	/* The stuck fault below must be all that the qualification judges: the
	 * round above timed the real counter, which may be coarse (a slow
	 * generic timer on aarch64, an emulator) and be disqualified for that. */
	surand_test_entropy_health_reset(SURAND_ES_JITTER);
	b = pub_stats();
	/* a stuck jitter source: failures counted, disabled for the process */
	surand_test_jitter_fault(SURAND_TEST_JITTER_STUCK);
	for (k = 0; k < 100 && !pub_stats().source[SURAND_ES_JITTER].disabled; k++)
		surand_entropy_collect();
	surand_test_jitter_fault(SURAND_TEST_JITTER_NONE);
	a = pub_stats();
	T_ASSERT_EQ_U64(a.source[SURAND_ES_JITTER].disabled, 1);
	T_ASSERT(a.source[SURAND_ES_JITTER].health_rct >=
		 b.source[SURAND_ES_JITTER].health_rct + SURAND_HEALTH_MAX_ALARMS);
	T_ASSERT_EQ_U64(a.source[SURAND_ES_JITTER].credited_bits, b.source[SURAND_ES_JITTER].credited_bits);
	/* the cpu entry says what this machine has */
	T_ASSERT_EQ_U64(a.source[SURAND_ES_CPU].available, (uint64_t)(f->rdseed || f->rdrand));
	for (k = 0; k < SURAND_ES_COUNT; k++) {
		T_ASSERT_MSG(pub_matches_internal(&a.source[k], k), "source %d: public != internal", k);
		T_ASSERT_MSG(pub_qual_matches_internal(&a.qual[k], k), "source %d: qual public != internal", k);
	}
	/* the stuck timer: disqualified for it at power-up, named in the stats */
	T_ASSERT_EQ_U64(a.qual[SURAND_ES_JITTER].state, SURAND_QUAL_DISQUALIFIED);
	T_ASSERT_EQ_U64(a.qual[SURAND_ES_JITTER].reason, SURAND_DISQ_STUCK);
	T_ASSERT(strcmp(a.qual[SURAND_ES_JITTER].reason_name, "stuck") == 0);
	surand_test_entropy_health_reset(SURAND_ES_JITTER);
	all_sources_back();
}

/* ==== secret buffers outside the pool's state ==================================== */

/* VmFlags of the mapping that holds [p, p + len) whole, or "" (none). */
static void vmflags_of(const void *p, size_t len, char *flags, size_t cap)
{
	char line[512];
	uintptr_t a = (uintptr_t)p, s, e;
	int in = 0;
	FILE *f = fopen("/proc/self/smaps", "r");

	flags[0] = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " ", &s, &e) == 2 && strchr(line, '-') &&
		    strchr(line, '-') < strchr(line, ' ')) {
			in = s <= a && a + len <= e;
		} else if (in && strncmp(line, "VmFlags:", 8) == 0) {
			snprintf(flags, cap, "%s", line + 8);
			break;
		}
	}
	fclose(f);
}

/* 1 when the flags hold fl as a word ("dd", "wf", "dp"). */
static int has_vmflag(const char *flags, const char *fl)
{
	size_t n = strlen(fl);
	const char *p = flags;

	while ((p = strstr(p, fl)) != NULL) {
		if ((p == flags || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\n' || p[n] == 0))
			return 1;
		p++;
	}
	return 0;
}

/*
 * The jitter loop's buffer and the pool's pending digests (the lock-free
 * input of signal handlers) live in wipe-on-fork memory: their mappings are
 * dd (never dumped) and wf or dp (wiped on fork / droppable), and a child
 * made by a raw clone(), which runs no atfork handler, sees them zeroed.
 */
static void secret_buffers_in_wipe_on_fork_memory(void)
{
	const void *pend, *jb;
	size_t plen = 0, jlen = 0;
	char flags[256];
	int status;
	pid_t pid;

	if (surand_secmem_kind() < 0) {
		t_skip("the kernel has neither MAP_DROPPABLE nor MADV_WIPEONFORK (Linux 4.14+): "
		       "the atfork handler wipes instead (test_entropy_fork)", NULL);
		return;
	}
	if (t_wipeonfork_ignored_skip())
		return;
	surand_test_entropy_source_set(SURAND_ES_CPU, 0);
	T_ASSERT(surand_add_entropy("set-up", 6, 0) == 0); /* the pool's page */
	surand_entropy_collect();                          /* the jitter buffer */
	pend = surand_test_entropy_pending_area(&plen);
	jb = surand_test_jitter_buffer(&jlen);
	T_ASSERT(pend != NULL && plen == 32);
	/* the loop's 16 KiB and the qualification's record of 1024 deltas */
	T_ASSERT(jb != NULL && jlen == 16384 + 8 * JQ_DELTAS);
	vmflags_of(pend, plen, flags, sizeof(flags));
	T_ASSERT_MSG(has_vmflag(flags, "dd") && (has_vmflag(flags, "wf") || has_vmflag(flags, "dp")),
		     "pending digests in a mapping with VmFlags:%s", flags[0] ? flags : " (none found)\n");
	vmflags_of(jb, jlen, flags, sizeof(flags));
	T_ASSERT_MSG(has_vmflag(flags, "dd") && (has_vmflag(flags, "wf") || has_vmflag(flags, "dp")),
		     "jitter buffer in a mapping with VmFlags:%s", flags[0] ? flags : " (none found)\n");
	/* something pending (as a signal handler inside the pool leaves it) */
	surand_entropy_nest++;
	T_ASSERT(surand_add_entropy("pending", 7, 8) == 0);
	surand_entropy_nest--;
	T_ASSERT(!t_all_zero(pend, plen));
	T_ASSERT(!t_all_zero(jb, jlen)); /* a round has written it */
	fflush(stdout);
	fflush(stderr);
	/* a raw clone: a child without pthread_atfork handlers */
	pid = (pid_t)syscall(SYS_clone, (long)SIGCHLD, 0L, 0L, 0L, 0L);
	T_ASSERT(pid >= 0);
	if (pid == 0) {
		int r = (t_all_zero(pend, plen) ? 0 : 1) | (t_all_zero(jb, jlen) ? 0 : 2);

		syscall(SYS_exit_group, r);
	}
	T_ASSERT(waitpid(pid, &status, 0) == pid && WIFEXITED(status));
	T_ASSERT_MSG(WEXITSTATUS(status) == 0, "in the clone child, not zeroed:%s%s",
		     (WEXITSTATUS(status) & 1) ? " pending digests" : "",
		     (WEXITSTATUS(status) & 2) ? " jitter buffer" : "");
	/* the parent keeps its pending input: the next lock holder folds it */
	T_ASSERT(!t_all_zero(pend, plen));
	{
		uint8_t d[32];
		unsigned c0 = surand_pool_credit_bits();

		T_ASSERT(surand_test_entropy_pool_digest(d) == 0);
		T_ASSERT(t_all_zero(pend, plen));
		T_ASSERT_EQ_U64(surand_pool_credit_bits(), c0 + 8 > 256 ? 256 : c0 + 8);
		surand_wipe(d, sizeof(d));
	}
	all_sources_back();
}

/* ==== nesting, signals, fork ================================================== */

static void nested_calls_take_the_lock_free_path(void)
{
	uint8_t d0[32], d1[32];

	quiet_sources();
	T_ASSERT(drain_credit() == 0);
	T_ASSERT(surand_test_entropy_pool_digest(d0) == 0);
	/* as a signal handler sees it when it interrupted this thread in the pool */
	surand_entropy_nest++;
	T_ASSERT(surand_add_entropy("nested", 6, 40) == 0);
	T_ASSERT(surand_add_entropy("nested", 6, 40) == 0); /* equal inputs never cancel */
	T_ASSERT_EQ_U64(surand_pool_credit_bits(), 0);       /* pending, not yet folded */
	T_ASSERT(surand_pool_extract(d1, 32) == -EAGAIN);     /* never locks */
	surand_entropy_nest--;
	/* the next lock holder folds it in: data and credit */
	T_ASSERT(surand_test_entropy_pool_digest(d1) == 0);
	T_ASSERT(memcmp(d0, d1, 32) != 0);
	T_ASSERT_EQ_U64(surand_pool_credit_bits(), 80);
	all_sources_back();
}

static volatile sig_atomic_t sig_events;

static void on_alarm(int sig)
{
	uint64_t x = (uint64_t)sig;
	int e = errno;

	surand_add_event(x);
	(void)surand_add_entropy(&x, sizeof(x), 1);
	sig_events = sig_events + 1;
	errno = e;
}

static void signal_handlers_never_deadlock(void)
{
	struct sigaction old;
	struct surand_stats s0, s1;
	uint64_t main_events = 0;
	uint8_t x[32] = {0}; /* mixed in before the first extraction fills it */
	double end;

	s0 = stats();
	sig_events = 0;
	T_ASSERT(alarm_start(on_alarm, 200, &old) == 0);
	end = t_now_s() + (t_quick() ? 0.2 : 0.5);
	while (t_now_s() < end) {
		surand_add_event(main_events++);
		(void)surand_add_entropy(x, sizeof(x), 0);
		(void)surand_pool_extract(x, sizeof(x));
		if ((main_events & 255) == 0) {
			surand_bytes(x, sizeof(x));
			(void)surand_reseed();
		}
	}
	alarm_stop(&old);
	s1 = stats();
	T_ASSERT(sig_events > 0);
	T_ASSERT_EQ_U64(s1.events - s0.events, main_events + (uint64_t)sig_events);
}

/* Fork: the child's pool restarts empty (credit 0) and differs from the parent's. */
static void child_pool_differs(void)
{
	uint8_t p[32], c1[32], c2[32];
	int fds[2], i, status;
	pid_t pid;
	uint8_t msg[40];

	quiet_sources();
	T_ASSERT(surand_add_entropy("parent", 6, 40) == 0);
	T_ASSERT(surand_test_entropy_pool_digest(p) == 0);
	for (i = 0; i < 2; i++) {
		T_ASSERT(pipe(fds) == 0);
		pid = fork();
		T_ASSERT(pid >= 0);
		if (pid == 0) {
			struct surand_stats s;

			close(fds[0]);
			memset(msg, 0, sizeof(msg));
			if (surand_test_entropy_pool_digest(msg) != 0)
				_exit(2);
			surand_stats(&s, sizeof(s));
			memcpy(msg + 32, &s.pool_credit_bits, 8);
			_exit(write(fds[1], msg, sizeof(msg)) == (ssize_t)sizeof(msg) ? 0 : 3);
		}
		close(fds[1]);
		T_ASSERT(read(fds[0], msg, sizeof(msg)) == (ssize_t)sizeof(msg));
		close(fds[0]);
		T_ASSERT(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
		memcpy(i ? c2 : c1, msg, 32);
		{
			uint64_t credit;

			memcpy(&credit, msg + 32, 8);
			T_ASSERT_EQ_U64(credit, 0);
		}
	}
	T_ASSERT(memcmp(p, c1, 32) != 0);
	T_ASSERT(memcmp(p, c2, 32) != 0);
	T_ASSERT(memcmp(c1, c2, 32) != 0);
	/* the parent's pool is untouched by the children */
	T_ASSERT(surand_test_entropy_pool_digest(c1) == 0);
	T_ASSERT_MEM_EQ(p, c1, 32);
	T_ASSERT(surand_pool_credit_bits() >= 40);
	all_sources_back();
}

static void kernel_source_off_keeps_seeding(void)
{
	struct surand_entropy_source_stats k0, k1;
	uint64_t calls0;
	uint8_t out[32];
	int fds[2], status;
	pid_t pid;

	/* in a child, whose pool is set up afresh */
	T_ASSERT(pipe(fds) == 0);
	pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0) {
		int ok;

		close(fds[0]);
		surand_test_entropy_source_set(SURAND_ES_KERNEL, 0);
		k0 = src_stats(SURAND_ES_KERNEL);
		calls0 = surand_test_kernel_calls();
		ok = surand_add_entropy("x", 1, 0) == 0;
		k1 = src_stats(SURAND_ES_KERNEL);
		ok = ok && k1.c.samples == k0.c.samples && k1.c.skipped == k0.c.skipped + 1;
		/* the base key still reseeds from the kernel */
		ok = ok && surand_reseed() == 0 && surand_test_kernel_calls() > calls0;
		surand_bytes(out, sizeof(out));
		surand_test_entropy_source_set(SURAND_ES_KERNEL, 1);
		_exit(ok ? 0 : 1);
	}
	close(fds[1]);
	close(fds[0]);
	T_ASSERT(waitpid(pid, &status, 0) == pid && WIFEXITED(status));
	T_ASSERT_EQ_U64(WEXITSTATUS(status), 0);
	/* switched on, the kernel gives the pool its set-up bytes */
	T_ASSERT(pipe(fds) == 0);
	pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0) {
		k0 = src_stats(SURAND_ES_KERNEL);
		(void)surand_add_entropy("x", 1, 0);
		k1 = src_stats(SURAND_ES_KERNEL);
		_exit(k1.c.bytes == k0.c.bytes + 32 && k1.c.credited == 0 ? 0 : 1);
	}
	close(fds[1]);
	close(fds[0]);
	T_ASSERT(waitpid(pid, &status, 0) == pid && WIFEXITED(status));
	T_ASSERT_EQ_U64(WEXITSTATUS(status), 0);
}

int main(int argc, char **argv)
{
	static const struct t_child_case child_cases[] = {
		{ "rseq_off", child_rseq_off },
		{ NULL, NULL },
	};

	t_init(argc, argv);
	t_child_main(argc, argv, child_cases);
	case_env_save();
	E_RUN(mix_does_not_credit_and_credit_does_not_mix);
	E_RUN(credit_cap_and_bad_input);
	E_RUN(extraction_rekeys_and_never_repeats);
	E_RUN(pool_calls_leave_no_secret_in_vector_registers);
	E_RUN(catastrophic_threshold_255_vs_256);
	E_RUN(catastrophic_threshold_deterministic);
	E_RUN(fastpool_spills_after_64_events);
	E_RUN(fastpool_spills_after_1s);
	E_RUN(fastpool_dropped_during_spill_credits_nothing);
	E_RUN(fastpool_avalanche);
	E_RUN(events_from_8_threads_none_lost);
	E_RUN(fastpool_lock_mode_chosen_at_setup);
	E_RUN(fastpool_spills_own_cpu_slot);
	E_RUN(events_8_threads_and_flusher);
	E_RUN(fastpool_signal_handler_events);
	E_RUN(fastpool_spills_after_64_events_xchg);
	E_RUN(fastpool_spills_after_1s_xchg);
	E_RUN(events_from_8_threads_none_lost_xchg);
	E_RUN(events_8_threads_and_flusher_xchg);
	E_RUN(fastpool_signal_handler_events_xchg);
	E_RUN(fastpool_xchg_mode_when_rseq_off);
	E_RUN(health_cutoffs);
	E_RUN(health_fires_on_stuck_source);
	E_RUN(health_fires_on_biased_source);
	E_RUN(health_quiet_on_healthy_sources);
	E_RUN(health_apt_alarms_at_exactly_c);
	E_RUN(health_policy_startup_holdoff_disable);
	E_RUN(health_mcv_estimate);
	E_RUN(jitter_qualification_simulated);
	E_RUN(jitter_credit_only_when_a_clean_window_closes);
	E_RUN(jitter_nothing_after_disable);
	E_RUN(jitter_source_real);
	E_RUN(jitter_round_keeps_its_time_budget);
	E_RUN(reseed_never_waits_for_a_hung_sampler);
	E_RUN(cpu_rng_absent_failing_stuck);
	E_RUN(cpu_rng_credited_only_when_trusted);
	E_RUN(cpu_rng_rdrand_never_credited);
	E_RUN(scheduled_reseeds_sample_the_sources);
	E_RUN(catastrophic_at_scheduled_reseed);
	E_RUN(environment_switches);
	E_RUN(nested_calls_take_the_lock_free_path);
	E_RUN(signal_handlers_never_deadlock);
	E_RUN(child_pool_differs);
	E_RUN(kernel_source_off_keeps_seeding);
	E_RUN(source_stats_size_and_bad_input);
	E_RUN(source_stats_move_with_the_sources);
	E_RUN(secret_buffers_in_wipe_on_fork_memory);
	return t_done();
}
