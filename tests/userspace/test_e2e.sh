#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# End to end on the host (KTAP): the trace.dat that Debian's trace-cmd recorded
# in the arm64 guest, printed by the host's trace-cmd report with
# plugin_framewalk, and the guest's framewalk recording, read by the host CLI,
# must both show the test module's known chain, run from a write and a timer.
# usage: test_e2e.sh GUEST_FILES_DIR
set -u
. "$(cd "$(dirname "$0")" && pwd)/../ktap.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
files=${1:?usage: test_e2e.sh GUEST_FILES_DIR}
write_chain='fw_test_leaf <- fw_test_l5+0x[0-9a-f]* <- fw_test_l4+0x[0-9a-f]* <- fw_test_l3+0x[0-9a-f]* <- fw_test_l2+0x[0-9a-f]* <- fw_test_l1+0x[0-9a-f]* <- fw_test_trigger_write+0x'
timer_chain='fw_test_leaf <- fw_test_l5+0x[0-9a-f]* <- fw_test_l4+0x[0-9a-f]* <- fw_test_l3+0x[0-9a-f]* <- fw_test_l2+0x[0-9a-f]* <- fw_test_l1+0x[0-9a-f]* <- fw_test_timer_fn+0x'


ktap_header
report=$(TRACEEVENT_PLUGIN_DIR=$top/build/host/plugins trace-cmd report -O framewalk:oneline=1 \
	-i "$files/trace.dat" 2>&1)
echo "$report" | grep fw_test_leaf | cut -c1-220 | sed 's/^/# /'
echo "$report" | grep -q "$write_chain"
ktap_result $? "trace-cmd report with the plugin: the write chain, symbolized"
echo "$report" | grep -q "$timer_chain"
ktap_result $? "trace-cmd report with the plugin: the hard-IRQ timer chain, symbolized"
frames=$(TRACEEVENT_PLUGIN_DIR=$top/build/host/plugins trace-cmd report -i "$files/trace.dat" 2>&1)
echo "$frames" | grep -A2 'fw_test_leaf nr_ancestors=' | head -3 | sed 's/^/# /'
echo "$frames" | grep -A1 'fw_test_leaf nr_ancestors=' | grep -q '^ => fw_test_l5+0x'
ktap_result $? "trace-cmd report with the plugin: one => line per frame by default"

report=$("$top/build/host/framewalk" report "$files/fw.rec" 2>&1)
echo "$report" | grep -q "$write_chain" && echo "$report" | grep -q "$timer_chain"
ktap_result $? "framewalk report on the host reads the guest's recording"
folded=$("$top/build/host/framewalk" folded "$files/fw.rec" 2>&1)
echo "$folded" | sed 's/^/# /' | cut -c1-200
echo "$folded" | grep -q ';fw_test_trigger_write;fw_test_l1;fw_test_l2;fw_test_l3;fw_test_l4;fw_test_l5;fw_test_leaf 1$'
ktap_result $? "framewalk folded: the write chain, outermost first"
"$top/build/host/framewalk" top "$files/fw.rec" | grep -q ' 2 .*fw_test_l5 -> fw_test_leaf$'
ktap_result $? "framewalk top: fw_test_l5 -> fw_test_leaf twice"

# Recorded under a kretprobe on fw_test_l3: fw_test_l2's frame was recovered.
kret_chain='fw_test_l3+0x[0-9a-f]* <- fw_test_l2+0x[0-9a-f]* \[recovered\] <- fw_test_l1+0x[0-9a-f]* <- fw_test_trigger_write+0x'
report=$(TRACEEVENT_PLUGIN_DIR=$top/build/host/plugins trace-cmd report -O framewalk:oneline=1 \
	-i "$files/trace-kret.dat" 2>&1)
echo "$report" | grep fw_test_leaf | cut -c1-220 | sed 's/^/# /'
echo "$report" | grep -q "$kret_chain"
ktap_result $? "trace-cmd report with the plugin: the recovered frame is marked"
"$top/build/host/framewalk" report "$files/fw-kret.rec" 2>&1 | grep -q "$kret_chain"
ktap_result $? "framewalk report on the host: the recovered frame is marked"

# fw_user_fp_g under trace-cmd record --proc-map (test_userspace.sh): framewalk report -i
# reads the trace.dat through libtracecmd, maps and all. Each user frame of its event in the
# program shows the file and the offset in it that the program's own /proc/self/maps ("map
# START END PGOFF PATH", its executable mappings) give for the address the event holds
# (trace-cmd report -N: the raw field, without any plugin); the host has no such file, so
# the frame is [unknown]. The frames are as many as the event holds.
procmap=$files/user-procmap
pid=$(awk '$1 == "pid" { print $2 }' "$procmap.out")
addrs=$(trace-cmd report -N -i "$procmap.dat" 2>/dev/null |
	grep -m1 "^ *fw_user_fp_g-$pid .* chain_user:" | sed -n 's/.* user=\([0-9 ]*\)$/\1/p')
want=
for a in $addrs; do
	line=$(printf '0x%x' "$a")
	while read -r _ start end pgoff path; do
		[ "$a" -ge $((start)) ] && [ "$a" -lt $((end)) ] &&
			line=$(printf '[unknown] 0x%x (%s+0x%x)' "$a" "$path" $((a - start + pgoff)))
	done < <(grep '^map ' "$procmap.out")
	want+=$line$'\n'
done
want=${want%$'\n'}
got=$("$top/build/host/framewalk" report -F -i "$procmap.dat" 2>&1 |
	awk -v task="fw_user_fp_g-$pid" '$1 == task { on = 1; next }
		on && /^ => / { if (sub(/ \[u( lr)?\]$/, "")) print substr($0, 5); next }
		{ on = 0 }')
echo "$got" | sed 's/^/# report -i: /'
mine=$(paste -d'|' <(echo "$want") <(echo "$got") | awk -F'|' '$1 ~ /fw_user_fp_g\+/' )
[ "$(echo "$want" | grep -c ' (/usr/bin/fw_user_fp_g+0x')" -ge 5 ] &&
	[ "$(echo "$want" | wc -l)" = "$(echo "$got" | wc -l)" ] &&
	[ -z "$(echo "$mine" | awk -F'|' '$1 != $2')" ]
ktap_result $? "framewalk report -i TRACE.DAT: each user frame's file and offset, as the program's maps give"
# The stop names: the plugin prints those the trace.dat's own format gives, as
# libtraceevent prints its __print_symbolic without any plugin (-N), not the plugin's
# numbering; the recording names its stops in its stop lines, user_end at 131.
plain=$(trace-cmd report -N -i "$procmap.dat" 2>/dev/null |
	sed -n 's/.* stop=\([a-z_0-9]*\) .* user_stop=\([a-z_0-9]*\) .*/\1 \2/p')
plugin=$(TRACEEVENT_PLUGIN_DIR=$top/build/host/plugins trace-cmd report -i "$procmap.dat" 2>&1 |
	sed -n 's/.* nr_ancestors=[0-9]* stop=\([a-z_0-9]*\).* user_stop=\([a-z_0-9]*\)$/\1 \2/p')
echo "$plugin" | sort | uniq -c | sed 's/^/# stops: /'
[ -n "$plain" ] && [ "$plugin" = "$plain" ]
ktap_result $? "trace-cmd report with the plugin: the stop names of the trace.dat's own format"
[ "$(grep -c '^stop ' "$files/usym.rec")" = 16 ] && grep -q '^stop 131 user_end$' "$files/usym.rec"
ktap_result $? "the guest's recording names its stops in stop lines"
# The guest's report of fw_user_fp_g's user frames (test_user_symbols.sh) against binutils'
# nm and addr2line on the same file, from the recording's addresses and mappings.
. "$top/tests/userspace/usym_oracle.sh"
prog=/usr/bin/fw_user_fp_g
base=$(awk -v p=$prog '$1 == "M" && $6 == p && $4 == "0" { print $2; exit }' "$files/usym.rec")
want=
i=0
for a in $(awk '$1 == "U" { for (i = 5; i <= NF; i++) print $i; exit }' "$files/usym.rec"); do
	if [ -n "$base" ] && [ $((16#$a)) -ge $((16#$base)) ] &&
		USYM_CROSS=aarch64-linux-gnu- usym_oracle "$top/build/arm64/bin/fw_user_fp_g" \
			$((16#$base)) $((16#$a)) $((i > 0)) $prog >/tmp/usym_e2e.$$ &&
		grep -q '^fw_u_\|^main+' /tmp/usym_e2e.$$; then
		want+=$(cat /tmp/usym_e2e.$$)$'\n'
	fi
	i=$((i + 1))
done
rm -f /tmp/usym_e2e.$$
got=$(sed -n "s/^ => \(\(fw_u_\|main+\).* ($(echo $prog | sed 's#/#\\/#g'))[^[]*\) \[u[ a-z]*\]\$/\1/p" \
	"$files/usym.txt")
echo "$got" | sed 's/^/# guest: /'
[ -n "$got" ] && [ "$got" = "${want%$'\n'}" ]
ktap_result $? "the guest's report of user frames: function+off and file:line as binutils say"
ktap_done
