// SPDX-License-Identifier: MIT OR GPL-2.0
/*
 * pool.c - the 2015 nonblocking pool, as drivers/char/random.c had it in
 * Linux 4.2-4.7 (rewritten here, not copied): 32 words, a twisted GFSR mix
 * with taps 26, 19, 14, 7, 1 and the CRC-32 twist table, and extraction by
 * SHA-1's bare compression function run over the whole pool (standard IV,
 * no padding), the 20-byte result mixed back (anti-backtracking) and folded
 * to 10 bytes of output.  All of it under the pool's spinlock with
 * interrupts off.  Differences from 2015: no input pool (the kernel's
 * get_random_bytes() seeds and reseeds), no RDRAND in the IV.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/random.h>
#include <linux/string.h>

#include "surand_kmod.h"

/* The pool polynomial's taps for 32 words (random.c poolinfo_table). */
#define TAP1 26
#define TAP2 19
#define TAP3 14
#define TAP4 7
#define TAP5 1
#define WORDMASK (SURAND_POOL_WORDS - 1)

/* CRC-32 twist: the polynomial's multiples for the 3 bits shifted out. */
static const u32 twist_table[8] = {
	0x00000000, 0x3b6e20c8, 0x76dc4190, 0x4db26158,
	0xedb88320, 0xd6d6a3e8, 0x9b64c2b0, 0xa00ae278,
};

/*
 * _mix_pool_bytes: one byte at a time, caller holds p->lock.  4.2 read the
 * input through a `const char *`, signed on x86 (6.1 is still built without
 * -funsigned-char), so a byte >= 0x80 entered sign-extended to 32 bits: the
 * s8 cast keeps that, and the pool matches 4.2's for every byte value.
 */
void surand_pool_mix_locked(struct surand_pool *p, const u8 *bytes, size_t n)
{
	unsigned int i = p->add_ptr, rot = p->input_rotate;
	u32 w;

	while (n--) {
		w = rol32((u32)(s32)(s8)*bytes++, rot & 31);
		i = (i - 1) & WORDMASK;
		w ^= p->pool[i];
		w ^= p->pool[(i + TAP1) & WORDMASK];
		w ^= p->pool[(i + TAP2) & WORDMASK];
		w ^= p->pool[(i + TAP3) & WORDMASK];
		w ^= p->pool[(i + TAP4) & WORDMASK];
		w ^= p->pool[(i + TAP5) & WORDMASK];
		p->pool[i] = (w >> 3) ^ twist_table[w & 7];
		/* 7 bits of rotation per word, 14 at the pool's start (2015). */
		rot = (rot + (i ? 7 : 14)) & 31;
	}
	p->input_rotate = rot;
	p->add_ptr = i;
}

/**
 * surand_pool_mix() - mixes bytes into a pool
 * @p: the pool
 * @buf: the bytes
 * @len: their count; the lock is taken per 64-byte piece
 */
void surand_pool_mix(struct surand_pool *p, const void *buf, size_t len)
{
	const u8 *b = buf;
	unsigned long flags;
	size_t n;

	while (len) {
		/* Pieces of 64 bytes bound the time spent with irqs off. */
		n = min_t(size_t, len, 64);
		spin_lock_irqsave(&p->lock, flags);
		surand_pool_mix_locked(p, b, n);
		p->mixed_bytes += n;
		spin_unlock_irqrestore(&p->lock, flags);
		b += n;
		len -= n;
	}
}

/**
 * surand_pool_init() - sets a pool up, seeded with a pool's worth of get_random_bytes()
 * @p: the pool (module init has waited for the kernel CRNG)
 */
void surand_pool_init(struct surand_pool *p)
{
	u8 seed[SURAND_POOL_WORDS * 4];

	memset(p, 0, sizeof(*p));
	spin_lock_init(&p->lock);
	/* A pool's worth from the kernel CRNG (module init waited for it). */
	get_random_bytes(seed, sizeof(seed));
	surand_pool_mix(p, seed, sizeof(seed));
	memzero_explicit(seed, sizeof(seed));
	p->mixed_bytes = 0;
	p->last_reseed = jiffies;
}

void surand_pool_wipe(struct surand_pool *p)
{
	memzero_explicit(p->pool, sizeof(p->pool));
}

void surand_pool_maybe_reseed(struct surand_pool *p)
{
	u8 seed[32];
	unsigned long flags;

	if (!time_after(jiffies, READ_ONCE(p->last_reseed) + SURAND_POOL_RESEED_S * HZ))
		return;
	/* Fetched outside the pool lock: get_random_bytes takes its own locks. */
	get_random_bytes(seed, sizeof(seed));
	spin_lock_irqsave(&p->lock, flags);
	surand_pool_mix_locked(p, seed, sizeof(seed));
	p->last_reseed = jiffies;
	p->reseeds++;
	spin_unlock_irqrestore(&p->lock, flags);
	memzero_explicit(seed, sizeof(seed));
}

/* extract_buf: SHA-1 over the whole pool, mixback, fold to 10 bytes. */
static void extract_buf(struct surand_pool *p, u8 out[SURAND_EXTRACT_SIZE])
{
	u32 hash[5];
	unsigned long flags;
	int i;

	surand_sha1_init_state(hash);
	spin_lock_irqsave(&p->lock, flags);
	/* 16 words (one SHA-1 block) at a time, the words' bytes as in memory. */
	for (i = 0; i < SURAND_POOL_WORDS; i += 16)
		surand_sha1_transform(hash, (const u8 *)(p->pool + i));
	/* The whole hash goes back in: the pool moves on before anyone reads it again. */
	surand_pool_mix_locked(p, (const u8 *)hash, sizeof(hash));
	p->extracts++;
	spin_unlock_irqrestore(&p->lock, flags);
	surand_pool_fold(hash, out);
	memzero_explicit(hash, sizeof(hash));
}

void surand_pool_fold(u32 hash[5], u8 out[SURAND_EXTRACT_SIZE])
{
	/* Fold in half so the output never shows the raw SHA-1 value. */
	hash[0] ^= hash[3];
	hash[1] ^= hash[4];
	hash[2] ^= rol32(hash[2], 16);
	memcpy(out, hash, SURAND_EXTRACT_SIZE);
}

/**
 * surand_pool_extract() - output from a pool, SURAND_EXTRACT_SIZE bytes per SHA-1 extraction
 * @p: the pool
 * @out: where the bytes go
 * @n: how many
 */
void surand_pool_extract(struct surand_pool *p, u8 *out, size_t n)
{
	u8 tmp[SURAND_EXTRACT_SIZE];
	size_t k;

	while (n) {
		k = min_t(size_t, n, SURAND_EXTRACT_SIZE);
		extract_buf(p, tmp);
		memcpy(out, tmp, k);
		out += k;
		n -= k;
	}
	memzero_explicit(tmp, sizeof(tmp));
}

void surand_pool_stats(struct seq_file *m, const char *name, struct surand_pool *p)
{
	unsigned long flags;
	u64 e, mb, r;

	spin_lock_irqsave(&p->lock, flags);
	e = p->extracts;
	mb = p->mixed_bytes;
	r = p->reseeds;
	spin_unlock_irqrestore(&p->lock, flags);
	seq_printf(m, "%s_extracts %llu\n%s_mixed_bytes %llu\n%s_reseeds %llu\n", name, e, name,
		   mb, name, r);
}
