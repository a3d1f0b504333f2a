/*
 * bench_run.c - `surand bench`, running: one child process per source, every cell of the plan, the
 * results collected through a pipe, progress on a terminal.
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

static double now_s(void)
{
	return (double)bench_now_ns() / 1e9;
}

/* A measured cell whose rate the window's edges dominate (FEW_CALLS_PER_THREAD). */

/* ---- the child: one source, every cell ------------------------------------------ */

static void child_run(const struct plan *p, const struct run *r, int fd)
{
	char desc[400] = "", why[256] = "";
	if (r->src->absent) {
		dprintf(fd, "A %s\n", r->src->absent);
		return;
	}
	if (r->src->setup(r->arg, desc, sizeof(desc), why, sizeof(why)) != 0) {
		dprintf(fd, "A %s\n", why);
		return;
	}
	dprintf(fd, "D %s\n", desc);
	double seconds = r->seconds > 0 ? r->seconds : p->seconds;
	double warmup = r->seconds > 0 ? r->seconds / 4 : p->warmup;
	unsigned passes = r->passes > 1 ? r->passes : 1;
	if (warmup < 0.01)
		warmup = 0.01;
	/* passes: every size once, then again (the parent keeps each cell's best) */
	for (unsigned pass = 0; pass < passes; pass++) {
		for (unsigned si = 0; si < p->nsizes; si++) {
			for (unsigned ti = 0; ti < p->nthreads; ti++) {
				struct bench_result res;
				if (!planned(p, (unsigned)(r - p->runs), si, ti))
					continue;
				dprintf(fd, "S %u %u\n", si, ti);
				if (bench_run_cell(r->src, p->sizes[si], p->threads[ti], seconds, warmup,
						   NULL, &res) != 0) {
					dprintf(fd, "E %u %u %d %s\n", si, ti, res.machine_limit, res.error);
					continue;
				}
				dprintf(fd, "R %u %u %llu %.17g %.17g %.17g %.17g %llu %u %llu %llu %d %.6g\n", si,
					ti, (unsigned long long)res.calls, res.seconds, res.p50_ns, res.p99_ns,
					res.p999_ns, (unsigned long long)res.samples, res.sample_every,
					(unsigned long long)res.zero_checks, (unsigned long long)res.errors,
					res.check_ok, res.cpu_share);
			}
		}
	}
}

/* ---- progress (stderr, only on a terminal) ----------------------------------------- */

struct progress {
	int on;
	unsigned total, done;
	double t_start;
	double est_cell; /* seconds per cell before any has finished */
};

static void progress_show(struct progress *pg, const char *src, size_t size, unsigned threads)
{
	if (!pg->on)
		return;
	double el = now_s() - pg->t_start;
	double per = pg->done ? el / pg->done : pg->est_cell;
	unsigned eta = (unsigned)(per * (pg->total - pg->done) + 0.5);
	char sz[32];
	fmt_bytes(sz, sizeof(sz), size);
	fprintf(stderr, "\r\033[K[%u/%u] %s, %s, %u thread%s, ETA %um%02us", pg->done + 1,
		pg->total, src, sz, threads, threads == 1 ? "" : "s", eta / 60, eta % 60);
	fflush(stderr);
}

static void progress_clear(struct progress *pg)
{
	if (pg->on) {
		fprintf(stderr, "\r\033[K");
		fflush(stderr);
	}
}

/* ---- the parent: run every child, collect ---------------------------------------- */

/* The cells a source's child runs over all rounds and passes. */
static unsigned cells_of(const struct plan *p, unsigned ri)
{
	const struct run *r = &p->runs[ri];

	return planned_cells(p, ri) * p->rounds * (r->passes > 1 ? r->passes : 1);
}

static void parent_collect(struct plan *p, unsigned ri, FILE *in, struct progress *pg)
{
	struct run *r = &p->runs[ri];
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;

	while ((len = getline(&line, &cap, in)) > 0) {
		unsigned si, ti;
		int limit;
		if (line[len - 1] == '\n')
			line[--len] = 0;
		if (line[0] == 'A' && line[1] == ' ') {
			r->absent = 1;
			snprintf(r->why, sizeof(r->why), "%s", line + 2);
			pg->total -= cells_of(p, ri); /* known in the first round */
		} else if (line[0] == 'D' && line[1] == ' ') {
			snprintf(r->desc, sizeof(r->desc), "%s", line + 2);
		} else if (sscanf(line, "S %u %u", &si, &ti) == 2 && si < p->nsizes &&
			   ti < p->nthreads) {
			progress_show(pg, r->name, p->sizes[si], p->threads[ti]);
		} else if (line[0] == 'E' && sscanf(line, "E %u %u %d", &si, &ti, &limit) == 3 &&
			   si < p->nsizes && ti < p->nthreads) {
			struct cellres *c = cell_at(p, ri, si, ti);
			const char *msg = line + 2;
			/* an error in any round stands, whatever the other rounds did */
			for (int k = 0; k < 3 && msg; k++) {
				msg = strchr(msg, ' ');
				if (msg)
					msg++;
			}
			c->have = 1;
			c->ok = 0;
			c->r.machine_limit = limit != 0;
			snprintf(c->r.error, sizeof(c->r.error), "%s", msg ? msg : "failed");
			pg->done++;
		} else if (line[0] == 'R') {
			struct bench_result res;
			unsigned long long calls, samples, zeros, errors;
			int check;
			memset(&res, 0, sizeof(res));
			if (sscanf(line, "R %u %u %llu %lg %lg %lg %lg %llu %u %llu %llu %d %lg", &si,
				   &ti, &calls, &res.seconds, &res.p50_ns, &res.p99_ns, &res.p999_ns,
				   &samples, &res.sample_every, &zeros, &errors, &check,
				   &res.cpu_share) != 13 ||
			    si >= p->nsizes || ti >= p->nthreads || res.seconds <= 0)
				continue;
			res.calls = calls;
			res.samples = samples;
			res.zero_checks = zeros;
			res.errors = errors;
			res.check_ok = check;
			res.bytes = calls * p->sizes[si];
			res.calls_per_s = (double)calls / res.seconds;
			res.mb_per_s = (double)res.bytes / res.seconds / 1e6;
			res.ns_per_call_thread =
				(double)p->threads[ti] * res.seconds * 1e9 / (double)calls;
			struct cellres *c = cell_at(p, ri, si, ti);
			int ok = check && errors == 0;
			pg->done++;
			if (c->have && !c->ok)
				continue; /* failed in an earlier round: stays failed */
			if (c->have && ok && c->r.calls_per_s >= res.calls_per_s)
				continue; /* an earlier round was faster: keep it */
			c->have = 1;
			c->ok = ok;
			c->r = res;
		}
	}
	free(line);
}

int run_all(struct plan *p)
{
	struct progress pg = {.on = isatty(2), .t_start = now_s(),
			      .est_cell = p->warmup + p->seconds + 0.02};
	int failures = 0;

	for (unsigned ri = 0; ri < p->nruns; ri++)
		if (!p->runs[ri].absent)
			pg.total += cells_of(p, ri);

	for (unsigned step = 0; step < p->nruns * p->rounds; step++) {
		unsigned ri = step % p->nruns; /* round step / nruns: sources interleaved */
		struct run *r = &p->runs[ri];
		int pfd[2], status = 0;
		pid_t pid;

		if (r->absent || r->failed)
			continue;
		if (pipe(pfd) != 0) {
			r->failed = 1;
			snprintf(r->fail, sizeof(r->fail), "pipe: %s", strerror(errno));
			failures++;
			continue;
		}
		fflush(NULL);
		pid = fork();
		if (pid < 0) {
			r->failed = 1;
			snprintf(r->fail, sizeof(r->fail), "fork: %s", strerror(errno));
			close(pfd[0]);
			close(pfd[1]);
			failures++;
			continue;
		}
		if (pid == 0) {
			close(pfd[0]);
			signal(SIGPIPE, SIG_DFL);
			child_run(p, r, pfd[1]);
			_exit(0);
		}
		close(pfd[1]);
		FILE *in = fdopen(pfd[0], "r");
		if (in) {
			parent_collect(p, ri, in, &pg);
			fclose(in);
		} else {
			close(pfd[0]);
		}
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		if (WIFSIGNALED(status)) {
			r->failed = 1;
			snprintf(r->fail, sizeof(r->fail), "its process was killed by signal %d (%s)",
				 WTERMSIG(status), strsignal(WTERMSIG(status)));
		} else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
			r->failed = 1;
			snprintf(r->fail, sizeof(r->fail), "its process exited with status %d",
				 WEXITSTATUS(status));
		}
		if (!r->absent) {
			for (unsigned si = 0; si < p->nsizes; si++)
				for (unsigned ti = 0; ti < p->nthreads; ti++) {
					struct cellres *c = cell_at(p, ri, si, ti);
					if (!planned(p, ri, si, ti))
						continue;
					if (!c->have) {
						c->have = 1;
						snprintf(c->r.error, sizeof(c->r.error),
							 "not measured: %s",
							 r->failed ? r->fail : "no result came back");
						pg.done++;
					}
					/* the source's fault fails the run; the machine's is reported only */
					if (!c->ok && !c->r.machine_limit)
						r->failed = 1;
				}
		}
		failures += r->failed;
	}
	progress_clear(&pg);
	return failures;
}
