#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# test_follow.sh - crashwalk --follow on a serial log: each #CD: dump among log lines (CRLF,
# logger prefixes, a log line inside a dump) is reported as soon as its end arrives, with the
# same report as the dump read from a file; a dump cut by the next one, by the end of the
# stream, by a bad hex digit or a lost line, or missing its start, is an error naming the
# line and what is missing, and the stream goes on; a tty is read raw; -v prints the log
# lines; an over-long line cuts its dump; CrashCatcher's hex dump, whole and cut. Without the
# firmware ELF, each dump's firmware is found by its build-id, in --symbols or through a
# debuginfod server (dumps of two builds: the reports of their ELFs given by hand), with no
# byte of a FIFO lost to finding out that no ELF came first; one whose build-id no place has
# is one error line and the stream goes on.
# Usage: test_follow.sh CRASHWALK BUNDLED_DIR
set -u
cw=$1
b=$2
tmp=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null; debuginfod_stop; rm -rf "$tmp"' EXIT
pid=
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/ktap.sh"
. "$top/tests/analyzer/symbol_store.sh"

# dump_lines [DUMP]: a Zephyr coredump (demo.zephyr) in Zephyr's log transport, behind a
# logger prefix, CRLF ends.
dump_lines() {
	printf '[00:00:02.000,000] <err> coredump: #CD:BEGIN#\r\n'
	xxd -p -c 32 "${1:-$b/demo.zephyr}" |
		sed 's/^/[00:00:02.000,000] <err> coredump: #CD:/;s/$/\r/'
	printf '[00:00:02.000,000] <err> coredump: #CD:END#\r\n'
}

ktap_header
ktap_note "suite: crashwalk-follow"
dump_lines >"$tmp/one"
n=$(wc -l <"$tmp/one")
{
	echo "boot 1"
	sed 5q "$tmp/one"
	echo "[00:00:02.000,000] <inf> main: a log line inside the dump"
	sed 1,5d "$tmp/one"
	echo "restart 1"
	sed 10q "$tmp/one"			# cut by the next dump
	dump_lines
	sed '20s/#CD:\(..\)../#CD:\1zz/' "$tmp/one"	# a bad hex digit
	sed 30d "$tmp/one"			# a line lost on the wire
	dump_lines
	sed 1d "$tmp/one"			# the stream began after its start
	dump_lines
	sed 40q "$tmp/one"			# the stream ends
} >"$tmp/log"
"$cw" --json "$b/demo.elf" "$b/demo.zephyr" | no_paths >"$tmp/file.json"
"$cw" --json --follow "$b/demo.elf" "$tmp/log" >"$tmp/out" 2>"$tmp/err"
rc=$?

good=$(grep -c '"format": "zephyr"' "$tmp/out")
[ "$good" -eq 4 ]
ktap_result $? "follow_reports_each_complete_dump"
[ "$(no_paths <"$tmp/out" | grep '"format"' | sort -u)" = "$(cat "$tmp/file.json")" ]
ktap_result $? "follow_report_equals_the_report_of_the_dump_file"
grep -q "\"path\": \"$tmp/log:2\", \"format\"" "$tmp/out"
ktap_result $? "follow_names_a_dump_by_its_first_line"
l=$((n + 4))
grep -q "\"path\": \"$tmp/log:$l\", \"build_id\": null}, \"error\": \"[^\"]*incomplete dump (a new #CD:BEGIN# at line $((l + 10))[^\"]*overruns" "$tmp/out"
ktap_result $? "follow_dump_cut_by_the_next_names_both_lines_and_what_is_short"
grep -q 'error": "[^"]*bad hex digit in #CD: line' "$tmp/out"
ktap_result $? "follow_bad_hex_digit_is_an_error"
l=$((2 * n + l + 10))
grep -q "\"path\": \"$tmp/log:$l\", \"build_id\": null}, \"error\": \"[^\"]*unknown block id" "$tmp/out" &&
	[ "$(grep -c '"error"' "$tmp/out")" -eq 5 ]
ktap_result $? "follow_lost_line_is_an_error"
grep -q 'error": "[^"]*incomplete dump (no #CD:BEGIN# before line' "$tmp/out"
ktap_result $? "follow_dump_without_its_start_is_an_error"
grep -q 'error": "[^"]*incomplete dump (the stream ended after line' "$tmp/out"
ktap_result $? "follow_stream_ending_inside_a_dump_is_an_error"
[ "$(tail -1 "$tmp/out" | grep -c '"error"')" -eq 1 ] &&
	[ "$(sed -n 1p "$tmp/out" | grep -c '"format"')" -eq 1 ]
ktap_result $? "follow_reports_in_stream_order"
[ "$rc" -eq 1 ] && [ "$(grep -c "^crashwalk: $tmp/log:[0-9]*: " "$tmp/err")" -eq 5 ]
ktap_result $? "follow_exit_status_and_stderr_count_the_bad_dumps"

# Live: a dump is reported while the writer keeps the stream open.
mkfifo "$tmp/fifo"
"$cw" --json -f "$b/demo.elf" - <"$tmp/fifo" >"$tmp/live" 2>&1 &
pid=$!
exec 3>"$tmp/fifo"
cat "$tmp/one" >&3
i=0
while ! grep -q '"format"' "$tmp/live" && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
grep -q '"path": "<stdin>:1", "format"' "$tmp/live"
ktap_result $? "follow_reports_a_dump_before_the_stream_ends"
cat "$tmp/one" >&3
exec 3>&-
wait "$pid"
[ $? -eq 0 ] && [ "$(grep -c '"format"' "$tmp/live")" -eq 2 ]
ktap_result $? "follow_goes_on_after_a_dump_and_stops_at_the_end"
pid=

# A tty: raw, so CRLF and an echo do not change the bytes; on a pty, as on a USB serial port.
if python3 -c 'import pty' 2>/dev/null; then
	python3 - "$cw" "$b/demo.elf" "$tmp/one" >"$tmp/tty" 2>&1 <<'EOF'
import os, pty, subprocess, sys, time
cw, elf, one = sys.argv[1:4]
m, s = pty.openpty()
p = subprocess.Popen([cw, "--json", "--follow", elf, os.ttyname(s)], stdout=subprocess.PIPE)
time.sleep(0.5)
os.write(m, open(one, "rb").read())
out = b""
while b"\n" not in out:
    out += p.stdout.read1(65536)
p.kill()
sys.stdout.write(out.decode())
EOF
	grep -q '"format": "zephyr"' "$tmp/tty"
	ktap_result $? "follow_reads_a_tty_raw"
else
	ktap_result skip "follow_reads_a_tty_raw" "no python3 pty"
fi

# -v: the firmware's own lines on stderr, without their CR; a dump line too long to be one.
{
	printf 'boot\r\n'
	sed 3q "$tmp/one"
	printf '[00:00:02.000,000] <err> coredump: #CD:%05000d\r\n' 0
	sed 1,3d "$tmp/one"
} | "$cw" -v --json --follow "$b/demo.elf" - >"$tmp/out" 2>"$tmp/err"
grep -qx '<stdin>: boot' "$tmp/err"
ktap_result $? "follow_verbose_prints_log_lines"
grep -q '"path": "<stdin>:2", "build_id": null}, "error": "[^"]*incomplete dump (line 5 is longer than 4096 bytes)' \
	"$tmp/out"
ktap_result $? "follow_overlong_line_cuts_its_dump"

# CrashCatcher's hex dump: demo.zephyr's crash rewritten as a CrashCatcher dump, sent the way
# its HexDump port prints it (prompt, bare hex lines, a blank after each piece, its end).
python3 - "$b/demo.zephyr" "$tmp/cc" <<'EOF'
import struct, sys
z = open(sys.argv[1], "rb").read()
off, regs, mem = 12, None, []
while off < len(z) and z[off] != ord("C"):
    if z[off] == ord("A"):
        n, = struct.unpack_from("<H", z, off + 3)
        a = struct.unpack_from("<17I", z, off + 5)
        regs = list(a[0:4]) + list(a[9:17]) + [a[4], a[8], a[5], a[6], a[7]]
        off += 5 + n
    else:
        lo, hi = struct.unpack_from("<II", z, off + 3)
        mem.append(z[off + 3:off + 11 + hi - lo])
        off += 11 + hi - lo
pieces = [b"cC\x03\x00", struct.pack("<I", 0),
          struct.pack("<20I", *(regs + [regs[13], 0, 3]))] + mem
with open(sys.argv[2], "w") as fh:
    fh.write("\r\n\r\nCRASH ENCOUNTERED\r\n"
             "Enable logging and then press any key to start dump.\r\n\r\n")
    for p in pieces:
        h = p.hex().upper()
        fh.write("\r\n".join(h[i:i + 32] for i in range(0, len(h), 32)) + "\r\n")
    fh.write("\r\nEnd of dump\r\n")
EOF
{ echo "boot"; cat "$tmp/cc"; echo "restart"; sed 40q "$tmp/cc"; echo "a log line"; cat "$tmp/cc"
  sed 30q "$tmp/cc"; } | "$cw" --json --follow "$b/demo.elf" - >"$tmp/out" 2>"$tmp/err"
sig=$(grep -o '"signature": "[0-9a-f]*"' "$tmp/file.json")
[ "$(grep -c "\"format\": \"crashcatcher\".*$sig" "$tmp/out")" -eq 2 ]
ktap_result $? "follow_crashcatcher_hex_dump_reported_as_the_same_crash"
grep -q '"error": "[^"]*incomplete dump (line [0-9]* is not hex, before End of dump); what came: [^"]*overruns' "$tmp/out"
ktap_result $? "follow_crashcatcher_dump_cut_by_a_log_line"
grep -q 'incomplete dump (the stream ended after line [0-9]*, before End of dump)' "$tmp/out" &&
	[ "$(wc -l <"$tmp/out")" -eq 4 ]
ktap_result $? "follow_crashcatcher_dump_cut_by_the_end"
printf 'CRASH ENCOUNTERED\r\nEnd of dump\r\n' | "$cw" --json -f "$b/demo.elf" - >"$tmp/out" 2>&1
grep -q '"error": "[^"]*incomplete dump (no bytes before End of dump at line 2)' "$tmp/out"
ktap_result $? "follow_empty_dump_is_an_error"

"$cw" --follow "$b/demo.elf" "$tmp/none" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "$tmp/none: cannot follow: No such file" "$tmp/err"
ktap_result $? "follow_missing_stream_named"
"$cw" --follow -w "$tmp" "$b/demo.elf" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q -- '--follow and --watch' "$tmp/err"
ktap_result $? "follow_and_watch_refused_together"

# No ELF: a log of dumps of two corpus builds and, between them, one of a build the places lack.
corpus_builds follow core.zephyr
mkdir "$tmp/flat"
cp "$fw_a/fw.elf" "$tmp/flat/a.elf"
cp "$fw_b/fw.elf" "$tmp/flat/b.elf"
{
	echo "boot"
	dump_lines "$fw_a/bus/core.zephyr"
	echo "restart"
	dump_lines "$fw_u/undef/core.zephyr"
	echo "restart"
	dump_lines "$fw_b/isr/core.zephyr"
} >"$tmp/fleet.log"
id=$(build_id "$fw_u/fw.elf")
# fleet_reports NAME STATUS PLACE: the three reports and the one error of $tmp/out and
# $tmp/err, read from stream NAME with crashwalk's exit status STATUS, the unknown build-id
# searched for in PLACE.
fleet_reports() {
	[ "$(sed -n 1p "$tmp/out" | no_paths)" = "$(cat "$tmp/a.json")" ] &&
		[ "$(sed -n 3p "$tmp/out" | no_paths)" = "$(cat "$tmp/b.json")" ] &&
		grep -q '"format"' "$tmp/a.json" && ! cmp -s "$tmp/a.json" "$tmp/b.json" &&
		sed -n 2p "$tmp/out" | grep -q "\"path\": \"$1:[0-9]*\", \"build_id\": \"$id\"}, \"error\"" &&
		[ "$(wc -l <"$tmp/out")" -eq 3 ] && [ "$2" -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
		grep -q "^crashwalk: $1:[0-9]*: build-id $id: no firmware found: $3" "$tmp/err"
}
cat "$tmp/fleet.log" | env -u DEBUGINFOD_URLS "$cw" -q --json --follow --symbols "$tmp/flat" - \
	>"$tmp/out" 2>"$tmp/err"
fleet_reports "<stdin>" $? "$tmp/flat (.*not there; debuginfod: not asked"
ktap_result $? "follow_pipe_symbols_each_dump_gets_its_own_build_s_chain_and_goes_on"

# A FIFO named on the command line: nothing read from it before the stream is followed.
mkfifo "$tmp/fleet.fifo"
cat "$tmp/fleet.log" >"$tmp/fleet.fifo" &
writer=$!
# A reader that took the start and closed the FIFO would wait for a writer that has gone.
env -u DEBUGINFOD_URLS timeout 60 "$cw" -q --json --follow --symbols "$tmp/flat" \
	"$tmp/fleet.fifo" >"$tmp/out" 2>"$tmp/err"
rc=$?
kill "$writer" 2>/dev/null
fleet_reports "$tmp/fleet.fifo" $rc "$tmp/flat"
ktap_result $? "follow_fifo_without_elf_loses_no_line"
# A log whose first dump comes after more than the bytes read to tell a firmware ELF.
{ seq 1 500 | sed 's/^/boot line /'; cat "$tmp/fleet.log"; } >"$tmp/long.log"
env -u DEBUGINFOD_URLS "$cw" -q --json --follow --symbols "$tmp/flat" "$tmp/long.log" \
	>"$tmp/out" 2>"$tmp/err"
fleet_reports "$tmp/long.log" $? "$tmp/flat"
ktap_result $? "follow_long_log_without_elf_is_a_stream"

# The same pipe with no --symbols, the firmware served by Debian's debuginfod on loopback.
if debuginfod_start "$tmp/flat"; then
	ktap_result 0 "follow_debuginfod_serves_the_corpus_firmware"
else
	ktap_result 1 "follow_debuginfod_serves_the_corpus_firmware"
	sed 's/^/# /' "$tmp/debuginfod.log"
fi
cat "$tmp/fleet.log" | DEBUGINFOD_URLS=$debuginfod_url DEBUGINFOD_CACHE_PATH=$tmp/client-cache \
	DEBUGINFOD_TIMEOUT=30 "$cw" -q --json --follow - >"$tmp/out" 2>"$tmp/err"
fleet_reports "<stdin>" $? "debuginfod $debuginfod_url: "
ktap_result $? "follow_debuginfod_each_dump_gets_its_own_build_s_chain_and_goes_on"
debuginfod_stop
ktap_done
