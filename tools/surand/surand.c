/*
 * surand.c - the surand command: random bytes (the default), and the
 * subcommands run, wipe, stats, selftest and bench.  Exit statuses (cli.h,
 * man/surand.1): 0 success, 1 a failed check, 64 usage, 74 I/O error.
 * SPDX-License-Identifier: MIT
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "stdfds.h"
#include "cli.h"
#include "surand.h"

/* Exit status after printing to stdout: a closed pipe is no error (see the generator). */
int surand_stdout_status(const char *who)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return SURAND_EX_OK;
	if (errno == EPIPE)
		return SURAND_EX_OK;
	fprintf(stderr, "surand: %s%swrite to standard output: %s\n", who ? who : "",
		who ? ": " : "", errno ? strerror(errno) : "error");
	return SURAND_EX_IOERR;
}

/* The long options whose names start with the len bytes of name: 0, 1, or 2
 * for more than one (an exact match counts alone); *hit is the last one. */
static int long_matches(const struct option *opts, const char *name, size_t len,
			const struct option **hit)
{
	int n = 0;

	*hit = NULL;
	for (const struct option *o = opts; o->name; o++) {
		if (strncmp(o->name, name, len) != 0)
			continue;
		if (strlen(o->name) == len) {
			*hit = o;
			return 1;
		}
		*hit = o;
		n++;
	}
	return n > 1 ? 2 : n;
}

void surand_opt_error(const char *sub, int c, char **argv, const struct option *opts)
{
	char opt[3] = {'-', (char)optopt, '\0'};
	const char *arg = argv[optind - 1], *name = opt, *what = "is unknown";
	int len = 2;

	if (c == ':') {
		/* getopt moved past the option that lacks its value: as given, -n or --size */
		name = arg;
		len = (int)strlen(arg);
		what = "needs a value";
	} else if (strncmp(arg, "--", 2) == 0 && arg[2]) {
		/* a long option: unknown, ambiguous, or given a value it does not take;
		 * named as written, up to any '=' */
		const struct option *o;
		size_t n = strcspn(arg + 2, "=");
		int m = long_matches(opts, arg + 2, n, &o);

		if (m == 1 && optopt == o->val && o->has_arg == no_argument && arg[2 + n] == '=') {
			what = "takes no value";
		} else if (m == 2 && optopt == 0) {
			what = "is ambiguous";
		} else if (optopt != 0) {
			/* an unknown short option inside a later bundle (-hex): getopt
			 * has not moved past it, and arg is the argument before */
			goto short_opt;
		}
		name = arg;
		len = n ? (int)(2 + n) : (int)strlen(arg); /* "--=x" whole */
	} else {
short_opt:
		/* a short option, alone or inside a bundle such as -hex: by its letter */
		if (optopt <= ' ' || optopt >= 127) {
			name = arg;
			len = (int)strlen(arg);
		}
	}
	fprintf(stderr, "surand: %s%soption '%.*s' %s (see surand%s%s --help)\n", sub ? sub : "",
		sub ? ": " : "", len, name, what, sub ? " " : "", sub ? sub : "");
}

void surand_usage(FILE *f)
{
	fprintf(f,
		"usage: surand [-n SIZE | SIZE] [-o FILE] [-f raw|hex|base64|uuid] [-j THREADS] [--progress]\n"
		"       surand run [--stats] CMD [ARG...]\n"
		"       surand wipe PATH... [--passes N] [--verify] [--zero] [--remove] [--yes] [--progress]\n"
		"       surand stats | selftest | bench [...] | --help | --version\n"
		"\n"
		"Writes SIZE random bytes from the surand generator to standard output or FILE.\n"
		"  -n, --size SIZE      bytes (uuid: UUIDs), also as the one operand (surand 32);\n"
		"                       suffixes K k KiB M MiB G GiB T TiB (powers of 1024), kB KB\n"
		"                       MB GB TB (powers of 1000); 'inf' runs until the reader\n"
		"                       goes away.  Default 32 (uuid: 1).\n"
		"  -o, --output FILE    write to FILE (created with mode 0600; '-' is stdout)\n"
		"  -f, --format FMT     raw (default), hex (one line), base64 (76-column lines),\n"
		"                       uuid (RFC 9562 version 4, one per line); on a terminal\n"
		"                       without -o the default is hex\n"
		"  -j, --threads N      generate with N threads (1 to 256, default 1; 0: one per\n"
		"                       online CPU)\n"
		"      --progress       show progress on stderr (default: when it is a terminal)\n"
		"  -h, --help           this help; -V, --version: the version (either anywhere\n"
		"                       among the options)\n"
		"\n"
		"  run CMD [ARG...]     run CMD with the surand preload (surand run --help)\n"
		"  wipe PATH...         overwrite regular files or block devices in place with random\n"
		"                       bytes (surand wipe --help)\n"
		"  stats                the library's counters in this surand process (surand stats --help)\n"
		"  selftest             known-answer tests of every ChaCha20 body; exit 1 on a failure\n"
		"  bench                benchmark (surand bench --help)\n"
		"\n"
		"Exit status: 0 ok, 1 a failed check, 64 usage error, 74 I/O error (standard output\n"
		"included); surand run: CMD's own.  See surand(1).\n");
}

/* Runs one subcommand; then, unless it already failed on I/O, checks what it
 * printed reached standard output (exit 74 when not: `surand selftest
 * >/dev/full` must not say 0). */
static int sub(int (*fn)(int, char **), const char *name, int argc, char **argv)
{
	int rc = fn(argc, argv), out;

	if (rc == SURAND_EX_IOERR)
		return rc;
	out = surand_stdout_status(name);
	return out != SURAND_EX_OK ? out : rc;
}

int main(int argc, char **argv)
{
	const char *cmd = argc >= 2 ? argv[1] : NULL;

	/* before any open(2): a closed 0-2 must not become the output file */
	if (surand_stdfds_reserve() != 0) {
		fprintf(stderr, "surand: cannot open /dev/null: %s\n", strerror(errno));
		return SURAND_EX_IOERR;
	}
	/* a closed pipe is an EPIPE write error, handled as the normal end of output */
	signal(SIGPIPE, SIG_IGN);
	if (cmd && strcmp(cmd, "bench") == 0)
		return sub(surand_cmd_bench, cmd, argc - 1, argv + 1);
	if (cmd && strcmp(cmd, "run") == 0)
		return surand_cmd_run(argc - 1, argv + 1); /* CMD's status, CMD's stdout */
	if (cmd && strcmp(cmd, "wipe") == 0)
		return sub(surand_cmd_wipe, cmd, argc - 1, argv + 1);
	if (cmd && strcmp(cmd, "stats") == 0)
		return sub(surand_cmd_stats, cmd, argc - 1, argv + 1);
	if (cmd && strcmp(cmd, "selftest") == 0)
		return sub(surand_cmd_selftest, cmd, argc - 1, argv + 1);
	if (cmd && strcmp(cmd, "help") == 0) {
		surand_usage(stdout);
		return surand_stdout_status(NULL);
	}
	/* the generator's options include --help and --version, anywhere among them */
	return sub(surand_cmd_gen, NULL, argc, argv);
}
