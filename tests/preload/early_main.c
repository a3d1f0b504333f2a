/*
 * early_main.c - checks what libplearly.so's constructor got (tests/preload.sh
 * runs it under the preload; the stats line shows who served the bytes).
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <string.h>

extern int plearly_status;
extern unsigned char plearly_bytes[64];

int main(void)
{
	int i, same = 1;

	for (i = 1; i < 64; i++)
		if (plearly_bytes[i] != plearly_bytes[0])
			same = 0;
	if (plearly_status != 1 || same || memcmp(plearly_bytes, plearly_bytes + 32, 32) == 0) {
		printf("FAIL early: constructor status %d, bytes %s\n", plearly_status,
		       same ? "constant" : "repeat");
		return 1;
	}
	printf("ok early\n");
	return 0;
}
