#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: in the kernel, a frame record whose saved frame pointer is misaligned, off the stack, or points back at itself ends the walk with that stop reason after the one good frame; a last record whose saved return address is the kretprobe trampoline, while the task has a kretprobe pending elsewhere, ends it with stop=trampoline tramp=kretprobe, since nothing can recover it; nothing crashes
# requires: framewalk.ko, fw_test_chain.ko, tracefs, debugfs
. "$(dirname "$0")/fw_lib.sh"
fw_test_begin 6

fw_load_with_chain filter=fw_test_target depth=16

# expect_stop KIND STOP [EVENT]: the fake record's saved fp of KIND ends the
# walk with STOP; EVENT, a tracefs event directory, is enabled for the trigger.
expect_stop() {
	fw_trace_reset
	echo 1 >"$TRACEFS/events/framewalk/chain/enable"
	[ -n "${3:-}" ] && echo 1 >"$3/enable"
	echo "$1" >"$T/trigger" || ktap_fail "trigger $1 failed"
	echo 0 >"$TRACEFS/events/framewalk/chain/enable"
	line=$(grep -m1 ' chain: fw_test_target ' "$TRACEFS/trace")
	ktap_note "$line"
	ktap_expect "one frame, then stop=$2" -n "$(echo "$line" | grep "nr_ancestors=1 stop=$2 ")"
	ktap_expect "the frame is the fake record's return address" \
		-n "$(echo "$line" | grep '<- fw_test_bad_chain+0x')"
	ktap_case_end "$1 saved frame pointer: stop=$2"
}

expect_stop misaligned misaligned
expect_stop off_stack off_stack
expect_stop cycle not_increasing
# The trampoline's name before 5.15 had no leading underscores.
tramp=$(awk '$3 == "__kretprobe_trampoline" || $3 == "kretprobe_trampoline" { print $1; exit }' \
	/proc/kallsyms)
# A kretprobe on the trigger's debugfs write handler gives the task a hooked
# return, the only state in which framewalk looks for trampolines.
echo 'r:fw_kret_w fw_test_trigger_write' >"$TRACEFS/kprobe_events" || ktap_fail "r: refused"
expect_stop "tramp $tramp" trampoline "$TRACEFS/events/kprobes/fw_kret_w"
echo 0 >"$TRACEFS/events/kprobes/fw_kret_w/enable"
echo >"$TRACEFS/kprobe_events"
ktap_expect "the event names the trampoline" -n "$(echo "$line" | grep 'tramp=kretprobe recovered=0x0 ')"
ktap_expect "the last frame is the trampoline" -n "$(echo "$line" | grep "ancestors={0x$(echo "$tramp" | sed 's/^0*//')}")"
ktap_case_end "an unrecoverable trampoline is named in the event"
fw_unload_all
trouble=$(fw_dmesg_trouble)
ktap_expect "no kernel warnings: $trouble" -z "$trouble"
ktap_case_end "no kernel warnings"
ktap_exit
