/*
 * callstate.c - the per-thread call state (internal.h): the busy mark and
 * the count of surand locks held.  Defined in a file of their own, a leaf,
 * so that every layer that marks a call or takes a lock (the designs, the
 * entropy sources) reads them without depending on the front end, which
 * owns what they mean (api.c, section 2).
 * SPDX-License-Identifier: MIT
 */
#include "internal.h"

__thread uintptr_t surand_call_state __attribute__((tls_model("initial-exec")));
__thread unsigned surand_locks_held __attribute__((tls_model("initial-exec")));
