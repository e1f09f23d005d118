/*
 * benchstat - summarise and compare blkinject-bench runs.csv files.
 *
 *   benchstat summary [--baseline-config C] [--baseline-state S]
 *                     [--threshold PCT] [--smp-workloads 'W...']
 *                     --accel ACCEL RUNS.CSV
 *   benchstat compare [--threshold PCT] [--smp-workloads 'W...']
 *                     --accel ACCEL | --base-accel A --new-accel B
 *                     BASE.CSV NEW.CSV
 *   benchstat metrics
 *   benchstat rank-sum PAIRS.TSV
 *   benchstat simulate [--seed N] [--reps N] [--noise PCT] [--threshold PCT] [--rows K]
 *   benchstat plan --rows K [--noise PCT] [--threshold PCT] [--repeats N] [--seed N] [--reps N]
 *
 * Every metric has a class (the table below): exact counts and guest time
 * under tcg-icount are judged on their medians; sampled time gets the
 * Wilcoxon rank-sum test with the Hodges-Lehmann shift and its confidence
 * interval, as R's wilcox.test(conf.int = TRUE) computes them (exact
 * without ties, else the continuity-corrected normal test inverted);
 * random metrics are reported, never judged.  Every class ends in the same
 * rule: an interval of log ratios against log1p(+-threshold).  GSL gives
 * the distributions, sorting, medians and the RNG; the exact null
 * distribution of the rank-sum statistic is counted here, as R does.
 * README.md has the rules and the reasons.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sf_gamma.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#define EXIT_REGRESSION 1
#define EXIT_BAD_INPUT 2        /* also: no verdict (underpowered, unclear) */
#define ALPHA 0.05              /* two-sided error of tests and intervals */
#define EXACT_MAX_N 50          /* this many runs on a side: normal approximation, as R */
#define SORT_MAX_MN 1024        /* up to this many pairwise differences: sort them */
/*
 * Two log ratios closer than this are the same change: far below any
 * measurement's resolution, far above the rounding of log(a) - log(b).
 */
#define LOG_EPS 1e-12
#define NFIELDS 8
/* what a config, state, workload, status or metric name is made of */
#define NAME_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.+-"

static const char HEADER[] =
	"seq,config,state,workload,repeat,status,metric,value";

/* ------------------------------------------------------------------ */
/* metric classes: the one table                                       */
/* ------------------------------------------------------------------ */

enum kind {
	EXACT,          /* a count by construction: deterministic anywhere */
	GUEST_TIME,     /* deterministic under tcg-icount, sampled otherwise */
	SAMPLED,        /* hardware or emulator time: noise */
	RANDOM,         /* random by nature: reported, never judged */
	PERCENTILE,     /* a latency percentile: sampled, but random under tcg-icount */
};

enum class { DETERMINISTIC, SAMPLE, RAND };
static const char *const class_name[] = { "deterministic", "sampled", "random" };
static const char *const kind_name[] = { "exact", "guest-time", "sampled", "random", "percentile" };

typedef struct {
	const char *name;
	int higher_is_better;
	enum kind kind;
	int gates;              /* primary: its regressions set exit status 1 */
	const char *unit;       /* of the absolute change */
	int by_insn;            /* an exact count of instructions: judged by the instruction */
	double max;             /* the largest value it can take (the smallest is 0) */
} metric_t;

/*
 * What a metric can possibly be, far beyond anything measured, so that a
 * value past it is a broken measurement, not a verdict (1e308 IOPS got
 * one, printed cut off by 48-byte buffers).  The largest measured at
 * 7391b27: 231801 IOPS, 34511 instructions per I/O, 21024 instructions per
 * call, 16 calls per I/O, 1.2e7 ns (a p999), 4.1e6 bytes of text.
 */
#define IOPS_MAX 1e9            /* a billion I/Os a second: beyond any device */
#define COUNT_MAX 1e12          /* instructions or cycles per call or per I/O */
#define NS_MAX 3.6e12           /* an hour, in ns */
#define PER_IO_MAX 1e6          /* calls or punts per I/O */
#define BYTES_MAX 1e10          /* bytes of a kernel's text */
#define SITES_MAX 1e9           /* jump-label sites, cache lines */
#define EVENTS_MAX 1e15         /* errors, rule changes in a run */

/*
 * Gating: the time per I/O (IOPS, instructions per I/O, cycles per I/O)
 * and every exact count the plugin makes of a HOT_FUNCS function
 * (instructions per call of each, calls per I/O).
 */
static const metric_t METRICS[] = {
	{ "iops",                             1, GUEST_TIME, 1, "IOPS", 0, IOPS_MAX },
	{ "insns_per_io",                     0, GUEST_TIME, 1, "instructions per I/O", 0, COUNT_MAX },
	{ "lat_ns",                           0, GUEST_TIME, 0, "ns", 0, NS_MAX },
	{ "lat_p50_ns",                       0, PERCENTILE, 0, "ns", 0, NS_MAX },
	{ "lat_p99_ns",                       0, PERCENTILE, 0, "ns", 0, NS_MAX },
	{ "lat_p999_ns",                      0, PERCENTILE, 0, "ns", 0, NS_MAX },
	{ "task_clock_ns_per_io",             0, GUEST_TIME, 0, "ns per I/O", 0, NS_MAX },
	{ "insns_per_call",                   0, EXACT,      1, "instructions per call", 1, COUNT_MAX },
	{ "submit_bio_noacct_insns_per_call", 0, EXACT,      1, "instructions per call", 1, COUNT_MAX },
	{ "blk_mq_submit_bio_insns_per_call", 0, EXACT,      1, "instructions per call", 1, COUNT_MAX },
	{ "blk_error_inject_insns_per_call",  0, EXACT,      1, "instructions per call", 1, COUNT_MAX },
	{ "should_fail_bio_insns_per_call",   0, EXACT,      1, "instructions per call", 1, COUNT_MAX },
	{ "calls_per_io",                     0, EXACT,      1, "calls per I/O", 0, PER_IO_MAX },
	{ "iowq_punts_per_io",                0, EXACT,      0, "io-wq punts per I/O", 0, PER_IO_MAX },
	{ "cycles_per_io",                    0, SAMPLED,    1, "cycles per I/O", 0, COUNT_MAX },
	{ "instructions_per_io",              0, SAMPLED,    0, "instructions per I/O", 0, COUNT_MAX },
	{ "pread_ns_per_io",                  0, GUEST_TIME, 0, "ns per I/O", 0, NS_MAX },
	{ "switch_enable_ns",                 0, GUEST_TIME, 0, "ns", 0, NS_MAX },
	{ "switch_add_ns",                    0, GUEST_TIME, 0, "ns", 0, NS_MAX },
	{ "switch_add_other_disk_ns",         0, GUEST_TIME, 0, "ns", 0, NS_MAX },
	{ "switch_removeall_other_disk_ns",   0, GUEST_TIME, 0, "ns", 0, NS_MAX },
	{ "switch_disable_ns",                0, GUEST_TIME, 0, "ns", 0, NS_MAX },
	{ "switch_enable_first_ns",           0, GUEST_TIME, 0, "ns", 0, NS_MAX },
	{ "switch_disable_first_ns",          0, GUEST_TIME, 0, "ns", 0, NS_MAX },
	{ "text_bytes",                       0, EXACT,      0, "bytes", 0, BYTES_MAX },
	{ "func_bytes",                       0, EXACT,      0, "bytes", 0, BYTES_MAX },
	{ "jump_sites",                       0, EXACT,      0, "sites", 0, SITES_MAX },
	{ "hot_lines",                        0, EXACT,      0, "cache lines", 0, SITES_MAX },
	{ "io_errors",                        0, RANDOM,     0, "errors", 0, EVENTS_MAX },
	{ "rule_changes",                     0, RANDOM,     0, "rule changes", 0, EVENTS_MAX },
	{ "perf_share_pct",                   0, RANDOM,     0, "points", 0, 100 },
};
#define N_METRICS (sizeof(METRICS) / sizeof(METRICS[0]))

static const char *const ACCELS[] = { "kvm", "tcg", "tcg-icount" };

/* ------------------------------------------------------------------ */
/* small utilities                                                     */
/* ------------------------------------------------------------------ */

static void usage(FILE *f);

/*
 * fail() - say what is wrong and exit with EXIT_BAD_INPUT: "benchstat: ",
 * then "PATH:LINE: " when PATH is given, the message, and the usage after
 * it when WITH_USAGE.  Called through die(), input_error() and
 * usage_error().
 */
static _Noreturn __attribute__((format(printf, 4, 5)))
void fail(const char *path, size_t line, bool with_usage, const char *fmt, ...)
{
	va_list ap;

	fputs("benchstat: ", stderr);
	if (path)
		fprintf(stderr, "%s:%zu: ", path, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (with_usage)
		usage(stderr);
	exit(EXIT_BAD_INPUT);
}

#define die(...) fail(NULL, 0, false, __VA_ARGS__)
#define input_error(path, line, ...) fail(path, line, false, __VA_ARGS__)
#define usage_error(...) fail(NULL, 0, true, __VA_ARGS__)

/* A GSL domain or overflow error is broken input to us, never an abort. */
static void gsl_die(const char *reason, const char *file, int line, int gsl_errno)
{
	die("GSL: %s (%s:%d, error %d)", reason, file, line, gsl_errno);
}

static void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q)
		die("out of memory");
	return q;
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p)
		die("out of memory");
	return p;
}

static char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(xrealloc(NULL, n), s, n);
}

/* a string formatted into memory of its own: no fixed buffer cuts it off */
static __attribute__((format(printf, 1, 2))) char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	int n;
	char *s;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		die("cannot format a message");
	s = xrealloc(NULL, (size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return s;
}

/* -0 prints as 0 */
static double nz(double v)
{
	return v == 0.0 ? 0.0 : v;
}

/* a log ratio as a percent change */
static double pct(double log_ratio)
{
	return 100.0 * expm1(log_ratio);
}

/*
 * HOT_FUNCS may name any kernel function: its "FUNC_insns_per_call" is an
 * exact count like the listed ones, and gates like them.  As many as the
 * data name (there were 64 at most, the 65th reported as an unknown
 * metric); each allocated once, as groups point at it.
 */
static metric_t **func_metrics;
static size_t n_func_metrics, cap_func_metrics;

static const metric_t *metric_find(const char *name)
{
	static const char suffix[] = "_insns_per_call";
	size_t len = strlen(name), sl = sizeof(suffix) - 1;

	for (size_t i = 0; i < N_METRICS; i++)
		if (!strcmp(METRICS[i].name, name))
			return &METRICS[i];
	for (size_t i = 0; i < n_func_metrics; i++)
		if (!strcmp(func_metrics[i]->name, name))
			return func_metrics[i];
	if (len <= sl || strcmp(name + len - sl, suffix))
		return NULL;
	if (n_func_metrics == cap_func_metrics) {
		cap_func_metrics = cap_func_metrics ? 2 * cap_func_metrics : 16;
		func_metrics = xrealloc(func_metrics, cap_func_metrics * sizeof(*func_metrics));
	}
	func_metrics[n_func_metrics] = xrealloc(NULL, sizeof(metric_t));
	*func_metrics[n_func_metrics] =
		(metric_t){ xstrdup(name), 0, EXACT, 1, "instructions per call", 1, COUNT_MAX };
	return func_metrics[n_func_metrics++];
}

static const char *check_accel(const char *a)
{
	for (size_t i = 0; i < sizeof(ACCELS) / sizeof(ACCELS[0]); i++)
		if (!strcmp(a, ACCELS[i]))
			return a;
	die("unknown accelerator \"%s\" (valid: kvm tcg tcg-icount)", a);
}

/*
 * smp: the row's workload ran on more than one vCPU (--smp-workloads).
 * Under tcg-icount its guest time then depends on how QEMU interleaves
 * the vCPUs, not only on the code: the mq view gave "no rules" +5.17%
 * IOPS at qd1 for an exact +1 instruction per call
 * (results/20261203-173800-tcg-icount-views).  Random, as percentiles
 * are; exact counts stay exact.
 */
static enum class resolve_class(const metric_t *m, const char *accel, int smp)
{
	switch (m->kind) {
	case EXACT:
		return DETERMINISTIC;
	case GUEST_TIME:
		if (strcmp(accel, "tcg-icount"))
			return SAMPLE;
		return smp ? RAND : DETERMINISTIC;
	case SAMPLED:
		return SAMPLE;
	case PERCENTILE:
		/*
		 * fio reports a percentile as the bucket its histogram puts it
		 * in (about 1.6% wide), and under icount at depth above one
		 * where completions fall against the guest's timer moves it
		 * by far more: two identical make runs at 8833ff3 gave qd32
		 * p50 of 11200 and 58624 ns for one row.  With no spread to
		 * measure in one run a side, no verdict.
		 */
		return strcmp(accel, "tcg-icount") ? SAMPLE : RAND;
	default:
		return RAND;
	}
}

/* ------------------------------------------------------------------ */
/* groups, in a hash table                                             */
/* ------------------------------------------------------------------ */

typedef struct {
	long long repeat;
	size_t line;
} rowref_t;

typedef struct {
	char *config, *state, *workload;
	const metric_t *metric;
	double *v;              /* ok values, sorted after load */
	size_t n, cap, n_failed;
	rowref_t *rows;         /* every row's repeat and line: duplicates */
	size_t nrows, rcap;
	double median;
	uint64_t hash;
} group_t;

typedef struct {
	const char *path;
	group_t *g;
	size_t n, cap, n_ok_rows;
	size_t *slot;           /* open addressing: index + 1, 0 = empty */
	size_t nslots;
} dataset_t;

static uint64_t fnv(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return (h ^ 0x1f) * 0x100000001b3ULL;  /* a separator no field holds */
}

static uint64_t key_hash(const char *c, const char *s, const char *w, const char *m)
{
	return fnv(fnv(fnv(fnv(0xcbf29ce484222325ULL, c), s), w), m);
}

static int group_is(const group_t *g, uint64_t h, const char *c, const char *s,
		    const char *w, const char *m)
{
	return g->hash == h && !strcmp(g->config, c) && !strcmp(g->state, s) &&
	       !strcmp(g->workload, w) && !strcmp(g->metric->name, m);
}

static group_t *ds_find(const dataset_t *d, const char *c, const char *s,
			const char *w, const char *m)
{
	uint64_t h = key_hash(c, s, w, m);

	if (!d->nslots)
		return NULL;
	for (size_t i = h & (d->nslots - 1); d->slot[i]; i = (i + 1) & (d->nslots - 1)) {
		group_t *g = &d->g[d->slot[i] - 1];

		if (group_is(g, h, c, s, w, m))
			return g;
	}
	return NULL;
}

static void ds_insert_slot(dataset_t *d, size_t idx)
{
	size_t i = d->g[idx].hash & (d->nslots - 1);

	while (d->slot[i])
		i = (i + 1) & (d->nslots - 1);
	d->slot[i] = idx + 1;
}

static group_t *ds_get(dataset_t *d, const char *c, const char *s,
		       const char *w, const metric_t *m)
{
	group_t *g = ds_find(d, c, s, w, m->name);

	if (g)
		return g;
	if (2 * (d->n + 1) > d->nslots) {       /* load factor at most 1/2 */
		free(d->slot);
		d->nslots = d->nslots ? 2 * d->nslots : 256;
		d->slot = xcalloc(d->nslots, sizeof(*d->slot));
		for (size_t i = 0; i < d->n; i++)
			ds_insert_slot(d, i);
	}
	if (d->n == d->cap) {
		d->cap = d->cap ? 2 * d->cap : 64;
		d->g = xrealloc(d->g, d->cap * sizeof(*d->g));
	}
	g = &d->g[d->n];
	*g = (group_t){ .config = xstrdup(c), .state = xstrdup(s),
			.workload = xstrdup(w), .metric = m,
			.hash = key_hash(c, s, w, m->name) };
	ds_insert_slot(d, d->n++);
	return g;
}

static void group_add(group_t *g, double v)
{
	if (g->n == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 8;
		g->v = xrealloc(g->v, g->cap * sizeof(*g->v));
	}
	g->v[g->n++] = v;
}

static void group_row(group_t *g, long long repeat, size_t line)
{
	if (g->nrows == g->rcap) {
		g->rcap = g->rcap ? 2 * g->rcap : 8;
		g->rows = xrealloc(g->rows, g->rcap * sizeof(*g->rows));
	}
	g->rows[g->nrows++] = (rowref_t){ repeat, line };
}

static int identical(const group_t *g)
{
	return g->n >= 1 && g->v[0] == g->v[g->n - 1];
}

static int parse_double(const char *s, double *out)
{
	char *end;
	double v;

	if (!*s)
		return 0;
	v = strtod(s, &end);
	if (*end || !isfinite(v))
		return 0;
	*out = v;
	return 1;
}

static int parse_integer(const char *s, long long *out)
{
	char *end;

	if (!*s)
		return 0;
	errno = 0;
	*out = strtoll(s, &end, 10);
	return *end == '\0' && !errno;
}

/* One data line split into fields, checked; returns the metric. */
static const metric_t *parse_row(const char *path, size_t lineno, char *p,
				 char **fld, int *ok, double *v, long long *repeat)
{
	static const char *const names[NFIELDS] = {
		"seq", "config", "state", "workload",
		"repeat", "status", "metric", "value"
	};
	size_t nf = 0;
	long long seq;
	const metric_t *m;

	for (;;) {
		char *comma = strchr(p, ',');

		if (nf < NFIELDS)
			fld[nf] = p;
		nf++;
		if (!comma)
			break;
		*comma = '\0';
		p = comma + 1;
	}
	if (nf != NFIELDS)
		input_error(path, lineno, "expected %d comma-separated fields, got %zu",
			    NFIELDS, nf);
	for (int i = 1; i <= 6; i++)
		if (i != 4 && !*fld[i])
			input_error(path, lineno, "empty %s field", names[i]);
	/*
	 * A name with a quote or a blank in it would be a group of its own:
	 * '"randread-qd1"' was only in NEW, and BASE's non-gating rows of
	 * randread-qd1 silently went uncompared.  runs.csv has no quoting.
	 */
	for (int i = 1; i <= 6; i++)
		if (fld[i][strspn(fld[i], NAME_CHARS)])
			input_error(path, lineno, "%s \"%s\": a name is letters, digits and _ . + - only "
				    "(runs.csv has no quoting)", names[i], fld[i]);
	if (!parse_integer(fld[0], &seq))
		input_error(path, lineno, "seq is not an integer: \"%s\"", fld[0]);
	if (!parse_integer(fld[4], repeat))
		input_error(path, lineno, "repeat is not an integer: \"%s\"", fld[4]);
	if (!strcmp(fld[5], "ok"))
		*ok = 1;
	else if (!strcmp(fld[5], "failed"))
		*ok = 0;
	else
		input_error(path, lineno, "unknown status \"%s\" (expected ok or failed)",
			    fld[5]);
	if (*ok && !parse_double(fld[7], v))
		input_error(path, lineno, "value is not a finite number: \"%s\"", fld[7]);
	m = metric_find(fld[6]);
	if (!m)
		input_error(path, lineno,
			    "unknown metric \"%s\" (add it to METRICS in benchstat.c; "
			    "`benchstat metrics` lists the known ones)", fld[6]);
	/* a gating metric is judged by ratios: zero or less is a broken measurement */
	if (*ok && m->gates && *v <= 0)
		input_error(path, lineno, "%s is a gating metric and must be positive: \"%s\"",
			    m->name, fld[7]);
	if (*ok && (*v < 0 || *v > m->max))
		input_error(path, lineno, "%s %s is beyond what it can be (0 to %g): a broken measurement",
			    m->name, fld[7], m->max);
	return m;
}

static int cmp_rowref(const void *a, const void *b)
{
	const rowref_t *x = a, *y = b;

	if (x->repeat != y->repeat)
		return (x->repeat > y->repeat) - (x->repeat < y->repeat);
	return (x->line > y->line) - (x->line < y->line);
}

/* One (config, state, workload, repeat, metric) is one measurement. */
static void check_duplicates(const dataset_t *d)
{
	for (size_t i = 0; i < d->n; i++) {
		group_t *g = &d->g[i];

		qsort(g->rows, g->nrows, sizeof(*g->rows), cmp_rowref);
		for (size_t k = 1; k < g->nrows; k++)
			if (g->rows[k].repeat == g->rows[k - 1].repeat)
				input_error(d->path, g->rows[k].line,
					    "duplicate row: %s/%s/%s repeat %lld metric %s is also on line %zu",
					    g->config, g->state, g->workload, g->rows[k].repeat,
					    g->metric->name, g->rows[k - 1].line);
	}
}

static void load(dataset_t *d, const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	char *line = NULL, *fld[NFIELDS];
	size_t linecap = 0, lineno = 0, rows = 0;
	ssize_t len;

	*d = (dataset_t){ .path = path };
	if (!f)
		die("%s: cannot open: %s", path, strerror(errno));
	while ((len = getline(&line, &linecap, f)) != -1) {
		char *p = line;
		int ok;
		double v = 0;
		long long repeat;
		const metric_t *m;
		group_t *g;

		lineno++;
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if ((size_t)len != strlen(line))
			input_error(path, lineno, "NUL byte in line");
		if (lineno == 1) {
			if (!strncmp(p, "\xef\xbb\xbf", 3))     /* UTF-8 BOM */
				p += 3;
			if (strcmp(p, HEADER))
				input_error(path, lineno, "bad header: expected \"%s\"", HEADER);
			continue;
		}
		if (len == 0)
			continue;
		m = parse_row(path, lineno, p, fld, &ok, &v, &repeat);
		g = ds_get(d, fld[1], fld[2], fld[3], m);
		group_row(g, repeat, lineno);
		if (ok) {
			group_add(g, v);
			d->n_ok_rows++;
		} else {
			g->n_failed++;
		}
		rows++;
	}
	if (ferror(f))
		die("%s: read error", path);
	free(line);
	if (f != stdin)
		fclose(f);
	if (lineno == 0)
		input_error(path, 1, "empty file (missing header)");
	if (rows == 0)
		input_error(path, lineno, "no data rows after the header");
	check_duplicates(d);
	for (size_t i = 0; i < d->n; i++) {
		group_t *g = &d->g[i];

		if (!g->n)
			continue;
		gsl_sort(g->v, 1, g->n);
		g->median = gsl_stats_median_from_sorted_data(g->v, 1, g->n);
	}
}

/* the distinct configs of d, space-separated, allocated */
static char *configs_of(const dataset_t *d)
{
	char *list = xstrdup("");

	for (size_t i = 0; i < d->n; i++) {
		char *next, *word = xasprintf(" %s ", d->g[i].config), *padded = xasprintf(" %s ", list);

		if (!strstr(padded, word)) {
			next = xasprintf("%s%s%s", list, *list ? " " : "", d->g[i].config);
			free(list);
			list = next;
		}
		free(word);
		free(padded);
	}
	return list;
}

/* ------------------------------------------------------------------ */
/* statistics                                                          */
/* ------------------------------------------------------------------ */

/*
 * Distribution-free interval for one group's median: the largest k with
 * P(Binom(n, 1/2) < k) <= ALPHA/2 gives [x_(k), x_(n-k+1)]; for n <= 5 no k
 * qualifies and [min, max] is used.  *level is the coverage achieved.
 */
static size_t median_ci_rank(size_t n, double *level)
{
	size_t k = 1;

	if (n < 2)
		return 0;
	while (k < n / 2 && gsl_cdf_binomial_P((unsigned)k, 0.5, (unsigned)n) <= ALPHA / 2)
		k++;
	*level = 1.0 - 2.0 * (k > 1 ? gsl_cdf_binomial_P((unsigned)k - 1, 0.5, (unsigned)n)
				    : pow(0.5, (double)n));
	return k;
}

/*
 * Null distribution of the Mann-Whitney U of sizes m and n (no ties):
 * cdf[u] = P(U <= u), u = 0..m*n, from the counts' generating function
 * prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i).  Kept per (m, n): the
 * simulations ask for the same sizes thousands of times.
 */
static const double *wilcox_cdf(size_t m, size_t n)
{
	static struct { size_t m, n; double *c; } cache[32];
	static size_t ncache, next;
	size_t top = m * n, slot;
	double *c, total = 0;

	for (size_t i = 0; i < ncache; i++)
		if (cache[i].m == m && cache[i].n == n)
			return cache[i].c;
	c = xcalloc(top + 1, sizeof(*c));
	c[0] = 1;
	for (size_t i = 1; i <= m; i++) {
		for (size_t u = top; u >= n + i; u--)   /* times 1 - q^(n+i) */
			c[u] -= c[u - n - i];
		for (size_t u = i; u <= top; u++)       /* divided by 1 - q^i */
			c[u] += c[u - i];
	}
	for (size_t u = 0; u <= top; u++) {
		total += c[u];
		c[u] = total;
	}
	for (size_t u = 0; u <= top; u++)
		c[u] /= total;
	slot = ncache < 32 ? ncache++ : next++ % 32;
	free(cache[slot].c);
	cache[slot].m = m;
	cache[slot].n = n;
	cache[slot].c = c;
	return c;
}

/* sum over runs of equal values of t^3 - t (a sorted array) */
static double tie_term(const double *a, size_t n)
{
	double t = 0;

	for (size_t i = 0, j; i < n; i = j) {
		for (j = i; j < n && a[j] == a[i]; j++)
			;
		t += pow((double)(j - i), 3) - (double)(j - i);
	}
	return t;
}

/* sd of U under the null, with the tie correction for tie term T */
static double u_sigma(size_t m, size_t n, double ties)
{
	double N = (double)(m + n), v;

	v = (double)m * (double)n / 12.0 * ((N + 1) - (N > 1 ? ties / (N * (N - 1)) : 0));
	return v > 0 ? sqrt(v) : 0;
}

/* Smallest two-sided p the exact test can give at sizes m, n. */
static double min_p_exact(size_t m, size_t n)
{
	return fmin(1.0, 2.0 * exp(-gsl_sf_lnchoose((unsigned)(m + n), (unsigned)m)));
}

/* Smallest p of the normal approximation at sizes m, n: U at 0 or m*n. */
static double min_p_normal(size_t m, size_t n, double sigma)
{
	double half = (double)m * (double)n / 2;

	return sigma > 0 ? fmin(1.0, 2.0 * gsl_cdf_ugaussian_Q((half - 0.5) / sigma)) : 1.0;
}

/*
 * Smallest equal size per side at which K tests under Holm can reach
 * ALPHA: with the exact test, or (normal) the normal approximation
 * without ties, which ties or EXACT_MAX_N runs on a side bring.
 */
static size_t n_needed(size_t k, int normal)
{
	size_t n = 1;

	while ((double)k * (normal || n >= EXACT_MAX_N ?
			    min_p_normal(n, n, sqrt((double)n * n * (2 * n + 1) / 12)) :
			    min_p_exact(n, n)) > ALPHA)
		n++;
	return n;
}

/*
 * The exact test where R's wilcox.test(exact = NULL) takes it: no ties and
 * fewer than EXACT_MAX_N runs on each side.  benchstat used to stay exact
 * up to m*n = 10000, and at 50 or more a side its p differed from R's
 * default (0.00100 against 0.00115).
 */
static int exact_test(size_t m, size_t n, int ties)
{
	return !ties && m < EXACT_MAX_N && n < EXACT_MAX_N;
}

/*
 * The exact two-sided p of U = u, without ties: twice the smaller tail,
 * each summed from its own end.  The upper tail P(U >= u) is the lower
 * one at mn - u (the null distribution is symmetric), never 1 - cdf: that
 * is 0 below about 1e-16 (30 runs a side, every new value above every
 * base one: 2/C(60, 30) = 1.7e-17).
 */
static double exact_p(const double *cdf, uint64_t mn, uint64_t u)
{
	return fmin(1.0, 2.0 * fmin(cdf[u], cdf[mn - u]));
}

/*
 * The k-th smallest (1-based) of the m*n differences b[j] - a[i], a and b
 * sorted ascending, without the m*n array: each row i keeps the range of
 * columns still in play, a random pivot among them is counted against by
 * two pointers (b[j] - a[i] as computed is monotone in both), and the
 * rows shrink until few candidates are left.  O((m + n) log(mn)) expected.
 */
static double kth_diff(const double *a, size_t m, const double *b, size_t n, uint64_t k)
{
	size_t *lo = xcalloc(m, sizeof(*lo)), *hi = xrealloc(NULL, m * sizeof(*hi));
	size_t *le = xrealloc(NULL, m * sizeof(*le)), *lt = xrealloc(NULL, m * sizeof(*lt));
	uint64_t below = 0, rng = 0x9e3779b97f4a7c15ULL ^ k;
	double result;

	for (size_t i = 0; i < m; i++)
		hi[i] = n;
	for (;;) {
		uint64_t cand = 0, cnt_le = below, cnt_lt = below, r;
		size_t i, jl = 0, jt = 0;
		double pivot;

		for (i = 0; i < m; i++)
			cand += hi[i] - lo[i];
		if (cand <= 2 * (uint64_t)(m + n) + 64) {
			double *buf = xrealloc(NULL, (size_t)cand * sizeof(*buf));
			size_t c = 0;

			for (i = 0; i < m; i++)
				for (size_t j = lo[i]; j < hi[i]; j++)
					buf[c++] = b[j] - a[i];
			gsl_sort(buf, 1, c);
			result = buf[k - below - 1];
			free(buf);
			break;
		}
		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		r = rng % cand;
		for (i = 0; r >= hi[i] - lo[i]; i++)
			r -= hi[i] - lo[i];
		pivot = b[lo[i] + r] - a[i];
		/* per row, how many columns are <= pivot and < pivot */
		for (i = 0; i < m; i++) {
			while (jl < n && b[jl] - a[i] <= pivot)
				jl++;
			while (jt < n && b[jt] - a[i] < pivot)
				jt++;
			le[i] = jl < lo[i] ? lo[i] : jl > hi[i] ? hi[i] : jl;
			lt[i] = jt < lo[i] ? lo[i] : jt > hi[i] ? hi[i] : jt;
			cnt_le += le[i] - lo[i];
			cnt_lt += lt[i] - lo[i];
		}
		if (cnt_lt < k && k <= cnt_le) {
			result = pivot;
			break;
		}
		if (k <= cnt_lt) {
			for (i = 0; i < m; i++)
				hi[i] = lt[i];
		} else {
			below = cnt_le;
			for (i = 0; i < m; i++)
				lo[i] = le[i];
		}
	}
	free(lo);
	free(hi);
	free(le);
	free(lt);
	return result;
}

/* The pairwise differences b[j] - a[i]: sorted when few, else selected. */
typedef struct {
	const double *a, *b;
	size_t m, n;
	double *sorted;         /* all m*n of them when m*n <= SORT_MAX_MN */
} diffs_t;

static void diffs_init(diffs_t *d, const double *a, size_t m, const double *b, size_t n)
{
	*d = (diffs_t){ .a = a, .b = b, .m = m, .n = n };
	if (m * n <= SORT_MAX_MN) {
		size_t k = 0;

		d->sorted = xrealloc(NULL, m * n * sizeof(*d->sorted));
		for (size_t i = 0; i < m; i++)
			for (size_t j = 0; j < n; j++)
				d->sorted[k++] = b[j] - a[i];
		gsl_sort(d->sorted, 1, k);
	}
}

static double diffs_kth(const diffs_t *d, uint64_t k)
{
	return d->sorted ? d->sorted[k - 1] : kth_diff(d->a, d->m, d->b, d->n, k);
}

/* median of the differences, as gsl_stats_median_from_sorted_data takes it */
static double diffs_median(const diffs_t *d)
{
	uint64_t mn = (uint64_t)d->m * d->n;

	if (mn % 2)
		return diffs_kth(d, mn / 2 + 1);
	return (diffs_kth(d, mn / 2) + diffs_kth(d, mn / 2 + 1)) / 2;
}

static void diffs_free(diffs_t *d)
{
	free(d->sorted);
}

typedef struct {
	double p;               /* two-sided p-value */
	double hl;              /* Hodges-Lehmann shift of log values */
	double lo, hi, level;   /* its confidence interval and coverage */
	double min_p;           /* the smallest p these sizes (and ties) allow */
	int approx;             /* ties or large: normal approximation */
} wilcox_t;

/*
 * R's wilcox.test(x = new, y = base, conf.int = TRUE) where x and y are
 * sorted log values; n.b. the statistic counts new above base.
 *
 * Without ties and with fewer than EXACT_MAX_N runs a side (R's default):
 * the exact p from the null
 * distribution of U, the interval [d_(qu), d_(mn-qu+1)] of the sorted
 * pairwise differences with qu the ALPHA/2 quantile of U, its coverage.
 *
 * Otherwise R's normal approximation: the continuity-corrected z with the
 * tie correction over the pooled sample for p, and for the interval the
 * same z inverted, as R's uniroot() finds it: W(d), the statistic of
 * x - d against y, is a step function of d that jumps at the pairwise
 * differences, with the tie correction of ties within x and within y (the
 * only ties between jumps), so each bound is the difference at which W
 * crosses -+qnorm(ALPHA/2).  Its coverage is the nominal 1 - ALPHA.
 */
static void wilcoxon(const double *base, size_t m, const double *new, size_t n, wilcox_t *r)
{
	uint64_t mn = (uint64_t)m * n;
	double u = 0, pooled_ties, within_ties, *all;
	diffs_t d;
	int ties;

	/* U = #(new > base) + #(new == base) / 2, by merging */
	for (size_t j = 0, lt = 0, le = 0; j < n; j++) {
		while (lt < m && base[lt] < new[j])
			lt++;
		if (le < lt)
			le = lt;
		while (le < m && base[le] <= new[j])
			le++;
		u += (double)lt + 0.5 * (double)(le - lt);
	}
	all = xrealloc(NULL, (m + n) * sizeof(*all));
	memcpy(all, base, m * sizeof(*all));
	memcpy(all + m, new, n * sizeof(*all));
	gsl_sort(all, 1, m + n);
	pooled_ties = tie_term(all, m + n);
	free(all);
	within_ties = tie_term(base, m) + tie_term(new, n);
	ties = pooled_ties > 0;
	diffs_init(&d, base, m, new, n);
	r->hl = diffs_median(&d);
	r->approx = !exact_test(m, n, ties);
	if (!r->approx) {
		const double *cdf = wilcox_cdf(m, n);
		size_t qu = 0;

		r->p = exact_p(cdf, mn, (uint64_t)u);
		while (cdf[qu] < ALPHA / 2)
			qu++;
		if (qu == 0)
			qu = 1;
		r->level = 1.0 - 2.0 * cdf[qu - 1];
		r->lo = diffs_kth(&d, qu);
		r->hi = diffs_kth(&d, mn - qu + 1);
		r->min_p = min_p_exact(m, n);
	} else {
		double sigma = u_sigma(m, n, pooled_ties), sw = u_sigma(m, n, within_ties);
		double z = u - (double)mn / 2, zq = gsl_cdf_ugaussian_Qinv(ALPHA / 2);
		double half = (double)mn / 2;
		uint64_t kl, ku;

		z = sigma > 0 ? (fabs(z) - (z != 0 ? 0.5 : 0)) / sigma : 0;
		r->p = sigma > 0 ? fmin(1.0, 2.0 * gsl_cdf_ugaussian_Q(z)) : 1.0;
		/*
		 * Just above the k-th difference W = c(mn - k - mn/2) / sw, c()
		 * the continuity correction towards 0.  Lower bound: the
		 * smallest k with W <= zq; upper: the smallest with W <= -zq
		 * (mn if none, where R returns max(x) - min(y)).
		 */
		kl = (uint64_t)fmax(1, ceil(half - 0.5 - zq * sw));
		if (kl > mn)
			kl = mn;
		while (kl > 1 && (half - (double)(kl - 1) - 0.5) / sw <= zq)
			kl--;           /* guards the closed form's rounding */
		while (kl < mn && (half - (double)kl - 0.5) / sw > zq)
			kl++;
		ku = (uint64_t)fmax(1, ceil(half + 0.5 + zq * sw));
		if (ku > mn)
			ku = mn;
		while (ku > 1 && (half - (double)(ku - 1) + 0.5) / sw <= -zq)
			ku--;
		while (ku < mn && (half - (double)ku + 0.5) / sw > -zq)
			ku++;
		r->lo = diffs_kth(&d, kl);
		r->hi = diffs_kth(&d, ku);
		r->level = 1.0 - ALPHA;
		r->min_p = min_p_normal(m, n, sw);
	}
	diffs_free(&d);
}

/* ------------------------------------------------------------------ */
/* judging one group against its baseline                              */
/* ------------------------------------------------------------------ */

typedef struct {
	enum class cls;
	int have_rel, have_delta, have_ci, have_p, gates;
	double rel, lo, hi;     /* log ratios: the change and its interval */
	double level, p, min_p, delta;
	double base;            /* the baseline's median (the rounding rule) */
	size_t need;            /* no-verdict: the size per side it needs */
	int approx;
	int undecided;          /* gating and could be worse than the threshold */
	char verdict[24];
	char text[240];
} judge_t;

/*
 * The rounding rule (README.md, "Rounding"; bench/stats/round.sh is the same
 * rule for the reports): print the digits the measurement backs.  With no
 * interval, or a deterministic one (tcg-icount: counts exact to a few
 * instructions), an integer, one decimal below 10 in magnitude, an integral
 * value as an integer; with an interval of width w > 0 (sampled), the last
 * digit at w's second significant digit.  sign: print the sign (a change).
 */
#define NUM_SZ 48               /* a number as fmt_measured prints it */

static void fmt_measured(char *b, size_t sz, double x, double w, int sign)
{
	int place;
	double unit;

	if (w > 0)
		place = (int)floor(log10(w) + 1e-9) - 1;
	else
		place = x == rint(x) || fabs(x) >= 10 ? 0 : -1;
	unit = pow(10, place);
	x = rint(x / unit);
	if (x == 0)
		x = 0;          /* no "-0" */
	if (place > 0) {
		x *= unit;
		place = 0;
	} else {
		x *= unit;
	}
	/* a magnitude that does not fit (values are bounded: METRICS[].max) as %g */
	if (snprintf(b, sz, sign ? "%+.*f" : "%.*f", -place, x) >= (int)sz)
		snprintf(b, sz, sign ? "%+.6g" : "%.6g", x);
}

/* the width of a judged row's interval in the metric's unit (0: none or exact) */
static double ci_width(const judge_t *j)
{
	if (j->cls != SAMPLE || !j->have_ci || !(j->base > 0))
		return 0;
	return j->base * (exp(j->hi) - exp(j->lo));
}

/* "+49 instructions per I/O" */
static void fmt_delta(char *b, size_t sz, const judge_t *j, const metric_t *m)
{
	const char *unit = m->unit;
	char n[NUM_SZ];

	fmt_measured(n, sizeof(n), j->delta, ci_width(j), 1);
	if ((!strcmp(n, "+1") || !strcmp(n, "-1")) && !strncmp(unit, "instructions ", 13))
		snprintf(b, sz, "%s instruction %s", n, unit + 13);
	else
		snprintf(b, sz, "%s %s", n, unit);
}

static void set(judge_t *j, const char *verdict, const char *fmt, ...)
{
	va_list ap;

	snprintf(j->verdict, sizeof(j->verdict), "%s", verdict);
	va_start(ap, fmt);
	vsnprintf(j->text, sizeof(j->text), fmt, ap);
	va_end(ap);
	for (char *c = j->text; (c = strchr(c, ',')); )
		*c = ';';       /* the text is a CSV field */
}

/*
 * The one rule, for every class.  [lo, hi] is an interval of log ratios
 * (new/base), the threshold the percent change thr either way, so the
 * bounds are log1p(-thr/100) and log1p(+thr/100):
 *   within-threshold  the whole interval inside them (a change of exactly
 *                     the threshold is within);
 *   slower/faster     the whole interval beyond one of them, and the change
 *                     established (sampled: significant, Holm-adjusted for
 *                     gating rows);
 *   unclear           otherwise.
 * A gating row is undecided when unclear and its interval reaches beyond
 * the threshold on the worse side: the data allow a regression.
 */
static void decide(judge_t *j, const metric_t *m, double thr, int established, const char *how)
{
	double lm = log1p(-thr / 100) - LOG_EPS, lp = log1p(thr / 100) + LOG_EPS;
	int hib = m->higher_is_better;
	int inside = j->lo >= lm && j->hi <= lp;
	int worse = hib ? j->hi < lm : j->lo > lp;
	int better = hib ? j->lo > lp : j->hi < lm;
	char d[NUM_SZ + 64];

	fmt_delta(d, sizeof(d), j, m);
	j->undecided = 0;
	if (inside) {
		set(j, "within-threshold", "%s (%+.2f%%) within %g%%; %s", d, nz(pct(j->rel)), thr, how);
	} else if ((worse || better) && established) {
		set(j, worse ? "slower" : "faster", "%s (%+.2f%%); %s", d, nz(pct(j->rel)), how);
	} else {
		j->undecided = j->gates && (hib ? j->lo < lm : j->hi > lp);
		if (worse || better)
			set(j, "unclear", "%+.2f%% but not significant%s; %s", nz(pct(j->rel)),
			    j->gates ? " after Holm's correction" : "", how);
		else
			set(j, "unclear", "%+.2f%% but %s straddles the %g%% threshold",
			    nz(pct(j->rel)), how, thr);
	}
}

/*
 * An exact count of instructions (the plugin's per call of a HOT_FUNCS
 * function) is judged by the instruction, not against the relative
 * threshold: +1 on 120 is +0.8% and the same instruction as +1 on 42.
 * The change and its range [min(new) - max(base), max(new) - min(base)]
 * are rounded to whole instructions: the plugin's counts are averages over
 * every counted call, so a path one call in ten thousand takes moves them
 * by 0.0001, and under a chance rule the mix of paths is random (two runs
 * of the same kernels at 8833ff3: 51.97 and 51.98 per call in
 * match-chance).  Then, against EXACT_TOLERANCE instructions (default 0):
 * slower when the whole range is above it, faster when below its
 * negative, within when inside, unclear when it straddles.
 */
static long exact_tolerance;

static void decide_insns(judge_t *j, const group_t *b, const group_t *g)
{
	double lo = round(g->v[0] - b->v[b->n - 1]), hi = round(g->v[g->n - 1] - b->v[0]);
	double tol = (double)exact_tolerance;
	int spread = !(identical(b) && identical(g));
	char d[NUM_SZ + 64], how[128] = "exact";

	fmt_delta(d, sizeof(d), j, g->metric);
	if (spread)
		snprintf(how, sizeof(how), "repeats differ: range %+.0f..%+.0f instructions", nz(lo), nz(hi));
	j->undecided = 0;
	if (lo > tol || hi < -tol)
		set(j, lo > tol ? "slower" : "faster", "%s (%+.2f%%); %s", d, nz(pct(j->rel)), how);
	else if (lo >= -tol && hi <= tol)
		set(j, "within-threshold", "%s (%+.2f%%) within EXACT_TOLERANCE=%ld instructions; %s", d,
		    nz(pct(j->rel)), exact_tolerance, how);
	else {
		j->undecided = j->gates && hi > tol;
		set(j, "unclear", "%s but %s straddles EXACT_TOLERANCE=%ld instructions", d, how,
		    exact_tolerance);
	}
}

/*
 * Guest time under tcg-icount is close to, not exactly, repeatable: two
 * whole make runs of the same kernels at 8833ff3 differed by up to 0.11%
 * in fio's IOPS and instructions per I/O and 0.22% in mean latency (qd32,
 * rules-100); the plugin's counts differed only under chance rules.  A
 * guest-time change measured once a side is taken as a range of 0.5%, more
 * than twice that, on either side.
 */
#define ICOUNT_SPREAD_PCT 0.5

/*
 * Deterministic class: the medians are the measurement.  Repeats that
 * differ (host entropy leaking into a guest) give the range of pairwise
 * ratios, the interval the rule judges.
 */
static void judge_deterministic(judge_t *j, const group_t *b, const group_t *g, double thr)
{
	char how[112];
	int single;

	if (b->v[0] <= 0 || g->v[0] < 0) {
		set(j, "undefined", "values <= 0 in the baseline: no ratio");
		return;
	}
	j->rel = log(g->median) - log(b->median);
	j->lo = log(g->v[0]) - log(b->v[b->n - 1]);
	j->hi = log(g->v[g->n - 1]) - log(b->v[0]);
	single = g->metric->kind == GUEST_TIME && (b->n < 2 || g->n < 2);
	if (single) {
		j->lo = j->rel - log1p(ICOUNT_SPREAD_PCT / 100);
		j->hi = j->rel + log1p(ICOUNT_SPREAD_PCT / 100);
	}
	j->have_ci = 1;
	if (single)
		snprintf(how, sizeof(how), "one run a side: +-%.1f%% icount repeatability", ICOUNT_SPREAD_PCT);
	else if (identical(b) && identical(g))
		snprintf(how, sizeof(how), "exact");
	else
		snprintf(how, sizeof(how), "repeats differ: range %+.2f..%+.2f%%",
			 nz(pct(j->lo)), nz(pct(j->hi)));
	if (!single && identical(b) && identical(g) && g->median == b->median)
		set(j, "same", "same (exact)");
	else if (g->metric->by_insn)
		decide_insns(j, b, g);
	else
		decide(j, g->metric, thr, 1, how);
}

/* Sampled class: the rank-sum test; the verdict waits for the family. */
static void judge_sampled(judge_t *j, const group_t *b, const group_t *g)
{
	wilcox_t w;
	double *lb, *lg;
	diffs_t raw;

	if (b->v[0] <= 0 || g->v[0] <= 0) {
		set(j, "undefined", "values <= 0: no ratio");
		return;
	}
	lb = xrealloc(NULL, b->n * sizeof(*lb));
	lg = xrealloc(NULL, g->n * sizeof(*lg));
	for (size_t i = 0; i < b->n; i++)
		lb[i] = log(b->v[i]);
	for (size_t i = 0; i < g->n; i++)
		lg[i] = log(g->v[i]);
	wilcoxon(lb, b->n, lg, g->n, &w);
	diffs_init(&raw, b->v, b->n, g->v, g->n);
	j->delta = diffs_median(&raw);
	diffs_free(&raw);
	free(lb);
	free(lg);
	j->rel = w.hl;
	j->lo = w.lo;
	j->hi = w.hi;
	j->level = w.level;
	j->p = w.p;
	j->min_p = w.min_p;
	j->approx = w.approx;
	j->have_ci = j->have_p = 1;
	snprintf(j->verdict, sizeof(j->verdict), "pending");
}

static void judge(judge_t *j, const group_t *b, const group_t *g, enum class cls, double thr)
{
	*j = (judge_t){ .cls = cls, .gates = g->metric->gates && cls != RAND };
	if (!g->n) {
		set(j, "no-data", "no ok runs");
		j->undecided = j->gates;
		return;
	}
	if (!b->n) {
		set(j, "no-baseline-data", "no ok runs in the baseline");
		j->undecided = j->gates;
		return;
	}
	j->delta = g->median - b->median;
	j->base = b->median;
	j->have_delta = 1;
	if (b->median > 0 && g->median >= 0) {
		j->rel = log(g->median) - log(b->median);
		j->have_rel = 1;
	}
	if (cls == RAND) {
		char d[NUM_SZ + 64];

		fmt_delta(d, sizeof(d), j, g->metric);
		set(j, "random", "random by nature: no verdict (median changed by %s)", d);
		return;
	}
	if (b->median == 0) {
		j->have_rel = 0;
		if (cls == DETERMINISTIC && identical(b) && identical(g) && g->median == 0)
			set(j, "same", "same (exact)");
		else
			set(j, "undefined", "baseline median is 0: no ratio");
		return;
	}
	if (cls == DETERMINISTIC)
		judge_deterministic(j, b, g, thr);
	else
		judge_sampled(j, b, g);
}

typedef struct {
	size_t gating;          /* the sampled gating rows: Holm's family */
	size_t underpowered;    /* of them, those that cannot reach ALPHA */
	size_t need;            /* the largest size per side they need */
} family_t;

typedef struct {
	double p;
	size_t i;
} by_p_t;

static int cmp_by_p(const void *a, const void *b)
{
	const by_p_t *x = a, *y = b;

	if (x->p != y->p)
		return (x->p > y->p) - (x->p < y->p);
	return (x->i > y->i) - (x->i < y->i);
}

/*
 * Verdict of a sampled row given the p it is judged by (its own, or Holm's
 * over a family of that many gating rows); sizes is "m+n".
 */
static void decide_sampled(judge_t *j, const metric_t *m, double thr, double p_used,
			   size_t family, const char *sizes)
{
	char how[200], holm[32] = "";

	if (j->gates && (double)family * j->min_p > ALPHA) {
		j->need = n_needed(family, j->approx);
		if (family > 1)
			set(j, "no-verdict", "n=%s: underpowered: Holm over %zu gating rows cannot "
			    "reach %g%% (smallest p %.3g%s x %zu = %.3g); need n>=%zu per side", sizes,
			    family, 100 * (1 - ALPHA), j->min_p, j->approx ? " (normal approx.)" : "",
			    family, fmin(1, (double)family * j->min_p), j->need);
		else
			set(j, "no-verdict", "n=%s: underpowered: no verdict at %g%% (smallest p %.3g%s); "
			    "need n>=%zu per side", sizes, 100 * (1 - ALPHA), j->min_p,
			    j->approx ? " (normal approx.)" : "", j->need);
		j->undecided = 1;
		return;
	}
	if (!j->gates && j->min_p > ALPHA) {
		j->need = n_needed(1, j->approx);
		set(j, "no-verdict", "n=%s: no verdict at %g%%; need n>=%zu per side", sizes,
		    100 * (1 - ALPHA), j->need);
		return;
	}
	if (p_used != j->p)
		snprintf(holm, sizeof(holm), " (Holm %.3g)", p_used);
	snprintf(how, sizeof(how), "p=%.3g%s; %.1f%% CI %+.2f..%+.2f%%%s", j->p,
		 holm, 100 * j->level, nz(pct(j->lo)), nz(pct(j->hi)),
		 j->approx ? " (normal approx.)" : "");
	decide(j, m, thr, p_used <= ALPHA, how);
}

/*
 * Multiplicity: the gating sampled rows are one family, judged by
 * Holm-Bonferroni adjusted p-values (family-wise error <= ALPHA).  A row
 * whose sizes cannot reach ALPHA even as the family's smallest p (K times
 * its smallest possible p) gets no verdict: underpowered.  Every other
 * sampled row is judged on its own p (information, it never gates).
 * ns[i] names row i's sizes ("5+5") for the texts.
 */
static family_t decide_all(judge_t *js, const metric_t **ms, char (*ns)[32], size_t n, double thr)
{
	by_p_t *fam_p = xrealloc(NULL, n * sizeof(*fam_p));
	size_t k = 0;
	double adj = 0;
	family_t fam = { 0, 0, 0 };

	for (size_t i = 0; i < n; i++) {
		if (strcmp(js[i].verdict, "pending"))
			continue;
		if (js[i].gates)
			fam_p[k++] = (by_p_t){ js[i].p, i };
		else
			decide_sampled(&js[i], ms[i], thr, js[i].p, 1, ns[i]);
	}
	fam.gating = k;
	qsort(fam_p, k, sizeof(*fam_p), cmp_by_p);
	for (size_t r = 0; r < k; r++) {
		size_t i = fam_p[r].i;

		adj = fmax(adj, fmin(1.0, (double)(k - r) * js[i].p));
		decide_sampled(&js[i], ms[i], thr, adj, k, ns[i]);
		if (!strcmp(js[i].verdict, "no-verdict")) {
			fam.underpowered++;
			fam.need = js[i].need > fam.need ? js[i].need : fam.need;
		}
	}
	free(fam_p);
	return fam;
}

/* ------------------------------------------------------------------ */
/* options                                                             */
/* ------------------------------------------------------------------ */

typedef struct {
	const char *base_config, *base_state, *base_accel, *new_accel;
	const char *smp;        /* --smp-workloads: space-separated names */
	double threshold, noise;
	unsigned long seed, reps, rows, repeats;
	char **files;
	int nfiles;
} opts_t;

static void usage(FILE *f)
{
	fputs("usage: benchstat summary [--baseline-config CONFIG] [--baseline-state STATE]\n"
	      "                         [--threshold PCT] [--exact-tolerance N] [--smp-workloads 'W...']\n"
	      "                         --accel ACCEL RUNS.CSV\n"
	      "       benchstat compare [--threshold PCT] [--exact-tolerance N] [--smp-workloads 'W...']\n"
	      "                         (--accel ACCEL | --base-accel A --new-accel B)\n"
	      "                         BASE_RUNS.CSV NEW_RUNS.CSV\n"
	      "       benchstat metrics\n"
	      "       benchstat rank-sum PAIRS.TSV\n"
	      "       benchstat simulate [--seed N] [--reps N] [--noise PCT] [--threshold PCT] [--rows K]\n"
	      "       benchstat plan --rows K [--noise PCT] [--threshold PCT] [--repeats N] [--seed N] [--reps N]\n"
	      "       benchstat sequential [SEQ] compare|summary [their options and files]\n"
	      "       benchstat seq-plan --rows K --noise 'PCT...' [SEQ] [--threshold PCT] [--seed N]\n"
	      "       benchstat seq-simulate [SEQ] [--rows K] [--noise 'PCT...'] [--threshold PCT]\n"
	      "                              [--reps N] [--seed N]\n"
	      "SEQ: [--first N] [--max N] [--looks N] [--alpha P] [--beta P] [--spending pocock|power2|power3|obf]\n"
	      "     [--plan-reps N] [--next FILE] [--final] (sequential.c; defaults 10 30 5 0.01\n"
	      "     0.001 power3 20000)\n"
	      "ACCEL: kvm, tcg or tcg-icount.  Defaults: off/off, threshold 1 (percent), exact\n"
	      "tolerance 0 (instructions per call: an exact count is judged by the instruction),\n"
	      "seed 1, reps 2000 (plan: 1000), noise 1, rows 1.  compare exits 0 (no\n"
	      "regression), 1 (regression), 2 (broken input, or no verdict: underpowered or\n"
	      "unclear gating rows)\n"
	      "--smp-workloads: the workloads (exact names, space-separated; '' = none) that\n"
	      "ran on more than one vCPU: under tcg-icount their guest-time metrics are\n"
	      "random (no verdict), their exact counts stay deterministic; each must be in\n"
	      "RUNS.CSV (compare: in BASE_RUNS.CSV or NEW_RUNS.CSV)\n", f);
}


static double opt_number(const char *name, const char *val)
{
	double t;

	if (!parse_double(val, &t) || t < 0)
		usage_error("%s: not a non-negative number: \"%s\"", name, val);
	return t;
}

/*
 * --threshold: a percentage above 0 and below THRESHOLD_MAX.  At 50% a
 * halved IOPS (a time per I/O twice as long) is within it, and from 100%
 * on nothing higher-is-better can be slower at all: log1p(-1) is -inf, and
 * a 60% drop passed.  0 is no threshold: any difference of a sampled row
 * straddles it.
 */
#define THRESHOLD_MAX 50

static double opt_threshold(const char *val)
{
	double t;

	if (!parse_double(val, &t))
		usage_error("--threshold: not a number: want a percentage above 0 and below %d: \"%s\"",
			    THRESHOLD_MAX, val);
	if (!(t > 0 && t < THRESHOLD_MAX))
		usage_error("--threshold: out of range: want a percentage above 0 and below %d (at %d%% "
			    "a halved IOPS passes): \"%s\"", THRESHOLD_MAX, THRESHOLD_MAX, val);
	return t;
}

static unsigned long opt_count(const char *name, const char *val)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(val, &end, 10);
	if (!*val || *end || errno || *val == '-' || v == 0)
		usage_error("%s: not a positive integer: \"%s\"", name, val);
	return v;
}

/* --exact-tolerance: whole instructions, 0 to EXACT_TOLERANCE_MAX */
#define EXACT_TOLERANCE_MAX 1000000

static long opt_tolerance(const char *val)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(val, &end, 10);
	if (!*val || *end || errno || v < 0 || v > EXACT_TOLERANCE_MAX)
		usage_error("--exact-tolerance: not a whole number of instructions from 0 to %d: \"%s\"",
			    EXACT_TOLERANCE_MAX, val);
	return v;
}

/* allowed: which long options this subcommand takes (their short codes) */
static void parse_opts(int argc, char **argv, const char *allowed, int nfiles, opts_t *o)
{
	static const struct option longs[] = {
		{ "baseline-config", required_argument, NULL, 'c' },
		{ "baseline-state", required_argument, NULL, 's' },
		{ "threshold", required_argument, NULL, 't' },
		{ "accel", required_argument, NULL, 'a' },
		{ "base-accel", required_argument, NULL, 'b' },
		{ "new-accel", required_argument, NULL, 'n' },
		{ "seed", required_argument, NULL, 'S' },
		{ "reps", required_argument, NULL, 'r' },
		{ "noise", required_argument, NULL, 'N' },
		{ "rows", required_argument, NULL, 'K' },
		{ "repeats", required_argument, NULL, 'R' },
		{ "smp-workloads", required_argument, NULL, 'W' },
		{ "exact-tolerance", required_argument, NULL, 'E' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	*o = (opts_t){ .base_config = "off", .base_state = "off", .threshold = 1.0,
		       .seed = 1, .reps = 2000, .noise = 1.0, .rows = 1 };
	opterr = 0;
	optind = 2;
	while ((c = getopt_long(argc, argv, "+h", longs, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			exit(0);
		}
		if (c == '?' || !strchr(allowed, c))
			usage_error("unknown option or missing value: %s", argv[optind - 1]);
		if ((c == 'c' || c == 's') && !*optarg)
			usage_error("%s: empty value", argv[optind - 1]);
		switch (c) {
		case 'c': o->base_config = optarg; break;
		case 's': o->base_state = optarg; break;
		case 't': o->threshold = opt_threshold(optarg); break;
		case 'a': o->base_accel = o->new_accel = check_accel(optarg); break;
		case 'b': o->base_accel = check_accel(optarg); break;
		case 'n': o->new_accel = check_accel(optarg); break;
		case 'S': o->seed = opt_count("--seed", optarg); break;
		case 'r': o->reps = opt_count("--reps", optarg); break;
		case 'N': o->noise = opt_number("--noise", optarg); break;
		case 'K': o->rows = opt_count("--rows", optarg); break;
		case 'R': o->repeats = opt_count("--repeats", optarg); break;
		case 'W': o->smp = optarg; break;
		case 'E': exact_tolerance = opt_tolerance(optarg); break;
		}
	}
	o->files = argv + optind;
	o->nfiles = argc - optind;
	if (o->nfiles != nfiles)
		usage_error("expected %d file argument%s", nfiles, nfiles == 1 ? "" : "s");
	if (strchr(allowed, 'a') && (!o->base_accel || !o->new_accel))
		usage_error("the accelerator is needed (--accel, or --base-accel and --new-accel)");
}

/* the sequential gate (sequential.c, included at the end) */
static void seq_compare_hook(judge_t *js, group_t **bg, group_t *ng, size_t n, const opts_t *o,
			     family_t *fam);
static void seq_summary_hook(judge_t *js, const dataset_t *d, const opts_t *o, family_t *fam);
static int seq_on;           /* benchstat sequential: set by cmd_sequential() */

/* ------------------------------------------------------------------ */
/* summary                                                             */
/* ------------------------------------------------------------------ */

#define SMP_SEP " \t"

/*
 * next_name: the next space-separated name of a list from *p (NULL: none),
 * its length in *n, and *p moved past it; NULL at the end.
 */
static const char *next_name(const char **p, size_t *n)
{
	const char *name = *p ? *p + strspn(*p, SMP_SEP) : "";

	if (!*name)
		return NULL;
	*n = strcspn(name, SMP_SEP);
	*p = name + *n;
	return name;
}

/* workload w is one of the space-separated names of list (NULL: none) */
static int in_list(const char *list, const char *w)
{
	const char *name;
	size_t n;

	while ((name = next_name(&list, &n)))
		if (n == strlen(w) && !strncmp(name, w, n))
			return 1;
	return 0;
}

/* the n bytes at name are a workload of d (NULL: none) */
static int has_workload(const dataset_t *d, const char *name, size_t n)
{
	for (size_t i = 0; d && i < d->n; i++)
		if (strlen(d->g[i].workload) == n && !strncmp(d->g[i].workload, name, n))
			return 1;
	return 0;
}

/*
 * every name of --smp-workloads is a workload of the data (of a or, when
 * given, b): a typo is no silent no-op
 */
static void check_smp(const char *list, const dataset_t *a, const dataset_t *b)
{
	const char *name;
	size_t n;

	while ((name = next_name(&list, &n)))
		if (!has_workload(a, name, n) && !has_workload(b, name, n))
			die("--smp-workloads: workload \"%.*s\" is not in %s%s%s", (int)n, name,
			    a->path, b ? " or " : "", b ? b->path : "");
}

static void put_num(FILE *f, double v, int have)
{
	if (have)
		fprintf(f, ",%.10g", nz(v));
	else
		fputc(',', f);
}

static void put_pct(FILE *f, double v, int have)
{
	if (have)
		fprintf(f, ",%.6g", nz(v));
	else
		fputc(',', f);
}

static void put_row(FILE *f, const group_t *g, const judge_t *j)
{
	double level = 0;
	size_t k = median_ci_rank(g->n, &level);

	fprintf(f, "%s,%s,%s,%s,%s,%zu,%zu", g->config, g->state, g->workload,
		g->metric->name, class_name[j->cls], g->n, g->n_failed);
	put_num(f, g->median, g->n > 0);
	put_num(f, g->n ? g->v[0] : 0, g->n > 0);
	put_num(f, g->n ? g->v[g->n - 1] : 0, g->n > 0);
	put_num(f, k ? g->v[k - 1] : 0, k > 0);
	put_num(f, k ? g->v[g->n - k] : 0, k > 0);
	put_pct(f, level, k > 0);
	put_num(f, j->delta, j->have_delta);
	put_pct(f, pct(j->rel), j->have_rel);
	put_pct(f, pct(j->lo), j->have_ci);
	put_pct(f, pct(j->hi), j->have_ci);
	put_pct(f, j->level, j->have_ci && j->cls == SAMPLE);
	put_pct(f, j->p, j->have_p);
	fprintf(f, ",%s,%s,%s,%s\n", j->gates ? "yes" : "no", j->verdict, j->text,
		g->n >= 2 && identical(g) ? "yes" : "no");
}

static const char SUMMARY_HEADER[] =
	"config,state,workload,metric,class,n,n_failed,median,min,max,ci_lo,ci_hi,"
	"ci_level,delta,rel_change_pct,rel_ci_lo_pct,rel_ci_hi_pct,rel_ci_level,"
	"p_value,gates,verdict,verdict_text,deterministic";

static int cmd_summary(int argc, char **argv)
{
	opts_t o;
	dataset_t d;
	judge_t *js;
	const metric_t **ms;
	char (*ns)[32];
	int any_base = 0;

	parse_opts(argc, argv, "cstWE" "a", 1, &o);
	load(&d, o.files[0]);
	check_smp(o.smp, &d, NULL);
	js = xrealloc(NULL, d.n * sizeof(*js));
	ms = xrealloc(NULL, d.n * sizeof(*ms));
	ns = xrealloc(NULL, d.n * sizeof(*ns));
	for (size_t i = 0; i < d.n; i++) {
		group_t *g = &d.g[i];
		group_t *b = ds_find(&d, o.base_config, o.base_state, g->workload, g->metric->name);
		enum class cls = resolve_class(g->metric, o.base_accel, in_list(o.smp, g->workload));

		ms[i] = g->metric;
		snprintf(ns[i], sizeof(ns[i]), "%zu+%zu", b ? b->n : 0, g->n);
		if (b == g) {
			any_base = 1;
			js[i] = (judge_t){ .cls = cls, .gates = g->metric->gates && cls != RAND };
			set(&js[i], "baseline", "baseline");
		} else if (!b) {
			js[i] = (judge_t){ .cls = cls };
			set(&js[i], "no-baseline", "no baseline for this workload and metric");
		} else {
			judge(&js[i], b, g, cls, o.threshold);
		}
	}
	/* every row "no-baseline" is no summary: refuse, before a line is written */
	if (!any_base)
		die("the baseline %s/%s is not a row of %s (its configs: %s): every row would be "
		    "\"no-baseline\"", o.base_config, o.base_state, d.path, configs_of(&d));
	{
		family_t fam = decide_all(js, ms, ns, d.n, o.threshold);

		seq_summary_hook(js, &d, &o, &fam);
	}
	puts(SUMMARY_HEADER);
	for (size_t i = 0; i < d.n; i++)
		put_row(stdout, &d.g[i], &js[i]);
	free(js);
	free(ms);
	free(ns);
	return 0;
}

/* ------------------------------------------------------------------ */
/* compare                                                             */
/* ------------------------------------------------------------------ */

/*
 * smp: the workload ran on more than one vCPU in either run (compare.sh
 * passes the union of the runs' SMP_WORKLOADS): one random side makes the
 * difference random.
 */
static enum class compare_class(const metric_t *m, const opts_t *o, int smp)
{
	enum class a = resolve_class(m, o->base_accel, smp), b = resolve_class(m, o->new_accel, smp);

	return a > b ? a : b;   /* deterministic only if both sides are */
}

/*
 * The compare table fits 80 columns: a row's key on a line of its own, the
 * rest under it, indented and wrapped at spaces (a reader joins a row's
 * lines again by their indent).
 */
#define WIDTH 80
#define INDENT "    "

static void fput_wrapped(FILE *f, const char *s, const char *first, const char *ind)
{
	const char *in = first;

	while (strlen(in) + strlen(s) > WIDTH) {
		size_t w = WIDTH - strlen(in), cut = w;

		while (cut > 0 && s[cut] != ' ')
			cut--;
		if (!cut)
			cut = w;
		fprintf(f, "%s%.*s\n", in, (int)cut, s);
		s += cut;
		while (*s == ' ')
			s++;
		in = ind;
	}
	fprintf(f, "%s%s\n", in, s);
}

static void put_wrapped(const char *s, const char *first, const char *ind)
{
	fput_wrapped(stdout, s, first, ind);
}

static void put_record(const char *key, const char *rest)
{
	put_wrapped(key, "", INDENT);
	put_wrapped(rest, INDENT, INDENT);
}

/* "config/state/workload/metric", allocated */
static char *fmt_key(const group_t *g)
{
	return xasprintf("%s/%s/%s/%s", g->config, g->state, g->workload, g->metric->name);
}

/* put_record(KEY, REST), both allocated and freed */
static void put_record_free(char *key, char *rest)
{
	put_record(key, rest);
	free(key);
	free(rest);
}

/*
 * One accelerator for both sides: a verdict between runs of different
 * accelerators (tcg against kvm exited 0 or 1 with a warning) compares the
 * machines, not the code.
 */
static void check_same_accel(const opts_t *o)
{
	if (strcmp(o->base_accel, o->new_accel))
		die("BASE ran under %s, NEW under %s: runs of different accelerators measure "
		    "different things and get no verdict; compare runs of one accelerator",
		    o->base_accel, o->new_accel);
}

/*
 * At least one group in both, before anything is printed: runs of
 * different kinds (a peers run against a main run) printed 1,150 lines of
 * "only in" and then "0 compared".
 */
static void check_overlap(const dataset_t *base, const dataset_t *new)
{
	for (size_t i = 0; i < new->n; i++) {
		const group_t *g = &new->g[i];

		if (ds_find(base, g->config, g->state, g->workload, g->metric->name))
			return;
	}
	die("BROKEN: no (config, state, workload, metric) is in both %s (configs: %s) and %s "
	    "(configs: %s): runs of different kinds (peers against a main run, a view against a "
	    "matrix) are not compared", base->path, configs_of(base), new->path, configs_of(new));
}

/* BASE and NEW the same file: a comparison of nothing */
static void check_distinct(const char *a, const char *b)
{
	struct stat sa, sb;

	if (strcmp(a, "-") && strcmp(b, "-") && !stat(a, &sa) && !stat(b, &sb) &&
	    sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino)
		die("BROKEN: BASE and NEW are the same file (%s): nothing is compared", b);
}

static int cmd_compare(int argc, char **argv)
{
	opts_t o;
	dataset_t base, new;
	judge_t *js;
	const metric_t **ms;
	group_t **bg;
	char (*ns)[32];
	size_t matched = 0, only = 0, regressions = 0, broken = 0, missing = 0;
	size_t unclear = 0, nobase = 0, deterministic = 0, gating = 0;
	family_t fam;

	parse_opts(argc, argv, "tWE" "abn", 2, &o);
	check_same_accel(&o);
	check_distinct(o.files[0], o.files[1]);
	load(&base, o.files[0]);
	load(&new, o.files[1]);
	check_overlap(&base, &new);
	check_smp(o.smp, &base, &new);
	js = xrealloc(NULL, new.n * sizeof(*js));
	ms = xrealloc(NULL, new.n * sizeof(*ms));
	bg = xrealloc(NULL, new.n * sizeof(*bg));
	ns = xrealloc(NULL, new.n * sizeof(*ns));
	for (size_t i = 0; i < new.n; i++) {
		group_t *g = &new.g[i];

		bg[i] = ds_find(&base, g->config, g->state, g->workload, g->metric->name);
		ms[i] = g->metric;
		js[i] = (judge_t){ .cls = compare_class(g->metric, &o, in_list(o.smp, g->workload)) };
		snprintf(ns[i], sizeof(ns[i]), "%zu+%zu", bg[i] ? bg[i]->n : 0, g->n);
		if (bg[i])
			judge(&js[i], bg[i], g, js[i].cls, o.threshold);
	}
	fam = decide_all(js, ms, ns, new.n, o.threshold);
	seq_compare_hook(js, bg, new.g, new.n, &o, &fam);
	put_record("config/state/workload/metric", "n base+new: median base -> new: verdict: change");
	for (size_t i = 0; i < new.n; i++) {
		group_t *g = &new.g[i], *b = bg[i];
		char bm[NUM_SZ], gm[NUM_SZ];
		int reg;

		if (!b) {
			only++;
			fmt_measured(gm, sizeof(gm), g->n ? g->median : NAN, 0, 0);
			put_record_free(fmt_key(g), xasprintf("n -+%zu: - -> %s: only in NEW", g->n, gm));
			continue;
		}
		matched++;
		if (!g->n && g->n_failed && b->n) {
			broken++;
			set(&js[i], "failed", "BROKEN: every run failed in NEW, ok in BASE");
		}
		reg = js[i].gates && !strcmp(js[i].verdict, "slower");
		regressions += reg;
		gating += js[i].gates;
		deterministic += js[i].gates && js[i].cls == DETERMINISTIC && !js[i].have_p;
		unclear += js[i].undecided && !strcmp(js[i].verdict, "unclear");
		nobase += js[i].undecided && (!strcmp(js[i].verdict, "no-baseline-data") ||
					      !strcmp(js[i].verdict, "no-data"));
		fmt_measured(bm, sizeof(bm), b->n ? b->median : NAN, ci_width(&js[i]), 0);
		fmt_measured(gm, sizeof(gm), g->n ? g->median : NAN, ci_width(&js[i]), 0);
		put_record_free(fmt_key(g), xasprintf("n %zu+%zu: %s -> %s: %s%s%s: %s", b->n, g->n, bm,
						       gm, reg ? "REGRESSION " : "", js[i].verdict,
						       !js[i].gates && !strcmp(js[i].verdict, "slower") ?
						       " (reported, not gating)" : "", js[i].text));
	}
	for (size_t i = 0; i < base.n; i++) {
		group_t *b = &base.g[i];
		char bm[NUM_SZ];
		int gating;

		if (ds_find(&new, b->config, b->state, b->workload, b->metric->name))
			continue;
		only++;
		gating = b->metric->gates &&
			 resolve_class(b->metric, o.base_accel, in_list(o.smp, b->workload)) != RAND;
		missing += gating;
		fmt_measured(bm, sizeof(bm), b->n ? b->median : NAN, 0, 0);
		put_record_free(fmt_key(b), xasprintf("n %zu+-: %s -> -: only in BASE%s", b->n, bm,
						      gating ? ": BROKEN: a gating row NEW lacks" : ""));
	}
	{
		char line[512];

		snprintf(line, sizeof(line), "%zu compared, %zu regressions, %zu only in one file; gating: "
			 "primary metrics (%zu deterministic rows; %s over %zu sampled rows), "
			 "threshold %g%%, instruction counts by the instruction (EXACT_TOLERANCE=%ld)",
			 matched, regressions, only, deterministic,
			 seq_on ? "sequential looks" : "Holm", fam.gating, o.threshold,
			 exact_tolerance);
		put_wrapped(line, "", INDENT);
	}
	if (!base.n_ok_rows || !new.n_ok_rows)
		fprintf(stderr, "benchstat: BROKEN: no ok runs in %s\n",
			base.n_ok_rows ? new.path : base.path);
	if (!matched)
		fprintf(stderr, "benchstat: BROKEN: no group is in both files\n");
	if (broken)
		fprintf(stderr, "benchstat: BROKEN: %zu groups failed in NEW that were ok in BASE\n",
			broken);
	if (missing)
		fprintf(stderr, "benchstat: BROKEN: %zu gating groups of BASE are missing in NEW\n",
			missing);
	/* a comparison in which nothing can fail is no pass */
	if (matched && !gating)
		fprintf(stderr, "benchstat: no verdict: nothing gates: none of the %zu rows in both files is "
			"a gating metric with a verdict (every one reported only or random)\n", matched);
	if (!base.n_ok_rows || !new.n_ok_rows || !matched || broken || missing || !gating)
		return EXIT_BAD_INPUT;
	if (regressions)
		return EXIT_REGRESSION;
	/* no regression shown: say so only where one could have been seen */
	if (fam.underpowered)
		fprintf(stderr, "benchstat: underpowered: %zu gating rows need n >= %zu per side\n",
			fam.underpowered, fam.need);
	if (unclear)
		fprintf(stderr, "benchstat: unclear: %zu gating rows: the interval reaches beyond the "
			"%g%% threshold (more repeats, or a larger threshold, can decide)\n",
			unclear, o.threshold);
	if (nobase)
		fprintf(stderr, "benchstat: no verdict: %zu gating rows have no ok runs on a side\n", nobase);
	return fam.underpowered || unclear || nobase ? EXIT_BAD_INPUT : 0;
}

/* ------------------------------------------------------------------ */
/* metrics, rank-sum, simulate, plan                                   */
/* ------------------------------------------------------------------ */

static int cmd_metrics(int argc, char **argv)
{
	opts_t o;

	parse_opts(argc, argv, "", 0, &o);
	puts("metric\tdirection\tkind\tgates\tunit\tjudged_by\tmax");
	for (size_t i = 0; i < N_METRICS; i++)
		printf("%s\t%s\t%s\t%s\t%s\t%s\t%g\n", METRICS[i].name,
		       METRICS[i].higher_is_better ? "higher-is-better" : "lower-is-better",
		       kind_name[METRICS[i].kind], METRICS[i].gates ? "yes" : "no", METRICS[i].unit,
		       METRICS[i].kind == RANDOM ? "none" : METRICS[i].by_insn ? "instructions" : "percent",
		       METRICS[i].max);
	printf("*_insns_per_call\tlower-is-better\texact\tyes\tinstructions per call\tinstructions\t%g\n",
	       COUNT_MAX);
	return 0;
}

/* comma-separated positive numbers into a sorted array of their logs */
static double *parse_values(char *s, size_t *n, const char *path, size_t line)
{
	double *v = NULL;
	size_t cap = 0;
	char *tok, *save = NULL;

	*n = 0;
	for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		double x;

		if (!parse_double(tok, &x) || x <= 0)
			input_error(path, line, "not a positive number: \"%s\"", tok);
		if (*n == cap) {
			cap = cap ? 2 * cap : 16;
			v = xrealloc(v, cap * sizeof(*v));
		}
		v[(*n)++] = log(x);
	}
	if (!*n)
		input_error(path, line, "no values");
	gsl_sort(v, 1, *n);
	return v;
}

/*
 * The test alone, for the cross-check against R: each line of PAIRS.TSV
 * is "ID<TAB>NEW,VALUES<TAB>BASE,VALUES"; each output line has the ID, p,
 * the Hodges-Lehmann shift of the logs, its interval, the coverage and the
 * method, as R's wilcox.test(log(new), log(base), conf.int = TRUE) has them.
 */
static int cmd_rank_sum(int argc, char **argv)
{
	opts_t o;
	FILE *f;
	char *line = NULL;
	size_t cap = 0, lineno = 0;

	parse_opts(argc, argv, "", 1, &o);
	f = fopen(o.files[0], "r");
	if (!f)
		die("%s: cannot open: %s", o.files[0], strerror(errno));
	puts("id\tp\testimate\tlo\thi\tlevel\tmethod");
	while (getline(&line, &cap, f) != -1) {
		char *id, *xs, *ys, *save = NULL;
		double *x, *y;
		size_t m, n;
		wilcox_t w;

		lineno++;
		line[strcspn(line, "\r\n")] = '\0';
		if (!*line || *line == '#')
			continue;
		id = strtok_r(line, "\t", &save);
		xs = strtok_r(NULL, "\t", &save);
		ys = strtok_r(NULL, "\t", &save);
		if (!id || !xs || !ys)
			input_error(o.files[0], lineno, "expected ID<TAB>NEW<TAB>BASE");
		x = parse_values(xs, &n, o.files[0], lineno);
		y = parse_values(ys, &m, o.files[0], lineno);
		wilcoxon(y, m, x, n, &w);
		printf("%s\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t%s\n", id, w.p, w.hl, w.lo, w.hi,
		       w.level, w.approx ? "normal" : "exact");
		free(x);
		free(y);
	}
	free(line);
	fclose(f);
	return 0;
}

/*
 * One comparison of K gating IOPS rows, each n runs a side of normal
 * noise (sd noise percent), row 0 of NEW lower by shift percent, judged as
 * compare judges them (Holm over the K rows).  Returns compare's exit
 * status; *flagged says whether row 0 was called slower, *verdict0 its
 * verdict.
 */
typedef struct {
	size_t rows, n;
	double shift, noise, thr;
	gsl_rng *rng;
	group_t *b, *g;
	judge_t *js;
	const metric_t **ms;
	char (*ns)[32];
} sim_t;

static void sim_init(sim_t *s, size_t rows, size_t nmax, double noise, double thr, gsl_rng *rng)
{
	const metric_t *iops = metric_find("iops");

	*s = (sim_t){ .rows = rows, .noise = noise, .thr = thr, .rng = rng };
	s->b = xcalloc(rows, sizeof(*s->b));
	s->g = xcalloc(rows, sizeof(*s->g));
	s->js = xcalloc(rows, sizeof(*s->js));
	s->ms = xcalloc(rows, sizeof(*s->ms));
	s->ns = xcalloc(rows, sizeof(*s->ns));
	for (size_t r = 0; r < rows; r++) {
		s->b[r] = (group_t){ .metric = iops, .v = xcalloc(nmax, sizeof(double)) };
		s->g[r] = (group_t){ .metric = iops, .v = xcalloc(nmax, sizeof(double)) };
		s->ms[r] = iops;
	}
}

static void sim_free(sim_t *s)
{
	for (size_t r = 0; r < s->rows; r++) {
		free(s->b[r].v);
		free(s->g[r].v);
	}
	free(s->b);
	free(s->g);
	free(s->js);
	free(s->ms);
	free(s->ns);
}

static int sim_once(sim_t *s, const char **verdict0)
{
	int slower = 0, undecided = 0;

	for (size_t r = 0; r < s->rows; r++) {
		group_t *b = &s->b[r], *g = &s->g[r];
		double f = r == 0 ? 1 - s->shift / 100 : 1;

		b->n = g->n = s->n;
		for (size_t i = 0; i < s->n; i++) {
			b->v[i] = 1e5 * (1 + gsl_ran_gaussian(s->rng, s->noise / 100));
			g->v[i] = 1e5 * f * (1 + gsl_ran_gaussian(s->rng, s->noise / 100));
		}
		gsl_sort(b->v, 1, s->n);
		gsl_sort(g->v, 1, s->n);
		b->median = gsl_stats_median_from_sorted_data(b->v, 1, s->n);
		g->median = gsl_stats_median_from_sorted_data(g->v, 1, s->n);
		snprintf(s->ns[r], sizeof(s->ns[r]), "%zu+%zu", s->n, s->n);
		judge(&s->js[r], b, g, SAMPLE, s->thr);
	}
	decide_all(s->js, s->ms, s->ns, s->rows, s->thr);
	for (size_t r = 0; r < s->rows; r++) {
		slower |= !strcmp(s->js[r].verdict, "slower");
		undecided |= s->js[r].undecided;
	}
	*verdict0 = s->js[0].verdict;
	return slower ? EXIT_REGRESSION : undecided ? EXIT_BAD_INPUT : 0;
}

/*
 * Known truths through the same judge.  --rows 1: one gating row, the
 * verdicts' rates by size and true shift.  --rows K: the whole matrix of K
 * gating rows with row 0 shifted, the rates of compare's exit status.
 */
static int cmd_simulate(int argc, char **argv)
{
	static const size_t ns1[] = { 3, 5, 8, 10 }, nsk[] = { 5, 6, 7, 8, 10, 12, 15, 20 };
	static const double shifts1[] = { 0, 0.5, 0.9, 1, 2, 5 }, shiftsk[] = { 0, 2, 5 };
	opts_t o;
	gsl_rng *rng;
	sim_t s;
	int one;
	size_t nn, nsh;

	parse_opts(argc, argv, "tSrNK", 0, &o);
	one = o.rows == 1;
	nn = one ? sizeof(ns1) / sizeof(ns1[0]) : sizeof(nsk) / sizeof(nsk[0]);
	nsh = one ? sizeof(shifts1) / sizeof(shifts1[0]) : sizeof(shiftsk) / sizeof(shiftsk[0]);
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, o.seed);
	sim_init(&s, o.rows, 20, o.noise, o.threshold, rng);
	if (one)
		puts("n\tshift_pct\tnoise_pct\tslower\twithin\tfaster\tunclear\tno_verdict");
	else
		puts("n\tshift_pct\tnoise_pct\trows\texit0\texit1\texit2\tflagged");
	for (size_t a = 0; a < nn; a++)
		for (size_t h = 0; h < nsh; h++) {
			size_t cnt[5] = { 0 }, ex[3] = { 0 }, flagged = 0;
			double R = (double)o.reps;

			s.n = one ? ns1[a] : nsk[a];
			s.shift = one ? shifts1[h] : shiftsk[h];
			for (unsigned long r = 0; r < o.reps; r++) {
				const char *v;

				ex[sim_once(&s, &v)]++;
				flagged += !strcmp(v, "slower");
				cnt[!strcmp(v, "slower") ? 0 : !strcmp(v, "within-threshold") ? 1 :
				    !strcmp(v, "faster") ? 2 : !strcmp(v, "unclear") ? 3 : 4]++;
			}
			if (one)
				printf("%zu\t%g\t%g\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\n", s.n, s.shift, o.noise,
				       (double)cnt[0] / R, (double)cnt[1] / R, (double)cnt[2] / R,
				       (double)cnt[3] / R, (double)cnt[4] / R);
			else
				printf("%zu\t%g\t%g\t%lu\t%.4f\t%.4f\t%.4f\t%.4f\n", s.n, s.shift, o.noise,
				       o.rows, (double)ex[0] / R, (double)ex[1] / R, (double)ex[2] / R,
				       (double)flagged / R);
		}
	sim_free(&s);
	gsl_rng_free(rng);
	return 0;
}

/*
 * REPEATS=auto: the runs a row needs so that K gating rows (Holm) can show
 * one row 5% slower in PLAN_POWER of comparisons at the given noise,
 * starting at the smallest n that can reach ALPHA at all, at most
 * PLAN_MAX_N; or (--repeats N) what N runs a row can show.  One line:
 * "n=N rows=K noise_pct=P threshold_pct=T power_2pct=A power_5pct=B
 * pass_0pct=C reachable=yes|no need=M": the rates at which one row 2% or
 * 5% slower is called slower, and an unchanged matrix exits 0; need is
 * the smallest n Holm over K rows can use.
 */
#define PLAN_MAX_N 20
#define PLAN_POWER 0.9

static double plan_rate(sim_t *s, unsigned long reps, unsigned long seed, double shift, int want_exit)
{
	size_t hits = 0;

	gsl_rng_set(s->rng, seed);
	s->shift = shift;
	for (unsigned long r = 0; r < reps; r++) {
		const char *v;
		int e = sim_once(s, &v);

		hits += want_exit < 0 ? !strcmp(v, "slower") : e == want_exit;
	}
	return (double)hits / (double)reps;
}

static int cmd_plan(int argc, char **argv)
{
	opts_t o;
	gsl_rng *rng;
	sim_t s;
	size_t n, need, top;
	double p2, p5, pass;

	parse_opts(argc, argv, "tSrNKR", 0, &o);
	if (o.reps == 2000)
		o.reps = 1000;
	need = n_needed(o.rows, 0);
	top = o.repeats ? o.repeats : need > PLAN_MAX_N ? need : PLAN_MAX_N;
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	sim_init(&s, o.rows, top, o.noise, o.threshold, rng);
	for (n = o.repeats ? o.repeats : need; ; n++) {
		s.n = n;
		p5 = plan_rate(&s, o.reps, o.seed, 5, -1);
		if (o.repeats || p5 >= PLAN_POWER || n >= top)
			break;
	}
	p2 = plan_rate(&s, o.reps, o.seed, 2, -1);
	pass = plan_rate(&s, o.reps, o.seed, 0, 0);
	printf("n=%zu rows=%lu noise_pct=%g threshold_pct=%g power_2pct=%.2f power_5pct=%.2f "
	       "pass_0pct=%.2f reachable=%s need=%zu\n", n, o.rows, o.noise, o.threshold, p2, p5,
	       pass, n >= need ? "yes" : "no", need);
	sim_free(&s);
	gsl_rng_free(rng);
	return 0;
}

#include "sequential.c"

/* The subcommands, in the order usage lists them. */
static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
} subcommands[] = {
	{ "summary", cmd_summary },
	{ "compare", cmd_compare },
	{ "metrics", cmd_metrics },
	{ "rank-sum", cmd_rank_sum },
	{ "simulate", cmd_simulate },
	{ "plan", cmd_plan },
	{ "sequential", cmd_sequential },
	{ "seq-plan", cmd_seq_plan },
	{ "seq-simulate", cmd_seq_simulate },
};

int main(int argc, char **argv)
{
	size_t i;

	gsl_set_error_handler(gsl_die);
	if (argc < 2)
		usage_error("a subcommand is needed");
	for (i = 0; i < sizeof(subcommands) / sizeof(*subcommands); i++)
		if (!strcmp(argv[1], subcommands[i].name))
			return subcommands[i].run(argc, argv);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	usage_error("unknown subcommand \"%s\" (summary, compare, metrics, rank-sum, simulate, plan, "
		    "sequential, seq-plan, seq-simulate)",
		    argv[1]);
}
