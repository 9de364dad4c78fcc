// SPDX-License-Identifier: GPL-2.0
/*
 * app.c - the threads of the multi-thread crash firmware: each with its own
 * call chain and its own way of being stopped (delayed, preempted, blocked,
 * preempted with live FPU state; on FreeRTOS also waiting for a notification
 * and pending ready; on FreeRTOS and ThreadX deleted or terminated), and one
 * that crashes or overflows its stack.
 */
#include <stdint.h>
#include "rtos.h"
#ifdef KERNEL_ZEPHYR
#include "zephyr_stack.h"
#endif

enum rtos_case {
	CASE_FAULT = 1,		/* the crasher thread stores to an unmapped address */
	CASE_OVERFLOW,		/* the crasher thread recurses off the end of its stack */
	CASE_ISR,		/* the tick interrupt's work stores to an unmapped address */
	CASE_FPU,		/* the fpu thread stores to an unmapped address, its FP state live */
	CASE_PANIC,		/* Zephyr: the crasher calls k_panic() (an svc, no fault) */
	CASE_NULLCALL,		/* the crasher calls through a NULL function pointer */
	CASE_STALE,		/* the crasher faults above the context of its last switch */
	CASE_ISR_TAIL,		/* ThreadX: a leaf the tick tail-calls faults, lr EXC_RETURN */
};

/* Set by the GDB oracle after load; reset leaves .noinit alone. 0 (plain runs) means a fault. */
__attribute__((section(".noinit"))) volatile uint32_t crash_case;

struct rtos_registry_entry rtos_registry[RTOS_MAX_TASKS];
volatile uint32_t rtos_registry_n;

volatile uint32_t sink;
volatile uint32_t bad_address = RTOS_BAD_ADDRESS;	/* unmapped on every board used */
void (*volatile bad_handler)(uint32_t);	/* never set: a call through it jumps to 0 */
#ifdef __ARM_FP
volatile float fsink = 1.5f;
#endif

#define STACK_WORDS	RTOS_STACK_WORDS
#define CRASH_AFTER_TICKS	12

#ifdef KERNEL_ZEPHYR
/* Zephyr's stack objects, the guard in their reserved bytes below each thread's stack_info. */
static K_THREAD_STACK_ARRAY_DEFINE(thread_stacks, RTOS_MAX_TASKS, STACK_WORDS * 4);
#else
/* A stack with a guard below it, so an overflow tramples nothing the dump needs. */
struct stack_area {
	uint32_t guard[RTOS_GUARD_WORDS];
	uint32_t words[STACK_WORDS];
} __attribute__((aligned(8)));

static struct stack_area stacks[RTOS_MAX_TASKS];
#endif
static unsigned int nr_stacks;

void rtos_registry_add(const char *name, void *tcb, rtos_entry fn, uint32_t *lo, uint32_t *hi)
{
	struct rtos_registry_entry *e = &rtos_registry[rtos_registry_n++];

	e->name = name;
	e->tcb = tcb;
	e->entry = fn;
	e->stack_lo = lo;
	e->stack_hi = hi;
}

/* A task function returned: a bug in the application. */
void rtos_task_exit(void)
{
	__asm__ volatile(".inst.n 0xde01");	/* UDF #1 */
	for (;;)
		;
}

#ifdef RTOS_TASK_RETURN
/* The kernel's configTASK_RETURN_ADDRESS: the application's own catch for a task that returned. */
void vApplicationTaskReturned(void)
{
	rtos_task_exit();
}
#endif

/* The kernel found a stack overflowed at a context switch: crash so the dump is written. */
void rtos_stack_overflow(const char *name)
{
	sink = (uint32_t)name;
	__asm__ volatile(".inst.n 0xde02");	/* UDF #2 */
	for (;;)
		;
}

/* ---- sensor: a deep chain that ends in a delay ---- */

static NOINLINE uint32_t sensor_settle(uint32_t ch)
{
	rtos_delay(3 + (ch & 1));
	return ch * 7 + sink;
}

static NOINLINE uint32_t sensor_filter(uint32_t ch, uint32_t prev)
{
	uint32_t v = sensor_settle(ch);

	return (v + prev * 3) / 4;
}

static NOINLINE uint32_t sensor_read(uint32_t ch, uint32_t prev)
{
	uint32_t v = sensor_filter(ch, prev);

	sink = v;
	return v + 1;
}

static void sensor_task(void *arg)
{
	uint32_t ch = (uint32_t)arg, v = 0;

	for (;;)
		v = sensor_read(ch++, v);
}

/* ---- worker: integer work that only the tick interrupts ---- */

static NOINLINE uint32_t worker_mix(uint32_t x, unsigned int rounds)
{
	while (rounds--) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
	}
	return x;
}

static NOINLINE uint32_t worker_block(uint32_t seed)
{
	uint32_t a = worker_mix(seed, 5000);

	return worker_mix(a + 1, 3000) ^ seed;
}

static void worker_task(void *arg)
{
	uint32_t x = (uint32_t)arg;

	for (;;) {
		x = worker_block(x);
		sink = x;
	}
}

#ifdef __ARM_FP
/* ---- fpu: floating point work, preempted with live FP state (extended frames) ---- */

static NOINLINE float fpu_poly(float x, unsigned int n)
{
	float acc = 0.25f;

	while (n--)
		acc = acc * x + 0.5f;
	return acc;
}

static NOINLINE float fpu_integrate(float a, float b)
{
	float sum = 0.0f, x = a, h = (b - a) / 64.0f;
	int i;

	for (i = 0; i < 64; i++, x += h)
		sum += fpu_poly(x, 100) * h;
	return sum;
}

/*
 * The "fpu" case: a store to an unmapped address with FP registers live, so
 * the fault stacks an extended frame whose FP slots lazy preservation only
 * reserves (FPCCR.LSPACT, FPCAR at them when the dump is written).
 */
static NOINLINE void fpu_store(volatile uint32_t *p, float v)
{
	*p = (uint32_t)(v * 3.0f);
	fsink = v;
}

static void fpu_task(void *arg)
{
	(void)arg;
	for (;;) {
		fsink = fpu_integrate(0.0f, fsink > 4.0f ? 0.5f : fsink + 0.75f);
		if (crash_case == CASE_FPU && rtos_ticks >= CRASH_AFTER_TICKS)
			fpu_store((volatile uint32_t *)bad_address, fsink);
	}
}
#endif

/* ---- waiter: blocked on an event that never comes ---- */

static NOINLINE void waiter_wait(uint32_t id)
{
	sink = id;
	rtos_block_forever();
	sink = id + 1;
}

static NOINLINE void waiter_loop(uint32_t id)
{
	for (;;)
		waiter_wait(id++);
}

static void waiter_task(void *arg)
{
	waiter_loop((uint32_t)arg);
}

#if RTOS_FREERTOS
/*
 * ---- FreeRTOS states read from more than one list (eTaskGetState) ----
 * notified: in xSuspendedTaskList with no event, waiting for a notification
 * (blocked); pending: blocked with a timeout, then readied by the crasher
 * while the scheduler is suspended, so its event item is in
 * xPendingReadyList and its state item still in a delayed list (ready);
 * doomed: deleted itself, waiting for the idle task's clean-up (dead).
 */
static NOINLINE void notified_wait(uint32_t id)
{
	sink = id;
	rtos_notify_take();
	sink = id + 1;
}

static void notified_task(void *arg)
{
	for (;;)
		notified_wait((uint32_t)arg);
}

static NOINLINE void pending_wait(uint32_t id)
{
	sink = id;
	rtos_wait_signal(100000);
	sink = id + 1;
}

static void pending_task(void *arg)
{
	for (;;)
		pending_wait((uint32_t)arg);
}

#endif

#if !defined(KERNEL_ZEPHYR) && !defined(KERNEL_LITEOS) && !defined(KERNEL_NUTTX) && !defined(KERNEL_UCOS)
/* doomed: deleted (FreeRTOS) or terminated (ThreadX) itself; the kernel still lists it. */
static NOINLINE void doomed_finish(uint32_t id)
{
	sink = id;
	rtos_delete_self();
}

static void doomed_task(void *arg)
{
	doomed_finish((uint32_t)arg);
}
#endif

/* ---- crasher: a fault, or a stack overflow, after the others have all run ---- */

NOINLINE void crasher_store(volatile uint32_t *p, uint32_t v)
{
	*p = v;
	sink = v;
}

static NOINLINE void crasher_apply(uint32_t v)
{
	crasher_store((volatile uint32_t *)bad_address, v * 2);
	sink = v;
}

/*
 * Each level takes 128 bytes of stack. v7-M has no stack limit register: the
 * kernel checks the stack at each context switch, so each level yields. On
 * v8-M, PSPLIM stops the push that crosses the limit.
 */
NOINLINE uint32_t crasher_recurse(uint32_t depth)
{
	volatile uint32_t buf[28];

	if (depth > 100000)	/* never: the stack ends long before */
		return 0;
	buf[depth % 28] = depth;
	if (!RTOS_V8M)
		rtos_yield();
	return crasher_recurse(depth + 1) + buf[(depth + 1) % 28];
}

/*
 * The application's work in the tick interrupt (a timer's expiry function,
 * FreeRTOS's tick hook): in the "isr" case it faults there, on the interrupt
 * stack, over whichever thread the tick preempted.
 */
void rtos_tick_hook(void)
{
	if (crash_case == CASE_ISR && rtos_ticks >= CRASH_AFTER_TICKS)
		crasher_apply(rtos_ticks);
}

#ifdef KERNEL_THREADX
/*
 * The application's last work in the tick, called in tail position as the
 * real ThreadX bench's SysTick_Handler ends in its hook: a leaf that runs with
 * the handler's EXC_RETURN still in lr. In the "isrtail" case it faults
 * there: the fault's frame is the handler's whole chain, one frame, whose
 * return is the exception return to the thread.
 */
NOINLINE void rtos_tick_tail(void)
{
	if (crash_case == CASE_ISR_TAIL && rtos_ticks >= CRASH_AFTER_TICKS)
		*(volatile uint32_t *)bad_address = rtos_ticks;
}
#define IN_TICK_CASE(c)	((c) == CASE_ISR || (c) == CASE_ISR_TAIL)
#else
#define IN_TICK_CASE(c)	((c) == CASE_ISR)
#endif

/*
 * A call through a NULL pointer: the fetch at 0 faults (INVSTATE, the
 * pointer's Thumb bit clear), the stacked pc is 0 and the caller is in lr.
 */
static NOINLINE void crasher_dispatch(uint32_t v)
{
	bad_handler(v);
	sink = v;
}

#ifdef KERNEL_ZEPHYR
/* k_panic(): ARCH_EXCEPT() on v7-M and v8-M Mainline, an svc with the reason in r0. */
static NOINLINE void crasher_panic(uint32_t v)
{
	sink = v;
	rtos_panic();
	sink = v + 1;
}
#endif

#if defined(KERNEL_THREADX) || defined(KERNEL_LITEOS) || defined(KERNEL_NUTTX) || defined(KERNEL_RTTHREAD) || defined(KERNEL_RTX5) || defined(KERNEL_UCOS)
/*
 * The "stale" case waits here, deeper than its fault will be: the context the
 * kernel saved at its last switch stays whole below the fault's frame, and
 * its chain runs up through that frame, as on the real LiteOS-M bench. ThreadX
 * and LiteOS-M leave the TCB's saved sp at it while the thread runs; NuttX
 * clears the running task's xcp.regs, and only the context's own first word
 * (the sp above its hardware frame) says what it is.
 */
static NOINLINE void crasher_wait(uint32_t ticks)
{
	volatile uint32_t pad[24];

	pad[ticks % 24] = ticks;
	rtos_delay(ticks);
	sink = pad[(ticks + 1) % 24];
}
#define RTOS_WAIT(t)	(crash_case == CASE_STALE ? crasher_wait(t) : rtos_delay(t))
#else
/* FreeRTOS's and Zephyr's builds stay as they were: their crashes are laid out as before. */
#define RTOS_WAIT(t)	rtos_delay(t)
#endif

static void crasher_task(void *arg)
{
	(void)arg;
	while (rtos_ticks < CRASH_AFTER_TICKS || IN_TICK_CASE(crash_case) || crash_case == CASE_FPU)
		RTOS_WAIT(2);
	if (crash_case == CASE_OVERFLOW)
		sink = crasher_recurse(0);
#ifdef KERNEL_ZEPHYR
	if (crash_case == CASE_PANIC)
		crasher_panic(0x4321);
#endif
	if (crash_case == CASE_NULLCALL)
		crasher_dispatch(0x5678);
#if RTOS_FREERTOS
	rtos_signal_suspended();
#endif
	crasher_apply(0x1234);
	for (;;)
		rtos_delay(100);
}

/* ---- idle ---- */

static void idle_task(void *arg)
{
	(void)arg;
	for (;;)
		__asm__ volatile("wfi");
}

static uint32_t *stack_for(uint32_t *words)
{
	*words = STACK_WORDS;
#ifdef KERNEL_ZEPHYR
	return (uint32_t *)K_THREAD_STACK_BUFFER(thread_stacks[nr_stacks++]);
#else
	return stacks[nr_stacks++].words;
#endif
}

int main(void)
{
	uint32_t n;

	rtos_create("IDLE", idle_task, 0, 0, stack_for(&n), n);
	rtos_create("sensor", sensor_task, (void *)3, 2, stack_for(&n), n);
	rtos_create("worker", worker_task, (void *)0x9e3779b9, 1, stack_for(&n), n);
#ifdef __ARM_FP
	rtos_create("fpu", fpu_task, 0, 1, stack_for(&n), n);
#endif
	rtos_create("waiter", waiter_task, (void *)40, 3, stack_for(&n), n);
#if RTOS_FREERTOS
	rtos_create("notified", notified_task, (void *)50, 3, stack_for(&n), n);
	rtos_create("pending", pending_task, (void *)60, 3, stack_for(&n), n);
#endif
#if !defined(KERNEL_ZEPHYR) && !defined(KERNEL_LITEOS) && !defined(KERNEL_NUTTX) && !defined(KERNEL_UCOS)
	rtos_create("doomed", doomed_task, (void *)70, 3, stack_for(&n), n);
#endif
	rtos_create("crasher", crasher_task, 0, 2, stack_for(&n), n);
	rtos_start();
}
