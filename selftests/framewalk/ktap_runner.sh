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
. ./ktap.sh

ktap_header $#
for t in "$@"; do
	echo "# selftests: framewalk: $t"
	# busybox sh has no PIPESTATUS: the status leaves the pipeline through a file.
	{
		timeout "$timeout" sh "./$t" 2>&1
		echo $? >"$rcfile"
	} | sed 's/^/# /'
	rc=$(cat "$rcfile")
	case $rc in
	0) ktap_result 0 "selftests: framewalk: $t" ;;
	4) ktap_result skip "selftests: framewalk: $t" ;;
	124 | 143) ktap_result 1 "selftests: framewalk: $t" "TIMEOUT ${timeout}s" ;;
	*) ktap_result 1 "selftests: framewalk: $t" "exit=$rc" ;;
	esac
done
ktap_done
