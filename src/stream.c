/*
 * stream.c - reproducible, seekable ChaCha20 streams (surand_stream_*).
 *
 * NOT the secure generator: no reseeding, no key erasure; whoever holds the
 * seed reproduces every byte.  The layout is public and fixed (surand.h,
 * docs/streams.md): ChaCha20 with 20 rounds in D. J. Bernstein's original
 * layout (src/crypto/chacha20.h), key = seed as 8 little-endian words,
 * 64-bit nonce = stream_id, 64-bit block counter = offset / 64; byte i of the
 * stream is byte i % 64 of block i / 64.  The offset is a 64-bit byte count,
 * so a stream is 2^64 bytes long (blocks 0 .. 2^58 - 1) and wraps to offset 0
 * after its last byte: the stream is periodic with period 2^64 bytes.
 *
 * Whole blocks go straight from the ChaCha20 dispatcher into the caller's
 * buffer; only a partial block at either end passes through s->buf, which
 * then holds block offset / 64 while buf_valid is set.
 * SPDX-License-Identifier: MIT
 */
#include "internal.h"

#include <string.h>

#define STREAM_BLOCK_BYTES 64u
/* Blocks in one stream period: 2^64 bytes / 64. */
#define STREAM_PERIOD_BLOCKS (UINT64_C(1) << 58)
/* Largest bulk call to the dispatcher (bounds the nblocks arithmetic). */
#define STREAM_MAX_CALL_BLOCKS (UINT64_C(1) << 24)

SURAND_API void surand_stream_init(struct surand_stream *s, const uint8_t seed[32],
				   uint64_t stream_id)
{
	int i;

	if (!s)
		return;
	memset(s, 0, sizeof(*s));
	if (!seed)
		return; /* documented caller error: the stream stays all-zero-keyed */
	for (i = 0; i < 8; i++)
		s->key[i] = surand_load32_le(seed + 4 * i);
	s->nonce = stream_id;
	s->offset = 0;
	s->buf_valid = 0;
}

/* Makes s->buf hold the block that contains s->offset. */
static void stream_load_block(struct surand_stream *s)
{
	if (s->buf_valid)
		return;
	surand_chacha20_blocks(s->key, s->offset / STREAM_BLOCK_BYTES, s->nonce, s->buf, 1);
	s->buf_valid = 1;
}

/* Advances offset by n bytes inside the buffered block; drops the block once used up. */
static void stream_advance_in_block(struct surand_stream *s, size_t n)
{
	s->offset += n; /* wraps modulo 2^64 after the stream's last byte */
	if (s->offset % STREAM_BLOCK_BYTES == 0) {
		/* keystream is no secret of the generator, but leave no copy behind */
		surand_wipe(s->buf, sizeof(s->buf));
		s->buf_valid = 0;
	}
}

SURAND_API void surand_stream_bytes(struct surand_stream *s, void *buf, size_t len)
{
	uint8_t *out = buf;

	if (!s || (!buf && len))
		return;
	while (len > 0) {
		unsigned pos = (unsigned)(s->offset % STREAM_BLOCK_BYTES);

		if (pos != 0 || len < STREAM_BLOCK_BYTES) {
			size_t take = STREAM_BLOCK_BYTES - pos;

			if (take > len)
				take = len;
			stream_load_block(s);
			memcpy(out, s->buf + pos, take);
			out += take;
			len -= take;
			stream_advance_in_block(s, take);
		} else {
			uint64_t block = s->offset / STREAM_BLOCK_BYTES;
			uint64_t n = len / STREAM_BLOCK_BYTES;

			/* never run the counter past the period: block 2^58 is not in the stream */
			if (n > STREAM_PERIOD_BLOCKS - block)
				n = STREAM_PERIOD_BLOCKS - block;
			if (n > STREAM_MAX_CALL_BLOCKS)
				n = STREAM_MAX_CALL_BLOCKS;
			/* A block buffered here (a seek back to its start keeps it) is
			 * passed over: it must not serve the next partial block. */
			if (s->buf_valid) {
				surand_wipe(s->buf, sizeof(s->buf));
				s->buf_valid = 0;
			}
			surand_chacha20_blocks(s->key, block, s->nonce, out, (size_t)n);
			out += n * STREAM_BLOCK_BYTES;
			len -= n * STREAM_BLOCK_BYTES;
			s->offset += n * STREAM_BLOCK_BYTES; /* 0 again after the last block */
		}
	}
}

SURAND_API uint64_t surand_stream_u64(struct surand_stream *s)
{
	uint8_t b[8];
	uint64_t v;

	if (!s)
		return 0;
	surand_stream_bytes(s, b, sizeof(b));
	v = (uint64_t)surand_load32_le(b) | (uint64_t)surand_load32_le(b + 4) << 32;
	surand_wipe(b, sizeof(b));
	return v;
}

SURAND_API void surand_stream_seek(struct surand_stream *s, uint64_t offset)
{
	if (!s)
		return;
	/* keep the buffered block only if it is the one the new offset lies in */
	if (s->buf_valid && offset / STREAM_BLOCK_BYTES != s->offset / STREAM_BLOCK_BYTES) {
		surand_wipe(s->buf, sizeof(s->buf));
		s->buf_valid = 0;
	}
	s->offset = offset;
}

SURAND_API void surand_stream_wipe(struct surand_stream *s)
{
	if (!s)
		return;
	/* the key reproduces the whole stream: erase it and the buffered block */
	surand_wipe(s, sizeof(*s));
}
