// SPDX-License-Identifier: MIT OR GPL-2.0
/*
 * taskcrng.c - design "taskcrng" (Ts'o, Oct 2015): careful readers are
 * served from the 2015 nonblocking pool; a process that reads more than
 * TC_RATE_READS times a second, or more than TC_HISTORY_BYTES in a history
 * window (current request included), gets its own ChaCha20 CRNG seeded from
 * the pool, so that it hurts only itself.
 *
 * Processes are tracked in a hash table keyed by (tgid, start time of the
 * group leader, its self_exec_id): a reused pid has another start time and
 * an execve bumps self_exec_id, so neither ever finds an old state.  The
 * table holds at most max_tasks entries; beyond that readers are served from
 * the pool (correct, only slower).  Entries and CRNGs are allocated with
 * GFP_KERNEL_ACCOUNT (charged to the reader's memory cgroup: the device is
 * world-readable).  A CRNG is reseeded from the pool after reseed_blocks
 * cranks (default 2^24) or TC_RESEED_S seconds, and after every read its key
 * is replaced by one more block (anti-backtracking between reads, as Linux
 * 4.8's crng did).  A collector (every collect_ms) frees the entries of
 * processes that are gone.
 *
 * Lookups are RCU-protected with a reference count, so readers of different
 * processes share no lock; the table lock is taken only to insert or remove.
 */
#include <linux/hashtable.h>
#include <linux/jiffies.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/workqueue.h>

#include "surand_kmod.h"

#define TC_RATE_READS 10      /* reads per second a careful reader may make */
#define TC_HISTORY_BYTES 32   /* bytes per history window a careful reader may take */
#define TC_HISTORY_S 60       /* the history window (random(4): "not less than one minute") */
#define TC_RESEED_S 300       /* a CRNG's key lives at most five minutes */
#define TC_HASH_BITS 10

/* The per-process CRNG: 64 bytes, as Ts'o estimated ("about 72"). */
struct tc_crng {
	u32 key[8];
	u64 nonce;
	u64 counter;
	u64 cranks;          /* blocks since the last (re)seed */
	unsigned long birth; /* jiffies of the last (re)seed */
};

struct tc_entry {
	struct hlist_node node;
	struct rcu_head rcu;
	refcount_t refs;    /* 1 for the table + 1 per reader in flight */
	pid_t tgid;
	u64 start_time;
	u64 exec_id;
	u64 serial;         /* creation order: lets tests tell entries apart */
	spinlock_t lock;    /* protects everything below */
	unsigned long win_start;
	u32 win_reads;
	unsigned long hist_start;
	u64 hist_bytes;
	u64 reads;
	struct tc_crng *crng; /* NULL while the process reads carefully */
};

enum {
	TC_POOL_READS, TC_CRNG_READS, TC_UNTRACKED_READS, TC_PROMOTIONS, TC_RESEEDS,
	TC_CREATED, TC_COLLECTED, TC_TABLE_FULL, TC_ALLOC_FAIL,
};
static const char *const tc_counter_names[] = {
	"pool_reads", "crng_reads", "untracked_reads", "promotions", "crng_reseeds",
	"entries_created", "entries_collected", "table_full", "alloc_failures",
};

enum { TC_MODE_POOL, TC_MODE_CRNG };

static DEFINE_HASHTABLE(tc_table, TC_HASH_BITS);
static DEFINE_SPINLOCK(tc_table_lock); /* inserts and removals */
static int tc_count;                   /* entries in the table, under tc_table_lock */
static u64 tc_serial;                  /* under tc_table_lock */
static struct surand_pool *tc_pool;
static struct surand_counters __percpu *tc_ctr;
static struct delayed_work tc_collector;

struct tc_key {
	pid_t tgid;
	u64 start_time;
	u64 exec_id;
};

static void tc_key_current(struct tc_key *k)
{
	struct task_struct *leader = current->group_leader;

	k->tgid = task_tgid_nr(current);
	k->start_time = leader->start_time;
	k->exec_id = READ_ONCE(leader->self_exec_id);
}

static u32 tc_hash(const struct tc_key *k)
{
	return hash_64(((u64)(u32)k->tgid << 32) ^ k->start_time ^ (k->exec_id << 48),
		       TC_HASH_BITS);
}

static bool tc_match(const struct tc_entry *e, const struct tc_key *k)
{
	return e->tgid == k->tgid && e->start_time == k->start_time && e->exec_id == k->exec_id;
}

static void tc_free_now(struct tc_entry *e)
{
	surand_kfree(e->crng, sizeof(*e->crng)); /* wiped: it holds the key */
	surand_kfree(e, sizeof(*e));
}

static void tc_free_rcu(struct rcu_head *head)
{
	tc_free_now(container_of(head, struct tc_entry, rcu));
}

static void tc_put(struct tc_entry *e)
{
	if (refcount_dec_and_test(&e->refs))
		call_rcu(&e->rcu, tc_free_rcu);
}

/* The caller's entry with a reference, or NULL (rcu_read_lock held by caller). */
static struct tc_entry *tc_lookup_rcu(const struct tc_key *k, u32 h)
{
	struct tc_entry *e;

	hlist_for_each_entry_rcu(e, &tc_table[h], node)
		if (tc_match(e, k) && refcount_inc_not_zero(&e->refs))
			return e;
	return NULL;
}

/* The caller's entry (created if needed) with a reference; NULL: table full. */
static struct tc_entry *tc_get(const struct tc_key *k)
{
	u32 h = tc_hash(k);
	struct tc_entry *e, *n;

	rcu_read_lock();
	e = tc_lookup_rcu(k, h);
	rcu_read_unlock();
	if (e)
		return e;
	if (READ_ONCE(tc_count) >= surand_param_max_tasks) {
		surand_count(tc_ctr, TC_TABLE_FULL);
		return NULL;
	}
	/* Charged to the reader's cgroup: a world-readable device must not be a free heap. */
	n = surand_kzalloc(sizeof(*n), GFP_KERNEL_ACCOUNT);
	if (!n) {
		surand_count(tc_ctr, TC_ALLOC_FAIL);
		return NULL;
	}
	n->tgid = k->tgid;
	n->start_time = k->start_time;
	n->exec_id = k->exec_id;
	spin_lock_init(&n->lock);
	n->win_start = n->hist_start = jiffies;
	refcount_set(&n->refs, 2); /* the table's and ours */

	spin_lock(&tc_table_lock);
	/* Another thread of the process may have inserted it meanwhile. */
	hlist_for_each_entry(e, &tc_table[h], node) {
		if (tc_match(e, k) && refcount_inc_not_zero(&e->refs)) {
			spin_unlock(&tc_table_lock);
			surand_kfree(n, sizeof(*n));
			return e;
		}
	}
	if (tc_count >= surand_param_max_tasks) {
		spin_unlock(&tc_table_lock);
		surand_kfree(n, sizeof(*n));
		surand_count(tc_ctr, TC_TABLE_FULL);
		return NULL;
	}
	n->serial = ++tc_serial;
	hlist_add_head_rcu(&n->node, &tc_table[h]); /* h is already the bucket */
	WRITE_ONCE(tc_count, tc_count + 1);
	spin_unlock(&tc_table_lock);
	surand_count(tc_ctr, TC_CREATED);
	return n;
}

/* Seeds (or reseeds) c from the pool; caller holds the entry lock or owns c. */
static void tc_seed(struct tc_crng *c)
{
	u8 seed[40];
	int i;

	surand_pool_extract(tc_pool, seed, sizeof(seed));
	for (i = 0; i < 8; i++)
		c->key[i] = surand_load32_le(seed + 4 * i);
	c->nonce = (u64)surand_load32_le(seed + 32) | (u64)surand_load32_le(seed + 36) << 32;
	c->counter = 0;
	c->cranks = 0;
	c->birth = jiffies;
	memzero_explicit(seed, sizeof(seed));
}

/* Counts this read in the rate limiter; true: the process is an abuser. */
static bool tc_account(struct tc_entry *e, size_t len)
{
	unsigned long now = jiffies;

	if (time_after_eq(now, e->win_start + HZ)) {
		e->win_start = now;
		e->win_reads = 0;
	}
	if (e->win_reads < U32_MAX)
		e->win_reads++;
	if (time_after_eq(now, e->hist_start + TC_HISTORY_S * HZ)) {
		e->hist_start = now;
		e->hist_bytes = 0;
	}
	e->hist_bytes += min_t(u64, len, U32_MAX);
	e->reads++;
	return e->win_reads > TC_RATE_READS || e->hist_bytes > TC_HISTORY_BYTES;
}

static int taskcrng_begin(struct surand_req *req, size_t len)
{
	struct tc_key k;
	struct tc_entry *e;
	struct tc_crng *c;
	bool promote;

	surand_pool_maybe_reseed(tc_pool);
	tc_key_current(&k);
	e = tc_get(&k);
	req->ctx = e;
	req->mode = TC_MODE_POOL;
	if (!e) {
		surand_count(tc_ctr, TC_UNTRACKED_READS);
		return 0;
	}
	spin_lock(&e->lock);
	promote = tc_account(e, len) && !e->crng;
	spin_unlock(&e->lock);
	if (promote) {
		/* Allocated and seeded outside the entry lock (GFP_KERNEL may sleep). */
		c = surand_kzalloc(sizeof(*c), GFP_KERNEL_ACCOUNT);
		if (c) {
			tc_seed(c);
			spin_lock(&e->lock);
			if (!e->crng) {
				e->crng = c;
				c = NULL;
				surand_count(tc_ctr, TC_PROMOTIONS);
			}
			spin_unlock(&e->lock);
			surand_kfree(c, sizeof(*c)); /* lost the race: wiped, freed */
		} else {
			surand_count(tc_ctr, TC_ALLOC_FAIL);
		}
	}
	/* e->crng, once set, stays until the entry is freed. */
	if (READ_ONCE(e->crng)) {
		req->mode = TC_MODE_CRNG;
		surand_count(tc_ctr, TC_CRNG_READS);
	} else {
		surand_count(tc_ctr, TC_POOL_READS);
	}
	return 0;
}

static void taskcrng_fill(struct surand_req *req, u8 *out, size_t n)
{
	struct tc_entry *e = req->ctx;
	u8 blk[SURAND_CHACHA20_BLOCK_SIZE];
	size_t full = n / SURAND_CHACHA20_BLOCK_SIZE, rest = n % SURAND_CHACHA20_BLOCK_SIZE;
	struct tc_crng *c;

	if (req->mode == TC_MODE_POOL) {
		surand_pool_extract(tc_pool, out, n);
		return;
	}
	spin_lock(&e->lock);
	c = e->crng;
	if (c->cranks >= surand_param_reseed_blocks ||
	    time_after(jiffies, c->birth + TC_RESEED_S * HZ)) {
		/* Lock order: entry lock, then the pool lock (irqs off) inside. */
		tc_seed(c);
		surand_count(tc_ctr, TC_RESEEDS);
	}
	surand_chacha20_blocks_portable(c->key, c->counter, c->nonce, out, full);
	c->counter += full;
	c->cranks += full;
	if (rest) {
		surand_chacha20_blocks_portable(c->key, c->counter, c->nonce, blk, 1);
		c->counter++;
		c->cranks++;
		memcpy(out + full * SURAND_CHACHA20_BLOCK_SIZE, blk, rest);
	}
	spin_unlock(&e->lock);
	memzero_explicit(blk, sizeof(blk));
}

static void taskcrng_end(struct surand_req *req)
{
	struct tc_entry *e = req->ctx;
	u8 blk[SURAND_CHACHA20_BLOCK_SIZE];
	struct tc_crng *c;
	int i;

	if (!e)
		return;
	if (req->mode == TC_MODE_CRNG) {
		spin_lock(&e->lock);
		c = e->crng;
		surand_chacha20_blocks_portable(c->key, c->counter, c->nonce, blk, 1);
		/* New key from one more block: this read's output cannot be recomputed later. */
		for (i = 0; i < 8; i++)
			c->key[i] = surand_load32_le(blk + 4 * i);
		c->counter++;
		c->cranks++;
		spin_unlock(&e->lock);
		memzero_explicit(blk, sizeof(blk));
	}
	tc_put(e);
}

/* True while the process the entry was made for still exists. */
static bool tc_alive(const struct tc_entry *e)
{
	struct task_struct *t;
	struct pid *pid;
	bool alive = false;

	rcu_read_lock();
	pid = find_pid_ns(e->tgid, &init_pid_ns);
	t = pid ? pid_task(pid, PIDTYPE_TGID) : NULL;
	if (t && t->start_time == e->start_time && READ_ONCE(t->self_exec_id) == e->exec_id)
		alive = true;
	rcu_read_unlock();
	return alive;
}

static void tc_collect(struct work_struct *w)
{
	struct tc_entry *e;
	struct hlist_node *tmp;
	int bkt;

	spin_lock(&tc_table_lock);
	hash_for_each_safe(tc_table, bkt, tmp, e, node) {
		if (tc_alive(e))
			continue;
		hash_del_rcu(&e->node);
		WRITE_ONCE(tc_count, tc_count - 1);
		surand_count(tc_ctr, TC_COLLECTED);
		tc_put(e); /* the table's reference; freed after a grace period */
	}
	spin_unlock(&tc_table_lock);
	schedule_delayed_work(&tc_collector, msecs_to_jiffies(surand_param_collect_ms));
}

static int taskcrng_init(void)
{
	hash_init(tc_table);
	tc_count = 0;
	tc_serial = 0;
	tc_pool = surand_kzalloc(sizeof(*tc_pool), GFP_KERNEL);
	if (!tc_pool)
		return -ENOMEM;
	tc_ctr = surand_counters_alloc();
	if (!tc_ctr) {
		surand_kfree(tc_pool, sizeof(*tc_pool));
		return -ENOMEM;
	}
	surand_pool_init(tc_pool);
	INIT_DELAYED_WORK(&tc_collector, tc_collect);
	schedule_delayed_work(&tc_collector, msecs_to_jiffies(surand_param_collect_ms));
	return 0;
}

static void taskcrng_exit(void)
{
	struct tc_entry *e;
	struct hlist_node *tmp;
	int bkt;

	cancel_delayed_work_sync(&tc_collector);
	/* No reader is left (open files hold the module); free what remains. */
	spin_lock(&tc_table_lock);
	hash_for_each_safe(tc_table, bkt, tmp, e, node) {
		hash_del_rcu(&e->node);
		tc_count--;
		tc_put(e);
	}
	spin_unlock(&tc_table_lock);
	/* Wait for every tc_free_rcu callback: they run module code. */
	rcu_barrier();
	surand_pool_wipe(tc_pool);
	surand_kfree(tc_pool, sizeof(*tc_pool));
	surand_counters_free(tc_ctr);
}

static void taskcrng_mix(const u8 *buf, size_t len)
{
	/* Into the pool: CRNGs take it at their next (re)seed. */
	surand_pool_mix(tc_pool, buf, len);
}

static void taskcrng_stats(struct seq_file *m)
{
	int i;

	seq_printf(m, "entries %d\nmax_tasks %d\nreseed_blocks %lu\ncollect_ms %d\n",
		   READ_ONCE(tc_count), surand_param_max_tasks, surand_param_reseed_blocks,
		   surand_param_collect_ms);
	for (i = 0; i < ARRAY_SIZE(tc_counter_names); i++)
		seq_printf(m, "%s %llu\n", tc_counter_names[i], surand_counters_sum(tc_ctr, i));
	surand_pool_stats(m, "pool0", tc_pool);
}

/* debugfs "self": the reading process's own entry (never creates one). */
static void taskcrng_self(struct seq_file *m)
{
	struct tc_key k;
	struct tc_entry *e;
	u64 serial = 0, reads = 0, cranks = 0;
	int crng = 0;

	tc_key_current(&k);
	rcu_read_lock();
	e = tc_lookup_rcu(&k, tc_hash(&k));
	rcu_read_unlock();
	if (e) {
		spin_lock(&e->lock);
		serial = e->serial;
		reads = e->reads;
		crng = e->crng != NULL;
		cranks = e->crng ? e->crng->cranks : 0;
		spin_unlock(&e->lock);
		tc_put(e);
	}
	seq_printf(m, "tracked %d\nserial %llu\nreads %llu\ncrng %d\ncranks %llu\n", e != NULL,
		   serial, reads, crng, cranks);
}

const struct surand_design surand_design_taskcrng = {
	.name = "taskcrng",
	.init = taskcrng_init,
	.exit = taskcrng_exit,
	.begin = taskcrng_begin,
	.fill = taskcrng_fill,
	.end = taskcrng_end,
	.mix = taskcrng_mix,
	.stats = taskcrng_stats,
	.self = taskcrng_self,
};
