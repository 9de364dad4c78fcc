#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: framewalk record with user=N keeps the mappings and build-ids of the process behind the user frames, and report names them: fw_user_fp_g's functions in their order with file:line, equal (function+offset) to perf's own user callchain at the same event where perf events exist; the command and the processes and threads it starts are held at their exit until their mappings are read, however short they live; a process record did not start and that is gone before its events were drained is counted, its frames left as addresses, and so are the command's when record is itself traced and cannot hold them, which it says; profile keeps the user part of the module's counted chains; the recording goes back to the host, whose test_e2e.sh checks the lines against addr2line
# requires: framewalk.ko, framewalk (CLI), fw_user_fp_g (build-guest-bin.sh), tracefs, trace-cmd; perf for the oracle
. "$(dirname "$0")/fw_lib.sh"
fw_test_begin 7
FN=__arm64_sys_getpriority
OUT=${FW_OUT:-/fw/out}
PROG=$(command -v fw_user_fp_g)
mkdir -p "$OUT"

insmod "$FW_KO_DIR/framewalk.ko" filter=$FN depth=8 user=16 || ktap_fail "insmod failed"
# The program exits right after its chain, before the next drain: record holds its exit.
framewalk record -o "$OUT/usym.rec" -- fw_user_fp_g chain >/tmp/usym.out 2>/tmp/usym.err
ktap_expect "record exits 0" "$?" = 0
sed 's/^/# /' /tmp/usym.err
# Its stops by the names of the module's own format (the chain_user event's too), no guess.
ktap_expect "record reads the stop names of the module's format" \
	-z "$(grep 'names no stop values' /tmp/usym.err)"
pid=$(awk '$1 == "pid" { print $2 }' /tmp/usym.out)
ktap_expect "one event of the program with user frames" \
	"$(grep -c "^E [0-9]* [0-9]* $pid " "$OUT/usym.rec")" -ge 1
ktap_expect "its mappings, once" "$(grep -c "^P $pid " "$OUT/usym.rec")" = 1
id=$(grep -m1 " $PROG\$" "$OUT/usym.rec" | awk '{ print $5 }')
ktap_note "$PROG: build-id $id"
ktap_expect "the program's mappings carry a 40-digit build-id" "${#id}" = 40
ktap_case_end "record keeps the mappings and build-ids behind the user frames"

framewalk report -F -q "$OUT/usym.rec" >"$OUT/usym.txt"
grep -m1 -A14 "^ *fw_user_fp_g-$pid " "$OUT/usym.txt" | sed 's/^/# /'
frames=$(grep -m1 -A30 "^ *fw_user_fp_g-$pid " "$OUT/usym.txt" | sed -n 's/^ => \(.*\[u.*\]\)$/\1/p')
names=$(echo "$frames" | awk '{ sub(/\+0x.*/, ""); printf "%s ", $0 }')
ktap_note "user frames: $names"
# The leaf (its pc), its caller from lr, then one frame record each.
ktap_expect "the program's functions in order" -n \
	"$(echo " $names" | grep ' fw_u_leaf fw_u_inner fw_u_mid fw_u_outer main ')"
# All but _start, which is glibc's crt1.o, built without debug info.
nolines=$(echo "$frames" | grep "^\(fw_u_\|main\).* ($PROG) " |
	grep -vc ' fw_user_prog\.c:[0-9][0-9]* \[u[ a-z]*\]$')
ktap_expect "each of the program's functions has its fw_user_prog.c line" "$nolines" = 0
ktap_expect "the C library's frames name its file" \
	-n "$(echo "$frames" | grep '^__libc_start[a-z_]*+0x[0-9a-f]* (/.*libc\.so\.6)')"
ktap_case_end "report names the user frames: function+off (file) file:line"

# The oracle: perf's --call-graph fp user frames at the same event, named by perf itself.
# Where the kernel has perf events, perf must be there (check.sh gives it): no silent skip.
if [ -e /proc/sys/kernel/perf_event_paranoid ]; then
	command -v perf >/dev/null || ktap_fail "no perf in the guest (scripts/fetch-guest-tool.sh -l)"
	perf record -q -e framewalk:chain_user --call-graph fp -o /tmp/usym.data -- \
		fw_user_fp_g chain >/dev/null 2>&1
	perf script -i /tmp/usym.data -F ip,sym,symoff,dso 2>/dev/null |
		awk '/fw_user_fp_g\)$/ { print $2 }' >/tmp/usym.perf
	# perf prints the leaf's caller, which it takes from lr as framewalk does, as lr - 1.
	echo "$frames" | grep " ($PROG) " | awk '{ print $1 }' >/tmp/usym.fw
	lr=$(echo "$frames" | grep " ($PROG) .*\[u lr\]$" | awk '{ print $1 }')
	if [ -n "$lr" ]; then
		lr1=$(printf '%s+0x%x' "${lr%%+0x*}" $((0x${lr##*+0x} - 1)))
		sed -i "s/^$lr\$/$lr1/" /tmp/usym.fw
	fi
	ktap_note "perf: $(tr '\n' ' ' </tmp/usym.perf)"
	ktap_note "framewalk, lr - 1: $(tr '\n' ' ' </tmp/usym.fw)"
	ktap_expect "perf named frames" -s /tmp/usym.perf
	ktap_expect "the program's frames equal perf's, function+offset" \
		"$(cat /tmp/usym.fw)" = "$(cat /tmp/usym.perf)"
	ktap_case_end "function+offset equal to perf's user callchain"
else
	ktap_result skip "function+offset equal to perf's user callchain" "no perf events"
fi

# What the command starts is held too: a process of the shell (the "; true" keeps sh from
# exec'ing it) and a second thread, whose events carry its own id.
framewalk record -o /tmp/kids.rec -- sh -c 'fw_user_fp_g chain; fw_user_fp_g thread; true' \
	>/dev/null 2>/tmp/kids.err
ktap_expect "record exits 0" "$?" = 0
sed 's/^/# /' /tmp/kids.err
ktap_expect "no process gone before its mappings were read" -z "$(grep 'gone before' /tmp/kids.err)"
ktap_expect "two events with user frames" "$(grep -c '^U ' /tmp/kids.rec)" = 2
for p in $(awk '$1 == "E" { print $4 }' /tmp/kids.rec); do
	ktap_expect "the mappings of task $p, written before its event" \
		-n "$(sed -n "/^E [0-9]* [0-9]* $p /q; /^P $p /p" /tmp/kids.rec)"
done
framewalk report -F -q /tmp/kids.rec >/tmp/kids.txt
ktap_expect "both chains named, fw_u_outer in each" \
	"$(grep -c '^ => fw_u_outer+0x[0-9a-f]* (.*/fw_user_fp_g) ' /tmp/kids.txt)" = 2
ktap_case_end "the processes and threads the command starts are held until their mappings are read"

# A process record did not start is read at its first drained event, as it may already be
# gone: counted, and its frames stay addresses, never another's names.
framewalk record -o /tmp/gone.rec 2>/tmp/gone.err &
pid=$!
fw_wait_recording $pid /tmp/gone.rec
fw_user_fp_g chain >/dev/null
kill -INT $pid
wait $pid
sed 's/^/# /' /tmp/gone.err
ktap_expect "the event of a process record did not start" "$(grep -c '^U ' /tmp/gone.rec)" = 1
if grep -q '^P ' /tmp/gone.rec; then
	ktap_note "the process outlived the drain: its maps were read"
else
	ktap_expect "record says a process was gone before its maps were read" \
		-n "$(grep '1 processes gone before their mappings were read' /tmp/gone.err)"
	ktap_expect "its frames are [unknown] addresses" \
		"$(framewalk report -F -q /tmp/gone.rec | grep '\[u' | grep -vc '^ => \[unknown\] 0x')" = 0
fi
ktap_case_end "a process record did not start, gone before the drain: counted, its frames addresses"

# A tracer that follows framewalk's children (trace-cmd record --proc-map) takes the
# command first: record cannot hold it, says so once, and records as it does the
# processes it did not start.
trace-cmd record --proc-map -e framewalk:chain -o /tmp/traced.dat \
	framewalk record -o /tmp/traced.rec -- fw_user_fp_g chain >/tmp/traced.out 2>&1
ktap_expect "trace-cmd and record exit 0" "$?" = 0
grep '^framewalk' /tmp/traced.out | sed 's/^/# /'
ktap_expect "record says it cannot hold the command's exits, once" \
	"$(grep -c "^framewalk: cannot hold the command's exits (ptrace: .*): a process gone before its events are drained keeps its user frames as addresses$" /tmp/traced.out)" = 1
ktap_expect "the event is recorded all the same" "$(grep -c '^U ' /tmp/traced.rec)" = 1
ktap_expect "the recording is complete" -n "$(grep '^end 1 ' /tmp/traced.rec)"
ktap_case_end "a traced record that cannot hold the command says so and records"
# profile: the module's chains with their user part; a counted chain has no pid, so its
# user frames stay addresses.
framewalk profile -f $FN --folded -o /tmp/prof.rec -- fw_user_fp_g chain >/tmp/prof.txt \
	2>/tmp/prof.err
ktap_expect "profile exits 0" "$?" = 0
sed 's/^/# /' /tmp/prof.txt /tmp/prof.err | cut -c1-200
ktap_expect "folded: the user frames, marked _[u], before the kernel's" \
	-n "$(grep "^\(0x[0-9a-f]*_\[u\];\)\{5,\}.*el0_svc.*;$FN 1\$" /tmp/prof.txt)"
# user_end (131, by the recording's stop line), no lr mark: the module's chains file
# does not say which frame is the lr.
ktap_expect "the saved recording keeps them in a U line" \
	-n "$(grep -q '^stop 131 user_end$' /tmp/prof.rec && grep '^U 131 0 [0-9]* [0-9a-f]' /tmp/prof.rec)"
ktap_expect "folded reads the saved recording back as profile printed it" \
	"$(framewalk folded /tmp/prof.rec)" = "$(grep ';' /tmp/prof.txt)"
ktap_expect "the module's folded file is framewalk's folded, user part and all" \
	"$(fw_folded_merged)" = "$(grep ';' /tmp/prof.txt | sort)"
ktap_case_end "profile keeps the user part of the module's chains"
rmmod framewalk
ktap_exit
