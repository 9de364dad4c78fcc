#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run crashwalk's libFuzzer harnesses (KTAP): first replay every saved
# regression input, then fuzz each harness for SECONDS from seeds made of the
# bundled dumps, the crash corpus and the bundled firmware's code. An input
# that crashes, leaks or hangs is copied to regressions/<harness>/ (commit it:
# it becomes a regression test) and the run fails.
# usage: test_fuzz.sh [SECONDS]   (default 60)
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$top/tests/ktap.sh"
seconds=${1:-60}
out=$top/build/fuzz
make -s -C "$here" >"$out.build.log" 2>&1 || { cat "$out.build.log"; exit 1; }

seed() {
	local name=$1 dir=$out/seeds-$1 f
	rm -rf "$dir"
	mkdir -p "$dir"
	case $name in
	dump | unwind)
		cp "$top"/tests/firmware/bundled/demo.core "$top"/tests/firmware/bundled/demo.zephyr "$dir/"
		find "$top/.cache/rtos" "$top/.cache/corpus" -name 'core.*' 2>/dev/null | head -80 |
			while read -r f; do cp "$f" "$dir/$(echo "$f" | md5sum | cut -c1-16)"; done
		;;
	ehabi)
		# Real tables and a real stack: the corpus's unwind-table builds.
		find "$top/.cache/corpus" -path '*-uw/fw.elf' 2>/dev/null | head -8 |
			while read -r f; do
				arm-none-eabi-objcopy -O binary -j .ARM.exidx "$f" "$dir/x" 2>/dev/null &&
					{ printf '\x40\x00\x00\x00\x00\x00\x00\x00'; cat "$dir/x" "$dir/x"; } \
					>"$dir/$(echo "$f" | md5sum | cut -c1-16)"
				rm -f "$dir/x"
			done
		printf '\x10\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xb0\xb0\xb0\x80' >"$dir/inline"
		;;
	follow)
		# The bundled crash in both serial transports, with log lines around.
		{ echo "<inf> boot"; echo "<err> coredump: #CD:BEGIN#"
		  xxd -p -c 32 "$top/tests/firmware/bundled/demo.zephyr" | sed 's/^/#CD:/'
		  echo "#CD:END#"; } >"$dir/zephyr"
		{ printf 'CRASH ENCOUNTERED\r\n6343030000000000\r\n'; head -c 600 "$top/tests/firmware/bundled/demo.zephyr" |
		  xxd -p -c 16 | tr a-f A-F; echo "End of dump"; } >"$dir/crashcatcher"
		;;
	thumb)
		arm-none-eabi-objcopy -O binary -j .text "$top/tests/firmware/bundled/demo.elf" "$dir/text"
		split -b 1024 "$dir/text" "$dir/chunk-"
		rm "$dir/text"
		;;
	esac
	echo "$dir"
}

ktap_header
for name in dump unwind thumb ehabi follow; do
	fuzzer=$out/fuzz_$name
	reg=$here/regressions/$name
	if [ -d "$reg" ] && [ -n "$(ls -A "$reg")" ]; then
		"$fuzzer" -runs=0 "$reg"/* >"$out/replay-$name.log" 2>&1
		rc=$?
		[ $rc = 0 ] || grep -E 'ERROR|SUMMARY' "$out/replay-$name.log" | head -3 | sed 's/^/# /'
		ktap_result $rc "fuzz_$name: every saved regression input runs clean"
	fi
	work=$out/work-$name
	rm -rf "$work"
	mkdir -p "$work"
	(cd "$work" && "$fuzzer" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
		-print_final_stats=1 "$work" "$(seed $name)" >"$out/fuzz-$name.log" 2>&1)
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/fuzz-$name.log")
	for a in "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-*; do
		[ -e "$a" ] || continue
		mkdir -p "$reg"
		cp "$a" "$reg/"
		echo "# saved $(basename "$a") to tests/fuzz/regressions/$name/"
		rc=1
	done
	[ $rc = 0 ] || grep -E 'ERROR|SUMMARY|runtime error' "$out/fuzz-$name.log" | head -5 | sed 's/^/# /'
	# The rate says how deep the seconds went (a harness at tens a second reaches little).
	echo "# fuzz_$name: ${runs:-0} inputs in ${seconds}s, $(( ${runs:-0} / seconds ))/s"
	ktap_result $rc "fuzz_$name: ${seconds}s of fuzzing without a crash, leak or hang"
done
ktap_done
