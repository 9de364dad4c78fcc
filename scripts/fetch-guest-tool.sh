#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A Debian bookworm arm64 tool for the guest, with its libraries, unpacked, not installed.
#
# usage: fetch-guest-tool.sh [-l] PACKAGE PROGRAM [DIR]   (prints DIR)
#   bpftrace bpftrace     the tool make bench measures framewalk against, in the same boot
#   -l linux-perf perf    the user-frame oracle: perf's own --call-graph fp callchain
# -l keeps only PROGRAM and the shared libraries it loads (DT_NEEDED, transitively): perf's
# package closure is 125 MB of Python and Perl that perf record and perf script never open,
# and every byte is unpacked into the guest's RAM at each boot (24 MB kept). bpftrace keeps
# all: its clang reads headers at run time.
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
mode=all
[ "${1:-}" = -l ] && { mode=libs; shift; }
pkg=${1:?usage: fetch-guest-tool.sh [-l] PACKAGE PROGRAM [DIR]}
prog=${2:?usage: fetch-guest-tool.sh [-l] PACKAGE PROGRAM [DIR]}
dir=${3:-${FW_TOOL_CACHE:-/var/cache/framewalk/guest-tools}/arm64-$pkg}
base=$top/.cache/arm64-root/stamp
die() { echo "fetch-guest-tool: $pkg: $*" >&2; exit 1; }

# keep_libs: $dir reduced to usr/bin/$prog and the libraries it needs that the guest's
# userland lacks, each under its soname.
keep_libs() {
	local full=$dir.full todo=("usr/bin/$prog") f lib d found
	declare -A seen=()
	rm -rf "${full:?}"
	mv "$dir" "$full"
	mkdir -p "$dir/usr/bin"
	while [ "${#todo[@]}" -gt 0 ]; do
		f=${todo[0]}
		todo=("${todo[@]:1}")
		cp -L "$full/$f" "$dir/$f"
		for lib in $(readelf -d "$full/$f" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p'); do
			[ -z "${seen[$lib]:-}" ] || continue
			seen[$lib]=1
			found=
			for d in lib/aarch64-linux-gnu usr/lib/aarch64-linux-gnu; do
				[ -e "$top/.cache/arm64-root/$d/$lib" ] && { found=base; break; }
				[ -e "$full/$d/$lib" ] && { found=$d/$lib; break; }
			done
			[ -n "$found" ] || die "$f needs $lib, in neither its packages nor the guest"
			[ "$found" = base ] && continue
			mkdir -p "$dir/$(dirname "$found")"
			todo+=("$found")
		done
	done
	rm -rf "${full:?}"
}

[ -f "$base" ] || die "no guest userland in .cache/arm64-root (make deps)"
mkdir -p "$(dirname "$dir")"
exec 9>"$dir.lock"
flock 9
if [ -x "$dir/usr/bin/$prog" ] && cmp -s "$dir/base" "$base" &&
	[ "$(cat "$dir/mode" 2>/dev/null)" = "$mode" ]; then
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
[ -x "$dir/usr/bin/$prog" ] || die "no usr/bin/$prog in the unpacked packages"
[ "$mode" = all ] || keep_libs
cp "$base" "$dir/base"
echo "$mode" >"$dir/mode"
echo "$dir"
