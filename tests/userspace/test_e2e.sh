#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# End to end on the host (KTAP): the trace.dat that Debian's trace-cmd recorded
# in the arm64 guest, printed by the host's trace-cmd report with
# plugin_framewalk, and the guest's framewalk recording, read by the host CLI,
# must both show the test module's known chain, run from a write and a timer.
# usage: test_e2e.sh GUEST_FILES_DIR
set -u
. "$(cd "$(dirname "$0")" && pwd)/../ktap.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
files=${1:?usage: test_e2e.sh GUEST_FILES_DIR}
write_chain='fw_test_leaf <- fw_test_l5+0x[0-9a-f]* <- fw_test_l4+0x[0-9a-f]* <- fw_test_l3+0x[0-9a-f]* <- fw_test_l2+0x[0-9a-f]* <- fw_test_l1+0x[0-9a-f]* <- fw_test_trigger_write+0x'
timer_chain='fw_test_leaf <- fw_test_l5+0x[0-9a-f]* <- fw_test_l4+0x[0-9a-f]* <- fw_test_l3+0x[0-9a-f]* <- fw_test_l2+0x[0-9a-f]* <- fw_test_l1+0x[0-9a-f]* <- fw_test_timer_fn+0x'


ktap_header
report=$(TRACEEVENT_PLUGIN_DIR=$top/build/host/plugins trace-cmd report -O framewalk:oneline=1 \
	-i "$files/trace.dat" 2>&1)
echo "$report" | grep fw_test_leaf | cut -c1-220 | sed 's/^/# /'
echo "$report" | grep -q "$write_chain"
ktap_result $? "trace-cmd report with the plugin: the write chain, symbolized"
echo "$report" | grep -q "$timer_chain"
ktap_result $? "trace-cmd report with the plugin: the hard-IRQ timer chain, symbolized"
frames=$(TRACEEVENT_PLUGIN_DIR=$top/build/host/plugins trace-cmd report -i "$files/trace.dat" 2>&1)
echo "$frames" | grep -A2 'fw_test_leaf nr_ancestors=' | head -3 | sed 's/^/# /'
echo "$frames" | grep -A1 'fw_test_leaf nr_ancestors=' | grep -q '^ => fw_test_l5+0x'
ktap_result $? "trace-cmd report with the plugin: one => line per frame by default"

report=$("$top/build/host/framewalk" report "$files/fw.rec" 2>&1)
echo "$report" | grep -q "$write_chain" && echo "$report" | grep -q "$timer_chain"
ktap_result $? "framewalk report on the host reads the guest's recording"
folded=$("$top/build/host/framewalk" folded "$files/fw.rec" 2>&1)
echo "$folded" | sed 's/^/# /' | cut -c1-200
echo "$folded" | grep -q ';fw_test_trigger_write;fw_test_l1;fw_test_l2;fw_test_l3;fw_test_l4;fw_test_l5;fw_test_leaf 1$'
ktap_result $? "framewalk folded: the write chain, outermost first"
"$top/build/host/framewalk" top "$files/fw.rec" | grep -q ' 2 .*fw_test_l5 -> fw_test_leaf$'
ktap_result $? "framewalk top: fw_test_l5 -> fw_test_leaf twice"

# Recorded under a kretprobe on fw_test_l3: fw_test_l2's frame was recovered.
kret_chain='fw_test_l3+0x[0-9a-f]* <- fw_test_l2+0x[0-9a-f]* \[recovered\] <- fw_test_l1+0x[0-9a-f]* <- fw_test_trigger_write+0x'
report=$(TRACEEVENT_PLUGIN_DIR=$top/build/host/plugins trace-cmd report -O framewalk:oneline=1 \
	-i "$files/trace-kret.dat" 2>&1)
echo "$report" | grep fw_test_leaf | cut -c1-220 | sed 's/^/# /'
echo "$report" | grep -q "$kret_chain"
ktap_result $? "trace-cmd report with the plugin: the recovered frame is marked"
"$top/build/host/framewalk" report "$files/fw-kret.rec" 2>&1 | grep -q "$kret_chain"
ktap_result $? "framewalk report on the host: the recovered frame is marked"
ktap_done
