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
 * Every test runs in its own process with a deadline (SIGKILL when over).
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
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DEV "/dev/surandom"
#define MODULE_PATH "/surand.ko"
#define STATS "/sys/kernel/debug/surand/stats"
#define SELF "/sys/kernel/debug/surand/self"
#define MIB (1024 * 1024)

static const char *g_config = "-"; /* the module configuration under test */
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

/* multipool on 2 guest nodes (CPUs 0-1: node 0, 2-3: node 1): a pool per node. */
static void expect_pool(int cpu, int want_pool, int npools)
{
	char key[32];
	long long before[8], after;
	unsigned char b[100];
	int i, fd = open_dev();

	pin_cpu(cpu);
	for (i = 0; i < npools; i++) {
		snprintf(key, sizeof(key), "pool%d_extracts", i);
		before[i] = stat_get(key);
	}
	read_full(fd, b, 100);
	for (i = 0; i < npools; i++) {
		snprintf(key, sizeof(key), "pool%d_extracts", i);
		after = stat_get(key);
		CHECK(after - before[i] == (i == want_pool ? 10 : 0),
		      "CPU %d: pool %d extracted %lld times (want %d)", cpu, i, after - before[i],
		      i == want_pool ? 10 : 0);
	}
	close(fd);
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

/* taskcrng: more than 10 reads a second switches (reads of 1 byte: 12 bytes in all). */
static void t_tc_rate(void)
{
	unsigned char b[1];
	int i, fd = open_dev();

	for (i = 0; i < 10; i++)
		read_full(fd, b, 1);
	CHECK(self_get("crng") == 0, "switched after 10 reads (the limit is >10/s)");
	read_full(fd, b, 1);
	CHECK(self_get("crng") == 1, "not switched after 11 reads within a second");
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

/* taskcrng (max_tasks=16, collect_ms=100): the cap holds under a fork loop. */
#define CAP_CHILDREN 48
static void t_tc_table_cap(void)
{
	long long cap = stat_get("max_tasks"), full0 = stat_get("table_full"), ent;
	int ready[2], go[2], i, status;
	pid_t kids[CAP_CHILDREN];
	char c;

	CHECK(cap == 16, "max_tasks = %lld, this test wants 16", cap);
	CHECK(pipe(ready) == 0 && pipe(go) == 0, "pipe");
	for (i = 0; i < CAP_CHILDREN; i++) {
		kids[i] = fork();
		CHECK(kids[i] >= 0, "fork");
		if (kids[i] == 0) {
			unsigned char b[64];
			int fd = open(DEV, O_RDONLY);

			close(go[1]);
			if (fd < 0 || read(fd, b, 64) != 64 || all_zero(b, 64))
				_exit(2);
			if (write(ready[1], "r", 1) != 1)
				_exit(3);
			/* Stay alive (uncollectable) until the parent has looked. */
			if (read(go[0], &c, 1) < 0)
				_exit(4);
			_exit(0);
		}
	}
	close(go[0]);
	for (i = 0; i < CAP_CHILDREN; i++)
		CHECK(read(ready[0], &c, 1) == 1, "child %d did not report", i);
	ent = stat_get("entries");
	CHECK(ent <= cap, "entries = %lld over max_tasks = %lld", ent, cap);
	CHECK(ent == cap, "entries = %lld, want the table full (%lld)", ent, cap);
	CHECK(stat_get("table_full") - full0 >= CAP_CHILDREN - cap,
	      "table_full moved by %lld, want >= %lld", stat_get("table_full") - full0,
	      CAP_CHILDREN - cap);
	close(go[1]); /* release them */
	for (i = 0; i < CAP_CHILDREN; i++) {
		CHECK(waitpid(kids[i], &status, 0) == kids[i], "waitpid");
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child failed (%d)",
		      WEXITSTATUS(status));
	}
	/* The collector (every 100 ms) frees the entries of the gone processes. */
	for (i = 0; i < 100 && stat_get("entries") > 0; i++)
		msleep(50);
	CHECK(stat_get("entries") == 0, "%lld entries left 5 s after their processes exited",
	      stat_get("entries"));
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
					   "design=multipool nodes=65" };
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
			"taskcrng, percpu");
	CHECK(p, "no one-line printk naming the valid designs");
	free(log);
}

/* ---- the kernel log -------------------------------------------------------- */
static void t_dmesg(void)
{
	static const char *const bad[] = { "WARNING:", "BUG:", "sleeping function called",
					   "Oops", "Call Trace", "general protection",
					   "surand: LEAK", "list_del corruption", "refcount_t:" };
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

static const int bench_threads[] = { 1, 2, 4 };
static const char *g_bench_design;
static void t_bench_surandom(void)
{
	size_t i;

	for (i = 0; i < 3; i++)
		bench_one(SRC_SURANDOM, g_bench_design, bench_threads[i]);
}

static void t_bench_system(void)
{
	size_t i;

	for (i = 0; i < 3; i++) {
		bench_one(SRC_URANDOM, "-", bench_threads[i]);
		bench_one(SRC_GETRANDOM, "-", bench_threads[i]);
	}
}

/* ---- the run ----------------------------------------------------------------- */
struct tcase {
	const char *name;
	void (*fn)(void);
	int deadline_s;
};

static const struct tcase common_cases[] = {
	{ "device", t_device, 20 },
	{ "reads", t_reads, 60 },
	{ "distinct_procs", t_distinct_procs, 60 },
	{ "fork", t_fork, 20 },
	{ "threads", t_threads, 150 },
	{ "signal", t_signal, 30 },
	{ "efault", t_efault, 20 },
	{ "write_poll", t_write_poll, 30 },
	{ NULL, NULL, 0 },
};
static const struct tcase legacy_cases[] = { { "extract", t_legacy_extract, 20 }, { NULL, NULL, 0 } };
static const struct tcase multipool_cases[] = { { "nodes", t_multipool_nodes, 20 },
						 { NULL, NULL, 0 } };
static const struct tcase multipool3_cases[] = { { "simulated", t_multipool_sim3, 20 },
						  { NULL, NULL, 0 } };
static const struct tcase taskcrng_cases[] = {
	{ "careful", t_tc_careful, 20 }, { "rate", t_tc_rate, 20 },
	{ "bytes", t_tc_bytes, 20 },     { "pid_reuse", t_tc_pid_reuse, 30 },
	{ "exec", t_tc_exec, 20 },       { NULL, NULL, 0 },
};
static const struct tcase taskcrng_small_cases[] = {
	{ "table_cap", t_tc_table_cap, 60 }, { "reseed", t_tc_reseed, 30 }, { NULL, NULL, 0 },
};
static const struct tcase percpu_cases[] = { { "cpus", t_percpu_cpus, 20 }, { NULL, NULL, 0 } };

struct config {
	const char *name, *params;
	const struct tcase *common, *own;
	int loadcycle;
};

static const struct config configs[] = {
	{ "legacy", "design=legacy", common_cases, legacy_cases, 1 },
	{ "multipool", "design=multipool", common_cases, multipool_cases, 1 },
	{ "multipool-nodes3", "design=multipool nodes=3", NULL, multipool3_cases, 0 },
	{ "taskcrng", "design=taskcrng", common_cases, taskcrng_cases, 1 },
	{ "taskcrng-small", "design=taskcrng max_tasks=16 collect_ms=100 reseed_blocks=64", NULL,
	  taskcrng_small_cases, 0 },
	{ "percpu", "design=percpu", common_cases, percpu_cases, 1 },
};

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
		out("FAIL kernel/%s/load: finit_module(\"%s\"): %s", cf->name, cf->params,
		    strerror(-r));
		return;
	}
	out("PASS kernel/%s/load", cf->name);
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
		run_config(&configs[i], only);
	g_config = "module";
	if (!only || !strcmp(only, "tests"))
		run_case("bad_params", t_bad_params, 30);
	g_config = "system";
	if (!only || !strcmp(only, "bench"))
		run_case("bench", t_bench_system, 60);
	g_config = "kernel";
	run_case("dmesg", t_dmesg, 20);
	return 0;
}
