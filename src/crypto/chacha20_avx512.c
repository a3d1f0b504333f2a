// SPDX-License-Identifier: MIT
/*
 * chacha20_avx512.c - ChaCha20, 16 blocks in parallel with AVX-512F (built
 * with -mavx512f; only called when cpu.c found AVX-512F usable, the OS
 * saving the ZMM state included).  Userspace only.
 *
 * Vector x[i] holds state word i of 16 consecutive blocks (lane j = block
 * j).  Rotations are single vprold instructions (AVX-512F), so the rounds
 * need no constant registers.  Three things make this body as fast as
 * OpenSSL's assembly (BENCHMARKS.md):
 *  - the double rounds are fully unrolled (no loop-carried register copies);
 *  - the first column round's columns 2 and 3 depend only on constants, key
 *    and nonce, so they are computed once per call in scalar code (as are
 *    the first additions of columns 0 and 1);
 *  - the keystream of group n is transposed while group n + 1 runs its
 *    rounds (software pipelining), in 8 parts spread between the double
 *    rounds, so the shuffle port is not flooded by a burst of 32 shuffles at
 *    the end of every group; the transpose is a 4x4 word transpose inside
 *    each 128-bit lane (unpack), then each 128-bit lane goes straight to its
 *    16 bytes of output with the store form of vextracti32x4 (no shuffle).
 * Remaining blocks (nblocks % 16) go to the AVX2 body.
 */
#include "chacha20.h"

#include <immintrin.h>

#define AVX512_BLOCKS 16

#define ADD(a, b) _mm512_add_epi32((a), (b))
#define XOR(a, b) _mm512_xor_si512((a), (b))
#define ROTL(v, n) _mm512_rol_epi32((v), (n))

/* One ChaCha quarter round on four columns (or diagonals) at once,
 * interleaved so that four independent chains are in flight. */
#define QR4(a0, b0, c0, d0, a1, b1, c1, d1, a2, b2, c2, d2, a3, b3, c3, d3)                \
	do {                                                                               \
		a0 = ADD(a0, b0); a1 = ADD(a1, b1); a2 = ADD(a2, b2); a3 = ADD(a3, b3);    \
		d0 = XOR(d0, a0); d1 = XOR(d1, a1); d2 = XOR(d2, a2); d3 = XOR(d3, a3);    \
		d0 = ROTL(d0, 16); d1 = ROTL(d1, 16); d2 = ROTL(d2, 16); d3 = ROTL(d3, 16); \
		c0 = ADD(c0, d0); c1 = ADD(c1, d1); c2 = ADD(c2, d2); c3 = ADD(c3, d3);    \
		b0 = XOR(b0, c0); b1 = XOR(b1, c1); b2 = XOR(b2, c2); b3 = XOR(b3, c3);    \
		b0 = ROTL(b0, 12); b1 = ROTL(b1, 12); b2 = ROTL(b2, 12); b3 = ROTL(b3, 12); \
		a0 = ADD(a0, b0); a1 = ADD(a1, b1); a2 = ADD(a2, b2); a3 = ADD(a3, b3);    \
		d0 = XOR(d0, a0); d1 = XOR(d1, a1); d2 = XOR(d2, a2); d3 = XOR(d3, a3);    \
		d0 = ROTL(d0, 8); d1 = ROTL(d1, 8); d2 = ROTL(d2, 8); d3 = ROTL(d3, 8);    \
		c0 = ADD(c0, d0); c1 = ADD(c1, d1); c2 = ADD(c2, d2); c3 = ADD(c3, d3);    \
		b0 = XOR(b0, c0); b1 = XOR(b1, c1); b2 = XOR(b2, c2); b3 = XOR(b3, c3);    \
		b0 = ROTL(b0, 7); b1 = ROTL(b1, 7); b2 = ROTL(b2, 7); b3 = ROTL(b3, 7);    \
	} while (0)

/* The scalar quarter round (for the precomputation). */
#define SQR(a, b, c, d)                                   \
	do {                                              \
		a += b; d ^= a; d = surand_rotl32(d, 16); \
		c += d; b ^= c; b = surand_rotl32(b, 12); \
		a += b; d ^= a; d = surand_rotl32(d, 8);  \
		c += d; b ^= c; b = surand_rotl32(b, 7);  \
	} while (0)

/* 4x4 transpose of 32-bit words inside each 128-bit lane. */
#define TRANSPOSE4(a, b, c, d)                                                              \
	do {                                                                                \
		__m512i t0_ = _mm512_unpacklo_epi32(a, b), t1_ = _mm512_unpacklo_epi32(c, d); \
		__m512i t2_ = _mm512_unpackhi_epi32(a, b), t3_ = _mm512_unpackhi_epi32(c, d); \
		a = _mm512_unpacklo_epi64(t0_, t1_);                                        \
		b = _mm512_unpackhi_epi64(t0_, t1_);                                        \
		c = _mm512_unpacklo_epi64(t2_, t3_);                                        \
		d = _mm512_unpackhi_epi64(t2_, t3_);                                        \
	} while (0)

/*
 * v holds words 4g..4g+3 of blocks r, r+4, r+8, r+12 (one per 128-bit lane):
 * stores each lane at its place.  memcpy of an extracted lane compiles to
 * the store form of vextracti32x4 (store ports only, no shuffle).
 */
static inline __attribute__((always_inline)) void store_lanes(uint8_t *out, __m512i v, int r, int g)
{
	const __m128i l0 = _mm512_castsi512_si128(v);
	const __m128i l1 = _mm512_extracti32x4_epi32(v, 1);
	const __m128i l2 = _mm512_extracti32x4_epi32(v, 2);
	const __m128i l3 = _mm512_extracti32x4_epi32(v, 3);

	memcpy(out + 64 * (r + 0) + 16 * g, &l0, 16);
	memcpy(out + 64 * (r + 4) + 16 * g, &l1, 16);
	memcpy(out + 64 * (r + 8) + 16 * g, &l2, 16);
	memcpy(out + 64 * (r + 12) + 16 * g, &l3, 16);
}

/*
 * Part p (0..7) of writing out the finished group ks[] (16 vectors, vector
 * i = word i of 16 blocks) to out: part g < 4 transposes words 4g..4g+3
 * inside the 128-bit lanes (in place), part 4 + g stores them.
 */
static inline __attribute__((always_inline)) void write_part(__m512i ks[16], uint8_t *out, int p)
{
	if (p < 4) {
		__m512i a = ks[4 * p], b = ks[4 * p + 1], c = ks[4 * p + 2], d = ks[4 * p + 3];

		TRANSPOSE4(a, b, c, d);
		ks[4 * p] = a;
		ks[4 * p + 1] = b;
		ks[4 * p + 2] = c;
		ks[4 * p + 3] = d;
	} else {
		const int g = p - 4;

		store_lanes(out, ks[4 * g], 0, g);
		store_lanes(out, ks[4 * g + 1], 1, g);
		store_lanes(out, ks[4 * g + 2], 2, g);
		store_lanes(out, ks[4 * g + 3], 3, g);
	}
}
#define WRITE_PARTS 8

/*
 * Zeroes every vector register: vzeroall clears zmm0-15 entirely (in 64-bit
 * mode), zmm16-31 are cleared one by one.
 */
static inline void zmm_clear(void)
{
	__asm__ __volatile__("vpxord %%zmm16, %%zmm16, %%zmm16\n\t"
			     "vpxord %%zmm17, %%zmm17, %%zmm17\n\t"
			     "vpxord %%zmm18, %%zmm18, %%zmm18\n\t"
			     "vpxord %%zmm19, %%zmm19, %%zmm19\n\t"
			     "vpxord %%zmm20, %%zmm20, %%zmm20\n\t"
			     "vpxord %%zmm21, %%zmm21, %%zmm21\n\t"
			     "vpxord %%zmm22, %%zmm22, %%zmm22\n\t"
			     "vpxord %%zmm23, %%zmm23, %%zmm23\n\t"
			     "vpxord %%zmm24, %%zmm24, %%zmm24\n\t"
			     "vpxord %%zmm25, %%zmm25, %%zmm25\n\t"
			     "vpxord %%zmm26, %%zmm26, %%zmm26\n\t"
			     "vpxord %%zmm27, %%zmm27, %%zmm27\n\t"
			     "vpxord %%zmm28, %%zmm28, %%zmm28\n\t"
			     "vpxord %%zmm29, %%zmm29, %%zmm29\n\t"
			     "vpxord %%zmm30, %%zmm30, %%zmm30\n\t"
			     "vpxord %%zmm31, %%zmm31, %%zmm31\n\t"
			     "vzeroall"
			     :
			     :
			     : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",
			       "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm16",
			       "xmm17", "xmm18", "xmm19", "xmm20", "xmm21", "xmm22", "xmm23", "xmm24",
			       "xmm25", "xmm26", "xmm27", "xmm28", "xmm29", "xmm30", "xmm31");
}

void surand_chacha20_blocks_avx512(const uint32_t key[8], uint64_t counter, uint64_t nonce,
				   uint8_t *out, size_t nblocks)
{
	const __m512i lane = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
	const __m512i one = _mm512_set1_epi32(1);
	const __m512i c0 = _mm512_set1_epi32((int)SURAND_CHACHA_C0);
	const __m512i c1 = _mm512_set1_epi32((int)SURAND_CHACHA_C1);
	const __m512i c2 = _mm512_set1_epi32((int)SURAND_CHACHA_C2);
	const __m512i c3 = _mm512_set1_epi32((int)SURAND_CHACHA_C3);
	const __m512i n_lo = _mm512_set1_epi32((int)(uint32_t)nonce);
	const __m512i n_hi = _mm512_set1_epi32((int)(uint32_t)(nonce >> 32));
	const __m512i k0 = _mm512_set1_epi32((int)key[0]), k1 = _mm512_set1_epi32((int)key[1]);
	const __m512i k2 = _mm512_set1_epi32((int)key[2]), k3 = _mm512_set1_epi32((int)key[3]);
	const __m512i k4 = _mm512_set1_epi32((int)key[4]), k5 = _mm512_set1_epi32((int)key[5]);
	const __m512i k6 = _mm512_set1_epi32((int)key[6]), k7 = _mm512_set1_epi32((int)key[7]);
	/*
	 * The counter-free part of the first column round: columns 2 and 3
	 * (constants, key, nonce: the same in every lane and every group) after
	 * their whole quarter round, columns 0 and 1 after their first a += b.
	 * pre[] holds key-derived words: wiped right after use.
	 */
	uint32_t pre[10];
	__m512i p0a, p1a, p2a, p2b, p2c, p2d, p3a, p3b, p3c, p3d;
	__m512i ks[16];    /* the previous group's keystream, being written out */
	uint8_t *prev = out; /* where it goes */
	int have_prev = 0;
	size_t n;
	int i;

	if (nblocks < AVX512_BLOCKS) {
		/* Nothing for this body: no key material enters its registers. */
		surand_chacha20_blocks_avx2(key, counter, nonce, out, nblocks);
		return;
	}
	pre[0] = SURAND_CHACHA_C2, pre[1] = key[2], pre[2] = key[6], pre[3] = (uint32_t)nonce;
	SQR(pre[0], pre[1], pre[2], pre[3]);
	pre[4] = SURAND_CHACHA_C3, pre[5] = key[3], pre[6] = key[7], pre[7] = (uint32_t)(nonce >> 32);
	SQR(pre[4], pre[5], pre[6], pre[7]);
	pre[8] = SURAND_CHACHA_C0 + key[0];
	pre[9] = SURAND_CHACHA_C1 + key[1];
	p2a = _mm512_set1_epi32((int)pre[0]), p2b = _mm512_set1_epi32((int)pre[1]);
	p2c = _mm512_set1_epi32((int)pre[2]), p2d = _mm512_set1_epi32((int)pre[3]);
	p3a = _mm512_set1_epi32((int)pre[4]), p3b = _mm512_set1_epi32((int)pre[5]);
	p3c = _mm512_set1_epi32((int)pre[6]), p3d = _mm512_set1_epi32((int)pre[7]);
	p0a = _mm512_set1_epi32((int)pre[8]), p1a = _mm512_set1_epi32((int)pre[9]);
	surand_wipe(pre, sizeof(pre));

	for (n = nblocks / AVX512_BLOCKS; n; n--) {
		const __m512i base_lo = _mm512_set1_epi32((int)(uint32_t)counter);
		const __m512i base_hi = _mm512_set1_epi32((int)(uint32_t)(counter >> 32));
		const __m512i ctr_lo = ADD(base_lo, lane);
		/* Lanes whose low word wrapped (lo + j < lo, unsigned) carry into
		 * word 13; the high word wraps modulo 2^32, so the 64-bit counter
		 * wraps modulo 2^64. */
		const __mmask16 carry = _mm512_cmplt_epu32_mask(ctr_lo, base_lo);
		const __m512i ctr_hi = _mm512_mask_add_epi32(base_hi, carry, base_hi, one);
		__m512i x0 = p0a, x1 = p1a, x2 = p2a, x3 = p3a;
		__m512i x4 = k0, x5 = k1, x6 = p2b, x7 = p3b;
		__m512i x8 = k4, x9 = k5, x10 = p2c, x11 = p3c;
		__m512i x12 = ctr_lo, x13 = ctr_hi, x14 = p2d, x15 = p3d;

		/* The rest of the first column round: columns 0 and 1. */
		x12 = XOR(x12, x0); x13 = XOR(x13, x1);
		x12 = ROTL(x12, 16); x13 = ROTL(x13, 16);
		x8 = ADD(x8, x12); x9 = ADD(x9, x13);
		x4 = XOR(x4, x8); x5 = XOR(x5, x9);
		x4 = ROTL(x4, 12); x5 = ROTL(x5, 12);
		x0 = ADD(x0, x4); x1 = ADD(x1, x5);
		x12 = XOR(x12, x0); x13 = XOR(x13, x1);
		x12 = ROTL(x12, 8); x13 = ROTL(x13, 8);
		x8 = ADD(x8, x12); x9 = ADD(x9, x13);
		x4 = XOR(x4, x8); x5 = XOR(x5, x9);
		x4 = ROTL(x4, 7); x5 = ROTL(x5, 7);
		/* The first diagonal round. */
		QR4(x0, x5, x10, x15, x1, x6, x11, x12, x2, x7, x8, x13, x3, x4, x9, x14);
		if (have_prev)
			write_part(ks, prev, 0);

		/* The other double rounds, each followed by one part of writing
		 * out the previous group. */
#pragma GCC unroll 10
		for (i = 2; i < SURAND_CHACHA_NROUNDS; i += 2) {
			/* column round */
			QR4(x0, x4, x8, x12, x1, x5, x9, x13, x2, x6, x10, x14, x3, x7, x11, x15);
			/* diagonal round */
			QR4(x0, x5, x10, x15, x1, x6, x11, x12, x2, x7, x8, x13, x3, x4, x9, x14);
			if (have_prev && i / 2 < WRITE_PARTS)
				write_part(ks, prev, i / 2);
		}
		/* Fewer double rounds than parts (reduced-round bench builds). */
		if (have_prev)
			for (i = SURAND_CHACHA_NROUNDS / 2; i < WRITE_PARTS; i++)
				write_part(ks, prev, i);

		ks[0] = ADD(x0, c0);
		ks[1] = ADD(x1, c1);
		ks[2] = ADD(x2, c2);
		ks[3] = ADD(x3, c3);
		ks[4] = ADD(x4, k0);
		ks[5] = ADD(x5, k1);
		ks[6] = ADD(x6, k2);
		ks[7] = ADD(x7, k3);
		ks[8] = ADD(x8, k4);
		ks[9] = ADD(x9, k5);
		ks[10] = ADD(x10, k6);
		ks[11] = ADD(x11, k7);
		ks[12] = ADD(x12, ctr_lo);
		ks[13] = ADD(x13, ctr_hi);
		ks[14] = ADD(x14, n_lo);
		ks[15] = ADD(x15, n_hi);
		prev = out;
		have_prev = 1;

		out += AVX512_BLOCKS * SURAND_CHACHA20_BLOCK_SIZE;
		counter += AVX512_BLOCKS; /* wraps modulo 2^64 by design */
	}
	/* The last group (there was at least one). */
	for (i = 0; i < WRITE_PARTS; i++)
		write_part(ks, prev, i);
	/* ks[] held keystream (on the stack): wipe it; and the zmm registers
	 * held key and keystream: clear them. */
	surand_wipe(ks, sizeof(ks));
	zmm_clear();

	if (nblocks % AVX512_BLOCKS)
		surand_chacha20_blocks_avx2(key, counter, nonce, out, nblocks % AVX512_BLOCKS);
}

void surand_chacha20_avx512_clear_regs(void)
{
	zmm_clear();
}
