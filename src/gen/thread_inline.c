/*
 * thread_inline.c - the inline word path's ABI: a program that defines
 * SURAND_INLINE draws from its thread's batch itself (surand.h), through the
 * frozen layout of ABI 1 and 2, which this file checks against the default
 * design's own (gen/thread_fast.h) at compile time and hands out at run time.
 * ABI 2 changed the busy mark only: a header of ABI 1 stores its frame
 * address untagged and its return address apart (into a word nothing reads),
 * and the library takes such a mark for a live call wherever the frame
 * addresses alone cannot tell (api.c, recover_abandoned).
 *
 * The layout is that of struct slot and of the head of struct thread_tls:
 * the inline code reads gen and pos, copies from the batch and zeroes what
 * it hands out, and counts its draws in the same words as thread_word, so
 * that nothing here runs on the draw itself.  A layout change is a new ABI
 * number and a new symbol version node (src/libsurand.map): a program built
 * against the old layout is then refused here (NULL: its draws take the call).
 * SPDX-License-Identifier: MIT
 */
#include "gen/thread_fast.h"

#include <stddef.h>

/* Built with another slot size (the bench's SURAND_THREAD_SLOT_BYTES), the
 * slot is not ABI 1's: every header is refused. */
#define INLINE_ABI_SLOT_OK (SLOT_BYTES == sizeof(struct surand_inline_slot))

#if SURAND_THREAD_SLOT_BYTES == 4096
_Static_assert(sizeof(struct surand_inline_slot) == sizeof(struct slot), "ABI 1: slot size");
_Static_assert(SURAND_INLINE_BATCH_BYTES == BATCH_BYTES, "ABI 1: batch size");
_Static_assert(offsetof(struct surand_inline_slot, batch) == offsetof(struct slot, batch),
	       "ABI 1: batch offset");
_Static_assert(offsetof(struct surand_inline_slot, gen) ==
		       offsetof(struct slot, h) + offsetof(struct slot_hdr, gen),
	       "ABI 1: gen offset");
_Static_assert(offsetof(struct surand_inline_slot, pos) ==
		       offsetof(struct slot, h) + offsetof(struct slot_hdr, pos),
	       "ABI 1: pos offset");
#endif
_Static_assert(sizeof(struct surand_inline_slot) == 4096, "ABI 1: a slot is one page");
_Static_assert(sizeof(struct surand_inline_thread) == 48, "ABI 1: thread view size");
_Static_assert(offsetof(struct surand_inline_thread, slot) == 0 &&
		       offsetof(struct surand_inline_thread, words) == 8 &&
		       offsetof(struct surand_inline_thread, call_state) == 24 &&
		       offsetof(struct surand_inline_thread, abi1_ret) == 32 &&
		       offsetof(struct surand_inline_thread, base_gen) == 40,
	       "ABI 1: thread view layout (frozen)");
_Static_assert(offsetof(struct thread_tls, slot) == offsetof(struct thread_tls, pub.slot),
	       "the library's slot pointer is the view's");
_Static_assert(SURAND_INLINE_IDLE == 1, "ABI 1: the idle mark is api.c's TS_IDLE");

/* Where a header of ABI 1 stores its return address: read by nothing. */
static __thread uintptr_t abi1_ret __attribute__((tls_model("initial-exec")));

/*
 * The calling thread's view, its pointers (re)set for this thread: its busy
 * mark (api.c), the base generation (gen/base.c).  Only stores to this
 * thread's own TLS: async-signal-safe, no lock, no call.
 */
SURAND_API struct surand_inline_thread *surand_inline_thread(unsigned abi, size_t thread_size,
							     size_t slot_size)
{
	struct surand_inline_thread *t = &surand_thread_tls.pub;

	/* Another layout would read the key as output or write past the batch. */
	if ((abi != 1 && abi != SURAND_INLINE_ABI) ||
	    thread_size != sizeof(struct surand_inline_thread) ||
	    slot_size != sizeof(struct surand_inline_slot) || !INLINE_ABI_SLOT_OK)
		return NULL;
	t->call_state = &surand_call_state;
	t->abi1_ret = &abi1_ret;
	t->base_gen = &surand_base_gen_v;
	return t;
}
