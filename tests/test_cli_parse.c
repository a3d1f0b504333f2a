/*
 * test_cli_parse.c - the surand command's pure parts (linked from tools/surand/ by
 * mk/cli.mk): the SIZE/number/format parsers, the encoders, and the wipe
 * --verify comparison (that it detects a corrupted byte, where, and nothing
 * else).  SPDX-License-Identifier: MIT
 */
#include "harness.h"
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "parse.h"
#include "verify.h"

static void size_valid(void)
{
	static const struct {
		const char *s;
		uint64_t v;
	} ok[] = {
		{"0", 0}, {"1", 1}, {"007", 7}, {"32", 32}, {"0K", 0},
		{"1K", 1024}, {"1k", 1024}, {"1KiB", 1024}, {"1kB", 1000}, {"1KB", 1000},
		{"3M", 3u << 20}, {"3MiB", 3u << 20}, {"3MB", 3000000},
		{"4G", 4ull << 30}, {"4GiB", 4ull << 30}, {"4GB", 4000000000ull},
		{"2T", 2ull << 40}, {"2TiB", 2ull << 40}, {"2TB", 2000000000000ull},
		{"inf", SURAND_SIZE_INF},
		{"18446744073709551614", UINT64_MAX - 1}, /* the largest number */
		{"16777215T", 16777215ull << 40},        /* largest T below 2^64 - 1 */
	};
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		uint64_t v = 12345;

		T_ASSERT_MSG(surand_parse_size(ok[i].s, &v) == 0, "'%s' rejected", ok[i].s);
		T_ASSERT_MSG(v == ok[i].v, "'%s' -> %llu, want %llu", ok[i].s, (unsigned long long)v,
			     (unsigned long long)ok[i].v);
	}
}

static void size_invalid(void)
{
	static const char *const bad[] = {
		"", "-1", "+1", " 1", "1 ", "1.5", "1.5G", "0x10", "K", "1KK", "1Ki", "1kiB",
		"1g", "1m", "1mb", "1B", "1 K", "1e3", "inf ", "Inf", "infinity", "-0", "1K1",
		"18446744073709551615",  /* 2^64 - 1 is reserved for inf */
		"18446744073709551616",  /* 2^64 */
		"99999999999999999999999",
		"16777216T", "17179869184G", "18446744073709552K", "18446744073709552kB",
	};
	size_t i;
	uint64_t v = 777;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		T_ASSERT_MSG(surand_parse_size(bad[i], &v) == -1, "'%s' accepted", bad[i]);
		T_ASSERT_MSG(v == 777, "'%s' changed the output on error", bad[i]);
	}
	T_ASSERT(surand_parse_size(NULL, &v) == -1);
	T_ASSERT(surand_parse_size("1", NULL) == -1);
}

/* Every suffix times every small number agrees with plain multiplication. */
static void size_exhaustive_small(void)
{
	static const struct {
		const char *suf;
		uint64_t m;
	} sufs[] = {{"", 1}, {"K", 1024}, {"M", 1 << 20}, {"G", 1 << 30}, {"kB", 1000},
		    {"MB", 1000000}, {"GB", 1000000000}};
	char buf[64];
	unsigned n;
	size_t i;

	for (n = 0; n < 3000; n++)
		for (i = 0; i < sizeof(sufs) / sizeof(sufs[0]); i++) {
			uint64_t v;

			snprintf(buf, sizeof(buf), "%u%s", n, sufs[i].suf);
			T_ASSERT_MSG(surand_parse_size(buf, &v) == 0 && v == n * sufs[i].m, "%s", buf);
		}
}

static void uint_and_format(void)
{
	uint64_t v = 0;

	T_ASSERT(surand_parse_uint("4", 1, 256, &v) == 0 && v == 4);
	T_ASSERT(surand_parse_uint("256", 1, 256, &v) == 0 && v == 256);
	T_ASSERT(surand_parse_uint("257", 1, 256, &v) == -1);
	T_ASSERT(surand_parse_uint("0", 1, 256, &v) == -1);
	T_ASSERT(surand_parse_uint("4K", 1, 1 << 20, &v) == -1);
	T_ASSERT(surand_parse_uint("", 1, 256, &v) == -1);
	T_ASSERT(surand_parse_uint("-3", 0, 256, &v) == -1);
	T_ASSERT(surand_parse_uint("99999999999999999999", 0, UINT64_MAX, &v) == -1);
	T_ASSERT(surand_parse_format("raw") == SURAND_FMT_RAW);
	T_ASSERT(surand_parse_format("hex") == SURAND_FMT_HEX);
	T_ASSERT(surand_parse_format("base64") == SURAND_FMT_BASE64);
	T_ASSERT(surand_parse_format("uuid") == SURAND_FMT_UUID);
	T_ASSERT(surand_parse_format("HEX") == -1);
	T_ASSERT(surand_parse_format("") == -1);
	T_ASSERT(surand_parse_format(NULL) == -1);
	T_ASSERT(strcmp(surand_format_name(SURAND_FMT_BASE64), "base64") == 0);
}

static void hex_encoding(void)
{
	uint8_t in[4] = {0x00, 0x9f, 0xa0, 0xff};
	char out[9] = {0};

	T_ASSERT_EQ_U64(surand_hex_encode(out, in, 4), 8);
	T_ASSERT(strcmp(out, "009fa0ff") == 0);
}

/* RFC 4648 section 10 vectors, then line wrapping at 76 characters. */
static void base64_encoding(void)
{
	static const char *const want[] = {"", "Zg==\n", "Zm8=\n", "Zm9v\n", "Zm9vYg==\n",
					   "Zm9vYmE=\n", "Zm9vYmFy\n"};
	char out[1024];
	uint8_t in[300];
	size_t n, i, len;

	for (n = 0; n <= 6; n++) {
		len = surand_base64_lines(out, (const uint8_t *)"foobar", n, 1);
		out[len] = 0;
		T_ASSERT_MSG(strcmp(out, want[n]) == 0, "base64 of %zu bytes: '%s'", n, out);
		T_ASSERT(len <= surand_base64_len(n));
	}
	for (i = 0; i < sizeof(in); i++)
		in[i] = (uint8_t)i;
	/* 3 whole lines + a partial: lines of exactly 76 characters */
	len = surand_base64_lines(out, in, 3 * 57 + 10, 1);
	T_ASSERT_EQ_U64(len, 3 * 77 + 16 + 1);
	T_ASSERT_EQ_U64(len, surand_base64_len(3 * 57 + 10));
	for (i = 0; i < 3; i++)
		T_ASSERT(out[77 * i + 76] == '\n');
	T_ASSERT(out[len - 1] == '\n');
	/* a non-final chunk of whole lines is the same as the start of the whole */
	{
		char part[1024];
		size_t a = surand_base64_lines(part, in, 2 * 57, 0);
		size_t b = surand_base64_lines(part + a, in + 2 * 57, 57 + 10, 1);

		T_ASSERT_EQ_U64(a + b, len);
		T_ASSERT_MEM_EQ(part, out, len);
	}
}

static void uuid_encoding(void)
{
	uint64_t rs = 99;
	uint8_t in[16];
	char out[SURAND_UUID_LINE + 1];
	int k, i;

	for (k = 0; k < 2000; k++) {
		t_randbytes(&rs, in, 16);
		if (k == 0)
			memset(in, 0xff, 16);
		if (k == 1)
			memset(in, 0, 16);
		T_ASSERT_EQ_U64(surand_uuid_line(out, in), 37);
		for (i = 0; i < 36; i++) {
			if (i == 8 || i == 13 || i == 18 || i == 23)
				T_ASSERT(out[i] == '-');
			else
				T_ASSERT(strchr("0123456789abcdef", out[i]) && out[i]);
		}
		T_ASSERT(out[36] == '\n');
		T_ASSERT_MSG(out[14] == '4', "version nibble %c", out[14]);
		T_ASSERT_MSG(strchr("89ab", out[19]) != NULL, "variant nibble %c", out[19]);
		/* every other nibble is the input's */
		T_ASSERT(out[0] == "0123456789abcdef"[in[0] >> 4]);
		T_ASSERT(out[15] == "0123456789abcdef"[in[6] & 15]);
		T_ASSERT(out[35] == "0123456789abcdef"[in[15] & 15]);
	}
}

/* The --verify comparison: equal data passes; any one corrupted byte is found, at its offset. */
static void verify_detects_corruption(void)
{
	enum { N = 3 * 4096 + 77 };
	uint8_t seed[32], *data = malloc(N), *scratch = malloc(N);
	struct surand_stream s;
	uint64_t rs = 4242, bad = 0;
	uint64_t base = 5 * 1048576ull + 13; /* a chunk from the middle of a target */
	int k;

	T_ASSERT(data && scratch);
	t_randbytes(&rs, seed, 32);
	surand_stream_init(&s, seed, 0x65706977);
	surand_stream_seek(&s, base);
	surand_stream_bytes(&s, data, N);
	T_ASSERT_EQ_U64(surand_verify_range(&s, base, data, N, scratch, &bad), 0);
	T_ASSERT_EQ_U64(s.offset, base + N);
	for (k = 0; k < 200; k++) {
		size_t at = (size_t)(t_rand64(&rs) % N);
		uint8_t flip = (uint8_t)(1u << (t_rand64(&rs) % 8));

		if (k == 0)
			at = 0;
		if (k == 1)
			at = N - 1;
		data[at] ^= flip;
		bad = 0;
		T_ASSERT_MSG(surand_verify_range(&s, base, data, N, scratch, &bad) == 1,
			     "corruption at %zu not detected", at);
		T_ASSERT_EQ_U64(bad, base + at);
		data[at] ^= flip;
	}
	/* the wrong key (another run's stream) fails too */
	seed[0] ^= 1;
	surand_stream_init(&s, seed, 0x65706977);
	T_ASSERT_EQ_U64(surand_verify_range(&s, base, data, N, scratch, &bad), 1);
	/* all zeros (a device that dropped the writes) fails */
	memset(data, 0, N);
	T_ASSERT_EQ_U64(surand_verify_range(&s, base, data, N, scratch, &bad), 1);
	/* length 0 is trivially equal */
	T_ASSERT_EQ_U64(surand_verify_range(&s, 0, data, 0, scratch, &bad), 0);
	surand_stream_wipe(&s);
	free(data);
	free(scratch);
}

int main(int argc, char **argv)
{
	t_init(argc, argv);
	T_RUN(size_valid);
	T_RUN(size_invalid);
	T_RUN(size_exhaustive_small);
	T_RUN(uint_and_format);
	T_RUN(hex_encoding);
	T_RUN(base64_encoding);
	T_RUN(uuid_encoding);
	T_RUN(verify_detects_corruption);
	return t_done();
}
