/*
 * fuzz_cli_parse.c - the surand command's argument parsers (tools/surand/parse.c):
 * surand_parse_size, surand_parse_uint and surand_parse_format on arbitrary
 * strings.  Contract (tools/surand/parse.h): 0 with a value, or -1 with *out
 * untouched; a digits-only SIZE is its decimal value; "inf" is
 * SURAND_SIZE_INF; a format name round-trips through surand_format_name.
 * SPDX-License-Identifier: MIT
 */
#include <errno.h>

#include "fuzz.h"
#include "parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	uint64_t v = 0x5a5a5a5a5a5a5a5aull, lo, hi;
	int fmt, digits = size > 0 && size < 20;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = 0;
	for (size_t i = 0; i < size; i++)
		digits &= s[i] >= '0' && s[i] <= '9';
	if (surand_parse_size(s, &v) == 0) {
		if (strcmp(s, "inf") == 0)
			FZ_CHECK(v == SURAND_SIZE_INF);
		if (digits)
			FZ_CHECK(v == strtoull(s, NULL, 10));
	} else {
		FZ_CHECK(v == 0x5a5a5a5a5a5a5a5aull);
	}
	lo = size ? data[0] : 0;
	hi = lo + (size > 1 ? data[1] : 0) * 1000u;
	v = 0x5a5a5a5a5a5a5a5aull;
	if (surand_parse_uint(s, lo, hi, &v) == 0)
		FZ_CHECK(v >= lo && v <= hi);
	else
		FZ_CHECK(v == 0x5a5a5a5a5a5a5a5aull);
	fmt = surand_parse_format(s);
	if (fmt >= 0)
		FZ_CHECK(strcmp(surand_format_name((enum surand_format)fmt), s) == 0);
	else
		FZ_CHECK(fmt == -1);
	free(s);
	return 0;
}
