/*
 * surandfs.c - a FUSE file system with two read-only files, urandom and
 * random, whose reads come from surand (the 2015 debate's "/dev/frandom", made safe).
 *
 *   surandfs MOUNTPOINT [-f] [-s] [-d] [-o OPTION[,OPTION...]]
 *
 * libfuse3 low-level API, multi-threaded (unless -s).  Each open file handle
 * has its own generator (tools/surandfs/readpath.c): one reader cannot learn
 * another's output.  Files: mode 0444, size 0, direct_io (every read reaches
 * the daemon, nothing is cached).  Opening for writing, O_TRUNC and truncate
 * fail with EACCES, even for root (FUSE passes root's opens to us too: the
 * check is ours, not the kernel's mode bits); changes of the namespace or of
 * metadata (create, mkdir, unlink, rename, chmod, ...) fail with EROFS.
 * Unmounts on SIGINT, SIGTERM, SIGHUP and `fusermount3 -u MOUNTPOINT`.
 * Exit status: 0 after a clean unmount, 1 on a mount or session error (or no
 * /dev/null for a closed fd 0-2), 64 on a usage error (no mount point or not a
 * directory, unknown option).  man/surandfs.8, docs/fuse.md.
 * SPDX-License-Identifier: MIT
 */
/* mk/fuse.mk passes 312 where libfuse has the 3.12 loop configuration API */
#ifndef FUSE_USE_VERSION
#define FUSE_USE_VERSION 34
#endif

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <fuse_lowlevel.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../surand/stdfds.h" /* the command's helper, shared */
#include "readpath.h"
#include "surand.h"

#define SFS_EX_USAGE 64

/* Inodes: the root and the two files. */
enum { SFS_INO_ROOT = FUSE_ROOT_ID, SFS_INO_URANDOM, SFS_INO_RANDOM };

/* The namespace never changes: the kernel may cache names and attributes for long. */
#define SFS_TIMEOUT_S 3600.0
/* st_blksize of the files: cat, cp and stdio read this much per call. */
#define SFS_BLKSIZE (1024 * 1024)
/* The reply buffer of a thread starts at this size (the kernel's largest read, 256 pages). */
#define SFS_BUF_MIN (1024 * 1024)

static struct timespec sfs_mount_time;
static uid_t sfs_uid;
static gid_t sfs_gid;

static const char *sfs_name(fuse_ino_t ino)
{
	switch (ino) {
	case SFS_INO_URANDOM:
		return "urandom";
	case SFS_INO_RANDOM:
		return "random";
	default:
		return NULL;
	}
}

static int sfs_stat(fuse_ino_t ino, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	st->st_uid = sfs_uid;
	st->st_gid = sfs_gid;
	st->st_atim = st->st_mtim = st->st_ctim = sfs_mount_time;
	if (ino == SFS_INO_ROOT) {
		st->st_mode = S_IFDIR | 0555;
		st->st_nlink = 2;
		return 0;
	}
	if (!sfs_name(ino))
		return -ENOENT;
	st->st_mode = S_IFREG | 0444;
	st->st_nlink = 1;
	st->st_size = 0;
	st->st_blksize = SFS_BLKSIZE;
	return 0;
}

/* ---- per-thread reply buffers --------------------------------------------- */

static pthread_key_t sfs_buf_key;
static __thread uint8_t *sfs_buf;
static __thread size_t sfs_buf_cap;

static void sfs_buf_free(void *p)
{
	(void)p;
	if (sfs_buf)
		munmap(sfs_buf, sfs_buf_cap);
	sfs_buf = NULL;
	sfs_buf_cap = 0;
}

/* A buffer of at least size bytes for this thread (kept for its next reads); NULL: ENOMEM. */
static uint8_t *sfs_thread_buf(size_t size)
{
	size_t cap = SFS_BUF_MIN;
	void *p;

	if (sfs_buf && sfs_buf_cap >= size)
		return sfs_buf;
	while (cap < size)
		cap *= 2;
	p = mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	/* delivered output is no key, but no business of a core dump either */
	(void)madvise(p, cap, MADV_DONTDUMP);
	sfs_buf_free(NULL);
	sfs_buf = p;
	sfs_buf_cap = cap;
	(void)pthread_setspecific(sfs_buf_key, p); /* frees it when the worker thread exits */
	return sfs_buf;
}

/* ---- operations --------------------------------------------------------------- */

static void sfs_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct fuse_entry_param e;
	fuse_ino_t ino;

	if (parent != SFS_INO_ROOT) {
		fuse_reply_err(req, ENOTDIR);
		return;
	}
	if (strcmp(name, "urandom") == 0)
		ino = SFS_INO_URANDOM;
	else if (strcmp(name, "random") == 0)
		ino = SFS_INO_RANDOM;
	else {
		fuse_reply_err(req, ENOENT);
		return;
	}
	memset(&e, 0, sizeof(e));
	e.ino = ino;
	e.attr_timeout = SFS_TIMEOUT_S;
	e.entry_timeout = SFS_TIMEOUT_S;
	sfs_stat(ino, &e.attr);
	fuse_reply_entry(req, &e);
}

static void sfs_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct stat st;
	int r = sfs_stat(ino, &st);

	(void)fi;
	if (r)
		fuse_reply_err(req, -r);
	else
		fuse_reply_attr(req, &st, SFS_TIMEOUT_S);
}

static void sfs_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int to_set,
			struct fuse_file_info *fi)
{
	(void)attr;
	(void)fi;
	/* truncate writes the file's data: refused like an open for writing */
	if ((to_set & FUSE_SET_ATTR_SIZE) && ino != SFS_INO_ROOT)
		fuse_reply_err(req, EACCES);
	else
		fuse_reply_err(req, EROFS);
}

static void sfs_access(fuse_req_t req, fuse_ino_t ino, int mask)
{
	if (ino == SFS_INO_ROOT)
		fuse_reply_err(req, (mask & W_OK) ? EROFS : 0);
	else
		fuse_reply_err(req, (mask & (W_OK | X_OK)) ? EACCES : 0);
}

struct sfs_dirbuf {
	char *p;
	size_t size;
};

static int sfs_dirbuf_add(fuse_req_t req, struct sfs_dirbuf *b, const char *name, fuse_ino_t ino)
{
	struct stat st;
	size_t old = b->size, need;
	char *np;

	memset(&st, 0, sizeof(st));
	st.st_ino = ino;
	need = fuse_add_direntry(req, NULL, 0, name, NULL, 0);
	np = realloc(b->p, old + need);
	if (!np)
		return -1;
	b->p = np;
	b->size = old + need;
	fuse_add_direntry(req, b->p + old, need, name, &st, (off_t)b->size);
	return 0;
}

static void sfs_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
			struct fuse_file_info *fi)
{
	struct sfs_dirbuf b = {NULL, 0};

	(void)fi;
	if (ino != SFS_INO_ROOT) {
		fuse_reply_err(req, ENOTDIR);
		return;
	}
	if (sfs_dirbuf_add(req, &b, ".", SFS_INO_ROOT) || sfs_dirbuf_add(req, &b, "..", SFS_INO_ROOT) ||
	    sfs_dirbuf_add(req, &b, "urandom", SFS_INO_URANDOM) ||
	    sfs_dirbuf_add(req, &b, "random", SFS_INO_RANDOM)) {
		free(b.p);
		fuse_reply_err(req, ENOMEM);
		return;
	}
	if (off < 0 || (size_t)off >= b.size)
		fuse_reply_buf(req, NULL, 0);
	else
		fuse_reply_buf(req, b.p + off, b.size - (size_t)off < size ? b.size - (size_t)off : size);
	free(b.p);
}

static void sfs_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct surandfs_handle *h;

	if (!sfs_name(ino)) {
		fuse_reply_err(req, ino == SFS_INO_ROOT ? EISDIR : ENOENT);
		return;
	}
	/* read-only files, for root too: the kernel leaves this check to us */
	if ((fi->flags & O_ACCMODE) != O_RDONLY || (fi->flags & O_TRUNC)) {
		fuse_reply_err(req, EACCES);
		return;
	}
	h = surandfs_handle_new(); /* its own key and lock */
	if (!h) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	fi->fh = (uint64_t)(uintptr_t)h;
	fi->direct_io = 1;  /* no page cache: every read is fresh bytes */
	fi->keep_cache = 0;
	if (fuse_reply_open(req, fi) != 0)
		surandfs_handle_free(h); /* the open was interrupted: no release will come */
}

static void sfs_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		     struct fuse_file_info *fi)
{
	struct surandfs_handle *h = (struct surandfs_handle *)(uintptr_t)fi->fh;
	uint8_t *buf;
	ssize_t n;

	(void)ino;
	buf = sfs_thread_buf(size);
	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	n = surandfs_read_fill(h, buf, sfs_buf_cap, size, (int64_t)off);
	if (n < 0)
		fuse_reply_err(req, (int)-n);
	else
		fuse_reply_buf(req, (const char *)buf, (size_t)n);
}

static void sfs_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)ino;
	surandfs_handle_free((struct surandfs_handle *)(uintptr_t)fi->fh);
	fuse_reply_err(req, 0);
}

static void sfs_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size, off_t off,
		      struct fuse_file_info *fi)
{
	(void)ino;
	(void)buf;
	(void)size;
	(void)off;
	(void)fi;
	fuse_reply_err(req, EBADF); /* no handle is ever open for writing */
}

static void sfs_erofs_entry(fuse_req_t req)
{
	fuse_reply_err(req, EROFS);
}

static void sfs_mknod(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode, dev_t rdev)
{
	(void)parent;
	(void)name;
	(void)mode;
	(void)rdev;
	sfs_erofs_entry(req);
}

static void sfs_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode)
{
	(void)parent;
	(void)name;
	(void)mode;
	sfs_erofs_entry(req);
}

static void sfs_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	(void)parent;
	(void)name;
	sfs_erofs_entry(req);
}

static void sfs_symlink(fuse_req_t req, const char *link, fuse_ino_t parent, const char *name)
{
	(void)link;
	(void)parent;
	(void)name;
	sfs_erofs_entry(req);
}

static void sfs_rename(fuse_req_t req, fuse_ino_t parent, const char *name, fuse_ino_t newparent,
		       const char *newname, unsigned int flags)
{
	(void)parent;
	(void)name;
	(void)newparent;
	(void)newname;
	(void)flags;
	sfs_erofs_entry(req);
}

static void sfs_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent, const char *newname)
{
	(void)ino;
	(void)newparent;
	(void)newname;
	sfs_erofs_entry(req);
}

static void sfs_create(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
		       struct fuse_file_info *fi)
{
	(void)parent;
	(void)name;
	(void)mode;
	(void)fi;
	sfs_erofs_entry(req);
}

static void sfs_setxattr(fuse_req_t req, fuse_ino_t ino, const char *name, const char *value,
			 size_t size, int flags)
{
	(void)ino;
	(void)name;
	(void)value;
	(void)size;
	(void)flags;
	sfs_erofs_entry(req);
}

static void sfs_removexattr(fuse_req_t req, fuse_ino_t ino, const char *name)
{
	(void)ino;
	(void)name;
	sfs_erofs_entry(req);
}

static void sfs_fallocate(fuse_req_t req, fuse_ino_t ino, int mode, off_t offset, off_t length,
			  struct fuse_file_info *fi)
{
	(void)ino;
	(void)mode;
	(void)offset;
	(void)length;
	(void)fi;
	fuse_reply_err(req, EBADF);
}

static void sfs_init(void *userdata, struct fuse_conn_info *conn)
{
	(void)userdata;
	/* large reads in one request, several requests of one read in flight */
	if (conn->capable & FUSE_CAP_ASYNC_DIO)
		conn->want |= FUSE_CAP_ASYNC_DIO;
	conn->want &= ~(unsigned)FUSE_CAP_ATOMIC_O_TRUNC; /* O_TRUNC then reaches setattr: EACCES */
}

static const struct fuse_lowlevel_ops sfs_ops = {
	.init = sfs_init,
	.lookup = sfs_lookup,
	.getattr = sfs_getattr,
	.setattr = sfs_setattr,
	.access = sfs_access,
	.readdir = sfs_readdir,
	.open = sfs_open,
	.read = sfs_read,
	.write = sfs_write,
	.release = sfs_release,
	.mknod = sfs_mknod,
	.mkdir = sfs_mkdir,
	.unlink = sfs_unlink,
	.rmdir = sfs_unlink,
	.symlink = sfs_symlink,
	.rename = sfs_rename,
	.link = sfs_link,
	.create = sfs_create,
	.setxattr = sfs_setxattr,
	.removexattr = sfs_removexattr,
	.fallocate = sfs_fallocate,
};

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"usage: %s MOUNTPOINT [-f] [-s] [-d] [-o OPTION[,OPTION...]]\n"
		"Serves read-only files MOUNTPOINT/urandom and MOUNTPOINT/random from surand.\n"
		"  -f  stay in the foreground    -s  one thread    -d  FUSE debug output\n"
		"  -o allow_other  let every user read (as root, or with user_allow_other)\n"
		"Unmount: fusermount3 -u MOUNTPOINT, or SIGINT/SIGTERM.  man surandfs.\n",
		prog);
}

/* The request loop until unmount or a signal: one thread, or libfuse's
 * worker pool sized by the -o options.  libfuse's result. */
static int serve(struct fuse_session *se, const struct fuse_cmdline_opts *opts)
{
	int ret;

	if (opts->singlethread)
		return fuse_session_loop(se);
#if FUSE_USE_VERSION >= 312
	struct fuse_loop_config *cfg = fuse_loop_cfg_create();

	if (!cfg) {
		fprintf(stderr, "surandfs: out of memory\n");
		return -ENOMEM;
	}
	fuse_loop_cfg_set_clone_fd(cfg, (unsigned)opts->clone_fd);
	/* UINT_MAX is libfuse's "not given" */
	if (opts->max_idle_threads && opts->max_idle_threads != UINT_MAX)
		fuse_loop_cfg_set_idle_threads(cfg, opts->max_idle_threads);
	if (opts->max_threads)
		fuse_loop_cfg_set_max_threads(cfg, opts->max_threads);
	ret = fuse_session_loop_mt(se, cfg);
	fuse_loop_cfg_destroy(cfg);
#else
	struct fuse_loop_config cfg;

	memset(&cfg, 0, sizeof(cfg));
	cfg.clone_fd = opts->clone_fd;
	cfg.max_idle_threads = opts->max_idle_threads && opts->max_idle_threads != UINT_MAX
				       ? opts->max_idle_threads : 10;
	ret = fuse_session_loop_mt(se, &cfg);
#endif
	return ret;
}

/*
 * The kernel mounts a file system over a regular file too, and libfuse lets
 * it: a mount point that exists and is not a directory is a usage error
 * (one that does not exist is refused by fuse_parse_cmdline).  An error of
 * stat(2) itself, such as ENOTCONN on a stale FUSE mount, is left to libfuse.
 * 1 when it may be mounted; 0 with the message printed.
 */
static int sfs_mountpoint_is_dir(const char *path)
{
	struct stat st;

	if (stat(path, &st) != 0 || S_ISDIR(st.st_mode))
		return 1;
	fprintf(stderr, "surandfs: mount point '%s' is not a directory\n", path);
	return 0;
}

int main(int argc, char **argv)
{
	struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
	struct fuse_cmdline_opts opts;
	struct fuse_session *se;
	int ret = 1;

	/* before any open(2): a closed 0-2 must not become /dev/fuse or a log */
	if (surand_stdfds_reserve() != 0) {
		fprintf(stderr, "surandfs: cannot open /dev/null: %s\n", strerror(errno));
		return 1;
	}
	memset(&opts, 0, sizeof(opts));
	if (fuse_parse_cmdline(&args, &opts) != 0) {
		usage(stderr, argv[0]);
		fuse_opt_free_args(&args);
		return SFS_EX_USAGE;
	}
	if (opts.show_help) {
		usage(stdout, argv[0]);
		printf("\nFUSE options:\n");
		fuse_cmdline_help();
		fuse_lowlevel_help();
		ret = 0;
		goto out_args;
	}
	if (opts.show_version) {
		printf("surandfs %s (libsurand %s)\n", SURAND_VERSION_STRING, SURAND_VERSION_STRING);
		fuse_lowlevel_version();
		ret = 0;
		goto out_args;
	}
	if (!opts.mountpoint) {
		fprintf(stderr, "surandfs: no mount point given\n");
		usage(stderr, argv[0]);
		ret = SFS_EX_USAGE;
		goto out_args;
	}
	if (!sfs_mountpoint_is_dir(opts.mountpoint)) {
		ret = SFS_EX_USAGE;
		goto out_args;
	}
	if (fuse_opt_add_arg(&args, "-ofsname=surandfs") != 0 ||
	    pthread_key_create(&sfs_buf_key, sfs_buf_free) != 0) {
		fprintf(stderr, "surandfs: out of memory\n");
		goto out_args;
	}
	clock_gettime(CLOCK_REALTIME, &sfs_mount_time);
	sfs_uid = getuid();
	sfs_gid = getgid();

	se = fuse_session_new(&args, &sfs_ops, sizeof(sfs_ops), NULL);
	if (!se) { /* libfuse said why: an unknown -o option (or no memory) */
		ret = SFS_EX_USAGE;
		goto out_args;
	}
	/*
	 * SIGINT and SIGTERM always unmount, even when inherited as ignored (a
	 * shell's background job ignores SIGINT); libfuse only takes over
	 * signals that are at their default.  SIGHUP keeps an inherited SIG_IGN
	 * (nohup).
	 */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	if (fuse_set_signal_handlers(se) != 0)
		goto out_session;
	if (fuse_session_mount(se, opts.mountpoint) != 0)
		goto out_signals;
	fuse_daemonize(opts.foreground);
	/* waits for the kernel's CRNG once, before the first reader does */
	(void)surand_u64();
	ret = serve(se, &opts);
	/* a signal's number or an error: both end in an unmount; only errors are failures */
	ret = ret < 0 ? 1 : 0;
	fuse_session_unmount(se);
out_signals:
	fuse_remove_signal_handlers(se);
out_session:
	fuse_session_destroy(se);
out_args:
	free(opts.mountpoint);
	fuse_opt_free_args(&args);
	return ret;
}
