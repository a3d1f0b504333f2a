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
		fprintf(stderr, "surand: bench: cannot write %s: %s\n", path, strerror(errno));
	return f;
}

/* What the command line asked for; NULL where an option was not given. */
struct opts {
	const char *backends, *sources, *sizes, *threads, *seconds, *rounds, *csv, *json, *plot;
	int quick, list, help;
};

/* 0, or SURAND_EX_USAGE (the message printed). */
static int read_options(int argc, char **argv, struct opts *o)
{
	memset(o, 0, sizeof(*o));
	for (int i = 1; i < argc && !usage_failed; i++) {
		const char *v = NULL;
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			o->help = 1;
			return 0;
		} else if (!strcmp(argv[i], "--quick")) {
			o->quick = 1;
		} else if (!strcmp(argv[i], "--list")) {
			o->list = 1;
		} else if (opt_value(argc, argv, &i, "--backends", &v)) {
			o->backends = v;
		} else if (opt_value(argc, argv, &i, "--sources", &v)) {
			o->sources = v;
		} else if (opt_value(argc, argv, &i, "--sizes", &v)) {
			o->sizes = v;
		} else if (opt_value(argc, argv, &i, "--threads", &v)) {
			o->threads = v;
		} else if (opt_value(argc, argv, &i, "--seconds", &v)) {
			o->seconds = v;
		} else if (opt_value(argc, argv, &i, "--rounds", &v)) {
			o->rounds = v;
		} else if (opt_value(argc, argv, &i, "--csv", &v)) {
			o->csv = v;
		} else if (opt_value(argc, argv, &i, "--json", &v)) {
			o->json = v;
		} else if (opt_value(argc, argv, &i, "--plot", &v)) {
			o->plot = v;
		} else if (argv[i][0] != '-') {
			usage_error("unknown subcommand '%s' (chacha, words, kleen or mixed)", argv[i]);
		} else {
			usage_error("unknown option '%s'", argv[i]);
		}
	}
	return usage_failed ? SURAND_EX_USAGE : 0;
}

/* The default plan's sources: every backend and source, or --quick's few. */
static void plan_default_sources(struct plan *p, int quick)
{
	static const char *const q[] = {"surand-bytes", "add-event", "bare", "vdso",
					"getrandom", "urandom", "arc4random",
					"rust-rand", "libbsd", "openssl-chacha",
					"legacy", "legacy-spin"};

	if (quick) {
		add_run(p, p->backends[0]);
		for (size_t i = 0; i < sizeof(q) / sizeof(q[0]); i++)
			if (strcmp(q[i], "legacy-spin") != 0 || is_backend(p, q[i]))
				add_run(p, q[i]);
		return;
	}
	for (unsigned b = 0; b < p->nbackends; b++)
		add_run(p, p->backends[b]);
	for (unsigned s = 0; bench_system_sources[s].name; s++)
		add_run(p, bench_system_sources[s].name);
}

/* --backends and --sources into the plan's runs.  0 or an exit status. */
static int plan_sources(struct plan *p, const struct opts *o)
{
	char items[MAX_LIST][48];
	unsigned n;

	if (o->backends) {
		if (split_list(o->backends, items, MAX_LIST, &n, "backend") != 0)
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
	if (o->sources) {
		if (split_list(o->sources, items, MAX_LIST, &n, "source") != 0)
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
	if (!o->backends && !o->sources)
		plan_default_sources(p, o->quick);
	order_runs(p);
	return 0;
}

/* --sizes, or the default sizes (with the 1..32 sweep when surand-bytes
 * runs in the whole plan); sorted, without duplicates.  0 or an exit status. */
static int plan_sizes(struct plan *p, const struct opts *o)
{
	char items[MAX_LIST][48];
	unsigned n;

	if (o->sizes) {
		if (split_list(o->sizes, items, MAX_LIST, &n, "size") != 0)
			return SURAND_EX_USAGE;
		for (unsigned i = 0; i < n; i++) {
			size_t s;
			int r = parse_size(items[i], &s);
			if (r == -1) {
				usage_error("size '%s' is not a size (%s)", items[i], BENCH_SIZE_HELP);
				return SURAND_EX_USAGE;
			}
			if (r == -2) {
				usage_error("size '%s' is out of range (%s)", items[i], BENCH_SIZE_HELP);
				return SURAND_EX_USAGE;
			}
			p->sizes[p->nsizes++] = s;
		}
	} else {
		/* the main sizes; the small-size sweep adds 1..32 (plan_cells) */
		static const size_t full[] = {4, 8, 16, 32, 64, 256, 4096, 65536},
				    q[] = {4, 8, 16, 4096, 65536};
		const size_t *src = o->quick ? q : full;
		size_t cnt = o->quick ? sizeof(q) / sizeof(q[0]) : sizeof(full) / sizeof(full[0]);
		int sweep = 0;
		for (size_t i = 0; i < cnt; i++)
			p->sizes[p->nsizes++] = src[i];
		for (unsigned i = 0; i < p->nruns; i++)
			sweep |= strcmp(p->runs[i].name, "surand-bytes") == 0;
		/* duplicates of the main sizes go below */
		for (size_t s = 1; sweep && !o->threads && !o->sources && !o->backends &&
				   s <= SWEEP_MAX;
		     s++)
			p->sizes[p->nsizes++] = s;
	}
	qsort(p->sizes, p->nsizes, sizeof(p->sizes[0]), cmp_size);
	n = 0;
	for (unsigned i = 0; i < p->nsizes; i++)
		if (i == 0 || p->sizes[i] != p->sizes[n - 1])
			p->sizes[n++] = p->sizes[i];
	p->nsizes = n;
	return 0;
}

/* --threads, or the defaults; sorted, without duplicates.  0 or an exit status. */
static int plan_threads(struct plan *p, const struct opts *o)
{
	char items[MAX_LIST][48];
	unsigned n;

	if (o->threads) {
		if (split_list(o->threads, items, MAX_LIST, &n, "thread") != 0)
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
	} else if (o->quick) {
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
	return 0;
}

/* --seconds and --rounds, then the cells and the warm-up.  0 or an exit status. */
static int plan_timing(struct plan *p, const struct opts *o)
{
	p->seconds = o->quick ? QUICK_SECONDS : DEFAULT_SECONDS;
	if (o->seconds) {
		char *end;
		double s;
		errno = 0;
		s = strtod(o->seconds, &end);
		if (!*o->seconds || *end || errno || !(s > 0) || s > BENCH_MAX_SECONDS) {
			usage_error("--seconds '%s' must be a number above 0 and at most %g",
				    o->seconds, BENCH_MAX_SECONDS);
			return SURAND_EX_USAGE;
		}
		p->seconds = s;
	}
	p->rounds = 1;
	if (o->rounds) {
		char *end;
		unsigned long r;
		errno = 0;
		r = strtoul(o->rounds, &end, 10);
		if (!isdigit((unsigned char)o->rounds[0]) || *end || errno || r < 1 ||
		    r > MAX_ROUNDS) {
			usage_error("--rounds '%s' must be a whole number from 1 to %d", o->rounds,
				    MAX_ROUNDS);
			return SURAND_EX_USAGE;
		}
		p->rounds = (unsigned)r;
	}
	plan_cells(p, !o->sizes && !o->threads && !o->sources && !o->backends, o->quick,
		   o->seconds != NULL);
	p->warmup = p->seconds / 4;
	if (p->warmup < 0.01)
		p->warmup = 0.01;
	if (p->warmup > 0.25)
		p->warmup = 0.25;
	return 0;
}

/* The output files, opened before any work (so a bad path costs nothing). */
struct outputs {
	FILE *csv, *json;
	char csv_auto[4096]; /* --plot without gnuplot: the figures go here */
	char gnuplot[4096];
	int have_gp;
};

/* 0 or SURAND_EX_IOERR (the message printed). */
static int open_outputs(const struct opts *o, struct outputs *w)
{
	memset(w, 0, sizeof(*w));
	if (o->csv && !(w->csv = open_out(o->csv)))
		return SURAND_EX_IOERR;
	if (o->json && !(w->json = open_out(o->json)))
		return SURAND_EX_IOERR;
	if (o->plot) {
		FILE *t = open_out(o->plot);
		if (!t)
			return SURAND_EX_IOERR;
		fclose(t);
		w->have_gp = have_program("gnuplot", w->gnuplot, sizeof(w->gnuplot));
		if (!w->have_gp) {
			unlink(o->plot);
			if (!w->csv) {
				size_t l = strlen(o->plot);
				snprintf(w->csv_auto, sizeof(w->csv_auto), "%.*s.csv",
					 (int)(l > 4 && !strcmp(o->plot + l - 4, ".png") ? l - 4 : l),
					 o->plot);
				if (!(w->csv = open_out(w->csv_auto)))
					return SURAND_EX_IOERR;
			}
		}
	}
	return 0;
}

/* Writes and closes the outputs; rc, or SURAND_EX_IOERR when a write failed. */
static int write_outputs(const struct opts *o, struct outputs *w, struct plan *p,
			 const struct machine *m, const struct comparison *cmp,
			 const struct claim *claims, int rc)
{
	if (w->csv) {
		csv_write(w->csv, p);
		if (fclose(w->csv) != 0) {
			fprintf(stderr, "surand: bench: writing %s: %s\n",
				o->csv ? o->csv : w->csv_auto, strerror(errno));
			rc = SURAND_EX_IOERR;
		}
	}
	if (w->json) {
		json_write(w->json, p, m, cmp, claims);
		if (fclose(w->json) != 0) {
			fprintf(stderr, "surand: bench: writing %s: %s\n", o->json, strerror(errno));
			rc = SURAND_EX_IOERR;
		}
	}
	if (o->plot) {
		if (!w->have_gp)
			fprintf(stderr,
				"surand: bench: gnuplot is not installed, no charts written "
				"(apt-get install gnuplot-nox); the figures are in %s\n",
				o->csv ? o->csv : w->csv_auto);
		else if (plot_write(p, o->plot, w->gnuplot) != 0)
			fprintf(stderr, "surand: bench: gnuplot failed to write %s\n", o->plot);
	}
	return rc;
}

/* The 1-minute load average before our own threads add to it: the machine's
 * other work; -1 when unknown. */
static double load_before(void)
{
	FILE *la = fopen("/proc/loadavg", "r");
	double l = -1;

	if (la) {
		if (fscanf(la, "%lf", &l) != 1)
			l = -1;
		fclose(la);
	}
	return l;
}

/* The plan from the command line (0, or the exit status to return). */
static int make_plan(struct plan *p, int argc, char **argv, const struct opts *o)
{
	size_t off = (size_t)snprintf(p->command, sizeof(p->command), "surand");
	int r;

	for (int i = 0; i < argc && off < sizeof(p->command); i++)
		off += (size_t)snprintf(p->command + off, sizeof(p->command) - off, " %s", argv[i]);
	/* the backends of this build, from the library itself */
	if (split_list(surand_backend_names(), p->backends, MAX_LIST, &p->nbackends,
		       "backend") != 0)
		return SURAND_EX_FAIL;
	p->ncpu = cpu_count();
	if ((r = plan_sources(p, o)) != 0 || (r = plan_sizes(p, o)) != 0 ||
	    (r = plan_threads(p, o)) != 0 || (r = plan_timing(p, o)) != 0)
		return r;
	return 0;
}

static void print_list(void)
{
	printf("backends (default first): %s\n", surand_backend_names());
	printf("sources:");
	for (unsigned s = 0; bench_system_sources[s].name; s++)
		printf(" %s", bench_system_sources[s].name);
	printf("\n");
}

int surand_cmd_bench(int argc, char **argv)
{
	static struct plan plan;
	static struct outputs out;
	struct plan *p = &plan;
	struct comparison cmp[NCOMPARISONS];
	struct claim claims[NCLAIMS];
	struct machine m;
	struct opts o;
	int r, failures, rc;

	if (argc >= 2 && strcmp(argv[1], "chacha") == 0)
		return surand_bench_chacha(argc - 1, argv + 1); /* tools/surand/bench/bench_chacha.c */
	if (argc >= 2 && strcmp(argv[1], "words") == 0)
		return surand_bench_words(argc - 1, argv + 1); /* tools/surand/bench/bench_words.c */
	if (argc >= 2 && (strcmp(argv[1], "kleen") == 0 || strcmp(argv[1], "mixed") == 0 ||
			  strcmp(argv[1], "__debate-cell") == 0))
		return surand_bench_debate(argc - 1, argv + 1); /* tools/surand/bench/bench_debate.c */

	if ((r = read_options(argc, argv, &o)) != 0)
		return r;
	if (o.help) {
		fputs(usage_text, stdout);
		return SURAND_EX_OK;
	}
	memset(p, 0, sizeof(*p));
	if ((r = make_plan(p, argc, argv, &o)) != 0)
		return r;
	if (o.list) {
		print_list();
		return SURAND_EX_OK;
	}
	if ((r = open_outputs(&o, &out)) != 0)
		return r;
	p->cells = calloc((size_t)p->nruns * p->nsizes * p->nthreads, sizeof(*p->cells));
	if (!p->cells) {
		fprintf(stderr, "surand: bench: out of memory\n");
		return SURAND_EX_FAIL;
	}
	machine_info(&m);
	p->load1 = load_before();
	failures = run_all(p);
	compute_comparisons(p, cmp);
	compute_claims(p, cmp, claims);
	print_report(p, &m, cmp, claims);
	/* The whole plan also gets the tight loops of the integer draws. */
	if (!o.backends && !o.sources && !o.sizes && !o.threads && surand_bench_words_section(o.quick))
		failures++;
	rc = write_outputs(&o, &out, p, &m, cmp, claims, failures ? SURAND_EX_FAIL : SURAND_EX_OK);
	if (failures)
		fprintf(stderr, "surand: bench: %d source%s failed (see the table)\n", failures,
			failures == 1 ? "" : "s");
	free(p->cells);
	return rc;
}
