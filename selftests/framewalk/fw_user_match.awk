# SPDX-License-Identifier: GPL-2.0
# fw_user_match.awk - framewalk's user frames against perf's own user callchain at the same
# framewalk:chain events, from `perf script -F tid,ip,sym,dso,trace` after the test program's
# "map START END PGOFF PATH" lines (busybox awk).
#
# perf prints a user frame as its offset in the mapped file; framewalk's event holds the
# address, turned into the same offset with the maps. perf adds the leaf's caller from the
# sampled lr where the leaf's DWARF CFI says it is in lr, printed as lr - 1; framewalk adds
# the lr (user_lr=1) wherever it differs from the first record's return address. Where perf
# has the leaf's caller, framewalk must have it too; where only framewalk has it, it is set
# aside (perf judged the function at the pc not a leaf). Every other frame must be equal, in
# order, over the frames both have; framewalk may stop first only with user_depth.
# Prints per event: "EVENT equal|differ N_FW N_PERF user_stop SYMS..." (perf's names of the
# frames both have), and "# " lines that say where one differs.

function hexval(s,    i, c, v) {
	sub(/^0x/, "", s)
	v = 0
	for (i = 1; i <= length(s); i++) {
		c = index("0123456789abcdef", tolower(substr(s, i, 1)))
		if (!c)
			return -1
		v = v * 16 + c - 1
	}
	return v
}

# The file offset of the address @a, or -1 outside the mappings.
function fileoff(a,    i) {
	for (i = 0; i < nmaps; i++)
		if (a >= mstart[i] && a < mend[i])
			return a - mstart[i] + mpgoff[i]
	return -1
}

function finish(    i, nb, ok, why, syms) {
	if (!inev)
		return
	inev = 0
	nb = 0
	# framewalk's lr frame: kept where perf has the leaf's caller, set aside otherwise.
	for (i = 0; i < nfw; i++) {
		if (i == 1 && fwlr && !(np > 1 && pf[1] == fw[1] - 1))
			continue
		fr[nb++] = fw[i]
	}
	ok = 1
	why = ""
	syms = ""
	for (i = 0; ok && i < nb && i < np; i++) {
		if (fr[i] != pf[i] && !(i == 1 && fwlr && fr[i] - 1 == pf[i])) {
			ok = 0
			why = sprintf("frame %d: framewalk %d, perf %d (file offsets)", i, fr[i], pf[i])
		}
		syms = syms " " psym[i]
	}
	if (ok && nb != np && !(nb < np && stop == "user_depth")) {
		ok = 0
		why = sprintf("framewalk %d frames (%s), perf %d", nb, stop, np)
	}
	if (!ok)
		printf "# tid %s: %s\n", tid, why
	printf "EVENT %s %d %d %s%s\n", ok ? "equal" : "differ", nb, np, stop, syms
}

BEGIN {
	nmaps = 0
	# perf's libtraceevent prints the stops as numbers: lib/fw_walk.h's stable values.
	n = split("user_off user_kernel user_compat user_end user_depth user_bad_fp " \
		  "user_not_increasing user_fault", names, " ")
	for (i = 1; i <= n; i++)
		stopname[i + 127] = names[i]
}

$1 == "map" && NF == 5 {
	mstart[nmaps] = hexval($2); mend[nmaps] = hexval($3); mpgoff[nmaps] = hexval($4)
	nmaps++
	next
}

/ nr_user=/ {
	finish()
	inev = 1
	tid = $1
	nfw = 0; np = 0; fwlr = 0; stop = ""
	if (match($0, /user_lr=[0-9]+/))
		fwlr = substr($0, RSTART + 8, RLENGTH - 8) + 0
	if (match($0, /user_stop=[a-z_0-9]+/))
		stop = substr($0, RSTART + 10, RLENGTH - 10)
	if (stop in stopname)
		stop = stopname[stop]
	# user=ARRAY[b0, b1, ...]: little-endian words of 8 bytes.
	if (match($0, /user=ARRAY\[[^]]*\]/)) {
		s = substr($0, RSTART + 11, RLENGTH - 12)
		gsub(/ /, "", s)
		nb = split(s, by, ",")
		for (w = 0; w + 8 <= nb; w += 8) {
			h = ""
			for (k = w + 8; k > w; k--)
				h = h by[k]
			fw[nfw++] = fileoff(hexval(h))
		}
	}
	next
}

inev && /^[ \t]+[0-9a-f]+ / {
	if ($0 ~ /kernel\.kallsyms|\[framewalk\]/)
		next
	pf[np] = hexval($1)
	psym[np] = $2
	np++
	next
}

inev && /^[ \t]*$/ { finish() }

END { finish() }
