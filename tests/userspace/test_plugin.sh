#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# plugin_framewalk.so (make host's build under ASan and UBSan) on hand-made framewalk:chain
# events, as today's module and older ones describe them, and a chain_user event, whose user
# frames stay addresses: test_plugin.c, built under ASan and UBSan too (KTAP).
# usage: test_plugin.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=$top/build/test_plugin
mkdir -p "$out"
gcc -Wall -Wextra -Werror -g -fsanitize=address,undefined \
	$(pkg-config --cflags libtraceevent) -o "$out/test_plugin" \
	"$here/test_plugin.c" $(pkg-config --libs libtraceevent) -ldl &&
	"$out/test_plugin" "$top/build/host/plugins-asan/plugin_framewalk.so"
