/*
 * designs.h - what the designs of the 2015 debate share, beyond backend.h:
 *
 *   1. bench counters (no-ops outside bench builds)
 *   2. what every design's init calls first; per-slot arrays
 *   3. the backends of this family, for the registry
 *   4. test helpers: snapshots and drops of a backend's state (test builds)
 *
 * and, each in its own header, the lock (gen/lock.h), the CPU and NUMA
 * topology (gen/topology.h), the slab of per-thread slots (gen/slab.h) and
 * the designs' configuration (config.h).  Designs never copy each other's
 * code: what two of them need lives in these (and in gen/pool2015.h for the
 * 2015 pools).
 * SPDX-License-Identifier: MIT
 */
#ifndef SURAND_GEN_DESIGNS_H
#define SURAND_GEN_DESIGNS_H

#include "gen/backend.h"
#include "gen/lock.h"
#include "gen/slab.h"
#include "gen/topology.h"
#include "config.h"

#include <pthread.h>

/* ==== 1. bench counters =====================================================
 *
 * The bench build counts shared writes (src/benchcount.h): one
 * SURAND_BENCH_COUNT_LOCK() where a lock shared between threads is obtained
 * (once, whatever the lock does inside; a won trylock is an acquisition), one
 * SURAND_BENCH_COUNT_RMW() per other atomic read-modify-write of memory other
 * threads use (a failed trylock's CAS included).  Elsewhere they are no-ops.
 */
#include "benchcount.h"

/*
 * A full barrier between a store and a later load of another location (the
 * Dekker pattern of salted's mixback hand-off).  TSan does not model fences,
 * so in TSan builds it is a seq_cst read-modify-write of one shared word,
 * which TSan does model (and which orders the same way: all such RMWs are in
 * one modification order).
 */
#if defined(__SANITIZE_THREAD__)
extern uint32_t surand_full_fence_word SURAND_HIDDEN;
#define SURAND_FULL_FENCE() ((void)__atomic_fetch_add(&surand_full_fence_word, 0, __ATOMIC_SEQ_CST))
#else
#define SURAND_FULL_FENCE() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#endif

/* ==== 2. what every design's init calls first; per-slot arrays ===============
 *
 * First the topology (sysfs, read once) and the vDSO lookup, so that
 * nothing a design calls later (surand_fold_kernel, the kernel path) needs
 * dlopen.  The front end looks the vDSO up at set-up as well; this keeps a
 * design independent of that.
 */
static inline void surand_design_prepare(void)
{
	surand_topology_init();
	(void)surand_vdso_available();
}

/*
 * A design with a lock per slot (percpu: a CPU each; nodecrng: the primary
 * and a node each) keeps n control records of stride bytes, each opening
 * with its struct surand_lock, in ordinary cache-line-aligned memory (a
 * dropped page keeps them).  alloc returns cur when set (the design chosen
 * again), else a new array (NULL on failure).  reset zeroes the records,
 * counters and all, and readies each lock as kind: at init and in a fork
 * child (locks another parent thread held).  NULL ctl: nothing to reset.
 */
void *surand_slot_ctl_alloc(void *cur, size_t n, size_t stride) SURAND_HIDDEN;
void surand_slot_ctl_reset(void *ctl, size_t n, size_t stride, enum surand_lock_kind kind)
	SURAND_HIDDEN;
static inline struct surand_lock *surand_slot_lock(void *ctl, size_t i, size_t stride)
{
	return (struct surand_lock *)((char *)ctl + i * stride); /* its first member */
}

/* ==== 3. the backends of this family ======================================== */
extern const struct surand_backend surand_backend_legacy SURAND_HIDDEN;
extern const struct surand_backend surand_backend_legacy_spin SURAND_HIDDEN;
extern const struct surand_backend surand_backend_multipool SURAND_HIDDEN;
extern const struct surand_backend surand_backend_salted SURAND_HIDDEN;
extern const struct surand_backend surand_backend_tso2015 SURAND_HIDDEN;
extern const struct surand_backend surand_backend_taskcrng SURAND_HIDDEN;
extern const struct surand_backend surand_backend_nodecrng SURAND_HIDDEN;
extern const struct surand_backend surand_backend_onekey SURAND_HIDDEN;
extern const struct surand_backend surand_backend_percpu SURAND_HIDDEN;

/*
 * The kernel's CRNG designs (nodecrng: 4.8-5.17, percpu: 5.18) share every
 * property: a lock and a per-node or per-CPU key on every call, erased per
 * call.  Their initialiser, with the hooks named as SURAND_BACKEND_HOOKS
 * names them; reseed_ is the design's own or NULL (the base key's).
 */
#define SURAND_KERNEL_CRNG_BACKEND(p, name_, summary_, reseed_)                          \
	{                                                                                 \
		.name = (name_), .summary = (summary_),                                   \
		.props = SURAND_BP_BACKTRACK_PER_CALL | SURAND_BP_LOCK_FAST_PATH |        \
			 SURAND_BP_PER_CPU | SURAND_BP_SHARED_WRITES,                     \
		.init = p##_init, .fill = p##_fill, .reseed = (reseed_),                  \
		.atfork_child = p##_atfork_child, .stats = p##_stats,                     \
		SURAND_BACKEND_TEST_HOOKS(p##_snapshot, NULL, p##_drop)                   \
	}

/* ==== 4. test helpers ======================================================= */
#ifdef SURAND_TEST_BUILD
#include "test_hooks.h"
/* Zeroes n bytes (a multiple of 4) with relaxed atomic stores: a "dropped
 * page" that lock-free readers may be reading. */
void surand_test_zero_words(void *p, size_t n) SURAND_HIDDEN;
/* A design with one pool or key snapshots it for which 0 or SNAP_LAST only. */
static inline int surand_test_one_state(int which)
{
	return which == SURAND_TEST_SNAP_LAST || which == 0;
}
/* Zeroes each of n slots' secret (st: slots of st_stride bytes) that way,
 * with the slot's lock (ctl, as surand_slot_ctl_reset) held. */
void surand_test_drop_slots(void *st, size_t st_stride, void *ctl, size_t ctl_stride, size_t n)
	SURAND_HIDDEN;
#endif

#endif /* SURAND_GEN_DESIGNS_H */
