/*
 * kernel.c - the kernel as seed source: getrandom(2), the /dev/urandom
 * fallback, and the vDSO's getrandom.
 *
 * Sections:
 *   1. getrandom(2) and the /dev/urandom fallback (seccomp-filtered programs)
 *   2. readiness
 *   3. the vDSO getrandom (Linux 6.11+), with a per-thread state of its own
 *   4. the kernel as a source of the entropy pool (entropy/entropy.h)
 *   5. test hooks (test builds only): deterministic mode, fault injection
 * Everything here is async-signal-safe except the allocation of a thread's
 * vDSO state, which is only ever done from a non-nested call.
 * SPDX-License-Identifier: MIT
 */
#include "internal.h"
#include "entropy/entropy.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#ifndef GRND_NONBLOCK
#define GRND_NONBLOCK 0x0001
#endif
#ifndef GRND_INSECURE
#define GRND_INSECURE 0x0004
#endif

/* The kernel's random devices: character devices 1:8 (/dev/random) and 1:9
 * (/dev/urandom), Documentation/admin-guide/devices.txt in the kernel tree. */
#define DEV_MEM_MAJOR 1
#define DEV_RANDOM_MINOR 8
#define DEV_URANDOM_MINOR 9

#ifdef SURAND_TEST_BUILD
#include "test_hooks.h"
static enum surand_test_kernel_fault kfault;
static int det_on;
static uint32_t det_key[8];
static uint64_t det_pos;
static pthread_mutex_t det_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t kcalls;
#endif

static uint64_t urandom_fallbacks;
static int kernel_ready_v;

/* ==== 1. getrandom(2) and /dev/urandom ===================================== */

static ssize_t sys_getrandom(void *buf, size_t len, unsigned flags)
{
#ifdef SURAND_TEST_BUILD
	switch (kfault) {
	case SURAND_TEST_KF_GETRANDOM_ENOSYS:
	case SURAND_TEST_KF_ALL_DENIED:
		errno = ENOSYS;
		return -1;
	case SURAND_TEST_KF_GETRANDOM_EPERM:
		errno = EPERM;
		return -1;
	case SURAND_TEST_KF_GETRANDOM_EACCES:
		errno = EACCES;
		return -1;
	case SURAND_TEST_KF_URANDOM_NOT_READY:
	case SURAND_TEST_KF_RANDOM_POLL_ERROR:
	case SURAND_TEST_KF_URANDOM_READ_EOF:
		errno = ENOSYS;
		return -1;
	case SURAND_TEST_KF_OLD_KERNEL_NOT_READY:
		if (flags & GRND_INSECURE) { /* unknown flag before Linux 5.6 */
			errno = EINVAL;
			return -1;
		}
		if (flags & GRND_NONBLOCK) {
			errno = EAGAIN;
			return -1;
		}
		break;
	case SURAND_TEST_KF_NOT_READY:
		if (flags & GRND_NONBLOCK) {
			errno = EAGAIN;
			return -1;
		}
		break;
	default:
		break;
	}
#endif
	return syscall(SYS_getrandom, buf, len, flags);
}

/*
 * Raw system calls, not libc's open/poll/read/close: those are cancellation
 * points, and a thread cancelled inside one leaked the descriptor
 * (tests/test_storms.c, cancel_urandom); an LD_PRELOAD interposer of open and
 * read never sees these reads either.
 */
static int raw_open(const char *path)
{
	return (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
}

/*
 * Opens one of the kernel's random devices and keeps the descriptor only when
 * fstat says it is the character device 1:minor (as libsodium's
 * randombytes_sysrandom does): whatever else sits at the path (a regular file
 * or another device bound over it, a symlink to /dev/zero) is refused with
 * -ENODEV.  A descriptor, or a negative errno.
 */
static int dev_open(const char *path, unsigned minor_nr)
{
	struct stat st;
	int fd = raw_open(path), e;

	if (fd < 0)
		return -errno;
	if (syscall(SYS_fstat, fd, &st) != 0) {
		e = errno;
		(void)syscall(SYS_close, fd);
		return -e;
	}
	/* Fail closed: bytes read from anything but the kernel's device are no seed. */
	if (!S_ISCHR(st.st_mode) || major(st.st_rdev) != DEV_MEM_MAJOR ||
	    minor(st.st_rdev) != minor_nr) {
		(void)syscall(SYS_close, fd);
		return -ENODEV;
	}
	return fd;
}

/* poll(fd, POLLIN) with no wait (nonblock) or none at all; 1 readable, 0 not, or -errno. */
static int raw_poll_in(int fd, int nonblock)
{
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	struct timespec zero = {0, 0};
	int r;

#ifdef SURAND_TEST_BUILD
	/* A pool that never gets ready: nothing asked for, so nothing comes. */
	if (kfault == SURAND_TEST_KF_URANDOM_NOT_READY)
		pfd.events = 0;
#endif
	do
		r = (int)syscall(SYS_ppoll, &pfd, 1, nonblock ? &zero : NULL, NULL, 0);
	while (r < 0 && errno == EINTR);
#ifdef SURAND_TEST_BUILD
	/* A device whose poll reports an error. */
	if (kfault == SURAND_TEST_KF_RANDOM_POLL_ERROR && r >= 0) {
		r = 1;
		pfd.revents |= POLLERR;
	}
#endif
	if (r < 0)
		return -errno;
	if (r == 0)
		return 0;
	/* Ready means POLLIN and nothing else (libsodium checks the same). */
	if ((pfd.revents & (POLLERR | POLLHUP | POLLNVAL)) || !(pfd.revents & POLLIN))
		return -EIO;
	return 1;
}

/*
 * /dev/urandom only after poll() on /dev/random says the kernel pool is
 * initialised: urandom itself would hand out unseeded bytes on an old kernel.
 * GRND_INSECURE asks for exactly those bytes and never waits: no poll then.
 */
static int urandom_fill(uint8_t *p, size_t len, unsigned flags)
{
	int fd, r;
	ssize_t n;

#ifdef SURAND_TEST_BUILD
	if (kfault == SURAND_TEST_KF_ALL_DENIED)
		return -EACCES;
#endif
	if (!(flags & GRND_INSECURE) && !__atomic_load_n(&kernel_ready_v, __ATOMIC_RELAXED)) {
		fd = dev_open("/dev/random", DEV_RANDOM_MINOR);
		if (fd < 0)
			return fd;
		r = raw_poll_in(fd, flags & GRND_NONBLOCK);
		(void)syscall(SYS_close, fd);
		if (r < 0)
			return r;
		if (r == 0)
			return -EAGAIN;
		__atomic_store_n(&kernel_ready_v, 1, __ATOMIC_RELAXED);
	}
	fd = dev_open("/dev/urandom", DEV_URANDOM_MINOR);
	if (fd < 0)
		return fd;
	while (len) {
		n = syscall(SYS_read, fd, p, len);
#ifdef SURAND_TEST_BUILD
		if (kfault == SURAND_TEST_KF_URANDOM_READ_EOF)
			n = 0; /* a device that reads nothing */
#endif
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			r = n < 0 ? -errno : -EIO;
			(void)syscall(SYS_close, fd);
			return r;
		}
		p += n;
		len -= (size_t)n;
	}
	(void)syscall(SYS_close, fd);
	SURAND_COUNT(urandom_fallbacks);
	return 0;
}

#ifdef SURAND_TEST_BUILD
static void det_fill(uint8_t *p, size_t len)
{
	uint8_t block[64];

	surand_mutex_lock(&det_lock);
	while (len) {
		size_t off = det_pos % 64, n = 64 - off;
		if (n > len)
			n = len;
		surand_chacha20_blocks_portable(det_key, det_pos / 64, 0x7465737464657465ull, block, 1);
		memcpy(p, block + off, n);
		p += n;
		len -= n;
		det_pos += n;
	}
	surand_mutex_unlock(&det_lock);
	surand_wipe(block, sizeof(block));
}
#endif

int surand_kernel_fill(void *buf, size_t len, unsigned flags)
{
	uint8_t *p = buf;
	ssize_t n;

#ifdef SURAND_TEST_BUILD
	SURAND_COUNT(kcalls);
	if (det_on) {
		det_fill(p, len);
		return 0;
	}
#endif
	while (len) {
		n = sys_getrandom(p, len, flags);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			/* A seccomp filter (ENOSYS, EPERM or EACCES by its own
			 * choice) or a pre-3.17 kernel: the device, checked. */
			if (errno == ENOSYS || errno == EPERM || errno == EACCES)
				return urandom_fill(p, len, flags);
			/* GRND_INSECURE is unknown before Linux 5.6: what it asks
			 * for is what /dev/urandom gives there, without waiting. */
			if (errno == EINVAL && (flags & GRND_INSECURE))
				return urandom_fill(p, len, flags);
			return -errno;
		}
		if (!(flags & GRND_INSECURE))
			__atomic_store_n(&kernel_ready_v, 1, __ATOMIC_RELAXED);
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

uint64_t surand_kernel_urandom_fallbacks(void)
{
	return SURAND_LOAD(urandom_fallbacks);
}

/* ==== 2. readiness ========================================================= */

int surand_kernel_ready(void)
{
	uint8_t b;
	int r;

	if (SURAND_LIKELY(__atomic_load_n(&kernel_ready_v, __ATOMIC_RELAXED)))
		return 1;
#ifdef SURAND_TEST_BUILD
	if (det_on)
		return 1;
#endif
	/* A one-byte non-blocking read answers "would getrandom block?". */
	r = surand_kernel_fill(&b, 1, GRND_NONBLOCK);
	surand_wipe(&b, 1);
	return r == 0;
}

/* ==== 3. the vDSO getrandom ================================================ */
/*
 * x86-64: Linux 6.11+ exports __vdso_getrandom (version LINUX_2.6).  aarch64:
 * Linux 6.12+ exports __kernel_getrandom (version LINUX_2.6.39, the version
 * node of every arm64 vDSO symbol: arch/arm64/kernel/vdso/vdso.lds.S).
 * Other architectures: looked up under the x86 names, found on none.  Each thread needs
 * an opaque state the vDSO describes through its params call
 * (fn(NULL, 0, 0, &params, ~0UL)); states are carved from mappings with the
 * protection and flags the params name (MAP_DROPPABLE) and never straddle a
 * page.  A thread's state is allocated on its first non-nested use and
 * returned to a free list at thread exit.
 */
struct vgetrandom_params {
	uint32_t size_of_opaque_state;
	uint32_t mmap_prot;
	uint32_t mmap_flags;
	uint32_t reserved[13];
};
typedef ssize_t (*vgetrandom_fn)(void *buf, size_t len, unsigned flags, void *state,
				 size_t opaque_len);

#define VDSO_STATES_PER_MAP_PAGES 4

#if defined(__aarch64__)
#define VDSO_GETRANDOM_NAME "__kernel_getrandom"
#define VDSO_GETRANDOM_VERSION "LINUX_2.6.39"
#else
#define VDSO_GETRANDOM_NAME "__vdso_getrandom"
#define VDSO_GETRANDOM_VERSION "LINUX_2.6"
#endif

static vgetrandom_fn vdso_fn;
static struct vgetrandom_params vdso_params;
static size_t vdso_state_size; /* rounded to a cache line */
static int vdso_state_v;        /* 0 unknown, 1 present, -1 absent */
static pthread_mutex_t vdso_lock = PTHREAD_MUTEX_INITIALIZER;
static void **vdso_free_list;   /* states not owned by a thread (linked in place) */
static __thread void *tls_vdso_state __attribute__((tls_model("initial-exec")));

static void vdso_resolve(void)
{
	void *h;
	vgetrandom_fn fn;
	struct vgetrandom_params params;

	h = dlopen("linux-vdso.so.1", RTLD_NOW | RTLD_NOLOAD);
	fn = h ? (vgetrandom_fn)dlvsym(h, VDSO_GETRANDOM_NAME, VDSO_GETRANDOM_VERSION) : NULL;
	if (fn && fn(NULL, 0, 0, &params, ~(size_t)0) == 0 && params.size_of_opaque_state &&
	    params.size_of_opaque_state <= 4096) {
		vdso_params = params;
		vdso_state_size = (params.size_of_opaque_state + SURAND_CACHELINE - 1) &
				  ~(size_t)(SURAND_CACHELINE - 1);
		vdso_fn = fn;
		__atomic_store_n(&vdso_state_v, 1, __ATOMIC_RELEASE);
	} else {
		__atomic_store_n(&vdso_state_v, -1, __ATOMIC_RELEASE);
	}
}

int surand_vdso_available(void)
{
	int s = __atomic_load_n(&vdso_state_v, __ATOMIC_ACQUIRE);

#ifdef SURAND_TEST_BUILD
	if (det_on)
		return 0;
#endif
	if (SURAND_UNLIKELY(s == 0)) {
		surand_mutex_lock(&vdso_lock);
		if (__atomic_load_n(&vdso_state_v, __ATOMIC_ACQUIRE) == 0)
			vdso_resolve();
		surand_mutex_unlock(&vdso_lock);
		s = __atomic_load_n(&vdso_state_v, __ATOMIC_ACQUIRE);
	}
	return s == 1;
}

void *surand_vdso_getrandom_fn(void)
{
	if (__atomic_load_n(&vdso_state_v, __ATOMIC_ACQUIRE) == 0) {
		surand_mutex_lock(&vdso_lock);
		if (__atomic_load_n(&vdso_state_v, __ATOMIC_ACQUIRE) == 0)
			vdso_resolve();
		surand_mutex_unlock(&vdso_lock);
	}
	return __atomic_load_n(&vdso_state_v, __ATOMIC_ACQUIRE) == 1 ? (void *)vdso_fn : NULL;
}

/* Takes a state from the free list, mapping more when it is empty. */
static void *vdso_state_get(void)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), per_page, i, j, len;
	uint8_t *m;
	void *s;

	surand_mutex_lock(&vdso_lock);
	if (!vdso_free_list) {
		len = pg * VDSO_STATES_PER_MAP_PAGES;
		m = mmap(NULL, len, (int)vdso_params.mmap_prot, (int)vdso_params.mmap_flags, -1, 0);
		if (m != MAP_FAILED) {
			per_page = pg / vdso_state_size;
			for (i = 0; i < VDSO_STATES_PER_MAP_PAGES; i++)
				for (j = 0; j < per_page; j++) {
					void **st = (void **)(m + i * pg + j * vdso_state_size);
					/* The vDSO treats a zeroed state as fresh; the link
					 * word is cleared again when the state is taken. */
					*st = vdso_free_list;
					vdso_free_list = st;
				}
		}
	}
	s = vdso_free_list;
	if (s) {
		vdso_free_list = *(void **)s;
		surand_wipe(s, vdso_state_size);
	}
	surand_mutex_unlock(&vdso_lock);
	return s;
}

/* Fills buf through the vDSO with the calling thread's state; 0 or -1. */
static int vdso_loop(uint8_t *p, size_t len)
{
	ssize_t n;

	while (len) {
		/* The vDSO itself falls back to the syscall when it finds the
		 * state in use by a call a signal handler interrupted. */
		n = vdso_fn(p, len, 0, tls_vdso_state, vdso_params.size_of_opaque_state);
		if (n < 0) {
			if (n == -EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int surand_vdso_fill(void *buf, size_t len)
{
	if (!surand_vdso_available())
		return -1;
	if (SURAND_UNLIKELY(!tls_vdso_state)) {
		tls_vdso_state = vdso_state_get();
		if (!tls_vdso_state)
			return -1;
	}
	return vdso_loop(buf, len);
}

/*
 * For a call nested in a signal handler: only what is already set up is used
 * (no dlopen, no lock, no mmap, none of which is async-signal-safe).
 */
int surand_vdso_fill_nested(void *buf, size_t len)
{
#ifdef SURAND_TEST_BUILD
	if (det_on)
		return -1;
#endif
	if (__atomic_load_n(&vdso_state_v, __ATOMIC_ACQUIRE) != 1 || !tls_vdso_state)
		return -1;
	return vdso_loop(buf, len);
}

void surand_vdso_thread_exit(void)
{
	void *s = tls_vdso_state;

	if (!s)
		return;
	tls_vdso_state = NULL;
	surand_wipe(s, vdso_state_size);
	surand_mutex_lock(&vdso_lock);
	*(void **)s = vdso_free_list;
	vdso_free_list = s;
	surand_mutex_unlock(&vdso_lock);
}

/* In a fork child only the forking thread exists; its state stays its own
 * (the vDSO re-keys it: the mapping was wiped).  States of the parent's other
 * threads are not reclaimed: a bounded leak, never a shared state. */
void surand_kernel_atfork_child(void)
{
	pthread_mutex_init(&vdso_lock, NULL);
#ifdef SURAND_TEST_BUILD
	pthread_mutex_init(&det_lock, NULL);
#endif
}

/* ==== 4. the kernel as a source of the entropy pool ========================= */
/*
 * The kernel seeds the base key at every reseed (gen/base.c); that never
 * depends on the switch below.  What this source gives the entropy pool is a
 * few bytes when the pool is set up (and set up again in a fork child), so the
 * pool is unpredictable from the start.  They are not credited: the base key
 * has the kernel's entropy already, and crediting it would let a
 * "catastrophic" reseed happen without any independent source.  Conditioned
 * output: never health-tested, never disabled.  GRND_NONBLOCK: before the
 * kernel's CRNG is ready the pool simply starts without them.
 */
size_t surand_kernel_pool_sample(uint8_t *buf, size_t len)
{
	struct surand_es_counters *c = &surand_es_cnt[SURAND_ES_KERNEL];

	if (!surand_entropy_source_on(SURAND_ES_KERNEL)) {
		SURAND_COUNT(c->skipped);
		return 0;
	}
	SURAND_COUNT(c->samples);
	if (surand_kernel_fill(buf, len, GRND_NONBLOCK) != 0) {
		surand_wipe(buf, len);
		SURAND_COUNT(c->failures);
		return 0;
	}
	SURAND_COUNT_N(c->bytes, len);
	return len;
}

/* ==== 5. test hooks ======================================================== */
#ifdef SURAND_TEST_BUILD
void surand_test_INSECURE_deterministic(const uint8_t seed[32])
{
	int i;

	for (i = 0; i < 8; i++)
		det_key[i] = surand_load32_le(seed + 4 * i);
	det_pos = 0;
	det_on = 1;
}

void surand_test_kernel_fault(enum surand_test_kernel_fault f)
{
	kfault = f;
	if (f == SURAND_TEST_KF_NOT_READY || f == SURAND_TEST_KF_URANDOM_NOT_READY ||
	    f == SURAND_TEST_KF_OLD_KERNEL_NOT_READY || f == SURAND_TEST_KF_RANDOM_POLL_ERROR)
		__atomic_store_n(&kernel_ready_v, 0, __ATOMIC_RELAXED);
}

void surand_test_kernel_forget_ready(void)
{
	__atomic_store_n(&kernel_ready_v, 0, __ATOMIC_RELAXED);
}

uint64_t surand_test_kernel_calls(void)
{
	return SURAND_LOAD(kcalls);
}

int surand_kernel_deterministic(void)
{
	return det_on;
}
#endif

/* Sampled when the pool is set up (surand_kernel_pool_sample), not at rounds. */
const struct surand_input_source surand_source_kernel = {
	.id = SURAND_ES_KERNEL,
};
