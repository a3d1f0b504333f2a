/*
 * registry.c - the designs surand offers, the default first.
 * SPDX-License-Identifier: MIT
 */
#include <string.h>

#include "gen/backend.h"

const struct surand_backend *const surand_backends[] = {
	&surand_backend_thread,
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
