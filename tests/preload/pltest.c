/*
 * pltest.c - test program for libsurand-preload.so (tests/preload.sh runs it
 * under LD_PRELOAD with SURAND_PRELOAD_STATS=1).
 *
 *   pltest entries   every interposed entry point on the random devices;
 *                    prints "expect NAME=N ..." (what the stats line must say)
 *   pltest fork      /dev/urandom dup2()ed and read in parent and child
 *   pltest recycle   a tracked number closed by a raw syscall and reused
 *   pltest signal    reads and getrandom from a signal handler, in a loop
 *   pltest cookie    fopen of /dev/urandom (run with SURAND_PRELOAD_FOPEN=cookie
 *                    or without: argv[2] says which is expected)
 *   pltest match     unit tests of tools/preload/match.c (no preload needed)
 *   pltest sandbox   /dev/urandom opened, then a seccomp filter refuses
 *                    getrandom (EPERM) and every open (ENOSYS): surand has no
 *                    seed, so reads of the open descriptor and getrandom get
 *                    the kernel's answers (bytes; EPERM), never an abort
 *   pltest stats     getrandom 40 bytes, getentropy 24, one read of 16: the
 *                    stats line must count 80 bytes in 3 calls
 *   pltest highfd N  /dev/urandom read through descriptors N and N + 1 (dup2,
 *                    F_DUPFD): numbers past the mark table (65536, or the
 *                    test copy's 256) are never marked, so the kernel serves
 *                    them; one read of the low number is served
 *   pltest exec      /dev/urandom opened, then exec of this program, which
 *                    reads the inherited descriptor (not marked in the new
 *                    program: the kernel serves it) and one it opens itself
 *                    (served)
 *
 * Built twice by mk/preload.mk: plain (-O0) and fortified (-O2
 * -D_FORTIFY_SOURCE=2), where the same calls reach __read_chk, __open_2 & co.
 * Every failure prints "FAIL ..." and makes the exit status 1; success prints
 * "ok <test>".
 * SPDX-License-Identifier: MIT
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "match.h"

#if defined(__USE_FORTIFY_LEVEL) && __USE_FORTIFY_LEVEL > 0
#define PLT_FORTIFIED 1
#else
#define PLT_FORTIFIED 0
#endif

#ifndef RWF_HIPRI
#define RWF_HIPRI 0x00000001
#endif

static int failures;

#define CHECK(cond, ...)                                                    \
	do {                                                                \
		if (!(cond)) {                                              \
			printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
			printf(__VA_ARGS__);                                \
			printf("\n");                                       \
			failures++;                                         \
		}                                                           \
	} while (0)

/* ---- expected counters ---------------------------------------------------- */

static const char *const exp_names[] = {
	"getrandom", "getentropy", "arc4random", "arc4random_buf", "arc4random_uniform",
	"open", "open64", "openat", "openat64", "__open_2", "__open64_2", "__openat_2",
	"__openat64_2", "read", "readv", "pread", "pread64", "preadv", "preadv64", "preadv2",
	"preadv64v2", "__read_chk", "__pread_chk", "__pread64_chk", "dup", "dup2", "dup3",
	"fcntl", "fcntl64", "close", "close_range", "closefrom", "fclose", "fopen", "fopen64",
	"recycled", "to_kernel",
};
#define NEXP (sizeof(exp_names) / sizeof(exp_names[0]))
static unsigned long exp_count[NEXP];

static void expect(const char *name, unsigned long n)
{
	size_t i;

	for (i = 0; i < NEXP; i++)
		if (strcmp(exp_names[i], name) == 0) {
			exp_count[i] += n;
			return;
		}
	printf("FAIL pltest: unknown counter %s\n", name);
	failures++;
}

static void print_expect(void)
{
	size_t i;

	printf("expect");
	for (i = 0; i < NEXP; i++)
		printf(" %s=%lu", exp_names[i], exp_count[i]);
	printf("\n");
}

/* ---- helpers --------------------------------------------------------------- */

/* Not all zero and not one repeated byte: what any real random buffer of 16+ bytes is. */
static int looks_random(const unsigned char *b, size_t n)
{
	size_t i;

	for (i = 1; i < n; i++)
		if (b[i] != b[0])
			return 1;
	return 0;
}

/* Flags hidden from the compiler: the fortified headers then call __open_2 & co. */
static volatile int v_rdonly = O_RDONLY;
static volatile size_t v_len = 32;
/* Bad arguments on purpose, hidden from the compiler's warnings. */
static volatile size_t v_257 = 257;
static volatile int v_minus1 = -1;
static void *volatile v_null;

/* A read of 32 bytes into a stack buffer (fortified build: __read_chk). */
static void check_read_stack(int fd, const char *what)
{
	unsigned char a[64], b[64];
	size_t n = v_len;

	memset(a, 0, sizeof(a));
	memset(b, 0, sizeof(b));
	CHECK(read(fd, a, n) == (ssize_t)n, "%s: read a", what);
	CHECK(read(fd, b, n) == (ssize_t)n, "%s: read b", what);
	CHECK(looks_random(a, n) && memcmp(a, b, n) != 0, "%s: two reads differ", what);
	expect(PLT_FORTIFIED ? "__read_chk" : "read", 2);
}

/* ---- pltest entries --------------------------------------------------------- */

static void t_random_functions(void)
{
	unsigned char a[64], b[64];
	uint32_t x[4];
	int i, all_same, in_range = 1;

	memset(a, 0, sizeof(a));
	memset(b, 0, sizeof(b));
	CHECK(getrandom(a, 32, 0) == 32, "getrandom");
	CHECK(getrandom(b, 32, GRND_NONBLOCK) == 32, "getrandom nonblock");
	CHECK(looks_random(a, 32) && memcmp(a, b, 32) != 0, "getrandom bytes");
	errno = 0;
	CHECK(getrandom(a, 32, 0x80) == -1 && errno == EINVAL, "getrandom bad flags: errno %d",
	      errno);
	/* The bad call is not served: the kernel answers it (EINVAL too). */
	expect("getrandom", 2);

	memset(a, 0, sizeof(a));
	CHECK(getentropy(a, 32) == 0 && looks_random(a, 32), "getentropy");
	errno = 0;
	CHECK(getentropy(a, v_257) == -1 && errno == EIO, "getentropy 257: errno %d", errno);
	expect("getentropy", 1);
	expect("to_kernel", 2);

	for (i = 0; i < 4; i++)
		x[i] = arc4random();
	all_same = x[0] == x[1] && x[1] == x[2] && x[2] == x[3];
	CHECK(!all_same, "arc4random repeats");
	expect("arc4random", 4);

	memset(a, 0, sizeof(a));
	arc4random_buf(a, 48);
	CHECK(looks_random(a, 48), "arc4random_buf");
	expect("arc4random_buf", 1);

	for (i = 0; i < 100; i++)
		if (arc4random_uniform(10) >= 10)
			in_range = 0;
	CHECK(in_range, "arc4random_uniform(10) out of range");
	CHECK(arc4random_uniform(1) == 0 && arc4random_uniform(0) == 0, "arc4random_uniform 0/1");
	expect("arc4random_uniform", 102);
}

static void t_opens(void)
{
	char link[64];
	int fd, dirfd;

	/* constant flags: plain open even in the fortified build */
	fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	CHECK(fd >= 0, "open /dev/urandom");
	expect("open", 1);
	check_read_stack(fd, "open");
	close(fd);
	expect("close", 1);

	/* variable flags: __open_2 in the fortified build */
	fd = open("/dev/random", v_rdonly);
	CHECK(fd >= 0, "open /dev/random");
	expect(PLT_FORTIFIED ? "__open_2" : "open", 1);
	check_read_stack(fd, "open /dev/random");
	close(fd);
	expect("close", 1);

	fd = open64("/dev/urandom", v_rdonly);
	CHECK(fd >= 0, "open64");
	expect(PLT_FORTIFIED ? "__open64_2" : "open64", 1);
	check_read_stack(fd, "open64");
	close(fd);
	expect("close", 1);

	fd = openat(AT_FDCWD, "/dev/urandom", v_rdonly);
	CHECK(fd >= 0, "openat");
	expect(PLT_FORTIFIED ? "__openat_2" : "openat", 1);
	check_read_stack(fd, "openat");
	close(fd);
	expect("close", 1);

	/* a relative name under a directory descriptor: recognised by device, not by path */
	dirfd = open("/dev", O_RDONLY | O_DIRECTORY);
	CHECK(dirfd >= 0, "open /dev");
	fd = openat64(dirfd, "urandom", v_rdonly);
	CHECK(fd >= 0, "openat64");
	expect(PLT_FORTIFIED ? "__openat64_2" : "openat64", 1);
	check_read_stack(fd, "openat64 relative");
	close(fd);
	expect("close", 1);
	close(dirfd);

	/* a symlink elsewhere */
	snprintf(link, sizeof(link), "/tmp/pltest-link.%ld", (long)getpid());
	unlink(link);
	CHECK(symlink("/dev/urandom", link) == 0, "symlink: %s", strerror(errno));
	fd = open(link, O_RDONLY);
	CHECK(fd >= 0, "open symlink");
	expect("open", 1);
	check_read_stack(fd, "symlink");
	close(fd);
	expect("close", 1);
	unlink(link);

	/* write-only and O_PATH descriptors are never served */
	fd = open("/dev/urandom", O_WRONLY);
	CHECK(fd >= 0, "open wronly");
	{
		unsigned char c;

		errno = 0;
		CHECK(read(fd, &c, 1) == -1 && errno == EBADF, "read of write-only fd: errno %d",
		      errno);
	}
	close(fd);
	fd = open("/dev/urandom", O_PATH);
	CHECK(fd >= 0, "open O_PATH");
	close(fd);
}

static void t_reads(void)
{
	unsigned char a[64], b[64], c[64];
	unsigned char *heap = malloc(4096);
	struct iovec iov[3];
	int fd = open("/dev/urandom", O_RDONLY);

	CHECK(fd >= 0 && heap, "open");
	expect("open", 1);

	/* a heap buffer: plain read in both builds */
	memset(heap, 0, 4096);
	CHECK(read(fd, heap, 4096) == 4096 && looks_random(heap, 4096), "read heap");
	CHECK(read(fd, heap, 0) == 0, "read 0");
	errno = 0;
	CHECK(read(fd, v_null, 16) == -1 && errno == EFAULT, "read NULL: errno %d", errno);
	expect("read", 2);

	memset(a, 0, sizeof(a));
	memset(b, 0, sizeof(b));
	memset(c, 0, sizeof(c));
	iov[0].iov_base = a;
	iov[0].iov_len = 16;
	iov[1].iov_base = b;
	iov[1].iov_len = 0;
	iov[2].iov_base = c;
	iov[2].iov_len = 48;
	CHECK(readv(fd, iov, 3) == 64, "readv");
	CHECK(looks_random(a, 16) && looks_random(c, 48) && b[0] == 0, "readv bytes");
	errno = 0;
	CHECK(readv(fd, iov, v_minus1) == -1 && errno == EINVAL, "readv -1: errno %d", errno);
	expect("readv", 1);

	memset(a, 0, sizeof(a));
	CHECK(pread(fd, a, v_len, 12345) == (ssize_t)v_len && looks_random(a, v_len), "pread");
	errno = 0;
	CHECK(pread(fd, a, v_len, -1) == -1 && errno == EINVAL, "pread -1: errno %d", errno);
	expect(PLT_FORTIFIED ? "__pread_chk" : "pread", 1);
	memset(a, 0, sizeof(a));
	CHECK(pread64(fd, a, v_len, 1) == (ssize_t)v_len && looks_random(a, v_len), "pread64");
	expect(PLT_FORTIFIED ? "__pread64_chk" : "pread64", 1);
	/* heap buffers: the plain pread entries in both builds */
	CHECK(pread(fd, heap, 100, 0) == 100, "pread heap");
	CHECK(pread64(fd, heap, 100, 0) == 100, "pread64 heap");
	expect("pread", 1);
	expect("pread64", 1);

	memset(a, 0, sizeof(a));
	iov[0].iov_base = a;
	iov[0].iov_len = 32;
	CHECK(preadv(fd, iov, 1, 7) == 32 && looks_random(a, 32), "preadv");
	expect("preadv", 1);
	CHECK(preadv64(fd, iov, 1, 7) == 32, "preadv64");
	expect("preadv64", 1);
	CHECK(preadv2(fd, iov, 1, -1, 0) == 32, "preadv2 current position");
	errno = 0;
	CHECK(preadv2(fd, iov, 1, -2, 0) == -1 && errno == EINVAL, "preadv2 -2: errno %d", errno);
	expect("preadv2", 1);
	CHECK(preadv64v2(fd, iov, 1, 0, 0) == 32, "preadv64v2");
	expect("preadv64v2", 1);
	/* flags other than 0 go to the kernel: counted nowhere (either answer is fine) */
	if (preadv2(fd, iov, 1, 0, RWF_HIPRI) < 0)
		errno = 0;

	close(fd);
	expect("close", 1);
	free(heap);
}

static void t_dups(void)
{
	int fd = open("/dev/urandom", O_RDONLY), d, r;
	FILE *f;
	unsigned char buf[256];

	CHECK(fd >= 0, "open");
	expect("open", 1);

	d = dup(fd);
	CHECK(d >= 0, "dup");
	expect("dup", 1);
	check_read_stack(d, "dup");
	close(d);
	expect("close", 1);

	CHECK(dup2(fd, 50) == 50, "dup2");
	expect("dup2", 1);
	check_read_stack(50, "dup2");
	CHECK(dup2(50, 50) == 50, "dup2 onto itself");
	CHECK(dup3(fd, 51, O_CLOEXEC) == 51, "dup3");
	expect("dup3", 1);
	check_read_stack(51, "dup3");
	errno = 0;
	CHECK(dup3(51, 51, 0) == -1 && errno == EINVAL, "dup3 onto itself: errno %d", errno);
	CHECK(close_range(50, 51, 0) == 0, "close_range");
	expect("close_range", 1);
	errno = 0;
	CHECK(read(50, buf, 1) == -1 && errno == EBADF, "read after close_range: errno %d",
	      errno);

	r = fcntl(fd, F_DUPFD, 60);
	CHECK(r >= 60, "fcntl F_DUPFD");
	expect("fcntl", 1);
	check_read_stack(r, "F_DUPFD");
	close(r);
	expect("close", 1);
	r = fcntl(fd, F_DUPFD_CLOEXEC, 70);
	CHECK(r >= 70, "fcntl F_DUPFD_CLOEXEC");
	expect("fcntl", 1);
	CHECK(fcntl(r, F_GETFD) == FD_CLOEXEC, "F_GETFD passes through");
	check_read_stack(r, "F_DUPFD_CLOEXEC");
	close(r);
	expect("close", 1);
	r = fcntl64(fd, F_DUPFD, 90);
	CHECK(r >= 90, "fcntl64 F_DUPFD");
	expect("fcntl64", 1);
	check_read_stack(r, "fcntl64");
	/* closefrom(90) closes r (and anything above) */
	closefrom(90);
	expect("closefrom", 1);
	errno = 0;
	CHECK(read(r, buf, 1) == -1 && errno == EBADF, "read after closefrom: errno %d", errno);

	/* fdopen + fclose: the stream closes the marked number through glibc's own close */
	d = dup(fd);
	expect("dup", 1);
	f = fdopen(d, "r");
	CHECK(f != NULL, "fdopen");
	if (f) {
		CHECK(fread(buf, 1, sizeof(buf), f) == sizeof(buf), "fread (kernel)");
		CHECK(fclose(f) == 0, "fclose");
		expect("fclose", 1);
	}
	close(fd);
	expect("close", 1);

	/* fopen in the default mode: the kernel's stream */
	f = fopen("/dev/urandom", "r");
	CHECK(f && fileno(f) >= 0, "fopen kernel stream");
	if (f) {
		memset(buf, 0, sizeof(buf));
		CHECK(fread(buf, 1, sizeof(buf), f) == sizeof(buf) && looks_random(buf, sizeof(buf)),
		      "fread");
		fclose(f);
	}
	f = fopen64("/dev/urandom", "r");
	CHECK(f && fileno(f) >= 0, "fopen64 kernel stream");
	if (f)
		fclose(f);
}

static int cmd_entries(void)
{
	t_random_functions();
	t_opens();
	t_reads();
	t_dups();
	print_expect();
	fflush(stdout);
	return 0;
}

/* ---- pltest fork ------------------------------------------------------------ */

static int cmd_fork(void)
{
	unsigned char p[32], c[32];
	int fd = open("/dev/urandom", O_RDONLY), pipefd[2], st;
	pid_t pid;

	CHECK(fd >= 0 && pipe(pipefd) == 0, "open, pipe");
	CHECK(dup2(fd, 10) == 10, "dup2");
	close(fd);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		unsigned char b[32];

		memset(b, 0, sizeof(b));
		if (read(10, b, sizeof(b)) != (ssize_t)sizeof(b) ||
		    write(pipefd[1], b, sizeof(b)) != (ssize_t)sizeof(b))
			exit(3);
		exit(0); /* exit, not _exit: the child's stats line is printed at exit */
	}
	CHECK(pid > 0, "fork");
	memset(p, 0, sizeof(p));
	CHECK(read(10, p, sizeof(p)) == (ssize_t)sizeof(p), "parent read");
	CHECK(read(pipefd[0], c, sizeof(c)) == (ssize_t)sizeof(c), "child's bytes");
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0, "child");
	CHECK(looks_random(p, sizeof(p)) && looks_random(c, sizeof(c)), "bytes");
	CHECK(memcmp(p, c, sizeof(p)) != 0, "parent and child got the same bytes");
	printf("parent %ld child %ld\n", (long)getpid(), (long)pid);
	return 0;
}

/* ---- pltest recycle ----------------------------------------------------------- */

static int cmd_recycle(const char *textfile)
{
	char want[256], got[256];
	struct iovec iov;
	ssize_t wn;
	int fd, t, pfd[2];
	FILE *f = fopen(textfile, "r");

	CHECK(f != NULL, "open %s", textfile);
	if (!f)
		return 1;
	wn = (ssize_t)fread(want, 1, sizeof(want), f);
	fclose(f);
	CHECK(wn > 0, "text file empty");

	/* A: reopened through the interposed open(), which clears the stale mark */
	fd = open("/dev/urandom", O_RDONLY);
	CHECK(fd >= 0, "open");
	CHECK(syscall(SYS_close, fd) == 0, "raw close"); /* behind the interposer's back */
	t = open(textfile, O_RDONLY);
	CHECK(t == fd, "text file got number %d, not %d", t, fd);
	memset(got, 0, sizeof(got));
	CHECK(read(t, got, sizeof(got)) == wn && memcmp(got, want, (size_t)wn) == 0,
	      "A: text file read through a recycled number changed");
	close(t);

	/* B: reopened by a raw syscall: the mark is stale, read() must check again */
	fd = open("/dev/urandom", O_RDONLY);
	CHECK(syscall(SYS_close, fd) == 0, "raw close");
	t = (int)syscall(SYS_openat, AT_FDCWD, textfile, O_RDONLY, 0);
	CHECK(t == fd, "text file got number %d, not %d", t, fd);
	memset(got, 0, sizeof(got));
	CHECK(read(t, got, sizeof(got)) == wn && memcmp(got, want, (size_t)wn) == 0,
	      "B: text file read through a recycled number changed");
	/* the mark is gone now: the kernel answers without another check failing */
	CHECK(pread(t, got, sizeof(got), 0) == wn && memcmp(got, want, (size_t)wn) == 0, "pread");
	close(t);

	/* C: reopened by fopen (glibc's internal open), read with readv(fileno) */
	fd = open("/dev/urandom", O_RDONLY);
	CHECK(syscall(SYS_close, fd) == 0, "raw close");
	f = fopen(textfile, "r");
	CHECK(f && fileno(f) == fd, "fopen got number %d, not %d", f ? fileno(f) : -1, fd);
	if (f) {
		memset(got, 0, sizeof(got));
		iov.iov_base = got;
		iov.iov_len = sizeof(got);
		CHECK(readv(fileno(f), &iov, 1) == wn && memcmp(got, want, (size_t)wn) == 0,
		      "C: readv through a recycled number changed");
		fclose(f);
	}

	/* D: a pipe that reuses the number */
	fd = open("/dev/urandom", O_RDONLY);
	CHECK(syscall(SYS_close, fd) == 0, "raw close");
	CHECK(pipe(pfd) == 0 && pfd[0] == fd, "pipe got %d, not %d", pfd[0], fd);
	CHECK(write(pfd[1], "hello", 5) == 5, "pipe write");
	memset(got, 0, sizeof(got));
	CHECK(read(pfd[0], got, sizeof(got)) == 5 && memcmp(got, "hello", 5) == 0,
	      "D: pipe read through a recycled number changed");
	close(pfd[0]);
	close(pfd[1]);
	expect("open", 4);
	expect("recycled", 3);
	print_expect();
	return 0;
}

/* ---- pltest signal ------------------------------------------------------------ */

static int sig_fd;
static volatile sig_atomic_t sig_calls, sig_bad;

static void on_alarm(int sig)
{
	unsigned char b[32];
	int e = errno;

	(void)sig;
	memset(b, 0, sizeof(b));
	if (read(sig_fd, b, 16) != 16 || getrandom(b + 16, 16, 0) != 16 || !looks_random(b, 32))
		sig_bad = 1;
	sig_calls++;
	errno = e;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmd_signal(void)
{
	struct sigaction sa;
	struct itimerval it;
	unsigned char *buf = malloc(65536);
	double t0 = now_s();
	long loops = 0;

	sig_fd = open("/dev/urandom", O_RDONLY);
	CHECK(sig_fd >= 0 && buf, "open");
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	memset(&it, 0, sizeof(it));
	it.it_interval.tv_usec = 200;
	it.it_value.tv_usec = 200;
	setitimer(ITIMER_REAL, &it, NULL);
	while (now_s() - t0 < 0.5) {
		size_t n = (size_t)(loops % 65536) + 1;

		CHECK(read(sig_fd, buf, n) == (ssize_t)n, "read");
		CHECK(getrandom(buf, 64, 0) == 64, "getrandom");
		loops++;
	}
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
	CHECK(sig_calls > 0, "no signal arrived");
	CHECK(!sig_bad, "a handler's read or getrandom failed");
	printf("signal: %ld loops, %d handler calls\n", loops, (int)sig_calls);
	free(buf);
	return 0;
}

/* ---- pltest cookie ------------------------------------------------------------- */

static int cmd_cookie(const char *mode)
{
	int cookie = strcmp(mode, "cookie") == 0;
	unsigned char a[100000], b[64];
	FILE *f = fopen("/dev/urandom", "r"), *g;

	CHECK(f != NULL, "fopen");
	if (!f)
		return 1;
	errno = 0;
	if (cookie)
		CHECK(fileno(f) == -1, "fileno of the cookie stream: %d", fileno(f));
	else
		CHECK(fileno(f) >= 0, "fileno of the kernel stream");
	memset(a, 0, sizeof(a));
	CHECK(fread(a, 1, sizeof(a), f) == sizeof(a) && looks_random(a, sizeof(a)), "fread");
	CHECK(fseek(f, 0, SEEK_SET) == 0, "fseek");
	CHECK(fgetc(f) != EOF, "fgetc");
	CHECK(fclose(f) == 0, "fclose");
	g = fopen64("/dev/random", "rb");
	CHECK(g != NULL, "fopen64");
	if (g) {
		memset(b, 0, sizeof(b));
		CHECK(fread(b, 1, sizeof(b), g) == sizeof(b) && looks_random(b, sizeof(b)), "fread64");
		CHECK(fclose(g) == 0, "fclose");
	}
	/* read-write streams are always the kernel's */
	g = fopen("/dev/urandom", "r+");
	if (g) {
		CHECK(fileno(g) >= 0, "r+ stream is the kernel's");
		fclose(g);
	}
	expect("fopen", cookie);
	expect("fopen64", cookie);
	print_expect();
	return 0;
}

/* ---- pltest match ---------------------------------------------------------------- */

static int cmd_match(void)
{
	struct iovec lens[4] = {{NULL, 10}, {NULL, 20}, {NULL, 0}, {NULL, 30}};
	struct iovec huge[2] = {{NULL, (size_t)SSIZE_MAX}, {NULL, 1}};
	struct iovec over[1] = {{NULL, (size_t)SSIZE_MAX + 1}};

	CHECK(surand_pl_classify(S_IFCHR | 0666, makedev(1, 9)) == SURAND_PL_URANDOM, "1:9");
	CHECK(surand_pl_classify(S_IFCHR | 0666, makedev(1, 8)) == SURAND_PL_RANDOM, "1:8");
	CHECK(surand_pl_classify(S_IFCHR | 0666, makedev(1, 3)) == SURAND_PL_OTHER, "1:3 null");
	CHECK(surand_pl_classify(S_IFCHR | 0666, makedev(2, 9)) == SURAND_PL_OTHER, "2:9");
	CHECK(surand_pl_classify(S_IFBLK | 0666, makedev(1, 9)) == SURAND_PL_OTHER, "block 1:9");
	CHECK(surand_pl_classify(S_IFREG | 0666, makedev(1, 9)) == SURAND_PL_OTHER, "file");
	CHECK(surand_pl_classify(S_IFCHR | 0666, makedev(1, 9 + 256)) == SURAND_PL_OTHER,
	      "minor 265");
	CHECK(surand_pl_classify(S_IFCHR | 0666, makedev(1 + 4096, 9)) == SURAND_PL_OTHER,
	      "major 4097");
	CHECK(surand_pl_open_wants_check(O_RDONLY) && surand_pl_open_wants_check(O_RDWR) &&
		      surand_pl_open_wants_check(O_RDONLY | O_NONBLOCK | O_CLOEXEC),
	      "readable opens");
	CHECK(!surand_pl_open_wants_check(O_WRONLY) && !surand_pl_open_wants_check(O_PATH) &&
		      !surand_pl_open_wants_check(O_ACCMODE),
	      "unreadable opens");
	CHECK(surand_pl_read_len(0) == 0 && surand_pl_read_len(5) == 5, "read_len");
	CHECK(surand_pl_read_len((size_t)1 << 40) == (ssize_t)SURAND_PL_MAX_RW_BYTES, "cap");
	CHECK(surand_pl_read_len((size_t)SSIZE_MAX + 1) == -EINVAL, "read_len > SSIZE_MAX");
	CHECK(surand_pl_readv_len(lens, 4) == 60 && surand_pl_readv_len(NULL, 0) == 0, "readv");
	CHECK(surand_pl_readv_len(lens, -1) == -EINVAL && surand_pl_readv_len(lens, 1025) == -EINVAL,
	      "iovcnt");
	CHECK(surand_pl_readv_len(huge, 2) == -EINVAL && surand_pl_readv_len(over, 1) == -EINVAL,
	      "readv overflow");
	CHECK(surand_pl_readv_len(huge, 1) == (ssize_t)SURAND_PL_MAX_RW_BYTES, "readv cap");
	CHECK(surand_pl_check_offset(0, 0) == 0 && surand_pl_check_offset(-1, 0) == -EINVAL &&
		      surand_pl_check_offset(-1, 1) == 0 && surand_pl_check_offset(-2, 1) == -EINVAL,
	      "offsets");
	CHECK(surand_pl_fopen_mode_readonly("r") && surand_pl_fopen_mode_readonly("rb") &&
		      surand_pl_fopen_mode_readonly("re") && surand_pl_fopen_mode_readonly("rce"),
	      "read modes");
	CHECK(!surand_pl_fopen_mode_readonly("r+") && !surand_pl_fopen_mode_readonly("rb+") &&
		      !surand_pl_fopen_mode_readonly("w") && !surand_pl_fopen_mode_readonly("a") &&
		      !surand_pl_fopen_mode_readonly("") && !surand_pl_fopen_mode_readonly(NULL),
	      "other modes");
	return 0;
}

/* ---- pltest sandbox ------------------------------------------------------------ */

/*
 * A seccomp filter: getrandom fails with EPERM; open, openat and openat2
 * with ENOSYS; everything else is allowed.  What a program that opened
 * /dev/urandom before entering its sandbox sees.  0 or -1.
 */
static int sandbox_enter(void)
{
#if defined(__x86_64__)
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getrandom, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_open, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat, 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 437 /* openat2 */, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {(unsigned short)(sizeof(f) / sizeof(f[0])), f};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -1;
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
#else
	errno = ENOSYS;
	return -1;
#endif
}

static int cmd_sandbox(void)
{
	unsigned char a[32], b[32], c[16], d[16];
	struct iovec iov[2] = {{c, sizeof(c)}, {d, sizeof(d)}};
	int fd = open("/dev/urandom", O_RDONLY);

	CHECK(fd >= 0, "open /dev/urandom: %s", strerror(errno));
	if (fd < 0)
		return 1;
	if (sandbox_enter() != 0) {
		/* No seccomp filters in this kernel (or emulator): nothing to test. */
		if (errno == ENOSYS || errno == EINVAL) {
			printf("SKIP seccomp filters are not available here: %s\n", strerror(errno));
			return 77;
		}
		printf("FAIL seccomp filter: %s\n", strerror(errno));
		return 1;
	}
	/* The filter is in force (controls). */
	errno = 0;
	CHECK(syscall(SYS_getrandom, a, 16, 0) == -1 && errno == EPERM, "getrandom not refused");
	errno = 0;
	CHECK(syscall(SYS_openat, AT_FDCWD, "/dev/urandom", O_RDONLY) == -1 && errno == ENOSYS,
	      "openat not refused");
	memset(a, 0, sizeof(a));
	memset(b, 0, sizeof(b));
	/* The descriptor opened before still reads: the kernel's bytes. */
	CHECK(read(fd, a, sizeof(a)) == (ssize_t)sizeof(a), "read: %s", strerror(errno));
	CHECK(pread(fd, b, sizeof(b), 0) == (ssize_t)sizeof(b), "pread: %s", strerror(errno));
	CHECK(looks_random(a, sizeof(a)) && looks_random(b, sizeof(b)) && memcmp(a, b, sizeof(a)) != 0,
	      "reads in the sandbox: not random");
	memset(c, 0, sizeof(c));
	memset(d, 0, sizeof(d));
	CHECK(readv(fd, iov, 2) == 32, "readv: %s", strerror(errno));
	CHECK(looks_random(c, sizeof(c)) && looks_random(d, sizeof(d)), "readv: not random");
	/* getrandom and getentropy: the kernel's own answer, EPERM. */
	errno = 0;
	CHECK(getrandom(a, 16, 0) == -1 && errno == EPERM, "getrandom: errno %d, want EPERM", errno);
	errno = 0;
	CHECK(getentropy(a, 16) == -1 && errno == EPERM, "getentropy: errno %d, want EPERM", errno);
	close(fd);
	return 0;
}

/* ---- pltest stats -------------------------------------------------------------- */

static int cmd_stats(void)
{
	unsigned char b[40];
	int fd;

	CHECK(getrandom(b, 40, 0) == 40, "getrandom");
	CHECK(getentropy(b, 24) == 0, "getentropy");
	fd = open("/dev/urandom", O_RDONLY);
	CHECK(fd >= 0, "open");
	CHECK(read(fd, b, 16) == 16, "read");
	close(fd);
	return 0;
}

/* ---- pltest highfd --------------------------------------------------------------- */

static int cmd_highfd(int hi)
{
	unsigned char a[32], b[32], c[32];
	struct rlimit lim;
	int fd, hi2;

	/* room for hi + 1 (raising the hard limit needs CAP_SYS_RESOURCE) */
	if (getrlimit(RLIMIT_NOFILE, &lim) != 0)
		return 2;
	if (lim.rlim_max != RLIM_INFINITY && lim.rlim_max < (rlim_t)hi + 2)
		lim.rlim_max = (rlim_t)hi + 2;
	if (lim.rlim_cur != RLIM_INFINITY && lim.rlim_cur < (rlim_t)hi + 2)
		lim.rlim_cur = (rlim_t)hi + 2;
	if (setrlimit(RLIMIT_NOFILE, &lim) != 0) {
		printf("limit: RLIMIT_NOFILE cannot reach %d here (%s)\n", hi + 2, strerror(errno));
		return 77;
	}
	fd = open("/dev/urandom", O_RDONLY);
	CHECK(fd >= 0, "open");
	memset(a, 0, sizeof(a));
	CHECK(read(fd, a, sizeof(a)) == (ssize_t)sizeof(a), "read of the low number"); /* served */
	CHECK(dup2(fd, hi) == hi, "dup2 onto %d: %s", hi, strerror(errno));
	hi2 = fcntl(fd, F_DUPFD, hi + 1);
	CHECK(hi2 == hi + 1, "F_DUPFD %d: got %d (%s)", hi + 1, hi2, strerror(errno));
	memset(b, 0, sizeof(b));
	memset(c, 0, sizeof(c));
	CHECK(read(hi, b, sizeof(b)) == (ssize_t)sizeof(b), "read of %d", hi);
	CHECK(read(hi2, c, sizeof(c)) == (ssize_t)sizeof(c), "read of %d", hi2);
	CHECK(looks_random(b, sizeof(b)) && looks_random(c, sizeof(c)) && memcmp(a, b, 32) != 0 &&
	      memcmp(b, c, 32) != 0, "the high numbers' bytes");
	CHECK(close(hi) == 0 && close(hi2) == 0, "close of the high numbers");
	close(fd);
	return 0;
}

/* ---- pltest exec ------------------------------------------------------------------ */

static int cmd_exec(void)
{
	char num[16];
	char *args[] = {"pltest", "execed", num, NULL};
	int fd = open("/dev/urandom", O_RDONLY); /* no O_CLOEXEC: the new program gets it */

	CHECK(fd >= 0, "open");
	snprintf(num, sizeof(num), "%d", fd);
	fflush(stdout);
	execv("/proc/self/exe", args);
	CHECK(0, "execv: %s", strerror(errno));
	return 1;
}

/* After the exec: the inherited number is the device, read by the kernel. */
static int cmd_execed(const char *num)
{
	unsigned char a[32], b[32];
	struct stat st;
	int fd = atoi(num), own;

	CHECK(fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) && major(st.st_rdev) == 1 &&
	      minor(st.st_rdev) == 9, "descriptor %d is not /dev/urandom after the exec", fd);
	memset(a, 0, sizeof(a));
	memset(b, 0, sizeof(b));
	CHECK(read(fd, a, sizeof(a)) == (ssize_t)sizeof(a), "read of the inherited %d", fd);
	own = open("/dev/urandom", O_RDONLY);
	CHECK(own >= 0 && read(own, b, sizeof(b)) == (ssize_t)sizeof(b), "read of its own"); /* served */
	CHECK(looks_random(a, sizeof(a)) && looks_random(b, sizeof(b)) && memcmp(a, b, 32) != 0,
	      "bytes");
	close(own);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	int rc = 2;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2) {
		fprintf(stderr, "usage: pltest entries|fork|recycle FILE|signal|cookie MODE|match|"
			"sandbox|stats|highfd N|exec\n");
		return 2;
	}
	if (strcmp(argv[1], "entries") == 0)
		rc = cmd_entries();
	else if (strcmp(argv[1], "fork") == 0)
		rc = cmd_fork();
	else if (strcmp(argv[1], "recycle") == 0 && argc > 2)
		rc = cmd_recycle(argv[2]);
	else if (strcmp(argv[1], "signal") == 0)
		rc = cmd_signal();
	else if (strcmp(argv[1], "cookie") == 0 && argc > 2)
		rc = cmd_cookie(argv[2]);
	else if (strcmp(argv[1], "match") == 0)
		rc = cmd_match();
	else if (strcmp(argv[1], "sandbox") == 0)
		rc = cmd_sandbox();
	else if (strcmp(argv[1], "stats") == 0)
		rc = cmd_stats();
	else if (strcmp(argv[1], "highfd") == 0 && argc > 2)
		rc = cmd_highfd(atoi(argv[2]));
	else if (strcmp(argv[1], "exec") == 0)
		rc = cmd_exec();
	else if (strcmp(argv[1], "execed") == 0 && argc > 2)
		rc = cmd_execed(argv[2]);
	else
		fprintf(stderr, "pltest: unknown test %s\n", argv[1]);
	if (rc == 0 && failures == 0)
		printf("ok %s\n", argv[1]);
	return failures ? 1 : rc;
}
