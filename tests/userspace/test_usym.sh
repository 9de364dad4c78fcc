#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# User frames named by framewalk report, folded and top from a recording's mappings (KTAP):
# a program built here with debug info gives function+offset and file:line equal to binutils'
# nm and addr2line (the oracle: not elfutils, which framewalk uses); its stripped copy gives
# the .dynsym's functions and [unknown] with the mapping elsewhere; a file gone from its path
# is found by build-id through a local debuginfod; a file of another build-id at the path is
# not used; the format's new lines are checked. Runs the ASan/UBSan build.
set -u
. "$(cd "$(dirname "$0")" && pwd)/../ktap.sh"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/usym_oracle.sh"
fw=${FW_CLI:-$here/../../build/host/framewalk-asan}
tmp=$(mktemp -d)
prog_pid=
dfd_pid=
cleanup() {
	[ -z "$prog_pid" ] || kill "$prog_pid" 2>/dev/null
	[ -z "$dfd_pid" ] || kill "$dfd_pid" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
unset DEBUGINFOD_URLS
# The user stops' numbers in the format 3 recordings below, which numbered them from 8
# (format 4 names its numbers in stop lines): an old recording still reads right.
USER_END=11
USER_FAULT=15

build_id() {
	readelf -n "$1" 2>/dev/null | awk '/Build ID:/ { print $3; exit }'
}

# run PROG: start it, wait for its addresses; sets prog_pid and the addresses.
run() {
	"$1" >"$tmp/out" &
	prog_pid=$!
	for _ in $(seq 100); do
		grep -q '^libc ' "$tmp/out" && break
		sleep 0.05
	done
	pc=$(awk '$1 == "pc" { print $2 }' "$tmp/out")
	ret_mid=$(awk '$1 == "ret" { print $2; exit }' "$tmp/out")
	ret_main=$(awk '$1 == "ret" { n++; if (n == 2) print $2 }' "$tmp/out")
	hidden=$(awk '$1 == "hidden" { print $2 }' "$tmp/out")
	libc=$(awk '$1 == "libc" { print $2 }' "$tmp/out")
}

# mappings PID: the P and M lines record writes, from /proc/PID/maps and readelf's build-ids.
mappings() {
	awk '$6 ~ /^\// || $2 ~ /x/' "/proc/$1/maps" >"$tmp/maps"
	echo "P $1 $(wc -l <"$tmp/maps")"
	while read -r range perms off dev ino path; do
		id=-
		[ "${path:0:1}" = / ] && id=$(build_id "$path")
		echo "M ${range%-*} ${range#*-} $((16#$off)) ${id:--} $path"
	done <"$tmp/maps" | awk '{ $4 = sprintf("%x", $4); print }'
}

# recording PID MAPPINGS: one event whose user frames are the program's five addresses.
recording() {
	cat <<REC
framewalk-record 3
kernel test
filter child
notrace
depth 4
$2
E 0 1000000000 $1 1000 2010 0 0 0 0
U $USER_END 0 5 ${pc#0x} ${ret_mid#0x} ${ret_main#0x} ${hidden#0x} ${libc#0x}
C $1 usym_prog
S 1000 child
S 2000 parentfn
end 1 0
REC
}

ktap_header
cc -g -O1 -fno-omit-frame-pointer -fno-inline -rdynamic -o "$tmp/usym_prog" \
	"$here/usym_prog.c" || { ktap_result 1 "the test program builds"; ktap_done; exit; }
strip --strip-all -o "$tmp/usym_stripped" "$tmp/usym_prog"

# 1. A program with debug info: each frame as binutils names it.
run "$tmp/usym_prog"
base=0x$(awk -v p="$tmp/usym_prog" '$6 == p && $3 == "00000000" { print $1; exit }' \
	"/proc/$prog_pid/maps" | cut -d- -f1)
maps=$(mappings "$prog_pid")
recording "$prog_pid" "$maps" >"$tmp/dbg.rec"
kill "$prog_pid"
wait "$prog_pid" 2>/dev/null
prog_pid=
libc_path=$(echo "$maps" | awk '$6 ~ /libc[.-]/ { print $6; exit }')
expect="$(usym_oracle "$tmp/usym_prog" "$base" "$pc" 0) [u]
$(usym_oracle "$tmp/usym_prog" "$base" "$ret_mid" 1) [u]
$(usym_oracle "$tmp/usym_prog" "$base" "$ret_main" 1) [u]
$(usym_oracle "$tmp/usym_prog" "$base" "$hidden" 1) [u]"
ktap_note "oracle: $(echo "$expect" | tr '\n' '|')"
got=$("$fw" report -F -q "$tmp/dbg.rec" 2>&1)
ktap_check "report names each frame of a program with debug info as nm and addr2line do" \
	"$(echo "$got" | sed -n 's/^ => \(.*\[u\]\)$/\1/p' | head -4)" "$expect"
echo "$expect" | grep -q 'usym_prog.c:[0-9]' ||
	ktap_note "the oracle found no line: the check above cannot be about lines"
# The C library: a function its .dynsym names at that address (getpid, or an alias).
libc_frame=$(echo "$got" | sed -n 's/^ => \(.*\) \[u\]$/\1/p' | sed -n 5p)
libc_base=0x$(awk -v p="$libc_path" '$6 == p && $3 == "00000000" { print $1; exit }' \
	"$tmp/maps" | cut -d- -f1)
libc_names=$(nm -D "$libc_path" | grep -i "^0*$(printf '%x' $((libc - libc_base))) " |
	awk '{ print $3 }' | sed 's/@.*//' | sort -u | tr '\n' ' ')
ktap_note "libc frame: $libc_frame; nm -D names there: $libc_names"
fn=${libc_frame%%+0x0 (*}
ktap_check "a C library frame is a function of its .dynsym, at +0x0, in its file" \
	"$(echo " $libc_names " | grep -c " $fn ") ${libc_frame#*+0x0 }" "1 ($libc_path)"
ktap_check "report's one-line form carries the same frames after the kernel's" \
	"$("$fw" report -q "$tmp/dbg.rec" | sed 's/.*parentfn+0x10 <- //; s/ <- /|/g; s/   \[.*//' |
		tr '|' '\n' | head -4)" "$expect"
ktap_check "report shows the user stop after the kernel's" \
	"$("$fw" report -q "$tmp/dbg.rec" | sed 's/.*   //')" "[chain_end user_end]"
fnname() { echo "${1%%+0x*}"; }
ktap_check "folded puts the user frames first, outermost first, marked _[u]" \
	"$("$fw" folded "$tmp/dbg.rec")" \
	"${fn}_[u];usym_hidden_[u];main_[u];usym_mid_[u];usym_leaf_[u];parentfn;child 1"
ktap_check "top counts the edges across user and kernel frames" \
	"$("$fw" top "$tmp/dbg.rec" | grep -c -e 'usym_mid_\[u\] -> usym_leaf_\[u\]' \
		-e 'usym_leaf_\[u\] -> parentfn')" 2
# A walk cut short: its user stop roots the stack, as the module's folded file has it.
sed "s/^U $USER_END /U $USER_FAULT /" "$tmp/dbg.rec" >"$tmp/fault.rec"
ktap_check "folded roots a user walk cut short at its stop" \
	"$("$fw" folded "$tmp/fault.rec" | cut -d';' -f1-2)" "[user_fault];${fn}_[u]"
ktap_check "flamegraph draws the user frames" \
	"$("$fw" flamegraph -o - "$tmp/dbg.rec" 2>/dev/null | grep -c '"usym_mid_\[u\]"')" 1

# 2. The stripped copy: the .dynsym's functions (-rdynamic), [unknown] where it has none.
run "$tmp/usym_stripped"
sbase=0x$(awk -v p="$tmp/usym_stripped" '$6 == p && $3 == "00000000" { print $1; exit }' \
	"/proc/$prog_pid/maps" | cut -d- -f1)
recording "$prog_pid" "$(mappings "$prog_pid")" >"$tmp/stripped.rec"
kill "$prog_pid"
wait "$prog_pid" 2>/dev/null
prog_pid=
dynsym=$(nm -D --defined-only "$tmp/usym_stripped" | awk '{ print $3 }' | tr '\n' ' ')
ktap_note "the stripped copy's .dynsym: $dynsym"
got=$("$fw" report -F -q "$tmp/stripped.rec" | sed -n 's/^ => \(.*\) \[u\]$/\1/p' | head -4)
want=
for a in "$pc" "$ret_mid" "$ret_main" "$hidden"; do
	o=$(usym_oracle "$tmp/usym_prog" "$sbase" "$a" 0)
	f=$(fnname "$o")
	off=${o#*+}
	off=${off%% *}
	if echo " $dynsym " | grep -q " $f "; then
		want+="$f+$off ($tmp/usym_stripped)"$'\n'
		continue
	fi
	# Where it is in the file, from the mapping that holds it.
	while read -r range _ moff _; do
		start=$((16#${range%-*}))
		[ $((a)) -ge "$start" ] && [ $((a)) -lt $((16#${range#*-})) ] &&
			want+=$(printf '[unknown] %#x (%s+0x%x)' $((a)) "$tmp/usym_stripped" \
				$((a - start + 16#$moff)))$'\n'
	done <"$tmp/maps"
done
ktap_check "a stripped program: functions from .dynsym, no line, [unknown] with its mapping" \
	"$got" "${want%$'\n'}"
echo "$want" | grep -q '^\[unknown\]' || ktap_note "no [unknown] frame: usym_hidden was exported"

# 3. The file gone from its path, another build at it: found by build-id only.
mkdir -p "$tmp/gone" "$tmp/served"
sed "s# $tmp/usym_stripped\$# $tmp/gone/usym_prog#" "$tmp/stripped.rec" >"$tmp/gone.rec"
got=$("$fw" report -F -q "$tmp/gone.rec" | sed -n 's/^ => \(.*\) \[u\]$/\1/p' | head -4)
ktap_check "a file gone from its path, no debuginfod: [unknown] with the mapping's offset" \
	"$(echo "$got" | grep -c "^\[unknown\] 0x[0-9a-f]* ($tmp/gone/usym_prog+0x[0-9a-f]*)$")" 4
cc -g -O0 -DOTHER_BUILD -o "$tmp/gone/usym_prog" "$here/usym_prog.c"
ktap_check "another build at the path (a different build-id) is not used" \
	"$("$fw" report -F -q "$tmp/gone.rec" | grep -c '^ => usym_')" 0
rm "$tmp/gone/usym_prog"
cp "$tmp/usym_prog" "$tmp/served/"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
debuginfod -F -L -c 1 -g 0 -p "$port" -d "$tmp/debuginfod.sqlite" "$tmp/served" \
	>"$tmp/debuginfod.log" 2>&1 &
dfd_pid=$!
id=$(build_id "$tmp/usym_prog")
for _ in $(seq 120); do
	curl -sf -o /dev/null "http://127.0.0.1:$port/buildid/$id/executable" && break
	sleep 0.5
done
got=$(DEBUGINFOD_URLS=http://127.0.0.1:$port DEBUGINFOD_CACHE_PATH=$tmp/cache \
	DEBUGINFOD_TIMEOUT=30 "$fw" report -F -q "$tmp/gone.rec" |
	sed -n 's/^ => \(.*\) \[u\]$/\1/p' | head -4)
ktap_check "debuginfod serves the file by build-id: the same frames and lines, the recorded path" \
	"$got" "$(echo "$expect" | sed "s# ($tmp/usym_prog)# ($tmp/gone/usym_prog)#; s/ \[u\]\$//")"
kill "$dfd_pid"
wait "$dfd_pid" 2>/dev/null
dfd_pid=

# 4. The format: what is refused, and what older readers and recordings keep.
# refused DESCRIPTION MESSAGE: bad.rec is refused with MESSAGE (its line number aside).
refused() {
	ktap_check "$1" "$("$fw" report "$tmp/bad.rec" 2>&1 | sed "s#$tmp/##; s/:[0-9]*: / /")" \
		"framewalk report: bad.rec $2"
}
sed "/^E /i U $USER_END 0 1 1" "$tmp/dbg.rec" >"$tmp/bad.rec"
refused "a U line that follows no event is refused" "a user line that follows no E or A line"
sed "/^U /s/^U $USER_END 0 5 /U $USER_END 0 6 /" "$tmp/dbg.rec" >"$tmp/bad.rec"
refused "a U line counting more frames than it has is refused" \
	"fewer user frames than the line says"
sed "/^U /s/^U $USER_END /U 3 /" "$tmp/dbg.rec" >"$tmp/bad.rec"
refused "a kernel stop on a U line is refused" "not a user stop reason"
sed "/^U /s/^U $USER_END 0 5 /U $USER_END 1 1 /; /^U /s/ [0-9a-f]*\$//" "$tmp/dbg.rec" |
	awk '/^U / { $0 = $1 " " $2 " " $3 " " $4 " " $5 } { print }' >"$tmp/bad.rec"
refused "user_lr without a second user frame is refused" \
	"user_lr set without a second user frame"
sed '0,/^M /{/^M /d}' "$tmp/dbg.rec" >"$tmp/bad.rec"
refused "a P line counting more mappings than follow is refused" \
	"1 mapping lines missing after the P line"
sed '0,/^M /s/^M \([0-9a-f]*\) [0-9a-f]* /M \1 0 /' "$tmp/dbg.rec" >"$tmp/bad.rec"
refused "a mapping that ends before it starts is refused" "a mapping that ends before it starts"
sed '0,/^M /s/^M \([0-9a-f]*\) \([0-9a-f]*\) \([0-9a-f]*\) [^ ]* /M \1 \2 \3 abc /' \
	"$tmp/dbg.rec" >"$tmp/bad.rec"
refused "a build-id of odd length is refused" \
	"a build-id of an odd length or longer than 64 bytes"
sed '1s/ 3$/ 2/' "$tmp/dbg.rec" >"$tmp/bad.rec"
refused "user frames in a format 2 recording are refused" \
	"a 'P' line in a format 2 recording (user frames came with format 3)"
# A counted chain (profile) has no pid: its user frames stay addresses, whatever the mappings.
sed "s/^E 0 1000000000 [0-9]* 1000 2010 0 0 0 0\$/A 3 1000 2010 0 0/" "$tmp/dbg.rec" >"$tmp/counted.rec"
ktap_check "a counted chain's user frames are [unknown] addresses" \
	"$("$fw" report -F -q "$tmp/counted.rec" | grep -c '^ => \[unknown\] 0x[0-9a-f]* \[u\]$')" 5
grep -v '^[PMU] ' "$tmp/dbg.rec" | sed '1s/ 3$/ 2/' >"$tmp/v2.rec"
ktap_check "a format 2 recording still reads, without user frames" \
	"$("$fw" report -q "$tmp/v2.rec" | sed 's/.*: //')" "child <- parentfn+0x10   [chain_end]"
ktap_done
