#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ktap_runner.sh - run selftest programs the way kselftest's runner does:
# a top-level KTAP plan, each program's own KTAP nested behind "# ", and one
# result line per program, which fails on a non-zero exit or a timeout.
# usage: ktap_runner.sh TEST...
cd "$(dirname "$0")" || exit 1
timeout=$(sed -n 's/^timeout=//p' settings 2>/dev/null)
timeout=${timeout:-45}
rcfile=/tmp/.ktap_runner_rc

echo "TAP version 13"
echo "1..$#"
n=0
failed=0
for t in "$@"; do
	n=$((n + 1))
	echo "# selftests: framewalk: $t"
	# busybox sh has no PIPESTATUS: the status leaves the pipeline through a file.
	{
		timeout "$timeout" sh "./$t" 2>&1
		echo $? >"$rcfile"
	} | sed 's/^/# /'
	rc=$(cat "$rcfile")
	case $rc in
	0) echo "ok $n selftests: framewalk: $t" ;;
	4) echo "ok $n selftests: framewalk: $t # SKIP" ;;
	124 | 143) echo "not ok $n selftests: framewalk: $t # TIMEOUT ${timeout}s"
		failed=$((failed + 1)) ;;
	*) echo "not ok $n selftests: framewalk: $t # exit=$rc"
		failed=$((failed + 1)) ;;
	esac
done
[ "$failed" = 0 ]
