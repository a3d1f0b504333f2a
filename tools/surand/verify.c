/* verify.c - see verify.h.  SPDX-License-Identifier: MIT */
#include "verify.h"

#include <string.h>

int surand_verify_range(struct surand_stream *s, uint64_t offset, const void *data, size_t len,
			void *scratch, uint64_t *first_bad)
{
	const uint8_t *d = data, *e = scratch;
	size_t i;

	surand_stream_seek(s, offset);
	surand_stream_bytes(s, scratch, len);
	if (memcmp(d, e, len) == 0)
		return 0;
	for (i = 0; i < len && d[i] == e[i]; i++)
		;
	if (first_bad)
		*first_bad = offset + i;
	return 1;
}
