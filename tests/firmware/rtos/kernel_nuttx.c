// SPDX-License-Identifier: GPL-2.0
/*
 * kernel_nuttx.c - the test scheduler with its state in the shapes and under
 * the names Apache NuttX uses on ARMv7-M (struct tcb_s in its field order for
 * a flat build with pthreads, CONFIG_RR_INTERVAL, CONFIG_TASK_NAME_SIZE 31 and
 * signals with their default actions (CONFIG_SIG_SIGSTOP_ACTION),
 * the dq_queue_t task lists, g_pidhash, g_running_tasks, enum tstate_e,
 * struct xcptcontext). Written from reading NuttX's include/nuttx/sched.h,
 * sched/ and arch/arm/src/armv7-m; no NuttX code.
 *
 * What the real kernel leaves that an analyzer meets: SVCall and PendSV (the
 * svc a thread switches with, the switch an interrupt asks for) save the
 * whole context below the hardware frame on the interrupted stack and point
 * the running TCB's xcp.regs at it (exception_common in port.S, arm_doirq
 * here); the incoming thread's xcp.regs is cleared, so the running one's is
 * NULL or, inside PendSV, the interrupted context. Every other interrupt
 * (the tick) enters exception_direct, which saves nothing: only the
 * hardware frame on the thread's stack holds the interrupted context. A new
 * thread's context sits at its stack's top and starts nxtask_start with lr
 * 0; nxtask_start calls the entry through nxtask_startup. A task sent
 * SIGSTOP while it slept runs the signal's default action in arm_sigdeliver,
 * entered through a copy of its saved context below it (pc changed, the
 * interrupted lr kept), the interrupted context kept at xcp.saved_regs, and
 * stops there (TSTATE_TASK_STOPPED, g_stoppedtasks). The idle task is the boot
 * thread: no built context, nx_start's loop on its own stack, the tail of
 * g_readytorun. Stacks are coloured with 0xdeadbeef word by word above a
 * zeroed TLS block at their low end (CONFIG_STACK_COLORATION).
 */
#include <stdint.h>
#include "rtos.h"

#define STACK_COLOR		0xdeadbeefu
#define CONFIG_TASK_NAME_SIZE	31
#define CONFIG_RR_INTERVAL	2	/* ticks of a SCHED_RR slice: fpu runs before the crash */
#define NPIDHASH		16	/* g_npidhash: a power of two */
#define IDLE_STACK_WORDS	256
#define TLS_INFO_SIZE		16	/* tls_info_size(): up_stack_frame at the stack's bottom */

/* NVIC exception numbers arm_doirq is given. */
#define NVIC_IRQ_SVCALL		11
#define NVIC_IRQ_PENDSV		14
#define SYS_restore_context	1
#define SYS_switch_context	2

/* The ARMv7-M register save area (arch/arm/include/armv7-m/irq.h). */
#define REG_R13		0
#define REG_BASEPRI	1
#define REG_CONTROL	10
#define REG_EXC_RETURN	11
#ifdef __ARM_FP
#define SW_XCPT_REGS	28	/* 12 + s16-s31, reserved even for a basic frame */
#define HW_XCPT_REGS	26	/* r0-r3, r12, lr, pc, xPSR, s0-s15, FPSCR, reserved */
#define EXC_RETURN_FPU	0	/* CONFIG_ARCH_FPU: an extended frame */
#else
#define SW_XCPT_REGS	12
#define HW_XCPT_REGS	8
#define EXC_RETURN_FPU	(1u << 4)
#endif
/*
 * exc_return.h: Thread mode on the PSP with an interrupt stack; without one
 * (NUTTX_NO_INTSTACK: CONFIG_ARCH_INTERRUPTSTACK 0, NuttX's default) tasks
 * run on the MSP as the handlers do, every saved context returning there.
 */
#ifdef NUTTX_NO_INTSTACK
#define EXC_RETURN_STACK	0
#else
#define EXC_RETURN_STACK	(1u << 2)
#endif
#define EXC_RETURN_THREAD	(0xFFFFFFE9u | EXC_RETURN_FPU | EXC_RETURN_STACK)
#define REG_R0		SW_XCPT_REGS
#define REG_PC		(SW_XCPT_REGS + 6)
#define REG_XPSR	(SW_XCPT_REGS + 7)
#define XCPTCONTEXT_REGS	(SW_XCPT_REGS + HW_XCPT_REGS)

#define TCB_FLAG_SCHED_RR	(1 << 3)
#define CRITICAL_BASEPRI	0x80	/* masks the tick, not the svc */

typedef struct dq_entry_s {
	struct dq_entry_s *flink, *blink;
} dq_entry_t;

typedef struct dq_queue_s {
	dq_entry_t *head, *tail;
} dq_queue_t;

/* enum tstate_e without CONFIG_SMP, CONFIG_SCHED_EVENTS or paging, with SIGSTOP's state. */
enum tstate_e {
	TSTATE_TASK_INVALID = 0,
	TSTATE_TASK_PENDING,
	TSTATE_TASK_READYTORUN,
	TSTATE_TASK_RUNNING,
	TSTATE_TASK_INACTIVE,
	TSTATE_WAIT_SEM,
	TSTATE_WAIT_SIG,
	TSTATE_WAIT_MQNOTEMPTY,
	TSTATE_WAIT_MQNOTFULL,
	TSTATE_TASK_STOPPED,
	NUM_TASK_STATES,
};
typedef uint8_t tstate_t;

struct list_node {
	struct list_node *prev, *next;
};

struct wdog_s {
	struct list_node node;
	uint32_t arg;
	void (*func)(uint32_t arg);	/* non-NULL while the watchdog is armed */
	int64_t expired;
};

typedef struct sem_s {
	union {
		volatile int32_t semcount;
		volatile uint32_t mholder;
	} val;
	uint8_t flags;
	dq_queue_t waitlist;
} sem_t;

typedef struct {
	int si_signo, si_code, si_errno;
	uint32_t si_value;
} siginfo_t;

struct xcptcontext {
	uint32_t *saved_regs;	/* in signal delivery: the context it interrupted */
	uint32_t *regs;		/* the saved context; NULL while the thread runs */
};

struct task_group_s;

typedef struct sq_entry_s {
	struct sq_entry_s *flink;
} sq_entry_t;

typedef struct sq_queue_s {
	sq_entry_t *head, *tail;
} sq_queue_t;

struct tcb_s;
typedef void (*sig_deliver_t)(struct tcb_s *tcb);

/* A signal action waiting for delivery (sigq_t): the default action of SIGSTOP here. */
typedef struct sigq_s {
	struct sigq_s *flink;
	void (*handler)(int signo);
	int signo;
} sigq_t;

/*
 * Pthreads are on by default (CONFIG_DISABLE_PTHREAD is for small builds):
 * their members move pid and all after it from crashwalk's defaults.
 */
struct tcb_s {
	struct tcb_s *flink, *blink;
	struct task_group_s *group;
	sq_entry_t member;
	sq_queue_t join_queue;
	sq_entry_t join_entry;
	sem_t join_sem;
	void *join_val;
	int pid;
	uint8_t sched_priority;
	uint8_t init_priority;
	void (*start)(void);
	rtos_entry entry;
	tstate_t task_state;
	uint32_t flags;
	int16_t lockcount;
	int16_t errcode;
	int32_t timeslice;
	struct wdog_s waitdog;
	uint32_t adj_stack_size;
	void *stack_alloc_ptr;
	void *stack_base_ptr;
	void *waitobj;
	sig_deliver_t sigdeliver;	/* set while a signal action waits for delivery */
	sq_queue_t sigpendactionq;
	sq_queue_t sigpostedq;
	uint32_t sigprocmask, sigwaitmask;
	siginfo_t *sigunbinfo;
	int64_t ticks;
	struct xcptcontext xcp;
	char name[CONFIG_TASK_NAME_SIZE + 1];
};

/* A task's TCB: the common part, then what only tasks (not pthreads) have. */
struct task_tcb_s {
	struct tcb_s cmn;
	void *arg;		/* stands in for argv */
};

dq_queue_t g_readytorun;
dq_queue_t g_pendingtasks;
dq_queue_t g_waitingforsignal;
dq_queue_t g_inactivetasks;
dq_queue_t g_stoppedtasks;
struct tcb_s *g_running_tasks[1];
struct tcb_s g_idletcb[1];
struct tcb_s *g_pidhash_slots[NPIDHASH];
struct tcb_s **g_pidhash = g_pidhash_slots;
volatile int g_npidhash = NPIDHASH;
volatile int64_t g_system_ticks;

static struct task_tcb_s tasks[RTOS_MAX_TASKS];
static unsigned int nr_tasks;
static int next_pid = 1;
static uint32_t g_idlestack[IDLE_STACK_WORDS] __attribute__((aligned(8)));
static sem_t never_posted;

volatile uint32_t rtos_ticks;

extern uint32_t __msp_stack_hi[];

#define this_task()	((struct tcb_s *)g_readytorun.head)

static inline uint32_t enter_critical_section(void)
{
	uint32_t old;

	__asm__ volatile("mrs %0, basepri\n\tmsr basepri, %1"
			 : "=&r"(old) : "r"(CRITICAL_BASEPRI) : "memory");
	return old;
}

static inline void leave_critical_section(uint32_t old)
{
	__asm__ volatile("msr basepri, %0" : : "r"(old) : "memory");
}

/* ---- dq_queue_t ---- */

static void dq_rem(dq_entry_t *node, dq_queue_t *q)
{
	dq_entry_t *prev = node->blink, *next = node->flink;

	if (prev)
		prev->flink = next;
	else
		q->head = next;
	if (next)
		next->blink = prev;
	else
		q->tail = prev;
	node->flink = node->blink = 0;
}

static void dq_addlast(dq_entry_t *node, dq_queue_t *q)
{
	node->flink = 0;
	node->blink = q->tail;
	if (q->tail)
		q->tail->flink = node;
	else
		q->head = node;
	q->tail = node;
}

/* nxsched_add_prioritized: after every task of the same or a higher priority. */
static void add_prioritized(struct tcb_s *t, dq_queue_t *q)
{
	struct tcb_s *next = (struct tcb_s *)q->head;

	while (next && t->sched_priority <= next->sched_priority)
		next = next->flink;
	if (!next) {
		dq_addlast((dq_entry_t *)t, q);
		return;
	}
	t->flink = next;
	t->blink = next->blink;
	if (next->blink)
		next->blink->flink = t;
	else
		q->head = (dq_entry_t *)t;
	next->blink = t;
}

/* ---- the scheduler ---- */

/* nxsched_add_readytorun; the new head, if it changed, is running. */
static void add_readytorun(struct tcb_s *t)
{
	struct tcb_s *old = this_task();

	t->task_state = TSTATE_TASK_READYTORUN;
	add_prioritized(t, &g_readytorun);
	if (this_task() != old) {
		old->task_state = TSTATE_TASK_READYTORUN;
		this_task()->task_state = TSTATE_TASK_RUNNING;
	}
}

/* nxsched_remove_self: the running task leaves g_readytorun; the next one runs. */
static struct tcb_s *remove_self(void)
{
	struct tcb_s *t = this_task();

	dq_rem((dq_entry_t *)t, &g_readytorun);
	this_task()->task_state = TSTATE_TASK_RUNNING;
	return t;
}

/* up_switch_context outside an interrupt: sys_call0(SYS_switch_context). */
static void switch_context(void)
{
	register uint32_t r0 __asm__("r0") = SYS_switch_context;

	__asm__ volatile("svc 0" : : "r"(r0) : "memory");
}

/*
 * arm_doirq, for SVCall and PendSV: the interrupted (or calling) task's
 * context is at regs; the task at g_readytorun's head afterwards gets its
 * saved context back.
 */
uint32_t *arm_doirq(int irq, uint32_t *regs)
{
	struct tcb_s *tcb = g_running_tasks[0];

	if (!(irq == NVIC_IRQ_SVCALL && regs[REG_R0] == SYS_restore_context))
		tcb->xcp.regs = regs;
	tcb = this_task();
	g_running_tasks[0] = tcb;
	regs = tcb->xcp.regs;
	tcb->xcp.regs = 0;
	return regs;
}

/*
 * exception_direct, every interrupt but SVCall and PendSV: the handler runs
 * on the hardware frame alone and asks PendSV for the switch it made due.
 */
void exception_direct(void)
{
	rtos_tick();	/* irq_dispatch: the only interrupt attached is the timer's */
	if (g_running_tasks[0] != this_task())
		rtos_pend_switch();	/* up_trigger_irq(NVIC_IRQ_PENDSV) */
}

/* The tick's vector: board.c's handler stays unused, run-rtos.sh links with --wrap. */
void __wrap_systick_handler(void) __attribute__((alias("exception_direct")));

#ifdef NUTTX_NO_INTSTACK
/*
 * Without an interrupt stack the fault handler runs on the running task's
 * stack, inside the RAM crash.c dumps: its own frames, changing while they
 * are written, would break the Zephyr-format dump's CRC (the real bench
 * leaves them out of its regions). run-rtos.sh wraps crash_handler to run
 * above the dumped RAM instead (QEMU's SSRAM goes on past mps2.ld's 32 KiB);
 * hardfault_entry has recorded the MSP the fault left.
 */
__attribute__((naked, noreturn)) void __wrap_crash_handler(void)
{
	__asm__ volatile("ldr r0, =__ram_hi + 0x1000\n\t"
			 "mov sp, r0\n\t"
			 "b __real_crash_handler\n\t"
			 ".ltorg");
}
#endif

/* nxtask_startup, libc's in a flat build: the entry, then exit. */
NOINLINE __attribute__((noreturn)) void nxtask_startup(rtos_entry entry, void *arg)
{
	entry(arg);
	rtos_task_exit();
}

/* Every task's first function (tcb->start). */
NOINLINE void nxtask_start(void)
{
	struct task_tcb_s *t = (struct task_tcb_s *)this_task();

	nxtask_startup(t->cmn.entry, t->arg);
}

/* up_initial_state: a whole saved context at the stack's top, as if switched out. */
static void initial_state(struct tcb_s *t)
{
	uint32_t *regs = (uint32_t *)((uint32_t)t->stack_base_ptr + t->adj_stack_size) -
			 XCPTCONTEXT_REGS, i;

	for (i = 0; i < XCPTCONTEXT_REGS; i++)
		regs[i] = 0;
	regs[REG_R13] = (uint32_t)t->stack_base_ptr + t->adj_stack_size;
	regs[REG_PC] = (uint32_t)t->start & ~1u;
	regs[REG_XPSR] = 0x01000000u;
	regs[REG_EXC_RETURN] = EXC_RETURN_THREAD;
	t->xcp.regs = regs;
}

static void stack_color(uint32_t *lo, uint32_t words)
{
	while (words--)
		*lo++ = STACK_COLOR;
}

static void name_task(struct tcb_s *t, const char *name)
{
	unsigned int i;

	for (i = 0; i < CONFIG_TASK_NAME_SIZE && name[i]; i++)
		t->name[i] = name[i];
	t->name[i] = 0;
}

/*
 * nxtask_init: the stack coloured, the TLS block zeroed below stack_base_ptr
 * (up_stack_frame), the context built; the task waits in g_inactivetasks
 * until nxtask_activate.
 */
void rtos_create(const char *name, rtos_entry fn, void *arg, unsigned int prio,
		 uint32_t *stack, uint32_t words)
{
	struct task_tcb_s *tt = &tasks[nr_tasks++];
	struct tcb_s *t = &tt->cmn;
	uint32_t i;

	/* NuttX's default priority is 100: the application's sit just above it. */
	*tt = (struct task_tcb_s){
		.cmn = { .pid = next_pid++, .sched_priority = (uint8_t)(100 + prio),
			 .init_priority = (uint8_t)(100 + prio), .start = nxtask_start,
			 .entry = fn, .flags = TCB_FLAG_SCHED_RR,
			 .timeslice = CONFIG_RR_INTERVAL, .stack_alloc_ptr = stack },
		.arg = arg,
	};
	stack_color(stack, words);
	for (i = 0; i < TLS_INFO_SIZE / 4; i++)
		stack[i] = 0;
	t->stack_base_ptr = (char *)stack + TLS_INFO_SIZE;
	t->adj_stack_size = words * 4 - TLS_INFO_SIZE;
	name_task(t, name);
	initial_state(t);
	t->task_state = TSTATE_TASK_INACTIVE;
	dq_addlast((dq_entry_t *)t, &g_inactivetasks);
	g_pidhash[t->pid & (g_npidhash - 1)] = t;
	rtos_registry_add(name, t, fn, t->stack_base_ptr,
			  (uint32_t *)((char *)t->stack_base_ptr + t->adj_stack_size));
}

/* Block the running task in state st on list q (or a semaphore's waitlist), then switch. */
static void block_self(tstate_t st, dq_queue_t *q, int prioritized)
{
	struct tcb_s *t = remove_self();

	t->task_state = st;
	if (prioritized)
		add_prioritized(t, q);
	else
		dq_addlast((dq_entry_t *)t, q);
	switch_context();
}

/* nxsig_timeout: the sleep is over; the task is ready again. */
static void nxsig_timeout(uint32_t arg)
{
	struct tcb_s *t = (struct tcb_s *)arg;

	t->waitdog.func = 0;
	dq_rem((dq_entry_t *)t, &g_waitingforsignal);
	add_readytorun(t);
}

/* ---- signal delivery ---- */

#define SIGSTOP			19
#define SIGSTOP_TICK		1	/* at the first tick: stopped long before any crash */

static sigq_t g_sigstop_action;
static struct tcb_s *g_stop_target;
static volatile uint32_t g_nstopped;
static uint32_t g_stopped_stack[256] __attribute__((aligned(8)));

/* nxsched_suspend, for the running task: off g_readytorun, into g_stoppedtasks. */
NOINLINE void nxsched_suspend(struct tcb_s *t)
{
	uint32_t flags = enter_critical_section();

	(void)t;
	block_self(TSTATE_TASK_STOPPED, &g_stoppedtasks, 0);
	leave_critical_section(flags);
}

/* nxsig_stop_task, SIGSTOP's default action: the task stops itself. */
NOINLINE void nxsig_stop_task(int signo)
{
	(void)signo;
	nxsched_suspend(this_task());
	g_nstopped--;	/* SIGCONT resumed it */
}

/* nxsig_deliver: the handler of each pending action, in the task that receives it. */
NOINLINE void nxsig_deliver(struct tcb_s *t)
{
	sigq_t *q;

	while ((q = (sigq_t *)t->sigpendactionq.head)) {
		t->sigpendactionq.head = (sq_entry_t *)q->flink;
		if (!q->flink)
			t->sigpendactionq.tail = 0;
		q->handler(q->signo);
	}
}

/* arm_fullcontextrestore: sys_call1(SYS_restore_context); arm_doirq leaves xcp.regs as set. */
static void fullcontextrestore(void)
{
	register uint32_t r0 __asm__("r0") = SYS_restore_context;

	__asm__ volatile("svc 0" : : "r"(r0) : "memory");
}

/*
 * arm_sigdeliver, entered by an exception return into the context
 * up_schedule_sigaction built: the actions delivered with interrupts on,
 * then the interrupted context (xcp.saved_regs) resumed.
 */
NOINLINE void arm_sigdeliver(void)
{
	struct tcb_s *t = this_task();

	leave_critical_section(0);
	t->sigdeliver(t);
	enter_critical_section();
	t->sigdeliver = 0;
	t->xcp.regs = t->xcp.saved_regs;
	fullcontextrestore();
}

/*
 * up_schedule_sigaction, for a task that is not running: its saved context
 * kept at xcp.saved_regs, a copy built just below it that enters
 * arm_sigdeliver in a critical section, every other register as it was
 * (lr too), on the stack the copy's own frame leaves.
 */
static void up_schedule_sigaction(struct tcb_s *t)
{
	uint32_t *regs = t->xcp.regs - XCPTCONTEXT_REGS, i;

	t->xcp.saved_regs = t->xcp.regs;
	for (i = 0; i < XCPTCONTEXT_REGS; i++)
		regs[i] = t->xcp.saved_regs[i];
	regs[REG_R13] = (uint32_t)t->xcp.saved_regs;
	regs[REG_PC] = (uint32_t)arm_sigdeliver & ~1u;
	regs[REG_BASEPRI] = CRITICAL_BASEPRI;
	regs[REG_XPSR] = 0x01000000u;
	t->xcp.regs = regs;
}

/*
 * nxsig_tcbdispatch of SIGSTOP to a task that is not running (the
 * application's kill(pid, SIGSTOP), sent from the tick here): its default
 * action queued and scheduled, its signal wait ended, the task readied.
 */
static void nxsig_dispatch_stop(struct tcb_s *t)
{
	g_sigstop_action = (sigq_t){ .handler = nxsig_stop_task, .signo = SIGSTOP };
	t->sigpendactionq.head = t->sigpendactionq.tail = (sq_entry_t *)&g_sigstop_action;
	if (!t->sigdeliver) {
		t->sigdeliver = nxsig_deliver;
		up_schedule_sigaction(t);
	}
	if (t->task_state == TSTATE_WAIT_SIG) {
		t->waitdog.func = 0;
		dq_rem((dq_entry_t *)t, &g_waitingforsignal);
		add_readytorun(t);
	}
	g_nstopped++;
}

/* The task SIGSTOP finds asleep. */
static void stopped_main(void *arg)
{
	for (;;)
		rtos_delay((uint32_t)arg);
}

/*
 * nxsched_process_timer, in the tick's exception_direct: the application's
 * work, the SIGSTOP, expired sleeps, then the running SCHED_RR task's slice.
 */
void rtos_tick(void)
{
	struct tcb_s *t, *next, *run;

	rtos_ticks = (uint32_t)++g_system_ticks;
	rtos_tick_hook();
	if (g_system_ticks == SIGSTOP_TICK && g_stop_target)
		nxsig_dispatch_stop(g_stop_target);
	for (t = (struct tcb_s *)g_waitingforsignal.head; t; t = next) {
		next = t->flink;
		if (t->waitdog.func && t->waitdog.expired <= g_system_ticks)
			t->waitdog.func(t->waitdog.arg);
	}
	run = this_task();
	if ((run->flags & TCB_FLAG_SCHED_RR) && --run->timeslice <= 0) {
		run->timeslice = CONFIG_RR_INTERVAL;
		if (run->flink && run->flink->sched_priority == run->sched_priority) {
			dq_rem((dq_entry_t *)run, &g_readytorun);
			this_task()->task_state = TSTATE_TASK_RUNNING;
			add_readytorun(run);
		}
	}
}

/* nxsig_usleep: waiting for a signal, the watchdog armed to end it. */
void rtos_delay(uint32_t ticks)
{
	uint32_t flags = enter_critical_section();
	struct tcb_s *t = this_task();

	t->waitdog.arg = (uint32_t)t;
	t->waitdog.expired = g_system_ticks + ticks;
	t->waitdog.func = nxsig_timeout;
	block_self(TSTATE_WAIT_SIG, &g_waitingforsignal, 0);
	leave_critical_section(flags);
}

/* sched_yield, which checks the stack first: behind the tasks of its own priority. */
void rtos_yield(void)
{
	uint32_t flags;
	struct tcb_s *t = this_task();

	rtos_check_stack(t->stack_base_ptr, STACK_COLOR, t->name);
	flags = enter_critical_section();
	if (t->flink && t->flink->sched_priority == t->sched_priority) {
		remove_self();
		add_readytorun(t);
		switch_context();
	}
	leave_critical_section(flags);
}

/* nxsem_wait on a semaphore nobody posts: in its waitlist, waitobj pointing at it. */
void rtos_block_forever(void)
{
	uint32_t flags = enter_critical_section();

	never_posted.val.semcount--;
	this_task()->waitobj = &never_posted;
	block_self(TSTATE_WAIT_SEM, &never_posted.waitlist, 1);
	leave_critical_section(flags);
}

void rtos_delete_self(void)
{
	for (;;)
		;
}

void board_start_tick(void);
void nuttx_start_idle(uint32_t *stack_top) __attribute__((noreturn));

/* up_idle */
static NOINLINE void up_idle(void)
{
	__asm__ volatile("wfi");
}

/*
 * nx_start, on the idle stack (port.S moved Thread mode there): the idle
 * task is running; each created task is activated (the highest becomes the
 * head), the tick starts, and the idle task switches to the head.
 */
NOINLINE void nx_start(void)
{
	struct tcb_s *t;
	uint32_t flags = enter_critical_section();

	while ((t = (struct tcb_s *)g_inactivetasks.head)) {
		dq_rem((dq_entry_t *)t, &g_inactivetasks);
		add_readytorun(t);
	}
	board_start_tick();
	switch_context();
	leave_critical_section(flags);
	for (;;)
		up_idle();
}

/*
 * idle_task_initialize: the idle TCB is pid 0, running, alone in
 * g_readytorun, its stack the boot thread's (here a coloured array).
 */
void rtos_start(void)
{
	struct tcb_s *idle = &g_idletcb[0];

	rtos_create("stopped", stopped_main, (void *)1000, 3, g_stopped_stack,
		    sizeof(g_stopped_stack) / 4);
	g_stop_target = &tasks[nr_tasks - 1].cmn;
	irq_off();
	idle->pid = 0;
	idle->task_state = TSTATE_TASK_RUNNING;
	idle->start = nx_start;
	idle->stack_alloc_ptr = idle->stack_base_ptr = g_idlestack;
	idle->adj_stack_size = sizeof(g_idlestack);
	stack_color(g_idlestack, IDLE_STACK_WORDS);
	name_task(idle, "Idle_Task");
	dq_addlast((dq_entry_t *)idle, &g_readytorun);
	g_pidhash[0] = idle;
	g_running_tasks[0] = idle;
	rtos_registry_add("Idle_Task", idle, (rtos_entry)(void (*)(void))nx_start, g_idlestack,
			  g_idlestack + IDLE_STACK_WORDS);
	irq_on();
	nuttx_start_idle(g_idlestack + IDLE_STACK_WORDS);
}
