#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# framewalk flamegraph in a real browser (KTAP): Debian's headless Chromium loads the page
# offline, and the rendered DOM must have one box per distinct stack prefix of the folded
# stacks plus the root, the traced function, a root counting every chain of the recording and
# the [stop] boxes; a screenshot stays in build/flamegraph/. Also: folded input gives the
# same tree, bad input is named, and a screenshot taken as a user would (no time budget)
# shows the boxes drawn. usage: test_flamegraph.sh [RECORDING TRACED_FUNCTION]
set -u
. "$(cd "$(dirname "$0")" && pwd)/../ktap.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
fw=${FW_CLI:-$top/build/host/framewalk-asan}
out=$top/build/flamegraph
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"

# By default flame.rec: four chains, two identical, one more under grand, one stopped off the
# stack.
rec=${1:-$top/tests/userspace/flame.rec}
traced=${2:-child}
tag=$(basename "$rec" .rec)

# browse PAGE TAG, with no network (a dead proxy, no name resolves): the DOM after load
# into $tmp/TAG.dom, a screenshot into $out/TAG.png. No --virtual-time-budget: the page
# draws at once, as a user's browser shows it.
browse() {
	local s=$(date +%s%N)
	rm -rf "$tmp/profile"
	timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--proxy-server=127.0.0.1:9 --host-resolver-rules='MAP * ~NOTFOUND' \
		--user-data-dir="$tmp/profile" --window-size=1400,700 \
		--screenshot="$out/$2.png" --dump-dom "file://$1" >"$tmp/$2.dom" 2>"$tmp/chromium.log"
	local rc=$?
	echo "# chromium took $((($(date +%s%N) - s) / 1000000)) ms"
	return $rc
}

ktap_header
# A page or screenshot of an earlier run must not stand in for this one's.
rm -f "$out/$tag.html" "$out/$tag.png" "$out/$tag-search.png" "$out/$tag-user.png"
"$fw" flamegraph -o "$out/$tag.html" "$rec"
ktap_result $? "flamegraph writes $out/$tag.html from $(basename "$rec")"
chains=$("$fw" report "$rec" | tail -1 | awk '{ print $2 }')
# One box per distinct prefix of the folded stacks, plus the root.
want=$("$fw" folded "$rec" | awk '{ sub(/ [0-9]+$/, ""); n = split($0, f, ";"); p = "";
	for (i = 1; i <= n; i++) { p = p ";" f[i]; seen[p] = 1 } }
	END { print length(seen) + 1 }')
! grep -Eq '<(script|link|img|iframe)[^>]* (src|href)=' "$out/$tag.html"
ktap_result $? "the page has no script, style or image from elsewhere"

browse "$out/$tag.html" "$tag" && [ -s "$out/$tag.html" ] && [ -s "$out/$tag.png" ]
ktap_result $? "headless chromium loads the page and takes a screenshot ($out/$tag.png)"
# The screenshot as Documentation/framewalk-cli.rst tells a user to take it (as root, hence
# --no-sandbox; HOME keeps the profile out of the real one): the boxes must be drawn in it,
# the widest spanning most of the 1376-pixel chart, not caught in an opening animation.
(cd "$out" && HOME=$tmp/home timeout 120 chromium --headless --no-sandbox \
	--screenshot="$tag-user.png" --window-size=1400,700 "$tag.html") >"$tmp/user.log" 2>&1
widest=$(python3 "$top/tests/userspace/png_boxes.py" "$out/$tag-user.png" 2>&1)
echo "# the user's screenshot: widest box ${widest:-none} px"
[ "${widest:-0}" -ge 1100 ] 2>/dev/null
ktap_result $? "a screenshot taken as the documentation says shows the boxes drawn ($out/$tag-user.png)"
frames=$(grep -o '<g [^>]*class="frame[^"]*"' "$tmp/$tag.dom" | wc -l)
echo "# $frames boxes rendered, $want expected; $chains chains in the recording"
[ "$frames" = "$want" ]
ktap_result $? "one box per distinct stack prefix and the root ($want)"
grep -q "name=\"$traced\" class=\"frame" "$tmp/$tag.dom"
ktap_result $? "the traced function $traced is drawn"
root=$(grep -o '<title>all ([0-9]* chains\?' "$tmp/$tag.dom" | grep -o '[0-9]*')
echo "# root: ${root:-none}"
[ -n "$chains" ] && [ "$root" = "$chains" ]
ktap_result $? "the root counts every chain of the recording ($chains)"
stops=$("$fw" folded "$rec" | grep -o '^\[[a-z_]*\]' | sort -u | tr -d '[]')
ok=0
for s in $stops; do
	grep -q "<title>walk stopped: $s (" "$tmp/$tag.dom" || ok=1
done
[ -n "$stops" ] || [ "$tag" != flame ] || ok=1
ktap_result $ok "each stop reason in the folded stacks is a box that names it (${stops:-none})"

# Search, through the page's #search= link: the share of the chains through the matches.
if [ "$tag" = flame ]; then
	browse "$out/$tag.html#search=%5Echild%24" "$tag-search"
	grep -o 'id="fw-details">[^<]*' "$tmp/$tag-search.dom" | sed 's/^/# /'
	hl=$(grep -o '<g [^>]*name="[^"]*" class="frame[^>]*><rect[^>]*fill="#E600E6"' \
		"$tmp/$tag-search.dom" | grep -o 'name="[^"]*"' | tr '\n' ' ')
	echo "# highlighted: $hl"
	grep -q 'id="fw-details">search: 2 of 4 total samples' "$tmp/$tag-search.dom" &&
		[ "$hl" = 'name="child" ' ]
	ktap_result $? "searching ^child\$ highlights the 2 of 4 chains through child"
fi

# The same stacks as folded text, from a file and from standard input, give the same tree.
tree() { grep -o '"tree":.*}</script>' "$1"; }
"$fw" folded "$rec" >"$tmp/f.folded"
"$fw" flamegraph -o "$tmp/f.html" "$tmp/f.folded" && "$fw" folded "$rec" |
	"$fw" flamegraph -o "$tmp/s.html" - &&
	[ "$(tree "$tmp/f.html")" = "$(tree "$out/$tag.html")" ] &&
	[ "$(tree "$tmp/s.html")" = "$(tree "$out/$tag.html")" ]
ktap_result $? "folded input (file and -) gives the recording's tree"

# bad NAME WANT INPUT: the error names the input, the line and what is wrong.
bad() {
	local got
	printf '%b' "$3" >"$tmp/$1"
	got=$("$fw" flamegraph -o "$tmp/bad.html" "$tmp/$1" 2>&1)
	local rc=$?
	echo "$got" | grep -q -- "$2" && [ $rc = 1 ]
	ktap_result $? "bad input $1: '$2' (exit $rc)"
}
bad nocount "nocount:2: not folded stacks: expected 'frame;...;frame COUNT'" 'a;b 2\nab\n'
bad zero "zero:1: not folded stacks: expected a positive count after the last space, not '0'" 'a;b 0\n'
bad emptyframe "emptyframe:1: not folded stacks: empty frame name in 'a;;b'" 'a;;b 3\n'
bad empty "empty: no stacks: neither a framewalk recording nor folded stacks" ''
"$fw" flamegraph -o "$tmp/x.html" "$tmp/missing" 2>&1 | grep -q "missing: No such file"
ktap_result $? "a missing input is named with the system's reason"
ktap_done
