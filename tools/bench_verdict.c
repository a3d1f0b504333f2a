/* bench_verdict.c - the words of `surand bench`'s report (bench.h).  SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>

#include "bench.h"

void bench_fmt_latency(char *buf, size_t n, double ns, double res_ns)
{
	if (res_ns < 1)
		res_ns = 1;
	/* a figure under what the clock can tell apart is not a measurement: never "0" */
	if (ns < res_ns)
		snprintf(buf, n, "< %.0f ns", res_ns);
	else
		snprintf(buf, n, "%.0f", ns);
}

void bench_ratio_words(char *buf, size_t n, double ratio)
{
	if (!(ratio > 0))
		snprintf(buf, n, "no ratio");
	else if (ratio >= 9.95)
		snprintf(buf, n, "%.0fx faster", ratio);
	else if (ratio >= 1)
		snprintf(buf, n, "%.2fx faster", ratio);
	else
		snprintf(buf, n, "%.2fx (%.2fx slower)", ratio, 1 / ratio);
}

int bench_scaling_judgeable(unsigned ncpu)
{
	return ncpu > 2;
}

int bench_busy_warning(char *buf, size_t n, double load1, unsigned ncpu, unsigned starved,
		       unsigned measured, double share)
{
	int busy_load = load1 >= 0 && ncpu > 0 && load1 > (double)ncpu;
	int busy_share = measured > 0 && starved * 10 > measured;
	size_t l;

	buf[0] = '\0';
	if (!busy_load && !busy_share)
		return 0;
	snprintf(buf, n, "warning: this machine was busy with other work:");
	if (busy_load) {
		l = strlen(buf);
		snprintf(buf + l, n - l, " load average %.2f on %u CPUs before the run%s", load1, ncpu,
			 busy_share ? ";" : "");
	}
	if (busy_share) {
		l = strlen(buf);
		snprintf(buf + l, n - l, " %u of %u cells got under %.0f%% of the CPU time they asked for",
			 starved, measured, share * 100);
	}
	l = strlen(buf);
	snprintf(buf + l, n - l, ". The figures below understate every source; the ratios "
				 "between sources of one run are less affected.");
	return 1;
}

int bench_target_verdict(double ratio, double need, double goal, int at_most)
{
	int met = at_most ? ratio <= need : ratio >= need; /* NaN: neither */

	if (!met)
		return BENCH_MISS;
	if (goal > 0 && !(at_most ? ratio <= goal : ratio >= goal))
		return BENCH_PASS_BELOW_GOAL;
	return BENCH_PASS;
}

double bench_worst_step(const double *ns, size_t n, size_t *at)
{
	double worst = 0;

	*at = 0;
	for (size_t i = 0; i + 1 < n; i++) {
		if (!(ns[i] > 0) || !(ns[i + 1] > 0))
			return 0;
		if (ns[i] / ns[i + 1] > worst) {
			worst = ns[i] / ns[i + 1];
			*at = i;
		}
	}
	return worst;
}
