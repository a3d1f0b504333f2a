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
/* tools/bench_debate.c: `surand bench kleen|mixed ...` (argv[0] is "kleen" or "mixed"). */
int surand_bench_debate(int argc, char **argv);

/* tools/cmd_gen.c: `surand [-n SIZE] [-o FILE] [-f FMT] [-j N] [--progress]` (argv[0] "surand"). */
int surand_cmd_gen(int argc, char **argv);
/* tools/cmd_wipe.c: `surand wipe PATH [--passes N] [--verify] [--progress]` (argv[0] "wipe"). */
int surand_cmd_wipe(int argc, char **argv);
/* tools/cmd_stats.c: `surand stats`. */
int surand_cmd_stats(int argc, char **argv);
/* tools/cmd_selftest.c: `surand selftest`. */
int surand_cmd_selftest(int argc, char **argv);

#endif
