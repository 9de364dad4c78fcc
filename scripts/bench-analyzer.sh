#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench, host half: crashwalk's time per dump against gdb-multiarch (and
# eu-stack, where it can read the dump) on the same ELF cores in the same run:
# the Cortex-M crash corpus and a generated 50 000-function firmware with
# DWARF. Cold = one process per dump, ELF and DWARF loading included; batch =
# one process for many dumps. Prints a table, writes build/bench/analyzer.json.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/bench
cw=$top/analyzer/build/crashwalk
gdb="gdb-multiarch -batch -nx -ex set\ backtrace\ past-main\ on"
mkdir -p "$out"

[ -x "$cw" ] || { echo "bench-analyzer: build crashwalk first (make)" >&2; exit 1; }
mapfile -t dumps < <(find "$top/.cache/corpus" -name core.elf 2>/dev/null | sort)
if [ "${#dumps[@]}" = 0 ]; then
	echo "bench-analyzer: no crash corpus in .cache/corpus: building it (make -C analyzer check)" >&2
	make -s -C "$top/analyzer" check >/dev/null 2>&1 || true
	mapfile -t dumps < <(find "$top/.cache/corpus" -name core.elf | sort)
fi
big=$top/.cache/bench/bigfw
python3 "$top/bench/bigfw.py" "$big" >&2

now() { date +%s%N; }
# ms ELAPSED_NS COUNT: milliseconds per item, two decimals.
ms() { awk -v ns="$1" -v n="$2" 'BEGIN { printf "%.2f", ns / n / 1e6 }'; }

elf_of() { echo "$(dirname "$(dirname "$1")")/fw.elf"; }

# Corpus, cold: one process per dump.
t=$(now)
for d in "${dumps[@]}"; do "$cw" "$(elf_of "$d")" "$d" >/dev/null 2>&1 || true; done
cw_cold=$(($(now) - t))
t=$(now)
for d in "${dumps[@]}"; do eval "$gdb" -ex bt '"$(elf_of "$d")"' '"$d"' >/dev/null 2>&1 || true; done
gdb_cold=$(($(now) - t))

# Corpus, batch: one process per firmware, all of its dumps.
mapfile -t fws < <(for d in "${dumps[@]}"; do elf_of "$d"; done | sort -u)
t=$(now)
for fw in "${fws[@]}"; do
	"$cw" "$fw" $(dirname "$fw")/*/core.elf >/dev/null 2>&1 || true
done
cw_batch=$(($(now) - t))
t=$(now)
for fw in "${fws[@]}"; do
	args=()
	for d in "$(dirname "$fw")"/*/core.elf; do args+=(-ex "core-file $d" -ex bt); done
	eval "$gdb" '"${args[@]}"' '"$fw"' >/dev/null 2>&1 || true
done
gdb_batch=$(($(now) - t))

# The large firmware: cold runs, and one process for REPEAT copies of its dump. A fleet host
# analyzing one product's crashes runs long batches: the small batch shows the start-up cost
# still in it, the large one what each further dump costs.
REPEAT=50
REPEAT_LONG=500
COLD=5
t=$(now)
for i in $(seq $COLD); do "$cw" "$big/big.elf" "$big/big.core" >/dev/null; done
cw_big_cold=$(($(now) - t))
t=$(now)
for i in $(seq $COLD); do eval "$gdb" -ex bt '"$big/big.elf"' '"$big/big.core"' >/dev/null 2>&1; done
gdb_big_cold=$(($(now) - t))
cw_batch_of() {	# N: ns for one crashwalk process over N copies of the large dump
	local t0
	t0=$(now)
	"$cw" "$big/big.elf" $(for i in $(seq "$1"); do echo "$big/big.core"; done) >/dev/null
	echo $(($(now) - t0))
}
gdb_batch_of() {
	local t0 args=()
	for i in $(seq "$1"); do args+=(-ex "core-file $big/big.core" -ex bt); done
	t0=$(now)
	eval "$gdb" '"${args[@]}"' '"$big/big.elf"' >/dev/null 2>&1
	echo $(($(now) - t0))
}
cw_big_batch=$(cw_batch_of $REPEAT)
gdb_big_batch=$(gdb_batch_of $REPEAT)
cw_big_long=$(cw_batch_of $REPEAT_LONG)
gdb_big_long=$(gdb_batch_of $REPEAT_LONG)
cw_rss=$(/usr/bin/time -f %M "$cw" "$big/big.elf" "$big/big.core" 2>&1 >/dev/null | tail -1)
gdb_rss=$(eval /usr/bin/time -f %M "$gdb" -ex bt '"$big/big.elf"' '"$big/big.core"' 2>&1 >/dev/null | tail -1)
if eu=$(eu-stack --core "$big/big.core" -e "$big/big.elf" 2>&1); then
	eu_status="reads them"
else
	eu_status="cannot read bare-metal ARM cores ($(echo "$eu" | head -1))"
fi

# A fleet: FLEET_DUMPS dumps of FLEET_BUILDS firmware builds (the corpus's builds, each with its
# own build-id; its core.elf and core.zephyr dumps repeated in a fixed shuffle), found by
# build-id in a symbol directory. One --batch process for all of them, against the same work
# one process per dump and gdb-multiarch -batch per dump (ELF cores only: GDB reads no Zephyr
# dump), each on a sample whose rate stands for the whole.
FLEET_DUMPS=10000
FLEET_BUILDS=20
FLEET_PER_PROCESS=300
FLEET_GDB=30
fleet=$top/.cache/bench/fleet
rm -rf "$fleet"
mkdir -p "$fleet/symbols" "$fleet/dumps"
mapfile -t fleet_fws < <(printf '%s\n' "${fws[@]}" | head -n $FLEET_BUILDS)
i=0
for fw in "${fleet_fws[@]}"; do
	ln -s "$fw" "$fleet/symbols/fw$i.elf"
	i=$((i + 1))
done
mapfile -t fleet_src < <(for fw in "${fleet_fws[@]}"; do
	ls "$(dirname "$fw")"/*/core.elf "$(dirname "$fw")"/*/core.zephyr; done |
	awk '{ printf "%08x %s\n", (NR * 2654435761) % 4294967296, $0 }' | sort | cut -d' ' -f2)
for i in $(seq 0 $((FLEET_DUMPS - 1))); do
	echo "$fleet/dumps/d$i"
done >"$fleet/list"
i=0
while read -r d; do
	ln -s "${fleet_src[$((i % ${#fleet_src[@]}))]}" "$d"
	i=$((i + 1))
done <"$fleet/list"
fleet_cw="$cw --symbols $fleet/symbols --no-debuginfod"
t=$(now)
/usr/bin/time -f %M -o "$fleet/rss" $fleet_cw --batch --image-cache 32 <"$fleet/list" \
	>"$fleet/batch.jsonl" 2>"$fleet/batch.err" || true
fleet_batch=$(($(now) - t))
fleet_rss=$(tail -1 "$fleet/rss")
fleet_opened=$(sed -n 's/.* failed, \([0-9]*\) firmware images\{0,1\} opened/\1/p' "$fleet/batch.err")
fleet_failed=$(grep -c '"error"' "$fleet/batch.jsonl" || true)
# Memory against the dumps and the cache: a tenth of the dumps, and a cache of 4.
head -n $((FLEET_DUMPS / 10)) "$fleet/list" | /usr/bin/time -f %M -o "$fleet/rss" \
	$fleet_cw --batch --image-cache 32 >/dev/null 2>&1 || true
fleet_rss_tenth=$(tail -1 "$fleet/rss")
/usr/bin/time -f %M -o "$fleet/rss" $fleet_cw --batch --image-cache 4 <"$fleet/list" \
	>/dev/null 2>&1 || true
fleet_rss_cache4=$(tail -1 "$fleet/rss")
t=$(now)
head -n $FLEET_PER_PROCESS "$fleet/list" | while read -r d; do
	$fleet_cw --json "$d" >/dev/null 2>&1 || true
done
fleet_process=$(($(now) - t))
mapfile -t fleet_gdb < <(grep -n . "$fleet/list" | head -n $((FLEET_GDB * 3)) | cut -d: -f2 |
	while read -r d; do case $(readlink "$d") in *core.elf) echo "$d";; esac; done |
	head -n $FLEET_GDB)
t=$(now)
for d in "${fleet_gdb[@]}"; do
	eval "$gdb" -ex bt '"$(elf_of "$(readlink "$d")")"' '"$d"' >/dev/null 2>&1 || true
done
fleet_gdb_ns=$(($(now) - t))
t=$(now)
"$cw" summary "$fleet/batch.jsonl" >"$fleet/summary.txt"
fleet_summary=$(($(now) - t))
fleet_groups=$(sed -n 's/.* in \([0-9]*\) crash group.*/\1/p' "$fleet/summary.txt")
# dumps/s: COUNT NS
rate() { awk -v n="$1" -v ns="$2" 'BEGIN { printf "%.0f", n / (ns / 1e9) }'; }
fleet_batch_rate=$(rate $FLEET_DUMPS $fleet_batch)
fleet_process_rate=$(rate $FLEET_PER_PROCESS $fleet_process)
fleet_gdb_rate=$(rate ${#fleet_gdb[@]} $fleet_gdb_ns)

n=${#dumps[@]}
nbig=$(arm-none-eabi-nm "$big/big.elf" | grep -c ' [tT] ')
code=$(arm-none-eabi-size -A "$big/big.elf" | awk '$1 == ".text" { print $2 }')
{
	echo "crashwalk against gdb-multiarch on the same ELF cores (ms per dump; lower is better)"
	printf '%-44s %10s %10s %8s\n' "input" "crashwalk" "gdb" "gdb/cw"
	row() { printf '%-44s %10s %10s %8s\n' "$1" "$2" "$3" \
		"$(awk -v a="$3" -v b="$2" 'BEGIN { printf "%.1fx", a / b }')"; }
	row "corpus, $n dumps, cold" "$(ms $cw_cold $n)" "$(ms $gdb_cold $n)"
	row "corpus, $n dumps, batch per firmware" "$(ms $cw_batch $n)" "$(ms $gdb_batch $n)"
	row "$nbig symbols, $code B code, cold" "$(ms $cw_big_cold $COLD)" "$(ms $gdb_big_cold $COLD)"
	row "same, batch of $REPEAT dumps" "$(ms $cw_big_batch $REPEAT)" "$(ms $gdb_big_batch $REPEAT)"
	row "same, batch of $REPEAT_LONG dumps" "$(ms $cw_big_long $REPEAT_LONG)" \
		"$(ms $gdb_big_long $REPEAT_LONG)"
	# Rates and the target from the milliseconds printed above, as scripts/bench-readme.py
	# redoes them: a reader's arithmetic gives the same figures.
	echo "batch throughput: crashwalk $(awk -v ms="$(ms $cw_big_long $REPEAT_LONG)" 'BEGIN { printf "%.0f", 1000 / ms }') dumps/s on the large firmware, $(awk -v ms="$(ms $cw_batch $n)" 'BEGIN { printf "%.0f", 1000 / ms }') on the corpus"
	echo "peak RSS on the large firmware: crashwalk $cw_rss KB, gdb $gdb_rss KB"
	echo "eu-stack: $eu_status"
	echo "fleet: $FLEET_DUMPS dumps of $FLEET_BUILDS builds found by build-id, dumps/s: batch $fleet_batch_rate, one process per dump $fleet_process_rate (sample of $FLEET_PER_PROCESS), gdb per dump $fleet_gdb_rate (sample of ${#fleet_gdb[@]} ELF cores); $fleet_failed failed, $fleet_opened images opened, $fleet_groups crash groups (summary $(ms $fleet_summary 1) ms)"
	echo "fleet peak RSS: $fleet_rss KB for $FLEET_DUMPS dumps, $fleet_rss_tenth KB for $((FLEET_DUMPS / 10)), $fleet_rss_cache4 KB with --image-cache 4"
	echo "target (issue: fleet batch >= 100x gdb per dump): $(awk -v a="$fleet_batch_rate" -v b="$fleet_gdb_rate" 'BEGIN { r = a / b; printf "%.1fx, %s", r, (r >= 100 ? "met" : "not met") }')"
	echo "target (issue: cold start on the large firmware >= 10x gdb): $(awk -v a="$(ms $gdb_big_cold $COLD)" -v b="$(ms $cw_big_cold $COLD)" 'BEGIN { r = a / b; printf "%.1fx, %s", r, (r >= 10 ? "met" : "not met") }')"
	echo "target (issue: >= 100x faster than gdb per dump in batch mode): $(awk -v a="$(ms $gdb_big_long $REPEAT_LONG)" -v b="$(ms $cw_big_long $REPEAT_LONG)" -v n=$REPEAT_LONG 'BEGIN { r = a / b; printf "%.1fx on the large firmware in a batch of %d, %s", r, n, (r >= 100 ? "met" : "not met") }')"
} | tee "$out/analyzer.txt"
cat >"$out/analyzer.json" <<JSON
{
  "unit": "ms per dump",
  "corpus": {"dumps": $n, "crashwalk_cold": $(ms $cw_cold $n), "gdb_cold": $(ms $gdb_cold $n),
             "crashwalk_batch": $(ms $cw_batch $n), "gdb_batch": $(ms $gdb_batch $n)},
  "large_firmware": {"symbols": $nbig, "code_bytes": $code,
             "crashwalk_cold": $(ms $cw_big_cold $COLD), "gdb_cold": $(ms $gdb_big_cold $COLD),
             "batch": $REPEAT,
             "crashwalk_batch": $(ms $cw_big_batch $REPEAT), "gdb_batch": $(ms $gdb_big_batch $REPEAT),
             "batch_long": $REPEAT_LONG, "crashwalk_batch_long": $(ms $cw_big_long $REPEAT_LONG),
             "gdb_batch_long": $(ms $gdb_big_long $REPEAT_LONG),
             "crashwalk_peak_rss_kb": $cw_rss, "gdb_peak_rss_kb": $gdb_rss},
  "eu_stack": "$eu_status",
  "fleet": {"dumps": $FLEET_DUMPS, "builds": $FLEET_BUILDS, "failed": $fleet_failed,
            "images_opened": $fleet_opened, "crash_groups": $fleet_groups,
            "batch_dumps_per_s": $fleet_batch_rate,
            "per_process_dumps_per_s": $fleet_process_rate, "per_process_sample": $FLEET_PER_PROCESS,
            "gdb_dumps_per_s": $fleet_gdb_rate, "gdb_sample": ${#fleet_gdb[@]},
            "summary_ms": $(ms $fleet_summary 1),
            "batch_peak_rss_kb": $fleet_rss, "tenth_peak_rss_kb": $fleet_rss_tenth,
            "cache4_peak_rss_kb": $fleet_rss_cache4}
}
JSON
