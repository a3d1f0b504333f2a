/* SPDX-License-Identifier: MIT */
/*
 * lfsr2015.h - the mixing function of the 2015 pools, as Linux 4.2-4.7's
 * drivers/char/random.c documented it (rewritten, not copied): a twisted
 * GFSR over 32 words (the output pools) or 128 (the input pool), each input
 * byte sign-extended (random.c read it through a `const char *`, signed on
 * x86), rotated by input_rotate (+7 per word, +14 at word 0) and twisted
 * with the CRC-32 polynomial's table; and the fold of a SHA-1 state to the
 * 10 bytes an extraction hands out.
 *
 * Freestanding (crypto_types.h): the library's 2015 designs
 * (src/gen/pool2015.c, with relaxed atomics for their lock-free readers)
 * and the kernel module (kmod/pool.c, under its spinlock) share it, and one
 * known-answer vector, from an independent model of the algorithm
 * (scripts/lfsr2015_model.py), ties both to it: tests/test_lfsr2015.c in
 * userspace, the module's load-time self-test in the kernel.
 */
#ifndef SURAND_LFSR2015_H
#define SURAND_LFSR2015_H

#include "crypto_types.h"

#define SURAND_LFSR15_OUT_WORDS 32u
#define SURAND_LFSR15_IN_WORDS 128u
#define SURAND_LFSR15_FOLD_BYTES 10u

struct surand_lfsr15_taps {
	uint32_t t1, t2, t3, t4, t5;
};
/* x^32 + x^26 + x^19 + x^14 + x^7 + x + 1 and x^128 + x^104 + x^76 + x^51 + x^25 + x + 1 */
extern const struct surand_lfsr15_taps surand_lfsr15_taps_out SURAND_INTERNAL;
extern const struct surand_lfsr15_taps surand_lfsr15_taps_in SURAND_INTERNAL;
/* The CRC-32 polynomial's multiples for the 3 bits shifted out. */
extern const uint32_t surand_lfsr15_twist[8] SURAND_INTERNAL;

/* An input byte as it enters the pool: sign-extended, rotated by rot. */
static inline uint32_t surand_lfsr15_input(uint8_t byte, uint32_t rot)
{
	uint32_t v = byte;

	if (byte & 0x80u)
		v |= 0xffffff00u; /* (u32)(s32)(s8)byte */
	return surand_rotl32(v, rot & 31);
}

/* The new word: the tapped sum shifted by 3, twisted by the bits shifted out. */
static inline uint32_t surand_lfsr15_twisted(uint32_t w)
{
	return (w >> 3) ^ surand_lfsr15_twist[w & 7];
}

/* input_rotate after word i: 7 bits per word, 14 at the pool's start. */
static inline uint32_t surand_lfsr15_next_rotate(uint32_t rot, uint32_t i)
{
	return (rot + (i ? 7 : 14)) & 31;
}

/*
 * Mixes n bytes into words[0..nwords) (32 or 128) with plain loads and
 * stores, from word *add_ptr with rotation *rot; both are advanced.  The
 * caller excludes other writers (the module's spinlock).
 */
void surand_lfsr15_mix(uint32_t *words, unsigned nwords, uint32_t *add_ptr, uint32_t *rot,
		       const uint8_t *in, size_t n) SURAND_INTERNAL;
/* The 10 bytes of an extraction from its SHA-1 state: h0^h3, h1^h4 and the
 * low half of h2^rol(h2, 16), little-endian. */
void surand_lfsr15_fold(const uint32_t h[5], uint8_t out[SURAND_LFSR15_FOLD_BYTES]) SURAND_INTERNAL;

/*
 * The known answer: a zero 32-word pool, add_ptr and rotation 0, the 256
 * bytes 0x00..0xff mixed in; then SHA-1's compression function from its
 * standard IV over the pool's words in little-endian order (two blocks, no
 * padding).  The state (as 20 little-endian bytes) and its fold.
 */
extern const uint8_t surand_lfsr15_kat_state[20] SURAND_INTERNAL;
extern const uint8_t surand_lfsr15_kat_fold[SURAND_LFSR15_FOLD_BYTES] SURAND_INTERNAL;

#endif
