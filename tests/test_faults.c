/*
 * test_faults.c - every backend when the kernel or the process refuses what
 * the library needs.  Each case runs in a fresh process per backend.
 *
 *   seccomp ENOSYS / EPERM   a REAL seccomp filter (no_new_privs + BPF) makes
 *                            getrandom(2) fail: the library reads /dev/urandom
 *                            (after poll() on /dev/random) and works.
 *   kernel refused           the filter, and /dev/urandom and /dev/random
 *                            unreadable (a private mount namespace binds a mode
 *                            000 file over both and the capabilities are
 *                            dropped; where no namespace can be had, the test
 *                            hook SURAND_TEST_KF_ALL_DENIED): surand_getrandom
 *                            and surand_getentropy return -1 with errno,
 *                            surand_reseed -1, and surand_bytes and every
 *                            integer call abort with exactly one line on stderr,
 *                            never returning (so never zeros).
 *   refused after seeding    seeded first, then refused: surand_reseed fails,
 *                            a fork child (whose state is wiped) fails closed
 *                            instead of continuing the parent's stream.
 *   secret memory refused    every surand_secmem_alloc fails (test hook), and
 *                            the slab's growth fails once under 80 threads:
 *                            calls succeed from the kernel or fail with ENOMEM.
 *   address space full       RLIMIT_AS at the current size (plain builds).
 *   descriptors exhausted    RLIMIT_NOFILE 3: with getrandom available
 *                            nothing changes; with it refused the fallback fails
 *                            with EMFILE (surand_bytes aborts) and works again
 *                            once a descriptor is free.
 *   pages dropped            MADV_PAGEOUT on every MAP_DROPPABLE mapping (the
 *                            reclaim path drops such pages instead of swapping
 *                            them): after each drop and while a thread drops
 *                            them in a loop, output is full, not zero, never
 *                            repeated, and passes the FIPS tests.
 *   first call in a handler  a thread's first call made by a signal handler
 *                            that interrupted malloc() while the slab must grow.
 *   fallbacks that fail safe a section of their own (see there): a file or
 *                            another device over /dev/urandom, getrandom EACCES,
 *                            the getrandom(2) semantics before readiness, the
 *                            preload in a sandbox.
 * Each prints a RELIABILITY line (tests/reliability.h).
 * SPDX-License-Identifier: MIT
 */
#include <linux/capability.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "entropy/entropy.h"
#include "gen/backend.h"
#include "reliability.h"
#include "stress/fips.h"
#include "test_hooks.h"

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

static struct surand_stats stats_now(void)
{
	struct surand_stats st;

	surand_stats(&st, sizeof(st));
	return st;
}

static int all_words_nonzero(const uint8_t *p, size_t n)
{
	return !rel_has_zero_word(p, n - n % 8);
}

/* ---- probes: a call that must abort -------------------------------------------- */

struct probe_result {
	int status;       /* wait status of the probe */
	int lines;        /* lines it wrote on stderr */
	int prefixed;     /* every line starts "surand: " */
	ssize_t returned; /* bytes it sent back after the call returned (must be 0) */
	char err[512];
};

/*
 * Runs fn in a forked child with stderr captured and no core dump; prep (if
 * any) runs in the child first.  fn must not return: if it does, the child
 * sends the 16 bytes the call produced back, and the probe counts them.
 */
static void probe(void (*prep)(void), void (*fn)(uint8_t *buf), struct probe_result *r)
{
	int ep[2], dp[2];
	ssize_t n;
	size_t got = 0;
	pid_t pid;
	uint8_t back[64];

	memset(r, 0, sizeof(*r));
	if (pipe(ep) != 0 || pipe(dp) != 0) {
		r->status = -1;
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct rlimit no = {0, 0};
		uint8_t buf[4096];

		setrlimit(RLIMIT_CORE, &no);
		dup2(ep[1], 2);
		close(ep[0]);
		close(dp[0]);
		if (prep)
			prep();
		memset(buf, 0, sizeof(buf));
		fn(buf);
		_exit(write(dp[1], buf, 16) == 16 ? 0 : 2);
	}
	close(ep[1]);
	close(dp[1]);
	while (got + 1 < sizeof(r->err) && (n = read(ep[0], r->err + got, sizeof(r->err) - 1 - got)) > 0)
		got += (size_t)n;
	r->err[got] = 0;
	while ((n = read(dp[0], back, sizeof(back))) > 0)
		r->returned += n;
	close(ep[0]);
	close(dp[0]);
	waitpid(pid, &r->status, 0);
	r->prefixed = 1;
	for (char *line = r->err; *line; r->lines++) {
		char *nl = strchr(line, '\n');
		if (strncmp(line, "surand: ", 8) != 0)
			r->prefixed = 0;
		if (!nl)
			break;
		line = nl + 1;
	}
}

static int probe_aborted(const struct probe_result *r)
{
	return r->status != -1 && WIFSIGNALED(r->status) && WTERMSIG(r->status) == SIGABRT &&
	       r->lines == 1 && r->prefixed && r->returned == 0;
}

static void p_bytes16(uint8_t *b)
{
	surand_bytes(b, 16);
}
static void p_bytes4k(uint8_t *b)
{
	surand_bytes(b, 4096);
}
static void p_u32(uint8_t *b)
{
	uint32_t v = surand_u32();
	memcpy(b, &v, 4);
}
static void p_u64(uint8_t *b)
{
	uint64_t v = surand_u64();
	memcpy(b, &v, 8);
}
static void p_uniform(uint8_t *b)
{
	uint64_t v = surand_uniform(1000);
	memcpy(b, &v, 8);
}
static void p_double(uint8_t *b)
{
	double v = surand_double();
	memcpy(b, &v, 8);
}

/* The bulk calls: a few words (from the batch) and a slot's worth (a
 * one-use key); the first 16 bytes go back to the probe. */
static void p_u32s(uint8_t *b)
{
	uint32_t w[4];
	surand_u32s(w, 4);
	memcpy(b, w, 16);
}
static void p_u32s_4k(uint8_t *b)
{
	static uint32_t w[1024];
	surand_u32s(w, 1024);
	memcpy(b, w, 16);
}
static void p_u64s(uint8_t *b)
{
	uint64_t w[2];
	surand_u64s(w, 2);
	memcpy(b, w, 16);
}
static void p_uniform_n(uint8_t *b)
{
	uint64_t w[2];
	surand_uniform_n(w, 2, 1000);
	memcpy(b, w, 16);
}

static const struct {
	const char *name;
	void (*fn)(uint8_t *);
} abort_calls[] = {
	{"surand_bytes(16)", p_bytes16}, {"surand_bytes(4096)", p_bytes4k},
	{"surand_u32", p_u32},           {"surand_u64", p_u64},
	{"surand_uniform", p_uniform},   {"surand_double", p_double},
	{"surand_u32s(4)", p_u32s},      {"surand_u32s(1024)", p_u32s_4k},
	{"surand_u64s(2)", p_u64s},      {"surand_uniform_n(2)", p_uniform_n},
};
#define N_ABORT_CALLS (sizeof(abort_calls) / sizeof(abort_calls[0]))

/* Every call without an error return aborts with one line. 0 on success. */
static int all_calls_abort(void (*prep)(void), int *aborted)
{
	struct probe_result r;
	size_t i;

	*aborted = 0;
	for (i = 0; i < N_ABORT_CALLS; i++) {
		probe(prep, abort_calls[i].fn, &r);
		if (!probe_aborted(&r)) {
			t_fail_at(__FILE__, __LINE__,
				  "%s without a seed: status 0x%x, %d stderr lines (\"%.200s\"), %zd bytes "
				  "returned",
				  abort_calls[i].name, r.status, r.lines, r.err, r.returned);
			return -1;
		}
		(*aborted)++;
	}
	return 0;
}

/* ---- a NULL buffer ------------------------------------------------------------ */

/* A NULL out with n > 0 aborts with one line naming the call (surand(3)),
 * seeded or not; uniform_n also with a bound of 1, where it writes zeros
 * without drawing.  With n 0 nothing happens. */
static void p_null_bytes(uint8_t *b)
{
	(void)b;
	surand_bytes(NULL, 16);
}
static void p_null_u32s(uint8_t *b)
{
	(void)b;
	surand_u32s(NULL, 4);
}
static void p_null_u64s(uint8_t *b)
{
	(void)b;
	surand_u64s(NULL, 4);
}
static void p_null_uniform_n(uint8_t *b)
{
	(void)b;
	surand_uniform_n(NULL, 4, 1000);
}
static void p_null_uniform_n_1(uint8_t *b)
{
	(void)b;
	surand_uniform_n(NULL, 4, 1);
}

static void null_buffer_aborts(void)
{
	static const struct {
		const char *call, *name;
		void (*fn)(uint8_t *);
	} calls[] = {
		{"surand_bytes(NULL, 16)", "surand_bytes", p_null_bytes},
		{"surand_u32s(NULL, 4)", "surand_u32s", p_null_u32s},
		{"surand_u64s(NULL, 4)", "surand_u64s", p_null_u64s},
		{"surand_uniform_n(NULL, 4, 1000)", "surand_uniform_n", p_null_uniform_n},
		{"surand_uniform_n(NULL, 4, 1)", "surand_uniform_n", p_null_uniform_n_1},
	};
	struct probe_result r;
	size_t i;

	for (i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		probe(NULL, calls[i].fn, &r);
		T_ASSERT_MSG(probe_aborted(&r) && strstr(r.err, calls[i].name),
			     "%s: status 0x%x, %d stderr lines (\"%.200s\"), %zd bytes returned",
			     calls[i].call, r.status, r.lines, r.err, r.returned);
	}
	surand_bytes(NULL, 0);
	surand_u32s(NULL, 0);
	surand_u64s(NULL, 0);
	surand_uniform_n(NULL, 0, 1000);
}

/* ---- denying /dev/urandom ------------------------------------------------------ */

/*
 * A private mount namespace (a user namespace too when not root) in which a
 * mode 000 file is bound over /dev/urandom and /dev/random, then every
 * capability dropped, so even root gets EACCES.  Returns 0 and describes the
 * method in how, or -1 where no namespace can be had.
 */
static int deny_dev_random(char *how, size_t howlen)
{
	char path[] = "/tmp/surand-denied-XXXXXX";
	struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct data[2];
	int fd, userns = 0;

	if (unshare(CLONE_NEWNS) != 0) {
		char map[64];
		unsigned uid = (unsigned)getuid(), gid = (unsigned)getgid();

		if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)
			return -1;
		userns = 1;
		fd = open("/proc/self/setgroups", O_WRONLY);
		if (fd >= 0) {
			(void)!write(fd, "deny", 4);
			close(fd);
		}
		snprintf(map, sizeof(map), "0 %u 1", uid);
		fd = open("/proc/self/uid_map", O_WRONLY);
		if (fd < 0 || write(fd, map, strlen(map)) < 0)
			return -1;
		close(fd);
		snprintf(map, sizeof(map), "0 %u 1", gid);
		fd = open("/proc/self/gid_map", O_WRONLY);
		if (fd < 0 || write(fd, map, strlen(map)) < 0)
			return -1;
		close(fd);
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
		return -1;
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	fchmod(fd, 0);
	close(fd);
	if (mount(path, "/dev/urandom", NULL, MS_BIND, NULL) != 0 ||
	    mount(path, "/dev/random", NULL, MS_BIND, NULL) != 0) {
		unlink(path);
		return -1;
	}
	unlink(path);
	memset(data, 0, sizeof(data));
	if (syscall(SYS_capset, &hdr, data) != 0)
		return -1;
	/* The denial is in force for this process (control). */
	fd = open("/dev/urandom", O_RDONLY);
	if (fd >= 0 || errno != EACCES) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	snprintf(how, howlen, "mount namespace%s, mode 000 file over /dev/[u]random, no capabilities",
		 userns ? " (user namespace)" : "");
	return 0;
}

/* Refuses every kernel seed source: seccomp for getrandom, then the devices. */
static int refuse_kernel(char *how, size_t howlen)
{
	char dev[160];

	if (rel_seccomp_refuse_getrandom(ENOSYS) != 0) {
		if (!rel_seccomp_missing_skip())
			t_fail_at(__FILE__, __LINE__, "seccomp filter: %s", strerror(errno));
		return -1;
	}
	if (deny_dev_random(dev, sizeof(dev)) != 0) {
		/* No namespace here (an unprivileged container): the library's own
		 * open of /dev/urandom is refused by the test hook instead. */
		surand_test_kernel_fault(SURAND_TEST_KF_ALL_DENIED);
		snprintf(dev, sizeof(dev), "test hook KF_ALL_DENIED (no mount namespace here)");
	}
	snprintf(how, howlen, "seccomp getrandom ENOSYS + %s", dev);
	return 0;
}

/* ==== seccomp: getrandom refused, /dev/urandom used ============================== */

static void seccomp_case(int err)
{
	uint8_t a[64], b[64], c[64];
	int fds[2], st, ok;
	pid_t pid;

	if (rel_select_backend() != 0)
		return;
	if (rel_seccomp_refuse_getrandom(err) != 0) {
		if (!rel_seccomp_missing_skip())
			T_ASSERT_MSG(0, "seccomp: %s", strerror(errno));
		return;
	}
	surand_bytes(a, sizeof(a));
	T_ASSERT(surand_getrandom(b, sizeof(b), 0) == (ssize_t)sizeof(b));
	T_ASSERT(surand_getrandom(c, 16, SURAND_GRND_NONBLOCK) == 16);
	T_ASSERT(all_words_nonzero(a, 64) && all_words_nonzero(b, 64));
	T_ASSERT(memcmp(a, b, 64) != 0);
	T_ASSERT_MSG(stats_now().fallback_urandom >= 1, "no seed came from /dev/urandom");
	/* A fork child seeds from /dev/urandom too, and differs. */
	T_ASSERT(pipe(fds) == 0);
	pid = fork();
	if (pid == 0) {
		surand_bytes(c, 64);
		_exit(write(fds[1], c, 64) == 64 && stats_now().fallback_urandom >= 1 ? 0 : 1);
	}
	waitpid(pid, &st, 0);
	T_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	T_ASSERT(read(fds[0], c, 64) == 64);
	surand_bytes(b, 64);
	ok = memcmp(c, b, 64) != 0 && memcmp(c, a, 64) != 0;
	rel_report(err == ENOSYS  ? "seccomp-getrandom-ENOSYS"
		   : err == EPERM ? "seccomp-getrandom-EPERM"
				  : "seccomp-getrandom-EACCES",
		   rel_fmt("real seccomp filter, %llu seeds from /dev/urandom, fork child",
			   (unsigned long long)stats_now().fallback_urandom),
		   ok, ok ? 0 : 1, 0, 0);
	T_ASSERT_MSG(ok, "the fork child repeated the parent under seccomp");
}

static void seccomp_enosys_child(void)
{
	seccomp_case(ENOSYS);
}

static void seccomp_eperm_child(void)
{
	seccomp_case(EPERM);
}

/* Another error (here EIO) from getrandom(2) is passed on, never taken for a
 * refusal: no /dev/urandom fallback, and surand_bytes fails closed. */
static void seccomp_other_error_child(void)
{
	uint8_t b[16];
	int st;
	pid_t pid;

	if (rel_seccomp_refuse_getrandom(EIO) != 0) {
		if (!rel_seccomp_missing_skip())
			T_ASSERT_MSG(0, "seccomp: %s", strerror(errno));
		return;
	}
	errno = 0;
	T_ASSERT_MSG(surand_getrandom(b, sizeof(b), 0) == -1 && errno == EIO,
		     "surand_getrandom under a filter answering EIO: errno %s", strerror(errno));
	T_ASSERT_EQ_U64(stats_now().fallback_urandom, 0);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		surand_bytes(b, sizeof(b)); /* no seed to be had: abort, never output */
		_exit(0);
	}
	T_ASSERT(waitpid(pid, &st, 0) == pid);
	T_ASSERT_MSG(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT, "surand_bytes: status 0x%x", st);
}

static void getrandom_other_error_passed_on(void)
{
	t_exec_child("seccomp_other", 30);
}

/* ==== kernel refused ============================================================ */

static void kernel_refused_child(void)
{
	uint8_t b[64];
	char how[256];
	int aborted = 0, e;

	if (rel_select_backend() != 0)
		return;
	if (refuse_kernel(how, sizeof(how)) != 0)
		return;
	errno = 0;
	T_ASSERT_MSG(surand_getrandom(b, 32, 0) == -1 && errno != 0, "getrandom without a seed");
	e = errno;
	/* the devices are refused (mode 000, or the hook): EACCES, as documented */
	T_ASSERT_MSG(e == EACCES, "errno %d (%s), want EACCES (the device's open refused)", e,
		     strerror(e));
	errno = 0;
	T_ASSERT(surand_getrandom(b, 32, SURAND_GRND_NONBLOCK) == -1 && errno != 0);
	errno = 0;
	T_ASSERT(surand_getrandom(b, 32, SURAND_GRND_INSECURE) == -1 && errno != 0);
	errno = 0;
	T_ASSERT(surand_getentropy(b, 32) == -1 && errno != 0);
	errno = 0;
	T_ASSERT(surand_reseed() == -1 && errno != 0);
	/* Statistics still answer (they hold no state). */
	T_ASSERT(surand_stats(&(struct surand_stats){0}, sizeof(struct surand_stats)) == 0);
	if (all_calls_abort(NULL, &aborted) != 0)
		return;
	rel_report("kernel-refused",
		   rel_fmt("%s; getrandom/getentropy/reseed -1 (errno %d), %d calls aborted "
			   "with one stderr line",
			   how, e, aborted),
		   1, 0, 0, 0);
}

/* Seeded first, then refused: nothing unseeded, nothing of the parent's. */
static void refused_after_seed_child(void)
{
	uint8_t a[64], b[64];
	char how[256];
	int fds[2], st, aborted = 0, reseed_rc;
	pid_t pid;
	struct probe_result r;
	const struct surand_backend *be;

	if (rel_select_backend() != 0)
		return;
	surand_bytes(a, sizeof(a));
	if (refuse_kernel(how, sizeof(how)) != 0)
		return;
	/* A backend without a reseed of its own reseeds the base key from the
	 * kernel only (surand.h): that must fail.  One with its own (legacy:
	 * from its 2015 input pool) may succeed; the child below is what counts. */
	errno = 0;
	reseed_rc = surand_reseed();
	be = surand_backend_find(rel_backend());
	T_ASSERT(be);
	if (!be->reseed)
		T_ASSERT_MSG(reseed_rc == -1 && errno != 0,
			     "surand_reseed succeeded with every kernel source refused");
	/* A fork child's state is wiped: it must fail closed, not go on from the
	 * parent's state. */
	T_ASSERT(pipe(fds) == 0);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		ssize_t n = surand_getrandom(b, 64, 0);
		_exit(n == -1 ? 0 : write(fds[1], b, 64) == 64 ? 1 : 2);
	}
	waitpid(pid, &st, 0);
	close(fds[1]);
	T_ASSERT_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		     "a fork child produced bytes with every kernel source refused (status 0x%x)", st);
	close(fds[0]);
	probe(NULL, p_bytes16, &r);
	T_ASSERT_MSG(probe_aborted(&r), "surand_bytes in a fork child without a seed: status 0x%x, "
					"%d lines, %zd bytes returned",
		     r.status, r.lines, r.returned);
	aborted++;
	rel_report("kernel-refused-after-seed",
		   rel_fmt("seeded, then %s; reseed %s, fork child getrandom -1, surand_bytes aborted",
			   how, reseed_rc == 0 ? "0 (the backend's own pool)" : "-1"),
		   1, 0, 0, 0);
}

/* ==== secret memory refused ======================================================= */

static void secmem_fail_child(void)
{
	uint8_t v[200][32];
	long ok_calls = 0, enomem = 0, i;
	unsigned long long dups;

	if (rel_select_backend() != 0)
		return;
	surand_test_secmem_fail(1 << 30);
	for (i = 0; i < 200; i++) {
		ssize_t n;
		errno = 0;
		n = surand_getrandom(v[ok_calls], 32, 0);
		if (n == 32) {
			T_ASSERT_MSG(all_words_nonzero(v[ok_calls], 32), "zeros returned without secmem");
			ok_calls++;
		} else {
			T_ASSERT_MSG(n == -1 && errno == ENOMEM, "getrandom %zd errno %d", n, errno);
			enomem++;
		}
	}
	dups = rel_count_dups(v, (size_t)ok_calls, 32);
	surand_test_secmem_fail(0);
	surand_bytes(v[0], 32);
	T_ASSERT(all_words_nonzero(v[0], 32));
	rel_report("secmem-all-fail",
		   rel_fmt("every secret-memory map refused: %ld calls served (kernel path), %ld ENOMEM",
			   ok_calls, enomem),
		   dups == 0, dups, 0, 0);
	T_ASSERT_MSG(dups == 0, "%llu repeated values without secret memory", dups);
}

#define GROW_THREADS 80
static pthread_barrier_t grow_bar;
static uint8_t grow_vals[GROW_THREADS][32];
static int grow_drawn[GROW_THREADS];

static void *grow_worker(void *arg)
{
	long i = (long)arg;

	surand_bytes(grow_vals[i], 32);
	__atomic_store_n(&grow_drawn[i], 1, __ATOMIC_RELEASE);
	pthread_barrier_wait(&grow_bar); /* hold the slot until all have one */
	return NULL;
}

static void slab_grow_fail_child(void)
{
	pthread_t th[GROW_THREADS];
	unsigned long long dups, zero = 0;
	uint64_t nomem0;
	long i;

	if (rel_select_backend() != 0)
		return;
	(void)surand_u64();
	nomem0 = stats_now().fallback_nomem;
	T_ASSERT(pthread_barrier_init(&grow_bar, NULL, GROW_THREADS + 1) == 0);
	for (i = 0; i < GROW_THREADS; i++) {
		if (i == GROW_THREADS / 2 + 20)
			surand_test_secmem_fail(1); /* about when the first chunk is full */
		T_ASSERT(pthread_create(&th[i], NULL, grow_worker, (void *)i) == 0);
		/* one at a time, so the failure lands on one growth */
		while (!__atomic_load_n(&grow_drawn[i], __ATOMIC_ACQUIRE))
			sched_yield();
	}
	pthread_barrier_wait(&grow_bar);
	for (i = 0; i < GROW_THREADS; i++)
		pthread_join(th[i], NULL);
	surand_test_secmem_fail(0);
	for (i = 0; i < GROW_THREADS; i++)
		zero += rel_has_zero_word(grow_vals[i], 32);
	dups = rel_count_dups(grow_vals, GROW_THREADS, 32);
	rel_report("slab-grow-fail",
		   rel_fmt("%d threads holding state, one secret-memory map refused mid-way (%llu calls "
			   "sent to the kernel)",
			   GROW_THREADS, (unsigned long long)(stats_now().fallback_nomem - nomem0)),
		   dups == 0 && zero == 0, dups, 0, 0);
	T_ASSERT_MSG(zero == 0, "%llu values hold a zero word", zero);
	T_ASSERT_MSG(dups == 0, "%llu repeated values", dups);
	if (strcmp(rel_backend(), "thread") == 0)
		T_ASSERT_MSG(stats_now().fallback_nomem > nomem0, "no call fell back (nothing tested)");
}

/* ==== address space full ============================================================ */

static long vm_size_kib(void)
{
	return rel_status_kib("VmSize");
}

static void rlimit_as_child(void)
{
	static uint8_t v[100][32];
	struct rlimit old, lim;
	long ok_calls = 0, enomem = 0, i, kb;
	unsigned long long dups;
	struct probe_result r;

	if (rel_select_backend() != 0)
		return;
	printf("# address space limited to the current size\n"); /* stdio buffers exist now */
	kb = vm_size_kib();
	T_ASSERT(kb > 0 && getrlimit(RLIMIT_AS, &old) == 0);
	lim.rlim_cur = (rlim_t)kb * 1024 + 16384;
	lim.rlim_max = old.rlim_max;
	T_ASSERT(setrlimit(RLIMIT_AS, &lim) == 0);
	for (i = 0; i < 100; i++) {
		ssize_t n;
		errno = 0;
		n = surand_getrandom(v[ok_calls], 32, 0);
		if (n == 32) {
			if (!all_words_nonzero(v[ok_calls], 32))
				break;
			ok_calls++;
		} else if (n == -1 && errno == ENOMEM) {
			enomem++;
		} else {
			break;
		}
	}
	/* surand_bytes: bytes or one line and abort, nothing else. */
	probe(NULL, p_bytes16, &r);
	setrlimit(RLIMIT_AS, &old);
	T_ASSERT_MSG(i == 100, "call %ld under RLIMIT_AS: neither bytes nor ENOMEM", i);
	T_ASSERT_MSG((WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0 && r.returned == 16) ||
			     probe_aborted(&r),
		     "surand_bytes under RLIMIT_AS: status 0x%x, %d lines", r.status, r.lines);
	dups = rel_count_dups(v, (size_t)ok_calls, 32);
	surand_bytes(v[0], 32);
	T_ASSERT(all_words_nonzero(v[0], 32));
	rel_report("rlimit-as",
		   rel_fmt("RLIMIT_AS = current size + 16 KiB: %ld calls served, %ld ENOMEM, "
			   "surand_bytes %s",
			   ok_calls, enomem, probe_aborted(&r) ? "aborted" : "served"),
		   dups == 0, dups, 0, 0);
	T_ASSERT(dups == 0);
}

/* ==== descriptors exhausted ========================================================== */

static struct rlimit nofile_old;

static void limit_fds(void)
{
	struct rlimit lim;
	int fd;

	getrlimit(RLIMIT_NOFILE, &nofile_old);
	/* Only 0, 1, 2: every other descriptor is closed, and no new one opens. */
	for (fd = 3; fd < 1024; fd++)
		close(fd);
	lim.rlim_cur = 3;
	lim.rlim_max = nofile_old.rlim_max;
	setrlimit(RLIMIT_NOFILE, &lim);
}

static void emfile_case(int refuse)
{
	uint8_t a[32], b[32];
	struct probe_result r;
	int st;
	pid_t pid;
	ssize_t n;
	int e;

	if (rel_select_backend() != 0)
		return;
	if (refuse && rel_seccomp_refuse_getrandom(ENOSYS) != 0) {
		if (!rel_seccomp_missing_skip())
			T_ASSERT_MSG(0, "seccomp: %s", strerror(errno));
		return;
	}
	/* The check runs in a child with descriptors 0..2 only; its verdict
	 * comes back as the exit status. */
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		limit_fds();
		errno = 0;
		n = surand_getrandom(a, 32, 0);
		e = errno;
		if (refuse) {
			/* No descriptor for /dev/random: -1/EMFILE, never zeros. */
			if (n != -1 || e != EMFILE)
				_exit(10);
			setrlimit(RLIMIT_NOFILE, &nofile_old); /* one free again */
			n = surand_getrandom(b, 32, 0);
			if (n != 32 || !all_words_nonzero(b, 32) || stats_now().fallback_urandom < 1)
				_exit(11);
		} else if (n != 32 || !all_words_nonzero(a, 32)) {
			_exit(12);
		}
		_exit(0);
	}
	waitpid(pid, &st, 0);
	T_ASSERT_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		     "descriptors exhausted%s: check %d failed (status 0x%x)",
		     refuse ? ", getrandom refused" : "", WIFEXITED(st) ? WEXITSTATUS(st) : -1, st);
	if (refuse) {
		probe(limit_fds, p_bytes16, &r);
		T_ASSERT_MSG(probe_aborted(&r), "surand_bytes with no descriptor and no getrandom: "
						"status 0x%x, %d lines (\"%.200s\")",
			     r.status, r.lines, r.err);
	}
	rel_report(refuse ? "emfile-getrandom-refused" : "emfile",
		   refuse ? "RLIMIT_NOFILE 3 + seccomp getrandom ENOSYS: -1/EMFILE, surand_bytes "
			    "aborted; served again with a descriptor free"
			  : "RLIMIT_NOFILE 3: served by getrandom, no descriptor needed",
		   1, 0, 0, 0);
}

static void emfile_child(void)
{
	emfile_case(0);
}

static void emfile_refused_child(void)
{
	emfile_case(1);
}

/* ==== pages dropped ================================================================== */

struct range {
	uintptr_t start, end;
};

/* Every mapping of this process whose VmFlags hold `flag` (e.g. "dp"). */
static int mappings_with(const char *flag, struct range *out, int cap)
{
	char line[512], want[8];
	uintptr_t s = 0, e = 0;
	int n = 0;
	FILE *f = fopen("/proc/self/smaps", "r");

	if (!f)
		return 0;
	snprintf(want, sizeof(want), " %s", flag);
	while (fgets(line, sizeof(line), f)) {
		uintptr_t a, b;
		if (sscanf(line, "%lx-%lx ", &a, &b) == 2 && line[0] != ' ' && strchr(line, '-') &&
		    strncmp(line, "VmFlags", 7) != 0) {
			s = a;
			e = b;
		} else if (strncmp(line, "VmFlags:", 8) == 0) {
			char *p = line + 8, *q;
			while ((q = strstr(p, want)) != NULL) {
				if (q[strlen(want)] == ' ' || q[strlen(want)] == '\n') {
					if (n < cap) {
						out[n].start = s;
						out[n].end = e;
					}
					n++;
					break;
				}
				p = q + 1;
			}
		}
	}
	fclose(f);
	return n < cap ? n : cap;
}

static struct range drop_r[64];
static int drop_n;

static void drop_all(void)
{
	for (int i = 0; i < drop_n; i++)
		(void)madvise((void *)drop_r[i].start, drop_r[i].end - drop_r[i].start, MADV_PAGEOUT);
}

static int drop_stop;
static long drops_done;
static void *dropper(void *arg)
{
	long i = 0;

	(void)arg;
	while (!__atomic_load_n(&drop_stop, __ATOMIC_RELAXED)) {
		if (++i % 64 == 0)
			drop_n = mappings_with("dp", drop_r, 64); /* new chunks, new vDSO states */
		drop_all();
		__atomic_fetch_add(&drops_done, 1, __ATOMIC_RELAXED);
		sched_yield();
	}
	return NULL;
}

#define DROP_THREADS 3
#define DROP_VALS 100000
#define DROP_PACE 4096 /* draws per drawer per drop pass */
static uint8_t (*drop_vals)[16];
static long drop_nv[DROP_THREADS];
static unsigned long long drop_zero_unrecorded;

static void *drop_drawer(void *arg)
{
	long t = (long)arg, pass = -1, since = 0;
	uint8_t scratch[64];

	while (!__atomic_load_n(&drop_stop, __ATOMIC_RELAXED)) {
		long now = __atomic_load_n(&drops_done, __ATOMIC_RELAXED);

		/* At most DROP_PACE draws per drop pass: the drawers wait (asleep,
		 * so that a scheduler which runs one thread at a time, as valgrind
		 * does, lets the dropper in) rather than starve the dropper. */
		if (now != pass) {
			pass = now;
			since = 0;
		} else if (since >= DROP_PACE) {
			struct timespec ts = {0, 100000};
			nanosleep(&ts, NULL);
			continue;
		}
		since++;
		if (drop_nv[t] < DROP_VALS) {
			uint8_t *rec = drop_vals[t * DROP_VALS + drop_nv[t]];

			if (drop_nv[t] & 1) { /* the word() path of surand_u64 */
				uint64_t a = surand_u64(), b = surand_u64();

				memcpy(rec, &a, 8);
				memcpy(rec + 8, &b, 8);
			} else {
				surand_bytes(rec, 16);
			}
			drop_nv[t]++;
		} else {
			surand_bytes(scratch, sizeof(scratch));
			if (!all_words_nonzero(scratch, sizeof(scratch)))
				__atomic_fetch_add(&drop_zero_unrecorded, 1, __ATOMIC_RELAXED);
		}
	}
	return NULL;
}

/* After drop_all(): did some droppable page really read back as zeros? */
static int some_page_dropped(void)
{
	static const uint8_t z[64];

	for (int i = 0; i < drop_n; i++)
		if (memcmp((void *)drop_r[i].start, z, 64) == 0)
			return 1;
	return 0;
}

/*
 * A key read from a dropped page is all zeros: output made from it is
 * ChaCha20 under the zero key, public.  The 16-byte windows (every offset) of
 * the zero key's first 4096 bytes (a thread slot's refill) under every nonce
 * the designs use.
 */
static const uint64_t zero_key_nonces[] = {
	0, 0x7463657269642d75ull /* u-direct */,
	0x6576697265642d62ull /* b-derive */, 0x6465657365722d62ull /* b-reseed */,
};
#define ZK_N (sizeof(zero_key_nonces) / sizeof(zero_key_nonces[0]))
static uint8_t zk_win[ZK_N * (4096 - 15)][16];

static int cmp16(const void *a, const void *b)
{
	return memcmp(a, b, 16);
}

static void zero_key_windows(void)
{
	static const uint32_t zero[8];
	static uint8_t ks[4096];
	size_t n = 0, i, j;

	for (i = 0; i < ZK_N; i++) {
		surand_chacha20_blocks_portable(zero, 0, zero_key_nonces[i], ks, 64);
		for (j = 0; j + 16 <= sizeof(ks); j++)
			memcpy(zk_win[n++], ks + j, 16);
	}
	qsort(zk_win, n, 16, cmp16);
}

static int from_zero_key(const uint8_t v[16])
{
	return bsearch(v, zk_win, sizeof(zk_win) / 16, 16, cmp16) != NULL;
}

/* What the drop phases recorded, for the verdict. */
struct drop_tally {
	long n;           /* values recorded: the sequential ones, then all */
	int dropped_seen; /* sequential drops after which the page really read zero */
	unsigned long long dups, zero, public;
	long blocks, fips_fail;
	struct fips_rates fr;
};

static uint8_t drop_seq[4000][16]; /* the sequential phase's values */

/* Sequential: draw, drop everything, check the page really went, draw. */
static void drop_sequential(long seq_drops, struct drop_tally *t)
{
	uint64_t rekeys0 = stats_now().rekeys;
	uint8_t *slot;
	size_t slot_size = 0;
	cpu_set_t old_cpus, one_cpu;
	long i;

	slot = strcmp(rel_backend(), "thread") == 0 ? surand_test_thread_slot(&slot_size) : NULL;
	/* One CPU for the writes and the drops (see the drop loop below). */
	T_ASSERT(sched_getaffinity(0, sizeof(old_cpus), &old_cpus) == 0);
	CPU_ZERO(&one_cpu);
	CPU_SET(sched_getcpu() >= 0 ? sched_getcpu() : 0, &one_cpu);
	(void)sched_setaffinity(0, sizeof(one_cpu), &one_cpu);
	for (i = 0; i < seq_drops; i++) {
		static const size_t sizes[] = {16, 4, 33, 100, 960, 4096};
		uint8_t big[4096];
		size_t len = sizes[i % 6];

		surand_bytes(drop_seq[t->n++], 16);
		/* MADV_PAGEOUT skips a page it cannot isolate yet (still in another
		 * CPU's LRU batch: it drains only its own CPU's): the thread is
		 * pinned (above), and up to 8 passes make sure the drop happens. */
		for (int pass = 0; pass < 8; pass++) {
			static const uint8_t zero_slot[1024];
			int gone;

			drop_all();
			/* The drop happened: the slot reads as zero (gen 0 = re-key). */
			gone = slot ? memcmp(slot, zero_slot, slot_size < 1024 ? slot_size : 1024) == 0
				    : some_page_dropped();
			if (gone) {
				t->dropped_seen++;
				break;
			}
		}
		surand_bytes(big, len);
		T_ASSERT_MSG(len < 8 || all_words_nonzero(big, len),
			     "a %zu-byte request right after a drop holds a zero word", len);
		memcpy(drop_seq[t->n++], big, 16);
		if (len < 16)
			surand_bytes(drop_seq[t->n - 1], 16);
		surand_bytes(drop_seq[t->n++], 16);
	}
	(void)sched_setaffinity(0, sizeof(old_cpus), &old_cpus);
	T_ASSERT_MSG(t->dropped_seen > seq_drops * 9 / 10,
		     "MADV_PAGEOUT dropped the slot only %d times of %ld", t->dropped_seen, seq_drops);
	if (slot)
		T_ASSERT_MSG(stats_now().rekeys > rekeys0 + (uint64_t)(seq_drops * 9 / 10),
			     "rekeys %llu -> %llu after %ld drops", (unsigned long long)rekeys0,
			     (unsigned long long)stats_now().rekeys, seq_drops);
}

/* Concurrent: one thread drops everything in a loop while three draw. */
static void drop_concurrent(double secs)
{
	pthread_t d, th[DROP_THREADS];
	double t0;
	long i;

	drop_vals = calloc((size_t)DROP_THREADS * DROP_VALS, 16);
	T_ASSERT(drop_vals);
	for (i = 0; i < DROP_THREADS; i++)
		T_ASSERT(pthread_create(&th[i], NULL, drop_drawer, (void *)i) == 0);
	T_ASSERT(pthread_create(&d, NULL, dropper, NULL) == 0);
	t0 = rel_now();
	/* At least secs, and on until the dropper has run 11 passes (valgrind
	 * runs one thread at a time and can starve it), at most 60 s. */
	while (rel_now() - t0 < secs ||
	       (__atomic_load_n(&drops_done, __ATOMIC_RELAXED) <= 10 && rel_now() - t0 < 60.0)) {
		struct timespec ts = {0, 10000000};
		nanosleep(&ts, NULL);
	}
	__atomic_store_n(&drop_stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < DROP_THREADS; i++)
		pthread_join(th[i], NULL);
	pthread_join(d, NULL);
}

/* Every value of both phases, together: those holding a zero word, those
 * made under the zero key (public), and the repeats.  t->n becomes the
 * count of them all. */
static void drop_count_values(struct drop_tally *t)
{
	long total = t->n, i;
	uint8_t (*all)[16];

	for (i = 0; i < DROP_THREADS; i++)
		total += drop_nv[i];
	all = malloc((size_t)total * 16);
	T_ASSERT(all);
	memcpy(all, drop_seq, (size_t)t->n * 16);
	total = t->n;
	for (i = 0; i < DROP_THREADS; i++) {
		memcpy(all + total, drop_vals + i * DROP_VALS, (size_t)drop_nv[i] * 16);
		total += drop_nv[i];
	}
	zero_key_windows();
	for (i = 0; i < total; i++) {
		t->zero += rel_has_zero_word(all[i], 16);
		t->public += from_zero_key(all[i]);
	}
	t->zero += drop_zero_unrecorded;
	t->dups = rel_count_dups(all, (size_t)total, 16);
	free(all);
	t->n = total;
}

/* The 16-byte draws of each thread, read as a stream, pass FIPS. */
static void drop_fips(struct drop_tally *t)
{
	T_ASSERT(fips_rates(&t->fr) == 0);
	for (long i = 0; i < DROP_THREADS; i++) {
		const uint8_t *p = (const uint8_t *)(drop_vals + i * DROP_VALS);
		size_t bytes = (size_t)drop_nv[i] * 16;
		for (size_t off = 0; off + FIPS_BLOCK_BYTES <= bytes; off += FIPS_BLOCK_BYTES) {
			t->blocks++;
			if (fips_block(p + off))
				t->fips_fail++;
		}
	}
}

static void droppable_child(void)
{
	struct drop_tally t = {0};
	double secs = rel_stress() || rel_slow_checker() ? 2.0 : 0.3;
	long tolerance;
	/* Under valgrind (not the sanitizers) fewer sequential drops: each is a
	 * few hundred ms of emulated syscalls there, and the concurrent phase
	 * below is what found the races; the plain build does all 1000. */
	long seq_drops = getenv("SURAND_VALGRIND") ? 300 : 1000;

	if (rel_select_backend() != 0)
		return;
	(void)surand_u64();
	if (!stats_now().droppable) {
		rel_report("droppable-pageout", "MAP_DROPPABLE absent here (kernel < 6.11): nothing drops", 1,
			   0, 0, 0);
		printf("# MAP_DROPPABLE is not available: state pages cannot be dropped\n");
		return;
	}
	drop_n = mappings_with("dp", drop_r, 64);
	T_ASSERT_MSG(drop_n > 0, "stats say droppable but no mapping has VmFlags dp");
	drop_sequential(seq_drops, &t);
	if (t_case_failed())
		return;
	drop_concurrent(secs);
	if (t_case_failed())
		return;
	drop_count_values(&t);
	if (t_case_failed())
		return;
	drop_fips(&t);
	if (t_case_failed())
		return;
	tolerance = fips_tolerance(t.blocks, t.fr.total);
	rel_report("droppable-pageout",
		   rel_fmt("MADV_PAGEOUT of every droppable page: %ld sequential drops (%d seen), "
			   "%ld concurrent drop passes under %d drawing threads, %ld values, %ld FIPS "
			   "blocks (%ld failed, tolerance %ld)",
			   seq_drops, t.dropped_seen, drops_done, DROP_THREADS, t.n, t.blocks, t.fips_fail,
			   tolerance),
		   t.dups == 0 && t.zero == 0 && t.public == 0 && t.fips_fail <= tolerance, t.dups, 0, 0);
	T_ASSERT_MSG(drops_done > 10, "only %ld drop passes ran", drops_done);
	T_ASSERT_MSG(t.public == 0, "%llu values are zero-key ChaCha20 output (a dropped key was used)",
		     t.public);
	T_ASSERT_MSG(t.zero == 0, "%llu values hold a zero 8-byte word after drops", t.zero);
	T_ASSERT_MSG(t.dups == 0, "%llu repeated values after drops", t.dups);
	T_ASSERT_MSG(t.fips_fail <= tolerance, "%ld of %ld FIPS blocks failed", t.fips_fail, t.blocks);
	free(drop_vals);
}

/* ==== first call from a signal handler that interrupted malloc ========================= */

#define FIRST_ROUNDS 6
#define HOLDERS_MAX (128 * FIRST_ROUNDS + 8) /* 128: the most slots a 16 KiB slab chunk holds (taskcrng) */
static int hold_release, holders_in;
static volatile int first_done;
static uint8_t first_vals[FIRST_ROUNDS][16];
static int first_round;

static void *holder(void *arg)
{
	struct timespec ts = {0, 1000000};

	(void)arg;
	(void)surand_u64(); /* takes a slot and keeps it */
	__atomic_fetch_add(&holders_in, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&hold_release, __ATOMIC_ACQUIRE))
		nanosleep(&ts, NULL);
	return NULL;
}

static void first_handler(int sig)
{
	(void)sig;
	surand_bytes(first_vals[first_round], 16); /* this thread's first call */
	first_done = 1;
}

static void *mallocer(void *arg)
{
	uint64_t s = (uint64_t)(uintptr_t)arg;
	void *p[8] = {0};

	/* Sizes above the tcache limit: every malloc/free takes the arena lock. */
	while (!first_done) {
		unsigned k = (unsigned)(t_rand64(&s) % 8);
		free(p[k]);
		p[k] = malloc(2048 + t_rand64(&s) % 60000);
	}
	for (int k = 0; k < 8; k++)
		free(p[k]);
	return NULL;
}

static void first_call_in_handler_child(void)
{
	pthread_t holders[HOLDERS_MAX], m;
	pthread_attr_t small;
	struct sigaction sa;
	struct timespec ts = {0, 2000000};
	unsigned long long dups;
	long i, nh = 0;

	if (rel_select_backend() != 0)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = first_handler;
	T_ASSERT(sigaction(SIGUSR1, &sa, NULL) == 0);
	pthread_attr_init(&small);
	pthread_attr_setstacksize(&small, 64 * 1024);
	(void)surand_u64();
	for (first_round = 0; first_round < FIRST_ROUNDS; first_round++) {
		/* Fill the slab: the next thread's first call must map more (for
		 * backends with per-thread slots; others just run the rounds). */
		while (stats_now().slots_total > 0 &&
		       stats_now().slots_in_use < stats_now().slots_total) {
			uint64_t before = stats_now().slots_in_use;

			T_ASSERT(nh < HOLDERS_MAX);
			T_ASSERT(pthread_create(&holders[nh++], &small, holder, NULL) == 0);
			while (__atomic_load_n(&holders_in, __ATOMIC_ACQUIRE) < nh)
				sched_yield();
			/* Slots not per thread (percpu: one per CPU): a holder
			 * takes none, and no number of holders fills them. */
			if (stats_now().slots_in_use == before)
				break;
		}
		first_done = 0;
		T_ASSERT(pthread_create(&m, &small, mallocer, (void *)(uintptr_t)(first_round + 1)) == 0);
		nanosleep(&ts, NULL);
		pthread_kill(m, SIGUSR1);
		pthread_join(m, NULL);
	}
	__atomic_store_n(&hold_release, 1, __ATOMIC_RELEASE);
	for (i = 0; i < nh; i++)
		pthread_join(holders[i], NULL);
	dups = rel_count_dups(first_vals, FIRST_ROUNDS, 16);
	rel_report("first-call-in-handler",
		   rel_fmt("%d rounds: a thread in a malloc/free loop makes its first call from a signal "
			   "handler while the state slab is full (%ld threads holding slots)",
			   FIRST_ROUNDS, nh),
		   dups == 0, dups, 0, 0);
	T_ASSERT(dups == 0);
}

/* ==== the first surand_add_event from a signal handler that interrupted malloc ======== */

#define EVENT_ROUNDS 8

static void event_handler(int sig)
{
	(void)sig;
	surand_add_event(0x5eed); /* the process's first event: the fast pools are set up here */
	first_done = 1;
}

/* One round in a fresh process (fork of a parent that never used the fast
 * pools): a thread in a malloc/free loop takes the signal.  Set-up that
 * allocated with malloc deadlocked on the arena lock the loop held. */
static void event_round(unsigned round)
{
	struct sigaction sa;
	struct timespec ts = {0, 2000000};
	pthread_t m;

	alarm(20); /* a deadlock ends the round with SIGALRM */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = event_handler;
	if (sigaction(SIGUSR1, &sa, NULL) != 0)
		_exit(3);
	first_done = 0;
	if (pthread_create(&m, NULL, mallocer, (void *)(uintptr_t)(round + 1)) != 0)
		_exit(3);
	nanosleep(&ts, NULL);
	pthread_kill(m, SIGUSR1);
	pthread_join(m, NULL);
	_exit(surand_fastpool_events() >= 1 ? 0 : 2);
}

static void first_event_in_handler_child(void)
{
	unsigned r, ok = 0;
	pid_t pid;
	int st = 0;

	for (r = 0; r < EVENT_ROUNDS; r++) {
		fflush(stdout);
		pid = fork();
		T_ASSERT(pid >= 0);
		if (pid == 0)
			event_round(r);
		T_ASSERT(waitpid(pid, &st, 0) == pid);
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			break; /* reported below, with the row */
		ok++;
	}
	rel_report("first-event-in-handler",
		   rel_fmt("%u fresh processes: a thread in a malloc/free loop makes the process's first "
			   "surand_add_event from a signal handler", EVENT_ROUNDS),
		   ok == EVENT_ROUNDS, 0, ok == EVENT_ROUNDS ? 0 : 1, 0);
	T_ASSERT_MSG(ok == EVENT_ROUNDS,
		     "round %u: status 0x%x (SIGALRM 14: the handler's set-up deadlocked)", ok, st);
}

/* ==== fallbacks that fail safe ======================================================
 *
 * The /dev/urandom fallback and the getrandom(2) semantics of surand_getrandom
 * when the kernel is refused, not ready, or old:
 *
 *   urandom not the device   getrandom refused by a real seccomp filter, and in
 *                            a private mount namespace a regular file (a known
 *                            pattern), /dev/zero (character device 1:5) or a
 *                            regular file over /dev/random is bound over the
 *                            path: every call fails closed (ENODEV, abort),
 *                            never the file's bytes; the real device bound over
 *                            itself (the control) still serves.
 *   getrandom EACCES         a seccomp filter that answers EACCES: the fallback
 *                            serves, as for ENOSYS and EPERM.
 *   GRND_INSECURE            before readiness, on the /dev/urandom path (a
 *                            /dev/random that never polls ready) and on a
 *                            kernel before 5.6 (EINVAL for the flag): served at
 *                            once, never a wait.
 *   zero length              before readiness: EAGAIN with GRND_NONBLOCK, a
 *                            wait without it, 0 with GRND_INSECURE (as
 *                            getrandom(2) in drivers/char/random.c).
 *   the fallback's errors    a /dev/random whose poll reports an error and a
 *                            /dev/urandom that reads nothing (test hooks):
 *                            EIO; an open the filter refuses with EPERM: EPERM
 *                            (surand(3) ERRORS), from surand_getrandom (also
 *                            GRND_NONBLOCK), surand_getentropy, surand_reseed.
 *   signals during a wait    the wait for readiness (poll of a /dev/random
 *                            that never polls ready) under a 1 ms timer whose
 *                            handler has no SA_RESTART: every call keeps
 *                            waiting, none returns EINTR (surand(3)).
 *   preload in a sandbox     build/preload-test/pltest sandbox under
 *                            libsurand-preload.so: /dev/urandom opened, then
 *                            seccomp refuses getrandom and open; the reads get
 *                            the kernel's bytes, no abort (tests/preload.sh
 *                            checks the same with the stats line).
 */

#define FAKE_PATTERN "surand-test: not the kernel's device "

/* In this (forked) process: a private mount namespace, a user namespace too
 * when not root.  0, or -1 with the reason in why. */
static int private_mounts(char *why, size_t n)
{
	int fd;

	if (unshare(CLONE_NEWNS) != 0) {
		char map[64];
		unsigned uid = (unsigned)getuid(), gid = (unsigned)getgid();
		int e = errno;

		if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) {
			snprintf(why, n, "unshare(CLONE_NEWNS): %s; with CLONE_NEWUSER: %s",
				 strerror(e), strerror(errno));
			return -1;
		}
		fd = open("/proc/self/setgroups", O_WRONLY);
		if (fd >= 0) {
			(void)!write(fd, "deny", 4);
			close(fd);
		}
		snprintf(map, sizeof(map), "0 %u 1", uid);
		fd = open("/proc/self/uid_map", O_WRONLY);
		if (fd < 0 || write(fd, map, strlen(map)) < 0) {
			snprintf(why, n, "uid_map: %s", strerror(errno));
			return -1;
		}
		close(fd);
		snprintf(map, sizeof(map), "0 %u 1", gid);
		fd = open("/proc/self/gid_map", O_WRONLY);
		if (fd < 0 || write(fd, map, strlen(map)) < 0) {
			snprintf(why, n, "gid_map: %s", strerror(errno));
			return -1;
		}
		close(fd);
	}
	/* Private first: the binds below must not reach the host's /dev. */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
		snprintf(why, n, "mount --make-rprivate /: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* A regular file holding FAKE_PATTERN over and over; its path in path. */
static int make_fake_file(char *path, size_t n)
{
	char buf[4096];
	size_t i, pl = strlen(FAKE_PATTERN);
	int fd;

	snprintf(path, n, "/tmp/surand-fake-dev-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = FAKE_PATTERN[i % pl];
	if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

enum fake_kind {
	FAKE_FILE_URANDOM, /* a regular file over /dev/urandom */
	FAKE_ZERO_URANDOM, /* /dev/zero (1:5) over /dev/urandom */
	FAKE_FILE_RANDOM,  /* a regular file over /dev/random (the readiness poll) */
	FAKE_NO_DEV,       /* an empty tmpfs over /dev: no device at all (ENOENT) */
	FAKE_REAL_URANDOM, /* control: the real /dev/urandom bound over itself */
	FAKE_KINDS
};
static const char *const fake_names[FAKE_KINDS] = {
	"file over /dev/urandom", "/dev/zero over /dev/urandom", "file over /dev/random",
	"empty /dev", "control: /dev/urandom bound over itself",
};
static enum fake_kind fake_cur;

/* Exit status of a probe child whose set-up failed (its reason on stderr). */
#define FAKE_SETUP_FAILED 77

/* probe() prep: the namespace, the bind, getrandom refused (a real filter). */
static void fake_prep(void)
{
	char why[256], file[64];
	const char *src = file, *dst = "/dev/urandom";

	if (private_mounts(why, sizeof(why)) != 0) {
		fprintf(stderr, "%s\n", why);
		_exit(FAKE_SETUP_FAILED);
	}
	if (fake_cur == FAKE_NO_DEV) {
		if (mount("tmpfs", "/dev", "tmpfs", 0, "mode=755") != 0) {
			fprintf(stderr, "tmpfs over /dev: %s\n", strerror(errno));
			_exit(FAKE_SETUP_FAILED);
		}
		goto filter;
	}
	if (fake_cur == FAKE_ZERO_URANDOM)
		src = "/dev/zero";
	else if (fake_cur == FAKE_REAL_URANDOM)
		src = "/dev/urandom";
	else if (make_fake_file(file, sizeof(file)) != 0) {
		fprintf(stderr, "fake file: %s\n", strerror(errno));
		_exit(FAKE_SETUP_FAILED);
	}
	if (fake_cur == FAKE_FILE_RANDOM)
		dst = "/dev/random";
	if (mount(src, dst, NULL, MS_BIND, NULL) != 0) {
		fprintf(stderr, "bind %s over %s: %s\n", src, dst, strerror(errno));
		_exit(FAKE_SETUP_FAILED);
	}
	if (src == file)
		unlink(file);
filter:
	if (rel_seccomp_refuse_getrandom(ENOSYS) != 0) {
		fprintf(stderr, "seccomp: %s\n", strerror(errno));
		_exit(FAKE_SETUP_FAILED);
	}
	/* The next fallback read polls /dev/random again, as a fresh process would. */
	surand_test_kernel_forget_ready();
}

/* probe() body: surand_getrandom; its result travels back in the 16 bytes
 * only when it returned bytes (the case then fails). */
static int fake_errno;
static void p_getrandom_errno(uint8_t *b)
{
	uint8_t v[16];

	errno = 0;
	if (surand_getrandom(v, sizeof(v), 0) == (ssize_t)sizeof(v)) {
		memcpy(b, v, 16);
		return; /* bytes: probe() sends them back */
	}
	fake_errno = errno;
	fprintf(stderr, "surand: errno %d\n", fake_errno); /* one line, read by the parent */
	_exit(3);
}

/* 1 when the namespace and the bind can be made here (checked in a child). */
static int fake_possible(char *why, size_t n)
{
	struct probe_result r;

	fake_cur = FAKE_REAL_URANDOM;
	probe(fake_prep, p_bytes16, &r);
	if (WIFEXITED(r.status) && WEXITSTATUS(r.status) == FAKE_SETUP_FAILED) {
		snprintf(why, n, "no private mount namespace here (%.200s)", r.err);
		return 0;
	}
	return 1;
}

static void urandom_not_device_child(void)
{
	struct probe_result r;
	char summary[512] = "";
	int k, ok = 1, aborted = 0, want;

	if (rel_select_backend() != 0)
		return;
	for (k = 0; k < FAKE_KINDS && ok; k++) {
		fake_cur = (enum fake_kind)k;
		/* surand_bytes: abort with one line, or (control) 16 bytes. */
		probe(fake_prep, p_bytes16, &r);
		T_ASSERT_MSG(!(WIFEXITED(r.status) && WEXITSTATUS(r.status) == FAKE_SETUP_FAILED),
			     "%s: set-up failed: %s", fake_names[k], r.err);
		if (k == FAKE_REAL_URANDOM) {
			ok = WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0 && r.returned == 16;
			T_ASSERT_MSG(ok, "%s: surand_bytes did not serve (status 0x%x, \"%.200s\")",
				     fake_names[k], r.status, r.err);
			continue;
		}
		ok = probe_aborted(&r);
		T_ASSERT_MSG(ok,
			     "%s: surand_bytes did not fail closed: status 0x%x, %zd bytes returned "
			     "(\"%.200s\")",
			     fake_names[k], r.status, r.returned, r.err);
		aborted++;
		/* surand_getrandom: -1 with ENODEV (ENOENT without /dev), as documented. */
		want = k == FAKE_NO_DEV ? ENOENT : ENODEV;
		probe(fake_prep, p_getrandom_errno, &r);
		ok = WIFEXITED(r.status) && WEXITSTATUS(r.status) == 3 && r.returned == 0 &&
		     strstr(r.err, rel_fmt("errno %d\n", want)) != NULL;
		T_ASSERT_MSG(ok, "%s: surand_getrandom: status 0x%x, %zd bytes, \"%.200s\" (want errno %d)",
			     fake_names[k], r.status, r.returned, r.err, want);
		snprintf(summary + strlen(summary), sizeof(summary) - strlen(summary), "%s%s",
			 *summary ? "; " : "", fake_names[k]);
	}
	rel_report("fallback-urandom-not-device",
		   rel_fmt("seccomp getrandom ENOSYS, private mount ns: %s: %d surand_bytes aborted, "
			   "getrandom -1/ENODEV (ENOENT); the real device bound over itself served",
			   summary, aborted),
		   ok, 0, 0, 0);
}

/* seccomp answering EACCES: the fallback serves, as for ENOSYS and EPERM. */
static void seccomp_eacces_child(void)
{
	seccomp_case(EACCES);
}

/* Returns 1 when fn(arg) returned within limit_s, 0 when it was still blocked
 * (the child is killed); *rc gets the child's exit code. */
static int returns_within(void (*fn)(void), double limit_s, int *rc)
{
	pid_t pid;
	int st;
	double t0 = rel_now();

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		fn();
		_exit(t_case_failed() ? 1 : 0);
	}
	while (rel_now() - t0 < limit_s) {
		struct timespec ts = {0, 5000000};

		if (waitpid(pid, &st, WNOHANG) == pid) {
			*rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
			return 1;
		}
		nanosleep(&ts, NULL);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	*rc = -1;
	return 0;
}

static enum surand_test_kernel_fault nr_fault;

static void insecure_16(void)
{
	uint8_t b[16], z[16] = {0};

	surand_test_kernel_fault(nr_fault);
	errno = 0;
	T_ASSERT_MSG(surand_getrandom(b, 16, SURAND_GRND_INSECURE) == 16, "errno %d", errno);
	T_ASSERT(memcmp(b, z, 16) != 0);
}

static void insecure_0(void)
{
	surand_test_kernel_fault(nr_fault);
	T_ASSERT(surand_getrandom(NULL, 0, SURAND_GRND_INSECURE) == 0);
}

static void nonblock_0(void)
{
	uint8_t b[1];

	surand_test_kernel_fault(nr_fault);
	errno = 0;
	T_ASSERT_MSG(surand_getrandom(b, 0, SURAND_GRND_NONBLOCK) == -1 && errno == EAGAIN,
		     "a zero-length GRND_NONBLOCK call before readiness: not -1/EAGAIN");
	errno = 0;
	T_ASSERT(surand_getrandom(NULL, 0, SURAND_GRND_NONBLOCK) == -1 && errno == EAGAIN);
	errno = 0;
	T_ASSERT(surand_getrandom(b, 1, SURAND_GRND_NONBLOCK) == -1 && errno == EAGAIN);
}

static void blocking_0(void)
{
	uint8_t b[1];

	surand_test_kernel_fault(nr_fault);
	(void)surand_getrandom(b, 0, 0); /* must wait: the pool never gets ready */
}

static void blocking_16(void)
{
	uint8_t b[16];

	surand_test_kernel_fault(nr_fault);
	(void)surand_getrandom(b, 16, 0);
}

/* Before readiness: what returns at once and what waits, per fault. */
static void not_ready_semantics_child(void)
{
	static const struct {
		enum surand_test_kernel_fault f;
		const char *what;
	} faults[] = {
		{SURAND_TEST_KF_URANDOM_NOT_READY, "getrandom refused, /dev/random never ready"},
		{SURAND_TEST_KF_OLD_KERNEL_NOT_READY, "kernel before 5.6 (GRND_INSECURE EINVAL), not ready"},
	};
	const double limit = rel_slow_checker() ? 20.0 : 5.0, wait_s = 0.5;
	size_t i;
	int rc, ok = 1;

	for (i = 0; i < sizeof(faults) / sizeof(faults[0]); i++) {
		nr_fault = faults[i].f;
		T_ASSERT_MSG(returns_within(insecure_16, limit, &rc) && rc == 0,
			     "%s: GRND_INSECURE, 16 bytes: %s (rc %d)", faults[i].what,
			     rc == -1 ? "still blocked" : "failed", rc);
		T_ASSERT_MSG(returns_within(insecure_0, limit, &rc) && rc == 0,
			     "%s: GRND_INSECURE, 0 bytes: rc %d", faults[i].what, rc);
		T_ASSERT_MSG(returns_within(nonblock_0, limit, &rc) && rc == 0,
			     "%s: GRND_NONBLOCK: rc %d", faults[i].what, rc);
		if (nr_fault != SURAND_TEST_KF_URANDOM_NOT_READY)
			continue; /* the old kernel's blocking call is the real, ready one */
		/* Blocking calls wait: still in the call after wait_s. */
		ok = !returns_within(blocking_0, wait_s, &rc);
		T_ASSERT_MSG(ok, "%s: a zero-length blocking call returned (rc %d)", faults[i].what, rc);
		ok = !returns_within(blocking_16, wait_s, &rc);
		T_ASSERT_MSG(ok, "%s: a blocking call returned (rc %d)", faults[i].what, rc);
	}
	rel_report("fallback-not-ready-semantics",
		   "before readiness (getrandom refused and /dev/random never ready; a pre-5.6 "
		   "kernel): GRND_INSECURE served at once, zero length EAGAIN with GRND_NONBLOCK, "
		   "0 with GRND_INSECURE, blocking calls (zero length too) wait",
		   ok, 0, 0, 0);
}

/* ---- the fallback's errors ---- */

/* -1 with errno want from each call that reports the kernel's seed errors;
 * a mismatch names the call and what it said. */
static int fallback_errno_is(int want, const char *what)
{
	uint8_t b[16];
	struct {
		const char *call;
		long r;
		int e;
	} got[4];
	int i, ok = 1;

	errno = 0;
	got[0].r = (long)surand_getrandom(b, sizeof(b), 0);
	got[0].e = errno;
	errno = 0;
	got[1].r = (long)surand_getrandom(b, sizeof(b), SURAND_GRND_NONBLOCK);
	got[1].e = errno;
	errno = 0;
	got[2].r = surand_getentropy(b, sizeof(b));
	got[2].e = errno;
	errno = 0;
	got[3].r = surand_reseed();
	got[3].e = errno;
	got[0].call = "surand_getrandom";
	got[1].call = "surand_getrandom(GRND_NONBLOCK)";
	got[2].call = "surand_getentropy";
	got[3].call = "surand_reseed";
	for (i = 0; i < 4; i++)
		if (got[i].r != -1 || got[i].e != want) {
			t_fail_at(__FILE__, __LINE__, "%s: %s returned %ld, errno %d (%s), want -1/%s",
				  what, got[i].call, got[i].r, got[i].e, strerror(got[i].e),
				  strerror(want));
			ok = 0;
		}
	return ok;
}

static void fallback_errors_child(void)
{
	int ok;

	surand_test_kernel_fault(SURAND_TEST_KF_RANDOM_POLL_ERROR);
	ok = fallback_errno_is(EIO, "poll of /dev/random reports POLLERR");
	surand_test_kernel_fault(SURAND_TEST_KF_URANDOM_READ_EOF);
	ok &= fallback_errno_is(EIO, "read of /dev/urandom returns 0");
	/* a real filter last: it stays for the rest of this process */
	surand_test_kernel_fault(SURAND_TEST_KF_NONE);
	if (rel_seccomp_refuse_getrandom(ENOSYS) != 0 || rel_seccomp_refuse(SYS_openat, EPERM) != 0) {
		if (!rel_seccomp_missing_skip())
			T_ASSERT_MSG(0, "seccomp: %s", strerror(errno));
		return;
	}
	ok &= fallback_errno_is(EPERM, "seccomp: getrandom ENOSYS, openat EPERM");
	rel_report("fallback-errors",
		   "getrandom refused; /dev/random's poll reports POLLERR, /dev/urandom reads "
		   "nothing (test hooks): EIO; seccomp refuses openat: EPERM; from getrandom "
		   "(also GRND_NONBLOCK), getentropy and reseed",
		   ok, 0, 0, 0);
}

/* ---- signals during a wait ---- */

/* Shared with the parent: handler runs, and what a call that returned said. */
struct wait_report {
	volatile long signals;
	volatile long returned, ret, err;
};
static struct wait_report *wait_rep;
static int wait_call;

static void wait_signal(int sig)
{
	(void)sig;
	wait_rep->signals++;
}

/* One blocking call (wait_call picks it) under a 1 ms SIGALRM whose handler
 * does not ask for SA_RESTART; it should never return. */
static void wait_under_signals(void)
{
	struct itimerval it = {{0, 1000}, {0, 1000}};
	struct sigaction sa;
	uint8_t b[16];
	long r = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = wait_signal;
	sigemptyset(&sa.sa_mask);
	T_ASSERT(sigaction(SIGALRM, &sa, NULL) == 0);
	surand_test_kernel_fault(SURAND_TEST_KF_URANDOM_NOT_READY);
	T_ASSERT(setitimer(ITIMER_REAL, &it, NULL) == 0);
	errno = 0;
	switch (wait_call) {
	case 0:
		r = (long)surand_getrandom(b, sizeof(b), 0);
		break;
	case 1:
		r = (long)surand_getrandom(b, 0, 0);
		break;
	case 2:
		r = surand_getentropy(b, sizeof(b));
		break;
	default:
		surand_bytes(b, sizeof(b));
		break;
	}
	wait_rep->err = errno;
	wait_rep->ret = r;
	wait_rep->returned = 1;
}

static void wait_resumes_after_signals_child(void)
{
	static const char *const calls[] = {"surand_getrandom(16)", "surand_getrandom(0)",
					    "surand_getentropy(16)", "surand_bytes(16)"};
	const double wait_s = rel_slow_checker() ? 2.0 : 0.5;
	long fewest = -1;
	int rc;

	wait_rep = mmap(NULL, sizeof(*wait_rep), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
			-1, 0);
	T_ASSERT(wait_rep != MAP_FAILED);
	for (wait_call = 0; wait_call < 4; wait_call++) {
		memset(wait_rep, 0, sizeof(*wait_rep));
		T_ASSERT_MSG(!returns_within(wait_under_signals, wait_s, &rc),
			     "%s returned during the wait (rc %d, returned %ld, value %ld, errno %ld "
			     "%s)",
			     calls[wait_call], rc, wait_rep->returned, wait_rep->ret, wait_rep->err,
			     wait_rep->err == EINTR ? "EINTR" : "");
		/* the handler did run: the wait was interrupted and resumed (TSan
		 * delays a handler to its next interception point, which a raw
		 * system call never reaches: there only the wait is checked) */
		T_ASSERT_MSG(REL_TSAN || wait_rep->signals >= 20, "%s: only %ld signals during the wait",
			     calls[wait_call], wait_rep->signals);
		if (fewest < 0 || wait_rep->signals < fewest)
			fewest = wait_rep->signals;
	}
	munmap(wait_rep, sizeof(*wait_rep));
	rel_report("fallback-wait-resumes-after-signals",
		   rel_fmt("getrandom refused, /dev/random never ready, SIGALRM every 1 ms without "
			   "SA_RESTART: getrandom (16 and 0 bytes), getentropy, surand_bytes kept "
			   "waiting %.1f s through %s signals each, never EINTR",
			   wait_s, REL_TSAN ? "TSan-deferred" : rel_fmt("at least %ld", fewest)),
		   1, 0, 0, 0);
}

/* The build folder: this binary is <build>/test/test_faults. */
static int build_dir(char *out, size_t n)
{
	ssize_t len = readlink("/proc/self/exe", out, n - 1);
	char *slash;
	int i;

	if (len <= 0)
		return -1;
	out[len] = 0;
	for (i = 0; i < 2; i++) {
		slash = strrchr(out, '/');
		if (!slash)
			return -1;
		*slash = 0;
	}
	return 0;
}

static void preload_sandbox_child(void)
{
	char dir[4000], so[4096], prog[4096], env_pl[4200], out[4096];
	char *const argv[] = {prog, "sandbox", NULL};
	char *const envp[] = {env_pl, "SURAND_PRELOAD_STATS=1", "PATH=/usr/bin:/bin", NULL};
	size_t got = 0;
	ssize_t n;
	int p[2], st, ok;
	pid_t pid;

	T_ASSERT(build_dir(dir, sizeof(dir)) == 0);
	snprintf(so, sizeof(so), "%s/libsurand-preload.so", dir);
	snprintf(prog, sizeof(prog), "%s/preload-test/pltest", dir);
	snprintf(env_pl, sizeof(env_pl), "LD_PRELOAD=%s", so);
	T_ASSERT_MSG(access(so, R_OK) == 0 && access(prog, X_OK) == 0,
		     "%s or %s missing (make %s %s)", so, prog, so, prog);
	T_ASSERT(pipe(p) == 0);
	fflush(stdout);
	pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0) {
		dup2(p[1], 1);
		dup2(p[1], 2);
		close(p[0]);
		t_execve(prog, argv, envp);
		_exit(127);
	}
	close(p[1]);
	while (got + 1 < sizeof(out) && (n = read(p[0], out + got, sizeof(out) - 1 - got)) > 0)
		got += (size_t)n;
	out[got] = 0;
	close(p[0]);
	waitpid(pid, &st, 0);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 77 && strstr(out, "SKIP seccomp filters")) {
		t_skip("seccomp filters are not available here (seccomp(2) answers ENOSYS/EINVAL)", NULL);
		return;
	}
	ok = WIFEXITED(st) && WEXITSTATUS(st) == 0 && strstr(out, "ok sandbox") &&
	     strstr(out, "; to the kernel: ") && !strstr(out, "FATAL");
	rel_report("fallback-preload-sandbox",
		   "libsurand-preload.so: /dev/urandom opened, then seccomp refuses getrandom (EPERM) "
		   "and open (ENOSYS): read, pread, readv get the kernel's bytes, getrandom and "
		   "getentropy its EPERM, no abort",
		   ok, 0, WIFSIGNALED(st) ? 1 : 0, 0);
	T_ASSERT_MSG(ok, "pltest sandbox under the preload: status 0x%x: %.600s", st, out);
}

static const struct t_child_case child_cases[] = {
	{"seccomp_enosys", seccomp_enosys_child},
	{"seccomp_eperm", seccomp_eperm_child},
	{"seccomp_other", seccomp_other_error_child},
	{"kernel_refused", kernel_refused_child},
	{"refused_after_seed", refused_after_seed_child},
	{"secmem_fail", secmem_fail_child},
	{"slab_grow_fail", slab_grow_fail_child},
	{"rlimit_as", rlimit_as_child},
	{"emfile", emfile_child},
	{"emfile_refused", emfile_refused_child},
	{"droppable", droppable_child},
	{"first_call_in_handler", first_call_in_handler_child},
	{"first_event_in_handler", first_event_in_handler_child},
	/* fallbacks that fail safe */
	{"urandom_not_device", urandom_not_device_child},
	{"seccomp_eacces", seccomp_eacces_child},
	{"not_ready_semantics", not_ready_semantics_child},
	{"fallback_errors", fallback_errors_child},
	{"wait_resumes_after_signals", wait_resumes_after_signals_child},
	{"preload_sandbox", preload_sandbox_child},
	{NULL, NULL},
};

static char no_ns_why[320];
static void skip_no_namespace(void)
{
	t_skip(no_ns_why, NULL);
}

/* The fallback cases (see their section above). */
static void fallback_cases(int valgrind)
{
	char *why = no_ns_why;

	if (valgrind) {
		printf("# under valgrind: the fallback cases run in the plain build only (no seccomp)\n");
		return;
	}
	rel_per_backend("seccomp_eacces", "seccomp_eacces", "seccomp-getrandom-EACCES", 30);
	if (fake_possible(why, sizeof(no_ns_why)))
		rel_per_backend("urandom_not_device", "urandom_not_device",
				"fallback-urandom-not-device", 30);
	else
		t_run_case("urandom_not_device", skip_no_namespace);
	rel_run_once("not_ready_semantics[thread]", "not_ready_semantics",
		     "fallback-not-ready-semantics", 60);
	rel_run_once("fallback_errors[thread]", "fallback_errors", "fallback-errors", 30);
	rel_run_once("wait_resumes_after_signals[thread]", "wait_resumes_after_signals",
		     "fallback-wait-resumes-after-signals", 60);
	/* The preload is built without the sanitizer of this binary's build. */
	if (!REL_ASAN && !REL_TSAN)
		rel_run_once("preload_sandbox[thread]", "preload_sandbox", "fallback-preload-sandbox",
			     60);
	else
		printf("# preload_sandbox: run in the plain build (tests/preload.sh too)\n");
}

int main(int argc, char **argv)
{
	int valgrind = getenv("SURAND_VALGRIND") != NULL;

	t_init(argc, argv);
	t_child_main(argc, argv, child_cases);
	T_RUN(null_buffer_aborts);
	/* valgrind implements no seccomp(2), and serialises threads so that the
	 * 380-thread signal round only times out: those cases run natively. */
	if (valgrind) {
		printf("# under valgrind: the seccomp cases and first_call_in_handler run in the "
		       "plain build only\n");
		goto unfiltered;
	}
	rel_per_backend("seccomp_enosys", "seccomp_enosys", "seccomp-getrandom-ENOSYS", 30);
	rel_per_backend("seccomp_eperm", "seccomp_eperm", "seccomp-getrandom-EPERM", 30);
	T_RUN(getrandom_other_error_passed_on);
	rel_per_backend("kernel_refused", "kernel_refused", "kernel-refused", 30);
	rel_per_backend("refused_after_seed", "refused_after_seed", "kernel-refused-after-seed", 30);
unfiltered:
	rel_per_backend("secmem_fail", "secmem_fail", "secmem-all-fail", 30);
	rel_per_backend("slab_grow_fail", "slab_grow_fail", "slab-grow-fail", 30);
	/* A sanitizer reserves terabytes of address space, valgrind maps its own
	 * tool into ours: no RLIMIT_AS there. */
	if (!REL_ASAN && !REL_TSAN && !getenv("SURAND_VALGRIND"))
		rel_per_backend("rlimit_as", "rlimit_as", "rlimit-as", 30);
	else
		printf("# rlimit_as: not run under a sanitizer or valgrind (they need the address "
		       "space); run in the plain build\n");
	rel_per_backend("emfile", "emfile", "emfile", 30);
	if (!valgrind)
		rel_per_backend("emfile_refused", "emfile_refused", "emfile-getrandom-refused", 30);
	rel_per_backend("droppable", "droppable", "droppable-pageout", 60);
	if (!valgrind)
		rel_per_backend("first_call_in_handler", "first_call_in_handler", "first-call-in-handler",
				30);
	if (!valgrind) /* the fast pools are the same for every backend: one run */
		rel_run_once("first_event_in_handler[thread]", "first_event_in_handler",
			     "first-event-in-handler", 120);
	fallback_cases(valgrind);
	return t_done();
}
