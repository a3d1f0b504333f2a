/*
 * fuzz_fuse_read.c - surandfs's read path (tools/surandfs/readpath.c)
 * without FUSE: arbitrary (cap, size, offset) triples, NULL buffers and
 * dead handles, against tools/surandfs/readpath.h: min(size, cap) fresh
 * bytes for off >= 0, -EINVAL for off < 0, -EFAULT for a NULL buffer with
 * something to write, -EBADF for no handle; the buffer is never written past
 * cap (ASan); two reads never return the same 16 bytes.
 * SPDX-License-Identifier: MIT
 */
#include <errno.h>

#include "fuzz.h"
#include "readpath.h"

static struct surandfs_handle *h;
static uint8_t last[16];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = {data, size};

	if (!h) {
		h = surandfs_handle_new();
		FZ_CHECK(h != NULL);
	}
	while (f.n) {
		size_t cap = (size_t)fz_u(&f, 3) % 200000, sz = (size_t)fz_u(&f, 3);
		int64_t off = (int64_t)fz_u(&f, 8);
		unsigned how = (unsigned)fz_u(&f, 1);
		uint8_t *buf = (how & 15) == 1 ? NULL : malloc(cap ? cap : 1);
		size_t want = sz < cap ? sz : cap;
		ssize_t r;

		if ((how & 15) == 2)
			off = -1 - (off & 0xffff);
		r = surandfs_read_fill((how & 15) == 3 ? NULL : h, buf, cap, sz, off);
		if ((how & 15) == 3)
			FZ_CHECK(r == -EBADF);
		else if (off < 0)
			FZ_CHECK(r == -EINVAL);
		else if (!buf && want)
			FZ_CHECK(r == -EFAULT);
		else
			FZ_CHECK(r == (ssize_t)want);
		if (buf && r >= 16) {
			FZ_CHECK(memcmp(buf, last, 16) != 0);
			memcpy(last, buf, 16);
		}
		free(buf);
	}
	return 0;
}
