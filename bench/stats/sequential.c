/*
 * sequential.c - the sequential gate: more repeats where a gating row is
 * undecided, with the error rates held over the repeated looks.
 *
 * Included at the end of benchstat.c (one translation unit: it uses the
 * rank-sum machinery there, wilcox_cdf() and kth_diff()); everything here
 * is new code, called from benchstat.c through seq_compare_hook(),
 * seq_summary_hook() and the subcommands in main().
 *
 *   benchstat sequential [SEQ OPTIONS] compare [compare's options] BASE.CSV NEW.CSV
 *   benchstat sequential [SEQ OPTIONS] summary [summary's options] RUNS.CSV
 *   benchstat seq-plan --rows K --noise PCT [SEQ OPTIONS] [--threshold PCT]
 *   benchstat seq-simulate [SEQ OPTIONS] [--rows K] [--noise 'PCT...'] [--reps N] [--seed N]
 *
 * The rule (README.md, "The sequential gate"): each gating sampled row is
 * a test of "unchanged" against "twice the threshold slower".  At each
 * planned look k (n_k repeats a side, the first n_k ok runs of each side
 * in repeat order) it takes two Hodges-Lehmann intervals of the shift of
 * the log values, one-sided at error ea_k and eb_k, exact rank-sum
 * quantiles:
 *   S  the ea_k interval excludes no change on the worse side;
 *   P  the eb_k interval excludes a slowdown of twice the threshold.
 * S alone: slower.  P alone: not slower.  Both (a narrow interval between
 * no change and twice the threshold): the estimate's side of the
 * threshold decides.  Neither: the row continues to look k + 1, or at the
 * last look it is undecided.  ea_k and eb_k are the increments of
 * Lan-DeMets spending functions of the per-row budgets alpha/K (a false
 * alarm, family-wise alpha over K gating rows) and beta (a silent pass)
 * over the planned looks; by Bonferroni's inequality over looks and rows
 * the rates hold for any number of looks actually taken, whatever the
 * noise, with no assumption on its distribution beyond a shift.
 */

#define SEQ_MAX_LOOKS 16
#define SEQ_POWER 0.99          /* the plan's "smallest slowdown caught" */
#define SEQ_PASS_TARGET 0.90    /* the plan's "THRESHOLD >= X" */

enum seq_spending { SEQ_POCOCK, SEQ_OBF, SEQ_POWER2, SEQ_POWER3 };
static const char *const seq_spending_name[] = { "pocock", "obf", "power2", "power3" };

typedef struct {
	size_t looks, n[SEQ_MAX_LOOKS];         /* repeats a side at each look */
	double ea[SEQ_MAX_LOOKS], eb[SEQ_MAX_LOOKS]; /* error spent at each look */
	double alpha, beta;     /* family-wise false alarm; a row's silent pass */
	size_t rows;            /* K: the gating sampled rows, alpha's family */
	double thr;             /* percent */
	enum seq_spending spending;
} seq_design_t;

typedef struct {
	size_t first, max, looks;
	double alpha, beta;
	enum seq_spending spending;
	int final;              /* no more repeats will come: undecided is final */
	const char *next;       /* write the rows to repeat here */
	unsigned long plan_reps;
} seq_opts_t;

static seq_opts_t seq_opt = { 10, 30, 5, 0.01, 0.001, SEQ_POWER3, 0, NULL, 20000 };

/* spent error by information fraction t of a budget e */
static double seq_spend(enum seq_spending s, double e, double t)
{
	if (t >= 1)
		return e;
	if (s == SEQ_POCOCK)
		return e * log1p(expm1(1.0) * t);
	if (s == SEQ_POWER2 || s == SEQ_POWER3)
		return e * pow(t, s == SEQ_POWER2 ? 2 : 3);
	return 2 * gsl_cdf_ugaussian_Q(gsl_cdf_ugaussian_Qinv(e / 2) / sqrt(t));
}

/*
 * The planned looks: LOOKS of them, from FIRST to MAX repeats a side in
 * equal steps (rounded), each spending the increment of the spending
 * function at its information fraction n_k / MAX.
 */
static void seq_design(seq_design_t *d, const seq_opts_t *o, size_t rows, double thr)
{
	size_t L = o->looks, span = o->max - o->first;

	*d = (seq_design_t){ .alpha = o->alpha, .beta = o->beta, .rows = rows ? rows : 1,
			     .thr = thr, .spending = o->spending };
	if (L > span + 1)
		L = span + 1;
	for (size_t k = 0; k < L; k++) {
		size_t n = L == 1 ? o->max : o->first + (size_t)floor((double)span * (double)k /
								     (double)(L - 1) + 0.5);
		double t = (double)n / (double)o->max, t0 = k ? (double)d->n[k - 1] / (double)o->max : 0;
		double a = d->alpha / (double)d->rows;

		d->n[k] = n;
		d->ea[k] = seq_spend(o->spending, a, t) - seq_spend(o->spending, a, t0);
		d->eb[k] = seq_spend(o->spending, d->beta, t) - seq_spend(o->spending, d->beta, t0);
	}
	d->looks = L;
}

/*
 * q of a one-sided bound at error e for sizes m, n: the largest q with
 * P(U <= q - 1) <= e, so that [d_(q), ...) covers the shift with at least
 * 1 - e; 0 when no bound reaches it.  Exact (wilcox_cdf) where benchstat's
 * test is (exact_test), else the normal approximation with continuity
 * correction.
 */
static uint64_t seq_q(size_t m, size_t n, double e)
{
	uint64_t mn = (uint64_t)m * n, q = 0;

	if (!m || !n)
		return 0;
	if (exact_test(m, n, 0)) {
		const double *cdf = wilcox_cdf(m, n);

		while (q <= mn && cdf[q] <= e)
			q++;
		return q;
	}
	{
		double s = sqrt((double)mn * (double)(m + n + 1) / 12);
		double x = floor((double)mn / 2 + 0.5 + gsl_cdf_ugaussian_Pinv(e) * s);

		return x > 0 ? (uint64_t)x : 0;
	}
}

/* #(b_j - a_i < c) and #(b_j - a_i <= c), a and b sorted ascending */
static uint64_t seq_cnt_lt(const double *a, size_t m, const double *b, size_t n, double c)
{
	uint64_t cnt = 0;

	for (size_t j = 0, p = 0; j < n; j++) {
		while (p < m && !(b[j] - a[p] < c))
			p++;
		cnt += m - p;
	}
	return cnt;
}

static uint64_t seq_cnt_le(const double *a, size_t m, const double *b, size_t n, double c)
{
	uint64_t cnt = 0;

	for (size_t j = 0, p = 0; j < n; j++) {
		while (p < m && !(b[j] - a[p] <= c))
			p++;
		cnt += m - p;
	}
	return cnt;
}

/* the Hodges-Lehmann shift (median of the differences) */
static double seq_hl(const double *a, size_t m, const double *b, size_t n)
{
	diffs_t d;
	double h;

	diffs_init(&d, a, m, b, n);
	h = diffs_median(&d);
	diffs_free(&d);
	return h;
}

enum seq_state { SEQ_CONTINUE, SEQ_SLOWER, SEQ_PASS };

/* what one look found; log ratios in the worse-is-negative orientation */
typedef struct {
	enum seq_state state;
	int within, faster;     /* labels of a pass */
	size_t look, m, n;      /* the look that decided (0-based) and its sizes */
	uint64_t qa, qb;
} seq_look_t;

/*
 * One look at one row.  a (base) and b (new) are sorted log values,
 * oriented so that a slowdown is a negative shift (lower-is-better metrics
 * are negated); m2 is log of (1 - twice the threshold) in that
 * orientation, mt and mb the threshold on the worse and the better side.
 */
static void seq_look(const double *a, size_t m, const double *b, size_t n, double ea, double eb,
		     double m2, double mt, double mb, seq_look_t *r)
{
	uint64_t mn = (uint64_t)m * n, qa = seq_q(m, n, ea), qb = seq_q(m, n, eb);
	int S, P;

	r->m = m;
	r->n = n;
	r->qa = qa;
	r->qb = qb;
	r->within = r->faster = 0;
	/* S: the upper bound d_(mn-qa+1) < 0, i.e. #(d >= 0) <= qa - 1 */
	S = qa > 0 && mn - seq_cnt_lt(a, m, b, n, 0) < qa;
	/* P: the lower bound d_(qb) > m2, i.e. #(d <= m2) <= qb - 1 */
	P = qb > 0 && seq_cnt_le(a, m, b, n, m2) < qb;
	if (S && P)
		S = seq_hl(a, m, b, n) < mt - LOG_EPS;
	if (S) {
		r->state = SEQ_SLOWER;
	} else if (P) {
		r->state = SEQ_PASS;
		/* within: the eb interval inside the threshold both ways */
		r->within = seq_cnt_lt(a, m, b, n, mt - LOG_EPS) < qb &&
			    mn - seq_cnt_le(a, m, b, n, mb + LOG_EPS) < qb;
		/* faster: the ea interval beyond no change on the better side,
		 * the estimate beyond the threshold */
		r->faster = qa > 0 && seq_cnt_le(a, m, b, n, 0) < qa &&
			    seq_hl(a, m, b, n) > mb + LOG_EPS;
	} else {
		r->state = SEQ_CONTINUE;
	}
}

/* the threshold's bounds in the worse-is-negative orientation */
static void seq_margins(double thr, int hib, double *m2, double *mt, double *mb)
{
	if (hib) {
		*m2 = log1p(-2 * thr / 100);
		*mt = log1p(-thr / 100);
		*mb = log1p(thr / 100);
	} else {
		*m2 = -log1p(2 * thr / 100);
		*mt = -log1p(thr / 100);
		*mb = -log1p(-thr / 100);
	}
}

/* ------------------------------------------------------------------ */
/* a row's runs in repeat order, and its looks replayed                */
/* ------------------------------------------------------------------ */

typedef struct {
	long long repeat;
	double v;
} seq_obs_t;

typedef struct {
	dataset_t ds;           /* groups: ok values with their repeats */
	seq_obs_t **obs;        /* per group, sorted by repeat */
} seq_file_t;

static int cmp_obs(const void *x, const void *y)
{
	const seq_obs_t *a = x, *b = y;

	return (a->repeat > b->repeat) - (a->repeat < b->repeat);
}

/* the ok runs of a file load() has checked, with their repeats */
static void seq_read(seq_file_t *f, const char *path)
{
	FILE *fp = fopen(path, "r");
	char *line = NULL, *fld[NFIELDS];
	size_t cap = 0, lineno = 0;
	ssize_t len;

	*f = (seq_file_t){ .ds = { .path = path } };
	if (!fp)
		die("%s: cannot open: %s", path, strerror(errno));
	while ((len = getline(&line, &cap, fp)) != -1) {
		int ok;
		double v = 0;
		long long repeat;
		const metric_t *m;
		group_t *g;

		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (++lineno == 1 || !len)
			continue;
		m = parse_row(path, lineno, line, fld, &ok, &v, &repeat);
		if (!ok)
			continue;
		g = ds_get(&f->ds, fld[1], fld[2], fld[3], m);
		group_add(g, v);
		group_row(g, repeat, lineno);
	}
	free(line);
	fclose(fp);
	f->obs = xcalloc(f->ds.n, sizeof(*f->obs));
	for (size_t i = 0; i < f->ds.n; i++) {
		group_t *g = &f->ds.g[i];

		f->obs[i] = xcalloc(g->n, sizeof(**f->obs));
		for (size_t k = 0; k < g->n; k++)
			f->obs[i][k] = (seq_obs_t){ g->rows[k].repeat, g->v[k] };
		qsort(f->obs[i], g->n, sizeof(**f->obs), cmp_obs);
	}
}

/* the first n ok values of a group by repeat, as sorted oriented logs */
static size_t seq_take(const seq_file_t *f, const group_t *key, size_t n, int hib, double *out)
{
	group_t *g = ds_find(&f->ds, key->config, key->state, key->workload, key->metric->name);
	size_t i = 0;

	if (!g)
		return 0;
	for (; i < n && i < g->n; i++) {
		double x = f->obs[g - f->ds.g][i].v;

		out[i] = x > 0 ? (hib ? log(x) : -log(x)) : NAN;
	}
	gsl_sort(out, 1, i);
	return i;
}

/* the ok runs a side has of a group */
static size_t seq_count(const seq_file_t *f, const group_t *key)
{
	group_t *g = ds_find(&f->ds, key->config, key->state, key->workload, key->metric->name);

	return g ? g->n : 0;
}

/* a row's sequence of looks, as far as its data go */
typedef struct {
	seq_look_t at;          /* the last look taken */
	int looked;             /* a look was taken */
	size_t next;            /* the look it waits for (design.looks: none) */
	double lo_a, hi_a, lo_b, hi_b, est, sd;  /* at the last look, shown */
} seq_row_t;

/* an order statistic of the differences, or -inf/+inf when q is 0 */
static double seq_bound(const double *a, size_t m, const double *b, size_t n, uint64_t k, int upper)
{
	uint64_t mn = (uint64_t)m * n;

	if (k == 0)
		return upper ? INFINITY : -INFINITY;
	return kth_diff(a, m, b, n, upper ? mn - k + 1 : k);
}

/* pooled sd of two sorted samples */
static double seq_sd(const double *a, size_t m, const double *b, size_t n)
{
	double va = m > 1 ? gsl_stats_variance(a, 1, m) : 0, vb = n > 1 ? gsl_stats_variance(b, 1, n) : 0;

	if (m + n < 3)
		return NAN;
	return sqrt(((double)(m - 1) * va + (double)(n - 1) * vb) / (double)(m + n - 2));
}

static void seq_replay(const seq_design_t *d, const seq_file_t *fb, const group_t *bkey,
		       const seq_file_t *fn, const group_t *nkey, int hib, seq_row_t *r)
{
	size_t top = d->n[d->looks - 1];
	double *a = xcalloc(top, sizeof(*a)), *b = xcalloc(top, sizeof(*b)), m2, mt, mb;

	seq_margins(d->thr, hib, &m2, &mt, &mb);
	*r = (seq_row_t){ .next = 0 };
	for (size_t k = 0; k < d->looks; k++) {
		size_t m = seq_take(fb, bkey, d->n[k], hib, a), n = seq_take(fn, nkey, d->n[k], hib, b);

		if (m < d->n[k] || n < d->n[k]) {
			r->next = k;
			break;
		}
		seq_look(a, m, b, n, d->ea[k], d->eb[k], m2, mt, mb, &r->at);
		r->at.look = k;
		r->looked = 1;
		r->lo_a = seq_bound(a, m, b, n, r->at.qa, 0);
		r->hi_a = seq_bound(a, m, b, n, r->at.qa, 1);
		r->lo_b = seq_bound(a, m, b, n, r->at.qb, 0);
		r->hi_b = seq_bound(a, m, b, n, r->at.qb, 1);
		r->est = seq_hl(a, m, b, n);
		r->sd = seq_sd(a, m, b, n);
		r->next = k + 1;
		if (r->at.state != SEQ_CONTINUE)
			break;
	}
	free(a);
	free(b);
}

/* ------------------------------------------------------------------ */
/* the plan: what the budget resolves at a noise                       */
/* ------------------------------------------------------------------ */

/*
 * One row through the looks: sd the noise of the log values, shift the
 * true change (negative: slower).  Returns the state at the end; *used the
 * repeats a side it took.  a and b hold design.n[last] values each.
 */
static enum seq_state seq_sim_row(const seq_design_t *d, gsl_rng *rng, double sd, double shift,
				  double *a, double *b, double *sa, double *sb, size_t *used)
{
	size_t top = d->n[d->looks - 1];
	double m2, mt, mb;

	seq_margins(d->thr, 1, &m2, &mt, &mb);
	for (size_t i = 0; i < top; i++) {
		a[i] = gsl_ran_gaussian_ziggurat(rng, sd);
		b[i] = shift + gsl_ran_gaussian_ziggurat(rng, sd);
	}
	for (size_t k = 0; k < d->looks; k++) {
		seq_look_t r;

		memcpy(sa, a, d->n[k] * sizeof(*a));
		memcpy(sb, b, d->n[k] * sizeof(*b));
		gsl_sort(sa, 1, d->n[k]);
		gsl_sort(sb, 1, d->n[k]);
		seq_look(sa, d->n[k], sb, d->n[k], d->ea[k], d->eb[k], m2, mt, mb, &r);
		*used = d->n[k];
		if (r.state != SEQ_CONTINUE)
			return r.state;
	}
	return SEQ_CONTINUE;
}

typedef struct {
	double slower, pass, undecided, mean_n;
} seq_rates_t;

static seq_rates_t seq_row_rates(const seq_design_t *d, double sd, double shift,
				 unsigned long reps, unsigned long seed)
{
	size_t top = d->n[d->looks - 1], used = 0, cnt[3] = { 0 }, sum = 0;
	double *buf = xcalloc(4 * top, sizeof(*buf));
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	seq_rates_t r;

	gsl_rng_set(rng, seed);
	for (unsigned long i = 0; i < reps; i++) {
		cnt[seq_sim_row(d, rng, sd, shift, buf, buf + top, buf + 2 * top, buf + 3 * top, &used)]++;
		sum += used;
	}
	r.slower = (double)cnt[SEQ_SLOWER] / (double)reps;
	r.pass = (double)cnt[SEQ_PASS] / (double)reps;
	r.undecided = (double)cnt[SEQ_CONTINUE] / (double)reps;
	r.mean_n = (double)sum / (double)reps;
	gsl_rng_free(rng);
	free(buf);
	return r;
}

/* CV in percent of a lognormal whose log has sd s, and back */
static double seq_cv(double s)
{
	return 100 * sqrt(expm1(s * s));
}

static double seq_sd_of_cv(double cv)
{
	return sqrt(log1p(cv * cv / 1e4));
}

typedef struct {
	double cv, pass0, x99, thr90, mean_n0;
	int resolves;           /* pass0 >= SEQ_PASS_TARGET and x99 <= 2 thr */
} seq_plan_t;

/* smallest slowdown (percent) one row is shown slower in SEQ_POWER of runs */
static double seq_x99(const seq_design_t *d, double sd, unsigned long reps, unsigned long seed)
{
	double lo = 0, hi = 2 * d->thr;

	while (seq_row_rates(d, sd, log1p(-hi / 100), reps, seed).slower < SEQ_POWER) {
		lo = hi;
		hi *= 2;
		if (hi >= 99)
			return 100;
	}
	while (hi - lo > 0.005 * hi) {
		double mid = (lo + hi) / 2;

		if (seq_row_rates(d, sd, log1p(-mid / 100), reps, seed).slower >= SEQ_POWER)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

/* how often K unchanged rows all pass: the row's rate to the K-th power */
static double seq_pass_all(const seq_design_t *d, double sd, unsigned long reps, unsigned long seed)
{
	return pow(seq_row_rates(d, sd, 0, reps, seed).pass, (double)d->rows);
}

/*
 * The plan at a noise: the chance K unchanged rows pass, the smallest
 * slowdown of one row caught in SEQ_POWER of runs, and the smallest
 * threshold at which unchanged passes in SEQ_PASS_TARGET (the design
 * scales with the threshold: only noise / threshold matters).
 */
static seq_plan_t seq_plan(const seq_design_t *d, double sd, unsigned long reps, unsigned long seed)
{
	seq_plan_t p = { .cv = seq_cv(sd) };
	seq_design_t t = *d;
	double lo, hi;

	p.pass0 = seq_pass_all(d, sd, reps, seed);
	p.mean_n0 = seq_row_rates(d, sd, 0, reps, seed).mean_n;
	p.x99 = seq_x99(d, sd, reps / 4 ? reps / 4 : 1, seed);
	p.resolves = p.pass0 >= SEQ_PASS_TARGET && p.x99 <= 2 * d->thr;
	if (p.pass0 >= SEQ_PASS_TARGET) {
		p.thr90 = d->thr;
		return p;
	}
	lo = d->thr;
	hi = 2 * d->thr;
	for (t.thr = hi; seq_pass_all(&t, sd, reps, seed) < SEQ_PASS_TARGET; t.thr = hi) {
		lo = hi;
		hi *= 2;
		if (hi >= 50) {
			p.thr90 = 100;
			return p;
		}
	}
	while (hi - lo > 0.01 * hi) {
		t.thr = (lo + hi) / 2;
		if (seq_pass_all(&t, sd, reps, seed) >= SEQ_PASS_TARGET)
			hi = t.thr;
		else
			lo = t.thr;
	}
	p.thr90 = hi;
	return p;
}

static void seq_plan_words(FILE *f, const seq_design_t *d, const seq_plan_t *p)
{
	fprintf(f, "budget %zu repeats a side (looks at", d->n[d->looks - 1]);
	for (size_t k = 0; k < d->looks; k++)
		fprintf(f, "%s%zu", k ? "," : " ", d->n[k]);
	fprintf(f, "), %zu gating rows, threshold %g%%, noise CV %.2f%%: ", d->rows, d->thr, p->cv);
	if (p->x99 < 100)
		fprintf(f, "catches a slowdown of %.2f%% or more in %g%% of runs", p->x99, 100 * SEQ_POWER);
	else
		fprintf(f, "catches no slowdown in %g%% of runs", 100 * SEQ_POWER);
	fprintf(f, "; an unchanged series passes in %.0f%% (about %.0f repeats a side a row); ",
		100 * p->pass0, p->mean_n0);
	if (p->resolves) {
		fprintf(f, "the budget resolves THRESHOLD=%g%% at this noise\n", d->thr);
		return;
	}
	fprintf(f, "the budget does not resolve THRESHOLD=%g%% at this noise:", d->thr);
	if (p->pass0 < SEQ_PASS_TARGET && p->thr90 >= 100)
		fprintf(f, " no THRESHOLD below 50%% passes an unchanged series in %g%%",
			100 * SEQ_PASS_TARGET);
	else if (p->pass0 < SEQ_PASS_TARGET)
		fprintf(f, " THRESHOLD >= %.2f%% would pass an unchanged series in %g%%", p->thr90,
			100 * SEQ_PASS_TARGET);
	if (p->x99 > 2 * d->thr)
		fprintf(f, "%s a slowdown of twice it is caught in less than %g%%",
			p->pass0 < SEQ_PASS_TARGET ? ";" : "", 100 * SEQ_POWER);
	fputc('\n', f);
}

/* put_wrapped's 80 columns on any stream */
static void seq_wrapped(FILE *out, const char *s)
{
	fput_wrapped(out, s, "", INDENT);
}

/*
 * seq_say(out, fmt, ...): one line of the gate's, wrapped to 80 columns
 * as compare's table is (compare: on stdout; summary: on stderr).
 */
static __attribute__((format(printf, 2, 3))) void seq_say(FILE *out, const char *fmt, ...)
{
	char *line = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&line, &len);
	va_list ap;

	if (!m)
		die("out of memory");
	va_start(ap, fmt);
	vfprintf(m, fmt, ap);
	va_end(ap);
	fclose(m);
	line[strcspn(line, "\n")] = '\0';
	seq_wrapped(out, line);
	free(line);
}

/* the plan's words as one string (seq_plan_words), for seq_say */
static char *seq_plan_string(const seq_design_t *d, const seq_plan_t *p)
{
	char *line = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&line, &len);

	if (!m)
		die("out of memory");
	seq_plan_words(m, d, p);
	fclose(m);
	line[strcspn(line, "\n")] = '\0';
	return line;
}

/* ------------------------------------------------------------------ */
/* the hooks: compare and summary judged sequentially                  */
/* ------------------------------------------------------------------ */

/* the repeats a side at which a row's estimate, if it stays, is decided */
static size_t seq_needs(const seq_design_t *d, const seq_row_t *r, int hib)
{
	double m2, mt, mb, za, zb, s, room;
	size_t L = d->looks - 1;

	seq_margins(d->thr, hib, &m2, &mt, &mb);
	if (!(r->sd > 0))
		return d->n[L];
	za = gsl_cdf_ugaussian_Qinv(d->ea[L]);
	zb = gsl_cdf_ugaussian_Qinv(d->eb[L]);
	/* the half-width either bound may have: S needs za s < -est, P zb s < est - m2 */
	room = fmax(-r->est / za, (r->est - m2) / zb);
	if (room <= 0)
		return SIZE_MAX;
	/* s(n) = sd sqrt(2 / n) sqrt(pi / 3): the Hodges-Lehmann shift's error */
	s = room / (r->sd * sqrt(2 * acos(-1.0) / 3));
	s = ceil(1 / (s * s));
	return s > 1e9 ? SIZE_MAX : s > (double)r->at.n ? (size_t)s : r->at.n + 1;
}

/* "99.9963%": a one-sided level 1 - e with the digits that show e */
static const char *seq_level(char *b, size_t sz, double e)
{
	int dec = (int)ceil(-log10(100 * e)) + 1;

	snprintf(b, sz, "%.*f%%", dec < 1 ? 1 : dec, 100 * (1 - e));
	return b;
}

/* the threshold at which a row's data would pass: the eb interval excludes twice it */
static double seq_thr_passes(const seq_row_t *r, int hib)
{
	double lo = r->lo_b, est = r->est;

	if (!isfinite(lo))
		return INFINITY;
	/* worse-is-negative logs: twice X excludes lo when log1p(-2X) < lo */
	return fmax(hib ? -50 * expm1(lo) : 50 * expm1(-lo),
		    hib ? -100 * expm1(est) : 100 * expm1(-est));
}

/* an oriented log ratio back to the percent change of new over base */
static double seq_pct(double x, int hib)
{
	return pct(hib ? x : -x);
}

/* "-1.20..+0.35%" of an oriented interval */
static void seq_fmt_ci(char *b, size_t sz, double lo, double hi, int hib)
{
	double x = seq_pct(hib ? lo : hi, hib), y = seq_pct(hib ? hi : lo, hib);

	if (!isfinite(x) && !isfinite(y))
		snprintf(b, sz, "none at this n");
	else
		snprintf(b, sz, "%+.2f..%+.2f%%", nz(x), nz(y));
}

typedef struct {
	size_t rows, slower, pass, undecided, waiting, first_n;
	double sd2;             /* pooled variance of the first round */
	size_t df;
} seq_tally_t;

/*
 * Judge each gating sampled row of a comparison by the sequential rule:
 * js[i] gets its verdict and text.  bkeys[i] and nkeys[i] name the base
 * and new groups (base may be NULL), cfg_state[i] the boot to repeat.
 */
static void seq_judge(judge_t *js, group_t **bkeys, group_t *nkeys, size_t n, double thr,
		      const char *base_path, const char *new_path, family_t *fam)
{
	/* compare's stdout is its table; summary's is CSV */
	FILE *out = new_path ? stdout : stderr;
	seq_file_t fb, fn;
	seq_design_t d;
	seq_tally_t t = { 0 };
	seq_row_t *rows = xcalloc(n, sizeof(*rows));
	FILE *next = NULL;
	size_t K = 0;

	for (size_t i = 0; i < n; i++)
		K += bkeys[i] && js[i].gates && js[i].cls == SAMPLE && js[i].have_p;
	if (!K)
		return;
	seq_design(&d, &seq_opt, K, thr);
	seq_read(&fb, base_path);
	if (new_path)
		seq_read(&fn, new_path);
	else
		fn = fb;
	/* the first round: the noise every row shows (pooled), and the plan */
	for (size_t i = 0; i < n; i++) {
		double *a, *b, sd;
		size_t m, k;

		if (!(bkeys[i] && js[i].gates && js[i].cls == SAMPLE && js[i].have_p))
			continue;
		a = xcalloc(d.n[0], sizeof(*a));
		b = xcalloc(d.n[0], sizeof(*b));
		m = seq_take(&fb, bkeys[i], d.n[0], 1, a);
		k = seq_take(&fn, &nkeys[i], d.n[0], 1, b);
		sd = seq_sd(a, m, b, k);
		if (m + k >= 3 && isfinite(sd)) {
			t.sd2 += sd * sd * (double)(m + k - 2);
			t.df += m + k - 2;
		}
		free(a);
		free(b);
	}
	if (t.df) {
		seq_plan_t p = seq_plan(&d, sqrt(t.sd2 / (double)t.df), seq_opt.plan_reps, 1);

		char *words = seq_plan_string(&d, &p);

		seq_say(out, "sequential: noise estimated from the first round (%zu a side, %zu gating "
			"rows, pooled over %zu degrees of freedom): CV %.2f%%", d.n[0], K, t.df, p.cv);
		seq_say(out, "sequential plan: %s", words);
		free(words);
	} else {
		seq_say(out, "sequential: no row has its first round of %zu a side yet: no noise estimate",
			d.n[0]);
	}
	seq_say(out, "sequential rule: a gating row stops when its interval excludes no change "
		"(slower) or a slowdown of %g%% (not slower); false alarms family-wise <= %g%%, a "
		"silent pass <= %g%% a row, spent over the looks (%s)", 2 * thr, 100 * d.alpha,
		100 * d.beta, seq_spending_name[d.spending]);
	for (size_t i = 0; i < n; i++) {
		int hib;

		if (!(bkeys[i] && js[i].gates && js[i].cls == SAMPLE && js[i].have_p))
			continue;
		hib = nkeys[i].metric->higher_is_better;
		seq_replay(&d, &fb, bkeys[i], &fn, &nkeys[i], hib, &rows[i]);
		t.rows++;
	}
	if (seq_opt.next) {
		next = fopen(seq_opt.next, "w");
		if (!next)
			die("%s: cannot write: %s", seq_opt.next, strerror(errno));
	}
	for (size_t i = 0; i < n; i++) {
		seq_row_t *r = &rows[i];
		judge_t *j = &js[i];
		int hib;
		char ca[48], cb[48], at[64], lv[32];
		const char *why;

		if (!(bkeys[i] && j->gates && j->cls == SAMPLE && j->have_p))
			continue;
		hib = nkeys[i].metric->higher_is_better;
		j->need = 0;
		if (r->looked) {
			/* shown as the judge shows a sampled row: the ea interval */
			j->rel = hib ? r->est : -r->est;
			j->lo = hib ? r->lo_a : -r->hi_a;
			j->hi = hib ? r->hi_a : -r->lo_a;
		}
		seq_fmt_ci(ca, sizeof(ca), r->lo_a, r->hi_a, hib);
		seq_fmt_ci(cb, sizeof(cb), r->lo_b, r->hi_b, hib);
		snprintf(at, sizeof(at), "look %zu of %zu; n=%zu+%zu", r->at.look + 1, d.looks,
			 r->at.m, r->at.n);
		j->undecided = 0;
		if (r->looked && r->at.state == SEQ_SLOWER) {
			t.slower++;
			set(j, "slower", "%+.2f%%; %s; stopped: decided slower: interval %s (one-sided "
			    "%s each end) excludes no change", nz(seq_pct(r->est, hib)), at, ca,
			    seq_level(lv, sizeof(lv), d.ea[r->at.look]));
		} else if (r->looked && r->at.state == SEQ_PASS && r->at.faster) {
			t.pass++;
			set(j, "faster", "%+.2f%%; %s; stopped: decided faster: interval %s (one-sided "
			    "%s each end) excludes no change", nz(seq_pct(r->est, hib)), at, ca,
			    seq_level(lv, sizeof(lv), d.ea[r->at.look]));
		} else if (r->looked && r->at.state == SEQ_PASS) {
			t.pass++;
			why = r->at.within ? "within-threshold" : "not-slower";
			set(j, why, "%+.2f%%; %s; stopped: decided %s: interval %s (one-sided %s each "
			    "end) excludes a %g%% slowdown%s", nz(seq_pct(r->est, hib)), at,
			    r->at.within ? "within threshold" : "not slower",
			    cb, seq_level(lv, sizeof(lv), d.eb[r->at.look]), 2 * thr,
			    r->at.within ? " and lies within the threshold" : "");
		} else if (!seq_opt.final && r->next < d.looks) {
			t.waiting++;
			j->undecided = 1;
			if (next)
				fprintf(next, "%s %s %zu\n", nkeys[i].config, nkeys[i].state, d.n[r->next]);
			if (next && new_path == NULL)
				fprintf(next, "%s %s %zu\n", bkeys[i]->config, bkeys[i]->state,
					d.n[r->next]);
			if (r->looked)
				set(j, "unclear", "%+.2f%%; %s; continues to n=%zu: the intervals %s "
				    "and %s exclude neither no change nor a %g%% slowdown",
				    nz(seq_pct(r->est, hib)), at, d.n[r->next], ca, cb, 2 * thr);
			else
				set(j, "unclear", "waits for its first look at n=%zu (has %zu+%zu)",
				    d.n[0], seq_count(&fb, bkeys[i]), seq_count(&fn, &nkeys[i]));
		} else {
			size_t need = r->looked ? seq_needs(&d, r, hib) : d.n[0];
			double x = r->looked ? seq_thr_passes(r, hib) : INFINITY;
			char nb[48], xb[48];

			t.undecided++;
			j->undecided = 1;
			if (need == SIZE_MAX || need > 100000)
				snprintf(nb, sizeof(nb), "more than 100000 repeats a side");
			else
				snprintf(nb, sizeof(nb), "about %zu repeats a side", need);
			if (isfinite(x) && x < 100)
				snprintf(xb, sizeof(xb), "THRESHOLD >= %.2f%%", ceil(100 * x) / 100);
			else
				snprintf(xb, sizeof(xb), "no THRESHOLD below 100%%");
			if (r->looked)
				set(j, "unclear", "%+.2f%%; %s; stopped: budget spent%s; undecided: needs "
				    "%s, or %s", nz(seq_pct(r->est, hib)), at,
				    r->at.look + 1 < d.looks ? " (the time budget or failed runs)" : "", nb, xb);
			else
				set(j, "unclear", "no look: %zu+%zu ok runs, the first look needs %zu a side; "
				    "undecided: needs %s", seq_count(&fb, bkeys[i]), seq_count(&fn, &nkeys[i]),
				    d.n[0], nb);
		}
	}
	if (next)
		fclose(next);
	fam->gating = K;
	fam->underpowered = 0;
	seq_say(out, "sequential: %zu gating rows: %zu slower, %zu not slower, %zu undecided, "
		"%zu continue", t.rows, t.slower, t.pass, t.undecided, t.waiting);
	free(rows);
}

/* cmd_compare's hook, after decide_all(): the sequential rule where asked */
static void seq_compare_hook(judge_t *js, group_t **bg, group_t *ng, size_t n, const opts_t *o,
			     family_t *fam)
{
	if (seq_on)
		seq_judge(js, bg, ng, n, o->threshold, o->files[0], o->files[1], fam);
}

/* cmd_summary's hook: each row against the baseline row of the same file */
static void seq_summary_hook(judge_t *js, const dataset_t *d, const opts_t *o, family_t *fam)
{
	group_t **bg;

	if (!seq_on)
		return;
	bg = xcalloc(d->n, sizeof(*bg));
	for (size_t i = 0; i < d->n; i++) {
		group_t *b = ds_find(d, o->base_config, o->base_state, d->g[i].workload,
				     d->g[i].metric->name);

		bg[i] = b != &d->g[i] ? b : NULL;
	}
	seq_judge(js, bg, d->g, d->n, o->threshold, o->files[0], NULL, fam);
	free(bg);
}

/* ------------------------------------------------------------------ */
/* options and subcommands                                             */
/* ------------------------------------------------------------------ */

static double seq_prob(const char *name, const char *v)
{
	double x;

	if (!parse_double(v, &x) || !(x > 0 && x < 1))
		usage_error("%s: not a probability between 0 and 1: \"%s\"", name, v);
	return x;
}

/*
 * seq_number_opt: option A with value V into its field of O when A is one
 * of the numeric sequential options (a count, or a probability); 0 when A
 * is none of them.
 */
static int seq_number_opt(const char *a, const char *v, seq_opts_t *o)
{
	const struct {
		const char *name;
		size_t *count;
		unsigned long *reps;
		double *prob;
	} opts[] = {
		{ "--first", .count = &o->first },
		{ "--max", .count = &o->max },
		{ "--looks", .count = &o->looks },
		{ "--plan-reps", .reps = &o->plan_reps },
		{ "--alpha", .prob = &o->alpha },
		{ "--beta", .prob = &o->beta },
	};
	size_t k;

	for (k = 0; k < sizeof(opts) / sizeof(*opts); k++) {
		if (strcmp(a, opts[k].name))
			continue;
		if (!v)
			usage_error("%s: missing value", a);
		if (opts[k].count)
			*opts[k].count = opt_count(a, v);
		else if (opts[k].reps)
			*opts[k].reps = opt_count(a, v);
		else
			*opts[k].prob = seq_prob(a, v);
		return 1;
	}
	return 0;
}

/* the sequential options at argv[*i...]; returns when none is left */
static int seq_parse(int argc, char **argv, int i, seq_opts_t *o, double *noise_list, size_t *nnoise,
		     opts_t *rest)
{
	for (; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

#define SEQ_ARG(name) (!strcmp(a, name) && (v || (usage_error("%s: missing value", name), 0)))
		if (seq_number_opt(a, v, o)) {
			/* parsed */
		} else if (SEQ_ARG("--spending")) {
			size_t k = 0;

			while (k < sizeof(seq_spending_name) / sizeof(*seq_spending_name) &&
			       strcmp(v, seq_spending_name[k]))
				k++;
			if (k == sizeof(seq_spending_name) / sizeof(*seq_spending_name))
				usage_error("--spending: \"%s\" (valid: pocock obf power2 power3)", v);
			o->spending = (enum seq_spending)k;
		} else if (SEQ_ARG("--next")) {
			o->next = v;
		} else if (!strcmp(a, "--final")) {
			o->final = 1;
			continue;
		} else if (rest && SEQ_ARG("--rows")) {
			rest->rows = opt_count(a, v);
		} else if (rest && SEQ_ARG("--threshold")) {
			rest->threshold = opt_number(a, v);
		} else if (rest && SEQ_ARG("--reps")) {
			rest->reps = opt_count(a, v);
		} else if (rest && SEQ_ARG("--seed")) {
			rest->seed = opt_count(a, v);
		} else if (rest && noise_list && SEQ_ARG("--noise")) {
			char *s = xstrdup(v), *tok, *save = NULL;

			*nnoise = 0;
			for (tok = strtok_r(s, " ,", &save); tok; tok = strtok_r(NULL, " ,", &save)) {
				if (*nnoise == 8)
					usage_error("--noise: at most 8 values");
				noise_list[(*nnoise)++] = opt_number("--noise", tok);
			}
			free(s);
		} else {
			break;
		}
		i++;
	}
#undef SEQ_ARG
	if (o->first > o->max)
		usage_error("--first %zu is more than --max %zu", o->first, o->max);
	if (o->looks > SEQ_MAX_LOOKS)
		usage_error("--looks: at most %d", SEQ_MAX_LOOKS);
	if (o->first < 2)
		usage_error("--first: at least 2 repeats a side");
	return i;
}

/* benchstat sequential [OPTIONS] compare|summary ...: the gate, sequentially */
static int cmd_sequential(int argc, char **argv)
{
	int i = seq_parse(argc, argv, 2, &seq_opt, NULL, NULL, NULL);

	if (i >= argc)
		usage_error("sequential: compare or summary is needed after the options");
	seq_on = 1;
	argv[i - 1] = argv[0];
	if (!strcmp(argv[i], "compare"))
		return cmd_compare(argc - i + 1, argv + i - 1);
	if (!strcmp(argv[i], "summary"))
		return cmd_summary(argc - i + 1, argv + i - 1);
	usage_error("sequential: unknown option or subcommand \"%s\" (compare, summary)", argv[i]);
}

/* benchstat seq-plan: what the budget resolves at an assumed noise */
static int cmd_seq_plan(int argc, char **argv)
{
	opts_t o = { .threshold = 1, .rows = 1, .seed = 1 };
	seq_design_t d;
	seq_plan_t p;
	double noise[8] = { 1 };
	size_t nnoise = 1;
	int i = seq_parse(argc, argv, 2, &seq_opt, noise, &nnoise, &o);

	if (i < argc)
		usage_error("seq-plan: unknown argument \"%s\"", argv[i]);
	seq_design(&d, &seq_opt, o.rows, o.threshold);
	for (size_t k = 0; k < nnoise; k++) {
		p = seq_plan(&d, seq_sd_of_cv(noise[k]), seq_opt.plan_reps, o.seed);
		printf("looks=");
		for (size_t l = 0; l < d.looks; l++)
			printf("%s%zu", l ? "," : "", d.n[l]);
		printf(" rows=%zu threshold_pct=%g noise_pct=%g pass_0pct=%.4f slower_99_pct=%.3f "
		       "threshold_90_pct=%.3f mean_n=%.1f resolves=%s\n", d.rows, d.thr, noise[k],
		       p.pass0, p.x99, p.thr90, p.mean_n0, p.resolves ? "yes" : "no");
		seq_plan_words(stdout, &d, &p);
	}
	return 0;
}

/*
 * benchstat seq-simulate: the whole matrix, K gating rows of lognormal
 * noise, through the sequential gate, at each noise: an unchanged series,
 * one row twice the threshold slower, and one row slower by the plan's
 * "caught in 99%" figure.  Per cell: the exit rates, family-wise false
 * alarms, silent passes, the repeats used; and the plan as the gate states
 * it for that noise.
 */
typedef struct {
	size_t ex[3], rows_n_sum, run_n_max_sum, run_n_max, false_alarm, silent, shifted_slower;
	double cv_sum, cv_sum2;  /* the first round's noise estimate, pooled over the rows */
} seq_cell_t;

static void seq_sim_matrix(const seq_design_t *d, gsl_rng *rng, double sd, double shift,
			   unsigned long reps, seq_cell_t *c)
{
	size_t top = d->n[d->looks - 1];
	double *buf = xcalloc(4 * top * d->rows, sizeof(*buf)), m2, mt, mb;
	int *state = xcalloc(d->rows, sizeof(*state));

	seq_margins(d->thr, 1, &m2, &mt, &mb);
	memset(c, 0, sizeof(*c));
	for (unsigned long r = 0; r < reps; r++) {
		size_t open = d->rows, k, run_n = 0;
		int slower = 0, slower_other = 0;

		double ss = 0, cv;

		for (size_t i = 0; i < d->rows; i++) {
			double *a = buf + 2 * top * i, *b = a + top;

			state[i] = SEQ_CONTINUE;
			for (size_t j = 0; j < top; j++) {
				a[j] = gsl_ran_gaussian_ziggurat(rng, sd);
				b[j] = (i == 0 ? shift : 0) + gsl_ran_gaussian_ziggurat(rng, sd);
			}
			ss += gsl_stats_variance(a, 1, d->n[0]) + gsl_stats_variance(b, 1, d->n[0]);
		}
		/* as the gate estimates it: pooled over the rows' first rounds */
		cv = seq_cv(sqrt(ss / (2.0 * (double)d->rows)));
		c->cv_sum += cv;
		c->cv_sum2 += cv * cv;
		/* look by look over the open rows, until each is decided */
		for (k = 0; k < d->looks && open; k++) {
			double *sa = buf + 2 * top * d->rows, *sb = sa + top;

			run_n = d->n[k];
			for (size_t i = 0; i < d->rows; i++) {
				seq_look_t lk;

				if (state[i] != SEQ_CONTINUE)
					continue;
				c->rows_n_sum += d->n[k] - (k ? d->n[k - 1] : 0);
				memcpy(sa, buf + 2 * top * i, d->n[k] * sizeof(*sa));
				memcpy(sb, buf + 2 * top * i + top, d->n[k] * sizeof(*sb));
				gsl_sort(sa, 1, d->n[k]);
				gsl_sort(sb, 1, d->n[k]);
				seq_look(sa, d->n[k], sb, d->n[k], d->ea[k], d->eb[k], m2, mt, mb, &lk);
				state[i] = lk.state;
				if (lk.state != SEQ_CONTINUE)
					open--;
				if (lk.state == SEQ_SLOWER) {
					slower = 1;
					slower_other |= i != 0;
				}
			}
		}
		c->ex[slower ? 1 : open ? 2 : 0]++;
		c->false_alarm += shift == 0 ? slower : slower_other;
		c->silent += !slower && !open && shift <= log1p(-2 * d->thr / 100) + LOG_EPS;
		c->shifted_slower += state[0] == SEQ_SLOWER;
		c->run_n_max_sum += run_n;
		if (run_n > c->run_n_max)
			c->run_n_max = run_n;
	}
	free(buf);
	free(state);
}

static int cmd_seq_simulate(int argc, char **argv)
{
	opts_t o = { .threshold = 1, .rows = 70, .seed = 1, .reps = 10000 };
	double noise[8] = { 0.5, 1, 2, 3 };
	size_t nnoise = 4;
	int i = seq_parse(argc, argv, 2, &seq_opt, noise, &nnoise, &o);
	seq_design_t d;
	gsl_rng *rng;

	if (i < argc)
		usage_error("seq-simulate: unknown argument \"%s\"", argv[i]);
	seq_design(&d, &seq_opt, o.rows, o.threshold);
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, o.seed);
	printf("# rows=%zu threshold_pct=%g reps=%lu seed=%lu alpha=%g beta=%g spending=%s looks=",
	       d.rows, d.thr, o.reps, o.seed, d.alpha, d.beta, seq_spending_name[d.spending]);
	for (size_t l = 0; l < d.looks; l++)
		printf("%s%zu", l ? "," : "", d.n[l]);
	puts("\nnoise_pct\tcase\tthreshold_pct\tshift_pct\texit0\texit1\texit2\tfalse_alarm\t"
	     "silent_pass\trow_slower\tmean_n_row\tmean_n_gate\tmax_n_gate\tcv_est_mean\tcv_est_sd\t"
	     "plan_pass0\tplan_slower_99_pct\tplan_threshold_90_pct");
	for (size_t k = 0; k < nnoise; k++) {
		double sd = seq_sd_of_cv(noise[k]);
		seq_plan_t p = seq_plan(&d, sd, seq_opt.plan_reps, o.seed);
		const char *cases[4] = { "unchanged", "2x-threshold", "plan-99", "plan-threshold" };
		double shifts[4] = { 0, 2 * d.thr, p.x99, 0 };

		for (size_t c = 0; c < 4; c++) {
			seq_design_t dc = d;
			seq_cell_t cell;
			double R = (double)o.reps, m;

			/* the plan's figures: its slowdown caught in 99%, and the
			 * threshold at which it says unchanged passes in 90% */
			if ((c == 2 && p.x99 >= 100) || (c == 3 && (p.thr90 <= d.thr || p.thr90 >= 100)))
				continue;
			if (c == 3)
				dc.thr = p.thr90;
			seq_sim_matrix(&dc, rng, sd, log1p(-shifts[c] / 100), o.reps, &cell);
			m = cell.cv_sum / R;
			printf("%g\t%s\t%.4g\t%.4g\t%.5f\t%.5f\t%.5f\t%.5f\t", noise[k], cases[c], dc.thr,
			       shifts[c], (double)cell.ex[0] / R, (double)cell.ex[1] / R,
			       (double)cell.ex[2] / R, (double)cell.false_alarm / R);
			if (shifts[c] >= 2 * dc.thr)
				printf("%.5f", (double)cell.silent / R);
			else
				printf("-");
			printf("\t%.5f\t%.2f\t%.2f\t%zu\t%.3f\t%.3f\t%.4f\t%.3f\t%.3f\n",
			       (double)cell.shifted_slower / R, (double)cell.rows_n_sum / R / (double)dc.rows,
			       (double)cell.run_n_max_sum / R, cell.run_n_max, m,
			       sqrt(fmax(0, cell.cv_sum2 / R - m * m)), p.pass0, p.x99, p.thr90);
			fflush(stdout);
		}
		/* a silent pass needs the slower row itself to pass: that row
		 * alone, many more times than the matrix */
		{
			unsigned long rr = 100 * o.reps;
			seq_rates_t q = seq_row_rates(&d, sd, log1p(-2 * d.thr / 100), rr, o.seed + 1);

			printf("# noise %g%%: one row %g%% slower alone, %lu runs: passed %.0f times "
			       "(%.2g), slower %.4f, undecided %.4f\n", noise[k], 2 * d.thr, rr,
			       q.pass * (double)rr, q.pass, q.slower, q.undecided);
		}
	}
	gsl_rng_free(rng);
	return 0;
}
