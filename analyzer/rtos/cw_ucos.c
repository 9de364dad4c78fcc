// SPDX-License-Identifier: GPL-2.0
/*
 * cw_ucos.c - µC/OS-II and µC/OS-III for the RTOS model: their task lists,
 * the states their TCBs record, and the contexts the GNU ports of
 * ARM-Cortex-M (ARMv6-M, ARMv7-M, which ARMv8-M Mainline also runs) leave on
 * a task's stack. The two kernels share the ports' save order; one file.
 */
#include <stdio.h>
#include <string.h>

#include "decode/cw_exc.h"
#include "rtos/cw_rtos_model.h"

#define UC_FP_CALLEE	64	/* s16-s31 */
#define UC_MAX_NAME	47
#define UC_WORD		4	/* CPU_STK / OS_STK: stack sizes count these */

/* ---- the ports' saved context ---- */

/*
 * OS_CPU_PendSVHandler (os_cpu_a.S/.s of Ports/ARM-Cortex-M/ARMv{6,7}-M/GNU)
 * stores r4-r11 then EXC_RETURN below the hardware frame; µC/OS-III's
 * ARMv7-M port with the FPU first pushes s16-s31 when EXC_RETURN bit 4 is
 * 0, between them and the frame. µC/OS-II's ARMv7-M port with the FPU
 * stores s16-s31 below r4 in OSTaskSwHook (OS_CPU_FP_Reg_Push, every task,
 * whatever EXC_RETURN says) and pops them before the task runs again: a
 * switched-out task's saved sp is at s16, the running one's at r4.
 * OSTaskStkInit builds the same shape for a task that never ran.
 */
static int uc_try_context(struct cw_rtos_walk *w, struct cw_thread *th, uint32_t at,
			  int ucos3)
{
	uint32_t exc;

	if (cw_rtos_rd32(w, at + 32, &exc) || !cw_rtos_thread_return(w, exc))
		return -1;
	if (cw_rtos_read_context(w, th, at, at + 36 +
				 (ucos3 && cw_exc_return_fp_frame(exc) ? UC_FP_CALLEE : 0), exc))
		return -1;
	th->layout = cw_exc_return_fp_frame(exc) ? "OS_CPU_PendSVHandler FP" :
						   "OS_CPU_PendSVHandler";
	return 0;
}

static void uc_context(struct cw_rtos_walk *w, struct cw_thread *th, uint32_t sp, int ucos3,
		       int fp_below)
{
	uint32_t exc;

	/* µC/OS-II's FPU build: s16-s31 below, but not on the running task's saved sp. */
	if (fp_below && !th->current && !uc_try_context(w, th, sp + UC_FP_CALLEE, 0))
		return;
	if (!uc_try_context(w, th, sp, ucos3))
		return;
	if (fp_below && th->current && !uc_try_context(w, th, sp + UC_FP_CALLEE, 0))
		return;
	if (cw_rtos_rd32(w, sp + 32, &exc))
		cw_thread_problem(th, "saved context at 0x%08x not in the dump", sp);
	else if (!th->problem[0])
		cw_thread_problem(th, "no saved context fits at sp 0x%08x", sp);
	/*
	 * The running task's saved sp still says where its last switch put
	 * the frame, though its live frames have overwritten some of that
	 * context: a frame search must not take what is left there for live.
	 */
	if (th->current)
		th->saved_frame = sp + 36;
}

/* A NUL-terminated name the TCB points at. */
static void uc_name(struct cw_rtos_walk *w, uint32_t tcb, uint32_t off, int have,
		    struct cw_thread *th)
{
	uint32_t p;

	if (!have || cw_rtos_rd32(w, tcb + off, &p) || !p) {
		snprintf(th->name, sizeof(th->name), "TCB@0x%08x", tcb);
		return;
	}
	cw_rtos_read_name(w, p, UC_MAX_NAME, th->name, sizeof(th->name));
}

static int uc_rd8(const struct cw_rtos_walk *w, uint32_t addr, uint8_t *v)
{
	return cw_mem_read(w->t->mem, addr, v, 1);
}

/* The stack as the TCB records it: its lowest element and its size in elements. */
static void uc_stack(struct cw_rtos_walk *w, struct cw_thread *th, uint32_t base_off,
		     uint32_t size_off)
{
	uint32_t lo, n;

	if (cw_rtos_rd32(w, th->tcb + base_off, &lo) || cw_rtos_rd32(w, th->tcb + size_off, &n) ||
	    !lo || !n || n >= 0x04000000u || lo + n * UC_WORD < lo)
		return;
	th->have_stack = 1;
	th->stack_lo = lo;
	th->stack_size = n * UC_WORD;
	th->stack_hi = lo + th->stack_size;
}

/* ================================ µC/OS-III ================================ */

/* os.h: OS_TASK_STATE_*, OS_TASK_PEND_ON_*. */
#define OS3_STATE_DEL	255
static const char *const os3_state_names[] = {
	"OS_TASK_STATE_RDY", "OS_TASK_STATE_DLY", "OS_TASK_STATE_PEND",
	"OS_TASK_STATE_PEND_TIMEOUT", "OS_TASK_STATE_SUSPENDED", "OS_TASK_STATE_DLY_SUSPENDED",
	"OS_TASK_STATE_PEND_SUSPENDED", "OS_TASK_STATE_PEND_TIMEOUT_SUSPENDED",
};
static const char *const os3_pend_names[] = {
	"nothing", "event flag group", "task queue", "condition", "mutex", "queue", "semaphore",
	"task semaphore",
};

struct os3_layout {
	uint32_t stk_ptr, name, next, stk_base, stk_size, pend_obj, pend_on, state, prio;
	uint32_t dbg_next, dbg_prev, obj_name, rdy_size;
	int have_name, have_obj_name;
};

/*
 * Defaults: struct os_tcb of µC/OS-III 3.08 with Cfg/Template/os_cfg.h on a
 * 32-bit port, OS_CFG_DBG_EN as the ELF shows it (OSTaskDbgListPtr). The
 * debug links are the struct's last members but for TaskID (OS_CFG_TRACE_EN):
 * without DWARF they are found from OSIdleTaskTCB's size.
 */
static int os3_layout(const struct cw_image *img, int dbg, struct os3_layout *l)
{
	uint32_t tcb_size = 0, a, d = dbg ? 0 : 4, e = dbg ? 0 : 12;
	const struct cw_rtos_field f[] = {
		{ "os_tcb", "StkPtr", &l->stk_ptr, 0, NULL, 0, 0, NULL },
		{ "os_tcb", "NamePtr", &l->name, 12, NULL, 0, 1, &l->have_name },
		{ "os_tcb", "NextPtr", &l->next, 16 - d, NULL, 0, 0, NULL },
		{ "os_tcb", "StkBasePtr", &l->stk_base, 32 - d, NULL, 0, 0, NULL },
		{ "os_tcb", "PendObjPtr", &l->pend_obj, 52 - e, NULL, 0, 0, NULL },
		{ "os_tcb", "PendOn", &l->pend_on, 56 - e, NULL, 0, 0, NULL },
		{ "os_tcb", "TaskState", &l->state, 58 - e, NULL, 0, 0, NULL },
		{ "os_tcb", "Prio", &l->prio, 59 - e, NULL, 0, 0, NULL },
		{ "os_tcb", "StkSize", &l->stk_size, 68 - e, NULL, 0, 0, NULL },
		{ "os_tcb", "DbgNextPtr", &l->dbg_next, 0, NULL, 0, 1, NULL },
		{ "os_tcb", "DbgPrevPtr", &l->dbg_prev, 0, NULL, 0, 1, NULL },
		{ "os_pend_obj", "NamePtr", &l->obj_name, 4, NULL, 0, 1, &l->have_obj_name },
	};
	int dwarf;

	dwarf = cw_rtos_read_fields(img, f, ARRAY_SIZE(f));
	if (!dwarf || !cw_image_has_dwarf(img)) {
		l->have_name = l->have_obj_name = dbg;
		if (!cw_image_object(img, "OSIdleTaskTCB", &a, &tcb_size) && tcb_size >= 80) {
			l->dbg_prev = tcb_size - 12;
			l->dbg_next = tcb_size - 8;
		}
	}
	if (cw_image_struct_size(img, "os_rdy_list", &l->rdy_size))
		l->rdy_size = dbg ? 12 : 8;
	return dwarf;
}

/* Is tcb on OSRdyList[prio] (HeadPtr, then NextPtr)? -1: the list is broken. */
static int os3_on_ready_list(struct cw_rtos_walk *w, const struct os3_layout *l, uint32_t rdy,
			     uint32_t rdy_n, uint32_t tcb, unsigned int prio)
{
	uint32_t p;
	unsigned int n;

	if (prio >= rdy_n || cw_rtos_rd32(w, rdy + prio * l->rdy_size, &p))
		return -1;
	for (n = 0; p && n < CW_RTOS_MAX_LIST_ITEMS; n++) {
		if (p == tcb)
			return 1;
		if (cw_rtos_rd32(w, p + l->next, &p))
			return -1;
	}
	return p ? -1 : 0;
}

static void os3_state(struct cw_rtos_walk *w, const struct os3_layout *l, uint32_t rdy,
		      uint32_t rdy_n, struct cw_thread *th)
{
	uint8_t st, on;
	uint32_t obj;
	char name[UC_MAX_NAME + 1] = "";

	if (uc_rd8(w, th->tcb + l->state, &st))
		return;
	if (st == OS3_STATE_DEL) {
		snprintf(th->kernel_state, sizeof(th->kernel_state), "OS_TASK_STATE_DEL");
		th->state = CW_TS_DEAD;
		return;
	}
	if (st >= ARRAY_SIZE(os3_state_names)) {
		snprintf(th->kernel_state, sizeof(th->kernel_state), "%u", st);
		return;
	}
	snprintf(th->kernel_state, sizeof(th->kernel_state), "%s", os3_state_names[st] + 14);
	if (st & 4)
		th->state = CW_TS_SUSPENDED;
	else if (st & 2)
		th->state = CW_TS_BLOCKED;
	else if (st & 1)
		th->state = CW_TS_DELAYED;
	else
		th->state = CW_TS_READY;
	/* The running task stays on its ready list in µC/OS-III, as every ready one. */
	if (!st && rdy_n && os3_on_ready_list(w, l, rdy, rdy_n, th->tcb, (unsigned)th->priority) != 1)
		cw_rtos_warn(w, "task \"%s\" is ready but not in OSRdyList[%d]", th->name,
			     th->priority);
	if (!(st & 2) || uc_rd8(w, th->tcb + l->pend_on, &on))
		return;
	if (cw_rtos_rd32(w, th->tcb + l->pend_obj, &obj) || !obj) {
		if (on < ARRAY_SIZE(os3_pend_names))
			snprintf(th->waits_on, sizeof(th->waits_on), "%s", os3_pend_names[on]);
		return;
	}
	if (l->have_obj_name) {
		uint32_t p;

		if (!cw_rtos_rd32(w, obj + l->obj_name, &p) && p)
			cw_rtos_read_name(w, p, UC_MAX_NAME, name, sizeof(name));
	}
	snprintf(th->waits_on, sizeof(th->waits_on), "%s \"%s\" at 0x%08x",
		 on < ARRAY_SIZE(os3_pend_names) ? os3_pend_names[on] : "object", name, obj);
}

static struct cw_thread *os3_add(struct cw_rtos_walk *w, const struct os3_layout *l,
				 uint32_t tcb, uint32_t cur, const char *where, uint32_t *sp)
{
	struct cw_thread *th = cw_rtos_add_thread(w, tcb, where);
	uint8_t prio;

	if (!th)
		return NULL;
	th->current = tcb == cur;
	uc_name(w, tcb, l->name, l->have_name, th);
	if (!uc_rd8(w, tcb + l->prio, &prio))
		th->priority = prio;
	uc_stack(w, th, l->stk_base, l->stk_size);
	if (cw_rtos_rd32(w, tcb + l->stk_ptr, sp)) {
		cw_thread_problem(th, "TCB at 0x%08x not in the dump", tcb);
		*sp = 0;
	}
	return th;
}

/*
 * Without OS_CFG_DBG_EN the kernel keeps no list of every task: the ready
 * lists, the tick list and the kernel's own TCBs are what there is.
 */
static void os3_without_dbg(struct cw_rtos_walk *w, const struct os3_layout *l, uint32_t rdy,
			    uint32_t rdy_n, uint32_t cur, uint32_t *at)
{
	static const char *const own[] = { "OSIdleTaskTCB", "OSStatTaskTCB", "OSTmrTaskTCB" };
	const struct cw_image *img = w->t->img;
	uint32_t p, a, tick_next = l->next + 8;
	unsigned int i, n;

	cw_image_struct_member(img, "os_tcb", "TickNextPtr", &tick_next, NULL);
	if (cur)
		os3_add(w, l, cur, cur, "OSTCBCurPtr", &at[w->out->nr]);
	for (i = 0; i < rdy_n; i++) {
		if (cw_rtos_rd32(w, rdy + i * l->rdy_size, &p))
			continue;
		for (n = 0; p && n < CW_RTOS_MAX_LIST_ITEMS && w->out->nr < CW_MAX_THREADS; n++) {
			uint32_t next;
			unsigned int k;

			for (k = 0; k < w->out->nr && w->out->threads[k].tcb != p; k++)
				;
			if (k == w->out->nr)
				os3_add(w, l, p, cur, "OSRdyList", &at[w->out->nr]);
			if (cw_rtos_rd32(w, p + l->next, &next))
				break;
			p = next;
		}
	}
	if (!cw_image_lookup(img, "OSTickList", &a) && !cw_rtos_rd32(w, a, &p))
		for (n = 0; p && n < CW_RTOS_MAX_LIST_ITEMS && w->out->nr < CW_MAX_THREADS; n++) {
			unsigned int k;

			for (k = 0; k < w->out->nr && w->out->threads[k].tcb != p; k++)
				;
			if (k == w->out->nr)
				os3_add(w, l, p, cur, "OSTickList", &at[w->out->nr]);
			if (cw_rtos_rd32(w, p + tick_next, &p))
				break;
		}
	for (i = 0; i < ARRAY_SIZE(own); i++) {
		unsigned int k;

		if (cw_image_lookup(img, own[i], &a))
			continue;
		for (k = 0; k < w->out->nr && w->out->threads[k].tcb != a; k++)
			;
		if (k == w->out->nr)
			os3_add(w, l, a, cur, own[i], &at[w->out->nr]);
	}
	cw_rtos_warn(w, "OS_CFG_DBG_EN is off: tasks pending without a timeout or suspended are "
		     "on no list crashwalk reads");
}

/*
 * With OS_CFG_DBG_EN every task is on OSTaskDbgListPtr's list (DbgNextPtr,
 * newest first) from OSTaskCreate until OSTaskDel; the kernel's own are
 * "uC/OS-III Idle Task", "uC/OS-III Stat Task" and "uC/OS-III Timer Task".
 * Each node is checked to link back: a break ends the walk with a warning.
 */
static int os3_find(struct cw_rtos_walk *w)
{
	const struct cw_image *img = w->t->img;
	uint32_t cur_sym, cur = 0, head_sym, p, back, prev, rdy = 0, rdy_size = 0, rdy_n = 0;
	uint32_t at[CW_MAX_THREADS] = { 0 };
	struct os3_layout l;
	unsigned int i;
	int dbg = !cw_image_lookup(img, "OSTaskDbgListPtr", &head_sym);

	if (cw_image_lookup(img, "OSTCBCurPtr", &cur_sym))
		return -1;
	w->out->layout_dwarf = os3_layout(img, dbg, &l);
	if (!cw_image_object(img, "OSRdyList", &rdy, &rdy_size) && rdy_size)
		rdy_n = rdy_size / l.rdy_size;
	if (cw_rtos_rd32(w, cur_sym, &cur))
		cw_rtos_warn(w, "OSTCBCurPtr at 0x%08x not in the dump", cur_sym);
	w->out->not_started = !cur;
	if (!dbg || !l.dbg_next) {
		os3_without_dbg(w, &l, rdy, rdy_n, cur, at);
	} else if (cw_rtos_rd32(w, head_sym, &p)) {
		cw_rtos_warn(w, "OSTaskDbgListPtr at 0x%08x not in the dump", head_sym);
	} else {
		for (back = 0; p; back = p, p = prev) {
			if ((p & 3) || cw_rtos_rd32(w, p + l.dbg_prev, &prev) || prev != back) {
				cw_rtos_warn(w, "task list broken after 0x%08x: 0x%08x does not link "
					     "back to it", back, p);
				break;
			}
			if (w->out->nr >= CW_MAX_THREADS) {
				cw_rtos_warn(w, "task list longer than %d at 0x%08x", CW_MAX_THREADS,
					     p);
				break;
			}
			if (!os3_add(w, &l, p, cur, "OSTaskDbgListPtr", &at[w->out->nr]))
				break;
			if (cw_rtos_rd32(w, p + l.dbg_next, &prev))
				break;
		}
	}
	for (i = 0; i < w->out->nr; i++)
		os3_state(w, &l, rdy, rdy_n, &w->out->threads[i]);
	if (cur) {
		for (i = 0; i < w->out->nr && w->out->threads[i].tcb != cur; i++)
			;
		if (i == w->out->nr)
			cw_rtos_warn(w, "the running task 0x%08x is not in the task list", cur);
	}
	/* The running task's StkPtr is where its last switch left it: stale, read as such. */
	for (i = 0; i < w->out->nr; i++)
		if (at[i])
			uc_context(w, &w->out->threads[i], at[i], 1, 0);
	return 0;
}

/* ================================ µC/OS-II ================================= */

/* ucos_ii.h: OS_STAT_*, OS_EVENT_TYPE_*. */
#define OS2_STAT_SUSPEND	0x08
#define OS2_STAT_PEND_ANY	0x37	/* SEM | MBOX | Q | MUTEX | FLAG */
#define OS2_STAT_MULTI		0x80
static const char *const os2_event_names[] = {
	"unused event", "mailbox", "queue", "semaphore", "mutex", "event flag group",
};

struct os2_layout {
	uint32_t stk_ptr, stk_bottom, stk_size, next, prev, event, dly, stat, prio, name;
	uint32_t ev_name;
	int have_stack, have_name, have_event, have_ev_name;
};

/*
 * Defaults: OS_TCB of µC/OS-II 2.93 with Cfg/Template/os_cfg.h on a 32-bit
 * port (OS_TASK_CREATE_EXT_EN, OS_EVENT_MULTI_EN, OS_TASK_PROFILE_EN,
 * OS_TASK_NAME_EN, OS_LOWEST_PRIO 63).
 */
static int os2_layout(const struct cw_image *img, struct os2_layout *l)
{
	const struct cw_rtos_field f[] = {
		{ "os_tcb", "OSTCBStkPtr", &l->stk_ptr, 0, NULL, 0, 0, NULL },
		{ "os_tcb", "OSTCBStkBottom", &l->stk_bottom, 8, NULL, 0, 1, &l->have_stack },
		{ "os_tcb", "OSTCBStkSize", &l->stk_size, 12, NULL, 0, 1, NULL },
		{ "os_tcb", "OSTCBNext", &l->next, 20, NULL, 0, 0, NULL },
		{ "os_tcb", "OSTCBPrev", &l->prev, 24, NULL, 0, 0, NULL },
		{ "os_tcb", "OSTCBEventPtr", &l->event, 28, NULL, 0, 1, &l->have_event },
		{ "os_tcb", "OSTCBDly", &l->dly, 52, NULL, 0, 0, NULL },
		{ "os_tcb", "OSTCBStat", &l->stat, 56, NULL, 0, 0, NULL },
		{ "os_tcb", "OSTCBPrio", &l->prio, 58, NULL, 0, 0, NULL },
		{ "os_tcb", "OSTCBTaskName", &l->name, 84, NULL, 0, 1, &l->have_name },
		{ "os_event", "OSEventName", &l->ev_name, 20, NULL, 0, 1, &l->have_ev_name },
	};

	int dwarf = cw_rtos_read_fields(img, f, ARRAY_SIZE(f));

	/* The template's options: the extended TCB, names, events. */
	if (!cw_image_has_dwarf(img))
		l->have_stack = l->have_name = l->have_event = l->have_ev_name = 1;
	return dwarf;
}

static void os2_state(struct cw_rtos_walk *w, const struct os2_layout *l, uint32_t rdy_tbl,
		      struct cw_thread *th)
{
	uint8_t stat, type, bits;
	uint32_t dly, ev, p;
	char name[UC_MAX_NAME + 1] = "";

	if (uc_rd8(w, th->tcb + l->stat, &stat) || cw_rtos_rd32(w, th->tcb + l->dly, &dly))
		return;
	snprintf(th->kernel_state, sizeof(th->kernel_state), "OSTCBStat 0x%02x", stat);
	if (stat & OS2_STAT_SUSPEND) {
		th->state = CW_TS_SUSPENDED;
	} else if (stat & (OS2_STAT_PEND_ANY | OS2_STAT_MULTI)) {
		th->state = CW_TS_BLOCKED;
	} else if (dly) {
		th->state = CW_TS_DELAYED;
	} else {
		th->state = CW_TS_READY;
		/* OSRdyTbl[prio >> 3] bit (prio & 7), the running task's too. */
		if (rdy_tbl && th->priority < 64 &&
		    (uc_rd8(w, rdy_tbl + (th->priority >> 3), &bits) ||
		     !(bits & (1u << (th->priority & 7)))))
			cw_rtos_warn(w, "task \"%s\" is ready but not in OSRdyTbl (priority %d)",
				     th->name, th->priority);
	}
	if (!(stat & OS2_STAT_PEND_ANY) || !l->have_event ||
	    cw_rtos_rd32(w, th->tcb + l->event, &ev) || !ev || uc_rd8(w, ev, &type))
		return;
	if (l->have_ev_name && !cw_rtos_rd32(w, ev + l->ev_name, &p) && p)
		cw_rtos_read_name(w, p, UC_MAX_NAME, name, sizeof(name));
	snprintf(th->waits_on, sizeof(th->waits_on), "%s \"%s\" at 0x%08x",
		 type < ARRAY_SIZE(os2_event_names) ? os2_event_names[type] : "event", name, ev);
}

/*
 * Every task is on OSTCBList (OSTCBNext, newest first, the idle task "uC/OS-II
 * Idle" last; OSTCBPrev links back) from OSTaskCreate[Ext] until OSTaskDel,
 * and in OSTCBPrioTbl[prio]; "uC/OS-II Stat" and "uC/OS-II Tmr" are the
 * kernel's others. A node that does not link back, or that OSTCBPrioTbl does
 * not name, ends the walk with a warning: no task is made up.
 */
static int os2_find(struct cw_rtos_walk *w)
{
	const struct cw_image *img = w->t->img;
	uint32_t cur_sym, cur = 0, list_sym, p, back, prev, tbl = 0, tbl_size = 0, rdy_tbl = 0;
	uint32_t at[CW_MAX_THREADS] = { 0 }, slot, a;
	struct os2_layout l;
	struct cw_thread *th;
	unsigned int i;
	uint8_t prio;
	int fp_below = !cw_image_lookup(img, "OS_CPU_FP_Reg_Push", &a);

	if (cw_image_lookup(img, "OSTCBCur", &cur_sym) || cw_image_lookup(img, "OSTCBList", &list_sym))
		return -1;
	w->out->layout_dwarf = os2_layout(img, &l);
	if (cw_image_object(img, "OSTCBPrioTbl", &tbl, &tbl_size))
		tbl = tbl_size = 0;
	if (cw_image_lookup(img, "OSRdyTbl", &rdy_tbl))
		rdy_tbl = 0;
	if (cw_rtos_rd32(w, cur_sym, &cur))
		cw_rtos_warn(w, "OSTCBCur at 0x%08x not in the dump", cur_sym);
	w->out->not_started = !cur;
	if (cw_rtos_rd32(w, list_sym, &p)) {
		cw_rtos_warn(w, "OSTCBList at 0x%08x not in the dump", list_sym);
		p = 0;
	}
	for (back = 0; p; back = p, p = prev) {
		if ((p & 3) || cw_rtos_rd32(w, p + l.prev, &prev) || prev != back) {
			cw_rtos_warn(w, "task list broken after 0x%08x: 0x%08x does not link back to "
				     "it", back, p);
			break;
		}
		if (uc_rd8(w, p + l.prio, &prio) ||
		    (tbl_size && (prio * 4u >= tbl_size || cw_rtos_rd32(w, tbl + prio * 4u, &slot) ||
				  slot != p))) {
			cw_rtos_warn(w, "task list broken after 0x%08x: OSTCBPrioTbl does not name "
				     "0x%08x", back, p);
			break;
		}
		if (w->out->nr >= CW_MAX_THREADS) {
			cw_rtos_warn(w, "task list longer than %d at 0x%08x", CW_MAX_THREADS, p);
			break;
		}
		th = cw_rtos_add_thread(w, p, "OSTCBList");
		if (!th)
			break;
		th->current = p == cur;
		th->priority = prio;
		uc_name(w, p, l.name, l.have_name, th);
		if (l.have_stack)
			uc_stack(w, th, l.stk_bottom, l.stk_size);
		if (cw_rtos_rd32(w, p + l.stk_ptr, &at[w->out->nr - 1]))
			cw_thread_problem(th, "TCB at 0x%08x not in the dump", p);
		os2_state(w, &l, rdy_tbl, th);
		if (cw_rtos_rd32(w, p + l.next, &prev))
			break;
	}
	if (cur) {
		for (i = 0; i < w->out->nr && w->out->threads[i].tcb != cur; i++)
			;
		if (i == w->out->nr)
			cw_rtos_warn(w, "the running task 0x%08x is not in OSTCBList", cur);
	}
	for (i = 0; i < w->out->nr; i++)
		if (at[i])
			uc_context(w, &w->out->threads[i], at[i], 0, fp_below);
	return 0;
}

/*
 * A task's stack is cleared at creation (OS_TASK_OPT_STK_CLR) and the
 * kernels' OSTaskStkChk count the zero words from its low end.
 */
const struct cw_rtos_ops cw_ucos2_ops = {
	.detect = "OSTCBCur", .fill = 0, .whole_words = 1,
	.find = os2_find, .task_exit = "OS_TaskReturn",
	/* The ARMv6/7-M ports' OS_CPU_ExceptStk[]: OSStartHighRdy moves the MSP to its top. */
	.isr_stack_lo = "OS_CPU_ExceptStk",
};

const struct cw_rtos_ops cw_ucos3_ops = {
	.detect = "OSTCBCurPtr", .fill = 0, .whole_words = 1,
	.find = os3_find, .task_exit = "OS_TaskReturn",
	/* os_cfg_app.c's OSCfg_ISRStk[]: the ports' OSStartHighRdy moves the MSP to its top. */
	.isr_stack_lo = "OSCfg_ISRStk",
};
