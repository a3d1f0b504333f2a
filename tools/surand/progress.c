/* progress.c - see progress.h.  SPDX-License-Identifier: MIT */
#include "progress.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PROGRESS_TTY_INTERVAL_S 0.2
#define PROGRESS_LOG_INTERVAL_S 1.0
#define PROGRESS_AUTO_DELAY_S 0.5

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void surand_human_bytes(char *buf, unsigned len, double b)
{
	static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
	unsigned u = 0;

	while (b >= 1024.0 && u + 1 < sizeof(unit) / sizeof(unit[0])) {
		b /= 1024.0;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%.0f B", b);
	else
		snprintf(buf, len, "%.2f %s", b, unit[u]);
}

void surand_progress_start(struct surand_progress *p, enum surand_progress_mode mode,
			   const char *label, uint64_t total)
{
	memset(p, 0, sizeof(*p));
	p->tty = isatty(STDERR_FILENO);
	p->forced = mode == SURAND_PROGRESS_FORCE;
	p->on = p->forced || p->tty;
	p->t0 = mono_s();
	p->last = p->t0;
	p->total = total;
	snprintf(p->label, sizeof(p->label), "%s", label ? label : "");
}

static void draw(struct surand_progress *p, uint64_t done, double now)
{
	char d[24], t[24], r[24], line[160];
	double el = now - p->t0, rate = el > 0 ? (double)done / el : 0;
	int n;

	surand_human_bytes(d, sizeof(d), (double)done);
	surand_human_bytes(r, sizeof(r), rate);
	if (p->total != SURAND_PROGRESS_UNKNOWN) {
		double pct = p->total ? 100.0 * (double)done / (double)p->total : 100.0;
		double eta = rate > 0 && done < p->total ? (double)(p->total - done) / rate : 0;
		unsigned long e = (unsigned long)(eta + 0.5);

		surand_human_bytes(t, sizeof(t), (double)p->total);
		n = snprintf(line, sizeof(line), "surand: %s%s%s / %s %3.0f%%  %s/s  ETA %lu:%02lu:%02lu",
			     p->label, *p->label ? " " : "", d, t, pct, r, e / 3600, e / 60 % 60, e % 60);
	} else {
		n = snprintf(line, sizeof(line), "surand: %s%s%s  %s/s  %.0f s", p->label,
			     *p->label ? " " : "", d, r, el);
	}
	if (n < 0)
		return;
	/* '\r' redraws; the padding erases a longer previous line */
	if (p->tty)
		fprintf(stderr, "\r%-78s", line);
	else
		fprintf(stderr, "%s\n", line);
	fflush(stderr);
	p->drawn = 1;
	p->shown = done;
	p->last = now;
}

void surand_progress_update(struct surand_progress *p, uint64_t done)
{
	double now;

	if (!p->on)
		return;
	now = mono_s();
	if (!p->forced && now - p->t0 < PROGRESS_AUTO_DELAY_S)
		return;
	if (now - p->last < (p->tty ? PROGRESS_TTY_INTERVAL_S : PROGRESS_LOG_INTERVAL_S) &&
	    p->drawn)
		return;
	draw(p, done, now);
}

void surand_progress_end(struct surand_progress *p, uint64_t done)
{
	if (!p->on)
		return;
	/* the final state, unless the last line drawn already shows it (a run
	 * whose one update came at the end would print the same line twice) */
	if (p->drawn ? p->shown != done : p->forced)
		draw(p, done, mono_s());
	if (p->drawn && p->tty)
		fputc('\n', stderr);
	p->drawn = 0;
}
