// SPDX-License-Identifier: MIT OR GPL-2.0
/*
 * legacy.c - design "legacy": every reader on one 2015 nonblocking pool
 * behind one spinlock taken with interrupts off (pool.c), as Linux 4.2 had
 * it.  The baseline that Kleen measured at >80% CPU in the lock on a
 * 4-socket machine.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "surand_kmod.h"

static struct surand_pool *legacy_pool;

static int legacy_init(void)
{
	legacy_pool = surand_kzalloc(sizeof(*legacy_pool), GFP_KERNEL);
	if (!legacy_pool)
		return -ENOMEM;
	surand_pool_init(legacy_pool);
	return 0;
}

static void legacy_exit(void)
{
	surand_pool_wipe(legacy_pool);
	surand_kfree(legacy_pool);
	legacy_pool = NULL;
}

static int legacy_begin(struct surand_req *req, size_t len)
{
	return surand_pool_begin_req(req, legacy_pool);
}

static void legacy_mix(const u8 *buf, size_t len)
{
	surand_pool_mix(legacy_pool, buf, len);
}

static void legacy_stats(struct seq_file *m)
{
	seq_puts(m, "pools 1\n");
	surand_pool_stats(m, "pool0", legacy_pool);
}

const struct surand_design surand_design_legacy = {
	SURAND_DESIGN_HOOKS(legacy),
	.fill = surand_pool_fill_req,
};
