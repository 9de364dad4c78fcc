#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kernel-side C (module/, lib/, the selftests' test modules, bench/) is checkpatch
# --strict clean, one KTAP result per file; checkpatch.pl is the copy make deps fetched.
# usage: test_checkpatch.sh
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/ktap.sh"
cp=$top/.cache/checkpatch/scripts/checkpatch.pl
files=$(cd "$top" && ls module/*.[ch] lib/*.h selftests/framewalk/test_modules/*.[ch] \
	bench/*.[ch])
ktap_header
for f in $files; do
	# Any error, warning or --strict check makes checkpatch exit non-zero.
	if out=$("$cp" --no-tree --strict --terse -f "$top/$f" 2>&1); then
		ktap_result 0 "$f is checkpatch --strict clean"
	else
		echo "$out" | grep -v '^total' | sed 's/^/# /'
		ktap_result 1 "$f is checkpatch --strict clean"
	fi
done
ktap_done
