/*
 * test_hygiene.c - where secrets are, and where they must never be, for every
 * backend.  Each case runs in a fresh process per backend.
 *
 *   returned bytes     after a call of 16, 100, 4096 and 70,000 bytes, no
 *                      16-byte window of what it returned is anywhere in the
 *                      process's writable memory (heap, stack, data, every
 *                      anonymous and state mapping) but the caller's buffer;
 *                      asserted for backends that declare per-call
 *                      backtracking protection, reported for the others.
 *   keys in place      the base key and the thread key (test hooks) are found
 *                      in memory only in mappings whose VmFlags in
 *                      /proc/self/smaps hold dd (no dump) and wf or dp (wiped
 *                      on fork / droppable), and nowhere else; every mapping
 *                      the library's first use created is listed, with flags.
 *   core dump          a child that drew aborts with RLIMIT_CORE unlimited
 *                      (or, where core_pattern pipes to a handler, is dumped
 *                      live with gdb's gcore): the core holds none of the keys
 *                      and none of 256 windows sampled from the state pages,
 *                      while a control secret placed in ordinary memory IS
 *                      found (the dump and the search work).
 *   output holds no    with SURAND_DEBUG=1, after draws, reseeds, forks and
 *   state              threads, neither stderr nor the surand_stats struct
 *                      holds any 8-byte window of a key or of the state
 *                      pages, raw or in hex.
 * The key-regeneration check (a copy of the state regenerates none of the
 * returned bytes) is test_backends.c's backtrack_per_call, for every backend
 * declaring SURAND_BP_BACKTRACK_PER_CALL (through surand_test_snapshot);
 * this file adds what a snapshot cannot show: no copy of the output left
 * anywhere else in the process.
 * SPDX-License-Identifier: MIT
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "gen/backend.h"
#include "internal.h"
#include "reliability.h"
#include "test_hooks.h"
#include "vregs.h"

#define NO_SAN __attribute__((no_sanitize_address, no_sanitize("thread", "undefined")))

/* ==== mappings ================================================================ */

struct map {
	uintptr_t s, e;
	char perms[8];
	char name[128];
	char flags[160];
};

#define MAX_MAPS 2048
static struct map maps[MAX_MAPS];

static int read_smaps(struct map *m, int cap)
{
	char line[512];
	int n = -1;
	FILE *f = fopen("/proc/self/smaps", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		uintptr_t a, b;
		char perms[8] = "", name[128] = "";
		int off = 0;

		if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %n", &a, &b, perms, &off) >= 3 &&
		    line[0] != ' ' && strchr(line, '-') < strchr(line, ' ') && strncmp(line, "VmFlags", 7)) {
			if (n + 1 >= cap)
				break;
			n++;
			m[n].s = a;
			m[n].e = b;
			snprintf(m[n].perms, sizeof(m[n].perms), "%s", perms);
			if (off > 0)
				sscanf(line + off, "%127[^\n]", name);
			snprintf(m[n].name, sizeof(m[n].name), "%s", name);
			m[n].flags[0] = 0;
		} else if (n >= 0 && strncmp(line, "VmFlags:", 8) == 0) {
			snprintf(m[n].flags, sizeof(m[n].flags), "%.150s", line + 8);
		}
	}
	fclose(f);
	return n + 1;
}

static int has_flag(const struct map *m, const char *fl)
{
	char want[8];
	const char *p = m->flags;

	snprintf(want, sizeof(want), " %s", fl);
	while ((p = strstr(p, want)) != NULL) {
		char c = p[strlen(want)];
		if (c == ' ' || c == '\n' || c == 0)
			return 1;
		p++;
	}
	return 0;
}

static int secret_flags(const struct map *m)
{
	return has_flag(m, "dd") && (has_flag(m, "wf") || has_flag(m, "dp"));
}

/* Writable memory worth scanning: not the vDSO's pages, not huge reservations
 * (sanitizer shadow), readable. */
static int scannable(const struct map *m)
{
	return m->perms[0] == 'r' && m->perms[1] == 'w' && m->e - m->s <= (256u << 20) &&
	       strcmp(m->name, "[vvar]") && strcmp(m->name, "[vvar_vclock]") &&
	       strcmp(m->name, "[vsyscall]") && strcmp(m->name, "[vdso]");
}

/* ==== a needle set and a scanner ================================================ */

#define NEEDLE 16
#define MAX_NEEDLES 4096
#define HBITS 14
static uint8_t needles[MAX_NEEDLES][NEEDLE];
static int32_t htab[1 << HBITS];
static int nneedles;

struct range {
	uintptr_t s, e;
};
static struct range excl[16];
static int nexcl;

static void exclude(const void *p, size_t n)
{
	if (nexcl < 16) {
		excl[nexcl].s = (uintptr_t)p;
		excl[nexcl].e = (uintptr_t)p + n;
		nexcl++;
	}
}

static uint32_t hkey(uint64_t v)
{
	return (uint32_t)((v * 0x9e3779b97f4a7c15ull) >> (64 - HBITS));
}

static void needles_reset(void)
{
	nneedles = 0;
	memset(htab, 0xff, sizeof(htab));
}

static void needle_add(const uint8_t *p)
{
	uint64_t v;
	uint32_t h;

	if (nneedles >= MAX_NEEDLES)
		return;
	memcpy(&v, p, 8);
	if (v == 0)
		return; /* zero windows are everywhere */
	memcpy(needles[nneedles], p, NEEDLE);
	for (h = hkey(v); htab[h] >= 0; h = (h + 1) & ((1 << HBITS) - 1))
		;
	htab[h] = nneedles++;
}

/* The needle at p, or -1. */
static NO_SAN int needle_at(const uint8_t *p)
{
	uint64_t v;
	uint32_t h;

	__builtin_memcpy(&v, p, 8);
	for (h = hkey(v); htab[h] >= 0; h = (h + 1) & ((1 << HBITS) - 1)) {
		int i = htab[h];
		uint64_t w;
		__builtin_memcpy(&w, needles[i], 8);
		if (w == v && __builtin_memcmp(p, needles[i], NEEDLE) == 0)
			return i;
	}
	return -1;
}

static int excluded(uintptr_t a)
{
	for (int i = 0; i < nexcl; i++)
		if (a + NEEDLE > excl[i].s && a < excl[i].e)
			return 1;
	return (a + NEEDLE > (uintptr_t)needles && a < (uintptr_t)needles + sizeof(needles)) ||
	       (a + NEEDLE > (uintptr_t)htab && a < (uintptr_t)htab + sizeof(htab)) ||
	       (a + NEEDLE > (uintptr_t)maps && a < (uintptr_t)maps + sizeof(maps));
}

/* Scans one range; hits are reported through cb(mapping index, address). */
static NO_SAN long scan_range(const struct map *m, int mi, void (*cb)(int, uintptr_t, int))
{
	const uint8_t *p = (const uint8_t *)m->s, *end = (const uint8_t *)m->e - NEEDLE;
	long hits = 0;
	int i;

	for (; p <= end; p++) {
		i = needle_at(p);
		if (i >= 0 && !excluded((uintptr_t)p)) {
			hits++;
			if (cb)
				cb(mi, (uintptr_t)p, i);
		}
	}
	return hits;
}

static long scan_memory(void (*cb)(int, uintptr_t, int))
{
	int n = read_smaps(maps, MAX_MAPS), i;
	long hits = 0;

	for (i = 0; i < n; i++)
		if (scannable(&maps[i]))
			hits += scan_range(&maps[i], i, cb);
	return hits;
}

/* ==== returned bytes are gone ==================================================== */

static const struct surand_backend *backend_by_name(const char *name)
{
	return surand_backend_find(name);
}

static char hit_where[256];
static void note_hit(int mi, uintptr_t a, int needle)
{
	if (!hit_where[0])
		snprintf(hit_where, sizeof(hit_where), "window %d at %#lx in %lx-%lx %s %s(flags:%.60s)",
			 needle, (unsigned long)a, (unsigned long)maps[mi].s, (unsigned long)maps[mi].e,
			 maps[mi].perms, maps[mi].name, maps[mi].flags);
}

static void returned_bytes_child(void)
{
	static const size_t sizes[] = {16, 100, 4096, 70000};
	const struct surand_backend *be;
	uint8_t *out;
	long hits[4] = {0}, total = 0;
	size_t si, off;
	int declared;

	if (rel_select_backend() != 0)
		return;
	be = backend_by_name(rel_backend());
	T_ASSERT(be);
	declared = (be->props & SURAND_BP_BACKTRACK_PER_CALL) != 0;
	out = malloc(70000);
	T_ASSERT(out);
	(void)surand_u64();
	for (si = 0; si < 4; si++) {
		size_t n = sizes[si];

		nexcl = 0;
		exclude(out, 70000);
		surand_bytes(out, n);
		needles_reset();
		for (off = 0; off + NEEDLE <= n; off += n > 4096 ? 256 : NEEDLE)
			needle_add(out + off);
		hit_where[0] = 0;
		hits[si] = scan_memory(note_hit);
		total += hits[si];
		if (hits[si])
			printf("# %s, %zu-byte call: %ld windows of the output still in memory: %s\n",
			       rel_backend(), n, hits[si], hit_where);
	}
	rel_report("returned-bytes-gone",
		   rel_fmt("calls of 16/100/4096/70000 B, every writable mapping scanned: %ld windows "
			   "left%s",
			   total, declared ? "" : " (no per-call backtracking declared: reported only)"),
		   !declared || total == 0, 0, 0, 0);
	if (declared)
		T_ASSERT_MSG(total == 0, "%s declares per-call backtracking protection but returned bytes "
					 "are still in memory (%s)",
			     rel_backend(), hit_where);
	free(out);
}

/* ==== keys only in secret pages ==================================================== */

static uint32_t key_base[8], key_thread[8];
static int have_base, have_thread;
static int key_hits_secret, key_hits_elsewhere;
static char key_elsewhere[256];

static void note_key(int mi, uintptr_t a, int needle)
{
	(void)needle;
	if (secret_flags(&maps[mi])) {
		key_hits_secret++;
	} else {
		key_hits_elsewhere++;
		if (!key_elsewhere[0])
			snprintf(key_elsewhere, sizeof(key_elsewhere), "%#lx in %lx-%lx %s %s (flags:%.60s)",
				 (unsigned long)a, (unsigned long)maps[mi].s, (unsigned long)maps[mi].e,
				 maps[mi].perms, maps[mi].name, maps[mi].flags);
	}
}

/*
 * Where madvise is accepted but not applied (qemu's user-mode emulator, which
 * also writes the guest's core dumps itself), there are no dd/wf pages to
 * find secrets in and no kernel dump that honours MADV_DONTDUMP.  main()
 * probes once, in the parent (so the child's stack is not touched), and
 * tells the children through the environment.
 */
#define ENV_MADVISE_IGNORED "SURAND_TEST_MADVISE_IGNORED"
static int madvise_ignored_skip(void)
{
	if (!getenv(ENV_MADVISE_IGNORED))
		return 0;
	t_skip("MADV_DONTDUMP and MADV_WIPEONFORK are accepted but not honoured here (an "
	       "emulator that ignores madvise and writes its own core dumps): no secret-page "
	       "layout to check", NULL);
	return 1;
}

static void keys_in_place_child(void)
{
	static struct map before[MAX_MAPS];
	int nb, na, i, j, created = 0, created_secret = 0;
	char listing[1024] = "";
	size_t lo = 0;

	if (madvise_ignored_skip())
		return;
	printf("# (stdio set up before the backend's set-up and first call)\n");
	nb = read_smaps(before, MAX_MAPS);
	/* The backend's set-up runs here (before any draw, never inside one). */
	if (rel_select_backend() != 0)
		return;
	(void)surand_u64();
	surand_bytes(key_base, 100); /* a refill or two */
	na = read_smaps(maps, MAX_MAPS);
	/* What the set-up and first use created (new ranges, by start address). */
	for (i = 0; i < na; i++) {
		int old = 0;
		for (j = 0; j < nb && !old; j++)
			old = before[j].s == maps[i].s && before[j].e == maps[i].e;
		if (old || maps[i].name[0])
			continue;
		created++;
		created_secret += secret_flags(&maps[i]);
		if (lo + 100 < sizeof(listing))
			lo += (size_t)snprintf(listing + lo, sizeof(listing) - lo, " [%lu KiB%s%s%s]",
					       (unsigned long)((maps[i].e - maps[i].s) >> 10),
					       has_flag(&maps[i], "dd") ? " dd" : "",
					       has_flag(&maps[i], "wf") ? " wf" : "",
					       has_flag(&maps[i], "dp") ? " dp" : "");
	}
	printf("# %s: anonymous mappings created by the set-up and first use:%s\n", rel_backend(), listing);
	have_base = surand_test_base_key(key_base) == 0;
	have_thread = surand_test_thread_key(key_thread) == 0;
	nexcl = 0;
	exclude(key_base, sizeof(key_base));
	exclude(key_thread, sizeof(key_thread));
	needles_reset();
	if (have_base) {
		needle_add((uint8_t *)key_base);
		needle_add((uint8_t *)key_base + 16);
	}
	if (have_thread) {
		needle_add((uint8_t *)key_thread);
		needle_add((uint8_t *)key_thread + 16);
	}
	key_hits_secret = key_hits_elsewhere = 0;
	key_elsewhere[0] = 0;
	scan_memory(note_key);
	rel_report("keys-in-secret-pages",
		   rel_fmt("%s%s: %d key windows found in dd+wf/dp pages, %d elsewhere; %d new mappings "
			   "(%d with secret flags)",
			   have_base ? "base key" : "no base key", have_thread ? " + thread key" : "",
			   key_hits_secret, key_hits_elsewhere, created, created_secret),
		   key_hits_elsewhere == 0 && (nneedles == 0 || key_hits_secret > 0), 0, 0, 0);
	T_ASSERT_MSG(key_hits_elsewhere == 0, "a key is in memory without dd+wf/dp: %s", key_elsewhere);
	if (nneedles)
		T_ASSERT_MSG(key_hits_secret >= nneedles, "the keys were not found at all (%d of %d)",
			     key_hits_secret, nneedles);
	T_ASSERT_MSG(created_secret > 0, "the set-up and first use created no dd+wf/dp mapping");
	surand_wipe(key_base, sizeof(key_base));
	surand_wipe(key_thread, sizeof(key_thread));
}

/*
 * A window of a state page worth looking for: random-looking (harness.h).
 * Free-list links and counters in the same pages (a pointer and a zero word)
 * are not secrets, and they match program headers and other pointers everywhere.
 */
static int random_looking(const volatile uint8_t *p)
{
	return t_random_looking((const void *)p, NEEDLE);
}

/* ==== core dumps ================================================================= */

#define CORE_SAMPLES 256
#define CONTROL_BYTES 32

/*
 * In the dumped child: the needles go to the parent through the pipe (the
 * kernel's pipe buffer is not in the core), each through a stack block that is
 * wiped; nothing of them stays in ordinary memory.  The control secret stays.
 */
static uint8_t *control_heap;

/* Byte by byte through volatile pointers: no vector register ever holds a
 * needle (the core's register notes would show it: that would be the test's
 * own copy, not the library's). */
static void send_needle(int fd, const void *p)
{
	volatile uint8_t b[NEEDLE];
	const volatile uint8_t *s = (const volatile uint8_t *)p;
	int i;

	for (i = 0; i < NEEDLE; i++)
		b[i] = s[i];
	if (write(fd, (const void *)b, NEEDLE) != NEEDLE)
		_exit(90);
	for (i = 0; i < NEEDLE; i++)
		b[i] = 0;
}

/* The thread slot's header as the test sees it: the batch is all but the last
 * 64 bytes of the slot, then the key, the generation and pos
 * (src/gen/thread.c, section 1). */
struct slot_hdr_view {
	uint32_t key[8];
	uint64_t gen;
	uint32_t pos;
};
static int regs_check;

static __attribute__((noinline)) void test_scrub_registers(void)
{
#if defined(__x86_64__)
	if (__builtin_cpu_supports("avx512f"))
		__asm__ __volatile__("vzeroall\n\t"
				     "vpxord %%zmm16, %%zmm16, %%zmm16\n\t vpxord %%zmm17, %%zmm17, %%zmm17\n\t"
				     "vpxord %%zmm18, %%zmm18, %%zmm18\n\t vpxord %%zmm19, %%zmm19, %%zmm19\n\t"
				     "vpxord %%zmm20, %%zmm20, %%zmm20\n\t vpxord %%zmm21, %%zmm21, %%zmm21\n\t"
				     "vpxord %%zmm22, %%zmm22, %%zmm22\n\t vpxord %%zmm23, %%zmm23, %%zmm23\n\t"
				     "vpxord %%zmm24, %%zmm24, %%zmm24\n\t vpxord %%zmm25, %%zmm25, %%zmm25\n\t"
				     "vpxord %%zmm26, %%zmm26, %%zmm26\n\t vpxord %%zmm27, %%zmm27, %%zmm27\n\t"
				     "vpxord %%zmm28, %%zmm28, %%zmm28\n\t vpxord %%zmm29, %%zmm29, %%zmm29\n\t"
				     "vpxord %%zmm30, %%zmm30, %%zmm30\n\t vpxord %%zmm31, %%zmm31, %%zmm31" ::: "memory");
	else if (__builtin_cpu_supports("avx"))
		__asm__ __volatile__("vzeroall" ::: "memory");
#endif
}

static void core_child_prepare(int fd)
{
	int n, i, sent = 0;
	uint32_t k[8];
	uint8_t big[3000];

	(void)surand_u64();
	surand_bytes(big, sizeof(big));
	surand_bytes(big, 100);
	surand_wipe(big, sizeof(big));
	/* The control: 32 random bytes in ordinary heap memory (kept). */
	control_heap = malloc(4096);
	surand_bytes(control_heap + 1000, CONTROL_BYTES);
	send_needle(fd, control_heap + 1000);
	send_needle(fd, control_heap + 1016);
	if (surand_test_base_key(k) == 0) {
		send_needle(fd, k);
		send_needle(fd, (uint8_t *)k + 16);
		sent += 2;
	}
	if (surand_test_thread_key(k) == 0) {
		send_needle(fd, k);
		send_needle(fd, (uint8_t *)k + 16);
		sent += 2;
	}
	surand_wipe(k, sizeof(k));
	/* Samples of every secret page: nonzero 16-byte windows, 64 apart. */
	n = read_smaps(maps, MAX_MAPS);
	for (i = 0; i < n && sent < CORE_SAMPLES; i++) {
		if (!secret_flags(&maps[i]) || maps[i].perms[0] != 'r')
			continue;
		for (uintptr_t a = maps[i].s; a + NEEDLE <= maps[i].e && sent < CORE_SAMPLES; a += 64) {
			if (!random_looking((const volatile uint8_t *)a))
				continue;
			send_needle(fd, (void *)a);
			sent++;
		}
	}
	/* Last: a refill, then straight to the dump.  What the refill leaves in
	 * vector registers (saved in the core's register notes and in the signal
	 * frame of abort()) is then still there: the new batch and key must not
	 * be.  Only scalar code runs between the refill and abort(). */
	if (regs_check) {
		size_t slot_size = 0;
		volatile uint8_t *slot = surand_test_thread_slot(&slot_size);
		uint32_t batch = (uint32_t)slot_size - 64;
		uint8_t one[4096];

		/* The test's own copies (the key hooks' memcpy) out of the registers
		 * first: what is found afterwards is the library's. */
		test_scrub_registers();
		volatile struct slot_hdr_view *v = (volatile struct slot_hdr_view *)(slot + batch);
		while (v->pos + 16 <= batch)
			surand_bytes(one, 16);
		if (v->pos < batch)
			surand_bytes(one, batch - v->pos);
		surand_bytes(one, 16); /* the refill */
		for (i = 1; i < (int)(batch / 64) && sent < CORE_SAMPLES; i++) {
			if (random_looking(slot + 64 * i)) {
				send_needle(fd, (const void *)(slot + 64 * i));
				sent++;
			}
		}
		send_needle(fd, (const void *)(slot + batch)); /* the next key */
		send_needle(fd, (const void *)(slot + batch + 16));
	}
	close(fd);
}

/* Reads the needles: [0..1] the control, the rest secrets. */
static int read_needles(int fd)
{
	uint8_t b[NEEDLE];
	int got = 0;

	needles_reset();
	while (read(fd, b, NEEDLE) == NEEDLE) {
		needle_add(b);
		got++;
	}
	surand_wipe(b, sizeof(b));
	return got;
}

/* Searches a core file: control windows found, secret windows found. */
static int search_core(const char *path, int *control, int *secret, long *size)
{
	struct stat st;
	uint8_t *buf;
	FILE *f = fopen(path, "rb");
	size_t n, i;

	*control = *secret = 0;
	if (!f)
		return -1;
	if (fstat(fileno(f), &st) != 0 || st.st_size <= 0) {
		fclose(f);
		return -1;
	}
	*size = (long)st.st_size;
	buf = malloc((size_t)st.st_size);
	if (!buf) {
		fclose(f);
		return -1;
	}
	n = fread(buf, 1, (size_t)st.st_size, f);
	fclose(f);
	{
		int seen[MAX_NEEDLES] = {0};
		for (i = 0; i + NEEDLE <= n; i++) {
			int k = needle_at(buf + i);
			if (k >= 0 && !seen[k]) {
				seen[k] = 1;

				if (k < 2)
					(*control)++;
				else
					(*secret)++;
			}
		}
	}
	free(buf);
	return 0;
}

static char core_dir[64];

static void rm_core_dir(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", core_dir);
	(void)!system(cmd);
}

/* Kernel core dump: the child aborts in core_dir. */
static void core_kernel_child(void)
{
	char pattern[256] = "", path[512];
	int fds[2], st, control, secret, nn;
	long size = 0;
	pid_t pid;
	FILE *f;

	if (madvise_ignored_skip())
		return;
	if (rel_select_backend() != 0)
		return;
	f = fopen("/proc/sys/kernel/core_pattern", "r");
	if (f) {
		if (!fgets(pattern, sizeof(pattern), f))
			pattern[0] = 0;
		fclose(f);
	}
	pattern[strcspn(pattern, "\n")] = 0;
	if (pattern[0] == '|' || strchr(pattern, '/')) {
		/* Piped to a handler or written elsewhere: the gcore case covers it. */
		rel_report("core-dump-kernel", rel_fmt("core_pattern '%s': dumped with gcore instead",
						       pattern),
			   1, 0, 0, 0);
		printf("# core_pattern is '%s': the kernel dump is not ours to read; see core_gcore\n",
		       pattern);
		return;
	}
	snprintf(core_dir, sizeof(core_dir), "/tmp/surand-core-XXXXXX");
	T_ASSERT(mkdtemp(core_dir));
	T_ASSERT(pipe(fds) == 0);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct rlimit un = {RLIM_INFINITY, RLIM_INFINITY};
		close(fds[0]);
		if (chdir(core_dir) != 0)
			_exit(91);
		setrlimit(RLIMIT_CORE, &un);
		prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
		regs_check = strcmp(rel_backend(), "thread") == 0;
		core_child_prepare(fds[1]);
		abort();
	}
	close(fds[1]);
	nn = read_needles(fds[0]);
	close(fds[0]);
	waitpid(pid, &st, 0);
	T_ASSERT_MSG(WIFSIGNALED(st) && WCOREDUMP(st), "the child left no core (status 0x%x, "
						       "core_pattern '%s')", st, pattern);
	snprintf(path, sizeof(path), "%s/core", core_dir);
	if (access(path, R_OK) != 0)
		snprintf(path, sizeof(path), "%s/core.%d", core_dir, (int)pid);
	T_ASSERT_MSG(search_core(path, &control, &secret, &size) == 0, "no core file in %s", core_dir);
	rm_core_dir();
	rel_report(rel_fmt("core-dump-kernel-%s", surand_chacha20_impl_name()),
		   rel_fmt("abort() with RLIMIT_CORE unlimited right after a refill (ChaCha20 %s): "
			   "%ld-byte core, control found %d/2, %d of %d key/state windows found",
			   surand_chacha20_impl_name(), size, control, secret, nn - 2),
		   control == 2 && secret == 0, 0, 0, 0);
	T_ASSERT_MSG(control == 2, "the control secret in ordinary memory was not found in the core "
				   "(the search or the dump is broken)");
	T_ASSERT_MSG(nn > 2, "no key or state window to look for");
	T_ASSERT_MSG(secret == 0, "%d key/state windows are in the core dump", secret);
}

/* gdb's gcore on a live child (what a piping core_pattern, or a debugger, sees). */
static void core_gcore_child(void)
{
	char path[512], cmd[768];
	int fds[2], go[2], control, secret, nn, rc;
	long size = 0;
	pid_t pid;
	char c = 0;

	if (madvise_ignored_skip())
		return;
	if (rel_select_backend() != 0)
		return;
	if (system("command -v gcore >/dev/null 2>&1") != 0) {
		t_skip("gcore (gdb) is not installed", "gdb");
		return;
	}
	snprintf(core_dir, sizeof(core_dir), "/tmp/surand-core-XXXXXX");
	T_ASSERT(mkdtemp(core_dir));
	T_ASSERT(pipe(fds) == 0 && pipe(go) == 0);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		close(go[1]);
		prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
		core_child_prepare(fds[1]);
		(void)!read(go[0], &c, 1); /* wait to be dumped */
		_exit(0);
	}
	close(fds[1]);
	close(go[0]);
	nn = read_needles(fds[0]);
	close(fds[0]);
	snprintf(cmd, sizeof(cmd), "gcore -o '%s/gcore' %d >/dev/null 2>&1", core_dir, (int)pid);
	rc = system(cmd);
	(void)!write(go[1], &c, 1);
	close(go[1]);
	waitpid(pid, NULL, 0);
	snprintf(path, sizeof(path), "%s/gcore.%d", core_dir, (int)pid);
	T_ASSERT_MSG(rc == 0 && search_core(path, &control, &secret, &size) == 0,
		     "gcore failed (rc %d)", rc);
	rm_core_dir();
	rel_report("core-dump-gcore",
		   rel_fmt("gdb gcore of a live child: %ld-byte core, control found %d/2, %d of %d "
			   "key/state windows found",
			   size, control, secret, nn - 2),
		   control == 2 && secret == 0, 0, 0, 0);
	T_ASSERT_MSG(control == 2, "the control secret was not found in the gcore dump");
	T_ASSERT_MSG(secret == 0, "%d key/state windows are in the gcore dump (gdb ignores "
				  "MADV_DONTDUMP?)", secret);
}

/* ==== no key in the registers after a reseed ======================================= */

static __attribute__((noinline)) int reseed_then_dump_regs(uint8_t *out)
{
	int r = surand_reseed();

	vregs_dump(out); /* nothing between: the call changes no vector register */
	return r;
}

/* surand_reseed() makes a new base key; what the call leaves in the vector
 * registers (saved in a signal frame, a core's register notes) must not hold
 * any 8 bytes of it. */
static void reseed_leaves_no_key_in_registers(void)
{
	static uint8_t regs[VREG_BYTES];
	uint32_t k[8];
	int rounds, hits = 0;

	if (!vregs_init()) {
		t_skip("no vector register dump for this architecture (x86-64 and aarch64 have one)", NULL);
		return;
	}
	(void)surand_u64(); /* set up, the base key made */
	for (rounds = 0; rounds < 4; rounds++) {
		T_ASSERT_MSG(reseed_then_dump_regs(regs) == 0, "surand_reseed: %s", strerror(errno));
		T_ASSERT_MSG(surand_test_base_key(k) == 0, "no base key after a reseed");
		hits += vregs_hold(regs, k, sizeof(k));
		surand_wipe(k, sizeof(k));
		surand_wipe(regs, sizeof(regs));
	}
	T_ASSERT_MSG(hits == 0, "%d 8-byte windows of the new base key in the vector registers", hits);
}

/* ==== no state in stats or debug output ============================================ */

static void *draw_thread(void *arg)
{
	uint8_t b[64];

	(void)arg;
	surand_bytes(b, sizeof(b));
	(void)surand_reseed();
	surand_bytes(b, sizeof(b));
	return NULL;
}

static int contains_hex(const char *text, size_t n, const uint8_t *w, int upper)
{
	char hex[17];

	for (int i = 0; i < 8; i++)
		snprintf(hex + 2 * i, 3, upper ? "%02X" : "%02x", w[i]);
	return memmem(text, n, hex, 16) != NULL;
}

static void no_state_in_output_child(void)
{
	static uint8_t windows[CORE_SAMPLES + 4][16];
	char errpath[] = "/tmp/surand-debug-XXXXXX";
	struct surand_stats st;
	char *text;
	long tn;
	int fd, saved, nw = 0, raw = 0, hex = 0, n, i;
	uint32_t k[8];
	pthread_t th;
	pid_t pid;
	FILE *f;

	if (madvise_ignored_skip())
		return;
	if (rel_select_backend() != 0)
		return;
	T_ASSERT(getenv("SURAND_DEBUG") && strcmp(getenv("SURAND_DEBUG"), "1") == 0);
	fd = mkstemp(errpath);
	T_ASSERT(fd >= 0);
	fflush(stderr);
	saved = dup(2);
	dup2(fd, 2);
	/* Everything that could talk: draws of all sizes, reseeds, a fork, threads,
	 * an unknown backend name, stats. */
	for (i = 1; i < 5000; i *= 3) {
		uint8_t *b = malloc((size_t)i);
		surand_bytes(b, (size_t)i);
		free(b);
	}
	(void)surand_reseed();
	T_ASSERT(pthread_create(&th, NULL, draw_thread, NULL) == 0);
	pthread_join(th, NULL);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		uint8_t b[32];
		surand_bytes(b, 32);
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	(void)surand_set_backend("no-such-backend");
	T_ASSERT(surand_stats(&st, sizeof(st)) == 0);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	/* What is secret now: the keys and the state pages. */
	if (surand_test_base_key(k) == 0) {
		memcpy(windows[nw++], k, 16);
		memcpy(windows[nw++], (uint8_t *)k + 16, 16);
	}
	if (surand_test_thread_key(k) == 0) {
		memcpy(windows[nw++], k, 16);
		memcpy(windows[nw++], (uint8_t *)k + 16, 16);
	}
	surand_wipe(k, sizeof(k));
	n = read_smaps(maps, MAX_MAPS);
	for (i = 0; i < n && nw < CORE_SAMPLES + 4; i++) {
		if (!secret_flags(&maps[i]))
			continue;
		for (uintptr_t a = maps[i].s; a + 16 <= maps[i].e && nw < CORE_SAMPLES + 4; a += 64)
			if (random_looking((const volatile uint8_t *)a))
				memcpy(windows[nw++], (void *)a, 16);
	}
	f = fdopen(fd, "rb");
	T_ASSERT(f);
	fseek(f, 0, SEEK_END);
	tn = ftell(f);
	fseek(f, 0, SEEK_SET);
	text = malloc((size_t)tn + 1);
	T_ASSERT(text);
	tn = (long)fread(text, 1, (size_t)tn, f);
	text[tn] = 0;
	fclose(f);
	unlink(errpath);
	for (i = 0; i < nw; i++) {
		for (int h = 0; h + 8 <= 16; h += 8) {
			uint64_t half;
			memcpy(&half, windows[i] + h, 8);
			if (half == 0)
				continue; /* zeros are everywhere */
			raw += memmem(text, (size_t)tn, windows[i] + h, 8) != NULL;
			raw += memmem(&st, sizeof(st), windows[i] + h, 8) != NULL;
			hex += contains_hex(text, (size_t)tn, windows[i] + h, 0) +
			       contains_hex(text, (size_t)tn, windows[i] + h, 1);
		}
	}
	rel_report("no-state-in-output",
		   rel_fmt("SURAND_DEBUG=1: %ld bytes of stderr and the stats struct searched for %d "
			   "key/state windows (raw and hex): %d found",
			   tn, nw, raw + hex),
		   raw + hex == 0 && nw > 0, 0, 0, 0);
	T_ASSERT_MSG(nw > 0, "no key or state window to look for");
	T_ASSERT_MSG(raw == 0, "%d key/state windows appear raw in stderr or the stats", raw);
	T_ASSERT_MSG(hex == 0, "%d key/state windows appear in hex on stderr", hex);
	surand_wipe(windows, sizeof(windows));
	free(text);
}

static const struct t_child_case child_cases[] = {
	{"returned_bytes", returned_bytes_child},
	{"keys_in_place", keys_in_place_child},
	{"core_kernel", core_kernel_child},
	{"core_gcore", core_gcore_child},
	{"no_state_in_output", no_state_in_output_child},
	{NULL, NULL},
};

int main(int argc, char **argv)
{
	int checker = REL_ASAN || REL_TSAN || getenv("SURAND_VALGRIND");

	t_init(argc, argv);
	t_child_main(argc, argv, child_cases);
	if (t_madvise_ignored())
		setenv(ENV_MADVISE_IGNORED, "1", 1);
	/* Scanning the whole address space, and core dumps, mean nothing under a
	 * sanitizer's shadow memory or valgrind's: plain builds only. */
	if (checker) {
		printf("# memory scans and core dumps run in the plain build only (%s build)\n",
		       rel_build_tag());
	} else {
		rel_per_backend("returned_bytes", "returned_bytes", "returned-bytes-gone", 60);
		rel_per_backend("keys_in_place", "keys_in_place", "keys-in-secret-pages", 60);
		/* Every ChaCha20 body: each leaves its own registers and spills. */
		static const char *const impls[] = {"portable", "ssse3", "avx2", "avx512", "neon"};
		static char names[5][32];
		for (int i = 0; i < 5; i++) {
			if (!surand_chacha20_impl_by_name(impls[i]))
				continue;
			snprintf(names[i], sizeof(names[i]), "core_kernel_%s", impls[i]);
			setenv("SURAND_CHACHA_IMPL", impls[i], 1);
			rel_per_backend(names[i], "core_kernel", "core-dump-kernel", 60);
		}
		unsetenv("SURAND_CHACHA_IMPL");
		rel_per_backend("core_gcore", "core_gcore", "core-dump-gcore", 120);
	}
	T_RUN(reseed_leaves_no_key_in_registers);
	setenv("SURAND_DEBUG", "1", 1);
	rel_per_backend("no_state_in_output", "no_state_in_output", "no-state-in-output", 60);
	unsetenv("SURAND_DEBUG");
	return t_done();
}
