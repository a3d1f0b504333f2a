/*
 * config.h - the environment, read once with secure_getenv (config.c): the
 * library's settings and the designs' tunables.  The bottom layer: config.c
 * calls nothing above it.
 * SPDX-License-Identifier: MIT
 */
#ifndef SURAND_CONFIG_H
#define SURAND_CONFIG_H

#ifndef SURAND_HIDDEN
#define SURAND_HIDDEN __attribute__((visibility("hidden")))
#endif

struct surand_config {
	const char *backend;        /* SURAND_BACKEND, NULL: default */
	unsigned reseed_ceiling_s;  /* SURAND_RESEED_SECS: 1..300, default 60 */
	int trust_cpu;              /* SURAND_TRUST_CPU=1 */
	int debug;                  /* SURAND_DEBUG=1 */
	const char *entropy_off;    /* SURAND_ENTROPY_OFF, raw (entropy/reseed.c parses it) */
};
const struct surand_config *surand_config(void) SURAND_HIDDEN;

/* ==== 5. configuration (src/config.c) ======================================= */
struct surand_design_config {
	unsigned nodes;           /* SURAND_NODES: 0 = the machine's nodes, else 1..1024 simulated */
	unsigned task_reads;      /* SURAND_TASKCRNG_READS: careful reads per rate window, default 10 */
	unsigned task_rate_ms;    /* SURAND_TASKCRNG_RATE_MS: the rate window, default 1000 ms */
	unsigned task_bytes;      /* SURAND_TASKCRNG_BYTES: careful bytes per budget window, default 32 */
	unsigned task_budget_s;   /* SURAND_TASKCRNG_BUDGET_SECS: the budget window, default 60 s */
	unsigned task_every;      /* SURAND_TASKCRNG_EVERY=1: every reader on its own CRNG at once */
	unsigned tso_atomic;      /* SURAND_TSO2015_MIX=atomic: Spelvin's atomic adds (else offsets) */
	unsigned p15_no_rotate;   /* SURAND_POOL_NO_ROTATE=1: the 2015 pools mix without input_rotate */
	unsigned onekey_reseed_s; /* SURAND_ONEKEY_SECS: onekey's reseed interval, default 1 s */
};
const struct surand_design_config *surand_design_config(void) SURAND_HIDDEN;

#endif /* SURAND_CONFIG_H */
