/*
 * bench_engine.c - the one measuring loop of `surand bench`, the same for
 * every source (the source is a function pointer; nothing else differs).
 *
 * A cell is (source, call size, thread count).  Its threads each get their
 * own buffer and context, wait at a start gate, then all run the loop at
 * once: a warm-up (not counted: first-call seeding, per-thread keying, page
 * faults), then the measured window, ended by the main thread.  Every
 * thread's calls in the window are counted and summed.
 *
 * Honesty checks kept in the loop:
 *  - before each call one byte of the buffer (a different one each call) is
 *    set to 0 and after it is read back: a source that does not write its
 *    buffer leaves zeros and the cell is marked bad (a random byte is 0 with
 *    probability 1/256, so the check allows for that);
 *  - the fill result is counted, so no call can be optimised away, and the
 *    call goes through a pointer the compiler cannot see through;
 *  - latency is sampled: every Nth call on average is timed with
 *    CLOCK_MONOTONIC (the gaps drawn from N/2..3N/2, so that a cost that
 *    repeats every 16 or 64 calls is not always or never the one timed), N a
 *    power of two chosen per thread in the warm-up so that the timing costs
 *    under 1% of the loop (two clock reads, ~20-40 ns, would otherwise weigh
 *    on 3 ns calls and compress the ratios between fast sources): about
 *    every 1024th call of a 3 ns source, every call of a 100 us one.
 *    The cost of a pair of clock reads is measured once and subtracted.
 * SPDX-License-Identifier: MIT
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

enum { PHASE_WARM = 0, PHASE_MEASURE = 1, PHASE_STOP = 2 };

/* Timing may cost at most 1/BENCH_TIMING_BUDGET of a call on average. */
#define BENCH_TIMING_BUDGET 100.0
#define BENCH_WARMUP_PERIOD 8u
#define BENCH_DEFAULT_PERIOD 64u
#define BENCH_MAX_PERIOD 65536u
#define BENCH_WORKER_STACK_BYTES (512u << 10)

struct cell;

struct worker {
	struct cell *cell;
	unsigned idx;
	uint8_t *buf;
	void *ctx;
	int init_failed;
	/* results, written by the worker at the end, read after join */
	uint64_t calls, errors, zeros, samples;
	unsigned period;
	uint64_t hist[BENCH_HIST_BUCKETS];
} __attribute__((aligned(64)));

struct cell {
	/* The phase word: written twice by the main thread, read once per call
	 * by every worker (read-mostly, so it stays shared in every cache). */
	int phase __attribute__((aligned(64)));
	char pad_[64 - sizeof(int)];
	const struct bench_source *src;
	const struct bench_hooks *hooks;
	size_t len;
	double timer_ns;
	/* the start gate */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned ready;
	int go;     /* 1: start; -1: abort (not every thread could start) */
};

uint64_t bench_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t process_cpu_ns(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static unsigned usable_cpus(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		return (unsigned)CPU_COUNT(&set);
	return 1;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

double bench_timer_overhead_ns(void)
{
	static double cached = -1.0;
	enum { N = 2001 };
	uint64_t d[N];

	if (cached >= 0.0)
		return cached;
	for (int i = 0; i < N; i++) {
		uint64_t a = bench_now_ns();
		uint64_t b = bench_now_ns();
		d[i] = b - a;
	}
	qsort(d, N, sizeof(d[0]), cmp_u64);
	cached = (double)d[N / 2]; /* NOLINT(bugprone-integer-division): N / 2 is an index */
	return cached;
}

unsigned bench_hist_bucket(uint64_t v)
{
	if (v < BENCH_HIST_LINEAR)
		return (unsigned)v;
	unsigned e = 63u - (unsigned)__builtin_clzll(v); /* >= 5 */
	unsigned sub = (unsigned)(v >> (e - 4)) & (BENCH_HIST_SUB - 1);
	unsigned b = BENCH_HIST_LINEAR + (e - 5) * BENCH_HIST_SUB + sub;
	return b < BENCH_HIST_BUCKETS ? b : BENCH_HIST_BUCKETS - 1;
}

static double hist_value(unsigned b)
{
	if (b < BENCH_HIST_LINEAR)
		return (double)b;
	unsigned e = 5 + (b - BENCH_HIST_LINEAR) / BENCH_HIST_SUB;
	unsigned sub = (b - BENCH_HIST_LINEAR) % BENCH_HIST_SUB;
	double lo = ldexp((double)(BENCH_HIST_SUB + sub), (int)e - 4);
	return lo + ldexp(0.5, (int)e - 4); /* middle of the bucket */
}

double bench_hist_percentile(const uint64_t *hist, uint64_t total, double p)
{
	if (total == 0)
		return NAN;
	/* the smallest value with at least p of the samples at or below it */
	uint64_t want = (uint64_t)ceil(p * (double)total);
	if (want < 1)
		want = 1;
	uint64_t acc = 0;
	for (unsigned b = 0; b < BENCH_HIST_BUCKETS; b++) {
		acc += hist[b];
		if (acc >= want)
			return hist_value(b);
	}
	return hist_value(BENCH_HIST_BUCKETS - 1);
}

/*
 * The loop.  Runs while the phase is `phase`; returns the calls made.
 * With hist != NULL every period-th call is timed into hist; otherwise the
 * smallest timing seen (for the warm-up estimate) goes to *min_sample.
 */
static uint64_t run_loop(struct worker *w, int phase, unsigned period, uint64_t *hist,
			 uint64_t *min_sample, uint64_t *zeros_out, uint64_t *errors_out,
			 uint64_t *samples_out)
{
	struct cell *c = w->cell;
	int (*fill)(void *, void *, size_t) = c->src->fill;
	void *ctx = w->ctx;
	uint8_t *buf = w->buf;
	const size_t len = c->len;
	const size_t stride = 2531 % len; /* moves the checked byte around */
	const uint64_t overhead = (uint64_t)c->timer_ns;
	uint64_t n = 0, zeros = 0, errors = 0, samples = 0, mins = UINT64_MAX;
	/* the warm-up times its first call, so even a source too slow for 8
	 * calls in the warm-up gets its sampling period from a real timing */
	unsigned count = hist ? 0 : period - 1;
	unsigned gap = period; /* calls until the next timing */
	uint32_t jitter = (uint32_t)(uintptr_t)w * 2654435761u | 1u;
	size_t j = 0;

	while (__atomic_load_n(&c->phase, __ATOMIC_RELAXED) == phase) {
		int rc;
		buf[j] = 0;
		if (++count >= gap) {
			count = 0;
			/*
			 * The next gap is drawn from [period/2, 3*period/2), mean
			 * period: a fixed power-of-two gap would time the same call
			 * of a source whose cost repeats with a power-of-two period
			 * (a buffer refilled every 16 calls) every time.
			 */
			jitter ^= jitter << 13;
			jitter ^= jitter >> 17;
			jitter ^= jitter << 5;
			gap = period < 2 ? 1 : period / 2 + jitter % period;
			uint64_t t0 = bench_now_ns();
			rc = fill(ctx, buf, len);
			uint64_t t1 = bench_now_ns();
			uint64_t d = t1 - t0;
			d = d > overhead ? d - overhead : 0;
			if (hist)
				hist[bench_hist_bucket(d)]++;
			else if (d < mins)
				mins = d;
			samples++;
		} else {
			rc = fill(ctx, buf, len);
		}
		errors += rc != 0;
		zeros += buf[j] == 0;
		j += stride;
		if (j >= len)
			j -= len;
		n++;
	}
	if (min_sample)
		*min_sample = mins;
	*zeros_out += zeros;
	*errors_out += errors;
	*samples_out += samples;
	return n;
}

/*
 * The smallest power of two N with timer_ns <= N * call_ns / BUDGET: fast
 * calls (a few ns) are timed every 1024th or so, slow ones (microseconds)
 * every call.  No timing in the warm-up (the thread made no call in it: a
 * busy machine, many threads): every 64th.
 */
unsigned bench_choose_period(double timer_ns, uint64_t min_sample)
{
	if (min_sample == UINT64_MAX)
		return BENCH_DEFAULT_PERIOD;
	double call_ns = (double)min_sample;
	if (call_ns < 1.0)
		call_ns = 1.0;
	unsigned p = 1;
	while (p < BENCH_MAX_PERIOD && timer_ns > (double)p * call_ns / BENCH_TIMING_BUDGET)
		p *= 2;
	return p;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct cell *c = w->cell;
	int go;

	/* a source without per-thread state gets a context that is not NULL */
	w->ctx = c->src->thread_init ? c->src->thread_init(c->len) : (void *)w;
	w->init_failed = w->ctx == NULL;
	if (!w->init_failed) {
		w->buf = aligned_alloc(64, (c->len + 63) & ~(size_t)63);
		if (!w->buf) {
			w->init_failed = 1;
		} else {
			memset(w->buf, 0xa5, c->len); /* fault the pages in before the start */
		}
	}

	pthread_mutex_lock(&c->mu);
	c->ready++;
	pthread_cond_broadcast(&c->cv);
	while (c->go == 0)
		pthread_cond_wait(&c->cv, &c->mu);
	go = c->go;
	pthread_mutex_unlock(&c->mu);

	if (go > 0 && !w->init_failed) {
		uint64_t zeros = 0, errors = 0, samples = 0, mins = UINT64_MAX;
		uint64_t wz = 0, we = 0, ws = 0;

		run_loop(w, PHASE_WARM, BENCH_WARMUP_PERIOD, NULL, &mins, &wz, &we, &ws);
		w->period = bench_choose_period(c->timer_ns, mins);
		if (__atomic_load_n(&c->phase, __ATOMIC_ACQUIRE) == PHASE_MEASURE) {
			if (c->hooks && c->hooks->measure_begin)
				c->hooks->measure_begin(c->hooks->arg, w->idx);
			w->calls = run_loop(w, PHASE_MEASURE, w->period, w->hist, NULL, &zeros,
					    &errors, &samples);
			if (c->hooks && c->hooks->measure_end)
				c->hooks->measure_end(c->hooks->arg, w->idx);
		}
		w->zeros = zeros;
		w->errors = errors + we; /* a failure in the warm-up counts too */
		w->samples = samples;
	}
	if (w->ctx && c->src->thread_fini)
		c->src->thread_fini(w->ctx);
	free(w->buf);
	return NULL;
}

static void sleep_until(uint64_t deadline_ns)
{
	struct timespec ts = {.tv_sec = (time_t)(deadline_ns / 1000000000u),
			      .tv_nsec = (long)(deadline_ns % 1000000000u)};
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* Starts the workers; returns how many started (all, or the error in res). */
static unsigned start_workers(struct cell *c, struct worker *ws, pthread_t *tids,
			      unsigned threads, struct bench_result *res)
{
	pthread_attr_t attr;
	unsigned started = 0;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, BENCH_WORKER_STACK_BYTES);
	for (unsigned i = 0; i < threads; i++) {
		ws[i].cell = c;
		ws[i].idx = i;
		int e = pthread_create(&tids[i], &attr, worker_main, &ws[i]);
		if (e) {
			snprintf(res->error, sizeof(res->error), "could not start thread %u of %u: %s",
				 i + 1, threads, strerror(e));
			res->machine_limit = 1;
			break;
		}
		started++;
	}
	pthread_attr_destroy(&attr);
	return started;
}

/* The clock and CPU time at the measured window's ends. */
struct window {
	uint64_t t0, t1, cpu0, cpu1;
};

/* The warm-up, then the measured window, then the stop. */
static void run_window(struct cell *c, double warmup_s, double seconds, struct window *w)
{
	uint64_t start = bench_now_ns();

	sleep_until(start + (uint64_t)(warmup_s * 1e9));
	__atomic_store_n(&c->phase, PHASE_MEASURE, __ATOMIC_RELEASE);
	w->t0 = bench_now_ns();
	w->cpu0 = process_cpu_ns();
	sleep_until(w->t0 + (uint64_t)(seconds * 1e9));
	__atomic_store_n(&c->phase, PHASE_STOP, __ATOMIC_RELEASE);
	w->cpu1 = process_cpu_ns();
	w->t1 = bench_now_ns();
}

/* The rates and percentiles from the joined workers' counts; 0, or -1
 * with the reason in res. */
static int collect(const struct worker *ws, unsigned threads, size_t len, double seconds,
		   const struct window *win, struct bench_result *res)
{
	uint64_t *hist = calloc(BENCH_HIST_BUCKETS, sizeof(*hist));
	unsigned failed = 0, period = 0;
	int rc = 0;

	for (unsigned i = 0; i < threads; i++) {
		const struct worker *w = &ws[i];
		failed += w->init_failed != 0;
		res->calls += w->calls;
		res->zero_checks += w->zeros;
		res->errors += w->errors;
		res->samples += w->samples;
		if (w->period && (period == 0 || w->period < period))
			period = w->period;
		if (hist)
			for (unsigned b = 0; b < BENCH_HIST_BUCKETS; b++)
				hist[b] += w->hist[b];
	}
	res->sample_every = period;
	res->seconds = (double)(win->t1 - win->t0) / 1e9;
	res->bytes = res->calls * (uint64_t)len;
	{
		unsigned ncpu = usable_cpus();
		double want = res->seconds * (threads < ncpu ? threads : ncpu);
		res->cpu_share = want > 0 ? (double)(win->cpu1 - win->cpu0) / 1e9 / want : 0;
	}
	if (failed) {
		snprintf(res->error, sizeof(res->error),
			 "%u of %u threads could not set up the source", failed, threads);
		rc = -1;
	} else if (res->calls == 0) {
		snprintf(res->error, sizeof(res->error),
			 "no call completed in the %.3g s window (a longer --seconds)", seconds);
		res->machine_limit = 1;
		rc = -1;
	} else {
		res->calls_per_s = (double)res->calls / res->seconds;
		res->mb_per_s = (double)res->bytes / res->seconds / 1e6;
		res->ns_per_call_thread = (double)threads * res->seconds * 1e9 / (double)res->calls;
		if (hist) {
			res->p50_ns = bench_hist_percentile(hist, res->samples, 0.50);
			res->p99_ns = bench_hist_percentile(hist, res->samples, 0.99);
			res->p999_ns = bench_hist_percentile(hist, res->samples, 0.999);
		} else {
			res->p50_ns = res->p99_ns = res->p999_ns = NAN;
		}
		/*
		 * The checked byte is random when written: zero with
		 * probability 1/256.  Far more zeros than that (six standard
		 * deviations, plus slack for tiny counts) means the source did
		 * not write its buffer.
		 */
		double expect = (double)res->calls / 256.0;
		res->check_ok = (double)res->zero_checks <= expect + 6.0 * sqrt(expect) + 10.0;
	}
	free(hist);
	return rc;
}

int bench_run_cell(const struct bench_source *src, size_t len, unsigned threads, double seconds,
		   double warmup_s, const struct bench_hooks *hooks, struct bench_result *res)
{
	struct window win = {0, 0, 0, 0};
	struct cell *c;
	struct worker *ws;
	pthread_t *tids;
	unsigned started;
	int rc;

	memset(res, 0, sizeof(*res));
	if (len == 0 || threads == 0) {
		snprintf(res->error, sizeof(res->error), "size and threads must be at least 1");
		return -1;
	}
	c = aligned_alloc(64, (sizeof(*c) + 63) & ~(size_t)63);
	ws = aligned_alloc(64, (sizeof(*ws) * threads + 63) & ~(size_t)63);
	tids = calloc(threads, sizeof(*tids));
	if (!c || !ws || !tids) {
		snprintf(res->error, sizeof(res->error), "out of memory for %u threads", threads);
		res->machine_limit = 1;
		free(c);
		free(ws);
		free(tids);
		return -1;
	}
	memset(c, 0, sizeof(*c));
	memset(ws, 0, sizeof(*ws) * threads);
	c->src = src;
	c->hooks = hooks;
	c->len = len;
	c->timer_ns = bench_timer_overhead_ns();
	c->phase = PHASE_WARM;
	pthread_mutex_init(&c->mu, NULL);
	pthread_cond_init(&c->cv, NULL);
	started = start_workers(c, ws, tids, threads, res);
	rc = started == threads ? 0 : -1;

	/* the gate: every thread ready (context, buffer), then all go at once */
	pthread_mutex_lock(&c->mu);
	while (rc == 0 && c->ready < started)
		pthread_cond_wait(&c->cv, &c->mu);
	c->go = rc == 0 ? 1 : -1;
	pthread_cond_broadcast(&c->cv);
	pthread_mutex_unlock(&c->mu);
	if (rc == 0)
		run_window(c, warmup_s, seconds, &win);
	for (unsigned i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
	res->threads_started = (int)started;
	if (rc == 0)
		rc = collect(ws, threads, len, seconds, &win, res);
	pthread_mutex_destroy(&c->mu);
	pthread_cond_destroy(&c->cv);
	free(c);
	free(ws);
	free(tids);
	return rc;
}
