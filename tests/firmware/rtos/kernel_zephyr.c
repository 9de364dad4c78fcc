// SPDX-License-Identifier: GPL-2.0
/*
 * kernel_zephyr.c - the test scheduler with its state in the shapes and under
 * the names Zephyr uses on Cortex-M (struct k_thread, _kernel, callee_saved,
 * stack_info, arch.mode_exc_return), for a configuration with
 * CONFIG_THREAD_MONITOR (the _kernel.threads list through next_thread),
 * CONFIG_THREAD_NAME, CONFIG_THREAD_STACK_INFO, CONFIG_INIT_STACKS (0xAA fill)
 * and FPU sharing. Written from the documented data structures; no Zephyr code.
 *
 * The context switch (port.S) stores r4-r11 and the PSP in callee_saved and
 * the low byte of EXC_RETURN in arch.mode_exc_return; the hardware frame stays
 * on the thread's stack at callee_saved.psp.
 */
#include <stdint.h>
#include "rtos.h"
#include "zephyr_stack.h"

#define CONFIG_THREAD_MAX_NAME_LEN	32
#define CONFIG_ISR_STACK_SIZE	2048
#define STACK_FILL	0xAAAAAAAAu

/* Thread states (thread_state bits). */
#define _THREAD_PENDING		0x02
#define _THREAD_SLEEPING	0x04
#define _THREAD_DEAD		0x08
#define _THREAD_SUSPENDED	0x10
#define _THREAD_QUEUED		0x80

typedef struct _dnode {
	struct _dnode *next, *prev;
} sys_dnode_t;
typedef sys_dnode_t sys_dlist_t;

typedef struct {
	sys_dlist_t waitq;
} _wait_q_t;

struct _timeout {
	sys_dnode_t node;
	void (*fn)(struct _timeout *t);
	int64_t dticks;
};

struct _thread_base {
	sys_dnode_t qnode_dlist;
	_wait_q_t *pended_on;
	uint8_t user_options;
	uint8_t thread_state;
	union {
		struct {
			int8_t prio;
			uint8_t sched_locked;
		};
		uint16_t preempt;
	};
	uint32_t order_key;
	void *swap_data;
	struct _timeout timeout;
};

struct _callee_saved {
	uint32_t v1, v2, v3, v4, v5, v6, v7, v8;	/* r4-r11 */
	uint32_t psp;
};

struct _preempt_float {
	float s16, s17, s18, s19, s20, s21, s22, s23;
	float s24, s25, s26, s27, s28, s29, s30, s31;
};

struct _thread_arch {
	uint32_t basepri;
	uint32_t swap_return_value;
	struct _preempt_float preempt_float;
	union {
		uint32_t mode;
		struct {
			uint8_t mode_bits;
			uint8_t mode_exc_return;
			uint16_t mode_reserved2;
		};
	};
};

struct __thread_entry {
	rtos_entry pEntry;
	void *parameter1, *parameter2, *parameter3;
};

struct _thread_stack_info {
	uint32_t start;
	uint32_t size;
	uint32_t delta;
};

struct k_thread {
	struct _thread_base base;
	struct _callee_saved callee_saved;
	void *init_data;
	_wait_q_t join_queue;
	struct __thread_entry entry;
	struct k_thread *next_thread;
	char name[CONFIG_THREAD_MAX_NAME_LEN];
	struct _thread_stack_info stack_info;
	struct _thread_arch arch;
};

struct _cpu {
	uint32_t nested;
	char *irq_stack;
	struct k_thread *current;
	struct k_thread *idle_thread;
	uint8_t id;
};

struct _ready_q {
	struct k_thread *cache;
	sys_dlist_t runq;
};

struct z_kernel {
	struct _cpu cpus[1];
	struct _ready_q ready_q;
	struct k_thread *threads;
};

struct z_kernel _kernel;

/*
 * kernel/init.c's interrupt stack, one per CPU: the main stack every
 * exception runs on once z_arm_interrupt_stack_setup() has moved MSP to it.
 */
K_KERNEL_STACK_ARRAY_DEFINE(z_interrupt_stacks, 1, CONFIG_ISR_STACK_SIZE);

static struct k_thread threads[RTOS_MAX_TASKS];
static unsigned int nr_threads;
/* Like Zephyr's dummy thread: what main() leaves behind at the first switch. */
static struct k_thread dummy_thread;
static uint32_t boot_stack[64] __attribute__((aligned(8)));
static _wait_q_t never_signalled;

volatile uint32_t rtos_ticks;

/* Zephyr numbers priorities the other way: lower is more urgent. */
static int8_t zephyr_prio(unsigned int prio)
{
	return (int8_t)(14 - prio);
}

/*
 * Where every thread starts, as arch_new_thread() sets it up: the entry and
 * its parameters in r0-r3. A thread that returns is aborted (here: a fault).
 */
NOINLINE void z_thread_entry(rtos_entry entry, void *p1, void *p2, void *p3)
{
	(void)p2;
	(void)p3;
	entry(p1);
	rtos_task_exit();
}

void rtos_create(const char *name, rtos_entry fn, void *arg, unsigned int prio,
		 uint32_t *stack, uint32_t words)
{
	struct k_thread *t = &threads[nr_threads++];
	uint32_t *sp = stack + words, i;

	for (i = 0; i < words; i++)
		stack[i] = STACK_FILL;
	for (i = 0; i < CONFIG_THREAD_MAX_NAME_LEN - 1 && name[i]; i++)
		t->name[i] = name[i];
	*--sp = 0x01000000u;			/* xPSR: Thumb */
	*--sp = (uint32_t)z_thread_entry | 1;	/* pc */
	/*
	 * lr and r12: arch_new_thread() leaves them as they are, the stack's
	 * fill, so a walk past z_thread_entry reads 0xAAAAAAAA as its caller.
	 */
	*--sp = STACK_FILL;
	*--sp = STACK_FILL;
	for (i = 0; i < 2; i++)
		*--sp = 0;			/* r3 (p3), r2 (p2) */
	*--sp = (uint32_t)arg;			/* r1: p1 */
	*--sp = (uint32_t)fn;			/* r0: the entry */
	t->callee_saved.psp = (uint32_t)sp;
	t->arch.mode_exc_return = 0xFD;		/* thread mode, PSP, basic frame */
	t->base.prio = zephyr_prio(prio);
	/* The idle thread is never queued: next_up() falls back to it, its state stays 0. */
	t->base.thread_state = prio ? _THREAD_QUEUED : 0;
	t->entry.pEntry = fn;
	t->entry.parameter1 = arg;
	t->stack_info.start = (uint32_t)stack;
	t->stack_info.size = words * 4;
	t->next_thread = _kernel.threads;
	_kernel.threads = t;
	if (!prio)
		_kernel.cpus[0].idle_thread = t;
	rtos_registry_add(t->name, t, fn, stack, stack + words);
}

static void check_stack(struct k_thread *t)
{
	uint32_t *lo = (uint32_t *)t->stack_info.start;
	int i;

	if (t->callee_saved.psp <= t->stack_info.start)
		rtos_stack_overflow(t->name);
	for (i = 0; i < 4; i++)
		if (lo[i] != STACK_FILL)
			rtos_stack_overflow(t->name);
}

/* The most urgent ready thread; among equals the next one after the current (round robin). */
static struct k_thread *next_thread(void)
{
	struct k_thread *best = 0, *cur = _kernel.cpus[0].current;
	unsigned int i, start = cur >= threads && cur < threads + nr_threads ? cur - threads + 1 : 0;

	for (i = 0; i < nr_threads; i++) {
		struct k_thread *t = &threads[(start + i) % nr_threads];

		if ((t->base.thread_state & _THREAD_QUEUED) && (!best || t->base.prio < best->base.prio))
			best = t;
	}
	return best ? best : _kernel.cpus[0].idle_thread;
}

uint32_t *z_arm_current_callee_saved(void)
{
	return &_kernel.cpus[0].current->callee_saved.v1;
}

float *z_arm_current_preempt_float(void)
{
	return &_kernel.cpus[0].current->arch.preempt_float.s16;
}

#ifdef CONFIG_MPU_STACK_GUARD
#define MPU_CTRL	(*(volatile uint32_t *)0xE000ED94)
#define MPU_RNR		(*(volatile uint32_t *)0xE000ED98)
#define MPU_RBAR	(*(volatile uint32_t *)0xE000ED9C)
#define MPU_RASR	(*(volatile uint32_t *)0xE000EDA0)

/*
 * CONFIG_MPU_STACK_GUARD on ARMv7-M: the incoming thread's guard, the 32
 * bytes below its stack_info.start, made a no-access region at each switch
 * (z_arm_configure_dynamic_mpu_regions). An overflow faults on the access
 * that enters it; when that is the exception entry's own stacking, the
 * frame is never written (MSTKERR).
 */
static void z_arm_mpu_stack_guard(const struct k_thread *t)
{
	MPU_RNR = 0;
	MPU_RBAR = t->stack_info.start - MPU_GUARD_ALIGN_AND_SIZE;
	/* XN, AP = 000 (no access), SIZE = log2(32) - 1, enabled */
	MPU_RASR = (1u << 28) | (4u << 1) | 1u;
	MPU_CTRL = (1u << 2) | 1u;	/* PRIVDEFENA: the rest of the map as without an MPU */
	__asm__ volatile("dsb\n isb" ::: "memory");
}
#endif

/* Called by port.S with the outgoing thread's context saved: returns the incoming one's. */
uint64_t z_arm_swap(uint32_t exc_return)
{
	struct k_thread *cur = _kernel.cpus[0].current, *next;

	cur->arch.mode_exc_return = (uint8_t)exc_return;
#ifdef CONFIG_MPU_STACK_GUARD
	/* The guard catches an overflow as it happens: no check at the switch. */
	(void)check_stack;
#else
	if (cur != &dummy_thread)
		check_stack(cur);
#endif
	next = next_thread();
#ifdef CONFIG_MPU_STACK_GUARD
	z_arm_mpu_stack_guard(next);
#endif
	_kernel.cpus[0].current = next;
	_kernel.ready_q.cache = next;
#if RTOS_V8M
	__asm__ volatile("msr psplim, %0" : : "r"(next->stack_info.start));
#endif
	return (uint32_t)&next->callee_saved | (uint64_t)(0xFFFFFF00u | next->arch.mode_exc_return)
						  << 32;
}

void rtos_tick(void)
{
	unsigned int i;

	rtos_ticks++;
	rtos_tick_hook();	/* sys_clock_announce(): the expired timers' functions */
	for (i = 0; i < nr_threads; i++) {
		struct k_thread *t = &threads[i];

		if ((t->base.thread_state & _THREAD_SLEEPING) && t->base.timeout.dticks <= rtos_ticks) {
			t->base.thread_state = _THREAD_QUEUED;
			t->base.timeout.dticks = 0;
		}
	}
	rtos_pend_switch();	/* time slicing */
}

void rtos_delay(uint32_t ticks)
{
	struct k_thread *t;

	irq_off();
	t = _kernel.cpus[0].current;
	t->base.thread_state = _THREAD_SLEEPING;
	t->base.timeout.dticks = rtos_ticks + ticks;
	irq_on();
	rtos_pend_switch();
}

void rtos_yield(void)
{
	rtos_pend_switch();
}

void rtos_block_forever(void)
{
	struct k_thread *t;

	irq_off();
	t = _kernel.cpus[0].current;
	t->base.thread_state = _THREAD_PENDING;
	t->base.pended_on = &never_signalled;
	irq_on();
	rtos_pend_switch();
}

extern void port_start(uint32_t *psp, char *msp);

void rtos_start(void)
{
	char *isr_top = (char *)z_interrupt_stacks[0] + K_KERNEL_STACK_SIZEOF(z_interrupt_stacks[0]);

	_kernel.cpus[0].current = &dummy_thread;
	_kernel.cpus[0].irq_stack = isr_top;
	port_start(boot_stack + 64, isr_top);
	for (;;)
		;
}
