/*
 * test_stream.c - reproducible streams (surand_stream_*): known answers,
 * libsodium as the independent implementation, every ChaCha20 body, split
 * calls, seeking, the 2^64-byte period and the body counter wrap, wipe.
 *
 * The layout under test (surand.h): key = seed as 8 LE words, nonce =
 * stream_id, block counter = offset / 64.  libsodium's crypto_stream_chacha20
 * is the original (64-bit nonce, 64-bit counter) ChaCha20, so its keystream
 * with nonce = stream_id (8 bytes LE) and ic = offset / 64 is ours.
 * SPDX-License-Identifier: MIT
 */
#include "harness.h"
#include "internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef HAVE_SODIUM
#include <sodium.h>
#endif

static const char *const body_names[] = {"portable", "ssse3", "avx2", "avx512", "neon"};
#define NBODIES (sizeof(body_names) / sizeof(body_names[0]))

static void seed_seq(uint8_t seed[32])
{
	int i;

	for (i = 0; i < 32; i++)
		seed[i] = (uint8_t)i;
}

/*
 * RFC 8439 section 2.4.2: key 00..1f, nonce 000000000000004a00000000, counter 1,
 * the "sunscreen" plaintext.  In our layout the RFC nonce words (0, 0x4a000000,
 * 0) and counter 1 are block counter 1 and nonce 0x4a000000 (chacha20.h), i.e.
 * stream_id 0x4a000000, offset 64.  ciphertext XOR plaintext = our keystream.
 */
static const char sunscreen[] = "Ladies and Gentlemen of the class of '99: If I could offer you "
				"only one tip for the future, sunscreen would be it.";
static const char sunscreen_ct[] =
	"6e 2e 35 9a 25 68 f9 80 41 ba 07 28 dd 0d 69 81 e9 7e 7a ec 1d 43 60 c2 0a 27 af cc fd 9f ae 0b"
	"f9 1b 65 c5 52 47 33 ab 8f 59 3d ab cd 62 b3 57 16 39 d6 24 e6 51 52 ab 8f 53 0c 35 9f 08 61 d8"
	"07 ca 0d bf 50 0d 6a 61 56 a3 8e 08 8a 22 b6 5e 52 bc 51 4d 16 cc f8 06 81 8c e9 1a b7 79 37 36"
	"5a f9 0b bf 74 a3 5b e6 b4 0b 8e ed f2 78 5e 42 87 4d";

static void kat_rfc8439_sunscreen(void)
{
	struct surand_stream s;
	uint8_t seed[32], ct[128], ks[128];
	size_t n = strlen(sunscreen), i;

	T_ASSERT_EQ_U64(n, 114);
	T_ASSERT(t_hex(sunscreen_ct, ct, sizeof(ct)) == 114);
	seed_seq(seed);
	surand_stream_init(&s, seed, 0x4a000000);
	surand_stream_seek(&s, 64);
	surand_stream_bytes(&s, ks, n);
	for (i = 0; i < n; i++)
		ks[i] ^= (uint8_t)sunscreen[i];
	T_ASSERT_MEM_EQ(ks, ct, n);
	T_ASSERT_EQ_U64(s.offset, 64 + 114);
	/* the same through odd splits: 7 + 50 + 57 bytes */
	surand_stream_seek(&s, 64);
	surand_stream_bytes(&s, ks, 7);
	surand_stream_bytes(&s, ks + 7, 50);
	surand_stream_bytes(&s, ks + 57, 57);
	for (i = 0; i < n; i++)
		ks[i] ^= (uint8_t)sunscreen[i];
	T_ASSERT_MEM_EQ(ks, ct, n);
	surand_stream_wipe(&s);
}

/* RFC 8439 appendix A.1 test vector #1: all-zero key and nonce, block 0 (stream offset 0). */
static void kat_rfc8439_a1_zero(void)
{
	struct surand_stream s;
	uint8_t seed[32] = {0}, out[64], want[64];

	T_ASSERT(t_hex("76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7"
		       "da41597c5157488d7724e03fb8d84a376a43b8f41518a11cc387b669b2ee6586",
		       want, 64) == 64);
	surand_stream_init(&s, seed, 0);
	surand_stream_bytes(&s, out, 64);
	T_ASSERT_MEM_EQ(out, want, 64);
	/* u64 is the next 8 bytes, little-endian */
	surand_stream_seek(&s, 0);
	T_ASSERT_EQ_U64(surand_stream_u64(&s), 0x903df1a0ade0b876ull);
	T_ASSERT_EQ_U64(surand_stream_u64(&s), 0x28bd8653e56a5d40ull);
	surand_stream_wipe(&s);
}

/*
 * RFC 8439 section 2.3.2 (key 00..1f, nonce 000000090000004a00000000, counter 1)
 * in our layout is block counter 1 | 0x09000000 << 32 = 9 * 2^56 + 1 with nonce
 * 0x4a000000: beyond the stream's last block (2^58 - 1), so it is pinned at the
 * body level for every body, here and in test_chacha20.
 */
static const char rfc_232_block[] =
	"10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e"
	"d2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e";

static void every_body_kat(void)
{
	uint8_t seed[32], want[64], out[64 * 3];
	uint32_t key[8];
	unsigned i, nsupported = 0;

	seed_seq(seed);
	for (i = 0; i < 8; i++)
		key[i] = surand_load32_le(seed + 4 * i);
	T_ASSERT(t_hex(rfc_232_block, want, 64) == 64);
	for (i = 0; i < NBODIES; i++) {
		surand_chacha20_fn fn = surand_chacha20_impl_by_name(body_names[i]);

		if (!fn)
			continue;
		nsupported++;
		memset(out, 0xa5, sizeof(out));
		fn(key, 1 | (uint64_t)0x09000000 << 32, 0x4a000000, out, 1);
		T_ASSERT_MSG(t_memdiff(out, want, 64) == (size_t)-1, "body %s: RFC 8439 2.3.2",
			     body_names[i]);
		/* exactly nblocks * 64 bytes written */
		T_ASSERT_MSG(out[64] == 0xa5 && out[127] == 0xa5, "body %s wrote past 1 block",
			     body_names[i]);
	}
	T_ASSERT(nsupported >= 1);
	T_ASSERT(surand_chacha20_impl_by_name("portable") != NULL);
	T_ASSERT(surand_chacha20_impl_by_name("no-such-body") == NULL);
	printf("# test_stream: %u ChaCha20 bodies supported here:", nsupported);
	for (i = 0; i < NBODIES; i++)
		if (surand_chacha20_impl_by_name(body_names[i]))
			printf(" %s", body_names[i]);
	printf(" (in use: %s)\n", surand_chacha20_impl_name());
}

#ifdef HAVE_SODIUM
/* libsodium's keystream for (seed, stream_id) from byte offset off, len bytes. */
static void sodium_stream(const uint8_t seed[32], uint64_t stream_id, uint64_t off, uint8_t *out,
			  size_t len)
{
	uint8_t nonce[8], *tmp;
	size_t pos = (size_t)(off % 64), n = pos + len;
	int i;

	for (i = 0; i < 8; i++)
		nonce[i] = (uint8_t)(stream_id >> (8 * i));
	tmp = calloc(1, n ? n : 1);
	if (!tmp)
		abort();
	crypto_stream_chacha20_xor_ic(tmp, tmp, n, nonce, off / 64, seed);
	memcpy(out, tmp + pos, len);
	free(tmp);
}

static int sodium_ready(void)
{
	return sodium_init() >= 0;
}
#define NEED_SODIUM()                                                         \
	do {                                                                  \
		if (!sodium_ready()) {                                        \
			t_fail_at(__FILE__, __LINE__, "sodium_init failed"); \
			return;                                               \
		}                                                             \
	} while (0)
#else
#define NEED_SODIUM()                                                    \
	do {                                                             \
		t_skip("built without libsodium (the independent implementation)", \
		       "libsodium-dev");                                 \
		return;                                                  \
	} while (0)
#endif

/* Random seeds, stream ids, offsets (small, past 2^32 blocks, near the end) and lengths. */
static void sodium_random_offsets(void)
{
	NEED_SODIUM();
#ifdef HAVE_SODIUM
	uint64_t rs = 0x5eed0001;
	uint8_t seed[32], *got = malloc(5000), *want = malloc(5000);
	int trial;

	T_ASSERT(got && want);
	for (trial = 0; trial < 400; trial++) {
		struct surand_stream s;
		uint64_t id = t_rand64(&rs), off;
		size_t len = (size_t)(t_rand64(&rs) % (trial < 40 ? 4800 : 300));

		switch (trial % 4) {
		case 0: off = t_rand64(&rs) % 100000; break;
		case 1: off = (UINT64_C(1) << 38) - 200 + t_rand64(&rs) % 400; break; /* 2^32 blocks */
		case 2: off = t_rand64(&rs) % (UINT64_MAX - 8192); break;
		default: off = UINT64_MAX - 6000 - t_rand64(&rs) % 1000; break; /* near the end */
		}
		t_randbytes(&rs, seed, 32);
		surand_stream_init(&s, seed, id);
		surand_stream_seek(&s, off);
		memset(got, 0, len);
		surand_stream_bytes(&s, got, len);
		sodium_stream(seed, id, off, want, len);
		if (t_memdiff(got, want, len) != (size_t)-1) {
			free(got);
			free(want);
			T_ASSERT_MSG(0, "trial %d: id %llx off %llu len %zu differs from libsodium",
				     trial, (unsigned long long)id, (unsigned long long)off, len);
		}
		T_ASSERT_EQ_U64(s.offset, off + len);
		surand_stream_wipe(&s);
	}
	/* the sunscreen vector agrees with libsodium too (the RFC and libsodium agree) */
	{
		struct surand_stream s;
		uint8_t sd[32];

		seed_seq(sd);
		surand_stream_init(&s, sd, 0x4a000000);
		surand_stream_seek(&s, 64);
		surand_stream_bytes(&s, got, 200);
		sodium_stream(sd, 0x4a000000, 64, want, 200);
		T_ASSERT_MEM_EQ(got, want, 200);
	}
	free(got);
	free(want);
#endif
}

/* Each supported body gives libsodium's blocks: many lengths, the 2^32 carry, the 2^64 wrap. */
static void every_body_vs_sodium(void)
{
	NEED_SODIUM();
#ifdef HAVE_SODIUM
	static const uint64_t ctrs[] = {0, 1, 0xfffffff0ull, 0x1234567890ull, UINT64_MAX - 40,
					UINT64_MAX - 3, UINT64_MAX};
	uint64_t rs = 0x5eed0002;
	uint8_t seed[32], *got = malloc(64 * 70), *want = malloc(64 * 70), nonce8[8];
	uint32_t key[8];
	unsigned b, c, i, tested = 0;
	size_t nb;

	T_ASSERT(got && want);
	for (b = 0; b < NBODIES; b++) {
		surand_chacha20_fn fn = surand_chacha20_impl_by_name(body_names[b]);

		if (!fn)
			continue;
		tested++;
		for (c = 0; c < sizeof(ctrs) / sizeof(ctrs[0]); c++) {
			for (nb = 0; nb <= 70; nb += (nb < 20 ? 1 : 7)) {
				uint64_t nonce = t_rand64(&rs);

				t_randbytes(&rs, seed, 32);
				for (i = 0; i < 8; i++)
					key[i] = surand_load32_le(seed + 4 * i);
				for (i = 0; i < 8; i++)
					nonce8[i] = (uint8_t)(nonce >> (8 * i));
				memset(got, 0x5a, 64 * 70);
				memset(want, 0, 64 * 70);
				fn(key, ctrs[c], nonce, got, nb);
				/* libsodium's counter wraps modulo 2^64 as ours does */
				crypto_stream_chacha20_xor_ic(want, want, 64 * nb, nonce8, ctrs[c], seed);
				if (t_memdiff(got, want, 64 * nb) != (size_t)-1 ||
				    (nb < 70 && got[64 * nb] != 0x5a)) {
					free(got);
					free(want);
					T_ASSERT_MSG(0, "body %s counter %llu nblocks %zu", body_names[b],
						     (unsigned long long)ctrs[c], nb);
				}
			}
		}
	}
	free(got);
	free(want);
	T_ASSERT(tested >= 1);
#endif
}

/* Whole call == any split into pieces (Monocypher-style), mixing u64 draws in. */
static void split_equals_whole(void)
{
	enum { N = 6000 };
	uint64_t rs = 0x5eed0003;
	uint8_t seed[32], *whole = malloc(N), *parts = malloc(N + 8);
	struct surand_stream s;
	int trial;

	T_ASSERT(whole && parts);
	t_randbytes(&rs, seed, 32);
	surand_stream_init(&s, seed, 77);
	surand_stream_bytes(&s, whole, N);
	T_ASSERT_EQ_U64(s.offset, N);
	for (trial = 0; trial < 300; trial++) {
		size_t done = 0;

		surand_stream_init(&s, seed, 77);
		while (done < N) {
			size_t step;
			uint64_t kind = t_rand64(&rs) % 8;

			if (kind == 0 && done + 8 <= N) {
				uint64_t v = surand_stream_u64(&s);
				int i;

				for (i = 0; i < 8; i++)
					parts[done + i] = (uint8_t)(v >> (8 * i));
				done += 8;
				continue;
			}
			/* short pieces, block-sized pieces and long ones */
			step = (size_t)(kind < 5 ? t_rand64(&rs) % 70 : t_rand64(&rs) % 1500);
			if (step > N - done)
				step = N - done;
			surand_stream_bytes(&s, parts + done, step);
			done += step;
		}
		if (t_memdiff(whole, parts, N) != (size_t)-1) {
			free(whole);
			free(parts);
			T_ASSERT_MSG(0, "trial %d: split output differs", trial);
		}
	}
	/* len 0 changes nothing */
	surand_stream_init(&s, seed, 77);
	surand_stream_bytes(&s, parts, 0);
	surand_stream_bytes(&s, NULL, 0);
	T_ASSERT_EQ_U64(s.offset, 0);
	surand_stream_bytes(&s, parts, 10);
	T_ASSERT_MEM_EQ(parts, whole, 10);
	/* other stream ids and seeds give other bytes */
	surand_stream_init(&s, seed, 78);
	surand_stream_bytes(&s, parts, 64);
	T_ASSERT(t_memdiff(parts, whole, 64) != (size_t)-1);
	seed[31] ^= 1;
	surand_stream_init(&s, seed, 77);
	surand_stream_bytes(&s, parts, 64);
	T_ASSERT(t_memdiff(parts, whole, 64) != (size_t)-1);
	surand_stream_wipe(&s);
	free(whole);
	free(parts);
}

/* seek(o) then read == read from 0 up to o and on; backwards, same block, after partial reads. */
static void seek_equals_read(void)
{
	enum { N = 4096 + 200 };
	uint64_t rs = 0x5eed0004;
	uint8_t seed[32], *whole = malloc(N), *got = malloc(N);
	struct surand_stream s;
	int trial;

	T_ASSERT(whole && got);
	t_randbytes(&rs, seed, 32);
	surand_stream_init(&s, seed, 5);
	surand_stream_bytes(&s, whole, N);
	for (trial = 0; trial < 500; trial++) {
		uint64_t pre = t_rand64(&rs) % N, o = t_rand64(&rs) % N;
		size_t len = (size_t)(t_rand64(&rs) % (N - o + 1));

		surand_stream_init(&s, seed, 5);
		surand_stream_bytes(&s, got, (size_t)pre); /* leaves a partial block buffered */
		if (trial % 3 == 0)
			surand_stream_seek(&s, (o & ~63ull) + (pre & 63)); /* a detour */
		surand_stream_seek(&s, o);
		T_ASSERT_EQ_U64(s.offset, o);
		surand_stream_bytes(&s, got, len);
		if (t_memdiff(got, whole + o, len) != (size_t)-1) {
			free(whole);
			free(got);
			T_ASSERT_MSG(0, "trial %d: pre %llu seek %llu len %zu", trial,
				     (unsigned long long)pre, (unsigned long long)o, len);
		}
	}
	/* seek inside the block just read from, and to the offset it already has */
	surand_stream_init(&s, seed, 5);
	surand_stream_bytes(&s, got, 10);
	surand_stream_seek(&s, 3);
	surand_stream_bytes(&s, got, 20);
	T_ASSERT_MEM_EQ(got, whole + 3, 20);
	surand_stream_seek(&s, 23);
	surand_stream_bytes(&s, got, 100);
	T_ASSERT_MEM_EQ(got, whole + 23, 100);
	/* back to the start of a buffered block, then whole blocks and a tail:
	 * the tail is the block after them, never the one buffered before */
	{
		static const unsigned pre_len[] = { 1, 10, 63, 64 + 5 };
		static const unsigned to[] = { 0, 64 };
		static const unsigned read_len[] = { 64, 65, 100, 128 + 17 };
		unsigned a, b, c;

		for (a = 0; a < sizeof(pre_len) / sizeof(pre_len[0]); a++)
			for (b = 0; b < sizeof(to) / sizeof(to[0]); b++)
				for (c = 0; c < sizeof(read_len) / sizeof(read_len[0]); c++) {
					surand_stream_init(&s, seed, 5);
					surand_stream_bytes(&s, got, pre_len[a]);
					surand_stream_seek(&s, to[b]);
					surand_stream_bytes(&s, got, read_len[c]);
					T_ASSERT_MSG(memcmp(got, whole + to[b], read_len[c]) == 0,
						     "read %u, seek %u, read %u", pre_len[a], to[b],
						     read_len[c]);
				}
	}
	surand_stream_wipe(&s);
	free(whole);
	free(got);
}

/*
 * The offset is a 64-bit byte count: a stream is 2^64 bytes (blocks 0 ..
 * 2^58 - 1) and byte 2^64 is byte 0 again.  Reads across the end, through the
 * partial-block and the bulk paths, continue at offset 0 (not at block 2^58).
 */
static void period_wrap(void)
{
	uint64_t rs = 0x5eed0005;
	uint8_t seed[32], start[512], got[1024];
	struct surand_stream s;
	int k;

	t_randbytes(&rs, seed, 32);
	surand_stream_init(&s, seed, 9);
	surand_stream_bytes(&s, start, sizeof(start));
	for (k = 0; k < 3; k++) {
		/* 100 bytes before the end (partial), a whole-block distance (bulk), 1 byte */
		uint64_t back = k == 0 ? 100 : k == 1 ? 256 : 1;
		size_t len = (size_t)back + 300;
		uint8_t tail[256];

		surand_stream_seek(&s, (uint64_t)0 - back);
		surand_stream_bytes(&s, got, len);
		T_ASSERT_EQ_U64(s.offset, 300);
		T_ASSERT_MEM_EQ(got + back, start, 300);
		/* the last bytes, read on their own, are the same */
		surand_stream_seek(&s, (uint64_t)0 - back);
		surand_stream_bytes(&s, tail, (size_t)back);
		T_ASSERT_MEM_EQ(tail, got, (size_t)back);
		T_ASSERT_EQ_U64(s.offset, 0);
#ifdef HAVE_SODIUM
		if (sodium_ready()) {
			uint8_t want[256];

			sodium_stream(seed, 9, (uint64_t)0 - back, want, (size_t)back);
			T_ASSERT_MEM_EQ(got, want, (size_t)back);
		}
#endif
	}
	/* u64 across the end: 4 bytes of the last block, 4 of block 0 */
	surand_stream_seek(&s, (uint64_t)0 - 4);
	surand_stream_bytes(&s, got, 4);
	surand_stream_seek(&s, (uint64_t)0 - 4);
	{
		uint64_t v = surand_stream_u64(&s);
		uint64_t want = (uint64_t)surand_load32_le(got) | (uint64_t)surand_load32_le(start) << 32;

		T_ASSERT_EQ_U64(v, want);
	}
	surand_stream_wipe(&s);
}

/* Through the dispatcher (whatever body it chose), the stream matches the portable body. */
static void stream_vs_portable(void)
{
	uint64_t rs = 0x5eed0006;
	uint8_t seed[32], *got = malloc(64 * 300), *want = malloc(64 * 300);
	uint32_t key[8];
	struct surand_stream s;
	int i;

	T_ASSERT(got && want);
	t_randbytes(&rs, seed, 32);
	for (i = 0; i < 8; i++)
		key[i] = surand_load32_le(seed + 4 * i);
	surand_stream_init(&s, seed, 0xfeedfacecafebeefull);
	surand_stream_seek(&s, 64 * 0xfffffff0ull);
	surand_stream_bytes(&s, got, 64 * 300);
	surand_chacha20_blocks_portable(key, 0xfffffff0ull, 0xfeedfacecafebeefull, want, 300);
	T_ASSERT_MEM_EQ(got, want, 64 * 300);
	surand_stream_wipe(&s);
	free(got);
	free(want);
}

/*
 * The stream API itself through every body: this binary re-runs itself with
 * SURAND_CHACHA_IMPL=<body> (the dispatcher reads it once, at start) and
 * "--dump", and its output must equal this process's, byte for byte.
 */
enum { DUMP_BYTES = 64 * 77 + 13 };

static void dump_fill(uint8_t *out)
{
	struct surand_stream s;
	uint8_t seed[32];
	size_t done = 0, step = 1;

	seed_seq(seed);
	surand_stream_init(&s, seed, 0x0123456789abcdefull);
	surand_stream_seek(&s, 64 * 0xfffffff8ull + 5); /* across the 2^32-block carry */
	while (done < DUMP_BYTES) {
		if (step > DUMP_BYTES - done)
			step = DUMP_BYTES - done;
		surand_stream_bytes(&s, out + done, step);
		done += step;
		step = step * 3 + 1; /* 1, 4, 13, 40, 121, 364, 1093 ... bytes: every path */
	}
	surand_stream_wipe(&s);
}

static int dump_main(void)
{
	static uint8_t out[DUMP_BYTES];

	dump_fill(out);
	printf("%s\n", surand_chacha20_impl_name());
	fwrite(out, 1, sizeof(out), stdout);
	return fflush(stdout) == 0 ? 0 : 1;
}

static char self_path[512];

static void stream_every_body_via_dispatcher(void)
{
	static uint8_t want[DUMP_BYTES], got[DUMP_BYTES + 64];
	unsigned b, tested = 0;

	dump_fill(want);
	for (b = 0; b < NBODIES; b++) {
		char name[32] = {0}, cmd[600];
		FILE *f;
		size_t n;
		int st;

		if (!surand_chacha20_impl_by_name(body_names[b]))
			continue;
		snprintf(cmd, sizeof(cmd), "SURAND_CHACHA_IMPL=%s %s'%s' --dump", body_names[b],
			 t_runner_prefix(), self_path);
		f = popen(cmd, "r");
		T_ASSERT(f != NULL);
		if (!fgets(name, sizeof(name), f))
			name[0] = 0;
		n = fread(got, 1, sizeof(got), f);
		st = pclose(f);
		T_ASSERT_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: child status %d", body_names[b], st);
		name[strcspn(name, "\n")] = 0;
		T_ASSERT_MSG(strcmp(name, body_names[b]) == 0, "forced %s, child used '%s'", body_names[b],
			     name);
		T_ASSERT_EQ_U64(n, DUMP_BYTES);
		T_ASSERT_MSG(t_memdiff(got, want, DUMP_BYTES) == (size_t)-1,
			     "stream through body %s differs", body_names[b]);
		tested++;
	}
	T_ASSERT(tested >= 1);
	printf("# test_stream: stream API identical through %u bodies\n", tested);
}

static int all_zero(const void *p, size_t n)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i])
			return 0;
	return 1;
}

static void wipe_zeroes(void)
{
	struct surand_stream s;
	uint8_t seed[32], out[10];

	memset(seed, 0x33, sizeof(seed));
	surand_stream_init(&s, seed, 1234);
	T_ASSERT(!all_zero(s.key, sizeof(s.key)));
	surand_stream_bytes(&s, out, sizeof(out)); /* a partial block is buffered now */
	T_ASSERT(s.buf_valid);
	T_ASSERT(!all_zero(s.buf, sizeof(s.buf)));
	surand_stream_wipe(&s);
	T_ASSERT(all_zero(s.key, sizeof(s.key)));
	T_ASSERT(all_zero(s.buf, sizeof(s.buf)));
	T_ASSERT(all_zero(&s, sizeof(s)));
	/* NULL is harmless */
	surand_stream_wipe(NULL);
	surand_stream_bytes(NULL, out, sizeof(out));
	surand_stream_seek(NULL, 5);
	T_ASSERT_EQ_U64(surand_stream_u64(NULL), 0);
	surand_stream_init(NULL, seed, 1234);
	/* a NULL buf with a length changes nothing: the stream goes on as before */
	{
		struct surand_stream a, b;
		uint8_t x[16], y[16];

		surand_stream_init(&a, seed, 1234);
		surand_stream_init(&b, seed, 1234);
		surand_stream_bytes(&a, out, 5);
		surand_stream_bytes(&b, out, 5);
		surand_stream_bytes(&a, NULL, 16);
		T_ASSERT(memcmp(&a, &b, sizeof(a)) == 0);
		surand_stream_bytes(&a, x, sizeof(x));
		surand_stream_bytes(&b, y, sizeof(y));
		T_ASSERT(memcmp(x, y, sizeof(x)) == 0);
		surand_stream_wipe(&a);
		surand_stream_wipe(&b);
	}
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "--dump") == 0)
		return dump_main();
	{
		ssize_t n = readlink("/proc/self/exe", self_path, sizeof(self_path) - 1);

		if (n <= 0 || strchr(self_path, '\''))
			snprintf(self_path, sizeof(self_path), "%s", argv[0]);
	}
	t_init(argc, argv);
	T_RUN(kat_rfc8439_sunscreen);
	T_RUN(kat_rfc8439_a1_zero);
	T_RUN(every_body_kat);
	T_RUN(sodium_random_offsets);
	T_RUN(every_body_vs_sodium);
	T_RUN(split_equals_whole);
	T_RUN(seek_equals_read);
	T_RUN(period_wrap);
	T_RUN(stream_vs_portable);
	T_RUN(stream_every_body_via_dispatcher);
	T_RUN(wipe_zeroes);
	return t_done();
}
