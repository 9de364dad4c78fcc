#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Unit tests of the framewalk CLI's report, folded and top on a hand-made
# recording whose expected output is worked out by hand, of its errors on
# malformed, foreign and cut-short files, of list on a hand-made function list
# (as root), and of its command line: long options, --help, --version, refused
# values, what record and profile refuse before they need the module (KTAP).
# Runs the ASan/UBSan build.
set -u
. "$(cd "$(dirname "$0")" && pwd)/../ktap.sh"
fw=${FW_CLI:-$(cd "$(dirname "$0")/../.." && pwd)/build/host/framewalk-asan}
man=$(cd "$(dirname "$0")/../.." && pwd)/userspace/framewalk.1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# check DESCRIPTION GOT EXPECTED
check() {
	ktap_check "$@"
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

ktap_header
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
"           alpha-10     [000]      1.000000: child nr_ancestors=2 stop=chain_end
 => parentfn+0x10
 => grand+0x20
 => great+0x30"
check "folded counts identical stacks, outermost frame first" "$("$fw" folded "$tmp/good.rec")" \
"grand;parentfn;child2 1
great;grand;parentfn;child 2"
# A walk that stopped short (off_stack = 3) gets its reason as the root frame.
sed 's/^E 0 3000000000 10 1100 2020 0 1 3030$/E 0 3000000000 10 1100 2020 3 1 3030/' \
	"$tmp/good.rec" >"$tmp/stop.rec"
check "folded puts a stop other than chain_end or depth as the root frame" \
	"$("$fw" folded "$tmp/stop.rec")" \
"[off_stack];grand;parentfn;child2 1
great;grand;parentfn;child 2"
check "top ranks caller -> callee edges" "$("$fw" top "$tmp/good.rec")" \
"# 4 distinct caller -> callee edges, seen 8 times along 3 chains
       3  37.50%  grand -> parentfn
       2  25.00%  great -> grand
       2  25.00%  parentfn -> child
       1  12.50%  parentfn -> child2"
check "top -l limits the list" "$("$fw" top -l 1 "$tmp/good.rec" | wc -l)" 2
# The heading announces what is listed: with -l below the distinct edges, that many of them;
# above, the 4 there are (top -l 10 once announced 10 edges and listed 4).
announced() {
	"$fw" top "$@" | awk 'NR == 1 { n = $2 == "the" ? $3 : $2 } NR > 1 { l++ }
		END { print n " announced, " l + 0 " listed" }'
}
check "top -l 2 announces and lists 2 edges" "$(announced -l 2 "$tmp/good.rec")" \
	"2 announced, 2 listed"
check "top -l 10 of 4 distinct edges announces and lists the 4" \
	"$(announced -l 10 "$tmp/good.rec")" "4 announced, 4 listed"
check "top -l 2 says of how many edges it lists the most frequent" \
	"$("$fw" top -l 2 "$tmp/good.rec" | head -1)" \
	"# the 2 most frequent of 4 distinct caller -> callee edges, seen 8 times along 3 chains"
check "top --limit=1 is top -l 1" "$("$fw" top --limit=1 "$tmp/good.rec")" \
	"$("$fw" top -l 1 "$tmp/good.rec")"
check "report --frames is report -F" "$("$fw" report --frames "$tmp/good.rec")" \
	"$("$fw" report -F "$tmp/good.rec")"
check "- reads the recording from standard input" "$("$fw" report - <"$tmp/good.rec")" \
	"$("$fw" report "$tmp/good.rec")"
check "without FILE the recording is framewalk.rec, as record writes it" \
	"$(cd "$tmp" && cp good.rec framewalk.rec && "$fw" folded; rm -f framewalk.rec)" \
	"$("$fw" folded "$tmp/good.rec")"
check "report -q prints the chains alone" "$("$fw" report -q "$tmp/good.rec" | grep -c '^#')" 0
check "report -v says what it read" "$("$fw" report --verbose "$tmp/good.rec" 2>&1 >/dev/null)" \
	"framewalk report: $tmp/good.rec: 3 events, 5 symbols, 2 task names"

# --color: the traced function in bold; auto only on a terminal, without NO_COLOR or TERM=dumb.
bold=$(printf '\033[1m')
check "report is plain off a terminal" "$("$fw" report "$tmp/good.rec" | grep -cF "$bold")" 0
check "report --color=always bolds each chain's function" \
	"$("$fw" report --color=always "$tmp/good.rec" | grep -cF "$bold")" 3
check "report --color=sometimes is refused" \
	"$("$fw" report --color=sometimes "$tmp/good.rec" 2>&1)" \
	"framewalk report: --color: unknown value 'sometimes'; use auto, always or never"
ontty() { script -qec "$*" /dev/null | grep -cF "$bold"; }
check "report on a terminal is bold" "$(TERM=xterm ontty "$fw" report "$tmp/good.rec")" 3
check "report on a terminal honours NO_COLOR" \
	"$(NO_COLOR=1 TERM=xterm ontty "$fw" report "$tmp/good.rec")" 0
check "report on a terminal honours TERM=dumb" "$(TERM=dumb ontty "$fw" report "$tmp/good.rec")" 0
check "report --color=never on a terminal is plain" \
	"$(TERM=xterm ontty "$fw" report --color=never "$tmp/good.rec")" 0

# A symbol is read whole, however long (Rust and LTO names run past 255 bytes).
long=$(printf 'x%.0s' $(seq 600))
sed "s/^S 1000 child\$/S 1000 $long/" "$tmp/good.rec" >"$tmp/long.rec"
check "a 600-byte symbol name is printed whole" \
	"$("$fw" report -q "$tmp/long.rec" | head -1 | awk '{ print length($4) }')" 600

# The same three calls as a profile saves them: two counted chains, the first counted twice.
cat >"$tmp/counted.rec" <<'REC'
framewalk-record 1
kernel 6.12-test
filter child*
notrace
depth 4
A 2 1000 2010 0 2 3020 4030
A 1 1100 2020 3 1 3030
S 1000 child
S 1100 child2
S 2000 parentfn
S 3000 grand
S 4000 great
end 2 7
REC
# The counted chains stand for the three events of stop.rec: the same stacks and edges,
# checked above line by line.
check "folded weighs a counted chain by its count" "$("$fw" folded "$tmp/counted.rec")" \
	"$("$fw" folded "$tmp/stop.rec")"
check "top weighs a counted chain's edges by its count" \
	"$("$fw" top "$tmp/counted.rec" | sed 1d)" "$("$fw" top "$tmp/stop.rec" | sed 1d)"
# Counted chains are chains of hits, in report's words and profile's summary's.
check "top's heading counts the counted chains and their hits apart" \
	"$("$fw" top "$tmp/counted.rec" | head -1)" \
	"# 4 distinct caller -> callee edges, seen 8 times along 2 chains of 3 hits"
check "report prints a counted chain with its hits, and sums them" \
	"$("$fw" report "$tmp/counted.rec" | sed -n '2p;$p')" \
"         2 hits: child <- parentfn+0x10 <- grand+0x20 <- great+0x30   [chain_end]
# 2 chains of 3 hits, 7 dropped; stops: chain_end=2 off_stack=1"
# Format 2 adds the trampoline and the recovered mask: the first chain's
# grand+0x20 (bit 0) was recovered from behind a trampoline; the second stops
# at a kretprobe trampoline (tramp 2) it could not see behind.
cat >"$tmp/tramp.rec" <<'REC'
framewalk-record 2
kernel 6.12-test
filter child*
notrace
depth 4
E 0 1000000000 10 1000 2010 0 0 1 2 3020 4030
E 0 2000000000 10 1000 2010 6 2 0 2 3020 5000
C 10 alpha
S 1000 child
S 2000 parentfn
S 3000 grand
S 4000 great
S 5000 __kretprobe_trampoline
end 2 0
REC
got=$("$fw" report "$tmp/tramp.rec" 2>&1)
check "report marks a recovered frame and names the trampoline a walk stopped at" \
	"$(echo "$got" | sed -n 2,3p)" \
"           alpha-10     [000]      1.000000: child <- parentfn+0x10 <- grand+0x20 [recovered] <- great+0x30   [chain_end]
           alpha-10     [000]      2.000000: child <- parentfn+0x10 <- grand+0x20 <- __kretprobe_trampoline+0x0   [trampoline tramp=kretprobe]"
check "report -F marks the recovered frame on its line" \
	"$("$fw" report -F "$tmp/tramp.rec" 2>&1 | sed -n 2,5p)" \
"           alpha-10     [000]      1.000000: child nr_ancestors=2 stop=chain_end
 => parentfn+0x10
 => grand+0x20 [recovered]
 => great+0x30"
check "report -F names the trampoline in the stop line" \
	"$("$fw" report -F "$tmp/tramp.rec" 2>&1 | sed -n 6p)" \
"           alpha-10     [000]      2.000000: child nr_ancestors=2 stop=trampoline tramp=kretprobe"

# Addresses no symbol covers stay numeric.
sed '/^S /d' "$tmp/good.rec" >"$tmp/nosyms.rec"
check "without symbols the addresses print raw" "$("$fw" report "$tmp/nosyms.rec" | sed -n 2p)" \
	"           alpha-10     [000]      1.000000: 0x1000 <- 0x2010 <- 0x3020 <- 0x4030   [chain_end]"

# A recording cut short (recorder killed) still reads, says so, and keeps only whole lines.
head -7 "$tmp/good.rec" >"$tmp/cut.rec"
check "a recording without its end line says it was cut, no drop count" \
	"$("$fw" report "$tmp/cut.rec" 2>/dev/null | tail -1)" \
	"# 2 events, drops unknown: cut short at line 8; stops: chain_end=1 depth=1"
check "a cut recording is named on stderr" "$("$fw" report "$tmp/cut.rec" 2>&1 >/dev/null)" \
	"framewalk report: $tmp/cut.rec:8: the recording was cut short; reading its 2 complete events"
head -c "$(($(head -7 "$tmp/good.rec" | wc -c) + 9))" "$tmp/good.rec" >"$tmp/cut.rec"
check "a recording cut mid-event keeps the complete events before the cut" \
	"$("$fw" report "$tmp/cut.rec" 2>&1 >/dev/null; "$fw" report "$tmp/cut.rec" 2>/dev/null |
	  tail -1)" \
"framewalk report: $tmp/cut.rec:8: the recording was cut short; reading its 2 complete events
# 2 events, drops unknown: cut short at line 8; stops: chain_end=1 depth=1"
head -c "$(($(grep -b '^S 4000' "$tmp/good.rec" | cut -d: -f1) + 9))" "$tmp/good.rec" \
	>"$tmp/cut.rec"
check "a symbol cut mid-name ('S 4000 gr') is not read as a shorter name" \
	"$("$fw" report -q "$tmp/cut.rec" 2>/dev/null | grep -c ' gr+')" 0

# Malformed files: a clear error naming file and line, exit status 1.
bad() {
	local what=$1 want=$2 got rc
	got=$("$fw" report "$tmp/bad.rec" 2>&1 >/dev/null)
	rc=$?
	check "$what" "$rc: $got" "1: framewalk report: $tmp/bad.rec$want"
}
expect=" expected a 'framewalk-record 4' line"
echo "not a recording" >"$tmp/bad.rec"
bad "a file that is not a recording" ":1: not a framewalk recording;$expect"
# A trace.dat is read through libtracecmd (fw_tracedat.c): one cut after its magic is refused
# by it, and one on standard input, which libtracecmd cannot be given, is named.
printf '\027\010\104tracing6\000\001\010\000\000\000' >"$tmp/bad.rec"
bad "a broken trace.dat goes to libtracecmd, which refuses it" ": libtracecmd cannot read it"
got=$("$fw" report - <"$tmp/bad.rec" 2>&1 >/dev/null)
check "a trace.dat on standard input is named as one" "$?: $got" \
	"1: framewalk report: <stdin>:1: not a framewalk recording: it is a trace-cmd trace.dat (name it as a file, not standard input);$expect"
cp "$fw" "$tmp/bad.rec"
bad "an ELF file is named as one" ":1: not a framewalk recording: it is an ELF file;$expect"
printf 'framewalk-record 1\nE \000\001\n' >"$tmp/bad.rec"
bad "binary data after the magic" ":2: binary data in a text recording"
printf 'framewalk-record 9\n' >"$tmp/bad.rec"
bad "an unknown format version" ":1: format version 9, expected 1 to 4 (a newer framewalk wrote it)"
printf 'framewalk-record 1\nE 0 1 1 1 1 0 3 a b\n' >"$tmp/bad.rec"
bad "an event with fewer ancestors than it says" ":2: fewer ancestors than the line says"
printf 'framewalk-record 1\nE 0 1 1 1 1 0 65\n' >"$tmp/bad.rec"
bad "an event with more than 64 ancestors" ":2: more than 64 ancestors"
printf 'framewalk-record 1\nA 0 1 1 0 0\n' >"$tmp/bad.rec"
bad "a chain counted 0 times" ":2: chain counted 0 times"
printf 'framewalk-record 1\nA 3 1 1 0\n' >"$tmp/bad.rec"
bad "a malformed chain line" ":2: malformed chain line"
printf 'framewalk-record 2\nE 0 1 1 1 1 0 0 4 2 a b\n' >"$tmp/bad.rec"
bad "a recovered mark beyond the ancestors" ":2: recovered marks a frame beyond the ancestors"
printf 'framewalk-record 2\nE 0 1 1 1 1 6 7 0 1 a\n' >"$tmp/bad.rec"
bad "an unknown trampoline" ":2: unknown trampoline number"
printf 'framewalk-record 2\nE 0 1 1 1 1 0 1 0 1 a\n' >"$tmp/bad.rec"
bad "a trampoline on an event that did not stop at one" \
	":2: a trampoline named on an event that did not stop at one"
printf 'framewalk-record 1\nE 0 1 1 1 1 0 0\nend 5 0\n' >"$tmp/bad.rec"
bad "an end line that miscounts" ":3: end line counts 5 events, the file has 1"
printf 'framewalk-record 1\nend 0 0\nE 0 1 1 1 1 0 0\n' >"$tmp/bad.rec"
bad "data after the end line" ":3: data after the end line"
printf 'framewalk-record 1\nQ what\n' >"$tmp/bad.rec"
bad "an unknown line" ":2: unknown line 'Q what'"
head -c 5000 /dev/zero | tr '\0' 'x' | sed 's/^/framewalk-record 1\nE /' >"$tmp/bad.rec"
bad "an overlong line" ":2: line of 5002 bytes, longer than any a recording holds (4096)"
: >"$tmp/bad.rec"
bad "an empty file" ": empty file, expected a framewalk recording"

# The stops by name. Format 3 and older numbered the user stops from 8, after the
# kernel's 0 to 7; format 4 names each value in its "stop VALUE NAME" lines, which
# need not number them as this framewalk does (an older or a newer one wrote it).
stop_rec() {
	printf 'framewalk-record %s\nkernel t\nfilter child\nnotrace\ndepth 4\n%s' "$1" "$2"
	printf 'E 0 1000000000 10 1000 2010 %s 0 0 1 3020\n%s' "$3" "$4"
	printf 'S 1000 child\nS 2000 parentfn\nS 3000 grand\nend 1 0\n'
}
# What report -q reads of a format $1 recording with stop lines $2 and one user
# frame, a line for each further "KERNEL USER" pair of stop values.
stops_read() {
	v=$1 table=$2
	shift 2
	for pair; do
		stop_rec "$v" "$table" "${pair% *}" "U ${pair#* } 0 1 aaaa0000
" >"$tmp/stops.rec"
		"$fw" report -q "$tmp/stops.rec" 2>&1 | sed 's/.*   //'
	done
}
check "a format 3 recording's stops read with the names of its numbering" \
	"$(stops_read 3 "" "0 11" "3 15")" \
	"[chain_end user_end]
[off_stack user_fault]"
stops4="stop 0 chain_end
stop 5 off_stack
stop 9 not_increasing
stop 140 user_end
stop 200 user_fault
"
check "a format 4 recording's stops read by the names its stop lines give them" \
	"$(stops_read 4 "$stops4" "5 140" "9 200")" \
	"[off_stack user_end]
[not_increasing user_fault]"
stop_rec 4 "$stops4" 9 "U 200 0 1 aaaa0000
" >"$tmp/v4b.rec"
check "folded roots both walks cut short at the stops its table names" \
	"$("$fw" folded "$tmp/v4b.rec")" \
	"[user_fault];0xaaaa0000_[u];[not_increasing];grand;parentfn;child 1"
stop_rec 4 "$stops4" 255 "" >"$tmp/v4c.rec"
check "stop 255, one the recorder could not name, reads as unknown" \
	"$("$fw" report -q "$tmp/v4c.rec" 2>&1 | sed 's/.*   //')" "[unknown]"
stop_rec 4 "stop 0 chain_end
stop 8 frobbed
" 8 "" >"$tmp/bad.rec"
bad "a stop whose name this framewalk does not know" \
	":8: stop 8 is 'frobbed', which this framewalk does not know (a newer one wrote the recording?)"
stop_rec 4 "$stops4" 7 "" >"$tmp/bad.rec"
bad "a stop its recording's table does not name" \
	":11: stop 7 is not in the recording's stop table (its 'stop VALUE NAME' lines)"
stop_rec 4 "$stops4" 0 "U 11 0 1 aaaa0000
" >"$tmp/bad.rec"
bad "format 4 is not read with format 3's numbers" \
	":12: stop 11 is not in the recording's stop table (its 'stop VALUE NAME' lines)"
stop_rec 4 "$stops4" 0 "U 5 0 1 aaaa0000
" >"$tmp/bad.rec"
bad "a kernel stop on a U line" ":12: not a user stop reason"
stop_rec 4 "$stops4" 140 "" >"$tmp/bad.rec"
bad "a user stop on an E line" ":11: not a kernel stop reason"
stop_rec 4 "stop 5 off_stack
stop 5 depth
" 5 "" >"$tmp/bad.rec"
bad "a stop value named twice" ":7: a stop value named twice, differently"
stop_rec 4 "stop 5
" 5 "" >"$tmp/bad.rec"
bad "a malformed stop line" ":6: malformed stop line, expected 'stop VALUE NAME'"
stop_rec 4 "stop 255 none
" 0 "" >"$tmp/bad.rec"
bad "a stop line for the value that names none" ":6: a stop value above 254"
stop_rec 3 "stop 0 chain_end
" 0 "" >"$tmp/bad.rec"
bad "a stop line in a format 3 recording" \
	":6: a stop line in a recording of format 3 or older (stop tables came with format 4)"

got=$("$fw" report "$tmp" 2>&1)
check "a directory" "$got" "framewalk report: $tmp: is a directory, expected a framewalk recording"
got=$("$fw" report "$tmp/missing.rec" 2>&1)
check "a missing file" "$got" "framewalk report: $tmp/missing.rec: No such file or directory"

# The command line: every subcommand has --help, unknown input is named, no value passes unchecked.
check "an unknown command is named, with the list" "$("$fw" version 2>&1)" \
	"framewalk: unknown command 'version'; the commands are record stream profile latency report folded top list reset flamegraph (framewalk --help)"
check "--version prints VERSION and the build's git describe" "$("$fw" --version)" \
	"framewalk $("$(dirname "$0")/../../scripts/version.sh")"
check "-V is --version" "$("$fw" -V)" "$("$fw" --version)"
# Each command's summary starts in one column, its second lines under its first.
check "--help aligns the command summaries" "$("$fw" --help | sed -n '/^Commands:/,/^$/p' |
	sed '1d;$d' | awk '{ match($0, /^  [a-z]+ +/); if (RSTART) c[RLENGTH] = 1;
	else { match($0, /^ +/); c[RLENGTH] = 1 } } END { print length(c) }')" 1
for cmd in record stream profile latency report folded top list reset flamegraph; do
	out=$("$fw" $cmd -h 2>&1)
	rc=$?
	check "$cmd -h prints its usage, status 0" "$rc $(echo "$out" | head -1 | cut -d' ' -f1-3)" \
		"0 usage: framewalk $cmd"
	check "$cmd --help is $cmd -h" "$("$fw" $cmd --help 2>&1)" "$out"
	check "$cmd --help says what it does under the usage" \
		"$(echo "$out" | sed -n 2p | grep -c '^[A-Z].*[a-z]')" 1
	# Every subcommand takes -h, -q and -v, and says so in the same words.
	check "$cmd --help documents -q, -v and -h alike" "$(echo "$out" | grep -E '^  -[qvh], ')" \
"  -q, --quiet           print nothing but errors
  -v, --verbose         say what is being done
  -h, --help            this help"
	for o in -q -v; do
		"$fw" $cmd $o --help >/dev/null 2>&1
		check "$cmd takes $o" "$?" 0
	done
	# Every option of the help is in the man page's synopsis of the command (-h apart).
	syn=$(sed -n "/^\.B framewalk $cmd\$/,/^\.br/p" "$man")
	missing=
	for o in $(echo "$out" | sed -n 's/^  -\([a-zA-Z]\), --\([a-z]*\).*/\1/p' | grep -v h); do
		echo "$syn" | grep -qF -- "\\-$o" || missing="$missing -$o"
	done
	for o in $(echo "$out" | sed -n 's/^      --\([a-z]*\).*/\1/p'); do
		echo "$syn" | grep -qF -- "\\-\\-$o" || missing="$missing --$o"
	done
	check "$cmd: the man page's synopsis has every option" "${missing:-none}" none
	# Each option line of the help starts "-x, --long": no short option without its long one.
	check "$cmd: every short option has a long one" \
		"$(echo "$out" | grep -E '^  -[a-zA-Z]' | grep -vcE '^  -[a-zA-Z], --[a-z]')" 0
	# ... and the man page documents each in the same "-x, --long" form.
	for o in $(echo "$out" | sed -n 's/^  -\([a-zA-Z]\), --\([a-z]*\).*/\1:\2/p'); do
		pat=$(printf '.BR \\-%s ", " \\-\\-%s' "${o%%:*}" "${o#*:}")
		check "$cmd: framewalk.1 documents -${o%%:*}, --${o#*:}" \
			"$(grep -qF "$pat" "$man" && echo documented)" documented
	done
done
# One letter, one option: a short option stands for the same long one in every command.
twice=$(for cmd in record stream profile latency report folded top list reset flamegraph; do
	"$fw" $cmd --help | sed -n 's/^  -\([a-zA-Z]\), --\([a-z]*\).*/\1 \2/p'
done | sort -u | awk '++n[$1] == 2 { print "-" $1 }')
check "each short option means one long option in every command" "${twice:-none}" none
# ... and the examples in the README, Documentation/ and the man page use each command's own.
top=$(cd "$(dirname "$0")/../.." && pwd)
wrong=$(for f in "$top/README.md" "$top"/Documentation/*.rst "$man"; do
	sed 's/\\-/-/g; s/\\f[BIRP]//g' "$f" |
		grep -oE 'framewalk (record|stream|profile|latency|report|folded|top|list|reset|flamegraph)( [^#`|;]*)?' |
		sed 's/ -- .*//'
done | while read -r _ cmd rest; do
	for o in $(echo " $rest" | grep -oE ' -[a-zA-Z]\b'); do
		"$fw" $cmd --help | grep -q -- "^  $o, " || echo "$cmd $o"
	done
done | sort -u | tr '\n' ' ')
check "the documentation's examples give each command only its own options" "${wrong:-none}" none
# The default recording, as record writes it and the readers take it, named in their help.
check "record, report and flamegraph --help name framewalk.rec as the default" \
	"$(for cmd in record report flamegraph; do "$fw" $cmd --help; done |
		grep -c 'framewalk\.rec)')" 3
"$fw" profile -F --help >/dev/null 2>&1
check "profile still takes -F, the old short form of --folded" "$?" 0
# refused DESCRIPTION EXPECTED-STDERR ARGS...: status 2 and the message naming the input.
refused() {
	local what=$1 want=$2 got rc
	shift 2
	got=$("$fw" "$@" 2>&1 >/dev/null | head -1)
	rc=$?
	check "$what" "$rc $got" "0 $want"
	"$fw" "$@" >/dev/null 2>&1
	check "$what: exit status 2" "$?" 2
}
refused "report -n is not an option of report" "framewalk report: unknown option '-n'" \
	report -n 3 "$tmp/good.rec"
refused "folded -F is not an option of folded" "framewalk folded: unknown option '-F'" \
	folded -F "$tmp/good.rec"
refused "an unknown long option is named" "framewalk top: unknown option '--bogus'" \
	top --bogus "$tmp/good.rec"
refused "top -l -1 is refused" "framewalk top: -l/--limit: '-1' is not a number from 1 to 2147483647" \
	top -l -1 "$tmp/good.rec"
refused "top -l 0 is refused" "framewalk top: -l/--limit: '0' is not a number from 1 to 2147483647" \
	top -l 0 "$tmp/good.rec"
refused "top -l 3x is refused" "framewalk top: -l/--limit: '3x' is not a number from 1 to 2147483647" \
	top -l 3x "$tmp/good.rec"
refused "a missing value is named" "framewalk top: missing value for option '-l'" top -l
refused "record -d '' is refused, not depth 0" \
	"framewalk record: -d/--depth: '' is not a number from 0 to 64" record -d ''
refused "a depth out of range is refused" \
	"framewalk record: -d/--depth: '99' is not a number from 0 to 64" record --depth=99
refused "an empty filter is refused" "framewalk record: -f/--filter: ', ' names no function" \
	record -f ', '
refused "record -F is stream's option only" "framewalk record: unknown option '-F'" record -F
refused "a second recording is refused" \
	"framewalk report: one recording, not 2 ('$tmp/cut.rec' is extra)" \
	report "$tmp/good.rec" "$tmp/cut.rec"
refused "reset takes no argument" "framewalk reset: unexpected argument 'now'" reset now

# flamegraph -v says what it wrote; -q keeps a cut recording's note off stderr.
got=$("$fw" flamegraph -v -o "$tmp/f.html" "$tmp/good.rec" 2>&1)
check "flamegraph -v names the page and what is in it" "$got" \
	"framewalk flamegraph: wrote $tmp/f.html: $tmp/good.rec: 3 chains, 5 dropped; kernel 6.12-test, filter 'child*', depth 4; stops: chain_end=2 depth=1"
refused "flamegraph takes one input" \
	"framewalk flamegraph: one recording or folded file, not 2 ('$tmp/cut.rec' is extra)" \
	flamegraph -o "$tmp/f.html" "$tmp/good.rec" "$tmp/cut.rec"
printf 'framewalk-record 2\nend 0 0\n' >"$tmp/none.rec"
check "a recording without events has no empty 'stops:'" "$("$fw" report "$tmp/none.rec" | tail -1)" \
	"# 0 events, 0 dropped"

# A framewalk.ko that is not there is a file error, not the kernel's (needs root, as make check).
if [ "$(id -u)" = 0 ] && [ ! -e /sys/module/framewalk ]; then
	got=$("$fw" record -k "$tmp/none/framewalk.ko" -f vfs_read 2>&1)
	check "record -k with a missing module names the file, not the kernel log" "$?: $got" \
		"1: framewalk: -k $tmp/none/framewalk.ko: No such file or directory; give the path of a framewalk.ko built for this kernel"
fi
# reset -v says when there was nothing to do (read-only here: nothing of framewalk's is in
# this machine's tracefs unless its module is loaded).
if [ "$(id -u)" = 0 ] && [ -d /sys/kernel/tracing/instances ] &&
   [ ! -e /sys/kernel/tracing/events/framewalk ]; then
	check "reset -v with nothing to do says so" "$("$fw" reset -v 2>&1)" \
		"framewalk reset: nothing to do: no recorder's instance left, framewalk events enabled nowhere"
fi

got=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$fw" record -f vfs_read 2>&1)
check "record refuses to run without root, saying why" "$got" \
	"framewalk: record needs root: it sets module parameters and reads tracefs"
got=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$fw" reset 2>&1)
check "reset refuses to run without root, saying why" "$?: $got" \
	"1: framewalk: reset needs root: it changes tracefs"

got=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$fw" profile -f vfs_read 2>&1)
check "profile refuses to run without root, saying why" "$got" \
	"framewalk: profile needs root: it sets module parameters and reads debugfs"
got=$("$fw" profile -f vfs_read --time 0 2>&1 | head -1)
check "profile refuses a zero time; --time is still -t" "$got" \
	"framewalk profile: -t/--duration: '0' is not a number from 1 to 86400"

# What record, stream and profile are told to keep: each value checked before anything runs.
refused "record -t 0 is refused" \
	"framewalk record: -t/--duration: '0' is not a number from 1 to 86400" record -t 0
refused "stream --duration above a day is refused" \
	"framewalk stream: -t/--duration: '86401' is not a number from 1 to 86400" \
	stream --duration=86401
pids="a list of at most 16 process ids (such as 1234,5678)"
for bad in 12x 0 1,,2 , 4194305 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17; do
	refused "record -p '$bad' is refused" "framewalk record: -p/--pid: '$bad' is not $pids" \
		record -p "$bad"
done
refused "profile --user above 64 is refused" \
	"framewalk profile: --user: '65' is not a number from 0 to 64" profile --user 65
cpus="a list of CPUs (such as 0,2-3)"
for bad in x 1- 3-1 0,,1 -1; do
	refused "record -C '$bad' is refused" "framewalk record: -C/--cpu: '$bad' is not $cpus" \
		record -C "$bad"
done
comms="a list of task names or globs (such as dd,kworker/*; a name is at most 15 characters, without quotes or backslashes)"
for bad in abcdefghijklmnop 'a"b' 'a\b' dd,; do
	refused "stream --comm '$bad' is refused" "framewalk stream: --comm: '$bad' is not $comms" \
		stream --comm "$bad"
done
# A counted chain has no task or CPU: profile says so rather than count every task's.
why="the module counts chains without the task or CPU of each hit, so profile cannot keep some; -p/--pid keeps processes, and record"
refused "profile --comm is refused, saying why" \
	"framewalk profile: --comm: $why --comm keeps events for report, folded and top" \
	profile --comm=dd
refused "profile -C is refused, saying why" \
	"framewalk profile: -C/--cpu: $why -C keeps events for report, folded and top" profile -C 0
refused "list takes one list of globs" "framewalk list: one list of globs, not 2 ('b' is extra)" \
	list a b
refused "list refuses globs that name nothing" "framewalk list: GLOBS: ', ' names no function" \
	list ', '
# list on a hand-made available_filter_functions, bound over tracefs's in a mount namespace
# of its own (root): the lines whose name a glob matches, a module's whole, ftrace's disabled
# records left out.
printf '%s\n' vfs_read vfs_write __ftrace_invalid_address___12 ksys_read \
	'fw_test_leaf [fw_test_chain]' >"$tmp/functions"
with_functions() {
	unshare -m sh -c 'mount --bind "$0" /sys/kernel/tracing/available_filter_functions &&
		exec "$@"' "$tmp/functions" "$@" 2>&1
}
if [ "$(id -u)" = 0 ] && with_functions true >/dev/null; then
	check "list prints the functions a glob of the list matches, by name" \
		"$(with_functions "$fw" list 'vfs_*, fw_*')" "vfs_read
vfs_write
fw_test_leaf [fw_test_chain]"
	check "list without globs prints every function but ftrace's disabled records" \
		"$(with_functions "$fw" list | wc -l)" 4
	check "list says when nothing matches, status 1" \
		"$(with_functions "$fw" list 'vfs_x*'; echo "status $?")" \
		"framewalk list: no traceable function matches 'vfs_x*'
status 1"
fi
# Root, with tracefs and no framewalk.ko: the checks made before the module is needed.
if [ "$(id -u)" = 0 ] && [ -d /sys/kernel/tracing/instances ] && [ ! -e /sys/module/framewalk ]; then
	got=$("$fw" record -v --comm 'dd,kworker/*' -C 0 -f vfs_read -o "$tmp/x.rec" 2>&1 | head -1)
	check "record --comm and -C make one tracefs event filter of COMM and CPU" "$got" \
		"framewalk: keeping only the events of filter '(COMM ~ \"dd\" || COMM ~ \"kworker/*\") && (CPU == 0)'"
	n=$(getconf _NPROCESSORS_CONF)
	got=$("$fw" record -C "0-$n" -f vfs_read -o "$tmp/x.rec" 2>&1)
	check "record -C refuses a CPU this machine does not have" "$?: $got" \
		"1: framewalk: -C/--cpu: no CPU $n here (CPUs 0 to $((n - 1)))"
	sh -c 'exit 0' &
	gone=$!
	wait $gone
	got=$("$fw" record -p "1,$gone" -f vfs_read -o "$tmp/x.rec" 2>&1)
	check "record -p refuses a process that is not running" "$?: $got" \
		"1: framewalk: -p/--pid: no process $gone is running"
fi

ktap_done
