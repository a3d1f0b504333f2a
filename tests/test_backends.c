/*
 * test_backends.c - every registered backend against one contract, the
 * property tests its declared flags call for, and each design's own tests.
 *
 * Each case runs in a forked child that selects the backend first
 * (surand_set_backend), so every backend starts from a fresh process state;
 * the parent kills a child that runs past its time limit (a deadlock is a
 * failure, not a hang).
 *
 * Sections:
 *   1. child processes
 *   2. independent references: the 2015 pool construction, ChaCha20 search
 *   3. the contract (same assertions for every backend)
 *   4. properties of the declared flags
 *   5. the 2015 pool code and the legacy design
 *   6. main
 * SPDX-License-Identifier: MIT
 */
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "surand.h"
#include "gen/backend.h"
#include "gen/designs.h"
#include "gen/pool2015.h"
#include "crypto/sha1.h"
#include "crypto/chacha20.h"
#include "test_hooks.h"

#ifdef HAVE_OPENSSL
#include <openssl/sha.h>
#endif

/* ==== 1. child processes ==================================================== */

#define CHILD_TIMEOUT_S 120

static const char *cur_backend; /* the backend the running case tests */
static int child_fd = -1;       /* the child's end of the message pipe */

static void child_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));
static void child_fail(const char *file, int line, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	int n;

	n = snprintf(msg, sizeof(msg), "%s:%d: ", file, line);
	va_start(ap, fmt);
	vsnprintf(msg + n, sizeof(msg) - (size_t)n, fmt, ap);
	va_end(ap);
	if (write(child_fd, msg, strlen(msg)) < 0)
		_exit(2);
	_exit(1);
}

#define C_ASSERT(cond)                                                     \
	do {                                                               \
		if (!(cond))                                               \
			child_fail(__FILE__, __LINE__, "assert %s", #cond); \
	} while (0)
#define C_ASSERT_MSG(cond, ...)                                     \
	do {                                                        \
		if (!(cond))                                        \
			child_fail(__FILE__, __LINE__, __VA_ARGS__); \
	} while (0)

#define C_ASSERT_EQ_U64(a, b)                                                         \
	do {                                                                          \
		unsigned long long c_a_ = (unsigned long long)(a),                    \
				   c_b_ = (unsigned long long)(b);                    \
		if (c_a_ != c_b_)                                                     \
			child_fail(__FILE__, __LINE__, "%s == %s: %llu != %llu", #a, #b, \
				   c_a_, c_b_);                                       \
	} while (0)

static int sanitizer_build(void)
{
	const char *s = getenv("SURAND_SANITIZER");
	return s && *s;
}

/*
 * Runs body in a child that selected cur_backend; reports its failure (or
 * crash, or timeout) as the running case's.  setup, when not NULL, runs in the
 * child before the backend is selected (environment, secmem kind).
 */
static void run_child_env(void (*setup)(void), void (*body)(void), int timeout_s)
{
	char msg[600] = "";
	int p[2], status = 0, waited_ms = 0;
	ssize_t n;
	pid_t pid, w;

	if (pipe(p) != 0) {
		t_fail_at(__FILE__, __LINE__, "pipe: %s", strerror(errno));
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		t_fail_at(__FILE__, __LINE__, "fork: %s", strerror(errno));
		return;
	}
	if (pid == 0) {
		close(p[0]);
		child_fd = p[1];
		if (setup)
			setup();
		if (cur_backend && surand_set_backend(cur_backend) != 0)
			child_fail(__FILE__, __LINE__, "surand_set_backend(%s): %s", cur_backend,
				   strerror(errno));
		body();
		_exit(0);
	}
	close(p[1]);
	for (;;) {
		w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			break;
		if (waited_ms >= timeout_s * 1000) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			close(p[0]);
			t_fail_at(__FILE__, __LINE__, "%s: child ran past %d s (deadlock?)", cur_backend,
				  timeout_s);
			return;
		}
		usleep(5000);
		waited_ms += 5;
	}
	n = read(p[0], msg, sizeof(msg) - 1);
	msg[n > 0 ? n : 0] = '\0';
	close(p[0]);
	if (WIFSIGNALED(status))
		t_fail_at(__FILE__, __LINE__, "%s: child killed by signal %d %s", cur_backend,
			  WTERMSIG(status), msg);
	else if (WEXITSTATUS(status) != 0)
		t_fail_at(__FILE__, __LINE__, "%s: %s", cur_backend, msg[0] ? msg : "child failed");
}

static const struct surand_backend *cur_be(void)
{
	return surand_backend_find(cur_backend);
}

/* Compares 16-byte records (qsort). */
static int cmp16(const void *a, const void *b)
{
	return memcmp(a, b, 16);
}

/* 1 when the n 16-byte records are pairwise distinct (sorts them). */
static int all_distinct16(uint8_t (*v)[16], size_t n)
{
	size_t i;

	qsort(v, n, 16, cmp16);
	for (i = 1; i < n; i++)
		if (memcmp(v[i - 1], v[i], 16) == 0)
			return 0;
	return 1;
}

/* ==== 2. independent references ============================================= */
/*
 * The 2015 construction, written here from the description of
 * drivers/char/random.c (Linux 4.2) and NOT from src/gen/pool2015.c: the
 * twist table is derived from the CRC-32 polynomial, indices count with
 * modular arithmetic, and SHA-1's compression function comes from OpenSSL
 * (SHA1_Transform) when it is present.
 */
struct ref_pool {
	uint32_t w[128];
	unsigned n;       /* 32 or 128 */
	unsigned add_ptr; /* counts down */
	unsigned rot;
};

static uint32_t ref_twist[8];
static int ref_no_rotate; /* SURAND_POOL_NO_ROTATE=1: the rotation stays */

static void ref_init_twist(void)
{
	/* Multiples of the bit-reversed CRC-32 polynomial 0xedb88320 >> (2 - k),
	 * XORed by the bits of the index. */
	const uint32_t t4 = 0xedb88320u, t2 = t4 >> 1, t1 = t4 >> 2;
	unsigned i;

	for (i = 0; i < 8; i++)
		ref_twist[i] = ((i & 4) ? t4 : 0) ^ ((i & 2) ? t2 : 0) ^ ((i & 1) ? t1 : 0);
}

static uint32_t ref_rol(uint32_t x, unsigned r)
{
	return r ? (x << r) | (x >> (32 - r)) : x;
}

static void ref_mix(struct ref_pool *p, const uint8_t *in, size_t len)
{
	static const unsigned taps32[5] = { 26, 19, 14, 7, 1 };
	static const unsigned taps128[5] = { 104, 76, 51, 25, 1 };
	const unsigned *t = p->n == 128 ? taps128 : taps32;
	size_t k;
	unsigned i, j;
	uint32_t w;

	for (k = 0; k < len; k++) {
		/* `const char` on x86: the byte is sign-extended first. */
		w = ref_rol((uint32_t)(int32_t)(int8_t)in[k], p->rot);
		p->add_ptr = (p->add_ptr + p->n - 1) % p->n;
		i = p->add_ptr;
		w ^= p->w[i];
		for (j = 0; j < 5; j++)
			w ^= p->w[(i + t[j]) % p->n];
		p->w[i] = (w >> 3) ^ ref_twist[w & 7];
		if (!ref_no_rotate)
			p->rot = (p->rot + (i == 0 ? 14 : 7)) % 32;
	}
}

static void ref_compress(uint32_t h[5], const uint8_t blk[64])
{
#ifdef HAVE_OPENSSL
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	SHA_CTX c;

	memset(&c, 0, sizeof(c));
	c.h0 = h[0];
	c.h1 = h[1];
	c.h2 = h[2];
	c.h3 = h[3];
	c.h4 = h[4];
	SHA1_Transform(&c, blk);
	h[0] = c.h0;
	h[1] = c.h1;
	h[2] = c.h2;
	h[3] = c.h3;
	h[4] = c.h4;
#pragma GCC diagnostic pop
#else
	surand_sha1_transform(h, blk);
#endif
}

static void le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static const uint32_t ref_sha1_iv[5] = { 0x67452301u, 0xefcdab89u, 0x98badcfeu, 0x10325476u,
					 0xc3d2e1f0u };

/* The hash of the pool from iv (no mixback). */
static void ref_hash(const struct ref_pool *p, const uint32_t iv[5], uint32_t h[5])
{
	uint8_t blk[64];
	unsigned i, j;

	memcpy(h, iv, 20);
	for (i = 0; i < p->n; i += 16) {
		for (j = 0; j < 16; j++)
			le32(blk + 4 * j, p->w[i + j]);
		ref_compress(h, blk);
	}
}

static void ref_fold(const uint32_t h[5], uint8_t out[10])
{
	uint8_t f[12];

	le32(f, h[0] ^ h[3]);
	le32(f + 4, h[1] ^ h[4]);
	le32(f + 8, h[2] ^ ref_rol(h[2], 16));
	memcpy(out, f, 10);
}

/* extract_buf(): hash from the standard IV, mix the hash back, fold. */
static void ref_extract(struct ref_pool *p, uint8_t out[10])
{
	uint32_t h[5];
	uint8_t hb[20];
	int i;

	ref_hash(p, ref_sha1_iv, h);
	for (i = 0; i < 5; i++)
		le32(hb + 4 * i, h[i]);
	ref_mix(p, hb, 20);
	ref_fold(h, out);
}

static void ref_from_snapshot(struct ref_pool *p, const struct surand_test_snapshot *s)
{
	memset(p, 0, sizeof(*p));
	p->n = s->nwords;
	memcpy(p->w, s->pool, s->nwords * 4);
	p->add_ptr = s->add_ptr;
	p->rot = s->input_rotate;
}

/* 1 when needle occurs in the ChaCha20 stream of key/nonce, blocks [from, to). */
static int chacha_contains(const uint32_t key[8], uint64_t nonce, uint64_t from, uint64_t to,
			   const uint8_t *needle, size_t n)
{
	uint8_t blocks[2 * 64];
	uint64_t c;

	/* Two blocks at a time, overlapping by one, so a needle across a
	 * block boundary is found too. */
	for (c = from; c < to; c++) {
		surand_chacha20_blocks_portable(key, c, nonce, blocks, 2);
		if (memmem(blocks, sizeof(blocks), needle, n))
			return 1;
	}
	return 0;
}

/* ==== 3. the contract ======================================================= */

/* ---- full lengths ---------------------------------------------------------- */

#define GUARD 64
#define CANARY_RUN 5 /* a run this long of canary bytes means "not written" */

/*
 * Checks that [0, n) was written and the guard after it was not.  A written
 * byte equals the canary with probability 1/256, so one-byte holes are found
 * statistically (tail[], head[] count canary bytes at each offset from either
 * end across all sizes) and longer holes exactly (a run of CANARY_RUN canary
 * bytes: 2^-40 per position).
 */
static void check_written(const uint8_t *b, size_t n, uint8_t canary, uint32_t tail[16],
			  uint32_t head[16])
{
	size_t i, run = 0;

	for (i = 0; i < GUARD; i++)
		C_ASSERT_MSG(b[n + i] == canary, "size %zu: byte %zu past the end was written", n, i);
	for (i = 0; i < n; i++) {
		run = b[i] == canary ? run + 1 : 0;
		C_ASSERT_MSG(run < CANARY_RUN, "size %zu: bytes %zu..%zu not written", n,
			     i + 1 - run, i);
	}
	for (i = 0; i < 16 && i < n; i++) {
		tail[i] += b[n - 1 - i] == canary;
		head[i] += b[i] == canary;
	}
}

static void body_lengths(void)
{
	const size_t big = 1u << 20;
	uint32_t tail[16] = { 0 }, head[16] = { 0 };
	uint8_t *b = malloc(big + GUARD);
	size_t n, step = sanitizer_build() ? 7 : 1, cnt = 0, i, sizes = 0;

	C_ASSERT(b != NULL);
	for (n = 0; n <= 4096; n += (n < 300 ? 1 : step)) {
		uint8_t canary = (uint8_t)(0xa5 ^ n);

		memset(b, canary, n + GUARD);
		surand_bytes(b, n);
		check_written(b, n, canary, tail, head);
		sizes++;
	}
	/* Per offset from either end, about sizes/256 canary bytes are
	 * expected (Poisson, mean <= 16); 64 is beyond any chance result
	 * (P < 1e-17) and far below a hole at that offset in 1/10 of the sizes. */
	for (i = 0; i < 16; i++) {
		C_ASSERT_MSG(tail[i] < 64, "byte %zu from the end looks unwritten in %u of %zu sizes",
			     i, tail[i], sizes);
		C_ASSERT_MSG(head[i] < 64, "byte %zu looks unwritten in %u of %zu sizes", i, head[i],
			     sizes);
	}
	memset(b, 0x3c, big + GUARD);
	surand_bytes(b, big);
	memset(tail, 0, sizeof(tail));
	check_written(b, big, 0x3c, tail, head);
	for (i = 0; i < big; i++)
		cnt += b[i] == 0x3c;
	/* Expected 4096 +- 64: more than 8 standard deviations above is a hole. */
	C_ASSERT_MSG(cnt < 4096 + 8 * 64, "1 MiB: %zu bytes still hold the canary", cnt);
	free(b);
}

/* ---- distinct across threads ----------------------------------------------- */

#define TH_N 8
#define TH_CALLS 256
static uint8_t th_out[TH_N * TH_CALLS][16];

static void *th_main(void *arg)
{
	size_t t = (size_t)(uintptr_t)arg, i;
	uint8_t tmp[128];

	for (i = 0; i < TH_CALLS; i++) {
		surand_bytes(th_out[t * TH_CALLS + i], 16);
		if (i % 16 == 0)
			surand_bytes(tmp, 1 + (i * 7 + t) % sizeof(tmp));
	}
	return NULL;
}

static void body_threads(void)
{
	pthread_t th[TH_N];
	size_t i;

	for (i = 0; i < TH_N; i++)
		C_ASSERT(pthread_create(&th[i], NULL, th_main, (void *)(uintptr_t)i) == 0);
	for (i = 0; i < TH_N; i++)
		pthread_join(th[i], NULL);
	C_ASSERT_MSG(all_distinct16(th_out, TH_N * TH_CALLS),
		     "two of %d 16-byte outputs of %d threads are equal", TH_N * TH_CALLS, TH_N);
}

/* ---- distinct across fork() ------------------------------------------------ */

#define FK_CHILDREN 3
#define FK_DRAWS 4

static void body_fork(void)
{
	uint8_t all[(FK_CHILDREN * 2 + 2) * FK_DRAWS][16];
	size_t nall = 0, k, d;
	int p[2];
	pid_t pid;

	/* The parent's state exists (and has been used) before every fork. */
	surand_bytes(all[nall++], 16);
	C_ASSERT(pipe(p) == 0);
	for (k = 0; k < FK_CHILDREN; k++) {
		pid = fork();
		C_ASSERT(pid >= 0);
		if (pid == 0) {
			uint8_t v[16];

			close(p[0]);
			if (k == 0) {
				/* A grandchild, forked from a child that has drawn. */
				surand_bytes(v, 16);
				if (write(p[1], v, 16) != 16)
					_exit(3);
				pid = fork();
				if (pid == 0) {
					for (d = 0; d < FK_DRAWS; d++) {
						surand_bytes(v, 16);
						if (write(p[1], v, 16) != 16)
							_exit(3);
					}
					_exit(0);
				}
				waitpid(pid, NULL, 0);
			}
			for (d = 0; d < FK_DRAWS; d++) {
				surand_bytes(v, 16);
				if (write(p[1], v, 16) != 16)
					_exit(3);
			}
			_exit(0);
		}
		surand_bytes(all[nall++], 16);
	}
	close(p[1]);
	for (;;) {
		ssize_t n = read(p[0], all[nall], 16);
		if (n != 16)
			break;
		nall++;
		if (nall >= sizeof(all) / 16)
			break;
	}
	close(p[0]);
	while (wait(NULL) > 0)
		;
	/* 1 before, 1 per fork in the parent, 1 + FK_DRAWS of child 0, FK_DRAWS
	 * of its grandchild and of each other child. */
	C_ASSERT_MSG(nall == 1 + FK_CHILDREN + 1 + FK_DRAWS + FK_CHILDREN * FK_DRAWS,
		     "%zu outputs came back", nall);
	C_ASSERT_MSG(all_distinct16(all, nall), "a forked process repeated bytes (%zu outputs)", nall);
}

static void setup_nowipe(void)
{
	/* As on a kernel without MADV_WIPEONFORK: only atfork handlers protect. */
	surand_test_secmem_force(-1);
}

static void setup_wipeonfork(void)
{
	surand_test_secmem_force(0);
}

/* Forks while other threads are inside calls (holding locks). */
static volatile int busy_stop;

static void *busy_main(void *arg)
{
	uint8_t b[40] = {0}; /* b[0] picks the first length: initialised */

	(void)arg;
	while (!__atomic_load_n(&busy_stop, __ATOMIC_RELAXED))
		surand_bytes(b, 1 + (size_t)(b[0] % 40));
	return NULL;
}

static void body_fork_busy(void)
{
	pthread_t th[2];
	uint8_t v[3][16], w[16];
	int i, p[2], status;
	pid_t pid;

	C_ASSERT(pipe(p) == 0);
	surand_bytes(w, 16);
	for (i = 0; i < 2; i++)
		C_ASSERT(pthread_create(&th[i], NULL, busy_main, NULL) == 0);
	for (i = 0; i < 3; i++) {
		usleep(2000);
		pid = fork();
		C_ASSERT(pid >= 0);
		if (pid == 0) {
			/* Must not deadlock on a lock a parent thread held. */
			surand_bytes(w, 16);
			_exit(write(p[1], w, 16) == 16 ? 0 : 3);
		}
		C_ASSERT(waitpid(pid, &status, 0) == pid);
		C_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
		C_ASSERT(read(p[0], v[i], 16) == 16);
	}
	__atomic_store_n(&busy_stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	C_ASSERT(memcmp(v[0], v[1], 16) && memcmp(v[1], v[2], 16) && memcmp(v[0], v[2], 16));
}

/* ---- signal reentrancy ----------------------------------------------------- */

#define SIG_MAX 256
static uint8_t sig_out[SIG_MAX][16];
static volatile int sig_n;

static void on_alarm(int sig)
{
	int e = errno;

	(void)sig;
	if (sig_n < SIG_MAX) {
		surand_bytes(sig_out[sig_n], 16);
		sig_n++;
	}
	errno = e;
}

static void body_signal(void)
{
	static uint8_t main_out[4096][16];
	struct sigaction sa;
	struct itimerval it;
	uint8_t buf[200];
	size_t i, nm = 0;
	struct timespec t0, t1;

	/* The first call sets the backend up (and resolves the vDSO the kernel
	 * path uses); a signal during set-up is the front end's business. */
	surand_bytes(buf, 16);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	C_ASSERT(sigaction(SIGALRM, &sa, NULL) == 0);
	memset(&it, 0, sizeof(it));
	it.it_interval.tv_usec = sanitizer_build() ? 2000 : 300;
	it.it_value.tv_usec = it.it_interval.tv_usec;
	C_ASSERT(setitimer(ITIMER_REAL, &it, NULL) == 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0;; i++) {
		surand_bytes(buf, 1 + i % sizeof(buf));
		if (i % 16 == 0 && nm < 4096)
			surand_bytes(main_out[nm++], 16);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (sig_n >= 64 || t1.tv_sec - t0.tv_sec > 5)
			break;
	}
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
	C_ASSERT_MSG(sig_n >= 20, "only %d handler calls ran", sig_n);
	for (i = 0; i < (size_t)sig_n && nm < 4096; i++)
		memcpy(main_out[nm++], sig_out[i], 16);
	C_ASSERT_MSG(all_distinct16(main_out, nm), "a handler repeated bytes of a call it interrupted");
}

/* ---- statistical sanity ---------------------------------------------------- */

/*
 * Byte frequencies of 1,000,000 bytes (calls of 1..97 bytes, so every
 * path of every design is used), chi-square with 255 degrees of freedom.
 * Accepted: 160 < chi2 < 380.  For uniform bytes P(chi2 <= 160) ~ 6e-7 and
 * P(chi2 >= 380) ~ 6e-7 (Wilson-Hilferty), so a correct backend fails this
 * about once in 800,000 runs; a stuck byte, a repeated block or a biased
 * construction moves chi2 far outside.
 */
#define CHI_BYTES 1000000
#define CHI_LO 160.0
#define CHI_HI 380.0

static void body_chi2(void)
{
	static uint8_t b[CHI_BYTES];
	uint64_t cnt[256] = { 0 };
	size_t off = 0, n, i = 0;
	double chi = 0, e = CHI_BYTES / 256.0;

	while (off < CHI_BYTES) {
		n = 1 + (i++ % 97);
		if (n > CHI_BYTES - off)
			n = CHI_BYTES - off;
		surand_bytes(b + off, n);
		off += n;
	}
	for (i = 0; i < CHI_BYTES; i++)
		cnt[b[i]]++;
	for (i = 0; i < 256; i++)
		chi += ((double)cnt[i] - e) * ((double)cnt[i] - e) / e;
	C_ASSERT_MSG(chi > CHI_LO && chi < CHI_HI, "chi-square %.1f outside (%.0f, %.0f)", chi,
		     CHI_LO, CHI_HI);
}

/* ---- bad input ------------------------------------------------------------- */

/*
 * A design chosen again before the first draw (another chosen in between)
 * keeps what its first set-up allocated: 50 more rounds of choosing leave
 * the heap as one round left it, and the design then serves.
 */
static void body_chosen_again(void)
{
	const char *other = strcmp(cur_backend, "thread") ? "thread" : "percpu";
	struct surand_stats st;
	uint8_t a[64], b[64];
	size_t heap;
	int i;

	C_ASSERT(surand_set_backend(other) == 0 && surand_set_backend(cur_backend) == 0);
	heap = mallinfo2().uordblks;
	for (i = 0; i < 50; i++)
		C_ASSERT(surand_set_backend(other) == 0 && surand_set_backend(cur_backend) == 0);
	C_ASSERT_MSG(mallinfo2().uordblks == heap, "50 rounds of choosing grew the heap %zu -> %zu",
		     heap, (size_t)mallinfo2().uordblks);
	surand_bytes(a, sizeof(a));
	surand_bytes(b, sizeof(b));
	C_ASSERT(!t_all_zero(a, sizeof(a)) && memcmp(a, b, sizeof(a)) != 0);
	C_ASSERT(surand_stats(&st, sizeof(st)) == 0 && strcmp(st.backend, cur_backend) == 0);
}

static void body_badinput(void)
{
	uint8_t b[300];
	struct surand_stats st;
	uint64_t u;
	double d;
	int i;

	errno = 0;
	C_ASSERT(surand_getrandom(b, 16, 0x8) == -1 && errno == EINVAL);
	errno = 0;
	C_ASSERT(surand_getrandom(b, 16, SURAND_GRND_INSECURE | SURAND_GRND_RANDOM) == -1 &&
		 errno == EINVAL);
	errno = 0;
	C_ASSERT(surand_getrandom(NULL, 16, 0) == -1 && errno == EFAULT);
	C_ASSERT(surand_getrandom(NULL, 0, 0) == 0);
	C_ASSERT(surand_getrandom(b, 0, 0) == 0);
	C_ASSERT(surand_getrandom(b, 16, 0) == 16);
	C_ASSERT(surand_getrandom(b, 16, SURAND_GRND_NONBLOCK) == 16);
	C_ASSERT(surand_getrandom(b, 16, SURAND_GRND_RANDOM) == 16);
	C_ASSERT(surand_getrandom(b, 16, SURAND_GRND_INSECURE) == 16);
	C_ASSERT(surand_getrandom(b, sizeof(b), 0) == (ssize_t)sizeof(b));
	errno = 0;
	C_ASSERT(surand_getentropy(b, 257) == -1 && errno == EIO);
	errno = 0;
	C_ASSERT(surand_getentropy(NULL, 16) == -1 && errno == EFAULT);
	C_ASSERT(surand_getentropy(b, 256) == 0);
	C_ASSERT(surand_getentropy(b, 0) == 0);
	C_ASSERT(surand_uniform(0) == 0 && surand_uniform(1) == 0);
	for (i = 0; i < 1000; i++) {
		u = surand_uniform(7);
		C_ASSERT(u < 7);
		d = surand_double();
		C_ASSERT(d >= 0.0 && d < 1.0);
	}
	(void)surand_u32();
	(void)surand_u64();
	/* The backend is fixed now. */
	errno = 0;
	C_ASSERT(surand_set_backend("no-such-design") == -1 && errno == EINVAL);
	errno = 0;
	C_ASSERT(surand_set_backend(NULL) == -1 && errno == EINVAL);
	C_ASSERT(surand_set_backend(cur_backend) == 0);
	errno = 0;
	C_ASSERT(surand_set_backend(strcmp(cur_backend, "thread") ? "thread" : "legacy") == -1 &&
		 errno == EBUSY);
	C_ASSERT(surand_stats(&st, sizeof(st)) == 0);
	C_ASSERT_MSG(strcmp(st.backend, cur_backend) == 0, "stats name %s", st.backend);
	errno = 0;
	C_ASSERT(surand_stats(NULL, sizeof(st)) == -1 && errno == EINVAL);
	C_ASSERT(surand_stats(&st, 4) == -1);
	C_ASSERT(surand_reseed() == 0);
	surand_bytes(b, 16);
}

/* ==== 4. properties of the declared flags =================================== */

static void test_flags(void)
{
	const struct surand_backend *be = cur_be();
	const unsigned known = SURAND_BP_BACKTRACK_PER_CALL | SURAND_BP_BACKTRACK_RESEED |
			       SURAND_BP_LOCK_FAST_PATH | SURAND_BP_PER_CPU | SURAND_BP_PER_THREAD |
			       SURAND_BP_SHARED_POOL | SURAND_BP_SHARED_WRITES;
	unsigned bt;

	T_ASSERT(be != NULL);
	T_ASSERT_MSG((be->props & ~known) == 0, "unknown property bits %#x", be->props & ~known);
	bt = be->props & (SURAND_BP_BACKTRACK_PER_CALL | SURAND_BP_BACKTRACK_RESEED);
	/* Exactly one granularity of backtracking protection is claimed. */
	T_ASSERT_MSG(bt == SURAND_BP_BACKTRACK_PER_CALL || bt == SURAND_BP_BACKTRACK_RESEED,
		     "props %#x must name one backtracking granularity", be->props);
	T_ASSERT(be->fill != NULL && be->name && be->summary && *be->summary);
}

/*
 * Salt of the last extraction, where the design salts its hash (salted);
 * zeros (the plain IV) otherwise.
 */
static void last_iv(uint32_t iv[5])
{
	uint32_t salt[5] = { 0 };
	int i;

	if (strcmp(cur_backend, "salted") == 0 || strcmp(cur_backend, "tso2015") == 0)
		surand_test_p15_last_salt(salt);
	for (i = 0; i < 5; i++)
		iv[i] = ref_sha1_iv[i] ^ salt[i];
}

/*
 * 1 when the state in s regenerates out: for a pool, hashing it (from the
 * IV the last call used) and folding gives out; for a ChaCha20 state, out
 * occurs in the first blocks of its key under its nonce (or a one-use
 * nonce); for either, out occurs in the state's raw bytes.
 */
static int snapshot_regenerates(const struct surand_test_snapshot *s, const uint8_t *out, size_t n,
				const uint32_t iv[5])
{
	static const uint64_t nonces[] = { 0, 0x7463657269642d75ull /* common.c "u-direct" */ };
	uint64_t hi;
	size_t i;

	if (memmem(s->pool, sizeof(s->pool), out, n) || memmem(s->key, sizeof(s->key), out, n) ||
	    (s->extra_len && memmem(s->extra, s->extra_len, out, n)))
		return 1;
	if (s->kind == SURAND_TEST_SNAP_POOL) {
		struct ref_pool p;
		uint32_t h[5];
		uint8_t f[10];

		ref_from_snapshot(&p, s);
		ref_hash(&p, iv, h);
		ref_fold(h, f);
		return memcmp(f, out, n < 10 ? n : 10) == 0;
	}
	if (s->kind == SURAND_TEST_SNAP_CHACHA) {
		hi = s->counter + 8;
		if (chacha_contains(s->key, s->nonce, s->counter > 8 ? s->counter - 8 : 0, hi, out, n))
			return 1;
		for (i = 0; i < sizeof(nonces) / sizeof(nonces[0]); i++)
			if (chacha_contains(s->key, nonces[i], 0, 8, out, n))
				return 1;
	}
	return 0;
}

/* thread has no snapshot hook of this file's kind: its slot is copied raw. */
static int thread_regenerates(const uint8_t *out, size_t n)
{
	size_t sz = 0;
	uint8_t *slot = surand_test_thread_slot(&sz), copy[4096];
	uint32_t key[8];

	C_ASSERT(slot != NULL && sz <= sizeof(copy));
	memcpy(copy, slot, sz);
	if (memmem(copy, sz, out, n))
		return 1;
	C_ASSERT(surand_test_thread_key(key) == 0);
	return chacha_contains(key, 0, 0, 32, out, n);
}

static void body_backtrack_per_call(void)
{
	struct surand_test_snapshot s;
	uint8_t out[16], warm[64];
	uint32_t iv[5];
	int i;

	surand_test_cpu_override(0); /* the per-CPU / per-node state stays the same */
	surand_bytes(warm, sizeof(warm));
	for (i = 0; i < 20; i++) {
		/* 10 bytes: one pool extraction; 16: one ChaCha20 block part. */
		size_t n = i % 2 ? 10 : 16;

		surand_bytes(out, n);
		if (strcmp(cur_backend, "thread") == 0) {
			C_ASSERT_MSG(!thread_regenerates(out, n), "the thread slot regenerates a call's output");
			continue;
		}
		C_ASSERT_MSG(surand_test_snapshot(SURAND_TEST_SNAP_LAST, &s) == 0, "no snapshot hook");
		last_iv(iv);
		C_ASSERT_MSG(!snapshot_regenerates(&s, out, n, iv),
			     "the state after call %d regenerates its output", i);
	}
}

static void body_backtrack_reseed(void)
{
	struct surand_test_snapshot s;
	uint8_t out1[16], out2[16];
	uint32_t iv1[5];

	surand_test_cpu_override(0);
	surand_bytes(out2, 16);
	surand_bytes(out1, 10);
	last_iv(iv1);
	C_ASSERT(surand_reseed() == 0);
	/* A design that re-keys lazily does so at the next call. */
	surand_bytes(out2, 16);
	C_ASSERT_MSG(surand_test_snapshot(SURAND_TEST_SNAP_LAST, &s) == 0, "no snapshot hook");
	C_ASSERT_MSG(!snapshot_regenerates(&s, out1, 10, iv1),
		     "the state after a reseed regenerates output from before it");
}

static void drop_all(void)
{
	size_t sz = 0;
	void *slot;

	if (strcmp(cur_backend, "thread") == 0) {
		/* thread has no drop hook: its slot is zeroed through its own. */
		slot = surand_test_thread_slot(&sz);
		if (slot)
			memset(slot, 0, sz);
		return;
	}
	surand_test_drop_state();
}

/*
 * Every secret page of the design reads as zeros (MAP_DROPPABLE dropped it):
 * the next calls re-seed, never output what a zero state would give.
 */
static void body_dropped(void)
{
	static const uint64_t nonces[] = { 0, 0x7463657269642d75ull /* u-direct */ };
	static uint8_t out[3][64];
	struct ref_pool zp;
	uint32_t zkey[8] = { 0 }, h[5];
	uint8_t zf[10], warm[32];
	size_t i, k;

	surand_test_cpu_override(0);
	surand_bytes(warm, sizeof(warm));
	drop_all();
	for (i = 0; i < 3; i++) {
		surand_bytes(out[i], 64);
		if (i == 1)
			drop_all(); /* dropped again, between calls */
	}
	C_ASSERT(memcmp(out[0], out[1], 64) && memcmp(out[1], out[2], 64) &&
		 memcmp(out[0], out[2], 64));
	memset(&zp, 0, sizeof(zp));
	zp.n = 32;
	ref_hash(&zp, ref_sha1_iv, h);
	ref_fold(h, zf);
	for (i = 0; i < 3; i++) {
		C_ASSERT_MSG(!memmem(out[i], 64, zf, 10), "output of a zero pool after a drop");
		for (k = 0; k < sizeof(nonces) / sizeof(nonces[0]); k++)
			C_ASSERT_MSG(!chacha_contains(zkey, nonces[k], 0, 64, out[i], 16),
				     "output of a zero key after a drop");
		for (k = 1; k <= 16; k++) /* small per-thread nonces (onekey) */
			C_ASSERT_MSG(!chacha_contains(zkey, k, 0, 64, out[i], 16),
				     "output of a zero key after a drop");
	}
}

/*
 * 2015 pools: the page drops while a pull is mixed in, 8 bytes before its
 * end.  The pool must not serve output until a whole pull is in: a pool
 * marked valid after such a mix held 8 mixed words (plus one mixback), and
 * its output repeated (tests/test_faults.c droppable, multipool under TSan).
 */
static void body_drop_during_pull(void)
{
	struct surand_test_snapshot s;
	uint8_t out[10];
	unsigned zero = 0, i;
	unsigned long drops;

	surand_test_cpu_override(0);
	surand_bytes(out, sizeof(out));
	drop_all();
	drops = surand_test_p15_drop_in_mix(32, 32 * 4 - 8);
	surand_bytes(out, sizeof(out)); /* one extraction */
	C_ASSERT_MSG(surand_test_p15_drop_in_mix(32, -1) == drops + 1,
		     "the armed drop did not happen: no pull was mixed into an output pool");
	C_ASSERT_MSG(surand_test_snapshot(SURAND_TEST_SNAP_LAST, &s) == 0, "no snapshot hook");
	C_ASSERT(s.kind == SURAND_TEST_SNAP_POOL && s.nwords == 32);
	for (i = 0; i < s.nwords; i++)
		zero += s.pool[i] == 0;
	C_ASSERT_MSG(zero == 0, "%u of 32 pool words still zero: output came from a pool seeded by part of a pull",
		     zero);
}

/* ==== 5. the 2015 pool code and the legacy design =========================== */

static void test_twist_table(void)
{
	/* The kernel's literal table (random.c), against the derivation. */
	static const uint32_t kernel[8] = { 0x00000000, 0x3b6e20c8, 0x76dc4190, 0x4db26158,
					    0xedb88320, 0xd6d6a3e8, 0x9b64c2b0, 0xa00ae278 };
	int i;

	for (i = 0; i < 8; i++)
		T_ASSERT_MSG(ref_twist[i] == kernel[i], "twist[%d] %08x", i, ref_twist[i]);
}

/* surand_p15_* against the reference: random states, inputs with high bytes. */
static void test_pool2015_reference(void)
{
	struct surand_p15 *p = calloc(1, sizeof(*p));
	struct ref_pool r;
	uint64_t seed = 2015;
	uint8_t in[300], out[10], rout[10];
	unsigned sizes[2] = { 32, 128 }, k, round, len, i;

	T_ASSERT(p != NULL);
	for (k = 0; k < 2; k++) {
		memset(&r, 0, sizeof(r));
		memset(p, 0, sizeof(*p));
		r.n = sizes[k];
		t_randbytes(&seed, r.w, r.n * 4);
		memcpy(p->words, r.w, r.n * 4);
		p->valid = SURAND_READY_YES;
		for (round = 0; round < 200; round++) {
			len = (unsigned)(t_rand64(&seed) % sizeof(in));
			t_randbytes(&seed, in, len);
			surand_p15_mix(p, r.n, in, len);
			ref_mix(&r, in, len);
			T_ASSERT_MSG(p->add_ptr == r.add_ptr && p->input_rotate == r.rot,
				     "%u words: pointers differ after %u bytes", r.n, len);
			T_ASSERT_MEM_EQ(p->words, r.w, r.n * 4);
			T_ASSERT(surand_p15_extract(p, r.n, out) == 0);
			ref_extract(&r, rout);
			T_ASSERT_MEM_EQ(out, rout, 10);
			T_ASSERT_MEM_EQ(p->words, r.w, r.n * 4);
		}
		for (i = 0; i < r.n; i++)
			T_ASSERT(p->writes[i] > 0);
	}
	/* An unseeded pool (valid 0: fork child, dropped page) never extracts. */
	p->valid = SURAND_READY_EMPTY;
	memset(out, 0x77, sizeof(out));
	T_ASSERT(surand_p15_extract(p, 32, out) == -1);
	free(p);
}

/* legacy: the extraction equals the reference from the pool before it. */
static void body_legacy_reference(void)
{
	struct surand_test_snapshot s0, s1;
	struct ref_pool r;
	uint8_t warm[1], out[25], ref[30];
	int i;

	surand_bytes(warm, 1); /* the first read pulls from the input pool */
	C_ASSERT(surand_test_snapshot(0, &s0) == 0);
	C_ASSERT(s0.kind == SURAND_TEST_SNAP_POOL && s0.nwords == 32);
	surand_bytes(out, sizeof(out)); /* three extractions, the last one cut */
	C_ASSERT(surand_test_snapshot(0, &s1) == 0);
	ref_from_snapshot(&r, &s0);
	for (i = 0; i < 3; i++)
		ref_extract(&r, ref + 10 * i);
	C_ASSERT_MSG(memcmp(out, ref, sizeof(out)) == 0, "output differs from the 2015 reference");
	C_ASSERT_MSG(memcmp(r.w, s1.pool, 32 * 4) == 0 && r.add_ptr == s1.add_ptr &&
			     r.rot == s1.input_rotate,
		     "the pool after the read differs from the reference's mixback");
	C_ASSERT_MSG(memcmp(s0.pool, s1.pool, 32 * 4) != 0, "the read did not change the pool");
	/* The reference has teeth: the pool before the read regenerates it. */
	ref_from_snapshot(&r, &s0);
	ref_extract(&r, ref);
	C_ASSERT(memcmp(ref, out, 10) == 0);
}

/*
 * The 2015 debate's warning (Ts'o's mail of 12 Oct 2015, Spelvin quoted by Ts'o): with
 * per-CPU offsets added to one shared add_ptr, "CPU0 writes 5 words at 0..4,
 * leaving add_ptr = 5.  Then CPU 1 writes 5 words at 17..21, leaving add_ptr =
 * 10.  The CPU 0 writes its next word at 10.  Words 5..9 never got mixed."
 * A model of that scheme, replayed; then the same writes through surand's
 * mixing, which has one add_ptr and skips nothing.
 */
struct offset_model {
	unsigned add_ptr;  /* shared, counting up as in the mail */
	unsigned written[32];
};

static void model_write(struct offset_model *m, unsigned cpu_offset, unsigned nwords)
{
	unsigned k;

	for (k = 0; k < nwords; k++)
		m->written[(m->add_ptr + cpu_offset + k) % 32]++;
	m->add_ptr += nwords;
}

static void test_offset_warning(void)
{
	struct offset_model m;
	struct surand_p15 *p = calloc(1, sizeof(*p));
	uint8_t in[5] = { 1, 2, 3, 4, 5 };
	unsigned i, ptr;

	memset(&m, 0, sizeof(m));
	model_write(&m, 0, 5);  /* CPU 0: words 0..4 */
	model_write(&m, 12, 5); /* CPU 1, offset 12: words 17..21 */
	model_write(&m, 0, 1);  /* CPU 0 again: word 10 */
	for (i = 5; i <= 9; i++)
		T_ASSERT_MSG(m.written[i] == 0, "model: word %u was mixed", i);
	T_ASSERT(m.written[10] == 1 && m.written[17] == 1 && m.written[0] == 1);
	/* surand: the same three writes through the one mixing function. */
	T_ASSERT(p != NULL);
	p->valid = SURAND_READY_YES;
	surand_p15_mix(p, 32, in, 5);
	surand_p15_mix(p, 32, in, 5);
	surand_p15_mix(p, 32, in, 1);
	/* Eleven consecutive words, counting down from 31, each once. */
	for (i = 0, ptr = 31; i < 11; i++, ptr--)
		T_ASSERT_MSG(p->writes[ptr] == 1, "word %u written %llu times", ptr,
			     (unsigned long long)p->writes[ptr]);
	for (i = 0; i <= 20; i++)
		T_ASSERT(p->writes[i] == 0);
	free(p);
}

/* Every pool design: under 8 threads, the mixing reaches every word evenly. */
static void body_pool_no_skip(void)
{
	uint64_t w[32], lo = ~0ull, hi = 0, sum = 0;
	int i;

	surand_test_cpu_override(0);
	body_threads(); /* 8 threads, 2048+ calls */
	C_ASSERT_MSG(surand_test_pool_writes(0, w, 32) == 0, "no pool-writes hook");
	for (i = 0; i < 32; i++) {
		lo = w[i] < lo ? w[i] : lo;
		hi = w[i] > hi ? w[i] : hi;
		sum += w[i];
	}
	C_ASSERT(sum > 1000);
	/* One pointer, one word per byte: round-robin, no word skipped. */
	C_ASSERT_MSG(hi - lo <= 1, "pool words mixed unevenly: %llu..%llu times",
		     (unsigned long long)lo, (unsigned long long)hi);
}

/* Ts'o's "remove the input_rotate" (SURAND_POOL_NO_ROTATE=1): the rotation
 * stays where it was, and reads equal the reference without it; the same
 * pool state with the rotation gives other bytes. */
static void setup_no_rotate(void)
{
	setenv("SURAND_POOL_NO_ROTATE", "1", 1);
	surand_test_config_reload();
}

static void body_pool_no_rotate(void)
{
	struct surand_test_snapshot s0, s1;
	struct ref_pool r;
	uint8_t warm[1], out[30], ref[30];
	int i;

	surand_bytes(warm, 1);
	C_ASSERT(surand_test_snapshot(0, &s0) == 0);
	C_ASSERT_EQ_U64(s0.input_rotate, 0);
	surand_bytes(out, sizeof(out));
	C_ASSERT(surand_test_snapshot(0, &s1) == 0);
	C_ASSERT_EQ_U64(s1.input_rotate, 0);
	ref_no_rotate = 1;
	ref_from_snapshot(&r, &s0);
	for (i = 0; i < 3; i++)
		ref_extract(&r, ref + 10 * i);
	C_ASSERT_MSG(memcmp(out, ref, sizeof(out)) == 0 && memcmp(r.w, s1.pool, 32 * 4) == 0,
		     "not the reference without input_rotate");
	/* With the rotation the second extraction (after one mixback) differs. */
	ref_no_rotate = 0;
	ref_from_snapshot(&r, &s0);
	for (i = 0; i < 3; i++)
		ref_extract(&r, ref + 10 * i);
	C_ASSERT(memcmp(out, ref, 10) == 0 && memcmp(out + 10, ref + 10, 10) != 0);
}

/* legacy-spin really spins: its lock is the spin kind; legacy's the futex kind. */
static void body_legacy_lock_kind(void)
{
	struct surand_stats st;
	uint8_t b[16], e[64];
	uint64_t pooled;

	surand_bytes(b, sizeof(b));
	C_ASSERT(surand_stats(&st, sizeof(st)) == 0);
	C_ASSERT(st.backend_counters[0] >= 2); /* two extractions at least */
	C_ASSERT(st.backend_counters[1] >= 1); /* one pull from the input pool */
	C_ASSERT(st.backend_counters[3] >= 1);
	pooled = st.backend_counters[4];
	/* The input side's sources feed the 2015 input pool: once the entropy
	 * pool holds 256 credited bits, the next pull carries its bytes. */
	memset(e, 0x5c, sizeof(e));
	C_ASSERT(surand_add_entropy(e, sizeof(e), 256) == 0);
	C_ASSERT(surand_reseed() == 0);
	C_ASSERT(surand_stats(&st, sizeof(st)) == 0);
	C_ASSERT_EQ_U64(st.backend_counters[4], pooled + 1);
	C_ASSERT(st.backend_counters[1] >= 2);
}

/* ---- multipool ------------------------------------------------------------ */

static void setup_nodes4(void)
{
	setenv("SURAND_NODES", "4", 1);
	surand_test_config_reload();
}

/* A read changes exactly the pool of the caller's (simulated) node, and its
 * output is that pool's next extraction. */
static void body_multipool_node(void)
{
	struct surand_test_snapshot before[4], after[4];
	struct surand_stats st;
	struct ref_pool r;
	uint8_t out[10], ref[10], warm[1];
	unsigned cpu, node, k;

	for (node = 0; node < 4; node++) {
		surand_test_cpu_override((int)node); /* every pool pulls once */
		surand_bytes(warm, 1);
	}
	for (cpu = 0; cpu < 12; cpu++) {
		node = cpu % 4; /* SURAND_NODES: CPU c on node c % N */
		surand_test_cpu_override((int)cpu);
		for (k = 0; k < 4; k++)
			C_ASSERT(surand_test_snapshot((int)k, &before[k]) == 0);
		surand_bytes(out, sizeof(out));
		for (k = 0; k < 4; k++)
			C_ASSERT(surand_test_snapshot((int)k, &after[k]) == 0);
		ref_from_snapshot(&r, &before[node]);
		ref_extract(&r, ref);
		C_ASSERT_MSG(memcmp(ref, out, 10) == 0, "cpu %u: output is not node %u's pool's", cpu,
			     node);
		for (k = 0; k < 4; k++) {
			int changed = memcmp(before[k].pool, after[k].pool, 32 * 4) != 0;
			C_ASSERT_MSG(changed == (k == node), "cpu %u: pool %u %s", cpu, k,
				     changed ? "changed" : "unchanged");
		}
	}
	C_ASSERT(surand_stats(&st, sizeof(st)) == 0);
	C_ASSERT(st.backend_counters[4] == 4);
	C_ASSERT(st.backend_counters[1] >= 4); /* each node pool pulled */
	C_ASSERT(surand_test_snapshot(4, &before[0]) == -1);
}

/* Without SURAND_NODES: as many pools as sysfs lists nodes with CPUs. */
static void body_multipool_real(void)
{
	struct surand_stats st;
	char path[96], buf[64];
	uint8_t b[10];
	unsigned i, want = 0;
	int fd;

	for (i = 0; i < 1024; i++) {
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%u/cpulist", i);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		if (read(fd, buf, sizeof(buf)) > 1 && buf[0] >= '0' && buf[0] <= '9')
			want++;
		close(fd);
	}
	surand_bytes(b, sizeof(b));
	C_ASSERT(surand_stats(&st, sizeof(st)) == 0);
	C_ASSERT_MSG(st.backend_counters[4] == (want ? want : 1), "%llu pools for %u nodes",
		     (unsigned long long)st.backend_counters[4], want);
}

/* ---- tso2015 -------------------------------------------------------------- */

static void setup_tso_atomic(void)
{
	setenv("SURAND_TSO2015_MIX", "atomic", 1);
	surand_test_config_reload();
}

static int tso_atomic_mode(void)
{
	struct surand_stats st;

	C_ASSERT(surand_stats(&st, sizeof(st)) == 0);
	return st.backend_counters[2] == 1;
}

/*
 * One read on CPU 1: the output is the salted hash of the pool before it,
 * folded; the 20-byte hash is mixed back 12 words below the reserved place
 * (the per-CPU offset), or at it in the atomic mode, with no lock taken.
 */
static void body_tso_reference(void)
{
	struct surand_test_snapshot s0, s1;
	struct ref_pool r;
	uint32_t iv[5], h[5];
	uint8_t warm[1], out[10], ref[10], hb[20];
	unsigned off;
	int i;

	surand_test_cpu_override(1);
	surand_bytes(warm, 1); /* the first read pulls */
	off = tso_atomic_mode() ? 0 : 12;
	C_ASSERT(surand_test_snapshot(0, &s0) == 0);
	surand_bytes(out, sizeof(out));
	C_ASSERT(surand_test_snapshot(0, &s1) == 0);
	last_iv(iv);
	C_ASSERT_MSG(memcmp(iv, ref_sha1_iv, sizeof(iv)) != 0, "no salt in the IV");
	ref_from_snapshot(&r, &s0);
	ref_hash(&r, iv, h);
	ref_fold(h, ref);
	C_ASSERT_MSG(memcmp(ref, out, 10) == 0, "output is not the salted hash of the pool");
	for (i = 0; i < 5; i++)
		le32(hb + 4 * i, h[i]);
	r.add_ptr = (s0.add_ptr + 32 - off) % 32;
	ref_mix(&r, hb, 20);
	C_ASSERT_MSG(memcmp(r.w, s1.pool, 32 * 4) == 0 && r.rot == s1.input_rotate,
		     "the mixback is not the hash at offset %u", off);
	C_ASSERT_EQ_U64(s1.add_ptr, (s0.add_ptr + 32 - 20) % 32);
	/* The mixback changed the pool: it no longer regenerates the output. */
	C_ASSERT(!snapshot_regenerates(&s1, out, 10, iv));
}

/*
 * The 2015 debate's warning measured on the backend itself: 8 threads on CPUs 0..7
 * take turns (a turnstile fixes the interleaving), one 10-byte read (one
 * extraction) each turn.  Offset mode: CPU c writes 12c words below the
 * place it reserved, and 20 + 12 = 32, so every mixback lands on the same 20
 * words and 12 words are never mixed back ("Words 5..9 never got mixed at
 * all").  Atomic mode: every word is mixed equally often.
 */
#define TT_ROUNDS 32
static pthread_mutex_t tt_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t tt_cond = PTHREAD_COND_INITIALIZER;
static unsigned tt_turn;

static void *tt_main(void *arg)
{
	unsigned t = (unsigned)(uintptr_t)arg, k;
	uint8_t b[10];

	for (k = 0; k < TT_ROUNDS; k++) {
		pthread_mutex_lock(&tt_lock);
		while (tt_turn % TH_N != t)
			pthread_cond_wait(&tt_cond, &tt_lock);
		surand_test_cpu_override((int)t);
		surand_bytes(b, sizeof(b));
		tt_turn++;
		pthread_cond_broadcast(&tt_cond);
		pthread_mutex_unlock(&tt_lock);
	}
	return NULL;
}

static void body_tso_turnstile(void)
{
	struct surand_stats st;
	pthread_t th[TH_N];
	uint64_t w[32], pulled, e;
	unsigned i, never = 0, all = 0;
	int atomic_mode;

	for (i = 0; i < TH_N; i++)
		C_ASSERT(pthread_create(&th[i], NULL, tt_main, (void *)(uintptr_t)i) == 0);
	for (i = 0; i < TH_N; i++)
		pthread_join(th[i], NULL);
	C_ASSERT(surand_stats(&st, sizeof(st)) == 0);
	atomic_mode = st.backend_counters[2] == 1;
	e = st.backend_counters[0];
	C_ASSERT_EQ_U64(e, TH_N * TT_ROUNDS);
	C_ASSERT(surand_test_pool_writes(0, w, 32) == 0);
	pulled = st.backend_counters[1] * 128 / 32; /* each pull: 4 writes per word */
	for (i = 0; i < 32; i++) {
		never += w[i] == pulled;
		all += w[i] == pulled + e;
	}
	if (atomic_mode) {
		for (i = 0; i < 32; i++)
			C_ASSERT_MSG(w[i] == pulled + e * 20 / 32, "atomic mode: word %u mixed %llu times",
				     i, (unsigned long long)w[i]);
	} else {
		C_ASSERT_MSG(never == 12 && all == 20,
			     "offset mode: %u words never mixed back, %u mixed by every read", never, all);
		for (i = 0; i < 12; i++)
			C_ASSERT(w[i] == pulled); /* the same 12 words every time: 0..11 */
	}
}

/* 8 free threads: every word write is counted (the counts add up to the
 * reserved positions), and the readers' outputs stay distinct. */
static void body_tso_counted(void)
{
	struct surand_stats st;
	uint64_t w[32], sum = 0;
	int i;

	body_threads();
	C_ASSERT(surand_stats(&st, sizeof(st)) == 0);
	C_ASSERT(surand_test_pool_writes(0, w, 32) == 0);
	for (i = 0; i < 32; i++)
		sum += w[i];
	C_ASSERT_EQ_U64(sum, st.backend_counters[3]);
	C_ASSERT_EQ_U64(sum, st.backend_counters[1] * 128 + st.backend_counters[0] * 20);
	C_ASSERT(st.backend_counters[0] >= TH_N * TH_CALLS * 2);
}

/* ---- salted --------------------------------------------------------------- */

struct salted_read {
	uint8_t out[10];
	uint32_t salt[5];
};

static void *salted_reader(void *arg)
{
	struct salted_read *r = arg;

	surand_bytes(r->out, sizeof(r->out));
	surand_test_p15_last_salt(r->salt);
	return NULL;
}

static void salted_ref(const struct surand_test_snapshot *s, const uint32_t salt[5], uint32_t h[5],
		       uint8_t out[10])
{
	struct ref_pool p;
	uint32_t iv[5];
	int i;

	ref_from_snapshot(&p, s);
	for (i = 0; i < 5; i++)
		iv[i] = ref_sha1_iv[i] ^ salt[i];
	ref_hash(&p, iv, h);
	ref_fold(h, out);
}

/* Two readers of one pool state get different bytes; both mixbacks wait in
 * the buffer and are folded in, in order, when the holder releases. */
static void body_salted_same_state(void)
{
	struct surand_test_snapshot s0, s1, s2;
	struct salted_read a, b;
	struct surand_stats st;
	struct ref_pool r;
	uint32_t ha[5], hb[5];
	uint8_t warm[10], ra[10], rb[10], bytes[20];
	pthread_t t;
	int i;

	surand_bytes(warm, sizeof(warm));
	surand_test_salted_hold(1); /* as a reader that won the trylock */
	C_ASSERT(surand_test_snapshot(0, &s0) == 0);
	C_ASSERT(pthread_create(&t, NULL, salted_reader, &a) == 0);
	pthread_join(t, NULL);
	C_ASSERT(pthread_create(&t, NULL, salted_reader, &b) == 0);
	pthread_join(t, NULL);
	C_ASSERT(surand_test_snapshot(0, &s1) == 0);
	C_ASSERT_MSG(memcmp(s0.pool, s1.pool, 128) == 0 && s0.add_ptr == s1.add_ptr,
		     "the pool changed while the mixback lock was held");
	C_ASSERT_MSG(s1.extra_len == 40, "%u bytes wait in the buffer", s1.extra_len);
	C_ASSERT_MSG(memcmp(a.salt, b.salt, 20) != 0, "two readers used one salt");
	C_ASSERT_MSG(memcmp(a.out, b.out, 10) != 0, "two readers of one pool state got equal bytes");
	salted_ref(&s0, a.salt, ha, ra);
	salted_ref(&s0, b.salt, hb, rb);
	C_ASSERT_MSG(memcmp(ra, a.out, 10) == 0 && memcmp(rb, b.out, 10) == 0,
		     "output is not the salted hash of the pool");
	surand_test_salted_hold(0);
	C_ASSERT(surand_stats(&st, sizeof(st)) == 0);
	C_ASSERT(st.backend_counters[6] == 0 && st.backend_counters[3] == 2);
	C_ASSERT(surand_test_snapshot(0, &s2) == 0);
	C_ASSERT(s2.extra_len == 0);
	/* The pool now has both hashes mixed back, A's first. */
	ref_from_snapshot(&r, &s0);
	for (i = 0; i < 5; i++)
		le32(bytes + 4 * i, ha[i]);
	ref_mix(&r, bytes, 20);
	for (i = 0; i < 5; i++)
		le32(bytes + 4 * i, hb[i]);
	ref_mix(&r, bytes, 20);
	C_ASSERT_MSG(memcmp(r.w, s2.pool, 128) == 0 && r.add_ptr == s2.add_ptr,
		     "the folded pool differs from the reference mixback of both hashes");
}

/*
 * A reader hashes a dropped (zero) page while another re-seeds the pool:
 * valid read 1 before the hash, 0 during, 1 again after.  The reader must
 * see that the seeding changed and not keep its hash of zeros, which
 * anyone who knows the salt (a thread serial and a counter) can compute.
 */
static void body_salted_reseed_during_hash(void)
{
	struct surand_test_snapshot zero;
	uint32_t salt[5], h[5];
	uint8_t out[10], ref[10];
	unsigned long n;

	surand_bytes(out, sizeof(out));
	n = surand_test_salted_reseed_during_hash(1);
	surand_bytes(out, sizeof(out)); /* one extraction, retried if refused */
	C_ASSERT_MSG(surand_test_salted_reseed_during_hash(0) == n + 1, "the armed drop did not happen");
	surand_test_p15_last_salt(salt);
	memset(&zero, 0, sizeof(zero));
	zero.kind = SURAND_TEST_SNAP_POOL;
	zero.nwords = 32;
	salted_ref(&zero, salt, h, ref);
	C_ASSERT_MSG(memcmp(out, ref, sizeof(out)) != 0,
		     "the output is the salted hash of a zero pool: a hash of a dropped page was kept");
}

#define SL_THREADS 8
#define SL_CALLS 300
static int sl_done;

static void *salted_worker(void *arg)
{
	uint8_t b[10];
	int i;

	(void)arg;
	for (i = 0; i < SL_CALLS; i++) {
		surand_bytes(b, sizeof(b)); /* one extraction */
		__atomic_fetch_add(&sl_done, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

/* Under 8 concurrent readers (and a holder that keeps the lock a while, so
 * the buffer fills), every hash is mixed back exactly once. */
static void body_salted_no_loss(void)
{
	pthread_t th[SL_THREADS];
	struct surand_stats st;
	uint64_t w[32], sum = 0, total;
	uint8_t warm[10];
	int i, k;

	surand_bytes(warm, sizeof(warm));
	surand_test_salted_hold(1);
	for (i = 0; i < SL_THREADS; i++)
		C_ASSERT(pthread_create(&th[i], NULL, salted_worker, NULL) == 0);
	/* 64 appended (the buffer is full), then give readers time to block. */
	for (k = 0; k < 4000 && __atomic_load_n(&sl_done, __ATOMIC_RELAXED) < 64; k++)
		usleep(1000);
	usleep(200000);
	surand_test_salted_hold(0);
	for (k = 0; k < 50; k++) {
		surand_test_salted_hold(1);
		usleep(500);
		surand_test_salted_hold(0);
		usleep(200);
	}
	for (i = 0; i < SL_THREADS; i++)
		pthread_join(th[i], NULL);
	C_ASSERT(surand_stats(&st, sizeof(st)) == 0);
	total = 1 + SL_THREADS * SL_CALLS;
	C_ASSERT_MSG(st.backend_counters[0] == total, "%llu hashes for %llu extractions",
		     (unsigned long long)st.backend_counters[0], (unsigned long long)total);
	C_ASSERT_MSG(st.backend_counters[6] == 0, "%llu hashes still wait",
		     (unsigned long long)st.backend_counters[6]);
	C_ASSERT(st.backend_counters[2] == st.backend_counters[3]);
	C_ASSERT(st.backend_counters[1] + st.backend_counters[3] + st.backend_counters[4] == total);
	C_ASSERT_MSG(st.backend_counters[2] >= 64, "only %llu hashes went through the buffer",
		     (unsigned long long)st.backend_counters[2]);
	C_ASSERT_MSG(st.backend_counters[4] >= 1, "no reader found the buffer full");
	/* The pool saw every byte: 20 per hash, 128 per pull, nothing else. */
	C_ASSERT(surand_test_pool_writes(0, w, 32) == 0);
	for (i = 0; i < 32; i++)
		sum += w[i];
	C_ASSERT_MSG(sum == 20 * total + 128 * st.backend_counters[5],
		     "%llu pool words mixed for %llu hashes and %llu pulls", (unsigned long long)sum,
		     (unsigned long long)total, (unsigned long long)st.backend_counters[5]);
}

/* ---- taskcrng ------------------------------------------------------------- */

#define SEC_NS 1000000000ull

/* A careful caller (one 32-byte read per second) stays on the shared pool:
 * each read is the pool's next extractions, and the pool moves on. */
static void body_task_careful(void)
{
	struct surand_test_snapshot s0, s1;
	struct surand_stats st;
	struct ref_pool r;
	uint8_t out[32], ref[40];
	int i, k;

	/* Two reads per minute, 32 bytes in all: careful (32 bytes per 60 s).
	 * The first of each pair pulls from the input pool (60 s passed). */
	for (i = 0; i < 20; i++) {
		surand_test_clock_advance(61 * SEC_NS);
		surand_bytes(out, 1);
		C_ASSERT(surand_test_snapshot(SURAND_TEST_SNAP_LAST, &s0) == 0);
		C_ASSERT(s0.kind == SURAND_TEST_SNAP_POOL);
		surand_bytes(out, 31);
		C_ASSERT_MSG(!surand_test_taskcrng_switched(), "careful read %d switched the thread", i);
		C_ASSERT(surand_test_snapshot(SURAND_TEST_SNAP_LAST, &s1) == 0);
		ref_from_snapshot(&r, &s0);
		for (k = 0; k < 4; k++)
			ref_extract(&r, ref + 10 * k);
		C_ASSERT_MSG(memcmp(ref, out, 31) == 0, "read %d is not the pool's", i);
		/* Per-read mixback: the pool after the read regenerates none of it. */
		ref_from_snapshot(&r, &s1);
		ref_extract(&r, ref);
		C_ASSERT(memcmp(ref, out + 20, 10) != 0 && memcmp(ref, out, 10) != 0);
	}
	C_ASSERT(surand_stats(&st, sizeof(st)) == 0);
	C_ASSERT(st.backend_counters[0] == 0);  /* no thread switched */
	C_ASSERT(st.backend_counters[1] == 40); /* reads from the pool */
	C_ASSERT(st.backend_counters[2] == 0);  /* none from a CRNG */
}

static void *task_big_first(void *arg)
{
	uint8_t b[33];

	(void)arg;
	surand_bytes(b, sizeof(b)); /* 33 > 32 bytes: switched at once */
	return (void *)(intptr_t)surand_test_taskcrng_switched();
}

static void *task_many_small(void *arg)
{
	uint8_t b[3];
	int i;

	(void)arg;
	for (i = 0; i < 10; i++) {
		surand_bytes(b, sizeof(b)); /* 10 reads, 30 bytes: careful */
		if (surand_test_taskcrng_switched())
			return (void *)(intptr_t)(100 + i);
	}
	surand_bytes(b, 1); /* the 11th read in the second: switched */
	return (void *)(intptr_t)surand_test_taskcrng_switched();
}

static void *task_bytes_edge(void *arg)
{
	uint8_t b[16];

	(void)arg;
	surand_bytes(b, 16);
	surand_bytes(b, 16); /* 32 bytes: still careful */
	if (surand_test_taskcrng_switched())
		return (void *)(intptr_t)7;
	surand_bytes(b, 1); /* 33: switched */
	return (void *)(intptr_t)surand_test_taskcrng_switched();
}

/* A switched thread's CRNG: its snapshot (key, counter, nonce) copied out. */
static struct surand_test_snapshot task_exit_snap;

static void *task_switch_and_copy(void *arg)
{
	uint8_t b[33];

	(void)arg;
	surand_bytes(b, sizeof(b)); /* switched at once */
	if (!surand_test_taskcrng_switched() || surand_test_snapshot(SURAND_TEST_SNAP_LAST, &task_exit_snap) != 0)
		return (void *)(intptr_t)0;
	/* The scan has teeth: the live key is found in the thread's slot. */
	if (!surand_test_taskcrng_slab_holds(task_exit_snap.key, 32))
		return (void *)(intptr_t)2;
	return (void *)(intptr_t)1;
}

static intptr_t run_thread(void *(*fn)(void *))
{
	pthread_t t;
	void *rv = NULL;

	if (pthread_create(&t, NULL, fn, NULL) != 0)
		return -1;
	pthread_join(t, &rv);
	return (intptr_t)rv;
}

static void body_task_limits(void)
{
	struct surand_stats st;
	intptr_t v;

	v = run_thread(task_big_first);
	C_ASSERT_MSG(v == 1, "a 33-byte first read was served by the pool");
	v = run_thread(task_many_small);
	C_ASSERT_MSG(v == 1, "10 reads a second: %s", v >= 100 ? "switched too early" : "11th not switched");
	v = run_thread(task_bytes_edge);
	C_ASSERT_MSG(v == 1, "32 bytes: %s", v == 7 ? "switched at the limit" : "33rd byte not switched");
	C_ASSERT(surand_stats(&st, sizeof(st)) == 0);
	C_ASSERT_EQ_U64(st.backend_counters[0], 3);
	C_ASSERT_EQ_U64(st.backend_counters[6], 0); /* the threads' slots came back */
}

/* An exited thread's CRNG key is wiped with its slot: nothing in the slab
 * regenerates what the thread drew. */
static void body_task_exit_wipes(void)
{
	static const uint8_t zero[32];
	intptr_t v = run_thread(task_switch_and_copy);

	C_ASSERT_MSG(v != 0, "the thread did not switch to its CRNG");
	C_ASSERT_MSG(v != 2, "the live key was not found in the thread's slot");
	C_ASSERT_MSG(memcmp(task_exit_snap.key, zero, 32) != 0, "the snapshot has no key");
	C_ASSERT_MSG(!surand_test_taskcrng_slab_holds(task_exit_snap.key, 32),
		     "an exited thread's CRNG key is left in the slab");
}

/* The limiter's defaults are the documented seed figures (README, man
 * surand(3), docs/designs.md): 10 reads per 1000 ms, 32 bytes per 60 s,
 * every-reader mode off. */
static void body_task_defaults(void)
{
	const struct surand_design_config *c = surand_design_config();

	C_ASSERT_EQ_U64(c->task_reads, 10);
	C_ASSERT_EQ_U64(c->task_rate_ms, 1000);
	C_ASSERT_EQ_U64(c->task_bytes, 32);
	C_ASSERT_EQ_U64(c->task_budget_s, 60);
	C_ASSERT_EQ_U64(c->task_every, 0);
}

/* The byte budget spans 60 s, the rate 1 s: a third 16-byte read 2 s after
 * the first two (a new rate window) still passes the budget and switches;
 * in a new minute two 16-byte reads are careful again. */
static void *task_budget_thread(void *arg)
{
	uint8_t b[16];

	(void)arg;
	surand_bytes(b, 16);
	surand_bytes(b, 16);
	surand_test_clock_advance(2 * SEC_NS);
	if (surand_test_taskcrng_switched())
		return (void *)(intptr_t)7;
	surand_bytes(b, 16);
	return (void *)(intptr_t)surand_test_taskcrng_switched();
}

static void *task_minute_thread(void *arg)
{
	uint8_t b[16];
	int i;

	(void)arg;
	for (i = 0; i < 5; i++) {
		surand_bytes(b, 16);
		surand_bytes(b, 16);
		if (surand_test_taskcrng_switched())
			return (void *)(intptr_t)(100 + i);
		surand_test_clock_advance(61 * SEC_NS);
	}
	return (void *)(intptr_t)1;
}

static void body_task_budget_window(void)
{
	intptr_t v;

	v = run_thread(task_budget_thread);
	C_ASSERT_MSG(v == 1, "48 bytes in 2 s: %s", v == 7 ? "switched early" : "not switched");
	v = run_thread(task_minute_thread);
	C_ASSERT_MSG(v == 1, "32 bytes a minute switched in minute %d", (int)(v - 100));
}

static void setup_task_every(void)
{
	setenv("SURAND_TASKCRNG_EVERY", "1", 1);
	surand_test_config_reload();
}

/* Every reader on its own CRNG from its first read: one byte switches. */
static void body_task_every(void)
{
	struct surand_stats st;
	uint8_t b[1];

	surand_bytes(b, 1);
	C_ASSERT_MSG(surand_test_taskcrng_switched(), "the first read was served by the pool");
	C_ASSERT(surand_stats(&st, sizeof(st)) == 0);
	C_ASSERT_EQ_U64(st.backend_counters[1], 0); /* no read from the pool */
	C_ASSERT_EQ_U64(st.backend_counters[2], 1);
}

static void setup_task_env(void)
{
	setenv("SURAND_TASKCRNG_READS", "3", 1);
	setenv("SURAND_TASKCRNG_BYTES", "1000", 1);
	surand_test_config_reload();
}

static void body_task_env(void)
{
	uint8_t b[200];

	surand_bytes(b, 200);
	surand_bytes(b, 200);
	surand_bytes(b, 200);
	C_ASSERT_MSG(!surand_test_taskcrng_switched(), "3 reads of 200 bytes switched (limits 3, 1000)");
	surand_bytes(b, 1);
	C_ASSERT_MSG(surand_test_taskcrng_switched(), "the 4th read was not switched");
}

/* SURAND_TASKCRNG_RATE_MS sets the window the read limit counts in.  With
 * 100 ms, ten reads, 150 ms, ten more are careful (one window of the default
 * 1000 ms would switch at the 11th); with 5000 ms, an 11th read 2 s after
 * ten switches (the default window would have started again). */
static void *task_rate_short_thread(void *arg)
{
	uint8_t b[1];
	int i;

	(void)arg;
	for (i = 0; i < 20; i++) {
		if (i == 10)
			surand_test_clock_advance(150 * 1000000ull);
		surand_bytes(b, 1);
		if (surand_test_taskcrng_switched())
			return (void *)(intptr_t)(100 + i);
	}
	return (void *)(intptr_t)1;
}

/* A thread that reads `reads` times `len` bytes (careful: below every limit
 * in one window), then one byte `later_ns` after: 1 if that read switched,
 * 0 if not, 7 if the first reads had switched already. */
static intptr_t reads_then_one_later(int reads, size_t len, uint64_t later_ns)
{
	uint8_t b[16];

	for (int i = 0; i < reads; i++)
		surand_bytes(b, len);
	if (surand_test_taskcrng_switched())
		return 7;
	surand_test_clock_advance(later_ns);
	surand_bytes(b, 1);
	return surand_test_taskcrng_switched();
}

static void *task_rate_long_thread(void *arg)
{
	(void)arg;
	return (void *)reads_then_one_later(10, 1, 2 * SEC_NS);
}

static void setup_task_rate(void)
{
	setenv("SURAND_TASKCRNG_RATE_MS", "100", 1);
	surand_test_config_reload();
}

/*
 * One window variable, set to `first` by the case's setup: the first thread
 * must stay careful (1).  Then set to `second`: the second thread must
 * switch (1; 7: it switched within the first window already).
 */
static void window_env_check(const char *env, const unsigned *field, unsigned first,
			     void *(*first_thread)(void *), unsigned second,
			     void *(*second_thread)(void *))
{
	char val[16];
	intptr_t v;

	C_ASSERT_EQ_U64(*field, first);
	v = run_thread(first_thread);
	C_ASSERT_MSG(v == 1, "%s=%u: the thread switched (%d)", env, first, (int)v);
	snprintf(val, sizeof(val), "%u", second);
	setenv(env, val, 1);
	surand_test_config_reload();
	C_ASSERT_EQ_U64(*field, second);
	v = run_thread(second_thread);
	C_ASSERT_MSG(v == 1, "%s=%u: %s", env, second,
		     v == 7 ? "the thread switched within the first window"
			    : "the thread was careful after the default window");
}

static void body_task_rate_env(void)
{
	window_env_check("SURAND_TASKCRNG_RATE_MS", &surand_design_config()->task_rate_ms, 100,
			 task_rate_short_thread, 5000, task_rate_long_thread);
}

/* SURAND_TASKCRNG_BUDGET_SECS sets the window the byte budget counts in.
 * With 5 s, 32 bytes, 6 s, 32 more are careful (the default 60 s would
 * switch); with 120 s, one byte 61 s after 32 switches (the default
 * window would have started again). */
static void *task_budget_short_thread(void *arg)
{
	uint8_t b[16];

	(void)arg;
	surand_bytes(b, 16);
	surand_bytes(b, 16);
	surand_test_clock_advance(6 * SEC_NS);
	surand_bytes(b, 16);
	surand_bytes(b, 16);
	return (void *)(intptr_t)!surand_test_taskcrng_switched();
}

static void *task_budget_long_thread(void *arg)
{
	(void)arg;
	return (void *)reads_then_one_later(2, 16, 61 * SEC_NS);
}

static void setup_task_budget(void)
{
	setenv("SURAND_TASKCRNG_BUDGET_SECS", "5", 1);
	surand_test_config_reload();
}

static void body_task_budget_env(void)
{
	window_env_check("SURAND_TASKCRNG_BUDGET_SECS", &surand_design_config()->task_budget_s, 5,
			 task_budget_short_thread, 120, task_budget_long_thread);
}

/* The child's stderr, read back (setup_task_range); -1: not captured. */
static int task_err_rd = -1;

static void setup_task_range(void)
{
	int p[2];

	if (pipe(p) == 0) {
		dup2(p[1], STDERR_FILENO);
		close(p[1]);
		fcntl(p[0], F_SETFL, O_NONBLOCK);
		task_err_rd = p[0];
	}
}

/* Sets both windows, re-reads the environment and checks what was kept and
 * what stderr got: one line per value out of range, naming it and the
 * default, none for a value in range. */
static void task_range_try(const char *rate, const char *budget, unsigned want_rate,
			   unsigned want_budget)
{
	char err[1024] = "", *line, *nl, want[96];
	int lines = 0, bad = 0;
	ssize_t n;

	setenv("SURAND_TASKCRNG_RATE_MS", rate, 1);
	setenv("SURAND_TASKCRNG_BUDGET_SECS", budget, 1);
	surand_test_config_reload();
	C_ASSERT_MSG(surand_design_config()->task_rate_ms == want_rate,
		     "SURAND_TASKCRNG_RATE_MS=%s gave %u", rate, surand_design_config()->task_rate_ms);
	C_ASSERT_MSG(surand_design_config()->task_budget_s == want_budget,
		     "SURAND_TASKCRNG_BUDGET_SECS=%s gave %u", budget,
		     surand_design_config()->task_budget_s);
	n = read(task_err_rd, err, sizeof(err) - 1);
	err[n > 0 ? n : 0] = '\0';
	for (line = err; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		C_ASSERT_MSG(nl, "a warning without its newline: %s", line);
		lines++;
	}
	if (want_rate == 1000 && strcmp(rate, "1000") != 0) {
		bad++;
		snprintf(want, sizeof(want), "SURAND_TASKCRNG_RATE_MS=%s is not a number in 1..3600000; using 1000", rate);
		C_ASSERT_MSG(strstr(err, want), "no warning for SURAND_TASKCRNG_RATE_MS=%s: %s", rate, err);
	}
	if (want_budget == 60 && strcmp(budget, "60") != 0) {
		bad++;
		snprintf(want, sizeof(want), "SURAND_TASKCRNG_BUDGET_SECS=%s is not a number in 1..86400; using 60", budget);
		C_ASSERT_MSG(strstr(err, want), "no warning for SURAND_TASKCRNG_BUDGET_SECS=%s: %s", budget, err);
	}
	C_ASSERT_MSG(lines == bad, "%d warning lines for %d values out of range: %s", lines, bad, err);
}

static void body_task_range(void)
{
	uint8_t b[1];
	intptr_t v;

	C_ASSERT(task_err_rd >= 0);
	/* The design is put in place by its first read; re-reading the
	 * environment before it would drop the choice made in this child. */
	surand_bytes(b, 1);
	task_range_try("0", "86401", 1000, 60);
	task_range_try("3600001", "0", 1000, 60);
	task_range_try("-5", "60s", 1000, 60);
	/* The ends of the ranges are taken, silently. */
	task_range_try("1", "86400", 1, 86400);
	task_range_try("3600000", "1", 3600000, 1);
	/* Out of range again: the defaults act (ten reads, then the 11th switches). */
	task_range_try("0", "0", 1000, 60);
	v = run_thread(task_many_small);
	C_ASSERT_MSG(v == 1, "defaults kept: %s", v >= 100 ? "switched too early" : "11th not switched");
}

/* An abuser reads its own CRNG: no lock, no pool; no backtracking protection
 * until its key is replaced (2^24 cranks, 300 s, or surand_reseed()). */
static void body_task_abuser(void)
{
	struct surand_test_snapshot s;
	struct surand_stats st0, st1;
	uint8_t out[16], old[16];
	int i;

	for (i = 0; i < 1000; i++)
		surand_bytes(out, sizeof(out));
	C_ASSERT(surand_test_taskcrng_switched());
	C_ASSERT(surand_stats(&st0, sizeof(st0)) == 0);
	C_ASSERT_EQ_U64(st0.backend_counters[0], 1);
	C_ASSERT(st0.backend_counters[2] >= 997 && st0.backend_counters[3] == 1);
	/* Honest about the design: the state regenerates the last output. */
	C_ASSERT(surand_test_snapshot(SURAND_TEST_SNAP_LAST, &s) == 0);
	C_ASSERT(s.kind == SURAND_TEST_SNAP_CHACHA);
	C_ASSERT_MSG(chacha_contains(s.key, s.nonce, s.counter - 1, s.counter, out, 16),
		     "the abuser's output is not its CRNG's stream");
	/* Five minutes later, the next read takes a new key from the pool. */
	memcpy(old, out, 16);
	surand_test_clock_advance(301 * SEC_NS);
	surand_bytes(out, sizeof(out));
	C_ASSERT(surand_stats(&st1, sizeof(st1)) == 0);
	C_ASSERT_EQ_U64(st1.backend_counters[3], 2);
	C_ASSERT(surand_test_snapshot(SURAND_TEST_SNAP_LAST, &s) == 0);
	C_ASSERT_MSG(!chacha_contains(s.key, s.nonce, 0, s.counter + 8, old, 16) &&
			     !memmem(s.extra, s.extra_len, old, 16),
		     "after the reseed the state still regenerates older output");
	/* 2^24 cranks: re-keyed too. */
	surand_test_taskcrng_cranks(1ull << 24);
	surand_bytes(out, sizeof(out));
	C_ASSERT(surand_stats(&st1, sizeof(st1)) == 0);
	C_ASSERT_EQ_U64(st1.backend_counters[3], 3);
	/* surand_reseed(): re-keyed before the next output. */
	C_ASSERT(surand_reseed() == 0);
	surand_bytes(out, sizeof(out));
	C_ASSERT(surand_stats(&st1, sizeof(st1)) == 0);
	C_ASSERT_EQ_U64(st1.backend_counters[3], 4);
	/* Still switched after a quiet second: an abuser stays one. */
	surand_test_clock_advance(5 * SEC_NS);
	surand_bytes(out, 1);
	C_ASSERT(surand_test_taskcrng_switched());
}

/* ---- nodecrng ------------------------------------------------------------- */

static void xor_key(uint32_t key[8], const uint8_t *b)
{
	int i;

	for (i = 0; i < 8; i++)
		key[i] ^= (uint32_t)b[4 * i] | (uint32_t)b[4 * i + 1] << 8 |
			  (uint32_t)b[4 * i + 2] << 16 | (uint32_t)b[4 * i + 3] << 24;
}

/*
 * After surand_reseed() (RNDRESEEDCRNG), a node's next read reseeds it from
 * the primary: computed here from copies of both states, block by block as
 * random.c does it (crng_reseed, _extract_crng, _crng_backtrack_protect).
 */
static void body_nodecrng_from_primary(void)
{
	struct surand_test_snapshot p0, n0, p1, n1;
	uint8_t warm[16], out[16], bp[64], bn[64];
	uint32_t pkey[8], nkey[8];

	surand_test_cpu_override(0);
	surand_bytes(warm, sizeof(warm));
	C_ASSERT(surand_reseed() == 0);
	C_ASSERT(surand_test_snapshot(SURAND_TEST_SNAP_PRIMARY, &p0) == 0);
	C_ASSERT(surand_test_snapshot(0, &n0) == 0);
	surand_bytes(out, sizeof(out));
	C_ASSERT(surand_test_snapshot(SURAND_TEST_SNAP_PRIMARY, &p1) == 0);
	C_ASSERT(surand_test_snapshot(0, &n1) == 0);
	/* The primary's block: its first half re-keys the node, its second
	 * half protects the primary. */
	surand_chacha20_blocks_portable(p0.key, p0.counter, p0.nonce, bp, 1);
	memcpy(pkey, p0.key, 32);
	xor_key(pkey, bp + 32);
	C_ASSERT_MSG(memcmp(pkey, p1.key, 32) == 0 && p1.counter == p0.counter + 1,
		     "the primary was not used and protected once");
	memcpy(nkey, n0.key, 32);
	xor_key(nkey, bp);
	surand_chacha20_blocks_portable(nkey, n0.counter, n0.nonce, bn, 1);
	C_ASSERT_MSG(memcmp(bn, out, 16) == 0, "the read is not the node's block after the reseed");
	/* Backtrack protection: bytes 16..47 of that block into the key. */
	xor_key(nkey, bn + 16);
	C_ASSERT_MSG(memcmp(nkey, n1.key, 32) == 0 && n1.counter == n0.counter + 1,
		     "the node's key after the read is not key ^ unused output");
	C_ASSERT(!chacha_contains(n1.key, n1.nonce, n1.counter - 8, n1.counter + 8, out, 16));
}

/* The injected clock: nothing reseeds before 300 s, both do after. */
static void body_nodecrng_clock(void)
{
	struct surand_stats st0, st1, st2;
	uint8_t b[16];

	surand_test_cpu_override(0);
	surand_bytes(b, sizeof(b));
	surand_bytes(b, sizeof(b));
	C_ASSERT(surand_stats(&st0, sizeof(st0)) == 0);
	surand_test_clock_advance(150 * SEC_NS);
	surand_bytes(b, sizeof(b));
	C_ASSERT(surand_stats(&st1, sizeof(st1)) == 0);
	C_ASSERT_EQ_U64(st1.backend_counters[1], st0.backend_counters[1]);
	C_ASSERT_EQ_U64(st1.backend_counters[2], st0.backend_counters[2]);
	surand_test_clock_advance(151 * SEC_NS);
	surand_bytes(b, sizeof(b));
	C_ASSERT(surand_stats(&st2, sizeof(st2)) == 0);
	/* The node from the primary, the primary (due too) from the input pool. */
	C_ASSERT_EQ_U64(st2.backend_counters[1], st1.backend_counters[1] + 1);
	C_ASSERT_EQ_U64(st2.backend_counters[2], st1.backend_counters[2] + 1);
}

/* Simulated nodes: each node's CRNG is its own, with its own lock. */
static void body_nodecrng_nodes(void)
{
	struct surand_test_snapshot a0, a1, b0, b1;
	struct surand_stats st;
	uint8_t x[16];

	surand_test_cpu_override(1);
	surand_bytes(x, sizeof(x));
	surand_test_cpu_override(2);
	surand_bytes(x, sizeof(x));
	C_ASSERT(surand_test_snapshot(1, &a0) == 0 && surand_test_snapshot(2, &b0) == 0);
	C_ASSERT(memcmp(a0.key, b0.key, 32) != 0);
	surand_bytes(x, sizeof(x)); /* node 2 again */
	C_ASSERT(surand_test_snapshot(1, &a1) == 0 && surand_test_snapshot(2, &b1) == 0);
	C_ASSERT(memcmp(a0.key, a1.key, 32) == 0 && a0.counter == a1.counter);
	C_ASSERT(memcmp(b0.key, b1.key, 32) != 0 && b1.counter == b0.counter + 1);
	C_ASSERT(surand_stats(&st, sizeof(st)) == 0);
	C_ASSERT_EQ_U64(st.backend_counters[3], 4);
}

/* ---- onekey --------------------------------------------------------------- */

struct ok_rec {
	uint32_t key[8];
	uint64_t nonce, start, nblocks;
	uint32_t proc; /* 0 parent, 1.. children */
	uint32_t pad;
};

#define OK_THREADS 8
#define OK_CALLS 150
#define OK_CHILD_CALLS 50
static struct ok_rec ok_recs[OK_THREADS * OK_CALLS + 4 * OK_CHILD_CALLS + 16];
static int ok_nrec;
static int ok_bad; /* a call whose output is not the stream its triple names */

static void ok_draw(struct ok_rec *r, uint64_t *seed, uint32_t proc)
{
	struct surand_test_snapshot s;
	uint8_t out[300], ref[64];
	size_t len = 1 + (size_t)(t_rand64(seed) % sizeof(out));
	int tries = 0;

	/* The snapshot reads the key itself, and refuses once it was replaced:
	 * a reseed by another thread between the call and the snapshot (slow
	 * under the sanitizers) leaves nothing to check, so that call is not
	 * recorded and the thread draws again. */
	for (;;) {
		surand_bytes(out, len);
		if (surand_test_snapshot(SURAND_TEST_SNAP_LAST, &s) == 0)
			break;
		if (++tries >= 100) {
			__atomic_store_n(&ok_bad, 1, __ATOMIC_RELAXED);
			return;
		}
	}
	memcpy(r->key, s.key, 32);
	r->nonce = s.nonce;
	memcpy(&r->start, s.extra, 8);
	r->nblocks = (len + 63) / 64;
	r->proc = proc;
	/* The triple is the truth: the output is that stream's first blocks. */
	surand_chacha20_blocks_portable(s.key, r->start, s.nonce, ref, 1);
	if (memcmp(ref, out, len < 64 ? len : 64) != 0 || s.counter != r->start + r->nblocks)
		__atomic_store_n(&ok_bad, 1, __ATOMIC_RELAXED);
}

static void *ok_worker(void *arg)
{
	uint64_t seed = (uint64_t)(uintptr_t)arg * 7919 + 1;
	int i, slot;

	for (i = 0; i < OK_CALLS; i++) {
		slot = __atomic_fetch_add(&ok_nrec, 1, __ATOMIC_RELAXED);
		ok_draw(&ok_recs[slot], &seed, 0);
	}
	return NULL;
}

static int cmp_ok(const void *a, const void *b)
{
	const struct ok_rec *x = a, *y = b;
	int c = memcmp(x->key, y->key, 32);

	if (c)
		return c;
	if (x->nonce != y->nonce)
		return x->nonce < y->nonce ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return 0;
}

/* No (key, nonce, position) triple is used twice: across 8 threads, across
 * reseeds (forced and by the clock), across fork children. */
static void body_onekey_triples(void)
{
	pthread_t th[OK_THREADS];
	uint64_t seed = 99;
	int i, k, p[2], keys = 1, n;
	pid_t pid;

	C_ASSERT(pipe(p) == 0);
	for (i = 0; i < 4; i++) /* the parent draws before it forks */
		ok_draw(&ok_recs[ok_nrec++], &seed, 0);
	for (k = 1; k <= 2; k++) {
		pid = fork();
		C_ASSERT(pid >= 0);
		if (pid == 0) {
			struct ok_rec r;

			for (i = 0; i < OK_CHILD_CALLS; i++) {
				memset(&r, 0, sizeof(r));
				ok_draw(&r, &seed, (uint32_t)k);
				if (ok_bad || write(p[1], &r, sizeof(r)) != sizeof(r))
					_exit(3);
			}
			_exit(0);
		}
	}
	for (i = 0; i < OK_THREADS; i++)
		C_ASSERT(pthread_create(&th[i], NULL, ok_worker, (void *)(uintptr_t)i) == 0);
	for (i = 0; i < 3; i++) {
		usleep(2000);
		C_ASSERT(surand_reseed() == 0);
		surand_test_clock_advance(SEC_NS + SEC_NS / 10); /* due by the clock too */
	}
	for (i = 0; i < OK_THREADS; i++)
		pthread_join(th[i], NULL);
	close(p[1]);
	while (ok_nrec < (int)(sizeof(ok_recs) / sizeof(ok_recs[0])) &&
	       read(p[0], &ok_recs[ok_nrec], sizeof(ok_recs[0])) == sizeof(ok_recs[0]))
		ok_nrec++;
	while (wait(&n) > 0)
		C_ASSERT(WIFEXITED(n) && WEXITSTATUS(n) == 0);
	C_ASSERT(!ok_bad);
	C_ASSERT_EQ_U64(ok_nrec, 4 + OK_THREADS * OK_CALLS + 2 * OK_CHILD_CALLS);
	qsort(ok_recs, (size_t)ok_nrec, sizeof(ok_recs[0]), cmp_ok);
	for (i = 1; i < ok_nrec; i++) {
		struct ok_rec *a = &ok_recs[i - 1], *b = &ok_recs[i];

		if (memcmp(a->key, b->key, 32) != 0) {
			keys++;
			continue;
		}
		/* One key belongs to one process. */
		C_ASSERT_MSG(a->proc == b->proc, "processes %u and %u share a key", a->proc, b->proc);
		if (a->nonce == b->nonce)
			C_ASSERT_MSG(a->start + a->nblocks <= b->start,
				     "blocks %llu..%llu and %llu of one (key, nonce) overlap",
				     (unsigned long long)a->start,
				     (unsigned long long)(a->start + a->nblocks),
				     (unsigned long long)b->start);
	}
	C_ASSERT_MSG(keys >= 3, "only %d keys: the reseeds did not happen", keys);
}

/* Honest about the design: the key in memory regenerates the last output;
 * only the next reseed takes that away. */
static void body_onekey_no_backtrack(void)
{
	struct surand_test_snapshot s0, s1;
	struct surand_stats st0, st1;
	uint8_t out[16], out2[16];
	uint64_t start;

	surand_bytes(out, sizeof(out));
	C_ASSERT(surand_test_snapshot(SURAND_TEST_SNAP_LAST, &s0) == 0);
	memcpy(&start, s0.extra, 8);
	C_ASSERT_MSG(chacha_contains(s0.key, s0.nonce, start, start + 1, out, 16),
		     "the key does not regenerate the output (then the docs are wrong)");
	C_ASSERT(surand_stats(&st0, sizeof(st0)) == 0);
	surand_test_clock_advance(SEC_NS / 2);
	surand_bytes(out2, sizeof(out2));
	C_ASSERT(surand_stats(&st1, sizeof(st1)) == 0);
	C_ASSERT_EQ_U64(st1.backend_counters[0], st0.backend_counters[0]); /* < 1 s: same key */
	surand_test_clock_advance(SEC_NS * 6 / 10);
	surand_bytes(out2, sizeof(out2));
	C_ASSERT(surand_stats(&st1, sizeof(st1)) == 0);
	C_ASSERT_EQ_U64(st1.backend_counters[0], st0.backend_counters[0] + 1);
	C_ASSERT(surand_test_snapshot(SURAND_TEST_SNAP_LAST, &s1) == 0);
	C_ASSERT(s1.generation == s0.generation + 1 && memcmp(s1.key, s0.key, 32) != 0);
	C_ASSERT(!chacha_contains(s1.key, s0.nonce, 0, s1.counter + 4, out, 16));
}

static void setup_onekey_secs(void)
{
	setenv("SURAND_ONEKEY_SECS", "5", 1);
	surand_test_config_reload();
}

static void body_onekey_secs(void)
{
	struct surand_stats st0, st1;
	uint8_t b[8];

	surand_bytes(b, sizeof(b));
	C_ASSERT(surand_stats(&st0, sizeof(st0)) == 0);
	surand_test_clock_advance(4 * SEC_NS);
	surand_bytes(b, sizeof(b));
	C_ASSERT(surand_stats(&st1, sizeof(st1)) == 0);
	C_ASSERT_EQ_U64(st1.backend_counters[0], st0.backend_counters[0]);
	surand_test_clock_advance(2 * SEC_NS);
	surand_bytes(b, sizeof(b));
	C_ASSERT(surand_stats(&st1, sizeof(st1)) == 0);
	C_ASSERT_EQ_U64(st1.backend_counters[0], st0.backend_counters[0] + 1);
}

/* ---- percpu --------------------------------------------------------------- */

/* Nonces of gen/base.c's derive and gen/common.c's one-use fill (their files
 * name them "b-derive" and "u-direct"). */
#define T_NONCE_BASE_DERIVE 0x6576697265642d62ull
#define T_NONCE_DIRECT 0x7463657269642d75ull

/* The slow path when the trylock is lost: the output is a one-use key by
 * fast key erasure of the base key, and the CPU's state is untouched. */
static void body_percpu_fallback(void)
{
	struct surand_test_snapshot s0, s1;
	struct surand_stats st0, st1;
	uint32_t base[8], onekey[8];
	uint8_t warm[16], out[48], blk[64], ref[64];
	size_t sizes[2] = { 16, 48 }, z;
	int i, attempt;

	surand_test_cpu_override(0);
	surand_bytes(warm, sizeof(warm));
	for (z = 0; z < 2; z++) {
		for (attempt = 0; attempt < 5; attempt++) {
			C_ASSERT(surand_test_snapshot(0, &s0) == 0);
			C_ASSERT(surand_stats(&st0, sizeof(st0)) == 0);
			C_ASSERT(surand_test_base_key(base) == 0);
			surand_test_percpu_fail_trylock(1);
			surand_bytes(out, sizes[z]);
			C_ASSERT(surand_stats(&st1, sizeof(st1)) == 0);
			if (st1.reseeds_timer == st0.reseeds_timer)
				break; /* no scheduled base reseed came between */
		}
		C_ASSERT(attempt < 5);
		C_ASSERT_EQ_U64(st1.backend_counters[1], st0.backend_counters[1] + 1);
		C_ASSERT_EQ_U64(st1.rekeys, st0.rekeys + 1);
		C_ASSERT_EQ_U64(st1.backend_counters[0], st0.backend_counters[0]);
		C_ASSERT(surand_test_snapshot(0, &s1) == 0);
		C_ASSERT_MSG(memcmp(s0.key, s1.key, 32) == 0, "the slow path touched the CPU's key");
		/* base block -> next base key | one-use key; then the one-use stream. */
		surand_chacha20_blocks_portable(base, 0, T_NONCE_BASE_DERIVE, blk, 1);
		for (i = 0; i < 8; i++)
			onekey[i] = (uint32_t)blk[32 + 4 * i] | (uint32_t)blk[33 + 4 * i] << 8 |
				    (uint32_t)blk[34 + 4 * i] << 16 | (uint32_t)blk[35 + 4 * i] << 24;
		surand_chacha20_blocks_portable(onekey, 0, T_NONCE_DIRECT, ref, 1);
		C_ASSERT_MSG(memcmp(ref, out, sizes[z]) == 0,
			     "%zu-byte fallback is not a one-use key from the base", sizes[z]);
		C_ASSERT(surand_test_base_key(base) == 0);
		C_ASSERT_MSG(memcmp(base, blk, 32) == 0, "the base key was not replaced");
	}
	/* And the fast path again afterwards: the CPU's state moves on. */
	surand_bytes(out, 16);
	C_ASSERT(surand_test_snapshot(0, &s1) == 0);
	C_ASSERT(memcmp(s0.key, s1.key, 32) != 0);
}

/* The fast path is the 5.18 construction: the CPU's key gives one block;
 * its first half is the CPU's next key, the rest the output (<= 32 bytes)
 * or a one-use key. */
static void body_percpu_fast(void)
{
	struct surand_test_snapshot s0, s1;
	uint8_t warm[16], out[100], blk[64], ref[128];
	uint32_t k[8];
	int i;

	surand_test_cpu_override(0);
	surand_bytes(warm, sizeof(warm));
	C_ASSERT(surand_test_snapshot(0, &s0) == 0);
	surand_bytes(out, 20);
	C_ASSERT(surand_test_snapshot(0, &s1) == 0);
	surand_chacha20_blocks_portable(s0.key, 0, 0, blk, 1);
	C_ASSERT(memcmp(blk + 32, out, 20) == 0 && memcmp(blk, s1.key, 32) == 0);
	s0 = s1;
	surand_bytes(out, 100);
	C_ASSERT(surand_test_snapshot(0, &s1) == 0);
	surand_chacha20_blocks_portable(s0.key, 0, 0, blk, 1);
	for (i = 0; i < 8; i++)
		k[i] = (uint32_t)blk[32 + 4 * i] | (uint32_t)blk[33 + 4 * i] << 8 |
		       (uint32_t)blk[34 + 4 * i] << 16 | (uint32_t)blk[35 + 4 * i] << 24;
	surand_chacha20_blocks_portable(k, 0, T_NONCE_DIRECT, ref, 2);
	C_ASSERT(memcmp(ref, out, 100) == 0 && memcmp(blk, s1.key, 32) == 0);
}

/* Memory follows the CPUs, not the threads; forced slow paths mixed with
 * fast ones under 8 threads on one CPU stay distinct. */
static void body_percpu_bounded(void)
{
	struct surand_stats st;

	surand_test_cpu_override(0);
	surand_test_percpu_fail_trylock(300);
	body_threads();
	C_ASSERT(surand_stats(&st, sizeof(st)) == 0);
	C_ASSERT_EQ_U64(st.backend_counters[3], surand_cpu_slots());
	C_ASSERT_EQ_U64(st.slots_total, surand_cpu_slots());
	C_ASSERT(st.backend_counters[1] >= 300);
	/* Every call was served by exactly one of the two paths. */
	C_ASSERT_EQ_U64(st.backend_counters[0] + st.backend_counters[1], TH_N * (TH_CALLS + TH_CALLS / 16));
}

/* ==== 6. main =============================================================== */

struct bcase {
	const char *name;
	void (*body)(void);
	void (*setup)(void);
	unsigned need_props; /* run only where all these flags are declared */
	const char *only;    /* run only for these backends (comma list), NULL: all */
};

static const struct bcase contract[] = {
	{ "lengths", body_lengths, NULL, 0, NULL },
	{ "threads", body_threads, NULL, 0, NULL },
	{ "fork", body_fork, NULL, 0, NULL },
	{ "fork_wipeonfork", body_fork, setup_wipeonfork, 0, NULL },
	{ "fork_nowipe", body_fork, setup_nowipe, 0, NULL },
	{ "fork_busy", body_fork_busy, NULL, 0, NULL },
	{ "signal", body_signal, NULL, 0, NULL },
	{ "chi2", body_chi2, NULL, 0, NULL },
	{ "badinput", body_badinput, NULL, 0, NULL },
	{ "chosen_again", body_chosen_again, NULL, 0, NULL },
	{ "dropped", body_dropped, NULL, 0, NULL },
	{ "drop_during_pull", body_drop_during_pull, NULL, 0, "legacy,legacy-spin,multipool,salted,tso2015" },
	{ "backtrack_per_call", body_backtrack_per_call, NULL, SURAND_BP_BACKTRACK_PER_CALL, NULL },
	{ "backtrack_reseed", body_backtrack_reseed, NULL, SURAND_BP_BACKTRACK_RESEED, NULL },
	/* tso2015 in Spelvin's atomic mode here; its offset mode skips words
	 * by design, which tso2015_offset_skips asserts. */
	{ "pool_no_skip", body_pool_no_skip, setup_tso_atomic, SURAND_BP_SHARED_POOL, NULL },
	{ "legacy_reference", body_legacy_reference, NULL, 0, "legacy,legacy-spin" },
	{ "legacy_counters", body_legacy_lock_kind, NULL, 0, "legacy,legacy-spin" },
	{ "pool_no_rotate", body_pool_no_rotate, setup_no_rotate, 0, "legacy" },
	{ "multipool_node", body_multipool_node, setup_nodes4, 0, "multipool" },
	{ "multipool_real", body_multipool_real, NULL, 0, "multipool" },
	{ "nodes4_threads", body_threads, setup_nodes4, SURAND_BP_PER_CPU, NULL },
	{ "salted_same_state", body_salted_same_state, NULL, 0, "salted" },
	{ "salted_no_loss", body_salted_no_loss, NULL, 0, "salted" },
	{ "salted_reseed_during_hash", body_salted_reseed_during_hash, NULL, 0, "salted" },
	{ "tso2015_reference", body_tso_reference, NULL, 0, "tso2015" },
	{ "tso2015_atomic_reference", body_tso_reference, setup_tso_atomic, 0, "tso2015" },
	{ "tso2015_offset_skips", body_tso_turnstile, NULL, 0, "tso2015" },
	{ "tso2015_atomic_even", body_tso_turnstile, setup_tso_atomic, 0, "tso2015" },
	{ "tso2015_threads_counted", body_tso_counted, NULL, 0, "tso2015" },
	{ "task_careful", body_task_careful, NULL, 0, "taskcrng" },
	{ "task_defaults", body_task_defaults, NULL, 0, "taskcrng" },
	{ "task_budget_window", body_task_budget_window, NULL, 0, "taskcrng" },
	{ "task_every", body_task_every, setup_task_every, 0, "taskcrng" },
	{ "task_limits", body_task_limits, NULL, 0, "taskcrng" },
	{ "task_exit_wipes", body_task_exit_wipes, NULL, 0, "taskcrng" },
	{ "task_env", body_task_env, setup_task_env, 0, "taskcrng" },
	{ "task_rate_env", body_task_rate_env, setup_task_rate, 0, "taskcrng" },
	{ "task_budget_env", body_task_budget_env, setup_task_budget, 0, "taskcrng" },
	{ "task_env_range", body_task_range, setup_task_range, 0, "taskcrng" },
	{ "task_abuser", body_task_abuser, NULL, 0, "taskcrng" },
	{ "nodecrng_from_primary", body_nodecrng_from_primary, NULL, 0, "nodecrng" },
	{ "nodecrng_clock", body_nodecrng_clock, NULL, 0, "nodecrng" },
	{ "nodecrng_nodes", body_nodecrng_nodes, setup_nodes4, 0, "nodecrng" },
	{ "onekey_triples", body_onekey_triples, NULL, 0, "onekey" },
	{ "onekey_no_backtrack", body_onekey_no_backtrack, NULL, 0, "onekey" },
	{ "onekey_secs", body_onekey_secs, setup_onekey_secs, 0, "onekey" },
	{ "percpu_fallback", body_percpu_fallback, NULL, 0, "percpu" },
	{ "percpu_fast", body_percpu_fast, NULL, 0, "percpu" },
	{ "percpu_bounded", body_percpu_bounded, NULL, 0, "percpu" },
};

static const struct bcase *cur_case;

static void run_cur_case(void)
{
	run_child_env(cur_case->setup, cur_case->body, CHILD_TIMEOUT_S);
}

static int in_list(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p = list;

	while ((p = strstr(p, name)) != NULL) {
		if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
			return 1;
		p += n;
	}
	return 0;
}

/* Unknown SURAND_BACKEND: one line naming the valid ones, and the default. */
static int stderr_rd = -1; /* in the child: the read end of its stderr */

static void setup_bogus_env(void)
{
	int p[2];

	setenv("SURAND_BACKEND", "no-such-design", 1);
	if (pipe(p) == 0) {
		dup2(p[1], STDERR_FILENO);
		close(p[1]);
		fcntl(p[0], F_SETFL, O_NONBLOCK);
		stderr_rd = p[0];
	}
	/* The environment is read (and the warning written) at set-up. */
	surand_test_config_reload();
}

static void body_bogus_env(void)
{
	struct surand_stats st;
	char line[512] = "";
	uint8_t b[8];
	ssize_t n;

	surand_bytes(b, sizeof(b));
	C_ASSERT(surand_stats(&st, sizeof(st)) == 0);
	C_ASSERT_MSG(strcmp(st.backend, "thread") == 0, "bogus name selected %s", st.backend);
	C_ASSERT(stderr_rd >= 0);
	n = read(stderr_rd, line, sizeof(line) - 1);
	C_ASSERT(n > 0);
	line[n] = '\0';
	C_ASSERT_MSG(strstr(line, "no-such-design") && strstr(line, "legacy") &&
			     strchr(line, '\n') == line + n - 1,
		     "warning: %s", line);
}

static void test_bogus_env(void)
{
	/* The environment alone chooses: the child selects nothing itself. */
	cur_backend = NULL;
	run_child_env(setup_bogus_env, body_bogus_env, CHILD_TIMEOUT_S);
}

static void setup_env_spin(void)
{
	setenv("SURAND_BACKEND", "legacy-spin", 1);
	surand_test_config_reload();
}

static void body_env_spin(void)
{
	struct surand_stats st;
	uint8_t b[8];

	surand_bytes(b, sizeof(b));
	C_ASSERT(surand_stats(&st, sizeof(st)) == 0);
	C_ASSERT_MSG(strcmp(st.backend, "legacy-spin") == 0, "env selected %s", st.backend);
}

static void test_env_select(void)
{
	cur_backend = NULL;
	run_child_env(setup_env_spin, body_env_spin, CHILD_TIMEOUT_S);
}

int main(int argc, char **argv)
{
	static char names[512], cname[96];
	const char *only = getenv("T_BACKEND");
	char *save = NULL, *tok;
	size_t i;

	t_init(argc, argv);
	ref_init_twist();
	T_RUN(test_twist_table);
	T_RUN(test_pool2015_reference);
	T_RUN(test_offset_warning);
	T_RUN(test_bogus_env);
	T_RUN(test_env_select);
	snprintf(names, sizeof(names), "%s", surand_backend_names());
	for (tok = strtok_r(names, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		const struct surand_backend *be = surand_backend_find(tok);

		if (only && !in_list(only, tok))
			continue;
		cur_backend = tok;
		snprintf(cname, sizeof(cname), "flags_%s", tok);
		t_run_case(cname, test_flags);
		for (i = 0; i < sizeof(contract) / sizeof(contract[0]); i++) {
			cur_case = &contract[i];
			if ((be->props & cur_case->need_props) != cur_case->need_props)
				continue;
			if (cur_case->only && !in_list(cur_case->only, tok))
				continue;
			snprintf(cname, sizeof(cname), "%s_%s", cur_case->name, tok);
			t_run_case(cname, run_cur_case);
		}
	}
	return t_done();
}
