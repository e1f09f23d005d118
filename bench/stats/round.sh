# shellcheck shell=bash
# ROUND_AWK: the rounding rule (bench/stats/README.md, "Rounding"), as awk
# functions for every script that prints a number for a person to read;
# benchstat.c's fmt_measured is the same rule in C.  Prepend it to an awk
# program: awk -v ... "$ROUND_AWK"'...'.
#   rnd(X, CLS, CIW)    X as text: CLS the row's class (summary.csv), CIW
#                       the width of its interval ("" or 0 when none)
#   rnd_signed(...)     the same with its sign (a change)
#   rnd_pct(P)          a percent change: two decimals and its sign
# A deterministic row (tcg-icount) or one without an interval: an integer,
# with one decimal below 10 in magnitude (a fraction of an instruction is
# all a count exact to a few instructions can back); an integral value
# stays an integer.  A sampled row with an interval: two significant digits of the
# interval's width fix the last digit printed.
# shellcheck disable=SC2034 # used by the scripts that source this file
ROUND_AWK='
	function rnd_floor(v) { return v == int(v) || v > 0 ? int(v) : int(v) - 1 }
	function rnd_place(x, cls, ciw) {
		if (cls != "deterministic" && ciw + 0 > 0)
			return rnd_floor(log(ciw) / log(10) + 1e-9) - 1
		if (x == int(x) || x >= 10 || x <= -10)
			return 0
		return -1
	}
	function rnd_fmt(x, cls, ciw, sign,   p, s) {
		p = rnd_place(x, cls, ciw)
		if (p > 0) {
			x = sprintf("%.0f", x / 10 ^ p) * 10 ^ p
			p = 0
		}
		s = sprintf("%" sign ".*f", -p, x)
		if (s ~ /^[-+]0(\.0*)?$/)
			sub(/^[-+]/, sign == "+" ? "+" : "", s)
		return s
	}
	function rnd(x, cls, ciw) { return rnd_fmt(x, cls, ciw, "") }
	function rnd_signed(x, cls, ciw) { return rnd_fmt(x, cls, ciw, "+") }
	function rnd_pct(p,   s) {
		s = sprintf("%+.2f", p)
		if (s == "-0.00") s = "+0.00"
		return s "%"
	}
'
