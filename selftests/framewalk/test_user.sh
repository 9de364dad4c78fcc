#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: user=N appends the user frames behind each chain: equal frame for frame to perf's own --call-graph fp user callchain at the same framewalk:chain_user events, for programs with and without frame pointers, static and dynamic, through a leaf svc and glibc's wrapper, in a thread, after an exec and past the depth; a corrupted user x29 (kernel address, unaligned, a cycle, unmapped, not resident) ends them with its stop reason and no warning; user=0 walks none and writes chain, user=N chain_user; aggregation folds them before the kernel's frames
# requires: framewalk.ko, perf (linux-perf), fw_user_* (build-guest-bin.sh), tracefs, debugfs
. "$(dirname "$0")/fw_lib.sh"
fw_test_begin 9
FN=__arm64_sys_getpriority
MATCH=$(dirname "$0")/fw_user_match.awk

# A kernel without perf events (every kernel make check boots has them) skips the
# oracle's cases, saying so, and what tracefs shows is still checked.
oracle=1
if ! [ -e /proc/sys/kernel/perf_event_paranoid ]; then
	oracle=0
	ktap_note "no perf events in this kernel (CONFIG_PERF_EVENTS): no perf oracle"
elif ! command -v perf >/dev/null; then
	ktap_fail "no perf in the guest (scripts/fetch-guest-tool.sh -l linux-perf perf, guest.sh -u)"
	ktap_exit
fi
insmod "$FW_KO_DIR/framewalk.ko" filter=$FN depth=8 || ktap_fail "insmod failed"

# events_of PROG ARGS...: PROG run with both of framewalk's events enabled; the trace kept.
events_of() {
	fw_trace_reset
	echo 1 >"$TRACEFS/events/framewalk/enable"
	"$@" >/tmp/fw_user.out
	echo 0 >"$TRACEFS/events/framewalk/enable"
}

# user=0, the default: a hit writes chain, which has no user field, even where
# chain_user is enabled too.
ktap_expect "user is 0 by default" "$(cat /sys/module/framewalk/parameters/user)" = 0
events_of fw_user_fp chain
ktap_expect "user=0: the chain event" -n "$(grep -m1 " chain: $FN " "$TRACEFS/trace")"
ktap_expect "user=0: no chain_user event" -z "$(grep -m1 " chain_user: " "$TRACEFS/trace")"
ktap_expect "user=0: chain has no user field" -z "$(grep -m1 " chain: .*nr_user" "$TRACEFS/trace")"
ktap_case_end "user=0 walks no user frame"

# trace_line PROG ARGS...: the user fields of PROG's event, from tracefs.
trace_line() {
	events_of "$@"
	grep -m1 " chain_user: $FN " "$TRACEFS/trace" | sed 's/.* nr_user=/nr_user=/'
}

# The end of a case whose checks are all perf's: skipped where perf cannot run.
oracle_case_end() {
	if [ $oracle = 1 ]; then
		ktap_case_end "$1"
	else
		ktap_result skip "$1" "no perf events in this kernel"
	fi
}

# perf_vs PROG ARGS...: record PROG under perf, compare every event; sets $equal, $differ,
# $syms (perf's names of the last event's frames) and $stops. Fails without perf events:
# the caller then leaves out what rests on perf.
perf_vs() {
	[ $oracle = 1 ] || return 1
	perf record -q -e framewalk:chain_user --call-graph fp -o /tmp/fw_user.data -- "$@" \
		>/tmp/fw_user.out 2>/tmp/fw_user.err
	perf script -i /tmp/fw_user.data -F tid,ip,sym,dso,trace 2>/dev/null >/tmp/fw_user.script
	cat /tmp/fw_user.out /tmp/fw_user.script | awk -f "$MATCH" >/tmp/fw_user.cmp
	grep '^#' /tmp/fw_user.cmp
	grep -q ' nr_user=' /tmp/fw_user.script || sed 's/^/# perf: /' /tmp/fw_user.err
	equal=$(grep -c '^EVENT equal' /tmp/fw_user.cmp)
	differ=$(grep -c '^EVENT differ' /tmp/fw_user.cmp)
	syms=$(awk '$1 == "EVENT" { $1 = $2 = $3 = $4 = $5 = ""; s = $0 } END { print s }' \
		/tmp/fw_user.cmp)
	stops=$(awk '$1 == "EVENT" { print $5 }' /tmp/fw_user.cmp | sort -u | tr '\n' ' ')
	ktap_note "$*: $equal equal, $differ different; stops $stops; frames:$syms"
	ktap_expect "$*: one event at least" "$equal" -ge 1
	ktap_expect "$*: no event differs from perf" "$differ" = 0
}

# The known chain of fw_user_prog, outermost last: NAMES must appear in this order.
in_order() {
	echo " $syms " | awk -v want="$1" '{
		n = split(want, w, " "); j = 1
		for (i = 1; i <= NF && j <= n; i++) if ($i == w[j]) j++
		exit !(j > n) }'
}

echo 16 >/sys/module/framewalk/parameters/user || ktap_fail "user=16 refused at run time"
for prog in fw_user_fp fw_user_fp_static; do
	for mode in chain libc thread exec; do
		perf_vs $prog $mode || continue
		ktap_expect "$prog $mode: the chain ended at its end" "$stops" = "user_end "
		case $mode in
		libc) want="fw_u_inner fw_u_mid fw_u_outer main _start" ;;
		thread) want="fw_u_leaf fw_u_inner fw_u_mid fw_u_outer fw_u_thread" ;;
		*) want="fw_u_leaf fw_u_inner fw_u_mid fw_u_outer main _start" ;;
		esac
		in_order "$want" || ktap_fail "$prog $mode: frames are not $want in order"
	done
	# The leaf's caller is only in lr: framewalk's user_lr frame is that very lr.
	line=$(trace_line $prog chain)
	lr=$(awk '$1 == "lr" { print $2 }' /tmp/fw_user.out)
	ktap_note "$line"
	ktap_expect "$prog: user[1] is the leaf's lr $lr" \
		-n "$(echo "$line" | grep "user_stop=user_end user_lr=1 user={0x[0-9a-f]*,$lr,")"
	ktap_case_end "$prog: user frames equal perf's, the leaf's caller from lr"
done

# Without frame records the chain is short, never invented: the frames found are the
# true chain's, in order, and perf's.
for prog in fw_user_nofp fw_user_nofp_static; do
	perf_vs $prog libc || continue
	set -- $syms
	ktap_expect "$prog: fewer frames than the true chain (7)" "$#" -lt 7
	echo " $syms " | grep -qE ' (fw_u_mid|fw_u_outer|main) ' &&
		ktap_fail "$prog: a frame of a function without a record: $syms"
	in_order "fw_u_inner _start" || ktap_fail "$prog: not the true chain's frames: $syms"
done
oracle_case_end "no frame pointers: a short chain of true frames, as perf's"

# Past the depth: user=16 frames of a 40-deep recursion, the first 16 of perf's.
if perf_vs fw_user_fp deep 40; then
	ktap_expect "deep 40: user_depth" "$stops" = "user_depth "
	set -- $syms
	ktap_expect "deep 40: 16 frames compared, the lr among them" "$#" = 16
fi
line=$(trace_line fw_user_fp deep 40)
ktap_expect "deep 40: 16 frames in tracefs, user_depth" \
	-n "$(echo "$line" | grep "nr_user=16 user_stop=user_depth user_lr=1 ")"
ktap_case_end "a recursion past user=N stops with user_depth"

# Hostile x29: the pc and lr, the frames before the bad record, then its stop.
bad() {
	perf_vs fw_user_fp bad "$1" && ktap_expect "bad $1: stop $2" "$stops" = "$2 "
	line=$(trace_line fw_user_fp bad "$1")
	ktap_expect "bad $1: $3 frames in tracefs, user_stop=$2" \
		-n "$(echo "$line" | grep "nr_user=$3 user_stop=$2 user_lr=1 ")"
	trouble=$(fw_dmesg_trouble)
	ktap_expect "bad $1: no kernel warnings: $trouble" -z "$trouble"
}
bad kernel user_bad_fp 2
bad unaligned user_bad_fp 2
bad cycle user_not_increasing 3
bad unmapped user_fault 2
bad absent user_fault 2
ktap_case_end "a corrupted user x29 ends the walk with its stop, no fault taken, no warning"

# Aggregation: the user frames, marked, before the kernel's, one folded stack.
echo 1 >"$DEBUGFS/framewalk/folded"
echo 1 >/sys/module/framewalk/parameters/aggregate
fw_user_fp chain >/dev/null
echo 0 >/sys/module/framewalk/parameters/aggregate
folded=$(grep "$FN" "$DEBUGFS/framewalk/folded")
ktap_note "$folded"
ktap_expect "folded: 8 user frames _[u], then the kernel's, up to $FN" \
	-n "$(echo "$folded" | grep "^\(0x[0-9a-f]*_\[u\];\)\{8\}.*el0_svc.*;$FN 1$")"
chains=$(grep "_\[u\]" "$DEBUGFS/framewalk/chains")
ktap_note "$chains"
ktap_expect "chains: rooted at the user stop, then the kernel's" \
	-n "$(echo "$chains" | grep "^\[user_end\];\(0x[0-9a-f]*_\[u\];\)\{8\}\[chain_end\];")"
ktap_case_end "aggregation folds user and kernel frames into one stack"

# Counters, and user=0 again at run time: no more user walks.
ktap_expect "stop.user_end counted" "$(fw_stat stop.user_end)" -gt 0
ktap_expect "stop.user_fault counted" "$(fw_stat stop.user_fault)" -ge 2
walks=$(fw_stat walks)
# user_stops: the user stops counted since the last clear of the counters.
user_stops() {
	awk '$1 ~ /^stop\.user_/ && $1 != "stop.user_off" { s += $2 } END { print s + 0 }' \
		"$FW_STATS"
}
# user above 0 and only chain enabled: chain is written, and no user frame is walked.
echo >"$FW_STATS"
fw_trace_reset
echo 1 >"$TRACEFS/events/framewalk/chain/enable"
fw_user_fp chain >/dev/null
echo 0 >"$TRACEFS/events/framewalk/chain/enable"
ktap_expect "user=16, chain alone: chain written" -n "$(grep -m1 " chain: $FN " "$TRACEFS/trace")"
ktap_expect "user=16, chain alone: no user walk" "$(user_stops)" = 0
echo 0 >/sys/module/framewalk/parameters/user
echo >"$FW_STATS"
events_of fw_user_fp chain
ktap_expect "user=0 at run time: chain" -n "$(grep " chain: $FN " "$TRACEFS/trace")"
ktap_expect "user=0 at run time: no chain_user" -z "$(grep " chain_user: " "$TRACEFS/trace")"
ktap_expect "user=0 at run time: no user stop counted" "$(user_stops)" = 0
echo 65 >/sys/module/framewalk/parameters/user 2>/dev/null &&
	ktap_fail "user=65 accepted"
ktap_note "$walks walks before"
ktap_case_end "user is writable at run time; the counters count the user stops"
rmmod framewalk
trouble=$(fw_dmesg_trouble)
ktap_expect "no kernel warnings: $trouble" -z "$trouble"
ktap_case_end "no kernel warnings"
ktap_exit
