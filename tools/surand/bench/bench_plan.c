/*
 * bench_plan.c - `surand bench`, planning: the option lists, the plan of sources x sizes x threads, and
 * reading the results (the comparisons with the peers, the README's claims checked, and the
 * scaling verdicts).
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

/* ---- small helpers ---------------------------------------------------------- */

int usage_failed;

void usage_error(const char *fmt, ...)
{
	va_list ap;
	if (usage_failed)
		return;
	usage_failed = 1;
	fputs("surand: bench: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" (see surand bench --help)\n", stderr);
}

int split_list(const char *s, char items[][48], unsigned max, unsigned *n,
		      const char *what)
{
	const char *p = s;
	*n = 0;
	if (!*s) {
		usage_error("empty %s list", what);
		return -1;
	}
	for (;;) {
		const char *e = strchr(p, ',');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		if (l == 0) {
			usage_error("empty item in %s list '%s'", what, s);
			return -1;
		}
		if (l >= 48 || *n >= max) {
			usage_error("%s list '%.60s' is too long", what, s);
			return -1;
		}
		memcpy(items[*n], p, l);
		items[*n][l] = 0;
		(*n)++;
		if (!e)
			return 0;
		p = e + 1;
	}
}

/* A size by the command's one parser (tools/surand/parse.c), 1 B to BENCH_MAX_SIZE_BYTES:
 * 0, -1 not a size, -2 out of range. */
int parse_size(const char *s, size_t *out)
{
	uint64_t v;

	if (surand_parse_size(s, &v) < 0)
		return -1;
	if (v == 0 || v > BENCH_MAX_SIZE_BYTES)
		return -2;
	*out = (size_t)v;
	return 0;
}

int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return x < y ? -1 : x > y;
}

int cmp_uint(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
	return x < y ? -1 : x > y;
}

unsigned cpu_count(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		return (unsigned)CPU_COUNT(&set);
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)n : 1;
}


int few_calls(const struct bench_result *x, unsigned threads)
{
	return !x->error[0] && x->calls < (uint64_t)FEW_CALLS_PER_THREAD * threads;
}


/* ---- the plan ------------------------------------------------------------------ */

struct cellres *cell_at(struct plan *p, unsigned ri, unsigned si, unsigned ti)
{
	return &p->cells[((size_t)ri * p->nsizes + si) * p->nthreads + ti];
}

int planned(const struct plan *p, unsigned ri, unsigned si, unsigned ti)
{
	const struct run *r = &p->runs[ri];

	return (r->size_mask >> si & 1u) && (r->thread_mask >> ti & 1u);
}

unsigned planned_cells(const struct plan *p, unsigned ri)
{
	unsigned n = 0;

	for (unsigned si = 0; si < p->nsizes; si++)
		for (unsigned ti = 0; ti < p->nthreads; ti++)
			n += (unsigned)planned(p, ri, si, ti);
	return n;
}

static int find_run(const struct plan *p, const char *name)
{
	for (unsigned i = 0; i < p->nruns; i++)
		if (strcmp(p->runs[i].name, name) == 0)
			return (int)i;
	return -1;
}

int is_backend(const struct plan *p, const char *name)
{
	for (unsigned i = 0; i < p->nbackends; i++)
		if (strcmp(p->backends[i], name) == 0)
			return 1;
	return 0;
}

void add_run(struct plan *p, const char *name)
{
	struct run *r;
	if (find_run(p, name) >= 0 || p->nruns >= MAX_LIST)
		return;
	r = &p->runs[p->nruns++];
	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%s", name);
	if (is_backend(p, name)) {
		r->src = &bench_backend_source;
		snprintf(r->arg, sizeof(r->arg), "%s", name);
		r->is_default_backend = strcmp(name, p->backends[0]) == 0;
	} else {
		r->src = bench_find_system_source(name);
		if (!r->src) {
			/* a named source this build does not offer (quick mode's legacy) */
			r->absent = 1;
			snprintf(r->why, sizeof(r->why),
				 "backend %s is not in this build (backends: %s)", name,
				 surand_backend_names());
		}
	}
}

static int in_list(size_t v, const size_t *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (list[i] == v)
			return 1;
	return 0;
}

/*
 * The default plan measures each source where the report reads it: every
 * source at the main sizes on 1 thread (the ratios of the comparisons);
 * the default backend at every thread count (scaling); the bare body at 1
 * and 2 threads in --quick (the 1 -> 2 comparison), at all of them in the full
 * run, like the other sources; surand_bytes() at 1..SWEEP_MAX bytes on one
 * thread (the small-size sweep).
 */
void plan_cells(struct plan *p, int default_plan, int quick, int explicit_seconds)
{
	static const size_t main_quick[] = {4, 8, 16, 4096, 65536};
	static const size_t main_full[] = {4, 8, 16, 32, 64, 256, 4096, 65536};
	static const size_t legacy_quick[] = {4, 16, 4096, 65536};
	const size_t *mainl = quick ? main_quick : main_full;
	size_t nmain = quick ? sizeof(main_quick) / sizeof(main_quick[0])
			     : sizeof(main_full) / sizeof(main_full[0]);
	int t1 = threads_index(p, 1), t2 = threads_index(p, 2);

	for (unsigned ri = 0; ri < p->nruns; ri++) {
		struct run *r = &p->runs[ri];
		const struct bench_source *src = r->src;
		uint64_t all_t = p->nthreads >= 64 ? ~0ull : (1ull << p->nthreads) - 1;
		uint64_t one_t = t1 >= 0 ? 1ull << t1 : 0;
		int sweep = src && strcmp(src->name, "surand-bytes") == 0;

		r->size_mask = 0;
		r->thread_mask = all_t;
		for (unsigned si = 0; si < p->nsizes; si++) {
			size_t s = p->sizes[si];
			int want;

			if (src && src->only_size)
				want = s == src->only_size;
			else if (!default_plan)
				want = 1;
			else if (sweep)
				want = s >= 1 && s <= SWEEP_MAX;
			else if (quick && is_backend(p, r->name) && !r->is_default_backend)
				want = in_list(s, legacy_quick, sizeof(legacy_quick) / sizeof(legacy_quick[0]));
			else
				want = in_list(s, mainl, nmain);
			if (want)
				r->size_mask |= 1ull << si;
		}
		if (!default_plan)
			continue;
		if (sweep) {
			r->thread_mask = one_t;
			r->passes = SWEEP_PASSES;
			if (!explicit_seconds)
				r->seconds = quick ? SWEEP_SECONDS : 2.5 * SWEEP_SECONDS;
		} else if (quick && src && src->kind == BENCH_KIND_BARE) {
			r->thread_mask = one_t | (t2 >= 0 ? 1ull << t2 : 0);
		} else if (quick && !is_backend(p, r->name)) {
			r->thread_mask = one_t;
		}
	}
	for (unsigned ri = 0; ri < p->nruns; ri++) {
		struct run *r = &p->runs[ri];

		if (!r->absent && planned_cells(p, ri) == 0 && r->src && r->src->only_size) {
			r->absent = 1;
			snprintf(r->why, sizeof(r->why), "measured at %zu-byte calls only (--sizes %zu)",
				 r->src->only_size, r->src->only_size);
		}
	}
}

/* Canonical order: backends (registry order), then the system sources. */
void order_runs(struct plan *p)
{
	struct run sorted[MAX_LIST];
	unsigned n = 0;
	for (unsigned b = 0; b < p->nbackends; b++) {
		int i = find_run(p, p->backends[b]);
		if (i >= 0)
			sorted[n++] = p->runs[i];
	}
	for (unsigned s = 0; bench_system_sources[s].name; s++) {
		int i = find_run(p, bench_system_sources[s].name);
		if (i >= 0)
			sorted[n++] = p->runs[i];
	}
	for (unsigned i = 0; i < p->nruns; i++)
		if (!is_backend(p, p->runs[i].name) && !bench_find_system_source(p->runs[i].name))
			sorted[n++] = p->runs[i];
	memcpy(p->runs, sorted, sizeof(sorted[0]) * n);
	p->nruns = n;
}

void list_sources_text(char *buf, size_t n, const struct plan *p)
{
	size_t off = (size_t)snprintf(buf, n, "surand");
	for (unsigned i = 0; i < p->nbackends && off < n; i++)
		off += (size_t)snprintf(buf + off, n - off, ", %s", p->backends[i]);
	for (unsigned i = 0; bench_system_sources[i].name && off < n; i++)
		off += (size_t)snprintf(buf + off, n - off, ", %s", bench_system_sources[i].name);
}

/* ---- reading the results ------------------------------------------------------------ */

static int size_index(const struct plan *p, size_t size)
{
	for (unsigned i = 0; i < p->nsizes; i++)
		if (p->sizes[i] == size)
			return (int)i;
	return -1;
}

int threads_index(const struct plan *p, unsigned t)
{
	for (unsigned i = 0; i < p->nthreads; i++)
		if (p->threads[i] == t)
			return (int)i;
	return -1;
}

/* A measured cell of source name, or NULL. */
const struct bench_result *result_of(struct plan *p, const char *name, size_t size,
					    unsigned threads)
{
	int ri = find_run(p, name), si = size_index(p, size), ti = threads_index(p, threads);
	if (ri < 0 || si < 0 || ti < 0 || p->runs[ri].absent)
		return NULL;
	struct cellres *c = cell_at(p, (unsigned)ri, (unsigned)si, (unsigned)ti);
	return c->have && c->ok ? &c->r : NULL;
}

/* Why cell (name, size, threads) has no figure, in words. */
static void missing_why(struct plan *p, char *buf, size_t n, const char *name, size_t size,
			unsigned threads)
{
	int ri = find_run(p, name), si = size_index(p, size), ti = threads_index(p, threads);
	char sz[32];

	fmt_bytes(sz, sizeof(sz), size);
	if (ri < 0)
		snprintf(buf, n, "%s is not in this run", name);
	else if (p->runs[ri].absent)
		snprintf(buf, n, "%s is absent: %s", name, p->runs[ri].why);
	else if (si >= 0 && ti >= 0 && cell_at(p, (unsigned)ri, (unsigned)si, (unsigned)ti)->have)
		snprintf(buf, n, "%s failed at %s, %u thread%s", name, sz, threads,
			 threads == 1 ? "" : "s");
	else
		snprintf(buf, n, "%s not measured at %s, %u thread%s", name, sz, threads,
			 threads == 1 ? "" : "s");
}

/* Calls/s (by_bytes: MB/s) of a over ref, both at size on 1 thread. */
static void compare_speed(struct plan *p, struct comparison *c, const char *a, const char *ref,
			  size_t size, int by_bytes)
{
	const struct bench_result *x = result_of(p, a, size, 1), *y = result_of(p, ref, size, 1);

	if (!x || !y) {
		missing_why(p, c->detail, sizeof(c->detail), !x ? a : ref, size, 1);
		return;
	}
	c->have = 1;
	c->ratio = by_bytes ? x->mb_per_s / y->mb_per_s : x->calls_per_s / y->calls_per_s;
	if (by_bytes)
		snprintf(c->detail, sizeof(c->detail), "%s %.0f MB/s, %s %.0f MB/s", a, x->mb_per_s,
			 ref, y->mb_per_s);
	else
		snprintf(c->detail, sizeof(c->detail), "%s %.1f ns/call, %s %.1f ns/call", a,
			 x->ns_per_call_thread, ref, y->ns_per_call_thread);
}

/* The worst size of an aggregate ratio a(t1)/a(t0) [ / ref(t1)/ref(t0) ]. */
static void compare_scaling(struct plan *p, struct comparison *c, const char *a, const char *ref,
			    unsigned t0, unsigned t1)
{
	int found = 0;
	double worst = 0, wa = 0, wr = 0;
	size_t worst_size = 0;
	char sz[32];

	for (unsigned si = 0; si < p->nsizes; si++) {
		size_t s = p->sizes[si];
		const struct bench_result *x0 = result_of(p, a, s, t0), *x1 = result_of(p, a, s, t1);
		const struct bench_result *r0 = ref ? result_of(p, ref, s, t0) : NULL;
		const struct bench_result *r1 = ref ? result_of(p, ref, s, t1) : NULL;

		if (!x0 || !x1 || (ref && (!r0 || !r1)))
			continue;
		double sa = x1->calls_per_s / x0->calls_per_s;
		double sr = ref ? r1->calls_per_s / r0->calls_per_s : 1.0;
		if (!found || sa / sr < worst) {
			worst = sa / sr;
			worst_size = s;
			wa = sa;
			wr = sr;
		}
		found = 1;
	}
	if (!found) {
		snprintf(c->detail, sizeof(c->detail), "needs %s%s%s at one size at %u and %u threads",
			 a, ref ? " and " : "", ref ? ref : "", t0, t1);
		return;
	}
	fmt_bytes(sz, sizeof(sz), worst_size);
	c->have = 1;
	c->ratio = worst;
	if (ref)
		snprintf(c->detail, sizeof(c->detail), "worst size %s: %s %.2fx, %s %.2fx", sz, a, wa,
			 ref, wr);
	else
		snprintf(c->detail, sizeof(c->detail), "worst size %s", sz);
}

/* A time ratio: ns per call of a at size_a over ref at size_ref, 1 thread. */
static void compare_time(struct plan *p, struct comparison *c, const char *a, size_t size_a,
			 const char *ref, size_t size_ref, const char *la, const char *lr)
{
	const struct bench_result *x = result_of(p, a, size_a, 1), *y = result_of(p, ref, size_ref, 1);

	if (!x || !y) {
		missing_why(p, c->detail, sizeof(c->detail), !x ? a : ref, !x ? size_a : size_ref, 1);
		return;
	}
	c->have = 1;
	c->ratio = x->ns_per_call_thread / y->ns_per_call_thread;
	snprintf(c->detail, sizeof(c->detail), "%s %.1f ns/call, %s %.1f ns/call", la,
		 x->ns_per_call_thread, lr, y->ns_per_call_thread);
}

/* The small-size sweep: the worst time ratio of size s over size s + 1, 1..SWEEP_MAX. */
static void compare_sweep(struct plan *p, struct comparison *c, const char *a)
{
	double ns[SWEEP_MAX];
	size_t at;

	for (size_t s = 1; s <= SWEEP_MAX; s++) {
		const struct bench_result *x = result_of(p, a, s, 1);

		if (!x) {
			missing_why(p, c->detail, sizeof(c->detail), a, s, 1);
			return;
		}
		ns[s - 1] = x->ns_per_call_thread;
	}
	c->ratio = bench_worst_step(ns, SWEEP_MAX, &at);
	c->have = c->ratio > 0;
	snprintf(c->detail, sizeof(c->detail), "worst pair %zu B %.1f ns/call vs %zu B %.1f ns/call",
		 at + 1, ns[at], at + 2, ns[at + 1]);
}

/* A comparison's words: what it compares, the peer, what the ratio is of. */
#define CMP(what_, peer_, of_) ((struct comparison){.what = (what_), .peer = (peer_), .of = (of_)})

void compute_comparisons(struct plan *p, struct comparison *cmp)
{
	const char *def = p->backends[0];
	static const char calls[] = "the calls/s", mbs[] = "the MB/s", tpc[] = "the time per call";

	memset(cmp, 0, sizeof(*cmp) * NCOMPARISONS);
	cmp[0] = CMP("vs the vDSO getrandom, 4-byte calls (surand_u32), 1 thread",
		     "vdso", calls);
	compare_speed(p, &cmp[0], def, "vdso", 4, 0);
	cmp[1] = CMP("vs the vDSO getrandom, 16-byte calls, 1 thread", "vdso", calls);
	compare_speed(p, &cmp[1], def, "vdso", 16, 0);
	cmp[2] = CMP("vs getrandom(2), 16-byte calls, 1 thread", "getrandom", calls);
	compare_speed(p, &cmp[2], def, "getrandom", 16, 0);
	cmp[3] = CMP("vs the bare ChaCha20 body, 64 KiB calls, 1 thread", "bare", mbs);
	compare_speed(p, &cmp[3], def, "bare", 65536, 1);
	cmp[4] = CMP("vs OpenSSL's EVP ChaCha20, 64 KiB calls, 1 thread",
		     "openssl-chacha", mbs);
	compare_speed(p, &cmp[4], def, "openssl-chacha", 65536, 1);
	cmp[5] = CMP("1 -> 2 threads, its scaling vs the bare body's", "bare",
		     "the bare body's scaling");
	compare_scaling(p, &cmp[5], def, "bare", 1, 2);
	cmp[6] = CMP("at 64 threads vs itself at 2 threads", def,
		     "the aggregate calls/s");
	compare_scaling(p, &cmp[6], def, NULL, 2, 64);
	cmp[7] = CMP("surand_u32() vs Rust's thread_rng().next_u32(), 1 thread",
		     "rust-rand", tpc);
	compare_time(p, &cmp[7], def, 4, "rust-rand", 4, "surand_u32", "rust-rand");
	cmp[8] = CMP("surand_u64() vs Rust's thread_rng().next_u64(), 1 thread",
		     "rust-rand", tpc);
	compare_time(p, &cmp[8], def, 8, "rust-rand", 8, "surand_u64", "rust-rand");
	cmp[9] = CMP("vs Rust's thread_rng(), 16-byte calls, 1 thread", "rust-rand",
		     calls);
	compare_speed(p, &cmp[9], def, "rust-rand", 16, 0);
	cmp[10] = CMP("surand_u64() vs surand_u32(), 1 thread", def, tpc);
	compare_time(p, &cmp[10], def, 8, def, 4, "surand_u64", "surand_u32");
	cmp[11] = CMP("surand_bytes() at 1..32 bytes, the worst size vs the next "
		      "larger, 1 thread", "surand-bytes", tpc);
	compare_sweep(p, &cmp[11], "surand-bytes");
	cmp[12] = CMP("surand_add_event() vs the vDSO getrandom's 4-byte call, "
		      "1 thread", "vdso", tpc);
	compare_time(p, &cmp[12], "add-event", 4, "vdso", 4, "surand_add_event", "vdso");
}

/* "faster than the kernel's own vDSO getrandom": comparisons 0 and 1 above 1x. */
static void claim_faster(const struct comparison *cmp, struct claim *c)
{
	*c = (struct claim){.claim = "faster than the kernel's own vDSO getrandom",
			    .over = "4-byte and 16-byte calls, 1 thread, calls/s", .nratios = 2};
	for (unsigned i = 0; i < 2; i++)
		c->ratios[i] = cmp[i].have ? cmp[i].ratio : NAN;
	c->verdict = bench_claim_verdict(c->ratios, c->nratios);
	/* the report prints the detail after the ratios, or alone when not measured */
	for (unsigned i = 0; i < 2; i++)
		if (!cmp[i].have) {
			snprintf(c->detail, sizeof(c->detail), "%s%.380s",
				 c->verdict == BENCH_NOT_MEASURED ? "" : "; ", cmp[i].detail);
			break;
		}
}

/* "scales with cores": the default backend's aggregate calls/s, nproc threads vs 1. */
static void claim_scales(struct plan *p, struct claim *c)
{
	int ri = find_run(p, p->backends[0]);
	struct scale sc;
	char sz[32];

	*c = (struct claim){.claim = "scales with cores",
			    .over = "aggregate calls/s at up to nproc threads vs 1 thread, worst size",
			    .verdict = BENCH_NOT_JUDGED, .ratios = {NAN}, .nratios = 1};
	if (!bench_scaling_judgeable(p->ncpu)) {
		snprintf(c->detail, sizeof(c->detail), "%u CPU%s", p->ncpu, p->ncpu == 1 ? "" : "s");
		return;
	}
	if (ri < 0 || p->runs[ri].absent) {
		c->verdict = BENCH_NOT_MEASURED;
		missing_why(p, c->detail, sizeof(c->detail), p->backends[0], p->sizes[0], 1);
		return;
	}
	compute_scale(p, &p->runs[ri], &sc);
	if (!sc.have) {
		snprintf(c->detail, sizeof(c->detail), "%s",
			 strncmp(sc.why, "n/a: ", 5) == 0 ? sc.why + 5 : sc.why);
		return;
	}
	fmt_bytes(sz, sizeof(sz), sc.size);
	c->ratios[0] = sc.ratio;
	c->verdict = sc.yes ? BENCH_HOLDS : BENCH_DOES_NOT_HOLD;
	snprintf(c->detail, sizeof(c->detail), " at %u threads vs 1, worst size %s, %.0f%% of linear; "
		 "counted as scaling from %.0f%%", sc.threads, sz, sc.eff * 100,
		 SCALES_EFFICIENCY * 100);
}

void compute_claims(struct plan *p, const struct comparison *cmp, struct claim *claims)
{
	claim_faster(cmp, &claims[0]);
	claim_scales(p, &claims[1]);
}

/* Aggregate calls/s at nproc threads (or the most threads <= nproc measured) vs 1. */
void compute_scale(struct plan *p, const struct run *r, struct scale *sc)
{
	unsigned tn = 0;
	memset(sc, 0, sizeof(*sc));
	if (p->ncpu < 2) {
		snprintf(sc->why, sizeof(sc->why), "n/a: 1 CPU, nothing to scale to");
		return;
	}
	for (unsigned i = 0; i < p->nthreads; i++)
		if (p->threads[i] > 1 && p->threads[i] <= p->ncpu && p->threads[i] > tn)
			tn = p->threads[i];
	if (!tn || threads_index(p, 1) < 0) {
		snprintf(sc->why, sizeof(sc->why), "n/a: needs 1 thread and 2..%u threads measured",
			 p->ncpu);
		return;
	}
	for (unsigned si = 0; si < p->nsizes; si++) {
		const struct bench_result *a = result_of(p, r->name, p->sizes[si], 1);
		const struct bench_result *b = result_of(p, r->name, p->sizes[si], tn);
		if (!a || !b)
			continue;
		double ratio = b->calls_per_s / a->calls_per_s;
		if (!sc->have || ratio < sc->ratio) {
			sc->ratio = ratio;
			sc->size = p->sizes[si];
		}
		sc->have = 1;
	}
	if (!sc->have) {
		snprintf(sc->why, sizeof(sc->why), "n/a: not measured at 1 and %u threads", tn);
		return;
	}
	sc->threads = tn;
	sc->eff = sc->ratio / tn;
	sc->yes = sc->eff >= SCALES_EFFICIENCY;
}
