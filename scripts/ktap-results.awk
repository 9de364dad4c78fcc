# SPDX-License-Identifier: GPL-2.0
# ktap-results.awk - turn a KTAP log, nested kselftest-style ("# " per level)
# or flat, into one line per result: "PASS|FAIL|SKIP<TAB>SUITE: description".
# Leaf results count. A parent result counts only when it failed and none of
# its children did (the program crashed, timed out or exited non-zero).
# With -v details=FILE, each failed result's diagnostic lines (those of its
# level since the result before it, the last 12) are appended to FILE under
# its name: a log that only shows its end (CI's) then still shows why.
# usage: awk -v suite=NAME [-v details=FILE] -f ktap-results.awk LOG

function emit(status, desc,    i, n) {
	printf "%s\t%s: %s\n", status, suite, desc
	if (status != "FAIL" || details == "")
		return
	printf "%s: %s\n", suite, desc >>details
	n = nnote[depth + 1]
	for (i = n > 12 ? n - 12 : 0; i < n; i++)
		print "    " note[depth + 1, i] >>details
}

{
	line = $0
	depth = 0
	while (substr(line, 1, 2) == "# ") {
		line = substr(line, 3)
		depth++
	}
	if (line !~ /^(not )?ok [0-9]+( |$)/) {
		# A diagnostic of a result one level up ("# " is also the nesting mark).
		if (depth > 0 && line !~ /^(KTAP|TAP) version|^[0-9]+\.\.[0-9]+/)
			note[depth, nnote[depth]++] = line
		next
	}
	failed = line ~ /^not ok/
	desc = line
	sub(/^(not )?ok [0-9]+ *(- )?/, "", desc)
	skipped = desc ~ /# *SKIP/
	children = cnt[depth + 1] + 0
	if (children == 0)
		emit(failed ? "FAIL" : skipped ? "SKIP" : "PASS", desc)
	else if (failed && bad[depth + 1] == 0)
		emit("FAIL", desc)
	for (d = depth + 1; d in cnt; d++) {
		delete cnt[d]
		delete bad[d]
	}
	nnote[depth + 1] = 0
	cnt[depth]++
	if (failed)
		bad[depth]++
}
