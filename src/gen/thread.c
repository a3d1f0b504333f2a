/*
 * thread.c - the default design: a private ChaCha20 generator per thread,
 * keyed from the base key by fast key erasure, with fast key erasure at every
 * refill (so every call, not only every reseed, is backtracking-resistant).
 *
 * Sections:
 *   1. the slot: layout and tunables
 *   2. the slab: slots for all threads, in wipe-on-fork memory
 *   3. keying and refilling
 *   4. the fast path and the slow path
 *   5. thread exit, fork, stats, test hooks
 *
 * The fast path takes no lock, does no atomic read-modify-write and writes no
 * memory shared with other threads: it reads the base generation (one shared,
 * read-mostly word) and touches only the calling thread's slot and TLS.
 * SPDX-License-Identifier: MIT
 */
#include "gen/thread_fast.h"
#include "gen/slab.h"
#include "benchcount.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

/* ==== 1. the slot ============================================================
 *
 * A slot is one 4 KiB page (SLOT_BYTES), so it never straddles a page: a
 * dropped MAP_DROPPABLE page takes the whole slot with it, header included,
 * and the zero generation that then reads back means "re-key".
 *
 *   bytes     0 .. 4031  the batch: 63 ChaCha20 blocks of output
 *   bytes  4032 .. 4095  the header; its first 32 bytes are the key
 *
 * A refill runs the widest body over 64 blocks (the key is copied out first;
 * the slot's generation is sealed before any of it lands, see slot_seal):
 * blocks 0-47 straight into the batch, blocks 48-63 in one 16-block pass into
 * a wiped stack buffer, of which blocks 48-62 end the batch and the first half
 * of block 63 becomes the header's key field, the next key (fast key
 * erasure).  Only the last pass goes through the stack: written in place it
 * would overwrite the generation, and a page dropped before the header was
 * rewritten would return a zero batch.
 * Why a page: besides its ChaCha20 blocks every refill has fixed costs (the
 * clock, the vDSO fold of fresh kernel bytes, the stack and register scrub,
 * the stack pass), which a bigger batch shares among more calls.  Measured
 * with bench/slot_size.sh (BENCHMARKS.md): a 16-byte call costs about 20%
 * less with a 4 KiB slot than with a 1 KiB one, 2 KiB lies between.  That is
 * above the 2 KiB the design first aimed at, which allows more where the benchmark
 * shows it pays; 64 threads hold 256 KiB of slots.
 * SURAND_THREAD_SLOT_BYTES (1024, 2048 or 4096) overrides it at build time,
 * for those measurements.
 */
/* Per-slot record beside the slab's (ordinary memory, not secret): where
 * the owner's counters are, for stats.  One cache line each. */
struct slot_meta {
	uint32_t slab_link; /* the slab's word (gen/slab.h) */
	uint32_t reserved;
	uint64_t *calls;   /* the owner's TLS counters (read by stats) */
	uint64_t *bytes;
	uint64_t *refills;
	uint64_t *direct;
	uint64_t *words;   /* [0]: 4-byte, [1]: 8-byte draws of thread_word */
	uint8_t pad[SURAND_CACHELINE - 48];
} __attribute__((aligned(64)));
_Static_assert(sizeof(struct slot_meta) == SURAND_CACHELINE, "one record a cache line");

/* ==== 2. the slab ============================================================
 *
 * The designs' slab (gen/slab.h), SLOTS_PER_CHUNK slots a chunk, with a
 * slot_meta record beside each slot: taken and given back under the slab's
 * lock together with the owner's counters. */

static struct surand_slab slab =
	SURAND_SLAB_INITIALIZER_RECORDS(sizeof(struct slot), SLOTS_PER_CHUNK, sizeof(struct slot_meta));
static uint64_t n_threads_seen;
/* Counters of threads that have exited (or whose slot was given back). */
static uint64_t dead_calls, dead_bytes, dead_refills, dead_direct;

/* The calling thread's slot and counters: thread_fast.h. */
__thread struct thread_tls surand_thread_tls __attribute__((tls_model("initial-exec")));
#define tls surand_thread_tls
#define tls_slot tls.slot
#define tls_slot_index tls.index
#define tls_calls tls.calls
#define tls_bytes tls.bytes
#define tls_refills tls.refills
#define tls_direct tls.direct

static void thread_exit_cb(void);

/* Gives the calling thread a slot; NULL when none can be mapped. */
static struct slot *slot_acquire(void)
{
	struct slot *s;
	struct slot_meta *m;
	uint32_t i;
	int st;

	surand_slab_lock(&slab, &st);
	SURAND_TEST_POINT(SURAND_TP_SLAB_LOCKED);
	s = surand_slab_take_locked(&slab, &i);
	if (s) {
		m = surand_slab_record(&slab, i);
		m->calls = &tls_calls;
		m->bytes = &tls_bytes;
		m->refills = &tls_refills;
		m->direct = &tls_direct;
		m->words = tls.pub.words;
		/* Taken wiped: a zero header (gen 0) forces a re-key before any
		 * output; the batch reads as empty. */
		s->h.gen = 0;
		s->h.pos = BATCH_BYTES;
		tls_slot_index = i;
		n_threads_seen++;
	}
	surand_slab_unlock(&slab, st);
	tls_slot = s;
	return s;
}

/* ==== 3. keying and refilling =============================================== */

/*
 * MAP_DROPPABLE: a page may read as zeros from any moment on.  Every write of
 * secret data into a slot is therefore preceded by the write of its nonzero
 * generation ("sealed" first): a drop at any later moment zeroes the
 * generation too, and every reader, which re-checks the generation after
 * copying, re-keys.  Written after the data instead (or overwritten by the
 * data), a drop in between left a valid generation over a zero batch, and
 * surand_bytes returned zeros (tests/test_faults.c, droppable).
 */
static inline void slot_seal(struct slot *s, uint64_t gen)
{
	__atomic_store_n(&s->h.gen, gen, __ATOMIC_RELAXED);
	SURAND_STORE_FENCE(); /* the seal before the data stores (aarch64: dmb ish; x86: TSO) */
}

/* Takes a fresh key from the base; kernel bytes are folded in before the
 * thread's first batch, so a thread's stream never rests on the base alone. */
static int slot_rekey(struct slot *s, uint64_t now)
{
	uint32_t k[8];
	uint64_t gen;
	int r;

	r = surand_base_derive(k, &gen);
	if (r < 0)
		return r;
	(void)surand_fold_kernel(k, FOLD_BYTES);
	/* The generation first (see slot_seal): a page dropped while the key is
	 * written reads gen 0, never a valid header over a zero key. */
	slot_seal(s, gen);
	memcpy(s->h.key, k, 32);
	surand_wipe(k, sizeof(k));
	/* Unreturned bytes of the old key are dropped, not kept. */
	surand_wipe(s->batch, sizeof(s->batch));
	s->h.pos = BATCH_BYTES;
	s->h.cranks = 0;
	s->h.rekey_ns = now;
	return 0;
}

/* True when the slot must take a new key from the base before more output. */
static int slot_stale(const struct slot *s, uint64_t now)
{
	return s->h.gen != surand_base_generation() || s->h.cranks >= CRANKS_MAX ||
	       now - s->h.rekey_ns >= surand_base_interval_ns(now);
}

static int slot_ensure_key(struct slot *s)
{
	uint64_t now = surand_now_ns(); /* the clock is read only here, at refill */

	surand_base_maybe_reseed(now);
	if (slot_stale(s, now))
		return slot_rekey(s, now);
	return 0;
}

/*
 * After a ChaCha20 pass: what the body, the copies and the spills left in
 * vector registers and in the stack just below the caller's frame is cleared,
 * so that a core dump (or a debugger) right after a refill finds neither the
 * next key nor the batch there (tests/test_hygiene.c, core_kernel, found both
 * in the register notes and in the stack of the core).  Every vector register
 * is caller-saved in the x86-64 ABI, so clearing them here clobbers nothing
 * the caller keeps.
 */
static __attribute__((noinline)) void scrub_after_pass(void)
{
	uint8_t burn[8192]; /* the frames the body and the copies used */

	surand_wipe(burn, sizeof(burn));
	surand_scrub_vector_regs();
}

/* One refill of the whole slot with the widest body (see section 1). */
static int slot_refill(struct slot *s)
{
	struct slot_hdr h;
	uint32_t k[8];
	uint8_t pass[TAIL_BLOCKS * SURAND_CHACHA20_BLOCK_SIZE];
	int r;

	r = slot_ensure_key(s);
	if (r < 0)
		return r;
	SURAND_TEST_POINT(SURAND_TP_REFILL);
	h = s->h;
#ifdef SURAND_TEST_BUILD
	/* A page dropped in the middle of that copy (the point's handler drops
	 * it): the words copied after the drop read zeros.  Modelled as the
	 * generation copied before it and the key after it; a handler that
	 * dropped nothing leaves the key as it was copied. */
	if (surand_test_point_fired(SURAND_TP_REFILL_COPIED) &&
	    __atomic_load_n(&s->h.gen, __ATOMIC_RELAXED) == 0)
		memset(h.key, 0, sizeof(h.key));
#endif
	SURAND_LOAD_FENCE(); /* copy before re-check (aarch64: dmb ishld; x86: TSO) */
	/* Dropped since the key was checked (or during the copy): the key read
	 * may be zeros, a public key.  Retry from the re-key. */
	if (SURAND_UNLIKELY(h.gen == 0 || __atomic_load_n(&s->h.gen, __ATOMIC_RELAXED) != h.gen)) {
		surand_wipe(&h, sizeof(h));
		return -EAGAIN;
	}
	memcpy(k, h.key, 32);
	surand_wipe(h.key, sizeof(h.key));
	/* VM clones: fresh kernel bytes in every batch's key (vDSO only). */
	if (surand_vdso_available())
		(void)surand_fold_kernel(k, FOLD_BYTES);
	/* The generation is sealed before any output lands in the slot. */
	slot_seal(s, h.gen);
	if (INPLACE_BLOCKS)
		surand_chacha20_blocks(k, 0, 0, s->batch, INPLACE_BLOCKS);
	/* The last pass off the droppable page: it covers the header. */
	surand_chacha20_blocks(k, INPLACE_BLOCKS, 0, pass, TAIL_BLOCKS);
	surand_wipe(k, sizeof(k));
	memcpy(s->batch + INPLACE_BLOCKS * SURAND_CHACHA20_BLOCK_SIZE, pass,
	       BATCH_BYTES - INPLACE_BLOCKS * SURAND_CHACHA20_BLOCK_SIZE);
	/* The key that made this batch is gone: the last block replaces it. */
	memcpy(s->h.key, pass + sizeof(pass) - 64, 32);
	surand_wipe(pass, sizeof(pass));
	s->h.cranks = h.cranks + SLOT_BLOCKS;
	s->h.rekey_ns = h.rekey_ns;
	s->h.pos = 0;
	scrub_after_pass();
	TLS_ADD(tls_refills, 1);
	return 0;
}

/*
 * Copies n buffered bytes out and zeroes them in the batch.  Returns 0, or -1
 * when the slot's page was dropped (or the generation moved) during the copy:
 * then buf is wiped and the caller retries.
 */
static inline __attribute__((always_inline)) int slot_take(struct slot *s, uint8_t *buf,
							   uint32_t n, uint64_t gen)
{
	uint32_t pos = s->h.pos;

	SURAND_TEST_POINT(SURAND_TP_TAKE); /* tests drop the page here */
	/* Bytes handed out never stay in memory. */
	move_and_zero(buf, s->batch + pos, n);
	/* Order the copy before the re-check: a dropped page reads gen == 0. */
	SURAND_LOAD_FENCE(); /* copy before re-check (aarch64: dmb ishld; x86: TSO) */
	if (SURAND_UNLIKELY(__atomic_load_n(&s->h.gen, __ATOMIC_RELAXED) != gen)) {
		surand_wipe(buf, n);
		return -1;
	}
	s->h.pos = pos + n;
	return 0;
}

/*
 * A large request: a one-use key, the next 32 bytes of the batch (taken as
 * any draw is: zeroed in the slot as they are copied out, never handed out),
 * with fresh kernel bytes folded in; its keystream goes straight into buf.
 * Taking the key from the batch costs a 32-byte copy where a key block of
 * its own cost a single-block ChaCha20 pass (about 110 ns, BENCHMARKS.md).
 */
static int slot_direct(struct slot *s, uint8_t *buf, size_t len)
{
	uint32_t k[8];
	uint8_t kb[32];
	uint64_t gen;
	int r, i;

	/* Every one-use key keeps the schedule: the clock is read, a due reseed
	 * of the base runs, a key past its age re-keys (and empties the batch). */
	r = slot_ensure_key(s);
	if (r < 0)
		return r;
	gen = s->h.gen;
	/* Refilled when stale, dropped (gen 0) or short of a key: the rest of
	 * the batch is overwritten. */
	if (gen == 0 || gen != surand_base_generation() || s->h.pos > BATCH_BYTES - sizeof(kb)) {
		r = slot_refill(s);
		if (r < 0)
			return r; /* -EAGAIN: dropped meanwhile, the caller retries */
		gen = s->h.gen;
		if (SURAND_UNLIKELY(gen == 0))
			return -EAGAIN;
	}
	/* Dropped during the copy: kb is wiped and may have been zeros. */
	if (slot_take(s, kb, sizeof(kb), gen) != 0)
		return -EAGAIN;
	for (i = 0; i < 8; i++)
		k[i] = surand_load32_le(kb + 4 * i);
	surand_wipe(kb, sizeof(kb));
	/* VM clones: fresh kernel bytes in every one-use key (vDSO only). */
	if (surand_vdso_available())
		(void)surand_fold_kernel(k, FOLD_BYTES);
	surand_fill_from_key(k, buf, len); /* wipes k */
	scrub_after_pass(); /* the one-use key would regenerate buf */
	TLS_ADD(tls_direct, 1);
	return 0;
}

/* ==== 4. the fast path and the slow path ==================================== */

/* Lock-free kernel path: a slot could not be had. */
static uint64_t n_fallback_nomem;

static __attribute__((noinline, cold)) int thread_fill_slow(uint8_t *buf, size_t len)
{
	struct slot *s = tls_slot;
	uint32_t avail, n;
	uint64_t gen;
	int r, retries = 0;

	if (!s) {
		s = slot_acquire();
		if (!s) {
			/* Never shared unlocked state: the kernel serves this call. */
			SURAND_COUNT(n_fallback_nomem);
			if (surand_vdso_fill(buf, len) == 0)
				return 0;
			return surand_kernel_fill(buf, len, 0);
		}
	}
	TLS_ADD(tls_calls, 1);
	TLS_ADD(tls_bytes, len);
	while (len) {
		if (SURAND_UNLIKELY(++retries > 64)) /* pages dropped again and again */
			return surand_kernel_fill(buf, len, 0);
		if (len >= DIRECT_MIN_BYTES) {
			r = slot_direct(s, buf, len);
			if (r == -EAGAIN)
				continue;
			return r;
		}
		if (s->h.gen == 0 || s->h.gen != surand_base_generation() || s->h.pos >= BATCH_BYTES) {
			r = slot_refill(s);
			if (r == -EAGAIN)
				continue; /* the page was dropped meanwhile */
			if (r < 0)
				return r;
		}
		/* The generation the copy is checked against is read first and is
		 * never 0: a page dropped before this line is not "unchanged". */
		gen = s->h.gen;
		if (SURAND_UNLIKELY(gen == 0))
			continue;
		avail = BATCH_BYTES - s->h.pos;
		n = len < avail ? (uint32_t)len : avail;
		if (slot_take(s, buf, n, gen) != 0)
			continue;
		buf += n;
		len -= n;
	}
	return 0;
}

/* Requests of 33 bytes up to DIRECT_MIN_BYTES that fit the batch: memcpy-sized
 * (from DIRECT_MIN_BYTES on, a one-use key fills them even when they would fit). */
static __attribute__((noinline)) int thread_fill_copy(uint8_t *buf, size_t len)
{
	struct slot *s = tls_slot;
	uint64_t gen;

	if (SURAND_LIKELY(s != NULL && len < DIRECT_MIN_BYTES)) {
		gen = s->h.gen;
		if (SURAND_LIKELY(gen == surand_base_generation() && len <= BATCH_BYTES - s->h.pos)) {
			if (SURAND_LIKELY(slot_take(s, buf, (uint32_t)len, gen) == 0)) {
				TLS_ADD(tls_calls, 1);
				TLS_ADD(tls_bytes, len);
				return 0;
			}
		}
	}
	return thread_fill_slow(buf, len);
}

/* Requests of 1..32 bytes: the fast path (thread_fast.h), which the front
 * end also inlines; what it declines goes the slow way. */
static int thread_fill(void *buf, size_t len)
{
	if (SURAND_LIKELY(surand_thread_fill_fast(buf, len) == 0))
		return 0;
	if (len > 32)
		return thread_fill_copy(buf, len);
	return thread_fill_slow(buf, len);
}

/* surand_u32/u64 through the vtable (thread_fast.h; api.c inlines it). */
static struct surand_word thread_word(unsigned n)
{
	return surand_thread_word(n);
}

/* ==== 5. thread exit, fork, stats, test hooks =============================== */

static void thread_exit_cb(void)
{
	struct slot *s = tls_slot;
	struct slot_meta *m;
	uint32_t i;
	int st;

	if (!s)
		return;
	tls_slot = NULL;
	i = tls_slot_index;
	/* The exiting thread's key and batch never outlive it. */
	surand_wipe(s, sizeof(*s));
	surand_slab_lock(&slab, &st);
	SURAND_TEST_POINT(SURAND_TP_THREAD_EXIT_LOCKED);
	m = surand_slab_record(&slab, i);
	dead_calls += tls_calls;
	dead_bytes += tls_bytes;
	dead_refills += tls_refills;
	dead_direct += tls_direct;
	dead_calls += tls.pub.words[0] + tls.pub.words[1];
	dead_bytes += 4 * tls.pub.words[0] + 8 * tls.pub.words[1];
	m->calls = m->bytes = m->refills = m->direct = m->words = NULL;
	surand_slab_give_locked(&slab, i);
	surand_slab_unlock(&slab, st);
	TLS_ADD(tls_calls, -tls_calls);
	TLS_ADD(tls_bytes, -tls_bytes);
	TLS_ADD(tls_refills, -tls_refills);
	TLS_ADD(tls_direct, -tls_direct);
	TLS_ADD(tls.pub.words[0], -tls.pub.words[0]);
	TLS_ADD(tls.pub.words[1], -tls.pub.words[1]);
}

/* In the child, in the forking thread: only this thread's slot stays in use. */
static void thread_atfork_child(void)
{
	struct slot *mine = tls_slot;
	uint32_t i, n;

	surand_slab_atfork_child(&slab, mine ? (long)tls_slot_index : -1);
	n = surand_slab_capacity_locked(&slab);
	for (i = 0; i < n; i++) {
		struct slot_meta *m = surand_slab_record(&slab, i);

		/* The parent's other threads do not exist here. */
		if (!mine || i != tls_slot_index)
			m->calls = m->bytes = m->refills = m->direct = m->words = NULL;
	}
	if (mine)
		mine->h.gen = 0; /* where wipe-on-fork is absent: re-key now */
	n_threads_seen = mine ? 1 : 0;
	dead_calls = dead_bytes = dead_refills = dead_direct = 0;
	tls_calls = tls_bytes = tls_refills = tls_direct = 0;
	tls.pub.words[0] = tls.pub.words[1] = 0;
	n_fallback_nomem = 0;
}

static void thread_stats(struct surand_stats *st)
{
	uint64_t calls, bytes, refills, direct, w4, w8;
	uint32_t i, n;
	int cs;

	surand_slab_lock(&slab, &cs);
	calls = dead_calls;
	bytes = dead_bytes;
	refills = dead_refills;
	direct = dead_direct;
	n = surand_slab_capacity_locked(&slab);
	for (i = 0; i < n; i++) {
		struct slot_meta *m = surand_slab_record(&slab, i);
		if (!surand_slab_used_locked(&slab, i) || !m->calls)
			continue;
		/* Another thread's TLS counters: racy reads of monotonic values. */
		calls += __atomic_load_n(m->calls, __ATOMIC_RELAXED);
		bytes += __atomic_load_n(m->bytes, __ATOMIC_RELAXED);
		refills += __atomic_load_n(m->refills, __ATOMIC_RELAXED);
		direct += __atomic_load_n(m->direct, __ATOMIC_RELAXED);
		w4 = __atomic_load_n(&m->words[0], __ATOMIC_RELAXED);
		w8 = __atomic_load_n(&m->words[1], __ATOMIC_RELAXED);
		calls += w4 + w8;
		bytes += 4 * w4 + 8 * w8;
	}
	st->calls = calls;
	st->bytes = bytes;
	st->refills = refills;
	st->direct_fills = direct;
	st->threads_seen = n_threads_seen;
	st->slots_in_use = slab.in_use;
	st->slots_total = n;
	st->fallback_nomem = SURAND_LOAD(n_fallback_nomem);
	surand_slab_unlock(&slab, cs);
	st->vdso_fold = (uint32_t)surand_vdso_available();
}

const struct surand_backend surand_backend_thread = {
	.name = "thread",
	.summary = "per-thread ChaCha20, fast key erasure per refill (default)",
	.props = SURAND_BP_BACKTRACK_PER_CALL | SURAND_BP_PER_THREAD,
	.init = NULL,
	.fill = thread_fill,
	.word = thread_word,
	.reseed = NULL,
	.thread_exit = thread_exit_cb,
	.atfork_child = thread_atfork_child,
	.stats = thread_stats,
};

#ifdef SURAND_TEST_BUILD
#include "test_hooks.h"
void *surand_test_thread_slot(size_t *size)
{
	if (size)
		*size = sizeof(struct slot);
	return tls_slot;
}

int surand_test_thread_key(uint32_t out[8])
{
	if (!tls_slot || !tls_slot->h.gen)
		return -1;
	memcpy(out, tls_slot->h.key, 32);
	return 0;
}

uint64_t surand_test_thread_generation(void)
{
	return tls_slot ? tls_slot->h.gen : 0;
}
#endif
