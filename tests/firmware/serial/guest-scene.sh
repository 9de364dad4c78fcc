#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# guest-scene.sh - in the arm64 guest: follow the MCU's serial port (the
# virtio-serial port named mcu.uart0) with crashwalk while framewalk.ko
# traces that port's receive path; results to /fw/out: reports, errors, the
# trace and the names of its return addresses (symbols).
# usage: guest-scene.sh [json|text]   (crashwalk's report format)
set -u
mode=${1:-json}
port=
for p in /sys/class/virtio-ports/*; do
	[ "$(cat "$p/name" 2>/dev/null)" = mcu.uart0 ] && port=/dev/${p##*/}
done
[ -n "$port" ] || { echo "scene: no virtio-serial port named mcu.uart0"; exit 1; }
# in_intr: the port's receive virtqueue interrupt, where the MCU's bytes enter the
# kernel; port_fops_read: crashwalk's read() of them.
fw_insmod /fw/ko/framewalk.ko filter=in_intr,port_fops_read depth=16 || exit 1
t=/sys/kernel/tracing/instances/serial
mkdir "$t"
echo 1 >"$t/events/framewalk/chain/enable"
json=--json
[ "$mode" = text ] && json=
crashwalk $json --follow /fw/fw.elf "$port" >/fw/out/reports 2>/fw/out/errors &
pid=$!
# The host resumes the paused MCU when it reads this line.
echo "scene: crashwalk follows $port"
wait "$pid"
rc=$?
echo 0 >"$t/events/framewalk/chain/enable"
grep -v '^#' "$t/trace" >/fw/out/trace
# The chains' return addresses by name, from kallsyms (sorted by address for the core
# kernel): one pass, each address taking the last text symbol at or below it.
grep -o 'ancestors={[^}]*}' /fw/out/trace | grep -o '[0-9a-f]\{16\}' | sort -u >/tmp/addrs
awk 'NR == FNR { a[++n] = $1; next }
     $2 ~ /^[tT]$/ { while (i < n && a[i + 1] < $1) { i++; print a[i], name } name = $3 }
     END { while (i < n) { i++; print a[i], name } }' /tmp/addrs /proc/kallsyms >/fw/out/symbols
echo "scene: crashwalk exited $rc at the end of the stream"
exit 0
