#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs in the arm64 guest: cost per call of fw_bench_tracee() under each
# tracing setup (median of REPS runs of CALLS calls), then framewalk's event
# rate with readers draining the buffers. Prints "BENCH name ns_x1000" and
# "SUSTAIN ..." lines for scripts/bench.sh.
T=/sys/kernel/tracing
B=/sys/kernel/debug/fw_bench
CALLS=${CALLS:-50000}
REPS=${REPS:-3}

insmod /fw/ko/fw_bench.ko || exit 1

median_run() {
	calls=$1
	for r in $(seq "$REPS"); do
		echo "$calls" >$B/run
		cut -d' ' -f3 $B/run
	done | sort -n | sed -n "$(((REPS + 1) / 2))p"
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
echo 1 >$B/nop_ops
bench nop_ops
echo 0 >$B/nop_ops

echo fw_bench_tracee >$T/set_ftrace_filter
echo function >$T/current_tracer
bench function
echo 1 >$T/options/func_stack_trace
bench function_stack_trace $((CALLS / 10))
reset

for depth in 0 8 16 32; do
	insmod /fw/ko/framewalk.ko filter=fw_bench_tracee depth=$depth
	bench "framewalk_d${depth}_events_off"
	echo 1 >$T/events/framewalk/chain/enable
	bench "framewalk_d${depth}_events_on"
	echo 0 >$T/events/framewalk/chain/enable
	rmmod framewalk
	reset
done

# Sustained rate: depth 16, events on, one raw reader per CPU draining.
insmod /fw/ko/framewalk.ko filter=fw_bench_tracee depth=16
echo 1 >$T/events/framewalk/chain/enable
for c in $T/per_cpu/cpu*; do
	cat "$c/trace_pipe_raw" >/dev/null &
done
before=$(awk '/^overrun/ { s += $2 } END { print s + 0 }' $T/per_cpu/cpu*/stats)
echo $((CALLS * 4)) >$B/run
set -- $(cat $B/run)
after=$(awk '/^overrun/ { s += $2 } END { print s + 0 }' $T/per_cpu/cpu*/stats)
events=$(awk '$1 == "events" { print $2 }' /sys/kernel/debug/framewalk/stats)
echo "SUSTAIN events=$events ns=$2 dropped=$((after - before)) buffer_kb=$(cat $T/buffer_size_kb)"
kill $(jobs -p) 2>/dev/null
echo 0 >$T/events/framewalk/chain/enable
rmmod framewalk
rmmod fw_bench
