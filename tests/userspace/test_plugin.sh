#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# plugin_framewalk.so (make host's build under ASan and UBSan) on hand-made framewalk:chain
# events, as today's module and older ones describe them, and chain_user events with maps=:
# test_plugin.c, built under ASan and UBSan too (KTAP). maps= reads a trace.dat through trace-cmd dump: a
# stand-in first in PATH prints the dump's text test_plugin.c gives it as the file.
# usage: test_plugin.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=$top/build/test_plugin
mkdir -p "$out/bin"
cat >"$out/bin/trace-cmd" <<'EOF'
#!/bin/sh
[ "$1 $2 $3" = "dump --options -i" ] && [ $# = 4 ] && exec cat "$4"
echo "stand-in trace-cmd: unexpected arguments: $*" >&2
exit 1
EOF
chmod +x "$out/bin/trace-cmd"
export PATH=$out/bin:$PATH
gcc -Wall -Wextra -Werror -g -fsanitize=address,undefined \
	$(pkg-config --cflags libtraceevent) -o "$out/test_plugin" \
	"$here/test_plugin.c" $(pkg-config --libs libtraceevent) -ldl &&
	"$out/test_plugin" "$top/build/host/plugins-asan/plugin_framewalk.so"
