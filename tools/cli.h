/* cli.h - the surand command's subcommands.  SPDX-License-Identifier: MIT */
#ifndef SURAND_CLI_H
#define SURAND_CLI_H

/* Exit statuses (sysexits.h values), documented in man/surand.1. */
#define SURAND_EX_OK 0
#define SURAND_EX_FAIL 1
#define SURAND_EX_USAGE 64
#define SURAND_EX_IOERR 74

/* tools/cmd_bench.c: `surand bench ...` (argv[0] is "bench"). */
int surand_cmd_bench(int argc, char **argv);
/* tools/bench_chacha.c: `surand bench chacha ...` (argv[0] is "chacha"). */
int surand_bench_chacha(int argc, char **argv);

#endif
