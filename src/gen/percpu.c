/*
 * percpu.c - what Linux adopted in 5.18 (Donenfeld): a ChaCha20 key per CPU,
 * keyed from the base key and its generation, and fast key erasure on every
 * request: one block of the CPU's key gives the CPU's next key (replacing it
 * at once) and up to 32 bytes of output, or a one-use key for a longer
 * request.  Memory is bounded by the number of CPUs, not of threads.
 *
 * Sections: state; the fast path; the slow path; control, fork, stats, test
 * hooks.
 *
 * Where surand differs from the kernel: the kernel pins the task to its CPU
 * with local_lock_irqsave() (preemption and interrupts off) for the few
 * instructions that touch the per-CPU state.  Userspace cannot: a thread may
 * be preempted or migrate between sched_getcpu() and using "its" CPU's
 * state, and another thread then lands on the same state.  So each per-CPU
 * state has a trylock; the thread that loses it (the holder was preempted
 * there, or migrated there with it) takes the slow path: a one-use key by
 * fast key erasure of the base key (gen/base.c, its own lock), which is as
 * correct as the fast path, only slower.  Nobody waits for a preempted
 * holder.
 * SPDX-License-Identifier: MIT
 */
#include "gen/designs.h"

#include <errno.h>
#include <stdlib.h>

/* ==== state ================================================================= */

#define SMALL_MAX 32u /* CHACHA_BLOCK_SIZE - CHACHA_KEY_SIZE: served from the block itself */

/* A CPU's secret state, in wipe-on-fork memory, one cache line. */
struct pcpu {
	uint32_t key[8];
	uint64_t gen; /* base generation it was keyed under; 0: none (fork, dropped page) */
	uint8_t pad[SURAND_CACHELINE - 40];
};
_Static_assert(sizeof(struct pcpu) == SURAND_CACHELINE, "one line per CPU");

/* Its trylock and counters, in ordinary memory (a dropped page keeps them). */
struct pcpu_ctl {
	struct surand_lock lock;
	uint64_t calls;  /* written under the lock (relaxed), read by stats */
	uint64_t rekeys;
	uint8_t pad[SURAND_CACHELINE - sizeof(struct surand_lock) - 16];
} __attribute__((aligned(SURAND_CACHELINE)));

static struct pcpu *st;      /* [ncpu] */
static struct pcpu_ctl *ctl; /* [ncpu] */
static unsigned ncpu;
static uint64_t n_fallback;  /* calls that lost the trylock (slow path only) */
static __thread unsigned tls_last_cpu __attribute__((tls_model("initial-exec")));
#ifdef SURAND_TEST_BUILD
static int test_fail_trylock;
#endif

#define CTL_ADD(var, n) __atomic_store_n(&(var), (var) + (n), __ATOMIC_RELAXED)

/* ==== the slow path ========================================================= */

/* A one-use key from the base (fast key erasure there); correct on its own. */
static __attribute__((noinline, cold)) int percpu_slow(uint8_t *buf, size_t len)
{
	uint32_t k[8];
	uint64_t gen;
	int r;

	SURAND_COUNT(n_fallback);
	SURAND_BENCH_COUNT_RMW();
	r = surand_base_derive(k, &gen);
	if (r < 0)
		return r;
	surand_fill_from_key(k, buf, len); /* wipes k */
	return 0;
}

/* ==== the fast path ========================================================= */

static int cpu_trylock(struct pcpu_ctl *c, int *cs)
{
#ifdef SURAND_TEST_BUILD
	if (__atomic_load_n(&test_fail_trylock, __ATOMIC_RELAXED) > 0 &&
	    __atomic_fetch_sub(&test_fail_trylock, 1, __ATOMIC_RELAXED) > 0)
		return 0;
#endif
	return surand_trylock(&c->lock, cs);
}

static int percpu_fill(void *buf, size_t len)
{
	unsigned cpu = surand_current_cpu() % ncpu;
	struct pcpu *s = &st[cpu];
	struct pcpu_ctl *c = &ctl[cpu];
	uint8_t block[64];
	uint32_t k[8];
	uint64_t gen, g;
	int cs, r, i, tries = 0;

	tls_last_cpu = cpu;
	/* crng_has_old_seed(): the base reseeds on its schedule. */
	surand_base_maybe_reseed(surand_now_ns());
	if (!cpu_trylock(c, &cs))
		return percpu_slow(buf, len);
	for (;;) {
		gen = surand_base_generation();
		if (SURAND_UNLIKELY(__atomic_load_n(&s->gen, __ATOMIC_RELAXED) != gen)) {
			/* Reseed, fork or first use: a new key from the base. */
			r = surand_base_derive(k, &g);
			if (r < 0) {
				surand_unlock(&c->lock, cs);
				return r;
			}
			/* The generation first ("sealed", as thread.c's slot_seal): a
			 * page dropped while the key is written reads gen 0, never a
			 * valid generation over a zero key (repeated, public output:
			 * tests/test_faults.c, droppable, under valgrind). */
			__atomic_store_n(&s->gen, g, __ATOMIC_RELAXED);
			SURAND_STORE_FENCE(); /* gen before key (aarch64: dmb ish; x86: TSO) */
			memcpy(s->key, k, sizeof(k));
			CTL_ADD(c->rekeys, 1);
			gen = g;
		}
		memcpy(k, s->key, sizeof(k));
		surand_chacha20_blocks(k, 0, 0, block, 1);
		/* Fast key erasure: the key that made this block is gone. */
		memcpy(s->key, block, 32);
		/* A dropped page reads as zeros: the key we copied may have been. */
		SURAND_LOAD_FENCE(); /* key copy before re-check (aarch64: dmb ishld) */
		if (SURAND_LIKELY(__atomic_load_n(&s->gen, __ATOMIC_RELAXED) == gen))
			break;
		surand_wipe(block, sizeof(block));
		if (++tries > 64) {
			surand_unlock(&c->lock, cs);
			surand_wipe(k, sizeof(k));
			return percpu_slow(buf, len);
		}
	}
	CTL_ADD(c->calls, 1);
	surand_unlock(&c->lock, cs);
	surand_wipe(k, sizeof(k));
	if (len <= SMALL_MAX) {
		memcpy(buf, block + 32, len);
	} else {
		/* A longer request: the block's second half is a one-use key. */
		for (i = 0; i < 8; i++)
			k[i] = surand_load32_le(block + 32 + 4 * i);
		surand_fill_from_key(k, buf, len); /* wipes k */
	}
	/* Bytes handed out never stay in memory, nor in vector registers. */
	surand_wipe(block, sizeof(block));
	surand_scrub_vector_regs();
	return 0;
}

/* ==== init, control, fork, stats, test hooks ================================ */

static int percpu_init(void)
{
	surand_design_prepare();
	ncpu = surand_cpu_slots();
	st = surand_secmem_once(st, (size_t)ncpu * sizeof(*st));
	ctl = surand_slot_ctl_alloc(ctl, ncpu, sizeof(*ctl));
	if (!st || !ctl)
		return -ENOMEM;
	surand_slot_ctl_reset(ctl, ncpu, sizeof(*ctl), SURAND_LOCK_SPIN); /* only ever tried */
	return 0;
}

static void percpu_atfork_child(void)
{
	surand_slot_ctl_reset(ctl, ncpu, sizeof(*ctl), SURAND_LOCK_SPIN);
	/* Zero already where wipe-on-fork works; explicit for kind -1.  The
	 * base's generation moved in its own fork handler as well. */
	surand_wipe(st, (size_t)ncpu * sizeof(*st));
	n_fallback = 0;
}

/*
 * backend_counters: [0] calls served by a per-CPU state, [1] calls that lost
 * the trylock (slow path), [2] per-CPU keys taken from the base, [3] per-CPU
 * states (the CPU count).
 */
static void percpu_stats(struct surand_stats *s)
{
	unsigned i;

	for (i = 0; i < ncpu; i++) {
		s->backend_counters[0] += __atomic_load_n(&ctl[i].calls, __ATOMIC_RELAXED);
		s->backend_counters[2] += __atomic_load_n(&ctl[i].rekeys, __ATOMIC_RELAXED);
	}
	s->backend_counters[1] = SURAND_LOAD(n_fallback);
	s->backend_counters[3] = ncpu;
	s->slots_total = ncpu;
}

#ifdef SURAND_TEST_BUILD
void surand_test_percpu_fail_trylock(int n)
{
	__atomic_store_n(&test_fail_trylock, n, __ATOMIC_RELAXED);
}

static int percpu_snapshot(int which, struct surand_test_snapshot *out)
{
	unsigned cpu;
	int cs;

	if (which == SURAND_TEST_SNAP_LAST)
		cpu = tls_last_cpu;
	else if (which >= 0 && (unsigned)which < ncpu)
		cpu = (unsigned)which;
	else
		return -1;
	/* The state is stable only under its lock (spin: the holder is brief). */
	surand_lock(&ctl[cpu].lock, &cs);
	out->kind = SURAND_TEST_SNAP_CHACHA;
	out->index = (int)cpu;
	memcpy(out->key, st[cpu].key, 32);
	out->counter = 0;
	out->nonce = 0;
	out->generation = st[cpu].gen;
	memcpy(out->extra, &st[cpu], sizeof(st[cpu]));
	out->extra_len = sizeof(st[cpu]);
	surand_unlock(&ctl[cpu].lock, cs);
	return out->generation ? 0 : -1;
}

static void percpu_drop(void)
{
	surand_test_drop_slots(st, sizeof(*st), ctl, sizeof(*ctl), ncpu);
}
#endif

/* surand_reseed() reseeds the base key; the per-CPU keys follow its generation. */
const struct surand_backend surand_backend_percpu = SURAND_KERNEL_CRNG_BACKEND(
	percpu, "percpu", "Linux 5.18: per-CPU ChaCha20 keys, fast key erasure per call, trylock",
	NULL);
