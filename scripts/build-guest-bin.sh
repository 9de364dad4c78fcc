#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Cross-build the arm64 programs the guest runs (build/arm64/bin): the static
# test helpers, and crashwalk, linked against Debian's arm64 libdw, libelf and
# capstone (the -dev:arm64 packages of deps.sh) and run on the shared
# libraries deps.sh unpacks into .cache/arm64-root.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/arm64/bin
mkdir -p "$out"
cross=${CROSS_COMPILE:-aarch64-linux-gnu-}
cc=${cross}gcc
for src in "$top"/selftests/framewalk/fw_insmod.c "$top"/selftests/framewalk/fw_fail_window.c; do
	bin=$out/$(basename "$src" .c)
	[ "$bin" -nt "$src" ] && continue
	$cc -static -O2 -Wall -Wextra -Werror -o "$bin" "$src"
done
# test_user.sh's programs with known user chains: with frame records and without
# (-fomit-frame-pointer), each dynamic (on the guest's glibc) and static.
src=$top/selftests/framewalk/fw_user_prog.c
for v in "fp:" "nofp:-fomit-frame-pointer"; do
	for link in "" "-static"; do
		bin=$out/fw_user_${v%%:*}${link:+_static}
		[ "$bin" -nt "$src" ] && continue
		$cc -O2 ${v#*:} $link -pthread -Wall -Wextra -Werror -o "$bin" "$src"
	done
done
# The same with debug info, dynamic: test_user_symbols.sh names its frames with file:line.
bin=$out/fw_user_fp_g
if ! [ "$bin" -nt "$src" ]; then
	$cc -O2 -g -pthread -Wall -Wextra -Werror -o "$bin" "$src"
fi
# The analyzer's own Makefile, in a build directory of its own: make decides what is stale.
make -s -C "$top/analyzer" O="$top/build/arm64/analyzer" CC="$cc" AR="${cross}ar" \
	"$top/build/arm64/analyzer/crashwalk"
"${cross}strip" -o "$out/crashwalk.new" "$top/build/arm64/analyzer/crashwalk"
mv "$out/crashwalk.new" "$out/crashwalk"
