/*
 * callee.c - the tiny shared object of bench/overhead.c: each function is one
 * piece of what a call into libsurand pays before any cipher work, built with
 * the library's flags (-fPIC, initial-exec TLS as src/ uses) so that calling
 * it from bench/overhead goes through the PLT like a call to surand_u32().
 * SPDX-License-Identifier: MIT
 */
#include <stdint.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

/* A per-thread slot, the way the library keeps its per-thread generator. */
struct slot {
	uint64_t generation; /* the process generation this slot was keyed in */
	uint32_t pos;        /* read position in buf */
	uint32_t busy;       /* the busy mark a signal handler would see */
	uint64_t calls;
	uint8_t buf[64];     /* stands for buffered keystream */
};

static __thread struct slot slot __attribute__((tls_model("initial-exec")));

/* A read-mostly shared word, the way the library keeps its fork / VM-clone
 * generation (written on a fork or a reseed, read by every call). */
EXPORT uint64_t ovh_generation = 1;

EXPORT uint64_t ovh_empty(void);
EXPORT uint64_t ovh_tls(void);
EXPORT uint64_t ovh_gen(void);
EXPORT uint64_t ovh_copy16(void *dst);
EXPORT uint64_t ovh_fixed16(void *dst);

/* Nothing: the call and the return alone. */
EXPORT uint64_t ovh_empty(void)
{
	return 0;
}

/* One read and one write of the thread's slot. */
EXPORT uint64_t ovh_tls(void)
{
	return ++slot.calls;
}

/* The generation check: the shared word loaded and compared with the slot's
 * copy (the slot is refreshed when they differ: the cold path of a fork). */
EXPORT uint64_t ovh_gen(void)
{
	uint64_t g = __atomic_load_n(&ovh_generation, __ATOMIC_ACQUIRE);

	if (__builtin_expect(slot.generation != g, 0))
		slot.generation = g;
	return g;
}

/* 16 bytes copied out of the slot's buffer, and the copy there zeroed (the
 * library erases keystream once it is handed out). */
EXPORT uint64_t ovh_copy16(void *dst)
{
	uint8_t *src = slot.buf + (slot.pos & 32u);

	memcpy(dst, src, 16);
	memset(src, 0, 16);
	__asm__ volatile("" : : "r"(src) : "memory"); /* the zeroing is not dead */
	slot.pos += 16;
	return slot.pos;
}

/* All of the above at once, with the busy mark set and cleared around the
 * copy: the fixed cost of a 16-byte draw without its share of the cipher. */
EXPORT uint64_t ovh_fixed16(void *dst)
{
	uint64_t g = __atomic_load_n(&ovh_generation, __ATOMIC_ACQUIRE);
	uint8_t *src;

	if (__builtin_expect(slot.generation != g, 0))
		slot.generation = g;
	slot.busy = 1;
	__asm__ volatile("" : : : "memory"); /* a signal handler sees the mark first */
	src = slot.buf + (slot.pos & 32u);
	memcpy(dst, src, 16);
	memset(src, 0, 16);
	slot.pos += 16;
	slot.calls++;
	__asm__ volatile("" : : : "memory");
	slot.busy = 0;
	return slot.pos;
}
