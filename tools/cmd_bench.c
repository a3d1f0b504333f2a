/* cmd_bench.c - `surand bench` (skeleton: ChaCha20 body speed).  SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "internal.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int surand_cmd_bench(int argc, char **argv)
{
	static uint8_t buf[65536];
	uint32_t key[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	uint64_t ctr = 0;
	double t0 = now_s(), t;
	size_t n = 0;

	if (argc >= 2 && strcmp(argv[1], "chacha") == 0)
		return surand_bench_chacha(argc - 1, argv + 1);
	do {
		surand_chacha20_blocks(key, ctr, 0, buf, sizeof(buf) / 64);
		ctr += sizeof(buf) / 64;
		n += sizeof(buf);
	} while ((t = now_s() - t0) < 0.5);
	printf("chacha20 %-8s %8.1f MB/s (64 KiB outputs, byte %u)\n", surand_chacha20_impl_name(),
	       n / t / 1e6, buf[n % sizeof(buf)]);
	return SURAND_EX_OK;
}
