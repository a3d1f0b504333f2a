/*
 * gen/base.h - the process-wide base key, shared by several designs
 * (gen/base.c).
 *
 * A 256-bit key and a generation, behind one lock that is taken only at
 * (re)seed and when a consumer (re)keys.  Seeded lazily from the kernel and
 * reseeded on a schedule (1 s growing to the ceiling, as Linux does), on
 * surand_reseed() and in a fork child.  Generation 0 never occurs: a zeroed
 * consumer state (fork wipe, dropped page) therefore always re-keys.
 */
#ifndef SURAND_GEN_BASE_H
#define SURAND_GEN_BASE_H

#include "internal.h"

enum surand_reseed_cause {
	SURAND_RESEED_INITIAL,
	SURAND_RESEED_TIMER,
	SURAND_RESEED_FORCED,
	SURAND_RESEED_FORK,
};

/*
 * Fast key erasure: one ChaCha20 block of the base key gives a new base key
 * (replacing the old at once) and out_key.  Seeds or reseeds first when
 * needed.  *gen receives the generation out_key belongs to.  0 or -errno.
 * May block (first seed); cancellation is disabled while the lock is held.
 */
int surand_base_derive(uint32_t out_key[8], uint64_t *gen) SURAND_HIDDEN;
/* The current generation (one shared read-mostly word, read inline on the
 * fast paths; written only under the base lock and in the fork child). */
extern uint64_t surand_base_gen_v SURAND_HIDDEN;
static inline uint64_t surand_base_generation(void)
{
	return __atomic_load_n(&surand_base_gen_v, __ATOMIC_ACQUIRE);
}
/* Reseeds now if the schedule says so (cheap check first). */
void surand_base_maybe_reseed(uint64_t now_ns) SURAND_HIDDEN;
/* Reseeds now; 0 or -errno. */
int surand_base_reseed(enum surand_reseed_cause cause) SURAND_HIDDEN;
/* The reseed interval now, in ns (grows 1 s -> ceiling with the base's age). */
uint64_t surand_base_interval_ns(uint64_t now_ns) SURAND_HIDDEN;
void surand_base_atfork_child(void) SURAND_HIDDEN;
void surand_base_stats(struct surand_stats *st) SURAND_HIDDEN;

#endif /* SURAND_GEN_BASE_H */
