// SPDX-License-Identifier: MIT
/*
 * chacha20_ssse3.c - ChaCha20, 4 blocks in parallel with SSSE3 (built with
 * -mssse3; only called when cpu.c found SSSE3).  Userspace only.
 *
 * Layout of the work: vector x[i] holds state word i of 4 consecutive
 * blocks (lane j = block j).  After the rounds, each group of 4 vectors is
 * transposed 4x4 so every vector holds 16 consecutive output bytes of one
 * block.  Remaining blocks (nblocks % 4) go to the portable body.
 */
#include "chacha20.h"

#include <tmmintrin.h>

#define SSSE3_BLOCKS 4

static inline __m128i rotl16(__m128i v, __m128i shuf)
{
	return _mm_shuffle_epi8(v, shuf);
}

#define ROTL(v, n) _mm_or_si128(_mm_slli_epi32((v), (n)), _mm_srli_epi32((v), 32 - (n)))

#define QR(a, b, c, d)                                                   \
	do {                                                             \
		a = _mm_add_epi32(a, b); d = _mm_xor_si128(d, a); d = rotl16(d, r16); \
		c = _mm_add_epi32(c, d); b = _mm_xor_si128(b, c); b = ROTL(b, 12);   \
		a = _mm_add_epi32(a, b); d = _mm_xor_si128(d, a); d = rotl16(d, r8);  \
		c = _mm_add_epi32(c, d); b = _mm_xor_si128(b, c); b = ROTL(b, 7);    \
	} while (0)

/* Transposes 4 vectors of words (a: word w of blocks 0..3, ...) and stores
 * 16 bytes of each block at out + 64 * block + off. */
#define STORE4(a, b, c, d, out, off)                                        \
	do {                                                                \
		__m128i t0_ = _mm_unpacklo_epi32(a, b), t1_ = _mm_unpacklo_epi32(c, d); \
		__m128i t2_ = _mm_unpackhi_epi32(a, b), t3_ = _mm_unpackhi_epi32(c, d); \
		_mm_storeu_si128((__m128i *)((out) + 0 + (off)), _mm_unpacklo_epi64(t0_, t1_)); \
		_mm_storeu_si128((__m128i *)((out) + 64 + (off)), _mm_unpackhi_epi64(t0_, t1_)); \
		_mm_storeu_si128((__m128i *)((out) + 128 + (off)), _mm_unpacklo_epi64(t2_, t3_)); \
		_mm_storeu_si128((__m128i *)((out) + 192 + (off)), _mm_unpackhi_epi64(t2_, t3_)); \
	} while (0)

/* Zeroes xmm0-15 (SSE encoding: no AVX state is touched). */
static inline void xmm_clear(void)
{
	__asm__ __volatile__("pxor %%xmm0, %%xmm0\n\t"
			     "pxor %%xmm1, %%xmm1\n\t"
			     "pxor %%xmm2, %%xmm2\n\t"
			     "pxor %%xmm3, %%xmm3\n\t"
			     "pxor %%xmm4, %%xmm4\n\t"
			     "pxor %%xmm5, %%xmm5\n\t"
			     "pxor %%xmm6, %%xmm6\n\t"
			     "pxor %%xmm7, %%xmm7\n\t"
			     "pxor %%xmm8, %%xmm8\n\t"
			     "pxor %%xmm9, %%xmm9\n\t"
			     "pxor %%xmm10, %%xmm10\n\t"
			     "pxor %%xmm11, %%xmm11\n\t"
			     "pxor %%xmm12, %%xmm12\n\t"
			     "pxor %%xmm13, %%xmm13\n\t"
			     "pxor %%xmm14, %%xmm14\n\t"
			     "pxor %%xmm15, %%xmm15"
			     :
			     :
			     : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",
			       "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
}

void surand_chacha20_blocks_ssse3(const uint32_t key[8], uint64_t counter, uint64_t nonce,
				  uint8_t *out, size_t nblocks)
{
	/* pshufb masks: rotate every 32-bit lane left by 16 and by 8. */
	const __m128i r16 = _mm_set_epi8(13, 12, 15, 14, 9, 8, 11, 10, 5, 4, 7, 6, 1, 0, 3, 2);
	const __m128i r8 = _mm_set_epi8(14, 13, 12, 15, 10, 9, 8, 11, 6, 5, 4, 7, 2, 1, 0, 3);
	__m128i k[8];
	size_t n;
	int i;

	if (nblocks < SSSE3_BLOCKS) {
		/* Nothing for this body: no key material enters its registers. */
		surand_chacha20_blocks_portable(key, counter, nonce, out, nblocks);
		return;
	}
	for (i = 0; i < 8; i++)
		k[i] = _mm_set1_epi32((int)key[i]);

	for (n = nblocks / SSSE3_BLOCKS; n; n--) {
		/* Per-lane 64-bit counters: the carry from word 12 into 13 and the
		 * wrap modulo 2^64 come from 64-bit arithmetic here. */
		const uint64_t c1 = counter + 1, c2 = counter + 2, c3 = counter + 3;
		const __m128i ctr_lo = _mm_set_epi32((int)(uint32_t)c3, (int)(uint32_t)c2,
						     (int)(uint32_t)c1, (int)(uint32_t)counter);
		const __m128i ctr_hi = _mm_set_epi32((int)(uint32_t)(c3 >> 32), (int)(uint32_t)(c2 >> 32),
						     (int)(uint32_t)(c1 >> 32),
						     (int)(uint32_t)(counter >> 32));
		const __m128i n_lo = _mm_set1_epi32((int)(uint32_t)nonce);
		const __m128i n_hi = _mm_set1_epi32((int)(uint32_t)(nonce >> 32));
		__m128i x0 = _mm_set1_epi32((int)SURAND_CHACHA_C0), x1 = _mm_set1_epi32((int)SURAND_CHACHA_C1);
		__m128i x2 = _mm_set1_epi32((int)SURAND_CHACHA_C2), x3 = _mm_set1_epi32((int)SURAND_CHACHA_C3);
		__m128i x4 = k[0], x5 = k[1], x6 = k[2], x7 = k[3];
		__m128i x8 = k[4], x9 = k[5], x10 = k[6], x11 = k[7];
		__m128i x12 = ctr_lo, x13 = ctr_hi, x14 = n_lo, x15 = n_hi;

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
		x0 = _mm_add_epi32(x0, _mm_set1_epi32((int)SURAND_CHACHA_C0));
		x1 = _mm_add_epi32(x1, _mm_set1_epi32((int)SURAND_CHACHA_C1));
		x2 = _mm_add_epi32(x2, _mm_set1_epi32((int)SURAND_CHACHA_C2));
		x3 = _mm_add_epi32(x3, _mm_set1_epi32((int)SURAND_CHACHA_C3));
		x4 = _mm_add_epi32(x4, k[0]);
		x5 = _mm_add_epi32(x5, k[1]);
		x6 = _mm_add_epi32(x6, k[2]);
		x7 = _mm_add_epi32(x7, k[3]);
		x8 = _mm_add_epi32(x8, k[4]);
		x9 = _mm_add_epi32(x9, k[5]);
		x10 = _mm_add_epi32(x10, k[6]);
		x11 = _mm_add_epi32(x11, k[7]);
		x12 = _mm_add_epi32(x12, ctr_lo);
		x13 = _mm_add_epi32(x13, ctr_hi);
		x14 = _mm_add_epi32(x14, n_lo);
		x15 = _mm_add_epi32(x15, n_hi);

		STORE4(x0, x1, x2, x3, out, 0);
		STORE4(x4, x5, x6, x7, out, 16);
		STORE4(x8, x9, x10, x11, out, 32);
		STORE4(x12, x13, x14, x15, out, 48);

		out += SSSE3_BLOCKS * SURAND_CHACHA20_BLOCK_SIZE;
		counter += SSSE3_BLOCKS; /* wraps modulo 2^64 by design */
	}
	/* The broadcast key copy may live on the stack: wipe it; the xmm
	 * registers held key and keystream: clear them. */
	surand_wipe(k, sizeof(k));
	xmm_clear();

	if (nblocks % SSSE3_BLOCKS)
		surand_chacha20_blocks_portable(key, counter, nonce, out, nblocks % SSSE3_BLOCKS);
}
