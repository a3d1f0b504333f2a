/*
 * registry.c - the designs surand offers, the default first.
 *
 * thread is the default (gen/thread.c); the others are the designs of the
 * 2015 /dev/urandom scalability debate and what Linux shipped after it
 * (docs/designs.md).  legacy-spin is legacy with a pure spinlock, so the
 * benchmark can report both locks.
 * SPDX-License-Identifier: MIT
 */
#include <string.h>

#include "gen/backend.h"
#include "gen/designs.h"

const struct surand_backend *const surand_backends[] = {
	&surand_backend_thread,
	&surand_backend_legacy,
	&surand_backend_legacy_spin,
	&surand_backend_multipool,
	&surand_backend_salted,
	&surand_backend_tso2015,
	&surand_backend_taskcrng,
	&surand_backend_nodecrng,
	&surand_backend_onekey,
	&surand_backend_percpu,
	NULL,
};

const struct surand_backend *surand_backend_find(const char *name)
{
	size_t i;

	if (!name)
		return NULL;
	for (i = 0; surand_backends[i]; i++)
		if (strcmp(surand_backends[i]->name, name) == 0)
			return surand_backends[i];
	return NULL;
}
