// SPDX-License-Identifier: GPL-2.0
/*
 * What the BPF program on should_fail_bio() needs to know about one kernel
 * build, compiled by that build's kbuild the way asm-offsets.c is: the
 * offsets of the bio, block_device and gendisk fields it reads, and the
 * numbers of the ops and flags it compares.  build.sh turns the assembler
 * output into bio-offsets.h.  A layout or numbering change in the kernel
 * changes the header, not the program; a field that goes away breaks the
 * build here, not silently at run time.
 */
#include <linux/kbuild.h>
#include <linux/blk_types.h>
#include <linux/blkdev.h>

/* max() of minmax.h is not a constant expression an "i" operand takes */
#define FB_MAX(a, b) ((a) > (b) ? (a) : (b))

void failbio_offsets(void);

void failbio_offsets(void)
{
	OFFSET(FB_BIO_BDEV, bio, bi_bdev);
	OFFSET(FB_BIO_OPF, bio, bi_opf);
	OFFSET(FB_BIO_FLAGS, bio, bi_flags);
	OFFSET(FB_BIO_SECTOR, bio, bi_iter.bi_sector);
	OFFSET(FB_BIO_SIZE, bio, bi_iter.bi_size);
	DEFINE(FB_BIO_FLAGS_SIZE, sizeof_field(struct bio, bi_flags));
	DEFINE(FB_BIO_HEAD, offsetofend(struct bio, bi_iter.bi_size));
	OFFSET(FB_BDEV_START_SECT, block_device, bd_start_sect);
	OFFSET(FB_BDEV_DISK, block_device, bd_disk);
	/* one read covers both fields, in whichever order they come */
	DEFINE(FB_BDEV_HEAD, FB_MAX(offsetofend(struct block_device, bd_start_sect),
				    offsetofend(struct block_device, bd_disk)));
	OFFSET(FB_DISK_MAJOR, gendisk, major);
	OFFSET(FB_DISK_FIRST_MINOR, gendisk, first_minor);
	DEFINE(FB_BIO_REMAPPED, BIO_REMAPPED);
	DEFINE(FB_REQ_OP_MASK, REQ_OP_MASK);
	DEFINE(FB_SECTOR_SHIFT, SECTOR_SHIFT);
	DEFINE(FB_MINORBITS, MINORBITS);
	DEFINE(FB_OP_READ, REQ_OP_READ);
	DEFINE(FB_OP_WRITE, REQ_OP_WRITE);
	DEFINE(FB_OP_FLUSH, REQ_OP_FLUSH);
	DEFINE(FB_OP_DISCARD, REQ_OP_DISCARD);
	DEFINE(FB_OP_SECURE_ERASE, REQ_OP_SECURE_ERASE);
	DEFINE(FB_OP_ZONE_APPEND, REQ_OP_ZONE_APPEND);
	DEFINE(FB_OP_WRITE_ZEROES, REQ_OP_WRITE_ZEROES);
	DEFINE(FB_OP_ZONE_OPEN, REQ_OP_ZONE_OPEN);
	DEFINE(FB_OP_ZONE_CLOSE, REQ_OP_ZONE_CLOSE);
	DEFINE(FB_OP_ZONE_FINISH, REQ_OP_ZONE_FINISH);
	DEFINE(FB_OP_ZONE_RESET, REQ_OP_ZONE_RESET);
	DEFINE(FB_OP_ZONE_RESET_ALL, REQ_OP_ZONE_RESET_ALL);
	DEFINE(FB_OP_DRV_IN, REQ_OP_DRV_IN);
	DEFINE(FB_OP_DRV_OUT, REQ_OP_DRV_OUT);
}
