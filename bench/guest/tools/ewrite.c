// SPDX-License-Identifier: GPL-2.0
/*
 * ewrite: write(2) exactly the given bytes to a file in one call and print
 * "ok" or the errno by name.  The shell's echo cannot do an empty write or
 * report the errno, which the rule-parser tests need.
 *
 *   ewrite FILE STRING       write STRING (no newline added)
 *   ewrite -z FILE           a zero-length write
 *   ewrite -s SIZE FILE      write SIZE bytes of 'a'
 *   ewrite -f FILE           write 8 bytes from a page that cannot be read
 *                            (the kernel's copy from user space faults)
 *   ewrite -n N FILE STRING  write STRING with the N-th fault-injection point
 *                            of the write failing (fail-nth: failslab makes
 *                            that allocation fail); prints the result and
 *                            ", not reached" when the write had fewer points
 *   ewrite -r FILE STRING    write STRING again and again through one open
 *                            file until a write fails, and print that
 *                            write's errno (EIO once debugfs removed FILE)
 */
/* for MAP_ANONYMOUS */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "errname.h"

int main(int argc, char **argv)
{
	const char *path, *data = "";
	char *fill = NULL;
	size_t len = 0;
	ssize_t ret;
	int fd, nth_fd = -1, repeat = 0;
	const char *nth = NULL;
	char left[16] = "";

	if (argc == 3 && !strcmp(argv[1], "-z")) {
		path = argv[2];
	} else if (argc == 4 && !strcmp(argv[1], "-s")) {
		len = strtoul(argv[2], NULL, 0);
		fill = malloc(len ? len : 1);
		if (!fill)
			return 2;
		memset(fill, 'a', len);
		data = fill;
		path = argv[3];
	} else if (argc == 3 && !strcmp(argv[1], "-f")) {
		data = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (data == MAP_FAILED)
			return 2;
		len = 8;
		path = argv[2];
	} else if (argc == 5 && !strcmp(argv[1], "-n")) {
		nth = argv[2];
		path = argv[3];
		data = argv[4];
		len = strlen(data);
	} else if (argc == 4 && !strcmp(argv[1], "-r")) {
		repeat = 1;
		path = argv[2];
		data = argv[3];
		len = strlen(data);
	} else if (argc == 3) {
		path = argv[1];
		data = argv[2];
		len = strlen(data);
	} else {
		fprintf(stderr, "usage: ewrite FILE STRING | -z FILE | -s SIZE FILE | -f FILE | -n N FILE STRING | -r FILE STRING\n");
		return 2;
	}

	fd = open(path, O_WRONLY);
	if (fd < 0) {
		fprintf(stderr, "ewrite: open %s: %s\n", path, strerror(errno));
		return 2;
	}
	/*
	 * Both files are open before the count starts, so that only the
	 * allocations of the write itself are counted.
	 */
	if (nth) {
		nth_fd = open("/proc/thread-self/fail-nth", O_RDWR);
		if (nth_fd < 0 || write(nth_fd, nth, strlen(nth)) < 0) {
			fprintf(stderr, "ewrite: fail-nth: %s\n", strerror(errno));
			return 2;
		}
	}
	do
		ret = write(fd, data, len);
	while (repeat && ret >= 0);
	printf("%s", ret < 0 ? errname(errno) : "ok");
	/* fail-nth reads 0 once the fault was injected, else what is left. */
	if (nth_fd >= 0 && pread(nth_fd, left, sizeof(left) - 1, 0) > 0 && atoi(left))
		printf(", not reached");
	printf("\n");
	close(fd);
	free(fill);
	return 0;
}
