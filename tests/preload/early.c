/*
 * early.c - libplearly.so: a library whose constructor draws random bytes
 * before libsurand-preload.so's constructor has run (the dynamic loader runs
 * the constructors of a program's own libraries before those of LD_PRELOAD
 * objects; tests/preload.sh checks that order with LD_DEBUG=files).
 * SPDX-License-Identifier: MIT
 */
#include <fcntl.h>
#include <sys/random.h>
#include <unistd.h>

int plearly_status;
unsigned char plearly_bytes[64];

__attribute__((constructor)) static void plearly_init(void)
{
	int fd;

	if (getrandom(plearly_bytes, 32, 0) != 32) {
		plearly_status = -1;
		return;
	}
	fd = open("/dev/urandom", O_RDONLY);
	if (fd < 0) {
		plearly_status = -2;
		return;
	}
	if (read(fd, plearly_bytes + 32, 32) != 32)
		plearly_status = -3;
	else
		plearly_status = 1;
	close(fd);
}
