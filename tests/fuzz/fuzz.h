/*
 * fuzz.h - shared by the libFuzzer harnesses of tests/fuzz/: a byte reader
 * over the input and the check macro.  A violated contract traps (libFuzzer
 * and the replay runner both report it as a crash).
 * SPDX-License-Identifier: MIT
 */
#ifndef SURAND_FUZZ_H
#define SURAND_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fz {
	const uint8_t *p;
	size_t n;
};

static inline uint64_t fz_u(struct fz *f, int bytes)
{
	uint64_t v = 0;

	for (int i = 0; i < bytes; i++) {
		v |= (uint64_t)(f->n ? *f->p : 0) << (8 * i);
		if (f->n) {
			f->p++;
			f->n--;
		}
	}
	return v;
}

#define FZ_CHECK(cond)                                                                      \
	do {                                                                                \
		if (!(cond)) {                                                              \
			fprintf(stderr, "%s:%d: contract violated: %s\n", __FILE__, __LINE__, \
				#cond);                                                     \
			abort();                                                            \
		}                                                                           \
	} while (0)

#endif
