/*
 * common.c - helpers the generator designs share (instead of copying them):
 * kernel folds and one-use-key fills (backend.h); the lock, the topology, the
 * per-thread slab and the test snapshot hook (designs.h).
 * SPDX-License-Identifier: MIT
 */
#include "gen/backend.h"
#include "gen/designs.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Nonce of one-use-key output, apart from every other use of a key. */
#define NONCE_DIRECT 0x7463657269642d75ull /* "u-direct" */

int surand_fold_kernel(uint32_t key[8], size_t n)
{
	uint8_t fresh[32];
	size_t i;

	if (n > sizeof(fresh))
		n = sizeof(fresh);
	if (surand_vdso_fill(fresh, n) != 0 && surand_kernel_fill(fresh, n, 0) != 0) {
		surand_wipe(fresh, sizeof(fresh));
		return 0; /* the key is still a good key; only the clone bound is lost */
	}
	for (i = 0; i + 4 <= n; i += 4)
		key[i / 4] ^= surand_load32_le(fresh + i);
	surand_wipe(fresh, sizeof(fresh));
	return 1;
}

void surand_fill_from_key(uint32_t key[8], void *buf, size_t len)
{
	uint8_t *p = buf, tail[64];
	size_t whole = len / 64;

	/* Straight into the caller's buffer: no batch, no extra copy. */
	surand_chacha20_blocks(key, 0, NONCE_DIRECT, p, whole);
	if (len % 64) {
		surand_chacha20_blocks(key, whole, NONCE_DIRECT, tail, 1);
		memcpy(p + whole * 64, tail, len % 64);
		surand_wipe(tail, sizeof(tail));
	}
	/* One use only: nothing left in memory regenerates buf. */
	surand_wipe(key, 32);
}

/* ==== the designs' shared helpers (gen/designs.h) =========================== */

/* ---- the lock ---------------------------------------------------------------- */

#if defined(__SANITIZE_THREAD__)
uint32_t surand_full_fence_word;
#endif

/* Spins before sleeping: long enough for a holder that is running to finish
 * one pool extraction (a few hundred ns), short enough not to burn a slice. */
#define LOCK_SPIN_TRIES 200

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory"); /* the spin-wait hint */
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

void surand_lock_init(struct surand_lock *l, enum surand_lock_kind kind)
{
	__atomic_store_n(&l->word, 0, __ATOMIC_RELAXED);
	l->kind = kind;
	l->contended = 0;
}

static void futex_wait(uint32_t *word, uint32_t val)
{
	/* Returns on wake, EAGAIN (word changed) or EINTR: the caller re-checks. */
	(void)syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

void surand_lock_wake(struct surand_lock *l)
{
	(void)syscall(SYS_futex, &l->word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

void surand_lock_wait(struct surand_lock *l)
{
	uint32_t c;
	int i;

	SURAND_COUNT(l->contended);
	if (l->kind == SURAND_LOCK_SPIN) {
		for (;;) {
			c = 0;
			if (__atomic_load_n(&l->word, __ATOMIC_RELAXED) == 0 &&
			    __atomic_compare_exchange_n(&l->word, &c, 1, 0, __ATOMIC_ACQUIRE,
							__ATOMIC_RELAXED))
				return;
			cpu_relax();
		}
	}
	for (i = 0; i < LOCK_SPIN_TRIES; i++) {
		c = 0;
		if (__atomic_load_n(&l->word, __ATOMIC_RELAXED) == 0 &&
		    __atomic_compare_exchange_n(&l->word, &c, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return;
		cpu_relax();
	}
	/* Mark "a sleeper may wait" (2), then sleep until the word is free. */
	c = __atomic_exchange_n(&l->word, 2, __ATOMIC_ACQUIRE);
	while (c != 0) {
		futex_wait(&l->word, 2);
		c = __atomic_exchange_n(&l->word, 2, __ATOMIC_ACQUIRE);
	}
}

/* ---- CPU and NUMA topology --------------------------------------------------- */

#define TOPO_MAX_CPUS 65536u
#define TOPO_MAX_NODES 1024u

static pthread_once_t topo_once = PTHREAD_ONCE_INIT;
static unsigned topo_cpus = 1;     /* surand_cpu_slots() */
static unsigned topo_nodes = 1;
static unsigned topo_sim_nodes;    /* SURAND_NODES, 0: real topology */
static uint16_t *topo_cpu_node;    /* [topo_cpus]: dense node index; NULL: all node 0 */
#ifdef SURAND_TEST_BUILD
static int topo_cpu_override = -1;
void surand_test_cpu_override(int cpu)
{
	__atomic_store_n(&topo_cpu_override, cpu, __ATOMIC_RELAXED);
}
#endif

/* Reads a small sysfs file into buf (NUL-terminated); 0 or -1. */
static int read_small(const char *path, char *buf, size_t cap)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	do
		n = read(fd, buf, cap - 1);
	while (n < 0 && errno == EINTR);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

/*
 * Parses a sysfs CPU list ("0-3,8,10-11") and calls fn for each CPU below
 * limit; returns the highest CPU seen + 1 (0 if none).  Malformed input
 * stops the parse: what was read so far counts.
 */
static unsigned parse_cpulist(const char *s, unsigned limit, void (*fn)(unsigned, void *), void *arg)
{
	unsigned long a, b, c;
	unsigned top = 0;
	char *end;

	while (*s) {
		while (*s == ',' || isspace((unsigned char)*s))
			s++;
		if (!isdigit((unsigned char)*s))
			break;
		a = strtoul(s, &end, 10);
		b = a;
		s = end;
		if (*s == '-') {
			s++;
			if (!isdigit((unsigned char)*s))
				break;
			b = strtoul(s, &end, 10);
			s = end;
		}
		if (b < a || b >= TOPO_MAX_CPUS)
			break;
		for (c = a; c <= b; c++) {
			if (c < limit && fn)
				fn((unsigned)c, arg);
		}
		if (b + 1 > top)
			top = (unsigned)b + 1;
	}
	return top;
}

struct node_fill {
	uint16_t node;
};

static void set_cpu_node(unsigned cpu, void *arg)
{
	topo_cpu_node[cpu] = ((struct node_fill *)arg)->node;
}

static void topology_read(void)
{
	char buf[4096], path[96];
	struct dirent *de;
	struct node_fill nf;
	unsigned cpus = 0, n, id;
	long conf;
	DIR *d;
	char *end;

	topo_sim_nodes = surand_design_config()->nodes;
	if (read_small("/sys/devices/system/cpu/possible", buf, sizeof(buf)) == 0)
		cpus = parse_cpulist(buf, 0, NULL, NULL);
	conf = sysconf(_SC_NPROCESSORS_CONF);
	if (conf > 0 && (unsigned long)conf > cpus)
		cpus = (unsigned)conf;
	if (cpus == 0)
		cpus = 1;
	if (cpus > TOPO_MAX_CPUS)
		cpus = TOPO_MAX_CPUS;
	topo_cpus = cpus;
	if (topo_sim_nodes) {
		topo_nodes = topo_sim_nodes;
		return;
	}
	topo_cpu_node = calloc(cpus, sizeof(*topo_cpu_node));
	d = topo_cpu_node ? opendir("/sys/devices/system/node") : NULL;
	if (!d)
		return; /* one node */
	n = 0;
	while ((de = readdir(d)) != NULL && n < TOPO_MAX_NODES) {
		if (strncmp(de->d_name, "node", 4) != 0 || !isdigit((unsigned char)de->d_name[4]))
			continue;
		id = (unsigned)strtoul(de->d_name + 4, &end, 10);
		if (*end)
			continue;
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%u/cpulist", id);
		if (read_small(path, buf, sizeof(buf)) != 0)
			continue;
		nf.node = (uint16_t)n;
		/* Nodes without CPUs (memory only) get no index. */
		if (parse_cpulist(buf, cpus, set_cpu_node, &nf) > 0)
			n++;
	}
	closedir(d);
	topo_nodes = n ? n : 1;
}

void surand_topology_init(void)
{
	pthread_once(&topo_once, topology_read);
}

unsigned surand_node_count(void)
{
	surand_topology_init();
	return topo_nodes;
}

unsigned surand_cpu_slots(void)
{
	surand_topology_init();
	return topo_cpus;
}

unsigned surand_node_of_cpu(unsigned cpu)
{
	/* Called after surand_topology_init() (a backend's init). */
	if (topo_sim_nodes)
		return cpu % topo_sim_nodes;
	if (!topo_cpu_node || cpu >= topo_cpus)
		return 0;
	return topo_cpu_node[cpu] < topo_nodes ? topo_cpu_node[cpu] : 0;
}

unsigned surand_current_cpu(void)
{
	int c;

#ifdef SURAND_TEST_BUILD
	/* Not reduced: tests name CPUs beyond this machine's (simulated nodes);
	 * per-CPU users index modulo surand_cpu_slots() anyway. */
	c = __atomic_load_n(&topo_cpu_override, __ATOMIC_RELAXED);
	if (c >= 0)
		return (unsigned)c;
#endif
	c = sched_getcpu();
	if (c < 0)
		return 0;
	/* Defensive: a CPU hot-added beyond what was read at init shares a slot. */
	return (unsigned)c < topo_cpus ? (unsigned)c : (unsigned)c % topo_cpus;
}

/* ---- the per-thread slab ----------------------------------------------------- */

#define SLAB_IN_USE 0x80000000u
#define SLAB_LINK_MASK 0x7fffffffu

static uint32_t slab_per_chunk(const struct surand_slab *s)
{
	uint32_t b = s->slot_bytes;

	/* Set by SURAND_SLAB_INITIALIZER to a slot size of the design; a size
	 * of 0 or above a chunk would be a bug: one slot a chunk then. */
	return b && b <= SURAND_SLAB_CHUNK_BYTES ? SURAND_SLAB_CHUNK_BYTES / b : 1;
}

static uint32_t *slab_meta(struct surand_slab *s, uint32_t i)
{
	/* NOLINTNEXTLINE(clang-analyzer-core.DivideZero): slab_per_chunk() >= 1 */
	return &s->meta[i / slab_per_chunk(s)][i % slab_per_chunk(s)];
}

static void *slab_slot(struct surand_slab *s, uint32_t i)
{
	/* NOLINTNEXTLINE(clang-analyzer-core.DivideZero): slab_per_chunk() >= 1 */
	return s->chunks[i / slab_per_chunk(s)] + (size_t)(i % slab_per_chunk(s)) * s->slot_bytes;
}

/* With the slab lock held: maps one more chunk. */
static int slab_grow(struct surand_slab *s)
{
	uint32_t per = slab_per_chunk(s), i, first;
	uint8_t *c;
	uint32_t *m;

	if (s->nchunks >= SURAND_SLAB_MAX_CHUNKS)
		return -ENOMEM;
	c = surand_secmem_alloc(SURAND_SLAB_CHUNK_BYTES);
	if (!c)
		return -ENOMEM;
	/* mmap, not calloc: a thread's first call may come from a signal handler
	 * that interrupted malloc, and calloc deadlocked on the arena lock there
	 * (tests/test_faults.c, first_call_in_handler).  Zeroed, not secret. */
	m = mmap(NULL, per * sizeof(*m), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		surand_secmem_free(c, SURAND_SLAB_CHUNK_BYTES);
		return -ENOMEM;
	}
	first = s->nchunks * per;
	s->chunks[s->nchunks] = c;
	s->meta[s->nchunks] = m;
	s->nchunks++;
	for (i = per; i-- > 0;) {
		m[i] = s->free_head;
		s->free_head = first + i + 1;
	}
	return 0;
}

void *surand_slab_get(struct surand_slab *s, uint32_t *index)
{
	void *p = NULL;
	uint32_t i, *m;
	int cs;

	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cs);
	surand_mutex_lock(&s->lock);
	SURAND_BENCH_COUNT_LOCK();
	if (s->free_head || slab_grow(s) == 0) {
		i = s->free_head - 1;
		m = slab_meta(s, i);
		s->free_head = *m & SLAB_LINK_MASK;
		*m = SLAB_IN_USE;
		s->in_use++;
		p = slab_slot(s, i);
		/* Wiped when it was given back (or zero when fresh); again for
		 * secmem kind -1 after a fork, where nothing wiped it. */
		surand_wipe(p, s->slot_bytes);
		*index = i;
	}
	surand_mutex_unlock(&s->lock);
	pthread_setcancelstate(cs, NULL);
	if (!p)
		errno = ENOMEM;
	return p;
}

void surand_slab_put(struct surand_slab *s, uint32_t index)
{
	uint32_t *m;
	int cs;

	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cs);
	surand_mutex_lock(&s->lock);
	SURAND_BENCH_COUNT_LOCK();
	if (index < s->nchunks * slab_per_chunk(s)) {
		m = slab_meta(s, index);
		if (*m & SLAB_IN_USE) {
			/* A thread's key never outlives the thread. */
			surand_wipe(slab_slot(s, index), s->slot_bytes);
			*m = s->free_head;
			s->free_head = index + 1;
			s->in_use--;
		}
	}
	surand_mutex_unlock(&s->lock);
	pthread_setcancelstate(cs, NULL);
}

void surand_slab_atfork_child(struct surand_slab *s, long keep)
{
	uint32_t n = s->nchunks * slab_per_chunk(s), i;

	/* Another thread of the parent may have held the lock at fork(). */
	pthread_mutex_init(&s->lock, NULL);
	s->free_head = 0;
	s->in_use = 0;
	for (i = n; i-- > 0;) {
		if ((long)i == keep) {
			*slab_meta(s, i) = SLAB_IN_USE;
			s->in_use = 1;
			continue;
		}
		/* Zero already where wipe-on-fork works; explicit for kind -1:
		 * the parent's other threads' states never survive in the child. */
		if (surand_secmem_kind() < 0)
			surand_wipe(slab_slot(s, i), s->slot_bytes);
		*slab_meta(s, i) = s->free_head;
		s->free_head = i + 1;
	}
}

void surand_slab_foreach(struct surand_slab *s, void (*fn)(void *slot, void *arg), void *arg)
{
	uint32_t n, i;
	int cs;

	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cs);
	surand_mutex_lock(&s->lock);
	SURAND_BENCH_COUNT_LOCK();
	n = s->nchunks * slab_per_chunk(s);
	for (i = 0; i < n; i++)
		if (*slab_meta(s, i) & SLAB_IN_USE)
			fn(slab_slot(s, i), arg);
	surand_mutex_unlock(&s->lock);
	pthread_setcancelstate(cs, NULL);
}

static uint32_t slab_count(struct surand_slab *s, int total)
{
	uint32_t v;
	int cs;

	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cs);
	surand_mutex_lock(&s->lock);
	SURAND_BENCH_COUNT_LOCK();
	v = total ? s->nchunks * slab_per_chunk(s) : s->in_use;
	surand_mutex_unlock(&s->lock);
	pthread_setcancelstate(cs, NULL);
	return v;
}

uint32_t surand_slab_total(struct surand_slab *s)
{
	return slab_count(s, 1);
}

uint32_t surand_slab_in_use(struct surand_slab *s)
{
	return slab_count(s, 0);
}

/* ---- test snapshots ---------------------------------------------------------- */
#ifdef SURAND_TEST_BUILD
int (*surand_test_snapshot_fn)(int which, struct surand_test_snapshot *s);

int surand_test_snapshot(int which, struct surand_test_snapshot *s)
{
	memset(s, 0, sizeof(*s));
	return surand_test_snapshot_fn ? surand_test_snapshot_fn(which, s) : -1;
}

int (*surand_test_pool_writes_fn)(int which, uint64_t *counts, uint32_t nwords);
void (*surand_test_drop_fn)(void);

void surand_test_drop_state(void)
{
	if (surand_test_drop_fn)
		surand_test_drop_fn();
}

void surand_test_zero_words(void *p, size_t n)
{
	uint32_t *w = p;
	size_t i;

	for (i = 0; i < n / 4; i++)
		__atomic_store_n(&w[i], 0, __ATOMIC_RELAXED);
}

void surand_slab_test_zero(struct surand_slab *s)
{
	uint32_t i;

	surand_mutex_lock(&s->lock);
	for (i = 0; i < s->nchunks; i++)
		memset(s->chunks[i], 0, SURAND_SLAB_CHUNK_BYTES);
	surand_mutex_unlock(&s->lock);
}

int surand_test_pool_writes(int which, uint64_t *counts, uint32_t nwords)
{
	return surand_test_pool_writes_fn ? surand_test_pool_writes_fn(which, counts, nwords) : -1;
}
#endif
