#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: a load refused for a bad filter, pid list, depth, instance or boolean leaves nothing allocated behind (kmemleak finds nothing under parse_args, do_init_module or framewalk), with pid lists set beside the bad value so that there is something to leak; a load and unload with pid lists frees each list once (failed allocations: test_fault_inject.sh)
# requires: framewalk.ko, debugfs, kmemleak (CONFIG_DEBUG_KMEMLEAK: the 6.12-debug kernel)
. "$(dirname "$0")/fw_lib.sh"
fw_require_root
if ! [ -w "$KMEMLEAK" ] || ! cat "$KMEMLEAK" >/dev/null 2>&1; then
	echo "# SKIP: no kmemleak on $(uname -r) (CONFIG_DEBUG_KMEMLEAK, debugfs)"
	exit $KSFT_SKIP
fi
fw_test_begin 8
# What earlier tests left goes to the kernel log check, not into these cases.
fw_kmemleak_scan
fw_kmemleak_relay

# Each refusal is tried this many times: a leak grows with the loads, noise does not.
LOADS=3
# Both pid lists are allocated while the parameters are parsed, before init runs.
PIDS="pid=1 notrace_pid=1,2"

# The kmemleak reports naming a module load: leaks of framewalk's parameters or init.
load_leaks() {
	awk '
	function done_one() { if (report ~ /parse_args|do_init_module|framewalk/) { n++; printf "%s", report } }
	/^unreferenced object/ { done_one(); report = "" }
	{ report = report $0 "\n" }
	END { done_one(); exit n == 0 }' "$KMEMLEAK"
}

# refused_loads WHAT ARGS...: LOADS refused loads with ARGS, then no leak from them.
refused_loads() {
	what=$1
	shift
	i=0
	while [ $i -lt $LOADS ]; do
		if fw_insmod "$FW_KO_DIR/framewalk.ko" "$@" 2>/dev/null; then
			ktap_fail "insmod $* was accepted"
			rmmod framewalk
		fi
		i=$((i + 1))
	done
	fw_kmemleak_scan
	if leaks=$(load_leaks); then
		n=$(echo "$leaks" | grep -c '^unreferenced object')
		echo "$leaks" | head -n 24 | sed 's/^/# /'
		ktap_fail "$n leaks after $LOADS loads with $*"
	fi
	fw_kmemleak_relay
	ktap_case_end "$what: $LOADS refused loads leave no leak"
}

refused_loads "bad filter" $PIDS filter=fw_no_such_function
refused_loads "no filter" $PIDS
refused_loads "bad notrace" $PIDS filter=vfs_read notrace=fw_no_such_function
refused_loads "bad pid list" pid=1 notrace_pid=1,abc filter=vfs_read
refused_loads "bad depth" $PIDS filter=vfs_read depth=65
# tracefs makes no directory of a name with a slash: init fails after the
# stats and aggregation tables are set up.
refused_loads "bad instance" $PIDS filter=vfs_read instance=fw/bad
# param_set_bool refuses the value: parse_args fails and init never runs.
refused_loads "bad boolean" $PIDS filter=vfs_read records=maybe

# The kernel frees the lists after fw_exit(): once (KASAN would name a double
# free), including a list replaced at run time.
insmod "$FW_KO_DIR/framewalk.ko" $PIDS filter=vfs_read || ktap_fail "insmod $PIDS failed"
echo 3 >/sys/module/framewalk/parameters/notrace_pid || ktap_fail "notrace_pid=3 refused"
rmmod framewalk || ktap_fail "rmmod framewalk failed"
fw_kmemleak_scan
if leaks=$(load_leaks); then
	echo "$leaks" | head -n 24 | sed 's/^/# /'
	ktap_fail "leaks after a load and unload with $PIDS"
fi
fw_kmemleak_relay
trouble=$(fw_dmesg_trouble)
ktap_expect "no kernel warnings: $trouble" -z "$trouble"
ktap_case_end "load and unload with pid lists: no leak, no double free"

fw_unload_all
ktap_exit
