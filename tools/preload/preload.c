/*
 * preload.c - libsurand-preload.so: serves unmodified programs' random bytes
 * from surand (LD_PRELOAD=build/libsurand-preload.so program ...).
 *
 * What is interposed (docs/preload.md has the whole story):
 *  - getrandom, getentropy, arc4random, arc4random_buf, arc4random_uniform:
 *    answered by surand's public API;
 *  - the opening of the kernel's random devices (open, open64, openat,
 *    openat64 and the fortified __open_2 & co.): the call goes to the real
 *    function, and a readable descriptor that fstat() shows to be the
 *    character device 1:8 or 1:9 is marked in a bitmap (match.h says why by
 *    device and not by path);
 *  - reads of marked descriptors (read, readv, pread, pread64, preadv,
 *    preadv64, preadv2, preadv64v2 and the fortified __read_chk,
 *    __pread_chk, __pread64_chk): answered by surand after checking
 *    again with fstat that the number still is such a device (a number closed
 *    behind our back by a raw syscall and reused goes to the kernel);
 *  - when surand cannot serve (no seed: a sandbox refused it getrandom and
 *    the device after the program had opened its own), the call goes to the
 *    real function: the program gets what the kernel would have given it;
 *  - bookkeeping: dup, dup2, dup3, fcntl/fcntl64 (F_DUPFD, F_DUPFD_CLOEXEC)
 *    copy the mark; close, close_range, closefrom, fclose clear it BEFORE the
 *    real close, so the number is never marked while someone else may get it;
 *  - fopen/fopen64: left to the kernel by default (glibc's fopen opens and
 *    reads through its internal functions, which are not interposed, so such
 *    a stream simply reads the kernel's device); SURAND_PRELOAD_FOPEN=cookie
 *    returns instead a fopencookie() stream served by surand (fileno() is -1
 *    on it).
 *
 * The mark table is a fixed bitmap for descriptors below PL_MAX_FD, updated
 * with atomics only: no lock, async-signal-safe.  Larger descriptors are never
 * marked (the kernel serves them).  Ordering: a mark is published with a
 * release RMW after the open that made the descriptor returned, and read with
 * acquire; the kernel's fd table, not this bitmap, passes a descriptor between
 * threads, so the bit carries no data of its own (on x86 the RMW is a locked
 * instruction; on aarch64 an LSE ldsetl/ldclrl or an ldxr/stlxr loop).
 *
 * Pass-through: the real functions are looked up with dlsym(RTLD_NEXT) in the
 * constructor, once.  Before the constructor has run (another library's
 * constructor may call us first) the system-call wrappers use raw syscalls
 * and stdio is looked up lazily; surand seeds itself lazily on first use.
 *
 * The library's own objects are linked in statically (build/libsurand.a);
 * their calls to open/read/close/getrandom/... are renamed at build time
 * (objcopy --redefine-syms, mk/preload.mk) to the surand_pl_lib_* functions
 * at the end of this file, which are raw syscalls: surand never seeds itself
 * from its own interposed /dev/urandom.
 *
 * SURAND_PRELOAD_STATS=1: one line per process on stderr at exit (read once):
 *   surand-preload: pid N: served B bytes in M calls: read 128, getrandom 4; ...
 * with the non-zero counters only (pl_fini says which groups follow).
 * SPDX-License-Identifier: MIT
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "match.h"
#include "surand.h"

#define PL_API __attribute__((visibility("default")))
#define PL_HIDDEN __attribute__((visibility("hidden")))
#define SURAND_PL_LIKELY(x) __builtin_expect(!!(x), 1)
#define SURAND_PL_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Descriptors below this are tracked; above, the kernel serves them (8 KiB
 * bitmap).  mk/preload.mk also builds a test copy with a smaller table, whose
 * end tests/preload.sh reaches without raising RLIMIT_NOFILE. */
#ifndef PL_MAX_FD
#define PL_MAX_FD 65536
#endif

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif
#ifndef O_TMPFILE
#define O_TMPFILE 0
#endif

/* glibc's fortify failure exit (exported since GLIBC_2.3.4). */
extern void __chk_fail(void) __attribute__((noreturn));

/* Prototypes of what we define (some are only declared by fortified or newer headers). */
PL_API int __open_2(const char *path, int oflag);
PL_API int __open64_2(const char *path, int oflag);
PL_API int __openat_2(int dirfd, const char *path, int oflag);
PL_API int __openat64_2(int dirfd, const char *path, int oflag);
PL_API ssize_t __read_chk(int fd, void *buf, size_t nbytes, size_t buflen);
PL_API ssize_t __pread_chk(int fd, void *buf, size_t nbytes, off_t offset, size_t buflen);
PL_API ssize_t __pread64_chk(int fd, void *buf, size_t nbytes, off64_t offset, size_t buflen);
#if !__GLIBC_PREREQ(2, 36)
PL_API uint32_t arc4random(void);
PL_API void arc4random_buf(void *buf, size_t n);
PL_API uint32_t arc4random_uniform(uint32_t upper_bound);
#endif
#if !__GLIBC_PREREQ(2, 34)
PL_API int close_range(unsigned int first, unsigned int last, int flags);
PL_API void closefrom(int lowfd);
#endif

/* ---- the mark table ------------------------------------------------------- */

static uint64_t pl_bits[PL_MAX_FD / 64];

static inline int pl_tracked(int fd)
{
	if ((unsigned)fd >= PL_MAX_FD)
		return 0;
	/* Acquire, paired with pl_mark's release RMW (aarch64: ldar). */
	return (__atomic_load_n(&pl_bits[fd / 64], __ATOMIC_ACQUIRE) >> (fd % 64)) & 1;
}

static inline void pl_mark(int fd, int on)
{
	uint64_t bit;

	if ((unsigned)fd >= PL_MAX_FD)
		return;
	bit = UINT64_C(1) << (fd % 64);
	/* a plain load first: most opens find the bit already right and write nothing */
	if (!!(__atomic_load_n(&pl_bits[fd / 64], __ATOMIC_RELAXED) & bit) == !!on)
		return;
	/* Release RMW: other bits of the word are never lost (atomic), and the
	 * open's effects are ordered before the mark. */
	if (on)
		__atomic_fetch_or(&pl_bits[fd / 64], bit, __ATOMIC_RELEASE);
	else
		__atomic_fetch_and(&pl_bits[fd / 64], ~bit, __ATOMIC_RELEASE);
}

/* Clears the marks of [lo, hi] (inclusive, clamped to the table); how many were set. */
static unsigned pl_unmark_range(unsigned lo, unsigned hi)
{
	unsigned fd, cleared = 0;

	if (hi >= PL_MAX_FD)
		hi = PL_MAX_FD - 1;
	for (fd = lo; fd <= hi && fd < PL_MAX_FD;) {
		uint64_t w = __atomic_load_n(&pl_bits[fd / 64], __ATOMIC_RELAXED);

		if (fd % 64 == 0 && hi - fd >= 63) {
			if (w)
				cleared += (unsigned)__builtin_popcountll(
					__atomic_exchange_n(&pl_bits[fd / 64], 0, __ATOMIC_ACQ_REL));
			fd += 64;
		} else {
			if ((w >> (fd % 64)) & 1) {
				pl_mark((int)fd, 0);
				cleared++;
			}
			fd++;
		}
	}
	return cleared;
}

/* ---- statistics ----------------------------------------------------------- */

#define PL_STATS(X)                                                               \
	X(getrandom) X(getentropy) X(arc4random) X(arc4random_buf) X(arc4random_uniform) \
	X(open) X(open64) X(openat) X(openat64) X(__open_2) X(__open64_2)           \
	X(__openat_2) X(__openat64_2) X(read) X(readv) X(pread) X(pread64) X(preadv) \
	X(preadv64) X(preadv2) X(preadv64v2) X(__read_chk) X(__pread_chk)           \
	X(__pread64_chk) X(dup) X(dup2) X(dup3) X(fcntl) X(fcntl64) X(close)         \
	X(close_range) X(closefrom) X(fclose) X(fopen) X(fopen64) X(cookie_read)     \
	X(recycled) X(to_kernel)

enum pl_stat {
#define PL_ENUM(n) PS_##n,
	PL_STATS(PL_ENUM)
#undef PL_ENUM
	PS_COUNT
};

static const char *const pl_stat_names[PS_COUNT] = {
#define PL_NAME(n) #n,
	PL_STATS(PL_NAME)
#undef PL_NAME
};

static uint64_t pl_stats[PS_COUNT];
static uint64_t pl_stat_bytes;
/* 0: not read yet, 1: off, 2: on; read once (first need or the constructor). */
static int pl_stats_state;

static int pl_stats_on(void)
{
	int s = __atomic_load_n(&pl_stats_state, __ATOMIC_RELAXED);

	if (SURAND_PL_UNLIKELY(s == 0)) {
		/* secure_getenv only walks environ: async-signal-safe in practice, and a race is benign */
		const char *v = secure_getenv("SURAND_PRELOAD_STATS");

		s = (v && v[0] == '1' && v[1] == 0) ? 2 : 1;
		__atomic_store_n(&pl_stats_state, s, __ATOMIC_RELAXED);
	}
	return s == 2;
}

/* Counts one served call; only when enabled: counters are shared memory written by every thread. */
static inline void pl_count(enum pl_stat s, uint64_t bytes)
{
	if (!pl_stats_on())
		return;
	__atomic_fetch_add(&pl_stats[s], 1, __ATOMIC_RELAXED);
	if (bytes)
		__atomic_fetch_add(&pl_stat_bytes, bytes, __ATOMIC_RELAXED);
}

/* ---- the real functions ---------------------------------------------------- */

#define PL_REALS(X)                                                                  \
	X(open) X(open64) X(openat) X(openat64) X(__open_2) X(__open64_2) X(__openat_2) \
	X(__openat64_2) X(read) X(readv) X(pread) X(pread64) X(preadv) X(preadv64)       \
	X(preadv2) X(preadv64v2) X(__read_chk) X(__pread_chk) X(__pread64_chk) X(dup)    \
	X(dup2) X(dup3) X(fcntl) X(fcntl64) X(close) X(close_range) X(closefrom)        \
	X(fclose) X(fopen) X(fopen64) X(getrandom) X(getentropy)

enum pl_real {
#define PL_ENUM(n) PR_##n,
	PL_REALS(PL_ENUM)
#undef PL_ENUM
	PR_COUNT
};

static const char *const pl_real_names[PR_COUNT] = {
#define PL_NAME(n) #n,
	PL_REALS(PL_NAME)
#undef PL_NAME
};

static void *pl_real[PR_COUNT];
/* Set at the end of the constructor: from then on pl_real[] is final. */
static int pl_ready;

/*
 * The real function, or NULL before the constructor (callers then use the
 * raw syscall) or when libc lacks it.  lazy: stdio, which has no syscall
 * form, is looked up on demand before the constructor (a duplicate lookup
 * by two threads stores the same pointer: benign).
 */
static void *pl_fn(enum pl_real r, int lazy)
{
	/* Acquire, paired with the release stores of pl_real and pl_ready. */
	void *p = __atomic_load_n(&pl_real[r], __ATOMIC_ACQUIRE);

	if (p || __atomic_load_n(&pl_ready, __ATOMIC_ACQUIRE) || !lazy)
		return p;
	p = dlsym(RTLD_NEXT, pl_real_names[r]);
	if (p)
		__atomic_store_n(&pl_real[r], p, __ATOMIC_RELEASE);
	return p;
}

#define REAL(name, lazy) ((__typeof__(&name))pl_fn(PR_##name, (lazy)))

/* ---- raw syscalls (before the constructor, and for the library's own I/O) -- */

static long pl_raw_fstat(int fd, struct stat *st)
{
#ifdef SYS_fstat
	/* raw: another interposer's fstat (fakeroot) must not fake a device for us */
	return syscall(SYS_fstat, fd, st);
#else
	return fstat(fd, st);
#endif
}

static int pl_raw_openat(int dirfd, const char *path, int flags, mode_t mode)
{
	return (int)syscall(SYS_openat, dirfd, path, flags, mode);
}

static int pl_raw_dup2(int oldfd, int newfd, int flags)
{
	if (oldfd == newfd) /* dup2's no-op case; dup3 refuses it with EINVAL */
		return syscall(SYS_fcntl, oldfd, F_GETFD) < 0 ? -1 : newfd;
	return (int)syscall(SYS_dup3, oldfd, newfd, flags);
}

/* ---- the decisions ------------------------------------------------------- */

/* The kind of an open descriptor (raw fstat); errno kept. */
static enum surand_pl_kind pl_kind_of(int fd)
{
	struct stat st;
	int e = errno;
	enum surand_pl_kind k = SURAND_PL_OTHER;

	if (pl_raw_fstat(fd, &st) == 0)
		k = surand_pl_classify(st.st_mode, (uint64_t)st.st_rdev);
	errno = e;
	return k;
}

/* After a successful open: mark fd when it is a readable random device, else clear a stale mark. */
static int pl_opened(int fd, int oflags, enum pl_stat s)
{
	int dev;

	if (fd < 0 || fd >= PL_MAX_FD)
		return fd;
	dev = surand_pl_open_wants_check(oflags) && pl_kind_of(fd) != SURAND_PL_OTHER;
	pl_mark(fd, dev);
	if (dev)
		pl_count(s, 0);
	return fd;
}

/*
 * 1 when a read of fd is ours to serve: marked, and (checked again now) still
 * the device.  A marked number that is something else now was closed behind
 * our back and reused: unmark it, and the kernel answers.
 */
static int pl_serve_fd(int fd)
{
	if (SURAND_PL_LIKELY(!pl_tracked(fd)))
		return 0;
	if (pl_kind_of(fd) != SURAND_PL_OTHER)
		return 1;
	pl_mark(fd, 0);
	pl_count(PS_recycled, 0);
	return 0;
}

/*
 * Fills buf[0..n) from surand: 1, or 0 when surand cannot serve (it has no
 * seed: the kernel refused it getrandom and the device), errno kept.
 * surand_getrandom, not surand_bytes: there no seed is an abort, and a
 * program whose sandbox still lets it read the descriptor it opened before
 * must get the kernel's bytes instead.
 */
static int pl_fill(void *buf, size_t n)
{
	int e = errno;

	if (surand_getrandom(buf, n, 0) == (ssize_t)n)
		return 1;
	errno = e;
	pl_count(PS_to_kernel, 0);
	return 0;
}

/*
 * A read of count bytes into buf, served by surand: 1 with the kernel's
 * return value in *ret, or 0 when the caller must make the real call.
 */
static int pl_serve(enum pl_stat s, void *buf, size_t count, ssize_t *ret)
{
	ssize_t n = surand_pl_read_len(count);

	if (n < 0) {
		errno = (int)-n;
		*ret = -1;
		return 1;
	}
	if (n > 0 && !buf) { /* the kernel's answer to an obviously bad buffer */
		errno = EFAULT;
		*ret = -1;
		return 1;
	}
	if (n > 0 && !pl_fill(buf, (size_t)n)) /* never unseeded: surand or the kernel */
		return 0;
	pl_count(s, (uint64_t)n);
	*ret = n;
	return 1;
}

static int pl_serve_iov(enum pl_stat s, const struct iovec *iov, int iovcnt, ssize_t *ret)
{
	ssize_t total, left;
	int i;

	*ret = -1;
	if (iovcnt > 0 && !iov) {
		errno = EFAULT;
		return 1;
	}
	if (iovcnt < 0 || iovcnt > SURAND_PL_MAX_IOV) {
		errno = EINVAL;
		return 1;
	}
	total = surand_pl_readv_len(iov, iovcnt);
	if (total < 0) {
		errno = (int)-total;
		return 1;
	}
	for (i = 0; i < iovcnt; i++)
		if (iov[i].iov_len && !iov[i].iov_base) {
			errno = EFAULT;
			return 1;
		}
	left = total;
	for (i = 0; i < iovcnt && left > 0; i++) {
		size_t n = iov[i].iov_len < (size_t)left ? iov[i].iov_len : (size_t)left;

		if (n && !pl_fill(iov[i].iov_base, n))
			return 0; /* the real call fills every buffer again */
		left -= (ssize_t)n;
	}
	pl_count(s, (uint64_t)total);
	*ret = total;
	return 1;
}

static int pl_fopen_cookie_mode(void);
static FILE *pl_fopened(FILE *f, const char *mode, enum pl_stat s);

/* ---- random-number functions ---------------------------------------------- */

PL_API ssize_t getrandom(void *buf, size_t len, unsigned int flags)
{
	__typeof__(&getrandom) f;
	int e = errno;
	ssize_t n = surand_getrandom(buf, len, flags);

	if (n >= 0) {
		pl_count(PS_getrandom, (uint64_t)n);
		return n;
	}
	/* Not served (no seed, a bad flag, not ready): the kernel answers. */
	errno = e;
	pl_count(PS_to_kernel, 0);
	f = REAL(getrandom, 0);
	return f ? f(buf, len, flags) : syscall(SYS_getrandom, buf, len, flags);
}

PL_HIDDEN int surand_pl_lib_getentropy(void *buf, size_t len);

PL_API int getentropy(void *buf, size_t len)
{
	__typeof__(&getentropy) f;
	int e = errno;

	if (surand_getentropy(buf, len) == 0) {
		pl_count(PS_getentropy, len);
		return 0;
	}
	errno = e;
	pl_count(PS_to_kernel, 0);
	f = REAL(getentropy, 0);
	return f ? f(buf, len) : surand_pl_lib_getentropy(buf, len);
}

PL_API uint32_t arc4random(void)
{
	pl_count(PS_arc4random, 4);
	return surand_u32();
}

PL_API void arc4random_buf(void *buf, size_t n)
{
	pl_count(PS_arc4random_buf, n);
	surand_bytes(buf, n);
}

PL_API uint32_t arc4random_uniform(uint32_t upper_bound)
{
	pl_count(PS_arc4random_uniform, 4);
	/* unbiased in [0, upper_bound); 0 and 1 give 0 as in glibc and OpenBSD */
	return (uint32_t)surand_uniform(upper_bound);
}

/* ---- opening -------------------------------------------------------------- */

/* open's optional mode argument is there only with O_CREAT or O_TMPFILE. */
#define PL_OPEN_MODE(flags, last, mode)                                          \
	do {                                                                     \
		(mode) = 0;                                                      \
		if (((flags) & O_CREAT) || (O_TMPFILE && ((flags) & O_TMPFILE) == O_TMPFILE)) { \
			va_list ap_;                                             \
			va_start(ap_, last);                                     \
			(mode) = (mode_t)va_arg(ap_, int);                       \
			va_end(ap_);                                             \
		}                                                                \
	} while (0)

PL_API int open(const char *path, int flags, ...)
{
	mode_t mode;
	__typeof__(&open) f = REAL(open, 0);

	PL_OPEN_MODE(flags, flags, mode);
	return pl_opened(f ? f(path, flags, mode) : pl_raw_openat(AT_FDCWD, path, flags, mode),
			 flags, PS_open);
}

PL_API int open64(const char *path, int flags, ...)
{
	mode_t mode;
	__typeof__(&open64) f = REAL(open64, 0);

	PL_OPEN_MODE(flags, flags, mode);
	return pl_opened(f ? f(path, flags, mode)
			   : pl_raw_openat(AT_FDCWD, path, flags | O_LARGEFILE, mode),
			 flags, PS_open64);
}

PL_API int openat(int dirfd, const char *path, int flags, ...)
{
	mode_t mode;
	__typeof__(&openat) f = REAL(openat, 0);

	PL_OPEN_MODE(flags, flags, mode);
	return pl_opened(f ? f(dirfd, path, flags, mode) : pl_raw_openat(dirfd, path, flags, mode),
			 flags, PS_openat);
}

PL_API int openat64(int dirfd, const char *path, int flags, ...)
{
	mode_t mode;
	__typeof__(&openat64) f = REAL(openat64, 0);

	PL_OPEN_MODE(flags, flags, mode);
	return pl_opened(f ? f(dirfd, path, flags, mode)
			   : pl_raw_openat(dirfd, path, flags | O_LARGEFILE, mode),
			 flags, PS_openat64);
}

/* The fortified opens: without a mode, so O_CREAT/O_TMPFILE is a caller bug glibc aborts on. */
static int pl_open2_raw(int dirfd, const char *path, int flags)
{
	if ((flags & O_CREAT) || (O_TMPFILE && (flags & O_TMPFILE) == O_TMPFILE))
		__chk_fail();
	return pl_raw_openat(dirfd, path, flags | O_LARGEFILE, 0);
}

PL_API int __open_2(const char *path, int flags)
{
	__typeof__(&__open_2) f = REAL(__open_2, 0);

	return pl_opened(f ? f(path, flags) : pl_open2_raw(AT_FDCWD, path, flags), flags,
			 PS___open_2);
}

PL_API int __open64_2(const char *path, int flags)
{
	__typeof__(&__open64_2) f = REAL(__open64_2, 0);

	return pl_opened(f ? f(path, flags) : pl_open2_raw(AT_FDCWD, path, flags), flags,
			 PS___open64_2);
}

PL_API int __openat_2(int dirfd, const char *path, int flags)
{
	__typeof__(&__openat_2) f = REAL(__openat_2, 0);

	return pl_opened(f ? f(dirfd, path, flags) : pl_open2_raw(dirfd, path, flags), flags,
			 PS___openat_2);
}

PL_API int __openat64_2(int dirfd, const char *path, int flags)
{
	__typeof__(&__openat64_2) f = REAL(__openat64_2, 0);

	return pl_opened(f ? f(dirfd, path, flags) : pl_open2_raw(dirfd, path, flags), flags,
			 PS___openat64_2);
}

/* ---- reading --------------------------------------------------------------- */

PL_API ssize_t read(int fd, void *buf, size_t count)
{
	__typeof__(&read) f;
	ssize_t r;

	if (pl_serve_fd(fd) && pl_serve(PS_read, buf, count, &r))
		return r;
	f = REAL(read, 0);
	return f ? f(fd, buf, count) : syscall(SYS_read, fd, buf, count);
}

PL_API ssize_t __read_chk(int fd, void *buf, size_t count, size_t buflen)
{
	__typeof__(&__read_chk) f;
	ssize_t r;

	if (count > buflen) /* what glibc's __read_chk does: a buffer overflow caught */
		__chk_fail();
	if (pl_serve_fd(fd) && pl_serve(PS___read_chk, buf, count, &r))
		return r;
	f = REAL(__read_chk, 0);
	return f ? f(fd, buf, count, buflen) : syscall(SYS_read, fd, buf, count);
}

PL_API ssize_t readv(int fd, const struct iovec *iov, int iovcnt)
{
	__typeof__(&readv) f;
	ssize_t r;

	if (pl_serve_fd(fd) && pl_serve_iov(PS_readv, iov, iovcnt, &r))
		return r;
	f = REAL(readv, 0);
	return f ? f(fd, iov, iovcnt) : syscall(SYS_readv, fd, iov, iovcnt);
}

/* pread on the random devices: the offset is checked and ignored, as by the kernel. */
static int pl_serve_at(enum pl_stat s, void *buf, size_t count, int64_t off, ssize_t *ret)
{
	int e = surand_pl_check_offset(off, 0);

	if (e) {
		errno = -e;
		*ret = -1;
		return 1;
	}
	return pl_serve(s, buf, count, ret);
}

PL_API ssize_t pread(int fd, void *buf, size_t count, off_t off)
{
	__typeof__(&pread) f;
	ssize_t r;

	if (pl_serve_fd(fd) && pl_serve_at(PS_pread, buf, count, off, &r))
		return r;
	f = REAL(pread, 0);
	return f ? f(fd, buf, count, off) : syscall(SYS_pread64, fd, buf, count, off);
}

PL_API ssize_t pread64(int fd, void *buf, size_t count, off64_t off)
{
	__typeof__(&pread64) f;
	ssize_t r;

	if (pl_serve_fd(fd) && pl_serve_at(PS_pread64, buf, count, off, &r))
		return r;
	f = REAL(pread64, 0);
	return f ? f(fd, buf, count, off) : syscall(SYS_pread64, fd, buf, count, off);
}

PL_API ssize_t __pread_chk(int fd, void *buf, size_t count, off_t off, size_t buflen)
{
	__typeof__(&__pread_chk) f;
	ssize_t r;

	if (count > buflen)
		__chk_fail();
	if (pl_serve_fd(fd) && pl_serve_at(PS___pread_chk, buf, count, off, &r))
		return r;
	f = REAL(__pread_chk, 0);
	return f ? f(fd, buf, count, off, buflen) : syscall(SYS_pread64, fd, buf, count, off);
}

PL_API ssize_t __pread64_chk(int fd, void *buf, size_t count, off64_t off, size_t buflen)
{
	__typeof__(&__pread64_chk) f;
	ssize_t r;

	if (count > buflen)
		__chk_fail();
	if (pl_serve_fd(fd) && pl_serve_at(PS___pread64_chk, buf, count, off, &r))
		return r;
	f = REAL(__pread64_chk, 0);
	return f ? f(fd, buf, count, off, buflen) : syscall(SYS_pread64, fd, buf, count, off);
}

static int pl_serve_iov_at(enum pl_stat s, const struct iovec *iov, int iovcnt, int64_t off,
			   int allow_current, ssize_t *ret)
{
	int e = surand_pl_check_offset(off, allow_current);

	if (e) {
		errno = -e;
		*ret = -1;
		return 1;
	}
	return pl_serve_iov(s, iov, iovcnt, ret);
}

/* preadv's raw form splits the offset into two longs (low, high); on LP64 high is 0. */
#define PL_LO_HI(off) (long)(off), (long)((uint64_t)(off) >> 32 >> (8 * sizeof(long) - 32))

PL_API ssize_t preadv(int fd, const struct iovec *iov, int iovcnt, off_t off)
{
	__typeof__(&preadv) f;
	ssize_t r;

	if (pl_serve_fd(fd) && pl_serve_iov_at(PS_preadv, iov, iovcnt, off, 0, &r))
		return r;
	f = REAL(preadv, 0);
	return f ? f(fd, iov, iovcnt, off) : syscall(SYS_preadv, fd, iov, iovcnt, PL_LO_HI(off));
}

PL_API ssize_t preadv64(int fd, const struct iovec *iov, int iovcnt, off64_t off)
{
	__typeof__(&preadv64) f;
	ssize_t r;

	if (pl_serve_fd(fd) && pl_serve_iov_at(PS_preadv64, iov, iovcnt, off, 0, &r))
		return r;
	f = REAL(preadv64, 0);
	return f ? f(fd, iov, iovcnt, off) : syscall(SYS_preadv, fd, iov, iovcnt, PL_LO_HI(off));
}

/*
 * preadv2 with flags (RWF_NOWAIT, RWF_HIPRI, ...) is left to the kernel,
 * which knows which flags it takes; flags 0 is a plain preadv (offset -1:
 * the current position, which the random devices ignore).
 */
PL_API ssize_t preadv2(int fd, const struct iovec *iov, int iovcnt, off_t off, int flags)
{
	__typeof__(&preadv2) f;
	ssize_t r;

	if (flags == 0 && pl_serve_fd(fd) && pl_serve_iov_at(PS_preadv2, iov, iovcnt, off, 1, &r))
		return r;
	f = REAL(preadv2, 0);
	return f ? f(fd, iov, iovcnt, off, flags)
		 : syscall(SYS_preadv2, fd, iov, iovcnt, PL_LO_HI(off), flags);
}

PL_API ssize_t preadv64v2(int fd, const struct iovec *iov, int iovcnt, off64_t off, int flags)
{
	__typeof__(&preadv64v2) f;
	ssize_t r;

	if (flags == 0 && pl_serve_fd(fd) && pl_serve_iov_at(PS_preadv64v2, iov, iovcnt, off, 1, &r))
		return r;
	f = REAL(preadv64v2, 0);
	return f ? f(fd, iov, iovcnt, off, flags)
		 : syscall(SYS_preadv2, fd, iov, iovcnt, PL_LO_HI(off), flags);
}

/* ---- descriptor bookkeeping ----------------------------------------------- */

/* A new descriptor copies old's mark (and loses any stale one). */
static int pl_duped(int newfd, int was_tracked, enum pl_stat s)
{
	if (newfd >= 0) {
		pl_mark(newfd, was_tracked);
		/* Counted only when a mark was made: a copy past the table is the kernel's. */
		if (was_tracked && newfd < PL_MAX_FD)
			pl_count(s, 0);
	}
	return newfd;
}

PL_API int dup(int oldfd)
{
	__typeof__(&dup) f = REAL(dup, 0);
	int t = pl_tracked(oldfd);

	return pl_duped(f ? f(oldfd) : (int)syscall(SYS_dup, oldfd), t, PS_dup);
}

/* dup2/dup3 close newfd first: unmark it before, mark it after (or restore on failure). */
static int pl_dup_onto(int oldfd, int newfd, int flags, int is_dup3)
{
	int t = pl_tracked(oldfd), was = pl_tracked(newfd), r;

	if (oldfd == newfd && !is_dup3) {
		__typeof__(&dup2) f = REAL(dup2, 0);

		return f ? f(oldfd, newfd) : pl_raw_dup2(oldfd, newfd, 0);
	}
	pl_mark(newfd, 0);
	if (is_dup3) {
		__typeof__(&dup3) f = REAL(dup3, 0);

		r = f ? f(oldfd, newfd, flags) : (int)syscall(SYS_dup3, oldfd, newfd, flags);
	} else {
		__typeof__(&dup2) f = REAL(dup2, 0);

		r = f ? f(oldfd, newfd) : pl_raw_dup2(oldfd, newfd, 0);
	}
	if (r < 0) {
		int e = errno;

		pl_mark(newfd, was); /* newfd was not closed: its mark stays (reads re-check anyway) */
		errno = e;
		return r;
	}
	return pl_duped(r, t, is_dup3 ? PS_dup3 : PS_dup2);
}

PL_API int dup2(int oldfd, int newfd)
{
	return pl_dup_onto(oldfd, newfd, 0, 0);
}

PL_API int dup3(int oldfd, int newfd, int flags)
{
	return pl_dup_onto(oldfd, newfd, flags, 1);
}

/* fcntl's third argument is an int, a long or a pointer: all travel as one word (as in glibc). */
static int pl_fcntl(enum pl_real r, enum pl_stat s, int fd, int cmd, void *arg)
{
	int (*f)(int, int, ...) = (int (*)(int, int, ...))pl_fn(r, 0);
	int t = (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC) ? pl_tracked(fd) : 0;
	int ret = f ? f(fd, cmd, arg) : (int)syscall(SYS_fcntl, fd, cmd, arg);

	if (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC)
		return pl_duped(ret, t, s);
	return ret;
}

/* A variadic fcntl-shaped function: the word after cmd taken as above, then
 * `body` returned (the entry points below, the library's calls further on). */
#define PL_FCNTL_FN(linkage, name, body)             \
	linkage int name(int fd, int cmd, ...)        \
	{                                             \
		va_list ap;                           \
		void *arg;                            \
                                                      \
		va_start(ap, cmd);                    \
		arg = va_arg(ap, void *);             \
		va_end(ap);                           \
		return body;                          \
	}
PL_FCNTL_FN(PL_API, fcntl, pl_fcntl(PR_fcntl, PS_fcntl, fd, cmd, arg))
PL_FCNTL_FN(PL_API, fcntl64, pl_fcntl(PR_fcntl64, PS_fcntl64, fd, cmd, arg))

PL_API int close(int fd)
{
	__typeof__(&close) f = REAL(close, 0);

	if (pl_tracked(fd)) {
		pl_mark(fd, 0); /* before the close: the number may be reused the moment it is free */
		pl_count(PS_close, 0);
	}
	return f ? f(fd) : (int)syscall(SYS_close, fd);
}

PL_API int close_range(unsigned int first, unsigned int last, int flags)
{
	__typeof__(&close_range) f = REAL(close_range, 0);

	/* before the close, as in close() */
	if (!(flags & CLOSE_RANGE_CLOEXEC) && first <= last && pl_unmark_range(first, last))
		pl_count(PS_close_range, 0);
	return f ? f(first, last, flags) : (int)syscall(SYS_close_range, first, last, flags);
}

PL_API void closefrom(int lowfd)
{
	__typeof__(&closefrom) f = REAL(closefrom, 0);
	unsigned lo = lowfd < 0 ? 0 : (unsigned)lowfd;

	if (pl_unmark_range(lo, PL_MAX_FD - 1)) /* before the close */
		pl_count(PS_closefrom, 0);
	if (f)
		f(lowfd);
	else
		syscall(SYS_close_range, lo, ~0U, 0);
}

PL_API int fclose(FILE *stream)
{
	__typeof__(&fclose) f = REAL(fclose, 1);

	if (stream) {
		int e = errno, fd = fileno(stream); /* -1 for our cookie streams */

		errno = e;
		if (fd >= 0 && pl_tracked(fd)) {
			pl_mark(fd, 0); /* fclose closes through glibc's internal close: unmark first */
			pl_count(PS_fclose, 0);
		}
	}
	if (!f) {
		errno = ENOSYS;
		return EOF;
	}
	return f(stream);
}

/* ---- stdio ---------------------------------------------------------------- */

PL_API FILE *fopen(const char *path, const char *mode)
{
	__typeof__(&fopen) f = REAL(fopen, 1);

	if (!f) {
		errno = ENOSYS;
		return NULL;
	}
	return pl_fopened(f(path, mode), mode, PS_fopen);
}

PL_API FILE *fopen64(const char *path, const char *mode)
{
	__typeof__(&fopen64) f = REAL(fopen64, 1);

	if (!f) {
		errno = ENOSYS;
		return NULL;
	}
	return pl_fopened(f(path, mode), mode, PS_fopen64);
}

/* 0: not read yet, 1: kernel (default), 2: cookie. */
static int pl_fopen_state;

static int pl_fopen_cookie_mode(void)
{
	int s = __atomic_load_n(&pl_fopen_state, __ATOMIC_RELAXED);

	if (s == 0) {
		const char *v = secure_getenv("SURAND_PRELOAD_FOPEN");

		s = 1;
		if (v && strcmp(v, "cookie") == 0)
			s = 2;
		else if (v && *v && strcmp(v, "kernel") != 0)
			fprintf(stderr, "surand-preload: SURAND_PRELOAD_FOPEN=%s unknown "
				"(kernel or cookie), using kernel\n", v);
		__atomic_store_n(&pl_fopen_state, s, __ATOMIC_RELAXED);
	}
	return s == 2;
}

/* A cookie stream has no descriptor to pass on: no seed is a read error (EIO). */
static ssize_t pl_cookie_read(void *cookie, char *buf, size_t size)
{
	ssize_t r;

	(void)cookie;
	if (pl_serve(PS_cookie_read, buf, size, &r))
		return r;
	errno = EIO;
	return -1;
}

/* lseek on the random devices succeeds and moves nothing (the kernel's noop_llseek). */
static int pl_cookie_seek(void *cookie, off64_t *pos, int whence)
{
	(void)cookie;
	(void)whence;
	*pos = 0;
	return 0;
}

static int pl_cookie_close(void *cookie)
{
	(void)cookie;
	return 0;
}

/* Non-NULL token for the cookie streams: they carry no state (surand keeps it). */
static char pl_cookie_token;

/*
 * In cookie mode, a read-only stream on a random device is replaced by a
 * fopencookie() stream served by surand; the kernel's stream is closed.
 * Otherwise (and when fopencookie fails) the kernel's stream is returned.
 */
static FILE *pl_fopened(FILE *kf, const char *mode, enum pl_stat s)
{
	static const cookie_io_functions_t io = {
		.read = pl_cookie_read,
		.write = NULL, /* read-only: writes fail */
		.seek = pl_cookie_seek,
		.close = pl_cookie_close,
	};
	__typeof__(&fclose) fc;
	FILE *cf;
	int fd, e = errno;

	if (!kf || !pl_fopen_cookie_mode() || !surand_pl_fopen_mode_readonly(mode))
		return kf;
	fd = fileno(kf);
	errno = e;
	if (fd < 0 || pl_kind_of(fd) == SURAND_PL_OTHER)
		return kf;
	fc = REAL(fclose, 1); /* found: fopen was found the same way a moment ago */
	cf = fc ? fopencookie(&pl_cookie_token, "r", io) : NULL;
	if (!cf) {
		errno = e;
		return kf; /* no memory for the cookie stream: the kernel's stream still works */
	}
	pl_mark(fd, 0); /* unmark before the real close (glibc's internal close) */
	fc(kf);
	errno = e;
	pl_count(s, 0);
	return cf;
}

/* ---- constructor, fork, exit ---------------------------------------------- */

static void pl_atfork_child(void)
{
	int i;

	/* each process reports what it served itself */
	for (i = 0; i < PS_COUNT; i++)
		__atomic_store_n(&pl_stats[i], 0, __ATOMIC_RELAXED);
	__atomic_store_n(&pl_stat_bytes, 0, __ATOMIC_RELAXED);
}

/*
 * The stats line goes to the stderr the program started with: a copy made at
 * start (programs such as coreutils close stderr before exit), written only
 * if that number still is the same file at exit.
 */
#define PL_STATS_FD_MIN 100
static int pl_stats_fd = -1;
static dev_t pl_stats_dev;
static ino_t pl_stats_ino;

static void pl_stats_fd_save(void)
{
	struct stat st;
	int fd = (int)syscall(SYS_fcntl, STDERR_FILENO, F_DUPFD_CLOEXEC, PL_STATS_FD_MIN);

	if (fd < 0)
		return;
	if (pl_raw_fstat(fd, &st) != 0) {
		syscall(SYS_close, fd);
		return;
	}
	pl_stats_dev = st.st_dev;
	pl_stats_ino = st.st_ino;
	pl_stats_fd = fd;
}

__attribute__((constructor)) static void pl_init(void)
{
	int i;

	for (i = 0; i < PR_COUNT; i++) {
		void *p = dlsym(RTLD_NEXT, pl_real_names[i]);

		if (p)
			__atomic_store_n(&pl_real[i], p, __ATOMIC_RELEASE);
	}
	if (pl_stats_on())
		pl_stats_fd_save();
	(void)pl_fopen_cookie_mode();
	pthread_atfork(NULL, NULL, pl_atfork_child);
	__atomic_store_n(&pl_ready, 1, __ATOMIC_RELEASE);
}

/* 1 for the counters of calls answered with random bytes (the "served" group). */
static int pl_stat_serves(enum pl_stat s)
{
	switch (s) {
	case PS_getrandom: case PS_getentropy: case PS_arc4random: case PS_arc4random_buf:
	case PS_arc4random_uniform: case PS_read: case PS_readv: case PS_pread: case PS_pread64:
	case PS_preadv: case PS_preadv64: case PS_preadv2: case PS_preadv64v2: case PS___read_chk:
	case PS___pread_chk: case PS___pread64_chk: case PS_cookie_read:
		return 1;
	default:
		return 0;
	}
}

/* Appends the non-zero counters of one group ("name N, name N") to line. */
static size_t pl_stats_group(char *line, size_t cap, size_t n, int serves, const char *head)
{
	int i, w, first = 1;

	for (i = 0; i < PS_COUNT && n < cap; i++) {
		uint64_t v = __atomic_load_n(&pl_stats[i], __ATOMIC_RELAXED);

		if (!v || i == PS_to_kernel || pl_stat_serves((enum pl_stat)i) != serves)
			continue;
		w = snprintf(line + n, cap - n, "%s%s %llu", first ? head : ", ", pl_stat_names[i],
			     (unsigned long long)v);
		n += w > 0 ? (size_t)w : 0;
		first = 0;
	}
	return n;
}

/*
 * One line per process, non-zero counters only:
 *   surand-preload: pid N: served B bytes in M calls: read 128, getrandom 4;
 *   descriptors: open 1, close 1; to the kernel: K calls
 * "served" counts calls answered by surand; "descriptors" the opens and dups
 * that marked a descriptor, the closes that cleared a mark, the fopen streams
 * made and the stale marks found; "to the kernel" the calls surand could not
 * serve (no seed) that went to the real function.
 */
__attribute__((destructor)) static void pl_fini(void)
{
	char line[2048];
	uint64_t calls = 0, tk;
	size_t n;
	int i, w, fd;

	if (!pl_stats_on())
		return;
	for (i = 0; i < PS_COUNT; i++)
		if (pl_stat_serves((enum pl_stat)i))
			calls += __atomic_load_n(&pl_stats[i], __ATOMIC_RELAXED);
	w = snprintf(line, sizeof(line), "surand-preload: pid %ld: served %llu bytes in %llu calls",
		     (long)getpid(),
		     (unsigned long long)__atomic_load_n(&pl_stat_bytes, __ATOMIC_RELAXED),
		     (unsigned long long)calls);
	n = w > 0 ? (size_t)w : 0;
	n = pl_stats_group(line, sizeof(line), n, 1, ": ");
	n = pl_stats_group(line, sizeof(line), n, 0, "; descriptors: ");
	tk = __atomic_load_n(&pl_stats[PS_to_kernel], __ATOMIC_RELAXED);
	if (tk && n < sizeof(line)) {
		w = snprintf(line + n, sizeof(line) - n, "; to the kernel: %llu calls",
			     (unsigned long long)tk);
		n += w > 0 ? (size_t)w : 0;
	}
	if (n < sizeof(line)) {
		w = snprintf(line + n, sizeof(line) - n, "\n");
		n += w > 0 ? (size_t)w : 0;
	}
	if (n > sizeof(line))
		n = sizeof(line);
	fd = STDERR_FILENO;
	if (pl_stats_fd >= 0) {
		struct stat st;

		/* our copy, unless the program closed it or put something else on its number */
		if (pl_raw_fstat(pl_stats_fd, &st) == 0 && st.st_dev == pl_stats_dev &&
		    st.st_ino == pl_stats_ino)
			fd = pl_stats_fd;
	}
	if (write(fd, line, n) < 0)
		return; /* nothing to do about a closed stderr at exit */
}

/* ---- the library's own I/O ------------------------------------------------
 *
 * mk/preload.mk renames every call the statically linked library objects make
 * to an interposed name X into surand_pl_lib_X (objcopy --redefine-syms with
 * tools/preload/lib.redefine) and checks that none is left.  These are raw
 * syscalls: surand's seeding (getrandom, and its /dev/urandom fallback with
 * open/read/close) must reach the kernel, never this interposer's own
 * answers, and must work before the constructor and in signal handlers.
 */
PL_HIDDEN ssize_t surand_pl_lib_getrandom(void *buf, size_t len, unsigned int flags);
PL_HIDDEN int surand_pl_lib_getentropy(void *buf, size_t len);
PL_HIDDEN int surand_pl_lib_open(const char *path, int flags, ...);
PL_HIDDEN int surand_pl_lib_open64(const char *path, int flags, ...);
PL_HIDDEN int surand_pl_lib_openat(int dirfd, const char *path, int flags, ...);
PL_HIDDEN int surand_pl_lib_openat64(int dirfd, const char *path, int flags, ...);
PL_HIDDEN int surand_pl_lib___open_2(const char *path, int flags);
PL_HIDDEN int surand_pl_lib___open64_2(const char *path, int flags);
PL_HIDDEN int surand_pl_lib___openat_2(int dirfd, const char *path, int flags);
PL_HIDDEN int surand_pl_lib___openat64_2(int dirfd, const char *path, int flags);
PL_HIDDEN ssize_t surand_pl_lib_read(int fd, void *buf, size_t count);
PL_HIDDEN ssize_t surand_pl_lib___read_chk(int fd, void *buf, size_t count, size_t buflen);
PL_HIDDEN ssize_t surand_pl_lib_readv(int fd, const struct iovec *iov, int iovcnt);
PL_HIDDEN ssize_t surand_pl_lib_pread(int fd, void *buf, size_t count, off_t off);
PL_HIDDEN ssize_t surand_pl_lib_pread64(int fd, void *buf, size_t count, off64_t off);
PL_HIDDEN ssize_t surand_pl_lib___pread_chk(int fd, void *buf, size_t count, off_t off,
					    size_t buflen);
PL_HIDDEN ssize_t surand_pl_lib___pread64_chk(int fd, void *buf, size_t count, off64_t off,
					      size_t buflen);
PL_HIDDEN ssize_t surand_pl_lib_preadv(int fd, const struct iovec *iov, int iovcnt, off_t off);
PL_HIDDEN ssize_t surand_pl_lib_preadv64(int fd, const struct iovec *iov, int iovcnt,
					 off64_t off);
PL_HIDDEN ssize_t surand_pl_lib_preadv2(int fd, const struct iovec *iov, int iovcnt, off_t off,
					int flags);
PL_HIDDEN ssize_t surand_pl_lib_preadv64v2(int fd, const struct iovec *iov, int iovcnt,
					   off64_t off, int flags);
PL_HIDDEN int surand_pl_lib_dup(int oldfd);
PL_HIDDEN int surand_pl_lib_dup2(int oldfd, int newfd);
PL_HIDDEN int surand_pl_lib_dup3(int oldfd, int newfd, int flags);
PL_HIDDEN int surand_pl_lib_fcntl(int fd, int cmd, ...);
PL_HIDDEN int surand_pl_lib_fcntl64(int fd, int cmd, ...);
PL_HIDDEN int surand_pl_lib_close(int fd);
PL_HIDDEN int surand_pl_lib_close_range(unsigned int first, unsigned int last, int flags);
PL_HIDDEN void surand_pl_lib_closefrom(int lowfd);
PL_HIDDEN FILE *surand_pl_lib_fopen(const char *path, const char *mode);
PL_HIDDEN FILE *surand_pl_lib_fopen64(const char *path, const char *mode);
PL_HIDDEN int surand_pl_lib_fclose(FILE *stream);

PL_HIDDEN ssize_t surand_pl_lib_getrandom(void *buf, size_t len, unsigned int flags)
{
	return syscall(SYS_getrandom, buf, len, flags);
}

PL_HIDDEN int surand_pl_lib_getentropy(void *buf, size_t len)
{
	unsigned char *p = buf;

	if (len > 256) { /* getentropy's documented limit */
		errno = EIO;
		return -1;
	}
	while (len > 0) {
		long n = syscall(SYS_getrandom, p, len, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

PL_HIDDEN int surand_pl_lib_open(const char *path, int flags, ...)
{
	mode_t mode;

	PL_OPEN_MODE(flags, flags, mode);
	return pl_raw_openat(AT_FDCWD, path, flags, mode);
}

PL_HIDDEN int surand_pl_lib_open64(const char *path, int flags, ...)
{
	mode_t mode;

	PL_OPEN_MODE(flags, flags, mode);
	return pl_raw_openat(AT_FDCWD, path, flags | O_LARGEFILE, mode);
}

PL_HIDDEN int surand_pl_lib_openat(int dirfd, const char *path, int flags, ...)
{
	mode_t mode;

	PL_OPEN_MODE(flags, flags, mode);
	return pl_raw_openat(dirfd, path, flags, mode);
}

PL_HIDDEN int surand_pl_lib_openat64(int dirfd, const char *path, int flags, ...)
{
	mode_t mode;

	PL_OPEN_MODE(flags, flags, mode);
	return pl_raw_openat(dirfd, path, flags | O_LARGEFILE, mode);
}

PL_HIDDEN int surand_pl_lib___open_2(const char *path, int flags)
{
	return pl_open2_raw(AT_FDCWD, path, flags);
}

PL_HIDDEN int surand_pl_lib___open64_2(const char *path, int flags)
{
	return pl_open2_raw(AT_FDCWD, path, flags);
}

PL_HIDDEN int surand_pl_lib___openat_2(int dirfd, const char *path, int flags)
{
	return pl_open2_raw(dirfd, path, flags);
}

PL_HIDDEN int surand_pl_lib___openat64_2(int dirfd, const char *path, int flags)
{
	return pl_open2_raw(dirfd, path, flags);
}

PL_HIDDEN ssize_t surand_pl_lib_read(int fd, void *buf, size_t count)
{
	return syscall(SYS_read, fd, buf, count);
}

PL_HIDDEN ssize_t surand_pl_lib___read_chk(int fd, void *buf, size_t count, size_t buflen)
{
	if (count > buflen)
		__chk_fail();
	return syscall(SYS_read, fd, buf, count);
}

PL_HIDDEN ssize_t surand_pl_lib_readv(int fd, const struct iovec *iov, int iovcnt)
{
	return syscall(SYS_readv, fd, iov, iovcnt);
}

PL_HIDDEN ssize_t surand_pl_lib_pread(int fd, void *buf, size_t count, off_t off)
{
	return syscall(SYS_pread64, fd, buf, count, off);
}

PL_HIDDEN ssize_t surand_pl_lib_pread64(int fd, void *buf, size_t count, off64_t off)
{
	return syscall(SYS_pread64, fd, buf, count, off);
}

PL_HIDDEN ssize_t surand_pl_lib___pread_chk(int fd, void *buf, size_t count, off_t off,
					    size_t buflen)
{
	if (count > buflen)
		__chk_fail();
	return syscall(SYS_pread64, fd, buf, count, off);
}

PL_HIDDEN ssize_t surand_pl_lib___pread64_chk(int fd, void *buf, size_t count, off64_t off,
					      size_t buflen)
{
	if (count > buflen)
		__chk_fail();
	return syscall(SYS_pread64, fd, buf, count, off);
}

PL_HIDDEN ssize_t surand_pl_lib_preadv(int fd, const struct iovec *iov, int iovcnt, off_t off)
{
	return syscall(SYS_preadv, fd, iov, iovcnt, PL_LO_HI(off));
}

PL_HIDDEN ssize_t surand_pl_lib_preadv64(int fd, const struct iovec *iov, int iovcnt,
					 off64_t off)
{
	return syscall(SYS_preadv, fd, iov, iovcnt, PL_LO_HI(off));
}

PL_HIDDEN ssize_t surand_pl_lib_preadv2(int fd, const struct iovec *iov, int iovcnt, off_t off,
					int flags)
{
	return syscall(SYS_preadv2, fd, iov, iovcnt, PL_LO_HI(off), flags);
}

PL_HIDDEN ssize_t surand_pl_lib_preadv64v2(int fd, const struct iovec *iov, int iovcnt,
					   off64_t off, int flags)
{
	return syscall(SYS_preadv2, fd, iov, iovcnt, PL_LO_HI(off), flags);
}

PL_HIDDEN int surand_pl_lib_dup(int oldfd)
{
	return (int)syscall(SYS_dup, oldfd);
}

PL_HIDDEN int surand_pl_lib_dup2(int oldfd, int newfd)
{
	return pl_raw_dup2(oldfd, newfd, 0);
}

PL_HIDDEN int surand_pl_lib_dup3(int oldfd, int newfd, int flags)
{
	return (int)syscall(SYS_dup3, oldfd, newfd, flags);
}

/* The library's fcntl and fcntl64: straight to the kernel. */
PL_FCNTL_FN(PL_HIDDEN, surand_pl_lib_fcntl, (int)syscall(SYS_fcntl, fd, cmd, arg))
PL_FCNTL_FN(PL_HIDDEN, surand_pl_lib_fcntl64, (int)syscall(SYS_fcntl, fd, cmd, arg))

PL_HIDDEN int surand_pl_lib_close(int fd)
{
	return (int)syscall(SYS_close, fd);
}

PL_HIDDEN int surand_pl_lib_close_range(unsigned int first, unsigned int last, int flags)
{
	return (int)syscall(SYS_close_range, first, last, flags);
}

PL_HIDDEN void surand_pl_lib_closefrom(int lowfd)
{
	syscall(SYS_close_range, lowfd < 0 ? 0U : (unsigned)lowfd, ~0U, 0);
}

/* stdio has no raw form: the real functions (the descriptor they open is not marked). */
PL_HIDDEN FILE *surand_pl_lib_fopen(const char *path, const char *mode)
{
	__typeof__(&fopen) f = REAL(fopen, 1);

	if (!f) {
		errno = ENOSYS;
		return NULL;
	}
	return f(path, mode);
}

PL_HIDDEN FILE *surand_pl_lib_fopen64(const char *path, const char *mode)
{
	__typeof__(&fopen64) f = REAL(fopen64, 1);

	if (!f) {
		errno = ENOSYS;
		return NULL;
	}
	return f(path, mode);
}

PL_HIDDEN int surand_pl_lib_fclose(FILE *stream)
{
	__typeof__(&fclose) f = REAL(fclose, 1);

	if (!f) {
		errno = ENOSYS;
		return EOF;
	}
	return f(stream);
}
