// SPDX-License-Identifier: MIT OR GPL-2.0
/*
 * taskcrng.c - design "taskcrng" (Ts'o, Oct 2015): careful readers are
 * served from the 2015 nonblocking pool; a process over the limiter gets its
 * own ChaCha20 CRNG seeded from the pool, so that it hurts only itself.
 *
 * The limiter (the same names and defaults as the userspace backend): a
 * process stays on the pool while it makes at most rate_reads reads per
 * rate_window_ms (10 per 1000 ms) AND takes at most budget_bytes bytes per
 * budget_window_s (32 per 60 s).  The request that would pass either limit
 * is the first one served by the process's own CRNG, and so is every later
 * one.  every_reader=1 is the variant Ts'o floated: every reader on its own
 * CRNG from its first read.
 *
 * Processes are tracked in a hash table keyed by (tgid, start time of the
 * group leader, its self_exec_id): a reused pid has another start time and
 * an execve bumps self_exec_id, so neither ever finds an old state.  The
 * table has a bucket per entry it may hold (max_tasks rounded up to a power
 * of two), holds at most max_tasks entries and at most max_tasks_per_uid of
 * one user; beyond that readers are served from the pool (correct, only
 * slower).  Entries and CRNGs are allocated with GFP_KERNEL_ACCOUNT (charged
 * to the reader's memory cgroup: the device is world-readable).  A CRNG is
 * reseeded from the pool after reseed_blocks cranks (default 2^24) or
 * TC_RESEED_S seconds; with rekey_per_read=1 its key is also replaced by one
 * more block after every read (backtracking protection between reads, as
 * Linux 4.8's crng), while the default 0 is Ts'o's relaxation ("We are
 * discarding backtracking protection between successive reads from a single
 * process"), as the userspace backend does.  A collector (every collect_ms)
 * frees the entries of processes that are gone, one bucket per lock hold,
 * with cond_resched() between buckets.
 *
 * Lookups are RCU-protected with a reference count, so readers of different
 * processes share no lock; the table lock is taken only to insert or remove.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cred.h>
#include <linux/debugfs.h>
#include <linux/hashtable.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/log2.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/workqueue.h>

#include "surand_kmod.h"

#define TC_RESEED_S 300       /* a CRNG's key lives at most five minutes */
#define TC_MIN_HASH_BITS 4
#define TC_UID_HASH_BITS 8
/* test_fill's entries: tgids above PID_MAX_LIMIT (2^22), which no process has. */
#define TC_FAKE_TGID_BASE BIT(22)

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
	kuid_t uid;         /* the creator's real uid, for the per-uid cap */
	bool uid_counted;   /* false for test_fill's entries */
	spinlock_t lock;    /* protects everything below */
	unsigned long win_start;   /* rate window */
	u32 win_reads;
	unsigned long budget_start; /* budget window */
	u64 budget_used;
	u64 reads;
	struct tc_crng *crng; /* NULL while the process reads carefully */
};

/* One user's entries in the table, for max_tasks_per_uid. */
struct tc_uid {
	struct hlist_node node;
	kuid_t uid;
	int count;
};

enum {
	TC_POOL_READS, TC_CRNG_READS, TC_UNTRACKED_READS, TC_PROMOTIONS, TC_RESEEDS,
	TC_CREATED, TC_COLLECTED, TC_TABLE_FULL, TC_ALLOC_FAIL, TC_UID_FULL,
	TC_SWITCH_RATE, TC_SWITCH_BUDGET, TC_SWITCH_EVERY, TC_REKEYS,
};

static const char *const tc_counter_names[] = {
	"pool_reads", "crng_reads", "untracked_reads", "promotions", "crng_reseeds",
	"entries_created", "entries_collected", "table_full", "alloc_failures", "uid_full",
	"switch_rate", "switch_budget", "switch_every_reader", "crng_rekeys",
};

enum { TC_MODE_POOL, TC_MODE_CRNG };
enum { TC_CAREFUL, TC_OVER_RATE, TC_OVER_BUDGET, TC_EVERY };

static struct hlist_head *tc_table;    /* 1 << tc_bits buckets */
static unsigned int tc_bits;
static DEFINE_HASHTABLE(tc_uids, TC_UID_HASH_BITS); /* under tc_table_lock */
static DEFINE_SPINLOCK(tc_table_lock); /* inserts and removals */
static int tc_count;                   /* entries in the table, under tc_table_lock */
static u64 tc_serial;                  /* under tc_table_lock */
/* The collector's last pass: its time, and the most entries one lock hold examined. */
static u64 tc_collect_last_ns, tc_collect_max_ns, tc_collect_max_hold;
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
	return hash_64(((u64)(u32)k->tgid << 32) ^ k->start_time ^ (k->exec_id << 48), tc_bits);
}

/* Caller holds tc_table_lock. */
static struct tc_uid *tc_uid_find_locked(kuid_t uid)
{
	struct tc_uid *u;

	hash_for_each_possible(tc_uids, u, node, __kuid_val(uid))
		if (uid_eq(u->uid, uid))
			return u;
	return NULL;
}

/* Caller holds tc_table_lock: the entry leaves the table. */
static void tc_unlink_locked(struct tc_entry *e)
{
	struct tc_uid *u;

	hlist_del_rcu(&e->node);
	WRITE_ONCE(tc_count, tc_count - 1);
	if (!e->uid_counted)
		return;
	u = tc_uid_find_locked(e->uid);
	if (u && !--u->count) {
		hash_del(&u->node);
		surand_kfree(u);
	}
}

static bool tc_match(const struct tc_entry *e, const struct tc_key *k)
{
	return e->tgid == k->tgid && e->start_time == k->start_time && e->exec_id == k->exec_id;
}

static void tc_free_now(struct tc_entry *e)
{
	surand_kfree(e->crng); /* wiped: it holds the key */
	surand_kfree(e);
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

/* The caller's entry (created if needed) with a reference; NULL: table or uid full. */
static struct tc_entry *tc_get(const struct tc_key *k)
{
	u32 h = tc_hash(k);
	struct tc_entry *e, *n;
	struct tc_uid *u, *nu;
	kuid_t uid = current_uid();

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
	nu = surand_kzalloc(sizeof(*nu), GFP_KERNEL_ACCOUNT);
	if (!n || !nu) {
		surand_kfree(n);
		surand_kfree(nu);
		surand_count(tc_ctr, TC_ALLOC_FAIL);
		return NULL;
	}
	n->tgid = k->tgid;
	n->start_time = k->start_time;
	n->exec_id = k->exec_id;
	n->uid = uid;
	n->uid_counted = true;
	spin_lock_init(&n->lock);
	n->win_start = jiffies;
	n->budget_start = n->win_start;
	refcount_set(&n->refs, 2); /* the table's and ours */

	spin_lock(&tc_table_lock);
	/* Another thread of the process may have inserted it meanwhile. */
	hlist_for_each_entry(e, &tc_table[h], node) {
		if (tc_match(e, k) && refcount_inc_not_zero(&e->refs)) {
			spin_unlock(&tc_table_lock);
			surand_kfree(n);
			surand_kfree(nu);
			return e;
		}
	}
	if (tc_count >= surand_param_max_tasks) {
		spin_unlock(&tc_table_lock);
		surand_kfree(n);
		surand_kfree(nu);
		surand_count(tc_ctr, TC_TABLE_FULL);
		return NULL;
	}
	u = tc_uid_find_locked(uid);
	/* One user cannot take the whole table and push everyone else onto the pool. */
	if (u && u->count >= surand_param_max_tasks_per_uid) {
		spin_unlock(&tc_table_lock);
		surand_kfree(n);
		surand_kfree(nu);
		surand_count(tc_ctr, TC_UID_FULL);
		return NULL;
	}
	if (!u) {
		u = nu;
		nu = NULL;
		u->uid = uid;
		hash_add(tc_uids, &u->node, __kuid_val(uid));
	}
	u->count++;
	n->serial = ++tc_serial;
	hlist_add_head_rcu(&n->node, &tc_table[h]);
	WRITE_ONCE(tc_count, tc_count + 1);
	spin_unlock(&tc_table_lock);
	surand_kfree(nu);
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

/*
 * The limiter, caller holds e->lock.  TC_CAREFUL (the read is counted) or
 * why the read goes to the process's own CRNG; the request that would pass
 * a limit is not counted (it is the first one the CRNG serves).
 */
static int tc_account(struct tc_entry *e, size_t len)
{
	unsigned long now = jiffies;

	e->reads++;
	if (surand_param_every_reader)
		return TC_EVERY;
	if (time_after_eq(now, e->win_start + msecs_to_jiffies(surand_param_rate_window_ms))) {
		e->win_start = now;
		e->win_reads = 0;
	}
	if (time_after_eq(now, e->budget_start + surand_param_budget_window_s * HZ)) {
		e->budget_start = now;
		e->budget_used = 0;
	}
	if (e->win_reads + 1 > (u32)surand_param_rate_reads)
		return TC_OVER_RATE;
	/* budget_used never exceeds budget_bytes: only careful reads add to it. */
	if (len > (u64)surand_param_budget_bytes - e->budget_used)
		return TC_OVER_BUDGET;
	e->win_reads++;
	e->budget_used += len;
	return TC_CAREFUL;
}

static int taskcrng_begin(struct surand_req *req, size_t len)
{
	struct tc_key k;
	struct tc_entry *e;
	struct tc_crng *c;
	bool promote = false;
	int why = TC_CAREFUL;

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
	if (!e->crng) {
		why = tc_account(e, len);
		promote = why != TC_CAREFUL;
	} else {
		e->reads++;
	}
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
				surand_count(tc_ctr, why == TC_OVER_RATE ? TC_SWITCH_RATE :
						     why == TC_OVER_BUDGET ? TC_SWITCH_BUDGET :
						     TC_SWITCH_EVERY);
			}
			spin_unlock(&e->lock);
			surand_kfree(c); /* lost the race: wiped, freed */
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
	if (req->mode == TC_MODE_CRNG && surand_param_rekey_per_read) {
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
		surand_count(tc_ctr, TC_REKEYS);
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

/*
 * One pass over the table: one bucket per lock hold, cond_resched() between
 * buckets, so a table of 2^20 entries never holds the lock (or the CPU) for
 * more than one bucket's chain.
 */
static void tc_collect_pass(void)
{
	u64 t0 = ktime_get_ns(), held, dt;
	struct hlist_node *tmp;
	struct tc_entry *e;
	u32 bkt;

	for (bkt = 0; bkt < (1U << tc_bits); bkt++) {
		if (hlist_empty(&tc_table[bkt])) {
			cond_resched();
			continue;
		}
		held = 0;
		spin_lock(&tc_table_lock);
		hlist_for_each_entry_safe(e, tmp, &tc_table[bkt], node) {
			held++;
			if (tc_alive(e))
				continue;
			tc_unlink_locked(e);
			surand_count(tc_ctr, TC_COLLECTED);
			tc_put(e); /* the table's reference; freed after a grace period */
		}
		spin_unlock(&tc_table_lock);
		if (held > READ_ONCE(tc_collect_max_hold))
			WRITE_ONCE(tc_collect_max_hold, held);
		cond_resched();
	}
	dt = ktime_get_ns() - t0;
	WRITE_ONCE(tc_collect_last_ns, dt);
	if (dt > READ_ONCE(tc_collect_max_ns))
		WRITE_ONCE(tc_collect_max_ns, dt);
}

static void tc_collect(struct work_struct *w)
{
	tc_collect_pass();
	schedule_delayed_work(&tc_collector, msecs_to_jiffies(surand_param_collect_ms));
}

/* test_hooks: writing N inserts N entries of processes that do not exist. */
static ssize_t tc_fill_write(struct file *f, const char __user *ubuf, size_t len, loff_t *pos)
{
	struct tc_entry *n;
	unsigned int i, want;
	struct tc_key k = {};
	int ret;

	ret = kstrtouint_from_user(ubuf, len, 10, &want);
	if (ret)
		return ret;
	for (i = 0; i < want; i++) {
		n = surand_kzalloc(sizeof(*n), GFP_KERNEL_ACCOUNT);
		if (!n)
			return -ENOMEM;
		k.tgid = TC_FAKE_TGID_BASE + i;
		n->tgid = k.tgid;
		spin_lock_init(&n->lock);
		refcount_set(&n->refs, 1);
		spin_lock(&tc_table_lock);
		if (tc_count >= surand_param_max_tasks) {
			spin_unlock(&tc_table_lock);
			surand_kfree(n);
			return -ENOSPC;
		}
		n->serial = ++tc_serial;
		hlist_add_head_rcu(&n->node, &tc_table[tc_hash(&k)]);
		WRITE_ONCE(tc_count, tc_count + 1);
		spin_unlock(&tc_table_lock);
		cond_resched();
	}
	return len;
}

SURAND_WRITE_ONLY_FOPS(tc_fill_fops, tc_fill_write);

static int taskcrng_init(void)
{
	/* A bucket per entry the table may hold: chains stay short at any max_tasks. */
	tc_bits = max_t(unsigned int, TC_MIN_HASH_BITS,
			order_base_2((unsigned int)surand_param_max_tasks));
	tc_table = surand_kvzalloc(sizeof(*tc_table) << tc_bits, GFP_KERNEL);
	if (!tc_table)
		return -ENOMEM;
	hash_init(tc_uids);
	tc_count = 0;
	tc_serial = 0;
	tc_collect_last_ns = 0;
	tc_collect_max_ns = 0;
	tc_collect_max_hold = 0;
	tc_pool = surand_kzalloc(sizeof(*tc_pool), GFP_KERNEL);
	tc_ctr = surand_counters_alloc();
	if (!tc_pool || !tc_ctr) {
		surand_kfree(tc_pool);
		surand_counters_free(tc_ctr);
		surand_kvfree(tc_table);
		return -ENOMEM;
	}
	if (surand_param_test_hooks)
		debugfs_create_file("test_fill", 0200, surand_debugfs_dir, NULL, &tc_fill_fops);
	surand_pool_init(tc_pool);
	INIT_DELAYED_WORK(&tc_collector, tc_collect);
	schedule_delayed_work(&tc_collector, msecs_to_jiffies(surand_param_collect_ms));
	return 0;
}

static void taskcrng_exit(void)
{
	struct tc_entry *e;
	struct hlist_node *tmp;
	u32 bkt;

	cancel_delayed_work_sync(&tc_collector);
	/* No reader is left (open files hold the module); free what remains. */
	for (bkt = 0; bkt < (1U << tc_bits); bkt++) {
		spin_lock(&tc_table_lock);
		hlist_for_each_entry_safe(e, tmp, &tc_table[bkt], node) {
			tc_unlink_locked(e);
			tc_put(e);
		}
		spin_unlock(&tc_table_lock);
		cond_resched();
	}
	/* Wait for every tc_free_rcu callback: they run module code. */
	rcu_barrier();
	surand_pool_wipe(tc_pool);
	surand_kfree(tc_pool);
	surand_counters_free(tc_ctr);
	surand_kvfree(tc_table);
	tc_table = NULL;
}

static void taskcrng_mix(const u8 *buf, size_t len)
{
	/* Into the pool: CRNGs take it at their next (re)seed. */
	surand_pool_mix(tc_pool, buf, len);
}

static void taskcrng_stats(struct seq_file *m)
{
	u32 bkt, chain, max_chain = 0;
	struct tc_entry *e;
	int i;

	/* The longest chain a lookup may walk, one bucket per lock hold. */
	for (bkt = 0; bkt < (1U << tc_bits); bkt++) {
		if (hlist_empty(&tc_table[bkt]))
			continue;
		chain = 0;
		spin_lock(&tc_table_lock);
		hlist_for_each_entry(e, &tc_table[bkt], node)
			chain++;
		spin_unlock(&tc_table_lock);
		max_chain = max(max_chain, chain);
		cond_resched();
	}
	seq_printf(m, "entries %d\nmax_tasks %d\nmax_tasks_per_uid %d\nbuckets %u\nmax_chain %u\n",
		   READ_ONCE(tc_count), surand_param_max_tasks, surand_param_max_tasks_per_uid,
		   1U << tc_bits, max_chain);
	seq_printf(m, "collect_last_us %llu\ncollect_max_us %llu\ncollect_max_hold %llu\n",
		   div_u64(READ_ONCE(tc_collect_last_ns), 1000),
		   div_u64(READ_ONCE(tc_collect_max_ns), 1000), READ_ONCE(tc_collect_max_hold));
	seq_printf(m, "reseed_blocks %lu\ncollect_ms %d\nrate_reads %d\nrate_window_ms %d\n",
		   surand_param_reseed_blocks, surand_param_collect_ms, surand_param_rate_reads,
		   surand_param_rate_window_ms);
	seq_printf(m, "budget_bytes %d\nbudget_window_s %d\nevery_reader %d\nrekey_per_read %d\n",
		   surand_param_budget_bytes, surand_param_budget_window_s,
		   surand_param_every_reader, surand_param_rekey_per_read);
	for (i = 0; i < ARRAY_SIZE(tc_counter_names); i++)
		seq_printf(m, "%s %llu\n", tc_counter_names[i], surand_counters_sum(tc_ctr, i));
	surand_pool_stats(m, "pool0", tc_pool);
}

/* debugfs "self": the reading process's own entry (never creates one). */
static void taskcrng_self(struct seq_file *m)
{
	struct tc_key k;
	struct tc_entry *e;
	u64 serial = 0, reads = 0, cranks = 0, win_reads = 0, budget_used = 0;
	int crng = 0;

	tc_key_current(&k);
	rcu_read_lock();
	e = tc_lookup_rcu(&k, tc_hash(&k));
	rcu_read_unlock();
	if (e) {
		spin_lock(&e->lock);
		serial = e->serial;
		reads = e->reads;
		crng = !!e->crng;
		cranks = e->crng ? e->crng->cranks : 0;
		win_reads = e->win_reads;
		budget_used = e->budget_used;
		spin_unlock(&e->lock);
		tc_put(e);
	}
	seq_printf(m, "tracked %d\nserial %llu\nreads %llu\ncrng %d\ncranks %llu\n", !!e,
		   serial, reads, crng, cranks);
	seq_printf(m, "win_reads %llu\nbudget_used %llu\n", win_reads, budget_used);
}

const struct surand_design surand_design_taskcrng = {
	SURAND_DESIGN_HOOKS(taskcrng),
	.fill = taskcrng_fill,
	.end = taskcrng_end,
	.self = taskcrng_self,
};
