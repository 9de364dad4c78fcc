#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: framewalk's cost per traced call against the kernel's own tracers and
# bpftrace, measured in the same guest run on each kernel, twice: in executed
# instructions (qemu -icount shift=0: deterministic, host-independent, close
# to what a core pays) and in TCG nanoseconds (a second opinion, with the
# event rates). Prints the tables and writes build/bench/bench.json. Figures
# are ratios in one run: nothing is asserted.
#
# KERNELS: the kernels to measure; by default Makefile's production kernels (its
# KERNELS without the debug ones), so a kernel added there is measured here.
# CALLS: calls a run (default 50 000); fewer for a quick look at the tables.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/bench
kernels=${KERNELS:-$(make -s --no-print-directory -C "$top" \
	--eval 'bench-kernels: ; @echo $(PRODUCTION_KERNELS)' bench-kernels)}
mkdir -p "$out"
start=$(date +%s)

# bpftrace, where the kernel has BPF: its LLVM needs about 3 GB of guest memory.
bpftrace=$("$top/scripts/fetch-guest-tool.sh" bpftrace bpftrace)

for k in $kernels; do
	config=$top/.cache/kernels/$k/config
	peer=()
	grep -qx 'CONFIG_BPF_SYSCALL=y' "$config" && peer=(-u "$bpftrace" -m 3072)
	# Instructions barely vary from run to run, but the timer ticks a run
	# holds do their own work: the median of three runs of each setup
	# (bench.txt says how far a setup's runs were apart).
	t=$(date +%s)
	"$top/scripts/guest.sh" -q -I -k "$k" -t 2400 -o "$out/guest-icount-$k" "${peer[@]}" \
		-i "$top/bench/guest-bench.sh:/fw/guest-bench.sh" -- \
		"${CALLS:+CALLS=$CALLS }REPS=3 RATES=0 sh /fw/guest-bench.sh" ||
		{ echo "bench: the guest run on $k failed (see $out/guest-icount-$k/console.log)" >&2; exit 1; }
	{
		grep -E '^(BENCH|NA|BPFCOUNT|BPFSTUCK|BPFSTACK|BPFKFUNC|AGGREGATE|LATENCY|USERFRAMES) ' \
			"$out/guest-icount-$k/console.log" | sed 's/^/I /'
		echo "C WALL icount $(($(date +%s) - t))"
	} >"$out/raw-$k.txt"
	# bpftrace only in instructions: in real time its detach once waited for good
	# on a loaded host, and the TCG figures are a second opinion.
	t=$(date +%s)
	"$top/scripts/guest.sh" -q -k "$k" -t 2400 -o "$out/guest-$k" \
		-i "$top/bench/guest-bench.sh:/fw/guest-bench.sh" -- \
		"${CALLS:+CALLS=$CALLS }PEER=0 sh /fw/guest-bench.sh" ||
		{ echo "bench: the guest run on $k failed (see $out/guest-$k/console.log)" >&2; exit 1; }
	{
		grep -E '^(BENCH|SUSTAIN|DROPFREE|AGGREGATE) ' "$out/guest-$k/console.log" |
			sed 's/^/T /'
		echo "C WALL tcg $(($(date +%s) - t))"
		# What the tables explain the figures by: the hook, BPF, BPF trampolines, and
		# whether the benchmark module has the BTF that kfunc needs.
		grep -E '^CONFIG_(BPF_SYSCALL|DYNAMIC_FTRACE_WITH_[A-Z_]+|ARM64_16K_PAGES)=' "$config" |
			sed 's/^/C CONFIG /'
		if aarch64-linux-gnu-readelf -S "$top/build/$k/ko/fw_bench.ko" | grep -q ' \.BTF '; then
			echo "C MODBTF yes"
		elif ! grep -qx 'CONFIG_DEBUG_INFO_BTF_MODULES=y' "$config"; then
			echo "C MODBTF no: the kernel has no BTF for modules (CONFIG_DEBUG_INFO_BTF_MODULES)"
		elif grep -q 'CONFIG_DEBUG_INFO_BTF_MODULES=$' "$top/.cache/kernels/$k/make-args" \
			2>/dev/null; then
			echo "C MODBTF no: the module build turns it off (the host's pahole cannot make it)"
		elif [ ! -e "$top/.cache/kernels/$k/build/vmlinux" ]; then
			echo "C MODBTF no: the kernel's headers ship no vmlinux to build it against"
		else
			echo "C MODBTF no"
		fi
	} >>"$out/raw-$k.txt"
done

python3 "$top/scripts/bench-readme.py" --report "$out" $kernels | tee "$out/bench.txt"
echo
"$top/scripts/bench-analyzer.sh"
echo
echo "written: $out/bench.txt, $out/bench.json, $out/analyzer.txt, $out/analyzer.json"
echo "README.md's tables from them: scripts/bench-readme.py --json build/bench --update"
echo "make bench took $(($(date +%s) - start)) s"
