#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# test_call_graph.sh - which crashwalk library files call into which, and no cycle among them
# nor among their stage folders (KTAP, two results): data flows one way through the pipeline,
# so no file, and no stage, may reach back to one that calls it. The file graph is printed
# as diagnostics.
# usage: test_call_graph.sh BUILD_DIR (holding the library's STAGE/cw_*.o)
set -u
. "$(cd "$(dirname "$0")" && pwd)/../ktap.sh"
dir=${1:?usage: test_call_graph.sh BUILD_DIR}
edges=$(mktemp)
stages=$(mktemp)
trap 'rm -f "$edges" "$stages"' EXIT
ktap_header 2
for o in "$dir"/*/cw_*.o; do
	f=${o#"$dir"/}
	f=${f%.o}
	nm --defined-only -g "$o" | awk -v f="$f" '$2 ~ /[TDRB]/ { print "def", $3, f }'
	nm -u "$o" | awk -v f="$f" '$1 == "U" { print "use", $2, f }'
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
# The same graph, each file replaced by its folder: the stages too call only downstream.
awk '{ split($1, a, "/"); split($2, b, "/"); if (a[1] != b[1]) print a[1], b[1] }' "$edges" |
	sort -u > "$stages"
ktap_note "stages: $(awk '{ printf "%s%s->%s", sep, $1, $2; sep = " " }' "$stages")"
cycle=$(tsort "$stages" 2>&1 >/dev/null)
[ -z "$cycle" ] || { ktap_note "cycle between stages:"; echo "$cycle" | sed 's/^/#   /'; }
[ -s "$stages" ] && [ -z "$cycle" ]
ktap_result $? "the library's stages call one another without a cycle"
ktap_done
