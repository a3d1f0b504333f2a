/*
 * pool2015.c - the 2015 kernel's entropy pools (see pool2015.h): the mix
 * (the algorithm in src/crypto/lfsr2015.[ch], shared with the kernel module,
 * done here word by word with relaxed atomics), the SHA-1 extraction, the
 * process-wide input pool, and the lock-protected nonblocking pool.
 *
 * Sections:
 *   1. mix, hash, fold, extract
 *   2. the input pool
 *   3. the nonblocking pool
 *   4. test hooks
 *
 * Facts, checked against drivers/char/random.c of Linux 4.2 (the mix's own
 * are in lfsr2015.h): extract_buf() runs sha_transform over the pool 16
 * words at a time from sha_init's IV, mixes the 5 hash words back with the
 * lock still held, and folds them to EXTRACT_SIZE (10) bytes;
 * random_min_urandom_seed is 60.
 * SPDX-License-Identifier: MIT
 */
#include "gen/pool2015.h"
#include "crypto/sha1.h"
#include "crypto/lfsr2015.h"
#include "entropy/entropy.h"

#include <errno.h>

/* ==== 1. mix, hash, fold, extract =========================================== */

#define P15_LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define P15_STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)


const uint32_t surand_p15_sha1_iv[5] = {
	0x67452301u, 0xefcdab89u, 0x98badcfeu, 0x10325476u, 0xc3d2e1f0u,
};


#ifdef SURAND_TEST_BUILD
/* surand_test_p15_drop_in_mix: one drop, armed for the next mix of a pool of
 * drop_nwords words, before its input byte drop_at (-1: disarmed). */
static unsigned drop_nwords;
static long drop_at = -1;
static unsigned long drops_done;

unsigned long surand_test_p15_drop_in_mix(unsigned nwords, long before_byte)
{
	__atomic_store_n(&drop_at, -1, __ATOMIC_RELEASE); /* disarmed while changed */
	__atomic_store_n(&drop_nwords, nwords, __ATOMIC_RELAXED);
	if (before_byte >= 0)
		__atomic_store_n(&drop_at, before_byte, __ATOMIC_RELEASE);
	return __atomic_load_n(&drops_done, __ATOMIC_RELAXED);
}

static void p15_test_maybe_drop(struct surand_p15 *p, unsigned nwords, size_t done)
{
	long at = __atomic_load_n(&drop_at, __ATOMIC_ACQUIRE);

	if (SURAND_UNLIKELY(at >= 0) && nwords == __atomic_load_n(&drop_nwords, __ATOMIC_RELAXED) &&
	    (size_t)at == done &&
	    __atomic_compare_exchange_n(&drop_at, &at, -1, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
		memset(p, 0, sizeof(*p)); /* the page reads as zeros, as MAP_DROPPABLE's would */
		__atomic_fetch_add(&drops_done, 1, __ATOMIC_RELAXED);
	}
}
#endif

uint32_t surand_p15_mix_from(struct surand_p15 *p, unsigned nwords, const void *in, size_t nbytes,
			     uint32_t i, uint32_t *rotp, unsigned flags)
{
	/* The mix of src/crypto/lfsr2015.h, word by word with relaxed atomics
	 * (lock-free readers race with it by design) and the test hooks. */
	const struct surand_lfsr15_taps *t =
		nwords == SURAND_P15_IN_WORDS ? &surand_lfsr15_taps_in : &surand_lfsr15_taps_out;
	const uint8_t *bytes = in;
	uint32_t mask = (nwords == SURAND_P15_IN_WORDS ? SURAND_P15_IN_WORDS : SURAND_P15_OUT_WORDS) - 1;
	uint32_t rot = *rotp & 31, w, old, nw;
	/* Ts'o (Ts'o's mail of 12 Oct 2015): "it might be worthwhile to remove the input_rotate". */
	int rotate = !surand_design_config()->p15_no_rotate;
#ifdef SURAND_TEST_BUILD
	size_t done = 0;
#endif

	i &= mask;
	while (nbytes--) {
#ifdef SURAND_TEST_BUILD
		p15_test_maybe_drop(p, nwords, done++);
#endif
		/* NOLINTNEXTLINE(clang-analyzer-core.CallAndMessage): callers pass filled buffers (the analyzer assumes a positive error code) */
		w = surand_lfsr15_input(*bytes++, rot);
		i = (i - 1) & mask;
		old = P15_LOAD(p->words[i]);
		w ^= old;
		w ^= P15_LOAD(p->words[(i + t->t1) & mask]);
		w ^= P15_LOAD(p->words[(i + t->t2) & mask]);
		w ^= P15_LOAD(p->words[(i + t->t3) & mask]);
		w ^= P15_LOAD(p->words[(i + t->t4) & mask]);
		w ^= P15_LOAD(p->words[(i + t->t5) & mask]);
		nw = surand_lfsr15_twisted(w);
		if (flags & SURAND_P15_MIX_ATOMIC_ADD) {
			/* Spelvin's fix: the change is added atomically, so a
			 * concurrent writer's change to this word is not lost. */
			SURAND_BENCH_COUNT_RMW();
			__atomic_fetch_add(&p->words[i], nw - old, __ATOMIC_RELAXED);
		} else {
			P15_STORE(p->words[i], nw);
		}
#ifdef SURAND_TEST_BUILD
		/* Atomic: the lock-free writers of tso2015 count here too. */
		__atomic_fetch_add(&p->writes[i], 1, __ATOMIC_RELAXED);
#endif
		/* 7 bits per word, 14 at the pool's start: successive passes
		 * spread the input bits across the word evenly. */
		if (rotate)
			rot = surand_lfsr15_next_rotate(rot, i);
	}
	*rotp = rot;
	return i;
}

void surand_p15_mix(struct surand_p15 *p, unsigned nwords, const void *in, size_t nbytes)
{
	uint32_t rot = p->input_rotate;

	p->add_ptr = surand_p15_mix_from(p, nwords, in, nbytes, p->add_ptr, &rot, 0);
	p->input_rotate = rot;
}

void surand_p15_hash(const struct surand_p15 *p, unsigned nwords, const uint32_t iv[5],
		     uint32_t h[5])
{
	uint8_t block[SURAND_SHA1_BLOCK_SIZE];
	unsigned i, j;

	memcpy(h, iv, 5 * sizeof(uint32_t));
	for (i = 0; i < nwords; i += 16) {
		for (j = 0; j < 16; j++)
			surand_store32_le(block + 4 * j, P15_LOAD(p->words[i + j]));
		surand_sha1_transform(h, block);
	}
	/* The copy of the pool never outlives the hash. */
	surand_wipe(block, sizeof(block));
}

void surand_p15_hash_bytes(const uint32_t h[5], uint8_t out[SURAND_P15_HASH_BYTES])
{
	int i;

	for (i = 0; i < 5; i++)
		surand_store32_le(out + 4 * i, h[i]);
}

void surand_p15_fold(const uint32_t h[5], uint8_t out[SURAND_P15_EXTRACT_BYTES])
{
	surand_lfsr15_fold(h, out);
}

int surand_p15_extract(struct surand_p15 *p, unsigned nwords, uint8_t out[SURAND_P15_EXTRACT_BYTES])
{
	uint32_t h[5];
	uint8_t hb[SURAND_P15_HASH_BYTES];

	if (!surand_p15_seeded(__atomic_load_n(&p->valid, __ATOMIC_ACQUIRE)))
		return -1;
	surand_p15_hash(p, nwords, surand_p15_sha1_iv, h);
	/* A dropped page reads as zeros: then the hash was of (partly) zeros. */
	SURAND_LOAD_FENCE(); /* the hash's loads before the re-check (aarch64: dmb ishld) */
	if (SURAND_UNLIKELY(!surand_p15_seeded(__atomic_load_n(&p->valid, __ATOMIC_RELAXED)))) {
		surand_wipe(h, sizeof(h));
		return -1;
	}
	surand_p15_hash_bytes(h, hb);
	/* Mixback, with the lock still held: the pool after this extraction
	 * no longer hashes to what it returned (anti-backtracking). */
	surand_p15_mix(p, nwords, hb, sizeof(hb));
	surand_p15_fold(h, out);
	surand_wipe(h, sizeof(h));
	surand_wipe(hb, sizeof(hb));
	return 0;
}

/* ---- the lock-free pools' seeding and salt (salted, tso2015) ------------- */

_Static_assert((SURAND_READY_YES & 1u) && !(SURAND_READY_SEEDING & 1u),
	       "seeded words are odd, the seeding mark even");

static uint32_t p15_seedings; /* atomic; ordinary memory, never dropped */
static uint64_t p15_thread_serials; /* atomic: the last thread serial handed out */
static __thread uint64_t tls_serial __attribute__((tls_model("initial-exec")));
static __thread uint64_t tls_salted __attribute__((tls_model("initial-exec")));
#ifdef SURAND_TEST_BUILD
static __thread uint32_t tls_last_salt[5];
#endif

uint32_t surand_p15_seed_begin(struct surand_p15 *p)
{
	uint32_t v = __atomic_load_n(&p->valid, __ATOMIC_RELAXED);

	if (!surand_p15_seeded(v)) {
		__atomic_store_n(&p->valid, SURAND_READY_SEEDING, __ATOMIC_RELAXED);
		SURAND_STORE_FENCE(); /* the mark before the mix's stores (aarch64: dmb ish) */
	}
	return v;
}

void surand_p15_seed_end(struct surand_p15 *p, uint32_t before)
{
	uint32_t seeding = SURAND_READY_SEEDING, n;

	if (surand_p15_seeded(before))
		return;
	n = __atomic_add_fetch(&p15_seedings, 1, __ATOMIC_RELAXED);
	/* Seeded: readers may hash the pool from now on, unless the page was
	 * dropped during the mix (then valid reads 0 and the CAS fails). */
	(void)__atomic_compare_exchange_n(&p->valid, &seeding, (n << 1) | 1u, 0, __ATOMIC_RELEASE,
					  __ATOMIC_RELAXED); /* mix before seeded */
}

void surand_p15_salted_iv(uint32_t iv[5])
{
	uint32_t salt[5];
	uint64_t ctr;
	int i;

	if (SURAND_UNLIKELY(tls_serial == 0)) {
		/* Once per thread: a serial no other thread of this process line
		 * has (0 is never handed out).  A fork child's thread keeps its
		 * parent's serial and count: the fork generation tells them apart. */
		SURAND_BENCH_COUNT_RMW();
		tls_serial = __atomic_add_fetch(&p15_thread_serials, 1, __ATOMIC_RELAXED);
	}
	ctr = ++tls_salted;
	salt[0] = (uint32_t)tls_serial;
	salt[1] = (uint32_t)(tls_serial >> 32);
	salt[2] = (uint32_t)ctr;
	salt[3] = (uint32_t)(ctr >> 32);
	salt[4] = (uint32_t)surand_fork_generation;
	for (i = 0; i < 5; i++)
		iv[i] = surand_p15_sha1_iv[i] ^ salt[i];
#ifdef SURAND_TEST_BUILD
	memcpy(tls_last_salt, salt, sizeof(salt));
#endif
}

uint32_t surand_p15_salted_begin(const struct surand_p15 *p, uint32_t iv[5])
{
	/* Acquire, paired with surand_p15_seed_end's release CAS: the seeding
	 * mix is visible to the hash (concurrent later mixes may be seen in
	 * part, on x86 as on aarch64: the salt keeps the output unique). */
	uint32_t v = __atomic_load_n(&p->valid, __ATOMIC_ACQUIRE);

	if (surand_p15_seeded(v))
		surand_p15_salted_iv(iv); /* unlike any other reader's hash of this pool */
	return v;
}

int surand_p15_salted_end(const struct surand_p15 *p, uint32_t seeding, uint32_t h[5])
{
	SURAND_LOAD_FENCE(); /* the hash's loads before the re-check (aarch64: dmb ishld) */
	if (SURAND_UNLIKELY(__atomic_load_n(&p->valid, __ATOMIC_RELAXED) != seeding)) {
		surand_wipe(h, 5 * sizeof(h[0])); /* a dropped page: we hashed zeros */
		return -1;
	}
	return 0;
}

#ifdef SURAND_TEST_BUILD
void surand_test_p15_last_salt(uint32_t salt[5])
{
	memcpy(salt, tls_last_salt, sizeof(tls_last_salt));
}
#endif

/* ==== 2. the input pool ===================================================== */

/* The whole pool's worth of kernel bytes at the first seed. */
#define INPUT_SEED_BYTES (SURAND_P15_IN_WORDS * 4)
/* Fresh kernel bytes mixed in before every pull ("events"). */
#define INPUT_EVENT_BYTES 32u
/* Extractions that may find a dropped page before the kernel serves directly. */
#define P15_MAX_RETRIES 64

static struct surand_p15 *in_st;                    /* wipe-on-fork memory */
static struct surand_lock in_lock = SURAND_LOCK_INITIALIZER;
static uint64_t in_pulls;                           /* under in_lock */
static uint64_t in_pooled;                          /* under in_lock: pulls with entropy-pool bytes */

/*
 * MAP_DROPPABLE: a pool's page may read as zeros from any moment on, valid
 * word included.  A pool is therefore marked valid BEFORE the seed is mixed
 * in ("sealed", as base.c and thread.c's slot_seal): a drop during or after
 * the mix reads valid 0 and the pool is re-seeded before any extraction.
 * Marked after the mix instead, a drop in between (or during the mix's last
 * steps) left READY_YES over a pool of zeros or of a few mixed bytes, whose
 * output repeats (tests/test_faults.c droppable, multipool under TSan: 25
 * repeated values).  Every extraction of these pools is under their lock,
 * so no reader sees the sealed word before the mix is done.
 */
static inline void p15_seal(struct surand_p15 *p)
{
	__atomic_store_n(&p->valid, SURAND_READY_YES, __ATOMIC_RELAXED);
	SURAND_STORE_FENCE(); /* the seal before the mix's stores (aarch64: dmb ish) */
}

/* With in_lock held: seeds the pool from the kernel if it is not. */
static int input_ensure_locked(void)
{
	uint8_t seed[INPUT_SEED_BYTES];
	int r;

	in_st = surand_secmem_once(in_st, sizeof(*in_st));
	if (!in_st)
		return -ENOMEM;
	if (surand_p15_seeded(__atomic_load_n(&in_st->valid, __ATOMIC_RELAXED)))
		return 0;
	r = surand_kernel_fill(seed, sizeof(seed), 0);
	if (r == 0) {
		p15_seal(in_st);
		surand_p15_mix(in_st, SURAND_P15_IN_WORDS, seed, sizeof(seed));
	}
	surand_wipe(seed, sizeof(seed));
	return r;
}

int surand_p15_input_pull(uint8_t *out, size_t n)
{
	uint8_t ev[INPUT_EVENT_BYTES], pe[32], tmp[SURAND_P15_EXTRACT_BYTES];
	size_t k;
	int r, cs, tries = 0, pooled;

	/* The input side's sources (src/entropy/): sampled now; when the
	 * entropy pool holds 256 credited bits, 32 bytes of it join the input
	 * pool with this pull (the catastrophic-reseed rule, reseed.c), as the
	 * kernel's events joined its input pool. */
	pooled = surand_entropy_catastrophic(pe, 1);
	surand_lock(&in_lock, &cs);
	r = input_ensure_locked();
	if (r == 0 && surand_kernel_fill(ev, sizeof(ev), 0) == 0)
		surand_p15_mix(in_st, SURAND_P15_IN_WORDS, ev, sizeof(ev));
	if (r == 0 && pooled) {
		surand_p15_mix(in_st, SURAND_P15_IN_WORDS, pe, sizeof(pe));
		in_pooled++;
	}
	surand_wipe(ev, sizeof(ev));
	surand_wipe(pe, sizeof(pe));
	while (r == 0 && n) {
		if (surand_p15_extract(in_st, SURAND_P15_IN_WORDS, tmp) != 0) {
			/* Dropped page: re-seed from the kernel and go on. */
			r = ++tries > P15_MAX_RETRIES ? -EAGAIN : input_ensure_locked();
			continue;
		}
		k = n < sizeof(tmp) ? n : sizeof(tmp);
		memcpy(out, tmp, k);
		out += k;
		n -= k;
	}
	if (r == 0)
		in_pulls++;
	surand_unlock(&in_lock, cs);
	surand_wipe(tmp, sizeof(tmp));
	return r;
}

int surand_p15_input_add(const void *buf, size_t n)
{
	int r, cs;

	surand_lock(&in_lock, &cs);
	r = input_ensure_locked();
	if (r == 0)
		surand_p15_mix(in_st, SURAND_P15_IN_WORDS, buf, n);
	surand_unlock(&in_lock, cs);
	return r;
}

void surand_p15_input_atfork_child(void)
{
	surand_lock_init(&in_lock, SURAND_LOCK_FUTEX);
	/* Zero already where wipe-on-fork works; explicit for kind -1: the
	 * child re-seeds from the kernel instead of sharing its parent's pool. */
	if (in_st)
		surand_wipe(in_st, sizeof(*in_st));
	in_pulls = in_pooled = 0;
}

void surand_p15_design_atfork_child(struct surand_lock *lock, void *secret, size_t len,
				    uint64_t *next_pull_ns)
{
	surand_p15_input_atfork_child();
	surand_lock_init(lock, SURAND_LOCK_FUTEX);
	/* Zero already where wipe-on-fork works; explicit for kind -1: the
	 * child re-seeds rather than share its parent's pool. */
	if (secret)
		surand_wipe(secret, len);
	__atomic_store_n(next_pull_ns, 0, __ATOMIC_RELAXED);
}

void surand_p15_input_counts(uint64_t *pulls, uint64_t *pooled)
{
	int cs;

	surand_lock(&in_lock, &cs);
	*pulls = in_pulls;
	*pooled = in_pooled;
	surand_unlock(&in_lock, cs);
}

/* ==== 3. the nonblocking pool =============================================== */

/* A pull moves the kernel's largest transfer: OUTPUT_POOL_WORDS words. */
#define NB_PULL_BYTES (SURAND_P15_OUT_WORDS * 4)

int surand_nbpool_init(struct surand_nbpool *nb, enum surand_lock_kind kind)
{
	surand_lock_init(&nb->lock, kind);
	nb->st = surand_secmem_once(nb->st, sizeof(*nb->st));
	if (!nb->st)
		return -ENOMEM;
	__atomic_store_n(&nb->next_pull_ns, 0, __ATOMIC_RELAXED);
	return 0;
}

/* _xfer_secondary_pool(): input pool -> this pool, outside this pool's lock. */
static int nbpool_pull(struct surand_nbpool *nb, uint64_t now)
{
	uint8_t tmp[NB_PULL_BYTES];
	int r, cs;

	r = surand_p15_input_pull(tmp, sizeof(tmp));
	if (r < 0) {
		surand_wipe(tmp, sizeof(tmp));
		return r;
	}
	surand_lock(&nb->lock, &cs);
	/* Seeded: output may come from this pool once the lock is released
	 * (sealed first: see p15_seal). */
	p15_seal(nb->st);
	surand_p15_mix(nb->st, SURAND_P15_OUT_WORDS, tmp, sizeof(tmp));
	__atomic_store_n(&nb->next_pull_ns, now + SURAND_P15_PULL_INTERVAL_NS, __ATOMIC_RELAXED);
	nb->pulls++;
	nb->bytes_mixed += sizeof(tmp);
	surand_unlock(&nb->lock, cs);
	surand_wipe(tmp, sizeof(tmp));
	return 0;
}

/*
 * The read loop of every 2015 design: 10 bytes per extraction; an extraction
 * that finds the pool unseeded (never seeded, a fork child, a dropped page)
 * pulls first and tries again, and after P15_MAX_RETRIES the kernel serves
 * the rest.  A pull that is due (at most every 60 s, at the start of a read:
 * xfer_secondary_pool()) comes first; its failure keeps the seeded pool.
 */
int surand_p15_read(uint8_t *buf, size_t len, const uint64_t *next_pull_ns, void *ctx,
		    int (*extract)(void *ctx, uint8_t out[SURAND_P15_EXTRACT_BYTES]),
		    int (*pull)(void *ctx, uint64_t now_ns))
{
	uint8_t tmp[SURAND_P15_EXTRACT_BYTES];
	uint64_t now = surand_now_ns();
	size_t n;
	int r, tries = 0;

	if (now >= __atomic_load_n(next_pull_ns, __ATOMIC_RELAXED))
		(void)pull(ctx, now);
	while (len) {
		if (SURAND_UNLIKELY(extract(ctx, tmp) != 0)) {
			if (++tries > P15_MAX_RETRIES)
				return surand_kernel_fill(buf, len, 0);
			r = pull(ctx, surand_now_ns());
			if (r < 0)
				return r;
			continue;
		}
		n = len < sizeof(tmp) ? len : sizeof(tmp);
		memcpy(buf, tmp, n);
		buf += n;
		len -= n;
	}
	/* Bytes handed out never stay in memory. */
	surand_wipe(tmp, sizeof(tmp));
	return 0;
}

static int nbpool_extract_cb(void *ctx, uint8_t out[SURAND_P15_EXTRACT_BYTES])
{
	struct surand_nbpool *nb = ctx;
	int r, cs;

	surand_lock(&nb->lock, &cs);
	r = surand_p15_extract(nb->st, SURAND_P15_OUT_WORDS, out);
	if (r == 0) {
		nb->extractions++;
		nb->bytes_mixed += SURAND_P15_HASH_BYTES;
	}
	surand_unlock(&nb->lock, cs);
	return r;
}

static int nbpool_pull_cb(void *ctx, uint64_t now_ns)
{
	return nbpool_pull(ctx, now_ns);
}

int surand_nbpool_read(struct surand_nbpool *nb, uint8_t *buf, size_t len)
{
	return surand_p15_read(buf, len, &nb->next_pull_ns, nb, nbpool_extract_cb, nbpool_pull_cb);
}

int surand_nbpool_reseed(struct surand_nbpool *nb)
{
	return nbpool_pull(nb, surand_now_ns());
}

void surand_nbpool_atfork_child(struct surand_nbpool *nb)
{
	surand_lock_init(&nb->lock, (enum surand_lock_kind)nb->lock.kind);
	/* Zero already where wipe-on-fork works; explicit for kind -1. */
	if (nb->st)
		surand_wipe(nb->st, sizeof(*nb->st));
	__atomic_store_n(&nb->next_pull_ns, 0, __ATOMIC_RELAXED);
	nb->extractions = nb->pulls = nb->bytes_mixed = 0;
}

/* ==== 4. test hooks ========================================================= */
#ifdef SURAND_TEST_BUILD
void surand_p15_test_copy(const struct surand_p15 *p, struct surand_test_snapshot *s)
{
	unsigned i;

	s->kind = SURAND_TEST_SNAP_POOL;
	s->nwords = SURAND_P15_OUT_WORDS;
	for (i = 0; i < SURAND_P15_OUT_WORDS; i++)
		s->pool[i] = P15_LOAD(p->words[i]);
	s->add_ptr = P15_LOAD(p->add_ptr);
	s->input_rotate = P15_LOAD(p->input_rotate);
}

int surand_p15_test_writes(const struct surand_p15 *p, uint64_t *counts, uint32_t nwords)
{
	uint32_t i;

	if (!p || nwords > SURAND_P15_OUT_WORDS)
		return -1;
	for (i = 0; i < nwords; i++)
		counts[i] = P15_LOAD(p->writes[i]);
	return 0;
}

int surand_nbpool_snapshot(struct surand_nbpool *nb, struct surand_test_snapshot *s)
{
	int cs, r = -1;

	if (!nb->st)
		return -1;
	surand_lock(&nb->lock, &cs);
	if (surand_p15_seeded(__atomic_load_n(&nb->st->valid, __ATOMIC_RELAXED))) {
		surand_p15_test_copy(nb->st, s);
		r = 0;
	}
	surand_unlock(&nb->lock, cs);
	return r;
}

void surand_p15_test_drop_input(void)
{
	int cs;

	surand_lock(&in_lock, &cs);
	if (in_st)
		memset(in_st, 0, sizeof(*in_st));
	surand_unlock(&in_lock, cs);
}

void surand_nbpool_test_drop(struct surand_nbpool *nb)
{
	int cs;

	surand_lock(&nb->lock, &cs);
	if (nb->st)
		memset(nb->st, 0, sizeof(*nb->st));
	surand_unlock(&nb->lock, cs);
}

int surand_nbpool_writes(struct surand_nbpool *nb, uint64_t *counts, uint32_t nwords)
{
	return surand_p15_test_writes(nb->st, counts, nwords);
}
#endif
