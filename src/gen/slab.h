/*
 * gen/slab.h - slots for per-thread state, in wipe-on-fork memory
 * (gen/slab.c).
 *
 * Fixed-size slots (a power of two, 64..4096 bytes, so a slot never straddles
 * a page) carved from surand_secmem_alloc() chunks: wiped in a fork child,
 * never dumped.  Book-keeping (free list, in-use marks, and whatever a design
 * keeps per slot beside it) is in ordinary memory, mapped with mmap so that a
 * thread's first call may come from a signal handler that interrupted malloc.
 * A slot is wiped when it is taken and when it is given back.  With
 * MAP_DROPPABLE a slot may read as zero at any time: users keep a nonzero
 * valid word in it and re-key on zero.
 *
 * surand_slab_get/put/foreach take the slab's lock themselves.  A design that
 * must do more under the same lock (the default design links each slot to its
 * owner's counters) takes it with surand_slab_lock and calls the _locked
 * functions in between.
 */
#ifndef SURAND_GEN_SLAB_H
#define SURAND_GEN_SLAB_H

#include "internal.h"

#include <pthread.h>

#define SURAND_SLAB_CHUNK_BYTES 16384u /* a chunk, unless the slab names its slots a chunk */
#define SURAND_SLAB_MAX_CHUNKS 4096u

struct surand_slab {
	uint32_t slot_bytes;
	uint32_t chunk_slots; /* slots a chunk; 0: SURAND_SLAB_CHUNK_BYTES / slot_bytes */
	uint32_t meta_bytes;  /* per slot: the slab's link word, then the design's record */
	uint32_t nchunks;
	uint32_t free_head;   /* index + 1 of the first free slot, 0: none */
	uint32_t in_use;
	pthread_mutex_t lock;
	uint8_t *chunks[SURAND_SLAB_MAX_CHUNKS];
	uint8_t *meta[SURAND_SLAB_MAX_CHUNKS];
};
/* Slots of `bytes`, packed into 16 KiB chunks, no record of the design's. */
#define SURAND_SLAB_INITIALIZER(bytes) \
	{ .slot_bytes = (bytes), .meta_bytes = sizeof(uint32_t), .lock = PTHREAD_MUTEX_INITIALIZER }
/* Slots of `bytes`, `per_chunk` a chunk, and a record of `rec_bytes` beside
 * each (a struct whose first member is the slab's uint32_t link word). */
#define SURAND_SLAB_INITIALIZER_RECORDS(bytes, per_chunk, rec_bytes)                  \
	{ .slot_bytes = (bytes), .chunk_slots = (per_chunk), .meta_bytes = (rec_bytes), \
	  .lock = PTHREAD_MUTEX_INITIALIZER }

/* A wiped slot for the calling thread; NULL (errno ENOMEM) when none can be mapped. */
void *surand_slab_get(struct surand_slab *s, uint32_t *index) SURAND_HIDDEN;
/* Wipes the slot and gives it back. */
void surand_slab_put(struct surand_slab *s, uint32_t index) SURAND_HIDDEN;
/* Fork child: every slot but keep (the forking thread's; -1: none) is free. */
void surand_slab_atfork_child(struct surand_slab *s, long keep) SURAND_HIDDEN;
/* Calls fn on every slot in use, with the slab lock held (stats). */
void surand_slab_foreach(struct surand_slab *s, void (*fn)(void *slot, void *arg), void *arg)
	SURAND_HIDDEN;
uint32_t surand_slab_total(struct surand_slab *s) SURAND_HIDDEN;
uint32_t surand_slab_in_use(struct surand_slab *s) SURAND_HIDDEN;

/* The lock, with cancellation off while it is held (cs: the state to restore). */
void surand_slab_lock(struct surand_slab *s, int *cs) SURAND_HIDDEN;
void surand_slab_unlock(struct surand_slab *s, int cs) SURAND_HIDDEN;
/* With the lock held: as surand_slab_get and surand_slab_put. */
void *surand_slab_take_locked(struct surand_slab *s, uint32_t *index) SURAND_HIDDEN;
void surand_slab_give_locked(struct surand_slab *s, uint32_t index) SURAND_HIDDEN;
/* With the lock held: the slots mapped, whether slot i is in use, and the
 * design's record of slot i (the slab's link word is its first member). */
uint32_t surand_slab_capacity_locked(const struct surand_slab *s) SURAND_HIDDEN;
int surand_slab_used_locked(struct surand_slab *s, uint32_t i) SURAND_HIDDEN;
void *surand_slab_record(struct surand_slab *s, uint32_t i) SURAND_HIDDEN;
void *surand_slab_slot(struct surand_slab *s, uint32_t i) SURAND_HIDDEN;

#ifdef SURAND_TEST_BUILD
/* Zeroes every slot of a slab, in use or not (a dropped page). */
void surand_slab_test_zero(struct surand_slab *s) SURAND_HIDDEN;
/* 1 when the n bytes at needle occur in a slot, in use or not; else 0. */
int surand_slab_test_holds(struct surand_slab *s, const void *needle, size_t n) SURAND_HIDDEN;
#endif

#endif /* SURAND_GEN_SLAB_H */
