// SPDX-License-Identifier: MIT
/*
 * chacha20_avx2.c - ChaCha20, 8 blocks in parallel with AVX2 (built with
 * -mavx2; only called when cpu.c found AVX2 usable, OS included).
 * Userspace only.
 *
 * Vector x[i] holds state word i of 8 consecutive blocks (lane j = block j).
 * After the rounds, a 4x4 transpose inside each 128-bit half followed by a
 * swap of halves (vperm2i128) gives 32 consecutive output bytes of one block
 * per vector.  Remaining blocks (nblocks % 8) go to the SSSE3 body.
 */
#include "chacha20.h"

#include <immintrin.h>

#define AVX2_BLOCKS 8

#define ADD(a, b) _mm256_add_epi32((a), (b))
#define XOR(a, b) _mm256_xor_si256((a), (b))
#define ROTL(v, n) _mm256_or_si256(_mm256_slli_epi32((v), (n)), _mm256_srli_epi32((v), 32 - (n)))

#define QR(a, b, c, d)                                                                \
	do {                                                                          \
		a = ADD(a, b); d = XOR(d, a); d = _mm256_shuffle_epi8(d, r16);        \
		c = ADD(c, d); b = XOR(b, c); b = ROTL(b, 12);                        \
		a = ADD(a, b); d = XOR(d, a); d = _mm256_shuffle_epi8(d, r8);         \
		c = ADD(c, d); b = XOR(b, c); b = ROTL(b, 7);                         \
	} while (0)

/* 4x4 transpose of 32-bit words inside each 128-bit half. */
#define TRANSPOSE4(a, b, c, d)                                               \
	do {                                                                 \
		__m256i t0_ = _mm256_unpacklo_epi32(a, b), t1_ = _mm256_unpacklo_epi32(c, d); \
		__m256i t2_ = _mm256_unpackhi_epi32(a, b), t3_ = _mm256_unpackhi_epi32(c, d); \
		a = _mm256_unpacklo_epi64(t0_, t1_);                         \
		b = _mm256_unpackhi_epi64(t0_, t1_);                         \
		c = _mm256_unpacklo_epi64(t2_, t3_);                         \
		d = _mm256_unpackhi_epi64(t2_, t3_);                         \
	} while (0)

#define STORE(p, v) _mm256_storeu_si256((__m256i *)(p), (v))

void surand_chacha20_blocks_avx2(const uint32_t key[8], uint64_t counter, uint64_t nonce,
				 uint8_t *out, size_t nblocks)
{
	/* vpshufb masks: rotate every 32-bit lane left by 16 and by 8. */
	const __m256i r16 = _mm256_set_epi8(13, 12, 15, 14, 9, 8, 11, 10, 5, 4, 7, 6, 1, 0, 3, 2,
					    13, 12, 15, 14, 9, 8, 11, 10, 5, 4, 7, 6, 1, 0, 3, 2);
	const __m256i r8 = _mm256_set_epi8(14, 13, 12, 15, 10, 9, 8, 11, 6, 5, 4, 7, 2, 1, 0, 3,
					   14, 13, 12, 15, 10, 9, 8, 11, 6, 5, 4, 7, 2, 1, 0, 3);
	const __m256i lane = _mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0);
	const __m256i sign = _mm256_set1_epi32((int)0x80000000u);
	const __m256i n_lo = _mm256_set1_epi32((int)(uint32_t)nonce);
	const __m256i n_hi = _mm256_set1_epi32((int)(uint32_t)(nonce >> 32));
	__m256i k[8];
	size_t n;
	int i;

	if (nblocks < AVX2_BLOCKS) {
		/* Nothing for this body: no key material enters its registers. */
		surand_chacha20_blocks_ssse3(key, counter, nonce, out, nblocks);
		return;
	}
	for (i = 0; i < 8; i++)
		k[i] = _mm256_set1_epi32((int)key[i]);

	for (n = nblocks / AVX2_BLOCKS; n; n--) {
		const __m256i base_lo = _mm256_set1_epi32((int)(uint32_t)counter);
		const __m256i ctr_lo = ADD(base_lo, lane);
		/* Lane j carries into word 13 when lo + j wrapped below lo (an
		 * unsigned compare, done signed on sign-flipped values); the mask
		 * is -1 there, so subtracting it adds the carry.  The high word
		 * itself wraps modulo 2^32: the counter wraps modulo 2^64. */
		const __m256i carry = _mm256_cmpgt_epi32(XOR(base_lo, sign), XOR(ctr_lo, sign));
		const __m256i ctr_hi =
			_mm256_sub_epi32(_mm256_set1_epi32((int)(uint32_t)(counter >> 32)), carry);
		__m256i x0 = _mm256_set1_epi32((int)SURAND_CHACHA_C0);
		__m256i x1 = _mm256_set1_epi32((int)SURAND_CHACHA_C1);
		__m256i x2 = _mm256_set1_epi32((int)SURAND_CHACHA_C2);
		__m256i x3 = _mm256_set1_epi32((int)SURAND_CHACHA_C3);
		__m256i x4 = k[0], x5 = k[1], x6 = k[2], x7 = k[3];
		__m256i x8 = k[4], x9 = k[5], x10 = k[6], x11 = k[7];
		__m256i x12 = ctr_lo, x13 = ctr_hi, x14 = n_lo, x15 = n_hi;

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
		x0 = ADD(x0, _mm256_set1_epi32((int)SURAND_CHACHA_C0));
		x1 = ADD(x1, _mm256_set1_epi32((int)SURAND_CHACHA_C1));
		x2 = ADD(x2, _mm256_set1_epi32((int)SURAND_CHACHA_C2));
		x3 = ADD(x3, _mm256_set1_epi32((int)SURAND_CHACHA_C3));
		x4 = ADD(x4, k[0]);
		x5 = ADD(x5, k[1]);
		x6 = ADD(x6, k[2]);
		x7 = ADD(x7, k[3]);
		x8 = ADD(x8, k[4]);
		x9 = ADD(x9, k[5]);
		x10 = ADD(x10, k[6]);
		x11 = ADD(x11, k[7]);
		x12 = ADD(x12, ctr_lo);
		x13 = ADD(x13, ctr_hi);
		x14 = ADD(x14, n_lo);
		x15 = ADD(x15, n_hi);

		/* After these, x0 = words 0-3 of blocks 0 | 4, x1 = of blocks 1 | 5 ... */
		TRANSPOSE4(x0, x1, x2, x3);
		TRANSPOSE4(x4, x5, x6, x7);
		TRANSPOSE4(x8, x9, x10, x11);
		TRANSPOSE4(x12, x13, x14, x15);

		/* Block j (j < 4): low halves; block j + 4: high halves. */
		STORE(out + 0 * 64 + 0, _mm256_permute2x128_si256(x0, x4, 0x20));
		STORE(out + 0 * 64 + 32, _mm256_permute2x128_si256(x8, x12, 0x20));
		STORE(out + 1 * 64 + 0, _mm256_permute2x128_si256(x1, x5, 0x20));
		STORE(out + 1 * 64 + 32, _mm256_permute2x128_si256(x9, x13, 0x20));
		STORE(out + 2 * 64 + 0, _mm256_permute2x128_si256(x2, x6, 0x20));
		STORE(out + 2 * 64 + 32, _mm256_permute2x128_si256(x10, x14, 0x20));
		STORE(out + 3 * 64 + 0, _mm256_permute2x128_si256(x3, x7, 0x20));
		STORE(out + 3 * 64 + 32, _mm256_permute2x128_si256(x11, x15, 0x20));
		STORE(out + 4 * 64 + 0, _mm256_permute2x128_si256(x0, x4, 0x31));
		STORE(out + 4 * 64 + 32, _mm256_permute2x128_si256(x8, x12, 0x31));
		STORE(out + 5 * 64 + 0, _mm256_permute2x128_si256(x1, x5, 0x31));
		STORE(out + 5 * 64 + 32, _mm256_permute2x128_si256(x9, x13, 0x31));
		STORE(out + 6 * 64 + 0, _mm256_permute2x128_si256(x2, x6, 0x31));
		STORE(out + 6 * 64 + 32, _mm256_permute2x128_si256(x10, x14, 0x31));
		STORE(out + 7 * 64 + 0, _mm256_permute2x128_si256(x3, x7, 0x31));
		STORE(out + 7 * 64 + 32, _mm256_permute2x128_si256(x11, x15, 0x31));

		out += AVX2_BLOCKS * SURAND_CHACHA20_BLOCK_SIZE;
		counter += AVX2_BLOCKS; /* wraps modulo 2^64 by design */
	}
	/* The broadcast key copy may live on the stack: wipe it. */
	surand_wipe(k, sizeof(k));
	/* Clear ymm0-15: the registers held the key and keystream. */
	_mm256_zeroall();

	if (nblocks % AVX2_BLOCKS)
		surand_chacha20_blocks_ssse3(key, counter, nonce, out, nblocks % AVX2_BLOCKS);
}
