/*
 * format.h - output encodings of the surand command (pure functions, so
 * tests/test_cli_parse.c checks them directly).  SPDX-License-Identifier: MIT
 */
#ifndef SURAND_TOOLS_FORMAT_H
#define SURAND_TOOLS_FORMAT_H

#include <stddef.h>
#include <stdint.h>

/* Lower-case hex, 2 * n characters, no newline.  Returns 2 * n. */
size_t surand_hex_encode(char *out, const uint8_t *in, size_t n);

/* Base64 (RFC 4648 section 4) in lines of 76 characters (57 input bytes), each ending in '\n'. */
#define SURAND_B64_LINE_BYTES 57
/*
 * Encodes n bytes.  Unless final, n must be a multiple of 57 (whole lines).
 * With final, a last partial line (padded with '=') gets its '\n' too.
 * Returns the characters written; at most surand_base64_len(n).
 */
size_t surand_base64_lines(char *out, const uint8_t *in, size_t n, int final);
size_t surand_base64_len(size_t n);

/*
 * One RFC 9562 version-4 UUID from 16 random bytes: the version nibble
 * (octet 6, high 4 bits) set to 0100 and the variant (octet 8, high 2 bits)
 * to 10; 36 characters "xxxxxxxx-xxxx-4xxx-Vxxx-xxxxxxxxxxxx" (V in 8,9,a,b)
 * and '\n'.  Returns 37.
 */
#define SURAND_UUID_LINE 37
size_t surand_uuid_line(char *out, const uint8_t in[16]);

#endif
