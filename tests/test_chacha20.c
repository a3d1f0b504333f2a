/* test_chacha20.c - ChaCha20 known answers.  SPDX-License-Identifier: MIT */
#include "harness.h"
#include "internal.h"

/* RFC 8439 section 2.3.2: key 00..1f, nonce 000000090000004a00000000, counter 1. */
static void rfc8439_block(void)
{
	uint8_t kb[32], out[64], want[64];
	uint32_t key[8];
	int i;

	for (i = 0; i < 32; i++)
		kb[i] = (uint8_t)i;
	for (i = 0; i < 8; i++)
		key[i] = surand_load32_le(kb + 4 * i);
	T_ASSERT(t_hex("10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e"
		       "d2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e",
		       want, 64) == 64);
	/* RFC counter word 1, nonce words 0x09000000, 0x4a000000, 0 (little-endian). */
	surand_chacha20_blocks_portable(key, 1 | (uint64_t)0x09000000 << 32, 0x4a000000, out, 1);
	T_ASSERT_MEM_EQ(out, want, 64);
}

int main(int argc, char **argv)
{
	t_init(argc, argv);
	T_RUN(rfc8439_block);
	return t_done();
}
