#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: 200 load/unload cycles and parameter rewrites while traced functions run hot on both CPUs, in task, softirq and hard-IRQ context and across sleeps, events, aggregation and latency mode on in turn and together, the rewrites with function_graph and kretprobes hooking the chains' ancestors; rmmod with tracing and aggregation active; no kernel warning, statistics consistent
# requires: framewalk.ko, tracefs, debugfs
. "$(dirname "$0")/fw_lib.sh"
# make check runs fewer (each cycle costs about 2 s under qemu's TCG); make stress the full set.
CYCLES=${FW_STRESS_CYCLES:-200}
REWRITES=${FW_STRESS_REWRITES:-60}
# vfs_read in tasks, run_timer_softirq in softirq, hrtimer_interrupt in hard IRQ,
# do_nanosleep sleeps inside the traced call.
FUNCS=vfs_read,run_timer_softirq,hrtimer_interrupt,do_nanosleep
fw_test_begin 4
P=/sys/module/framewalk/parameters

load_pids=
for cpu in 0 1; do
	( while :; do fw_read_file; usleep 500; done ) &
	load_pids="$load_pids $!"
done

loaded=0
for i in $(seq "$CYCLES"); do
	insmod "$FW_KO_DIR/framewalk.ko" filter=$FUNCS depth=$((i % 65)) instance=fw_stress \
		aggregate=$((i % 2)) latency=$((i % 3 == 0)) ||
		break
	# Every few cycles let events flow before the unload.
	[ $((i % 10)) = 0 ] && usleep 20000
	rmmod framewalk || break
	loaded=$i
done
ktap_note "$loaded of $CYCLES load/unload cycles"
ktap_expect "all cycles completed" "$loaded" = "$CYCLES"
ktap_case_end "$CYCLES load/unload cycles under load, events on, aggregation every other, latency every third"

insmod "$FW_KO_DIR/framewalk.ko" filter=$FUNCS depth=16 instance=fw_stress aggregate=1 ||
	ktap_fail "insmod failed"
# Return hooks on the ancestors, so walks take the recovery path throughout.
echo ksys_read >"$TRACEFS/set_ftrace_filter"
echo __hrtimer_run_queues >>"$TRACEFS/set_ftrace_filter"
echo function_graph >"$TRACEFS/current_tracer"
echo 'r64:fw_stress_kret do_el0_svc' >"$TRACEFS/kprobe_events"
echo 1 >"$TRACEFS/events/kprobes/enable"
refused=0
for i in $(seq "$REWRITES"); do
	case $((i % 4)) in
	0) echo "vfs_read,do_nanosleep" >$P/filter || refused=$((refused + 1)) ;;
	1) echo $FUNCS >$P/filter || refused=$((refused + 1)) ;;
	2) echo "run_timer_softirq" >$P/notrace || refused=$((refused + 1)) ;;
	3) echo "" >$P/notrace || refused=$((refused + 1)) ;;
	esac
	echo $((i % 65)) >$P/depth || refused=$((refused + 1))
	[ $((i % 5)) = 0 ] && { echo $((i % 2)) >$P/aggregate || refused=$((refused + 1)); }
	[ $((i % 7)) = 0 ] && { echo >"$DEBUGFS/framewalk/folded" || refused=$((refused + 1)); }
	[ $((i % 3)) = 0 ] && { echo $((i / 3 % 2)) >$P/latency || refused=$((refused + 1)); }
	echo fw_no_such_function >$P/filter 2>/dev/null && refused=$((refused + 100))
done
# The reader's own vfs_read calls add events to the buffer it reads (the instance
# does not pause on a read): stop the instance first, or grep chases its own tail.
echo 0 >"$TRACEFS/instances/fw_stress/tracing_on"
recovered=$(grep -c ' chain: .* recovered=0x[1-9a-f]' "$TRACEFS/instances/fw_stress/trace")
echo 1 >"$TRACEFS/instances/fw_stress/tracing_on"
echo 0 >"$TRACEFS/events/kprobes/enable"
echo >"$TRACEFS/kprobe_events"
echo nop >"$TRACEFS/current_tracer"
echo >"$TRACEFS/set_ftrace_filter"
ktap_note "$recovered events in the buffer with recovered frames"
ktap_expect "every good write accepted, every bad one refused" "$refused" = 0
ktap_expect "events flowed" "$(fw_stat events)" -gt 0
ktap_expect "chains were counted" "$(fw_stat aggregated)" -gt 0
ktap_expect "walks recovered frames behind the hooks" "$recovered" -gt 0
# Where the kernel's unwinder does not see behind kretprobes (5.10), walks end at theirs.
# Where the kretprobe trampoline runs its handler in C with interrupts on (6.1), an
# interrupt can meet a trampoline whose instance is gone, where the kernel's unwinder
# finds nothing either (test_recovery holds each such stop to it).
if grep -q ' trampoline_probe_handler$' /proc/kallsyms; then
	ktap_note "$(fw_stat stop.trampoline) walks ended at a trampoline (its handler runs with interrupts on)"
elif grep -q kretprobe /sys/module/framewalk/parameters/recovery; then
	ktap_expect "no walk stopped at a trampoline" "$(fw_stat stop.trampoline)" = 0
else
	ktap_note "$(fw_stat stop.trampoline) walks ended at a kretprobe's trampoline (recovery=graph)"
fi
ktap_case_end "filter, notrace, depth, aggregate and latency rewritten, counts cleared, under load, function_graph and a kretprobe on"

kill $load_pids
wait 2>/dev/null
usleep 100000
bad=$(fw_stats_inconsistencies)
echo "$bad" | sed 's/^/# /'
grep -E '^(hits|walks|events|aggregated|aggregate_dropped|recursion|rcu_off|stop\.)' "$FW_STATS" | tr '\n' ' ' | sed 's/^/# /'
echo
ktap_expect "statistics consistent after the storm" -z "$bad"
ktap_expect "softirq and hard-IRQ functions were hit" "$(fw_stat hits)" -gt 0
ktap_case_end "statistics stay consistent"

# Unload while the event, the aggregation and latency mode are on and the functions are hot.
echo 1 >$P/aggregate
echo 1 >$P/latency
( while :; do fw_read_file; done ) &
hot=$!
usleep 50000
rmmod framewalk || ktap_fail "rmmod under load failed"
kill $hot
wait 2>/dev/null
rmdir "$TRACEFS/instances/fw_stress"
trouble=$(fw_dmesg_trouble)
ktap_expect "no kernel warnings: $trouble" -z "$trouble"
ktap_expect "no kprobe left" ! -s "$DEBUGFS/kprobes/list"
ktap_case_end "rmmod with tracing active; dmesg clean"
ktap_exit
