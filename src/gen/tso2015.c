/*
 * tso2015.c - Ted Ts'o's patch of October 2015, as the 2015 debate describes it
 * (the LWN article; Ts'o's mail of 12 Oct 2015): readers hash the one shared
 * 32-word pool without its lock, as in Spelvin's salted reads, and mix their
 * hash back WITHOUT the lock too, each CPU at its own offset from one shared
 * add_ptr.  SURAND_TSO2015_MIX=atomic is Spelvin's fix: no offsets, and each
 * pool word's change one atomic add.
 *
 * Sections:
 *   1. state
 *   2. the lock-free mixback: the two modes
 *   3. seeding and pulls
 *   4. the read path
 *   5. control, fork, stats, test hooks
 *
 * The 2015 texts do not give the patch's code; the assumptions made here (the
 * offsets, 12 words a CPU; one atomic add reserves a writer's words on the
 * shared add_ptr, so "Words 5..9 never got mixed"; the pull lock as the only
 * lock; Spelvin's salted hash as the extraction) and why the declared
 * backtracking granularity is BACKTRACK_RESEED: docs/designs.md, "tso2015".
 * SPDX-License-Identifier: MIT
 */
#include "gen/pool2015.h"

#include <errno.h>

/* ==== 1. state ============================================================== */

#define CPU_OFFSET_WORDS 12u  /* Spelvin's example: CPU 1 at offset 12 */
#define PULL_BYTES (SURAND_P15_OUT_WORDS * 4)

static struct surand_p15 *pool; /* wipe-on-fork memory */
/* Ordinary memory: a dropped page must not take the lock with it. */
static struct surand_lock pull_lock = SURAND_LOCK_INITIALIZER;
/* The shared add_ptr: words reserved so far (the pool index counts down
 * from it).  Not secret; atomic adds only. */
static uint64_t add_pos __attribute__((aligned(SURAND_CACHELINE)));
static uint64_t next_pull_ns __attribute__((aligned(SURAND_CACHELINE)));
static unsigned mix_flags; /* SURAND_P15_MIX_ATOMIC_ADD in the atomic mode; set at init */
/* Under pull_lock: */
static uint64_t n_pulls;
static uint64_t pull_words; /* words reserved by pulls */

/* ==== 2. the lock-free mixback ============================================== */

/*
 * Reserves n words of the shared add_ptr and mixes in there, moved down by
 * cpu_off words (offset mode; 0 in the atomic mode and for pulls).
 */
static void mix_unlocked(const uint8_t *in, size_t n, uint32_t cpu_off)
{
	uint64_t pos;
	uint32_t rot, start;

	SURAND_BENCH_COUNT_RMW();
	pos = __atomic_fetch_add(&add_pos, n, __ATOMIC_RELAXED);
	/* input_rotate is shared and unlocked as well: read, then stored. */
	rot = __atomic_load_n(&pool->input_rotate, __ATOMIC_RELAXED);
	start = (uint32_t)(0 - pos) - cpu_off;
	(void)surand_p15_mix_from(pool, SURAND_P15_OUT_WORDS, in, n, start, &rot, mix_flags);
	__atomic_store_n(&pool->input_rotate, rot, __ATOMIC_RELAXED);
}

static uint32_t cpu_offset(void)
{
	if (mix_flags & SURAND_P15_MIX_ATOMIC_ADD)
		return 0;
	return (CPU_OFFSET_WORDS * surand_current_cpu()) & (SURAND_P15_OUT_WORDS - 1);
}

/* ==== 3. seeding and pulls ================================================== */

/* Pulls 128 bytes from the input pool (outside the lock), mixes them in
 * under the pull lock; the seeding is published as salted.c's is
 * (surand_p15_seed_begin/end: a page dropped during the mix stays unseeded). */
static int tso_pull(void *ctx, uint64_t now)
{
	uint8_t tmp[PULL_BYTES];
	uint32_t before;
	int r, cs;

	(void)ctx; /* surand_p15_read's callback: no context */
	r = surand_p15_input_pull(tmp, sizeof(tmp));
	if (r == 0) {
		surand_lock(&pull_lock, &cs);
		before = surand_p15_seed_begin(pool);
		mix_unlocked(tmp, sizeof(tmp), 0);
		surand_p15_seed_end(pool, before);
		n_pulls++;
		pull_words += sizeof(tmp);
		__atomic_store_n(&next_pull_ns, now + SURAND_P15_PULL_INTERVAL_NS, __ATOMIC_RELAXED);
		surand_unlock(&pull_lock, cs);
	}
	surand_wipe(tmp, sizeof(tmp));
	return r;
}

/* ==== 4. the read path ====================================================== */

/* One extraction without any lock; 0, or -1 (unseeded or dropped: pull). */
static int tso_extract(void *ctx, uint8_t out[SURAND_P15_EXTRACT_BYTES])
{
	uint32_t iv[5], h[5], v;
	uint8_t hb[SURAND_P15_HASH_BYTES];

	(void)ctx;
	v = surand_p15_salted_begin(pool, iv);
	if (!surand_p15_seeded(v))
		return -1;
	surand_p15_hash(pool, SURAND_P15_OUT_WORDS, iv, h);
	if (surand_p15_salted_end(pool, v, h) != 0)
		return -1;
	surand_p15_fold(h, out);
	/* Mixback without the lock: the pool after it no longer hashes to
	 * what this call returned (unless a racing store undoes it). */
	surand_p15_hash_bytes(h, hb);
	mix_unlocked(hb, sizeof(hb), cpu_offset());
	surand_wipe(h, sizeof(h));
	surand_wipe(hb, sizeof(hb));
	return 0;
}

SURAND_P15_READ_HOOKS(tso, next_pull_ns)

/* ==== 5. init, control, fork, stats, test hooks ============================= */

static int tso_init(void)
{
	surand_design_prepare();
	mix_flags = surand_design_config()->tso_atomic ? SURAND_P15_MIX_ATOMIC_ADD : 0;
	pool = surand_secmem_once(pool, sizeof(*pool));
	if (!pool)
		return -ENOMEM;
	return 0;
}

static void tso_atfork_child(void)
{
	surand_p15_design_atfork_child(&pull_lock, pool, sizeof(*pool), &next_pull_ns);
	__atomic_store_n(&add_pos, 0, __ATOMIC_RELAXED);
	n_pulls = pull_words = 0;
	/* The forking thread's salt serial and count stay: with the new fork
	 * generation the salts stay unique (surand_p15_salted_iv). */
}

/*
 * backend_counters: [0] extractions, [1] pulls from the input pool, [2] the
 * mode (0 per-CPU offsets, 1 atomic adds), [3] pool words reserved (the
 * shared add_ptr), [4] the per-CPU offset step in words (0: none).
 */
static void tso_stats(struct surand_stats *st)
{
	uint64_t pos, pw;
	int cs;

	surand_lock(&pull_lock, &cs);
	pos = __atomic_load_n(&add_pos, __ATOMIC_RELAXED);
	pw = pull_words;
	st->backend_counters[1] = n_pulls;
	surand_unlock(&pull_lock, cs);
	/* Every other reservation is one 20-byte mixback. */
	st->backend_counters[0] = (pos - pw) / SURAND_P15_HASH_BYTES;
	st->backend_counters[2] = (mix_flags & SURAND_P15_MIX_ATOMIC_ADD) ? 1 : 0;
	st->backend_counters[3] = pos;
	st->backend_counters[4] = (mix_flags & SURAND_P15_MIX_ATOMIC_ADD) ? 0 : CPU_OFFSET_WORDS;
}

#ifdef SURAND_TEST_BUILD

static int tso_snapshot(int which, struct surand_test_snapshot *s)
{
	if (!surand_test_one_state(which) || !pool ||
	    !surand_p15_seeded(__atomic_load_n(&pool->valid, __ATOMIC_ACQUIRE)))
		return -1;
	surand_p15_test_copy(pool, s);
	/* The lock-free mixback counts its own add position. */
	s->add_ptr = (uint32_t)(0 - __atomic_load_n(&add_pos, __ATOMIC_RELAXED)) &
		     (SURAND_P15_OUT_WORDS - 1);
	return 0;
}

static void tso_drop(void)
{
	surand_p15_test_drop_input();
	surand_test_zero_words(pool, sizeof(*pool));
}

static int tso_writes(int which, uint64_t *counts, uint32_t nwords)
{
	return surand_test_one_state(which) ? surand_p15_test_writes(pool, counts, nwords) : -1;
}
#endif

const struct surand_backend surand_backend_tso2015 = SURAND_SALTED_POOL_BACKEND(
	tso, "tso2015", "Ts'o Oct 2015: salted lock-free reads, lock-free mixback at per-CPU offsets",
	tso_writes);
