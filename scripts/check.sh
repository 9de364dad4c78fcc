#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the project's test suites and print one line per result, ending with
# "N passed, N failed": host unit tests (ASan/UBSan) of the walker and the
# CLI, the analyzer's tests, checkpatch, the guest runner's own tests, make demo
# checked against its files, the README's examples typed into make shell, the
# kselftest suite inside the arm64 guest on each kernel with the check of that
# kernel's log for KASAN, lockdep, WARNING... reports, and the host's
# trace-cmd report (with the plugin) and CLI on what the guest recorded.
# tests/README says what each suite checks. Logs go to build/check/. Exits
# non-zero on any failure.
#
# usage: check.sh [--guest-only] [SUITE...]
#   --guest-only  only the suites of each kernel in KERNELS (make stress)
#   SUITE         only the suites of these names (shell patterns: analyzer, 'guest-*',
#                 kernel-log-6.12...); a suite that reads a guest's output reads the
#                 last run's when that guest's suite is not among them
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
# FW_CHECK_LOGS: another log directory (tests/check runs this runner on one suite).
logs=${FW_CHECK_LOGS:-$top/build/check}
kernels=${KERNELS:-5.10 5.10-mcount 6.1 6.12 6.12-debug 7.2}
mkdir -p "$logs"
results=$logs/results.tsv
: >"$results"
# Why each failed result failed, in the words of its test, printed again at the end.
failures=$logs/failures.txt
: >"$failures"

# record STATUS SUITE DESCRIPTION
record() {
	printf '%s\t%s: %s\n' "$1" "$2" "$3" >>"$results"
	printf '%-4s  %s: %s\n' "$1" "$2" "$3"
}

checked_from=$(date +%s)

# finished NAME LOG RC SECONDS: say at once that a suite ended, with its counts and
# time: the full results print at the end, and the guests run for half an hour.
finished() {
	local c
	c=$(awk -v suite="$1" -f "$top/scripts/ktap-results.awk" "$2" | awk -F'\t' '
		{ n[$1]++ }
		END { printf "%d passed, %d failed", n["PASS"], n["FAIL"]
		      if (n["SKIP"]) printf ", %d skipped", n["SKIP"] }')
	[ "$3" = 0 ] || c="$c, exit status $3"
	printf -- '-- %s: %s in %dm%02ds (%dm%02ds into the run)\n' "$1" "$c" \
		$(($4 / 60)) $(($4 % 60)) $(( ($(date +%s) - checked_from) / 60 )) \
		$(( ($(date +%s) - checked_from) % 60 ))
}

# start NAME LOG CMD...: run CMD in the background, its KTAP output into LOG.
start() {
	local name=$1 log=$2
	shift 2
	wanted "$name" || return 0
	( s=$(date +%s); "$@" >"$log" 2>&1; rc=$?; echo $rc >"$log.rc"
	  t=$(($(date +%s) - s))
	  echo "# $name took ${t}s" >>"$log"
	  finished "$name" "$log" "$rc" "$t" ) &
	order+=("$name $log")
}

# wanted NAME: NAME is among the suites asked for on the command line (all when none was).
wanted() {
	local p
	[ ${#only[@]} = 0 ] && return 0
	for p in "${only[@]}"; do
		case $1 in $p) return 0 ;; esac
	done
	return 1
}

# collect NAME LOG: record the results of a finished suite. A command that
# failed without reporting any failed result is itself a failure.
collect() {
	local name=$1 log=$2 rc before
	rc=$(cat "$log.rc" 2>/dev/null || echo 255)
	before=$(grep -c '^FAIL' "$results")
	awk -v suite="$name" -v details="$failures" -f "$top/scripts/ktap-results.awk" "$log" |
		while IFS=$'\t' read -r status rest; do
			record "$status" "${rest%%: *}" "${rest#*: }"
		done
	if [ "$rc" != 0 ] && [ "$(grep -c '^FAIL' "$results")" = "$before" ]; then
		record FAIL "$name" "exited with status $rc without a failed result (see $log)"
	fi
}

# run NAME CMD...: run CMD now, its KTAP output into build/check/NAME.log, and record its
# results; the status is CMD's.
run() {
	local name=$1 log=$logs/$1.log rc s
	shift
	wanted "$name" || return 0
	s=$(date +%s)
	"$@" >"$log" 2>&1
	rc=$?
	echo $rc >"$log.rc"
	finished "$name" "$log" "$rc" $(($(date +%s) - s))
	collect "$name" "$log"
	return $rc
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

# selftests KERNEL: the selftests that kernel runs, in the order of the suite's Makefile,
# whose list (TEST_PROGS) is the only one: a kernel here only leaves some out.
selftests() {
	local t skip= list=
	case $1 in
	# On the debug kernel every suite but five: test_recovery's function_graph on
	# every function ran past 15 minutes under KASAN, lockdep and TCG (its other
	# cases run in test_stress), and test_userspace, test_user_symbols and
	# test_cli_options replay, name and filter with the CLI and tracefs, not the
	# module (test_user's hostile user stacks do run).
	# test_oracle_wide's hundreds of functions are compared on the five others; here
	# test_oracle's four (and test_fault_inject's ten minutes) fill the time it would take.
	*-debug) skip="test_recovery.sh test_userspace.sh test_user_symbols.sh test_cli_options.sh test_oracle_wide.sh" ;;
	# The 5.10 kernels run the core list: the chains against the kernel's unwinder, the
	# trampolines, aggregation, parameters, stops and stress; the pid filter, the stats
	# file, refused loads and the recording replayed on the host are the same code as on
	# the kernels that run the full list.
	5.10*) skip="test_refused_loads.sh test_pid.sh test_stats.sh test_userspace.sh test_fault_inject.sh" ;;
	# Fault injection (failslab, fail_page_alloc) is the debug kernel's alone: Debian builds
	# none of it.
	*) skip="test_fault_inject.sh" ;;
	esac
	for t in $(make -s -C "$top/selftests/framewalk" list); do
		case " $skip " in *" $t "*) ;; *) list="$list $t" ;; esac
	done
	echo $list
}

guest_selftests() {
	local k=$1 tests plant= perf limit=4200 cycles=${FW_STRESS_CYCLES:-10} rewrites=${FW_STRESS_REWRITES:-4}
	tests=$(selftests "$k")
	# KASAN, lockdep and kmemleak make every call slower, the ftrace ones most: a
	# smaller stress run there, and more time. The limits are for hangs: every
	# guest shares 2 cores with the others, the corpus and the package builds.
	# On 5.10 a chain that met a kretprobe is walked twice, which makes test_recovery slower
	# under load: more time.
	case $k in
	*-debug) limit=4800 cycles=${FW_STRESS_CYCLES:-6} rewrites=${FW_STRESS_REWRITES:-3} ;;
	5.10*) limit=3600 ;;
	esac
	[ -n "$(planted_bugs "$k")" ] && plant="sh fw_kernel_log.sh plant $(planted_bugs "$k");"
	# test_user.sh's oracle is perf's own user callchain: Debian's arm64 linux-perf, program
	# and libraries only, in a guest whose kernel has perf events (all of the list): a kernel
	# without them boots without its 24 MB.
	if grep -q '^CONFIG_PERF_EVENTS=y' "$top/.cache/kernels/$k/config"; then
		perf=$("$top/scripts/fetch-guest-tool.sh" -l linux-perf perf) || return 1
	fi
	# The kernel log is saved whatever the tests did; the command's status stays theirs.
	"$top/scripts/guest.sh" -q -k "$k" -t "$limit" ${perf:+-u "$perf"} -o "$logs/guest-$k" -- \
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
[ "${1:-}" = --guest-only ] && { guest_only=1; shift; }
only=("$@")
if [ -z "$guest_only" ]; then
	start host-lib "$logs/host-lib.log" "$top/tests/lib/test_fw_walk.sh"
	start host-cli "$logs/host-cli.log" "$top/tests/userspace/test_framewalk_cli.sh"
	start host-usym "$logs/host-usym.log" "$top/tests/userspace/test_usym.sh"
	start host-plugin "$logs/host-plugin.log" "$top/tests/userspace/test_plugin.sh"
	start install "$logs/install.log" "$top/tests/install/test_install.sh"
	start flamegraph "$logs/flamegraph.log" "$top/tests/userspace/test_flamegraph.sh"
	start deb "$logs/deb.log" deb_then_dkms
	wanted deb && order+=("dkms $logs/dkms.log")
	if [ -f "$top/analyzer/Makefile" ]; then
		start analyzer "$logs/analyzer.log" make -s -C "$top/analyzer" check
	fi
	start fuzz "$logs/fuzz.log" "$top/tests/fuzz/test_fuzz.sh" 10
	start hostile "$logs/hostile.log" "$top/tests/hostile/test_hostile.sh"
	start checkpatch "$logs/checkpatch.log" "$top/tests/checkpatch/test_checkpatch.sh"
	start docs "$logs/docs.log" "$top/tests/docs/test_docs.sh"
	start doc-host "$logs/doc-host.log" python3 "$top/tests/docs/test_doc_host.py"
	start check-runner "$logs/check-runner.log" "$top/tests/check/test_check_runner.sh"
	start kernel-log-check "$logs/kernel-log-check.log" \
		"$top/tests/kernel-log/test_kernel_log_check.sh"
	start guest-runner "$logs/guest-runner.log" "$top/tests/guest/test_guest_runner.sh" \
		"$prod_k"
	# make demo as a user sees it, then what it said checked against what it did.
	start demo "$logs/demo.log" sh -c "DEMO_KERNEL=$prod_k DEMO_OUT='$logs/demo' DEMO_LIMIT=2400 \
		'$top/scripts/demo.sh' >'$logs/demo.txt' 2>&1; rc=\$?; \
		'$top/tests/userspace/test_demo.sh' '$logs/demo' '$logs/demo.txt' && exit \$rc"
	# The README's examples, typed line by line into make shell's guest.
	start readme-shell "$logs/readme-shell.log" python3 \
		"$top/tests/userspace/test_readme_shell.py" "$prod_k"
	# An MCU on a serial link into the guest: two emulators, half a minute when idle;
	# the limit is for hangs, on a machine shared with the other guests.
	start serial "$logs/serial.log" "$top/tests/firmware/serial/test_serial.sh" -k "$prod_k" \
		-t 600 -o "$logs/serial"
fi
for k in $kernels; do
	start "guest-$k" "$logs/guest-$k.log" guest_selftests "$k"
done
wait

for entry in "${order[@]+"${order[@]}"}"; do
	collect $entry
done
# What reads the guests' output, one suite after the other now that no guest runs (a
# module build here cannot change a .ko under a guest).
for k in $kernels; do
	# The kernel's own reports (KASAN, lockdep, WARNING...) from the selftests' run.
	run "kernel-log-$k" "$top/tests/kernel-log/test_kernel_log.sh" -l "$k" \
		$(planted_bugs "$k" | sed 's/[^ ]\+/-p &/g') "$logs/guest-$k/files/kernel.log" ||
		sed -n 's/^# /kernel-log-'"$k"': /p' "$logs/kernel-log-$k.log"
	[ -n "$guest_only" ] && continue
	run "build-$k" "$top/tests/kbuild/test_kbuild.sh" "$k"
	# Host side of the end-to-end test: what the guest recorded, read here (the
	# debug kernel's run records nothing for it).
	case $k in *-debug) continue ;; esac
	# The 5.10 kernels' core list records nothing for it.
	case $k in 5.10*) continue ;; esac
	run "userspace-$k" "$top/tests/userspace/test_e2e.sh" "$logs/guest-$k/files"
done
# The flame graph of what the last production kernel's guest recorded, in the browser.
k=$prod_k
if [ -z "$guest_only" ]; then
	# crashwalk for a fleet: firmware found by build-id through a debuginfod server of its
	# own, batches, summary. After the analyzer suite: one corpus build at a time.
	run fleet "$top/tests/analyzer/test_fleet.py" --crashwalk "$top/analyzer/build/crashwalk" \
		--corpus-script "$top/tests/firmware/run-corpus.sh"
	run "flamegraph-$k" "$top/tests/userspace/test_flamegraph.sh" \
		"$logs/guest-$k/files/fw.rec" fw_test_leaf
	# The packages just built, installed here and in the guest, on what that guest recorded.
	run deb-install "$top/tests/install/test_deb.sh" install "$logs/guest-$k/files"
fi

# A misspelt suite name must not pass as an empty run.
if [ ${#only[@]} != 0 ] && [ ! -s "$results" ]; then
	echo "check.sh: no suite named ${only[*]} (tests/README lists them)" >&2
	exit 2
fi
passed=$(grep -c '^PASS' "$results")
failed=$(grep -c '^FAIL' "$results")
skipped=$(grep -c '^SKIP' "$results")
if [ -s "$failures" ]; then
	echo
	echo "What the failed tests said (the last lines before each result; all in $logs):"
	cat "$failures"
fi
echo
if [ "$skipped" != 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ "$failed" = 0 ]
