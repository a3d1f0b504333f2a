/* SPDX-License-Identifier: MIT */
/*
 * sha1.h - SHA-1 (FIPS 180-4) and its bare compression function.
 * Freestanding (crypto_types.h only); the library and the kernel module
 * compile the same file.
 *
 * SHA-1 is here for the 2015 pool design only: that design ran the bare
 * compression function (the kernel's sha_transform) over the pool words with
 * the standard IV and no padding, then folded the result.  It is not a
 * general-purpose hash for new designs (use BLAKE2s).
 *
 * Preconditions: in may be NULL only when inlen is 0; out holds 20 bytes.
 */
#ifndef SURAND_SHA1_H
#define SURAND_SHA1_H

#include "crypto_types.h"

#define SURAND_SHA1_BLOCK_SIZE 64
#define SURAND_SHA1_DIGEST_SIZE 20

struct surand_sha1_state {
	uint32_t h[5];
	uint64_t len;                        /* message bytes so far */
	uint8_t buf[SURAND_SHA1_BLOCK_SIZE]; /* pending partial block */
	uint32_t buflen;                     /* 0..63 */
};

/* Sets state to the standard IV H(0) (FIPS 180-4 5.3.1). */
SURAND_INTERNAL void surand_sha1_init_state(uint32_t state[5]);
/*
 * The bare compression function (FIPS 180-4 6.1.2 steps 1-4) over one
 * 64-byte block read as 16 big-endian words: no padding, no length.
 */
SURAND_INTERNAL void surand_sha1_transform(uint32_t state[5], const uint8_t block[64]);

SURAND_INTERNAL void surand_sha1_init(struct surand_sha1_state *s);
SURAND_INTERNAL void surand_sha1_update(struct surand_sha1_state *s, const void *in,
					size_t inlen);
/* Writes the 20-byte digest and wipes the state. */
SURAND_INTERNAL void surand_sha1_final(struct surand_sha1_state *s,
				       uint8_t out[SURAND_SHA1_DIGEST_SIZE]);
SURAND_INTERNAL void surand_sha1(const void *in, size_t inlen,
				 uint8_t out[SURAND_SHA1_DIGEST_SIZE]);

#endif /* SURAND_SHA1_H */
