/*
 * fastpool.c - per-CPU fast pools and surand_add_event().
 *
 * Sections: 1. the ARX mix; 2. slots and set-up; 3. the event path;
 * 4. spilling; 5. fork, stats, test hooks.
 *
 * An event (an unpredictable 64-bit value: a packet or interrupt timing) is
 * mixed into a 128-bit state of the calling CPU's slot with a cheap ARX
 * permutation; after 64 events or 1 s, whichever comes first, the slot's
 * 128 bits are spilled into the entropy pool, crediting at most 1 bit per
 * 64 events.  The slot is taken with a trylock: on contention (another thread
 * on this CPU slot, or a preempted writer) the event goes to the next slot, so
 * no writer ever waits on another.  When every slot tried is busy, the event
 * takes the pool's lock-free pending path (uncredited): none is ever lost.
 *
 * Memory: the 128-bit states are secret and live in secmem (one cache line
 * per slot, a nonzero valid word: a dropped page or a fork child reads as
 * "empty slot"); the locks and counters are not secret and live in ordinary
 * memory, so a dropped page can never release a lock.
 * SPDX-License-Identifier: MIT
 */
#include "entropy/entropy.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

/* glibc 2.35+ registers an rseq area per thread: its cpu_id is the kernel's
 * own, one load from the thread pointer, cheaper than a sched_getcpu call. */
#if defined(__has_include)
#if __has_include(<sys/rseq.h>) && (defined(__x86_64__) || defined(__aarch64__))
#include <sys/rseq.h>
#define FP_HAVE_RSEQ 1
#endif
#endif

#ifdef SURAND_TEST_BUILD
#include "test_hooks.h"
static int test_force_slot = -1;
#endif

/* ==== 1. the ARX mix ==========================================================
 *
 * Four 32-bit words, rounds in the style of HalfSipHash's SipRound (the
 * rotation amounts 5, 8, 7, 13 and 16 are HalfSipHash's, Aumasson & Bernstein
 * 2012).  The event is first spread by a bijection of its 64 bits (xorshift,
 * a multiply by the odd constant 2^64/phi of Knuth's multiplicative hashing,
 * xorshift), so that one flipped event bit already flips about half of the
 * injected word; that step does not depend on the state, so it runs while the
 * slot lock is being taken, off the state's dependency chain.  The halves then
 * enter words 3 and 2 and two rounds follow: the fewest for which one flipped
 * event bit flips each of the 128 state bits with probability 1/2 (without the
 * spreading step two rounds flip 42 bits on average and four are needed;
 * tests/test_entropy.c measures the step).  For a fixed event the step is a
 * permutation of the state: mixing never loses what the slot already holds.
 */
#define FP_ROUNDS 2
#define FP_SPREAD_MUL 0x9e3779b97f4a7c15ull /* 2^64 / golden ratio, odd */

static inline __attribute__((always_inline)) void fp_round(uint32_t *v0, uint32_t *v1,
							   uint32_t *v2, uint32_t *v3)
{
	*v0 += *v1;
	*v1 = surand_rotl32(*v1, 5) ^ *v0;
	*v0 = surand_rotl32(*v0, 16);
	*v2 += *v3;
	*v3 = surand_rotl32(*v3, 8) ^ *v2;
	*v0 += *v3;
	*v3 = surand_rotl32(*v3, 7) ^ *v0;
	*v2 += *v1;
	*v1 = surand_rotl32(*v1, 13) ^ *v2;
	*v2 = surand_rotl32(*v2, 16);
}

/* The event's bijective spreading (each step is invertible). */
static inline __attribute__((always_inline)) uint64_t fp_spread(uint64_t x)
{
	x ^= x >> 32;
	x *= FP_SPREAD_MUL;
	x ^= x >> 29;
	return x;
}

static inline __attribute__((always_inline)) void fp_inject(uint32_t v[4], uint64_t spread)
{
	uint32_t v0 = v[0], v1 = v[1], v2 = v[2], v3 = v[3];
	int i;

	v3 ^= (uint32_t)spread;
	v2 ^= (uint32_t)(spread >> 32);
	for (i = 0; i < FP_ROUNDS; i++)
		fp_round(&v0, &v1, &v2, &v3);
	v[0] = v0;
	v[1] = v1;
	v[2] = v2;
	v[3] = v3;
}

static inline __attribute__((always_inline)) void fp_mix(uint32_t v[4], uint64_t x)
{
	fp_inject(v, fp_spread(x));
}

void surand_fastpool_mix(uint32_t v[4], uint64_t x)
{
	fp_mix(v, x);
}

/* ==== 2. slots and set-up ==================================================== */

#define FP_MAX_SLOTS 1024u  /* more possible CPUs share slots (cpu % slots) */
#define FP_MIN_TRIES 4u     /* slots tried before the lock-free path */
#define FP_VALID 0x6c6f6f70u /* "pool" */

struct fp_meta {            /* ordinary memory: lock and bookkeeping */
	uint32_t lock;          /* 0 free, 1 held (trylock only) */
	uint32_t count;         /* events since the last spill */
	uint32_t credit_rem;    /* spilled events not yet worth a credited bit */
	uint32_t reserved;
	uint64_t last_spill_ns; /* clock of the last spill (or of the slot's start) */
	uint64_t events;        /* events mixed here (stats: relaxed) */
	uint64_t spills;        /* spills of this slot (stats: relaxed) */
} __attribute__((aligned(SURAND_CACHELINE)));
_Static_assert(sizeof(struct fp_meta) == SURAND_CACHELINE, "one line per slot");

struct fp_state {           /* secmem: the secret 128 bits */
	uint32_t v[4];
	uint32_t valid;         /* FP_VALID; 0: empty (new, fork child, dropped page) */
	uint32_t reserved[11];
} __attribute__((aligned(SURAND_CACHELINE)));
_Static_assert(sizeof(struct fp_state) == SURAND_CACHELINE, "one line per slot");

static struct fp_meta *fp_meta;   /* fp_nslots entries */
static struct fp_state *fp_state; /* fp_nslots entries, secmem */
static unsigned fp_nslots, fp_tries;
static int fp_ready;              /* 0 not yet, 1 ready, -1 no memory: lock-free path only */
static pthread_mutex_t fp_init_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t n_overflow;       /* events that took the lock-free path */

/* Highest CPU number in /sys/devices/system/cpu/possible ("0-63", "0,2-5"), + 1. */
static unsigned possible_cpus(void)
{
	char buf[256], *p, *end;
	unsigned long v, maxv = 0;
	ssize_t n;
	int fd, found = 0;
	long c;

	fd = open("/sys/devices/system/cpu/possible", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n > 0) {
			buf[n] = '\0';
			for (p = buf; *p;) {
				if (*p < '0' || *p > '9') {
					p++;
					continue;
				}
				v = strtoul(p, &end, 10);
				if (end == p)
					break;
				if (v > maxv)
					maxv = v;
				found = 1;
				p = end;
			}
		}
	}
	if (found && maxv < 65536)
		return (unsigned)maxv + 1;
	c = sysconf(_SC_NPROCESSORS_CONF);
	return c > 0 ? (unsigned)c : 1;
}

static __attribute__((noinline, cold)) int fp_setup(void)
{
	int st, r;
	unsigned n;

	(void)surand_config(); /* surand_config_entropy_off_v is valid from here */
	surand_entropy_atfork_register();
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &st);
	/* Tried, never waited for: a signal handler that interrupted the thread
	 * setting up must not deadlock; meanwhile events take the lock-free path. */
	if (pthread_mutex_trylock(&fp_init_lock) != 0) {
		pthread_setcancelstate(st, NULL);
		return __atomic_load_n(&fp_ready, __ATOMIC_ACQUIRE);
	}
	r = __atomic_load_n(&fp_ready, __ATOMIC_ACQUIRE);
	if (r == 0) {
		n = possible_cpus();
		if (n > FP_MAX_SLOTS)
			n = FP_MAX_SLOTS;
		fp_meta = aligned_alloc(SURAND_CACHELINE, n * sizeof(struct fp_meta));
		fp_state = surand_secmem_alloc(n * sizeof(struct fp_state));
		if (fp_meta && fp_state) {
			memset(fp_meta, 0, n * sizeof(struct fp_meta));
			fp_nslots = n;
			fp_tries = n < FP_MIN_TRIES ? FP_MIN_TRIES : n;
			r = 1;
		} else {
			free(fp_meta);
			fp_meta = NULL;
			if (fp_state)
				surand_secmem_free(fp_state, n * sizeof(struct fp_state));
			fp_state = NULL;
			r = -1;
		}
		__atomic_store_n(&fp_ready, r, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&fp_init_lock);
	pthread_setcancelstate(st, NULL);
	return r;
}

/* A slot whose state reads as empty restarts: no credit for events it lost. */
static __attribute__((noinline, cold)) void fp_slot_restart(struct fp_meta *m, struct fp_state *s,
							    uint64_t now)
{
	s->v[0] = s->v[1] = s->v[2] = s->v[3] = 0;
	s->valid = FP_VALID;
	m->count = 0;
	m->credit_rem = 0;
	m->last_spill_ns = now;
}

/* ==== 4. spilling (declared before the event path uses it) =================== */

/*
 * Called with the slot lock held; releases it.  The 128 bits go to the pool
 * with floor((carried + count) / 64) credited bits, the rest carried.
 */
static __attribute__((noinline)) void fp_spill_unlock(struct fp_meta *m, struct fp_state *s,
						      uint64_t now)
{
	uint32_t v[4], c;
	unsigned credit;

	memcpy(v, s->v, sizeof(v));
	c = m->credit_rem + m->count;
	credit = c / SURAND_FP_EVENTS_PER_CREDIT_BIT;
	m->credit_rem = c % SURAND_FP_EVENTS_PER_CREDIT_BIT;
	m->count = 0;
	m->last_spill_ns = now;
	__atomic_store_n(&m->spills, m->spills + 1, __ATOMIC_RELAXED);
	/* Order the copy before the re-check: a dropped page reads valid == 0. */
	SURAND_LOAD_FENCE();
	if (SURAND_UNLIKELY(__atomic_load_n(&s->valid, __ATOMIC_RELAXED) != FP_VALID))
		credit = 0; /* the state we copied may be zeros: mix, never credit it */
	__atomic_store_n(&m->lock, 0, __ATOMIC_RELEASE);
	/* The slot is free again before the pool lock is taken. */
	if (surand_pool_add(v, sizeof(v), credit) == 0) {
		SURAND_COUNT_N(surand_es_cnt[SURAND_ES_EVENTS].bytes, sizeof(v));
		SURAND_COUNT_N(surand_es_cnt[SURAND_ES_EVENTS].credited, credit);
	} else {
		SURAND_COUNT(surand_es_cnt[SURAND_ES_EVENTS].failures);
	}
	surand_wipe(v, sizeof(v));
}

/* All slots busy (or no memory): the pool's lock-free path, uncredited. */
static __attribute__((noinline, cold)) void fp_overflow(uint64_t value)
{
	SURAND_COUNT(n_overflow);
	(void)surand_pool_add(&value, sizeof(value), 0);
}

/* ==== 3. the event path ====================================================== */

/* The calling thread's CPU now (a hint: it may move right after), or -1. */
static inline __attribute__((always_inline)) int fp_cpu(void)
{
#ifdef FP_HAVE_RSEQ
	if (SURAND_LIKELY(__rseq_size != 0)) {
		const struct rseq *rs =
			(const struct rseq *)((char *)__builtin_thread_pointer() + __rseq_offset);
		int cpu = (int)__atomic_load_n(&rs->cpu_id, __ATOMIC_RELAXED);

		if (SURAND_LIKELY(cpu >= 0))
			return cpu;
	}
#endif
	return sched_getcpu();
}

SURAND_API void surand_add_event(uint64_t value)
{
	struct fp_meta *m;
	struct fp_state *s;
	unsigned slot, i, n, count;
	uint64_t now, spread = fp_spread(value);
	int cpu;

	if (SURAND_UNLIKELY(__atomic_load_n(&fp_ready, __ATOMIC_ACQUIRE) != 1)) {
		if (fp_setup() != 1) {
			if (surand_entropy_source_on(SURAND_ES_EVENTS))
				fp_overflow(value);
			return;
		}
	}
	/* The switch: one relaxed load (the configuration is read by now). */
	if (SURAND_UNLIKELY(surand_entropy_off_mask() & (1u << SURAND_ES_EVENTS)))
		return;
	n = fp_nslots;
	cpu = fp_cpu();
	slot = cpu >= 0 ? (unsigned)cpu : 0; /* -1: no CPU number here */
#ifdef SURAND_TEST_BUILD
	if (test_force_slot >= 0)
		slot = (unsigned)test_force_slot;
#endif
	if (SURAND_UNLIKELY(slot >= n))
		slot %= n;
	for (i = 0;; i++) {
		m = &fp_meta[slot];
		/* Test-and-test-and-set: a busy slot costs a read, not a write. */
		if (!__atomic_load_n(&m->lock, __ATOMIC_RELAXED) &&
		    !__atomic_exchange_n(&m->lock, 1, __ATOMIC_ACQUIRE))
			break;
		if (SURAND_UNLIKELY(i + 1 >= fp_tries)) {
			fp_overflow(value);
			return;
		}
		if (++slot == n)
			slot = 0;
	}
	s = &fp_state[slot];
	now = surand_now_ns();
	if (SURAND_UNLIKELY(s->valid != FP_VALID))
		fp_slot_restart(m, s, now);
	fp_inject(s->v, spread);
	count = m->count + 1;
	m->count = count;
	__atomic_store_n(&m->events, m->events + 1, __ATOMIC_RELAXED);
	/* Spill at 64 events or 1 s; never from inside the pool lock (a signal
	 * handler that interrupted this thread there): the next event spills. */
	if (SURAND_UNLIKELY(count >= SURAND_FP_SPILL_EVENTS ||
			    now - m->last_spill_ns >= SURAND_FP_SPILL_NS) &&
	    SURAND_LIKELY(!surand_entropy_nest)) {
		fp_spill_unlock(m, s, now);
		return;
	}
	__atomic_store_n(&m->lock, 0, __ATOMIC_RELEASE);
}

void surand_fastpool_flush_stale(uint64_t now_ns)
{
	struct fp_meta *m;
	unsigned i;

	if (__atomic_load_n(&fp_ready, __ATOMIC_ACQUIRE) != 1 || surand_entropy_nest)
		return;
	for (i = 0; i < fp_nslots; i++) {
		m = &fp_meta[i];
		if (__atomic_load_n(&m->lock, __ATOMIC_RELAXED) ||
		    __atomic_exchange_n(&m->lock, 1, __ATOMIC_ACQUIRE))
			continue; /* busy: its writer spills it */
		if (m->count && fp_state[i].valid == FP_VALID &&
		    now_ns - m->last_spill_ns >= SURAND_FP_SPILL_NS)
			fp_spill_unlock(m, &fp_state[i], now_ns);
		else
			__atomic_store_n(&m->lock, 0, __ATOMIC_RELEASE);
	}
}

/* ==== 5. fork, stats, test hooks ============================================= */

void surand_fastpool_atfork_child(void)
{
	unsigned i;

	pthread_mutex_init(&fp_init_lock, NULL);
	if (__atomic_load_n(&fp_ready, __ATOMIC_ACQUIRE) == 1) {
		/* Locks a parent thread held are free; states restart empty
		 * (already zero where wipe-on-fork works; explicit for kind -1). */
		memset(fp_meta, 0, fp_nslots * sizeof(struct fp_meta));
		for (i = 0; i < fp_nslots; i++)
			surand_wipe(&fp_state[i], sizeof(fp_state[i]));
	}
	n_overflow = 0;
}

uint64_t surand_fastpool_events(void)
{
	uint64_t sum = SURAND_LOAD(n_overflow);
	unsigned i;

	if (__atomic_load_n(&fp_ready, __ATOMIC_ACQUIRE) == 1)
		for (i = 0; i < fp_nslots; i++)
			sum += SURAND_LOAD(fp_meta[i].events);
	return sum;
}

uint64_t surand_fastpool_spills(void)
{
	uint64_t sum = 0;
	unsigned i;

	if (__atomic_load_n(&fp_ready, __ATOMIC_ACQUIRE) == 1)
		for (i = 0; i < fp_nslots; i++)
			sum += SURAND_LOAD(fp_meta[i].spills);
	return sum;
}

unsigned surand_fastpool_nslots(void)
{
	if (__atomic_load_n(&fp_ready, __ATOMIC_ACQUIRE) == 0)
		(void)fp_setup();
	return fp_nslots;
}

uint64_t surand_fastpool_overflow(void)
{
	return SURAND_LOAD(n_overflow);
}

#ifdef SURAND_TEST_BUILD
void surand_test_fastpool_force_slot(int slot)
{
	test_force_slot = slot;
}

int surand_test_fastpool_slot(unsigned slot, unsigned *count, uint64_t *events)
{
	struct fp_meta *m;

	if (surand_fastpool_nslots() == 0 || slot >= fp_nslots)
		return -1;
	m = &fp_meta[slot];
	while (__atomic_exchange_n(&m->lock, 1, __ATOMIC_ACQUIRE))
		sched_yield();
	if (count)
		*count = m->count;
	if (events)
		*events = m->events;
	__atomic_store_n(&m->lock, 0, __ATOMIC_RELEASE);
	return 0;
}
#endif
