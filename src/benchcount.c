/*
 * benchcount.c - the per-thread counters of src/benchcount.h and the bench
 * build's marker.  Compiles to nothing outside bench builds.
 * SPDX-License-Identifier: MIT
 */
#include "benchcount.h"

#ifdef SURAND_BENCH_BUILD

__thread struct surand_bench_counts surand_bench_tls
	__attribute__((tls_model("initial-exec"), visibility("hidden")));

void surand_bench_counts_get(struct surand_bench_counts *out)
{
	*out = surand_bench_tls;
}

/* Present in bench builds only; check-install.sh looks for it in what is installed. */
static const char bench_marker[] __attribute__((used)) = "surand-bench-build";

const char *surand_bench_build_marker(void)
{
	return bench_marker;
}

#else

/* ISO C wants at least one declaration in a translation unit. */
typedef int surand_benchcount_unused;

#endif
