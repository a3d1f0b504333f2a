/*
 * test_callstate.c - the promises "async-signal-safe" and "fork-safe", case by
 * case: a signal handler's call at every point where the library holds a lock
 * or runs its one-time set-up, a siglongjmp out of a call, and every way a
 * process can fork (fork, _Fork, a raw clone, an application's atfork handler
 * that draws before ours) in every kind of secret memory.
 *
 * The windows a real signal would hit only by chance are reached with test
 * points (src/test_hooks.h): the library raises the signal itself there.
 * Points inside the one-time set-up are armed from this binary's own
 * constructor, which runs before surand's.  A case that deadlocks is killed
 * by the harness's timeout and fails.
 * SPDX-License-Identifier: MIT
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "reliability.h"
#include "step.h"
#include "surand.h"
#include "test_hooks.h"

#define ARM_ENV "SURAND_TEST_CALLSTATE_ARM"

static struct surand_stats stats_now(void)
{
	struct surand_stats s;

	memset(&s, 0, sizeof(s));
	if (surand_stats(&s, sizeof(s)) != 0)
		s.size = 0;
	return s;
}

/* ==== the handler that draws ========================================================= */

static volatile sig_atomic_t h_runs, h_done;
static uint8_t h_bytes[32];
static uint64_t h_setup_before, h_setup_after;

static void drawing_handler(int sig)
{
	(void)sig;
	h_runs++;
	h_setup_before = surand_test_point_hits(SURAND_TP_SETUP);
	surand_bytes(h_bytes, sizeof(h_bytes));
	h_setup_after = surand_test_point_hits(SURAND_TP_SETUP);
	h_done = 1;
}

static int install(int sig, void (*fn)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sigemptyset(&sa.sa_mask);
	return sigaction(sig, &sa, NULL);
}

/*
 * Before surand's constructor (priority 101 runs before the default): with
 * ARM_ENV set, a point inside the one-time set-up is armed, and an
 * application atfork child handler is registered ahead of surand's.
 */
static volatile int atfork_draw;
static uint8_t atfork_bytes[64];

static void app_atfork_child(void)
{
	if (atfork_draw)
		surand_bytes(atfork_bytes, sizeof(atfork_bytes));
}

__attribute__((constructor(101))) static void before_surand(void)
{
	const char *arm = getenv(ARM_ENV);

	(void)pthread_atfork(NULL, NULL, app_atfork_child);
	if (!arm)
		return;
	if (install(SIGUSR1, drawing_handler) != 0)
		return;
	if (strcmp(arm, "config") == 0)
		surand_test_point_arm(SURAND_TP_CONFIG_READ, SIGUSR1);
	else if (strcmp(arm, "names") == 0)
		surand_test_point_arm(SURAND_TP_NAMES, SIGUSR1);
}

static int handler_ok(void)
{
	return h_runs == 1 && h_done && !t_all_zero(h_bytes, sizeof(h_bytes));
}

/* ==== set-up ========================================================================= */

/* The process's first call is made from a signal handler: the set-up was
 * already done (constructor), none of it runs in the handler. */
static void setup_before_handler_child(void)
{
	uint64_t before_main = surand_test_point_hits(SURAND_TP_SETUP);

	T_ASSERT(install(SIGUSR1, drawing_handler) == 0);
	raise(SIGUSR1);
	rel_report("setup-not-in-handler",
		   "the process's first call made from a signal handler: set-up ran before main",
		   handler_ok() && before_main == 1 && h_setup_before == h_setup_after, 0, 0, 0);
	T_ASSERT_MSG(before_main == 1, "set-up ran %llu times before main",
		     (unsigned long long)before_main);
	T_ASSERT_MSG(h_setup_before == h_setup_after, "the handler's call ran the set-up");
	T_ASSERT(handler_ok());
}

/* A handler draws while the environment is being read (the once that the
 * input calls used to run unmarked: the draw waited on it forever). */
static void config_read_child(void)
{
	uint8_t b[16] = {1};

	T_ASSERT(surand_add_entropy(b, sizeof(b), 0) == 0);
	surand_add_event(0x1234);
	surand_bytes(b, sizeof(b));
	rel_report("signal-during-config-read",
		   "a handler draws while the environment is read (set-up, surand_add_entropy/event)",
		   handler_ok(), 0, 0, 0);
	T_ASSERT_MSG(surand_test_point_hits(SURAND_TP_CONFIG_READ) >= 1, "the point was never reached");
	T_ASSERT_MSG(handler_ok(), "handler runs %d, done %d", (int)h_runs, (int)h_done);
	T_ASSERT(stats_now().fallback_signal >= 1); /* the handler's draw took the kernel path */
}

/* A handler draws while the backend name list is built. */
static void names_child(void)
{
	const char *n = surand_backend_names();
	uint8_t b[16];

	surand_bytes(b, sizeof(b));
	rel_report("signal-during-backend-names",
		   "a handler draws while surand_backend_names() builds its list", handler_ok(), 0, 0,
		   0);
	T_ASSERT(n && strstr(n, "thread") != NULL);
	T_ASSERT_MSG(surand_test_point_hits(SURAND_TP_NAMES) >= 1, "the point was never reached");
	T_ASSERT_MSG(handler_ok(), "handler runs %d, done %d", (int)h_runs, (int)h_done);
}

/* ==== a thread's first call allocates nothing ========================================
 *
 * A handler that interrupted malloc and makes the thread's first call must not
 * reach malloc again (the arena lock is held: it deadlocks).  glibc's
 * pthread_setspecific callocs a second-level block for a key index of 32 or
 * more, so the thread-exit key must have been made before the application's
 * keys.  The allocator is interposed here (forwarding to glibc's) to count
 * what a draw allocates; not under a sanitizer, whose allocator it would
 * bypass.
 */
#if !REL_ASAN && !REL_TSAN
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
static __thread int in_draw;
static unsigned long allocs_in_draw;

void *malloc(size_t n)
{
	if (in_draw)
		__atomic_fetch_add(&allocs_in_draw, 1, __ATOMIC_RELAXED);
	return __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
	if (in_draw)
		__atomic_fetch_add(&allocs_in_draw, 1, __ATOMIC_RELAXED);
	return __libc_calloc(n, size);
}
#define ALLOC_COUNTED 1
#else
#define ALLOC_COUNTED 0
#endif

#define APP_KEYS 40

static void *first_draw_thread(void *arg)
{
	uint8_t *b = arg;

#if ALLOC_COUNTED
	in_draw = 1;
#endif
	surand_bytes(b, 16); /* this thread's first call */
	(void)surand_u64();
#if ALLOC_COUNTED
	in_draw = 0;
#endif
	return NULL;
}

static void many_keys_child(void)
{
	static pthread_key_t keys[APP_KEYS];
	uint8_t b[16] = {0};
	pthread_t t;

	for (int i = 0; i < APP_KEYS; i++)
		T_ASSERT(pthread_key_create(&keys[i], NULL) == 0);
	T_ASSERT(pthread_create(&t, NULL, first_draw_thread, b) == 0);
	T_ASSERT(pthread_join(t, NULL) == 0);
#if ALLOC_COUNTED
	rel_report("first-call-allocates-nothing",
		   rel_fmt("%d application pthread keys, then a new thread's first draws", APP_KEYS),
		   allocs_in_draw == 0 && !t_all_zero(b, 16), 0, 0, 0);
	T_ASSERT_MSG(allocs_in_draw == 0, "a thread's first draw called malloc/calloc %lu times",
		     allocs_in_draw);
#endif
	T_ASSERT(!t_all_zero(b, 16));
}

/* ==== thread exit ==================================================================== */

static void *exiting_thread(void *arg)
{
	uint8_t b[16];

	(void)arg;
	surand_bytes(b, sizeof(b));
	/* Raised in the exit destructor, while the slab lock is held. */
	surand_test_point_arm(SURAND_TP_THREAD_EXIT_LOCKED, SIGUSR1);
	return NULL;
}

static void exit_destructor_child(void)
{
	pthread_t t;

	T_ASSERT(install(SIGUSR1, drawing_handler) == 0);
	T_ASSERT(pthread_create(&t, NULL, exiting_thread, NULL) == 0);
	T_ASSERT(pthread_join(t, NULL) == 0);
	rel_report("signal-in-thread-exit",
		   "a handler draws in the thread-exit destructor while the slab lock is held",
		   handler_ok(), 0, 0, 0);
	T_ASSERT_MSG(surand_test_point_hits(SURAND_TP_THREAD_EXIT_LOCKED) >= 1,
		     "the point was never reached");
	T_ASSERT_MSG(handler_ok(), "handler runs %d, done %d", (int)h_runs, (int)h_done);
	T_ASSERT(stats_now().fallback_signal >= 1);
}

/* ==== siglongjmp out of a call ======================================================= */

static sigjmp_buf jump_back;

static void jumping_handler(int sig)
{
	(void)sig;
	siglongjmp(jump_back, 1);
}

#define AFTER_JUMP_CALLS 1000

/* Left in a refill (no lock held): the busy mark is taken back, the thread's
 * state dropped, and the backend serves the calls after it. */
static void longjmp_recovers_child(void)
{
	static uint8_t out[AFTER_JUMP_CALLS][16];
	struct surand_stats a, b;
	uint8_t x[16];
	volatile int calls = 0;
	unsigned long long dups;

	T_ASSERT(install(SIGUSR2, jumping_handler) == 0);
	surand_bytes(x, sizeof(x));
	if (sigsetjmp(jump_back, 1) == 0) {
		surand_test_point_arm(SURAND_TP_REFILL, SIGUSR2);
		for (calls = 0; calls < 1000; calls++) /* the batch runs out within 253 */
			surand_bytes(x, sizeof(x));
		T_ASSERT_MSG(0, "no refill was reached in %d calls", calls);
	}
	T_ASSERT(surand_test_call_busy()); /* the abandoned call's mark */
#if !defined(__x86_64__)
	/* Without x86-64's exact liveness check (src/api.c, recover_abandoned:
	 * elsewhere the return address has no fixed place below the frame
	 * address), a call from a frame deeper than the abandoned one is taken
	 * for a nested one: kernel path, mark kept.  One from this frame, at
	 * the abandoned call's own depth, recovers the mark. */
	surand_bytes(x, sizeof(x));
	T_ASSERT(!surand_test_call_busy());
#endif
	a = stats_now();
	T_ASSERT_MSG(a.size != 0, "surand_stats after the jump: %s", strerror(errno));
	T_ASSERT(!surand_test_call_busy());
	for (int i = 0; i < AFTER_JUMP_CALLS; i++)
		surand_bytes(out[i], 16);
	b = stats_now();
	dups = rel_count_dups(out, AFTER_JUMP_CALLS, 16);
	rel_report("siglongjmp-out-of-call",
		   rel_fmt("a handler siglongjmps out of a refill; %d calls after it", AFTER_JUMP_CALLS),
		   b.fallback_signal == a.fallback_signal && a.abandoned_calls == 1 && dups == 0, dups,
		   0, 0);
	T_ASSERT_EQ_U64(a.abandoned_calls, 1);
	T_ASSERT_MSG(b.fallback_signal == a.fallback_signal,
		     "%llu calls after the jump took the kernel path (the thread stayed busy)",
		     (unsigned long long)(b.fallback_signal - a.fallback_signal));
	T_ASSERT(b.calls >= a.calls + AFTER_JUMP_CALLS);
	T_ASSERT(dups == 0);
}

/* Left while the slab lock was held: that lock is never released, so the
 * mark stays and the thread's calls go on through the kernel path. */
static volatile int locked_ok;

static void *lock_jump_thread(void *arg)
{
	static uint8_t out[200][16];
	struct surand_stats s;

	(void)arg;
	if (sigsetjmp(jump_back, 1) == 0) {
		surand_test_point_arm(SURAND_TP_SLAB_LOCKED, SIGUSR2);
		surand_bytes(out[0], 16); /* this thread's first call takes a slot */
		return NULL;              /* the point was not reached */
	}
	for (int i = 0; i < 200; i++)
		surand_bytes(out[i], 16);
	/* A control call would need the lock: it refuses instead of waiting. */
	errno = 0;
	locked_ok = surand_test_call_busy() && rel_count_dups(out, 200, 16) == 0 &&
		    !t_all_zero(out[199], 16) && surand_stats(&s, sizeof(s)) == -1 && errno == EAGAIN;
	return NULL;
}

static void longjmp_lock_held_child(void)
{
	pthread_t t;
	uint8_t x[16];

	T_ASSERT(install(SIGUSR2, jumping_handler) == 0);
	surand_bytes(x, sizeof(x));
	T_ASSERT(pthread_create(&t, NULL, lock_jump_thread, NULL) == 0);
	T_ASSERT(pthread_join(t, NULL) == 0);
	rel_report("siglongjmp-lock-held",
		   "a handler siglongjmps out of a call holding the slab lock; 200 calls after it",
		   locked_ok, 0, 0, 0);
	T_ASSERT_MSG(surand_test_point_hits(SURAND_TP_SLAB_LOCKED) >= 1, "the point was never reached");
	T_ASSERT_MSG(locked_ok, "the thread's calls after the jump failed or repeated");
	fflush(stdout);
	_exit(t_case_failed() ? 1 : 0); /* the slab lock stays held: nothing else may draw */
}

/* ==== fork paths x memory kinds ====================================================== */

enum fork_path { FP_FORK, FP_UFORK, FP_CLONE, FP_ATFORK_FIRST, FP_COUNT };
_Static_assert((int)FP_FORK == T_FORK_FORK && (int)FP_UFORK == T_FORK_UFORK &&
		       (int)FP_CLONE == T_FORK_CLONE, "the first fork paths are the harness's");
static const char *const fp_names[FP_COUNT] = {"fork()", "_Fork()", "clone(SIGCHLD)",
					       "fork() with an app atfork draw first"};
#define FORK_CHUNKS 64 /* 16-byte draws on each side, 1 KiB */

static pid_t fork_by(enum fork_path p)
{
	return t_fork_by(p == FP_ATFORK_FIRST ? T_FORK_FORK : (enum t_fork_way)p);
}

/* Draws in parent and child right after the fork; 16-byte chunks in common. */
static long fork_path_common(enum fork_path p)
{
	static uint8_t par[FORK_CHUNKS + 4][16], chi[FORK_CHUNKS + 4][16];
	uint8_t warm[16];
	int fds[2], st;
	long common = 0;
	pid_t pid;
	size_t got = 0;
	ssize_t n;

	surand_bytes(warm, sizeof(warm)); /* the state is keyed and mid-batch */
	if (pipe(fds) != 0)
		return -1;
	atfork_draw = p == FP_ATFORK_FIRST;
	pid = fork_by(p);
	if (pid < 0)
		return -1;
	if (pid == 0) {
		for (int i = 0; i < FORK_CHUNKS; i++)
			surand_bytes(chi[i], 16);
		memcpy(chi[FORK_CHUNKS], atfork_bytes, sizeof(atfork_bytes));
		n = write(fds[1], chi, sizeof(chi));
		_exit(n == (ssize_t)sizeof(chi) ? 0 : 1);
	}
	atfork_draw = 0;
	close(fds[1]);
	for (int i = 0; i < FORK_CHUNKS + 4; i++)
		surand_bytes(par[i], 16);
	while (got < sizeof(chi) && (n = read(fds[0], (uint8_t *)chi + got, sizeof(chi) - got)) > 0)
		got += (size_t)n;
	close(fds[0]);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0 || got != sizeof(chi))
		return -1;
	/* Every child chunk (its atfork draw included) against every parent one. */
	for (int i = 0; i < FORK_CHUNKS + (p == FP_ATFORK_FIRST ? 4 : 0); i++)
		for (int j = 0; j < FORK_CHUNKS + 4; j++)
			common += memcmp(chi[i], par[j], 16) == 0;
	return common;
}

static void fork_paths(int kind, const char *kind_name)
{
	struct surand_stats s;
	long common[FP_COUNT];
	int ok = 1;

	if (rel_select_backend() != 0)
		return;
	if (kind >= 0 && t_wipeonfork_ignored_skip())
		return;
	if (kind != 1)
		surand_test_secmem_force(kind); /* before the first secret is mapped */
	for (int p = 0; p < FP_COUNT; p++) {
		common[p] = fork_path_common((enum fork_path)p);
		ok &= common[p] == 0;
	}
	s = stats_now();
	rel_report(rel_fmt("fork-paths-%s", kind_name),
		   rel_fmt("fork(), _Fork(), clone(SIGCHLD), an app atfork draw first; %s memory "
			   "(kernel_only %u, droppable %u); %d x 16 B each side",
			   kind_name, s.kernel_only, s.droppable, FORK_CHUNKS),
		   ok, 0, 0, 0);
	for (int p = 0; p < FP_COUNT; p++)
		T_ASSERT_MSG(common[p] == 0, "%s in %s memory: %ld chunks the parent also drew%s",
			     fp_names[p], kind_name, common[p], common[p] < 0 ? " (fork failed)" : "");
	if (kind < 0)
		T_ASSERT_EQ_U64(s.kernel_only, 1);
	else
		T_ASSERT_EQ_U64(s.kernel_only, 0);
}

static void fork_paths_default_child(void)
{
	fork_paths(1, "default"); /* MAP_DROPPABLE where the kernel has it (6.11+) */
}

static void fork_paths_wipeonfork_child(void)
{
	fork_paths(0, "wipeonfork");
}

static void fork_paths_none_child(void)
{
	fork_paths(-1, "no-wipe-on-fork");
}

/* ==== a handler's draws at every instruction boundary of a call ===================== */

/*
 * Single-stepped (tests/step.h), a call is interrupted at its n-th
 * instruction boundary by a handler that draws there and at the next
 * STEP_FOLLOW boundaries: a handler between any two instructions, the busy
 * mark's store included, and a second one inside the same call.  No call is
 * ever abandoned here, so none may be taken for one (the library would drop
 * the live call's state under it), and neither the call nor a handler may
 * return a zero word or a word another of them returned.
 */
#define STEP_FOLLOW 16
#define STEP_EDGE 240 /* boundaries tried one by one at each end of a long call */

static uint64_t sc_out[8];
static uint64_t sc_seen[2 * (STEP_FOLLOW + 1)];
static unsigned sc_nseen;
static unsigned long sc_first;

static void sc_bytes(void *a)
{
	(void)a;
	surand_bytes(sc_out, sizeof(sc_out));
}

static void sc_u64(void *a)
{
	(void)a;
	sc_out[0] = surand_u64();
}

static void sc_reseed(void *a)
{
	(void)a;
	sc_out[0] = (uint64_t)surand_reseed();
}

static void sc_at(unsigned long n, void *arg)
{
	uint64_t w[2];

	(void)arg;
	if (n < sc_first)
		return;
	if (n >= sc_first + STEP_FOLLOW)
		step_armed = 0; /* the last draw: stepping ends here */
	surand_bytes(w, sizeof(w));
	sc_seen[sc_nseen++] = w[0];
	sc_seen[sc_nseen++] = w[1];
}

/* 0, or the first fault found with the handlers from boundary `first` on. */
static const char *sc_run_at(void (*fn)(void *), unsigned words, unsigned long first)
{
	unsigned i, j;

	memset(sc_out, 0, sizeof(sc_out));
	sc_nseen = 0;
	sc_first = first;
	(void)step_run(fn, NULL, sc_at);
	for (i = 0; i < sc_nseen; i++) {
		if (sc_seen[i] == 0)
			return "a handler's draw returned a zero word";
		for (j = 0; j < words; j++)
			if (sc_seen[i] == sc_out[j])
				return "a handler and the call it interrupted returned the same word";
		for (j = 0; j < i; j++)
			if (sc_seen[i] == sc_seen[j])
				return "two handlers returned the same word";
	}
	for (j = 0; j < words; j++)
		if (sc_out[j] == 0)
			return "the interrupted call returned a zero word";
	return NULL;
}

static void signal_at_every_instruction(void)
{
	static const struct {
		const char *name;
		void (*fn)(void *);
		unsigned words;
	} calls[] = {
		{"surand_bytes(64)", sc_bytes, 8},
		{"surand_u64()", sc_u64, 1},
		{"surand_reseed()", sc_reseed, 0},
	};
	unsigned long tried = 0;

	(void)surand_u64(); /* the thread registered, its batch filled */
	for (size_t c = 0; c < sizeof(calls) / sizeof(calls[0]); c++) {
		unsigned long n, k;

		(void)surand_u64();
		n = step_run(calls[c].fn, NULL, NULL);
		T_ASSERT_MSG(n > 10, "%s: %lu instruction boundaries stepped", calls[c].name, n);
		for (k = 1; k <= n; k++) {
			struct surand_stats a, b;
			const char *fault;

			/* Every boundary near the ends (where the mark is set and
			 * cleared), every 16th in the middle of a long call. */
			if (k > STEP_EDGE && k + STEP_EDGE < n && k % 16 != 0)
				continue;
			a = stats_now();
			fault = sc_run_at(calls[c].fn, calls[c].words, k);
			b = stats_now();
			T_ASSERT_MSG(b.abandoned_calls == a.abandoned_calls,
				     "%s, handlers from boundary %lu of %lu: the live call was taken "
				     "for an abandoned one", calls[c].name, k, n);
			T_ASSERT_MSG(!fault, "%s, handlers from boundary %lu of %lu: %s", calls[c].name,
				     k, n, fault);
			if (calls[c].words == 0)
				T_ASSERT_MSG(sc_out[0] == 0, "%s failed: %s", calls[c].name,
					     strerror(errno));
			tried++;
		}
	}
	printf("# %lu interrupted calls, each with %d handler draws\n", tried, STEP_FOLLOW + 1);
}

/* ==== a destructor after surand's, an abandoned first call ========================== */

/* An application's key whose destructor draws, and sets itself again, in
 * every destructor round the C library runs: its key is made after
 * surand's, so in each round it runs after surand's exit destructor. */
static pthread_key_t late_key;
static int late_draws;

static void late_destructor(void *p)
{
	uint64_t v = surand_u64();

	(void)p;
	if (v != 0) /* atomic: the C library runs destructors after the thread's join point */
		__atomic_fetch_add(&late_draws, 1, __ATOMIC_RELAXED);
	(void)pthread_setspecific(late_key, (void *)1);
}

static void *late_thread(void *arg)
{
	(void)arg;
	(void)pthread_setspecific(late_key, (void *)1);
	(void)surand_u64();
	return NULL;
}

static void late_destructor_takes_no_slot(void)
{
	struct surand_stats a, b;

	(void)surand_u64();
	T_ASSERT(pthread_key_create(&late_key, late_destructor) == 0);
	a = stats_now();
	for (int i = 0; i < 4; i++) {
		pthread_t t;

		T_ASSERT(pthread_create(&t, NULL, late_thread, NULL) == 0);
		T_ASSERT(pthread_join(t, NULL) == 0);
	}
	b = stats_now();
	T_ASSERT_MSG(__atomic_load_n(&late_draws, __ATOMIC_RELAXED) >= 4,
		     "the late destructors drew %d times", __atomic_load_n(&late_draws, __ATOMIC_RELAXED));
	T_ASSERT_MSG(b.slots_in_use == a.slots_in_use,
		     "%llu slots held after the threads exited, %llu before",
		     (unsigned long long)b.slots_in_use, (unsigned long long)a.slots_in_use);
	(void)pthread_key_delete(late_key);
}

/* A thread's first call abandoned before the thread was registered for its
 * exit: the next call registers it, so its slot is given back at exit. */
static void *first_call_jump_thread(void *arg)
{
	uint8_t x[16];

	(void)arg;
	if (sigsetjmp(jump_back, 1) == 0) {
		surand_test_point_arm(SURAND_TP_FIRST_CALL, SIGUSR2);
		surand_bytes(x, sizeof(x));
		return (void *)1; /* the point was not reached */
	}
	for (int i = 0; i < 100; i++)
		surand_bytes(x, sizeof(x));
	return NULL;
}

static void first_call_abandoned_registers(void)
{
	struct surand_stats a, b;
	pthread_t t;
	void *r;

	T_ASSERT(install(SIGUSR2, jumping_handler) == 0);
	(void)surand_u64();
	a = stats_now();
	T_ASSERT(pthread_create(&t, NULL, first_call_jump_thread, NULL) == 0);
	T_ASSERT(pthread_join(t, &r) == 0);
	b = stats_now();
	T_ASSERT_MSG(r == NULL, "the first-call point was not reached");
	T_ASSERT_EQ_U64(b.abandoned_calls, a.abandoned_calls + 1);
	T_ASSERT_MSG(b.slots_in_use == a.slots_in_use,
		     "the thread's slot outlived it: %llu slots held, %llu before",
		     (unsigned long long)b.slots_in_use, (unsigned long long)a.slots_in_use);
}

/* ==== a design switch racing a thread's first draw =================================== */

/*
 * surand_set_backend() switches only before the first draw.  Here a thread's
 * first draw is started while the switch, its check passed, is under way
 * (the test point's handler runs in the switching thread, which holds the
 * set-up lock), and the handler waits up to RACE_WAIT_MS for that draw.  The
 * draw must not be served by the old design while the switch succeeds: it
 * waits for the switch and is the new design's, or the switch is refused.
 */
#define RACE_WAIT_MS 300
static volatile int race_go, race_done, race_slot;

static void *race_first_draw(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&race_go, __ATOMIC_ACQUIRE))
		usleep(1000);
	(void)surand_u64();
	race_slot = surand_test_thread_slot(NULL) != NULL; /* the default design's slot */
	__atomic_store_n(&race_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void race_handler(int sig)
{
	(void)sig;
	__atomic_store_n(&race_go, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < RACE_WAIT_MS && !__atomic_load_n(&race_done, __ATOMIC_ACQUIRE); i++)
		usleep(1000);
}

static void switch_race_child(void)
{
	pthread_t t;
	int r;

	T_ASSERT(install(SIGUSR1, race_handler) == 0);
	T_ASSERT(pthread_create(&t, NULL, race_first_draw, NULL) == 0);
	surand_test_point_arm(SURAND_TP_SWITCH, SIGUSR1);
	r = surand_set_backend("percpu");
	T_ASSERT(pthread_join(t, NULL) == 0);
	T_ASSERT_MSG(race_go, "the switch's test point was not reached");
	T_ASSERT_MSG(r == 0 || errno == EBUSY, "surand_set_backend: %s", strerror(errno));
	T_ASSERT_MSG(r != 0 || !race_slot, "the switch succeeded, but the first draw was served by "
					   "the design it replaced");
	T_ASSERT(strcmp(stats_now().backend, r == 0 ? "percpu" : "thread") == 0);
}

static void set_backend_races_first_draw(void)
{
	t_exec_child("switch_race", 30);
}

/* ==== control calls in a handler that interrupted a call ============================ */

/* surand_reseed, surand_set_backend and surand_stats take locks the
 * interrupted call may hold: from a handler inside a call they refuse with
 * EAGAIN at once (surand.3, ERRORS), and work again once it returned. */
static volatile int ctl_rc[3], ctl_err[3], ctl_runs;

static void control_handler(int sig)
{
	struct surand_stats st;

	(void)sig;
	errno = 0;
	ctl_rc[0] = surand_reseed();
	ctl_err[0] = errno;
	errno = 0;
	ctl_rc[1] = surand_set_backend("thread");
	ctl_err[1] = errno;
	errno = 0;
	ctl_rc[2] = surand_stats(&st, sizeof(st));
	ctl_err[2] = errno;
	ctl_runs++;
}

static void control_in_handler_child(void)
{
	static const char *const names[3] = {"surand_reseed", "surand_set_backend", "surand_stats"};
	struct surand_stats st;
	uint8_t x[16];

	T_ASSERT(install(SIGUSR1, control_handler) == 0);
	surand_test_point_arm(SURAND_TP_BACKEND, SIGUSR1);
	surand_bytes(x, sizeof(x)); /* the point fires inside the call, marked busy */
	T_ASSERT_MSG(ctl_runs == 1, "the handler ran %d times", (int)ctl_runs);
	for (int i = 0; i < 3; i++)
		T_ASSERT_MSG(ctl_rc[i] == -1 && ctl_err[i] == EAGAIN,
			     "%s in a handler inside a call: %d (%s), not -1 EAGAIN", names[i],
			     (int)ctl_rc[i], strerror(ctl_err[i]));
	T_ASSERT(!t_all_zero(x, sizeof(x)));
	T_ASSERT_MSG(surand_reseed() == 0, "surand_reseed after the call: %s", strerror(errno));
	T_ASSERT_MSG(surand_stats(&st, sizeof(st)) == 0, "surand_stats after the call: %s",
		     strerror(errno));
}

static void control_calls_refuse_in_handler(void)
{
	T_ASSERT(t_in_child(control_in_handler_child, 30) == 0);
}

/* ==== main =========================================================================== */

static const struct t_child_case child_cases[] = {
	{"setup_before_handler", setup_before_handler_child},
	{"config_read", config_read_child},
	{"names", names_child},
	{"exit_destructor", exit_destructor_child},
	{"many_keys", many_keys_child},
	{"longjmp_recovers", longjmp_recovers_child},
	{"longjmp_lock_held", longjmp_lock_held_child},
	{"fork_paths_default", fork_paths_default_child},
	{"fork_paths_wipeonfork", fork_paths_wipeonfork_child},
	{"fork_paths_none", fork_paths_none_child},
	{"switch_race", switch_race_child},
	{NULL, NULL},
};

static void arm_and_run(const char *name, const char *arm, const char *child, const char *row)
{
	if (arm)
		setenv(ARM_ENV, arm, 1);
	rel_run_once(name, child, row, 30);
	unsetenv(ARM_ENV);
}

int main(int argc, char **argv)
{
	t_init(argc, argv);
	t_child_main(argc, argv, child_cases);
	arm_and_run("setup_before_handler", NULL, "setup_before_handler", "setup-not-in-handler");
	arm_and_run("signal_during_config_read", "config", "config_read", "signal-during-config-read");
	arm_and_run("signal_during_backend_names", "names", "names", "signal-during-backend-names");
	arm_and_run("signal_in_thread_exit", NULL, "exit_destructor", "signal-in-thread-exit");
	if (ALLOC_COUNTED)
		arm_and_run("first_call_many_keys", NULL, "many_keys", "first-call-allocates-nothing");
	else
		printf("# first_call_many_keys: not under a sanitizer (its allocator is not "
		       "interposable); run in the plain build\n");
	arm_and_run("siglongjmp_recovers", NULL, "longjmp_recovers", "siglongjmp-out-of-call");
	arm_and_run("siglongjmp_lock_held", NULL, "longjmp_lock_held", "siglongjmp-lock-held");
	T_RUN(late_destructor_takes_no_slot);
	T_RUN(first_call_abandoned_registers);
	T_RUN(set_backend_races_first_draw);
	T_RUN(control_calls_refuse_in_handler);
	STEP_RUN(signal_at_every_instruction);
	rel_per_backend("fork_paths_default", "fork_paths_default", "fork-paths-default", 30);
	rel_per_backend("fork_paths_wipeonfork", "fork_paths_wipeonfork", "fork-paths-wipeonfork", 30);
	rel_per_backend("fork_paths_none", "fork_paths_none", "fork-paths-no-wipe-on-fork", 30);
	return t_done();
}
