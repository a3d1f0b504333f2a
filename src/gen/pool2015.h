/*
 * pool2015.h - the 2015 kernel's entropy pools (Linux ~4.2-4.7,
 * drivers/char/random.c), one implementation for every design that uses
 * them: legacy, legacy-spin, multipool, salted and taskcrng read 32-word
 * pools, and all of them (nodecrng's primary too) pull from the one 128-word
 * input pool.
 *
 *   1. the pool state and its three operations: mix (the twisted GFSR),
 *      hash (the bare SHA-1 compression over the whole pool), fold
 *   2. the process-wide input pool
 *   3. the nonblocking pool: one 32-word pool behind one lock, reseeded from
 *      the input pool at most every 60 s (legacy, multipool, taskcrng)
 *
 * Word order: the kernel hashes the pool's memory, and on x86 (the machines
 * of the debate) the words are little-endian, so the bytes that go into SHA-1
 * and the bytes of the hash that are mixed back and output are those words
 * stored little-endian.  surand writes them so on every architecture.
 * SPDX-License-Identifier: MIT
 */
#ifndef SURAND_GEN_POOL2015_H
#define SURAND_GEN_POOL2015_H

#include "gen/designs.h"

#define SURAND_P15_OUT_WORDS 32   /* the nonblocking pool: 1024 bits */
#define SURAND_P15_IN_WORDS 128   /* the input pool: 4096 bits */
#define SURAND_P15_EXTRACT_BYTES 10 /* EXTRACT_SIZE: half the 20-byte hash */
#define SURAND_P15_HASH_BYTES 20
/* random_min_urandom_seed: the nonblocking pool pulls at most every 60 s. */
#define SURAND_P15_PULL_INTERVAL_NS (60ull * 1000000000ull)

/* ==== 1. the pool state ===================================================== */
/*
 * Lives in wipe-on-fork memory (surand_secmem_alloc).  valid is its
 * readiness (below); a fork child (or a dropped MAP_DROPPABLE page) reads it
 * as zero (SURAND_READY_EMPTY) and re-seeds before any output.  The words are read and written only with
 * relaxed atomics (plain moves on x86), so salted's lock-free readers race
 * with the mixback without a data race in the C sense.
 */
struct surand_p15 {
	uint32_t valid;
	uint32_t add_ptr;      /* counts down; the next word mixed is add_ptr - 1 */
	uint32_t input_rotate; /* 0..31 */
	uint32_t reserved;
	uint32_t words[SURAND_P15_IN_WORDS]; /* the first nwords are used */
#ifdef SURAND_TEST_BUILD
	uint64_t writes[SURAND_P15_IN_WORDS]; /* per word: times mixed (tests) */
#endif
};

/*
 * Readiness (enum surand_ready, internal.h).  A pool read only under its lock
 * (the input pool, legacy, multipool) holds SURAND_READY_YES once sealed.  A
 * pool hashed without a lock (salted, tso2015) holds an odd seeding number in
 * place of READY_YES (odd as well), a new one at each seeding: a reader that
 * finds the same word before and after its hash knows that no drop and no
 * re-seeding came between.  READY_SEEDING (even) marks a seed being mixed in.
 */
static inline int surand_p15_seeded(uint32_t valid)
{
	return (int)(valid & 1u);
}
/* With the pool's writer lock held, around the mix of a pull into a pool that
 * lock-free readers hash: begin marks an unseeded pool READY_SEEDING (readers
 * keep off it) and returns the word it found; end publishes a new seeding
 * number, by a compare-and-swap from READY_SEEDING, so that a page dropped
 * during the mix (valid reads 0) stays unseeded. */
uint32_t surand_p15_seed_begin(struct surand_p15 *p) SURAND_HIDDEN;
void surand_p15_seed_end(struct surand_p15 *p, uint32_t before) SURAND_HIDDEN;
/* The IV of a lock-free reader's hash: H(0) XOR a salt of the calling
 * thread's serial number (never 0, never another thread's in this process
 * line), its count of salted hashes and the fork generation.  Not secret,
 * only unique: no two readers of one pool state hash to the same output. */
void surand_p15_salted_iv(uint32_t iv[5]) SURAND_HIDDEN;
/* Around a lock-free reader's hash of p.  begin reads the seeding word
 * (acquire: the seeding mix is seen by the hash) and, where it is seeded,
 * fills iv with a salted IV; the caller hashes only if surand_p15_seeded()
 * of what it returns.  end re-reads the word after the hash: 0 when it is
 * the same (no drop and no re-seeding came between), else -1 with h wiped
 * (a dropped page: the hash was of zeros). */
uint32_t surand_p15_salted_begin(const struct surand_p15 *p, uint32_t iv[5]) SURAND_HIDDEN;
int surand_p15_salted_end(const struct surand_p15 *p, uint32_t seeding, uint32_t h[5]) SURAND_HIDDEN;
/* The initialiser of a lock-free reader design (salted, tso2015): they share
 * every property (one shared pool hashed on each call, writes to it, backwards
 * protection only at reseed) and name their hooks as SURAND_BACKEND_HOOKS. */
#define SURAND_SALTED_POOL_BACKEND(p, name_, summary_, pool_writes)                        \
	{                                                                                  \
		.name = (name_), .summary = (summary_),                                    \
		.props = SURAND_BP_BACKTRACK_RESEED | SURAND_BP_SHARED_POOL |              \
			 SURAND_BP_SHARED_WRITES,                                          \
		SURAND_BACKEND_HOOKS(p, pool_writes)                                       \
	}

/* The SHA-1 IV H(0) (FIPS 180-4 5.3.1), as sha_init() set it. */
extern const uint32_t surand_p15_sha1_iv[5] SURAND_HIDDEN;

/*
 * _mix_pool_bytes(): one pool word per input byte, add_ptr counting down,
 * taps (26,19,14,7,1) for 32 words or (104,76,51,25,1) for 128, the CRC-32
 * twist table, input_rotate advancing by 7 (14 at word 0; not at all with
 * SURAND_POOL_NO_ROTATE=1, Ts'o's "remove the input_rotate").  The caller has
 * the pool to itself (its lock); nwords is 32 or 128.
 */
void surand_p15_mix(struct surand_p15 *p, unsigned nwords, const void *in, size_t nbytes)
	SURAND_HIDDEN;
/*
 * The same mixing, for writers that keep add_ptr and input_rotate themselves
 * (tso2015's lock-free mixback): starts below word index i (the first word
 * written is i - 1), rotation *rot (updated); returns the last index
 * written.  Pool words are read and written with relaxed atomics; with
 * SURAND_P15_MIX_ATOMIC_ADD each word's change is one atomic add.
 * SURAND_POOL_NO_ROTATE=1 (src/config.c) leaves the rotation at its value.
 */
#define SURAND_P15_MIX_ATOMIC_ADD 1u
uint32_t surand_p15_mix_from(struct surand_p15 *p, unsigned nwords, const void *in, size_t nbytes,
			     uint32_t i, uint32_t *rot, unsigned flags) SURAND_HIDDEN;
/* extract_buf()'s hash: h = iv, then the bare SHA-1 compression over the
 * pool, 16 words (64 bytes) at a time; no padding, no length. */
void surand_p15_hash(const struct surand_p15 *p, unsigned nwords, const uint32_t iv[5],
		     uint32_t h[5]) SURAND_HIDDEN;
/* The hash as the 20 bytes extract_buf mixes back (little-endian words). */
void surand_p15_hash_bytes(const uint32_t h[5], uint8_t out[SURAND_P15_HASH_BYTES]) SURAND_HIDDEN;
/* Folds the hash in half to the 10 output bytes (w0^=w3, w1^=w4, w2^=rol(w2,16)). */
void surand_p15_fold(const uint32_t h[5], uint8_t out[SURAND_P15_EXTRACT_BYTES]) SURAND_HIDDEN;
/*
 * One extract_buf(): hash with the standard IV, mix the 20-byte hash back
 * (anti-backtracking), fold to 10 bytes.  The caller holds the pool's lock
 * across all of it.  0, or -1 when the pool read as unseeded (a dropped page)
 * at the end of the hash: out is then wiped and must not be used.
 */
int surand_p15_extract(struct surand_p15 *p, unsigned nwords, uint8_t out[SURAND_P15_EXTRACT_BYTES])
	SURAND_HIDDEN;

/* ==== 2. the input pool ===================================================== */
/*
 * One per process (128 words, behind its own lock), seeded from the kernel on
 * first use with 512 bytes (the pool's size, 4096 bits).  Before every pull
 * it is fed 32 fresh kernel bytes and, when the input side's entropy pool
 * (src/entropy/: events, surand_add_entropy, RDSEED, jitter) holds 256
 * credited bits, 32 bytes extracted from it: the kernel's interrupt, disk
 * and input events reached its input pool the same way, through mixing.
 */
/* The read loop of the 2015 designs (pool2015.c): extract() gives 10 bytes
 * or fails on an unseeded pool, then pull() seeds it; 0 or -errno. */
int surand_p15_read(uint8_t *buf, size_t len, const uint64_t *next_pull_ns, void *ctx,
		    int (*extract)(void *ctx, uint8_t out[SURAND_P15_EXTRACT_BYTES]),
		    int (*pull)(void *ctx, uint64_t now_ns)) SURAND_HIDDEN;
/* Extracts n bytes (10 per SHA-1 extraction) for another pool; 0 or -errno. */
int surand_p15_input_pull(uint8_t *out, size_t n) SURAND_HIDDEN;
/* Mixes bytes into the input pool (an event source). 0 or -errno. */
int surand_p15_input_add(const void *buf, size_t n) SURAND_HIDDEN;
void surand_p15_input_atfork_child(void) SURAND_HIDDEN;
/*
 * The fork-child reset of a lock-free 2015 design (salted, tso2015): the
 * input pool, the design's writer lock, its secret state (len bytes; NULL
 * before first use) and its pull schedule (pull before the next output).
 */
void surand_p15_design_atfork_child(struct surand_lock *lock, void *secret, size_t len,
				    uint64_t *next_pull_ns) SURAND_HIDDEN;
/*
 * The fill and reseed hooks of a lock-free 2015 design: surand_p15_read over
 * its p##_extract and p##_pull steps, and a pull now.
 */
#define SURAND_P15_READ_HOOKS(p, next_pull_ns)                                   \
	static int p##_fill(void *buf, size_t len)                              \
	{                                                                       \
		return surand_p15_read(buf, len, &(next_pull_ns), NULL, p##_extract, \
				       p##_pull);                                \
	}                                                                       \
	static int p##_reseed(void)                                             \
	{                                                                       \
		return p##_pull(NULL, surand_now_ns());                         \
	}
/* The input pool's pulls, and those of them that carried bytes of the
 * (credited) entropy pool. */
void surand_p15_input_counts(uint64_t *pulls, uint64_t *pooled) SURAND_HIDDEN;

/* ==== 3. the nonblocking pool =============================================== */
/*
 * The lock is the kernel's r->lock: held across each extraction's hash and
 * mixback.  A pull (reseed) moves 128 bytes from the input pool into it; the
 * first pull happens before any output, later ones at most every 60 s, at the
 * start of a read (xfer_secondary_pool()).
 */
struct surand_nbpool {
	struct surand_lock lock;   /* ordinary memory (designs.h) */
	struct surand_p15 *st;     /* wipe-on-fork memory */
	uint64_t next_pull_ns;     /* 0: pull before the next output */
	uint64_t extractions;      /* under lock */
	uint64_t pulls;            /* under lock */
	uint64_t bytes_mixed;      /* under lock: bytes mixed in (pulls and mixbacks) */
} __attribute__((aligned(SURAND_CACHELINE)));

/* Allocates the pool's memory; no seeding yet.  0 or -errno. */
int surand_nbpool_init(struct surand_nbpool *nb, enum surand_lock_kind kind) SURAND_HIDDEN;
/* Fills buf from the pool, 10 bytes per extraction; 0 or -errno. */
int surand_nbpool_read(struct surand_nbpool *nb, uint8_t *buf, size_t len) SURAND_HIDDEN;
/* Pulls from the input pool now (surand_reseed()); 0 or -errno. */
int surand_nbpool_reseed(struct surand_nbpool *nb) SURAND_HIDDEN;
void surand_nbpool_atfork_child(struct surand_nbpool *nb) SURAND_HIDDEN;
#ifdef SURAND_TEST_BUILD
/* Copies the pool (with its lock held) into a test snapshot; 0 or -1. */
int surand_nbpool_snapshot(struct surand_nbpool *nb, struct surand_test_snapshot *s) SURAND_HIDDEN;
int surand_nbpool_writes(struct surand_nbpool *nb, uint64_t *counts, uint32_t nwords) SURAND_HIDDEN;
/* Zeroes the pool's (and the input pool's) secret page, as a drop would. */
void surand_nbpool_test_drop(struct surand_nbpool *nb) SURAND_HIDDEN;
void surand_p15_test_drop_input(void) SURAND_HIDDEN;
/* Copies p's words, add_ptr and input_rotate into s (relaxed loads). */
void surand_p15_test_copy(const struct surand_p15 *p, struct surand_test_snapshot *s) SURAND_HIDDEN;
/* Copies p's per-word write counts (atomic adds: no lock needed); 0, or -1
 * when p is NULL or nwords too many. */
int surand_p15_test_writes(const struct surand_p15 *p, uint64_t *counts, uint32_t nwords)
	SURAND_HIDDEN;
#endif

#endif /* SURAND_GEN_POOL2015_H */
