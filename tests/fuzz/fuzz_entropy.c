/*
 * fuzz_entropy.c - the input side: surand_add_entropy() with arbitrary data,
 * lengths and credits (including NULL buffers and credits above 8 * len) and
 * surand_add_event() with arbitrary values, interleaved with draws and
 * reseeds.  Contract (include/surand.h): 0, or -1 with EFAULT (NULL with
 * len > 0) or EINVAL (credit above 8 * len, nothing credited); draws stay
 * full and non-zero whatever was mixed in.
 * SPDX-License-Identifier: MIT
 */
#include <errno.h>

#include "fuzz.h"
#include "surand.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = {data, size};
	struct surand_stats st0, st1;
	uint8_t out[64];

	while (f.n) {
		unsigned op = (unsigned)fz_u(&f, 1) % 8;

		if (op < 4) {
			size_t len = (size_t)fz_u(&f, 2) % 1024, avail;
			unsigned credit = (unsigned)fz_u(&f, 4);
			const uint8_t *buf = op == 3 ? NULL : f.p;
			int rc;

			avail = f.n < len ? f.n : len; /* the data is what is left of the input */

			if (op == 1)
				credit %= 8 * (unsigned)avail + 2; /* near the limit */
			surand_stats(&st0, sizeof(st0));
			errno = 0;
			rc = surand_add_entropy(buf, avail, credit);
			surand_stats(&st1, sizeof(st1));
			if (!buf && avail > 0)
				FZ_CHECK(rc == -1 && errno == EFAULT);
			else if ((uint64_t)credit > 8 * (uint64_t)avail)
				FZ_CHECK(rc == -1 && errno == EINVAL &&
					 st1.entropy_bytes_added == st0.entropy_bytes_added);
			else
				FZ_CHECK(rc == 0);
			f.p += avail;
			f.n -= avail;
		} else if (op < 6) {
			surand_add_event(fz_u(&f, 8));
		} else if (op == 6) {
			memset(out, 0, sizeof(out));
			surand_bytes(out, sizeof(out));
			int zero = 1;
			for (size_t i = 0; i < sizeof(out); i++)
				zero &= out[i] == 0;
			FZ_CHECK(!zero);
		} else if ((fz_u(&f, 1) & 31) == 0) {
			FZ_CHECK(surand_reseed() == 0);
		}
	}
	return 0;
}
