#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# fw_kernel_log.sh - the guest's half of the kernel log check: prepare the kernel log before the
# tests, add kmemleak's findings to it after them, commit the planted bugs, and save it for the
# host's tests/kernel-log/test_kernel_log.sh, which decides.
# usage: fw_kernel_log.sh begin | leaks | plant BUG... | save FILE
. "$(dirname "$0")/fw_lib.sh"

# kmemleak's findings since the last report, into the kernel log. With "until N":
# scan up to N times until it finds one, for a leak planted just before; a scan
# misses it while the pointer still lies somewhere (a register, a cached stack).
report_leaks() {
	[ -w "$KMEMLEAK" ] || return 0
	tries=${2:-1}
	while :; do
		fw_kmemleak_scan
		tries=$((tries - 1))
		[ "$tries" -le 0 ] || [ -n "$(cat "$KMEMLEAK")" ] && break
	done
	fw_kmemleak_relay
}

case $1 in
begin)
	# Unlimited writes to /dev/kmsg: the markers and relayed reports must all get through.
	echo on >/proc/sys/kernel/printk_devkmsg
	# What boot left unreferenced is not the tests' doing.
	[ -w "$KMEMLEAK" ] && echo clear >"$KMEMLEAK"
	;;
leaks)
	report_leaks
	;;
plant)
	shift
	for b in "$@"; do
		echo "fw-planted: begin $b" >/dev/kmsg
		insmod "$FW_KO_DIR/fw_planted_bug.ko" bug="$b" && rmmod fw_planted_bug
		[ "$b" = kmemleak ] && report_leaks until 4
		echo "fw-planted: end $b" >/dev/kmsg
	done
	;;
save)
	dmesg >"$2"
	;;
*)
	echo "usage: fw_kernel_log.sh begin | leaks | plant BUG... | save FILE" >&2
	exit 2
	;;
esac
