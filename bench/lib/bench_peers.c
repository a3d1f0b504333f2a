/*
 * bench_peers.c - OpenSSL's libcrypto and libsodium, opened with dlopen.
 *
 * Each library is opened once, at the first ask (under a lock), and every
 * function the benchmark calls is looked up in its handle; one missing name
 * (another major version) makes the whole peer absent rather than half
 * there.  The handles stay open for the process's life: the functions live
 * in them.
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

/* One peer: where it lives and its table, filled at the first ask; why
 * keeps that attempt's reason for every later ask. */
struct peer {
	const char *soname, *apt;
	const char *const *names;
	void **table;
	size_t n;
	int tried, ok;
	char why[160];
};

static pthread_mutex_t peer_lock = PTHREAD_MUTEX_INITIALIZER;

/* 1 when the peer's table is filled; 0 with the reason in why. */
static int peer_get(struct peer *p, char *why, size_t why_len)
{
	pthread_mutex_lock(&peer_lock);
	if (!p->tried) {
		p->tried = 1;
		p->ok = peer_open(p->soname, p->apt, p->names, p->table, p->n, p->why,
				  sizeof(p->why)) == 0;
	}
	pthread_mutex_unlock(&peer_lock);
	if (!p->ok)
		snprintf(why, why_len, "%s", p->why);
	return p->ok;
}
#define PEER_N(names) (sizeof(names) / sizeof((names)[0]))
#endif

#ifdef HAVE_OPENSSL
static const char *const openssl_names[] = {
	"OpenSSL_version",    "RAND_status",         "RAND_bytes",         "EVP_chacha20",
	"EVP_CIPHER_CTX_new", "EVP_CIPHER_CTX_free", "EVP_EncryptInit_ex", "EVP_EncryptUpdate",
};
static union {
	struct bench_openssl fn;
	void *table[PEER_N(openssl_names)];
} openssl;
_Static_assert(sizeof(openssl.fn) == sizeof(openssl.table), "one name per member");
static struct peer openssl_peer = {BENCH_LIBCRYPTO_SO, BENCH_LIBCRYPTO_APT, openssl_names,
				   openssl.table, PEER_N(openssl_names), 0, 0, ""};

const struct bench_openssl *bench_openssl(char *why, size_t why_len)
{
	return peer_get(&openssl_peer, why, why_len) ? &openssl.fn : NULL;
}
#endif

#ifdef HAVE_SODIUM
static const char *const sodium_names[] = {
	"sodium_init", "sodium_version_string", "randombytes_implementation_name",
	"randombytes_buf",
};
static union {
	struct bench_sodium fn;
	void *table[PEER_N(sodium_names)];
} sodium;
_Static_assert(sizeof(sodium.fn) == sizeof(sodium.table), "one name per member");
static struct peer sodium_peer = {BENCH_LIBSODIUM_SO, BENCH_LIBSODIUM_APT, sodium_names,
				  sodium.table, PEER_N(sodium_names), 0, 0, ""};

const struct bench_sodium *bench_sodium(char *why, size_t why_len)
{
	return peer_get(&sodium_peer, why, why_len) ? &sodium.fn : NULL;
}
#endif
