/*
 * overhead.c - where the nanoseconds of a small draw go: the per-call costs
 * of surand_u32() / surand_u64() / surand_bytes(16) taken apart.
 *
 *   build/bench/overhead [--calls N] [--rounds R]
 *
 * Each row is a loop of N calls of one thing, timed with CLOCK_MONOTONIC;
 * the rows are run round-robin R times and each keeps its best round (noise
 * on a shared machine only ever slows a round down).  The pieces:
 *
 *   loop alone            the loop's own increment and sink, no call
 *   empty, pointer        an out-of-line empty function in this program,
 *                         called through a function pointer (no PLT)
 *   empty, PLT            an empty function in a shared object
 *                         (bench/overhead/callee.c), called through the PLT
 *                         as a program calls libsurand
 *   TLS touch             + one read and write of an initial-exec __thread slot
 *   generation check      + a load of a shared read-mostly word and a compare
 *                         with the slot's copy (the fork / VM-clone check)
 *   16-byte copy + zero   + 16 bytes copied out of the slot and zeroed there
 *   fixed costs, 16 B     all of them with a busy mark set and cleared: a
 *                         16-byte draw without its share of the cipher
 *   surand_u32() ...      the real calls, through the PLT of libsurand.so
 *                         (this program is linked against the shared library)
 *
 * The column "above empty PLT" subtracts the empty PLT call's figure: what
 * each piece adds to a call.  The library's own share of the cipher is the
 * rest: surand's figure minus the fixed costs.
 * Exit status 0; 64 on a bad option.
 * SPDX-License-Identifier: MIT
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "surand.h"

/* bench/overhead/callee.c, a shared object of its own */
uint64_t ovh_empty(void);
uint64_t ovh_tls(void);
uint64_t ovh_gen(void);
uint64_t ovh_copy16(void *dst);
uint64_t ovh_fixed16(void *dst);

static volatile uint64_t sink;

static __attribute__((noinline)) uint64_t local_empty(void)
{
	__asm__ volatile("");
	return 0;
}

/* volatile: the compiler cannot see which function the pointer holds */
static uint64_t (*volatile empty_ptr)(void) = local_empty;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* One loop per row: the call written out, so that no row pays another's indirection. */
#define LOOP(name, expr)                                                                   \
	static double name(uint64_t n)                                                     \
	{                                                                                  \
		uint8_t buf[16] __attribute__((aligned(16)));                              \
		uint64_t acc = 0, t0 = now_ns();                                           \
		(void)buf;                                                                 \
		for (uint64_t i = 0; i < n; i++) {                                         \
			acc += (expr);                                                     \
			__asm__ volatile("" : "+r"(acc) : : "memory");                     \
		}                                                                          \
		sink ^= acc;                                                               \
		return (double)(now_ns() - t0) / (double)n;                                \
	}

LOOP(t_loop, i)
LOOP(t_ptr, empty_ptr())
LOOP(t_plt, ovh_empty())
LOOP(t_tls, ovh_tls())
LOOP(t_gen, ovh_gen())
LOOP(t_copy, ovh_copy16(buf))
LOOP(t_fixed, ovh_fixed16(buf))
LOOP(t_u32, surand_u32())
LOOP(t_u64, surand_u64())
LOOP(t_b4, (surand_bytes(buf, 4), buf[0]))
LOOP(t_b16, (surand_bytes(buf, 16), buf[0]))

struct row {
	const char *what;
	double (*run)(uint64_t);
	int above; /* print the figure above the empty PLT call */
	double best;
};

static struct row rows[] = {
	{"loop alone (no call)", t_loop, 0, 0},
	{"empty function, through a function pointer", t_ptr, 0, 0},
	{"empty function in a shared object, through the PLT", t_plt, 0, 0},
	{"  + TLS touch (initial-exec __thread, read + write)", t_tls, 1, 0},
	{"  + generation check (shared word loaded, compared)", t_gen, 1, 0},
	{"  + 16-byte copy out of the slot, zeroed there", t_copy, 1, 0},
	{"  fixed costs of a 16-byte draw (all + busy mark)", t_fixed, 1, 0},
	{"surand_u32(), libsurand.so through the PLT", t_u32, 1, 0},
	{"surand_u64(), libsurand.so through the PLT", t_u64, 1, 0},
	{"surand_bytes(buf, 4), libsurand.so through the PLT", t_b4, 1, 0},
	{"surand_bytes(buf, 16), libsurand.so through the PLT", t_b16, 1, 0},
};
#define NROWS (sizeof(rows) / sizeof(rows[0]))
#define PLT_ROW 2

static int number(const char *s, unsigned long long lo, unsigned long long hi,
		  unsigned long long *out)
{
	char *end;

	errno = 0;
	*out = strtoull(s, &end, 10);
	return s[0] >= '0' && s[0] <= '9' && !*end && !errno && *out >= lo && *out <= hi ? 0 : -1;
}

int main(int argc, char **argv)
{
	unsigned long long calls = 2000000, rounds = 7;
	uint8_t warm[16];
	Dl_info info;
	struct surand_stats st;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help")) {
			printf("usage: overhead [--calls N (1000..10^9)] [--rounds R (1..100)]\n");
			return 0;
		} else if (!strcmp(argv[i], "--calls") && i + 1 < argc) {
			if (number(argv[++i], 1000, 1000000000ull, &calls) != 0) {
				fprintf(stderr, "overhead: --calls '%s': a number from 1000 to 10^9\n",
					argv[i]);
				return 64;
			}
		} else if (!strcmp(argv[i], "--rounds") && i + 1 < argc) {
			if (number(argv[++i], 1, 100, &rounds) != 0) {
				fprintf(stderr, "overhead: --rounds '%s': a number from 1 to 100\n",
					argv[i]);
				return 64;
			}
		} else {
			fprintf(stderr, "overhead: unknown option or missing value '%s' (--help)\n",
				argv[i]);
			return 64;
		}
	}

	/* first calls outside the timing: seeding, lazy binding of the PLT slots */
	surand_bytes(warm, sizeof(warm));
	for (size_t r = 0; r < NROWS; r++)
		rows[r].best = rows[r].run(1000);
	for (unsigned long long k = 0; k < rounds; k++)
		for (size_t r = 0; r < NROWS; r++) {
			double v = rows[r].run(calls);
			if (k == 0 || v < rows[r].best)
				rows[r].best = v;
		}

	printf("overhead: what one call costs, ns per call, best of %llu rounds of %llu calls, "
	       "1 thread\n",
	       rounds, calls);
	memset(&st, 0, sizeof(st));
	if (surand_stats(&st, sizeof(st)) != 0)
		st.backend[0] = '\0';
	if (dladdr((void *)surand_u32, &info) && info.dli_fname)
		printf("surand_u32 from %s (backend %.16s)\n", info.dli_fname,
		       st.backend[0] ? st.backend : "?");
	printf("%-54s %8s %16s\n", "what", "ns/call", "above empty PLT");
	for (size_t r = 0; r < NROWS; r++) {
		char above[32] = "-";
		if (rows[r].above)
			snprintf(above, sizeof(above), "%+.2f", rows[r].best - rows[PLT_ROW].best);
		printf("%-54s %8.2f %16s\n", rows[r].what, rows[r].best, above);
	}
	printf("reading: the rows above surand's are the pieces of its fixed cost, each added to\n"
	       "an empty PLT call; surand's figure minus the fixed-cost row is its share of the\n"
	       "ChaCha20 keystream and of the refills (key erasure) spread over the calls.\n");
	return 0;
}
