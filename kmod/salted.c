// SPDX-License-Identifier: MIT OR GPL-2.0
/*
 * salted.c - design "salted" (George Spelvin, Oct 2015), ported from the
 * userspace backend src/gen/salted.c: readers hash the one shared 2015
 * pool without its lock, each extraction with a salt no other extraction
 * uses, so two readers of the same pool state still get different bytes.
 * The mixback is done by whichever reader wins a trylock on the pool lock;
 * a reader that loses appends its hash to a mixback buffer, which the lock
 * holder folds into the pool before it releases.  No reader ever waits for
 * the lock, unless the buffer is full (then it waits rather than drop its
 * hash; counted as lock_waits).
 *
 * What the port changes:
 *  - The salt is Spelvin's own: (CPU, per-CPU extraction counter), taken
 *    with preemption off, plus the load's number; in userspace a CPU id is
 *    not unique, so the backend uses a thread serial instead.
 *  - The pool words are copied with READ_ONCE() (racing with the mixback by
 *    design) and the copy is hashed; 2015's kernel hashed the live words.
 *  - No "valid" seeding number: the kernel never drops a page, and the pool
 *    is seeded before the device exists.
 *  - The release protocol is the userspace one: after unlocking, a holder
 *    looks at the buffer once more (after a full barrier) and takes the lock
 *    again if a hash was published meanwhile; a reader that appended tries
 *    the lock itself.  So a published hash is always folded in by the
 *    holder it raced with or by its own reader.
 *
 * Backtracking: a reader whose hash waits in the buffer has returned bytes
 * that the pool and the buffer can regenerate until the holder folds it in
 * (at the end of that holder's mixback).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/percpu.h>
#include <linux/random.h>
#include <linux/smp.h>

#include "surand_kmod.h"

#define MB_CELLS 64U /* mixback buffer: hashes waiting for the lock holder */
#define MB_MASK (MB_CELLS - 1)

struct salted_state {
	struct surand_pool pool; /* its lock is the mixback lock */
	u32 hash[MB_CELLS][5];   /* waiting hashes: secret (they regenerate output) */
	atomic64_t seq[MB_CELLS]; /* Vyukov's bounded queue: pos + 1 when published */
	atomic64_t tail ____cacheline_aligned_in_smp; /* hashes appended */
	u64 head ____cacheline_aligned_in_smp;        /* hashes folded (under the lock) */
	u64 salt_load;                                /* this load's number */
};

static struct salted_state *ss;
static DEFINE_PER_CPU(u64, salted_salt_ctr);

enum { SA_EXTRACTS, SA_DIRECT, SA_APPENDED, SA_FOLDED, SA_WAITS, SA_HOLDS };
static const char *const sa_names[] = {
	"extractions", "mixback_trylock", "mixback_appended", "mixback_folded", "lock_waits",
	"test_holds",
};

static struct surand_counters __percpu *sa_ctr;
static atomic_t sa_holding = ATOMIC_INIT(0);

/* With the pool lock held: one hash into the pool. */
static void mix_hash_locked(const u32 h[5])
{
	surand_pool_mix_locked(&ss->pool, (const u8 *)h, 5 * sizeof(u32));
	ss->pool.extracts++;
}

/* With the pool lock held: folds every published hash into the pool, in order. */
static void drain_locked(void)
{
	u64 pos = ss->head;
	u32 h[5];
	u32 c;
	int i;

	for (;;) {
		c = pos & MB_MASK;
		if ((u64)atomic64_read_acquire(&ss->seq[c]) != pos + 1)
			break; /* empty, or its reader has not published yet */
		for (i = 0; i < 5; i++) {
			h[i] = READ_ONCE(ss->hash[c][i]);
			/* A hash waiting no longer: it never stays in memory. */
			WRITE_ONCE(ss->hash[c][i], 0);
		}
		mix_hash_locked(h);
		atomic64_set_release(&ss->seq[c], pos + MB_CELLS);
		pos++;
		WRITE_ONCE(ss->head, pos);
		surand_count(sa_ctr, SA_FOLDED);
	}
	memzero_explicit(h, sizeof(h));
}

static bool mb_ready(void)
{
	u64 pos = READ_ONCE(ss->head);

	return (u64)atomic64_read(&ss->seq[pos & MB_MASK]) == pos + 1;
}

/* Releases the pool lock after folding the buffer (see the header). */
static void mixback_release(unsigned long flags)
{
	for (;;) {
		drain_locked();
		spin_unlock_irqrestore(&ss->pool.lock, flags);
		smp_mb(); /* our unlock before the look at the buffer */
		if (!mb_ready() || !spin_trylock_irqsave(&ss->pool.lock, flags))
			return;
	}
}

/* True when the hash went into the buffer; false when it is full. */
static bool mb_append(const u32 h[5])
{
	s64 pos = atomic64_read(&ss->tail), seq, dif;
	u32 c;
	int i;

	for (;;) {
		c = pos & MB_MASK;
		seq = atomic64_read_acquire(&ss->seq[c]);
		dif = seq - pos;
		if (dif == 0) {
			if (atomic64_try_cmpxchg_relaxed(&ss->tail, &pos, pos + 1))
				break;
			continue;
		}
		if (dif < 0)
			return false; /* full */
		pos = atomic64_read(&ss->tail);
	}
	for (i = 0; i < 5; i++)
		WRITE_ONCE(ss->hash[c][i], h[i]);
	atomic64_set_release(&ss->seq[c], pos + 1);
	surand_count(sa_ctr, SA_APPENDED);
	return true;
}

/* Mixes h back: now if the trylock is won, else through the buffer. */
static void mixback(const u32 h[5])
{
	unsigned long flags;

	if (spin_trylock_irqsave(&ss->pool.lock, flags)) {
		mix_hash_locked(h);
		surand_count(sa_ctr, SA_DIRECT);
		mixback_release(flags);
		return;
	}
	if (mb_append(h)) {
		/* Published; the holder we lost to folds it, or we do. */
		smp_mb();
		if (spin_trylock_irqsave(&ss->pool.lock, flags))
			mixback_release(flags);
		return;
	}
	/* Buffer full: wait for the lock rather than drop the hash. */
	spin_lock_irqsave(&ss->pool.lock, flags);
	mix_hash_locked(h);
	surand_count(sa_ctr, SA_WAITS);
	mixback_release(flags);
}

/* One extraction without the lock: a salted hash of the pool, folded. */
static void salted_extract(u8 out[SURAND_EXTRACT_SIZE])
{
	u32 words[SURAND_POOL_WORDS], h[5];
	u64 ctr;
	int i, cpu;

	preempt_disable();
	cpu = smp_processor_id();
	ctr = __this_cpu_inc_return(salted_salt_ctr);
	preempt_enable();
	/* The salt makes this hash unlike any other extraction's of the same pool. */
	surand_sha1_init_state(h);
	h[0] ^= (u32)cpu;
	h[1] ^= (u32)ctr;
	h[2] ^= (u32)(ctr >> 32);
	h[3] ^= (u32)ss->salt_load;
	h[4] ^= (u32)(ss->salt_load >> 32);
	/* Racing with the mixback on purpose: each word is read once, whole. */
	for (i = 0; i < SURAND_POOL_WORDS; i++)
		words[i] = READ_ONCE(ss->pool.pool[i]);
	for (i = 0; i < SURAND_POOL_WORDS; i += 16)
		surand_sha1_transform(h, (const u8 *)(words + i));
	memzero_explicit(words, sizeof(words));
	surand_count(sa_ctr, SA_EXTRACTS);
	mixback(h);
	surand_pool_fold(h, out);
	memzero_explicit(h, sizeof(h));
}

/* pool.c's reseed, released through the protocol (no hash left behind). */
static void salted_maybe_reseed(void)
{
	unsigned long flags;
	u8 seed[32];

	if (!time_after(jiffies, READ_ONCE(ss->pool.last_reseed) + SURAND_POOL_RESEED_S * HZ))
		return;
	get_random_bytes(seed, sizeof(seed));
	spin_lock_irqsave(&ss->pool.lock, flags);
	surand_pool_mix_locked(&ss->pool, seed, sizeof(seed));
	ss->pool.last_reseed = jiffies;
	ss->pool.reseeds++;
	mixback_release(flags);
	memzero_explicit(seed, sizeof(seed));
}

static int salted_begin(struct surand_req *req, size_t len)
{
	salted_maybe_reseed();
	return 0;
}

static void salted_fill(struct surand_req *req, u8 *out, size_t n)
{
	u8 tmp[SURAND_EXTRACT_SIZE];
	size_t k;

	while (n) {
		k = min_t(size_t, n, SURAND_EXTRACT_SIZE);
		salted_extract(tmp);
		memcpy(out, tmp, k);
		out += k;
		n -= k;
	}
	memzero_explicit(tmp, sizeof(tmp));
}

static void salted_mix(const u8 *buf, size_t len)
{
	unsigned long flags;
	size_t n;

	while (len) {
		n = min_t(size_t, len, 64);
		spin_lock_irqsave(&ss->pool.lock, flags);
		surand_pool_mix_locked(&ss->pool, buf, n);
		ss->pool.mixed_bytes += n;
		/* Every holder releases through the protocol: no hash left behind. */
		mixback_release(flags);
		buf += n;
		len -= n;
	}
}

/* test_hooks: writing N holds the pool lock for N ms (at most 2000). */
static ssize_t salted_hold_write(struct file *f, const char __user *ubuf, size_t len,
				 loff_t *pos)
{
	unsigned long flags;
	unsigned int ms;
	int ret;

	ret = kstrtouint_from_user(ubuf, len, 10, &ms);
	if (ret)
		return ret;
	if (ms > 2000)
		return -EINVAL;
	spin_lock_irqsave(&ss->pool.lock, flags);
	atomic_set(&sa_holding, 1);
	surand_count(sa_ctr, SA_HOLDS);
	mdelay(ms);
	atomic_set(&sa_holding, 0);
	mixback_release(flags);
	return len;
}

SURAND_WRITE_ONLY_FOPS(salted_hold_fops, salted_hold_write);

static int salted_init(void)
{
	u32 i;

	ss = surand_kzalloc(sizeof(*ss), GFP_KERNEL);
	if (!ss)
		return -ENOMEM;
	sa_ctr = surand_counters_alloc();
	if (!sa_ctr) {
		surand_kfree(ss);
		return -ENOMEM;
	}
	surand_pool_init(&ss->pool);
	for (i = 0; i < MB_CELLS; i++)
		atomic64_set(&ss->seq[i], i);
	atomic64_set(&ss->tail, 0);
	ss->head = 0;
	/* Salts of an earlier load (same CPU, same counter) are not reused. */
	get_random_bytes(&ss->salt_load, sizeof(ss->salt_load));
	if (surand_param_test_hooks)
		debugfs_create_file("test_hold_ms", 0200, surand_debugfs_dir, NULL,
				    &salted_hold_fops);
	return 0;
}

static void salted_exit(void)
{
	surand_pool_wipe(&ss->pool);
	surand_kfree(ss); /* the waiting hashes too */
	ss = NULL;
	surand_counters_free(sa_ctr);
}

static void salted_stats(struct seq_file *m)
{
	int i;

	seq_puts(m, "pools 1\n");
	for (i = 0; i < ARRAY_SIZE(sa_names); i++)
		seq_printf(m, "%s %llu\n", sa_names[i], surand_counters_sum(sa_ctr, i));
	seq_printf(m, "mixback_waiting %lld\nholding %d\n",
		   atomic64_read(&ss->tail) - (s64)READ_ONCE(ss->head), atomic_read(&sa_holding));
}

const struct surand_design surand_design_salted = {
	SURAND_DESIGN_HOOKS(salted),
	.fill = salted_fill,
};
