#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# apt-get or apt-cache on another Debian suite through a private configuration.
#
# usage: suite-apt.sh SUITE apt-get|apt-cache ARGS...
# The 5.10 and the newest kernels come from bullseye and sid. Adding those suites to the host's
# sources would let apt upgrade the host's own packages to them; here each suite has its own
# sources list, package lists, archive cache and an empty dpkg status under
# $FW_KERNEL_CACHE/apt/SUITE, so apt-get download and apt-cache see that suite and nothing
# else, and the host's package set stays bookworm's. The lists are fetched on first use and
# again when a lookup or download fails (the mirror moved on).
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
suite=${1:?usage: suite-apt.sh SUITE apt-get|apt-cache ARGS...}
tool=${2:?usage: suite-apt.sh SUITE apt-get|apt-cache ARGS...}
shift 2
case $suite in
bullseye|bookworm|trixie|forky|sid) ;;
*) echo "suite-apt: unknown suite '$suite'" >&2; exit 2 ;;
esac
case $tool in
apt-get|apt-cache) ;;
*) echo "suite-apt: '$tool' is neither apt-get nor apt-cache" >&2; exit 2 ;;
esac

dir=${FW_KERNEL_CACHE:-/var/cache/framewalk/kernels}/apt/$suite
# The host's own mirror, so a machine set to a local mirror uses it for the other suites too.
mirror=$(sed -n 's/^URIs: *\(http[^ ]*\/debian\)\/*$/\1/p; s/^deb *\(\[[^]]*\] *\)\{0,1\}\(http[^ ]*\/debian\)\/* .*/\2/p' \
	/etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null | head -1)
mirror=${mirror:-http://deb.debian.org/debian}
mkdir -p "$dir/lists/partial" "$dir/archives/partial" "$dir/etc"
echo "deb [arch=amd64,arm64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]" \
	"$mirror $suite main" >"$dir/etc/sources.list"
touch "$dir/status"
opts=(-o "Dir::Etc::SourceList=$dir/etc/sources.list" -o Dir::Etc::SourceParts=/dev/null
	-o "Dir::State::Lists=$dir/lists" -o "Dir::Cache=$dir" -o Dir::Cache::pkgcache=
	-o Dir::Cache::srcpkgcache= -o "Dir::State::Status=$dir/status"
	-o APT::Architectures::=amd64 -o APT::Architectures::=arm64)

update() {
	apt-get "${opts[@]}" -qq update >"$dir/update.log" 2>&1 ||
		{ echo "suite-apt: apt-get update of $suite failed: $(tail -1 "$dir/update.log")" >&2
		  exit 1; }
	date +%s >"$dir/updated"
}

[ -f "$dir/updated" ] || update
"$tool" "${opts[@]}" "$@" 2>"$dir/last.err" && exit 0
update
"$tool" "${opts[@]}" "$@"
