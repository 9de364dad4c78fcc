#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: on real kernel functions (vfs_read, do_sys_openat2, vfs_write, and hrtimer_interrupt on the IRQ stack) every chain equals the kernel unwinder's trace of the same call, frame for frame, at full depth and at depth 4, and with latency mode's own exit hooks on all four
# requires: framewalk.ko, fw_oracle.ko, tracefs, debugfs
. "$(dirname "$0")/fw_lib.sh"
FUNCS="vfs_read do_sys_openat2 vfs_write hrtimer_interrupt"
fw_test_begin 13
list=$(echo $FUNCS | tr ' ' ,)

workload() {
	for i in 1 2 3 4 5 6 7 8 9 10; do
		fw_read_file
		ls / >/dev/null
		echo "$i" >/tmp/fw_oracle_w
		usleep 20000
	done
}

# compare_at DEPTH [MODULE-ARGS]: record both views of the same calls and compare each
# function.
compare_at() {
	depth=$1
	args=${2:-}
	fw_trace_reset
	fw_oracle_compare "$TRACEFS" "$list" "$depth" "" "$args"
	for fn in $FUNCS; do
		# This function's mismatches and unpaired hits, beside its own result.
		grep "^# [a-z]* $fn " /tmp/fw_match_out
		set -- $(awk -v f="$fn" '$1 == "RESULT" && $2 == f { g += $3; b += $4; l += $5 }
			END { print g + 0, b + 0, l + 0 }' /tmp/fw_match_out)
		ktap_note "$fn depth=$depth: $1 equal, $2 different, $3 unpaired"
		ktap_expect "$fn: at least 3 calls compared" "$1" -ge 3
		ktap_expect "$fn: no call differs" "$2" = 0
		ktap_expect "$fn: at most 2 calls unpaired (cut by tracing_on=0)" "$3" -le 2
		ktap_case_end "$fn: framewalk equals the kernel unwinder (depth $depth${args:+, $args})"
	done
}

compare_at 64
compare_at 4
# Latency mode's kretprobes hook the returns of all four: each timed call's parent, and
# every chain through another timed call (an interrupt in vfs_read), is behind the
# module's own trampoline. 5.10's unwinder shows the trampoline itself there (recovery
# says so), so the oracle has nothing to compare with.
insmod "$FW_KO_DIR/framewalk.ko" filter=vfs_read
recovery=$(cat /sys/module/framewalk/parameters/recovery)
rmmod framewalk
case ",$recovery," in
*,kretprobe,*) compare_at 64 latency=1 ;;
*)
	for fn in $FUNCS; do
		ktap_result skip "$fn: framewalk equals the kernel unwinder (depth 64, latency=1)" \
			"the kernel's unwinder does not recover kretprobes ($recovery)"
	done
	;;
esac
trouble=$(fw_dmesg_trouble)
ktap_expect "no kernel warnings: $trouble" -z "$trouble"
ktap_case_end "no kernel warnings"
ktap_exit
