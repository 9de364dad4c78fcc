#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make install / make uninstall into a temporary DESTDIR (KTAP): exactly the two tools, their
# man pages and the plugin, the plugin where the installed libtraceevent looks for it, no
# dependency check or module build on the way, and nothing left after uninstall.
set -u
. "$(cd "$(dirname "$0")" && pwd)/../ktap.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
libdir=$(pkg-config --variable=libdir libtraceevent)

ktap_header
plan=$(make -s -n -C "$top" install DESTDIR="$dest" 2>&1)
! echo "$plan" | grep -q 'deps.sh\|build-modules\|build-guest-bin'
ktap_result $? "make install runs no dependency check and builds no module"

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
ktap_done
