// SPDX-License-Identifier: GPL-2.0
/*
 * kernel_freertos.c - a small preemptive scheduler written for the test
 * firmware, keeping its state in the shapes and under the names FreeRTOS
 * uses (tasks.c, list.h), so a debugger that knows FreeRTOS reads it as
 * FreeRTOS. Written from the documented data structures; no FreeRTOS code.
 *
 * Task states as FreeRTOS keeps them: running = pxCurrentTCB; ready = in
 * pxReadyTasksLists[priority]; delayed = in *pxDelayedTaskList, ordered by
 * wake tick; blocked without timeout = in xSuspendedTaskList with the event
 * list item in an event list, or with ucNotifyState taskWAITING_NOTIFICATION
 * (ulTaskGenericNotifyTake); readied while the scheduler is suspended = the
 * event list item in xPendingReadyList, the state list item still where it
 * was (xTaskRemoveFromEventList); deleted itself = the state list item in
 * xTasksWaitingTermination until the idle task frees it (vTaskDelete).
 * eTaskGetState() reads exactly these. The context switch (port.S) saves the task's
 * registers on its own stack and pxTopOfStack, the TCB's first word, points
 * at them.
 */
#include <stdint.h>
#include "rtos.h"

#define configMAX_PRIORITIES	5
#define configMAX_TASK_NAME_LEN	16
/* The ports' default is 0: only pxStack says where a stack is (the RTOS_NO_END_OF_STACK build). */
#ifdef RTOS_NO_END_OF_STACK
#define configRECORD_STACK_HIGH_ADDRESS	0
#else
#define configRECORD_STACK_HIGH_ADDRESS	1
#endif
#define STACK_FILL	0xA5A5A5A5u	/* tskSTACK_FILL_BYTE, four times */
#define taskWAITING_NOTIFICATION	1
#define portMAX_DELAY	0xFFFFFFFFu

typedef uint32_t TickType_t;
typedef uint32_t StackType_t;
typedef long BaseType_t;
typedef unsigned long UBaseType_t;

/*
 * FreeRTOS.h's backward compatibility (configENABLE_BACKWARD_COMPATIBILITY,
 * 1 by default) turns the V8 name back into the old one: the DWARF of every
 * default build names the member pvContainer.
 */
#define pxContainer	pvContainer

/*
 * configUSE_LIST_DATA_INTEGRITY_CHECK_BYTES (the RTOS_LIST_INTEGRITY build):
 * a known value at both ends of every list and list item, moving every
 * field after the first.
 */
#ifdef RTOS_LIST_INTEGRITY
#define pdINTEGRITY_CHECK_VALUE	0x5a5a5a5aUL
#define listFIRST_LIST_ITEM_INTEGRITY_CHECK_VALUE	TickType_t xListItemIntegrityValue1;
#define listSECOND_LIST_ITEM_INTEGRITY_CHECK_VALUE	TickType_t xListItemIntegrityValue2;
#define listFIRST_LIST_INTEGRITY_CHECK_VALUE	TickType_t xListIntegrityValue1;
#define listSECOND_LIST_INTEGRITY_CHECK_VALUE	TickType_t xListIntegrityValue2;
#define listSET_LIST_INTEGRITY_CHECK_VALUES(l) \
	((l)->xListIntegrityValue1 = (l)->xListIntegrityValue2 = pdINTEGRITY_CHECK_VALUE, \
	 (l)->xListEnd.xListItemIntegrityValue1 = pdINTEGRITY_CHECK_VALUE)
#define listSET_LIST_ITEM_INTEGRITY_CHECK_VALUES(i) \
	((i)->xListItemIntegrityValue1 = (i)->xListItemIntegrityValue2 = pdINTEGRITY_CHECK_VALUE)
#else
#define listFIRST_LIST_ITEM_INTEGRITY_CHECK_VALUE
#define listSECOND_LIST_ITEM_INTEGRITY_CHECK_VALUE
#define listFIRST_LIST_INTEGRITY_CHECK_VALUE
#define listSECOND_LIST_INTEGRITY_CHECK_VALUE
#define listSET_LIST_INTEGRITY_CHECK_VALUES(l)	((void)(l))
#define listSET_LIST_ITEM_INTEGRITY_CHECK_VALUES(i)	((void)(i))
#endif

struct xLIST;

struct xLIST_ITEM {
	listFIRST_LIST_ITEM_INTEGRITY_CHECK_VALUE
	volatile TickType_t xItemValue;
	struct xLIST_ITEM *volatile pxNext;
	struct xLIST_ITEM *volatile pxPrevious;
	void *pvOwner;
	struct xLIST *volatile pxContainer;
	listSECOND_LIST_ITEM_INTEGRITY_CHECK_VALUE
};
typedef struct xLIST_ITEM ListItem_t;

struct xMINI_LIST_ITEM {
	listFIRST_LIST_ITEM_INTEGRITY_CHECK_VALUE
	volatile TickType_t xItemValue;
	struct xLIST_ITEM *volatile pxNext;
	struct xLIST_ITEM *volatile pxPrevious;
};
typedef struct xMINI_LIST_ITEM MiniListItem_t;

typedef struct xLIST {
	listFIRST_LIST_INTEGRITY_CHECK_VALUE
	volatile UBaseType_t uxNumberOfItems;
	ListItem_t *volatile pxIndex;
	MiniListItem_t xListEnd;
	listSECOND_LIST_INTEGRITY_CHECK_VALUE
} List_t;

typedef struct tskTaskControlBlock {
	volatile StackType_t *pxTopOfStack;
	ListItem_t xStateListItem;
	ListItem_t xEventListItem;
	UBaseType_t uxPriority;
	StackType_t *pxStack;
	char pcTaskName[configMAX_TASK_NAME_LEN];
#if configRECORD_STACK_HIGH_ADDRESS
	StackType_t *pxEndOfStack;
#endif
	UBaseType_t uxTCBNumber;
	UBaseType_t uxBasePriority;
	volatile uint32_t ulNotifiedValue[1];	/* configTASK_NOTIFICATION_ARRAY_ENTRIES 1 */
	volatile uint8_t ucNotifyState[1];
} tskTCB;
typedef tskTCB TCB_t;

TCB_t *volatile pxCurrentTCB;
List_t pxReadyTasksLists[configMAX_PRIORITIES];
List_t xDelayedTaskList1;
List_t xDelayedTaskList2;
List_t *volatile pxDelayedTaskList;
List_t *volatile pxOverflowDelayedTaskList;
List_t xPendingReadyList;
List_t xSuspendedTaskList;
List_t xTasksWaitingTermination;
volatile UBaseType_t uxDeletedTasksWaitingCleanUp;
volatile UBaseType_t uxSchedulerSuspended;
static volatile BaseType_t xSchedulerRunning;
volatile UBaseType_t uxCurrentNumberOfTasks;
volatile TickType_t xTickCount;
volatile UBaseType_t uxTopReadyPriority;

/* The event the waiter thread blocks on: nobody ever signals it. */
List_t xNeverSignalled;
/* The event rtos_signal_suspended() signals with the scheduler suspended. */
List_t xSignalledSuspended;

static TCB_t tcbs[RTOS_MAX_TASKS];

volatile uint32_t rtos_ticks;

static void list_init(List_t *l)
{
	l->pxIndex = (ListItem_t *)&l->xListEnd;
	l->xListEnd.xItemValue = 0xFFFFFFFFu;
	l->xListEnd.pxNext = (ListItem_t *)&l->xListEnd;
	l->xListEnd.pxPrevious = (ListItem_t *)&l->xListEnd;
	l->uxNumberOfItems = 0;
	listSET_LIST_INTEGRITY_CHECK_VALUES(l);
}

/* At the end of the round-robin order: just before pxIndex. */
static void list_insert_end(List_t *l, ListItem_t *it)
{
	ListItem_t *idx = l->pxIndex;

	it->pxNext = idx;
	it->pxPrevious = idx->pxPrevious;
	idx->pxPrevious->pxNext = it;
	idx->pxPrevious = it;
	it->pxContainer = l;
	l->uxNumberOfItems++;
}

/* Sorted by xItemValue (the wake tick for delayed lists). */
static void list_insert_sorted(List_t *l, ListItem_t *it)
{
	ListItem_t *at = (ListItem_t *)&l->xListEnd;

	while (at->pxNext != (ListItem_t *)&l->xListEnd && at->pxNext->xItemValue <= it->xItemValue)
		at = at->pxNext;
	it->pxNext = at->pxNext;
	it->pxPrevious = at;
	at->pxNext->pxPrevious = it;
	at->pxNext = it;
	it->pxContainer = l;
	l->uxNumberOfItems++;
}

static void list_remove(ListItem_t *it)
{
	List_t *l = it->pxContainer;

	it->pxNext->pxPrevious = it->pxPrevious;
	it->pxPrevious->pxNext = it->pxNext;
	if (l->pxIndex == it)
		l->pxIndex = it->pxPrevious;
	it->pxContainer = 0;
	l->uxNumberOfItems--;
}

static void make_ready(TCB_t *t)
{
	list_insert_end(&pxReadyTasksLists[t->uxPriority], &t->xStateListItem);
	if (t->uxPriority > uxTopReadyPriority)
		uxTopReadyPriority = t->uxPriority;
}

#define portINITIAL_XPSR	0x01000000u
#define portINITIAL_EXC_RETURN	0xFFFFFFFDu
#define portSTART_ADDRESS_MASK	0xFFFFFFFEu

/*
 * The port's task return address: what a task's function returns to, which
 * the application may name with configTASK_RETURN_ADDRESS (the
 * RTOS_TASK_RETURN build names its own function, as port.c lets it).
 */
#ifdef RTOS_TASK_RETURN
void vApplicationTaskReturned(void) __attribute__((noreturn));
#define configTASK_RETURN_ADDRESS	vApplicationTaskReturned
#endif
static void prvTaskExitError(void) __attribute__((noreturn));
#ifdef configTASK_RETURN_ADDRESS
#define portTASK_RETURN_ADDRESS	configTASK_RETURN_ADDRESS
#else
#define portTASK_RETURN_ADDRESS	prvTaskExitError
#endif

/* A task function must not return; port.c calls it once more so that it is always built. */
static NOINLINE void prvTaskExitError(void)
{
	rtos_task_exit();
}

/*
 * The port's pxPortInitialiseStack() (port.c: its own file, so never inlined
 * into the caller): the first context switch pops this as if the task had
 * been interrupted right at its entry, the hardware frame with what port.S
 * saves below it. ARM_CM3 and ARM_CM4F mask the entry's Thumb bit; ARM_CM33
 * stores it as given and takes the stack's limit for PSPLIM.
 */
#if RTOS_V8M
NOINLINE StackType_t *pxPortInitialiseStack(StackType_t *pxTopOfStack, StackType_t *pxEndOfStack,
					    rtos_entry pxCode, void *pvParameters)
{
	pxTopOfStack--;
	*pxTopOfStack = portINITIAL_XPSR;			/* xPSR */
	pxTopOfStack--;
	*pxTopOfStack = (StackType_t)pxCode;			/* PC */
	pxTopOfStack--;
	*pxTopOfStack = (StackType_t)portTASK_RETURN_ADDRESS;	/* LR */
	pxTopOfStack -= 5;					/* R12, R3, R2 and R1 */
	*pxTopOfStack = (StackType_t)pvParameters;		/* R0 */
	pxTopOfStack -= 9;					/* R11..R4, EXC_RETURN */
	*pxTopOfStack = portINITIAL_EXC_RETURN;
	pxTopOfStack--;
	*pxTopOfStack = (StackType_t)pxEndOfStack;		/* PSPLIM */
	return pxTopOfStack;
}
#elif !defined(__ARM_ARCH_6M__)
NOINLINE StackType_t *pxPortInitialiseStack(StackType_t *pxTopOfStack, rtos_entry pxCode,
					    void *pvParameters)
{
	pxTopOfStack--;
	*pxTopOfStack = portINITIAL_XPSR;			/* xPSR */
	pxTopOfStack--;
	*pxTopOfStack = (StackType_t)pxCode & portSTART_ADDRESS_MASK;	/* PC */
	pxTopOfStack--;
	*pxTopOfStack = (StackType_t)portTASK_RETURN_ADDRESS;	/* LR */
	pxTopOfStack -= 5;					/* R12, R3, R2 and R1 */
	*pxTopOfStack = (StackType_t)pvParameters;		/* R0 */
#ifdef __ARM_FP
	pxTopOfStack--;						/* ARM_CM4F: EXC_RETURN */
	*pxTopOfStack = portINITIAL_EXC_RETURN;
#endif
	pxTopOfStack -= 8;					/* R11, R10, R9, R8, R7, R6, R5 and R4 */
	return pxTopOfStack;
}
#endif

void rtos_create(const char *name, rtos_entry fn, void *arg, unsigned int prio,
		 uint32_t *stack, uint32_t words)
{
	TCB_t *t = &tcbs[uxCurrentNumberOfTasks];
	uint32_t i, *top;

	if (!uxCurrentNumberOfTasks) {
		for (i = 0; i < configMAX_PRIORITIES; i++)
			list_init(&pxReadyTasksLists[i]);
		list_init(&xDelayedTaskList1);
		list_init(&xDelayedTaskList2);
		list_init(&xPendingReadyList);
		list_init(&xSuspendedTaskList);
		list_init(&xTasksWaitingTermination);
		list_init(&xNeverSignalled);
		list_init(&xSignalledSuspended);
		pxDelayedTaskList = &xDelayedTaskList1;
		pxOverflowDelayedTaskList = &xDelayedTaskList2;
	}
	for (i = 0; i < words; i++)
		stack[i] = STACK_FILL;
	for (i = 0; i < configMAX_TASK_NAME_LEN - 1 && name[i]; i++)
		t->pcTaskName[i] = name[i];
	t->pxStack = stack;
	t->uxPriority = t->uxBasePriority = prio;
	t->uxTCBNumber = uxCurrentNumberOfTasks;
	t->xStateListItem.pvOwner = t;
	t->xEventListItem.pvOwner = t;
	listSET_LIST_ITEM_INTEGRITY_CHECK_VALUES(&t->xStateListItem);
	listSET_LIST_ITEM_INTEGRITY_CHECK_VALUES(&t->xEventListItem);
	t->xEventListItem.xItemValue = configMAX_PRIORITIES - prio;
	/*
	 * prvInitialiseNewTask(): the top word, aligned down to 8 bytes; the port
	 * stacks below it, so the word there and any above stay fill.
	 */
	top = (uint32_t *)((uint32_t)(stack + words - 1) & ~7u);
#if configRECORD_STACK_HIGH_ADDRESS
	t->pxEndOfStack = top;
#endif
#if RTOS_V8M
	t->pxTopOfStack = pxPortInitialiseStack(top, t->pxStack, fn, arg);
#else
	t->pxTopOfStack = pxPortInitialiseStack(top, fn, arg);
#endif
	make_ready(t);
	/* prvAddNewTaskToReadyList(): before the start, the most urgent task created runs first. */
	if (!pxCurrentTCB || pxCurrentTCB->uxPriority <= prio)
		pxCurrentTCB = t;
	uxCurrentNumberOfTasks++;
	rtos_registry_add(t->pcTaskName, t, fn, stack, stack + words);
}

/* configCHECK_FOR_STACK_OVERFLOW 2: the saved sp, then the last 16 bytes of fill. */
static void check_stack(TCB_t *t)
{
	int i;

	if ((uint32_t *)t->pxTopOfStack <= t->pxStack)
		rtos_stack_overflow(t->pcTaskName);
	for (i = 0; i < 4; i++)
		if (t->pxStack[i] != STACK_FILL)
			rtos_stack_overflow(t->pcTaskName);
}

/* Called by port.S with the outgoing task's context saved: pick the next. */
void vTaskSwitchContext(void)
{
	List_t *l;

	check_stack(pxCurrentTCB);
	while (!pxReadyTasksLists[uxTopReadyPriority].uxNumberOfItems)
		uxTopReadyPriority--;
	l = &pxReadyTasksLists[uxTopReadyPriority];
	/* listGET_OWNER_OF_NEXT_ENTRY: round robin among equal priorities. */
	l->pxIndex = l->pxIndex->pxNext;
	if (l->pxIndex == (ListItem_t *)&l->xListEnd)
		l->pxIndex = l->pxIndex->pxNext;
	pxCurrentTCB = l->pxIndex->pvOwner;
}

void rtos_tick(void)
{
	List_t *l;

	rtos_ticks = ++xTickCount;
	rtos_tick_hook();	/* xTaskIncrementTick(): vApplicationTickHook() */
	if (!xTickCount) {
		l = pxDelayedTaskList;
		pxDelayedTaskList = pxOverflowDelayedTaskList;
		pxOverflowDelayedTaskList = l;
	}
	l = pxDelayedTaskList;
	while (l->uxNumberOfItems && l->xListEnd.pxNext->xItemValue <= xTickCount) {
		TCB_t *t = l->xListEnd.pxNext->pvOwner;

		list_remove(&t->xStateListItem);
		make_ready(t);
	}
	rtos_pend_switch();	/* time slicing */
}

/*
 * prvAddCurrentTaskToDelayedList(): portMAX_DELAY blocks in the suspended
 * list, any other timeout sorts the state item by wake tick.
 */
static void add_current_to_delayed(uint32_t ticks)
{
	TCB_t *t = pxCurrentTCB;

	list_remove(&t->xStateListItem);
	if (ticks == portMAX_DELAY) {
		list_insert_end(&xSuspendedTaskList, &t->xStateListItem);
		return;
	}
	t->xStateListItem.xItemValue = xTickCount + ticks;
	list_insert_sorted(t->xStateListItem.xItemValue < xTickCount ? pxOverflowDelayedTaskList
								      : pxDelayedTaskList,
			   &t->xStateListItem);
}

void rtos_delay(uint32_t ticks)
{
	irq_off();
	add_current_to_delayed(ticks);
	irq_on();
	rtos_pend_switch();
}

void rtos_yield(void)
{
	rtos_pend_switch();
}

void rtos_block_forever(void)
{
	TCB_t *t;

	irq_off();
	t = pxCurrentTCB;
	add_current_to_delayed(portMAX_DELAY);
	list_insert_sorted(&xNeverSignalled, &t->xEventListItem);
	irq_on();
	rtos_pend_switch();
}

/* ulTaskNotifyTake(pdTRUE, portMAX_DELAY): no event list, only ucNotifyState says why. */
NOINLINE uint32_t ulTaskGenericNotifyTake(uint32_t index, uint32_t clear, uint32_t ticks)
{
	TCB_t *t;
	uint32_t v;

	irq_off();
	t = pxCurrentTCB;
	if (!t->ulNotifiedValue[index]) {
		t->ucNotifyState[index] = taskWAITING_NOTIFICATION;
		add_current_to_delayed(ticks);
		irq_on();
		rtos_pend_switch();
		irq_off();
	}
	v = t->ulNotifiedValue[index];
	if (clear)
		t->ulNotifiedValue[index] = 0;
	t->ucNotifyState[index] = 0;
	irq_on();
	return v;
}

void rtos_notify_take(void)
{
	ulTaskGenericNotifyTake(0, 1, portMAX_DELAY);
}

/* Block on xSignalledSuspended with a timeout: the state item in a delayed list. */
void rtos_wait_signal(uint32_t ticks)
{
	TCB_t *t;

	irq_off();
	t = pxCurrentTCB;
	list_insert_sorted(&xSignalledSuspended, &t->xEventListItem);
	add_current_to_delayed(ticks);
	irq_on();
	rtos_pend_switch();
}

/*
 * vTaskSuspendAll(), then xTaskRemoveFromEventList() on the first waiter: with
 * the scheduler suspended the ready lists are off limits, so the waiter's
 * event item goes to xPendingReadyList and its state item stays in the
 * delayed list until xTaskResumeAll(), which the crash never reaches.
 */
void rtos_signal_suspended(void)
{
	ListItem_t *it;

	irq_off();
	uxSchedulerSuspended++;
	if (xSignalledSuspended.uxNumberOfItems) {
		it = xSignalledSuspended.xListEnd.pxNext;
		list_remove(it);
		list_insert_end(&xPendingReadyList, it);
	}
	irq_on();
}

/* vTaskDelete(NULL): the idle task frees the TCB and stack later; until then it is eDeleted. */
void rtos_delete_self(void)
{
	TCB_t *t;

	irq_off();
	t = pxCurrentTCB;
	list_remove(&t->xStateListItem);
	if (t->xEventListItem.pxContainer)
		list_remove(&t->xEventListItem);
	list_insert_end(&xTasksWaitingTermination, &t->xStateListItem);
	uxDeletedTasksWaitingCleanUp++;
	irq_on();
	rtos_pend_switch();
	for (;;)
		;
}

void board_start_tick(void);
void prvPortStartFirstTask(void);

/* vTaskStartScheduler(), then the port's xPortStartScheduler(): neither returns. */
void rtos_start(void)
{
	irq_off();
	xSchedulerRunning = 1;
	board_start_tick();
	PORT_START_FIRST_TASK();
	prvTaskExitError();	/* the first task never returns here */
}

#if defined(__ARM_ARCH_6M__)
/*
 * ARM_CM0 (V11.1 on): its pxPortInitialiseStack() stores EXC_RETURN below
 * r4-r11, where its PendSV saves it. After the rest, so that no line of the
 * other builds moves.
 */
NOINLINE StackType_t *pxPortInitialiseStack(StackType_t *pxTopOfStack, rtos_entry pxCode,
					    void *pvParameters)
{
	pxTopOfStack--;
	*pxTopOfStack = portINITIAL_XPSR;			/* xPSR */
	pxTopOfStack--;
	*pxTopOfStack = (StackType_t)pxCode;			/* PC */
	pxTopOfStack--;
	*pxTopOfStack = (StackType_t)portTASK_RETURN_ADDRESS;	/* LR */
	pxTopOfStack -= 5;					/* R12, R3, R2 and R1 */
	*pxTopOfStack = (StackType_t)pvParameters;		/* R0 */
	pxTopOfStack -= 9;					/* R11..R4, EXC_RETURN */
	*pxTopOfStack = portINITIAL_EXC_RETURN;
	return pxTopOfStack;
}
#endif

#if defined(__ARM_ARCH_6M__) || RTOS_V8M
/*
 * The vPortSVCHandler_C() of ARM_CM0 and of portable/ARMv8M: the svc that
 * vStartFirstTask() makes (port.S) starts the first task.
 */
#define portOFFSET_TO_PC	6
#define portSVC_START_SCHEDULER	100

void vRestoreContextOfFirstTask(void);
void vPortSVCHandler_C(uint32_t *pulCallerStackAddress);

void vPortSVCHandler_C(uint32_t *pulCallerStackAddress)
{
	uint32_t ulPC = pulCallerStackAddress[portOFFSET_TO_PC];
	uint8_t ucSVCNumber = ((uint8_t *)ulPC)[-2];

	if (ucSVCNumber == portSVC_START_SCHEDULER)
		vRestoreContextOfFirstTask();
}

/*
 * The "isrspin" case (crash_case 9; run-rtos.sh links these two wrappers
 * into the M0 and M33 builds only, so no other build changes): the crasher's
 * task function is a loop that calls nothing, and the tick hook faults over
 * it, so the interrupted thread's whole chain is that one frame, its return
 * address the task exit.
 */
#define CASE_ISR_SPIN	9
#define SPIN_AFTER_TICKS	12

extern volatile uint32_t crash_case;
extern volatile uint32_t bad_address;
static volatile uint32_t spins;

void __real_rtos_create(const char *name, rtos_entry fn, void *arg, unsigned int prio,
			uint32_t *stack, uint32_t words);
void __wrap_rtos_create(const char *name, rtos_entry fn, void *arg, unsigned int prio,
			uint32_t *stack, uint32_t words);
void __real_rtos_tick_hook(void);
void __wrap_rtos_tick_hook(void);

static void spin_task(void *arg)
{
	(void)arg;
	for (;;)
		spins++;
}

void __wrap_rtos_create(const char *name, rtos_entry fn, void *arg, unsigned int prio,
			uint32_t *stack, uint32_t words)
{
	static const char crasher[] = "crasher";
	unsigned int i;

	for (i = 0; i < sizeof(crasher) && name[i] == crasher[i]; i++)
		;
	if (crash_case == CASE_ISR_SPIN && i == sizeof(crasher))
		fn = spin_task;
	__real_rtos_create(name, fn, arg, prio, stack, words);
}

void __wrap_rtos_tick_hook(void)
{
	if (crash_case == CASE_ISR_SPIN && rtos_ticks >= SPIN_AFTER_TICKS)
		*(volatile uint32_t *)bad_address = rtos_ticks;
	__real_rtos_tick_hook();
}
#endif
