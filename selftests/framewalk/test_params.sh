#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: filter, notrace and depth are validated at load and at run time, each refusal one kernel log line; values are trimmed; a refused change leaves the previous setting in force; records=0 leaves record addresses out of the event; the module has a version
# requires: framewalk.ko, tracefs, debugfs
. "$(dirname "$0")/fw_lib.sh"
fw_test_begin 11
P=/sys/module/framewalk/parameters

# insmod ARGS...: expect a refusal and exactly one framewalk error line containing $want.
expect_refused_load() {
	want=$1
	shift
	fw_dmesg_mark
	if fw_insmod "$FW_KO_DIR/framewalk.ko" "$@" 2>/dev/null; then
		ktap_fail "insmod $* was accepted"
		rmmod framewalk
		return
	fi
	# The kernel's own "invalid for parameter" line counts: the user reads both.
	# Its notices of the first load of an unsigned out-of-tree module do not.
	errs=$(dmesg | tail -n +$((fw_dmesg_base + 1)) | grep 'framewalk: ' |
		grep -v -e 'taints kernel' -e 'module verification failed')
	ktap_note "$errs"
	ktap_expect "one error line" "$(echo "$errs" | grep -c .)" = 1
	ktap_expect "it names '$want'" -n "$(echo "$errs" | grep -F -- "$want")"
}

expect_refused_load "'fw_no_such_function_*' matches no traceable function" \
	"filter=vfs_read,fw_no_such_function_*"
ktap_case_end "load: a glob matching nothing is refused, naming it"

expect_refused_load "filter: empty"
ktap_case_end "load: no filter is refused, never traces everything"

expect_refused_load "depth: '99' is not a number from 0 to 64" filter=vfs_read depth=99
ktap_case_end "load: depth above 64 is refused in one message"

expect_refused_load "notrace: 'fw_nothing_here' matches no traceable function" \
	filter=vfs_read notrace=fw_nothing_here
ktap_case_end "load: a notrace glob matching nothing is refused"

# Run time: refused writes fail with EINVAL and keep the previous value.
insmod "$FW_KO_DIR/framewalk.ko" filter=vfs_read depth=8 || ktap_fail "insmod filter=vfs_read failed"
for bad in "fw_no_such_function" "" "vfs_read,,vfs_write" "!vfs_read"; do
	if echo "$bad" >"$P/filter" 2>/dev/null; then
		ktap_fail "filter='$bad' was accepted at run time"
	fi
	ktap_expect "filter still vfs_read after '$bad'" "$(cat $P/filter)" = vfs_read
done
for bad in 65 -1 abc; do
	echo "$bad" >"$P/depth" 2>/dev/null && ktap_fail "depth=$bad was accepted"
done
ktap_expect "depth still 8" "$(cat $P/depth)" = 8
# echo writes "65\n": the message must quote the value without its newline, on one line.
n=$(dmesg | tail -n +$((fw_dmesg_base + 1)) |
	grep -c "framewalk: depth: '65' is not a number from 0 to 64$")
ktap_expect "echo 65 >depth: one whole message line" "$n" = 1
echo 1 >"$TRACEFS/events/framewalk/chain/enable"
fw_read_file
echo 0 >"$TRACEFS/events/framewalk/chain/enable"
ktap_expect "vfs_read still traced" -n "$(grep ' chain: vfs_read <- ' "$TRACEFS/trace")"
ktap_case_end "run time: bad filter and depth writes are refused, the old ones stay"

# read_and_write: one file read and one file write with the chain event on, from an
# empty buffer.
read_and_write() {
	fw_trace_reset
	echo 1 >"$TRACEFS/events/framewalk/chain/enable"
	fw_read_file
	echo hello >/tmp/fw_params
	echo 0 >"$TRACEFS/events/framewalk/chain/enable"
}

# A good change takes effect without reloading.
echo "vfs_write, do_sys_openat2" >"$P/filter" || ktap_fail "filter change refused"
read_and_write
ktap_expect "vfs_write traced" -n "$(grep ' chain: vfs_write <- ' "$TRACEFS/trace")"
ktap_expect "do_sys_openat2 traced" -n "$(grep ' chain: do_sys_openat2 <- ' "$TRACEFS/trace")"
ktap_expect "vfs_read no longer traced" -z "$(grep ' chain: vfs_read <- ' "$TRACEFS/trace")"
ktap_case_end "run time: a new filter replaces the old one"

echo "vfs_read,vfs_write" >"$P/filter" || ktap_fail "filter change refused"
echo vfs_write >"$P/notrace" || ktap_fail "notrace change refused"
read_and_write
ktap_expect "vfs_read traced" -n "$(grep ' chain: vfs_read <- ' "$TRACEFS/trace")"
ktap_expect "vfs_write excluded by notrace" -z "$(grep ' chain: vfs_write <- ' "$TRACEFS/trace")"
echo "fw_nothing_here" >"$P/notrace" 2>/dev/null && ktap_fail "bad notrace accepted"
ktap_expect "notrace still vfs_write" "$(cat $P/notrace)" = vfs_write
ktap_case_end "run time: notrace excludes, a bad notrace is refused"

# The first vfs_read chain of one read with the event on, from an empty buffer.
first_chain() {
	fw_trace_reset
	echo 1 >"$TRACEFS/events/framewalk/chain/enable"
	fw_read_file
	echo 0 >"$TRACEFS/events/framewalk/chain/enable"
	grep -m1 ' chain: vfs_read <- ' "$TRACEFS/trace"
}

echo "" >"$P/notrace"
echo 2 >"$P/depth"
line=$(first_chain)
ktap_note "$line"
ktap_expect "nr_ancestors=2 in the event" -n "$(echo "$line" | grep 'nr_ancestors=2 stop=depth ')"
echo 0 >"$P/depth"
line=$(first_chain)
ktap_expect "depth=0: child and parent only" -n "$(echo "$line" | grep 'nr_ancestors=0 stop=depth .*ancestors={}')"
ktap_case_end "run time: depth changes apply to the next hit"

# Values are read without the blanks around them, as they would be typed.
echo " vfs_read , vfs_write " >"$P/filter" || ktap_fail "filter with blanks refused"
ktap_expect "filter reads back trimmed" "$(cat $P/filter)" = "vfs_read , vfs_write"
echo " vfs_read" >"$P/filter" || ktap_fail "filter ' vfs_read' refused"
ktap_expect "' vfs_read' reads back as vfs_read" "$(cat $P/filter)" = vfs_read
echo "  5 " >"$P/depth" || ktap_fail "depth '  5 ' refused"
ktap_expect "depth '  5 ' is 5" "$(cat $P/depth)" = 5
ktap_case_end "run time: filter and depth are trimmed"

# records=0: the event keeps its ancestors and leaves records[] empty, from the next hit.
for rec in 0 1; do
	echo $rec >"$P/records" || ktap_fail "records=$rec refused"
	line=$(first_chain)
	ktap_note "records=$rec: $line"
	ktap_expect "records=$rec: five ancestors" -n "$(echo "$line" | grep 'nr_ancestors=5 .*ancestors={0x[^}]*}')"
	if [ $rec = 0 ]; then
		ktap_expect "records=0: records empty" -n "$(echo "$line" | grep 'records={}\( \|$\)')"
	else
		ktap_expect "records=1: five records" \
			"$(echo "$line" | sed 's/.*records={\([^}]*\)}.*/\1/' | tr ',' '\n' | grep -c 0x)" = 5
	fi
done
ktap_case_end "run time: records=0 leaves the record addresses out of the event"

ver=$(cat /sys/module/framewalk/version 2>/dev/null)
ktap_note "version $ver"
ktap_expect "MODULE_VERSION is set (module/dkms.conf's PACKAGE_VERSION)" -n "$ver"
ktap_case_end "the module has a version"
fw_unload_all
ktap_exit
