/*
 * backend.h - the one interface every generator design implements.
 *
 * One file per design under src/gen/; the front end (src/api.c) knows the
 * designs only through this vtable and picks one, once, into a pointer
 * (libsodium style).  Optional members may be NULL; the front end then uses
 * a generic fallback (noted at each member).
 *
 * The contract every backend keeps:
 *  - never unseeded output: fill() seeds (waiting for the kernel) or fails;
 *  - distinct output across threads and across fork(): all its shared state
 *    is in wipe-on-fork memory (surand_secmem_alloc) or reset in
 *    atfork_child, where its locks are re-initialised too;
 *  - fill() is never re-entered on the same thread: the front end's
 *    per-thread in-use flag sends a nested call (a signal handler that
 *    interrupted a call) to the lock-free kernel path, so a backend that
 *    takes a lock cannot deadlock on itself;
 *  - no crash on any input; len may be anything, buf is valid for len.
 * SPDX-License-Identifier: MIT
 */
#ifndef SURAND_GEN_BACKEND_H
#define SURAND_GEN_BACKEND_H

#include "internal.h"
#ifdef SURAND_TEST_BUILD
#include "test_hooks.h"
#endif

/* Properties a design declares (tests check what each flag promises). */
enum surand_backend_props {
	SURAND_BP_BACKTRACK_PER_CALL = 1u << 0, /* state after a call regenerates none of its bytes */
	SURAND_BP_BACKTRACK_RESEED   = 1u << 1, /* backtracking protection only at reseed */
	SURAND_BP_LOCK_FAST_PATH     = 1u << 2, /* takes a lock on every call */
	SURAND_BP_PER_CPU            = 1u << 3, /* state per (simulated) CPU or node */
	SURAND_BP_PER_THREAD         = 1u << 4, /* state per thread */
	SURAND_BP_SHARED_POOL        = 1u << 5, /* reads a shared hashed pool */
	SURAND_BP_SHARED_WRITES      = 1u << 6, /* writes memory other threads use on each call */
};

/*
 * A 4- or 8-byte draw returned in registers (rax:rdx in the x86-64 ABI), so
 * that surand_u32/u64 need no round trip through a buffer.  ok == 0: not
 * served and nothing consumed (v is 0); the front end then calls fill().
 */
struct surand_word {
	uint64_t v;
	uint64_t ok;
};

struct surand_backend {
	const char *name;
	const char *summary;  /* one line for --help and the bench */
	unsigned props;       /* enum surand_backend_props */
	/* Once, before the first fill; 0 or -errno.  NULL: nothing to set up. */
	int (*init)(void);
	/* Fills buf[0..len) entirely; 0 or -errno (only when no seed can be had). */
	int (*fill)(void *buf, size_t len);
	/* Optional fast case of surand_u32/u64: n is 4 or 8; may decline (ok 0)
	 * whenever its fast path does not apply.  NULL: fill() on a buffer. */
	struct surand_word (*word)(unsigned n);
	/* surand_reseed(); 0 or -errno.  NULL: the base key is reseeded (gen/base.c). */
	int (*reseed)(void);
	/* Calling thread exits: wipe and release per-thread state.  NULL: none. */
	void (*thread_exit)(void);
	/* In the fork child, in the forking thread: re-init locks, drop state. */
	void (*atfork_child)(void);
	/* Adds the design's counters to st (front end fills the common fields). */
	void (*stats)(struct surand_stats *st);
#ifdef SURAND_TEST_BUILD
	/* The test build's view of the design (test_hooks.h), so that one struct
	 * is a whole design: copies its state (surand_test_snapshot), counts its
	 * pool words' writes (surand_test_pool_writes), zeroes its secret pages
	 * as a dropped page reads (surand_test_drop_state).  NULL: the test call
	 * answers -1 (nothing to copy, nothing counted) or does nothing. */
	int (*test_snapshot)(int which, struct surand_test_snapshot *s);
	int (*test_pool_writes)(int which, uint64_t *counts, uint32_t nwords);
	void (*test_drop)(void);
#endif
};

/* The test members in a design's initialiser; nothing outside the test build. */
#ifdef SURAND_TEST_BUILD
#define SURAND_BACKEND_TEST_HOOKS(snapshot, pool_writes, drop) \
	.test_snapshot = (snapshot), .test_pool_writes = (pool_writes), .test_drop = (drop),
#else
#define SURAND_BACKEND_TEST_HOOKS(snapshot, pool_writes, drop)
#endif

/*
 * The hooks a design names by one convention, so that its initialiser states
 * only what is its own (name, summary, props and any extra member):
 * p##_init, p##_fill, p##_reseed, p##_atfork_child and p##_stats, and in the
 * test build p##_snapshot and p##_drop.  pool_writes is the one test hook
 * only the pool designs have: their p##_writes, or NULL.
 */
#define SURAND_BACKEND_HOOKS(p, pool_writes)                                    \
	.init = p##_init, .fill = p##_fill, .reseed = p##_reseed,               \
	.atfork_child = p##_atfork_child, .stats = p##_stats,                   \
	SURAND_BACKEND_TEST_HOOKS(p##_snapshot, pool_writes, p##_drop)

/* The registry (gen/registry.c): NULL-terminated, the default first. */
extern const struct surand_backend *const surand_backends[] SURAND_HIDDEN;
const struct surand_backend *surand_backend_find(const char *name) SURAND_HIDDEN;

extern const struct surand_backend surand_backend_thread SURAND_HIDDEN;

/* The process-wide base key the designs derive from (gen/base.c). */
#include "gen/base.h"

/* ---- gen/common.c: helpers the designs share ------------------------------ */
/* XORs n fresh kernel bytes (vDSO, else getrandom) into key; 1 if folded. */
int surand_fold_kernel(uint32_t key[8], size_t n) SURAND_HIDDEN;
/*
 * Large requests: one-use key -> ChaCha20 straight into buf (tail through a
 * wiped stack block); the key is wiped before return.
 */
void surand_fill_from_key(uint32_t key[8], void *buf, size_t len) SURAND_HIDDEN;

#endif /* SURAND_GEN_BACKEND_H */
