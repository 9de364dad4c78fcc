#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# version.sh [HEADER] - the project's version for --version: the release in VERSION (which
# module/dkms.conf, MODULE_VERSION and debian/changelog repeat), followed in a git checkout of
# this tree by `git describe --always --dirty`, e.g. 0.1+g23685ce-dirty. A copy outside git (a
# package build, a tarball) says the release alone. With HEADER, write it there as FW_VERSION,
# only when it changed, so make rebuilds on a new version alone.
top=$(cd "$(dirname "$0")/.." && pwd)
v=$(cat "$top/VERSION" 2>/dev/null)
[ -n "$v" ] || v=unknown
# Only this tree's own repository: a copy inside another checkout must not take its commit.
if [ "$(git -C "$top" rev-parse --show-toplevel 2>/dev/null)" = "$top" ]; then
	g=$(git -C "$top" describe --always --dirty 2>/dev/null) && v="$v+g$g"
fi
if [ -z "${1:-}" ]; then
	echo "$v"
	exit 0
fi
line="#define FW_VERSION \"$v\""
[ "$(cat "$1" 2>/dev/null)" = "$line" ] && exit 0
mkdir -p "$(dirname "$1")" && echo "$line" >"$1"
