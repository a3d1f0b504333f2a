/*
 * api.c - the public API: the front end over the chosen backend.
 *
 * Sections:
 *   1. choosing the backend, once; fork handling
 *   2. the per-thread in-use flag: signal reentrancy, thread exit
 *   3. bytes: surand_bytes, surand_getrandom, surand_getentropy
 *   4. integers and doubles
 *   5. control and stats
 *
 * The front end knows designs only through the vtable (gen/backend.h).
 * SPDX-License-Identifier: MIT
 */
#include "gen/backend.h"
#include "gen/thread_fast.h" /* the default design's u32/u64 path, inlined */
#include "entropy/entropy.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

/* ==== 1. set-up, once, in the library constructor ============================
 *
 * Everything that is done once per process - the environment, the CPU's
 * ChaCha20 body, the thread-exit key, the fork handlers, the vDSO lookup, the
 * memory kind and the backend's own set-up - runs in the constructor, before
 * main() and before any signal handler can call in.  None of it is
 * async-signal-safe (pthread_once, pthread_key_create, pthread_atfork,
 * dlopen, malloc in some backends), so none of it may run inside a call that
 * a handler makes.  A program whose own constructors call surand before this
 * one ran (static linking orders constructors by link order) takes the lazy
 * path: the same set-up on its first call, under the busy mark, so a handler
 * that interrupts it takes the kernel path.
 */

static const struct surand_backend *active;       /* the backend in use */
static int served;                                 /* 1: a call was served (set_backend: EBUSY) */
static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t exit_key;
static int setup_done;                             /* 1 once setup_locked() succeeded */
static int init_err;
static char backend_names[256];                    /* surand_backend_names(): built at set-up */
static uint64_t n_fallback_signal, n_kernel_only, n_abandoned;

static void atfork_child(void)
{
	const struct surand_backend *be = __atomic_load_n(&active, __ATOMIC_ACQUIRE);

	/* Locks another parent thread held at fork() are re-initialised, and
	 * every secret inherited from the parent is dropped or made stale. */
	surand_fork_generation++;
	pthread_mutex_init(&init_lock, NULL);
	surand_kernel_atfork_child();
	surand_base_atfork_child();
	if (be && be->atfork_child)
		be->atfork_child();
	n_fallback_signal = 0;
	n_kernel_only = 0;
	n_abandoned = 0;
}

static void thread_exit_destructor(void *unused);

static void names_build(void)
{
	size_t i, off = 0;

	SURAND_TEST_POINT(SURAND_TP_NAMES);
	for (i = 0; surand_backends[i] && off + 20 < sizeof(backend_names); i++)
		off += (size_t)snprintf(backend_names + off, sizeof(backend_names) - off, "%s%s",
					i ? "," : "", surand_backends[i]->name);
}

static const struct surand_backend *choose(void)
{
	const struct surand_config *cfg = surand_config();
	const struct surand_backend *be = NULL;

	if (cfg->backend) {
		be = surand_backend_find(cfg->backend);
		if (!be)
			surand_warn("SURAND_BACKEND=%.32s is unknown (valid: %s); using %s",
				    /* NOLINTNEXTLINE(clang-analyzer-core.NullDereference): the registry is never empty */
				    cfg->backend, backend_names, surand_backends[0]->name);
	}
	return be ? be : surand_backends[0];
}

/* The one-time set-up; init_lock held, the thread marked busy.  0 or -errno. */
static int setup_locked(void)
{
	const struct surand_backend *be;
	int r = 0;

	if (setup_done)
		return 0;
	SURAND_TEST_POINT(SURAND_TP_SETUP);
	names_build();
	(void)surand_config();             /* the environment, once */
	surand_entropy_config();           /* the entropy sources' switch, once */
	(void)surand_chacha20_impl_name(); /* CPU features and the ChaCha20 body */
	surand_entropy_atfork_register();  /* the entropy pool's fork handler */
	(void)surand_vdso_available();     /* the vDSO lookup (dlopen) */
	surand_secmem_probe();             /* which memory kind holds secrets */
	/* The key before the application creates its own: a key index below 32
	 * lets pthread_setspecific store without calloc in every thread. */
	if (pthread_key_create(&exit_key, thread_exit_destructor) != 0)
		r = -EAGAIN;
	if (r == 0 && pthread_atfork(NULL, NULL, atfork_child) != 0)
		r = -ENOMEM;
	if (r == 0) {
		be = choose();
		if (be->init)
			r = be->init();
		if (r == 0) {
			__atomic_store_n(&active, be, __ATOMIC_RELEASE);
			setup_done = 1;
		}
	}
	init_err = r;
	return r;
}

/* ==== 2. the per-thread call state ==========================================
 *
 * One word per thread: NEW (no call yet: the exit destructor is registered
 * at the first), IDLE, KERNEL (this process has no wipe-on-fork memory: every
 * call is served by the kernel, see below), EXITED (the thread's exit
 * destructor has run: the kernel serves what later destructors draw), or,
 * inside a call, the busy mark: the call's frame address, tagged with bits
 * of its return address, in one store (internal.h).  A call that finds the
 * word busy was either made by a signal handler that interrupted this thread's call (its
 * stack pointer lies below the busy one) and takes the lock-free kernel path,
 * so it never deadlocks on a backend's lock and never returns bytes the
 * interrupted call also returns; or the busy call was left by a siglongjmp
 * out of a handler (the stack pointer is back at or above it): then the mark
 * is recovered, see recover_abandoned().
 */
enum { TS_NEW = 0, TS_IDLE = 1, TS_KERNEL = 2, TS_EXITED = 3, TS_BUSY_MIN = 16 };
/* The inline path (surand.h) draws only while the word reads idle. */
_Static_assert(TS_IDLE == SURAND_INLINE_IDLE, "inline ABI 1 and 2: the idle mark");
/* The words themselves: src/callstate.c. */
#define tls_state surand_call_state

/* Set-up for a caller that came before the constructor (or whose constructor
 * failed); the caller holds the busy mark.  NULL: no backend (init_err). */
static const struct surand_backend *setup_lazy(void)
{
	const struct surand_backend *be;
	int st;

	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &st);
	surand_mutex_lock(&init_lock);
	(void)setup_locked();
	be = __atomic_load_n(&active, __ATOMIC_ACQUIRE);
	surand_mutex_unlock(&init_lock);
	pthread_setcancelstate(st, NULL);
	return be;
}

__attribute__((constructor)) static void surand_setup_ctor(void)
{
	uintptr_t saved = tls_state;

	SURAND_SET_BUSY();
	(void)setup_lazy(); /* a failure is retried (and reported) by the first call */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	tls_state = saved;
}

static void thread_exit_destructor(void *unused)
{
	const struct surand_backend *be = __atomic_load_n(&active, __ATOMIC_ACQUIRE);

	(void)unused;
	/* Busy while the backend's exit takes its locks: a handler that draws
	 * in between takes the kernel path instead of deadlocking on them. */
	SURAND_SET_BUSY();
	if (be && be->thread_exit)
		be->thread_exit();
	surand_vdso_thread_exit();
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	/* Exited: a draw from a later destructor (another key's) goes to the
	 * kernel and takes no slot, which this destructor, maybe run in the C
	 * library's last round, would never give back or wipe. */
	tls_state = TS_EXITED;
}

/* The kernel path: lock-free, async-signal-safe. 0 or -errno. */
static int kernel_path(void *buf, size_t len)
{
	if (surand_vdso_fill_nested(buf, len) == 0)
		return 0;
	return surand_kernel_fill(buf, len, 0);
}

/*
 * A call found the busy mark.  Either a signal handler interrupted this
 * thread's call and calls in (nested), or an earlier call was left by a
 * siglongjmp (or longjmp) out of a handler and never cleared its mark
 * (abandoned).  Nested: the busy call's frame is live above ours, so our
 * frame address is below its one and its return address is still in place.
 * Abandoned: our frame is at or above its one (it was popped), or its return
 * address slot was overwritten since.  The mark is taken back only when the
 * call is certainly abandoned and it is safe: not on an alternate signal
 * stack (addresses of two stacks do not compare), and with no surand lock
 * held (the abandoned call never releases it: the thread then stays on the
 * kernel path, which needs none).  An abandoned call may have left this
 * thread's backend state half-written, so that state is dropped: the next
 * call re-keys from the base.  In doubt the answer is "nested": the kernel
 * path is always safe.  1: recovered (the state word is IDLE or KERNEL).
 */
static __attribute__((noinline, cold)) int recover_abandoned(uintptr_t busy, uintptr_t cfa)
{
	const struct surand_backend *be = __atomic_load_n(&active, __ATOMIC_ACQUIRE);
	int tagged = (busy & SURAND_INLINE_MARK_TAGGED) != 0;
	uintptr_t busy_cfa = busy;
	stack_t ss;

	if (tagged)
		busy_cfa &= ((uintptr_t)1 << SURAND_INLINE_MARK_CFA_BITS) - 1;
	if (cfa < busy_cfa) {
#if defined(__x86_64__)
		/* The return address sits just below the canonical frame address.
		 * An untagged mark (a header of ABI 1, a stack above 2^48) has no
		 * bits to compare: nested. */
		if (!tagged || surand_inline_mark_(busy_cfa, *(const uintptr_t *)(busy_cfa -
										  sizeof(uintptr_t))) == busy)
			return 0; /* live above us: a handler interrupted it */
#else
		return 0; /* no cheap liveness check here: assume nested */
#endif
	}
	if (sigaltstack(NULL, &ss) != 0 || (ss.ss_flags & SS_ONSTACK))
		return 0; /* can't tell on an alternate stack */
	if (surand_locks_held != 0)
		return 0; /* a lock the abandoned call will never release */
	SURAND_SET_BUSY();
	if (be && be->thread_exit)
		be->thread_exit(); /* half-written per-thread state is never used */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	/* New: the next draw registers the thread again (the abandoned call may
	 * have been its first, left before the exit destructor was set). */
	tls_state = TS_NEW;
	SURAND_COUNT(n_abandoned);
	return 1;
}

/* cfa, ret: the public entry point's frame (SURAND_HERE_CFA/RET). */
static __attribute__((noinline, cold)) int fill_slow(void *buf, size_t len, uintptr_t cfa,
						     uintptr_t ret)
{
	const struct surand_backend *be;
	uintptr_t st = tls_state;
	int r;

	if (st >= TS_BUSY_MIN && !recover_abandoned(st, cfa)) {
		SURAND_COUNT(n_fallback_signal);
		return kernel_path(buf, len);
	}
	if (tls_state == TS_KERNEL) {
		/*
		 * No wipe-on-fork memory here (a kernel before 4.14, some
		 * sandboxes): a child made by _Fork(), a raw clone() or before
		 * our atfork handler ran would repeat the parent's state, and
		 * checking the process id on every call costs a syscall anyway.
		 * So the kernel serves every call (fail safe: its CRNG forks
		 * correctly).
		 */
		SURAND_COUNT(n_kernel_only);
		return kernel_path(buf, len);
	}
	if (tls_state == TS_EXITED)
		return kernel_path(buf, len); /* the thread's exit destructor has run */
	be = __atomic_load_n(&active, __ATOMIC_ACQUIRE);
	if (!be) {
		/* Before the constructor ran: set up here, marked busy, so a
		 * nested call during set-up takes the kernel path. */
		SURAND_BUSY_AT(cfa, ret);
		be = setup_lazy();
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		tls_state = TS_NEW;
		if (!be)
			return init_err ? init_err : -EAGAIN;
	}
	if (tls_state == TS_NEW) {
		SURAND_BUSY_AT(cfa, ret);
		SURAND_TEST_POINT(SURAND_TP_FIRST_CALL);
		/* The key was made in the constructor (index below 32 unless
		 * the library was loaded after 32 keys existed): no calloc. */
		(void)pthread_setspecific(exit_key, (void *)1);
		/* Served, and the design read, under init_lock, where
		 * surand_set_backend() checks and switches: a switch comes
		 * wholly before this first draw, or it is refused. */
		surand_mutex_lock(&init_lock);
		__atomic_store_n(&served, 1, __ATOMIC_SEQ_CST);
		be = __atomic_load_n(&active, __ATOMIC_ACQUIRE);
		surand_mutex_unlock(&init_lock);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		tls_state = surand_secmem_kind() < 0 ? TS_KERNEL : TS_IDLE;
		if (tls_state == TS_KERNEL) {
			SURAND_COUNT(n_kernel_only);
			return kernel_path(buf, len);
		}
	}
	SURAND_BUSY_AT(cfa, ret);
	SURAND_TEST_POINT(SURAND_TP_BACKEND); /* tests interrupt each path here */
	r = be->fill(buf, len);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	tls_state = TS_IDLE;
	return r;
}

/* 0 or -errno: fills buf[0..len) from the backend, never unseeded.  Always
 * inlined into the public entry point, whose frame the mark names. */
static inline __attribute__((always_inline)) int fill(void *buf, size_t len)
{
	const struct surand_backend *be = __atomic_load_n(&active, __ATOMIC_ACQUIRE);
	int r;

	/* IDLE: this thread registered, so set-up is done and be is set. */
	if (SURAND_LIKELY(tls_state == TS_IDLE)) {
		/* The mark is set before the backend runs, as a handler sees it. */
		SURAND_SET_BUSY();
		/* The default design's 1..32-byte path inlined; the rest, and
		 * what it declines, through the vtable. */
		if (SURAND_LIKELY(be == &surand_backend_thread) &&
		    SURAND_LIKELY(surand_thread_fill_fast(buf, len) == 0))
			r = 0;
		else {
			SURAND_TEST_POINT(SURAND_TP_BACKEND); /* tests interrupt each path here */
			r = be->fill(buf, len);
		}
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		tls_state = TS_IDLE;
		return r;
	}
	return fill_slow(buf, len, SURAND_HERE_CFA, SURAND_HERE_RET);
}

/* ==== 3. bytes =============================================================== */

/* Fail closed: never zeros, never a guessable stream. */
static __attribute__((noinline, cold, noreturn)) void bytes_failed(void *buf, size_t len, int r)
{
	surand_wipe(buf, len);
	errno = -r;
	surand_fatal("no seed from the kernel (getrandom(2) and /dev/urandom both refused)");
}

static inline __attribute__((always_inline)) void bytes_impl(void *buf, size_t len)
{
	int r;

	if (SURAND_UNLIKELY(len == 0))
		return;
	if (SURAND_UNLIKELY(buf == NULL))
		surand_fatal("surand_bytes: NULL buffer");
	r = fill(buf, len);
	if (SURAND_UNLIKELY(r != 0))
		bytes_failed(buf, len, r);
}

SURAND_API void surand_bytes(void *buf, size_t len)
{
	bytes_impl(buf, len);
}

/* The calls with an error return: 0, or -1 with errno and nothing left in buf. */
static int fill_or_errno(void *buf, size_t len)
{
	int r = fill(buf, len);

	if (SURAND_UNLIKELY(r != 0)) {
		surand_wipe(buf, len);
		errno = -r;
		return -1;
	}
	return 0;
}

SURAND_API ssize_t surand_getrandom(void *buf, size_t len, unsigned int flags)
{
	const unsigned known = SURAND_GRND_NONBLOCK | SURAND_GRND_RANDOM | SURAND_GRND_INSECURE;
	uint8_t probe;
	int r, ready;

	/* The kernel's order (drivers/char/random.c): flags, then readiness,
	 * then the buffer, so a zero-length call before readiness answers as
	 * getrandom(2) does (EAGAIN, or a wait), not 0. */
	if ((flags & ~known) ||
	    (flags & (SURAND_GRND_INSECURE | SURAND_GRND_RANDOM)) ==
		    (SURAND_GRND_INSECURE | SURAND_GRND_RANDOM)) {
		errno = EINVAL;
		return -1;
	}
	ready = surand_kernel_ready();
	if (SURAND_UNLIKELY(!ready) && !(flags & SURAND_GRND_INSECURE)) {
		/* Ask the kernel again, as getrandom(2) would: a non-blocking
		 * one-byte read says EAGAIN (or why no seed can be had at all);
		 * a blocking one returns once the CRNG is ready. */
		r = surand_kernel_fill(&probe, 1, flags & SURAND_GRND_NONBLOCK);
		surand_wipe(&probe, 1);
		if (r != 0) {
			errno = -r;
			return -1;
		}
		ready = 1;
	}
	if (len == 0)
		return 0;
	if (!buf) {
		errno = EFAULT;
		return -1;
	}
	if (len > SSIZE_MAX)
		len = SSIZE_MAX;
	if (SURAND_UNLIKELY(!ready)) {
		/* GRND_INSECURE before readiness: the kernel's best effort, as
		 * is, and never a wait (the fallback skips the readiness poll). */
		r = surand_kernel_fill(buf, len, SURAND_GRND_INSECURE);
		if (r != 0) {
			errno = -r;
			return -1;
		}
		return (ssize_t)len;
	}
	if (fill_or_errno(buf, len) != 0)
		return -1;
	return (ssize_t)len;
}

SURAND_API int surand_getentropy(void *buf, size_t len)
{
	if (len > 256) {
		errno = EIO;
		return -1;
	}
	if (len == 0)
		return 0;
	if (!buf) {
		errno = EFAULT;
		return -1;
	}
	return fill_or_errno(buf, len);
}

/* ==== 4. integers and doubles ================================================ */

/*
 * n (4 or 8) random bytes as an integer, in the byte order a buffer draw
 * would give.  The backend's optional word() serves the common case in
 * registers, under the same in-use flag as fill(); anything it declines goes
 * through fill() on a local, which never fails (see surand_bytes).
 */
/* What word() declined: a draw through fill() on a local, which never fails. */
static __attribute__((noinline)) uint64_t word_slow(unsigned n)
{
	uint64_t v;
	uint32_t x;

	if (n == 4) {
		bytes_impl(&x, sizeof(x));
		return x;
	}
	bytes_impl(&v, sizeof(v));
	return v;
}

static inline __attribute__((always_inline)) uint64_t word_impl(unsigned n)
{
	const struct surand_backend *be = __atomic_load_n(&active, __ATOMIC_ACQUIRE);
	struct surand_word w = {0, 0};

	if (SURAND_LIKELY(tls_state == TS_IDLE)) {
		SURAND_SET_BUSY();
		/* The default design inlined (one predictable branch, no
		 * indirect call); any other through its optional member. */
		if (SURAND_LIKELY(be == &surand_backend_thread))
			w = surand_thread_word(n);
		else if (be->word) {
			SURAND_TEST_POINT(SURAND_TP_BACKEND); /* tests interrupt each path here */
			w = be->word(n);
		}
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		tls_state = TS_IDLE;
		if (SURAND_LIKELY(w.ok))
			return w.v;
	}
	return word_slow(n);
}

SURAND_API uint32_t surand_u32(void)
{
	return (uint32_t)word_impl(4);
}

SURAND_API uint64_t surand_u64(void)
{
	return word_impl(8);
}

/*
 * Lemire's nearly divisionless method ("Fast Random Integer Generation in an
 * Interval", 2019): the high half of x * bound is uniform once products whose
 * low half falls below 2^64 mod bound are rejected.
 */
SURAND_API uint64_t surand_uniform(uint64_t upper_bound)
{
	unsigned __int128 m;
	uint64_t low, threshold;

	if (upper_bound <= 1)
		return 0;
	m = (unsigned __int128)surand_u64() * upper_bound;
	low = (uint64_t)m;
	if (low < upper_bound) {
		threshold = (0 - upper_bound) % upper_bound;
		while (low < threshold) {
			m = (unsigned __int128)surand_u64() * upper_bound;
			low = (uint64_t)m;
		}
	}
	return (uint64_t)(m >> 64);
}

SURAND_API double surand_double(void)
{
	return (double)(surand_u64() >> 11) * 0x1.0p-53;
}

/*
 * Integers in bulk: the words are the bytes of one large draw, which from
 * DIRECT_MIN_BYTES on is a one-use key's keystream written straight into
 * out (the ChaCha20 body's speed).  Chunks keep n * size from overflowing
 * and, for surand_uniform_n, the words in cache between the draw and the
 * multiply.
 */
#define BULK_CHUNK_BYTES (64u * 1024u)

static inline __attribute__((always_inline)) void words_impl(void *out, size_t n, size_t size,
							      const char *name)
{
	uint8_t *p = out;
	size_t m;

	if (SURAND_UNLIKELY(n == 0))
		return;
	if (SURAND_UNLIKELY(out == NULL))
		surand_fatal(name);
	while (n) {
		m = n < SIZE_MAX / size ? n : SIZE_MAX / size;
		bytes_impl(p, m * size);
		p += m * size;
		n -= m;
	}
}

SURAND_API void surand_u32s(uint32_t *out, size_t n)
{
	words_impl(out, n, sizeof(*out), "surand_u32s: NULL buffer");
}

SURAND_API void surand_u64s(uint64_t *out, size_t n)
{
	words_impl(out, n, sizeof(*out), "surand_u64s: NULL buffer");
}

/* surand_uniform's method over a chunk of words drawn at once; the
 * threshold (2^64 mod bound) is computed once per call instead of per
 * rejection candidate. */
SURAND_API void surand_uniform_n(uint64_t *out, size_t n, uint64_t upper_bound)
{
	const size_t chunk = BULK_CHUNK_BYTES / sizeof(uint64_t);
	unsigned __int128 m;
	uint64_t threshold;
	size_t i, c;

	if (SURAND_UNLIKELY(n == 0))
		return;
	if (SURAND_UNLIKELY(out == NULL))
		surand_fatal("surand_uniform_n: NULL buffer");
	if (upper_bound <= 1) {
		for (i = 0; i < n; i++)
			out[i] = 0;
		return;
	}
	threshold = (0 - upper_bound) % upper_bound;
	for (; n; out += c, n -= c) {
		c = n < chunk ? n : chunk;
		bytes_impl(out, c * sizeof(uint64_t));
		for (i = 0; i < c; i++) {
			m = (unsigned __int128)out[i] * upper_bound;
			/* A biased product is replaced by a fresh draw, never kept. */
			while (SURAND_UNLIKELY((uint64_t)m < threshold))
				m = (unsigned __int128)surand_u64() * upper_bound;
			out[i] = (uint64_t)(m >> 64);
		}
	}
}

/* ==== 5. control and stats ===================================================
 *
 * The control calls take locks too (the base lock, a backend's, init_lock).
 * While one runs, the thread counts as busy, so a signal handler's call in
 * between takes the lock-free kernel path instead of a lock this thread
 * already holds (a handler that drew during surand_reseed() deadlocked:
 * tests/test_storms.c); a control call nested in another call refuses with
 * EAGAIN, never deadlocks.  surand_call_enter/leave (internal.h) are the
 * same mark for the entry points outside this file.
 */
int surand_call_enter(uintptr_t *saved, uintptr_t cfa, uintptr_t ret)
{
	uintptr_t st = tls_state;

	if (st >= TS_BUSY_MIN && !recover_abandoned(st, cfa))
		return -EAGAIN;
	*saved = tls_state;
	SURAND_BUSY_AT(cfa, ret);
	return 0;
}

void surand_call_leave(uintptr_t saved)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	tls_state = saved;
}

/* A macro: the frame is the public entry point's. */
#define control_enter(saved) control_enter_at((saved), SURAND_HERE_CFA, SURAND_HERE_RET)
static int control_enter_at(uintptr_t *saved, uintptr_t cfa, uintptr_t ret)
{
	int r = surand_call_enter(saved, cfa, ret);

	if (r != 0) {
		errno = -r;
		return -1;
	}
	return 0;
}

SURAND_API int surand_reseed(void)
{
	const struct surand_backend *be = __atomic_load_n(&active, __ATOMIC_ACQUIRE);
	uintptr_t saved;
	int r;

	if (control_enter(&saved) != 0)
		return -1;
	if (!be) {
		be = setup_lazy();
		if (!be) {
			surand_call_leave(saved);
			errno = init_err ? -init_err : EAGAIN;
			return -1;
		}
	}
	r = be->reseed ? be->reseed() : surand_base_reseed(SURAND_RESEED_FORCED);
	surand_call_leave(saved);
	if (r < 0) {
		errno = -r;
		return -1;
	}
	return 0;
}

/* Before the first draw only: the backend is switched, set up here (not in
 * a handler), and every later call uses it. */
SURAND_API int surand_set_backend(const char *name)
{
	const struct surand_backend *be, *cur;
	uintptr_t saved;
	int r = 0, st;

	if (!name) {
		errno = EINVAL;
		return -1;
	}
	be = surand_backend_find(name);
	if (!be) {
		errno = EINVAL;
		return -1;
	}
	if (control_enter(&saved) != 0)
		return -1;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &st);
	surand_mutex_lock(&init_lock);
	r = -setup_locked();
	cur = __atomic_load_n(&active, __ATOMIC_ACQUIRE);
	if (r == 0 && cur != be) {
		if (__atomic_load_n(&served, __ATOMIC_SEQ_CST)) {
			r = EBUSY; /* a draw was served: the design is fixed now */
		} else {
			SURAND_TEST_POINT(SURAND_TP_SWITCH);
			if (!be->init || (r = -be->init()) == 0)
				__atomic_store_n(&active, be, __ATOMIC_RELEASE);
		}
	}
	surand_mutex_unlock(&init_lock);
	pthread_setcancelstate(st, NULL);
	surand_call_leave(saved);
	if (r) {
		errno = r;
		return -1;
	}
	return 0;
}

/* Built at set-up: no lock, no allocation here (async-signal-safe). */
SURAND_API const char *surand_backend_names(void)
{
	uintptr_t saved;

	if (SURAND_UNLIKELY(!__atomic_load_n(&active, __ATOMIC_ACQUIRE)) &&
	    surand_call_enter(&saved, SURAND_HERE_CFA, SURAND_HERE_RET) == 0) {
		(void)setup_lazy();
		surand_call_leave(saved);
	}
	return backend_names;
}

SURAND_API int surand_stats(struct surand_stats *st, size_t size)
{
	struct surand_stats s;
	const struct surand_backend *be;
	uintptr_t saved;

	if (!st || size < 2 * sizeof(uint32_t)) {
		errno = EINVAL;
		return -1;
	}
	if (control_enter(&saved) != 0)
		return -1;
	be = __atomic_load_n(&active, __ATOMIC_ACQUIRE);
	if (!be)
		be = setup_lazy();
	memset(&s, 0, sizeof(s));
	s.version = 1;
	snprintf(s.backend, sizeof(s.backend), "%s", be ? be->name : choose()->name);
	snprintf(s.chacha_impl, sizeof(s.chacha_impl), "%s", surand_chacha20_impl_name());
	surand_base_stats(&s);
	s.fork_generation = surand_fork_generation;
	s.fallback_signal = SURAND_LOAD(n_fallback_signal);
	s.fallback_urandom = surand_kernel_urandom_fallbacks();
	s.droppable = surand_secmem_kind() == 1;
	s.kernel_only = surand_secmem_kind() < 0;
	s.fallback_kernel_only = SURAND_LOAD(n_kernel_only);
	s.abandoned_calls = SURAND_LOAD(n_abandoned);
	surand_entropy_stats(&s);
	if (be && be->stats)
		be->stats(&s);
	surand_call_leave(saved);
	if (size > sizeof(s))
		size = sizeof(s);
	s.size = (uint32_t)size;
	memcpy(st, &s, size);
	return 0;
}

#ifdef SURAND_TEST_BUILD
#include "test_hooks.h"
static int tp_sig[SURAND_TP_COUNT];
static uint64_t tp_hits[SURAND_TP_COUNT];

void surand_test_point_arm(int point, int sig)
{
	if (point > 0 && point < SURAND_TP_COUNT)
		__atomic_store_n(&tp_sig[point], sig, __ATOMIC_SEQ_CST);
}

uint64_t surand_test_point_hits(int point)
{
	return point > 0 && point < SURAND_TP_COUNT ? SURAND_LOAD(tp_hits[point]) : 0;
}

int surand_test_point_fired(int point)
{
	int sig;

	if (point <= 0 || point >= SURAND_TP_COUNT)
		return 0;
	SURAND_COUNT(tp_hits[point]);
	sig = __atomic_exchange_n(&tp_sig[point], 0, __ATOMIC_SEQ_CST);
	if (sig)
		raise(sig);
	return sig != 0;
}

void surand_test_point(int point)
{
	(void)surand_test_point_fired(point);
}

/* Tests change the environment in a child before its first draw: read it
 * again and, while no draw was served, choose the backend it names again
 * (as the constructor would have, had the environment been set at exec). */
void surand_test_config_reload(void)
{
	const struct surand_backend *be;
	int st;

	surand_config_reread();
	surand_entropy_config_reread();
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &st);
	surand_mutex_lock(&init_lock);
	if (setup_locked() == 0 && !__atomic_load_n(&served, __ATOMIC_SEQ_CST)) {
		be = choose();
		if (be != __atomic_load_n(&active, __ATOMIC_ACQUIRE) && (!be->init || be->init() == 0))
			__atomic_store_n(&active, be, __ATOMIC_RELEASE);
	}
	surand_mutex_unlock(&init_lock);
	pthread_setcancelstate(st, NULL);
}

int surand_test_call_busy(void)
{
	return tls_state >= TS_BUSY_MIN;
}

/* The active design's test members (backend.h), with their fallbacks. */
int surand_test_snapshot(int which, struct surand_test_snapshot *s)
{
	const struct surand_backend *be = __atomic_load_n(&active, __ATOMIC_ACQUIRE);

	memset(s, 0, sizeof(*s));
	return be && be->test_snapshot ? be->test_snapshot(which, s) : -1;
}

int surand_test_pool_writes(int which, uint64_t *counts, uint32_t nwords)
{
	const struct surand_backend *be = __atomic_load_n(&active, __ATOMIC_ACQUIRE);

	return be && be->test_pool_writes ? be->test_pool_writes(which, counts, nwords) : -1;
}

void surand_test_drop_state(void)
{
	const struct surand_backend *be = __atomic_load_n(&active, __ATOMIC_ACQUIRE);

	if (be && be->test_drop)
		be->test_drop();
}
#endif
