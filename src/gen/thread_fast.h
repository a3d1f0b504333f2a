/*
 * thread_fast.h - the default design's layout and its surand_u32/u64 fast
 * path, shared by gen/thread.c (which owns the state) and the front end
 * (api.c), which inlines the fast path when the default design is active:
 * no indirect call, one TLS block.  Everything else about the design stays
 * in thread.c.
 * SPDX-License-Identifier: MIT
 */
#ifndef SURAND_GEN_THREAD_FAST_H
#define SURAND_GEN_THREAD_FAST_H

#include "gen/backend.h"

/* ==== the slot (see thread.c, section 1) ==================================== */
#ifndef SURAND_THREAD_SLOT_BYTES
#define SURAND_THREAD_SLOT_BYTES 4096u
#endif
#define SLOT_BYTES ((unsigned)SURAND_THREAD_SLOT_BYTES)
#define SLOT_BLOCKS (SLOT_BYTES / SURAND_CHACHA20_BLOCK_SIZE) /* 64 */
#define BATCH_BYTES (SLOT_BYTES - 64u)                        /* 4032 */
/* The last pass, through the stack: the AVX-512 body's width. */
#define TAIL_BLOCKS 16u
#define INPLACE_BLOCKS (SLOT_BLOCKS - TAIL_BLOCKS) /* 48 */
/* Requests at least a slot long skip the batch: a one-use key fills them.
 * Shorter ones cost less from the batch (BENCHMARKS.md, "Large requests"):
 * a one-use key has fixed costs (the kernel fold, the scrub) of about
 * 150 ns, where the batch's keystream for 512 bytes costs about 100 ns; at
 * a slot's length the two paths cost about the same, and the direct one
 * writes the caller's buffer only once. */
#define DIRECT_MIN_BYTES SLOT_BYTES
/* Re-key from the base after this many ChaCha20 blocks ("cranks"). */
#define CRANKS_MAX (1ull << 24)
/* Fresh kernel bytes folded into every refill and one-use key (vDSO). */
#define FOLD_BYTES 16u
#define SLOTS_PER_CHUNK 64u /* slots a chunk of the slab (gen/slab.h): 256 KiB */

struct slot_hdr {
	uint32_t key[8];   /* current key; block 15 of each refill lands here */
	uint64_t gen;      /* base generation keyed from; 0 = empty, re-key */
	uint32_t pos;      /* next unread byte of the batch (BATCH_BYTES: empty) */
	uint32_t reserved;
	uint64_t cranks;   /* ChaCha20 blocks since the last re-key */
	uint64_t rekey_ns; /* when the key was taken from the base */
};
_Static_assert(sizeof(struct slot_hdr) == 64, "slot header is one cache line");

struct slot {
	uint8_t batch[BATCH_BYTES];
	struct slot_hdr h;
} __attribute__((aligned(64)));
_Static_assert(sizeof(struct slot) == SLOT_BYTES, "slot size");
_Static_assert(SLOT_BYTES >= 1024 && SLOT_BYTES % 1024 == 0, "whole 16-block passes");
_Static_assert(4096 % SLOT_BYTES == 0, "a slot never straddles a page");


/* The calling thread's slot and counters: one initial-exec TLS block (no
 * pthread_getspecific, no malloc on the call path).  It begins with the
 * inline path's view of the thread (surand.h, struct surand_inline_thread,
 * ABI 2; gen/thread_inline.c): the slot pointer and the word counters are
 * the same words for the library and for a program's inline draws. */
struct thread_tls {
	union {
		struct slot *slot;
		/* pub.words: draws of 4 and 8 bytes, by thread_word or inline: one
		 * counter per call instead of calls and bytes; stats adds them in. */
		struct surand_inline_thread pub;
	};
	uint64_t calls, bytes, refills, direct;
	uint32_t index; /* the slot's number: a wiped or dropped slot reads as zero */
};
extern __thread struct thread_tls surand_thread_tls SURAND_HIDDEN;

/* Owner-only counters, read by stats from other threads: relaxed stores
 * (plain moves on x86), never read-modify-writes of shared memory. */
#define TLS_ADD(var, n) __atomic_store_n(&(var), (var) + (n), __ATOMIC_RELAXED)

/*
 * Moves n bytes from src to dst and zeroes them at src.  Requests of up to 32
 * bytes (u32/u64, nonces, keys) use at most two overlapping fixed-size moves
 * each way (16-byte vector moves from 16 bytes on), exactly 4, 8 and 16 bytes
 * one, instead of calls to memcpy and memset: fewer loads and stores per call.
 * Only the n requested bytes are ever loaded: a register holding bytes the
 * batch has not handed out yet would put them in a core's register notes.
 */
typedef uint8_t surand_v16 __attribute__((vector_size(16), aligned(1)));

/* n bytes, w < n < 2w, as two overlapping moves of w bytes each way (w is 4
 * or 8, a constant once inlined: fixed-size moves, no call). */
static inline __attribute__((always_inline)) void move_pair_and_zero(uint8_t *dst, uint8_t *src,
								       uint32_t n, unsigned w)
{
	uint64_t a, b;
	const uint64_t z = 0;

	memcpy(&a, src, w);
	memcpy(&b, src + n - w, w);
	memcpy(dst, &a, w);
	memcpy(dst + n - w, &b, w);
	memcpy(src, &z, w);
	memcpy(src + n - w, &z, w);
}

static inline __attribute__((always_inline)) void move_and_zero(uint8_t *dst, uint8_t *src,
								  uint32_t n)
{
	uint64_t a;
	uint32_t c;
	surand_v16 x, y;
	const surand_v16 z = {0};

	if (n == 16) {
		memcpy(&x, src, 16);
		memcpy(dst, &x, 16);
		memcpy(src, &z, 16);
	} else if (n > 16 && n <= 32) {
		memcpy(&x, src, 16);
		memcpy(&y, src + n - 16, 16);
		memcpy(dst, &x, 16);
		memcpy(dst + n - 16, &y, 16);
		memcpy(src, &z, 16);
		memcpy(src + n - 16, &z, 16);
	} else if (n == 8) {
		memcpy(&a, src, 8);
		memcpy(dst, &a, 8);
		a = 0;
		memcpy(src, &a, 8);
	} else if (n == 4) {
		memcpy(&c, src, 4);
		memcpy(dst, &c, 4);
		c = 0;
		memcpy(src, &c, 4);
	} else if (n > 8 && n < 16) {
		move_pair_and_zero(dst, src, n, 8);
	} else if (n > 4 && n < 8) {
		move_pair_and_zero(dst, src, n, 4);
	} else if (n >= 1 && n < 4) {
		/* first, middle and last byte: covers 1, 2 and 3 without a call */
		dst[0] = src[0];
		dst[n >> 1] = src[n >> 1];
		dst[n - 1] = src[n - 1];
		src[0] = 0;
		src[n >> 1] = 0;
		src[n - 1] = 0;
	} else {
		memcpy(dst, src, n);
		memset(src, 0, n);
	}
	/* The zeroing stores are never dead: bytes handed out never stay. */
	__asm__ __volatile__("" : : "r"(src) : "memory");
}

/*
 * The fast path, for requests of 1..32 bytes: no call, no lock, no atomic
 * read-modify-write, no store to memory another thread uses.  0: served;
 * -1: declined, nothing consumed (other sizes, no slot yet, a stale or empty
 * batch, or a slot page dropped during the copy: then pos is left alone and
 * the slow path overwrites buf).
 */
static inline __attribute__((always_inline)) int surand_thread_fill_fast(void *buf, size_t len)
{
	struct slot *s = surand_thread_tls.slot;
	uint64_t gen;
	uint32_t pos;

	if (SURAND_UNLIKELY(len == 0 || len > 32 || s == NULL))
		return -1;
	gen = s->h.gen;
	pos = s->h.pos;
	/* One shared load: the base generation (reseed, fork). */
	if (SURAND_LIKELY(gen == surand_base_generation() && len <= BATCH_BYTES - pos)) {
		SURAND_TEST_POINT(SURAND_TP_FILL); /* tests drop the page here */
		move_and_zero(buf, s->batch + pos, (uint32_t)len);
		SURAND_LOAD_FENCE(); /* copy before re-check (aarch64: dmb ishld; x86: TSO) */
		if (SURAND_LIKELY(__atomic_load_n(&s->h.gen, __ATOMIC_RELAXED) == gen)) {
			s->h.pos = pos + (uint32_t)len;
			TLS_ADD(surand_thread_tls.calls, 1);
			TLS_ADD(surand_thread_tls.bytes, len);
			return 0;
		}
	}
	return -1;
}

/*
 * surand_u32/u64: the fast path of thread_fill for exactly 4 or 8 bytes, the
 * value returned in registers instead of through the caller's buffer.  Same
 * invariants: no lock, no atomic read-modify-write, no store to memory another
 * thread uses.  Declines (ok 0, pos untouched) whenever the batch cannot
 * serve the draw; the front end then calls thread_fill.
 */
static inline __attribute__((always_inline)) struct surand_word surand_thread_word(unsigned n)
{
	struct surand_word w = {0, 0};
	struct slot *s = surand_thread_tls.slot;
	uint64_t gen;
	uint32_t pos, x;
	uint8_t *p;

	if (SURAND_UNLIKELY(s == NULL || (n != 4 && n != 8)))
		return w;
	gen = s->h.gen;
	pos = s->h.pos;
	if (SURAND_UNLIKELY(gen != surand_base_generation() || n > BATCH_BYTES - pos))
		return w;
	SURAND_TEST_POINT(SURAND_TP_WORD); /* tests drop the page here: the copy reads zeros */
	p = s->batch + pos;
	if (n == 8) {
		memcpy(&w.v, p, 8);
		memset(p, 0, 8);
	} else {
		memcpy(&x, p, 4);
		w.v = x;
		memset(p, 0, 4);
	}
	/* Bytes handed out never stay in the batch. */
	__asm__ __volatile__("" : : "r"(p) : "memory");
	/* Order the copy before the re-check: a dropped page reads gen == 0. */
	SURAND_LOAD_FENCE(); /* copy before re-check (aarch64: dmb ishld; x86: TSO) */
	if (SURAND_UNLIKELY(__atomic_load_n(&s->h.gen, __ATOMIC_RELAXED) != gen)) {
		w.v = 0; /* possibly zeros of a dropped page: never handed out */
		return w;
	}
	s->h.pos = pos + n;
	TLS_ADD(surand_thread_tls.pub.words[n >> 3], 1); /* n is 4 or 8 */
	w.ok = 1;
	return w;
}

#endif /* SURAND_GEN_THREAD_FAST_H */
