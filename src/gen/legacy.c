/*
 * legacy.c - the 2015 kernel's /dev/urandom: one 32-word nonblocking pool
 * behind one lock, every extraction hashing the whole pool with SHA-1 and
 * mixing the hash back, reseeded from the 128-word input pool at most every
 * 60 s.  The pool code is gen/pool2015.c; this file only chooses the lock.
 *
 * Two registered names, one design:
 *   legacy       the lock spins briefly, then sleeps on a futex;
 *   legacy-spin  the lock only spins, as the kernel's spinlock did.
 * The kernel held its spinlock with interrupts and preemption off, so the
 * holder always ran; in userspace a preempted holder makes pure spinners burn
 * their slices.  The benchmark runs both, so that cost is not mistaken for the
 * design's own.
 *
 * Sections: state; fill; control, fork, stats, test hooks.
 * SPDX-License-Identifier: MIT
 */
#include "gen/pool2015.h"

/* ==== state ================================================================= */

static struct surand_nbpool legacy_pool;

/* ==== fill ================================================================== */

static int legacy_init_kind(enum surand_lock_kind kind)
{
	return surand_nbpool_init(&legacy_pool, kind);
}

static int legacy_fill(void *buf, size_t len)
{
	/* Every call is served from the one shared pool, under its lock. */
	return surand_nbpool_read(&legacy_pool, buf, len);
}

/* ==== init, control, fork, stats, test hooks ================================ */

static int legacy_init(void)
{
	surand_design_prepare();
	return legacy_init_kind(SURAND_LOCK_FUTEX);
}

static int legacy_spin_init(void)
{
	surand_design_prepare();
	return legacy_init_kind(SURAND_LOCK_SPIN);
}

static int legacy_reseed(void)
{
	/* The pool pulls from the input pool now (after fresh kernel bytes). */
	return surand_nbpool_reseed(&legacy_pool);
}

static void legacy_atfork_child(void)
{
	surand_p15_input_atfork_child();
	surand_nbpool_atfork_child(&legacy_pool);
}

/*
 * backend_counters: [0] extractions (10 bytes each), [1] pulls from the input
 * pool, [2] lock acquisitions that found it held, [3] pulls of the input pool
 * by any pool.
 */
static void legacy_stats(struct surand_stats *st)
{
	int cs;

	surand_lock(&legacy_pool.lock, &cs);
	st->backend_counters[0] = legacy_pool.extractions;
	st->backend_counters[1] = legacy_pool.pulls;
	surand_unlock(&legacy_pool.lock, cs);
	st->backend_counters[2] = SURAND_LOAD(legacy_pool.lock.contended);
	surand_p15_input_counts(&st->backend_counters[3], &st->backend_counters[4]);
}

#ifdef SURAND_TEST_BUILD
static int legacy_snapshot(int which, struct surand_test_snapshot *s)
{
	if (!surand_test_one_state(which))
		return -1;
	s->index = 0;
	return surand_nbpool_snapshot(&legacy_pool, s);
}

static int legacy_writes(int which, uint64_t *counts, uint32_t nwords)
{
	if (!surand_test_one_state(which))
		return -1;
	return surand_nbpool_writes(&legacy_pool, counts, nwords);
}


static void legacy_drop(void)
{
	surand_p15_test_drop_input();
	surand_nbpool_test_drop(&legacy_pool);
}
#endif

/* The two legacy designs differ only in their lock. */
#define LEGACY_BACKEND(name_, summary_, init_)                                                  \
	{                                                                                       \
		.name = (name_), .summary = (summary_),                                         \
		.props = SURAND_BP_BACKTRACK_PER_CALL | SURAND_BP_LOCK_FAST_PATH |              \
			 SURAND_BP_SHARED_POOL | SURAND_BP_SHARED_WRITES,                       \
		.init = (init_), .fill = legacy_fill, .reseed = legacy_reseed,                  \
		.atfork_child = legacy_atfork_child, .stats = legacy_stats,                     \
		SURAND_BACKEND_TEST_HOOKS(legacy_snapshot, legacy_writes, legacy_drop)          \
	}

const struct surand_backend surand_backend_legacy =
	LEGACY_BACKEND("legacy", "2015 urandom: one SHA-1 pool, mixback under one spin-then-futex lock",
		       legacy_init);
const struct surand_backend surand_backend_legacy_spin =
	LEGACY_BACKEND("legacy-spin", "legacy with a pure spinlock (as the kernel's, but preemptible)",
		       legacy_spin_init);
