/* SPDX-License-Identifier: GPL-2.0 */
/*
 * port.S - the context switch in the shapes of the RTOS ports the analyzer
 * reads (the vectors and the fault entry are the crash corpus's start.S).
 *
 * FreeRTOS-shaped kernel (kernel_freertos.c): the task's registers go on its
 * own stack and the TCB's first word (pxTopOfStack) points at the lowest. From
 * that address up, as the GCC ports of FreeRTOS store them:
 *   ARM_CM3:   r4-r11, then the hardware frame
 *   ARM_CM4F:  r4-r11, EXC_RETURN, [s16-s31 if EXC_RETURN bit 4 is 0], hardware frame
 *   ARM_CM33 (non-secure, no TrustZone): PSPLIM, EXC_RETURN, r4-r11, [s16-s31], hardware frame
 *              (the TrustZone build of the port has xSecureContext below PSPLIM)
 * The hardware frame is the extended one (with s0-s15, FPSCR) when bit 4 is 0.
 *
 * ThreadX-shaped kernel (kernel_threadx.c): from tx_thread_stack_ptr up,
 * EXC_RETURN, [s16-s31 if its bit 4 is 0], r4-r11, then the hardware frame.
 *
 * Zephyr-shaped kernel (kernel_zephyr.c): r4-r11 and the PSP go to
 * _current->callee_saved {v1-v8, psp}, the low byte of EXC_RETURN to
 * _current->arch.mode_exc_return, s16-s31 (when bit 4 is 0) to
 * _current->arch.preempt_float; the hardware frame stays on the task's stack.
 */
	/* The symbol table's file name; without it the linker names the temporary object. */
	.file	"port.S"
	.syntax unified
	.thumb

	.text
#ifdef KERNEL_THREADX
/*
 * The ThreadX Cortex-M ports' scheduler start and PendSV (tx_thread_schedule.S
 * of cortex_m3/m4/m7, gnu), in their shape. _tx_thread_schedule is called
 * once, in thread mode on the main stack as tx_kernel_enter left it: it pends
 * PendSV and spins at __tx_wait_here; PendSV's exception frame over that loop
 * is never popped and stays on the main stack.
 */
	.global	_tx_thread_schedule
	.type	_tx_thread_schedule, %function
	.thumb_func
_tx_thread_schedule:
	movs	r0, #0
	ldr	r2, =_tx_thread_preempt_disable
	str	r0, [r2]
#ifdef __ARM_FP
	mrs	r0, control
	bic	r0, r0, #4
	msr	control, r0
#endif
	cpsie	i
	ldr	r0, =0x10000000
	ldr	r1, =0xE000ED04
	str	r0, [r1]
	dsb
	isb
__tx_wait_here:
	b	__tx_wait_here
	.size	_tx_thread_schedule, . - _tx_thread_schedule

/*
 * PendSV: the outgoing thread's r4-r11, then s16-s31 when EXC_RETURN says
 * the thread used the FPU, then EXC_RETURN itself, go below its hardware
 * frame on its stack, and tx_thread_stack_ptr (TCB offset 8) points at the
 * lowest. _tx_thread_current_ptr is NULL while nothing runs; with no thread
 * ready the handler waits for one, interrupts enabled.
 */
	.global	pendsv_handler
	.type	pendsv_handler, %function
	.thumb_func
pendsv_handler:
	ldr	r0, =_tx_thread_current_ptr
	ldr	r2, =_tx_thread_execute_ptr
	movs	r3, #0
	ldr	r1, [r0]
	cbz	r1, 1f
	str	r3, [r0]
	mrs	r12, psp
	stmdb	r12!, {r4-r11}
#ifdef __ARM_FP
	tst	lr, #0x10
	it	eq
	vstmdbeq r12!, {s16-s31}
#endif
	stmdb	r12!, {lr}
	str	r12, [r1, #8]
1:
	cpsid	i
	ldr	r1, [r2]
	cbz	r1, 3f
	str	r1, [r0]
	cpsie	i
2:
	ldr	r7, [r1, #4]
	adds	r7, r7, #1
	str	r7, [r1, #4]
	ldr	r12, [r1, #8]
	ldmia	r12!, {lr}
#ifdef __ARM_FP
	tst	lr, #0x10
	it	eq
	vldmiaeq r12!, {s16-s31}
#endif
	ldmia	r12!, {r4-r11}
	msr	psp, r12
	bx	lr
3:
	cpsid	i
	ldr	r1, [r2]
	str	r1, [r0]
	cbnz	r1, 4f
	cpsie	i
	b	3b
4:
	ldr	r7, =0x08000000		/* a PendSV pended meanwhile is this one */
	ldr	r3, =0xE000ED04
	str	r7, [r3]
	cpsie	i
	b	2b
	.size	pendsv_handler, . - pendsv_handler

#else /* !KERNEL_THREADX */
#if !defined(KERNEL_ZEPHYR) && !defined(KERNEL_LITEOS) && !defined(KERNEL_NUTTX) && !defined(__ARM_ARCH_6M__) && !defined(KERNEL_RTTHREAD) && !defined(KERNEL_RTX5) && !defined(KERNEL_UCOS)
/*
 * pxCurrentTCB's saved context up to its FP registers, in the port's order:
 * r0 is left at the first word not popped, lr holds EXC_RETURN where the
 * port saves it.
 */
	.macro	pop_core_context
	ldr	r3, =pxCurrentTCB
	ldr	r1, [r3]
	ldr	r0, [r1]
#if defined(__ARM_ARCH_8M_MAIN__)
	ldmia	r0!, {r1, r2, r4-r11}
	msr	psplim, r1
	mov	lr, r2
#elif defined(__ARM_FP)
	ldmia	r0!, {r4-r11, lr}
#else
	ldmia	r0!, {r4-r11}
#endif
	.endm

/*
 * The FreeRTOS ports start the first task as prvPortStartFirstTask() and
 * vPortSVCHandler() do: the main stack is set back to its top (the vector
 * table's initial value), and an svc whose handler pops the first task's
 * context and returns to it on the process stack. The svc's own exception
 * frame, thread mode on the main stack, is never popped: it stays at the
 * top of the main stack, stale, below what handlers push later.
 */
	.if __ARM_ARCH != 8; .global prvPortStartFirstTask	/* v8-M: see the end */
	.type	prvPortStartFirstTask, %function
	.thumb_func
prvPortStartFirstTask:
	ldr	r0, =0xE000ED08		/* VTOR */
	ldr	r0, [r0]
	ldr	r0, [r0]
	msr	msp, r0
	cpsie	i
	cpsie	f
	dsb
	isb
	svc	0
	nop
	.size	prvPortStartFirstTask, . - prvPortStartFirstTask

	.global	svc_handler
	.type	svc_handler, %function
	.thumb_func
svc_handler:
	pop_core_context
#if !defined(__ARM_ARCH_8M_MAIN__) && !defined(__ARM_FP)
	orr	lr, lr, #0xd		/* thread mode, process stack */
#endif
	msr	psp, r0
	isb
	bx	lr
	.size	svc_handler, . - svc_handler; .endif
#elif defined(KERNEL_ZEPHYR)
/*
 * Zephyr's z_arm_svc(): an svc from k_panic() or k_oops() (_SVC_CALL_RUNTIME_EXCEPT)
 * goes on to the fatal error path, here the fault entry; no other svc is made.
 */
	.global	svc_handler
	.type	svc_handler, %function
	.thumb_func
svc_handler:
	b	hardfault_entry
	.size	svc_handler, . - svc_handler

/*
 * port_start(psp, msp): thread mode moves to the process stack, exceptions to
 * msp (Zephyr's interrupt stack), then the first switch.
 */
	.global	port_start
	.type	port_start, %function
	.thumb_func
port_start:
	msr	psp, r0
	movs	r2, #2
	msr	control, r2
	isb
	cbz	r1, 1f
	msr	msp, r1
1:
	bl	board_start_tick
	ldr	r0, =0xE000ED04
	ldr	r1, =0x10000000
	str	r1, [r0]
	dsb
	isb
	cpsie	i
2:	b	2b
	.size	port_start, . - port_start
#endif

#if !defined(KERNEL_ZEPHYR) && !defined(KERNEL_LITEOS) && !defined(KERNEL_NUTTX) && !defined(__ARM_ARCH_6M__) && !defined(KERNEL_RTTHREAD) && !defined(KERNEL_RTX5) && !defined(KERNEL_UCOS)

	.global	pendsv_handler
	.type	pendsv_handler, %function
	.thumb_func
pendsv_handler:
	.cfi_startproc
	mrs	r0, psp
	isb
	ldr	r3, =pxCurrentTCB
	ldr	r2, [r3]
#ifdef __ARM_FP
	tst	lr, #0x10
	it	eq
	vstmdbeq r0!, {s16-s31}
#endif
#if defined(__ARM_ARCH_8M_MAIN__)
	mrs	r1, psplim
	mov	r3, lr
	stmdb	r0!, {r1, r3-r11}
#elif defined(__ARM_FP)
	stmdb	r0!, {r4-r11, lr}
#else
	stmdb	r0!, {r4-r11}
#endif
	str	r0, [r2]
	push	{r3, lr}
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset lr, 4
	bl	vTaskSwitchContext
	pop	{r3, lr}
	.cfi_adjust_cfa_offset -8
	.cfi_restore lr
	pop_core_context
#ifdef __ARM_FP
	tst	lr, #0x10
	it	eq
	vldmiaeq r0!, {s16-s31}
#endif
	msr	psp, r0
	isb
	bx	lr
	.cfi_endproc
	.size	pendsv_handler, . - pendsv_handler

#elif defined(KERNEL_ZEPHYR)

	.global	pendsv_handler
	.type	pendsv_handler, %function
	.thumb_func
pendsv_handler:
	.cfi_startproc
	push	{r0, lr}
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset lr, 4
	bl	z_arm_current_callee_saved	/* r0 = &_current->callee_saved */
	mrs	r12, psp
	stmia	r0, {r4-r11, r12}
#ifdef __ARM_FP
	ldr	r1, [sp, #4]
	tst	r1, #0x10
	bne	1f
	bl	z_arm_current_preempt_float	/* r0 = _current->arch.preempt_float */
	vstmia	r0, {s16-s31}
1:
#endif
	ldr	r0, [sp, #4]
	bl	z_arm_swap		/* r0 = &next->callee_saved, r1 = its EXC_RETURN */
	str	r1, [sp, #4]
#ifdef __ARM_FP
	tst	r1, #0x10
	bne	2f
	push	{r0, r1}
	.cfi_adjust_cfa_offset 8
	bl	z_arm_current_preempt_float
	vldmia	r0, {s16-s31}
	pop	{r0, r1}
	.cfi_adjust_cfa_offset -8
2:
#endif
	ldmia	r0, {r4-r11, r12}
	msr	psp, r12
	isb
	pop	{r0, pc}
	.cfi_endproc
	.size	pendsv_handler, . - pendsv_handler

#endif
#endif /* KERNEL_THREADX */
	.ltorg

#ifdef KERNEL_LITEOS
/*
 * LiteOS-M-shaped kernel (kernel_liteos.c), after the others so that no line
 * of theirs moves: [s16-s31 with the FPU], r4-r11, PRIMASK, then the hardware
 * frame, at the TCB's stackPointer (its first word).
 */
/*
 * HalStartToRun (los_dispatch.S): Thread mode moves to the process stack and
 * jumps into the first task's initial context without an exception: pc
 * OsTaskEntry, lr ArchSysExit, r0 the task ID; the context's slots below the
 * hardware frame are skipped. With the FPU, a vpush/vpop sets CONTROL.FPCA,
 * so every later frame of a task is an extended one. The real kernel reads
 * CPACR at run time; this build knows it from __ARM_FP.
 */
	.global	HalStartToRun
	.type	HalStartToRun, %function
	.thumb_func
HalStartToRun:
	movs	r0, #2
	msr	control, r0
	isb
	ldr	r1, =g_losTask
	ldr	r0, [r1, #4]
	ldr	r12, [r0]
#ifdef __ARM_FP
	add	r12, r12, #100		/* s16-s31, r4-r11, PRIMASK */
	ldmia	r12!, {r0-r7}
	add	r12, r12, #72		/* s0-s15, FPSCR, reserved */
	msr	psp, r12
	vpush	{s0}
	vpop	{s0}
#else
	add	r12, r12, #36		/* r4-r11, PRIMASK */
	ldmia	r12!, {r0-r7}
	msr	psp, r12
#endif
	mov	lr, r5
	cpsie	i
	bx	r6
	.size	HalStartToRun, . - HalStartToRun

/*
 * HalPendSV: OsSchedTaskSwitch picks g_losTask.newTask before anything is
 * saved; then r4-r11 and PRIMASK (in r12), and d8-d15 below them with the
 * FPU, go under the hardware frame on the outgoing task's stack, its
 * stackPointer takes the address, and the incoming task's are popped the
 * same way. EXC_RETURN is not saved: lr goes back unchanged.
 */
	.global	pendsv_handler
	.type	pendsv_handler, %function
	.thumb_func
pendsv_handler:
	.cfi_startproc
	mrs	r12, primask
	cpsid	i
	push	{r12, lr}
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset lr, 4
	bl	OsSchedTaskSwitch
	pop	{r12, lr}
	.cfi_adjust_cfa_offset -8
	.cfi_restore lr
	cmp	r0, #0
	mov	r0, lr
	bne	1f
	msr	primask, r12
	bx	lr
1:	mov	lr, r0
	mrs	r0, psp
	stmdb	r0!, {r4-r12}
#ifdef __ARM_FP
	vstmdb	r0!, {d8-d15}
#endif
	ldr	r5, =g_losTask
	ldr	r6, [r5]
	str	r0, [r6]
	ldr	r0, [r5, #4]
	str	r0, [r5]
	ldr	r1, [r0]
#ifdef __ARM_FP
	vldmia	r1!, {d8-d15}
#endif
	ldmia	r1!, {r4-r12}
	msr	psp, r1
	msr	primask, r12
	bx	lr
	.cfi_endproc
	.size	pendsv_handler, . - pendsv_handler

	.ltorg
#endif

#ifdef KERNEL_NUTTX
#ifdef __ARM_FP
#define FP_WORDS	1
#else
#define FP_WORDS	0
#endif
/*
 * NuttX-shaped kernel (kernel_nuttx.c), after the others so that no line of
 * theirs moves. exception_common (arch/arm/src/armv7-m/arm_exception.S), the
 * vector of SVCall and PendSV, saves, below the hardware frame on the
 * stack it interrupted, from the lowest address: the sp before the
 * exception, BASEPRI, r4-r11, CONTROL, EXC_RETURN, then s16-s31 with
 * CONFIG_ARCH_FPU (the space kept even for a basic frame), and passes the
 * address to arm_doirq, which returns the context to go back to. Threads
 * run on the PSP, handlers on the MSP (CONFIG_ARCH_INTERRUPTSTACK); with
 * NUTTX_NO_INTSTACK (CONFIG_ARCH_INTERRUPTSTACK 0, NuttX's default) both
 * run on the MSP, and a handler entered from Thread mode moves below a
 * second context's room under the save (the signal context
 * arm_schedulesigaction may build there).
 */
#ifdef __ARM_FP
#define HW_XCPT_SIZE	104
#else
#define HW_XCPT_SIZE	32
#endif
	.global	exception_common
	.type	exception_common, %function
	.thumb_func
exception_common:
	.cfi_sections	.debug_frame
	.cfi_startproc
	mrs	r0, ipsr
	mrs	r12, control
	tst	lr, #4
	beq	1f
	mrs	r1, psp
	b	2f
1:	mrs	r1, msp
	sub	r2, r1, #(4 * (12 + 16 * FP_WORDS))
	msr	msp, r2
	isb	sy
2:	mov	r2, r1
	add	r2, #HW_XCPT_SIZE
	mrs	r3, basepri
#ifdef __ARM_FP
	tst	lr, #0x10
	ite	eq
	vstmdbeq r1!, {s16-s31}
	subne	r1, #64
#endif
	stmdb	r1!, {r2-r12, lr}
#ifdef NUTTX_NO_INTSTACK
	tst	lr, #8
	beq	3f
	sub	r2, r1, #(4 * (12 + 16 * FP_WORDS) + HW_XCPT_SIZE)
	bic	r2, r2, #7
	mov	sp, r2
3:
#endif
	mov	r4, r1
	.cfi_def_cfa	r4, 0
	.cfi_offset	pc, (12 + 16 * FP_WORDS + 6) * 4
	.cfi_offset	sp, 0
	.cfi_offset	lr, (12 + 16 * FP_WORDS + 5) * 4
	bl	arm_doirq
	ldmia	r0!, {r2-r12, lr}
#ifdef __ARM_FP
	tst	lr, #0x10
	ite	eq
	vldmiaeq r0!, {s16-s31}
	addne	r0, #64
#endif
	tst	lr, #4
	ite	eq
	msreq	msp, r0
	msrne	psp, r0
	msr	basepri, r3
	msr	control, r12
	bx	lr
	.cfi_endproc
	.size	exception_common, . - exception_common

	.global	svc_handler
	.thumb_set svc_handler, exception_common
	.global	pendsv_handler
	.thumb_set pendsv_handler, exception_common
	/* The tick's vector is exception_direct, in kernel_nuttx.c. */

#ifndef NUTTX_NO_INTSTACK
/*
 * The interrupt stack (CONFIG_ARCH_INTERRUPTSTACK): g_intstackalloc to
 * g_intstacktop in .bss, which the real kernel's task stacks, allocated from
 * the heap after .bss, all lie above. Here too: port.S's .bss is linked
 * before the application's stacks and the idle task's. A fault in a handler
 * thus stacks its frame below the interrupted thread's.
 */
	.bss
	.balign	8
	.global	g_intstackalloc
	.global	g_intstacktop
g_intstackalloc:
	.skip	2048
g_intstacktop:
	.size	g_intstackalloc, . - g_intstackalloc
	.text

/*
 * The boot thread becomes the idle task (arm_initialize_stack): Thread
 * mode moves to the PSP on the idle stack, the MSP to the interrupt stack
 * for the handlers, and nx_start runs there, never to return.
 */
	.global	nuttx_start_idle
	.type	nuttx_start_idle, %function
	.thumb_func
nuttx_start_idle:
	msr	psp, r0
	movs	r1, #2
	msr	control, r1
	isb
	ldr	r1, =g_intstacktop
	msr	msp, r1
	movs	r1, #0
	mov	lr, r1
	b	nx_start
	.size	nuttx_start_idle, . - nuttx_start_idle
#else
/*
 * No interrupt stack: the boot thread stays in Thread mode on the MSP,
 * moved to the idle stack, and nx_start runs there, never to return.
 */
	.global	nuttx_start_idle
	.type	nuttx_start_idle, %function
	.thumb_func
nuttx_start_idle:
	msr	msp, r0
	isb
	movs	r1, #0
	mov	lr, r1
	b	nx_start
	.size	nuttx_start_idle, . - nuttx_start_idle
#endif

	.ltorg
#endif

#if defined(__ARM_ARCH_6M__) && !defined(KERNEL_ZEPHYR) && !defined(KERNEL_THREADX) && \
    !defined(KERNEL_LITEOS) && !defined(KERNEL_NUTTX) && !defined(KERNEL_RTTHREAD) && !defined(KERNEL_RTX5) && !defined(KERNEL_UCOS)
/*
 * FreeRTOS's ARM_CM0 port (V11.1 on, portasm.c without the MPU), after the
 * others so that no line of theirs moves. From pxTopOfStack up: EXC_RETURN,
 * r4-r7, r8-r11, then the hardware frame (the port before V11.1 stored r4-r11
 * alone, as ARM_CM3 does). vStartFirstTask() makes an svc; SVC_Handler hands
 * the stack its frame is on to vPortSVCHandler_C(), which reads the svc's
 * number and calls vRestoreContextOfFirstTask(): the first task runs on the
 * process stack, and the svc's frame and vPortSVCHandler_C()'s stay, stale, on
 * the main stack, which this port does not set back to its top.
 */
	.text
	.global	vStartFirstTask
	.type	vStartFirstTask, %function
	.thumb_func
vStartFirstTask:
	cpsie	i
	dsb
	isb
	svc	100		/* portSVC_START_SCHEDULER */
	nop
	.size	vStartFirstTask, . - vStartFirstTask

	.global	svc_handler
	.type	svc_handler, %function
	.thumb_func
svc_handler:
	movs	r0, #4
	mov	r1, lr
	tst	r0, r1
	beq	1f
	mrs	r0, psp
	ldr	r3, =vPortSVCHandler_C
	bx	r3
1:	mrs	r0, msp
	ldr	r3, =vPortSVCHandler_C
	bx	r3
	.size	svc_handler, . - svc_handler

	.global	vRestoreContextOfFirstTask
	.type	vRestoreContextOfFirstTask, %function
	.thumb_func
vRestoreContextOfFirstTask:
	ldr	r2, =pxCurrentTCB
	ldr	r1, [r2]
	ldr	r0, [r1]
	ldm	r0!, {r2}	/* EXC_RETURN */
	movs	r1, #2
	msr	control, r1	/* thread mode on the process stack */
	adds	r0, #32		/* past r4-r11 */
	msr	psp, r0
	isb
	bx	r2
	.size	vRestoreContextOfFirstTask, . - vRestoreContextOfFirstTask

/* EXC_RETURN, the low registers, then the high ones through the low ones. */
	.global	pendsv_handler
	.type	pendsv_handler, %function
	.thumb_func
pendsv_handler:
	mrs	r0, psp
	ldr	r2, =pxCurrentTCB
	ldr	r1, [r2]
	subs	r0, r0, #36
	str	r0, [r1]
	mov	r3, lr
	stmia	r0!, {r3-r7}
	mov	r4, r8
	mov	r5, r9
	mov	r6, r10
	mov	r7, r11
	stmia	r0!, {r4-r7}
	cpsid	i
	bl	vTaskSwitchContext
	cpsie	i
	ldr	r2, =pxCurrentTCB
	ldr	r1, [r2]
	ldr	r0, [r1]
	adds	r0, r0, #20
	ldmia	r0!, {r4-r7}
	mov	r8, r4
	mov	r9, r5
	mov	r10, r6
	mov	r11, r7
	msr	psp, r0
	subs	r0, r0, #36
	ldmia	r0!, {r3-r7}
	bx	r3
	.size	pendsv_handler, . - pendsv_handler

	.ltorg
#endif

#if defined(__ARM_ARCH_8M_MAIN__) && !defined(KERNEL_ZEPHYR) && !defined(KERNEL_THREADX) && \
    !defined(KERNEL_LITEOS) && !defined(KERNEL_NUTTX) && !defined(KERNEL_RTTHREAD) && !defined(KERNEL_RTX5) && !defined(KERNEL_UCOS)
/*
 * FreeRTOS's ARMv8-M ports (ARM_CM23/CM33/CM35P/CM55/CM85, portable/ARMv8M,
 * without TrustZone or the MPU), which start the first task unlike ARM_CM3:
 * vStartFirstTask() sets the main stack back to its top and makes svc 100;
 * SVC_Handler hands the stack its frame is on to vPortSVCHandler_C(), which
 * calls vRestoreContextOfFirstTask(). The svc's frame, and below it what
 * vPortSVCHandler_C() pushed (the svc's EXC_RETURN among it), stay on the
 * main stack for good. The CM3-shaped start above is left out of this build
 * (.if __ARM_ARCH != 8) so that no line of the other builds moves.
 */
	.text
	.global	vStartFirstTask
	.type	vStartFirstTask, %function
	.thumb_func
vStartFirstTask:
	ldr	r0, =0xE000ED08		/* VTOR */
	ldr	r0, [r0]
	ldr	r0, [r0]
	msr	msp, r0
	cpsie	i
	cpsie	f
	dsb
	isb
	svc	100		/* portSVC_START_SCHEDULER */
	nop
	.size	vStartFirstTask, . - vStartFirstTask

	.global	svc_handler
	.type	svc_handler, %function
	.thumb_func
svc_handler:
	tst	lr, #4
	ite	eq
	mrseq	r0, msp
	mrsne	r0, psp
	ldr	r1, =vPortSVCHandler_C
	bx	r1
	.size	svc_handler, . - svc_handler

/* From pxTopOfStack up: PSPLIM, EXC_RETURN, r4-r11, then the hardware frame. */
	.global	vRestoreContextOfFirstTask
	.type	vRestoreContextOfFirstTask, %function
	.thumb_func
vRestoreContextOfFirstTask:
	ldr	r2, =pxCurrentTCB
	ldr	r1, [r2]
	ldr	r0, [r1]
	ldm	r0!, {r1, r2}
	msr	psplim, r1
	movs	r1, #2
	msr	control, r1	/* thread mode on the process stack */
	adds	r0, #32		/* past r4-r11 */
	msr	psp, r0
	isb
	bx	r2
	.size	vRestoreContextOfFirstTask, . - vRestoreContextOfFirstTask

	.ltorg
#endif

#ifdef KERNEL_RTTHREAD
/*
 * RT-Thread-shaped kernel (kernel_rtthread.c), after the others so that no
 * line of theirs moves: the GCC ports' PendSV_Handler (libcpu/arm/cortex-m0,
 * -m3, -m4, -m33 context_gcc.S) in their shape. The switch to make is in
 * rt_interrupt_from_thread / rt_interrupt_to_thread (each the address of a
 * thread's sp) and rt_thread_switch_interrupt_flag; with no from-thread (the
 * first switch) nothing is saved. From the saved sp up:
 *   cortex-m0, -m3:  r4-r11, the hardware frame
 *   cortex-m4 FPU:   flag (1: s16-s31 saved), r4-r11, [s16-s31], the frame
 *   cortex-m33:      TrustZone context, EXC_RETURN, PSPLIM, CONTROL, r4-r11,
 *                    [s16-s31 if EXC_RETURN bit 4 is 0], the frame
 */
	.text
	.global	pendsv_handler
	.type	pendsv_handler, %function
	.thumb_func
pendsv_handler:
#if defined(__ARM_ARCH_6M__)
	mrs	r2, primask
	cpsid	i
	ldr	r0, =rt_thread_switch_interrupt_flag
	ldr	r1, [r0]
	cmp	r1, #0
	beq	2f
	movs	r1, #0
	str	r1, [r0]
	ldr	r0, =rt_interrupt_from_thread
	ldr	r1, [r0]
	cmp	r1, #0
	beq	1f
	mrs	r1, psp
	subs	r1, r1, #0x20
	ldr	r0, [r0]
	str	r1, [r0]
	stmia	r1!, {r4-r7}
	mov	r4, r8
	mov	r5, r9
	mov	r6, r10
	mov	r7, r11
	stmia	r1!, {r4-r7}
1:	ldr	r1, =rt_interrupt_to_thread
	ldr	r1, [r1]
	ldr	r1, [r1]
	ldmia	r1!, {r4-r7}
	push	{r4-r7}
	ldmia	r1!, {r4-r7}
	mov	r8, r4
	mov	r9, r5
	mov	r10, r6
	mov	r11, r7
	pop	{r4-r7}
	msr	psp, r1
2:	msr	primask, r2
	/* The port returns through -4; bit 0 is the core's to ignore, QEMU's is not: -3. */
	movs	r0, #3
	rsbs	r0, r0, #0
	bx	r0
#elif defined(__ARM_ARCH_8M_MAIN__)
	mrs	r2, primask
	cpsid	i
	ldr	r0, =rt_thread_switch_interrupt_flag
	ldr	r1, [r0]
	cmp	r1, #0
	bne	3f
	msr	primask, r2
	bx	lr
3:	push	{r2}
	movs	r1, #0
	str	r1, [r0]
	ldr	r0, =rt_interrupt_from_thread
	ldr	r1, [r0]
	cbz	r1, 1f
	mrs	r1, psp
	tst	lr, #0x10
	it	eq
	vstmdbeq r1!, {d8-d15}
	stmdb	r1!, {r4-r11}
	ldr	r2, =rt_trustzone_current_context
	ldr	r2, [r2]
	mov	r3, lr
	mrs	r4, psplim
	mrs	r5, control
	stmdb	r1!, {r2-r5}
	ldr	r0, [r0]
	str	r1, [r0]
1:	ldr	r1, =rt_interrupt_to_thread
	ldr	r1, [r1]
	ldr	r1, [r1]
	ldmia	r1!, {r2-r5}
	msr	psplim, r4
	msr	control, r5
	mov	lr, r3
	ldr	r6, =rt_trustzone_current_context
	str	r2, [r6]
	ldmia	r1!, {r4-r11}
	tst	lr, #0x10
	it	eq
	vldmiaeq r1!, {d8-d15}
	msr	psp, r1
	pop	{r2}
	msr	primask, r2
	bx	lr
#else
	mrs	r2, primask
	cpsid	i
	ldr	r0, =rt_thread_switch_interrupt_flag
	ldr	r1, [r0]
	cbz	r1, 2f
	movs	r1, #0
	str	r1, [r0]
	ldr	r0, =rt_interrupt_from_thread
	ldr	r1, [r0]
	cbz	r1, 1f
	mrs	r1, psp
#ifdef __ARM_FP
	tst	lr, #0x10
	it	eq
	vstmdbeq r1!, {d8-d15}
#endif
	stmdb	r1!, {r4-r11}
#ifdef __ARM_FP
	movs	r4, #0
	tst	lr, #0x10
	it	eq
	moveq	r4, #1
	stmdb	r1!, {r4}
#endif
	ldr	r0, [r0]
	str	r1, [r0]
1:	ldr	r1, =rt_interrupt_to_thread
	ldr	r1, [r1]
	ldr	r1, [r1]
#ifdef __ARM_FP
	ldmia	r1!, {r3}
#endif
	ldmia	r1!, {r4-r11}
#ifdef __ARM_FP
	cmp	r3, #0
	it	ne
	vldmiane r1!, {d8-d15}
#endif
	msr	psp, r1
#ifdef __ARM_FP
	orr	lr, lr, #0x10
	cmp	r3, #0
	it	ne
	bicne	lr, lr, #0x10
#endif
2:	msr	primask, r2
	orr	lr, lr, #0x04
	bx	lr
#endif
	.size	pendsv_handler, . - pendsv_handler

/*
 * rt_hw_context_switch_to(&to->sp): nothing to save, PendSV pended, the main
 * stack set back to the vector table's initial value (the ports read it
 * through VTOR), interrupts on: PendSV starts the thread at once.
 */
	.global	rt_hw_context_switch_to
	.type	rt_hw_context_switch_to, %function
	.thumb_func
rt_hw_context_switch_to:
	ldr	r1, =rt_interrupt_to_thread
	str	r0, [r1]
#ifdef __ARM_FP
	mrs	r2, control
	bic	r2, r2, #0x04
	msr	control, r2
#endif
	ldr	r1, =rt_interrupt_from_thread
	movs	r0, #0
	str	r0, [r1]
	ldr	r1, =rt_thread_switch_interrupt_flag
	movs	r0, #1
	str	r0, [r1]
	ldr	r0, =0xE000ED04		/* ICSR: PENDSVSET */
	ldr	r1, =0x10000000
	str	r1, [r0]
	ldr	r0, =__msp_stack_hi
	msr	msp, r0
	cpsie	i
	dsb
	isb
4:	b	4b
	.size	rt_hw_context_switch_to, . - rt_hw_context_switch_to

	.ltorg
#endif

#ifdef KERNEL_RTX5
/*
 * RTX5-shaped kernel (kernel_rtx5.c), after the others so that no line of
 * theirs moves: the GCC ports' SVC_Handler, PendSV_Handler and
 * SysTick_Handler (irq_armv6m.S, irq_armv7m.S, irq_armv8mml.S) in their
 * shape, with RTX_STACK_CHECK (RTX_Config.h's default). An svc 0 calls the
 * service in r12 (r7 on ARMv6-M) with the caller's r0-r3 and stores its r0
 * back in the frame; every handler ends in SVC_Context, which makes
 * osRtxInfo.thread.run.next current (curr, at osRtxInfo + 20, first) and
 * saves the old thread below its frame: from thread->sp (TCB + 56) up,
 * [s16-s31 if EXC_RETURN bit 4 is 0], r4-r11, the hardware frame; the FP
 * ports and v8-M keep EXC_RETURN's low byte in thread->stack_frame (TCB +
 * 34), v8-M sets PSPLIM to thread->stack_mem (TCB + 48). SysTick_Handler is
 * the vector's systick_handler (wrapped: board.c's stays as it is).
 */
	.text
	.global	svc_handler
	.type	svc_handler, %function
	.thumb_func
svc_handler:
#if defined(__ARM_ARCH_6M__)
	mov	r0, lr
	lsrs	r0, r0, #3
	bcc	5f
	mrs	r0, psp
6:	ldr	r1, [r0, #24]
	subs	r1, r1, #2
	ldrb	r1, [r1]
	cmp	r1, #0
	bne	rtx_svc_exit
	push	{r0, lr}
	ldmia	r0, {r0-r3}
	blx	r7
	pop	{r2, r3}
	str	r0, [r2]
	mov	lr, r3
rtx_svc_context:
	ldr	r3, =osRtxInfo + 20
	ldmia	r3!, {r1, r2}
	cmp	r1, r2
	beq	rtx_svc_exit
	subs	r3, r3, #8
	str	r2, [r3]
	cmp	r1, #0
	beq	rtx_restore
	mrs	r0, psp
	subs	r0, r0, #32
	str	r0, [r1, #56]
	push	{r1, r2}
	mov	r0, r1
	bl	osRtxThreadStackCheck
	pop	{r1, r2}
	cmp	r0, #0
	bne	1f
	movs	r0, #1
	bl	osRtxKernelErrorNotify
	ldr	r3, =osRtxInfo + 20
	ldr	r2, [r3, #4]
	str	r2, [r3]
	movs	r1, #0
	b	rtx_restore
1:	ldr	r0, [r1, #56]
	stmia	r0!, {r4-r7}
	mov	r4, r8
	mov	r5, r9
	mov	r6, r10
	mov	r7, r11
	stmia	r0!, {r4-r7}
rtx_restore:
	movs	r4, r2
	ldr	r0, [r4, #56]
	adds	r0, r0, #16
	ldmia	r0!, {r4-r7}
	mov	r8, r4
	mov	r9, r5
	mov	r10, r6
	mov	r11, r7
	msr	psp, r0
	subs	r0, r0, #32
	ldmia	r0!, {r4-r7}
	/* The port returns through -3 (0xFFFFFFFD). */
	movs	r0, #2
	mvns	r0, r0
	bx	r0
5:	mrs	r0, msp
	b	6b
rtx_svc_exit:
	bx	lr
#else
	tst	lr, #0x04
	ite	eq
	mrseq	r0, msp
	mrsne	r0, psp
	ldr	r1, [r0, #24]
	ldrb	r1, [r1, #-2]
	cmp	r1, #0
	bne	rtx_svc_exit
	push	{r0, lr}
	ldm	r0, {r0-r3, r12}
	blx	r12
	pop	{r12, lr}
	str	r0, [r12]
rtx_svc_context:
	ldr	r3, =osRtxInfo + 20
	ldm	r3, {r1, r2}
	cmp	r1, r2
	it	eq
	bxeq	lr
	str	r2, [r3]
#ifdef __ARM_FP
	cbnz	r1, rtx_save
rtx_lazy:
	tst	lr, #0x10
	bne	rtx_restore
	ldr	r3, =0xE000EF34		/* FPCCR: the deleted thread's lazy state dropped */
	ldr	r0, [r3]
	bic	r0, r0, #1
	str	r0, [r3]
	b	rtx_restore
#else
	cbz	r1, rtx_restore
#endif
rtx_save:
	sub	r12, r12, #32
#ifdef __ARM_FP
	tst	lr, #0x10
	it	eq
	subeq	r12, r12, #64
#endif
#if defined(__ARM_FP) && !defined(__ARM_ARCH_8M_MAIN__)
	strb	lr, [r1, #34]
#endif
	str	r12, [r1, #56]
#if defined(__ARM_ARCH_8M_MAIN__)
	strb	lr, [r1, #34]
#endif
	push	{r1, r2}
	mov	r0, r1
	bl	osRtxThreadStackCheck
	pop	{r1, r2}
	cbnz	r0, 1f
#ifdef __ARM_FP
	mov	r4, r1
#endif
	movs	r0, #1
	bl	osRtxKernelErrorNotify
	ldr	r3, =osRtxInfo + 20
	ldr	r2, [r3, #4]
	str	r2, [r3]
	movs	r1, #0
#ifdef __ARM_FP
	ldrsb	lr, [r4, #34]
	b	rtx_lazy
#else
	b	rtx_restore
#endif
1:
#if defined(__ARM_FP) || defined(__ARM_ARCH_8M_MAIN__)
	ldrsb	lr, [r1, #34]
#endif
	ldr	r12, [r1, #56]
#ifdef __ARM_FP
	tst	lr, #0x10
	it	eq
	vstmiaeq r12!, {s16-s31}
#endif
	stm	r12, {r4-r11}
rtx_restore:
	movs	r4, r2
	ldr	r0, [r4, #56]
#if defined(__ARM_ARCH_8M_MAIN__)
	ldr	r1, [r4, #48]
	msr	psplim, r1
#endif
#if defined(__ARM_FP) || defined(__ARM_ARCH_8M_MAIN__)
	ldrsb	lr, [r4, #34]
#endif
#ifdef __ARM_FP
	tst	lr, #0x10
	it	eq
	vldmiaeq r0!, {s16-s31}
#else
	mvn	lr, #~0xFFFFFFFD
#endif
	ldmia	r0!, {r4-r11}
	msr	psp, r0
rtx_svc_exit:
	bx	lr
#endif
	.size	svc_handler, . - svc_handler

	.global	pendsv_handler
	.type	pendsv_handler, %function
	.thumb_func
pendsv_handler:
	push	{r0, lr}
	bl	osRtxPendSV_Handler
#if defined(__ARM_ARCH_6M__)
	pop	{r0, r1}
	mov	lr, r1
#else
	pop	{r0, lr}
	mrs	r12, psp
#endif
	b	rtx_svc_context
	.size	pendsv_handler, . - pendsv_handler

	.global	__wrap_systick_handler
	.type	__wrap_systick_handler, %function
	.thumb_func
__wrap_systick_handler:
	push	{r0, lr}
	bl	osRtxTick_Handler
#if defined(__ARM_ARCH_6M__)
	pop	{r0, r1}
	mov	lr, r1
#else
	pop	{r0, lr}
	mrs	r12, psp
#endif
	b	rtx_svc_context
	.size	__wrap_systick_handler, . - __wrap_systick_handler

	.ltorg
#endif

#ifdef KERNEL_UCOS
/*
 * µC/OS-II- and µC/OS-III-shaped kernels (kernel_ucos2.c, kernel_ucos3.c),
 * after the others so that no line of theirs moves: OS_CPU_PendSVHandler and
 * OSStartHighRdy of Ports/ARM-Cortex-M/ARMv6-M/GNU/os_cpu_a.s and
 * ARMv7-M/GNU/os_cpu_a.S in their shape (the ARMv7-M port is the one an
 * ARMv8-M Mainline core runs). From the TCB's saved sp (its first word) up:
 *   both, ARMv6-M and ARMv7-M:  r4-r11, EXC_RETURN, the hardware frame
 *   µC/OS-III, ARMv7-M, FPU:    r4-r11, EXC_RETURN, [s16-s31 if EXC_RETURN
 *                               bit 4 is 0], the hardware frame
 *   µC/OS-II, ARMv7-M, FPU:     s16-s31 (OS_CPU_FP_Reg_Push, from
 *                               OSTaskSwHook), r4-r11, EXC_RETURN, the frame;
 *                               the running task's sp is past s16-s31
 * On ARMv8-M the switch also loads PSPLIM from the TCB's third word (µC/OS-III
 * StkLimitPtr, µC/OS-II OSTCBStkBottom) as a BSP's OSTaskSwHook would; the
 * ports save no PSPLIM.
 */
#ifdef KERNEL_UCOS2
#define UC_CUR	OSTCBCur
#define UC_HIGH	OSTCBHighRdy
#else
#define UC_CUR	OSTCBCurPtr
#define UC_HIGH	OSTCBHighRdyPtr
#endif
	.text
	.global	pendsv_handler
	.type	pendsv_handler, %function
	.thumb_func
pendsv_handler:
#if defined(__ARM_ARCH_6M__)
	cpsid	i
	mrs	r0, psp
	cmp	r0, #0
	beq	1f
	subs	r0, r0, #0x24
	ldr	r1, =UC_CUR
	ldr	r1, [r1]
	str	r0, [r1]
	stmia	r0!, {r4-r7}
	mov	r4, r8
	mov	r5, r9
	mov	r6, r10
	mov	r7, r11
	stmia	r0!, {r4-r7}
	mov	r3, r14
	stmia	r0!, {r3}
1:	bl	OSTaskSwHook
	ldr	r0, =OSPrioCur
	ldr	r1, =OSPrioHighRdy
	ldrb	r2, [r1]
	strb	r2, [r0]
	ldr	r0, =UC_CUR
	ldr	r1, =UC_HIGH
	ldr	r2, [r1]
	str	r2, [r0]
	ldr	r0, [r2]
	adds	r0, #0x10
	ldmia	r0!, {r4-r7}
	mov	r8, r4
	mov	r9, r5
	mov	r10, r6
	mov	r11, r7
	ldmia	r0!, {r3}
	mov	r14, r3
	msr	psp, r0
	subs	r0, #0x24
	ldmia	r0!, {r4-r7}
	cpsie	i
	bx	lr
#else
	cpsid	i
	movs	r1, #0x20		/* OS_KA_BASEPRI_Boundary */
	msr	basepri, r1
	dsb
	isb
	cpsie	i
	mrs	r0, psp
#if defined(__ARM_FP) && !defined(KERNEL_UCOS2)
	tst	r14, #0x10
	it	eq
	vstmdbeq r0!, {s16-s31}
#endif
	stmdb	r0!, {r4-r11, r14}
	ldr	r5, =UC_CUR
	ldr	r1, [r5]
	str	r0, [r1]
	mov	r4, lr
	bl	OSTaskSwHook
	ldr	r0, =OSPrioCur
	ldr	r1, =OSPrioHighRdy
	ldrb	r2, [r1]
	strb	r2, [r0]
	ldr	r1, =UC_HIGH
	ldr	r2, [r1]
	str	r2, [r5]
	orr	lr, r4, #0x04
	ldr	r0, [r2]
#if defined(__ARM_ARCH_8M_MAIN__)
	ldr	r1, [r2, #8]
	msr	psplim, r1
#endif
	ldmia	r0!, {r4-r11, r14}
#if defined(__ARM_FP) && !defined(KERNEL_UCOS2)
	tst	r14, #0x10
	it	eq
	vldmiaeq r0!, {s16-s31}
#endif
	msr	psp, r0
	movs	r2, #0
	cpsid	i
	msr	basepri, r2
	dsb
	isb
	cpsie	i
	bx	lr
#endif
	.size	pendsv_handler, . - pendsv_handler

/*
 * OSStartHighRdy: the main stack set to OS_CPU_ExceptStkBase, the PSP 0.
 * ARMv6-M pends PendSV, which finds no task to save, and waits for it;
 * ARMv7-M calls OSTaskSwHook, then pops the first task's context itself in
 * Thread mode on the PSP and branches to it, interrupts on.
 */
	.global	OSStartHighRdy
	.type	OSStartHighRdy, %function
	.thumb_func
OSStartHighRdy:
	cpsid	i
	movs	r0, #0
	msr	psp, r0
#if defined(__ARM_ARCH_6M__)
	bl	OSTaskSwHook
	ldr	r0, =OS_CPU_ExceptStkBase
	ldr	r1, [r0]
	msr	msp, r1
	ldr	r0, =0xE000ED04		/* ICSR: PENDSVSET */
	ldr	r1, =0x10000000
	str	r1, [r0]
	cpsie	i
OSStartHang:
	b	OSStartHang
#else
	ldr	r0, =OS_CPU_ExceptStkBase
	ldr	r1, [r0]
	msr	msp, r1
	bl	OSTaskSwHook
	ldr	r0, =OSPrioCur
	ldr	r1, =OSPrioHighRdy
	ldrb	r2, [r1]
	strb	r2, [r0]
	ldr	r0, =UC_CUR
	ldr	r1, =UC_HIGH
	ldr	r2, [r1]
	str	r2, [r0]
	ldr	r0, [r2]
#if defined(__ARM_ARCH_8M_MAIN__)
	ldr	r1, [r2, #8]
	msr	psplim, r1
#endif
	msr	psp, r0
	mrs	r0, control
	orr	r0, r0, #2
#ifdef __ARM_FP
	bic	r0, r0, #4
#endif
	msr	control, r0
	isb
	ldmia	sp!, {r4-r11, lr}
	ldmia	sp!, {r0-r3}
	ldmia	sp!, {r12, lr}
	ldmia	sp!, {r1, r2}
	cpsie	i
	bx	r1
#endif
	.size	OSStartHighRdy, . - OSStartHighRdy

	.global	OSCtxSw
	.type	OSCtxSw, %function
	.thumb_func
OSCtxSw:
	ldr	r0, =0xE000ED04
	ldr	r1, =0x10000000
	str	r1, [r0]
	bx	lr
	.size	OSCtxSw, . - OSCtxSw

#if defined(KERNEL_UCOS2) && defined(__ARM_FP) && !defined(__ARM_ARCH_6M__)
/*
 * OS_CPU_FP_Reg_Push(sp): s16-s31 below the switched-out task's r4-r11 and
 * its saved sp moved down to them, but not before the first task runs (the
 * PSP 0); OS_CPU_FP_Reg_Pop(sp): the next task's, its sp moved past them.
 */
	.global	OS_CPU_FP_Reg_Push
	.type	OS_CPU_FP_Reg_Push, %function
	.thumb_func
OS_CPU_FP_Reg_Push:
	mrs	r1, psp
	cbz	r1, 1f
	vstmdb	r0!, {s16-s31}
	ldr	r1, =OSTCBCur
	ldr	r2, [r1]
	str	r0, [r2]
1:	bx	lr
	.size	OS_CPU_FP_Reg_Push, . - OS_CPU_FP_Reg_Push

	.global	OS_CPU_FP_Reg_Pop
	.type	OS_CPU_FP_Reg_Pop, %function
	.thumb_func
OS_CPU_FP_Reg_Pop:
	vldmia	r0!, {s16-s31}
	ldr	r1, =OSTCBHighRdy
	ldr	r2, [r1]
	str	r0, [r2]
	bx	lr
	.size	OS_CPU_FP_Reg_Pop, . - OS_CPU_FP_Reg_Pop
#endif

	.ltorg
#endif
