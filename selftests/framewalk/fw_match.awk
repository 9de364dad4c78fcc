# SPDX-License-Identifier: GPL-2.0
# fw_match.awk - pair framewalk chains with the kernel unwinder's stacks of the
# same calls and compare them frame by frame.
#
# Input lines (hex addresses without 0x), one CPU's trace:
#   C FUNC NR_ANCESTORS STOP TRAMP RECOVERED PARENT ANCESTOR...   framewalk's chain for one hit
#   O FUNC FOUND ENTRY...      the oracle for one hit, from the parent outward
# ftrace calls the most recently registered ops first, and the oracle is
# loaded after framewalk: one hit is an O line followed, on the same CPU, by a
# C line for the same FUNC (other functions' events from a nested interrupt
# may stand between). Anything else is unpaired, never compared, except the
# two halves tracing_on cuts off: a C line before FUNC's first O line and an
# O line after FUNC's last C line, which are counted as cut.
# -v maxdepth=N is the depth framewalk was walking to.
# Output: "# mismatch ..." and "# unpaired ..." details, then
# "RESULT FUNC matched mismatched unpaired cut recovered-frames trampoline-stops
# lost-instance-stops", the last the trampoline stops where the kernel found no
# return address either (its frame is 0), counted among the matched.

function fail(fn, why) {
	bad[fn]++
	if (shown++ < 8)
		print "# mismatch " fn " (input line " NR "): " why
}

function compare(fn,    c, o, nc, no, i, n) {
	nc = split(chain[fn], c, " ")
	no = split(oracle[fn], o, " ")
	seen[fn] = 1
	if (!ofound[fn]) {
		fail(fn, "the kernel's trace does not reach " fn)
		return
	}
	n = nc < no ? nc : no
	for (i = 1; i <= n; i++) {
		# 6.1's kretprobe trampoline ran its handler with interrupts on, and its
		# frame record kept the trampoline's address after the instance left the
		# task's list: an interrupt there finds no return behind it. The kernel's
		# unwinder says 0 and goes on, framewalk ends with stop=trampoline.
		if (i == nc && o[i] == "0" && cstop[fn] == "trampoline" && ctramp[fn] == "kretprobe") {
			good[fn]++
			gone[fn]++
			return
		}
		if (c[i] != o[i]) {
			fail(fn, "frame " i - 1 " framewalk " c[i] " kernel " o[i])
			return
		}
	}
	if (cstop[fn] == "depth") {
		if (cnr_ancestors[fn] != maxdepth)
			fail(fn, "stop=depth after " cnr_ancestors[fn] " ancestors, depth " maxdepth)
		else if (no <= nc)
			fail(fn, "stop=depth but the kernel's trace ends after " no " frames")
		else
			good[fn]++
	} else if (cstop[fn] == "chain_end") {
		if (nc != no)
			fail(fn, "framewalk has " nc " frames, the kernel " no)
		else
			good[fn]++
	} else if (cstop[fn] == "trampoline") {
		# Equal so far, the trampoline's address included: the kernel's unwinder
		# could not see behind it either (a kernel without that recovery).
		if (no <= nc)
			fail(fn, "stop=trampoline but the kernel's trace ends after " no " frames")
		else {
			good[fn]++
			tstops[fn]++
		}
	} else {
		fail(fn, "stop=" cstop[fn] " after " nc " frames, the kernel has " no)
	}
}

# A hit one view saw and the other did not, said for the first few.
function unpaired(fn, why) {
	lost[fn]++
	if (nlost++ < 8)
		print "# unpaired " fn " (input line " NR "): " why
}

$1 == "O" {
	fn = $2
	ohit[fn] = 1
	if (fn in oracle)
		unpaired(fn, "the kernel's trace of the hit before has no framewalk chain")
	ofound[fn] = $3
	oracle[fn] = ""
	for (i = 4; i <= NF; i++)
		oracle[fn] = oracle[fn] " " $i
	next
}

$1 == "C" {
	fn = $2
	seen[fn] = 1
	if (!(fn in oracle)) {
		if (fn in ohit)
			unpaired(fn, "a framewalk chain without the kernel's trace before it")
		else
			cut[fn]++
		next
	}
	cnr_ancestors[fn] = $3
	cstop[fn] = $4
	ctramp[fn] = $5
	if ($6 != "0")
		nrec[fn] += bits($6)
	chain[fn] = ""
	for (i = 7; i <= NF; i++)
		chain[fn] = chain[fn] " " $i
	compare(fn)
	delete oracle[fn]
}

# Number of bits set in a hex mask.
function bits(hex,    n, i, d) {
	n = 0
	for (i = 1; i <= length(hex); i++) {
		d = index("0123456789abcdef", substr(hex, i, 1)) - 1
		n += (d % 2) + int(d / 2) % 2 + int(d / 4) % 2 + int(d / 8)
	}
	return n
}

END {
	for (fn in oracle) {
		cut[fn]++
		seen[fn] = 1
	}
	for (fn in seen)
		print "RESULT " fn " " good[fn] + 0 " " bad[fn] + 0 " " lost[fn] + 0 " " \
			cut[fn] + 0 " " nrec[fn] + 0 " " tstops[fn] + 0 " " gone[fn] + 0
}
