/*
 * designs.h - what the designs of the 2015 debate share, beyond backend.h:
 *
 *   1. bench counters (no-ops outside bench builds)
 *   2. a small lock: spin-then-futex, or a pure spinlock (gen/common.c)
 *   3. CPU and NUMA topology, simulated nodes (gen/common.c)
 *   4. a slab of per-thread slots in wipe-on-fork memory (gen/common.c)
 *   5. the designs' configuration (src/config.c, environment via secure_getenv)
 *   6. the backends of this family, for the registry
 *   7. test snapshots of a backend's state (test builds only)
 *
 * Designs never copy each other's code: what two of them need lives here (and
 * in gen/pool2015.h for the 2015 pools).
 * SPDX-License-Identifier: MIT
 */
#ifndef SURAND_GEN_DESIGNS_H
#define SURAND_GEN_DESIGNS_H

#include "gen/backend.h"

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

/* ==== 2. the lock ===========================================================
 *
 * The kernel held its pool locks as spinlocks with interrupts and preemption
 * off, so a holder was never descheduled.  Userspace cannot do that: a holder
 * may be preempted, and spinners then burn their time slices.  The default
 * kind spins briefly and then sleeps on a futex (Drepper, "Futexes Are
 * Tricky", mutex 2); SURAND_LOCK_SPIN spins only, so the benchmark can show
 * what a preempted holder costs a pure spinlock.
 *
 * The lock word lives in ordinary memory, never in MAP_DROPPABLE pages: a
 * dropped page must not take a held lock with it.  Every acquisition disables
 * cancellation until the release (no cancellation point may leave it held).
 */
enum surand_lock_kind {
	SURAND_LOCK_FUTEX = 0, /* spin a little, then sleep (default) */
	SURAND_LOCK_SPIN = 1,  /* spin only (the kernel's spinlock, without preemption off) */
};

struct surand_lock {
	uint32_t word;      /* 0 free, 1 held, 2 held and a sleeper may wait (futex kind) */
	uint32_t kind;      /* enum surand_lock_kind */
	uint64_t contended; /* acquisitions that found the lock held (slow path only) */
};
#define SURAND_LOCK_INITIALIZER { 0, SURAND_LOCK_FUTEX, 0 }

void surand_lock_init(struct surand_lock *l, enum surand_lock_kind kind) SURAND_HIDDEN;
void surand_lock_wait(struct surand_lock *l) SURAND_HIDDEN;
void surand_lock_wake(struct surand_lock *l) SURAND_HIDDEN;

static inline void surand_lock(struct surand_lock *l, int *cancel_state)
{
	uint32_t free_v = 0;

	/* No cancellation point may leave this lock held. */
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, cancel_state);
	surand_locks_held++; /* counted before it is held (internal.h) */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	SURAND_BENCH_COUNT_LOCK();
	if (SURAND_UNLIKELY(!__atomic_compare_exchange_n(&l->word, &free_v, 1, 0, __ATOMIC_ACQUIRE,
							 __ATOMIC_RELAXED)))
		surand_lock_wait(l);
}

/* 1: taken (release with surand_unlock); 0: held by another thread. */
static inline int surand_trylock(struct surand_lock *l, int *cancel_state)
{
	uint32_t free_v = 0;

	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, cancel_state);
	surand_locks_held++; /* counted before it is held (internal.h) */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&l->word, __ATOMIC_RELAXED) == 0) {
		if (__atomic_compare_exchange_n(&l->word, &free_v, 1, 0, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED)) {
			SURAND_BENCH_COUNT_LOCK();
			return 1;
		}
		SURAND_BENCH_COUNT_RMW(); /* a CAS that lost */
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	surand_locks_held--;
	pthread_setcancelstate(*cancel_state, NULL);
	return 0;
}

/* The release is part of the acquisition (not counted again). */
static inline void surand_unlock(struct surand_lock *l, int cancel_state)
{
	if (l->kind == SURAND_LOCK_SPIN) {
		__atomic_store_n(&l->word, 0, __ATOMIC_RELEASE);
	} else {
		if (__atomic_exchange_n(&l->word, 0, __ATOMIC_RELEASE) == 2)
			surand_lock_wake(l);
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	surand_locks_held--;
	pthread_setcancelstate(cancel_state, NULL);
}

/* ==== 3. CPU and NUMA topology ==============================================
 *
 * Read once (at a backend's init): the possible CPUs from
 * /sys/devices/system/cpu/possible, the node of each CPU from
 * /sys/devices/system/node/node<N>/cpulist (nodes renumbered densely).
 * SURAND_NODES=N (1..1024) instead splits the CPUs into N simulated nodes,
 * CPU c on node c % N, so one-node machines can run the per-node designs.
 * Without sysfs: one node.
 */
void surand_topology_init(void) SURAND_HIDDEN;
unsigned surand_node_count(void) SURAND_HIDDEN;
/* Size for per-CPU arrays: at least the possible CPUs (max id + 1). */
unsigned surand_cpu_slots(void) SURAND_HIDDEN;
unsigned surand_node_of_cpu(unsigned cpu) SURAND_HIDDEN;
/* The calling thread's CPU now (sched_getcpu: rseq or vDSO); per-CPU arrays
 * index it modulo surand_cpu_slots() (test overrides may exceed it). */
unsigned surand_current_cpu(void) SURAND_HIDDEN;

static inline unsigned surand_current_node(void)
{
	return surand_node_of_cpu(surand_current_cpu());
}

/*
 * What every design's init calls first: the topology (sysfs, read once), and
 * the vDSO lookup, so that nothing a design calls later (surand_fold_kernel,
 * the kernel path) needs dlopen.  The front end looks the vDSO up at set-up
 * as well; this keeps a design independent of that.
 */
static inline void surand_design_prepare(void)
{
	surand_topology_init();
	(void)surand_vdso_available();
}

/* ==== 4. the per-thread slab ================================================
 *
 * Fixed-size slots (a power of two, 64..4096 bytes, so a slot never straddles
 * a page) carved from surand_secmem_alloc() chunks: wiped in a fork child,
 * never dumped.  Book-keeping (free list, in-use marks) is in ordinary memory.
 * A slot given back is wiped.  With MAP_DROPPABLE a slot may read as zero at
 * any time: users keep a nonzero valid word in it and re-key on zero.
 */
#define SURAND_SLAB_CHUNK_BYTES 16384u
#define SURAND_SLAB_MAX_CHUNKS 4096u

struct surand_slab {
	uint32_t slot_bytes;
	uint32_t nchunks;
	uint32_t free_head; /* index + 1 of the first free slot, 0: none */
	uint32_t in_use;
	pthread_mutex_t lock;
	uint8_t *chunks[SURAND_SLAB_MAX_CHUNKS];
	uint32_t *meta[SURAND_SLAB_MAX_CHUNKS]; /* per slot: bit 31 in use, low bits next free */
};
#define SURAND_SLAB_INITIALIZER(bytes) { .slot_bytes = (bytes), .lock = PTHREAD_MUTEX_INITIALIZER }

/* A wiped slot for the calling thread; NULL (errno ENOMEM) when none can be mapped. */
void *surand_slab_get(struct surand_slab *s, uint32_t *index) SURAND_HIDDEN;
/* Wipes the slot and gives it back. */
void surand_slab_put(struct surand_slab *s, uint32_t index) SURAND_HIDDEN;
/* Fork child: every slot but keep (the forking thread's; -1: none) is free. */
void surand_slab_atfork_child(struct surand_slab *s, long keep) SURAND_HIDDEN;
/* Calls fn on every slot in use, with the slab lock held (stats). */
void surand_slab_foreach(struct surand_slab *s, void (*fn)(void *slot, void *arg), void *arg)
	SURAND_HIDDEN;
uint32_t surand_slab_total(struct surand_slab *s) SURAND_HIDDEN;
uint32_t surand_slab_in_use(struct surand_slab *s) SURAND_HIDDEN;

/* ==== 5. configuration (src/config.c) ======================================= */
struct surand_design_config {
	unsigned nodes;           /* SURAND_NODES: 0 = the machine's nodes, else 1..1024 simulated */
	unsigned task_reads;      /* SURAND_TASKCRNG_READS: careful reads per rate window, default 10 */
	unsigned task_rate_ms;    /* SURAND_TASKCRNG_RATE_MS: the rate window, default 1000 ms */
	unsigned task_bytes;      /* SURAND_TASKCRNG_BYTES: careful bytes per budget window, default 32 */
	unsigned task_budget_s;   /* SURAND_TASKCRNG_BUDGET_SECS: the budget window, default 60 s */
	unsigned task_every;      /* SURAND_TASKCRNG_EVERY=1: every reader on its own CRNG at once */
	unsigned tso_atomic;      /* SURAND_TSO2015_MIX=atomic: Spelvin's atomic adds (else offsets) */
	unsigned p15_no_rotate;   /* SURAND_POOL_NO_ROTATE=1: the 2015 pools mix without input_rotate */
	unsigned onekey_reseed_s; /* SURAND_ONEKEY_SECS: onekey's reseed interval, default 1 s */
};
const struct surand_design_config *surand_design_config(void) SURAND_HIDDEN;

/* ==== 6. the backends of this family ======================================== */
extern const struct surand_backend surand_backend_legacy SURAND_HIDDEN;
extern const struct surand_backend surand_backend_legacy_spin SURAND_HIDDEN;
extern const struct surand_backend surand_backend_multipool SURAND_HIDDEN;
extern const struct surand_backend surand_backend_salted SURAND_HIDDEN;
extern const struct surand_backend surand_backend_tso2015 SURAND_HIDDEN;
extern const struct surand_backend surand_backend_taskcrng SURAND_HIDDEN;
extern const struct surand_backend surand_backend_nodecrng SURAND_HIDDEN;
extern const struct surand_backend surand_backend_onekey SURAND_HIDDEN;
extern const struct surand_backend surand_backend_percpu SURAND_HIDDEN;

/* ==== 7. test snapshots ===================================================== */
#ifdef SURAND_TEST_BUILD
#include "test_hooks.h"
/* Set by the active backend's init: copies its state (see test_hooks.h). */
extern int (*surand_test_snapshot_fn)(int which, struct surand_test_snapshot *s) SURAND_HIDDEN;
extern int (*surand_test_pool_writes_fn)(int which, uint64_t *counts, uint32_t nwords) SURAND_HIDDEN;
extern void (*surand_test_drop_fn)(void) SURAND_HIDDEN;
/* Zeroes n bytes (a multiple of 4) with relaxed atomic stores: a "dropped
 * page" that lock-free readers may be reading. */
void surand_test_zero_words(void *p, size_t n) SURAND_HIDDEN;
/* Zeroes every slot of a slab, in use or not (a dropped page). */
void surand_slab_test_zero(struct surand_slab *s) SURAND_HIDDEN;
#endif

#endif /* SURAND_GEN_DESIGNS_H */
