#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Feed crashwalk every hostile dump from mkhostile.py (KTAP). Each must end in
# a clear error naming the file (exit 1) or a report (exit 0): never a crash,
# a sanitizer report, a hang (20 s) or more than 1 GiB of memory.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$top/tests/ktap.sh"
cw=$top/analyzer/build/crashwalk
asan=$top/analyzer/build-asan/crashwalk
elf=$top/tests/firmware/bundled/demo.elf
out=$top/build/hostile
rm -rf "$out"
python3 "$here/mkhostile.py" "$top/tests/firmware/bundled" "$out/cases" | sed 's/^/# /'
# make has built crashwalk; the sanitized copy goes to its own directory, so this
# may run beside the analyzer's own tests.
[ -x "$cw" ] || { echo "# crashwalk is not built (run make)"; exit 1; }
make -s -C "$top/analyzer" O=build-asan \
	SAN="-fsanitize=address,undefined -fno-omit-frame-pointer" all >/dev/null ||
	{ echo "# cannot build the sanitized crashwalk"; exit 1; }

ktap_header
for f in "$out"/cases/*; do
	name=$(basename "$f")
	# The plain build under a 1 GiB address-space limit; then the ASan build.
	timeout 20 prlimit --as=1073741824 "$cw" "$elf" "$f" >"$out/$name.out" 2>"$out/$name.err"
	rc=$?
	timeout 60 "$asan" "$elf" "$f" >/dev/null 2>"$out/$name.asan"
	arc=$?
	why=
	case $rc in
	0) ;;
	1) grep -qF "$f" "$out/$name.err" || why="the error does not name the file" ;;
	124) why="hung (killed after 20 s)" ;;
	*) why="exit status $rc" ;;
	esac
	if grep -qE 'AddressSanitizer|runtime error|LeakSanitizer' "$out/$name.asan"; then
		why="sanitizer: $(grep -m1 -E 'ERROR|runtime error' "$out/$name.asan")"
	elif [ "$arc" != "$rc" ] && [ -z "$why" ]; then
		why="the ASan build exited $arc, the plain one $rc"
	fi
	if [ "$rc" = 1 ]; then
		echo "# $name: $(head -1 "$out/$name.err")"
	else
		echo "# $name: report, $(grep -c '^#' "$out/$name.out") frames; $(grep -m1 '^stopped' "$out/$name.out")"
	fi
	[ -z "$why" ] || echo "# $name: $why"
	[ -z "$why" ]
	ktap_result $? "$name: a clear error or a report, nothing worse"
done
ktap_done
