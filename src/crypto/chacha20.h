/* SPDX-License-Identifier: MIT */
/*
 * chacha20.h - every ChaCha20 body and its one internal interface.
 *
 * Layout (D. J. Bernstein's original, not RFC 8439's): words 0-3 the
 * constants "expand 32-byte k", 4-11 the 256-bit key, 12-13 a 64-bit block
 * counter (low word first), 14-15 a 64-bit nonce (low word first).  The
 * counter wraps modulo 2^64 and carries from word 12 into word 13.
 * RFC 8439's layout (32-bit counter in word 12, 96-bit nonce in 13-15) maps
 * onto ours as: counter = rfc_counter | (uint64_t)rfc_nonce_word0 << 32,
 * nonce = rfc_nonce_word1 | (uint64_t)rfc_nonce_word2 << 32, valid while the
 * RFC counter does not overflow 32 bits.
 *
 * Bodies share one signature and an ISA suffix (BLAKE3 style).  Wide bodies
 * do whole multiples of their width and hand the tail to a narrower body.
 *
 * Preconditions of every body: key points to 8 words; out points to
 * 64 * nblocks writable bytes (any alignment); out may not overlap key.
 * nblocks 0 writes nothing.
 */
#ifndef SURAND_CHACHA20_H
#define SURAND_CHACHA20_H

#include "crypto_types.h"

#define SURAND_CHACHA20_BLOCK_SIZE 64
#define SURAND_CHACHA20_KEY_SIZE 32

/*
 * The round count is fixed at 20 in everything that ships.  Bench builds
 * (SURAND_BENCH_BUILD) may set SURAND_CHACHA_ROUNDS to 8 or 12 so reduced
 * variants can be measured; a CI check proves no such build is installed.
 */
#if defined(SURAND_BENCH_BUILD) && defined(SURAND_CHACHA_ROUNDS)
#define SURAND_CHACHA_NROUNDS SURAND_CHACHA_ROUNDS
#else
#define SURAND_CHACHA_NROUNDS 20
#endif
#if SURAND_CHACHA_NROUNDS != 20 && SURAND_CHACHA_NROUNDS != 12 && SURAND_CHACHA_NROUNDS != 8
#error "SURAND_CHACHA_ROUNDS must be 8, 12 or 20"
#endif

typedef void (*surand_chacha20_fn)(const uint32_t key[8], uint64_t counter, uint64_t nonce,
				   uint8_t *out, size_t nblocks);

/* Portable C, one block at a time; always available (and in the kernel module). */
SURAND_INTERNAL void surand_chacha20_blocks_portable(const uint32_t key[8], uint64_t counter,
						     uint64_t nonce, uint8_t *out, size_t nblocks);
#if defined(__x86_64__) && !defined(__KERNEL__) && !defined(SURAND_FREESTANDING)
/* SSSE3, 4 blocks in parallel. */
SURAND_INTERNAL void surand_chacha20_blocks_ssse3(const uint32_t key[8], uint64_t counter,
						  uint64_t nonce, uint8_t *out, size_t nblocks);
/* AVX2, 8 blocks in parallel; tails to SSSE3. */
SURAND_INTERNAL void surand_chacha20_blocks_avx2(const uint32_t key[8], uint64_t counter,
						 uint64_t nonce, uint8_t *out, size_t nblocks);
/* AVX-512F, 16 blocks in parallel; tails to AVX2. */
SURAND_INTERNAL void surand_chacha20_blocks_avx512(const uint32_t key[8], uint64_t counter,
						   uint64_t nonce, uint8_t *out, size_t nblocks);
/* Clears every vector register the AVX-512 body uses (zmm0-31), as the body
 * does before it returns; for callers that clear after their own copies. */
SURAND_INTERNAL void surand_chacha20_avx512_clear_regs(void);
#endif
#if defined(__aarch64__) && !defined(__KERNEL__) && !defined(SURAND_FREESTANDING)
/* AArch64 Advanced SIMD (NEON), 4 blocks in parallel; tails to portable. */
SURAND_INTERNAL void surand_chacha20_blocks_neon(const uint32_t key[8], uint64_t counter,
						 uint64_t nonce, uint8_t *out, size_t nblocks);
#endif

/* The ChaCha constants "expand 32-byte k" as little-endian words. */
#define SURAND_CHACHA_C0 0x61707865u
#define SURAND_CHACHA_C1 0x3320646eu
#define SURAND_CHACHA_C2 0x79622d32u
#define SURAND_CHACHA_C3 0x6b206574u

#endif /* SURAND_CHACHA20_H */
