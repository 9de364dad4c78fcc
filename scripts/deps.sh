#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the host packages framewalk needs and fetch the arm64 guest kernels into .cache/
# (6.12-debug: build it, scripts/build-debug-kernel.sh).
#
# Idempotent: with everything present it only asks dpkg and apt-cache and downloads nothing.
# Kernel versions are resolved through apt-cache at run time (the meta-packages
# linux-image-arm64 for 6.1 and linux-image-6.12-arm64 for 6.12), never hard-coded.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${FW_CACHE:-$top/.cache}
series=${KERNELS:-"6.1 6.12 6.12-debug"}

HOST_PKGS="make gcc gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-system-arm dwarves cpio
	gcc-arm-none-eabi libnewlib-arm-none-eabi binutils-arm-none-eabi gdb-multiarch libelf-dev
	libdw-dev elfutils libtraceevent-dev libtracefs-dev trace-cmd libcapstone-dev clang
	libclang-rt-14-dev llvm bc flex bison kmod xz-utils zstd python3 pkg-config rsync
	linux-source-6.12 libtracecmd-dev zlib1g-dev time python3-docutils
	chromium dpkg-dev debhelper dh-dkms dkms lintian fakeroot crossbuild-essential-arm64"
# The arm64 build dependencies of the Debian packages (make deb DEB_ARCH=arm64), installed
# beside the amd64 ones through dpkg multiarch.
ARM64_BUILD_PKGS="libtraceevent-dev:arm64 libtracefs-dev:arm64 libelf-dev:arm64 libdw-dev:arm64
	libcapstone-dev:arm64 zlib1g-dev:arm64 pkgconf:arm64"

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

# Print the first dependency of $1 whose name matches the regex $2, e.g. the
# linux-image-6.1.0-56-arm64 that linux-image-arm64 depends on (virtual <> and :arch stripped).
resolve_dep() {
	local meta=$1 pattern=$2 out
	out=$(dep_of "$meta" "$pattern")
	if [ -z "$out" ]; then
		apt_update
		out=$(dep_of "$meta" "$pattern")
	fi
	[ -n "$out" ] || die "cannot resolve the dependency '$pattern' of $meta through apt-cache"
	echo "$out"
}

dep_of() {
	apt-cache depends "$1" 2>/dev/null |
		sed -n 's/^  Depends: <\?\([^:>]*\)\(:[a-z0-9]*\)\?>\?$/\1/p' |
		grep -E "^$2\$" | head -1
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

# Fetch and unpack one kernel series: image, headers, common headers and the amd64 kbuild tools.
fetch_kernel() {
	local s=$1 meta_img meta_hdr img hdr abi common kbuild dir root
	case $s in
	6.12-debug) "$top/scripts/build-debug-kernel.sh" || die "cannot build the $s kernel"
		return 0 ;;
	6.1) meta_img=linux-image-arm64:arm64; meta_hdr=linux-headers-arm64:arm64 ;;
	6.12) meta_img=linux-image-6.12-arm64:arm64; meta_hdr=linux-headers-6.12-arm64:arm64 ;;
	*) die "unknown kernel series '$s' (KERNELS takes 6.1, 6.12 and 6.12-debug)" ;;
	esac
	img=$(resolve_dep "$meta_img" 'linux-image-[^ ]*-arm64')
	hdr=$(resolve_dep "$meta_hdr" 'linux-headers-[^ ]*-arm64')
	abi=${hdr#linux-headers-}
	abi=${abi%-arm64}
	dir=$cache/kernels/$s
	if [ -f "$dir/stamp" ] && [ "$(cat "$dir/stamp")" = "$img $hdr" ]; then
		return 0
	fi
	common=$(resolve_dep "$hdr:arm64" 'linux-headers-[^ ]*-common')
	kbuild=$(resolve_dep "$hdr:arm64" 'linux-kbuild-[^ ]*')
	log "kernel $s: $img ($abi)"
	rm -rf "$dir"
	mkdir -p "$dir/debs" "$dir/root"
	download "$img:arm64" "$dir/debs"
	download "$hdr:arm64" "$dir/debs"
	download "$common:all" "$dir/debs" 2>/dev/null || download "$common:arm64" "$dir/debs"
	download "$kbuild:amd64" "$dir/debs"
	root=$dir/root
	for deb in "$dir"/debs/*.deb; do
		dpkg -x "$deb" "$root" || die "cannot unpack $deb"
	done
	# The headers' Makefile includes the common tree by absolute /usr/src path: point it here.
	sed -i "s|/usr/src/|$root/usr/src/|g" "$root/usr/src/$hdr/Makefile"
	ln -sfn "$root/usr/src/$hdr" "$dir/build"
	ln -sfn "$(ls "$root"/boot/vmlinuz-* | head -1)" "$dir/vmlinuz"
	ln -sfn "$(ls -d "$root"/lib/modules/* | head -1)" "$dir/modules"
	ln -sfn "$(ls "$root"/boot/System.map-* | head -1)" "$dir/System.map"
	echo "$abi" >"$dir/release"
	echo "$img $hdr" >"$dir/stamp"
	rm -rf "$dir/debs"
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

# checkpatch.pl and its data files, from Debian's kernel source tarball.
fetch_checkpatch() {
	local dir=$cache/checkpatch tarball
	[ -x "$dir/scripts/checkpatch.pl" ] && return 0
	tarball=$(ls /usr/src/linux-source-6.12.tar.* 2>/dev/null | head -1)
	[ -n "$tarball" ] || die "linux-source-6.12 is installed but its tarball is not in /usr/src"
	mkdir -p "$dir"
	tar -xf "$tarball" -C "$dir" --strip-components=1 --wildcards \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' '*/scripts/const_structs.checkpatch' ||
		die "cannot extract checkpatch.pl from $tarball"
}

# Everything present: answer in a second, without asking apt.
quick_check() {
	local s
	[ -f "$cache/deps.stamp" ] || return 1
	[ -x "$cache/busybox/busybox" ] && [ -x "$cache/checkpatch/scripts/checkpatch.pl" ] || return 1
	[ -z "$(arm64_userland_missing)" ] || return 1
	[ -f "$cache/npm/stamp" ] && cmp -s "$cache/npm/package-lock.json" \
		"$top/userspace/flamegraph/package-lock.json" || return 1
	[ -z "$(missing_pkgs $ARM64_BUILD_PKGS)" ] || return 1
	for s in $series; do
		case $s in
		*-debug) FW_CACHE=$cache "$top/scripts/build-debug-kernel.sh" --up-to-date || return 1 ;;
		*) [ -f "$cache/kernels/$s/stamp" ] || return 1 ;;
		esac
	done
	[ -z "$(missing_pkgs $HOST_PKGS)" ]
}

main() {
	if [ "${1:-}" = --quick ] && quick_check; then
		return 0
	fi
	[ "$(id -u)" = 0 ] || die "must run as root (installs Debian packages)"
	mkdir -p "$cache"
	install_pkgs "$cache/apt-install.log" $HOST_PKGS
	ensure_arm64_arch
	install_pkgs "$cache/apt-install-arm64.log" $ARM64_BUILD_PKGS
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
