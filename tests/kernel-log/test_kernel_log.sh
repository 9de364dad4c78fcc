#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Check a guest's kernel log for the reports of the kernel's debug checks (KTAP, one result each).
#
# usage: test_kernel_log.sh [-p BUG]... [-l LABEL] LOG
#   -p  a bug planted by fw_planted_bug.ko (selftests/framewalk/fw_kernel_log.sh plant): the
#       lines between its "fw-planted: begin BUG" and "fw-planted: end BUG" markers must hold a
#       report of that kind and are left out of the other checks
#   -l  what the log is of, for the result names (default: the file name)
# Every other report fails its check, and its first lines are printed as KTAP diagnostics.
# A line counts for the first kind below it matches: the specific ones come first, so
# "BUG: KASAN: ..." is a KASAN report, not one of the "other BUG" ones. Exit 1 on any failure.
set -u
. "$(cd "$(dirname "$0")" && pwd)/../ktap.sh"

planted=()
label=
while getopts "p:l:" opt; do
	case $opt in
	p) planted+=("$OPTARG") ;;
	l) label=$OPTARG ;;
	*) sed -n '4,12s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
log=${1:?usage: test_kernel_log.sh [-p BUG]... [-l LABEL] LOG}
label=${label:-$log}

# kind, the fw_planted_bug name for it, what it is called, the ERE that finds it
kinds='kasan	kasan	KASAN report	BUG: KASAN:
kfence	kfence	KFENCE report	BUG: KFENCE:
ubsan	ubsan	UBSAN report	UBSAN:
rcu	rcu	suspicious RCU usage or RCU stall	suspicious RCU usage|rcu_(sched|preempt) (self-)?detected stall|rcu: INFO: .*detected stall
lockdep	lockdep	lockdep report	WARNING: (possible circular locking|possible recursive locking|inconsistent lock state|possible irq lock inversion|bad unlock balance|held lock freed|lock held when returning|suspicious unlock|Nested lock was not taken)|BUG: (MAX_LOCK|looking up invalid subclass)|INFO: trying to register non-static key|DEBUG_LOCKS_WARN_ON
atomic	atomic-sleep	sleep in atomic context	BUG: (sleeping function called from invalid context|scheduling while atomic|workqueue leaked)
preempt	preempt	preemption-unsafe per-CPU use	BUG: using (smp_processor_id|__this_cpu_[a-z_]*|this_cpu_[a-z_]*)\(\) in preemptible
corrupt	corrupt	list or object corruption	list_(add|del) corruption|ODEBUG:
lockup	lockup	soft or hard lockup, hung task	soft lockup|hard LOCKUP|blocked for more than [0-9]+ seconds|BUG: workqueue lockup
kmemleak	kmemleak	kmemleak report	kmemleak: unreferenced object
oops	oops	oops or panic	Internal error: |Oops|Kernel panic|Unable to handle kernel|kernel BUG at
bug	bug	other BUG	BUG:
warning	warning	other WARNING	WARNING:'

if [ ! -s "$log" ]; then
	ktap_header 1
	ktap_note "no kernel log at $log: the guest died before it saved one?"
	ktap_result 1 "$label: the kernel log came back"
	exit 1
fi

# Classify each line once: "KIND<TAB>SECTION<TAB>LINE NUMBER<TAB>TEXT" for every line with a
# report; SECTION is the planted bug whose markers enclose it, or "-".
hits=$(awk -v kinds="$kinds" '
	BEGIN {
		n = split(kinds, rows, "\n")
		for (i = 1; i <= n; i++) {
			split(rows[i], f, "\t")
			kind[i] = f[1]
			re[i] = f[4]
		}
		section = "-"
	}
	/fw-planted: begin / { section = $NF; next }
	/fw-planted: end / { section = "-"; next }
	{
		for (i = 1; i <= n; i++)
			if ($0 ~ re[i]) {
				printf "%s\t%s\t%d\t%s\n", kind[i], section, NR, $0
				break
			}
	}' "$log")

count_planted=${#planted[@]}
nkinds=$(echo "$kinds" | wc -l)
ktap_header $((nkinds + count_planted))

# print_report LINE: the report that starts at LINE, as diagnostics.
print_report() {
	sed -n "$1,$(($1 + 24))p" "$log" | sed 's/^/# /'
}

while IFS=$'\t' read -r kind plant_name what _; do
	first=$(echo "$hits" | awk -F'\t' -v k="$kind" '$1 == k && $2 == "-"' )
	if [ -z "$first" ]; then
		ktap_result 0 "$label: no $what"
		continue
	fi
	echo "# $(echo "$first" | wc -l) line(s) of $what in $log; the first reports:"
	echo "$first" | head -3 | cut -f3 | while read -r line; do
		print_report "$line"
		echo "# ..."
	done
	ktap_result 1 "$label: no $what"
done <<<"$kinds"

for p in "${planted[@]+"${planted[@]}"}"; do
	kind=$(echo "$kinds" | awk -F'\t' -v p="$p" '$2 == p { print $1 }')
	if [ -z "$kind" ]; then
		echo "# unknown planted bug '$p'"
		ktap_result 1 "$label: the planted $p bug is reported"
		continue
	fi
	if ! grep -q "fw-planted: end $p\$" "$log"; then
		echo "# no 'fw-planted: end $p' marker: the bug was not planted, or the guest died in it"
		ktap_result 1 "$label: the planted $p bug is reported"
		continue
	fi
	got=$(echo "$hits" | awk -F'\t' -v k="$kind" -v p="$p" '$1 == k && $2 == p' | head -1)
	if [ -n "$got" ]; then
		echo "# $(echo "$got" | cut -f4-)"
		ktap_result 0 "$label: the planted $p bug is reported"
	else
		echo "# between the $p markers, no line matches the $p pattern; what the kernel said:"
		sed -n "/fw-planted: begin $p\$/,/fw-planted: end $p\$/p" "$log" | head -30 | sed 's/^/# /'
		ktap_result 1 "$label: the planted $p bug is reported"
	fi
done
ktap_done
