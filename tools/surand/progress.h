/*
 * progress.h - the progress line on stderr (bytes, rate, ETA) of the surand
 * command.  On a terminal one line redrawn with '\r' at most 5 times a
 * second; forced (--progress) onto a non-terminal, one line per second.
 * SPDX-License-Identifier: MIT
 */
#ifndef SURAND_TOOLS_PROGRESS_H
#define SURAND_TOOLS_PROGRESS_H

#include <stdint.h>

/* total unknown (an infinite run): no percentage and no ETA. */
#define SURAND_PROGRESS_UNKNOWN UINT64_MAX

enum surand_progress_mode {
	SURAND_PROGRESS_AUTO,  /* shown when stderr is a terminal and the run lasts > 0.5 s */
	SURAND_PROGRESS_FORCE, /* --progress: always shown, with a final line */
};

struct surand_progress {
	int on;           /* drawing at all */
	int tty;          /* stderr is a terminal: redraw with '\r' */
	int forced;
	int drawn;        /* something is on the line (needs a final '\n') */
	uint64_t shown;   /* the byte count last drawn, while drawn */
	double t0, last;  /* seconds (CLOCK_MONOTONIC) */
	uint64_t total;   /* bytes, or SURAND_PROGRESS_UNKNOWN */
	char label[48];
};

void surand_progress_start(struct surand_progress *p, enum surand_progress_mode mode,
			   const char *label, uint64_t total);
void surand_progress_update(struct surand_progress *p, uint64_t done);
/* Draws the final state (if anything was or must be shown) and ends the line. */
void surand_progress_end(struct surand_progress *p, uint64_t done);

/* "1.50 GiB" into buf (len >= 16). */
void surand_human_bytes(char *buf, unsigned len, double bytes);

#endif
