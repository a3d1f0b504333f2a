/* harness.c - see harness.h.  SPDX-License-Identifier: MIT */
#include "harness.h"

#include <errno.h>
#include <regex.h>
#include <signal.h>
#include <sys/mman.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* How much longer a child case may take under SURAND_TEST_RUNNER. */
#define T_RUNNER_SLOWDOWN 4

static const char *t_prog = "test";
static int t_passed, t_failed, t_skipped;
static int t_cur_failed, t_cur_skipped;
static const char *t_cur_name;
static int t_require_all;

void t_init(int argc, char **argv)
{
	const char *p, *env;

	(void)argc;
	if (argv && argv[0]) {
		p = strrchr(argv[0], '/');
		t_prog = p ? p + 1 : argv[0];
	}
	env = getenv("SURAND_REQUIRE_ALL");
	t_require_all = env && strcmp(env, "1") == 0;
	setvbuf(stdout, NULL, _IOLBF, 0);
}

int t_quick(void)
{
	const char *env = getenv("SURAND_TEST_QUICK");
	return env && strcmp(env, "1") == 0;
}

void t_fail_at(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	if (t_cur_failed)
		return;
	t_cur_failed = 1;
	printf("FAIL %s/%s: %s:%d: ", t_prog, t_cur_name ? t_cur_name : "?", file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* SURAND_SKIP_ALLOWED (scripts/run-tests.sh): a skip whose reason matches
 * it stays a skip under SURAND_REQUIRE_ALL=1 (an emulator's missing feature). */
static int t_skip_allowed(const char *why)
{
	const char *pat = getenv("SURAND_SKIP_ALLOWED");
	regex_t re;
	int ok;

	if (!pat || !*pat || regcomp(&re, pat, REG_EXTENDED | REG_NOSUB) != 0)
		return 0;
	ok = regexec(&re, why, 0, NULL, 0) == 0;
	regfree(&re);
	return ok;
}

void t_skip(const char *why, const char *apt_pkg)
{
	t_cur_skipped = 1;
	if (t_require_all && !t_skip_allowed(why)) {
		printf("FAIL %s/%s: skipped under SURAND_REQUIRE_ALL=1: %s%s%s%s\n", t_prog,
		       t_cur_name, why, apt_pkg ? " (apt-get install " : "", apt_pkg ? apt_pkg : "",
		       apt_pkg ? ")" : "");
		t_cur_failed = 1;
		return;
	}
	printf("SKIP %s/%s: %s%s%s%s\n", t_prog, t_cur_name, why,
	       apt_pkg ? " (apt-get install " : "", apt_pkg ? apt_pkg : "", apt_pkg ? ")" : "");
}

int t_case_failed(void)
{
	return t_cur_failed;
}

void t_fail_silent(void)
{
	t_cur_failed = 1;
}

void t_run_case(const char *name, void (*fn)(void))
{
	t_cur_name = name;
	t_cur_failed = 0;
	t_cur_skipped = 0;
	fflush(stdout);
	fn();
	if (t_cur_failed)
		t_failed++;
	else if (t_cur_skipped)
		t_skipped++;
	else {
		t_passed++;
		printf("PASS %s/%s\n", t_prog, name);
	}
	fflush(stdout);
	t_cur_name = NULL;
}

const char *t_runner_prefix(void);

/* Waits for pid at most timeout_s and turns its fate into the case's result. */
static int t_wait_child(pid_t pid, const char *what, int timeout_s)
{
	struct timespec ts = {0, 2000000};
	int status = 0, waited_ms = 0;

	/* Under an emulator (SURAND_TEST_RUNNER) every instruction is
	 * translated: the same work takes several times as long. */
	if (*t_runner_prefix())
		timeout_s *= T_RUNNER_SLOWDOWN;

	while (waitpid(pid, &status, WNOHANG) != pid) {
		if (waited_ms >= timeout_s * 1000) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			t_fail_at(__FILE__, __LINE__, "child %s hung for more than %d s (deadlock?)",
				  what, timeout_s);
			return -1;
		}
		nanosleep(&ts, NULL);
		waited_ms += 2;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 1)
		t_fail_silent(); /* the child printed its FAIL line */
	else if (WIFEXITED(status) && WEXITSTATUS(status) == T_CHILD_SKIPPED)
		t_cur_skipped = 1; /* the child printed its SKIP line */
	else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		t_fail_at(__FILE__, __LINE__, "child %s died (status 0x%x)", what, status);
	return status;
}

int t_in_child(void (*fn)(void), int timeout_s)
{
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		t_fail_at(__FILE__, __LINE__, "fork failed");
		return -1;
	}
	if (pid == 0) {
		fn();
		fflush(stdout);
		_exit(t_cur_failed ? 1 : t_cur_skipped ? T_CHILD_SKIPPED : 0);
	}
	return t_wait_child(pid, "(forked)", timeout_s);
}

int t_exec_child(const char *name, int timeout_s)
{
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		t_fail_at(__FILE__, __LINE__, "fork failed");
		return -1;
	}
	if (pid == 0) {
		/* The path readlink gives, not /proc/self/exe itself: under valgrind
		 * that is the tool's binary, while readlink is answered with ours. */
		char exe[4096];
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

		exe[n > 0 ? n : 0] = 0;
		char *const args[] = { (char *)t_prog, "--child", (char *)name, (char *)t_cur_name, NULL };
		extern char **environ;

		exe[n > 0 ? n : 0] = 0;
		t_execve(n > 0 ? exe : "/proc/self/exe", args, environ);
		_exit(127);
	}
	return t_wait_child(pid, name, timeout_s);
}

#define T_RUNNER_MAX_ARGS 16

int t_execve(const char *path, char *const argv[], char *const envp[])
{
	const char *runner = getenv("SURAND_TEST_RUNNER");
	char buf[1024], self[4096], *args[T_RUNNER_MAX_ARGS + 64], *tok, *save = NULL;
	size_t n = 0, i;
	ssize_t len;

	if (!runner || !*runner)
		return execve(path, argv, envp);
	/* The runner's own /proc/self/exe would be the emulator: pass the
	 * program's path (the emulator answers this readlink with it). */
	if (strcmp(path, "/proc/self/exe") == 0) {
		len = readlink(path, self, sizeof(self) - 1);
		if (len <= 0)
			return -1;
		self[len] = 0;
		path = self;
	}
	/* "qemu-aarch64-static [-L dir]": split on spaces, then "-0 argv[0]"
	 * (qemu's option for the program's own argv[0]), the path, the rest. */
	snprintf(buf, sizeof(buf), "%s", runner);
	for (tok = strtok_r(buf, " ", &save); tok && n < T_RUNNER_MAX_ARGS; tok = strtok_r(NULL, " ", &save))
		args[n++] = tok;
	if (argv[0]) {
		args[n++] = "-0";
		args[n++] = argv[0];
	}
	args[n++] = (char *)path;
	for (i = 1; argv[0] && argv[i] && n < sizeof(args) / sizeof(args[0]) - 1; i++)
		args[n++] = argv[i];
	args[n] = NULL;
	return execve(args[0], args, envp);
}

const char *t_runner_prefix(void)
{
	static char prefix[1024];
	const char *runner = getenv("SURAND_TEST_RUNNER");

	if (!runner || !*runner)
		return "";
	snprintf(prefix, sizeof(prefix), "%s ", runner);
	return prefix;
}

int t_madvise_ignored(void)
{
#ifdef MADV_WIPEONFORK
	char line[512];
	unsigned long lo, hi, a;
	int in = 0, ignored = 0;
	void *page;
	FILE *f;

	/* No fork here (an emulator may hang a child forked beside threads):
	 * the kernel lists an applied advice as "wf" in the mapping's VmFlags. */
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		return 0;
	a = (unsigned long)page;
	f = madvise(page, 4096, MADV_WIPEONFORK) == 0 ? fopen("/proc/self/smaps", "r") : NULL;
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && line[0] != ' ' &&
		    strncmp(line, "VmFlags", 7) != 0)
			in = a >= lo && a < hi;
		else if (in && strncmp(line, "VmFlags:", 8) == 0) {
			ignored = strstr(line, " wf") == NULL;
			break;
		}
	}
	if (f)
		fclose(f);
	munmap(page, 4096);
	return ignored;
#else
	return 0;
#endif
}

int t_wipeonfork_ignored_skip(void)
{
	if (!t_madvise_ignored())
		return 0;
	t_skip("MADV_WIPEONFORK is accepted but not honoured here (an emulator that "
	       "ignores madvise): no wipe-on-fork memory to test", NULL);
	return 1;
}

void t_strip_runner_lines(char *text)
{
	char *line = text, *end;

	if (!*t_runner_prefix())
		return;
	while (*line) {
		end = strchr(line, '\n');
		end = end ? end + 1 : line + strlen(line);
		if (strncmp(line, "qemu: ", 6) == 0)
			memmove(line, end, strlen(end) + 1);
		else
			line = end;
	}
}

int t_child_main(int argc, char **argv, const struct t_child_case *cases)
{
	if (argc < 4 || strcmp(argv[1], "--child") != 0)
		return -1;
	t_cur_name = argv[3];
	for (; cases->name; cases++)
		if (strcmp(cases->name, argv[2]) == 0) {
			cases->fn();
			fflush(stdout);
			_exit(t_cur_failed ? 1 : t_cur_skipped ? T_CHILD_SKIPPED : 0);
		}
	printf("FAIL %s/%s: no child case %s\n", t_prog, argv[3], argv[2]);
	_exit(1);
}

int t_done(void)
{
	return t_failed ? 1 : 0;
}

int t_all_zero(const void *p, size_t len)
{
	const volatile unsigned char *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		if (b[i])
			return 0;
	return 1;
}

int t_random_looking(const void *p, size_t len)
{
	const volatile unsigned char *b = p;
	size_t i, zeros = 0;

	for (i = 0; i < len; i++)
		zeros += b[i] == 0;
	return zeros <= 2;
}

size_t t_memdiff(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;
	size_t i;

	for (i = 0; i < n; i++)
		if (x[i] != y[i])
			return i;
	return (size_t)-1;
}

static int t_nib(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

long t_hex(const char *hex, uint8_t *out, size_t cap)
{
	size_t n = 0;
	int hi = -1, v;

	for (; *hex; hex++) {
		if (*hex == ' ' || *hex == '\n' || *hex == '\t' || *hex == ':')
			continue;
		v = t_nib((unsigned char)*hex);
		if (v < 0)
			return -1;
		if (hi < 0) {
			hi = v;
		} else {
			if (n >= cap)
				return -1;
			out[n++] = (uint8_t)(hi << 4 | v);
			hi = -1;
		}
	}
	return hi < 0 ? (long)n : -1;
}

uint64_t t_rand64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void t_randbytes(uint64_t *s, void *buf, size_t len)
{
	unsigned char *p = buf;
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < len; i++) {
		if ((i & 7) == 0)
			v = t_rand64(s);
		p[i] = (unsigned char)v;
		v >>= 8;
	}
}

const char *const t_fork_names[T_FORK_WAYS] = {"fork()", "_Fork()", "clone(SIGCHLD)"};

int t_fork_by(enum t_fork_way way)
{
	switch (way) {
	case T_FORK_FORK:
		return fork();
	case T_FORK_UFORK:
		return _Fork();
	case T_FORK_CLONE:
		/* The argument order after flags differs by architecture; with
		 * every pointer 0 both orders mean the same. */
		return (int)syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
	default:
		errno = EINVAL;
		return -1;
	}
}

double t_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
