/* SPDX-License-Identifier: MIT */
/*
 * blake2s.h - BLAKE2s (RFC 7693): keyed and unkeyed, incremental, output
 * length 1..32 bytes.  Freestanding (crypto_types.h only); the library and
 * the kernel module compile the same file.
 *
 * Use: surand_blake2s_init() or surand_blake2s_init_key(), any number of
 * surand_blake2s_update() calls, one surand_blake2s_final() (which wipes the
 * state).  surand_blake2s() does all three at once.
 *
 * Preconditions: outlen 1..32 and keylen 0..32 (key may be NULL only when
 * keylen is 0); the init functions return -1 and leave the state unusable
 * (zeroed) otherwise, and surand_blake2s() then writes nothing.  in may be
 * NULL only when inlen is 0.  A state is used by one thread at a time.
 */
#ifndef SURAND_BLAKE2S_H
#define SURAND_BLAKE2S_H

#include "crypto_types.h"

#define SURAND_BLAKE2S_BLOCK_SIZE 64
#define SURAND_BLAKE2S_OUT_SIZE 32 /* maximum (and usual) digest length */
#define SURAND_BLAKE2S_KEY_SIZE 32 /* maximum key length */

struct surand_blake2s_state {
	uint32_t h[8];                          /* chain value */
	uint32_t t[2];                          /* byte counter, low word first */
	uint8_t buf[SURAND_BLAKE2S_BLOCK_SIZE]; /* pending input (the last block is held back) */
	uint32_t buflen;                        /* bytes in buf, 0..64 */
	uint32_t outlen;                        /* digest length, 1..32; 0: not initialised */
};

SURAND_INTERNAL int surand_blake2s_init(struct surand_blake2s_state *s, size_t outlen);
SURAND_INTERNAL int surand_blake2s_init_key(struct surand_blake2s_state *s, size_t outlen,
					    const void *key, size_t keylen);
SURAND_INTERNAL void surand_blake2s_update(struct surand_blake2s_state *s, const void *in,
					   size_t inlen);
/* Writes s->outlen bytes to out and wipes the state (it must be initialised again). */
SURAND_INTERNAL void surand_blake2s_final(struct surand_blake2s_state *s, uint8_t *out);
/* One shot: 0, or -1 on a bad outlen/keylen (nothing written). */
SURAND_INTERNAL int surand_blake2s(uint8_t *out, size_t outlen, const void *key, size_t keylen,
				   const void *in, size_t inlen);

#endif /* SURAND_BLAKE2S_H */
