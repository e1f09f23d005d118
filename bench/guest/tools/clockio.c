// SPDX-License-Identifier: GPL-2.0
/*
 * clockio: guest time of one write(2) or of a loop of reads, read with
 * clock_gettime(CLOCK_MONOTONIC) right around the system calls, so that
 * nothing else (a shell, a fork) is inside the interval.  Under QEMU
 * -icount shift=0 one guest nanosecond is one guest instruction.
 *
 *   clockio write FILE STRING
 *       one write(2) of STRING to FILE (opened before the clock starts);
 *       prints "ns=N result=ERRNAME"
 *   clockio pread DEV COUNT
 *       COUNT O_DIRECT 4 KiB reads at pseudo-random 4 KiB offsets in the
 *       first GiB of DEV (a fixed sequence); prints
 *       "ios=N errors=E ns=T ns_per_io=X"
 *
 * Exit status: 0 when the calls were made (their errors are results), 1 on
 * bad usage or when FILE/DEV cannot be opened.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "errname.h"

#define BLOCK 4096
#define SPAN_BLOCKS (1u << 18)	/* 1 GiB of 4 KiB blocks */

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int usage(void)
{
	fprintf(stderr, "usage: clockio write FILE STRING\n"
			"       clockio pread DEV COUNT\n");
	return 1;
}

static int time_write(const char *path, const char *s)
{
	size_t len = strlen(s);
	int64_t t0, t1;
	ssize_t r;
	int fd, err;

	fd = open(path, O_WRONLY);
	if (fd < 0) {
		fprintf(stderr, "clockio: %s: %s\n", path, strerror(errno));
		return 1;
	}
	t0 = now_ns();
	r = write(fd, s, len);
	t1 = now_ns();
	err = r < 0 ? errno : 0;
	close(fd);
	printf("ns=%lld result=%s\n", (long long)(t1 - t0), errname(err));
	return 0;
}

static int time_preads(const char *path, const char *count_arg)
{
	unsigned long count, i, errors = 0;
	uint64_t x = 88172645463325252ull;	/* xorshift64 state */
	int64_t t0, t1;
	void *buf;
	char *end;
	int fd;

	count = strtoul(count_arg, &end, 10);
	if (*end || count == 0) {
		fprintf(stderr, "clockio: COUNT '%s': need a positive integer\n", count_arg);
		return 1;
	}
	fd = open(path, O_RDONLY | O_DIRECT);
	if (fd < 0) {
		fprintf(stderr, "clockio: %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (posix_memalign(&buf, BLOCK, BLOCK)) {
		fprintf(stderr, "clockio: out of memory\n");
		return 1;
	}
	t0 = now_ns();
	for (i = 0; i < count; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		if (pread(fd, buf, BLOCK, (off_t)(x % SPAN_BLOCKS) * BLOCK) != BLOCK)
			errors++;
	}
	t1 = now_ns();
	close(fd);
	free(buf);
	printf("ios=%lu errors=%lu ns=%lld ns_per_io=%.2f\n", count, errors,
	       (long long)(t1 - t0), (double)(t1 - t0) / (double)count);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "write"))
		return time_write(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "pread"))
		return time_preads(argv[2], argv[3]);
	return usage();
}
