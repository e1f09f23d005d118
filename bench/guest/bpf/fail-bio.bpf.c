// SPDX-License-Identifier: GPL-2.0
/*
 * fail-bio: the BPF way of injecting block errors (should_fail_bio(), seed
 * 007), as a peer of error_injection.  A kprobe program on the entry of
 * should_fail_bio() makes it return -EIO, so that submit_bio_noacct() ends
 * the bio with BLK_STS_IOERR, for the bios that match the one rule in the
 * map "state": a disk, an op, a range of whole-disk sectors and a chance of 1 in
 * N, with error_injection's matching (zone management ops by their first
 * sector, bios without data never).
 *
 * Without BTF a kprobe program cannot dereference kernel pointers: each
 * struct is copied with bpf_probe_read_kernel() at offsets bio-offsets.h
 * takes from the kernel build (three copies per bio of the rule's op).
 * What a BPF program cannot do at all is choose the status: the caller
 * ignores the value and always completes the bio with BLK_STS_IOERR.
 */
#include <linux/bpf.h>
#include <linux/ptrace.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "bio-offsets.h"
#include "fail-bio.h"

#define EIO 5

_Static_assert(FB_DISK_FIRST_MINOR == FB_DISK_MAJOR + 4,
	       "gendisk's major and first_minor are no longer side by side");
_Static_assert(FB_BIO_FLAGS_SIZE == 2, "bio's bi_flags is no longer 16 bits");

/*
 * The rule, written by the loader through a mmap of this map.  A map of
 * our own, not global variables: libbpf probes for global data with a
 * socket filter program, which a kernel without CONFIG_NET cannot load.
 * The verifier inlines the lookup of an array map.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct failbio_state);
} state SEC(".maps");

static __always_inline __u64 load_u64(const __u8 *p)
{
	__u64 v;

	__builtin_memcpy(&v, p, sizeof(v));
	return v;
}

static __always_inline __u32 load_u32(const __u8 *p)
{
	__u32 v;

	__builtin_memcpy(&v, p, sizeof(v));
	return v;
}

static __always_inline int is_zone_mgmt(__u32 op)
{
	return op == FB_OP_ZONE_OPEN || op == FB_OP_ZONE_CLOSE ||
	       op == FB_OP_ZONE_FINISH || op == FB_OP_ZONE_RESET;
}

SEC("kprobe/should_fail_bio")
int BPF_KPROBE(fail_bio, void *bio)
{
	__u64 b[(FB_BIO_HEAD + 7) / 8], d[(FB_BDEV_HEAD + 7) / 8];
	struct failbio_rule *rule;
	struct failbio_state *st;
	__u64 disk_id, sector;
	__u32 key = 0, chance, op, nr;
	__u16 flags;
	void *disk;

	st = bpf_map_lookup_elem(&state, &key);
	if (!st)
		return 0;
	rule = &st->rule;
	chance = rule->chance;
	if (!chance)
		return 0;
	if (bpf_probe_read_kernel(b, sizeof(b), bio))
		return 0;
	op = load_u32((__u8 *)b + FB_BIO_OPF) & FB_REQ_OP_MASK;
	if (op != rule->op)
		return 0;
	if (bpf_probe_read_kernel(d, sizeof(d), (void *)load_u64((__u8 *)b + FB_BIO_BDEV)))
		return 0;
	disk = (void *)load_u64((__u8 *)d + FB_BDEV_DISK);
	/* major and first_minor side by side (build.sh checks): one copy */
	if (bpf_probe_read_kernel(&disk_id, sizeof(disk_id), disk + FB_DISK_MAJOR))
		return 0;
	if (disk_id != rule->disk)
		return 0;
	/*
	 * The hook runs before a partition's bio is remapped: add the
	 * partition's start unless this is a remainder of a split bio that
	 * was remapped already, so that the rule is in whole-disk sectors.
	 */
	sector = load_u64((__u8 *)b + FB_BIO_SECTOR);
	__builtin_memcpy(&flags, (__u8 *)b + FB_BIO_FLAGS, sizeof(flags));
	if (!(flags & (1U << FB_BIO_REMAPPED)))
		sector += load_u64((__u8 *)d + FB_BDEV_START_SECT);
	nr = load_u32((__u8 *)b + FB_BIO_SIZE) >> FB_SECTOR_SHIFT;
	if (is_zone_mgmt(op)) {
		if (sector < rule->start || sector > rule->end)
			return 0;
	} else if (!nr || sector > rule->end || sector + nr <= rule->start) {
		return 0;
	}
	/* 1 in chance, as get_random_u32_below() scales a random word */
	if (chance > 1 && ((__u64)bpf_get_prandom_u32() * chance) >> 32)
		return 0;
	__sync_fetch_and_add(&st->failed, 1);
	bpf_override_return(ctx, -EIO);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
