#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# lib/fw_walk.h on the host, then the module's own arm64 walk (module/fw_arm64_walk.h)
# under qemu-aarch64 against it (KTAP, one document per program).
# usage: test_fw_walk.sh
# The arm64 program is built without sanitizers: their checks keep the fast path's "i"
# operand from being a constant.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=$top/build/test_fw_walk
mkdir -p "$out"
rc=0
gcc -Wall -Wextra -Werror -g -fsanitize=address,undefined -fno-sanitize-recover=all \
	-o "$out/test_fw_walk" "$here/test_fw_walk.c" && "$out/test_fw_walk" || rc=1
aarch64-linux-gnu-gcc -O2 -Wall -Wextra -Werror -g -static -I"$top/lib" \
	-o "$out/test_fw_walk_arm64" "$here/test_fw_walk_arm64.c" &&
	qemu-aarch64 "$out/test_fw_walk_arm64" || rc=1
exit $rc
