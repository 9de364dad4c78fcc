#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the host packages framewalk needs and fetch the arm64 guest kernels: Debian's
# (scripts/fetch-kernel.sh) and those built here (scripts/build-kernel.sh: 6.12-debug,
# 5.10-mcount).
# usage: deps.sh [--quick]     everything (--quick: answer at once when all is there)
#        deps.sh --host        only what the host tools build from (make install)
#        deps.sh --deb [ARCH]  only what make deb needs for ARCH (the host's by default)
# The host-side targets fetch no kernel: a fresh clone installs or packages in minutes.
#
# Idempotent: with everything present it only asks dpkg and apt-cache and downloads nothing.
# The kernels live outside the work tree, in $FW_KERNEL_CACHE (/var/cache/framewalk/kernels),
# which .cache/kernels points to: a fresh clone on the same machine (CI) finds them built.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${FW_CACHE:-$top/.cache}
kcache=${FW_KERNEL_CACHE:-/var/cache/framewalk/kernels}
series=${KERNELS:-"5.10 5.10-mcount 6.1 6.12 6.12-debug 7.2"}

HOST_PKGS="make gcc gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-system-arm qemu-user dwarves cpio
	gcc-arm-none-eabi libnewlib-arm-none-eabi binutils-arm-none-eabi gdb-multiarch libelf-dev
	libdw-dev elfutils libtraceevent-dev libtracefs-dev trace-cmd libcapstone-dev clang
	libclang-rt-14-dev llvm bc flex bison kmod xz-utils zstd python3 pkg-config rsync
	linux-source-6.12 libtracecmd-dev zlib1g-dev time python3-docutils
	chromium dpkg-dev debhelper dh-dkms dkms lintian fakeroot crossbuild-essential-arm64
	libdebuginfod-dev debuginfod libunicorn-dev"
# What the host tools (framewalk, its plugin, crashwalk) build from, a subset of HOST_PKGS.
HOST_TOOL_PKGS="make gcc libc6-dev pkg-config libelf-dev libdw-dev libtraceevent-dev
	libtracefs-dev libcapstone-dev libdebuginfod-dev zlib1g-dev"
# What dpkg-buildpackage and lintian need on top of them (make deb).
DEB_PKGS="dpkg-dev debhelper dh-dkms dkms lintian fakeroot"
# The arm64 build dependencies of the Debian packages (make deb DEB_ARCH=arm64), installed
# beside the amd64 ones through dpkg multiarch.
ARM64_BUILD_PKGS="libtraceevent-dev:arm64 libtracefs-dev:arm64 libelf-dev:arm64 libdw-dev:arm64
	libcapstone-dev:arm64 zlib1g-dev:arm64 pkgconf:arm64 libdebuginfod-dev:arm64"

log() { echo "deps: $*" >&2; }
die() { echo "deps: error: $*" >&2; exit 1; }

apt_updated=
apt_update() {
	[ -n "$apt_updated" ] && return 0
	log "apt-get update"
	apt-get update -qq >/dev/null || die "apt-get update failed (no route to Debian's mirror?)"
	apt_updated=1
}

missing_pkgs() {
	local p
	for p in "$@"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' ||
			echo "$p"
	done
}

# install_pkgs LOG PKG...: apt-get install those of PKG that are missing, its output into LOG.
install_pkgs() {
	local log=$1 miss
	shift
	miss=$(missing_pkgs "$@")
	[ -z "$miss" ] && return 0
	log "installing:" $miss
	apt_update
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $miss \
		>"$log" 2>&1 || die "apt-get install failed for: $miss (see $log)"
}

ensure_arm64_arch() {
	dpkg --print-foreign-architectures | grep -qx arm64 && return 0
	log "adding dpkg architecture arm64"
	dpkg --add-architecture arm64
	apt_updated=
	apt_update
}

# d3 and d3-flame-graph, the versions userspace/flamegraph/package-lock.json pins, for the
# framewalk binary to inline into its flame graph pages; refetched when the lock changes.
fetch_flamegraph_js() {
	local dir=$cache/npm lock=$top/userspace/flamegraph/package-lock.json
	if ! command -v npm >/dev/null; then
		apt_update
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends npm \
			>"$cache/apt-install-npm.log" 2>&1 || die "cannot install npm"
	fi
	cmp -s "$lock" "$dir/package-lock.json" && [ -f "$dir/stamp" ] && return 0
	log "npm: d3 and d3-flame-graph"
	rm -rf "$dir"
	mkdir -p "$dir"
	cp "$top/userspace/flamegraph/package.json" "$lock" "$dir/"
	(cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund >"$dir/npm.log" 2>&1) ||
		die "npm ci failed (see $dir/npm.log)"
	touch "$dir/stamp"
}

download() {
	local pkg=$1 dir=$2
	ls "$dir"/"${pkg%%:*}"_*.deb >/dev/null 2>&1 && return 0
	log "downloading $pkg"
	(cd "$dir" && apt-get download -qq "$pkg" >"$dir/download.log" 2>&1) || {
		apt_update
		(cd "$dir" && apt-get download -qq "$pkg" >"$dir/download.log" 2>&1) ||
			die "download of $pkg failed: $(tail -1 "$dir/download.log")"
	}
}

# Built here, or one of Debian's.
kernel_script() {
	case $1 in
	*-debug|*-mcount) echo "$top/scripts/build-kernel.sh" ;;
	*) echo "$top/scripts/fetch-kernel.sh" ;;
	esac
}

# .cache/kernels is the shared cache; an older tree's own directory there is replaced.
link_kernel_cache() {
	mkdir -p "$kcache"
	[ "$(readlink "$cache/kernels")" = "$kcache" ] && return 0
	rm -rf "$cache/kernels"
	ln -s "$kcache" "$cache/kernels"
}

fetch_kernel() {
	apt_update
	FW_KERNEL_CACHE=$kcache "$(kernel_script "$1")" "$1" || die "cannot get the $1 kernel"
}

fetch_busybox() {
	local dir=$cache/busybox
	[ -x "$dir/busybox" ] && return 0
	mkdir -p "$dir"
	download busybox-static:arm64 "$dir"
	rm -rf "$dir/x"
	dpkg -x "$dir"/busybox-static_*.deb "$dir/x" || die "cannot unpack busybox-static"
	cp "$dir/x/bin/busybox" "$dir/busybox"
	rm -rf "$dir/x" "$dir"/*.deb
}

# An arm64 userland for the guest and for cross-linking the framewalk CLI:
# trace-cmd and the libraries it and the CLI need, and the shared libraries
# crashwalk runs on in the guest (libdw, libelf, capstone and what libdw
# decompresses with); unpacked, not installed.
ARM64_USERLAND="libc6 libzstd1 libtraceevent1 libtraceevent1-plugin libtracefs1 libtracecmd1
	trace-cmd libtraceevent-dev libtracefs-dev libelf1 libdw1 libcapstone4 zlib1g liblzma5
	libbz2-1.0"

# The stamp lists the packages unpacked: a package added to the list is fetched
# on its own, without unpacking the others again.
arm64_userland_missing() {
	local p
	for p in $ARM64_USERLAND; do
		grep -qx "$p" "$cache/arm64-root/stamp" 2>/dev/null || echo "$p"
	done
}

fetch_arm64_userland() {
	local dir=$cache/arm64-root p missing
	missing=$(arm64_userland_missing)
	[ -z "$missing" ] && return 0
	mkdir -p "$dir/debs"
	for p in $missing; do
		download "$p:arm64" "$dir/debs"
	done
	for deb in "$dir"/debs/*.deb; do
		dpkg -x "$deb" "$dir" || die "cannot unpack $deb"
	done
	rm -rf "$dir/debs"
	printf '%s\n' $ARM64_USERLAND >"$dir/stamp"
}

# checkpatch.pl and its data files, and kernel-doc, from Debian's kernel source tarball.
fetch_checkpatch() {
	local dir=$cache/checkpatch tarball
	[ -x "$dir/scripts/checkpatch.pl" ] && [ -x "$dir/scripts/kernel-doc" ] && return 0
	tarball=$(ls /usr/src/linux-source-6.12.tar.* 2>/dev/null | head -1)
	[ -n "$tarball" ] || die "linux-source-6.12 is installed but its tarball is not in /usr/src"
	mkdir -p "$dir"
	tar -xf "$tarball" -C "$dir" --strip-components=1 --wildcards \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' '*/scripts/const_structs.checkpatch' \
		'*/scripts/kernel-doc' ||
		die "cannot extract checkpatch.pl from $tarball"
}

# Everything present: answer in a second, without asking apt.
quick_check() {
	local s
	[ -f "$cache/deps.stamp" ] || return 1
	[ -x "$cache/busybox/busybox" ] && [ -x "$cache/checkpatch/scripts/checkpatch.pl" ] &&
		[ -x "$cache/checkpatch/scripts/kernel-doc" ] || return 1
	[ -z "$(arm64_userland_missing)" ] || return 1
	[ -f "$cache/npm/stamp" ] && cmp -s "$cache/npm/package-lock.json" \
		"$top/userspace/flamegraph/package-lock.json" || return 1
	[ -z "$(missing_pkgs $ARM64_BUILD_PKGS)" ] || return 1
	[ "$(readlink "$cache/kernels")" = "$kcache" ] || return 1
	for s in $series; do
		FW_KERNEL_CACHE=$kcache "$(kernel_script "$s")" "$s" --up-to-date || return 1
	done
	[ -z "$(missing_pkgs $HOST_PKGS)" ]
}

# need_root: installing a package takes root; a tree with all present does not.
need_root() {
	[ "$(id -u)" = 0 ] || die "must run as root to install: $*"
}

# host_tools [deb [ARCH]]: the packages and the flame graph's JavaScript the host tools
# need (and the packaging tools, and ARCH's build dependencies when cross-building).
host_tools() {
	local pkgs=$HOST_TOOL_PKGS arch=${2:-$(dpkg --print-architecture)}
	[ "${1:-}" = deb ] && pkgs="$pkgs $DEB_PKGS"
	[ "${1:-}" = deb ] && [ "$arch" != "$(dpkg --print-architecture)" ] && {
		[ "$arch" = arm64 ] || die "make deb builds for $(dpkg --print-architecture) or arm64, not '$arch'"
		pkgs="$pkgs crossbuild-essential-arm64"
	}
	[ -z "$(missing_pkgs $pkgs)" ] || need_root $(missing_pkgs $pkgs)
	mkdir -p "$cache"
	install_pkgs "$cache/apt-install.log" $pkgs
	if [ "${1:-}" = deb ] && [ "$arch" = arm64 ]; then
		if [ -n "$(missing_pkgs $ARM64_BUILD_PKGS)" ]; then
			need_root $(missing_pkgs $ARM64_BUILD_PKGS)
			ensure_arm64_arch
			install_pkgs "$cache/apt-install-arm64.log" $ARM64_BUILD_PKGS
		fi
	fi
	if ! { [ -f "$cache/npm/stamp" ] &&
		cmp -s "$cache/npm/package-lock.json" "$top/userspace/flamegraph/package-lock.json"; }; then
		command -v npm >/dev/null || need_root npm
		fetch_flamegraph_js
	fi
}

main() {
	case ${1:-} in
	--host) host_tools; return ;;
	--deb) host_tools deb "${2:-}"; return ;;
	esac
	if [ "${1:-}" = --quick ] && quick_check; then
		return 0
	fi
	[ "$(id -u)" = 0 ] || die "must run as root (installs Debian packages)"
	mkdir -p "$cache"
	install_pkgs "$cache/apt-install.log" $HOST_PKGS
	ensure_arm64_arch
	install_pkgs "$cache/apt-install-arm64.log" $ARM64_BUILD_PKGS
	link_kernel_cache
	for s in $series; do
		fetch_kernel "$s"
	done
	fetch_busybox
	fetch_arm64_userland
	fetch_checkpatch
	fetch_flamegraph_js
	touch "$cache/deps.stamp"
}

main "$@"
