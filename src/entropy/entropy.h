/*
 * entropy.h - the input side, inside libsurand (never installed): the
 * entropy pool, the per-CPU fast pools, the noise sources and their health
 * tests, and the catastrophic reseed of the base key.
 *
 * Files (src/entropy/): pool.c (the BLAKE2s entropy pool), fastpool.c (per-CPU
 * fast pools, surand_add_event), health.c (SP 800-90B 4.4 health tests),
 * kernel.c (the kernel: seed source, and a few uncredited bytes for the pool),
 * cpu_rng.c (RDSEED/RDRAND), jitter.c (CPU timing jitter), app.c
 * (surand_add_entropy), source.c (the sources' names, switches and counters),
 * reseed.c (the table of sources, sampling at reseeds, the catastrophic
 * reseed, fork, stats).  docs/entropy.md describes the design.
 *
 * Lock order: base lock (gen/base.c) -> pool lock.  A fast-pool slot lock is
 * only ever tried, never waited for, and is released before the pool lock is
 * taken.  surand_entropy_nest (TLS) is raised before the pool lock is taken,
 * so a signal handler that interrupts the holder takes the lock-free path.
 * SPDX-License-Identifier: MIT
 */
#ifndef SURAND_ENTROPY_H
#define SURAND_ENTROPY_H

#include "internal.h"

/* ---- sources and their switches ------------------------------------------ */
enum surand_entropy_source {
	SURAND_ES_KERNEL = 0, /* getrandom(2): a few uncredited bytes when the pool is set up */
	SURAND_ES_CPU,        /* RDSEED (RDRAND as fallback), x86 only */
	SURAND_ES_JITTER,     /* timing jitter of a short memory-touching loop */
	SURAND_ES_APP,        /* surand_add_entropy() */
	SURAND_ES_EVENTS,     /* surand_add_event(), through the fast pools */
	SURAND_ES_COUNT
};

/* Source names as SURAND_ENTROPY_OFF spells them: "kernel", "cpu", ... */
const char *surand_entropy_source_name(enum surand_entropy_source src) SURAND_HIDDEN;

struct surand_entropy_source_stats;
/*
 * One entropy source, as its file exports it; reseed.c keeps the table and
 * loops over it (the sources never call reseed.c: their names, switches and
 * counters are in source.c, which calls nothing of theirs).  NULL members:
 * nothing to do.
 */
struct surand_input_source {
	enum surand_entropy_source id;
	/* At a sampling round (scheduled and forced reseeds): mix into the pool. */
	void (*collect)(void);
	/* In the fork child (reseed.c's handler, registered at set-up). */
	void (*atfork_child)(void);
	/* What only the source knows: available, disabled, paused, its own counts. */
	void (*stats)(struct surand_entropy_source_stats *out);
#ifdef SURAND_TEST_BUILD
	void (*test_health_reset)(void);
#endif
};
/*
 * The hooks of a sampled source with a health test, named by one convention
 * from its prefix p: surand_<p>_collect, surand_<p>_atfork_child, <p>_stats
 * and, in the test build, surand_test_<p>_health_reset.
 */
#ifdef SURAND_TEST_BUILD
#define SURAND_SOURCE_TEST_HOOK(p) .test_health_reset = surand_test_##p##_health_reset,
#else
#define SURAND_SOURCE_TEST_HOOK(p)
#endif
#define SURAND_SOURCE_HOOKS(p)                                                       \
	.collect = surand_##p##_collect, .atfork_child = surand_##p##_atfork_child, \
	.stats = p##_stats, SURAND_SOURCE_TEST_HOOK(p)

extern const struct surand_input_source surand_source_kernel SURAND_HIDDEN;
extern const struct surand_input_source surand_source_cpu SURAND_HIDDEN;
extern const struct surand_input_source surand_source_jitter SURAND_HIDDEN;
extern const struct surand_input_source surand_source_app SURAND_HIDDEN;
extern const struct surand_input_source surand_source_events SURAND_HIDDEN;

/*
 * source.c: SURAND_ENTROPY_OFF=name[,name...] (kept raw by config.c) turns
 * sources off (bit 1 << src set: off).  The variable is valid once
 * surand_entropy_config() has run.  The kernel stays the base key's seed
 * whatever the switch says: "kernel" off only keeps its bytes out of the
 * entropy pool.
 */
extern unsigned surand_entropy_off_v SURAND_HIDDEN;
void surand_entropy_config(void) SURAND_HIDDEN;
#ifdef SURAND_TEST_BUILD
void surand_entropy_config_reread(void) SURAND_HIDDEN; /* test builds: re-parse the off mask */
#endif
/* The SURAND_ENTROPY_OFF mask (runs surand_entropy_config() first). */
unsigned surand_entropy_off(void) SURAND_HIDDEN;

#ifdef SURAND_TEST_BUILD
extern unsigned surand_entropy_test_off_v SURAND_HIDDEN; /* test override: more off */
#endif
/* The effective off mask; valid once surand_entropy_config() has run. */
static inline unsigned surand_entropy_off_mask(void)
{
	unsigned off = __atomic_load_n(&surand_entropy_off_v, __ATOMIC_RELAXED);
#ifdef SURAND_TEST_BUILD
	off |= __atomic_load_n(&surand_entropy_test_off_v, __ATOMIC_RELAXED);
#endif
	return off;
}
/* 1 when src is switched on (runs surand_entropy_config() first). */
int surand_entropy_source_on(enum surand_entropy_source src) SURAND_HIDDEN;

/* Counters of one source; all relaxed atomics, reset in a fork child. */
struct surand_es_counters {
	uint64_t samples;      /* raw samples taken: words, deltas, calls, events */
	uint64_t bytes;        /* bytes mixed into the entropy pool */
	uint64_t credited;     /* bits credited (before the pool's 256-bit cap) */
	uint64_t failures;     /* the source did not deliver (no data, EAGAIN, ENOMEM) */
	uint64_t skipped;      /* rounds not sampled: off, disabled, busy, absent */
	uint64_t health_rct;   /* repetition count test alarms */
	uint64_t health_apt;   /* adaptive proportion test alarms */
	uint64_t overflow;     /* events: all slots busy, the lock-free path took it */
	uint64_t stuck;        /* jitter: stuck deltas (never counted toward credit) */
	uint64_t counted;      /* jitter: deltas whose credit was granted (clean windows) */
	uint64_t windows_clean;   /* jitter, qualified: windows closed with no alarm */
	uint64_t windows_alarmed; /* jitter, qualified: windows with an alarm: no credit */
};
extern struct surand_es_counters surand_es_cnt[SURAND_ES_COUNT] SURAND_HIDDEN;
/* Fork child: every source's counters back at 0 (source.c). */
void surand_entropy_counters_atfork_child(void) SURAND_HIDDEN;

/* What the tests read per source; surand_source_stats() (surand.h) gives the
 * public copy. */
struct surand_entropy_source_stats {
	struct surand_es_counters c;
	uint32_t on;        /* switched on */
	uint32_t disabled;  /* disabled for the process by repeated health failures */
	uint32_t available; /* usable here (RDSEED/RDRAND present; others 1) */
	uint32_t credit_paused; /* health hold-off or start-up: mixed, not credited */
	struct surand_source_qual q; /* power-up qualification (surand.h); counters copied from c */
};
int surand_entropy_source_stats(enum surand_entropy_source src,
				struct surand_entropy_source_stats *out) SURAND_HIDDEN;

/* ---- pool.c: the entropy pool --------------------------------------------- */
#define SURAND_POOL_MAX_CREDIT_BITS 256u /* the credit is capped here */
#define SURAND_POOL_RESEED_BITS 256u     /* a catastrophic reseed needs this much */
#define SURAND_POOL_EXTRACT_MAX 224u     /* bytes per extraction (4 ChaCha20 blocks - 32) */

/* TLS: > 0 while this thread is inside the pool lock (or about to take it). */
extern __thread unsigned surand_entropy_nest __attribute__((tls_model("initial-exec"))) SURAND_HIDDEN;

/*
 * Mixes len bytes (mix never changes the estimate), then credits credit_bits
 * (capped at 256), in one lock hold, so a credit never precedes its data.
 * Called from a nested context (surand_entropy_nest > 0: a signal handler
 * that interrupted this thread inside the pool), it takes the lock-free path:
 * a digest goes to a pending accumulator folded in by the next lock holder.
 * 0 or -ENOMEM.
 */
int surand_pool_add(const void *buf, size_t len, unsigned credit_bits) SURAND_HIDDEN;
static inline int surand_pool_mix(const void *buf, size_t len)
{
	return surand_pool_add(buf, len, 0);
}
static inline int surand_pool_credit(unsigned bits)
{
	return surand_pool_add((const void *)0, 0, bits);
}
/*
 * Hash-then-expand: BLAKE2s(pool) keys ChaCha20; the first 32 bytes of its
 * stream re-key the pool (so nothing in the new state recovers the old content
 * or this output), the next len bytes (len <= SURAND_POOL_EXTRACT_MAX) are the
 * output.  The credit restarts at 0.  0, -ENOMEM, -EINVAL (len), or -EAGAIN
 * (the page was dropped under us: the pool restarted empty).
 */
int surand_pool_extract(uint8_t *out, size_t len) SURAND_HIDDEN;
/*
 * Extracts len bytes only when at least min_credit bits are credited: 1 when
 * it did, 0 when the credit was short (nothing extracted), or -errno.  Never
 * allocates: a pool never used has no credit.
 */
int surand_pool_extract_if_credited(uint8_t *out, size_t len, unsigned min_credit) SURAND_HIDDEN;
/* Bits credited now (0..256), lock-free. */
unsigned surand_pool_credit_bits(void) SURAND_HIDDEN;
void surand_pool_atfork_child(void) SURAND_HIDDEN;
uint64_t surand_pool_extractions(void) SURAND_HIDDEN;

/* ---- fastpool.c: per-CPU fast pools ---------------------------------------- */
#define SURAND_FP_SPILL_EVENTS 64u             /* spill after this many events ... */
#define SURAND_FP_SPILL_NS 1000000000ull       /* ... or this long since the last spill */
#define SURAND_FP_EVENTS_PER_CREDIT_BIT 64u    /* at most 1 bit per 64 events */
/* The ARX step (4 x 32-bit words, HalfSipHash-style rounds): mixes x into v. */
void surand_fastpool_mix(uint32_t v[4], uint64_t x) SURAND_HIDDEN;
/* Spills the slots that hold events and are older than SURAND_FP_SPILL_NS (trylock only). */
void surand_fastpool_flush_stale(uint64_t now_ns) SURAND_HIDDEN;
uint64_t surand_fastpool_events(void) SURAND_HIDDEN;
uint64_t surand_fastpool_spills(void) SURAND_HIDDEN;
uint64_t surand_fastpool_overflow(void) SURAND_HIDDEN; /* events that took the lock-free path */
unsigned surand_fastpool_nslots(void) SURAND_HIDDEN;
void surand_fastpool_atfork_child(void) SURAND_HIDDEN;

/* ---- health.c: NIST SP 800-90B section 4.4 --------------------------------- */
#define SURAND_HEALTH_ALPHA_LOG2 30u  /* false-positive probability 2^-30 per test */
#define SURAND_HEALTH_APT_WINDOW 512u /* non-binary samples (SP 800-90B 4.4.2) */
enum { SURAND_HEALTH_OK = 0, SURAND_HEALTH_RCT = 1, SURAND_HEALTH_APT = 2 };

struct surand_health {
	uint32_t rct_cutoff, apt_cutoff, apt_window;
	uint32_t rct_run;    /* length of the current run of rct_value (0: none yet) */
	uint64_t rct_value;
	uint64_t apt_value;  /* first sample of the current window */
	uint32_t apt_count;  /* occurrences of apt_value in the window so far */
	uint32_t apt_pos;    /* samples of the window seen; 0: the next one opens a window */
	uint64_t samples, rct_alarms, apt_alarms;
};
/* Claimed min-entropy H = h_num / h_den bits per sample (h_num > 0, h_den > 0). */
void surand_health_init(struct surand_health *h, unsigned h_num, unsigned h_den) SURAND_HIDDEN;
/* Feeds one raw sample: SURAND_HEALTH_OK, or the RCT/APT bits that alarmed. */
int surand_health_feed(struct surand_health *h, uint64_t sample) SURAND_HIDDEN;
/* RCT cut-off C = 1 + ceil(30 / H) (SP 800-90B 4.4.1), computed exactly. */
unsigned surand_health_rct_cutoff(unsigned h_num, unsigned h_den) SURAND_HIDDEN;
/* APT cut-off for window w: see health.c (NIST's 1 + CRITBINOM(w, 2^-H, 1 - alpha),
 * raised where needed so that P(alarm) <= alpha exactly). */
unsigned surand_health_apt_cutoff(unsigned h_num, unsigned h_den, unsigned w) SURAND_HIDDEN;
/* NIST's value alone: 1 + CRITBINOM(w, 2^-H, 1 - 2^-30). */
unsigned surand_health_apt_cutoff_nist(unsigned h_num, unsigned h_den, unsigned w) SURAND_HIDDEN;
/* P(X >= k) for X ~ Binomial(n, p); no libm. */
double surand_health_binom_tail(unsigned n, double p, unsigned k) SURAND_HIDDEN;
/* 2^-x for x >= 0; no libm. */
double surand_health_pow2_neg(double x) SURAND_HIDDEN;
/* -log2(x) for 0 < x <= 1; no libm. */
double surand_health_neg_log2(double x) SURAND_HIDDEN;
/*
 * SP 800-90B 6.3.1, the most common value estimate of n >= 2 samples: min-
 * entropy per sample, in 1/1000 bit (rounded down), from the upper 99% bound
 * of the likeliest value's probability.  Sorts v in place.
 */
unsigned surand_health_mcv_millibits(uint64_t *v, unsigned n) SURAND_HIDDEN;

/*
 * The policy around the tests, per source: start-up (no credit before
 * `startup` samples passed), a hold-off after an alarm (no credit for the next
 * `holdoff` samples), and disabled for the process after
 * SURAND_HEALTH_MAX_ALARMS alarms.  Alarms are counted in the source's
 * counters and reported on stderr only with SURAND_DEBUG=1.
 */
#define SURAND_HEALTH_MAX_ALARMS 3u
struct surand_source_health {
	struct surand_health t;
	uint32_t ready;    /* t initialised */
	uint32_t holdoff;  /* samples still to pass before credit resumes */
	uint32_t holdoff_len;
	uint32_t alarms;
	int disabled;      /* read by stats from other threads: atomic */
};
void surand_source_health_init(struct surand_source_health *sh, unsigned h_num,
			       unsigned h_den, unsigned startup, unsigned holdoff) SURAND_HIDDEN;
/* 1: the sample passed and may be credited; 0: not creditable (alarm, hold-off, disabled). */
int surand_source_health_feed(struct surand_source_health *sh, enum surand_entropy_source src,
			      uint64_t sample) SURAND_HIDDEN;

/* ---- the sources, sampled at scheduled and forced reseeds ----------------- */
/* kernel.c: up to len uncredited bytes for the pool (GRND_NONBLOCK); bytes given. */
size_t surand_kernel_pool_sample(uint8_t *buf, size_t len) SURAND_HIDDEN;
/* cpu_rng.c: a few RDSEED words (RDRAND when RDSEED gives none), bounded retries. */
void surand_cpu_rng_collect(void) SURAND_HIDDEN;
int surand_cpu_rng_available(void) SURAND_HIDDEN;
int surand_cpu_rng_disabled(void) SURAND_HIDDEN;
int surand_cpu_rng_paused(void) SURAND_HIDDEN;
void surand_cpu_rng_atfork_child(void) SURAND_HIDDEN;
/* jitter.c: a few timing deltas, bounded in count and time. */
void surand_jitter_collect(void) SURAND_HIDDEN;
int surand_jitter_disabled(void) SURAND_HIDDEN;
int surand_jitter_paused(void) SURAND_HIDDEN;
/* The power-up qualification: state, reason and the qualification counts
 * (the counters from surand_es_cnt are the caller's). */
void surand_jitter_qual(struct surand_source_qual *q) SURAND_HIDDEN;
void surand_jitter_atfork_child(void) SURAND_HIDDEN;
/* app.c: bytes given to surand_add_entropy() (valid or switched off). */
uint64_t surand_app_bytes_given(void) SURAND_HIDDEN;
void surand_app_atfork_child(void) SURAND_HIDDEN;
#ifdef SURAND_TEST_BUILD
void surand_test_cpu_rng_health_reset(void) SURAND_HIDDEN;
void surand_test_jitter_health_reset(void) SURAND_HIDDEN;
/* Test hooks of the input side beyond src/test_hooks.h (tests include this
 * header too).  Every jitter delta takes at least ns longer (0: off): a slow
 * or preempted source, against the round's time budget. */
void surand_test_jitter_slow(uint64_t ns) SURAND_HIDDEN;
/* At most n deltas per sampling round (0: the normal 64): lets a test step
 * through the credit accounting one delta at a time. */
void surand_test_jitter_round_max(unsigned n) SURAND_HIDDEN;
/* Where the secret buffers outside the pool's state are (NULL, *len 0: not
 * mapped yet): the jitter loop's buffer, the pool's pending digests. */
const void *surand_test_jitter_buffer(size_t *len) SURAND_HIDDEN;
const void *surand_test_entropy_pending_area(size_t *len) SURAND_HIDDEN;
/* The pool's hash state (chain value and pending block: the next extraction
 * key after a re-key), read-only, or NULL before the pool is mapped. */
const void *surand_test_entropy_pool_area(size_t *len) SURAND_HIDDEN;
/* on = 1 holds the single-sampler flag, as a sampler stuck in a hanging
 * source would; 0 releases it. */
void surand_test_entropy_hold_sampler(int on) SURAND_HIDDEN;
#endif

#ifdef SURAND_TEST_BUILD
/* kernel.c: 1 in deterministic test mode (the pool then mixes no pid/time). */
int surand_kernel_deterministic(void) SURAND_HIDDEN;
#endif

/* ---- reseed.c: the join with the base key ----------------------------------- */
/*
 * At the ENTROPY-HOOK of gen/base.c's reseed, base lock held.  With sample
 * (scheduled reseeds), the sources are sampled first (bounded; a busy or
 * failing source is skipped).
 * When at least SURAND_POOL_RESEED_BITS are credited, 32 extracted pool bytes
 * are XORed into k (a catastrophic reseed) and 1 is returned; else 0, and k is
 * untouched.
 */
int surand_entropy_reseed_hook(uint32_t k[8], int sample) SURAND_HIDDEN;
/*
 * The catastrophic-reseed rule itself, for any consumer (the hook above, the
 * 2015 designs' input pool): with sample, the sources are sampled first; when
 * at least SURAND_POOL_RESEED_BITS are credited, 32 pool bytes go to out and
 * 1 is returned; else 0 (out wiped).  The hook counts what it uses as a
 * catastrophic reseed; the input pool's pulls count in pool_extractions.
 */
int surand_entropy_catastrophic(uint8_t out[32], int sample) SURAND_HIDDEN;
/* Samples the sources now (what the hook does with sample set). */
void surand_entropy_collect(void) SURAND_HIDDEN;
/* Fork child: locks, state, counters.  Registered with pthread_atfork by
 * surand_entropy_atfork_register() at the first set-up of any state. */
void surand_entropy_atfork_child(void) SURAND_HIDDEN;
void surand_entropy_atfork_register(void) SURAND_HIDDEN;
/* Fills the input-side fields of the public stats. */
void surand_entropy_stats(struct surand_stats *st) SURAND_HIDDEN;

#endif /* SURAND_ENTROPY_H */
