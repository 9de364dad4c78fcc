#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# test_call_graph.sh - which crashwalk library files call into which, and no cycle among them
# (KTAP, one result): data flows one way through the pipeline, so no file may reach back to
# one that calls it. The graph itself is printed as diagnostics.
# usage: test_call_graph.sh BUILD_DIR (holding the library's libcw_*.o)
set -u
. "$(cd "$(dirname "$0")" && pwd)/../ktap.sh"
dir=${1:?usage: test_call_graph.sh BUILD_DIR}
edges=$(mktemp)
trap 'rm -f "$edges"' EXIT
ktap_header 1
for o in "$dir"/libcw_*.o; do
	nm --defined-only -g "$o" | awk -v f="$(basename "$o" .o)" '$2 ~ /[TDRB]/ { print "def", $3, f }'
	nm -u "$o" | awk -v f="$(basename "$o" .o)" '$1 == "U" { print "use", $2, f }'
done | awk '
	$1 == "def" { owner[$2] = $3; next }
	{ uses[++n] = $3 " " $2 }
	END {
		for (i = 1; i <= n; i++) {
			split(uses[i], u, " ")
			if ((u[2] in owner) && owner[u[2]] != u[1])
				print u[1], owner[u[2]]
		}
	}' | sort -u > "$edges"
awk '{ to[$1] = to[$1] " " $2 } END { for (f in to) print f ":" to[f] }' "$edges" | sort |
	sed 's/^/# /'
ktap_note "$(wc -l < "$edges") edges"
# tsort reports a cycle on stderr; any such report fails the check. No edge at all means
# no object was read, which is no proof of anything.
cycle=$(tsort "$edges" 2>&1 >/dev/null)
[ -z "$cycle" ] || { ktap_note "cycle between files:"; echo "$cycle" | sed 's/^/#   /'; }
[ -s "$edges" ] && [ -z "$cycle" ]
ktap_result $? "the library's files call one another without a cycle"
ktap_done
