#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make install / make uninstall into a temporary DESTDIR (KTAP): exactly the two tools, their
# man pages and the plugin, the plugin where the installed libtraceevent looks for it, no
# kernel fetched and no module built on the way, and nothing left after uninstall; then
# make install in a fresh copy of the tree (no .cache, no build) with an empty kernel
# cache, and make deb's own dependency step there: each fetches what the host tools need
# (d3 from npm) and no kernel.
set -u
. "$(cd "$(dirname "$0")" && pwd)/../ktap.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
libdir=$(pkg-config --variable=libdir libtraceevent)

ktap_header
plan=$(make -s -n -C "$top" install DESTDIR="$dest" 2>&1)
! echo "$plan" | grep -q 'deps.sh --quick\|build-modules\|build-guest-bin\|kernel' &&
	echo "$plan" | grep -q 'deps.sh --host'
ktap_result $? "make install fetches only the host tools' dependencies and builds no module"

make -s -C "$top" install DESTDIR="$dest" PREFIX=/opt/fw >"$dest.log" 2>&1
ktap_result $? "make install DESTDIR=... PREFIX=/opt/fw succeeds"
sed 's/^/# /' "$dest.log"
rm -f "$dest.log"
got=$(cd "$dest" && find . -type f | sort)
want=$(printf '%s\n' ./opt/fw/bin/crashwalk ./opt/fw/bin/framewalk \
	./opt/fw/share/man/man1/crashwalk.1 ./opt/fw/share/man/man1/framewalk.1 \
	".$libdir/traceevent/plugins/plugin_framewalk.so" | sort)
[ "$got" = "$want" ]
ktap_result $? "installed files are the tools, their man pages and the plugin"
[ "$got" = "$want" ] || { echo "# want: $want" | tr '\n' ' '; echo; echo "# got: $got" | tr '\n' ' '; echo; }

# The directory is the one compiled into libtraceevent, not a guess from PREFIX.
lib=$(readlink -f "$libdir/libtraceevent.so.1")
grep -qaF "$libdir/traceevent/plugins" "$lib"
ktap_result $? "the plugin directory is the one compiled into $lib"

"$dest/opt/fw/bin/framewalk" -h >/dev/null && "$dest/opt/fw/bin/crashwalk" --help >/dev/null
ktap_result $? "the installed framewalk and crashwalk run"

make -s -C "$top" uninstall DESTDIR="$dest" PREFIX=/opt/fw >/dev/null 2>&1
left=$(cd "$dest" && find . -type f)
[ -z "$left" ]
ktap_result $? "make uninstall leaves no file behind"
[ -z "$left" ] || echo "# left: $left"

# A fresh clone: the tracked files only (with this tree's changes), no .cache, no build.
fresh=$dest/fresh
mkdir -p "$fresh"
(cd "$top" && git ls-files -z | xargs -0 cp -a --parents -t "$fresh") 2>/dev/null
kernels=$dest/kernels
FW_KERNEL_CACHE=$kernels make -s -C "$fresh" install DESTDIR="$dest/root" >"$dest/fresh.log" 2>&1
rc=$?
[ "$rc" = 0 ] || sed 's/^/# /' "$dest/fresh.log" | tail -20
ktap_result $rc "make install in a fresh clone, before make deps, succeeds"
[ -x "$dest/root/usr/local/bin/framewalk" ] && [ -x "$dest/root/usr/local/bin/crashwalk" ] &&
	"$dest/root/usr/local/bin/framewalk" flamegraph -h >/dev/null 2>&1
ktap_result $? "its framewalk (with the flame graph's d3) and crashwalk are installed"
[ ! -e "$kernels" ] && [ ! -e "$fresh/.cache/kernels" ] && [ ! -e "$fresh/.cache/busybox" ] &&
	[ ! -e "$fresh/.cache/arm64-root" ]
ktap_result $? "it fetched no kernel and no guest userland"
plan=$(make -s -n -C "$fresh" deb DEB_ARCH=arm64 2>&1)
echo "$plan" | grep -q 'deps.sh --deb arm64' && ! echo "$plan" | grep -q 'deps.sh --quick\|kernel'
ktap_result $? "make deb runs its own dependency step, not make deps"
FW_KERNEL_CACHE=$kernels "$fresh/scripts/deps.sh" --deb arm64 >"$dest/deb.log" 2>&1
rc=$?
[ "$rc" = 0 ] || sed 's/^/# /' "$dest/deb.log" | tail -20
[ "$rc" = 0 ] && [ -f "$fresh/.cache/npm/stamp" ] && [ ! -e "$kernels" ] &&
	[ ! -e "$fresh/.cache/kernels" ]
ktap_result $? "make deb's dependency step in a fresh clone fetches d3 and no kernel"
ktap_done
