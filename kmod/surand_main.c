// SPDX-License-Identifier: MIT OR GPL-2.0
/*
 * surand_main.c - surand.ko: the /dev/surandom misc device, the read and
 * write loops, module parameters, debugfs statistics and the allocation
 * counters.  The designs (legacy.c, multipool.c, salted.c, taskcrng.c,
 * nodecrng.c, percpu.c) only produce bytes; everything that touches user
 * memory is here.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/nodemask.h>
#include <linux/poll.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/splice.h>
#include <linux/topology.h>
#include <linux/uaccess.h>
#include <linux/uio.h>

#include "surand_kmod.h"

/* Every parameter is read-only after load and named as its variable. */
#define SURAND_PARAM(name, type, desc)                                   \
	module_param_named(name, surand_param_##name, type, 0444);       \
	MODULE_PARM_DESC(name, desc)

static char *design = "legacy";
module_param(design, charp, 0444);
MODULE_PARM_DESC(design,
		 "legacy | multipool | salted | taskcrng | nodecrng | percpu (read-only after load)");

int surand_param_nodes;
SURAND_PARAM(nodes, int, "multipool, nodecrng: nodes to simulate (0: the NUMA nodes)");

int surand_param_max_tasks = 1024;
SURAND_PARAM(max_tasks, int, "taskcrng: most processes tracked (1..1048576)");

int surand_param_max_tasks_per_uid;
SURAND_PARAM(max_tasks_per_uid, int,
	     "taskcrng: most table entries of one uid (0: a quarter of max_tasks, at least 1)");

/* The limiter: the same names and defaults as the userspace taskcrng backend. */
int surand_param_rate_reads = 10; /* Ts'o: "no more than ten times a second" */
SURAND_PARAM(rate_reads, int,
	     "taskcrng: reads per rate window a careful reader may make (1..1000000)");

int surand_param_rate_window_ms = 1000;
SURAND_PARAM(rate_window_ms, int, "taskcrng: the rate window in ms (1..3600000)");

int surand_param_budget_bytes = 32; /* Spelvin: 256 bits per reseed interval */
SURAND_PARAM(budget_bytes, int,
	     "taskcrng: bytes per budget window a careful reader may take (1..1073741824)");

int surand_param_budget_window_s = 60; /* random(4): "not less than one minute" */
SURAND_PARAM(budget_window_s, int, "taskcrng: the budget window in seconds (1..86400)");

bool surand_param_every_reader;
SURAND_PARAM(every_reader, bool, "taskcrng: every reader on its own CRNG from its first read");

bool surand_param_rekey_per_read;
SURAND_PARAM(rekey_per_read, bool,
	     "taskcrng: replace a CRNG's key after every read (0: Ts'o's relaxation, reseed only)");

bool surand_param_test_hooks;
SURAND_PARAM(test_hooks, bool, "debugfs hooks for the guest tests (root only)");

int surand_param_collect_ms = 1000;
SURAND_PARAM(collect_ms, int, "taskcrng: collector period in ms (10..600000)");

unsigned long surand_param_reseed_blocks = 1UL << 24;
SURAND_PARAM(reseed_blocks, ulong, "taskcrng: ChaCha20 blocks per CRNG key (1..2^24)");

static const struct surand_design *const designs[] = {
	&surand_design_legacy,
	&surand_design_multipool,
	&surand_design_salted,
	&surand_design_taskcrng,
	&surand_design_nodecrng,
	&surand_design_percpu,
};

static const struct surand_design *dsg;

/* ---- allocation accounting ------------------------------------------------ */
static atomic_long_t surand_allocs = ATOMIC_LONG_INIT(0);
static atomic_long_t surand_frees = ATOMIC_LONG_INIT(0);

/**
 * surand_kzalloc_node() - kzalloc_node(), counted for the unload balance
 * @size: bytes
 * @gfp: allocation flags
 * @node: NUMA node, or NUMA_NO_NODE
 *
 * Return: zeroed memory, or NULL.
 */
void *surand_kzalloc_node(size_t size, gfp_t gfp, int node)
{
	void *p = kzalloc_node(size, gfp, node);

	if (p)
		atomic_long_inc(&surand_allocs);
	return p;
}

void *surand_kzalloc(size_t size, gfp_t gfp)
{
	return surand_kzalloc_node(size, gfp, NUMA_NO_NODE);
}

/**
 * surand_kfree() - frees what surand_kzalloc*() gave, wiping it
 * @p: the object, or NULL
 *
 * kfree_sensitive() wipes the whole slab object (slack included): every
 * object of the module may hold key or pool material.
 */
void surand_kfree(void *p)
{
	if (!p)
		return;
	/* Every object may hold key or pool material: the whole slab object is wiped. */
	kfree_sensitive(p);
	atomic_long_inc(&surand_frees);
}

void *surand_kvzalloc(size_t size, gfp_t gfp)
{
	void *p = kvzalloc(size, gfp);

	if (p)
		atomic_long_inc(&surand_allocs);
	return p;
}

/* Not wiped: the only kvzalloc'd memory is taskcrng's bucket table, list
 * heads and no key or pool material (every object goes through surand_kfree). */
void surand_kvfree(void *p)
{
	if (!p)
		return;
	kvfree(p);
	atomic_long_inc(&surand_frees);
}

/**
 * surand_node_index() - the pool or node CRNG a CPU's readers use
 * @cpu: the reader's CPU
 * @count: pools (or node CRNGs) there are, 1..SURAND_MAX_NODE_POOLS
 * @simulated: true when nodes= simulates the nodes
 *
 * Simulated nodes: CPU c uses c % count.  Real nodes: the CPU's NUMA node,
 * folded into the pools when there are more nodes than pools.
 *
 * Return: an index in 0..count-1.
 */
int surand_node_index(int cpu, int count, bool simulated)
{
	int node = simulated ? cpu : cpu_to_node(cpu);

	if (node < 0)
		node = 0;
	return node % count;
}

/**
 * surand_node_count() - how many pools (or node CRNGs) a per-node design keeps
 * @simulated: set to true when nodes= simulates the nodes
 *
 * Return: nodes= when set, else the NUMA nodes folded into
 * SURAND_MAX_NODE_POOLS; at least 1.
 */
static int surand_node_count(bool *simulated)
{
	*simulated = surand_param_nodes > 0;
	if (*simulated)
		return surand_param_nodes;
	return max_t(int, 1, min_t(int, nr_node_ids, SURAND_MAX_NODE_POOLS));
}

/* The node whose memory holds object @i: node @i when it is real and online. */
static int surand_node_home(int i, bool simulated)
{
	return (!simulated && i < nr_node_ids && node_online(i)) ? i : NUMA_NO_NODE;
}

/**
 * surand_node_table() - a zeroed object per node, each in its node's memory
 * @count: set to the number of objects (nodes= when set, else the NUMA
 *         nodes folded into SURAND_MAX_NODE_POOLS; at least 1)
 * @simulated: set to true when nodes= simulates the nodes
 * @size: one object's size
 *
 * Return: a table of @count objects, or NULL with nothing left allocated.
 */
void **surand_node_table(int *count, bool *simulated, size_t size)
{
	void **t;
	int i;

	*count = surand_node_count(simulated);
	t = surand_kzalloc(*count * sizeof(*t), GFP_KERNEL);
	if (!t)
		return NULL;
	for (i = 0; i < *count; i++) {
		t[i] = surand_kzalloc_node(size, GFP_KERNEL, surand_node_home(i, *simulated));
		if (!t[i]) {
			surand_node_table_free(t, i);
			return NULL;
		}
	}
	return t;
}

/**
 * surand_node_table_free() - frees (wiping) a node table's objects and itself
 * @t: the table, or NULL
 * @count: how many objects it holds
 */
void surand_node_table_free(void **t, int count)
{
	int i;

	if (!t)
		return;
	for (i = 0; i < count; i++)
		surand_kfree(t[i]);
	surand_kfree(t);
}

void __percpu *surand_alloc_percpu(size_t size, size_t align)
{
	void __percpu *p = __alloc_percpu(size, align);

	if (p)
		atomic_long_inc(&surand_allocs);
	return p;
}

void surand_free_percpu(void __percpu *p)
{
	if (!p)
		return;
	free_percpu(p);
	atomic_long_inc(&surand_frees);
}

struct surand_counters __percpu *surand_counters_alloc(void)
{
	return surand_percpu_alloc(struct surand_counters);
}

void surand_counters_free(struct surand_counters __percpu *ctr)
{
	surand_free_percpu(ctr);
}

u64 surand_counters_sum(struct surand_counters __percpu *ctr, int idx)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu_ptr(ctr, cpu)->c[idx];
	return sum;
}

/* ---- the device ----------------------------------------------------------- */
enum { ST_READS, ST_READ_BYTES, ST_WRITES, ST_WRITE_BYTES, ST_FAULTS, ST_SIGNAL_PARTIAL };
static const char *const st_names[] = {
	"reads", "read_bytes", "writes", "write_bytes", "faults", "signal_partial",
};

static struct surand_counters __percpu *st;

/**
 * surand_read_iter() - read(2), readv(2), splice(2) and sendfile(2) of /dev/surandom
 * @kiocb: the I/O control block (unused: the device has no position)
 * @iter: where the bytes go (user memory, or a pipe for splice)
 *
 * Any size: output in SURAND_CHUNK_BYTES chunks; every page, a pending
 * signal ends the read with the partial count and cond_resched() yields.
 *
 * Return: the bytes copied, or -EFAULT when none could be.
 */
static ssize_t surand_read_iter(struct kiocb *kiocb, struct iov_iter *iter)
{
	struct surand_req req = {};
	u8 buf[SURAND_CHUNK_BYTES];
	size_t len = iov_iter_count(iter), done = 0, n, copied;
	int ret;

	if (!len)
		return 0;
	ret = dsg->begin(&req, len);
	if (ret)
		return ret;
	while (done < len) {
		/* Every page, as urandom: yield, and stop early for a signal. */
		if (done && !(done % PAGE_SIZE)) {
			if (signal_pending(current)) {
				surand_count(st, ST_SIGNAL_PARTIAL);
				break;
			}
			cond_resched();
		}
		n = min_t(size_t, len - done, sizeof(buf));
		dsg->fill(&req, buf, n);
		copied = copy_to_iter(buf, n, iter);
		done += copied;
		if (copied != n) {
			surand_count(st, ST_FAULTS);
			break;
		}
	}
	if (dsg->end)
		dsg->end(&req);
	/* Output already given away and the request key must not stay on the stack. */
	memzero_explicit(buf, sizeof(buf));
	memzero_explicit(&req, sizeof(req));
	surand_count(st, ST_READS);
	surand_count_add(st, ST_READ_BYTES, done);
	return done ? (ssize_t)done : -EFAULT;
}

/**
 * surand_write() - write(2) of /dev/surandom: mixes the data in, credits nothing
 * @file: the open device
 * @ubuf: the user's data
 * @len: its length (any size, mixed a page at a time)
 * @ppos: unused
 *
 * Return: the bytes mixed in, or -EFAULT when none could be read.
 */
static ssize_t surand_write(struct file *file, const char __user *ubuf, size_t len,
			    loff_t *ppos)
{
	size_t done = 0, n;
	u8 *page;

	if (!len)
		return 0;
	page = surand_kzalloc(PAGE_SIZE, GFP_KERNEL);
	if (!page)
		return -ENOMEM;
	while (done < len) {
		if (done) {
			if (signal_pending(current))
				break;
			cond_resched();
		}
		/* Mixed a page at a time: the designs never see more than PAGE_SIZE. */
		n = min_t(size_t, len - done, PAGE_SIZE);
		if (copy_from_user(page, ubuf + done, n)) {
			surand_count(st, ST_FAULTS);
			break;
		}
		dsg->mix(page, n); /* credits nothing: there is no entropy count */
		done += n;
	}
	surand_kfree(page);
	surand_count(st, ST_WRITES);
	surand_count_add(st, ST_WRITE_BYTES, done);
	return done ? (ssize_t)done : -EFAULT;
}

static __poll_t surand_poll(struct file *file, poll_table *wait)
{
	/* Seeded at load (the module waited for the kernel CRNG): always ready. */
	return EPOLLIN | EPOLLRDNORM | EPOLLOUT | EPOLLWRNORM;
}

static const struct file_operations surand_fops = {
	.owner = THIS_MODULE,
	.read_iter = surand_read_iter,
	.splice_read = generic_file_splice_read, /* as 6.1's urandom: splice(2), sendfile(2) */
	.write = surand_write,
	.poll = surand_poll,
	.llseek = noop_llseek,
};

static struct miscdevice surand_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "surandom",
	.fops = &surand_fops,
	.mode = 0444,
};

/* ---- debugfs ------------------------------------------------------------- */
struct dentry *surand_debugfs_dir;

static int stats_show(struct seq_file *m, void *v)
{
	int i;

	seq_printf(m, "design %s\n", dsg->name);
	for (i = 0; i < ARRAY_SIZE(st_names); i++)
		seq_printf(m, "%s %llu\n", st_names[i], surand_counters_sum(st, i));
	seq_printf(m, "allocs %ld\nfrees %ld\n", atomic_long_read(&surand_allocs),
		   atomic_long_read(&surand_frees));
	/* Loaded means the self-test passed; ktest reads it here. */
	seq_printf(m, "pool_kat %d\n", surand_pool_selftest() == 0);
	dsg->stats(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

static int self_show(struct seq_file *m, void *v)
{
	if (dsg->self)
		dsg->self(m);
	else
		seq_puts(m, "tracked 0\n");
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(self);

/* ---- load and unload ------------------------------------------------------ */
static int __init surand_init(void)
{
	int i, ret;

	dsg = NULL;
	for (i = 0; i < ARRAY_SIZE(designs); i++)
		if (design && !strcmp(design, designs[i]->name))
			dsg = designs[i];
	if (!dsg) {
		pr_err("unknown design=%s: valid designs are legacy, multipool, salted, taskcrng, nodecrng, percpu\n",
		       design ? design : "(null)");
		return -EINVAL;
	}
	if (surand_param_nodes < 0 || surand_param_nodes > SURAND_MAX_NODE_POOLS ||
	    surand_param_max_tasks < 1 || surand_param_max_tasks > (1 << 20) ||
	    surand_param_max_tasks_per_uid < 0 ||
	    surand_param_max_tasks_per_uid > surand_param_max_tasks ||
	    surand_param_collect_ms < 10 || surand_param_collect_ms > 600000 ||
	    surand_param_reseed_blocks < 1 || surand_param_reseed_blocks > (1UL << 24) ||
	    surand_param_rate_reads < 1 || surand_param_rate_reads > 1000000 ||
	    surand_param_rate_window_ms < 1 || surand_param_rate_window_ms > 3600000 ||
	    surand_param_budget_bytes < 1 || surand_param_budget_bytes > (1 << 30) ||
	    surand_param_budget_window_s < 1 || surand_param_budget_window_s > 86400) {
		pr_err("bad parameter: nodes 0..64, max_tasks 1..1048576, max_tasks_per_uid 0..max_tasks, collect_ms 10..600000, reseed_blocks 1..16777216, rate_reads 1..1000000, rate_window_ms 1..3600000, budget_bytes 1..2^30, budget_window_s 1..86400\n");
		return -EINVAL;
	}
	if (!surand_param_max_tasks_per_uid)
		surand_param_max_tasks_per_uid = max(surand_param_max_tasks / 4, 1);
	/* Fail closed: a mix that differs from the known answer never loads. */
	ret = surand_pool_selftest();
	if (ret) {
		pr_err("the 2015 pool's mix fails its known-answer test\n");
		return ret;
	}
	/* Fail closed: never serve output from an unseeded kernel CRNG. */
	ret = wait_for_random_bytes();
	if (ret)
		return ret;
	st = surand_counters_alloc();
	if (!st)
		return -ENOMEM;
	/* Before init: a design may add its own debugfs files (test hooks). */
	surand_debugfs_dir = debugfs_create_dir("surand", NULL);
	debugfs_create_file("stats", 0400, surand_debugfs_dir, NULL, &stats_fops);
	debugfs_create_file("self", 0444, surand_debugfs_dir, NULL, &self_fops);
	ret = dsg->init();
	if (ret)
		goto fail_counters;
	/* Last: no reader may see a half-initialised design. */
	ret = misc_register(&surand_misc);
	if (ret)
		goto fail_design;
	pr_info("loaded design=%s\n", dsg->name);
	return 0;

fail_design:
	dsg->exit();
fail_counters:
	debugfs_remove_recursive(surand_debugfs_dir);
	surand_counters_free(st);
	return ret;
}

static void __exit surand_exit(void)
{
	long a, f;

	misc_deregister(&surand_misc);
	debugfs_remove_recursive(surand_debugfs_dir);
	dsg->exit();
	surand_counters_free(st);
	a = atomic_long_read(&surand_allocs);
	f = atomic_long_read(&surand_frees);
	pr_info("unloaded design=%s allocs=%ld frees=%ld\n", dsg->name, a, f);
	if (a != f)
		pr_err("LEAK: %ld allocations not freed\n", a - f);
}

module_init(surand_init);
module_exit(surand_exit);
MODULE_LICENSE("Dual MIT/GPL");
MODULE_AUTHOR("surand project");
MODULE_DESCRIPTION("/dev/surandom: the 2015 scalable-urandom designs and their successors");
/* the package version (Makefile VERSION, debian/changelog; tests/cli.sh checks they agree) */
MODULE_VERSION("1.1.0");
