#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: framewalk's cost per traced call against the kernel's own tracers,
# measured in the same guest run on each kernel, twice: in executed
# instructions (qemu -icount shift=0: deterministic, host-independent, close
# to what a core pays) and in TCG nanoseconds (a second opinion, with the
# event rates). Prints the tables and writes build/bench/bench.json. Figures
# are ratios in one run: nothing is asserted.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/bench
kernels=${KERNELS:-5.10 5.10-mcount 6.1 6.12 7.2}
mkdir -p "$out"

for k in $kernels; do
	# Instructions barely vary from run to run, but the timer ticks a run
	# holds do their own work: the median of three runs of each setup (one
	# run moved the event setups by up to 12 instructions a call).
	"$top/scripts/guest.sh" -q -I -k "$k" -t 900 -o "$out/guest-icount-$k" \
		-i "$top/bench/guest-bench.sh:/fw/guest-bench.sh" -- \
		'REPS=3 RATES=0 sh /fw/guest-bench.sh' ||
		{ echo "bench: the guest run on $k failed (see $out/guest-icount-$k/console.log)" >&2; exit 1; }
	grep -E '^BENCH ' "$out/guest-icount-$k/console.log" | sed 's/^BENCH/INSN/' >"$out/raw-$k.txt"
	"$top/scripts/guest.sh" -q -k "$k" -t 900 -o "$out/guest-$k" \
		-i "$top/bench/guest-bench.sh:/fw/guest-bench.sh" -- 'sh /fw/guest-bench.sh' ||
		{ echo "bench: the guest run on $k failed (see $out/guest-$k/console.log)" >&2; exit 1; }
	grep -E '^(BENCH|SUSTAIN|DROPFREE|AGGREGATE) ' "$out/guest-$k/console.log" >>"$out/raw-$k.txt"
done

cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
qemu=$(qemu-system-aarch64 --version | head -1)
awk -v kernels="$kernels" -v cpu="$cpu" -v qemu="$qemu" -v json="$out/bench.json" -v dir="$out" '
function ratio(a, b) { return b > 0 ? sprintf("%.2f", a / b) : "-" }
# table UNIT ARRAY-NAME: one row per setup, per kernel the figure and its ratios.
function table(unit, fmt, v,    i, j, c, k) {
	printf "%-30s", "setup"
	for (i = 1; i <= nk; i++)
		printf " %12s %8s %8s", ks[i] " " unit, "/func", "/stack"
	printf "\n"
	for (j = 1; j <= n; j++) {
		c = order[j]
		printf "%-30s", c
		for (i = 1; i <= nk; i++) {
			k = ks[i]
			printf " " fmt " %8s %8s", v[k, c], ratio(v[k, c], v[k, "function"]),
				ratio(v[k, c], v[k, "function_stack_trace"])
		}
		printf "\n"
	}
}
function jobj(v, k, fmt,    j, sep) {
	for (j = 1; j <= n; j++) {
		printf "%s\"%s\": " fmt, sep, order[j], v[k, order[j]] > json
		sep = ", "
	}
}
BEGIN {
	nk = split(kernels, ks, " ")
	for (i = 1; i <= nk; i++) {
		k = ks[i]
		while ((getline line < (dir "/raw-" k ".txt")) > 0) {
			split(line, f, " ")
			if (f[1] == "BENCH" || f[1] == "INSN") {
				if (!(f[2] in seen)) { order[++n] = f[2]; seen[f[2]] = 1 }
				if (f[1] == "BENCH")
					ns[k, f[2]] = f[3] / 1000
				else	# whole instructions, so every ratio is redone from the table
					insn[k, f[2]] = int(f[3] / 1000 + 0.5)
			} else if (f[1] == "AGGREGATE") {
				sub(/^AGGREGATE /, "", line)
				aggregate[k] = aggregate[k] "  " k " aggregate " line "\n"
			} else if (f[1] == "DROPFREE") {
				sub(/^events_per_s=/, "", f[2])
				dropfree[k] = f[2]
			} else {
				sub(/^SUSTAIN /, "", line)
				sustain[k] = line
			}
		}
	}
	printf "framewalk benchmark: cost per call of a traced noinline function\n"
	printf "host: %s; guest: %s, -cpu max\n\n", cpu, qemu
	printf "executed instructions per call (qemu -icount shift=0):\n"
	table("insn", "%12.0f", insn)
	printf "\nTCG nanoseconds per call (median of 3, a second opinion):\n"
	table("ns", "%12.1f", ns)
	printf "\nwhere an event costs (instructions per call):\n"
	for (i = 1; i <= nk; i++) {
		k = ks[i]
		printf "  %s: ftrace dispatch to an ops %.0f; ring buffer reserve+commit %.0f; trace event layers above it %.0f; framewalk fixed cost %.0f (event off), its event with 0 ancestors %.0f; per ancestor %.1f (d16), %.1f (d32)\n", k,
			insn[k, "nop_ops"] - insn[k, "untraced"],
			insn[k, "probe_ring_buffer"] - insn[k, "nop_ops"],
			insn[k, "probe_trace_event"] - insn[k, "probe_ring_buffer"],
			insn[k, "framewalk_d0_events_off"] - insn[k, "nop_ops"],
			insn[k, "framewalk_d0_events_on"] - insn[k, "probe_trace_event"],
			(insn[k, "framewalk_d16_events_on"] - insn[k, "framewalk_d0_events_on"]) / 16,
			(insn[k, "framewalk_d32_events_on"] - insn[k, "framewalk_d0_events_on"]) / 32
	}
	printf "\nthe process lists (pid, notrace_pid), instructions per call:\n"
	for (i = 1; i <= nk; i++) {
		k = ks[i]
		printf "  %s: the check on a walked hit %+.0f (d16 with the event); a hit left out %.0f, against %.0f with the event off\n", k,
			insn[k, "framewalk_d16_events_on_pid_checked"] - insn[k, "framewalk_d16_events_on"],
			insn[k, "framewalk_d16_pid_excluded"], insn[k, "framewalk_d16_events_off"]
	}
	printf "\ntargets (framewalk d16 with events <= 2.0x function, <= 0.25x func_stack_trace; event off <= 2x nop_ops; <= 16 instructions per ancestor), in instructions:\n"
	for (i = 1; i <= nk; i++) {
		k = ks[i]
		a = insn[k, "framewalk_d16_events_on"] / insn[k, "function"]
		b = insn[k, "framewalk_d16_events_on"] / insn[k, "function_stack_trace"]
		c = insn[k, "framewalk_d16_events_off"] / insn[k, "nop_ops"]
		d = (insn[k, "framewalk_d16_events_on"] - insn[k, "framewalk_d0_events_on"]) / 16
		printf "  %s: %.2fx function (%s), %.2fx func_stack_trace (%s), event off %.2fx nop_ops (%s), %.1f per ancestor (%s)\n", k,
			a, a <= 2.0 ? "met" : "not met", b, b <= 0.25 ? "met" : "not met",
			c, c <= 2.0 ? "met" : "not met", d, d <= 16 ? "met" : "not met"
	}
	for (i = 1; i <= nk; i++) {
		k = ks[i]
		a = insn[k, "framewalk_d16_aggregate"] / insn[k, "function"]
		b = ns[k, "framewalk_d16_aggregate"] / ns[k, "function"]
		c = insn[k, "framewalk_d16_aggregate"] / insn[k, "function_instance"]
		printf "  %s: depth 16 aggregated %.2fx function in instructions, %.2fx in TCG time (target <= 1.0: %s); %.2fx the function tracer dispatched as a module'"'"'s ops is (function_instance)\n",
			k, a, b, a <= 1.0 && b <= 1.0 ? "met" : "not met", c
		printf "%s", aggregate[k]
		split(sustain[k], sv, /[ =]/)
		for (x = 1; x in sv; x += 2) s[k, sv[x]] = sv[x + 1]
		# Written is what the tracee produced at full speed, kept what the readers
		# drained of it; drop-free is the highest paced rate that lost nothing.
		printf "  %s depth 16, a raw reader per CPU (TCG time): %.0f events/s written, %.0f/s kept, %d dropped of %d (buffer %s KB/CPU); drop-free: %s events/s\n",
			k, s[k, "events"] / (s[k, "ns"] / 1e9),
			(s[k, "events"] - s[k, "dropped"]) / (s[k, "ns"] / 1e9), s[k, "dropped"],
			s[k, "events"], s[k, "buffer_kb"], dropfree[k] ? dropfree[k] : "none found"
	}
	printf "{\n  \"machine\": {\"cpu\": \"%s\", \"guest\": \"%s, -cpu max, TCG\"},\n", cpu, qemu > json
	printf "  \"unit\": \"ns per call (TCG); instructions per call under \\\"instructions\\\"\",\n  \"kernels\": {\n" > json
	for (i = 1; i <= nk; i++) {
		k = ks[i]
		printf "    \"%s\": {", k > json
		jobj(ns, k, "%.1f")
		printf ", \"instructions\": {" > json
		jobj(insn, k, "%.0f")
		printf "}, \"sustained\": {\"events\": %d, \"ns\": %d, \"dropped\": %d, \"kept_per_s\": %.0f, \"drop_free_per_s\": %d}}%s\n",
			s[k, "events"], s[k, "ns"], s[k, "dropped"],
			(s[k, "events"] - s[k, "dropped"]) / (s[k, "ns"] / 1e9), dropfree[k] + 0,
			(i < nk ? "," : "") > json
	}
	printf "  }\n}\n" > json
}' | tee "$out/bench.txt"
echo
"$top/scripts/bench-analyzer.sh"
echo
echo "written: $out/bench.txt, $out/bench.json, $out/analyzer.txt, $out/analyzer.json"
echo "README.md's tables from them: scripts/bench-readme.py --json build/bench --update"
