/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rtos.h - the test scheduler's API: the same for its FreeRTOS-, Zephyr-, ThreadX-,
 * LiteOS-M- and NuttX-shaped kernels, so the application threads are written once.
 */
#ifndef RTOS_TEST_H
#define RTOS_TEST_H

#include <stdint.h>

#define NOINLINE __attribute__((noinline))

#if defined(__ARM_ARCH_8M_MAIN__) || defined(__ARM_ARCH_8M_BASE__)
#define RTOS_V8M 1
#else
#define RTOS_V8M 0
#endif

#if !defined(KERNEL_ZEPHYR) && !defined(KERNEL_THREADX) && !defined(KERNEL_LITEOS) && \
    !defined(KERNEL_NUTTX) && !defined(KERNEL_RTTHREAD) && !defined(KERNEL_RTX5) && !defined(KERNEL_UCOS)	/* FreeRTOS-shaped: the states only FreeRTOS has are built */
#define RTOS_FREERTOS 1
#else
#define RTOS_FREERTOS 0
#endif

#define RTOS_MAX_TASKS	10
#define RTOS_GUARD_WORDS	RTOS_GUARD	/* untouched space below each stack: overflow lands here */

typedef void (*rtos_entry)(void *arg);

/*
 * Every task the application created, in creation order. Only the GDB oracle
 * reads this: it finds the threads without walking the kernel's own lists, so
 * it does not share crashwalk's reading of them.
 */
struct rtos_registry_entry {
	const char *name;
	void *tcb;
	rtos_entry entry;
	uint32_t *stack_lo, *stack_hi;
};

extern struct rtos_registry_entry rtos_registry[RTOS_MAX_TASKS];
extern volatile uint32_t rtos_registry_n;
extern volatile uint32_t rtos_ticks;

void rtos_create(const char *name, rtos_entry fn, void *arg, unsigned int prio,
		 uint32_t *stack, uint32_t words);
void rtos_start(void) __attribute__((noreturn));
void rtos_delay(uint32_t ticks);
void rtos_yield(void);
void rtos_block_forever(void);	/* wait on an event nobody signals */
/* FreeRTOS only: the states eTaskGetState() reads from more than one list. */
void rtos_notify_take(void);	/* wait for a notification nobody sends */
void rtos_wait_signal(uint32_t ticks);	/* wait, with a timeout, for rtos_signal_suspended() */
void rtos_signal_suspended(void);	/* suspend the scheduler, then signal one waiter */
void rtos_delete_self(void) __attribute__((noreturn));

/* The kernel's half of the port: called by the context switch and the tick. */
void rtos_tick(void);
void rtos_registry_add(const char *name, void *tcb, rtos_entry fn, uint32_t *lo, uint32_t *hi);
void rtos_stack_overflow(const char *name) __attribute__((noreturn));
void rtos_task_exit(void) __attribute__((noreturn));
void rtos_tick_hook(void);	/* the application's, in the tick interrupt */
void rtos_tick_tail(void);	/* ThreadX: its last work there, a tail call */

#define SCB_ICSR	(*(volatile uint32_t *)0xE000ED04)
#define ICSR_PENDSVSET	(1u << 28)

static inline void rtos_pend_switch(void)
{
	SCB_ICSR = ICSR_PENDSVSET;
	__asm__ volatile("dsb\n isb" ::: "memory");
}

/*
 * Zephyr only: k_panic(), a macro there too, so the svc sits in its caller.
 * ARCH_EXCEPT() on v7-M and v8-M Mainline: interrupts unmasked, the reason
 * (K_ERR_KERNEL_PANIC) in r0, svc _SVC_CALL_RUNTIME_EXCEPT.
 */
#define K_ERR_KERNEL_PANIC	4
#define _SVC_CALL_RUNTIME_EXCEPT	2
#define rtos_panic()							\
	__asm__ volatile("eors r0, r0\n\t"				\
			 "msr basepri, r0\n\t"				\
			 "mov r0, %[reason]\n\t"			\
			 "svc %[id]"					\
			 : : [reason] "i"(K_ERR_KERNEL_PANIC),		\
			 [id] "i"(_SVC_CALL_RUNTIME_EXCEPT) : "r0", "memory")

static inline void irq_off(void)
{
	__asm__ volatile("cpsid i" ::: "memory");
}

static inline void irq_on(void)
{
	__asm__ volatile("cpsie i" ::: "memory");
}

/*
 * The stack check a kernel makes at a switch (ThreadX's TX_THREAD_STACK_CHECK,
 * NuttX's): the live sp at or below the stack's low end, or the fill gone
 * from its first words. Last in the file, so no line of the others moves.
 */
static inline void rtos_check_stack(const void *stack_lo, uint32_t fill, const char *name)
{
	const uint32_t *lo = stack_lo;
	uint32_t sp;
	int i;

	__asm__ volatile("mov %0, sp" : "=r"(sp));
	if (sp <= (uint32_t)lo)
		rtos_stack_overflow(name);
	for (i = 0; i < 4; i++)
		if (lo[i] != fill)
			rtos_stack_overflow(name);
}

/*
 * The port's start of the first task: ARM_CM0's vStartFirstTask() (V11.1 on),
 * the others' prvPortStartFirstTask(). Last, so no line above moves.
 */
#if defined(__ARM_ARCH_6M__)
/* microbit's 16K of RAM: half-size stacks and guards (words). */
#define RTOS_GUARD		32
#define RTOS_STACK_WORDS	128
#define RTOS_BAD_ADDRESS	0x30000000u	/* QEMU's nRF51 answers at 0xF0000000 */
void vStartFirstTask(void);
uint32_t *pxPortInitialiseStack(uint32_t *pxTopOfStack, rtos_entry pxCode, void *pvParameters);
#define PORT_START_FIRST_TASK	vStartFirstTask
#else
#define RTOS_GUARD		64
#define RTOS_STACK_WORDS	256
#define RTOS_BAD_ADDRESS	0xF0000000u
#define PORT_START_FIRST_TASK	prvPortStartFirstTask
#endif

/* The ARMv8-M ports' start of the first task (port.S, at its end). */
#if RTOS_V8M
void vStartFirstTask(void);
#undef PORT_START_FIRST_TASK
#define PORT_START_FIRST_TASK	vStartFirstTask
#endif

#endif
