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
 * CLI_FAULT_LOG=FILE: every such call also appends one letter to FILE, in
 * order: W pwrite, F fsync, A posix_fadvise(POSIX_FADV_DONTNEED), R pread
 * (how cli.sh sees that each pass is synced and that a verify first drops
 * the cached pages).
 * SPDX-License-Identifier: MIT
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
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

static void trace(char c)
{
	const char *path = getenv("CLI_FAULT_LOG");
	ssize_t w;
	int fd;

	if (!path)
		return;
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	/* A letter lost here changes the sequence cli.sh compares: it fails. */
	w = write(fd, &c, 1);
	(void)w;
	close(fd);
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
	trace('R');
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

	trace('F');
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

static ssize_t traced_pwrite(const char *sym, int fd, const void *buf, size_t n, off_t off)
{
	ssize_t (*real)(int, const void *, size_t, off_t) =
		(ssize_t (*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, sym);

	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	trace('W');
	return real(fd, buf, n, off);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	return traced_pwrite("pwrite", fd, buf, n, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off64_t off)
{
	return traced_pwrite("pwrite64", fd, buf, n, off);
}

static int traced_fadvise(const char *sym, int fd, off_t off, off_t len, int advice)
{
	int (*real)(int, off_t, off_t, int) = (int (*)(int, off_t, off_t, int))dlsym(RTLD_NEXT, sym);

	if (!real)
		return ENOSYS;
	if (advice == POSIX_FADV_DONTNEED)
		trace('A');
	return real(fd, off, len, advice);
}

int posix_fadvise(int fd, off_t off, off_t len, int advice)
{
	return traced_fadvise("posix_fadvise", fd, off, len, advice);
}

int posix_fadvise64(int fd, off64_t off, off64_t len, int advice)
{
	return traced_fadvise("posix_fadvise64", fd, off, len, advice);
}
