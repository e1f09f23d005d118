# plots/key.gp: draws the key entries KK/KT/KR/KP (set up by common.gp) in
# the header, keycols per row, centred.  Loaded before the first panel's
# plot command (needs H); uses label/object/arrow tags 200 and up.
kx0 = (W - keycols * keycolw) / 2.0 + 15
do for [i=1:nkey] {
	kr_ = int((i - 1) / keycols)
	kc_ = (i - 1) % keycols
	kx = kx0 + kc_ * keycolw
	ky = 1 - (keytop + 11 + 23 * kr_) / H
	eval sprintf("set label %d KT[%d] at screen %g, screen %g left front font F_base", 200 + i, i, (kx + 30) / W, ky)
	if (KK[i] eq 'pt') {
		eval sprintf("set label %d '' at screen %g, screen %g point pt %d ps %g lc rgb KR[%d] front", 300 + i, kx / W, ky, KP[i], 1.8 * PS, i)
	}
	if (KK[i] eq 'box') {
		eval sprintf("set object %d rectangle center screen %g, screen %g size screen %g, screen %g fc rgb KR[%d] fs solid 0.85 border rgb '#333333' front", 200 + i, kx / W, ky, 20.0 / W, 13.0 / H, i)
	}
	if (KK[i] eq 'lp' || KK[i] eq 'dash') {
		eval sprintf("set arrow %d from screen %g, screen %g to screen %g, screen %g nohead lw 2 lc rgb KR[%d] dt %s front", 200 + i, (kx - 22) / W, ky, (kx + 18) / W, ky, i, KK[i] eq 'dash' ? '2' : '1')
	}
	if (KK[i] eq 'lp') {
		eval sprintf("set label %d '' at screen %g, screen %g point pt %d ps %g lc rgb KR[%d] front", 300 + i, kx / W, ky, KP[i], 1.8 * PS, i)
	}
}
