/*
 * surandfs_readpath.c - unit test of surandfs's read path (readpath.c) without
 * FUSE; tests/fuse.sh runs it.  Prints "PASS fuse/readpath-<case>" or
 * "FAIL fuse/readpath-<case>: why" lines.
 *
 *   surandfs-readpath-test            the cases below
 *   surandfs-readpath-test fuzz N     N random (size, cap, offset) calls on
 *                                     two handles checking the invariants
 * SPDX-License-Identifier: MIT
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <surand.h>

#include "readpath.h"

static int failed;

#define CHECK(name, cond, ...)                                       \
	do {                                                         \
		if (!(cond)) {                                       \
			printf("FAIL fuse/readpath-%s: %s: ", name, #cond); \
			printf(__VA_ARGS__);                         \
			printf("\n");                                \
			failed = 1;                                  \
			return;                                      \
		}                                                    \
	} while (0)

static int all_same(const uint8_t *b, size_t n)
{
	size_t i;

	for (i = 1; i < n; i++)
		if (b[i] != b[0])
			return 0;
	return 1;
}

/* Does any 16-byte window of a occur 16-aligned in b?  (Two streams must share none.) */
static int share_block(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
	size_t i, j;

	for (i = 0; i + 16 <= an; i += 16)
		for (j = 0; j + 16 <= bn; j += 16)
			if (memcmp(a + i, b + j, 16) == 0)
				return 1;
	return 0;
}

static void t_basic(void)
{
	struct surandfs_handle *h = surandfs_handle_new();
	uint8_t a[4096], b[4096];

	CHECK("basic", h != NULL, "handle_new: %s", strerror(errno));
	memset(a, 0, sizeof(a));
	memset(b, 0, sizeof(b));
	CHECK("basic", surandfs_read_fill(h, a, sizeof(a), sizeof(a), 0) == (ssize_t)sizeof(a), "read");
	CHECK("basic", surandfs_read_fill(h, b, sizeof(b), sizeof(b), 0) == (ssize_t)sizeof(b), "read");
	CHECK("basic", !all_same(a, sizeof(a)) && memcmp(a, b, sizeof(a)) != 0,
	      "two reads at offset 0 must differ");
	CHECK("basic", !share_block(a, sizeof(a), b, sizeof(b)), "reads share a block");
	CHECK("basic", h->reads == 2, "reads %llu", (unsigned long long)h->reads);
	surandfs_handle_free(h);
	printf("PASS fuse/readpath-basic\n");
}

static void t_edges(void)
{
	struct surandfs_handle *h = surandfs_handle_new(), fake;
	uint8_t a[100];

	CHECK("edges", h != NULL, "handle_new");
	memset(a, 0xAA, sizeof(a));
	CHECK("edges", surandfs_read_fill(h, a, sizeof(a), 0, 0) == 0, "size 0");
	CHECK("edges", a[0] == 0xAA, "size 0 wrote");
	CHECK("edges", surandfs_read_fill(h, a, 10, 100, 0) == 10, "capped at cap");
	CHECK("edges", a[10] == 0xAA && a[99] == 0xAA, "wrote past cap");
	CHECK("edges", surandfs_read_fill(h, a, 100, 1, (int64_t)1 << 62) == 1, "huge offset");
	CHECK("edges", surandfs_read_fill(h, a, 100, 1, -1) == -EINVAL, "negative offset");
	CHECK("edges", surandfs_read_fill(h, NULL, 100, 1, 0) == -EFAULT, "NULL buffer");
	CHECK("edges", surandfs_read_fill(h, NULL, 0, 0, 0) == 0, "NULL buffer, nothing to write");
	CHECK("edges", surandfs_read_fill(NULL, a, 100, 1, 0) == -EBADF, "NULL handle");
	memset(&fake, 0, sizeof(fake));
	CHECK("edges", surandfs_read_fill(&fake, a, 100, 1, 0) == -EBADF, "dead handle");
	surandfs_handle_free(h);
	surandfs_handle_free(NULL);
	printf("PASS fuse/readpath-edges\n");
}

/* Fast key erasure: the key after a read is none of the bytes served, and changes every read. */
static void t_key_erasure(void)
{
	struct surandfs_handle *h = surandfs_handle_new();
	uint8_t k0[32], k1[32], out[256];

	CHECK("erasure", h != NULL, "handle_new");
	memcpy(k0, h->key, 32);
	CHECK("erasure", surandfs_read_fill(h, out, sizeof(out), sizeof(out), 0) == (ssize_t)sizeof(out),
	      "read");
	memcpy(k1, h->key, 32);
	CHECK("erasure", memcmp(k0, k1, 32) != 0, "key unchanged by a read");
	CHECK("erasure", !share_block(k1, 32, out, sizeof(out)) && !share_block(k0, 32, out, sizeof(out)),
	      "a key appears in the output");
	surandfs_handle_free(h);
	printf("PASS fuse/readpath-erasure\n");
}

/* Reseed by volume: after SURANDFS_RESEED_BYTES the counter starts again. */
static void t_reseed(void)
{
	struct surandfs_handle *h = surandfs_handle_new();
	uint8_t b[64];

	CHECK("reseed", h != NULL, "handle_new");
	h->bytes_since = SURANDFS_RESEED_BYTES - 10;
	CHECK("reseed", surandfs_read_fill(h, b, sizeof(b), sizeof(b), 0) == 64, "read");
	CHECK("reseed", h->bytes_since == 0, "bytes_since %llu", (unsigned long long)h->bytes_since);
	CHECK("reseed", surandfs_read_fill(h, b, sizeof(b), sizeof(b), 0) == 64, "read");
	CHECK("reseed", h->bytes_since == 64, "bytes_since %llu", (unsigned long long)h->bytes_since);
	surandfs_handle_free(h);
	printf("PASS fuse/readpath-reseed\n");
}

/* A read as readpath.c makes it from key alone, with no refresh: the next
 * key and the read's key from the key's first block, then the read's bytes. */
static void model_read(const uint8_t key[32], uint8_t out[64])
{
	struct surand_stream s;
	uint8_t blk[64];

	surand_stream_init(&s, key, 0);
	surand_stream_bytes(&s, blk, sizeof(blk));
	surand_stream_init(&s, blk + 32, 0);
	surand_stream_bytes(&s, out, 64);
	surand_stream_wipe(&s);
	explicit_bzero(blk, sizeof(blk));
}

/* The refresh mixes fresh surand bytes into the key (every GiB or minute):
 * the read then differs from what the old key alone would give; without a
 * refresh it is exactly that (the model's control). */
static void t_refresh_mixes_surand(void)
{
	struct surandfs_handle *h = surandfs_handle_new();
	uint8_t k[32], b[64], m[64];

	CHECK("refresh", h != NULL, "handle_new");
	memcpy(k, h->key, sizeof(k));
	CHECK("refresh", surandfs_read_fill(h, b, sizeof(b), sizeof(b), 0) == 64, "read");
	model_read(k, m);
	CHECK("refresh", memcmp(b, m, sizeof(b)) == 0, "no refresh due, yet not the key's own read");
	memcpy(k, h->key, sizeof(k));
	h->bytes_since = SURANDFS_RESEED_BYTES - 10; /* a GiB served */
	CHECK("refresh", surandfs_read_fill(h, b, sizeof(b), sizeof(b), 0) == 64, "read");
	model_read(k, m);
	CHECK("refresh", memcmp(b, m, sizeof(b)) != 0, "after a GiB the key was not refreshed");
	memcpy(k, h->key, sizeof(k));
	h->reseed_ns -= SURANDFS_RESEED_NS + 1; /* a minute ago (unsigned: wraps as now_ns does) */
	CHECK("refresh", surandfs_read_fill(h, b, sizeof(b), sizeof(b), 0) == 64, "read");
	model_read(k, m);
	CHECK("refresh", memcmp(b, m, sizeof(b)) != 0, "after a minute the key was not refreshed");
	explicit_bzero(k, sizeof(k));
	surandfs_handle_free(h);
	printf("PASS fuse/readpath-refresh\n");
}

/* Two handles read concurrently: no shared block between them or within one. */
#define T_READS 64
#define T_LEN 1024
struct reader {
	struct surandfs_handle *h;
	uint8_t out[T_READS * T_LEN];
	int ok;
};

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	int i;

	r->ok = 1;
	for (i = 0; i < T_READS; i++)
		if (surandfs_read_fill(r->h, r->out + i * T_LEN, T_LEN, T_LEN, 0) != T_LEN)
			r->ok = 0;
	return NULL;
}

static void t_threads(void)
{
	static struct reader r[4];
	pthread_t th[4];
	int i;

	/* threads 0 and 1 share one handle, 2 and 3 have their own */
	r[0].h = r[1].h = surandfs_handle_new();
	r[2].h = surandfs_handle_new();
	r[3].h = surandfs_handle_new();
	CHECK("threads", r[0].h && r[2].h && r[3].h, "handle_new");
	for (i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, reader_main, &r[i]);
	for (i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	for (i = 0; i < 4; i++)
		CHECK("threads", r[i].ok, "reader %d failed", i);
	CHECK("threads", r[0].h->reads == 2 * T_READS, "shared handle reads %llu",
	      (unsigned long long)r[0].h->reads);
	CHECK("threads", !share_block(r[0].out, sizeof(r[0].out), r[1].out, sizeof(r[1].out)),
	      "two readers of one handle got the same bytes");
	CHECK("threads", !share_block(r[2].out, sizeof(r[2].out), r[3].out, sizeof(r[3].out)),
	      "two handles gave the same bytes");
	surandfs_handle_free(r[0].h);
	surandfs_handle_free(r[2].h);
	surandfs_handle_free(r[3].h);
	printf("PASS fuse/readpath-threads\n");
}

/* Random (size, cap, offset): the return is exactly min(size, cap) and nothing past it is written. */
static void t_fuzz(unsigned long n)
{
	struct surandfs_handle *h = surandfs_handle_new();
	uint64_t x = 0x9e3779b97f4a7c15u;
	static uint8_t buf[70000];
	unsigned long i;

	CHECK("fuzz", h != NULL, "handle_new");
	for (i = 0; i < n; i++) {
		size_t size, cap, want;
		int64_t off;
		ssize_t r;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		size = (size_t)(x % 70000);
		cap = (size_t)((x >> 20) % 70000);
		off = (int64_t)(x >> 3) - (int64_t)(x & 1 ? (1LL << 60) : 0);
		if (i % 7 == 0)
			size = (size_t)x; /* huge */
		memset(buf, 0x5c, sizeof(buf));
		r = surandfs_read_fill(h, buf, cap, size, off);
		want = size < cap ? size : cap;
		if (off < 0) {
			CHECK("fuzz", r == -EINVAL, "off %lld: %zd", (long long)off, r);
			continue;
		}
		CHECK("fuzz", r == (ssize_t)want, "size %zu cap %zu: %zd", size, cap, r);
		CHECK("fuzz", want >= sizeof(buf) || buf[want] == 0x5c, "wrote past %zu", want);
	}
	surandfs_handle_free(h);
	printf("PASS fuse/readpath-fuzz\n");
}

int main(int argc, char **argv)
{
	if (argc > 2 && strcmp(argv[1], "fuzz") == 0) {
		t_fuzz(strtoul(argv[2], NULL, 10));
		return failed;
	}
	t_basic();
	t_edges();
	t_key_erasure();
	t_reseed();
	t_refresh_mixes_surand();
	t_threads();
	t_fuzz(2000);
	return failed;
}
