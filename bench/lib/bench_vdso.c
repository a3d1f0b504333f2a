/*
 * bench_vdso.c - the kernel's vDSO getrandom (Linux 6.11+ on x86-64, 6.12+
 * on arm64) for the benchmark's "vdso" source: the very function the library
 * calls, found by the library's own lookup (surand_vdso_getrandom_fn,
 * src/entropy/kernel.c), so the benchmark measures a vdso peer exactly where
 * surand uses one.  Then the vDSO is asked for its state parameters:
 * fn(NULL, 0, 0, &params, ~0UL) fills struct vgetrandom_opaque_params
 * (include/uapi/linux/random.h, Linux 6.11: u32 size_of_opaque_state,
 * mmap_prot, mmap_flags, reserved[13]); every thread then maps its own state
 * with that prot and those flags.
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "internal.h"

/* Linux's struct vgetrandom_opaque_params (uapi/linux/random.h, 6.11). */
struct bench_vgetrandom_params {
	uint32_t size_of_opaque_state;
	uint32_t mmap_prot;
	uint32_t mmap_flags;
	uint32_t reserved[13];
};

int bench_vdso_find(struct bench_vdso *v, char *why, size_t why_len)
{
	struct bench_vgetrandom_params params;
	void *p = surand_vdso_getrandom_fn();

	memset(v, 0, sizeof(*v));
	if (!p) {
		snprintf(why, why_len, "the kernel's vDSO has no getrandom (needs Linux 6.11+)");
		return -1;
	}
	v->fn = (bench_vgetrandom_fn)p;
	memset(&params, 0, sizeof(params));
	if (v->fn(NULL, 0, 0, &params, ~(size_t)0) != 0 || params.size_of_opaque_state == 0 ||
	    params.size_of_opaque_state > 65536) {
		snprintf(why, why_len, "vDSO getrandom refused the parameter query");
		return -1;
	}
	v->state_size = params.size_of_opaque_state;
	v->mmap_prot = params.mmap_prot;
	v->mmap_flags = params.mmap_flags;
	return 0;
}
