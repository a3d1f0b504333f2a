/*
 * secmem.c - memory for secrets: wiped in a fork child, never in a core dump,
 * never swapped.
 *
 * Preferred: MAP_DROPPABLE (Linux 6.11+), the mapping the vDSO's getrandom
 * uses: wiped on fork, never dumped, never swapped, and droppable under memory
 * pressure (a dropped page reads as zero; users keep a nonzero "valid" word
 * per page and treat zero as "re-key").  Otherwise a private anonymous map with
 * MADV_WIPEONFORK (4.14+) + MADV_DONTDUMP + a best-effort mlock.  If the
 * kernel rejects MADV_WIPEONFORK with EINVAL, the kind is -1 and fork is
 * detected through surand_fork_generation, bumped by the atfork child handler.
 * SPDX-License-Identifier: MIT
 */
#include "internal.h"

#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MAP_DROPPABLE
#define MAP_DROPPABLE 0x08 /* linux/mman.h, 6.11 */
#endif
#ifndef MADV_WIPEONFORK
#define MADV_WIPEONFORK 18
#endif
#ifndef MADV_DONTDUMP
#define MADV_DONTDUMP 16
#endif

volatile uint64_t surand_fork_generation;

/* 2: undecided; 1 droppable; 0 wipeonfork; -1 neither.  Decided at the first map. */
static int secmem_kind_v = 2;

#ifdef SURAND_TEST_BUILD
#include "test_hooks.h"
static int secmem_fail_n;
void surand_test_secmem_force(int kind)
{
	__atomic_store_n(&secmem_kind_v, kind, __ATOMIC_RELAXED);
}
void surand_test_secmem_fail(int n)
{
	__atomic_store_n(&secmem_fail_n, n, __ATOMIC_RELAXED);
}
#endif

static size_t page_round(size_t len)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	return (len + pg - 1) & ~(pg - 1);
}

void *surand_secmem_alloc(size_t len)
{
	int kind = __atomic_load_n(&secmem_kind_v, __ATOMIC_RELAXED);
	void *p;

#ifdef SURAND_TEST_BUILD
	if (__atomic_load_n(&secmem_fail_n, __ATOMIC_RELAXED) > 0 &&
	    __atomic_fetch_sub(&secmem_fail_n, 1, __ATOMIC_RELAXED) > 0) {
		errno = ENOMEM;
		return NULL;
	}
#endif
	if (len == 0) {
		errno = EINVAL;
		return NULL;
	}
	len = page_round(len);
	if (kind == 2 || kind == 1) {
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_DROPPABLE | MAP_ANONYMOUS, -1, 0);
		if (p != MAP_FAILED) {
			__atomic_store_n(&secmem_kind_v, 1, __ATOMIC_RELAXED);
			return p;
		}
		if (errno != EINVAL && errno != EOPNOTSUPP)
			return NULL; /* ENOMEM and the like: the caller falls back */
		kind = 0;       /* kernel without MAP_DROPPABLE */
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	/* Secrets never reach a core dump or (best effort) swap. */
	(void)madvise(p, len, MADV_DONTDUMP);
	(void)mlock(p, len);
	if (kind == 0 && madvise(p, len, MADV_WIPEONFORK) != 0) {
		/* EINVAL: a kernel without WIPEONFORK; fork generation takes over. */
		kind = -1;
	}
	__atomic_store_n(&secmem_kind_v, kind, __ATOMIC_RELAXED);
	return p;
}

void surand_secmem_free(void *p, size_t len)
{
	if (!p)
		return;
	len = page_round(len);
	surand_wipe(p, len);
	munmap(p, len);
}

void surand_secmem_probe(void)
{
	void *p;

	if (__atomic_load_n(&secmem_kind_v, __ATOMIC_RELAXED) != 2)
		return;
	p = surand_secmem_alloc(1);
	surand_secmem_free(p, 1);
}

int surand_secmem_kind(void)
{
	int k = __atomic_load_n(&secmem_kind_v, __ATOMIC_RELAXED);
	return k == 2 ? 1 : k;
}
