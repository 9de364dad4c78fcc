#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The test runner's own output (KTAP): scripts/check.sh says when each suite ends, with its
# counts and time, before the results it prints at the end (a full run is half an hour
# of guests), and the counts it says are those of the results. Runs the runner on the
# docs suite, a few seconds, in a log directory of its own.
# usage: test_check_runner.sh
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/ktap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ktap_header

FW_CHECK_LOGS=$tmp/logs "$top/scripts/check.sh" docs >"$tmp/out" 2>&1
rc=$?
sed 's/^/# /' "$tmp/out"
ktap_result $rc "check.sh docs exits 0"

# The line said when the suite ended, and where it stands among the others.
done_line=$(grep -n '^-- docs: ' "$tmp/out" | head -1)
first_result=$(grep -n '^PASS  docs: \|^FAIL  docs: ' "$tmp/out" | head -1 | cut -d: -f1)
echo "# said at the end of the suite: ${done_line:-nothing}"
[ -n "$done_line" ] && [ -n "$first_result" ] && [ "${done_line%%:*}" -lt "$first_result" ]
ktap_result $? "the suite's end is said before the results print"

echo "$done_line" | grep -Eq ' in [0-9]+m[0-9]{2}s \([0-9]+m[0-9]{2}s into the run\)$'
ktap_result $? "it says how long the suite took and when in the run it ended"

passed=$(grep -c '^PASS  docs: ' "$tmp/out")
failed=$(grep -c '^FAIL  docs: ' "$tmp/out")
echo "$done_line" | grep -q ": $passed passed, $failed failed in "
ktap_result $? "its counts ($passed passed, $failed failed) are the results'"
ktap_done
