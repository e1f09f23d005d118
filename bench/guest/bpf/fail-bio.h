/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The state of fail-bio.bpf.c, shared with its loader failbio.c: the one
 * value of the array map "state", which the loader writes through a mmap
 * of the map.
 */
#ifndef FAIL_BIO_H
#define FAIL_BIO_H

#include <linux/types.h>

struct failbio_rule {
	/*
	 * The disk: the 8 bytes at gendisk's major, which are major and then
	 * first_minor (two ints; on x86, little-endian, major is the low half).
	 */
	__u64 disk;
	__u64 start;
	__u64 end;	/* inclusive */
	__u32 op;	/* a REQ_OP_ number of the build (bio-offsets.h) */
	__u32 chance;	/* fail 1 in chance matching bios; 0: no rule */
};

struct failbio_state {
	struct failbio_rule rule;
	__u64 failed;	/* bios failed since the rule was set */
};

#endif
