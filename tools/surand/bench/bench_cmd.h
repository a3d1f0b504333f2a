/*
 * bench_cmd.h - the parts of `surand bench` (tools/surand/bench/cmd_bench.c), one job per
 * file: bench_plan.c (the plan and reading the results), bench_run.c (the
 * child processes), bench_report.c (the text report), bench_export.c (CSV,
 * JSON), bench_plot.c (gnuplot charts).  Internal to the surand command.
 * SPDX-License-Identifier: MIT
 */
#ifndef SURAND_TOOLS_BENCH_CMD_H
#define SURAND_TOOLS_BENCH_CMD_H

#include <stddef.h>
#include <stdio.h>

#include "bench.h"

/* scales: yes when the aggregate at N threads reaches this share of N x 1 thread */
#define SCALES_EFFICIENCY 0.70
/* buffers of all threads of one cell together */
#define BENCH_MAX_BUFFER_BYTES (1ull << 30)
/* What --sizes takes (parse_size: the SIZE syntax of surand -n, no inf, at
 * most BENCH_MAX_SIZE_BYTES), for its error messages. */
#define BENCH_SIZE_HELP                                                                   \
	"1 B to 16 MiB: a whole number of bytes with an optional suffix K, k or KiB, M or " \
	"MiB (powers of 1024), kB or KB, MB (powers of 1000); not inf"
/* cells below this share of the CPU time they asked for are flagged as starved */
#define BUSY_CPU_SHARE 0.80
/*
 * cells with fewer calls than this per thread are flagged "few calls": a
 * thread's count can be one call off at each edge of the window (a call begun
 * in the warm-up is not counted, the call still running when the window closes
 * is), so below 4 calls per thread the edges are 25% or more of the count
 */
#define FEW_CALLS_PER_THREAD 4u
#define DEFAULT_SECONDS 0.5
#define QUICK_SECONDS 0.15
/* the small-size sweep of the default plan: surand_bytes() at 1..SWEEP_MAX bytes,
 * 1 thread, SWEEP_PASSES passes each cell's best kept (--quick: SWEEP_SECONDS a cell) */
#define SWEEP_MAX 32u
#define SWEEP_PASSES 2u
#define SWEEP_SECONDS 0.04
#define MAX_LIST 64
#define MAX_ROUNDS 20

struct run {
	char name[48];
	const struct bench_source *src;
	char arg[48];            /* the backend name, for backends */
	int is_default_backend;
	int absent;              /* known here, cannot be measured: why says why */
	char why[256];
	char desc[400];
	int failed;              /* the child died or a cell failed */
	unsigned passes;         /* > 1: each cell this many times in a row, best kept */
	char fail[200];
	/* the cells of the plan this source runs: bit si of size_mask and bit ti of
	 * thread_mask (MAX_LIST is 64); the default plan measures each source only
	 * where the report reads it */
	uint64_t size_mask, thread_mask;
	double seconds;          /* > 0: this source's window per cell (else the plan's) */
};

struct cellres {
	int have;                /* a result or an error came back */
	int ok;
	struct bench_result r;
};

struct plan {
	struct run runs[MAX_LIST];
	unsigned nruns;
	size_t sizes[MAX_LIST];
	unsigned nsizes;
	unsigned threads[MAX_LIST];
	unsigned nthreads;
	double seconds, warmup;
	unsigned rounds;         /* the plan runs this many times; each cell keeps its best */
	char backends[MAX_LIST][48];
	unsigned nbackends;      /* every backend of this build, the default first */
	struct cellres *cells;   /* [run][size][threads] */
	unsigned ncpu;
	double load1;            /* 1-minute load average before the run; < 0 unknown */
	char command[1024];
};

/* surand (the default backend) against a peer measured in the same run. */
struct comparison {
	const char *what;   /* after "surand (NAME) ": "vs getrandom(2), 16-byte calls, 1 thread" */
	const char *peer;   /* the peer's source, as the table names it */
	const char *of;     /* what the ratio is of: "the calls/s", "the time per call", ... */
	double ratio;
	int have;
	char detail[400];   /* the two figures, or why the ratio is not measured */
};

#define NCOMPARISONS 13

/* A claim of the README, checked on this run's figures. */
struct claim {
	const char *claim;  /* "faster than the kernel's own vDSO getrandom" */
	const char *over;   /* the cells it is read on */
	int verdict;        /* BENCH_HOLDS, BENCH_DOES_NOT_HOLD, BENCH_NOT_MEASURED, BENCH_NOT_JUDGED */
	double ratios[2];   /* NaN: not measured */
	unsigned nratios;
	char detail[400];   /* why not measured or not judged; or what the ratios are */
};

#define NCLAIMS 2

struct scale {
	int have, yes;
	unsigned threads;
	double ratio, eff;
	size_t size;
	char why[120];
};

struct machine {
	char kernel[3 * 65 + 8], cpu[160], glibc[32], chacha[32];
};

/* bench_plan.c */
int few_calls(const struct bench_result *x, unsigned threads);
const struct bench_result *result_of(struct plan *p, const char *name, size_t size,
					    unsigned threads);
/* The comparisons of the report (NCOMPARISONS), then the README's claims
 * checked on them and on the default backend's scaling (NCLAIMS). */
void compute_comparisons(struct plan *p, struct comparison *cmp);
void compute_claims(struct plan *p, const struct comparison *cmp, struct claim *claims);
int threads_index(const struct plan *p, unsigned t);
void order_runs(struct plan *p);
int split_list(const char *s, char items[][48], unsigned max, unsigned *n,
		      const char *what);
int is_backend(const struct plan *p, const char *name);
unsigned cpu_count(void);
int parse_size(const char *s, size_t *out);
void list_sources_text(char *buf, size_t n, const struct plan *p);
void compute_scale(struct plan *p, const struct run *r, struct scale *sc);
void add_run(struct plan *p, const char *name);
struct cellres *cell_at(struct plan *p, unsigned ri, unsigned si, unsigned ti);
int planned(const struct plan *p, unsigned ri, unsigned si, unsigned ti);
unsigned planned_cells(const struct plan *p, unsigned ri);
/* The default plan's cells of each source (quick: the --quick plan); explicit
 * lists (--sources, --sizes, --threads) measure every cell but a fixed-size
 * source's other sizes. */
void plan_cells(struct plan *p, int default_plan, int quick, int explicit_seconds);
extern int usage_failed; /* set by the first usage_error */
void usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* qsort orders of sizes and thread counts */
int cmp_size(const void *a, const void *b);
int cmp_uint(const void *a, const void *b);

/* bench_run.c */
int run_all(struct plan *p);

/* bench_report.c */
void fmt_bytes(char *b, size_t n, size_t v);
void machine_info(struct machine *m);
const char *kind_name(const struct run *r);
void print_report(struct plan *p, const struct machine *m, const struct comparison *cmp,
		  const struct claim *claims);

/* bench_export.c */
void csv_write(FILE *f, struct plan *p);
void json_write(FILE *f, struct plan *p, const struct machine *m, const struct comparison *cmp,
		const struct claim *claims);

/* bench_plot.c */
int have_program(const char *name, char *path, size_t n);
int plot_write(struct plan *p, const char *png, const char *gnuplot);

#endif
