#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fetch one of Debian's arm64 kernels for the guest, unpacked, with what modules build against.
#
# usage: fetch-kernel.sh SERIES [--up-to-date]
#   SERIES  5.10 (bullseye), 6.1 and 6.12 (bookworm, the host's own suite), or the series of
#           the newest kernel, unstable's (e.g. 7.2)
# The kernel lands in $FW_KERNEL_CACHE/SERIES: vmlinuz, System.map, config, release, build/
# (the headers), and make-args, what its module builds must add on this host. Versions are
# resolved through apt-cache at run time (the suite's linux-image-arm64 meta-package, or
# bookworm's linux-image-6.12-arm64), never hard-coded; the stamp names the packages, so a new
# upload is fetched and the same one is not. Other suites' packages come through the private
# apt configuration of scripts/suite-apt.sh.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
kcache=${FW_KERNEL_CACHE:-/var/cache/framewalk/kernels}
series=${1:?usage: fetch-kernel.sh SERIES [--up-to-date]}
dir=$kcache/$series

die() { echo "fetch-kernel: $series: error: $*" >&2; exit 1; }
log() { echo "fetch-kernel: $series: $*" >&2; }

case $series in
5.10) suite=bullseye meta_img=linux-image-arm64 meta_hdr=linux-headers-arm64 ;;
6.1) suite=host meta_img=linux-image-arm64 meta_hdr=linux-headers-arm64 ;;
6.12) suite=host meta_img=linux-image-6.12-arm64 meta_hdr=linux-headers-6.12-arm64 ;;
[0-9]*.[0-9]*) suite=sid meta_img=linux-image-arm64 meta_hdr=linux-headers-arm64 ;;
*) die "unknown series (Debian's: 5.10, 6.1, 6.12, and unstable's newest, e.g. 7.2)" ;;
esac

if [ "${2:-}" = --up-to-date ]; then
	[ -f "$dir/stamp" ]
	exit
fi

# apt-get or apt-cache on the series' suite.
sapt() {
	if [ "$suite" = host ]; then
		"$@"
	else
		"$top/scripts/suite-apt.sh" "$suite" "$@"
	fi
}

# The dependencies of package $1 whose names match the regex $2, virtual <> and :arch stripped.
deps_of() {
	sapt apt-cache depends "$1" 2>/dev/null |
		sed -n 's/^  \(Pre\)\{0,1\}Depends: <\{0,1\}\([^:>]*\)\(:[a-z0-9]*\)\{0,1\}>\{0,1\}$/\2/p' |
		grep -E "^$2\$" || true
}

one_dep() {
	local out
	out=$(deps_of "$1" "$2" | head -1)
	[ -n "$out" ] || die "cannot resolve the dependency '$2' of $1 through apt-cache ($suite)"
	echo "$out"
}

img=$(one_dep "$meta_img:arm64" 'linux-image-[^ ]*-arm64')
hdr=$(one_dep "$meta_hdr:arm64" 'linux-headers-[^ ]*-arm64')
abi=${hdr#linux-headers-}
abi=${abi%-arm64}
case $abi in
"$series".*|"$series"-*) ;;
*) die "$suite's kernel is $abi, not $series: name its series in KERNELS" ;;
esac
# Since 7.x the image is a meta-package of its own: the kernel is in linux-binary-*, System.map
# and config in linux-base-*.
abi_re=$(printf '%s' "$abi" | sed 's/[.+]/\\&/g')
pkgs="$img $(deps_of "$img:arm64" "linux-(binary|base)-$abi_re-arm64" | tr '\n' ' ')"
if [ -f "$dir/stamp" ] && [ "$(cat "$dir/stamp")" = "$pkgs $hdr" ]; then
	exit 0
fi
common=$(one_dep "$hdr:arm64" 'linux-headers-[^ ]*-common')
kbuild=$(one_dep "$hdr:arm64" 'linux-kbuild-[^ ]*')

# Downloads stay in $debs until the kernel is in place, so a failed step does not fetch again.
debs=$kcache/debs-$series
download() {
	ls "$debs/${1%%:*}"_*.deb >/dev/null 2>&1 && return 0
	(cd "$debs" && sapt apt-get download -qq "$1" >"$debs/download.log" 2>&1) ||
		die "download of $1 failed: $(tail -1 "$debs/download.log")"
}

log "$img ($abi, $suite)"
rm -rf "$dir"
mkdir -p "$debs" "$dir/root"
for p in $pkgs $hdr; do
	download "$p:arm64"
done
download "$common:all" 2>/dev/null || download "$common:arm64"
download "$kbuild:amd64"
root=$dir/root
for p in $pkgs $hdr $common $kbuild; do
	dpkg -x "$(ls "$debs/${p}"_*.deb | tail -1)" "$root" || die "cannot unpack $p"
done
# The headers' Makefile includes the common tree by absolute /usr/src path: point it here.
build=$root/usr/src/$hdr
sed -i "s|/usr/src/|$root/usr/src/|g" "$build/Makefile"
ln -sfn "$build" "$dir/build"
file_in_root() {
	find "$root/boot" "$root/usr/lib/modules" -maxdepth 2 -name "$1" 2>/dev/null | head -1
}
for f in vmlinuz System.map config; do
	p=$(file_in_root "$f*")
	[ -n "$p" ] || die "no $f in $pkgs"
	ln -sfn "$p" "$dir/$f"
done
echo "$abi-arm64" >"$dir/release"

# Unstable's headers were made by a newer toolchain (gcc-16) than the host's: bookworm's cross
# gcc meets the kernel's minimum, but not every feature that toolchain had. The cached copy
# of the config says what this one has: each CONFIG_CC_HAS_* below that the host's gcc lacks
# is turned off in .config, auto.conf and autoconf.h alike, as a build with this gcc would have
# it. None of them changes a structure's layout: they add attributes or pick an alignment flag.
# Module BTF, which pahole 1.24 cannot make the headers' way and nothing here needs, is off
# for Kbuild alone (make-args).
cc_rejects() {
	! printf '%s\n' "$2" | aarch64-linux-gnu-gcc -Werror $1 -c -x c - -o /dev/null 2>/dev/null
}
drop_config() {
	sed -i "s/^$1=.*/# $1 is not set/" "$build/.config"
	sed -i "/^$1=/d" "$build/include/config/auto.conf"
	sed -i "/^#define $1 /d" "$build/include/generated/autoconf.h"
	dropped="$dropped $1"
}
dropped=
want_cc=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\([^ ]*\) .*/\1/p' "$build/.config")
: >"$dir/make-args"
if ! command -v "$want_cc" >/dev/null; then
	echo "CC=aarch64-linux-gnu-gcc" >"$dir/make-args"
	on() { grep -q "^$1=y" "$build/.config"; }
	! on CONFIG_CC_HAS_MIN_FUNCTION_ALIGNMENT ||
		! cc_rejects -fmin-function-alignment=8 '' || drop_config CONFIG_CC_HAS_MIN_FUNCTION_ALIGNMENT
	! on CONFIG_CC_HAS_COUNTED_BY ||
		! cc_rejects '' 'struct s { int n; int a[] __attribute__((__counted_by__(n))); };' ||
		drop_config CONFIG_CC_HAS_COUNTED_BY
	! on CONFIG_CC_HAS_COUNTED_BY_PTR ||
		! cc_rejects '' 'struct s { int n; int *a __attribute__((__counted_by__(n))); };' ||
		drop_config CONFIG_CC_HAS_COUNTED_BY_PTR
	# Module BTF is turned off for Kbuild only: the symbol also sizes struct module.
	if on CONFIG_DEBUG_INFO_BTF_MODULES && ! pahole --help 2>&1 | grep -q -- --btf_features; then
		echo "CONFIG_DEBUG_INFO_BTF_MODULES=" >>"$dir/make-args"
		dropped="$dropped CONFIG_DEBUG_INFO_BTF_MODULES (for Kbuild)"
	fi
	# Kbuild compares the pahole that made the kernel with the host's, for module BTF.
	have=$(sh "$build/scripts/pahole-version.sh" pahole 2>/dev/null || echo 0)
	if grep -q '^CONFIG_PAHOLE_VERSION=' "$build/.config"; then
		sed -i "s/^CONFIG_PAHOLE_VERSION=.*/CONFIG_PAHOLE_VERSION=$have/" \
			"$build/.config" "$build/include/config/auto.conf"
		sed -i "s/^#define CONFIG_PAHOLE_VERSION .*/#define CONFIG_PAHOLE_VERSION $have/" \
			"$build/include/generated/autoconf.h"
	fi
	log "headers made by $want_cc: modules build with aarch64-linux-gnu-gcc, without$dropped"
fi

# Unstable's kbuild tools link against a newer glibc than the host's: rebuild them from the
# same suite's linux-source, as its headers' config has them (about a minute).
kb=$root/usr/lib/$kbuild
if "$kb/scripts/mod/modpost.real-lsb-64" --version 2>&1 | grep -q GLIBC; then
	log "$kbuild's tools do not run here: rebuilding them from linux-source-${series}"
	"$top/scripts/build-kbuild-tools.sh" "$suite" "$series" "$build/.config" "$kb" ||
		die "cannot rebuild the kbuild tools"
fi
echo "$pkgs $hdr" >"$dir/stamp"
rm -rf "$debs"
