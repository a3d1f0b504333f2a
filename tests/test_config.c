/*
 * test_config.c - the environment (src/config.c).
 *
 * Every variable is read with secure_getenv: in a set-user-ID or
 * set-group-ID program (the kernel's AT_SECURE) it is ignored, so an
 * unprivileged user cannot steer a privileged program's generator
 * (docs/threat-model.md, "Environment tampering").  The test runs two
 * copies of this binary as an unprivileged user with the same settings,
 * one plain and one set-group-ID, and compares what each saw.
 * SPDX-License-Identifier: MIT
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "surand.h"
#include "config.h"
#include "harness.h"

/* The user the copies run as, and a group that is neither its own nor
 * root's: the set-group-ID copy changes the effective group on exec. */
#define RUN_UID 65534
#define RUN_GID 65534
#define SGID_GID 65533

/* The settings; each differs from its default (backend thread, ceiling 60 s,
 * 10 careful reads). */
static char *const settings[] = {
	"SURAND_BACKEND=percpu",
	"SURAND_RESEED_SECS=7",
	"SURAND_TASKCRNG_READS=3",
};
#define N_SETTINGS (sizeof(settings) / sizeof(settings[0]))

/* ---- the copy's side: what it saw -------------------------------------------- */

static void report_child(void)
{
	struct surand_stats st;
	uint8_t b[16];
	const char *seen = getenv("SURAND_BACKEND");

	surand_bytes(b, sizeof(b));
	if (surand_stats(&st, sizeof(st)) != 0) {
		printf("stats failed: %s\n", strerror(errno));
		return;
	}
	printf("secure=%lu env=%s | backend=%s ceiling=%u reads=%u\n", getauxval(AT_SECURE),
	       seen ? seen : "-", st.backend, st.reseed_ceiling_s,
	       surand_design_config()->task_reads);
}

static const struct t_child_case child_cases[] = {
	{"report", report_child},
	{NULL, NULL},
};

/* ---- the test's side ----------------------------------------------------------- */

/* Copies this program to path with mode; 0 or -1. */
static int copy_self(const char *path, mode_t mode, gid_t gid)
{
	char buf[65536];
	ssize_t n;
	int in, out, ok = 1;

	in = open("/proc/self/exe", O_RDONLY);
	if (in < 0)
		return -1;
	out = open(path, O_WRONLY | O_CREAT | O_EXCL, 0700);
	if (out < 0) {
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			ok = 0;
	if (n < 0)
		ok = 0;
	close(in);
	/* chown first: it clears the set-group-ID bit. */
	if (fchown(out, 0, gid) != 0 || fchmod(out, mode) != 0)
		ok = 0;
	if (close(out) != 0)
		ok = 0;
	return ok ? 0 : -1;
}

/* Runs the copy at path as RUN_UID, with the settings or without any
 * SURAND_ variable; its line in out.  0, or -1 (why in out). */
static int run_copy(const char *path, int with_settings, char *out, size_t cap)
{
	extern char **environ;
	char *envp[256], *argv[] = {(char *)path, "--child", "report", "secure_env_ignored", NULL};
	size_t n = 0, got = 0, i;
	int p[2], st;
	ssize_t r;
	pid_t pid;

	for (i = 0; environ[i] && n < sizeof(envp) / sizeof(envp[0]) - N_SETTINGS - 1; i++)
		if (strncmp(environ[i], "SURAND_", 7) != 0 || strncmp(environ[i], "SURAND_TEST", 11) == 0 ||
		    strncmp(environ[i], "SURAND_REQUIRE_ALL", 18) == 0)
			envp[n++] = environ[i];
	for (i = 0; with_settings && i < N_SETTINGS; i++)
		envp[n++] = settings[i];
	envp[n] = NULL;
	if (pipe(p) != 0) {
		snprintf(out, cap, "pipe: %s", strerror(errno));
		return -1;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		dup2(p[1], STDOUT_FILENO);
		if (setgroups(0, NULL) != 0 || setresgid(RUN_GID, RUN_GID, RUN_GID) != 0 ||
		    setresuid(RUN_UID, RUN_UID, RUN_UID) != 0) {
			printf("dropping to %d:%d: %s\n", RUN_UID, RUN_GID, strerror(errno));
			_exit(1);
		}
		execve(path, argv, envp);
		printf("execve %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	close(p[1]);
	while (got + 1 < cap && (r = read(p[0], out + got, cap - 1 - got)) > 0)
		got += (size_t)r;
	out[got] = '\0';
	close(p[0]);
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		size_t len = strlen(out);
		snprintf(out + len, cap - len, " (status 0x%x)", pid < 0 ? -1 : st);
		return -1;
	}
	return 0;
}

/* What the copy's line says after "secure=N env=V | ": the settings in force. */
static const char *in_force(const char *line)
{
	const char *bar = strstr(line, " | ");

	return bar ? bar + 3 : line;
}

static void secure_env_ignored(void)
{
	char dir[] = "/tmp/surand-secure-XXXXXX", plain[64], sgid[64];
	char set[512] = "", dflt[512] = "", sec[512] = "", copied[160] = "";
	int rs = -1, rd = -1, rx = -1;

	if (*t_runner_prefix()) {
		t_skip("under an emulator the emulator is what is executed: a set-group-ID "
		       "bit on the target program gives no AT_SECURE", NULL);
		return;
	}
	if (geteuid() != 0) {
		t_skip("needs root to make a set-group-ID copy and run it as another user: "
		       "run the suite as root (CI does)", NULL);
		return;
	}
	T_ASSERT_MSG(mkdtemp(dir) != NULL, "mkdtemp: %s", strerror(errno));
	snprintf(plain, sizeof(plain), "%s/plain", dir);
	snprintf(sgid, sizeof(sgid), "%s/sgid", dir);
	if (chmod(dir, 0755) != 0 || copy_self(plain, 0755, 0) != 0 ||
	    copy_self(sgid, 02755, SGID_GID) != 0) {
		snprintf(copied, sizeof(copied), "copying this program into %s: %s", dir,
			 strerror(errno));
	} else {
		rs = run_copy(plain, 1, set, sizeof(set));
		rd = run_copy(plain, 0, dflt, sizeof(dflt));
		rx = run_copy(sgid, 1, sec, sizeof(sec));
	}
	unlink(plain);
	unlink(sgid);
	rmdir(dir);
	T_ASSERT_MSG(!copied[0], "%s", copied);
	T_ASSERT_MSG(rs == 0, "the plain copy with the settings: %s", set);
	T_ASSERT_MSG(rd == 0, "the plain copy without them: %s", dflt);
	T_ASSERT_MSG(rx == 0, "the set-group-ID copy: %s", sec);
	/* Not secure: every setting takes effect (so the comparison has teeth). */
	T_ASSERT_MSG(strcmp(set, "secure=0 env=percpu | backend=percpu ceiling=7 reads=3\n") == 0,
		     "the plain copy with SURAND_BACKEND=percpu SURAND_RESEED_SECS=7 "
		     "SURAND_TASKCRNG_READS=3 saw: %s", set);
	T_ASSERT_MSG(strncmp(dflt, "secure=0 env=- | ", 17) == 0, "the plain copy without them: %s",
		     dflt);
	T_ASSERT_MSG(strcmp(in_force(dflt), in_force(set)) != 0, "the settings are the defaults");
	if (strncmp(sec, "secure=0 ", 9) == 0) {
		t_skip("the set-group-ID copy got no AT_SECURE: /tmp is mounted nosuid here", NULL);
		return;
	}
	/* Secure: the variables are in its environment, and none takes effect:
	 * it runs with the defaults. */
	T_ASSERT_MSG(strncmp(sec, "secure=1 env=percpu | ", 22) == 0, "the set-group-ID copy: %s",
		     sec);
	T_ASSERT_MSG(strcmp(in_force(sec), in_force(dflt)) == 0,
		     "set-group-ID, the environment took effect: %s (the defaults: %s)", sec, dflt);
}

int main(int argc, char **argv)
{
	t_init(argc, argv);
	t_child_main(argc, argv, child_cases);
	T_RUN(secure_env_ignored);
	return t_done();
}
