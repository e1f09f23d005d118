// SPDX-License-Identifier: GPL-2.0
/*
 * eirace: two tasks change or read one disk's rules at the same moment,
 * over and over, and the state after each round is checked.  Made for the
 * bugs a single writer cannot show: rule writers that are not serialised,
 * a listing that walks the rules while removeall frees them, and a rule
 * that readers can see before it is set up.
 *
 *   eirace [-n ROUNDS] [-g GATE_ADDR] MODE DISK
 *
 * MODE, each round:
 *   add-add        task A adds a rule, task B another, at once; then the
 *                  file must list both, and after a removeall none
 *   add-removeall  task A adds a rule while task B writes removeall (every
 *                  other round with a rule already there); then the file
 *                  lists that rule or nothing, and a listed rule fails
 *                  the read it covers
 *   removeall-removeall
 *                  16 rules, then A and B write removeall at once; then
 *                  the file lists nothing
 *   add-preempted  task A adds the disk's first rule on CPU 0 while task B,
 *                  at SCHED_FIFO on CPU 0 too, sleeps and writes removeall;
 *                  B's delay sweeps the longest add A has timed alone in
 *                  100 steps (0 to 99 hundredths of it, then again): on a
 *                  preemptible kernel B's timer lands inside A's write,
 *                  inside its locked section too in some rounds, where B
 *                  waits on the mutex and A's unlock gives it the CPU at
 *                  once; then the file lists A's rule or nothing, and the
 *                  gate must agree (with -g)
 *   read-removeall task A reads the file over and over while this task
 *                  adds 16 rules and writes removeall; every line A read
 *                  must be a whole rule as the file prints it
 *   verify         task A, at SCHED_FIFO on CPU 0 and waking every
 *                  250 us, reads sectors 0-7 and compares them with
 *                  what was written there, while this task, on CPU 0
 *                  too, adds 16 WRITE rules far from them and writes
 *                  removeall; no read may fail or return other data
 *   pattern-write  once: write the data verify compares with to sectors 0-7
 *   pattern-read   once: read sectors 0-7 and print "data as written",
 *                  "other data" or the read's errno
 *
 * With -g, the byte at GATE_ADDR (the error-injection jump-label site,
 * read through /proc/kcore) must be a NOP whenever the disk has no rule,
 * and a jump whenever it has one (no other disk may have rules).
 * Tasks A and B are pinned to CPUs 0 and 1 (B to 0 with one CPU) and start
 * each round when this task writes a byte to their pipes.
 *
 * Prints the rounds run and, for each kind of wrong state seen, how often
 * and in which round first; exit status 0 when all was right, 1 when not,
 * 2 on a setup error.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "errname.h"

#define SECTOR		512
#define VERIFY_LEN	4096
#define MANY_RULES	16
#define MAX_WRONG	8

enum mode {
	ADD_ADD, ADD_REMOVEALL, REMOVEALL_REMOVEALL, ADD_PREEMPTED, READ_REMOVEALL,
	VERIFY, PATTERN_WRITE, PATTERN_READ,
};

static const char *const mode_names[] = {
	"add-add", "add-removeall", "removeall-removeall", "add-preempted",
	"read-removeall", "verify", "pattern-write", "pattern-read",
};
#define NR_MODES	((int)(sizeof(mode_names) / sizeof(mode_names[0])))

/* What the tasks report back, in memory shared with them. */
struct shared {
	atomic_int stop;
	atomic_ulong reads, bad_reads, failed_reads;
	atomic_int write_err;
	atomic_long add_ns;	/* add-preempted: A's longest add, in ns */
	char bad_line[128];
};

static struct shared *sh;
static char rules_file[256], dev_file[256];
static uint64_t gate_addr;

/* Wrong states: a name, how often seen, the first round. */
static struct {
	const char *what;
	unsigned long count, first;
} wrong[MAX_WRONG];

static void saw(const char *what, unsigned long round)
{
	int i;

	for (i = 0; i < MAX_WRONG && wrong[i].what; i++)
		if (!strcmp(wrong[i].what, what))
			break;
	if (i == MAX_WRONG)
		return;
	if (!wrong[i].what) {
		wrong[i].what = what;
		wrong[i].first = round;
	}
	wrong[i].count++;
}

static void usage(void)
{
	fprintf(stderr, "usage: eirace [-n ROUNDS] [-g GATE_ADDR] MODE DISK\n"
		"MODE: add-add, add-removeall, removeall-removeall, add-preempted,\n"
		"      read-removeall, verify, pattern-write, pattern-read\n");
	exit(2);
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/* write_cmd CMD: one write of CMD to the rules file; 0 or the errno. */
static int write_cmd(const char *cmd)
{
	ssize_t len = strlen(cmd), ret;
	int fd = open(rules_file, O_WRONLY), err = 0;

	if (fd < 0)
		return errno;
	ret = write(fd, cmd, len);
	if (ret != len)
		err = ret < 0 ? errno : EIO;
	close(fd);
	return err;
}

/* read_rules BUF SIZE: the file's content; its line count, -1 on error. */
static int read_rules(char *buf, size_t size)
{
	int fd = open(rules_file, O_RDONLY), lines = 0;
	size_t len = 0;
	ssize_t ret;
	char *p;

	if (fd < 0)
		return -1;
	while (len < size - 1 && (ret = read(fd, buf + len, size - 1 - len)) > 0)
		len += ret;
	close(fd);
	buf[len] = '\0';
	for (p = buf; *p; p++)
		lines += *p == '\n';
	return lines;
}

static int rule_count(void)
{
	char buf[8192];

	return read_rules(buf, sizeof(buf));
}

/*
 * fields_ok FIELDS: FIELDS is empty or ",name=value" fields, as the rst
 * says later versions append them (the follow-up in patches/next: its
 * options and counters).
 */
static int fields_ok(const char *p)
{
	size_t name, value;

	while (*p == ',') {
		name = strspn(p + 1, "abcdefghijklmnopqrstuvwxyz_");
		if (!name || p[1 + name] != '=')
			return 0;
		p += 2 + name;
		value = strspn(p, "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_");
		if (!value)
			return 0;
		p += value;
	}
	return *p == '\0';
}

/* line_ok LINE: LINE is a rule as the file prints it, and nothing else. */
static int line_ok(const char *line)
{
	unsigned long long start, end;
	unsigned int chance;
	char op[32], status[32];
	int n = 0;

	if (sscanf(line, "%llu:%llu op=%31[A-Z_],status=%31[A-Za-z_],chance=%u%n",
		   &start, &end, op, status, &chance, &n) != 5)
		return 0;
	return fields_ok(line + n) && start <= end && chance >= 1;
}

/* gate_byte: the byte at the gate site, or -1 (no -g, or unreadable). */
static int gate_byte(void)
{
	unsigned char b;
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	int fd, i, ret = -1;

	if (!gate_addr)
		return -1;
	fd = open("/proc/kcore", O_RDONLY);
	if (fd < 0)
		return -1;
	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64)
		goto out;
	for (i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), eh.e_phoff + (off_t)i * eh.e_phentsize) !=
		    sizeof(ph))
			goto out;
		if (ph.p_type == PT_LOAD && gate_addr >= ph.p_vaddr &&
		    gate_addr < ph.p_vaddr + ph.p_memsz) {
			if (pread(fd, &b, 1, ph.p_offset + (gate_addr - ph.p_vaddr)) == 1)
				ret = b;
			break;
		}
	}
out:
	close(fd);
	return ret;
}

/* check_gate RULES ROUND: the gate must be a jump exactly while RULES > 0. */
static void check_gate(int rules, unsigned long round)
{
	int b = gate_byte();
	int jump = b == 0xe9 || b == 0xeb;

	if (b < 0)
		return;
	if (rules > 0 && !jump)
		saw("gate a NOP while the disk has rules", round);
	if (rules == 0 && jump)
		saw("gate a jump while no disk has rules", round);
}

/* read_errno SECTOR: the errno of a 512-byte O_DIRECT read there, 0 if ok. */
static int read_errno(unsigned long long sector)
{
	void *buf;
	int fd = open(dev_file, O_RDONLY | O_DIRECT), err = 0;

	if (fd < 0 || posix_memalign(&buf, 4096, SECTOR))
		return errno;
	if (pread(fd, buf, SECTOR, sector * SECTOR) != SECTOR)
		err = errno ? errno : EIO;
	free(buf);
	close(fd);
	return err;
}

/*
 * The delay of add-preempted's remover in ROUND: ROUND mod 100 hundredths
 * of the longest add timed so far (none in the first round), so that the
 * sweep fits the add on any machine: a TCG guest with KASAN takes about a
 * millisecond for it, a KVM guest microseconds.
 */
#define PREEMPT_STEPS		100

static long preempt_delay_ns(unsigned long round)
{
	return (long)(round % PREEMPT_STEPS) * (atomic_load(&sh->add_ns) / PREEMPT_STEPS);
}

static long elapsed_ns(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) * 1000000000L + (t1.tv_nsec - t0->tv_nsec);
}

/*
 * A racer: waits for a byte on its pipe, writes its command, reports the
 * result on the common pipe, until the pipe closes.  SHUT: the write ends
 * of both racers' pipes, which it must not hold open.  With FIFO, it runs
 * at SCHED_FIFO and sleeps preempt_delay_ns() of the round first; with
 * TIMED, it keeps its longest write in add_ns, timed in the rounds where
 * that delay is 0 (the first, and every 100th), which B's write does not
 * interrupt: B runs it before this racer starts.
 */
static void racer(int cpu, int go, int done, const char *cmd, const int *shut, int fifo,
		  int timed)
{
	struct sched_param param = { .sched_priority = 1 };
	unsigned long round = 0;
	struct timespec pause, t0;
	long ns;
	char c;

	close(shut[0]);
	close(shut[1]);
	pin(cpu);
	if (fifo && sched_setscheduler(0, SCHED_FIFO, &param))
		_exit(2);
	while (read(go, &c, 1) == 1) {
		round++;
		if (fifo) {
			pause.tv_sec = 0;
			pause.tv_nsec = preempt_delay_ns(round);
			if (pause.tv_nsec)
				nanosleep(&pause, NULL);
		}
		clock_gettime(CLOCK_MONOTONIC, &t0);
		c = (char)write_cmd(cmd);
		ns = elapsed_ns(&t0);
		if (timed && (round == 1 || round % PREEMPT_STEPS == 0) &&
		    ns > atomic_load(&sh->add_ns))
			atomic_store(&sh->add_ns, ns);
		if (write(done, &c, 1) != 1)
			break;
	}
	_exit(0);
}

/* The listing reader of read-removeall. */
static void lister(void)
{
	char buf[8192], *line, *save;

	pin(0);
	while (!atomic_load(&sh->stop)) {
		if (read_rules(buf, sizeof(buf)) < 0) {
			atomic_fetch_add(&sh->failed_reads, 1);
			continue;
		}
		atomic_fetch_add(&sh->reads, 1);
		for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			if (!line_ok(line)) {
				if (!atomic_fetch_add(&sh->bad_reads, 1))
					snprintf(sh->bad_line, sizeof(sh->bad_line), "%.100s", line);
				break;
			}
		}
	}
	_exit(0);
}

static void pattern(unsigned char *buf)
{
	int i;

	for (i = 0; i < VERIFY_LEN; i++)
		buf[i] = (unsigned char)(i * 7 + 1);
}

/* The data reader of verify: preempts the writer every 250 microseconds. */
static void verifier(void)
{
	struct sched_param param = { .sched_priority = 1 };
	struct timespec pause = { 0, 250000 };
	unsigned char want[VERIFY_LEN], *buf;
	int fd;

	pin(0);
	sched_setscheduler(0, SCHED_FIFO, &param);
	pattern(want);
	fd = open(dev_file, O_RDONLY | O_DIRECT);
	if (fd < 0 || posix_memalign((void **)&buf, 4096, VERIFY_LEN))
		_exit(2);
	while (!atomic_load(&sh->stop)) {
		nanosleep(&pause, NULL);
		memset(buf, 0, VERIFY_LEN);
		atomic_fetch_add(&sh->reads, 1);
		if (pread(fd, buf, VERIFY_LEN, 0) != VERIFY_LEN)
			atomic_fetch_add(&sh->failed_reads, 1);
		else if (memcmp(buf, want, VERIFY_LEN))
			atomic_fetch_add(&sh->bad_reads, 1);
	}
	_exit(0);
}

/* write_pattern: sectors 0-7 get what verify compares them with. */
static int write_pattern(void)
{
	unsigned char *buf;
	int fd = open(dev_file, O_WRONLY | O_DIRECT), err = 0;

	if (fd < 0 || posix_memalign((void **)&buf, 4096, VERIFY_LEN))
		return errno;
	pattern(buf);
	if (pwrite(fd, buf, VERIFY_LEN, 0) != VERIFY_LEN)
		err = errno ? errno : EIO;
	free(buf);
	close(fd);
	return err;
}

/* pattern_read: one read of sectors 0-7, compared with the pattern. */
static const char *pattern_read(void)
{
	unsigned char want[VERIFY_LEN], *buf;
	int fd = open(dev_file, O_RDONLY | O_DIRECT);
	const char *what;

	if (fd < 0 || posix_memalign((void **)&buf, 4096, VERIFY_LEN))
		return "setup failed";
	pattern(want);
	memset(buf, 0, VERIFY_LEN);
	if (pread(fd, buf, VERIFY_LEN, 0) != VERIFY_LEN)
		what = errno ? errname(errno) : "short read";
	else
		what = memcmp(buf, want, VERIFY_LEN) ? "other data" : "data as written";
	free(buf);
	close(fd);
	return what;
}

/* add_many N: add N rules that no test I/O meets; 0 or the errno. */
static int add_many(int n)
{
	char cmd[128];
	int i, err = 0;

	for (i = 0; i < n && !err; i++) {
		snprintf(cmd, sizeof(cmd),
			 "add,op=WRITE,start=%d,nr_sectors=8,status=IOERR", 100000 + 8 * i);
		err = write_cmd(cmd);
	}
	return err;
}

static pid_t start_task(void (*fn)(void))
{
	pid_t pid = fork();

	if (!pid)
		fn();
	return pid;
}

#define RULE_A	"add,op=READ,start=100,nr_sectors=1,status=MEDIUM"
#define RULE_B	"add,op=READ,start=200,nr_sectors=1,status=MEDIUM"

/*
 * race_round: start both racers, wait for their results.  B first with
 * B_FIRST (add-preempted: B, at SCHED_FIFO on A's CPU, is to be asleep
 * in its delay when A starts).
 */
static void race_round(int go_a, int go_b, int done, int b_first, int *err_a, int *err_b)
{
	char c = 1, r;
	int i;

	if (write(b_first ? go_b : go_a, &c, 1) != 1 || write(b_first ? go_a : go_b, &c, 1) != 1)
		exit(2);
	*err_a = *err_b = -1;
	for (i = 0; i < 2; i++) {
		if (read(done, &r, 1) != 1)
			exit(2);
		/* which racer answered does not matter for add-add */
		if (*err_a < 0)
			*err_a = r;
		else
			*err_b = r;
	}
}

static int run_races(enum mode mode, unsigned long rounds, unsigned long *ran)
{
	const char *cmd_a = RULE_A, *cmd_b = mode == ADD_ADD ? RULE_B : "removeall";
	int go_a[2], go_b[2], done[2], shut[2], err_a, err_b, rules, ncpus, cpu_b;
	unsigned long round;
	pid_t a, b;

	if (mode == REMOVEALL_REMOVEALL)
		cmd_a = "removeall";
	ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (pipe(go_a) || pipe(go_b) || pipe(done))
		return 2;
	shut[0] = go_a[1];
	shut[1] = go_b[1];
	/* add-preempted: both on CPU 0, this task out of their way */
	cpu_b = ncpus > 1 && mode != ADD_PREEMPTED ? 1 : 0;
	if (mode == ADD_PREEMPTED && ncpus > 1)
		pin(1);
	a = fork();
	if (!a)
		racer(0, go_a[0], done[1], cmd_a, shut, 0, mode == ADD_PREEMPTED);
	b = fork();
	if (!b)
		racer(cpu_b, go_b[0], done[1], cmd_b, shut, mode == ADD_PREEMPTED, 0);
	for (round = 1; round <= rounds; round++) {
		if (mode == REMOVEALL_REMOVEALL && add_many(MANY_RULES))
			saw("a rule could not be added", round);
		if (mode == ADD_REMOVEALL && round % 2 == 0 && write_cmd(RULE_B))
			saw("a rule could not be added", round);
		race_round(go_a[1], go_b[1], done[0], mode == ADD_PREEMPTED, &err_a, &err_b);
		if (err_a || err_b)
			saw("a racing write failed", round);
		rules = rule_count();
		switch (mode) {
		case ADD_ADD:
			if (rules != 2)
				saw("not two rules after two adds", round);
			break;
		case ADD_REMOVEALL:
		case ADD_PREEMPTED:
			if (rules > 1)
				saw("a rule left behind by removeall", round);
			if (rules == 1 && read_errno(100) != ENODATA)
				saw("a listed rule that fails no read", round);
			break;
		default:
			if (rules != 0)
				saw("rules left after removeall", round);
			break;
		}
		check_gate(rules, round);
		if (write_cmd("removeall"))
			saw("removeall failed", round);
		rules = rule_count();
		if (rules)
			saw("rules left after removeall", round);
		check_gate(rules, round);
		*ran = round;
	}
	close(go_a[1]);
	close(go_b[1]);
	waitpid(a, NULL, 0);
	waitpid(b, NULL, 0);
	return 0;
}

static int run_with_reader(enum mode mode, unsigned long rounds, unsigned long *ran)
{
	unsigned long round;
	pid_t pid;

	if (mode == VERIFY) {
		if (write_pattern())
			return 2;
		pin(0);
	}
	pid = start_task(mode == VERIFY ? verifier : lister);
	if (pid < 0)
		return 2;
	for (round = 1; round <= rounds; round++) {
		if (add_many(MANY_RULES))
			saw("a rule could not be added", round);
		if (write_cmd("removeall"))
			saw("removeall failed", round);
		*ran = round;
	}
	atomic_store(&sh->stop, 1);
	waitpid(pid, NULL, 0);
	if (mode == READ_REMOVEALL) {
		printf("listings read: %s\n", atomic_load(&sh->reads) ? "some" : "none");
		if (atomic_load(&sh->bad_reads))
			printf("listings with a line that is no rule: %lu, first: %s\n",
			       atomic_load(&sh->bad_reads), sh->bad_line);
	} else {
		if (atomic_load(&sh->bad_reads))
			printf("reads that returned other data: %lu\n", atomic_load(&sh->bad_reads));
	}
	if (atomic_load(&sh->failed_reads))
		printf("reads that failed: %lu\n", atomic_load(&sh->failed_reads));
	return atomic_load(&sh->bad_reads) || atomic_load(&sh->failed_reads) ||
		!atomic_load(&sh->reads);
}

int main(int argc, char **argv)
{
	unsigned long rounds = 100, ran = 0;
	int opt, i, bad;
	enum mode mode;

	while ((opt = getopt(argc, argv, "n:g:")) != -1) {
		switch (opt) {
		case 'n': rounds = strtoul(optarg, NULL, 10); break;
		case 'g': gate_addr = strtoull(optarg, NULL, 0); break;
		default: usage();
		}
	}
	if (argc - optind != 2 || rounds < 1)
		usage();
	for (i = 0; i < NR_MODES; i++)
		if (!strcmp(argv[optind], mode_names[i]))
			break;
	if (i == NR_MODES)
		usage();
	mode = (enum mode)i;
	snprintf(dev_file, sizeof(dev_file), "/dev/%s", argv[optind + 1]);
	snprintf(rules_file, sizeof(rules_file), "/sys/kernel/debug/block/%s/error_injection",
		 argv[optind + 1]);
	if (access(rules_file, W_OK) || access(dev_file, R_OK)) {
		fprintf(stderr, "eirace: %s or %s: %s\n", rules_file, dev_file, strerror(errno));
		return 2;
	}
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return 2;
	memset(sh, 0, sizeof(*sh));
	if (mode == PATTERN_WRITE) {
		i = write_pattern();
		printf("%s\n", errname(i));
		return !!i;
	}
	if (mode == PATTERN_READ) {
		printf("%s\n", pattern_read());
		return 0;
	}
	if (mode <= ADD_PREEMPTED)
		bad = run_races(mode, rounds, &ran);
	else
		bad = run_with_reader(mode, rounds, &ran);
	if (bad == 2) {
		fprintf(stderr, "eirace: setup failed: %s\n", strerror(errno));
		return 2;
	}
	printf("%s: %lu of %lu rounds\n", mode_names[mode], ran, rounds);
	for (i = 0; i < MAX_WRONG && wrong[i].what; i++)
		printf("wrong: %s: %lu times, first in round %lu\n", wrong[i].what,
		       wrong[i].count, wrong[i].first);
	if (!wrong[0].what && !bad)
		printf("every round right\n");
	return wrong[0].what || bad;
}
