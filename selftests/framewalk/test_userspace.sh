#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: the README's instance recipe leaves its reader out of the trace (a plain reader traces itself); trace-cmd records framewalk events, and with --proc-map a user program's maps beside its user frames; the framewalk CLI records, reports and streams them; framewalk profile counts chains in the module and top/folded read its recording (with task names), fails clearly without the module, cleans up after SIGTERM and SIGHUP, and framewalk reset clears what a SIGKILLed recorder left; the recordings go back to the host for trace-cmd report with the plugin
# requires: framewalk.ko, fw_test_chain.ko, trace-cmd, framewalk (CLI), fw_user_fp_g (build-guest-bin.sh), tracefs, debugfs
. "$(dirname "$0")/fw_lib.sh"
fw_test_begin 11
OUT=${FW_OUT:-/fw/out}
mkdir -p "$OUT"
TRIGGER="echo write >$DEBUGFS/framewalk_test/trigger; echo timer >$DEBUGFS/framewalk_test/trigger"

insmod "$FW_KO_DIR/fw_test_chain.ko" || ktap_fail "insmod fw_test_chain.ko failed"

# The CLI without the module: a clear error, no recording.
msg=$(framewalk record -f fw_test_leaf -o /tmp/none.rec -- true 2>&1)
rc=$?
ktap_note "$msg"
ktap_expect "exit status 1" "$rc" = 1
ktap_expect "says the module is not loaded" -n "$(echo "$msg" | grep 'module is not loaded')"
msg=$(framewalk record -k "$FW_KO_DIR/framewalk.ko" -f fw_no_such_fn -o /tmp/none.rec -- true 2>&1)
ktap_note "$msg"
ktap_expect "a bad filter at load is refused" -n "$(echo "$msg" | grep 'the kernel refused to load it: .*(dmesg says why)')"
ktap_case_end "framewalk record fails clearly without the module or with a bad filter"

# The CLI loads the module itself (-k) and records the chain in both contexts.
framewalk record -k "$FW_KO_DIR/framewalk.ko" -f fw_test_leaf -d 16 -o "$OUT/fw.rec" -- \
	sh -c "$TRIGGER" 2>/tmp/rec.err
rc=$?
sed 's/^/# /' /tmp/rec.err
ktap_expect "record exits 0" "$rc" = 0
ktap_expect "two chain events recorded" "$(grep -c '^E ' "$OUT/fw.rec")" = 2
ktap_expect "the recording is complete" -n "$(grep '^end 2 ' "$OUT/fw.rec")"
framewalk report "$OUT/fw.rec" >/tmp/report.txt
sed 's/^/# /' /tmp/report.txt | cut -c1-200
ktap_expect "report shows the chain" \
	-n "$(grep 'fw_test_leaf <- fw_test_l5+0x[0-9a-f]* <- fw_test_l4+' /tmp/report.txt)"
ktap_case_end "framewalk record -k loads the module and records, report reads it back"

# The module is loaded now: record reconfigures it at run time.
framewalk record -f vfs_read -d 3 -o /tmp/vfs.rec -- dd if=/proc/version of=/dev/null bs=32 \
	2>/dev/null
ktap_expect "filter changed to vfs_read" "$(cat /sys/module/framewalk/parameters/filter)" = vfs_read
ktap_expect "depth changed to 3" "$(cat /sys/module/framewalk/parameters/depth)" = 3
ktap_expect "vfs_read chains recorded at depth 3" \
	-n "$(framewalk report /tmp/vfs.rec | grep 'vfs_read <- ksys_read+.*\[depth\]')"
ktap_case_end "framewalk record sets filter and depth of a loaded module"

framewalk stream -f fw_test_leaf -d 16 -- sh -c "echo write >$DEBUGFS/framewalk_test/trigger" \
	>/tmp/stream.txt 2>/tmp/stream.err
sed 's/^/# /' /tmp/stream.txt /tmp/stream.err | cut -c1-200
ktap_expect "stream's summary names the stops it counted" \
	-n "$(tail -1 /tmp/stream.err | grep -E '^framewalk: [0-9]+ events, [0-9]+ dropped; stops: [a-z_]+=[0-9]+')"
framewalk stream -f fw_test_leaf -d 16 -- true >/dev/null 2>/tmp/stream.err
ktap_expect "a stream without events ends without an empty 'stops:'" \
	"$(tail -1 /tmp/stream.err)" = "framewalk: 0 events, 0 dropped"
ktap_expect "stream printed the chain" \
	-n "$(grep 'fw_test_leaf <- fw_test_l5+0x[0-9a-f]* <- fw_test_l4+' /tmp/stream.txt)"
ktap_expect "stream names the task (sh), not <...>" \
	-n "$(grep '^ *sh-[0-9]* .*fw_test_leaf <- ' /tmp/stream.txt)"
ktap_case_end "framewalk stream prints chains as they happen, with task names"

# The module counts: three writes (task) and three timers (hard IRQ), two chains of 3
# (depth 8 ends both at the same frames above the test module: vfs_write, hrtimer_interrupt).
framewalk profile -f fw_test_leaf -d 8 --folded -o /tmp/prof.rec -- \
	sh -c "$TRIGGER; $TRIGGER; $TRIGGER" >/tmp/prof.txt 2>/tmp/prof.err
rc=$?
sed 's/^/# /' /tmp/prof.txt /tmp/prof.err | cut -c1-200
ktap_expect "profile exits 0" "$rc" = 0
ktap_expect "two folded chains ending in fw_test_l5;fw_test_leaf, 3 hits each" \
	"$(grep -c ';fw_test_l4;fw_test_l5;fw_test_leaf 3$' /tmp/prof.txt)" = 2
ktap_expect "the summary counts 6 hits in 2 chains" \
	-n "$(grep '^framewalk: 6 hits in 2 chains' /tmp/prof.err)"
ktap_expect "no drop is reported when none happened" -z "$(grep 'dropped' /tmp/prof.err)"
ktap_expect "aggregate is off again" "$(cat /sys/module/framewalk/parameters/aggregate)" = N
ktap_expect "top reads the profile: fw_test_l5 -> fw_test_leaf 6 times" \
	-n "$(framewalk top /tmp/prof.rec | grep '^ *6 .*fw_test_l5 -> fw_test_leaf$')"
ktap_expect "folded reads it back as profile printed it" \
	"$(framewalk folded /tmp/prof.rec | sort)" = "$(sort /tmp/prof.txt)"
# The module's own folded file still holds the counts profile read: the same chains, laid
# out by the module and by the CLI from one definition (lib/fw_folded.h), must read alike.
ktap_expect "the module's folded file is framewalk's folded of the same chains" \
	"$(fw_folded_merged)" = "$(sort /tmp/prof.txt)"
ktap_case_end "framewalk profile counts chains in the module; top and folded read its recording"

# trace-cmd, Debian's arm64 build, records the same event for the host's trace-cmd report.
# The pauses let trace-cmd's per-CPU recorders start before the events and
# drain after them: a command of a few milliseconds can be missed entirely.
trace-cmd record -e framewalk:chain -o "$OUT/trace.dat" sh -c "sleep 1; $TRIGGER; sleep 1" \
	>/tmp/tc.log 2>&1
rc=$?
tail -3 /tmp/tc.log | sed 's/^/# /'
ktap_expect "trace-cmd record exits 0" "$rc" = 0
n=$(trace-cmd report -i "$OUT/trace.dat" 2>/dev/null | grep -c ' chain: .*fw_test_leaf')
ktap_expect "trace.dat holds both chain events (trace-cmd report finds $n)" "$n" -ge 2
ktap_case_end "trace-cmd records framewalk:chain"

# A kretprobe on fw_test_l3 replaces the return address its record holds: the
# chain is the same with fw_test_l2's frame marked recovered, for the host's
# plugin (trace-kret.dat) and CLI (fw-kret.rec) to show. Where the kernel's
# unwinder does not see behind kretprobes (5.10), the chain ends at the trampoline.
recovery=$(cat /sys/module/framewalk/parameters/recovery)
# trace-cmd turns events off when it ends: it keeps the probe's on while it records.
echo 'r:fw_kret_l3 fw_test_l3' >"$TRACEFS/kprobe_events" || ktap_fail "r: on fw_test_l3 refused"
trace-cmd record -e framewalk:chain -e kprobes:fw_kret_l3 -o "$OUT/trace-kret.dat" \
	sh -c "sleep 1; echo write >$DEBUGFS/framewalk_test/trigger; sleep 1" >/tmp/tc.log 2>&1 ||
	ktap_fail "trace-cmd record under the kretprobe failed"
echo 1 >"$TRACEFS/events/kprobes/fw_kret_l3/enable"
framewalk record -f fw_test_leaf -d 16 -o "$OUT/fw-kret.rec" -- \
	sh -c "echo write >$DEBUGFS/framewalk_test/trigger" 2>/dev/null
echo 0 >"$TRACEFS/events/kprobes/enable"
echo >"$TRACEFS/kprobe_events"
framewalk report "$OUT/fw-kret.rec" >/tmp/report.txt
sed 's/^/# /' /tmp/report.txt | cut -c1-200
if echo ",$recovery," | grep -q ',kretprobe,'; then
	ktap_expect "report marks fw_test_l2's frame recovered" \
		-n "$(grep 'fw_test_l3+0x[0-9a-f]* <- fw_test_l2+0x[0-9a-f]* \[recovered\] <- fw_test_l1+' /tmp/report.txt)"
else
	ktap_expect "report ends the chain at the kretprobe trampoline (recovery=$recovery)" \
		-n "$(grep 'fw_test_l3+0x[0-9a-f]* <- [_a-z]*kretprobe_trampoline[^ ]* *\[trampoline tramp=kretprobe\]' /tmp/report.txt)"
fi
ktap_case_end "under a kretprobe the recorded chain goes on, the recovered frame marked, or ends named at the trampoline"

# A recorder ended by SIGTERM or SIGHUP removes its instance and ends its file;
# one killed by SIGKILL cannot, and framewalk reset removes what it left.
I=$TRACEFS/instances
for sig in TERM HUP; do
	framewalk record -q -f vfs_read -o /tmp/sig.rec &
	pid=$!
	fw_wait_recording $pid /tmp/sig.rec
	ktap_expect "recording into instance framewalk-$pid" -d "$I/framewalk-$pid"
	kill -$sig $pid
	wait $pid
	ktap_expect "SIG$sig: instance framewalk-$pid removed" ! -e "$I/framewalk-$pid"
	ktap_expect "SIG$sig: the recording has its end line" -n "$(grep '^end ' /tmp/sig.rec)"
done
ktap_case_end "framewalk record cleans up on SIGTERM and SIGHUP"

framewalk record -q -f vfs_read -o /tmp/kill.rec &
pid=$!
fw_wait_recording $pid /tmp/kill.rec
kill -KILL $pid
wait $pid
ktap_expect "SIGKILL leaves instance framewalk-$pid" -d "$I/framewalk-$pid"
echo 1 >"$TRACEFS/events/framewalk/chain/enable"
msg=$(framewalk reset 2>&1)
rc=$?
ktap_note "$msg"
ktap_expect "reset exits 0" "$rc" = 0
ktap_expect "reset removed instance framewalk-$pid" ! -e "$I/framewalk-$pid"
ktap_expect "reset says so" -n "$(echo "$msg" | grep "removed instance framewalk-$pid")"
ktap_expect "framewalk:chain disabled in the top buffer" \
	"$(cat "$TRACEFS/events/framewalk/chain/enable")" = 0
framewalk report /tmp/kill.rec >/tmp/kill.txt 2>/tmp/kill.err
ktap_expect "the killed recording reads, saying it was cut short" \
	-n "$(grep 'drops unknown: cut short' /tmp/kill.txt)"
framewalk reset -q -u
ktap_expect "reset -u unloads framewalk.ko" ! -e /sys/module/framewalk
ktap_expect "reset -v with nothing left says so" \
	-n "$(framewalk reset -v -u 2>&1 | grep '^framewalk reset: nothing to do: ')"
ktap_case_end "framewalk reset clears what a SIGKILLed recorder left"

# trace-cmd record --proc-map keeps the maps of the command it runs, read through ptrace
# when it exits, for the host's framewalk report -i to name the user frames with:
# test_e2e.sh checks them against the maps the program printed (user-procmap.out).
insmod "$FW_KO_DIR/framewalk.ko" filter=__arm64_sys_getpriority depth=8 user=16 ||
	ktap_fail "insmod user=16 failed"
trace-cmd record --proc-map -e framewalk -o "$OUT/user-procmap.dat" fw_user_fp_g chain \
	>/tmp/tc-user.log 2>&1
rc=$?
grep -E '^(pid|lr|map) ' /tmp/tc-user.log >"$OUT/user-procmap.out"
sed 's/^/# /' "$OUT/user-procmap.out"
ktap_expect "trace-cmd record --proc-map exits 0" "$rc" = 0
pid=$(awk '$1 == "pid" { print $2 }' "$OUT/user-procmap.out")
ktap_expect "the program's chain_user event" \
	-n "$(trace-cmd report -i "$OUT/user-procmap.dat" 2>/dev/null | grep -m1 "^ *fw_user_fp_g-$pid .* chain_user: ")"
trace-cmd dump --options -i "$OUT/user-procmap.dat" 2>/dev/null | grep -A1 'Option PROCMAPS' |
	sed 's/^/# /'
ktap_expect "its maps, under its pid in hex" -n "$(trace-cmd dump --options \
	-i "$OUT/user-procmap.dat" 2>/dev/null | grep "^$(printf %x "$pid") [0-9a-f]* .*/fw_user_fp_g\$")"
rmmod framewalk
ktap_case_end "trace-cmd record --proc-map keeps the traced program's maps beside its user frames"

# The README's recipe: a reader of trace_pipe in an instance whose set_event_notrace_pid
# (with event-fork) lists the reader's shell. read_pipe NAME NOTRACE READER: 3 s of the
# pipe, read by READER, into /tmp/NAME.txt while head reads elsewhere, with or without the
# notrace pid.
insmod "$FW_KO_DIR/framewalk.ko" filter=vfs_read depth=4 || ktap_fail "insmod filter=vfs_read"
read_pipe() {
	D=$I/$1
	mkdir "$D"
	sh -c "echo 1 >$D/options/event-fork; [ $2 = 0 ] || echo \$\$ >$D/set_event_notrace_pid
	       echo 1 >$D/events/framewalk/chain/enable; exec timeout 3 $3 $D/trace_pipe" \
		>/tmp/$1.txt &
	for n in 1 2 3 4 5; do
		sleep 0.4
		head -c 64 /proc/version >/dev/null
	done
	wait $!
	echo 0 >"$D/events/framewalk/chain/enable"
	rmdir "$D"
}
read_pipe fwdoc 1 cat
readers=$(grep -cE '^ *(sh|cat|timeout)-[0-9]+ ' /tmp/fwdoc.txt)
ktap_expect "the recipe's reader saw head's reads" -n "$(grep -m1 '^ *head-[0-9]' /tmp/fwdoc.txt)"
ktap_expect "no line is the reader's own ($readers)" "$readers" = 0
# The warning's reader reads with read(2), as GNU cat does; busybox cat may splice
# the pipe (5.10), which vfs_read never sees.
read_pipe fwloop 0 "dd bs=4096 <"
loop=$(grep -cE '^ *dd-[0-9]+ ' /tmp/fwloop.txt)
ktap_note "without the notrace pid: $loop of $(wc -l </tmp/fwloop.txt) lines are the reader's own reads"
ktap_expect "without the notrace pid the reader traces itself (the warning holds)" "$loop" -gt 0
ktap_case_end "the README's instance recipe does not trace its own reader"
fw_unload_all
ktap_exit
