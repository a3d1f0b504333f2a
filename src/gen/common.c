/*
 * common.c - helpers the generator designs share (instead of copying them):
 * kernel folds and one-use-key fills (backend.h), the per-slot control
 * records and the test drop helpers (designs.h).  The lock, the topology
 * and the slab have files of their own (gen/lock.c, gen/topology.c,
 * gen/slab.c).
 * SPDX-License-Identifier: MIT
 */
#include "gen/backend.h"
#include "gen/designs.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Nonce of one-use-key output, apart from every other use of a key. */
#define NONCE_DIRECT 0x7463657269642d75ull /* "u-direct" */

int surand_fold_kernel(uint32_t key[8], size_t n)
{
	uint8_t fresh[32];
	size_t i;

	if (n > sizeof(fresh))
		n = sizeof(fresh);
	if (surand_vdso_fill(fresh, n) != 0 && surand_kernel_fill(fresh, n, 0) != 0) {
		surand_wipe(fresh, sizeof(fresh));
		return 0; /* the key is still a good key; only the clone bound is lost */
	}
	for (i = 0; i + 4 <= n; i += 4)
		key[i / 4] ^= surand_load32_le(fresh + i);
	surand_wipe(fresh, sizeof(fresh));
	return 1;
}

void surand_fill_from_key(uint32_t key[8], void *buf, size_t len)
{
	uint8_t *p = buf, tail[64];
	size_t whole = len / 64;

	/* Straight into the caller's buffer: no batch, no extra copy. */
	surand_chacha20_blocks(key, 0, NONCE_DIRECT, p, whole);
	if (len % 64) {
		surand_chacha20_blocks(key, whole, NONCE_DIRECT, tail, 1);
		memcpy(p + whole * 64, tail, len % 64);
		surand_wipe(tail, sizeof(tail));
	}
	/* One use only: nothing left in memory regenerates buf. */
	surand_wipe(key, 32);
}

/* ==== the designs' shared helpers (gen/designs.h) =========================== */

void *surand_slot_ctl_alloc(void *cur, size_t n, size_t stride)
{
	if (cur)
		return cur;
	return aligned_alloc(SURAND_CACHELINE, n * stride);
}

void surand_slot_ctl_reset(void *ctl, size_t n, size_t stride, enum surand_lock_kind kind)
{
	size_t i;

	if (!ctl)
		return;
	memset(ctl, 0, n * stride);
	for (i = 0; i < n; i++)
		surand_lock_init(surand_slot_lock(ctl, i, stride), kind);
}

#if defined(__SANITIZE_THREAD__)
uint32_t surand_full_fence_word; /* SURAND_FULL_FENCE under TSan */
#endif

/* ---- test helpers ------------------------------------------------------------ */
#ifdef SURAND_TEST_BUILD
void surand_test_zero_words(void *p, size_t n)
{
	uint32_t *w = p;
	size_t i;

	for (i = 0; i < n / 4; i++)
		__atomic_store_n(&w[i], 0, __ATOMIC_RELAXED);
}

void surand_test_drop_slots(void *st, size_t st_stride, void *ctl, size_t ctl_stride, size_t n)
{
	size_t i;
	int cs;

	for (i = 0; i < n; i++) {
		surand_lock(surand_slot_lock(ctl, i, ctl_stride), &cs);
		surand_test_zero_words((char *)st + i * st_stride, st_stride);
		surand_unlock(surand_slot_lock(ctl, i, ctl_stride), cs);
	}
}
#endif
