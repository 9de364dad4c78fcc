#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: per-CPU statistics add up (per-CPU lines sum to the totals, stop reasons sum to walks), agree with the events in the ring buffer, and reset to zero
# requires: framewalk.ko, tracefs, debugfs
. "$(dirname "$0")/fw_lib.sh"
fw_test_begin 3

insmod "$FW_KO_DIR/framewalk.ko" filter=vfs_read,vfs_write depth=4 || ktap_fail "insmod failed"
echo 1 >"$TRACEFS/events/framewalk/chain/enable"
for i in 1 2 3 4 5 6 7 8 9 10; do
	fw_read_file
done
echo 0 >"$TRACEFS/events/framewalk/chain/enable"
cat "$FW_STATS" | grep -v '^cpu' | sed 's/^/# /'
# The ring buffer is the independent count: one chain line per event written.
lines=$(grep -c ' chain: ' "$TRACEFS/trace")
depth_lines=$(grep -c ' chain: .* stop=depth ' "$TRACEFS/trace")
ktap_note "trace: $lines chain lines, $depth_lines with stop=depth"

bad=$(fw_stats_inconsistencies)
echo "$bad" | sed 's/^/# /'
ktap_expect "statistics are consistent" -z "$bad"
ktap_expect "events were written" "$(fw_stat events)" -gt 0
ktap_expect "events counted as the trace holds them" "$(fw_stat events)" = "$lines"
ktap_case_end "per-CPU lines sum to totals, stop reasons sum to walks, events to the trace"

ktap_expect "depth=4 walks of vfs_read/vfs_write stop at the depth limit" "$(fw_stat stop.depth)" -gt 0
ktap_expect "stop.depth counted as the trace holds it" "$(fw_stat stop.depth)" = "$depth_lines"
ktap_case_end "stop reasons are counted as the trace shows them"

before=$(fw_stat hits)
echo 0 >"$FW_STATS"
# Reading the file back is itself traced: a handful of hits, against the many before.
after=$(fw_stat hits)
ktap_note "hits before reset $before, after $after"
ktap_expect "hits were many before the reset" "$before" -ge 30
ktap_expect "hits near zero after the reset" "$after" -le 8
ktap_case_end "writing the stats file resets it"
fw_unload_all
ktap_exit
