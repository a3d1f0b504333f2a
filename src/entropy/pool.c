/*
 * pool.c - the entropy pool: a BLAKE2s accumulator with a credit estimate.
 *
 * Sections: 1. state; 2. locking and set-up; 3. the lock-free pending path;
 * 4. mix and credit; 5. extraction; 6. fork, stats, test hooks.
 *
 * Mixing is separate from crediting (as in Linux 5.18+): mix hashes bytes into
 * the pool and never changes the estimate; credit adds bits, capped at 256.
 * Extraction is hash-then-expand: BLAKE2s(pool) keys ChaCha20; the first 32
 * bytes of the stream become the key of the new (keyed BLAKE2s) pool state,
 * the rest is output, so the new state is a one-way function of the old and
 * neither the earlier content nor any output can be recovered from it.
 *
 * The state lives in one secmem page (wipe-on-fork, never dumped).  Its
 * nonzero `valid` word says the page is live: a fork child or a dropped
 * MAP_DROPPABLE page reads valid == 0, which means "empty pool, credit 0";
 * the pool is then set up again (lazily) with fresh kernel bytes, so a
 * child's pool never equals its parent's.
 * SPDX-License-Identifier: MIT
 */
#include "entropy/entropy.h"
#include "crypto/blake2s.h"

#include <errno.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

/* ==== 1. state =============================================================== */

#define NONCE_POOL_EXTRACT 0x7463617274786570ull    /* "pextract" */
#define POOL_KERNEL_SEED_BYTES 32u                  /* uncredited, at set-up */
#define POOL_DIRECT_MIX_MAX 64u                     /* longer inputs are hashed outside the lock */
static const char POOL_TAG[] = "surand entropy pool v1";

/*
 * Lock-free pending input (nested calls from signal handlers): keyed digests
 * XORed into pend_words, credit added to pend_credit.  Each digest is keyed by
 * a unique call number, so two equal inputs never cancel.  Both live in the
 * pool's page, as secret as the pool: wiped in every fork child by the kernel
 * (a raw clone() too, which runs no atfork handler), and a dropped page loses
 * the pending data and its credit together.  The page is mapped before any
 * thread raises surand_entropy_nest (lock_pool), so a handler that takes this
 * path always finds it: nothing is allocated there.
 */
struct pool {
	uint32_t valid;    /* enum surand_ready: READY_YES, or READY_EMPTY (0) */
	uint32_t credit;   /* bits credited since the last extraction, 0..256 */
	struct surand_blake2s_state h;
	/* written by signal handlers: a cache line of their own */
	uint32_t pend_words[8] __attribute__((aligned(SURAND_CACHELINE)));
	uint64_t pend_credit; /* 64-bit: never wraps (each call adds <= 256) */
};
_Static_assert(sizeof(struct pool) <= 4096, "the pool fits one page");

static struct pool *pool_v;  /* one secmem page, published once (atomic accesses only) */
static struct pool *pool;    /* the same page, for lock holders (set under pool_lock) */
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t credit_shadow;                   /* pool->credit for lock-free readers */
static uint64_t n_extract;

__thread unsigned surand_entropy_nest __attribute__((tls_model("initial-exec")));

/* Not secret, so in ordinary memory: the fast "anything pending?" check and
 * the digest keys. */
static uint32_t pend_flag;   /* 1: something may be pending */
static uint64_t pend_calls;  /* call numbers (digest keys) */

#ifdef SURAND_TEST_BUILD
#include "test_hooks.h"
#endif

/* ==== 2. locking and set-up ================================================== */

/*
 * The pool's page, mapped at the first use and never unmapped (a fork child
 * keeps the mapping, wiped).  Mapped before any lock is taken and before
 * surand_entropy_nest is raised, so the lock-free path of a signal handler
 * never needs to map it.  NULL: no memory.
 */
static pthread_once_t pool_atfork_once = PTHREAD_ONCE_INIT;

static void pool_atfork_once_fn(void)
{
	if (pthread_atfork(NULL, NULL, surand_pool_atfork_child) != 0)
		surand_warn("entropy: pthread_atfork failed; a fork child may share the pool");
}

static struct pool *pool_page(void)
{
	struct pool *p = __atomic_load_n(&pool_v, __ATOMIC_ACQUIRE), *want = NULL;

	if (SURAND_LIKELY(p != NULL))
		return p;
	pthread_once(&pool_atfork_once, pool_atfork_once_fn); /* before there is state to wipe */
	p = surand_secmem_alloc(sizeof(*p));
	if (!p)
		return NULL;
	if (!__atomic_compare_exchange_n(&pool_v, &want, p, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		surand_secmem_free(p, sizeof(*p)); /* another thread mapped it first */
		p = want;
	}
	return p;
}

/* Only once pool_page() has returned the page. */
static void lock_pool(int *oldstate)
{
	/* No cancellation point may leave the pool lock held. */
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, oldstate);
	/* Raised before the lock: a signal handler that interrupts us from here
	 * on takes the lock-free path instead of deadlocking on our lock. */
	surand_entropy_nest++;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	surand_mutex_lock(&pool_lock);
	if (SURAND_UNLIKELY(!pool))
		pool = __atomic_load_n(&pool_v, __ATOMIC_ACQUIRE); /* mapped: pool_page() */
}

static void unlock_pool(int oldstate)
{
	surand_mutex_unlock(&pool_lock);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	surand_entropy_nest--;
	pthread_setcancelstate(oldstate, NULL);
}

static void set_credit_locked(uint32_t c)
{
	pool->credit = c;
	__atomic_store_n(&credit_shadow, c, __ATOMIC_RELAXED);
}

/* A fresh, empty pool: tag, kernel bytes and (but in deterministic test
 * mode) this process's identity, none of it credited. */
static void pool_setup_locked(void)
{
	uint8_t kb[POOL_KERNEL_SEED_BYTES];
	struct {
		uint64_t pid, fork_gen, mono_ns, real_ns, addr;
	} id;
	struct timespec ts;
	size_t n;

	surand_blake2s_init(&pool->h, SURAND_BLAKE2S_OUT_SIZE);
	surand_blake2s_update(&pool->h, POOL_TAG, sizeof(POOL_TAG));
	/* Fresh kernel bytes: the pool is unpredictable from the start, and a
	 * fork child's pool differs from its parent's. */
	n = surand_kernel_pool_sample(kb, sizeof(kb));
	surand_blake2s_update(&pool->h, kb, n);
	surand_wipe(kb, sizeof(kb));
#ifdef SURAND_TEST_BUILD
	if (!surand_kernel_deterministic())
#endif
	{
		/* Without kernel bytes (CRNG not ready) the child still differs. */
		memset(&id, 0, sizeof(id));
		id.pid = (uint64_t)getpid();
		id.fork_gen = surand_fork_generation;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		id.mono_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
		clock_gettime(CLOCK_REALTIME, &ts);
		id.real_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
		id.addr = (uint64_t)(uintptr_t)pool;
		surand_blake2s_update(&pool->h, &id, sizeof(id));
	}
	set_credit_locked(0);
	pool->valid = SURAND_READY_YES;
}

/* Called with the lock held, the page mapped: makes the pool live. */
static void pool_ready_locked(void)
{
	if (SURAND_UNLIKELY(!surand_ready(pool->valid)))
		pool_setup_locked(); /* never set up, fork child, dropped page: empty, credit 0 */
}

/* ==== 3. the lock-free pending path ========================================== */

static void pend_add(const void *buf, size_t len, unsigned credit_bits)
{
	uint8_t d[32];
	uint64_t call = __atomic_fetch_add(&pend_calls, 1, __ATOMIC_RELAXED);
	struct surand_blake2s_state s;
	struct pool *p = __atomic_load_n(&pool_v, __ATOMIC_ACQUIRE);
	int i;

	/* Only reached while a thread is inside lock_pool(), which it enters
	 * with the page mapped: never NULL (nothing to allocate here). */
	if (SURAND_UNLIKELY(!p))
		return;
	/* Stack and the mapped page only: async-signal-safe. */
	surand_blake2s_init_key(&s, sizeof(d), &call, sizeof(call));
	surand_blake2s_update(&s, buf, len);
	surand_blake2s_final(&s, d);
	/* Sequentially consistent, as the fold: data, then credit, then flag,
	 * so a fold that misses any of it leaves the flag set for the next. */
	for (i = 0; i < 8; i++)
		__atomic_fetch_xor(&p->pend_words[i], surand_load32_le(d + 4 * i), __ATOMIC_SEQ_CST);
	surand_wipe(d, sizeof(d));
	surand_scrub_vector_regs(); /* the digest's copies in the registers */
	if (credit_bits > SURAND_POOL_MAX_CREDIT_BITS)
		credit_bits = SURAND_POOL_MAX_CREDIT_BITS; /* the cap: more is never counted */
	if (credit_bits)
		__atomic_fetch_add(&p->pend_credit, (uint64_t)credit_bits, __ATOMIC_SEQ_CST);
	__atomic_store_n(&pend_flag, 1, __ATOMIC_SEQ_CST);
}

static void pend_fold_locked(void)
{
	uint32_t w[8], any = 0;
	uint64_t c;
	int i;

	if (SURAND_LIKELY(!__atomic_load_n(&pend_flag, __ATOMIC_RELAXED)))
		return;
	/* Flag first, then credit, then data: every credit taken here has its
	 * data in pend_words already; later additions set the flag again. */
	__atomic_exchange_n(&pend_flag, 0, __ATOMIC_SEQ_CST);
	c = __atomic_exchange_n(&pool->pend_credit, 0, __ATOMIC_SEQ_CST);
	for (i = 0; i < 8; i++) {
		w[i] = __atomic_exchange_n(&pool->pend_words[i], 0, __ATOMIC_SEQ_CST);
		any |= w[i];
	}
	/* A page dropped since the credit was read reads valid == 0 now (only
	 * a lock holder sets it): the credit may have lost its data, and the
	 * pool its content.  Empty pool, credit 0. */
	SURAND_LOAD_FENCE();
	if (SURAND_UNLIKELY(!surand_ready(__atomic_load_n(&pool->valid, __ATOMIC_RELAXED)))) {
		surand_wipe(w, sizeof(w));
		pool_setup_locked();
		return;
	}
	if (any)
		surand_blake2s_update(&pool->h, w, sizeof(w));
	surand_wipe(w, sizeof(w));
	if (c) {
		c += pool->credit;
		set_credit_locked(c > SURAND_POOL_MAX_CREDIT_BITS ? SURAND_POOL_MAX_CREDIT_BITS
								  : (uint32_t)c);
	}
}

/* ==== 4. mix and credit ====================================================== */

int surand_pool_add(const void *buf, size_t len, unsigned credit_bits)
{
	uint8_t d[32];
	const void *in = buf;
	size_t inlen = len;
	uint32_t c;
	int st, r;

	if (SURAND_UNLIKELY(surand_entropy_nest)) {
		/* A signal handler inside our own lock: never wait on it. */
		pend_add(buf, len, credit_bits);
		return 0;
	}
	if (len > POOL_DIRECT_MIX_MAX) {
		/* Long input: condensed outside the lock (a 256-bit digest). */
		surand_blake2s(d, sizeof(d), NULL, 0, buf, len);
		/* The digest is also in vector registers now: cleared before any
		 * call into libc (a lazy-binding trampoline saves them all on
		 * the stack, where they would outlive this call). */
		surand_scrub_vector_regs();
		in = d;
		inlen = sizeof(d);
	}
	r = pool_page() ? 0 : -ENOMEM;
	if (r == 0) {
		lock_pool(&st);
		pool_ready_locked();
		pend_fold_locked();
		if (inlen) {
			surand_blake2s_update(&pool->h, in, inlen);
			surand_scrub_vector_regs(); /* the input's copy, before the unlock */
		}
		if (credit_bits) {
			c = pool->credit;
			c = credit_bits >= SURAND_POOL_MAX_CREDIT_BITS - c ? SURAND_POOL_MAX_CREDIT_BITS
									 : c + credit_bits;
			set_credit_locked(c);
		}
		unlock_pool(st);
	}
	if (in == d)
		surand_wipe(d, sizeof(d));
	return r;
}

unsigned surand_pool_credit_bits(void)
{
	return __atomic_load_n(&credit_shadow, __ATOMIC_RELAXED);
}

/* ==== 5. extraction ========================================================== */

static int extract_locked(uint8_t *out, size_t len)
{
	struct surand_blake2s_state tmp;
	uint8_t seed[32], blk[4 * SURAND_CHACHA20_BLOCK_SIZE];
	uint32_t key[8];
	size_t nblocks = (32 + len + SURAND_CHACHA20_BLOCK_SIZE - 1) / SURAND_CHACHA20_BLOCK_SIZE;
	int i;

	pend_fold_locked();
	tmp = pool->h;
	/* Order the copy before the re-check: a dropped page reads valid == 0. */
	SURAND_LOAD_FENCE();
	if (SURAND_UNLIKELY(!surand_ready(__atomic_load_n(&pool->valid, __ATOMIC_RELAXED)) ||
			    tmp.outlen != SURAND_BLAKE2S_OUT_SIZE)) {
		surand_wipe(&tmp, sizeof(tmp));
		pool_setup_locked();
		return -EAGAIN;
	}
	/* Hash: the whole pool condensed to a 256-bit key. */
	surand_blake2s_final(&tmp, seed); /* wipes tmp */
	for (i = 0; i < 8; i++)
		key[i] = surand_load32_le(seed + 4 * i);
	/* Expand: ChaCha20 under that key. */
	surand_chacha20_blocks(key, 0, NONCE_POOL_EXTRACT, blk, nblocks);
	/* Re-key: the new pool is BLAKE2s keyed with the first 32 bytes, a
	 * one-way function of the old content; the old state is gone. */
	surand_blake2s_init_key(&pool->h, SURAND_BLAKE2S_OUT_SIZE, blk, 32);
	if (len)
		memcpy(out, blk + 32, len);
	/* The estimate describes content not yet handed out. */
	set_credit_locked(0);
	surand_wipe(seed, sizeof(seed));
	surand_wipe(key, sizeof(key));
	surand_wipe(blk, sizeof(blk));
	/* The body and the copies leave the pool's next key in vector registers. */
	surand_scrub_vector_regs();
	SURAND_COUNT(n_extract);
	return 0;
}

int surand_pool_extract(uint8_t *out, size_t len)
{
	int st, r;

	if (len > SURAND_POOL_EXTRACT_MAX || (len && !out))
		return -EINVAL;
	if (surand_entropy_nest)
		return -EAGAIN; /* a signal handler inside the pool lock */
	if (!pool_page())
		return -ENOMEM;
	lock_pool(&st);
	pool_ready_locked();
	r = extract_locked(out, len);
	unlock_pool(st);
	return r;
}

int surand_pool_extract_if_credited(uint8_t *out, size_t len, unsigned min_credit)
{
	struct pool *p = __atomic_load_n(&pool_v, __ATOMIC_ACQUIRE);
	int st, r = 0;

	if (len > SURAND_POOL_EXTRACT_MAX || (len && !out))
		return -EINVAL;
	if (surand_entropy_nest || !p)
		return 0; /* a pool never used has no credit */
	/* Cheap check first: most reseeds find too little credit. */
	if (surand_pool_credit_bits() < min_credit && !__atomic_load_n(&p->pend_credit, __ATOMIC_RELAXED))
		return 0;
	lock_pool(&st);
	if (surand_ready(pool->valid)) {
		pend_fold_locked();
		if (pool->credit >= min_credit) {
			r = extract_locked(out, len);
			if (r == 0)
				r = 1;
		}
	}
	unlock_pool(st);
	return r;
}

/* ==== 6. fork, stats, test hooks ============================================= */

void surand_pool_atfork_child(void)
{
	/* Another thread of the parent may have held the lock at fork(). */
	pthread_mutex_init(&pool_lock, NULL);
	/* Already zero where wipe-on-fork works; explicit for kind -1.  The
	 * child's pool restarts empty (credit 0) with fresh kernel bytes: the
	 * parent's credited entropy is never counted twice. */
	pool = __atomic_load_n(&pool_v, __ATOMIC_RELAXED); /* one thread here */
	if (pool)
		surand_wipe(pool, sizeof(*pool)); /* the pending digests too */
	__atomic_store_n(&credit_shadow, 0, __ATOMIC_RELAXED);
	pend_flag = 0;
	pend_calls = 0;
	n_extract = 0;
	surand_entropy_nest = 0;
}

uint64_t surand_pool_extractions(void)
{
	return SURAND_LOAD(n_extract);
}

#ifdef SURAND_TEST_BUILD
int surand_test_entropy_pool_digest(uint8_t out[32])
{
	struct surand_blake2s_state tmp;
	int st;

	if (!pool_page())
		return -ENOMEM;
	lock_pool(&st);
	pool_ready_locked();
	pend_fold_locked();
	/* A one-way fingerprint of the content; the pool is unchanged. */
	tmp = pool->h;
	surand_blake2s_final(&tmp, out);
	unlock_pool(st);
	return 0;
}

const void *surand_test_entropy_pool_area(size_t *len)
{
	struct pool *p = __atomic_load_n(&pool_v, __ATOMIC_ACQUIRE);

	if (len)
		*len = p ? sizeof(p->h) : 0;
	return p ? (const void *)&p->h : NULL;
}

const void *surand_test_entropy_pending_area(size_t *len)
{
	struct pool *p = __atomic_load_n(&pool_v, __ATOMIC_ACQUIRE);

	if (len)
		*len = p ? sizeof(p->pend_words) : 0;
	return p ? (const void *)p->pend_words : NULL;
}
#endif
