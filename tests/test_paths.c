/*
 * test_paths.c - every way bytes leave the library, in one table (paths[]),
 * and the two promises each of them keeps:
 *
 *   erasure:   after the call, the bytes it handed out are nowhere in the
 *              calling thread's state: the default design's slot (the batch
 *              positions the call consumed read zero, and no window of the
 *              output is anywhere in the slot), every other design's state
 *              (surand_test_snapshot), and the dead stack below the caller
 *              (the stack temporaries every design copies output through);
 *   no repeat: no later call, through any path, hands out any of them again;
 *              nor a signal handler's call made while the call is running,
 *              nor a child's call after fork(), _Fork() or a raw clone.
 *
 * A new way out of the library needs a row here: paths_cover_the_api fails
 * for an exported function that is neither in the table nor named in
 * not_output[] with the reason, and for a size class of surand_bytes (the
 * default design's branches: gen/thread_fast.h, gen/thread.c) without a row.
 *
 * The preload's arc4random, arc4random_buf and arc4random_uniform
 * (tools/preload/preload.c) are one call each of surand_u32, surand_bytes and
 * (uint32_t)surand_uniform(bound): their rows below make exactly those calls,
 * so the preload's names are covered here, not in tests/preload/.
 *
 * The stream API (surand_stream_*) has no row: its bytes are a public
 * function of the caller's seed (surand.h: "NOT the secure generator"), so
 * there is no secret of the library to erase, and a seek repeats its bytes by
 * design; tests/test_stream.c covers it.
 * SPDX-License-Identifier: MIT
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gen/thread_fast.h" /* struct slot: the default design's layout */
#include "reliability.h"
#include "test_hooks.h"

/* ==== windows: 8-byte (and 4-byte) substrings, in open-addressing sets ========= */

struct wset {
	uint64_t *key;
	uint8_t *used;
	size_t mask, n;
};

/* mmap'ed and MADV_DONTFORK: a fork child (which never uses the sets) does not
 * copy them, and the parent's later writes cause no copy-on-write faults. */
static int ws_init(struct wset *s, unsigned log2cap)
{
	size_t cap = (size_t)1 << log2cap;
	void *m = mmap(NULL, cap * 9, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		return -1;
	(void)madvise(m, cap * 9, MADV_DONTFORK);
	s->key = m;
	s->used = (uint8_t *)m + cap * 8;
	s->mask = cap - 1;
	s->n = 0;
	return 0;
}

/* 1 when adds were dropped (the set was sized too small for the case). */
static int ws_full(const struct wset *s)
{
	return s->n >= (s->mask + 1) / 4 * 3;
}

static void ws_clear(struct wset *s)
{
	s->n = 0;
	memset(s->used, 0, s->mask + 1);
}

static void ws_free(struct wset *s)
{
	munmap(s->key, (s->mask + 1) * 9);
}

static inline __attribute__((always_inline)) size_t ws_home(const struct wset *s, uint64_t k)
{
	return (size_t)((k * 0x9E3779B97F4A7C15ull) >> 17) & s->mask;
}

/* No calls inside: the stack scan runs it over memory just below its frame. */
static inline __attribute__((always_inline)) int ws_has(const struct wset *s, uint64_t k)
{
	size_t i = ws_home(s, k);

	while (s->used[i]) {
		if (s->key[i] == k)
			return 1;
		i = (i + 1) & s->mask;
	}
	return 0;
}

/* Keeps the set at most 3/4 full (the callers size it; past that, adds are
 * dropped rather than let the probes run long). */
static void ws_add(struct wset *s, uint64_t k)
{
	size_t i = ws_home(s, k);

	if (s->n >= (s->mask + 1) / 4 * 3)
		return;

	while (s->used[i]) {
		if (s->key[i] == k)
			return;
		i = (i + 1) & s->mask;
	}
	s->used[i] = 1;
	s->key[i] = k;
	s->n++;
}

static inline __attribute__((always_inline)) uint64_t w8(const volatile uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static inline uint64_t w4(const volatile uint8_t *p)
{
	return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24;
}

/*
 * The no-repeat record set: a record's 8-byte windows at every offset are
 * looked up, then its windows at offsets 0, 8, 16, ... (and the last) are
 * added: a later record that holds any 8 consecutive bytes of an earlier one,
 * at any shift, is found.  Returns how many windows were already there.
 * Records carry at least 64 random bits per 8 bytes (the table packs the
 * short and the bounded draws), so a chance match needs about 2^64 tries.
 */
static size_t seen_check_add(struct wset *s, const uint8_t *rec, size_t len)
{
	size_t hits = 0, i;

	if (len < 8)
		return 0;
	for (i = 0; i + 8 <= len; i++)
		hits += (size_t)ws_has(s, w8(rec + i));
	for (i = 0; i + 8 <= len; i += 8)
		ws_add(s, w8(rec + i));
	ws_add(s, w8(rec + len - 8));
	return hits;
}

/* ==== the table =================================================================== */

enum row_kind {
	RAW, /* the call hands out n bytes as they are */
	VAL, /* the call returns a value derived from a draw (uniform, double) */
};

struct row {
	const char *name;
	enum row_kind kind;
	void (*call)(const struct row *r, uint8_t *out);
	size_t n;       /* RAW: bytes per call; VAL: 8 (the value, native order) */
	uint64_t arg;   /* getrandom: flags; uniform: the bound */
	unsigned calls; /* calls per record: records carry >= 64 random bits */
	const char *entry; /* the public (or preload) name the row stands for */
};

static volatile sig_atomic_t call_errors; /* a call that failed or went out of range */
#define MAX_WORDS_BYTES 8192u /* the largest bulk-call row */

static void c_bytes(const struct row *r, uint8_t *out)
{
	surand_bytes(out, r->n);
}

static void c_u32(const struct row *r, uint8_t *out)
{
	uint32_t v = surand_u32();

	(void)r;
	memcpy(out, &v, 4);
}

static void c_u64(const struct row *r, uint8_t *out)
{
	uint64_t v = surand_u64();

	(void)r;
	memcpy(out, &v, 8);
}

static void c_getrandom(const struct row *r, uint8_t *out)
{
	if (surand_getrandom(out, r->n, (unsigned)r->arg) != (ssize_t)r->n)
		call_errors++;
}

static void c_getentropy(const struct row *r, uint8_t *out)
{
	if (surand_getentropy(out, r->n) != 0)
		call_errors++;
}

static void c_uniform(const struct row *r, uint8_t *out)
{
	uint64_t v = surand_uniform(r->arg);

	if (v >= r->arg)
		call_errors++;
	memcpy(out, &v, 8);
}

/* The preload's arc4random_uniform: (uint32_t)surand_uniform(bound). */
static void c_arc4_uniform(const struct row *r, uint8_t *out)
{
	uint64_t v = (uint32_t)surand_uniform((uint32_t)r->arg);

	if (v >= r->arg)
		call_errors++;
	memcpy(out, &v, 8);
}

/* The bulk calls: r->n bytes of words (8192: a one-use key's keystream). */
static void c_u32s(const struct row *r, uint8_t *out)
{
	uint32_t w[MAX_WORDS_BYTES / 4];

	surand_u32s(w, r->n / 4);
	memcpy(out, w, r->n);
	surand_wipe(w, r->n); /* the caller's copy only */
}

static void c_u64s(const struct row *r, uint8_t *out)
{
	uint64_t w[MAX_WORDS_BYTES / 8];

	surand_u64s(w, r->n / 8);
	memcpy(out, w, r->n);
	surand_wipe(w, r->n);
}

static void c_uniform_n(const struct row *r, uint8_t *out)
{
	uint64_t v;

	surand_uniform_n(&v, 1, r->arg);
	if (v >= r->arg)
		call_errors++;
	memcpy(out, &v, 8);
}

static void c_double(const struct row *r, uint8_t *out)
{
	double d = surand_double();

	(void)r;
	if (!(d >= 0.0 && d < 1.0))
		call_errors++;
	memcpy(out, &d, 8);
}

#define B(nm, len, calls) {"bytes_" nm, RAW, c_bytes, (len), 0, (calls), "surand_bytes"}
#define GR(nm, len, fl) {"getrandom_" nm, RAW, c_getrandom, (len), (fl), 1, "surand_getrandom"}
#define UNI(nm, bound, calls) {"uniform_" nm, VAL, c_uniform, 8, (bound), (calls), "surand_uniform"}

/*
 * Every way out.  The bytes_ rows follow the default design's size classes:
 * 1-3 (three single-byte moves), 4, 5-7, 8, 9-15, 16, 17-32 (the fast path's
 * branches of move_and_zero), 33..4095 (copied from the batch; 4095 never
 * fits a batch that has been drawn from, so it also spans a refill), and
 * 4096 up (a one-use key from the batch's next 32 bytes, keystream straight
 * into the caller's buffer).  uniform_2^63+1 rejects about half its first
 * draws, uniform_3x2^62 a quarter: the rejection loop's draws are covered.
 */
static const struct row paths[] = {
	B("1", 1, 8), B("2", 2, 4), B("3", 3, 3), B("4", 4, 2), B("5", 5, 2), B("6", 6, 2),
	B("7", 7, 2), B("8", 8, 1), B("9", 9, 1), B("12", 12, 1), B("15", 15, 1), B("16", 16, 1),
	B("17", 17, 1), B("24", 24, 1), B("31", 31, 1), B("32", 32, 1), B("33", 33, 1),
	B("64", 64, 1), B("100", 100, 1), B("1000", 1000, 1), B("4031", 4031, 1),
	B("4095", 4095, 1), B("4096", 4096, 1), B("4097", 4097, 1), B("10000", 10000, 1),
	{"u32", RAW, c_u32, 4, 0, 2, "surand_u32"},
	{"u64", RAW, c_u64, 8, 0, 1, "surand_u64"},
	UNI("6", 6, 24),                       /* packed: 6^24 > 2^62 */
	UNI("2", 2, 64),                       /* packed: one bit a call */
	UNI("1000000007", 1000000007ull, 3),   /* packed: about 2^90 */
	UNI("2^63+1", (1ull << 63) + 1, 1),    /* rejects about 1 in 2 */
	UNI("3x2^62", 3ull << 62, 1),          /* rejects about 1 in 4 */
	{"double", VAL, c_double, 8, 0, 1, "surand_double"},
	{"u32s_16", RAW, c_u32s, 16, 0, 1, "surand_u32s"},
	{"u32s_8192", RAW, c_u32s, 8192, 0, 1, "surand_u32s"},
	{"u64s_16", RAW, c_u64s, 16, 0, 1, "surand_u64s"},
	{"u64s_8192", RAW, c_u64s, 8192, 0, 1, "surand_u64s"},
	{"uniform_n_2^63+1", VAL, c_uniform_n, 8, (1ull << 63) + 1, 1, "surand_uniform_n"},
	GR("0_16", 16, 0), GR("0_300", 300, 0), GR("0_5000", 5000, 0),
	GR("NONBLOCK_16", 16, SURAND_GRND_NONBLOCK), GR("RANDOM_40", 40, SURAND_GRND_RANDOM),
	GR("INSECURE_16", 16, SURAND_GRND_INSECURE),
	GR("NONBLOCK_RANDOM_8", 8, SURAND_GRND_NONBLOCK | SURAND_GRND_RANDOM),
	{"getentropy_32", RAW, c_getentropy, 32, 0, 1, "surand_getentropy"},
	{"getentropy_256", RAW, c_getentropy, 256, 0, 1, "surand_getentropy"},
	/* the preload's names: the calls tools/preload/preload.c makes */
	{"arc4random", RAW, c_u32, 4, 0, 2, "arc4random"},
	{"arc4random_buf_3", RAW, c_bytes, 3, 0, 3, "arc4random_buf"},
	{"arc4random_buf_40", RAW, c_bytes, 40, 0, 1, "arc4random_buf"},
	{"arc4random_buf_8192", RAW, c_bytes, 8192, 0, 1, "arc4random_buf"},
	{"arc4random_uniform_1000", VAL, c_arc4_uniform, 8, 1000, 7, "arc4random_uniform"},
	{"arc4random_uniform_2^31+1", VAL, c_arc4_uniform, 8, (1ull << 31) + 1, 2,
	 "arc4random_uniform"},
};
#define NROWS (sizeof(paths) / sizeof(paths[0]))
#define MAX_CALL_BYTES 10000u
#define MAX_REC_BYTES 10000u

/* Exported functions that hand out no generator bytes, and why. */
static const char *const not_output[] = {
	"surand_reseed",        /* control: returns 0/-1 */
	"surand_set_backend",   /* control */
	"surand_backend_names", /* a constant string */
	"surand_add_entropy",   /* input side */
	"surand_add_event",     /* input side */
	"surand_stats",         /* counters */
	"surand_source_stats",  /* counters */
	/* the inline path's view of the thread (pointers, no bytes); the
	 * inline draws themselves: tests/test_inline.c */
	"surand_inline_thread",
	/* the stream API: a public function of the caller's seed (top of file) */
	"surand_stream_init", "surand_stream_bytes", "surand_stream_u64", "surand_stream_seek",
	"surand_stream_wipe",
};

/* One record of row r: r->calls calls, packed for VAL rows. */
static size_t rec_len(const struct row *r)
{
	return r->kind == RAW ? r->n * r->calls : 8;
}

static void rec_pack(const struct row *r, uint8_t *rec, unsigned c, const uint8_t *call_out)
{
	uint64_t acc, v;

	if (r->kind == RAW) {
		memcpy(rec + (size_t)c * r->n, call_out, r->n);
		return;
	}
	memcpy(&v, call_out, 8);
	if (r->calls == 1) {
		memcpy(rec, &v, 8);
		return;
	}
	memcpy(&acc, rec, 8);
	acc = c == 0 ? v : acc * r->arg + v; /* base-bound digits, wrapping */
	memcpy(rec, &acc, 8);
}

/* Draws one record of row r into rec (the async-signal-safe part). */
static void draw_record(const struct row *r, uint8_t *rec, uint8_t *call_out)
{
	for (unsigned c = 0; c < r->calls; c++) {
		r->call(r, call_out);
		rec_pack(r, rec, c, call_out);
	}
}

/* ==== erasure checks ============================================================== */

static int stack_on; /* the dead-stack scans run (not under valgrind, sanitizers) */

static int slow_run(void)
{
	return rel_slow_checker() || t_quick() || t_runner_prefix()[0];
}

/* Dead stack scanned below the caller's frame: every design's frames and
 * stack temporaries (one-use key tails, blocks, the refill's last pass). */
#define STACK_SCAN_BYTES (24 * 1024)

static __attribute__((noinline)) void stack_touch(void)
{
	volatile uint8_t deep[64 * 1024];

	for (size_t i = 0; i < sizeof(deep); i += 512)
		deep[i] = 0;
}

/*
 * How many 8-byte windows of the dead stack just below this frame are in s.
 * No calls in the loop (ws_has is inlined): nothing overwrites the region
 * while it is read.  Off under valgrind and the sanitizers: they report (or
 * move to fake stacks) what lies below the stack pointer.
 */
static __attribute__((noinline)) size_t stack_hits(const struct wset *s)
{
	volatile uint8_t here = 0;
	const volatile uint8_t *top = &here - 64, *p;
	size_t hits = 0;

	for (p = top - STACK_SCAN_BYTES; p + 8 <= top; p++)
		hits += (size_t)ws_has(s, w8(p));
	return hits;
}

struct check {
	struct wset out8, out4, tail8;
	size_t positional_checked, refilled, stack_scans, spill_hits, state_scans;
	uint8_t before[SLOT_BYTES];
	uint8_t consumed[SLOT_BYTES];
	size_t nconsumed;
	const char *why; /* the first failure */
	char whybuf[256];
};

static void check_fail(struct check *k, const char *fmt, const char *row, size_t a, size_t b)
{
	if (k->why)
		return;
	snprintf(k->whybuf, sizeof(k->whybuf), fmt, row, a, b);
	k->why = k->whybuf;
}

/* The windows of out (and of the batch bytes the call consumed) in the sets. */
static void out_windows(struct check *k, const uint8_t *out, size_t n)
{
	size_t i;

	ws_clear(&k->out8);
	ws_clear(&k->out4);
	for (i = 0; i + 8 <= n; i++)
		ws_add(&k->out8, w8(out + i));
	for (i = 0; i + 8 <= k->nconsumed; i++)
		ws_add(&k->out8, w8(k->consumed + i));
	/* 4-byte windows for the 4..7-byte outputs (u32, 5..7 bytes); longer
	 * outputs are looked for by 8-byte windows, since a 4-byte window of a
	 * random output matches somewhere in a 4 KiB slot about once in 10^6. */
	if (n >= 4 && n < 8)
		for (i = 0; i + 4 <= n; i++)
			if ((out[i] == 0) + (out[i + 1] == 0) + (out[i + 2] == 0) + (out[i + 3] == 0) < 2)
				ws_add(&k->out4, w4(out + i));
}

/*
 * Windows of the output in [p, p + len): 8-byte ones everywhere; the 4-byte
 * ones of a 4..7-byte output only outside [skip_lo, skip_hi) (offsets).  A
 * 4-byte window matches random bytes by chance once in 2^32: the unread
 * rest of the batch (what the next draws hand out, which the no-repeat check
 * covers with 8-byte windows) and the other designs' states (1-2 KiB of
 * pool and hash words) would make that about once in a thousand runs.
 */
static size_t region_hits(struct check *k, const volatile uint8_t *p, size_t len, size_t n,
			  size_t skip_lo, size_t skip_hi)
{
	size_t hits = 0, i;

	for (i = 0; i + 8 <= len; i++)
		hits += (size_t)ws_has(&k->out8, w8(p + i));
	if (n >= 4 && n < 8)
		for (i = 0; i + 4 <= len; i++)
			if (i + 4 <= skip_lo || i >= skip_hi)
				hits += (size_t)ws_has(&k->out4, w4(p + i));
	return hits;
}

static size_t nonzero(const volatile uint8_t *p, size_t n)
{
	size_t z = 0;

	for (size_t i = 0; i < n; i++)
		z += p[i] != 0;
	return z;
}

/* Bytes of the batch a row's call consumes at least (0: not known). */
static size_t need_bytes(const struct row *r)
{
	if (r->kind == VAL)
		return 8;
	if (r->call == c_u32)
		return 4;
	return r->n >= DIRECT_MIN_BYTES ? 32 : r->n;
}

/* The default design: room in the batch for the call, so that (barring a
 * reseed) the call consumes [pos, pos') of the batch it found. */
static void make_room(const struct row *r)
{
	static uint8_t drain[SLOT_BYTES];
	struct slot *s = surand_test_thread_slot(NULL);
	size_t want = need_bytes(r) + (r->kind == VAL ? 64 : 0);

	if (!s || want > BATCH_BYTES)
		return;
	if (s->h.pos <= BATCH_BYTES && BATCH_BYTES - s->h.pos >= want)
		return;
	if (s->h.pos < BATCH_BYTES)
		surand_bytes(drain, BATCH_BYTES - s->h.pos);
	surand_bytes(drain, 1); /* the refill, outside the measured call */
}

/*
 * One call of row r, with its erasure checks: the caller's copy of what was
 * handed out is out[0..n).  With the default design, the slot before and
 * after: when the call neither refilled nor re-keyed, the bytes it consumed
 * ([pos, pos')) read zero, and it consumed what the row says.
 */
static void checked_call(struct check *k, const struct row *r, uint8_t *out, int scan_stack)
{
	struct slot *s = surand_test_thread_slot(NULL);
	struct slot_hdr hb;
	struct surand_test_snapshot snap;
	size_t n = r->kind == RAW ? r->n : 0, hits;
	int refill = 0;

	make_room(r);
	s = surand_test_thread_slot(NULL);
	if (s) {
		memcpy(k->before, s, SLOT_BYTES);
		memcpy(&hb, &s->h, sizeof(hb));
	}
	r->call(r, out);
	k->nconsumed = 0;
	if (!s)
		s = surand_test_thread_slot(NULL); /* the thread's first call */
	if (s && hb.gen == s->h.gen && hb.cranks == s->h.cranks && hb.rekey_ns == s->h.rekey_ns &&
	    hb.pos <= s->h.pos && s->h.pos <= BATCH_BYTES) {
		size_t used = s->h.pos - hb.pos, want = need_bytes(r);

		k->positional_checked++;
		if (!t_all_zero(s->batch + hb.pos, used))
			check_fail(k, "%s: of the %zu batch bytes the call consumed, %zu are not zero",
				   r->name, used, nonzero(s->batch + hb.pos, used));
		if (r->kind == RAW ? used != want : (used < 8 || used % 8 != 0))
			check_fail(k, "%s: the call consumed %zu batch bytes, not %zu", r->name, used,
				   want);
		memcpy(k->consumed, k->before + hb.pos, used);
		k->nconsumed = used;
	} else if (s) {
		/* A refill (or a re-key) in the call: the key the slot held made
		 * the new batch, and must be gone from the stack too (below). */
		k->refilled++;
		if (hb.gen != 0 && hb.gen == s->h.gen && !t_all_zero(hb.key, sizeof(hb.key))) {
			memcpy(k->consumed, hb.key, sizeof(hb.key));
			k->nconsumed = sizeof(hb.key);
			refill = 1;
		}
	}
	/* 1..3-byte outputs: their positions above; longer ones as windows. */
	out_windows(k, out, n);
	if (s) {
		/* the unread batch after the call: [pos', BATCH_BYTES) */
		hits = region_hits(k, (const volatile uint8_t *)s, SLOT_BYTES, n,
				   s->h.pos < BATCH_BYTES ? s->h.pos : BATCH_BYTES, BATCH_BYTES);
		if (hits)
			check_fail(k, "%s: %zu windows of the output (or of the batch bytes consumed) "
				      "are still in the slot (%zu)", r->name, hits, hits);
	} else if (surand_test_snapshot(SURAND_TEST_SNAP_LAST, &snap) == 0) {
		k->state_scans++;
		hits = region_hits(k, (const volatile uint8_t *)snap.pool, snap.nwords * 4, n, 0,
				   SIZE_MAX) +
		       region_hits(k, (const volatile uint8_t *)snap.key, sizeof(snap.key), n, 0,
				   SIZE_MAX) +
		       region_hits(k, (const volatile uint8_t *)snap.extra, snap.extra_len, n, 0,
				   SIZE_MAX);
		surand_wipe(&snap, sizeof(snap)); /* a copy of the state */
		if (hits)
			check_fail(k, "%s: %zu windows of the output are in the design's state (%zu)",
				   r->name, hits, hits);
	}
	if ((scan_stack || (refill && stack_on)) && (n >= 8 || k->nconsumed >= 8)) {
		k->stack_scans++;
		if (s || n < 64) {
			hits = stack_hits(&k->out8);
			if (hits)
				check_fail(k, "%s: %zu windows of the output (or of the one-use key) are "
					      "in the dead stack below the caller (%zu)", r->name, hits, hits);
		} else {
			/*
			 * The other designs do not scrub the stack after a pass: the
			 * SIMD bodies' register spills of whole blocks stay there
			 * (counted, printed, not asserted: none of them promises a
			 * clean stack).  Their own copies are asserted: the last,
			 * partial block goes through a stack block each design wipes.
			 */
			size_t t0 = n / 64 * 64;

			ws_clear(&k->tail8);
			for (size_t i = t0; i + 8 <= n; i++)
				ws_add(&k->tail8, w8(out + i));
			hits = n - t0 >= 8 ? stack_hits(&k->tail8) : 0;
			if (hits)
				check_fail(k, "%s: %zu windows of the output's last block are in the dead "
					      "stack below the caller (%zu)", r->name, hits, hits);
			k->spill_hits += stack_hits(&k->out8);
		}
	}
}

/* ==== the cases ==================================================================== */

static struct check *check_new(void)
{
	struct check *k = calloc(1, sizeof(*k));

	if (!k || ws_init(&k->out8, 15) || ws_init(&k->out4, 6) || ws_init(&k->tail8, 7))
		return NULL;
	return k;
}

static void check_free(struct check *k)
{
	ws_free(&k->out8);
	ws_free(&k->out4);
	ws_free(&k->tail8);
	free(k);
}

/* Windows of the calling thread's slot that are in `seen` (bytes handed out). */
static size_t slot_hits(const struct wset *seen)
{
	const volatile uint8_t *s = surand_test_thread_slot(NULL);
	size_t hits = 0;

	if (!s)
		return 0;
	for (size_t i = 0; i + 8 <= SLOT_BYTES; i++)
		hits += (size_t)ws_has(seen, w8(s + i));
	return hits;
}

static uint8_t rec_buf[MAX_REC_BYTES + 64];
static uint8_t call_buf[MAX_CALL_BYTES + 64];

/* A record of row r, each call checked; returns the record's length. */
static size_t checked_record(struct check *k, const struct row *r, int scan_stack)
{
	for (unsigned c = 0; c < r->calls; c++) {
		checked_call(k, r, call_buf, scan_stack);
		rec_pack(r, rec_buf, c, call_buf);
	}
	return rec_len(r);
}

/*
 * Every row, in the backend the case is for: each call's erasure checks, and
 * no record sharing 8 bytes with any earlier record of any row.
 */
static void table_child(void)
{
	struct check *k;
	struct wset seen;
	unsigned iters = slow_run() ? 4 : 16, it;
	int stack = stack_on = !rel_slow_checker();
	size_t repeats = 0, left = 0;
	const char *rep_row = NULL, *left_row = NULL;
	int thread;

	if (rel_select_backend() != 0)
		return;
	thread = strcmp(rel_backend(), "thread") == 0;
	k = check_new();
	T_ASSERT(k && ws_init(&seen, 20) == 0);
	stack_touch();
	for (size_t i = 0; i < NROWS; i++) {
		const struct row *r = &paths[i];

		for (it = 0; it < iters; it++) {
			size_t len = checked_record(k, r, stack && it < 4), h;

			h = seen_check_add(&seen, rec_buf, len);
			if (h && !rep_row)
				rep_row = r->name;
			repeats += h;
		}
		/* The slot after the row: none of the row's bytes (nor earlier). */
		if (slot_hits(&seen) && !left_row)
			left_row = r->name;
		left += slot_hits(&seen);
	}
	printf("# %s: %zu calls checked by position, %zu spanned a refill, %zu state scans, "
	       "%zu stack scans; %zu windows of whole blocks in the dead stack (SIMD spills, not "
	       "asserted)\n", rel_backend(), k->positional_checked, k->refilled, k->state_scans,
	       k->stack_scans, k->spill_hits);
	T_ASSERT_MSG(call_errors == 0, "%d calls failed or returned out of range",
		     (int)call_errors);
	T_ASSERT_MSG(!k->why, "%s", k->why);
	T_ASSERT_MSG(repeats == 0, "%zu windows repeated earlier output (first in %s)", repeats,
		     rep_row);
	T_ASSERT_MSG(left == 0, "%zu windows of handed-out bytes in the slot (first after %s)",
		     left, left_row);
	if (thread)
		T_ASSERT_MSG(k->positional_checked >= NROWS * iters / 2,
			     "only %zu calls could be checked by position", k->positional_checked);
	else
		T_ASSERT_MSG(k->state_scans >= NROWS * iters / 2,
			     "only %zu calls could be checked against the design's state",
			     k->state_scans);
	if (stack)
		T_ASSERT(k->stack_scans > 0);
	T_ASSERT_MSG(!ws_full(&seen), "the window set overflowed: the case checked less");
	ws_free(&seen);
	check_free(k);
}

/* ---- the table covers the API ---------------------------------------------------- */

static int row_for_entry(const char *name)
{
	for (size_t i = 0; i < NROWS; i++)
		if (strcmp(paths[i].entry, name) == 0)
			return 1;
	return 0;
}

/* A source file of this tree, from where this test was compiled (the tree's root). */
static FILE *open_source(const char *rel)
{
	char path[512];
	const char *slash = strrchr(__FILE__, '/');
	int dir = slash ? (int)(slash - __FILE__) : 0;

	snprintf(path, sizeof(path), "%.*s%s../%s", dir, __FILE__, dir ? "/" : "", rel);
	return fopen(path, "r");
}

/* ==== a page dropped inside a draw (the re-checks after each copy) ============== */

/* SIGUSR1 at a test point: the calling thread's slot reads as a dropped page. */
static void drop_own_slot(int sig)
{
	size_t size;
	void *slot = surand_test_thread_slot(&size);

	(void)sig;
	if (slot)
		memset(slot, 0, size);
}

static uint64_t rekeys_now(void)
{
	struct surand_stats st;

	memset(&st, 0, sizeof(st));
	return surand_stats(&st, sizeof(st)) == 0 ? st.rekeys : 0;
}

/* surand_u32/u64: the slot dropped after the batch was checked and before
 * the copy; the copy reads zeros, and the re-check must decline them. */
static void word_page_dropped_before_copy(void)
{
	struct sigaction sa, old;
	uint64_t hits0, v;
	int i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = drop_own_slot;
	T_ASSERT(sigaction(SIGUSR1, &sa, &old) == 0);
	for (i = 0; i < 8; i++) {
		(void)surand_u64(); /* a live batch: the next word takes the inline path */
		T_ASSERT_MSG(surand_test_thread_slot(NULL) != NULL, "the default design has no slot");
		hits0 = surand_test_point_hits(SURAND_TP_WORD);
		surand_test_point_arm(SURAND_TP_WORD, SIGUSR1);
		v = (i & 1) ? surand_u64() : surand_u32();
		surand_test_point_arm(SURAND_TP_WORD, 0);
		T_ASSERT_MSG(surand_test_point_hits(SURAND_TP_WORD) > hits0, "the draw never reached the point");
		T_ASSERT_MSG(v != 0, "%s returned the zeros of a page dropped before its copy",
			     (i & 1) ? "surand_u64" : "surand_u32");
	}
	T_ASSERT(sigaction(SIGUSR1, &old, NULL) == 0);
}

/* surand_bytes from the batch (1..32 bytes: the fast path; 33..4095: the
 * copy path): the slot dropped after the batch was checked and before the
 * copy; the zeros the copy read are never handed out. */
static void bytes_page_dropped_before_copy(void)
{
	static const struct {
		int point;
		size_t len;
	} cases[] = {{SURAND_TP_FILL, 8}, {SURAND_TP_FILL, 32}, {SURAND_TP_TAKE, 64}, {SURAND_TP_TAKE, 1000}};
	struct sigaction sa, old;
	uint8_t buf[1000];
	uint64_t hits0, w;
	size_t c, i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = drop_own_slot;
	T_ASSERT(sigaction(SIGUSR1, &sa, &old) == 0);
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		surand_bytes(buf, 1); /* a live batch with room for the draw */
		T_ASSERT_MSG(surand_test_thread_slot(NULL) != NULL, "the default design has no slot");
		hits0 = surand_test_point_hits(cases[c].point);
		surand_test_point_arm(cases[c].point, SIGUSR1);
		surand_bytes(buf, cases[c].len);
		surand_test_point_arm(cases[c].point, 0);
		T_ASSERT_MSG(surand_test_point_hits(cases[c].point) > hits0, "a %zu-byte draw never reached "
			     "the point", cases[c].len);
		for (i = 0; i + 8 <= cases[c].len; i += 8) {
			memcpy(&w, buf + i, 8);
			T_ASSERT_MSG(w != 0, "a %zu-byte draw handed out the zeros of a page dropped "
				     "before its copy (word %zu)", cases[c].len, i / 8);
		}
	}
	T_ASSERT(sigaction(SIGUSR1, &old, NULL) == 0);
}

/* A refill whose header copy tore (the generation read before the drop, the
 * key after it: zeros): the re-check sees the dropped page and the refill
 * starts again from a key the base derives, never from the torn one. */
static void refill_torn_copy_rekeys(void)
{
	static uint8_t drain[SLOT_BYTES];
	struct sigaction sa, old;
	struct slot *s;
	uint64_t hits0, rekeys0;
	uint8_t out[64];

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = drop_own_slot;
	T_ASSERT(sigaction(SIGUSR1, &sa, &old) == 0);
	surand_bytes(out, 1);
	s = surand_test_thread_slot(NULL);
	T_ASSERT_MSG(s != NULL, "the default design has no slot");
	if (s->h.pos < BATCH_BYTES)
		surand_bytes(drain, BATCH_BYTES - s->h.pos); /* empty: the next draw refills */
	rekeys0 = rekeys_now();
	hits0 = surand_test_point_hits(SURAND_TP_REFILL_COPIED);
	surand_test_point_arm(SURAND_TP_REFILL_COPIED, SIGUSR1);
	surand_bytes(out, sizeof(out));
	surand_test_point_arm(SURAND_TP_REFILL_COPIED, 0);
	T_ASSERT(sigaction(SIGUSR1, &old, NULL) == 0);
	T_ASSERT_MSG(surand_test_point_hits(SURAND_TP_REFILL_COPIED) > hits0, "no refill reached the point");
	T_ASSERT_MSG(rekeys_now() > rekeys0, "a refill from a torn key copy was not started again "
		     "from a fresh key (rekeys %llu -> %llu)", (unsigned long long)rekeys0,
		     (unsigned long long)rekeys_now());
	T_ASSERT(t_random_looking(out, sizeof(out)));
}

static void paths_cover_the_api(void)
{
	static const struct {
		size_t lo, hi;
	} classes[] = {{1, 3}, {4, 4}, {5, 7}, {8, 8}, {9, 15}, {16, 16}, {17, 32},
		       {33, DIRECT_MIN_BYTES - 1}, {DIRECT_MIN_BYTES, SIZE_MAX}};
	char line[512], name[128];
	int exported = 0, preload = 0;
	FILE *f;

	for (size_t c = 0; c < sizeof(classes) / sizeof(classes[0]); c++) {
		int have = 0;

		for (size_t i = 0; i < NROWS; i++)
			have |= paths[i].call == c_bytes && paths[i].n >= classes[c].lo &&
				paths[i].n <= classes[c].hi;
		T_ASSERT_MSG(have, "no surand_bytes row of %zu..%zu bytes", classes[c].lo,
			     classes[c].hi);
	}
	f = open_source("src/libsurand.map");
	T_ASSERT_MSG(f, "src/libsurand.map not found next to %s", __FILE__);
	while (fgets(line, sizeof(line), f)) {
		int known = 0;

		if (sscanf(line, " %127[a-z0-9_];", name) != 1 || strncmp(name, "surand_", 7) != 0)
			continue;
		exported++;
		for (size_t i = 0; i < sizeof(not_output) / sizeof(not_output[0]); i++)
			known |= strcmp(not_output[i], name) == 0;
		if (!known && !row_for_entry(name)) {
			fclose(f);
			T_ASSERT_MSG(0, "%s is exported but has no row in paths[] (nor a reason in "
					"not_output[])", name);
		}
	}
	fclose(f);
	T_ASSERT(exported >= 10);
	f = open_source("tools/preload/preload.c");
	T_ASSERT_MSG(f, "tools/preload/preload.c not found next to %s", __FILE__);
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "arc4random");

		if (strncmp(line, "PL_API ", 7) != 0 || !p || sscanf(p, "%127[a-z0-9_](", name) != 1)
			continue;
		preload++;
		if (!row_for_entry(name)) {
			fclose(f);
			T_ASSERT_MSG(0, "the preload answers %s, which has no row in paths[]", name);
		}
	}
	fclose(f);
	T_ASSERT_MSG(preload >= 3, "only %d arc4random names found in the preload", preload);
}

/* ---- signals: a handler draws through path j while the call is in path i ------- */

#define H_CAP 16384
#define H_KEEP 64 /* bytes kept of each handler record (all of the short ones) */
struct hrec {
	uint16_t row, during, len;
	uint8_t busy;
	uint8_t b[H_KEEP];
};
static struct hrec *h_recs;
static volatile sig_atomic_t h_n, h_cur = -1;
static unsigned h_next[NROWS], h_inside[NROWS];
static uint8_t h_pair[NROWS][NROWS];
static uint8_t h_rec[MAX_REC_BYTES + 64], h_out[MAX_CALL_BYTES + 64];

/*
 * One-shot, re-armed at the end of each handler run: the next signal comes
 * 5..36 us plus the handler's own run time after the handler returns, so
 * the interrupted loop keeps at least half the time whatever the handler's
 * path cost (under an emulator a 10 KB draw outlasts any fixed delay, and
 * a signal always pending would starve the loop).
 */
static volatile sig_atomic_t h_armed, h_shots;
static long h_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts); /* async-signal-safe */
	return (long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void h_rearm(long t0)
{
	struct itimerval tv;
	long ran = h_usec() - t0;

	memset(&tv, 0, sizeof(tv));
	if (!h_armed)
		return;
	h_shots++;
	ran = ran < 0 ? 0 : ran > 500000 ? 500000 : ran;
	ran += 5 + (long)((unsigned)h_shots * 7u % 32u);
	tv.it_value.tv_sec = ran / 1000000;
	tv.it_value.tv_usec = ran % 1000000;
	(void)setitimer(ITIMER_REAL, &tv, NULL);
}

static void path_handler(int sig)
{
	int e = errno, i = h_cur, busy, j;
	long t0 = h_usec();
	struct hrec *h;

	(void)sig;
	if (i < 0 || h_n >= H_CAP) {
		h_rearm(t0);
		errno = e;
		return;
	}
	/* Inside a surand call of path i (its busy mark set), the next path
	 * j for i; elsewhere in the loop, any. */
	busy = surand_test_call_busy();
	j = busy ? (int)h_next[i] : (int)((unsigned)h_n % NROWS);
	draw_record(&paths[j], h_rec, h_out);
	if (busy) {
		h_pair[i][j] = 1;
		h_next[i] = (h_next[i] + 1) % NROWS;
		h_inside[i]++;
	} else if (h_n >= H_CAP / 2) {
		h_rearm(t0);
		errno = e;
		return; /* the stores are kept for the draws inside calls */
	}
	h = &h_recs[h_n];
	h->row = (uint16_t)j;
	h->during = (uint16_t)i;
	h->busy = (uint8_t)busy;
	h->len = (uint16_t)(rec_len(&paths[j]) < H_KEEP ? rec_len(&paths[j]) : H_KEEP);
	memcpy(h->b, h_rec, h->len);
	h_n++;
	h_rearm(t0);
	errno = e;
}

/*
 * Where a raised signal lands inside a call.  The default design's points
 * sit where its state is most exposed (the batch checked, the copy next;
 * a refill's header copied, the re-check next); every design reaches the
 * front end's, the busy mark set and its fill next.  The deepest a path
 * reaches is used: a timer alone lands inside a 1-byte draw too seldom
 * under an emulator to cover every pair.
 */
static const int deep_points[] = {SURAND_TP_FILL, SURAND_TP_WORD, SURAND_TP_TAKE,
				  SURAND_TP_REFILL_COPIED};

static void arm_points(int deep, int sig)
{
	if (!deep) {
		surand_test_point_arm(SURAND_TP_BACKEND, sig);
		return;
	}
	for (size_t k = 0; k < sizeof(deep_points) / sizeof(deep_points[0]); k++)
		surand_test_point_arm(deep_points[k], sig);
}

static size_t sig_kept[NROWS]; /* bytes of each path's records in the set */

/* One record of path i, its first 64 KiB of records kept in the set;
 * returns the windows already seen. */
static size_t sig_draw(struct wset *seen, size_t i)
{
	draw_record(&paths[i], rec_buf, call_buf);
	if (sig_kept[i] >= 65536)
		return 0;
	sig_kept[i] += rec_len(&paths[i]);
	return seen_check_add(seen, rec_buf, rec_len(&paths[i]));
}

/* What the signal phases found, for the verdict. */
struct sig_tally {
	size_t repeats;          /* windows drawn twice */
	const char *rep;         /* the path that drew the first of them */
	unsigned raised[NROWS];  /* handler draws inside each path's call, raised */
	size_t front;            /* paths raised at the front end's point only */
	size_t timed;            /* timer signals that landed inside a call */
	size_t pairs;            /* (path in handler, path interrupted) pairs seen */
};

static void sig_note(struct sig_tally *t, size_t h, const char *name)
{
	if (h && !t->rep)
		t->rep = name;
	t->repeats += h;
}

/* Raised: each path interrupted NROWS times, the handler drawing through
 * every path in turn, at the deepest point the path reaches. */
static void sig_raised(struct wset *seen, struct sig_tally *t)
{
	for (size_t i = 0; i < NROWS; i++) {
		int depth = -1;

		h_cur = (sig_atomic_t)i;
		for (unsigned n = 0; h_inside[i] < NROWS && n < 4 * NROWS; n++) {
			unsigned was = h_inside[i];
			size_t h;

			arm_points(depth != 0, SIGALRM);
			h = sig_draw(seen, i);
			arm_points(1, 0);
			arm_points(0, 0);
			sig_note(t, h, paths[i].name);
			if (depth < 0)
				depth = h_inside[i] > was ? 1 : 0; /* the deep points, or none */
		}
		t->raised[i] = h_inside[i];
		t->front += depth == 0;
		h_cur = -1;
	}
}

/* Timed: signals anywhere, inside the calls or between them, for a
 * while (bound seconds at most) on each path (how often one lands inside
 * depends on the host).  The timer is off and SIGALRM ignored after. */
static void sig_timed(struct wset *seen, double bound, struct sig_tally *t)
{
	struct itimerval tv;
	double end;

	memset(&tv, 0, sizeof(tv));
	tv.it_value.tv_usec = 50;
	h_armed = 1;
	T_ASSERT(setitimer(ITIMER_REAL, &tv, NULL) == 0);
	for (size_t i = 0; i < NROWS; i++) {
		end = t_now_s() + bound;
		h_cur = (sig_atomic_t)i;
		for (unsigned n = 0; h_inside[i] - t->raised[i] < NROWS && h_n < H_CAP; n++) {
			size_t h = sig_draw(seen, i);

			sig_note(t, h, paths[i].name);
			if ((n & 15) == 15 && t_now_s() > end)
				break;
		}
		h_cur = -1;
		t->timed += h_inside[i] - t->raised[i];
	}
	h_armed = 0;
	memset(&tv, 0, sizeof(tv));
	setitimer(ITIMER_REAL, &tv, NULL);
	signal(SIGALRM, SIG_IGN);
}

/* The handler's draws join the set (a window it drew that a call also
 * handed out is a repeat), and the pairs they covered are counted. */
static void sig_handler_records(struct wset *seen, struct sig_tally *t)
{
	for (sig_atomic_t n = 0; n < h_n; n++) {
		size_t h = seen_check_add(seen, h_recs[n].b, h_recs[n].len);

		sig_note(t, h, paths[h_recs[n].row].name);
	}
	for (size_t i = 0; i < NROWS; i++)
		for (size_t j = 0; j < NROWS; j++)
			t->pairs += h_pair[i][j];
}

static void signals_child(void)
{
	struct sigaction sa;
	struct wset seen;
	struct check *k;
	struct sig_tally t = {0};
	double bound = slow_run() ? 0.5 : 0.2;
	size_t left;

	if (rel_select_backend() != 0)
		return;
	h_recs = calloc(H_CAP, sizeof(*h_recs));
	k = check_new();
	T_ASSERT(h_recs && k && ws_init(&seen, 21) == 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = path_handler;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	T_ASSERT(sigaction(SIGALRM, &sa, NULL) == 0);
	surand_bytes(call_buf, 16); /* the thread's first call: its slot */
	sig_raised(&seen, &t);
	sig_timed(&seen, bound, &t);
	if (t_case_failed())
		return;
	sig_handler_records(&seen, &t);
	/* Erasure after the storm: every path once more, checked, and the slot
	 * holds none of the bytes handed out by either side. */
	for (size_t i = 0; i < NROWS; i++)
		(void)checked_record(k, &paths[i], 0);
	left = slot_hits(&seen);
	printf("# %ld handler draws, %zu of %zu (path in handler, path interrupted) pairs; "
	       "%zu paths raised at the front end's point, the rest deeper; %zu timer "
	       "signals landed inside a call\n", (long)h_n, t.pairs, NROWS * NROWS, t.front, t.timed);
	T_ASSERT_MSG(call_errors == 0, "%d calls failed or returned out of range",
		     (int)call_errors);
	T_ASSERT_MSG(t.repeats == 0, "%zu windows drawn twice (handler and interrupted call; "
				     "first in %s)", t.repeats, t.rep);
	T_ASSERT_MSG(!k->why, "%s", k->why);
	T_ASSERT_MSG(left == 0, "%zu windows of handed-out bytes left in the slot", left);
	for (size_t i = 0; i < NROWS; i++)
		T_ASSERT_MSG(t.raised[i] >= NROWS, "path %s: a signal raised inside its call ran "
						   "the handler only %u times in %u draws",
			     paths[i].name, t.raised[i], 4 * (unsigned)NROWS);
	T_ASSERT_EQ_U64(t.pairs, NROWS * NROWS);
	T_ASSERT_MSG(!ws_full(&seen), "the window set overflowed: the case checked less");
	ws_free(&seen);
	check_free(k);
	free(h_recs);
}

/* ---- fork: each path before, each path after, in parent and child ---------------- */

static size_t all_records_len(void)
{
	size_t t = 0;

	for (size_t i = 0; i < NROWS; i++)
		t += rec_len(&paths[i]);
	return t;
}

static void fork_table(enum t_fork_way way, int kind, const char *kind_name)
{
	struct surand_stats st;
	struct wset seen;
	size_t total = all_records_len(), repeats = 0, h;
	uint8_t *child = malloc(total);
	const char *rep = NULL;
	int fds[2], status, bad_child = 0;
	size_t group = slow_run() ? 6 : 1;

	if (rel_select_backend() != 0)
		return;
	if (kind >= 0 && way != T_FORK_FORK && t_wipeonfork_ignored_skip())
		return;
	if (kind != 1)
		surand_test_secmem_force(kind); /* before the first secret is mapped */
	T_ASSERT(child && ws_init(&seen, 20) == 0);
	/* Natively one fork per path, each path right before its fork; under
	 * the sanitizers and the emulator (a fork there costs 100 ms and more)
	 * one per 6 paths, the last of them right before it. */
	for (size_t i = 0; i < NROWS; i += group) {
		size_t got = 0, off;
		ssize_t n;
		pid_t pid;

		/* Paths i .. i + group - 1 in the parent, then the fork. */
		for (size_t b = i; b < i + group && b < NROWS; b++) {
			draw_record(&paths[b], rec_buf, call_buf);
			repeats += seen_check_add(&seen, rec_buf, rec_len(&paths[b]));
		}
		T_ASSERT(pipe(fds) == 0);
		fflush(stdout);
		pid = t_fork_by(way);
		T_ASSERT_MSG(pid >= 0, "%s failed: %s", t_fork_names[way], strerror(errno));
		if (pid == 0) {
			/* Every path in the child, right after it. */
			close(fds[0]);
			off = 0;
			for (size_t j = 0; j < NROWS; j++) {
				draw_record(&paths[j], rec_buf, call_buf);
				memcpy(child + off, rec_buf, rec_len(&paths[j]));
				off += rec_len(&paths[j]);
			}
			n = write(fds[1], child, total);
			_exit(n == (ssize_t)total && call_errors == 0 ? 0 : 1);
		}
		close(fds[1]);
		/* Every path in the parent after the fork. */
		for (size_t j = 0; j < NROWS; j++) {
			draw_record(&paths[j], rec_buf, call_buf);
			repeats += seen_check_add(&seen, rec_buf, rec_len(&paths[j]));
		}
		while (got < total && (n = read(fds[0], child + got, total - got)) > 0)
			got += (size_t)n;
		close(fds[0]);
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != 0 || got != total)
			bad_child++;
		off = 0;
		for (size_t j = 0; j < NROWS && got == total; j++) {
			h = seen_check_add(&seen, child + off, rec_len(&paths[j]));
			if (h && !rep)
				rep = paths[j].name;
			repeats += h;
			off += rec_len(&paths[j]);
		}
	}
	T_ASSERT(surand_stats(&st, sizeof(st)) == 0);
	T_ASSERT_MSG(bad_child == 0, "%d children failed or sent short output", bad_child);
	T_ASSERT_MSG(call_errors == 0, "%d calls failed or returned out of range",
		     (int)call_errors);
	T_ASSERT_MSG(repeats == 0, "%s, %s memory: %zu windows both sides drew (first in the "
				   "child's %s)", t_fork_names[way], kind_name, repeats, rep);
	T_ASSERT_EQ_U64(st.kernel_only, kind < 0);
	T_ASSERT_MSG(!ws_full(&seen), "the window set overflowed: the case checked less");
	ws_free(&seen);
	free(child);
}

#define FORK_CHILD(way, wname, kind, kname)                  \
	static void fork_##wname##_##kname##_child(void)     \
	{                                                    \
		fork_table(way, kind, #kname);               \
	}
FORK_CHILD(T_FORK_FORK, fork, 1, default)
FORK_CHILD(T_FORK_FORK, fork, 0, wipeonfork)
FORK_CHILD(T_FORK_FORK, fork, -1, none)
FORK_CHILD(T_FORK_UFORK, ufork, 1, default)
FORK_CHILD(T_FORK_UFORK, ufork, 0, wipeonfork)
FORK_CHILD(T_FORK_UFORK, ufork, -1, none)
FORK_CHILD(T_FORK_CLONE, clone, 1, default)
FORK_CHILD(T_FORK_CLONE, clone, 0, wipeonfork)
FORK_CHILD(T_FORK_CLONE, clone, -1, none)

/* ---- a failed call leaves nothing in the buffer --------------------------------- */

static void failed_child(void)
{
	static uint8_t b[256];

	surand_test_kernel_fault(SURAND_TEST_KF_ALL_DENIED); /* no seed can be had */
	for (size_t n = 1; n <= sizeof(b); n *= 4) {
		memset(b, 0xa5, sizeof(b));
		errno = 0;
		T_ASSERT(surand_getentropy(b, n) == -1 && errno != 0);
		T_ASSERT_MSG(t_all_zero(b, n), "getentropy(%zu) failed and left bytes in the buffer",
			     n);
	}
}

/* ==== main ========================================================================= */

static const struct t_child_case child_cases[] = {
	{"table", table_child},
	{"signals", signals_child},
	{"fork_fork_default", fork_fork_default_child},
	{"fork_fork_wipeonfork", fork_fork_wipeonfork_child},
	{"fork_fork_none", fork_fork_none_child},
	{"fork_ufork_default", fork_ufork_default_child},
	{"fork_ufork_wipeonfork", fork_ufork_wipeonfork_child},
	{"fork_ufork_none", fork_ufork_none_child},
	{"fork_clone_default", fork_clone_default_child},
	{"fork_clone_wipeonfork", fork_clone_wipeonfork_child},
	{"fork_clone_none", fork_clone_none_child},
	{"failed", failed_child},
	{NULL, NULL},
};

#define EXEC_CASE(name, child, secs)                       \
	static void name(void)                             \
	{                                                  \
		t_exec_child(child, (secs) * (slow_run() ? 10 : 1)); \
	}
EXEC_CASE(fork_each_path, "fork_fork_default", 30)
EXEC_CASE(fork_each_path_wipeonfork, "fork_fork_wipeonfork", 30)
EXEC_CASE(fork_each_path_no_wipeonfork, "fork_fork_none", 30)
EXEC_CASE(ufork_each_path, "fork_ufork_default", 30)
EXEC_CASE(ufork_each_path_wipeonfork, "fork_ufork_wipeonfork", 30)
EXEC_CASE(ufork_each_path_no_wipeonfork, "fork_ufork_none", 30)
EXEC_CASE(clone_each_path, "fork_clone_default", 30)
EXEC_CASE(clone_each_path_wipeonfork, "fork_clone_wipeonfork", 30)
EXEC_CASE(clone_each_path_no_wipeonfork, "fork_clone_none", 30)
EXEC_CASE(failed_call_leaves_nothing, "failed", 30)

int main(int argc, char **argv)
{
	t_init(argc, argv);
	t_child_main(argc, argv, child_cases);
	T_RUN(paths_cover_the_api);
	rel_per_backend("erasure_no_repeat", "table", "paths-erasure-no-repeat",
			slow_run() ? 300 : 60);
	rel_per_backend("signal_in_each_path", "signals", "paths-signal-in-each-path",
			slow_run() ? 300 : 60);
	T_RUN(fork_each_path);
	T_RUN(fork_each_path_wipeonfork);
	T_RUN(fork_each_path_no_wipeonfork);
	T_RUN(ufork_each_path);
	T_RUN(ufork_each_path_wipeonfork);
	T_RUN(ufork_each_path_no_wipeonfork);
	T_RUN(clone_each_path);
	T_RUN(clone_each_path_wipeonfork);
	T_RUN(clone_each_path_no_wipeonfork);
	T_RUN(failed_call_leaves_nothing);
	T_RUN(word_page_dropped_before_copy);
	T_RUN(bytes_page_dropped_before_copy);
	T_RUN(refill_torn_copy_rekeys);
	return t_done();
}
