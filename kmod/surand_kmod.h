/* SPDX-License-Identifier: MIT OR GPL-2.0 */
/*
 * surand_kmod.h - the kernel module's internal interface.
 *
 * surand.ko serves /dev/surandom from one of six designs, chosen at load
 * time with design=; five come from the 2015 "scalable urandom" debate and
 * what Linux merged after it, one from Linux 5.18:
 *   legacy     the 2015 nonblocking pool (32 words, twisted GFSR, SHA-1
 *              extraction with mixback) behind one spinlock, irqs off;
 *   multipool  Kleen: one such pool per NUMA node (nodes=N simulates N);
 *   salted     Spelvin: readers hash the one pool without its lock, each
 *              with a unique salt; mixback by trylock winners plus a buffer;
 *   taskcrng   Ts'o: careful readers from the pool, abusers get their own
 *              ChaCha20 CRNG kept in a table keyed by process identity;
 *   nodecrng   Linux 4.8-5.17: one ChaCha20 CRNG per NUMA node, locked,
 *              32 bytes of output XORed into the key after every read;
 *   percpu     Linux 5.18: per-CPU fast-key-erasure ChaCha20 states under
 *              a base key.
 *
 * surand_main.c owns the device, the read loop (chunking, cond_resched,
 * signals, copy_to_user), debugfs and the allocation counters; a design
 * only produces bytes into kernel buffers through struct surand_design.
 */
#ifndef SURAND_KMOD_H
#define SURAND_KMOD_H

#include <linux/types.h>
#include <linux/spinlock.h>
#include <linux/seq_file.h>
#include <linux/percpu.h>

#include "chacha20.h"
#include "blake2s.h"
#include "sha1.h"
#include "lfsr2015.h"

/* Bytes a design fills per call of ->fill(): the read loop's stack buffer. */
#define SURAND_CHUNK_BYTES 256

/* Per-read state, on the reader's stack, wiped by the read loop at the end. */
struct surand_req {
	u32 key[8];    /* percpu, taskcrng: the request's ChaCha20 key */
	u64 counter;   /* block counter for key */
	void *ctx;     /* the design's object for this read (pool, task entry) */
	int mode;      /* design-specific (taskcrng: pool or crng) */
	u8 blk[64];    /* nodecrng: the last block, for the key mixback at the end */
	size_t used;   /* nodecrng: bytes of blk handed out */
};

/**
 * struct surand_design - one design, the interface surand_main.c calls
 * @name: the value of the design= parameter
 * @init: sets the design up at load (seeded before it returns); 0 or -errno
 * @exit: frees everything at unload (no reader is left)
 * @begin: starts one read of @len bytes; 0 or -errno
 * @fill: writes n (1..SURAND_CHUNK_BYTES) bytes to out
 * @end: ends the read (mixback, key replacement, references)
 * @mix: mixes len (<= PAGE_SIZE) written bytes in, credits nothing
 * @stats: the design's counters for debugfs "stats"
 * @self: debugfs "self": the caller's own state (taskcrng); may be NULL
 */
struct surand_design {
	const char *name;
	int (*init)(void);
	void (*exit)(void);
	int (*begin)(struct surand_req *req, size_t len);
	void (*fill)(struct surand_req *req, u8 *out, size_t n);
	void (*end)(struct surand_req *req); /* NULL: nothing to release */
	void (*mix)(const u8 *buf, size_t len);
	void (*stats)(struct seq_file *m);
	void (*self)(struct seq_file *m);
};

/*
 * The members every design names by one convention from its name p: .name
 * is "p", and the hooks are p_init, p_exit, p_begin, p_mix and p_stats.  A
 * design's initialiser adds only what is its own (.fill, .end, .self).
 */
#define SURAND_DESIGN_HOOKS(p)                                                  \
	.name = #p, .init = p##_init, .exit = p##_exit, .begin = p##_begin,     \
	.mix = p##_mix, .stats = p##_stats

/* The file_operations of a debugfs control that only takes writes. */
#define SURAND_WRITE_ONLY_FOPS(name, write_fn)                                  \
	static const struct file_operations name = {                            \
		.owner = THIS_MODULE,                                           \
		.write = write_fn,                                              \
		.llseek = noop_llseek,                                          \
	}

extern const struct surand_design surand_design_legacy;
extern const struct surand_design surand_design_multipool;
extern const struct surand_design surand_design_taskcrng;
extern const struct surand_design surand_design_percpu;
extern const struct surand_design surand_design_salted;
extern const struct surand_design surand_design_nodecrng;

/*
 * ---- allocation accounting (surand_main.c) -------------------------------
 * Debian's kernel has no kmemleak/KASAN: every allocation of the module goes
 * through these, and unload prints the counts (the guest tests check them).
 */
void *surand_kzalloc(size_t size, gfp_t gfp);
void *surand_kzalloc_node(size_t size, gfp_t gfp, int node);
/* Frees with kfree_sensitive() (the whole slab object is wiped); NULL is ignored. */
void surand_kfree(void *p);
/* Large tables (taskcrng's hash): kvzalloc and kvfree, counted the same way. */
void *surand_kvzalloc(size_t size, gfp_t gfp);
void surand_kvfree(void *p);
void __percpu *surand_alloc_percpu(size_t size, size_t align);
void surand_free_percpu(void __percpu *p);
#define surand_percpu_alloc(type) \
	((type __percpu *)surand_alloc_percpu(sizeof(type), __alignof__(type)))

/*
 * Per-CPU statistics counters: incrementing them never touches a shared
 * cache line, so the counters do not distort the scaling they measure.
 */
#define SURAND_MAX_COUNTERS 16
struct surand_counters {
	u64 c[SURAND_MAX_COUNTERS];
};

struct surand_counters __percpu *surand_counters_alloc(void);
void surand_counters_free(struct surand_counters __percpu *ctr);
u64 surand_counters_sum(struct surand_counters __percpu *ctr, int idx);
#define surand_count(ctr, idx) this_cpu_inc((ctr)->c[idx])
#define surand_count_add(ctr, idx, n) this_cpu_add((ctr)->c[idx], (n))

/* Module parameters the designs read (surand_main.c). */
extern int surand_param_nodes;          /* multipool, nodecrng: 0 = real nodes */
extern int surand_param_max_tasks;      /* taskcrng: table cap */
extern int surand_param_max_tasks_per_uid; /* taskcrng: entries one uid may hold */
extern int surand_param_collect_ms;     /* taskcrng: collector period */
extern unsigned long surand_param_reseed_blocks; /* taskcrng: cranks per key */
extern int surand_param_rate_reads;     /* taskcrng: reads per rate window */
extern int surand_param_rate_window_ms;
extern int surand_param_budget_bytes;   /* taskcrng: bytes per budget window */
extern int surand_param_budget_window_s;
extern bool surand_param_every_reader;  /* taskcrng: every reader on its own CRNG */
extern bool surand_param_rekey_per_read; /* taskcrng: new CRNG key after every read */
extern bool surand_param_test_hooks;    /* debugfs hooks the guest tests use */
extern struct dentry *surand_debugfs_dir;

/* Most pools / node CRNGs: more nodes than this are folded (node % count). */
#define SURAND_MAX_NODE_POOLS 64
/* The pool or node CRNG index of a CPU: simulated nodes, or its NUMA node folded. */
int surand_node_index(int cpu, int count, bool simulated);
/* A per-node design's pools / node CRNGs: one zeroed object of size bytes per
 * node, each in its node's memory; freed (wiped) with their table. */
void **surand_node_table(int *count, bool *simulated, size_t size);
void surand_node_table_free(void **t, int count);

/* ---- the 2015 nonblocking pool (pool.c), shared by three designs --------- */
#define SURAND_POOL_WORDS 32      /* 1024 bits, as the nonblocking pool */
#define SURAND_EXTRACT_SIZE 10    /* bytes out per extraction (half of SHA-1) */
#define SURAND_POOL_RESEED_S 60   /* urandom took input at most every 60 s */

struct surand_pool {
	spinlock_t lock;          /* taken with irqs off, as in 2015 */
	/* Read without the lock by salted's readers (READ_ONCE), written under it. */
	u32 pool[SURAND_POOL_WORDS];
	unsigned int add_ptr;
	unsigned int input_rotate;
	unsigned long last_reseed; /* jiffies */
	/* statistics, written under lock */
	u64 extracts, mixed_bytes, reseeds;
} ____cacheline_aligned_in_smp;

void surand_pool_init(struct surand_pool *p);
void surand_pool_wipe(struct surand_pool *p);
/* Mixes len bytes in (takes the lock per 64-byte piece). */
void surand_pool_mix(struct surand_pool *p, const void *buf, size_t len);
/* Reseeds from get_random_bytes() when SURAND_POOL_RESEED_S has passed. */
void surand_pool_maybe_reseed(struct surand_pool *p);
/* n bytes of output, SURAND_EXTRACT_SIZE per SHA-1 extraction. */
void surand_pool_extract(struct surand_pool *p, u8 *out, size_t n);
/* A design's begin and fill for a read served by one pool (legacy,
 * multipool): reseed p if due, then extract from it. */
int surand_pool_begin_req(struct surand_req *req, struct surand_pool *p);
void surand_pool_fill_req(struct surand_req *req, u8 *out, size_t n);
void surand_pool_stats(struct seq_file *m, const char *name, struct surand_pool *p);
/* Caller holds p->lock: mixes n bytes (random.c's _mix_pool_bytes). */
void surand_pool_mix_locked(struct surand_pool *p, const u8 *bytes, size_t n);
/* The 10-byte fold of a 20-byte extraction hash (extract_buf). */
void surand_pool_fold(u32 hash[5], u8 out[SURAND_EXTRACT_SIZE]);
/* The shared mix against its known answer at load: 0 or -EINVAL. */
int surand_pool_selftest(void);

#endif /* SURAND_KMOD_H */
