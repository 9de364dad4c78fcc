#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: hundreds of kernel functions chosen by glob (every syscall entry, VFS, page faults, timers, hard and soft interrupts, workqueues, process life): every chain framewalk writes at them equals the kernel unwinder's trace of the same call, frame for frame, plainly and under function_graph on the same functions; the test names each function it compared
# requires: framewalk.ko, fw_oracle.ko, tracefs, debugfs, function_graph tracer
. "$(dirname "$0")/fw_lib.sh"
# Globs and names; those this kernel cannot trace (renamed, inlined, notrace) are left
# out and said. From the syscall layer down to the interrupt entry, so that the chains
# cross the task, IRQ and softirq stacks.
CANDIDATES="__arm64_sys_* vfs_* ksys_* do_sys_* do_filp_open path_* lookup_* filename_lookup
filemap_* generic_file_* seq_read* pipe_read pipe_write do_mmap mmap_region do_mem_abort do_page_fault do_translation_fault
handle_mm_fault __handle_mm_fault filemap_fault do_execveat_common kernel_clone copy_process
do_exit kernel_wait4 wake_up_process try_to_wake_up schedule_timeout do_nanosleep
hrtimer_nanosleep hrtimer_interrupt __hrtimer_run_queues hrtimer_wakeup tick_sched_timer
update_process_times run_timer_softirq call_timer_fn __do_softirq handle_softirqs
handle_percpu_devid_irq handle_fasteoi_irq generic_handle_domain_irq process_one_work"
# Calls compared at least, and functions covered at least, in each capture.
MIN_CALLS=500
MIN_FUNCS=70
fw_test_begin 3

AVAIL=$TRACEFS/available_filter_functions
list=
hooked=0
# The globs are ftrace's, not the shell's.
set -f
for g in $CANDIDATES; do
	re="^$(echo "$g" | sed 's/\*/[^ ]*/g')\( \|$\)"
	n=$(grep -c "$re" "$AVAIL")
	if [ "$n" = 0 ]; then
		ktap_note "not traceable here: $g"
		continue
	fi
	hooked=$((hooked + n))
	list=${list:+$list,}$g
done
set +f
ktap_note "$hooked functions hooked by $(echo "$list" | tr ',' '\n' | grep -c .) globs"

# Something of every kind: files, pipes, processes, sleeps, page faults, timers.
workload() {
	ls -l / /proc/self >/dev/null
	cat /proc/version /proc/self/maps >/dev/null
	echo wide | cat | wc -c >/dev/null
	dd if=/dev/zero of=/tmp/fw_wide bs=4k count=8 2>/dev/null
	cp /tmp/fw_wide /tmp/fw_wide2
	mv /tmp/fw_wide2 /tmp/fw_wide3
	stat /tmp/fw_wide3 >/dev/null
	mkdir -p /tmp/fw_wide_d
	ln -sf /tmp/fw_wide /tmp/fw_wide_d/l
	readlink /tmp/fw_wide_d/l >/dev/null
	chmod 600 /tmp/fw_wide3
	touch /tmp/fw_wide_d/t
	rm -rf /tmp/fw_wide /tmp/fw_wide3 /tmp/fw_wide_d
	find /proc/self/ -maxdepth 1 >/dev/null 2>&1
	sort /proc/modules >/dev/null
	date >/dev/null
	uname -a >/dev/null
	ps >/dev/null 2>&1
	sh -c 'exit 3'
	usleep 30000
}

# wide NAME [TRACER]: one capture of both views; a case per capture.
wide() {
	fw_trace_reset
	fw_oracle_compare "$TRACEFS" "$list" 64 ${2:-}
	grep '^# mismatch' /tmp/fw_match_out | head -n 20
	# One RESULT line per function and CPU: a function counts once.
	set -- "$1" $(awk '$1 == "RESULT" { g += $3; b += $4; l += $5; c += $6
			if ($3 && !seen[$2]++) f++ }
		END { print g + 0, b + 0, l + 0, c + 0, f + 0 }' /tmp/fw_match_out)
	ktap_note "$1: $2 calls equal, $3 different, $4 unpaired, $5 cut by tracing_on, over $6 functions"
	ktap_note "$1: compared at $(awk '$1 == "RESULT" && $3 && !seen[$2]++ {
		printf "%s%s", s, $2; s = " " }' /tmp/fw_match_out)"
	ktap_expect "$1: at least $MIN_CALLS calls compared" "$2" -ge $MIN_CALLS
	ktap_expect "$1: no call differs" "$3" = 0
	# A hit whose two events straddle tracing_on, or lost to a full buffer: one in 200.
	ktap_expect "$1: at most one call in 200 unpaired" $(($4 * 200)) -le "$2"
	ktap_expect "$1: at least $MIN_FUNCS functions compared" "$6" -ge $MIN_FUNCS
	ktap_case_end "$1: framewalk equals the kernel unwinder on $6 functions"
}

# Room for both views of every call: 64 frames an event.
old_kb=$(cat "$TRACEFS/buffer_size_kb")
echo 8192 >"$TRACEFS/buffer_size_kb"
wide "plain"
# The graph tracer on the same functions: a return trampoline in every chain it crosses.
echo >"$TRACEFS/set_ftrace_filter"
set -f
for g in $(echo "$list" | tr ',' ' '); do
	echo "$g" >>"$TRACEFS/set_ftrace_filter"
done
set +f
wide "under function_graph" function_graph
echo >"$TRACEFS/set_ftrace_filter"
echo "$old_kb" >"$TRACEFS/buffer_size_kb"
trouble=$(fw_dmesg_trouble)
ktap_expect "no kernel warnings: $trouble" -z "$trouble"
ktap_case_end "no kernel warnings"
ktap_exit
