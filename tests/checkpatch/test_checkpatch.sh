#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kernel-side C (module/, lib/, the selftests' test modules, bench/) is checkpatch
# --strict clean, one KTAP result per file; checkpatch.pl is the copy make deps fetched.
# The module's kernel-doc comments pass the kernel's own scripts/kernel-doc -Wall (make deps
# fetches it beside checkpatch.pl), and every function that another file of the module
# calls (not static in its .c, or inline in a header) has one.
# usage: test_checkpatch.sh
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/ktap.sh"
cp=$top/.cache/checkpatch/scripts/checkpatch.pl
files=$(cd "$top" && ls module/*.[ch] lib/*.h selftests/framewalk/test_modules/*.[ch] \
	bench/*.[ch])
ktap_header
for f in $files; do
	# Any error, warning or --strict check makes checkpatch exit non-zero.
	if out=$("$cp" --no-tree --strict --terse -f "$top/$f" 2>&1); then
		ktap_result 0 "$f is checkpatch --strict clean"
	else
		echo "$out" | grep -v '^total' | sed 's/^/# /'
		ktap_result 1 "$f is checkpatch --strict clean"
	fi
done

# A kernel-doc comment that does not say what the function is, or that misses a parameter or
# the return value, is a warning; so is a comment that opens with "/**" but is not one.
kd=$top/.cache/checkpatch/scripts/kernel-doc
for f in $(cd "$top" && ls module/*.[ch]); do
	out=$(perl "$kd" -none -Wall "$top/$f" 2>&1)
	echo "$out" | sed '/^$/d; s/^/# /'
	[ -z "$out" ]
	ktap_result $? "$f passes kernel-doc -Wall"
done
# The functions another file calls: a non-static definition at the start of a line of a .c
# file, or an inline function of a header (there so that other files inline it).
called=$(cd "$top/module" && { grep -hE '^[a-z_][a-z0-9_ *]*[ *]fw_[a-z0-9_]+\(' *.c |
	grep -v '^static'; grep -hE '^static (__always_)?inline .*[ *]fw_[a-z0-9_]+\(' *.h; } |
	sed -E 's/^[^(]*[ *](fw_[a-z0-9_]+)\(.*/\1/' | sort -u)
documented=$(cd "$top/module" && perl "$kd" -rst *.c *.h 2>/dev/null |
	sed -nE 's/^\.\. c:function:: [^(]*[ *](fw_[a-z0-9_]+) \(.*/\1/p' | sort -u)
missing=$(comm -23 <(echo "$called") <(echo "$documented"))
echo "$missing" | sed '/^$/d; s/^/# no kernel-doc comment: /'
[ -n "$called" ] && [ -z "$missing" ]
ktap_result $? "every module function another file calls has a kernel-doc comment ($(echo "$called" | wc -l))"
ktap_done
