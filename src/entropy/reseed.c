/*
 * reseed.c - where the input side meets the generator: the table of sources,
 * sampled at scheduled reseeds; the catastrophic reseed of the base key (at
 * any reseed, surand_reseed() included); fork; the sources' stats.
 *
 * A scheduled reseed of the base key (gen/base.c) always uses a fresh kernel
 * seed.  The entropy pool joins only when at least 256 bits have been credited
 * since the last time it did (a "catastrophic reseed"): an attacker who knows
 * the generator's state then faces 256 unknown bits at once and cannot probe
 * small additions one at a time.  The credit then restarts at 0.
 * SPDX-License-Identifier: MIT
 */
#include "entropy/entropy.h"

#include <errno.h>
#include <pthread.h>

static uint32_t sampling;          /* 1 while a thread samples the sources */
static uint64_t n_catastrophic;    /* reseeds that included the pool */
static uint64_t n_hook_nested;     /* hooks skipped: called from inside our own lock */

#ifdef SURAND_TEST_BUILD
#include "test_hooks.h"
static int last_pooled = -1;
#endif

/* The sources, in enum order (as gen/registry.c lists the designs). */
static const struct surand_input_source *const sources[SURAND_ES_COUNT] = {
	[SURAND_ES_KERNEL] = &surand_source_kernel, [SURAND_ES_CPU] = &surand_source_cpu,
	[SURAND_ES_JITTER] = &surand_source_jitter, [SURAND_ES_APP] = &surand_source_app,
	[SURAND_ES_EVENTS] = &surand_source_events,
};

void surand_entropy_collect(void)
{
	if (surand_entropy_nest)
		return; /* a signal handler inside the pool lock: sample next time */
	/* One sampler at a time; another reseed never waits for it. */
	if (__atomic_exchange_n(&sampling, 1, __ATOMIC_ACQUIRE)) {
		SURAND_COUNT(surand_es_cnt[SURAND_ES_CPU].skipped);
		SURAND_COUNT(surand_es_cnt[SURAND_ES_JITTER].skipped);
		return;
	}
	for (unsigned i = 0; i < SURAND_ES_COUNT; i++)
		if (sources[i]->collect)
			sources[i]->collect();
	__atomic_store_n(&sampling, 0, __ATOMIC_RELEASE);
}

int surand_entropy_catastrophic(uint8_t out[32], int sample)
{
	int r;

	if (sample)
		surand_entropy_collect();
	r = surand_pool_extract_if_credited(out, 32, SURAND_POOL_RESEED_BITS);
	if (r != 1) {
		surand_wipe(out, 32);
		return 0;
	}
	return 1;
}

int surand_entropy_reseed_hook(uint32_t k[8], int sample)
{
	uint8_t x[32];
	int r, i;

	if (surand_entropy_nest) {
		/* Reached from a signal handler that interrupted this thread inside
		 * the pool: the reseed goes on with the kernel seed alone. */
		SURAND_COUNT(n_hook_nested);
		return 0;
	}
	r = surand_entropy_catastrophic(x, sample);
	/* Catastrophic reseed: 256 credited bits join the kernel seed in k
	 * before the ChaCha20 mix; the pool's credit is back at 0. */
	for (i = 0; r && i < 8; i++)
		k[i] ^= surand_load32_le(x + 4 * i);
	if (r)
		SURAND_COUNT(n_catastrophic);
	surand_wipe(x, sizeof(x));
#ifdef SURAND_TEST_BUILD
	__atomic_store_n(&last_pooled, r, __ATOMIC_RELAXED);
#endif
	return r;
}

/*
 * The input side registers its own fork handler, at its first set-up (pool,
 * fast pools): it may hold state before the generator was ever used, when
 * the front end has registered nothing yet.
 */
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static void atfork_register(void)
{
	if (pthread_atfork(NULL, NULL, surand_entropy_atfork_child) != 0)
		surand_warn("entropy: pthread_atfork failed; a fork child may share the pool");
}

void surand_entropy_atfork_register(void)
{
	pthread_once(&atfork_once, atfork_register);
}

void surand_entropy_atfork_child(void)
{
	/* The pool and the fast pools (secrets that may exist before set-up)
	 * register handlers of their own (pool.c, fastpool.c). */
	for (unsigned i = 0; i < SURAND_ES_COUNT; i++)
		if (sources[i]->atfork_child)
			sources[i]->atfork_child();
	surand_entropy_counters_atfork_child();
	sampling = 0;
	n_catastrophic = 0;
	n_hook_nested = 0;
}

void surand_entropy_stats(struct surand_stats *st)
{
	st->pool_credit_bits = surand_pool_credit_bits();
	st->events = surand_fastpool_events();
	st->entropy_bytes_added = surand_app_bytes_given();
	st->reseeds_catastrophic = SURAND_LOAD(n_catastrophic);
}

/*
 * The public per-source stats (surand.h): size-versioned like surand_stats,
 * one entry per source in enum order.  Reads relaxed counters only: no lock,
 * no allocation, no stdio (async-signal-safe), nothing secret.
 */
static int source_stats(struct surand_source_stats *st, size_t size)
{
	struct surand_source_stats s;
	struct surand_entropy_source_stats e;
	struct surand_source_stat *o;
	const char *nm;
	size_t len;
	unsigned i;

	if (!st || size < 2 * sizeof(uint32_t)) {
		errno = EINVAL;
		return -1;
	}
	_Static_assert(SURAND_ES_COUNT <= SURAND_SOURCES_MAX, "every source has an entry");
	memset(&s, 0, sizeof(s));
	s.version = 2; /* 2: qual[] appended after source[] */
	s.nsources = SURAND_ES_COUNT;
	s.pool_credit_bits = surand_pool_credit_bits();
	s.reseeds_catastrophic = SURAND_LOAD(n_catastrophic);
	s.pool_extractions = surand_pool_extractions();
	for (i = 0; i < SURAND_ES_COUNT; i++) {
		o = &s.source[i];
		(void)surand_entropy_source_stats((enum surand_entropy_source)i, &e);
		nm = surand_entropy_source_name((enum surand_entropy_source)i);
		len = strlen(nm);
		memcpy(o->name, nm, len < sizeof(o->name) ? len : sizeof(o->name) - 1); /* NUL: memset */
		o->enabled = e.on;
		o->available = e.available;
		o->disabled = e.disabled;
		o->credit_paused = e.credit_paused;
		o->samples = e.c.samples;
		o->bytes = e.c.bytes;
		o->credited_bits = e.c.credited;
		o->failures = e.c.failures;
		o->skipped = e.c.skipped;
		o->health_rct = e.c.health_rct;
		o->health_apt = e.c.health_apt;
		o->overflow = e.c.overflow;
		s.qual[i] = e.q;
	}
	if (size > sizeof(s))
		size = sizeof(s);
	s.size = (uint32_t)size;
	memcpy(st, &s, size);
	return 0;
}

/* Under the busy mark too, as every public entry point is (api.c). */
SURAND_API int surand_source_stats(struct surand_source_stats *st, size_t size)
{
	uintptr_t saved;
	int r;

	SURAND_MARK_BUSY(saved);
	r = source_stats(st, size);
	SURAND_UNMARK_BUSY(saved);
	return r;
}

int surand_entropy_source_stats(enum surand_entropy_source src,
				struct surand_entropy_source_stats *out)
{
	const struct surand_es_counters *c;

	if ((unsigned)src >= SURAND_ES_COUNT || !out)
		return -EINVAL;
	c = &surand_es_cnt[src];
	memset(out, 0, sizeof(*out));
	out->c.samples = SURAND_LOAD(c->samples);
	out->c.bytes = SURAND_LOAD(c->bytes);
	out->c.credited = SURAND_LOAD(c->credited);
	out->c.failures = SURAND_LOAD(c->failures);
	out->c.skipped = SURAND_LOAD(c->skipped);
	out->c.health_rct = SURAND_LOAD(c->health_rct);
	out->c.health_apt = SURAND_LOAD(c->health_apt);
	out->c.stuck = SURAND_LOAD(c->stuck);
	out->c.counted = SURAND_LOAD(c->counted);
	out->c.windows_clean = SURAND_LOAD(c->windows_clean);
	out->c.windows_alarmed = SURAND_LOAD(c->windows_alarmed);
	out->on = (uint32_t)surand_entropy_source_on(src);
	out->available = 1;
	if (sources[src]->stats)
		sources[src]->stats(out);
	return 0;
}

#ifdef SURAND_TEST_BUILD
void surand_test_entropy_health_reset(int src)
{
	if ((unsigned)src < SURAND_ES_COUNT && sources[src]->test_health_reset)
		sources[src]->test_health_reset();
}

void surand_test_entropy_hold_sampler(int on)
{
	/* As a sampler stuck in a hanging source would: the flag stays taken. */
	__atomic_store_n(&sampling, on ? 1u : 0u, __ATOMIC_SEQ_CST);
}

int surand_test_entropy_last_reseed_pooled(void)
{
	return __atomic_load_n(&last_pooled, __ATOMIC_RELAXED);
}
#endif
