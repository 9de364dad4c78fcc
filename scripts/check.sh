#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run every test of the project and print one line per result, ending with
# "N passed, N failed": host unit tests (ASan/UBSan) of the walker and the
# CLI, the analyzer's tests, checkpatch, the guest runner's own tests, make demo
# checked against its files, the README's examples typed into make shell, the
# kselftest suite inside the arm64 guest on each kernel with the check of that
# kernel's log for KASAN, lockdep, WARNING... reports, and the host's
# trace-cmd report (with the plugin) and CLI on what the guest recorded. Logs go to build/check/. Exits non-zero on
# any failure.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
logs=$top/build/check
kernels=${KERNELS:-5.10 5.10-mcount 6.1 6.12 6.12-debug 7.2}
mkdir -p "$logs"
results=$logs/results.tsv
: >"$results"

# record STATUS SUITE DESCRIPTION
record() {
	printf '%s\t%s: %s\n' "$1" "$2" "$3" >>"$results"
	printf '%-4s  %s: %s\n' "$1" "$2" "$3"
}

# start NAME LOG CMD...: run CMD in the background, its KTAP output into LOG.
start() {
	local name=$1 log=$2
	shift 2
	( s=$(date +%s); "$@" >"$log" 2>&1; echo $? >"$log.rc"
	  echo "# $name took $(($(date +%s) - s))s" >>"$log" ) &
	order+=("$name $log")
}

# collect NAME LOG: record the results of a finished suite. A command that
# failed without reporting any failed result is itself a failure.
collect() {
	local name=$1 log=$2 rc before
	rc=$(cat "$log.rc" 2>/dev/null || echo 255)
	before=$(grep -c '^FAIL' "$results")
	awk -v suite="$name" -f "$top/scripts/ktap-results.awk" "$log" |
		while IFS=$'\t' read -r status rest; do
			record "$status" "${rest%%: *}" "${rest#*: }"
		done
	if [ "$rc" != 0 ] && [ "$(grep -c '^FAIL' "$results")" = "$before" ]; then
		record FAIL "$name" "exited with status $rc without a failed result (see $log)"
	fi
}

# The walker on the host, then the module's own arm64 walk under qemu-aarch64 (without
# sanitizers, whose checks keep the fast path's "i" operand from being a constant).
host_lib_tests() {
	local rc=0
	gcc -Wall -Wextra -Werror -g -fsanitize=address,undefined -fno-sanitize-recover=all \
		-o "$logs/test_fw_walk" "$top/tests/lib/test_fw_walk.c" && "$logs/test_fw_walk" || rc=1
	aarch64-linux-gnu-gcc -O2 -Wall -Wextra -Werror -g -static -I"$top/lib" \
		-o "$logs/test_fw_walk_arm64" "$top/tests/lib/test_fw_walk_arm64.c" &&
		qemu-aarch64 "$logs/test_fw_walk_arm64" || rc=1
	return $rc
}

# The trace-cmd plugin on hand-made events, as today's module and older ones describe them.
host_plugin_tests() {
	gcc -Wall -Wextra -Werror -g -fsanitize=address,undefined \
		$(pkg-config --cflags libtraceevent) -o "$logs/test_plugin" \
		"$top/tests/userspace/test_plugin.c" $(pkg-config --libs libtraceevent) -ldl &&
		"$logs/test_plugin" "$top/build/host/plugins/plugin_framewalk.so"
}

checkpatch_tests() {
	local f cp=$top/.cache/checkpatch/scripts/checkpatch.pl
	local files
	files=$(cd "$top" && ls module/*.[ch] lib/*.h selftests/framewalk/test_modules/*.[ch] \
		bench/*.[ch])
	. "$top/tests/ktap.sh"
	ktap_header
	for f in $files; do
		# Any error, warning or --strict check makes checkpatch exit non-zero.
		if out=$("$cp" --no-tree --strict --terse -f "$top/$f" 2>&1); then
			ktap_result 0 "$f is checkpatch --strict clean"
		else
			echo "$out" | grep -v '^total' | sed 's/^/# /'
			ktap_result 1 "$f is checkpatch --strict clean"
		fi
	done
	ktap_done
}

# The documentation parses as reStructuredText without a warning (index.rst is
# Sphinx's toctree, which plain docutils does not know), README.md's benchmark
# tables are generated from their figures (scripts/bench-readme.py), and no file
# holds a merge's conflict markers: two such leftovers once shipped in Documentation/.
docs_tests() {
	local f out rc
	. "$top/tests/ktap.sh"
	ktap_header
	for f in $(cd "$top" && ls Documentation/*.rst | grep -v '/index\.rst$'); do
		if out=$(/usr/bin/python3 -m docutils --halt=warning --report=warning \
			"$top/$f" /dev/null 2>&1); then
			ktap_result 0 "$f parses without a warning"
		else
			echo "$out" | sed 's/^/# /'
			ktap_result 1 "$f parses without a warning"
		fi
	done
	out=$(python3 "$top/scripts/bench-readme.py" --check "$top/README.md" 2>&1)
	rc=$?
	[ "$rc" = 0 ] || echo "$out" | sed 's/^/# /'
	ktap_result $rc "README.md's benchmark tables are what their own figures give"
	out=$(cd "$top" && git grep -nE '^(<<<<<<<|>>>>>>>)( |$)' -- . ':!*.bin' 2>/dev/null)
	echo "$out" | sed '/^$/d; s/^/# /'
	[ -z "$out" ]
	ktap_result $? "no tracked file holds a conflict marker"
	ktap_done
}

# make deb, then DKMS building the framewalk-dkms package it wrote against every kernel's
# headers: one job, the second needs the first's package. dkms.log is collected as its own suite.
deb_then_dkms() {
	local rc
	"$top/tests/install/test_deb.sh" build
	rc=$?
	"$top/tests/install/test_dkms.sh" $kernels >"$logs/dkms.log" 2>&1
	echo $? >"$logs/dkms.log.rc"
	return $rc
}

# The bugs fw_planted_bug.ko commits on a debug kernel, after the tests: each must be reported.
# RCU's lockdep checks need lockdep on, which its own first report and KASAN's taint
# (LOCKDEP_NOW_UNRELIABLE) turn off: rcu, then lockdep, and kasan last.
planted_bugs() {
	case $1 in
	*-debug) echo rcu lockdep atomic-sleep ubsan kmemleak kasan ;;
	esac
}

guest_selftests() {
	local k=$1 tests plant= limit=3000 cycles=${FW_STRESS_CYCLES:-10} rewrites=${FW_STRESS_REWRITES:-4}
	tests=$(make -s -C "$top/selftests/framewalk" list)
	# KASAN, lockdep and kmemleak make every call slower, the ftrace ones most: a
	# smaller stress run there, and more time. The limits are for hangs: every
	# guest shares 2 cores with the others, the corpus and the package builds.
	# On the debug kernel every suite but two: test_recovery's function_graph on
	# every function ran past 15 minutes under KASAN, lockdep and TCG (its other
	# cases run in test_stress), and test_userspace replays the CLI, not the module.
	case $k in
	*-debug)
		limit=3600 cycles=${FW_STRESS_CYCLES:-6} rewrites=${FW_STRESS_REWRITES:-3}
		tests="test_load.sh test_params.sh test_refused_loads.sh test_pid.sh test_chain.sh"
		tests="$tests test_stops.sh test_oracle.sh"
		tests="$tests test_stats.sh test_trampoline.sh test_aggregate.sh test_stress.sh" ;;
	# The 5.10 kernels run the core list: the chains against the kernel's unwinder, the
	# trampolines, aggregation, parameters, stops and stress; the pid filter, the stats
	# file, refused loads and the recording replayed on the host are the same code as on
	# the kernels that run the full list. Every walk there watches for trampolines, which
	# makes test_recovery slower under load: more time.
	5.10*)
		limit=3600
		tests="test_load.sh test_params.sh test_chain.sh test_stops.sh test_oracle.sh"
		tests="$tests test_trampoline.sh test_recovery.sh test_aggregate.sh test_stress.sh" ;;
	esac
	[ -n "$(planted_bugs "$k")" ] && plant="sh fw_kernel_log.sh plant $(planted_bugs "$k");"
	# The kernel log is saved whatever the tests did; the command's status stays theirs.
	"$top/scripts/guest.sh" -q -k "$k" -t "$limit" -o "$logs/guest-$k" -- \
		"cd /fw/selftests/framewalk && sh fw_kernel_log.sh begin; \
		FW_STRESS_CYCLES=$cycles FW_STRESS_REWRITES=$rewrites \
		sh ktap_runner.sh $tests; rc=\$?; sh fw_kernel_log.sh leaks; $plant \
		sh fw_kernel_log.sh save /fw/out/kernel.log; exit \$rc"
	local rc=$?
	cat "$logs/guest-$k/console.log"
	return $rc
}

# The guests idle much of the time (boot, timers, sleeps): run every suite at
# once and report them in a fixed order when all are done.
order=()
# The kernel the host-side scenes use (demo, shell, serial link, flame graph, packages):
# 6.12, the default of make shell and the demo, where the list has it.
prod_k=
for k in $kernels; do
	case $k in *-debug) ;; *) prod_k=$k ;; esac
done
case " $kernels " in *" 6.12 "*) prod_k=6.12 ;; esac
prod_k=${prod_k:-${kernels##* }}
guest_only=
[ "${1:-}" = --guest-only ] && guest_only=1
if [ -z "$guest_only" ]; then
	start host-lib "$logs/host-lib.log" host_lib_tests
	start host-cli "$logs/host-cli.log" "$top/tests/userspace/test_cli.sh"
	start host-plugin "$logs/host-plugin.log" host_plugin_tests
	start install "$logs/install.log" "$top/tests/install/test_install.sh"
	start flamegraph "$logs/flamegraph.log" "$top/tests/userspace/test_flamegraph.sh"
	start deb "$logs/deb.log" deb_then_dkms
	order+=("dkms $logs/dkms.log")
	if [ -f "$top/analyzer/Makefile" ]; then
		start analyzer "$logs/analyzer.log" make -s -C "$top/analyzer" check
	fi
	start fuzz "$logs/fuzz.log" "$top/tests/fuzz/run.sh" 10
	start hostile "$logs/hostile.log" "$top/tests/hostile/run.sh"
	start checkpatch "$logs/checkpatch.log" checkpatch_tests
	start docs "$logs/docs.log" docs_tests
	start kernel-log-check "$logs/kernel-log-check.log" "$top/tests/kernel-log/run.sh"
	start guest-runner "$logs/guest-runner.log" "$top/scripts/test-guest-runner.sh" \
		"$prod_k"
	# make demo as a user sees it, then what it said checked against what it did.
	start demo "$logs/demo.log" sh -c "DEMO_KERNEL=$prod_k DEMO_OUT='$logs/demo' \
		'$top/scripts/demo.sh' >'$logs/demo.txt' 2>&1; rc=\$?; \
		'$top/tests/userspace/test_demo.sh' '$logs/demo' '$logs/demo.txt' && exit \$rc"
	# The README's examples, typed line by line into make shell's guest.
	start readme-shell "$logs/readme-shell.log" python3 \
		"$top/tests/userspace/test_readme_shell.py" "$prod_k"
	# An MCU on a serial link into the guest: two emulators, half a minute when idle;
	# the limit is for hangs, on a machine shared with the other guests.
	start serial "$logs/serial.log" "$top/scripts/serial-scene.sh" -k "$prod_k" -t 600 \
		-o "$logs/serial"
fi
for k in $kernels; do
	start "guest-$k" "$logs/guest-$k.log" guest_selftests "$k"
done
wait

for entry in "${order[@]}"; do
	collect $entry
done
for k in $kernels; do
	# The kernel's own reports (KASAN, lockdep, WARNING...) from the selftests' run.
	log=$logs/kernel-log-$k.log
	"$top/scripts/kernel-log-check.sh" -l "$k" $(planted_bugs "$k" | sed 's/[^ ]\+/-p &/g') \
		"$logs/guest-$k/files/kernel.log" >"$log" 2>&1
	echo $? >"$log.rc"
	collect "kernel-log-$k" "$log"
	[ "$(cat "$log.rc")" = 0 ] || sed -n 's/^# /kernel-log-'"$k"': /p' "$log"
	[ -n "$guest_only" ] && continue
	if [ -f "$top/build/$k/ko/framewalk.ko" ]; then
		record PASS "build-$k" "modules build against $k with W=1 and -Werror"
	else
		record FAIL "build-$k" "modules did not build against $k"
	fi
	# Host side of the end-to-end test: what the guest recorded, read here (the
	# debug kernel's run records nothing for it).
	case $k in *-debug) continue ;; esac
	# The 5.10 kernels' core list records nothing for it.
	case $k in 5.10*) continue ;; esac
	"$top/tests/userspace/e2e.sh" "$logs/guest-$k/files" >"$logs/userspace-$k.log" 2>&1
	echo $? >"$logs/userspace-$k.log.rc"
	collect "userspace-$k" "$logs/userspace-$k.log"
done
# The flame graph of what the last production kernel's guest recorded, in the browser.
k=$prod_k
if [ -z "$guest_only" ]; then
	"$top/tests/userspace/test_flamegraph.sh" "$logs/guest-$k/files/fw.rec" fw_test_leaf \
		>"$logs/flamegraph-$k.log" 2>&1
	echo $? >"$logs/flamegraph-$k.log.rc"
	collect "flamegraph-$k" "$logs/flamegraph-$k.log"
	# The packages just built, installed here and in the guest, on what that guest recorded.
	"$top/tests/install/test_deb.sh" install "$logs/guest-$k/files" >"$logs/deb-install.log" 2>&1
	echo $? >"$logs/deb-install.log.rc"
	collect deb-install "$logs/deb-install.log"
fi

passed=$(grep -c '^PASS' "$results")
failed=$(grep -c '^FAIL' "$results")
skipped=$(grep -c '^SKIP' "$results")
echo
if [ "$skipped" != 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ "$failed" = 0 ]
