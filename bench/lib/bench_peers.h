/*
 * bench_peers.h - OpenSSL's libcrypto and libsodium as run-time peers.
 *
 * The command that measures against them links neither library: each is
 * opened with dlopen at the first use (bench_peers.c), so a system without
 * it still runs every other row, and the surand package only suggests them.
 * The member types come from the libraries' own headers, so a prototype that
 * changes fails the build instead of the call.
 * SPDX-License-Identifier: MIT
 */
#ifndef SURAND_BENCH_PEERS_H
#define SURAND_BENCH_PEERS_H

#include <stddef.h>

#ifdef HAVE_OPENSSL
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/opensslv.h>
#include <openssl/rand.h>
#endif
#ifdef HAVE_SODIUM
#include <sodium.h>
#endif

/* The sonames opened; a build may name others (the tests name absent ones). */
#define BENCH_PEER_STR_(x) #x
#define BENCH_PEER_STR(x) BENCH_PEER_STR_(x)
#ifdef HAVE_OPENSSL
/* OpenSSL 3's libcrypto.so.3, in Debian's libssl3. */
#ifndef BENCH_LIBCRYPTO_SO
#define BENCH_LIBCRYPTO_SO "libcrypto.so." BENCH_PEER_STR(OPENSSL_SHLIB_VERSION)
#endif
#define BENCH_LIBCRYPTO_APT "apt-get install libssl" BENCH_PEER_STR(OPENSSL_SHLIB_VERSION)
#endif
#ifdef HAVE_SODIUM
/* libsodium 1.0.15-1.0.18 (library version 10) is libsodium.so.23; from
 * 1.0.19 on the soname's number is the library's major version (26). */
#if SODIUM_LIBRARY_VERSION_MAJOR == 10
#define BENCH_SODIUM_SONUM 23
#else
#define BENCH_SODIUM_SONUM SODIUM_LIBRARY_VERSION_MAJOR
#endif
#ifndef BENCH_LIBSODIUM_SO
#define BENCH_LIBSODIUM_SO "libsodium.so." BENCH_PEER_STR(BENCH_SODIUM_SONUM)
#endif
#define BENCH_LIBSODIUM_APT "apt-get install libsodium" BENCH_PEER_STR(BENCH_SODIUM_SONUM)
#endif

#ifdef HAVE_OPENSSL
struct bench_openssl {
	__typeof__(&OpenSSL_version) version;
	__typeof__(&RAND_status) rand_status;
	__typeof__(&RAND_bytes) rand_bytes;
	__typeof__(&EVP_chacha20) chacha20;
	__typeof__(&EVP_CIPHER_CTX_new) ctx_new;
	__typeof__(&EVP_CIPHER_CTX_free) ctx_free;
	__typeof__(&EVP_EncryptInit_ex) encrypt_init;
	__typeof__(&EVP_EncryptUpdate) encrypt_update;
};
/* libcrypto's functions, or NULL with the reason in why (which package). */
const struct bench_openssl *bench_openssl(char *why, size_t why_len);
#endif

#ifdef HAVE_SODIUM
struct bench_sodium {
	__typeof__(&sodium_init) init;
	__typeof__(&sodium_version_string) version;
	__typeof__(&randombytes_implementation_name) impl_name;
	__typeof__(&randombytes_buf) buf;
};
/* libsodium's functions, or NULL with the reason in why. */
const struct bench_sodium *bench_sodium(char *why, size_t why_len);
#endif

#endif
