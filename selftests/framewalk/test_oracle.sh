#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: on real kernel functions (vfs_read, do_sys_openat2, vfs_write, and hrtimer_interrupt on the IRQ stack) every chain equals the kernel unwinder's trace of the same call, frame for frame, at full depth and at depth 4
# requires: framewalk.ko, fw_oracle.ko, tracefs, debugfs
. "$(dirname "$0")/fw_lib.sh"
FUNCS="vfs_read do_sys_openat2 vfs_write hrtimer_interrupt"
fw_test_begin 9
list=$(echo $FUNCS | tr ' ' ,)

workload() {
	for i in 1 2 3 4 5 6 7 8 9 10; do
		fw_read_file
		ls / >/dev/null
		echo "$i" >/tmp/fw_oracle_w
		usleep 20000
	done
}

# compare_at DEPTH: record both views of the same calls and compare each function.
compare_at() {
	depth=$1
	fw_trace_reset
	# The oracle is registered last so that ftrace calls it first (fw_match.awk).
	insmod "$FW_KO_DIR/framewalk.ko" filter="$list" depth="$depth" || ktap_fail "insmod framewalk.ko failed"
	insmod "$FW_KO_DIR/fw_oracle.ko" funcs="$list" || ktap_fail "insmod fw_oracle.ko failed"
	# Both views start at the same instant: no hit is seen by only one.
	echo 0 >"$TRACEFS/tracing_on"
	echo 1 >"$TRACEFS/events/framewalk/chain/enable"
	echo 1 >"$TRACEFS/events/fw_oracle/stack/enable"
	echo >"$TRACEFS/trace"
	echo 1 >"$TRACEFS/tracing_on"
	workload
	echo 0 >"$TRACEFS/tracing_on"
	# Per CPU, so the two events of one call stay next to each other.
	for cpu in "$TRACEFS"/per_cpu/cpu*; do
		fw_trace_to_match <"$cpu/trace" >/tmp/fw_match_in
		awk -v maxdepth="$depth" -f ./fw_match.awk /tmp/fw_match_in
	done >/tmp/fw_match_out
	echo 0 >"$TRACEFS/events/framewalk/chain/enable"
	echo 0 >"$TRACEFS/events/fw_oracle/stack/enable"
	rmmod fw_oracle
	rmmod framewalk
	grep '^#' /tmp/fw_match_out
	for fn in $FUNCS; do
		set -- $(awk -v f="$fn" '$1 == "RESULT" && $2 == f { g += $3; b += $4; l += $5 }
			END { print g + 0, b + 0, l + 0 }' /tmp/fw_match_out)
		ktap_note "$fn depth=$depth: $1 equal, $2 different, $3 unpaired"
		ktap_expect "$fn: at least 3 calls compared" "$1" -ge 3
		ktap_expect "$fn: no call differs" "$2" = 0
		ktap_expect "$fn: at most 2 calls unpaired (cut by tracing_on=0)" "$3" -le 2
		ktap_case_end "$fn: framewalk equals the kernel unwinder (depth $depth)"
	done
}

compare_at 64
compare_at 4
trouble=$(fw_dmesg_trouble)
ktap_expect "no kernel warnings: $trouble" -z "$trouble"
ktap_case_end "no kernel warnings"
ktap_exit
