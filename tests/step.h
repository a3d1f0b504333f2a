/*
 * step.h - a signal at every instruction boundary of a stretch of code.
 *
 * On x86-64 the trap flag makes the CPU raise SIGTRAP after each instruction;
 * the handler runs with the flag clear (the kernel clears it for the
 * handler and sigreturn restores it), so what the handler does is not
 * stepped.  step_run(fn, arg, at) runs fn(arg) single-stepped and calls
 * at(n, arg) in the handler at its n-th instruction boundary (n from 1).
 * It returns the boundaries counted, 0 where stepping is not available
 * (another architecture, or valgrind, which does not emulate the flag).
 *
 * Plain builds only: a sanitizer's instrumentation turns each step into
 * thousands; callers leave the cases out where step_unavailable() says why.
 * SPDX-License-Identifier: MIT
 */
#ifndef SURAND_TEST_STEP_H
#define SURAND_TEST_STEP_H

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#include "harness.h"

/* Set while stepping; a hook clears it to end stepping at the next boundary. */
static volatile sig_atomic_t step_armed;

#if defined(__x86_64__)
#define STEP_AVAILABLE 1
#define STEP_TF 0x100ull

static volatile unsigned long step_count;
static void (*step_at)(unsigned long n, void *arg);
static void *step_arg;

static void step_trap(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;

	(void)sig;
	(void)si;
	if (!step_armed) {
		uc->uc_mcontext.gregs[REG_EFL] &= ~(greg_t)STEP_TF; /* stepping ends */
		return;
	}
	step_count++;
	if (step_at)
		step_at(step_count, step_arg);
}

static __attribute__((noinline)) unsigned long step_run(void (*fn)(void *), void *arg,
							void (*at)(unsigned long, void *))
{
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = step_trap;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTRAP, &sa, &old) != 0)
		return 0;
	step_at = at;
	step_arg = arg;
	step_count = 0;
	step_armed = 1;
	__asm__ __volatile__("pushfq\n\torq $0x100, (%%rsp)\n\tpopfq" ::: "memory", "cc");
	fn(arg);
	step_armed = 0;
	__asm__ __volatile__("pushfq\n\tandq $~0x100, (%%rsp)\n\tpopfq" ::: "memory", "cc");
	sigaction(SIGTRAP, &old, NULL);
	return step_count;
}
#else
#define STEP_AVAILABLE 0
static inline unsigned long step_run(void (*fn)(void *), void *arg,
				     void (*at)(unsigned long, void *))
{
	(void)at;
	fn(arg);
	return 0;
}
#endif

/* NULL where step_run() single-steps this build, else why it does not. */
static inline const char *step_unavailable(void)
{
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	return "a sanitizer build";
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
	return "a sanitizer build";
#endif
#endif
	if (!STEP_AVAILABLE)
		return "no trap flag on this architecture";
	if (getenv("SURAND_VALGRIND"))
		return "valgrind does not emulate the trap flag";
	return NULL;
}

/* T_RUN(fn) where this build single-steps; elsewhere a line that says why
 * the case is left out (not a skip: it runs in the plain x86-64 build). */
#define STEP_RUN(fn) step_run_case(#fn, fn)
static inline void step_run_case(const char *name, void (*fn)(void))
{
	const char *why = step_unavailable();

	if (why)
		printf("# %s: single-steps the plain x86-64 build only (here: %s)\n", name, why);
	else
		t_run_case(name, fn);
}

#endif /* SURAND_TEST_STEP_H */
