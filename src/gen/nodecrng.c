/*
 * nodecrng.c - what Linux shipped after the debate (4.8 to 5.17, Ts'o's
 * ChaCha20 CRNG): one ChaCha20 CRNG per NUMA node, each behind its own lock
 * ("Hack to deal with crazy userspace programs when they are all trying to
 * access /dev/urandom in parallel", crng_node_pool), reseeded from a primary
 * CRNG every 300 s (CRNG_RESEED_INTERVAL); the primary reseeds from the input
 * pool.  After every read, 32 bytes of unused output are XORed into the
 * node's key (_crng_backtrack_protect), so the state after a read cannot
 * regenerate it.
 *
 * Sections:
 *   1. state
 *   2. seeding and reseeding (crng_initialize, crng_reseed)
 *   3. blocks and backtrack protection (_extract_crng, _crng_backtrack_protect)
 *   4. the read path (extract_crng_user)
 *   5. control, fork, stats, test hooks
 *
 * Facts (drivers/char/random.c, 4.8-5.17):
 * crng_state {u32 state[16]; init_time; lock}; a node CRNG is initialised
 * from get_random_bytes() with init_time made stale, so its first use
 * reseeds from the primary; crng_reseed() of a node takes one primary block,
 * XORs its first 32 bytes into the node's key and protects the primary with
 * the other 32; the lock is taken once per 64-byte block; backtrack
 * protection rounds `used` up to a word and takes a fresh block when fewer
 * than 32 bytes are left.
 *
 * Where surand differs: the locks are spin-then-futex (no irq-off
 * spinlocks); the input pool is gen/pool2015.c's; the kernel's
 * arch_get_random_long() XORs into the nonce and key are left out (surand does
 * not trust the CPU's generator by default); RNDRESEEDCRNG's
 * crng_global_init_time becomes a generation counter (surand_reseed()), which
 * a coarse clock cannot make ambiguous.
 * SPDX-License-Identifier: MIT
 */
#include "gen/pool2015.h"

#include <errno.h>
#include <stdlib.h>

/* ==== 1. state ============================================================== */

#define RESEED_NS (300ull * 1000000000ull) /* CRNG_RESEED_INTERVAL */
#define SEED_BYTES 48u                      /* state[4..15]: key, counter, nonce */
#define PRIMARY 0u                          /* index of the primary; node n is 1 + n */
#define MAX_RETRIES 64

/* One CRNG's secret state, 64 bytes, in wipe-on-fork memory. */
struct crng {
	uint32_t key[8];
	uint64_t counter;  /* next block (state[12..13]) */
	uint64_t nonce;    /* state[14..15] */
	uint64_t init_ns;  /* last (re)seed; 0: stale */
	uint32_t valid;    /* enum surand_ready: YES, or EMPTY (never seeded, fork child, dropped page) */
	uint32_t gen;      /* reseed_gen it was last reseeded under */
};
_Static_assert(sizeof(struct crng) == 64, "one cache line per CRNG");

/* Its lock and counters, in ordinary memory (a dropped page keeps them). */
struct crng_ctl {
	struct surand_lock lock;
	uint64_t blocks;   /* under lock */
	uint64_t reseeds;  /* under lock */
	uint8_t pad[SURAND_CACHELINE - sizeof(struct surand_lock) - 16];
} __attribute__((aligned(SURAND_CACHELINE)));

static struct crng *st;       /* [1 + nnodes] */
static struct crng_ctl *ctl;  /* [1 + nnodes] */
static unsigned nnodes;
static uint32_t reseed_gen = 1; /* surand_reseed() and fork: every CRNG reseeds */
static __thread unsigned tls_last __attribute__((tls_model("initial-exec")));

static int crng_block(unsigned c, uint8_t out[64]);

/* ==== 2. seeding and reseeding ============================================== */

/* Material from the one above: the input pool for the primary, a primary
 * block (whose other half then protects the primary) for a node. */
/* The recursion (source_bytes -> crng_block -> crng_ensure -> source_bytes) is
 * two levels deep at most: a node reads from the primary, and the primary
 * reads from the input pool, never from a CRNG. */
static int source_bytes(unsigned c, uint8_t *out, size_t n) /* NOLINT(misc-no-recursion) */
{
	uint8_t blk[64];
	int r;

	if (c == PRIMARY)
		return surand_p15_input_pull(out, n);
	while (n) {
		size_t k = n < 32 ? n : 32;

		r = crng_block(PRIMARY, blk);
		if (r < 0)
			return r;
		memcpy(out, blk, k);
		/* The primary forgets what it just gave (_crng_backtrack_protect). */
		{
			int cs, i;

			surand_lock(&ctl[PRIMARY].lock, &cs);
			for (i = 0; i < 8; i++)
				st[PRIMARY].key[i] ^= surand_load32_le(blk + 32 + 4 * i);
			surand_unlock(&ctl[PRIMARY].lock, cs);
		}
		out += k;
		n -= k;
	}
	surand_wipe(blk, sizeof(blk));
	return 0;
}

/*
 * crng_initialize() for an unseeded CRNG, crng_reseed() for a stale one:
 * the material is fetched without this CRNG's lock, then applied under it.
 */
static int crng_ensure(unsigned c, uint64_t now) /* NOLINT(misc-no-recursion): see source_bytes */
{
	struct crng *s = &st[c];
	uint8_t m[SEED_BYTES];
	uint32_t gen = __atomic_load_n(&reseed_gen, __ATOMIC_ACQUIRE);
	int r, cs, i, fresh;

	fresh = !surand_ready(__atomic_load_n(&s->valid, __ATOMIC_ACQUIRE));
	if (!fresh && __atomic_load_n(&s->gen, __ATOMIC_RELAXED) == gen &&
	    now - __atomic_load_n(&s->init_ns, __ATOMIC_RELAXED) < RESEED_NS)
		return 0;
	r = source_bytes(c, m, fresh ? SEED_BYTES : 32);
	if (r < 0) {
		surand_wipe(m, sizeof(m));
		/* A seeded CRNG goes on with its old key; an unseeded one fails. */
		return fresh ? r : 0;
	}
	surand_lock(&ctl[c].lock, &cs);
	if (!fresh && !surand_ready(__atomic_load_n(&s->valid, __ATOMIC_RELAXED))) {
		/* Dropped since `fresh` was read: a set-up now, which needs the
		 * whole seed (counter and nonce too; valgrind saw them unset when
		 * the 32 bytes of a reseed were used for one).  Start over. */
		surand_unlock(&ctl[c].lock, cs);
		surand_wipe(m, sizeof(m));
		return crng_ensure(c, now);
	}
	if (!surand_ready(__atomic_load_n(&s->valid, __ATOMIC_RELAXED))) {
		/* Seeded: output may come from this CRNG once the lock is
		 * released (every use of the key is under it).  Set first
		 * ("sealed", as thread.c's slot_seal): a page dropped while the
		 * key is written reads valid 0, never valid over a zero key. */
		__atomic_store_n(&s->valid, SURAND_READY_YES, __ATOMIC_RELAXED);
		SURAND_STORE_FENCE(); /* valid before key (aarch64: dmb ish; x86: TSO) */
		/* The whole state from the material; a node is born stale
		 * (init_time - CRNG_RESEED_INTERVAL - 1), so its first use
		 * reseeds from the primary. */
		for (i = 0; i < 8; i++)
			s->key[i] = surand_load32_le(m + 4 * i);
		memcpy(&s->counter, m + 32, 8);
		memcpy(&s->nonce, m + 40, 8);
		/* The primary is fresh from the input pool; a node is stale. */
		__atomic_store_n(&s->init_ns, c == PRIMARY ? now : 0, __ATOMIC_RELAXED);
		__atomic_store_n(&s->gen, c == PRIMARY ? gen : 0, __ATOMIC_RELAXED);
	} else if (!fresh) {
		/* The old key's entropy stays; the new material is added. */
		for (i = 0; i < 8; i++)
			s->key[i] ^= surand_load32_le(m + 4 * i);
		__atomic_store_n(&s->init_ns, now, __ATOMIC_RELAXED);
		__atomic_store_n(&s->gen, gen, __ATOMIC_RELAXED);
		ctl[c].reseeds++;
	}
	surand_unlock(&ctl[c].lock, cs);
	surand_wipe(m, sizeof(m));
	/* A fresh node now reseeds at once, from the primary. */
	return fresh && c != PRIMARY ? crng_ensure(c, now) : 0;
}

/* ==== 3. blocks and backtrack protection ==================================== */

/* _extract_crng(): reseed if due, then one block under the lock. 0 or -errno. */
static int crng_block(unsigned c, uint8_t out[64]) /* NOLINT(misc-no-recursion): see source_bytes */
{
	struct crng *s = &st[c];
	int r, cs, tries = 0;

	for (;;) {
		r = crng_ensure(c, surand_now_ns());
		if (r < 0)
			return r;
		surand_lock(&ctl[c].lock, &cs);
		surand_chacha20_blocks(s->key, s->counter, s->nonce, out, 1);
		/* A dropped page reads as zeros: the key may have been zeros. */
		SURAND_LOAD_FENCE(); /* block before re-check (aarch64: dmb ishld) */
		if (SURAND_LIKELY(surand_ready(__atomic_load_n(&s->valid, __ATOMIC_RELAXED)))) {
			s->counter++;
			ctl[c].blocks++;
			surand_unlock(&ctl[c].lock, cs);
			return 0;
		}
		surand_unlock(&ctl[c].lock, cs);
		surand_wipe(out, 64);
		if (++tries > MAX_RETRIES)
			return -EAGAIN;
	}
}

/* _crng_backtrack_protect(): 32 unused bytes of output into the key. */
static int crng_protect(unsigned c, uint8_t tmp[64], size_t used)
{
	int r, cs, i;

	used = (used + 3) & ~(size_t)3;
	if (used + 32 > 64) {
		r = crng_block(c, tmp);
		if (r < 0)
			return r;
		used = 0;
	}
	surand_lock(&ctl[c].lock, &cs);
	/* After this, the state no longer regenerates the read's bytes. */
	for (i = 0; i < 8; i++)
		st[c].key[i] ^= surand_load32_le(tmp + used + 4 * i);
	surand_unlock(&ctl[c].lock, cs);
	return 0;
}

/* ==== 4. the read path ====================================================== */

static int nodecrng_fill(void *buf, size_t len)
{
	uint8_t *p = buf, tmp[64];
	unsigned c = 1 + surand_current_node() % nnodes;
	size_t n = 0;
	int r = 0;

	tls_last = c;
	if (len == 0)
		return 0; /* no block read: nothing to fold back (tmp is unset) */
	/* extract_crng_user(): one locked block per 64 bytes. */
	while (len) {
		r = crng_block(c, tmp);
		if (r < 0)
			break;
		n = len < 64 ? len : 64;
		memcpy(p, tmp, n);
		p += n;
		len -= n;
	}
	if (r == 0)
		r = crng_protect(c, tmp, n);
	/* Bytes handed out never stay in memory, nor in vector registers. */
	surand_wipe(tmp, sizeof(tmp));
	surand_scrub_vector_regs();
	return r;
}

/* ==== 5. init, control, fork, stats, test hooks ============================= */

static int nodecrng_init(void)
{
	surand_design_prepare();
	nnodes = surand_node_count();
	st = surand_secmem_once(st, (1 + nnodes) * sizeof(*st));
	ctl = surand_slot_ctl_alloc(ctl, 1 + nnodes, sizeof(*ctl));
	if (!st || !ctl)
		return -ENOMEM;
	surand_slot_ctl_reset(ctl, 1 + nnodes, sizeof(*ctl), SURAND_LOCK_FUTEX);
	return 0;
}

static int nodecrng_reseed(void)
{
	uint8_t m[32];
	int r, cs, i;

	/* RNDRESEEDCRNG: the primary from the input pool now ... */
	r = crng_ensure(PRIMARY, surand_now_ns());
	if (r < 0)
		return r;
	r = surand_p15_input_pull(m, sizeof(m));
	if (r < 0)
		return r;
	surand_lock(&ctl[PRIMARY].lock, &cs);
	for (i = 0; i < 8; i++)
		st[PRIMARY].key[i] ^= surand_load32_le(m + 4 * i);
	__atomic_store_n(&st[PRIMARY].init_ns, surand_now_ns(), __ATOMIC_RELAXED);
	ctl[PRIMARY].reseeds++;
	/* ... and every node from the primary before its next output. */
	__atomic_store_n(&st[PRIMARY].gen, __atomic_add_fetch(&reseed_gen, 1, __ATOMIC_ACQ_REL),
			 __ATOMIC_RELAXED);
	surand_unlock(&ctl[PRIMARY].lock, cs);
	surand_wipe(m, sizeof(m));
	return 0;
}

static void nodecrng_atfork_child(void)
{
	surand_p15_input_atfork_child();
	surand_slot_ctl_reset(ctl, 1 + nnodes, sizeof(*ctl), SURAND_LOCK_FUTEX);
	/* Zero already where wipe-on-fork works; explicit for kind -1: the
	 * child seeds every CRNG anew instead of sharing its parent's. */
	surand_wipe(st, (1 + nnodes) * sizeof(*st));
	__atomic_add_fetch(&reseed_gen, 1, __ATOMIC_RELEASE);
}

/*
 * backend_counters: [0] blocks from node CRNGs, [1] node reseeds from the
 * primary, [2] primary reseeds from the input pool, [3] nodes, [4] lock
 * acquisitions that found a lock held, [5] blocks from the primary.
 */
static void nodecrng_stats(struct surand_stats *st_out)
{
	unsigned i;
	int cs;

	for (i = 0; i <= nnodes; i++) {
		surand_lock(&ctl[i].lock, &cs);
		if (i == PRIMARY) {
			st_out->backend_counters[2] = ctl[i].reseeds;
			st_out->backend_counters[5] = ctl[i].blocks;
		} else {
			st_out->backend_counters[0] += ctl[i].blocks;
			st_out->backend_counters[1] += ctl[i].reseeds;
		}
		surand_unlock(&ctl[i].lock, cs);
		st_out->backend_counters[4] += SURAND_LOAD(ctl[i].lock.contended);
	}
	st_out->backend_counters[3] = nnodes;
}

#ifdef SURAND_TEST_BUILD
static int nodecrng_snapshot(int which, struct surand_test_snapshot *s)
{
	unsigned c;
	int cs, r = -1;

	if (which == SURAND_TEST_SNAP_LAST)
		c = tls_last;
	else if (which == SURAND_TEST_SNAP_PRIMARY)
		c = PRIMARY;
	else if (which >= 0 && (unsigned)which < nnodes)
		c = 1 + (unsigned)which;
	else
		return -1;
	surand_lock(&ctl[c].lock, &cs);
	if (surand_ready(st[c].valid)) {
		s->kind = SURAND_TEST_SNAP_CHACHA;
		s->index = c == PRIMARY ? -1 : (int)c - 1;
		memcpy(s->key, st[c].key, 32);
		s->counter = st[c].counter;
		s->nonce = st[c].nonce;
		s->generation = st[c].gen;
		memcpy(s->extra, &st[c], sizeof(st[c]));
		s->extra_len = sizeof(st[c]);
		r = 0;
	}
	surand_unlock(&ctl[c].lock, cs);
	return r;
}

static void nodecrng_drop(void)
{
	surand_p15_test_drop_input();
	surand_test_drop_slots(st, sizeof(*st), ctl, sizeof(*ctl), 1 + nnodes);
}
#endif

const struct surand_backend surand_backend_nodecrng = SURAND_KERNEL_CRNG_BACKEND(
	nodecrng, "nodecrng",
	"Linux 4.8-5.17: ChaCha20 CRNG per NUMA node, locked, backtrack XOR per read",
	nodecrng_reseed);
