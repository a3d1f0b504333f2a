/*
 * verify.h - the comparison behind `surand wipe --verify`: data read back
 * against the reproducible stream that was written.  Separate from cmd_wipe.c
 * so that tests/test_cli_parse.c proves it detects a corruption.
 * SPDX-License-Identifier: MIT
 */
#ifndef SURAND_TOOLS_VERIFY_H
#define SURAND_TOOLS_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#include "surand.h"

/*
 * Compares data[0..len) with bytes offset..offset+len of stream s (which is
 * left positioned after them), generating them into scratch (len bytes).
 * Returns 0 when equal; 1 when they differ, with *first_bad the absolute
 * stream offset of the first differing byte.
 */
int surand_verify_range(struct surand_stream *s, uint64_t offset, const void *data, size_t len,
			void *scratch, uint64_t *first_bad);

#endif
