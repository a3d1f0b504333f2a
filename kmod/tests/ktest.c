// SPDX-License-Identifier: MIT OR GPL-2.0
/*
 * ktest.c - the guest side of scripts/kernel-test.sh: a static program that
 * the initramfs's /init runs as PID 1's child.  It loads surand.ko with each
 * design in turn (finit_module), runs the tests against /dev/surandom, checks
 * the module's allocation counters after every unload and the kernel log for
 * warnings, runs the guest benchmark, and prints one line per test on the
 * serial console:
 *   PASS kernel/<config>/<test>
 *   FAIL kernel/<config>/<test>: <why>
 *   BENCH <source> <design> threads=<n> bytes=<size> mbps=<MB/s>
 *   KTEST-PLAN <n>   (first: the results this run will print)
 *   KTEST-DONE <n>   (last: the results it printed)
 * Every test runs in its own process with a deadline (SIGKILL when over).
 * The host counts the PASS/FAIL lines against both numbers, so a run that
 * stops early (a killed ktest, a guest panic) never reads as a pass.
 *
 * Usage: ktest all [threads_per_design_reads]   (the host's default run)
 *        ktest exec-child <serial>              (used by the exec test)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "chacha20.h"
#include "sha1.h"

#define DEV "/dev/surandom"
#define MODULE_PATH "/surand.ko"
#define STATS "/sys/kernel/debug/surand/stats"
#define SELF "/sys/kernel/debug/surand/self"
#define PARAMS "/sys/module/surand/parameters/"
#define MIB (1024 * 1024)

static const char *g_config = "-"; /* the module configuration under test */
static int g_results; /* PASS/FAIL lines the parent printed (one per result) */
static const char *g_case = "-";
static long g_thread_reads = 20000; /* per thread, threads test */

/* One write(2) per line, so lines never interleave on the console. */
static void out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void out(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	if (write(1, buf, n) < 0)
		_exit(3);
}

/* Inside a test process: print the FAIL line and end the process. */
#define FAIL(...)                                                              \
	do {                                                                   \
		char why_[512];                                                \
		snprintf(why_, sizeof(why_), __VA_ARGS__);                     \
		out("FAIL kernel/%s/%s: %s (line %d)", g_config, g_case, why_, \
		    __LINE__);                                                 \
		_exit(1);                                                      \
	} while (0)
#define CHECK(cond, ...)                  \
	do {                              \
		if (!(cond))              \
			FAIL(__VA_ARGS__);  \
	} while (0)

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void msleep(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/*
 * Runs fn in a child process with a deadline; prints PASS, or FAIL when the
 * child failed (it printed why), died, or ran past the deadline.
 * Returns 1 on pass.
 */
static int run_case(const char *name, void (*fn)(void), int deadline_s)
{
	double t0 = now_s();
	int status;
	pid_t pid, w;

	g_case = name;
	g_results++; /* every run_case ends in exactly one PASS or FAIL line */
	pid = fork();
	if (pid < 0) {
		out("FAIL kernel/%s/%s: fork: %s", g_config, name, strerror(errno));
		return 0;
	}
	if (pid == 0) {
		setpgid(0, 0); /* the deadline kills the whole group */
		fn();
		_exit(0);
	}
	for (;;) {
		w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			break;
		if (now_s() - t0 > deadline_s) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			out("FAIL kernel/%s/%s: over its %d s deadline", g_config, name, deadline_s);
			/* A process SIGKILL cannot end is stuck in the kernel: stop the run. */
			for (t0 = now_s(); waitpid(pid, &status, WNOHANG) != pid; msleep(50)) {
				if (now_s() - t0 > 15) {
					out("FAIL kernel/%s/%s: still alive 15 s after SIGKILL (stuck in the kernel); run aborted",
					    g_config, name);
					exit(1);
				}
			}
			return 0;
		}
		msleep(20);
	}
	/* Reap anything left of its group. */
	kill(-pid, SIGKILL);
	while (waitpid(-pid, NULL, WNOHANG) > 0)
		;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		out("PASS kernel/%s/%s (%.1f s)", g_config, name, now_s() - t0);
		return 1;
	}
	if (WIFSIGNALED(status))
		out("FAIL kernel/%s/%s: killed by signal %d", g_config, name, WTERMSIG(status));
	else if (WEXITSTATUS(status) != 1)
		out("FAIL kernel/%s/%s: exit status %d", g_config, name, WEXITSTATUS(status));
	return 0;
}

/* ---- helpers ------------------------------------------------------------- */
static int open_dev(void)
{
	int fd = open(DEV, O_RDWR | O_CLOEXEC);

	CHECK(fd >= 0, "open %s: %s", DEV, strerror(errno));
	return fd;
}

/* Reads exactly len bytes with one read(2); any other result fails. */
static void read_full(int fd, void *buf, size_t len)
{
	ssize_t r = read(fd, buf, len);

	CHECK(r == (ssize_t)len, "read(%zu) returned %zd (%s)", len, r,
	      r < 0 ? strerror(errno) : "short");
}

static int all_zero(const unsigned char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

/* Value of "key N" in a debugfs file; -1 when absent. */
static long long file_get(const char *path, const char *key)
{
	char buf[8192], *line, *save;
	size_t klen = strlen(key);
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (!strncmp(line, key, klen) && line[klen] == ' ')
			return atoll(line + klen + 1);
	return -1;
}

static long long stat_get(const char *key)
{
	long long v = file_get(STATS, key);

	CHECK(v >= 0, "stats has no \"%s\"", key);
	return v;
}

static long long self_get(const char *key)
{
	long long v = file_get(SELF, key);

	CHECK(v >= 0, "self has no \"%s\"", key);
	return v;
}

static void pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	CHECK(sched_setaffinity(0, sizeof(set), &set) == 0, "pin to CPU %d: %s", cpu,
	      strerror(errno));
}

static int cmp16(const void *a, const void *b)
{
	return memcmp(a, b, 16);
}

static int cmp32(const void *a, const void *b)
{
	return memcmp(a, b, 32);
}

/* The whole kernel log (klogctl READ_ALL), malloc'd, NUL-terminated. */
static char *klog(void)
{
	int size = klogctl(10, NULL, 0), n;
	char *buf;

	if (size < 4096)
		size = 1 << 20;
	buf = malloc(size + 1);
	if (!buf)
		return NULL;
	n = klogctl(3, buf, size);
	if (n < 0)
		n = 0;
	buf[n] = 0;
	return buf;
}

/* ---- loading ------------------------------------------------------------- */
static int load_module(const char *params)
{
	int fd = open(MODULE_PATH, O_RDONLY | O_CLOEXEC), r, i;
	struct stat sb;

	if (fd < 0)
		return -errno;
	r = syscall(SYS_finit_module, fd, params, 0);
	r = r ? -errno : 0;
	close(fd);
	if (r)
		return r;
	for (i = 0; i < 200 && stat(DEV, &sb) != 0; i++)
		msleep(10);
	return 0;
}

/* delete_module, retried while the module is busy (open files). */
static int unload_module(int max_s)
{
	double t0 = now_s();

	for (;;) {
		if (syscall(SYS_delete_module, "surand", O_NONBLOCK) == 0)
			return 0;
		if (errno != EAGAIN && errno != EBUSY)
			return -errno;
		if (now_s() - t0 > max_s)
			return -EBUSY;
		msleep(20);
	}
}

/* allocs/frees of the last "unloaded" line; 0 when found and balanced. */
static int check_unload_line(char *why, size_t whylen)
{
	char *log = klog(), *p, *last = NULL;
	long a = -1, f = -1;
	char name[32];

	if (!log) {
		snprintf(why, whylen, "cannot read the kernel log");
		return -1;
	}
	for (p = log; (p = strstr(p, "surand: unloaded design=")); p++)
		last = p;
	if (!last || sscanf(last, "surand: unloaded design=%31s allocs=%ld frees=%ld", name, &a,
			    &f) != 3) {
		snprintf(why, whylen, "no \"surand: unloaded\" line in the kernel log");
		free(log);
		return -1;
	}
	free(log);
	if (a != f || a <= 0) {
		snprintf(why, whylen, "allocs=%ld frees=%ld after unload", a, f);
		return -1;
	}
	return 0;
}

/*
 * Statistics of one large read: no zero run of 8 bytes or more anywhere
 * (every 64-byte window is scanned; 2^-64 per position by chance), the
 * monobit count within 6 standard deviations, and the byte chi-square
 * (255 degrees of freedom) inside [142, 415], its +-6 sigma band by the
 * Wilson-Hilferty approximation.  A false FAIL is about a 1e-9 event.
 */
static void check_stats(const unsigned char *p, size_t n, const char *what)
{
	unsigned long long ones = 0, counts[256] = { 0 };
	double chi = 0, e = n / 256.0, z;
	size_t i, run = 0;

	for (i = 0; i < n; i++) {
		run = p[i] ? 0 : run + 1;
		CHECK(run < 8, "%s: a run of 8 zero bytes ends at offset %zu (64-byte window %zu)",
		      what, i, i / 64);
		ones += __builtin_popcount(p[i]);
		counts[p[i]]++;
	}
	z = ((double)ones - n * 4.0) / (__builtin_sqrt(n * 8.0) / 2);
	CHECK(z > -6 && z < 6, "%s: monobit z = %.2f over %zu bits", what, z, n * 8);
	for (i = 0; i < 256; i++)
		chi += (counts[i] - e) * (counts[i] - e) / e;
	CHECK(chi > 142 && chi < 415, "%s: byte chi-square %.1f (255 df) outside [142, 415]", what,
	      chi);
}

/* ---- tests for every design ----------------------------------------------- */
static void t_device(void)
{
	struct stat sb;
	unsigned char b[16];
	int fd;
	pid_t pid;
	int status;

	CHECK(stat(DEV, &sb) == 0, "stat %s: %s", DEV, strerror(errno));
	CHECK(S_ISCHR(sb.st_mode), "%s is not a character device", DEV);
	CHECK((sb.st_mode & 07777) == 0444, "mode %o, want 0444", sb.st_mode & 07777);
	/* An unprivileged reader may read, not write. */
	pid = fork();
	CHECK(pid >= 0, "fork");
	if (pid == 0) {
		if (setgid(65534) || setuid(65534))
			_exit(2);
		fd = open(DEV, O_RDONLY);
		if (fd < 0)
			_exit(3);
		if (read(fd, b, sizeof(b)) != sizeof(b))
			_exit(4);
		close(fd);
		if (open(DEV, O_WRONLY) >= 0 || errno != EACCES)
			_exit(5);
		_exit(0);
	}
	CHECK(waitpid(pid, &status, 0) == pid, "waitpid");
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "unprivileged check failed (code %d: 3 open, 4 read, 5 write allowed)",
	      WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

/* The module's 2015 mix, SHA-1 and fold give the known answer the library's
 * tests check too (src/crypto/lfsr2015.h): the module ran it at load and
 * runs it again for the stats file. */
static void t_pool_kat(void)
{
	CHECK(stat_get("pool_kat") == 1, "the module's pool mix fails the shared known answer");
}

static void t_reads(void)
{
	static const size_t sizes[] = { 1, 2, 3, 7, 9, 10, 11, 15, 16, 17, 31, 32, 33, 63, 64,
					65, 100, 255, 256, 257, 1000, 4095, 4096, 4097, 8191,
					65536, 65537, 262144, MIB };
	int fd = open_dev();
	unsigned char *buf = malloc(MIB + 64);
	size_t i, n;

	CHECK(buf, "malloc");
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		n = sizes[i];
		memset(buf, 0, n);
		memset(buf + n, 0xa5, 64);
		read_full(fd, buf, n);
		/* Never zeros: 16 zero bytes by chance is a 2^-128 event. */
		CHECK(n < 16 || !all_zero(buf, 16), "read(%zu): first 16 bytes are zero", n);
		CHECK(n < 32 || !all_zero(buf + n - 16, 16), "read(%zu): last 16 bytes are zero", n);
		for (size_t k = 0; k < 64; k++)
			CHECK(buf[n + k] == 0xa5, "read(%zu) wrote past the end", n);
		if (n >= 65536)
			check_stats(buf, n, n == MIB ? "read(1 MiB)" : "read(64 KiB+)");
	}
	CHECK(read(fd, buf, 0) == 0, "read(0) != 0");
	free(buf);
	close(fd);
}

/* Four processes; every 32-byte block any of them reads is distinct. */
#define DP_PROCS 4
#define DP_SMALL 512 /* 32-byte reads per process */
#define DP_BLOCKS (DP_SMALL + 2048) /* + one 64 KiB read */
static void t_distinct_procs(void)
{
	size_t total = (size_t)DP_PROCS * DP_BLOCKS * 32;
	unsigned char *shm = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
				  -1, 0);
	int i, status;
	size_t k;

	CHECK(shm != MAP_FAILED, "mmap");
	for (i = 0; i < DP_PROCS; i++) {
		pid_t pid = fork();

		CHECK(pid >= 0, "fork");
		if (pid == 0) {
			unsigned char *mine = shm + (size_t)i * DP_BLOCKS * 32;
			int fd = open(DEV, O_RDONLY);

			if (fd < 0)
				_exit(2);
			for (k = 0; k < DP_SMALL; k++)
				if (read(fd, mine + 32 * k, 32) != 32)
					_exit(3);
			if (read(fd, mine + 32 * DP_SMALL, 65536) != 65536)
				_exit(4);
			_exit(0);
		}
	}
	for (i = 0; i < DP_PROCS; i++) {
		CHECK(wait(&status) > 0, "wait");
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "reader failed (%d)",
		      WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	}
	qsort(shm, total / 32, 32, cmp32);
	for (k = 1; k < total / 32; k++)
		CHECK(memcmp(shm + 32 * (k - 1), shm + 32 * k, 32) != 0,
		      "two 32-byte blocks are equal (of %zu)", total / 32);
}

/* Parent and child after fork read different bytes (with and without a read before). */
static void t_fork(void)
{
	unsigned char mine[64], theirs[64];
	int round, p[2], fd, status;
	pid_t pid;

	for (round = 0; round < 2; round++) {
		fd = open_dev();
		if (round == 1)
			read_full(fd, mine, sizeof(mine)); /* taskcrng: the parent now has a CRNG */
		CHECK(pipe(p) == 0, "pipe");
		pid = fork();
		CHECK(pid >= 0, "fork");
		if (pid == 0) {
			if (read(fd, theirs, 64) != 64 || write(p[1], theirs, 64) != 64)
				_exit(2);
			_exit(0);
		}
		read_full(fd, mine, 64);
		CHECK(read(p[0], theirs, 64) == 64, "child sent nothing");
		CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
			      WEXITSTATUS(status) == 0, "child failed");
		CHECK(memcmp(mine, theirs, 64) != 0, "parent and child read the same bytes");
		close(p[0]);
		close(p[1]);
		close(fd);
	}
}

/* 16 threads x g_thread_reads x 16 bytes: no value twice. */
#define TH_THREADS 16
static unsigned char *th_buf;
static int th_fd;
static void *th_reader(void *arg)
{
	long i, t = (long)arg;
	unsigned char *mine = th_buf + (size_t)t * g_thread_reads * 16;

	for (i = 0; i < g_thread_reads; i++)
		if (read(th_fd, mine + 16 * i, 16) != 16)
			return (void *)1;
	return NULL;
}

static void t_threads(void)
{
	pthread_t th[TH_THREADS];
	size_t n = (size_t)TH_THREADS * g_thread_reads, k;
	void *res;
	long t;

	th_buf = malloc(n * 16);
	CHECK(th_buf, "malloc %zu", n * 16);
	th_fd = open_dev();
	for (t = 0; t < TH_THREADS; t++)
		CHECK(pthread_create(&th[t], NULL, th_reader, (void *)t) == 0, "pthread_create");
	for (t = 0; t < TH_THREADS; t++) {
		CHECK(pthread_join(th[t], &res) == 0, "join");
		CHECK(res == NULL, "thread %ld: a read was not 16 bytes", t);
	}
	qsort(th_buf, n, 16, cmp16);
	for (k = 1; k < n; k++)
		CHECK(memcmp(th_buf + 16 * (k - 1), th_buf + 16 * k, 16) != 0,
		      "a 16-byte value appeared twice among %zu", n);
	free(th_buf);
	close(th_fd);
}

/* A signal during a long read: a partial count, then the device still works. */
static volatile sig_atomic_t sig_got;
static void on_alarm(int s)
{
	(void)s;
	sig_got = 1;
}

static void t_signal(void)
{
	size_t len = (size_t)512 * MIB;
	struct sigaction sa;
	struct itimerval it;
	unsigned char *buf, b[64];
	long long before = stat_get("signal_partial");
	ssize_t r;
	int fd = open_dev();

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm; /* no SA_RESTART */
	CHECK(sigaction(SIGALRM, &sa, NULL) == 0, "sigaction");
	buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		   -1, 0);
	CHECK(buf != MAP_FAILED, "mmap");
	/* Every 30 ms, so a slow start of the read cannot miss the signal. */
	memset(&it, 0, sizeof(it));
	it.it_value.tv_usec = 30000;
	it.it_interval.tv_usec = 30000;
	CHECK(setitimer(ITIMER_REAL, &it, NULL) == 0, "setitimer");
	r = read(fd, buf, len);
	memset(&it, 0, sizeof(it));
	CHECK(setitimer(ITIMER_REAL, &it, NULL) == 0, "setitimer off");
	CHECK(sig_got, "the read of %zu bytes ended before the 30 ms timer (%zd)", len, r);
	CHECK(r > 0 && (size_t)r < len, "read interrupted by a signal returned %zd (%s), want a partial count",
	      r, r < 0 ? strerror(errno) : "full");
	CHECK(!all_zero(buf + r - 16, 16), "the partial read ends in zeros");
	CHECK(stat_get("signal_partial") > before, "stats signal_partial did not move");
	munmap(buf, len);
	read_full(fd, b, sizeof(b));
	close(fd);
}

/* Bad user pointers: -EFAULT or the partial count, never an oops. */
static void t_efault(void)
{
	long long before = stat_get("faults");
	long pg = sysconf(_SC_PAGESIZE);
	unsigned char *p;
	ssize_t r;
	int fd = open_dev();

	r = syscall(SYS_read, fd, (void *)8, 16); /* a bad pointer on purpose */
	CHECK(r == -1 && errno == EFAULT, "read to address 8 gave %zd (%s)", r, strerror(errno));
	r = syscall(SYS_write, fd, (void *)8, 16);
	CHECK(r == -1 && errno == EFAULT, "write from address 8 gave %zd (%s)", r, strerror(errno));
	p = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(p != MAP_FAILED, "mmap");
	CHECK(munmap(p + pg, pg) == 0, "munmap");
	r = read(fd, p, 2 * pg);
	CHECK(r == pg || (r == -1 && errno == EFAULT), "read over an unmapped page gave %zd", r);
	CHECK(stat_get("faults") >= before + 3, "stats faults did not count 3 faults");
	munmap(p, pg);
	{
		unsigned char ok[16];

		read_full(fd, ok, sizeof(ok)); /* still healthy */
	}
	close(fd);
}

/* write(2) mixes any size (in page chunks); poll says readable at once. */
static void t_write_poll(void)
{
	size_t len = 3 * 4096 + 1, big = MIB;
	unsigned char *buf = malloc(big), b[32];
	long long before = stat_get("write_bytes");
	struct pollfd pfd;
	int fd = open_dev();

	CHECK(buf, "malloc");
	memset(buf, 0x5c, big);
	CHECK(write(fd, buf, len) == (ssize_t)len, "write(%zu) not full", len);
	CHECK(write(fd, buf, 1) == 1, "write(1) not full");
	CHECK(write(fd, buf, big) == (ssize_t)big, "write(1 MiB) not full");
	CHECK(stat_get("write_bytes") == before + (long long)(len + 1 + big),
	      "stats write_bytes moved by %lld, want %zu", stat_get("write_bytes") - before,
	      len + 1 + big);
	read_full(fd, b, sizeof(b));
	CHECK(!all_zero(b, sizeof(b)), "zeros after a write");
	pfd.fd = fd;
	pfd.events = POLLIN | POLLOUT;
	pfd.revents = 0;
	CHECK(poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLIN), "poll: not readable (revents %x)",
	      pfd.revents);
	free(buf);
	close(fd);
}

/* ---- design-specific tests ------------------------------------------------ */
/* legacy: 10 bytes per SHA-1 extraction, all from the one pool. */
static void t_legacy_extract(void)
{
	unsigned char b[100];
	long long before;
	int fd = open_dev();

	CHECK(stat_get("pools") == 1, "pools != 1");
	before = stat_get("pool0_extracts");
	read_full(fd, b, 100);
	CHECK(stat_get("pool0_extracts") - before == 10, "100 bytes took %lld extractions, want 10",
	      stat_get("pool0_extracts") - before);
	before = stat_get("pool0_extracts");
	read_full(fd, b, 16);
	CHECK(stat_get("pool0_extracts") - before == 2, "16 bytes took %lld extractions, want 2",
	      stat_get("pool0_extracts") - before);
	close(fd);
}

/*
 * Pinned to cpu, one 100-byte read: of the counters <obj><i>_<what> for
 * i = 0..count-1 ("pool0_extracts"), only counter want moves, and by delta.
 */
static void expect_one_moved(int cpu, const char *obj, const char *what, int count, int want,
			     long long delta)
{
	char key[32];
	long long before[8], after;
	unsigned char b[100];
	int i, fd = open_dev();

	pin_cpu(cpu);
	for (i = 0; i < count; i++) {
		snprintf(key, sizeof(key), "%s%d_%s", obj, i, what);
		before[i] = stat_get(key);
	}
	read_full(fd, b, 100);
	for (i = 0; i < count; i++) {
		snprintf(key, sizeof(key), "%s%d_%s", obj, i, what);
		after = stat_get(key);
		CHECK(after - before[i] == (i == want ? delta : 0),
		      "CPU %d: %s moved by %lld (want %lld)", cpu, key, after - before[i],
		      i == want ? delta : 0);
	}
	close(fd);
}

/* multipool on 2 guest nodes (CPUs 0-1: node 0, 2-3: node 1): a pool per node,
 * 10 SHA-1 extractions for 100 bytes. */
static void expect_pool(int cpu, int want_pool, int npools)
{
	expect_one_moved(cpu, "pool", "extracts", npools, want_pool, 10);
}

static void t_multipool_nodes(void)
{
	CHECK(stat_get("pools") == 2, "pools = %lld, want 2 (guest has 2 NUMA nodes)",
	      stat_get("pools"));
	CHECK(stat_get("simulated") == 0, "simulated != 0");
	expect_pool(0, 0, 2);
	expect_pool(1, 0, 2);
	expect_pool(2, 1, 2);
	expect_pool(3, 1, 2);
}

static void t_multipool_sim3(void)
{
	CHECK(stat_get("pools") == 3, "pools = %lld, want 3 (nodes=3)", stat_get("pools"));
	CHECK(stat_get("simulated") == 1, "simulated != 1");
	expect_pool(0, 0, 3);
	expect_pool(2, 2, 3);
	expect_pool(3, 0, 3);
}

/* percpu: each CPU serves its own readers; a write makes every CPU rekey. */
static void t_percpu_cpus(void)
{
	char key[32];
	unsigned char b[16];
	long long before, rekeys;
	int cpu, fd = open_dev();

	for (cpu = 0; cpu < 4; cpu++) {
		pin_cpu(cpu);
		snprintf(key, sizeof(key), "cpu%d_reads", cpu);
		before = stat_get(key);
		read_full(fd, b, sizeof(b));
		CHECK(stat_get(key) == before + 1, "CPU %d: cpu%d_reads did not move by 1", cpu, cpu);
	}
	before = stat_get("base_writes");
	rekeys = stat_get("percpu_rekeys");
	CHECK(write(fd, "new data", 8) == 8, "write");
	CHECK(stat_get("base_writes") == before + 1, "base_writes did not move");
	read_full(fd, b, sizeof(b));
	CHECK(stat_get("percpu_rekeys") == rekeys + 1, "a read after a write did not rekey the CPU");
	close(fd);
}

/* taskcrng: a careful reader stays on the pool. */
static void t_tc_careful(void)
{
	long long promo = stat_get("promotions"), pool = stat_get("pool_reads");
	unsigned char b[8];
	int i, fd = open_dev();

	CHECK(self_get("tracked") == 0, "a fresh process is already tracked");
	for (i = 0; i < 4; i++) {
		read_full(fd, b, sizeof(b)); /* 4 x 8 = 32 bytes: at the limit, not over */
		msleep(120);
	}
	CHECK(self_get("tracked") == 1, "not tracked after reading");
	CHECK(self_get("crng") == 0, "a careful reader was switched to a CRNG");
	CHECK(stat_get("promotions") == promo, "promotions moved");
	CHECK(stat_get("pool_reads") - pool == 4, "pool_reads moved by %lld, want 4",
	      stat_get("pool_reads") - pool);
	close(fd);
}

/* taskcrng: more than 32 bytes of history (request included) switches. */
static void t_tc_bytes(void)
{
	long long promo = stat_get("promotions"), crng_reads = stat_get("crng_reads");
	unsigned char b[64];
	int fd = open_dev();

	read_full(fd, b, 32);
	CHECK(self_get("crng") == 0, "switched after 32 bytes");
	read_full(fd, b, 1);
	CHECK(self_get("crng") == 1, "not switched after 33 bytes");
	CHECK(stat_get("promotions") == promo + 1, "promotions did not move by 1");
	read_full(fd, b, 64);
	CHECK(stat_get("crng_reads") >= crng_reads + 2, "crng_reads did not count");
	close(fd);
}

/* Child: become an abuser, report the entry serial on the pipe. */
static void tc_abuse_report(int wfd)
{
	unsigned char b[64];
	long long serial;
	int fd = open(DEV, O_RDONLY);

	if (fd < 0 || read(fd, b, 64) != 64)
		_exit(2);
	if (file_get(SELF, "crng") != 1)
		_exit(3);
	serial = file_get(SELF, "serial");
	if (write(wfd, &serial, sizeof(serial)) != sizeof(serial))
		_exit(4);
	_exit(0);
}

/* taskcrng: a process that gets a dead process's pid does not inherit its state. */
static void t_tc_pid_reuse(void)
{
	long long sa, sb;
	int p[2], status, tries, fd;
	pid_t a, b = -1;
	char num[32];

	CHECK(pipe(p) == 0, "pipe");
	a = fork();
	CHECK(a >= 0, "fork");
	if (a == 0)
		tc_abuse_report(p[1]);
	CHECK(waitpid(a, &status, 0) == a && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "first child failed (%d)", WEXITSTATUS(status));
	CHECK(read(p[0], &sa, sizeof(sa)) == sizeof(sa), "no serial");
	/* Make the next pid be a's: ns_last_pid = a - 1 (CONFIG_CHECKPOINT_RESTORE). */
	for (tries = 0; tries < 20 && b != a; tries++) {
		fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY);
		CHECK(fd >= 0, "open ns_last_pid: %s", strerror(errno));
		snprintf(num, sizeof(num), "%d", a - 1);
		CHECK(write(fd, num, strlen(num)) > 0, "write ns_last_pid: %s", strerror(errno));
		close(fd);
		b = fork();
		CHECK(b >= 0, "fork");
		if (b == 0) {
			if (getpid() != a)
				_exit(9);
			/* Same pid, new process: nothing of a's state. */
			if (file_get(SELF, "tracked") != 0)
				_exit(5);
			tc_abuse_report(p[1]);
		}
		CHECK(waitpid(b, &status, 0) == b, "waitpid");
		if (WIFEXITED(status) && WEXITSTATUS(status) == 9)
			continue;
		CHECK(b == a, "pid %d reused as %d?", a, b);
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "the pid-reusing child failed (code %d: 5 = inherited an entry)",
		      WEXITSTATUS(status));
		CHECK(read(p[0], &sb, sizeof(sb)) == sizeof(sb), "no serial");
		CHECK(sb != sa, "the reused pid got the old entry (serial %lld)", sa);
		return;
	}
	FAIL("could not get pid %d again", a);
}

/* taskcrng: after execve the process starts untracked (self_exec_id is in the key). */
static char g_self_exe[256] = "/bin/ktest";
static void t_tc_exec(void)
{
	int status;
	long long s;
	pid_t pid;
	char arg[32];

	pid = fork();
	CHECK(pid >= 0, "fork");
	if (pid == 0) {
		unsigned char b[64];
		int fd = open(DEV, O_RDONLY);

		if (fd < 0 || read(fd, b, 64) != 64 || file_get(SELF, "crng") != 1)
			_exit(2);
		s = file_get(SELF, "serial");
		snprintf(arg, sizeof(arg), "%lld", s);
		execl(g_self_exe, g_self_exe, "exec-child", arg, (char *)NULL);
		_exit(3);
	}
	CHECK(waitpid(pid, &status, 0) == pid, "waitpid");
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "exec child failed (code %d: 2 no crng before exec, 3 exec, 5 inherited after exec)",
	      WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

static int exec_child(const char *serial)
{
	unsigned char b[64];
	int fd;

	if (file_get(SELF, "tracked") != 0)
		return 5;
	fd = open(DEV, O_RDONLY);
	if (fd < 0 || read(fd, b, 64) != 64)
		return 6;
	if (file_get(SELF, "crng") != 1 || file_get(SELF, "serial") == atoll(serial))
		return 7;
	return 0;
}

/*
 * Forks n readers of DEV that each read len bytes (as uid 1000 when
 * drop_root), report on a pipe and stay alive (so their entries stay
 * uncollectable) until release_readers(); returns once all have reported.
 * A child's exit status names the step that failed.
 */
static int hold_readers(pid_t *kids, int n, int drop_root, size_t len)
{
	int ready[2], go[2], i;
	unsigned char b[64];
	char c;

	CHECK(len <= sizeof(b) && pipe(ready) == 0 && pipe(go) == 0, "pipe");
	for (i = 0; i < n; i++) {
		kids[i] = fork();
		CHECK(kids[i] >= 0, "fork");
		if (kids[i] == 0) {
			int fd;

			close(go[1]);
			if (drop_root && (setgid(1000) || setuid(1000)))
				_exit(2);
			fd = open(DEV, O_RDONLY);
			if (fd < 0 || read(fd, b, len) != (ssize_t)len || all_zero(b, len))
				_exit(3);
			if (write(ready[1], "r", 1) != 1)
				_exit(4);
			if (read(go[0], &c, 1) < 0)
				_exit(5);
			_exit(0);
		}
	}
	close(go[0]);
	close(ready[1]);
	for (i = 0; i < n; i++)
		CHECK(read(ready[0], &c, 1) == 1, "child %d did not report", i);
	close(ready[0]);
	return go[1];
}

/* Lets hold_readers()'s children exit (go: what it returned) and checks they all succeeded. */
static void release_readers(const pid_t *kids, int n, int go)
{
	int i, status;

	close(go);
	for (i = 0; i < n; i++) {
		CHECK(waitpid(kids[i], &status, 0) == kids[i], "waitpid");
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child failed (%d)",
		      WEXITSTATUS(status));
	}
}

/* The table's entries once the collector (collect_ms=100) has had up to 5 s
 * to free those of gone processes. */
static long long entries_after_collect(void)
{
	int i;

	for (i = 0; i < 100 && stat_get("entries") > 0; i++)
		msleep(50);
	return stat_get("entries");
}

/* taskcrng (max_tasks=16, collect_ms=100): the cap holds under a fork loop. */
#define CAP_CHILDREN 48
static void t_tc_table_cap(void)
{
	long long cap = stat_get("max_tasks"), full0 = stat_get("table_full"), ent;
	pid_t kids[CAP_CHILDREN];
	int go;

	CHECK(cap == 16, "max_tasks = %lld, this test wants 16", cap);
	go = hold_readers(kids, CAP_CHILDREN, 0, 64);
	ent = stat_get("entries");
	CHECK(ent <= cap, "entries = %lld over max_tasks = %lld", ent, cap);
	CHECK(ent == cap, "entries = %lld, want the table full (%lld)", ent, cap);
	CHECK(stat_get("table_full") - full0 >= CAP_CHILDREN - cap,
	      "table_full moved by %lld, want >= %lld", stat_get("table_full") - full0,
	      CAP_CHILDREN - cap);
	release_readers(kids, CAP_CHILDREN, go);
	ent = entries_after_collect();
	CHECK(ent == 0, "%lld entries left 5 s after their processes exited", ent);
	CHECK(stat_get("entries_collected") >= cap, "entries_collected < %lld", cap);
}

/* taskcrng (reseed_blocks=64): a long read reseeds its CRNG from the pool. */
static void t_tc_reseed(void)
{
	long long before = stat_get("crng_reseeds");
	unsigned char *b = malloc(65536);
	int fd = open_dev();

	CHECK(b, "malloc");
	read_full(fd, b, 64); /* switches */
	CHECK(self_get("crng") == 1, "not switched");
	read_full(fd, b, 65536); /* 1024 blocks: ~16 reseeds at 64 blocks each */
	CHECK(stat_get("crng_reseeds") - before >= 10, "crng_reseeds moved by %lld, want >= 10",
	      stat_get("crng_reseeds") - before);
	CHECK(self_get("cranks") <= 64 + 4, "cranks = %lld over reseed_blocks", self_get("cranks"));
	free(b);
	close(fd);
}

/* ---- every design: the device as a kernel user expects it ------------------ */
/* An open fd holds the module: delete_module(O_NONBLOCK) fails busy, the fd still reads. */
static void t_unload_open(void)
{
	unsigned char b[64];
	int fd = open_dev(), r;

	r = syscall(SYS_delete_module, "surand", O_NONBLOCK);
	/* 6.1's try_stop_module answers -EWOULDBLOCK (EAGAIN); EBUSY on older kernels. */
	CHECK(r == -1 && (errno == EAGAIN || errno == EBUSY),
	      "delete_module with an fd open gave %d (%s), want EAGAIN/EBUSY", r,
	      r ? strerror(errno) : "success");
	read_full(fd, b, sizeof(b));
	CHECK(!all_zero(b, sizeof(b)), "zeros after the refused unload");
	close(fd);
}

/* splice(2) from the device into a pipe (read_iter + splice_read). */
static void t_splice(void)
{
	unsigned char *a = malloc(65536), *b = malloc(65536);
	int fd = open_dev(), p[2];
	ssize_t r, got;

	CHECK(a && b, "malloc");
	CHECK(pipe(p) == 0, "pipe");
	CHECK(fcntl(p[1], F_SETPIPE_SZ, 65536) >= 65536 || 1, "F_SETPIPE_SZ");
	for (got = 0; got < 65536; got += r) {
		r = splice(fd, NULL, p[1], NULL, 65536 - got, 0);
		CHECK(r > 0, "splice from %s gave %zd (%s)", DEV, r, r < 0 ? strerror(errno) : "0");
		CHECK(read(p[0], a + got, r) == r, "read from the pipe");
	}
	read_full(fd, b, 65536);
	CHECK(memcmp(a, b, 65536) != 0, "splice and read gave the same 64 KiB");
	check_stats(a, 65536, "splice(64 KiB)");
	close(p[0]);
	close(p[1]);
	close(fd);
	free(a);
	free(b);
}

/* sendfile(2) from the device to a tmpfs file. */
static void t_sendfile(void)
{
	unsigned char *a = malloc(65536);
	int fd = open_dev(), ofd = open("/tmp/sendfile.out", O_RDWR | O_CREAT | O_TRUNC, 0600);
	ssize_t r, got;

	CHECK(a, "malloc");
	CHECK(ofd >= 0, "open /tmp/sendfile.out: %s", strerror(errno));
	for (got = 0; got < 65536; got += r) {
		r = sendfile(ofd, fd, NULL, 65536 - got);
		CHECK(r > 0, "sendfile from %s gave %zd (%s)", DEV, r, r < 0 ? strerror(errno) : "0");
	}
	CHECK(pread(ofd, a, 65536, 0) == 65536, "pread");
	check_stats(a, 65536, "sendfile(64 KiB)");
	close(ofd);
	unlink("/tmp/sendfile.out");
	close(fd);
	free(a);
}

/* ---- seeding: the first 64 bytes after every load ------------------------- */
#define SEED_MAX 32
static unsigned char g_first[SEED_MAX][64];
static const char *g_first_cfg[SEED_MAX];
static int g_nfirst;

/* The 2015 pool's mix (sign-extended bytes), for the all-zero pool reference. */
static const uint32_t twist[8] = { 0x00000000, 0x3b6e20c8, 0x76dc4190, 0x4db26158,
				   0xedb88320, 0xd6d6a3e8, 0x9b64c2b0, 0xa00ae278 };
struct refpool {
	uint32_t w[32];
	unsigned add_ptr, rot;
};
static uint32_t rol(uint32_t x, unsigned n)
{
	return n ? (x << n) | (x >> (32 - n)) : x;
}
static void ref_mix(struct refpool *p, const unsigned char *b, size_t n)
{
	unsigned i = p->add_ptr;
	uint32_t w;

	while (n--) {
		w = rol((uint32_t)(int32_t)(signed char)*b++, p->rot & 31);
		i = (i - 1) & 31;
		w ^= p->w[i] ^ p->w[(i + 26) & 31] ^ p->w[(i + 19) & 31] ^ p->w[(i + 14) & 31] ^
		     p->w[(i + 7) & 31] ^ p->w[(i + 1) & 31];
		p->w[i] = (w >> 3) ^ twist[w & 7];
		p->rot = (p->rot + (i ? 7 : 14)) & 31;
	}
	p->add_ptr = i;
}
/* What a pool design would serve if its seed were all zeros (no get_random_bytes). */
static void ref_zero_pool(unsigned char out[64])
{
	struct refpool p;
	unsigned char zero[128] = { 0 }, blk[64];
	uint32_t h[5];
	size_t done = 0, k;
	int i;

	memset(&p, 0, sizeof(p));
	ref_mix(&p, zero, sizeof(zero));
	while (done < 64) {
		surand_sha1_init_state(h);
		for (i = 0; i < 32; i += 16) {
			memcpy(blk, p.w + i, 64);
			surand_sha1_transform(h, blk);
		}
		ref_mix(&p, (const unsigned char *)h, 20);
		h[0] ^= h[3];
		h[1] ^= h[4];
		h[2] ^= rol(h[2], 16);
		k = 64 - done < 10 ? 64 - done : 10;
		memcpy(out + done, h, k);
		done += k;
	}
}

/* The first read after a load, by a child (taskcrng: no entry stays behind). */
static void record_first(const char *cfg)
{
	int p[2], status;
	pid_t pid;

	if (g_nfirst >= SEED_MAX || pipe(p))
		return;
	pid = fork();
	if (pid == 0) {
		unsigned char b[64];
		int fd = open(DEV, O_RDONLY);

		if (fd < 0 || read(fd, b, 64) != 64 || write(p[1], b, 64) != 64)
			_exit(1);
		_exit(0);
	}
	if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	    WEXITSTATUS(status) == 0 && read(p[0], g_first[g_nfirst], 64) == 64)
		g_first_cfg[g_nfirst++] = cfg;
	close(p[0]);
	close(p[1]);
}

static void t_seeding(void)
{
	unsigned char zpool[64], zchacha[64];
	uint32_t zkey[8] = { 0 };
	int i, j;

	CHECK(g_nfirst >= 8, "only %d loads recorded their first read, want >= 8", g_nfirst);
	ref_zero_pool(zpool);
	surand_chacha20_blocks_portable(zkey, 0, 0, zchacha, 1);
	for (i = 0; i < g_nfirst; i++) {
		CHECK(memcmp(g_first[i], zchacha, 16) != 0,
		      "%s: the first read is ChaCha20 under the all-zero key", g_first_cfg[i]);
		CHECK(memcmp(g_first[i], zpool, 10) != 0,
		      "%s: the first read is the all-zero pool's output", g_first_cfg[i]);
		for (j = 0; j < i; j++)
			CHECK(memcmp(g_first[i], g_first[j], 64) != 0,
			      "loads %d (%s) and %d (%s) started with the same 64 bytes", j,
			      g_first_cfg[j], i, g_first_cfg[i]);
	}
}

/* ---- salted ------------------------------------------------------------------ */
static void t_salted_extract(void)
{
	unsigned char b[100];
	long long before;
	int fd = open_dev();

	before = stat_get("extractions");
	read_full(fd, b, 100);
	CHECK(stat_get("extractions") - before == 10, "100 bytes took %lld extractions, want 10",
	      stat_get("extractions") - before);
	close(fd);
}

/*
 * The defining property: while another CPU holds the pool lock, readers
 * still complete (their hashes wait in the buffer), and none waits for it.
 */
static void t_salted_lockless(void)
{
	long long waits = stat_get("lock_waits"), app = stat_get("mixback_appended"),
		  folded, holds = stat_get("test_holds");
	unsigned char b[10];
	int i, fd = open_dev(), hfd, status, done = 0;
	pid_t pid;

	pid = fork();
	CHECK(pid >= 0, "fork");
	if (pid == 0) {
		pin_cpu(0);
		hfd = open("/sys/kernel/debug/surand/test_hold_ms", O_WRONLY);
		if (hfd < 0 || write(hfd, "2000", 4) != 4)
			_exit(2);
		_exit(0);
	}
	pin_cpu(2);
	for (i = 0; i < 400 && file_get(STATS, "holding") != 1; i++)
		msleep(5);
	CHECK(file_get(STATS, "holding") == 1, "the holder never took the lock");
	/* 20 reads of one extraction each while the lock is held elsewhere. */
	for (i = 0; i < 20; i++) {
		read_full(fd, b, sizeof(b));
		done++;
	}
	CHECK(file_get(STATS, "holding") == 1,
	      "the lock was released before the 20 reads finished (hold too short for this host?)");
	CHECK(stat_get("mixback_appended") - app >= done,
	      "only %lld of %d hashes went to the buffer", stat_get("mixback_appended") - app, done);
	CHECK(stat_get("lock_waits") == waits, "a reader waited for the pool lock");
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "holder failed");
	CHECK(stat_get("test_holds") == holds + 1, "test_holds did not move");
	/* The holder's release folded every waiting hash in. */
	folded = stat_get("mixback_folded");
	CHECK(stat_get("mixback_waiting") == 0, "%lld hashes left in the buffer after the release",
	      stat_get("mixback_waiting"));
	(void)folded;
	close(fd);
}

/* ---- nodecrng ----------------------------------------------------------------- */
/* A read is served by its node's CRNG alone: one backtrack protection. */
static void nc_expect(int cpu, int want, int nnodes)
{
	expect_one_moved(cpu, "node", "protects", nnodes, want, 1);
}

static void t_nodecrng_nodes(void)
{
	CHECK(stat_get("nodes") == 2, "nodes = %lld, want 2", stat_get("nodes"));
	nc_expect(0, 0, 2);
	nc_expect(1, 0, 2);
	nc_expect(2, 1, 2);
	nc_expect(3, 1, 2);
}

/*
 * The 32-byte key mixback after every read: blocks per read as 4.8's
 * extract_crng_user + crng_backtrack_protect take them (one per 64 bytes,
 * plus one when fewer than 32 bytes of the last block, rounded up to a
 * word, are left), and one protect per read.
 */
static void t_nodecrng_mixback(void)
{
	static const struct { size_t len; int blocks, extra; } c[] = {
		{ 1, 1, 0 }, { 16, 1, 0 }, { 32, 1, 0 }, { 33, 1, 1 }, { 40, 1, 1 }, { 64, 1, 1 },
		{ 65, 2, 0 }, { 128, 2, 1 }, { 200, 4, 0 }, { 300, 5, 1 },
	};
	unsigned char b[300];
	long long b0, p0, e0;
	size_t i;
	int fd = open_dev();

	pin_cpu(0);
	read_full(fd, b, 16); /* the first read reseeds a stale node from the primary */
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		b0 = stat_get("node0_blocks");
		p0 = stat_get("node0_protects");
		e0 = stat_get("node0_protect_blocks");
		read_full(fd, b, c[i].len);
		CHECK(stat_get("node0_protects") == p0 + 1, "read(%zu): %lld key mixbacks, want 1",
		      c[i].len, stat_get("node0_protects") - p0);
		CHECK(stat_get("node0_protect_blocks") == e0 + c[i].extra,
		      "read(%zu): %lld extra blocks for the mixback, want %d", c[i].len,
		      stat_get("node0_protect_blocks") - e0, c[i].extra);
		CHECK(stat_get("node0_blocks") == b0 + c[i].blocks + c[i].extra,
		      "read(%zu): %lld blocks, want %d", c[i].len, stat_get("node0_blocks") - b0,
		      c[i].blocks + c[i].extra);
	}
	close(fd);
}

/* ---- taskcrng: the limiter and its modes -------------------------------------- */
static long long param_get(const char *name)
{
	char path[128], buf[32];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), PARAMS "%s", name);
	fd = open(path, O_RDONLY);
	CHECK(fd >= 0, "open %s: %s", path, strerror(errno));
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	CHECK(n > 0, "read %s", path);
	buf[n] = 0;
	if (buf[0] == 'Y')
		return 1;
	if (buf[0] == 'N')
		return 0;
	return atoll(buf);
}

/* The limiter's defaults are the documented ones (docs/kernel-module.md). */
static void t_tc_defaults(void)
{
	CHECK(param_get("rate_reads") == 10, "rate_reads %lld, want 10", param_get("rate_reads"));
	CHECK(param_get("rate_window_ms") == 1000, "rate_window_ms %lld, want 1000",
	      param_get("rate_window_ms"));
	CHECK(param_get("budget_bytes") == 32, "budget_bytes %lld, want 32",
	      param_get("budget_bytes"));
	CHECK(param_get("budget_window_s") == 60, "budget_window_s %lld, want 60",
	      param_get("budget_window_s"));
	CHECK(param_get("every_reader") == 0, "every_reader on by default");
	CHECK(param_get("rekey_per_read") == 0, "rekey_per_read on by default");
	CHECK(stat_get("max_tasks_per_uid") == 256, "max_tasks_per_uid %lld, want 256 (max_tasks / 4)",
	      stat_get("max_tasks_per_uid"));
	CHECK(stat_get("buckets") == 1024, "buckets %lld, want 1024 for max_tasks 1024",
	      stat_get("buckets"));
}

/* Default rekey_per_read=0: reads on the CRNG replace no key between reads. */
static void t_tc_norekey(void)
{
	long long rk = stat_get("crng_rekeys");
	unsigned char b[64];
	int i, fd = open_dev();

	read_full(fd, b, 64); /* over the budget: on its CRNG */
	CHECK(self_get("crng") == 1, "not switched");
	for (i = 0; i < 5; i++)
		read_full(fd, b, 64);
	CHECK(stat_get("crng_rekeys") == rk, "crng_rekeys moved by %lld with rekey_per_read=0",
	      stat_get("crng_rekeys") - rk);
	close(fd);
}

/*
 * taskcrng-rate (budget_bytes large, so only the rate can switch): a burst
 * of 1-byte reads.  Never switched before read rate_reads + 1; switched by
 * the rate by the end of the burst; and when the first 11 reads took under
 * one rate window by the test's clock, exactly at read 11.
 */
static void t_tc_rate(void)
{
	long long by_rate = stat_get("switch_rate");
	unsigned char b[1];
	double t0 = 0, t11 = 0;
	int i, at = 0, fd = open_dev();

	for (i = 1; i <= 200 && !at; i++) {
		if (i == 1)
			t0 = now_s();
		read_full(fd, b, 1);
		if (i == 11)
			t11 = now_s();
		if (self_get("crng") == 1)
			at = i;
	}
	CHECK(at, "not switched after 200 reads");
	CHECK(at >= 11, "switched at read %d, before the 11th (rate_reads=10)", at);
	CHECK(stat_get("switch_rate") == by_rate + 1, "the switch was not counted as the rate's");
	CHECK(at == 11 || t11 - t0 >= 0.99,
	      "11 reads within %.2f s did not switch at read 11 (switched at %d)", t11 - t0, at);
	close(fd);
}

/* taskcrng-modes: every_reader=1 puts a reader on its CRNG at its first read. */
static void t_tc_every_reader(void)
{
	long long every = stat_get("switch_every_reader"), pool = stat_get("pool_reads");
	unsigned char b[1];
	int fd = open_dev();

	CHECK(param_get("every_reader") == 1, "every_reader is not set in this configuration");
	read_full(fd, b, 1);
	CHECK(self_get("crng") == 1, "a 1-byte first read did not put the reader on its CRNG");
	CHECK(stat_get("switch_every_reader") == every + 1, "switch_every_reader did not move");
	CHECK(stat_get("pool_reads") == pool, "a read was served by the pool");
	close(fd);
}

/* taskcrng-modes: rekey_per_read=1 replaces the CRNG key after every read. */
static void t_tc_rekey(void)
{
	long long rk = stat_get("crng_rekeys");
	unsigned char b[64];
	int i, fd = open_dev();

	for (i = 0; i < 5; i++)
		read_full(fd, b, 64);
	CHECK(stat_get("crng_rekeys") - rk == 5, "5 reads made %lld key replacements, want 5",
	      stat_get("crng_rekeys") - rk);
	close(fd);
}

/* taskcrng-modes (max_tasks=64, max_tasks_per_uid=8): one uid cannot fill the table. */
#define UID_KIDS 12
static void t_tc_per_uid(void)
{
	long long full0 = stat_get("uid_full"), ent0;
	pid_t kids[UID_KIDS];
	unsigned char b[16];
	int go, fd;

	CHECK(stat_get("max_tasks_per_uid") == 8, "max_tasks_per_uid %lld, want 8",
	      stat_get("max_tasks_per_uid"));
	/* The earlier tests' processes are gone: their entries go within collect_ms=100. */
	ent0 = entries_after_collect();
	CHECK(ent0 == 0, "%lld entries of gone processes left after 5 s", ent0);
	go = hold_readers(kids, UID_KIDS, 1, 16);
	CHECK(stat_get("entries") - ent0 == 8, "uid 1000's %d readers hold %lld entries, want 8",
	      UID_KIDS, stat_get("entries") - ent0);
	CHECK(stat_get("uid_full") - full0 >= UID_KIDS - 8, "uid_full moved by %lld, want >= %d",
	      stat_get("uid_full") - full0, UID_KIDS - 8);
	/* Another user still gets an entry. */
	fd = open_dev();
	read_full(fd, b, 16);
	CHECK(self_get("tracked") == 1, "root was refused an entry while uid 1000 is at its cap");
	close(fd);
	release_readers(kids, UID_KIDS, go);
}

/*
 * taskcrng-big (max_tasks=65536, collect_ms=100, test_hooks=1): 65,536
 * entries of gone processes; the hash has 65,536 buckets, the longest chain
 * stays at 16 or less (the collector may already be freeing them), every
 * lock hold of the collector examines one bucket (16 entries at most), and
 * the collector frees them all.
 */
static void t_tc_scale(void)
{
	long long chain, hold, coll0 = stat_get("entries_collected"), fill;
	char num[24];
	int fd, i, n;
	double t0;

	CHECK(stat_get("buckets") == 65536, "buckets %lld, want 65536", stat_get("buckets"));
	/* The table to the brim: what this guest's own readers left in it
	 * (the collector may not have freed it yet) counts against max_tasks. */
	fill = 65536 - stat_get("entries");
	CHECK(fill >= 65000, "%lld entries before the fill", 65536 - fill);
	n = snprintf(num, sizeof(num), "%lld", fill);
	fd = open("/sys/kernel/debug/surand/test_fill", O_WRONLY);
	CHECK(fd >= 0, "open test_fill: %s", strerror(errno));
	t0 = now_s();
	CHECK(write(fd, num, (size_t)n) == n, "test_fill %lld: %s", fill, strerror(errno));
	close(fd);
	chain = stat_get("max_chain");
	out("# taskcrng-big: %lld entries inserted in %.1f s, longest chain %lld", fill, now_s() - t0,
	    chain);
	CHECK(stat_get("entries") + stat_get("entries_collected") - coll0 >= fill,
	      "entries %lld + collected %lld after inserting %lld", stat_get("entries"),
	      stat_get("entries_collected") - coll0, fill);
	CHECK(chain <= 16, "longest chain %lld with 65536 entries in 65536 buckets", chain);
	for (i = 0; i < 600 && stat_get("entries_collected") - coll0 < fill; i++)
		msleep(50);
	CHECK(stat_get("entries_collected") - coll0 >= fill, "%lld of %lld entries collected",
	      stat_get("entries_collected") - coll0, fill);
	hold = stat_get("collect_max_hold");
	out("# taskcrng-big: collector pass %lld us at most, at most %lld entries per lock hold",
	    stat_get("collect_max_us"), hold);
	/* The collector never holds the lock for more than one short chain. */
	CHECK(hold >= 1 && hold <= 16, "a lock hold examined %lld entries (bound 16)", hold);
}

/* ---- load/unload cycles while readers open, read and close --------------- */
static const char *g_params;
#define LC_READERS 3
#define LC_CYCLES 6
static void t_loadcycle(void)
{
	int *shm = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int i, r, status;
	char why[256];
	pid_t kids[LC_READERS];

	CHECK(shm != MAP_FAILED, "mmap");
	shm[0] = 0; /* stop flag */
	for (i = 0; i < LC_READERS; i++) {
		kids[i] = fork();
		CHECK(kids[i] >= 0, "fork");
		if (kids[i] == 0) {
			unsigned char b[4096];
			long good = 0;

			while (!__atomic_load_n(&shm[0], __ATOMIC_RELAXED)) {
				int fd = open(DEV, O_RDONLY);

				if (fd < 0) {
					/* Between unload and load: no node or no driver. */
					if (errno != ENOENT && errno != ENODEV && errno != ENXIO)
						_exit(2);
					continue;
				}
				if (read(fd, b, sizeof(b)) != sizeof(b))
					_exit(3);
				close(fd);
				good++;
				/* A gap now and then, or rmmod would never find the module idle. */
				msleep(good % 4 ? 1 : 10);
			}
			__atomic_add_fetch(&shm[1 + i], (int)(good > 0 ? good : 0), __ATOMIC_RELAXED);
			_exit(good > 0 ? 0 : 4);
		}
	}
	for (i = 0; i < LC_CYCLES; i++) {
		msleep(100);
		r = unload_module(20);
		CHECK(r == 0, "cycle %d: unload: %s", i, strerror(-r));
		CHECK(check_unload_line(why, sizeof(why)) == 0, "cycle %d: %s", i, why);
		msleep(30);
		r = load_module(g_params);
		CHECK(r == 0, "cycle %d: load %s: %s", i, g_params, strerror(-r));
	}
	msleep(100);
	__atomic_store_n(&shm[0], 1, __ATOMIC_RELAXED);
	for (i = 0; i < LC_READERS; i++) {
		CHECK(waitpid(kids[i], &status, 0) == kids[i], "waitpid");
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "reader %d failed (code %d: 2 open error, 3 short read, 4 never read)", i,
		      WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	}
}

/* ---- bad parameters ------------------------------------------------------- */
static void t_bad_params(void)
{
	static const char *const bad[] = { "design=bogus", "design=", "design=multipool nodes=-1",
					   "design=taskcrng max_tasks=0",
					   "design=taskcrng collect_ms=1",
					   "design=multipool nodes=65",
					   "design=taskcrng max_tasks=16 max_tasks_per_uid=17",
					   "design=taskcrng rate_reads=0", "design=taskcrng budget_bytes=0",
					   "design=taskcrng rate_window_ms=0",
					   "design=taskcrng budget_window_s=0" };
	char *log, *p;
	size_t i;
	int r;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		r = load_module(bad[i]);
		if (r == 0)
			unload_module(5);
		CHECK(r == -EINVAL, "load with \"%s\" gave %s, want EINVAL", bad[i],
		      r ? strerror(-r) : "success");
	}
	log = klog();
	CHECK(log, "klog");
	p = strstr(log, "surand: unknown design=bogus: valid designs are legacy, multipool, "
			"salted, taskcrng, nodecrng, percpu");
	CHECK(p, "no one-line printk naming the valid designs");
	free(log);
}

/* ---- the kernel log -------------------------------------------------------- */
static void t_dmesg(void)
{
	static const char *const bad[] = {
		"WARNING:", "BUG:", "sleeping function called", "Oops", "Call Trace",
		"general protection", "surand: LEAK", "list_del corruption", "refcount_t:",
		"INFO: task",                 /* hung task */
		"detected stalls", "rcu_sched self-detected", /* RCU stalls */
		"soft lockup", "hard LOCKUP",
		"possible circular locking", "possible recursive locking",
		"inconsistent lock state", "lockdep", /* lockdep (CONFIG_PROVE_LOCKING) */
		"KCSAN", "data-race",          /* KCSAN */
	};
	char *log = klog(), *p, line[200];
	size_t i;

	CHECK(log, "klog");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		p = strstr(log, bad[i]);
		if (p) {
			char *s = p;

			while (s > log && s[-1] != '\n')
				s--;
			snprintf(line, sizeof(line), "%.*s", (int)strcspn(s, "\n"), s);
			FAIL("kernel log: %s", line);
		}
	}
	free(log);
}

/* ---- the benchmark ----------------------------------------------------------- */
enum { SRC_SURANDOM, SRC_URANDOM, SRC_GETRANDOM };
static const char *const src_names[] = { "surandom", "urandom", "getrandom" };
#define BENCH_BYTES 64
#define BENCH_SECONDS 0.5
struct bench_arg {
	int src, fd;
	volatile int *stop;
	long long bytes;
};

static void *bench_thread(void *p)
{
	struct bench_arg *a = p;
	unsigned char b[BENCH_BYTES];

	while (!*a->stop) {
		ssize_t r = a->src == SRC_GETRANDOM ? getrandom(b, sizeof(b), 0)
						    : read(a->fd, b, sizeof(b));
		if (r != sizeof(b))
			break;
		a->bytes += r;
	}
	return NULL;
}

static void bench_one(int src, const char *design, int nthreads)
{
	struct bench_arg args[8];
	pthread_t th[8];
	volatile int stop = 0;
	long long total = 0;
	double t0, t1;
	int i, fd = -1;

	if (src != SRC_GETRANDOM) {
		fd = open(src == SRC_SURANDOM ? DEV : "/dev/urandom", O_RDONLY);
		CHECK(fd >= 0, "open");
	}
	t0 = now_s();
	for (i = 0; i < nthreads; i++) {
		args[i].src = src;
		args[i].fd = fd;
		args[i].stop = &stop;
		args[i].bytes = 0;
		CHECK(pthread_create(&th[i], NULL, bench_thread, &args[i]) == 0, "pthread_create");
	}
	msleep((long)(BENCH_SECONDS * 1000));
	stop = 1;
	for (i = 0; i < nthreads; i++) {
		pthread_join(th[i], NULL);
		total += args[i].bytes;
	}
	t1 = now_s();
	if (fd >= 0)
		close(fd);
	out("BENCH %s %s threads=%d bytes=%d mbps=%.3f", src_names[src], design, nthreads,
	    BENCH_BYTES, total / (t1 - t0) / 1e6);
}

/*
 * The mixed workload (Ts'o: "one /dev/urandom abuser can minopolize the
 * locck and cause problems for a shell script"): one careful reader, a
 * 16-byte read every 10 ms (100 reads, its latency recorded), beside 0, 1,
 * 2 and 4 x nproc abuser processes reading 4 KiB in a loop.
 */
#define MIXED_SAMPLES 100
static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void mixed_one(const char *path, const char *name, int nab)
{
	double lat[MIXED_SAMPLES], t;
	struct timespec next;
	pid_t kids[64];
	unsigned char b[16];
	int i, fd;

	for (i = 0; i < nab; i++) {
		kids[i] = fork();
		CHECK(kids[i] >= 0, "fork");
		if (kids[i] == 0) {
			static unsigned char big[4096];
			int afd = open(path, O_RDONLY);

			if (afd < 0)
				_exit(2);
			for (;;)
				if (read(afd, big, sizeof(big)) != sizeof(big))
					_exit(3);
		}
	}
	msleep(50);
	fd = open(path, O_RDONLY);
	CHECK(fd >= 0, "open %s", path);
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (i = 0; i < MIXED_SAMPLES; i++) {
		t = now_s();
		read_full(fd, b, sizeof(b));
		lat[i] = (now_s() - t) * 1e6;
		next.tv_nsec += 10000000L;
		if (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
			;
	}
	close(fd);
	for (i = 0; i < nab; i++)
		kill(kids[i], SIGKILL);
	for (i = 0; i < nab; i++)
		waitpid(kids[i], NULL, 0);
	qsort(lat, MIXED_SAMPLES, sizeof(lat[0]), cmp_double);
	out("MIXED %s abusers=%d samples=%d p50_us=%.0f p99_us=%.0f max_us=%.0f", name, nab,
	    MIXED_SAMPLES, lat[MIXED_SAMPLES / 2], lat[MIXED_SAMPLES * 99 / 100 - 1],
	    lat[MIXED_SAMPLES - 1]);
}

static void bench_mixed(const char *path, const char *name)
{
	int n = (int)sysconf(_SC_NPROCESSORS_ONLN), counts[4] = { 0, 1, 2, 0 }, i;

	counts[3] = 4 * (n > 0 && n <= 16 ? n : 4);
	for (i = 0; i < 4; i++)
		mixed_one(path, name, counts[i]);
}

static const int bench_threads[] = { 1, 2, 4 };
static const char *g_bench_design;
static void t_bench_surandom(void)
{
	size_t i;

	for (i = 0; i < 3; i++)
		bench_one(SRC_SURANDOM, g_bench_design, bench_threads[i]);
	bench_mixed(DEV, g_bench_design);
	/* salted: readers wait for the pool lock only when the mixback buffer is full. */
	if (!strcmp(g_bench_design, "salted"))
		out("BENCHLOCK salted extractions=%lld trylock_mixbacks=%lld appended=%lld lock_waits=%lld",
		    stat_get("extractions"), stat_get("mixback_trylock"),
		    stat_get("mixback_appended"), stat_get("lock_waits"));
}

static void t_bench_system(void)
{
	size_t i;

	for (i = 0; i < 3; i++) {
		bench_one(SRC_URANDOM, "-", bench_threads[i]);
		bench_one(SRC_GETRANDOM, "-", bench_threads[i]);
	}
	bench_mixed("/dev/urandom", "urandom");
}

/* ---- the run ----------------------------------------------------------------- */
struct tcase {
	const char *name;
	void (*fn)(void);
	int deadline_s;
};

#define END_CASES { NULL, NULL, 0 }
static const struct tcase common_cases[] = {
	{ "device", t_device, 20 },     { "pool_kat", t_pool_kat, 10 },
	{ "reads", t_reads, 60 },       { "distinct_procs", t_distinct_procs, 60 },
	{ "fork", t_fork, 20 },         { "threads", t_threads, 150 },
	{ "signal", t_signal, 30 },     { "efault", t_efault, 20 },
	{ "write_poll", t_write_poll, 30 }, { "splice", t_splice, 30 },
	{ "sendfile", t_sendfile, 30 }, { "unload_open", t_unload_open, 20 },
	END_CASES,
};
static const struct tcase legacy_cases[] = { { "extract", t_legacy_extract, 20 }, END_CASES };
static const struct tcase multipool_cases[] = { { "nodes", t_multipool_nodes, 20 }, END_CASES };
static const struct tcase multipool3_cases[] = { { "simulated", t_multipool_sim3, 20 },
						  END_CASES };
static const struct tcase salted_cases[] = {
	{ "extract", t_salted_extract, 20 }, { "lockless", t_salted_lockless, 30 }, END_CASES,
};
static const struct tcase taskcrng_cases[] = {
	{ "defaults", t_tc_defaults, 20 }, { "careful", t_tc_careful, 20 },
	{ "bytes", t_tc_bytes, 20 },       { "norekey", t_tc_norekey, 20 },
	{ "pid_reuse", t_tc_pid_reuse, 30 }, { "exec", t_tc_exec, 20 }, END_CASES,
};
static const struct tcase taskcrng_rate_cases[] = { { "rate", t_tc_rate, 60 }, END_CASES };
static const struct tcase taskcrng_small_cases[] = {
	{ "table_cap", t_tc_table_cap, 60 }, { "reseed", t_tc_reseed, 30 }, END_CASES,
};
static const struct tcase taskcrng_modes_cases[] = {
	{ "every_reader", t_tc_every_reader, 20 }, { "rekey", t_tc_rekey, 20 },
	{ "per_uid", t_tc_per_uid, 30 }, END_CASES,
};
static const struct tcase taskcrng_big_cases[] = { { "scale", t_tc_scale, 90 }, END_CASES };
static const struct tcase nodecrng_cases[] = {
	{ "nodes", t_nodecrng_nodes, 20 }, { "mixback", t_nodecrng_mixback, 20 }, END_CASES,
};
static const struct tcase percpu_cases[] = { { "cpus", t_percpu_cpus, 20 }, END_CASES };

struct config {
	const char *name, *params;
	const struct tcase *common, *own;
	int loadcycle;
};

static const struct config configs[] = {
	{ "legacy", "design=legacy", common_cases, legacy_cases, 1 },
	{ "multipool", "design=multipool", common_cases, multipool_cases, 1 },
	{ "multipool-nodes3", "design=multipool nodes=3", NULL, multipool3_cases, 0 },
	{ "salted", "design=salted test_hooks=1", common_cases, salted_cases, 1 },
	{ "taskcrng", "design=taskcrng", common_cases, taskcrng_cases, 1 },
	{ "taskcrng-rate", "design=taskcrng budget_bytes=1000000", NULL, taskcrng_rate_cases, 0 },
	{ "taskcrng-small",
	  "design=taskcrng max_tasks=16 max_tasks_per_uid=16 collect_ms=100 reseed_blocks=64", NULL,
	  taskcrng_small_cases, 0 },
	{ "taskcrng-modes",
	  "design=taskcrng every_reader=1 rekey_per_read=1 max_tasks=64 max_tasks_per_uid=8 collect_ms=100",
	  NULL,
	  taskcrng_modes_cases, 0 },
	{ "taskcrng-big", "design=taskcrng max_tasks=65536 collect_ms=100 test_hooks=1", NULL,
	  taskcrng_big_cases, 0 },
	{ "nodecrng", "design=nodecrng", common_cases, nodecrng_cases, 1 },
	{ "percpu", "design=percpu", common_cases, percpu_cases, 1 },
};

static int count_cases(const struct tcase *c)
{
	int n = 0;

	for (; c && c->name; c++)
		n++;
	return n;
}

/* The results run_config will print when every load and unload works. */
static int config_plan(const struct config *cf, const char *only)
{
	int n = 2; /* load, alloc_balance */

	if (!only || !strcmp(only, "tests"))
		n += count_cases(cf->common) + count_cases(cf->own) + cf->loadcycle;
	if ((!only || !strcmp(only, "bench")) && cf->common)
		n++;
	return n;
}

static void run_cases(const struct tcase *c)
{
	for (; c && c->name; c++)
		run_case(c->name, c->fn, c->deadline_s);
}

static void run_config(const struct config *cf, const char *only)
{
	char why[256];
	int r;

	g_config = cf->name;
	g_params = cf->params;
	r = load_module(cf->params);
	if (r) {
		g_results++;
		out("FAIL kernel/%s/load: finit_module(\"%s\"): %s", cf->name, cf->params,
		    strerror(-r));
		return;
	}
	g_results++;
	out("PASS kernel/%s/load", cf->name);
	record_first(cf->name);
	if (!only || !strcmp(only, "tests")) {
		run_cases(cf->common);
		run_cases(cf->own);
		if (cf->loadcycle)
			run_case("loadcycle", t_loadcycle, 90);
	}
	if (!only || !strcmp(only, "bench")) {
		if (cf->common) { /* the main configurations */
			g_bench_design = cf->name;
			run_case("bench", t_bench_surandom, 60);
		}
	}
	g_case = "unload";
	r = unload_module(20);
	g_results++;
	if (r) {
		out("FAIL kernel/%s/unload: %s", cf->name, strerror(-r));
		return;
	}
	if (check_unload_line(why, sizeof(why)))
		out("FAIL kernel/%s/alloc_balance: %s", cf->name, why);
	else
		out("PASS kernel/%s/alloc_balance", cf->name);
}

int main(int argc, char **argv)
{
	const char *only = NULL;
	size_t i;
	int plan = 0;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc >= 3 && !strcmp(argv[1], "exec-child"))
		return exec_child(argv[2]);
	if (argc < 2 || strcmp(argv[1], "all")) {
		fprintf(stderr, "usage: ktest all [reads-per-thread [tests|bench]]\n");
		return 2;
	}
	if (argc >= 3)
		g_thread_reads = atol(argv[2]);
	if (g_thread_reads < 1)
		g_thread_reads = 1;
	if (argc >= 4)
		only = argv[3];
	if (readlink("/proc/self/exe", g_self_exe, sizeof(g_self_exe) - 1) < 0)
		strcpy(g_self_exe, "/bin/ktest");
	out("KTEST threads_test=16x%ldx16B", g_thread_reads);
	for (i = 0; i < sizeof(configs) / sizeof(configs[0]); i++)
		plan += config_plan(&configs[i], only);
	plan += 1 + (!only || !strcmp(only, "tests")) * 2 + (!only || !strcmp(only, "bench"));
	out("KTEST-PLAN %d", plan);
	for (i = 0; i < sizeof(configs) / sizeof(configs[0]); i++)
		run_config(&configs[i], only);
	g_config = "module";
	if (!only || !strcmp(only, "tests"))
		run_case("bad_params", t_bad_params, 30);
	g_config = "system";
	if (!only || !strcmp(only, "bench"))
		run_case("bench", t_bench_system, 60);
	g_config = "kernel";
	if (!only || !strcmp(only, "tests"))
		run_case("seeding", t_seeding, 20);
	run_case("dmesg", t_dmesg, 20);
	out("KTEST-DONE %d", g_results);
	return 0;
}
