/*
 * bench_debate.c - the two measurements the 2015 debate asked for
 * (BENCHMARKS.md, "The 2015 debate replayed" reads them against the 2015 texts):
 *
 *   surand bench kleen [--size N] [--threads LIST] [--seconds S] [--rounds N] [--quick]
 *                      [--csv FILE]
 *     Kleen's micro-benchmark: many threads reading small requests at once,
 *     for the designs he compared (legacy, multipool, tso2015, salted) plus
 *     taskcrng; multipool on the machine's topology and with SURAND_NODES=2,
 *     tso2015 in both mixing modes.  Threads: 1, 2 and 4 x nproc
 *     (oversubscribed).  Each cell's figure is its best round.
 *
 *   surand bench mixed [--designs LIST] [--abusers LIST] [--seconds S] [--quick]
 *                      [--csv FILE] [--plot FILE.png]
 *     Ts'o's shell script beside an abuser: one careful thread reads 16 bytes
 *     every 10 ms and records each call's latency (p50, p99, max) while 0, 1,
 *     2 and 4 x nproc abuser threads read 4 KiB in a loop; every design.
 *
 * Each cell runs in its own child process, forked before it makes any surand
 * call, which sets its environment (SURAND_NODES, SURAND_TSO2015_MIX) and
 * selects its backend first; the child checks through surand_stats that the
 * library runs the design (and node count) named, and reports one record
 * through a pipe.
 *
 * Exit status: 0; 1 when a cell failed (its child died, a call failed, the
 * library ran another design); 64 for bad input; 74 when an output file
 * cannot be written.
 * SPDX-License-Identifier: MIT
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "cli.h"
#include "surand.h"

#define MAX_ITEMS 32
#define NAME_LEN 32
#define CAREFUL_PERIOD_NS 10000000ull /* the careful reader: one read every 10 ms */
#define CAREFUL_BYTES 16u
#define ABUSER_BYTES 4096u
#define KLEEN_DEFAULT_SIZE 16u
#define KLEEN_SECONDS 0.5
#define KLEEN_QUICK_SECONDS 0.12
#define KLEEN_ROUNDS 3
#define MAX_ROUNDS 20
#define MIXED_SECONDS 2.0
#define MIXED_QUICK_SECONDS 0.3
#define MAX_SAMPLES 100000u
#define CHILD_SLACK_S 30 /* a child past its cell's time by this much is killed */

/* ---- small helpers ---------------------------------------------------------- */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int bad(const char *what, const char *v)
{
	fprintf(stderr, "surand: bench: bad %s '%.60s' (see surand bench --help)\n", what, v);
	return SURAND_EX_USAGE;
}

/* Comma list of unsigned in [lo, hi]; "nproc" and "4nproc" allowed. */
static int parse_counts(const char *s, unsigned lo, unsigned hi, unsigned *out, unsigned *n)
{
	char buf[512], *save = NULL, *t, *end;
	long np = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned long v;

	if (np < 1)
		np = 1;
	snprintf(buf, sizeof(buf), "%s", s);
	*n = 0;
	for (t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (strcmp(t, "nproc") == 0) {
			v = (unsigned long)np;
		} else if (strcmp(t, "4nproc") == 0) {
			v = 4ul * (unsigned long)np;
		} else {
			errno = 0;
			v = strtoul(t, &end, 10);
			if (errno || *end || !*t || *t == '-')
				return -1;
		}
		if (v < lo || v > hi || *n >= MAX_ITEMS)
			return -1;
		out[(*n)++] = (unsigned)v;
	}
	return *n ? 0 : -1;
}

static int parse_seconds(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !(v >= 0.01 && v <= BENCH_MAX_SECONDS))
		return -1;
	*out = v;
	return 0;
}

static void machine_line(FILE *f)
{
	struct utsname u;
	char line[256], model[160] = "unknown CPU";
	FILE *c = fopen("/proc/cpuinfo", "r");

	while (c && fgets(line, sizeof(line), c)) {
		char *p = strchr(line, ':');
		if (strncmp(line, "model name", 10) == 0 && p) {
			snprintf(model, sizeof(model), "%s", p + 2);
			model[strcspn(model, "\n")] = '\0';
			break;
		}
	}
	if (c)
		fclose(c);
	if (uname(&u) != 0)
		memset(&u, 0, sizeof(u));
	fprintf(f, "machine: %s, %ld CPUs online, Linux %s\n", model, sysconf(_SC_NPROCESSORS_ONLN),
		u.release);
}

/* ---- cells in child processes ----------------------------------------------- */

/* A design as the benchmark names it, with the environment it needs. */
struct variant {
	char label[NAME_LEN];   /* as printed */
	char backend[NAME_LEN]; /* surand_set_backend */
	const char *env_name;   /* NULL or an environment variable set in the child */
	const char *env_value;
	const char *env2_name;  /* a second one, or NULL */
	const char *env2_value;
	int want_nodes;         /* multipool: the node count the child must find (0: any) */
};

struct cell_result {
	int ok;
	char why[120];
	double calls_per_s;   /* kleen: all threads */
	uint64_t nodes;       /* multipool: pools in use */
	/* mixed */
	uint64_t p50_ns, p99_ns, max_ns, samples;
	double abuser_mb_s;
	int careful_on_crng;  /* taskcrng: -1 not applicable, 0/1 */
};

struct worker {
	pthread_t t;
	size_t len;
	uint64_t calls;
	int failed;
};

static volatile int g_go, g_stop;

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	uint8_t *buf = malloc(w->len);

	if (!buf) {
		w->failed = 1;
		return NULL;
	}
	while (!__atomic_load_n(&g_go, __ATOMIC_ACQUIRE))
		sched_yield();
	while (!__atomic_load_n(&g_stop, __ATOMIC_RELAXED)) {
		if (surand_getrandom(buf, w->len, 0) != (ssize_t)w->len) {
			w->failed = 1;
			break;
		}
		w->calls++;
	}
	free(buf);
	return NULL;
}

/* Starts n workers of len bytes; 0 or -1. */
static int workers_start(struct worker *ws, unsigned n, size_t len)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		ws[i].len = len;
		if (pthread_create(&ws[i].t, NULL, worker_main, &ws[i]) != 0) {
			__atomic_store_n(&g_stop, 1, __ATOMIC_RELAXED);
			__atomic_store_n(&g_go, 1, __ATOMIC_RELEASE);
			while (i--)
				pthread_join(ws[i].t, NULL);
			return -1;
		}
	}
	return 0;
}

static int workers_join(struct worker *ws, unsigned n, uint64_t *calls)
{
	int failed = 0;
	unsigned i;

	*calls = 0;
	for (i = 0; i < n; i++) {
		pthread_join(ws[i].t, NULL);
		*calls += ws[i].calls;
		failed |= ws[i].failed;
	}
	return failed ? -1 : 0;
}

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* In the child: Kleen's cell, nthreads readers of len bytes for secs. */
static void kleen_cell(struct cell_result *r, unsigned nthreads, size_t len, double secs)
{
	struct worker *ws = calloc(nthreads, sizeof(*ws));
	uint64_t calls;
	double t0;

	if (!ws || workers_start(ws, nthreads, len) != 0) {
		snprintf(r->why, sizeof(r->why), "could not start %u threads", nthreads);
		free(ws);
		return;
	}
	t0 = now_s();
	__atomic_store_n(&g_go, 1, __ATOMIC_RELEASE);
	sleep_s(secs);
	__atomic_store_n(&g_stop, 1, __ATOMIC_RELAXED);
	if (workers_join(ws, nthreads, &calls) != 0) {
		snprintf(r->why, sizeof(r->why), "a call failed");
		free(ws);
		return;
	}
	r->calls_per_s = (double)calls / (now_s() - t0);
	r->ok = 1;
	free(ws);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* In the child: the careful reader beside nab abusers, for secs. */
static void mixed_cell(struct cell_result *r, unsigned nab, double secs)
{
	struct worker *ws = calloc(nab ? nab : 1, sizeof(*ws));
	size_t cap = (size_t)(secs * 1e9 / (double)CAREFUL_PERIOD_NS) + 2, n = 0;
	uint64_t *lat, next, t0, t1, calls;
	struct timespec ts;
	uint8_t b[CAREFUL_BYTES];
	double start;

	if (cap > MAX_SAMPLES)
		cap = MAX_SAMPLES;
	lat = calloc(cap, sizeof(*lat));
	if (!ws || !lat || workers_start(ws, nab, ABUSER_BYTES) != 0) {
		snprintf(r->why, sizeof(r->why), "could not start %u abusers", nab);
		free(ws);
		free(lat);
		return;
	}
	__atomic_store_n(&g_go, 1, __ATOMIC_RELEASE);
	start = now_s();
	next = now_ns() + CAREFUL_PERIOD_NS;
	while (n < cap && now_s() - start < secs) {
		ts.tv_sec = (time_t)(next / 1000000000ull);
		ts.tv_nsec = (long)(next % 1000000000ull);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		t0 = now_ns();
		if (surand_getrandom(b, sizeof(b), 0) != (ssize_t)sizeof(b)) {
			snprintf(r->why, sizeof(r->why), "the careful read failed");
			break;
		}
		t1 = now_ns();
		lat[n++] = t1 - t0;
		next += CAREFUL_PERIOD_NS;
		if (next < t1) /* fell behind: the next read at the next tick */
			next = t1 + CAREFUL_PERIOD_NS - (t1 - next) % CAREFUL_PERIOD_NS;
	}
	__atomic_store_n(&g_stop, 1, __ATOMIC_RELAXED);
	if (workers_join(ws, nab, &calls) != 0 && !r->why[0])
		snprintf(r->why, sizeof(r->why), "an abuser's call failed");
	r->abuser_mb_s = (double)calls * ABUSER_BYTES / 1e6 / (now_s() - start);
	if (!r->why[0] && n > 0) {
		qsort(lat, n, sizeof(*lat), cmp_u64);
		r->samples = n;
		r->p50_ns = lat[(n - 1) / 2];
		r->p99_ns = lat[(size_t)((double)(n - 1) * 0.99 + 0.5)];
		r->max_ns = lat[n - 1];
		r->ok = 1;
	} else if (!r->why[0]) {
		snprintf(r->why, sizeof(r->why), "no careful read completed");
	}
	free(ws);
	free(lat);
}

enum cell_kind { CELL_KLEEN, CELL_MIXED };
#define CELL_ARG "__debate-cell" /* internal: argv of a cell's own image */

/* One cell, in the image run_cell() executed (argv: CELL_ARG backend nodes
 * kind threads len secs fd): its record goes to fd.  Never returns. */
static __attribute__((noreturn)) void cell_child(const char *backend, int want_nodes,
						       enum cell_kind kind, unsigned n, size_t len,
						       double secs, int fd)
{
	struct cell_result c;
	struct surand_stats st;
	uint8_t probe[16];

	memset(&c, 0, sizeof(c));
	c.careful_on_crng = -1;
	alarm((unsigned)secs + CHILD_SLACK_S);
	if (surand_set_backend(backend) != 0) {
		snprintf(c.why, sizeof(c.why), "surand_set_backend(%s): %s", backend,
			 strerror(errno));
	} else {
		surand_bytes(probe, sizeof(probe)); /* seeds; not measured */
		if (surand_stats(&st, sizeof(st)) != 0 || strcmp(st.backend, backend) != 0) {
			snprintf(c.why, sizeof(c.why), "the library runs %.16s, not %s", st.backend,
				 backend);
		} else if (want_nodes && st.backend_counters[4] != (uint64_t)want_nodes) {
			snprintf(c.why, sizeof(c.why), "%llu nodes, not %d",
				 (unsigned long long)st.backend_counters[4], want_nodes);
		} else {
			c.nodes = strcmp(backend, "multipool") == 0 ? st.backend_counters[4] : 0;
			if (kind == CELL_KLEEN)
				kleen_cell(&c, n, len, secs);
			else
				mixed_cell(&c, n, secs);
			/* taskcrng: did the careful thread itself get switched?
			 * counters[0] counts switched threads, abusers included. */
			if (c.ok && kind == CELL_MIXED && strcmp(backend, "taskcrng") == 0 &&
			    !getenv("SURAND_TASKCRNG_EVERY") &&
			    surand_stats(&st, sizeof(st)) == 0)
				c.careful_on_crng = st.backend_counters[0] > n;
		}
	}
	if (write(fd, &c, sizeof(c)) != (ssize_t)sizeof(c))
		_exit(2);
	_exit(0);
}

/* Forks a child for one cell; *r receives its record.  0, or -1 (r->why). */
static int run_cell(const struct variant *v, enum cell_kind kind, unsigned n, size_t len, double secs,
		    struct cell_result *r)
{
	int p[2], status = 0;
	ssize_t got = 0, k;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	r->careful_on_crng = -1;
	if (pipe(p) != 0) {
		snprintf(r->why, sizeof(r->why), "pipe: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		snprintf(r->why, sizeof(r->why), "fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		char a_nodes[16], a_kind[16], a_n[16], a_len[24], a_secs[32], a_fd[16];
		struct cell_result c;

		close(p[0]);
		/* The library reads its environment once, at start-up: the cell
		 * runs in a fresh image of this program, with the variant's. */
		if (v->env_name)
			setenv(v->env_name, v->env_value, 1);
		if (v->env2_name)
			setenv(v->env2_name, v->env2_value, 1);
		snprintf(a_nodes, sizeof(a_nodes), "%d", v->want_nodes);
		snprintf(a_kind, sizeof(a_kind), "%d", (int)kind);
		snprintf(a_n, sizeof(a_n), "%u", n);
		snprintf(a_len, sizeof(a_len), "%zu", len);
		snprintf(a_secs, sizeof(a_secs), "%.17g", secs);
		snprintf(a_fd, sizeof(a_fd), "%d", p[1]);
		execl("/proc/self/exe", "surand", "bench", CELL_ARG, v->backend, a_nodes, a_kind, a_n,
		      a_len, a_secs, a_fd, (char *)NULL);
		memset(&c, 0, sizeof(c));
		snprintf(c.why, sizeof(c.why), "exec /proc/self/exe: %s", strerror(errno));
		if (write(p[1], &c, sizeof(c)) != (ssize_t)sizeof(c))
			_exit(2);
		_exit(0);
	}
	close(p[1]);
	while (got < (ssize_t)sizeof(*r)) {
		k = read(p[0], (char *)r + got, sizeof(*r) - (size_t)got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		got += k;
	}
	close(p[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (got != (ssize_t)sizeof(*r) || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		memset(r, 0, sizeof(*r));
		if (WIFSIGNALED(status))
			snprintf(r->why, sizeof(r->why), "the child died of signal %d", WTERMSIG(status));
		else
			snprintf(r->why, sizeof(r->why), "the child reported nothing");
		return -1;
	}
	return r->ok ? 0 : -1;
}

static FILE *open_out(const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		fprintf(stderr, "surand: bench: %s: %s\n", path, strerror(errno));
	return f;
}

/* Closes a CSV file: rc, or SURAND_EX_IOERR when its last write failed. */
static int close_out(FILE *f, const char *path, int rc)
{
	if (f && fclose(f) != 0) {
		fprintf(stderr, "surand: bench: %s: %s\n", path, strerror(errno));
		return SURAND_EX_IOERR;
	}
	return rc;
}

/*
 * The options of both debate benchmarks.  Each names the ones it takes
 * (O_*); --seconds, --quick, --csv and --help are common.  counts: --threads
 * (kleen) or --abusers (mixed), left as the caller set them when not given.
 */
enum { O_SIZE = 1, O_THREADS = 2, O_ROUNDS = 4, O_ABUSERS = 8, O_DESIGNS = 16, O_PLOT = 32 };
struct dopts {
	int quick, have_secs, have_rounds;
	double secs;
	unsigned rounds, counts[MAX_ITEMS], ncounts;
	unsigned long size;
	const char *csv, *plot, *designs;
};

/* The value option a at argv[*i] (its value next) into o.  0, or SURAND_EX_USAGE. */
static int read_value(const char *a, const char *val, unsigned takes, struct dopts *o)
{
	char *end;

	if (strcmp(a, "--seconds") == 0) {
		if (parse_seconds(val, &o->secs) != 0)
			return bad("--seconds", val);
		o->have_secs = 1;
	} else if (strcmp(a, "--csv") == 0) {
		o->csv = val;
	} else if ((takes & O_SIZE) && strcmp(a, "--size") == 0) {
		errno = 0;
		o->size = strtoul(val, &end, 10);
		if (errno || *end || o->size < 1 || o->size > BENCH_MAX_SIZE_BYTES || *val == '-')
			return bad("--size", val);
	} else if ((takes & O_THREADS) && strcmp(a, "--threads") == 0) {
		if (parse_counts(val, 1, BENCH_MAX_THREADS, o->counts, &o->ncounts) != 0)
			return bad("--threads", val);
	} else if ((takes & O_ABUSERS) && strcmp(a, "--abusers") == 0) {
		if (parse_counts(val, 0, BENCH_MAX_THREADS, o->counts, &o->ncounts) != 0)
			return bad("--abusers", val);
	} else if ((takes & O_ROUNDS) && strcmp(a, "--rounds") == 0) {
		errno = 0;
		o->rounds = (unsigned)strtoul(val, &end, 10);
		if (errno || *end || o->rounds < 1 || o->rounds > MAX_ROUNDS || *val == '-')
			return bad("--rounds", val);
		o->have_rounds = 1;
	} else if ((takes & O_DESIGNS) && strcmp(a, "--designs") == 0) {
		o->designs = val;
	} else if ((takes & O_PLOT) && strcmp(a, "--plot") == 0) {
		o->plot = val;
	} else {
		return bad("option", a);
	}
	return 0;
}

/* -1: go on and measure; else the exit status (0 after --help). */
static int read_dopts(int argc, char **argv, unsigned takes, const char *usage, struct dopts *o)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		int r;

		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			fputs(usage, stdout);
			return SURAND_EX_OK;
		}
		if (strcmp(a, "--quick") == 0) {
			o->quick = 1;
			continue;
		}
		if (!val)
			return bad("option (or missing value)", a);
		if ((r = read_value(a, val, takes, o)) != 0)
			return r;
		i++;
	}
	return -1;
}

/* ---- surand bench kleen ------------------------------------------------------ */

static const char kleen_usage[] =
	"usage: surand bench kleen [--size N] [--threads LIST] [--seconds S] [--rounds N]\n"
	"                          [--quick] [--csv FILE]\n"
	"Many threads read N bytes (default 16) at once, for legacy, multipool (this machine's\n"
	"nodes, and SURAND_NODES=2), tso2015 (offset and atomic mixing), salted and taskcrng.\n"
	"Threads default 1,2,4nproc; 0.5 s per cell, 3 rounds.  --quick: 0.12 s, 1 round.\n"
	"Columns: the best round's calls/s, its ratio to legacy's best, and the median over the\n"
	"rounds of each round's ratio to the legacy run just before it.\n";

static int kleen_variants(struct variant *v)
{
	int n = 0;

	memset(v, 0, 8 * sizeof(*v));
	snprintf(v[n].label, NAME_LEN, "legacy");
	snprintf(v[n++].backend, NAME_LEN, "legacy");
	snprintf(v[n].label, NAME_LEN, "multipool");
	snprintf(v[n++].backend, NAME_LEN, "multipool");
	snprintf(v[n].label, NAME_LEN, "multipool-nodes2");
	snprintf(v[n].backend, NAME_LEN, "multipool");
	v[n].env_name = "SURAND_NODES";
	v[n].env_value = "2";
	v[n++].want_nodes = 2;
	snprintf(v[n].label, NAME_LEN, "tso2015");
	snprintf(v[n].backend, NAME_LEN, "tso2015");
	v[n].env_name = "SURAND_TSO2015_MIX";
	v[n++].env_value = "offset";
	snprintf(v[n].label, NAME_LEN, "tso2015-atomic");
	snprintf(v[n].backend, NAME_LEN, "tso2015");
	v[n].env_name = "SURAND_TSO2015_MIX";
	v[n++].env_value = "atomic";
	snprintf(v[n].label, NAME_LEN, "salted");
	snprintf(v[n++].backend, NAME_LEN, "salted");
	snprintf(v[n].label, NAME_LEN, "taskcrng");
	snprintf(v[n++].backend, NAME_LEN, "taskcrng");
	return n;
}

/* Kleen's figures: per design and thread count, the best round and each
 * round's ratio to the legacy cell run just before it; best -1: failed. */
struct kleen_res {
	double best[8][MAX_ITEMS], ratio[8][MAX_ITEMS][MAX_ROUNDS];
	uint64_t nodes[8];
};

/*
 * Within a round the designs at one thread count run back to back, legacy
 * first, so each round gives every design a ratio to a legacy measured
 * moments before it; on a shared machine whose load changes over the run,
 * the median of those ratios is steadier than the ratio of the best
 * figures.  1 when a cell failed.
 */
static int kleen_measure(const struct variant *v, unsigned nv, const struct dopts *o,
			 struct kleen_res *k)
{
	struct cell_result r;
	int failed = 0;

	memset(k, 0, sizeof(*k));
	for (unsigned rd = 0; rd < o->rounds; rd++)
		for (unsigned i = 0; i < o->ncounts; i++) {
			double legacy_now = 0;

			for (unsigned j = 0; j < nv; j++) {
				if (k->best[j][i] < 0)
					continue; /* failed in an earlier round */
				if (run_cell(&v[j], CELL_KLEEN, o->counts[i], o->size, o->secs, &r) != 0) {
					fprintf(stderr, "surand: bench kleen: %s, %u threads: %s\n",
						v[j].label, o->counts[i], r.why);
					k->best[j][i] = -1;
					failed = 1;
					continue;
				}
				if (j == 0)
					legacy_now = r.calls_per_s;
				k->ratio[j][i][rd] = legacy_now > 0 ? r.calls_per_s / legacy_now : 0;
				if (r.calls_per_s > k->best[j][i])
					k->best[j][i] = r.calls_per_s;
				k->nodes[j] = r.nodes;
			}
		}
	return failed;
}

static double median(double *x, unsigned n)
{
	qsort(x, n, sizeof(double), cmp_double);
	return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

static void kleen_print(const struct variant *v, unsigned nv, const struct dopts *o,
			struct kleen_res *k, FILE *csv)
{
	printf("%-18s %7s %6s %14s %10s %12s\n", "design", "threads", "nodes", "Mcalls/s",
	       "vs legacy", "median ratio");
	if (csv)
		fprintf(csv, "design,threads,nodes,calls_per_s,ratio_vs_legacy,median_round_ratio\n");
	for (unsigned j = 0; j < nv; j++)
		for (unsigned i = 0; i < o->ncounts; i++) {
			char nd[24] = "-";
			double ratio = k->best[0][i] > 0 ? k->best[j][i] / k->best[0][i] : 0;
			double med = median(k->ratio[j][i], o->rounds);

			if (k->nodes[j])
				snprintf(nd, sizeof(nd), "%llu", (unsigned long long)k->nodes[j]);
			if (k->best[j][i] < 0) {
				printf("%-18s %7u %6s %14s %10s %12s\n", v[j].label, o->counts[i], nd,
				       "FAILED", "-", "-");
				continue;
			}
			printf("%-18s %7u %6s %14.3f %9.2fx %11.2fx\n", v[j].label, o->counts[i], nd,
			       k->best[j][i] / 1e6, ratio, med);
			if (csv)
				fprintf(csv, "%s,%u,%s,%.0f,%.4f,%.4f\n", v[j].label, o->counts[i], nd,
					k->best[j][i], ratio, med);
		}
}

static int bench_kleen(int argc, char **argv)
{
	static struct kleen_res k;
	struct variant v[8];
	struct dopts o;
	long np = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned nv = (unsigned)kleen_variants(v);
	FILE *csv = NULL;
	int r, failed;

	memset(&o, 0, sizeof(o));
	o.counts[0] = 1;
	o.counts[1] = 2;
	o.counts[2] = 4u * (unsigned)(np > 0 ? np : 1);
	o.ncounts = 3;
	o.rounds = KLEEN_ROUNDS;
	o.size = KLEEN_DEFAULT_SIZE;
	o.secs = KLEEN_SECONDS;
	if ((r = read_dopts(argc, argv, O_SIZE | O_THREADS | O_ROUNDS, kleen_usage, &o)) >= 0)
		return r;
	if (o.quick && !o.have_secs)
		o.secs = KLEEN_QUICK_SECONDS;
	if (o.quick && !o.have_rounds)
		o.rounds = 1;
	if (o.csv && !(csv = open_out(o.csv)))
		return SURAND_EX_IOERR;
	printf("surand bench kleen: %u threads at once reading %lu bytes per call; best of %u "
	       "round%s of %.2f s per cell\n",
	       o.counts[o.ncounts - 1], o.size, o.rounds, o.rounds == 1 ? "" : "s", o.secs);
	machine_line(stdout);
	failed = kleen_measure(v, nv, &o, &k);
	kleen_print(v, nv, &o, &k, csv);
	return close_out(csv, o.csv, failed ? SURAND_EX_FAIL : SURAND_EX_OK);
}

/* ---- surand bench mixed ------------------------------------------------------ */

static const char mixed_usage[] =
	"usage: surand bench mixed [--designs LIST] [--abusers LIST] [--seconds S] [--quick]\n"
	"                          [--csv FILE] [--plot FILE.png]\n"
	"One careful thread reads 16 bytes every 10 ms (its latency: p50, p99, max) beside\n"
	"abuser threads reading 4 KiB in a loop.  Defaults: every backend, and taskcrng-pool\n"
	"(taskcrng with limits of 1000 reads/s and 4000 bytes/min: the careful thread, 1600 B/s,\n"
	"stays on the shared pool for 2.5 s, an abuser moves to its CRNG at its first 4 KiB read);\n"
	"abusers 0,1,2,4nproc;\n"
	"2 s per cell.  --quick: 0.3 s per cell (p99 of about 30 reads).\n"
	"--plot: the careful reader's p99 against abusers, one line per design (gnuplot).\n";

static int find_program(const char *name, char *path, size_t n)
{
	const char *env = getenv("PATH");
	char dirs[4096], *save = NULL, *d;

	snprintf(dirs, sizeof(dirs), "%s", env && *env ? env : "/usr/local/bin:/usr/bin:/bin");
	for (d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		snprintf(path, n, "%s/%s", *d ? d : ".", name);
		if (access(path, X_OK) == 0)
			return 1;
	}
	return 0;
}

/* The chart: p99 (us, log scale) against abusers, one line per design. */
static int mixed_plot(const char *png, const char *gnuplot, struct variant *v, unsigned nv,
		      const unsigned *ab, unsigned na, struct cell_result (*res)[MAX_ITEMS])
{
	char dir[] = "/tmp/surand-bench-mixed.XXXXXX", dat[64], gp[64];
	unsigned i, j;
	int status = 0;
	FILE *f;
	pid_t pid;

	if (!mkdtemp(dir))
		return -1;
	snprintf(dat, sizeof(dat), "%s/p99.dat", dir);
	snprintf(gp, sizeof(gp), "%s/plot.gp", dir);
	f = fopen(dat, "w");
	if (!f)
		return -1;
	for (j = 0; j < nv; j++) {
		fprintf(f, "# %s\n", v[j].label);
		for (i = 0; i < na; i++)
			if (res[j][i].ok)
				fprintf(f, "%u %.3f\n", ab[i], (double)res[j][i].p99_ns / 1e3);
		fprintf(f, "\n\n");
	}
	fclose(f);
	f = fopen(gp, "w");
	if (!f)
		return -1;
	fprintf(f, "set terminal pngcairo size 1000,650 noenhanced\nset output '%s'\n", png);
	fprintf(f, "set title 'surand bench mixed: careful reader (16 B every 10 ms), p99 latency vs "
		   "abuser threads (4 KiB reads)'\n");
	fprintf(f, "set xlabel 'abuser threads'\nset ylabel 'careful read p99 (us)'\n");
	fprintf(f, "set logscale y\nset key outside right\nset grid\n");
	fprintf(f, "set xtics (");
	for (i = 0; i < na; i++)
		fprintf(f, "%s'%u' %u", i ? ", " : "", ab[i], ab[i]);
	fprintf(f, ")\nplot ");
	for (j = 0; j < nv; j++)
		/* gnuplot cycles 8 colours: dashes tell the later lines apart */
		fprintf(f, "%s'%s' index %u using 1:2 with linespoints lw 2 dt %u title '%s'",
			j ? ", " : "", dat, j, j / 8 + 1, v[j].label);
	fprintf(f, "\n");
	fclose(f);
	pid = fork();
	if (pid == 0) {
		int devnull = open("/dev/null", O_WRONLY);
		if (devnull >= 0)
			dup2(devnull, STDOUT_FILENO);
		execl(gnuplot, "gnuplot", gp, (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		waitpid(pid, &status, 0);
	unlink(dat);
	unlink(gp);
	rmdir(dir);
	return pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* --designs (or every backend, then taskcrng-pool) into v.  0, or the
 * exit status for a bad name.  The parent reads the names only (no
 * generator is set up in it). */
static int mixed_designs(const char *designs, struct variant *v, unsigned *nv)
{
	char list[512], *save = NULL, *t;

	if (designs)
		snprintf(list, sizeof(list), "%s", designs);
	else
		snprintf(list, sizeof(list), "%s,taskcrng-pool", surand_backend_names());
	*nv = 0;
	for (t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char known[512], *s2 = NULL, *k;
		int found = 0, pool_variant = strcmp(t, "taskcrng-pool") == 0;

		snprintf(known, sizeof(known), "%s", surand_backend_names());
		for (k = strtok_r(known, ",", &s2); k; k = strtok_r(NULL, ",", &s2))
			found |= strcmp(k, t) == 0;
		if ((!found && !pool_variant) || *nv >= MAX_ITEMS || strlen(t) >= NAME_LEN)
			return bad("design", t);
		memset(&v[*nv], 0, sizeof(v[*nv]));
		snprintf(v[*nv].label, NAME_LEN, "%s", t);
		snprintf(v[*nv].backend, NAME_LEN, "%s", pool_variant ? "taskcrng" : t);
		if (pool_variant) {
			v[*nv].env_name = "SURAND_TASKCRNG_READS";
			v[*nv].env_value = "1000";
			v[*nv].env2_name = "SURAND_TASKCRNG_BYTES";
			v[*nv].env2_value = "4000";
		}
		(*nv)++;
	}
	return *nv ? 0 : bad("--designs", designs ? designs : "");
}

/* One row of the table (and the CSV): the careful reader beside ab abusers;
 * r0 the same design's cell with no abuser (its p99 the baseline). */
static void mixed_row(const struct variant *v, unsigned ab, const struct cell_result *r,
		      const struct cell_result *r0, FILE *csv)
{
	char vs0[16] = "-", oc[8] = "-";

	if (r != r0 && r0->ok && r0->p99_ns)
		snprintf(vs0, sizeof(vs0), "%.1fx", (double)r->p99_ns / (double)r0->p99_ns);
	if (r->careful_on_crng >= 0)
		snprintf(oc, sizeof(oc), "%s", r->careful_on_crng ? "yes" : "no");
	printf("%-14s %7u %9.1f %9.1f %9.1f %7llu %12.1f %9s %8s\n", v->label, ab,
	       (double)r->p50_ns / 1e3, (double)r->p99_ns / 1e3, (double)r->max_ns / 1e3,
	       (unsigned long long)r->samples, r->abuser_mb_s, vs0, oc);
	fflush(stdout);
	if (csv)
		fprintf(csv, "%s,%u,%llu,%llu,%llu,%llu,%.1f,%d\n", v->label, ab,
			(unsigned long long)r->p50_ns, (unsigned long long)r->p99_ns,
			(unsigned long long)r->max_ns, (unsigned long long)r->samples,
			r->abuser_mb_s, r->careful_on_crng);
}

static int bench_mixed(int argc, char **argv)
{
	static struct cell_result res[MAX_ITEMS][MAX_ITEMS];
	struct variant v[MAX_ITEMS];
	struct dopts o;
	unsigned nv = 0;
	long np = sysconf(_SC_NPROCESSORS_ONLN);
	char gnuplot[4096] = "";
	int r, failed = 0;
	FILE *csv = NULL;

	memset(&o, 0, sizeof(o));
	o.counts[0] = 0;
	o.counts[1] = 1;
	o.counts[2] = 2;
	o.counts[3] = 4u * (unsigned)(np > 0 ? np : 1);
	o.ncounts = 4;
	o.secs = MIXED_SECONDS;
	if ((r = read_dopts(argc, argv, O_ABUSERS | O_DESIGNS | O_PLOT, mixed_usage, &o)) >= 0)
		return r;
	if (o.quick && !o.have_secs)
		o.secs = MIXED_QUICK_SECONDS;
	if ((r = mixed_designs(o.designs, v, &nv)) != 0)
		return r;
	if (o.csv && !(csv = open_out(o.csv)))
		return SURAND_EX_IOERR;
	printf("surand bench mixed: one careful thread (%u B every %llu ms) beside abuser threads "
	       "(%u B reads in a loop); %.2f s per cell\n",
	       CAREFUL_BYTES, CAREFUL_PERIOD_NS / 1000000ull, ABUSER_BYTES, o.secs);
	machine_line(stdout);
	printf("%-14s %7s %9s %9s %9s %7s %12s %9s %8s\n", "design", "abusers", "p50_us", "p99_us",
	       "max_us", "reads", "abusers_MB/s", "p99_vs_0", "on_crng");
	if (csv)
		fprintf(csv, "design,abusers,p50_ns,p99_ns,max_ns,reads,abusers_mb_s,careful_on_crng\n");
	for (unsigned j = 0; j < nv; j++)
		for (unsigned i = 0; i < o.ncounts; i++) {
			if (run_cell(&v[j], CELL_MIXED, o.counts[i], 0, o.secs, &res[j][i]) != 0) {
				fprintf(stderr, "surand: bench mixed: %s, %u abusers: %s\n", v[j].label,
					o.counts[i], res[j][i].why);
				printf("%-14s %7u %9s\n", v[j].label, o.counts[i], "FAILED");
				failed = 1;
				continue;
			}
			mixed_row(&v[j], o.counts[i], &res[j][i], &res[j][0], csv);
		}
	if ((r = close_out(csv, o.csv, 0)) != 0)
		return r;
	if (o.plot) {
		if (!find_program("gnuplot", gnuplot, sizeof(gnuplot)))
			fprintf(stderr, "surand: bench: gnuplot is not installed, no chart written "
					"(apt-get install gnuplot-nox)%s\n",
				o.csv ? "; the figures are in the CSV file" : "");
		else if (mixed_plot(o.plot, gnuplot, v, nv, o.counts, o.ncounts, res) != 0)
			fprintf(stderr, "surand: bench: gnuplot failed to write %s\n", o.plot);
	}
	return failed ? SURAND_EX_FAIL : SURAND_EX_OK;
}

int surand_bench_debate(int argc, char **argv)
{
	if (strcmp(argv[0], CELL_ARG) == 0) {
		if (argc != 8)
			return SURAND_EX_USAGE;
		cell_child(argv[1], atoi(argv[2]), (enum cell_kind)atoi(argv[3]),
			   (unsigned)strtoul(argv[4], NULL, 10), (size_t)strtoull(argv[5], NULL, 10),
			   strtod(argv[6], NULL), atoi(argv[7]));
	}
	if (strcmp(argv[0], "kleen") == 0)
		return bench_kleen(argc, argv);
	return bench_mixed(argc, argv);
}
