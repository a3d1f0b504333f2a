/*
 * readpath.h - surandfs's per-open-file generator and read path, apart from
 * FUSE so that a fuzzer or a unit test can drive it directly.
 *
 * Every open file handle owns a 256-bit key behind its own lock, taken from
 * surand_bytes() at open.  Each read, under the lock, turns the key into 64
 * bytes of ChaCha20 (surand's reproducible-stream API used as the bare
 * cipher): the first 32 replace the key at once (fast key erasure: the state
 * after the read cannot regenerate anything already returned), the other 32
 * are a one-use key that, after the lock is dropped, generates the read's
 * bytes straight into the reply buffer.  Concurrent reads of one handle
 * therefore only serialise for one block; reads of different handles never
 * touch shared state, so one reader cannot learn (or repeat) another's output.
 * The key is refreshed from surand_bytes() every SURANDFS_RESEED_BYTES or
 * SURANDFS_RESEED_NS, so a long-lived handle recovers from a state leak.
 * SPDX-License-Identifier: MIT
 */
#ifndef SURANDFS_READPATH_H
#define SURANDFS_READPATH_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* A handle's key is refreshed from surand_bytes() after this many bytes ... */
#define SURANDFS_RESEED_BYTES ((uint64_t)1 << 30)
/* ... or this much time (the library's own reseed ceiling, 60 s). */
#define SURANDFS_RESEED_NS ((uint64_t)60 * 1000000000u)

struct surandfs_handle {
	pthread_mutex_t lock;
	uint8_t key[32];          /* the handle's current key: never output */
	uint64_t bytes_since;     /* bytes served since the key was last refreshed */
	uint64_t reseed_ns;       /* CLOCK_MONOTONIC time of that refresh */
	uint64_t reads;           /* reads served (diagnostics, tests) */
	uint32_t valid;           /* SURANDFS_HANDLE_MAGIC while usable */
};
#define SURANDFS_HANDLE_MAGIC 0x73667268u /* "hrfs" */

/*
 * A new handle in its own page (excluded from core dumps, wiped in a fork
 * child, locked in memory when the limit allows), keyed from surand_bytes().
 * NULL with errno set (ENOMEM) on failure.
 */
struct surandfs_handle *surandfs_handle_new(void);
/* Wipes and frees h (NULL: nothing). */
void surandfs_handle_free(struct surandfs_handle *h);

/*
 * The read path: fills buf with min(size, cap) fresh bytes from handle h and
 * returns that count; off is the file offset of the read, which a random file
 * ignores (any off >= 0 is accepted).  -EBADF when h is NULL or not a live
 * handle, -EINVAL when off < 0, -EFAULT when buf is NULL and something is to
 * be written.  Thread-safe for any number of callers on the same handle.
 */
ssize_t surandfs_read_fill(struct surandfs_handle *h, void *buf, size_t cap, size_t size,
			   int64_t off);

#endif
