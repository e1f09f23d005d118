// SPDX-License-Identifier: GPL-2.0
/*
 * zappend: submit one REQ_OP_ZONE_APPEND bio while being loaded, for the
 * guest tests.  User space has no way to issue a zone append to a block
 * device in 6.12 (only btrfs and the NVMe target's ZNS code do), yet rules
 * with op=ZONE_APPEND must fail them.
 *
 *   insmod zappend.ko dev=/dev/nullb0 sector=8192 sectors=8
 *
 * appends SECTORS sectors of zeroes to the zone that starts at SECTOR.
 * Loading fails with the errno the bio completed with; when it completed
 * without error the module stays loaded, and its parameter "written"
 * reads the sector the device wrote the data at, until rmmod.
 */
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/file.h>
#include <linux/module.h>

static char *dev;
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "path of the zoned block device");

static unsigned long long sector;
module_param(sector, ullong, 0444);
MODULE_PARM_DESC(sector, "first sector of the zone to append to");

static unsigned int sectors = 8;
module_param(sectors, uint, 0444);
MODULE_PARM_DESC(sectors, "sectors to append, at most a page");

static unsigned long long written;
module_param(written, ullong, 0444);
MODULE_PARM_DESC(written, "where the device wrote the data");

static int __init zappend_init(void)
{
	unsigned int len = sectors << SECTOR_SHIFT;
	struct file *file;
	struct page *page;
	struct bio *bio;
	int ret;

	if (!dev || !sectors || len > PAGE_SIZE)
		return -EINVAL;
	file = bdev_file_open_by_path(dev, BLK_OPEN_READ | BLK_OPEN_WRITE,
				      NULL, NULL);
	if (IS_ERR(file))
		return PTR_ERR(file);
	page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!page) {
		ret = -ENOMEM;
		goto out_fput;
	}
	bio = bio_alloc(file_bdev(file), 1, REQ_OP_ZONE_APPEND, GFP_KERNEL);
	bio->bi_iter.bi_sector = sector;
	if (bio_add_zone_append_page(bio, page, len, 0) != len) {
		ret = -EINVAL;
	} else {
		ret = submit_bio_wait(bio);
		written = bio->bi_iter.bi_sector;
	}
	bio_put(bio);
	__free_page(page);
out_fput:
	fput(file);
	return ret;
}

static void __exit zappend_exit(void)
{
}

module_init(zappend_init);
module_exit(zappend_exit);
MODULE_DESCRIPTION("Submit one zone append bio, for blkinject-bench's guest tests");
MODULE_LICENSE("GPL");
