/*
 * fips_tolerance.c - prints the failing-block tolerance of N FIPS 140-2 blocks
 * (tests/stress/fips.h: the smallest k a true random source exceeds with
 * probability at most 1e-6) and the expected count, for the CI's rngtest
 * stage (mk/ci-extra.sh): "fips-tolerance N" -> "TOL EXPECTED".
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>

#include "stress/fips.h"

int main(int argc, char **argv)
{
	struct fips_rates fr;
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 0;

	if (n <= 0) {
		fprintf(stderr, "usage: fips-tolerance BLOCKS\n");
		return 64;
	}
	if (fips_rates(&fr) != 0)
		return 1;
	printf("%ld %.3f\n", fips_tolerance(n, fr.total), fr.total * (double)n);
	return 0;
}
