/*
 * cmd_gen.c - `surand [-n SIZE | SIZE] [-o FILE] [-f FORMAT] [-j THREADS] [--progress]`:
 * random bytes from surand_bytes() to stdout or a file.  SIZE may be given as
 * the one operand, as `openssl rand 32` takes it; -j 0 is one worker per
 * online CPU.
 *
 * THREADS workers each own chunk buffers.  A worker takes the next chunk
 * number (each chunk a whole number of output units: bytes, base64 lines or
 * UUIDs), fills and encodes it in its own buffer, and writes it itself when
 * its turn comes (every lower chunk written), handing the turn on.  The
 * chunks are taken in increasing order, so the chunk whose turn it is has
 * been taken and is being filled or waits in its worker's buffer: the output
 * is in order and the run always moves on.  With more than one worker each
 * owns two buffers: one whose chunk waits for its turn, and one it fills
 * meanwhile, so a worker slowed for a moment (preempted, an interrupt) does
 * not stall the others (bench/cli.sh: with one buffer each, -j 2 spent 15%
 * more CPU than -j 1 waiting and scaled 0.87-0.98x of the body's own).  A
 * worker with no chunk waiting fills its first buffer again, so it stays in
 * its core's cache, and the data is written by the core that made it.  With
 * one thread (-j 1, the default) the main thread is the worker, with one
 * buffer.
 * SPDX-License-Identifier: MIT
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "format.h"
#include "parse.h"
#include "progress.h"
#include "surand.h"

#define GEN_RAW_CHUNK_BYTES (1u << 20)       /* raw: 1 MiB per chunk */
#define GEN_HEX_CHUNK_BYTES (1u << 19)       /* hex: 512 KiB in, 1 MiB out */
#define GEN_B64_CHUNK_LINES 9198u            /* base64: 9198 lines of 57 bytes (~512 KiB) */
#define GEN_UUID_CHUNK_COUNT 16384u          /* uuid: 16384 per chunk (256 KiB in) */
#define GEN_DEFAULT_BYTES 32                 /* `surand` alone: a 256-bit value */
#define GEN_MAX_THREADS 256

struct gen_slot {
	uint8_t *raw;        /* random bytes (for raw output: also the output) */
	char *out;           /* encoded output (NULL for raw) */
	size_t out_len;      /* bytes of output in this chunk */
	uint64_t units;      /* units in this chunk */
	uint64_t chunk;      /* the chunk it holds, while filled */
};

/* Buffers per worker with more than one worker (see the top of the file). */
#define GEN_SLOTS_PER_WORKER 2

struct gen {
	enum surand_format fmt;
	uint64_t total_units;     /* SURAND_SIZE_INF: no end */
	uint64_t chunk_units;
	uint64_t nchunks;         /* UINT64_MAX with no end */
	size_t raw_cap, out_cap;  /* per worker buffer */
	int fd;
	struct surand_progress prog;
	pthread_mutex_t lock;
	pthread_cond_t cv_turn;   /* next_write moved on, or stop was set */
	uint64_t next_chunk;      /* the next chunk a worker takes */
	uint64_t next_write;      /* the chunk whose turn it is to be written */
	uint64_t done_raw;        /* raw bytes written */
	int stop;
	int err;                  /* the first write error (errno value) */
	int spin;                 /* 1: no more workers than CPUs (see turn_spin) */
	unsigned nslots;          /* buffers per worker: 1 or GEN_SLOTS_PER_WORKER */
};

struct gen_worker {
	struct gen *g;
	struct gen_slot slot[GEN_SLOTS_PER_WORKER];
	pthread_t tid;
};

static uint64_t unit_raw_bytes(enum surand_format f)
{
	return f == SURAND_FMT_UUID ? 16 : 1;
}

/* Generates and encodes chunk c into slot s (called without the lock). */
static void fill_chunk(struct gen *g, struct gen_slot *s, uint64_t c)
{
	uint64_t units = g->chunk_units;
	int final = 0;
	size_t raw, i;

	if (g->total_units != SURAND_SIZE_INF && c == g->nchunks - 1) {
		units = g->total_units - c * g->chunk_units;
		final = 1;
	}
	if (g->fmt != SURAND_FMT_RAW && !s->out)
		abort(); /* cannot happen: gen_run gives every encoded format its buffer */
	raw = (size_t)(units * unit_raw_bytes(g->fmt));
	surand_bytes(s->raw, raw);
	s->units = units;
	switch (g->fmt) {
	case SURAND_FMT_RAW:
		s->out_len = raw;
		break;
	case SURAND_FMT_HEX:
		s->out_len = surand_hex_encode(s->out, s->raw, raw);
		if (final)
			s->out[s->out_len++] = '\n';
		break;
	case SURAND_FMT_BASE64:
		s->out_len = surand_base64_lines(s->out, s->raw, raw, final);
		break;
	case SURAND_FMT_UUID:
		s->out_len = 0;
		for (i = 0; i < units; i++)
			s->out_len += surand_uuid_line(s->out + s->out_len, s->raw + 16 * i);
		break;
	}
	if (s->out)
		explicit_bzero(s->raw, raw); /* the output buffer now holds the same secret */
}

/* Writes all of buf; 0 or an errno value. */
static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t w = write(fd, p, len);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

/*
 * Spins a little for the turn before sleeping on cv_turn: with no more workers
 * than CPUs the turn is usually a write(2) away, and a futex wake-up costs
 * tens of microseconds on a VM, a tenth of the time a 1 MiB chunk takes to
 * fill (measured with bench/cli.sh: -j 2 scaled 0.95x of the body's before).
 * next_write and stop are written under the lock with atomic stores, so these
 * lock-free reads are race-free.
 */
#define TURN_SPIN_ROUNDS 4096 /* pause instructions: about 0.1-0.5 ms */

static void turn_spin(struct gen *g, uint64_t c)
{
	for (unsigned i = 0; g->spin && i < TURN_SPIN_ROUNDS; i++) {
		if (__atomic_load_n(&g->next_write, __ATOMIC_ACQUIRE) == c ||
		    __atomic_load_n(&g->stop, __ATOMIC_ACQUIRE))
			return;
#if defined(__x86_64__) || defined(__i386__)
		__builtin_ia32_pause();
#endif
	}
}

/*
 * A worker's filled buffers form a queue (oldest chunk first) of at most
 * g->nslots.  With the lock held, it writes its oldest chunk when that
 * chunk's turn has come; otherwise fills a free buffer with the next chunk;
 * otherwise waits for the turn of its oldest.
 */
static void *worker(void *arg)
{
	struct gen_worker *wk = arg;
	struct gen *g = wk->g;
	uint64_t per_unit = unit_raw_bytes(g->fmt);
	unsigned head = 0, nfull = 0;

	pthread_mutex_lock(&g->lock);
	while (!g->stop) {
		struct gen_slot *s = &wk->slot[head];
		uint64_t c;
		int err;

		if (nfull > 0 && g->next_write == s->chunk) {
			/* Our turn: the lock is not held while writing, so the other
			 * workers go on filling; none of them can write before us. */
			pthread_mutex_unlock(&g->lock);
			err = write_all(g->fd, s->out ? (const void *)s->out : (const void *)s->raw,
					s->out_len);
			/* No wipe between chunks: the next fill overwrites this buffer,
			 * and gen_run wipes every buffer at the end. */
			pthread_mutex_lock(&g->lock);
			if (err) {
				g->err = err;
				__atomic_store_n(&g->stop, 1, __ATOMIC_RELEASE);
			} else {
				g->done_raw += s->units * per_unit;
				surand_progress_update(&g->prog, g->done_raw);
				__atomic_store_n(&g->next_write, s->chunk + 1, __ATOMIC_RELEASE);
			}
			pthread_cond_broadcast(&g->cv_turn);
			nfull--;
			/* Nothing waiting: the first buffer again (it is in cache). */
			head = nfull ? (head + 1) % g->nslots : 0;
		} else if (nfull < g->nslots && g->next_chunk < g->nchunks) {
			c = g->next_chunk++;
			s = &wk->slot[(head + nfull) % g->nslots];
			pthread_mutex_unlock(&g->lock);
			fill_chunk(g, s, c);
			s->chunk = c;
			pthread_mutex_lock(&g->lock);
			nfull++;
		} else if (nfull > 0) {
			c = s->chunk;
			pthread_mutex_unlock(&g->lock);
			turn_spin(g, c);
			pthread_mutex_lock(&g->lock);
			while (!g->stop && g->next_write != c)
				pthread_cond_wait(&g->cv_turn, &g->lock);
		} else {
			break; /* every chunk taken, none of ours left to write */
		}
	}
	pthread_mutex_unlock(&g->lock);
	return NULL;
}

/* Runs the workers; returns an exit status.  name: what fd is, for messages. */
static int gen_run(struct gen *g, unsigned nthreads, int fd, const char *name,
		   enum surand_progress_mode pmode)
{
	struct gen_worker *wks = calloc(nthreads, sizeof(*wks));
	uint64_t per_unit = unit_raw_bytes(g->fmt), total_raw;
	unsigned i, j, started = 0;
	int rc = SURAND_EX_OK;

	if (!wks) {
		fprintf(stderr, "surand: out of memory\n");
		return SURAND_EX_FAIL;
	}
	/* A second buffer only where a worker can have a chunk waiting while
	 * another remains to be taken. */
	g->nslots = nthreads > 1 && g->nchunks > nthreads ? GEN_SLOTS_PER_WORKER : 1;
	for (i = 0; i < nthreads; i++) {
		wks[i].g = g;
		for (j = 0; j < g->nslots; j++) {
			struct gen_slot *s = &wks[i].slot[j];

			s->raw = malloc(g->raw_cap);
			/* every encoded format has an output buffer; raw output is its input */
			s->out = g->fmt != SURAND_FMT_RAW ? malloc(g->out_cap) : NULL;
			if (!s->raw || (g->fmt != SURAND_FMT_RAW && !s->out)) {
				fprintf(stderr, "surand: out of memory (%u chunk buffers)\n",
					nthreads * g->nslots);
				rc = SURAND_EX_FAIL;
				goto out;
			}
		}
	}
	g->fd = fd;
	{
		long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

		g->spin = nthreads > 1 && ncpu > 0 && nthreads <= (unsigned long)ncpu;
	}
	pthread_mutex_init(&g->lock, NULL);
	pthread_cond_init(&g->cv_turn, NULL);
	total_raw = g->total_units == SURAND_SIZE_INF ? SURAND_PROGRESS_UNKNOWN
		    : g->total_units > UINT64_MAX / per_unit ? SURAND_PROGRESS_UNKNOWN - 1
							     : g->total_units * per_unit;
	surand_progress_start(&g->prog, pmode, "", total_raw);
	/* worker 0 is the main thread itself; the others are started */
	for (i = 1; i < nthreads; i++) {
		if (pthread_create(&wks[i].tid, NULL, worker, &wks[i]) != 0)
			break; /* fewer workers: the same output, only slower */
		started++;
	}
	worker(&wks[0]);
	for (i = 0; i < started; i++)
		pthread_join(wks[1 + i].tid, NULL);
	surand_progress_end(&g->prog, g->done_raw);
	pthread_mutex_destroy(&g->lock);
	pthread_cond_destroy(&g->cv_turn);
	if (g->err == EPIPE) {
		rc = SURAND_EX_OK; /* the reader went away (`surand | head -c 10`): done, quietly */
	} else if (g->err) {
		fprintf(stderr, "surand: write to %s: %s\n", name, strerror(g->err));
		rc = SURAND_EX_IOERR;
	}
out:
	for (i = 0; i < nthreads; i++) {
		for (j = 0; j < GEN_SLOTS_PER_WORKER; j++) {
			struct gen_slot *s = &wks[i].slot[j];

			/* random output may be key material: leave no copy in freed memory */
			if (s->raw)
				explicit_bzero(s->raw, g->raw_cap);
			if (s->out)
				explicit_bzero(s->out, g->out_cap);
			free(s->raw);
			free(s->out);
		}
	}
	free(wks);
	return rc;
}

/* What the command line asked for. */
struct gen_args {
	const char *size, *out_path, *fmt;
	enum surand_progress_mode pmode;
	uint64_t nthreads;
};

/* -j N: 0 means one worker per online CPU.  0, or SURAND_EX_USAGE. */
static int read_threads(const char *arg, uint64_t *n)
{
	if (surand_parse_uint(arg, 0, GEN_MAX_THREADS, n) < 0) {
		fprintf(stderr, "surand: bad thread count '%s' (0 to %d; 0: one per online CPU)\n",
			arg, GEN_MAX_THREADS);
		return SURAND_EX_USAGE;
	}
	if (*n == 0) {
		long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

		*n = ncpu < 1 ? 1 : ncpu > GEN_MAX_THREADS ? GEN_MAX_THREADS : (uint64_t)ncpu;
	}
	return 0;
}

/* read_gen_args found --help or --version (-h, -V) among the options. */
#define GEN_ARGS_HELP (-1)
#define GEN_ARGS_VERSION (-2)

/* The options, then at most one operand: the SIZE (surand 32).  0,
 * SURAND_EX_USAGE (the message printed), or GEN_ARGS_HELP / GEN_ARGS_VERSION
 * (wherever among the options they stand, as GNU programs take them). */
static int read_gen_args(int argc, char **argv, struct gen_args *a)
{
	static const struct option opts[] = {
		{"size", required_argument, NULL, 'n'},
		{"output", required_argument, NULL, 'o'},
		{"format", required_argument, NULL, 'f'},
		{"threads", required_argument, NULL, 'j'},
		{"progress", no_argument, NULL, 'P'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	const char *prev_val = NULL; /* the value the previous option took */
	uint64_t v;
	int c;

	memset(a, 0, sizeof(*a));
	a->pmode = SURAND_PROGRESS_AUTO;
	a->nthreads = 1;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":n:o:f:j:", opts, NULL)) != -1) {
		switch (c) {
		case 'n': a->size = optarg; break;
		case 'o': a->out_path = optarg; break;
		case 'f': a->fmt = optarg; break;
		case 'j':
			if (read_threads(optarg, &a->nthreads) != 0)
				return SURAND_EX_USAGE;
			break;
		case 'P': a->pmode = SURAND_PROGRESS_FORCE; break;
		case 'h': return GEN_ARGS_HELP;
		case 'V': return GEN_ARGS_VERSION;
		default:
			/* -h and -V standing alone, not inside a bundle such as -hex (a
			 * slip for -f hex, better named as unknown): getopt moved past
			 * the argument, which is not the previous option's value */
			if (c == '?' && (optopt == 'h' || optopt == 'V') &&
			    argv[optind - 1] != prev_val && argv[optind - 1][0] == '-' &&
			    argv[optind - 1][1] == optopt && argv[optind - 1][2] == '\0')
				return optopt == 'h' ? GEN_ARGS_HELP : GEN_ARGS_VERSION;
			surand_opt_error(NULL, c, argv, opts);
			return SURAND_EX_USAGE;
		}
		prev_val = optarg;
	}
	if (optind >= argc)
		return 0;
	/* anything but a SIZE is not ours */
	if (surand_parse_size(argv[optind], &v) != 0) {
		fprintf(stderr, "surand: '%s' is neither a subcommand nor a SIZE (see surand "
				"--help)\n", argv[optind]);
		return SURAND_EX_USAGE;
	}
	if (a->size) {
		fprintf(stderr, "surand: SIZE given twice ('-n %s' and '%s')\n", a->size,
			argv[optind]);
		return SURAND_EX_USAGE;
	}
	if (optind + 1 < argc) {
		fprintf(stderr, "surand: unexpected argument '%s' after the SIZE\n",
			argv[optind + 1]);
		return SURAND_EX_USAGE;
	}
	a->size = argv[optind];
	return 0;
}

/* The format, the amount and the chunking of the job.  0, or SURAND_EX_USAGE. */
static int plan_gen(const struct gen_args *a, struct gen *g)
{
	int fmt;

	if (a->fmt) {
		fmt = surand_parse_format(a->fmt);
		if (fmt < 0) {
			fprintf(stderr, "surand: bad format '%s' (raw, hex, base64 or uuid)\n", a->fmt);
			return SURAND_EX_USAGE;
		}
	} else {
		/* raw bytes never garble a terminal: hex there unless asked otherwise */
		int to_stdout = !a->out_path || strcmp(a->out_path, "-") == 0;

		fmt = to_stdout && isatty(STDOUT_FILENO) ? SURAND_FMT_HEX : SURAND_FMT_RAW;
	}
	g->fmt = (enum surand_format)fmt;
	if (a->size) {
		if (surand_parse_size(a->size, &g->total_units) < 0) {
			fprintf(stderr, "surand: bad size '%s' (%s)\n", a->size, SURAND_SIZE_HELP);
			return SURAND_EX_USAGE;
		}
	} else {
		g->total_units = g->fmt == SURAND_FMT_UUID ? 1 : GEN_DEFAULT_BYTES;
	}
	switch (g->fmt) {
	case SURAND_FMT_RAW:
		g->chunk_units = GEN_RAW_CHUNK_BYTES;
		g->raw_cap = GEN_RAW_CHUNK_BYTES;
		break;
	case SURAND_FMT_HEX:
		g->chunk_units = GEN_HEX_CHUNK_BYTES;
		g->raw_cap = GEN_HEX_CHUNK_BYTES;
		g->out_cap = 2 * GEN_HEX_CHUNK_BYTES + 1;
		break;
	case SURAND_FMT_BASE64:
		g->chunk_units = (uint64_t)GEN_B64_CHUNK_LINES * SURAND_B64_LINE_BYTES;
		g->raw_cap = (size_t)g->chunk_units;
		g->out_cap = surand_base64_len((size_t)g->chunk_units);
		break;
	case SURAND_FMT_UUID:
		g->chunk_units = GEN_UUID_CHUNK_COUNT;
		g->raw_cap = 16 * GEN_UUID_CHUNK_COUNT;
		g->out_cap = SURAND_UUID_LINE * GEN_UUID_CHUNK_COUNT;
		break;
	}
	if (g->total_units == SURAND_SIZE_INF)
		g->nchunks = UINT64_MAX;
	else
		g->nchunks = g->total_units / g->chunk_units + (g->total_units % g->chunk_units != 0);
	return 0;
}

int surand_cmd_gen(int argc, char **argv)
{
	struct gen_args a;
	struct gen g;
	int fd = STDOUT_FILENO, own_fd = 0, rc;

	memset(&g, 0, sizeof(g));
	rc = read_gen_args(argc, argv, &a);
	if (rc == GEN_ARGS_HELP) {
		surand_usage(stdout);
		return SURAND_EX_OK; /* the caller checks that it reached stdout */
	}
	if (rc == GEN_ARGS_VERSION) {
		printf("surand %s\n", SURAND_VERSION_STRING);
		return SURAND_EX_OK;
	}
	if (rc != 0 || (rc = plan_gen(&a, &g)) != 0)
		return rc;
	/* fewer workers than chunks would only cost memory */
	if (a.nthreads > g.nchunks)
		a.nthreads = g.nchunks ? g.nchunks : 1;
	if (a.out_path && strcmp(a.out_path, "-") != 0) {
		/* mode 0600: random output is often key material */
		fd = open(a.out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY, 0600);
		if (fd < 0) {
			fprintf(stderr, "surand: cannot open '%s' for writing: %s\n", a.out_path,
				strerror(errno));
			return SURAND_EX_IOERR;
		}
		own_fd = 1;
	}
	rc = gen_run(&g, (unsigned)a.nthreads, fd, own_fd ? a.out_path : "standard output", a.pmode);
	if (own_fd && close(fd) < 0 && rc == SURAND_EX_OK) {
		fprintf(stderr, "surand: write to '%s': %s\n", a.out_path, strerror(errno));
		rc = SURAND_EX_IOERR;
	}
	return rc;
}
