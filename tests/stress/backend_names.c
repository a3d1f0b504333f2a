/* backend_names.c - prints surand_backend_names() (scripts: which backends
 * to run the batteries and fuzzers on).  SPDX-License-Identifier: MIT */
#include <stdio.h>

#include "surand.h"

int main(void)
{
	printf("%s\n", surand_backend_names());
	return 0;
}
