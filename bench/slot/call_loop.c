/*
 * call_loop.c - ns per surand_bytes() call of one size on one thread, for
 * bench/slot_size.sh (a tight loop, no harness: the cost of the call itself).
 *
 *   call_loop SIZE CALLS
 *
 * Built by the script against each variant of the static library (the shipped
 * build, not the bench build: no counters).
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <surand.h>

int main(int argc, char **argv)
{
	static unsigned char buf[65536];
	struct timespec a, b;
	unsigned long size, calls, i;

	if (argc != 3 || (size = strtoul(argv[1], NULL, 10)) == 0 || size > sizeof(buf) ||
	    (calls = strtoul(argv[2], NULL, 10)) == 0) {
		fprintf(stderr, "usage: call_loop SIZE(1..65536) CALLS\n");
		return 64;
	}
	surand_bytes(buf, size); /* seeds: not measured */
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < calls; i++) {
		surand_bytes(buf, size);
		__asm__ __volatile__("" : : "r"(buf) : "memory"); /* the bytes are used */
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%.2f\n", ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) /
				 (double)calls);
	return 0;
}
