#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Cross-build every kernel module of the project against one cached kernel series.
#
# Kbuild writes objects next to the sources, so each series builds in its own
# copy of the tree (build/<series>/src); the .ko files land in build/<series>/ko.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
series=${1:?usage: build-modules.sh SERIES}
kdir=$top/.cache/kernels/$series/build
out=$top/build/$series
# What this kernel's module builds add on this host (scripts/fetch-kernel.sh): unstable's
# headers name a compiler and flags bookworm does not have.
extra=$(cat "$top/.cache/kernels/$series/make-args" 2>/dev/null || true)

[ -d "$kdir" ] || { echo "build-modules: no kernel $series in .cache (run make deps)" >&2; exit 1; }
mkdir -p "$out/src" "$out/ko"
# -c: compare contents, so unchanged files keep their timestamps and stay built.
rsync -a -c --delete --exclude '*.o' --exclude '*.ko' --exclude '.*.cmd' --exclude '*.mod*' \
	--exclude 'modules.order' --exclude 'Module.symvers' --exclude '.tmp*' \
	--include '/Kbuild' --include '/lib/***' --include '/module/***' \
	--include '/selftests/' --include '/selftests/framewalk/' \
	--include '/selftests/framewalk/test_modules/***' --include '/bench/' \
	--include '/bench/Kbuild' --include '/bench/*.[ch]' --exclude '*' \
	"$top/" "$out/src/"
# Debian's build trees have no vmlinux: Kbuild says so for each module ("Skipping BTF
# generation"), which is only noise here; V=1 shows it.
set -o pipefail
make -s -C "$kdir" M="$out/src" ARCH=arm64 CROSS_COMPILE=${CROSS_COMPILE:-aarch64-linux-gnu-} \
	KCFLAGS="-Werror" W=1 $extra modules 2>&1 |
	if [ "${V:-0}" = 1 ]; then cat; else { grep -v '^ *Skipping BTF generation' || true; }; fi
find "$out/src" -name '*.ko' -exec cp {} "$out/ko/" \;
echo "build-modules: $series: $(cd "$out/ko" && echo *.ko)"
