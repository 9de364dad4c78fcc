// SPDX-License-Identifier: GPL-2.0
/*
 * kernel_liteos.c - the test scheduler with its state in the shapes and under
 * the names OpenHarmony LiteOS-M uses on Cortex-M (LosTaskCB in its field
 * order, g_taskCBArray with its stand-in TCB past the last, g_losTask,
 * g_priQueueList linked through pendList, the g_taskSortLink delay list, the
 * taskStatus bits, TaskContext). Written from reading kernel_liteos_m's
 * los_task.h, los_sched.c and the cortex-m4 port; no LiteOS code.
 *
 * What the real kernel leaves that an analyzer meets: a new task's context
 * returns to ArchSysExit after OsTaskEntry; the first task starts without an
 * exception frame (HalStartToRun in port.S); the kernel's own idle and
 * software timer tasks have heap stacks, the application's its own; every
 * stack is filled with 0xCA under OS_TASK_MAGIC_WORD at its lowest word.
 */
#include <stdint.h>
#include "rtos.h"

#define LOSCFG_BASE_CORE_TSK_LIMIT	10
#define OS_TASK_PRIORITY_LOWEST	31
#define OS_PRIORITY_QUEUE_NUM	32
#define OS_TASK_MAGIC_WORD	0xCCCCCCCCu
#define OS_TASK_STACK_INIT	0xCACACACAu
#define IDLE_STACK_SIZE		0x180
#define SWTMR_STACK_SIZE	0x200

#define OS_TASK_STATUS_UNUSED	0x0001
#define OS_TASK_STATUS_SUSPEND	0x0002
#define OS_TASK_STATUS_READY	0x0004
#define OS_TASK_STATUS_PEND	0x0008
#define OS_TASK_STATUS_RUNNING	0x0010
#define OS_TASK_STATUS_DELAY	0x0020
#define OS_TASK_STATUS_PEND_TIME	0x0080
#define OS_TASK_FLAG_STACK_FREE	0x0800
#define OS_TASK_FLAG_SYSTEM_TASK	0x1000

typedef struct LOS_DL_LIST {
	struct LOS_DL_LIST *pstPrev, *pstNext;
} LOS_DL_LIST;

typedef struct {
	LOS_DL_LIST sortLinkNode;
	uint64_t responseTime;
} SortLinkList;

typedef struct {
	LOS_DL_LIST sortLink;
} SortLinkAttribute;

typedef struct tagEvent {
	uint32_t uwEventID;
	LOS_DL_LIST stEventList;
} EVENT_CB_S;

typedef void *(*TSK_ENTRY_FUNC)(uint32_t arg);

typedef struct {
	void *stackPointer;
	uint16_t taskStatus;
	uint16_t priority;
	int32_t timeSlice;
	uint32_t waitTimes;
	SortLinkList sortList;
	uint64_t startTime;
	uint32_t stackSize;
	uint32_t topOfStack;	/* the stack's LOWEST address */
	uint32_t taskID;
	TSK_ENTRY_FUNC taskEntry;
	void *taskSem;
	void *taskMux;
	uint32_t arg;
	char *taskName;
	LOS_DL_LIST pendList;
	LOS_DL_LIST timerList;
	LOS_DL_LIST joinList;
	uintptr_t joinRetval;
	EVENT_CB_S event;
	uint32_t eventMask;
	uint32_t eventMode;
	void *msg;
	int32_t errorNo;
} LosTaskCB;

typedef struct {
	LosTaskCB *runTask;
	LosTaskCB *newTask;
} LosTask;

/* los_arch_context.h's TaskContext: what PendSV (port.S) leaves at stackPointer. */
typedef struct {
#ifdef __ARM_FP
	uint32_t s16_s31[16];
#endif
	uint32_t r4_r11[8];
	uint32_t uwPriMask;
	uint32_t uwR0, uwR1, uwR2, uwR3, uwR12, uwLR, uwPC, uwxPSR;
#ifdef __ARM_FP
	uint32_t s0_s15[16];
	uint32_t FPSCR, NO_NAME;
#endif
} TaskContext;

/* A semaphore and a queue nobody posts to: where waiter and Swt_Task pend. */
typedef struct {
	uint8_t semStat;
	uint16_t semCount, maxSemCount, semID;
	LOS_DL_LIST semList;
} LosSemCB;

typedef struct {
	uint8_t *queue;
	uint16_t queueState, queueLen, queueSize, queueID, queueHead, queueTail;
	uint16_t readWriteableCnt[2];
	LOS_DL_LIST readWriteList[2];
	LOS_DL_LIST memList;
} LosQueueCB;

LosTaskCB *g_taskCBArray;
LosTask g_losTask;
uint32_t g_taskMaxNum;
uint32_t g_idleTaskID, g_swtmrTaskID;
unsigned int g_taskScheduled;
SortLinkAttribute g_taskSortLink;
static LOS_DL_LIST g_priQueueList[OS_PRIORITY_QUEUE_NUM];
static uint32_t g_queueBitmap;
static LosSemCB never_posted;
static LosQueueCB swtmr_queue;
static LOS_DL_LIST g_losFreeTask;

volatile uint32_t rtos_ticks;

/*
 * The kernel's heap (m_aucSysMem0): the TCB array and the kernel tasks'
 * stacks. Each allocation sits behind a node header like los_memory.c's.
 * Placed below the application's stacks, as in a real build the kernel's
 * tasks, created by LOS_KernelInit() from the heap's start, lie below the
 * tasks the application creates later.
 */
#define HEAP_NODE_HEAD	16
static uint8_t heap[(LOSCFG_BASE_CORE_TSK_LIMIT + 2) * sizeof(LosTaskCB) + IDLE_STACK_SIZE +
		    SWTMR_STACK_SIZE + 4 * HEAP_NODE_HEAD]
	__attribute__((aligned(8), section(".data.los_heap")));
static uint32_t heap_used;

static void *los_mem_alloc(uint32_t size)
{
	void *p;

	heap_used += HEAP_NODE_HEAD;
	p = heap + heap_used;
	heap_used += (size + 7) & ~7u;
	return p;
}

static void list_init(LOS_DL_LIST *l)
{
	l->pstPrev = l->pstNext = l;
}

static void list_tail_insert(LOS_DL_LIST *l, LOS_DL_LIST *n)
{
	n->pstNext = l;
	n->pstPrev = l->pstPrev;
	l->pstPrev->pstNext = n;
	l->pstPrev = n;
}

static void list_delete(LOS_DL_LIST *n)
{
	n->pstNext->pstPrev = n->pstPrev;
	n->pstPrev->pstNext = n->pstNext;
	n->pstNext = n->pstPrev = 0;
}

#define TCB_FROM(ptr, member) \
	((LosTaskCB *)((char *)(ptr) - __builtin_offsetof(LosTaskCB, member)))

/* ---- los_context.c: the task's first context and where it returns ---- */

NOINLINE void ArchSysExit(void)
{
	irq_off();
	for (;;)
		;
}

/* Every task starts here, the task's ID in r0; the entry returning deletes the task. */
NOINLINE void OsTaskEntry(uint32_t taskID)
{
	LosTaskCB *t = &g_taskCBArray[taskID];

	t->joinRetval = (uintptr_t)t->taskEntry(t->arg);
	rtos_task_exit();	/* LOS_TaskDelete(): never reached by the test's tasks */
}

static void *task_stack_init(uint32_t taskID, uint32_t size, uint32_t top)
{
	TaskContext *c = (TaskContext *)(top + size - sizeof(TaskContext));
	uint32_t i;

#ifdef __ARM_FP
	for (i = 0; i < 16; i++) {
		c->s16_s31[i] = 0xAA000010 + i;
		c->s0_s15[i] = 0xAA000000 + i;
	}
	c->FPSCR = 0;
	c->NO_NAME = 0xAA000011;
#endif
	for (i = 0; i < 8; i++)
		c->r4_r11[i] = 0x04040404u * (i + 1);
	c->uwPriMask = 0;
	c->uwR0 = taskID;
	c->uwR1 = 0x01010101u;
	c->uwR2 = 0x02020202u;
	c->uwR3 = 0x03030303u;
	c->uwR12 = 0x12121212u;
	c->uwLR = (uint32_t)ArchSysExit;
	c->uwPC = (uint32_t)OsTaskEntry;
	c->uwxPSR = 0x01000000u;
	return c;
}

/* ---- los_sched.c: the priority queue and the sorted delay list ---- */

/* The idle task is marked ready but never queued: top_task() falls back to it. */
static void sched_enqueue(LosTaskCB *t)
{
	if (t->taskID != g_idleTaskID) {
		g_queueBitmap |= 0x80000000u >> t->priority;
		list_tail_insert(&g_priQueueList[t->priority], &t->pendList);
	}
	t->taskStatus &= ~(OS_TASK_STATUS_PEND | OS_TASK_STATUS_SUSPEND | OS_TASK_STATUS_DELAY |
			   OS_TASK_STATUS_PEND_TIME);
	t->taskStatus |= OS_TASK_STATUS_READY;
}

static void sched_dequeue(LosTaskCB *t)
{
	if (!(t->taskStatus & OS_TASK_STATUS_READY))
		return;
	if (t->taskID != g_idleTaskID) {
		list_delete(&t->pendList);
		if (g_priQueueList[t->priority].pstNext == &g_priQueueList[t->priority])
			g_queueBitmap &= ~(0x80000000u >> t->priority);
	}
	t->taskStatus &= ~OS_TASK_STATUS_READY;
}

/* OsAdd2SortLink: by response time, the earliest first. */
static void sort_link_add(LosTaskCB *t, uint64_t when)
{
	LOS_DL_LIST *head = &g_taskSortLink.sortLink, *n = head->pstNext;

	t->sortList.responseTime = when;
	while (n != head && ((SortLinkList *)n)->responseTime <= when)
		n = n->pstNext;
	list_tail_insert(n, &t->sortList.sortLinkNode);
}

static LosTaskCB *top_task(void)
{
	if (g_queueBitmap)
		return TCB_FROM(g_priQueueList[__builtin_clz(g_queueBitmap)].pstNext, pendList);
	return &g_taskCBArray[g_idleTaskID];
}

/* OsTaskSwitchCheck: the magic word at the stack's lowest address, and the sp above it. */
static void task_switch_check(LosTaskCB *t)
{
	uint32_t psp;

	__asm__ volatile("mrs %0, psp" : "=r"(psp));
	if (*(uint32_t *)t->topOfStack != OS_TASK_MAGIC_WORD || psp <= t->topOfStack)
		rtos_stack_overflow(t->taskName);
}

/* Called by PendSV (port.S) before it saves anything: whether to switch, to g_losTask.newTask. */
uint32_t OsSchedTaskSwitch(void)
{
	LosTaskCB *run = g_losTask.runTask, *next;

	if (run->taskStatus & (OS_TASK_STATUS_PEND_TIME | OS_TASK_STATUS_DELAY))
		sort_link_add(run, rtos_ticks + run->waitTimes);
	else if (!(run->taskStatus & (OS_TASK_STATUS_PEND | OS_TASK_STATUS_SUSPEND |
				      OS_TASK_STATUS_UNUSED)))
		sched_enqueue(run);
	next = top_task();
	g_losTask.newTask = next;
	if (run != next) {
		task_switch_check(run);
		run->taskStatus &= ~OS_TASK_STATUS_RUNNING;
		next->taskStatus |= OS_TASK_STATUS_RUNNING;
	}
	sched_dequeue(next);
	return run != next;
}

/* ---- los_task.c ---- */

static uint32_t task_create(const char *name, TSK_ENTRY_FUNC fn, uint32_t arg, uint16_t prio,
			    uint32_t *stack, uint32_t size)
{
	LosTaskCB *t = TCB_FROM(g_losFreeTask.pstNext, pendList);
	uint32_t i;

	list_delete(&t->pendList);
	t->arg = arg;
	t->taskStatus = OS_TASK_STATUS_SUSPEND;
	t->priority = prio;
	t->taskEntry = fn;
	t->taskName = (char *)name;
	list_init(&t->event.stEventList);
	t->event.uwEventID = 0xFFFFFFFFu;
	if (!stack) {
		t->stackSize = (size + 7) & ~7u;
		t->topOfStack = (uint32_t)los_mem_alloc(t->stackSize);
		t->taskStatus |= OS_TASK_FLAG_STACK_FREE;
	} else {
		t->topOfStack = ((uint32_t)stack + 7) & ~7u;
		t->stackSize = (size - (t->topOfStack - (uint32_t)stack)) & ~7u;
	}
	for (i = 0; i < t->stackSize / 4; i++)
		((uint32_t *)t->topOfStack)[i] = OS_TASK_STACK_INIT;
	*(uint32_t *)t->topOfStack = OS_TASK_MAGIC_WORD;
	t->stackPointer = task_stack_init(t->taskID, t->stackSize, t->topOfStack);
	rtos_registry_add(name, t, (rtos_entry)(void (*)(void))fn, (uint32_t *)t->topOfStack,
			  (uint32_t *)(t->topOfStack + t->stackSize));
	return t->taskID;
}

static void kernel_tasks(void);

/* OsTaskInit: the TCB array from the heap, one more TCB than tasks for runTask's stand-in. */
static void task_init(void)
{
	uint32_t i;

	g_taskMaxNum = LOSCFG_BASE_CORE_TSK_LIMIT + 1;	/* and the idle task */
	g_taskCBArray = los_mem_alloc((g_taskMaxNum + 1) * sizeof(LosTaskCB));
	list_init(&g_losFreeTask);
	for (i = 0; i < g_taskMaxNum; i++) {
		g_taskCBArray[i].taskStatus = OS_TASK_STATUS_UNUSED;
		g_taskCBArray[i].taskID = i;
		list_tail_insert(&g_losFreeTask, &g_taskCBArray[i].pendList);
	}
	g_losTask.runTask = &g_taskCBArray[g_taskMaxNum];
	g_losTask.runTask->taskID = i;
	g_losTask.runTask->taskStatus = OS_TASK_STATUS_UNUSED | OS_TASK_STATUS_RUNNING;
	g_losTask.runTask->priority = OS_TASK_PRIORITY_LOWEST + 1;
	g_idleTaskID = 0xFFFFFFFFu;	/* OS_INVALID until the idle task exists */
	for (i = 0; i < OS_PRIORITY_QUEUE_NUM; i++)
		list_init(&g_priQueueList[i]);
	list_init(&g_taskSortLink.sortLink);
	list_init(&never_posted.semList);
	list_init(&swtmr_queue.readWriteList[0]);
	list_init(&swtmr_queue.readWriteList[1]);
	kernel_tasks();
}

/* OsSchedTaskWait: pend the running task on an object's list, forever. */
static void task_wait(LOS_DL_LIST *list)
{
	LosTaskCB *t;

	irq_off();
	t = g_losTask.runTask;
	t->taskStatus |= OS_TASK_STATUS_PEND;
	list_tail_insert(list, &t->pendList);
	irq_on();
	rtos_pend_switch();
}

/* The idle task: recycles deleted tasks (none here) and sleeps. */
NOINLINE void *OsIdleTask(uint32_t arg)
{
	(void)arg;
	for (;;)
		__asm__ volatile("wfi");
	return 0;
}

/* The software timer task: reads expired timers' handlers from its queue, forever. */
NOINLINE void *OsSwtmrTask(uint32_t arg)
{
	(void)arg;
	for (;;)
		task_wait(&swtmr_queue.readWriteList[0]);
	return 0;
}

/* LOS_KernelInit: the software timer task, then the idle task, before the application's. */
static void kernel_tasks(void)
{
	g_swtmrTaskID = task_create("Swt_Task", OsSwtmrTask, 0, 0, 0, SWTMR_STACK_SIZE);
	g_taskCBArray[g_swtmrTaskID].taskStatus |= OS_TASK_FLAG_SYSTEM_TASK;
	sched_enqueue(&g_taskCBArray[g_swtmrTaskID]);
	g_idleTaskID = task_create("IdleCore000", OsIdleTask, 0, OS_TASK_PRIORITY_LOWEST, 0,
				   IDLE_STACK_SIZE);
	g_taskCBArray[g_idleTaskID].taskStatus |= OS_TASK_FLAG_SYSTEM_TASK;
	sched_enqueue(&g_taskCBArray[g_idleTaskID]);
}

/*
 * LiteOS numbers priorities the other way: 0 is the most urgent. The
 * application's 1 and 2 share one level, so that each yield of the crasher
 * (2) is a switch to the always-ready worker (1): LiteOS checks a task's
 * stack only when it switches away from it (OsTaskSwitchCheck).
 */
void rtos_create(const char *name, rtos_entry fn, void *arg, unsigned int prio,
		 uint32_t *stack, uint32_t words)
{
	uint32_t id;

	if (!prio)
		return;	/* the application's idle task: LiteOS-M creates its own */
	if (!g_taskMaxNum)
		task_init();
	id = task_create(name, (TSK_ENTRY_FUNC)(void (*)(void))fn, (uint32_t)arg, prio > 2 ? 17 : 18, stack,
			 words * 4);
	sched_enqueue(&g_taskCBArray[id]);
}

void rtos_tick(void)
{
	LOS_DL_LIST *head = &g_taskSortLink.sortLink;

	rtos_ticks++;
	rtos_tick_hook();	/* the application's work in the timer interrupt */
	while (head->pstNext != head && ((SortLinkList *)head->pstNext)->responseTime <= rtos_ticks) {
		LosTaskCB *t = TCB_FROM(head->pstNext, sortList.sortLinkNode);

		list_delete(&t->sortList.sortLinkNode);
		if (!(t->taskStatus & OS_TASK_STATUS_SUSPEND))
			sched_enqueue(t);
	}
	rtos_pend_switch();	/* time slicing */
}

void rtos_delay(uint32_t ticks)
{
	irq_off();
	g_losTask.runTask->taskStatus |= OS_TASK_STATUS_DELAY;
	g_losTask.runTask->waitTimes = ticks;
	irq_on();
	rtos_pend_switch();
}

void rtos_yield(void)
{
	g_losTask.runTask->timeSlice = 0;
	rtos_pend_switch();
}

void rtos_block_forever(void)
{
	task_wait(&never_posted.semList);
}

extern void board_start_tick(void);
extern void HalStartToRun(void) __attribute__((noreturn));

/* LOS_Start: the first task picked, then HalStartToRun. */
void rtos_start(void)
{
	LosTaskCB *first;

	if (!g_taskMaxNum)
		task_init();
	irq_off();
	first = top_task();
	first->taskStatus |= OS_TASK_STATUS_RUNNING;
	g_losTask.newTask = g_losTask.runTask = first;
	sched_dequeue(first);
	g_taskScheduled = 1;
	board_start_tick();
	HalStartToRun();
}
