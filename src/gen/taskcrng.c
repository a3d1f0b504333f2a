/*
 * taskcrng.c - Ted Ts'o's proposal (Ts'o's mail of 12 Oct 2015; the LWN
 * article): "careful" callers are served from the shared legacy pool, with
 * its per-read mixback; a caller that exceeds a rate limit is switched to its
 * own ChaCha20 CRNG, "initialized from the non-blocking pool, and ...
 * reseeded after, say, 2**24 cranks or five minutes", so "the only
 * performance that abuser process will hurt is its own".
 *
 * Sections:
 *   1. the per-thread slot: the CRNG (64 bytes) and the rate limiter
 *   2. the careful path (the pool) and the switch
 *   3. the CRNG path
 *   4. thread exit, control, fork, stats, test hooks
 *
 * The CRNG is per thread, not per process: a per-thread CRNG needs no lock,
 * and its slot lives in wipe-on-fork memory (the shared slab, gen/slab.c).
 * The limiter (SURAND_TASKCRNG_READS per SURAND_TASKCRNG_RATE_MS and
 * SURAND_TASKCRNG_BYTES per SURAND_TASKCRNG_BUDGET_SECS, each in its own
 * fixed window; defaults 10 per 1000 ms and 32 bytes per 60 s, and where they
 * come from), SURAND_TASKCRNG_EVERY=1, the slot's layout and the declared
 * backtracking granularity (BACKTRACK_RESEED): docs/designs.md, "taskcrng".
 * The kernel module (kmod/taskcrng.c) uses the same limiter and defaults.
 * SPDX-License-Identifier: MIT
 */
#include "gen/pool2015.h"

#include <errno.h>

/* ==== 1. the per-thread slot ================================================ */

#define CRANKS_MAX (1ull << 24)               /* Ts'o: 2**24 cranks ... */
#define RESEED_NS (300ull * NS_PER_S)        /* ... or five minutes */
#define NS_PER_MS 1000000ull
#define NS_PER_S 1000000000ull
#define KEY_FROM_POOL_BYTES 40u              /* key 32 + nonce 8 */
#define MAX_RETRIES 64

struct task_slot {
	/* the CRNG, 64 bytes */
	uint32_t key[8];
	uint64_t counter;   /* next ChaCha20 block */
	uint64_t nonce;
	uint64_t cranks;    /* blocks since the key came from the pool */
	uint64_t reseed_ns; /* when it came */
	/* the limiter */
	uint64_t window_ns; /* start of the current rate window */
	uint32_t reads;     /* careful reads in the rate window */
	uint32_t bytes;     /* careful bytes in the budget window */
	uint32_t switched;  /* 1: this thread reads its own CRNG */
	uint32_t valid;     /* enum surand_ready: YES, or EMPTY (fresh, fork child, dropped page: set up again) */
	uint64_t gen;       /* task_gen the key belongs to; 0: no key */
	uint64_t reads_pool; /* owner-written, read by stats */
	uint64_t reads_crng;
	uint64_t rekeys;
	uint64_t budget_ns; /* start of the current budget window */
};
_Static_assert(sizeof(struct task_slot) == 128, "slot is 128 bytes");
_Static_assert(offsetof(struct task_slot, window_ns) == 64, "the CRNG is 64 bytes");

static struct surand_nbpool task_pool;
static struct surand_slab slab = SURAND_SLAB_INITIALIZER(sizeof(struct task_slot));
static uint64_t task_gen = 1;  /* bumped by surand_reseed() and fork: every CRNG re-keys */
static uint64_t n_switched;    /* threads switched (slow path, once per thread) */
static uint64_t n_nomem;       /* calls served by the pool for want of a slot */
/* Counters of threads that have exited. */
static uint64_t dead_pool, dead_crng, dead_rekeys;

static __thread struct task_slot *tls_slot __attribute__((tls_model("initial-exec")));
static __thread uint32_t tls_index __attribute__((tls_model("initial-exec")));

/* Owner-only counters that stats reads from other threads. */
#define OWN_ADD(var, n) __atomic_store_n(&(var), (var) + (n), __ATOMIC_RELAXED)

/* ==== 2. the careful path and the switch ==================================== */

static void slot_setup(struct task_slot *s, uint64_t now)
{
	/* A fresh (or wiped) slot: a careful caller, no key.  The counters
	 * after gen stay (stats reads them). */
	surand_wipe(s, offsetof(struct task_slot, reads_pool));
	s->window_ns = now;
	s->budget_ns = now;
	s->valid = SURAND_READY_YES;
}

/* 1 when this request keeps the thread careful (and counts it). */
static int careful(struct task_slot *s, size_t len, uint64_t now)
{
	const struct surand_design_config *cfg = surand_design_config();

	if (cfg->task_every)
		return 0; /* every reader on its own CRNG from its first read */
	if (now - s->window_ns >= cfg->task_rate_ms * NS_PER_MS) {
		s->window_ns = now;
		s->reads = 0;
	}
	if (now - s->budget_ns >= cfg->task_budget_s * NS_PER_S) {
		s->budget_ns = now;
		s->bytes = 0;
	}
	if (s->reads + 1 > cfg->task_reads || len > cfg->task_bytes - s->bytes)
		return 0;
	s->reads++;
	s->bytes += (uint32_t)len;
	return 1;
}

/* ==== 3. the CRNG path ====================================================== */

/* Takes a new key and nonce from the pool. 0 or -errno. */
static int crng_rekey(struct task_slot *s, uint64_t now, uint64_t gen)
{
	uint8_t k[KEY_FROM_POOL_BYTES];
	int r, i;

	r = surand_nbpool_read(&task_pool, k, sizeof(k));
	if (r < 0)
		return r;
	for (i = 0; i < 8; i++)
		s->key[i] = surand_load32_le(k + 4 * i);
	memcpy(&s->nonce, k + 32, 8);
	surand_wipe(k, sizeof(k));
	s->counter = 0;
	s->cranks = 0;
	s->reseed_ns = now;
	s->gen = gen;
	OWN_ADD(s->rekeys, 1);
	return 0;
}

static int crng_read(struct task_slot *s, uint8_t *buf, size_t len, uint64_t now)
{
	uint64_t gen = __atomic_load_n(&task_gen, __ATOMIC_ACQUIRE), blocks;
	uint32_t k[8];
	uint8_t tail[64];
	size_t whole = len / 64;
	int r;

	if (s->gen != gen || s->cranks >= CRANKS_MAX || now - s->reseed_ns >= RESEED_NS) {
		r = crng_rekey(s, now, gen);
		if (r < 0)
			return r;
	}
	memcpy(k, s->key, sizeof(k));
	surand_chacha20_blocks(k, s->counter, s->nonce, buf, whole);
	if (len % 64) {
		surand_chacha20_blocks(k, s->counter + whole, s->nonce, tail, 1);
		memcpy(buf + whole * 64, tail, len % 64);
		/* The unused rest of the block is dropped, never handed out later. */
		surand_wipe(tail, sizeof(tail));
	}
	surand_wipe(k, sizeof(k));
	/* A dropped page reads as zeros: the key we copied may have been. */
	SURAND_LOAD_FENCE(); /* key copy before re-check (aarch64: dmb ishld) */
	if (SURAND_UNLIKELY(!surand_ready(__atomic_load_n(&s->valid, __ATOMIC_RELAXED)))) {
		surand_wipe(buf, len);
		return -EAGAIN;
	}
	blocks = whole + (len % 64 != 0);
	s->counter += blocks;
	s->cranks += blocks;
	OWN_ADD(s->reads_crng, 1);
	return 0;
}

static struct task_slot *slot_acquire(void)
{
	struct task_slot *s = surand_slab_get(&slab, &tls_index);

	tls_slot = s;
	return s;
}

static int task_fill(void *buf, size_t len)
{
	struct task_slot *s = tls_slot;
	uint64_t now;
	int r, tries = 0;

	if (SURAND_UNLIKELY(!s)) {
		s = slot_acquire();
		if (!s) {
			/* No per-thread state: the shared pool serves correctly. */
			SURAND_COUNT(n_nomem);
			SURAND_BENCH_COUNT_RMW();
			return surand_nbpool_read(&task_pool, buf, len);
		}
	}
	for (;;) {
		now = surand_now_ns();
		if (SURAND_UNLIKELY(!surand_ready(__atomic_load_n(&s->valid, __ATOMIC_RELAXED))))
			slot_setup(s, now);
		if (!s->switched) {
			if (careful(s, len, now)) {
				OWN_ADD(s->reads_pool, 1);
				return surand_nbpool_read(&task_pool, buf, len);
			}
			/* Past a limit: from now on this thread hurts only itself. */
			s->switched = 1;
			SURAND_COUNT(n_switched);
			SURAND_BENCH_COUNT_RMW();
		}
		r = crng_read(s, buf, len, now);
		/* The key and the output words out of the vector registers. */
		surand_scrub_vector_regs();
		if (r != -EAGAIN)
			return r;
		if (++tries > MAX_RETRIES) /* pages dropped again and again */
			return surand_kernel_fill(buf, len, 0);
	}
}

/* ==== 4. init, thread exit, control, fork, stats, test hooks ================ */

static int task_init(void)
{
	surand_design_prepare();
	return surand_nbpool_init(&task_pool, SURAND_LOCK_FUTEX);
}

static void task_thread_exit(void)
{
	struct task_slot *s = tls_slot;

	if (!s)
		return;
	tls_slot = NULL;
	SURAND_COUNT_N(dead_pool, s->reads_pool);
	SURAND_COUNT_N(dead_crng, s->reads_crng);
	SURAND_COUNT_N(dead_rekeys, s->rekeys);
	/* Wipes the CRNG: its key never outlives the thread. */
	surand_slab_put(&slab, tls_index);
}

static int task_reseed(void)
{
	int r = surand_nbpool_reseed(&task_pool);

	/* Every thread's CRNG takes a key from the reseeded pool next. */
	__atomic_add_fetch(&task_gen, 1, __ATOMIC_RELEASE);
	return r;
}

static void task_atfork_child(void)
{
	surand_p15_input_atfork_child();
	surand_nbpool_atfork_child(&task_pool);
	surand_slab_atfork_child(&slab, tls_slot ? (long)tls_index : -1);
	/* The forking thread's slot: zero already with wipe-on-fork; explicit
	 * for kind -1, so the child never continues its parent's stream. */
	if (tls_slot)
		surand_wipe(tls_slot, sizeof(*tls_slot));
	__atomic_add_fetch(&task_gen, 1, __ATOMIC_RELEASE);
	n_switched = n_nomem = 0;
	dead_pool = dead_crng = dead_rekeys = 0;
}

struct task_sums {
	uint64_t pool, crng, rekeys;
};

static void sum_slot(void *slot, void *arg)
{
	struct task_slot *s = slot;
	struct task_sums *t = arg;

	/* Another thread's owner-written counters: relaxed reads. */
	t->pool += __atomic_load_n(&s->reads_pool, __ATOMIC_RELAXED);
	t->crng += __atomic_load_n(&s->reads_crng, __ATOMIC_RELAXED);
	t->rekeys += __atomic_load_n(&s->rekeys, __ATOMIC_RELAXED);
}

/*
 * backend_counters: [0] threads switched to their own CRNG, [1] reads served
 * by the pool (careful), [2] reads served by a thread's CRNG, [3] CRNG keys
 * taken from the pool, [4] pool extractions, [5] pool pulls from the input
 * pool, [6] per-thread slots in use, [7] calls served by the pool for want of
 * a slot.
 */
static void task_stats(struct surand_stats *st)
{
	struct task_sums t = { SURAND_LOAD(dead_pool), SURAND_LOAD(dead_crng),
			       SURAND_LOAD(dead_rekeys) };
	int cs;

	surand_slab_foreach(&slab, sum_slot, &t);
	st->backend_counters[0] = SURAND_LOAD(n_switched);
	st->backend_counters[1] = t.pool + SURAND_LOAD(n_nomem);
	st->backend_counters[2] = t.crng;
	st->backend_counters[3] = t.rekeys;
	surand_lock(&task_pool.lock, &cs);
	st->backend_counters[4] = task_pool.extractions;
	st->backend_counters[5] = task_pool.pulls;
	surand_unlock(&task_pool.lock, cs);
	st->backend_counters[6] = surand_slab_in_use(&slab);
	st->backend_counters[7] = SURAND_LOAD(n_nomem);
	st->slots_in_use = st->backend_counters[6];
	st->slots_total = surand_slab_total(&slab);
}

#ifdef SURAND_TEST_BUILD
int surand_test_taskcrng_switched(void)
{
	return tls_slot && surand_ready(tls_slot->valid) && tls_slot->switched;
}

void surand_test_taskcrng_cranks(uint64_t cranks)
{
	if (tls_slot)
		tls_slot->cranks = cranks;
}

static int task_snapshot(int which, struct surand_test_snapshot *s)
{
	struct task_slot *t = tls_slot;

	if (!surand_test_one_state(which))
		return -1;
	if (which == SURAND_TEST_SNAP_LAST && t && surand_ready(t->valid) && t->switched && t->gen) {
		s->kind = SURAND_TEST_SNAP_CHACHA;
		memcpy(s->key, t->key, 32);
		s->counter = t->counter;
		s->nonce = t->nonce;
		s->generation = t->gen;
		memcpy(s->extra, t, sizeof(*t));
		s->extra_len = sizeof(*t);
		return 0;
	}
	return surand_nbpool_snapshot(&task_pool, s);
}

int surand_test_taskcrng_slab_holds(const void *needle, size_t n)
{
	return surand_slab_test_holds(&slab, needle, n);
}

static void task_drop(void)
{
	surand_p15_test_drop_input();
	surand_nbpool_test_drop(&task_pool);
	surand_slab_test_zero(&slab);
}

static int task_writes(int which, uint64_t *counts, uint32_t nwords)
{
	if (!surand_test_one_state(which))
		return -1;
	return surand_nbpool_writes(&task_pool, counts, nwords);
}
#endif

const struct surand_backend surand_backend_taskcrng = {
	.name = "taskcrng",
	.summary = "Ts'o 2015: careful callers on the legacy pool, abusers on a private ChaCha20",
	/* The abuser's path takes no lock and writes nothing shared; careful
	 * calls (at most 10 a second) lock and write the pool. */
	.props = SURAND_BP_BACKTRACK_RESEED | SURAND_BP_PER_THREAD | SURAND_BP_SHARED_POOL,
	.thread_exit = task_thread_exit,
	SURAND_BACKEND_HOOKS(task, task_writes)
};
