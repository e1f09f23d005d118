// SPDX-License-Identifier: GPL-2.0
/*
 * failbio: load, attach and drive fail-bio.bpf.c in the guest, a static
 * binary with the BPF object of one kernel build inside (its skeleton).
 *
 *   failbio attach        load the program, attach it to should_fail_bio()
 *                         and pin it, without a rule (it fails nothing)
 *   failbio add DISK RULE set the one rule: RULE is error_injection's
 *                         "op=OP[,start=S][,nr_sectors=N][,chance=C]"; a
 *                         status other than IOERR is refused
 *   failbio remove        drop the rule, stay attached
 *   failbio show          the rule as error_injection lists one, and the
 *                         number of bios failed since it was set
 *   failbio detach        unpin, and wait until the kernel has released
 *                         the program: it has left should_fail_bio()
 *
 * The program stays attached between calls through its pins in
 * /sys/fs/bpf/failbio (bpffs is mounted there if it is not).  Exit status:
 * 0, 1 when the kernel refused, 2 for bad usage (an invalid rule).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bio-offsets.h"
#include "fail-bio.h"
#include "fail-bio.skel.h"

#define BPFFS "/sys/fs/bpf"
#define PIN_DIR BPFFS "/failbio"
#define PIN_LINK PIN_DIR "/link"
#define PIN_STATE PIN_DIR "/state"
#define BPF_FS_MAGIC_NR 0xcafe4a11

static const struct {
	const char *name;
	unsigned int op;
} ops[] = {
	{ "READ", FB_OP_READ },
	{ "WRITE", FB_OP_WRITE },
	{ "FLUSH", FB_OP_FLUSH },
	{ "DISCARD", FB_OP_DISCARD },
	{ "SECURE_ERASE", FB_OP_SECURE_ERASE },
	{ "ZONE_APPEND", FB_OP_ZONE_APPEND },
	{ "WRITE_ZEROES", FB_OP_WRITE_ZEROES },
	{ "ZONE_OPEN", FB_OP_ZONE_OPEN },
	{ "ZONE_CLOSE", FB_OP_ZONE_CLOSE },
	{ "ZONE_FINISH", FB_OP_ZONE_FINISH },
	{ "ZONE_RESET", FB_OP_ZONE_RESET },
	{ "ZONE_RESET_ALL", FB_OP_ZONE_RESET_ALL },
	{ "DRV_IN", FB_OP_DRV_IN },
	{ "DRV_OUT", FB_OP_DRV_OUT },
};

static int fail(int status, const char *fmt, ...)
{
	va_list ap;

	fputs("failbio: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return status;
}

static int usage(void)
{
	fputs("usage: failbio attach | add DISK op=OP[,start=S][,nr_sectors=N][,chance=C][,status=IOERR]\n"
	      "       | remove | show | detach\n", stderr);
	return 2;
}

static const char *op_name(unsigned int op)
{
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (ops[i].op == op)
			return ops[i].name;
	return "?";
}

/* A number as the kernel's match_u64() reads one: 0x hex, leading-0 octal. */
static bool parse_u64(const char *s, int base, uint64_t *v)
{
	char *end;

	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		return false;
	errno = 0;
	*v = strtoull(s, &end, base);
	return !errno && !*end;
}

/* parse_rule TEXT DISK_ID RULE: error_injection's items, or 2 and a message. */
static int parse_rule(char *text, uint64_t disk, struct failbio_rule *r)
{
	uint64_t start = 0, nr = 0, chance = 1;
	bool have_op = false;
	char *save, *item;

	for (item = strtok_r(text, ",\n", &save); item; item = strtok_r(NULL, ",\n", &save)) {
		char *val = strchr(item, '=');

		if (!val)
			return fail(2, "'%s': an item is NAME=VALUE", item);
		*val++ = '\0';
		if (!strcmp(item, "op")) {
			size_t i;

			for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
				if (!strcmp(ops[i].name, val))
					break;
			if (i == sizeof(ops) / sizeof(ops[0]))
				return fail(2, "op=%s: unknown op", val);
			r->op = ops[i].op;
			have_op = true;
		} else if (!strcmp(item, "start")) {
			if (!parse_u64(val, 0, &start))
				return fail(2, "start=%s: not a number", val);
		} else if (!strcmp(item, "nr_sectors")) {
			if (!parse_u64(val, 0, &nr))
				return fail(2, "nr_sectors=%s: not a number", val);
		} else if (!strcmp(item, "chance")) {
			if (!parse_u64(val, 10, &chance) || !chance || chance > UINT32_MAX)
				return fail(2, "chance=%s: a number from 1 to %u", val, UINT32_MAX);
		} else if (!strcmp(item, "status")) {
			if (strcmp(val, "IOERR"))
				return fail(2, "status=%s: a BPF program cannot choose the status, "
					    "should_fail_bio()'s caller always ends the bio with IOERR", val);
		} else {
			return fail(2, "'%s': unknown item (op, start, nr_sectors, chance, status)", item);
		}
	}
	if (!have_op)
		return fail(2, "a rule needs op=");
	if (nr && UINT64_MAX - nr < start)
		return fail(2, "start + nr_sectors is past 2^64 - 1");
	r->disk = disk;
	r->start = start;
	r->end = nr ? start + nr - 1 : UINT64_MAX;
	r->chance = (uint32_t)chance;
	return 0;
}

/* disk_id NAME ID: a whole disk's major and first minor, as the program compares them. */
static int disk_id(const char *name, uint64_t *id)
{
	char path[PATH_MAX];
	unsigned int major, minor;
	FILE *f;
	int n;

	if (!strncmp(name, "/dev/", 5))
		name += 5;
	if (!*name || strchr(name, '/'))
		return fail(2, "'%s': not a disk name", name);
	snprintf(path, sizeof(path), "/sys/class/block/%s/partition", name);
	if (!access(path, F_OK))
		return fail(2, "%s is a partition: rules are per disk, in the disk's sectors", name);
	snprintf(path, sizeof(path), "/sys/class/block/%s/dev", name);
	f = fopen(path, "r");
	if (!f)
		return fail(2, "%s: no such disk (%s: %s)", name, path, strerror(errno));
	n = fscanf(f, "%u:%u", &major, &minor);
	fclose(f);
	if (n != 2)
		return fail(1, "%s: cannot read major:minor", path);
	*id = (uint64_t)major | (uint64_t)minor << 32;
	return 0;
}

static int ensure_bpffs(void)
{
	struct statfs st;

	if (!statfs(BPFFS, &st) && st.f_type == BPF_FS_MAGIC_NR)
		return 0;
	if (mount("bpf", BPFFS, "bpf", 0, NULL))
		return fail(1, "mounting bpffs on %s: %s", BPFFS, strerror(errno));
	return 0;
}

/* map_state: the pinned state of the attached program, mapped writable. */
static struct failbio_state *map_state(void)
{
	void *p;
	int fd;

	fd = bpf_obj_get(PIN_STATE);
	if (fd < 0) {
		fail(1, "not attached (%s: %s): run 'failbio attach'", PIN_STATE, strerror(errno));
		return NULL;
	}
	p = mmap(NULL, sizeof(struct failbio_state), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		fail(1, "mapping %s: %s", PIN_STATE, strerror(errno));
		return NULL;
	}
	return p;
}

static int cmd_attach(void)
{
	struct fail_bio_bpf *skel;
	struct bpf_link *link;
	int err;

	if (ensure_bpffs())
		return 1;
	if (!access(PIN_LINK, F_OK))
		return fail(1, "already attached (%s)", PIN_LINK);
	skel = fail_bio_bpf__open_and_load();
	if (!skel)
		return fail(1, "loading the program: %s", strerror(errno));
	link = bpf_program__attach(skel->progs.fail_bio);
	err = libbpf_get_error(link);
	if (err) {
		fail_bio_bpf__destroy(skel);
		return fail(1, "attaching to should_fail_bio: %s", strerror(-err));
	}
	if (mkdir(PIN_DIR, 0700) && errno != EEXIST)
		err = -errno;
	if (!err)
		err = bpf_map__pin(skel->maps.state, PIN_STATE);
	if (!err)
		err = bpf_link__pin(link, PIN_LINK);
	if (err) {
		unlink(PIN_STATE);
		rmdir(PIN_DIR);
	}
	bpf_link__destroy(link);
	fail_bio_bpf__destroy(skel);
	return err ? fail(1, "pinning in %s: %s", PIN_DIR, strerror(-err)) : 0;
}

static int cmd_add(const char *disk, const char *text)
{
	struct failbio_rule r = { 0 };
	struct failbio_state *st;
	char buf[4096];
	uint64_t id = 0;
	int err;

	if (strlen(text) >= sizeof(buf))
		return fail(2, "rule too long");
	strcpy(buf, text);
	err = disk_id(disk, &id);
	if (!err)
		err = parse_rule(buf, id, &r);
	if (err)
		return err;
	st = map_state();
	if (!st)
		return 1;
	/* No rule while the fields change; chance last makes it live. */
	__atomic_store_n(&st->rule.chance, 0, __ATOMIC_SEQ_CST);
	st->rule.disk = r.disk;
	st->rule.start = r.start;
	st->rule.end = r.end;
	st->rule.op = r.op;
	__atomic_store_n(&st->failed, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&st->rule.chance, r.chance, __ATOMIC_SEQ_CST);
	munmap(st, sizeof(*st));
	return 0;
}

static int cmd_remove(void)
{
	struct failbio_state *st = map_state();

	if (!st)
		return 1;
	__atomic_store_n(&st->rule.chance, 0, __ATOMIC_SEQ_CST);
	munmap(st, sizeof(*st));
	return 0;
}

static int cmd_show(void)
{
	struct failbio_state *st = map_state();
	struct failbio_rule r;

	if (!st)
		return 1;
	r = st->rule;
	if (r.chance)
		printf("%u:%u %" PRIu64 ":%" PRIu64 " op=%s,status=IOERR,chance=%u failed=%" PRIu64 "\n",
		       (unsigned int)r.disk, (unsigned int)(r.disk >> 32), (uint64_t)r.start,
		       (uint64_t)r.end, op_name(r.op), r.chance, (uint64_t)st->failed);
	munmap(st, sizeof(*st));
	return 0;
}

/* kprobe_listed: should_fail_bio is in debugfs's kprobe list (0 without it). */
static bool kprobe_listed(void)
{
	FILE *f = fopen("/sys/kernel/debug/kprobes/list", "r");
	char line[256];
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, " should_fail_bio+") != NULL;
	fclose(f);
	return found;
}

/*
 * The kernel releases an unpinned link from a workqueue, drops the program
 * and then unregisters the kprobe: wait until the program's id is gone and
 * the kprobe list (where debugfs has one) no longer names should_fail_bio,
 * so that nothing of it is left when detach returns.
 */
static int wait_released(uint32_t prog_id)
{
	for (int i = 0; i < 1000; i++) {
		int fd = bpf_prog_get_fd_by_id(prog_id);

		if (fd >= 0)
			close(fd);
		else if (!kprobe_listed())
			return 0;
		usleep(10000);
	}
	return fail(1, "program %u or its kprobe still there 10 s after detach", prog_id);
}

static int cmd_detach(void)
{
	struct bpf_link_info info = { 0 };
	uint32_t len = sizeof(info);
	int fd = bpf_obj_get(PIN_LINK);

	if (fd >= 0 && bpf_obj_get_info_by_fd(fd, &info, &len))
		info.prog_id = 0;
	if (fd >= 0)
		close(fd);
	if (unlink(PIN_LINK) && errno != ENOENT)
		return fail(1, "unpinning %s: %s", PIN_LINK, strerror(errno));
	if (unlink(PIN_STATE) && errno != ENOENT)
		return fail(1, "unpinning %s: %s", PIN_STATE, strerror(errno));
	if (rmdir(PIN_DIR) && errno != ENOENT)
		return fail(1, "removing %s: %s", PIN_DIR, strerror(errno));
	return info.prog_id ? wait_released(info.prog_id) : 0;
}

static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

int main(int argc, char **argv)
{
	libbpf_set_print(print_libbpf);
	if (argc == 2 && !strcmp(argv[1], "attach"))
		return cmd_attach();
	if (argc == 4 && !strcmp(argv[1], "add"))
		return cmd_add(argv[2], argv[3]);
	if (argc == 2 && !strcmp(argv[1], "remove"))
		return cmd_remove();
	if (argc == 2 && !strcmp(argv[1], "show"))
		return cmd_show();
	if (argc == 2 && !strcmp(argv[1], "detach"))
		return cmd_detach();
	return usage();
}
