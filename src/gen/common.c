/*
 * common.c - helpers the generator designs share (instead of copying them).
 * SPDX-License-Identifier: MIT
 */
#include "gen/backend.h"

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
