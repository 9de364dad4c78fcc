# SPDX-License-Identifier: GPL-2.0
# qemu-gdb.sh - sourced by the firmware runners: crash one case under QEMU with GDB attached.
#
# Both runners set $port, a TCP port of their own.

# runner_dirs NAME SOURCES [OUTDIR]: $here (tests/firmware), $repo, $src (here/SOURCES) and
# $out, OUTDIR or the tree's .cache/NAME, made and absolute.
runner_dirs() {
	here=$(cd "$(dirname "$0")" && pwd)
	repo=$(cd "$here/../.." && pwd)
	src=$here/$2
	out=${3:-$repo/.cache/$1}
	mkdir -p "$out"
	out=$(cd "$out" && pwd)
}

# build_once DIR CORE VARIANT: DIR/fw.elf built afresh by the runner's build(), unless DIR
# holds a finished run (DIR/.done): status 0 when it built, and the caller runs the cases.
# A failed build ends the runner.
build_once() {
	[ -f "$1/.done" ] && return 1
	rm -rf "$1"
	mkdir -p "$1"
	# Source paths relative to the tree, as the bundled examples ship them (GCC 12
	# hands only -fdebug-prefix-map on to the assembler, for start.S), built from
	# the tree's top so that the same sources give the same bytes from any caller.
	(cd "$repo" && build "$2" "$3" "$1/fw.elf") || {
		echo "$(basename "$0"): $1: the build failed" >&2
		exit 1
	}
}

# The cores both runners build for: QEMU's board, and the compiler's flags.
core_machine() {
	case $1 in
	m0) echo microbit;; m3) echo mps2-an385;; m4f) echo mps2-an386;; m33) echo mps2-an505;;
	m55) echo mps3-an547;;
	esac
}
core_cflags() {
	case $1 in
	m0) echo "-mcpu=cortex-m0 -mthumb";;
	m3) echo "-mcpu=cortex-m3 -mthumb";;
	m4f) echo "-mcpu=cortex-m4 -mthumb -mfpu=fpv4-sp-d16 -mfloat-abi=hard";;
	m33) echo "-mcpu=cortex-m33 -mthumb -mfpu=fpv5-sp-d16 -mfloat-abi=hard";;
	# ARMv8.1-M with MVE and its FPU (GCC's default for the core): low-overhead loops keep
	# their count in lr, and vectorized loops use MVE.
	m55) echo "-mcpu=cortex-m55 -mthumb -mfloat-abi=hard";;
	esac
}
# clang_libs CORE: what a clang build links, GCC's multilib newlib (for the __aeabi_mem*
# helpers clang calls) and libgcc for the same core and float ABI.
clang_libs() {
	# shellcheck disable=SC2046
	echo "$(arm-none-eabi-gcc $(core_cflags "$1") -print-file-name=libc.a)" \
		"$(arm-none-eabi-gcc $(core_cflags "$1") -print-libgcc-file-name)"
}

# qemu_gdb CASE-DIR MACHINE SECONDS [GDB-ARGS...]: boot CASE-DIR/../fw.elf stopped, attach GDB,
# run GDB-ARGS, then let the firmware finish (its fault handler writes the dumps into CASE-DIR).
qemu_gdb() {
	cdir=$1
	machine=$2
	secs=$3
	shift 3
	# -icount: a run is a function of the firmware alone, so timer interrupts and
	# RTOS preemptions land on the same instruction every time and a cached
	# corpus equals a fresh one.
	( cd "$cdir" &&
	  timeout "$secs" qemu-system-arm -M "$machine" -nographic -monitor none -serial none \
		-icount shift=0,align=off,sleep=off \
		-semihosting-config enable=on,target=native -kernel ../fw.elf \
		-S -gdb tcp:127.0.0.1:$port >qemu.log 2>&1 &
	  sleep 0.3
	  cd "$cdir" && timeout "$secs" gdb-multiarch -batch -nx ../fw.elf \
		-ex "set pagination off" -ex "set confirm off" \
		-ex "target remote 127.0.0.1:$port" "$@" \
		-ex "delete" -ex "continue" >gdb.log 2>&1 || true
	  wait ) || true
}

# on_free_port COMMAND...: a port another program took makes a run fail; retry on the next
# ports, three tries in all.
on_free_port() {
	tries=0
	until "$@"; do
		tries=$((tries + 1))
		port=$((port + 1))
		[ $tries -lt 3 ] || return 1
	done
}
