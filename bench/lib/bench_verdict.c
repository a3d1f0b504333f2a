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

void bench_fmt_ratio(char *buf, size_t n, double ratio)
{
	if (!(ratio > 0))
		snprintf(buf, n, "-");
	else if (ratio >= 9.95)
		snprintf(buf, n, "%.0fx", ratio);
	else
		snprintf(buf, n, "%.2fx", ratio);
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

int bench_claim_verdict(const double *ratios, size_t n)
{
	int missing = n == 0;

	for (size_t i = 0; i < n; i++) {
		if (ratios[i] != ratios[i])
			missing = 1;
		else if (!(ratios[i] > 1.0))
			return BENCH_DOES_NOT_HOLD; /* one ratio at or below 1 refutes it */
	}
	return missing ? BENCH_NOT_MEASURED : BENCH_HOLDS;
}

const char *bench_claim_words(int verdict)
{
	switch (verdict) {
	case BENCH_HOLDS: return "holds";
	case BENCH_DOES_NOT_HOLD: return "does not hold here";
	case BENCH_NOT_JUDGED: return "not judged";
	}
	return "not measured";
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
