/*
 * bench_entropy.c - what one surand_add_event() costs: single thread, then one
 * thread per CPU (each on its own CPU slot, as far as the scheduler keeps
 * them there).  Public API only.  Prints ns per call.
 *
 *   bench_entropy [calls per thread, default 20000000] [threads, default nproc]
 *
 * It also times, on their own, the things a call does besides mixing (find
 * its CPU, take an xchg trylock: the xchg mode's, which the rseq mode of
 * src/entropy/fastpool.c replaces with plain loads and stores, read the
 * coarse clock), so a figure can be read against what this machine charges
 * for them.
 * SPDX-License-Identifier: MIT
 */
#include "surand.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static uint64_t calls = 20000000;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void *run(void *arg)
{
	uint64_t i, x = (uint64_t)(uintptr_t)arg;

	for (i = 0; i < calls; i++)
		surand_add_event(x + i);
	return NULL;
}

static double timed(unsigned nthreads)
{
	pthread_t th[256];
	double t0 = now_s();
	unsigned i;

	for (i = 0; i < nthreads; i++)
		if (pthread_create(&th[i], NULL, run, (void *)(uintptr_t)(i << 20)) != 0)
			return -1;
	for (i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	return (now_s() - t0) * 1e9 / (double)calls; /* ns per call in each thread */
}

/* ns per iteration of the parts each call contains */
static void parts(uint64_t n)
{
	static uint32_t lock;
	struct timespec ts;
	volatile long sink = 0;
	double t0, t1, t2, t3;
	uint64_t i;

	t0 = now_s();
	for (i = 0; i < n; i++)
		sink += sched_getcpu();
	t1 = now_s();
	for (i = 0; i < n; i++) {
		if (!__atomic_exchange_n(&lock, 1, __ATOMIC_ACQUIRE))
			__atomic_store_n(&lock, 0, __ATOMIC_RELEASE);
	}
	t2 = now_s();
	for (i = 0; i < n; i++) {
		clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
		sink += ts.tv_nsec;
	}
	t3 = now_s();
	(void)sink;
	printf("parts: sched_getcpu %.1f ns, xchg trylock+unlock %.1f ns (rseq mode has none), "
	       "clock_gettime(MONOTONIC_COARSE) %.1f ns\n",
	       (t1 - t0) * 1e9 / n, (t2 - t1) * 1e9 / n, (t3 - t2) * 1e9 / n);
}

int main(int argc, char **argv)
{
	long np = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned nthreads = np > 0 ? (unsigned)np : 1;
	struct surand_stats st;
	double one, many;

	if (argc > 1)
		calls = strtoull(argv[1], NULL, 10);
	if (argc > 2)
		nthreads = (unsigned)strtoul(argv[2], NULL, 10);
	if (calls == 0 || nthreads == 0 || nthreads > 256) {
		fprintf(stderr, "usage: bench_entropy [calls>0] [threads 1..256]\n");
		return 2;
	}
	surand_add_event(0); /* set-up outside the timing */
	parts(calls / 4);
	one = timed(1);
	many = timed(nthreads);
	surand_stats(&st, sizeof(st));
	printf("surand_add_event: %.1f ns/call (1 thread), %.1f ns/call per thread (%u threads); "
	       "%llu events, %llu bits credited to the pool now\n",
	       one, many, nthreads, (unsigned long long)st.events,
	       (unsigned long long)st.pool_credit_bits);
	return 0;
}
