/* SPDX-License-Identifier: GPL-2.0 */
/* start.S - vectors, the fault entry that freezes the registers, and the PSP thread trampoline. */
	/* The symbol table's file name; without it the linker names the temporary object. */
	.file	"start.S"
	.syntax unified
	.thumb

	.section .vectors, "a"
	.global vectors
vectors:
	.word	__msp_stack_hi
	.word	reset_handler
	.word	hardfault_entry		/* NMI */
	.word	hardfault_entry		/* HardFault */
	.word	hardfault_entry		/* MemManage (disabled: escalates) */
	.word	hardfault_entry		/* BusFault */
	.word	hardfault_entry		/* UsageFault */
	.word	hardfault_entry		/* SecureFault on v8-M */
	.word	0, 0, 0
	.word	svc_handler		/* SVCall: see the end of this file */
	.word	hardfault_entry		/* DebugMonitor */
	.word	0
	.word	pendsv_handler
	.word	systick_handler

	.text
/*
 * Entry of every fault. Nothing may touch r4-r11, sp or lr before they are
 * saved: they are the state a debugger sees at this instruction, and the
 * dump must match what GDB reads here.
 */
	.global	hardfault_entry
	.type	hardfault_entry, %function
	.thumb_func
hardfault_entry:
	.cfi_startproc
	ldr	r0, =crash_entry
#if __ARM_ARCH_6M__
	str	r4, [r0, #0]
	str	r5, [r0, #4]
	str	r6, [r0, #8]
	str	r7, [r0, #12]
	mov	r1, r8
	str	r1, [r0, #16]
	mov	r1, r9
	str	r1, [r0, #20]
	mov	r1, r10
	str	r1, [r0, #24]
	mov	r1, r11
	str	r1, [r0, #28]
	adds	r0, #32
#else
	stmia	r0!, {r4-r11}
#endif
	mrs	r1, msp
	mrs	r2, psp
	mrs	r3, control
	str	r1, [r0, #0]
	str	r2, [r0, #4]
	str	r3, [r0, #8]
	mov	r1, lr
	str	r1, [r0, #12]
	bl	crash_handler
	b	.
	.cfi_endproc
	.size	hardfault_entry, . - hardfault_entry

/* run_on_psp(fn, arg, stack_top): call fn(arg) in thread mode on the process stack. */
	.global	run_on_psp
	.type	run_on_psp, %function
	.thumb_func
run_on_psp:
	push	{r4, lr}
	msr	psp, r2
	movs	r3, #2
	msr	control, r3
	isb
	mov	r3, r0
	mov	r0, r1
	blx	r3
	movs	r3, #0
	msr	control, r3
	isb
	pop	{r4, pc}
	.size	run_on_psp, . - run_on_psp
	.ltorg

/*
 * The SVCall vector is the firmware's own handler where it has one (an RTOS
 * that starts its first task through svc); the corpus executes no svc.
 */
	.weak	svc_handler
