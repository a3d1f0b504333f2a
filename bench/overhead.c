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
 *
 * A second table takes the inline word draw (SURAND_INLINE) apart the same
 * way: a model of its steps on a batch of this program's own (refilled with
 * surand_bytes() when empty), each row adding one of the draw's guarantees
 * to the row before, then the real inline draw and, where it is built, Rust's
 * inlined thread_rng() loop (bench/rust-rand):
 *
 *   position chain        the batch position loaded, checked, advanced and
 *                         stored, 4 bytes copied out and zeroed: no guarantee
 *   + generation check    the slot's generation against the shared word
 *   + re-check            the generation read again after the copy
 *   + busy mark           a thread word (the frame address, tagged with the
 *                         return address) set before and cleared after
 *   + draw counter        the draw's whole work, as surand.h does it
 *   ... without the cipher  the chain and the whole draw again, their batch
 *                         refilled with a fixed pattern: the draw's own cost;
 *                         the row with the cipher minus it is the keystream's
 *                         and the refill's share of each draw
 *   cursor layout         a model of another layout (cursor_draw below), with
 *                         the tagged mark and with the frame address alone,
 *                         then flat (the slot straight from the thread pointer)
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
#include <unistd.h>

/* The inline draw for its rows; (surand_u32)() still names the call. */
#define SURAND_INLINE
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
LOOP(t_u32, (surand_u32)())
LOOP(t_u64, (surand_u64)())
LOOP(t_b4, (surand_bytes(buf, 4), buf[0]))
LOOP(t_b16, (surand_bytes(buf, 16), buf[0]))

/* ---- the inline draw taken apart ---------------------------------------------------- */

/* Which of the inline draw's steps a model row takes (constants once inlined). */
enum { M_GEN = 1, M_RECHECK = 2, M_MARK = 4, M_COUNT = 8, M_NOCIPHER = 16 };

static struct surand_inline_slot *m_slot;
static uint64_t m_base_gen = 1;               /* the shared word (never 0) */
static uintptr_t m_state = SURAND_INLINE_IDLE; /* the busy mark */
static struct surand_inline_thread m_view;
static __thread struct surand_inline_thread *m_tls; /* as surand.h's view pointer */

/* A model batch refilled with the library's output, its first word handed
 * out (and zeroed there): the models' refill, after which 4 bytes are used.
 * nocipher: a fixed pattern instead (the rows that leave the cipher out, so
 * that they show the draw's own cost; their words are summed, never used). */
static uint32_t model_batch_refill(unsigned char batch[SURAND_INLINE_BATCH_BYTES], int nocipher)
{
	uint32_t x;

	if (nocipher)
		memset(batch, 0x5a, SURAND_INLINE_BATCH_BYTES);
	else
		surand_bytes(batch, SURAND_INLINE_BATCH_BYTES);
	memcpy(&x, batch, 4);
	memset(batch, 0, 4);
	return x;
}

static __attribute__((noinline, cold)) uint32_t model_refill(unsigned parts)
{
	uint32_t x = model_batch_refill(m_slot->batch, !!(parts & M_NOCIPHER));

	m_slot->gen = m_base_gen;
	m_slot->pos = 4;
	return x;
}

static inline __attribute__((always_inline)) uint32_t model_draw(unsigned parts)
{
	struct surand_inline_thread *t = m_tls;
	struct surand_inline_slot *s = t->slot;
	uintptr_t *state = t->call_state;
	uint64_t gen = 0;
	uint32_t pos, x;
	unsigned char *p;

	if (parts & M_MARK) {
		if (__builtin_expect(*state != SURAND_INLINE_IDLE, 0))
			return model_refill(parts);
		__atomic_store_n(state,
				 surand_inline_mark_((uintptr_t)__builtin_dwarf_cfa(),
						     (uintptr_t)__builtin_return_address(0)),
				 __ATOMIC_RELAXED);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
	}
	pos = s->pos;
	if (parts & M_GEN) {
		gen = s->gen;
		if (__builtin_expect(gen != __atomic_load_n(t->base_gen, __ATOMIC_ACQUIRE), 0))
			goto slow;
	}
	if (__builtin_expect(pos > SURAND_INLINE_BATCH_BYTES - 4, 0))
		goto slow;
	p = s->batch + pos;
	memcpy(&x, p, 4);
	memset(p, 0, 4);
	__asm__ __volatile__("" : : "r"(p) : "memory");
	if ((parts & M_RECHECK) && __builtin_expect(SURAND_INLINE_RECHECK_(&s->gen) != gen, 0))
		goto slow;
	s->pos = pos + 4;
	if (parts & M_COUNT)
		__atomic_store_n(&t->words[0], t->words[0] + 1, __ATOMIC_RELAXED);
	if (parts & M_MARK) {
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		*state = SURAND_INLINE_IDLE;
	}
	return x;
slow:
	if (parts & M_MARK) {
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		*state = SURAND_INLINE_IDLE;
	}
	return model_refill(parts);
}

/*
 * The cursor layout: a model of a draw that keeps the guarantees with fewer
 * memory operations.  One slot word holds the batch position while no draw
 * runs and the busy mark while one does (bit 63 set: no position is that
 * large), so the mark is set by the store that claims the bytes and cleared
 * by the store that advances the position; a limit word that a fork, a
 * reseed or a dropped page leaves 0 replaces the generation check and its
 * re-check; the thread's call word is still tested (a call in progress).
 * Like the real draw it reaches the slot, the call word and the draw counter
 * through a per-thread view, so those rows differ only in the layout; the
 * flat row goes further, as a new ABI could: the translation unit's thread
 * pointer names the slot itself, the call word lives in the slot, and no
 * counter is kept per draw (the library would count at the refill).
 * Mark: CUR_TAGGED, the tagged frame address as surand.h stores it; else the
 * frame address alone (what a call can then tell: docs/inline.md).
 */
struct cursor_slot {
	unsigned char batch[SURAND_INLINE_BATCH_BYTES];
	uint64_t cur;   /* position, or the busy mark (bit 63) */
	uint32_t limit;  /* end of the bytes that may be handed out; 0: none */
	uintptr_t call; /* the flat row's call word */
};
enum { CUR_TAGGED = 1, CUR_FLAT = 2 };
_Static_assert(sizeof(struct cursor_slot) <= 4096, "one page");
static struct cursor_slot *c_slot;
struct cursor_view {
	struct cursor_slot *slot;
	uint64_t words[2];
	uintptr_t *call_state;
};
static struct cursor_view c_view;
static __thread struct cursor_view *c_tls; /* as surand.h's view pointer */
static __thread struct cursor_slot *c_flat; /* the flat row's: the slot itself */

static __attribute__((noinline, cold)) uint32_t cursor_refill(void)
{
	uint32_t x = model_batch_refill(c_slot->batch, 0);

	c_slot->cur = 4;
	__atomic_store_n(&c_slot->limit, SURAND_INLINE_BATCH_BYTES, __ATOMIC_RELEASE);
	return x;
}

static inline __attribute__((always_inline)) uint32_t cursor_draw(unsigned mode)
{
	struct cursor_view *t = (mode & CUR_FLAT) ? NULL : c_tls;
	struct cursor_slot *s = (mode & CUR_FLAT) ? c_flat : t->slot;
	uintptr_t call = (mode & CUR_FLAT) ? s->call : *t->call_state;
	uint64_t c = s->cur;
	uint32_t limit = __atomic_load_n(&s->limit, __ATOMIC_ACQUIRE), x;
	unsigned char *p;

	if (__builtin_expect(call != SURAND_INLINE_IDLE || c + 4 > limit, 0))
		return cursor_refill();
	__atomic_store_n(&s->cur,
			 (mode & CUR_TAGGED)
				 ? surand_inline_mark_((uintptr_t)__builtin_dwarf_cfa(),
						       (uintptr_t)__builtin_return_address(0))
				 : (uintptr_t)__builtin_dwarf_cfa() | ((uint64_t)1 << 63),
			 __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	p = s->batch + c;
	memcpy(&x, p, 4);
	memset(p, 0, 4);
	__asm__ __volatile__("" : : "r"(p) : "memory");
	if (__builtin_expect(SURAND_INLINE_RECHECK_(&s->limit) != limit, 0)) {
		s->cur = c;
		return cursor_refill();
	}
	if (!(mode & CUR_FLAT))
		__atomic_store_n(&t->words[0], t->words[0] + 1, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	s->cur = c + 4;
	return x;
}

static int model_setup(void)
{
	m_slot = aligned_alloc(4096, sizeof(*m_slot));
	if (!m_slot)
		return -1;
	memset(m_slot, 0, sizeof(*m_slot));
	m_slot->pos = SURAND_INLINE_BATCH_BYTES; /* empty: the first draw refills */
	m_view.slot = m_slot;
	m_view.call_state = &m_state;
	m_view.base_gen = &m_base_gen;
	m_tls = &m_view;
	c_slot = aligned_alloc(4096, 4096);
	if (!c_slot)
		return -1;
	memset(c_slot, 0, sizeof(*c_slot));
	c_view.slot = c_slot; /* limit 0: the first draw refills */
	c_view.call_state = &m_state;
	c_tls = &c_view;
	c_slot->call = SURAND_INLINE_IDLE;
	c_flat = c_slot;
	return 0;
}

LOOP(m_chain, model_draw(0))
LOOP(m_gen, model_draw(M_GEN))
LOOP(m_recheck, model_draw(M_GEN | M_RECHECK))
LOOP(m_mark, model_draw(M_GEN | M_RECHECK | M_MARK))
LOOP(m_whole, model_draw(M_GEN | M_RECHECK | M_MARK | M_COUNT))
LOOP(m_chain_nc, model_draw(M_NOCIPHER))
LOOP(m_whole_nc, model_draw(M_GEN | M_RECHECK | M_MARK | M_COUNT | M_NOCIPHER))
LOOP(m_inline, surand_u32())
LOOP(m_cursor_tag, cursor_draw(CUR_TAGGED))
LOOP(m_cursor_cfa, cursor_draw(0))
LOOP(m_cursor_flat, cursor_draw(CUR_FLAT))

/* Rust rand's thread_rng() loop, next_u32() inlined (bench/rust-rand), when built. */
static uint64_t (*rs_loop_u32)(void *, uint64_t, uint64_t *);
static void *rs_h;
static double m_rust(uint64_t n)
{
	uint64_t acc = 0, ns = rs_loop_u32(rs_h, n, &acc);

	sink ^= acc;
	return (double)ns / (double)n;
}

/* The Rust peer is built in the program's parent folder (build/), see mk/bench.mk. */
static void load_rust(void)
{
	char self[4096], path[4200], *slash;
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	void *h, *(*new_fn)(void);

	if (len <= 0)
		return;
	self[len] = '\0';
	if (!(slash = strrchr(self, '/')))
		return;
	*slash = '\0';
	snprintf(path, sizeof(path), "%s/../libsurand-rust-rand-peer.so", self);
	if (!(h = dlopen(path, RTLD_NOW | RTLD_LOCAL)))
		return;
	new_fn = (void *(*)(void))dlsym(h, "surand_peer_rust_new");
	rs_loop_u32 = (uint64_t (*)(void *, uint64_t, uint64_t *))dlsym(h, "surand_peer_rust_loop_u32");
	if (new_fn && rs_loop_u32)
		rs_h = new_fn();
}

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

static struct row mrows[] = {
	{"position chain: load, check, 4-byte copy + zero, store", m_chain, 0, 0},
	{"  + generation check (slot's copy vs the shared word)", m_gen, 1, 0},
	{"  + re-check of the generation after the copy", m_recheck, 1, 0},
	{"  + busy mark (tagged frame address) set and cleared", m_mark, 1, 0},
	{"  + draw counter: the whole draw", m_whole, 1, 0},
	{"position chain, batch refilled without the cipher", m_chain_nc, 1, 0},
	{"whole draw, batch refilled without the cipher", m_whole_nc, 1, 0},
	{"surand_u32() inline (SURAND_INLINE), libsurand.so", m_inline, 1, 0},
	{"cursor layout (model), tagged mark", m_cursor_tag, 1, 0},
	{"cursor layout (model), frame address alone as mark", m_cursor_cfa, 1, 0},
	{"  + flat: slot from the thread pointer, no counter", m_cursor_flat, 1, 0},
	{"rust thread_rng next_u32, native loop (inlined)", m_rust, 1, 0},
};
#define NMROWS (sizeof(mrows) / sizeof(mrows[0]))
#define RUST_MROW (NMROWS - 1)

/* Every row once to warm it, then round-robin, each row's best round kept. */
static void run_rows(struct row *r, size_t nr, unsigned long long rounds, unsigned long long calls)
{
	for (size_t i = 0; i < nr; i++)
		if (r[i].run)
			r[i].best = r[i].run(1000);
	for (unsigned long long k = 0; k < rounds; k++)
		for (size_t i = 0; i < nr; i++) {
			double v = r[i].run ? r[i].run(calls) : 0;
			if (k == 0 || v < r[i].best)
				r[i].best = v;
		}
}

static void print_rows(const struct row *r, size_t nr, size_t base, const char *above_what)
{
	printf("%-56s %8s %16s\n", "what", "ns/call", above_what);
	for (size_t i = 0; i < nr; i++) {
		char above[32] = "-";
		if (!r[i].run) {
			printf("%-56s %8s %16s\n", r[i].what, "absent", "-");
			continue;
		}
		if (r[i].above)
			snprintf(above, sizeof(above), "%+.2f", r[i].best - r[base].best);
		printf("%-56s %8.2f %16s\n", r[i].what, r[i].best, above);
	}
}

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

	if (model_setup() != 0) {
		fprintf(stderr, "overhead: out of memory\n");
		return 1;
	}
	load_rust();
	if (!rs_h)
		mrows[RUST_MROW].run = NULL;
	/* first calls outside the timing: seeding, lazy binding of the PLT slots */
	surand_bytes(warm, sizeof(warm));
	run_rows(rows, NROWS, rounds, calls);
	run_rows(mrows, NMROWS, rounds, calls);

	printf("overhead: what one call costs, ns per call, best of %llu rounds of %llu calls, "
	       "1 thread\n",
	       rounds, calls);
	memset(&st, 0, sizeof(st));
	if (surand_stats(&st, sizeof(st)) != 0)
		st.backend[0] = '\0';
	if (dladdr((void *)surand_u32, &info) && info.dli_fname)
		printf("surand_u32 from %s (backend %.16s)\n", info.dli_fname,
		       st.backend[0] ? st.backend : "?");
	print_rows(rows, NROWS, PLT_ROW, "above empty PLT");
	printf("reading: the rows above surand's are the pieces of its fixed cost, each added to\n"
	       "an empty PLT call; surand's figure minus the fixed-cost row is its share of the\n"
	       "ChaCha20 keystream and of the refills (key erasure) spread over the calls.\n");
	printf("\ninline: the inline word draw taken apart, ns per draw, same rounds\n");
	print_rows(mrows, NMROWS, 0, "above the chain");
	if (!rs_h)
		printf("(rust row absent: libsurand-rust-rand-peer.so not built next to this "
		       "program's folder; apt-get install cargo librust-rand-dev, then make)\n");
	printf("reading: each model row adds one guarantee of the inline draw to the row before,\n"
	       "on a batch of this program's own refilled by surand_bytes() (the rows without\n"
	       "the cipher: by a fixed pattern, the draw's own cost); the inline row is\n"
	       "the real draw; the cursor rows model a layout whose one word is the position or\n"
	       "the busy mark, with a limit word for the generation (bench/overhead.c); Rust's\n"
	       "loop makes its keystream with ChaCha12, surand with ChaCha20.\n");
	return 0;
}
