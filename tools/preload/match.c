/*
 * match.c - pure decisions of the LD_PRELOAD interposer (see match.h).
 * No libc calls beyond the headers' macros: callable from anywhere,
 * including before the interposer's constructor and from signal handlers.
 * SPDX-License-Identifier: MIT
 */
#include "match.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>

int surand_pl_open_wants_check(int oflags)
{
#ifdef O_PATH
	/* an O_PATH descriptor cannot be read: nothing to serve */
	if (oflags & O_PATH)
		return 0;
#endif
	/* a write-only descriptor reads EBADF from the kernel: keep it the kernel's */
	return (oflags & O_ACCMODE) == O_RDONLY || (oflags & O_ACCMODE) == O_RDWR;
}

enum surand_pl_kind surand_pl_classify(unsigned int st_mode, uint64_t st_rdev)
{
	/* only the kernel's own character devices 1:8 and 1:9, never a file of that name */
	if (!S_ISCHR(st_mode) || major((dev_t)st_rdev) != SURAND_PL_MEM_MAJOR)
		return SURAND_PL_OTHER;
	/* dev_t is 64 bits: reject numbers that only match after truncation */
	if ((uint64_t)makedev(major((dev_t)st_rdev), minor((dev_t)st_rdev)) != st_rdev)
		return SURAND_PL_OTHER;
	switch (minor((dev_t)st_rdev)) {
	case SURAND_PL_RANDOM_MINOR:
		return SURAND_PL_RANDOM;
	case SURAND_PL_URANDOM_MINOR:
		return SURAND_PL_URANDOM;
	default:
		return SURAND_PL_OTHER;
	}
}

ssize_t surand_pl_read_len(size_t count)
{
	if (count > (size_t)SSIZE_MAX)
		return -EINVAL;
	return (ssize_t)(count > SURAND_PL_MAX_RW_BYTES ? SURAND_PL_MAX_RW_BYTES : count);
}

int surand_pl_check_offset(int64_t offset, int allow_current)
{
	if (offset >= 0 || (allow_current && offset == -1))
		return 0;
	return -EINVAL;
}

ssize_t surand_pl_readv_len(const struct iovec *iov, int iovcnt)
{
	size_t sum = 0;
	int i;

	if (iovcnt < 0 || iovcnt > SURAND_PL_MAX_IOV)
		return -EINVAL;
	for (i = 0; i < iovcnt; i++) {
		/* the kernel refuses any vector, or running sum, beyond ssize_t */
		size_t len = iov[i].iov_len;

		if (len > (size_t)SSIZE_MAX || sum + len > (size_t)SSIZE_MAX)
			return -EINVAL;
		sum += len;
	}
	return (ssize_t)(sum > SURAND_PL_MAX_RW_BYTES ? SURAND_PL_MAX_RW_BYTES : sum);
}

int surand_pl_fopen_mode_readonly(const char *mode)
{
	const char *p;

	if (!mode || mode[0] != 'r')
		return 0;
	for (p = mode + 1; *p; p++)
		if (*p == '+')
			return 0;
	return 1;
}
