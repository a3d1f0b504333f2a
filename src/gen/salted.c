/*
 * salted.c - George Spelvin's lockless reads (Oct 2015): readers hash the
 * one shared 32-word pool without its lock, each with a salt unique to the
 * call, so two readers of the same pool state still get different bytes
 * ("entropy is a holographic property of the pool", the LWN article).  The
 * reader that wins a trylock mixes its hash back; the others append theirs to
 * a mixback buffer that the lock holder folds in before it releases.
 *
 * Sections:
 *   1. state: the pool, the mixback buffer
 *   2. seeding and pulls from the input pool
 *   3. the mixback: trylock winners, the buffer, the release protocol
 *   4. the read path
 *   5. control, fork, stats, test hooks
 *
 * Where it differs from the 2015 patch (the salt is not the CPU id; the
 * release protocol leaves no published hash waiting; a full buffer waits for
 * the lock, never drops a hash), why the declared backtracking granularity is
 * BACKTRACK_RESEED, and how the salt answers Ts'o's objection to the trylock
 * (repeated output): docs/designs.md, "salted".  Pool words are read and
 * written only with relaxed atomics (plain moves on x86): readers race with
 * the mixback by design, and the C memory model (and TSan) see atomics.
 * SPDX-License-Identifier: MIT
 */
#include "gen/pool2015.h"

#include <errno.h>

/* ==== 1. state ============================================================== */

#define MB_CELLS 64u /* mixback buffer: hashes waiting for the lock holder */
#define MB_MASK (MB_CELLS - 1)
#define PULL_BYTES (SURAND_P15_OUT_WORDS * 4)

/* Secret state in one wipe-on-fork page: the pool and the waiting hashes. */
struct salted_secret {
	struct surand_p15 pool;
	uint32_t hash[MB_CELLS][5];
};

struct mb_seq {
	uint64_t seq; /* Vyukov's bounded queue: pos + 1 when published */
	uint8_t pad[SURAND_CACHELINE - 8];
};

static struct salted_secret *sec;
/* Ordinary memory: a dropped page must not lose the lock or the queue. */
static struct surand_lock mix_lock = SURAND_LOCK_INITIALIZER;
static struct mb_seq mb_seq[MB_CELLS] __attribute__((aligned(SURAND_CACHELINE)));
static uint64_t mb_tail __attribute__((aligned(SURAND_CACHELINE))); /* hashes appended */
static uint64_t mb_head __attribute__((aligned(SURAND_CACHELINE))); /* hashes folded (under lock) */
static uint64_t next_pull_ns __attribute__((aligned(SURAND_CACHELINE)));
/* Under mix_lock: */
static uint64_t n_direct_try;   /* mixbacks by trylock winners */
static uint64_t n_direct_wait;  /* mixbacks after waiting (buffer full) */
static uint64_t n_pulls;

#ifdef SURAND_TEST_BUILD
/* surand_test_salted_reseed_during_hash: the calling thread's next
 * extraction finds the page dropped before its hash and the pool re-seeded
 * right after it. */
static __thread int tls_reseed_during_hash;
static unsigned long reseeds_during_hash;
#endif

#define W_LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define W_STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

static void mb_reset(void)
{
	unsigned i;

	for (i = 0; i < MB_CELLS; i++)
		__atomic_store_n(&mb_seq[i].seq, i, __ATOMIC_RELAXED);
	__atomic_store_n(&mb_tail, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&mb_head, 0, __ATOMIC_RELAXED);
}

/* ==== 2. seeding and pulls ================================================== */

/*
 * With mix_lock held: mixes a pull from the input pool into the pool.
 * Readers hash the pool without the lock, so the seeding is published as a
 * new seeding number (pool2015.h, surand_p15_seed_begin): a reader keeps a
 * hash only if valid read the same odd word before and after it.  A plain
 * "seeded" word stored after the mix, landing on a page dropped just before,
 * set it over a pool of zeros (see pool2015.c's p15_seal); and a reader that
 * hashed a dropped page while the pool was re-seeded found the same word
 * again after its hash (YES, 0, YES) and kept a hash of zeros.
 */
static void mix_pull_locked(const uint8_t *tmp)
{
	uint32_t before = surand_p15_seed_begin(&sec->pool);

	surand_p15_mix(&sec->pool, SURAND_P15_OUT_WORDS, tmp, PULL_BYTES);
	surand_p15_seed_end(&sec->pool, before);
	n_pulls++;
}

static void mixback_release(int cs);

/* Pulls from the input pool (outside the lock), then mixes it in. */
static int salted_pull(void *ctx, uint64_t now)
{
	uint8_t tmp[PULL_BYTES];
	int r, cs;

	(void)ctx; /* surand_p15_read's callback: no context */
	r = surand_p15_input_pull(tmp, sizeof(tmp));
	if (r == 0) {
		surand_lock(&mix_lock, &cs);
		mix_pull_locked(tmp);
		__atomic_store_n(&next_pull_ns, now + SURAND_P15_PULL_INTERVAL_NS, __ATOMIC_RELAXED);
		mixback_release(cs);
	}
	surand_wipe(tmp, sizeof(tmp));
	return r;
}

/* ==== 3. the mixback ======================================================== */

static void mix_hash_locked(const uint32_t h[5])
{
	uint8_t hb[SURAND_P15_HASH_BYTES];

	surand_p15_hash_bytes(h, hb);
	surand_p15_mix(&sec->pool, SURAND_P15_OUT_WORDS, hb, sizeof(hb));
	surand_wipe(hb, sizeof(hb));
}

/* With mix_lock held: folds every published hash into the pool, in order. */
static void drain_locked(void)
{
	uint64_t pos = __atomic_load_n(&mb_head, __ATOMIC_RELAXED);
	uint32_t h[5];
	unsigned c, i;

	for (;;) {
		c = (unsigned)(pos & MB_MASK);
		/* Acquire, paired with mb_append's release: the hash words are read after. */
		if (__atomic_load_n(&mb_seq[c].seq, __ATOMIC_ACQUIRE) != pos + 1)
			break; /* empty, or its reader has not published yet */
		for (i = 0; i < 5; i++) {
			h[i] = W_LOAD(sec->hash[c][i]);
			/* A hash waiting no longer: it never stays in memory. */
			W_STORE(sec->hash[c][i], 0);
		}
		mix_hash_locked(h);
		/* Release: our reads of the cell are done before a writer reuses it. */
		__atomic_store_n(&mb_seq[c].seq, pos + MB_CELLS, __ATOMIC_RELEASE);
		pos++;
		__atomic_store_n(&mb_head, pos, __ATOMIC_RELAXED);
	}
	surand_wipe(h, sizeof(h));
}

/* 1 when the next cell to fold has been published.  Sequentially consistent
 * loads: the Dekker pairing with mixback's SURAND_FULL_FENCE (dmb ish on
 * aarch64, mfence-like locked add on x86) needs store-load order. */
static int mb_ready(void)
{
	uint64_t pos = __atomic_load_n(&mb_head, __ATOMIC_SEQ_CST);

	return __atomic_load_n(&mb_seq[pos & MB_MASK].seq, __ATOMIC_SEQ_CST) == pos + 1;
}

/*
 * Releases mix_lock after folding the buffer; then, if a hash was published
 * while the lock was held, takes the lock again to fold it.  With the
 * publisher's fence-then-trylock this leaves no published hash behind: if
 * its trylock failed, our unlock came after its publish, and we see it here.
 */
static void mixback_release(int cs)
{
	for (;;) {
		drain_locked();
		surand_unlock(&mix_lock, cs);
		SURAND_FULL_FENCE();
		if (!mb_ready() || !surand_trylock(&mix_lock, &cs))
			return;
	}
}

/* 1 when the hash went into the buffer; 0 when the buffer is full. */
static int mb_append(const uint32_t h[5])
{
	uint64_t pos = __atomic_load_n(&mb_tail, __ATOMIC_RELAXED), seq;
	unsigned c, i;
	int64_t dif;

	for (;;) {
		c = (unsigned)(pos & MB_MASK);
		/* Acquire: the folder's reads of the cell are done before we write it. */
		seq = __atomic_load_n(&mb_seq[c].seq, __ATOMIC_ACQUIRE);
		dif = (int64_t)(seq - pos);
		if (dif == 0) {
			SURAND_BENCH_COUNT_RMW();
			if (__atomic_compare_exchange_n(&mb_tail, &pos, pos + 1, 1, __ATOMIC_RELAXED,
							__ATOMIC_RELAXED))
				break;
		} else if (dif < 0) {
			return 0; /* full */
		} else {
			pos = __atomic_load_n(&mb_tail, __ATOMIC_RELAXED);
		}
	}
	for (i = 0; i < 5; i++)
		W_STORE(sec->hash[c][i], h[i]);
	/* Release: the hash words before the publication (aarch64: stlr). */
	__atomic_store_n(&mb_seq[c].seq, pos + 1, __ATOMIC_RELEASE);
	return 1;
}

/* Mixes h back: now if the trylock is won, else via the buffer. */
static void mixback(const uint32_t h[5])
{
	int cs;

	if (surand_trylock(&mix_lock, &cs)) {
		mix_hash_locked(h);
		n_direct_try++;
		mixback_release(cs);
		return;
	}
	if (mb_append(h)) {
		/* Published; the holder we lost to folds it, or we do. */
		SURAND_FULL_FENCE();
		if (surand_trylock(&mix_lock, &cs))
			mixback_release(cs);
		return;
	}
	/* Buffer full: wait for the lock rather than drop the hash. */
	surand_lock(&mix_lock, &cs);
	mix_hash_locked(h);
	n_direct_wait++;
	mixback_release(cs);
}

/* ==== 4. the read path ====================================================== */

/* One extraction without the lock: salted hash of the pool, folded. 0 or -1
 * (pool unseeded or its page dropped: pull and retry). */
static int salted_extract(void *ctx, uint8_t out[SURAND_P15_EXTRACT_BYTES])
{
	uint32_t iv[5], h[5], v;

	(void)ctx;
	v = surand_p15_salted_begin(&sec->pool, iv);
	if (!surand_p15_seeded(v))
		return -1;
#ifdef SURAND_TEST_BUILD
	if (tls_reseed_during_hash)
		memset(&sec->pool, 0, sizeof(sec->pool)); /* as a dropped page reads */
#endif
	surand_p15_hash(&sec->pool, SURAND_P15_OUT_WORDS, iv, h);
#ifdef SURAND_TEST_BUILD
	if (tls_reseed_during_hash) {
		tls_reseed_during_hash = 0;
		(void)salted_pull(NULL, surand_now_ns()); /* another reader re-seeds */
		__atomic_fetch_add(&reseeds_during_hash, 1, __ATOMIC_RELAXED);
	}
#endif
	if (surand_p15_salted_end(&sec->pool, v, h) != 0)
		return -1;
	surand_p15_fold(h, out);
	mixback(h);
	surand_wipe(h, sizeof(h));
	return 0;
}

/* salted_reseed pulls now; the release folds every waiting hash in too. */
SURAND_P15_READ_HOOKS(salted, next_pull_ns)

/* ==== 5. init, control, fork, stats, test hooks ============================= */

static int salted_init(void)
{
	surand_design_prepare();
	sec = surand_secmem_once(sec, sizeof(*sec));
	if (!sec)
		return -ENOMEM;
	mb_reset();
	return 0;
}

static void salted_atfork_child(void)
{
	/* The secret holds the pool and the waiting hashes. */
	surand_p15_design_atfork_child(&mix_lock, sec, sizeof(*sec), &next_pull_ns);
	mb_reset();
	n_direct_try = n_direct_wait = n_pulls = 0;
	/* The forking thread's salt serial and count stay: with the new fork
	 * generation the salts stay unique (surand_p15_salted_iv). */
}

/*
 * backend_counters: [0] extractions, [1] mixbacks by trylock winners,
 * [2] hashes appended to the buffer, [3] hashes folded from the buffer,
 * [4] mixbacks after waiting for the lock (buffer full), [5] pulls from the
 * input pool, [6] hashes waiting in the buffer now.
 */
static void salted_stats(struct surand_stats *st)
{
	uint64_t tail, head;
	int cs;

	surand_lock(&mix_lock, &cs);
	tail = __atomic_load_n(&mb_tail, __ATOMIC_RELAXED);
	head = __atomic_load_n(&mb_head, __ATOMIC_RELAXED);
	st->backend_counters[0] = n_direct_try + n_direct_wait + tail;
	st->backend_counters[1] = n_direct_try;
	st->backend_counters[2] = tail;
	st->backend_counters[3] = head;
	st->backend_counters[4] = n_direct_wait;
	st->backend_counters[5] = n_pulls;
	st->backend_counters[6] = tail - head;
	/* Every holder releases through the protocol: no hash left behind. */
	mixback_release(cs);
}

#ifdef SURAND_TEST_BUILD
static int hold_cs;
static __thread int tls_holding; /* this (test) thread holds mix_lock */

void surand_test_salted_hold(int on)
{
	if (on) {
		surand_lock(&mix_lock, &hold_cs);
		tls_holding = 1;
	} else {
		tls_holding = 0;
		mixback_release(hold_cs);
	}
}

unsigned long surand_test_salted_reseed_during_hash(int arm)
{
	tls_reseed_during_hash = arm;
	return __atomic_load_n(&reseeds_during_hash, __ATOMIC_RELAXED);
}

static int salted_snapshot(int which, struct surand_test_snapshot *s)
{
	uint64_t head, tail, pos;
	uint32_t n = 0;
	unsigned i;
	int cs = 0;

	if (!surand_test_one_state(which) || !sec ||
	    !surand_p15_seeded(__atomic_load_n(&sec->pool.valid, __ATOMIC_ACQUIRE)))
		return -1;
	/* A consistent copy: under the lock (which the test may hold already). */
	if (!tls_holding)
		surand_lock(&mix_lock, &cs);
	surand_p15_test_copy(&sec->pool, s);
	/* Hashes waiting in the buffer are state too (they regenerate output). */
	head = __atomic_load_n(&mb_head, __ATOMIC_ACQUIRE);
	tail = __atomic_load_n(&mb_tail, __ATOMIC_ACQUIRE);
	for (pos = head; pos != tail && n + 20 <= sizeof(s->extra); pos++) {
		for (i = 0; i < 5; i++)
			surand_store32_le(s->extra + n + 4 * i, W_LOAD(sec->hash[pos & MB_MASK][i]));
		n += 20;
	}
	s->extra_len = n;
	if (!tls_holding)
		mixback_release(cs);
	return 0;
}

static void salted_drop(void)
{
	int cs;

	surand_p15_test_drop_input();
	surand_lock(&mix_lock, &cs);
	surand_test_zero_words(sec, sizeof(*sec)); /* pool and waiting hashes: zeros */
	mixback_release(cs);
}

static int salted_writes(int which, uint64_t *counts, uint32_t nwords)
{
	if (!surand_test_one_state(which) || !sec)
		return -1;
	return surand_p15_test_writes(&sec->pool, counts, nwords);
}
#endif

const struct surand_backend surand_backend_salted = SURAND_SALTED_POOL_BACKEND(
	salted, "salted", "Spelvin 2015: lock-free salted reads of one pool, trylock mixback + buffer",
	salted_writes);
