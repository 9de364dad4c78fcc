#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot an arm64 test guest on a cached Debian kernel and run a command in it.
#
# usage: guest.sh [-k SERIES] [-t SECONDS] [-o DIR] [-i SRC[:DEST]]... [-u DIR] [-m MB] [-I] [-q]
#                 -- CMD...
#        guest.sh -s [-k SERIES] [-t SECONDS] [-i SRC[:DEST]]...
#   -s  an interactive shell on the guest's console instead of CMD (make shell): it starts
#       in /fw/ko, beside framewalk.ko, with framewalk, crashwalk, trace-cmd and the
#       bundled crash dumps (/fw/crash); exit or Ctrl-D powers the guest off,
#       Ctrl-A x kills it
#   -k  kernel series from .cache/kernels (default 6.12): 5.10, 5.10-mcount, 6.1, 6.12,
#       6.12-debug (the debug kernel), 7.2 (Makefile's KERNELS says what each is)
#   -t  hard timeout: the guest is killed after it (default 300; with -s, none)
#   -o  output directory: console.log, files/ for what the guest left in /fw/out, and
#       started, the time (epoch seconds) the guest was started after staging
#   -i  extra file or directory for the initramfs, at DEST (default /fw/<basename>)
#   -u  an unpacked arm64 userland merged over the guest's root (make bench: bpftrace,
#       scripts/fetch-guest-tool.sh)
#   -m  guest memory in MB (default 1024, 1536 on a debug kernel; bpftrace needs 3072)
#   -I  count instructions: the guest clock advances 1 ns per executed
#       instruction (qemu -icount shift=0), so ktime deltas are instruction
#       counts, the same on every host and under any load
#   -q  do not stream the console to stdout
# The guest has busybox, the modules built for SERIES in /fw/ko, the selftests
# in /fw/selftests/framewalk; CMD runs under /bin/sh in /fw. Files the command
# writes to /fw/out come back base64-encoded over the console and are checked
# against their size and sha256. Exit status: CMD's, 124 on timeout, 125 when
# the guest died without reporting one (panic), 126 when a file came back damaged.
# FW_QEMU_ARGS adds qemu options (a serial link, -s for gdb), FW_KERNEL_ARGS
# kernel parameters (nokaslr to read PCs against System.map).
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
usage() {
	# The header from its usage line to its last comment line.
	sed -n '5,/^[^#]/s/^# \{0,1\}//p' "$0"
}
case ${1:-} in -h|--help) usage; exit 0 ;; esac
series=6.12 timeout= out= quiet= icount=() shell= mem=
extras=() roots=()
while getopts "k:t:o:i:u:m:Iqsh" opt; do
	case $opt in
	h) usage; exit 0 ;;
	s) shell=1 ;;
	k) series=$OPTARG ;;
	t) timeout=$OPTARG ;;
	o) out=$OPTARG ;;
	i) extras+=("$OPTARG") ;;
	u) roots+=("$OPTARG") ;;
	m) mem=$OPTARG ;;
	# sleep=off: an idle guest jumps to its next timer instead of waiting for
	# the host clock, so sleeps cost no host time and count no instructions.
	I) icount=(-icount shift=0,sleep=off) ;;
	q) quiet=1 ;;
	*) echo "guest: try 'scripts/guest.sh --help'" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
if [ -n "$shell" ]; then
	[ "$#" = 0 ] || { echo "guest: -s opens a shell; no command with it" >&2; exit 2; }
	extras+=("$top/tests/firmware/bundled:/fw/crash")
	set -- "exec sh /fw/shell.sh"
else
	timeout=${timeout:-300}
fi
[ "$#" -gt 0 ] || { echo "guest: no command given (scripts/guest.sh --help)" >&2; exit 2; }

kdir=$top/.cache/kernels/$series
[ -e "$kdir/vmlinuz" ] || { echo "guest: kernel $series missing from .cache (make deps)" >&2; exit 2; }
busybox=$top/.cache/busybox/busybox
[ -x "$busybox" ] || { echo "guest: busybox missing from .cache (make deps)" >&2; exit 2; }
[ -n "$out" ] || out=$top/build/$series/guest
mkdir -p "$out"
out=$(cd "$out" && pwd)

stage=$(mktemp -d "$top/build/initramfs.XXXXXX")
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,fw/ko,fw/out,fw/selftests}
cp "$busybox" "$stage/bin/busybox"
cp "$top/scripts/guest-init.sh" "$stage/init"
chmod +x "$stage/init"
[ -z "$shell" ] || cp "$top/scripts/guest-shell.sh" "$stage/fw/shell.sh"
cp "$top"/build/"$series"/ko/*.ko "$stage/fw/ko/" 2>/dev/null || true
# Debian's arm64 trace-cmd and the shared libraries it and the framewalk CLI use.
userland=$top/.cache/arm64-root
if [ -d "$userland" ]; then
	mkdir -p "$stage/lib" "$stage/usr/lib"
	cp -a "$userland"/lib/* "$stage/lib/"
	cp -a "$userland/usr/lib/aarch64-linux-gnu" "$stage/usr/lib/"
	rm -rf "$stage/usr/lib/aarch64-linux-gnu/gconv" "$stage"/usr/lib/aarch64-linux-gnu/*.a
	cp -a "$userland/usr/bin/trace-cmd" "$stage/usr/bin/"
fi
cp -rL "$top/selftests/framewalk" "$stage/fw/selftests/"
rm -rf "$stage/fw/selftests/framewalk/test_modules"
cp "$top"/build/arm64/bin/* "$stage/usr/bin/" 2>/dev/null || true
# The trace-cmd plugin where the guest's libtraceevent looks, as the arm64 package puts it.
if [ -f "$top/build/arm64/plugins/plugin_framewalk.so" ]; then
	mkdir -p "$stage/usr/lib/aarch64-linux-gnu/traceevent/plugins"
	cp "$top/build/arm64/plugins/plugin_framewalk.so" \
		"$stage/usr/lib/aarch64-linux-gnu/traceevent/plugins/"
fi
for r in "${roots[@]+"${roots[@]}"}"; do
	cp -a "$r/." "$stage/"
done
for e in "${extras[@]+"${extras[@]}"}"; do
	src=${e%%:*}
	dest=${e#*:}
	[ "$dest" = "$e" ] && dest=/fw/$(basename "$src")
	mkdir -p "$stage/$(dirname "$dest")"
	cp -r "$src" "$stage/$dest"
done
printf '%s\n' "$*" >"$stage/fw/cmd.sh"
initrd=$out/initramfs.cpio.gz
(cd "$stage" && find . | cpio -o -H newc --quiet | gzip -1) >"$initrd"

log=$out/console.log
rm -rf "$out/files"
# The lockup and RCU stall detectors get the slack a vCPU starved by a busy host needs under
# TCG, so they report lockups, not the host (a 10 s threshold fired inside insmod with
# make check's guests on 2 cores). A debug kernel (scripts/build-kernel.sh): KASAN's shadow
# takes an eighth of memory, and every report, not only KASAN's first, goes to the log.
kernel_args="watchdog_thresh=60 rcupdate.rcu_cpu_stall_timeout=60"
case $series in
*-debug)
	mem=${mem:-1536}
	kernel_args="kasan_multi_shot $kernel_args" ;;
esac
# pauth-impdef: QEMU's own PAC algorithm; the architected QARMA is far slower under TCG.
qemu=(qemu-system-aarch64 -M virt -cpu max,pauth-impdef=on -smp 2 -m "${mem:-1024}"
	"${icount[@]+"${icount[@]}"}" -no-reboot -nic none -kernel "$kdir/vmlinuz" -initrd "$initrd")
if [ -n "$shell" ]; then
	# The console on this terminal as it is, keys and all: Ctrl-C goes to the guest
	# (signal=off), Ctrl-A x quits qemu. Fed from a pipe (a test), the same console.
	echo "guest: Linux $series on qemu; the shell starts in /fw/ko. exit or Ctrl-D powers" \
		"it off (Ctrl-A x kills it)." >&2
	${timeout:+timeout --foreground -k 5 "$timeout"} "${qemu[@]}" -display none \
		-chardev stdio,id=con,mux=on,signal=off -serial chardev:con \
		-mon chardev=con,mode=readline ${FW_QEMU_ARGS:-} \
		-append "console=ttyAMA0 panic=-1 quiet $kernel_args ${FW_KERNEL_ARGS:-}"
	exit $?
fi
set +e
# When the guest started, after the staging: a timeout counts from here (the runner's tests).
date +%s >"$out/started"
timeout --foreground -k 5 "$timeout" "${qemu[@]}" -nographic ${FW_QEMU_ARGS:-} \
	-append "console=ttyAMA0 panic=-1 oops=panic quiet $kernel_args ${FW_KERNEL_ARGS:-}" </dev/null 2>&1 |
	# Unbuffered, so the log of a guest killed on timeout shows where it stood.
	# Shown: the guest's own output; the files coming back, the harness's lines
	# (@@FW-...) and the power-off only with V=1.
	stdbuf -o0 tr -d '\r' | tee "$log" | { if [ -n "$quiet" ]; then cat >/dev/null; else
		awk -v v="${V:-0}" '/^@@FW-FILE /{skip=1; if (v == 1) print; next}
			/^@@FW-END /{skip=0; if (v == 1) print; next} skip {next}
			v != 1 && (/^@@FW-/ || /reboot: Power down$/) {next} {print; fflush()}'; fi; }
qrc=${PIPESTATUS[0]}
set -e

if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
	echo "guest: killed after ${timeout}s timeout ($series)" >&2
	exit 124
fi

# Decode the files the guest sent back, checking each against its size and hash.
bad=0
while read -r _ name size sum; do
	mkdir -p "$out/files"
	sed -n "/^@@FW-FILE $name /,/^@@FW-END $name\$/p" "$log" | sed '1d;$d' |
		base64 -d >"$out/files/$name" 2>/dev/null || true
	got_size=$(wc -c <"$out/files/$name")
	got_sum=$(sha256sum "$out/files/$name" | cut -d' ' -f1)
	if [ "$got_size" != "$size" ] || [ "$got_sum" != "$sum" ]; then
		echo "guest: $name came back damaged ($got_size of $size bytes)" >&2
		bad=1
	fi
done < <(grep '^@@FW-FILE ' "$log")

rc=$(sed -n 's/^@@FW-EXIT \([0-9]*\)$/\1/p' "$log" | tail -1)
if [ -z "$rc" ]; then
	echo "guest: no exit status from the guest ($series): it crashed or panicked; see $log" >&2
	exit 125
fi
[ "$bad" = 0 ] || exit 126
exit "$rc"
