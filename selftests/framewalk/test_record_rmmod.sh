#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: framewalk.ko cannot be unloaded while framewalk record, stream or profile runs: rmmod fails, the recording goes on and ends whole, and rmmod succeeds once it ended; where the recorder cannot keep the module (no debugfs to hold its stats file open), it says so, and an rmmod ends the recording with one line and status 1, the events read before kept in a file that reads as cut short
# requires: framewalk.ko, framewalk (CLI), fw_user_fp (build-guest-bin.sh), tracefs, debugfs
. "$(dirname "$0")/fw_lib.sh"
fw_test_begin 4
# Nothing else in the guest calls getpriority(2): each run of fw_user_fp is one event.
FN=__arm64_sys_getpriority

# wait_events FILE N: until the recorder has drained N events into FILE, or 30 s have passed.
wait_events() {
	i=0
	while [ "$(grep -c '^E ' "$1")" -lt "$2" ] && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

insmod "$FW_KO_DIR/framewalk.ko" filter=$FN depth=8 || ktap_fail "insmod framewalk.ko failed"
framewalk record -q -o /tmp/pin.rec &
pid=$!
fw_wait_recording $pid /tmp/pin.rec
fw_user_fp chain >/dev/null
rmmod framewalk 2>/tmp/rmmod.err
rc=$?
sed 's/^/# /' /tmp/rmmod.err
ktap_expect "rmmod fails while framewalk records" "$rc" != 0
ktap_expect "framewalk.ko is still loaded" -d /sys/module/framewalk
fw_user_fp chain >/dev/null
wait_events /tmp/pin.rec 2
kill -INT $pid
wait $pid
ktap_expect "record exits 0" "$?" = 0
ktap_expect "the events before and after the rmmod are recorded, and the end line" \
	-n "$(grep '^end 2 0$' /tmp/pin.rec)"
rmmod framewalk
ktap_expect "rmmod succeeds once the recording ended" "$?" = 0
ktap_case_end "framewalk.ko stays loaded while framewalk record runs"

# held_while VERB PID: with the module held by framewalk PID (streams, profiles), rmmod
# fails; once PID ended on SIGINT, it succeeds.
held_while() {
	rmmod framewalk 2>/dev/null
	ktap_expect "rmmod fails while framewalk $1" "$?" != 0
	kill -INT $2
	wait $2
	rmmod framewalk
	ktap_expect "rmmod succeeds once the ${1%s} ended" "$?" = 0
}

insmod "$FW_KO_DIR/framewalk.ko" filter=$FN depth=8 || ktap_fail "insmod framewalk.ko failed"
framewalk stream -q >/dev/null &
pid=$!
fw_wait_recording $pid
held_while streams $pid
ktap_case_end "framewalk.ko stays loaded while framewalk stream runs"

insmod "$FW_KO_DIR/framewalk.ko" filter=$FN depth=8 || ktap_fail "insmod framewalk.ko failed"
framewalk profile -q -f $FN -d 8 -t 60 >/dev/null 2>&1 &
pid=$!
# Counting on: profile has set the module up and holds it.
i=0
while [ "$(cat /sys/module/framewalk/parameters/aggregate)" != Y ] && [ $i -lt 300 ]; do
	sleep 0.1
	i=$((i + 1))
done
held_while profiles $pid
ktap_case_end "framewalk.ko stays loaded while framewalk profile counts"

# Without debugfs the recorder cannot keep the module: debugfs is back as soon as the
# recording runs (it tries once, at its start), for the tests after this one.
insmod "$FW_KO_DIR/framewalk.ko" filter=$FN depth=8 || ktap_fail "insmod framewalk.ko failed"
umount "$DEBUGFS" || ktap_fail "cannot unmount debugfs"
framewalk record -o /tmp/loose.rec 2>/tmp/loose.err &
pid=$!
fw_wait_recording $pid /tmp/loose.rec
mount -t debugfs debugfs "$DEBUGFS" || ktap_fail "cannot mount debugfs again"
fw_user_fp chain >/dev/null
wait_events /tmp/loose.rec 1
rmmod framewalk
ktap_expect "rmmod succeeds: nothing holds the module" "$?" = 0
# A recorder that did not notice would run on until interrupted.
i=0
while kill -0 $pid 2>/dev/null && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
if kill -0 $pid 2>/dev/null; then
	ktap_fail "record still runs 10 s after the module went"
	kill -INT $pid
fi
wait $pid
rc=$?
sed 's/^/# /' /tmp/loose.err
ktap_expect "record exits 1" "$rc" = 1
ktap_expect "record said at its start that it could not keep the module" \
	-n "$(grep '^framewalk: cannot keep framewalk.ko loaded (.*): unloading it ends the recording$' /tmp/loose.err)"
ktap_expect "record says the module went, in one line" \
	"$(grep -c '^framewalk: framewalk.ko was unloaded during the recording: the 1 events read before it are kept' /tmp/loose.err)" = 1
ktap_expect "the event read before is kept" "$(grep -c '^E ' /tmp/loose.rec)" = 1
ktap_expect "no end line: its drops are unknown" -z "$(grep '^end ' /tmp/loose.rec)"
ktap_expect "report reads it as cut short" \
	-n "$(framewalk report /tmp/loose.rec 2>/dev/null | grep '^# 1 events, drops unknown: cut short')"
ktap_case_end "a recorder that cannot keep the module ends, saying so, when it is unloaded"
fw_unload_all
ktap_exit
