/*
 * internal.h - prototypes shared inside libsurand (never installed).
 *
 * Sections: visibility, CPU features and the ChaCha20 dispatcher (cpu.c),
 * wipe-on-fork memory (secmem.c), configuration (config.c), the kernel as
 * seed source (entropy/kernel.c), and the clock.
 * SPDX-License-Identifier: MIT
 */
#ifndef SURAND_INTERNAL_H
#define SURAND_INTERNAL_H

#include <stdint.h>
#include <stddef.h>
#include <pthread.h>
#include <sys/types.h>

/* The inline path's layout (surand.h), which gen/thread_inline.c serves. */
#define SURAND_INLINE_DECLARE 1
#include "surand.h"
#include "crypto/chacha20.h"

/* Definitions of the public API carry SURAND_API; everything else is hidden. */
#define SURAND_API __attribute__((visibility("default")))
#define SURAND_HIDDEN __attribute__((visibility("hidden")))

#define SURAND_LIKELY(x) __builtin_expect(!!(x), 1)
#define SURAND_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define SURAND_CACHELINE 64

/*
 * Orders earlier loads before later ones on this thread (the re-check of a
 * slot's generation after copying out of a page that may have been dropped).
 * It guards against the kernel, not against other threads, so TSan (which
 * does not model fences) gets a compiler barrier instead.
 * Code: x86-64 none beyond a compiler barrier (TSO keeps load-load order);
 * aarch64 `dmb ishld` (loads may pass loads there: a compiler barrier alone
 * would let the re-check be satisfied before the copy).
 */
#if defined(__SANITIZE_THREAD__)
#define SURAND_LOAD_FENCE() __asm__ __volatile__("" : : : "memory")
#else
#define SURAND_LOAD_FENCE() __atomic_thread_fence(__ATOMIC_ACQUIRE)
#endif
/*
 * Its mirror for writers: orders the store of a validity marker (a slot's
 * generation, a "valid" word) before the stores of the secret data it
 * vouches for ("sealed" first), so that a MAP_DROPPABLE page dropped at any
 * later moment reads marker 0 and never a valid marker over zeroed data.
 * Code: x86-64 a compiler barrier (TSO keeps store-store order); aarch64
 * `dmb ish` (stores may pass stores there).
 */
#if defined(__SANITIZE_THREAD__)
#define SURAND_STORE_FENCE() __asm__ __volatile__("" : : : "memory")
#else
#define SURAND_STORE_FENCE() __atomic_thread_fence(__ATOMIC_RELEASE)
#endif

/* ---- readiness: one state word for every pool and generator ---------------
 * Every secret state keeps its readiness in one 32-bit word of this enum: the
 * entropy pool, the fast pools, the 2015 pools, the base key and the per-node
 * and per-task CRNGs.  EMPTY is 0 on purpose: fresh, wiped, fork-wiped
 * (MADV_WIPEONFORK) and dropped (MAP_DROPPABLE) memory all read as EMPTY, so
 * such a state is set up again before anything is read from it (fail
 * closed).  The other values are improbable words, so that memory left by
 * something else never reads YES.  Two kinds of state that readers check
 * without a lock carry a version in the same word instead of YES, so that a
 * reader sees a change during its read: the 2015 pools hashed lock-free, an
 * odd seeding number (gen/pool2015.h), and the per-thread ChaCha20 states
 * (slots), the base key's generation, which starts at 1 (gen/base.c). */
enum surand_ready {
	SURAND_READY_EMPTY = 0,               /* new, wiped, fork child, dropped page */
	SURAND_READY_SEEDING = 0x676e6964u,   /* being seeded: readers keep off */
	SURAND_READY_YES = 0x79646165u,       /* seeded: may be read */
};

static inline int surand_ready(uint32_t word)
{
	return word == SURAND_READY_YES;
}

/* ---- cpu.c: features read once, ChaCha20 body chosen once ----------------- */
/*
 * x86-64: ssse3/avx2/avx512f usable by CPU and OS (cpuid + xgetbv); rdrand,
 * rdseed.  aarch64 (getauxval: the kernel's view): neon (HWCAP_ASIMD);
 * rdrand = RNDR and rdseed = RNDRRS, both with HWCAP2_RNG.
 */
struct surand_cpu_features {
	int ssse3, avx2, avx512f, rdrand, rdseed, neon;
};
const struct surand_cpu_features *surand_cpu_features(void) SURAND_HIDDEN;
/*
 * Zeroes the vector registers (all caller-saved in the x86-64 ABI; v0-v7 and
 * v16-v31 on aarch64) after secret work: the ChaCha20 bodies, memcpy and the
 * compiler's own vector code leave key, state and output words there, and
 * whatever saves them later writes them to memory: a core dump's register
 * notes, a signal frame, glibc's lazy-binding trampoline (which saves every
 * vector register on the stack of a program linked without -z now).
 */
void surand_scrub_vector_regs(void) SURAND_HIDDEN;

/*
 * The ChaCha20 entry everything else calls: the best body for this CPU, or the
 * one SURAND_CHACHA_IMPL forces.  Same contract as the bodies (chacha20.h).
 */
void surand_chacha20_blocks(const uint32_t key[8], uint64_t counter, uint64_t nonce,
			    uint8_t *out, size_t nblocks) SURAND_HIDDEN;
/* Name of the body in use: "portable", "ssse3", "avx2", "avx512" or "neon". */
const char *surand_chacha20_impl_name(void) SURAND_HIDDEN;
/* A body by name, or NULL when unknown or not supported here (tests, bench). */
surand_chacha20_fn surand_chacha20_impl_by_name(const char *name) SURAND_HIDDEN;
/* Blocks per call of the chosen body's widest path (1, 4, 8 or 16). */
unsigned surand_chacha20_width(void) SURAND_HIDDEN;

/* ---- secmem.c: memory for secrets ---------------------------------------- */
/*
 * Page-granular memory that a fork child sees as zeros, that is never in a
 * core dump and (best effort) never swapped: MAP_DROPPABLE where the kernel
 * has it (6.11+), else MADV_WIPEONFORK + MADV_DONTDUMP + mlock.  With
 * MAP_DROPPABLE a page may also read as zero at any time (memory pressure), so
 * every user keeps a nonzero "valid" word in each page it relies on and
 * treats zero as "re-key".  Returns NULL (errno set) on failure.
 */
void *surand_secmem_alloc(size_t len) SURAND_HIDDEN;
/* cur when set (an earlier init's memory, kept), else surand_secmem_alloc(len). */
static inline void *surand_secmem_once(void *cur, size_t len)
{
	return cur ? cur : surand_secmem_alloc(len);
}
void surand_secmem_free(void *p, size_t len) SURAND_HIDDEN;
/* 1: pages are MAP_DROPPABLE; 0: WIPEONFORK; -1: neither (fork generation used). */
int surand_secmem_kind(void) SURAND_HIDDEN;
/* Decides the kind now (one page mapped and unmapped) if no secret was mapped yet. */
void surand_secmem_probe(void) SURAND_HIDDEN;
/* Bumped by the atfork child handler: what detects fork() where wipe-on-fork is absent. */
extern volatile uint64_t surand_fork_generation SURAND_HIDDEN;

#include "config.h"
#ifdef SURAND_TEST_BUILD
/* Test builds: read the environment again (config.c). */
void surand_config_reread(void) SURAND_HIDDEN;
#endif
/* One clear line on stderr, "surand: ...". Async-signal-safe (write(2)). */
void surand_warn(const char *fmt, ...) SURAND_HIDDEN __attribute__((format(printf, 1, 2)));
/* Prints "surand: FATAL: <msg>" and abort()s: the fail-closed exit. */
void surand_fatal(const char *msg) SURAND_HIDDEN __attribute__((noreturn));

/* ---- entropy/kernel.c: the kernel as seed source -------------------------- */
/*
 * Fills buf entirely from the kernel's CRNG: getrandom(2) (waiting for
 * readiness unless GRND_NONBLOCK or GRND_INSECURE is in flags); on
 * ENOSYS/EPERM/EACCES (and EINVAL for GRND_INSECURE, before Linux 5.6)
 * /dev/urandom, read only when fstat shows the kernel's device 1:9 and, but
 * for GRND_INSECURE, after poll() on /dev/random (1:8) says the pool is ready.
 * Returns 0 or a negative errno (-EAGAIN: not ready and NONBLOCK; -ENODEV:
 * not the kernel's device).  Async-signal-safe.  Retries on EINTR.
 */
int surand_kernel_fill(void *buf, size_t len, unsigned flags) SURAND_HIDDEN;
/* 1 when the kernel's CRNG is ready (getrandom would not block); cached once true. */
int surand_kernel_ready(void) SURAND_HIDDEN;
/*
 * The vDSO's getrandom, with a per-thread state of its own: fills buf and
 * returns 0, or -1 when the vDSO is absent (or the thread has no state).
 * Lock-free and async-signal-safe (the vDSO falls back to the syscall when a
 * nested call finds its state in use).
 */
int surand_vdso_fill(void *buf, size_t len) SURAND_HIDDEN;
/* The same from a signal handler: uses the vDSO only if this thread already
 * has a state (no lookup, no lock, no allocation); else -1. */
int surand_vdso_fill_nested(void *buf, size_t len) SURAND_HIDDEN;
int surand_vdso_available(void) SURAND_HIDDEN;
/* The vDSO getrandom this library calls (NULL: none), the one lookup of it:
 * the benchmark's vdso peer is this function too. */
void *surand_vdso_getrandom_fn(void) SURAND_HIDDEN;
/* Releases the calling thread's vDSO state (thread exit). */
void surand_vdso_thread_exit(void) SURAND_HIDDEN;
/* Fork child: re-initialise the locks of kernel.c. */
void surand_kernel_atfork_child(void) SURAND_HIDDEN;
/* Counters: seeds that came from /dev/urandom. */
uint64_t surand_kernel_urandom_fallbacks(void) SURAND_HIDDEN;

/* ---- api.c: the per-thread call state (the busy mark) ----------------------
 *
 * surand_call_state: 0 new, 1 idle, 2 kernel-only, 3 exited (the thread's
 * exit destructor has run), else, inside a call, the busy mark of the public entry point in progress: its canonical frame
 * address, tagged with bits of its return address (surand.h,
 * surand_inline_mark_).  One word, stored by one instruction: a signal lands
 * before the mark or after it.  Every public entry point runs under the
 * mark, so that a signal handler's call made while it is set takes the
 * lock-free kernel path instead of a lock this thread holds.  The tag tells
 * such a nested call from a call abandoned by a siglongjmp: the nested call
 * runs below a live frame whose return address is still in place (api.c,
 * recover_abandoned).
 * surand_call_enter: 0, or -EAGAIN when this call is nested in another (a
 * handler interrupted it); then the caller must not take a lock.
 */
extern __thread uintptr_t surand_call_state SURAND_HIDDEN;
#define SURAND_CALL_BUSY_MIN 16u
/* Evaluated in the public entry point itself (or code always inlined there). */
#define SURAND_HERE_CFA ((uintptr_t)__builtin_dwarf_cfa())
#define SURAND_HERE_RET ((uintptr_t)__builtin_return_address(0))
/* Sets the mark in one store (a handler in between would find it half set). */
#define SURAND_BUSY_AT(cfa, ret)                                                              \
	do {                                                                                  \
		__atomic_store_n(&surand_call_state, surand_inline_mark_((cfa), (ret)),       \
				 __ATOMIC_RELAXED);                                           \
		__atomic_signal_fence(__ATOMIC_SEQ_CST);                                      \
	} while (0)
#define SURAND_SET_BUSY() SURAND_BUSY_AT(SURAND_HERE_CFA, SURAND_HERE_RET)
int surand_call_enter(uintptr_t *saved, uintptr_t cfa, uintptr_t ret) SURAND_HIDDEN;
void surand_call_leave(uintptr_t saved) SURAND_HIDDEN;

/* The mark for the input calls (surand_add_event/_entropy), which also run
 * nested: a nested one goes on unmarked (its own paths are lock-free there).
 * A macro: the frame address must be the entry point's. */
#define SURAND_MARK_BUSY(saved)                                              \
	do {                                                                 \
		(saved) = surand_call_state;                                 \
		if (SURAND_LIKELY((saved) < SURAND_CALL_BUSY_MIN))           \
			SURAND_SET_BUSY();                                   \
	} while (0)
#define SURAND_UNMARK_BUSY(saved)                                            \
	do {                                                                 \
		if (SURAND_LIKELY((saved) < SURAND_CALL_BUSY_MIN)) {         \
			__atomic_signal_fence(__ATOMIC_SEQ_CST);             \
			surand_call_state = (saved);                         \
		}                                                            \
	} while (0)

/*
 * Every lock surand takes is counted per thread: a call abandoned by a
 * siglongjmp out of a signal handler while it held one never releases it,
 * and the busy mark is then never taken back (api.c, recover_abandoned).
 * The count is raised before the lock is taken and lowered after release.
 */
extern __thread unsigned surand_locks_held SURAND_HIDDEN;
static inline void surand_mutex_lock(pthread_mutex_t *m)
{
	surand_locks_held++;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	pthread_mutex_lock(m);
}
static inline void surand_mutex_unlock(pthread_mutex_t *m)
{
	pthread_mutex_unlock(m);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	surand_locks_held--;
}

/* ---- test points (test builds only): a hook raises a signal at a named
 * point inside the library, so the tests reach the windows a real signal
 * would hit only by chance (tests/test_callstate.c).  No-op otherwise. */
#ifdef SURAND_TEST_BUILD
#include "test_hooks.h"
void surand_test_point(int point) SURAND_HIDDEN;
/* As surand_test_point; 1 when it raised the armed signal this time. */
int surand_test_point_fired(int point) SURAND_HIDDEN;
#define SURAND_TEST_POINT(p) surand_test_point(p)
#else
#define SURAND_TEST_POINT(p) ((void)0)
#endif

/* ---- time ----------------------------------------------------------------- */
/* CLOCK_MONOTONIC_COARSE in ns (vDSO, no syscall); tests may inject a clock. */
uint64_t surand_now_ns(void) SURAND_HIDDEN;

/* ---- stats helpers -------------------------------------------------------- */
/* Relaxed counters in memory shared by threads: only on slow paths. */
#define SURAND_COUNT(var) __atomic_fetch_add(&(var), 1, __ATOMIC_RELAXED)
#define SURAND_COUNT_N(var, n) __atomic_fetch_add(&(var), (n), __ATOMIC_RELAXED)
#define SURAND_LOAD(var) __atomic_load_n(&(var), __ATOMIC_RELAXED)

#endif /* SURAND_INTERNAL_H */
