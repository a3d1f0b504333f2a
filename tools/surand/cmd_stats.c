/*
 * cmd_stats.c - `surand stats`: the counters of this surand process itself
 * (not of any other program), after it draws a little (small, integer and large
 * requests, from two threads) and prints every field of struct surand_stats,
 * one "name: value" line each, then the entropy pool's sources
 * (struct surand_source_stats): pool_extractions, one "source_NAME:" line
 * per source with its fields as "field value" pairs, and for each source
 * with a power-up qualification (jitter) one "qual_NAME:" line: pending,
 * qualified, or disqualified with the reason, then the qualification's
 * figures and the credit accounting as "field value" pairs.  Neither struct
 * holds key, pool or sample material (surand.h), and nothing else is
 * printed but a first "# ..." line saying whose counters these are.
 *
 * `surand stats --pid PID` is refused (exit 64), by design.  Another
 * process's counters could reach this command only through memory both can
 * see: a page or file the watched process writes and this one parses (so a
 * compromised process would write into what another process trusts, and the
 * preload would need a writable shared mapping in every program it is loaded
 * into), or this command reading the watched process's memory
 * (process_vm_readv, with ptrace rights), which puts that process's keys in
 * reach of a tool that needs only counters.  Neither is worth a counter: a
 * program run under the preload reports its own with SURAND_PRELOAD_STATS=1
 * or `surand run --stats` (surand(1), surand-preload(7)).
 * SPDX-License-Identifier: MIT
 */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "surand.h"

#define STATS_SMALL_DRAWS 64
#define STATS_LARGE_BYTES (1u << 20)

static void draw_some(void)
{
	static uint8_t large[STATS_LARGE_BYTES];
	uint8_t small[64];
	uint64_t acc = 0;
	int i;

	for (i = 0; i < STATS_SMALL_DRAWS; i++) {
		surand_bytes(small, (size_t)(1 + i % (int)sizeof(small)));
		acc ^= surand_u64() ^ surand_u32() ^ surand_uniform(1000);
	}
	surand_bytes(large, sizeof(large));
	explicit_bzero(large, sizeof(large));
	explicit_bzero(small, sizeof(small));
	__asm__ __volatile__("" : : "r"(acc));
}

static void *draw_thread(void *arg)
{
	(void)arg;
	draw_some();
	return NULL;
}

static void print_str(const char *name, const char *v, size_t cap)
{
	printf("%-22s %.*s\n", name, (int)strnlen(v, cap), v);
}

static void print_u64(const char *name, uint64_t v)
{
	printf("%-22s %llu\n", name, (unsigned long long)v);
}

static const char *qual_word(uint32_t state)
{
	switch (state) {
	case SURAND_QUAL_PENDING:
		return "pending";
	case SURAND_QUAL_QUALIFIED:
		return "qualified";
	case SURAND_QUAL_DISQUALIFIED:
		return "disqualified";
	default:
		return "unknown";
	}
}

/* The entropy pool's sources (docs/entropy.md section 7). */
static int print_sources(void)
{
	struct surand_source_stats ss;
	char label[32];
	unsigned i, n;

	memset(&ss, 0, sizeof(ss));
	if (surand_source_stats(&ss, sizeof(ss)) < 0) {
		fprintf(stderr, "surand: stats: sources: %s\n", strerror(errno));
		return -1;
	}
	print_u64("pool_extractions:", ss.pool_extractions);
	n = ss.nsources < SURAND_SOURCES_MAX ? ss.nsources : SURAND_SOURCES_MAX;
	for (i = 0; i < n; i++) {
		const struct surand_source_stat *e = &ss.source[i];

		snprintf(label, sizeof(label), "source_%.*s:", (int)strnlen(e->name, sizeof(e->name)),
			 e->name);
		printf("%-22s enabled %u available %u disabled %u credit_paused %u samples %llu "
		       "bytes %llu credited_bits %llu failures %llu skipped %llu health_rct %llu "
		       "health_apt %llu overflow %llu\n",
		       label, e->enabled, e->available, e->disabled, e->credit_paused,
		       (unsigned long long)e->samples, (unsigned long long)e->bytes,
		       (unsigned long long)e->credited_bits, (unsigned long long)e->failures,
		       (unsigned long long)e->skipped, (unsigned long long)e->health_rct,
		       (unsigned long long)e->health_apt, (unsigned long long)e->overflow);
	}
	/* version 2: the power-up qualification (absent from an older library) */
	if (ss.version < 2 || ss.size < offsetof(struct surand_source_stats, qual) + sizeof(ss.qual))
		return 0;
	for (i = 0; i < n; i++) {
		const struct surand_source_qual *q = &ss.qual[i];

		if (q->state == SURAND_QUAL_NONE)
			continue;
		snprintf(label, sizeof(label), "qual_%.*s:",
			 (int)strnlen(ss.source[i].name, sizeof(ss.source[i].name)), ss.source[i].name);
		printf("%-22s %s%s%.*s samples %u zero_deltas %u backwards %u stuck %u alarms %u "
		       "h_estimate_millibits %u h_credited_millibits %u stuck_total %llu counted %llu "
		       "windows_clean %llu windows_alarmed %llu\n",
		       label, qual_word(q->state), q->reason ? " reason " : "",
		       (int)strnlen(q->reason_name, sizeof(q->reason_name)), q->reason_name, q->samples,
		       q->zero_deltas, q->backwards, q->stuck, q->alarms, q->h_estimate_millibits,
		       q->h_credited_millibits, (unsigned long long)q->stuck_total,
		       (unsigned long long)q->counted, (unsigned long long)q->windows_clean,
		       (unsigned long long)q->windows_alarmed);
	}
	return 0;
}

static const char stats_usage[] =
	"usage: surand stats\n"
	"Prints the library's counters in this surand process itself, after it draws a\n"
	"little from two threads: one \"name: value\" line per field of struct\n"
	"surand_stats, then the entropy sources.  It cannot watch another program: run\n"
	"that program with `surand run --stats CMD` (or SURAND_PRELOAD_STATS=1) and it\n"
	"reports its own counters when it exits.  --pid is refused by design (surand(1)).\n"
	"Exit status: 0 ok, 1 the library refused, 64 usage error, 74 standard output failed.\n";

int surand_cmd_stats(int argc, char **argv)
{
	struct surand_stats st;
	pthread_t t;
	int have_thread;

	if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		fputs(stats_usage, stdout);
		return surand_stdout_status("stats");
	}
	if (argc > 1 && strncmp(argv[1], "--pid", 5) == 0) {
		/* no shared page or foreign memory read for counters: see the top of the file */
		fprintf(stderr, "surand: stats: --pid is not supported: another process's counters "
				"would need memory shared with it (see surand(1)); run it with "
				"`surand run --stats CMD`\n");
		return SURAND_EX_USAGE;
	}
	if (argc > 1) {
		fprintf(stderr, "surand: stats takes no arguments (see surand stats --help)\n");
		return SURAND_EX_USAGE;
	}
	have_thread = pthread_create(&t, NULL, draw_thread, NULL) == 0;
	draw_some();
	if (have_thread)
		pthread_join(t, NULL);
	memset(&st, 0, sizeof(st));
	if (surand_stats(&st, sizeof(st)) < 0) {
		fprintf(stderr, "surand: stats: %s\n", strerror(errno));
		return SURAND_EX_FAIL;
	}
	printf("# counters of this surand process (pid %ld) after its own draws, not of other "
	       "programs\n", (long)getpid());
#define U(f) print_u64(#f ":", st.f)
	U(size);
	U(version);
	print_str("backend:", st.backend, sizeof(st.backend));
	print_str("chacha_impl:", st.chacha_impl, sizeof(st.chacha_impl));
	U(bytes);
	U(calls);
	U(refills);
	U(direct_fills);
	U(reseeds_initial);
	U(reseeds_timer);
	U(reseeds_forced);
	U(reseeds_fork);
	U(reseeds_catastrophic);
	U(rekeys);
	U(threads_seen);
	U(slots_in_use);
	U(slots_total);
	U(fork_generation);
	U(fallback_signal);
	U(fallback_nomem);
	U(fallback_urandom);
	U(vdso_fold);
	U(droppable);
	U(kernel_only);
	U(reseed_ceiling_s);
	U(pool_credit_bits);
	U(events);
	U(entropy_bytes_added);
	/* Design-specific counters: their meaning per backend is in docs/designs.md. */
	printf("%-22s", "backend_counters:");
	for (size_t i = 0; i < sizeof(st.backend_counters) / sizeof(st.backend_counters[0]); i++)
		printf(" %llu", (unsigned long long)st.backend_counters[i]);
	printf("\n");
	U(fallback_kernel_only);
	U(abandoned_calls);
#undef U
	if (print_sources() != 0)
		return SURAND_EX_FAIL;
	/* a closed pipe: quietly 0, like the generator; another failure: 74 */
	return surand_stdout_status("stats");
}
