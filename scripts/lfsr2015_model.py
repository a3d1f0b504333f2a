#!/usr/bin/env python3
"""An independent model of the 2015 output pool, for the known-answer vector.

Written from the algorithm as Linux 4.2-4.7's drivers/char/random.c
documents it, not from surand's C: a 32-word pool, taps 26, 19, 14, 7, 1
(x^32 + x^26 + x^19 + x^14 + x^7 + x + 1), each input byte sign-extended to
32 bits (random.c read its input through a `const char *`, signed on x86)
and rotated by input_rotate, which advances by 7 per word and by 14 at word
0; the word is twisted with the CRC-32 polynomial's table.  Then the raw
SHA-1 compression over the pool's 32 words (two 64-byte blocks, the words
in little-endian memory order, no padding) from the standard IV, and the
fold of the 20-byte state to 10 bytes (h0^h3, h1^h4, the low half of
h2^rol(h2,16)).

The vector: a zero pool, input_rotate 0, add_ptr 0; the 256 bytes
0x00, 0x01, ..., 0xff mixed in.  Prints the C initialisers of the SHA-1
state (as 20 little-endian bytes) and of the fold.
"""
import struct

MASK = 0xFFFFFFFF
TWIST = [0x00000000, 0x3b6e20c8, 0x76dc4190, 0x4db26158,
         0xedb88320, 0xd6d6a3e8, 0x9b64c2b0, 0xa00ae278]
TAPS = (26, 19, 14, 7, 1)
WORDS = 32


def rol(x, n):
    n &= 31
    return ((x << n) | (x >> (32 - n))) & MASK if n else x


def mix(pool, data, add_ptr=0, rot=0):
    i = add_ptr
    for b in data:
        signed = b - 256 if b >= 128 else b
        w = rol(signed & MASK, rot)
        i = (i - 1) % WORDS
        w ^= pool[i]
        for t in TAPS:
            w ^= pool[(i + t) % WORDS]
        pool[i] = (w >> 3) ^ TWIST[w & 7]
        rot = (rot + (7 if i else 14)) & 31
    return i, rot


def sha1_compress(h, block):
    w = list(struct.unpack(">16I", block))
    for t in range(16, 80):
        w.append(rol(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1))
    a, b, c, d, e = h
    for t in range(80):
        if t < 20:
            f, k = (b & c) | (~b & d), 0x5A827999
        elif t < 40:
            f, k = b ^ c ^ d, 0x6ED9EBA1
        elif t < 60:
            f, k = (b & c) | (b & d) | (c & d), 0x8F1BBCDC
        else:
            f, k = b ^ c ^ d, 0xCA62C1D6
        a, b, c, d, e = (rol(a, 5) + (f & MASK) + e + k + w[t]) & MASK, a, rol(b, 30), c, d
    return [(x + y) & MASK for x, y in zip(h, (a, b, c, d, e))]


def main():
    pool = [0] * WORDS
    mix(pool, bytes(range(256)))
    mem = struct.pack("<32I", *pool)
    h = [0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0]
    for off in range(0, len(mem), 64):
        h = sha1_compress(h, mem[off:off + 64])
    state = struct.pack("<5I", *h)
    fold = struct.pack("<3I", h[0] ^ h[3], h[1] ^ h[4], h[2] ^ rol(h[2], 16))[:10]
    fmt = lambda bs: ", ".join("0x%02x" % x for x in bs)
    print("hash: " + fmt(state))
    print("fold: " + fmt(fold))


if __name__ == "__main__":
    main()
