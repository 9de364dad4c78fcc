# SPDX-License-Identifier: GPL-2.0
# ktap-results.awk - turn a KTAP log, nested kselftest-style ("# " per level)
# or flat, into one line per result: "PASS|FAIL|SKIP<TAB>SUITE: description".
# Leaf results count. A parent result counts only when it failed and none of
# its children did (the program crashed, timed out or exited non-zero).
# usage: awk -v suite=NAME -f ktap-results.awk LOG

function emit(status, desc) {
	printf "%s\t%s: %s\n", status, suite, desc
}

{
	line = $0
	depth = 0
	while (substr(line, 1, 2) == "# ") {
		line = substr(line, 3)
		depth++
	}
	if (line !~ /^(not )?ok [0-9]+( |$)/)
		next
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
	cnt[depth]++
	if (failed)
		bad[depth]++
}
