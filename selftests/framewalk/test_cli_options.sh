#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: the framewalk CLI's options on a live module: list prints the traceable functions a glob matches, as available_filter_functions has them; record -p keeps one process's chains, ends when it exits and puts the module's pid list back; -t stops a run; --user records user frames and puts user back; --comm and -C keep the events of a task name and a CPU (a tracefs event filter, stream alike); profile's numbers all come from one reading of the counts, taken when counting stops
# requires: framewalk.ko, fw_test_chain.ko, framewalk (CLI), fw_user_fp (build-guest-bin.sh), taskset, tracefs, debugfs
. "$(dirname "$0")/fw_lib.sh"
fw_test_begin 6
P=/sys/module/framewalk/parameters
# Nothing an earlier run left may pass for this run's output.
rm -f /tmp/list.txt /tmp/pid.rec /tmp/t.rec /tmp/u.rec /tmp/c.rec /tmp/p.rec /tmp/p.txt /tmp/p.err
fw_load_with_chain filter=fw_test_leaf depth=8
# One chain of fw_test_leaf, written by the shell that runs it (comm "sh").
W="echo write >$T/trigger"

# list against the file it reads: every fw_test_l* function of the test module, no other.
framewalk list 'fw_test_l*' >/tmp/list.txt
rc=$?
sed 's/^/# /' /tmp/list.txt
ktap_expect "list exits 0" "$rc" = 0
ktap_expect "list prints the lines of available_filter_functions the glob matches" \
	"$(cat /tmp/list.txt)" = "$(grep '^fw_test_l' "$TRACEFS/available_filter_functions")"
ktap_expect "fw_test_leaf of the test module is among them" \
	-n "$(grep -x 'fw_test_leaf \[fw_test_chain\]' /tmp/list.txt)"
ktap_expect "comma-separated globs, as -f takes them" \
	"$(framewalk list 'fw_test_l[12], fw_test_leaf' | cut -d' ' -f1 | sort | tr '\n' ' ')" = \
	"fw_test_l1 fw_test_l2 fw_test_leaf "
msg=$(framewalk list 'fw_no_such_fn*' 2>&1)
rc=$?
ktap_expect "a glob that matches nothing: status 1" "$rc" = 1
ktap_expect "... saying so" "$msg" = "framewalk list: no traceable function matches 'fw_no_such_fn*'"
ktap_case_end "framewalk list prints the functions a glob matches, from available_filter_functions"

# Two shells that each write one chain once told to go; record -p names the first alone.
GO=/tmp/fw_cli_go
start_writers() {
	rm -f $GO
	sh -c "while [ ! -e $GO ]; do usleep 20000; done; $W" &
	writer_a=$!
	sh -c "while [ ! -e $GO ]; do usleep 20000; done; $W" &
	writer_b=$!
}
echo 1 >"$P/pid"
start_writers
framewalk record -q -f fw_test_leaf -p "$writer_a" -o /tmp/pid.rec &
rec=$!
# Should it not end by itself, the watchdog ends it, late.
(sleep 120; kill $rec 2>/dev/null) &
watchdog=$!
fw_wait_recording $rec /tmp/pid.rec
start=$(date +%s)
: >$GO
wait $rec
rc=$?
took=$(($(date +%s) - start))
kill $watchdog
wait
ktap_note "writers $writer_a and $writer_b; recorded: $(grep '^E ' /tmp/pid.rec | cut -d' ' -f4 | tr '\n' ' ')"
ktap_expect "record -p without a command ends by itself when the process exits ($took s)" \
	"$took" -lt 60
ktap_expect "... with status 0" "$rc" = 0
ktap_expect "the recording holds one chain" "$(grep -c '^E ' /tmp/pid.rec)" = 1
ktap_expect "... of the named process" "$(grep '^E ' /tmp/pid.rec | cut -d' ' -f4)" = "$writer_a"
ktap_expect "the module's pid list is as record found it" "$(cat $P/pid)" = 1
echo " " >"$P/pid"
ktap_case_end "record -p records the named process alone until it exits, then puts pid back"

start=$(date +%s)
framewalk record -q -t 2 -f fw_test_leaf -o /tmp/t.rec -- sleep 60
rc=$?
took=$(($(date +%s) - start))
ktap_expect "record -t 2 stopped the command after about 2 s (took $took s)" "$took" -lt 30
ktap_expect "the command was ended by SIGTERM: status 143" "$rc" = 143
ktap_expect "the recording is complete" -n "$(grep '^end 0 ' /tmp/t.rec)"
start=$(date +%s)
framewalk record -q --duration=1 -f fw_test_leaf -o /tmp/t.rec
rc=$?
took=$(($(date +%s) - start))
ktap_expect "record --duration 1 without a command stops by itself (took $took s), status 0" \
	"$rc $((took < 30))" = "0 1"
ktap_case_end "record -t/--duration stops the run"

framewalk record -q --user 16 -f __arm64_sys_getpriority -o /tmp/u.rec -- fw_user_fp chain \
	>/dev/null
ktap_expect "the user frames recorded (U lines)" "$(grep -c '^U ' /tmp/u.rec)" -ge 1
ktap_expect "report shows them" -n "$(framewalk report -F /tmp/u.rec | grep -m1 ' \[u')"
ktap_expect "the module's user is 0 again" "$(cat $P/user)" = 0
# fw_user_fp's chain has 8 user frames (test_user.sh): more than user=4 walks.
echo 4 >"$P/user"
rm -f /tmp/u.rec
framewalk record -q --user=16 -f __arm64_sys_getpriority -o /tmp/u.rec -- fw_user_fp chain \
	>/dev/null
ktap_expect "--user=16 over user=4: more than 4 user frames" \
	"$(awk '$1 == "U" && $4 > 4' /tmp/u.rec | wc -l)" -ge 1
ktap_expect "... and the module's user as record found it" "$(cat $P/user)" = 4
echo 0 >"$P/user"
ktap_case_end "record --user records user frames and puts the module's user back"

# Four writers: sh and dd, each on CPU 0 and CPU 1.
WRITERS="taskset -c 0 sh -c '$W'; taskset -c 1 sh -c '$W';
	echo write | taskset -c 0 dd of=$T/trigger 2>/dev/null;
	echo write | taskset -c 1 dd of=$T/trigger 2>/dev/null"
# kept OPTIONS...: "CPU:COMM" of each chain record keeps with OPTIONS.
kept() {
	rm -f /tmp/c.rec
	framewalk record -q -f fw_test_leaf "$@" -o /tmp/c.rec -- sh -c "$WRITERS"
	awk '$1 == "C" { comm[$2] = $3 } $1 == "E" { e[n++] = $2 " " $4 }
	     END { for (i = 0; i < n; i++) { split(e[i], f, " "); print f[1] ":" comm[f[2]] } }' \
		/tmp/c.rec | sort | tr '\n' ' '
}
ktap_expect "without a filter, the four chains" "$(kept)" = "0:dd 0:sh 1:dd 1:sh "
ktap_expect "--comm dd keeps dd's" "$(kept --comm dd)" = "0:dd 1:dd "
ktap_expect "-C 1 keeps CPU 1's" "$(kept -C 1)" = "1:dd 1:sh "
ktap_expect "--comm 'd*,nothing' -C 0-0 keeps dd's on CPU 0" \
	"$(kept --comm 'd*,nothing' -C 0-0)" = "0:dd "
n=$(framewalk stream -q -f fw_test_leaf --comm sh -C 0 -- sh -c "$WRITERS" | grep -c ' sh-.*fw_test_leaf <- ')
ktap_expect "stream --comm sh -C 0 prints sh's chain on CPU 0 alone ($n)" "$n" = 1
ktap_case_end "--comm and -C keep the events of a task name and a CPU"

# Found counting (aggregate=1), profile turns it back on at the end; param_attr_show runs
# when anything reads a module parameter, as profile does after the run: counted then, it
# would be in what profile prints. Three writes are the run's three hits.
rmmod framewalk
insmod "$FW_KO_DIR/framewalk.ko" filter=fw_test_leaf,param_attr_show depth=8 aggregate=1 ||
	ktap_fail "insmod filter=fw_test_leaf,param_attr_show failed"
framewalk profile -o /tmp/p.rec -- sh -c "$W; $W; $W" >/tmp/p.txt 2>/tmp/p.err
sed 's/^/# /' /tmp/p.txt /tmp/p.err | cut -c1-200
summary=$(grep '^framewalk: [0-9]* hits in' /tmp/p.err | cut -d' ' -f2,5)
ktap_expect "the summary: the run's 3 hits in 1 chain" "$summary" = "3 1"
ktap_expect "top's heading counts the same hits and chains" \
	-n "$(sed -n '1{/ along 1 chains of 3 hits$/p}' /tmp/p.txt)"
ktap_expect "the saved recording holds them" "$(awk '$1 == "A" { h += $2; c++ }
	END { print h + 0, c + 0 }' /tmp/p.rec)" = "$summary"
ktap_expect "aggregate is on again, as profile found it" "$(cat $P/aggregate)" = Y
ktap_case_end "profile prints the numbers of one reading, taken when counting stopped"

fw_unload_all
ktap_exit
