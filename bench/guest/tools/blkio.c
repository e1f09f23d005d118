// SPDX-License-Identifier: GPL-2.0
/*
 * blkio: issue one kind of block I/O from user space and print the errno
 * the syscall returned by name ("ok", "EIO", "ENOLINK", ...), so tests can
 * check exactly what an injected status turns into.
 *
 *   blkio [-N] [-t] [-n COUNT [-l]] OP DEV OFFSET LEN
 *
 * OP is read or write (O_DIRECT pread/pwrite; with -N preadv2/pwritev2 with
 * RWF_NOWAIT, so the bio carries REQ_NOWAIT), discard (BLKDISCARD), wzero
 * (BLKZEROOUT, which falls back to plain writes on devices without write
 * zeroes support), zreset, zopen, zclose, zfinish (zone ioctls on the zones
 * in the range), flush (fsync, an empty write with REQ_PREFLUSH; OFFSET
 * and LEN are ignored), or addpart (BLKPG: add partition 1 over the range,
 * for disks without a partition table).  OFFSET and LEN are
 * bytes.  With -n the I/O is repeated COUNT times and one line per result
 * kind is printed as "NAME COUNT", sorted by name; with -l as well, each
 * result's name on a line of its own instead, in the order of the I/Os.
 * With -t each I/O's line is followed by the microseconds it took on
 * CLOCK_MONOTONIC ("ok 200113"); it implies -l.  Under tcg-icount the guest's
 * clock is its instruction count and skips idle time, so a wait on a timer
 * reads as the timer's delay plus the instructions run meanwhile.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/blkpg.h>
#include <linux/blkzoned.h>
#include <linux/fs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include "errname.h"

#define MAX_KINDS 32

static int rw_flags;	/* RWF_NOWAIT with -N */

static uint64_t now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

struct tally {
	int err;
	unsigned long count;
};

static int do_io(const char *op, int fd, uint64_t off, uint64_t len,
		 void *buf)
{
	uint64_t range[2] = { off, len };
	struct blk_zone_range zr = { off >> 9, len >> 9 };
	struct blkpg_partition part = { .start = off, .length = len, .pno = 1 };
	struct blkpg_ioctl_arg pg = {
		.op = BLKPG_ADD_PARTITION,
		.datalen = sizeof(part),
		.data = &part,
	};
	ssize_t ret;
	int r;

	if (!strcmp(op, "read") || !strcmp(op, "write")) {
		struct iovec iov = { .iov_base = buf, .iov_len = len };

		ret = op[0] == 'r' ? preadv2(fd, &iov, 1, off, rw_flags) :
				     pwritev2(fd, &iov, 1, off, rw_flags);
		if (ret < 0)
			return errno;
		return (uint64_t)ret == len ? 0 : EIO;
	}
	if (!strcmp(op, "flush"))
		r = fsync(fd);
	else if (!strcmp(op, "discard"))
		r = ioctl(fd, BLKDISCARD, range);
	else if (!strcmp(op, "wzero"))
		r = ioctl(fd, BLKZEROOUT, range);
	else if (!strcmp(op, "zreset"))
		r = ioctl(fd, BLKRESETZONE, &zr);
	else if (!strcmp(op, "zopen"))
		r = ioctl(fd, BLKOPENZONE, &zr);
	else if (!strcmp(op, "zclose"))
		r = ioctl(fd, BLKCLOSEZONE, &zr);
	else if (!strcmp(op, "zfinish"))
		r = ioctl(fd, BLKFINISHZONE, &zr);
	else if (!strcmp(op, "addpart"))
		r = ioctl(fd, BLKPG, &pg);
	else
		return -1;
	return r < 0 ? errno : 0;
}

static void count_result(struct tally *t, int *nkinds, int err)
{
	int i;

	for (i = 0; i < *nkinds; i++) {
		if (t[i].err == err) {
			t[i].count++;
			return;
		}
	}
	if (*nkinds < MAX_KINDS) {
		t[*nkinds].err = err;
		t[*nkinds].count = 1;
		(*nkinds)++;
	}
}

static int by_name(const void *a, const void *b)
{
	const struct tally *x = a, *y = b;
	char nx[16];

	snprintf(nx, sizeof(nx), "%s", errname(x->err));
	return strcmp(nx, errname(y->err));
}

static void usage(void)
{
	fprintf(stderr, "usage: blkio [-N] [-t] [-n COUNT [-l]] OP DEV OFFSET LEN\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct tally tally[MAX_KINDS];
	unsigned long count = 1, i;
	int nkinds = 0, fd, err, opt, list = 0, timed = 0;
	uint64_t off, len, t0;
	void *buf = NULL;

	while ((opt = getopt(argc, argv, "Nn:lt")) != -1) {
		if (opt == 'N')
			rw_flags = RWF_NOWAIT;
		else if (opt == 't')
			timed = list = 1;
		else if (opt == 'n')
			count = strtoul(optarg, NULL, 0);
		else if (opt == 'l')
			list = 1;
		else
			usage();
	}
	if (argc - optind != 4 || count == 0)
		usage();
	off = strtoull(argv[optind + 2], NULL, 0);
	len = strtoull(argv[optind + 3], NULL, 0);

	fd = open(argv[optind + 1], O_RDWR | O_DIRECT);
	if (fd < 0) {
		fprintf(stderr, "blkio: open %s: %s\n", argv[optind + 1],
			strerror(errno));
		return 2;
	}
	/* Only reads and writes carry data; zone and discard ranges can be huge. */
	if (!strcmp(argv[optind], "read") || !strcmp(argv[optind], "write")) {
		if (!len || posix_memalign(&buf, 4096, len)) {
			fprintf(stderr, "blkio: cannot allocate a %llu-byte buffer\n",
				(unsigned long long)len);
			return 2;
		}
		memset(buf, 0xa5, len);
	}

	for (i = 0; i < count; i++) {
		t0 = now_us();
		err = do_io(argv[optind], fd, off, len, buf);
		if (err < 0)
			usage();
		if (timed)
			printf("%s %llu\n", errname(err),
			       (unsigned long long)(now_us() - t0));
		else if (list)
			printf("%s\n", errname(err));
		else
			count_result(tally, &nkinds, err);
	}
	if (!list && count == 1) {
		printf("%s\n", errname(tally[0].err));
	} else if (!list) {
		qsort(tally, nkinds, sizeof(tally[0]), by_name);
		for (i = 0; i < (unsigned long)nkinds; i++)
			printf("%s %lu\n", errname(tally[i].err), tally[i].count);
	}
	free(buf);
	close(fd);
	return 0;
}
