/*
 * test_chacha20.c - ChaCha20 known answers, every SIMD body against the
 * portable one, and the dispatcher (SURAND_CHACHA_IMPL).
 * SPDX-License-Identifier: MIT
 */
#include "harness.h"
#include "reliability.h" /* rel_slow_checker */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef HAVE_SODIUM
#include <sodium.h>
#endif

#define MAX_BLOCKS 32
#define GUARD 64 /* bytes checked after the output: no body writes past its end */

static const char *const simd_names[] = { "ssse3", "avx2", "avx512", "neon" };

static void key_from_bytes(uint32_t key[8], const uint8_t kb[32])
{
	int i;

	for (i = 0; i < 8; i++)
		key[i] = surand_load32_le(kb + 4 * i);
}

/* RFC 8439 sections 2.3.2 and 2.4.2 use the key 00 01 02 .. 1f. */
static void rfc_key(uint32_t key[8])
{
	uint8_t kb[32];
	int i;

	for (i = 0; i < 32; i++)
		kb[i] = (uint8_t)i;
	key_from_bytes(key, kb);
}

/*
 * RFC 8439 layout: word 12 = 32-bit block counter, words 13-15 = the 96-bit
 * nonce read as three little-endian words n0 n1 n2.  Ours (chacha20.h):
 * words 12-13 = 64-bit counter, 14-15 = 64-bit nonce.  So
 *   counter = rfc_counter | (uint64_t)n0 << 32,   nonce = n1 | (uint64_t)n2 << 32,
 * exact while rfc_counter + blocks stays below 2^32.
 */
static void rfc_map(uint32_t rfc_counter, const uint8_t rfc_nonce[12], uint64_t *counter,
		    uint64_t *nonce)
{
	*counter = rfc_counter | (uint64_t)surand_load32_le(rfc_nonce) << 32;
	*nonce = surand_load32_le(rfc_nonce + 4) | (uint64_t)surand_load32_le(rfc_nonce + 8) << 32;
}

/* Every body this CPU runs: the dispatcher, portable and each supported SIMD body. */
struct body {
	const char *name;
	surand_chacha20_fn fn;
};

static size_t supported_bodies(struct body *b)
{
	size_t n = 0, i;

	b[n].name = "portable";
	b[n++].fn = surand_chacha20_blocks_portable;
	for (i = 0; i < sizeof(simd_names) / sizeof(simd_names[0]); i++) {
		surand_chacha20_fn fn = surand_chacha20_impl_by_name(simd_names[i]);
		if (fn) {
			b[n].name = simd_names[i];
			b[n++].fn = fn;
		}
	}
	b[n].name = "dispatcher";
	b[n++].fn = surand_chacha20_blocks;
	return n;
}

/* RFC 8439 section 2.3.2: key 00..1f, nonce 000000090000004a00000000, counter 1. */
static void rfc8439_block(void)
{
	uint8_t out[64], want[64];
	uint8_t nonce_b[12];
	uint32_t key[8];
	uint64_t ctr, nonce;
	struct body b[8];
	size_t nb, i;

	rfc_key(key);
	T_ASSERT(t_hex("10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e"
		       "d2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e",
		       want, 64) == 64);
	T_ASSERT(t_hex("000000090000004a00000000", nonce_b, 12) == 12);
	rfc_map(1, nonce_b, &ctr, &nonce);
	/* RFC counter word 1, nonce words 0x09000000, 0x4a000000, 0 (little-endian). */
	T_ASSERT_EQ_U64(ctr, 1 | (uint64_t)0x09000000 << 32);
	T_ASSERT_EQ_U64(nonce, 0x4a000000);
	nb = supported_bodies(b);
	for (i = 0; i < nb; i++) {
		memset(out, 0, sizeof(out));
		b[i].fn(key, ctr, nonce, out, 1);
		T_ASSERT_MSG(t_memdiff(out, want, 64) == (size_t)-1, "body %s", b[i].name);
	}
}

/* RFC 8439 section 2.4.2: the "sunscreen" plaintext, nonce 000000000000004a00000000,
 * initial counter 1; ciphertext = plaintext XOR keystream (114 bytes, 2 blocks). */
/* ---- the portable body wipes its working state --------------------------- */

/* Dead stack: the body's frame lies below this caller's; 8 KiB is every
 * frame the body and the wipe use. */
#define STATE_SCAN_BYTES 8192

static __attribute__((noinline)) void one_portable_block(const uint32_t key[8], uint64_t counter,
							  uint8_t out[64])
{
	surand_chacha20_blocks_portable(key, counter, 0x0706050403020100ull, out, 1);
}

/* Bytes 16..31 of the body's last working state (x[4..7]: the key words
 * after the rounds, before the feed-forward) anywhere in the dead stack. */
static __attribute__((noinline)) int state_in_dead_stack(const uint8_t needle[16])
{
	volatile uint8_t here = 0;
	const volatile uint8_t *top = &here - 64, *p;
	int found = 0;

	for (p = top - STATE_SCAN_BYTES; p + 16 <= top; p++) {
		int i = 0;

		while (i < 16 && p[i] == needle[i])
			i++;
		found |= i == 16;
	}
	return found;
}

/* The block's state after the rounds is out - in (the feed-forward undone):
 * after the call it is in no dead stack frame, nor is the key.  The scan
 * runs where the dead stack is plain memory (not under the sanitizers or
 * valgrind); the output is checked everywhere. */
static void portable_wipes_its_state(void)
{
	uint8_t kb[32], out[64], again[64], x[16], k16[16];
	uint32_t key[8], w;
	uint64_t seed = 0x5eed;
	int i, round;

	for (round = 0; round < 4; round++) {
		t_randbytes(&seed, kb, sizeof(kb));
		key_from_bytes(key, kb);
		one_portable_block(key, 7, out);
		if (!rel_slow_checker()) {
			for (i = 0; i < 4; i++) {
				w = surand_load32_le(out + 16 + 4 * i) - key[i];
				memcpy(x + 4 * i, &w, 4);
			}
			memcpy(k16, key, 16);
			T_ASSERT_MSG(!state_in_dead_stack(x), "the body's working state is left on the stack");
			one_portable_block(key, 7, out);
			T_ASSERT_MSG(!state_in_dead_stack(k16), "the key is left on the stack");
		}
		one_portable_block(key, 7, again);
		T_ASSERT_MEM_EQ(out, again, sizeof(out));
		T_ASSERT(t_random_looking(out, sizeof(out)));
	}
}

static void rfc8439_keystream(void)
{
	static const char pt[] = "Ladies and Gentlemen of the class of '99: If I could offer you "
				 "only one tip for the future, sunscreen would be it.";
	uint8_t ct[114], nonce_b[12], ks[2 * 64];
	uint32_t key[8];
	uint64_t ctr, nonce;
	struct body b[8];
	size_t nb, i, j;

	T_ASSERT(sizeof(pt) - 1 == 114);
	T_ASSERT(t_hex("6e2e359a2568f98041ba0728dd0d6981e97e7aec1d4360c20a27afccfd9fae0b"
		       "f91b65c5524733ab8f593dabcd62b3571639d624e65152ab8f530c359f0861d8"
		       "07ca0dbf500d6a6156a38e088a22b65e52bc514d16ccf806818ce91ab7793736"
		       "5af90bbf74a35be6b40b8eedf2785e42874d",
		       ct, sizeof(ct)) == 114);
	T_ASSERT(t_hex("000000000000004a00000000", nonce_b, 12) == 12);
	rfc_key(key);
	rfc_map(1, nonce_b, &ctr, &nonce);
	T_ASSERT_EQ_U64(ctr, 1);
	T_ASSERT_EQ_U64(nonce, 0x4a000000);
	nb = supported_bodies(b);
	for (i = 0; i < nb; i++) {
		b[i].fn(key, ctr, nonce, ks, 2);
		for (j = 0; j < 114; j++)
			T_ASSERT_MSG((uint8_t)(pt[j] ^ ks[j]) == ct[j], "body %s byte %zu", b[i].name, j);
	}
}

/*
 * A known keystream with the counter crossing 2^32 (word 12 wraps, word 13
 * goes 0 -> 1): key 00..1f, nonce bytes 00..07 (0x0706050403020100),
 * counter 2^32 - 2, 4 blocks.  The expected bytes were produced with
 * libsodium 1.0.18 crypto_stream_chacha20_xor_ic (DJB layout, 64-bit
 * counter) over zeros, and agree with OpenSSL 3.0 EVP_chacha20 (IV
 * fe ff ff ff 00 00 00 00 00 01 .. 07); they are checked against libsodium
 * again at run time when it is present.
 */
static const char carry32_hex[] =
	"cb5600e4982ea05d865f563d3f7479d9e648e9d4b1f203f4bf51d4b720ef92a3"
	"8ca58a596b13e732d5d254b42fb4163b5d98de8afa53e1057b7ac97b48e41e25"
	"a2b8d04b13877b4a7013cb9031e4b70836e9705a9691bd18f8fca48502eacdca"
	"e0b8faaeef6c5dfee436afd8268aa6385dabb2855761127a3946b50d649f9a4b"
	"2fcab2c09a960545c6f57e9269ebc22b4ed12782e66dc4cb612536f5cdbed4bc"
	"ba16af8a92140bf4ded4808af8eee82bd0f18fbb64f073c2a547bc2372528f36"
	"cbc048a2c82215c7942b999ba103f3831e882df26b12ff4897c0fa37670783be"
	"942f12b87c52c3fc5d03dc7a6b1860ad78024e1c7ee1b570ae413d1bb99537b8";

static void counter_carry_known(void)
{
	uint8_t want[256], got[256], nb_[8];
	const uint64_t ctr = ((uint64_t)1 << 32) - 2;
	uint32_t key[8];
	uint64_t nonce;
	struct body b[8];
	size_t nb, i, split;
	int j;

	T_ASSERT(t_hex(carry32_hex, want, sizeof(want)) == 256);
	rfc_key(key);
	for (j = 0; j < 8; j++)
		nb_[j] = (uint8_t)j;
	nonce = surand_load32_le(nb_) | (uint64_t)surand_load32_le(nb_ + 4) << 32;
	nb = supported_bodies(b);
	for (i = 0; i < nb; i++) {
		memset(got, 0, sizeof(got));
		b[i].fn(key, ctr, nonce, got, 4);
		T_ASSERT_MSG(t_memdiff(got, want, 256) == (size_t)-1, "body %s: byte %zu", b[i].name,
			     t_memdiff(got, want, 256));
		/* The same stream in pieces: the counter is the block index. */
		for (split = 0; split <= 4; split++) {
			memset(got, 0, sizeof(got));
			b[i].fn(key, ctr, nonce, got, split);
			b[i].fn(key, ctr + split, nonce, got + 64 * split, 4 - split);
			T_ASSERT_MSG(t_memdiff(got, want, 256) == (size_t)-1, "body %s split %zu",
				     b[i].name, split);
		}
	}
#ifdef HAVE_SODIUM
	{
		static const uint8_t zeros[256];
		uint8_t kb[32];

		T_ASSERT(sodium_init() >= 0);
		for (j = 0; j < 32; j++)
			kb[j] = (uint8_t)j;
		T_ASSERT(crypto_stream_chacha20_xor_ic(got, zeros, sizeof(zeros), nb_, ctr, kb) == 0);
		T_ASSERT_MEM_EQ(got, want, 256);
	}
#endif
}

/*
 * Every SIMD body equal to the portable one byte for byte: all lengths of
 * 0..32 blocks (1..2048 bytes in block units, across every width boundary:
 * 4, 8, 16 and the tails), at counters 0, random, just below 2^32 and just
 * below 2^64 (carry into word 13, wrap to 0), at an unaligned output, with
 * nothing written past the end.
 */
/* Whether this CPU and OS run the named body, read here independently of
 * the library's own cpuid/xgetbv reading (GCC's __builtin_cpu_supports
 * checks the OS's saved vector state too). */
static int cpu_runs_body(const char *name)
{
#if defined(__x86_64__)
	__builtin_cpu_init();
	if (strcmp(name, "ssse3") == 0)
		return __builtin_cpu_supports("ssse3");
	if (strcmp(name, "avx2") == 0)
		return __builtin_cpu_supports("avx2");
	if (strcmp(name, "avx512") == 0)
		return __builtin_cpu_supports("avx512f");
#elif defined(__aarch64__)
	if (strcmp(name, "neon") == 0)
		return 1; /* Advanced SIMD is part of the AArch64 base ISA */
#endif
	return strcmp(name, "portable") == 0;
}

static void simd_equals_portable_for(const char *name)
{
	static uint8_t want[MAX_BLOCKS * 64 + GUARD], got[MAX_BLOCKS * 64 + GUARD + 1];
	surand_chacha20_fn fn = surand_chacha20_impl_by_name(name);
	uint64_t seed = 0x5eed0000u + (uint64_t)strlen(name), counters[2 + 2 * 20];
	uint32_t key[8];
	uint64_t nonce;
	size_t nc = 0, c, nblocks, k;

	if (!fn) {
		/* A body this CPU (or OS) cannot run: the library refuses it, and
		 * the dispatcher never picks it.  Its comparison with the portable
		 * body runs on the hosts that have it (and under CI's qemu for neon). */
		T_ASSERT_MSG(!cpu_runs_body(name), "the %s body is refused on a CPU that runs it", name);
		T_ASSERT_MSG(strcmp(surand_chacha20_impl_name(), name) != 0,
			     "the dispatcher chose the %s body this CPU cannot run", name);
		printf("# %s body not run: this CPU/OS does not support it\n", name);
		return;
	}
	counters[nc++] = 0;
	counters[nc++] = t_rand64(&seed);
	for (k = 1; k <= 20; k++) {
		counters[nc++] = ((uint64_t)1 << 32) - k;
		counters[nc++] = (uint64_t)0 - k;
	}
	t_randbytes(&seed, key, sizeof(key));
	nonce = t_rand64(&seed);
	for (c = 0; c < nc; c++) {
		for (nblocks = 0; nblocks <= MAX_BLOCKS; nblocks++) {
			uint8_t *o = got + 1; /* unaligned */

			memset(want, 0xa5, sizeof(want));
			memset(got, 0xa5, sizeof(got));
			surand_chacha20_blocks_portable(key, counters[c], nonce, want, nblocks);
			fn(key, counters[c], nonce, o, nblocks);
			T_ASSERT_MSG(t_memdiff(o, want, nblocks * 64 + GUARD) == (size_t)-1,
				     "%s differs from portable: counter %#llx, %zu blocks, byte %zu",
				     name, (unsigned long long)counters[c], nblocks,
				     t_memdiff(o, want, nblocks * 64 + GUARD));
			T_ASSERT_MSG(got[0] == 0xa5, "%s wrote before its output", name);
		}
	}
}

#if defined(__x86_64__)
static void ssse3_equals_portable(void)
{
	simd_equals_portable_for("ssse3");
}

static void avx2_equals_portable(void)
{
	simd_equals_portable_for("avx2");
}

static void avx512_equals_portable(void)
{
	simd_equals_portable_for("avx512");
}
#elif defined(__aarch64__)
static void neon_equals_portable(void)
{
	simd_equals_portable_for("neon");
}
#endif

/* ---- the dispatcher and SURAND_CHACHA_IMPL ---------------------------------- */

static const char *best_name(void)
{
	if (surand_chacha20_impl_by_name("avx512"))
		return "avx512";
	if (surand_chacha20_impl_by_name("avx2"))
		return "avx2";
	if (surand_chacha20_impl_by_name("ssse3"))
		return "ssse3";
	if (surand_chacha20_impl_by_name("neon"))
		return "neon";
	return "portable";
}

static unsigned width_of(const char *name)
{
	if (strcmp(name, "avx512") == 0)
		return 16;
	if (strcmp(name, "avx2") == 0)
		return 8;
	if (strcmp(name, "ssse3") == 0 || strcmp(name, "neon") == 0)
		return 4;
	return 1;
}

/*
 * The child (this binary run with --impl-child): prints which body the
 * dispatcher chose and whether 40 blocks through it equal the portable body.
 */
static int impl_child(void)
{
	static uint8_t a[40 * 64], b[40 * 64];
	uint32_t key[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	const uint64_t ctr = ((uint64_t)1 << 32) - 7;

	surand_chacha20_blocks(key, ctr, 99, a, 40);
	surand_chacha20_blocks_portable(key, ctr, 99, b, 40);
	printf("impl=%s width=%u %s\n", surand_chacha20_impl_name(), surand_chacha20_width(),
	       memcmp(a, b, sizeof(a)) == 0 ? "ok" : "mismatch");
	return 0;
}

static size_t read_all(int fd, char *buf, size_t cap)
{
	size_t n = 0;
	ssize_t r;

	while (n < cap - 1) {
		r = read(fd, buf + n, cap - 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	return n;
}

/* Runs the child with SURAND_CHACHA_IMPL=value (unset when NULL); returns
 * its exit status (or -1) and its stdout and stderr. */
static int run_child(const char *value, char *out, size_t out_cap, char *err, size_t err_cap)
{
	extern char **environ;
	char *envp[256], setting[512];
	char *argv[] = { "test_chacha20", "--impl-child", NULL };
	int po[2], pe[2], status;
	size_t n = 0, i;
	pid_t pid;

	for (i = 0; environ[i] && n < 254; i++)
		if (strncmp(environ[i], "SURAND_CHACHA_IMPL=", 19) != 0)
			envp[n++] = environ[i];
	if (value) {
		snprintf(setting, sizeof(setting), "SURAND_CHACHA_IMPL=%s", value);
		envp[n++] = setting;
	}
	envp[n] = NULL;
	if (pipe(po) < 0)
		return -1;
	if (pipe(pe) < 0) {
		close(po[0]);
		close(po[1]);
		return -1;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(po[1], STDOUT_FILENO);
		dup2(pe[1], STDERR_FILENO);
		close(po[0]);
		close(po[1]);
		close(pe[0]);
		close(pe[1]);
		t_execve("/proc/self/exe", argv, envp);
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	read_all(po[0], out, out_cap);
	read_all(pe[0], err, err_cap);
	close(po[0]);
	close(pe[0]);
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Checks one child run: exit 0, the expected body, equal output, and on
 * stderr exactly `want_err` (empty: nothing). */
static void check_child(const char *value, const char *want_impl, const char *want_err)
{
	char out[512], err[1024], want_out[128];
	int rc = run_child(value, out, sizeof(out), err, sizeof(err));

	T_ASSERT_MSG(rc == 0, "child (SURAND_CHACHA_IMPL=%s) exited %d; stderr: %s",
		     value ? value : "(unset)", rc, err);
	snprintf(want_out, sizeof(want_out), "impl=%s width=%u ok\n", want_impl, width_of(want_impl));
	T_ASSERT_MSG(strcmp(out, want_out) == 0, "SURAND_CHACHA_IMPL=%s: child said \"%s\", want \"%s\"",
		     value ? value : "(unset)", out, want_out);
	T_ASSERT_MSG(strcmp(err, want_err) == 0, "SURAND_CHACHA_IMPL=%s: stderr \"%s\", want \"%s\"",
		     value ? value : "(unset)", err, want_err);
}

/* Unset (and empty): the best body, silently; the dispatcher in this
 * process agrees unless the environment forces one. */
static void impl_default_is_best(void)
{
	const char *env = getenv("SURAND_CHACHA_IMPL");

	check_child(NULL, best_name(), "");
	if (t_case_failed())
		return;
	check_child("", best_name(), "");
	if (t_case_failed())
		return;
	if (!env || !*env) {
		T_ASSERT(strcmp(surand_chacha20_impl_name(), best_name()) == 0);
		T_ASSERT_EQ_U64(surand_chacha20_width(), width_of(best_name()));
	}
}

/* Each supported body can be forced, silently. */
static void impl_forced(void)
{
	static const char *const names[] = { "portable", "ssse3", "avx2", "avx512", "neon" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!surand_chacha20_impl_by_name(names[i]))
			continue;
		check_child(names[i], names[i], "");
		if (t_case_failed())
			return;
	}
}

/* Unknown or unsupported values: one line on stderr, then the best body,
 * and the output is still right. */
static void impl_unknown_warns_once(void)
{
	static const char *const names[] = { "ssse3", "avx2", "avx512", "neon" };
	char want[512], longval[201];
	size_t i;

	snprintf(want, sizeof(want),
		 "surand: SURAND_CHACHA_IMPL=bogus is not supported here; using %s\n", best_name());
	check_child("bogus", best_name(), want);
	if (t_case_failed())
		return;
	/* Case matters, as for every value surand reads. */
	snprintf(want, sizeof(want),
		 "surand: SURAND_CHACHA_IMPL=AVX2 is not supported here; using %s\n", best_name());
	check_child("AVX2", best_name(), want);
	if (t_case_failed())
		return;
	/* Control bytes cannot break the line or reach the terminal. */
	snprintf(want, sizeof(want),
		 "surand: SURAND_CHACHA_IMPL=x?[31m?y is not supported here; using %s\n", best_name());
	check_child("x\033[31m\ny", best_name(), want);
	if (t_case_failed())
		return;
	/* A long value is shortened to 64 bytes and "...". */
	memset(longval, 'z', 200);
	longval[200] = '\0';
	snprintf(want, sizeof(want), "surand: SURAND_CHACHA_IMPL=%.64s... is not supported here; using %s\n",
		 longval, best_name());
	check_child(longval, best_name(), want);
	if (t_case_failed())
		return;
	/* A body this CPU lacks (none on a machine that has them all). */
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (surand_chacha20_impl_by_name(names[i]))
			continue;
		snprintf(want, sizeof(want),
			 "surand: SURAND_CHACHA_IMPL=%s is not supported here; using %s\n", names[i],
			 best_name());
		check_child(names[i], best_name(), want);
		if (t_case_failed())
			return;
	}
}

/* impl_by_name: NULL for unknown names and NULL; the features agree with it. */
static void impl_by_name_contract(void)
{
	const struct surand_cpu_features *f = surand_cpu_features();

	T_ASSERT(surand_chacha20_impl_by_name(NULL) == NULL);
	T_ASSERT(surand_chacha20_impl_by_name("") == NULL);
	T_ASSERT(surand_chacha20_impl_by_name("avx") == NULL);
	T_ASSERT(surand_chacha20_impl_by_name("portable") == surand_chacha20_blocks_portable);
	T_ASSERT(f == surand_cpu_features()); /* read once */
#if defined(__x86_64__)
	T_ASSERT((surand_chacha20_impl_by_name("ssse3") != NULL) == !!f->ssse3);
	T_ASSERT((surand_chacha20_impl_by_name("avx2") != NULL) == (f->ssse3 && f->avx2));
	T_ASSERT((surand_chacha20_impl_by_name("avx512") != NULL) ==
		 (f->ssse3 && f->avx2 && f->avx512f));
	if (surand_chacha20_impl_by_name("avx512"))
		T_ASSERT(surand_chacha20_impl_by_name("avx512") == surand_chacha20_blocks_avx512);
	if (surand_chacha20_impl_by_name("avx2"))
		T_ASSERT(surand_chacha20_impl_by_name("avx2") == surand_chacha20_blocks_avx2);
	if (surand_chacha20_impl_by_name("ssse3"))
		T_ASSERT(surand_chacha20_impl_by_name("ssse3") == surand_chacha20_blocks_ssse3);
	T_ASSERT(surand_chacha20_impl_by_name("neon") == NULL);
#elif defined(__aarch64__)
	T_ASSERT(surand_chacha20_impl_by_name("avx2") == NULL);
	T_ASSERT((surand_chacha20_impl_by_name("neon") != NULL) == !!f->neon);
	if (surand_chacha20_impl_by_name("neon"))
		T_ASSERT(surand_chacha20_impl_by_name("neon") == surand_chacha20_blocks_neon);
#else
	T_ASSERT(surand_chacha20_impl_by_name("avx2") == NULL);
	T_ASSERT(surand_chacha20_impl_by_name("neon") == NULL);
#endif
}

/* Debug (and test) builds check the contract of chacha20.h: output over the
 * key aborts with one "surand: FATAL" line, never silently. */
static void precondition_checked(void)
{
	uint32_t key[16] = { 1, 2, 3 }; /* 64 bytes: room for one block */
	char err[512];
	int pe[2], status;
	pid_t pid;

	T_ASSERT(pipe(pe) == 0);
	fflush(stdout);
	pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0) {
		struct rlimit no_core = { 0, 0 };

		setrlimit(RLIMIT_CORE, &no_core);
		dup2(pe[1], STDERR_FILENO);
		close(pe[0]);
		uint8_t fine[64];

		/* A valid call passes the checks... */
		surand_chacha20_blocks(key, 0, 0, fine, 1);
		/* ...this one would write over the key itself. */
		surand_chacha20_blocks(key, 0, 0, (uint8_t *)key, 1);
		_exit(0);
	}
	close(pe[1]);
	read_all(pe[0], err, sizeof(err));
	close(pe[0]);
	t_strip_runner_lines(err);
	T_ASSERT(waitpid(pid, &status, 0) == pid);
	T_ASSERT_MSG(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT,
		     "child status %#x, stderr \"%s\"", status, err);
	T_ASSERT_MSG(strcmp(err, "surand: FATAL: surand_chacha20_blocks: output overlaps the key\n") == 0,
		     "stderr \"%s\"", err);
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "--impl-child") == 0)
		return impl_child();
	t_init(argc, argv);
	T_RUN(rfc8439_block);
	T_RUN(rfc8439_keystream);
	T_RUN(counter_carry_known);
	T_RUN(portable_wipes_its_state);
	/* Each architecture's own bodies (a body of another ISA is never built). */
#if defined(__x86_64__)
	T_RUN(ssse3_equals_portable);
	T_RUN(avx2_equals_portable);
	T_RUN(avx512_equals_portable);
#elif defined(__aarch64__)
	T_RUN(neon_equals_portable);
#endif
	T_RUN(impl_by_name_contract);
	T_RUN(impl_default_is_best);
	T_RUN(impl_forced);
	T_RUN(impl_unknown_warns_once);
	T_RUN(precondition_checked);
	return t_done();
}
