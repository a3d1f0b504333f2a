// SPDX-License-Identifier: MIT OR GPL-2.0
/*
 * nodecrng.c - design "nodecrng": what Linux shipped after the debate
 * (4.8 to 5.17, Ts'o's ChaCha20 CRNG), ported from the userspace backend
 * src/gen/nodecrng.c: one ChaCha20 CRNG per NUMA node (crng_node_pool),
 * each behind its own spinlock taken with interrupts off, reseeded from a
 * primary CRNG every 300 s (CRNG_RESEED_INTERVAL); the primary reseeds from
 * the kernel's get_random_bytes() (the input pool's place).  After every
 * read, 32 bytes of unused output are XORed into the node's key
 * (_crng_backtrack_protect), so the state after a read cannot regenerate it.
 *
 * As in 4.8-5.17 (drivers/char/random.c): a node CRNG is initialised from
 * random bytes with its init time made stale, so its first use reseeds from
 * the primary; a node's reseed takes one primary block, XORs its first 32
 * bytes into the node's key and protects the primary with the other 32; the
 * lock is taken once per 64-byte block; the backtrack protection rounds the
 * bytes used up to a word and takes a fresh block when fewer than 32 bytes
 * are left.  Left out: the arch_get_random_long() XORs (no RDRAND, as in
 * the other designs).  nodes=N simulates N nodes (CPU c uses CRNG c % N);
 * more than 64 real nodes are folded (node n uses CRNG n % 64).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/nodemask.h>
#include <linux/random.h>
#include <linux/smp.h>
#include <linux/topology.h>

#include "surand_kmod.h"

#define NC_RESEED_S 300 /* CRNG_RESEED_INTERVAL */

struct nc_crng {
	spinlock_t lock; /* irqs off, as crng_state.lock */
	u32 key[8];
	u64 counter;
	u64 nonce;
	unsigned long init_time; /* jiffies of the last (re)seed */
	u64 blocks, reseeds, protects, protect_blocks; /* under lock */
} ____cacheline_aligned_in_smp;

static struct nc_crng *nc_primary;
static struct nc_crng **nc_nodes;
static int nc_count;
static bool nc_simulated;

static void nc_set_key(struct nc_crng *c, const u8 *b, bool xor)
{
	int i;

	for (i = 0; i < 8; i++) {
		if (xor)
			c->key[i] ^= surand_load32_le(b + 4 * i);
		else
			c->key[i] = surand_load32_le(b + 4 * i);
	}
}

/* A zeroed CRNG made ready: its lock, and its whole state random. */
static void nc_init(struct nc_crng *c)
{
	u8 seed[48];

	spin_lock_init(&c->lock);
	/* crng_initialize(): the whole state from random bytes. */
	get_random_bytes(seed, sizeof(seed));
	nc_set_key(c, seed, false);
	memcpy(&c->counter, seed + 32, 8);
	memcpy(&c->nonce, seed + 40, 8);
	memzero_explicit(seed, sizeof(seed));
	c->init_time = jiffies;
}

static void nc_block(struct nc_crng *c, u8 out[SURAND_CHACHA20_BLOCK_SIZE]);

/* crng_reseed(): the primary from get_random_bytes, a node from the primary. */
static void nc_reseed(struct nc_crng *c)
{
	u8 buf[SURAND_CHACHA20_BLOCK_SIZE];
	unsigned long flags;

	if (c == nc_primary) {
		get_random_bytes(buf, 32);
	} else {
		nc_block(nc_primary, buf);
		/* The primary forgets what it just gave (_crng_backtrack_protect). */
		spin_lock_irqsave(&nc_primary->lock, flags);
		nc_set_key(nc_primary, buf + 32, true);
		spin_unlock_irqrestore(&nc_primary->lock, flags);
	}
	spin_lock_irqsave(&c->lock, flags);
	/* The old key's entropy stays; the new material is added. */
	nc_set_key(c, buf, true);
	c->init_time = jiffies;
	c->reseeds++;
	spin_unlock_irqrestore(&c->lock, flags);
	memzero_explicit(buf, sizeof(buf));
}

/* _extract_crng(): reseed when due, then one block under the lock. */
static void nc_block(struct nc_crng *c, u8 out[SURAND_CHACHA20_BLOCK_SIZE])
{
	unsigned long flags;

	if (time_after(jiffies, READ_ONCE(c->init_time) + NC_RESEED_S * HZ))
		nc_reseed(c);
	spin_lock_irqsave(&c->lock, flags);
	surand_chacha20_blocks_portable(c->key, c->counter, c->nonce, out, 1);
	c->counter++;
	c->blocks++;
	spin_unlock_irqrestore(&c->lock, flags);
}

static void nodecrng_exit(void)
{
	/* Freeing wipes every key (surand_kfree). */
	surand_node_table_free((void **)nc_nodes, nc_count);
	surand_kfree(nc_primary);
	nc_nodes = NULL;
	nc_primary = NULL;
}

static int nodecrng_init(void)
{
	int i;

	nc_nodes = (struct nc_crng **)surand_node_table(&nc_count, &nc_simulated,
							sizeof(struct nc_crng));
	nc_primary = surand_kzalloc(sizeof(*nc_primary), GFP_KERNEL);
	if (!nc_nodes || !nc_primary) {
		nodecrng_exit();
		return -ENOMEM;
	}
	nc_init(nc_primary);
	for (i = 0; i < nc_count; i++) {
		nc_init(nc_nodes[i]);
		/* Born stale (init_time - CRNG_RESEED_INTERVAL - 1): the first use reseeds. */
		nc_nodes[i]->init_time = jiffies - NC_RESEED_S * HZ - 1;
	}
	return 0;
}

static int nodecrng_begin(struct surand_req *req, size_t len)
{
	/* Only a placement hint: migrating right after this is harmless. */
	req->ctx = nc_nodes[surand_node_index(raw_smp_processor_id(), nc_count, nc_simulated)];
	req->used = 0;
	return 0;
}

/* extract_crng_user(): one locked block per 64 bytes. */
static void nodecrng_fill(struct surand_req *req, u8 *out, size_t n)
{
	size_t k;

	while (n) {
		nc_block(req->ctx, req->blk);
		k = min_t(size_t, n, SURAND_CHACHA20_BLOCK_SIZE);
		memcpy(out, req->blk, k);
		req->used = k;
		out += k;
		n -= k;
	}
}

/* crng_backtrack_protect(): 32 unused bytes of the last block into the key. */
static void nodecrng_end(struct surand_req *req)
{
	struct nc_crng *c = req->ctx;
	unsigned long flags;
	size_t used = round_up(req->used, sizeof(u32));
	bool extra = used + 32 > SURAND_CHACHA20_BLOCK_SIZE;

	if (extra) {
		nc_block(c, req->blk);
		used = 0;
	}
	spin_lock_irqsave(&c->lock, flags);
	/* After this, the state no longer regenerates the read's bytes. */
	nc_set_key(c, req->blk + used, true);
	c->protects++;
	c->protect_blocks += extra;
	spin_unlock_irqrestore(&c->lock, flags);
	/* The read loop wipes req (the last block). */
}

static void nodecrng_mix(const u8 *buf, size_t len)
{
	u8 h[32];
	unsigned long flags;

	/*
	 * 4.8 mixed a write into the input pool, which the CRNGs saw at their
	 * next reseed: here a BLAKE2s of the data is XORed into the primary's
	 * key (a known value XORed in never weakens it), and the node CRNGs
	 * take it at their next reseed from the primary.
	 */
	surand_blake2s(h, sizeof(h), NULL, 0, buf, len);
	spin_lock_irqsave(&nc_primary->lock, flags);
	nc_set_key(nc_primary, h, true);
	spin_unlock_irqrestore(&nc_primary->lock, flags);
	memzero_explicit(h, sizeof(h));
}

static void nodecrng_stats(struct seq_file *m)
{
	struct nc_crng *c;
	unsigned long flags;
	u64 b, r, p, pb;
	int i;

	seq_printf(m, "nodes %d\nsimulated %d\n", nc_count, nc_simulated);
	for (i = -1; i < nc_count; i++) {
		c = i < 0 ? nc_primary : nc_nodes[i];
		spin_lock_irqsave(&c->lock, flags);
		b = c->blocks;
		r = c->reseeds;
		p = c->protects;
		pb = c->protect_blocks;
		spin_unlock_irqrestore(&c->lock, flags);
		if (i < 0)
			seq_printf(m, "primary_blocks %llu\nprimary_reseeds %llu\n", b, r);
		else
			seq_printf(m, "node%d_blocks %llu\nnode%d_reseeds %llu\nnode%d_protects %llu\nnode%d_protect_blocks %llu\n",
				   i, b, i, r, i, p, i, pb);
	}
}

const struct surand_design surand_design_nodecrng = {
	SURAND_DESIGN_HOOKS(nodecrng),
	.fill = nodecrng_fill,
	.end = nodecrng_end,
};
