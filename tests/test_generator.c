/*
 * test_generator.c - the default generator (`thread`) and the public API.
 *
 * Cases that need a fresh library state (first seeding, fault injection,
 * deterministic mode) run in a forked child via t_in_child().
 * SPDX-License-Identifier: MIT
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include "gen/backend.h"
#include "gen/thread_fast.h" /* struct slot: the default design's layout */
#include "harness.h"
#include "test_hooks.h"

/* ---- helpers --------------------------------------------------------------- */

static int cmp16(const void *a, const void *b)
{
	return memcmp(a, b, 16);
}

static int cmp32(const void *a, const void *b)
{
	return memcmp(a, b, 32);
}

static int cmp8(const void *a, const void *b)
{
	return memcmp(a, b, 8);
}

/* Index of the first of two equal records (8, 16 or 32 bytes) after sorting, or -1. */
static long find_dup(void *recs, size_t n, size_t size)
{
	size_t i;

	qsort(recs, n, size, size == 8 ? cmp8 : size == 16 ? cmp16 : cmp32);
	for (i = 1; i < n; i++)
		if (memcmp((char *)recs + (i - 1) * size, (char *)recs + i * size, size) == 0)
			return (long)i;
	return -1;
}

static struct surand_stats stats_now(void)
{
	struct surand_stats st;

	surand_stats(&st, sizeof(st));
	return st;
}

/* Does any 8-byte window of needle occur anywhere in hay? */
static int shares_window(const uint8_t *hay, size_t hn, const uint8_t *needle, size_t nn)
{
	size_t i, j;

	for (j = 0; j + 8 <= nn; j += 8)
		for (i = 0; i + 8 <= hn; i++)
			if (memcmp(hay + i, needle + j, 8) == 0)
				return 1;
	return 0;
}

/* ---- known answers in deterministic mode -----------------------------------
 * An independent model of the construction, written from the design in
 * src/gen/thread.c and base.c, against the library's output.
 */
#define M_NONCE_DET 0x7465737464657465ull
#define M_NONCE_RESEED 0x6465657365722d62ull
#define M_NONCE_DERIVE 0x6576697265642d62ull
#define M_NONCE_DIRECT 0x7463657269642d75ull

struct model {
	uint32_t det_key[8];
	uint64_t det_pos;
	uint32_t base[8];
	uint32_t tkey[8];
	uint8_t batch[4096];
	unsigned pos;
};

/* The batch: all of the thread slot but its 64-byte header (thread.c, section 1). */
static unsigned m_batch_bytes(void)
{
	size_t size = 0;

	(void)surand_test_thread_slot(&size);
	return (unsigned)size - 64;
}

static void m_block(const uint32_t key[8], uint64_t ctr, uint64_t nonce, uint8_t *out, size_t n)
{
	surand_chacha20_blocks_portable(key, ctr, nonce, out, n);
}

static void m_kernel(struct model *m, uint8_t *out, size_t len)
{
	uint8_t b[64];

	while (len--) {
		m_block(m->det_key, m->det_pos / 64, M_NONCE_DET, b, 1);
		*out++ = b[m->det_pos % 64];
		m->det_pos++;
	}
}

static void m_words(uint32_t w[8], const uint8_t *b)
{
	for (int i = 0; i < 8; i++)
		w[i] = surand_load32_le(b + 4 * i);
}

static void m_refill(struct model *m)
{
	uint8_t s[4096];
	unsigned b = m_batch_bytes();

	m_block(m->tkey, 0, 0, s, (b + 64) / 64);
	memcpy(m->batch, s, b);
	m_words(m->tkey, s + b);
	m->pos = 0;
}

static void m_init(struct model *m, const uint8_t seed[32])
{
	uint8_t k[32], b[64], fold[16];
	uint32_t w[8];
	int i;

	memset(m, 0, sizeof(*m));
	m_words(m->det_key, seed);
	m_kernel(m, k, 32);           /* first seed of the base key */
	m_words(w, k);                /* old key zero: k = seed */
	m_block(w, 0, M_NONCE_RESEED, b, 1);
	m_words(m->base, b);
	m_block(m->base, 0, M_NONCE_DERIVE, b, 1); /* fast key erasure */
	m_words(m->base, b);
	m_words(m->tkey, b + 32);
	m_kernel(m, fold, 16);        /* kernel bytes before the first batch */
	for (i = 0; i < 4; i++)
		m->tkey[i] ^= surand_load32_le(fold + 4 * i);
	m->pos = m_batch_bytes();     /* empty */
}

static void m_bytes(struct model *m, uint8_t *out, size_t len)
{
	if (len >= m_batch_bytes() + 64) { /* thread.c: a slot's length or more */
		uint8_t b[32], tail[64];
		uint32_t once[8];
		size_t whole = len / 64;

		/* The one-use key: the batch's next 32 bytes (a batch with fewer
		 * left is refilled first, the rest overwritten). */
		if (m_batch_bytes() - m->pos < 32)
			m_refill(m);
		m_bytes(m, b, 32);
		m_words(once, b);
		m_block(once, 0, M_NONCE_DIRECT, out, whole);
		if (len % 64) {
			m_block(once, whole, M_NONCE_DIRECT, tail, 1);
			memcpy(out + whole * 64, tail, len % 64);
		}
		return;
	}
	while (len) {
		size_t n;

		if (m->pos >= m_batch_bytes())
			m_refill(m);
		n = m_batch_bytes() - m->pos;
		if (n > len)
			n = len;
		memcpy(out, m->batch + m->pos, n);
		m->pos += (unsigned)n;
		out += n;
		len -= n;
	}
}

static void kat_child(void)
{
	static const size_t seq[] = {100, 2000, 300, 500, 100, 4, 16, 960, 64, 5000, 33, 400, 400,
				     400, 400, 400, 400, 400, 400, 400, 400, 400, 16, 4};
	uint8_t seed[32], got[5000], want[5000];
	struct model m;
	size_t i;

	for (i = 0; i < 32; i++)
		seed[i] = (uint8_t)(0xa0 + i);
	surand_test_INSECURE_deterministic(seed);
	m_init(&m, seed);
	for (i = 0; i < sizeof(seq) / sizeof(seq[0]); i++) {
		surand_bytes(got, seq[i]);
		m_bytes(&m, want, seq[i]);
		T_ASSERT_MSG(memcmp(got, want, seq[i]) == 0, "request %zu (%zu bytes) differs", i,
			     seq[i]);
	}
	/* surand_u32/u64 (served in registers by the backend's word()) and the
	 * inline sizes up to 32 bytes continue the same stream, across refills. */
	for (i = 0; i < 3000; i++) {
		static const size_t sizes[] = {4, 8, 16, 32, 20, 5, 12, 31};
		size_t len = sizes[i % 8];
		uint32_t x;
		uint64_t y;

		if (i % 3 == 0) {
			x = surand_u32();
			memcpy(got, &x, 4);
			len = 4;
		} else if (i % 3 == 1) {
			y = surand_u64();
			memcpy(got, &y, 8);
			len = 8;
		} else {
			surand_bytes(got, len);
		}
		m_bytes(&m, want, len);
		T_ASSERT_MSG(memcmp(got, want, len) == 0, "draw %zu (%zu bytes, %s) differs", i, len,
			     i % 3 == 0 ? "u32" : i % 3 == 1 ? "u64" : "bytes");
	}
}

static void kat_deterministic(void)
{
	t_exec_child("kat", 30);
}

/* Two runs with the same seed agree; different seeds differ. */
static uint8_t det_out[64];
static void det_run(void)
{
	uint8_t seed[32] = {1};
	int fd;

	surand_test_INSECURE_deterministic(seed);
	surand_bytes(det_out, sizeof(det_out));
	fd = open("/dev/null", 1);
	(void)fd;
}

static void deterministic_is_deterministic(void)
{
	uint8_t a[64];
	int p[2];

	T_ASSERT(pipe(p) == 0);
	for (int run = 0; run < 2; run++) {
		pid_t pid = fork();
		if (pid == 0) {
			det_run();
			if (write(p[1], det_out, 64) != 64)
				_exit(2);
			_exit(0);
		}
		waitpid(pid, NULL, 0);
		T_ASSERT(read(p[0], run ? a : det_out, 64) == 64);
	}
	close(p[0]);
	close(p[1]);
	T_ASSERT_MEM_EQ(a, det_out, 64);
}

/* ---- keys: threads, base erasure, backtracking ------------------------------ */

#define KEY_THREADS 16
static uint32_t thread_keys[KEY_THREADS][8];
static uint32_t thread_base_after[KEY_THREADS][8];

static void *key_worker(void *arg)
{
	long i = (long)arg;

	(void)surand_u64();
	surand_test_thread_key(thread_keys[i]);
	return NULL;
}

static void threads_never_share_a_key(void)
{
	pthread_t th[KEY_THREADS];
	uint32_t all[KEY_THREADS + 1][8];
	long i;

	for (i = 0; i < KEY_THREADS; i++)
		T_ASSERT(pthread_create(&th[i], NULL, key_worker, (void *)i) == 0);
	for (i = 0; i < KEY_THREADS; i++)
		pthread_join(th[i], NULL);
	memcpy(all, thread_keys, sizeof(thread_keys));
	T_ASSERT(surand_test_base_key(all[KEY_THREADS]) == 0);
	T_ASSERT_MSG(find_dup(all, KEY_THREADS + 1, 32) < 0, "two threads (or a thread and the base) share a key");
	(void)thread_base_after;
}

static void *one_draw(void *arg)
{
	(void)arg;
	(void)surand_u32();
	return NULL;
}

static void base_key_erased_on_derive(void)
{
	uint32_t before[8], after[8];
	uint8_t block[64];
	pthread_t th;

	(void)surand_u32();
	T_ASSERT(surand_test_base_key(before) == 0);
	T_ASSERT(pthread_create(&th, NULL, one_draw, NULL) == 0);
	pthread_join(th, NULL);
	T_ASSERT(surand_test_base_key(after) == 0);
	T_ASSERT_MSG(memcmp(before, after, 32) != 0, "the base key did not change when a thread keyed");
	/* Nothing derivable forward from the new base key gives the old one back. */
	for (uint64_t nonce = 0; nonce < 2; nonce++) {
		surand_chacha20_blocks_portable(after, 0, nonce ? M_NONCE_DERIVE : M_NONCE_RESEED,
						block, 1);
		T_ASSERT(!shares_window(block, 64, (uint8_t *)before, 32));
	}
}

static void backtracking_from_slot_copy(void)
{
	static const size_t sizes[] = {16, 200, 4096};
	uint8_t out[4096], copy[4096], ks[64 * 17];
	uint32_t key[8];
	size_t slot_size, si;
	void *slot;

	for (si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
		size_t n = sizes[si];

		surand_bytes(out, n);
		slot = surand_test_thread_slot(&slot_size);
		T_ASSERT(slot && slot_size >= 1024 && slot_size <= sizeof(copy));
		memcpy(copy, slot, slot_size); /* the attacker's snapshot */
		/* The returned bytes are nowhere in the state ... */
		T_ASSERT_MSG(!shares_window(copy, slot_size, out, n < 64 ? n - n % 8 : 64),
			     "returned bytes of a %zu-byte call are still in the slot", n);
		/* ... and the key in it regenerates none of them, under every nonce
		 * the design uses. */
		memcpy(key, copy + slot_size - 64, 32);
		for (int v = 0; v < 2; v++) {
			uint64_t nonce = v == 0 ? 0 : M_NONCE_DIRECT;
			surand_chacha20_blocks_portable(key, 0, nonce, ks, 17);
			T_ASSERT_MSG(!shares_window(ks, sizeof(ks), out, n < 64 ? n - n % 8 : 64),
				     "the slot's key regenerates returned bytes (%zu-byte call)", n);
		}
	}
}

/* ---- fork ---------------------------------------------------------------------- */

#define FORK_THREADS 4
#define FORKS_PER_THREAD 125
static int fork_pipe[2];

static void *fork_worker(void *arg)
{
	uint8_t b[32];
	int i;

	(void)arg;
	surand_bytes(b, sizeof(b));
	for (i = 0; i < FORKS_PER_THREAD; i++) {
		pid_t pid = fork();
		if (pid == 0) {
			surand_bytes(b, sizeof(b));
			_exit(write(fork_pipe[1], b, 32) == 32 ? 0 : 3);
		}
		if (pid > 0)
			waitpid(pid, NULL, 0);
		surand_bytes(b, 8); /* the parent keeps drawing meanwhile */
	}
	return NULL;
}

static void fork_children_distinct(void)
{
	enum { N = FORK_THREADS * FORKS_PER_THREAD };
	static uint8_t recs[N + 1][32];
	pthread_t th[FORK_THREADS];
	size_t got = 0;
	ssize_t r;
	int i;

	if (*t_runner_prefix()) {
		/* qemu-user (7.2) can leave a child forked while another thread
		 * runs blocked for good on one of the emulator's own locks. */
		t_skip("fork() from several threads at once under an emulator: its child can "
		       "hang on the emulator's own locks", NULL);
		return;
	}
	T_ASSERT(pipe(fork_pipe) == 0);
	for (i = 0; i < FORK_THREADS; i++)
		T_ASSERT(pthread_create(&th[i], NULL, fork_worker, NULL) == 0);
	for (i = 0; i < FORK_THREADS; i++)
		pthread_join(th[i], NULL);
	close(fork_pipe[1]);
	while (got < N * 32 && (r = read(fork_pipe[0], (uint8_t *)recs + got, N * 32 - got)) > 0)
		got += (size_t)r;
	close(fork_pipe[0]);
	T_ASSERT_EQ_U64(got, N * 32);
	surand_bytes(recs[N], 32); /* the parent's next bytes */
	T_ASSERT_MSG(find_dup(recs, N + 1, 32) < 0, "two fork children (or a child and the parent) repeated 32 bytes");
}

static int stop_reseeder, reseeder_yields;
static void *reseeder(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&stop_reseeder, __ATOMIC_RELAXED)) {
		surand_reseed(); /* holds the base lock again and again */
		/* valgrind runs one thread at a time: without a yield this loop
		 * starved the forking thread (6 s a fork with the portable body) */
		if (reseeder_yields)
			sched_yield();
	}
	return NULL;
}

static void fork_while_base_locked(void)
{
	pthread_t th;
	int i, status, hung = 0;

	int forks = getenv("SURAND_VALGRIND") ? 40 : 200; /* the checker is the point there */

	(void)surand_u32();
	reseeder_yields = getenv("SURAND_VALGRIND") != NULL;
	__atomic_store_n(&stop_reseeder, 0, __ATOMIC_RELAXED);
	T_ASSERT(pthread_create(&th, NULL, reseeder, NULL) == 0);
	for (i = 0; i < forks && !hung; i++) {
		pid_t pid = fork();
		if (pid == 0) {
			alarm(10); /* a deadlock ends as SIGALRM */
			(void)surand_u64();
			surand_reseed();
			(void)surand_u64();
			_exit(0);
		}
		waitpid(pid, &status, 0);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			hung = 1;
	}
	__atomic_store_n(&stop_reseeder, 1, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	T_ASSERT_MSG(!hung, "a child forked during a reseed died or deadlocked (fork %d)", i);
}

/* ---- many threads --------------------------------------------------------------- */

#define DRAW_THREADS 64
#define DRAWS 10000
static uint8_t (*draws)[16];

static void *draw_worker(void *arg)
{
	long t = (long)arg;

	for (int i = 0; i < DRAWS; i++)
		surand_bytes(draws[t * DRAWS + i], 16);
	return NULL;
}

static void sixty_four_threads_no_duplicate(void)
{
	pthread_t th[DRAW_THREADS];
	long t;

	draws = calloc((size_t)DRAW_THREADS * DRAWS, 16);
	T_ASSERT(draws);
	for (t = 0; t < DRAW_THREADS; t++)
		T_ASSERT(pthread_create(&th[t], NULL, draw_worker, (void *)t) == 0);
	for (t = 0; t < DRAW_THREADS; t++)
		pthread_join(th[t], NULL);
	T_ASSERT_MSG(find_dup(draws, (size_t)DRAW_THREADS * DRAWS, 16) < 0,
		     "a 16-byte value repeated among 640,000 draws");
	free(draws);
}

/* ---- reseed schedule ------------------------------------------------------------ */

static void reseed_child(void)
{
	struct surand_stats a, b;
	uint8_t buf[4096];
	uint64_t g0, now;

	(void)surand_u32();
	a = stats_now();
	g0 = surand_base_generation();
	T_ASSERT_EQ_U64(a.reseeds_initial + a.reseeds_fork, 1); /* a fork child's first seed */
	/* Interval: 1 s at first, half the base's age later, capped at 60 s. */
	now = surand_now_ns();
	T_ASSERT_EQ_U64(surand_base_interval_ns(now), 1000000000ull);
	surand_test_clock_advance(2000000000ull); /* 2 s later */
	/* A slot-long request takes a one-use key, which checks the key's age
	 * and the base's schedule whatever is left in the batch. */
	surand_bytes(buf, sizeof(buf));
	surand_bytes(buf, sizeof(buf));
	b = stats_now();
	T_ASSERT_MSG(b.reseeds_timer == a.reseeds_timer + 1, "timer reseeds %llu -> %llu",
		     (unsigned long long)a.reseeds_timer, (unsigned long long)b.reseeds_timer);
	T_ASSERT(surand_base_generation() > g0);
	surand_test_clock_advance(20000000000ull); /* age 22 s: interval 11 s */
	now = surand_now_ns();
	T_ASSERT(surand_base_interval_ns(now) >= 10000000000ull &&
		 surand_base_interval_ns(now) <= 12000000000ull);
	surand_test_clock_advance(1000000000000ull); /* much later: the 60 s ceiling */
	T_ASSERT_EQ_U64(surand_base_interval_ns(surand_now_ns()), 60000000000ull);
	/* Forced reseed bumps the generation and is counted. */
	g0 = surand_base_generation();
	T_ASSERT(surand_reseed() == 0);
	T_ASSERT(surand_base_generation() > g0);
	T_ASSERT_EQ_U64(stats_now().reseeds_forced, 1);
	/* The thread re-keys before its next output. */
	surand_bytes(buf, 4);
	T_ASSERT_EQ_U64(surand_test_thread_generation(), surand_base_generation());
}

static void reseed_schedule(void)
{
	t_in_child(reseed_child, 30);
}

static void ceiling_child(void)
{
	setenv("SURAND_RESEED_SECS", "300", 1);
	surand_test_config_reload();
	T_ASSERT_EQ_U64(surand_config()->reseed_ceiling_s, 300);
	(void)surand_u32();
	surand_test_clock_advance(10000000000000ull);
	T_ASSERT_EQ_U64(surand_base_interval_ns(surand_now_ns()), 300000000000ull);
	setenv("SURAND_RESEED_SECS", "301", 1); /* beyond 300: refused, default kept */
	surand_test_config_reload();
	T_ASSERT_EQ_U64(surand_config()->reseed_ceiling_s, 60);
	setenv("SURAND_RESEED_SECS", "5x", 1);
	surand_test_config_reload();
	T_ASSERT_EQ_U64(surand_config()->reseed_ceiling_s, 60);
	setenv("SURAND_RESEED_SECS", "2", 1);
	surand_test_config_reload();
	T_ASSERT_EQ_U64(surand_base_interval_ns(surand_now_ns()), 2000000000ull);
}

static void reseed_ceiling_env(void)
{
	t_in_child(ceiling_child, 30);
}

/* ---- when a thread re-keys (slot_stale) --------------------------------------------
 * A slot takes a new key from the base when the base generation moved, after
 * 2^24 ChaCha20 blocks (CRANKS_MAX), or when its key is older than the reseed
 * interval.  Each case below holds the generation still, so only the rule it
 * tests can re-key the slot. */

/* Takes the rest of the batch, then one word: exactly one refill.  Returns
 * the calling thread's slot. */
static struct slot *one_refill(void)
{
	static uint8_t rest[4096];
	struct slot *s = surand_test_thread_slot(NULL);

	if (s && s->h.pos < BATCH_BYTES)
		surand_bytes(rest, BATCH_BYTES - s->h.pos);
	(void)surand_u32();
	return surand_test_thread_slot(NULL);
}

/* The first seed, then a scheduled reseed 200 s later: the interval is then
 * at its 60 s ceiling, so no scheduled reseed falls due (and moves the
 * generation) for the next 60 s of the clock. */
static void schedule_at_ceiling(void)
{
	uint8_t buf[4096];

	(void)surand_u32();
	surand_test_clock_advance(200 * 1000000000ull);
	surand_bytes(buf, sizeof(buf)); /* a one-use key: runs the due reseed */
}

static void block_limit_child(void)
{
	struct slot *s;
	uint64_t gen, rekeys;

	schedule_at_ceiling();
	s = one_refill();
	T_ASSERT(s != NULL);
	gen = surand_base_generation();
	rekeys = stats_now().rekeys;
	/* Below the limit: the refill keeps the key, its blocks are counted. */
	s->h.cranks = CRANKS_MAX - 1;
	s = one_refill();
	T_ASSERT_EQ_U64(stats_now().rekeys, rekeys);
	T_ASSERT_EQ_U64(s->h.cranks, CRANKS_MAX - 1 + SLOT_BLOCKS);
	/* Past it: the next refill takes a new key from the base first. */
	s = one_refill();
	T_ASSERT_MSG(stats_now().rekeys == rekeys + 1,
		     "a key that made 2^24 blocks was kept (%llu re-keys, %llu blocks)",
		     (unsigned long long)(stats_now().rekeys - rekeys), (unsigned long long)s->h.cranks);
	T_ASSERT_EQ_U64(s->h.cranks, SLOT_BLOCKS);
	T_ASSERT_EQ_U64(surand_base_generation(), gen); /* the block count alone re-keyed */
	T_ASSERT_EQ_U64(s->h.gen, gen);
}

static void rekey_after_block_limit(void)
{
	t_in_child(block_limit_child, 30);
}

static void interval_child(void)
{
	struct surand_stats a;
	struct slot *s;
	uint64_t gen, cranks;

	schedule_at_ceiling();
	s = one_refill(); /* keyed at the reseed: its key's age starts now */
	T_ASSERT(s != NULL);
	gen = surand_base_generation();
	a = stats_now();
	/* The kernel refuses from now on: a scheduled reseed of the base fails
	 * and keeps the generation, so only the key's age can re-key the slot. */
	surand_test_kernel_fault(SURAND_TEST_KF_ALL_DENIED);
	surand_test_clock_advance(30 * 1000000000ull); /* age 30 s, interval 60 s */
	cranks = s->h.cranks;
	s = one_refill();
	T_ASSERT_EQ_U64(stats_now().rekeys, a.rekeys);
	T_ASSERT_EQ_U64(s->h.cranks, cranks + SLOT_BLOCKS);
	surand_test_clock_advance(31 * 1000000000ull); /* age 61 s */
	s = one_refill();
	T_ASSERT_MSG(stats_now().rekeys == a.rekeys + 1,
		     "a key older than the reseed interval was kept (%llu re-keys)",
		     (unsigned long long)(stats_now().rekeys - a.rekeys));
	T_ASSERT_EQ_U64(s->h.cranks, SLOT_BLOCKS);
	T_ASSERT_EQ_U64(surand_base_generation(), gen);
	T_ASSERT_EQ_U64(stats_now().reseeds_timer, a.reseeds_timer); /* the reseed was refused */
}

static void rekey_after_interval(void)
{
	t_in_child(interval_child, 30);
}

/* Threads refill, re-key and trigger scheduled reseeds while others force
 * reseeds: under TSan this shows every lock-free read of the schedule. */
static void *reseed_storm_worker(void *arg)
{
	uint8_t buf[5000];
	long id = (long)arg;

	for (int i = 0; i < 300; i++) {
		/* one-use keys (5000), batch refills (1000) and small draws */
		surand_bytes(buf, (size_t)(i % 6 == 0 ? 5000 : i % 3 == 0 ? 1000 : 16));
		if (id == 0 && i % 50 == 0)
			surand_test_clock_advance(3000000000ull);
		if (id == 1 && i % 40 == 0 && surand_reseed() != 0)
			return (void *)1;
	}
	return NULL;
}

static void reseed_storm_child(void)
{
	pthread_t th[4];
	struct surand_stats st;

	for (long i = 0; i < 4; i++)
		T_ASSERT(pthread_create(&th[i], NULL, reseed_storm_worker, (void *)i) == 0);
	for (int i = 0; i < 4; i++) {
		void *ret = NULL;
		pthread_join(th[i], &ret);
		T_ASSERT_MSG(ret == NULL, "surand_reseed() failed in thread %d", i);
	}
	st = stats_now();
	T_ASSERT(st.reseeds_timer >= 1 && st.reseeds_forced >= 1);
}

static void reseeds_while_threads_draw(void)
{
	t_in_child(reseed_storm_child, 60);
}

/* ---- signals -------------------------------------------------------------------- */

#define SIG_RING 8192
static uint8_t sig_vals[SIG_RING][16];
static volatile sig_atomic_t sig_n;

/* A 16-byte record: from surand_bytes, or (odd i) from two surand_u64 calls,
 * the backend's word() path. */
static void sig_draw(uint8_t rec[16], size_t i)
{
	uint64_t a, b;

	if (i & 1) {
		a = surand_u64();
		b = surand_u64();
		memcpy(rec, &a, 8);
		memcpy(rec + 8, &b, 8);
	} else {
		surand_bytes(rec, 16);
	}
}

static void on_alarm(int sig)
{
	(void)sig;
	if (sig_n < SIG_RING) {
		sig_draw(sig_vals[sig_n], (size_t)sig_n);
		sig_n++;
	}
}

/* Static, so a failed assertion cannot leak it: under valgrind a leak in the parent
 * is reported again by every later forked child and fails those cases too. */
enum { SIG_MAIN_N = 200000 };
static uint8_t sig_all[SIG_MAIN_N + SIG_RING][16];

static void signal_reentrancy(void)
{
	struct itimerval it = {{0, 50}, {0, 50}};
	struct sigaction sa;
	size_t i, n;
	uint64_t nested;
	double t_end;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	sig_n = 0;
	nested = stats_now().fallback_signal;
	/* Bounded by time, not by calls: valgrind delivers signals far more slowly
	 * per call than a native run, so the same call count gets fewer of them. */
	t_end = t_now_s() + 120.0;
	setitimer(ITIMER_REAL, &it, NULL);
	for (i = 0; i < SIG_MAIN_N || sig_n < 2000; i++) {
		sig_draw(sig_all[i % SIG_MAIN_N], i);
		if ((i & 4095) == 0 && t_now_s() > t_end)
			break;
	}
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
	signal(SIGALRM, SIG_IGN); /* a signal still in flight (valgrind delivers late) must not kill */
	n = sig_n;
	T_ASSERT_MSG(n >= 2000, "only %zu signals arrived in 120 s", n);
	memcpy(sig_all + SIG_MAIN_N, sig_vals, n * 16);
	/* 8-byte granularity: a u64 the handler shared with the interrupted call
	 * shows even when the rest of the records differ. */
	T_ASSERT_MSG(find_dup(sig_all, 2 * (SIG_MAIN_N + n), 8) < 0,
		     "a handler and the main loop returned the same bytes");
	T_ASSERT_MSG(stats_now().fallback_signal > nested,
		     "no handler call was nested in a surand call (nothing tested)");
}

/* ---- bad input and failure -------------------------------------------------------- */

static void getrandom_bad_input(void)
{
	uint8_t b[300];

	errno = 0;
	T_ASSERT(surand_getrandom(b, 16, 0x8) == -1 && errno == EINVAL);
	errno = 0;
	T_ASSERT(surand_getrandom(b, 16, SURAND_GRND_INSECURE | SURAND_GRND_RANDOM) == -1 &&
		 errno == EINVAL);
	errno = 0;
	T_ASSERT(surand_getrandom(NULL, 16, 0) == -1 && errno == EFAULT);
	T_ASSERT(surand_getrandom(NULL, 0, 0) == 0);
	T_ASSERT(surand_getrandom(b, 0, 0) == 0);
	T_ASSERT(surand_getrandom(b, 16, SURAND_GRND_NONBLOCK) == 16);
	T_ASSERT(surand_getrandom(b, 16, SURAND_GRND_RANDOM) == 16);
	T_ASSERT(surand_getrandom(b, 16, SURAND_GRND_INSECURE) == 16);
	errno = 0;
	T_ASSERT(surand_getentropy(b, 257) == -1 && errno == EIO);
	errno = 0;
	T_ASSERT(surand_getentropy(NULL, 16) == -1 && errno == EFAULT);
	T_ASSERT(surand_getentropy(b, 256) == 0);
	T_ASSERT(surand_getentropy(b, 0) == 0);
	errno = 0;
	T_ASSERT(surand_set_backend("no-such-design") == -1 && errno == EINVAL);
	errno = 0;
	T_ASSERT(surand_set_backend(NULL) == -1 && errno == EINVAL);
	T_ASSERT(surand_set_backend("thread") == 0); /* already in use: same one is fine */
	errno = 0;
	T_ASSERT(surand_stats(NULL, 100) == -1 && errno == EINVAL);
}

static void not_ready_child(void)
{
	uint8_t b[16];

	surand_test_kernel_fault(SURAND_TEST_KF_NOT_READY);
	errno = 0;
	T_ASSERT(surand_getrandom(b, 16, SURAND_GRND_NONBLOCK) == -1 && errno == EAGAIN);
	/* INSECURE goes to the kernel as is; blocking waits (the real kernel is ready). */
	T_ASSERT(surand_getrandom(b, 16, SURAND_GRND_INSECURE) == 16);
	T_ASSERT(surand_getrandom(b, 16, 0) == 16);
}

static void nonblock_before_ready(void)
{
	t_in_child(not_ready_child, 20);
}

static void urandom_fallback_child(void)
{
	uint8_t a[32], b[32];

	surand_test_kernel_fault(SURAND_TEST_KF_GETRANDOM_ENOSYS);
	surand_bytes(a, 32);
	surand_bytes(b, 32);
	T_ASSERT(memcmp(a, b, 32) != 0);
	T_ASSERT_MSG(stats_now().fallback_urandom >= 1, "the seed did not come from /dev/urandom");
}

static void seccomp_enosys_uses_urandom(void)
{
	t_in_child(urandom_fallback_child, 20);
}

static void denied_child(void)
{
	uint8_t b[16];

	surand_test_kernel_fault(SURAND_TEST_KF_ALL_DENIED);
	errno = 0;
	T_ASSERT(surand_getrandom(b, 16, 0) == -1 && errno != 0);
	errno = 0;
	T_ASSERT(surand_getentropy(b, 16) == -1 && errno != 0);
	/* surand_bytes has no error return: it must abort, never return. */
	fflush(stdout);
	if (fork() == 0) {
		int devnull = open("/dev/null", 1);
		dup2(devnull, 2);
		surand_bytes(b, 16);
		_exit(0); /* reaching this is the failure */
	}
	int status;
	wait(&status);
	T_ASSERT_MSG(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT,
		     "surand_bytes without any seed did not abort (status 0x%x)", status);
}

static void no_seed_fails_closed(void)
{
	t_in_child(denied_child, 20);
}

static void nomem_child(void)
{
	uint8_t a[32] = {0}, zero[32] = {0};

	surand_test_secmem_fail(1); /* the first slab chunk cannot be mapped */
	surand_bytes(a, 32);
	T_ASSERT(memcmp(a, zero, 32) != 0);
	T_ASSERT_EQ_U64(stats_now().fallback_nomem, 1);
	surand_bytes(a, 32); /* the next call gets a slot */
	T_ASSERT(surand_test_thread_slot(NULL) != NULL);
}

static void slab_failure_uses_kernel(void)
{
	t_exec_child("nomem", 20); /* a fresh process: the slab is still empty */
}

static void nowipe_child(void)
{
	/* A kernel without WIPEONFORK: fork is detected by the generation. */
	uint8_t p[32], c[32];
	int fds[2];

	surand_test_secmem_force(-1);
	surand_bytes(p, 32);
	T_ASSERT(pipe(fds) == 0);
	if (fork() == 0) {
		surand_bytes(c, 32);
		_exit(write(fds[1], c, 32) == 32 ? 0 : 1);
	}
	wait(NULL);
	T_ASSERT(read(fds[0], c, 32) == 32);
	surand_bytes(p, 32);
	T_ASSERT_MSG(memcmp(p, c, 32) != 0, "child repeated the parent without WIPEONFORK");
	T_ASSERT_EQ_U64(stats_now().droppable, 0);
}

static void fork_without_wipeonfork(void)
{
	t_in_child(nowipe_child, 20);
}

/* ---- integers --------------------------------------------------------------------- */

/* Pearson's chi-square of k counts that should each be `expected`. */
static double chi_square(const unsigned long *count, size_t k, double expected)
{
	double chi = 0;

	for (size_t i = 0; i < k; i++)
		chi += ((double)count[i] - expected) * ((double)count[i] - expected) / expected;
	return chi;
}

static void uniform_chi_square(void)
{
	/* Critical values of chi-square at p = 0.0001 (df 1, 6, 9, 99), so a
	 * correct generator fails one run in 10,000 per bound. */
	static const struct {
		uint64_t bound;
		double crit;
	} cases[] = {{2, 15.14}, {7, 27.86}, {10, 33.72}, {100, 163.0}};
	enum { N = 200000 };
	static unsigned long count[100];

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		uint64_t b = cases[c].bound;
		double chi;

		memset(count, 0, sizeof(count));
		for (int i = 0; i < N; i++) {
			uint64_t v = surand_uniform(b);
			T_ASSERT(v < b);
			count[v]++;
		}
		chi = chi_square(count, b, (double)N / (double)b);
		T_ASSERT_MSG(chi < cases[c].crit, "bound %llu: chi-square %.2f >= %.2f",
			     (unsigned long long)b, chi, cases[c].crit);
	}
	T_ASSERT(surand_uniform(0) == 0 && surand_uniform(1) == 0);
}

static void uniform_rejection_rate(void)
{
	/* For bound 2^63+1, 2^64 mod bound = 2^63 - 1: about half the draws are
	 * rejected, so a call takes 2 draws on average. */
	enum { N = 20000 };
	uint64_t b = (1ull << 63) + 1, c0, c1, hi = 0;
	double rate;

	c0 = stats_now().calls;
	for (int i = 0; i < N; i++)
		if (surand_uniform(b) >= (1ull << 62))
			hi++;
	c1 = stats_now().calls;
	rate = 1.0 - (double)N / (double)(c1 - c0);
	T_ASSERT_MSG(rate > 0.45 && rate < 0.55, "rejection rate %.3f, expected ~0.5", rate);
	/* Accepted values are uniform: those >= 2^62 are half of them. */
	T_ASSERT_MSG(hi > N * 0.48 && hi < N * 0.52, "%llu of %d above 2^62", (unsigned long long)hi, N);
}

/*
 * surand_uniform_n rejects what a plain multiply would bias.  Bound 3 * 2^62:
 * the high half of word * bound is floor(3 * word / 4), so without rejection
 * the values fall into the classes mod 3 as 1/2, 1/4, 1/4; the words rejected
 * (2^64 mod bound = 2^62 of them, the multiples of 4) are exactly the excess,
 * and what is kept is uniform.  Chi-square (df 2) at p = 0.0001: 18.42.
 */
static void uniform_n_rejects_bias(void)
{
	enum { N = 30000 };
	static uint64_t v[N];
	const uint64_t b = 3ull << 62;
	unsigned long cls[3] = {0, 0, 0};
	double chi;

	surand_uniform_n(v, N, b);
	for (int i = 0; i < N; i++) {
		T_ASSERT(v[i] < b);
		cls[v[i] % 3]++;
	}
	chi = chi_square(cls, 3, (double)N / 3);
	T_ASSERT_MSG(chi < 18.42, "classes mod 3: %lu %lu %lu (chi-square %.1f)", cls[0], cls[1],
		     cls[2], chi);
}

/* Small bounds: every value as often as the others (as uniform_chi_square),
 * from calls of several sizes; bound 0 and 1 give zeros. */
static void uniform_n_chi_square_and_zeros(void)
{
	enum { N = 200000 };
	static uint64_t v[N];
	static const struct {
		uint64_t bound;
		double crit;
	} cases[] = {{2, 15.14}, {7, 27.86}, {100, 163.0}};
	unsigned long count[100];

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		uint64_t b = cases[c].bound;
		double chi;

		/* 1, 7, 1000 and the rest: short calls, and one past a 64 KiB chunk */
		surand_uniform_n(v, 1, b);
		surand_uniform_n(v + 1, 7, b);
		surand_uniform_n(v + 8, 1000, b);
		surand_uniform_n(v + 1008, N - 1008, b);
		memset(count, 0, sizeof(count));
		for (int i = 0; i < N; i++) {
			T_ASSERT(v[i] < b);
			count[v[i]]++;
		}
		chi = chi_square(count, b, (double)N / (double)b);
		T_ASSERT_MSG(chi < cases[c].crit, "bound %llu: chi-square %.2f >= %.2f",
			     (unsigned long long)b, chi, cases[c].crit);
	}
	for (uint64_t b = 0; b <= 1; b++) {
		memset(v, 0xa5, 64 * sizeof(v[0]));
		surand_uniform_n(v, 63, b);
		for (int i = 0; i < 63; i++)
			T_ASSERT_MSG(v[i] == 0, "bound %llu: word %d is not 0", (unsigned long long)b, i);
		T_ASSERT_MSG(v[63] == 0xa5a5a5a5a5a5a5a5ull, "bound %llu: wrote past n", (unsigned long long)b);
	}
}

/* surand_double: k / 2^53 for a 53-bit k, every one of its bits in use. */
static void doubles_have_53_bits(void)
{
	uint64_t seen = 0;

	for (int i = 0; i < 256; i++) {
		double d = surand_double(), k = d * 0x1p53;

		T_ASSERT_MSG(k == (double)(uint64_t)k, "%a is not a multiple of 2^-53", d);
		seen |= (uint64_t)k;
	}
	/* Each bit is 0 in all 256 draws with probability 2^-256. */
	T_ASSERT_MSG(seen == (1ull << 53) - 1, "bits used: %#llx", (unsigned long long)seen);
}

static void doubles_in_unit_interval(void)
{
	double s = 0;
	for (int i = 0; i < 100000; i++) {
		double d = surand_double();
		T_ASSERT(d >= 0.0 && d < 1.0);
		s += d;
	}
	T_ASSERT(s / 100000 > 0.49 && s / 100000 < 0.51);
}

/* ---- hygiene ------------------------------------------------------------------------ */

static void *slot_reporter(void *arg)
{
	void **out = arg;
	(void)surand_u64();
	*out = surand_test_thread_slot(NULL);
	return NULL;
}

static void thread_exit_wipes_slot(void)
{
	static const uint8_t zero[1024];
	pthread_t th;
	void *slot = NULL;
	uint64_t in_use;

	(void)surand_u32();
	in_use = stats_now().slots_in_use;
	T_ASSERT(pthread_create(&th, NULL, slot_reporter, &slot) == 0);
	pthread_join(th, NULL);
	T_ASSERT(slot != NULL);
	T_ASSERT_MSG(memcmp(slot, zero, sizeof(zero)) == 0, "an exited thread's slot was not wiped");
	T_ASSERT_EQ_U64(stats_now().slots_in_use, in_use);
}

static void slot_pages_wipe_on_fork_no_dump(void)
{
	char line[512], flags[512] = "";
	uintptr_t a, s, e;
	int in = 0;
	FILE *f;

	if (t_wipeonfork_ignored_skip())
		return;
	(void)surand_u32();
	a = (uintptr_t)surand_test_thread_slot(NULL);
	T_ASSERT(a);
	f = fopen("/proc/self/smaps", "r");
	T_ASSERT(f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &s, &e) == 2 && strchr(line, ':') &&
		    strncmp(line, "VmFlags", 7) != 0 && line[0] != ' ')
			in = a >= s && a < e;
		else if (in && strncmp(line, "VmFlags:", 8) == 0)
			snprintf(flags, sizeof(flags), "%s", line);
	}
	fclose(f);
	T_ASSERT_MSG(strstr(flags, " wf") && strstr(flags, " dd"), "slot VmFlags lack wf/dd: %s", flags);
	if (stats_now().droppable)
		T_ASSERT_MSG(strstr(flags, " dp"), "droppable claimed but VmFlags lack dp: %s", flags);
}

static void large_and_split_requests(void)
{
	static uint8_t a[1 << 16], b[1 << 16];
	static const uint8_t zero[64];

	surand_bytes(a, sizeof(a));
	surand_bytes(b, sizeof(b));
	T_ASSERT(memcmp(a, b, sizeof(a)) != 0);
	for (size_t off = 0; off + 64 <= sizeof(a); off += 4096)
		T_ASSERT(memcmp(a + off, zero, 64) != 0);
	/* Every length 1..1100 is filled entirely (the last byte is written). */
	for (size_t n = 1; n <= 1100; n++) {
		int hit = 0;
		for (int k = 0; k < 4 && !hit; k++) {
			a[n - 1] = 0xA5;
			surand_bytes(a, n);
			hit = a[n - 1] != 0xA5;
		}
		T_ASSERT_MSG(hit, "last byte of a %zu-byte request never written", n);
	}
}

static void *word_drawer(void *arg)
{
	(void)arg;
	for (int i = 0; i < 500; i++) {
		(void)surand_u32();
		(void)surand_u64();
	}
	return NULL;
}

static void stats_fields(void)
{
	struct surand_stats st, small;
	uint64_t c0;

	(void)surand_u32();
	st = stats_now();
	c0 = st.calls;
	(void)surand_u32();
	st = stats_now();
	T_ASSERT_EQ_U64(st.calls, c0 + 1);
	/* Every kind of draw counts its call and its bytes: u32/u64 (counted by
	 * size in thread_word), the inline sizes, the copy path, a one-use key. */
	{
		uint64_t b0 = st.bytes;
		uint8_t buf[5000];
		int i;

		c0 = st.calls;
		for (i = 0; i < 1000; i++) {
			(void)surand_u32();
			(void)surand_u64();
		}
		surand_bytes(buf, 16);
		surand_bytes(buf, 100);
		surand_bytes(buf, 5000);
		st = stats_now();
		T_ASSERT_EQ_U64(st.calls, c0 + 2003);
		T_ASSERT_EQ_U64(st.bytes, b0 + 12000 + 5116);
		/* A thread's draws stay counted after it exits. */
		pthread_t th;

		c0 = st.calls;
		b0 = st.bytes;
		T_ASSERT(pthread_create(&th, NULL, word_drawer, NULL) == 0);
		pthread_join(th, NULL);
		st = stats_now();
		T_ASSERT_EQ_U64(st.calls, c0 + 1000);
		T_ASSERT_EQ_U64(st.bytes, b0 + 6000);
	}
	T_ASSERT(strcmp(st.backend, "thread") == 0);
	T_ASSERT(surand_chacha20_impl_by_name(st.chacha_impl) != NULL);
	T_ASSERT(st.size == sizeof(st) && st.version == 1);
	T_ASSERT(st.slots_in_use >= 1 && st.threads_seen >= 1);
	/* Size-versioned: an older, shorter struct gets only its prefix. */
	memset(&small, 0xee, sizeof(small));
	T_ASSERT(surand_stats(&small, 40) == 0);
	T_ASSERT(small.size == 40);
	T_ASSERT(((uint8_t *)&small)[40] == 0xee);
}

/* A size below the size and version fields (8 bytes) is EINVAL and writes
 * nothing; 8 gets exactly those two fields. */
static void stats_size_floor(void)
{
	struct surand_stats st;
	const size_t floor = 2 * sizeof(uint32_t);
	size_t size, i;

	for (size = 0; size < floor; size++) {
		memset(&st, 0xee, sizeof(st));
		errno = 0;
		T_ASSERT_MSG(surand_stats(&st, size) == -1 && errno == EINVAL,
			     "surand_stats(st, %zu) did not fail with EINVAL", size);
		for (i = 0; i < sizeof(st); i++)
			T_ASSERT_MSG(((uint8_t *)&st)[i] == 0xee, "size %zu: byte %zu written", size, i);
	}
	memset(&st, 0xee, sizeof(st));
	T_ASSERT(surand_stats(&st, floor) == 0);
	T_ASSERT_EQ_U64(st.size, floor);
	T_ASSERT_EQ_U64(st.version, 1);
	for (i = floor; i < sizeof(st); i++)
		T_ASSERT_MSG(((uint8_t *)&st)[i] == 0xee, "size %zu: byte %zu written", floor, i);
}

static void bad_backend_env_child(void)
{
	struct surand_stats st;

	setenv("SURAND_BACKEND", "no-such-design", 1);
	(void)surand_u32(); /* one line on stderr names the valid designs */
	T_ASSERT(surand_stats(&st, sizeof(st)) == 0);
	T_ASSERT_MSG(strcmp(st.backend, "thread") == 0, "backend %s", st.backend);
	errno = 0;
	/* A design is chosen once: another one cannot replace it now. */
	if (surand_backends[1]) {
		T_ASSERT(surand_set_backend(surand_backends[1]->name) == -1 && errno == EBUSY);
	}
}

static void unknown_backend_env_uses_default(void)
{
	t_exec_child("badenv", 20);
}

static const struct t_child_case child_cases[] = {
	{"badenv", bad_backend_env_child},
	{"kat", kat_child},
	{"nomem", nomem_child},
	{NULL, NULL},
};

/* A reseed of the base makes every slot stale: the next draw re-keys the
 * slot from the new base key, and the slot belongs to the new generation
 * (a batch of the old key is never extended by a refill). */
static void reseed_rekeys_the_slot(void)
{
	struct surand_stats a, b;
	struct slot *s;

	(void)surand_u64();
	s = surand_test_thread_slot(NULL);
	T_ASSERT_MSG(s != NULL, "the default design has no slot");
	a = stats_now();
	T_ASSERT(surand_reseed() == 0);
	(void)surand_u64();
	b = stats_now();
	T_ASSERT_MSG(b.rekeys > a.rekeys, "no re-key after a reseed (rekeys %llu -> %llu)",
		     (unsigned long long)a.rekeys, (unsigned long long)b.rekeys);
	T_ASSERT_EQ_U64(s->h.gen, surand_base_generation());
}

/* fork(): the child knows it is a fork child (fork_generation moves on)
 * and its first draw reseeds as one (reseeds_fork, not reseeds_initial). */
static void fork_child_counts_the_fork(void)
{
	struct surand_stats a, c;
	uint64_t got[3] = {0, 0, 0};
	int fd[2], status;
	pid_t pid;

	(void)surand_u64();
	a = stats_now();
	T_ASSERT(pipe(fd) == 0);
	pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0) {
		(void)surand_u64();
		c = stats_now();
		got[0] = c.fork_generation;
		got[1] = c.reseeds_fork;
		got[2] = c.reseeds_initial;
		_exit(write(fd[1], got, sizeof(got)) == (ssize_t)sizeof(got) ? 0 : 1);
	}
	close(fd[1]);
	T_ASSERT(read(fd[0], got, sizeof(got)) == (ssize_t)sizeof(got));
	close(fd[0]);
	T_ASSERT(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	T_ASSERT_EQ_U64(got[0], a.fork_generation + 1);
	T_ASSERT_EQ_U64(got[1], 1);
	T_ASSERT_EQ_U64(got[2], 0);
}

int main(int argc, char **argv)
{
	t_init(argc, argv);
	t_child_main(argc, argv, child_cases);
	T_RUN(kat_deterministic);
	T_RUN(deterministic_is_deterministic);
	T_RUN(threads_never_share_a_key);
	T_RUN(base_key_erased_on_derive);
	T_RUN(backtracking_from_slot_copy);
	T_RUN(fork_children_distinct);
	T_RUN(fork_while_base_locked);
	T_RUN(sixty_four_threads_no_duplicate);
	T_RUN(reseed_schedule);
	T_RUN(reseed_rekeys_the_slot);
	T_RUN(fork_child_counts_the_fork);
	T_RUN(reseed_ceiling_env);
	T_RUN(rekey_after_block_limit);
	T_RUN(rekey_after_interval);
	T_RUN(reseeds_while_threads_draw);
	T_RUN(signal_reentrancy);
	T_RUN(getrandom_bad_input);
	T_RUN(nonblock_before_ready);
	T_RUN(seccomp_enosys_uses_urandom);
	T_RUN(no_seed_fails_closed);
	T_RUN(slab_failure_uses_kernel);
	T_RUN(fork_without_wipeonfork);
	T_RUN(uniform_chi_square);
	T_RUN(uniform_rejection_rate);
	T_RUN(uniform_n_rejects_bias);
	T_RUN(uniform_n_chi_square_and_zeros);
	T_RUN(doubles_in_unit_interval);
	T_RUN(doubles_have_53_bits);
	T_RUN(thread_exit_wipes_slot);
	T_RUN(slot_pages_wipe_on_fork_no_dump);
	T_RUN(large_and_split_requests);
	T_RUN(stats_fields);
	T_RUN(stats_size_floor);
	T_RUN(unknown_backend_env_uses_default);
	return t_done();
}
