// SPDX-License-Identifier: GPL-2.0
/*
 * kernel_rtx5.c - the test scheduler with its state in the shapes and under
 * the names Keil RTX5 (CMSIS-RTOS2 RTX 5.x) uses on Cortex-M (rtx_os.h's
 * osRtxThread_t, osRtxInfo_t, the semaphore and message queue control
 * blocks, the thread pool's osRtxMpInfo_t). Written from reading rtx_os.h,
 * rtx_thread.c, rtx_kernel.c, rtx_lib.c and the GCC irq_*.S ports; no RTX
 * code.
 *
 * What the real kernel leaves that an analyzer meets: osRtxInfo.thread.run
 * {curr, next}, curr changed only by the port's SVC_Context; the ready list
 * sorted by priority through thread_next, its first thread's thread_prev
 * the ready object; sleeping threads in the delay list and threads waiting
 * with no timeout in the wait list (both through delay_next), a waiter also
 * in its object's thread_list; a joinable thread that exited in the
 * terminate list, its sp the svc frame's (nothing else saved); stacks with
 * the magic word 0xE25A2EA5 at the low end and 0xCCCCCCCC above it; a new
 * thread's frame entering osThreadEntry(argument, func) with lr 0; the
 * kernel's "osRtxIdle" (osPriorityIdle) and "osRtxTimer" (osPriorityHigh,
 * blocked on its message queue) threads made at osKernelStart, whose svc
 * frame stays on the main stack; every API call from a thread an svc 0
 * with the service function in r12 (r7 on ARMv6-M).
 */
#include <stdint.h>
#include "rtos.h"

#define osRtxIdThread		0xF1
#define osRtxIdSemaphore	0xF6
#define osRtxIdMessageQueue	0xFA
#define osRtxThreadReady	0x01
#define osRtxThreadRunning	0x02
#define osRtxThreadBlocked	0x03
#define osRtxThreadTerminated	0x04
#define osRtxThreadWaitingDelay		(osRtxThreadBlocked | 0x10)
#define osRtxThreadWaitingSemaphore	(osRtxThreadBlocked | 0x60)
#define osRtxThreadWaitingMessageGet	(osRtxThreadBlocked | 0x80)
#define osRtxKernelReady	1
#define osRtxKernelRunning	2
#define osThreadJoinable	0x01
#define osPriorityIdle		1
#define osPriorityNormal	24
#define osPriorityHigh		40
#define osWaitForever		0xFFFFFFFFu
#define osRtxStackMagicWord	0xE25A2EA5u
#define osRtxStackFillPattern	0xCCCCCCCCu
#define osRtxErrorStackOverflow	1
#define STACK_FRAME_INIT_VAL	0xFD
#define KERNEL_STACK_WORDS	128

typedef struct osRtxThread_s {
	uint8_t id, state, flags, attr;
	const char *name;
	struct osRtxThread_s *thread_next, *thread_prev, *delay_next, *delay_prev, *thread_join;
	uint32_t delay;
	int8_t priority, priority_base;
	uint8_t stack_frame, flags_options;
	uint32_t wait_flags, thread_flags;
	void *mutex_list;
	void *stack_mem;
	uint32_t stack_size, sp, thread_addr, tz_memory;
	uint8_t zone, reserved[3];
	struct osRtxThread_s *wdog_next;
	uint32_t wdog_tick;
} osRtxThread_t;

typedef struct {
	uint8_t id, state, flags, attr;
	const char *name;
	osRtxThread_t *thread_list;
} osRtxObject_t;

typedef struct {
	uint8_t id, reserved_state, flags, attr;
	const char *name;
	osRtxThread_t *thread_list;
	uint16_t tokens, max_tokens;
} osRtxSemaphore_t;

typedef struct {
	uint32_t max_blocks, used_blocks, block_size;
	void *block_base, *block_lim, *block_free;
} osRtxMpInfo_t;

typedef struct {
	uint8_t id, reserved_state, flags, attr;
	const char *name;
	osRtxThread_t *thread_list;
	osRtxMpInfo_t mp_info;
	uint32_t msg_size, msg_count;
	void *msg_first, *msg_last;
} osRtxMessageQueue_t;

typedef struct {
	const char *os_id;
	uint32_t version;
	struct {
		uint8_t state;
		volatile uint8_t blocked;
		uint8_t pendSV, protect;
		uint32_t tick;
	} kernel;
	int32_t tick_irqn;
	struct {
		struct {
			osRtxThread_t *curr, *next;
		} run;
		osRtxObject_t ready;
		osRtxThread_t *idle, *delay_list, *wait_list, *terminate_list, *wdog_list;
		struct {
			osRtxThread_t *thread;
			uint32_t timeout;
		} robin;
	} thread;
	struct {
		void *list;
		osRtxThread_t *thread;
		osRtxMessageQueue_t *mq;
		void (*tick)(void);
	} timer;
	struct {
		uint16_t max, cnt, in, out;
		void **data;
	} isr_queue;
	struct {
		void (*thread)(osRtxThread_t *);
		void (*event_flags)(void *), (*semaphore)(void *), (*memory_pool)(void *),
			(*message)(void *);
	} post_process;
	struct {
		void *stack, *mp_data, *mq_data, *common;
	} mem;
	struct {
		osRtxMpInfo_t *stack, *thread, *timer, *event_flags, *mutex, *semaphore,
			*memory_pool, *message_queue;
	} mpi;
} osRtxInfo_t;

/* The thread pool the application's threads come from (OS_THREAD_OBJ_MEM): RTX5.scvd reads it. */
static osRtxThread_t os_thread_cb[RTOS_MAX_TASKS];
static osRtxMpInfo_t os_mpi_thread = { RTOS_MAX_TASKS, 0, sizeof(osRtxThread_t),
				       os_thread_cb, os_thread_cb + RTOS_MAX_TASKS, 0 };

osRtxInfo_t osRtxInfo = {
	.os_id = "RTX V5.9.1", .version = 50090001,
	.thread = { .ready = { .id = 0xFD }, .robin = { .timeout = 2 } },	/* ready: no thread */
	.mpi = { .thread = &os_mpi_thread },
};

static osRtxThread_t os_idle_thread_cb, os_timer_thread_cb;
static uint64_t os_idle_thread_stack[KERNEL_STACK_WORDS / 2];
static uint64_t os_timer_thread_stack[KERNEL_STACK_WORDS / 2];
static osRtxMessageQueue_t os_timer_mq_cb = { .id = osRtxIdMessageQueue };
static osRtxSemaphore_t never_signalled = { .id = osRtxIdSemaphore, .name = "never" };

volatile uint32_t rtos_ticks;

/* ---- the svc 0 call of every API function: the service in r12 (v6-M: r7) ---- */

#if defined(__ARM_ARCH_6M__)
#define SVC_REG_F	"r7"
#else
#define SVC_REG_F	"r12"
#endif

static inline uint32_t svc0(void *f, uint32_t a1, uint32_t a2)
{
	register uint32_t r0 __asm__("r0") = a1;
	register uint32_t r1 __asm__("r1") = a2;
	register uint32_t rf __asm__(SVC_REG_F) = (uint32_t)f;

	__asm__ volatile("svc 0" : "+r"(r0), "+r"(r1) : "r"(rf) : "r2", "r3", "lr", "memory");
	return r0;
}

/* ---- the thread lists (rtx_thread.c's library functions) ---- */

static osRtxThread_t *object_as_thread(void *object)
{
	return object;	/* thread_list sits where thread_next does: the head is a node */
}

static void list_put(void *object, osRtxThread_t *thread)
{
	osRtxThread_t *prev = object_as_thread(object), *next = prev->thread_next;

	while (next && next->priority >= thread->priority) {
		prev = next;
		next = next->thread_next;
	}
	thread->thread_prev = prev;
	thread->thread_next = next;
	prev->thread_next = thread;
	if (next)
		next->thread_prev = thread;
}

static osRtxThread_t *list_get(osRtxObject_t *object)
{
	osRtxThread_t *thread = object->thread_list;

	object->thread_list = thread->thread_next;
	if (thread->thread_next)
		thread->thread_next->thread_prev = object_as_thread(object);
	thread->thread_prev = 0;
	return thread;
}

static void list_remove(osRtxThread_t *thread)
{
	if (thread->thread_prev) {
		thread->thread_prev->thread_next = thread->thread_next;
		if (thread->thread_next)
			thread->thread_next->thread_prev = thread->thread_prev;
		thread->thread_prev = 0;
	}
}

static void ready_put(osRtxThread_t *thread)
{
	thread->state = osRtxThreadReady;
	list_put(&osRtxInfo.thread.ready, thread);
}

/* Sorted by remaining delay, each relative to the one before; forever: the wait list's tail. */
static void delay_insert(osRtxThread_t *thread, uint32_t delay)
{
	osRtxThread_t *prev = 0, *next;

	if (delay == osWaitForever) {
		for (next = osRtxInfo.thread.wait_list; next; next = next->delay_next)
			prev = next;
		thread->delay = delay;
		thread->delay_prev = prev;
		thread->delay_next = 0;
		if (prev)
			prev->delay_next = thread;
		else
			osRtxInfo.thread.wait_list = thread;
		return;
	}
	next = osRtxInfo.thread.delay_list;
	while (next && next->delay <= delay) {
		delay -= next->delay;
		prev = next;
		next = next->delay_next;
	}
	thread->delay = delay;
	thread->delay_prev = prev;
	thread->delay_next = next;
	if (prev)
		prev->delay_next = thread;
	else
		osRtxInfo.thread.delay_list = thread;
	if (next) {
		next->delay -= delay;
		next->delay_prev = thread;
	}
}

/* The running thread, preempted: ready again, after the threads of its priority. */
static void thread_block(osRtxThread_t *thread)
{
	osRtxThread_t *prev = object_as_thread(&osRtxInfo.thread.ready), *next = prev->thread_next;

	thread->state = osRtxThreadReady;
	while (next && next->priority > thread->priority) {
		prev = next;
		next = next->thread_next;
	}
	thread->thread_prev = prev;
	thread->thread_next = next;
	prev->thread_next = thread;
	if (next)
		next->thread_prev = thread;
}

/* Chosen: running from the kernel's point of view, the port's SVC_Context makes it curr. */
static void thread_switch(osRtxThread_t *thread)
{
	thread->state = osRtxThreadRunning;
	osRtxInfo.thread.run.next = thread;
}

static void thread_dispatch(osRtxThread_t *thread)
{
	osRtxThread_t *running = osRtxInfo.thread.run.curr;

	if (osRtxInfo.kernel.state == osRtxKernelRunning && thread->priority > running->priority) {
		thread_block(running);
		thread_switch(thread);
	} else {
		ready_put(thread);
	}
}

static int wait_enter(uint8_t state, uint32_t timeout)
{
	osRtxThread_t *thread = osRtxInfo.thread.run.curr;

	if (osRtxInfo.kernel.state != osRtxKernelRunning || !osRtxInfo.thread.ready.thread_list)
		return 0;
	thread->state = state;
	delay_insert(thread, timeout);
	thread_switch(list_get(&osRtxInfo.thread.ready));
	return 1;
}

/* The expired sleepers become ready, each off its object's list. */
static void delay_tick(void)
{
	osRtxThread_t *thread = osRtxInfo.thread.delay_list;

	if (!thread || --thread->delay)
		return;
	do {
		list_remove(thread);
		ready_put(thread);
		thread = thread->delay_next;
	} while (thread && !thread->delay);
	if (thread)
		thread->delay_prev = 0;
	osRtxInfo.thread.delay_list = thread;
}

/* ---- threads ---- */

typedef void (*osThreadFunc_t)(void *argument);

/* The exit of a thread (svcRtxThreadExit): only its sp saved, the svc frame's. */
static void svcRtxThreadExit(void)
{
	osRtxThread_t *thread = osRtxInfo.thread.run.curr;
	uint32_t psp;

	if (osRtxInfo.kernel.state != osRtxKernelRunning || !osRtxInfo.thread.ready.thread_list)
		return;
	thread_switch(list_get(&osRtxInfo.thread.ready));
	__asm__ volatile("mrs %0, psp" : "=r"(psp));
	thread->sp = psp;
	osRtxInfo.thread.run.curr = 0;
	/* osRtxThreadDestroy of a joinable thread: kept, terminated, for osThreadJoin. */
	thread->state = osRtxThreadTerminated;
	thread->thread_prev = 0;
	thread->thread_next = osRtxInfo.thread.terminate_list;
	if (osRtxInfo.thread.terminate_list)
		osRtxInfo.thread.terminate_list->thread_prev = thread;
	osRtxInfo.thread.terminate_list = thread;
}

NOINLINE __attribute__((noreturn)) void osThreadExit(void)
{
	svc0(svcRtxThreadExit, 0, 0);
	for (;;)
		;
}

/* Every thread starts here (rtx_thread.c), lr 0: the function, then the exit. */
static NOINLINE __attribute__((noreturn)) void osThreadEntry(void *argument, osThreadFunc_t func)
{
	func(argument);
	osThreadExit();
	for (;;)
		;
}

/*
 * svcRtxThreadNew's initial context, at the stack's top less 64: r4-r11 0,
 * r0 the argument, r1 the function, r2, r3, r12, lr 0, pc osThreadEntry,
 * xPSR the Thumb bit; the magic word at the low end, the fill between.
 */
static void thread_init(osRtxThread_t *t, const char *name, osThreadFunc_t fn, void *arg,
			int8_t prio, uint8_t attr, void *stack, uint32_t size)
{
	uint32_t *ptr = stack, n;

	t->id = osRtxIdThread;
	t->attr = attr;
	t->name = name;
	t->priority = t->priority_base = prio;
	t->stack_frame = STACK_FRAME_INIT_VAL;
	t->stack_mem = stack;
	t->stack_size = size;
	t->sp = (uint32_t)stack + size - 64;
	t->thread_addr = (uint32_t)fn;
	ptr[0] = osRtxStackMagicWord;
	for (n = size / 4 - (16 + 1); n; n--)
		*++ptr = osRtxStackFillPattern;
	ptr = (uint32_t *)t->sp;
	for (n = 0; n < 14; n++)
		ptr[n] = 0;
	ptr[14] = (uint32_t)osThreadEntry;
	ptr[15] = 0x01000000u;
	ptr[8] = (uint32_t)arg;
	ptr[9] = (uint32_t)fn;
	rtos_registry_add(name, t, fn, stack, (uint32_t *)((uint8_t *)stack + size));
}

struct thread_new {
	const char *name;
	osThreadFunc_t fn;
	void *arg;
	int8_t prio;
	uint32_t *stack, words;
};

static osRtxThread_t *svcRtxThreadNew(struct thread_new *a)
{
	osRtxThread_t *t = &os_thread_cb[os_mpi_thread.used_blocks++];

	/* The application's doomed thread is joinable, so its end stays listed. */
	thread_init(t, a->name, a->fn, a->arg, a->prio, osThreadJoinable, a->stack, a->words * 4);
	thread_dispatch(t);
	return t;
}

/* The application numbers priorities FreeRTOS's way (higher is more urgent). */
void rtos_create(const char *name, rtos_entry fn, void *arg, unsigned int prio,
		 uint32_t *stack, uint32_t words)
{
	struct thread_new a = { name, fn, arg, (int8_t)(osPriorityNormal + prio), stack, words };

	svc0(svcRtxThreadNew, (uint32_t)&a, 0);
}

static void svcRtxDelay(uint32_t ticks)
{
	if (ticks)
		wait_enter(osRtxThreadWaitingDelay, ticks);
}

void rtos_delay(uint32_t ticks)
{
	svc0(svcRtxDelay, ticks, 0);
}

/*
 * A switch at each level (osDelay(1), as the real-kernel bench's yield):
 * the port's RTX_STACK_CHECK finds the overflow as it saves the thread, run.next
 * already current, and osRtxKernelErrorNotify stops there, in the handler.
 */
void rtos_yield(void)
{
	svc0(svcRtxDelay, 1, 0);
}

/* osSemaphoreAcquire(never, osWaitForever): in the wait list and the semaphore's list. */
static void svcRtxSemaphoreAcquire(osRtxSemaphore_t *sem, uint32_t timeout)
{
	if (sem->tokens) {
		sem->tokens--;
		return;
	}
	if (timeout && wait_enter(osRtxThreadWaitingSemaphore, timeout))
		list_put(sem, osRtxInfo.thread.run.curr);
}

void rtos_block_forever(void)
{
	svc0(svcRtxSemaphoreAcquire, (uint32_t)&never_signalled, osWaitForever);
}

void rtos_delete_self(void)
{
	osThreadExit();
}

/* ---- the kernel's threads ---- */

/* osRtxIdleThread (RTX_Config.c): it never runs under the application's IDLE. */
static NOINLINE __attribute__((noreturn)) void osRtxIdleThread(void *argument)
{
	(void)argument;
	for (;;)
		__asm__ volatile("wfi");
}

static void svcRtxMessageQueueGet(osRtxMessageQueue_t *mq, uint32_t timeout)
{
	if (mq->msg_count) {
		mq->msg_count--;
		return;
	}
	if (timeout && wait_enter(osRtxThreadWaitingMessageGet, timeout))
		list_put(mq, osRtxInfo.thread.run.curr);
}

/* osRtxTimerThread: no timer is started, so it waits on its queue for good. */
static NOINLINE __attribute__((noreturn)) void osRtxTimerThread(void *argument)
{
	osRtxMessageQueue_t *mq = argument;

	for (;;)
		svc0(svcRtxMessageQueueGet, (uint32_t)mq, osWaitForever);
}

void board_start_tick(void);

static uint32_t svcRtxKernelStart(void)
{
	thread_init(&os_idle_thread_cb, "osRtxIdle", osRtxIdleThread, 0, osPriorityIdle, 0,
		    os_idle_thread_stack, sizeof(os_idle_thread_stack));
	ready_put(&os_idle_thread_cb);
	osRtxInfo.thread.idle = &os_idle_thread_cb;
	thread_init(&os_timer_thread_cb, "osRtxTimer", osRtxTimerThread, &os_timer_mq_cb,
		    osPriorityHigh, 0, os_timer_thread_stack, sizeof(os_timer_thread_stack));
	ready_put(&os_timer_thread_cb);
	osRtxInfo.timer.thread = &os_timer_thread_cb;
	osRtxInfo.timer.mq = &os_timer_mq_cb;
	board_start_tick();
	thread_switch(list_get(&osRtxInfo.thread.ready));
	osRtxInfo.kernel.state = osRtxKernelRunning;
	return 0;
}

/* osKernelStart: its svc frame stays on the main stack, the thread runs on the PSP. */
NOINLINE uint32_t osKernelStart(void)
{
	return svc0(svcRtxKernelStart, 0, 0);
}

void rtos_start(void)
{
	osKernelStart();
	for (;;)
		;
}

/* ---- the port's C half ---- */

/* The port's check at a switch (RTX_STACK_CHECK): the saved sp above the magic word. */
uint32_t osRtxThreadStackCheck(const osRtxThread_t *thread)
{
	return thread->sp > (uint32_t)thread->stack_mem &&
	       *(uint32_t *)thread->stack_mem == osRtxStackMagicWord;
}

/* osRtxErrorNotify's overflow: the application stops there (RTX_Config.c's default spins). */
uint32_t osRtxKernelErrorNotify(uint32_t code, void *object_id)
{
	(void)code;
	rtos_stack_overflow(((osRtxThread_t *)object_id)->name);
}

void osRtxPendSV_Handler(void)
{
}

/*
 * osRtxTick_Handler: the sleepers whose delay ended are ready, the most
 * urgent one dispatched; the application's timer work (rtos_tick_hook) where
 * the timers' tick runs, in the interrupt; then round robin among threads of
 * one priority (OS_ROBIN_TIMEOUT 2 here, 5 by default: so the fpu thread is
 * preempted with its FP state live before the crash), its count in the
 * thread's delay.
 */
void osRtxTick_Handler(void)
{
	osRtxThread_t *thread, *robin;

	rtos_ticks = ++osRtxInfo.kernel.tick;
	delay_tick();
	thread = osRtxInfo.thread.ready.thread_list;
	if (thread && thread->priority > osRtxInfo.thread.run.curr->priority) {
		list_remove(thread);
		thread_block(osRtxInfo.thread.run.curr);
		thread_switch(thread);
	}
	rtos_tick_hook();
	thread = osRtxInfo.thread.run.next;
	if (thread != osRtxInfo.thread.robin.thread) {
		osRtxInfo.thread.robin.thread = thread;
		if (!thread->delay)
			thread->delay = osRtxInfo.thread.robin.timeout;
	}
	if (thread->delay)
		thread->delay--;
	if (thread->delay)
		return;
	robin = thread;
	thread = osRtxInfo.thread.ready.thread_list;
	if (thread && thread->priority == robin->priority) {
		list_remove(thread);
		ready_put(robin);
		thread_switch(thread);
		osRtxInfo.thread.robin.thread = thread;
		thread->delay = osRtxInfo.thread.robin.timeout;
	}
}

void rtos_tick(void)
{
	osRtxTick_Handler();
}
