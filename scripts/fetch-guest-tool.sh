#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A Debian bookworm arm64 tool for the guest, with its libraries, unpacked, not installed.
#
# usage: fetch-guest-tool.sh PACKAGE PROGRAM [DIR]   (prints DIR)
#   bpftrace bpftrace     the tool make bench measures framewalk against, in the same boot
#   linux-perf perf       the user-frame oracle: perf's own --call-graph fp callchain
# The dependency closure (bpftrace's LLVM, clang and bcc: about 200 MB; perf's Python and
# Perl) is resolved through scripts/suite-apt.sh's private bookworm configuration with
# arm64 as the architecture, so the host's dpkg and apt are never asked to add anything.
# Packages the guest's own userland already holds (.cache/arm64-root, scripts/deps.sh) are
# left out: one libc in the guest. scripts/guest.sh -u merges DIR over the guest's root.
# DIR defaults to $FW_TOOL_CACHE/arm64-PACKAGE (/var/cache/framewalk/guest-tools), outside
# the work tree like the kernels, so a clean clone on the same machine fetches nothing. make
# check's guests all ask at once: the first fetches under a lock, the others wait for it.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
pkg=${1:?usage: fetch-guest-tool.sh PACKAGE PROGRAM [DIR]}
prog=${2:?usage: fetch-guest-tool.sh PACKAGE PROGRAM [DIR]}
dir=${3:-${FW_TOOL_CACHE:-/var/cache/framewalk/guest-tools}/arm64-$pkg}
base=$top/.cache/arm64-root/stamp
die() { echo "fetch-guest-tool: $pkg: $*" >&2; exit 1; }

[ -f "$base" ] || die "no guest userland in .cache/arm64-root (make deps)"
mkdir -p "$(dirname "$dir")"
exec 9>"$dir.lock"
flock 9
if [ -x "$dir/usr/bin/$prog" ] && cmp -s "$dir/base" "$base"; then
	echo "$dir"
	exit 0
fi
rm -rf "${dir:?}"
mkdir -p "$dir/debs"
apt=("$top/scripts/suite-apt.sh" bookworm apt-get -o APT::Architecture=arm64)
# What installing the package on an empty arm64 system would unpack, in order.
pkgs=$("${apt[@]}" -s install --no-install-recommends "$pkg:arm64" |
	awk '$1 == "Inst" { print $2 }') || die "cannot resolve its dependencies"
[ -n "$pkgs" ] || die "apt resolved nothing for $pkg:arm64"
want=()
for p in $pkgs; do
	grep -qx "${p%:*}" "$base" || want+=("${p%:*}:arm64")
done
# One download for the whole closure: one apt-get a package took minutes for perf's.
if [ "${#want[@]}" -gt 0 ]; then
	(cd "$dir/debs" && "${apt[@]}" -qq download "${want[@]}") ||
		die "cannot download its packages: ${want[*]}"
fi
for deb in "$dir"/debs/*.deb; do
	dpkg-deb -x "$deb" "$dir" || die "cannot unpack $deb"
done
# The guest needs the program and its libraries, not documentation.
rm -rf "${dir:?}/debs" "${dir:?}/usr/share/doc" "${dir:?}/usr/share/man" \
	"${dir:?}/usr/share/locale" "${dir:?}/usr/share/info"
cp "$base" "$dir/base"
[ -x "$dir/usr/bin/$prog" ] || die "no usr/bin/$prog in the unpacked packages"
echo "$dir"
