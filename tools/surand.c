/*
 * surand.c - the surand command: random bytes (the default), and the
 * subcommands wipe, stats, selftest and bench.  Exit statuses (cli.h,
 * man/surand.1): 0 success, 1 a failed check, 64 usage, 74 I/O error.
 * SPDX-License-Identifier: MIT
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "surand.h"

/* Exit status after printing to stdout: a closed pipe is no error (see the generator). */
static int flushed(void)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return SURAND_EX_OK;
	if (errno == EPIPE)
		return SURAND_EX_OK;
	fprintf(stderr, "surand: write to standard output: %s\n", strerror(errno));
	return SURAND_EX_IOERR;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: surand [-n SIZE] [-o FILE] [-f raw|hex|base64|uuid] [-j THREADS] [--progress]\n"
		"       surand wipe PATH [--passes N] [--verify] [--progress]\n"
		"       surand stats | selftest | bench [...] | --help | --version\n"
		"\n"
		"Writes SIZE random bytes from the surand generator to standard output or FILE.\n"
		"  -n, --size SIZE      bytes (uuid: UUIDs); suffixes K M G T (KiB MiB GiB TiB,\n"
		"                       powers of 1024), kB MB GB TB (powers of 1000); 'inf' runs\n"
		"                       until the reader goes away.  Default 32 (uuid: 1).\n"
		"  -o, --output FILE    write to FILE (created with mode 0600; '-' is stdout)\n"
		"  -f, --format FMT     raw (default), hex (one line), base64 (76-column lines),\n"
		"                       uuid (RFC 9562 version 4, one per line); on a terminal\n"
		"                       without -o the default is hex\n"
		"  -j, --threads N      generate with N threads (1 to 256, default 1)\n"
		"      --progress       show progress on stderr (default: when it is a terminal)\n"
		"\n"
		"  wipe PATH            overwrite a regular file or block device in place with random\n"
		"                       bytes, fsync each pass; --passes N (default 1); --verify reads\n"
		"                       it back and compares with the last pass\n"
		"  stats                draw a little, print the library's counters\n"
		"  selftest             known-answer tests of every ChaCha20 body; exit 1 on a failure\n"
		"  bench                benchmark (surand bench --help)\n"
		"\n"
		"Exit status: 0 ok, 1 a failed check, 64 usage error, 74 I/O error.  See surand(1).\n");
}

int main(int argc, char **argv)
{
	const char *cmd = argc >= 2 ? argv[1] : NULL;

	/* a closed pipe is an EPIPE write error, handled as the normal end of output */
	signal(SIGPIPE, SIG_IGN);
	if (cmd && strcmp(cmd, "bench") == 0)
		return surand_cmd_bench(argc - 1, argv + 1);
	if (cmd && strcmp(cmd, "wipe") == 0)
		return surand_cmd_wipe(argc - 1, argv + 1);
	if (cmd && strcmp(cmd, "stats") == 0)
		return surand_cmd_stats(argc - 1, argv + 1);
	if (cmd && strcmp(cmd, "selftest") == 0)
		return surand_cmd_selftest(argc - 1, argv + 1);
	if (cmd && (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 ||
		    strcmp(cmd, "help") == 0)) {
		usage(stdout);
		return flushed();
	}
	if (cmd && (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0)) {
		printf("surand %s\n", SURAND_VERSION_STRING);
		return flushed();
	}
	return surand_cmd_gen(argc, argv);
}
