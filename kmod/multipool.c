// SPDX-License-Identifier: MIT OR GPL-2.0
/*
 * multipool.c - design "multipool" (Andi Kleen, "Make /dev/urandom
 * scalable", Sep 2015): one 2015 nonblocking pool per NUMA node, each
 * allocated on its node; a reader uses the pool of the node it runs on.
 * nodes=N simulates N nodes on any machine: CPU c then uses pool c % N.
 * More than SURAND_MAX_NODE_POOLS real nodes (Debian builds NODES_SHIFT=10)
 * are folded: node n uses pool n % 64, and pool i lives on node i.
 * Written data is mixed into every pool (each serves readers on its own).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/nodemask.h>
#include <linux/smp.h>
#include <linux/topology.h>

#include "surand_kmod.h"

static struct surand_pool **mp_pools;
static int mp_npools;
static bool mp_simulated;

static int multipool_init(void)
{
	int i;

	mp_pools = (struct surand_pool **)surand_node_table(&mp_npools, &mp_simulated,
							    sizeof(struct surand_pool));
	if (!mp_pools)
		return -ENOMEM;
	for (i = 0; i < mp_npools; i++)
		surand_pool_init(mp_pools[i]);
	return 0;
}

static void multipool_exit(void)
{
	/* Freeing wipes each pool (surand_kfree). */
	surand_node_table_free((void **)mp_pools, mp_npools);
	mp_pools = NULL;
}

static struct surand_pool *multipool_mine(void)
{
	/* Only a placement hint: migrating right after this is harmless. */
	return mp_pools[surand_node_index(raw_smp_processor_id(), mp_npools, mp_simulated)];
}

static int multipool_begin(struct surand_req *req, size_t len)
{
	return surand_pool_begin_req(req, multipool_mine());
}

static void multipool_mix(const u8 *buf, size_t len)
{
	int i;

	for (i = 0; i < mp_npools; i++)
		surand_pool_mix(mp_pools[i], buf, len);
}

static void multipool_stats(struct seq_file *m)
{
	char name[16];
	int i;

	seq_printf(m, "pools %d\nsimulated %d\n", mp_npools, mp_simulated);
	for (i = 0; i < mp_npools; i++) {
		snprintf(name, sizeof(name), "pool%d", i);
		surand_pool_stats(m, name, mp_pools[i]);
	}
}

const struct surand_design surand_design_multipool = {
	SURAND_DESIGN_HOOKS(multipool),
	.fill = surand_pool_fill_req,
};
