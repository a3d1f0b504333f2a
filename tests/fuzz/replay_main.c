/*
 * replay_main.c - runs a libFuzzer harness over files without libFuzzer: each
 * argument is a file or a directory of files (tests/corpus/<target>/), every
 * input is fed once to LLVMFuzzerTestOneInput.  Built with gcc by
 * mk/reliability.mk and run by tests/reliability.sh in make check, so the
 * corpus (and every crash ever found, kept there) is replayed on every build.
 * Prints "replayed N inputs"; a violated contract aborts (exit != 0).
 * SPDX-License-Identifier: MIT
 */
#include <dirent.h>
#include <sys/stat.h>

#include "fuzz.h"

static long replayed;

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	if (!f)
		return -1;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc(n > 0 ? (size_t)n : 1);
	if (!buf || (n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n)) {
		fclose(f);
		free(buf);
		return -1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, (size_t)n);
	free(buf);
	replayed++;
	return 0;
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) != 0) {
			fprintf(stderr, "replay: %s: not found\n", argv[i]);
			return 2;
		}
		if (S_ISDIR(st.st_mode)) {
			DIR *d = opendir(argv[i]);
			struct dirent *e;
			char path[4096];
			while (d && (e = readdir(d)) != NULL) {
				if (e->d_name[0] == '.')
					continue;
				snprintf(path, sizeof(path), "%s/%s", argv[i], e->d_name);
				if (run_file(path) != 0) {
					fprintf(stderr, "replay: %s: unreadable\n", path);
					return 2;
				}
			}
			if (d)
				closedir(d);
		} else if (run_file(argv[i]) != 0) {
			fprintf(stderr, "replay: %s: unreadable\n", argv[i]);
			return 2;
		}
	}
	printf("replayed %ld inputs\n", replayed);
	return 0;
}
