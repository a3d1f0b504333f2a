/*
 * surand.h - scalable urandom: fast, scalable, secure random bytes for
 * many-threaded Linux programs.  The one public header.
 *
 * Every call is thread-safe, async-signal-safe and fork-safe: a child never
 * repeats its parent's bytes, two threads never receive the same bytes, and no
 * call ever returns output that was not seeded from the kernel's ready CRNG.
 * A call from a signal handler that interrupted a surand call on the same
 * thread is served by the kernel.  The conditions of each promise (a late
 * dlopen, a siglongjmp out of a call, _Fork in a threaded parent, kernels
 * without wipe-on-fork memory) are in docs/threat-model.md.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SURAND_H
#define SURAND_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h> /* ssize_t */

#ifdef __cplusplus
extern "C" {
#endif

#define SURAND_VERSION_MAJOR 1
#define SURAND_VERSION_MINOR 1
#define SURAND_VERSION_PATCH 0
#define SURAND_VERSION_STRING "1.1.0"

/* Flags of surand_getrandom(); equal to Linux's GRND_* values (linux/random.h). */
#define SURAND_GRND_NONBLOCK 0x0001u
#define SURAND_GRND_RANDOM   0x0002u
#define SURAND_GRND_INSECURE 0x0004u

/* ------------------------------------------------------------------------ */
/* Random bytes                                                             */
/* ------------------------------------------------------------------------ */

/*
 * Fills buf with len random bytes.  Never fails: it waits for the kernel's
 * CRNG to be ready on first use, and if the kernel refuses to give any seed
 * at all (getrandom(2) and /dev/urandom both denied, or what is at
 * /dev/urandom not the kernel's device) it prints one line on stderr and calls
 * abort() rather than return guessable bytes.
 */
void surand_bytes(void *buf, size_t len);

/*
 * getrandom(2) semantics.  Returns len (clamped to SSIZE_MAX) or -1 with errno,
 * checked in the kernel's order (flags, readiness, buffer):
 *   EINVAL  unknown flag bits, or GRND_INSECURE together with GRND_RANDOM;
 *   EAGAIN  GRND_NONBLOCK and the kernel's CRNG is not ready yet (len 0
 *           too), or the generator could not be set up (pthread_key_create);
 *   EFAULT  buf is NULL and len > 0 (a bad non-NULL pointer faults like
 *           memcpy, or is the kernel's EFAULT where it writes buf itself);
 *   ENOMEM  no memory for the generator's secret state;
 *   and when no seed can be had from the kernel at all (getrandom(2) refused
 *   with ENOSYS, EPERM or EACCES, then the /dev/urandom fallback failed), the
 *   fallback's error:
 *   ENOENT  no /dev/urandom or /dev/random (a chroot or container without /dev);
 *   EACCES, EPERM  opening the device refused;
 *   EMFILE, ENFILE  no descriptor free for it;
 *   ENODEV  what is at /dev/urandom (/dev/random) is not the kernel's character
 *           device 1:9 (1:8): a file or another device bound over it is never read;
 *   EIO     the device's poll reported an error, or its read returned nothing;
 *   any other errno getrandom(2) itself returns (one a seccomp filter chose)
 *   is passed on.  EINTR is never returned: a wait a signal interrupts resumes.
 * Before the CRNG is ready, len 0 waits (or EAGAIN) as getrandom(2) does.
 * GRND_RANDOM has no effect (as on Linux 5.6+).  GRND_INSECURE before
 * readiness never waits: the kernel's best effort, as is (on the fallback,
 * and on kernels before 5.6, /dev/urandom without the readiness poll).
 */
ssize_t surand_getrandom(void *buf, size_t len, unsigned int flags);

/* getentropy(3) semantics: 0, or -1 with errno (EIO for len > 256, EFAULT). */
int surand_getentropy(void *buf, size_t len);

/* Integers.  Never fail (see surand_bytes). */
uint32_t surand_u32(void);
uint64_t surand_u64(void);
/* Uniform in [0, upper_bound), without bias; upper_bound 0 or 1 returns 0. */
uint64_t surand_uniform(uint64_t upper_bound);
/* Uniform in [0, 1) with 53 random bits. */
double surand_double(void);

/*
 * Integers in bulk: n words into out[0..n), the bytes surand_bytes(out, 4 * n)
 * (8 * n) would give, at the ChaCha20 body's speed once n is a few thousand
 * (they come straight from a one-use key's keystream, as a large
 * surand_bytes does).  surand_uniform_n: n draws uniform in
 * [0, upper_bound), each without bias as surand_uniform's (a rejected word is
 * replaced by another draw); upper_bound 0 or 1 gives zeros.  n 0 does
 * nothing; out NULL with n > 0 is a bad call (abort, as surand_bytes).
 * Never fail (see surand_bytes).
 */
void surand_u32s(uint32_t *out, size_t n);
void surand_u64s(uint64_t *out, size_t n);
void surand_uniform_n(uint64_t *out, size_t n, uint64_t upper_bound);

/* ------------------------------------------------------------------------ */
/* Control                                                                  */
/* ------------------------------------------------------------------------ */

/*
 * Reseeds the process-wide base key from the kernel now (and, when at least
 * 256 bits have been credited to the entropy pool, from the pool too).  Every
 * thread re-keys before its next output.  0, or -1 with errno.
 */
int surand_reseed(void);

/*
 * Selects the generator design for the whole process, before the first draw
 * (it is set up here, not in a later call).  Names: see
 * surand_backend_names().  0, or -1 with errno: EINVAL for an unknown name,
 * EBUSY when a draw was already served by another design, EAGAIN when called
 * from a signal handler that interrupted a surand call on this thread.
 */
int surand_set_backend(const char *name);

/* A static, comma-separated list of the backend names, the default first. */
const char *surand_backend_names(void);

/* ------------------------------------------------------------------------ */
/* Input side (entropy pool)                                                */
/* ------------------------------------------------------------------------ */

/*
 * Mixes len bytes into the entropy pool and credits credit_bits of entropy.
 * 0, or -1 with errno: EFAULT (NULL with len > 0), EINVAL (credit_bits > 8*len,
 * nothing is mixed or credited).
 */
int surand_add_entropy(const void *buf, size_t len, unsigned int credit_bits);

/* Adds one unpredictable event (a timing, a counter) to a per-CPU fast pool. */
void surand_add_event(uint64_t value);

/* ------------------------------------------------------------------------ */
/* Statistics                                                               */
/* ------------------------------------------------------------------------ */

/*
 * Size-versioned: callers pass sizeof(struct surand_stats); fields are only
 * ever appended, and surand_stats() fills min(size, its own size) bytes.
 * All counters are process-wide since start (or since the last fork, in a
 * child).  No field ever holds key or state material.
 */
struct surand_stats {
	uint32_t size;             /* bytes surand filled in */
	uint32_t version;          /* layout version, 1 */
	char backend[16];          /* design in use, e.g. "thread" */
	char chacha_impl[16];      /* ChaCha20 body: portable/ssse3/avx2/avx512 */
	uint64_t bytes;            /* bytes returned by the generator */
	uint64_t calls;            /* calls that returned bytes */
	uint64_t refills;          /* per-thread batch refills */
	uint64_t direct_fills;     /* large requests filled from a one-use key */
	uint64_t reseeds_initial;  /* first seeding of the base key */
	uint64_t reseeds_timer;    /* scheduled reseeds (interval elapsed) */
	uint64_t reseeds_forced;   /* surand_reseed() calls */
	uint64_t reseeds_fork;     /* re-seeds in a fork child */
	uint64_t reseeds_catastrophic; /* reseeds that included the entropy pool */
	uint64_t rekeys;           /* thread keys taken from the base key */
	uint64_t threads_seen;     /* threads that ever drew bytes */
	uint64_t slots_in_use;     /* per-thread slots currently held */
	uint64_t slots_total;      /* per-thread slots mapped */
	uint64_t fork_generation;  /* fork()s this process's line has seen */
	uint64_t fallback_signal;  /* nested (signal-handler) calls sent to the kernel */
	uint64_t fallback_nomem;   /* calls sent to the kernel for want of a slot */
	uint64_t fallback_urandom; /* seeds read from /dev/urandom (getrandom refused) */
	uint32_t vdso_fold;        /* 1: every key folds in vDSO getrandom bytes */
	uint32_t droppable;        /* 1: state in MAP_DROPPABLE memory, 0: WIPEONFORK */
	uint32_t reseed_ceiling_s; /* reseed interval ceiling in seconds */
	uint32_t kernel_only;      /* 1: no wipe-on-fork memory here: the kernel serves every call */
	/* input side (entropy pool).  pool_credit_bits: the bits credited since
	 * the pool's last extraction (a catastrophic reseed, or a pull by a backend
	 * built on the 2015 input pool) or set-up (first use, fork child, dropped
	 * page), capped at 256 */
	uint64_t pool_credit_bits;     /* the pool's credit now, 0..256 (above) */
	uint64_t events;               /* events accepted (source on) */
	uint64_t entropy_bytes_added;  /* bytes given to surand_add_entropy() */
	/* design-specific counters of the backend in use (their meaning per
	 * backend: docs/designs.md); zero where a backend has fewer */
	uint64_t backend_counters[8];
	/* appended after backend_counters (read .size before using them) */
	uint64_t fallback_kernel_only; /* calls the kernel served because kernel_only is 1 */
	uint64_t abandoned_calls;  /* calls left by a siglongjmp, found and cleared later */
};

int surand_stats(struct surand_stats *st, size_t size);

/*
 * The entropy pool's sources, one entry each (docs/entropy.md): what each
 * mixed and was credited, its health-test failures, whether it is on.
 * Size-versioned as surand_stats: callers pass sizeof(struct
 * surand_source_stats); fields are only ever appended after source[], whose
 * entry layout is fixed; min(size, its own size) bytes are filled.  0, or -1
 * with errno EINVAL (st NULL, or size < 8).  Counters are process-wide since
 * start (or since the last fork, in a child).  No field holds pool or sample
 * material.  The base key's reseeds by cause are in struct surand_stats.
 */
#define SURAND_SOURCES_MAX 8 /* entries in source[]; nsources are filled */
struct surand_source_stat {
	char name[16];            /* "kernel", "cpu", "jitter", "app", "events" */
	uint32_t enabled;         /* 1: switched on (not left out by SURAND_ENTROPY_OFF) */
	uint32_t available;       /* 1: usable here (cpu: RDSEED or RDRAND present) */
	uint32_t disabled;        /* 1: disabled for the process by repeated health failures */
	uint32_t credit_paused;   /* 1: health start-up or hold-off: mixed, not credited */
	uint64_t samples;         /* raw samples: words, deltas, calls, events */
	uint64_t bytes;           /* bytes mixed into the entropy pool */
	uint64_t credited_bits;   /* bits credited (before the pool's 256-bit cap) */
	uint64_t failures;        /* no data, EAGAIN, no memory */
	uint64_t skipped;         /* rounds not sampled: off, disabled, busy, absent */
	uint64_t health_rct;      /* repetition count test failures (SP 800-90B 4.4.1) */
	uint64_t health_apt;      /* adaptive proportion test failures (4.4.2) */
	uint64_t overflow;        /* events: all fast-pool slots busy, lock-free path */
};
/*
 * Version 2: the power-up qualification and credit accounting of each source
 * (docs/entropy.md section 3).  Only a timer-based source is qualified
 * (jitter); the others have state SURAND_QUAL_NONE and zeros.  A source is
 * qualified over its first 1024 samples; while pending, and forever when
 * disqualified, it is mixed into the pool and credited nothing.
 */
#define SURAND_QUAL_NONE 0         /* no power-up qualification for this source */
#define SURAND_QUAL_PENDING 1      /* gathering its qualification samples */
#define SURAND_QUAL_QUALIFIED 2    /* passed: credited per clean health-test window */
#define SURAND_QUAL_DISQUALIFIED 3 /* failed (reason): mixed, never credited */
#define SURAND_DISQ_COARSE 1       /* a delta of 0: the timer did not advance over a loop */
#define SURAND_DISQ_NONMONOTONIC 2 /* the timer ran backwards more than 3 times */
#define SURAND_DISQ_STUCK 3        /* > 90% of deltas with a zero 1st, 2nd or 3rd difference */
#define SURAND_DISQ_HEALTH 4       /* a repetition count or adaptive proportion alarm */
#define SURAND_DISQ_LOW_ENTROPY 5  /* min-entropy estimate below the credited rate */
struct surand_source_qual {
	uint32_t state;               /* SURAND_QUAL_* */
	uint32_t reason;              /* SURAND_DISQ_* when disqualified, else 0 */
	char reason_name[16];         /* "coarse", "non-monotonic", "stuck", "health", "low-entropy" or "" */
	uint32_t samples;             /* qualification samples so far (the verdict: 1024) */
	uint32_t zero_deltas;         /* among them: deltas of 0 */
	uint32_t backwards;           /* ... the timer ran backwards */
	uint32_t stuck;               /* ... stuck: a zero 1st, 2nd or 3rd difference */
	uint32_t alarms;              /* ... health-test alarms */
	uint32_t h_estimate_millibits; /* SP 800-90B 6.3.1 most-common-value estimate per
					* sample, 1/1000 bit (at the verdict; 0 before) */
	uint32_t h_credited_millibits; /* credited per counted sample, 1/1000 bit (jitter: 125) */
	uint32_t reserved0;
	uint64_t stuck_total;         /* stuck samples since start: neither counted nor credited */
	uint64_t counted;             /* samples whose credit was granted (jitter: credited_bits
				       * = counted / 8, the remainder carried) */
	uint64_t windows_clean;       /* qualified: health-test windows closed with no alarm */
	uint64_t windows_alarmed;     /* qualified: windows with an alarm (nothing credited) */
};
struct surand_source_stats {
	uint32_t size;                 /* bytes surand filled in */
	uint32_t version;              /* layout version, 2 (1: up to source[]) */
	uint32_t nsources;             /* entries of source[] in use */
	uint32_t reserved0;
	uint64_t pool_credit_bits;     /* as in surand_stats: since last extraction/set-up */
	uint64_t reseeds_catastrophic; /* reseeds that included the entropy pool */
	uint64_t pool_extractions;     /* extractions from the pool (each restarts the credit) */
	struct surand_source_stat source[SURAND_SOURCES_MAX];
	/* version 2 appends: */
	struct surand_source_qual qual[SURAND_SOURCES_MAX]; /* same order as source[] */
};

int surand_source_stats(struct surand_source_stats *st, size_t size);

/* ------------------------------------------------------------------------ */
/* Reproducible streams (NOT the secure generator)                          */
/* ------------------------------------------------------------------------ */

/*
 * A keyed, seekable ChaCha20 stream for simulations and verification: the same
 * (seed, stream_id) gives the same bytes on every machine and every SIMD body.
 * It never reseeds and erases no key: whoever holds the seed can reproduce
 * every byte.  Use surand_bytes() for keys, nonces and anything secret.
 * Layout: ChaCha20 (20 rounds), key = seed, 64-bit nonce = stream_id, 64-bit
 * block counter = offset / 64; byte i of the stream is byte i % 64 of block
 * i / 64.
 */
struct surand_stream {
	uint32_t key[8];
	uint64_t nonce;
	uint64_t offset;    /* next byte of the stream */
	uint8_t buf[64];    /* the block that holds offset, when buf_valid */
	uint32_t buf_valid;
	uint32_t reserved;
};

void surand_stream_init(struct surand_stream *s, const uint8_t seed[32], uint64_t stream_id);
void surand_stream_bytes(struct surand_stream *s, void *buf, size_t len);
uint64_t surand_stream_u64(struct surand_stream *s);
void surand_stream_seek(struct surand_stream *s, uint64_t offset);
/* Wipes the stream's key and buffer. */
void surand_stream_wipe(struct surand_stream *s);

/* ------------------------------------------------------------------------ */
/* The inline word path (opt-in: #define SURAND_INLINE before this header)  */
/* ------------------------------------------------------------------------ */

/*
 * With SURAND_INLINE defined before the first #include <surand.h>, calls
 * surand_u32() and surand_u64() expand to surand_u32_inline() and
 * surand_u64_inline(): inline code that draws from the calling thread's batch
 * of the default design itself, with no call into the library, under the
 * same rules as the call (docs/inline.md, man 3 surand_inline): the busy
 * mark is set first (a signal handler's draw in between goes to the kernel);
 * the batch's generation is checked against the process's before the copy
 * and again after it (a fork, a reseed, a re-key, a dropped page: declined);
 * the bytes handed out are zeroed in the batch as they are copied.  What the
 * inline code declines (an empty batch, a thread's first draw, another
 * design, a nested call, a kernel-only process) is the out-of-line call.
 * (surand_u32)() and &surand_u32 still name the library's functions.
 *
 * The price: the program reads the library's per-thread state through the
 * frozen layout below (ABI 2, symbol version SURAND_INLINE_1), tied to the
 * library's major version (libsurand.so.1).  A library of another layout
 * refuses it at run time: surand_inline_thread() returns NULL and every draw
 * takes the call.  Without SURAND_INLINE this section declares nothing else.
 */
#if defined(SURAND_INLINE) || defined(SURAND_INLINE_DECLARE)
/* ABI 2: the layout of ABI 1, the busy mark in one word (ABI 1 stored the
 * return address apart; a library of ABI 2 still serves such a header). */
#define SURAND_INLINE_ABI 2u
#define SURAND_INLINE_BATCH_BYTES 4032u        /* bytes of a thread's batch */
#define SURAND_INLINE_IDLE ((uintptr_t)1)      /* the busy mark: no call in progress */

/*
 * The busy mark of a call or an inline draw: one word, stored by one
 * instruction, so a signal lands before it or after it, never between two
 * halves.  It holds the canonical frame address of the function that draws
 * and, where that address fits in 48 bits (every stack the kernel or glibc
 * maps; a larger one goes without), bit 63 set and the low 15 bits of the
 * return address in bits 48-62: what tells the library a live call, whose
 * return address is still in its frame, from one a siglongjmp abandoned.
 */
#if UINTPTR_MAX > 0xffffffffu
#define SURAND_INLINE_MARK_TAGGED ((uintptr_t)1 << 63)
#define SURAND_INLINE_MARK_CFA_BITS 48
#define SURAND_INLINE_MARK_RET_MASK ((uintptr_t)0x7fff)
static inline __attribute__((always_inline, unused)) uintptr_t surand_inline_mark_(uintptr_t cfa,
										     uintptr_t ret)
{
	if (cfa >> SURAND_INLINE_MARK_CFA_BITS)
		return cfa;
	return cfa | SURAND_INLINE_MARK_TAGGED |
	       (ret & SURAND_INLINE_MARK_RET_MASK) << SURAND_INLINE_MARK_CFA_BITS;
}
#else
#define SURAND_INLINE_MARK_TAGGED ((uintptr_t)0) /* 32-bit: the frame address alone */
static inline __attribute__((always_inline, unused)) uintptr_t surand_inline_mark_(uintptr_t cfa,
										     uintptr_t ret)
{
	(void)ret;
	return cfa;
}
#endif

/* A thread's batch page, ABI 2 (4096 bytes, page-aligned).  Read and written
 * by the inline path only as below; the opaque words are the library's. */
struct surand_inline_slot {
	unsigned char batch[SURAND_INLINE_BATCH_BYTES]; /* output not yet handed out, at [pos, end) */
	uint32_t opaque0[8];
	uint64_t gen;      /* the base generation the batch belongs to; 0: empty, dropped, wiped */
	uint32_t pos;      /* the next unread byte of batch (SURAND_INLINE_BATCH_BYTES: empty) */
	uint32_t opaque1[5];
};

/* A thread's view, ABI 2: lives in the library's thread-local storage, one
 * per thread, for the thread's lifetime; only its own thread uses it. */
struct surand_inline_thread {
	struct surand_inline_slot *slot; /* the thread's batch; NULL: none yet (or another design) */
	uint64_t words[2];               /* draws served of 4 and 8 bytes (surand_stats adds them) */
	uintptr_t *call_state;           /* the thread's busy mark: SURAND_INLINE_IDLE, or busy */
	uintptr_t *abi1_ret;             /* where a header of ABI 1 stores its return address */
	const uint64_t *base_gen;        /* the process's base generation (never 0) */
};

/*
 * The calling thread's view for a header of ABI abi whose structures have
 * the given sizes; NULL (nothing changed) when the library has another
 * layout.  Async-signal-safe; never fails otherwise.
 */
struct surand_inline_thread *surand_inline_thread(unsigned abi, size_t thread_size,
						  size_t slot_size);
#endif

#ifdef SURAND_INLINE
#if !defined(__GNUC__)
#error "SURAND_INLINE needs GCC or Clang (GNU C extensions)"
#endif
/* For the test suite: a statement run inside the inline draw (where 1:
 * the mark held and the batch checked; 2: the bytes copied, before the
 * re-check).  Empty unless defined before the include. */
#ifndef SURAND_INLINE_TEST_POINT
#define SURAND_INLINE_TEST_POINT(where) ((void)0)
#endif

/* This translation unit's copy of the thread's view: NULL before the first
 * draw, (void *)1 when the library refused this header. */
static __thread struct surand_inline_thread *surand_inline_tls_;

static __attribute__((noinline, cold, unused)) struct surand_inline_thread *
surand_inline_attach_(void)
{
	struct surand_inline_thread *t = surand_inline_thread(
		SURAND_INLINE_ABI, sizeof(struct surand_inline_thread), sizeof(struct surand_inline_slot));

	surand_inline_tls_ = t ? t : (struct surand_inline_thread *)(uintptr_t)1;
	return t;
}

/* The generation re-read after the copy, the copy ordered before it
 * (aarch64: dmb ishld).  ThreadSanitizer does not model fences (GCC refuses
 * them under -fsanitize=thread), so its builds order the copy with an acq-rel
 * read-modify-write that adds 0: the same order, checked by the sanitizer. */
#if defined(__SANITIZE_THREAD__)
#define SURAND_INLINE_RECHECK_(g) __atomic_fetch_add((g), 0, __ATOMIC_ACQ_REL)
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SURAND_INLINE_RECHECK_(g) __atomic_fetch_add((g), 0, __ATOMIC_ACQ_REL)
#endif
#endif
#ifndef SURAND_INLINE_RECHECK_
#define SURAND_INLINE_RECHECK_(g) \
	(__atomic_thread_fence(__ATOMIC_ACQUIRE), __atomic_load_n((g), __ATOMIC_RELAXED))
#endif

static inline __attribute__((always_inline, unused)) uint64_t surand_inline_word_(unsigned n)
{
	struct surand_inline_thread *t = surand_inline_tls_;
	struct surand_inline_slot *s;
	const uint64_t *base_gen;
	uintptr_t *state;
	unsigned char *p;
	uint64_t gen, v = 0;
	uint32_t pos, x;

	if (__builtin_expect((uintptr_t)t <= 1, 0)) {
		if (t || !(t = surand_inline_attach_()))
			goto call; /* refused: this header's layout is not the library's */
	}
	/* The view's pointers in registers, read once (the fences below would
	 * reload them).  The slot pointer changes only on this thread and never
	 * while a draw holds the mark: at its first draw, at thread exit, when
	 * a call recovers an abandoned mark. */
	state = t->call_state;
	s = t->slot;
	base_gen = t->base_gen;
	if (__builtin_expect(*state != SURAND_INLINE_IDLE, 0))
		goto call; /* first draw, kernel-only, or nested in a handler: the call decides */
	/* The busy mark before the batch is read: a handler's draw from here on
	 * goes to the kernel and never hands out these bytes. */
	__atomic_store_n(state,
			 surand_inline_mark_((uintptr_t)__builtin_dwarf_cfa(),
					     (uintptr_t)__builtin_return_address(0)),
			 __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (__builtin_expect(s == NULL, 0))
		goto leave;
	gen = s->gen;
	pos = s->pos;
	/* One shared load: a fork, reseed or dropped page moved the generation. */
	if (__builtin_expect(gen != __atomic_load_n(base_gen, __ATOMIC_ACQUIRE) ||
				     pos > SURAND_INLINE_BATCH_BYTES - n, 0))
		goto leave;
	SURAND_INLINE_TEST_POINT(1);
	p = s->batch + pos;
	if (n == 8) {
		__builtin_memcpy(&v, p, 8);
		__builtin_memset(p, 0, 8);
	} else {
		__builtin_memcpy(&x, p, 4);
		v = x;
		__builtin_memset(p, 0, 4);
	}
	/* Bytes handed out never stay in the batch: the zeroing is never dead. */
	__asm__ __volatile__("" : : "r"(p) : "memory");
	SURAND_INLINE_TEST_POINT(2);
	/* The copy before the re-check (aarch64: dmb ishld): a page dropped
	 * during the copy reads generation 0, and its zeros are never returned. */
	if (__builtin_expect(SURAND_INLINE_RECHECK_(&s->gen) != gen, 0)) {
		v = 0;
		goto leave;
	}
	s->pos = pos + n;
	/* Owner-only counter, read by surand_stats from other threads. */
	__atomic_store_n(&t->words[n >> 3], t->words[n >> 3] + 1, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	*state = SURAND_INLINE_IDLE;
	return v;
leave:
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	*state = SURAND_INLINE_IDLE;
call:
	return n == 8 ? (surand_u64)() : (uint64_t)(surand_u32)();
}

static inline __attribute__((always_inline, unused)) uint32_t surand_u32_inline(void)
{
	return (uint32_t)surand_inline_word_(4);
}

static inline __attribute__((always_inline, unused)) uint64_t surand_u64_inline(void)
{
	return surand_inline_word_(8);
}

#define surand_u32() surand_u32_inline()
#define surand_u64() surand_u64_inline()
#endif /* SURAND_INLINE */

#ifdef __cplusplus
}
#endif

#endif /* SURAND_H */
