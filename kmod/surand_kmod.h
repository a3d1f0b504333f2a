/* SPDX-License-Identifier: MIT OR GPL-2.0 */
/*
 * surand_kmod.h - the kernel module's internal interface.
 *
 * surand.ko serves /dev/surandom from one of four designs of the 2015
 * "scalable urandom" debate, chosen at load time with design=:
 *   legacy     the 2015 nonblocking pool (32 words, twisted GFSR, SHA-1
 *              extraction with mixback) behind one spinlock, irqs off;
 *   multipool  Kleen: one such pool per NUMA node (nodes=N simulates N);
 *   taskcrng   Ts'o: careful readers from the pool, abusers get their own
 *              ChaCha20 CRNG kept in a table keyed by process identity;
 *   percpu     per-CPU fast-key-erasure ChaCha20 states under a base key.
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

/* Bytes a design fills per call of ->fill(): the read loop's stack buffer. */
#define SURAND_CHUNK_BYTES 256

/* Per-read state, on the reader's stack, wiped by the read loop at the end. */
struct surand_req {
	u32 key[8];    /* percpu, taskcrng: the request's ChaCha20 key */
	u64 counter;   /* block counter for key */
	void *ctx;     /* the design's object for this read (pool, task entry) */
	int mode;      /* design-specific (taskcrng: pool or crng) */
};

struct surand_design {
	const char *name;
	int (*init)(void);
	void (*exit)(void);
	/* Starts one read(2) of len bytes; 0 or -errno. */
	int (*begin)(struct surand_req *req, size_t len);
	/* Writes n (1..SURAND_CHUNK_BYTES) bytes to out. */
	void (*fill)(struct surand_req *req, u8 *out, size_t n);
	void (*end)(struct surand_req *req);
	/* Mixes len (<= PAGE_SIZE) bytes in, credits nothing. */
	void (*mix)(const u8 *buf, size_t len);
	void (*stats)(struct seq_file *m);
	/* debugfs "self": the caller's own state (taskcrng), may be NULL. */
	void (*self)(struct seq_file *m);
};

extern const struct surand_design surand_design_legacy;
extern const struct surand_design surand_design_multipool;
extern const struct surand_design surand_design_taskcrng;
extern const struct surand_design surand_design_percpu;

/* ---- allocation accounting (surand_main.c) -------------------------------
 * Debian's kernel has no kmemleak/KASAN: every allocation of the module goes
 * through these, and unload prints the counts (the guest tests check them). */
void *surand_kzalloc(size_t size, gfp_t gfp);
void *surand_kzalloc_node(size_t size, gfp_t gfp, int node);
/* Wipes size bytes (secrets), then frees; NULL is ignored. */
void surand_kfree(void *p, size_t size);
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
extern int surand_param_nodes;          /* multipool: 0 = real nodes */
extern int surand_param_max_tasks;      /* taskcrng: table cap */
extern int surand_param_collect_ms;     /* taskcrng: collector period */
extern unsigned long surand_param_reseed_blocks; /* taskcrng: cranks per key */

/* ---- the 2015 nonblocking pool (pool.c), shared by three designs --------- */
#define SURAND_POOL_WORDS 32      /* 1024 bits, as the nonblocking pool */
#define SURAND_EXTRACT_SIZE 10    /* bytes out per extraction (half of SHA-1) */
#define SURAND_POOL_RESEED_S 60   /* urandom took input at most every 60 s */

struct surand_pool {
	spinlock_t lock;          /* taken with irqs off, as in 2015 */
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
void surand_pool_stats(struct seq_file *m, const char *name, struct surand_pool *p);

#endif /* SURAND_KMOD_H */
