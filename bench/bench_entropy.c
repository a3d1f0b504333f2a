/*
 * bench_entropy.c - what one surand_add_event() costs: single thread, then one
 * thread per CPU (each on its own CPU slot, as far as the scheduler keeps
 * them there).  Public API only.
 *
 *   bench_entropy [calls per thread, default 20000000] [threads, default nproc]
 *                 [runs, default 7]
 *
 * Each run times the calls of every thread twice: with the thread's own CPU
 * time (CLOCK_THREAD_CPUTIME_ID, read by the thread itself: what the calls
 * cost, without the time the thread was not running) and with the wall clock
 * (CLOCK_MONOTONIC, from before the threads start to after the last joins).
 * The figures printed are the median of the runs, with the best run beside
 * it; with several threads a run's CPU figure is the mean over its threads.
 * No run is discarded: the median is over all of them.
 *
 * It also times, on their own, the things a call does besides mixing (find
 * its CPU, take an xchg trylock: the xchg mode's, which the rseq mode of
 * src/entropy/fastpool.c replaces with plain loads and stores, read the
 * coarse clock), in thread CPU time, median of the same number of runs, so a
 * figure can be read against what this machine charges for them.
 * SPDX-License-Identifier: MIT
 */
#include "surand.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 256
#define MAX_RUNS 101

static uint64_t calls = 20000000;

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

struct worker {
	pthread_t th;
	uint64_t base;
	double cpu_s; /* this thread's CPU time over its calls */
};

static void *run(void *arg)
{
	struct worker *w = arg;
	uint64_t i, x = w->base;
	double t0 = clock_s(CLOCK_THREAD_CPUTIME_ID);

	for (i = 0; i < calls; i++)
		surand_add_event(x + i);
	w->cpu_s = clock_s(CLOCK_THREAD_CPUTIME_ID) - t0;
	return NULL;
}

/* One run with nthreads threads: ns per call, per thread, in CPU and wall time. */
static int timed(unsigned nthreads, double *cpu_ns, double *wall_ns)
{
	static struct worker w[MAX_THREADS];
	double t0 = clock_s(CLOCK_MONOTONIC), cpu = 0;
	unsigned i, started;

	for (started = 0; started < nthreads; started++) {
		w[started].base = (uint64_t)started << 40;
		if (pthread_create(&w[started].th, NULL, run, &w[started]) != 0)
			break;
	}
	for (i = 0; i < started; i++)
		pthread_join(w[i].th, NULL);
	if (started < nthreads)
		return -1;
	*wall_ns = (clock_s(CLOCK_MONOTONIC) - t0) * 1e9 / (double)calls;
	for (i = 0; i < nthreads; i++)
		cpu += w[i].cpu_s;
	*cpu_ns = cpu / nthreads * 1e9 / (double)calls;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median of v[0..n) (sorts v); the best (smallest) is then v[0]. */
static double median(double *v, unsigned n)
{
	qsort(v, n, sizeof(v[0]), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ns per iteration of the parts each call contains, in this thread's CPU time */
static void parts(uint64_t n, double out[3])
{
	static uint32_t lock;
	struct timespec ts;
	volatile long sink = 0;
	double t0, t1, t2, t3;
	uint64_t i;

	t0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
	for (i = 0; i < n; i++)
		sink += sched_getcpu();
	t1 = clock_s(CLOCK_THREAD_CPUTIME_ID);
	for (i = 0; i < n; i++) {
		if (!__atomic_exchange_n(&lock, 1, __ATOMIC_ACQUIRE))
			__atomic_store_n(&lock, 0, __ATOMIC_RELEASE);
	}
	t2 = clock_s(CLOCK_THREAD_CPUTIME_ID);
	for (i = 0; i < n; i++) {
		clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
		sink += ts.tv_nsec;
	}
	t3 = clock_s(CLOCK_THREAD_CPUTIME_ID);
	(void)sink;
	out[0] = (t1 - t0) * 1e9 / (double)n;
	out[1] = (t2 - t1) * 1e9 / (double)n;
	out[2] = (t3 - t2) * 1e9 / (double)n;
}

int main(int argc, char **argv)
{
	static double p[3][MAX_RUNS], c1[MAX_RUNS], w1[MAX_RUNS], cn[MAX_RUNS], wn[MAX_RUNS];
	long np = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned nthreads = np > 0 ? (unsigned)np : 1, runs = 7, r, k;
	const char *tun = getenv("GLIBC_TUNABLES");
	struct surand_stats st;
	double pr[3], m[4];

	if (argc > 1)
		calls = strtoull(argv[1], NULL, 10);
	if (argc > 2)
		nthreads = (unsigned)strtoul(argv[2], NULL, 10);
	if (argc > 3)
		runs = (unsigned)strtoul(argv[3], NULL, 10);
	if (argc > 4 || calls == 0 || nthreads == 0 || nthreads > MAX_THREADS || runs == 0 ||
	    runs > MAX_RUNS) {
		fprintf(stderr, "usage: bench_entropy [calls>0] [threads 1..%d] [runs 1..%d]\n",
			MAX_THREADS, MAX_RUNS);
		return 2;
	}
	surand_add_event(0); /* set-up outside the timing */
	printf("bench_entropy: %llu calls per thread, %u runs, median (best) per call; "
	       "GLIBC_TUNABLES=%s\n",
	       (unsigned long long)calls, runs, tun ? tun : "(unset)");
	/* The runs interleave the three measurements, so a slow spell of the
	 * machine lands on all of them rather than on one. */
	for (r = 0; r < runs; r++) {
		parts(calls / 4 ? calls / 4 : 1, pr);
		for (k = 0; k < 3; k++)
			p[k][r] = pr[k];
		if (timed(1, &c1[r], &w1[r]) != 0 || timed(nthreads, &cn[r], &wn[r]) != 0) {
			fprintf(stderr, "bench_entropy: pthread_create failed\n");
			return 1;
		}
	}
	/* median() sorts: each median is taken before its best (v[0]) is read */
	for (k = 0; k < 3; k++)
		pr[k] = median(p[k], runs);
	m[0] = median(c1, runs);
	m[1] = median(w1, runs);
	m[2] = median(cn, runs);
	m[3] = median(wn, runs);
	printf("parts (thread CPU time): sched_getcpu %.1f ns, xchg trylock+unlock %.1f ns "
	       "(rseq mode has none), clock_gettime(MONOTONIC_COARSE) %.1f ns\n",
	       pr[0], pr[1], pr[2]);
	printf("surand_add_event, 1 thread: %.1f ns/call thread CPU (best %.1f), "
	       "%.1f ns/call wall (best %.1f)\n",
	       m[0], c1[0], m[1], w1[0]);
	printf("surand_add_event, %u threads: %.1f ns/call per thread CPU (best %.1f), "
	       "%.1f ns/call per thread wall (best %.1f)\n",
	       nthreads, m[2], cn[0], m[3], wn[0]);
	memset(&st, 0, sizeof(st));
	surand_stats(&st, sizeof(st));
	printf("%llu events, %llu bits credited to the pool now\n", (unsigned long long)st.events,
	       (unsigned long long)st.pool_credit_bits);
	return 0;
}
