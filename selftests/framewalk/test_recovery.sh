#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: with return trampolines in the chains (function_graph on syscall and IRQ path functions, function_graph everywhere, kretprobes on ksys_read and do_el0_svc, both at once, an fprobe exit where the kernel has fprobe), every chain equals the kernel unwinder's trace of the same call with the real return addresses, in the top-level buffer and in an instance; the recovered mark is set exactly on the frames whose return address a trampoline had replaced
# requires: framewalk.ko, fw_oracle.ko, tracefs, debugfs, function_graph tracer, kprobe_events
. "$(dirname "$0")/fw_lib.sh"
FUNCS="vfs_read vfs_write do_sys_openat2 hrtimer_interrupt"
# The chains whose every frame was entered after the set-up; an IRQ's chain
# runs into the frames of whatever it interrupted, which may predate it.
SYSCALL_FUNCS="vfs_read vfs_write do_sys_openat2"
GRAPH_SYSCALL="ksys_read __arm64_sys_openat invoke_syscall"
GRAPH_IRQ="handle_percpu_devid_irq generic_handle_domain_irq"
KRET="ksys_read do_el0_svc"
fw_test_begin 10
list=$(echo $FUNCS | tr ' ' ,)
P=/sys/module/framewalk/parameters

workload() {
	for i in 1 2 3 4 5 6; do
		fw_read_file
		ls / >/dev/null
		echo "$i" >/tmp/fw_recovery_w
		usleep 20000
	done
}

# Address ranges "START END" (16 hex digits, END exclusive) of the functions
# named, from the sorted text symbols: where each frame was saved.
ranges_of() {
	grep ' [tT] ' /proc/kallsyms | sort | awk -v names=" $* " '
		prev != "" { print prev, $1; prev = "" }
		index(names, " " $3 " ") { prev = $1 }'
}

# marks_case NAME HOOKED...: on the last compare's chains of SYSCALL_FUNCS,
# bit j of recovered is set exactly where frame j was saved by a function in
# HOOKED, that is where the address before it (the parent for frame 0) lies
# in one. Addresses are 16 hex digits: string order is numeric order. Ends a case.
marks_case() {
	name=$1
	shift
	ranges_of "$@" >/tmp/fw_hooked
	awk -v funcs=" $SYSCALL_FUNCS " '
	FILENAME == "/tmp/fw_hooked" { lo[++nr] = $1; hi[nr] = $2; next }
	function hooked(a,    i) {
		a = sprintf("%16s", a)
		gsub(/ /, "0", a)
		for (i = 1; i <= nr; i++)
			if (a >= lo[i] && a < hi[i])
				return 1
		return 0
	}
	$1 == "C" && index(funcs, " " $2 " ") {
		mask = $6
		# The mask as a string of bits, frame 0 first.
		got = ""
		for (i = length(mask); i >= 1; i--) {
			d = index("0123456789abcdef", substr(mask, i, 1)) - 1
			for (b = 0; b < 4; b++) { got = got (d % 2); d = int(d / 2) }
		}
		want = ""
		for (j = 0; j < $3; j++)
			# A chain that ends at a trampoline did not recover that frame.
			want = want ($4 == "trampoline" && j == $3 - 1 ? 0 : hooked($(7 + j)))
		while (length(got) < length(want))
			got = got "0"
		if (substr(got, length(want) + 1) ~ /1/ || substr(got, 1, length(want)) != want) {
			bad++
			if (shown++ < 4)
				print "# marks of " $2 ": recovered " got " expected " want
		} else {
			good++
		}
		marked += gsub(/1/, "1", want)
	}
	END { print "MARKS", good + 0, bad + 0, marked + 0 }' /tmp/fw_hooked /tmp/fw_match_all \
		>/tmp/fw_marks
	grep '^#' /tmp/fw_marks
	set -- $(grep '^MARKS' /tmp/fw_marks)
	ktap_note "recovered marks: $2 chains right, $3 wrong, $4 frames marked"
	ktap_expect "every chain's marks are right" "$3" = 0
	ktap_expect "marks were checked on chains" "$2" -ge 10
	if [ "${MARKS_NONE:-}" = 1 ]; then
		ktap_expect "no frame marked: this kernel's unwinder recovers none of them" "$4" = 0
	else
		ktap_expect "some frames were marked" "$4" -gt 0
	fi
	ktap_case_end "$name: the recovered mark is set exactly on the hooked frames"
}

# compare BUFFER NAME RECOVERED STOPS [TRACER]: framewalk against the oracle with the
# workload's events in BUFFER (a tracefs directory) under TRACER; checks the counts, the
# caller ends the case. RECOVERED and STOPS (yes or no): whether frames must have been
# recovered, and whether chains must end at a trampoline the kernel's unwinder did not
# see behind either (kretprobes where recovery= lacks kretprobe); with no, none may.
compare() {
	name=$2 want_recovered=$3 want_stops=$4 tracer=${5:-}
	fw_oracle_compare "$1" "$list" 64 $tracer
	# The graph tracer hooks no return while the top-level buffer is off.
	echo 1 >"$TRACEFS/tracing_on"
	# Once in about six runs on 6.1, an instance with function_graph and a kretprobe on
	# captured no event of either module (0 compared, nothing unpaired, no kernel warning):
	# a capture that holds nothing is taken again, once, and said; any difference still fails.
	if ! grep -q '^RESULT' /tmp/fw_match_out ||
		[ "$(awk '$1 == "RESULT" { n += $3 + $4 + $5 } END { print n + 0 }' \
			/tmp/fw_match_out)" = 0 ]; then
		ktap_note "$name: no event captured; capturing once more"
		fw_oracle_compare "$1" "$list" 64 $tracer
		echo 1 >"$TRACEFS/tracing_on"
	fi
	grep '^#' /tmp/fw_match_out
	set -- $(awk '$1 == "RESULT" { g += $3; b += $4; l += $5; c += $6; r += $7; t += $8
			z += $9 }
		END { print g + 0, b + 0, l + 0, c + 0, r + 0, t + 0, z + 0 }' /tmp/fw_match_out)
	ktap_note "$name: $1 equal, $2 different, $3 unpaired, $4 cut by tracing_on, $5 frames recovered, $6 ended at a trampoline, $7 at a kretprobe's whose instance was gone for the kernel too"
	ktap_expect "at least 10 calls compared" "$1" -ge 10
	ktap_expect "no call differs" "$2" = 0
	ktap_expect "no call unpaired" "$3" = 0
	for fn in $SYSCALL_FUNCS; do
		n=$(awk -v f="$fn" '$1 == "RESULT" && $2 == f { g += $3 } END { print g + 0 }' \
			/tmp/fw_match_out)
		ktap_expect "$fn compared at least 3 times" "$n" -ge 3
	done
	if [ "$want_recovered" = yes ]; then
		ktap_expect "frames were recovered" "$5" -gt 0
	fi
	if [ "$want_stops" = yes ]; then
		ktap_expect "chains ended at the trampoline the kernel shows too" "$6" -gt 0
	else
		ktap_expect "no chain ended at a trampoline" "$6" = 0
	fi
}

# Filters a tracer may not accept on every kernel are added one by one.
graph_filter() {
	echo >"$TRACEFS/set_ftrace_filter"
	for f in "$@"; do
		echo "$f" >>"$TRACEFS/set_ftrace_filter" 2>/dev/null || ktap_note "no $f to graph"
	done
}

kret_on() {
	for f in $KRET; do
		# maxactive 64: no call may go unhooked, or its frame would not be marked.
		echo "r64:fw_kret_$f $f" >>"$TRACEFS/kprobe_events" || ktap_fail "r: on $f refused"
	done
	echo 1 >"$TRACEFS/events/kprobes/enable"
}

kret_off() {
	echo 0 >"$TRACEFS/events/kprobes/enable"
	echo >"$TRACEFS/kprobe_events"
}

I=$TRACEFS/instances/fw_recovery
mkdir -p "$I"

insmod "$FW_KO_DIR/framewalk.ko" filter=vfs_read || ktap_fail "insmod framewalk.ko failed"
recovery=$(cat $P/recovery)
rmmod framewalk
ktap_note "recovery=$recovery on $(uname -r)"
# Where the kernel's unwinder does not see behind kretprobes (5.10), chains end there.
if echo ",$recovery," | grep -q ',kretprobe,'; then
	kret_recovered=yes kret_stops=no
else
	kret_recovered=no kret_stops=yes
fi

# 1. function_graph on syscall and IRQ path functions, events in the top-level buffer.
graph_filter $GRAPH_SYSCALL $GRAPH_IRQ
compare "$TRACEFS" "function_graph on $GRAPH_SYSCALL $GRAPH_IRQ, top-level buffer" yes no \
	function_graph
ktap_expect "the module says it recovers graph" -n "$(echo ",$recovery," | grep ',graph,')"
ktap_case_end "function_graph on the syscall and IRQ paths: chains equal the kernel's"
marks_case "function_graph" $GRAPH_SYSCALL
graph_filter

# 2. function_graph on every function the filter allows, events in an instance:
# the graph tracer's own output would overwrite them in the top-level buffer.
compare "$I" "function_graph everywhere, instance" yes no function_graph
ktap_case_end "function_graph on every function: chains equal the kernel's"

# 3. kretprobes on ancestors.
kret_on
compare "$TRACEFS" "kretprobes on $KRET, top-level buffer" $kret_recovered $kret_stops
kret_off
ktap_case_end "kretprobes on ksys_read and do_el0_svc: chains equal the kernel's"
MARKS_NONE=$([ $kret_recovered = yes ] || echo 1) marks_case "kretprobes" $KRET

# 4. Both at once, on different functions so that each kind is met.
graph_filter ksys_write __arm64_sys_openat invoke_syscall $GRAPH_IRQ
kret_on
compare "$I" "function_graph and kretprobes, instance" yes $kret_stops function_graph
kret_off
graph_filter
ktap_case_end "function_graph and kretprobes at once: chains equal the kernel's"
marks_case "both at once" ksys_write __arm64_sys_openat invoke_syscall $KRET

# 5. An fprobe exit (rethook) where the kernel has fprobe events.
if [ -f "$TRACEFS/dynamic_events" ] &&
	echo 'f:fw_fexit ksys_read%return' >>"$TRACEFS/dynamic_events" 2>/dev/null; then
	echo 'f:fw_fexit_svc do_el0_svc%return' >>"$TRACEFS/dynamic_events"
	echo 1 >"$TRACEFS/events/fprobes/enable"
	compare "$TRACEFS" "fprobe exits on ksys_read and do_el0_svc, top-level buffer" yes no
	echo 0 >"$TRACEFS/events/fprobes/enable"
	echo >"$TRACEFS/dynamic_events"
	ktap_case_end "fprobe exits: chains equal the kernel's"
	marks_case "fprobe exits" $KRET
else
	why="no fprobe events on $(uname -r) (CONFIG_FPROBE_EVENTS)"
	ktap_result skip "fprobe exits: chains equal the kernel's" "$why"
	ktap_result skip "fprobe exits: the recovered mark is set exactly on the hooked frames" "$why"
fi

rmdir "$I"
trouble=$(fw_dmesg_trouble)
ktap_expect "no kernel warnings: $trouble" -z "$trouble"
ktap_case_end "no kernel warnings"
ktap_exit
