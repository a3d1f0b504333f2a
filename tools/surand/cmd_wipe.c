/*
 * cmd_wipe.c - `surand wipe PATH... [--passes N] [--verify] [--zero]
 * [--remove] [--yes] [--progress]`: overwrites regular files or block devices
 * in place with random bytes, one path after the other (a failed path does
 * not stop the others; the exit status is the first failure's).
 *
 * Passes 1 .. N-1 write surand_bytes() output; the last pass writes a
 * reproducible stream (surand_stream_*) keyed by a fresh random seed, so that
 * --verify can re-read the whole target and compare it with the same stream
 * without keeping a copy.  Every pass ends with fsync(), so each pass reaches
 * the device (without it the page cache would keep only the last).  Block
 * devices are opened with O_EXCL: the kernel refuses a mounted or otherwise
 * busy device (EBUSY).  --zero adds a last pass of zeros (as shred -z; with
 * --verify the random pass is checked before it and the zeros after it);
 * --remove unlinks a regular file once wiped (a symbolic link is followed for
 * the wipe, and only the link is removed, as shred -u).  A block device is wiped only
 * after a "y" (Y, yes) on standard input when that is a terminal, unless --yes.  Each
 * wiped path gets one closing line on stdout:
 *   'PATH': wiped 64.00 MiB, 3 passes, verified, zeroed, removed
 * SPDX-License-Identifier: MIT
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "parse.h"
#include "progress.h"
#include "surand.h"
#include "verify.h"

#define WIPE_CHUNK_BYTES (1u << 20)
#define WIPE_MAX_PASSES 100
/* Stream id of the last pass ("wipe" in ASCII); the seed is what makes it unique. */
#define WIPE_STREAM_ID UINT64_C(0x65706977)

struct wipe_job {
	const char *path;
	int fd;
	int is_blk;
	uint64_t size;
	unsigned passes;
	int verify;
	int zero;
	enum surand_progress_mode pmode;
};

static int pwrite_all(int fd, const uint8_t *p, size_t len, uint64_t off)
{
	while (len > 0) {
		ssize_t w = pwrite(fd, p, len, (off_t)off);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (w == 0) {
			errno = ENOSPC;
			return -1;
		}
		p += w;
		len -= (size_t)w;
		off += (uint64_t)w;
	}
	return 0;
}

/* Reads up to len bytes at off; returns the count (short only at end of file) or -1. */
static ssize_t pread_all(int fd, uint8_t *p, size_t len, uint64_t off)
{
	size_t got = 0;

	while (got < len) {
		ssize_t r = pread(fd, p + got, len - got, (off_t)(off + got));

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

/* The --zero pass: zeros over the whole target, fsync, and with --verify read back. */
static int zero_pass(struct wipe_job *j, uint8_t *buf, uint8_t *scratch)
{
	struct surand_progress prog;
	uint64_t off;

	memset(&prog, 0, sizeof(prog));
	memset(buf, 0, WIPE_CHUNK_BYTES);
	surand_progress_start(&prog, j->pmode, "wipe zeros", j->size);
	for (off = 0; off < j->size; off += WIPE_CHUNK_BYTES) {
		size_t n = j->size - off < WIPE_CHUNK_BYTES ? (size_t)(j->size - off) : WIPE_CHUNK_BYTES;

		if (pwrite_all(j->fd, buf, n, off) < 0) {
			surand_progress_end(&prog, off);
			fprintf(stderr, "surand: wipe: write zeros to '%s' at byte %llu: %s\n", j->path,
				(unsigned long long)off, strerror(errno));
			return SURAND_EX_IOERR;
		}
		surand_progress_update(&prog, off + n);
	}
	surand_progress_end(&prog, j->size);
	if (fsync(j->fd) < 0) {
		fprintf(stderr, "surand: wipe: fsync '%s': %s\n", j->path, strerror(errno));
		return SURAND_EX_IOERR;
	}
	if (!j->verify || !scratch)
		return SURAND_EX_OK;
	(void)posix_fadvise(j->fd, 0, 0, POSIX_FADV_DONTNEED);
	if (j->is_blk)
		(void)ioctl(j->fd, BLKFLSBUF, 0);
	for (off = 0; off < j->size; off += WIPE_CHUNK_BYTES) {
		size_t n = j->size - off < WIPE_CHUNK_BYTES ? (size_t)(j->size - off) : WIPE_CHUNK_BYTES;
		ssize_t r = pread_all(j->fd, scratch, n, off);

		if (r < 0 || (size_t)r < n || memcmp(scratch, buf, n) != 0) {
			fprintf(stderr, "surand: wipe: verify failed: '%s' is not all zeros near byte "
					"%llu\n", j->path, (unsigned long long)off);
			return r < 0 ? SURAND_EX_IOERR : SURAND_EX_FAIL;
		}
	}
	return SURAND_EX_OK;
}

/* The random passes: surand_bytes for all but the last, whose bytes come
 * from the stream st (sequential from offset 0, so verify can recompute
 * them); each pass synced before the next.  An exit status. */
static int random_passes(struct wipe_job *j, struct surand_stream *st, uint8_t *buf,
			 struct surand_progress *prog)
{
	char label[40];

	for (unsigned pass = 1; pass <= j->passes; pass++) {
		snprintf(label, sizeof(label), "wipe pass %u/%u", pass, j->passes);
		surand_progress_start(prog, j->pmode, label, j->size);
		for (uint64_t off = 0; off < j->size; off += WIPE_CHUNK_BYTES) {
			size_t n = j->size - off < WIPE_CHUNK_BYTES ? (size_t)(j->size - off)
								    : WIPE_CHUNK_BYTES;

			if (pass < j->passes)
				surand_bytes(buf, n);
			else
				surand_stream_bytes(st, buf, n); /* sequential from offset 0 */
			if (pwrite_all(j->fd, buf, n, off) < 0) {
				surand_progress_end(prog, off);
				fprintf(stderr, "surand: wipe: write to '%s' at byte %llu: %s\n", j->path,
					(unsigned long long)off, strerror(errno));
				return SURAND_EX_IOERR;
			}
			surand_progress_update(prog, off + n);
		}
		surand_progress_end(prog, j->size);
		/* each pass must reach the device before the next overwrites it in the cache */
		if (fsync(j->fd) < 0) {
			fprintf(stderr, "surand: wipe: fsync '%s': %s\n", j->path, strerror(errno));
			return SURAND_EX_IOERR;
		}
	}
	return SURAND_EX_OK;
}

/* Reads the target back and compares it with the last pass, recomputed
 * from the stream st (a copy at offset 0).  An exit status. */
static int verify_pass(struct wipe_job *j, struct surand_stream *st, uint8_t *buf,
		       uint8_t *scratch, struct surand_progress *prog)
{
	surand_progress_start(prog, j->pmode, "wipe verify", j->size);
	/* read back from the device, not from the page cache we just wrote (best effort) */
	(void)posix_fadvise(j->fd, 0, 0, POSIX_FADV_DONTNEED);
	if (j->is_blk)
		(void)ioctl(j->fd, BLKFLSBUF, 0);
	for (uint64_t off = 0; off < j->size; off += WIPE_CHUNK_BYTES) {
		size_t n = j->size - off < WIPE_CHUNK_BYTES ? (size_t)(j->size - off)
							    : WIPE_CHUNK_BYTES;
		uint64_t bad = 0;
		ssize_t r = pread_all(j->fd, buf, n, off);

		if (r < 0) {
			surand_progress_end(prog, off);
			fprintf(stderr, "surand: wipe: read back '%s' at byte %llu: %s\n", j->path,
				(unsigned long long)off, strerror(errno));
			return SURAND_EX_IOERR;
		}
		if ((size_t)r < n) {
			surand_progress_end(prog, off + (uint64_t)r);
			fprintf(stderr, "surand: wipe: verify failed: '%s' ends at byte %llu, "
					"not %llu\n", j->path, /* NOLINTNEXTLINE(bugprone-misplaced-widening-cast): a 64-bit sum printed as %llu */
					(unsigned long long)(off + (uint64_t)r),
				(unsigned long long)j->size);
			return SURAND_EX_FAIL;
		}
		if (surand_verify_range(st, off, buf, n, scratch, &bad) != 0) {
			surand_progress_end(prog, off);
			fprintf(stderr, "surand: wipe: verify failed: '%s' differs from what was "
					"written at byte %llu\n", j->path, (unsigned long long)bad);
			return SURAND_EX_FAIL;
		}
		surand_progress_update(prog, off + n);
	}
	surand_progress_end(prog, j->size);
	return SURAND_EX_OK;
}

static int wipe_run(struct wipe_job *j)
{
	struct surand_progress prog;
	struct surand_stream st;
	uint8_t seed[32], *buf = NULL, *scratch = NULL;
	int rc;

	memset(&prog, 0, sizeof(prog));
	if (posix_memalign((void **)&buf, 4096, WIPE_CHUNK_BYTES) != 0 ||
	    (j->verify && posix_memalign((void **)&scratch, 4096, WIPE_CHUNK_BYTES) != 0)) {
		fprintf(stderr, "surand: wipe: out of memory\n");
		free(buf);
		return SURAND_EX_FAIL;
	}
	/* a fresh key per run: nothing on the target can predict what the last pass writes */
	surand_bytes(seed, sizeof(seed));
	surand_stream_init(&st, seed, WIPE_STREAM_ID);
	explicit_bzero(seed, sizeof(seed));
	rc = random_passes(j, &st, buf, &prog);
	if (rc == SURAND_EX_OK && j->verify)
		rc = verify_pass(j, &st, buf, scratch, &prog);
	if (rc == SURAND_EX_OK && j->zero)
		rc = zero_pass(j, buf, scratch);
	surand_stream_wipe(&st);
	explicit_bzero(buf, WIPE_CHUNK_BYTES);
	free(buf);
	if (scratch) {
		explicit_bzero(scratch, WIPE_CHUNK_BYTES);
		free(scratch);
	}
	return rc;
}

static const char wipe_usage[] =
	"usage: surand wipe PATH... [--passes N] [--verify] [--zero] [--remove] [--yes] [--progress]\n"
	"Overwrites each regular file or block device in place with random bytes, with\n"
	"fsync after every pass, and prints one closing line per path on stdout.\n"
	"  --passes N    random passes (1 to 100, default 1)\n"
	"  --verify      read the target back and compare with the last random pass\n"
	"                (and, with --zero, the zeros)\n"
	"  --zero        end with a pass of zeros (as shred -z)\n"
	"  --remove      unlink a regular file once wiped (not a block device; for a\n"
	"                symbolic link, the link: its target is wiped and stays)\n"
	"  --yes         no question before a block device (asked only when standard\n"
	"                input is a terminal)\n"
	"  --progress    show progress on stderr (default: when it is a terminal)\n"
	"Exit status: 0 ok, 1 verify failed or a device declined, 64 usage error, 74 I/O\n"
	"error; with several paths, the first failure's.\n";

struct wipe_opts {
	unsigned passes;
	int verify, zero, remove, yes;
	enum surand_progress_mode pmode;
};

/* Asks on stderr, answers from stdin (a terminal): 1 for y, Y or yes (surand(1)). */
static int confirm_device(const char *path, uint64_t size)
{
	char line[16];

	fprintf(stderr, "surand: wipe: overwrite every byte of block device '%s' (%llu bytes)? "
			"[y/N] ", path, (unsigned long long)size);
	fflush(stderr);
	if (!fgets(line, sizeof(line), stdin))
		return 0;
	return strcmp(line, "y\n") == 0 || strcmp(line, "yes\n") == 0 || strcmp(line, "Y\n") == 0;
}

/* One path: open, check, wipe, close, maybe unlink; the closing line.  An exit status. */
static int wipe_path(const char *path, const struct wipe_opts *o)
{
	struct wipe_job j;
	struct stat st, fst, lst;
	int flags, rc, is_link;
	char size[32], target[PATH_MAX];

	memset(&j, 0, sizeof(j));
	j.path = path;
	j.passes = o->passes;
	j.verify = o->verify;
	j.zero = o->zero;
	j.pmode = o->pmode;
	if (stat(j.path, &st) < 0) {
		fprintf(stderr, "surand: wipe: cannot open '%s': %s\n", j.path, strerror(errno));
		return SURAND_EX_IOERR;
	}
	/* a symbolic link is followed: its target is wiped, and --remove unlinks
	 * only the link (as shred -u); the closing line names both */
	is_link = lstat(j.path, &lst) == 0 && S_ISLNK(lst.st_mode);
	if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)) {
		fprintf(stderr, "surand: wipe: '%s' is not a regular file or block device\n", j.path);
		return SURAND_EX_USAGE;
	}
	j.is_blk = S_ISBLK(st.st_mode);
	if (j.is_blk && o->remove) {
		fprintf(stderr, "surand: wipe: --remove: '%s' is a block device, not removed nor "
				"wiped\n", j.path);
		return SURAND_EX_USAGE;
	}
	flags = O_RDWR | O_CLOEXEC | O_NOCTTY;
	if (j.is_blk)
		flags |= O_EXCL; /* the kernel refuses a mounted or busy device (EBUSY) */
	j.fd = open(j.path, flags);
	if (j.fd < 0) {
		int e = errno;

		fprintf(stderr, "surand: wipe: cannot open '%s': %s%s\n", j.path, strerror(e),
			e == EBUSY ? " (mounted or in use?)" : "");
		return SURAND_EX_IOERR;
	}
	/* what was opened must be what was checked (no swap between stat and open) */
	if (fstat(j.fd, &fst) < 0 || (fst.st_mode & S_IFMT) != (st.st_mode & S_IFMT) ||
	    fst.st_dev != st.st_dev || fst.st_ino != st.st_ino) {
		fprintf(stderr, "surand: wipe: '%s' changed while being opened\n", j.path);
		close(j.fd);
		return SURAND_EX_IOERR;
	}
	if (j.is_blk) {
		uint64_t bytes = 0;

		if (ioctl(j.fd, BLKGETSIZE64, &bytes) < 0) {
			fprintf(stderr, "surand: wipe: size of '%s' (BLKGETSIZE64): %s\n", j.path,
				strerror(errno));
			close(j.fd);
			return SURAND_EX_IOERR;
		}
		j.size = bytes;
		/* a whole device is one typo away from the wrong one: ask a person first */
		if (!o->yes && isatty(STDIN_FILENO) && !confirm_device(j.path, j.size)) {
			fprintf(stderr, "surand: wipe: '%s' left as it was (not confirmed)\n", j.path);
			close(j.fd);
			return SURAND_EX_FAIL;
		}
	} else {
		j.size = (uint64_t)fst.st_size;
	}
	if (is_link && !realpath(j.path, target))
		snprintf(target, sizeof(target), "the file it points to");
	rc = wipe_run(&j);
	if (close(j.fd) < 0 && rc == SURAND_EX_OK) {
		fprintf(stderr, "surand: wipe: close '%s': %s\n", j.path, strerror(errno));
		rc = SURAND_EX_IOERR;
	}
	if (rc != SURAND_EX_OK)
		return rc;
	if (o->remove && unlink(j.path) < 0) {
		if (is_link)
			fprintf(stderr, "surand: wipe: wiped '%s' through '%s' but cannot remove "
					"the link: %s\n", target, j.path, strerror(errno));
		else
			fprintf(stderr, "surand: wipe: wiped '%s' but cannot remove it: %s\n",
				j.path, strerror(errno));
		return SURAND_EX_IOERR;
	}
	surand_human_bytes(size, sizeof(size), (double)j.size);
	printf("'%s'%s%s%s: wiped %s, %u pass%s%s%s%s\n", j.path, is_link ? " -> '" : "",
	       is_link ? target : "", is_link ? "'" : "", size, j.passes,
	       j.passes == 1 ? "" : "es", j.verify ? ", verified" : "", j.zero ? ", zeroed" : "",
	       !o->remove ? "" : is_link ? ", removed the link" : ", removed");
	return SURAND_EX_OK;
}

int surand_cmd_wipe(int argc, char **argv)
{
	static const struct option opts[] = {
		{"passes", required_argument, NULL, 'p'},
		{"verify", no_argument, NULL, 'v'},
		{"zero", no_argument, NULL, 'z'},
		{"remove", no_argument, NULL, 'r'},
		{"yes", no_argument, NULL, 'y'},
		{"progress", no_argument, NULL, 'P'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct wipe_opts o;
	uint64_t passes = 1;
	int c, rc = SURAND_EX_OK, i;

	memset(&o, 0, sizeof(o));
	o.pmode = SURAND_PROGRESS_AUTO;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":p:h", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (surand_parse_uint(optarg, 1, WIPE_MAX_PASSES, &passes) < 0) {
				fprintf(stderr, "surand: wipe: bad pass count '%s' (1 to %d)\n", optarg,
					WIPE_MAX_PASSES);
				return SURAND_EX_USAGE;
			}
			break;
		case 'v': o.verify = 1; break;
		case 'z': o.zero = 1; break;
		case 'r': o.remove = 1; break;
		case 'y': o.yes = 1; break;
		case 'P': o.pmode = SURAND_PROGRESS_FORCE; break;
		case 'h':
			fputs(wipe_usage, stdout);
			return surand_stdout_status("wipe");
		default:
			surand_opt_error("wipe", c, argv, opts);
			return SURAND_EX_USAGE;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "surand: wipe: no PATH given (see surand wipe --help)\n");
		return SURAND_EX_USAGE;
	}
	o.passes = (unsigned)passes;
	for (i = optind; i < argc; i++) {
		int r = wipe_path(argv[i], &o);

		if (r != SURAND_EX_OK && rc == SURAND_EX_OK)
			rc = r;
	}
	/* the closing lines are the report: a failed stdout is an I/O error */
	if (surand_stdout_status("wipe") != SURAND_EX_OK && rc == SURAND_EX_OK)
		rc = SURAND_EX_IOERR;
	return rc;
}
