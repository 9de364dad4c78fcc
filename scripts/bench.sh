#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: framewalk's cost per traced call against the kernel's own tracers,
# measured in the same guest run on each kernel; prints one table and writes
# build/bench/bench.json. Figures are ratios in one run: nothing is asserted.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/bench
kernels=${KERNELS:-6.1 6.12}
mkdir -p "$out"

for k in $kernels; do
	"$top/scripts/guest.sh" -q -k "$k" -t 900 -o "$out/guest-$k" \
		-i "$top/bench/guest-bench.sh:/fw/guest-bench.sh" -- 'sh /fw/guest-bench.sh' ||
		{ echo "bench: the guest run on $k failed (see $out/guest-$k/console.log)" >&2; exit 1; }
	grep -E '^(BENCH|SUSTAIN|DROPFREE) ' "$out/guest-$k/console.log" >"$out/raw-$k.txt"
done

cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
qemu=$(qemu-system-aarch64 --version | head -1)
awk -v kernels="$kernels" -v cpu="$cpu" -v qemu="$qemu" -v json="$out/bench.json" -v dir="$out" '
function ratio(a, b) { return b > 0 ? sprintf("%.2f", a / b) : "-" }
BEGIN {
	nk = split(kernels, ks, " ")
	for (i = 1; i <= nk; i++) {
		k = ks[i]
		while ((getline line < (dir "/raw-" k ".txt")) > 0) {
			split(line, f, " ")
			if (f[1] == "BENCH") {
				if (!(f[2] in seen)) { order[++n] = f[2]; seen[f[2]] = 1 }
				ns[k, f[2]] = f[3] / 1000
			} else if (f[1] == "DROPFREE") {
				sub(/^events_per_s=/, "", f[2])
				dropfree[k] = f[2]
			} else {
				sub(/^SUSTAIN /, "", line)
				sustain[k] = line
			}
		}
	}
	printf "framewalk benchmark: ns per call of a traced noinline function (median of 3)\n"
	printf "host: %s; guest: %s, -cpu max, TCG\n\n", cpu, qemu
	printf "%-30s", "setup"
	for (i = 1; i <= nk; i++)
		printf " %12s %8s %8s", ks[i] " ns", "/func", "/stack"
	printf "\n"
	for (j = 1; j <= n; j++) {
		c = order[j]
		printf "%-30s", c
		for (i = 1; i <= nk; i++) {
			k = ks[i]
			printf " %12.1f %8s %8s", ns[k, c], ratio(ns[k, c], ns[k, "function"]),
				ratio(ns[k, c], ns[k, "function_stack_trace"])
		}
		printf "\n"
	}
	printf "\ntargets (issue: framewalk d16 with events <= 1.5x function, <= 0.25x func_stack_trace):\n"
	for (i = 1; i <= nk; i++) {
		k = ks[i]
		a = ns[k, "framewalk_d16_events_on"] / ns[k, "function"]
		b = ns[k, "framewalk_d16_events_on"] / ns[k, "function_stack_trace"]
		printf "  %s: %.2fx function (%s), %.2fx func_stack_trace (%s)\n", k,
			a, a <= 1.5 ? "met" : "not met", b, b <= 0.25 ? "met" : "not met"
		split(sustain[k], sv, /[ =]/)
		for (x = 1; x in sv; x += 2) s[k, sv[x]] = sv[x + 1]
		# Written is what the tracee produced at full speed, kept what the readers
		# drained of it; drop-free is the highest paced rate that lost nothing.
		printf "  %s depth 16, a raw reader per CPU: %.0f events/s written, %.0f/s kept, %d dropped of %d (buffer %s KB/CPU); drop-free: %s events/s\n",
			k, s[k, "events"] / (s[k, "ns"] / 1e9),
			(s[k, "events"] - s[k, "dropped"]) / (s[k, "ns"] / 1e9), s[k, "dropped"],
			s[k, "events"], s[k, "buffer_kb"], dropfree[k] ? dropfree[k] : "none found"
	}
	printf "{\n  \"machine\": {\"cpu\": \"%s\", \"guest\": \"%s, -cpu max, TCG\"},\n", cpu, qemu > json
	printf "  \"unit\": \"ns per call\",\n  \"kernels\": {\n" > json
	for (i = 1; i <= nk; i++) {
		k = ks[i]
		printf "    \"%s\": {", k > json
		for (j = 1; j <= n; j++)
			printf "%s\"%s\": %.1f", (j > 1 ? ", " : ""), order[j], ns[k, order[j]] > json
		printf ", \"sustained\": {\"events\": %d, \"ns\": %d, \"dropped\": %d, \"kept_per_s\": %.0f, \"drop_free_per_s\": %d}}%s\n",
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
