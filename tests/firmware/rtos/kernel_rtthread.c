// SPDX-License-Identifier: GPL-2.0
/*
 * kernel_rtthread.c - the test scheduler with its state in the shapes and
 * under the names RT-Thread 4.x (and its nano edition) uses on Cortex-M
 * (rtdef.h's struct rt_thread, the object container, rt_current_thread,
 * rt_thread_priority_table, the defunct list, the port's switch variables).
 * Written from reading rtdef.h, scheduler.c, thread.c, idle.c, object.c and
 * the cortex-m ports; no RT-Thread code.
 *
 * What the real kernel leaves that an analyzer meets: every thread in the
 * object container's thread list, newest first, until the idle thread frees
 * a closed one; a ready thread in rt_thread_priority_table through tlist,
 * the running one on no list; a thread blocked on a semaphore in its
 * suspend_thread list; a sleeping one suspended with its own timer active; a
 * closed one in _rt_thread_defunct; stacks filled with '#'; a new thread's
 * frame returning to _thread_exit; the kernel's own "tidle0" (lowest
 * priority) and "timer" (the soft-timer thread, suspended with nothing to
 * do) made before the application's threads; rt_schedule() in the tick
 * naming the next thread in rt_current_thread before the PendSV it pends has
 * switched (rt_interrupt_from_thread still the interrupted thread's sp); the
 * main stack reset to its top when the first thread starts.
 */
#include <stdint.h>
#include "rtos.h"

#define RT_NAME_MAX		8
#define RT_THREAD_PRIORITY_MAX	32
#define RT_TIMER_THREAD_PRIO	4
#define KERNEL_STACK_WORDS	128

/* rtdef.h */
#define RT_Object_Class_Thread		0x01
#define RT_Object_Class_Semaphore	0x02
#define RT_Object_Class_Timer		0x0a
#define RT_Object_Class_Static		0x80
#define RT_THREAD_INIT		0x00
#define RT_THREAD_READY		0x01
#define RT_THREAD_SUSPEND	0x02
#define RT_THREAD_RUNNING	0x03
#define RT_THREAD_CLOSE		0x04
#define RT_THREAD_STAT_MASK	0x07
#define RT_THREAD_STAT_YIELD	0x08
#define RT_TIMER_FLAG_ACTIVATED	0x01

typedef struct rt_list_node {
	struct rt_list_node *next, *prev;
} rt_list_t;

struct rt_object {
	char name[RT_NAME_MAX];
	uint8_t type;
	uint8_t flag;
	rt_list_t list;
};

struct rt_timer {
	struct rt_object parent;
	rt_list_t row[1];
	void (*timeout_func)(void *parameter);
	void *parameter;
	uint32_t init_tick, timeout_tick;
};

/*
 * struct rt_thread in rtdef.h's order with RT_USING_EVENT (which moves the
 * thread's timer: crashwalk measures where it is without DWARF).
 */
struct rt_thread {
	char name[RT_NAME_MAX];
	uint8_t type;
	uint8_t flags;
	rt_list_t list;
	rt_list_t tlist;
	void *sp;
	void *entry;
	void *parameter;
	void *stack_addr;
	uint32_t stack_size;
	int32_t error;
	uint8_t stat;
	uint8_t current_priority;
	uint32_t number_mask;
	uint32_t event_set;
	uint8_t event_info;
	uint32_t init_tick, remaining_tick;
	struct rt_timer thread_timer;
	void (*cleanup)(struct rt_thread *tid);
	uint32_t user_data;
};

struct rt_ipc_object {
	struct rt_object parent;
	rt_list_t suspend_thread;
};

struct rt_semaphore {
	struct rt_ipc_object parent;
	uint16_t value, reserved;
};

struct rt_object_information {
	int type;		/* enum rt_object_class_type */
	rt_list_t object_list;
	uint32_t object_size;
};

#define LIST_INIT(l)	{ &(l), &(l) }

enum { INFO_THREAD, INFO_SEMAPHORE, INFO_TIMER, INFO_NR };
static struct rt_object_information _object_container[INFO_NR] = {
	{ RT_Object_Class_Thread, LIST_INIT(_object_container[INFO_THREAD].object_list),
	  sizeof(struct rt_thread) },
	{ RT_Object_Class_Semaphore, LIST_INIT(_object_container[INFO_SEMAPHORE].object_list),
	  sizeof(struct rt_semaphore) },
	{ RT_Object_Class_Timer, LIST_INIT(_object_container[INFO_TIMER].object_list),
	  sizeof(struct rt_timer) },
};

rt_list_t rt_thread_priority_table[RT_THREAD_PRIORITY_MAX];
uint32_t rt_thread_ready_priority_group;
struct rt_thread *rt_current_thread;
uint8_t rt_current_priority;
volatile uint8_t rt_interrupt_nest;
static volatile uint32_t rt_tick;
static rt_list_t _rt_thread_defunct = LIST_INIT(_rt_thread_defunct);
static rt_list_t _timer_list[1] = { LIST_INIT(_timer_list[0]) };

/* The port's (cpuport.c): the switch PendSV is to make. */
volatile uint32_t rt_interrupt_from_thread, rt_interrupt_to_thread;
volatile uint32_t rt_thread_switch_interrupt_flag;
#if RTOS_V8M
/* The cortex-m33 port's trustzone.c: 0, no thread has a Secure context. */
volatile uint32_t rt_trustzone_current_context;
#endif

static struct rt_thread threads[RTOS_MAX_TASKS];
static unsigned int nr_threads;
static struct rt_thread idle, _timer_thread;
static uint32_t idle_stack[KERNEL_STACK_WORDS] __attribute__((aligned(8)));
static uint32_t timer_stack[KERNEL_STACK_WORDS] __attribute__((aligned(8)));
static struct rt_semaphore never_signalled;

volatile uint32_t rtos_ticks;

static void list_init(rt_list_t *l)
{
	l->next = l->prev = l;
}

static void list_insert_after(rt_list_t *l, rt_list_t *n)
{
	l->next->prev = n;
	n->next = l->next;
	l->next = n;
	n->prev = l;
}

static void list_insert_before(rt_list_t *l, rt_list_t *n)
{
	l->prev->next = n;
	n->prev = l->prev;
	l->prev = n;
	n->next = l;
}

static void list_remove(rt_list_t *n)
{
	n->next->prev = n->prev;
	n->prev->next = n->next;
	list_init(n);
}

static void object_init(struct rt_object *o, int info, uint8_t cls, const char *name)
{
	unsigned int i;

	for (i = 0; i < RT_NAME_MAX; i++) {
		o->name[i] = name[i];
		if (!name[i])
			break;
	}
	o->type = cls | RT_Object_Class_Static;
	/* rt_object_init: the newest object first. */
	list_insert_after(&_object_container[info].object_list, &o->list);
}

/* The thread's function returned: rt_hw_stack_init gave it this return address. */
NOINLINE void _thread_exit(void)
{
	rtos_task_exit();
}

/*
 * The GCC ports' rt_hw_stack_init, from the stack's last word rounded down
 * to 8: every register 0xdeadbeef, r0 the parameter, lr _thread_exit, pc
 * the entry, xPSR the Thumb bit; below the hardware frame, as PendSV pops
 * it (port.S): r4-r11 (cortex-m0/m3), the FPU flag 0 and r4-r11 (cortex-m4
 * with an FPU), the TrustZone context 0, EXC_RETURN, PSPLIM, CONTROL and
 * r4-r11 (cortex-m33). The real port's PSPLIM is 0; here it is the stack's
 * low end, as a BSP that sets the limit has it, so an overflow faults.
 */
#if RTOS_V8M
#define CTX_WORDS	12
#elif defined(__ARM_FP)
#define CTX_WORDS	9
#else
#define CTX_WORDS	8
#endif
static void *stack_init(struct rt_thread *t)
{
	uint32_t top = ((uint32_t)t->stack_addr + t->stack_size - 4 + 4) & ~7u;
	uint32_t *sp = (uint32_t *)top - 8 - CTX_WORDS, i;

	for (i = 0; i < 8u + CTX_WORDS; i++)
		sp[i] = 0xdeadbeefu;
	sp[CTX_WORDS + 0] = (uint32_t)t->parameter;
	sp[CTX_WORDS + 1] = sp[CTX_WORDS + 2] = sp[CTX_WORDS + 3] = sp[CTX_WORDS + 4] = 0;
	sp[CTX_WORDS + 5] = (uint32_t)_thread_exit;
	sp[CTX_WORDS + 6] = (uint32_t)t->entry;
	sp[CTX_WORDS + 7] = 0x01000000u;
#if RTOS_V8M
	sp[0] = 0;
	sp[1] = 0xFFFFFFFDu;	/* ARCH_ARM_CORTEX_SECURE: this build runs Secure */
	sp[2] = (uint32_t)t->stack_addr;
	sp[3] = 0;
#elif defined(__ARM_FP)
	sp[0] = 0;
#endif
	return sp;
}

static void thread_timeout(void *parameter);

static void thread_init(struct rt_thread *t, const char *name, rtos_entry fn, void *arg,
			uint8_t prio, uint32_t *stack, uint32_t words)
{
	uint32_t i;

	object_init((struct rt_object *)t, INFO_THREAD, RT_Object_Class_Thread, name);
	list_init(&t->tlist);
	t->entry = (void *)fn;
	t->parameter = arg;
	t->stack_addr = stack;
	t->stack_size = words * 4;
	for (i = 0; i < t->stack_size; i++)
		((volatile uint8_t *)stack)[i] = '#';
	t->sp = stack_init(t);
	t->current_priority = prio;
	t->init_tick = t->remaining_tick = 10;
	t->stat = RT_THREAD_INIT;
	object_init(&t->thread_timer.parent, INFO_TIMER, RT_Object_Class_Timer, t->name);
	list_init(&t->thread_timer.row[0]);
	t->thread_timer.timeout_func = thread_timeout;
	t->thread_timer.parameter = t;
	rtos_registry_add(name, t, fn, stack, stack + words);
}

static void schedule_insert(struct rt_thread *t)
{
	t->stat = RT_THREAD_READY | (t->stat & ~RT_THREAD_STAT_MASK);
	list_insert_before(&rt_thread_priority_table[t->current_priority], &t->tlist);
	rt_thread_ready_priority_group |= 1u << t->current_priority;
}

static void schedule_remove(struct rt_thread *t)
{
	list_remove(&t->tlist);
	if (rt_thread_priority_table[t->current_priority].next ==
	    &rt_thread_priority_table[t->current_priority])
		rt_thread_ready_priority_group &= ~(1u << t->current_priority);
}

/*
 * The ports' rt_hw_context_switch and _interrupt alike: the first request
 * since the last PendSV names the thread to save; a later one only changes
 * where to go.
 */
static void context_switch(uint32_t from, uint32_t to)
{
	if (!rt_thread_switch_interrupt_flag) {
		rt_thread_switch_interrupt_flag = 1;
		rt_interrupt_from_thread = from;
	}
	rt_interrupt_to_thread = to;
	rtos_pend_switch();
}

/* rt_schedule(), interrupts off: the most urgent ready thread, the current kept among equals. */
static void rt_schedule(void)
{
	struct rt_thread *to, *from = rt_current_thread;
	uint32_t prio;
	int insert_from = 0;

	if (!rt_thread_ready_priority_group)
		return;
	prio = __builtin_ctz(rt_thread_ready_priority_group);
	to = (struct rt_thread *)((char *)rt_thread_priority_table[prio].next -
				  __builtin_offsetof(struct rt_thread, tlist));
	if ((from->stat & RT_THREAD_STAT_MASK) == RT_THREAD_RUNNING) {
		if (from->current_priority < prio ||
		    (from->current_priority == prio && !(from->stat & RT_THREAD_STAT_YIELD)))
			to = from;
		else
			insert_from = 1;
		from->stat &= ~RT_THREAD_STAT_YIELD;
	}
	if (to == from)
		return;
	rt_current_priority = (uint8_t)prio;
	rt_current_thread = to;
	if (insert_from)
		schedule_insert(from);
	schedule_remove(to);
	to->stat = RT_THREAD_RUNNING | (to->stat & ~RT_THREAD_STAT_MASK);
	context_switch((uint32_t)&from->sp, (uint32_t)&to->sp);
}

static void kernel_threads(void);

/* The application numbers priorities FreeRTOS's way (higher is more urgent). */
void rtos_create(const char *name, rtos_entry fn, void *arg, unsigned int prio,
		 uint32_t *stack, uint32_t words)
{
	struct rt_thread *t = &threads[nr_threads++];

	kernel_threads();
	thread_init(t, name, fn, arg, (uint8_t)(RT_THREAD_PRIORITY_MAX - 2 - prio), stack, words);
	schedule_insert(t);	/* rt_thread_startup */
}

/* The current thread leaves the run queue, suspended; interrupts off. */
static void suspend_current(void)
{
	struct rt_thread *t = rt_current_thread;

	schedule_remove(t);
	t->stat = RT_THREAD_SUSPEND | (t->stat & ~RT_THREAD_STAT_MASK);
}

/* rt_thread_mdelay: suspended, its own timer started. */
void rtos_delay(uint32_t ticks)
{
	struct rt_thread *t;

	irq_off();
	t = rt_current_thread;
	suspend_current();
	t->thread_timer.init_tick = ticks;
	t->thread_timer.timeout_tick = rt_tick + ticks;
	list_insert_before(&_timer_list[0], &t->thread_timer.row[0]);
	t->thread_timer.parent.flag |= RT_TIMER_FLAG_ACTIVATED;
	rt_schedule();
	irq_on();
}

/* rt_thread_yield, after _scheduler_stack_check's test (RT_USING_OVERFLOW_CHECK). */
void rtos_yield(void)
{
	rtos_check_stack(rt_current_thread->stack_addr, 0x23232323u, rt_current_thread->name);
	irq_off();
	rt_current_thread->stat |= RT_THREAD_STAT_YIELD;
	rt_schedule();
	irq_on();
}

/* rt_sem_take(RT_WAITING_FOREVER) on a semaphore nobody releases. */
void rtos_block_forever(void)
{
	irq_off();
	suspend_current();
	list_insert_before(&never_signalled.parent.suspend_thread, &rt_current_thread->tlist);
	rt_schedule();
	irq_on();
}

/* rt_thread_detach(rt_thread_self()): closed, in the defunct list for the idle thread. */
void rtos_delete_self(void)
{
	struct rt_thread *t;

	irq_off();
	t = rt_current_thread;
	schedule_remove(t);
	list_remove(&t->thread_timer.row[0]);
	t->thread_timer.parent.flag &= ~RT_TIMER_FLAG_ACTIVATED;
	t->stat = RT_THREAD_CLOSE;
	list_insert_after(&_rt_thread_defunct, &t->tlist);
	rt_schedule();
	irq_on();
	for (;;)
		;
}

/* _thread_timeout: the sleep is over, the thread ready again, rescheduled at once. */
static void thread_timeout(void *parameter)
{
	struct rt_thread *t = parameter;

	t->error = -2;	/* -RT_ETIMEOUT */
	list_remove(&t->tlist);
	schedule_insert(t);
	rt_schedule();
}

/*
 * rt_tick_increase and rt_timer_check in the tick interrupt: each expired
 * thread timer's timeout runs rt_schedule() there and then; the
 * application's hard timer (rtos_tick_hook) expires after them.
 */
void rtos_tick(void)
{
	rt_list_t *n, *next;

	rt_interrupt_nest++;
	rtos_ticks = ++rt_tick;
	for (n = _timer_list[0].next; n != &_timer_list[0]; n = next) {
		struct rt_timer *tm = (struct rt_timer *)((char *)n -
							  __builtin_offsetof(struct rt_timer, row));

		next = n->next;
		if ((int32_t)(rt_tick - tm->timeout_tick) < 0)
			continue;
		list_remove(n);
		tm->parent.flag &= ~RT_TIMER_FLAG_ACTIVATED;
		tm->timeout_func(tm->parameter);
	}
	rtos_tick_hook();
	rt_interrupt_nest--;
}

/* Frees the closed threads of _rt_thread_defunct: none here, the idle thread never runs. */
static NOINLINE void rt_defunct_execute(void)
{
	__asm__ volatile("" ::: "memory");
}

/*
 * The idle thread, a caller as the real one is (its frame's EHABI pops what
 * its first instruction has not pushed yet): it never runs under the
 * application's IDLE, so its first frame is still on its stack.
 */
static NOINLINE void rt_thread_idle_entry(void *parameter)
{
	(void)parameter;
	for (;;) {
		rt_defunct_execute();
		__asm__ volatile("wfi");
	}
}

/* rt_thread_suspend(rt_thread_self()) and rt_schedule(), as the timer thread makes them. */
static NOINLINE void timer_thread_wait(void)
{
	irq_off();
	suspend_current();
	rt_schedule();
	irq_on();
}

/* _timer_thread_entry with no soft timer: it suspends itself until one is started. */
static NOINLINE void _timer_thread_entry(void *parameter)
{
	(void)parameter;
	for (;;)
		timer_thread_wait();
}

void rt_hw_context_switch_to(uint32_t to) __attribute__((noreturn));
void board_start_tick(void);

/*
 * The kernel's threads are made first, as rtthread_startup makes them before
 * the application's main thread: the container's list, newest first, puts
 * them last.
 */
static void kernel_threads(void)
{
	static int done;
	unsigned int i;

	if (done++)
		return;
	for (i = 0; i < RT_THREAD_PRIORITY_MAX; i++)
		list_init(&rt_thread_priority_table[i]);
	object_init(&never_signalled.parent.parent, INFO_SEMAPHORE, RT_Object_Class_Semaphore,
		    "never");
	list_init(&never_signalled.parent.suspend_thread);
	thread_init(&_timer_thread, "timer", _timer_thread_entry, 0, RT_TIMER_THREAD_PRIO,
		    timer_stack, KERNEL_STACK_WORDS);
	schedule_insert(&_timer_thread);
	thread_init(&idle, "tidle0", rt_thread_idle_entry, 0, RT_THREAD_PRIORITY_MAX - 1,
		    idle_stack, KERNEL_STACK_WORDS);
	schedule_insert(&idle);
}

/*
 * rt_system_scheduler_start: the most urgent thread (the timer thread), off
 * the run queue and running; the port's rt_hw_context_switch_to starts it
 * through PendSV with nothing to save, the main stack back at its top.
 */
void rtos_start(void)
{
	struct rt_thread *to;
	uint32_t prio;

	irq_off();
	kernel_threads();
	prio = __builtin_ctz(rt_thread_ready_priority_group);
	to = (struct rt_thread *)((char *)rt_thread_priority_table[prio].next -
				  __builtin_offsetof(struct rt_thread, tlist));
	rt_current_thread = to;
	rt_current_priority = (uint8_t)prio;
	schedule_remove(to);
	to->stat = RT_THREAD_RUNNING;
	board_start_tick();
	rt_hw_context_switch_to((uint32_t)&to->sp);
}
