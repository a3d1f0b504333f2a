/*
 * test_lfsr2015.c - the 2015 pools' mix (src/crypto/lfsr2015.c, shared with
 * the kernel module) against the known answer of an independent model
 * (scripts/lfsr2015_model.py), and the library's atomic mix of the 2015
 * designs (src/gen/pool2015.c) against the shared one: same words, same
 * hash, same fold, whole calls or split.
 * SPDX-License-Identifier: MIT
 */
#include <string.h>

#include "harness.h"
#include "crypto/lfsr2015.h"
#include "crypto/sha1.h"
#include "gen/pool2015.h"

/* SHA-1's compression over nwords words in little-endian order, from the IV. */
static void hash_words(const uint32_t *w, unsigned nwords, uint8_t state[20])
{
	uint32_t h[5];
	uint8_t block[64];

	surand_sha1_init_state(h);
	for (unsigned i = 0; i < nwords; i += 16) {
		for (unsigned j = 0; j < 16; j++)
			surand_store32_le(block + 4 * j, w[i + j]);
		surand_sha1_transform(h, block);
	}
	for (int i = 0; i < 5; i++)
		surand_store32_le(state + 4 * i, h[i]);
}

static void kat_input(uint8_t in[256])
{
	for (int i = 0; i < 256; i++)
		in[i] = (uint8_t)i;
}

/* The shared mix, plain: the vector of the independent model. */
static void shared_mix_known_answer(void)
{
	uint32_t w[SURAND_LFSR15_OUT_WORDS] = {0}, ap = 0, rot = 0, h[5];
	uint8_t in[256], state[20], fold[SURAND_LFSR15_FOLD_BYTES];

	kat_input(in);
	surand_lfsr15_mix(w, SURAND_LFSR15_OUT_WORDS, &ap, &rot, in, sizeof(in));
	hash_words(w, SURAND_LFSR15_OUT_WORDS, state);
	T_ASSERT(t_memdiff(state, surand_lfsr15_kat_state, 20) == (size_t)-1);
	for (int i = 0; i < 5; i++)
		h[i] = surand_load32_le(state + 4 * i);
	surand_lfsr15_fold(h, fold);
	T_ASSERT(t_memdiff(fold, surand_lfsr15_kat_fold, sizeof(fold)) == (size_t)-1);
	/* 256 bytes: add_ptr went round the pool 8 times, back at 0. */
	T_ASSERT_EQ_U64(ap, 0);
}

/* The library's atomic mix and its hash and fold give the same vector. */
static void library_pool_known_answer(void)
{
	static struct surand_p15 p;
	uint32_t h[5];
	uint8_t in[256], state[20], fold[SURAND_P15_EXTRACT_BYTES];

	memset(&p, 0, sizeof(p));
	kat_input(in);
	surand_p15_mix(&p, SURAND_P15_OUT_WORDS, in, sizeof(in));
	surand_p15_hash(&p, SURAND_P15_OUT_WORDS, surand_p15_sha1_iv, h);
	for (int i = 0; i < 5; i++)
		surand_store32_le(state + 4 * i, h[i]);
	T_ASSERT(t_memdiff(state, surand_lfsr15_kat_state, 20) == (size_t)-1);
	surand_p15_fold(h, fold);
	T_ASSERT(t_memdiff(fold, surand_lfsr15_kat_fold, sizeof(fold)) == (size_t)-1);
}

/* Random inputs, both pool sizes: the two mixes agree word for word, and a
 * mix split at any point equals the whole one. */
static void library_equals_shared_split_equals_whole(void)
{
	static struct surand_p15 p;
	uint64_t seed = 0x6c66737232303135ull;
	uint8_t in[700];

	for (int round = 0; round < 200; round++) {
		unsigned nwords = round & 1 ? SURAND_LFSR15_IN_WORDS : SURAND_LFSR15_OUT_WORDS;
		size_t n = 1 + t_rand64(&seed) % sizeof(in), cut = t_rand64(&seed) % (n + 1);
		uint32_t w[SURAND_LFSR15_IN_WORDS], ap = 0, rot = 0;
		uint32_t v[SURAND_LFSR15_IN_WORDS], ap2, rot2;

		t_randbytes(&seed, w, sizeof(w));
		ap = (uint32_t)t_rand64(&seed) % nwords;
		rot = (uint32_t)t_rand64(&seed) % 32;
		t_randbytes(&seed, in, n);
		memset(&p, 0, sizeof(p));
		memcpy(p.words, w, nwords * 4);
		p.add_ptr = ap;
		p.input_rotate = rot;
		memcpy(v, w, sizeof(w));
		ap2 = ap;
		rot2 = rot;
		surand_lfsr15_mix(w, nwords, &ap, &rot, in, n);
		surand_p15_mix(&p, nwords, in, n);
		T_ASSERT_MSG(memcmp(p.words, w, nwords * 4) == 0 && p.add_ptr == ap &&
				     p.input_rotate == rot,
			     "round %d: the library's mix differs from the shared one", round);
		surand_lfsr15_mix(v, nwords, &ap2, &rot2, in, cut);
		surand_lfsr15_mix(v, nwords, &ap2, &rot2, in + cut, n - cut);
		T_ASSERT_MSG(memcmp(v, w, nwords * 4) == 0 && ap2 == ap && rot2 == rot,
			     "round %d: split at %zu of %zu differs", round, cut, n);
	}
}

/* The sign extension is part of the algorithm: 0x80 and 0x7f+1 as an
 * unsigned byte would give another pool. */
static void high_bytes_are_sign_extended(void)
{
	T_ASSERT_EQ_U64(surand_lfsr15_input(0x80, 0), 0xffffff80u);
	T_ASSERT_EQ_U64(surand_lfsr15_input(0x7f, 0), 0x7fu);
	T_ASSERT_EQ_U64(surand_lfsr15_input(0x81, 4), 0xfffff81fu);
}

int main(int argc, char **argv)
{
	t_init(argc, argv);
	T_RUN(shared_mix_known_answer);
	T_RUN(library_pool_known_answer);
	T_RUN(library_equals_shared_split_equals_whole);
	T_RUN(high_bytes_are_sign_extended);
	return t_done();
}
