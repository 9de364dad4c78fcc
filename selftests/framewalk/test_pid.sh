#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: pid and notrace_pid choose whose hits are walked, before the walk: a process left out writes no chain and is counted as filtered; bad lists are refused in one line and leave the old list
# requires: framewalk.ko, tracefs, debugfs
. "$(dirname "$0")/fw_lib.sh"
fw_test_begin 4
P=/sys/module/framewalk/parameters

# Two readers that wait for a go file until their pids are named and the event
# is on (a fixed pause was too short under the debug kernel's checks): exec
# keeps the pid $! names. Their polling reads nothing.
GO=/tmp/fw_pid_go
start_readers() {
	rm -f $GO
	sh -c "while [ ! -e $GO ]; do usleep 20000; done
		exec dd if=/dev/zero of=/dev/null bs=32 count=1000 2>/dev/null" &
	reader_a=$!
	sh -c "while [ ! -e $GO ]; do usleep 20000; done
		exec dd if=/dev/zero of=/dev/null bs=32 count=1000 2>/dev/null" &
	reader_b=$!
}

# Chains in the trace written in process $1.
chains_of() {
	grep ' chain: ksys_read <- ' "$TRACEFS/trace" | grep -c -- "-$1 *\["
}

# One readers' run with the event on; $1 and $2 are what pid and notrace_pid are set to
# ("a" and "b" stand for the readers' pids).
run_readers() {
	fw_trace_reset
	echo 0 >"$FW_STATS"
	start_readers
	for p in pid:$1 notrace_pid:$2; do
		v=${p#*:}
		v=$(echo "$v" | sed -e "s/a/$reader_a/" -e "s/b/$reader_b/")
		echo "$v" >"$P/${p%%:*}" || ktap_fail "${p%%:*}='$v' refused"
	done
	echo 1 >"$TRACEFS/events/framewalk/chain/enable"
	: >$GO
	wait
	echo 0 >"$TRACEFS/events/framewalk/chain/enable"
	rm -f $GO
	got_a=$(chains_of "$reader_a")
	got_b=$(chains_of "$reader_b")
	ktap_note "pid='$(cat $P/pid)' notrace_pid='$(cat $P/notrace_pid)':" \
		"chains of a $got_a, of b $got_b; hits $(fw_stat hits) walks $(fw_stat walks)" \
		"filtered $(fw_stat filtered)"
}

insmod "$FW_KO_DIR/framewalk.ko" filter=ksys_read depth=4 || ktap_fail "insmod failed"

run_readers "" ""
ktap_expect "reader a traced" "$got_a" -ge 1000
ktap_expect "reader b traced" "$got_b" -ge 1000
ktap_expect "nothing filtered" "$(fw_stat filtered)" = 0
ktap_case_end "no list: every process's hits are walked"

run_readers "" a
ktap_expect "reader a left out" "$got_a" = 0
ktap_expect "reader b traced" "$got_b" -ge 1000
ktap_expect "a's reads counted as filtered" "$(fw_stat filtered)" -ge 1000
# Hits while the event is off are neither walked nor filtered.
ktap_expect "walks + filtered <= hits" \
	"$(($(fw_stat walks) + $(fw_stat filtered) + $(fw_stat rcu_off)))" -le "$(fw_stat hits)"
ktap_expect "every walk is b's chain in the trace" "$(fw_stat walks)" = "$got_b"
ktap_expect "stats consistent" -z "$(fw_stats_inconsistencies)"
ktap_case_end "notrace_pid: the named process is not walked, and counted as filtered"

run_readers "a,b" b
ktap_expect "reader a traced" "$got_a" -ge 1000
ktap_expect "reader b excluded by notrace_pid over pid" "$got_b" = 0
run_readers b ""
ktap_expect "reader a left out by pid" "$got_a" = 0
ktap_expect "reader b traced" "$got_b" -ge 1000
ktap_case_end "pid: only the named processes are walked; notrace_pid wins over it"

fw_dmesg_mark
echo "12, 34" >"$P/pid" || ktap_fail "pid '12, 34' refused"
ktap_expect "pid reads back as a list" "$(cat $P/pid)" = "12,34"
for bad in 12x 0 -5 "1,,2" 4194305 "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17"; do
	echo "$bad" >"$P/pid" 2>/dev/null && ktap_fail "pid='$bad' was accepted"
done
ktap_expect "pid still 12,34" "$(cat $P/pid)" = "12,34"
n=$(dmesg | tail -n +$((fw_dmesg_base + 1)) | grep -c "framewalk: pid: ")
ktap_expect "one message line per refused write" "$n" = 6
ktap_expect "the bad value is named" \
	-n "$(dmesg | grep "framewalk: pid: '12x' is not a process id (1 to [0-9]*)$")"
echo " " >"$P/pid" || ktap_fail "a blank pid refused"
ktap_expect "a blank pid clears the list" -z "$(cat $P/pid)"
rmmod framewalk
fw_dmesg_mark
if fw_insmod "$FW_KO_DIR/framewalk.ko" filter=ksys_read notrace_pid=abc 2>/dev/null; then
	ktap_fail "insmod notrace_pid=abc was accepted"
	rmmod framewalk
fi
errs=$(dmesg | tail -n +$((fw_dmesg_base + 1)) | grep 'framewalk: ' |
	grep -v -e 'taints kernel' -e 'module verification failed')
ktap_note "$errs"
ktap_expect "load refused in one line naming 'abc'" \
	"$(echo "$errs" | grep -c "notrace_pid: 'abc' is not a process id")" = 1
ktap_case_end "bad lists are refused at load and at run time, each in one line"

fw_unload_all
ktap_exit
