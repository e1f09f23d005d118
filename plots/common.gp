# plots/common.gp: shared settings for the plots/*.gp figure scripts.
# Loaded by catplot.gp and rules-scaling.gp; not meant to be run alone.
#
# Variables the driver (make-plots.sh) passes with gnuplot -e:
#   plotdir   directory of these scripts (for load)
#   term      'pngcairo', 'png' (libgd fallback) or 'svg'
#   out       output file
#   prefix    path prefix of the data files written by reshape.awk
#   title     the title line (figure name)
#   sub1..sub6 subtitle lines ('' = none; sub1 names run id, accel, date)
#   keyconf   space-separated config names shown in the key
#   keycidx   their colour indices (index of first appearance in the CSV)

set encoding utf8
if (!exists("term")) term = 'pngcairo'
if (!exists("sub1")) sub1 = ''
if (!exists("sub2")) sub2 = ''
if (!exists("sub3")) sub3 = ''
if (!exists("sub4")) sub4 = ''
if (!exists("sub5")) sub5 = ''
if (!exists("sub6")) sub6 = ''
if (!exists("W")) W = 1000          # px; README shows it at ~800 px
# the tallest figure (px) whose text still reads at 100% beside the others:
# a figure that would be taller puts its panels two a row (catplot.gp)
if (!exists("HMAX")) HMAX = 1600

fontname = 'DejaVu Sans'
fs_base = 13                        # key, axis labels
# font specs ('set ... font' wants a string variable, not an expression)
F_base = sprintf('%s,%d', fontname, fs_base)
F_tics = sprintf('%s,%d', fontname, fs_base - 1)
F_small = sprintf('%s,%d', fontname, fs_base - 3)    # value labels
F_title = sprintf('%s,%d', fontname, fs_base + 2)    # figure title
F_panel = sprintf('%s,%d', fontname, fs_base + 1)    # panel titles
F_sub = sprintf('%s,%d', fontname, fs_base - 1)      # subtitle lines

# set terminal for a W x H pixel canvas (svg: same user units; its text
# and point symbols come out at a different scale than pngcairo's, so
# fontscale and PS make the SVG look like the PNG)
PS = (term eq 'svg') ? 0.6 : 1.0
setterm(w, h) = (term eq 'svg') \
	? sprintf("set terminal svg size %d,%d fixed font '%s' fontscale 1.33 noenhanced background rgb 'white' linewidth 1.2", w, h, F_base) \
	: (term eq 'pngcairo') \
	? sprintf("set terminal pngcairo size %d,%d font '%s' noenhanced background rgb 'white' linewidth 1.2", w, h, F_base) \
	: sprintf("set terminal png size %d,%d font '%s' noenhanced background rgb 'white'", w, h, F_base)

# Figure title block: the multiplot title (one line), then up to four
# subtitle lines in a smaller font, drawn as labels by 'eval setsubs' in
# the first panel (positions in px from the top; H is set by the script).
nsub = (sub1 ne '') + (sub2 ne '') + (sub3 ne '') + (sub4 ne '') + (sub5 ne '') + (sub6 ne '')
setsubs = "set label 101 sub1 at screen 0.5, screen 1 - 52.0 / H center font F_sub front; " \
	. "set label 102 sub2 at screen 0.5, screen 1 - 71.0 / H center font F_sub front; " \
	. "set label 103 sub3 at screen 0.5, screen 1 - 90.0 / H center font F_sub front; " \
	. "set label 104 sub4 at screen 0.5, screen 1 - 109.0 / H center font F_sub front; " \
	. "set label 105 sub5 at screen 0.5, screen 1 - 128.0 / H center font F_sub front; " \
	. "set label 106 sub6 at screen 0.5, screen 1 - 147.0 / H center font F_sub front"

# Colour-blind safe (Okabe-Ito) colours and filled point types, by config
# index; index 1 is the first config in the CSV (normally 'off').
colors = "#555555 #0072B2 #E69F00 #009E73 #CC79A7 #D55E00 #56B4E9 #000000"
ptypes = "7 5 9 13 11 15 4 6"
do for [i=1:8] {
	eval sprintf("set linetype %d lc rgb '%s' lw 2 pt %s ps 1.3", i, word(colors, i), word(ptypes, i))
}
set linetype cycle 8
ptof(i) = word(ptypes, int(i - 1) % 8 + 1) + 0
# the open (hollow) symbol of config i's filled one: a random-class value
optypes = "6 4 8 12 10 14 1 3"
ptopen(i) = word(optypes, int(i - 1) % 8 + 1) + 0
rgbof(i) = word(colors, int(i - 1) % 8 + 1)

# Key text for a config: its name, and the legend the run recorded for its
# build (meta.json BUILDS.CONFIG.legend, which make-plots.sh passes as the
# words of legendconf and the double-quoted words of keylegend); a run
# that recorded none shows the name alone.
if (!exists("legendconf")) legendconf = ''
if (!exists("keylegend")) keylegend = ''
legend_at(c, i) = (i > words(legendconf)) ? c \
	: (word(legendconf, i) eq c) ? c . ': ' . word(keylegend, i) : legend_at(c, i + 1)
desc(c) = legend_at(c, 1)

# The key (legend) is drawn by key.gp with labels, points and objects in
# screen coordinates in the header, row by row (gnuplot's own key layout
# does not honour maxcols/maxrows with 'set key at' in a narrow panel).
# Entries: one per config in keyconf/keycidx with symbol keykind ('pt'
# point, 'box' filled box, 'lp' line and point), then optionally one
# figure-specific entry keyx_kind ('box' or 'dash'), keyx_text, keyx_rgb.
if (!exists("keyconf")) keyconf = ''
if (!exists("keycidx")) keycidx = ''
if (!exists("keykind")) keykind = 'pt'
if (!exists("keyx_kind")) keyx_kind = ''
if (!exists("keyx_text")) keyx_text = ''
if (!exists("keyx_rgb")) keyx_rgb = '#333333'
array KK[12]
array KT[12]
array KR[12]
array KP[12]
nkey = 0
do for [j=1:words(keycidx)] {
	if (nkey < 11) {
		nkey = nkey + 1
		ci_ = word(keycidx, j) + 0
		KK[nkey] = keykind
		KT[nkey] = desc(word(keyconf, j))
		KR[nkey] = rgbof(ci_)
		KP[nkey] = ptof(ci_)
	}
}
if (keyx_kind ne '') {
	nkey = nkey + 1
	KK[nkey] = keyx_kind
	KT[nkey] = keyx_text
	KR[nkey] = keyx_rgb
	KP[nkey] = 0
}
keylen = 1
do for [j=1:nkey] {
	if (strlen(KT[j]) > keylen) { keylen = strlen(KT[j]) }
}
keycolw = keylen * 9.0 + 60                # px per key column
keycols = int((W - 60) / keycolw)
keycols = (keycols < 1) ? 1 : (keycols > nkey) ? nkey : keycols
keyrows = (nkey < 1) ? 0 : int((nkey + keycols - 1) / keycols)
# header: title and subtitle lines, the key, room for the first panel title
keytop = 50 + 19 * nsub
hdr = keytop + 23 * keyrows + 52

# rangelog (optional, from make-plots.sh PLOTS_RANGES): after each panel's
# plot, 'eval logrange' appends "figure|panel|metric|ymin|ymax" with the y
# range gnuplot drew, so that tests check ranges instead of pixels
if (!exists("rangelog")) rangelog = ''
if (!exists("figname")) figname = ''
logrange = "if (rangelog ne '') { set print rangelog append; " \
	. "print sprintf('%s|%s|%s|%.6g|%.6g', figname, ptitle, (exists('pmetric') ? pmetric : ''), GPVAL_Y_MIN, GPVAL_Y_MAX); set print }"

set grid ytics lc rgb '#dddddd' lw 1 dt 1
set border 3 lw 1
set ytics nomirror
set tics font F_tics
set style fill solid 0.85 border rgb '#333333'
set bars small
set datafile missing 'NaN'
unset key
