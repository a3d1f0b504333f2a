// SPDX-License-Identifier: MIT OR GPL-2.0
/*
 * percpu.c - design "percpu": per-CPU fast-key-erasure ChaCha20 states
 * under one base key, the shape Linux took in 5.18 (after the 2015 debate).
 *
 * The base key comes from get_random_bytes() and is replaced every
 * PERCPU_RESEED_S (and when data is written), bumping a generation.  A CPU
 * whose state is of an older generation takes a fresh key from the base by
 * fast key erasure (one ChaCha20 block: 32 bytes become the new base key, 32
 * the CPU's key).  Each read then runs one block of the CPU's key: 32 bytes
 * replace the CPU key (the old one is gone: no backtracking), 32 bytes key
 * this request, whose blocks go to the reader outside the per-CPU section.
 *
 * The per-CPU section is a local_lock_t taken with local_lock_irqsave(), as
 * 6.1's crng_make_state() does: on a normal kernel it disables interrupts
 * (and so preemption); on PREEMPT_RT it is a per-CPU sleeping lock, inside
 * which the base's spinlock_t (also sleeping there) may be taken.  The
 * earlier get_cpu_ptr() + spin_lock_irqsave() was invalid on RT.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/local_lock.h>
#include <linux/random.h>
#include <linux/smp.h>

#include "surand_kmod.h"

#define PERCPU_RESEED_S 60

struct percpu_state {
	local_lock_t lock; /* the CPU's state is ours while held */
	u32 key[8];
	unsigned long generation;
};

static struct {
	spinlock_t lock; /* the base key, generation and counters */
	u32 key[8];
	unsigned long generation; /* written under lock, read with READ_ONCE */
	unsigned long birth;      /* jiffies of the last reseed */
	u64 reseeds, writes;
} pc_base;

static struct percpu_state __percpu *pc_states;
enum { PC_READS, PC_REKEYS };
static struct surand_counters __percpu *pc_ctr;

/* Replaces the base key (new random bytes, or BLAKE2s(base key, data)). */
static void percpu_base_reseed(const u8 *data, size_t len)
{
	u8 fresh[32];
	unsigned long flags;

	if (!data)
		get_random_bytes(fresh, sizeof(fresh));
	spin_lock_irqsave(&pc_base.lock, flags);
	if (data) {
		/* Written data: keyed by the old key, so the new key is never weaker. */
		surand_blake2s(fresh, sizeof(fresh), pc_base.key, sizeof(pc_base.key), data, len);
		pc_base.writes++;
	} else {
		pc_base.reseeds++;
		pc_base.birth = jiffies;
	}
	memcpy(pc_base.key, fresh, sizeof(fresh));
	/* Every CPU must rekey before its next read. */
	WRITE_ONCE(pc_base.generation, pc_base.generation + 1);
	spin_unlock_irqrestore(&pc_base.lock, flags);
	memzero_explicit(fresh, sizeof(fresh));
}

static int percpu_init(void)
{
	int cpu;

	spin_lock_init(&pc_base.lock);
	pc_base.generation = 1; /* per-CPU states start at 0: all stale */
	pc_base.reseeds = 0;
	pc_base.writes = 0;
	pc_states = surand_percpu_alloc(struct percpu_state);
	if (!pc_states)
		return -ENOMEM;
	for_each_possible_cpu(cpu)
		local_lock_init(&per_cpu_ptr(pc_states, cpu)->lock);
	pc_ctr = surand_counters_alloc();
	if (!pc_ctr) {
		surand_free_percpu(pc_states);
		return -ENOMEM;
	}
	percpu_base_reseed(NULL, 0);
	return 0;
}

static void percpu_exit(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		memzero_explicit(per_cpu_ptr(pc_states, cpu)->key,
				 sizeof_field(struct percpu_state, key));
	surand_free_percpu(pc_states);
	surand_counters_free(pc_ctr);
	memzero_explicit(pc_base.key, sizeof(pc_base.key));
}

static void key_from_block(u32 key[8], const u8 *b)
{
	int i;

	for (i = 0; i < 8; i++)
		key[i] = surand_load32_le(b + 4 * i);
}

static int percpu_begin(struct surand_req *req, size_t len)
{
	struct percpu_state *st;
	u8 blk[SURAND_CHACHA20_BLOCK_SIZE];
	unsigned long flags, bflags;

	if (time_after(jiffies, READ_ONCE(pc_base.birth) + PERCPU_RESEED_S * HZ))
		percpu_base_reseed(NULL, 0);

	/* This CPU's state is ours until the unlock (crng_make_state's pattern). */
	local_lock_irqsave(&pc_states->lock, flags);
	st = this_cpu_ptr(pc_states);
	if (st->generation != READ_ONCE(pc_base.generation)) {
		spin_lock_irqsave(&pc_base.lock, bflags);
		surand_chacha20_blocks_portable(pc_base.key, 0, 0, blk, 1);
		/* Fast key erasure on the base: the old base key is gone. */
		key_from_block(pc_base.key, blk);
		key_from_block(st->key, blk + 32);
		st->generation = pc_base.generation;
		spin_unlock_irqrestore(&pc_base.lock, bflags);
		surand_count(pc_ctr, PC_REKEYS);
	}
	surand_chacha20_blocks_portable(st->key, 0, 0, blk, 1);
	/* The CPU key is replaced before anyone sees output derived from it. */
	key_from_block(st->key, blk);
	key_from_block(req->key, blk + 32);
	surand_count(pc_ctr, PC_READS);
	local_unlock_irqrestore(&pc_states->lock, flags);
	memzero_explicit(blk, sizeof(blk));
	req->counter = 0;
	return 0;
}

static void percpu_fill(struct surand_req *req, u8 *out, size_t n)
{
	u8 blk[SURAND_CHACHA20_BLOCK_SIZE];
	size_t full = n / SURAND_CHACHA20_BLOCK_SIZE, rest = n % SURAND_CHACHA20_BLOCK_SIZE;

	/* The request key is used once per block position: counter never repeats. */
	surand_chacha20_blocks_portable(req->key, req->counter, 0, out, full);
	req->counter += full;
	if (rest) {
		surand_chacha20_blocks_portable(req->key, req->counter, 0, blk, 1);
		req->counter++;
		memcpy(out + full * SURAND_CHACHA20_BLOCK_SIZE, blk, rest);
		memzero_explicit(blk, sizeof(blk));
	}
}

static void percpu_end(struct surand_req *req)
{
	/* The read loop wipes req (the request key). */
}

static void percpu_mix(const u8 *buf, size_t len)
{
	percpu_base_reseed(buf, len);
}

static void percpu_stats(struct seq_file *m)
{
	unsigned long flags;
	u64 reseeds, writes, gen;
	int cpu;

	spin_lock_irqsave(&pc_base.lock, flags);
	reseeds = pc_base.reseeds;
	writes = pc_base.writes;
	gen = pc_base.generation;
	spin_unlock_irqrestore(&pc_base.lock, flags);
	seq_printf(m, "base_generation %llu\nbase_reseeds %llu\nbase_writes %llu\n", gen, reseeds,
		   writes);
	seq_printf(m, "percpu_reads %llu\npercpu_rekeys %llu\n",
		   surand_counters_sum(pc_ctr, PC_READS),
		   surand_counters_sum(pc_ctr, PC_REKEYS));
	for_each_possible_cpu(cpu)
		seq_printf(m, "cpu%d_reads %llu\n", cpu, per_cpu_ptr(pc_ctr, cpu)->c[PC_READS]);
}

const struct surand_design surand_design_percpu = {
	SURAND_DESIGN_HOOKS(percpu),
	.fill = percpu_fill,
	.end = percpu_end,
};
