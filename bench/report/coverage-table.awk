# The work of coverage-table.sh (POSIX awk; mawk and gawk alike).
# Variables: src (the tree), scopes (one a line), labels (one a line, one
# per input tracefile), reasons (the reasons file).  Input: the tracefiles.

function trim(s) {
	sub(/^[ \t]+/, "", s)
	sub(/[ \t]+$/, "", s)
	return s
}

# load_source(file): the tree's lines of file into text[file, n].
function load_source(file,    path, line, n) {
	if (file in loaded)
		return
	loaded[file] = 1
	path = src "/" file
	while ((getline line < path) > 0)
		text[file, ++n] = line
	close(path)
	nlines[file] = n
}

# func_end(file, start): the line of the first "}" in column 0 from start.
function func_end(file, start,    n) {
	load_source(file)
	for (n = start; n <= nlines[file]; n++)
		if (text[file, n] ~ /^}/)
			return n
	return nlines[file]
}

# func_start(file, name): the line of name's definition: from a tracefile's
# FN record, else the first line of the tree that defines it (the name
# before "(" on a line that starts in column 0 and does not end in ";").
function func_start(file, name,    f, n) {
	for (f = 1; f <= nfiles; f++)
		if ((f, file, name) in fnline)
			return fnline[f, file, name]
	load_source(file)
	for (n = 1; n <= nlines[file]; n++)
		if (text[file, n] ~ /^[A-Za-z_]/ && text[file, n] !~ /;[ \t]*$/ &&
		    index(text[file, n], " " name "(") + index(text[file, n], "*" name "(") > 0)
			return n
	return 0
}

# in_scope(i, line): is line of scope i's file inside scope i?
function in_scope(i, line,    r) {
	if (nranges[i] == 0)
		return 1
	for (r = 1; r <= nranges[i]; r++)
		if (line >= rlo[i, r] && line <= rhi[i, r])
			return 1
	return 0
}

# func_of(file, line): the function of the last tracefile around line.
function func_of(file, line,    k, name, best, bestline) {
	bestline = 0
	for (k = 1; k <= nfn[nfiles, file]; k++) {
		name = fnname[nfiles, file, k]
		if (fnline[nfiles, file, name] <= line && fnline[nfiles, file, name] > bestline) {
			bestline = fnline[nfiles, file, name]
			best = name
		}
	}
	if (bestline && line <= func_end(file, bestline))
		return best "()"
	return "-"
}

function reason_for(file, fn, code,    k) {
	code = trim(code)
	for (k = 1; k <= nreasons; k++)
		if (rfile[k] == file && (rfunc[k] == "*" || rfunc[k] "()" == fn) && index(code, rcode[k]))
			return rtext[k]
	return "NO REASON RECORDED (add one to bench/report/coverage-reasons.txt)"
}

# wrap: S printed within 80 columns, broken at spaces, continued with IND
function wrap(s, ind,   cut) {
	while (length(s) > 80) {
		cut = 80
		while (cut > 20 && substr(s, cut + 1, 1) != " ")
			cut--
		if (cut <= 20)
			cut = 80
		print substr(s, 1, cut)
		s = substr(s, cut + 1)
		sub(/^ +/, "", s)
		s = ind s
	}
	print s
}

function ratio(hit, total) {
	if (total == 0)
		return "-"
	return sprintf("%d/%d (%.1f%%)", hit, total, 100 * hit / total)
}

BEGIN {
	nscopes = split(scopes, scope, "\n")
	nlabels = split(labels, label, "\n")
	while ((getline line < reasons) > 0) {
		if (line ~ /^#/ || line !~ /\|/)
			continue
		split(line, part, "|")
		nreasons++
		rfile[nreasons] = part[1]; rfunc[nreasons] = part[2]
		rcode[nreasons] = part[3]; rtext[nreasons] = part[4]
	}
	close(reasons)
}

FNR == 1 { nfiles++ }
/^SF:/ { cur = substr($0, 4); next }
/^FN:/ {
	split(substr($0, 4), p, ",")
	fnline[nfiles, cur, p[2]] = p[1]
	fnname[nfiles, cur, ++nfn[nfiles, cur]] = p[2]
	next
}
/^FNDA:/ { split(substr($0, 6), p, ","); fnda[nfiles, cur, p[2]] = p[1]; next }
/^DA:/ {
	split(substr($0, 4), p, ",")
	da[nfiles, cur, p[1] + 0] = p[2]
	daline[nfiles, cur, ++nda[nfiles, cur]] = p[1] + 0
	next
}
/^BRDA:/ {
	split(substr($0, 6), p, ",")
	n = ++nbr[nfiles, cur]
	brline[nfiles, cur, n] = p[1] + 0
	brtaken[nfiles, cur, n] = p[4]
	next
}

END {
	if (nfiles != nlabels) {
		print "coverage-table: " nfiles " tracefiles for " nlabels " labels" > "/dev/stderr"
		exit 2
	}
	# The scopes' files and line ranges.
	for (i = 1; i <= nscopes; i++) {
		sfile[i] = scope[i]
		sfuncs[i] = ""
		if (index(scope[i], ":")) {
			sfile[i] = substr(scope[i], 1, index(scope[i], ":") - 1)
			sfuncs[i] = substr(scope[i], index(scope[i], ":") + 1)
		}
		nranges[i] = 0
		if (sfuncs[i] == "")
			continue
		nf = split(sfuncs[i], fns, ",")
		for (k = 1; k <= nf; k++) {
			start = func_start(sfile[i], fns[k])
			if (!start) {
				print "coverage-table: no function " fns[k] " in " sfile[i] > "/dev/stderr"
				exit 2
			}
			nranges[i]++
			rlo[i, nranges[i]] = start
			rhi[i, nranges[i]] = func_end(sfile[i], start)
		}
	}

	# Plain text within 80 columns: each scope on a line, then a line per
	# measure with one column per label (named once, above).
	head = "Columns:"
	for (f = 1; f <= nlabels; f++)
		head = head " " f ". " label[f] (f < nlabels ? ";" : "")
	wrap(head, "  ")
	for (i = 1; i <= nscopes; i++) {
		name = sfile[i]
		if (sfuncs[i] != "") {
			name = name ": " sfuncs[i]
			gsub(/,/, "(), ", name)
			name = name "()"
		}
		wrap(name, "  ")
		for (m = 1; m <= 3; m++) {
			row = sprintf("  %-10s", m == 1 ? "lines" : m == 2 ? "branches" : "functions")
			for (f = 1; f <= nfiles; f++) {
				hit = 0; total = 0
				file = sfile[i]
				if (m == 1) {
					for (k = 1; k <= nda[f, file]; k++) {
						l = daline[f, file, k]
						if (!in_scope(i, l))
							continue
						total++
						if (da[f, file, l] > 0)
							hit++
					}
				} else if (m == 2) {
					for (k = 1; k <= nbr[f, file]; k++) {
						if (!in_scope(i, brline[f, file, k]))
							continue
						total++
						if (brtaken[f, file, k] != "-" && brtaken[f, file, k] > 0)
							hit++
					}
				} else {
					for (k = 1; k <= nfn[f, file]; k++) {
						fname = fnname[f, file, k]
						if (!in_scope(i, fnline[f, file, fname]))
							continue
						total++
						if (fnda[f, file, fname] > 0)
							hit++
					}
				}
				row = row sprintf(f < nfiles ? " %-19s" : " %s", f ". " ratio(hit, total))
			}
			wrap(row, "    ")
		}
	}

	# What the last tracefile never reached, in the scopes.
	f = nfiles
	printf "\nLines never reached (%s):\n\n", label[f]
	none = 1
	for (i = 1; i <= nscopes; i++) {
		file = sfile[i]
		load_source(file)
		for (k = 1; k <= nda[f, file]; k++) {
			l = daline[f, file, k]
			if (!in_scope(i, l) || da[f, file, l] > 0 || (file, l) in listed)
				continue
			listed[file, l] = 1
			fn = func_of(file, l)
			wrap(sprintf("- %s:%d %s `%s`: %s", file, l, fn, trim(text[file, l]),
				reason_for(file, fn, text[file, l])), "  ")
			none = 0
		}
	}
	if (none)
		print "(none)"
	printf "\nBranches never taken on lines that ran (%s):\n\n", label[f]
	none = 1
	for (i = 1; i <= nscopes; i++) {
		file = sfile[i]
		delete brn
		delete brmiss
		nl = 0
		for (k = 1; k <= nbr[f, file]; k++) {
			l = brline[f, file, k]
			if (!in_scope(i, l) || !(da[f, file, l] > 0))
				continue
			if (!(l in brn))
				order[++nl] = l
			brn[l]++
			if (brtaken[f, file, k] == "-" || brtaken[f, file, k] == 0)
				brmiss[l]++
		}
		for (k = 1; k <= nl; k++) {
			l = order[k]
			if (!brmiss[l] || (file, l) in brlisted)
				continue
			brlisted[file, l] = 1
			fn = func_of(file, l)
			wrap(sprintf("- %s:%d %s `%s`: %d of %d branches: %s", file, l, fn,
				trim(text[file, l]), brmiss[l], brn[l], reason_for(file, fn, text[file, l])), "  ")
			none = 0
		}
	}
	if (none)
		print "(none)"
}
