/*
 * vregs.h - the vector registers as a test sees them right after a call:
 * vregs_init() picks the width this CPU has, vregs_dump() stores every
 * vector register (noinline: nothing runs between the call before it and
 * the stores; the call itself changes no vector register), vregs_hold()
 * counts the random-looking 8-byte windows of a secret found in a dump.
 * SPDX-License-Identifier: MIT
 */
#ifndef SURAND_TEST_VREGS_H
#define SURAND_TEST_VREGS_H

#include <stdint.h>
#include <string.h>

#include "harness.h"

#define VREG_BYTES (32 * 64)
static int vreg_width; /* 64: zmm0-31, 32: ymm0-15, 16: xmm0-15 / v0-v31 */

static __attribute__((noinline)) void vregs_dump(uint8_t *out)
{
#if defined(__x86_64__)
	if (vreg_width == 64)
		__asm__ __volatile__(
			"vmovdqu64 %%zmm0, 0(%0)\n\t vmovdqu64 %%zmm1, 64(%0)\n\t"
			"vmovdqu64 %%zmm2, 128(%0)\n\t vmovdqu64 %%zmm3, 192(%0)\n\t"
			"vmovdqu64 %%zmm4, 256(%0)\n\t vmovdqu64 %%zmm5, 320(%0)\n\t"
			"vmovdqu64 %%zmm6, 384(%0)\n\t vmovdqu64 %%zmm7, 448(%0)\n\t"
			"vmovdqu64 %%zmm8, 512(%0)\n\t vmovdqu64 %%zmm9, 576(%0)\n\t"
			"vmovdqu64 %%zmm10, 640(%0)\n\t vmovdqu64 %%zmm11, 704(%0)\n\t"
			"vmovdqu64 %%zmm12, 768(%0)\n\t vmovdqu64 %%zmm13, 832(%0)\n\t"
			"vmovdqu64 %%zmm14, 896(%0)\n\t vmovdqu64 %%zmm15, 960(%0)\n\t"
			"vmovdqu64 %%zmm16, 1024(%0)\n\t vmovdqu64 %%zmm17, 1088(%0)\n\t"
			"vmovdqu64 %%zmm18, 1152(%0)\n\t vmovdqu64 %%zmm19, 1216(%0)\n\t"
			"vmovdqu64 %%zmm20, 1280(%0)\n\t vmovdqu64 %%zmm21, 1344(%0)\n\t"
			"vmovdqu64 %%zmm22, 1408(%0)\n\t vmovdqu64 %%zmm23, 1472(%0)\n\t"
			"vmovdqu64 %%zmm24, 1536(%0)\n\t vmovdqu64 %%zmm25, 1600(%0)\n\t"
			"vmovdqu64 %%zmm26, 1664(%0)\n\t vmovdqu64 %%zmm27, 1728(%0)\n\t"
			"vmovdqu64 %%zmm28, 1792(%0)\n\t vmovdqu64 %%zmm29, 1856(%0)\n\t"
			"vmovdqu64 %%zmm30, 1920(%0)\n\t vmovdqu64 %%zmm31, 1984(%0)"
			: : "r"(out) : "memory");
	else if (vreg_width == 32)
		__asm__ __volatile__(
			"vmovdqu %%ymm0, 0(%0)\n\t vmovdqu %%ymm1, 32(%0)\n\t"
			"vmovdqu %%ymm2, 64(%0)\n\t vmovdqu %%ymm3, 96(%0)\n\t"
			"vmovdqu %%ymm4, 128(%0)\n\t vmovdqu %%ymm5, 160(%0)\n\t"
			"vmovdqu %%ymm6, 192(%0)\n\t vmovdqu %%ymm7, 224(%0)\n\t"
			"vmovdqu %%ymm8, 256(%0)\n\t vmovdqu %%ymm9, 288(%0)\n\t"
			"vmovdqu %%ymm10, 320(%0)\n\t vmovdqu %%ymm11, 352(%0)\n\t"
			"vmovdqu %%ymm12, 384(%0)\n\t vmovdqu %%ymm13, 416(%0)\n\t"
			"vmovdqu %%ymm14, 448(%0)\n\t vmovdqu %%ymm15, 480(%0)"
			: : "r"(out) : "memory");
	else
		__asm__ __volatile__(
			"movdqu %%xmm0, 0(%0)\n\t movdqu %%xmm1, 16(%0)\n\t"
			"movdqu %%xmm2, 32(%0)\n\t movdqu %%xmm3, 48(%0)\n\t"
			"movdqu %%xmm4, 64(%0)\n\t movdqu %%xmm5, 80(%0)\n\t"
			"movdqu %%xmm6, 96(%0)\n\t movdqu %%xmm7, 112(%0)\n\t"
			"movdqu %%xmm8, 128(%0)\n\t movdqu %%xmm9, 144(%0)\n\t"
			"movdqu %%xmm10, 160(%0)\n\t movdqu %%xmm11, 176(%0)\n\t"
			"movdqu %%xmm12, 192(%0)\n\t movdqu %%xmm13, 208(%0)\n\t"
			"movdqu %%xmm14, 224(%0)\n\t movdqu %%xmm15, 240(%0)"
			: : "r"(out) : "memory");
#elif defined(__aarch64__)
	__asm__ __volatile__("st1 {v0.16b, v1.16b, v2.16b, v3.16b}, [%0], #64\n\t"
			     "st1 {v4.16b, v5.16b, v6.16b, v7.16b}, [%0], #64\n\t"
			     "st1 {v8.16b, v9.16b, v10.16b, v11.16b}, [%0], #64\n\t"
			     "st1 {v12.16b, v13.16b, v14.16b, v15.16b}, [%0], #64\n\t"
			     "st1 {v16.16b, v17.16b, v18.16b, v19.16b}, [%0], #64\n\t"
			     "st1 {v20.16b, v21.16b, v22.16b, v23.16b}, [%0], #64\n\t"
			     "st1 {v24.16b, v25.16b, v26.16b, v27.16b}, [%0], #64\n\t"
			     "st1 {v28.16b, v29.16b, v30.16b, v31.16b}, [%0], #64"
			     : "+r"(out) : : "memory");
#else
	(void)out;
#endif
}

/* How many random-looking 8-byte windows of secret are in the dump: counters,
 * lengths and padding in the state are small numbers any register may hold by
 * chance; key bytes are not. */
static __attribute__((unused)) int vregs_hold(const uint8_t *dump, const void *secret, size_t n)
{
	const uint8_t *s = secret;
	int found = 0;

	for (size_t i = 0; i + 8 <= n; i++)
		if (t_random_looking(s + i, 8) && memmem(dump, VREG_BYTES, s + i, 8) != NULL)
			found++;
	return found;
}

/* 1 where this architecture has a dump (x86-64, aarch64), else 0. */
static int vregs_init(void)
{
#if defined(__x86_64__)
	vreg_width = __builtin_cpu_supports("avx512f") ? 64 : __builtin_cpu_supports("avx2") ? 32 : 16;
	return 1;
#elif defined(__aarch64__)
	vreg_width = 16;
	return 1;
#else
	return 0;
#endif
}

#endif /* SURAND_TEST_VREGS_H */
