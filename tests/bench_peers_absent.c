/*
 * bench_peers_absent.c - bench/lib/bench_peers.c built with sonames that do
 * not give the benchmark its peers, its entry points renamed, for
 * tests/test_bench_peers.c: libcrypto under a name no system has, and
 * libsodium as libc.so.6 (which opens, but has none of the names).
 * SPDX-License-Identifier: MIT
 */
#define BENCH_LIBCRYPTO_SO "libcrypto.so.0-absent"
#define BENCH_LIBSODIUM_SO "libc.so.6"
#define bench_openssl(why, why_len) absent_openssl(why, why_len)
#define bench_sodium(why, why_len) absent_sodium(why, why_len)
#include "bench_peers.c"
