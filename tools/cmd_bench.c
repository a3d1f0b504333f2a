/*
 * cmd_bench.c - `surand bench`: the seeds' micro-benchmark (many threads
 * reading random bytes at once), every surand backend against the system's
 * generators, side by side.  docs/bench.md explains the output.
 *
 *   surand bench [--backends LIST] [--sources LIST] [--sizes LIST]
 *                [--threads LIST] [--seconds S] [--rounds N] [--quick]
 *                [--csv FILE] [--json FILE] [--plot FILE.png] [--list]
 *   surand bench chacha [...]     the ChaCha20 bodies alone
 *
 * Each source runs in its own child process, forked before that process
 * makes any surand call: a surand backend is chosen once per process
 * (surand_set_backend in the child), and no source inherits another's
 * threads, caches of state or locks.  The parent only plans, collects the
 * children's result lines through a pipe, and prints.
 *
 * --rounds N runs the whole plan N times, source after source in each round,
 * and keeps each cell's best round (the most calls per second): on a shared
 * machine noise only ever slows a cell down, and interleaving the rounds
 * spreads a slow spell over every source instead of one.  A cell that fails
 * in any round fails.
 *
 * Exit status: 0; 1 when a source failed (its process died, a call returned
 * an error, a buffer was not written, its per-thread setup failed); a cell
 * the machine could not run (threads could not start, no call completed in
 * a very short window) is reported, not failed; 64 for bad input, before
 * any work; 74 when an output file cannot be written.
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
#include "surand.h"

/* scales: yes when the aggregate at N threads reaches this share of N x 1 thread */
#define SCALES_EFFICIENCY 0.70
/* buffers of all threads of one cell together */
#define BENCH_MAX_BUFFER_BYTES (1ull << 30)
/* cells below this share of the CPU time they asked for are flagged as starved */
#define BUSY_CPU_SHARE 0.80
/*
 * cells with fewer calls than this per thread are flagged "few calls": a
 * thread's count can be one call off at each edge of the window (a call begun
 * in the warm-up is not counted, the call still running when the window closes
 * is), so below 4 calls per thread the edges are 25% or more of the count
 */
#define FEW_CALLS_PER_THREAD 4u
#define DEFAULT_SECONDS 0.5
#define QUICK_SECONDS 0.15
#define MAX_LIST 64
#define MAX_ROUNDS 20

static const char usage_text[] =
	"usage: surand bench [--backends LIST] [--sources LIST] [--sizes LIST] [--threads LIST]\n"
	"                    [--seconds S] [--rounds N] [--quick] [--csv FILE] [--json FILE]\n"
	"                    [--plot FILE.png]\n"
	"       surand bench --list        the backends and sources, and which are absent here\n"
	"       surand bench chacha        the ChaCha20 bodies alone\n"
	"       surand bench kleen         Kleen's 2015 comparison of the pool designs\n"
	"       surand bench mixed         a careful reader beside abuser threads, every design\n"
	"LIST is comma-separated.  Sources: surand (the default backend), any backend name,\n"
	"bare, vdso, getrandom, urandom, arc4random, openssl-rand, openssl-chacha, sodium.\n"
	"Defaults: every backend and source; sizes 4,16,32,256,4096,65536 (suffix K/KiB/M/MiB\n"
	"allowed, 1 B to 16 MiB); threads 1,2,4,nproc,4*nproc,64 (1..4096); 0.5 s per cell.\n"
	"--quick: surand, bare, vdso, getrandom, urandom, legacy; sizes 4,16,4096,65536;\n"
	"threads 1,2,64; 0.15 s per cell.  Explicit options override --quick.\n"
	"--rounds N (1..20, default 1): the whole plan N times, each cell's best round kept.\n";

/* ---- small helpers ---------------------------------------------------------- */

static void usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_failed;

static void usage_error(const char *fmt, ...)
{
	va_list ap;
	if (usage_failed)
		return;
	usage_failed = 1;
	fputs("surand bench: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" (surand bench --help)\n", stderr);
}

static int split_list(const char *s, char items[][48], unsigned max, unsigned *n,
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

/* A positive decimal integer, optionally K/KiB/M/MiB (powers of 1024). */
static int parse_size(const char *s, size_t *out)
{
	char *end;
	unsigned long long v, mul = 1;
	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	if (*end) {
		if (!strcasecmp(end, "k") || !strcasecmp(end, "kib"))
			mul = 1024;
		else if (!strcasecmp(end, "m") || !strcasecmp(end, "mib"))
			mul = 1024 * 1024;
		else
			return -1;
	}
	if (v == 0 || v > BENCH_MAX_SIZE_BYTES / mul)
		return -2;
	*out = (size_t)(v * mul);
	return 0;
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return x < y ? -1 : x > y;
}

static int cmp_uint(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
	return x < y ? -1 : x > y;
}

static unsigned cpu_count(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		return (unsigned)CPU_COUNT(&set);
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)n : 1;
}

static double now_s(void)
{
	return (double)bench_now_ns() / 1e9;
}

/* A measured cell whose rate the window's edges dominate (FEW_CALLS_PER_THREAD). */
static int few_calls(const struct bench_result *x, unsigned threads)
{
	return !x->error[0] && x->calls < (uint64_t)FEW_CALLS_PER_THREAD * threads;
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

static void fmt_bytes(char *b, size_t n, size_t v)
{
	if (v >= 1024 * 1024 && v % (1024 * 1024) == 0)
		snprintf(b, n, "%zu MiB", v >> 20);
	else if (v >= 1024 && v % 1024 == 0)
		snprintf(b, n, "%zu KiB", v >> 10);
	else
		snprintf(b, n, "%zu B", v);
}

/* ---- the plan ------------------------------------------------------------------ */

struct run {
	char name[48];
	const struct bench_source *src;
	char arg[48];            /* the backend name, for backends */
	int is_default_backend;
	int absent;              /* known here, cannot be measured: why says why */
	char why[256];
	char desc[400];
	int failed;              /* the child died or a cell failed */
	char fail[200];
};

struct cellres {
	int have;                /* a result or an error came back */
	int ok;
	struct bench_result r;
};

struct plan {
	struct run runs[MAX_LIST];
	unsigned nruns;
	size_t sizes[MAX_LIST];
	unsigned nsizes;
	unsigned threads[MAX_LIST];
	unsigned nthreads;
	double seconds, warmup;
	unsigned rounds;         /* the plan runs this many times; each cell keeps its best */
	char backends[MAX_LIST][48];
	unsigned nbackends;      /* every backend of this build, the default first */
	struct cellres *cells;   /* [run][size][threads] */
	unsigned ncpu;
	char command[1024];
};

static struct cellres *cell_at(struct plan *p, unsigned ri, unsigned si, unsigned ti)
{
	return &p->cells[((size_t)ri * p->nsizes + si) * p->nthreads + ti];
}

static int find_run(const struct plan *p, const char *name)
{
	for (unsigned i = 0; i < p->nruns; i++)
		if (strcmp(p->runs[i].name, name) == 0)
			return (int)i;
	return -1;
}

static int is_backend(const struct plan *p, const char *name)
{
	for (unsigned i = 0; i < p->nbackends; i++)
		if (strcmp(p->backends[i], name) == 0)
			return 1;
	return 0;
}

static void add_run(struct plan *p, const char *name)
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

/* Canonical order: backends (registry order), then the system sources. */
static void order_runs(struct plan *p)
{
	struct run sorted[MAX_LIST];
	unsigned n = 0;
	for (unsigned b = 0; b < p->nbackends; b++) {
		int i = find_run(p, p->backends[b]);
		if (i >= 0)
			sorted[n++] = p->runs[i];
	}
	for (unsigned s = 0; bench_system_sources[s]; s++) {
		int i = find_run(p, bench_system_sources[s]->name);
		if (i >= 0)
			sorted[n++] = p->runs[i];
	}
	for (unsigned i = 0; i < p->nruns; i++)
		if (!is_backend(p, p->runs[i].name) && !bench_find_system_source(p->runs[i].name))
			sorted[n++] = p->runs[i];
	memcpy(p->runs, sorted, sizeof(sorted[0]) * n);
	p->nruns = n;
}

static void list_sources_text(char *buf, size_t n, const struct plan *p)
{
	size_t off = (size_t)snprintf(buf, n, "surand");
	for (unsigned i = 0; i < p->nbackends && off < n; i++)
		off += (size_t)snprintf(buf + off, n - off, ", %s", p->backends[i]);
	for (unsigned i = 0; bench_system_sources[i] && off < n; i++)
		off += (size_t)snprintf(buf + off, n - off, ", %s", bench_system_sources[i]->name);
}

/* ---- the child: one source, every cell ------------------------------------------ */

static void child_run(const struct plan *p, const struct run *r, int fd)
{
	char desc[400] = "", why[256] = "";
	if (r->src->setup(r->arg, desc, sizeof(desc), why, sizeof(why)) != 0) {
		dprintf(fd, "A %s\n", why);
		return;
	}
	dprintf(fd, "D %s\n", desc);
	for (unsigned si = 0; si < p->nsizes; si++) {
		for (unsigned ti = 0; ti < p->nthreads; ti++) {
			struct bench_result res;
			dprintf(fd, "S %u %u\n", si, ti);
			if (bench_run_cell(r->src, p->sizes[si], p->threads[ti], p->seconds, p->warmup,
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
			pg->total -= p->nsizes * p->nthreads * p->rounds; /* known in the first round */
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

static int run_all(struct plan *p)
{
	struct progress pg = {.on = isatty(2), .t_start = now_s(),
			      .est_cell = p->warmup + p->seconds + 0.02};
	int failures = 0;

	for (unsigned ri = 0; ri < p->nruns; ri++)
		if (!p->runs[ri].absent)
			pg.total += p->nsizes * p->nthreads * p->rounds;

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

/* ---- reading the results ------------------------------------------------------------ */

static int size_index(const struct plan *p, size_t size)
{
	for (unsigned i = 0; i < p->nsizes; i++)
		if (p->sizes[i] == size)
			return (int)i;
	return -1;
}

static int threads_index(const struct plan *p, unsigned t)
{
	for (unsigned i = 0; i < p->nthreads; i++)
		if (p->threads[i] == t)
			return (int)i;
	return -1;
}

/* A measured cell of source name, or NULL. */
static const struct bench_result *result_of(struct plan *p, const char *name, size_t size,
					    unsigned threads)
{
	int ri = find_run(p, name), si = size_index(p, size), ti = threads_index(p, threads);
	if (ri < 0 || si < 0 || ti < 0 || p->runs[ri].absent)
		return NULL;
	struct cellres *c = cell_at(p, (unsigned)ri, (unsigned)si, (unsigned)ti);
	return c->have && c->ok ? &c->r : NULL;
}

struct bar {
	const char *what;
	double need, goal;  /* goal 0: none */
	int have;
	double ratio;
	char detail[200];
};

#define NBARS 6

static void bar_ratio(struct plan *p, struct bar *b, const char *a, const char *ref, size_t size,
		      int by_bytes)
{
	const struct bench_result *x = result_of(p, a, size, 1), *y = result_of(p, ref, size, 1);
	char sz[32];
	fmt_bytes(sz, sizeof(sz), size);
	if (!x || !y) {
		snprintf(b->detail, sizeof(b->detail), "n/a: %s not measured at %s, 1 thread",
			 !x ? a : ref, sz);
		return;
	}
	b->have = 1;
	b->ratio = by_bytes ? x->mb_per_s / y->mb_per_s : x->calls_per_s / y->calls_per_s;
	if (by_bytes)
		snprintf(b->detail, sizeof(b->detail), "%s %.0f MB/s, %s %.0f MB/s", a, x->mb_per_s,
			 ref, y->mb_per_s);
	else
		snprintf(b->detail, sizeof(b->detail), "%s %.1f ns/call, %s %.1f ns/call", a,
			 x->ns_per_call_thread, ref, y->ns_per_call_thread);
}

/* The worst size of an aggregate ratio a(t1)/a(t0) [ / ref(t1)/ref(t0) ]. */
static void bar_scaling(struct plan *p, struct bar *b, const char *a, const char *ref,
			unsigned t0, unsigned t1)
{
	int found = 0;
	double worst = 0;
	size_t worst_size = 0;
	double wa = 0, wr = 0;
	for (unsigned si = 0; si < p->nsizes; si++) {
		size_t s = p->sizes[si];
		const struct bench_result *x0 = result_of(p, a, s, t0), *x1 = result_of(p, a, s, t1);
		const struct bench_result *r0 = ref ? result_of(p, ref, s, t0) : NULL;
		const struct bench_result *r1 = ref ? result_of(p, ref, s, t1) : NULL;
		if (!x0 || !x1 || (ref && (!r0 || !r1)))
			continue;
		double sa = x1->calls_per_s / x0->calls_per_s;
		double sr = ref ? r1->calls_per_s / r0->calls_per_s : 1.0;
		double v = sa / sr;
		if (!found || v < worst) {
			worst = v;
			worst_size = s;
			wa = sa;
			wr = sr;
		}
		found = 1;
	}
	if (!found) {
		snprintf(b->detail, sizeof(b->detail), "n/a: needs %s%s%s at %u and %u threads", a,
			 ref ? " and " : "", ref ? ref : "", t0, t1);
		return;
	}
	char sz[32];
	fmt_bytes(sz, sizeof(sz), worst_size);
	b->have = 1;
	b->ratio = worst;
	if (ref)
		snprintf(b->detail, sizeof(b->detail), "worst size %s: %s %.2fx, %s %.2fx", sz, a, wa,
			 ref, wr);
	else
		snprintf(b->detail, sizeof(b->detail), "worst size %s", sz);
}

static void compute_bars(struct plan *p, struct bar *bars)
{
	const char *def = p->backends[0];
	memset(bars, 0, sizeof(*bars) * NBARS);
	bars[0] = (struct bar){.what = "surand_u32 (4 B) vs vDSO, 1 thread", .need = 3};
	bar_ratio(p, &bars[0], def, "vdso", 4, 0);
	bars[1] = (struct bar){.what = "16 B calls vs vDSO, 1 thread", .need = 4, .goal = 6};
	bar_ratio(p, &bars[1], def, "vdso", 16, 0);
	bars[2] = (struct bar){.what = "16 B calls vs getrandom(2), 1 thread", .need = 40};
	bar_ratio(p, &bars[2], def, "getrandom", 16, 0);
	bars[3] = (struct bar){.what = "64 KiB calls vs bare body, 1 thread", .need = 0.9};
	bar_ratio(p, &bars[3], def, "bare", 65536, 1);
	bars[4] = (struct bar){.what = "1->2 thread scaling vs bare body's", .need = 0.95};
	bar_scaling(p, &bars[4], def, "bare", 1, 2);
	bars[5] = (struct bar){.what = "64 threads vs 2 threads (aggregate)", .need = 0.9};
	bar_scaling(p, &bars[5], def, NULL, 2, 64);
}

struct scale {
	int have, yes;
	unsigned threads;
	double ratio, eff;
	size_t size;
	char why[120];
};

/* Aggregate calls/s at nproc threads (or the most threads <= nproc measured) vs 1. */
static void compute_scale(struct plan *p, const struct run *r, struct scale *sc)
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

/* ---- output ----------------------------------------------------------------------- */

struct machine {
	char kernel[3 * 65 + 8], cpu[160], glibc[32], chacha[32];
};

static void machine_info(struct machine *m)
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

static const char *kind_name(const struct run *r)
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

static void print_report(struct plan *p, const struct machine *m, const struct bar *bars)
{
	int w = 6;
	char sz[32];

	for (unsigned i = 0; i < p->nruns; i++)
		if ((int)strlen(p->runs[i].name) + (p->runs[i].is_default_backend ? 1 : 0) > w)
			w = (int)strlen(p->runs[i].name) + (p->runs[i].is_default_backend ? 1 : 0);

	printf("surand bench: %s; %s; %u CPUs; glibc %s; ChaCha20 body %s\n", m->kernel, m->cpu,
	       p->ncpu, m->glibc, m->chacha);
	printf("command: %s\n", p->command);
	printf("%.3g s per cell after %.3g s of warm-up (not counted); every source in its own "
	       "process;\n",
	       p->seconds, p->warmup);
	if (p->rounds > 1)
		printf("the whole plan run %u times, sources interleaved; each cell its best round;\n",
		       p->rounds);
	printf("latency: every Nth call timed (N per thread, so that timing costs < 1%%; "
	       "a clock pair, %.0f ns, subtracted)\n\n",
	       bench_timer_overhead_ns());

	printf("sources (* the default backend):\n");
	for (unsigned i = 0; i < p->nruns; i++) {
		const struct run *r = &p->runs[i];
		if (r->absent)
			continue;
		printf("  %-*s %s\n", w, r->name, r->desc[0] ? r->desc : "(no description)");
	}
	int any_absent = 0;
	for (unsigned i = 0; i < p->nruns; i++)
		any_absent |= p->runs[i].absent;
	if (any_absent) {
		printf("absent:\n");
		for (unsigned i = 0; i < p->nruns; i++)
			if (p->runs[i].absent)
				printf("  %-*s %s\n", w, p->runs[i].name, p->runs[i].why);
	}
	printf("\n%-*s %9s %7s %10s %10s %11s %9s %9s %9s %5s  %s\n", w, "source", "size",
	       "threads", "calls/s", "MB/s", "ns/call/thr", "p50 ns", "p99 ns", "p99.9 ns", "cpu%",
	       "check");
	unsigned starved = 0, measured = 0, few = 0;
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
				if (c->r.error[0]) {
					printf("%-*s %9s %7u  %s\n", w, name, sz, p->threads[ti],
					       c->r.error);
					continue;
				}
				char cps[24], mbs[24], ns[24], a[24], b[24], d[24], chk[48];
				fmt_rate(cps, sizeof(cps), c->r.calls_per_s);
				fmt_num(mbs, sizeof(mbs), c->r.mb_per_s, 1);
				fmt_num(ns, sizeof(ns), c->r.ns_per_call_thread,
					c->r.ns_per_call_thread < 1e5 ? 1 : 0);
				fmt_num(a, sizeof(a), c->r.p50_ns, 0);
				fmt_num(b, sizeof(b), c->r.p99_ns, 0);
				fmt_num(d, sizeof(d), c->r.p999_ns, 0);
				if (c->r.errors)
					snprintf(chk, sizeof(chk), "FAILED %llu calls",
						 (unsigned long long)c->r.errors);
				else if (!c->r.check_ok)
					snprintf(chk, sizeof(chk), "BAD: buffer not written");
				else
					snprintf(chk, sizeof(chk), "ok");
				if (few_calls(&c->r, p->threads[ti])) {
					size_t l = strlen(chk);
					snprintf(chk + l, sizeof(chk) - l, ", few calls");
					few++;
				}
				printf("%-*s %9s %7u %10s %10s %11s %9s %9s %9s %5.0f  %s\n", w, name,
				       sz, p->threads[ti], cps, mbs, ns, a, b, d,
				       c->r.cpu_share * 100, chk);
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

	printf("\nbars (issue 3), surand default = %s, ratios from this run:\n", p->backends[0]);
	for (int i = 0; i < NBARS; i++) {
		const struct bar *b = &bars[i];
		char need[40], ratio[24];
		if (b->goal > 0)
			snprintf(need, sizeof(need), ">= %gx (goal %gx)", b->need, b->goal);
		else
			snprintf(need, sizeof(need), ">= %gx", b->need);
		if (!b->have) {
			printf("  %-38s %8s  %-18s %s\n", b->what, "-", need, b->detail);
			continue;
		}
		snprintf(ratio, sizeof(ratio), "%.2fx", b->ratio);
		const char *verdict = b->ratio >= b->need ? "PASS" : "MISS";
		printf("  %-38s %8s  %-18s %s%s  (%s)\n", b->what, ratio, need, verdict,
		       b->goal > 0 && b->ratio >= b->need && b->ratio < b->goal ? ", goal missed" : "",
		       b->detail);
	}

	/* reference figures for the bars of issue 7 (surand -n, preload, FUSE) */
	const struct bench_result *b1 = result_of(p, "bare", 65536, 1);
	const struct bench_result *b2 = result_of(p, "bare", 65536, 2);
	const struct bench_result *u64k = result_of(p, "urandom", 65536, 1);
	const struct bench_result *u4k = result_of(p, "urandom", 4096, 1);
	if (b1 || u64k) {
		printf("references for issue 7's bars (1 thread unless said):");
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

	printf("\nscales (aggregate calls/s at nproc=%u threads vs 1 thread, worst size; "
	       "yes when >= %.0f%% of linear, i.e. >= %.2fx):\n",
	       p->ncpu, SCALES_EFFICIENCY * 100, SCALES_EFFICIENCY * (p->ncpu > 1 ? p->ncpu : 2));
	for (unsigned ri = 0; ri < p->nruns; ri++) {
		const struct run *r = &p->runs[ri];
		struct scale sc;
		if (r->absent)
			continue;
		compute_scale(p, r, &sc);
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
		printf("note: %u CPUs: scaling beyond %u threads cannot show here; the runs above "
		       "%u threads are oversubscribed (lock convoys, preempted lock holders)\n",
		       p->ncpu, p->ncpu, p->ncpu);
}

static void csv_write(FILE *f, struct plan *p)
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

static void json_write(FILE *f, struct plan *p, const struct machine *m, const struct bar *bars)
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
	fprintf(f, "\n  ],\n  \"bars\": [");
	for (int i = 0; i < NBARS; i++) {
		fprintf(f, "%s\n    {\"bar\": ", i ? "," : "");
		json_str(f, bars[i].what);
		fprintf(f, ", \"need\": %g, \"goal\": ", bars[i].need);
		if (bars[i].goal > 0)
			fprintf(f, "%g", bars[i].goal);
		else
			fputs("null", f);
		fprintf(f, ", \"ratio\": ");
		json_num(f, bars[i].have ? bars[i].ratio : NAN);
		fprintf(f, ", \"pass\": %s, \"detail\": ",
			!bars[i].have ? "null" : bars[i].ratio >= bars[i].need ? "true" : "false");
		json_str(f, bars[i].detail);
		fprintf(f, "}");
	}
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

/* ---- charts (gnuplot) ------------------------------------------------------------------ */

static int have_program(const char *name, char *path, size_t n)
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

/* FILE.png: throughput vs threads per size; FILE-latency.png: latency per size. */
static int plot_write(struct plan *p, const char *png, const char *gnuplot)
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

	unsigned cols = p->nsizes > 3 ? 3 : p->nsizes;
	/* NOLINTNEXTLINE(clang-analyzer-core.DivideZero): the options parser refuses an empty size list */
	unsigned rows = (p->nsizes + cols - 1) / cols;
	fprintf(fg, "set terminal pngcairo size %u,%u noenhanced font ',9'\nset output ",
		640 * cols, 380 * rows + 40);
	gp_quote(fg, png);
	fprintf(fg, "\nset multiplot layout %u,%u title 'surand bench: aggregate MB/s vs threads "
		    "(log scales)'\n", rows, cols);
	fprintf(fg, "set logscale x 2\nset logscale y 10\nset xlabel 'threads'\nset ylabel "
		    "'MB/s'\nset key outside right top font ',7'\nset grid\n");
	for (unsigned si = 0; si < p->nsizes; si++) {
		char sz[32];
		int first = 1;
		fmt_bytes(sz, sizeof(sz), p->sizes[si]);
		fprintf(fg, "set title '%s calls'\nplot ", sz);
		for (unsigned b = 0; b < idx; b++) {
			if (blk_size[b] != si)
				continue;
			fprintf(fg, "%s", first ? "" : ", \\\n     ");
			gp_quote(fg, dat);
			fprintf(fg, " index %u using 1:2 with linespoints title ", b);
			gp_quote(fg, p->runs[blk_run[b]].name);
			first = 0;
		}
		if (first)
			fprintf(fg, "NaN notitle");
		fprintf(fg, "\n");
	}
	fprintf(fg, "unset multiplot\n");
	if (lidx) {
		fprintf(fg, "set terminal pngcairo size 1100,450 noenhanced font ',9'\nset output ");
		gp_quote(fg, latpng);
		fprintf(fg, "\nset multiplot layout 1,2 title 'surand bench: latency per call size, %u "
			    "thread (sampled calls)'\n", p->threads[t1]);
		fprintf(fg, "set logscale x 2\nset logscale y 10\nset xlabel 'call size (bytes)'\n"
			    "set ylabel 'ns'\n");
		for (int q = 0; q < 2; q++) {
			fprintf(fg, "set title '%s'\nplot ", q == 0 ? "p50" : "p99");
			for (unsigned b = 0; b < lidx; b++) {
				fprintf(fg, "%s", b ? ", \\\n     " : "");
				gp_quote(fg, lat);
				fprintf(fg, " index %u using 1:%d with linespoints title ", b, q + 2);
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

/* ---- the command ------------------------------------------------------------------------- */

static int opt_value(int argc, char **argv, int *i, const char *name, const char **val)
{
	size_t l = strlen(name);
	if (strncmp(argv[*i], name, l) != 0)
		return 0;
	if (argv[*i][l] == '=') {
		*val = argv[*i] + l + 1;
		return 1;
	}
	if (argv[*i][l] != 0)
		return 0;
	if (*i + 1 >= argc) {
		usage_error("%s needs a value", name);
		*val = NULL;
		return 1;
	}
	*val = argv[++*i];
	return 1;
}

static FILE *open_out(const char *path)
{
	FILE *f = fopen(path, "w");
	if (!f)
		fprintf(stderr, "surand bench: cannot write %s: %s\n", path, strerror(errno));
	return f;
}

int surand_cmd_bench(int argc, char **argv)
{
	static struct plan plan;
	struct plan *p = &plan;
	const char *o_backends = NULL, *o_sources = NULL, *o_sizes = NULL, *o_threads = NULL;
	const char *o_seconds = NULL, *o_rounds = NULL, *o_csv = NULL, *o_json = NULL, *o_plot = NULL;
	int quick = 0, list = 0;
	char items[MAX_LIST][48];
	unsigned n;

	if (argc >= 2 && strcmp(argv[1], "chacha") == 0)
		return surand_bench_chacha(argc - 1, argv + 1); /* tools/bench_chacha.c */
	if (argc >= 2 && (strcmp(argv[1], "kleen") == 0 || strcmp(argv[1], "mixed") == 0))
		return surand_bench_debate(argc - 1, argv + 1); /* tools/bench_debate.c */

	memset(p, 0, sizeof(*p));
	{
		size_t off = (size_t)snprintf(p->command, sizeof(p->command), "surand");
		for (int i = 0; i < argc && off < sizeof(p->command); i++)
			off += (size_t)snprintf(p->command + off, sizeof(p->command) - off, " %s",
						argv[i]);
	}
	for (int i = 1; i < argc && !usage_failed; i++) {
		const char *v = NULL;
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(usage_text, stdout);
			return SURAND_EX_OK;
		} else if (!strcmp(argv[i], "--quick")) {
			quick = 1;
		} else if (!strcmp(argv[i], "--list")) {
			list = 1;
		} else if (opt_value(argc, argv, &i, "--backends", &v)) {
			o_backends = v;
		} else if (opt_value(argc, argv, &i, "--sources", &v)) {
			o_sources = v;
		} else if (opt_value(argc, argv, &i, "--sizes", &v)) {
			o_sizes = v;
		} else if (opt_value(argc, argv, &i, "--threads", &v)) {
			o_threads = v;
		} else if (opt_value(argc, argv, &i, "--seconds", &v)) {
			o_seconds = v;
		} else if (opt_value(argc, argv, &i, "--rounds", &v)) {
			o_rounds = v;
		} else if (opt_value(argc, argv, &i, "--csv", &v)) {
			o_csv = v;
		} else if (opt_value(argc, argv, &i, "--json", &v)) {
			o_json = v;
		} else if (opt_value(argc, argv, &i, "--plot", &v)) {
			o_plot = v;
		} else {
			usage_error("unknown option '%s'", argv[i]);
		}
	}
	if (usage_failed)
		return SURAND_EX_USAGE;

	/* the backends of this build, from the library itself */
	if (split_list(surand_backend_names(), p->backends, MAX_LIST, &p->nbackends,
		       "backend") != 0)
		return SURAND_EX_FAIL;
	p->ncpu = cpu_count();

	/* sources */
	if (o_backends) {
		if (split_list(o_backends, items, MAX_LIST, &n, "backend") != 0)
			return SURAND_EX_USAGE;
		for (unsigned i = 0; i < n; i++) {
			if (!strcmp(items[i], "all")) {
				for (unsigned b = 0; b < p->nbackends; b++)
					add_run(p, p->backends[b]);
			} else if (is_backend(p, items[i])) {
				add_run(p, items[i]);
			} else {
				usage_error("unknown backend '%s' (backends: %s)", items[i],
					    surand_backend_names());
				return SURAND_EX_USAGE;
			}
		}
	}
	if (o_sources) {
		if (split_list(o_sources, items, MAX_LIST, &n, "source") != 0)
			return SURAND_EX_USAGE;
		for (unsigned i = 0; i < n; i++) {
			if (!strcmp(items[i], "surand")) {
				add_run(p, p->backends[0]);
			} else if (is_backend(p, items[i]) || bench_find_system_source(items[i])) {
				add_run(p, items[i]);
			} else {
				char known[1024];
				list_sources_text(known, sizeof(known), p);
				usage_error("unknown source '%s' (sources: %s)", items[i], known);
				return SURAND_EX_USAGE;
			}
		}
	}
	if (!o_backends && !o_sources) {
		if (quick) {
			static const char *const q[] = {"bare", "vdso", "getrandom", "urandom",
							"legacy", "legacy-spin"};
			add_run(p, p->backends[0]);
			for (size_t i = 0; i < sizeof(q) / sizeof(q[0]); i++)
				if (strcmp(q[i], "legacy-spin") != 0 || is_backend(p, q[i]))
					add_run(p, q[i]);
		} else {
			for (unsigned b = 0; b < p->nbackends; b++)
				add_run(p, p->backends[b]);
			for (unsigned s = 0; bench_system_sources[s]; s++)
				add_run(p, bench_system_sources[s]->name);
		}
	}
	order_runs(p);

	/* sizes */
	if (o_sizes) {
		if (split_list(o_sizes, items, MAX_LIST, &n, "size") != 0)
			return SURAND_EX_USAGE;
		for (unsigned i = 0; i < n; i++) {
			size_t s;
			int r = parse_size(items[i], &s);
			if (r == -1) {
				usage_error("size '%s' is not a number of bytes", items[i]);
				return SURAND_EX_USAGE;
			}
			if (r == -2) {
				usage_error("size '%s' is out of range (1 B to 16 MiB)", items[i]);
				return SURAND_EX_USAGE;
			}
			p->sizes[p->nsizes++] = s;
		}
	} else {
		static const size_t full[] = {4, 16, 32, 256, 4096, 65536}, q[] = {4, 16, 4096, 65536};
		const size_t *src = quick ? q : full;
		size_t cnt = quick ? 4 : 6;
		for (size_t i = 0; i < cnt; i++)
			p->sizes[p->nsizes++] = src[i];
	}
	qsort(p->sizes, p->nsizes, sizeof(p->sizes[0]), cmp_size);
	n = 0;
	for (unsigned i = 0; i < p->nsizes; i++)
		if (i == 0 || p->sizes[i] != p->sizes[n - 1])
			p->sizes[n++] = p->sizes[i];
	p->nsizes = n;

	/* threads */
	if (o_threads) {
		if (split_list(o_threads, items, MAX_LIST, &n, "thread") != 0)
			return SURAND_EX_USAGE;
		for (unsigned i = 0; i < n; i++) {
			char *end;
			unsigned long t;
			errno = 0;
			t = isdigit((unsigned char)items[i][0]) ? strtoul(items[i], &end, 10) : 0;
			if (!isdigit((unsigned char)items[i][0]) || *end || errno) {
				usage_error("thread count '%s' is not a number", items[i]);
				return SURAND_EX_USAGE;
			}
			if (t == 0 || t > BENCH_MAX_THREADS) {
				usage_error("thread count '%s' is out of range (1 to %u)", items[i],
					    BENCH_MAX_THREADS);
				return SURAND_EX_USAGE;
			}
			p->threads[p->nthreads++] = (unsigned)t;
		}
	} else if (quick) {
		p->threads[p->nthreads++] = 1;
		p->threads[p->nthreads++] = 2;
		p->threads[p->nthreads++] = 64;
	} else {
		unsigned d[] = {1, 2, 4, p->ncpu, 4 * p->ncpu, 64};
		for (size_t i = 0; i < sizeof(d) / sizeof(d[0]); i++)
			if (d[i] >= 1 && d[i] <= BENCH_MAX_THREADS)
				p->threads[p->nthreads++] = d[i];
	}
	qsort(p->threads, p->nthreads, sizeof(p->threads[0]), cmp_uint);
	n = 0;
	for (unsigned i = 0; i < p->nthreads; i++)
		if (i == 0 || p->threads[i] != p->threads[n - 1])
			p->threads[n++] = p->threads[i];
	p->nthreads = n;

	if ((unsigned long long)p->threads[p->nthreads - 1] * p->sizes[p->nsizes - 1] >
	    BENCH_MAX_BUFFER_BYTES) {
		usage_error("%u threads x %zu B buffers exceed %llu MiB", p->threads[p->nthreads - 1],
			    p->sizes[p->nsizes - 1], BENCH_MAX_BUFFER_BYTES >> 20);
		return SURAND_EX_USAGE;
	}

	/* seconds */
	p->seconds = quick ? QUICK_SECONDS : DEFAULT_SECONDS;
	if (o_seconds) {
		char *end;
		double s;
		errno = 0;
		s = strtod(o_seconds, &end);
		if (!*o_seconds || *end || errno || !(s > 0) || s > BENCH_MAX_SECONDS) {
			usage_error("--seconds '%s' must be a number above 0 and at most %g", o_seconds,
				    BENCH_MAX_SECONDS);
			return SURAND_EX_USAGE;
		}
		p->seconds = s;
	}
	p->rounds = 1;
	if (o_rounds) {
		char *end;
		unsigned long r;
		errno = 0;
		r = strtoul(o_rounds, &end, 10);
		if (!isdigit((unsigned char)o_rounds[0]) || *end || errno || r < 1 || r > MAX_ROUNDS) {
			usage_error("--rounds '%s' must be a whole number from 1 to %d", o_rounds,
				    MAX_ROUNDS);
			return SURAND_EX_USAGE;
		}
		p->rounds = (unsigned)r;
	}
	p->warmup = p->seconds / 4;
	if (p->warmup < 0.01)
		p->warmup = 0.01;
	if (p->warmup > 0.25)
		p->warmup = 0.25;

	if (list) {
		printf("backends (default first): %s\n", surand_backend_names());
		printf("sources:");
		for (unsigned s = 0; bench_system_sources[s]; s++)
			printf(" %s", bench_system_sources[s]->name);
		printf("\n");
		return SURAND_EX_OK;
	}

	/* outputs: checked before any work */
	FILE *csv = NULL, *json = NULL;
	char csv_auto[4096] = "";
	char gnuplot[4096] = "";
	int have_gp = 0;
	if (o_csv && !(csv = open_out(o_csv)))
		return SURAND_EX_IOERR;
	if (o_json && !(json = open_out(o_json)))
		return SURAND_EX_IOERR;
	if (o_plot) {
		FILE *t = open_out(o_plot);
		if (!t)
			return SURAND_EX_IOERR;
		fclose(t);
		have_gp = have_program("gnuplot", gnuplot, sizeof(gnuplot));
		if (!have_gp) {
			unlink(o_plot);
			if (!csv) {
				size_t l = strlen(o_plot);
				snprintf(csv_auto, sizeof(csv_auto), "%.*s.csv",
					 (int)(l > 4 && !strcmp(o_plot + l - 4, ".png") ? l - 4 : l),
					 o_plot);
				if (!(csv = open_out(csv_auto)))
					return SURAND_EX_IOERR;
			}
		}
	}

	p->cells = calloc((size_t)p->nruns * p->nsizes * p->nthreads, sizeof(*p->cells));
	if (!p->cells) {
		fprintf(stderr, "surand bench: out of memory\n");
		return SURAND_EX_FAIL;
	}

	struct machine m;
	machine_info(&m);
	int failures = run_all(p);

	struct bar bars[NBARS];
	compute_bars(p, bars);
	print_report(p, &m, bars);

	int rc = failures ? SURAND_EX_FAIL : SURAND_EX_OK;
	if (csv) {
		csv_write(csv, p);
		if (fclose(csv) != 0) {
			fprintf(stderr, "surand bench: writing %s: %s\n", o_csv ? o_csv : csv_auto,
				strerror(errno));
			rc = SURAND_EX_IOERR;
		}
	}
	if (json) {
		json_write(json, p, &m, bars);
		if (fclose(json) != 0) {
			fprintf(stderr, "surand bench: writing %s: %s\n", o_json, strerror(errno));
			rc = SURAND_EX_IOERR;
		}
	}
	if (o_plot) {
		if (!have_gp)
			fprintf(stderr,
				"surand bench: gnuplot is not installed, no charts written "
				"(apt-get install gnuplot-nox); the figures are in %s\n",
				o_csv ? o_csv : csv_auto);
		else if (plot_write(p, o_plot, gnuplot) != 0)
			fprintf(stderr, "surand bench: gnuplot failed to write %s\n", o_plot);
	}
	if (failures)
		fprintf(stderr, "surand bench: %d source%s failed (see the table)\n", failures,
			failures == 1 ? "" : "s");
	free(p->cells);
	return rc;
}
