/*
 * shared_writes.c - per backend: atomic read-modify-writes and lock
 * acquisitions on shared objects per call, beside the throughput.
 *
 * Built against the bench build (build/bench/libsurand-bench.a, with
 * -DSURAND_BENCH_BUILD), where the library counts them per thread
 * (src/benchcount.h).  Uses the same measuring loop as `surand bench`
 * (bench/lib/bench_engine.c); each worker reads its own counters as it enters
 * and leaves the measured window, so exactly the measured calls are
 * counted.  Each backend runs in its own child process (a backend is
 * chosen once per process).
 *
 *   build/bench/shared_writes [--backends LIST] [--sizes LIST] [--threads LIST]
 *                             [--seconds S] [--selftest]
 *
 * The counts are the hardware-independent half of the scaling story: a
 * design with 0 shared RMWs and 0 locks per call has nothing that makes
 * threads wait for each other; one with a lock per call serialises.
 * SPDX-License-Identifier: MIT
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "benchcount.h"
#include "surand.h"

#ifndef SURAND_BENCH_BUILD
#error "bench/ programs are built with -DSURAND_BENCH_BUILD against libsurand-bench.a"
#endif

#define MAXN 32

struct counts_hook {
	struct surand_bench_counts *begin, *end;
};

static void hook_begin(void *arg, unsigned t)
{
	struct counts_hook *h = arg;
	surand_bench_counts_get(&h->begin[t]);
}

static void hook_end(void *arg, unsigned t)
{
	struct counts_hook *h = arg;
	surand_bench_counts_get(&h->end[t]);
}

static int parse_list(const char *s, char out[][48], unsigned *n)
{
	*n = 0;
	while (*s) {
		size_t l = strcspn(s, ",");
		if (l == 0 || l >= 48 || *n >= MAXN)
			return -1;
		memcpy(out[*n], s, l);
		out[*n][l] = 0;
		(*n)++;
		s += l;
		if (*s == ',')
			s++;
	}
	return *n ? 0 : -1;
}

static int parse_num(const char *s, unsigned long max, unsigned long *v)
{
	char *end;
	errno = 0;
	*v = strtoul(s, &end, 10);
	return (*s < '0' || *s > '9' || *end || errno || *v == 0 || *v > max) ? -1 : 0;
}

static void *selftest_thread(void *arg)
{
	struct surand_bench_counts c;
	(void)arg;
	surand_bench_counts_get(&c);
	int fresh = c.rmw == 0 && c.locks == 0;
	SURAND_BENCH_COUNT_LOCK();
	surand_bench_counts_get(&c);
	return (void *)(intptr_t)(fresh && c.locks == 1 && c.rmw == 0);
}

/* The counting plumbing itself: macros in this program, counters in the library. */
static int selftest(void)
{
	struct surand_bench_counts a, b;
	pthread_t t;
	void *ok = NULL;
	int fails = 0;

	surand_bench_counts_get(&a);
	SURAND_BENCH_COUNT_RMW();
	SURAND_BENCH_COUNT_RMW_N(5);
	SURAND_BENCH_COUNT_LOCK();
	SURAND_BENCH_COUNT_LOCK();
	surand_bench_counts_get(&b);
	if (b.rmw - a.rmw == 6 && b.locks - a.locks == 2) {
		printf("PASS shared_writes/macros_count\n");
	} else {
		printf("FAIL shared_writes/macros_count: rmw +%llu (want 6), locks +%llu (want 2)\n",
		       (unsigned long long)(b.rmw - a.rmw), (unsigned long long)(b.locks - a.locks));
		fails++;
	}
	if (pthread_create(&t, NULL, selftest_thread, NULL) == 0 && pthread_join(t, &ok) == 0 && ok) {
		printf("PASS shared_writes/per_thread\n");
	} else {
		printf("FAIL shared_writes/per_thread: a new thread's counters are not its own\n");
		fails++;
	}
	surand_bench_counts_get(&a);
	if (a.rmw == b.rmw && a.locks == b.locks) {
		printf("PASS shared_writes/other_thread_untouched\n");
	} else {
		printf("FAIL shared_writes/other_thread_untouched: main thread's counters moved\n");
		fails++;
	}
	if (strcmp(surand_bench_build_marker(), "surand-bench-build") == 0) {
		printf("PASS shared_writes/marker\n");
	} else {
		printf("FAIL shared_writes/marker: %s\n", surand_bench_build_marker());
		fails++;
	}
	return fails ? 1 : 0;
}

/* 0 exactly, else three significant digits (slow paths: 1e-05 per call) */
static void per_call(char *buf, size_t n, uint64_t count, uint64_t calls)
{
	if (count == 0)
		snprintf(buf, n, "0");
	else
		snprintf(buf, n, "%.3g", (double)count / (double)calls);
}

static void run_backend(const char *name, size_t *sizes, unsigned nsizes, unsigned *threads,
			unsigned nthreads, double seconds)
{
	char desc[400], why[256];
	if (bench_backend_source.setup(name, desc, sizeof(desc), why, sizeof(why)) != 0) {
		printf("%-12s absent: %s\n", name, why);
		return;
	}
	for (unsigned si = 0; si < nsizes; si++) {
		for (unsigned ti = 0; ti < nthreads; ti++) {
			struct counts_hook h;
			struct bench_hooks hooks = {hook_begin, hook_end, &h};
			struct bench_result r;
			h.begin = calloc(threads[ti], sizeof(*h.begin));
			h.end = calloc(threads[ti], sizeof(*h.end));
			if (!h.begin || !h.end) {
				printf("%-12s out of memory\n", name);
				free(h.begin);
				free(h.end);
				return;
			}
			if (bench_run_cell(&bench_backend_source, sizes[si], threads[ti], seconds,
					   seconds / 4 > 0.01 ? seconds / 4 : 0.01, &hooks, &r) != 0) {
				printf("%-12s %7zu %7u  %s\n", name, sizes[si], threads[ti], r.error);
			} else {
				uint64_t rmw = 0, locks = 0;
				for (unsigned t = 0; t < threads[ti]; t++) {
					rmw += h.end[t].rmw - h.begin[t].rmw;
					locks += h.end[t].locks - h.begin[t].locks;
				}
				char a[32], b[32];
				per_call(a, sizeof(a), rmw, r.calls);
				per_call(b, sizeof(b), locks, r.calls);
				printf("%-12s %7zu %7u %12.0f %9.1f %10s %10s%s\n", name, sizes[si],
				       threads[ti], r.calls_per_s, r.mb_per_s, a, b,
				       r.check_ok && !r.errors ? "" : "  (check FAILED)");
			}
			fflush(stdout);
			free(h.begin);
			free(h.end);
		}
	}
}

int main(int argc, char **argv)
{
	char backends[MAXN][48], items[MAXN][48];
	unsigned nb = 0, n;
	size_t sizes[MAXN] = {16, 4096};
	unsigned nsizes = 2, threads[MAXN] = {1, 2, 8}, nthreads = 3;
	double seconds = 0.2;
	unsigned long v;

	if (parse_list(surand_backend_names(), backends, &nb) != 0)
		return 1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--selftest"))
			return selftest();
		if (!val) {
			fprintf(stderr, "shared_writes: %s needs a value (or unknown option)\n", a);
			return 64;
		}
		i++;
		if (!strcmp(a, "--backends")) {
			if (parse_list(val, backends, &nb) != 0)
				goto bad;
		} else if (!strcmp(a, "--sizes")) {
			if (parse_list(val, items, &n) != 0)
				goto bad;
			for (unsigned k = 0; k < n; k++) {
				if (parse_num(items[k], BENCH_MAX_SIZE_BYTES, &v) != 0)
					goto bad;
				sizes[k] = v;
			}
			nsizes = n;
		} else if (!strcmp(a, "--threads")) {
			if (parse_list(val, items, &n) != 0)
				goto bad;
			for (unsigned k = 0; k < n; k++) {
				if (parse_num(items[k], BENCH_MAX_THREADS, &v) != 0)
					goto bad;
				threads[k] = (unsigned)v;
			}
			nthreads = n;
		} else if (!strcmp(a, "--seconds")) {
			char *end;
			seconds = strtod(val, &end);
			if (*end || !(seconds > 0) || seconds > BENCH_MAX_SECONDS)
				goto bad;
		} else {
			goto bad;
		}
		continue;
bad:
		fprintf(stderr, "shared_writes: bad value for %s: '%s'\n", a, val);
		return 64;
	}

	printf("shared writes per call (bench build counters, measured calls only; %.2f s per "
	       "cell)\n%-12s %7s %7s %12s %9s %10s %10s\n",
	       seconds, "backend", "size", "threads", "calls/s", "MB/s", "rmw/call", "locks/call");
	fflush(stdout);
	for (unsigned b = 0; b < nb; b++) {
		pid_t pid = fork();
		if (pid == 0) {
			run_backend(backends[b], sizes, nsizes, threads, nthreads, seconds);
			fflush(stdout);
			_exit(0);
		}
		int st = 0;
		if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
			printf("%-12s FAILED: its process died\n", backends[b]);
			return 1;
		}
	}
	return 0;
}
