/*
 * cli_fault.c - libcli-fault.so, loaded into the surand command with
 * LD_PRELOAD by tests/cli.sh: the target of `surand wipe` answers as a
 * failing disk would.  CLI_FAULT names the fault:
 *   readback   pread(2) returns the bytes with the first one inverted (the
 *              data read back is not what was written)
 *   readzeros  the same, only for reads that found nothing but zeros (the
 *              --zero pass read back)
 *   short      pread(2) at offset 1 MiB or beyond returns 0 (the target ends
 *              early)
 *   fsync      fsync(2) fails with EIO (the data did not reach the device)
 * Without CLI_FAULT, or with another value, every call is the C library's.
 * SPDX-License-Identifier: MIT
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#define CLI_FAULT_SHORT_AT ((off_t)1 << 20)

static int fault_is(const char *name)
{
	const char *f = getenv("CLI_FAULT");

	return f && strcmp(f, name) == 0;
}

/* Nothing but zeros: the first byte is 0 and each byte equals the next. */
static int all_zero(const unsigned char *p, size_t n)
{
	return n == 0 || (p[0] == 0 && memcmp(p, p + 1, n - 1) == 0);
}

static ssize_t faulty_pread(const char *sym, int fd, void *buf, size_t n, off_t off)
{
	ssize_t (*real)(int, void *, size_t, off_t) =
		(ssize_t (*)(int, void *, size_t, off_t))dlsym(RTLD_NEXT, sym);
	ssize_t r;

	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	if (fault_is("short") && off >= CLI_FAULT_SHORT_AT)
		return 0;
	r = real(fd, buf, n, off);
	if (r > 0 && (fault_is("readback") ||
		      (fault_is("readzeros") && all_zero(buf, (size_t)r))))
		((unsigned char *)buf)[0] ^= 0xff;
	return r;
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	return faulty_pread("pread", fd, buf, n, off);
}

ssize_t pread64(int fd, void *buf, size_t n, off64_t off)
{
	return faulty_pread("pread64", fd, buf, n, off);
}

int fsync(int fd)
{
	int (*real)(int) = (int (*)(int))dlsym(RTLD_NEXT, "fsync");

	if (fault_is("fsync")) {
		errno = EIO;
		return -1;
	}
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	return real(fd);
}
