#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Tests of tests/kernel-log/test_kernel_log.sh on the host (KTAP): a clean log passes every check; a
# report of each kind, set in that clean log, fails the check of its kind and only that one;
# a planted bug counts only when its report lies between its markers.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$top/tests/ktap.sh"
check=$top/tests/kernel-log/test_kernel_log.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

ktap_header

clean=$here/clean.log
"$check" -l clean "$clean" >"$work/out" 2>&1
rc=$?
sed 's/^/# /' "$work/out" | grep 'not ok'
[ "$rc" = 0 ] && ! grep -q '^not ok' "$work/out"
ktap_result $? "a clean 6.12 boot and test run passes every check"

# A report's first lines, as the kernel prints them, and the check it must fail.
while IFS='|' read -r want report; do
	{
		head -200 "$clean"
		printf '%b\n' "$report" | sed 's/^/[   61.000000] /'
		tail -n +201 "$clean"
	} >"$work/log"
	"$check" -l t "$work/log" >"$work/out" 2>&1
	rc=$?
	failed=$(sed -n 's/^not ok [0-9]* t: //p' "$work/out" | tr '\n' ';')
	[ "$failed" = "no $want;" ] || echo "# expected only 'no $want' to fail, got '$failed'"
	[ "$rc" = 1 ] && [ "$failed" = "no $want;" ]
	ktap_result $? "$want: '$(printf '%b' "$report" | grep -v '^[=-]*\(\[ cut here \][-]*\)\?$' | head -1)' fails that check alone"
done <"$here/reports.txt"

# The planted KASAN bug: its report counts inside its markers, and only there.
{
	cat "$clean"
	echo "[   70.000000] fw-planted: begin kasan"
	echo "[   70.100000] BUG: KASAN: slab-use-after-free in fw_planted_kasan+0x5c/0xa0"
	echo "[   70.200000] fw-planted: end kasan"
} >"$work/log"
"$check" -l t -p kasan "$work/log" >"$work/out" 2>&1 && ! grep -q '^not ok' "$work/out"
ktap_result $? "a planted KASAN bug reported between its markers passes, and no other check fails"

{
	cat "$clean"
	echo "[   70.000000] fw-planted: begin kasan"
	echo "[   70.200000] fw-planted: end kasan"
	echo "[   70.300000] BUG: KASAN: slab-use-after-free in fw_planted_kasan+0x5c/0xa0"
} >"$work/log"
"$check" -l t -p kasan "$work/log" >"$work/out" 2>&1
[ $? = 1 ] && grep -q '^not ok .* the planted kasan bug is reported' "$work/out" &&
	grep -q '^not ok .* no KASAN report' "$work/out"
ktap_result $? "a KASAN report after the planted section's end fails both the plant and the KASAN check"

head -100 "$clean" | sed '$d' >"$work/log"
"$check" -l t -p lockdep "$work/log" >"$work/out" 2>&1
[ $? = 1 ] && grep -q '^not ok .* the planted lockdep bug is reported' "$work/out"
ktap_result $? "a planted bug without markers (never committed) fails"

"$check" -l t "$work/missing.log" >"$work/out" 2>&1
[ $? = 1 ] && grep -q '^not ok 1 t: the kernel log came back' "$work/out"
ktap_result $? "a missing kernel log fails, saying so"

ktap_done
