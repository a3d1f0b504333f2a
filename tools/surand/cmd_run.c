/*
 * cmd_run.c - `surand run [--stats] CMD [ARG...]`: runs CMD with the surand
 * preload (libsurand-preload.so) in LD_PRELOAD, so that its reads of
 * /dev/urandom and its getrandom()/getentropy() calls are served by surand.
 *
 * The preload is named by absolute path: a relative LD_PRELOAD entry is
 * resolved against each process's working directory, so a child that changes
 * directory would lose it.  It is found next to this program, the way it is
 * laid out both in the build tree (build/surand, build/libsurand-preload.so)
 * and once installed (PREFIX/bin/surand, PREFIX/lib/libsurand-preload.so):
 *   <dir of /proc/self/exe>/libsurand-preload.so
 *   <dir of /proc/self/exe>/../lib/libsurand-preload.so
 *   PRELOADDIR/libsurand-preload.so (the directory make install was given:
 *   a distribution's private one, /usr/lib/<triplet>/surand)
 * Other LD_PRELOAD entries are kept (after ours), the rest of the environment
 * (SURAND_* included) is passed through as it is; --stats adds
 * SURAND_PRELOAD_STATS=1 (each process prints one summary line on stderr at
 * exit).  Exit status: CMD's own; 128+N when a signal N ended it; 126 when
 * CMD cannot be run, 127 when it is not found (as a shell does); 64 usage;
 * 74 when the preload is not found.
 * SPDX-License-Identifier: MIT
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

#define RUN_PRELOAD_NAME "libsurand-preload.so"
#ifndef SURAND_PRELOADDIR
#define SURAND_PRELOADDIR "/usr/local/lib" /* make passes PRELOADDIR */
#endif
#define RUN_EX_CANNOT_EXEC 126
#define RUN_EX_NOT_FOUND 127

static const char run_usage[] =
	"usage: surand run [--stats] CMD [ARG...]\n"
	"Runs CMD with the surand preload (" RUN_PRELOAD_NAME "), named by absolute path\n"
	"in LD_PRELOAD: its reads of /dev/urandom and /dev/random and its getrandom(),\n"
	"getentropy() and arc4random() calls are served by surand.  SURAND_* variables\n"
	"pass through.  See surand-preload(7).\n"
	"  --stats    each process prints one line on stderr at exit: the bytes and calls\n"
	"             it was served (SURAND_PRELOAD_STATS=1)\n"
	"Exit status: CMD's; 128+N if signal N ended it; 126 CMD cannot be run, 127 not\n"
	"found; 64 usage error; 74 the preload library is not found.\n";

/* path := dir + "/" + rel, resolved to an absolute path; 0 if it is a regular file. */
static int candidate(const char *dir, const char *rel, char *path, size_t cap)
{
	char joined[PATH_MAX + 64];
	struct stat st;

	if ((size_t)snprintf(joined, sizeof(joined), "%s/%s", dir, rel) >= sizeof(joined))
		return -1;
	if (!realpath(joined, path) || strlen(path) >= cap)
		return -1;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) ? 0 : -1;
}

/* The preload next to this program (see the top of the file); 0 or -1. */
static int find_preload(char *path, size_t cap)
{
	char self[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		return -1;
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	if (candidate(self, RUN_PRELOAD_NAME, path, cap) == 0)
		return 0;
	if (candidate(self, "../lib/" RUN_PRELOAD_NAME, path, cap) == 0)
		return 0;
	return candidate(SURAND_PRELOADDIR, RUN_PRELOAD_NAME, path, cap);
}

int surand_cmd_run(int argc, char **argv)
{
	char lib[PATH_MAX];
	const char *old;
	char *preload;
	int i = 1, stats = 0, status;
	pid_t pid;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "--") == 0) {
			i++;
			break;
		}
		if (strcmp(argv[i], "--stats") == 0) {
			stats = 1;
		} else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			fputs(run_usage, stdout);
			return surand_stdout_status("run");
		} else {
			fprintf(stderr, "surand: run: unknown option '%s' (see surand run --help)\n",
				argv[i]);
			return SURAND_EX_USAGE;
		}
	}
	if (i >= argc) {
		fprintf(stderr, "surand: run: no command given (usage: surand run [--stats] CMD [ARG...])\n");
		return SURAND_EX_USAGE;
	}
	if (find_preload(lib, sizeof(lib)) < 0) {
		fprintf(stderr, "surand: run: %s not found next to this program, in ../lib or in %s "
				"(make builds it; make install installs it)\n", RUN_PRELOAD_NAME,
			SURAND_PRELOADDIR);
		return SURAND_EX_IOERR;
	}
	/* ours first, then whatever the caller preloads already */
	old = getenv("LD_PRELOAD");
	if (old && *old) {
		size_t len = strlen(lib) + 1 + strlen(old) + 1;

		preload = malloc(len);
		if (!preload) {
			fprintf(stderr, "surand: run: out of memory\n");
			return SURAND_EX_FAIL;
		}
		snprintf(preload, len, "%s:%s", lib, old);
	} else {
		preload = lib;
	}
	{
		int bad = setenv("LD_PRELOAD", preload, 1) != 0 ||
			  (stats && setenv("SURAND_PRELOAD_STATS", "1", 1) != 0);
		int e = errno;

		if (preload != lib)
			free(preload); /* setenv copied it */
		if (bad) {
			fprintf(stderr, "surand: run: environment: %s\n", strerror(e));
			return SURAND_EX_FAIL;
		}
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "surand: run: fork: %s\n", strerror(errno));
		return SURAND_EX_FAIL;
	}
	if (pid == 0) {
		/* the child gets the default SIGPIPE back (main() ignores it for our own writes) */
		signal(SIGPIPE, SIG_DFL);
		execvp(argv[i], argv + i);
		/* the status comes from execvp's errno, before the message can change it */
		int e = errno;

		fprintf(stderr, "surand: run: cannot run '%s': %s\n", argv[i], strerror(e));
		_exit(e == ENOENT ? RUN_EX_NOT_FOUND : RUN_EX_CANNOT_EXEC);
	}
	/* the terminal's ^C and ^\ go to CMD; we wait for it to decide */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "surand: run: waitpid: %s\n", strerror(errno));
			return SURAND_EX_FAIL;
		}
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return SURAND_EX_FAIL;
}
