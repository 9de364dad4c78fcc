#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs in the arm64 guest: cost per call of fw_bench_tracee() under each
# tracing setup (median of REPS runs of CALLS calls), bpftrace's among them
# (PEER=0 leaves them out), then framewalk's event rate with readers draining
# the buffers. Prints "BENCH name median min max" (ns_x1000 per call), "NA
# name why" for a setup that could not run, and "SUSTAIN ..." lines for
# scripts/bench.sh. Under scripts/guest.sh -I the clock counts instructions:
# then RATES=0 leaves out the event rates, which mean something only in time.
T=/sys/kernel/tracing
B=/sys/kernel/debug/fw_bench
CALLS=${CALLS:-50000}
REPS=${REPS:-3}
RATES=${RATES:-1}
PEER=${PEER:-1}

insmod /fw/ko/fw_bench.ko || exit 1

# run_calls CALLS: the calls, made by this shell's write, or with USER_DEPTH set by
# fw_user_fp's from that many user frames deep (the user frames' cost).
run_calls() {
	if [ -n "${USER_DEPTH:-}" ]; then
		fw_user_fp write "$USER_DEPTH" $B/run "$1" >/dev/null
	else
		echo "$1" >$B/run
	fi
}

# median_run CALLS: "median min max" of REPS runs, per call.
median_run() {
	calls=$1
	for r in $(seq "$REPS"); do
		run_calls "$calls"
		cut -d' ' -f3 $B/run
	done | sort -n | awk -v m=$(((REPS + 1) / 2)) 'NR == 1 { lo = $1 } NR == m { med = $1 }
		{ hi = $1 } END { print med, lo, hi }'
}

reset() {
	echo 0 >$T/tracing_on
	echo nop >$T/current_tracer
	echo 0 >$T/options/func_stack_trace
	echo >$T/set_ftrace_filter
	echo 0 >$T/events/enable
	echo >$T/trace
	echo 1 >$T/tracing_on
}

bench() {
	echo "BENCH $1 $(median_run "${2:-$CALLS}")"
}

reset
bench untraced
# The layers of a trace event, each with fw_bench's own minimal callback.
echo nop >$B/probe
bench nop_ops
echo ring_buffer >$B/probe
bench probe_ring_buffer
echo 1 >$T/events/fw_bench/bare/enable
echo event >$B/probe
bench probe_trace_event
echo off >$B/probe
reset

echo fw_bench_tracee >$T/set_ftrace_filter
echo function >$T/current_tracer
bench function
echo 1 >$T/options/func_stack_trace
bench function_stack_trace $((CALLS / 10))
reset

# The same function tracer in an instance: its ops is allocated, as a
# module's is, so ftrace dispatches to it as it does to framewalk's (6.1 calls
# both through ftrace_ops_list_func; the top level's static ops is called directly).
I=$T/instances/fw_bench
mkdir $I
echo fw_bench_tracee >$I/set_ftrace_filter
echo function >$I/current_tracer
bench function_instance
echo nop >$I/current_tracer
rmdir $I

for depth in 0 8 16 32; do
	insmod /fw/ko/framewalk.ko filter=fw_bench_tracee depth=$depth
	bench "framewalk_d${depth}_events_off"
	echo 1 >$T/events/framewalk/chain/enable
	bench "framewalk_d${depth}_events_on"
	echo 0 >$T/events/framewalk/chain/enable
	rmmod framewalk
	reset
done

# The process lists, checked before the walk: notrace_pid naming another
# process (init) makes every hit pay the check and still walk; pid naming only
# init leaves this loop's hits unwalked, as a reader's own reads would be.
insmod /fw/ko/framewalk.ko filter=fw_bench_tracee depth=16 notrace_pid=1
echo 1 >$T/events/framewalk/chain/enable
bench framewalk_d16_events_on_pid_checked
echo >/sys/module/framewalk/parameters/notrace_pid
# The event without records[]: half the payload, one store a frame fewer.
echo 0 >/sys/module/framewalk/parameters/records
bench framewalk_d16_events_on_no_records
echo 1 >/sys/module/framewalk/parameters/records
echo 1 >/sys/module/framewalk/parameters/pid
bench framewalk_d16_pid_excluded
echo 0 >$T/events/framewalk/chain/enable
rmmod framewalk
reset

# User frames: the calls run in fw_user_fp's write to fw_bench/run from 40
# recursive frames, a system call of a user task, so user=N walks those. The
# cost per user frame is the difference of two user settings over the
# difference of their frames ("USERFRAMES user=N frames=F", from one event of
# each); user0 against d16_events_on is what user frames cost while off.
USER_DEPTH=40
for user in 0 2 64; do
	insmod /fw/ko/framewalk.ko filter=fw_bench_tracee depth=16 user=$user
	# Both events, as framewalk record enables them: user=0 writes chain, user=N chain_user.
	echo 1 >$T/events/framewalk/enable
	bench "framewalk_d16_events_on_user${user}"
	echo 0 >$T/events/framewalk/enable
	echo "USERFRAMES user=$user frames=$(grep -m1 -o 'nr_user=[0-9]*' $T/trace | cut -d= -f2)"
	rmmod framewalk
	reset
done
USER_DEPTH=

# Aggregation: the chain counted in the module, no event. Every walked call
# must be counted (none dropped), however fast the calls come.
for depth in 0 16 32; do
	insmod /fw/ko/framewalk.ko filter=fw_bench_tracee depth=$depth aggregate=1
	bench "framewalk_d${depth}_aggregate"
	S=/sys/kernel/debug/framewalk/stats
	echo "AGGREGATE depth=$depth" \
		"walks=$(awk '$1 == "walks" { print $2 }' $S)" \
		"aggregated=$(awk '$1 == "aggregated" { print $2 }' $S)" \
		"dropped=$(awk '$1 == "aggregate_dropped" { print $2 }' $S)" \
		"chains=$(wc -l </sys/kernel/debug/framewalk/chains)"
	rmmod framewalk
	reset
done

# Latency mode: each call timed from entry to return and charged to its chain (the exit
# hook a kretprobe), against the tracer that times calls in the kernel, function_graph.
insmod /fw/ko/framewalk.ko filter=fw_bench_tracee depth=16 latency=1
bench framewalk_d16_latency
S=/sys/kernel/debug/framewalk/stats
echo "LATENCY returns=$(awk '$1 == "latency_returns" { print $2 }' $S)" \
	"untimed=$(awk '$1 == "latency_untimed" { print $2 }' $S)" \
	"missed=$(awk '$1 == "latency_missed" { print $2 }' $S)"
rmmod framewalk
reset
echo fw_bench_tracee >$T/set_ftrace_filter
echo function_graph >$T/current_tracer
bench function_graph
reset

# The peer a user would pick instead: bpftrace on the same function, its stack
# keyed in a map as framewalk's aggregation keys its chains, and bare counts.
# bt_start PROGRAM: bpftrace running PROGRAM in the background, its probes
# attached (BEGIN fires after them); fails with bpftrace's error in bt.err.
bt_start() {
	bpftrace -e "BEGIN { printf(\"@@ready\\n\"); } $1" >/tmp/bt.out 2>/tmp/bt.err &
	bt=$!
	while ! grep -q '^@@ready' /tmp/bt.out; do
		kill -0 $bt 2>/dev/null || { wait $bt; return 1; }
		sleep 1
	done
}

bt_error() {
	grep -m1 'ERROR' /tmp/bt.err | sed 's/^.*ERROR: *//'
}

# bt_wait: bpftrace's exit, at most 120 s. Its detach waits for RCU grace
# periods, and one TCG guest on a loaded host stayed there for good (guest
# seconds: under -I an idle guest skips them).
bt_wait() {
	for i in $(seq 120); do
		kill -0 $bt 2>/dev/null || { wait $bt; return 0; }
		sleep 1
	done
	kill -KILL $bt
	return 1
}

# bt_bench NAME PROBE ACTION: the cost per call with bpftrace's PROBE doing
# ACTION, and "BPFCOUNT name counted calls" from its maps: a probe that
# missed calls would make the figure mean nothing.
bt_bench() {
	if ! command -v bpftrace >/dev/null; then
		echo "NA $1 no bpftrace in this guest"
	elif bt_start "$2 { $3 }"; then
		bench "$1"
		kill -INT $bt
		if bt_wait; then
			echo "BPFCOUNT $1 $(awk '/^(@|\]).*: [0-9]+$/ { s += $NF }
				END { print s + 0 }' /tmp/bt.out) $((REPS * CALLS))"
		else
			echo "BPFSTUCK $1 bpftrace had not exited 120 s after SIGINT"
		fi
	else
		echo "NA $1 bpftrace: $(bt_error)"
	fi
}

if [ "$PEER" = 1 ]; then
	bt_bench bpftrace_kprobe_kstack16 kprobe:fw_bench_tracee '@[kstack(16)] = count();'
	bt_bench bpftrace_kprobe_count kprobe:fw_bench_tracee '@ = count();'
	bt_bench bpftrace_kfunc_kstack16 kfunc:fw_bench_tracee '@[kstack(16)] = count();'
	bt_bench bpftrace_kfunc_count kfunc:fw_bench_tracee '@ = count();'
	# Latency by stack, as bpftrace users write it: the stack at entry keyed by thread,
	# a histogram of the time to the return; @c counts the returns for BPFCOUNT, and the
	# per-thread maps are cleared so that only it prints a count.
	bt_bench bpftrace_kretprobe_hist16 \
		'kprobe:fw_bench_tracee { @t[tid] = nsecs; @s[tid] = kstack(16); } kretprobe:fw_bench_tracee' \
		'@h[@s[tid]] = hist(nsecs - @t[tid]); @c = count(); } END { clear(@t); clear(@s);'
	reset
fi
# One stack of each kind, as bpftrace prints it, for what it holds; and
# whether kfunc attaches on this kernel at all (to a function with BTF in
# vmlinux), to say why it did not on the benchmark's.
if [ "$PEER" = 1 ] && command -v bpftrace >/dev/null; then
	for probe in kprobe kfunc; do
		if bt_start "$probe:fw_bench_tracee { printf(\"%s\", kstack(16)); exit(); }"; then
			echo 1 >$B/run
			bt_wait
			sed -n 's/^[[:space:]]\{1,\}\([^[:space:]]\)/BPFSTACK '$probe' \1/p' /tmp/bt.out
		else
			echo "BPFSTACK $probe none: $(bt_error)"
		fi
	done
	if bt_start 'kfunc:vfs_read { exit(); }'; then
		cat /proc/version >/dev/null
		bt_wait
		echo "BPFKFUNC vmlinux attached"
	else
		echo "BPFKFUNC vmlinux $(bt_error)"
	fi
	reset
fi

if [ "$RATES" = 0 ]; then
	rmmod fw_bench
	exit 0
fi

# Sustained rate: depth 16, events on, one raw reader per CPU draining.
overruns() {
	awk '/^overrun/ { s += $2 } END { print s + 0 }' $T/per_cpu/cpu*/stats
}

# paced GAP_NS CALLS: one run at that pause between calls; prints "events ns dropped".
paced() {
	echo "$1" >$B/gap_ns
	echo 0 >/sys/kernel/debug/framewalk/stats
	before=$(overruns)
	echo "$2" >$B/run
	ns=$(cut -d' ' -f2 $B/run)
	events=$(awk '$1 == "events" { print $2 }' /sys/kernel/debug/framewalk/stats)
	echo "$events $ns $(($(overruns) - before))"
}

insmod /fw/ko/framewalk.ko filter=fw_bench_tracee depth=16
echo 1 >$T/events/framewalk/chain/enable
# trace_pipe_raw ends a read with EOF now and then while events keep coming
# (seen here under the flood: a reader that stopped there drained nothing
# after it), so each reader reopens it. dd, not busybox cat, which would use
# sendfile.
for c in $T/per_cpu/cpu*; do
	(while :; do dd if="$c/trace_pipe_raw" of=/dev/null bs=4096 2>/dev/null; done) &
done
set -- $(paced 0 $((CALLS * 4)))
echo "SUSTAIN events=$1 ns=$2 dropped=$3 buffer_kb=$(cat $T/buffer_size_kb)"

# Drop-free rate: the flood's own rate where it lost nothing. Else pace the
# calls (paced runs also yield the CPU between calls): start at twice the
# flood's write rate, halve until a run of SWEEP_CALLS loses nothing, then
# bisect between the last rate that lost events and the first that did not.
# Each run writes several times what the buffer holds.
SWEEP_CALLS=${SWEEP_CALLS:-30000}

# sweep_at RATE: one paced run aimed at RATE events/s; sets rate and dropped.
sweep_at() {
	set -- "$1" $(paced $((1000000000 / $1)) "$SWEEP_CALLS")
	rate=$(($2 * 1000000000 / $3))
	dropped=$4
	echo "SWEEP target=$1 rate=$rate events=$2 dropped=$4"
}

lo=0
if [ "$3" = 0 ]; then
	lo=$(($1 * 1000000000 / $2))
else
	hi=$(($1 * 2000000000 / $2))
	top=
	for step in 1 2 3 4 5 6 7 8; do
		sweep_at "$hi"
		[ "$dropped" = 0 ] && { lo=$rate; break; }
		top=$hi
		hi=$((hi / 2))
	done
	if [ "$lo" != 0 ] && [ -n "$top" ]; then
		for step in 1 2 3; do
			mid=$(((hi + top) / 2))
			sweep_at "$mid"
			if [ "$dropped" = 0 ]; then
				hi=$mid
				[ "$rate" -gt "$lo" ] && lo=$rate
			else
				top=$mid
			fi
		done
	fi
fi
echo "DROPFREE events_per_s=$lo calls=$SWEEP_CALLS"
echo 0 >$B/gap_ns
kill $(jobs -p) 2>/dev/null
killall dd 2>/dev/null
echo 0 >$T/events/framewalk/chain/enable
rmmod framewalk
rmmod fw_bench
