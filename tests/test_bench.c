/*
 * test_bench.c - the benchmark's measuring loop and its vDSO lookup
 * (bench/lib/, the measuring library, linked into this test).
 *
 * The loop must count every thread's measured calls exactly, catch a source
 * that does not write its buffer, count failing calls, refuse a cell whose
 * threads cannot set up, and give sane percentiles; the two ways of finding
 * the vDSO getrandom must agree; the report's words (bench/lib/bench_verdict.c)
 * say what they should.
 * SPDX-License-Identifier: MIT
 */
#include "harness.h"

#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bench.h"
#include "internal.h"

/* ---- fake sources ----------------------------------------------------------- */
static __thread uint64_t fills_this_thread;
static uint64_t fake_seed_counter;

struct fake_ctx {
	uint64_t rng;
};

static void *fake_init(size_t max_len)
{
	struct fake_ctx *c = malloc(sizeof(*c));
	(void)max_len;
	if (c)
		c->rng = __atomic_add_fetch(&fake_seed_counter, 0x9e3779b97f4a7c15ull,
					    __ATOMIC_RELAXED);
	return c;
}

static void fake_fini(void *ctx)
{
	free(ctx);
}

static int fake_fill(void *ctx, void *buf, size_t len)
{
	struct fake_ctx *c = ctx;
	fills_this_thread++;
	t_randbytes(&c->rng, buf, len);
	return 0;
}

static int lazy_fill(void *ctx, void *buf, size_t len)
{
	(void)ctx;
	(void)buf;
	(void)len;
	fills_this_thread++;
	return 0; /* claims success, writes nothing */
}

static int flaky_fill(void *ctx, void *buf, size_t len)
{
	struct fake_ctx *c = ctx;
	t_randbytes(&c->rng, buf, len);
	return (++fills_this_thread % 3) == 0 ? -1 : 0;
}

static void *failing_init(size_t max_len)
{
	(void)max_len;
	return NULL;
}

static const struct bench_source fake = {"fake", BENCH_KIND_SYSTEM, NULL, fake_init, fake_fill,
					  fake_fini, NULL, 0};
static const struct bench_source lazy = {"lazy", BENCH_KIND_SYSTEM, NULL, fake_init, lazy_fill,
					  fake_fini, NULL, 0};
static const struct bench_source flaky = {"flaky", BENCH_KIND_SYSTEM, NULL, fake_init,
					   flaky_fill, fake_fini, NULL, 0};
static const struct bench_source broken = {"broken", BENCH_KIND_SYSTEM, NULL, failing_init,
					    fake_fill, fake_fini, NULL, 0};

/* No per-thread state: thread_init and thread_fini NULL (as bench_sources.c's getrandom). */
static int stateless_fill(void *ctx, void *buf, size_t len)
{
	if (!ctx)
		return -1; /* the engine must hand a context that is not NULL all the same */
	memset(buf, 0x5c, len);
	fills_this_thread++;
	return 0;
}
static const struct bench_source stateless = {"stateless", BENCH_KIND_SYSTEM, NULL, NULL,
					       stateless_fill, NULL, NULL, 0};

/* hooks: each worker's own fill count as it enters and leaves the window */
#define NT 6
static uint64_t begin_fills[NT], end_fills[NT];
static int hook_calls;

static void h_begin(void *arg, unsigned t)
{
	(void)arg;
	begin_fills[t] = fills_this_thread;
	__atomic_add_fetch(&hook_calls, 1, __ATOMIC_RELAXED);
}

static void h_end(void *arg, unsigned t)
{
	(void)arg;
	end_fills[t] = fills_this_thread;
	__atomic_add_fetch(&hook_calls, 1, __ATOMIC_RELAXED);
}

/* ---- cases ---------------------------------------------------------------------- */

static void counts_every_thread_exactly(void)
{
	struct bench_hooks hooks = {h_begin, h_end, NULL};
	struct bench_result r;
	uint64_t sum = 0;

	memset(begin_fills, 0, sizeof(begin_fills));
	memset(end_fills, 0, sizeof(end_fills));
	hook_calls = 0;
	T_ASSERT(bench_run_cell(&fake, 48, NT, 0.1, 0.03, &hooks, &r) == 0);
	/*
	 * A worker enters and leaves the window once (two hook calls) unless
	 * the scheduler kept it off the CPU for the whole window (possible on
	 * 2 loaded cores, under TSan): then it made no measured call and the
	 * engine must count none for it either.  The sum must match exactly.
	 */
	T_ASSERT(hook_calls % 2 == 0 && hook_calls >= 2 && hook_calls <= 2 * NT);
	for (int t = 0; t < NT; t++) {
		T_ASSERT(end_fills[t] >= begin_fills[t]);
		sum += end_fills[t] - begin_fills[t];
	}
	T_ASSERT_EQ_U64(r.calls, sum);
	T_ASSERT_EQ_U64(r.bytes, sum * 48);
	T_ASSERT_EQ_U64(r.errors, 0);
	T_ASSERT(r.check_ok);
	T_ASSERT(r.threads_started == NT);
	T_ASSERT_MSG(r.seconds >= 0.1 && r.seconds < 5.0, "window %.3f s", r.seconds);
	T_ASSERT(fabs(r.calls_per_s - (double)r.calls / r.seconds) < 1e-6 * r.calls_per_s);
	T_ASSERT(fabs(r.ns_per_call_thread - NT * r.seconds * 1e9 / (double)r.calls) <
		 1e-6 * r.ns_per_call_thread);
	T_ASSERT(r.samples > 0 && r.sample_every >= 1);
	T_ASSERT(r.p50_ns <= r.p99_ns && r.p99_ns <= r.p999_ns);
}

static void flags_unwritten_buffer(void)
{
	struct bench_result r;
	T_ASSERT(bench_run_cell(&lazy, 16, 2, 0.03, 0.01, NULL, &r) == 0);
	T_ASSERT(r.calls > 1000);
	T_ASSERT_MSG(!r.check_ok, "a source that writes nothing passed the buffer check");
	T_ASSERT_EQ_U64(r.zero_checks, r.calls);
}

static void counts_failing_calls(void)
{
	struct bench_result r;
	T_ASSERT(bench_run_cell(&flaky, 16, 1, 0.03, 0.01, NULL, &r) == 0);
	T_ASSERT_MSG(r.errors >= r.calls / 3, "errors %llu of %llu calls",
		     (unsigned long long)r.errors, (unsigned long long)r.calls);
}

static void refuses_failed_setup(void)
{
	struct bench_result r;
	T_ASSERT(bench_run_cell(&broken, 16, 3, 0.02, 0.01, NULL, &r) == -1);
	T_ASSERT(strstr(r.error, "3 of 3 threads") != NULL);
	T_ASSERT_EQ_U64(r.calls, 0);
}

static void histogram_percentiles(void)
{
	uint64_t hist[BENCH_HIST_BUCKETS];
	memset(hist, 0, sizeof(hist));
	/* values 1..10000 ns once each: p50 5000, p99 9900, p99.9 9990 */
	for (uint64_t v = 1; v <= 10000; v++)
		hist[bench_hist_bucket(v)]++;
	double p50 = bench_hist_percentile(hist, 10000, 0.5);
	double p99 = bench_hist_percentile(hist, 10000, 0.99);
	double p999 = bench_hist_percentile(hist, 10000, 0.999);
	T_ASSERT_MSG(fabs(p50 - 5000) / 5000 < 0.07, "p50 %.0f", p50);
	T_ASSERT_MSG(fabs(p99 - 9900) / 9900 < 0.07, "p99 %.0f", p99);
	T_ASSERT_MSG(fabs(p999 - 9990) / 9990 < 0.07, "p99.9 %.0f", p999);
	/* small values are exact */
	memset(hist, 0, sizeof(hist));
	hist[bench_hist_bucket(7)] = 99;
	hist[bench_hist_bucket(20)] = 1;
	T_ASSERT(bench_hist_percentile(hist, 100, 0.5) == 7.0);
	T_ASSERT(bench_hist_percentile(hist, 100, 0.999) == 20.0);
	T_ASSERT(isnan(bench_hist_percentile(hist, 0, 0.5)));
	/* huge values land in the last bucket, not past it */
	T_ASSERT(bench_hist_bucket(UINT64_MAX) == BENCH_HIST_BUCKETS - 1);
}

static void sampling_period_budget(void)
{
	/* 3 ns calls with a 30 ns clock pair: >= 1000 calls per timing */
	T_ASSERT(bench_choose_period(30.0, 3) >= 1000);
	/* 100 us calls: every call */
	T_ASSERT(bench_choose_period(30.0, 100000) == 1);
	T_ASSERT(bench_choose_period(30.0, UINT64_MAX) == 64);
	double t = bench_timer_overhead_ns();
	T_ASSERT_MSG(t >= 0 && t < 10000, "clock pair %.0f ns", t);
}

/* The timed calls come at a mean gap of the sampling period (gaps drawn
 * from N/2..3N/2): about calls / N of them. */
static void sampling_mean_gap(void)
{
	struct bench_result r;
	double expect;

	T_ASSERT(bench_run_cell(&fake, 16, 1, 0.05, 0.01, NULL, &r) == 0);
	T_ASSERT(r.sample_every >= 1 && r.calls > 1000);
	expect = (double)r.calls / r.sample_every;
	T_ASSERT_MSG((double)r.samples > 0.7 * expect && (double)r.samples < 1.4 * expect + 2,
		     "%llu samples of %llu calls at period %u", (unsigned long long)r.samples,
		     (unsigned long long)r.calls, r.sample_every);
}

/* The vdso peer is the library's own vDSO function: inside the vDSO image
 * (dladdr against getauxval(AT_SYSINFO_EHDR)), callable, and absent exactly
 * where the library finds none. */
static void vdso_peer_is_the_librarys(void)
{
	void *lib = surand_vdso_getrandom_fn();
	uintptr_t image = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
	struct bench_vdso v;
	Dl_info info;
	char why[256];

	if (!lib) {
		T_ASSERT(bench_vdso_find(&v, why, sizeof(why)) == -1 && strstr(why, "6.11") != NULL);
		t_skip("this kernel has no vDSO getrandom (Linux 6.11+)", NULL);
		return;
	}
	T_ASSERT(image != 0 && dladdr(lib, &info) != 0);
	T_ASSERT_MSG((uintptr_t)info.dli_fbase == image, "the function lies in %p, the vDSO at %p",
		     info.dli_fbase, (void *)image);
	T_ASSERT(bench_vdso_find(&v, why, sizeof(why)) == 0);
	T_ASSERT(v.fn == (bench_vgetrandom_fn)lib);
	T_ASSERT(v.state_size > 0 && v.state_size <= 4096);
	void *st = mmap(NULL, 4096, (int)v.mmap_prot, (int)v.mmap_flags, -1, 0);
	T_ASSERT(st != MAP_FAILED);
	uint8_t out1[64], out2[64];
	memset(out1, 0, sizeof(out1));
	memset(out2, 0, sizeof(out2));
	T_ASSERT(v.fn(out1, sizeof(out1), 0, st, v.state_size) == (ssize_t)sizeof(out1));
	T_ASSERT(v.fn(out2, sizeof(out2), 0, st, v.state_size) == (ssize_t)sizeof(out2));
	munmap(st, 4096);
	T_ASSERT(memcmp(out1, out2, sizeof(out1)) != 0);
}

static void stateless_source_runs(void)
{
	struct bench_result r;

	T_ASSERT(bench_run_cell(&stateless, 32, 2, 0.05, 0.01, NULL, &r) == 0);
	T_ASSERT(r.calls > 0 && r.errors == 0 && r.check_ok && r.threads_started == 2);
	T_ASSERT_EQ_U64(r.bytes, r.calls * 32);
}

/* The table of bench_sources.c: every entry named, with its functions or why it is absent. */
static void source_table_complete(void)
{
	unsigned n = 0;

	for (const struct bench_source *s = bench_system_sources; s->name; s++, n++) {
		T_ASSERT_MSG(s->absent ? !s->setup && !s->fill && strstr(s->absent, "apt-get install")
				       : s->setup && s->fill,
			     "source %s", s->name);
		/* per-thread state comes in pairs: both functions or neither */
		T_ASSERT_MSG(!s->thread_init == !s->thread_fini, "source %s", s->name);
		T_ASSERT(bench_find_system_source(s->name) == s);
	}
	T_ASSERT(n == 12);
	/* the peers of the small-draw comparisons are in the table */
	T_ASSERT(bench_find_system_source("rust-rand") && bench_find_system_source("libbsd") &&
		 bench_find_system_source("surand-bytes") && bench_find_system_source("arc4random"));
	/* add-event has one call size; every other source any */
	for (const struct bench_source *s = bench_system_sources; s->name; s++)
		T_ASSERT_MSG(s->only_size == (strcmp(s->name, "add-event") == 0 ? 4u : 0u), "%s",
			     s->name);
	T_ASSERT(bench_find_system_source("nosuch") == NULL);
}

/* libbsd's own arc4random, never glibc's of the same name (glibc 2.36+ has one). */
static void libbsd_is_libbsd(void)
{
	char desc[400] = "", why[256] = "";
	uint8_t a[16], b[16];
	void *glibc_buf = dlsym(RTLD_DEFAULT, "arc4random_buf");
	const struct bench_source *bsd = bench_find_system_source("libbsd");

	T_ASSERT(bsd != NULL);
	if (bsd->absent || bsd->setup("", desc, sizeof(desc), why, sizeof(why)) != 0) {
		T_ASSERT_MSG(strstr(why, BENCH_LIBBSD_APT) != NULL, "why without the apt line: %s", why);
		t_skip(why, "libbsd0");
		return;
	}
	T_ASSERT(bench_libbsd_buf_fn() != NULL);
	T_ASSERT_MSG(glibc_buf == NULL || bench_libbsd_buf_fn() != glibc_buf,
		     "libbsd's arc4random_buf resolved to the program's (glibc's)");
	T_ASSERT(strncmp(desc, "libbsd ", 7) == 0 && strstr(desc, "dlopen") != NULL);
	memset(a, 0, sizeof(a));
	memset(b, 0, sizeof(b));
	T_ASSERT(bsd->fill(NULL, a, sizeof(a)) == 0 && bsd->fill(NULL, b, sizeof(b)) == 0);
	T_ASSERT(memcmp(a, b, sizeof(a)) != 0);
}

/* The Rust object is looked for next to the program: absent here (build/test/),
 * with the packages that build it named. */
static void rust_peer_absent_says_how(void)
{
	char desc[400] = "", why[256] = "", here[4200];
	const struct bench_source *rust = bench_find_system_source("rust-rand");

	T_ASSERT(bench_next_to_self(BENCH_RUST_PEER_SO, here, sizeof(here)) == 0);
	T_ASSERT(strstr(here, "/" BENCH_RUST_PEER_SO) != NULL);
	if (access(here, R_OK) == 0) {
		t_skip("a Rust peer object sits next to this test binary", NULL);
		return;
	}
	T_ASSERT(rust != NULL && !rust->absent);
	T_ASSERT(rust->setup("", desc, sizeof(desc), why, sizeof(why)) == -1);
	T_ASSERT_MSG(strstr(why, "apt-get install cargo librust-rand-dev") != NULL, "'%s'", why);
}

/* surand_add_event's source: the loop's buffer check holds, no call fails. */
static void add_event_source_runs(void)
{
	const struct bench_source *ev = bench_find_system_source("add-event");
	char desc[400] = "", why[256] = "";
	struct bench_result r;

	T_ASSERT(ev && ev->setup("", desc, sizeof(desc), why, sizeof(why)) == 0);
	T_ASSERT(bench_run_cell(ev, ev->only_size, 1, 0.03, 0.01, NULL, &r) == 0);
	T_ASSERT(r.calls > 100 && r.errors == 0);
	T_ASSERT_MSG(r.check_ok, "%llu zero checks in %llu calls", (unsigned long long)r.zero_checks,
		     (unsigned long long)r.calls);
}

/* surand-bytes fills every size it is given, 1..32 included. */
static void bytes_source_every_size(void)
{
	const struct bench_source *b = bench_find_system_source("surand-bytes");
	char desc[400] = "", why[256] = "";

	T_ASSERT(b && b->setup("", desc, sizeof(desc), why, sizeof(why)) == 0);
	T_ASSERT(strstr(desc, "surand_bytes()") != NULL);
	for (size_t len = 1; len <= 32; len++) {
		uint8_t buf[33];
		unsigned nz = 0;

		memset(buf, 0, sizeof(buf));
		for (int k = 0; k < 4; k++) {
			T_ASSERT(b->fill(NULL, buf, len) == 0);
			nz += buf[len - 1] != 0;
		}
		T_ASSERT_MSG(buf[len] == 0, "wrote past %zu bytes", len);
		T_ASSERT_MSG(nz >= 1, "the last of %zu bytes stayed 0 in 4 calls", len);
	}
}

/* ---- the report's words (bench/lib/bench_verdict.c) -------------------------------- */
static void claim_verdicts(void)
{
	const double one_above[1] = {1.01}, equal[1] = {1.0}, below[1] = {0.99}, none[1] = {NAN};
	const double both[2] = {5.3, 4.1}, one_below[2] = {5.3, 0.9};
	const double half[2] = {5.3, NAN}, below_half[2] = {NAN, 0.9};

	/* "faster" is a ratio above 1: equal is not faster */
	T_ASSERT(bench_claim_verdict(one_above, 1) == BENCH_HOLDS);
	T_ASSERT(bench_claim_verdict(equal, 1) == BENCH_DOES_NOT_HOLD);
	T_ASSERT(bench_claim_verdict(below, 1) == BENCH_DOES_NOT_HOLD);
	/* no figure is no verdict, either way */
	T_ASSERT(bench_claim_verdict(none, 1) == BENCH_NOT_MEASURED);
	T_ASSERT(bench_claim_verdict(none, 0) == BENCH_NOT_MEASURED);
	/* several ratios: every one above 1; one at or below 1 refutes, even beside a gap */
	T_ASSERT(bench_claim_verdict(both, 2) == BENCH_HOLDS);
	T_ASSERT(bench_claim_verdict(one_below, 2) == BENCH_DOES_NOT_HOLD);
	T_ASSERT(bench_claim_verdict(half, 2) == BENCH_NOT_MEASURED);
	T_ASSERT(bench_claim_verdict(below_half, 2) == BENCH_DOES_NOT_HOLD);
	T_ASSERT(strcmp(bench_claim_words(BENCH_HOLDS), "holds") == 0);
	T_ASSERT(strcmp(bench_claim_words(BENCH_DOES_NOT_HOLD), "does not hold here") == 0);
	T_ASSERT(strcmp(bench_claim_words(BENCH_NOT_MEASURED), "not measured") == 0);
	T_ASSERT(strcmp(bench_claim_words(BENCH_NOT_JUDGED), "not judged") == 0);
}

static void sweep_worst_step(void)
{
	const double flat[4] = {5, 5, 6, 7}; /* 1 B and 2 B alike, then slower */
	const double bump[5] = {5, 6, 4.8, 7, 7.1}; /* 6 B at index 1 slower than the next */
	const double hole[3] = {5, 0, 6};
	size_t at = 99;

	T_ASSERT(bench_worst_step(flat, 4, &at) == 1.0 && at == 0); /* equal sizes: 1x */
	T_ASSERT(fabs(bench_worst_step(bump, 5, &at) - 6 / 4.8) < 1e-12 && at == 1);
	T_ASSERT(bench_worst_step(hole, 3, &at) == 0);
	T_ASSERT(bench_worst_step(flat, 1, &at) == 0);
}

static void latency_below_resolution(void)
{
	char b[32];

	bench_fmt_latency(b, sizeof(b), 0, 1);
	T_ASSERT_MSG(strcmp(b, "< 1 ns") == 0, "'%s'", b);
	bench_fmt_latency(b, sizeof(b), 0.4, 0); /* a resolution under 1 ns counts as 1 */
	T_ASSERT_MSG(strcmp(b, "< 1 ns") == 0, "'%s'", b);
	bench_fmt_latency(b, sizeof(b), 30, 40); /* a coarse clock */
	T_ASSERT_MSG(strcmp(b, "< 40 ns") == 0, "'%s'", b);
	bench_fmt_latency(b, sizeof(b), 1056, 1);
	T_ASSERT_MSG(strcmp(b, "1056") == 0, "'%s'", b);
}

static void ratio_as_number(void)
{
	char b[48];

	bench_fmt_ratio(b, sizeof(b), 162.4);
	T_ASSERT_MSG(strcmp(b, "162x") == 0, "'%s'", b);
	bench_fmt_ratio(b, sizeof(b), 5.3);
	T_ASSERT_MSG(strcmp(b, "5.30x") == 0, "'%s'", b);
	bench_fmt_ratio(b, sizeof(b), 0.8);
	T_ASSERT_MSG(strcmp(b, "0.80x") == 0, "'%s'", b);
	bench_fmt_ratio(b, sizeof(b), NAN);
	T_ASSERT_MSG(strcmp(b, "-") == 0, "'%s'", b);
	bench_fmt_ratio(b, sizeof(b), 0);
	T_ASSERT_MSG(strcmp(b, "-") == 0, "'%s'", b);
}

static void scaling_needs_three_cpus(void)
{
	T_ASSERT(!bench_scaling_judgeable(1));
	T_ASSERT(!bench_scaling_judgeable(2));
	T_ASSERT(bench_scaling_judgeable(3));
	T_ASSERT(bench_scaling_judgeable(64));
}

static void busy_machine_warning(void)
{
	char b[400];

	/* idle: no warning, empty line */
	T_ASSERT(bench_busy_warning(b, sizeof(b), 0.5, 2, 0, 24, 0.8) == 0 && b[0] == '\0');
	/* load average at the CPU count is not above it; unknown load (< 0) is no warning */
	T_ASSERT(bench_busy_warning(b, sizeof(b), 2.0, 2, 0, 24, 0.8) == 0);
	T_ASSERT(bench_busy_warning(b, sizeof(b), -1, 2, 0, 24, 0.8) == 0);
	/* a tenth of the cells starved is not yet a warning, more is */
	T_ASSERT(bench_busy_warning(b, sizeof(b), 0.5, 2, 2, 20, 0.8) == 0);
	T_ASSERT(bench_busy_warning(b, sizeof(b), 0.5, 2, 3, 20, 0.8) == 1);
	T_ASSERT_MSG(strstr(b, "3 of 20 cells got under 80%") != NULL, "'%s'", b);
	T_ASSERT(bench_busy_warning(b, sizeof(b), 3.25, 2, 0, 24, 0.8) == 1);
	T_ASSERT_MSG(strncmp(b, "warning: this machine was busy", 30) == 0 &&
			     strstr(b, "load average 3.25 on 2 CPUs") != NULL, "'%s'", b);
}

int main(int argc, char **argv)
{
	t_init(argc, argv);
	T_RUN(counts_every_thread_exactly);
	T_RUN(flags_unwritten_buffer);
	T_RUN(counts_failing_calls);
	T_RUN(refuses_failed_setup);
	T_RUN(histogram_percentiles);
	T_RUN(sampling_period_budget);
	T_RUN(sampling_mean_gap);
	T_RUN(vdso_peer_is_the_librarys);
	T_RUN(stateless_source_runs);
	T_RUN(source_table_complete);
	T_RUN(libbsd_is_libbsd);
	T_RUN(rust_peer_absent_says_how);
	T_RUN(add_event_source_runs);
	T_RUN(bytes_source_every_size);
	T_RUN(claim_verdicts);
	T_RUN(sweep_worst_step);
	T_RUN(latency_below_resolution);
	T_RUN(ratio_as_number);
	T_RUN(scaling_needs_three_cpus);
	T_RUN(busy_machine_warning);
	return t_done();
}
