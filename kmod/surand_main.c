// SPDX-License-Identifier: MIT OR GPL-2.0
/*
 * surand_main.c - surand.ko: the /dev/surandom misc device, the read and
 * write loops, module parameters, debugfs statistics and the allocation
 * counters.  The designs (legacy.c, multipool.c, taskcrng.c, percpu.c) only
 * produce bytes; everything that touches user memory is here.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/poll.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "surand_kmod.h"

static char *design = "legacy";
module_param(design, charp, 0444);
MODULE_PARM_DESC(design, "legacy | multipool | taskcrng | percpu (read-only after load)");

int surand_param_nodes;
module_param_named(nodes, surand_param_nodes, int, 0444);
MODULE_PARM_DESC(nodes, "multipool: pools to simulate (0: one per NUMA node)");

int surand_param_max_tasks = 1024;
module_param_named(max_tasks, surand_param_max_tasks, int, 0444);
MODULE_PARM_DESC(max_tasks, "taskcrng: most processes tracked (1..1048576)");

int surand_param_collect_ms = 1000;
module_param_named(collect_ms, surand_param_collect_ms, int, 0444);
MODULE_PARM_DESC(collect_ms, "taskcrng: collector period in ms (10..600000)");

unsigned long surand_param_reseed_blocks = 1UL << 24;
module_param_named(reseed_blocks, surand_param_reseed_blocks, ulong, 0444);
MODULE_PARM_DESC(reseed_blocks, "taskcrng: ChaCha20 blocks per CRNG key (1..2^24)");

static const struct surand_design *const designs[] = {
	&surand_design_legacy,
	&surand_design_multipool,
	&surand_design_taskcrng,
	&surand_design_percpu,
};
static const struct surand_design *dsg;

/* ---- allocation accounting ------------------------------------------------ */
static atomic_long_t surand_allocs = ATOMIC_LONG_INIT(0);
static atomic_long_t surand_frees = ATOMIC_LONG_INIT(0);

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

void surand_kfree(void *p, size_t size)
{
	if (!p)
		return;
	/* Every object may hold key or pool material. */
	memzero_explicit(p, size);
	kfree(p);
	atomic_long_inc(&surand_frees);
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

static ssize_t surand_read(struct file *file, char __user *ubuf, size_t len, loff_t *ppos)
{
	struct surand_req req = {};
	u8 buf[SURAND_CHUNK_BYTES];
	size_t done = 0, n, left;
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
		left = copy_to_user(ubuf + done, buf, n);
		done += n - left;
		if (left) {
			surand_count(st, ST_FAULTS);
			break;
		}
	}
	dsg->end(&req);
	/* Output already given away and the request key must not stay on the stack. */
	memzero_explicit(buf, sizeof(buf));
	memzero_explicit(&req, sizeof(req));
	surand_count(st, ST_READS);
	surand_count_add(st, ST_READ_BYTES, done);
	return done ? (ssize_t)done : -EFAULT;
}

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
	surand_kfree(page, PAGE_SIZE);
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
	.read = surand_read,
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
static struct dentry *surand_dbg;

static int stats_show(struct seq_file *m, void *v)
{
	int i;

	seq_printf(m, "design %s\n", dsg->name);
	for (i = 0; i < ARRAY_SIZE(st_names); i++)
		seq_printf(m, "%s %llu\n", st_names[i], surand_counters_sum(st, i));
	seq_printf(m, "allocs %ld\nfrees %ld\n", atomic_long_read(&surand_allocs),
		   atomic_long_read(&surand_frees));
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
		pr_err("unknown design=%s: valid designs are legacy, multipool, taskcrng, percpu\n",
		       design ? design : "(null)");
		return -EINVAL;
	}
	if (surand_param_nodes < 0 || surand_param_max_tasks < 1 ||
	    surand_param_max_tasks > (1 << 20) || surand_param_collect_ms < 10 ||
	    surand_param_collect_ms > 600000 || surand_param_reseed_blocks < 1 ||
	    surand_param_reseed_blocks > (1UL << 24)) {
		pr_err("bad parameter: nodes>=0, max_tasks 1..1048576, collect_ms 10..600000, reseed_blocks 1..16777216\n");
		return -EINVAL;
	}
	/* Fail closed: never serve output from an unseeded kernel CRNG. */
	ret = wait_for_random_bytes();
	if (ret)
		return ret;
	st = surand_counters_alloc();
	if (!st)
		return -ENOMEM;
	ret = dsg->init();
	if (ret)
		goto fail_counters;
	surand_dbg = debugfs_create_dir("surand", NULL);
	debugfs_create_file("stats", 0400, surand_dbg, NULL, &stats_fops);
	debugfs_create_file("self", 0444, surand_dbg, NULL, &self_fops);
	/* Last: no reader may see a half-initialised design. */
	ret = misc_register(&surand_misc);
	if (ret)
		goto fail_design;
	pr_info("loaded design=%s\n", dsg->name);
	return 0;

fail_design:
	debugfs_remove_recursive(surand_dbg);
	dsg->exit();
fail_counters:
	surand_counters_free(st);
	return ret;
}

static void __exit surand_exit(void)
{
	long a, f;

	misc_deregister(&surand_misc);
	debugfs_remove_recursive(surand_dbg);
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
MODULE_DESCRIPTION("/dev/surandom: the 2015 scalable-urandom designs (legacy, multipool, taskcrng, percpu)");
