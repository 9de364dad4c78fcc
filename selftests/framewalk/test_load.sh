#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: framewalk.ko loads with a filter on a real kernel function, counts its hits, writes chain events and unloads cleanly
# requires: framewalk.ko, tracefs, debugfs
. "$(dirname "$0")/fw_lib.sh"
fw_test_begin 4

insmod "$FW_KO_DIR/framewalk.ko" filter=ksys_read || ktap_fail "insmod framewalk.ko filter=ksys_read failed"
ktap_expect "framewalk listed in /proc/modules" -n "$(grep '^framewalk ' /proc/modules)"
ktap_expect "filter parameter reads back" "$(cat /sys/module/framewalk/parameters/filter)" = ksys_read
ktap_case_end "load with filter=ksys_read"

# /proc/version is over 64 bytes: each read of it makes at least three read(2) calls.
before=$(fw_stat hits)
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
	fw_read_file
done
after=$(fw_stat hits)
ktap_note "ksys_read hits: $before -> $after"
ktap_expect "hits grew by at least 60 over 20 reads" "$((after - before))" -ge 60
ktap_case_end "hits of ksys_read are counted"

echo 1 >"$TRACEFS/events/framewalk/chain/enable"
fw_read_file
echo 0 >"$TRACEFS/events/framewalk/chain/enable"
line=$(grep -m1 ' chain: ksys_read <- ' "$TRACEFS/trace")
ktap_note "$line"
ktap_expect "a chain event for ksys_read" -n "$line"
ktap_expect "its parent is the read syscall" -n "$(echo "$line" | grep '<- __arm64_sys_read+')"
ktap_case_end "chain events for ksys_read"

rmmod framewalk || ktap_fail "rmmod framewalk failed"
ktap_expect "framewalk gone from /proc/modules" -z "$(grep '^framewalk ' /proc/modules)"
trouble=$(fw_dmesg_trouble)
ktap_expect "no kernel warnings: $trouble" -z "$trouble"
ktap_case_end "unload cleanly"
ktap_exit
