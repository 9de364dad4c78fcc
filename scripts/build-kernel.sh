#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Cross-build one of the guest kernels made here from Debian's kernel source.
#
# usage: build-kernel.sh SERIES [--up-to-date]
#   SERIES        6.12-debug: linux-source-6.12 with KASAN, lockdep, kmemleak, a shadow call
#                 stack and the other debug checks;
#                 5.10-mcount: bullseye's linux-source-5.10 with the -pg/_mcount ftrace hook
#                 and 16K pages
#   --up-to-date  only answer: exit 0 when the cached kernel matches its config and source
# Each config is scripts/kernel-configs/SERIES.config applied on allnoconfig. The result lands
# in $FW_KERNEL_CACHE/SERIES like a Debian kernel: vmlinuz, System.map, config, release and
# build/, the tree external modules build against. It is rebuilt only when the key in its
# stamp changes: the config's hash, the source package's version and the cross compiler's
# version. The cache is outside the work tree, so a fresh clone on the same machine (CI) finds
# it. The build's wall and CPU times go to build-time.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
kcache=${FW_KERNEL_CACHE:-/var/cache/framewalk/kernels}
series=${1:?usage: build-kernel.sh SERIES [--up-to-date]}
fragment=$top/scripts/kernel-configs/$series.config
dest=$kcache/$series
cross=${CROSS_COMPILE:-aarch64-linux-gnu-}

die() { echo "build-kernel: $series: error: $*" >&2; exit 1; }
log() { echo "build-kernel: $series: $*" >&2; }

[ -f "$fragment" ] || die "no config $fragment (built here: 6.12-debug, 5.10-mcount)"
case $series in
6.12-debug)
	srcpkg=linux-source-6.12
	srcver=$(dpkg-query -W -f='${Version}' $srcpkg 2>/dev/null) ||
		die "$srcpkg is not installed (make deps)"
	;;
5.10-mcount)
	# From bullseye through the private apt configuration, never installed on the host.
	srcpkg=linux-source-5.10
	srcver=$("$top/scripts/suite-apt.sh" bullseye apt-cache show --no-all-versions $srcpkg |
		sed -n 's/^Version: //p' | head -1)
	[ -n "$srcver" ] || die "bullseye has no $srcpkg"
	;;
*) die "unknown series (built here: 6.12-debug, 5.10-mcount)" ;;
esac
key="config $(sha256sum <"$fragment" | cut -c1-16) source $srcver gcc $("${cross}gcc" -dumpversion)"

up_to_date() {
	[ -f "$dest/stamp" ] && [ "$(cat "$dest/stamp")" = "$key" ]
}
if [ "${2:-}" = --up-to-date ]; then
	up_to_date
	exit
fi
# Work trees and clones share the cache: a second build waits for the first, then finds its
# result.
mkdir -p "$kcache"
exec 9>"$kcache/$series.lock"
flock 9
if up_to_date; then
	log "up to date ($key)"
	exit 0
fi

# The source tarball: the installed package's on the host, a downloaded one's otherwise.
tarball_of() {
	local debdir=$kcache/src
	case $series in
	6.12-debug)
		[ -f /usr/src/$srcpkg.tar.xz ] ||
			die "/usr/src/$srcpkg.tar.xz missing ($srcpkg $srcver installed without it?)"
		echo /usr/src/$srcpkg.tar.xz ;;
	*)
		mkdir -p "$debdir"
		if ! ls "$debdir/${srcpkg}_${srcver}_all.deb" >/dev/null 2>&1; then
			log "downloading $srcpkg $srcver (bullseye)"
			(cd "$debdir" && "$top/scripts/suite-apt.sh" bullseye apt-get download -qq \
				"$srcpkg=$srcver") >&2 || die "cannot download $srcpkg $srcver"
		fi
		echo "$debdir/${srcpkg}_${srcver}_all.deb" ;;
	esac
}

# An interrupted build of the same key goes on where it stopped (Kbuild redoes only what is
# out of date); any other is started afresh.
work=$kcache/$series.work
rm -rf "$dest" "$dest.tmp"
if [ "$(cat "$work/key" 2>/dev/null)" = "$key" ] && [ -f "$work/unpacked" ]; then
	log "resuming the build in $work ($key)"
else
	log "building from $srcpkg $srcver ($key)"
	rm -rf "$work"
	mkdir -p "$work/obj"
	echo "$key" >"$work/key"
	tarball=$(tarball_of)
	case $tarball in
	*.deb) dpkg-deb --fsys-tarfile "$tarball" | tar -xO "./usr/src/$srcpkg.tar.xz" |
		tar -xJ -C "$work" || die "cannot unpack $srcpkg from $tarball" ;;
	*) tar -xJf "$tarball" -C "$work" || die "cannot unpack $tarball" ;;
	esac
	touch "$work/unpacked"
fi
start=$(date +%s)
src=$(echo "$work"/linux-source-*)

# 5.10 chooses the patchable-function-entry hook whenever the compiler takes
# -fpatchable-function-entry=2; a compiler that refuses it gets the -pg/_mcount hook, as every
# arm64 kernel before 5.5 and every compiler without the flag has.
cc=${cross}gcc
if [ "$series" = 5.10-mcount ]; then
	cc=$work/gcc-without-patchable-entry
	cat >"$cc" <<-EOF
	#!/bin/sh
	for a; do case \$a in -fpatchable-function-entry*) exit 1 ;; esac; done
	exec ${cross}gcc "\$@"
	EOF
	chmod +x "$cc"
fi
kmake() {
	make -s -C "$src" O="$work/obj" ARCH=arm64 CROSS_COMPILE="$cross" CC="$cc" "$@"
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
	make -s -C "$src" O="$work/obj" ARCH=arm64 CROSS_COMPILE="$cross" CC="$cc" -j"$(nproc)" \
	Image modules || die "kernel build failed"

mkdir -p "$dest.tmp"
cp "$work/obj/.config" "$dest.tmp/config"
cp "$work/obj/arch/arm64/boot/Image" "$dest.tmp/vmlinuz"
cp "$work/obj/System.map" "$dest.tmp/System.map"
cat "$work/obj/include/config/kernel.release" >"$dest.tmp/release"
if [ -f "$src/scripts/package/install-extmod-build" ]; then
	# What external modules build against; CC=HOSTCC keeps the host tools built for this host.
	(cd "$work/obj" && srctree=$src SRCARCH=arm64 CC=gcc HOSTCC=gcc MAKE=make \
		sh "$src/scripts/package/install-extmod-build" "$dest.tmp/build") ||
		die "install-extmod-build failed"
	cp "$work/obj/.config" "$dest.tmp/build/.config"
	mv "$work/times" "$dest.tmp/times"
	rm -rf "$work"
else
	# 5.10 has no install-extmod-build: external modules build in the output tree, which
	# names the source by its absolute path, so both stay where they are, less the objects.
	find "$work/obj" -name '*.o' -delete
	ln -s "$work/obj" "$dest.tmp/build"
	cp "$work/times" "$dest.tmp/times"
fi
read -r wall user sys <"$dest.tmp/times"
total=$(($(date +%s) - start))
echo "total ${total}s (this run), make wall ${wall}s user ${user}s sys ${sys}s on $(nproc) cpus" \
	>"$dest.tmp/build-time"
echo "$key" >"$dest.tmp/stamp"
mv "$dest.tmp" "$dest"
log "done: $(cat "$dest/release"), $(cat "$dest/build-time")"
