/*
 * readpath.c - surandfs's per-open-file generator (see readpath.h).
 * Public API only: surand_bytes() for keys, surand_stream_*() (ChaCha20 with
 * a given key, nonce 0, counter from 0) as the cipher.
 * SPDX-License-Identifier: MIT
 */
#include "readpath.h"

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "surand.h"

#ifndef MADV_WIPEONFORK
#define MADV_WIPEONFORK 18
#endif

/* The one page a handle lives in (the struct is far smaller). */
static size_t handle_bytes(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	size_t n = pg > 0 ? (size_t)pg : 4096;

	while (n < sizeof(struct surandfs_handle))
		n *= 2;
	return n;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

struct surandfs_handle *surandfs_handle_new(void)
{
	size_t len = handle_bytes();
	struct surandfs_handle *h;

	h = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (h == MAP_FAILED) {
		errno = ENOMEM;
		return NULL;
	}
	/* the key is a secret: never in a core dump, gone in a fork child, not swapped */
	(void)madvise(h, len, MADV_DONTDUMP);
	(void)madvise(h, len, MADV_WIPEONFORK);
	(void)mlock(h, len); /* best effort: RLIMIT_MEMLOCK may refuse */
	if (pthread_mutex_init(&h->lock, NULL) != 0) {
		munmap(h, len);
		errno = ENOMEM;
		return NULL;
	}
	surand_bytes(h->key, sizeof(h->key)); /* never fails, never unseeded */
	h->bytes_since = 0;
	h->reseed_ns = now_ns();
	h->reads = 0;
	h->valid = SURANDFS_HANDLE_MAGIC;
	return h;
}

void surandfs_handle_free(struct surandfs_handle *h)
{
	size_t len = handle_bytes();

	if (!h)
		return;
	pthread_mutex_destroy(&h->lock);
	explicit_bzero(h, sizeof(*h)); /* the key, before the page goes back */
	munlock(h, len);
	munmap(h, len);
}

/* Under h->lock: the next one-use key, and the handle's key replaced. */
static void next_read_key(struct surandfs_handle *h, uint8_t read_key[32], size_t size)
{
	struct surand_stream s;
	uint8_t blk[64];

	h->bytes_since += size;
	if (h->bytes_since >= SURANDFS_RESEED_BYTES || now_ns() - h->reseed_ns >= SURANDFS_RESEED_NS) {
		uint8_t fresh[32];
		size_t i;

		/* XOR keeps the old key's secrecy if surand were ever weak, and adds surand's */
		surand_bytes(fresh, sizeof(fresh));
		for (i = 0; i < sizeof(fresh); i++)
			h->key[i] ^= fresh[i];
		explicit_bzero(fresh, sizeof(fresh));
		h->bytes_since = 0;
		h->reseed_ns = now_ns();
	}
	surand_stream_init(&s, h->key, 0);
	surand_stream_bytes(&s, blk, sizeof(blk));
	/* fast key erasure: the old key is gone before any byte of this read exists */
	memcpy(h->key, blk, 32);
	memcpy(read_key, blk + 32, 32);
	explicit_bzero(blk, sizeof(blk));
	surand_stream_wipe(&s);
	h->reads++;
}

ssize_t surandfs_read_fill(struct surandfs_handle *h, void *buf, size_t cap, size_t size,
			   int64_t off)
{
	struct surand_stream s;
	uint8_t read_key[32];
	size_t n = size < cap ? size : cap;

	if (!h || h->valid != SURANDFS_HANDLE_MAGIC)
		return -EBADF;
	if (off < 0)
		return -EINVAL;
	if (n == 0)
		return 0;
	if (!buf)
		return -EFAULT;
	if (n > (size_t)SSIZE_MAX)
		n = (size_t)SSIZE_MAX;
	pthread_mutex_lock(&h->lock);
	next_read_key(h, read_key, n);
	pthread_mutex_unlock(&h->lock);
	/* a fresh key per read, used once: nonce 0 never repeats under it */
	surand_stream_init(&s, read_key, 0);
	explicit_bzero(read_key, sizeof(read_key));
	surand_stream_bytes(&s, buf, n);
	surand_stream_wipe(&s);
	return (ssize_t)n;
}
