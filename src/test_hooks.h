/*
 * test_hooks.h - hooks compiled only into test builds (SURAND_TEST_BUILD).
 * None of this exists in the shipped library; scripts/check-install.sh proves
 * it.  The names are loud on purpose.
 * SPDX-License-Identifier: MIT
 */
#ifndef SURAND_TEST_HOOKS_H
#define SURAND_TEST_HOOKS_H
#ifdef SURAND_TEST_BUILD

#include <stddef.h>
#include <stdint.h>

/*
 * DETERMINISTIC MODE: every byte the library asks the kernel for (seeds,
 * folds) comes from ChaCha20(seed) instead, and the vDSO is not used, so the
 * whole generator's output is a known function of seed.  INSECURE BY DESIGN.
 * Call before first use.
 */
void surand_test_INSECURE_deterministic(const uint8_t seed[32]);

/* Fault injection of the kernel seed source. */
enum surand_test_kernel_fault {
	SURAND_TEST_KF_NONE = 0,
	SURAND_TEST_KF_GETRANDOM_ENOSYS, /* getrandom(2) fails ENOSYS: /dev/urandom path */
	SURAND_TEST_KF_GETRANDOM_EPERM,  /* seccomp-style EPERM */
	SURAND_TEST_KF_ALL_DENIED,       /* getrandom ENOSYS and /dev/urandom EACCES */
	SURAND_TEST_KF_NOT_READY,        /* kernel CRNG not ready: NONBLOCK gets EAGAIN */
	SURAND_TEST_KF_GETRANDOM_EACCES, /* seccomp-style EACCES */
	/* getrandom ENOSYS, and the poll of /dev/random never reports ready
	 * (a blocking wait waits for ever, a non-blocking one finds it not ready) */
	SURAND_TEST_KF_URANDOM_NOT_READY,
	/* a kernel before 5.6, not ready: GRND_INSECURE is EINVAL, NONBLOCK EAGAIN */
	SURAND_TEST_KF_OLD_KERNEL_NOT_READY,
	/* getrandom ENOSYS, and the poll of /dev/random reports POLLERR */
	SURAND_TEST_KF_RANDOM_POLL_ERROR,
	/* getrandom ENOSYS, and every read of /dev/urandom returns 0 (nothing) */
	SURAND_TEST_KF_URANDOM_READ_EOF,
};
void surand_test_kernel_fault(enum surand_test_kernel_fault f);
/* As if no call had found the kernel's CRNG ready yet (the next fallback
 * read polls /dev/random again). */
void surand_test_kernel_forget_ready(void);
/* Number of kernel fills (getrandom, urandom or deterministic) so far. */
uint64_t surand_test_kernel_calls(void);

/* The clock (surand_now_ns) jumps ahead by ns. */
void surand_test_clock_advance(uint64_t ns);
/* Re-reads the environment. */
void surand_test_config_reload(void);

/* Secret memory: force the fallback kinds before first use (0 WIPEONFORK, -1 none). */
void surand_test_secmem_force(int kind);
/* The next n secmem allocations fail with ENOMEM. */
void surand_test_secmem_fail(int n);

/* Base key (gen/base.c): a copy of the current base key; 0, or -1 if unseeded. */
int surand_test_base_key(uint32_t out[8]);

/* thread backend: the calling thread's slot (NULL if none) and its size. */
void *surand_test_thread_slot(size_t *size);
/* The calling thread's current key; 0, or -1 if it has none. */
int surand_test_thread_key(uint32_t out[8]);
/* Generation of the key the calling thread holds. */
uint64_t surand_test_thread_generation(void);

/* ---- input side (src/entropy/) ----------------------------------------- */
/* Sources by number: 0 kernel, 1 cpu, 2 jitter, 3 app, 4 events
 * (enum surand_entropy_source in src/entropy/entropy.h). */
/* on = 0 switches a source off; on = 1 gives it back to the environment. */
void surand_test_entropy_source_set(int src, int on);
/* Resets a source's health tests (start-up again, no longer disabled): cpu, jitter. */
void surand_test_entropy_health_reset(int src);

/* RDSEED/RDRAND forced absent, failing (no data, ever) or stuck (one word);
 * or RDSEED absent and RDRAND answering with varied stand-in words. */
enum surand_test_cpu_rng_fault {
	SURAND_TEST_CPU_RNG_NONE = 0,
	SURAND_TEST_CPU_RNG_ABSENT,
	SURAND_TEST_CPU_RNG_FAILING,
	SURAND_TEST_CPU_RNG_STUCK,
	SURAND_TEST_CPU_RNG_RDRAND_ONLY,
};
void surand_test_cpu_rng_fault(enum surand_test_cpu_rng_fault f);

/* Jitter deltas forced stuck (one value) or biased (one value 3 times in 4).
 * The SIM_ kinds replace the timer's two reads around each loop by a
 * simulated timer, a fixed function of the delta's number since the last
 * health reset (surand_test_entropy_health_reset), so each qualification
 * and alarm branch runs the same way on every host. */
enum surand_test_jitter_fault {
	SURAND_TEST_JITTER_NONE = 0,
	SURAND_TEST_JITTER_STUCK,
	SURAND_TEST_JITTER_BIASED,
	SURAND_TEST_JITTER_SIM_HEALTHY,   /* 1000 half the time, else spread: about 0.9 bit */
	SURAND_TEST_JITTER_SIM_COARSE,    /* ticks of 1000, loops of 300..899: deltas 0 or 1000 */
	SURAND_TEST_JITTER_SIM_BACKWARDS, /* healthy, but every 128th pair of reads runs backwards */
	SURAND_TEST_JITTER_SIM_LINEAR,    /* deltas in arithmetic progression: zero 3rd difference */
	SURAND_TEST_JITTER_SIM_LOW,       /* one value 92 times in 100: below 1/8 bit (6.3.1) */
	SURAND_TEST_JITTER_SIM_ALARM_ONCE, /* healthy, with one run of equal deltas (below) */
	SURAND_TEST_JITTER_SIM_TURNS_REGULAR, /* healthy, then one value from delta ..._REGULAR_AT */
};
/* SIM_ALARM_ONCE: deltas [RUN_AT, RUN_AT + RUN_LEN) are all equal (one RCT alarm). */
#define SURAND_TEST_JITTER_RUN_AT 2200u
#define SURAND_TEST_JITTER_RUN_LEN 250u
#define SURAND_TEST_JITTER_REGULAR_AT 2048u
void surand_test_jitter_fault(enum surand_test_jitter_fault f);

/* 1: the last base reseed included the pool (catastrophic); 0: not; -1: none yet. */
int surand_test_entropy_last_reseed_pooled(void);
/* A one-way fingerprint of the pool's content (not its credit); the pool is
 * unchanged.  Sets the pool up if needed.  0 or -errno. */
int surand_test_entropy_pool_digest(uint8_t out[32]);

/* Fast pools: every event goes to this slot (-1: the CPU's slot again). */
void surand_test_fastpool_force_slot(int slot);
/* The next spill of `slot` finds its page dropped (zeros) right after copying
 * the state, before the re-check: no real drop can be timed there.  Once; -1
 * disarms.  Returns how many armed drops have happened so far. */
unsigned long surand_test_fastpool_drop_in_spill(int slot);
/* A slot's events since its last spill and its event total; 0, or -1 (no such slot). */
int surand_test_fastpool_slot(unsigned slot, unsigned *count, uint64_t *events);
/* The slot lock mode: on 1 rseq (where set-up found it usable), 0 xchg, -1
 * only asks; returns the mode now (1 rseq, 0 xchg, -1 no slots).  Only with
 * no event in flight. */
int surand_test_fastpool_rseq(int on);
unsigned surand_test_fastpool_cpu_slots(void); /* CPU slots; the shared ones follow */
uint64_t surand_test_fastpool_rseq_takes(void); /* events that took a slot with rseq */
uint64_t surand_test_fastpool_remote_takes(void); /* CPU slots taken cross-CPU (rseq mode) */
/* Slots whose event count is not spilled + pending (a lost update: two holders
 * at once); 0, or -1 when a slot cannot be taken.  Only with no event in flight. */
int surand_test_fastpool_inconsistent(void);

/* ---- the designs of the 2015 debate (src/gen/designs.h) ------------------ */

/* Every call of surand_current_cpu() returns cpu (-1: the real CPU again). */
void surand_test_cpu_override(int cpu);

/*
 * A copy of the active backend's state, for property tests (backtracking,
 * independent reference computations).  which: SURAND_TEST_SNAP_LAST for the
 * state the calling thread's last call used, SURAND_TEST_SNAP_PRIMARY for
 * nodecrng's primary CRNG, or a node / CPU index.  0, or -1 when the backend
 * has no such state (or no snapshot hook).
 */
enum {
	SURAND_TEST_SNAP_LAST = -1,
	SURAND_TEST_SNAP_PRIMARY = -2,
};
enum surand_test_snap_kind {
	SURAND_TEST_SNAP_POOL = 1,   /* a 2015 pool: pool[], add_ptr, input_rotate */
	SURAND_TEST_SNAP_CHACHA = 2, /* a ChaCha20 state: key, counter (next block), nonce */
};
struct surand_test_snapshot {
	int kind;            /* enum surand_test_snap_kind */
	int index;           /* node / CPU of the state copied */
	uint32_t pool[128];  /* POOL: the pool words (nwords of them) */
	uint32_t nwords;
	uint32_t add_ptr;
	uint32_t input_rotate;
	uint32_t key[8];     /* CHACHA */
	uint64_t counter;
	uint64_t nonce;
	uint64_t generation; /* key generation, where the design has one */
	uint8_t extra[1280]; /* any other state bytes (pending mixback hashes, ...) */
	uint32_t extra_len;
};
int surand_test_snapshot(int which, struct surand_test_snapshot *s);

/* 2015 pools: how often each word of the pool of node `which` was written by
 * the mixing function (0 .. nwords-1); 0, or -1 when the backend has none. */
int surand_test_pool_writes(int which, uint64_t *counts, uint32_t nwords);

/* 2015 pools: the next mix into a pool of nwords words (32: an output pool,
 * 128: the input pool) finds the pool's page dropped (all zeros) just before
 * its input byte before_byte, once; -1 disarms.  Returns how many armed
 * drops have happened so far. */
unsigned long surand_test_p15_drop_in_mix(unsigned nwords, long before_byte);

/* salted: the calling thread holds (1) or releases (0) the mixback lock, as
 * a reader that won the trylock would; release folds the pending buffer. */
void surand_test_salted_hold(int on);
/* salted, tso2015: the salt (5 words) of the calling thread's last
 * lock-free extraction. */
void surand_test_p15_last_salt(uint32_t salt[5]);
/* salted: arm (1) or disarm (0) a drop of the pool's page just before the
 * calling thread's next extraction hashes it, and a re-seed by another
 * reader right after the hash; returns how many such extractions ran. */
unsigned long surand_test_salted_reseed_during_hash(int arm);

/* taskcrng: 1 when the calling thread has been switched to its own CRNG. */
int surand_test_taskcrng_switched(void);
/* taskcrng: sets the calling thread's CRNG crank count (the 2^24 re-key). */
void surand_test_taskcrng_cranks(uint64_t cranks);
/* taskcrng: 1 when the n bytes at needle occur in a slot of the slab, in
 * use or not. */
int surand_test_taskcrng_slab_holds(const void *needle, size_t n);

/* percpu: the next n per-CPU trylocks fail as if another thread held them. */
void surand_test_percpu_fail_trylock(int n);

/* As if every wipe-on-fork page of the active design (not the base key) had
 * been dropped under memory pressure: its secret state reads as zeros. */
void surand_test_drop_state(void);

#endif
/* Test points (internal.h, SURAND_TEST_POINT): the next time the library
 * reaches `point`, it raises `sig` there (once; sig 0 disarms).  Armed from
 * a test's own constructor, a point is reached inside surand's set-up too. */
enum surand_test_point_id {
	SURAND_TP_SETUP = 1,          /* api.c: the one-time set-up begins */
	SURAND_TP_CONFIG_READ,        /* config.c: the environment is being read */
	SURAND_TP_NAMES,              /* api.c: the backend name list is being built */
	SURAND_TP_THREAD_EXIT_LOCKED, /* thread.c: thread exit, the slab lock held */
	SURAND_TP_REFILL,             /* thread.c: a refill, no lock held */
	SURAND_TP_SLAB_LOCKED,        /* thread.c: a slot taken, the slab lock held */
	SURAND_TP_WORD,               /* thread_fast.h: a u32/u64 draw, the batch checked, before the copy */
	SURAND_TP_REFILL_COPIED,      /* thread.c: a refill's header copied, before the re-check */
	SURAND_TP_FILL,               /* thread_fast.h: a 1..32-byte draw, the batch checked, before the copy */
	SURAND_TP_TAKE,               /* thread.c: a draw from the batch, before the copy */
	SURAND_TP_BACKEND,            /* api.c: a call marked busy, the backend's fill next */
	SURAND_TP_FIRST_CALL,         /* api.c: a thread's first call, before it is registered */
	SURAND_TP_SWITCH,             /* api.c: set_backend found no draw served, before the switch */
	SURAND_TP_COUNT
};
void surand_test_point_arm(int point, int sig);
/* How often `point` was reached since the process started. */
uint64_t surand_test_point_hits(int point);
/* The calling thread's busy mark is set (nonzero: inside a surand call). */
int surand_test_call_busy(void);

#endif
