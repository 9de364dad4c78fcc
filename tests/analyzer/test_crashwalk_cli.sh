#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# test_crashwalk_cli.sh - crashwalk's command line: every short option has its long one, --help and
# --version, unknown options, methods and RTOS names named in the error (with the accepted
# ones), --regs checked against the firmware, --sp parsed and used instead of the frame search, missing, empty, directory and non-ELF files named
# with the reason, a failed dump as an error object in the --json stream, '-' for standard
# input, --color honouring NO_COLOR, TERM=dumb and terminals, -q, the documented exit codes, and
# the dump checked against the firmware (--allow-mismatch), source paths mapped (--path-map,
# --strip-path), and each error in one line: a firmware given as the dump, a truncated
# firmware, empty or terminal standard input, a followed stream without a dump; a file that
# starts no dump format refused from its first bytes; summary's errors bounded (binary input
# one error, other lines counted after the first), a directory of reports read, one without
# them an error; counts that agree with their nouns ("1 more difference"); what each unwinder
# that disagreed proposed (-v, JSON); each frame's registers (--frame-regs) against GDB's;
# README's bundled-crash example printing what README shows; a lone file that is neither
# firmware nor dump named as such.
# Usage: test_crashwalk_cli.sh CRASHWALK BUNDLED_DIR
set -u
cw=$1
b=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(cd "$(dirname "$0")/.." && pwd)/ktap.sh"

# check NAME GOT EXPECTED
check() {
	ktap_check "$@"
}
# run ARGS...: "STATUS: first stderr line"
run() {
	"$cw" "$@" >"$tmp/out" 2>"$tmp/err"
	echo "$?: $(head -1 "$tmp/err")"
}

ktap_header
ktap_note "suite: crashwalk-cli"
: >"$tmp/empty"
echo "hello" >"$tmp/text"
elf=$b/demo.elf
core=$b/demo.core

"$cw" --help >"$tmp/help"
check "help_exits_0" "$?" 0
check "help_every_short_option_has_a_long_one" \
	"$(grep -E '^  -[a-zA-Z]' "$tmp/help" | grep -cvE '^  -[a-zA-Z], --[a-z]')" 0
for o in j m w k r R s; do
	check "help_documents_-$o" "$(grep -c "^  -$o, --" "$tmp/help")" 1
	check "man_page_documents_-$o" \
		"$(grep -c "^\.BR* \\\\-$o" "$(dirname "$0")/../../analyzer/crashwalk.1")" 1
done
# Every option of --help is in both synopses, the man page's and crashwalk.rst's.
man=$(dirname "$0")/../../analyzer/crashwalk.1
rst=$(dirname "$0")/../../Documentation/crashwalk.rst
man_syn=$(sed -n '/^\.SH SYNOPSIS/,/^\.SH DESCRIPTION/p' "$man" | sed 's/\\f[BIR]//g; s/\\-/-/g')
rst_syn=$(awk '/^    crashwalk / { on = 1 } on && /^$/ { exit } on' "$rst")
missing=
for o in $(sed -n 's/^ *\(-[a-zA-Z], \)\{0,1\}--\([a-z-]*\).*/\2/p' "$tmp/help"); do
	s=$(sed -n "s/^  -\([a-zA-Z]\), --$o\b.*/\1/p" "$tmp/help")
	for syn in "$man_syn" "$rst_syn"; do
		echo "$syn" | grep -qE -- "--$o\b${s:+|-$s\b}" || missing="$missing --$o"
	done
done
check "every_option_in_both_synopses" "${missing:-none}" none
# Every kernel --rtos takes (its list comes from the library's table of kernels) is in both
# synopses, the JSON schema's "rtos" values and the RTOS section's table (RT-Thread is rtthread,
# µC/OS-II ucos2).
kinds=$(sed -n 's/^  -R, --rtos=KIND *//p' "$tmp/help" | sed 's/,\| or / /g')
schema=$(grep '"rtos": "none"' "$rst")
table=$(awk '/^Each kernel is one file/ { on = 1 } on && /^====/ && ++n == 3 { exit }
	on && n == 2 && /^([A-Za-z]|µ)/ { sub("^µC/OS-III$", "ucos3", $1); sub("^µC/OS-II$", "ucos2", $1)
		gsub("-", "", $1); print tolower($1) }' "$rst")
undocumented=
for k in $kinds; do
	echo "$man_syn" | grep -qE -- "(-R|--rtos).*\b$k\b" || undocumented="$undocumented man:$k"
	echo "$rst_syn" | grep -qE -- "(-R|--rtos).*\b$k\b" || undocumented="$undocumented rst:$k"
	case $k in auto|none) continue;; esac
	echo "$schema" | grep -q "\"$k\"" || undocumented="$undocumented schema:$k"
	echo "$table" | grep -q "^$k" || undocumented="$undocumented table:$k"
done
check "every_rtos_kind_documented" "${kinds:+${undocumented:-none}}" none
# Every dump format --help names (its list comes from the library's table of formats) is in the
# man page's paragraph of formats, the Inputs section of crashwalk.rst and the JSON schema's
# "format" values.
formats=$(sed -n 's/^Dump formats: \(.*\), told apart.*/\1/p' "$tmp/help" | sed 's/,\| or / /g')
man_formats=$(sed -n '/^Dump formats/,/^\.PP/p' "$man" | sed -n 's/^\.B //p')
rst_inputs=$(awk '/^Inputs$/ { on = 1 } on && /^Exception model$/ { exit } on' "$rst")
schema=$(grep '"format": "' "$rst")
undocumented=
for k in $formats; do
	echo "$man_formats" | grep -qx -- "$k" || undocumented="$undocumented man:$k"
	echo "$rst_inputs" | grep -q -- "^\`\`$k\`\`:" || undocumented="$undocumented rst:$k"
	echo "$schema" | grep -q "\"$k\"" || undocumented="$undocumented schema:$k"
done
check "every_dump_format_documented" "${formats:+${undocumented:-none}}" none
# The examples in the README, Documentation/ and the man page use only crashwalk's own letters.
top=$(cd "$(dirname "$0")/../.." && pwd)
wrong=
for o in $(for f in "$top/README.md" "$top"/Documentation/*.rst "$man"; do
	sed 's/\\-/-/g; s/\\f[BIRP]//g' "$f" | grep -oE '\bcrashwalk( [^#`|;]*)?'
done | grep -oE ' -[a-zA-Z]\b' | sort -u); do
	grep -q -- "^  $o, " "$tmp/help" || wrong="$wrong $o"
done
check "documentation_examples_use_its_own_short_options" "${wrong:-none}" none
check "h_is_help" "$("$cw" -h)" "$(cat "$tmp/help")"
check "version_is_release_and_git_describe" "$("$cw" --version)" \
	"crashwalk $("$(dirname "$0")/../../scripts/version.sh")"

check "unknown_long_option_named" "$(run --bogus "$elf" "$core")" \
	"2: crashwalk: unknown option '--bogus'"
check "unknown_short_option_named" "$(run -x "$elf" "$core")" "2: crashwalk: unknown option '-x'"
check "missing_value_named" "$(run "$elf" "$core" --method)" \
	"2: crashwalk: missing value for option '--method'"
check "unknown_method_lists_methods" "$(run --method bogus "$elf" "$core")" \
	"2: crashwalk: --method: unknown method 'bogus'; the methods are auto, cfi, ehabi, prologue, fp and scan"
check "unknown_rtos_lists_kinds" "$(run -R vxworks "$elf" "$core")" \
	"2: crashwalk: --rtos: unknown RTOS 'vxworks'; use auto, none, freertos, zephyr, threadx, liteos, nuttx, rtthread, rtx5, ucos2 or ucos3"
check "unknown_color_refused" "$(run --color=sometimes "$elf" "$core")" \
	"2: crashwalk: --color: unknown value 'sometimes'; use auto, always or never"
check "regs_unknown_symbol_refused" "$(run --regs nosuchsym:r0 "$elf" "$core")" \
	"2: crashwalk: --regs 'nosuchsym:r0': no symbol 'nosuchsym' in $elf"
check "regs_without_layout_refused" "$(run -r main "$elf" "$core")" \
	"2: crashwalk: --regs 'main': expected SYMBOL:LAYOUT, e.g. crash_regs:r0,r1,r2,r3,r12,lr,pc,xpsr"
# --regs has one rule (analyze/cw_options.c), checked when given: an empty layout or word and an
# unknown register are refused before any dump is read, whether a dump needs --regs or not.
check "regs_empty_layout_refused" "$(run --regs main: "$elf" "$core")" \
	"2: crashwalk: --regs 'main:': empty LAYOUT: name the register block's 32-bit words in order, e.g. crash_regs:r0,r1,r2,r3,r12,lr,pc,xpsr"
check "regs_empty_word_refused" "$(run --regs main:r0,,r1 "$elf" "$core")" \
	"2: crashwalk: --regs 'main:r0,,r1': word 2 is empty"
check "regs_trailing_comma_refused" "$(run --regs main:r0, "$elf" "$core")" \
	"2: crashwalk: --regs 'main:r0,': word 2 is empty"
check "regs_unknown_register_refused" "$(run --regs main:r0,-,bogus "$elf" "$core")" \
	"2: crashwalk: --regs 'main:r0,-,bogus': word 3: unknown register 'bogus'; use r0-r12, sp, lr, pc, xpsr, msp, psp, control, msp_s, psp_s, msp_ns, psp_ns, or - to skip a word"
check "regs_on_a_dump_with_registers_noted" "$(run --regs main:r0 "$elf" "$core")" \
	"0: crashwalk: $core: the dump has its registers; --regs is not used"
check "sp_unknown_register_refused" "$(run --sp xsp=0x20000000 "$elf" "$core")" \
	"2: crashwalk: --sp: offset 0 (0x0): unknown stack pointer 'xsp'; use msp, psp, msp_s, psp_s, msp_ns or psp_ns"
check "sp_unaligned_refused" "$(run -s msp=0x10,psp=0x20000003 "$elf" "$core")" \
	"2: crashwalk: --sp: offset 13 (0xd): '0x20000003': not a word-aligned 32-bit address"
check "sp_without_value_refused" "$(run --sp psp "$elf" "$core")" \
	"2: crashwalk: --sp: offset 0 (0x0): 'psp': expected REG=VALUE, e.g. psp=0x20001e60"

# The RTOS crash as GDB's gcore writes it: r0-r15 and xPSR, no CRASHWALK note (MSP, PSP).
python3 - "$b/rtos-m4f-freertos.core" "$tmp/gcore.core" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
phoff, = struct.unpack_from("<I", b, 28)
for i in range(struct.unpack_from("<H", b, 44)[0]):
    typ, off, _, _, filesz = struct.unpack_from("<5I", b, phoff + 32 * i)
    if typ == 4:    # keep the first note, NT_PRSTATUS
        namesz, descsz = struct.unpack_from("<II", b, off)
        size = 12 + ((namesz + 3) & ~3) + ((descsz + 3) & ~3)
        struct.pack_into("<I", b, phoff + 32 * i + 16, size)
open(sys.argv[2], "wb").write(b)
PY
relf=$b/rtos-m4f-freertos.elf
check "psp_searched_when_missing" \
	"$("$cw" "$relf" "$tmp/gcore.core" | grep -c '^search: psp not in the dump; exception frame found at 0x20002db0 in rtos-thread')" 1
# Marked in the crash's backtrace and in the running thread's, which is the same.
check "searched_frame_marked" \
	"$("$cw" "$relf" "$tmp/gcore.core" | grep -c 'searched: its stack pointer is not in the dump')" 2
check "sp_given_is_used_not_searched" \
	"$("$cw" -j --sp psp=0x20002db0 "$relf" "$tmp/gcore.core" | grep -c '"search": null')" 1
check "sp_given_gives_the_dump_s_chain" \
	"$("$cw" --sp psp=0x20002db0 "$relf" "$tmp/gcore.core" | sed -n '/^backtrace/,/^stopped/p')" \
	"$("$cw" "$relf" "$b/rtos-m4f-freertos.core" | sed -n '/^backtrace/,/^stopped/p')"
check "watch_missing_dir_refused" "$(run --watch "$tmp/nodir" "$elf")" \
	"2: crashwalk: --watch '$tmp/nodir': No such file or directory"
check "no_dump_refused" "$(run "$elf")" "2: crashwalk: no dump (name one or more, or --watch DIR)"
check "no_dump_hints_at_help_not_the_usage" "$(cat "$tmp/err")" \
	"crashwalk: no dump (name one or more, or --watch DIR)
Try 'crashwalk --help'."

check "missing_firmware_errno" "$(run "$tmp/none.elf" "$core")" \
	"1: crashwalk: $tmp/none.elf: cannot open firmware image: No such file or directory"
check "directory_firmware" "$(run "$tmp" "$core")" \
	"1: crashwalk: $tmp: is a directory, expected a firmware ELF image"
check "empty_firmware" "$(run "$tmp/empty" "$core")" \
	"1: crashwalk: $tmp/empty: empty file, expected a firmware ELF image"
check "not_an_elf_firmware" "$(run "$tmp/text" "$core")" \
	"1: crashwalk: $tmp/text: offset 0: not an ELF file; the firmware image is the ELF the linker wrote"
check "missing_dump_errno" "$(run "$elf" "$tmp/none.core")" \
	"1: crashwalk: $tmp/none.core: No such file or directory"
check "directory_dump" "$(run "$elf" "$tmp")" \
	"1: crashwalk: $tmp: is a directory, expected a crash dump"
check "empty_dump" "$(run "$elf" "$tmp/empty")" \
	"1: crashwalk: $tmp/empty: empty file, expected a crash dump"
check "empty_stdin_dump" "$(run "$elf" - </dev/null)" \
	"1: crashwalk: <stdin>: empty input, expected a crash dump"
# A file that starts no dump format is refused from its first bytes: /dev/zero was read to
# 256 MiB before, and a pipe that never ends would be waited on.
check "unknown_dump_refused_from_its_first_bytes" "$(run "$elf" /dev/zero)" \
	"1: crashwalk: /dev/zero: offset 0 (0x0): not a known dump format (elf-core, zephyr or crashcatcher)"
check "unknown_dump_on_an_endless_pipe_refused" \
	"$(yes garbage | timeout 20 "$cw" "$elf" - 2>&1 >/dev/null; echo "status $?")" \
	"crashwalk: <stdin>: offset 0 (0x0): not a known dump format (elf-core, zephyr or crashcatcher)
status 1"
check "firmware_given_as_the_dump" "$(run "$elf" "$elf")" \
	"1: crashwalk: $elf: an ELF executable (a firmware image?), not a crash dump: name the firmware first, then the dump"
head -c 3000 "$elf" >"$tmp/cut.elf"
check "truncated_firmware" "$(run "$tmp/cut.elf" "$core")" \
	"1: crashwalk: $tmp/cut.elf: truncated: 3000 bytes, but its section headers end at $(python3 -c '
import struct, sys
h = open(sys.argv[1], "rb").read(52)
print(struct.unpack_from("<I", h, 32)[0] + struct.unpack_from("<H", h, 48)[0] * struct.unpack_from("<H", h, 46)[0])' "$elf"); copy the whole file the linker wrote"
if command -v script >/dev/null; then
	# A terminal as the dump would be waited on for ever: refused at once, with what to do.
	check "stdin_terminal_refused_at_once" \
		"$(timeout 10 script -qec "$cw $elf -" /dev/null | tr -d '\r')" \
		"crashwalk: -: standard input is a terminal, expected a dump: crashwalk FIRMWARE.elf - <DUMP, or --follow a UART"
fi
"$cw" -f "$elf" "$tmp/text" >"$tmp/out" 2>"$tmp/err"
check "follow_stream_without_a_dump_said_at_its_end" "$?: $(cat "$tmp/out" "$tmp/err")" \
	"0: crashwalk: $tmp/text: the stream ended without a crash dump (no #CD: or CrashCatcher lines)"

# A failed dump is in the JSON-lines stream, between the good ones, in order.
"$cw" --json "$elf" "$core" "$tmp/text" "$core" >"$tmp/out" 2>/dev/null
check "json_failed_dump_exits_1" "$?" 1
check "json_failed_dump_is_an_error_object_in_the_stream" \
	"$(sed -n 2p "$tmp/out")" \
	"{\"schema\": \"crashwalk\", \"version\": 6, \"dump\": {\"path\": \"$tmp/text\", \"build_id\": null}, \"error\": \"$tmp/text: offset 0 (0x0): not a known dump format (elf-core, zephyr or crashcatcher)\"}"
check "json_stream_keeps_the_good_dumps" "$(grep -c '"frames": \[' "$tmp/out")" 2
# The man page and the guide name the schema version the report writes.
man=$(dirname "$0")/../../analyzer/crashwalk.1
rst=$(dirname "$0")/../../Documentation/crashwalk.rst
v=$(sed -n 's/.*"version": \([0-9]*\).*/\1/p' "$tmp/out" | head -1)
check "json_schema_version_documented" \
	"$(sed -n 's/.*(schema version \([0-9]*\),.*/\1/p' "$man") \
$(grep -o '""version"": [0-9]*' "$man" | grep -o '[0-9]*$') \
$(sed -n 's/^Version \([0-9]*\) (this one).*/\1/p' "$rst")" "$v $v $v"

check "stdin_dump_is_the_file_dump" "$("$cw" "$elf" - <"$core" | tail -n +2)" \
	"$("$cw" "$elf" "$core" | tail -n +2)"
check "stdin_dump_is_named" "$("$cw" "$elf" - <"$core" | head -1)" "crashwalk: <stdin> (elf-core)"

# What each unwinder that disagreed proposed: with -v a line under the frame (one per caller,
# naming every unwinder that proposed it), in the JSON always, one entry per disagreeing one.
check "verbose_says_what_a_disagreeing_unwinder_proposed" \
	"$("$cw" -v "$elf" "$core" 2>/dev/null | grep -A1 'disagreed: scan]$' | tail -1)" \
	"      scan proposed the same pc, sp 0x20003e24 where this frame's is 0x20003e28"
check "verbose_groups_unwinders_that_proposed_one_caller" \
	"$("$cw" -v "$b/rtos-m33-zephyr.elf" "$b/rtos-m33-zephyr.core" 2>/dev/null |
		sed -n '/^backtrace/,/^stopped/p' | grep -A2 'disagreed: ehabi prologue fp scan]$' | tail -2)" \
	"      ehabi proposed 0xaaaaaaaa ??, sp 0x38001af4
      prologue fp scan proposed the same pc, sp 0x38001a74 where this frame's is 0x38001a80"
check "proposals_only_with_verbose" "$("$cw" "$elf" "$core" | grep -c ' proposed ')" 0
check "json_proposed_is_disagreed" "$("$cw" -j "$b/rtos-m33-zephyr.elf" "$b/rtos-m33-zephyr.core" |
	python3 -c 'import json, sys
j = json.loads(sys.stdin.readline())
frames = j["frames"] + [f for t in j["threads"] for f in t["frames"]]
print(sum(bool(f["proposed"]) for f in frames),
      all([p["method"] for p in f["proposed"]] == f["disagreed"] and
          all((p["pc"], p["sp"]) != (f["pc"], f["sp"]) for p in f["proposed"]) for f in frames))')" \
	"2 True"
# --frame-regs: under each frame the registers the walk knew there, against GDB's own reading
# of the same core frame by frame (its Python API: each real frame's registers, matched to
# crashwalk's by pc and sp). Every register crashwalk shows must be GDB's; a caller shows
# r4-r11, sp and pc, a frame an exception interrupted all it stacked too.
check "frame_regs_text_under_the_frame" "$("$cw" --frame-regs "$elf" "$core" |
	sed -n '/^#1 /,/^#2 /p' | sed '1d;$d')" \
"      r0   0x0000017c  r1   0x0000017c  r2   0x200000c8  r3   0xf0000000
      r4   0x20003e34  r5   0x00000000  r6   0x00000000  r7   0x20003e28
      r8   0x00000000  r9   0x00000000  r10  0x00000000  r11  0x00000000
      r12  0x00000000  sp   0x20003e24  lr   0x00000783  pc   0x0000064c
      xpsr 0xa100020e"
check "frame_regs_only_when_asked" "$("$cw" "$elf" "$core" | grep -c '^      r4 ')" 0
if command -v gdb-multiarch >/dev/null; then
	cat >"$tmp/regs.py" <<'PY'
import gdb
f = gdb.newest_frame()
while f:
    if f.type() == gdb.NORMAL_FRAME:
        print(" ".join("%s=%d" % (r, int(f.read_register(r)) & 0xffffffff)
                       for r in ["r%d" % i for i in range(13)] + ["sp", "lr", "pc"]))
    f = f.older()
PY
	gdb-multiarch -batch -nx -ex 'set architecture armv7e-m' -ex "target core $core" \
		-ex "source $tmp/regs.py" "$elf" 2>/dev/null | grep '^r0=' >"$tmp/gdb-regs"
	"$cw" -j --frame-regs "$elf" "$core" >"$tmp/regs.json"
	check "frame_regs_are_gdb_s" "$(python3 - "$tmp/gdb-regs" "$tmp/regs.json" <<'PY'
import json, sys
gdb = [dict((k, int(v)) for k, v in (w.split("=") for w in line.split()))
       for line in open(sys.argv[1])]
frames = json.load(open(sys.argv[2]))["frames"]
matched, wrong = 0, []
callee = ["r%d" % i for i in range(4, 12)] + ["sp", "pc"]
for f in frames:
    g = [g for g in gdb if (g["pc"], g["sp"]) == (f["pc"], f["sp"])]
    if not g:
        continue
    matched += 1
    regs = f["registers"]
    need = callee + (["r0", "r1", "r2", "r3", "r12", "lr"] if f["exception"] or not f["index"] else [])
    wrong += ["#%d %s" % (f["index"], r) for r in need if r not in regs]
    wrong += ["#%d %s=%#x, gdb %#x" % (f["index"], r, v, g[0][r])
              for r, v in regs.items() if r in g[0] and v != g[0][r]]
print(matched, wrong or "none")
PY
)" "9 none"
else
	ktap_result skip "frame_regs_are_gdb_s" "no gdb-multiarch"
fi
bold=$(printf '\033[1m')
check "color_never_off_a_terminal" "$("$cw" "$elf" "$core" | grep -cF "$bold")" 0
check "color_always_bold_names" "$("$cw" --color=always "$elf" "$core" | grep -cF "$bold")" \
	"$("$cw" "$elf" "$core" | grep -c '^#')"
if command -v script >/dev/null; then
	tty() { script -qec "$*" /dev/null | grep -cF "$bold"; }
	check "color_auto_on_a_terminal" "$(TERM=xterm tty "$cw" "$elf" "$core")" \
		"$("$cw" "$elf" "$core" | grep -c '^#')"
	check "color_auto_honours_NO_COLOR" "$(NO_COLOR=1 TERM=xterm tty "$cw" "$elf" "$core")" 0
	check "color_auto_honours_TERM_dumb" "$(TERM=dumb tty "$cw" "$elf" "$core")" 0
	check "color_never_on_a_terminal" "$(TERM=xterm tty "$cw" --color=never "$elf" "$core")" 0
fi

# The dump against the firmware: a wrong ELF is refused unless --allow-mismatch; a dump that
# holds the code or a GNU build-id is compared byte for byte (add_segment.py writes them).
addseg="python3 $(dirname "$0")/add_segment.py"
# The refusal is one line naming the first difference and how many more; -v lists them.
check "wrong_firmware_refused" "$(run "$b/demo.elf" "$b/rtos-m4f-freertos.core" | sed 's/ (--.*//')" \
	"1: crashwalk: $b/rtos-m4f-freertos.core: not a dump of $b/demo.elf"
check "wrong_firmware_refused_in_one_line" "$(wc -l <"$tmp/err")" 1
more=$(sed -n 's/.*; \([0-9]*\) more differences\{0,1\} (-v lists them)$/\1/p' "$tmp/err")
"$cw" -v "$b/demo.elf" "$b/rtos-m4f-freertos.core" >/dev/null 2>"$tmp/err"
nr_diff=$(($(grep -c ': does not match ' "$tmp/err") + 1))
check "wrong_firmware_verbose_lists_the_other_differences" "$((nr_diff - 1))" "${more:-none}"
check "wrong_firmware_elsewhere_refused" "$(run "$elf" "$b/rtos-m33-zephyr.core" | \
	sed 's/.*anyway): //')" "frame #0: the dump's pc 0x10000040, at the exception handler's entry, is not in the firmware's code"
check "allow_mismatch_reports_every_difference" \
	"$("$cw" -q --allow-mismatch "$b/demo.elf" "$b/rtos-m4f-freertos.core" | grep -c '^mismatch: ')" \
	"$nr_diff"
# What RAM alone says: the interrupted code's lr, .data's initial image, the return addresses.
check "wrong_firmware_ram_evidence" "$("$cw" -q --allow-mismatch "$b/demo.elf" \
	"$b/rtos-m4f-freertos.core" | sed -n 's/^mismatch: //p' | tail -3 | cut -c1-44)" \
	"frame #1: the stacked lr 0x00000373 does not
.data: the word at 0x20000004 (unaligned_bas
RAM: 0 of the 17 words that look like return"
check "allow_mismatch_in_json" "$("$cw" -q -j --allow-mismatch "$b/demo.elf" \
	"$b/rtos-m4f-freertos.core" | grep -c '"mismatch": \["frame #1: ')" 1
$addseg "$core" "$tmp/text-ok.core" --text "$elf"
check "dumped_code_equal_accepted" "$(run "$elf" "$tmp/text-ok.core")" "0: "
$addseg "$core" "$tmp/text-bad.core" --text "$elf" --flip 0x100
check "dumped_code_differing_refused" "$(run "$elf" "$tmp/text-bad.core" | grep -c \
	'): \.text: 1 of the [0-9]* bytes at 0x00000000-0x[0-9a-f]* differs from the firmware.s, the first at 0x00000100 ')" 1
$addseg "$core" "$tmp/id.core" --build-id 0123456789abcdef
check "build_id_contradicting_the_firmware_s_refused" \
	"$(run "$elf" "$tmp/id.core" | sed 's/.*): //')" \
	"build-id: the dump names 0123456789abcdef, the firmware is $(arm-none-eabi-readelf -n "$elf" |
		sed -n 's/.*Build ID: //p')"
# Counts agree with their nouns: two differences are the first and "1 more difference".
$addseg "$tmp/text-bad.core" "$tmp/two-diffs.core" --build-id 0123456789abcdef
check "one_more_difference_is_singular" "$(run "$elf" "$tmp/two-diffs.core" | sed 's/.*; //')" \
	"1 more difference (-v lists them)"
arm-none-eabi-objcopy --remove-section .note.gnu.build-id "$elf" "$tmp/noid.elf"
check "build_id_the_firmware_lacks_refused" "$(run "$tmp/noid.elf" "$tmp/id.core" | sed 's/.*): //')" \
	"build-id: the dump names build-id 0123456789abcdef, the firmware has none"

# Source paths as GDB's set substitute-path (--path-map OLD=NEW, whole directories) and
# addr2line -s (--strip-path) show them, in text and JSON alike.
files() { "$cw" -j "$@" "$elf" "$core" | python3 -c \
	'import json, sys; print(" ".join(f["file"] or "-" for f in json.loads(sys.stdin.readline())["frames"]))'; }
src=$(files | cut -d' ' -f2)
dir=${src%/*}
check "strip_path_keeps_base_names" "$(files --strip-path | tr ' ' '\n' | grep -c /)" 0
check "path_map_replaces_the_directory" "$(files --path-map "$dir=/src" | cut -d' ' -f2)" \
	"/src/${src##*/}"
check "path_map_in_text" "$("$cw" --path-map "$dir/=/src/" "$elf" "$core" | grep -c " at /src/${src##*/}:")" \
	"$("$cw" "$elf" "$core" | grep -c " at $src:")"
check "path_map_matches_whole_directories" "$(files --path-map "${dir%?}=/src" | cut -d' ' -f2)" "$src"
check "path_map_then_strip" "$(files --path-map "$dir=/src" --strip-path | cut -d' ' -f2)" "${src##*/}"
check "path_map_without_old_refused" "$(run --path-map =/src "$elf" "$core")" \
	"2: crashwalk: --path-map: '=/src' is not OLD=NEW with OLD a directory"

# A memory-only dump: the exception frame found in RAM has no EXC_RETURN (the handler's lr is
# not in the dump): said so, never printed as 0x00000000.
# Rewrite a dump without registers, as test_corpus.py does for remoteproc.
memory_only() {
	python3 -B -c 'import sys
sys.path.insert(0, sys.argv[1])
import test_corpus
test_corpus.memory_only(sys.argv[2], sys.argv[3])' "$(dirname "$0")" "$1" "$2"
}
memory_only "$core" "$tmp/mo.core"
"$cw" -q "$elf" "$tmp/mo.core" >"$tmp/mo.txt" 2>&1
check "memory_only_exc_return_unknown" "$(grep -c '^   --- exception frame (EXC_RETURN unknown)' "$tmp/mo.txt")" 1
check "memory_only_no_zero_exc_return" "$(grep -c 'EXC_RETURN 0x00000000' "$tmp/mo.txt")" 0

# --sp seeds the memory-only search: the words below a given stack pointer are dead. The
# crasher's live frame is at 0x20002db0; given there, the search starts there; given above
# it, nothing live is left to find.
memory_only "$b/rtos-m4f-freertos.core" "$tmp/mo-rtos.core"
check "sp_seeds_memory_only_search" "$("$cw" -q --sp psp=0x20002db0 "$b/rtos-m4f-freertos.elf" \
	"$tmp/mo-rtos.core" | grep -c '^search: .* found at 0x20002db0 in rtos-thread 0x20002db0-')" 1
check "sp_above_the_frame_leaves_none" "$(run --sp psp=0x20002db8 "$b/rtos-m4f-freertos.elf" \
	"$tmp/mo-rtos.core")" "1: crashwalk: $tmp/mo-rtos.core: no registers and no exception frame in \
memory with a complete chain above it (none was looked for below the stack pointers given with --sp)"

# Every FreeRTOS task stops at the return address all tasks are given: explained once.
"$cw" "$relf" "$b/rtos-m4f-freertos.core" >"$tmp/out"
check "rtos_stop_explained_once" \
	"$(grep -c 'stopped: task_entry: ' "$tmp/out") $(grep -c 'stopped: task_entry (as above)$' "$tmp/out")" \
	"1 $(($(grep -c 'stopped: task_entry' "$tmp/out") - 1))"

# A dump without registers notes the frame it starts from; -q keeps stderr for errors.
check "quiet_keeps_notes_off_stderr" \
	"$("$cw" -q --regs main:r0 "$elf" "$core" 2>&1 >/dev/null | wc -l)" 0

# Without the ELF: the firmware found by the build-id the dump holds (the demo's fault
# handler dumps its build-id note from flash), in a flat directory of ELFs; --batch; summary.
check "symbols_dir_finds_the_firmware_by_build_id" \
	"$("$cw" -q --symbols "$b" "$core" | tail -n +2)" "$("$cw" -q "$elf" "$core" | tail -n +2)"
check "symbols_json_names_build_id_and_firmware" \
	"$("$cw" -q -j --symbols "$b" "$core" | grep -o '"firmware": {"path": "[^"]*", "build_id": "[0-9a-f]*"}' |
		sed 's|.*/||; s|", .*||')" "demo.elf"
check "symbols_missing_dir_refused" "$(run --symbols "$tmp/nodir" "$core")" \
	"2: crashwalk: --symbols '$tmp/nodir': No such file or directory"
check "no_build_id_without_elf_is_a_usage_error" \
	"$(run --symbols "$b" "$b/rtos-m4f-freertos.core" | sed 's/ (no .*//')" \
	"2: crashwalk: $b/rtos-m4f-freertos.core: the dump holds no GNU build-id"
check "unknown_build_id_names_the_places" \
	"$(run --no-debuginfod --symbols "$b" "$tmp/id.core" | sed 's/.*build-id //')" \
	"0123456789abcdef: no firmware found: $b (.build-id, 1 ELF with a build-id): not there; debuginfod: not asked (--no-debuginfod); give the firmware with --symbols DIR, DEBUGINFOD_URLS or as the first argument"
printf '%s\n' "$core" "$tmp/text" "$b/demo.zephyr" "$tmp/id.core" >"$tmp/list"
"$cw" --batch="$tmp/list" --no-debuginfod --symbols "$b" >"$tmp/batch" 2>"$tmp/err"
check "batch_exit_status_1_after_failures" "$?" 1
check "batch_one_json_line_per_dump" "$(grep -c '^{"schema": "crashwalk"' "$tmp/batch")" 4
check "batch_counts_on_stderr" "$(tail -1 "$tmp/err")" \
	"crashwalk: 4 dumps, 2 failed, 1 firmware image opened"
check "batch_of_one_dump_is_singular" \
	"$(echo "$core" | "$cw" --batch --no-debuginfod --symbols "$b" 2>&1 >/dev/null | tail -1)" \
	"crashwalk: 1 dump, 0 failed, 1 firmware image opened"
check "batch_from_stdin_is_the_same" \
	"$("$cw" -q --batch --no-debuginfod --symbols "$b" <"$tmp/list" 2>/dev/null)" "$(cat "$tmp/batch")"
"$cw" summary "$tmp/batch" >"$tmp/sum"
check "summary_counts" "$(head -1 "$tmp/sum")" "4 dumps: 2 analyzed in 1 crash group, 2 failed"
check "summary_one_group_for_one_crash_in_two_formats" \
	"$(grep -c '^#1  2 dumps  signature [0-9a-f]\{16\}  bus-precise$' "$tmp/sum")" 1
check "summary_frames_from_the_faulting_one" \
	"$(sed -n 's/^    frames: \([a-z_]*\) .*/\1/p' "$tmp/sum" | head -1)" "fault_bus"
check "summary_json_is_the_text" \
	"$("$cw" summary --json <"$tmp/batch" | python3 -c 'import json, sys; j = json.load(sys.stdin)
print(j["dumps"], j["failed"], [g["count"] for g in j["groups"]], len(j["errors"]))')" "4 2 [2] 2"
check "summary_refuses_other_lines" "$(echo '{"a": 1}' | "$cw" summary 2>&1 >/dev/null)" \
	"crashwalk: -:1: summary: not a crashwalk --json report"
# A directory: its files in name order, as if each were named (the reports of processes run
# side by side); one that holds no report says so, naming it, and fails.
mkdir "$tmp/reports" "$tmp/noreports"
head -2 "$tmp/batch" >"$tmp/reports/a.jsonl"
tail -n +3 "$tmp/batch" >"$tmp/reports/b.jsonl"
check "summary_dir_reads_its_files" "$("$cw" summary "$tmp/reports"; echo "status $?")" \
	"$("$cw" summary "$tmp/batch"; echo "status $?")"
check "summary_dir_without_reports_refused" "$(run summary "$tmp/noreports")" \
	"1: crashwalk: summary: $tmp/noreports: no crashwalk --json report in this directory (0 files read)"
echo "hello" >"$tmp/noreports/notes.txt"
check "summary_dir_without_reports_counts_its_files" \
	"$("$cw" summary "$tmp/noreports" 2>&1 >/dev/null | tail -1)" \
	"crashwalk: summary: $tmp/noreports: no crashwalk --json report in this directory (1 file read)"
# Lines that are no report are counted after the first one's error: a log of thousands
# of lines is two lines on stderr, not one each.
seq 1000 >"$tmp/log"
check "summary_errors_bounded" "$(run summary "$tmp/log")" \
	"1: crashwalk: $tmp/log:1: summary: not a crashwalk --json report"
check "summary_errors_counted_after_the_first" "$(tail -n +2 "$tmp/err")" \
	"crashwalk: $tmp/log: 999 more lines refused, the last at line 1000"
printf 'x\ny\n' >"$tmp/log2"
check "summary_one_more_line_is_singular" "$("$cw" summary "$tmp/log2" 2>&1 >/dev/null | tail -1)" \
	"crashwalk: $tmp/log2: 1 more line refused, the last at line 2"
# Binary input (a dump, an ELF file, any control byte in the first bytes) is one error naming
# the file, what it is and what summary reads, and is not read further.
python3 -c 'import sys; sys.stdout.buffer.write(bytes(range(256)) * 1000)' >"$tmp/bin"
check "summary_binary_file_is_one_error" \
	"$("$cw" summary "$tmp/bin" 2>&1 >/dev/null; echo "status $?")" \
	"crashwalk: summary: $tmp/bin: offset 0 (0x0): byte 0x00: binary data, expected the JSON lines of crashwalk --json or --batch
status 1"
check "summary_dump_is_one_error" "$("$cw" summary "$core" 2>&1 >/dev/null)" \
	"crashwalk: summary: $core: a crash dump, expected the JSON lines of crashwalk --json or --batch"
check "summary_firmware_is_one_error" "$("$cw" summary "$elf" 2>&1 >/dev/null)" \
	"crashwalk: summary: $elf: an ELF file, expected the JSON lines of crashwalk --json or --batch"
check "summary_endless_binary_pipe_refused_at_once" \
	"$(timeout 20 "$cw" summary </dev/zero 2>&1 >/dev/null; echo "status $?")" \
	"crashwalk: summary: -: offset 0 (0x0): byte 0x00: binary data, expected the JSON lines of crashwalk --json or --batch
status 1"
check "batch_list_that_is_a_dump_is_one_error" \
	"$("$cw" -q --batch="$core" "$elf" 2>&1 >/dev/null; echo "status $?")" \
	"crashwalk: --batch $core: a crash dump, expected the dumps' paths, one a line
status 1"

# A lone file taken for the firmware that is none says what it is, not "no dump".
printf 'hello\n' >"$tmp/notes.txt"
check "lone_text_file_is_neither_firmware_nor_dump" "$(run "$tmp/notes.txt")" \
	"2: crashwalk: $tmp/notes.txt: neither a firmware ELF nor a dump crashwalk reads (elf-core, zephyr or crashcatcher)"
check "lone_missing_file_named" "$(run "$tmp/missing.elf")" \
	"2: crashwalk: $tmp/missing.elf: No such file or directory"
check "lone_firmware_asks_for_a_dump" "$(run "$b/demo.elf")" \
	"2: crashwalk: no dump (name one or more, or --watch DIR)"

# README's bundled-crash example, on this machine: what it shows ("#>" lines, with make
# shell's /fw/crash) is what crashwalk prints here, line for line.
shown=$(awk '/^crashwalk \/fw\/crash\/demo.elf \/fw\/crash\/demo.core$/ { on = 1; next }
	on && /^#> / { print substr($0, 4); next } on && /^#>$/ { print ""; next } on { exit }' \
	"$top/README.md" | sed "s|/fw/crash/|$b/|g")
check "readme_bundled_crash_example" "$("$cw" "$b/demo.elf" "$b/demo.core" 2>&1)" "$shown"

ktap_done
