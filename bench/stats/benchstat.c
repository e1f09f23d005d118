/*
 * benchstat - summarise and compare blkinject-bench runs.csv files.
 *
 *   benchstat summary [--baseline-config C] [--baseline-state S]
 *                     [--threshold PCT] --accel ACCEL RUNS.CSV
 *   benchstat compare [--threshold PCT] --accel ACCEL | --base-accel A
 *                     --new-accel B  BASE.CSV NEW.CSV
 *   benchstat metrics
 *   benchstat simulate [--seed N] [--reps N] [--noise PCT] [--threshold PCT]
 *
 * Every metric has a class (the table below): exact counts and guest time
 * under tcg-icount are judged on their medians against the threshold;
 * sampled time gets the exact Wilcoxon rank-sum test with the
 * Hodges-Lehmann shift and its exact confidence interval (R's
 * wilcox.test(conf.int = TRUE)); random metrics are reported, never judged.
 * Distributions, sorting, medians and the RNG come from GSL; the exact null
 * distribution of the rank-sum statistic is counted here, as R does.
 * README.md has the rules and the reasons.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sf_gamma.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#define EXIT_REGRESSION 1
#define EXIT_BAD_INPUT 2
#define ALPHA 0.05              /* two-sided error of tests and intervals */
#define EXACT_MAX_MN 10000      /* larger m*n: normal approximation */
#define NFIELDS 8

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
} metric_t;

static const metric_t METRICS[] = {
	{ "iops",                             1, GUEST_TIME, 1, "IOPS" },
	{ "insns_per_io",                     0, GUEST_TIME, 1, "instructions per I/O" },
	{ "lat_ns",                           0, GUEST_TIME, 0, "ns" },
	{ "lat_p50_ns",                       0, PERCENTILE, 0, "ns" },
	{ "lat_p99_ns",                       0, PERCENTILE, 0, "ns" },
	{ "lat_p999_ns",                      0, PERCENTILE, 0, "ns" },
	{ "task_clock_ns_per_io",             0, GUEST_TIME, 0, "ns per I/O" },
	{ "insns_per_call",                   0, EXACT,      1, "instructions per call" },
	{ "submit_bio_noacct_insns_per_call", 0, EXACT,      0, "instructions per call" },
	{ "blk_mq_submit_bio_insns_per_call", 0, EXACT,      0, "instructions per call" },
	{ "blk_error_inject_insns_per_call",  0, EXACT,      0, "instructions per call" },
	{ "should_fail_bio_insns_per_call",   0, EXACT,      0, "instructions per call" },
	{ "calls_per_io",                     0, EXACT,      0, "calls per I/O" },
	{ "iowq_punts_per_io",                0, EXACT,      0, "io-wq punts per I/O" },
	{ "cycles_per_io",                    0, SAMPLED,    1, "cycles per I/O" },
	{ "instructions_per_io",              0, SAMPLED,    0, "instructions per I/O" },
	{ "pread_ns_per_io",                  0, GUEST_TIME, 0, "ns per I/O" },
	{ "switch_enable_ns",                 0, GUEST_TIME, 0, "ns" },
	{ "switch_add_ns",                    0, GUEST_TIME, 0, "ns" },
	{ "switch_add_other_disk_ns",         0, GUEST_TIME, 0, "ns" },
	{ "switch_removeall_other_disk_ns",   0, GUEST_TIME, 0, "ns" },
	{ "switch_disable_ns",                0, GUEST_TIME, 0, "ns" },
	{ "switch_enable_first_ns",           0, GUEST_TIME, 0, "ns" },
	{ "switch_disable_first_ns",          0, GUEST_TIME, 0, "ns" },
	{ "text_bytes",                       0, EXACT,      0, "bytes" },
	{ "func_bytes",                       0, EXACT,      0, "bytes" },
	{ "jump_sites",                       0, EXACT,      0, "sites" },
	{ "hot_lines",                        0, EXACT,      0, "cache lines" },
	{ "io_errors",                        0, RANDOM,     0, "errors" },
	{ "rule_changes",                     0, RANDOM,     0, "rule changes" },
	{ "perf_share_pct",                   0, RANDOM,     0, "points" },
};
#define N_METRICS (sizeof(METRICS) / sizeof(METRICS[0]))

static const char *const ACCELS[] = { "kvm", "tcg", "tcg-icount" };

/* ------------------------------------------------------------------ */
/* small utilities                                                     */
/* ------------------------------------------------------------------ */

static _Noreturn void die(const char *fmt, ...)
{
	va_list ap;

	fputs("benchstat: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(EXIT_BAD_INPUT);
}

static void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q)
		die("out of memory");
	return q;
}

static char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(xrealloc(NULL, n), s, n);
}

/* -0 prints as 0 */
static double nz(double v)
{
	return v == 0.0 ? 0.0 : v;
}

/*
 * HOT_FUNCS may name any kernel function: its "FUNC_insns_per_call" is an
 * exact count like the listed ones, informative (not gating).
 */
#define MAX_FUNC_METRICS 64
static metric_t func_metrics[MAX_FUNC_METRICS];
static size_t n_func_metrics;

static const metric_t *metric_find(const char *name)
{
	static const char suffix[] = "_insns_per_call";
	size_t len = strlen(name), sl = sizeof(suffix) - 1;

	for (size_t i = 0; i < N_METRICS; i++)
		if (!strcmp(METRICS[i].name, name))
			return &METRICS[i];
	for (size_t i = 0; i < n_func_metrics; i++)
		if (!strcmp(func_metrics[i].name, name))
			return &func_metrics[i];
	if (len <= sl || strcmp(name + len - sl, suffix) ||
	    n_func_metrics == MAX_FUNC_METRICS)
		return NULL;
	func_metrics[n_func_metrics] =
		(metric_t){ xstrdup(name), 0, EXACT, 0, "instructions per call" };
	return &func_metrics[n_func_metrics++];
}

static const char *check_accel(const char *a)
{
	for (size_t i = 0; i < sizeof(ACCELS) / sizeof(ACCELS[0]); i++)
		if (!strcmp(a, ACCELS[i]))
			return a;
	die("unknown accelerator \"%s\" (valid: kvm tcg tcg-icount)", a);
}

static enum class resolve_class(const metric_t *m, const char *accel)
{
	switch (m->kind) {
	case EXACT:
		return DETERMINISTIC;
	case GUEST_TIME:
		return strcmp(accel, "tcg-icount") ? SAMPLE : DETERMINISTIC;
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
/* groups                                                              */
/* ------------------------------------------------------------------ */

typedef struct {
	char *config, *state, *workload;
	const metric_t *metric;
	double *v;              /* ok values, sorted after load */
	size_t n, cap, n_failed;
	double median;
} group_t;

typedef struct {
	const char *path;
	group_t *g;
	size_t n, cap, n_ok_rows;
} dataset_t;

static group_t *ds_find(const dataset_t *d, const char *c, const char *s,
			const char *w, const char *m)
{
	for (size_t i = 0; i < d->n; i++) {
		group_t *g = &d->g[i];

		if (!strcmp(g->config, c) && !strcmp(g->state, s) &&
		    !strcmp(g->workload, w) && !strcmp(g->metric->name, m))
			return g;
	}
	return NULL;
}

static group_t *ds_get(dataset_t *d, const char *c, const char *s,
		       const char *w, const metric_t *m)
{
	group_t *g = ds_find(d, c, s, w, m->name);

	if (g)
		return g;
	if (d->n == d->cap) {
		d->cap = d->cap ? 2 * d->cap : 64;
		d->g = xrealloc(d->g, d->cap * sizeof(*d->g));
	}
	g = &d->g[d->n++];
	*g = (group_t){ .config = xstrdup(c), .state = xstrdup(s),
			.workload = xstrdup(w), .metric = m };
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

static int identical(const group_t *g)
{
	return g->n >= 1 && g->v[0] == g->v[g->n - 1];
}

static _Noreturn void input_error(const char *path, size_t line,
				  const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "benchstat: %s:%zu: ", path, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(EXIT_BAD_INPUT);
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

static int is_integer(const char *s)
{
	char *end;

	if (!*s)
		return 0;
	(void)strtoll(s, &end, 10);
	return *end == '\0';
}

/* One data line split into fields, checked; returns the metric. */
static const metric_t *parse_row(const char *path, size_t lineno, char *p,
				 char **fld, int *ok, double *v)
{
	static const char *const names[NFIELDS] = {
		"seq", "config", "state", "workload",
		"repeat", "status", "metric", "value"
	};
	size_t nf = 0;
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
	if (!is_integer(fld[0]))
		input_error(path, lineno, "seq is not an integer: \"%s\"", fld[0]);
	if (!is_integer(fld[4]))
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
	return m;
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
		m = parse_row(path, lineno, p, fld, &ok, &v);
		g = ds_get(d, fld[1], fld[2], fld[3], m);
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
	for (size_t i = 0; i < d->n; i++) {
		group_t *g = &d->g[i];

		if (!g->n)
			continue;
		gsl_sort(g->v, 1, g->n);
		g->median = gsl_stats_median_from_sorted_data(g->v, 1, g->n);
	}
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
 * prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i).
 */
static double *wilcox_cdf(size_t m, size_t n)
{
	size_t top = m * n;
	double *c = xrealloc(NULL, (top + 1) * sizeof(*c)), total = 0;

	memset(c, 0, (top + 1) * sizeof(*c));
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
	return c;
}

/* Smallest two-sided p-value the exact test can give at sizes m, n. */
static double min_p(size_t m, size_t n)
{
	return fmin(1.0, 2.0 / gsl_sf_choose((unsigned)(m + n), (unsigned)m));
}

/* Smallest equal size per side at which the test can reach ALPHA. */
static size_t n_needed(void)
{
	size_t k = 1;

	while (min_p(k, k) > ALPHA)
		k++;
	return k;
}

typedef struct {
	double p;               /* two-sided p-value */
	double hl;              /* Hodges-Lehmann shift of log values */
	double lo, hi, level;   /* its confidence interval and coverage */
	double delta;           /* Hodges-Lehmann shift of the values */
	int approx;             /* ties or large: normal approximation */
} wilcox_t;

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * Wilcoxon rank-sum test of y against x (both sorted, positive), on the
 * log scale so that the shift is a ratio; the test itself only sees ranks.
 * The interval is R's: sorted pairwise differences d, [d_(qu), d_(mn-qu+1)]
 * with qu the ALPHA/2 quantile of U.
 */
static void wilcoxon(const double *x, size_t m, const double *y, size_t n,
		     wilcox_t *r)
{
	size_t mn = m * n, k = 0, qu = 0;
	double *d = xrealloc(NULL, mn * sizeof(*d)), *raw = xrealloc(NULL, mn * sizeof(*d));
	double u = 0, *all = xrealloc(NULL, (m + n) * sizeof(*all));
	int ties = 0;

	for (size_t i = 0; i < m; i++)
		for (size_t j = 0; j < n; j++, k++) {
			d[k] = log(y[j]) - log(x[i]);
			raw[k] = y[j] - x[i];
			u += y[j] > x[i] ? 1.0 : y[j] == x[i] ? 0.5 : 0.0;
		}
	memcpy(all, x, m * sizeof(*x));
	memcpy(all + m, y, n * sizeof(*y));
	qsort(all, m + n, sizeof(*all), cmp_double);
	for (size_t i = 1; i < m + n; i++)
		ties |= all[i] == all[i - 1];
	gsl_sort(d, 1, mn);
	gsl_sort(raw, 1, mn);
	r->hl = gsl_stats_median_from_sorted_data(d, 1, mn);
	r->delta = gsl_stats_median_from_sorted_data(raw, 1, mn);
	r->approx = ties || mn > EXACT_MAX_MN;
	if (!r->approx) {
		double *cdf = wilcox_cdf(m, n);
		size_t lo_u = (size_t)floor(u), hi_u = (size_t)ceil(u);

		r->p = fmin(1.0, 2.0 * fmin(cdf[lo_u], hi_u ? 1.0 - cdf[hi_u - 1] : 1.0));
		while (cdf[qu] < ALPHA / 2)
			qu++;
		if (qu == 0)
			qu = 1;
		r->level = 1.0 - 2.0 * cdf[qu - 1];
		free(cdf);
	} else {
		/* normal approximation with tie and continuity correction */
		double tie = 0, z, sigma, N = (double)(m + n);

		for (size_t i = 0, j; i < m + n; i = j) {
			for (j = i; j < m + n && all[j] == all[i]; j++)
				;
			tie += pow((double)(j - i), 3) - (double)(j - i);
		}
		sigma = sqrt((double)mn / 12.0 * ((N + 1) - tie / (N * (N - 1))));
		z = u - (double)mn / 2;
		z = sigma > 0 ? (fabs(z) - 0.5) / sigma : 0;
		r->p = sigma > 0 ? fmin(1.0, 2.0 * gsl_cdf_ugaussian_Q(fmax(z, 0))) : 1.0;
		qu = (size_t)floor((double)mn / 2 - gsl_cdf_ugaussian_Pinv(1 - ALPHA / 2) * sigma);
		if (qu < 1 || qu > mn)
			qu = 1;
		r->level = 1.0 - ALPHA;
	}
	r->lo = d[qu - 1];
	r->hi = d[mn - qu];
	free(d);
	free(raw);
	free(all);
}

/* ------------------------------------------------------------------ */
/* judging one group against its baseline                              */
/* ------------------------------------------------------------------ */

typedef struct {
	enum class cls;
	int have_rel, have_delta, have_ci, have_p, gates;
	double rel, lo, hi, level, p, delta;
	int approx;
	char verdict[24];
	char text[200];
} judge_t;

static double pct(double ratio_minus_1)
{
	return 100.0 * ratio_minus_1;
}

/* "+49 instructions per I/O" */
static void fmt_delta(char *b, size_t sz, double delta, const metric_t *m)
{
	const char *unit = m->unit;

	if (fabs(delta) == 1 && !strncmp(unit, "instructions ", 13))
		snprintf(b, sz, "%+g instruction %s", delta, unit + 13);
	else
		snprintf(b, sz, "%+.6g %s", nz(delta), unit);
}

/* the change is worse when it goes against the metric's direction */
static int worse(const metric_t *m, double rel)
{
	return m->higher_is_better ? rel < 0 : rel > 0;
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

/* slower/faster/within-threshold for a change known to be real */
static void judge_real(judge_t *j, const metric_t *m, double thr, const char *how)
{
	char d[64];
	double mag = fabs(pct(j->rel));

	fmt_delta(d, sizeof(d), j->delta, m);
	if (mag <= thr)
		set(j, "within-threshold", "%s (%+.2f%%) within %g%%; %s", d, nz(pct(j->rel)), thr, how);
	else
		set(j, worse(m, j->rel) ? "slower" : "faster", "%s (%+.2f%%); %s",
		    d, nz(pct(j->rel)), how);
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
 * differ (host entropy leaking into a guest) give a range of pairwise
 * ratios; the verdict needs all of it on one side of the threshold.
 */
static void judge_deterministic(judge_t *j, const group_t *b, const group_t *g, double thr)
{
	char how[96];
	double lo, hi;
	int single;

	if (b->v[0] <= 0 || g->v[0] < 0) {
		set(j, "undefined", "values <= 0 in the baseline: no ratio");
		return;
	}
	lo = g->v[0] / b->v[b->n - 1] - 1;
	hi = g->v[g->n - 1] / b->v[0] - 1;

	j->rel = g->median / b->median - 1;
	j->delta = g->median - b->median;
	single = g->metric->kind == GUEST_TIME && (b->n < 2 || g->n < 2);
	if (single) {
		lo = j->rel - ICOUNT_SPREAD_PCT / 100;
		hi = j->rel + ICOUNT_SPREAD_PCT / 100;
	}
	j->lo = pct(lo);
	j->hi = pct(hi);
	j->have_ci = 1;
	if (single)
		snprintf(how, sizeof(how), "one run a side: +-%.1f%% icount repeatability", ICOUNT_SPREAD_PCT);
	else if (identical(b) && identical(g))
		snprintf(how, sizeof(how), "exact");
	else
		snprintf(how, sizeof(how), "repeats differ: range %+.3f..%+.3f%%", nz(pct(lo)), nz(pct(hi)));
	if (!single && identical(b) && identical(g) && j->rel == 0)
		set(j, "same", "same (exact)");
	else if ((pct(lo) > thr || pct(hi) < -thr) || (fabs(pct(lo)) <= thr && fabs(pct(hi)) <= thr))
		judge_real(j, g->metric, thr, how);
	else
		set(j, "unclear", "%+.2f%% but %s straddles the %g%% threshold", nz(pct(j->rel)), how, thr);
}

/* Sampled class: exact Wilcoxon rank-sum, Hodges-Lehmann shift. */
static void judge_sampled(judge_t *j, const group_t *b, const group_t *g)
{
	wilcox_t w;

	j->rel = g->median / b->median - 1;
	j->delta = g->median - b->median;
	if (min_p(b->n, g->n) > ALPHA) {
		set(j, "no-verdict", "n=%zu+%zu: no verdict at %g%%; need n>=%zu per side",
		    b->n, g->n, 100 * (1 - ALPHA), n_needed());
		return;
	}
	if (b->v[0] <= 0 || g->v[0] <= 0) {
		set(j, "undefined", "values <= 0: no ratio");
		return;
	}
	wilcoxon(b->v, b->n, g->v, g->n, &w);
	j->rel = exp(w.hl) - 1;
	j->delta = w.delta;
	j->lo = pct(exp(w.lo) - 1);
	j->hi = pct(exp(w.hi) - 1);
	j->level = w.level;
	j->p = w.p;
	j->approx = w.approx;
	j->have_ci = j->have_p = 1;
}

/*
 * Verdict of a sampled group given the p-value it is judged by (its own,
 * or Holm's adjusted one for gating rows).
 */
static void decide_sampled(judge_t *j, const metric_t *m, double thr, double p_used)
{
	char how[160], holm[32] = "";

	if (p_used != j->p)
		snprintf(holm, sizeof(holm), " (Holm %.3g)", p_used);
	snprintf(how, sizeof(how), "p=%.3g%s; %.1f%% CI %+.2f..%+.2f%%%s", j->p,
		 holm, 100 * j->level,
		 nz(j->lo), nz(j->hi), j->approx ? " (normal approx.)" : "");
	if (p_used > ALPHA)
		set(j, "indistinguishable", "no difference shown (%+.2f%%; %s)",
		    nz(pct(j->rel)), how);
	else
		judge_real(j, m, thr, how);
}

static void judge(judge_t *j, const group_t *b, const group_t *g, enum class cls, double thr)
{
	*j = (judge_t){ .cls = cls, .gates = g->metric->gates && cls != RAND };
	if (!g->n) {
		set(j, "no-data", "no ok runs");
		return;
	}
	if (!b->n) {
		set(j, "no-baseline-data", "no ok runs in the baseline");
		return;
	}
	if (cls == RAND) {
		char d[64];

		fmt_delta(d, sizeof(d), g->median - b->median, g->metric);
		j->have_rel = b->median != 0;
		j->rel = j->have_rel ? g->median / b->median - 1 : 0;
		j->delta = g->median - b->median;
		j->have_delta = 1;
		set(j, "random", "random by nature: no verdict (median changed by %s)", d);
		return;
	}
	if (b->median == 0) {
		if (cls == DETERMINISTIC && identical(b) && identical(g) && g->median == 0)
			set(j, "same", "same (exact)");
		else
			set(j, cls == RAND ? "random" : "undefined", "baseline median is 0: no ratio");
		return;
	}
	j->have_rel = j->have_delta = 1;
	j->rel = g->median / b->median - 1;
	j->delta = g->median - b->median;
	if (cls == DETERMINISTIC) {
		judge_deterministic(j, b, g, thr);
	} else {
		judge_sampled(j, b, g);
	}
}

/*
 * Multiplicity: the gating sampled rows are judged by Holm-Bonferroni
 * adjusted p-values (family-wise error <= ALPHA over them); every other
 * sampled row by its own p at ALPHA (information, it never gates).
 */
static void decide_all(judge_t *js, const metric_t **ms, size_t n, double thr)
{
	size_t *idx = xrealloc(NULL, n * sizeof(*idx)), k = 0;
	double adj = 0;

	for (size_t i = 0; i < n; i++) {
		if (!js[i].have_p)
			continue;
		if (js[i].gates)
			idx[k++] = i;
		else
			decide_sampled(&js[i], ms[i], thr, js[i].p);
	}
	for (size_t a = 1; a < k; a++)          /* insertion sort by p */
		for (size_t b = a; b > 0 && js[idx[b]].p < js[idx[b - 1]].p; b--) {
			size_t t = idx[b];

			idx[b] = idx[b - 1];
			idx[b - 1] = t;
		}
	for (size_t r = 0; r < k; r++) {
		adj = fmax(adj, fmin(1.0, (double)(k - r) * js[idx[r]].p));
		decide_sampled(&js[idx[r]], ms[idx[r]], thr, adj);
	}
	free(idx);
}

/* ------------------------------------------------------------------ */
/* options                                                             */
/* ------------------------------------------------------------------ */

typedef struct {
	const char *base_config, *base_state, *base_accel, *new_accel;
	double threshold, noise;
	unsigned long seed, reps;
	char **files;
	int nfiles;
} opts_t;

static void usage(FILE *f)
{
	fputs("usage: benchstat summary [--baseline-config CONFIG] [--baseline-state STATE]\n"
	      "                         [--threshold PCT] --accel ACCEL RUNS.CSV\n"
	      "       benchstat compare [--threshold PCT] (--accel ACCEL | --base-accel A --new-accel B)\n"
	      "                         BASE_RUNS.CSV NEW_RUNS.CSV\n"
	      "       benchstat metrics\n"
	      "       benchstat simulate [--seed N] [--reps N] [--noise PCT] [--threshold PCT]\n"
	      "ACCEL: kvm, tcg or tcg-icount.  Defaults: off/off, threshold 1, seed 1, reps 2000,\n"
	      "noise 1.  compare exits 0 (no regression), 1 (regression), 2 (broken input)\n", f);
}

static _Noreturn void usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("benchstat: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	usage(stderr);
	exit(EXIT_BAD_INPUT);
}

static double opt_number(const char *name, const char *val)
{
	double t;

	if (!parse_double(val, &t) || t < 0)
		usage_error("%s: not a non-negative number: \"%s\"", name, val);
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
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	*o = (opts_t){ .base_config = "off", .base_state = "off", .threshold = 1.0,
		       .seed = 1, .reps = 2000, .noise = 1.0 };
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
		case 't': o->threshold = opt_number("--threshold", optarg); break;
		case 'a': o->base_accel = o->new_accel = check_accel(optarg); break;
		case 'b': o->base_accel = check_accel(optarg); break;
		case 'n': o->new_accel = check_accel(optarg); break;
		case 'S': o->seed = opt_count("--seed", optarg); break;
		case 'r': o->reps = opt_count("--reps", optarg); break;
		case 'N': o->noise = opt_number("--noise", optarg); break;
		}
	}
	o->files = argv + optind;
	o->nfiles = argc - optind;
	if (o->nfiles != nfiles)
		usage_error("expected %d file argument%s", nfiles, nfiles == 1 ? "" : "s");
	if (strchr(allowed, 'a') && (!o->base_accel || !o->new_accel))
		usage_error("the accelerator is needed (--accel, or --base-accel and --new-accel)");
}

/* ------------------------------------------------------------------ */
/* summary                                                             */
/* ------------------------------------------------------------------ */

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

static void put_row(FILE *f, const group_t *g, const judge_t *j, const char *verdict,
		    const char *text)
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
	put_pct(f, j->lo, j->have_ci);
	put_pct(f, j->hi, j->have_ci);
	put_pct(f, j->level, j->have_ci && j->cls == SAMPLE);
	put_pct(f, j->p, j->have_p);
	fprintf(f, ",%s,%s,%s,%s\n", j->gates ? "yes" : "no", verdict, text,
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
	int any_base = 0;

	parse_opts(argc, argv, "cst" "a", 1, &o);
	load(&d, o.files[0]);
	js = xrealloc(NULL, d.n * sizeof(*js));
	ms = xrealloc(NULL, d.n * sizeof(*ms));
	for (size_t i = 0; i < d.n; i++) {
		group_t *g = &d.g[i];
		group_t *b = ds_find(&d, o.base_config, o.base_state, g->workload, g->metric->name);
		enum class cls = resolve_class(g->metric, o.base_accel);

		ms[i] = g->metric;
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
	decide_all(js, ms, d.n, o.threshold);
	if (!any_base)
		fprintf(stderr, "benchstat: warning: no group has baseline %s/%s\n",
			o.base_config, o.base_state);
	puts(SUMMARY_HEADER);
	for (size_t i = 0; i < d.n; i++)
		put_row(stdout, &d.g[i], &js[i], js[i].verdict, js[i].text);
	free(js);
	free(ms);
	return 0;
}

/* ------------------------------------------------------------------ */
/* compare                                                             */
/* ------------------------------------------------------------------ */

static enum class compare_class(const metric_t *m, const opts_t *o)
{
	enum class a = resolve_class(m, o->base_accel), b = resolve_class(m, o->new_accel);

	return a > b ? a : b;   /* deterministic only if both sides are */
}

static char *fmt_key(char *buf, size_t sz, const group_t *g)
{
	snprintf(buf, sz, "%s/%s/%s/%s", g->config, g->state, g->workload, g->metric->name);
	return buf;
}

static int cmd_compare(int argc, char **argv)
{
	opts_t o;
	dataset_t base, new;
	judge_t *js;
	const metric_t **ms;
	group_t **bg;
	size_t matched = 0, only = 0, regressions = 0, broken = 0, gating = 0;

	parse_opts(argc, argv, "t" "abn", 2, &o);
	load(&base, o.files[0]);
	load(&new, o.files[1]);
	js = xrealloc(NULL, new.n * sizeof(*js));
	ms = xrealloc(NULL, new.n * sizeof(*ms));
	bg = xrealloc(NULL, new.n * sizeof(*bg));
	for (size_t i = 0; i < new.n; i++) {
		group_t *g = &new.g[i];

		bg[i] = ds_find(&base, g->config, g->state, g->workload, g->metric->name);
		ms[i] = g->metric;
		js[i] = (judge_t){ .cls = compare_class(g->metric, &o) };
		if (bg[i])
			judge(&js[i], bg[i], g, js[i].cls, o.threshold);
	}
	decide_all(js, ms, new.n, o.threshold);
	printf("%-52s %6s %6s %12s %12s %s\n", "config/state/workload/metric", "n_base",
	       "n_new", "base_median", "new_median", "verdict");
	for (size_t i = 0; i < new.n; i++) {
		group_t *g = &new.g[i], *b = bg[i];
		char key[256];
		int reg;

		if (!b) {
			only++;
			printf("%-52s %6s %6zu %12s %12.6g only in NEW\n", fmt_key(key, sizeof(key), g),
			       "-", g->n, "-", g->n ? g->median : NAN);
			continue;
		}
		matched++;
		fmt_key(key, sizeof(key), g);
		if (!g->n && g->n_failed && b->n) {
			broken++;
			set(&js[i], "failed", "BROKEN: every run failed in NEW, ok in BASE");
		}
		reg = js[i].gates && !strcmp(js[i].verdict, "slower");
		regressions += reg;
		gating += js[i].gates && js[i].have_p;
		printf("%-52s %6zu %6zu %12.6g %12.6g %s%s: %s\n", key, b->n, g->n,
		       b->n ? b->median : NAN, g->n ? g->median : NAN, reg ? "REGRESSION " : "",
		       js[i].verdict, js[i].text);
	}
	for (size_t i = 0; i < base.n; i++) {
		group_t *b = &base.g[i];
		char key[256];

		if (ds_find(&new, b->config, b->state, b->workload, b->metric->name))
			continue;
		only++;
		printf("%-52s %6zu %6s %12.6g %12s only in BASE\n", fmt_key(key, sizeof(key), b),
		       b->n, "-", b->n ? b->median : NAN, "-");
	}
	printf("%zu compared, %zu regressions, %zu only in one file; gating: primary metrics "
	       "(Holm over %zu sampled rows), threshold %g%%\n",
	       matched, regressions, only, gating, o.threshold);
	if (!base.n_ok_rows || !new.n_ok_rows)
		fprintf(stderr, "benchstat: BROKEN: no ok runs in %s\n",
			base.n_ok_rows ? new.path : base.path);
	if (!matched)
		fprintf(stderr, "benchstat: BROKEN: no group is in both files\n");
	if (broken)
		fprintf(stderr, "benchstat: BROKEN: %zu groups failed in NEW that were ok in BASE\n",
			broken);
	if (!base.n_ok_rows || !new.n_ok_rows || !matched || broken)
		return EXIT_BAD_INPUT;
	return regressions ? EXIT_REGRESSION : 0;
}

/* ------------------------------------------------------------------ */
/* metrics and simulate                                                */
/* ------------------------------------------------------------------ */

static int cmd_metrics(int argc, char **argv)
{
	opts_t o;

	parse_opts(argc, argv, "", 0, &o);
	puts("metric\tdirection\tkind\tgates\tunit");
	for (size_t i = 0; i < N_METRICS; i++)
		printf("%s\t%s\t%s\t%s\t%s\n", METRICS[i].name,
		       METRICS[i].higher_is_better ? "higher-is-better" : "lower-is-better",
		       kind_name[METRICS[i].kind], METRICS[i].gates ? "yes" : "no", METRICS[i].unit);
	return 0;
}

/*
 * Known truths through the same judge: normal noise of --noise percent,
 * the new side's IOPS lower by the shift.  One gating row at a time (no
 * Holm), as a single comparison would be judged.
 */
static int cmd_simulate(int argc, char **argv)
{
	static const size_t ns[] = { 3, 5, 10 };
	static const double shifts[] = { 0, 0.5, 2, 5 };
	opts_t o;
	gsl_rng *rng;
	const metric_t *iops = metric_find("iops");

	parse_opts(argc, argv, "tSrN", 0, &o);
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, o.seed);
	printf("n\tshift_pct\tnoise_pct\tdetected\tslower\twithin\tfaster\tno_verdict\n");
	for (size_t a = 0; a < 3; a++)
		for (size_t s = 0; s < 4; s++) {
			size_t n = ns[a], cnt[5] = { 0 };
			double xb[10], xn[10];
			group_t b = { .metric = iops, .v = xb, .n = n };
			group_t g = { .metric = iops, .v = xn, .n = n };

			for (unsigned long r = 0; r < o.reps; r++) {
				judge_t j;

				for (size_t i = 0; i < n; i++) {
					xb[i] = 1e5 * (1 + gsl_ran_gaussian(rng, o.noise / 100));
					xn[i] = 1e5 * (1 - shifts[s] / 100) *
						(1 + gsl_ran_gaussian(rng, o.noise / 100));
				}
				gsl_sort(xb, 1, n);
				gsl_sort(xn, 1, n);
				b.median = gsl_stats_median_from_sorted_data(xb, 1, n);
				g.median = gsl_stats_median_from_sorted_data(xn, 1, n);
				judge(&j, &b, &g, SAMPLE, o.threshold);
				if (j.have_p)
					decide_sampled(&j, iops, o.threshold, j.p);
				cnt[!strcmp(j.verdict, "slower") ? 0 : !strcmp(j.verdict, "within-threshold") ? 1 :
				    !strcmp(j.verdict, "faster") ? 2 : !strcmp(j.verdict, "no-verdict") ? 3 : 4]++;
			}
			printf("%zu\t%g\t%g\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\n", n, shifts[s], o.noise,
			       (double)(cnt[0] + cnt[1] + cnt[2]) / (double)o.reps,
			       (double)cnt[0] / (double)o.reps, (double)cnt[1] / (double)o.reps,
			       (double)cnt[2] / (double)o.reps, (double)cnt[3] / (double)o.reps);
		}
	gsl_rng_free(rng);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		usage_error("a subcommand is needed");
	if (!strcmp(argv[1], "summary"))
		return cmd_summary(argc, argv);
	if (!strcmp(argv[1], "compare"))
		return cmd_compare(argc, argv);
	if (!strcmp(argv[1], "metrics"))
		return cmd_metrics(argc, argv);
	if (!strcmp(argv[1], "simulate"))
		return cmd_simulate(argc, argv);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	usage_error("unknown subcommand \"%s\" (summary, compare, metrics, simulate)", argv[1]);
}
