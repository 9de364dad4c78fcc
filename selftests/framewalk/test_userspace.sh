#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: trace-cmd records framewalk events; the framewalk CLI records, reports and streams them and fails clearly without the module; the recordings go back to the host for trace-cmd report with the plugin
# requires: framewalk.ko, fw_test_chain.ko, trace-cmd, framewalk (CLI), tracefs, debugfs
. "$(dirname "$0")/fw_lib.sh"
fw_test_begin 5
OUT=${FW_OUT:-/fw/out}
mkdir -p "$OUT"
TRIGGER="echo write >$DEBUGFS/framewalk_test/trigger; echo timer >$DEBUGFS/framewalk_test/trigger"

insmod "$FW_KO_DIR/fw_test_chain.ko" || ktap_fail "insmod fw_test_chain.ko failed"

# The CLI without the module: a clear error, no recording.
msg=$(framewalk record -f fw_test_leaf -o /tmp/none.rec -- true 2>&1)
rc=$?
ktap_note "$msg"
ktap_expect "exit status 1" "$rc" = 1
ktap_expect "says the module is not loaded" -n "$(echo "$msg" | grep 'module is not loaded')"
msg=$(framewalk record -k "$FW_KO_DIR/framewalk.ko" -f fw_no_such_fn -o /tmp/none.rec -- true 2>&1)
ktap_note "$msg"
ktap_expect "a bad filter at load is refused" -n "$(echo "$msg" | grep 'cannot load')"
ktap_case_end "framewalk record fails clearly without the module or with a bad filter"

# The CLI loads the module itself (-k) and records the chain in both contexts.
framewalk record -k "$FW_KO_DIR/framewalk.ko" -f fw_test_leaf -d 16 -o "$OUT/fw.rec" -- \
	sh -c "$TRIGGER" 2>/tmp/rec.err
rc=$?
sed 's/^/# /' /tmp/rec.err
ktap_expect "record exits 0" "$rc" = 0
ktap_expect "two chain events recorded" "$(grep -c '^E ' "$OUT/fw.rec")" = 2
ktap_expect "the recording is complete" -n "$(grep '^end 2 ' "$OUT/fw.rec")"
framewalk report "$OUT/fw.rec" >/tmp/report.txt
sed 's/^/# /' /tmp/report.txt | cut -c1-200
ktap_expect "report shows the chain" \
	-n "$(grep 'fw_test_leaf <- fw_test_l5+0x[0-9a-f]* <- fw_test_l4+' /tmp/report.txt)"
ktap_case_end "framewalk record -k loads the module and records, report reads it back"

# The module is loaded now: record reconfigures it at run time.
framewalk record -f vfs_read -d 3 -o /tmp/vfs.rec -- dd if=/proc/version of=/dev/null bs=32 \
	2>/dev/null
ktap_expect "filter changed to vfs_read" "$(cat /sys/module/framewalk/parameters/filter)" = vfs_read
ktap_expect "depth changed to 3" "$(cat /sys/module/framewalk/parameters/depth)" = 3
ktap_expect "vfs_read chains recorded at depth 3" \
	-n "$(framewalk report /tmp/vfs.rec | grep 'vfs_read <- ksys_read+.*\[depth\]')"
ktap_case_end "framewalk record sets filter and depth of a loaded module"

framewalk stream -f fw_test_leaf -d 16 -- sh -c "echo write >$DEBUGFS/framewalk_test/trigger" \
	>/tmp/stream.txt 2>/dev/null
sed 's/^/# /' /tmp/stream.txt | cut -c1-200
ktap_expect "stream printed the chain" \
	-n "$(grep 'fw_test_leaf <- fw_test_l5+0x[0-9a-f]* <- fw_test_l4+' /tmp/stream.txt)"
ktap_case_end "framewalk stream prints chains as they happen"

# trace-cmd, Debian's arm64 build, records the same event for the host's trace-cmd report.
# The pauses let trace-cmd's per-CPU recorders start before the events and
# drain after them: a command of a few milliseconds can be missed entirely.
trace-cmd record -e framewalk:chain -o "$OUT/trace.dat" sh -c "sleep 1; $TRIGGER; sleep 1" \
	>/tmp/tc.log 2>&1
rc=$?
tail -3 /tmp/tc.log | sed 's/^/# /'
ktap_expect "trace-cmd record exits 0" "$rc" = 0
n=$(trace-cmd report -i "$OUT/trace.dat" 2>/dev/null | grep -c ' chain: .*fw_test_leaf')
ktap_expect "trace.dat holds both chain events (trace-cmd report finds $n)" "$n" -ge 2
ktap_case_end "trace-cmd records framewalk:chain"
fw_unload_all
ktap_exit
