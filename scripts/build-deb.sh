#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make deb: framewalk-dkms, framewalk and crashwalk for ARCH (default the host's; arm64 is
# cross-built) with dpkg-buildpackage, offline, from a copy of the tree, so that neither the
# tree nor its parent directory gets build products; then lintian. Output: build/deb/ARCH/.
# usage: build-deb.sh [ARCH]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
host=$(dpkg --print-architecture)
arch=${1:-$host}
version=$(cat "$top/VERSION")
out=$top/build/deb/$arch
src=$out/src/framewalk-$version

die() { echo "deb: error: $*" >&2; exit 1; }
[ -f "$top/.cache/npm/stamp" ] || die "d3 and d3-flame-graph are not in .cache/npm: run make deb (scripts/deps.sh --deb fetches them)"
rm -rf "$out"
mkdir -p "$src"
rsync -a --exclude=/.git --exclude=/build --exclude=build/ --exclude=build-asan/ \
	--exclude='*.o' --exclude='*.ko' "$top/" "$src/"
cross=
[ "$arch" = "$host" ] || cross="-a $arch"
s=$(date +%s)
# -b: binary packages only, the tree is the source; -d would skip the Build-Depends check.
(cd "$src" && dpkg-buildpackage -b -us -uc $cross) >"$out/build.log" 2>&1 ||
	die "dpkg-buildpackage failed for $arch (see $out/build.log): $(tail -3 "$out/build.log")"
mv "$out"/src/*.deb "$out"/src/*.changes "$out"/src/*.buildinfo "$out/"
rm -rf "$out/src"
echo "deb: $arch packages in $(($(date +%s) - s)) s:" $(cd "$out" && ls ./*.deb)
# lintian's exit status is non-zero on errors only (the default --fail-on error).
lintian --fail-on error "$out"/*.changes >"$out/lintian.log" 2>&1
rc=$?
sed 's/^/lintian: /' "$out/lintian.log"
exit $rc
