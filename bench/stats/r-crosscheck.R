# R's wilcox.test on the pairs benchstat's cross-check uses, written as a
# table (testdata/r-wilcox.tsv) that bench/stats/r-check.sh compares with
# `benchstat rank-sum`.  R is not needed to run that check; it is needed to
# make the table again:
#
#   Rscript bench/stats/r-crosscheck.R > bench/stats/testdata/r-wilcox.tsv
#
# Debian 12's r-base-core (R 4.2.2).  Each pair is NEW and BASE values;
# the test is wilcox.test(log(new), log(base), conf.int = TRUE), as
# benchstat judges a shift on the log scale, with R's own defaults: exact
# without ties and with fewer than 50 values on each side, else the normal
# approximation with continuity and tie correction.  The method is R's
# choice, read from its result, never set to benchstat's (forcing it hid
# that benchstat stayed exact up to m*n = 10000: at 50 a side its p was
# 0.00100 where R's default gives 0.00115).  Only tol.root = 1e-13 is set,
# so that uniroot() finds the normal-approximation bounds to far better
# than the 1e-9 the check asks (its default 1e-4 is a precision, not a
# method).
# level is the interval's coverage: for the exact test the one achieved,
# 1 - 2 * pwilcox(qu - 1), which R reports only when it falls short of
# 0.95 by more than half of 0.05, so it is computed here as R's own code
# does; for the normal approximation the nominal 0.95.  mid_lo and mid_hi
# are the two middle pairwise differences (equal when m*n is odd): with
# ties R's estimate is a root of a step function that is zero anywhere
# between them, so that is all the check can ask of it.  Where every value
# of a side is the same, R stops ("missing value where TRUE/FALSE
# needed": the statistic at min(x) - max(y) has no spread) and only the
# p-value is recorded, the rest NA.
set.seed(22)

pairs <- list()
add <- function(new, base) pairs[[length(pairs) + 1]] <<- list(new = new, base = base)
noisy <- function(n, level, sd) level * exp(rnorm(n, 0, sd))

# continuous, no ties: sizes 1..12 a side, shifts of 0 to 5%, noise 0.5-2%
for (i in 1:26) {
	m <- sample(1:12, 1); n <- sample(1:12, 1)
	shift <- sample(c(0, -0.005, 0.005, -0.02, 0.02, -0.05, 0.05), 1)
	sd <- sample(c(0.005, 0.01, 0.02), 1)
	add(noisy(n, 1e5 * (1 + shift), sd), noisy(m, 1e5, sd))
}
# ties: IOPS rounded to hundreds, small integer counts, a constant side
for (i in 1:8) {
	m <- sample(3:12, 1); n <- sample(3:12, 1)
	add(round(noisy(n, 1e5 * (1 + sample(c(0, -0.01, -0.03), 1)), 0.01), -2),
	    round(noisy(m, 1e5, 0.01), -2))
}
for (i in 1:6) {
	m <- sample(4:10, 1); n <- sample(4:10, 1)
	add(sample(42:46, n, replace = TRUE), sample(41:45, m, replace = TRUE))
}
add(rep(43, 5), rep(42, 5))                     # constants, one a side
add(c(43, 43, 43, 44, 44), c(42, 42, 42, 42, 43))
add(rep(99000, 5), rep(1e5, 5))                 # issue 22's boundary pair
add(c(48, 48, 48), c(43, 43, 43, 43))
# heavy tails
for (i in 1:5) {
	m <- sample(4:12, 1); n <- sample(4:12, 1)
	add(1e5 * exp(0.01 * rcauchy(n)), 1e5 * exp(0.01 * rcauchy(m)))
}
# tiny samples
add(101, 100)
add(c(90, 95, 99), 100)
add(c(1.5, 2.5), c(1, 2, 3, 4))
# sizes past the sorted-differences path (m*n > 1024) and the exact limit
add(noisy(40, 99000, 0.01), noisy(40, 1e5, 0.01))           # exact, 1600 differences
add(noisy(60, 1e5, 0.01), noisy(50, 1e5, 0.01))             # normal (50 a side), 3000
add(noisy(120, 98000, 0.01), noisy(100, 1e5, 0.01))         # normal, no ties
add(round(noisy(150, 99500, 0.01), -2), round(noisy(150, 1e5, 0.01), -2))  # normal, ties
add(sample(40:47, 200, replace = TRUE), sample(40:46, 160, replace = TRUE))
# 50 or more on a side: R's default is the normal approximation
add(noisy(50, 99500, 0.01), noisy(50, 1e5, 0.01))           # 50+50, no ties
add(noisy(49, 99500, 0.01), noisy(49, 1e5, 0.01))           # 49+49: still exact
add(noisy(50, 99500, 0.01), noisy(49, 1e5, 0.01))           # 50+49: normal
add(noisy(49, 99000, 0.01), noisy(80, 1e5, 0.01))           # 49+80: normal
add(noisy(75, 99300, 0.005), noisy(64, 1e5, 0.005))
# tiny p: every new value above every base one (the exact upper tail was
# 1 - cdf, 0 below about 1e-16), and the normal approximation's far tail
sep <- function(n, m, lo, hi) list(new = seq(hi, hi + 1, length.out = n), base = seq(lo, lo + 1, length.out = m))
for (nm in list(c(12, 12), c(25, 25), c(30, 30), c(45, 40), c(49, 49))) {
	s <- sep(nm[1], nm[2], 100, 200)
	add(s$new, s$base)
	add(s$base, s$new)                                  # the lower tail too
}
s <- sep(30, 30, 100, 200); add(c(s$new[-1], 100.5), s$base)   # one new value among the base
s <- sep(60, 55, 100, 200); add(s$new, s$base)                  # normal, p ~ 1e-20
s <- sep(200, 200, 100, 200); add(s$new, s$base)                # normal, p ~ 1e-67
add(c(rep(200, 100), rep(201, 80)), c(rep(100, 90), rep(101, 70)))  # normal, ties, tiny p

fmt <- function(v) paste(sprintf("%.17g", v), collapse = ",")
num <- function(v) sprintf("%.17g", v)
cat("id\tnew\tbase\tmethod\tp\testimate\tlo\thi\tlevel\tmid_lo\tmid_hi\n")
for (i in seq_along(pairs)) {
	x <- log(pairs[[i]]$new); y <- log(pairs[[i]]$base)
	w <- tryCatch(suppressWarnings(wilcox.test(x, y, conf.int = TRUE, tol.root = 1e-13)),
		      error = function(e) NULL)
	if (is.null(w)) {
		w <- suppressWarnings(wilcox.test(x, y))
		w$estimate <- NA; w$conf.int <- c(NA, NA); level <- NA
	}
	exact <- grepl("exact", w$method)
	if (is.null(w$estimate) || is.na(w$estimate)) {
		level <- NA
	} else if (exact) {
		qu <- qwilcox(0.025, length(x), length(y))
		level <- 1 - 2 * pwilcox(max(qu, 1) - 1, length(x), length(y))
	} else {
		level <- attr(w$conf.int, "conf.level")
	}
	d <- sort(outer(x, y, "-"))
	k <- length(d)
	mid <- if (k %% 2) c(d[(k + 1) / 2], d[(k + 1) / 2]) else c(d[k / 2], d[k / 2 + 1])
	cat(sprintf("r%02d", i), fmt(pairs[[i]]$new), fmt(pairs[[i]]$base),
	    if (exact) "exact" else "normal", num(w$p.value), num(unname(w$estimate)),
	    num(w$conf.int[1]), num(w$conf.int[2]), num(level),
	    num(mid[1]), num(mid[2]), sep = "\t")
	cat("\n")
}
