/*
 * config.c - the environment, read once with secure_getenv, and the one-line
 * diagnostics.  secure_getenv returns NULL in setuid/setgid programs, so an
 * unprivileged user can never steer a privileged program's generator.
 *
 * An invalid value prints one line on stderr and the default is kept: never a
 * crash, never a weaker setting by accident.
 *
 * This is the bottom layer: it knows nothing of the layers that read it.
 * SURAND_ENTROPY_OFF is kept as the raw string; entropy/reseed.c, which owns
 * the source names, parses it.
 * SPDX-License-Identifier: MIT
 */
#include "internal.h"
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Reseed ceiling: Linux's CRNG_RESEED_INTERVAL is 60 s; SURAND_RESEED_SECS may
 * lower it, or raise it at most to 300 s (the 4.8 CRNG's interval). */
#define RESEED_CEILING_DEFAULT_S 60u
#define RESEED_CEILING_MAX_S 300u

/* The designs of the 2015 debate (struct surand_design_config, config.h). */
#define NODES_MAX 1024u
/* taskcrng's limiter: the defaults are the 2015 debate's figures (docs/designs.md). */
#define TASK_READS_DEFAULT 10u        /* Ts'o: "no more than ten times a second" */
#define TASK_READS_MAX 1000000u
#define TASK_RATE_MS_DEFAULT 1000u    /* ... "a second" */
#define TASK_RATE_MS_MAX 3600000u
#define TASK_BYTES_DEFAULT 32u        /* random(4): "more than 256 bits (32 bytes)" */
#define TASK_BYTES_MAX (1u << 20)
#define TASK_BUDGET_S_DEFAULT 60u     /* ... "per reasonable reseed interval (not less than one minute)" */
#define TASK_BUDGET_S_MAX 86400u
#define ONEKEY_SECS_DEFAULT 1u        /* Spelvin: "one key ... reseeded more often" */
#define ONEKEY_SECS_MAX 300u

static struct surand_config config;
static struct surand_design_config design_config;
static pthread_once_t config_once = PTHREAD_ONCE_INIT;

void surand_warn(const char *fmt, ...)
{
	char line[256];
	va_list ap;
	int n;
	ssize_t w;

	memcpy(line, "surand: ", 8); /* NOLINT(bugprone-not-null-terminated-result): a prefix; vsnprintf ends the string */
	va_start(ap, fmt);
	n = vsnprintf(line + 8, sizeof(line) - 9, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	n += 8;
	if (n > (int)sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	do
		w = write(STDERR_FILENO, line, (size_t)n);
	while (w < 0 && errno == EINTR);
}

void surand_fatal(const char *msg)
{
	surand_warn("FATAL: %s", msg);
	abort();
}

/* Parses a decimal unsigned in [lo, hi]; 0 on success. */
static int parse_uint(const char *s, unsigned lo, unsigned hi, unsigned *out)
{
	unsigned long v;
	char *end;

	if (!s || !*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return -1;
	*out = (unsigned)v;
	return 0;
}

static int parse_bool(const char *name, const char *s)
{
	if (!s)
		return 0;
	if (strcmp(s, "1") == 0)
		return 1;
	if (strcmp(s, "0") != 0 && *s)
		surand_warn("%s=%.32s is not 0 or 1; using 0", name, s);
	return 0;
}

/* Reads NAME as an unsigned in [lo, hi]; an invalid value warns and keeps def. */
static unsigned env_uint(const char *name, unsigned lo, unsigned hi, unsigned def)
{
	const char *v = secure_getenv(name);
	unsigned out;

	if (!v || !*v)
		return def;
	if (parse_uint(v, lo, hi, &out) == 0)
		return out;
	surand_warn("%s=%.32s is not a number in %u..%u; using %u", name, v, lo, hi, def);
	return def;
}

/* SURAND_TSO2015_MIX: offset (the patch as posted, default) or atomic
 * (Spelvin's atomic adds); 1 for atomic. */
static unsigned tso_mode_read(void)
{
	const char *v = secure_getenv("SURAND_TSO2015_MIX");

	if (!v || !*v || strcmp(v, "offset") == 0)
		return 0;
	if (strcmp(v, "atomic") == 0)
		return 1;
	surand_warn("SURAND_TSO2015_MIX=%.32s is not offset or atomic; using offset", v);
	return 0;
}

static void design_config_read(void)
{
	design_config.nodes = env_uint("SURAND_NODES", 1, NODES_MAX, 0);
	design_config.task_reads = env_uint("SURAND_TASKCRNG_READS", 1, TASK_READS_MAX,
					    TASK_READS_DEFAULT);
	design_config.task_bytes = env_uint("SURAND_TASKCRNG_BYTES", 1, TASK_BYTES_MAX,
					    TASK_BYTES_DEFAULT);
	design_config.task_rate_ms = env_uint("SURAND_TASKCRNG_RATE_MS", 1, TASK_RATE_MS_MAX,
					      TASK_RATE_MS_DEFAULT);
	design_config.task_budget_s = env_uint("SURAND_TASKCRNG_BUDGET_SECS", 1, TASK_BUDGET_S_MAX,
					       TASK_BUDGET_S_DEFAULT);
	design_config.task_every = (unsigned)parse_bool("SURAND_TASKCRNG_EVERY",
							secure_getenv("SURAND_TASKCRNG_EVERY"));
	design_config.tso_atomic = tso_mode_read();
	design_config.p15_no_rotate = (unsigned)parse_bool("SURAND_POOL_NO_ROTATE",
							   secure_getenv("SURAND_POOL_NO_ROTATE"));
	design_config.onekey_reseed_s = env_uint("SURAND_ONEKEY_SECS", 1, ONEKEY_SECS_MAX,
						 ONEKEY_SECS_DEFAULT);
}

static void config_read(void)
{
	const char *v;
	unsigned secs;

	SURAND_TEST_POINT(SURAND_TP_CONFIG_READ);
	config.reseed_ceiling_s = RESEED_CEILING_DEFAULT_S;
	v = secure_getenv("SURAND_RESEED_SECS");
	if (v) {
		if (parse_uint(v, 1, RESEED_CEILING_MAX_S, &secs) == 0)
			config.reseed_ceiling_s = secs;
		else
			surand_warn("SURAND_RESEED_SECS=%.32s is not a number of seconds in 1..%u; "
				    "using %u", v, RESEED_CEILING_MAX_S, RESEED_CEILING_DEFAULT_S);
	}
	v = secure_getenv("SURAND_BACKEND");
	config.backend = (v && *v) ? v : NULL;
	config.trust_cpu = parse_bool("SURAND_TRUST_CPU", secure_getenv("SURAND_TRUST_CPU"));
	config.debug = parse_bool("SURAND_DEBUG", secure_getenv("SURAND_DEBUG"));
	/* SURAND_ENTROPY_OFF=name[,name...]: parsed (and checked) by entropy/reseed.c */
	config.entropy_off = secure_getenv("SURAND_ENTROPY_OFF");
	design_config_read();
}

const struct surand_config *surand_config(void)
{
	pthread_once(&config_once, config_read);
	return &config;
}

const struct surand_design_config *surand_design_config(void)
{
	pthread_once(&config_once, config_read);
	return &design_config;
}

#ifdef SURAND_TEST_BUILD
/* Test builds: re-read the environment (tests change it between cases); the
 * test hook surand_test_config_reload (api.c) calls this. */
void surand_config_reread(void)
{
	memset(&config, 0, sizeof(config));
	memset(&design_config, 0, sizeof(design_config));
	config_read();
}
#endif
