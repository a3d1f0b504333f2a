// SPDX-License-Identifier: MIT
/*
 * chacha20_neon.c - ChaCha20, 4 blocks in parallel with AArch64 Advanced
 * SIMD (NEON; part of the AArch64 base ISA, still only called when cpu.c
 * found HWCAP_ASIMD).  Userspace only; freestanding like the other bodies
 * (<arm_neon.h> is the compiler's own header).
 *
 * Layout of the work: vector x[i] holds state word i of 4 consecutive
 * blocks (lane j = block j), as in the SSSE3 body and in the 4-block path of
 * the kernel's arch/arm64/crypto/chacha-neon-core.S.  Rotations: by 16 with
 * rev32 on halfwords, by 8 with a tbl byte shuffle, by 12 and 7 with
 * shl + sri.  After the rounds each group of 4 vectors is transposed 4x4
 * (zip1/zip2 on words, then on doublewords) so that every vector holds 16
 * consecutive output bytes of one block.  Remaining blocks (nblocks % 4)
 * go to the portable body.
 */
#include "chacha20.h"

#include <arm_neon.h>

#define NEON_BLOCKS 4

/* rotl by 16: swap the halfwords of each 32-bit lane. */
#define ROTL16(v) vreinterpretq_u32_u16(vrev32q_u16(vreinterpretq_u16_u32(v)))
/* rotl by 8: a byte shuffle of each lane (tbl with the table r8). */
#define ROTL8(v) vreinterpretq_u32_u8(vqtbl1q_u8(vreinterpretq_u8_u32(v), r8))
/* rotl by n: shift left, then shift right and insert the top bits. */
#define ROTL(v, n) vsriq_n_u32(vshlq_n_u32((v), (n)), (v), 32 - (n))

#define QR(a, b, c, d)                                                           \
	do {                                                                     \
		a = vaddq_u32(a, b); d = veorq_u32(d, a); d = ROTL16(d);         \
		c = vaddq_u32(c, d); b = veorq_u32(b, c); b = ROTL(b, 12);       \
		a = vaddq_u32(a, b); d = veorq_u32(d, a); d = ROTL8(d);          \
		c = vaddq_u32(c, d); b = veorq_u32(b, c); b = ROTL(b, 7);        \
	} while (0)

/* Transposes 4 vectors of words (a: word w of blocks 0..3, ...) and stores
 * 16 bytes of each block at out + 64 * block + off. */
#define STORE4(a, b, c, d, out, off)                                                    \
	do {                                                                            \
		const uint32x4_t t0_ = vzip1q_u32(a, b), t1_ = vzip1q_u32(c, d);        \
		const uint32x4_t t2_ = vzip2q_u32(a, b), t3_ = vzip2q_u32(c, d);        \
		const uint64x2_t u0_ = vreinterpretq_u64_u32(t0_), u1_ = vreinterpretq_u64_u32(t1_); \
		const uint64x2_t u2_ = vreinterpretq_u64_u32(t2_), u3_ = vreinterpretq_u64_u32(t3_); \
		vst1q_u8((out) + 0 + (off), vreinterpretq_u8_u64(vzip1q_u64(u0_, u1_)));   \
		vst1q_u8((out) + 64 + (off), vreinterpretq_u8_u64(vzip2q_u64(u0_, u1_)));  \
		vst1q_u8((out) + 128 + (off), vreinterpretq_u8_u64(vzip1q_u64(u2_, u3_))); \
		vst1q_u8((out) + 192 + (off), vreinterpretq_u8_u64(vzip2q_u64(u2_, u3_))); \
	} while (0)

/*
 * Zeroes v0-v31.  v8-v15 are callee-saved in their low 64 bits (AAPCS64):
 * listed as clobbers, so the compiler saves and restores the caller's d8-d15
 * around the function; a restore writes the d register, which zeroes the
 * upper half that may have held keystream.
 */
static inline void neon_clear(void)
{
	__asm__ __volatile__("movi v0.16b, #0\n\t movi v1.16b, #0\n\t movi v2.16b, #0\n\t"
			     "movi v3.16b, #0\n\t movi v4.16b, #0\n\t movi v5.16b, #0\n\t"
			     "movi v6.16b, #0\n\t movi v7.16b, #0\n\t movi v8.16b, #0\n\t"
			     "movi v9.16b, #0\n\t movi v10.16b, #0\n\t movi v11.16b, #0\n\t"
			     "movi v12.16b, #0\n\t movi v13.16b, #0\n\t movi v14.16b, #0\n\t"
			     "movi v15.16b, #0\n\t movi v16.16b, #0\n\t movi v17.16b, #0\n\t"
			     "movi v18.16b, #0\n\t movi v19.16b, #0\n\t movi v20.16b, #0\n\t"
			     "movi v21.16b, #0\n\t movi v22.16b, #0\n\t movi v23.16b, #0\n\t"
			     "movi v24.16b, #0\n\t movi v25.16b, #0\n\t movi v26.16b, #0\n\t"
			     "movi v27.16b, #0\n\t movi v28.16b, #0\n\t movi v29.16b, #0\n\t"
			     "movi v30.16b, #0\n\t movi v31.16b, #0"
			     :
			     :
			     : "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10",
			       "v11", "v12", "v13", "v14", "v15", "v16", "v17", "v18", "v19", "v20",
			       "v21", "v22", "v23", "v24", "v25", "v26", "v27", "v28", "v29", "v30",
			       "v31");
}

void surand_chacha20_blocks_neon(const uint32_t key[8], uint64_t counter, uint64_t nonce,
				 uint8_t *out, size_t nblocks)
{
	/* tbl indices: rotate every 32-bit lane left by 8 (byte i of a lane
	 * takes byte i-1, byte 0 takes byte 3), little-endian lanes. */
	static const uint8_t r8_idx[16] = { 3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14 };
	const uint8x16_t r8 = vld1q_u8(r8_idx);
	uint32x4_t k[8];
	size_t n;
	int i;

	if (nblocks < NEON_BLOCKS) {
		/* Nothing for this body: no key material enters its registers. */
		surand_chacha20_blocks_portable(key, counter, nonce, out, nblocks);
		return;
	}
	for (i = 0; i < 8; i++)
		k[i] = vdupq_n_u32(key[i]);

	for (n = nblocks / NEON_BLOCKS; n; n--) {
		/* Per-lane 64-bit counters: the carry from word 12 into 13 and the
		 * wrap modulo 2^64 come from 64-bit arithmetic here. */
		const uint64_t c1 = counter + 1, c2 = counter + 2, c3 = counter + 3;
		const uint32_t lo[4] = { (uint32_t)counter, (uint32_t)c1, (uint32_t)c2, (uint32_t)c3 };
		const uint32_t hi[4] = { (uint32_t)(counter >> 32), (uint32_t)(c1 >> 32),
					 (uint32_t)(c2 >> 32), (uint32_t)(c3 >> 32) };
		const uint32x4_t ctr_lo = vld1q_u32(lo), ctr_hi = vld1q_u32(hi);
		const uint32x4_t n_lo = vdupq_n_u32((uint32_t)nonce);
		const uint32x4_t n_hi = vdupq_n_u32((uint32_t)(nonce >> 32));
		uint32x4_t x0 = vdupq_n_u32(SURAND_CHACHA_C0), x1 = vdupq_n_u32(SURAND_CHACHA_C1);
		uint32x4_t x2 = vdupq_n_u32(SURAND_CHACHA_C2), x3 = vdupq_n_u32(SURAND_CHACHA_C3);
		uint32x4_t x4 = k[0], x5 = k[1], x6 = k[2], x7 = k[3];
		uint32x4_t x8 = k[4], x9 = k[5], x10 = k[6], x11 = k[7];
		uint32x4_t x12 = ctr_lo, x13 = ctr_hi, x14 = n_lo, x15 = n_hi;

#pragma GCC unroll 10
		for (i = 0; i < SURAND_CHACHA_NROUNDS; i += 2) {
			QR(x0, x4, x8, x12);
			QR(x1, x5, x9, x13);
			QR(x2, x6, x10, x14);
			QR(x3, x7, x11, x15);
			QR(x0, x5, x10, x15);
			QR(x1, x6, x11, x12);
			QR(x2, x7, x8, x13);
			QR(x3, x4, x9, x14);
		}
		x0 = vaddq_u32(x0, vdupq_n_u32(SURAND_CHACHA_C0));
		x1 = vaddq_u32(x1, vdupq_n_u32(SURAND_CHACHA_C1));
		x2 = vaddq_u32(x2, vdupq_n_u32(SURAND_CHACHA_C2));
		x3 = vaddq_u32(x3, vdupq_n_u32(SURAND_CHACHA_C3));
		x4 = vaddq_u32(x4, k[0]);
		x5 = vaddq_u32(x5, k[1]);
		x6 = vaddq_u32(x6, k[2]);
		x7 = vaddq_u32(x7, k[3]);
		x8 = vaddq_u32(x8, k[4]);
		x9 = vaddq_u32(x9, k[5]);
		x10 = vaddq_u32(x10, k[6]);
		x11 = vaddq_u32(x11, k[7]);
		x12 = vaddq_u32(x12, ctr_lo);
		x13 = vaddq_u32(x13, ctr_hi);
		x14 = vaddq_u32(x14, n_lo);
		x15 = vaddq_u32(x15, n_hi);

		STORE4(x0, x1, x2, x3, out, 0);
		STORE4(x4, x5, x6, x7, out, 16);
		STORE4(x8, x9, x10, x11, out, 32);
		STORE4(x12, x13, x14, x15, out, 48);

		out += NEON_BLOCKS * SURAND_CHACHA20_BLOCK_SIZE;
		counter += NEON_BLOCKS; /* wraps modulo 2^64 by design */
	}
	/* The broadcast key copy may live on the stack: wipe it; the vector
	 * registers held key and keystream: clear them. */
	surand_wipe(k, sizeof(k));
	neon_clear();

	if (nblocks % NEON_BLOCKS)
		surand_chacha20_blocks_portable(key, counter, nonce, out, nblocks % NEON_BLOCKS);
}
