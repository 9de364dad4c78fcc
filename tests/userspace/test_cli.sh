#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Unit tests of the framewalk CLI's report, folded and top on a hand-made
# recording whose expected output is worked out by hand, and of its errors on
# malformed files (KTAP). Runs the ASan/UBSan build.
set -u
. "$(cd "$(dirname "$0")" && pwd)/../ktap.sh"
fw=${FW_CLI:-$(cd "$(dirname "$0")/../.." && pwd)/build/host/framewalk-asan}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# check DESCRIPTION GOT EXPECTED
check() {
	if [ "$2" != "$3" ]; then
		echo "# expected: $(printf '%s' "$3" | head -5 | tr '\n' '|')"
		echo "# got:      $(printf '%s' "$2" | head -5 | tr '\n' '|')"
	fi
	[ "$2" = "$3" ]
	ktap_result $? "$1"
}

# Three calls: two identical chains child <- parentfn+0x10 <- grand+0x20 <- great+0x30,
# one child2 <- parentfn+0x20 <- grand+0x30.
cat >"$tmp/good.rec" <<'REC'
framewalk-record 1
kernel 6.12-test
filter child*
notrace
depth 4
E 0 1000000000 10 1000 2010 0 2 3020 4030
E 1 2000500000 11 1000 2010 1 2 3020 4030
E 0 3000000000 10 1100 2020 0 1 3030
C 10 alpha
C 11 beta
S 1000 child
S 1100 child2
S 2000 parentfn
S 3000 grand
S 4000 great
end 3 5
REC

echo "KTAP version 1"
got=$("$fw" report "$tmp/good.rec" 2>&1)
check "report prints each chain symbolized, with comm, cpu, time and stop reason" \
	"$(echo "$got" | sed -n 2,4p)" \
"           alpha-10     [000]      1.000000: child <- parentfn+0x10 <- grand+0x20 <- great+0x30   [chain_end]
            beta-11     [001]      2.000500: child <- parentfn+0x10 <- grand+0x20 <- great+0x30   [depth]
           alpha-10     [000]      3.000000: child2 <- parentfn+0x20 <- grand+0x30   [chain_end]"
check "report sums up events, drops and stop reasons" "$(echo "$got" | tail -1)" \
	"# 3 events, 5 dropped; stops: chain_end=2 depth=1"
got=$("$fw" report -F "$tmp/good.rec" 2>&1 | sed -n 2,5p)
check "report -F prints a frame per line" "$got" \
"           alpha-10     [000]      1.000000: child depth=2 stop=chain_end
 => parentfn+0x10
 => grand+0x20
 => great+0x30"
check "folded counts identical stacks, outermost frame first" "$("$fw" folded "$tmp/good.rec")" \
"grand;parentfn;child2 1
great;grand;parentfn;child 2"
check "top ranks caller -> callee edges" "$("$fw" top "$tmp/good.rec")" \
"# 8 caller -> callee edges in 3 chains
       3  37.50%  grand -> parentfn
       2  25.00%  great -> grand
       2  25.00%  parentfn -> child
       1  12.50%  parentfn -> child2"
check "top -n limits the list" "$("$fw" top -n 1 "$tmp/good.rec" | wc -l)" 2

# Addresses no symbol covers stay numeric.
sed '/^S /d' "$tmp/good.rec" >"$tmp/nosyms.rec"
check "without symbols the addresses print raw" "$("$fw" report "$tmp/nosyms.rec" | sed -n 2p)" \
	"           alpha-10     [000]      1.000000: 0x1000 <- 0x2010 <- 0x3020 <- 0x4030   [chain_end]"

# A recording cut short (recorder killed) still reads.
head -7 "$tmp/good.rec" >"$tmp/cut.rec"
check "a recording without its end line reports what it has" \
	"$("$fw" report "$tmp/cut.rec" | tail -1)" "# 2 events, 0 dropped; stops: chain_end=1 depth=1"

# Malformed files: a clear error naming file and line, exit status 1.
bad() {
	local what=$1 want=$2 got rc
	got=$("$fw" report "$tmp/bad.rec" 2>&1 >/dev/null)
	rc=$?
	check "$what" "$rc: $got" "1: framewalk: $tmp/bad.rec:$want"
}
echo "not a recording" >"$tmp/bad.rec"
bad "a file that is not a recording" "1: not a framewalk recording"
printf 'framewalk-record 9\n' >"$tmp/bad.rec"
bad "an unknown format version" "1: format version 9, expected 1"
printf 'framewalk-record 1\nE 0 1 1 1 1 0 3 a b\n' >"$tmp/bad.rec"
bad "an event with fewer ancestors than it says" "2: fewer ancestors than the event says"
printf 'framewalk-record 1\nE 0 1 1 1 1 0 65\n' >"$tmp/bad.rec"
bad "an event with more than 64 ancestors" "2: more than 64 ancestors"
printf 'framewalk-record 1\nE 0 1 1 1 1 0 0\nend 5 0\n' >"$tmp/bad.rec"
bad "an end line that miscounts" "3: end line counts 5 events, the file has 1"
printf 'framewalk-record 1\nend 0 0\nE 0 1 1 1 1 0 0\n' >"$tmp/bad.rec"
bad "data after the end line" "3: data after the end line"
printf 'framewalk-record 1\nQ what\n' >"$tmp/bad.rec"
bad "an unknown line" "2: unknown line 'Q what'"
head -c 5000 /dev/zero | tr '\0' 'x' | sed 's/^/framewalk-record 1\nE /' >"$tmp/bad.rec"
bad "an overlong line" "2: line longer than 4095 bytes"
: >"$tmp/bad.rec"
bad "an empty file" "0: empty file"
got=$("$fw" report "$tmp/missing.rec" 2>&1)
check "a missing file" "$got" "framewalk: $tmp/missing.rec:0: No such file or directory"
got=$("$fw" frobnicate 2>&1 | head -1)
check "an unknown command" "$got" "framewalk: unknown command"
got=$("$fw" record -d 99 2>&1 | head -1)
check "a depth out of range" "$got" "framewalk: -d takes a depth from 0 to 64"

got=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$fw" record -f vfs_read 2>&1)
check "record refuses to run without root, saying why" "$got" \
	"framewalk: record needs root: it sets module parameters and reads tracefs"

ktap_done
