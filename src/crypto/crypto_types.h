/* SPDX-License-Identifier: MIT */
/*
 * crypto_types.h - the one shim between src/crypto/ and its host.
 *
 * src/crypto/ is freestanding: fixed-width types, memcpy and memset, nothing
 * else.  This header provides them in three environments:
 *   - Linux kernel module (__KERNEL__): <linux/types.h>, <linux/string.h>;
 *   - freestanding check (SURAND_FREESTANDING, built with -ffreestanding
 *     -nostdinc): compiler-provided type macros and builtins only;
 *   - userspace: <stdint.h>, <stddef.h>, <string.h>.
 */
#ifndef SURAND_CRYPTO_TYPES_H
#define SURAND_CRYPTO_TYPES_H

#if defined(__KERNEL__)
#include <linux/types.h>
#include <linux/string.h>
#elif defined(SURAND_FREESTANDING)
typedef __UINT8_TYPE__ uint8_t;
typedef __UINT16_TYPE__ uint16_t;
typedef __UINT32_TYPE__ uint32_t;
typedef __UINT64_TYPE__ uint64_t;
typedef __SIZE_TYPE__ size_t;
typedef __UINTPTR_TYPE__ uintptr_t;
#define memcpy(d, s, n) __builtin_memcpy((d), (s), (n))
#define memset(d, c, n) __builtin_memset((d), (c), (n))
#else
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#endif

/* Symbols of src/crypto/ are internal to the library (and to the module). */
#if defined(__KERNEL__) || defined(SURAND_FREESTANDING)
#define SURAND_INTERNAL
#else
#define SURAND_INTERNAL __attribute__((visibility("hidden")))
#endif

static inline uint32_t surand_rotl32(uint32_t x, unsigned int n)
{
	return (x << n) | (x >> ((32 - n) & 31));
}

static inline uint32_t surand_load32_le(const uint8_t *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
	       ((uint32_t)p[3] << 24);
}

static inline void surand_store32_le(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static inline uint32_t surand_load32_be(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) |
	       (uint32_t)p[3];
}

static inline void surand_store32_be(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/*
 * Wipes memory so that the compiler cannot drop the stores as dead (the
 * explicit_bzero idea, freestanding: the asm barrier makes the buffer look
 * read afterwards).  Every key and state copy is wiped through this.
 */
static inline void surand_wipe(void *p, size_t n)
{
	memset(p, 0, n);
	__asm__ __volatile__("" : : "r"(p) : "memory");
}

#endif /* SURAND_CRYPTO_TYPES_H */
