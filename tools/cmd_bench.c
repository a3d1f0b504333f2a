/*
 * cmd_bench.c - `surand bench`: the 2015 debate's micro-benchmark (many threads
 * reading random bytes at once), every surand backend against the system's
 * generators, side by side.  docs/bench.md explains the output.
 *
 *   surand bench [--backends LIST] [--sources LIST] [--sizes LIST]
 *                [--threads LIST] [--seconds S] [--rounds N] [--quick]
 *                [--csv FILE] [--json FILE] [--plot FILE.png] [--list]
 *   surand bench chacha [...]     the ChaCha20 bodies alone
 *
 * Each source runs in its own child process, forked before that process
 * makes any surand call: a surand backend is chosen once per process
 * (surand_set_backend in the child), and no source inherits another's
 * threads, caches of state or locks.  The parent only plans, collects the
 * children's result lines through a pipe, and prints.
 *
 * --rounds N runs the whole plan N times, source after source in each round,
 * and keeps each cell's best round (the most calls per second): on a shared
 * machine noise only ever slows a cell down, and interleaving the rounds
 * spreads a slow spell over every source instead of one.  A cell that fails
 * in any round fails.
 *
 * Exit status: 0; 1 when a source failed (its process died, a call returned
 * an error, a buffer was not written, its per-thread setup failed); a cell
 * the machine could not run (threads could not start, no call completed in
 * a very short window) is reported, not failed; 64 for bad input, before
 * any work; 74 when an output file cannot be written.
 *
 * This file reads the command line into the plan and runs the steps; each
 * step is its own file (bench_cmd.h): bench_plan.c (the plan, reading the
 * results), bench_run.c (the children), bench_report.c (the text report),
 * bench_export.c (CSV and JSON), bench_plot.c (the charts).
 * SPDX-License-Identifier: MIT
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <gnu/libc-version.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "bench_cmd.h"
#include "cli.h"
#include "internal.h"
#include "parse.h"
#include "surand.h"

static const char usage_text[] =
	"usage: surand bench [--backends LIST] [--sources LIST] [--sizes LIST] [--threads LIST]\n"
	"                    [--seconds S] [--rounds N] [--quick] [--csv FILE] [--json FILE]\n"
	"                    [--plot FILE.png]\n"
	"       surand bench --list        the backends and sources, and which are absent here\n"
	"       surand bench chacha        the ChaCha20 bodies alone\n"
	"       surand bench words         integer draws in tight loops (inline, call, Rust, bulk)\n"
	"       surand bench kleen         Kleen's 2015 comparison of the pool designs\n"
	"       surand bench mixed         a careful reader beside abuser threads, every design\n"
	"LIST is comma-separated.  Sources: surand (the default backend), any backend name,\n"
	"surand-bytes, add-event, bare, vdso, getrandom, urandom, arc4random, rust-rand,\n"
	"libbsd, openssl-rand, openssl-chacha, sodium.\n"
	"Defaults: every backend and source; sizes 4,8,16,32,64,256,4096,65536 (the suffixes\n"
	"of surand -n, 1 B to 16 MiB) and 1..32 for surand-bytes on 1 thread; threads\n"
	"1,2,4,nproc,4*nproc,64 (1..4096); 0.5 s per cell.\n"
	"--quick: surand, surand-bytes, add-event, bare, vdso, getrandom, urandom, arc4random,\n"
	"rust-rand, libbsd, openssl-chacha, legacy; sizes 4,8,16,4096,65536 (surand-bytes\n"
	"1..32); threads 1,2,64 for the surand backends, 1 (and 2 for bare) for the peers;\n"
	"0.15 s per cell.  Explicit options override --quick.\n"
	"--rounds N (1..20, default 1): the whole plan N times, each cell's best round kept.\n";

/* ---- the command ------------------------------------------------------------------------- */

static int opt_value(int argc, char **argv, int *i, const char *name, const char **val)
{
	size_t l = strlen(name);
	if (strncmp(argv[*i], name, l) != 0)
		return 0;
	if (argv[*i][l] == '=') {
		*val = argv[*i] + l + 1;
		return 1;
	}
	if (argv[*i][l] != 0)
		return 0;
	if (*i + 1 >= argc) {
		usage_error("%s needs a value", name);
		*val = NULL;
		return 1;
	}
	*val = argv[++*i];
	return 1;
}

static FILE *open_out(const char *path)
{
	FILE *f = fopen(path, "w");
	if (!f)
		fprintf(stderr, "surand bench: cannot write %s: %s\n", path, strerror(errno));
	return f;
}

int surand_cmd_bench(int argc, char **argv)
{
	static struct plan plan;
	struct plan *p = &plan;
	const char *o_backends = NULL, *o_sources = NULL, *o_sizes = NULL, *o_threads = NULL;
	const char *o_seconds = NULL, *o_rounds = NULL, *o_csv = NULL, *o_json = NULL, *o_plot = NULL;
	int quick = 0, list = 0;
	char items[MAX_LIST][48];
	unsigned n;

	if (argc >= 2 && strcmp(argv[1], "chacha") == 0)
		return surand_bench_chacha(argc - 1, argv + 1); /* tools/bench_chacha.c */
	if (argc >= 2 && strcmp(argv[1], "words") == 0)
		return surand_bench_words(argc - 1, argv + 1); /* tools/bench_words.c */
	if (argc >= 2 && (strcmp(argv[1], "kleen") == 0 || strcmp(argv[1], "mixed") == 0 ||
			  strcmp(argv[1], "__debate-cell") == 0))
		return surand_bench_debate(argc - 1, argv + 1); /* tools/bench_debate.c */

	memset(p, 0, sizeof(*p));
	{
		size_t off = (size_t)snprintf(p->command, sizeof(p->command), "surand");
		for (int i = 0; i < argc && off < sizeof(p->command); i++)
			off += (size_t)snprintf(p->command + off, sizeof(p->command) - off, " %s",
						argv[i]);
	}
	for (int i = 1; i < argc && !usage_failed; i++) {
		const char *v = NULL;
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(usage_text, stdout);
			return SURAND_EX_OK;
		} else if (!strcmp(argv[i], "--quick")) {
			quick = 1;
		} else if (!strcmp(argv[i], "--list")) {
			list = 1;
		} else if (opt_value(argc, argv, &i, "--backends", &v)) {
			o_backends = v;
		} else if (opt_value(argc, argv, &i, "--sources", &v)) {
			o_sources = v;
		} else if (opt_value(argc, argv, &i, "--sizes", &v)) {
			o_sizes = v;
		} else if (opt_value(argc, argv, &i, "--threads", &v)) {
			o_threads = v;
		} else if (opt_value(argc, argv, &i, "--seconds", &v)) {
			o_seconds = v;
		} else if (opt_value(argc, argv, &i, "--rounds", &v)) {
			o_rounds = v;
		} else if (opt_value(argc, argv, &i, "--csv", &v)) {
			o_csv = v;
		} else if (opt_value(argc, argv, &i, "--json", &v)) {
			o_json = v;
		} else if (opt_value(argc, argv, &i, "--plot", &v)) {
			o_plot = v;
		} else {
			usage_error("unknown option '%s'", argv[i]);
		}
	}
	if (usage_failed)
		return SURAND_EX_USAGE;

	/* the backends of this build, from the library itself */
	if (split_list(surand_backend_names(), p->backends, MAX_LIST, &p->nbackends,
		       "backend") != 0)
		return SURAND_EX_FAIL;
	p->ncpu = cpu_count();

	/* sources */
	if (o_backends) {
		if (split_list(o_backends, items, MAX_LIST, &n, "backend") != 0)
			return SURAND_EX_USAGE;
		for (unsigned i = 0; i < n; i++) {
			if (!strcmp(items[i], "all")) {
				for (unsigned b = 0; b < p->nbackends; b++)
					add_run(p, p->backends[b]);
			} else if (is_backend(p, items[i])) {
				add_run(p, items[i]);
			} else {
				usage_error("unknown backend '%s' (backends: %s)", items[i],
					    surand_backend_names());
				return SURAND_EX_USAGE;
			}
		}
	}
	if (o_sources) {
		if (split_list(o_sources, items, MAX_LIST, &n, "source") != 0)
			return SURAND_EX_USAGE;
		for (unsigned i = 0; i < n; i++) {
			if (!strcmp(items[i], "surand")) {
				add_run(p, p->backends[0]);
			} else if (is_backend(p, items[i]) || bench_find_system_source(items[i])) {
				add_run(p, items[i]);
			} else {
				char known[1024];
				list_sources_text(known, sizeof(known), p);
				usage_error("unknown source '%s' (sources: %s)", items[i], known);
				return SURAND_EX_USAGE;
			}
		}
	}
	if (!o_backends && !o_sources) {
		if (quick) {
			static const char *const q[] = {"surand-bytes", "add-event", "bare", "vdso",
							"getrandom", "urandom", "arc4random",
							"rust-rand", "libbsd", "openssl-chacha",
							"legacy", "legacy-spin"};
			add_run(p, p->backends[0]);
			for (size_t i = 0; i < sizeof(q) / sizeof(q[0]); i++)
				if (strcmp(q[i], "legacy-spin") != 0 || is_backend(p, q[i]))
					add_run(p, q[i]);
		} else {
			for (unsigned b = 0; b < p->nbackends; b++)
				add_run(p, p->backends[b]);
			for (unsigned s = 0; bench_system_sources[s].name; s++)
				add_run(p, bench_system_sources[s].name);
		}
	}
	order_runs(p);

	/* sizes */
	if (o_sizes) {
		if (split_list(o_sizes, items, MAX_LIST, &n, "size") != 0)
			return SURAND_EX_USAGE;
		for (unsigned i = 0; i < n; i++) {
			size_t s;
			int r = parse_size(items[i], &s);
			if (r == -1) {
				usage_error("size '%s' is not a size (%s)", items[i], SURAND_SIZE_HELP);
				return SURAND_EX_USAGE;
			}
			if (r == -2) {
				usage_error("size '%s' is out of range (1 B to 16 MiB)", items[i]);
				return SURAND_EX_USAGE;
			}
			p->sizes[p->nsizes++] = s;
		}
	} else {
		/* the main sizes; the small-size sweep adds 1..32 (plan_cells) */
		static const size_t full[] = {4, 8, 16, 32, 64, 256, 4096, 65536},
				    q[] = {4, 8, 16, 4096, 65536};
		const size_t *src = quick ? q : full;
		size_t cnt = quick ? sizeof(q) / sizeof(q[0]) : sizeof(full) / sizeof(full[0]);
		int sweep = 0;
		for (size_t i = 0; i < cnt; i++)
			p->sizes[p->nsizes++] = src[i];
		for (unsigned i = 0; i < p->nruns; i++)
			sweep |= strcmp(p->runs[i].name, "surand-bytes") == 0;
		/* duplicates of the main sizes go below */
		for (size_t s = 1; sweep && !o_threads && !o_sources && !o_backends && s <= SWEEP_MAX;
		     s++)
			p->sizes[p->nsizes++] = s;
	}
	qsort(p->sizes, p->nsizes, sizeof(p->sizes[0]), cmp_size);
	n = 0;
	for (unsigned i = 0; i < p->nsizes; i++)
		if (i == 0 || p->sizes[i] != p->sizes[n - 1])
			p->sizes[n++] = p->sizes[i];
	p->nsizes = n;

	/* threads */
	if (o_threads) {
		if (split_list(o_threads, items, MAX_LIST, &n, "thread") != 0)
			return SURAND_EX_USAGE;
		for (unsigned i = 0; i < n; i++) {
			char *end;
			unsigned long t;
			errno = 0;
			t = isdigit((unsigned char)items[i][0]) ? strtoul(items[i], &end, 10) : 0;
			if (!isdigit((unsigned char)items[i][0]) || *end || errno) {
				usage_error("thread count '%s' is not a number", items[i]);
				return SURAND_EX_USAGE;
			}
			if (t == 0 || t > BENCH_MAX_THREADS) {
				usage_error("thread count '%s' is out of range (1 to %u)", items[i],
					    BENCH_MAX_THREADS);
				return SURAND_EX_USAGE;
			}
			p->threads[p->nthreads++] = (unsigned)t;
		}
	} else if (quick) {
		p->threads[p->nthreads++] = 1;
		p->threads[p->nthreads++] = 2;
		p->threads[p->nthreads++] = 64;
	} else {
		unsigned d[] = {1, 2, 4, p->ncpu, 4 * p->ncpu, 64};
		for (size_t i = 0; i < sizeof(d) / sizeof(d[0]); i++)
			if (d[i] >= 1 && d[i] <= BENCH_MAX_THREADS)
				p->threads[p->nthreads++] = d[i];
	}
	qsort(p->threads, p->nthreads, sizeof(p->threads[0]), cmp_uint);
	n = 0;
	for (unsigned i = 0; i < p->nthreads; i++)
		if (i == 0 || p->threads[i] != p->threads[n - 1])
			p->threads[n++] = p->threads[i];
	p->nthreads = n;

	if ((unsigned long long)p->threads[p->nthreads - 1] * p->sizes[p->nsizes - 1] >
	    BENCH_MAX_BUFFER_BYTES) {
		usage_error("%u threads x %zu B buffers exceed %llu MiB", p->threads[p->nthreads - 1],
			    p->sizes[p->nsizes - 1], BENCH_MAX_BUFFER_BYTES >> 20);
		return SURAND_EX_USAGE;
	}

	/* seconds */
	p->seconds = quick ? QUICK_SECONDS : DEFAULT_SECONDS;
	if (o_seconds) {
		char *end;
		double s;
		errno = 0;
		s = strtod(o_seconds, &end);
		if (!*o_seconds || *end || errno || !(s > 0) || s > BENCH_MAX_SECONDS) {
			usage_error("--seconds '%s' must be a number above 0 and at most %g", o_seconds,
				    BENCH_MAX_SECONDS);
			return SURAND_EX_USAGE;
		}
		p->seconds = s;
	}
	p->rounds = 1;
	if (o_rounds) {
		char *end;
		unsigned long r;
		errno = 0;
		r = strtoul(o_rounds, &end, 10);
		if (!isdigit((unsigned char)o_rounds[0]) || *end || errno || r < 1 || r > MAX_ROUNDS) {
			usage_error("--rounds '%s' must be a whole number from 1 to %d", o_rounds,
				    MAX_ROUNDS);
			return SURAND_EX_USAGE;
		}
		p->rounds = (unsigned)r;
	}
	plan_cells(p, !o_sizes && !o_threads && !o_sources && !o_backends, quick, o_seconds != NULL);
	p->warmup = p->seconds / 4;
	if (p->warmup < 0.01)
		p->warmup = 0.01;
	if (p->warmup > 0.25)
		p->warmup = 0.25;

	if (list) {
		printf("backends (default first): %s\n", surand_backend_names());
		printf("sources:");
		for (unsigned s = 0; bench_system_sources[s].name; s++)
			printf(" %s", bench_system_sources[s].name);
		printf("\n");
		return SURAND_EX_OK;
	}

	/* outputs: checked before any work */
	FILE *csv = NULL, *json = NULL;
	char csv_auto[4096] = "";
	char gnuplot[4096] = "";
	int have_gp = 0;
	if (o_csv && !(csv = open_out(o_csv)))
		return SURAND_EX_IOERR;
	if (o_json && !(json = open_out(o_json)))
		return SURAND_EX_IOERR;
	if (o_plot) {
		FILE *t = open_out(o_plot);
		if (!t)
			return SURAND_EX_IOERR;
		fclose(t);
		have_gp = have_program("gnuplot", gnuplot, sizeof(gnuplot));
		if (!have_gp) {
			unlink(o_plot);
			if (!csv) {
				size_t l = strlen(o_plot);
				snprintf(csv_auto, sizeof(csv_auto), "%.*s.csv",
					 (int)(l > 4 && !strcmp(o_plot + l - 4, ".png") ? l - 4 : l),
					 o_plot);
				if (!(csv = open_out(csv_auto)))
					return SURAND_EX_IOERR;
			}
		}
	}

	p->cells = calloc((size_t)p->nruns * p->nsizes * p->nthreads, sizeof(*p->cells));
	if (!p->cells) {
		fprintf(stderr, "surand bench: out of memory\n");
		return SURAND_EX_FAIL;
	}

	struct machine m;
	machine_info(&m);
	p->load1 = -1;
	{
		/* before our own threads add to it: the load of the machine's other work */
		FILE *la = fopen("/proc/loadavg", "r");

		if (la) {
			if (fscanf(la, "%lf", &p->load1) != 1)
				p->load1 = -1;
			fclose(la);
		}
	}
	int failures = run_all(p);

	struct comparison cmp[NCOMPARISONS];
	struct claim claims[NCLAIMS];
	compute_comparisons(p, cmp);
	compute_claims(p, cmp, claims);
	print_report(p, &m, cmp, claims);
	/* The whole plan also gets the tight loops of the integer draws. */
	if (!o_backends && !o_sources && !o_sizes && !o_threads && surand_bench_words_section(quick))
		failures++;

	int rc = failures ? SURAND_EX_FAIL : SURAND_EX_OK;
	if (csv) {
		csv_write(csv, p);
		if (fclose(csv) != 0) {
			fprintf(stderr, "surand bench: writing %s: %s\n", o_csv ? o_csv : csv_auto,
				strerror(errno));
			rc = SURAND_EX_IOERR;
		}
	}
	if (json) {
		json_write(json, p, &m, cmp, claims);
		if (fclose(json) != 0) {
			fprintf(stderr, "surand bench: writing %s: %s\n", o_json, strerror(errno));
			rc = SURAND_EX_IOERR;
		}
	}
	if (o_plot) {
		if (!have_gp)
			fprintf(stderr,
				"surand bench: gnuplot is not installed, no charts written "
				"(apt-get install gnuplot-nox); the figures are in %s\n",
				o_csv ? o_csv : csv_auto);
		else if (plot_write(p, o_plot, gnuplot) != 0)
			fprintf(stderr, "surand bench: gnuplot failed to write %s\n", o_plot);
	}
	if (failures)
		fprintf(stderr, "surand bench: %d source%s failed (see the table)\n", failures,
			failures == 1 ? "" : "s");
	free(p->cells);
	return rc;
}
