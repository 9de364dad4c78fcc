#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The framewalk tour: framewalk.ko in an arm64 guest on real kernel functions
# and on a known chain in hard-IRQ context, then Cortex-M crashes analyzed: bundled
# dumps, and an MCU streaming its crashes over a serial link into the guest.
# Everything it says about a recording is counted from that recording, and
# tests/userspace/test_demo.sh checks it against the files. The build's and the guest
# runner's own lines show with V=1. DEMO_OUT: where its files go (default build/demo);
# DEMO_LIMIT: the guests' kill limit in seconds (default 600).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
series=${DEMO_KERNEL:-6.12}
out=${DEMO_OUT:-$top/build/demo}
fw=$top/build/host/framewalk
mkdir -p "$out"
out=$(cd "$out" && pwd)

banner() {
	printf '\n== %s\n' "$*"
}

banner "framewalk.ko on Linux $series (arm64 guest under qemu)"
# A kill limit only: alone the guest is done in about 3 minutes; beside make check's other
# guests on two cores it took longer than 600 s (CI), and make check sets DEMO_LIMIT.
"$top/scripts/guest.sh" -k "$series" -t "${DEMO_LIMIT:-600}" -o "$out/guest" -- '
set -e
T=/sys/kernel/tracing
insmod /fw/ko/fw_test_chain.ko
insmod /fw/ko/framewalk.ko filter=vfs_read,do_sys_openat2,fw_test_leaf depth=8
echo "# cat /sys/module/framewalk/parameters/{filter,depth}"
cat /sys/module/framewalk/parameters/filter /sys/module/framewalk/parameters/depth
echo 1 >$T/events/framewalk/chain/enable
dd if=/proc/version of=/dev/null bs=64 2>/dev/null
echo 0 >$T/tracing_on
echo "# head -3 $T/trace (the event as the kernel prints it)"
grep " chain: " $T/trace | head -3
echo 1 >$T/tracing_on
echo 0 >$T/events/framewalk/chain/enable
# The test chain run by the writer itself: from a timer the interrupt may land on the
# recorder, whose own events it leaves out (trace-cmd below shows the timer chain).
echo "# framewalk record, the same filter: a read, an open and the test chain"
framewalk record -o /fw/out/chains.rec -- sh -c "dd if=/proc/version of=/dev/null bs=64 2>/dev/null; ls / >/dev/null; echo write >/sys/kernel/debug/framewalk_test/trigger"
echo "# /sys/kernel/debug/framewalk/stats"
grep -v ^cpu /sys/kernel/debug/framewalk/stats
rmmod framewalk
echo "# trace-cmd record -e framewalk:chain (Debian arm64 trace-cmd), the known chain from a timer"
insmod /fw/ko/framewalk.ko filter=fw_test_leaf depth=12
trace-cmd record -q -e framewalk:chain -o /fw/out/trace.dat \
	sh -c "echo timer >/sys/kernel/debug/framewalk_test/trigger" >/dev/null 2>&1
echo "# framewalk record -f vfs_read,vfs_write,do_sys_openat2 -d 24 -- sh -c ..."
# The reads: dd read()s; busybox cat would sendfile() and ls reads directories, neither
# through vfs_read.
framewalk record -f vfs_read,vfs_write,do_sys_openat2 -d 24 -o /fw/out/demo.rec -- \
	sh -c "for i in 1 2 3 4 5; do dd if=/proc/version of=/dev/null bs=64 2>/dev/null; ls / >/dev/null; echo \$i >/tmp/x; done"
'
banner "the same calls as chains: framewalk report on the host"
for f in vfs_read do_sys_openat2 fw_test_leaf; do
	"$fw" report "$out/guest/files/chains.rec" | grep -m1 ": $f <- "
done

banner "trace-cmd report on the host, with plugin_framewalk"
TRACEEVENT_PLUGIN_DIR=$top/build/host/plugins trace-cmd report -i "$out/guest/files/trace.dat" \
	2>/dev/null | grep -v '^cpus=' | head -14

banner "framewalk top / folded on the host, from the guest's recording"
"$fw" top -l 8 "$out/guest/files/demo.rec"
echo
"$fw" folded "$out/guest/files/demo.rec" | sort -k2 -n -r | head -4 |
	cut -c1-160

# chains REC FUNCTION: how many of the recording's chains end in FUNCTION.
chains() {
	"$fw" folded "$1" | awk -v f="$2" '{ n = split($1, fr, ";"); if (fr[n] == f) c += $2 }
		END { print c + 0 }'
}
banner "framewalk flamegraph on the host: a page to open in a browser"
rec=$out/guest/files/demo.rec
"$fw" flamegraph -o "$out/flamegraph.html" "$rec"
echo "the flame graph of the guest's $(chains "$rec" vfs_read) reads (vfs_read)," \
	"$(chains "$rec" vfs_write) writes (vfs_write) and $(chains "$rec" do_sys_openat2) opens" \
	"(do_sys_openat2): $out/flamegraph.html"
echo "(self-contained: open it in any browser, click a box to zoom, search by name)"

crash_elf=$top/tests/firmware/bundled/demo.elf
crash_dump=$top/tests/firmware/bundled/demo.core
if [ -x "$top/analyzer/build/crashwalk" ] && [ -f "$crash_elf" ] && [ -f "$crash_dump" ]; then
	banner "crashwalk on a bundled Cortex-M crash"
	"$top/analyzer/build/crashwalk" "$crash_elf" "$crash_dump"
	# The kernel is recognised from its symbols: every thread, not only the one that crashed.
	banner "crashwalk on a bundled FreeRTOS-shaped crash (Cortex-M4F): every thread"
	"$top/analyzer/build/crashwalk" "$top/tests/firmware/bundled/rtos-m4f-freertos.elf" \
		"$top/tests/firmware/bundled/rtos-m4f-freertos.core"
fi

# The two halves on one board: the MCU's crashes over its UART into the arm64 host.
banner "an MCU on a serial link: its crashes streamed over its UART into the arm64 guest"
"$top/tests/firmware/serial/test_serial.sh" -d -k "$series" -t "${DEMO_LIMIT:-600}" -o "$out/serial"

# Paths as the user types them at the top of the tree, where make runs.
rel=${out#"$top"/}
cat <<EOF

== what next
Files: $rel/ (flamegraph.html; the recordings in guest/files/: build/host/framewalk
  report $rel/guest/files/demo.rec prints their chains).
No screen? The hottest edges as text: build/host/framewalk top $rel/guest/files/demo.rec;
  the page as a picture: chromium --headless --no-sandbox --screenshot=fg.png
  --window-size=1400,700 $rel/flamegraph.html (or copy the page to a machine with a browser).
A shell on the emulated board, where every README example runs: make shell
Your own Cortex-M crash: analyzer/build/crashwalk FIRMWARE.elf DUMP (crashwalk --help)
Every test: make check
EOF
