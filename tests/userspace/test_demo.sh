#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test_demo.sh - what make demo said, checked against what it did (KTAP): no build or
# harness lines without V=1, every count it gives recounted from its recording's lines
# here, not by the CLI that printed it, and at least what the demo's workload does, the
# chains it names found (trace-cmd's from a timer too), and a closing "what next" block
# whose files and commands exist.
# usage: test_demo.sh DEMO_DIR TRANSCRIPT (scripts/demo.sh's DEMO_OUT and its output)
set -u
. "$(cd "$(dirname "$0")" && pwd)/../ktap.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
fw=${FW_CLI:-$top/build/host/framewalk}
dir=${1:?usage: test_demo.sh DEMO_DIR TRANSCRIPT}
log=${2:?usage: test_demo.sh DEMO_DIR TRANSCRIPT}
rec=$dir/guest/files/demo.rec

ktap_header
# What the guest runner said went wrong (a timeout, a file damaged), for the log.
grep '^guest: ' "$log" | sed 's/^/# /'
[ -s "$rec" ] || echo "# no recording: $rec is missing or empty"
noise=$(grep -E '^@@FW-|Skipping BTF generation|reboot: Power down$' "$log")
echo "$noise" | sed '/^$/d; s/^/# noise: /' | head -5
[ -z "$noise" ]
ktap_result $? "no build or guest-runner line in the demo's output"

# The sentence announcing the flame graph, its counts against the recording's chains. The
# demo counted with framewalk folded; here the "E" lines are counted from the file itself,
# each child named by the nearest "S" symbol at or below it, so a CLI that lost or
# misnamed chains would disagree.
line=$(grep "^the flame graph of the guest's " "$log")
echo "# $line"
said=$(echo "$line" | sed -n 's/.* \([0-9]*\) reads (vfs_read), \([0-9]*\) writes (vfs_write) and \([0-9]*\) opens (do_sys_openat2).*/\1 \2 \3/p')
counted=$(awk 'function key(a) { a = sprintf("%16s", a); gsub(/ /, "0", a); return a }
	$1 == "S" { print key($2), 0, $3 } $1 == "E" { print key($5), 1 }' "$rec" 2>/dev/null |
	LC_ALL=C sort | awk '$2 == 0 { name = $3; next } { c[name]++ }
		END { printf "%d %d %d", c["vfs_read"], c["vfs_write"], c["do_sys_openat2"] }')
echo "# said: ${said:-nothing}; counted in $rec: $counted"
[ -n "$said" ] && [ "$said" = "$counted" ]
ktap_result $? "the flame graph's counts are the recording's"
# What the workload fixes in advance (scripts/demo.sh, five passes): each dd reads
# /proc/version, longer than one 64-byte block, until a read returns 0 (two reads at the
# least) and writes each block to /dev/null, each echo writes /tmp/x, and each pass opens
# /proc/version, the directory / and /tmp/x. The recording may hold more (other tasks, the
# redirections), never fewer.
set -- $counted
[ "${1:-0}" -ge 10 ] && [ "${2:-0}" -ge 10 ] && [ "${3:-0}" -ge 15 ]
ktap_result $? "the recording holds the workload's 10 reads, 10 writes and 15 opens at least ($counted)"
[ -s "$dir/flamegraph.html" ] && grep -q "$dir/flamegraph.html" <<<"$line"
ktap_result $? "the page it names is there"

ok=0
for f in vfs_read do_sys_openat2 fw_test_leaf; do
	grep -q ": $f <- " "$log" || { echo "# no $f chain shown"; ok=1; }
done
ktap_result $ok "framewalk report shows a read, an open and the test chain, as announced"

# "trace-cmd record ..., the known chain from a timer": the report shows it, timer and all.
section=$(sed -n '/^== trace-cmd report/,/^== /p' "$log")
grep -q 'chain: .*fw_test_leaf' <<<"$section" && grep -q '=> fw_test_timer_fn+' <<<"$section"
ktap_result $? "trace-cmd report shows the test chain from its timer, as announced"
# framewalk top's heading: its chains are the recording's "E" lines, counted here.
want=$(grep -c '^E ' "$rec" 2>/dev/null)
grep -qE -- "^# (the [0-9]+ most frequent of )?[0-9]+ distinct caller -> callee edges, seen [0-9]+ times along ${want:-x} chains\$" "$log"
ktap_result $? "framewalk top's count of chains is the recording's ($want)"

# The last block: what next, every path and command in it real.
next=$(sed -n '/^== what next$/,$p' "$log")
echo "$next" | sed 's/^/# /'
[ -n "$next" ] && [ "$(echo "$next" | tail -1)" = "Every test: make check" ]
ktap_result $? "the demo ends with the what next block"
ok=0
for p in $(echo "$next" | grep -oE '(build|analyzer)/[A-Za-z0-9_./-]+[A-Za-z0-9]'); do
	[ -e "$top/$p" ] || { echo "# $p: not there"; ok=1; }
done
for t in shell check; do
	grep -q "^$t:" "$top/Makefile" || { echo "# no make $t"; ok=1; }
done
ktap_result $ok "every file and make target it names exists"
# README's "What make demo prints, abridged": each line is one the demo printed, with
# " ... " standing for the frames left out (an offset once drifted from what it printed).
shown=$(awk '/^What `make demo` prints, abridged:$/ { on = 1; next }
	on && /^```/ { if (++fence == 2) exit; next }
	on && fence == 1' "$top/README.md")
[ -n "$shown" ]
ktap_result $? "README.md shows the demo's output"
n=0
while IFS= read -r want; do
	[ -n "$want" ] || continue
	n=$((n + 1))
	# The pieces between " ... ", in this order, on one line the demo printed.
	awk -v want="$want" 'BEGIN { np = split(want, piece, / \.\.\. /) }
		{ line = $0; for (i = 1; i <= np; i++) { at = index(line, piece[i]); if (!at) next
		  line = substr(line, at + length(piece[i])) }
		  found = 1; exit }
		END { exit !found }' "$log"
	rc=$?
	[ "$rc" = 0 ] || echo "# README shows, the demo did not print: $want"
	ktap_result $rc "README's demo line $n is one the demo printed"
done <<EOF2
$shown
EOF2
ktap_done
