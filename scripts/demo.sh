#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The framewalk tour: framewalk.ko in an arm64 guest on real kernel functions
# and on a known chain in hard-IRQ context, then a Cortex-M crash analyzed.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
series=${DEMO_KERNEL:-6.12}
out=$top/build/demo
mkdir -p "$out"

banner() {
	printf '\n== %s\n' "$*"
}

banner "framewalk.ko on Linux $series (arm64 guest under qemu)"
"$top/scripts/guest.sh" -k "$series" -t 180 -o "$out/guest" -- '
set -e
T=/sys/kernel/tracing
insmod /fw/ko/fw_test_chain.ko
insmod /fw/ko/framewalk.ko filter=vfs_read,do_sys_openat2,fw_test_leaf depth=8
echo "# cat /sys/module/framewalk/parameters/{filter,depth}"
cat /sys/module/framewalk/parameters/filter /sys/module/framewalk/parameters/depth
echo 1 >$T/events/framewalk/chain/enable
dd if=/proc/version of=/dev/null bs=64 2>/dev/null
ls / >/dev/null
echo timer >/sys/kernel/debug/framewalk_test/trigger
echo 0 >$T/tracing_on
echo "# head -3 $T/trace (the event as the kernel prints it)"
grep " chain: " $T/trace | head -3
cp $T/trace /fw/out/trace.txt
grep -i " t " /proc/kallsyms >/fw/out/kallsyms
echo "# /sys/kernel/debug/framewalk/stats"
grep -v ^cpu /sys/kernel/debug/framewalk/stats
'
sort "$out/guest/files/kallsyms" >"$out/kallsyms.sorted"
banner "the same events as call chains (symbolized on the host)"
for f in vfs_read do_sys_openat2 fw_test_leaf; do
	grep -m1 " chain: $f " "$out/guest/files/trace.txt" |
		awk -f "$top/scripts/fw-chains.awk" "$out/kallsyms.sorted" -
done

crash_elf=$top/tests/firmware/bundled/demo.elf
crash_dump=$top/tests/firmware/bundled/demo.core
if [ -x "$top/analyzer/build/crashwalk" ] && [ -f "$crash_elf" ] && [ -f "$crash_dump" ]; then
	banner "crashwalk on a bundled Cortex-M crash"
	"$top/analyzer/build/crashwalk" "$crash_elf" "$crash_dump"
fi
