/*
 * base.c - the process-wide base key, shared by the designs that key
 * per-thread or per-CPU generators from it (thread, percpu, ...).
 *
 * Sections: state and tunables; seeding and reseeding; deriving consumer keys
 * by fast key erasure; fork; stats and test hooks.
 *
 * The base key lives in wipe-on-fork memory with its readiness word (enum
 * surand_ready) in the same page: a fork child (or a dropped MAP_DROPPABLE
 * page) sees SURAND_READY_EMPTY there and
 * reseeds from the kernel before deriving anything.  The generation is not
 * secret and lives in ordinary memory; it starts at 1 and only grows, so a
 * consumer state that reads as zero never matches it.
 * SPDX-License-Identifier: MIT
 */
#include "gen/backend.h"
#include "benchcount.h"
#include "entropy/entropy.h"

#include <errno.h>
#include <pthread.h>

/* ==== state and tunables ==================================================== */

/* The reseed interval starts at 1 s and grows with the base's age (half of
 * it) up to the ceiling, as Linux's crng_reseed_interval() does with uptime. */
#define RESEED_START_INTERVAL_NS 1000000000ull
#define NS_PER_S 1000000000ull
/* Domain separation of the base's ChaCha20 uses (nonce words). */
#define NONCE_BASE_DERIVE 0x6576697265642d62ull /* "b-derive" */
#define NONCE_BASE_RESEED 0x6465657365722d62ull /* "b-reseed" */
/* Derivations retried when the base's page was dropped under them. */
#define BASE_DROP_RETRIES 64

struct base_state {
	uint32_t key[8];
	uint32_t valid;      /* enum surand_ready: YES, or EMPTY (never seeded, fork child, dropped page) */
};

static struct base_state *base;                 /* one secmem page */
static pthread_mutex_t base_lock = PTHREAD_MUTEX_INITIALIZER;
uint64_t surand_base_gen_v = 1;                 /* read lock-free by consumers */
#define base_gen surand_base_gen_v
static uint64_t next_reseed_ns;                 /* read lock-free: 0 = not scheduled */
static uint64_t born_ns;                        /* first seed of this process (line); read lock-free */
static uint64_t n_reseed[4];                    /* by enum surand_reseed_cause */
static uint64_t n_derive;

/* ==== seeding and reseeding ================================================= */

uint64_t surand_base_interval_ns(uint64_t now_ns)
{
	uint64_t ceiling = (uint64_t)surand_config()->reseed_ceiling_s * NS_PER_S, age, iv;
	uint64_t born = __atomic_load_n(&born_ns, __ATOMIC_RELAXED);

	if (born == 0 || now_ns < born)
		return RESEED_START_INTERVAL_NS < ceiling ? RESEED_START_INTERVAL_NS : ceiling;
	age = now_ns - born;
	iv = age / 2;
	if (iv < RESEED_START_INTERVAL_NS)
		iv = RESEED_START_INTERVAL_NS;
	if (iv > ceiling)
		iv = ceiling;
	return iv;
}

/* Called with base_lock held.  0 or -errno; on failure nothing changes. */
static int reseed_locked(enum surand_reseed_cause cause)
{
	uint32_t k[8];
	uint8_t seed[32], block[64];
	uint64_t now;
	int i, r;

	base = surand_secmem_once(base, sizeof(*base));
	if (!base)
		return -ENOMEM;
	r = surand_kernel_fill(seed, sizeof(seed), 0);
	if (r < 0) {
		surand_wipe(seed, sizeof(seed));
		return r;
	}
	/* New key = ChaCha20(old key XOR kernel seed): the old key's entropy is
	 * kept and the new seed's is added; a zero old key (first seed) is fine. */
	for (i = 0; i < 8; i++)
		k[i] = (surand_ready(base->valid) ? base->key[i] : 0) ^ surand_load32_le(seed + 4 * i);
	/* ENTROPY-HOOK: the entropy pool joins here as a catastrophic reseed
	 * (>= 256 credited bits XORed into k, any cause); the noise sources are
	 * sampled at scheduled reseeds only, bounded in time. */
	(void)surand_entropy_reseed_hook(k, cause == SURAND_RESEED_TIMER);
	surand_chacha20_blocks(k, 0, NONCE_BASE_RESEED, block, 1);
	now = surand_now_ns();
	if (!surand_ready(base->valid) || cause == SURAND_RESEED_FORK || cause == SURAND_RESEED_INITIAL)
		__atomic_store_n(&born_ns, now, __ATOMIC_RELAXED);
	/* Valid before the key ("sealed", as thread.c's slot_seal): a page
	 * dropped while the key is written reads valid 0 (every use of the key
	 * is under base_lock, so no thread sees the word before the key). */
	base->valid = SURAND_READY_YES;
	SURAND_STORE_FENCE(); /* valid before key (aarch64: dmb ish; x86: TSO) */
	memcpy(base->key, block, 32);
	surand_wipe(k, sizeof(k));
	surand_wipe(seed, sizeof(seed));
	surand_wipe(block, sizeof(block));
	surand_scrub_vector_regs(); /* the body's and memcpy's copies of the new key */
	__atomic_store_n(&next_reseed_ns, now + surand_base_interval_ns(now), __ATOMIC_RELAXED);
	/* Consumers keyed from the old key re-key before their next output.
	 * Release, paired with surand_base_generation()'s acquire: a consumer
	 * that sees the new number also sees next_reseed_ns and born_ns. */
	__atomic_store_n(&base_gen, base_gen + 1, __ATOMIC_RELEASE);
	SURAND_COUNT(n_reseed[cause]);
	return 0;
}

static void lock_base(int *oldstate)
{
	/* No cancellation point may leave the base lock held. */
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, oldstate);
	surand_mutex_lock(&base_lock);
	SURAND_BENCH_COUNT_LOCK();
}

static void unlock_base(int oldstate)
{
	surand_mutex_unlock(&base_lock);
	pthread_setcancelstate(oldstate, NULL);
}

int surand_base_reseed(enum surand_reseed_cause cause)
{
	int st, r;

	lock_base(&st);
	if (!base || !surand_ready(base->valid))
		cause = surand_fork_generation ? SURAND_RESEED_FORK : SURAND_RESEED_INITIAL;
	r = reseed_locked(cause);
	unlock_base(st);
	return r;
}

void surand_base_maybe_reseed(uint64_t now_ns)
{
	uint64_t due = __atomic_load_n(&next_reseed_ns, __ATOMIC_RELAXED);
	int st;

	if (SURAND_LIKELY(due == 0 || now_ns < due))
		return;
	lock_base(&st);
	/* Re-check under the lock: another thread may have reseeded already. */
	if (base && surand_ready(base->valid) && now_ns >= __atomic_load_n(&next_reseed_ns, __ATOMIC_RELAXED))
		(void)reseed_locked(SURAND_RESEED_TIMER); /* failure: the old key stays, retried later */
	unlock_base(st);
}

/* ==== deriving consumer keys ================================================ */

int surand_base_derive(uint32_t out_key[8], uint64_t *gen)
{
	uint8_t block[64];
	uint64_t now;
	int st, r = 0, i, tries;

	lock_base(&st);
	for (tries = 0;; tries++) {
		if (!base || !surand_ready(base->valid)) {
			r = reseed_locked(surand_fork_generation ? SURAND_RESEED_FORK
								 : SURAND_RESEED_INITIAL);
		} else {
			now = surand_now_ns();
			if (now >= __atomic_load_n(&next_reseed_ns, __ATOMIC_RELAXED))
				r = reseed_locked(SURAND_RESEED_TIMER);
			r = 0; /* a failed scheduled reseed keeps the (seeded) old key */
		}
		if (r != 0)
			break;
		/* Fast key erasure: one block gives the next base key, which
		 * replaces the old one at once (nothing left in memory rebuilds a
		 * key handed out earlier), and the consumer's key. */
		surand_chacha20_blocks(base->key, 0, NONCE_BASE_DERIVE, block, 1);
		/* A page dropped before or during that read gave a zero key, the
		 * same in every process: the consumer's key would be public.
		 * valid reads 0 then; reseed from the kernel and derive again. */
		SURAND_LOAD_FENCE(); /* block read before re-check (aarch64: dmb ishld) */
		if (SURAND_LIKELY(surand_ready(base->valid))) {
			memcpy(base->key, block, 32);
			for (i = 0; i < 8; i++)
				out_key[i] = surand_load32_le(block + 32 + 4 * i);
			/* Relaxed: base_gen is written only under base_lock, held here. */
			*gen = __atomic_load_n(&base_gen, __ATOMIC_RELAXED);
			surand_wipe(block, sizeof(block));
			SURAND_COUNT(n_derive);
			break;
		}
		surand_wipe(block, sizeof(block));
		if (tries >= BASE_DROP_RETRIES) {
			r = -EAGAIN; /* fail closed: never a key from a zero base */
			break;
		}
	}
	unlock_base(st);
	return r;
}

/* ==== fork ================================================================== */

void surand_base_atfork_child(void)
{
	/* Another thread of the parent may have held the lock at fork(). */
	pthread_mutex_init(&base_lock, NULL);
	if (base) {
		/* Already zero where wipe-on-fork works; explicit for kind -1. */
		surand_wipe(base, sizeof(*base));
	}
	__atomic_store_n(&next_reseed_ns, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&born_ns, 0, __ATOMIC_RELAXED);
	/* Every consumer state inherited from the parent is now stale. */
	__atomic_store_n(&base_gen, base_gen + 1, __ATOMIC_RELEASE);
	for (int i = 0; i < 4; i++)
		n_reseed[i] = 0;
	n_derive = 0;
}

/* ==== stats and test hooks ================================================== */

void surand_base_stats(struct surand_stats *st)
{
	st->reseeds_initial = SURAND_LOAD(n_reseed[SURAND_RESEED_INITIAL]);
	st->reseeds_timer = SURAND_LOAD(n_reseed[SURAND_RESEED_TIMER]);
	st->reseeds_forced = SURAND_LOAD(n_reseed[SURAND_RESEED_FORCED]);
	st->reseeds_fork = SURAND_LOAD(n_reseed[SURAND_RESEED_FORK]);
	st->rekeys = SURAND_LOAD(n_derive);
	st->reseed_ceiling_s = surand_config()->reseed_ceiling_s;
}

#ifdef SURAND_TEST_BUILD
#include "test_hooks.h"
int surand_test_base_key(uint32_t out[8])
{
	int st, r = -1;

	lock_base(&st);
	if (base && surand_ready(base->valid)) {
		memcpy(out, base->key, 32);
		r = 0;
	}
	unlock_base(st);
	return r;
}
#endif
