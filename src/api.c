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
#include "entropy/entropy.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* ==== 1. choosing the backend, once ========================================== */

static const struct surand_backend *active;       /* set once, then read-only */
static const struct surand_backend *requested;    /* surand_set_backend() */
static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t exit_key;
static int init_err;
static uint64_t n_fallback_signal;

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
}

static void thread_exit_destructor(void *unused);

static const struct surand_backend *choose(void)
{
	const struct surand_config *cfg = surand_config();
	const struct surand_backend *be = requested;
	char names[256];
	size_t i, off = 0;

	if (!be && cfg->backend) {
		be = surand_backend_find(cfg->backend);
		if (!be) {
			for (i = 0; surand_backends[i] && off + 20 < sizeof(names); i++)
				off += (size_t)snprintf(names + off, sizeof(names) - off, "%s%s",
							i ? ", " : "", surand_backends[i]->name);
			surand_warn("SURAND_BACKEND=%.32s is unknown (valid: %s); using %s",
				    /* NOLINTNEXTLINE(clang-analyzer-core.NullDereference): the registry is never empty */
				    cfg->backend, names, surand_backends[0]->name);
		}
	}
	return be ? be : surand_backends[0];
}

/* Slow path of every call until a backend is active. */
static const struct surand_backend *backend_init(void)
{
	const struct surand_backend *be;
	int st, r = 0;

	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &st);
	pthread_mutex_lock(&init_lock);
	be = __atomic_load_n(&active, __ATOMIC_ACQUIRE);
	if (!be) {
		be = choose();
		if (pthread_key_create(&exit_key, thread_exit_destructor) != 0)
			r = -EAGAIN;
		if (r == 0 && pthread_atfork(NULL, NULL, atfork_child) != 0)
			r = -ENOMEM;
		/* The vDSO is looked up here, never from a signal handler. */
		(void)surand_vdso_available();
		if (r == 0 && be->init)
			r = be->init();
		if (r == 0)
			__atomic_store_n(&active, be, __ATOMIC_RELEASE);
		else
			be = NULL;
		init_err = r;
	}
	pthread_mutex_unlock(&init_lock);
	pthread_setcancelstate(st, NULL);
	return be;
}

/* ==== 2. the per-thread in-use flag =========================================
 *
 * 0: the thread has not called yet (register its exit destructor);
 * 1: idle; 2: inside a call.  A call that finds 2 interrupted the same thread's
 * call from a signal handler: it takes the lock-free kernel path, so it can
 * never deadlock on a backend's lock and never returns bytes the interrupted
 * call also returns.
 */
enum { TS_NEW = 0, TS_IDLE = 1, TS_BUSY = 2 };
static __thread int tls_state __attribute__((tls_model("initial-exec")));

static void thread_exit_destructor(void *unused)
{
	const struct surand_backend *be = __atomic_load_n(&active, __ATOMIC_ACQUIRE);

	(void)unused;
	if (be && be->thread_exit)
		be->thread_exit();
	surand_vdso_thread_exit();
	tls_state = TS_NEW; /* a later call from another destructor re-registers */
}

/* The kernel path: lock-free, async-signal-safe. 0 or -errno. */
static int kernel_path(void *buf, size_t len)
{
	if (surand_vdso_fill_nested(buf, len) == 0)
		return 0;
	return surand_kernel_fill(buf, len, 0);
}

static __attribute__((noinline, cold)) int fill_slow(void *buf, size_t len)
{
	const struct surand_backend *be;
	int r;

	if (tls_state == TS_BUSY) {
		SURAND_COUNT(n_fallback_signal);
		return kernel_path(buf, len);
	}
	be = __atomic_load_n(&active, __ATOMIC_ACQUIRE);
	if (!be) {
		/* Not yet set up: a nested call during set-up must not lock. */
		tls_state = TS_BUSY;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		be = backend_init();
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		tls_state = TS_NEW;
		if (!be)
			return init_err ? init_err : -EAGAIN;
	}
	if (tls_state == TS_NEW) {
		tls_state = TS_BUSY;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		(void)pthread_setspecific(exit_key, (void *)1);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		tls_state = TS_IDLE;
	}
	tls_state = TS_BUSY;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	r = be->fill(buf, len);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	tls_state = TS_IDLE;
	return r;
}

/* 0 or -errno: fills buf[0..len) from the backend, never unseeded. */
static inline int fill(void *buf, size_t len)
{
	const struct surand_backend *be = __atomic_load_n(&active, __ATOMIC_ACQUIRE);
	int r;

	if (SURAND_LIKELY(tls_state == TS_IDLE && be != NULL)) {
		tls_state = TS_BUSY;
		/* The flag is set before the backend runs, as a handler sees it. */
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		r = be->fill(buf, len);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		tls_state = TS_IDLE;
		return r;
	}
	return fill_slow(buf, len);
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
	struct surand_word w;

	if (SURAND_LIKELY(tls_state == TS_IDLE && be != NULL && be->word != NULL)) {
		tls_state = TS_BUSY;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		w = be->word(n);
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

/* ==== 5. control and stats =================================================== */

/*
 * The control calls take locks too (the base lock, a backend's).  While one
 * runs, the thread counts as busy, so a signal handler's call in between takes
 * the lock-free kernel path instead of a lock this thread already holds (a
 * handler that drew during surand_reseed() deadlocked: tests/test_storms.c);
 * a control call nested in another call refuses with EAGAIN, never deadlocks.
 */
static int control_enter(int *saved)
{
	if (tls_state == TS_BUSY) {
		errno = EAGAIN;
		return -1;
	}
	*saved = tls_state;
	tls_state = TS_BUSY;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return 0;
}

static void control_leave(int saved)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	tls_state = saved;
}

SURAND_API int surand_reseed(void)
{
	const struct surand_backend *be = __atomic_load_n(&active, __ATOMIC_ACQUIRE);
	int r, saved;

	if (control_enter(&saved) != 0)
		return -1;
	if (!be) {
		be = backend_init();
		if (!be) {
			control_leave(saved);
			errno = init_err ? -init_err : EAGAIN;
			return -1;
		}
	}
	r = be->reseed ? be->reseed() : surand_base_reseed(SURAND_RESEED_FORCED);
	control_leave(saved);
	if (r < 0) {
		errno = -r;
		return -1;
	}
	return 0;
}

SURAND_API int surand_set_backend(const char *name)
{
	const struct surand_backend *be, *cur;
	int r = 0, saved;

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
	pthread_mutex_lock(&init_lock);
	cur = __atomic_load_n(&active, __ATOMIC_ACQUIRE);
	if (cur && cur != be)
		r = EBUSY;
	else
		requested = be;
	pthread_mutex_unlock(&init_lock);
	control_leave(saved);
	if (r) {
		errno = r;
		return -1;
	}
	return 0;
}

SURAND_API const char *surand_backend_names(void)
{
	static char names[256];
	static int built;
	size_t i, off = 0;

	pthread_mutex_lock(&init_lock);
	if (!built) {
		for (i = 0; surand_backends[i] && off + 20 < sizeof(names); i++)
			off += (size_t)snprintf(names + off, sizeof(names) - off, "%s%s", i ? "," : "",
						surand_backends[i]->name);
		built = 1;
	}
	pthread_mutex_unlock(&init_lock);
	return names;
}

SURAND_API int surand_stats(struct surand_stats *st, size_t size)
{
	struct surand_stats s;
	const struct surand_backend *be = __atomic_load_n(&active, __ATOMIC_ACQUIRE);
	int saved;

	if (!st || size < 2 * sizeof(uint32_t)) {
		errno = EINVAL;
		return -1;
	}
	if (control_enter(&saved) != 0)
		return -1;
	memset(&s, 0, sizeof(s));
	s.version = 1;
	snprintf(s.backend, sizeof(s.backend), "%s", be ? be->name : choose()->name);
	snprintf(s.chacha_impl, sizeof(s.chacha_impl), "%s", surand_chacha20_impl_name());
	surand_base_stats(&s);
	s.fork_generation = surand_fork_generation;
	s.fallback_signal = SURAND_LOAD(n_fallback_signal);
	s.fallback_urandom = surand_kernel_urandom_fallbacks();
	s.droppable = surand_secmem_kind() == 1;
	surand_entropy_stats(&s);
	if (be && be->stats)
		be->stats(&s);
	control_leave(saved);
	if (size > sizeof(s))
		size = sizeof(s);
	s.size = (uint32_t)size;
	memcpy(st, &s, size);
	return 0;
}
