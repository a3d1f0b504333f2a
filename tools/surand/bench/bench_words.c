/*
 * bench_words.c - `surand bench words`, and the same section at the end of
 * `surand bench` and `surand bench --quick`: integer draws in tight loops on
 * one thread, where a function pointer per call (the main table's engine)
 * would cost more than the draw itself.
 *
 *   surand bench words [--quick] [--ms N] [--reps N]
 *
 * Rows, each named for what it measures:
 *   surand_u32() inline              this file is built with SURAND_INLINE:
 *                                    the program's own inline draw (surand.h)
 *   surand_u32() call, static link   the library's function, a direct call
 *   surand_u32() call, shared lib    the same through libsurand.so.1 loaded
 *                                    next to this program (an indirect call,
 *                                    as a program's PLT makes)
 *   rust thread_rng next_u32, native loop   the whole loop in Rust, the draw
 *                                    inlined (bench/rust-rand, loop functions)
 *   rust thread_rng next_u32, via FFI per call   one call per draw
 *   and the same for 64 bits; then the bulk calls (surand_u32s, surand_u64s,
 *   surand_uniform_n) against the bare ChaCha20 body on 64 KiB outputs.
 * Every figure is the best of --reps runs (default 5) of about --ms ms
 * (default 40; --quick 15); the runs of all rows are interleaved, so a slow
 * moment of the machine hits them alike.  Each loop XORs its draws into a
 * sink, so none is dead code.  The section runs in a child process of its
 * own (no other source's state), and ends with plain ratios of the inline
 * path against Rust's loop and FFI call, and of the bulk calls against the
 * bare body, from the same runs.  Exit status 0, 1 when the child
 * failed, 64 on a bad option.
 * SPDX-License-Identifier: MIT
 */
#define SURAND_INLINE
#include <surand.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "cli.h"
#include "internal.h"

#define W_BULK_BYTES (64u * 1024u)
#define W_MAX_ROWS 16

static volatile uint64_t w_sink;

static uint64_t w_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- the peers loaded at run time ------------------------------------------------- */

static uint32_t (*so_u32)(void);
static uint64_t (*so_u64)(void);
static void *(*rs_new)(void);
static uint32_t (*rs_u32)(void *);
static uint64_t (*rs_u64)(void *);
static uint64_t (*rs_loop_u32)(void *, uint64_t, uint64_t *);
static uint64_t (*rs_loop_u64)(void *, uint64_t, uint64_t *);
static void *rs_h;
static void *so_lib, *rs_lib; /* kept open: the functions above live in them */
static char so_why[160], rs_why[200];

static void load_peers(void)
{
	char path[4200];
	void *h;

	/* The shipped shared library, beside this program (make builds it there). */
	if (bench_next_to_self("libsurand.so.1", path, sizeof(path)) == 0 &&
	    (h = so_lib = dlopen(path, RTLD_NOW | RTLD_LOCAL)) != NULL) {
		so_u32 = (uint32_t (*)(void))dlsym(h, "surand_u32");
		so_u64 = (uint64_t (*)(void))dlsym(h, "surand_u64");
	}
	if (!so_u32 || !so_u64)
		snprintf(so_why, sizeof(so_why), "libsurand.so.1 not found next to this program");
	if (bench_next_to_self(BENCH_RUST_PEER_SO, path, sizeof(path)) == 0 &&
	    (h = rs_lib = dlopen(path, RTLD_NOW | RTLD_LOCAL)) != NULL) {
		rs_new = (void *(*)(void))dlsym(h, "surand_peer_rust_new");
		rs_u32 = (uint32_t (*)(void *))dlsym(h, "surand_peer_rust_u32");
		rs_u64 = (uint64_t (*)(void *))dlsym(h, "surand_peer_rust_u64");
		rs_loop_u32 = (uint64_t (*)(void *, uint64_t, uint64_t *))dlsym(
			h, "surand_peer_rust_loop_u32");
		rs_loop_u64 = (uint64_t (*)(void *, uint64_t, uint64_t *))dlsym(
			h, "surand_peer_rust_loop_u64");
		if (rs_new && rs_u32 && rs_u64 && rs_loop_u32 && rs_loop_u64)
			rs_h = rs_new();
	}
	if (!rs_h)
		snprintf(rs_why, sizeof(rs_why), "%s with its loop functions not built next to this "
			 "program (%s)", BENCH_RUST_PEER_SO, BENCH_RUST_PEER_APT);
}

/* ---- the loops: n draws, the elapsed ns ------------------------------------------- */

static __attribute__((noinline)) uint64_t l_inline32(uint64_t n)
{
	uint64_t t0 = w_now_ns(), acc = 0;

	for (uint64_t i = 0; i < n; i++)
		acc ^= surand_u32(); /* SURAND_INLINE: surand_u32_inline() */
	w_sink ^= acc;
	return w_now_ns() - t0;
}

static __attribute__((noinline)) uint64_t l_inline64(uint64_t n)
{
	uint64_t t0 = w_now_ns(), acc = 0;

	for (uint64_t i = 0; i < n; i++)
		acc ^= surand_u64();
	w_sink ^= acc;
	return w_now_ns() - t0;
}

static __attribute__((noinline)) uint64_t l_call32(uint64_t n)
{
	uint64_t t0 = w_now_ns(), acc = 0;

	for (uint64_t i = 0; i < n; i++)
		acc ^= (surand_u32)(); /* the library's function */
	w_sink ^= acc;
	return w_now_ns() - t0;
}

static __attribute__((noinline)) uint64_t l_call64(uint64_t n)
{
	uint64_t t0 = w_now_ns(), acc = 0;

	for (uint64_t i = 0; i < n; i++)
		acc ^= (surand_u64)();
	w_sink ^= acc;
	return w_now_ns() - t0;
}

static __attribute__((noinline)) uint64_t l_so32(uint64_t n)
{
	uint64_t t0 = w_now_ns(), acc = 0;

	for (uint64_t i = 0; i < n; i++)
		acc ^= so_u32();
	w_sink ^= acc;
	return w_now_ns() - t0;
}

static __attribute__((noinline)) uint64_t l_so64(uint64_t n)
{
	uint64_t t0 = w_now_ns(), acc = 0;

	for (uint64_t i = 0; i < n; i++)
		acc ^= so_u64();
	w_sink ^= acc;
	return w_now_ns() - t0;
}

static uint64_t l_rust_native32(uint64_t n)
{
	uint64_t s = 0, ns = rs_loop_u32(rs_h, n, &s);

	w_sink ^= s;
	return ns;
}

static uint64_t l_rust_native64(uint64_t n)
{
	uint64_t s = 0, ns = rs_loop_u64(rs_h, n, &s);

	w_sink ^= s;
	return ns;
}

static __attribute__((noinline)) uint64_t l_rust_ffi32(uint64_t n)
{
	uint64_t t0 = w_now_ns(), acc = 0;

	for (uint64_t i = 0; i < n; i++)
		acc ^= rs_u32(rs_h);
	w_sink ^= acc;
	return w_now_ns() - t0;
}

static __attribute__((noinline)) uint64_t l_rust_ffi64(uint64_t n)
{
	uint64_t t0 = w_now_ns(), acc = 0;

	for (uint64_t i = 0; i < n; i++)
		acc ^= rs_u64(rs_h);
	w_sink ^= acc;
	return w_now_ns() - t0;
}

/* Bulk rows: n is a count of 64 KiB outputs; their words are 4 or 8 bytes. */
static uint64_t *w_buf;

static uint64_t l_u32s(uint64_t n)
{
	uint64_t t0 = w_now_ns();

	for (uint64_t i = 0; i < n; i++) {
		surand_u32s((uint32_t *)w_buf, W_BULK_BYTES / 4);
		w_sink ^= w_buf[i % (W_BULK_BYTES / 8)];
	}
	return w_now_ns() - t0;
}

static uint64_t l_u64s(uint64_t n)
{
	uint64_t t0 = w_now_ns();

	for (uint64_t i = 0; i < n; i++) {
		surand_u64s(w_buf, W_BULK_BYTES / 8);
		w_sink ^= w_buf[i % (W_BULK_BYTES / 8)];
	}
	return w_now_ns() - t0;
}

static uint64_t l_uniform_n(uint64_t n)
{
	uint64_t t0 = w_now_ns();

	for (uint64_t i = 0; i < n; i++) {
		surand_uniform_n(w_buf, W_BULK_BYTES / 8, 1000);
		w_sink ^= w_buf[i % (W_BULK_BYTES / 8)];
	}
	return w_now_ns() - t0;
}

static uint64_t l_bare(uint64_t n)
{
	/* A fixed, public benchmark key: the bare body's speed, nothing secret. */
	static const uint32_t key[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	static uint64_t counter;
	uint64_t t0 = w_now_ns();

	for (uint64_t i = 0; i < n; i++) {
		surand_chacha20_blocks(key, counter, 0, (uint8_t *)w_buf, W_BULK_BYTES / 64);
		counter += W_BULK_BYTES / 64;
		w_sink ^= w_buf[i % (W_BULK_BYTES / 8)];
	}
	return w_now_ns() - t0;
}

/* ---- the rows ----------------------------------------------------------------------- */

struct wrow {
	const char *name;
	uint64_t (*loop)(uint64_t n);
	unsigned bytes; /* per unit of n: 4, 8, or W_BULK_BYTES */
	const char *absent; /* non-NULL: not measurable here, why */
	uint64_t n;     /* units per run, calibrated */
	double best_ns; /* per unit, best run */
};

static struct wrow rows[W_MAX_ROWS];
static unsigned nrows;

static void add_row(const char *name, uint64_t (*loop)(uint64_t), unsigned bytes, const char *absent)
{
	rows[nrows++] = (struct wrow){name, loop, bytes, absent, 0, 0};
}

static const struct wrow *row_named(const char *name)
{
	for (unsigned i = 0; i < nrows; i++)
		if (!strcmp(rows[i].name, name) && !rows[i].absent && rows[i].best_ns > 0)
			return &rows[i];
	return NULL;
}

#define R_IN32 "surand_u32() inline (SURAND_INLINE)"
#define R_CALL32 "surand_u32() call, static link"
#define R_SO32 "surand_u32() call, shared library"
#define R_RN32 "rust thread_rng next_u32, native loop"
#define R_RF32 "rust thread_rng next_u32, via FFI per call"
#define R_IN64 "surand_u64() inline (SURAND_INLINE)"
#define R_CALL64 "surand_u64() call, static link"
#define R_SO64 "surand_u64() call, shared library"
#define R_RN64 "rust thread_rng next_u64, native loop"
#define R_RF64 "rust thread_rng next_u64, via FFI per call"
#define R_U32S "surand_u32s(), 64 KiB per call"
#define R_U64S "surand_u64s(), 64 KiB per call"
#define R_UNIN "surand_uniform_n(bound 1000), 64 KiB per call"
#define R_BARE "bare ChaCha20 body, 64 KiB per call"

static void plan_rows(void)
{
	const char *rs = rs_h ? NULL : rs_why, *so = so_u32 ? NULL : so_why;

	nrows = 0;
	add_row(R_IN32, l_inline32, 4, NULL);
	add_row(R_CALL32, l_call32, 4, NULL);
	add_row(R_SO32, l_so32, 4, so);
	add_row(R_RN32, l_rust_native32, 4, rs);
	add_row(R_RF32, l_rust_ffi32, 4, rs);
	add_row(R_IN64, l_inline64, 8, NULL);
	add_row(R_CALL64, l_call64, 8, NULL);
	add_row(R_SO64, l_so64, 8, so);
	add_row(R_RN64, l_rust_native64, 8, rs);
	add_row(R_RF64, l_rust_ffi64, 8, rs);
	add_row(R_U32S, l_u32s, W_BULK_BYTES, NULL);
	add_row(R_U64S, l_u64s, W_BULK_BYTES, NULL);
	add_row(R_UNIN, l_uniform_n, W_BULK_BYTES, NULL);
	add_row(R_BARE, l_bare, W_BULK_BYTES, NULL);
}

/* n for about ms milliseconds per run (doubling from a few units). */
static void calibrate(struct wrow *r, double ms)
{
	uint64_t n = r->bytes >= W_BULK_BYTES ? 1 : 1024, ns;

	for (;;) {
		ns = r->loop(n);
		if (ns >= ms * 1e6 / 4 || n >= (1ull << 40))
			break;
		n *= 2;
	}
	r->n = (uint64_t)((double)n * (ms * 1e6) / (double)(ns ? ns : 1));
	if (r->n < 1)
		r->n = 1;
}

/* Why row name has no figure: the reason it is absent, or not measured. */
static const char *row_why(const char *name)
{
	for (unsigned i = 0; i < nrows; i++)
		if (!strcmp(rows[i].name, name) && rows[i].absent)
			return rows[i].absent;
	return "not measured";
}

/* Row a against row b of this run: a time ratio for the draws, a speed ratio for the bulk rows. */
static void ratio_line(const char *what, const char *a, const char *b, int time_ratio)
{
	const struct wrow *x = row_named(a), *y = row_named(b);
	char ratio[32];

	if (!x || !y) {
		printf("  %s: not measured (%s: %s)\n", what, !x ? a : b, row_why(!x ? a : b));
		return;
	}
	bench_fmt_ratio(ratio, sizeof(ratio),
			time_ratio ? x->best_ns / y->best_ns : y->best_ns / x->best_ns);
	if (time_ratio)
		printf("  %s: %s the time per draw  (%.2f ns, %.2f ns)\n", what, ratio, x->best_ns,
		       y->best_ns);
	else
		printf("  %s: %s the bytes/s  (%.0f MB/s, %.0f MB/s)\n", what, ratio,
		       W_BULK_BYTES / x->best_ns * 1e3, W_BULK_BYTES / y->best_ns * 1e3);
}

static void report(double ms, unsigned reps)
{
	int w = 0;

	for (unsigned i = 0; i < nrows; i++)
		if ((int)strlen(rows[i].name) > w)
			w = (int)strlen(rows[i].name);
	printf("\nword draws in tight loops, 1 thread (best of %u interleaved runs of about %.0f ms; "
	       "ChaCha20 body %s; each loop XORs its draws into a sink):\n",
	       reps, ms, surand_chacha20_impl_name());
	printf("  %-*s %10s %10s %10s %12s\n", w, "loop", "ns/draw", "Mdraws/s", "MB/s",
	       "vs rust native");
	for (unsigned i = 0; i < nrows; i++) {
		const struct wrow *r = &rows[i];
		const struct wrow *rn = row_named(r->bytes == 4 ? R_RN32 : R_RN64);
		double per_draw, mbs;
		char vs[24] = "-";

		if (r->absent) {
			printf("  %-*s absent: %s\n", w, r->name, r->absent);
			continue;
		}
		if (r->bytes >= W_BULK_BYTES) {
			mbs = W_BULK_BYTES / r->best_ns * 1e3;
			printf("  %-*s %10s %10s %10.0f %12s\n", w, r->name, "-", "-", mbs, "-");
			continue;
		}
		per_draw = r->best_ns;
		mbs = r->bytes / per_draw * 1e3;
		if (rn)
			snprintf(vs, sizeof(vs), "%.2fx", per_draw / rn->best_ns);
		printf("  %-*s %10.2f %10.1f %10.0f %12s\n", w, r->name, per_draw, 1e3 / per_draw, mbs, vs);
	}
	printf("comparisons of the inline path and the bulk calls with the peers of this run "
	       "(ratios of the loops above):\n");
	ratio_line("surand_u32() inline vs Rust's next_u32() in a native Rust loop", R_IN32, R_RN32, 1);
	ratio_line("surand_u32() inline vs Rust's next_u32() via FFI per call", R_IN32, R_RF32, 1);
	ratio_line("surand_u64() inline vs Rust's next_u64() in a native Rust loop", R_IN64, R_RN64, 1);
	ratio_line("surand_u64() inline vs Rust's next_u64() via FFI per call", R_IN64, R_RF64, 1);
	ratio_line("surand_u32s() vs the bare ChaCha20 body, 64 KiB per call", R_U32S, R_BARE, 0);
	ratio_line("surand_u64s() vs the bare ChaCha20 body, 64 KiB per call", R_U64S, R_BARE, 0);
}

static int words_child(double ms, unsigned reps)
{
	w_buf = aligned_alloc(64, W_BULK_BYTES);
	if (!w_buf)
		return 1;
	load_peers();
	plan_rows();
	/* The first draws set the thread up; then every loop is calibrated. */
	(void)surand_u64();
	for (unsigned i = 0; i < nrows; i++)
		if (!rows[i].absent)
			calibrate(&rows[i], ms);
	for (unsigned rep = 0; rep < reps; rep++)
		for (unsigned i = 0; i < nrows; i++) {
			struct wrow *r = &rows[i];
			double per;

			if (r->absent)
				continue;
			per = (double)r->loop(r->n) / (double)r->n;
			if (r->best_ns == 0 || per < r->best_ns)
				r->best_ns = per;
		}
	report(ms, reps);
	fflush(stdout);
	free(w_buf);
	return 0;
}

/* The section in a child process: the caller's process keeps no surand state. */
static int run_child(double ms, unsigned reps)
{
	pid_t pid;
	int status;

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		perror("surand: bench words: fork");
		return SURAND_EX_FAIL;
	}
	if (pid == 0)
		_exit(words_child(ms, reps));
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "surand: bench words: the measuring process failed\n");
		return SURAND_EX_FAIL;
	}
	return SURAND_EX_OK;
}

int surand_bench_words_section(int quick)
{
	return run_child(quick ? 15 : 40, quick ? 3 : 5);
}

int surand_bench_words(int argc, char **argv)
{
	double ms = 40;
	unsigned reps = 5;

	for (int i = 1; i < argc; i++) {
		char *end;

		if (!strcmp(argv[i], "--quick")) {
			ms = 15;
			reps = 3;
		} else if (!strcmp(argv[i], "--ms") && i + 1 < argc) {
			ms = strtod(argv[++i], &end);
			if (*end || !(ms >= 1 && ms <= 10000)) {
				fprintf(stderr, "surand: bench words: --ms must be 1..10000\n");
				return SURAND_EX_USAGE;
			}
		} else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
			unsigned long r = strtoul(argv[++i], &end, 10);

			if (*end || r < 1 || r > 50) {
				fprintf(stderr, "surand: bench words: --reps must be 1..50\n");
				return SURAND_EX_USAGE;
			}
			reps = (unsigned)r;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf("usage: surand bench words [--quick] [--ms N] [--reps N]\n");
			return SURAND_EX_OK;
		} else {
			fprintf(stderr, "surand: bench words: unknown option '%s' "
				"(usage: surand bench words [--quick] [--ms N] [--reps N])\n", argv[i]);
			return SURAND_EX_USAGE;
		}
	}
	return run_child(ms, reps);
}
