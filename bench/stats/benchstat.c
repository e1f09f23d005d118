/*
 * benchstat - summarise and compare blkinject-bench runs.csv files.
 *
 *   benchstat summary [--baseline-config C] [--baseline-state S]
 *                     [--threshold PCT] [--seed N] RUNS.CSV
 *   benchstat compare [--threshold PCT] [--seed N] BASE.CSV NEW.CSV
 *
 * Input is the long-format runs.csv described in README.md:
 *   seq,config,state,workload,repeat,status,metric,value
 *
 * Statistics (see README.md for the rationale):
 *   - median, min, max of the `ok` values of every
 *     (config, state, workload, metric) group;
 *   - a distribution-free confidence interval for the median from order
 *     statistics (binomial method), with its exact achieved coverage;
 *   - a percentile-bootstrap confidence interval for the ratio of two
 *     medians, driven by a self-contained, seeded xoshiro256** PRNG so
 *     that identical input gives byte-identical output.
 *
 * C11 + POSIX getline(); link with -lm.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXIT_REGRESSION 1
#define EXIT_USAGE 2

#define N_BOOT 10000          /* bootstrap resamples */
#define ALPHA_SIDE 0.025      /* per-side error for the median CI */
#define BOOT_P_LO 0.025       /* bootstrap percentiles */
#define BOOT_P_HI 0.975
#define NFIELDS 8

static const char HEADER[] =
	"seq,config,state,workload,repeat,status,metric,value";

/* ------------------------------------------------------------------ */
/* small utilities                                                     */
/* ------------------------------------------------------------------ */

/* Print "benchstat: MESSAGE" on stderr. */
static void vwarn_msg(const char *fmt, va_list ap)
{
	fputs("benchstat: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

static _Noreturn void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn_msg(fmt, ap);
	va_end(ap);
	exit(EXIT_USAGE);
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
	char *p = xrealloc(NULL, n);

	memcpy(p, s, n);
	return p;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Turn -0.0 into 0.0 so that output never shows a spurious "-0". */
static double nz(double v)
{
	return v == 0.0 ? 0.0 : v;
}

/*
 * Metric direction, in one place: iops is higher-is-better, every other
 * metric (lat_ns, insns_per_call, insns_per_io, task_clock_ns_per_io,
 * cycles_per_io, ...) is lower-is-better.
 */
static int higher_is_better(const char *metric)
{
	return strcmp(metric, "iops") == 0;
}

/* ------------------------------------------------------------------ */
/* PRNG: splitmix64 for seeding, xoshiro256** for the stream           */
/* ------------------------------------------------------------------ */

typedef struct {
	uint64_t s[4];
} rng_t;

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t rotl64(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static void rng_seed(rng_t *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

static uint64_t rng_next(rng_t *r)
{
	uint64_t *s = r->s;
	const uint64_t result = rotl64(s[1] * 5, 7) * 9;
	const uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl64(s[3], 45);
	return result;
}

/* Uniform integer in [0, n), n >= 1, without modulo bias. */
static size_t rng_below(rng_t *r, size_t n)
{
	uint64_t bound = (uint64_t)n;
	uint64_t threshold = (0 - bound) % bound;   /* 2^64 mod bound */

	for (;;) {
		uint64_t x = rng_next(r);

		if (x >= threshold)
			return (size_t)(x % bound);
	}
}

/* FNV-1a, used for the group hash table and per-group bootstrap seeds. */
static uint64_t fnv1a(uint64_t h, const char *s)
{
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	h ^= 0x1f;                      /* field separator */
	h *= 0x100000001b3ULL;
	return h;
}

/* ------------------------------------------------------------------ */
/* groups and datasets                                                 */
/* ------------------------------------------------------------------ */

typedef struct {
	char *config, *state, *workload, *metric;
	uint64_t hash;
	double *v;              /* ok values; sorted ascending after load */
	size_t n, cap;
	size_t n_failed;
	/* filled in by finalize() */
	double median, min, max;
	int deterministic;
} group_t;

typedef struct {
	const char *path;
	group_t *g;
	size_t n, cap;
	size_t *tab;            /* open addressing, stores index+1, 0 = empty */
	size_t tabcap;          /* power of two */
} dataset_t;

static uint64_t key_hash(const char *c, const char *s, const char *w,
			 const char *m)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	h = fnv1a(h, c);
	h = fnv1a(h, s);
	h = fnv1a(h, w);
	return fnv1a(h, m);
}

static int group_is(const group_t *g, const char *c, const char *s,
		    const char *w, const char *m)
{
	return !strcmp(g->config, c) && !strcmp(g->state, s) &&
	       !strcmp(g->workload, w) && !strcmp(g->metric, m);
}

static group_t *ds_find(const dataset_t *d, const char *c, const char *s,
			const char *w, const char *m)
{
	if (!d->tabcap)
		return NULL;
	uint64_t h = key_hash(c, s, w, m);
	size_t mask = d->tabcap - 1;

	for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
		size_t e = d->tab[i];

		if (!e)
			return NULL;
		if (d->g[e - 1].hash == h && group_is(&d->g[e - 1], c, s, w, m))
			return &d->g[e - 1];
	}
}

static void ds_rehash(dataset_t *d, size_t newcap)
{
	free(d->tab);
	d->tab = xrealloc(NULL, newcap * sizeof(*d->tab));
	memset(d->tab, 0, newcap * sizeof(*d->tab));
	d->tabcap = newcap;
	for (size_t k = 0; k < d->n; k++) {
		size_t i = (size_t)d->g[k].hash & (newcap - 1);

		while (d->tab[i])
			i = (i + 1) & (newcap - 1);
		d->tab[i] = k + 1;
	}
}

static group_t *ds_get(dataset_t *d, const char *c, const char *s,
		       const char *w, const char *m)
{
	group_t *g = ds_find(d, c, s, w, m);

	if (g)
		return g;
	if (d->n == d->cap) {
		d->cap = d->cap ? 2 * d->cap : 16;
		d->g = xrealloc(d->g, d->cap * sizeof(*d->g));
	}
	g = &d->g[d->n++];
	memset(g, 0, sizeof(*g));
	g->config = xstrdup(c);
	g->state = xstrdup(s);
	g->workload = xstrdup(w);
	g->metric = xstrdup(m);
	g->hash = key_hash(c, s, w, m);
	if (2 * d->n > d->tabcap)
		ds_rehash(d, d->tabcap ? 2 * d->tabcap : 64);
	else {
		size_t i = (size_t)g->hash & (d->tabcap - 1);

		while (d->tab[i])
			i = (i + 1) & (d->tabcap - 1);
		d->tab[i] = d->n;
	}
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

/* Median of an ascending array, n >= 1. */
static double median_sorted(const double *x, size_t n)
{
	if (n % 2)
		return x[n / 2];
	return 0.5 * x[n / 2 - 1] + 0.5 * x[n / 2];
}

static void finalize(dataset_t *d)
{
	for (size_t i = 0; i < d->n; i++) {
		group_t *g = &d->g[i];

		if (!g->n)
			continue;
		qsort(g->v, g->n, sizeof(*g->v), cmp_double);
		g->min = g->v[0];
		g->max = g->v[g->n - 1];
		g->median = median_sorted(g->v, g->n);
		g->deterministic = g->n >= 2 && g->min == g->max;
	}
}

static void ds_free(dataset_t *d)
{
	for (size_t i = 0; i < d->n; i++) {
		group_t *g = &d->g[i];

		free(g->config);
		free(g->state);
		free(g->workload);
		free(g->metric);
		free(g->v);
	}
	free(d->g);
	free(d->tab);
	memset(d, 0, sizeof(*d));
}

/* ------------------------------------------------------------------ */
/* CSV input                                                           */
/* ------------------------------------------------------------------ */

static _Noreturn void input_error(const char *path, size_t line,
				  const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "benchstat: %s:%zu: ", path, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(EXIT_USAGE);
}

static int parse_double(const char *s, double *out)
{
	char *end;

	if (!*s)
		return 0;
	double v = strtod(s, &end);

	if (*end || !isfinite(v))
		return 0;
	*out = v;
	return 1;
}

static int parse_integer(const char *s)
{
	char *end;

	if (!*s)
		return 0;
	(void)strtoll(s, &end, 10);
	return *end == '\0';
}

static void load(dataset_t *d, const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	char *line = NULL;
	size_t linecap = 0, lineno = 0, rows = 0;
	ssize_t len;
	static const char *const names[NFIELDS] = {
		"seq", "config", "state", "workload",
		"repeat", "status", "metric", "value"
	};

	memset(d, 0, sizeof(*d));
	d->path = path;
	if (!f)
		die("%s: cannot open: %s", path, strerror(errno));

	while ((len = getline(&line, &linecap, f)) != -1) {
		char *fld[NFIELDS];
		size_t nf = 0;
		char *p = line;

		lineno++;
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if ((size_t)len != strlen(line))
			input_error(path, lineno, "NUL byte in line");
		if (lineno == 1) {
			/* tolerate a UTF-8 byte order mark */
			if (!strncmp(p, "\xef\xbb\xbf", 3))
				p += 3;
			if (strcmp(p, HEADER))
				input_error(path, lineno,
					    "bad header: expected \"%s\"", HEADER);
			continue;
		}
		if (len == 0)
			continue;       /* blank line */

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
			input_error(path, lineno,
				    "expected %d comma-separated fields, got %zu",
				    NFIELDS, nf);
		for (int i = 1; i <= 6; i++)
			if (i != 4 && !*fld[i])
				input_error(path, lineno, "empty %s field",
					    names[i]);
		if (!parse_integer(fld[0]))
			input_error(path, lineno, "seq is not an integer: \"%s\"",
				    fld[0]);
		if (!parse_integer(fld[4]))
			input_error(path, lineno,
				    "repeat is not an integer: \"%s\"", fld[4]);

		int ok = 0;

		if (!strcmp(fld[5], "ok"))
			ok = 1;
		else if (!strcmp(fld[5], "failed"))
			ok = 0;
		else
			input_error(path, lineno,
				    "unknown status \"%s\" (expected ok or failed)",
				    fld[5]);

		double v = 0;

		if (ok && !parse_double(fld[7], &v))
			input_error(path, lineno,
				    "value is not a finite number: \"%s\"",
				    fld[7]);

		group_t *g = ds_get(d, fld[1], fld[2], fld[3], fld[6]);

		if (ok)
			group_add(g, v);
		else
			g->n_failed++;
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
	finalize(d);
}

/* ------------------------------------------------------------------ */
/* statistics                                                          */
/* ------------------------------------------------------------------ */

/*
 * Distribution-free CI for the median: the largest k with
 * P(Binom(n, 1/2) < k) <= ALPHA_SIDE; the interval is [x_(k), x_(n-k+1)]
 * with coverage 1 - 2 P(Binom(n, 1/2) < k).  When even k = 1 violates the
 * bound (n <= 5) the widest possible interval [min, max] is used and its
 * (lower) coverage reported.  Returns k (1-based), or 0 if n < 2.
 */
static size_t median_ci_rank(size_t n, double *level)
{
	if (n < 2)
		return 0;

	double logpmf = (double)n * log(0.5);   /* log P(X = 0) */
	double cdf = 0.0;                       /* P(X <= j) */
	double tail = exp(logpmf);              /* P(X < k) for chosen k */
	size_t k = 0;

	for (size_t j = 0; j < n / 2; j++) {
		cdf += exp(logpmf);
		if (cdf > ALPHA_SIDE)
			break;
		k = j + 1;
		tail = cdf;
		logpmf += log((double)(n - j) / (double)(j + 1));
	}
	if (k == 0)
		k = 1;                          /* tail = P(X = 0) */
	*level = 1.0 - 2.0 * tail;
	return k;
}

/* Linear interpolation between order statistics (R's quantile type 7). */
static double quantile_sorted(const double *x, size_t n, double p)
{
	double h = (double)(n - 1) * p;
	size_t i = (size_t)floor(h);

	if (i + 1 >= n)
		return x[n - 1];
	return x[i] + (h - (double)i) * (x[i + 1] - x[i]);
}

/*
 * Median of a with-replacement resample of the ascending array x.  Since x
 * is sorted, it suffices to count how often each index is drawn and walk
 * the counts to the middle rank(s): O(n) instead of sorting the resample,
 * with the same result.  cnt must have room for n entries.
 */
static double resample_median(rng_t *r, const double *x, size_t n,
			      size_t *cnt)
{
	size_t lo_rank = (n - 1) / 2, hi_rank = n / 2;  /* 0-based ranks */
	size_t seen = 0, i = 0;
	double lo;

	memset(cnt, 0, n * sizeof(*cnt));
	for (size_t j = 0; j < n; j++)
		cnt[rng_below(r, n)]++;
	while (seen + cnt[i] <= lo_rank)
		seen += cnt[i++];
	lo = x[i];
	while (seen + cnt[i] <= hi_rank)
		seen += cnt[i++];
	return lo_rank == hi_rank ? lo : 0.5 * lo + 0.5 * x[i];
}

/*
 * Percentile bootstrap of median(a)/median(b): both samples resampled
 * independently with replacement N_BOOT times.  Results in percent
 * (100 * (ratio - 1)).
 */
static void bootstrap_rel_ci(const group_t *a, const group_t *b,
			     uint64_t seed, double *lo, double *hi)
{
	rng_t r;
	size_t *ra = xrealloc(NULL, a->n * sizeof(size_t));
	size_t *rb = xrealloc(NULL, b->n * sizeof(size_t));
	double *ratio = xrealloc(NULL, N_BOOT * sizeof(double));

	/* Per-group stream: each group's CI depends only on its own data
	 * and the seed, not on which other groups are in the file. */
	rng_seed(&r, seed ^ a->hash);
	for (size_t i = 0; i < N_BOOT; i++) {
		double ma = resample_median(&r, a->v, a->n, ra);
		double mb = resample_median(&r, b->v, b->n, rb);

		if (mb != 0)
			ratio[i] = ma / mb;
		else
			ratio[i] = ma == 0 ? 1.0 : copysign(INFINITY, ma);
	}
	qsort(ratio, N_BOOT, sizeof(double), cmp_double);
	*lo = nz(100.0 * (quantile_sorted(ratio, N_BOOT, BOOT_P_LO) - 1.0));
	*hi = nz(100.0 * (quantile_sorted(ratio, N_BOOT, BOOT_P_HI) - 1.0));
	free(ra);
	free(rb);
	free(ratio);
}

typedef enum {
	CH_OK,                  /* rel + bootstrap CI */
	CH_EXACT,               /* both deterministic: rel is exact */
	CH_INSUFFICIENT,        /* rel, but a group has n < 2: no CI */
	CH_NO_DATA,             /* group has no ok values */
	CH_NO_BASE_DATA,        /* baseline has no ok values */
	CH_BASE_ZERO,           /* baseline median is 0: ratio undefined */
} change_kind;

typedef struct {
	change_kind kind;
	double rel, lo, hi;     /* percent */
} change_t;

static change_t compute_change(const group_t *g, const group_t *base,
			       uint64_t seed)
{
	change_t c = { CH_NO_DATA, 0, 0, 0 };

	if (!g->n)
		return c;
	if (!base->n) {
		c.kind = CH_NO_BASE_DATA;
		return c;
	}
	if (base->median == 0) {
		c.kind = CH_BASE_ZERO;
		return c;
	}
	c.rel = nz(100.0 * (g->median / base->median - 1.0));
	if (g->deterministic && base->deterministic) {
		c.kind = CH_EXACT;
		c.lo = c.hi = c.rel;
	} else if (g->n < 2 || base->n < 2) {
		c.kind = CH_INSUFFICIENT;
	} else {
		c.kind = CH_OK;
		bootstrap_rel_ci(g, base, seed, &c.lo, &c.hi);
	}
	return c;
}

/* Is a positive relative change bad for this metric? */
static int is_worse(const char *metric, double rel)
{
	return higher_is_better(metric) ? rel < 0 : rel > 0;
}

/* %.2f, but never "-0.00". */
static void fmt2(char *buf, size_t sz, double v)
{
	snprintf(buf, sz, "%.2f", v);
	if (!strcmp(buf, "-0.00"))
		snprintf(buf, sz, "0.00");
}

/* ------------------------------------------------------------------ */
/* option parsing                                                      */
/* ------------------------------------------------------------------ */

typedef struct {
	const char *base_config, *base_state;
	double threshold;
	uint64_t seed;
	const char *files[2];
	int nfiles;
} opts_t;

static void usage(FILE *f)
{
	fputs("usage: benchstat summary [--baseline-config CONFIG] "
	      "[--baseline-state STATE]\n"
	      "                         [--threshold PCT] [--seed N] RUNS.CSV\n"
	      "       benchstat compare [--threshold PCT] [--seed N] "
	      "BASE_RUNS.CSV NEW_RUNS.CSV\n"
	      "\n"
	      "defaults: --baseline-config off --baseline-state off "
	      "--threshold 1.0 --seed 1\n"
	      "compare exits 0 (no regression), 1 (regression), "
	      "2 (usage or input error)\n", f);
}

static _Noreturn void usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn_msg(fmt, ap);
	va_end(ap);
	usage(stderr);
	exit(EXIT_USAGE);
}

static void parse_opts(int argc, char **argv, int is_summary, int nfiles,
		       opts_t *o)
{
	int no_more_opts = 0;

	o->base_config = "off";
	o->base_state = "off";
	o->threshold = 1.0;
	o->seed = 1;
	o->nfiles = 0;

	for (int i = 2; i < argc; i++) {
		char *a = argv[i];

		if (no_more_opts || a[0] != '-' || !strcmp(a, "-")) {
			if (o->nfiles >= nfiles)
				usage_error("too many file arguments");
			o->files[o->nfiles++] = a;
			continue;
		}
		if (!strcmp(a, "--")) {
			no_more_opts = 1;
			continue;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			exit(0);
		}

		/* --name value  or  --name=value */
		char name[64];
		const char *val;
		const char *eq = strchr(a, '=');

		if (eq) {
			size_t l = (size_t)(eq - a);

			if (l >= sizeof(name))
				usage_error("unknown option %s", a);
			memcpy(name, a, l);
			name[l] = '\0';
			val = eq + 1;
		} else {
			if (strlen(a) >= sizeof(name))
				usage_error("unknown option %s", a);
			strcpy(name, a);
			val = NULL;
		}

		int known = !strcmp(name, "--threshold") ||
			    !strcmp(name, "--seed") ||
			    (is_summary && (!strcmp(name, "--baseline-config") ||
					    !strcmp(name, "--baseline-state")));

		if (!known)
			usage_error("unknown option %s", name);
		if (!val) {
			if (i + 1 >= argc)
				usage_error("option %s needs a value", name);
			val = argv[++i];
		}

		if (!strcmp(name, "--threshold")) {
			double t;

			if (!parse_double(val, &t) || t < 0)
				usage_error("--threshold: not a non-negative "
					    "number: \"%s\"", val);
			o->threshold = t;
		} else if (!strcmp(name, "--seed")) {
			char *end;
			unsigned long long s;

			if (!*val || *val == '-' || *val == '+')
				usage_error("--seed: not an unsigned integer: "
					    "\"%s\"", val);
			errno = 0;
			s = strtoull(val, &end, 10);
			if (*end || errno)
				usage_error("--seed: not an unsigned integer: "
					    "\"%s\"", val);
			o->seed = (uint64_t)s;
		} else if (!strcmp(name, "--baseline-config")) {
			if (!*val)
				usage_error("--baseline-config: empty value");
			o->base_config = val;
		} else {
			if (!*val)
				usage_error("--baseline-state: empty value");
			o->base_state = val;
		}
	}
	if (o->nfiles != nfiles)
		usage_error("expected %d file argument%s", nfiles,
			    nfiles == 1 ? "" : "s");
}

/* ------------------------------------------------------------------ */
/* summary                                                             */
/* ------------------------------------------------------------------ */

static void put_num(FILE *f, double v, int have)
{
	fputc(',', f);
	if (have)
		fprintf(f, "%.10g", nz(v));
}

static void put_pct(FILE *f, double v, int have)
{
	fputc(',', f);
	if (have)
		fprintf(f, "%.6g", nz(v));
}

static void summary_verdict(char *buf, size_t sz, const group_t *g,
			    const group_t *base, const change_t *c,
			    double threshold)
{
	char x[32], a[32], b[32];

	if (g == base) {
		snprintf(buf, sz, "baseline");
		return;
	}
	if (!base) {
		snprintf(buf, sz, "no-baseline");
		return;
	}
	switch (c->kind) {
	case CH_NO_DATA:
		snprintf(buf, sz, "no-data");
		return;
	case CH_NO_BASE_DATA:
		snprintf(buf, sz, "no-baseline-data");
		return;
	case CH_BASE_ZERO:
		snprintf(buf, sz, "undefined: baseline median is 0");
		return;
	case CH_INSUFFICIENT:
		fmt2(x, sizeof(x), c->rel);
		snprintf(buf, sz, "insufficient-data: %s%%", x);
		return;
	case CH_EXACT:
		if (c->rel == 0) {
			snprintf(buf, sz, "identical");
			return;
		}
		fmt2(x, sizeof(x), fabs(c->rel));
		snprintf(buf, sz, "%s by %s%% (exact)",
			 is_worse(g->metric, c->rel) ? "slower" : "faster", x);
		return;
	case CH_OK:
		break;
	}
	if (c->lo <= 0 && c->hi >= 0) {
		snprintf(buf, sz, "indistinguishable");
	} else if (c->lo >= -threshold && c->hi <= threshold) {
		fmt2(x, sizeof(x), c->rel);
		fmt2(a, sizeof(a), c->lo);
		fmt2(b, sizeof(b), c->hi);
		snprintf(buf, sz, "within-threshold: %s%% (CI %s..%s)", x, a, b);
	} else {
		/* CI excludes 0, so lo and hi share a sign: report magnitudes */
		double m1 = fabs(c->lo), m2 = fabs(c->hi);

		fmt2(x, sizeof(x), fabs(c->rel));
		fmt2(a, sizeof(a), m1 < m2 ? m1 : m2);
		fmt2(b, sizeof(b), m1 < m2 ? m2 : m1);
		snprintf(buf, sz, "%s by %s%% (CI %s..%s)",
			 is_worse(g->metric, c->rel) ? "slower" : "faster",
			 x, a, b);
	}
}

static int cmd_summary(int argc, char **argv)
{
	opts_t o;
	dataset_t d;
	int have_baseline_anywhere = 0;

	parse_opts(argc, argv, 1, 1, &o);
	load(&d, o.files[0]);

	fputs("config,state,workload,metric,n,n_failed,median,min,max,"
	      "ci_lo,ci_hi,ci_level,rel_change_pct,rel_ci_lo_pct,"
	      "rel_ci_hi_pct,verdict,deterministic\n", stdout);

	for (size_t i = 0; i < d.n; i++) {
		const group_t *g = &d.g[i];
		const group_t *base = ds_find(&d, o.base_config, o.base_state,
					      g->workload, g->metric);
		change_t c = { CH_NO_DATA, 0, 0, 0 };
		double level = 0;
		size_t k = median_ci_rank(g->n, &level);
		char verdict[160];
		int show_rel;

		if (base)
			have_baseline_anywhere = 1;
		if (base && base != g)
			c = compute_change(g, base, o.seed);
		summary_verdict(verdict, sizeof(verdict), g, base, &c,
				o.threshold);
		show_rel = base && base != g &&
			   (c.kind == CH_OK || c.kind == CH_EXACT ||
			    c.kind == CH_INSUFFICIENT);

		printf("%s,%s,%s,%s,%zu,%zu", g->config, g->state,
		       g->workload, g->metric, g->n, g->n_failed);
		put_num(stdout, g->median, g->n > 0);
		put_num(stdout, g->min, g->n > 0);
		put_num(stdout, g->max, g->n > 0);
		put_num(stdout, k ? g->v[k - 1] : 0, k > 0);
		put_num(stdout, k ? g->v[g->n - k] : 0, k > 0);
		put_pct(stdout, level, k > 0);
		put_pct(stdout, c.rel, show_rel);
		put_pct(stdout, c.lo, show_rel && c.kind != CH_INSUFFICIENT);
		put_pct(stdout, c.hi, show_rel && c.kind != CH_INSUFFICIENT);
		printf(",%s,%s\n", verdict, g->deterministic ? "yes" : "no");
	}
	if (!have_baseline_anywhere)
		fprintf(stderr, "benchstat: warning: %s: no group has "
			"config=%s state=%s; no relative changes computed\n",
			d.path, o.base_config, o.base_state);
	ds_free(&d);
	if (fflush(stdout) || ferror(stdout))
		die("error writing output");
	return 0;
}

/* ------------------------------------------------------------------ */
/* compare                                                             */
/* ------------------------------------------------------------------ */

enum { C_KEY, C_NB, C_NN, C_MB, C_MN, C_CH, C_CI, C_MARK, NCOL };

typedef struct {
	char *col[NCOL];
} row_t;

typedef struct {
	row_t *r;
	size_t n, cap;
} table_t;

static char *xsprintf(const char *fmt, ...)
{
	va_list ap;
	int len;
	char *s;

	va_start(ap, fmt);
	len = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (len < 0)
		die("formatting error");
	s = xrealloc(NULL, (size_t)len + 1);
	va_start(ap, fmt);
	vsnprintf(s, (size_t)len + 1, fmt, ap);
	va_end(ap);
	return s;
}

static row_t *table_add(table_t *t)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 32;
		t->r = xrealloc(t->r, t->cap * sizeof(*t->r));
	}
	row_t *r = &t->r[t->n++];

	for (int i = 0; i < NCOL; i++)
		r->col[i] = NULL;
	return r;
}

static char *fmt_n(const group_t *g)
{
	if (!g)
		return xsprintf("-");
	if (g->n_failed)
		return xsprintf("%zu+%zuf", g->n, g->n_failed);
	return xsprintf("%zu", g->n);
}

static char *fmt_median(const group_t *g)
{
	if (!g || !g->n)
		return xsprintf("-");
	return xsprintf("%.10g", nz(g->median));
}

static char *fmt_key(const group_t *g)
{
	return xsprintf("%s/%s/%s/%s", g->config, g->state, g->workload,
			g->metric);
}

static int cmd_compare(int argc, char **argv)
{
	opts_t o;
	dataset_t b, n;
	table_t t = { NULL, 0, 0 };
	size_t n_regress = 0, n_improve = 0, n_compared = 0, n_only = 0;
	size_t width[NCOL] = { 0 };
	static const char *const head[NCOL] = {
		"key", "n_base", "n_new", "base_median", "new_median",
		"change%", "ci95_of_change%", "mark"
	};

	parse_opts(argc, argv, 0, 2, &o);
	load(&b, o.files[0]);
	load(&n, o.files[1]);

	row_t *h = table_add(&t);

	for (int i = 0; i < NCOL; i++)
		h->col[i] = xsprintf("%s", head[i]);

	for (size_t i = 0; i < b.n; i++) {
		const group_t *gb = &b.g[i];
		const group_t *gn = ds_find(&n, gb->config, gb->state,
					    gb->workload, gb->metric);
		row_t *r = table_add(&t);
		char x[32], lo[32], hi[32];

		r->col[C_KEY] = fmt_key(gb);
		r->col[C_NB] = fmt_n(gb);
		r->col[C_NN] = fmt_n(gn);
		r->col[C_MB] = fmt_median(gb);
		r->col[C_MN] = fmt_median(gn);
		if (!gn) {
			n_only++;
			r->col[C_CH] = xsprintf("-");
			r->col[C_CI] = xsprintf("-");
			r->col[C_MARK] = xsprintf("only in base");
			continue;
		}
		n_compared++;

		change_t c = compute_change(gn, gb, o.seed);
		int hib = higher_is_better(gb->metric);

		if (c.kind == CH_OK || c.kind == CH_EXACT ||
		    c.kind == CH_INSUFFICIENT) {
			fmt2(x, sizeof(x), c.rel);
			r->col[C_CH] = xsprintf("%s%s", c.rel > 0 ? "+" : "", x);
		} else {
			r->col[C_CH] = xsprintf("-");
		}
		if (c.kind == CH_OK) {
			fmt2(lo, sizeof(lo), c.lo);
			fmt2(hi, sizeof(hi), c.hi);
			r->col[C_CI] = xsprintf("[%s, %s]", lo, hi);
		} else if (c.kind == CH_EXACT) {
			r->col[C_CI] = xsprintf("exact");
		} else {
			r->col[C_CI] = xsprintf("-");
		}

		switch (c.kind) {
		case CH_NO_DATA:
			r->col[C_MARK] = xsprintf("no ok runs in new");
			break;
		case CH_NO_BASE_DATA:
			r->col[C_MARK] = xsprintf("no ok runs in base");
			break;
		case CH_BASE_ZERO:
			r->col[C_MARK] = xsprintf("undefined (base median 0)");
			break;
		case CH_INSUFFICIENT:
			r->col[C_MARK] = xsprintf("insufficient data (n<2)");
			break;
		case CH_OK:
		case CH_EXACT: {
			/* the whole CI beyond the threshold, in one direction */
			int up = c.lo > o.threshold;
			int down = c.hi < -o.threshold;

			if ((up && !hib) || (down && hib)) {
				r->col[C_MARK] = xsprintf("REGRESSION");
				n_regress++;
			} else if ((up && hib) || (down && !hib)) {
				r->col[C_MARK] = xsprintf("improvement");
				n_improve++;
			} else {
				r->col[C_MARK] = xsprintf("%s", "");
			}
			break;
		}
		}
	}
	for (size_t i = 0; i < n.n; i++) {
		const group_t *gn = &n.g[i];

		if (ds_find(&b, gn->config, gn->state, gn->workload,
			    gn->metric))
			continue;
		row_t *r = table_add(&t);

		n_only++;
		r->col[C_KEY] = fmt_key(gn);
		r->col[C_NB] = fmt_n(NULL);
		r->col[C_NN] = fmt_n(gn);
		r->col[C_MB] = fmt_median(NULL);
		r->col[C_MN] = fmt_median(gn);
		r->col[C_CH] = xsprintf("-");
		r->col[C_CI] = xsprintf("-");
		r->col[C_MARK] = xsprintf("only in new");
	}

	for (size_t i = 0; i < t.n; i++)
		for (int j = 0; j < NCOL; j++) {
			size_t l = strlen(t.r[i].col[j]);

			if (l > width[j])
				width[j] = l;
		}

	printf("base: %s\nnew:  %s\n", b.path, n.path);
	printf("threshold: %g%%  seed: %llu  bootstrap: %d resamples, "
	       "ratio of medians new/base\n\n", o.threshold,
	       (unsigned long long)o.seed, N_BOOT);
	for (size_t i = 0; i < t.n; i++) {
		const row_t *r = &t.r[i];

		for (int j = 0; j < NCOL - 1; j++) {
			int left = j == C_KEY;

			printf(left ? "%s%-*s" : "%s%*s", j ? "  " : "",
			       (int)width[j], r->col[j]);
		}
		/* last column (mark) unpadded: no trailing blanks */
		if (*r->col[C_MARK])
			printf("  %s", r->col[C_MARK]);
		putchar('\n');
	}
	printf("\n%zu compared, %zu regression%s, %zu improvement%s, "
	       "%zu only in one file\n", n_compared, n_regress,
	       n_regress == 1 ? "" : "s", n_improve,
	       n_improve == 1 ? "" : "s", n_only);
	for (size_t i = 0; i < t.n; i++)
		for (int j = 0; j < NCOL; j++)
			free(t.r[i].col[j]);
	free(t.r);
	ds_free(&b);
	ds_free(&n);
	if (fflush(stdout) || ferror(stdout))
		die("error writing output");
	return n_regress ? EXIT_REGRESSION : 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		usage_error("missing subcommand");
	if (!strcmp(argv[1], "summary"))
		return cmd_summary(argc, argv);
	if (!strcmp(argv[1], "compare"))
		return cmd_compare(argc, argv);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	usage_error("unknown subcommand \"%s\"", argv[1]);
	return EXIT_USAGE;
}
