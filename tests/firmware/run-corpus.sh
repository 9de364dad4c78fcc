#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# run-corpus.sh - build the crash corpus, crash each case under QEMU, keep GDB's answer and the dumps.
#
# Usage: run-corpus.sh [OUTDIR]   (default: <repo>/.cache/corpus)
# Each core x flavour is built once into OUTDIR/<key>/<core>-<flavour>/, where <key> hashes the
# sources, this script and the tool versions; a rerun with nothing changed only lists the cases.
# Per case: oracle.json and core-gdb.elf (GDB stopped at the fault), core.elf and core.zephyr
# (written by the firmware's own fault handler over semihosting).
set -eu

. "$(dirname "$0")/qemu-gdb.sh"
runner_dirs corpus src "${1:-}"

# core: machine cpu-flags linker-script cases
cores=${CORPUS_CORES:-"m0 m3 m4f m33 m55"}
core_ldscript() { case $1 in m33) echo an505.ld;; *) echo mps2.ld;; esac; }
# Case numbers are enum crash_kind in src/cases.c. v6-M has no divide instruction to trap and
# microbit's Cortex-M0 neither an MPU nor a stack limit register to catch an overflow.
tick_cases="tick0:11 tick1:12 tick2:13 tick3:14 tick4:15 tick5:16 tick6:17 tick7:18"
core_cases() {
	case $1 in
	m0) echo "bus:1 undef:2 unaligned:4 invstate:5 isr:6 psp:7 alloca:10";;
	m3) echo "bus:1 undef:2 div0:3 unaligned:4 invstate:5 isr:6 psp:7 overflow:9 alloca:10";;
	m4f) echo "bus:1 undef:2 div0:3 unaligned:4 invstate:5 isr:6 psp:7 fpu:8 overflow:9 alloca:10";;
	m33) echo "bus:1 undef:2 div0:3 unaligned:4 invstate:5 isr:6 psp:7 fpu:8 overflow:9 alloca:10";;
	# ARMv8.1-M's own (src/fw.h): faults in a dls/le loop and in an MVE load, and timer
	# interrupts into a dls/le loop, each leaving a loop count in the stacked lr.
	m55) echo "bus:1 undef:2 div0:3 unaligned:4 invstate:5 isr:6 psp:7 fpu:8 overflow:9 alloca:10" \
		"lob:19 mve:20 lobtick0:21 lobtick1:22 lobtick2:23 lobtick3:24";;
	esac
	echo "$tick_cases"
}
# -O level, frame pointer or not, "-uw" for ARM EHABI unwind tables (.ARM.exidx/.extab), and
# "-clang" for LLVM's code and DWARF (Debian's clang and ld.lld, as Keil MDK 6, Zephyr's LLVM
# builds and Rust firmware have them) instead of GCC's and GNU ld's.
flavours=${CORPUS_FLAVOURS:-"O0-fp O0-nofp Os-fp Os-nofp O2-fp O2-nofp Os-fp-uw O2-nofp-uw \
	O2-nofp-clang Oz-fp-clang"}
# Cortex-M55 is built in the flavours where its loops differ: -O0 (none), GCC's and clang's
# low-overhead loops, with and without frame pointer and unwind tables.
core_flavours() {
	case $1 in
	m55) [ -n "${CORPUS_FLAVOURS:-}" ] && echo "$flavours" ||
		echo "O0-fp Os-nofp O2-fp O2-nofp O2-nofp-uw O2-nofp-clang Oz-fp-clang";;
	*) echo "$flavours";;
	esac
}
flavour_cflags() {
	o=${1%%-*}
	case $1 in
	*-nofp*) echo "-$o -fomit-frame-pointer";;
	*) echo "-$o -fno-omit-frame-pointer";;
	esac
	case $1 in
	*-uw) echo "-funwind-tables";;
	*) echo "-fno-unwind-tables -fno-asynchronous-unwind-tables";;
	esac
}

# build CORE FLAVOUR OUT: the firmware, by GCC or by clang (with clang_libs).
build() {
	case $2 in
	*-clang)
		# shellcheck disable=SC2046
		clang --target=arm-none-eabi $(core_cflags "$1") $(flavour_cflags "$2") -g \
			-ffile-prefix-map="$repo"=. -fdebug-prefix-map="$repo"=. \
			-ffreestanding -nostdlib -Wall -fuse-ld=lld -L"$src" -Wl,--build-id=sha1 \
			-T "$src/$(core_ldscript "$1")" "$src/start.S" "$src/crash.c" "$src/cases.c" \
			$(clang_libs "$1") -o "$3";;
	*)
		# shellcheck disable=SC2046
		arm-none-eabi-gcc $(core_cflags "$1") $(flavour_cflags "$2") -g \
			-ffile-prefix-map="$repo"=. -fdebug-prefix-map="$repo"=. \
			-ffreestanding -nostdlib -Wall -L"$src" -Wl,--build-id=sha1 \
			-T "$src/$(core_ldscript "$1")" \
			"$src/start.S" "$src/crash.c" "$src/cases.c" -lgcc -o "$3";;
	esac
}

key=$( (cat "$src"/* "$0" "$here/oracle.py" "$here/qemu-gdb.sh"; arm-none-eabi-gcc --version;
	clang --version; qemu-system-arm --version) | sha256sum | cut -c1-16)
base=$out/$key
mkdir -p "$base"
# Corpora of older sources are dead weight: keep only this key.
find "$out" -mindepth 1 -maxdepth 1 -type d ! -name "$key" -exec rm -rf {} +

# A TCP port of our own: other QEMU instances may hold the default 1234.
port=${CORPUS_PORT:-$((20000 + $$ % 20000))}

run_case() {	# case-dir machine case-number breakpoint [gdb-commands...]
	cdir=$1
	m=$2
	nr=$3
	bp=$4
	shift 4
	rm -f "$cdir/core.elf" "$cdir/core.zephyr" "$cdir/core-gdb.elf" "$cdir/oracle.json"
	# The limit is for a hang: the overflow cases stop GDB at every call for its Python, and a
	# clean-clone make check at load 20-30 took more than 15 s for them three times running.
	qemu_gdb "$cdir" "$m" 60 -ex "set stack-cache off" -ex "set backtrace past-main on" \
		-ex "source $here/oracle.py" -ex "set var crash_case = $nr" "$@" \
		-ex "break *$bp" -ex "continue" -ex "python oracle_frames('oracle.json')" \
		-ex "gcore core-gdb.elf"
	if [ ! -s "$cdir/oracle.json" ] || [ ! -s "$cdir/core.zephyr" ] ||
	   [ ! -s "$cdir/core-gdb.elf" ]; then
		echo "run-corpus: $cdir: no oracle or no dump on port $port (see gdb.log, qemu.log)" >&2
		return 1
	fi
}

status=0
for core in $cores; do
	for fl in $(core_flavours "$core"); do
		d=$base/$core-$fl
		if build_once "$d" "$core" "$fl"; then
			arm-none-eabi-strip --strip-debug -o "$d/fw-nodwarf.elf" "$d/fw.elf"
			for c in $(core_cases "$core"); do
				name=${c%%:*}
				# GDB cannot see PSP through QEMU's stub: stop it in the thread instead.
				bp=hardfault_entry
				[ "$name" = psp ] && bp=fault_undef
				# The overflow destroys its own state: GDB's answer is the last entry.
				track=
				[ "$name" = overflow ] && track="python track_entries('overflow')"
				mkdir -p "$d/$name"
				on_free_port run_case "$d/$name" "$(core_machine "$core")" "${c#*:}" \
					"$bp" ${track:+-ex "$track"} || status=1
			done
			[ $status -eq 0 ] && touch "$d/.done"
		fi
		for c in $(core_cases "$core"); do
			echo "$core $fl ${c%%:*} $d/${c%%:*}"
		done
	done
done
exit $status
