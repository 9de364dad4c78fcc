#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Cross-build the 6.12-debug guest kernel (KASAN, lockdep, ...) from Debian's linux-source-6.12.
#
# usage: build-debug-kernel.sh [--up-to-date]
#   --up-to-date  only answer: exit 0 when the cached kernel matches the config and source
# The config is scripts/debug-kernel.config applied on allnoconfig. The result lands in
# .cache/kernels/6.12-debug like a Debian kernel: vmlinuz, System.map, config, release, and
# build/, the tree external modules build against (the kernel's install-extmod-build). It is
# rebuilt only when the key in its stamp changes: the config's hash, the source package's
# version and the cross compiler's version. The build's wall and CPU times go to build-time.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${FW_CACHE:-$top/.cache}
fragment=$top/scripts/debug-kernel.config
tarball=/usr/src/linux-source-6.12.tar.xz
dest=$cache/kernels/6.12-debug
cross=${CROSS_COMPILE:-aarch64-linux-gnu-}

die() { echo "build-debug-kernel: error: $*" >&2; exit 1; }
log() { echo "build-debug-kernel: $*" >&2; }

srcver=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null) ||
	die "linux-source-6.12 is not installed (make deps)"
[ -f "$tarball" ] || die "$tarball missing (linux-source-6.12 $srcver installed without it?)"
key="config $(sha256sum <"$fragment" | cut -c1-16) source $srcver gcc $("${cross}gcc" -dumpversion)"

up_to_date() {
	[ -f "$dest/stamp" ] && [ "$(cat "$dest/stamp")" = "$key" ]
}
if [ "${1:-}" = --up-to-date ]; then
	up_to_date
	exit
fi
# Worktrees share .cache: a second build waits for the first, then finds its result.
mkdir -p "$cache/kernels"
exec 9>"$cache/kernels/6.12-debug.lock"
flock 9
if up_to_date; then
	log "up to date ($key)"
	exit 0
fi

# An interrupted build of the same key goes on where it stopped (Kbuild redoes only what is
# out of date); any other is started afresh.
work=$cache/kernels/6.12-debug.work
rm -rf "$dest" "$dest.tmp"
if [ "$(cat "$work/key" 2>/dev/null)" = "$key" ] && [ -f "$work/unpacked" ]; then
	log "resuming the build in $work ($key)"
else
	log "building from linux-source-6.12 $srcver ($key)"
	rm -rf "$work"
	mkdir -p "$work/obj"
	echo "$key" >"$work/key"
	tar -xJf "$tarball" -C "$work" || die "cannot unpack $tarball"
	touch "$work/unpacked"
fi
start=$(date +%s)
src=$(echo "$work"/linux-source-*)
kmake() {
	make -s -C "$src" O="$work/obj" ARCH=arm64 CROSS_COMPILE="$cross" "$@"
}
kmake KCONFIG_ALLCONFIG="$fragment" allnoconfig
kmake olddefconfig

# Kconfig drops an option whose dependencies are unmet without a word: compare every line.
missing=$(sed -n 's/^\(CONFIG_[A-Z0-9_]*\)=\(.*\)$/\1=\2/p; s/^# \(CONFIG_[A-Z0-9_]*\) is not set$/\1=n/p' \
	"$fragment" | while IFS== read -r opt want; do
		have=$(sed -n "s/^$opt=\(.*\)$/\1/p" "$work/obj/.config")
		[ "${have:-n}" = "$want" ] || echo "$opt=$want (got ${have:-n})"
	done)
[ -z "$missing" ] || die "Kconfig dropped options of $fragment:" $missing

# /usr/bin/time: user and sys times count the compilers' children, which bash's `time` in a
# pipeline does not make easy to read back.
/usr/bin/time -f '%e %U %S' -o "$work/times" \
	make -s -C "$src" O="$work/obj" ARCH=arm64 CROSS_COMPILE="$cross" -j"$(nproc)" Image modules ||
	die "kernel build failed"

# What external modules build against; CC=HOSTCC keeps the host tools built for this host.
mkdir -p "$dest.tmp"
(cd "$work/obj" && srctree=$src SRCARCH=arm64 CC=gcc HOSTCC=gcc MAKE=make \
	sh "$src/scripts/package/install-extmod-build" "$dest.tmp/build") ||
	die "install-extmod-build failed"
cp "$work/obj/.config" "$dest.tmp/build/.config"
cp "$work/obj/.config" "$dest.tmp/config"
cp "$work/obj/arch/arm64/boot/Image" "$dest.tmp/vmlinuz"
cp "$work/obj/System.map" "$dest.tmp/System.map"
cat "$work/obj/include/config/kernel.release" >"$dest.tmp/release"
read -r wall user sys <"$work/times"
total=$(($(date +%s) - start))
echo "total ${total}s (this run), make wall ${wall}s user ${user}s sys ${sys}s on $(nproc) cpus" \
	>"$dest.tmp/build-time"
echo "$key" >"$dest.tmp/stamp"
mv "$dest.tmp" "$dest"
rm -rf "$work"
log "done: $(cat "$dest/release"), $(cat "$dest/build-time"), build tree $(du -sh "$dest/build" | cut -f1)"
