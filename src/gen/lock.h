/*
 * gen/lock.h - the designs' small lock: spin-then-futex, or a pure spinlock
 * (gen/lock.c).
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
#ifndef SURAND_GEN_LOCK_H
#define SURAND_GEN_LOCK_H

#include "internal.h"
#include "benchcount.h"

#include <pthread.h>

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

#endif /* SURAND_GEN_LOCK_H */
