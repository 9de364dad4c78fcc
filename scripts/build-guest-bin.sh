#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Cross-build the static arm64 helper programs the guest tests run (build/arm64/bin).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/arm64/bin
mkdir -p "$out"
cc=${CROSS_COMPILE:-aarch64-linux-gnu-}gcc
for src in "$top"/selftests/framewalk/fw_insmod.c; do
	bin=$out/$(basename "$src" .c)
	[ "$bin" -nt "$src" ] && continue
	$cc -static -O2 -Wall -Wextra -Werror -o "$bin" "$src"
done
