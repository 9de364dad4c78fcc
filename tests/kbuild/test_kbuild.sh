#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kernel modules (framewalk.ko, the selftests' test modules, the benchmark) build
# against one kernel with W=1 and -Werror (scripts/build-modules.sh), and the build says
# nothing: a compiler warning already fails it, modpost's warnings (a missing
# MODULE_DESCRIPTION, a section mismatch...) do not, so they are looked for in its output.
# One KTAP result.
# usage: test_kbuild.sh KERNEL   (a series of make deps' cache: 6.12, 5.10-mcount...)
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/ktap.sh"
k=${1:?usage: test_kbuild.sh KERNEL}
ktap_header 1
out=$(V=0 "$top/scripts/build-modules.sh" "$k" 2>&1)
rc=$?
echo "$out" | sed 's/^/# /'
warnings=$(echo "$out" | grep -ciE 'warning|error')
[ "$rc" = 0 ] || ktap_note "build-modules.sh exited with status $rc"
[ "$warnings" = 0 ] || ktap_note "$warnings line(s) of warnings or errors"
[ "$rc" = 0 ] && [ "$warnings" = 0 ]
ktap_result $? "modules build against $k with W=1 and -Werror, without a warning"
ktap_done
