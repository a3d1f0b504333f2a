/*
 * bench.h - the pieces of `surand bench` (tools/surand/bench/cmd_bench.c) and of the
 * bench/ programs: one measuring loop for every source, the sources, and
 * the kernel's vDSO getrandom.
 * SPDX-License-Identifier: MIT
 */
#ifndef SURAND_TOOLS_BENCH_H
#define SURAND_TOOLS_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Limits of the command line (bad input above them: exit 64). */
#define BENCH_MAX_THREADS 4096
#define BENCH_MAX_SIZE_BYTES (16u << 20)
#define BENCH_MAX_SECONDS 600.0

/* ---- sources (bench/lib/bench_sources.c) ---------------------------------------- */
enum bench_kind {
	BENCH_KIND_BACKEND,  /* a surand backend, through the public API */
	BENCH_KIND_BARE,     /* the bare ChaCha20 body */
	BENCH_KIND_SYSTEM,   /* the kernel and libc */
	BENCH_KIND_LIBRARY,  /* OpenSSL, libsodium, libbsd, Rust's rand */
};

struct bench_source {
	const char *name;
	enum bench_kind kind;
	/*
	 * In the measuring process, once, before any thread starts: 0 when the
	 * source can be measured here, else -1 with a reason in why.  desc
	 * receives what the source is (one line).
	 */
	int (*setup)(const char *arg, char *desc, size_t desc_len, char *why, size_t why_len);
	/* Per worker thread, in that thread: a context (NULL is an error).
	 * NULL (with thread_fini NULL): the source keeps no per-thread state. */
	void *(*thread_init)(size_t max_len);
	/* One call: fills buf[0..len) entirely, 0 or -1. */
	int (*fill)(void *ctx, void *buf, size_t len);
	void (*thread_fini)(void *ctx);
	/* Non-NULL: this build cannot measure the source (the functions are
	 * NULL), and why (with the apt-get line). */
	const char *absent;
	/* Non-zero: the only call size the source has (surand_add_event takes
	 * one 64-bit value; the plan measures it at 4-byte calls only). */
	size_t only_size;
};

/* The non-backend sources, in display order; ended by an entry with name NULL. */
extern const struct bench_source bench_system_sources[];
/* The source that measures surand backend arg (set with surand_set_backend):
 * surand_u32() at 4-byte calls, surand_u64() at 8, surand_bytes() otherwise. */
extern const struct bench_source bench_backend_source;
/* The Rust peer's shared object, looked for next to the running program
 * (mk/bench.mk builds it there from bench/rust-rand/). */
#define BENCH_RUST_PEER_SO "libsurand-rust-rand-peer.so"
#define BENCH_RUST_PEER_APT "apt-get install cargo librust-rand-dev, then make"
#define BENCH_LIBBSD_SO "libbsd.so.0"
#define BENCH_LIBBSD_APT "apt-get install libbsd0"

const struct bench_source *bench_find_system_source(const char *name);
/* libbsd's arc4random_buf as the libbsd source's setup found it (NULL
 * before): never the program's own name (glibc 2.36+ has one). */
void *bench_libbsd_buf_fn(void);
/* path = the running program's folder + "/" + name: 0, or -1 (too long, no
 * /proc/self/exe). */
int bench_next_to_self(const char *name, char *path, size_t cap);

/* ---- vDSO getrandom (bench/lib/bench_vdso.c) ------------------------------------- */
typedef ssize_t (*bench_vgetrandom_fn)(void *buf, size_t len, unsigned int flags,
				       void *opaque_state, size_t opaque_len);
struct bench_vdso {
	bench_vgetrandom_fn fn;
	uint32_t state_size; /* size_of_opaque_state */
	uint32_t mmap_prot;
	uint32_t mmap_flags;
};
/* The library's vDSO getrandom and its state parameters: 0 and *v filled,
 * or -1 with a reason in why. */
int bench_vdso_find(struct bench_vdso *v, char *why, size_t why_len);

/* ---- the measuring loop (bench/lib/bench_engine.c) -------------------------------- */
/* Latency histogram: exact below 32 ns, then 16 steps per power of two (<= 6%). */
#define BENCH_HIST_LINEAR 32u
#define BENCH_HIST_SUB 16u
#define BENCH_HIST_BUCKETS (BENCH_HIST_LINEAR + 40u * BENCH_HIST_SUB)

struct bench_hooks {
	/* Called in each worker when it enters / leaves the measured phase. */
	void (*measure_begin)(void *arg, unsigned thread);
	void (*measure_end)(void *arg, unsigned thread);
	void *arg;
};

struct bench_result {
	uint64_t calls;        /* measured calls, all threads */
	uint64_t bytes;
	double seconds;        /* the measured window */
	double calls_per_s;
	double mb_per_s;       /* 10^6 bytes per second */
	double ns_per_call_thread; /* threads * seconds / calls */
	double p50_ns, p99_ns, p999_ns; /* from sampled call timings */
	uint64_t samples;      /* timings that went into the percentiles */
	unsigned sample_every; /* smallest sampling period of the threads */
	uint64_t zero_checks;  /* checked byte still 0 after the call */
	uint64_t errors;       /* calls that returned failure */
	int check_ok;          /* 1: the checked bytes look written */
	int threads_started;
	/* CPU time the process got in the window / (window x min(threads, CPUs)):
	 * well under 1 means other work on the machine took CPU from the cell */
	double cpu_share;
	char error[160];       /* non-empty: the cell could not run */
	int machine_limit;     /* with error: the machine's fault (threads, memory,
				* no call in a short window), not the source's */
};

/* The cost of one pair of clock readings, in ns (median of many). */
double bench_timer_overhead_ns(void);
uint64_t bench_now_ns(void);

/*
 * Runs len-byte calls of src on threads threads: all start at a barrier,
 * warm up for warmup_s (not counted), then are measured for seconds.
 * Returns 0, or -1 with res->error set (e.g. threads could not start).
 */
int bench_run_cell(const struct bench_source *src, size_t len, unsigned threads, double seconds,
		   double warmup_s, const struct bench_hooks *hooks, struct bench_result *res);

/* Percentile p (0..1) of a histogram, in ns. */
double bench_hist_percentile(const uint64_t *hist, uint64_t total, double p);
/* The histogram bucket of a v-ns call. */
unsigned bench_hist_bucket(uint64_t v);
/* How often a thread times a call (every Nth): the timer's cost timer_ns
 * kept small beside the fastest call seen in the warm-up, min_sample ns
 * (UINT64_MAX: none seen). */
unsigned bench_choose_period(double timer_ns, uint64_t min_sample);

/*
 * bench/lib/bench_verdict.c: the words of the report, pure functions (no I/O)
 * so that tests/test_bench.c checks them.
 */
/* A latency in ns for the table: "< R ns" below the clock's resolution R
 * (res_ns, at least 1), else the whole number of ns. */
void bench_fmt_latency(char *buf, size_t n, double ns, double res_ns);
/* A ratio a/b as a number: "5.30x" under 10, "162x" from 10, "-" when it is
 * not a positive number. */
void bench_fmt_ratio(char *buf, size_t n, double ratio);
/* 1 when scaling over threads can be judged on ncpu CPUs (more than 2). */
int bench_scaling_judgeable(unsigned ncpu);
/* A warning for the top of the report when the machine was busy: the load
 * average before the run (load1, < 0: unknown) above the CPU count, or more
 * than a tenth of the measured cells under the CPU share they asked for.
 * Returns 1 with the line in buf, else 0 (buf empty). */
int bench_busy_warning(char *buf, size_t n, double load1, unsigned ncpu, unsigned starved,
		       unsigned measured, double share);

/*
 * A claim of the README checked on the ratios of this run that bear on it
 * (speed ratios, surand over the peer, NaN where a cell was not measured):
 * BENCH_HOLDS when every ratio is above 1, BENCH_DOES_NOT_HOLD when one is
 * at or below 1, else BENCH_NOT_MEASURED (a ratio missing, or none given).
 * BENCH_NOT_JUDGED is the caller's: the run cannot show the claim at all.
 */
enum { BENCH_NOT_JUDGED = -2, BENCH_NOT_MEASURED = -1, BENCH_DOES_NOT_HOLD = 0, BENCH_HOLDS = 1 };
int bench_claim_verdict(const double *ratios, size_t n);
/* The verdict in words: "holds", "does not hold here", "not measured", "not judged". */
const char *bench_claim_words(int verdict);
/* The worst step of a size sweep: the largest ns[i] / ns[i + 1] over
 * i < n - 1, its i in *at; 0 when n < 2 or a figure is not positive. */
double bench_worst_step(const double *ns, size_t n, size_t *at);

#endif
