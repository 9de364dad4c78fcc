#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# test_bundled.sh - the firmware examples shipped in tests/firmware/bundled carry no
# build-machine path, and each is the build of today's sources: byte for byte the ELF
# run-corpus.sh / run-rtos.sh make (their dumps then still fit, and file:line of the
# demo points into the sources the tree ships).
# Usage: test_bundled.sh BUNDLED_DIR (after the corpus and the RTOS builds exist)
set -u
b=$(cd "$1" && pwd)
fw=$(cd "$b/.." && pwd)
top=$(cd "$fw/../.." && pwd)
. "$top/tests/ktap.sh"

ktap_header
ktap_note "suite: crashwalk-bundled"

# The build directory of one core and flavour (or kernel), from a script's case listing.
build_dir() {	# script core flavour
	"$fw/$1" 2>/dev/null | awk -v c="$2" -v f="$3" '$1 == c && $2 == f { print $4; exit }' |
		xargs -r dirname
}

for pair in "demo.elf run-corpus.sh m3 O2-fp" \
	"rtos-m4f-freertos.elf run-rtos.sh m4f freertos" \
	"rtos-m33-zephyr.elf run-rtos.sh m33 zephyr"; do
	set -- $pair
	elf=$b/$1
	# An absolute directory in the DWARF (a compilation directory, a source or include
	# path) or in the symbols names the machine that built it; the toolchain's own
	# header directory is the same on every machine with the package.
	paths=$( (arm-none-eabi-readelf --debug-dump=info,line "$elf" 2>/dev/null;
		arm-none-eabi-nm -a "$elf") |
		grep -oE '(^|[^.A-Za-z0-9_+-])/[A-Za-z0-9_.+-]+(/[A-Za-z0-9_.+-]+)+' |
		sed 's/^[^/]//' | grep -v '^/usr/lib/gcc/arm-none-eabi/' | sort -u | head -5)
	dirs=$(arm-none-eabi-readelf --debug-dump=info "$elf" | grep -c 'DW_AT_comp_dir.*: \.')
	[ "$dirs" -gt 0 ] && [ -z "$paths" ]
	ktap_result $? "$1: no build-machine path in its DWARF or symbols ($dirs relative compilation directories)${paths:+: $(echo $paths)}"
	d=$(build_dir "$2" "$3" "$4")
	[ -n "$d" ] && cmp -s "$elf" "$d/fw.elf"
	ktap_result $? "$1 is $2's $3 $4 build of today's sources${d:+ ($d/fw.elf)}"
done
ktap_done
