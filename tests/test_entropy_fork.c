/*
 * test_entropy_fork.c - the input side across fork() where the kernel has no
 * wipe-on-fork memory (secmem kind -1, forced before first use): the pool and
 * the fast pools must still restart empty in the child, because the fork
 * handler wipes them explicitly, the jitter buffer and the pending digests
 * of signal handlers included.  (test_entropy.c covers the default kind.)
 * SPDX-License-Identifier: MIT
 */
#include "harness.h"
#include "surand.h"
#include "internal.h"
#include "entropy/entropy.h"
#include "test_hooks.h"

#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct child_view {
	uint8_t digest[32];
	uint64_t credit, events, slot_count;
};

static int run_child(struct child_view *v)
{
	int fds[2], status;
	pid_t pid;
	ssize_t n;

	if (pipe(fds) != 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		struct child_view c;
		struct surand_stats s;
		unsigned count = 99;

		close(fds[0]);
		memset(&c, 0, sizeof(c));
		surand_stats(&s, sizeof(s));
		c.credit = s.pool_credit_bits;
		c.events = s.events;
		if (surand_test_fastpool_slot(0, &count, NULL) != 0 ||
		    surand_test_entropy_pool_digest(c.digest) != 0)
			_exit(2);
		c.slot_count = count;
		_exit(write(fds[1], &c, sizeof(c)) == (ssize_t)sizeof(c) ? 0 : 3);
	}
	close(fds[1]);
	n = read(fds[0], v, sizeof(*v));
	close(fds[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return -1;
	return n == (ssize_t)sizeof(*v) ? 0 : -1;
}

static void child_restarts_empty_without_wipeonfork(void)
{
	struct child_view a, b;
	uint8_t parent[32];
	unsigned count = 0;
	int i;

	T_ASSERT_EQ_U64((uint64_t)(int64_t)surand_secmem_kind(), (uint64_t)(int64_t)-1);
	surand_test_entropy_source_set(SURAND_ES_CPU, 0);
	surand_test_entropy_source_set(SURAND_ES_JITTER, 0);
	T_ASSERT(surand_add_entropy("parent's secret", 15, 100) == 0);
	surand_test_fastpool_force_slot(0);
	for (i = 0; i < 10; i++)
		surand_add_event((uint64_t)i);
	T_ASSERT(surand_test_fastpool_slot(0, &count, NULL) == 0);
	T_ASSERT(count > 0);
	T_ASSERT(surand_test_entropy_pool_digest(parent) == 0);
	T_ASSERT(run_child(&a) == 0);
	T_ASSERT(run_child(&b) == 0);
	/* the child's pool is not the parent's, nor its sibling's */
	T_ASSERT(memcmp(a.digest, parent, 32) != 0);
	T_ASSERT(memcmp(b.digest, parent, 32) != 0);
	T_ASSERT(memcmp(a.digest, b.digest, 32) != 0);
	/* nothing the parent credited or collected carries over */
	T_ASSERT_EQ_U64(a.credit, 0);
	T_ASSERT_EQ_U64(a.events, 0);
	T_ASSERT_EQ_U64(a.slot_count, 0);
	/* the parent keeps its own */
	T_ASSERT(surand_pool_credit_bits() >= 100);
	T_ASSERT(surand_test_fastpool_slot(0, &count, NULL) == 0);
	T_ASSERT(count > 0);
	surand_test_fastpool_force_slot(-1);
}

/*
 * The other secret buffers (the jitter loop's buffer, the pool's pending
 * digests from signal handlers): without wipe-on-fork memory the fork
 * handler must wipe them itself.
 */
static void secret_buffers_wiped_in_child_without_wipeonfork(void)
{
	const void *pend, *jb;
	size_t plen = 0, jlen = 0;
	int status;
	pid_t pid;

	T_ASSERT_EQ_U64((uint64_t)(int64_t)surand_secmem_kind(), (uint64_t)(int64_t)-1);
	surand_test_entropy_source_set(SURAND_ES_CPU, 0);
	surand_test_entropy_source_set(SURAND_ES_JITTER, 1);
	surand_entropy_collect(); /* maps and fills the jitter buffer */
	surand_test_entropy_source_set(SURAND_ES_JITTER, 0);
	/* pending input, as a signal handler inside the pool leaves it */
	surand_entropy_nest++;
	T_ASSERT(surand_add_entropy("pending", 7, 8) == 0);
	surand_entropy_nest--;
	pend = surand_test_entropy_pending_area(&plen);
	jb = surand_test_jitter_buffer(&jlen);
	T_ASSERT(pend != NULL && plen > 0 && jb != NULL && jlen > 0);
	T_ASSERT(!t_all_zero(pend, plen));
	T_ASSERT(!t_all_zero(jb, jlen));
	fflush(stdout);
	pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0)
		_exit((t_all_zero(pend, plen) ? 0 : 1) | (t_all_zero(jb, jlen) ? 0 : 2));
	T_ASSERT(waitpid(pid, &status, 0) == pid && WIFEXITED(status));
	T_ASSERT_MSG(WEXITSTATUS(status) == 0, "in the fork child, not wiped:%s%s",
		     (WEXITSTATUS(status) & 1) ? " pending digests" : "",
		     (WEXITSTATUS(status) & 2) ? " jitter buffer" : "");
	/* the parent's stay */
	T_ASSERT(!t_all_zero(pend, plen));
	T_ASSERT(!t_all_zero(jb, jlen));
}

int main(int argc, char **argv)
{
	t_init(argc, argv);
	surand_test_secmem_force(-1); /* before any secret memory is mapped */
	T_RUN(child_restarts_empty_without_wipeonfork);
	T_RUN(secret_buffers_wiped_in_child_without_wipeonfork);
	return t_done();
}
