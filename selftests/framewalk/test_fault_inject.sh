#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: each allocation framewalk makes, failed once (fail-nth, only where framewalk's code is on the stack): at load (latency mode's exit hooks included), at each parameter write (a filter change re-hooks the returns), at each read of its debugfs files; each ends in a clean refusal or a counted drop: the module still works and unloads, kmemleak finds nothing, no kernel warning
# requires: framewalk.ko, debugfs, failslab and fail_page_alloc with the stack-trace filter, kmemleak (the 6.12-debug kernel)
. "$(dirname "$0")/fw_lib.sh"
fw_require_root
for f in failslab/require-start fail_page_alloc/require-start; do
	if ! [ -w "$DEBUGFS/$f" ]; then
		echo "# SKIP: no $DEBUGFS/$f on $(uname -r) (CONFIG_FAILSLAB, CONFIG_FAIL_PAGE_ALLOC, CONFIG_FAULT_INJECTION_STACKTRACE_FILTER)"
		exit $KSFT_SKIP
	fi
done
if ! [ -w "$KMEMLEAK" ]; then
	echo "# SKIP: no kmemleak on $(uname -r) (CONFIG_DEBUG_KMEMLEAK, debugfs)"
	exit $KSFT_SKIP
fi
fw_test_begin 6
fw_kmemleak_scan
fw_kmemleak_relay
KO=$FW_KO_DIR/framewalk.ko
P=/sys/module/framewalk/parameters
# A parameter list that makes the load allocate all it can: pattern lists, pid lists,
# aggregation tables.
LOAD="filter=vfs_read,ksys_read notrace=vfs_write pid=1,2 notrace_pid=3 aggregate=1 user=4 latency=1"
# Most points one case may meet: a count that does not end means the window is wrong.
MAX=400

# What the kernel said since the mark that a warning or a bug says. The reports of the
# failures themselves (warn_alloc's "page allocation failure" and "vmalloc error", each with
# a call trace) are what injecting means and say neither.
trouble() {
	dmesg | tail -n +$((fw_dmesg_base + 1)) |
		grep -E "WARNING:|BUG:|Oops|Unable to handle|lockdep|RCU|refcount_t" || true
}

# The window: framewalk's code, wherever the next load puts it.
insmod "$KO" filter=vfs_read || ktap_fail "insmod framewalk.ko failed"
window=$(fw_fail_window framewalk) || ktap_fail "no fault injection window"
rmmod framewalk
ktap_note "fault injection where the stack holds an address in $window"

# inject WHAT COMMAND...: run COMMAND with FW_FAIL_NTH=1, 2, ... until the Nth point is not
# reached; COMMAND prints "injected" or "not reached" last, and exits 0 when it succeeded.
# Sets $points (points met) and $refused (runs that failed).
inject() {
	what=$1
	shift
	n=1
	refused=0
	while [ $n -le $MAX ]; do
		out=$(FW_FAIL_NTH=$n "$@" 2>&1)
		rc=$?
		case $out in
		*"not reached")
			# The run with nothing failed: it must succeed, and be undone too.
			[ $rc = 0 ] || ktap_fail "$what: failed with no failure injected: $out"
			after_each "$n" "$rc"
			break
			;;
		*injected) ;;
		*) ktap_fail "$what: fail-nth $n: no answer: $out"; return ;;
		esac
		[ $rc = 0 ] || refused=$((refused + 1))
		after_each "$n" "$rc" || return
		n=$((n + 1))
	done
	points=$((n - 1))
	[ $n -le $MAX ] || ktap_fail "$what: still injecting at fail-nth $MAX"
	ktap_note "$what: $points allocations failed one at a time, $refused refused"
}

# A load: refused, or loaded and working; nothing left either way.
load() {
	fw_insmod "$KO" $LOAD
}
load_after() {
	if [ "$2" = 0 ]; then
		[ "$(cat $P/filter)" = "vfs_read,ksys_read" ] ||
			ktap_fail "load with fail-nth $1 accepted, filter is '$(cat $P/filter)'"
		# Accepted despite the failure: ftrace should call it at both functions. A
		# known kernel defect loses one (6.12's ftrace_set_hash() takes
		# match_records()' -ENOMEM for a match, so ftrace_set_filter() returns 0
		# with the function left out): counted and said, see framewalk.rst.
		[ "$(grep -c '^\(vfs_read\|ksys_read\) ' "$TRACEFS/enabled_functions")" = 2 ] ||
			partial="$partial $1"
		rmmod framewalk || { ktap_fail "rmmod after load with fail-nth $1"; return 1; }
	elif [ -d /sys/module/framewalk ]; then
		ktap_fail "a refused load with fail-nth $1 left /sys/module/framewalk"
		return 1
	fi
	# Latency mode's exit hooks go with the module, loaded or refused.
	if [ -s "$DEBUGFS/kprobes/list" ]; then
		ktap_fail "a load with fail-nth $1 left kprobes: $(head -2 "$DEBUGFS/kprobes/list")"
		return 1
	fi
}

# check_clean WHAT: no leak, no warning since the case began, framewalk still unloads.
check_clean() {
	fw_kmemleak_scan
	if [ -n "$(cat "$KMEMLEAK")" ]; then
		head -n 24 "$KMEMLEAK" | sed 's/^/# /'
		ktap_fail "$1: kmemleak reports"
	fi
	fw_kmemleak_relay
	t=$(trouble)
	[ -z "$t" ] || { echo "$t" | head -n 12 | sed 's/^/# /'; ktap_fail "$1: kernel warnings"; }
}

after_each() { load_after "$@"; }
partial=
inject "load ($LOAD)" load
[ -z "$partial" ] || ktap_note "loads taken with a function left out by ftrace (the kernel's ENOMEM lost): fail-nth$partial"
[ "${points:-0}" -ge 5 ] || ktap_fail "the load met ${points:-0} injection points: is the window framewalk's?"
[ "$refused" -ge 1 ] || ktap_fail "no load was refused"
check_clean "load"
ktap_case_end "load: each allocation failed once, each load refused cleanly or working"

# Parameter writes on a loaded module: a failed write keeps the value in force.
# armed CMD...: CMD, a shell function (its writes and reads are this task's), in a subshell
# with the task's fail-nth armed to $FW_FAIL_NTH; says last, as fw_insmod does, whether the
# failure was injected; CMD's status.
armed() {
	(
		echo "$FW_FAIL_NTH" >/proc/thread-self/fail-nth
		"$@"
		rc=$?
		read -r left </proc/thread-self/fail-nth
		echo 0 >/proc/thread-self/fail-nth
		[ "$left" = 0 ] && echo injected || echo "not reached"
		exit $rc
	)
}
set_param() { echo "$2" >"$P/$1"; }
read_all() { while read -r line; do :; done <"$1"; }
fw_dmesg_mark
fw_insmod "$KO" $LOAD || ktap_fail "insmod $LOAD failed"
for pv in "filter ksys_write,vfs_readv" "notrace vfs_readv" "pid 1,2,3" "notrace_pid 4,5"; do
	name=${pv%% *}
	value=${pv#* }
	# A filter write re-hooks latency's returns (fw_lat_prepare()); a notrace write takes
	# the same path, so it runs with latency off: half the debug kernel's time for it.
	[ "$name" = notrace ] && echo 0 >"$P/latency"
	before=$(cat "$P/$name")
	param_after() {
		now=$(cat "$P/$name")
		if [ "$2" != 0 ] && [ "$now" != "$before" ]; then
			ktap_fail "$name: a write refused at fail-nth $1 left '$now', not '$before'"
			return 1
		fi
		# Taken despite the failure (a fallback): taken whole.
		if [ "$2" = 0 ] && [ "$now" != "$value" ]; then
			ktap_fail "$name: a write taken at fail-nth $1 left '$now', not '$value'"
			return 1
		fi
		# Put the old value back for the next try.
		[ "$2" = 0 ] && echo "$before" >"$P/$name"
		return 0
	}
	after_each() { param_after "$@"; }
	inject "write $name=$value" armed set_param "$name" "$value"
	[ "$points" -ge 1 ] || ktap_fail "write $name met no injection point"
done
check_clean "parameter writes"
ktap_case_end "parameter writes: each allocation failed once, the old value kept"

# Reads of the debugfs files that allocate a snapshot: -ENOMEM, then a good read.
after_each() { :; }
for f in stats folded chains; do
	inject "read $f" armed read_all "$DEBUGFS/framewalk/$f"
	[ "$points" -ge 1 ] || ktap_fail "reading $f met no injection point"
	cat "$DEBUGFS/framewalk/$f" >/dev/null || ktap_fail "$f unreadable after the failures"
done
check_clean "reads"
ktap_case_end "reads of stats, folded, chains: each allocation failed once, then read"

# The module still traces after all of it, and unloads.
echo vfs_read >"$P/filter"
echo >"$P/pid"
echo >"$P/notrace_pid"
h0=$(fw_stat hits)
head -c 1 /proc/version >/dev/null
h1=$(fw_stat hits)
ktap_expect "hits counted after the failures ($h0 -> $h1)" "${h1:-0}" -gt "${h0:-0}"
ktap_case_end "framewalk traces after the injected failures"
rmmod framewalk || ktap_fail "rmmod framewalk failed"
ktap_expect "framewalk unloaded" ! -d /sys/module/framewalk
ktap_case_end "framewalk unloads after the injected failures"

fw_fail_window off || ktap_fail "fault injection defaults not restored"
check_clean "the whole test"
ktap_case_end "kmemleak and the kernel log clean at the end, defaults restored"
ktap_exit
