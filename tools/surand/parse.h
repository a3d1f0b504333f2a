/*
 * parse.h - the surand command's argument parsers: pure functions (no I/O,
 * no allocation, no globals) so that a fuzzer and tests/test_cli_parse.c can
 * call them directly.  SPDX-License-Identifier: MIT
 */
#ifndef SURAND_TOOLS_PARSE_H
#define SURAND_TOOLS_PARSE_H

#include <stdint.h>

/* What surand_parse_size() returns for "inf": no end. */
#define SURAND_SIZE_INF UINT64_MAX

/*
 * A SIZE: decimal digits, then an optional suffix:
 *   K k KiB  = 1024        kB KB = 1000
 *   M MiB    = 1024^2      MB    = 1000^2
 *   G GiB    = 1024^3      GB    = 1000^3
 *   T TiB    = 1024^4      TB    = 1000^4
 * or the word "inf" (*out = SURAND_SIZE_INF).  0 is valid.  Rejected (-1,
 * *out untouched): NULL, "", a sign, spaces, fractions, any other suffix, a
 * value of 2^64 - 1 or more (overflow).  Returns 0 or -1.
 */
int surand_parse_size(const char *s, uint64_t *out);

/* Every form surand_parse_size() accepts, in words, for error messages. */
#define SURAND_SIZE_HELP                                                               \
	"a whole number with an optional suffix: K, k or KiB, M or MiB, G or GiB, T or TiB " \
	"(powers of 1024), kB or KB, MB, GB, TB (powers of 1000); or inf"

/* A plain decimal integer in [min, max] (no suffix, no sign): 0 or -1. */
int surand_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out);

enum surand_format {
	SURAND_FMT_RAW,
	SURAND_FMT_HEX,
	SURAND_FMT_BASE64,
	SURAND_FMT_UUID,
};

/* "raw", "hex", "base64", "uuid": the format, or -1. */
int surand_parse_format(const char *s);
const char *surand_format_name(enum surand_format f);

#endif
