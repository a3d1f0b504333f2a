/*
 * fuzz_getrandom.c - the argument space of surand_getrandom() and
 * surand_getentropy(): lengths 0..70,000 into buffers of exactly that size
 * (ASan sees any write past them), NULL buffers, every flag word, checked
 * against the contract in include/surand.h: len or -1 with the documented
 * errno, never a short fill, never an all-zero fill of 16 bytes or more.
 * SPDX-License-Identifier: MIT
 */
#include <errno.h>
#include <limits.h>

#include "fuzz.h"
#include "surand.h"

#define KNOWN (SURAND_GRND_NONBLOCK | SURAND_GRND_RANDOM | SURAND_GRND_INSECURE)

static int all_zero(const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (b[i])
			return 0;
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = {data, size};

	while (f.n) {
		unsigned op = (unsigned)fz_u(&f, 1) % 4;
		unsigned flags = (unsigned)fz_u(&f, 4);
		size_t len = (size_t)fz_u(&f, 3) % 70001;
		int null_buf = (fz_u(&f, 1) & 15) == 0;
		uint8_t *buf = null_buf ? NULL : malloc(len ? len : 1);
		ssize_t r;
		int e;

		if (!null_buf && !buf)
			return 0;
		if (op == 3 && f.n)
			flags &= KNOWN; /* mostly valid flags too */
		errno = 0;
		if (op == 0 || op == 3) {
			r = surand_getrandom(buf, len, flags);
			e = errno;
			if ((flags & ~KNOWN) || (flags & (SURAND_GRND_INSECURE | SURAND_GRND_RANDOM)) ==
							(SURAND_GRND_INSECURE | SURAND_GRND_RANDOM))
				FZ_CHECK(r == -1 && e == EINVAL);
			else if (len == 0)
				FZ_CHECK(r == 0);
			else if (!buf)
				FZ_CHECK(r == -1 && e == EFAULT);
			else
				FZ_CHECK(r == (ssize_t)len && (len < 16 || !all_zero(buf, len)));
		} else if (op == 1) {
			int rc = surand_getentropy(buf, len);
			e = errno;
			if (len > 256)
				FZ_CHECK(rc == -1 && e == EIO);
			else if (len == 0)
				FZ_CHECK(rc == 0);
			else if (!buf)
				FZ_CHECK(rc == -1 && e == EFAULT);
			else
				FZ_CHECK(rc == 0 && (len < 16 || !all_zero(buf, len)));
		} else {
			if (buf) {
				surand_bytes(buf, len);
				FZ_CHECK(len < 16 || !all_zero(buf, len));
			}
			(void)surand_uniform(flags | (uint64_t)len << 32);
		}
		free(buf);
	}
	return 0;
}
