// SPDX-License-Identifier: GPL-2.0
/*
 * kernel_threadx.c - the test scheduler with its state in the shapes and
 * under the names Eclipse ThreadX 6.x uses on Cortex-M (tx_api.h's TX_THREAD,
 * the created list, _tx_thread_current_ptr), so a debugger that knows ThreadX
 * reads it as ThreadX. Written from the documented data structures and the
 * port's behaviour; no ThreadX code.
 *
 * What a real ThreadX build leaves and this one does too: every thread in a
 * circular created list, doubly linked, counted by _tx_thread_created_count,
 * terminated threads staying in it; thread states as tx_api.h numbers them;
 * stacks filled with 0xEF at creation; a "System Timer Thread" at priority 0
 * that suspends itself once started; no idle thread (with nothing ready,
 * PendSV waits with _tx_thread_current_ptr NULL); every thread started by
 * _tx_thread_shell_entry from a built frame whose lr is 0xFFFFFFFF; and the
 * scheduler's start in thread mode on the main stack, PendSV pended and the
 * CPU spinning at __tx_wait_here, whose exception frame stays there, stale
 * (port.S).
 */
#include <stdint.h>
#include "rtos.h"

#define TX_STACK_FILL	0xEFEFEFEFu
#define TX_THREAD_ID	0x54485244u
#define TX_SEMAPHORE_ID	0x53454D41u
#define TX_MAX_PRIORITIES	32
#define TX_INITIALIZE_IN_PROGRESS	0xF0F0F0F0u
#define TIMER_STACK_WORDS	256

/* Thread states (tx_api.h). */
#define TX_READY	0
#define TX_COMPLETED	1
#define TX_TERMINATED	2
#define TX_SUSPENDED	3
#define TX_SLEEP	4
#define TX_SEMAPHORE_SUSP	6

typedef uint32_t ULONG;
typedef unsigned int UINT;
typedef char CHAR;

typedef struct TX_TIMER_INTERNAL_STRUCT {
	ULONG tx_timer_internal_remaining_ticks;
	ULONG tx_timer_internal_re_initialize_ticks;
	void (*tx_timer_internal_timeout_function)(ULONG id);
	ULONG tx_timer_internal_timeout_param;
	struct TX_TIMER_INTERNAL_STRUCT *tx_timer_internal_active_next;
	struct TX_TIMER_INTERNAL_STRUCT *tx_timer_internal_active_previous;
	struct TX_TIMER_INTERNAL_STRUCT **tx_timer_internal_list_head;
} TX_TIMER_INTERNAL;

/*
 * TX_THREAD in tx_api.h's order. The port's assembly (port.S) uses the first
 * fields by offset: tx_thread_run_count at 4, tx_thread_stack_ptr at 8.
 */
typedef struct TX_THREAD_STRUCT {
	ULONG tx_thread_id;
	ULONG tx_thread_run_count;
	void *tx_thread_stack_ptr;
	void *tx_thread_stack_start;
	void *tx_thread_stack_end;	/* the stack's last byte */
	ULONG tx_thread_stack_size;
	ULONG tx_thread_time_slice;
	ULONG tx_thread_new_time_slice;
	struct TX_THREAD_STRUCT *tx_thread_ready_next, *tx_thread_ready_previous;
	CHAR *tx_thread_name;
	UINT tx_thread_priority;	/* 0 is the most urgent */
	UINT tx_thread_state;
	UINT tx_thread_delayed_suspend;
	UINT tx_thread_suspending;
	UINT tx_thread_preempt_threshold;
	void (*tx_thread_schedule_hook)(struct TX_THREAD_STRUCT *t, ULONG id);
	void (*tx_thread_entry)(ULONG id);
	ULONG tx_thread_entry_parameter;
	TX_TIMER_INTERNAL tx_thread_timer;
	void (*tx_thread_suspend_cleanup)(struct TX_THREAD_STRUCT *t, ULONG seq);
	void *tx_thread_suspend_control_block;
	struct TX_THREAD_STRUCT *tx_thread_suspended_next, *tx_thread_suspended_previous;
	ULONG tx_thread_suspend_info;
	void *tx_thread_additional_suspend_info;
	UINT tx_thread_suspend_option;
	UINT tx_thread_suspend_status;
	struct TX_THREAD_STRUCT *tx_thread_created_next, *tx_thread_created_previous;
	void *tx_thread_filex_ptr;
	UINT tx_thread_user_priority;
	UINT tx_thread_user_preempt_threshold;
	UINT tx_thread_inherit_priority;
	UINT tx_thread_owned_mutex_count;
	void *tx_thread_owned_mutex_list;
	void *tx_thread_stack_highest_ptr;
	void (*tx_thread_entry_exit_notify)(struct TX_THREAD_STRUCT *t, UINT type);
	ULONG tx_thread_suspension_sequence;
} TX_THREAD;

typedef struct TX_SEMAPHORE_STRUCT {
	ULONG tx_semaphore_id;
	CHAR *tx_semaphore_name;
	ULONG tx_semaphore_count;
	TX_THREAD *tx_semaphore_suspension_list;
	UINT tx_semaphore_suspended_count;
	struct TX_SEMAPHORE_STRUCT *tx_semaphore_created_next, *tx_semaphore_created_previous;
} TX_SEMAPHORE;

TX_THREAD *volatile _tx_thread_current_ptr;
TX_THREAD *volatile _tx_thread_execute_ptr;
TX_THREAD *_tx_thread_created_ptr;
ULONG _tx_thread_created_count;
volatile ULONG _tx_thread_system_state = TX_INITIALIZE_IN_PROGRESS;
volatile UINT _tx_thread_preempt_disable;
void *_tx_thread_system_stack_ptr;
volatile ULONG _tx_timer_system_clock;
TX_THREAD _tx_timer_thread;

static TX_THREAD threads[RTOS_MAX_TASKS];
static unsigned int nr_threads;
static uint32_t timer_stack[TIMER_STACK_WORDS] __attribute__((aligned(8)));
static TX_SEMAPHORE never_signalled = { TX_SEMAPHORE_ID, "never", 0, 0, 0, 0, 0 };
static ULONG wake_at[RTOS_MAX_TASKS + 1];

volatile uint32_t rtos_ticks;

extern uint32_t __msp_stack_hi[];

/*
 * Every thread's first function (_tx_thread_stack_build puts it in the built
 * frame's pc): the entry with its parameter, then "completed".
 */
NOINLINE void _tx_thread_shell_entry(void)
{
	TX_THREAD *t = _tx_thread_current_ptr;

	t->tx_thread_entry(t->tx_thread_entry_parameter);
	rtos_task_exit();
}

/*
 * The Cortex-M ports' _tx_thread_stack_build: below the stack's 8-aligned
 * end, the frame PendSV pops as if the thread had been switched out: the
 * EXC_RETURN of a basic frame, r4-r11, then the hardware frame (lr
 * 0xFFFFFFFF, pc the shell entry, xPSR only the Thumb bit).
 */
static void stack_build(TX_THREAD *t)
{
	uint32_t *sp = (uint32_t *)(((uint32_t)t->tx_thread_stack_end & ~7u) - 68), i;

	sp[0] = 0xFFFFFFFDu;
	for (i = 1; i <= 13; i++)
		sp[i] = 0;		/* r4-r11, r0-r3, r12 */
	sp[14] = 0xFFFFFFFFu;
	sp[15] = (uint32_t)_tx_thread_shell_entry;
	sp[16] = 0x01000000u;
	t->tx_thread_stack_ptr = sp;
}

static TX_THREAD *create(TX_THREAD *t, const char *name, rtos_entry fn, void *arg, UINT prio,
			 uint32_t *stack, uint32_t words)
{
	uint32_t i;

	for (i = 0; i < words; i++)
		stack[i] = TX_STACK_FILL;
	t->tx_thread_name = (CHAR *)name;
	t->tx_thread_entry = (void (*)(ULONG))(void (*)(void))fn;
	t->tx_thread_entry_parameter = (ULONG)arg;
	t->tx_thread_stack_start = stack;
	t->tx_thread_stack_size = words * 4;
	t->tx_thread_stack_end = (char *)stack + words * 4 - 1;
	t->tx_thread_priority = t->tx_thread_user_priority = prio;
	t->tx_thread_preempt_threshold = t->tx_thread_user_preempt_threshold = prio;
	t->tx_thread_inherit_priority = TX_MAX_PRIORITIES;
	stack_build(t);
	t->tx_thread_stack_highest_ptr = t->tx_thread_stack_ptr;
	t->tx_thread_state = TX_READY;
	t->tx_thread_id = TX_THREAD_ID;
	/* tx_thread_create: the new thread goes last in the circular created list. */
	if (!_tx_thread_created_count) {
		_tx_thread_created_ptr = t;
		t->tx_thread_created_next = t->tx_thread_created_previous = t;
	} else {
		TX_THREAD *next = _tx_thread_created_ptr, *prev = next->tx_thread_created_previous;

		next->tx_thread_created_previous = t;
		prev->tx_thread_created_next = t;
		t->tx_thread_created_previous = prev;
		t->tx_thread_created_next = next;
	}
	_tx_thread_created_count++;
	rtos_registry_add(name, t, fn, stack, stack + words);
	return t;
}

/* The application numbers priorities FreeRTOS's way (higher is more urgent). */
void rtos_create(const char *name, rtos_entry fn, void *arg, unsigned int prio,
		 uint32_t *stack, uint32_t words)
{
	create(&threads[nr_threads++], name, fn, arg, TX_MAX_PRIORITIES - 1 - prio, stack, words);
}

static unsigned int thread_index(const TX_THREAD *t)
{
	return t == &_tx_timer_thread ? RTOS_MAX_TASKS : (unsigned int)(t - threads);
}

/*
 * The next thread to run: the most urgent ready one, the one after the
 * current among equals (time slicing); NULL when none is ready.
 */
static TX_THREAD *pick(void)
{
	TX_THREAD *best = 0, *t = _tx_thread_created_ptr, *from = _tx_thread_execute_ptr;
	unsigned int i;

	if (from)
		t = from->tx_thread_created_next;
	for (i = 0; i < _tx_thread_created_count; i++, t = t->tx_thread_created_next)
		if (t->tx_thread_state == TX_READY &&
		    (!best || t->tx_thread_priority < best->tx_thread_priority))
			best = t;
	return best;
}

static void reschedule(void)
{
	_tx_thread_execute_ptr = pick();
	rtos_pend_switch();
}

/* Make the current thread wait in state st, on obj; the PendSV that follows switches it out. */
static void suspend_current(UINT st, void *obj)
{
	TX_THREAD *t;

	irq_off();
	t = _tx_thread_current_ptr;
	t->tx_thread_state = st;
	t->tx_thread_suspend_control_block = obj;
	reschedule();
	irq_on();
}

/* _tx_timer_interrupt, then the application's work in the interrupt, its last a tail call. */
void rtos_tick(void)
{
	unsigned int i;

	rtos_ticks = ++_tx_timer_system_clock;
	rtos_tick_hook();
	for (i = 0; i < nr_threads; i++)
		if (threads[i].tx_thread_state == TX_SLEEP && wake_at[i] <= rtos_ticks)
			threads[i].tx_thread_state = TX_READY;
	reschedule();
	rtos_tick_tail();
}

void rtos_delay(uint32_t ticks)
{
	wake_at[thread_index(_tx_thread_current_ptr)] = rtos_ticks + ticks;
	suspend_current(TX_SLEEP, 0);
}

/* tx_thread_relinquish, which checks the stack first (TX_THREAD_STACK_CHECK). */
void rtos_yield(void)
{
	rtos_check_stack(_tx_thread_current_ptr->tx_thread_stack_start, TX_STACK_FILL,
			 _tx_thread_current_ptr->tx_thread_name);
	irq_off();
	reschedule();
	irq_on();
}

void rtos_block_forever(void)
{
	suspend_current(TX_SEMAPHORE_SUSP, &never_signalled);
}

/* tx_thread_terminate on itself: it stays in the created list, TX_TERMINATED. */
void rtos_delete_self(void)
{
	suspend_current(TX_TERMINATED, 0);
	for (;;)
		;
}

/* _tx_timer_thread_entry with no timer to expire: it suspends itself, TX_SUSPENDED. */
static NOINLINE void _tx_timer_thread_entry(void *arg)
{
	(void)arg;
	for (;;)
		suspend_current(TX_SUSPENDED, 0);
}

void _tx_thread_schedule(void) __attribute__((noreturn));
void board_start_tick(void);

/*
 * tx_kernel_enter: the timer thread is created first (_tx_timer_initialize),
 * the application's threads before this (tx_application_define); then the
 * scheduler starts on the main stack as it is, never to return.
 */
void rtos_start(void)
{
	irq_off();
	create(&_tx_timer_thread, "System Timer Thread", _tx_timer_thread_entry, 0, 0,
	       timer_stack, TIMER_STACK_WORDS);
	/* The timer thread was created first: it heads the created list. */
	_tx_thread_created_ptr = &_tx_timer_thread;
	_tx_thread_system_stack_ptr = __msp_stack_hi;
	_tx_thread_execute_ptr = pick();
	_tx_thread_system_state = 0;
	_tx_thread_preempt_disable = 1;
	board_start_tick();
	/* The port's tx_initialize_low_level: SysTick above PendSV, so it can end PendSV's wait. */
	*(volatile uint32_t *)0xE000ED20 = (*(volatile uint32_t *)0xE000ED20 & 0x00FFFFFFu) |
					   0x40000000u;
	_tx_thread_schedule();
}
