#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# run-rtos.sh - build the multi-thread firmware, crash each case under QEMU, keep GDB's per-thread answer.
#
# Usage: run-rtos.sh [OUTDIR]   (default: <repo>/.cache/rtos)
# Each core x kernel shape is built once into OUTDIR/<key>/<core>-<kernel>/, where <key> hashes
# rtos/, the fault handler it links from src/, this script, the oracle and the tool versions; a
# rerun with nothing changed only lists the cases. Per case: oracle.json (GDB, every thread),
# core.elf and core.zephyr (written by the firmware's fault handler, src/crash.c).
set -eu

. "$(dirname "$0")/qemu-gdb.sh"
runner_dirs rtos rtos "${1:-}"

cores=${RTOS_CORES:-"m0 m3 m4f m33"}
# Variants built on one core each: freertos-noend, FreeRTOS without configRECORD_STACK_HIGH_ADDRESS
# (no pxEndOfStack), on M4F; freertos-retaddr, FreeRTOS whose configTASK_RETURN_ADDRESS names an
# application function instead of prvTaskExitError, on M3; freertos-integrity, FreeRTOS with
# configUSE_LIST_DATA_INTEGRITY_CHECK_BYTES (check words around every list and list item), on M3.
# threadx, the ThreadX-shaped kernel, and nuttx, the NuttX-shaped one, on M3 and M4F (their v8-M
# ports differ); nuttx-nois, NuttX without an interrupt stack (CONFIG_ARCH_INTERRUPTSTACK 0, its
# default: tasks and handlers on the MSP), on M3 and M4F. rtthread, the RT-Thread-shaped kernel, on
# every core (its cortex-m0, -m3, -m4 and -m33 ports). rtx5, the RTX5-shaped kernel, on every core
# (irq_armv6m, irq_armv7m with and without FP, irq_armv8mml). ucos3 and ucos2, the µC/OS-III- and
# µC/OS-II-shaped kernels, on every core (the ARMv6-M and ARMv7-M GNU ports).
# zephyr-guard, Zephyr with CONFIG_MPU_STACK_GUARD (an MPU region over the running thread's guard
# instead of the check at each switch), on M3: its overflow fails the exception's own stacking.
# Each kernel's "-clang" build is the same sources built by Debian's clang 14 and ld.lld (with
# GCC's multilib libgcc and newlib for the same core), on the cores named below.
kernels=${RTOS_KERNELS:-"freertos zephyr zephyr-guard liteos freertos-noend freertos-retaddr freertos-integrity threadx nuttx nuttx-nois freertos-clang threadx-clang rtthread rtx5 ucos3 ucos2"}
variant_core() {
	case $1 in
	freertos-clang) case $2 in m0|m3|m33) echo "$2";; esac;;
	threadx-clang) [ "$2" = m3 ] && echo m3;;
	freertos-noend) echo m4f;;
	freertos-retaddr|freertos-integrity|zephyr-guard) echo m3;;
	threadx|nuttx|nuttx-nois) [ "$2" != m33 ] && echo "$2" || echo none;;
	*) echo "$2";;
	esac
}
# LiteOS-M's Cortex-M port is the cortex-m4 one (M3 and M4F here; its M33 port is another shape).
core_kernels() {
	# microbit's Cortex-M0 (16K of RAM) runs the FreeRTOS-shaped kernel, ARM_CM0's shape, and
	# the RT-Thread-shaped one, its cortex-m0 port's.
	for k in $kernels; do
		case $1-$k in m0-freertos|m0-freertos-clang|m0-rtthread|m0-rtx5|m0-ucos*) ;; m0-*) continue;; esac
		if [ "$(variant_core "$k" "$1")" = "$1" ] && { [ "$k" != liteos ] || [ "$1" != m33 ]; }; then
			echo "$k"
		fi
	done
}
kernel_source() { echo "${1%%-*}"; }
core_ldscript() { case $1 in m0) echo microbit.ld;; m33) echo an505.ld;; *) echo mps2.ld;; esac; }
# The FreeRTOS port whose context layout the build follows: the oracle reads it the same way.
core_port() { case $1 in m0) echo cm0;; m3) echo cm3;; m4f) echo cm4f;; m33) echo cm33;; esac; }
kernel_cflags() {
	case $1 in
	zephyr) echo "-DKERNEL_ZEPHYR";;
	zephyr-guard) echo "-DKERNEL_ZEPHYR -DCONFIG_MPU_STACK_GUARD";;
	threadx) echo "-DKERNEL_THREADX";;
	liteos) echo "-DKERNEL_LITEOS";;
	rtthread) echo "-DKERNEL_RTTHREAD";;
	# RTX's SysTick_Handler is the port's (port.S), ending in its SVC_Context.
	rtx5) echo "-DKERNEL_RTX5 -Wl,--wrap=systick_handler";;
	ucos2) echo "-DKERNEL_UCOS -DKERNEL_UCOS2";;
	ucos3) echo "-DKERNEL_UCOS -DKERNEL_UCOS3";;
	# NuttX's tick goes through exception_direct (kernel_nuttx.c), not board.c's handler: the
	# vector table's reference is wrapped, so board.c and the other builds stay as they are.
	nuttx) echo "-DKERNEL_NUTTX -Wl,--wrap=systick_handler";;
	# Its fault handler runs above the dumped RAM (kernel_nuttx.c): crash_handler is wrapped.
	nuttx-nois) echo "-DKERNEL_NUTTX -DNUTTX_NO_INTSTACK -Wl,--wrap=systick_handler" \
		"-Wl,--wrap=crash_handler";;
	freertos-noend) echo "-DRTOS_NO_END_OF_STACK";;
	freertos-retaddr) echo "-DRTOS_TASK_RETURN";;
	freertos-integrity) echo "-DRTOS_LIST_INTEGRITY";;
	esac
}
# Case numbers are enum rtos_case in rtos/app.c. "isr" (the tick's work faults on the interrupt
# stack) on Zephyr, whose interrupt stack is a stack object no thread names, on ThreadX, whose
# interrupts run on the main stack where the scheduler's start left a stale frame, and on
# LiteOS-M, whose main stack keeps main()'s frames under the interrupt's, and on NuttX, whose
# exception_direct saves nothing: only the hardware frame holds the thread's context. "panic" (the
# crasher calls k_panic(): the svc path, whose coredump records no stack pointer) on Zephyr only.
# "fpu" (the fpu thread faults with its FP state live: a lazy extended frame) on M4F only.
# "nullcall" (the crasher calls through a NULL function pointer: pc 0, the caller in lr).
# "stale" (the crasher faults above the context its kernel saved at its last switch, still
# whole below the fault's frame, its chain running up through it) on ThreadX, LiteOS-M and NuttX.
# On FreeRTOS, "isr" (the tick hook faults over the task the tick preempted) on M0 and M33, whose
# ports leave the start's svc frame (and on ARMv8-M what vPortSVCHandler_C pushed) on the main stack;
# and "isrspin" there, the tick hook faulting over the crasher spinning in its own task function.
# "isrtail" (the tick's last work, a leaf it tail-calls, faults with the handler's EXC_RETURN still
# in lr: the handler's chain is that one frame) on ThreadX, as the real ThreadX bench's hook.
kernel_cases() {	# core kernel variant
	# The guard's overflow only: the other cases run as on the plain Zephyr build.
	if [ "$3" = zephyr-guard ]; then echo "overflow:2"; return; fi
	echo "fault:1 overflow:2 nullcall:6"
	if [ "$2" = zephyr ]; then echo "isr:3 panic:5"; fi
	case $2 in threadx|liteos|nuttx|rtthread|rtx5|ucos*) echo "isr:3";; esac
	case $1-$2 in m0-freertos|m33-freertos) echo "isr:3 isrspin:9";; esac
	case $2 in threadx|liteos|nuttx|rtthread|rtx5|ucos*) echo "stale:7";; esac
	if [ "$2" = threadx ]; then echo "isrtail:8"; fi
	if [ "$1" = m4f ]; then echo "fpu:4"; fi
}

key=$( (cat "$src"/* "$here/src/crash.c" "$here/src/fw.h" "$0" "$here/rtos-oracle.py" "$here/oracle.py" \
	"$here/qemu-gdb.sh" "$here/src/start.S";
	arm-none-eabi-gcc --version; clang --version; qemu-system-arm --version) | sha256sum | cut -c1-16)

# The FreeRTOS builds on M0 and M33 wrap two of the application's functions for the "isrspin"
# case (kernel_freertos.c, at its end); no other build's command line changes.
core_ldflags() {
	case $1-$(kernel_source "$2") in
	m0-freertos|m33-freertos) echo "-Wl,--wrap=rtos_create -Wl,--wrap=rtos_tick_hook";;
	esac
}

# build CORE KERNEL OUT: by GCC, or by clang (with clang_libs) for a "-clang" kernel.
build() {
	case $2 in
	*-clang)
		# shellcheck disable=SC2046
		clang --target=arm-none-eabi $(core_cflags "$1") $(kernel_cflags "${2%-clang}") \
			$(core_ldflags "$1" "$2") \
			-O2 -funwind-tables -g -ffile-prefix-map="$repo"=. -fdebug-prefix-map="$repo"=. \
			-ffreestanding -nostdlib -Wall -Wextra -fuse-ld=lld \
			-I"$src" -L"$src" -T "$src/$(core_ldscript "$1")" \
			"$here/src/start.S" "$src/port.S" "$src/app.c" "$src/board.c" \
			"$src/kernel_$(kernel_source "$2").c" "$here/src/crash.c" \
			$(clang_libs "$1") -o "$3";;
	*)
		# shellcheck disable=SC2046
		arm-none-eabi-gcc $(core_cflags "$1") $(kernel_cflags "$2") $(core_ldflags "$1" "$2") \
			-O2 -funwind-tables -g -ffile-prefix-map="$repo"=. -fdebug-prefix-map="$repo"=. \
			-ffreestanding -nostdlib -Wall -Wextra \
			-I"$src" -L"$src" -T "$src/$(core_ldscript "$1")" \
			"$here/src/start.S" "$src/port.S" "$src/app.c" "$src/board.c" \
			"$src/kernel_$(kernel_source "$2").c" \
			"$here/src/crash.c" -lgcc -o "$3";;
	esac
}
base=$out/$key
mkdir -p "$base"
# Builds of older sources are dead weight: keep only this key.
find "$out" -mindepth 1 -maxdepth 1 -type d ! -name "$key" -exec rm -rf {} +

# A TCP port of our own: other QEMU instances may hold the default 1234.
port=${RTOS_PORT:-$((20000 + ($$ + 7919) % 20000))}

run_case() {	# case-dir machine case-number kernel fpport [gdb-python]
	cdir=$1
	rm -f "$cdir/core.elf" "$cdir/core.zephyr" "$cdir/oracle.json"
	qemu_gdb "$cdir" "$2" 20 -ex "source $here/rtos-oracle.py" -ex "set var crash_case = $3" \
		-ex "python ${6:-pass}" -ex "break crash_handler" -ex "continue" \
		-ex "python rtos_oracle('oracle.json', '$4', '$5')"
	# A GDB that could not attach in time (a loaded machine) writes an oracle with no thread.
	if ! grep -q '"tcb"' "$cdir/oracle.json" 2>/dev/null || [ ! -s "$cdir/core.elf" ]; then
		echo "run-rtos: $cdir: no oracle or no dump on port $port (see gdb.log, qemu.log)" >&2
		return 1
	fi
}

status=0
for core in $cores; do
	for k in $(core_kernels "$core"); do
		d=$base/$core-$k
		if build_once "$d" "$core" "$k"; then
			# A Zephyr ELF names its main stack only by its stack object
			# (z_interrupt_stacks), a NuttX one by g_intstackalloc: the linker
			# script's names for crash.c go.
			if [ "$(kernel_source "$k")" = zephyr ] || [ "$(kernel_source "$k")" = nuttx ]; then
				arm-none-eabi-objcopy --strip-symbol=__msp_stack_lo \
					--strip-symbol=__msp_stack_hi "$d/fw.elf"
			fi
			arm-none-eabi-strip --strip-debug -o "$d/fw-nodwarf.elf" "$d/fw.elf"
			for c in $(kernel_cases "$core" "$(kernel_source "$k")" "$k"); do
				name=${c%%:*}
				# A stacking the guard stopped destroys the state it happened in:
				# GDB's answer is the last entry of the recursion.
				track=pass
				[ "$k-$name" = zephyr-guard-overflow ] &&
					track="track_entries('crasher_recurse')"
				mkdir -p "$d/$name"
				on_free_port run_case "$d/$name" "$(core_machine "$core")" "${c#*:}" \
					"$(kernel_source "$k")" "$(core_port "$core")" "$track" || status=1
			done
			[ $status -eq 0 ] && touch "$d/.done"
		fi
		for c in $(kernel_cases "$core" "$(kernel_source "$k")" "$k"); do
			echo "$core $k ${c%%:*} $d/${c%%:*}"
		done
	done
done
exit $status
