#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: aggregation mode: per-chain counts equal the events of the same hits, whose chains equal the kernel unwinder's (fw_oracle), at depth 64 and 4; totals equal the hits in stats; hard-IRQ and task functions both counted; a full table counts every refused hit in aggregate_dropped; toggling aggregate, filter, depth and clearing while hot on both CPUs; unload while aggregating
# requires: framewalk.ko, fw_oracle.ko, tracefs, debugfs
. "$(dirname "$0")/fw_lib.sh"
FUNCS="vfs_read vfs_write do_sys_openat2 hrtimer_interrupt"
# Traceable, and never called by this test: writing it as the filter stops every hit at once.
IDLE=ksys_sync
fw_test_begin 11
list=$(echo $FUNCS | tr ' ' ,)
P=/sys/module/framewalk/parameters
FOLDED=$DEBUGFS/framewalk/folded
CHAINS=$DEBUGFS/framewalk/chains

workload() {
	for i in 1 2 3 4 5 6 7 8 9 10; do
		fw_read_file
		ls / >/dev/null
		echo "$i" >/tmp/fw_agg_w
		usleep 20000
	done
}

# Lines lost by the top-level ring buffer (overruns and dropped events), all CPUs.
buffer_losses() {
	cat "$TRACEFS"/per_cpu/cpu*/stats |
		awk '/^overrun:|^dropped events:/ { n += $NF } END { print n + 0 }'
}

# The events of the trace as "folded key count", the key as the chains file writes it.
event_keys() {
	for cpu in "$TRACEFS"/per_cpu/cpu*; do
		fw_trace_to_match <"$cpu/trace"
	done | awk '$1 == "C" {	# C func nr_ancestors stop tramp recovered parent ancestors...
		k = ($4 != "chain_end" && $4 != "depth") ? "[" $4 "];" : ""
		for (i = NF; i >= 8; i--)
			k = k $i ";"
		n[k $7 ";" $2]++
	}
	END { for (k in n) print k, n[k] }' | sort
}

# The chains file in the same form: the traced function's address named from kallsyms, by the
# function that holds it (under the -pg hook the address is the `bl _mcount` in its body).
chain_keys() {
	grep ' [tT] ' /proc/kallsyms | sort | awk -v funcs="$FUNCS" '
		BEGIN { split(funcs, f, " "); for (i in f) want[f[i]] = 1 }
		prev != "" { print prev, $1, name; prev = "" }
		want[$3] { prev = $1; name = $3 }' >/tmp/fw_agg_syms
	sed -e 's/0x//g' -e 's/^\[chain_end\];//' -e 's/^\[depth\];//' "$CHAINS" | awk '
	NR == FNR { lo[++nr] = $1; hi[nr] = $2; name[nr] = $3; next }
	function named(a,    i) {
		a = sprintf("%16s", a)
		gsub(/ /, "0", a)
		for (i = 1; i <= nr; i++)
			if (a >= lo[i] && a < hi[i])
				return name[i]
		return "?" a
	}
	{
		n = split($1, fr, ";")
		k = ""
		for (i = 1; i < n; i++)
			k = k fr[i] ";"
		print k named(fr[n]), $2
	}' /tmp/fw_agg_syms - | sort
}

# compare_at DEPTH: aggregate, events and the oracle over the same hits.
compare_at() {
	depth=$1
	fw_trace_reset
	buffer_kb=$(sed -e "s/.*expanded: \([0-9]*\)).*/\1/" -e "s/ .*//" "$TRACEFS/buffer_size_kb")
	echo 16384 >"$TRACEFS/buffer_size_kb"
	insmod "$FW_KO_DIR/framewalk.ko" filter=$IDLE depth="$depth" aggregate=1 ||
		ktap_fail "insmod framewalk.ko failed"
	echo 1 >"$TRACEFS/events/framewalk/chain/enable"
	echo >"$FOLDED"
	echo 0 >"$FW_STATS"
	# One ops switch starts the events and the aggregate at the same hit, another stops both.
	echo "$list" >$P/filter
	# The oracle's ops is registered after framewalk's live one, so ftrace
	# calls it first (fw_match.awk); hits before it are unpaired, not compared.
	insmod "$FW_KO_DIR/fw_oracle.ko" funcs="$list" || ktap_fail "insmod fw_oracle.ko failed"
	echo 1 >"$TRACEFS/events/fw_oracle/stack/enable"
	workload
	echo $IDLE >$P/filter
	echo 0 >"$TRACEFS/tracing_on"
	losses=$(buffer_losses)
	event_keys >/tmp/fw_agg_ev
	chain_keys >/tmp/fw_agg_ch
	for cpu in "$TRACEFS"/per_cpu/cpu*; do
		fw_trace_to_match <"$cpu/trace" >/tmp/fw_match_in
		awk -v maxdepth="$depth" -f ./fw_match.awk /tmp/fw_match_in
	done >/tmp/fw_match_out
	folded_sum=$(awk '{ n += $NF } END { print n + 0 }' "$FOLDED")
	folded_lines=$(wc -l <"$FOLDED")

	ktap_note "depth=$depth: $(wc -l </tmp/fw_agg_ch) chains, ring buffer lost $losses"
	ktap_expect "the ring buffer lost no event" "$losses" = 0
	diff /tmp/fw_agg_ev /tmp/fw_agg_ch | head -8 | sed 's/^/# /'
	ktap_expect "every chain counted as often as its events" -z "$(diff /tmp/fw_agg_ev /tmp/fw_agg_ch)"
	ktap_expect "some chains were counted" "$(wc -l </tmp/fw_agg_ch)" -ge 4
	ktap_case_end "depth $depth: per-chain counts equal the events of the same hits"

	hits=$(fw_stat hits)
	ktap_note "hits $hits rcu_off $(fw_stat rcu_off) walks $(fw_stat walks) events $(fw_stat events) aggregated $(fw_stat aggregated) dropped $(fw_stat aggregate_dropped) folded $folded_sum in $folded_lines lines"
	ktap_expect "aggregated equals the folded counts" "$(fw_stat aggregated)" = "$folded_sum"
	ktap_expect "every walked hit aggregated" "$(fw_stat aggregated)" = "$(fw_stat walks)"
	ktap_expect "every hit walked" "$(fw_stat walks)" = "$((hits - $(fw_stat rcu_off)))"
	ktap_expect "one event per aggregated hit" "$(fw_stat events)" = "$(fw_stat aggregated)"
	ktap_expect "nothing dropped" "$(fw_stat aggregate_dropped)" = 0
	ktap_expect "folded and chains list the same chains" "$folded_lines" = "$(wc -l <"$CHAINS")"
	ktap_case_end "depth $depth: the aggregate's total equals the hits in stats"

	grep '^#' /tmp/fw_match_out
	for fn in $FUNCS; do
		set -- $(awk -v f="$fn" '$1 == "RESULT" && $2 == f { g += $3; b += $4; l += $5 }
			END { print g + 0, b + 0, l + 0 }' /tmp/fw_match_out)
		counted=$(awk -v f="$fn" '$1 ~ ";" f "$" { n += $2 } END { print n + 0 }' /tmp/fw_agg_ch)
		ktap_note "$fn: aggregated $counted, against the unwinder $1 equal, $2 different, $3 unpaired"
		ktap_expect "$fn: counted" "$counted" -ge 3
		ktap_expect "$fn: at least 3 calls compared" "$1" -ge 3
		ktap_expect "$fn: no chain differs from the unwinder's" "$2" = 0
	done
	ktap_case_end "depth $depth: the counted chains equal the kernel unwinder's, hard IRQ and task"
	echo 0 >"$TRACEFS/events/framewalk/chain/enable"
	echo 0 >"$TRACEFS/events/fw_oracle/stack/enable"
	rmmod fw_oracle
	rmmod framewalk
	echo "$buffer_kb" >"$TRACEFS/buffer_size_kb"
	fw_trace_reset
}

compare_at 64
compare_at 4

# Two chains per CPU and context: most hits find the table full.
insmod "$FW_KO_DIR/framewalk.ko" filter=$IDLE depth=8 aggregate=1 aggregate_entries=2 ||
	ktap_fail "insmod aggregate_entries=2 failed"
echo 0 >"$FW_STATS"
echo "$list" >$P/filter
workload
echo $IDLE >$P/filter
folded_sum=$(awk '{ n += $NF } END { print n + 0 }' "$FOLDED")
ktap_note "hits $(fw_stat hits) walks $(fw_stat walks) aggregated $(fw_stat aggregated) dropped $(fw_stat aggregate_dropped) in $(wc -l <"$CHAINS") chains, folded $folded_sum"
ktap_expect "hits were dropped" "$(fw_stat aggregate_dropped)" -gt 0
ktap_expect "every walked hit counted or dropped" \
	"$(($(fw_stat aggregated) + $(fw_stat aggregate_dropped)))" = "$(fw_stat walks)"
ktap_expect "the folded counts are the aggregated ones" "$folded_sum" = "$(fw_stat aggregated)"
# 2 CPUs, 5 contexts each: at most 20 distinct chains.
ktap_expect "no table held more than 2 chains" "$(wc -l <"$CHAINS")" -le 20
ktap_case_end "a full table counts each refused hit in aggregate_dropped and evicts none"
before=$(wc -l <"$CHAINS")
echo >"$FOLDED"
ktap_expect "writing folded empties it" "$(wc -l <"$FOLDED")" = 0
echo "$list" >$P/filter
workload
echo $IDLE >$P/filter
ktap_expect "after a clear the table has room again" "$(wc -l <"$CHAINS")" -ge 1
# A frame in a module prints as its function alone, as framewalk folded names it.
ktap_expect "folded lines are 'frame;...;frame count'" \
	-z "$(grep -Ev '^([^;]+;)+[^;]+ [0-9]+$' "$FOLDED")"
ktap_note "$before chains before the clear, $(wc -l <"$CHAINS") after new hits"
ktap_case_end "writing folded clears the counts; folded format"
rmmod framewalk

# Both CPUs hot while aggregate, filter, depth and the counts change under them.
insmod "$FW_KO_DIR/framewalk.ko" filter="$list" depth=16 aggregate=1 instance=fw_agg ||
	ktap_fail "insmod failed"
load_pids=
for cpu in 0 1; do
	( while :; do fw_read_file; usleep 300; done ) &
	load_pids="$load_pids $!"
done
( while :; do cat "$FOLDED" "$CHAINS" >/dev/null; done ) &
reader=$!
refused=0
for i in $(seq 40); do
	echo $((i % 2)) >$P/aggregate || refused=$((refused + 1))
	echo $((i % 65)) >$P/depth || refused=$((refused + 1))
	case $((i % 3)) in
	0) echo "vfs_read,hrtimer_interrupt" >$P/filter || refused=$((refused + 1)) ;;
	1) echo "$list" >$P/filter || refused=$((refused + 1)) ;;
	2) echo >"$FOLDED" || refused=$((refused + 1)) ;;
	esac
done
echo 1 >$P/aggregate
usleep 200000
kill $load_pids $reader
wait 2>/dev/null
echo $IDLE >$P/filter
bad=$(fw_stats_inconsistencies)
echo "$bad" | sed 's/^/# /'
ktap_expect "every write accepted" "$refused" = 0
ktap_expect "statistics consistent" -z "$bad"
ktap_expect "chains counted after the storm" "$(wc -l <"$CHAINS")" -gt 0
ktap_expect "folded lines are well formed" \
	-z "$(grep -Ev '^([^;]+;)+[^;]+ [0-9]+$' "$FOLDED")"
ktap_case_end "aggregate, filter, depth and clears changed while hot on both CPUs"

# Unload while aggregating, with both CPUs hot and a reader of the counts.
echo "$list" >$P/filter
load_pids=
for cpu in 0 1; do
	( while :; do fw_read_file; done ) &
	load_pids="$load_pids $!"
done
( while :; do cat "$FOLDED" >/dev/null 2>&1; done ) &
reader=$!
usleep 100000
# An open folded holds a module reference: rmmod refuses until the reader closes it.
for try in $(seq 50); do
	rmmod framewalk 2>/dev/null && break
	usleep 20000
done
kill $load_pids $reader
wait 2>/dev/null
ktap_expect "the module is gone" -z "$(grep '^framewalk ' /proc/modules)"
ktap_case_end "unload while aggregating"
rmdir "$TRACEFS/instances/fw_agg" 2>/dev/null

trouble=$(fw_dmesg_trouble)
ktap_expect "no kernel warnings: $trouble" -z "$trouble"
ktap_case_end "no kernel warnings"
ktap_exit
