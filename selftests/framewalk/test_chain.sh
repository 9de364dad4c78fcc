#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: a known 6-level noinline chain, run from a file write (task) and from an hrtimer (hard IRQ), is reconstructed exactly and equals the kernel's stack_trace_save() of the same moment, whole and cut at depth 3
# requires: framewalk.ko, fw_test_chain.ko, tracefs, debugfs
. "$(dirname "$0")/fw_lib.sh"
fw_test_begin 4

fw_load_with_chain filter=fw_test_leaf depth=64

# run_chain HOW OUTER [DEPTH]: trigger the chain, then check names and the oracle.
run_chain() {
	how=$1
	outer=$2
	maxdepth=${3:-64}
	fw_trace_reset
	echo 1 >"$TRACEFS/events/framewalk/chain/enable"
	echo "$how" >"$T/trigger" || ktap_fail "trigger '$how' failed"
	echo 0 >"$TRACEFS/events/framewalk/chain/enable"
	line=$(grep ' chain: fw_test_leaf ' "$TRACEFS/trace" | tail -1)
	ktap_note "$line"
	# The oracle: the kernel's own trace, from the return address into fw_test_l5 outward.
	awk 'go { print } / fw_test_leaf\+/ { go = 1 }' "$T/oracle" >/tmp/fw_oracle_syms
	names=$(awk 'NR <= 6 { sub(/\+.*/, "", $2); printf "%s ", $2 }' /tmp/fw_oracle_syms)
	ktap_note "kernel's trace above the leaf: $names"
	ktap_expect "child fw_test_leaf, parent fw_test_l5" \
		-n "$(echo "$line" | grep 'chain: fw_test_leaf \[fw_test_chain\] <- fw_test_l5+0x')"
	ktap_expect "callers are l5 l4 l3 l2 l1 $outer" \
		"$names" = "fw_test_l5 fw_test_l4 fw_test_l3 fw_test_l2 fw_test_l1 $outer "
	{
		echo "O fw_test_leaf 1 $(awk '{ printf "%s ", $1 }' /tmp/fw_oracle_syms | sed 's/0x//g')"
		echo "$line" | fw_trace_to_match
	} >/tmp/fw_match_in
	result=$(awk -v maxdepth="$maxdepth" -f ./fw_match.awk /tmp/fw_match_in)
	echo "$result" | grep '^#'
	ktap_expect "framewalk equals stack_trace_save frame for frame" \
		"$(echo "$result" | grep '^RESULT')" = "RESULT fw_test_leaf 1 0 0 0 0 0 0"
}

run_chain write fw_test_trigger_write
ktap_expect "task context walk ends at the chain end" -n "$(echo "$line" | grep 'stop=chain_end')"
ktap_case_end "file write: chain equals the known functions and the kernel's trace"

run_chain timer fw_test_timer_fn
ktap_case_end "hrtimer in hard IRQ: chain equals the known functions and the kernel's trace"

# depth=3 cuts the same chain after l2 and says so; the frames it keeps are the kernel's.
echo 3 >/sys/module/framewalk/parameters/depth
run_chain write fw_test_trigger_write 3
ktap_expect "three ancestors and stop=depth" -n "$(echo "$line" | grep 'nr_ancestors=3 stop=depth ')"
ktap_case_end "depth limit ends the walk with stop=depth, the frames before it equal the kernel's"

fw_unload_all
trouble=$(fw_dmesg_trouble)
ktap_expect "no kernel warnings: $trouble" -z "$trouble"
ktap_case_end "unload cleanly"
ktap_exit
