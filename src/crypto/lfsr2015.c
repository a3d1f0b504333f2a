/* SPDX-License-Identifier: MIT */
/*
 * lfsr2015.c - the 2015 pools' mix and fold (lfsr2015.h).  Freestanding:
 * compiled into the library and into the kernel module.
 */
#include "lfsr2015.h"

const struct surand_lfsr15_taps surand_lfsr15_taps_out = { 26, 19, 14, 7, 1 };
const struct surand_lfsr15_taps surand_lfsr15_taps_in = { 104, 76, 51, 25, 1 };

const uint32_t surand_lfsr15_twist[8] = {
	0x00000000, 0x3b6e20c8, 0x76dc4190, 0x4db26158,
	0xedb88320, 0xd6d6a3e8, 0x9b64c2b0, 0xa00ae278,
};

/* scripts/lfsr2015_model.py, an independent model of the algorithm. */
const uint8_t surand_lfsr15_kat_state[20] = {
	0xeb, 0x98, 0xed, 0xdb, 0xa9, 0xa0, 0x42, 0xea, 0x92, 0xd4,
	0xe2, 0x87, 0x6d, 0xe0, 0x30, 0x22, 0xd2, 0x34, 0x43, 0x99,
};
const uint8_t surand_lfsr15_kat_fold[SURAND_LFSR15_FOLD_BYTES] = {
	0x86, 0x78, 0xdd, 0xf9, 0x7b, 0x94, 0x01, 0x73, 0x70, 0x53,
};

void surand_lfsr15_mix(uint32_t *words, unsigned nwords, uint32_t *add_ptr, uint32_t *rot,
		       const uint8_t *in, size_t n)
{
	const struct surand_lfsr15_taps *t =
		nwords == SURAND_LFSR15_IN_WORDS ? &surand_lfsr15_taps_in : &surand_lfsr15_taps_out;
	uint32_t mask = nwords - 1, i = *add_ptr & mask, r = *rot & 31, w;

	while (n--) {
		w = surand_lfsr15_input(*in++, r);
		i = (i - 1) & mask;
		w ^= words[i] ^ words[(i + t->t1) & mask] ^ words[(i + t->t2) & mask] ^
		     words[(i + t->t3) & mask] ^ words[(i + t->t4) & mask] ^ words[(i + t->t5) & mask];
		words[i] = surand_lfsr15_twisted(w);
		r = surand_lfsr15_next_rotate(r, i);
	}
	*add_ptr = i;
	*rot = r;
}

void surand_lfsr15_fold(const uint32_t h[5], uint8_t out[SURAND_LFSR15_FOLD_BYTES])
{
	uint8_t tmp[12];

	/* Fed back twice as much as is output: the output is half the hash. */
	surand_store32_le(tmp, h[0] ^ h[3]);
	surand_store32_le(tmp + 4, h[1] ^ h[4]);
	surand_store32_le(tmp + 8, h[2] ^ surand_rotl32(h[2], 16));
	memcpy(out, tmp, SURAND_LFSR15_FOLD_BYTES);
	surand_wipe(tmp, sizeof(tmp));
}
