/*
 * reliability.h - helpers shared by the reliability tests (test_stats_quality,
 * test_storms, test_faults, test_hygiene): the backend matrix, the load scale,
 * duplicate detection, and the machine-readable result lines that
 * scripts/reliability-table.sh turns into RELIABILITY.md:
 *
 *   RELIABILITY <name>|<load>|<result>|<dups>|<crashes>|<leaks>
 *
 * Every case that runs per backend runs in a fresh process (t_exec_child),
 * which selects the backend with surand_set_backend() before its first call.
 * Header-only (static functions); each test binary includes it once.
 * SPDX-License-Identifier: MIT
 */
#ifndef SURAND_TESTS_RELIABILITY_H
#define SURAND_TESTS_RELIABILITY_H

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "harness.h"
#include "surand.h"

#if defined(__SANITIZE_ADDRESS__)
#define REL_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define REL_ASAN 1
#endif
#endif
#ifndef REL_ASAN
#define REL_ASAN 0
#endif
#if defined(__SANITIZE_THREAD__)
#define REL_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define REL_TSAN 1
#endif
#endif
#ifndef REL_TSAN
#define REL_TSAN 0
#endif

#if REL_ASAN
#include <sanitizer/lsan_interface.h>
#endif

#define REL_MAX_BACKENDS 16
#define REL_ENV_BACKEND "SURAND_TEST_BACKEND"

/* SURAND_STRESS=1 (make stress): the full design loads; else short ones. */
static inline int rel_stress(void)
{
	const char *e = getenv("SURAND_STRESS");
	return e && strcmp(e, "1") == 0;
}

/* Under valgrind (make valgrind sets SURAND_VALGRIND=1) or a sanitizer the
 * loads shrink again: the point there is the checker, not the load. */
static inline int rel_slow_checker(void)
{
	const char *e = getenv("SURAND_VALGRIND");
	return REL_ASAN || REL_TSAN || (e && strcmp(e, "1") == 0);
}

static inline const char *rel_build_tag(void)
{
	return REL_ASAN ? "asan" : REL_TSAN ? "tsan" : getenv("SURAND_VALGRIND") ? "valgrind" : "plain";
}

/* The backend names, the default first; returns how many. */
static inline int rel_backends(char names[REL_MAX_BACKENDS][32])
{
	const char *s = surand_backend_names(), *e;
	int n = 0;

	while (s && *s && n < REL_MAX_BACKENDS) {
		size_t len;

		e = strchr(s, ',');
		len = e ? (size_t)(e - s) : strlen(s);
		if (len && len < 32) {
			memcpy(names[n], s, len);
			names[n][len] = 0;
			n++;
		}
		if (!e)
			break;
		s = e + 1;
	}
	return n;
}

/* The backend the running child case is for ("thread" when none was named). */
static inline const char *rel_backend(void)
{
	const char *b = getenv(REL_ENV_BACKEND);
	return b && *b ? b : "thread";
}

/*
 * In the child: select the backend before any other call.  A failure here
 * fails the case (the backend the name promises would not be the one tested).
 */
static inline int rel_select_backend(void)
{
	struct surand_stats st;
	const char *b = rel_backend();

	if (surand_set_backend(b) != 0) {
		t_fail_at(__FILE__, __LINE__, "surand_set_backend(%s): %s", b, strerror(errno));
		return -1;
	}
	if (surand_stats(&st, sizeof(st)) != 0 || strcmp(st.backend, b) != 0) {
		t_fail_at(__FILE__, __LINE__, "stats name backend %s, not %s", st.backend, b);
		return -1;
	}
	return 0;
}

/* A result line for the table (see the top of this file). */
static inline void rel_report(const char *name, const char *load, int ok, unsigned long long dups,
			      unsigned long long crashes, unsigned long long leaks)
{
	printf("RELIABILITY %s[%s]%s%s|%s|%s|%llu|%llu|%llu\n", name, rel_backend(),
	       strcmp(rel_build_tag(), "plain") ? " " : "",
	       strcmp(rel_build_tag(), "plain") ? rel_build_tag() : "", load, ok ? "pass" : "FAIL",
	       dups, crashes, leaks);
	fflush(stdout);
}

/* printf into a static buffer (the load column). */
static inline const char *rel_fmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline const char *rel_fmt(const char *fmt, ...)
{
	static char buf[4][256];
	static int i;
	va_list ap;

	i = (i + 1) % 4;
	va_start(ap, fmt);
	vsnprintf(buf[i], sizeof(buf[i]), fmt, ap);
	va_end(ap);
	return buf[i];
}

/*
 * Runs `child_case` (a t_child_case of this binary) once per backend, as a
 * case named "<case>[<backend>]".  When the child crashes or hangs, the result
 * line it could not print is printed here, with the crash counted.
 */
struct rel_case {
	const char *child_case;
	const char *row;  /* row name in the table */
	int timeout_s;
};
static struct rel_case rel_cur;

static inline void rel_run_child(void)
{
	int st = t_exec_child(rel_cur.child_case, rel_cur.timeout_s);

	if (st == -1)
		rel_report(rel_cur.row, "(hung: killed after the timeout)", 0, 0, 1, 0);
	else if (WIFSIGNALED(st) ||
		 (WIFEXITED(st) && WEXITSTATUS(st) > 1 && WEXITSTATUS(st) != T_CHILD_SKIPPED))
		rel_report(rel_cur.row, rel_fmt("(child died, status 0x%x)", st), 0, 0, 1, 0);
	/* A skipped child (its SKIP line says why) has no row: it ran nothing. */
}

/* Runs `child_case` once, as the case `name` (the default backend). */
static inline void rel_run_once(const char *name, const char *child_case, const char *row,
				int timeout_s)
{
	rel_cur.child_case = child_case;
	rel_cur.row = row;
	rel_cur.timeout_s = timeout_s * (rel_slow_checker() ? 6 : 1);
	t_run_case(name, rel_run_child);
}

static inline void rel_per_backend(const char *case_name, const char *child_case, const char *row,
				   int timeout_s)
{
	static char names[256][96];
	static int used;
	char b[REL_MAX_BACKENDS][32];
	int n = rel_backends(b), i;

	for (i = 0; i < n && used < 256; i++, used++) {
		snprintf(names[used], sizeof(names[used]), "%.48s[%.31s]", case_name, b[i]);
		setenv(REL_ENV_BACKEND, b[i], 1);
		rel_run_once(names[used], child_case, row, timeout_s);
	}
	unsetenv(REL_ENV_BACKEND);
}

/* ---- duplicates ------------------------------------------------------------ */

static size_t rel_rec_size;
static inline int rel_cmp(const void *a, const void *b)
{
	return memcmp(a, b, rel_rec_size);
}

/* Sorts n records of size bytes and counts records equal to their predecessor. */
static inline unsigned long long rel_count_dups(void *recs, size_t n, size_t size)
{
	unsigned long long d = 0;
	size_t i;

	rel_rec_size = size;
	qsort(recs, n, size, rel_cmp);
	for (i = 1; i < n; i++)
		if (memcmp((char *)recs + (i - 1) * size, (char *)recs + i * size, size) == 0)
			d++;
	return d;
}

/* 1 if any aligned 8-byte word of the record is zero (2^-64 per word by chance). */
static inline int rel_has_zero_word(const void *rec, size_t size)
{
	const unsigned char *p = rec;
	static const unsigned char z[8];
	size_t i;

	for (i = 0; i + 8 <= size; i += 8)
		if (memcmp(p + i, z, 8) == 0)
			return 1;
	return 0;
}

/* ---- process measurements --------------------------------------------------- */

/* A "Vm...:" field of /proc/self/status in KiB ("VmRSS", "VmSize"), or 0. */
static inline long rel_status_kib(const char *field)
{
	char line[256];
	size_t n = strlen(field);
	long kb = 0;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, field, n) == 0 && line[n] == ':' &&
		    sscanf(line + n + 1, "%ld", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* VmRSS of this process in KiB, or 0. */
static inline long rel_rss_kib(void)
{
	return rel_status_kib("VmRSS");
}

/* Open descriptors of this process. */
static inline int rel_open_fds(void)
{
	int n = 0, fd;

	for (fd = 0; fd < 4096; fd++)
		if (fcntl(fd, F_GETFD) != -1)
			n++;
	return n;
}

/* Leaks found by LeakSanitizer so far (ASan builds); 0 elsewhere. */
static inline unsigned long long rel_leaks(void)
{
#if REL_ASAN
	return __lsan_do_recoverable_leak_check() ? 1 : 0;
#else
	return 0;
#endif
}

/* ---- a real seccomp filter -------------------------------------------------- */

#if defined(__x86_64__)
#define REL_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define REL_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

/*
 * Installs a seccomp filter (PR_SET_NO_NEW_PRIVS + SECCOMP_SET_MODE_FILTER)
 * under which getrandom(2) fails with err and every other system call is
 * allowed: what a sandboxed program that predates getrandom sees.  The
 * vDSO's getrandom then fails too (it needs the system call for its key).
 * 0, or -1 with errno (ENOSYS where no filter is written for this arch).
 */
/*
 * After rel_seccomp_refuse_getrandom failed: 1, with a SKIP line naming the
 * missing feature, when this kernel offers no seccomp filters at all (ENOSYS
 * or EINVAL: built without CONFIG_SECCOMP_FILTER, or qemu's user-mode
 * emulator, which refuses them); 0 for any other reason (a real failure).
 */
static inline int rel_seccomp_missing_skip(void)
{
	if (errno != ENOSYS && errno != EINVAL)
		return 0;
	t_skip("seccomp filters are not available here (seccomp(2) answers ENOSYS/EINVAL)", NULL);
	return 1;
}

/* The same filter for any one system call nr (filters stack: each one added
 * refuses one more call).  0, or -1 with errno. */
static inline int rel_seccomp_refuse(long nr, int err)
{
#ifdef REL_AUDIT_ARCH
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, REL_AUDIT_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((unsigned)err & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {(unsigned short)(sizeof(f) / sizeof(f[0])), f};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -1;
	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0 ? -1 : 0;
#else
	(void)nr;
	(void)err;
	errno = ENOSYS;
	return -1;
#endif
}

static inline int rel_seccomp_refuse_getrandom(int err)
{
	char b;

	if (rel_seccomp_refuse(SYS_getrandom, err) != 0)
		return -1;
	/* The filter is in force: the system call itself now fails. */
	if (syscall(SYS_getrandom, &b, 1, 0) != -1 || errno != err) {
		errno = EPROTO;
		return -1;
	}
	return 0;
}

static inline double rel_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#endif
