#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Tests of scripts/guest.sh itself (KTAP): files come back intact over the
# console, the guest's exit status comes through, a hung guest is killed at
# the timeout, a panic is reported as one; --help prints the usage.
set -u
. "$(cd "$(dirname "$0")" && pwd)/../ktap.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
series=${1:-6.12}
out=$top/build/check/runner
mkdir -p "$out"


ktap_header

help=$("$top/scripts/guest.sh" --help 2>&1)
rc=$?
echo "$help" | head -2 | sed 's/^/# /'
[ "$rc" = 0 ] && [ "$(echo "$help" | grep -c '^usage: guest.sh ')" = 1 ] &&
	[ "$(echo "$help" | grep -c '^  -s ')" = 1 ] && [ "$("$top/scripts/guest.sh" -h)" = "$help" ]
ktap_result $? "guest.sh --help and -h print the usage, -s included, and exit 0"

# The kill limit of the guests that should finish: each takes seconds alone, but make check
# starts them beside every other guest on two cores, where one took more than 180 s (CI).
limit=900

# 1 MiB of random bytes and its hash, both computed in the guest.
"$top/scripts/guest.sh" -q -k "$series" -t "$limit" -o "$out/export" -- \
	'head -c 1048576 /dev/urandom >/fw/out/blob; sha256sum /fw/out/blob | cut -c1-64 >/fw/out/blob.sha256'
rc=$?
want=$(cat "$out/export/files/blob.sha256" 2>/dev/null)
got=$(sha256sum <"$out/export/files/blob" 2>/dev/null | cut -c1-64)
echo "# exit $rc, guest sha256 $want, host sha256 $got"
# Where it went wrong: the console's last lines outside the encoded file.
[ "$rc" = 0 ] || grep -v '^[A-Za-z0-9+/=]*$' "$out/export/console.log" 2>/dev/null | tail -5 |
	sed 's/^/# console: /'
[ "$rc" = 0 ] && [ -n "$want" ] && [ "$want" = "$got" ]
ktap_result $? "a 1 MiB file written in the guest arrives on the host byte for byte"

"$top/scripts/guest.sh" -q -k "$series" -t "$limit" -o "$out/status" -- 'exit 7'
rc=$?
echo "# exit $rc"
[ "$rc" = 7 ]
ktap_result $? "the guest command's exit status is the runner's"

# Counted from the guest's start (guest.sh's started file): the staging before it, copying
# and compressing the userland, took 25 s under make check's load.
rm -f "$out/hang/started"
"$top/scripts/guest.sh" -q -k "$series" -t 12 -o "$out/hang" -- 'sleep 600' 2>/dev/null
rc=$?
took=$(($(date +%s) - $(cat "$out/hang/started" 2>/dev/null || echo 0)))
echo "# exit $rc after ${took}s"
[ "$rc" = 124 ] && [ "$took" -ge 12 ] && [ "$took" -lt 40 ]
ktap_result $? "a hung guest is killed at the timeout (status 124)"

"$top/scripts/guest.sh" -q -k "$series" -t "$limit" -o "$out/panic" -- 'echo c >/proc/sysrq-trigger' 2>/dev/null
rc=$?
echo "# exit $rc"
[ "$rc" = 125 ] && grep -q "Kernel panic" "$out/panic/console.log"
ktap_result $? "a kernel panic is reported (status 125), not taken for success"

# -I: the clock counts instructions, so the same calls measure the same, run
# after run, and a traced call measures more than an untraced one. The loop
# runs with interrupts on, so a run also counts the timer ticks (and what
# softirq work they bring) that land in it: 20000 untraced calls are only
# ~260000 instructions, where one tick is a few per cent, and CI once saw
# that. Two million calls (~26 ms of guest clock) hold several ticks each,
# so the runs differ by a fraction of a tick's share. A first run, discarded, takes the one-off
# work of the first calls (under load one measured 0.55 % above the two after it).
"$top/scripts/guest.sh" -q -I -k "$series" -t "$limit" -o "$out/icount" -- \
	'insmod /fw/ko/fw_bench.ko && B=/sys/kernel/debug/fw_bench &&
	 echo 2000000 >$B/run &&
	 for i in 1 2 3; do echo 2000000 >$B/run; cut -d" " -f3 $B/run; done >/fw/out/untraced &&
	 echo nop >$B/probe && echo 200000 >$B/run && cut -d" " -f3 $B/run >/fw/out/nop'
rc=$?
set -- $(cat "$out/icount/files/untraced" 2>/dev/null) x x x
nop=$(cat "$out/icount/files/nop" 2>/dev/null)
echo "# exit $rc, untraced x1000: $1 $2 $3, nop_ops x1000: $nop"
[ "$rc" = 0 ] && [ "$1" != x ] && [ "$3" != x ] && [ -n "$nop" ] &&
	awk -v a="$1" -v b="$2" -v c="$3" -v nop="$nop" 'BEGIN {
		lo = a; hi = a
		if (b < lo) lo = b; if (c < lo) lo = c
		if (b > hi) hi = b; if (c > hi) hi = c
		exit !(hi - lo <= lo / 200 && nop > hi * 2) }'
ktap_result $? "under -I three runs of the same calls agree within 0.5% and tracing costs more"

ktap_done
