/*
 * harness.h - the small shared test harness.
 *
 * Each test binary runs cases with T_RUN(fn); each case prints one line:
 *   PASS <binary>/<case>
 *   FAIL <binary>/<case>: <file>:<line>: <what>
 *   SKIP <binary>/<case>: <why> (apt-get install <pkg>)
 * scripts/run-tests.sh adds the lines of every binary and script and ends the
 * run with "N passed, N failed, N skipped".
 */
#ifndef SURAND_TEST_HARNESS_H
#define SURAND_TEST_HARNESS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

void t_init(int argc, char **argv);
int t_done(void); /* exit status: 0 if no case failed */
void t_run_case(const char *name, void (*fn)(void));
void t_fail_at(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Marks the running case skipped; the case must return right after. */
void t_skip(const char *why, const char *apt_pkg);
int t_case_failed(void);
/* Marks the running case failed without a line (a child already printed it). */
void t_fail_silent(void);
/*
 * Runs fn in a forked child (fresh library state for fn's first call) and
 * waits at most timeout_s; the case fails if fn failed, crashed or hung.
 * Returns the child's wait status (or -1 on timeout).
 */
int t_in_child(void (*fn)(void), int timeout_s);
/*
 * Like t_in_child, but the child re-executes this binary ("--child NAME"), so
 * fn runs in a process whose library has never been used.  main() must call
 * t_child_main(argc, argv, cases) right after t_init.
 */
struct t_child_case {
	const char *name;
	void (*fn)(void);
};
int t_exec_child(const char *name, int timeout_s);
/*
 * execve for a test that starts one of this build's programs (itself, a
 * helper): under a cross build's emulator (SURAND_TEST_RUNNER, set by
 * scripts/run-tests.sh for make check-arm64) the program goes through the
 * runner, since the host's kernel cannot execute the target's binaries;
 * otherwise plain execve.  Returns only on failure (-1, errno).
 */
int t_execve(const char *path, char *const argv[], char *const envp[]);
/* A child case's exit status when it skipped (it printed the SKIP line). */
#define T_CHILD_SKIPPED 77
/*
 * 1, with a SKIP line naming it, when madvise(MADV_WIPEONFORK) is accepted
 * but not honoured here: the probe page's VmFlags (/proc/self/smaps) lack
 * "wf" after a successful madvise.  qemu's user-mode emulator does that (it answers
 * every madvise with success and applies none); a Linux kernel either
 * honours the advice (4.14+) or refuses it (EINVAL).  0 otherwise.
 */
int t_wipeonfork_ignored_skip(void);
/* The probe alone: 1 where madvise(MADV_WIPEONFORK) is accepted but not
 * applied (no SKIP line), 0 otherwise. */
int t_madvise_ignored(void);
/* The runner as a shell prefix ("qemu-aarch64-static "), or "": for popen. */
const char *t_runner_prefix(void);
/* Under a runner: removes the lines the emulator itself writes to a program's
 * stderr ("qemu: uncaught target signal 6 (Aborted) - core dumped"), so a
 * test compares what the program wrote.  No-op otherwise. */
void t_strip_runner_lines(char *text);
int t_child_main(int argc, char **argv, const struct t_child_case *cases);
/* Environment: SURAND_REQUIRE_ALL=1 (skips count as failures), SURAND_TEST_QUICK=1. */
int t_quick(void);
/* 1 when all len bytes at p are zero (read through volatile: memory the
 * library or a fork may have wiped behind the compiler's back). */
int t_all_zero(const void *p, size_t len);
/* 1 when the len-byte window at p looks random: at most two zero bytes (16
 * random bytes have more about once in 31,000; 8 once in 300,000).  Counters,
 * lengths, padding and pointers have more, and match by chance anywhere: the
 * scans for secrets look only for windows that pass (read through volatile). */
int t_random_looking(const void *p, size_t len);
/*
 * The ways a process can make a child that shares no memory with it: fork()
 * (atfork handlers run), glibc's _Fork() (none run) and a raw clone(2) with
 * SIGCHLD and no CLONE_VM (libc is bypassed altogether).  Returns what the
 * call returns: 0 in the child, the child's id, or -1.
 */
enum t_fork_way { T_FORK_FORK, T_FORK_UFORK, T_FORK_CLONE, T_FORK_WAYS };
extern const char *const t_fork_names[T_FORK_WAYS];
int t_fork_by(enum t_fork_way way);
/* CLOCK_MONOTONIC in seconds, for the time bounds of the tests' loops. */
double t_now_s(void);

#define T_RUN(fn) t_run_case(#fn, fn)

#define T_ASSERT(cond)                                                    \
	do {                                                              \
		if (!(cond)) {                                            \
			t_fail_at(__FILE__, __LINE__, "assert %s", #cond); \
			return;                                           \
		}                                                         \
	} while (0)

#define T_ASSERT_MSG(cond, ...)                                   \
	do {                                                      \
		if (!(cond)) {                                    \
			t_fail_at(__FILE__, __LINE__, __VA_ARGS__); \
			return;                                   \
		}                                                 \
	} while (0)

#define T_ASSERT_EQ_U64(a, b)                                                          \
	do {                                                                           \
		unsigned long long t_a_ = (unsigned long long)(a),                     \
				   t_b_ = (unsigned long long)(b);                     \
		if (t_a_ != t_b_) {                                                    \
			t_fail_at(__FILE__, __LINE__, "%s == %s: %llu != %llu", #a, #b, \
				  t_a_, t_b_);                                         \
			return;                                                        \
		}                                                                      \
	} while (0)

#define T_ASSERT_MEM_EQ(a, b, n)                                                       \
	do {                                                                           \
		size_t t_off_ = t_memdiff((a), (b), (n));                              \
		if (t_off_ != (size_t)-1) {                                            \
			t_fail_at(__FILE__, __LINE__, "%s == %s differ at byte %zu of %zu", \
				  #a, #b, t_off_, (size_t)(n));                        \
			return;                                                        \
		}                                                                      \
	} while (0)

/* Offset of the first differing byte, or (size_t)-1. */
size_t t_memdiff(const void *a, const void *b, size_t n);
/* Parses hex (whitespace ignored) into out; returns the byte count or -1. */
long t_hex(const char *hex, uint8_t *out, size_t cap);
/* A fast non-cryptographic PRNG for test inputs (splitmix64). */
uint64_t t_rand64(uint64_t *state);
void t_randbytes(uint64_t *state, void *buf, size_t len);

#endif
