// SPDX-License-Identifier: GPL-2.0
/*
 * eistress: change a disk's rule list as fast as writes allow while every
 * CPU reads from the disk, and stop at the first kernel report.  Made to
 * catch RCU misuse in the rule walk (a walk outside rcu_read_lock(), a rule
 * freed without waiting for a grace period, a rule unlinked without
 * list_del_rcu()); run it on a kernel with KASAN, lockdep's RCU checks and
 * full preemption (the debug config).
 *
 *   eistress [-r RULES] [-i ITERATIONS] [-e ERE_FILE] [-v PROGRESS_FILE] DISK
 *
 * A reader that a removal overtakes is what the mutants need: the readers
 * walk the list from its head, as removeall unlinks and frees it, and they
 * walk faster than it frees, so a reader that keeps running is never on a
 * rule being freed.  So the writer is pinned to CPU 0 at SCHED_FIFO and
 * sleeps 0.5 to 1.5 ms before each removeall: its wake-up preempts CPU
 * 0's reader wherever that reader is, now and then inside the rule walk
 * (an RCU reader section is preemptible under PREEMPT), and the removeall
 * runs before that reader resumes.  With kfree() for kfree_rcu() the
 * reader then reads a freed rule (KASAN); with list_del() for
 * list_del_rcu() it follows a poisoned next pointer.
 *
 * One reader process per online CPU, pinned to it, reads 512 bytes with
 * O_DIRECT from /dev/DISK in a loop: sectors 1 to 1023 in turn, and every
 * 8th read sector 0; CPU 0's reader reads sector 0 alone.  Each iteration
 * of the writer (this process) adds RULES rules to
 * /sys/kernel/debug/block/DISK/error_injection through one open file, one
 * rule a write, then writes "removeall".  The first rule
 * added fails reads of sector 0 with MEDIUM (ENODATA); the others are READ
 * rules on sectors no reader touches, so a read of sector 0 walks past all
 * of them to the oldest.  After each iteration the new kernel log records
 * (/dev/kmsg) are matched against ERE_FILE (default
 * /etc/kernel-report.ere, the runner's expression for a kernel report),
 * and the first match ends the run.  With -v, a line per iteration goes to
 * PROGRESS_FILE (e.g. /dev/console, where it survives a panic).
 *
 * Prints what was seen, one fact a line; exit status 0 when no kernel
 * report was seen, 1 after one, 2 on a setup error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "errname.h"

#define MAX_CPUS	64
#define SECTOR		512
#define HIT_SECTOR	0
/* The other rules start here, far from every sector a reader reads. */
#define FAR_SECTOR	(1ULL << 20)

struct reader_counts {
	unsigned long ok;
	unsigned long enodata;
	unsigned long other;
	int other_err;
	int pinned;
};

struct shared {
	atomic_int stop;
	struct reader_counts r[MAX_CPUS];
};

static void usage(void)
{
	fprintf(stderr,
		"usage: eistress [-r RULES] [-i ITERATIONS] [-e ERE_FILE] [-v PROGRESS_FILE] DISK\n");
	exit(2);
}

static void reader(struct shared *sh, int cpu, const char *dev)
{
	struct reader_counts *c = &sh->r[cpu];
	unsigned long n = 0;
	cpu_set_t set;
	void *buf;
	int fd;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	c->pinned = !sched_setaffinity(0, sizeof(set), &set);
	fd = open(dev, O_RDONLY | O_DIRECT);
	if (fd < 0 || posix_memalign(&buf, 4096, SECTOR)) {
		c->other++;
		c->other_err = errno;
		_exit(2);
	}
	while (!atomic_load(&sh->stop)) {
		/*
		 * CPU 0's reader, the one the writer preempts, reads sector 0
		 * alone: the oldest rule fails that read at the end of the
		 * walk, before any driver sees it, so more of that reader's
		 * time is the walk, where the writer's wake-up has to land.
		 */
		off_t sector = cpu == 0 || n % 8 == 0 ? HIT_SECTOR : 1 + n % 1023;
		ssize_t ret = pread(fd, buf, SECTOR, sector * SECTOR);

		if (ret == SECTOR) {
			c->ok++;
		} else if (ret < 0 && errno == ENODATA) {
			c->enodata++;
		} else {
			c->other++;
			c->other_err = ret < 0 ? errno : EIO;
		}
		n++;
	}
	_exit(0);
}

/* write_rule FD RULE: one write of RULE; 0 or the errno. */
static int write_rule(int fd, const char *rule)
{
	ssize_t len = strlen(rule);

	if (write(fd, rule, len) == len)
		return 0;
	return errno ? errno : EIO;
}

/*
 * writer_preempts: pin this process to CPU 0 at the lowest SCHED_FIFO
 * priority, above every reader; 1 when both took.
 */
static int writer_preempts(void)
{
	struct sched_param param = { .sched_priority = 1 };
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return 0;
	return !sched_setscheduler(0, SCHED_FIFO, &param);
}

/*
 * wake_delay_us: the writer's sleep before the ITERATION-th removeall, 0.5
 * to 1.5 ms, a step of 389 us (modulo 1 ms) from one iteration to the next.
 * Under tcg-icount a fixed sleep is a fixed count of the reader's
 * instructions: the wake-ups can then fall at the same point of the
 * reader's loop every time, and miss the walk every time.  Stepping by a
 * prime number of microseconds puts them at a different point each
 * iteration, over 1000 different points.
 */
static unsigned int wake_delay_us(unsigned long iteration)
{
	return 500 + iteration * 389 % 1000;
}

static regex_t report_re;

static int load_report_re(const char *path)
{
	char ere[4096];
	size_t len;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	len = fread(ere, 1, sizeof(ere) - 1, f);
	fclose(f);
	while (len && (ere[len - 1] == '\n' || ere[len - 1] == '\r'))
		len--;
	ere[len] = '\0';
	return regcomp(&report_re, ere, REG_EXTENDED | REG_NOSUB) ? -1 : 0;
}

/*
 * new_report KMSG REPORT: read the kernel log records that arrived since
 * the last call; 1 (and the message in REPORT) at the first that is a
 * kernel report.
 */
static int new_report(int kmsg, char *report, size_t size)
{
	char rec[8192];
	ssize_t len;

	for (;;) {
		char *msg, *nl;

		len = read(kmsg, rec, sizeof(rec) - 1);
		if (len < 0 && errno == EPIPE)
			continue;	/* records were overwritten: go on */
		if (len <= 0)
			return 0;
		rec[len] = '\0';
		msg = strchr(rec, ';');
		if (!msg)
			continue;
		msg++;
		nl = strchr(msg, '\n');
		if (nl)
			*nl = '\0';
		if (!regexec(&report_re, msg, 0, NULL, 0)) {
			snprintf(report, size, "%.100s", msg);
			return 1;
		}
	}
}

int main(int argc, char **argv)
{
	const char *ere_file = "/etc/kernel-report.ere", *progress_file = NULL;
	unsigned long rules = 64, iterations = 200, i, k;
	unsigned long ok = 0, enodata = 0, other = 0;
	int opt, ncpus, cpu, fd, kmsg, err = 0, reported = 0, all_pinned = 1;
	int other_err = 0, preempts;
	char dev[256], file[512], rule[128], report[128] = "";
	FILE *progress = NULL;
	struct shared *sh;
	pid_t pids[MAX_CPUS];

	while ((opt = getopt(argc, argv, "r:i:e:v:")) != -1) {
		switch (opt) {
		case 'r': rules = strtoul(optarg, NULL, 10); break;
		case 'i': iterations = strtoul(optarg, NULL, 10); break;
		case 'e': ere_file = optarg; break;
		case 'v': progress_file = optarg; break;
		default: usage();
		}
	}
	if (argc - optind != 1 || rules < 1 || iterations < 1)
		usage();
	snprintf(dev, sizeof(dev), "/dev/%s", argv[optind]);
	snprintf(file, sizeof(file), "/sys/kernel/debug/block/%s/error_injection",
		 argv[optind]);
	if (load_report_re(ere_file)) {
		fprintf(stderr, "eistress: cannot read the expression in %s\n", ere_file);
		return 2;
	}
	fd = open(file, O_WRONLY);
	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (fd < 0 || kmsg < 0 || lseek(kmsg, 0, SEEK_END) < 0) {
		fprintf(stderr, "eistress: open %s or /dev/kmsg: %s\n", file, strerror(errno));
		return 2;
	}
	if (progress_file && !(progress = fopen(progress_file, "w"))) {
		fprintf(stderr, "eistress: open %s: %s\n", progress_file, strerror(errno));
		return 2;
	}
	ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpus < 1 || ncpus > MAX_CPUS) {
		fprintf(stderr, "eistress: %d CPUs online, want 1 to %d\n", ncpus, MAX_CPUS);
		return 2;
	}
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return 2;
	memset(sh, 0, sizeof(*sh));
	for (cpu = 0; cpu < ncpus; cpu++) {
		pids[cpu] = fork();
		if (pids[cpu] < 0)
			return 2;
		if (!pids[cpu])
			reader(sh, cpu, dev);
	}
	preempts = writer_preempts();

	for (i = 1; i <= iterations && !err && !reported; i++) {
		snprintf(rule, sizeof(rule), "add,op=READ,start=%d,nr_sectors=1,status=MEDIUM",
			 HIT_SECTOR);
		err = write_rule(fd, rule);
		for (k = 1; k < rules && !err; k++) {
			snprintf(rule, sizeof(rule),
				 "add,op=READ,start=%llu,nr_sectors=8,status=IOERR",
				 FAR_SECTOR + 8 * k);
			err = write_rule(fd, rule);
		}
		if (!err) {
			/* wake up into CPU 0's reader, then free under it */
			usleep(wake_delay_us(i));
			err = write_rule(fd, "removeall");
		}
		reported = new_report(kmsg, report, sizeof(report));
		if (progress) {
			fprintf(progress, "eistress: iteration %lu of %lu done\n", i, iterations);
			fflush(progress);
		}
	}
	i--;
	atomic_store(&sh->stop, 1);
	for (cpu = 0; cpu < ncpus; cpu++)
		waitpid(pids[cpu], NULL, 0);
	/* A report may come from a reader's last walk. */
	if (!reported)
		reported = new_report(kmsg, report, sizeof(report));

	for (cpu = 0; cpu < ncpus; cpu++) {
		ok += sh->r[cpu].ok;
		enodata += sh->r[cpu].enodata;
		other += sh->r[cpu].other;
		if (sh->r[cpu].other)
			other_err = sh->r[cpu].other_err;
		all_pinned &= sh->r[cpu].pinned;
	}
	printf("rules added per iteration: %lu, then removeall\n", rules);
	printf("readers: one per CPU, each pinned to it: %s\n", all_pinned ? "yes" : "no");
	printf("writer: on CPU 0 at SCHED_FIFO, preempting its reader: %s\n",
	       preempts ? "yes" : "no");
	if (err)
		printf("rule write failed: %s\n", errname(err));
	printf("iterations: %lu of %lu\n", i, iterations);
	if (other)
		printf("reads: %lu ok, %lu ENODATA, %lu other (last %s)\n", ok, enodata,
		       other, errname(other_err));
	else
		printf("reads: only ok or ENODATA\n");
	printf("reads that met the oldest rule (ENODATA): %s\n", enodata ? "some" : "none");
	printf("reads that passed every rule (ok): %s\n", ok ? "some" : "none");
	if (reported)
		printf("kernel report at iteration %lu: %s\n", i, report);
	else
		printf("kernel report: none\n");
	if (progress)
		fclose(progress);
	return reported ? 1 : err ? 2 : 0;
}
