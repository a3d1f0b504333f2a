/*
 * app.c - the application as a source: surand_add_entropy().
 *
 * The caller's bytes are mixed into the entropy pool and credited with what
 * the caller claims (at most 8 bits per byte; the pool caps its credit at
 * 256 bits).  They are not health-tested: SP 800-90B's tests need raw noise
 * with a known claim, and the application's input may be anything (already
 * conditioned, a hash, a counter).  Its credit only ever brings a
 * catastrophic reseed forward; the kernel seed is always there too.
 * SPDX-License-Identifier: MIT
 */
#include "entropy/entropy.h"

#include <errno.h>

static uint64_t n_given; /* bytes given (struct surand_stats.entropy_bytes_added) */

static int add_entropy(const void *buf, size_t len, unsigned int credit_bits)
{
	struct surand_es_counters *c = &surand_es_cnt[SURAND_ES_APP];
	int r;

	if (len > 0 && !buf) {
		errno = EFAULT;
		return -1;
	}
	/* credit_bits > 8 * len, without overflow: nothing mixed, nothing credited. */
	if (len < SIZE_MAX / 8 && credit_bits > 8 * len) {
		errno = EINVAL;
		return -1;
	}
	SURAND_COUNT(c->samples);
	SURAND_COUNT_N(n_given, len);
	if (!surand_entropy_source_on(SURAND_ES_APP)) {
		SURAND_COUNT(c->skipped); /* switched off: ignored, and that is not an error */
		return 0;
	}
	if (len == 0)
		return 0; /* credit_bits is 0 here */
	r = surand_pool_add(buf, len, credit_bits);
	if (r < 0) {
		SURAND_COUNT(c->failures);
		errno = -r;
		return -1;
	}
	SURAND_COUNT_N(c->bytes, len);
	SURAND_COUNT_N(c->credited, credit_bits);
	return 0;
}

/* Under the busy mark: a handler that draws while the pool is set up or
 * locked here takes the kernel path, never this thread's locks. */
SURAND_API int surand_add_entropy(const void *buf, size_t len, unsigned int credit_bits)
{
	uintptr_t saved;
	int r;

	SURAND_MARK_BUSY(saved);
	r = add_entropy(buf, len, credit_bits);

	SURAND_UNMARK_BUSY(saved);
	return r;
}

uint64_t surand_app_bytes_given(void)
{
	return SURAND_LOAD(n_given);
}

void surand_app_atfork_child(void)
{
	n_given = 0;
}

const struct surand_input_source surand_source_app = {
	.id = SURAND_ES_APP,
	.atfork_child = surand_app_atfork_child,
};
