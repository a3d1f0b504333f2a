/*
 * fastpool.c - per-CPU fast pools and surand_add_event().
 *
 * Sections: 1. the ARX mix; 2. slots, lock modes and set-up; 3. taking a slot
 * (the rseq trylock, the cross-CPU trylock); 4. spilling; 5. the event path;
 * 6. fork, stats, test hooks.
 *
 * An event (an unpredictable 64-bit value: a packet or interrupt timing) is
 * mixed into a 128-bit state of the calling CPU's slot with a cheap ARX
 * permutation; after 64 events or 1 s, whichever comes first, the slot's
 * 128 bits are spilled into the entropy pool, crediting at most 1 bit per
 * 64 events.  The slot is taken with a trylock: on contention (another thread
 * on this CPU slot, or a preempted writer) the event goes to another slot, so
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
#include <stddef.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* glibc 2.35+ registers an rseq area per thread: its cpu_id is the kernel's
 * own, one load from the thread pointer, cheaper than a sched_getcpu call. */
#if defined(__has_include)
#if __has_include(<sys/rseq.h>) && (defined(__x86_64__) || defined(__aarch64__))
#include <sys/rseq.h>
#define FP_HAVE_RSEQ 1
#endif
#endif

/* The restartable-sequence trylock (section 3): x86-64 only (the asm), with
 * the kernel's membarrier(2) RSEQ command for cross-CPU access.  aarch64 has
 * no rseq trylock here: it runs in xchg mode (below), still reading its CPU
 * number from the rseq area.  An arm64 sequence (RSEQ_SIG 0xd428bc00 as the
 * abort signature, an ldar for the lock check) could not be exercised: the
 * user-mode emulator the aarch64 tests run under does not implement rseq.
 * Not under ThreadSanitizer, which cannot see the lock taken inside an asm
 * statement: TSan builds use the xchg trylock everywhere. */
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define FP_TSAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define FP_TSAN 1
#endif
#if defined(FP_HAVE_RSEQ) && defined(__x86_64__) && !defined(FP_TSAN) && \
	defined(__has_include)
#if __has_include(<linux/membarrier.h>)
#include <linux/membarrier.h>
#if defined(__NR_membarrier)
#define FP_RSEQ_LOCK 1
#endif
#endif
#endif

#ifdef SURAND_TEST_BUILD
#include "test_hooks.h"
static int test_force_slot = -1;
static int test_drop_in_spill = -1; /* slot whose next spill finds its page dropped */
static unsigned long test_drops_in_spill;
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
#pragma GCC unroll 8
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

/* ==== 2. slots, lock modes and set-up =========================================
 *
 * Slots 0 .. fp_ncpu-1 belong to CPUs (slot c to CPU c; more possible CPUs
 * than FP_MAX_SLOTS share slots, cpu % fp_ncpu); slots fp_ncpu .. fp_nslots-1
 * are FP_SHARED extra slots for events whose CPU slot is busy.  Each slot has
 * two lock words in its fp_meta line: `lock` and `rlock`.  The mode, chosen
 * once at set-up (before fp_ready is published) and never changed after
 * (except by a test hook, with no event in flight), says how they are taken:
 *
 *   xchg mode (no rseq: GLIBC_TUNABLES=glibc.pthread.rseq=0, not x86-64, no
 *   membarrier RSEQ command, TSan builds): every slot's `lock` is a
 *   test-and-test-and-set trylock (__atomic_exchange_n, a locked RMW); an
 *   event tries its CPU's slot, then the next ones round the ring of all
 *   slots.  `rlock` stays 0.
 *
 *   rseq mode: a CPU slot's `lock` is taken ONLY by a thread running on that
 *   CPU, inside a restartable sequence (section 3) that commits with a plain
 *   store: no locked instruction, no store-buffer drain.  Anyone else (the
 *   stale-slot flush of a sampling round, test hooks) takes a CPU slot with
 *   `rlock` and the membarrier(2) protocol of section 3.  A busy CPU slot
 *   sends the event to the shared slots, which only ever use `lock` with xchg.
 */
#define FP_MAX_SLOTS 1024u  /* more possible CPUs share slots (cpu % slots) */
#define FP_SHARED 4u        /* extra slots for events whose CPU slot is busy */

struct fp_meta {            /* ordinary memory: locks and bookkeeping */
	uint32_t lock;          /* 0 free, 1 held (trylock only; section 2 says by whom) */
	uint32_t count;         /* events since the last spill (written under the lock) */
	uint32_t credit_rem;    /* spilled events not yet worth a credited bit */
	uint32_t rlock;         /* rseq mode, CPU slots: 1 held by a cross-CPU taker */
	uint64_t last_spill_ns; /* clock of the last spill (or of the slot's start) */
	uint64_t events;        /* events mixed here (stats: relaxed) */
	uint64_t spills;        /* spills of this slot (stats: relaxed) */
	uint64_t rseq_takes;    /* test build: events that took this slot with rseq */
	uint64_t spilled;       /* test build: events spilled or dropped (events == spilled + count) */
} __attribute__((aligned(SURAND_CACHELINE)));
_Static_assert(sizeof(struct fp_meta) == SURAND_CACHELINE, "one line per slot");

struct fp_state {           /* secmem: the secret 128 bits */
	uint32_t v[4];
	uint32_t valid;         /* enum surand_ready: READY_YES, or READY_EMPTY (0) */
	uint32_t reserved[11];
} __attribute__((aligned(SURAND_CACHELINE)));
_Static_assert(sizeof(struct fp_state) == SURAND_CACHELINE, "one line per slot");

static struct fp_meta *fp_meta;   /* fp_nslots entries */
static struct fp_state *fp_state; /* fp_nslots entries, secmem */
static unsigned fp_ncpu, fp_nslots; /* CPU slots; all slots (CPU + shared) */
static int fp_ready;              /* 0 not yet, 1 ready, -1 no memory: lock-free path only */
static int fp_rseq;               /* 1: rseq mode (set before fp_ready is published) */
static int fp_rseq_ok;            /* rseq mode possible here (what set-up found) */
static pthread_mutex_t fp_init_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t n_overflow;       /* events that took the lock-free path */
#ifdef SURAND_TEST_BUILD
static uint64_t n_remote_takes;   /* CPU slots taken with fp_remote_trylock */
#endif

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

#ifdef FP_RSEQ_LOCK
static long fp_membarrier(int cmd, unsigned flags, int cpu)
{
	return syscall(__NR_membarrier, cmd, flags, cpu);
}

/*
 * rseq mode needs glibc's rseq registration (__rseq_size != 0: not turned off
 * by GLIBC_TUNABLES=glibc.pthread.rseq=0, not refused by the kernel) and the
 * membarrier RSEQ command (Linux 5.10+), registered for this process.
 */
static int fp_rseq_usable(void)
{
	long q;
	int e = errno, ok = 0;

	if (__rseq_size != 0) {
		q = fp_membarrier(MEMBARRIER_CMD_QUERY, 0, 0);
		ok = q > 0 && (q & MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ) &&
		     fp_membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_RSEQ, 0, 0) == 0;
	}
	errno = e;
	return ok;
}
#endif

static pthread_once_t fp_atfork_once = PTHREAD_ONCE_INIT;

static void fp_atfork_once_fn(void)
{
	if (pthread_atfork(NULL, NULL, surand_fastpool_atfork_child) != 0)
		surand_warn("fast pools: pthread_atfork failed; a fork child may share them");
}

static void fp_atfork_register(void)
{
	pthread_once(&fp_atfork_once, fp_atfork_once_fn);
}

static __attribute__((noinline, cold)) int fp_setup(void)
{
	int st, r;
	unsigned n;

	surand_entropy_config(); /* surand_entropy_off_v is valid from here */
	fp_atfork_register(); /* before there is state to wipe */
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
		/* mmap, not malloc: the first event may come from a signal handler
		 * that interrupted malloc in this thread.  Page-aligned, zeroed. */
		fp_meta = mmap(NULL, (n + FP_SHARED) * sizeof(struct fp_meta), PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (fp_meta == MAP_FAILED)
			fp_meta = NULL;
		fp_state = surand_secmem_alloc((n + FP_SHARED) * sizeof(struct fp_state));
		if (fp_meta && fp_state) {
			fp_ncpu = n;
			fp_nslots = n + FP_SHARED;
#ifdef FP_RSEQ_LOCK
			fp_rseq_ok = fp_rseq_usable();
#endif
			fp_rseq = fp_rseq_ok; /* published with fp_ready (release; readers acquire) */
			r = 1;
		} else {
			if (fp_meta)
				munmap(fp_meta, (n + FP_SHARED) * sizeof(struct fp_meta));
			fp_meta = NULL;
			if (fp_state)
				surand_secmem_free(fp_state, (n + FP_SHARED) * sizeof(struct fp_state));
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
	s->valid = SURAND_READY_YES;
#ifdef SURAND_TEST_BUILD
	__atomic_store_n(&m->spilled, m->spilled + m->count, __ATOMIC_RELAXED); /* dropped */
#endif
	__atomic_store_n(&m->count, 0, __ATOMIC_RELAXED);
	m->credit_rem = 0;
	__atomic_store_n(&m->last_spill_ns, now, __ATOMIC_RELAXED);
}

/* ==== 3. taking a slot ==========================================================
 *
 * The rseq trylock (rseq mode, a thread on CPU c taking CPU slot c).
 * Sources: the kernel's rseq ABI, <linux/rseq.h> (struct rseq, struct
 * rseq_cs: version 0, flags, start_ip, post_commit_offset, abort_ip; the
 * descriptor 32-byte aligned; rseq_cs set by the thread, cleared by the
 * kernel), glibc's <sys/rseq.h> (__rseq_offset from the thread pointer,
 * __rseq_size, 0 when not registered) and <bits/rseq.h> (RSEQ_SIG 0x53053053
 * on x86, which the kernel requires in the 4 bytes before abort_ip, emitted
 * as the ud1 instruction 0f b9 3d <sig>), and membarrier(2) (Linux 5.10:
 * MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ with MEMBARRIER_CMD_FLAG_CPU).
 *
 * The sequence: store &descriptor into rseq->rseq_cs (the instant the store
 * is done the IP is start_ip, inside the range), then check rseq->cpu_id == c,
 * rlock == 0 and lock == 0, and commit with `movl $1, lock`, the last
 * instruction of the range.  If the thread is preempted, migrated or gets a
 * signal anywhere in [start_ip, commit), the kernel moves it to abort_ip
 * before it runs user code again: the commit never happens.  So from its
 * first check to its commit the sequence runs on CPU c with no other thread
 * of this process and no signal handler of this thread running on CPU c in
 * between.  After the sequence rseq_cs is cleared again (C, every exit), so
 * no thread keeps a pointer into this object (dlclose).
 *
 * Why this excludes every other taker, and how each holder's writes reach
 * the next on x86-64 (TSO) and aarch64: docs/entropy.md, "Why the fast
 * pools' trylock excludes".
 */

/* Test-and-test-and-set: a busy slot costs a read, not a write. */
static inline __attribute__((always_inline)) int fp_xchg_trylock(uint32_t *lock)
{
	/* Acquire on success: pairs with the holder's release store of 0. */
	return !__atomic_load_n(lock, __ATOMIC_RELAXED) &&
	       !__atomic_exchange_n(lock, 1, __ATOMIC_ACQUIRE);
}

#ifdef FP_RSEQ_LOCK
static inline __attribute__((always_inline)) struct rseq *fp_rseq_area(void)
{
	return (struct rseq *)((char *)__builtin_thread_pointer() + __rseq_offset);
}

/* CPU slot `cpu` from a thread that read rseq cpu_id == cpu: 1 taken, 0 busy,
 * -1 aborted or no longer on that CPU (the caller goes to a shared slot). */
static inline __attribute__((always_inline)) int fp_rseq_trylock(struct rseq *rs, struct fp_meta *m,
								 uint32_t cpu)
{
	__asm__ goto(
		/* the descriptor: version 0, flags 0, start_ip 1, post_commit_offset
		 * 2 - 1, abort_ip 4 (struct rseq_cs, <linux/rseq.h>) */
		".pushsection __rseq_cs, \"aw\"\n\t"
		".balign 32\n"
		"3:\n\t"
		".long 0, 0\n\t"
		".quad 1f, 2f - 1f, 4f\n\t"
		".popsection\n\t"
		"leaq 3b(%%rip), %%rax\n\t"
		"movq %%rax, %[rs_cs]\n"
		"1:\n\t"
		"cmpl %[cpu], %[rs_cpu]\n\t"
		"jne %l[aborted]\n\t"
		"cmpl $0, %[rlock]\n\t"
		"jne %l[busy]\n\t"
		"cmpl $0, %[lock]\n\t"
		"jne %l[busy]\n\t"
		"movl $1, %[lock]\n" /* the commit: the last instruction of the range */
		"2:\n\t"
		/* abort_ip, preceded by RSEQ_SIG as ud1 0x53053053(%%rip), %%edi */
		".pushsection __rseq_failure, \"ax\"\n\t"
		".byte 0x0f, 0xb9, 0x3d\n\t"
		".long 0x53053053\n"
		"4:\n\t"
		"jmp %l[aborted]\n\t"
		".popsection\n\t"
		:
		: [cpu] "r"(cpu), [rs_cpu] "m"(rs->cpu_id), [rs_cs] "m"(rs->rseq_cs),
		  [rlock] "m"(m->rlock), [lock] "m"(m->lock)
		: "rax", "memory", "cc"
		: busy, aborted);
	__atomic_store_n(&rs->rseq_cs, 0, __ATOMIC_RELAXED);
	return 1;
busy:
	__atomic_store_n(&rs->rseq_cs, 0, __ATOMIC_RELAXED);
	return 0;
aborted:
	__atomic_store_n(&rs->rseq_cs, 0, __ATOMIC_RELAXED);
	return -1;
}

/*
 * CPU slot `cpu` taken from anywhere (rseq mode): 1 taken (release rlock),
 * 0 busy, -1 not possible now (membarrier refused).  Never waits.  Keeps errno.
 */
static __attribute__((noinline)) int fp_remote_trylock(struct fp_meta *m, unsigned cpu)
{
	int e = errno, r = 1;

	if (!fp_xchg_trylock(&m->rlock))
		return 0;
	/* rlock = 1 is globally visible (xchg); now every owner's sequence on
	 * CPU c that could still commit has committed (see the banner). */
	if (fp_membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ, MEMBARRIER_CMD_FLAG_CPU, (int)cpu) != 0 &&
	    !(errno == EPERM &&
	      fp_membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_RSEQ, 0, 0) == 0 &&
	      fp_membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ, MEMBARRIER_CMD_FLAG_CPU,
			    (int)cpu) == 0))
		r = -1; /* no proof that no owner commits: back off */
	else if (__atomic_load_n(&m->lock, __ATOMIC_ACQUIRE))
		r = 0;  /* the owner holds it: its writer spills it */
	if (r != 1)
		__atomic_store_n(&m->rlock, 0, __ATOMIC_RELEASE);
#ifdef SURAND_TEST_BUILD
	else
		SURAND_COUNT(n_remote_takes);
#endif
	errno = e;
	return r;
}
#endif

/* Slot i from any thread on any CPU: 1 taken (*held: the word to release),
 * 0 busy, -1 not possible now.  Never waits. */
static int fp_trylock_any(unsigned i, uint32_t **held)
{
	struct fp_meta *m = &fp_meta[i];

#ifdef FP_RSEQ_LOCK
	if (fp_rseq && i < fp_ncpu) {
		int r = fp_remote_trylock(m, i);

		if (r == 1)
			*held = &m->rlock;
		return r;
	}
#endif
	if (!fp_xchg_trylock(&m->lock))
		return 0;
	*held = &m->lock;
	return 1;
}

/* ==== 4. spilling =============================================================== */

/*
 * Called with the slot held (*held == 1); releases it.  The 128 bits go to
 * the pool with floor((carried + count) / 64) credited bits, the rest carried.
 */
static __attribute__((noinline)) void fp_spill_unlock(struct fp_meta *m, struct fp_state *s,
						      uint64_t now, uint32_t *held)
{
	uint32_t v[4], c;
	unsigned credit;

	memcpy(v, s->v, sizeof(v));
#ifdef SURAND_TEST_BUILD
	{ /* surand_test_fastpool_drop_in_spill: the page drops after the copy */
		int drop = __atomic_load_n(&test_drop_in_spill, __ATOMIC_RELAXED);

		if (SURAND_UNLIKELY(drop >= 0) && (unsigned)drop < fp_nslots && s == &fp_state[drop] &&
		    __atomic_compare_exchange_n(&test_drop_in_spill, &drop, -1, 0, __ATOMIC_RELAXED,
						__ATOMIC_RELAXED)) {
			surand_wipe(s, sizeof(*s)); /* reads as zeros, valid == 0 */
			__atomic_store_n(&test_drops_in_spill, test_drops_in_spill + 1,
					 __ATOMIC_RELAXED);
		}
	}
#endif
	c = m->credit_rem + m->count;
#ifdef SURAND_TEST_BUILD
	__atomic_store_n(&m->spilled, m->spilled + m->count, __ATOMIC_RELAXED);
#endif
	credit = c / SURAND_FP_EVENTS_PER_CREDIT_BIT;
	m->credit_rem = c % SURAND_FP_EVENTS_PER_CREDIT_BIT;
	__atomic_store_n(&m->count, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&m->last_spill_ns, now, __ATOMIC_RELAXED);
	__atomic_store_n(&m->spills, m->spills + 1, __ATOMIC_RELAXED);
	/* Order the copy before the re-check: a dropped page reads valid == 0. */
	SURAND_LOAD_FENCE();
	if (SURAND_UNLIKELY(!surand_ready(__atomic_load_n(&s->valid, __ATOMIC_RELAXED))))
		credit = 0; /* the state we copied may be zeros: mix, never credit it */
	__atomic_store_n(held, 0, __ATOMIC_RELEASE);
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

/* ==== 5. the event path ========================================================= */

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

/* With slot i held (*held): mixes the event in, spills when due, releases. */
static inline __attribute__((always_inline)) void fp_mix_unlock(unsigned i, uint64_t spread,
								 uint32_t *held)
{
	struct fp_meta *m = &fp_meta[i];
	struct fp_state *s = &fp_state[i];
	uint64_t now = surand_now_ns();
	uint32_t count;

	if (SURAND_UNLIKELY(!surand_ready(s->valid)))
		fp_slot_restart(m, s, now);
	fp_inject(s->v, spread);
	count = m->count + 1;
	__atomic_store_n(&m->count, count, __ATOMIC_RELAXED);
	__atomic_store_n(&m->events, m->events + 1, __ATOMIC_RELAXED);
	/* Spill at 64 events or 1 s; never from inside the pool lock (a signal
	 * handler that interrupted this thread there): the next event spills. */
	if (SURAND_UNLIKELY(count >= SURAND_FP_SPILL_EVENTS ||
			    now - m->last_spill_ns >= SURAND_FP_SPILL_NS) &&
	    SURAND_LIKELY(!surand_entropy_nest)) {
		fp_spill_unlock(m, s, now, held);
		return;
	}
	__atomic_store_n(held, 0, __ATOMIC_RELEASE); /* the slot's writes before the free lock */
}

/*
 * Every event the rseq trylock did not take: xchg mode (the CPU's slot, then
 * round the ring of all slots), or rseq mode with the CPU slot busy (the ring
 * of shared slots).  `slot` is where to start; `forced` (test build): try it
 * first, from anywhere.
 */
static __attribute__((noinline)) void fp_add_ring(uint64_t value, uint64_t spread, unsigned slot,
						  int forced)
{
	unsigned lo = 0, n = fp_nslots, i;
	uint32_t *held;

	if (forced && fp_trylock_any(slot, &held) == 1) {
		fp_mix_unlock(slot, spread, held);
		return;
	}
	if (fp_rseq) {
		lo = fp_ncpu;
		slot = lo + slot % FP_SHARED;
	}
	for (i = lo;; i++) {
		if (fp_xchg_trylock(&fp_meta[slot].lock))
			break;
		if (SURAND_UNLIKELY(i + 1 >= n)) {
			fp_overflow(value);
			return;
		}
		if (++slot == n)
			slot = lo;
	}
	fp_mix_unlock(slot, spread, &fp_meta[slot].lock);
}

static inline __attribute__((always_inline)) void add_event(uint64_t value)
{
	unsigned slot;
	uint64_t spread = fp_spread(value);
	int cpu, forced = 0;

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
	cpu = fp_cpu();
	slot = cpu >= 0 ? (unsigned)cpu : 0; /* -1: no CPU number here */
	if (SURAND_UNLIKELY(slot >= fp_ncpu))
		slot %= fp_ncpu; /* NOLINT(clang-analyzer-core.DivideZero): fp_ready == 1 means fp_ncpu >= 1 */
#ifdef SURAND_TEST_BUILD
	if (test_force_slot >= 0) {
		slot = (unsigned)test_force_slot % fp_nslots;
		forced = 1;
	}
#endif
#ifdef FP_RSEQ_LOCK
	/* rseq mode: this CPU's own slot (exactly; shared by no other CPU). */
	if (SURAND_LIKELY(fp_rseq) && SURAND_LIKELY((unsigned)cpu == slot)) {
		struct fp_meta *m = &fp_meta[slot];

		if (SURAND_LIKELY(fp_rseq_trylock(fp_rseq_area(), m, (uint32_t)cpu) > 0)) {
#ifdef SURAND_TEST_BUILD
			/* under the slot lock; read by tests */
			__atomic_store_n(&m->rseq_takes, m->rseq_takes + 1, __ATOMIC_RELAXED);
#endif
			fp_mix_unlock(slot, spread, &m->lock);
			return;
		}
		/* Busy (a preempted holder, or this thread interrupted while holding
		 * it) or aborted (preempted, migrated or signalled in the few
		 * instructions of the sequence): the shared slots.  A forced slot
		 * (test build) is tried once more from anywhere first. */
	}
#endif
	fp_add_ring(value, spread, slot, forced);
}

/* Under the busy mark: a handler that draws while the fast pools are set up
 * here takes the kernel path. */
SURAND_API void surand_add_event(uint64_t value)
{
	uintptr_t saved;

	SURAND_MARK_BUSY(saved);

	add_event(value);
	SURAND_UNMARK_BUSY(saved);
}

/* Spills the slots that hold events and are older than 1 s: a sampling round. */
void surand_fastpool_flush_stale(uint64_t now_ns)
{
	struct fp_meta *m;
	uint32_t *held;
	unsigned i;

	if (__atomic_load_n(&fp_ready, __ATOMIC_ACQUIRE) != 1 || surand_entropy_nest)
		return;
	for (i = 0; i < fp_nslots; i++) {
		m = &fp_meta[i];
		/* A hint read without the lock (so an idle slot costs no membarrier);
		 * re-checked once the slot is held. */
		if (!__atomic_load_n(&m->count, __ATOMIC_RELAXED) ||
		    now_ns - __atomic_load_n(&m->last_spill_ns, __ATOMIC_RELAXED) < SURAND_FP_SPILL_NS)
			continue;
		if (fp_trylock_any(i, &held) != 1)
			continue; /* busy: its writer spills it */
		if (m->count && surand_ready(fp_state[i].valid) &&
		    now_ns - m->last_spill_ns >= SURAND_FP_SPILL_NS)
			fp_spill_unlock(m, &fp_state[i], now_ns, held);
		else
			__atomic_store_n(held, 0, __ATOMIC_RELEASE);
	}
}

/* ==== 6. fork, stats, test hooks ================================================ */

void surand_fastpool_atfork_child(void)
{
	unsigned i;

	pthread_mutex_init(&fp_init_lock, NULL);
	if (__atomic_load_n(&fp_ready, __ATOMIC_ACQUIRE) == 1) {
		/* Locks a parent thread held are free; states restart empty
		 * (already zero where wipe-on-fork works; explicit for kind -1).
		 * The child keeps the mode: the kernel keeps the thread's rseq
		 * registration and the process's membarrier registration in a
		 * fork child (and fp_remote_trylock registers again on EPERM). */
		memset(fp_meta, 0, fp_nslots * sizeof(struct fp_meta));
		for (i = 0; i < fp_nslots; i++)
			surand_wipe(&fp_state[i], sizeof(fp_state[i]));
	}
	n_overflow = 0;
#ifdef SURAND_TEST_BUILD
	n_remote_takes = 0;
#endif
}

/* The sum over all slots of one uint64_t counter of struct fp_meta. */
static uint64_t fp_meta_sum(size_t offset)
{
	uint64_t sum = 0;
	unsigned i;

	if (__atomic_load_n(&fp_ready, __ATOMIC_ACQUIRE) == 1)
		for (i = 0; i < fp_nslots; i++)
			sum += SURAND_LOAD(*(uint64_t *)((char *)&fp_meta[i] + offset));
	return sum;
}

uint64_t surand_fastpool_events(void)
{
	return SURAND_LOAD(n_overflow) + fp_meta_sum(offsetof(struct fp_meta, events));
}

uint64_t surand_fastpool_spills(void)
{
	return fp_meta_sum(offsetof(struct fp_meta, spills));
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

unsigned long surand_test_fastpool_drop_in_spill(int slot)
{
	__atomic_store_n(&test_drop_in_spill, slot, __ATOMIC_RELAXED);
	return __atomic_load_n(&test_drops_in_spill, __ATOMIC_RELAXED);
}

int surand_test_fastpool_slot(unsigned slot, unsigned *count, uint64_t *events)
{
	struct fp_meta *m;
	uint32_t *held;
	int r;

	if (surand_fastpool_nslots() == 0 || slot >= fp_nslots)
		return -1;
	m = &fp_meta[slot];
	while ((r = fp_trylock_any(slot, &held)) == 0)
		sched_yield();
	if (r < 0)
		return -1;
	if (count)
		*count = m->count;
	if (events)
		*events = m->events;
	__atomic_store_n(held, 0, __ATOMIC_RELEASE);
	return 0;
}

int surand_test_fastpool_rseq(int on)
{
	if (surand_fastpool_nslots() == 0)
		return -1;
	if (on >= 0)
		__atomic_store_n(&fp_rseq, on && fp_rseq_ok, __ATOMIC_RELAXED);
	return fp_rseq;
}

unsigned surand_test_fastpool_cpu_slots(void)
{
	return surand_fastpool_nslots() ? fp_ncpu : 0;
}

uint64_t surand_test_fastpool_rseq_takes(void)
{
	return fp_meta_sum(offsetof(struct fp_meta, rseq_takes));
}

uint64_t surand_test_fastpool_remote_takes(void)
{
	return SURAND_LOAD(n_remote_takes);
}

int surand_test_fastpool_inconsistent(void)
{
	uint32_t *held;
	unsigned i;
	int bad = 0, r;

	if (surand_fastpool_nslots() == 0)
		return -1;
	for (i = 0; i < fp_nslots; i++) {
		while ((r = fp_trylock_any(i, &held)) == 0)
			sched_yield();
		if (r < 0)
			return -1;
		if (fp_meta[i].events != fp_meta[i].spilled + fp_meta[i].count)
			bad++;
		__atomic_store_n(held, 0, __ATOMIC_RELEASE);
	}
	return bad;
}
#endif

/* A sampling round spills the stale slots. */
static void events_collect(void)
{
	surand_fastpool_flush_stale(surand_now_ns());
}

static void events_stats(struct surand_entropy_source_stats *out)
{
	out->c.samples = surand_fastpool_events();
	out->c.overflow = surand_fastpool_overflow();
}

/* No atfork member: the fast pools register their own handler (fp_setup),
 * as they may be set up before the library's constructor runs. */
const struct surand_input_source surand_source_events = {
	.id = SURAND_ES_EVENTS,
	.collect = events_collect,
	.stats = events_stats,
};
