// SPDX-License-Identifier: GPL-2.0
/*
 * kernel_ucos2.c - the test scheduler with its state in the shapes and under
 * the names µC/OS-II 2.93 uses on Cortex-M (ucos_ii.h's OS_TCB with
 * Cfg/Template/os_cfg.h, OSTCBCur, OSTCBList, OSTCBPrioTbl, OSRdyTbl, OS_EVENT,
 * the kernel's own tasks, the ARMv6-M and ARMv7-M GNU ports' switch and
 * OSTaskStkInit). Written from reading ucos_ii.h, os_core.c, os_task.c,
 * os_time.c, os_sem.c, os_tmr.c and the ports; no µC/OS code.
 *
 * What the real kernel leaves that an analyzer meets: every task on
 * OSTCBList (OSTCBNext, newest first, the idle task last; OSTCBPrev links
 * back) and in OSTCBPrioTbl[prio], one task per priority; a ready task's
 * bit set in OSRdyTbl, the running one's too; a delayed one's OSTCBDly
 * counting down; a pending one's OSTCBStat naming the kind of event and
 * OSTCBEventPtr the event; stacks cleared at creation (OS_TASK_OPT_STK_CLR);
 * a new task's frame returning to OS_TaskReturn (with the FPU an extended
 * frame and s16-s31 below r4); the kernel's "uC/OS-II Idle" (lowest
 * priority), "uC/OS-II Stat" (just above it) and "uC/OS-II Tmr" (pending on
 * the semaphore "uC/OS-II TmrSignal"); OSTCBCur left at the interrupted task
 * until PendSV switches, while OSTCBHighRdy names the next. µC/OS-II has no
 * round-robin: equal application priorities become adjacent ones.
 */
#include <stdint.h>
#include "rtos.h"

#define OS_LOWEST_PRIO		63
#define OS_TASK_TMR_PRIO	10
#define APP_PRIO_BASE		40	/* the application's priority 0 (its IDLE) */
#define KERNEL_STACK_WORDS	128

/* ucos_ii.h */
#define OS_STAT_RDY		0x00u
#define OS_STAT_SEM		0x01u
#define OS_STAT_PEND_OK		0u
#define OS_EVENT_TYPE_SEM	3u
#define OS_EVENT_TBL_SIZE	((OS_LOWEST_PRIO) / 8u + 1u)
#define OS_TASK_IDLE_ID		65535u

typedef struct os_event {
	uint8_t OSEventType;
	void *OSEventPtr;
	uint16_t OSEventCnt;
	uint8_t OSEventGrp;
	uint8_t OSEventTbl[OS_EVENT_TBL_SIZE];
	uint8_t *OSEventName;
} OS_EVENT;

/* OS_TCB in ucos_ii.h's order with Cfg/Template/os_cfg.h. */
typedef struct os_tcb {
	uint32_t *OSTCBStkPtr;
	void *OSTCBExtPtr;
	uint32_t *OSTCBStkBottom;
	uint32_t OSTCBStkSize;
	uint16_t OSTCBOpt;
	uint16_t OSTCBId;
	struct os_tcb *OSTCBNext;
	struct os_tcb *OSTCBPrev;
	OS_EVENT *OSTCBEventPtr;
	OS_EVENT **OSTCBEventMultiPtr;
	OS_EVENT *OSTCBEventMultiRdy;
	void *OSTCBMsg;
	void *OSTCBFlagNode;
	uint16_t OSTCBFlagsRdy;
	uint32_t OSTCBDly;
	uint8_t OSTCBStat;
	uint8_t OSTCBStatPend;
	uint8_t OSTCBPrio;
	uint8_t OSTCBX, OSTCBY;
	uint8_t OSTCBBitX, OSTCBBitY;
	uint8_t OSTCBDelReq;
	uint32_t OSTCBCtxSwCtr, OSTCBCyclesTot, OSTCBCyclesStart;
	uint32_t *OSTCBStkBase;
	uint32_t OSTCBStkUsed;
	uint8_t *OSTCBTaskName;
	uint32_t OSTCBRegTbl[1];
} OS_TCB;

OS_TCB *OSTCBCur, *OSTCBHighRdy, *OSTCBList;
OS_TCB *OSTCBPrioTbl[OS_LOWEST_PRIO + 1];
uint8_t OSPrioCur, OSPrioHighRdy, OSRdyGrp;
uint8_t OSRdyTbl[OS_EVENT_TBL_SIZE];
uint8_t OSRunning, OSTaskCtr;
volatile uint8_t OSIntNesting;
volatile uint32_t OSTime;
static OS_TCB OSTCBTbl[RTOS_MAX_TASKS];
static unsigned int nr_tcbs;
static OS_EVENT OSEventTbl[2];
OS_EVENT *OSTmrSemSignal;
static uint32_t OSTaskIdleStk[KERNEL_STACK_WORDS] __attribute__((aligned(8)));
static uint32_t OSTaskStatStk[KERNEL_STACK_WORDS] __attribute__((aligned(8)));
static uint32_t OSTmrTaskStk[KERNEL_STACK_WORDS] __attribute__((aligned(8)));
static OS_EVENT *never_sem;
/* os_cpu_c.c: where OSStartHighRdy puts the MSP; the test's main stack. */
extern uint32_t __msp_stack_hi[];
uint32_t *OS_CPU_ExceptStkBase = __msp_stack_hi;

volatile uint32_t rtos_ticks;

void OSCtxSw(void);
void OSStartHighRdy(void) __attribute__((noreturn));
void board_start_tick(void);
#if defined(__ARM_FP) && !defined(__ARM_ARCH_6M__)
#define OS_CPU_ARM_FP_EN	1
void OS_CPU_FP_Reg_Push(uint32_t *stk);
void OS_CPU_FP_Reg_Pop(uint32_t *stk);
#else
#define OS_CPU_ARM_FP_EN	0
#endif

/* OS_TaskReturn: a task function returned; the real one deletes the task. */
NOINLINE void OS_TaskReturn(void)
{
	rtos_task_exit();
}

/*
 * OSTaskStkInit of Ports/ARM-Cortex-M/ARMv{6,7}-M/os_cpu_c.c: from the top
 * element + 1 rounded down to 8, with the FPU an extended frame's FP part
 * (a reserved word, FPSCR, s15-s0) first; then xPSR, the entry, lr
 * OS_TaskReturn, r12, r3-r1, r0 the argument, EXC_RETURN (extended with the
 * FPU), r11-r4, and with the FPU s31-s16.
 */
static uint32_t *OSTaskStkInit(rtos_entry task, void *p_arg, uint32_t *ptos)
{
	uint32_t *p = (uint32_t *)((uint32_t)(ptos + 1) & ~7u);
	int i;

#if OS_CPU_ARM_FP_EN
	--p;
	*--p = 0x02000000u;
	for (i = 15; i >= 0; i--)
		*--p = (uint32_t)i * 0x00100000u;
#endif
	*--p = 0x01000000u;
	*--p = (uint32_t)task;
	*--p = (uint32_t)OS_TaskReturn;
	*--p = 0x12121212u;
	*--p = 0x03030303u;
	*--p = 0x02020202u;
	*--p = 0x01010101u;
	*--p = (uint32_t)p_arg;
	*--p = OS_CPU_ARM_FP_EN ? 0xFFFFFFEDu : 0xFFFFFFFDu;
	for (i = 11; i >= 4; i--)
		*--p = 0x01010101u * (uint32_t)i;
#if OS_CPU_ARM_FP_EN
	for (i = 31; i >= 16; i--)
		*--p = (uint32_t)i * 0x00080000u;
#endif
	return p;
}

static void rdy_set(OS_TCB *t)
{
	OSRdyGrp |= t->OSTCBBitY;
	OSRdyTbl[t->OSTCBY] |= t->OSTCBBitX;
}

static void rdy_clear(OS_TCB *t)
{
	OSRdyTbl[t->OSTCBY] &= (uint8_t)~t->OSTCBBitX;
	if (!OSRdyTbl[t->OSTCBY])
		OSRdyGrp &= (uint8_t)~t->OSTCBBitY;
}

/* OS_SchedNew: the most urgent ready priority. */
static void OS_SchedNew(void)
{
	uint8_t y = (uint8_t)__builtin_ctz(OSRdyGrp);

	OSPrioHighRdy = (uint8_t)(y * 8u + __builtin_ctz(OSRdyTbl[y]));
}

/* OS_Sched from a task, interrupts off. */
static void OS_Sched(void)
{
	OS_SchedNew();
	if (OSPrioHighRdy != OSPrioCur) {
		OSTCBHighRdy = OSTCBPrioTbl[OSPrioHighRdy];
		OSTCBHighRdy->OSTCBCtxSwCtr++;
		OSCtxSw();
	}
}

/* OS_TCBInit after OSTaskStkInit: onto OSTCBList's head, into OSTCBPrioTbl, ready. */
static OS_TCB *OS_TCBInit(uint8_t prio, uint32_t *ptos, uint32_t *pbos, uint16_t id,
			  uint32_t stk_size, uint16_t opt)
{
	OS_TCB *t = &OSTCBTbl[nr_tcbs++];

	t->OSTCBStkPtr = ptos;
	t->OSTCBPrio = prio;
	t->OSTCBStat = OS_STAT_RDY;
	t->OSTCBStatPend = OS_STAT_PEND_OK;
	t->OSTCBStkBottom = pbos;
	t->OSTCBStkSize = stk_size;
	t->OSTCBOpt = opt;
	t->OSTCBId = id;
	t->OSTCBY = prio >> 3;
	t->OSTCBX = prio & 7;
	t->OSTCBBitY = (uint8_t)(1u << t->OSTCBY);
	t->OSTCBBitX = (uint8_t)(1u << t->OSTCBX);
	t->OSTCBTaskName = (uint8_t *)"?";
	OSTCBPrioTbl[prio] = t;
	t->OSTCBNext = OSTCBList;
	t->OSTCBPrev = 0;
	if (OSTCBList)
		OSTCBList->OSTCBPrev = t;
	OSTCBList = t;
	rdy_set(t);
	OSTaskCtr++;
	return t;
}

/* OSTaskCreateExt(..., OS_TASK_OPT_STK_CHK | OS_TASK_OPT_STK_CLR), then OSTaskNameSet. */
static OS_TCB *OSTaskCreateExt(const char *name, rtos_entry fn, void *arg, uint8_t prio,
			       uint32_t *stk, uint32_t words, uint16_t id)
{
	OS_TCB *t;
	uint32_t i;

	for (i = 0; i < words; i++)
		((volatile uint32_t *)stk)[i] = 0;
	t = OS_TCBInit(prio, OSTaskStkInit(fn, arg, &stk[words - 1]), stk, id, words, 0x0003);
	t->OSTCBTaskName = (uint8_t *)name;
	rtos_registry_add(name, t, fn, stk, stk + words);
	return t;
}

static void kernel_tasks(void);

/*
 * The application numbers priorities FreeRTOS's way (higher is more urgent)
 * and shares them: each of its levels is four µC/OS-II priorities, the
 * first task created at a level the less urgent.
 */
void rtos_create(const char *name, rtos_entry fn, void *arg, unsigned int prio,
		 uint32_t *stack, uint32_t words)
{
	static uint8_t at_level[8];

	kernel_tasks();
	OSTaskCreateExt(name, fn, arg, (uint8_t)(APP_PRIO_BASE - 4 * prio - at_level[prio]++),
			stack, words, (uint16_t)prio);
}

/* OSTimeDly: not ready, OSTCBDly counting down in the tick. */
void rtos_delay(uint32_t ticks)
{
	irq_off();
	rdy_clear(OSTCBCur);
	OSTCBCur->OSTCBDly = ticks;
	OS_Sched();
	irq_on();
}

/* OS_Sched after OSTaskStkChk's test of the stack's low end; no round-robin to yield to. */
void rtos_yield(void)
{
	rtos_check_stack(OSTCBCur->OSTCBStkBottom, 0, (const char *)OSTCBCur->OSTCBTaskName);
	irq_off();
	OS_Sched();
	irq_on();
}

/* OSSemPend(sem, 0, &err) on a semaphore at 0: OS_EventTaskWait. */
static void sem_pend_forever(OS_EVENT *ev)
{
	OS_TCB *t = OSTCBCur;

	t->OSTCBStat |= OS_STAT_SEM;
	t->OSTCBStatPend = OS_STAT_PEND_OK;
	t->OSTCBDly = 0;
	t->OSTCBEventPtr = ev;
	ev->OSEventTbl[t->OSTCBY] |= t->OSTCBBitX;
	ev->OSEventGrp |= t->OSTCBBitY;
	rdy_clear(t);
	OS_Sched();
}

void rtos_block_forever(void)
{
	irq_off();
	sem_pend_forever(never_sem);
	irq_on();
}

void rtos_delete_self(void)
{
	for (;;)
		rtos_delay(1000);
}

/*
 * OSTimeTick and OSIntExit in the tick interrupt: each delayed task whose
 * OSTCBDly reaches 0 made ready, the application's timer work
 * (rtos_tick_hook), then PendSV pended if another task is now the most
 * urgent: OSTCBCur stays the interrupted task's until it runs.
 */
void rtos_tick(void)
{
	OS_TCB *t;

	if (!OSRunning || !OSTCBCur)
		return;
	OSIntNesting++;
	rtos_ticks = ++OSTime;
	for (t = OSTCBList; t; t = t->OSTCBNext)
		if (t->OSTCBDly && !--t->OSTCBDly && !(t->OSTCBStat & 0x3f))
			rdy_set(t);
	rtos_tick_hook();
	if (!--OSIntNesting) {
		OS_SchedNew();
		if (OSPrioHighRdy != OSPrioCur) {
			OSTCBHighRdy = OSTCBPrioTbl[OSPrioHighRdy];
			rtos_pend_switch();	/* OSIntCtxSw */
		}
	}
}

/* OSTaskSwHook of the ARMv7-M port: s16-s31 out and in (OS_CPU_FP_Reg_Push/Pop, port.S). */
void OSTaskSwHook(void)
{
#if OS_CPU_ARM_FP_EN
	OS_CPU_FP_Reg_Push(OSTCBCur ? OSTCBCur->OSTCBStkPtr : 0);
	OS_CPU_FP_Reg_Pop(OSTCBHighRdy->OSTCBStkPtr);
#endif
}

/* OS_TaskIdle: counts and calls its hook; never runs under the application's IDLE. */
static NOINLINE void OSTaskIdleHook(void)
{
	__asm__ volatile("" ::: "memory");
}

static void OS_TaskIdle(void *p_arg)
{
	(void)p_arg;
	for (;;)
		OSTaskIdleHook();
}

/* OS_TaskStat: a sample each OS_TICKS_PER_SEC; just above the idle task, it never runs either. */
static NOINLINE void OS_TaskStatSample(void)
{
	OSTCBCur->OSTCBStkUsed = 64;
	rtos_delay(100);
}

static void OS_TaskStat(void *p_arg)
{
	(void)p_arg;
	for (;;)
		OS_TaskStatSample();
}

/* OSTmr_Task: OSSemPend(OSTmrSemSignal, 0, &err) until a tick signals it (none here). */
static NOINLINE void OSTmr_Wait(void)
{
	irq_off();
	sem_pend_forever(OSTmrSemSignal);
	irq_on();
}

static void OSTmr_Task(void *p_arg)
{
	(void)p_arg;
	for (;;)
		OSTmr_Wait();
}

/* OSInit: the idle, stat and timer tasks, the semaphores, before the application's. */
static void kernel_tasks(void)
{
	static int done;

	if (done++)
		return;
	OSTmrSemSignal = &OSEventTbl[0];
	OSTmrSemSignal->OSEventType = OS_EVENT_TYPE_SEM;
	OSTmrSemSignal->OSEventName = (uint8_t *)"uC/OS-II TmrSignal";
	never_sem = &OSEventTbl[1];
	never_sem->OSEventType = OS_EVENT_TYPE_SEM;
	never_sem->OSEventName = (uint8_t *)"never";
	OSTaskCreateExt("uC/OS-II Idle", OS_TaskIdle, 0, OS_LOWEST_PRIO, OSTaskIdleStk,
			KERNEL_STACK_WORDS, OS_TASK_IDLE_ID);
	OSTaskCreateExt("uC/OS-II Stat", OS_TaskStat, 0, OS_LOWEST_PRIO - 1, OSTaskStatStk,
			KERNEL_STACK_WORDS, OS_TASK_IDLE_ID - 1);
	OSTaskCreateExt("uC/OS-II Tmr", OSTmr_Task, 0, OS_TASK_TMR_PRIO, OSTmrTaskStk,
			KERNEL_STACK_WORDS, OS_TASK_IDLE_ID - 2);
}

/* OSStart: the most urgent task; OSStartHighRdy of the port (port.S) starts it. */
void rtos_start(void)
{
	irq_off();
	kernel_tasks();
	OS_SchedNew();
	OSPrioCur = OSPrioHighRdy;
	OSTCBHighRdy = OSTCBPrioTbl[OSPrioHighRdy];
	board_start_tick();
	OSRunning = 1;
	OSStartHighRdy();
}
