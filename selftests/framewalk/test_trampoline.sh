#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: return trampolines in the chain: under the function graph tracer the real return address is recovered where the kernel exposes the graph return stack (6.1) and the walk stops at return_to_handler elsewhere; a kretprobe's trampoline always ends the walk, marked
# requires: framewalk.ko, tracefs, debugfs, function_graph tracer, kprobe_events
. "$(dirname "$0")/fw_lib.sh"
fw_test_begin 3

ksym() {
	awk -v s="$1" '$3 == s { print $1; exit }' /proc/kallsyms | sed 's/^0*//'
}

# framewalk writes into its own instance, away from the tracers under test.
I=$TRACEFS/instances/fw_tramp

# One vfs_read chain under the current tracing setup, as "stop ancestors".
vfs_read_chain() {
	echo >"$I/trace"
	echo 1 >"$I/tracing_on"
	fw_read_file
	echo 0 >"$I/tracing_on"
	grep ' chain: vfs_read ' "$I/trace" | grep -m1 ' dd-' |
		sed 's/.* stop=\([a-z_]*\) .*ancestors={\([^}]*\)}.*/\1 \2/'
}

insmod "$FW_KO_DIR/framewalk.ko" filter=vfs_read depth=16 instance=fw_tramp ||
	ktap_fail "insmod failed"
ktap_expect "instance= enabled the event there" "$(cat "$I/events/framewalk/chain/enable")" = 1
plain=$(vfs_read_chain)
ktap_note "plain: $plain"

echo ksys_read >"$TRACEFS/set_ftrace_filter"
echo function_graph >"$TRACEFS/current_tracer"
graphed=$(vfs_read_chain)
echo nop >"$TRACEFS/current_tracer"
echo >"$TRACEFS/set_ftrace_filter"
ktap_note "under function_graph on ksys_read: $graphed"
rth=$(ksym return_to_handler)
# The module says which behaviour this kernel's headers allow; 6.1's expose
# the graph return stack, 6.8 and later keep it private.
recovery=$(cat /sys/module/framewalk/parameters/graph_recovery)
ktap_note "graph_recovery=$recovery on $(uname -r)"
# Pinned where known, so a detection that broke cannot pass as the other case.
case $(uname -r) in
6.1.*) ktap_expect "6.1 exposes the graph return stack" "$recovery" = Y ;;
6.12.*) ktap_expect "6.12 keeps the graph return stack private" "$recovery" = N ;;
esac
case $recovery in
Y)
	ktap_expect "the real return address is recovered, the chain is unchanged" \
		"$graphed" = "$plain"
	;;
*)
	ktap_expect "stop=trampoline" "${graphed%% *}" = trampoline
	last=$(echo "$graphed" | sed 's/.*,//; s/^[a-z_]* //; s/^0x//')
	ktap_expect "the last ancestor is return_to_handler ($rth)" "$last" = "$rth"
	;;
esac
ktap_expect "the walk did not stop early without the graph tracer" "${plain%% *}" = chain_end
ktap_case_end "function graph tracer's return_to_handler"

echo 'r:fw_kret ksys_read' >"$TRACEFS/kprobe_events"
echo 1 >"$TRACEFS/events/kprobes/fw_kret/enable"
kret=$(vfs_read_chain)
echo 0 >"$TRACEFS/events/kprobes/fw_kret/enable"
echo >"$TRACEFS/kprobe_events"
ktap_note "under a kretprobe on ksys_read: $kret"
tramp=$(ksym __kretprobe_trampoline)
ktap_expect "stop=trampoline" "${kret%% *}" = trampoline
last=$(echo "$kret" | sed 's/.*,//; s/^[a-z_]* //; s/^0x//')
ktap_expect "the last ancestor is __kretprobe_trampoline ($tramp)" "$last" = "$tramp"
ktap_case_end "kretprobe trampoline ends the walk, marked"

fw_unload_all
rmdir "$I"
trouble=$(fw_dmesg_trouble)
ktap_expect "no kernel warnings: $trouble" -z "$trouble"
ktap_case_end "no kernel warnings"
ktap_exit
