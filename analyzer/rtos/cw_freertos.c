// SPDX-License-Identifier: GPL-2.0
/*
 * cw_freertos.c - FreeRTOS for the RTOS model: its task lists, its TCB
 * layout, and the saved context each GCC port's context switch leaves.
 */
#include <stdio.h>
#include <string.h>

#include "decode/cw_exc.h"
#include "rtos/cw_rtos_model.h"
#include "decode/cw_thumb.h"

#define FREERTOS_FILL	0xA5	/* tskSTACK_FILL_BYTE */
#define WAITING_NOTIFICATION	1	/* taskWAITING_NOTIFICATION in ucNotifyState */
#define FP_CALLEE	0x40u	/* s16-s31, saved by the context switch */
#define INITIAL_XPSR	CW_XPSR_T	/* portINITIAL_XPSR: Thumb, thread mode */

/*
 * What FreeRTOS's GCC ports store at pxTopOfStack, from the lowest address:
 *   ARM_CM33 with TrustZone: xSecureContext, PSPLIM, EXC_RETURN, r4-r11
 *   ARM_CM33 (and CM23/CM35P/CM52/CM55/CM85 ports) without: PSPLIM, EXC_RETURN, r4-r11
 *   ARM_CM4F (and CM7):       r4-r11, EXC_RETURN
 *   ARM_CM0 since V11.1:      EXC_RETURN, r4-r11
 *   ARM_CM3 (and CM0 before V11.1, CM4 without FPU): r4-r11
 * then s16-s31 when EXC_RETURN bit 4 is 0, then the hardware frame. Which one
 * a build used is not recorded anywhere, so each candidate is tried and kept
 * only if its EXC_RETURN, PSPLIM and hardware frame all make sense.
 */
struct frt_port {
	const char *name;
	int exc_at;		/* word index of EXC_RETURN, -1: none (CW_EXC_RETURN_THREAD_PSP) */
	int psplim_at;		/* word index of PSPLIM, -1: none */
	unsigned int r4_at;	/* word index of r4 */
	unsigned int words;	/* words the switch stored below s16-s31 / the frame */
};

static const struct frt_port frt_ports[] = {
	{ "ARM_CM33_TZ", 2, 1, 3, 11 },
	{ "ARM_CM33", 1, 0, 2, 10 },
	{ "ARM_CM4F", 8, -1, 0, 9 },
	{ "ARM_CM0", 0, -1, 1, 9 },
	{ "ARM_CM3", -1, -1, 0, 8 },
};

static int frt_try_port(struct cw_rtos_walk *w, struct cw_thread *th, uint32_t top,
			const struct frt_port *p)
{
	uint32_t exc = CW_EXC_RETURN_THREAD_PSP, psplim = 0, base;

	if (p->exc_at >= 0 && (cw_rtos_rd32(w, top + 4 * (uint32_t)p->exc_at, &exc) ||
			       !cw_exc_return_to_thread_psp(exc)))
		return -1;
	/*
	 * A task's first context holds pxStack as its PSPLIM, a stack the
	 * application gave (xTaskCreateStatic) may be 4 mod 8, and PSPLIM
	 * ignores bits [2:0]: once the task ran, its switch saved what mrs
	 * reads back, pxStack rounded down to 8.
	 */
	if (p->psplim_at >= 0) {
		if (cw_rtos_rd32(w, top + 4 * (uint32_t)p->psplim_at, &psplim) || psplim > top ||
		    (psplim & 3) || (th->have_stack && psplim < (th->stack_lo & ~7u)))
			return -1;
	}
	base = top + 4 * p->words + (cw_exc_return_fp_frame(exc) ? FP_CALLEE : 0);
	th->problem[0] = 0;
	if (cw_rtos_read_callee(w, th, top + 4 * p->r4_at) || cw_rtos_pop_frame(w, th, base, exc) ||
	    !cw_image_is_code(w->t->img, th->regs.r[CW_PC])) {
		th->have_regs = 0;
		th->regs.valid = 0;
		return -1;
	}
	th->layout = p->name;
	th->have_psplim = p->psplim_at >= 0;
	th->psplim = psplim;
	return 0;
}

static void frt_context(struct cw_rtos_walk *w, struct cw_thread *th, uint32_t top, int tz)
{
	unsigned int i;

	for (i = tz ? 0 : 1; i < ARRAY_SIZE(frt_ports); i++)
		if (!frt_try_port(w, th, top, &frt_ports[i]))
			return;
	cw_thread_problem(th, "no FreeRTOS port's saved context fits at pxTopOfStack 0x%08x", top);
}

struct frt_layout {
	uint32_t top, state_item, event_item, prio, stack, name, name_len, end_of_stack;
	uint32_t notify_state, notify_len;
	uint32_t item_next, item_owner, item_container;
	uint32_t list_count, list_end, list_size;
	uint32_t pending_ready;	/* &xPendingReadyList, 0 without it */
	int have_end_of_stack, have_notify_state;
};

/*
 * The defaults are those of FreeRTOS V10/V11 for a 32-bit port without MPU,
 * list integrity check bytes or configRECORD_STACK_HIGH_ADDRESS.
 */
static int frt_layout(const struct cw_image *img, struct frt_layout *l)
{
	const struct cw_rtos_field f[] = {
		{ "tskTaskControlBlock", "pxTopOfStack", &l->top, 0, NULL, 0, 0, NULL },
		{ "tskTaskControlBlock", "xStateListItem", &l->state_item, 4, NULL, 0, 0, NULL },
		{ "tskTaskControlBlock", "xEventListItem", &l->event_item, 24, NULL, 0, 0, NULL },
		{ "tskTaskControlBlock", "uxPriority", &l->prio, 44, NULL, 0, 0, NULL },
		{ "tskTaskControlBlock", "pxStack", &l->stack, 48, NULL, 0, 0, NULL },
		{ "tskTaskControlBlock", "pcTaskName", &l->name, 52, &l->name_len, 16, 0, NULL },
		{ "tskTaskControlBlock", "pxEndOfStack", &l->end_of_stack, 0, NULL, 0, 1,
		  &l->have_end_of_stack },
		{ "tskTaskControlBlock", "ucNotifyState", &l->notify_state, 0, &l->notify_len, 0,
		  1, &l->have_notify_state },
		{ "xLIST_ITEM", "pxNext", &l->item_next, 4, NULL, 0, 0, NULL },
		{ "xLIST_ITEM", "pvOwner", &l->item_owner, 12, NULL, 0, 0, NULL },
		{ "xLIST_ITEM", "pxContainer|pvContainer", &l->item_container, 16, NULL, 0, 0, NULL },
		{ "xLIST", "uxNumberOfItems", &l->list_count, 0, NULL, 0, 0, NULL },
		{ "xLIST", "xListEnd", &l->list_end, 8, NULL, 0, 0, NULL },
	};
	int dwarf = cw_rtos_read_fields(img, f, ARRAY_SIZE(f));

	if (cw_image_struct_size(img, "xLIST", &l->list_size))
		l->list_size = 20;
	return dwarf;
}

/*
 * configUSE_LIST_DATA_INTEGRITY_CHECK_BYTES adds a check word at both ends of
 * every list and list item (list.h), moving every later field and the TCB's
 * fields after its two items. Without DWARF the first list's first word
 * tells: vListInitialise() stores pdINTEGRITY_CHECK_VALUE there.
 */
#define LIST_INTEGRITY_VALUE	0x5a5a5a5au	/* pdINTEGRITY_CHECK_VALUE, 32-bit ticks */
#define LIST_INTEGRITY_SHIFT	8u		/* two check words an item or list */

static void frt_integrity_defaults(struct cw_rtos_walk *w, struct frt_layout *l, uint32_t list)
{
	uint32_t v;

	if (cw_rtos_rd32(w, list, &v) || v != LIST_INTEGRITY_VALUE)
		return;
	l->item_next += 4;
	l->item_owner += 4;
	l->item_container += 4;
	l->list_count += 4;
	l->list_end += 4;
	l->list_size += LIST_INTEGRITY_SHIFT + 4;	/* and xListEnd's first check word */
	l->event_item += LIST_INTEGRITY_SHIFT;
	l->prio += 2 * LIST_INTEGRITY_SHIFT;
	l->stack += 2 * LIST_INTEGRITY_SHIFT;
	l->name += 2 * LIST_INTEGRITY_SHIFT;
}

/* Whether any of the task's notification slots says it waits for one (ulTaskNotifyTake...). */
static int frt_waits_notification(struct cw_rtos_walk *w, const struct frt_layout *l, uint32_t tcb)
{
	uint8_t st[8];
	uint32_t i, n = l->notify_len < sizeof(st) ? l->notify_len : sizeof(st);

	if (!l->have_notify_state || !n || cw_mem_read(w->t->mem, tcb + l->notify_state, st, n))
		return 0;
	for (i = 0; i < n; i++)
		if (st[i] == WAITING_NOTIFICATION)
			return 1;
	return 0;
}

/*
 * The state as eTaskGetState() computes it from the list the state item is
 * in (state) and the event item's list: pending-ready is ready whatever list
 * the state item is still in; a delayed or suspended task waiting on an event
 * or a notification is blocked (delayed: sleeping with no event).
 */
static enum cw_thread_state frt_state(struct cw_rtos_walk *w, const struct frt_layout *l,
				      uint32_t tcb, enum cw_thread_state state)
{
	uint32_t event_list = 0;

	if (cw_rtos_rd32(w, tcb + l->event_item + l->item_container, &event_list))
		event_list = 0;
	if (l->pending_ready && event_list == l->pending_ready)
		return CW_TS_READY;
	if ((state == CW_TS_SUSPENDED || state == CW_TS_DELAYED) &&
	    (event_list || frt_waits_notification(w, l, tcb)))
		return CW_TS_BLOCKED;
	return state;
}

/*
 * pxEndOfStack is &pxStack[depth - 1] aligned down to 8 bytes, so the stack
 * ends 4 or 8 bytes above it. An object symbol starting at pxStack (a static
 * stack buffer) gives its size exactly; else the word above pxEndOfStack is
 * the stack's when it still holds the fill pattern and starts no other
 * thread's stack (prvInitialiseNewTask filled it, and the port stacks below
 * pxEndOfStack).
 */
static void frt_stack_top(struct cw_rtos_walk *w, struct cw_thread *th, uint32_t end)
{
	uint32_t size, v, i;

	th->stack_hi = end + 4;
	if (!cw_image_object_at(w->t->img, th->stack_lo, &size) && size >= end + 4 - th->stack_lo &&
	    size <= end + 8 - th->stack_lo) {
		th->stack_hi = th->stack_lo + size;
	} else if (!(end & 7) && !cw_rtos_rd32(w, end + 4, &v) &&
		   v == FREERTOS_FILL * 0x01010101u) {
		th->stack_hi = end + 8;
		for (i = 0; i < w->out->nr; i++)
			if (w->out->threads[i].have_stack && w->out->threads[i].stack_lo == end + 4)
				th->stack_hi = end + 4;
	}
	th->stack_size = th->stack_hi - th->stack_lo;
}

static void frt_thread(struct cw_rtos_walk *w, const struct frt_layout *l, uint32_t tcb,
		       enum cw_thread_state state, const char *where)
{
	struct cw_thread *th = cw_rtos_add_thread(w, tcb, where);
	uint32_t v;

	if (!th)
		return;
	th->state = frt_state(w, l, tcb, state);
	cw_rtos_read_name(w, tcb + l->name, l->name_len, th->name, sizeof(th->name));
	if (!cw_rtos_rd32(w, tcb + l->prio, &v))
		th->priority = (int)v;
	if (!cw_rtos_rd32(w, tcb + l->stack, &th->stack_lo))
		th->have_stack = 1;
}

static int frt_known(const struct cw_rtos_walk *w, uint32_t tcb)
{
	unsigned int i;

	for (i = 0; i < w->out->nr; i++)
		if (w->out->threads[i].tcb == tcb)
			return 1;
	return 0;
}

/*
 * Walk one xLIST from its xListEnd, adding the owner of every item. An event
 * list (xPendingReadyList holds event items) adds only tasks whose state item
 * was in none of the lists walked before.
 */
static void frt_walk_list(struct cw_rtos_walk *w, const struct frt_layout *l, uint32_t list,
			  enum cw_thread_state state, const char *name, int event_list)
{
	uint32_t seen[CW_RTOS_MAX_LIST_ITEMS], count, end = list + l->list_end, item, owner, container;
	unsigned int n = 0, i;

	if (cw_rtos_rd32(w, list + l->list_count, &count)) {
		cw_rtos_warn(w, "%s at 0x%08x not in the dump", name, list);
		return;
	}
	if (cw_rtos_rd32(w, end + l->item_next, &item)) {
		cw_rtos_warn(w, "%s at 0x%08x: end marker not in the dump", name, list);
		return;
	}
	while (item != end) {
		for (i = 0; i < n; i++)
			if (seen[i] == item) {
				cw_rtos_warn(w, "%s at 0x%08x is cyclic at item 0x%08x", name, list, item);
				return;
			}
		if (n >= CW_RTOS_MAX_LIST_ITEMS) {
			cw_rtos_warn(w, "%s at 0x%08x: more than %d items", name, list, CW_RTOS_MAX_LIST_ITEMS);
			return;
		}
		seen[n++] = item;
		if (cw_rtos_rd32(w, item + l->item_owner, &owner) ||
		    cw_rtos_rd32(w, item + l->item_container, &container)) {
			cw_rtos_warn(w, "%s at 0x%08x: item 0x%08x not in the dump", name, list, item);
			return;
		}
		if (container != list)
			cw_rtos_warn(w, "%s at 0x%08x: item 0x%08x says it is in 0x%08x", name, list, item,
			     container);
		if (!event_list || !frt_known(w, owner))
			frt_thread(w, l, owner, state, name);
		if (cw_rtos_rd32(w, item + l->item_next, &item)) {
			cw_rtos_warn(w, "%s at 0x%08x: item 0x%08x not in the dump", name, list, seen[n - 1]);
			return;
		}
	}
	if (n != count)
		cw_rtos_warn(w, "%s at 0x%08x: %u item%s, its count says %u", name, list, n,
			     cw_plural(n), count);
}

static int frt_find(struct cw_rtos_walk *w)
{
	const struct cw_image *img = w->t->img;
	static const struct { const char *sym; enum cw_thread_state state; } lists[] = {
		{ "xDelayedTaskList1", CW_TS_DELAYED },
		{ "xDelayedTaskList2", CW_TS_DELAYED },
		{ "xSuspendedTaskList", CW_TS_SUSPENDED },
		{ "xTasksWaitingTermination", CW_TS_DEAD },	/* eDeleted: the idle task frees it */
		{ "xPendingReadyList", CW_TS_READY },	/* last: its items are event items */
	};
	uint32_t cur_sym, cur = 0, ready, ready_size, addr, nr_tasks, v;
	struct frt_layout l;
	struct cw_thread *th;
	char name[48];
	unsigned int i;

	if (cw_image_lookup(img, "pxCurrentTCB", &cur_sym) ||
	    cw_image_object(img, "pxReadyTasksLists", &ready, &ready_size))
		return -1;
	w->out->layout_dwarf = frt_layout(img, &l);
	if (!cw_image_has_dwarf(img))
		frt_integrity_defaults(w, &l, ready);
	if (cw_image_lookup(img, "xPendingReadyList", &l.pending_ready))
		l.pending_ready = 0;
	if (cw_rtos_rd32(w, cur_sym, &cur))
		cw_rtos_warn(w, "pxCurrentTCB at 0x%08x not in the dump", cur_sym);
	/* pxCurrentTCB is set from the first task's creation, the scheduler started or not. */
	if (!cw_image_lookup(img, "xSchedulerRunning", &addr) && !cw_rtos_rd32(w, addr, &v))
		w->out->not_started = !v;
	for (i = 0; i < ready_size / l.list_size && i < 256; i++) {
		snprintf(name, sizeof(name), "pxReadyTasksLists[%u]", i);
		frt_walk_list(w, &l, ready + i * l.list_size, CW_TS_READY, name, 0);
	}
	for (i = 0; i < ARRAY_SIZE(lists); i++)
		if (!cw_image_lookup(img, lists[i].sym, &addr))
			frt_walk_list(w, &l, addr, lists[i].state, lists[i].sym,
				      addr == l.pending_ready);
	if (!cw_image_lookup(img, "uxCurrentNumberOfTasks", &addr) && !cw_rtos_rd32(w, addr, &nr_tasks) &&
	    nr_tasks != w->out->nr)
		cw_rtos_warn(w, "uxCurrentNumberOfTasks says %u task%s, the lists hold %u", nr_tasks,
			     cw_plural(nr_tasks), w->out->nr);
	for (i = 0; i < w->out->nr; i++) {
		uint32_t top, end;

		th = &w->out->threads[i];
		th->current = th->tcb == cur;
		/* Once every thread is known: the top is checked against their stacks. */
		if (l.have_end_of_stack && th->have_stack &&
		    !cw_rtos_rd32(w, th->tcb + l.end_of_stack, &end) && end > th->stack_lo)
			frt_stack_top(w, th, end);
		if (cw_rtos_rd32(w, th->tcb + l.top, &top)) {
			cw_thread_problem(th, "TCB at 0x%08x not in the dump", th->tcb);
			continue;
		}
		/*
		 * The kernel's own check (configCHECK_FOR_STACK_OVERFLOW): the sp its
		 * switch saved at or below pxStack. The fill above cannot tell when the
		 * registers saved there still hold fill, as a task's never-used r8-r11
		 * do (pxPortInitialiseStack() leaves them unwritten).
		 */
		if (th->have_stack && top <= th->stack_lo)
			th->overflow |= CW_OVF_SP_OUTSIDE;
		frt_context(w, th, top, !cw_image_lookup(img, "xSecureContext", &addr));
	}
	return 0;
}

/*
 * Without ucNotifyState's offset (no DWARF), a task in xSuspendedTaskList or
 * a delayed list with no event is blocked on a notification when its frames are in the
 * kernel's notification wait (ulTaskNotifyTake, xTaskNotifyWait and their
 * indexed forms all end in these two).
 */
static void frt_settle(struct cw_rtos_walk *w, struct cw_thread *th)
{
	static const char *const waits[] = { "ulTaskGenericNotifyTake", "xTaskGenericNotifyWait" };
	unsigned int i, k;

	(void)w;
	if (th->state != CW_TS_SUSPENDED && th->state != CW_TS_DELAYED)
		return;
	for (i = 0; i < th->bt.nr; i++)
		for (k = 0; th->bt.frames[i].func && k < ARRAY_SIZE(waits); k++)
			if (!strcmp(th->bt.frames[i].func->name, waits[k]))
				th->state = CW_TS_BLOCKED;
}

/*
 * portTASK_RETURN_ADDRESS, which every Cortex-M port's pxPortInitialiseStack()
 * stores as the new task's stacked lr: configTASK_RETURN_ADDRESS when the
 * application sets one (under any name), else prvTaskExitError. It is the
 * code address stored two words below the stacked xPSR (portINITIAL_XPSR),
 * under the task's entry; the ports store both through the stack pointer
 * they are given.
 */
static const char *frt_find_task_exit(const struct cw_image *img, uint32_t *addr)
{
	struct cw_stored_word st[24];
	uint32_t fn, xpsr_at = 0;
	int n, i, have_xpsr = 0;

	if (cw_image_lookup(img, "pxPortInitialiseStack", &fn))
		return NULL;
	n = cw_thumb_arg_stores(cw_image_contents(img), img, fn, st, ARRAY_SIZE(st));
	for (i = 0; i < n; i++)
		if (st[i].val == INITIAL_XPSR) {
			xpsr_at = (uint32_t)st[i].off;
			have_xpsr = 1;
		}
	for (i = 0; have_xpsr && i < n; i++)
		if ((uint32_t)st[i].off == xpsr_at - 8 && (st[i].val & 1) &&
		    cw_image_is_code(img, st[i].val & ~1u)) {
			*addr = st[i].val & ~1u;
			return "pxPortInitialiseStack";
		}
	return NULL;
}

/*
 * Where each GCC port for Cortex-M starts the first task with an svc:
 * ARM_CM3, CM4F and CM7 (and the MPU ports before V11) in
 * prvPortStartFirstTask, ARM_CM0 (V11.1 on) and every ARMv8-M port (CM23,
 * CM33, CM35P, CM52, CM55, CM85, with or without TrustZone) in
 * vStartFirstTask, the V11 MPU ports CM3_MPU and CM4_MPU in
 * xPortStartScheduler itself.
 */
static const char *const frt_start_svc[] = {
	"prvPortStartFirstTask", "vStartFirstTask", "xPortStartScheduler", NULL
};

const struct cw_rtos_ops cw_freertos_ops = {
	.detect = "pxCurrentTCB", .fill = FREERTOS_FILL,
	.find = frt_find, .task_exit = "prvTaskExitError",
	.find_task_exit = frt_find_task_exit, .settle = frt_settle,
	.start_svc = frt_start_svc,
};
