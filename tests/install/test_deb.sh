#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The Debian packages (KTAP): make deb for amd64 and arm64 with no lintian error; the amd64
# packages installed on this machine run (framewalk, crashwalk on a bundled dump, trace-cmd
# report finding the plugin with no environment variable, DKMS registering the source) and
# purge without a trace; the arm64 framewalk package, unpacked into the arm64 guest, runs there
# with its plugin. make check runs the build while the guests boot, the rest after them.
# usage: test_deb.sh build | test_deb.sh install GUEST_FILES_DIR (a guest's trace.dat, fw.rec)
set -u
. "$(cd "$(dirname "$0")" && pwd)/../ktap.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
usage="usage: test_deb.sh build | test_deb.sh install GUEST_FILES_DIR"
mode=${1:?$usage}
files=${2:-}
[ "$mode" = build ] || [ "$mode" = install -a -n "$files" ] || { echo "$usage" >&2; exit 2; }
version=$(cat "$top/VERSION")
deb=$top/build/deb
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pkgs="framewalk framewalk-dkms crashwalk"
plugin=usr/lib/x86_64-linux-gnu/traceevent/plugins/plugin_framewalk.so

ktap_header
for arch in amd64 arm64; do
	[ "$mode" = build ] || break
	s=$(date +%s)
	"$top/scripts/build-deb.sh" "$arch" >"$tmp/build-$arch.log" 2>&1
	rc=$?
	sed 's/^/# /' "$tmp/build-$arch.log" | tail -12
	echo "# make deb DEB_ARCH=$arch took $(($(date +%s) - s)) s"
	n=0
	for p in framewalk_${version}_$arch framewalk-dkms_${version}_all crashwalk_${version}_$arch; do
		[ -f "$deb/$arch/$p.deb" ] && n=$((n + 1))
	done
	[ $n = 3 ]
	ktap_result $? "make deb DEB_ARCH=$arch: framewalk, framewalk-dkms and crashwalk"
	[ $rc = 0 ] && ! grep -q '^E:' "$deb/$arch/lintian.log" 2>/dev/null
	ktap_result $? "lintian: no error in the $arch packages"
	# The library versions README.md asks other distributions for, the package asks too.
	depends=$(dpkg-deb -f "$deb/$arch/framewalk_${version}_$arch.deb" Depends 2>/dev/null)
	echo "# framewalk_$arch Depends: $depends"
	ok=0
	for lib in libtracefs libtraceevent; do
		want=$(grep -o "$lib >= [0-9.]*" "$top/README.md" | head -1 | sed 's/.*>= //')
		# Debian's libtraceevent carries an epoch (1:1.7.1): 1.7 alone would be any version.
		echo "$depends" | tr ',' '\n' | grep -Eq "^ *${lib}1 \(>= ([0-9]+:)?$want(\.0)?\)$" ||
			{ echo "# README asks $lib >= ${want:-?}; the package does not"; ok=1; }
	done
	ktap_result $ok "framewalk_$arch depends on the library versions README.md names"
done
[ "$mode" = build ] && { ktap_done; exit; }
dpkg-deb -x "$deb/arm64/framewalk_${version}_arm64.deb" "$tmp/arm64"
file "$tmp/arm64/usr/bin/framewalk" "$tmp/arm64/usr/lib/aarch64-linux-gnu/traceevent/plugins/plugin_framewalk.so" |
	sed 's/^/# /' | cut -c1-140
[ "$(file -b "$tmp/arm64/usr/bin/framewalk" | grep -c 'ARM aarch64')" = 1 ]
ktap_result $? "the arm64 framewalk is an arm64 program"

# Install on this machine, one test run at a time: trace-cmd finds plugins only in the
# directory compiled into libtraceevent.
report() { env -u TRACEEVENT_PLUGIN_DIR HOME="$tmp" trace-cmd report -i "$files/trace.dat" 2>&1; }
exec 9>/var/lock/framewalk-deb-test.lock
flock 9
already=$(dpkg-query -W -f='${Package} ${Status}\n' $pkgs 2>/dev/null | grep ' installed$')
[ -z "$already" ]
ktap_result $? "no framewalk package was installed before the test${already:+ (remove: $already)}"
[ -n "$already" ] && { ktap_done; exit; }
[ -s "$files/trace.dat" ] && [ -s "$files/fw.rec" ]
ktap_result $? "the guest's trace.dat and fw.rec are in $files"
before=$(report)
echo "$before" | grep -q ' chain: ' && ! echo "$before" | grep -q '=> fw_test_l5+0x'
ktap_result $? "before the install, trace-cmd report reads the events but does not symbolize them"
(cd "$deb/amd64" && dpkg -i framewalk_${version}_amd64.deb crashwalk_${version}_amd64.deb \
	framewalk-dkms_${version}_all.deb) >"$tmp/dpkg.log" 2>&1
ktap_result $? "dpkg -i the three amd64 packages"
sed 's/^/# /' "$tmp/dpkg.log" | grep -iv '^# \(selecting\|(reading\|preparing\|unpacking\)' | tail -8

# A package is built from a copy outside git: it says the release alone.
[ "$(/usr/bin/framewalk --version 2>&1)" = "framewalk $version" ]
ktap_result $? "the installed framewalk runs and says its release: $(/usr/bin/framewalk --version 2>&1)"
[ "$(/usr/bin/crashwalk "$top/tests/firmware/bundled/demo.elf" "$top/tests/firmware/bundled/demo.core" 2>&1)" = \
	"$("$top/analyzer/build/crashwalk" "$top/tests/firmware/bundled/demo.elf" "$top/tests/firmware/bundled/demo.core" 2>&1)" ]
ktap_result $? "the installed crashwalk reports the bundled demo crash as the tree's does"
after=$(report)
echo "$after" | grep -A1 'fw_test_leaf nr_ancestors=' | head -2 | sed 's/^/# /'
echo "$after" | grep -A1 'fw_test_leaf nr_ancestors=' | grep -q '^ => fw_test_l5+0x'
ktap_result $? "trace-cmd report finds the installed plugin with no environment variable"
/usr/bin/framewalk flamegraph -o "$tmp/f.html" "$files/fw.rec" && grep -q fw_test_leaf "$tmp/f.html"
ktap_result $? "the installed framewalk writes a flame graph"
dkms status framewalk 2>&1 | sed 's/^/# dkms: /'
[ -f /usr/src/framewalk-$version/dkms.conf ] && dkms status framewalk 2>&1 | grep -q "framewalk/$version"
ktap_result $? "framewalk-dkms: the source is in /usr/src/framewalk-$version and DKMS knows it"

dpkg --purge $pkgs >"$tmp/purge.log" 2>&1
ktap_result $? "dpkg --purge the three packages"
left=
for f in /usr/bin/framewalk /usr/bin/crashwalk /$plugin /usr/src/framewalk-$version \
	/var/lib/dkms/framewalk /usr/share/man/man1/framewalk.1.gz /usr/share/doc/crashwalk; do
	[ -e "$f" ] && left="$left $f"
done
[ -z "$left" ] && [ -z "$(dpkg-query -W $pkgs 2>/dev/null)" ]
ktap_result $? "nothing is left after the purge${left:+:$left}"
flock -u 9

# The arm64 package in the arm64 guest: the binary and the plugin where the package puts them.
# A kill limit only: seconds alone, minutes beside make check's other guests.
a=$tmp/arm64
s=$(date +%s)
"$top/scripts/guest.sh" -q -k "${FW_DEB_KERNEL:-6.12}" -t 900 -o "$tmp/guest" \
	-i "$a/usr/bin/framewalk:/usr/bin/framewalk" \
	-i "$a/usr/lib/aarch64-linux-gnu/traceevent/plugins/plugin_framewalk.so:/usr/lib/aarch64-linux-gnu/traceevent/plugins/plugin_framewalk.so" \
	-i "$a/usr/bin/framewalk:/fw/pkg-framewalk" \
	-i "$files/trace.dat:/fw/trace.dat" -i "$files/fw.rec:/fw/fw.rec" -- '
cmp /usr/bin/framewalk /fw/pkg-framewalk && echo "@@ binary is the package'"'"'s"
framewalk -h >/dev/null 2>&1 && echo "@@ framewalk runs"
trace-cmd report -i /fw/trace.dat 2>/dev/null | grep -A1 "fw_test_leaf nr_ancestors=" | grep -q "^ => fw_test_l5+0x" &&
	echo "@@ plugin found"
framewalk flamegraph -o /fw/out/g.html /fw/fw.rec && echo "@@ flamegraph written"'
rc=$?
echo "# arm64 guest took $(($(date +%s) - s)) s, exit $rc"
grep '^@@' "$tmp/guest/console.log" | sed 's/^/# /'
grep -q '^@@ binary is the package' "$tmp/guest/console.log" &&
	grep -q '^@@ framewalk runs' "$tmp/guest/console.log"
ktap_result $? "arm64 guest: the packaged framewalk runs"
grep -q '^@@ plugin found' "$tmp/guest/console.log"
ktap_result $? "arm64 guest: trace-cmd report finds the packaged plugin in the system directory"
grep -q fw_test_leaf "$tmp/guest/files/g.html" 2>/dev/null
ktap_result $? "arm64 guest: the packaged framewalk writes a flame graph"
ktap_done
