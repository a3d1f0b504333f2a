/*
 * stdfds.h - the standard descriptors of the surand command (and surandfs,
 * which includes this header from here).
 * A program started with fd 0, 1 or 2 closed would get that number back
 * from its next open(2): the output file of `surand -o FILE 2>&-` would
 * become standard error, and progress lines or messages would land in it.
 * SPDX-License-Identifier: MIT
 */
#ifndef SURAND_TOOLS_STDFDS_H
#define SURAND_TOOLS_STDFDS_H

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

/*
 * Opens /dev/null on each of fds 0-2 that is closed, in the mode opposite to
 * the stream's (write-only for 0, read-only for 1 and 2): the number is taken,
 * and a read or write there still fails with EBADF as it did on the closed
 * descriptor (`surand >&-` still reports its failed write).  0, or -1 with
 * errno set when /dev/null cannot be opened.
 */
static inline int surand_stdfds_reserve(void)
{
	int fd;

	for (fd = 0; fd <= 2; fd++) {
		int got;

		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		/* the lowest free number: fd itself, as those below it are open */
		got = open("/dev/null", (fd == 0 ? O_WRONLY : O_RDONLY) | O_NOCTTY);
		if (got < 0)
			return -1;
		if (got != fd) {
			close(got);
			errno = EBADF;
			return -1;
		}
	}
	return 0;
}

#endif
