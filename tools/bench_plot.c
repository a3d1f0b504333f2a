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
int plot_write(struct plan *p, const char *png, const char *gnuplot)
{
	char dir[] = "/tmp/surand-bench-plot.XXXXXX";
	char dat[64], lat[64], gp[64], latpng[4096];
	int rc = -1;

	if (!mkdtemp(dir))
		return -1;
	snprintf(dat, sizeof(dat), "%s/tput.dat", dir);
	snprintf(lat, sizeof(lat), "%s/lat.dat", dir);
	snprintf(gp, sizeof(gp), "%s/plot.gp", dir);
	size_t l = strlen(png);
	if (l > 4 && strcmp(png + l - 4, ".png") == 0)
		snprintf(latpng, sizeof(latpng), "%.*s-latency.png", (int)(l - 4), png);
	else
		snprintf(latpng, sizeof(latpng), "%s-latency.png", png);

	FILE *fd = fopen(dat, "w"), *fl = fopen(lat, "w"), *fg = fopen(gp, "w");
	if (!fd || !fl || !fg)
		goto out;

	/* tput.dat: one block per (size, source): threads MB/s; lat.dat: one per source */
	unsigned idx = 0;
	unsigned blk_size[MAX_LIST * MAX_LIST], blk_run[MAX_LIST * MAX_LIST];
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
				}
			}
			if (any) {
				fprintf(fd, "\n\n");
				blk_size[idx] = si;
				blk_run[idx] = ri;
				idx++;
			}
		}
	unsigned lidx = 0, lrun[MAX_LIST];
	int t1 = threads_index(p, 1);
	if (t1 < 0)
		t1 = 0;
	for (unsigned ri = 0; ri < p->nruns; ri++) {
		int any = 0;
		if (p->runs[ri].absent)
			continue;
		for (unsigned si = 0; si < p->nsizes; si++) {
			const struct cellres *c = cell_at(p, ri, si, (unsigned)t1);
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
			lrun[lidx++] = ri;
		}
	}
	fclose(fd);
	fclose(fl);
	fd = fl = NULL;

	/* Panels only for the sizes measured; the x axis at the thread counts measured. */
	unsigned nmeas = 0, thr_seen[MAX_LIST] = {0};
	int size_seen[MAX_LIST] = {0};
	for (unsigned b = 0; b < idx; b++) {
		if (!size_seen[blk_size[b]])
			nmeas++;
		size_seen[blk_size[b]] = 1;
		for (unsigned ti = 0; ti < p->nthreads; ti++) {
			const struct cellres *c = cell_at(p, blk_run[b], blk_size[b], ti);
			if (c->have && c->ok)
				thr_seen[ti] = 1;
		}
	}
	if (nmeas == 0)
		goto out; /* nothing measured: no chart */
	unsigned cols = nmeas > 3 ? 3 : nmeas;
	unsigned rows = (nmeas + cols - 1) / cols;
	fprintf(fg, "set terminal pngcairo size %u,%u noenhanced font ',9'\nset output ",
		640 * cols, 380 * rows + 40);
	gp_quote(fg, png);
	plot_styles(fg, p);
	fprintf(fg, "\nset multiplot layout %u,%u title 'surand bench: aggregate MB/s vs threads "
		    "(log scales)'\n", rows, cols);
	fprintf(fg, "set logscale x 2\nset logscale y 10\nset xlabel 'threads'\nset ylabel "
		    "'MB/s'\nset key outside right top font ',7'\nset grid\nset xtics (");
	for (unsigned ti = 0, first = 1; ti < p->nthreads; ti++)
		if (thr_seen[ti]) {
			fprintf(fg, "%s%u", first ? "" : ", ", p->threads[ti]);
			first = 0;
		}
	fprintf(fg, ")\n");
	for (unsigned si = 0; si < p->nsizes; si++) {
		char sz[32];
		int first = 1;
		if (!size_seen[si])
			continue;
		fmt_bytes(sz, sizeof(sz), p->sizes[si]);
		fprintf(fg, "set title '%s calls'\nplot ", sz);
		for (unsigned b = 0; b < idx; b++) {
			if (blk_size[b] != si)
				continue;
			fprintf(fg, "%s", first ? "" : ", \\\n     ");
			gp_quote(fg, dat);
			fprintf(fg, " index %u using 1:2 with linespoints ls %u title ", b, blk_run[b] + 1);
			gp_quote(fg, p->runs[blk_run[b]].name);
			first = 0;
		}
		fprintf(fg, "\n");
	}
	fprintf(fg, "unset multiplot\n");
	if (lidx) {
		fprintf(fg, "set terminal pngcairo size 1100,450 noenhanced font ',9'\nset output ");
		gp_quote(fg, latpng);
		fprintf(fg, "\nset multiplot layout 1,2 title 'surand bench: latency per call size, %u "
			    "thread (sampled calls)'\n", p->threads[t1]);
		fprintf(fg, "set logscale x 2\nset logscale y 10\nset xlabel 'call size (bytes)'\n"
			    "set ylabel 'ns'\nset xtics (");
		for (unsigned si = 0, first = 1; si < p->nsizes; si++)
			if (size_seen[si]) {
				fprintf(fg, "%s%zu", first ? "" : ", ", p->sizes[si]);
				first = 0;
			}
		fprintf(fg, ")\n");
		for (int q = 0; q < 2; q++) {
			fprintf(fg, "set title '%s'\nplot ", q == 0 ? "p50" : "p99");
			for (unsigned b = 0; b < lidx; b++) {
				fprintf(fg, "%s", b ? ", \\\n     " : "");
				gp_quote(fg, lat);
				fprintf(fg, " index %u using 1:%d with linespoints ls %u title ", b, q + 2,
					lrun[b] + 1);
				gp_quote(fg, p->runs[lrun[b]].name);
			}
			fprintf(fg, "\n");
		}
		fprintf(fg, "unset multiplot\n");
	}
	fclose(fg);
	fg = NULL;

	pid_t pid = fork();
	if (pid == 0) {
		int nul = open("/dev/null", O_WRONLY);
		if (nul >= 0)
			dup2(nul, 1);
		execl(gnuplot, "gnuplot", gp, (char *)NULL);
		_exit(127);
	}
	int st = 0;
	if (pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0) {
		rc = 0;
		fprintf(stderr, "surand bench: wrote %s%s%s\n", png, lidx ? " and " : "",
			lidx ? latpng : "");
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
