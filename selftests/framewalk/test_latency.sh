#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: latency mode: each timed call's duration against function_graph's at the same call in the same boot, within the two hooks' cost; per-chain totals equal the sums of their chain_return events; schedule's chain through nanosleep holds >= 99% of a sleeper's off-CPU time from sched_switch; a filter past the exit hooks' limit refused at load and at run time, leaving nothing behind; unload while timed calls are in flight; framewalk latency prints the module's table
# requires: framewalk.ko, framewalk (the CLI), tracefs, debugfs, function_graph tracer
. "$(dirname "$0")/fw_lib.sh"
fw_test_begin 10
P=/sys/module/framewalk/parameters
LAT=$DEBUGFS/framewalk/latency
LAT_CLEAR=$DEBUGFS/framewalk/folded
KPROBES=$DEBUGFS/kprobes/list
# With a kretprobe for exit hook, a timed call holds function_graph's: framewalk's hook
# enters first (a BRK before the ftrace hook) and returns last (its trampoline is the return
# address function_graph saved). The difference is the two hooks' own work outside
# function_graph's: the BRK and its handler, framewalk's walk at entry, the kretprobe
# trampoline and its handler, 5-25 us mean under TCG (each run's note prints it; about
# 140 us on the debug kernel, KASAN's); and an interrupt that lands in those two windows
# runs inside framewalk's duration only (a timer tick took up to 900 us there, 4 ms on the
# debug kernel; a preemption there, on a loaded host, takes longer). With fprobe (7.2),
# both are function graph users of the same entry and return, in either order: framewalk's
# may be the shorter by the other's work at either end. Under TCG all of it stretches with
# the host's load, as the calls themselves do: the bounds are in units of function_graph's
# median call (a 32-byte read or write, about 5 us unloaded). Every pair is at or above 0
# (fprobe: -300 median calls), 95 % of them within 50 median calls either way (the
# hooks' cost is 1-5 median calls unloaded, 7 on the debug kernel, and grows faster than
# the calls with the host's load: 2.5 times on the debug kernel beside make bench) and 97 %
# within 300 (an interrupt and its softirq under TCG took 5 ms in a window one tracer's
# time covers and not the other's, in 3 of 200 pairs at worst). The
# workload mixes those calls with reads of /proc/kallsyms a thousand times longer: a
# pairing slipped by one call puts a long function_graph call beside a short framewalk one,
# far below 0.

# Calls of unlike durations, so that pairs slipped by one call would differ by more than
# the tolerance, below as well as above: 32-byte reads and writes, and 64 KiB reads of
# /proc/kallsyms that format a thousand symbols each.
workload() {
	for i in 1 2 3 4 5 6 7 8 9 10; do
		fw_read_file
		dd if=/proc/kallsyms of=/dev/null bs=65536 count=1 2>/dev/null
		echo "$i" >/tmp/fw_lat_w
	done
}

# "pid func duration_ns" of function_graph's calls, then "R pid func duration_ns" of
# framewalk's chain_return events, in trace order (funcgraph-proc, funcgraph-tail).
graph_and_returns() {
	awk '
	/chain_return:/ {
		pid = $0; sub(/^[^|]*-/, "", pid); sub(/[^0-9].*/, "", pid)
		d = $0; sub(/.*duration=/, "", d); sub(/[^0-9].*/, "", d)
		f = $0; sub(/.*chain_return: /, "", f); sub(/ .*/, "", f)
		print "R", pid, f, d
		next
	}
	/ us +\|/ && (/\(\);/ || /\} \/\*/) {
		pid = $0; sub(/^[^|]*-/, "", pid); sub(/[^0-9].*/, "", pid)
		us = $0; sub(/ us +\|.*/, "", us); sub(/.*[| +!#*@$]/, "", us)
		f = $0; sub(/.*\| +/, "", f); sub(/^\} \/\* /, "", f); sub(/[ ();*\/].*/, "", f)
		# Printed in 7 columns: long calls lose their last digits of ns.
		n = split(us, p, ".")
		frac = n > 1 ? p[2] : ""
		q = 1
		while (length(frac) < 3) {
			frac = frac "0"
			q *= 10
		}
		print "G", pid, f, p[1] * 1000 + frac, q
	}' "$TRACEFS/trace"
}

# 1-3: durations against function_graph, and totals against the events, at depth 0, where
# a chain is the function and its caller, as both name them.
echo 8192 >"$TRACEFS/buffer_size_kb"
echo "vfs_read vfs_write" >"$TRACEFS/set_ftrace_filter"
insmod "$FW_KO_DIR/framewalk.ko" filter=vfs_read,vfs_write latency=1 depth=0 ||
	ktap_fail "insmod filter=vfs_read,vfs_write latency=1 failed"
echo 1 >"$TRACEFS/events/framewalk/chain_return/enable"
# The tracer's options exist once it is the current tracer.
echo function_graph >"$TRACEFS/current_tracer"
for o in funcgraph-proc funcgraph-tail nofuncgraph-overhead nofuncgraph-irqs; do
	echo $o >"$TRACEFS/trace_options" || ktap_fail "trace option $o"
done
# Once untraced: under TCG a first run translates the hooks' code, in one of the windows
# only framewalk's duration holds.
echo 0 >"$TRACEFS/tracing_on"
workload
# The counts start with the trace: latency off while the table's chains, the trace and the
# counters are emptied, so that no write of this shell is charged and not traced; the write
# that turns it on is not timed (its entry came before the hooks).
echo 0 >$P/latency
echo >"$LAT_CLEAR"
echo >"$TRACEFS/trace"
echo >"$FW_STATS"
echo 1 >"$TRACEFS/tracing_on"
echo 1 >$P/latency
# In a child: the write that turns tracing on returned traced but was not entered so, and
# this shell's calls are left out of the pairs.
(workload)
# Latency off first: from then on no call is charged and no chain_return written, so the
# table and the trace end at the same call (the write that turns it off charges nothing).
echo 0 >$P/latency
echo 0 >"$TRACEFS/tracing_on"
graph_and_returns >/tmp/fw_lat_pairs
awk -v self=$$ '$2 == self { next }
$1 == "G" { g[$2 " " $3, ++ng[$2 " " $3]] = $4; q[$2 " " $3, ng[$2 " " $3]] = $5 }
$1 == "R" { r[$2 " " $3, ++nr[$2 " " $3]] = $4 }
END {
	for (k in nr) {
		if (ng[k] != nr[k]) { print "COUNT", k, ng[k] + 0, nr[k]; continue }
		for (i = 1; i <= nr[k]; i++) {
			d = r[k, i] - g[k, i]
			print "PAIR", k, r[k, i], g[k, i], d, q[k, i]
		}
	}
	for (k in ng) if (!(k in nr)) print "COUNT", k, ng[k], 0
}' /tmp/fw_lat_pairs >/tmp/fw_lat_cmp
pairs=$(grep -c '^PAIR' /tmp/fw_lat_cmp)
median=$(awk '$1 == "PAIR" { print $5 }' /tmp/fw_lat_cmp | sort -n |
	awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] + 0 }')
HOOKS_NS=$((median * 50))
TOL_NS=$((median * 300))
FLOOR_NS=0
[ "$(cat $P/exit_hook)" = fprobe ] && FLOOR_NS=$((-TOL_NS))
ktap_note "function_graph's median call $median ns: bounds $HOOKS_NS ns (95%), $TOL_NS ns (97%)"

counts=$(grep -c '^COUNT' /tmp/fw_lat_cmp)
# Outside: framewalk's shorter than function_graph's (beyond its printed precision) or
# longer by more than the hooks' cost.
below=$(awk -v floor=$FLOOR_NS '$1 == "PAIR" && $6 < floor - $7' /tmp/fw_lat_cmp | wc -l)
within=$(awk -v tol=$TOL_NS '$1 == "PAIR" { n++; if ($6 <= tol && $6 >= -tol) k++ } END { print (n > 0 && k * 100 >= n * 97) ? 1 : 0 }' /tmp/fw_lat_cmp)
ktap_note "$(awk '$1 == "PAIR" { d = $6; n++; s += d; if (n == 1 || d < lo) lo = d; if (d > hi) hi = d }
	END { printf "%d pairs: framewalk - function_graph from %d to %d ns, mean %d ns\n", n, lo, hi, n ? s / n : 0 }' /tmp/fw_lat_cmp)"
grep '^COUNT' /tmp/fw_lat_cmp | head -5 | sed 's/^/# /'
awk -v tol=$TOL_NS -v floor=$FLOOR_NS '$1 == "PAIR" && ($6 < floor - $7 || $6 > tol)' \
	/tmp/fw_lat_cmp | head -5 | sed 's/^/# /'
ktap_expect "20 pairs at least" "$pairs" -ge 20
ktap_expect "each task's calls counted alike by both" "$counts" = 0
ktap_case_end "function_graph and framewalk timed the same calls"
hooks=$(awk -v h=$HOOKS_NS '$1 == "PAIR" { n++; if ($6 <= h && $6 >= -h) k++ } END { print (n > 0 && k * 100 >= n * 95) ? 1 : 0 }' /tmp/fw_lat_cmp)
ktap_expect "no duration below function_graph's by more than $((-FLOOR_NS)) ns" "$below" = 0
ktap_expect "97% within 300 median calls, $TOL_NS ns" "$within" = 1
ktap_expect "95% within 50 median calls, $HOOKS_NS ns" "$hooks" = 1
ktap_expect "20 pairs at least" "$pairs" -ge 20
ktap_case_end "durations equal function_graph's within the hooks' cost"

# Per chain (caller;function at depth 0): the latency file's total is the sum of its
# chain_return events' durations, and its calls their number.
awk '/chain_return:/ {
	f = $0; sub(/.*chain_return: /, "", f); split(f, w, " ")
	p = w[3]; sub(/\+.*/, "", p)
	d = $0; sub(/.*duration=/, "", d); sub(/[^0-9].*/, "", d)
	t[p ";" w[1]] += d; n[p ";" w[1]]++
} END { for (k in t) printf "%s %d %.0f\n", k, n[k], t[k] }' "$TRACEFS/trace" | sort >/tmp/fw_lat_ev
awk '{ c[$1] += $2; t[$1] += $3 } END { for (k in c) printf "%s %d %.0f\n", k, c[k], t[k] }' "$LAT" |
	sort >/tmp/fw_lat_file
if cmp -s /tmp/fw_lat_ev /tmp/fw_lat_file; then
	ktap_result 0 "per-chain calls and totals equal the chain_return events' ($(wc -l </tmp/fw_lat_ev) chains)"
else
	diff /tmp/fw_lat_ev /tmp/fw_lat_file | head -8 | sed 's/^/# /'
	ktap_result 1 "per-chain calls and totals equal the chain_return events'"
fi
returns=$(fw_stat latency_returns)
events=$(grep -c 'chain_return:' "$TRACEFS/trace")
ktap_expect "stats latency_returns ($returns) is the events' count" "$returns" = "$events"
# Tied at entry, charged at return: only the write that turned latency off, whose hooks
# went before it returned, and no other, is tied and never charged.
timed=$(fw_stat latency_timed)
ktap_expect "latency_timed ($timed) is the returns and that write" "$timed" = $((returns + 1))
ktap_case_end "latency_returns counts each charged return, latency_timed each tied call"
rmmod framewalk
fw_trace_reset

# 4: off-CPU. schedule timed, a task that sleeps 20 x 100 ms in nanosleep: the chains through
# the nanosleep system call hold its time asleep, as sched_switch tells it (from switching
# out asleep to switching in, once it is fw_user_fp).
insmod "$FW_KO_DIR/framewalk.ko" filter=schedule latency=1 depth=16 ||
	ktap_fail "insmod filter=schedule latency=1 failed"
echo 1 >"$TRACEFS/events/sched/sched_switch/enable"
# Its pid alone: the guest has other sleepers in nanosleep (a 1 s one). exec keeps the
# pid the shell wrote; the table is cleared after it, since a call counted before the
# filter changed is charged when it returns.
sh -c "echo \$\$ >$P/pid && echo >$LAT_CLEAR && exec fw_user_fp sleep 20 100" \
	>/tmp/fw_lat_sleeper
echo 0 >"$TRACEFS/tracing_on"
pid=$(awk '/^pid/ { print $2 }' /tmp/fw_lat_sleeper)
asleep=$(awk -v pid="$pid" '/sched_switch:/ {
	ts = $0; sub(/:? sched_switch:.*/, "", ts); sub(/.* /, "", ts)
	# As fw_user_fp: before the exec the shell slept in synchronize_rcu() of the clear.
	if ($0 ~ ("prev_comm=fw_user_fp prev_pid=" pid " ") && $0 ~ /prev_state=[SD]/) out = ts
	if ($0 ~ ("next_pid=" pid " ") && out != "") { s += ts - out; out = "" }
} END { printf "%.0f\n", s * 1e9 }' "$TRACEFS/trace")
timed=$(awk '/nanosleep/ { t += $(NF - 3) } END { printf "%.0f\n", t }' "$LAT")
ktap_note "sleeper $pid: asleep $asleep ns by sched_switch, $timed ns in schedule under nanosleep"
grep nanosleep "$LAT" | sed 's/^/# /'
ktap_expect "the sleeper slept 2 s at least" "$asleep" -ge 2000000000
ktap_expect "nanosleep's chains hold >= 99% of it" $((timed * 100)) -ge $((asleep * 99))
# Above it only by schedule's own time on the CPU around the switch (up to 1 ms a call
# under TCG): a call charged twice would double it.
ktap_expect "and no more than 105%" $((timed * 100)) -le $((asleep * 105))
ktap_case_end "off-CPU time by blocking chain"
rmmod framewalk
fw_trace_reset

# 5-6: a filter past the limit. Its functions are counted first: the case is only as good
# as the glob is wide.
wide='vfs_*,do_*,*_read*,*_write*'
nwide=$(grep -cE '^(vfs_|do_)|_read|_write' "$TRACEFS/available_filter_functions")
fw_dmesg_mark
insmod "$FW_KO_DIR/framewalk.ko" "filter=$wide" latency=1 2>/dev/null
loaded=$?
said=$(dmesg | tail -n +$((fw_dmesg_base + 1)) | grep -c 'latency: the filter matches [0-9]* functions; exit hooks (kretprobes) are limited to 256')
left=$(grep -c . "$KPROBES" 2>/dev/null)
ktap_expect "the glob matches more than 256 functions ($nwide)" "$nwide" -gt 256
ktap_expect "load refused" "$loaded" != 0
ktap_expect "a line names the limit" "$said" -ge 1
ktap_expect "no kprobe left ($left)" "${left:-0}" = 0
ktap_case_end "a filter past the exit hooks' limit is refused at load"
insmod "$FW_KO_DIR/framewalk.ko" filter=vfs_read latency=1 || ktap_fail "insmod failed"
echo "$wide" >$P/filter 2>/dev/null
changed=$?
ktap_expect "refused at run time" "$changed" != 0
ktap_expect "the filter stays" "$(cat $P/filter)" = vfs_read
ktap_expect "latency stays on" "$(cat $P/latency)" = Y
# A kretprobe a function; fprobe is no kprobe.
hooks_left=0
[ "$(cat $P/exit_hook)" = kretprobe ] && hooks_left=1
ktap_expect "$hooks_left kprobe as exit hook" "$(grep -c . "$KPROBES")" = $hooks_left
ktap_case_end "a filter past the limit is refused at run time, the one traced kept"
rmmod framewalk

# 7: unload with calls in flight: schedule holds sleeping tasks' calls; reads run beside.
ok=1
for round in 1 2 3; do
	(fw_user_fp sleep 20 10 >/dev/null) &
	sl=$!
	(i=0; while [ $i -lt 200 ]; do fw_read_file; i=$((i + 1)); done) &
	rd=$!
	insmod "$FW_KO_DIR/framewalk.ko" filter=schedule,vfs_read latency=1 || ok=0
	fw_read_file
	rmmod framewalk || ok=0
	wait $sl $rd
done
trouble=$(fw_dmesg_trouble)
[ -z "$trouble" ] || echo "$trouble" | head -5 | sed 's/^/# /'
ktap_expect "three loads and unloads" "$ok" = 1
ktap_expect "no kprobe left" "$(grep -c . "$KPROBES" 2>/dev/null)" = 0
ktap_expect "the kernel log says nothing" "$trouble" = ""
ktap_case_end "unload while timed calls are in flight"

# 8: the stats file agrees with itself while latency counts.
insmod "$FW_KO_DIR/framewalk.ko" filter=vfs_read latency=1 || ktap_fail "insmod failed"
workload
bad=$(fw_stats_inconsistencies)
[ -z "$bad" ] || echo "$bad" | sed 's/^/# /'
ktap_result $([ -z "$bad" ] && [ "$(fw_stat latency_returns)" -gt 0 ]; echo $?) \
	"stats consistent with latency counting"
rmmod framewalk

# 10: the CLI. Its --folded totals are the module's, read once with latency off (the table
# stays after it); dd's reads of /proc/version, 32 bytes at a time and one at its end, are
# each a call of vfs_read timed under ksys_read.
reads=$(($(wc -c </proc/version) / 32 + 2))
framewalk latency -q -k "$FW_KO_DIR/framewalk.ko" -f vfs_read -d 4 --folded -- \
	dd if=/proc/version of=/dev/null bs=32 >/tmp/fw_lat_cli 2>/tmp/fw_lat_cli.err
rc=$?
cli=$(awk '{ t += $NF } END { printf "%.0f\n", t }' /tmp/fw_lat_cli)
module=$(awk '{ t += $(NF - 3) } END { printf "%.0f\n", t }' "$LAT")
calls=$(awk '/ksys_read;vfs_read / { n += $(NF - 4) } END { print n + 0 }' "$LAT")
grep framewalk /tmp/fw_lat_cli.err | sed 's/^/# /'
ktap_expect "exit status 0" "$rc" = 0
ktap_expect "folded totals ($cli) are the table's ($module)" "$cli" = "$module"
ktap_expect "dd's $reads reads timed (at least: $calls calls)" "$calls" -ge "$reads"
ktap_expect "latency put back off" "$(cat $P/latency)" = N
ktap_case_end "framewalk latency reads the module's durations"
rmmod framewalk
ktap_exit
