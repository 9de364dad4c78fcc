#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Debian bookworm's arm64 bpftrace for make bench's guest, unpacked, not installed.
#
# usage: fetch-bpftrace.sh [DIR]   (default .cache/arm64-bpftrace; prints DIR)
# bpftrace is the tool a user would reach for instead of framewalk, so make bench measures it
# in the same guest boot. Its dependency closure (LLVM, clang, bcc: about 200 MB unpacked) is
# resolved through scripts/suite-apt.sh's private bookworm configuration with arm64 as the
# architecture, so the host's dpkg and apt are never asked to add anything. Packages the
# guest's own userland already holds (.cache/arm64-root, scripts/deps.sh) are left out:
# one libc in the guest. scripts/guest.sh -u merges DIR over the guest's root.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$top/.cache/arm64-bpftrace}
base=$top/.cache/arm64-root/stamp
die() { echo "fetch-bpftrace: $*" >&2; exit 1; }

[ -f "$base" ] || die "no guest userland in .cache/arm64-root (make deps)"
if [ -x "$dir/usr/bin/bpftrace" ] && cmp -s "$dir/base" "$base"; then
	echo "$dir"
	exit 0
fi
rm -rf "${dir:?}"
mkdir -p "$dir/debs"
apt=("$top/scripts/suite-apt.sh" bookworm apt-get -o APT::Architecture=arm64)
# What installing bpftrace on an empty arm64 system would unpack, in order.
pkgs=$("${apt[@]}" -s install --no-install-recommends bpftrace:arm64 |
	awk '$1 == "Inst" { print $2 }') || die "cannot resolve bpftrace's dependencies"
[ -n "$pkgs" ] || die "apt resolved nothing for bpftrace:arm64"
for p in $pkgs; do
	grep -qx "${p%:*}" "$base" && continue
	(cd "$dir/debs" && "${apt[@]}" -qq download "${p%:*}:arm64") ||
		die "cannot download $p:arm64"
done
for deb in "$dir"/debs/*.deb; do
	dpkg-deb -x "$deb" "$dir" || die "cannot unpack $deb"
done
# The guest needs the program and its libraries, not documentation.
rm -rf "${dir:?}/debs" "${dir:?}/usr/share"
cp "$base" "$dir/base"
[ -x "$dir/usr/bin/bpftrace" ] || die "no usr/bin/bpftrace in the unpacked packages"
echo "$dir"
