// SPDX-License-Identifier: GPL-2.0
/*
 * eifuzz: model-based fuzzer for a disk's error_injection debugfs file.
 *
 *   eifuzz [-s SEED] [-n STEPS] [-t TRIALS] [-S SECONDS] [-r] [-b] [-X] DISK
 *   eifuzz -T [-X]
 *
 * Each step is either a write(2) to /sys/kernel/debug/block/DISK/
 * error_injection (rules from the grammar, mutations of valid rules, raw
 * bytes) or I/O on /dev/DISK of an op the disk supports (some reads with
 * RWF_NOWAIT).  A reference model of the rule list, written from the
 * statements of Documentation/block/error-injection.rst and not from the
 * kernel's code (each part quotes the statement it follows), predicts every
 * write's result (the rule added, or EINVAL and nothing changed) and every
 * I/O's errno; after each write the read-back file is compared with the
 * model line by line.  -T prints the model's tables, which
 * tests/host/model-tables.sh checks against the rst's.  I/O whose outcome is random
 * (chance rules) is repeated TRIALS times and each outcome's count must lie
 * in its exact binomial acceptance band; see STAT_ALPHA for the false-failure
 * probability.
 *
 * On the first disagreement the step sequence is shrunk (subsequences are
 * replayed from a clean state: removeall, all zones reset) to a shorter one
 * that still disagrees (for at most -S seconds), which is printed with the
 * seed; the exit status is 1.
 * -r also prints writes/s and I/Os/s (timing; never use it in a test).
 * I/O is kept to what the queue takes as one bio (max_sectors_kb,
 * discard_max_bytes, write_zeroes_max_bytes), because the remainder of a
 * split bio is submitted again and meets the chance rules again; -b lifts
 * that limit (up to 1 MiB) to show it.  I/O on a zoned disk may cross a
 * zone boundary, where the queue splits it too: the model walks the rules
 * again for each such piece (bio_outcomes()).
 *
 * The follow-up series (patches/next) adds the items delay_us, count and
 * seed and appends a rule's counters to its line.  What the kernel has is
 * probed at the start, and the model follows the rst of the follow-up for
 * it: the read-back always, the new items in generated rules only with -X
 * (without it the steps of a seed are those of the series in patches/),
 * and -T -X prints the follow-up's facts as well.  The counters are
 * predicted exactly where every rule a bio meets fires for sure; where a
 * chance decides, the model takes the kernel's counters after checking that
 * they only grew, by no more than the bios could add, and keep failed and
 * delayed within matched.  A bio that meets a rule with a count and a
 * chance rule is run once, not repeated: its outcome may be any of those
 * with the count left or used up.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/blkzoned.h>
#include <linux/fs.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include "errname.h"

#define PAGE 4096		/* writes of this many bytes or more: EINVAL */
#define NUMBER_MAX_LEN 23	/* longer number texts are rejected */
#define MAX_IO_SECTORS 2048	/* 1 MiB: one bio for every op we issue */
#define MAX_RULES 48
#define MAX_STEPS 100000
#define MAX_ZONES 4096
#define MAX_OUTCOMES 24
/*
 * A statistical check fails a correct kernel with probability at most
 * STAT_ALPHA: each outcome's count is tested against both tails of its
 * Binomial(TRIALS, p) law at STAT_ALPHA / (2 * outcomes).
 */
#define STAT_ALPHA 1e-7

/* ---- deterministic PRNG (splitmix64) ---- */

static uint64_t rng_state;

static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t below(uint64_t n)
{
	return n ? rnd() % n : 0;
}

static bool one_in(unsigned int n)
{
	return below(n) == 0;
}

/*
 * ---- the interface, as Documentation/block/error-injection.rst states it ----
 *
 * The model is written from the documentation, not from the kernel's code:
 * each part quotes the statement it follows.  The tables (operations and
 * what their rules match on, statuses and their errnos, refused statuses,
 * limits) are printed by "eifuzz -T" and checked against the rst's own
 * tables and sentences by tests/host/model-tables.sh, a host test of make test.
 */

enum op {
	OP_READ, OP_WRITE, OP_FLUSH, OP_DISCARD, OP_SECURE_ERASE, OP_ZONE_RESET,
	OP_ZONE_RESET_ALL, OP_ZONE_OPEN, OP_ZONE_CLOSE, OP_ZONE_FINISH,
	OP_ZONE_APPEND, OP_WRITE_ZEROES, OP_DRV_IN, OP_DRV_OUT, NR_OPS
};

/* The rst's "matches on" column: "sectors", "zone start" or "nothing". */
enum match { M_SECTORS, M_ZONE_START, M_NOTHING };

static const char *const match_names[] = { "sectors", "zone start", "nothing" };

/* The rst's Operations table. */
static const struct {
	const char *name;
	enum match match;
} ops[NR_OPS] = {
	[OP_READ] = { "READ", M_SECTORS },
	[OP_WRITE] = { "WRITE", M_SECTORS },
	[OP_FLUSH] = { "FLUSH", M_NOTHING },
	[OP_DISCARD] = { "DISCARD", M_SECTORS },
	[OP_SECURE_ERASE] = { "SECURE_ERASE", M_SECTORS },
	[OP_ZONE_RESET] = { "ZONE_RESET", M_ZONE_START },
	[OP_ZONE_RESET_ALL] = { "ZONE_RESET_ALL", M_NOTHING },
	[OP_ZONE_OPEN] = { "ZONE_OPEN", M_ZONE_START },
	[OP_ZONE_CLOSE] = { "ZONE_CLOSE", M_ZONE_START },
	[OP_ZONE_FINISH] = { "ZONE_FINISH", M_ZONE_START },
	[OP_ZONE_APPEND] = { "ZONE_APPEND", M_SECTORS },
	[OP_WRITE_ZEROES] = { "WRITE_ZEROES", M_SECTORS },
	[OP_DRV_IN] = { "DRV_IN", M_NOTHING },
	[OP_DRV_OUT] = { "DRV_OUT", M_NOTHING },
};

/*
 * The rst's Statuses table: "A rule can use every status that a bio can
 * complete with.  The caller of the failed I/O sees the errno that the
 * block layer maps the status to"; AGAIN "applies only to" bios "that
 * must not block" (REQ_NOWAIT).
 */
static const struct {
	const char *tag;
	int err;
	bool nowait_only;
} statuses[] = {
	{ "NOTSUPP", EOPNOTSUPP, false }, { "TIMEOUT", ETIMEDOUT, false },
	{ "NOSPC", ENOSPC, false }, { "TRANSPORT", ENOLINK, false },
	{ "TARGET", EREMOTEIO, false }, { "RESV_CONFLICT", EBADE, false },
	{ "MEDIUM", ENODATA, false }, { "PROTECTION", EILSEQ, false },
	{ "RESOURCE", ENOMEM, false }, { "IOERR", EIO, false },
	{ "AGAIN", EAGAIN, true }, { "OFFLINE", ENODEV, false },
	{ "ZONE_OPEN_RESOURCE", ETOOMANYREFS, false },
	{ "ZONE_ACTIVE_RESOURCE", EOVERFLOW, false },
	{ "DURATION_LIMIT", ETIME, false }, { "INVAL", EINVAL, false },
};
#define NR_STATUSES ((int)(sizeof(statuses) / sizeof(statuses[0])))

/* The rst's table of the BLK_STS_ names a rule may not use. */
static const char *const refused_statuses[] = { "OK", "DEV_RESOURCE", "DM_REQUEUE" };
#define NR_REFUSED ((int)(sizeof(refused_statuses) / sizeof(refused_statuses[0])))

/* Status names the generator writes: the accepted ones, then the refused. */
static const char *status_name(int i)
{
	return i < NR_STATUSES ? statuses[i].tag : refused_statuses[i - NR_STATUSES];
}

/*
 * Limits: "A write of a page (PAGE_SIZE bytes) or more is refused",
 * "A number written with more than 23 characters is refused", chance
 * "from 1 to 4294967295", start and nr_sectors "take 64-bit values".
 */
#define CHANCE_MAX 4294967295u

/*
 * The follow-up's limits: delay_us "takes 1 to 30000000", count "takes 1 to
 * 4294967295", seed "takes 0 to 4294967295".
 */
#define DELAY_MAX 30000000u
#define COUNT_MAX 4294967295u
#define SEED_MAX 4294967295u

/* What the kernel has of the follow-up (probed); -X: generate its items. */
static struct {
	bool delay, count, seed, counters;
} K;
static bool opt_next;

static int find_op(const char *s)
{
	for (int i = 0; i < NR_OPS; i++)
		if (!strcmp(ops[i].name, s))
			return i;
	return -1;
}

static int find_status(const char *s)
{
	for (int i = 0; i < NR_STATUSES; i++)
		if (!strcmp(statuses[i].tag, s))
			return i;
	return -1;
}

/* eifuzz -T: the tables above, one fact a line (tests/host/model-tables.sh). */
static void print_tables(void)
{
	for (int i = 0; i < NR_OPS; i++)
		printf("op %s %s\n", ops[i].name, match_names[ops[i].match]);
	for (int i = 0; i < NR_STATUSES; i++)
		printf("status %s %s%s\n", statuses[i].tag, errname(statuses[i].err),
		       statuses[i].nowait_only ? " nowait-only" : "");
	for (int i = 0; i < NR_REFUSED; i++)
		printf("refused %s\n", refused_statuses[i]);
	printf("limit write-bytes-refused-from %d\n", PAGE);
	printf("limit number-characters %d\n", NUMBER_MAX_LEN);
	printf("limit chance 1 %u\n", CHANCE_MAX);
	printf("limit last-sector %" PRIu64 "\n", UINT64_MAX);
	if (!opt_next)
		return;
	printf("limit delay_us 1 %u\n", DELAY_MAX);
	printf("limit count 1 %u\n", COUNT_MAX);
	printf("limit seed 0 %u\n", SEED_MAX);
	printf("refused delay_us with AGAIN\n");
	printf("readback no-status none\n");
	printf("readback counters matched failed delayed\n");
}

/* ---- the model ---- */

struct rule {
	uint64_t start, end;	/* inclusive */
	int op, status;		/* status -1: none, the rule only delays */
	uint32_t chance;
	uint32_t delay_us, count, seed;	/* 0: not given (seed: see seeded) */
	bool seeded;
	/* the counters, and how often the rule may still fire (with count) */
	uint64_t matched, failed, delayed, left;
};

enum zcond { Z_EMPTY, Z_OPEN, Z_FULL };

struct model {
	struct rule rules[MAX_RULES * 2];	/* newest first */
	int nr;
	unsigned char zone[MAX_ZONES];
};

static struct model M;

/*
 * A number, as the rst's "Details of the syntax" put it: "written as C
 * writes an unsigned constant without a suffix: 0x or 0X starts a
 * hexadecimal number, a leading 0 an octal one ..., anything else is
 * decimal", and "A number written with more than 23 characters is refused
 * even when its value fits".  Its value must not exceed @max.
 */
static bool doc_number(const char *s, uint64_t max, uint64_t *val)
{
	static const char digit_chars[] = "0123456789abcdef";
	const char *digits = s;
	unsigned int base = 10;
	uint64_t v = 0;

	if (strlen(s) > NUMBER_MAX_LEN)
		return false;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		digits = s + 2;
	} else if (s[0] == '0') {
		base = 8;	/* "0" alone is an octal zero, as in C */
	}
	if (!*digits)
		return false;
	for (const char *p = digits; *p; p++) {
		char c = *p >= 'A' && *p <= 'F' ? *p - 'A' + 'a' : *p;
		const char *d = strchr(digit_chars, c);
		uint64_t dv;

		if (!d || (unsigned int)(d - digit_chars) >= base)
			return false;
		dv = d - digit_chars;
		if (v > (max - dv) / base)
			return false;	/* too large for its field */
		v = v * base + dv;
	}
	*val = v;
	return true;
}

/*
 * Predict a write of len bytes, from the rst's Commands, Errors and
 * "Details of the syntax".  Returns 0 (accepted; *out is the rule, or
 * out->op == -1 for removeall) or EINVAL.
 */
static int model_parse(const unsigned char *buf, size_t len, struct rule *out)
{
	char text[PAGE + 1], *p, *item;
	int adds = 0, removes = 0, others = 0, op = -1, status = -1;
	uint64_t start = 0, nr = 0, chance = 1, delay = 0, count = 0, seed = 0;
	bool seeded = false;

	/* "A write of a page (PAGE_SIZE bytes) or more is refused with EINVAL" */
	if (len >= PAGE)
		return EINVAL;
	/* "a command ends at the first NUL byte of the write" */
	memcpy(text, buf, len);
	text[len] = 0;
	p = text;
	/* "only commas and newlines separate items", "empty items are skipped" */
	while ((item = strsep(&p, ",\n")) != NULL) {
		char *value = strchr(item, '=');

		if (!*item)
			continue;
		if (!strcmp(item, "add")) {
			adds++;
			continue;
		}
		if (!strcmp(item, "removeall")) {
			removes++;
			continue;
		}
		others++;
		/* "an unknown item or one without a value" */
		if (!value || !value[1])
			return EINVAL;
		*value++ = 0;
		/*
		 * "Each value is checked where it appears, so an invalid one
		 * fails the whole command even when a valid one of the same
		 * item follows"; of valid ones "the last one counts".
		 */
		if (!strcmp(item, "op")) {
			if ((op = find_op(value)) < 0)
				return EINVAL;
		} else if (!strcmp(item, "status")) {
			/* unknown and refused names alike */
			if ((status = find_status(value)) < 0)
				return EINVAL;
		} else if (!strcmp(item, "start")) {
			if (!doc_number(value, UINT64_MAX, &start))
				return EINVAL;
		} else if (!strcmp(item, "nr_sectors")) {
			if (!doc_number(value, UINT64_MAX, &nr))
				return EINVAL;
		} else if (!strcmp(item, "chance")) {
			/* "chance takes 1 to 4294967295" */
			if (!doc_number(value, CHANCE_MAX, &chance) || !chance)
				return EINVAL;
		} else if (K.delay && !strcmp(item, "delay_us")) {
			/* delay_us "takes 1 to 30000000" */
			if (!doc_number(value, DELAY_MAX, &delay) || !delay)
				return EINVAL;
		} else if (K.count && !strcmp(item, "count")) {
			/* count "takes 1 to 4294967295" */
			if (!doc_number(value, COUNT_MAX, &count) || !count)
				return EINVAL;
		} else if (K.seed && !strcmp(item, "seed")) {
			/* seed "takes 0 to 4294967295" */
			if (!doc_number(value, SEED_MAX, &seed))
				return EINVAL;
			seeded = true;
		} else {
			return EINVAL;
		}
	}
	/* "a write with no action or with two" */
	if (adds + removes != 1)
		return EINVAL;
	/* "removeall ... takes no other items" */
	if (removes) {
		if (others)
			return EINVAL;
		out->op = -1;
		return 0;
	}
	/* op is "required", status "required unless delay_us is given" */
	if (op < 0 || (status < 0 && !delay))
		return EINVAL;
	/* "a rule with both status=AGAIN and delay_us" is refused */
	if (delay && status >= 0 && statuses[status].nowait_only)
		return EINVAL;
	/*
	 * "the range is start to start + nr_sectors - 1, and that last sector
	 * must not be past 2^64 - 1"; "nr_sectors=0 means the same as leaving
	 * it out: the range is open".
	 */
	if (nr && nr - 1 > UINT64_MAX - start)
		return EINVAL;
	out->op = op;
	out->status = status;
	out->start = start;
	out->end = nr ? start + (nr - 1) : UINT64_MAX;
	out->chance = (uint32_t)chance;
	out->delay_us = (uint32_t)delay;
	out->count = (uint32_t)count;
	out->left = count;
	out->seed = (uint32_t)seed;
	out->seeded = seeded;
	out->matched = out->failed = out->delayed = 0;
	return 0;
}

static void model_apply(const struct rule *r)
{
	if (r->op < 0) {
		M.nr = 0;
		return;
	}
	memmove(&M.rules[1], &M.rules[0], M.nr * sizeof(M.rules[0]));
	M.rules[0] = *r;
	M.nr++;
}

static int model_render(char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = 0;
	for (int i = 0; i < M.nr && n < size; i++) {
		const struct rule *r = &M.rules[i];

		n += snprintf(buf + n, size - n,
			      "%" PRIu64 ":%" PRIu64 " op=%s,status=%s,chance=%" PRIu32,
			      r->start, r->end, ops[r->op].name,
			      r->status < 0 ? "none" : statuses[r->status].tag, r->chance);
		/*
		 * A rule "with a delay has ,delay_us=<usecs> appended", "with
		 * a count has ,count=<N> appended next", "with a seed has
		 * ,seed=<N> appended next"; "Every line then ends with" the
		 * counters.
		 */
		if (n < size && r->delay_us)
			n += snprintf(buf + n, size - n, ",delay_us=%" PRIu32, r->delay_us);
		if (n < size && r->count)
			n += snprintf(buf + n, size - n, ",count=%" PRIu32, r->count);
		if (n < size && r->seeded)
			n += snprintf(buf + n, size - n, ",seed=%" PRIu32, r->seed);
		if (n < size && K.counters)
			n += snprintf(buf + n, size - n,
				      ",matched=%" PRIu64 ",failed=%" PRIu64 ",delayed=%" PRIu64,
				      r->matched, r->failed, r->delayed);
		if (n < size)
			n += snprintf(buf + n, size - n, "\n");
	}
	return n < size ? 0 : -1;
}

/* ---- the disk ---- */

enum io_kind { IO_READ, IO_WRITE, IO_DISCARD, IO_WZERO, IO_FLUSH, IO_ZOPEN,
	       IO_ZCLOSE, IO_ZFINISH, IO_ZRESET, IO_ZRESET_ALL, NR_IO };

/* the bio op each kind of I/O issues (a flush is an empty WRITE) */
static const int io_op[NR_IO] = {
	OP_READ, OP_WRITE, OP_DISCARD, OP_WRITE_ZEROES, OP_WRITE, OP_ZONE_OPEN,
	OP_ZONE_CLOSE, OP_ZONE_FINISH, OP_ZONE_RESET, OP_ZONE_RESET_ALL,
};

static const char *const io_names[NR_IO] = {
	"read", "write", "discard", "wzero", "flush", "zopen", "zclose",
	"zfinish", "zreset", "zreset-all",
};

static bool opt_big_io;

static struct {
	char name[64], ei_path[160], dev_path[96];
	uint64_t sectors, zone_sectors, nr_zones;
	unsigned int lbs;	/* logical block size in sectors */
	bool supported[NR_IO];
	/*
	 * The longest I/O of each kind that is one bio the queue does not
	 * split: a split bio's remainder is submitted again and meets the
	 * rules again, so chance applies per piece (see -b).
	 */
	uint64_t max_io[NR_IO];
	int dev_fd;
	void *buf;
} D;

static uint64_t sysfs_u64(const char *attr)
{
	char path[192];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/block/%s/%s", D.name, attr);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%llu", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "eifuzz: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(2);
}

static void disk_open(const char *name)
{
	snprintf(D.name, sizeof(D.name), "%s", name);
	snprintf(D.ei_path, sizeof(D.ei_path),
		 "/sys/kernel/debug/block/%s/error_injection", name);
	snprintf(D.dev_path, sizeof(D.dev_path), "/dev/%s", name);
	D.sectors = sysfs_u64("size");
	D.lbs = sysfs_u64("queue/logical_block_size") / 512;
	D.zone_sectors = sysfs_u64("queue/chunk_sectors");
	if (!D.sectors || !D.lbs)
		die("%s: no such disk in /sys/block", name);
	D.dev_fd = open(D.dev_path, O_RDWR | O_DIRECT);
	if (D.dev_fd < 0)
		die("open %s: %s", D.dev_path, strerror(errno));
	if (access(D.ei_path, W_OK))
		die("%s: %s", D.ei_path, strerror(errno));
	if (posix_memalign(&D.buf, 4096, MAX_IO_SECTORS * 512))
		die("out of memory");
	memset(D.buf, 0x5a, MAX_IO_SECTORS * 512);

	D.supported[IO_READ] = true;
	D.supported[IO_FLUSH] = true;
	if (sysfs_u64("queue/nr_zones")) {
		/* writes to sequential zones need the write pointer: not issued */
		D.nr_zones = sysfs_u64("queue/nr_zones");
		if (D.nr_zones > MAX_ZONES || !D.zone_sectors)
			die("%s: %" PRIu64 " zones, at most %d supported",
			    name, D.nr_zones, MAX_ZONES);
		for (int k = IO_ZOPEN; k <= IO_ZRESET_ALL; k++)
			D.supported[k] = true;
	} else {
		D.supported[IO_WRITE] = true;
		D.zone_sectors = 0;
		D.supported[IO_DISCARD] = sysfs_u64("queue/discard_max_bytes") > 0;
		D.supported[IO_WZERO] = sysfs_u64("queue/write_zeroes_max_bytes") > 0;
	}
	for (int k = 0; k < NR_IO; k++)
		D.max_io[k] = MAX_IO_SECTORS;
	if (!opt_big_io) {
		uint64_t rw = sysfs_u64("queue/max_sectors_kb") * 2;
		uint64_t dis = sysfs_u64("queue/discard_max_bytes") / 512;
		uint64_t wz = sysfs_u64("queue/write_zeroes_max_bytes") / 512;

		D.max_io[IO_READ] = D.max_io[IO_WRITE] = rw < MAX_IO_SECTORS ? rw : MAX_IO_SECTORS;
		if (dis < D.max_io[IO_DISCARD])
			D.max_io[IO_DISCARD] = dis;
		/* the fallback for EOPNOTSUPP writes the same range */
		D.max_io[IO_WZERO] = wz < D.max_io[IO_WRITE] ? wz : D.max_io[IO_WRITE];
	}
}

/* ---- steps ---- */

struct step {
	bool is_write;
	/* write */
	unsigned char *data;
	size_t len;
	/* I/O */
	int io;
	uint64_t sector, nsec;
	bool nowait;	/* a read with RWF_NOWAIT: its bio has REQ_NOWAIT */
	unsigned int trials;
	/* in the last run: an accepted write, or I/O that changed a zone */
	bool changed;
};

static struct step steps[MAX_STEPS];
static int nr_steps;
static unsigned int opt_trials = 100;
static unsigned int opt_shrink_seconds = 120;

struct stats {
	/* repeated: I/O steps a chance rule covers, repeated TRIALS times */
	unsigned long writes, accepted, ios, repeated, stat_checks;
	/* accepted rules with the follow-up's items */
	unsigned long with_delay, with_count, with_seed;
};
static struct stats S;

static char why[8192];	/* the last disagreement */

static void esc(FILE *f, const unsigned char *d, size_t len, size_t max)
{
	for (size_t i = 0; i < len && i < max; i++) {
		if (d[i] == '\\' || d[i] == '"')
			fprintf(f, "\\%c", d[i]);
		else if (d[i] >= 0x20 && d[i] < 0x7f)
			fputc(d[i], f);
		else if (d[i] == '\n')
			fputs("\\n", f);
		else
			fprintf(f, "\\x%02x", d[i]);
	}
	if (len > max)
		fprintf(f, "...(%zu bytes)", len);
}

static void print_step(FILE *f, const struct step *s)
{
	if (s->is_write) {
		fprintf(f, "write \"");
		esc(f, s->data, s->len, 200);
		fprintf(f, "\" (%zu bytes)", s->len);
	} else {
		fprintf(f, "%s%s %s sector %" PRIu64 " + %" PRIu64,
			io_names[s->io], s->nowait ? " (RWF_NOWAIT)" : "", D.name,
			s->sector, s->nsec);
		if (s->trials > 1)
			fprintf(f, ", %u times", s->trials);
	}
}

/* ---- executing a write ---- */

static int read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	size_t n = 0;
	ssize_t r;

	if (fd < 0)
		return -1;
	while (n + 1 < size && (r = read(fd, buf + n, size - 1 - n)) > 0)
		n += r;
	close(fd);
	buf[n] = 0;
	return n + 1 < size ? 0 : -1;
}

static int do_write(const unsigned char *d, size_t len)
{
	int fd = open(D.ei_path, O_WRONLY);
	ssize_t r;
	int err;

	if (fd < 0)
		die("open %s: %s", D.ei_path, strerror(errno));
	r = write(fd, d, len);
	err = r < 0 ? errno : (size_t)r == len ? 0 : -1;
	close(fd);
	return err;
}

/* Compare the read-back file with the model; false with why[] on a difference. */
static bool check_readback(void)
{
	static char got[1 << 16], want[1 << 16];
	char *g = got, *w = want;
	int line = 1;

	if (read_file(D.ei_path, got, sizeof(got)) || model_render(want, sizeof(want)))
		die("read-back larger than %zu bytes", sizeof(got));
	while (*g || *w) {
		char *ge = strchr(g, '\n'), *we = strchr(w, '\n');
		size_t gl = ge ? (size_t)(ge - g) : strlen(g);
		size_t wl = we ? (size_t)(we - w) : strlen(w);

		if (gl != wl || memcmp(g, w, gl)) {
			snprintf(why, sizeof(why),
				 "read-back line %d is \"%.*s\", the model says \"%.*s\"",
				 line, (int)gl, *g ? g : "(end of file)",
				 (int)wl, *w ? w : "(end of file)");
			return false;
		}
		g += gl + (ge != NULL);
		w += wl + (we != NULL);
		line++;
	}
	return true;
}

static bool run_write(const struct step *s)
{
	struct rule r;
	int want = model_parse(s->data, s->len, &r);
	int got = do_write(s->data, s->len);

	S.writes++;
	((struct step *)s)->changed = !want;
	if (got != want) {
		snprintf(why, sizeof(why), "write returned %s, the model says %s",
			 got < 0 ? "a short count" : errname(got), errname(want));
		return false;
	}
	if (!want) {
		S.accepted++;
		S.with_delay += r.op >= 0 && r.delay_us;
		S.with_count += r.op >= 0 && r.count;
		S.with_seed += r.op >= 0 && r.seeded;
		model_apply(&r);
	}
	return check_readback();
}

/* ---- executing I/O ---- */

struct outcome {
	int err;
	double p;
};

static void add_outcome(struct outcome *o, int *n, int err, double p)
{
	for (int i = 0; i < *n; i++) {
		if (o[i].err == err) {
			o[i].p += p;
			return;
		}
	}
	o[*n].err = err;
	o[*n].p = p;
	(*n)++;
}

/* A bio as the rules see it. */
struct bio_desc {
	int op;
	uint64_t sector, nsec;
	bool nowait;	/* submitted with REQ_NOWAIT (RWF_NOWAIT) */
};

/*
 * Whether rule @r applies to @b, from the rst's "Which bios a rule fails":
 * "A rule applies when the bio has the rule's operation, the status allows
 * it (AGAIN: only bios with REQ_NOWAIT), and" for operations that match on
 * sectors "at least one of the sectors from the bio's bi_sector to its end
 * lies in the rule's range", for those that match on the zone start "the
 * first sector of the zone they act on lies in the range".  "Bios without
 * data of any other kind never match", nor do the operations whose rules
 * match nothing.
 */
static bool applies(const struct rule *r, const struct bio_desc *b)
{
	uint64_t first, last;

	if (r->op != b->op)
		return false;
	if (r->status >= 0 && statuses[r->status].nowait_only && !b->nowait)
		return false;
	/*
	 * The follow-up: "a rule with a delay alone does not apply to" a bio
	 * with REQ_NOWAIT, and a rule with count=N that has fired N times
	 * "matches no more bios".
	 */
	if (r->status < 0 && b->nowait)
		return false;
	if (r->count && !r->left)
		return false;
	switch (ops[b->op].match) {
	case M_ZONE_START:
		first = D.zone_sectors ? b->sector - b->sector % D.zone_sectors : b->sector;
		return r->start <= first && first <= r->end;
	case M_SECTORS:
		if (!b->nsec)
			return false;
		first = b->sector;
		last = b->sector + (b->nsec - 1);
		/* the two ranges share a sector unless one ends before the other */
		return !(last < r->start || r->end < first);
	default:
		return false;
	}
}

/*
 * What the bios of a step add to each rule's counters, expected values of
 * the outcomes predict() weighs (the rst: matched counts "the bios that met
 * the rule", failed those "the rule completed with its status, or will once
 * their delay ends", delayed "those it held back"): exact when no roll of a
 * chance decided anything (walk_random false).
 */
static double e_matched[MAX_RULES * 2], e_failed[MAX_RULES * 2], e_delayed[MAX_RULES * 2];
static bool walk_random;

/*
 * One walk of the rules over a bio that arrives with probability @mass:
 * "newest rule first"; a rule that applies "and its chance comes up" with
 * probability 1/chance fires: it fails the bio with its status (after its
 * delay, if it has one), or, for a rule with a delay alone, "submitted to
 * the driver as it would have been at first, without being checked against
 * the rules again", which adds to *@through.  "If the chance does not come
 * up, the walk goes on to older rules".  Adds the failures to @o and
 * returns the probability that the bio gets through unchecked by any rule.
 */
static double rules_walk(const struct bio_desc *b, double mass, struct outcome *o,
			 int *n, double *through)
{
	double pass = 1.0;

	for (int i = 0; i < M.nr && pass > 0; i++) {
		const struct rule *r = &M.rules[i];
		double p = 1.0 / r->chance;

		if (!applies(r, b))
			continue;
		e_matched[i] += mass * pass;
		if (r->chance > 1 && mass > 0)
			walk_random = true;
		if (r->status >= 0) {
			add_outcome(o, n, statuses[r->status].err, mass * pass * p);
			e_failed[i] += mass * pass * p;
		} else {
			*through += mass * pass * p;
		}
		/* "A bio submitted with REQ_NOWAIT is never delayed" */
		if (r->delay_us && !b->nowait)
			e_delayed[i] += mass * pass * p;
		pass *= 1.0 - p;
		if (r->chance == 1)
			pass = 0;
	}
	return mass * pass;
}

/*
 * The outcomes of one bio; @driver_err is what the disk itself returns.  A
 * bio with data that crosses zone boundaries (chunk_sectors) is split at
 * each one after the check has seen it whole; the rst: "the front piece
 * goes on to the driver without another check, and the rest is submitted
 * again and checked again, down to the last piece".  So the rules are
 * walked for [sector, end), then for [boundary, end) and so on, and the
 * first rule that fires fails the whole bio.  (Seed 44 of a campaign found
 * this: a chance=2 rule on a zone's first sectors failed a read that
 * started in the zone before 78 times in 100.)  The block layer does not
 * split a REQ_NOWAIT bio: one that would need it ends with EAGAIN after
 * its one check.
 */
static void bio_outcomes(struct bio_desc b, int driver_err, double mass,
			 struct outcome *o, int *n)
{
	uint64_t end = b.sector + b.nsec;
	double pass = mass, through = 0;

	for (;;) {
		uint64_t next = ops[b.op].match != M_SECTORS || !D.zone_sectors ? end :
			(b.sector / D.zone_sectors + 1) * D.zone_sectors;

		b.nsec = end - b.sector;
		pass = rules_walk(&b, pass, o, n, &through);
		if (pass <= 0 || next >= end)
			break;
		if (b.nowait) {
			add_outcome(o, n, EAGAIN, pass);
			pass = 0;
			break;
		}
		b.sector = next;
	}
	/* a bio a delay-only rule held goes on whole, split or not */
	if (pass + through > 0)
		add_outcome(o, n, driver_err, pass + through);
}

/* bio_outcomes() of a bio without REQ_NOWAIT */
static void plain_bio_outcomes(int op, uint64_t sector, uint64_t nsec, int driver_err,
			       double mass, struct outcome *o, int *n)
{
	struct bio_desc b = { op, sector, nsec, false };

	bio_outcomes(b, driver_err, mass, o, n);
}

static void predict(const struct step *s, struct outcome *o, int *n)
{
	uint64_t zone = D.zone_sectors ? s->sector / D.zone_sectors : 0;
	int zerr = 0;

	*n = 0;
	if (s->io >= IO_ZOPEN && !s->nsec) {
		add_outcome(o, n, EINVAL, 1.0);
		return;
	}
	switch (s->io) {
	case IO_READ:
	case IO_WRITE: {
		struct bio_desc b = { s->io == IO_READ ? OP_READ : OP_WRITE,
				      s->sector, s->nsec, s->nowait };

		/* zero-length direct I/O issues no bio */
		bio_outcomes(b, 0, 1.0, o, n);
		break;
	}
	case IO_DISCARD:
		if (!s->nsec) {
			add_outcome(o, n, EINVAL, 1.0);
			break;
		}
	{
		struct outcome d[MAX_OUTCOMES];
		int nd = 0;

		plain_bio_outcomes(OP_DISCARD, s->sector, s->nsec, 0, 1.0, d, &nd);
		/* BLKDISCARD reports EOPNOTSUPP from the bio as success */
		for (int i = 0; i < nd; i++)
			add_outcome(o, n, d[i].err == EOPNOTSUPP ? 0 : d[i].err, d[i].p);
		break;
	}
	case IO_WZERO: {
		struct outcome wz[MAX_OUTCOMES];
		int nwz = 0;

		if (!s->nsec) {
			add_outcome(o, n, EINVAL, 1.0);
			break;
		}
		/* EOPNOTSUPP from WRITE_ZEROES falls back to writing zero pages */
		plain_bio_outcomes(OP_WRITE_ZEROES, s->sector, s->nsec, 0, 1.0, wz, &nwz);
		for (int i = 0; i < nwz; i++) {
			if (wz[i].err == EOPNOTSUPP)
				plain_bio_outcomes(OP_WRITE, s->sector, s->nsec, 0,
						   wz[i].p, o, n);
			else
				add_outcome(o, n, wz[i].err, wz[i].p);
		}
		break;
	}
	case IO_FLUSH:
		/* an empty write with REQ_PREFLUSH: no data, never matches */
		plain_bio_outcomes(OP_WRITE, s->sector, 0, 0, 1.0, o, n);
		break;
	case IO_ZOPEN:
		zerr = M.zone[zone] == Z_FULL ? EIO : 0;
		plain_bio_outcomes(OP_ZONE_OPEN, s->sector, 0, zerr, 1.0, o, n);
		break;
	case IO_ZCLOSE:
		zerr = M.zone[zone] == Z_OPEN ? 0 : EIO;
		plain_bio_outcomes(OP_ZONE_CLOSE, s->sector, 0, zerr, 1.0, o, n);
		break;
	case IO_ZFINISH:
		plain_bio_outcomes(OP_ZONE_FINISH, s->sector, 0, 0, 1.0, o, n);
		break;
	case IO_ZRESET:
		plain_bio_outcomes(OP_ZONE_RESET, s->sector, 0, 0, 1.0, o, n);
		break;
	case IO_ZRESET_ALL:
		/* a reset of every zone is one ZONE_RESET_ALL bio: never matches */
		plain_bio_outcomes(OP_ZONE_RESET_ALL, 0, 0, 0, 1.0, o, n);
		break;
	}
}

/* The zone state after an I/O that reached the disk and succeeded. */
static void zone_transition(const struct step *s)
{
	uint64_t zone = D.zone_sectors ? s->sector / D.zone_sectors : 0;

	switch (s->io) {
	case IO_ZOPEN:
		M.zone[zone] = Z_OPEN;
		break;
	case IO_ZCLOSE:
	case IO_ZRESET:
		/* nothing is ever written: a closed zone is empty again */
		M.zone[zone] = Z_EMPTY;
		break;
	case IO_ZFINISH:
		M.zone[zone] = Z_FULL;
		break;
	case IO_ZRESET_ALL:
		memset(M.zone, Z_EMPTY, sizeof(M.zone));
		break;
	default:
		break;
	}
}

static int do_io(const struct step *s)
{
	uint64_t off = s->sector * 512, len = s->nsec * 512;
	uint64_t range[2] = { off, len };
	struct blk_zone_range zr = { s->sector, s->nsec };
	ssize_t ret;
	int r = 0;

	S.ios++;
	switch (s->io) {
	case IO_READ:
	case IO_WRITE: {
		struct iovec iov = { .iov_base = D.buf, .iov_len = len };
		int flags = s->nowait ? RWF_NOWAIT : 0;

		ret = s->io == IO_READ ? preadv2(D.dev_fd, &iov, 1, off, flags) :
					 pwritev2(D.dev_fd, &iov, 1, off, flags);
		if (ret < 0)
			return errno;
		return (uint64_t)ret == len ? 0 : -1;
	}
	case IO_DISCARD:
		r = ioctl(D.dev_fd, BLKDISCARD, range);
		break;
	case IO_WZERO:
		r = ioctl(D.dev_fd, BLKZEROOUT, range);
		break;
	case IO_FLUSH:
		r = fsync(D.dev_fd);
		break;
	case IO_ZOPEN:
		r = ioctl(D.dev_fd, BLKOPENZONE, &zr);
		break;
	case IO_ZCLOSE:
		r = ioctl(D.dev_fd, BLKCLOSEZONE, &zr);
		break;
	case IO_ZFINISH:
		r = ioctl(D.dev_fd, BLKFINISHZONE, &zr);
		break;
	case IO_ZRESET:
	case IO_ZRESET_ALL:
		r = ioctl(D.dev_fd, BLKRESETZONE, &zr);
		break;
	}
	return r < 0 ? errno : 0;
}

/*
 * Acceptance band [*lo, *hi] for a Binomial(n, p) count such that each tail
 * outside it has probability at most a.  The pmf is built outward from the
 * mode and normalised, so nothing underflows where it matters.
 */
static void binomial_band(unsigned int n, double p, double a, unsigned int *lo,
			  unsigned int *hi)
{
	static double pmf[100001];
	unsigned int mode = (unsigned int)((n + 1) * p), k;
	double sum = 0, tail;

	if (mode > n)
		mode = n;
	pmf[mode] = 1;
	for (k = mode; k < n; k++)
		pmf[k + 1] = pmf[k] * (double)(n - k) / (k + 1) * p / (1 - p);
	for (k = mode; k > 0; k--)
		pmf[k - 1] = pmf[k] * k / (double)(n - k + 1) * (1 - p) / p;
	for (k = 0; k <= n; k++)
		sum += pmf[k];
	for (tail = 0, *lo = 0; *lo < n && tail + pmf[*lo] / sum <= a; (*lo)++)
		tail += pmf[*lo] / sum;
	for (tail = 0, *hi = n; *hi > 0 && tail + pmf[*hi] / sum <= a; (*hi)--)
		tail += pmf[*hi] / sum;
}

/*
 * The counters after a step of @trials I/Os: the model's own where no roll
 * decided (walk_random false), else the kernel's, taken after checking
 * that each only grew, a rule no bio could meet not at all, no rule by
 * more than @trials times @bios (the bios one I/O can submit to it), and
 * failed and delayed by no more than matched.  Then the read-back must be
 * the model's.
 */
static bool update_counters(unsigned int trials, uint64_t bios)
{
	static char got[1 << 16];
	char *line = got;

	for (int i = 0; i < M.nr && !walk_random; i++) {
		struct rule *r = &M.rules[i];
		uint64_t fires = (uint64_t)(trials * (r->status >= 0 ? e_failed[i] : e_delayed[i]) + 0.5);

		r->matched += (uint64_t)(trials * e_matched[i] + 0.5);
		r->failed += (uint64_t)(trials * e_failed[i] + 0.5);
		r->delayed += (uint64_t)(trials * e_delayed[i] + 0.5);
		if (r->count)
			r->left = fires < r->left ? r->left - fires : 0;
	}
	if (walk_random) {
		if (read_file(D.ei_path, got, sizeof(got)))
			die("read-back larger than %zu bytes", sizeof(got));
		for (int i = 0; i < M.nr; i++) {
			struct rule *r = &M.rules[i];
			char *c = strstr(line, ",matched=");
			uint64_t m, f, d, cap = e_matched[i] > 0 ? trials * bios : 0;

			if (!c || sscanf(c, ",matched=%" SCNu64 ",failed=%" SCNu64 ",delayed=%" SCNu64,
					 &m, &f, &d) != 3) {
				snprintf(why, sizeof(why), "read-back line %d has no counters", i + 1);
				return false;
			}
			if (m < r->matched || f < r->failed || d < r->delayed ||
			    m - r->matched > cap || f - r->failed > m - r->matched ||
			    d - r->delayed > m - r->matched) {
				snprintf(why, sizeof(why),
					 "rule %d's counters went from matched=%" PRIu64 ",failed=%" PRIu64
					 ",delayed=%" PRIu64 " to %" PRIu64 ",%" PRIu64 ",%" PRIu64
					 " in %u I/Os of up to %" PRIu64 " bios it could meet",
					 i + 1, r->matched, r->failed, r->delayed, m, f, d,
					 trials, cap / (trials ? trials : 1));
				return false;
			}
			r->matched = m;
			r->failed = f;
			r->delayed = d;
			/* a rule with a count fires "N times at most" */
			if (r->count) {
				uint64_t fires = r->status >= 0 ? f : d;

				if (fires > r->count) {
					snprintf(why, sizeof(why), "rule %d with count=%" PRIu32 " fired %" PRIu64 " times",
						 i + 1, r->count, fires);
					return false;
				}
				r->left = r->count - fires;
			}
			line = strchr(c, '\n') ? strchr(c, '\n') + 1 : c + strlen(c);
		}
	}
	return check_readback();
}

/* The bios one I/O of @s can submit, split pieces and fallbacks included. */
static uint64_t step_bios(const struct step *s)
{
	uint64_t pieces = D.zone_sectors ? s->nsec / D.zone_sectors + 2 : 1;

	return 2 * pieces;
}

static bool run_io(const struct step *s)
{
	struct outcome o[MAX_OUTCOMES];
	unsigned long count[MAX_OUTCOMES] = { 0 };
	int n, got;
	bool random = false, reached = false;
	unsigned int trials = s->trials;
	size_t w = 0;

	memset(e_matched, 0, sizeof(e_matched));
	memset(e_failed, 0, sizeof(e_failed));
	memset(e_delayed, 0, sizeof(e_delayed));
	walk_random = false;
	predict(s, o, &n);
	for (int i = 0; i < n; i++)
		if (o[i].p > 0 && o[i].p < 1 - 1e-12)
			random = true;
	/*
	 * A rule with a count changes as it fires, so repeats of a bio that
	 * meets one would not be alike: run it once.
	 */
	for (int i = 0; i < M.nr; i++)
		if (M.rules[i].count && e_matched[i] > 0)
			trials = 1;
	if (trials > 1)
		S.repeated++;

	for (unsigned int t = 0; t < trials; t++) {
		int i;

		got = do_io(s);
		for (i = 0; i < n && o[i].err != got; i++)
			;
		if (got == 0)
			reached = true;
		if (i == n || o[i].p == 0) {
			w = snprintf(why, sizeof(why), "got %s, the model says ",
				     got < 0 ? "a short transfer" : errname(got));
			for (i = 0; i < n; i++)
				w += snprintf(why + w, sizeof(why) - w, "%s%s p=%.3g",
					      i ? ", " : "", errname(o[i].err), o[i].p);
			return false;
		}
		count[i]++;
	}
	/* only successful zone ops reach the disk and change its state */
	((struct step *)s)->changed = reached && s->io >= IO_ZOPEN;
	if (reached)
		zone_transition(s);
	if (K.counters && !update_counters(trials, step_bios(s)))
		return false;
	if (!random)
		return true;

	S.stat_checks++;
	for (int i = 0; i < n; i++) {
		unsigned int lo, hi;

		binomial_band(trials, o[i].p, STAT_ALPHA / (2 * n), &lo, &hi);
		if (count[i] < lo || count[i] > hi) {
			w = snprintf(why, sizeof(why),
				     "%s %lu of %u times, outside [%u, %u] for p=%.4g (false-failure probability < %.0e); all: ",
				     errname(o[i].err), count[i], trials, lo, hi,
				     o[i].p, STAT_ALPHA);
			for (int j = 0; j < n; j++)
				w += snprintf(why + w, sizeof(why) - w, "%s %s %lu (p=%.3g)",
					      j ? "," : "", errname(o[j].err),
					      count[j], o[j].p);
			return false;
		}
	}
	return true;
}

/* ---- generating steps ---- */

static char *sbuf_p;
static size_t sbuf_len;
static char sbuf[PAGE * 3];

static void put(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(sbuf + sbuf_len, sizeof(sbuf) - sbuf_len, fmt, ap);
	va_end(ap);
	if (n > 0)
		sbuf_len = sbuf_len + n < sizeof(sbuf) ? sbuf_len + n : sizeof(sbuf) - 1;
	sbuf_p = sbuf;
}

/* A sector number worth testing: edges of the disk, of 32/64 bits, of rules. */
static uint64_t interesting_u64(void)
{
	const struct rule *r = M.nr ? &M.rules[below(M.nr)] : NULL;

	switch (below(14)) {
	case 0: return 0;
	case 1: return 1;
	case 2: return D.sectors - 1;
	case 3: return D.sectors;
	case 4: return D.sectors + 1;
	case 5: return UINT32_MAX + below(3) - 1;
	case 6: return UINT64_MAX - below(3);
	case 7: return (uint64_t)1 << 63;
	case 8: return r ? r->start - 1 + below(3) : below(4096);
	case 9: return r ? r->end - 1 + below(3) : below(4096);
	case 10: return D.zone_sectors ? below(D.nr_zones + 1) * D.zone_sectors : 8;
	case 11: return below(D.sectors);
	default: return below(4096);
	}
}

static void put_number(uint64_t v)
{
	switch (below(12)) {
	case 0: put("0x%" PRIx64, v); break;
	case 1: put("0X%" PRIX64, v); break;
	case 2: put("0%" PRIo64, v); break;
	case 3: put("%0*" PRIu64, (int)(20 + below(6)), v); break; /* leading zeros */
	case 4: put("%" PRIu64 "%u", v, (unsigned int)below(10)); break; /* may overflow */
	case 5: put("18446744073709551616"); break;
	case 6: put("%s", (const char *[]){ "", "-1", "+1", " 1", "1 ", "0x",
					   "08", "0x1g", "1e3", "99999999999999999999999",
					   "0xffffffffffffffff", "01777777777777777777777",
					   "001777777777777777777777", "0x10000000000000000",
					   "4294967296", "4294967295" }[below(16)]);
		break;
	default: put("%" PRIu64, v); break;
	}
}

static void put_field(int f, int op, int status)
{
	switch (f) {
	case 0: put("op=%s", ops[op].name); break;
	case 1: put("status=%s", status_name(status)); break;
	case 2: put("start="); put_number(interesting_u64()); break;
	case 3:
		put("nr_sectors=");
		switch (below(4)) {
		case 0: put_number(below(4) == 0 ? 0 : 1 + below(16)); break;
		case 1: put_number(below(2048) + 1); break;
		default: put_number(interesting_u64()); break;
		}
		break;
	case 4:
		put("chance=");
		switch (below(6)) {
		case 0: put("1"); break;
		case 1: put("%u", 2 + (unsigned int)below(3)); break;
		case 2: put("%u", 4294967295u - (unsigned int)below(2)); break;
		case 3: put_number(below(3)); break;
		default: put_number(below(20)); break;
		}
		break;
	case 5:
		/*
		 * Short delays only, which a campaign can afford on any
		 * accelerator; the longest one is 035-options' to check.
		 */
		put("delay_us=");
		switch (below(6)) {
		case 0: put("1"); break;
		case 1: put("%u", 1 + (unsigned int)below(2000)); break;
		case 2: put_number(below(3)); break;
		case 3: put("%u", DELAY_MAX + 1 + (unsigned int)below(2)); break;
		default: put("%u", 1 + (unsigned int)below(200)); break;
		}
		break;
	case 6:
		put("count=");
		switch (below(5)) {
		case 0: put("1"); break;
		case 1: put_number(below(3)); break;
		case 2: put("%s", one_in(2) ? "4294967295" : "4294967296"); break;
		default: put("%u", 1 + (unsigned int)below(5)); break;
		}
		break;
	case 7:
		put("seed=");
		switch (below(4)) {
		case 0: put_number(below(100)); break;
		case 1: put("%s", one_in(2) ? "4294967295" : "4294967296"); break;
		default: put("%u", (unsigned int)below(1000)); break;
		}
		break;
	}
}

static int pick_op(void)
{
	/* mostly ops this disk can issue, so rules have effects to check */
	static const int useful[] = { OP_READ, OP_WRITE, OP_DISCARD, OP_WRITE_ZEROES,
				      OP_ZONE_OPEN, OP_ZONE_CLOSE, OP_ZONE_FINISH,
				      OP_ZONE_RESET };
	for (int tries = 0; tries < 8 && !one_in(6); tries++) {
		int op = useful[below(8)];

		if ((op == OP_READ) ||
		    (op == OP_WRITE && (D.supported[IO_WRITE] || D.supported[IO_WZERO])) ||
		    (op == OP_DISCARD && D.supported[IO_DISCARD]) ||
		    (op == OP_WRITE_ZEROES && D.supported[IO_WZERO]) ||
		    (op >= OP_ZONE_OPEN && D.supported[IO_ZOPEN]) ||
		    (op == OP_ZONE_RESET && D.supported[IO_ZRESET]))
			return op;
	}
	return below(NR_OPS);
}

/* A status name: mostly one a rule accepts, sometimes one it refuses. */
static int pick_status(void)
{
	return one_in(8) ? NR_STATUSES + (int)below(NR_REFUSED) : (int)below(NR_STATUSES);
}

/*
 * The fields gen_valid() writes: op, status, start, nr_sectors, chance,
 * and with -X delay_us, count and seed.
 */
static int nr_fields(void)
{
	return opt_next ? 8 : 5;
}

/* A rule from the grammar, fields in a random order, some left out. */
static void gen_valid(void)
{
	int order[8] = { 0, 1, 2, 3, 4, 5, 6, 7 }, apos, nf = nr_fields();
	int op = pick_op(), status = pick_status();

	for (int i = nf - 1; i > 0; i--) {
		int j = below(i + 1), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	apos = one_in(4) ? below(nf + 1) : 0;
	for (int i = 0, first = 1; i <= nf; i++) {
		if (i == apos) {
			put("%sadd", first ? "" : ",");
			first = 0;
		}
		if (i == nf)
			break;
		if (order[i] >= 2 && one_in(3))
			continue;	/* optional field left out */
		/* with -X: each of the follow-up's in one rule of three, and
		 * status left out of one in four, as delay_us allows */
		if (opt_next && order[i] >= 5 && !one_in(3))
			continue;
		if (opt_next && order[i] == 1 && one_in(4))
			continue;
		put("%s", first ? "" : ",");
		first = 0;
		put_field(order[i], op, status);
	}
	if (one_in(3))
		put("\n");
}

static const char *const near_miss[] = {
	"read", "Read", "READ ", " READ", "REA", "READS", "WRTIE", "WRITE_ZERO",
	"ZONE_RESETALL", "ZONE-OPEN", "DISCARDS", "FLUS", "ioerr", "IOERR ",
	"IO_ERR", "BLK_STS_IOERR", "OK", "EIO", "MEDIUMM", "MEDIU", "Medium",
	"TIMEOUTS", "NOT_SUPP", "DM_REQUEUE\t", "RESOURCE\r", "LAST", "",
};

static const char *const word_miss[] = {
	"Add", "ADD", "ad", "addd", " add", "add ", "remove", "removeAll",
	"removeall ", "remove_all", "op", "op:READ", "status", "start",
	"nr_sector=1", "nr_sectors", "Op=READ", "chance", "OP=READ", "sector=1",
	"=READ", "op==READ", "\t", " ", "x",
};

/* Mutate the rule in sbuf. */
static void mutate(void)
{
	size_t pos = sbuf_len ? below(sbuf_len + 1) : 0;
	char tmp[sizeof(sbuf)];

	switch (below(13)) {
	case 0:	/* duplicate a field */
	case 1: {
		int f = below(nr_fields());

		put(",");
		put_field(f, pick_op(), pick_status());
		break;
	}
	case 2: {	/* delete a comma-separated piece */
		char *c = memchr(sbuf + pos, ',', sbuf_len - pos);
		char *e = c ? memchr(c + 1, ',', sbuf + sbuf_len - c - 1) : NULL;

		if (c) {
			size_t cut = (e ? e : sbuf + sbuf_len) - c;

			memmove(c, c + cut, sbuf + sbuf_len - c - cut);
			sbuf_len -= cut;
		}
		break;
	}
	case 3: {	/* insert empty or extra commas, newlines or blanks */
		static const char *const ins[] = { ",", ",,", "\n", " ", "\t", ",\n,", "\r" };
		const char *s = ins[below(7)];

		memcpy(tmp, sbuf + pos, sbuf_len - pos);
		memcpy(sbuf + pos, s, strlen(s));
		memcpy(sbuf + pos + strlen(s), tmp, sbuf_len - pos);
		sbuf_len += strlen(s);
		break;
	}
	case 4:	/* flip the case of one letter */
		if (pos < sbuf_len && ((sbuf[pos] | 0x20) >= 'a' && (sbuf[pos] | 0x20) <= 'z'))
			sbuf[pos] ^= 0x20;
		break;
	case 5:	/* a near-miss op or status */
		put(",%s=%s", one_in(2) ? "op" : "status", near_miss[below(27)]);
		break;
	case 6:
		put(",%s", word_miss[below(25)]);
		break;
	case 7:	/* an embedded NUL or binary byte */
		if (pos < sbuf_len)
			sbuf[pos] = one_in(2) ? 0 : (char)below(256);
		break;
	case 8:	/* truncate */
		sbuf_len = pos;
		break;
	case 9: {	/* pad with empty pieces up to, at or past a page */
		size_t to = PAGE - 2 + below(4);

		while (sbuf_len < to)
			sbuf[sbuf_len++] = one_in(3) ? '\n' : ',';
		break;
	}
	case 10:	/* a second action */
		put(one_in(2) ? ",add" : ",removeall");
		break;
	case 11: {	/* swap two pieces: cut the first and append it */
		char *c = memchr(sbuf, ',', sbuf_len);

		if (c) {
			size_t first = c - sbuf;

			memcpy(tmp, sbuf, first);
			memmove(sbuf, c + 1, sbuf_len - first - 1);
			sbuf_len -= first + 1;
			sbuf[sbuf_len++] = ',';
			memcpy(sbuf + sbuf_len, tmp, first);
			sbuf_len += first;
		}
		break;
	}
	default:	/* a number that wraps: start + nr_sectors past 2^64 */
		put(",start=%" PRIu64 ",nr_sectors=%" PRIu64,
		    UINT64_MAX - below(3), 1 + below(3));
		break;
	}
}

static void gen_removeall(void)
{
	static const char *const forms[] = {
		"removeall", "removeall\n", "removeall,", ",removeall", "\nremoveall\n",
		"removeall,,", "removeall,op=READ", "removeall,start=0",
		"removeall,removeall", "removeall,add", "Removeall", "removeall ",
		"removeall,status=IOERR", "removeall\0,op=READ", "removeal",
		"removeall,chance=1", "removeall,bogus",
	};
	int i = below(one_in(2) ? 3 : 17);
	/* form 13 holds a NUL: the write goes on past it */
	size_t len = i == 13 ? 18 : strlen(forms[i]);

	memcpy(sbuf, forms[i], len);
	sbuf_len = len;
}

static void gen_write(struct step *s)
{
	sbuf_len = 0;
	if (M.nr >= MAX_RULES || one_in(25)) {
		gen_removeall();
	} else if (one_in(40)) {	/* raw bytes, 1 byte up to past a page */
		sbuf_len = one_in(3) ? 1 + below(8) : 1 + below(PAGE + 64);
		for (size_t i = 0; i < sbuf_len; i++)
			sbuf[i] = one_in(2) ? (char)below(256) : ",\nadop=0x1"[below(10)];
	} else if (one_in(80)) {
		sbuf_len = 0;	/* an empty write */
	} else {
		gen_valid();
		for (int m = one_in(2) ? 0 : 1 + below(3); m > 0; m--)
			mutate();
	}
	s->is_write = true;
	s->len = sbuf_len;
	s->data = malloc(sbuf_len ? sbuf_len : 1);
	if (!s->data)
		die("out of memory");
	memcpy(s->data, sbuf, sbuf_len);
}

static uint64_t clamp_len(uint64_t sector, uint64_t nsec)
{
	if (sector >= D.sectors)
		return 0;
	return nsec > D.sectors - sector ? D.sectors - sector : nsec;
}

static void gen_io(struct step *s)
{
	int io;

	do
		io = below(NR_IO);
	while (!D.supported[io]);
	s->is_write = false;
	s->io = io;
	s->trials = 1;
	/*
	 * Some reads with RWF_NOWAIT, which AGAIN rules apply to.  At most a
	 * page (one segment), so that only a zone boundary splits them.
	 */
	s->nowait = io == IO_READ && one_in(4);
	if (io >= IO_ZOPEN) {
		s->nsec = D.zone_sectors;
		s->sector = below(D.nr_zones) * D.zone_sectors;
		if (M.nr && one_in(2)) {	/* the zone holding a rule's edge */
			const struct rule *r = &M.rules[below(M.nr)];
			uint64_t at = one_in(2) ? r->start : r->end;

			if (at < D.sectors)
				s->sector = at / D.zone_sectors * D.zone_sectors;
		}
		if (io == IO_ZRESET_ALL) {
			s->sector = 0;
			s->nsec = D.sectors;
		} else if (one_in(20)) {
			s->nsec = 0;	/* the ioctl refuses it before any bio */
		}
	} else {
		uint64_t sector = below(D.sectors);
		uint64_t nsec = one_in(10) ? 0 : one_in(2) ? 1 + below(8) :
			1 + below(D.max_io[io]);

		if (M.nr && !one_in(4)) {	/* at, just before or straddling a rule's edge */
			const struct rule *r = &M.rules[below(M.nr)];
			uint64_t edge = one_in(2) ? r->start : r->end + 1;
			uint64_t back = nsec ? 1 + below(nsec) : 1;

			if (edge < D.sectors + 1)
				sector = one_in(2) || edge < back ? edge : edge - back;
		}
		if (sector >= D.sectors)
			sector = D.sectors - 1;
		sector -= sector % D.lbs;
		if (nsec > D.max_io[io])
			nsec = D.max_io[io];
		if (s->nowait && nsec > 8)
			nsec = 8;
		nsec = clamp_len(sector, nsec);
		nsec -= nsec % D.lbs;
		s->sector = io == IO_FLUSH ? 0 : sector;
		s->nsec = io == IO_FLUSH ? 0 : nsec;
	}
	/*
	 * Repeat the I/O when a chance rule covers it.  This depends on the
	 * rules alone, not on the zone states, so the step counts of a seed
	 * are the same in every run.
	 */
	for (int i = 0; i < M.nr; i++) {
		const struct rule *r = &M.rules[i];
		struct bio_desc b = { io_op[io], s->sector, s->nsec, s->nowait };
		struct bio_desc w = { OP_WRITE, s->sector, s->nsec, false };

		if (ops[b.op].match != M_SECTORS)
			b.nsec = 0;	/* no data: the zone's start decides */
		if (r->chance > 1 && (applies(r, &b) || (io == IO_WZERO && applies(r, &w))))
			s->trials = opt_trials;
	}
	/* closing a zone twice fails on the disk: only repeat idempotent ops */
	if (s->trials > 1 && io == IO_ZCLOSE)
		s->io = IO_ZFINISH;
}

/* ---- what the kernel has of the follow-up ---- */

/* Whether the kernel takes a rule with @item; the rule matches nothing. */
static bool probe_item(const char *item)
{
	char cmd[128];
	int len = snprintf(cmd, sizeof(cmd), "add,op=DRV_IN,status=IOERR,%s", item);

	return !do_write((const unsigned char *)cmd, len);
}

static void probe_next(void)
{
	static char got[1 << 16];
	const unsigned char ra[] = "removeall";

	K.delay = probe_item("delay_us=1");
	K.count = probe_item("count=1");
	K.seed = probe_item("seed=1");
	if (!probe_item("chance=1"))
		die("%s takes no rule", D.ei_path);
	if (read_file(D.ei_path, got, sizeof(got)))
		die("read-back larger than %zu bytes", sizeof(got));
	K.counters = strstr(got, ",matched=") != NULL;
	if (do_write(ra, 9))
		die("removeall failed");
	if (opt_next && !(K.delay && K.count && K.seed && K.counters))
		die("-X: %s lacks the follow-up's%s%s%s%s", D.name, K.delay ? "" : " delay_us",
		    K.count ? "" : " count", K.seed ? "" : " seed", K.counters ? "" : " counters");
}

/* ---- running, replaying, shrinking ---- */

static void clean_state(void)
{
	const unsigned char ra[] = "removeall";

	if (do_write(ra, 9))
		die("removeall failed: cannot reach a clean state");
	M.nr = 0;
	if (D.supported[IO_ZRESET_ALL]) {
		struct blk_zone_range zr = { 0, D.sectors };

		if (ioctl(D.dev_fd, BLKRESETZONE, &zr))
			die("resetting all zones: %s", strerror(errno));
	}
	memset(M.zone, Z_EMPTY, sizeof(M.zone));
}

static bool run_step(const struct step *s)
{
	return s->is_write ? run_write(s) : run_io(s);
}

/* Replay the steps in idx[0..n) from a clean state; index of the failing one or -1. */
static int replay(const int *idx, int n)
{
	clean_state();
	for (int i = 0; i < n; i++)
		if (!run_step(&steps[idx[i]]))
			return i;
	return -1;
}

/*
 * Shrinking keeps the last sequence seen to disagree, and why it did, and
 * stops cutting at the deadline (a disagreement that only sometimes recurs,
 * like a statistical one, makes most replays pass and shrinking slow).
 */
static char best_why[sizeof(why)];
static double shrink_deadline;

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* Drop bytes of the writes in idx[0..n) while the sequence still disagrees. */
static void shrink_writes(const int *idx, int n)
{
	for (int k = 0; k < n; k++) {
		struct step *s = &steps[idx[k]];

		if (!s->is_write)
			continue;
		for (size_t chunk = s->len / 2 ? s->len / 2 : 1; s->len; chunk /= 2) {
			/* cut [at, at + chunk) from the end towards the start */
			for (size_t at = s->len > chunk ? s->len - chunk : 0;; ) {
				unsigned char *old = s->data, *d = malloc(s->len);
				size_t oldlen = s->len;
				size_t cut = chunk < oldlen - at ? chunk : oldlen - at;

				if (!d)
					die("out of memory");
				memcpy(d, old, at);
				memcpy(d + at, old + at + cut, oldlen - at - cut);
				s->data = d;
				s->len = oldlen - cut;
				if (now() < shrink_deadline && replay(idx, n) == n - 1) {
					memcpy(best_why, why, sizeof(why));
					free(old);
				} else {
					s->data = old;
					s->len = oldlen;
					free(d);
				}
				if (at == 0)
					break;
				at = at > chunk ? at - chunk : 0;
				if (at > s->len)
					at = s->len;
			}
			if (chunk == 1)
				break;
		}
	}
}

static int shrink(int *idx, int n)
{
	int tmp[MAX_STEPS];

	for (int chunk = n / 2 ? n / 2 : 1; chunk >= 1; chunk /= 2) {
		bool progress = true;

		while (progress) {
			progress = false;
			/* never cut the last step: it is the one that disagrees */
			for (int at = n - 1 - chunk; at >= 0; at -= chunk) {
				int m = 0, f;

				for (int i = 0; i < n; i++)
					if (i < at || i >= at + chunk)
						tmp[m++] = idx[i];
				if (now() > shrink_deadline)
					return n;
				f = replay(tmp, m);
				if (f >= 0) {
					memcpy(best_why, why, sizeof(why));
					memcpy(idx, tmp, (f + 1) * sizeof(int));
					n = f + 1;
					progress = true;
					/* the next chunk ends where this one began */
					if (at > n - 1)
						at = n - 1;
				}
			}
		}
		if (chunk == 1)
			break;
	}
	return n;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: eifuzz [-s SEED] [-n STEPS] [-t TRIALS] [-S SECONDS] [-r] [-b] [-X] DISK\n"
		"       eifuzz -T [-X]   print the model's tables (ops, statuses, limits)\n"
		"  SEED: any unsigned number (default 1); STEPS: 1..%d (default 1000);\n"
		"  TRIALS: repeats of a random-outcome I/O, 20..100000 (default 100);\n"
		"  SECONDS: time limit for shrinking a disagreement (default 120);\n"
		"  -r: print writes/s and I/Os/s; -b: I/O up to 1 MiB even where the\n"
		"  queue splits it; -X: rules with the follow-up's delay_us, count and\n"
		"  seed (patches/next), and with -T its facts; DISK: a name under\n"
		"  /sys/block\n",
		MAX_STEPS);
	exit(2);
}

/* An option's number: all of @arg, within @lo..@hi, else the usage. */
static unsigned long long number_arg(const char *arg, unsigned long long lo,
				     unsigned long long hi)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(arg, &end, 0);
	if (!*arg || *end || errno || v < lo || v > hi)
		usage();
	return v;
}

int main(int argc, char **argv)
{
	uint64_t seed = 1;
	unsigned long nsteps = 1000;
	bool rates = false, tables = false;
	int opt, failed = -1;
	struct timespec t0, t1;

	while ((opt = getopt(argc, argv, "s:n:t:S:rbTX")) != -1) {
		switch (opt) {
		case 's':
			seed = number_arg(optarg, 0, UINT64_MAX);
			break;
		case 'n':
			nsteps = number_arg(optarg, 1, MAX_STEPS);
			break;
		case 't':
			opt_trials = number_arg(optarg, 20, 100000);
			break;
		case 'S':
			opt_shrink_seconds = number_arg(optarg, 0, UINT_MAX);
			break;
		case 'r':
			rates = true;
			break;
		case 'T':
			tables = true;
			break;
		case 'X':
			opt_next = true;
			break;
		case 'b':
			opt_big_io = true;
			break;
		default:
			usage();
		}
	}
	if (tables) {
		if (argc != optind)
			usage();
		print_tables();
		return 0;
	}
	if (argc - optind != 1)
		usage();
	disk_open(argv[optind]);
	probe_next();
	rng_state = seed;
	clean_state();
	clock_gettime(CLOCK_MONOTONIC, &t0);

	for (nr_steps = 0; (unsigned long)nr_steps < nsteps; nr_steps++) {
		struct step *s = &steps[nr_steps];

		if (one_in(2))
			gen_write(s);
		else
			gen_io(s);
		if (!run_step(s)) {
			failed = nr_steps++;
			break;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);

	if (failed < 0) {
		double secs = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;

		printf("eifuzz %s seed %" PRIu64 ": %d steps, %lu writes (%lu accepted), "
		       "%lu I/Os (%lu steps repeated %u times): no disagreement\n",
		       D.name, seed, nr_steps, S.writes, S.accepted, S.ios, S.repeated,
		       opt_trials);
		if (opt_next)
			printf("eifuzz %s seed %" PRIu64 ": accepted rules with delay_us %lu, "
			       "count %lu, seed %lu\n", D.name, seed, S.with_delay,
			       S.with_count, S.with_seed);
		/* the outcome of a repeated step may be certain after all (zone states) */
		if (rates)
			printf("eifuzz %s seed %" PRIu64 ": %.1f s, %.0f writes/s, %.0f I/Os/s, "
			       "%lu statistical checks\n", D.name, seed, secs,
			       S.writes / secs, S.ios / secs, S.stat_checks);
		clean_state();
		return 0;
	}

	{
		static int idx[MAX_STEPS];
		char first[sizeof(why)];
		int n = nr_steps, f;

		snprintf(first, sizeof(first), "%s", why);
		memcpy(best_why, why, sizeof(why));
		shrink_deadline = now() + opt_shrink_seconds;
		printf("eifuzz %s seed %" PRIu64 ": DISAGREEMENT at step %d: ",
		       D.name, seed, failed + 1);
		print_step(stdout, &steps[failed]);
		printf(": %s\n", first);
		fflush(stdout);
		/*
		 * First try only the steps that changed state since the last
		 * accepted removeall (zone changes at any time), then cut chunks.
		 */
		int last_clear = -1, m = 0;

		for (int i = 0; i < failed; i++) {
			struct rule r;

			if (steps[i].is_write && steps[i].changed &&
			    !model_parse(steps[i].data, steps[i].len, &r) && r.op < 0)
				last_clear = i;
		}
		for (int i = 0; i < failed; i++)
			if (steps[i].changed && (i > last_clear || !steps[i].is_write))
				idx[m++] = i;
		idx[m++] = failed;
		f = replay(idx, m);
		if (f >= 0) {
			memcpy(best_why, why, sizeof(why));
			n = f + 1;
		} else {
			for (int i = 0; i < n; i++)
				idx[i] = i;
		}
		n = shrink(idx, n);
		shrink_writes(idx, n);
		printf("eifuzz %s seed %" PRIu64 ": shortest sequence that still disagrees"
		       " (%d of %d steps, from a clean state: removeall, zones reset%s):\n",
		       D.name, seed, n, nr_steps,
		       now() > shrink_deadline ? "; shrinking stopped at its time limit" : "");
		for (int i = 0; i < n; i++) {
			printf("  %d: ", i + 1);
			print_step(stdout, &steps[idx[i]]);
			printf("\n");
		}
		printf("  -> %s\n", best_why);
		clean_state();
		return 1;
	}
}
