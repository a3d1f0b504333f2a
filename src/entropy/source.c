/*
 * source.c - what every entropy source shares and what names them: their
 * names (as SURAND_ENTROPY_OFF spells them), the switch that turns them off,
 * and their counters.  A leaf: the sources call it, it calls none of them.
 * SPDX-License-Identifier: MIT
 */
#include "entropy/entropy.h"

#include <pthread.h>
#include <string.h>

struct surand_es_counters surand_es_cnt[SURAND_ES_COUNT];

#ifdef SURAND_TEST_BUILD
#include "test_hooks.h"
unsigned surand_entropy_test_off_v;
#endif

static const char *const source_names[SURAND_ES_COUNT] = {
	[SURAND_ES_KERNEL] = "kernel", [SURAND_ES_CPU] = "cpu", [SURAND_ES_JITTER] = "jitter",
	[SURAND_ES_APP] = "app",       [SURAND_ES_EVENTS] = "events",
};

const char *surand_entropy_source_name(enum surand_entropy_source src)
{
	return (unsigned)src < SURAND_ES_COUNT ? source_names[src] : "?";
}

unsigned surand_entropy_off_v; /* SURAND_ENTROPY_OFF, bit 1 << source */
static pthread_once_t entropy_off_once = PTHREAD_ONCE_INIT;

/*
 * SURAND_ENTROPY_OFF=name[,name...] (config.c keeps the raw string): entropy
 * sources to leave out (names: source_names above; see docs/entropy.md).  An
 * unknown name gets one line on stderr and is ignored.  "kernel" only keeps
 * its bytes out of the entropy pool: the base key is always seeded from the
 * kernel.
 */
static void entropy_off_read(void)
{
	const char *v = surand_config()->entropy_off, *p, *e;
	unsigned off = 0, i;
	size_t n;

	for (p = v; p && *p; p = *e ? e + 1 : e) {
		e = strchr(p, ',');
		if (!e)
			e = p + strlen(p);
		n = (size_t)(e - p);
		if (n == 0)
			continue;
		for (i = 0; i < SURAND_ES_COUNT; i++)
			if (strlen(source_names[i]) == n && memcmp(source_names[i], p, n) == 0)
				break;
		if (i < SURAND_ES_COUNT)
			off |= 1u << i;
		else
			surand_warn("SURAND_ENTROPY_OFF: unknown source \"%.*s\" (valid: kernel, cpu, "
				    "jitter, app, events); ignored", (int)(n > 32 ? 32 : n), p);
	}
	__atomic_store_n(&surand_entropy_off_v, off, __ATOMIC_RELAXED);
}

void surand_entropy_config(void)
{
	pthread_once(&entropy_off_once, entropy_off_read);
}

unsigned surand_entropy_off(void)
{
	surand_entropy_config();
	return __atomic_load_n(&surand_entropy_off_v, __ATOMIC_RELAXED);
}

#ifdef SURAND_TEST_BUILD
/* Test builds: the off mask again (api.c's surand_test_config_reload). */
void surand_entropy_config_reread(void)
{
	entropy_off_read();
}
#endif

int surand_entropy_source_on(enum surand_entropy_source src)
{
	surand_entropy_config(); /* the off mask, parsed once */
	return !(surand_entropy_off_mask() & (1u << src));
}

/* Counters are per process (line) since the fork. */
void surand_entropy_counters_atfork_child(void)
{
	memset(surand_es_cnt, 0, sizeof(surand_es_cnt));
}

#ifdef SURAND_TEST_BUILD
void surand_test_entropy_source_set(int src, int on)
{
	unsigned bit = 1u << (unsigned)src;

	if ((unsigned)src >= SURAND_ES_COUNT)
		return;
	if (on)
		__atomic_fetch_and(&surand_entropy_test_off_v, ~bit, __ATOMIC_RELAXED);
	else
		__atomic_fetch_or(&surand_entropy_test_off_v, bit, __ATOMIC_RELAXED);
}
#endif
