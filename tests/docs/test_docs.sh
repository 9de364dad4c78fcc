#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The documentation (KTAP): each Documentation/*.rst parses as reStructuredText without a
# warning (index.rst is Sphinx's toctree, which plain docutils does not know), README.md's
# benchmark blocks are what the run in bench/results/ gives and no measured figure stands
# outside them (scripts/bench-readme.py), and no file holds a merge's conflict markers: two
# such leftovers once shipped in Documentation/.
# usage: test_docs.sh
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/ktap.sh"
ktap_header
for f in $(cd "$top" && ls Documentation/*.rst | grep -v '/index\.rst$'); do
	if out=$(/usr/bin/python3 -m docutils --halt=warning --report=warning \
		"$top/$f" /dev/null 2>&1); then
		ktap_result 0 "$f parses without a warning"
	else
		echo "$out" | sed 's/^/# /'
		ktap_result 1 "$f parses without a warning"
	fi
done
out=$(python3 "$top/scripts/bench-readme.py" --check "$top/README.md" 2>&1)
rc=$?
[ "$rc" = 0 ] || echo "$out" | sed 's/^/# /'
ktap_result $rc "README.md's benchmark figures are bench/results' and stand only in its tables"
out=$(cd "$top" && git grep -nE '^(<<<<<<<|>>>>>>>)( |$)' -- . ':!*.bin' 2>/dev/null)
echo "$out" | sed '/^$/d; s/^/# /'
[ -z "$out" ]
ktap_result $? "no tracked file holds a conflict marker"
ktap_done
