#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# version.sh [HEADER] - the project's version for --version: `git describe --always --dirty`
# in a git checkout, else module/dkms.conf's PACKAGE_VERSION (a release tarball). With HEADER,
# write it there as FW_VERSION, only when it changed, so make rebuilds on a new version alone.
top=$(cd "$(dirname "$0")/.." && pwd)
v=$(git -C "$top" describe --always --dirty 2>/dev/null) ||
	v=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$top/module/dkms.conf")
[ -n "$v" ] || v=unknown
if [ -z "${1:-}" ]; then
	echo "$v"
	exit 0
fi
line="#define FW_VERSION \"$v\""
[ "$(cat "$1" 2>/dev/null)" = "$line" ] && exit 0
mkdir -p "$(dirname "$1")" && echo "$line" >"$1"
