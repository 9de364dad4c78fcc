#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# fw_lib.sh - KTAP output (tests/ktap.sh) and tracefs helpers shared by the framewalk selftests (busybox sh).

TRACEFS=${TRACEFS:-/sys/kernel/tracing}
DEBUGFS=${DEBUGFS:-/sys/kernel/debug}
# Where the .ko files are: next to the tests when installed by kselftest, /fw/ko in the guest.
FW_KO_DIR=${FW_KO_DIR:-$(cd "$(dirname "$0")" && pwd)}
[ -f "$FW_KO_DIR/framewalk.ko" ] || FW_KO_DIR=/fw/ko
FW_STATS=$DEBUGFS/framewalk/stats
KMEMLEAK=$DEBUGFS/kmemleak

KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4

# ktap.sh is tests/ktap.sh, linked here so that an installed suite carries it.
. "$(cd "$(dirname "$0")" && pwd)/ktap.sh"

ktap_exit() {
	ktap_done && exit $KSFT_PASS
	exit $KSFT_FAIL
}

fw_require_root() {
	if [ "$(id -u)" != 0 ]; then
		echo "# SKIP: needs root"
		exit $KSFT_SKIP
	fi
}

# Empty every buffer and switch off what earlier tests left on.
fw_trace_reset() {
	echo 0 >"$TRACEFS/tracing_on"
	echo nop >"$TRACEFS/current_tracer"
	echo 0 >"$TRACEFS/events/enable"
	echo >"$TRACEFS/trace"
	echo 1 >"$TRACEFS/tracing_on"
}

# Start a test of N cases from a clean state: root, nothing loaded, tracing off
# and empty, dmesg marked.
fw_test_begin() {
	fw_require_root
	ktap_header "$1"
	fw_unload_all
	fw_trace_reset
	fw_dmesg_mark
}

fw_stat() {
	awk -v k="$1" '$1 == k { print $2 }' "$FW_STATS"
}

fw_unload_all() {
	for m in framewalk fw_oracle fw_test_chain; do
		grep -q "^$m " /proc/modules && rmmod "$m"
	done
	return 0
}

# fw_load_with_chain ARGS...: the known chains of fw_test_chain.ko, whose debugfs
# triggers are in $T, and framewalk.ko loaded with ARGS.
fw_load_with_chain() {
	T=$DEBUGFS/framewalk_test
	insmod "$FW_KO_DIR/fw_test_chain.ko" || ktap_fail "insmod fw_test_chain.ko failed"
	insmod "$FW_KO_DIR/framewalk.ko" "$@" || ktap_fail "insmod framewalk.ko $* failed"
}

# dmesg lines that say the kernel is unhappy, since the test began.
fw_dmesg_mark() {
	fw_dmesg_base=$(dmesg | wc -l)
}

fw_dmesg_trouble() {
	dmesg | tail -n +$((fw_dmesg_base + 1)) |
		grep -E "WARNING:|BUG:|Oops|Unable to handle|lockdep|RCU|Call trace:|refcount_t" || true
}

# Ask kmemleak for what is unreferenced now; its reports are then in $KMEMLEAK.
fw_kmemleak_scan() {
	# kmemleak ignores objects younger than 5 s; let the last allocations age.
	sleep 6
	# A dead task's stack waits in a cache, still scanned, with the leaked pointer
	# on it: new tasks take (and clear) the cached stacks first.
	for i in 1 2 3 4 5 6 7 8; do /bin/true; done
	# An object is reported only when a scan finds it unchanged since the last one.
	echo scan >"$KMEMLEAK"
	sleep 1
	echo scan >"$KMEMLEAK"
}

# Relay kmemleak's reports into the kernel log, where the kernel log check reads
# everything else, and clear them: a test that clears kmemleak for its own
# findings hides no one else's.
fw_kmemleak_relay() {
	while IFS= read -r line; do
		echo "kmemleak: $line" >/dev/kmsg
	done <"$KMEMLEAK"
	echo clear >"$KMEMLEAK"
}

# Turn framewalk:chain and fw_oracle:stack lines of a trace into fw_match.awk input.
fw_trace_to_match() {
	sed -n \
	-e 's/.* chain: \([^ ]*\) .* nr_ancestors=\([0-9]*\) stop=\([a-z_]*\) tramp=\([a-z]*\) recovered=0x\([0-9a-f]*\) parent_ip=0x\([0-9a-f]*\) .*ancestors={\([^}]*\)}.*/C \1 \2 \3 \4 \5 \6 \7/p' \
	-e 's/.* stack: \([^ ]*\) .*found=\([01]\) entries={\([^}]*\)}.*/O \1 \2 \3/p' |
		sed -e 's/0x//g' -e 's/,/ /g'
}

# fw_oracle_compare BUFFER LIST DEPTH [TRACER]: load framewalk (filter LIST,
# DEPTH) and the oracle module on the same functions, run the caller's
# `workload` with both events in BUFFER (a tracefs directory) and TRACER as
# the current tracer, unload both, and leave fw_match.awk's verdicts in
# /tmp/fw_match_out and the pairs it read in /tmp/fw_match_all.
fw_oracle_compare() {
	# The oracle is registered last so that ftrace calls it first (fw_match.awk).
	insmod "$FW_KO_DIR/framewalk.ko" filter="$2" depth="$3" ${5:-} ||
		ktap_fail "insmod framewalk.ko failed"
	insmod "$FW_KO_DIR/fw_oracle.ko" funcs="$2" || ktap_fail "insmod fw_oracle.ko failed"
	# The tracer starts once both are in: setting their filters looks every
	# ftrace record up in kallsyms, which function_graph on every function
	# traced call by call, into a soft lockup on a busy host under TCG.
	[ -n "${4:-}" ] && echo "$4" >"$TRACEFS/current_tracer"
	# Both views start at the same instant: no hit is seen by only one.
	echo 0 >"$1/tracing_on"
	echo 1 >"$1/events/framewalk/chain/enable"
	echo 1 >"$1/events/fw_oracle/stack/enable"
	echo >"$1/trace"
	echo 1 >"$1/tracing_on"
	workload
	echo 0 >"$1/tracing_on"
	# Per CPU, so the two events of one call stay next to each other.
	: >/tmp/fw_match_all
	for cpu in "$1"/per_cpu/cpu*; do
		fw_trace_to_match <"$cpu/trace" >/tmp/fw_match_in
		cat /tmp/fw_match_in >>/tmp/fw_match_all
		awk -v maxdepth="$3" -f ./fw_match.awk /tmp/fw_match_in
	done >/tmp/fw_match_out
	echo 0 >"$1/events/framewalk/chain/enable"
	echo 0 >"$1/events/fw_oracle/stack/enable"
	[ -n "${4:-}" ] && echo nop >"$TRACEFS/current_tracer"
	rmmod fw_oracle
	rmmod framewalk
}

# fw_wait_recording PID [FILE]: until framewalk record (or stream) PID has its trace
# instance and has written FILE's header (setting the filter and parsing the event formats
# take seconds under TCG), or 60 s have passed.
fw_wait_recording() {
	i=0
	while { [ ! -d "$TRACEFS/instances/framewalk-$1" ] || [ ! -s "${2:-/}" ]; } &&
		[ $i -lt 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

# Read a file with read(2) calls of 32 bytes (busybox cat would use sendfile).
fw_read_file() {
	dd if="${1:-/proc/version}" of=/dev/null bs=32 2>/dev/null
}

# The module's folded file with equal lines merged, sorted: it lists chains that differ only in
# call sites within the same functions as equal lines, which framewalk folded adds up.
fw_folded_merged() {
	awk '{ n = $NF; sub(/ [0-9]+$/, ""); c[$0] += n } END { for (k in c) print k, c[k] }' \
		"$DEBUGFS/framewalk/folded" | sort
}

# Print the inconsistencies of the stats file (per-CPU sums against totals,
# stop reasons against walks, which the module prints as their sum, walks
# against hits, events and aggregated chains against walks); nothing when
# consistent.
fw_stats_inconsistencies() {
	awk '
	/^cpu/ { split($1, k, "."); name = substr($1, length(k[1]) + 2); per[name] += $2; next }
	{ tot[$1] = $2 }
	/^stop\./ { stops += $2 }
	END {
		# latency_missed is counted per exit hook, not per CPU.
		delete tot["latency_missed"]
		for (n in tot) if (tot[n] != per[n]) print n ": total " tot[n] " per-CPU sum " per[n]
		if (stops != tot["walks"]) print "stop reasons " stops " walks " tot["walks"]
		if (tot["walks"] > tot["hits"]) print "more walks than hits"
		if (tot["events"] > tot["walks"]) print "more events than walks"
		if (tot["aggregated"] + tot["aggregate_dropped"] > tot["walks"])
			print "more aggregated and dropped than walks"
	}' "$FW_STATS"
}
