/*
 * test_inline.c - the inline word path (surand.h, SURAND_INLINE): this file
 * is compiled with it, so every surand_u32() and surand_u64() below is the
 * program's own inline code reading its thread's batch through ABI 2.  The
 * promises of the call, checked against that code:
 *
 *   served:    a draw the inline code serves returns the batch's bytes at
 *              pos, zeroes them there and moves pos; surand_stats counts it;
 *   no repeat: no value twice, across threads, calls and inline draws;
 *   fork:      a child (fork, _Fork, raw clone; with and without wipe-on-fork
 *              memory) never draws what its parent draws;
 *   signals:   a handler's draw while an inline draw holds the busy mark goes
 *              to the kernel and never takes the interrupted draw's bytes,
 *              with handlers at every instruction boundary of the draw; a
 *              siglongjmp out of the draw is recovered by the next call;
 *   dropped:   a batch page dropped before or during the copy is never
 *              handed out (its zeros): the library refills;
 *   VM clones: a refill the inline path asks for folds fresh kernel bytes in
 *              wherever the library does (stats vdso_fold);
 *   ABI:       a header of another layout is refused, and then every draw
 *              takes the out-of-line call; so does a kernel-only process and
 *              another design.
 * The hook SURAND_INLINE_TEST_POINT (surand.h) runs where = 1 once the mark
 * is held and the batch checked, where = 2 after the copy: its counts say
 * which draws the inline code served, and it raises the signals and drops
 * the page at exactly those points.
 * SPDX-License-Identifier: MIT
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static void inline_tp(int where);
#define SURAND_INLINE_TEST_POINT(where) inline_tp(where)
#define SURAND_INLINE
#include <surand.h>

#include "gen/backend.h"     /* surand_fill_from_key: the one-use key's model */
#include "gen/thread_fast.h" /* struct slot: the library's own view of the page */
#include "harness.h"
#include "step.h"
#include "test_hooks.h"

/* ==== the test point ================================================================ */

static volatile sig_atomic_t tp_hits[3];
static volatile sig_atomic_t tp_armed; /* where the action runs next (once); 0: none */
static void (*tp_action)(void);

static void inline_tp(int where)
{
	__atomic_fetch_add(&tp_hits[where], 1, __ATOMIC_RELAXED); /* threads too */
	if (tp_armed == where) {
		tp_armed = 0;
		tp_action();
	}
}

static struct slot *slot_now(void)
{
	return surand_test_thread_slot(NULL);
}

static struct surand_stats stats_now(void)
{
	struct surand_stats st;

	memset(&st, 0, sizeof(st));
	(void)surand_stats(&st, sizeof(st));
	return st;
}

/* The thread's first draw (its slot, its busy mark registered) and one more. */
static void warm(void)
{
	(void)surand_u64();
	(void)surand_u64();
}

/* Room for n more bytes in the batch (a refill outside the measured draw). */
static void make_room(uint32_t n)
{
	static uint8_t drain[SLOT_BYTES];
	struct slot *s = slot_now();

	if (!s || (s->h.pos <= BATCH_BYTES - n && s->h.gen == surand_test_thread_generation()))
		return;
	if (s->h.pos < BATCH_BYTES)
		surand_bytes(drain, BATCH_BYTES - s->h.pos);
	surand_bytes(drain, 1);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Values that occur twice in v[0..n) (v is sorted). */
static size_t dups(uint64_t *v, size_t n)
{
	size_t d = 0;

	qsort(v, n, sizeof(*v), cmp_u64);
	for (size_t i = 1; i < n; i++)
		d += v[i] == v[i - 1];
	return d;
}

/* ==== served: the batch's bytes, zeroed, counted ===================================== */

#define SERVE_DRAWS 3000u
static uint64_t serve_vals[SERVE_DRAWS];

static void serve_child(void)
{
	struct surand_stats a, b;
	unsigned served = 0, n4 = 0, n8 = 0, nv = 0;
	size_t left = 0;
	struct slot *s;

	warm();
	a = stats_now();
	for (unsigned i = 0; i < SERVE_DRAWS; i++) {
		unsigned n = i % 3 ? 8 : 4;
		uint8_t peek[8];
		uint64_t v;
		uint32_t pos;
		sig_atomic_t h0 = tp_hits[2];
		int room;

		s = slot_now();
		T_ASSERT(s != NULL);
		pos = s->h.pos;
		room = pos <= BATCH_BYTES - n;
		if (room)
			memcpy(peek, s->batch + pos, n);
		if (n == 8) {
			v = surand_u64();
			n8++;
			serve_vals[nv++] = v;
		} else {
			uint32_t x = surand_u32();
			v = x;
			n4++;
		}
		if (tp_hits[2] == h0)
			continue; /* declined: the call served it */
		served++;
		T_ASSERT_MSG(room, "draw %u served with %u bytes left in the batch", i,
			     BATCH_BYTES - pos);
		T_ASSERT_MSG(memcmp(&v, peek, n) == 0, "draw %u: not the batch's bytes at pos %u", i,
			     pos);
		T_ASSERT_MSG(t_all_zero(s->batch + pos, n), "draw %u: bytes handed out stay in the batch",
			     i);
		T_ASSERT_EQ_U64(s->h.pos, pos + n);
	}
	b = stats_now();
	s = slot_now();
	/* Everything handed out since the last refill reads zero... */
	T_ASSERT_MSG(t_all_zero(s->batch, s->h.pos), "handed-out bytes left before pos %u", s->h.pos);
	/* ... and no value drawn is anywhere in the slot. */
	for (size_t off = 0; off + 8 <= SLOT_BYTES; off++)
		for (unsigned j = 0; j < nv; j++)
			left += memcmp((const uint8_t *)s + off, &serve_vals[j], 8) == 0;
	printf("# %u of %u draws served inline, the rest by the call\n", served, SERVE_DRAWS);
	T_ASSERT_MSG(left == 0, "%zu drawn values are still in the slot", left);
	/* Only refills and reseeds decline: one in several hundred draws. */
	T_ASSERT_MSG(served >= SERVE_DRAWS - 60, "only %u of %u draws served inline", served,
		     SERVE_DRAWS);
	T_ASSERT_EQ_U64(b.calls - a.calls, SERVE_DRAWS);
	T_ASSERT_EQ_U64(b.bytes - a.bytes, 4ull * n4 + 8ull * n8);
	/* A reseed moves the base generation: the next draw is declined. */
	for (int n = 4; n <= 8; n += 4) {
		uint64_t gen;
		sig_atomic_t h1;

		make_room(64);
		gen = s->h.gen;
		h1 = tp_hits[1];
		T_ASSERT(surand_reseed() == 0);
		(void)(n == 8 ? surand_u64() : surand_u32());
		T_ASSERT_MSG(tp_hits[1] == h1, "a %d-byte draw after a reseed was served inline", n);
		T_ASSERT(slot_now()->h.gen != gen);
	}
}

/* ==== no repeat: threads, calls and inline draws ===================================== */

#define NR_THREADS 4
static unsigned nr_per_thread(void)
{
	return t_quick() || t_runner_prefix()[0] ? 20000 : 100000;
}
static uint64_t *nr_vals;

static void *nr_thread(void *arg)
{
	size_t t = (size_t)arg, n = nr_per_thread();
	uint64_t *v = nr_vals + t * n, w;

	for (size_t i = 0; i < n; i++) {
		switch (i % 5) {
		case 0:
		case 1:
			v[i] = surand_u64();
			break;
		case 2: /* two inline 32-bit draws */
			v[i] = (uint64_t)surand_u32() << 32;
			v[i] |= surand_u32();
			break;
		case 3:
			v[i] = (surand_u64)(); /* the library's call */
			break;
		default:
			surand_bytes(&w, sizeof(w));
			v[i] = w;
		}
	}
	return NULL;
}

static void no_repeat_child(void)
{
	pthread_t th[NR_THREADS];
	size_t n = nr_per_thread(), d;
	sig_atomic_t h0 = tp_hits[2];

	nr_vals = calloc((size_t)NR_THREADS * n, sizeof(*nr_vals));
	T_ASSERT(nr_vals != NULL);
	for (size_t t = 0; t < NR_THREADS; t++)
		T_ASSERT(pthread_create(&th[t], NULL, nr_thread, (void *)t) == 0);
	for (size_t t = 0; t < NR_THREADS; t++)
		pthread_join(th[t], NULL);
	d = dups(nr_vals, (size_t)NR_THREADS * n);
	printf("# %zu values from %d threads, %ld served inline\n", (size_t)NR_THREADS * n,
	       NR_THREADS, (long)(tp_hits[2] - h0));
	T_ASSERT_MSG(d == 0, "%zu values drawn twice", d);
	T_ASSERT(tp_hits[2] - h0 > (sig_atomic_t)(NR_THREADS * n / 2));
	free(nr_vals);
}

/* ==== fork: the child never draws the parent's values ================================ */

#define FK_N 64

static void fork_case(enum t_fork_way way, int kind)
{
	uint64_t mine[2 * FK_N + 16], theirs[FK_N];
	size_t got = 0, n = 0;
	int fds[2], status;
	ssize_t r;
	pid_t pid;

	if (kind >= 0 && way != T_FORK_FORK && t_wipeonfork_ignored_skip())
		return;
	if (kind < 0)
		surand_test_secmem_force(-1); /* before the first secret is mapped */
	warm();
	for (int i = 0; i < 16; i++) /* the batch part-used at the fork */
		mine[n++] = surand_u64();
	T_ASSERT(pipe(fds) == 0);
	fflush(stdout);
	pid = t_fork_by(way);
	T_ASSERT_MSG(pid >= 0, "%s failed: %s", t_fork_names[way], strerror(errno));
	if (pid == 0) {
		uint64_t v[FK_N];

		close(fds[0]);
		for (int i = 0; i < FK_N; i++)
			v[i] = i % 2 ? surand_u64() : (uint64_t)surand_u32() << 32 | surand_u32();
		r = write(fds[1], v, sizeof(v));
		_exit(r == (ssize_t)sizeof(v) ? 0 : 1);
	}
	close(fds[1]);
	for (int i = 0; i < FK_N; i++)
		mine[n++] = i % 2 ? surand_u64() : (uint64_t)surand_u32() << 32 | surand_u32();
	while (got < sizeof(theirs) && (r = read(fds[0], (uint8_t *)theirs + got,
						 sizeof(theirs) - got)) > 0)
		got += (size_t)r;
	close(fds[0]);
	T_ASSERT(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	T_ASSERT_EQ_U64(got, sizeof(theirs));
	for (int i = 0; i < FK_N; i++)
		for (size_t j = 0; j < n; j++)
			T_ASSERT_MSG(theirs[i] != mine[j], "%s: the child drew the parent's value %zu",
				     t_fork_names[way], j);
	T_ASSERT_EQ_U64(stats_now().kernel_only, kind < 0);
}

static void fork_fork_child(void) { fork_case(T_FORK_FORK, 1); }
static void fork_ufork_child(void) { fork_case(T_FORK_UFORK, 1); }
static void fork_clone_child(void) { fork_case(T_FORK_CLONE, 1); }
static void fork_wipeonfork_child(void)
{
	surand_test_secmem_force(0);
	fork_case(T_FORK_UFORK, 0);
}
static void fork_none_child(void) { fork_case(T_FORK_FORK, -1); }

/* ==== signals: a handler draws inside an inline draw ================================= */

static volatile sig_atomic_t h_ran, h_busy;
static uint64_t h_v64, h_v32;
static uint8_t h_bytes[16];

static void draw_handler(int sig)
{
	int e = errno;

	(void)sig;
	h_busy = surand_test_call_busy();
	h_v64 = surand_u64();
	h_v32 = surand_u32();
	surand_bytes(h_bytes, sizeof(h_bytes));
	h_ran = 1;
	errno = e;
}

static void raise_usr1(void)
{
	raise(SIGUSR1);
}

static void signal_child(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = draw_handler;
	sigemptyset(&sa.sa_mask);
	T_ASSERT(sigaction(SIGUSR1, &sa, NULL) == 0);
	warm();
	for (int where = 1; where <= 2; where++) {
		for (int n = 4; n <= 8; n += 4) {
			struct slot *s;
			uint8_t peek[64];
			uint64_t v, fb0 = stats_now().fallback_signal;
			uint32_t pos;
			sig_atomic_t h0 = tp_hits[2];

			make_room(64);
			s = slot_now();
			pos = s->h.pos;
			memcpy(peek, s->batch + pos, BATCH_BYTES - pos < 64 ? BATCH_BYTES - pos : 64);
			h_ran = 0;
			tp_action = raise_usr1;
			tp_armed = where;
			v = n == 8 ? surand_u64() : surand_u32();
			T_ASSERT_MSG(h_ran, "point %d: the handler did not run", where);
			T_ASSERT_MSG(h_busy, "point %d: the busy mark was not set in the handler", where);
			T_ASSERT_MSG(tp_hits[2] == h0 + 1, "point %d: the draw was not served inline",
				     where);
			/* The interrupted draw kept its bytes; the handler took none of the batch. */
			T_ASSERT(memcmp(&v, peek, (size_t)n) == 0);
			T_ASSERT_EQ_U64(s->h.pos, pos + (uint32_t)n);
			T_ASSERT(h_v64 != v && memcmp(&h_v64, peek + n, 8) != 0);
			T_ASSERT(memcmp(h_bytes, peek + n, 8) != 0);
			/* All three handler draws went to the kernel. */
			T_ASSERT_EQ_U64(stats_now().fallback_signal - fb0, 3);
			T_ASSERT(!surand_test_call_busy());
		}
	}
}

/* ---- a siglongjmp out of the inline draw ---------------------------------------------- */

static sigjmp_buf lj_env;

static void jump_handler(int sig)
{
	(void)sig;
	siglongjmp(lj_env, 1);
}

static void raise_usr2(void)
{
	raise(SIGUSR2);
}

static __attribute__((noinline)) uint64_t draw_once(void)
{
	return surand_u64();
}

static void longjmp_child(void)
{
	struct sigaction sa;
	uint64_t ab0, buf[2];
	volatile int jumped = 0;
	sig_atomic_t h0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = jump_handler;
	sigemptyset(&sa.sa_mask);
	T_ASSERT(sigaction(SIGUSR2, &sa, NULL) == 0);
	warm();
	make_room(16);
	ab0 = stats_now().abandoned_calls;
	tp_action = raise_usr2;
	tp_armed = 1;
	if (sigsetjmp(lj_env, 1) == 0)
		(void)draw_once();
	else
		jumped = 1;
	T_ASSERT_MSG(jumped, "the handler did not jump out of the draw");
	T_ASSERT_MSG(surand_test_call_busy(), "the abandoned draw left no busy mark");
	/* The next call, from the frame the draw was made from, finds it abandoned. */
	surand_bytes(buf, sizeof(buf));
	T_ASSERT_MSG(!surand_test_call_busy(), "the abandoned mark was not taken back");
	T_ASSERT_EQ_U64(stats_now().abandoned_calls - ab0, 1);
	T_ASSERT(buf[0] != 0 || buf[1] != 0);
	/* And the inline path serves again. */
	h0 = tp_hits[2];
	for (int i = 0; i < 8; i++)
		(void)surand_u64();
	T_ASSERT(tp_hits[2] > h0);
}

/* ==== dropped pages ================================================================== */

static int drop_by_madvise; /* 1: madvise dropped it; 0: zeroed by hand (same reading) */

static void drop_slot_page(void)
{
	struct slot *s = slot_now();

	/* MAP_DROPPABLE memory under pressure: the page reads zeros from now on. */
	if (madvise(s, SLOT_BYTES, MADV_DONTNEED) == 0 && s->h.gen == 0 && t_all_zero(s, SLOT_BYTES)) {
		drop_by_madvise = 1;
		return;
	}
	drop_by_madvise = 0; /* locked, or an emulator that ignores madvise */
	memset(s, 0, SLOT_BYTES);
}

static void dropped_child(void)
{
	warm();
	for (int during = 0; during <= 1; during++) {
		for (int n = 4; n <= 8; n += 4) {
			uint64_t r0, v;
			sig_atomic_t h1, h2;
			struct slot *s;

			make_room(64);
			s = slot_now();
			r0 = stats_now().refills;
			h1 = tp_hits[1];
			h2 = tp_hits[2];
			if (during) {
				tp_action = drop_slot_page;
				tp_armed = 2; /* after the copy, before the re-check */
			} else {
				drop_slot_page();
			}
			v = n == 8 ? surand_u64() : surand_u32();
			printf("# %s, %d-byte draw: page %s\n", during ? "during the copy" : "before the draw",
			       n, drop_by_madvise ? "dropped by madvise(MADV_DONTNEED)" : "zeroed by hand");
			T_ASSERT_MSG(v != 0, "a draw from a dropped page returned zero");
			if (during)
				T_ASSERT_MSG(tp_hits[2] == h2 + 1, "the drop was not inside the copy");
			else
				T_ASSERT_MSG(tp_hits[1] == h1, "a dropped batch was not declined");
			/* The library refilled the same page and served the draw from it. */
			T_ASSERT(slot_now() == s);
			T_ASSERT_EQ_U64(stats_now().refills - r0, 1);
			T_ASSERT(s->h.gen != 0 && s->h.gen == surand_test_thread_generation());
			T_ASSERT_EQ_U64(s->h.pos, (uint32_t)n);
			T_ASSERT(t_all_zero(s->batch, (size_t)n));
		}
	}
}

/* ==== VM clones: the refill folds kernel bytes in ==================================== */

/* out came from a key after the fold (thread.c), model from the key alone:
 * with the vDSO they differ, without it they are the same bytes. */
static void expect_folded(const void *out, const void *model, size_t n, int vdso_fold,
			  const char *what)
{
	if (vdso_fold)
		T_ASSERT_MSG(memcmp(out, model, n) != 0,
			     "%s made its key's own keystream: no kernel bytes folded in", what);
	else
		T_ASSERT_MSG(memcmp(out, model, n) == 0,
			     "without the vDSO %s is its key's own keystream, but it was not", what);
}

static void fold_child(void)
{
	static uint8_t drain[SLOT_BYTES];
	struct surand_stats st;
	int done = 0;

	warm();
	st = stats_now();
	for (int tries = 0; tries < 8 && !done; tries++) {
		struct slot *s = slot_now();
		uint32_t k[8];
		uint8_t model[64];
		uint64_t v, gen, rekey;

		if (s->h.pos < BATCH_BYTES)
			surand_bytes(drain, BATCH_BYTES - s->h.pos);
		if (s->h.pos != BATCH_BYTES || surand_test_thread_key(k) != 0)
			continue;
		gen = s->h.gen;
		rekey = s->h.rekey_ns;
		v = surand_u64(); /* empty: the inline code declines, the library refills */
		if (s->h.gen != gen || s->h.rekey_ns != rekey)
			continue; /* re-keyed from the base: another reason to differ */
		/* The batch that key alone would make (thread.c: block 0, nonce 0). */
		surand_chacha20_blocks_portable(k, 0, 0, model, 1);
		expect_folded(&v, model, 8, st.vdso_fold, "the refill");
		surand_wipe(k, sizeof(k));
		surand_wipe(model, sizeof(model));
		done = 1;
	}
	printf("# vdso_fold %u: the refill %s\n", st.vdso_fold,
	       st.vdso_fold ? "folds fresh kernel bytes into every batch's key"
			    : "uses the key alone (no vDSO getrandom here)");
	T_ASSERT_MSG(done, "every try re-keyed: the refill was never checked");
}

/* A large request's one-use key: the batch's next 32 bytes, with kernel bytes
 * folded in where the vDSO offers them (thread.c, slot_direct), as the
 * refill's key above: a VM clone's large requests diverge too. */
static void direct_fold_child(void)
{
	static uint8_t big[DIRECT_MIN_BYTES];
	struct surand_stats st;
	int done = 0;

	warm();
	st = stats_now();
	for (int tries = 0; tries < 8 && !done; tries++) {
		struct slot *s;
		uint32_t k[8];
		uint8_t model[64];
		uint64_t gen, rekey, direct;

		make_room(32);
		s = slot_now();
		if (!s || s->h.pos > BATCH_BYTES - 32 || s->h.gen != surand_test_thread_generation())
			continue;
		gen = s->h.gen;
		rekey = s->h.rekey_ns;
		for (int i = 0; i < 8; i++)
			k[i] = surand_load32_le(s->batch + s->h.pos + 4 * i);
		direct = stats_now().direct_fills;
		surand_bytes(big, sizeof(big)); /* >= DIRECT_MIN_BYTES: a one-use key */
		if (s->h.gen != gen || s->h.rekey_ns != rekey) {
			surand_wipe(k, sizeof(k));
			continue; /* re-keyed from the base: the key came from a new batch */
		}
		T_ASSERT_EQ_U64(stats_now().direct_fills - direct, 1);
		surand_fill_from_key(k, model, sizeof(model)); /* the key alone; wipes k */
		expect_folded(big, model, sizeof(model), st.vdso_fold, "the one-use key");
		surand_wipe(model, sizeof(model));
		done = 1;
	}
	T_ASSERT_MSG(done, "every try re-keyed: the one-use key was never checked");
}

/* ==== a handler's draws at every instruction boundary of an inline draw =========== */

/* As test_callstate's signal_at_every_instruction, for the inline code: the
 * draw single-stepped (tests/step.h), handlers that draw inline themselves
 * at its n-th boundary and the STEP_FOLLOW after it.  None may find the
 * live draw abandoned, and no zero word or repeat may come out. */
#define STEP_FOLLOW 16

static uint64_t st_out;
static uint64_t st_seen[STEP_FOLLOW + 1];
static unsigned st_nseen;
static unsigned long st_first;

static void st_draw(void *a)
{
	(void)a;
	st_out = surand_u64();
}

static void st_at(unsigned long n, void *arg)
{
	(void)arg;
	if (n < st_first)
		return;
	if (n >= st_first + STEP_FOLLOW)
		step_armed = 0;
	st_seen[st_nseen++] = surand_u64();
}

static void inline_signal_at_every_instruction(void)
{
	unsigned long n, k;

	warm();
	n = step_run(st_draw, NULL, NULL);
	T_ASSERT_MSG(n > 5 && n < 10000, "%lu instruction boundaries stepped", n);
	for (k = 1; k <= n; k++) {
		uint64_t ab0 = stats_now().abandoned_calls;

		warm();
		st_nseen = 0;
		st_first = k;
		st_out = 0;
		(void)step_run(st_draw, NULL, st_at);
		T_ASSERT_MSG(stats_now().abandoned_calls == ab0,
			     "handlers from boundary %lu of %lu: the live draw was taken for an "
			     "abandoned one", k, n);
		T_ASSERT_MSG(st_out != 0, "handlers from boundary %lu of %lu: a zero word", k, n);
		for (unsigned i = 0; i < st_nseen; i++) {
			T_ASSERT_MSG(st_seen[i] != 0 && st_seen[i] != st_out,
				     "handlers from boundary %lu: handler draw %u returned %s", k, i,
				     st_seen[i] ? "the interrupted draw's word" : "zero");
			for (unsigned j = 0; j < i; j++)
				T_ASSERT_MSG(st_seen[i] != st_seen[j],
					     "handlers from boundary %lu: draws %u and %u repeat", k, j, i);
		}
	}
	printf("# %lu boundaries of the inline draw, each with %d handler draws\n", n,
	       STEP_FOLLOW + 1);
}

/* ==== ABI: refused layouts, and what the inline code does then ======================= */

static void *abi_thread(void *arg)
{
	(void)arg;
	return surand_inline_thread(SURAND_INLINE_ABI, sizeof(struct surand_inline_thread),
				    sizeof(struct surand_inline_slot));
}

static void abi_child(void)
{
	const size_t ts = sizeof(struct surand_inline_thread), ss = sizeof(struct surand_inline_slot);
	struct surand_inline_thread *t, *other;
	uint64_t v[64], c0;
	sig_atomic_t h0;
	pthread_t th;

	warm();
	t = surand_inline_thread(SURAND_INLINE_ABI, ts, ss);
	T_ASSERT(t != NULL && t == surand_inline_thread(SURAND_INLINE_ABI, ts, ss));
	T_ASSERT(surand_inline_thread(0, ts, ss) == NULL);
	/* ABI 1, the same layout with the mark in two stores, is served: its
	 * return address goes to a word of its own. */
	T_ASSERT(surand_inline_thread(1, ts, ss) == t && t->abi1_ret != NULL);
	T_ASSERT(surand_inline_thread(SURAND_INLINE_ABI + 1, ts, ss) == NULL);
	T_ASSERT(surand_inline_thread(SURAND_INLINE_ABI, ts - 8, ss) == NULL);
	T_ASSERT(surand_inline_thread(SURAND_INLINE_ABI, ts + 8, ss) == NULL);
	T_ASSERT(surand_inline_thread(SURAND_INLINE_ABI, ts, ss - 64) == NULL);
	T_ASSERT(surand_inline_thread(SURAND_INLINE_ABI, ts, 2 * ss) == NULL);
	/* The view is the library's: its slot, its generation, its idle mark. */
	T_ASSERT((void *)t->slot == surand_test_thread_slot(NULL));
	T_ASSERT(*t->base_gen != 0 && *t->base_gen == surand_test_thread_generation());
	T_ASSERT(*t->call_state == SURAND_INLINE_IDLE);
	T_ASSERT(pthread_create(&th, NULL, abi_thread, NULL) == 0);
	T_ASSERT(pthread_join(th, (void **)&other) == 0);
	T_ASSERT(other != NULL && other != t);
	/* Refused (as a header of another layout is): every draw is the call. */
	surand_inline_tls_ = (struct surand_inline_thread *)(uintptr_t)1;
	h0 = tp_hits[1];
	c0 = stats_now().calls;
	for (int i = 0; i < 64; i++)
		v[i] = i % 2 ? surand_u64() : (uint64_t)surand_u32() << 32 | surand_u32();
	T_ASSERT_MSG(tp_hits[1] == h0, "a refused header still drew inline");
	T_ASSERT_EQ_U64(stats_now().calls - c0, 96);
	T_ASSERT(dups(v, 64) == 0);
	/* Not asked yet: the next draw asks and draws inline. */
	surand_inline_tls_ = NULL;
	(void)surand_u64();
	T_ASSERT(surand_inline_tls_ == t);
	T_ASSERT(tp_hits[1] > h0);
}

/* A process without wipe-on-fork memory, and another design: never inline. */
static void declined_case(int kernel_only)
{
	uint64_t v[256];
	const char *names = surand_backend_names(), *comma = strchr(names, ',');
	char other[32];

	if (kernel_only) {
		surand_test_secmem_force(-1);
	} else {
		T_ASSERT(comma != NULL);
		snprintf(other, sizeof(other), "%.*s", (int)strcspn(comma + 1, ","), comma + 1);
		T_ASSERT_MSG(surand_set_backend(other) == 0, "set_backend(%s)", other);
	}
	for (int i = 0; i < 256; i++)
		v[i] = i % 2 ? surand_u64() : (uint64_t)surand_u32() << 32 | surand_u32();
	T_ASSERT_MSG(tp_hits[1] == 0, "%s: %ld draws inline", kernel_only ? "kernel-only" : "design",
		     (long)tp_hits[1]);
	T_ASSERT(dups(v, 256) == 0);
	if (kernel_only)
		T_ASSERT(stats_now().kernel_only == 1);
}

static void kernel_only_child(void) { declined_case(1); }
static void other_design_child(void) { declined_case(0); }

/* ==== main =========================================================================== */

static const struct t_child_case child_cases[] = {
	{"serve", serve_child},
	{"no_repeat", no_repeat_child},
	{"fork_fork", fork_fork_child},
	{"fork_ufork", fork_ufork_child},
	{"fork_clone", fork_clone_child},
	{"fork_wipeonfork", fork_wipeonfork_child},
	{"fork_none", fork_none_child},
	{"signal", signal_child},
	{"longjmp", longjmp_child},
	{"dropped", dropped_child},
	{"fold", fold_child},
	{"direct_fold", direct_fold_child},
	{"abi", abi_child},
	{"kernel_only", kernel_only_child},
	{"other_design", other_design_child},
	{NULL, NULL},
};

static int slow(void)
{
	return t_quick() || t_runner_prefix()[0];
}

#define EXEC_CASE(name, child)                             \
	static void name(void)                             \
	{                                                  \
		t_exec_child(child, slow() ? 120 : 30);    \
	}
EXEC_CASE(inline_serves_the_batch_and_erases, "serve")
EXEC_CASE(inline_no_repeat_across_threads, "no_repeat")
EXEC_CASE(inline_fork_child_differs, "fork_fork")
EXEC_CASE(inline_ufork_child_differs, "fork_ufork")
EXEC_CASE(inline_clone_child_differs, "fork_clone")
EXEC_CASE(inline_ufork_wipeonfork_child_differs, "fork_wipeonfork")
EXEC_CASE(inline_fork_no_wipeonfork_child_differs, "fork_none")
EXEC_CASE(inline_signal_handler_draws_inside_draw, "signal")
EXEC_CASE(inline_siglongjmp_out_of_draw_recovered, "longjmp")
EXEC_CASE(inline_dropped_page_never_zeros, "dropped")
EXEC_CASE(inline_refill_folds_kernel_bytes, "fold")
EXEC_CASE(one_use_key_folds_kernel_bytes, "direct_fold")
EXEC_CASE(inline_abi_other_layout_refused, "abi")
EXEC_CASE(inline_kernel_only_takes_the_call, "kernel_only")
EXEC_CASE(inline_other_design_takes_the_call, "other_design")

int main(int argc, char **argv)
{
	t_init(argc, argv);
	t_child_main(argc, argv, child_cases);
	T_RUN(inline_serves_the_batch_and_erases);
	T_RUN(inline_no_repeat_across_threads);
	T_RUN(inline_fork_child_differs);
	T_RUN(inline_ufork_child_differs);
	T_RUN(inline_clone_child_differs);
	T_RUN(inline_ufork_wipeonfork_child_differs);
	T_RUN(inline_fork_no_wipeonfork_child_differs);
	T_RUN(inline_signal_handler_draws_inside_draw);
	STEP_RUN(inline_signal_at_every_instruction);
	T_RUN(inline_siglongjmp_out_of_draw_recovered);
	T_RUN(inline_dropped_page_never_zeros);
	T_RUN(inline_refill_folds_kernel_bytes);
	T_RUN(one_use_key_folds_kernel_bytes);
	T_RUN(inline_abi_other_layout_refused);
	T_RUN(inline_kernel_only_takes_the_call);
	T_RUN(inline_other_design_takes_the_call);
	return t_done();
}
