/*
 * bench_plot.c - `surand bench`, the charts (--plot FILE.png), drawn by gnuplot.
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
#include "cli.h"
#include "internal.h"
#include "parse.h"
#include "surand.h"
#include "bench_cmd.h"

/* ---- charts (gnuplot) ------------------------------------------------------------------ */

int have_program(const char *name, char *path, size_t n)
{
	const char *env = getenv("PATH");
	char dirs[4096];
	snprintf(dirs, sizeof(dirs), "%s", env && *env ? env : "/usr/local/bin:/usr/bin:/bin");
	for (char *save = NULL, *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		snprintf(path, n, "%s/%s", *d ? d : ".", name);
		if (access(path, X_OK) == 0)
			return 1;
	}
	return 0;
}

static void gp_quote(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', f); /* gnuplot: '' inside '...' */
		fputc(*s, f);
	}
	fputc('\'', f);
}

/*
 * One line style per source (by its place in the plan, so a source has the
 * same style in both charts): 12 colours that stay apart on white, and 13
 * point types, so no two of the first 156 sources look alike.
 */
static void plot_styles(FILE *f, const struct plan *p)
{
	static const char *const colour[] = {
		"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
		"#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#000000", "#0b3d91",
	};
	static const unsigned point[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13};
	const unsigned nc = sizeof(colour) / sizeof(colour[0]);
	const unsigned np = sizeof(point) / sizeof(point[0]);

	fprintf(f, "\n");
	for (unsigned ri = 0; ri < p->nruns; ri++)
		fprintf(f, "set style line %u lc rgb '%s' pt %u lw 1.5\n", ri + 1, colour[ri % nc],
			point[ri % np]);
}

/* FILE.png: throughput vs threads per size; FILE-latency.png: latency per size. */
/* The data blocks written: which (size, source) each throughput block is,
 * which source each latency block is, and what was measured at all. */
struct blocks {
	unsigned n, size[MAX_LIST * MAX_LIST], run[MAX_LIST * MAX_LIST];
	unsigned nlat, lat_run[MAX_LIST];
	unsigned nsizes_seen, thr_seen[MAX_LIST];
	int size_seen[MAX_LIST];
	int t1; /* the thread count of the latency chart (1 where measured) */
};

/* tput.dat: one block per (size, source), "threads MB/s" lines. */
static void write_throughput(FILE *fd, struct plan *p, struct blocks *b)
{
	for (unsigned si = 0; si < p->nsizes; si++)
		for (unsigned ri = 0; ri < p->nruns; ri++) {
			int any = 0;
			if (p->runs[ri].absent)
				continue;
			for (unsigned ti = 0; ti < p->nthreads; ti++) {
				const struct cellres *c = cell_at(p, ri, si, ti);
				if (c->have && c->ok) {
					if (!any)
						fprintf(fd, "# %s %zu\n", p->runs[ri].name, p->sizes[si]);
					fprintf(fd, "%u %.6g\n", p->threads[ti], c->r.mb_per_s);
					any = 1;
					b->thr_seen[ti] = 1;
				}
			}
			if (any) {
				fprintf(fd, "\n\n");
				b->size[b->n] = si;
				b->run[b->n] = ri;
				b->n++;
				if (!b->size_seen[si])
					b->nsizes_seen++;
				b->size_seen[si] = 1;
			}
		}
}

/* lat.dat: one block per source, "size p50 p99 p99.9" at b->t1 threads. */
static void write_latency(FILE *fl, struct plan *p, struct blocks *b)
{
	for (unsigned ri = 0; ri < p->nruns; ri++) {
		int any = 0;
		if (p->runs[ri].absent)
			continue;
		for (unsigned si = 0; si < p->nsizes; si++) {
			const struct cellres *c = cell_at(p, ri, si, (unsigned)b->t1);
			if (c->have && c->ok && c->r.p50_ns == c->r.p50_ns) {
				fprintf(fl, "%zu %.6g %.6g %.6g\n", p->sizes[si],
					c->r.p50_ns > 0.5 ? c->r.p50_ns : 0.5,
					c->r.p99_ns > 0.5 ? c->r.p99_ns : 0.5,
					c->r.p999_ns > 0.5 ? c->r.p999_ns : 0.5);
				any = 1;
			}
		}
		if (any) {
			fprintf(fl, "\n\n");
			b->lat_run[b->nlat++] = ri;
		}
	}
}

/* The throughput chart: one panel per size measured, the x axis at the
 * thread counts measured. */
static void script_throughput(FILE *fg, const struct plan *p, const struct blocks *b,
			      const char *png, const char *dat)
{
	unsigned cols = b->nsizes_seen > 3 ? 3 : b->nsizes_seen;
	unsigned rows = (b->nsizes_seen + cols - 1) / cols;

	fprintf(fg, "set terminal pngcairo size %u,%u noenhanced font ',9'\nset output ",
		640 * cols, 380 * rows + 40);
	gp_quote(fg, png);
	plot_styles(fg, p);
	fprintf(fg, "\nset multiplot layout %u,%u title 'surand bench: aggregate MB/s vs threads "
		    "(log scales)'\n", rows, cols);
	fprintf(fg, "set logscale x 2\nset logscale y 10\nset xlabel 'threads'\nset ylabel "
		    "'MB/s'\nset key outside right top font ',7'\nset grid\nset xtics (");
	for (unsigned ti = 0, first = 1; ti < p->nthreads; ti++)
		if (b->thr_seen[ti]) {
			fprintf(fg, "%s%u", first ? "" : ", ", p->threads[ti]);
			first = 0;
		}
	fprintf(fg, ")\n");
	for (unsigned si = 0; si < p->nsizes; si++) {
		char sz[32];
		int first = 1;
		if (!b->size_seen[si])
			continue;
		fmt_bytes(sz, sizeof(sz), p->sizes[si]);
		fprintf(fg, "set title '%s calls'\nplot ", sz);
		for (unsigned k = 0; k < b->n; k++) {
			if (b->size[k] != si)
				continue;
			fprintf(fg, "%s", first ? "" : ", \\\n     ");
			gp_quote(fg, dat);
			fprintf(fg, " index %u using 1:2 with linespoints ls %u title ", k, b->run[k] + 1);
			gp_quote(fg, p->runs[b->run[k]].name);
			first = 0;
		}
		fprintf(fg, "\n");
	}
	fprintf(fg, "unset multiplot\n");
}

/* The latency chart: p50 and p99 per call size, one line per source. */
static void script_latency(FILE *fg, const struct plan *p, const struct blocks *b,
			   const char *latpng, const char *lat)
{
	fprintf(fg, "set terminal pngcairo size 1100,450 noenhanced font ',9'\nset output ");
	gp_quote(fg, latpng);
	fprintf(fg, "\nset multiplot layout 1,2 title 'surand bench: latency per call size, %u "
		    "thread (sampled calls)'\n", p->threads[b->t1]);
	fprintf(fg, "set logscale x 2\nset logscale y 10\nset xlabel 'call size (bytes)'\n"
		    "set ylabel 'ns'\nset xtics (");
	for (unsigned si = 0, first = 1; si < p->nsizes; si++)
		if (b->size_seen[si]) {
			fprintf(fg, "%s%zu", first ? "" : ", ", p->sizes[si]);
			first = 0;
		}
	fprintf(fg, ")\n");
	for (int q = 0; q < 2; q++) {
		fprintf(fg, "set title '%s'\nplot ", q == 0 ? "p50" : "p99");
		for (unsigned k = 0; k < b->nlat; k++) {
			fprintf(fg, "%s", k ? ", \\\n     " : "");
			gp_quote(fg, lat);
			fprintf(fg, " index %u using 1:%d with linespoints ls %u title ", k, q + 2,
				b->lat_run[k] + 1);
			gp_quote(fg, p->runs[b->lat_run[k]].name);
		}
		fprintf(fg, "\n");
	}
	fprintf(fg, "unset multiplot\n");
}

/* gnuplot on the script, its stdout to /dev/null.  0 when it succeeded. */
static int run_gnuplot(const char *gnuplot, const char *gp)
{
	pid_t pid = fork();
	int st = 0;

	if (pid == 0) {
		int nul = open("/dev/null", O_WRONLY);
		if (nul >= 0)
			dup2(nul, 1);
		execl(gnuplot, "gnuplot", gp, (char *)NULL);
		_exit(127);
	}
	return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0
		       ? 0
		       : -1;
}

int plot_write(struct plan *p, const char *png, const char *gnuplot)
{
	static struct blocks b;
	char dir[] = "/tmp/surand-bench-plot.XXXXXX";
	char dat[64], lat[64], gp[64], latpng[4096];
	FILE *fd = NULL, *fl = NULL, *fg = NULL;
	size_t l = strlen(png);
	int rc = -1;

	if (!mkdtemp(dir))
		return -1;
	snprintf(dat, sizeof(dat), "%s/tput.dat", dir);
	snprintf(lat, sizeof(lat), "%s/lat.dat", dir);
	snprintf(gp, sizeof(gp), "%s/plot.gp", dir);
	if (l > 4 && strcmp(png + l - 4, ".png") == 0)
		snprintf(latpng, sizeof(latpng), "%.*s-latency.png", (int)(l - 4), png);
	else
		snprintf(latpng, sizeof(latpng), "%s-latency.png", png);
	fd = fopen(dat, "w");
	fl = fopen(lat, "w");
	fg = fopen(gp, "w");
	if (!fd || !fl || !fg)
		goto out;
	memset(&b, 0, sizeof(b));
	b.t1 = threads_index(p, 1);
	if (b.t1 < 0)
		b.t1 = 0;
	write_throughput(fd, p, &b);
	write_latency(fl, p, &b);
	if (b.nsizes_seen == 0)
		goto out; /* nothing measured: no chart */
	script_throughput(fg, p, &b, png, dat);
	if (b.nlat)
		script_latency(fg, p, &b, latpng, lat);
	if (fclose(fd) != 0 || fclose(fl) != 0) {
		fd = fl = NULL;
		goto out;
	}
	fd = fl = NULL;
	if (fclose(fg) != 0) {
		fg = NULL;
		goto out;
	}
	fg = NULL;
	if (run_gnuplot(gnuplot, gp) == 0) {
		rc = 0;
		fprintf(stderr, "surand bench: wrote %s%s%s\n", png, b.nlat ? " and " : "",
			b.nlat ? latpng : "");
	}
out:
	if (fd)
		fclose(fd);
	if (fl)
		fclose(fl);
	if (fg)
		fclose(fg);
	unlink(dat);
	unlink(lat);
	unlink(gp);
	rmdir(dir);
	return rc;
}
