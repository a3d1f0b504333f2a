/*
 * fipscheck.c - the FIPS 140-2 block tests of tests/stress/fips.h on a
 * stream, for comparing them with rngtest (tests/reliability.sh) and for the
 * CI batteries.
 *   fipscheck --biased N SEED   writes N bytes of a stream whose bits are 1
 *                               with probability 1/2 + 1/128 (splitmix64 based)
 *   fipscheck --longruns N SEED writes N bytes of splitmix64 output with 32
 *                               zero bits in every 10th block after the
 *                               first 4 bytes (rngtest's bootstrap)
 *   fipscheck [--skip K] [--as-rngtest]
 *                               reads stdin, skips K bytes (rngtest uses the
 *                               first 4 for its continuous-run test), prints
 *                               "blocks N fail F monobit M poker P runs R long L";
 *                               --as-rngtest counts as rngtest does across
 *                               blocks (fips.h, fips_block_peer)
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>

#include "stress/fips.h"

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

int main(int argc, char **argv)
{
	uint8_t b[FIPS_BLOCK_BYTES];
	long blocks = 0, fail = 0, per[FIPS_NTESTS] = {0}, skip = 0;
	int t, last_bit = 0, as_peer = 0;

	if (argc == 4 && strcmp(argv[1], "--biased") == 0) {
		long n = strtol(argv[2], NULL, 10);
		uint64_t s = strtoull(argv[3], NULL, 10);
		for (long i = 0; i < n; i++) {
			uint64_t r = splitmix(&s), q = splitmix(&s);
			uint8_t v = (uint8_t)r | (uint8_t)(q & q >> 8 & q >> 16 & q >> 24 & q >> 32 & q >> 40);
			if (putchar(v) == EOF)
				return 1;
		}
		return 0;
	}
	if (argc == 4 && strcmp(argv[1], "--longruns") == 0) {
		long n = strtol(argv[2], NULL, 10);
		uint64_t s = strtoull(argv[3], NULL, 10);
		for (long i = 0; i < n; i++) {
			uint8_t v = (uint8_t)splitmix(&s);
			long pos = i - 4;
			if (pos >= 0 && (pos / FIPS_BLOCK_BYTES) % 10 == 3 &&
			    pos % FIPS_BLOCK_BYTES >= 1000 && pos % FIPS_BLOCK_BYTES < 1004)
				v = 0;
			if (putchar(v) == EOF)
				return 1;
		}
		return 0;
	}
	for (t = 1; t < argc; t++) {
		if (strcmp(argv[t], "--skip") == 0 && t + 1 < argc) {
			skip = strtol(argv[++t], NULL, 10);
		} else if (strcmp(argv[t], "--as-rngtest") == 0) {
			as_peer = 1;
		} else {
			fprintf(stderr, "fipscheck: unknown argument %s\n", argv[t]);
			return 2;
		}
	}
	while (skip-- > 0 && getchar() != EOF)
		;
	while (fread(b, 1, sizeof(b), stdin) == sizeof(b)) {
		unsigned f = as_peer ? fips_block_peer(b, &last_bit) : fips_block(b);
		blocks++;
		if (f)
			fail++;
		for (t = 0; t < FIPS_NTESTS; t++)
			if (f & (1u << t))
				per[t]++;
	}
	printf("blocks %ld fail %ld monobit %ld poker %ld runs %ld long %ld\n", blocks, fail,
	       per[FIPS_MONOBIT], per[FIPS_POKER], per[FIPS_RUNS], per[FIPS_LONGRUN]);
	return 0;
}
