/*
 * clock.c - the coarse monotonic clock the generator reads at refill only.
 * CLOCK_MONOTONIC_COARSE is served by the vDSO (no syscall, a few ns); its
 * resolution (a jiffy) is far finer than the reseed intervals (>= 1 s).
 * SPDX-License-Identifier: MIT
 */
#include "internal.h"

#include <time.h>

#ifdef SURAND_TEST_BUILD
#include "test_hooks.h"
static uint64_t clock_offset_ns; /* injected by tests: the clock jumps ahead */

void surand_test_clock_advance(uint64_t ns)
{
	__atomic_fetch_add(&clock_offset_ns, ns, __ATOMIC_RELAXED);
}
#endif

uint64_t surand_now_ns(void)
{
	struct timespec ts;
	uint64_t ns;

	if (clock_gettime(CLOCK_MONOTONIC_COARSE, &ts) != 0)
		clock_gettime(CLOCK_MONOTONIC, &ts);
	ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#ifdef SURAND_TEST_BUILD
	ns += __atomic_load_n(&clock_offset_ns, __ATOMIC_RELAXED);
#endif
	return ns;
}
