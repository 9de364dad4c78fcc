#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Rebuild a kernel's kbuild host tools (fixdep, modpost, ...) for this host from its source.
#
# usage: build-kbuild-tools.sh SUITE SERIES CONFIG KBUILD_DIR
# Unstable's linux-kbuild-* tools are linked against unstable's glibc and do not start on
# bookworm. Built from SUITE's linux-source-SERIES with the headers' CONFIG, they replace those
# in KBUILD_DIR that do not run here. The source package stays in $FW_KERNEL_CACHE/src.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
kcache=${FW_KERNEL_CACHE:-/var/cache/framewalk/kernels}
suite=$1 series=$2 config=$3 kb=$4
srcpkg=linux-source-$series

die() { echo "build-kbuild-tools: error: $*" >&2; exit 1; }

mkdir -p "$kcache/src"
deb=$(ls "$kcache/src/${srcpkg}"_*_all.deb 2>/dev/null | tail -1)
if [ -z "$deb" ]; then
	(cd "$kcache/src" && "$top/scripts/suite-apt.sh" "$suite" apt-get download -qq "$srcpkg") ||
		die "cannot download $srcpkg from $suite"
	deb=$(ls "$kcache/src/${srcpkg}"_*_all.deb | tail -1)
fi
work=$(mktemp -d "$kcache/kbuild-tools.XXXXXX")
trap 'rm -rf "$work"' EXIT
# Only what the host tools are built from.
dpkg-deb --fsys-tarfile "$deb" | tar -xO "./usr/src/$srcpkg.tar.xz" | tar -xJ -C "$work" ||
	die "cannot unpack $deb"
src=$(echo "$work"/linux-source-*)
mkdir -p "$work/obj"
cp "$config" "$work/obj/.config"
kmake() {
	make -s -C "$src" O="$work/obj" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- "$@"
}
kmake olddefconfig >/dev/null
kmake -j"$(nproc)" modules_prepare >"$work/build.log" 2>&1 ||
	die "make modules_prepare failed: $(tail -3 "$work/build.log")"

# Replace each tool that does not start here by its new build; Debian's modpost is a wrapper
# around modpost.real-<endianness>-<bits>.
replaced=0
while read -r f; do
	rel=${f#"$kb"/}
	case $rel in
	scripts/mod/modpost.real-lsb-64) new=$work/obj/scripts/mod/modpost ;;
	*) new=$work/obj/$rel ;;
	esac
	"$f" --version >/dev/null 2>"$work/err" || true
	grep -q 'GLIBC\|not found' "$work/err" || continue
	[ -x "$new" ] || continue
	cp "$new" "$f"
	replaced=$((replaced + 1))
done < <(find "$kb" -type f -perm -u+x -exec sh -c 'head -c4 "$1" | grep -q ELF' _ {} \; -print)
for t in scripts/basic/fixdep scripts/mod/modpost.real-lsb-64; do
	"$kb/$t" --version >/dev/null 2>"$work/err" || true
	! grep -q 'GLIBC' "$work/err" || die "$t still does not run: $(head -1 "$work/err")"
done
echo "build-kbuild-tools: $replaced tools rebuilt from $srcpkg" >&2
