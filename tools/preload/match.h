/*
 * match.h - the pure decisions of the LD_PRELOAD interposer (tools/preload/),
 * kept apart from preload.c so that a fuzzer or a unit test can call them
 * without interposing anything.
 *
 * How a descriptor is recognised: by what the kernel says it is, not by the
 * path the program gave.  After every successful open that could be read
 * from, the interposer fstat()s the new descriptor (raw syscall) and tracks
 * it when it is the character device 1:8 (/dev/random) or 1:9
 * (/dev/urandom).  Symlinks, relative paths ("urandom" with cwd /dev),
 * /proc/self/fd/N, bind mounts and device nodes made with mknod anywhere are
 * caught; a regular file called "urandom" is not.  Before every served read
 * the same check is made again, so a descriptor number that was closed
 * behind the interposer's back and reused is passed to the kernel.
 * SPDX-License-Identifier: MIT
 */
#ifndef SURAND_PRELOAD_MATCH_H
#define SURAND_PRELOAD_MATCH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* What a descriptor is, as far as the interposer cares. */
enum surand_pl_kind {
	SURAND_PL_OTHER = 0,   /* anything else: passed to the kernel */
	SURAND_PL_RANDOM = 1,  /* character device 1:8 */
	SURAND_PL_URANDOM = 2, /* character device 1:9 */
};

/* Linux's device numbers of the two random devices (Documentation/admin-guide/devices.txt). */
#define SURAND_PL_MEM_MAJOR 1u
#define SURAND_PL_RANDOM_MINOR 8u
#define SURAND_PL_URANDOM_MINOR 9u

/* The kernel's cap on one read (MAX_RW_COUNT: INT_MAX rounded down to a 4 KiB page). */
#define SURAND_PL_MAX_RW_BYTES ((size_t)0x7ffff000)
/* The kernel's cap on iovcnt (UIO_MAXIOV). */
#define SURAND_PL_MAX_IOV 1024

/*
 * 1 when an open(2) with these flags can give a descriptor worth tracking
 * (readable: O_RDONLY or O_RDWR, not O_PATH); 0 otherwise.  Lets the
 * interposer skip the fstat for write-only and O_PATH opens.
 */
int surand_pl_open_wants_check(int oflags);

/*
 * The kind of a descriptor from its fstat fields (st_mode, st_rdev as
 * dev_t); any input is valid.
 */
enum surand_pl_kind surand_pl_classify(unsigned int st_mode, uint64_t st_rdev);

/*
 * The byte count a read of count bytes returns from the kernel's random
 * devices: count capped at SURAND_PL_MAX_RW_BYTES, or -EINVAL when count does
 * not fit in ssize_t (the kernel's rw_verify_area()).
 */
ssize_t surand_pl_read_len(size_t count);

/*
 * Checks a pread/preadv offset as the kernel does: 0 for offset >= 0 (and
 * for -1 when allow_current, preadv2's "current position"), else -EINVAL.
 */
int surand_pl_check_offset(int64_t offset, int allow_current);

struct iovec;
/*
 * Plans a readv of iov[0..iovcnt) (only the lengths are looked at): returns
 * the total the kernel would return (capped at SURAND_PL_MAX_RW_BYTES) or
 * -EINVAL (iovcnt < 0 or > SURAND_PL_MAX_IOV, a length above SSIZE_MAX, or a
 * sum above SSIZE_MAX).  iov may be NULL when iovcnt is 0.
 */
ssize_t surand_pl_readv_len(const struct iovec *iov, int iovcnt);

/*
 * 1 when an fopen() mode string opens for reading only ("r", "rb", "re",
 * "rce", ... : first letter 'r', no '+'), 0 otherwise (NULL included).
 * Only such streams are ever replaced by a surand-served stream.
 */
int surand_pl_fopen_mode_readonly(const char *mode);

#endif
