/*
 * benchcount.h - shared-write counting for the bench build only.
 *
 * The hardware-independent reason a design scales or not: how many atomic
 * read-modify-writes and lock acquisitions on objects shared between
 * threads each call makes.  Code on a generator's paths marks them:
 *
 *   SURAND_BENCH_COUNT_RMW();      one atomic RMW (fetch_add, CAS, xchg, a
 *                                  trylock attempt...) on a shared object
 *   SURAND_BENCH_COUNT_RMW_N(n);   n of them
 *   SURAND_BENCH_COUNT_LOCK();     one lock acquisition of a shared lock
 *                                  (count it where the lock is obtained,
 *                                  once, whatever the lock does inside)
 *
 * Outside bench builds (SURAND_BENCH_BUILD undefined: the shipped library,
 * the test build) each macro is ((void)0): no code, no data.  In the bench
 * build each adds to a per-thread counter (initial-exec TLS, a plain
 * increment: counting adds no shared write of its own).  bench/ programs
 * read the calling thread's counters with surand_bench_counts_get().
 *
 * Not counted: per-thread state (not shared), relaxed plain loads of shared
 * read-mostly words, and the kernel's own locks inside a syscall.
 * SPDX-License-Identifier: MIT
 */
#ifndef SURAND_BENCHCOUNT_H
#define SURAND_BENCHCOUNT_H

#include <stdint.h>

#ifdef SURAND_BENCH_BUILD

struct surand_bench_counts {
	uint64_t rmw;   /* atomic read-modify-writes on shared objects */
	uint64_t locks; /* acquisitions of shared locks */
};

extern __thread struct surand_bench_counts surand_bench_tls
	__attribute__((tls_model("initial-exec"), visibility("hidden")));

#define SURAND_BENCH_COUNT_RMW() ((void)(surand_bench_tls.rmw++))
#define SURAND_BENCH_COUNT_RMW_N(n) ((void)(surand_bench_tls.rmw += (uint64_t)(n)))
#define SURAND_BENCH_COUNT_LOCK() ((void)(surand_bench_tls.locks++))

/* The calling thread's counters since it started (bench/ programs). */
void surand_bench_counts_get(struct surand_bench_counts *out)
	__attribute__((visibility("hidden")));
/* "surand-bench-build": scripts/check-install.sh proves it is not installed. */
const char *surand_bench_build_marker(void) __attribute__((visibility("hidden")));

#else

#define SURAND_BENCH_COUNT_RMW() ((void)0)
#define SURAND_BENCH_COUNT_RMW_N(n) ((void)0)
#define SURAND_BENCH_COUNT_LOCK() ((void)0)

#endif

#endif /* SURAND_BENCHCOUNT_H */
