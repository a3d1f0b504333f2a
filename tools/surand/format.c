/* format.c - see format.h.  SPDX-License-Identifier: MIT */
#include "format.h"

static const char hexdig[] = "0123456789abcdef";
static const char b64dig[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t surand_hex_encode(char *out, const uint8_t *in, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = hexdig[in[i] >> 4];
		out[2 * i + 1] = hexdig[in[i] & 15];
	}
	return 2 * n;
}

size_t surand_base64_len(size_t n)
{
	return (n + 2) / 3 * 4 + (n + SURAND_B64_LINE_BYTES - 1) / SURAND_B64_LINE_BYTES;
}

/* Encodes up to 57 bytes as one line with its newline. */
static size_t b64_line(char *out, const uint8_t *in, size_t n)
{
	size_t i, o = 0;

	for (i = 0; i + 3 <= n; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];

		out[o++] = b64dig[v >> 18];
		out[o++] = b64dig[(v >> 12) & 63];
		out[o++] = b64dig[(v >> 6) & 63];
		out[o++] = b64dig[v & 63];
	}
	if (n - i == 1) {
		uint32_t v = (uint32_t)in[i] << 16;

		out[o++] = b64dig[v >> 18];
		out[o++] = b64dig[(v >> 12) & 63];
		out[o++] = '=';
		out[o++] = '=';
	} else if (n - i == 2) {
		uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8;

		out[o++] = b64dig[v >> 18];
		out[o++] = b64dig[(v >> 12) & 63];
		out[o++] = b64dig[(v >> 6) & 63];
		out[o++] = '=';
	}
	out[o++] = '\n';
	return o;
}

size_t surand_base64_lines(char *out, const uint8_t *in, size_t n, int final)
{
	size_t o = 0;

	while (n >= SURAND_B64_LINE_BYTES) {
		o += b64_line(out + o, in, SURAND_B64_LINE_BYTES);
		in += SURAND_B64_LINE_BYTES;
		n -= SURAND_B64_LINE_BYTES;
	}
	/* a partial line only ends the output; a non-final caller never has one */
	if (n > 0 && final)
		o += b64_line(out + o, in, n);
	return o;
}

size_t surand_uuid_line(char *out, const uint8_t in[16])
{
	uint8_t b[16];
	size_t i, o = 0;

	for (i = 0; i < 16; i++)
		b[i] = in[i];
	b[6] = (uint8_t)((b[6] & 0x0f) | 0x40); /* version 4 (RFC 9562 section 5.4) */
	b[8] = (uint8_t)((b[8] & 0x3f) | 0x80); /* variant 10 (RFC 9562 section 4.1) */
	for (i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			out[o++] = '-';
		out[o++] = hexdig[b[i] >> 4];
		out[o++] = hexdig[b[i] & 15];
	}
	out[o++] = '\n';
	return o;
}
