#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: framewalk alone (6.12 calls its ops directly) under function_graph on ksys_read and under a kretprobe on ksys_read: the vfs_read chain is the one without them, its frame 0 marked recovered; the recovery parameter says what the kernel recovers
# requires: framewalk.ko, tracefs, debugfs, function_graph tracer, kprobe_events
. "$(dirname "$0")/fw_lib.sh"
fw_test_begin 4

# framewalk writes into its own instance, away from the tracers under test.
I=$TRACEFS/instances/fw_tramp

# One vfs_read chain under the current tracing setup, as "stop recovered ancestors".
vfs_read_chain() {
	echo >"$I/trace"
	echo 1 >"$I/tracing_on"
	fw_read_file
	echo 0 >"$I/tracing_on"
	grep ' chain: vfs_read ' "$I/trace" | grep -m1 ' dd-' |
		sed 's/.* stop=\([a-z_]*\) .*recovered=\(0x[0-9a-f]*\) .*ancestors={\([^}]*\)}.*/\1 \2 \3/'
}

insmod "$FW_KO_DIR/framewalk.ko" filter=vfs_read depth=16 instance=fw_tramp ||
	ktap_fail "insmod failed"
ktap_expect "instance= enabled the event there" "$(cat "$I/events/framewalk/chain/enable")" = 1
plain=$(vfs_read_chain)
ktap_note "plain: $plain"
ktap_expect "the walk did not stop early without a return hook" "${plain%% *}" = chain_end
ktap_expect "nothing recovered without a return hook" "$(echo "$plain" | cut -d' ' -f2)" = 0x0
# The chain with frame 0 (the parent ksys_read's saved return address) marked.
marked=$(echo "$plain" | sed 's/ 0x0 / 0x1 /')

# The module tests at load which trampolines this kernel's unwinder sees behind; what is
# known of arm64's: 5.10 recovers function_graph only, 6.1 to 7.x kretprobes too (7.x
# without the Kconfig symbol that said so).
recovery=$(cat /sys/module/framewalk/parameters/recovery)
ktap_note "recovery=$recovery on $(uname -r)"
case $(uname -r) in
5.10.*) ktap_expect "graph recovered, not kretprobe" "$recovery" = graph ;;
6.* | 7.*) ktap_expect "graph and kretprobe recovered" "$recovery" = graph,kretprobe ;;
esac
ktap_case_end "recovery parameter tells what this kernel recovers"

echo ksys_read >"$TRACEFS/set_ftrace_filter"
echo function_graph >"$TRACEFS/current_tracer"
graphed=$(vfs_read_chain)
echo nop >"$TRACEFS/current_tracer"
echo >"$TRACEFS/set_ftrace_filter"
ktap_note "under function_graph on ksys_read: $graphed"
ktap_expect "the real return address is recovered and marked, the chain is unchanged" \
	"$graphed" = "$marked"
ktap_case_end "function graph tracer's return_to_handler is seen behind"

echo 'r:fw_kret ksys_read' >"$TRACEFS/kprobe_events"
echo 1 >"$TRACEFS/events/kprobes/fw_kret/enable"
kret=$(vfs_read_chain)
echo 0 >"$TRACEFS/events/kprobes/fw_kret/enable"
echo >"$TRACEFS/kprobe_events"
ktap_note "under a kretprobe on ksys_read: $kret"
if echo ",$recovery," | grep -q ',kretprobe,'; then
	ktap_expect "the real return address is recovered and marked, the chain is unchanged" \
		"$kret" = "$marked"
else
	# The kernel's unwinder cannot see behind it: the chain ends there, saying so.
	ktap_expect "the chain ends at the trampoline, nothing marked" \
		"$(echo "$kret" | cut -d' ' -f1-2)" = "trampoline 0x0"
fi
ktap_case_end "kretprobe trampoline is seen behind"

fw_unload_all
rmdir "$I"
trouble=$(fw_dmesg_trouble)
ktap_expect "no kernel warnings: $trouble" -z "$trouble"
ktap_case_end "no kernel warnings"
ktap_exit
