/*
 * bench_export.c - `surand bench`, the results as CSV and as JSON (--csv, --json).
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

void csv_write(FILE *f, struct plan *p)
{
	fprintf(f, "source,kind,size,threads,seconds,calls,bytes,calls_per_s,mb_per_s,"
		   "ns_per_call_thread,p50_ns,p99_ns,p999_ns,samples,sample_every,check,error,"
		   "cpu_share,few_calls\n");
	for (unsigned ri = 0; ri < p->nruns; ri++) {
		const struct run *r = &p->runs[ri];
		if (r->absent) {
			fprintf(f, "%s,absent,,,,,,,,,,,,,,,\"%s\",,\n", r->name, r->why);
			continue;
		}
		for (unsigned si = 0; si < p->nsizes; si++)
			for (unsigned ti = 0; ti < p->nthreads; ti++) {
				const struct cellres *c = cell_at(p, ri, si, ti);
				const struct bench_result *x = &c->r;
				if (!planned(p, ri, si, ti))
					continue;
				if (x->error[0]) {
					fprintf(f, "%s,%s,%zu,%u,,,,,,,,,,,,,\"%s\",,\n", r->name,
						kind_name(r), p->sizes[si], p->threads[ti], x->error);
					continue;
				}
				fprintf(f,
					"%s,%s,%zu,%u,%.6f,%llu,%llu,%.1f,%.3f,%.3f,%.0f,%.0f,%.0f,%llu,"
					"%u,%s,,%.3f,%d\n",
					r->name, kind_name(r), p->sizes[si], p->threads[ti], x->seconds,
					(unsigned long long)x->calls, (unsigned long long)x->bytes,
					x->calls_per_s, x->mb_per_s, x->ns_per_call_thread, x->p50_ns,
					x->p99_ns, x->p999_ns, (unsigned long long)x->samples,
					x->sample_every,
					x->errors ? "failed" : x->check_ok ? "ok" : "unwritten",
					x->cpu_share, few_calls(x, p->threads[ti]));
			}
	}
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void json_num(FILE *f, double v)
{
	if (v == v && !isinf(v))
		fprintf(f, "%.6g", v);
	else
		fputs("null", f);
}

/* "comparisons": surand against each peer of the run, a ratio or null. */
static void json_comparisons(FILE *f, const struct plan *p, const struct comparison *cmp)
{
	char what[320];

	fprintf(f, "\n  ],\n  \"comparisons\": [");
	for (int i = 0; i < NCOMPARISONS; i++) {
		snprintf(what, sizeof(what), "surand (%s) %s", p->backends[0], cmp[i].what);
		fprintf(f, "%s\n    {\"what\": ", i ? "," : "");
		json_str(f, what);
		fprintf(f, ", \"peer\": ");
		json_str(f, cmp[i].peer);
		fprintf(f, ", \"ratio\": ");
		json_num(f, cmp[i].have ? cmp[i].ratio : NAN);
		fprintf(f, ", \"of\": ");
		json_str(f, cmp[i].of);
		fprintf(f, ", \"detail\": ");
		json_str(f, cmp[i].detail);
		fprintf(f, "}");
	}
}

/* "claims": the README's claims, holds true / false, or null (not measured, not judged). */
static void json_claims(FILE *f, const struct claim *claims)
{
	fprintf(f, "\n  ],\n  \"claims\": [");
	for (int i = 0; i < NCLAIMS; i++) {
		const struct claim *c = &claims[i];
		const char *detail = c->detail;

		while (*detail == ';' || *detail == ' ')
			detail++;
		fprintf(f, "%s\n    {\"claim\": ", i ? "," : "");
		json_str(f, c->claim);
		fprintf(f, ", \"over\": ");
		json_str(f, c->over);
		fprintf(f, ", \"holds\": %s, \"verdict\": ",
			c->verdict == BENCH_HOLDS ? "true"
			: c->verdict == BENCH_DOES_NOT_HOLD ? "false" : "null");
		json_str(f, bench_claim_words(c->verdict));
		fprintf(f, ", \"ratios\": [");
		for (unsigned k = 0; k < c->nratios; k++) {
			fprintf(f, "%s", k ? ", " : "");
			json_num(f, c->ratios[k]);
		}
		fprintf(f, "], \"detail\": ");
		json_str(f, detail);
		fprintf(f, "}");
	}
}

void json_write(FILE *f, struct plan *p, const struct machine *m, const struct comparison *cmp,
		const struct claim *claims)
{
	fprintf(f, "{\n  \"machine\": {\"kernel\": ");
	json_str(f, m->kernel);
	fprintf(f, ", \"cpu\": ");
	json_str(f, m->cpu);
	fprintf(f, ", \"cpus\": %u, \"glibc\": ", p->ncpu);
	json_str(f, m->glibc);
	fprintf(f, ", \"chacha20_body\": ");
	json_str(f, m->chacha);
	fprintf(f, "},\n  \"command\": ");
	json_str(f, p->command);
	fprintf(f, ",\n  \"seconds\": %g, \"warmup_seconds\": %g, \"rounds\": %u,\n  \"sources\": [",
		p->seconds, p->warmup, p->rounds);
	for (unsigned ri = 0; ri < p->nruns; ri++) {
		const struct run *r = &p->runs[ri];
		fprintf(f, "%s\n    {\"name\": ", ri ? "," : "");
		json_str(f, r->name);
		fprintf(f, ", \"kind\": \"%s\", \"default\": %s, \"absent\": %s, \"what\": ",
			kind_name(r), r->is_default_backend ? "true" : "false",
			r->absent ? "true" : "false");
		json_str(f, r->absent ? r->why : r->desc);
		fprintf(f, "}");
	}
	fprintf(f, "\n  ],\n  \"results\": [");
	int first = 1;
	for (unsigned ri = 0; ri < p->nruns; ri++) {
		const struct run *r = &p->runs[ri];
		if (r->absent)
			continue;
		for (unsigned si = 0; si < p->nsizes; si++)
			for (unsigned ti = 0; ti < p->nthreads; ti++) {
				const struct bench_result *x = &cell_at(p, ri, si, ti)->r;
				if (!planned(p, ri, si, ti))
					continue;
				fprintf(f, "%s\n    {\"source\": ", first ? "" : ",");
				first = 0;
				json_str(f, r->name);
				fprintf(f, ", \"size\": %zu, \"threads\": %u", p->sizes[si],
					p->threads[ti]);
				if (x->error[0]) {
					fprintf(f, ", \"error\": ");
					json_str(f, x->error);
					fprintf(f, "}");
					continue;
				}
				fprintf(f, ", \"seconds\": %.6f, \"calls\": %llu, \"calls_per_s\": ",
					x->seconds, (unsigned long long)x->calls);
				json_num(f, x->calls_per_s);
				fprintf(f, ", \"mb_per_s\": ");
				json_num(f, x->mb_per_s);
				fprintf(f, ", \"ns_per_call_thread\": ");
				json_num(f, x->ns_per_call_thread);
				fprintf(f, ", \"p50_ns\": ");
				json_num(f, x->p50_ns);
				fprintf(f, ", \"p99_ns\": ");
				json_num(f, x->p99_ns);
				fprintf(f, ", \"p999_ns\": ");
				json_num(f, x->p999_ns);
				fprintf(f, ", \"cpu_share\": ");
				json_num(f, x->cpu_share);
				fprintf(f,
					", \"samples\": %llu, \"sample_every\": %u, \"check\": \"%s\", "
					"\"few_calls\": %s}",
					(unsigned long long)x->samples, x->sample_every,
					x->errors ? "failed" : x->check_ok ? "ok" : "unwritten",
					few_calls(x, p->threads[ti]) ? "true" : "false");
			}
	}
	json_comparisons(f, p, cmp);
	json_claims(f, claims);
	fprintf(f, "\n  ],\n  \"scales\": [");
	first = 1;
	for (unsigned ri = 0; ri < p->nruns; ri++) {
		struct scale sc;
		if (p->runs[ri].absent)
			continue;
		compute_scale(p, &p->runs[ri], &sc);
		fprintf(f, "%s\n    {\"source\": ", first ? "" : ",");
		first = 0;
		json_str(f, p->runs[ri].name);
		fprintf(f, ", \"scales\": %s, \"threads\": %u, \"ratio\": ",
			!sc.have ? "null" : sc.yes ? "true" : "false", sc.threads);
		json_num(f, sc.have ? sc.ratio : NAN);
		fprintf(f, ", \"worst_size\": %zu, \"threshold_efficiency\": %g}", sc.size,
			SCALES_EFFICIENCY);
	}
	fprintf(f, "\n  ]\n}\n");
}
