/*
 * fuzz_preload_match.c - the LD_PRELOAD interposer's decisions
 * (tools/preload/match.c) on arbitrary open flags, stat fields, read
 * lengths, offsets, iovec arrays and fopen modes, against tools/preload/
 * match.h: classify says 1:8 is random and 1:9 urandom (character devices
 * only), lengths are capped at the kernel's MAX_RW_COUNT or -EINVAL, iovcnt
 * above UIO_MAXIOV is -EINVAL, and only read-only modes are replaced.
 * SPDX-License-Identifier: MIT
 */
#include <errno.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>

#include "fuzz.h"
#include "match.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = {data, size};
	unsigned mode = (unsigned)fz_u(&f, 4);
	uint64_t rdev = fz_u(&f, 8), count = fz_u(&f, 8);
	int64_t off = (int64_t)fz_u(&f, 8);
	int oflags = (int)fz_u(&f, 4), iovcnt = (int)(int16_t)fz_u(&f, 2);
	enum surand_pl_kind k = surand_pl_classify(mode, rdev);
	struct iovec iov[SURAND_PL_MAX_IOV + 2];
	ssize_t r;
	char m[16];
	size_t ml;

	(void)surand_pl_open_wants_check(oflags);
	FZ_CHECK(k == SURAND_PL_OTHER || k == SURAND_PL_RANDOM || k == SURAND_PL_URANDOM);
	if (k != SURAND_PL_OTHER)
		FZ_CHECK(S_ISCHR(mode) && major(rdev) == SURAND_PL_MEM_MAJOR &&
			 minor(rdev) == (k == SURAND_PL_RANDOM ? SURAND_PL_RANDOM_MINOR
							       : SURAND_PL_URANDOM_MINOR));
	r = surand_pl_read_len((size_t)count);
	if ((size_t)count > SSIZE_MAX)
		FZ_CHECK(r == -EINVAL);
	else
		FZ_CHECK(r == (ssize_t)((size_t)count < SURAND_PL_MAX_RW_BYTES ? count
									: SURAND_PL_MAX_RW_BYTES));
	r = surand_pl_check_offset(off, (int)(count & 1));
	FZ_CHECK(off >= 0 || (off == -1 && (count & 1)) ? r == 0 : r == -EINVAL);
	if (iovcnt > SURAND_PL_MAX_IOV + 2)
		iovcnt = SURAND_PL_MAX_IOV + 2;
	for (int i = 0; i < (iovcnt > 0 ? iovcnt : 0); i++) {
		iov[i].iov_base = NULL;
		iov[i].iov_len = (size_t)fz_u(&f, (i & 7) == 7 ? 8 : 2);
	}
	r = surand_pl_readv_len(iovcnt > 0 ? iov : NULL, iovcnt);
	if (iovcnt < 0 || iovcnt > SURAND_PL_MAX_IOV)
		FZ_CHECK(r == -EINVAL);
	else
		FZ_CHECK(r == -EINVAL || (r >= 0 && (size_t)r <= SURAND_PL_MAX_RW_BYTES));
	ml = f.n < sizeof(m) - 1 ? f.n : sizeof(m) - 1;
	memcpy(m, f.p, ml);
	m[ml] = 0;
	if (surand_pl_fopen_mode_readonly(m))
		FZ_CHECK(m[0] == 'r' && !strchr(m, '+'));
	FZ_CHECK(surand_pl_fopen_mode_readonly(NULL) == 0);
	return 0;
}
