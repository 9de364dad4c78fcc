#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test_serial.sh - an attached MCU end to end: the Cortex-M firmware of tests/firmware/serial
# runs under qemu-system-arm (-icount), crashes three times and streams its dumps (#CD: lines,
# CrashCatcher's hex dump) over its UART; a TCP chardev carries the UART into a virtio-serial
# port of the arm64 guest, where crashwalk --follow reports each dump as it completes while
# framewalk.ko traces the port's receive path. compare.py checks the guest's reports against
# the host's crashwalk on the same bytes and against GDB's backtrace at each fault, and
# writes the KTAP. Both emulators are bounded by the time limit and killed at the end.
#
# usage: test_serial.sh [-k SERIES] [-o DIR] [-t SECONDS] [-d]
#   -k  guest kernel series (default 6.12)      -o  output directory (default build/serial)
#   -t  limit for each emulator (default 300)   -d  the demo: text reports and the trace, no KTAP
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
series=6.12 out=$top/build/serial limit=300 demo=
while getopts "k:o:t:d" opt; do
	case $opt in
	k) series=$OPTARG ;;
	o) out=$OPTARG ;;
	t) limit=$OPTARG ;;
	d) demo=1 ;;
	*) sed -n '11,13s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
	esac
done
fwsrc=$top/tests/firmware/serial
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -rf "$out/guest" "$out"/crash-* "$out"/*.log "$out"/*.jsonl
mkdir "$out/crash-1" "$out/crash-2" "$out/crash-3"
mcu=
trap '[ -n "$mcu" ] && kill "$mcu" 2>/dev/null' EXIT

# A TCP port of our own (run-corpus does the same): other emulators may hold one.
port=$((20000 + $$ % 20000))
qemu_mcu() {	# qemu_mcu ARGS...: the MCU, as every run here starts it
	timeout -k 5 "$limit" qemu-system-arm -M mps2-an385 -nographic \
		-icount shift=0,align=off,sleep=off \
		-semihosting-config enable=on,target=native -kernel "$out/fw.elf" "$@"
}

for need in "$top/analyzer/build/crashwalk" "$top/build/arm64/bin/crashwalk" \
	"$top/build/$series/ko/framewalk.ko"; do
	[ -e "$need" ] || { echo "test_serial: $need missing (make all)" >&2; exit 2; }
done
stale=$(find "$top/analyzer" -maxdepth 1 -name '*.[ch]' -newer "$top/build/arm64/bin/crashwalk")
[ -z "$stale" ] || { echo "test_serial: the guest's crashwalk is older than" $stale \
	"(make guest-bin)" >&2; exit 2; }
# The corpus's reset code and semihosting (crash.c), its fault handler made weak: uart.c's
# streams the dump instead.
fwcc() {
	arm-none-eabi-gcc -mcpu=cortex-m3 -mthumb -O2 -g -ffreestanding -nostdlib -Wall -Wextra \
		-ffile-prefix-map="$top"=. -fdebug-prefix-map="$top"=. \
		-Werror -fno-unwind-tables "$@"
}
{ fwcc -c -o "$out/crash.o" "$top/tests/firmware/src/crash.c" &&
  arm-none-eabi-objcopy --weaken-symbol=crash_handler "$out/crash.o" &&
  fwcc -L"$top/tests/firmware/src" -T "$top/tests/firmware/src/mps2.ld" \
	"$top/tests/firmware/src/start.S" "$fwsrc/uart.c" "$out/crash.o" -lgcc -o "$out/fw.elf"; } ||
	{ echo "test_serial: cannot build the firmware" >&2; exit 1; }

# The oracle: GDB stopped at each fault's entry; the UART into a file on the host.
listening() {	# listening PORT: a TCP server is up on it
	ss -Hltn "sport = :$1" | grep -q .
}
( qemu_mcu -monitor none -serial file:"$out/uart-host.log" -S -gdb tcp:127.0.0.1:$port \
	>"$out/qemu-gdb.log" 2>&1 &
  for _ in $(seq 100); do listening $port && break; sleep 0.1; done
  timeout 120 gdb-multiarch -batch -nx "$out/fw.elf" -ex "set pagination off" \
	-ex "target remote 127.0.0.1:$port" -ex "set backtrace past-main on" \
	-ex "source $top/tests/firmware/oracle.py" -ex "break hardfault_entry" \
	-ex continue -ex "python oracle_frames('$out/crash-1/oracle.json')" \
	-ex continue -ex "python oracle_frames('$out/crash-2/oracle.json')" \
	-ex continue -ex "python oracle_frames('$out/crash-3/oracle.json')" \
	-ex delete -ex continue >"$out/gdb.log" 2>&1
  wait )
"$top/analyzer/build/crashwalk" ${demo:---json} --follow "$out/fw.elf" "$out/uart-host.log" \
	>"$out/host.jsonl" 2>"$out/host.err"

# The MCU waits paused (-S) until the guest's crashwalk follows the port: nothing is lost to
# an unopened port and no byte waits in a socket the MCU has closed. TCP, not a Unix socket:
# a closed Unix peer is a hang-up to QEMU, which would drop bytes not yet read.
port=$((port + 1))
qemu_mcu -monitor unix:"$out/mcu.mon",server=on,wait=off -S \
	-chardev socket,id=uart0,host=127.0.0.1,port=$port,server=on,wait=off \
	-serial chardev:uart0 >"$out/qemu-mcu.log" 2>&1 &
mcu=$!
for _ in $(seq 50); do [ -S "$out/mcu.mon" ] && break; sleep 0.1; done
FW_QEMU_ARGS="-device virtio-serial-pci -chardev socket,id=mcu,host=127.0.0.1,port=$port \
-device virtserialport,chardev=mcu,name=mcu.uart0" \
	"$top/scripts/guest.sh" -q -k "$series" -t "$limit" -o "$out/guest" \
	-i "$out/fw.elf:/fw/fw.elf" -i "$fwsrc/guest-scene.sh:/fw/scene.sh" -- \
	"sh /fw/scene.sh ${demo:+text}" >"$out/guest.log" 2>&1 &
guest=$!
for _ in $(seq $((limit * 5))); do
	grep -q '^scene: crashwalk follows' "$out/guest/console.log" 2>/dev/null && break
	kill -0 "$guest" 2>/dev/null || break
	sleep 0.2
done
# "cont" on the MCU's monitor; the reply is awaited: a monitor that sees its client hang up
# before it read the command drops it.
python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.settimeout(10)
buf = b""
while b"(qemu)" not in buf: buf += s.recv(4096)
s.sendall(b"cont\n"); buf = b""
while buf.count(b"(qemu)") < 1: buf += s.recv(4096)' "$out/mcu.mon" ||
	echo "test_serial: the MCU's monitor did not take 'cont'" >&2
wait "$guest"
grc=$?
wait "$mcu"
mcu=

if [ -n "$demo" ]; then
	echo "== the MCU's UART, as the host's own copy shows it (the dumps' hex lines elided) =="
	tr -d '\r' <"$out/uart-host.log" | grep -v -e '#CD:[0-9a-f]' -e '^[0-9A-F]*$'
	echo "== crashwalk --follow in the arm64 guest, on $(sed -n 's/^scene: crashwalk follows //p' "$out/guest/console.log") =="
	cat "$out/guest/files/reports"
	echo "-- and on its stderr:"
	cat "$out/guest/files/errors"
	echo "== framewalk.ko in the guest: where the bytes entered the kernel, and who read them =="
	"$top/tests/firmware/serial/compare.py" --trace-summary "$out/guest/files/trace" \
		--symbols "$out/guest/files/symbols"
	exit $grc
fi
exec "$fwsrc/compare.py" --guest-status "$grc" --guest-log "$out/guest.log" \
	--elf "$out/fw.elf" --oracle-dir "$out" --host "$out/host.jsonl" \
	--guest "$out/guest/files/reports" --trace "$out/guest/files/trace" \
	--symbols "$out/guest/files/symbols"
