/* cli.h - the surand command's subcommands.  SPDX-License-Identifier: MIT */
#ifndef SURAND_CLI_H
#define SURAND_CLI_H

#include <stdio.h>

/* Exit statuses (sysexits.h values), documented in man/surand.1. */
#define SURAND_EX_OK 0
#define SURAND_EX_FAIL 1
#define SURAND_EX_USAGE 64
#define SURAND_EX_IOERR 74

/* tools/surand/surand.c: the exit status after writing to stdout (0, or 74 with a
 * message naming who when the write failed; a closed pipe counts as 0). */
int surand_stdout_status(const char *who);
/* tools/surand/surand.c: the message for getopt_long's '?' and ':' with the
 * options table opts: the option as the user wrote it (up to any '='; a short
 * one by its letter, even inside a bundle such as -hex) and what is wrong: it
 * is unknown, is ambiguous, takes no value or needs a value.  sub is the
 * subcommand ("wipe"), NULL for the generator. */
struct option;
void surand_opt_error(const char *sub, int c, char **argv, const struct option *opts);

/* tools/surand/surand.c: the usage of the command (--help). */
void surand_usage(FILE *f);

/* tools/surand/cmd_run.c: `surand run [--stats] CMD [ARG...]`. */
int surand_cmd_run(int argc, char **argv);
/* tools/surand/bench/cmd_bench.c: `surand bench ...` (argv[0] is "bench"). */
int surand_cmd_bench(int argc, char **argv);
/* tools/surand/bench/bench_chacha.c: `surand bench chacha ...` (argv[0] is "chacha"). */
int surand_bench_chacha(int argc, char **argv);
/* tools/surand/bench/bench_words.c: `surand bench words ...` (argv[0] is "words"), and the
 * same section after the table of `surand bench` (quick: --quick's windows);
 * 0 or 1 (the measuring process failed). */
int surand_bench_words(int argc, char **argv);
int surand_bench_words_section(int quick);
/* tools/surand/bench/bench_debate.c: `surand bench kleen|mixed ...` (argv[0] is "kleen" or "mixed"). */
int surand_bench_debate(int argc, char **argv);

/* tools/surand/cmd_gen.c: `surand [-n SIZE] [-o FILE] [-f FMT] [-j N] [--progress]` (argv[0] "surand"). */
int surand_cmd_gen(int argc, char **argv);
/* tools/surand/cmd_wipe.c: `surand wipe PATH... [options]` (argv[0] "wipe"). */
int surand_cmd_wipe(int argc, char **argv);
/* tools/surand/cmd_stats.c: `surand stats [--pid PID]`. */
int surand_cmd_stats(int argc, char **argv);
/* tools/surand/cmd_selftest.c: `surand selftest`. */
int surand_cmd_selftest(int argc, char **argv);

#endif
