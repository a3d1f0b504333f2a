/*
 * multipool.c - Andi Kleen's fix (22 Sep 2015, "Make /dev/urandom
 * scalable"): one legacy nonblocking pool per NUMA node, each behind its own
 * lock, all filled from the one input pool.  A reader uses the pool of the
 * node its CPU is on, so readers on different nodes never share a lock or a
 * pool cache line.
 *
 * The node of the calling CPU comes from sched_getcpu() and sysfs
 * (gen/designs.h); SURAND_NODES=N simulates N nodes (CPU c on node c % N) on
 * machines with one.  A thread may migrate between reading its CPU and
 * taking the lock: it then simply reads another node's pool, which is
 * correct (every pool is seeded and locked), only slower.
 *
 * The cost Kleen's critics named is visible here too: the input pool's
 * output is spread over N pools, and each pool's state is only 1024 bits.
 *
 * Memory placement: each node's pool state is its own page-rounded mapping
 * (surand_secmem_alloc).  With MAP_DROPPABLE the page is first touched by
 * the node's first pull, made by the first reader on that node, so the
 * kernel's first-touch policy puts it on that node; without it the page is
 * mlocked (faulted in) at init by the selecting thread, and is not moved
 * (no mbind: docs/designs.md says why).  The locks (struct surand_nbpool)
 * share one allocation.
 *
 * Sections: state; fill; control, fork, stats, test hooks.
 * SPDX-License-Identifier: MIT
 */
#include "gen/pool2015.h"

#include <errno.h>
#include <stdlib.h>

/* ==== state ================================================================= */

static struct surand_nbpool *pools; /* [nnodes], cache-line aligned */
static unsigned nnodes;
static __thread unsigned tls_last_node __attribute__((tls_model("initial-exec")));

/* ==== fill ================================================================== */

static int multipool_fill(void *buf, size_t len)
{
	unsigned node = surand_current_node();

	if (SURAND_UNLIKELY(node >= nnodes))
		node %= nnodes;
	tls_last_node = node;
	/* The node's own pool and lock: other nodes' readers never touch them. */
	return surand_nbpool_read(&pools[node], buf, len);
}

/* ==== init, control, fork, stats, test hooks ================================ */

static int multipool_init(void)
{
	unsigned i;
	int r;

	surand_design_prepare();
	nnodes = surand_node_count();
	/* Allocated once: a failed set-up (no secure memory for a node's pool)
	 * is retried by the next call, which keeps what this one made instead
	 * of leaking it (valgrind, tests/test_faults.c secmem_fail). */
	if (!pools) {
		pools = aligned_alloc(SURAND_CACHELINE, nnodes * sizeof(*pools));
		if (!pools)
			return -ENOMEM;
		memset(pools, 0, nnodes * sizeof(*pools));
	}
	for (i = 0; i < nnodes; i++) {
		r = surand_nbpool_init(&pools[i], SURAND_LOCK_FUTEX);
		if (r < 0)
			return r;
	}
	return 0;
}

static int multipool_reseed(void)
{
	unsigned i;
	int r = 0;

	for (i = 0; i < nnodes && r == 0; i++)
		r = surand_nbpool_reseed(&pools[i]);
	return r;
}

static void multipool_atfork_child(void)
{
	unsigned i;

	surand_p15_input_atfork_child();
	for (i = 0; i < nnodes; i++)
		surand_nbpool_atfork_child(&pools[i]);
}

/*
 * backend_counters: [0] extractions, [1] pulls from the input pool, [2] lock
 * acquisitions that found a lock held (all nodes), [3] pulls of the input
 * pool, [4] nodes, [5] extractions from node 0's pool.
 */
static void multipool_stats(struct surand_stats *st)
{
	uint64_t pooled;
	unsigned i;
	int cs;

	for (i = 0; i < nnodes; i++) {
		surand_lock(&pools[i].lock, &cs);
		st->backend_counters[0] += pools[i].extractions;
		st->backend_counters[1] += pools[i].pulls;
		if (i == 0)
			st->backend_counters[5] = pools[i].extractions;
		surand_unlock(&pools[i].lock, cs);
		st->backend_counters[2] += SURAND_LOAD(pools[i].lock.contended);
	}
	surand_p15_input_counts(&st->backend_counters[3], &pooled);
	st->backend_counters[4] = nnodes;
}

#ifdef SURAND_TEST_BUILD
static int which_node(int which)
{
	if (which == SURAND_TEST_SNAP_LAST)
		return (int)tls_last_node;
	return which >= 0 && (unsigned)which < nnodes ? which : -1;
}

static int multipool_snapshot(int which, struct surand_test_snapshot *s)
{
	int node = which_node(which);

	if (node < 0)
		return -1;
	s->index = node;
	return surand_nbpool_snapshot(&pools[node], s);
}

static int multipool_writes(int which, uint64_t *counts, uint32_t nwords)
{
	int node = which_node(which);

	return node < 0 ? -1 : surand_nbpool_writes(&pools[node], counts, nwords);
}

static void multipool_drop(void)
{
	unsigned i;

	surand_p15_test_drop_input();
	for (i = 0; i < nnodes; i++)
		surand_nbpool_test_drop(&pools[i]);
}
#endif

const struct surand_backend surand_backend_multipool = {
	.name = "multipool",
	.summary = "Kleen 2015: one legacy pool and lock per NUMA node (SURAND_NODES simulates)",
	.props = SURAND_BP_BACKTRACK_PER_CALL | SURAND_BP_LOCK_FAST_PATH | SURAND_BP_PER_CPU |
		 SURAND_BP_SHARED_POOL | SURAND_BP_SHARED_WRITES,
	SURAND_BACKEND_HOOKS(multipool, multipool_writes)
};
