/*
 * bench_report.c - `surand bench`, the text report on stdout: machine, sources, the table, notes, the
 * comparisons with the peers of the run, the README's claims checked, and the scaling verdicts.
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

/* The monotonic clock's resolution in ns (at least 1). */
static double clock_res_ns(void)
{
	struct timespec r;

	if (clock_getres(CLOCK_MONOTONIC, &r) != 0)
		return 1;
	return (double)r.tv_sec * 1e9 + (double)r.tv_nsec < 1 ? 1 : (double)r.tv_sec * 1e9 + (double)r.tv_nsec;
}


static void fmt_rate(char *b, size_t n, double v)
{
	if (!(v == v))
		snprintf(b, n, "-");
	else if (v >= 1e9)
		snprintf(b, n, "%.2fG", v / 1e9);
	else if (v >= 1e6)
		snprintf(b, n, "%.2fM", v / 1e6);
	else if (v >= 1e3)
		snprintf(b, n, "%.2fk", v / 1e3);
	else
		snprintf(b, n, "%.1f", v);
}

static void fmt_num(char *b, size_t n, double v, int prec)
{
	if (!(v == v))
		snprintf(b, n, "-");
	else
		snprintf(b, n, "%.*f", prec, v);
}

void fmt_bytes(char *b, size_t n, size_t v)
{
	if (v >= 1024 * 1024 && v % (1024 * 1024) == 0)
		snprintf(b, n, "%zu MiB", v >> 20);
	else if (v >= 1024 && v % 1024 == 0)
		snprintf(b, n, "%zu KiB", v >> 10);
	else
		snprintf(b, n, "%zu B", v);
}

/* ---- output ----------------------------------------------------------------------- */

void machine_info(struct machine *m)
{
	struct utsname u;
	FILE *f;
	char line[512];

	memset(m, 0, sizeof(*m));
	if (uname(&u) == 0)
		snprintf(m->kernel, sizeof(m->kernel), "%s %s %s", u.sysname, u.release, u.machine);
	snprintf(m->cpu, sizeof(m->cpu), "unknown CPU");
	f = fopen("/proc/cpuinfo", "r");
	if (f) {
		while (fgets(line, sizeof(line), f)) {
			char *c = strchr(line, ':');
			if (c && (strncmp(line, "model name", 10) == 0 ||
				  strncmp(line, "Processor", 9) == 0)) {
				c++;
				while (*c == ' ' || *c == '\t')
					c++;
				c[strcspn(c, "\n")] = 0;
				snprintf(m->cpu, sizeof(m->cpu), "%s", c);
				break;
			}
		}
		fclose(f);
	}
	snprintf(m->glibc, sizeof(m->glibc), "%s", gnu_get_libc_version());
	snprintf(m->chacha, sizeof(m->chacha), "%s", surand_chacha20_impl_name());
}

const char *kind_name(const struct run *r)
{
	if (!r->src)
		return "backend";
	switch (r->src->kind) {
	case BENCH_KIND_BACKEND: return "backend";
	case BENCH_KIND_BARE: return "bare";
	case BENCH_KIND_SYSTEM: return "system";
	case BENCH_KIND_LIBRARY: return "library";
	}
	return "?";
}

/* A loaded machine is said first: every figure below depends on it. */
static void print_busy_warning(struct plan *p)
{
	unsigned st = 0, me = 0;
	char warn[400];

	for (unsigned ri = 0; ri < p->nruns; ri++)
		for (unsigned si = 0; !p->runs[ri].absent && si < p->nsizes; si++)
			for (unsigned ti = 0; ti < p->nthreads; ti++) {
				struct cellres *c = cell_at(p, ri, si, ti);

				if (!c->have || c->r.error[0])
					continue;
				me++;
				st += c->r.cpu_share < BUSY_CPU_SHARE;
			}
	if (bench_busy_warning(warn, sizeof(warn), p->load1, p->ncpu, st, me, BUSY_CPU_SHARE))
		printf("%s\n\n", warn);
}

/* The machine, the command, how the cells were measured, the sources. */
static void print_header(struct plan *p, const struct machine *m, int w)
{
	int any_absent = 0;

	printf("surand bench: %s; %s; %u CPUs; glibc %s; ChaCha20 body %s\n", m->kernel, m->cpu,
	       p->ncpu, m->glibc, m->chacha);
	printf("command: %s\n", p->command);
	printf("%.3g s per cell after %.3g s of warm-up (not counted); every source in its own "
	       "process;\n",
	       p->seconds, p->warmup);
	if (p->rounds > 1)
		printf("the whole plan run %u times, sources interleaved; each cell its best round;\n",
		       p->rounds);
	for (unsigned i = 0; i < p->nruns; i++)
		if (!p->runs[i].absent && (p->runs[i].seconds > 0 || p->runs[i].passes > 1))
			printf("%s: %.3g s per cell, %u pass%s over its sizes, each cell its best;\n",
			       p->runs[i].name, p->runs[i].seconds > 0 ? p->runs[i].seconds : p->seconds,
			       p->runs[i].passes > 1 ? p->runs[i].passes : 1,
			       p->runs[i].passes > 1 ? "es" : "");
	printf("latency: every Nth call timed (N per thread, so that timing costs < 1%%; "
	       "a clock pair, %.0f ns, subtracted)\n\n",
	       bench_timer_overhead_ns());

	printf("sources (* the default backend, what surand_bytes() uses: surand (%s)):\n",
	       p->backends[0]);
	for (unsigned i = 0; i < p->nruns; i++) {
		const struct run *r = &p->runs[i];
		if (r->absent)
			continue;
		printf("  %-*s %s\n", w, r->name, r->desc[0] ? r->desc : "(no description)");
	}
	for (unsigned i = 0; i < p->nruns; i++)
		any_absent |= p->runs[i].absent;
	if (any_absent) {
		printf("absent:\n");
		for (unsigned i = 0; i < p->nruns; i++)
			if (p->runs[i].absent)
				printf("  %-*s %s\n", w, p->runs[i].name, p->runs[i].why);
	}
}

/* One measured cell as a table row; returns 1 when it made few calls. */
static int print_cell(const char *name, int w, const char *sz, unsigned threads,
		      const struct bench_result *x)
{
	char cps[24], mbs[24], ns[24], a[24], b[24], d[24], chk[48];
	int few = few_calls(x, threads);

	fmt_rate(cps, sizeof(cps), x->calls_per_s);
	fmt_num(mbs, sizeof(mbs), x->mb_per_s, 1);
	fmt_num(ns, sizeof(ns), x->ns_per_call_thread, x->ns_per_call_thread < 1e5 ? 1 : 0);
	bench_fmt_latency(a, sizeof(a), x->p50_ns, clock_res_ns());
	bench_fmt_latency(b, sizeof(b), x->p99_ns, clock_res_ns());
	bench_fmt_latency(d, sizeof(d), x->p999_ns, clock_res_ns());
	if (x->errors)
		snprintf(chk, sizeof(chk), "FAILED %llu calls", (unsigned long long)x->errors);
	else if (!x->check_ok)
		snprintf(chk, sizeof(chk), "BAD: buffer not written");
	else
		snprintf(chk, sizeof(chk), "ok");
	if (few) {
		size_t l = strlen(chk);
		snprintf(chk + l, sizeof(chk) - l, ", few calls");
	}
	printf("%-*s %9s %7u %10s %10s %11s %9s %9s %9s %5.0f  %s\n", w, name, sz, threads, cps,
	       mbs, ns, a, b, d, x->cpu_share * 100, chk);
	return few;
}

/* The table of every planned cell, then the notes on starved and few-call cells. */
static void print_table(struct plan *p, int w)
{
	unsigned starved = 0, measured = 0, few = 0;
	char sz[32];

	printf("\n%-*s %9s %7s %10s %10s %11s %9s %9s %9s %5s  %s\n", w, "source", "size",
	       "threads", "calls/s", "MB/s", "ns/call/thr", "p50 ns", "p99 ns", "p99.9 ns", "cpu%",
	       "check");
	for (unsigned ri = 0; ri < p->nruns; ri++) {
		const struct run *r = &p->runs[ri];
		char name[64];
		if (r->absent)
			continue;
		snprintf(name, sizeof(name), "%s%s", r->name, r->is_default_backend ? "*" : "");
		for (unsigned si = 0; si < p->nsizes; si++) {
			fmt_bytes(sz, sizeof(sz), p->sizes[si]);
			for (unsigned ti = 0; ti < p->nthreads; ti++) {
				struct cellres *c = cell_at(p, ri, si, ti);
				if (!planned(p, ri, si, ti))
					continue;
				if (c->r.error[0]) {
					printf("%-*s %9s %7u  %s\n", w, name, sz, p->threads[ti],
					       c->r.error);
					continue;
				}
				few += (unsigned)print_cell(name, w, sz, p->threads[ti], &c->r);
				measured++;
				starved += c->r.cpu_share < BUSY_CPU_SHARE;
			}
		}
		if (r->failed && r->fail[0])
			printf("%-*s  FAILED: %s\n", w, name, r->fail);
	}
	if (starved)
		printf("note: %u of %u cells got under %.0f%% of the CPU time they asked for (cpu%%): "
		       "other work on this machine; their rates understate the sources\n",
		       starved, measured, BUSY_CPU_SHARE * 100);
	if (few)
		printf("note: %u of %u cells made fewer calls than %u x threads (\"few calls\" in check): "
		       "each thread's count can be one call off at each edge of the window, so the "
		       "edges dominate their rates; a longer --seconds measures them\n",
		       few, measured, FEW_CALLS_PER_THREAD);
}

/* surand against the peers of this run, each as a plain ratio. */
static void print_comparisons(struct plan *p, const struct comparison *cmp)
{
	printf("\ncomparisons, surand (%s) against peers measured in this run "
	       "(ratios of this run's cells):\n", p->backends[0]);
	for (int i = 0; i < NCOMPARISONS; i++) {
		const struct comparison *c = &cmp[i];
		char ratio[32];

		if (!c->have) {
			printf("  surand (%s) %s: not measured (%s)\n", p->backends[0], c->what,
			       c->detail);
			continue;
		}
		bench_fmt_ratio(ratio, sizeof(ratio), c->ratio);
		printf("  surand (%s) %s: %s %s  (%s)\n", p->backends[0], c->what, ratio, c->of,
		       c->detail);
	}
}

/* The README's claims, each checked on this run's figures. */
static void print_claims(struct plan *p, const struct claim *claims)
{
	printf("\nclaims of the README, on this machine (surand (%s), this run):\n", p->backends[0]);
	for (int i = 0; i < NCLAIMS; i++) {
		const struct claim *c = &claims[i];

		printf("  %s (%s): %s", c->claim, c->over, bench_claim_words(c->verdict));
		if (c->verdict == BENCH_NOT_JUDGED) {
			printf(": %s\n", c->detail);
			continue;
		}
		if (c->verdict == BENCH_NOT_MEASURED) {
			printf(" (%s)\n", c->detail);
			continue;
		}
		printf(" (");
		for (unsigned k = 0; k < c->nratios; k++) {
			char ratio[32];

			bench_fmt_ratio(ratio, sizeof(ratio), c->ratios[k]);
			printf("%s%s", k ? ", " : "", c->ratios[k] == c->ratios[k] ? ratio : "n/a");
		}
		printf("%s)\n", c->detail);
	}
}

/* Reference figures for the command, the preload and surandfs. */
static void print_references(struct plan *p)
{
	const struct bench_result *b1 = result_of(p, "bare", 65536, 1);
	const struct bench_result *b2 = result_of(p, "bare", 65536, 2);
	const struct bench_result *u64k = result_of(p, "urandom", 65536, 1);
	const struct bench_result *u4k = result_of(p, "urandom", 4096, 1);

	if (!b1 && !u64k)
		return;
	printf("references for surand -n, the preload and surandfs (1 thread unless said):");
	if (b1)
		printf(" bare body 64 KiB %.0f MB/s", b1->mb_per_s);
	if (b1 && b2)
		printf(", its 1->2 thread scaling %.2fx", b2->calls_per_s / b1->calls_per_s);
	if (u64k)
		printf("; /dev/urandom 64 KiB reads %.0f MB/s", u64k->mb_per_s);
	if (u4k)
		printf(", 4 KiB reads %.0f MB/s", u4k->mb_per_s);
	printf("\n");
}

/* Every source's scaling verdict (none on 2 CPUs or fewer). */
static void print_scales(struct plan *p, int w)
{
	char sz[32];

	printf("\nscales (aggregate calls/s at nproc=%u threads vs 1 thread, worst size; "
	       "yes when >= %.0f%% of linear, i.e. >= %.2fx):\n",
	       p->ncpu, SCALES_EFFICIENCY * 100, SCALES_EFFICIENCY * (p->ncpu > 1 ? p->ncpu : 2));
	for (unsigned ri = 0; ri < p->nruns; ri++) {
		const struct run *r = &p->runs[ri];
		struct scale sc;
		if (r->absent)
			continue;
		compute_scale(p, r, &sc);
		if (!bench_scaling_judgeable(p->ncpu)) {
			/* two threads on two CPUs share them with the system: no verdict */
			printf("  %-*s scales: cannot be judged on %u CPU%s (needs 3 or more)", w, r->name,
			       p->ncpu, p->ncpu == 1 ? "" : "s");
			if (sc.have)
				printf("; %.2fx at %u threads vs 1\n", sc.ratio, sc.threads);
			else
				printf("\n");
			continue;
		}
		if (!sc.have) {
			printf("  %-*s scales: %s\n", w, r->name, sc.why);
			continue;
		}
		fmt_bytes(sz, sizeof(sz), sc.size);
		printf("  %-*s scales: %-3s  %.2fx at %u threads vs 1 (worst size %s, %.0f%% of "
		       "linear)\n",
		       w, r->name, sc.yes ? "yes" : "no", sc.ratio, sc.threads, sz, sc.eff * 100);
	}
	if (p->ncpu <= 2)
		printf("note: %u CPU%s: scaling cannot show here; the runs above %u threads are "
		       "oversubscribed (lock convoys, preempted lock holders)\n",
		       p->ncpu, p->ncpu == 1 ? "" : "s", p->ncpu);
}

void print_report(struct plan *p, const struct machine *m, const struct comparison *cmp,
		  const struct claim *claims)
{
	int w = 6;

	for (unsigned i = 0; i < p->nruns; i++)
		if ((int)strlen(p->runs[i].name) + (p->runs[i].is_default_backend ? 1 : 0) > w)
			w = (int)strlen(p->runs[i].name) + (p->runs[i].is_default_backend ? 1 : 0);
	print_busy_warning(p);
	print_header(p, m, w);
	print_table(p, w);
	print_comparisons(p, cmp);
	print_claims(p, claims);
	print_references(p);
	print_scales(p, w);
}
