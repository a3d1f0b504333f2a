/*
 * lock.c - the designs' lock (gen/lock.h): a short spin, then a futex sleep;
 * or spin only (SURAND_LOCK_SPIN).
 * SPDX-License-Identifier: MIT
 */
#include "gen/lock.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

/* ---- the lock ---------------------------------------------------------------- */

/* Spins before sleeping: long enough for a holder that is running to finish
 * one pool extraction (a few hundred ns), short enough not to burn a slice. */
#define LOCK_SPIN_TRIES 200

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory"); /* the spin-wait hint */
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

void surand_lock_init(struct surand_lock *l, enum surand_lock_kind kind)
{
	__atomic_store_n(&l->word, 0, __ATOMIC_RELAXED);
	l->kind = kind;
	l->contended = 0;
}

static void futex_wait(uint32_t *word, uint32_t val)
{
	/* Returns on wake, EAGAIN (word changed) or EINTR: the caller re-checks. */
	(void)syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

void surand_lock_wake(struct surand_lock *l)
{
	(void)syscall(SYS_futex, &l->word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

void surand_lock_wait(struct surand_lock *l)
{
	uint32_t c;
	int i;

	SURAND_COUNT(l->contended);
	if (l->kind == SURAND_LOCK_SPIN) {
		for (;;) {
			c = 0;
			if (__atomic_load_n(&l->word, __ATOMIC_RELAXED) == 0 &&
			    __atomic_compare_exchange_n(&l->word, &c, 1, 0, __ATOMIC_ACQUIRE,
							__ATOMIC_RELAXED))
				return;
			cpu_relax();
		}
	}
	for (i = 0; i < LOCK_SPIN_TRIES; i++) {
		c = 0;
		if (__atomic_load_n(&l->word, __ATOMIC_RELAXED) == 0 &&
		    __atomic_compare_exchange_n(&l->word, &c, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return;
		cpu_relax();
	}
	/* Mark "a sleeper may wait" (2), then sleep until the word is free. */
	c = __atomic_exchange_n(&l->word, 2, __ATOMIC_ACQUIRE);
	while (c != 0) {
		futex_wait(&l->word, 2);
		c = __atomic_exchange_n(&l->word, 2, __ATOMIC_ACQUIRE);
	}
}
