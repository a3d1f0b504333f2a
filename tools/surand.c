/* surand.c - the surand command (skeleton).  SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "surand.h"

int main(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "bench") == 0)
		return surand_cmd_bench(argc - 1, argv + 1);
	if (argc >= 2 && strcmp(argv[1], "--version") == 0) {
		printf("surand %s\n", SURAND_VERSION_STRING);
		return SURAND_EX_OK;
	}
	fprintf(stderr, "usage: surand bench [--quick]\n");
	return SURAND_EX_USAGE;
}
