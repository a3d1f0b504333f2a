/*
 * cpu.c - CPU features, read once, and the choice of ChaCha20 body.
 *
 * Built without target flags (like the portable body), so it runs on any
 * x86-64 CPU: only the bodies in src/crypto/chacha20_<isa>.c carry -mssse3,
 * -mavx2 or -mavx512f, and they are called only when the CPU *and* the OS
 * support their registers (cpuid for the CPU, xgetbv/XCR0 for the OS saving
 * the XMM/YMM/ZMM state on context switches).
 *
 * Both the features and the body are chosen once, through pthread_once (so
 * two first callers race benignly, and TSan sees the ordering); a
 * constructor makes that happen at load time, so the hot path normally
 * finds the body already chosen: one relaxed atomic load and an indirect
 * call.
 *
 * On aarch64 the kernel reports the features (getauxval: AT_HWCAP for
 * Advanced SIMD, AT_HWCAP2 for the RNDR/RNDRRS registers), as the kernel
 * alone knows what it saves on a context switch and exposes to EL0.
 *
 * SURAND_CHACHA_IMPL=portable|ssse3|avx2|avx512|neon forces a body; an unknown or
 * unsupported value gets one line on stderr and the best supported body.
 * An empty value counts as unset.
 *
 * Last, surand_scrub_vector_regs(): the registers this CPU has, zeroed after
 * secret work.
 * SPDX-License-Identifier: MIT
 */
#include "internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__x86_64__)
#include <cpuid.h>
#define SURAND_CPU_X86 1
#elif defined(__aarch64__)
#include <sys/auxv.h>
#define SURAND_CPU_ARM64 1
/* arch/arm64/include/uapi/asm/hwcap.h (also glibc's <bits/hwcap.h>). */
#ifndef HWCAP_ASIMD
#define HWCAP_ASIMD (1ul << 1)
#endif
#ifndef HWCAP2_RNG
#define HWCAP2_RNG (1ul << 16)
#endif
#endif

/* ---- features ------------------------------------------------------------ */

static struct surand_cpu_features features;
static pthread_once_t features_once = PTHREAD_ONCE_INIT;

#ifdef SURAND_CPU_X86
/* XCR0 bits: state components the OS saves and restores (Intel SDM 13.1). */
#define XCR0_SSE (1u << 1)       /* XMM registers */
#define XCR0_AVX (1u << 2)       /* upper halves of YMM */
#define XCR0_OPMASK (1u << 5)    /* k0-k7 */
#define XCR0_ZMM_HI256 (1u << 6) /* upper halves of ZMM0-15 */
#define XCR0_HI16_ZMM (1u << 7)  /* ZMM16-31 */
#define XCR0_YMM_STATE (XCR0_SSE | XCR0_AVX)
#define XCR0_ZMM_STATE (XCR0_YMM_STATE | XCR0_OPMASK | XCR0_ZMM_HI256 | XCR0_HI16_ZMM)

/* CPUID.1:ECX */
#define CPUID1_ECX_SSSE3 (1u << 9)
#define CPUID1_ECX_OSXSAVE (1u << 27)
#define CPUID1_ECX_AVX (1u << 28)
#define CPUID1_ECX_RDRAND (1u << 30)
/* CPUID.(7,0):EBX */
#define CPUID7_EBX_AVX2 (1u << 5)
#define CPUID7_EBX_AVX512F (1u << 16)
#define CPUID7_EBX_RDSEED (1u << 18)

static uint64_t read_xcr0(void)
{
	uint32_t lo, hi;

	/* xgetbv with ECX=0; only called when CPUID says OSXSAVE is set
	 * (otherwise the instruction faults). */
	__asm__ __volatile__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return (uint64_t)hi << 32 | lo;
}

static void detect(void)
{
	unsigned int a, b, c, d, max_leaf, ecx1, ebx7 = 0;
	uint64_t xcr0 = 0;
	int osxsave;

	max_leaf = __get_cpuid_max(0, NULL);
	if (max_leaf < 1)
		return; /* no feature leaf: portable only */
	__cpuid(1, a, b, c, d);
	ecx1 = c;
	if (max_leaf >= 7) {
		__cpuid_count(7, 0, a, b, c, d);
		ebx7 = b;
	}
	osxsave = (ecx1 & CPUID1_ECX_OSXSAVE) != 0;
	if (osxsave)
		xcr0 = read_xcr0();

	/*
	 * XMM state: saved by every x86-64 OS (FXSAVE is architectural there);
	 * when XSAVE is enabled, XCR0 must also list it.
	 */
	features.ssse3 = (ecx1 & CPUID1_ECX_SSSE3) && (!osxsave || (xcr0 & XCR0_SSE));
	/* YMM: the CPU has AVX and AVX2, and the OS saves XMM and upper YMM. */
	features.avx2 = osxsave && (ecx1 & CPUID1_ECX_AVX) && (ebx7 & CPUID7_EBX_AVX2) &&
			(xcr0 & XCR0_YMM_STATE) == XCR0_YMM_STATE;
	/* ZMM: additionally opmask, upper ZMM0-15 and ZMM16-31 state. */
	features.avx512f = features.avx2 && (ebx7 & CPUID7_EBX_AVX512F) &&
			   (xcr0 & XCR0_ZMM_STATE) == XCR0_ZMM_STATE;
	features.rdrand = (ecx1 & CPUID1_ECX_RDRAND) != 0;
	features.rdseed = (ebx7 & CPUID7_EBX_RDSEED) != 0;
}
#elif defined(SURAND_CPU_ARM64)
static void detect(void)
{
	unsigned long hwcap = getauxval(AT_HWCAP), hwcap2 = getauxval(AT_HWCAP2);

	/* Advanced SIMD: part of the base ISA, still reported (and honoured:
	 * a kernel may withhold it) through the hwcap. */
	features.neon = (hwcap & HWCAP_ASIMD) != 0;
	/* FEAT_RNG: RNDR (a DRBG's output, like RDRAND) and RNDRRS (reseeded
	 * from the entropy source first, the kernel's seed source on arm64). */
	features.rdrand = features.rdseed = (hwcap2 & HWCAP2_RNG) != 0;
}
#else
static void detect(void)
{
	/* Neither x86-64 nor aarch64: no SIMD body is built; features stay zero. */
}
#endif

const struct surand_cpu_features *surand_cpu_features(void)
{
	pthread_once(&features_once, detect);
	return &features;
}

/* ---- the bodies ---------------------------------------------------------- */

struct chacha_body {
	const char *name;
	surand_chacha20_fn fn;
	unsigned width; /* blocks per step of its widest path */
};

/* Narrowest first; the last supported one is the best. */
static const struct chacha_body bodies[] = {
	{ "portable", surand_chacha20_blocks_portable, 1 },
#ifdef SURAND_CPU_X86
	{ "ssse3", surand_chacha20_blocks_ssse3, 4 },
	{ "avx2", surand_chacha20_blocks_avx2, 8 },
	{ "avx512", surand_chacha20_blocks_avx512, 16 },
#endif
#ifdef SURAND_CPU_ARM64
	{ "neon", surand_chacha20_blocks_neon, 4 },
#endif
};
#define NBODIES (sizeof(bodies) / sizeof(bodies[0]))

/*
 * A body is usable when the CPU/OS support its instructions and those of
 * every narrower body it hands tails to (avx512 -> avx2 -> ssse3 -> portable;
 * neon -> portable).
 */
static int body_supported(const struct chacha_body *body)
{
	const struct surand_cpu_features *f = surand_cpu_features();

	if (strcmp(body->name, "portable") == 0)
		return 1;
	if (strcmp(body->name, "ssse3") == 0)
		return f->ssse3;
	if (strcmp(body->name, "avx2") == 0)
		return f->ssse3 && f->avx2;
	if (strcmp(body->name, "avx512") == 0)
		return f->ssse3 && f->avx2 && f->avx512f;
	if (strcmp(body->name, "neon") == 0)
		return f->neon;
	return 0;
}

static const struct chacha_body *body_by_name(const char *name)
{
	size_t i;

	for (i = 0; i < NBODIES; i++)
		if (strcmp(bodies[i].name, name) == 0)
			return &bodies[i];
	return NULL;
}

static const struct chacha_body *best_body(void)
{
	size_t i = NBODIES;

	while (--i > 0)
		if (body_supported(&bodies[i]))
			return &bodies[i];
	return &bodies[0];
}

/* ---- the choice ---------------------------------------------------------- */

static const struct chacha_body *chosen;  /* written once under chosen_once */
static surand_chacha20_fn chosen_fn;      /* atomic: NULL until chosen */
static pthread_once_t chosen_once = PTHREAD_ONCE_INIT;

/*
 * The one variable read outside config.c: the body is picked from wherever
 * the first ChaCha20 call comes (the stream API, a test, the self-test), and
 * the pick never waits on the configuration's once.  secure_getenv: a
 * set-uid/set-gid program ignores the variable.
 */
static const char *chacha_impl_env(void)
{
	return secure_getenv("SURAND_CHACHA_IMPL");
}

/* Writes "surand: SURAND_CHACHA_IMPL=<value> is not supported here; using <best>".
 * The value is shortened and non-printable bytes shown as '?', so the line
 * stays one line and cannot carry terminal escapes. */
static void warn_unsupported(const char *value, const char *using)
{
	char shown[65], line[160];
	size_t i;
	int n;

	for (i = 0; value[i] && i < sizeof(shown) - 1; i++)
		shown[i] = (value[i] >= 0x20 && value[i] < 0x7f) ? value[i] : '?';
	shown[i] = '\0';
	n = snprintf(line, sizeof(line), "surand: SURAND_CHACHA_IMPL=%s%s is not supported here; using %s\n",
		     shown, value[i] ? "..." : "", using);
	if (n > 0) {
		ssize_t w = write(STDERR_FILENO, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
		(void)w; /* nothing to do when stderr is gone */
	}
}

static void choose(void)
{
	const struct chacha_body *pick = best_body(), *forced;
	const char *env = chacha_impl_env();

	if (env && *env) {
		forced = body_by_name(env);
		if (forced && body_supported(forced))
			pick = forced;
		else
			warn_unsupported(env, pick->name);
	}
	chosen = pick;
	/* Release: a thread that sees the pointer also sees `chosen`. */
	__atomic_store_n(&chosen_fn, pick->fn, __ATOMIC_RELEASE);
}

static surand_chacha20_fn chosen_slow(void)
{
	pthread_once(&chosen_once, choose);
	return chosen_fn;
}

/* Choose at load time, so no caller (signal handlers included) normally
 * takes the pthread_once path. */
__attribute__((constructor)) static void surand_cpu_init(void)
{
	(void)chosen_slow();
}

#if defined(SURAND_TEST_BUILD) || defined(SURAND_DEBUG_BUILD)
static void precondition_failed(const char *what)
{
	char line[128];
	int n = snprintf(line, sizeof(line), "surand: FATAL: surand_chacha20_blocks: %s\n", what);

	if (n > 0) {
		ssize_t w = write(STDERR_FILENO, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
		(void)w;
	}
	abort();
}

/* The contract of chacha20.h, checked in debug (and test) builds. */
static void check_preconditions(const uint32_t key[8], const uint8_t *out, size_t nblocks)
{
	uintptr_t k = (uintptr_t)key, o = (uintptr_t)out;

	if (nblocks == 0)
		return;
	if (!key || !out)
		precondition_failed("NULL key or output");
	if (nblocks > SIZE_MAX / SURAND_CHACHA20_BLOCK_SIZE)
		precondition_failed("nblocks too large");
	if (o < k + 8 * sizeof(uint32_t) && k < o + nblocks * SURAND_CHACHA20_BLOCK_SIZE)
		precondition_failed("output overlaps the key");
}
#endif

void surand_chacha20_blocks(const uint32_t key[8], uint64_t counter, uint64_t nonce,
			    uint8_t *out, size_t nblocks)
{
	surand_chacha20_fn fn = __atomic_load_n(&chosen_fn, __ATOMIC_RELAXED);

#if defined(SURAND_TEST_BUILD) || defined(SURAND_DEBUG_BUILD)
	check_preconditions(key, out, nblocks);
#endif
	if (SURAND_UNLIKELY(!fn))
		fn = chosen_slow();
	fn(key, counter, nonce, out, nblocks);
}

const char *surand_chacha20_impl_name(void)
{
	chosen_slow();
	return chosen->name;
}

surand_chacha20_fn surand_chacha20_impl_by_name(const char *name)
{
	const struct chacha_body *body;

	if (!name)
		return NULL;
	body = body_by_name(name);
	return body && body_supported(body) ? body->fn : NULL;
}

unsigned surand_chacha20_width(void)
{
	chosen_slow();
	return chosen->width;
}

/* ---- the vector registers: zeroed after secret work (internal.h) ---------- */

__attribute__((noinline)) void surand_scrub_vector_regs(void)
{
#if defined(__x86_64__)
	/* Read once at init (cpu.c); the width decides which registers exist. */
	const struct surand_cpu_features *f = surand_cpu_features();

	if (f->avx512f)
		surand_chacha20_avx512_clear_regs(); /* zmm0-31: the body's own clear */
	else if (f->avx2)
		__asm__ __volatile__("vzeroall" ::: "memory");
	else
		__asm__ __volatile__("pxor %%xmm0, %%xmm0\n\t pxor %%xmm1, %%xmm1\n\t"
				     "pxor %%xmm2, %%xmm2\n\t pxor %%xmm3, %%xmm3\n\t"
				     "pxor %%xmm4, %%xmm4\n\t pxor %%xmm5, %%xmm5\n\t"
				     "pxor %%xmm6, %%xmm6\n\t pxor %%xmm7, %%xmm7\n\t"
				     "pxor %%xmm8, %%xmm8\n\t pxor %%xmm9, %%xmm9\n\t"
				     "pxor %%xmm10, %%xmm10\n\t pxor %%xmm11, %%xmm11\n\t"
				     "pxor %%xmm12, %%xmm12\n\t pxor %%xmm13, %%xmm13\n\t"
				     "pxor %%xmm14, %%xmm14\n\t pxor %%xmm15, %%xmm15" ::: "memory");
#elif defined(__aarch64__)
	/* v0-v31 (the NEON body's and any copy's registers).  v8-v15 are not
	 * clobbered here: their low halves are callee-saved, so naming them
	 * would make this function save and restore the caller's values; their
	 * upper halves are zeroed by that restore anyway, and the NEON body
	 * clears all 32 itself before it returns. */
	__asm__ __volatile__("movi v0.16b, #0\n\t movi v1.16b, #0\n\t movi v2.16b, #0\n\t"
			     "movi v3.16b, #0\n\t movi v4.16b, #0\n\t movi v5.16b, #0\n\t"
			     "movi v6.16b, #0\n\t movi v7.16b, #0\n\t movi v16.16b, #0\n\t"
			     "movi v17.16b, #0\n\t movi v18.16b, #0\n\t movi v19.16b, #0\n\t"
			     "movi v20.16b, #0\n\t movi v21.16b, #0\n\t movi v22.16b, #0\n\t"
			     "movi v23.16b, #0\n\t movi v24.16b, #0\n\t movi v25.16b, #0\n\t"
			     "movi v26.16b, #0\n\t movi v27.16b, #0\n\t movi v28.16b, #0\n\t"
			     "movi v29.16b, #0\n\t movi v30.16b, #0\n\t movi v31.16b, #0"
			     ::: "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v16", "v17", "v18",
			       "v19", "v20", "v21", "v22", "v23", "v24", "v25", "v26", "v27", "v28",
			       "v29", "v30", "v31", "memory");
#endif
}
