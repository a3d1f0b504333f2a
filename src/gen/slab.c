/*
 * slab.c - slots for per-thread state in wipe-on-fork memory (gen/slab.h).
 * SPDX-License-Identifier: MIT
 */
#include "gen/slab.h"
#include "benchcount.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#define SLAB_IN_USE 0x80000000u
#define SLAB_LINK_MASK 0x7fffffffu

static uint32_t slab_per_chunk(const struct surand_slab *s)
{
	uint32_t b = s->slot_bytes;

	if (s->chunk_slots)
		return s->chunk_slots;
	/* Set by SURAND_SLAB_INITIALIZER to a slot size of the design; a size
	 * of 0 or above a chunk would be a bug: one slot a chunk then. */
	return b && b <= SURAND_SLAB_CHUNK_BYTES ? SURAND_SLAB_CHUNK_BYTES / b : 1;
}

static size_t slab_chunk_bytes(const struct surand_slab *s)
{
	return (size_t)slab_per_chunk(s) * s->slot_bytes;
}

void *surand_slab_record(struct surand_slab *s, uint32_t i)
{
	/* NOLINTNEXTLINE(clang-analyzer-core.DivideZero): slab_per_chunk() >= 1 */
	return s->meta[i / slab_per_chunk(s)] + (size_t)(i % slab_per_chunk(s)) * s->meta_bytes;
}

static uint32_t *slab_link(struct surand_slab *s, uint32_t i)
{
	return surand_slab_record(s, i);
}

void *surand_slab_slot(struct surand_slab *s, uint32_t i)
{
	/* NOLINTNEXTLINE(clang-analyzer-core.DivideZero): slab_per_chunk() >= 1 */
	return s->chunks[i / slab_per_chunk(s)] + (size_t)(i % slab_per_chunk(s)) * s->slot_bytes;
}

/* With the slab lock held: maps one more chunk. */
static int slab_grow(struct surand_slab *s)
{
	uint32_t per = slab_per_chunk(s), i, first;
	uint8_t *c, *m;

	if (s->nchunks >= SURAND_SLAB_MAX_CHUNKS)
		return -ENOMEM;
	c = surand_secmem_alloc(slab_chunk_bytes(s));
	if (!c)
		return -ENOMEM;
	/* mmap, not calloc: a thread's first call may come from a signal handler
	 * that interrupted malloc, and calloc deadlocked on the arena lock there
	 * (tests/test_faults.c, first_call_in_handler).  Zeroed, not secret. */
	m = mmap(NULL, (size_t)per * s->meta_bytes, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		surand_secmem_free(c, slab_chunk_bytes(s));
		return -ENOMEM;
	}
	first = s->nchunks * per;
	s->chunks[s->nchunks] = c;
	s->meta[s->nchunks] = m;
	s->nchunks++;
	for (i = per; i-- > 0;) {
		*slab_link(s, first + i) = s->free_head;
		s->free_head = first + i + 1;
	}
	return 0;
}

void surand_slab_lock(struct surand_slab *s, int *cs)
{
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, cs);
	surand_mutex_lock(&s->lock);
	SURAND_BENCH_COUNT_LOCK();
}

void surand_slab_unlock(struct surand_slab *s, int cs)
{
	surand_mutex_unlock(&s->lock);
	pthread_setcancelstate(cs, NULL);
}

void *surand_slab_take_locked(struct surand_slab *s, uint32_t *index)
{
	uint32_t i, *m;
	void *p;

	if (!s->free_head && slab_grow(s) != 0) {
		errno = ENOMEM;
		return NULL;
	}
	i = s->free_head - 1;
	m = slab_link(s, i);
	s->free_head = *m & SLAB_LINK_MASK;
	*m = SLAB_IN_USE;
	s->in_use++;
	p = surand_slab_slot(s, i);
	/* Wiped when it was given back (or zero when fresh); again for secmem
	 * kind -1 after a fork, where nothing wiped it.  The lock (a mutex:
	 * release at unlock, acquire at lock, on aarch64 as on x86) orders the
	 * previous owner's wipe before this use. */
	surand_wipe(p, s->slot_bytes);
	*index = i;
	return p;
}

void surand_slab_give_locked(struct surand_slab *s, uint32_t index)
{
	uint32_t *m;

	if (index >= surand_slab_capacity_locked(s))
		return;
	m = slab_link(s, index);
	if (!(*m & SLAB_IN_USE))
		return;
	/* A thread's key never outlives the thread. */
	surand_wipe(surand_slab_slot(s, index), s->slot_bytes);
	*m = s->free_head;
	s->free_head = index + 1;
	s->in_use--;
}

uint32_t surand_slab_capacity_locked(const struct surand_slab *s)
{
	return s->nchunks * slab_per_chunk(s);
}

int surand_slab_used_locked(struct surand_slab *s, uint32_t i)
{
	return (*slab_link(s, i) & SLAB_IN_USE) != 0;
}

void *surand_slab_get(struct surand_slab *s, uint32_t *index)
{
	void *p;
	int cs;

	surand_slab_lock(s, &cs);
	p = surand_slab_take_locked(s, index);
	surand_slab_unlock(s, cs);
	if (!p)
		errno = ENOMEM;
	return p;
}

void surand_slab_put(struct surand_slab *s, uint32_t index)
{
	int cs;

	surand_slab_lock(s, &cs);
	surand_slab_give_locked(s, index);
	surand_slab_unlock(s, cs);
}

void surand_slab_atfork_child(struct surand_slab *s, long keep)
{
	uint32_t n = surand_slab_capacity_locked(s), i;

	/* Another thread of the parent may have held the lock at fork(). */
	pthread_mutex_init(&s->lock, NULL);
	s->free_head = 0;
	s->in_use = 0;
	for (i = n; i-- > 0;) {
		if ((long)i == keep) {
			*slab_link(s, i) = SLAB_IN_USE;
			s->in_use = 1;
			continue;
		}
		/* Zero already where wipe-on-fork works; explicit for kind -1:
		 * the parent's other threads' states never survive in the child. */
		if (surand_secmem_kind() < 0)
			surand_wipe(surand_slab_slot(s, i), s->slot_bytes);
		*slab_link(s, i) = s->free_head;
		s->free_head = i + 1;
	}
}

void surand_slab_foreach(struct surand_slab *s, void (*fn)(void *slot, void *arg), void *arg)
{
	uint32_t n, i;
	int cs;

	surand_slab_lock(s, &cs);
	n = surand_slab_capacity_locked(s);
	for (i = 0; i < n; i++)
		if (surand_slab_used_locked(s, i))
			fn(surand_slab_slot(s, i), arg);
	surand_slab_unlock(s, cs);
}

static uint32_t slab_count(struct surand_slab *s, int total)
{
	uint32_t v;
	int cs;

	surand_slab_lock(s, &cs);
	v = total ? surand_slab_capacity_locked(s) : s->in_use;
	surand_slab_unlock(s, cs);
	return v;
}

uint32_t surand_slab_total(struct surand_slab *s)
{
	return slab_count(s, 1);
}

uint32_t surand_slab_in_use(struct surand_slab *s)
{
	return slab_count(s, 0);
}

#ifdef SURAND_TEST_BUILD
void surand_slab_test_zero(struct surand_slab *s)
{
	uint32_t i;

	surand_mutex_lock(&s->lock);
	for (i = 0; i < s->nchunks; i++)
		memset(s->chunks[i], 0, slab_chunk_bytes(s));
	surand_mutex_unlock(&s->lock);
}

int surand_slab_test_holds(struct surand_slab *s, const void *needle, size_t n)
{
	uint32_t i, cap;
	int found = 0, cs;

	surand_slab_lock(s, &cs);
	cap = surand_slab_capacity_locked(s);
	for (i = 0; i < cap && !found; i++)
		found = memmem(surand_slab_slot(s, i), s->slot_bytes, needle, n) != NULL;
	surand_slab_unlock(s, cs);
	return found;
}
#endif
