/* parse.c - see parse.h.  SPDX-License-Identifier: MIT */
#include "parse.h"

#include <stddef.h>
#include <string.h>

struct size_suffix {
	const char *name;
	uint64_t mult;
};

#define KI UINT64_C(1024)
#define KD UINT64_C(1000)

static const struct size_suffix size_suffixes[] = {
	{"", 1},
	{"K", KI}, {"k", KI}, {"KiB", KI}, {"kB", KD}, {"KB", KD},
	{"M", KI * KI}, {"MiB", KI * KI}, {"MB", KD * KD},
	{"G", KI * KI * KI}, {"GiB", KI * KI * KI}, {"GB", KD * KD * KD},
	{"T", KI * KI * KI * KI}, {"TiB", KI * KI * KI * KI}, {"TB", KD * KD * KD * KD},
};

/* Leading decimal digits of s into *v; the first non-digit in *end.  -1: none or overflow. */
static int parse_digits(const char *s, uint64_t *v, const char **end)
{
	uint64_t x = 0;
	const char *p = s;

	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		unsigned d = (unsigned)(*p - '0');

		if (x > (UINT64_MAX - d) / 10)
			return -1;
		x = x * 10 + d;
	}
	*v = x;
	*end = p;
	return 0;
}

int surand_parse_size(const char *s, uint64_t *out)
{
	const char *end;
	uint64_t v;
	size_t i;

	if (!s || !out)
		return -1;
	if (strcmp(s, "inf") == 0) {
		*out = SURAND_SIZE_INF;
		return 0;
	}
	if (parse_digits(s, &v, &end) < 0)
		return -1;
	for (i = 0; i < sizeof(size_suffixes) / sizeof(size_suffixes[0]); i++) {
		uint64_t m = size_suffixes[i].mult;

		if (strcmp(end, size_suffixes[i].name) != 0)
			continue;
		/* SURAND_SIZE_INF is reserved for "inf": a number must stay below it */
		if (v != 0 && v > (SURAND_SIZE_INF - 1) / m)
			return -1;
		*out = v * m;
		return 0;
	}
	return -1;
}

int surand_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	const char *end;
	uint64_t v;

	if (!s || !out)
		return -1;
	if (parse_digits(s, &v, &end) < 0 || *end != '\0' || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static const char *const format_names[] = {
	[SURAND_FMT_RAW] = "raw",
	[SURAND_FMT_HEX] = "hex",
	[SURAND_FMT_BASE64] = "base64",
	[SURAND_FMT_UUID] = "uuid",
};

int surand_parse_format(const char *s)
{
	size_t i;

	if (!s)
		return -1;
	for (i = 0; i < sizeof(format_names) / sizeof(format_names[0]); i++)
		if (strcmp(s, format_names[i]) == 0)
			return (int)i;
	return -1;
}

const char *surand_format_name(enum surand_format f)
{
	if ((unsigned)f < sizeof(format_names) / sizeof(format_names[0]))
		return format_names[f];
	return "?";
}
