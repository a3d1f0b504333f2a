/*
 * bench_sources.c - what `surand bench` measures.  Each source is a fill
 * function behind the same pointer; the loop (bench_engine.c) is shared.
 *
 * Every source says plainly what it is (the `desc` line printed above the
 * table): several "peers" are the getrandom(2) syscall underneath, and
 * OpenSSL's RAND_bytes is an AES CTR-DRBG that can win at large sizes on
 * AES-NI machines; the table shows whether it does, it is not hidden.
 *
 * One table (bench_system_sources) lists every non-backend source with its
 * functions; a source without per-thread state has no thread_init/fini, and
 * one this build cannot measure (built without OpenSSL's or libsodium's
 * headers) is an entry with only its name, kind and the reason it is absent;
 * those two libraries are opened at run time (bench_peers.c), never linked.
 * SPDX-License-Identifier: MIT
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gnu/libc-version.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bench.h"
#include "bench_peers.h"
#include "internal.h"
#include "surand.h"

/* Key material for the cipher sources: straight from the kernel. */
static int kernel_bytes(void *buf, size_t len)
{
	uint8_t *p = buf;
	while (len) {
		long r = syscall(SYS_getrandom, p, len, 0);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += r;
		len -= (size_t)r;
	}
	return 0;
}

/* ---- surand backends, through the public API ------------------------------ */
/*
 * chacha: the design's output is ChaCha20 keystream (src/gen/thread.c,
 * taskcrng.c, nodecrng.c, onekey.c, percpu.c), so the body the dispatcher
 * chose is named beside it; the 2015 pools' output is SHA-1 (pool2015.c).
 * taskcrng's careful callers still read the pool; its heavy readers, the
 * ones a benchmark makes, get the private ChaCha20.
 */
static const struct {
	const char *name, *desc;
	int chacha;
} backend_desc[] = {
	{"thread", "per-thread ChaCha20, fast key erasure on every refill (surand's design)", 1},
	{"legacy", "2015 kernel nonblocking pool: SHA-1 over one shared pool, one lock (spin, then futex)", 0},
	{"legacy-spin", "2015 kernel nonblocking pool with a pure spinlock (as the kernel held it)", 0},
	{"multipool", "Kleen 2015: one legacy pool per NUMA node, each behind its own lock", 0},
	{"salted", "Spelvin 2015: lockless salted reads of the shared pool, trylock mixback", 0},
	{"tso2015", "Ts'o Oct 2015: salted lock-free reads, lock-free mixback at per-CPU offsets (SURAND_TSO2015_MIX)", 0},
	{"taskcrng", "Ts'o 2015: careful callers on the pool, heavy readers moved to a private ChaCha20", 1},
	{"nodecrng", "Linux 4.8-5.17: one ChaCha20 CRNG per NUMA node behind a lock", 1},
	{"onekey", "Spelvin 2015: one process key, per-thread nonce; no backtracking protection between reseeds", 1},
	{"percpu", "Linux 5.18+: per-CPU ChaCha20 with fast key erasure, per-CPU trylock", 1},
};

static int backend_setup(const char *arg, char *desc, size_t desc_len, char *why, size_t why_len)
{
	const char *what = "a surand design";
	int chacha = 0;
	struct surand_stats st;
	uint8_t probe[16];

	for (size_t i = 0; i < sizeof(backend_desc) / sizeof(backend_desc[0]); i++)
		if (strcmp(backend_desc[i].name, arg) == 0) {
			what = backend_desc[i].desc;
			chacha = backend_desc[i].chacha;
		}
	if (surand_set_backend(arg) != 0) {
		snprintf(why, why_len, "surand_set_backend(\"%s\"): %s", arg, strerror(errno));
		return -1;
	}
	surand_bytes(probe, sizeof(probe)); /* first use: seeds; not measured */
	memset(&st, 0, sizeof(st));
	if (surand_stats(&st, sizeof(st)) == 0 && st.backend[0] &&
	    strncmp(st.backend, arg, sizeof(st.backend)) != 0) {
		/* never show one design's figures under another's name */
		snprintf(why, why_len, "asked for backend %s, the library runs %.16s", arg,
			 st.backend);
		return -1;
	}
	if (!chacha || !st.chacha_impl[0])
		snprintf(desc, desc_len, "surand backend: %s", what);
	else
		snprintf(desc, desc_len, "surand backend: %s [ChaCha20 body: %.16s]", what,
			 st.chacha_impl);
	return 0;
}

/*
 * 4-byte calls are surand_u32() and 8-byte calls surand_u64() (the integer
 * comparisons: what programs call most); others surand_bytes().  The
 * surand-bytes source below measures surand_bytes() at every size.
 */
static int backend_fill(void *ctx, void *buf, size_t len)
{
	(void)ctx;
	if (len == 4) {
		uint32_t v = surand_u32();
		memcpy(buf, &v, 4);
	} else if (len == 8) {
		uint64_t v = surand_u64();
		memcpy(buf, &v, 8);
	} else {
		surand_bytes(buf, len);
	}
	return 0;
}

const struct bench_source bench_backend_source = {
	.name = "(backend)",
	.kind = BENCH_KIND_BACKEND,
	.setup = backend_setup,
	.fill = backend_fill,
};

/* ---- surand_bytes() of the default backend at every size ------------------- */
/*
 * The small-size sweep (sizes 1..32 in the default plan): surand_bytes()
 * alone, also at 4 and 8 bytes, so that each size is the same call and a
 * size slower than the next larger one shows.
 */
static int bytes_setup(const char *arg, char *desc, size_t desc_len, char *why, size_t why_len)
{
	struct surand_stats st;
	uint8_t probe[16];

	(void)arg;
	surand_bytes(probe, sizeof(probe)); /* first use: seeds; not measured */
	memset(&st, 0, sizeof(st));
	if (surand_stats(&st, sizeof(st)) != 0 || !st.backend[0]) {
		snprintf(why, why_len, "surand_stats() did not name the default backend");
		return -1;
	}
	snprintf(desc, desc_len,
		 "surand_bytes() of the default backend (%.16s) at every size, 4 and 8 bytes "
		 "included (no surand_u32/u64): the small-size sweep",
		 st.backend);
	return 0;
}

static int bytes_fill(void *ctx, void *buf, size_t len)
{
	(void)ctx;
	surand_bytes(buf, len);
	return 0;
}

/* ---- surand_add_event(): one event per call ------------------------------------- */
struct event_ctx {
	uint64_t x; /* xorshift64 state: the event values */
};

static int event_setup(const char *arg, char *desc, size_t desc_len, char *why, size_t why_len)
{
	(void)arg;
	(void)why;
	(void)why_len;
	surand_add_event(0); /* first use: sets the pool up; not measured */
	snprintf(desc, desc_len,
		 "surand_add_event(v): one 64-bit event into the entropy pool per call (v from a "
		 "per-thread xorshift, its low 4 bytes written to the buffer so the loop's check "
		 "holds); measured at 4-byte calls only, to set beside the vDSO's");
	return 0;
}

static void *event_init(size_t max_len)
{
	struct event_ctx *c = malloc(sizeof(*c));

	(void)max_len;
	if (!c)
		return NULL;
	if (kernel_bytes(&c->x, sizeof(c->x)) != 0) {
		free(c);
		return NULL;
	}
	c->x |= 1; /* xorshift's one fixed point is 0 */
	return c;
}

static int event_fill(void *ctx, void *buf, size_t len)
{
	struct event_ctx *c = ctx;
	uint64_t x = c->x;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	c->x = x;
	surand_add_event(x);
	memcpy(buf, &x, len < sizeof(x) ? len : sizeof(x));
	return 0;
}

static void event_fini(void *ctx)
{
	free(ctx);
}

/* ---- the bare ChaCha20 body ------------------------------------------------ */
struct bare_ctx {
	uint32_t key[8];
	uint64_t counter;
	uint8_t tail[64];
};

static int bare_setup(const char *arg, char *desc, size_t desc_len, char *why, size_t why_len)
{
	(void)arg;
	(void)why;
	(void)why_len;
	snprintf(desc, desc_len,
		 "bare ChaCha20 body (%s, %u blocks wide): keystream of a fixed key, no key erasure, "
		 "no lock, one call per request; the per-core limit",
		 surand_chacha20_impl_name(), surand_chacha20_width());
	return 0;
}

static void *bare_init(size_t max_len)
{
	struct bare_ctx *c = calloc(1, sizeof(*c));
	(void)max_len;
	if (c && kernel_bytes(c->key, sizeof(c->key)) != 0) {
		free(c);
		return NULL;
	}
	return c;
}

static int bare_fill(void *ctx, void *buf, size_t len)
{
	struct bare_ctx *c = ctx;
	size_t nb = len / 64, rem = len % 64;
	if (nb) {
		surand_chacha20_blocks(c->key, c->counter, 0, buf, nb);
		c->counter += nb;
	}
	if (rem) {
		surand_chacha20_blocks(c->key, c->counter++, 0, c->tail, 1);
		memcpy((uint8_t *)buf + nb * 64, c->tail, rem);
	}
	return 0;
}

static void bare_fini(void *ctx)
{
	struct bare_ctx *c = ctx;
	surand_wipe(c, sizeof(*c));
	free(c);
}


/* ---- getrandom(2) ------------------------------------------------------------ */
static int getrandom_setup(const char *arg, char *desc, size_t desc_len, char *why, size_t why_len)
{
	uint8_t b[4];
	(void)arg;
	if (syscall(SYS_getrandom, b, sizeof(b), 0) != (long)sizeof(b)) {
		snprintf(why, why_len, "getrandom(2) refused: %s", strerror(errno));
		return -1;
	}
	snprintf(desc, desc_len, "the getrandom(2) system call (syscall(SYS_getrandom), flags 0)");
	return 0;
}

static int getrandom_fill(void *ctx, void *buf, size_t len)
{
	(void)ctx;
	return kernel_bytes(buf, len);
}


/* ---- read(2) of /dev/urandom, one descriptor per thread ---------------------- */
static int urandom_setup(const char *arg, char *desc, size_t desc_len, char *why, size_t why_len)
{
	(void)arg;
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, why_len, "cannot open /dev/urandom: %s", strerror(errno));
		return -1;
	}
	close(fd);
	snprintf(desc, desc_len, "read(2) of /dev/urandom, one descriptor per thread");
	return 0;
}

static void *urandom_init(size_t max_len)
{
	int *fd = malloc(sizeof(*fd));
	(void)max_len;
	if (!fd)
		return NULL;
	*fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	if (*fd < 0) {
		free(fd);
		return NULL;
	}
	return fd;
}

static int urandom_fill(void *ctx, void *buf, size_t len)
{
	int fd = *(int *)ctx;
	uint8_t *p = buf;
	while (len) {
		ssize_t r = read(fd, p, len);
		if (r <= 0) {
			if (r < 0 && errno == EINTR)
				continue;
			return -1;
		}
		p += r;
		len -= (size_t)r;
	}
	return 0;
}

static void urandom_fini(void *ctx)
{
	close(*(int *)ctx);
	free(ctx);
}


/* ---- the kernel's vDSO getrandom, each thread its own state ------------------ */
static struct bench_vdso vdso;

struct vdso_ctx {
	void *state;
	size_t map_len;
};

static int vdso_setup(const char *arg, char *desc, size_t desc_len, char *why, size_t why_len)
{
	(void)arg;
	if (bench_vdso_find(&vdso, why, why_len) != 0)
		return -1;
	snprintf(desc, desc_len,
		 "the kernel's vDSO getrandom (the library's own lookup; %u-byte state per "
		 "thread, mmap flags 0x%x): ChaCha20 batches in userspace, keyed by the kernel",
		 vdso.state_size, vdso.mmap_flags);
	return 0;
}

static void *vdso_init(size_t max_len)
{
	struct vdso_ctx *c = malloc(sizeof(*c));
	long page = sysconf(_SC_PAGESIZE);
	(void)max_len;
	if (!c)
		return NULL;
	/* one state, alone in its own mapping, with the prot and flags the vDSO asked for */
	c->map_len = ((size_t)vdso.state_size + (size_t)page - 1) & ~((size_t)page - 1);
	c->state = mmap(NULL, c->map_len, (int)vdso.mmap_prot, (int)vdso.mmap_flags, -1, 0);
	if (c->state == MAP_FAILED) {
		free(c);
		return NULL;
	}
	return c;
}

static int vdso_fill(void *ctx, void *buf, size_t len)
{
	struct vdso_ctx *c = ctx;
	uint8_t *p = buf;
	while (len) {
		ssize_t r = vdso.fn(p, len, 0, c->state, vdso.state_size);
		if (r < 0) {
			if (r == -EINTR)
				continue;
			return -1;
		}
		p += r;
		len -= (size_t)r;
	}
	return 0;
}

static void vdso_fini(void *ctx)
{
	struct vdso_ctx *c = ctx;
	munmap(c->state, c->map_len);
	free(c);
}


/* ---- glibc arc4random / arc4random_buf (2.36+), found at run time ------------ */
static void (*arc4random_buf_fn)(void *, size_t);
static uint32_t (*arc4random_fn)(void);

static int arc4_setup(const char *arg, char *desc, size_t desc_len, char *why, size_t why_len)
{
	const char *ver = gnu_get_libc_version();
	unsigned major = 0, minor = 0;
	(void)arg;
	arc4random_buf_fn = (void (*)(void *, size_t))dlsym(RTLD_DEFAULT, "arc4random_buf");
	arc4random_fn = (uint32_t (*)(void))dlsym(RTLD_DEFAULT, "arc4random");
	if (!arc4random_buf_fn || !arc4random_fn) {
		snprintf(why, why_len, "glibc %s has no arc4random_buf (added in glibc 2.36)", ver);
		return -1;
	}
	sscanf(ver, "%u.%u", &major, &minor);
	if (major == 2 && minor < 41)
		snprintf(desc, desc_len,
			 "glibc %s arc4random (4 B) / arc4random_buf: the getrandom(2) syscall on "
			 "every call (glibc 2.36-2.40 keep no userspace state)", ver);
	else
		snprintf(desc, desc_len,
			 "glibc %s arc4random (4 B) / arc4random_buf: the kernel's getrandom, "
			 "through the vDSO where the kernel has it (glibc 2.41+)", ver);
	return 0;
}

static int arc4_fill(void *ctx, void *buf, size_t len)
{
	(void)ctx;
	if (len == 4) {
		uint32_t v = arc4random_fn();
		memcpy(buf, &v, 4);
	} else {
		arc4random_buf_fn(buf, len);
	}
	return 0;
}


/* ---- libbsd's arc4random / arc4random_buf, loaded with dlopen ---------------- */
/*
 * glibc 2.36 exports arc4random and arc4random_buf too, so libbsd is never
 * linked: its own versions are looked up in its handle by symbol version
 * (LIBBSD_0.0 / LIBBSD_0.2), and dladdr() confirms they are inside libbsd.
 */
static uint32_t (*bsd_u32_fn)(void);
static void (*bsd_buf_fn)(void *, size_t);
static void *bsd_handle; /* kept open: the functions above live in it */

static int in_object(void *fn, void *handle)
{
	Dl_info a, b;
	void *self = dlsym(handle, "arc4random_stir"); /* libbsd-only name: an anchor inside it */

	return fn && self && dladdr(fn, &a) && dladdr(self, &b) && a.dli_fbase == b.dli_fbase;
}

static int libbsd_setup(const char *arg, char *desc, size_t desc_len, char *why, size_t why_len)
{
	void *h;
	Dl_info info;
	char real[4096];
	const char *file = NULL, *ver;

	(void)arg;
	h = bsd_handle ? bsd_handle : dlopen(BENCH_LIBBSD_SO, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(why, why_len, "%s not found (%s)", BENCH_LIBBSD_SO, BENCH_LIBBSD_APT);
		return -1;
	}
	bsd_handle = h;
	bsd_u32_fn = (uint32_t (*)(void))dlvsym(h, "arc4random", "LIBBSD_0.0");
	bsd_buf_fn = (void (*)(void *, size_t))dlvsym(h, "arc4random_buf", "LIBBSD_0.2");
	if (!in_object((void *)bsd_u32_fn, h) || !in_object((void *)bsd_buf_fn, h)) {
		snprintf(why, why_len, "%s has no arc4random / arc4random_buf of its own (%s)",
			 BENCH_LIBBSD_SO, BENCH_LIBBSD_APT);
		return -1;
	}
	if (dladdr((void *)bsd_buf_fn, &info) && info.dli_fname &&
	    realpath(info.dli_fname, real))
		file = strrchr(real, '/');
	ver = file ? strstr(file, ".so.") : NULL;
	snprintf(desc, desc_len,
		 "libbsd %s arc4random (4 B) / arc4random_buf, loaded with dlopen (glibc has the "
		 "same names): OpenBSD's ChaCha20 arc4random behind one process-wide lock, with a getpid() per call to notice a fork",
		 ver ? ver + 4 : "(version unknown)");
	return 0;
}

void *bench_libbsd_buf_fn(void)
{
	return (void *)bsd_buf_fn;
}

static int libbsd_fill(void *ctx, void *buf, size_t len)
{
	(void)ctx;
	if (len == 4) {
		uint32_t v = bsd_u32_fn();
		memcpy(buf, &v, 4);
	} else {
		bsd_buf_fn(buf, len);
	}
	return 0;
}


/* ---- Rust rand 0.8 thread_rng(), from bench/rust-rand/ ------------------------- */
/* Each worker thread holds its own thread_rng() handle (made and freed on that thread). */
static void *(*rust_new_fn)(void);
static void (*rust_free_fn)(void *);
static uint32_t (*rust_u32_fn)(void *);
static uint64_t (*rust_u64_fn)(void *);
static int (*rust_fill_fn)(void *, void *, size_t);
static void *rust_handle; /* kept open: the functions above live in it */

/* dir of the running program + "/" + name, 0; or -1. */
int bench_next_to_self(const char *name, char *path, size_t cap)
{
	char self[4096], *slash;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		return -1;
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	return snprintf(path, cap, "%s/%s", self, name) < (int)cap ? 0 : -1;
}

static int rust_setup(const char *arg, char *desc, size_t desc_len, char *why, size_t why_len)
{
	char path[4200];
	void *h;
	const char *(*desc_fn)(void);

	(void)arg;
	if (bench_next_to_self(BENCH_RUST_PEER_SO, path, sizeof(path)) != 0 ||
	    access(path, R_OK) != 0) {
		snprintf(why, why_len, "%s is not built next to this program (%s)",
			 BENCH_RUST_PEER_SO, BENCH_RUST_PEER_APT);
		return -1;
	}
	h = rust_handle ? rust_handle : dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(why, why_len, "dlopen %s: %s (%s)", BENCH_RUST_PEER_SO, dlerror(),
			 BENCH_RUST_PEER_APT);
		return -1;
	}
	rust_handle = h;
	rust_new_fn = (void *(*)(void))dlsym(h, "surand_peer_rust_new");
	rust_free_fn = (void (*)(void *))dlsym(h, "surand_peer_rust_free");
	rust_u32_fn = (uint32_t (*)(void *))dlsym(h, "surand_peer_rust_u32");
	rust_u64_fn = (uint64_t (*)(void *))dlsym(h, "surand_peer_rust_u64");
	rust_fill_fn = (int (*)(void *, void *, size_t))dlsym(h, "surand_peer_rust_fill");
	desc_fn = (const char *(*)(void))dlsym(h, "surand_peer_rust_desc");
	if (!rust_new_fn || !rust_free_fn || !rust_u32_fn || !rust_u64_fn || !rust_fill_fn ||
	    !desc_fn) {
		snprintf(why, why_len, "%s lacks its functions: rebuild it (%s)", BENCH_RUST_PEER_SO,
			 BENCH_RUST_PEER_APT);
		return -1;
	}
	snprintf(desc, desc_len, "%s", desc_fn());
	return 0;
}

static void *rust_init(size_t max_len)
{
	(void)max_len;
	return rust_new_fn();
}

static int rust_fill(void *ctx, void *buf, size_t len)
{
	if (len == 4) {
		uint32_t v = rust_u32_fn(ctx);
		memcpy(buf, &v, 4);
	} else if (len == 8) {
		uint64_t v = rust_u64_fn(ctx);
		memcpy(buf, &v, 8);
	} else {
		return rust_fill_fn(ctx, buf, len);
	}
	return 0;
}

static void rust_fini(void *ctx)
{
	rust_free_fn(ctx);
}

/* ---- OpenSSL RAND_bytes and EVP ChaCha20, loaded with dlopen ------------------ */
#define NO_OPENSSL "built without OpenSSL's headers (apt-get install libssl-dev, then rebuild)"
#ifdef HAVE_OPENSSL
static const struct bench_openssl *ossl; /* set by the setups, before any thread */

static int ossl_rand_setup(const char *arg, char *desc, size_t desc_len, char *why,
			   size_t why_len)
{
	(void)arg;
	if (!(ossl = bench_openssl(why, why_len)))
		return -1;
	if (ossl->rand_status() != 1) {
		snprintf(why, why_len, "OpenSSL RAND_status() says the DRBG is not seeded");
		return -1;
	}
	snprintf(desc, desc_len,
		 "%s RAND_bytes: an AES-256 CTR-DRBG (per-thread public DRBG seeded from the "
		 "kernel); can win at large sizes on AES-NI machines (the 64 KiB rows show "
		 "whether it does here)",
		 ossl->version(OPENSSL_VERSION));
	return 0;
}

static int ossl_rand_fill(void *ctx, void *buf, size_t len)
{
	(void)ctx;
	return ossl->rand_bytes(buf, (int)len) == 1 ? 0 : -1;
}

static int ossl_chacha_setup(const char *arg, char *desc, size_t desc_len, char *why,
			     size_t why_len)
{
	(void)arg;
	if (!(ossl = bench_openssl(why, why_len)))
		return -1;
	snprintf(desc, desc_len,
		 "%s EVP ChaCha20 keystream (encrypting zeros), a fixed key per thread: a raw "
		 "cipher like the bare body, not a generator",
		 ossl->version(OPENSSL_VERSION));
	return 0;
}

struct ossl_chacha_ctx {
	EVP_CIPHER_CTX *ctx;
	uint8_t *zeros;
};

static void *ossl_chacha_init(size_t max_len)
{
	struct ossl_chacha_ctx *c = calloc(1, sizeof(*c));
	uint8_t key[32], iv[16];
	if (!c)
		return NULL;
	c->zeros = calloc(1, max_len);
	c->ctx = ossl->ctx_new();
	if (!c->zeros || !c->ctx || kernel_bytes(key, sizeof(key)) != 0 ||
	    kernel_bytes(iv, sizeof(iv)) != 0 ||
	    ossl->encrypt_init(c->ctx, ossl->chacha20(), NULL, key, iv) != 1) {
		ossl->ctx_free(c->ctx);
		free(c->zeros);
		free(c);
		c = NULL;
	}
	surand_wipe(key, sizeof(key));
	return c;
}

static int ossl_chacha_fill(void *ctx, void *buf, size_t len)
{
	struct ossl_chacha_ctx *c = ctx;
	int out = 0;
	return ossl->encrypt_update(c->ctx, buf, &out, c->zeros, (int)len) == 1 &&
			       out == (int)len
		       ? 0
		       : -1;
}

static void ossl_chacha_fini(void *ctx)
{
	struct ossl_chacha_ctx *c = ctx;
	ossl->ctx_free(c->ctx);
	free(c->zeros);
	free(c);
}
#endif

/* ---- libsodium randombytes_buf, loaded with dlopen ------------------------------ */
#define NO_SODIUM "built without libsodium's headers (apt-get install libsodium-dev, then rebuild)"
#ifdef HAVE_SODIUM
static const struct bench_sodium *sod; /* set by the setup, before any thread */

static int sodium_setup(const char *arg, char *desc, size_t desc_len, char *why, size_t why_len)
{
	(void)arg;
	if (!(sod = bench_sodium(why, why_len)))
		return -1;
	if (sod->init() < 0) {
		snprintf(why, why_len, "sodium_init() failed");
		return -1;
	}
	const char *impl = sod->impl_name();
	snprintf(desc, desc_len, "libsodium %s randombytes_buf, implementation \"%s\"%s",
		 sod->version(), impl ? impl : "?",
		 impl && strcmp(impl, "sysrandom") == 0
			 ? ": the getrandom(2) syscall, 256 bytes per syscall (libsodium's default)"
			 : "");
	return 0;
}

static int sodium_fill(void *ctx, void *buf, size_t len)
{
	(void)ctx;
	sod->buf(buf, len);
	return 0;
}
#endif

/* ---- the table ------------------------------------------------------------------- */
/* name, kind, setup, thread_init, fill, thread_fini (NULL init/fini: no per-thread state),
 * absent, only_size */
const struct bench_source bench_system_sources[] = {
	{"surand-bytes", BENCH_KIND_BACKEND, bytes_setup, NULL, bytes_fill, NULL, NULL, 0},
	{"add-event", BENCH_KIND_BACKEND, event_setup, event_init, event_fill, event_fini, NULL, 4},
	{"bare", BENCH_KIND_BARE, bare_setup, bare_init, bare_fill, bare_fini, NULL, 0},
	{"vdso", BENCH_KIND_SYSTEM, vdso_setup, vdso_init, vdso_fill, vdso_fini, NULL, 0},
	{"getrandom", BENCH_KIND_SYSTEM, getrandom_setup, NULL, getrandom_fill, NULL, NULL, 0},
	{"urandom", BENCH_KIND_SYSTEM, urandom_setup, urandom_init, urandom_fill, urandom_fini, NULL, 0},
	{"arc4random", BENCH_KIND_SYSTEM, arc4_setup, NULL, arc4_fill, NULL, NULL, 0},
	{"rust-rand", BENCH_KIND_LIBRARY, rust_setup, rust_init, rust_fill, rust_fini, NULL, 0},
	{"libbsd", BENCH_KIND_LIBRARY, libbsd_setup, NULL, libbsd_fill, NULL, NULL, 0},
#ifdef HAVE_OPENSSL
	{"openssl-rand", BENCH_KIND_LIBRARY, ossl_rand_setup, NULL, ossl_rand_fill, NULL, NULL, 0},
	{"openssl-chacha", BENCH_KIND_LIBRARY, ossl_chacha_setup, ossl_chacha_init, ossl_chacha_fill,
	 ossl_chacha_fini, NULL, 0},
#else
	{"openssl-rand", BENCH_KIND_LIBRARY, NULL, NULL, NULL, NULL, NO_OPENSSL, 0},
	{"openssl-chacha", BENCH_KIND_LIBRARY, NULL, NULL, NULL, NULL, NO_OPENSSL, 0},
#endif
#ifdef HAVE_SODIUM
	{"sodium", BENCH_KIND_LIBRARY, sodium_setup, NULL, sodium_fill, NULL, NULL, 0},
#else
	{"sodium", BENCH_KIND_LIBRARY, NULL, NULL, NULL, NULL, NO_SODIUM, 0},
#endif
	{NULL, BENCH_KIND_SYSTEM, NULL, NULL, NULL, NULL, NULL, 0},
};

const struct bench_source *bench_find_system_source(const char *name)
{
	for (size_t i = 0; bench_system_sources[i].name; i++)
		if (strcmp(bench_system_sources[i].name, name) == 0)
			return &bench_system_sources[i];
	return NULL;
}
