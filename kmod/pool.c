// SPDX-License-Identifier: MIT OR GPL-2.0
/*
 * pool.c - the 2015 nonblocking pool, as drivers/char/random.c had it in
 * Linux 4.2-4.7 (rewritten here, not copied): 32 words, the twisted GFSR mix
 * of src/crypto/lfsr2015.c (the library's own), and extraction by
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

/*
 * _mix_pool_bytes, caller holds p->lock: the mix of src/crypto/lfsr2015.c,
 * the library's own (4.2 read the input through a `const char *`, signed on
 * x86, so a byte >= 0x80 enters sign-extended: the shared mix does that,
 * and the pool matches 4.2's for every byte value).
 */
void surand_pool_mix_locked(struct surand_pool *p, const u8 *bytes, size_t n)
{
	surand_lfsr15_mix(p->pool, SURAND_POOL_WORDS, &p->add_ptr, &p->input_rotate, bytes, n);
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
	surand_lfsr15_fold(hash, out);
}

/**
 * surand_pool_selftest() - the shared mix, SHA-1 and fold against the known answer
 *
 * The vector of src/crypto/lfsr2015.h (from an independent model of the
 * algorithm, the one the library's tests check too): a zero pool, the 256
 * bytes 0x00..0xff mixed in, SHA-1's compression over the pool, the fold.
 * Return: 0, or -EINVAL when any of it differs (the module then refuses to load).
 */
int surand_pool_selftest(void)
{
	u32 words[SURAND_POOL_WORDS], ap = 0, rot = 0, h[5];
	u8 in[256], state[20], fold[SURAND_EXTRACT_SIZE];
	int i, bad;

	memset(words, 0, sizeof(words));
	for (i = 0; i < 256; i++)
		in[i] = (u8)i;
	surand_lfsr15_mix(words, SURAND_POOL_WORDS, &ap, &rot, in, sizeof(in));
	surand_sha1_init_state(h);
	for (i = 0; i < SURAND_POOL_WORDS; i += 16)
		surand_sha1_transform(h, (const u8 *)(words + i)); /* the words as in memory (LE) */
	for (i = 0; i < 5; i++)
		surand_store32_le(state + 4 * i, h[i]);
	surand_lfsr15_fold(h, fold);
	bad = memcmp(state, surand_lfsr15_kat_state, sizeof(state)) ||
	      memcmp(fold, surand_lfsr15_kat_fold, sizeof(fold));
	memzero_explicit(words, sizeof(words));
	return bad ? -EINVAL : 0;
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

int surand_pool_begin_req(struct surand_req *req, struct surand_pool *p)
{
	surand_pool_maybe_reseed(p);
	req->ctx = p;
	return 0;
}

void surand_pool_fill_req(struct surand_req *req, u8 *out, size_t n)
{
	surand_pool_extract(req->ctx, out, n);
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
