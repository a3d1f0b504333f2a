/*
 * bench_peers.c - OpenSSL's libcrypto and libsodium, opened with dlopen.
 *
 * Each library is opened once, under a pthread_once, and every function the
 * benchmark calls is looked up in its handle; one missing name (another
 * major version) makes the whole peer absent rather than half there.  The
 * handles stay open for the process's life: the functions live in them.
 * SPDX-License-Identifier: MIT
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "bench_peers.h"

#if defined(HAVE_OPENSSL) || defined(HAVE_SODIUM)
/* Opens soname and fills the table of n pointers from names; 0, or -1 with
 * the reason in why. */
static int peer_open(const char *soname, const char *apt, const char *const *names, void **table,
		     size_t n, char *why, size_t why_len)
{
	void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		snprintf(why, why_len, "%s not found (%s)", soname, apt);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		table[i] = dlsym(h, names[i]);
		if (!table[i]) {
			snprintf(why, why_len, "%s has no %s (%s)", soname, names[i], apt);
			dlclose(h);
			return -1;
		}
	}
	return 0;
}

/* One peer: its table, filled once; why keeps the first attempt's reason. */
struct peer_state {
	pthread_once_t once;
	int ok;
	char why[160];
};

static const char *peer_answer(struct peer_state *st, char *why, size_t why_len)
{
	if (!st->ok)
		snprintf(why, why_len, "%s", st->why);
	return st->ok ? "" : NULL;
}
#endif

#ifdef HAVE_OPENSSL
static const char *const openssl_names[] = {
	"OpenSSL_version",    "RAND_status",         "RAND_bytes",         "EVP_chacha20",
	"EVP_CIPHER_CTX_new", "EVP_CIPHER_CTX_free", "EVP_EncryptInit_ex", "EVP_EncryptUpdate",
};
static union {
	struct bench_openssl fn;
	void *table[sizeof(openssl_names) / sizeof(openssl_names[0])];
} openssl;
_Static_assert(sizeof(openssl.fn) == sizeof(openssl.table), "one name per member");
static struct peer_state openssl_state = {PTHREAD_ONCE_INIT, 0, ""};

static void openssl_load(void)
{
	openssl_state.ok = peer_open(BENCH_LIBCRYPTO_SO, BENCH_LIBCRYPTO_APT, openssl_names,
				     openssl.table, sizeof(openssl.table) / sizeof(openssl.table[0]),
				     openssl_state.why, sizeof(openssl_state.why)) == 0;
}

const struct bench_openssl *bench_openssl(char *why, size_t why_len)
{
	pthread_once(&openssl_state.once, openssl_load);
	return peer_answer(&openssl_state, why, why_len) ? &openssl.fn : NULL;
}
#endif

#ifdef HAVE_SODIUM
static const char *const sodium_names[] = {
	"sodium_init",
	"sodium_version_string",
	"randombytes_implementation_name",
	"randombytes_buf",
};
static union {
	struct bench_sodium fn;
	void *table[sizeof(sodium_names) / sizeof(sodium_names[0])];
} sodium;
_Static_assert(sizeof(sodium.fn) == sizeof(sodium.table), "one name per member");
static struct peer_state sodium_state = {PTHREAD_ONCE_INIT, 0, ""};

static void sodium_load(void)
{
	sodium_state.ok = peer_open(BENCH_LIBSODIUM_SO, BENCH_LIBSODIUM_APT, sodium_names,
				    sodium.table, sizeof(sodium.table) / sizeof(sodium.table[0]),
				    sodium_state.why, sizeof(sodium_state.why)) == 0;
}

const struct bench_sodium *bench_sodium(char *why, size_t why_len)
{
	pthread_once(&sodium_state.once, sodium_load);
	return peer_answer(&sodium_state, why, why_len) ? &sodium.fn : NULL;
}
#endif
