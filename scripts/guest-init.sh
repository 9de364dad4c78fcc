#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
# /init of the test guest: mount the kernel filesystems, run /fw/cmd.sh, send
# /fw/out/* back over the console, report the exit status, power off.
/bin/busybox --install -s
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tracefs tracefs /sys/kernel/tracing
mount -t debugfs debugfs /sys/kernel/debug
mkdir -p /tmp /fw/out
ip link set lo up 2>/dev/null
# Not on make shell's console (guest.sh -s), where a person reads it.
[ -e /fw/shell.sh ] || echo "@@FW-BOOTED $(uname -r) cpus=$(grep -c ^processor /proc/cpuinfo)"

cd /fw
sh /fw/cmd.sh
rc=$?

# Quiet the kernel so no printk splits the encoded files.
echo 1 >/proc/sys/kernel/printk
for f in /fw/out/*; do
	[ -f "$f" ] || continue
	name=${f##*/}
	echo "@@FW-FILE $name $(wc -c <"$f") $(sha256sum "$f" | cut -d' ' -f1)"
	base64 "$f"
	echo "@@FW-END $name"
done
echo "@@FW-EXIT $rc"
sync
poweroff -f
