/*
 * bench/host/probe.c - what the host gives two threads that share nothing.
 *
 * Runs THREADS copies of one loop, each on private memory, and prints each
 * copy's ns per iteration.  On a machine whose cores are really separate the
 * per-copy cost is the same at 1 and 2 threads; a slowdown at 2 threads is
 * the host's (shared core resources, another tenant), not the code's.
 *   alu: four independent xorshift chains, registers only
 *   mem: a 4-byte load and a 4-byte store per iteration to a private 4 KiB
 *        buffer (what a small surand call does, without surand)
 *
 *   probe alu|mem THREADS [ITERATIONS]
 * SPDX-License-Identifier: MIT
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int mem_mode;
static long iters = 200000000;
static pthread_barrier_t start;
static volatile uint64_t sink;

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void *worker(void *arg)
{
	static __thread uint32_t buf[1024] __attribute__((aligned(64)));
	volatile uint32_t *b = buf;
	uint64_t x = 0x9e3779b97f4a7c15ull + (uintptr_t)arg, y = x * 3, z = x * 5, w = x * 7;
	double t0, t;
	long i;

	pthread_barrier_wait(&start);
	t0 = now_s();
	if (mem_mode) {
		for (i = 0; i < iters; i++) {
			uint32_t v = b[i & 1023];
			b[(i + 512) & 1023] = v + (uint32_t)i;
		}
		x = b[7];
	} else {
		for (i = 0; i < iters; i++) {
			x ^= x << 13; x ^= x >> 7; x ^= x << 17;
			y ^= y << 13; y ^= y >> 7; y ^= y << 17;
			z ^= z << 13; z ^= z >> 7; z ^= z << 17;
			w ^= w << 13; w ^= w >> 7; w ^= w << 17;
		}
	}
	t = now_s() - t0;
	sink = x ^ y ^ z ^ w;
	*(double *)arg = t / (double)iters * 1e9;
	return NULL;
}

int main(int argc, char **argv)
{
	double ns[64];
	pthread_t th[64];
	int n, i;

	if (argc < 3 || (strcmp(argv[1], "alu") && strcmp(argv[1], "mem")) ||
	    (n = atoi(argv[2])) < 1 || n > 64) {
		fprintf(stderr, "usage: probe alu|mem THREADS(1..64) [ITERATIONS]\n");
		return 64;
	}
	mem_mode = strcmp(argv[1], "mem") == 0;
	if (argc > 3 && (iters = atol(argv[3])) < 1000) {
		fprintf(stderr, "probe: ITERATIONS must be at least 1000\n");
		return 64;
	}
	pthread_barrier_init(&start, NULL, (unsigned)n);
	for (i = 0; i < n; i++)
		if (pthread_create(&th[i], NULL, worker, &ns[i]) != 0) {
			perror("probe: pthread_create");
			return 71;
		}
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	for (i = 0; i < n; i++)
		printf("%s%.3f", i ? " " : "", ns[i]);
	printf("\n");
	return 0;
}
