// SPDX-License-Identifier: GPL-2.0
/*
 * kernel_ucos3.c - the test scheduler with its state in the shapes and under
 * the names µC/OS-III 3.08 uses on Cortex-M (os.h's struct os_tcb with
 * OS_CFG_DBG_EN, OSTCBCurPtr, OSRdyList, OSTickList, OSTaskDbgListPtr, the
 * kernel's own TCBs, the ARMv6-M and ARMv7-M GNU ports' switch). Written from
 * reading os.h, os_core.c, os_task.c, os_time.c, os_tick.c and the ports; no
 * µC/OS code.
 *
 * What the real kernel leaves that an analyzer meets: every task on the
 * debug list (DbgNextPtr, newest first); a ready task, the running one too,
 * on OSRdyList[Prio] through NextPtr; a delayed one on OSTickList through
 * TickNextPtr; a pending one on its object's PendList, PendObjPtr naming the
 * object; stacks cleared at creation (OS_TASK_OPT_STK_CLR); a new task's
 * frame returning to OS_TaskReturn; the kernel's "uC/OS-III Idle Task"
 * (lowest priority), "uC/OS-III Stat Task" (delayed between samples) and
 * "uC/OS-III Timer Task" (pending on its task semaphore with no timer due);
 * OSTCBCurPtr left at the interrupted task until PendSV switches, while
 * OSTCBHighRdyPtr names the next; round-robin among equal priorities at each
 * tick (OS_CFG_SCHED_ROUND_ROBIN_EN, one tick quanta).
 */
#include <stdint.h>
#include "rtos.h"

#define OS_CFG_PRIO_MAX		64
#define OS_CFG_STAT_TASK_PRIO	11
#define OS_CFG_TMR_TASK_PRIO	10
#define APP_PRIO_BASE		50	/* the application's priority 0 (its IDLE) */
#define KERNEL_STACK_WORDS	128

/* os.h */
#define OS_TASK_STATE_RDY		0u
#define OS_TASK_STATE_DLY		1u
#define OS_TASK_STATE_PEND		2u
#define OS_TASK_STATE_DEL		255u
#define OS_TASK_PEND_ON_NOTHING		0u
#define OS_TASK_PEND_ON_SEM		6u
#define OS_TASK_PEND_ON_TASK_SEM	7u
#define OS_OBJ_TYPE_SEM	(('S' << 0) | ('E' << 8) | ('M' << 16) | ('A' << 24))

typedef struct os_tcb OS_TCB;
typedef void (*OS_TASK_PTR)(void *p_arg);

typedef struct os_pend_list {
	OS_TCB *HeadPtr, *TailPtr;
	uint16_t NbrEntries;
} OS_PEND_LIST;

typedef struct os_pend_obj {
	uint32_t Type;
	char *NamePtr;
	OS_PEND_LIST PendList;
	void *DbgPrevPtr, *DbgNextPtr;
	char *DbgNamePtr;
} OS_PEND_OBJ;

typedef struct os_sem {
	uint32_t Type;
	char *NamePtr;
	OS_PEND_LIST PendList;
	struct os_sem *DbgPrevPtr, *DbgNextPtr;
	char *DbgNamePtr;
	uint32_t Ctr;
} OS_SEM;

/* struct os_tcb in os.h's order, Cfg/Template/os_cfg.h but OS_CFG_DBG_EN 1. */
struct os_tcb {
	uint32_t *StkPtr;
	void *ExtPtr;
	uint32_t *StkLimitPtr;
	char *NamePtr;
	OS_TCB *NextPtr, *PrevPtr;
	OS_TCB *TickNextPtr, *TickPrevPtr;
	uint32_t *StkBasePtr;
	OS_TASK_PTR TaskEntryAddr;
	void *TaskEntryArg;
	OS_TCB *PendNextPtr, *PendPrevPtr;
	OS_PEND_OBJ *PendObjPtr;
	uint8_t PendOn;
	uint8_t PendStatus;
	uint8_t TaskState;
	uint8_t Prio;
	uint8_t BasePrio;
	void *MutexGrpHeadPtr;
	uint32_t StkSize;
	uint16_t Opt;
	uint32_t SemCtr;
	uint32_t TickRemain, TickCtrPrev;
	uint32_t TimeQuanta, TimeQuantaCtr;
	void *MsgPtr;
	uint16_t MsgSize;
	uint32_t RegTbl[1];
	uint32_t FlagsPend, FlagsRdy;
	uint16_t FlagsOpt;
	uint16_t SuspendCtr;
	uint32_t StkUsed, StkFree;
	OS_TCB *DbgPrevPtr, *DbgNextPtr;
	char *DbgNamePtr;
};

typedef struct os_rdy_list {
	OS_TCB *HeadPtr, *TailPtr;
	uint16_t NbrEntries;
} OS_RDY_LIST;

typedef struct os_tick_list {
	OS_TCB *TCB_Ptr;
	uint16_t NbrEntries, NbrUpdated;
} OS_TICK_LIST;

OS_TCB *OSTCBCurPtr, *OSTCBHighRdyPtr;
uint8_t OSPrioCur, OSPrioHighRdy;
OS_RDY_LIST OSRdyList[OS_CFG_PRIO_MAX];
static uint32_t OSPrioTbl[OS_CFG_PRIO_MAX / 32];
OS_TICK_LIST OSTickList;
OS_TCB *OSTaskDbgListPtr;
uint16_t OSTaskQty;
uint8_t OSRunning;
volatile uint8_t OSIntNestingCtr;
uint32_t OSTickCtr;
OS_TCB OSIdleTaskTCB, OSStatTaskTCB, OSTmrTaskTCB;
static uint32_t idle_stk[KERNEL_STACK_WORDS] __attribute__((aligned(8)));
static uint32_t stat_stk[KERNEL_STACK_WORDS] __attribute__((aligned(8)));
static uint32_t tmr_stk[KERNEL_STACK_WORDS] __attribute__((aligned(8)));
static OS_SEM never_sem;
/* os_cpu_c.c: where OSStartHighRdy puts the MSP; the test's main stack. */
extern uint32_t __msp_stack_hi[];
uint32_t *OS_CPU_ExceptStkBase = __msp_stack_hi;

static OS_TCB tcbs[RTOS_MAX_TASKS];
static unsigned int nr_tcbs;

volatile uint32_t rtos_ticks;

void OSCtxSw(void);
void OSStartHighRdy(void) __attribute__((noreturn));
void board_start_tick(void);

/* OS_TaskReturn: a task function returned; the real one deletes the task. */
NOINLINE void OS_TaskReturn(void)
{
	rtos_task_exit();
}

/*
 * OSTaskStkInit of Ports/ARM-Cortex-M/ARMv{6,7}-M/os_cpu_c.c: from the
 * stack's top rounded down to 8, xPSR, the entry, lr OS_TaskReturn, r12, r3,
 * r2, r1 the stack limit, r0 the argument, EXC_RETURN 0xFFFFFFFD, r11-r4.
 */
static uint32_t *OSTaskStkInit(OS_TASK_PTR task, void *arg, uint32_t *base, uint32_t *limit,
			       uint32_t size)
{
	uint32_t *p = (uint32_t *)((uint32_t)&base[size] & ~7u);
	int i;

	*--p = 0x01000000u;
	*--p = (uint32_t)task;
	*--p = (uint32_t)OS_TaskReturn;
	*--p = 0x12121212u;
	*--p = 0x03030303u;
	*--p = 0x02020202u;
	*--p = (uint32_t)limit;
	*--p = (uint32_t)arg;
	*--p = 0xFFFFFFFDu;
	for (i = 11; i >= 4; i--)
		*--p = 0x01010101u * (uint32_t)i;
	return p;
}

static void prio_insert(uint8_t prio)
{
	OSPrioTbl[prio / 32] |= 0x80000000u >> (prio % 32);
}

static void prio_remove(uint8_t prio)
{
	OSPrioTbl[prio / 32] &= ~(0x80000000u >> (prio % 32));
}

static uint8_t prio_get_highest(void)
{
	unsigned int i;

	for (i = 0; i < OS_CFG_PRIO_MAX / 32; i++)
		if (OSPrioTbl[i])
			return (uint8_t)(i * 32 + __builtin_clz(OSPrioTbl[i]));
	return OS_CFG_PRIO_MAX - 1;
}

/* OS_RdyListInsertTail */
static void rdy_insert_tail(OS_TCB *t)
{
	OS_RDY_LIST *l = &OSRdyList[t->Prio];

	t->NextPtr = 0;
	t->PrevPtr = l->TailPtr;
	if (l->TailPtr)
		l->TailPtr->NextPtr = t;
	else
		l->HeadPtr = t;
	l->TailPtr = t;
	l->NbrEntries++;
	prio_insert(t->Prio);
}

/* OS_RdyListRemove */
static void rdy_remove(OS_TCB *t)
{
	OS_RDY_LIST *l = &OSRdyList[t->Prio];

	if (t->PrevPtr)
		t->PrevPtr->NextPtr = t->NextPtr;
	else
		l->HeadPtr = t->NextPtr;
	if (t->NextPtr)
		t->NextPtr->PrevPtr = t->PrevPtr;
	else
		l->TailPtr = t->PrevPtr;
	t->NextPtr = t->PrevPtr = 0;
	l->NbrEntries--;
	if (!l->HeadPtr)
		prio_remove(t->Prio);
}

/* OS_TickListInsert, unsorted here: the tick walks it all. */
static void tick_insert(OS_TCB *t, uint32_t ticks)
{
	t->TickRemain = ticks;
	t->TickPrevPtr = 0;
	t->TickNextPtr = OSTickList.TCB_Ptr;
	if (OSTickList.TCB_Ptr)
		OSTickList.TCB_Ptr->TickPrevPtr = t;
	OSTickList.TCB_Ptr = t;
	OSTickList.NbrEntries++;
}

static void tick_remove(OS_TCB *t)
{
	if (t->TickPrevPtr)
		t->TickPrevPtr->TickNextPtr = t->TickNextPtr;
	else
		OSTickList.TCB_Ptr = t->TickNextPtr;
	if (t->TickNextPtr)
		t->TickNextPtr->TickPrevPtr = t->TickPrevPtr;
	t->TickNextPtr = t->TickPrevPtr = 0;
	OSTickList.NbrEntries--;
}

/* OSSched from a task, interrupts off: the head of the most urgent ready list. */
static void OSSched(void)
{
	OSPrioHighRdy = prio_get_highest();
	OSTCBHighRdyPtr = OSRdyList[OSPrioHighRdy].HeadPtr;
	if (OSTCBHighRdyPtr != OSTCBCurPtr)
		OSCtxSw();
}

/* OSTaskCreate with OS_OPT_TASK_STK_CHK | OS_OPT_TASK_STK_CLR. */
static void OSTaskCreate(OS_TCB *t, const char *name, OS_TASK_PTR fn, void *arg, uint8_t prio,
			 uint32_t *stk, uint32_t words)
{
	uint32_t i;

	for (i = 0; i < words; i++)
		((volatile uint32_t *)stk)[i] = 0;
	t->NamePtr = (char *)name;
	t->Prio = t->BasePrio = prio;
	t->StkBasePtr = stk;
	t->StkLimitPtr = stk;
	t->StkSize = words;
	t->TaskEntryAddr = fn;
	t->TaskEntryArg = arg;
	t->TimeQuanta = t->TimeQuantaCtr = 1;
	t->Opt = 0x0003;
	t->StkPtr = OSTaskStkInit(fn, arg, stk, stk, words);
	t->TaskState = OS_TASK_STATE_RDY;
	/* OS_TaskDbgListAdd: at the head. */
	t->DbgPrevPtr = 0;
	t->DbgNextPtr = OSTaskDbgListPtr;
	if (OSTaskDbgListPtr)
		OSTaskDbgListPtr->DbgPrevPtr = t;
	OSTaskDbgListPtr = t;
	t->DbgNamePtr = (char *)" ";
	OSTaskQty++;
	rdy_insert_tail(t);
	rtos_registry_add(name, t, fn, stk, stk + words);
}

static void kernel_tasks(void);

/* The application numbers priorities FreeRTOS's way (higher is more urgent). */
void rtos_create(const char *name, rtos_entry fn, void *arg, unsigned int prio,
		 uint32_t *stack, uint32_t words)
{
	kernel_tasks();
	OSTaskCreate(&tcbs[nr_tcbs++], name, fn, arg, (uint8_t)(APP_PRIO_BASE - prio), stack,
		     words);
}

/* OSTimeDly(ticks, OS_OPT_TIME_DLY): off the ready list, onto the tick list. */
void rtos_delay(uint32_t ticks)
{
	irq_off();
	rdy_remove(OSTCBCurPtr);
	OSTCBCurPtr->TaskState = OS_TASK_STATE_DLY;
	tick_insert(OSTCBCurPtr, ticks);
	OSSched();
	irq_on();
}

/* OSSchedRoundRobinYield after OS_TaskSw's red-zone check (OS_CFG_TASK_STK_REDZONE_EN). */
void rtos_yield(void)
{
	OS_RDY_LIST *l;

	rtos_check_stack(OSTCBCurPtr->StkBasePtr, 0, OSTCBCurPtr->NamePtr);
	irq_off();
	l = &OSRdyList[OSTCBCurPtr->Prio];
	if (l->HeadPtr != l->TailPtr) {
		rdy_remove(OSTCBCurPtr);
		rdy_insert_tail(OSTCBCurPtr);
	}
	OSSched();
	irq_on();
}

/* OS_Pend: the current task off the ready list, on the object's pend list. */
static void os_pend(OS_PEND_OBJ *obj, uint8_t on)
{
	OS_TCB *t = OSTCBCurPtr;

	rdy_remove(t);
	t->PendOn = on;
	t->PendStatus = 0;
	t->PendObjPtr = obj;
	t->TaskState = OS_TASK_STATE_PEND;
	if (obj) {
		t->PendNextPtr = 0;
		t->PendPrevPtr = obj->PendList.TailPtr;
		if (obj->PendList.TailPtr)
			obj->PendList.TailPtr->PendNextPtr = t;
		else
			obj->PendList.HeadPtr = t;
		obj->PendList.TailPtr = t;
		obj->PendList.NbrEntries++;
	}
}

/* OSSemPend(&never, 0, OS_OPT_PEND_BLOCKING): a semaphore nobody posts. */
void rtos_block_forever(void)
{
	irq_off();
	os_pend((OS_PEND_OBJ *)&never_sem, OS_TASK_PEND_ON_SEM);
	OSSched();
	irq_on();
}

void rtos_delete_self(void)
{
	for (;;)
		rtos_delay(1000);
}

/*
 * OSTimeTick and OSIntExit in the tick interrupt: each delayed task whose
 * time is up made ready, the current priority's list rotated when the
 * running task's quanta is spent (OS_SchedRoundRobin), the application's
 * timer work (rtos_tick_hook), then PendSV pended if another task is now
 * the most urgent: OSTCBCurPtr stays the interrupted task's until it runs.
 */
void rtos_tick(void)
{
	OS_TCB *t, *next;
	OS_RDY_LIST *l;

	if (!OSTCBCurPtr)	/* ARMv6-M: the tick came before the first switch */
		return;
	OSIntNestingCtr++;
	rtos_ticks = ++OSTickCtr;
	for (t = OSTickList.TCB_Ptr; t; t = next) {
		next = t->TickNextPtr;
		if (--t->TickRemain)
			continue;
		tick_remove(t);
		t->TaskState = OS_TASK_STATE_RDY;
		rdy_insert_tail(t);
	}
	l = &OSRdyList[OSTCBCurPtr->Prio];
	if (OSTCBCurPtr->TaskState == OS_TASK_STATE_RDY && l->HeadPtr == OSTCBCurPtr &&
	    l->HeadPtr != l->TailPtr) {
		rdy_remove(OSTCBCurPtr);
		rdy_insert_tail(OSTCBCurPtr);
	}
	rtos_tick_hook();
	OSIntNestingCtr--;
	OSPrioHighRdy = prio_get_highest();
	OSTCBHighRdyPtr = OSRdyList[OSPrioHighRdy].HeadPtr;
	if (OSTCBHighRdyPtr != OSTCBCurPtr)
		rtos_pend_switch();	/* OSIntCtxSw */
}

/* OSTaskSwHook: no FPU work in µC/OS-III's ports (PendSV saves s16-s31). */
void OSTaskSwHook(void)
{
}

/* OS_IdleTask: counts and calls its hook; never runs under the application's IDLE. */
static NOINLINE void OSIdleTaskHook(void)
{
	__asm__ volatile("" ::: "memory");
}

static void OS_IdleTask(void *p_arg)
{
	(void)p_arg;
	for (;;)
		OSIdleTaskHook();
}

/* OS_StatTask: a sample, then OSTimeDly until the next (long here: it stays delayed). */
static NOINLINE void OS_StatSample(void)
{
	OSStatTaskTCB.StkUsed = 64;
	rtos_delay(100000);
}

static void OS_StatTask(void *p_arg)
{
	(void)p_arg;
	for (;;)
		OS_StatSample();
}

/* OS_TmrTask with no timer running: OSTaskSemPend(0, ...) on its own semaphore. */
static NOINLINE void OS_TmrWait(void)
{
	irq_off();
	os_pend(0, OS_TASK_PEND_ON_TASK_SEM);
	OSSched();
	irq_on();
}

static void OS_TmrTask(void *p_arg)
{
	(void)p_arg;
	for (;;)
		OS_TmrWait();
}

/* OSInit's tasks, before the application's (last on the debug list). */
static void kernel_tasks(void)
{
	static int done;

	if (done++)
		return;
	never_sem.Type = OS_OBJ_TYPE_SEM;
	never_sem.NamePtr = "never";
	OSTaskCreate(&OSIdleTaskTCB, "uC/OS-III Idle Task", OS_IdleTask, 0, OS_CFG_PRIO_MAX - 1,
		     idle_stk, KERNEL_STACK_WORDS);
	OSTaskCreate(&OSTmrTaskTCB, "uC/OS-III Timer Task", OS_TmrTask, 0, OS_CFG_TMR_TASK_PRIO,
		     tmr_stk, KERNEL_STACK_WORDS);
	OSTaskCreate(&OSStatTaskTCB, "uC/OS-III Stat Task", OS_StatTask, 0,
		     OS_CFG_STAT_TASK_PRIO, stat_stk, KERNEL_STACK_WORDS);
}

/* OSStart: the most urgent task, OSStartHighRdy of the port (port.S) starts it. */
void rtos_start(void)
{
	irq_off();
	kernel_tasks();
	OSPrioHighRdy = prio_get_highest();
	OSTCBHighRdyPtr = OSRdyList[OSPrioHighRdy].HeadPtr;
	OSRunning = 1;
	board_start_tick();
	OSStartHighRdy();
}
