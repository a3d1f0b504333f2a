/*
 * cpu.c - CPU features, read once, and the choice of ChaCha20 body.
 * (Skeleton: portable only; SIMD bodies and detection arrive with them.)
 * SPDX-License-Identifier: MIT
 */
#include "internal.h"

#include <string.h>

static struct surand_cpu_features features;

const struct surand_cpu_features *surand_cpu_features(void)
{
	return &features;
}

void surand_chacha20_blocks(const uint32_t key[8], uint64_t counter, uint64_t nonce,
			    uint8_t *out, size_t nblocks)
{
	surand_chacha20_blocks_portable(key, counter, nonce, out, nblocks);
}

const char *surand_chacha20_impl_name(void)
{
	return "portable";
}

surand_chacha20_fn surand_chacha20_impl_by_name(const char *name)
{
	if (name && strcmp(name, "portable") == 0)
		return surand_chacha20_blocks_portable;
	return NULL;
}

unsigned surand_chacha20_width(void)
{
	return 1;
}
