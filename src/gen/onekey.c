/*
 * onekey.c - George Spelvin's simpler alternative (Ts'o's mail of 12 Oct 2015,
 * the LWN article): "just have *one* key for the kernel, reseeded more
 * often, and a per-thread nonce and stream position."
 *
 * One process-wide ChaCha20 key, fresh from the kernel every
 * SURAND_ONEKEY_SECS seconds (default 1), in wipe-on-fork memory and re-keyed
 * in a fork child.  Every thread draws a nonce once (a process-wide counter)
 * and keeps its own block position; a call is ChaCha20(key, nonce, position
 * ...), whole blocks (the rest of the last block is dropped), and the
 * position moves past them.  The key is read without a lock (a seqlock); the
 * fast path writes nothing other threads read.
 *
 * NO BACKTRACKING PROTECTION BETWEEN RESEEDS.  Whoever reads the key from
 * memory (a core-dump-free process is still readable by a debugger, a
 * kernel exploit, a cold-boot attack) can regenerate every byte any thread
 * drew since the key's last reseed: all nonces and positions are small
 * integers.  Protection comes only with the next reseed, which replaces the
 * key (the old one is overwritten, not derived).  Spelvin offered this as
 * the design you get "if discarding [anti-backtracking] is on the table";
 * surand implements it to measure what that costs, not as a recommendation.
 *
 * Sections: state; the key (seqlock, reseed); the read path; control, fork,
 * stats, test hooks.
 * SPDX-License-Identifier: MIT
 */
#include "gen/designs.h"

#include <errno.h>

/* ==== state ================================================================= */

#define NS_PER_S 1000000000ull

struct onekey_secret {
	uint32_t key[8];
	uint64_t gen;   /* key generation; 0: no key (fresh, fork child, dropped page) */
};

static struct onekey_secret *sec;          /* wipe-on-fork memory */
static struct surand_lock key_lock = SURAND_LOCK_INITIALIZER; /* writers only */
static uint64_t key_seq __attribute__((aligned(SURAND_CACHELINE))); /* odd while written */
static uint64_t key_expiry_ns;             /* read by every call: when to reseed */
static uint64_t key_gen_next = 1;          /* under key_lock */
static uint64_t nonces __attribute__((aligned(SURAND_CACHELINE))); /* last nonce handed out */
static uint64_t n_reseeds;                 /* under key_lock */

static __thread uint64_t tls_nonce __attribute__((tls_model("initial-exec"))); /* 0: none yet */
static __thread uint64_t tls_pos __attribute__((tls_model("initial-exec")));   /* next block */
#ifdef SURAND_TEST_BUILD
/* No copy of the key here: TLS is ordinary, dumpable memory (the snapshot
 * reads the key itself while its generation is unchanged). */
static __thread uint64_t tls_last_start, tls_last_gen;
#endif

/* ==== the key =============================================================== */

/* With key_lock held: a fresh key from the kernel replaces the old one. */
static int rekey_locked(uint64_t now)
{
	uint8_t k[32];
	uint64_t s;
	int r, i;

	r = surand_kernel_fill(k, sizeof(k), 0);
	if (r < 0) {
		surand_wipe(k, sizeof(k));
		return r;
	}
	s = __atomic_load_n(&key_seq, __ATOMIC_RELAXED);
	/* Odd: readers retry.  Relaxed is enough: the release stores below
	 * order it before every key word (a reader that sees one new word
	 * then reads key_seq >= s + 1 and retries). */
	__atomic_store_n(&key_seq, s + 1, __ATOMIC_RELAXED);
	/* The generation before the key ("sealed" first, as thread.c's
	 * slot_seal): a page dropped at any later moment reads gen 0, which
	 * key_read refuses.  Stored after the key, a drop in between left a
	 * valid generation over a zero key: public output, the same in every
	 * process (tests/test_faults.c, droppable, under valgrind). */
	__atomic_store_n(&sec->gen, key_gen_next++, __ATOMIC_RELEASE);
	/* Overwritten, not derived: the old key is gone (the only backtracking
	 * protection this design has). */
	for (i = 0; i < 8; i++)
		__atomic_store_n(&sec->key[i], surand_load32_le(k + 4 * i), __ATOMIC_RELEASE);
	__atomic_store_n(&key_seq, s + 2, __ATOMIC_RELEASE); /* after the key: readers' s1 acquire */
	__atomic_store_n(&key_expiry_ns, now + surand_design_config()->onekey_reseed_s * NS_PER_S,
			 __ATOMIC_RELAXED);
	n_reseeds++;
	surand_wipe(k, sizeof(k));
	return 0;
}

/* Re-keys unless another thread did since `seen` (a generation). */
static int rekey(uint64_t now, uint64_t seen, int force)
{
	int r = 0, cs;

	surand_lock(&key_lock, &cs);
	if (force || __atomic_load_n(&sec->gen, __ATOMIC_RELAXED) == seen ||
	    now >= __atomic_load_n(&key_expiry_ns, __ATOMIC_RELAXED))
		r = rekey_locked(now);
	surand_unlock(&key_lock, cs);
	return r;
}

/*
 * A consistent copy of the key without a lock (seqlock).  0, or -1 when a
 * writer was busy or there is no key (gen 0: fresh, fork child, or the page
 * was dropped, which zeroes gen along with the key read before it).
 */
static int key_read(uint32_t k[8], uint64_t *gen)
{
	uint64_t s1, s2;
	int i;

	/* Acquire on s1 and on every word: each later load stays after them,
	 * so s2 is read last (aarch64: ldar; x86: plain loads under TSO). */
	s1 = __atomic_load_n(&key_seq, __ATOMIC_ACQUIRE);
	if (s1 & 1)
		return -1;
	for (i = 0; i < 8; i++)
		k[i] = __atomic_load_n(&sec->key[i], __ATOMIC_ACQUIRE);
	*gen = __atomic_load_n(&sec->gen, __ATOMIC_ACQUIRE);
	s2 = __atomic_load_n(&key_seq, __ATOMIC_RELAXED);
	return s1 == s2 && *gen != 0 ? 0 : -1;
}

/* ==== the read path ========================================================= */

static int onekey_fill(void *buf, size_t len)
{
	uint64_t now = surand_now_ns(), gen = 0, nblocks, start;
	uint8_t *p = buf, tail[64];
	uint32_t k[8];
	size_t whole = len / 64;
	int r, tries = 0;

	if (SURAND_UNLIKELY(now >= __atomic_load_n(&key_expiry_ns, __ATOMIC_RELAXED))) {
		r = rekey(now, __atomic_load_n(&sec->gen, __ATOMIC_RELAXED), 0);
		if (r < 0 && !__atomic_load_n(&sec->gen, __ATOMIC_RELAXED))
			return r; /* no key at all: fail closed */
	}
	while (key_read(k, &gen) != 0) {
		if (++tries > 64)
			return surand_kernel_fill(buf, len, 0); /* pages dropped again and again */
		if (__atomic_load_n(&sec->gen, __ATOMIC_RELAXED) == 0) {
			r = rekey(now, 0, 0);
			if (r < 0)
				return r;
		}
	}
	if (SURAND_UNLIKELY(tls_nonce == 0)) {
		/* Once per thread: a nonce no other thread of this process line
		 * has (never 0).  With the key, it names this thread's stream. */
		SURAND_BENCH_COUNT_RMW();
		tls_nonce = __atomic_add_fetch(&nonces, 1, __ATOMIC_RELAXED);
	}
	/* This call owns blocks [start, start + nblocks) of (key, nonce). */
	nblocks = whole + (len % 64 != 0);
	start = tls_pos;
	tls_pos = start + nblocks;
	surand_chacha20_blocks(k, start, tls_nonce, p, whole);
	if (len % 64) {
		surand_chacha20_blocks(k, start + whole, tls_nonce, tail, 1);
		memcpy(p + whole * 64, tail, len % 64);
		surand_wipe(tail, sizeof(tail));
	}
#ifdef SURAND_TEST_BUILD
	tls_last_start = start;
	tls_last_gen = gen;
#endif
	surand_wipe(k, sizeof(k));
	/* The shared key must not linger in vector registers (core dumps). */
	surand_scrub_vector_regs();
	return 0;
}

/* ==== init, control, fork, stats, test hooks ================================ */

static int onekey_init(void)
{
	surand_design_prepare();
	sec = surand_secmem_once(sec, sizeof(*sec));
	if (!sec)
		return -ENOMEM;
	return 0;
}

static int onekey_reseed(void)
{
	return rekey(surand_now_ns(), 0, 1);
}

static void onekey_atfork_child(void)
{
	surand_lock_init(&key_lock, SURAND_LOCK_FUTEX);
	/* Zero already where wipe-on-fork works; explicit for kind -1: the
	 * child takes a key of its own before any output. */
	if (sec)
		surand_wipe(sec, sizeof(*sec));
	__atomic_store_n(&key_seq, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&key_expiry_ns, 0, __ATOMIC_RELAXED);
	n_reseeds = 0;
	/* The forking thread keeps its nonce and position: under the child's
	 * new key they name a new stream. */
}

/* backend_counters: [0] key reseeds, [1] nonces handed out (threads), [2] key generation. */
static void onekey_stats(struct surand_stats *st)
{
	int cs;

	surand_lock(&key_lock, &cs);
	st->backend_counters[0] = n_reseeds;
	st->backend_counters[2] = sec ? __atomic_load_n(&sec->gen, __ATOMIC_RELAXED) : 0;
	surand_unlock(&key_lock, cs);
	st->backend_counters[1] = __atomic_load_n(&nonces, __ATOMIC_RELAXED);
}

#ifdef SURAND_TEST_BUILD
/* LAST: the key, nonce and blocks of the calling thread's last call
 * (counter = the next position, extra = the first block's position). */
static int onekey_snapshot(int which, struct surand_test_snapshot *s)
{
	uint64_t gen;
	uint32_t k[8];

	if (which != SURAND_TEST_SNAP_LAST || !tls_last_gen)
		return -1;
	if (key_read(k, &gen) != 0 || gen != tls_last_gen) {
		surand_wipe(k, sizeof(k));
		return -1; /* re-keyed since the last call: that key is gone */
	}
	s->kind = SURAND_TEST_SNAP_CHACHA;
	memcpy(s->key, k, 32);
	surand_wipe(k, sizeof(k));
	s->counter = tls_pos;
	s->nonce = tls_nonce;
	s->generation = tls_last_gen;
	memcpy(s->extra, &tls_last_start, 8);
	s->extra_len = 8;
	return 0;
}

static void onekey_drop(void)
{
	int cs;

	surand_lock(&key_lock, &cs);
	surand_test_zero_words(sec, sizeof(*sec));
	surand_unlock(&key_lock, cs);
}
#endif

const struct surand_backend surand_backend_onekey = {
	.name = "onekey",
	.summary = "Spelvin 2015: one ChaCha20 key (reseeded 1/s), per-thread nonce; no backtracking protection",
	.props = SURAND_BP_BACKTRACK_RESEED | SURAND_BP_PER_THREAD,
	SURAND_BACKEND_HOOKS(onekey, NULL)
};
