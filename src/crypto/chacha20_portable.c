// SPDX-License-Identifier: MIT
/*
 * chacha20_portable.c - the reference ChaCha20 body: portable C, one block
 * at a time.  Freestanding (see crypto_types.h); the kernel module builds it.
 */
#include "chacha20.h"

#define QR(a, b, c, d)                                     \
	do {                                               \
		a += b; d ^= a; d = surand_rotl32(d, 16);  \
		c += d; b ^= c; b = surand_rotl32(b, 12);  \
		a += b; d ^= a; d = surand_rotl32(d, 8);   \
		c += d; b ^= c; b = surand_rotl32(b, 7);   \
	} while (0)

void surand_chacha20_blocks_portable(const uint32_t key[8], uint64_t counter, uint64_t nonce,
				     uint8_t *out, size_t nblocks)
{
	uint32_t in[16], x[16];
	size_t b;
	int i;

	in[0] = SURAND_CHACHA_C0;
	in[1] = SURAND_CHACHA_C1;
	in[2] = SURAND_CHACHA_C2;
	in[3] = SURAND_CHACHA_C3;
	for (i = 0; i < 8; i++)
		in[4 + i] = key[i];
	in[14] = (uint32_t)nonce;
	in[15] = (uint32_t)(nonce >> 32);

	for (b = 0; b < nblocks; b++, counter++) {
		in[12] = (uint32_t)counter;
		in[13] = (uint32_t)(counter >> 32);
		for (i = 0; i < 16; i++)
			x[i] = in[i];
		for (i = 0; i < SURAND_CHACHA_NROUNDS; i += 2) {
			QR(x[0], x[4], x[8], x[12]);
			QR(x[1], x[5], x[9], x[13]);
			QR(x[2], x[6], x[10], x[14]);
			QR(x[3], x[7], x[11], x[15]);
			QR(x[0], x[5], x[10], x[15]);
			QR(x[1], x[6], x[11], x[12]);
			QR(x[2], x[7], x[8], x[13]);
			QR(x[3], x[4], x[9], x[14]);
		}
		for (i = 0; i < 16; i++)
			surand_store32_le(out + 64 * b + 4 * i, x[i] + in[i]);
	}
	/* The working state held keystream and the key: wipe both copies. */
	surand_wipe(x, sizeof(x));
	surand_wipe(in, sizeof(in));
}
