// SPDX-License-Identifier: GPL-2.0
/*
 * cw_rtthread.c - RT-Thread (and its nano edition) for the RTOS model: the
 * thread object container, the thread lists that give each state, and the
 * contexts its cortex-m0/m3/m4/m7/m33 ports leave on a thread's stack.
 */
#include <stdio.h>
#include <string.h>

#include "decode/cw_exc.h"
#include "rtos/cw_rtos_model.h"

#define RTT_FILL	'#'	/* _thread_init paints the whole stack with it */

/* rtdef.h: enum rt_object_class_type, the thread states, the timer's flag. */
#define RTT_CLASS_MASK		0x7f	/* RT_Object_Class_Static marks static objects */
#define RTT_CLASS_THREAD	0x01
#define RTT_CLASS_SEMAPHORE	0x02
#define RTT_CLASS_MQ		0x06
#define RTT_CLASS_TIMER		0x0a
#define RTT_THREAD_INIT		0x00
#define RTT_THREAD_READY	0x01
#define RTT_THREAD_SUSPEND	0x02
#define RTT_THREAD_RUNNING	0x03
#define RTT_THREAD_CLOSE	0x04
#define RTT_STAT_MASK		0x07
#define RTT_TIMER_ACTIVATED	0x01

#define RTT_MAX_NAME	16	/* RT_NAME_MAX is 2 to 16 (its Kconfig); 8 by default */
#define FP_CALLEE	64	/* s16-s31 */
#define EXC_RETURN_BASIC	0xFFFFFFFDu
#define EXC_RETURN_FP		0xFFFFFFEDu

static const char *const rtt_stat_names[] = {
	[RTT_THREAD_INIT] = "RT_THREAD_INIT", [RTT_THREAD_READY] = "RT_THREAD_READY",
	[RTT_THREAD_SUSPEND] = "RT_THREAD_SUSPEND", [RTT_THREAD_RUNNING] = "RT_THREAD_RUNNING",
	[RTT_THREAD_CLOSE] = "RT_THREAD_CLOSE",
};

static const char *const rtt_ipc_names[] = {
	[RTT_CLASS_SEMAPHORE] = "semaphore", "mutex", "event", "mailbox", "message queue",
};

struct rtt_layout {
	uint32_t name, name_len, type, list, tlist, sp, stack_addr, stack_size, stat, prio;
	uint32_t timer, timer_flag, obj_list, suspend_list;
	int have_timer;
};

/*
 * Defaults: struct rt_thread of RT-Thread 3.1 to 4.1 and nano on a 32-bit
 * port without RT_USING_MODULE or RT_USING_SMP, RT_NAME_MAX 8; the thread's
 * own timer moves with RT_USING_EVENT and RT_USING_SIGNALS, so without DWARF
 * it is measured (rtt_measure_timer).
 */
static int rtt_layout(const struct cw_image *img, struct rtt_layout *l)
{
	const struct cw_rtos_field f[] = {
		{ "rt_thread", "name|parent.name", &l->name, 0, &l->name_len, 8, 0, NULL },
		{ "rt_thread", "type|parent.type", &l->type, 8, NULL, 0, 0, NULL },
		{ "rt_thread", "list|parent.list", &l->list, 12, NULL, 0, 0, NULL },
		{ "rt_thread", "tlist", &l->tlist, 20, NULL, 0, 0, NULL },
		{ "rt_thread", "sp", &l->sp, 28, NULL, 0, 0, NULL },
		{ "rt_thread", "stack_addr", &l->stack_addr, 40, NULL, 0, 0, NULL },
		{ "rt_thread", "stack_size", &l->stack_size, 44, NULL, 0, 0, NULL },
		{ "rt_thread", "stat", &l->stat, 52, NULL, 0, 0, NULL },
		{ "rt_thread", "current_priority", &l->prio, 53, NULL, 0, 0, NULL },
		{ "rt_thread", "thread_timer", &l->timer, 68, NULL, 0, 1, &l->have_timer },
		{ "rt_timer", "parent.flag", &l->timer_flag, 9, NULL, 0, 0, NULL },
		{ "rt_object_information", "object_list", &l->obj_list, 4, NULL, 0, 0, NULL },
		{ "rt_ipc_object", "suspend_thread", &l->suspend_list, 20, NULL, 0, 0, NULL },
	};

	return cw_rtos_read_fields(img, f, ARRAY_SIZE(f));
}

static int rtt_rd8(const struct cw_rtos_walk *w, uint32_t addr, uint8_t *v)
{
	return cw_mem_read(w->t->mem, addr, v, 1);
}

/* An object of class cls: the type byte rt_object_init stamped, static or not. */
static int rtt_is_class(const struct cw_rtos_walk *w, const struct rtt_layout *l, uint32_t obj,
			uint8_t cls)
{
	uint8_t type;

	return !(obj & 3) && !rtt_rd8(w, obj + l->type, &type) &&
	       (type & RTT_CLASS_MASK) == cls;
}

/*
 * _thread_init names the thread's timer after the thread: without DWARF, the
 * timer is the first word-aligned object past the stack fields whose class
 * is a timer and whose name is the thread's.
 */
static int rtt_measure_timer(struct cw_rtos_walk *w, struct rtt_layout *l, uint32_t tcb)
{
	char name[RTT_MAX_NAME + 1], tname[RTT_MAX_NAME + 1];
	uint32_t off;

	cw_rtos_read_name(w, tcb + l->name, l->name_len, name, sizeof(name));
	if (!name[0] || name[0] == '?')
		return -1;
	for (off = l->stat + 4; off < 256; off += 4) {
		cw_rtos_read_name(w, tcb + off + l->name, l->name_len, tname, sizeof(tname));
		if (!strcmp(name, tname) && rtt_is_class(w, l, tcb + off, RTT_CLASS_TIMER)) {
			l->timer = off;
			l->have_timer = 1;
			return 0;
		}
	}
	return -1;
}

/*
 * What the GCC ports' PendSV_Handler (libcpu/arm/cortex-m*, context_gcc.S)
 * stores at the thread's sp, from the lowest address:
 *   cortex-m0, -m3 (and -m4/-m7 without an FPU): r4-r11, the hardware frame
 *   cortex-m4, -m7 with an FPU: a flag (1: the FPU was in use), r4-r11,
 *     s16-s31 when the flag is 1, the hardware frame (extended then)
 *   cortex-m33: the TrustZone context, EXC_RETURN, PSPLIM, CONTROL, r4-r11,
 *     s16-s31 when EXC_RETURN bit 4 is 0, the hardware frame
 * The build does not record whether it has the FPU: the layout (0 or 1
 * above) that more threads' contexts fit is taken for all.
 */
static int rtt_try_v7m(struct cw_rtos_walk *w, struct cw_thread *th, uint32_t sp, int fpu)
{
	uint32_t flag;

	if (!fpu)
		return cw_rtos_read_context(w, th, sp, sp + 32, EXC_RETURN_BASIC);
	if (cw_rtos_rd32(w, sp, &flag) || flag > 1)
		return -1;
	return cw_rtos_read_context(w, th, sp + 4, sp + 36 + (flag ? FP_CALLEE : 0),
				    flag ? EXC_RETURN_FP : EXC_RETURN_BASIC);
}

static void rtt_context_v8m(struct cw_rtos_walk *w, struct cw_thread *th, uint32_t sp)
{
	uint32_t tz, exc, psplim;

	if (cw_rtos_rd32(w, sp, &tz) || cw_rtos_rd32(w, sp + 4, &exc) ||
	    cw_rtos_rd32(w, sp + 8, &psplim)) {
		cw_thread_problem(th, "saved context at 0x%08x not in the dump", sp);
		return;
	}
	/* EXC_RETURN.S: the port left r4-r11 and the frame on the Secure side. */
	if (tz && (exc & 0x40)) {
		cw_thread_problem(th, "context saved on the Secure stack (TrustZone context 0x%08x)",
				  tz);
		return;
	}
	if (!cw_exc_return_to_thread_psp(exc)) {
		cw_thread_problem(th, "saved EXC_RETURN 0x%08x at 0x%08x does not return to a "
				  "thread", exc, sp + 4);
		return;
	}
	if (cw_rtos_read_context(w, th, sp + 16,
				 sp + 48 + (cw_exc_return_fp_frame(exc) ? FP_CALLEE : 0), exc)) {
		if (!th->problem[0])
			cw_thread_problem(th, "no saved context fits at sp 0x%08x", sp);
		return;
	}
	th->layout = "cortex-m33";
	th->have_psplim = 1;
	th->psplim = psplim;
}

static int rtt_try_context(struct cw_rtos_walk *w, struct cw_thread *th, uint32_t sp, int fpu)
{
	if (rtt_try_v7m(w, th, sp, fpu))
		return -1;
	th->layout = fpu ? "cortex-m4 FPU" : "cortex-m3";
	return 0;
}

/*
 * Follow the thread's tlist to the head of the list it is on: the first node
 * that is not another thread's tlist. Returns 0 and *head (0: the node is
 * alone, on no list), -1 when the list breaks or cycles without a head.
 */
static int rtt_list_head(struct cw_rtos_walk *w, const struct rtt_layout *l, uint32_t tcb,
			 uint32_t *head)
{
	uint32_t node = tcb + l->tlist, next, back;
	unsigned int n;

	*head = 0;
	for (n = 0; n < CW_RTOS_MAX_LIST_ITEMS; n++) {
		if (cw_rtos_rd32(w, node, &next) || cw_rtos_rd32(w, next + 4, &back)) {
			cw_rtos_warn(w, "thread 0x%08x: its list breaks at 0x%08x", tcb, node);
			return -1;
		}
		if (back != node) {
			cw_rtos_warn(w, "thread 0x%08x: list node 0x%08x links back to 0x%08x, not "
				     "0x%08x", tcb, next, back, node);
			return -1;
		}
		if (next == tcb + l->tlist)
			return 0;
		if (!rtt_is_class(w, l, next - l->tlist, RTT_CLASS_THREAD)) {
			*head = next;
			return 0;
		}
		node = next;
	}
	cw_rtos_warn(w, "thread 0x%08x: its list holds no head within %d nodes", tcb,
		     CW_RTOS_MAX_LIST_ITEMS);
	return -1;
}

struct rtt_kernel {
	uint32_t prio_table, prio_table_size, defunct;
};

/* A SUSPEND thread's tlist on an IPC object's suspend list: blocked on it. */
static int rtt_wait_object(struct cw_rtos_walk *w, const struct rtt_layout *l,
			   struct cw_thread *th, uint32_t head)
{
	uint32_t obj = head - l->suspend_list;
	char name[RTT_MAX_NAME + 1];
	uint8_t type;

	if (rtt_rd8(w, obj + l->type, &type))
		return -1;
	type &= RTT_CLASS_MASK;
	if (type < RTT_CLASS_SEMAPHORE || type > RTT_CLASS_MQ)
		return -1;
	cw_rtos_read_name(w, obj + l->name, l->name_len, name, sizeof(name));
	snprintf(th->waits_on, sizeof(th->waits_on), "%s \"%s\" at 0x%08x", rtt_ipc_names[type],
		 name, obj);
	return 0;
}

/*
 * The state from stat and the list the thread's tlist is on: a ready thread
 * is in rt_thread_priority_table, a closed one in the defunct list until the
 * idle thread frees it, a suspended one in an IPC object's suspend list
 * (blocked), else sleeping on its own timer (delayed), else suspended. The
 * running thread is off every list (rt_schedule_remove_thread).
 */
static void rtt_state(struct cw_rtos_walk *w, const struct rtt_layout *l,
		      const struct rtt_kernel *k, struct cw_thread *th)
{
	uint32_t head, slot;
	uint8_t stat, tflag = 0;

	if (rtt_rd8(w, th->tcb + l->stat, &stat))
		return;
	stat &= RTT_STAT_MASK;
	if (stat >= ARRAY_SIZE(rtt_stat_names)) {
		snprintf(th->kernel_state, sizeof(th->kernel_state), "%u", stat);
		return;
	}
	snprintf(th->kernel_state, sizeof(th->kernel_state), "%s", rtt_stat_names[stat]);
	if (rtt_list_head(w, l, th->tcb, &head))
		head = 0;
	slot = k->prio_table && head >= k->prio_table &&
	       head < k->prio_table + k->prio_table_size ? (head - k->prio_table) / 8 + 1 : 0;
	switch (stat) {
	case RTT_THREAD_INIT:	/* created, rt_thread_startup not called yet */
		th->state = CW_TS_SUSPENDED;
		break;
	case RTT_THREAD_READY:
		th->state = CW_TS_READY;
		if (k->prio_table && slot != (uint32_t)th->priority + 1)
			cw_rtos_warn(w, "thread \"%s\" is ready but not in rt_thread_priority_table"
				     "[%d]", th->name, th->priority);
		break;
	case RTT_THREAD_RUNNING:
		/* Chosen by rt_schedule, its switch still pending: not yet running. */
		th->state = th->current ? CW_TS_RUNNING : CW_TS_READY;
		break;
	case RTT_THREAD_CLOSE:
		th->state = CW_TS_DEAD;
		break;
	default:	/* RTT_THREAD_SUSPEND */
		if (head && slot)
			cw_rtos_warn(w, "thread \"%s\" is suspended but in "
				     "rt_thread_priority_table[%u]", th->name, slot - 1);
		if (head && !slot && head != k->defunct && !rtt_wait_object(w, l, th, head)) {
			th->state = CW_TS_BLOCKED;
			break;
		}
		if (l->have_timer &&
		    !rtt_rd8(w, th->tcb + l->timer + l->timer_flag, &tflag) &&
		    (tflag & RTT_TIMER_ACTIVATED)) {
			th->state = CW_TS_DELAYED;
			break;
		}
		th->state = head && !slot ? CW_TS_BLOCKED : CW_TS_SUSPENDED;
		if (head && !slot)
			snprintf(th->waits_on, sizeof(th->waits_on), "the list at 0x%08x", head);
	}
}

static void rtt_thread(struct cw_rtos_walk *w, const struct rtt_layout *l,
		       const struct rtt_kernel *k, struct cw_thread *th, uint32_t *saved_sp)
{
	uint32_t size;
	uint8_t prio;

	cw_rtos_read_name(w, th->tcb + l->name, l->name_len, th->name, sizeof(th->name));
	if (!rtt_rd8(w, th->tcb + l->prio, &prio))
		th->priority = prio;
	rtt_state(w, l, k, th);
	if (!cw_rtos_rd32(w, th->tcb + l->stack_addr, &th->stack_lo) &&
	    !cw_rtos_rd32(w, th->tcb + l->stack_size, &size) && size &&
	    size < 0x10000000u && th->stack_lo + size > th->stack_lo) {
		th->have_stack = 1;
		th->stack_size = size;
		th->stack_hi = th->stack_lo + size;
	}
	if (cw_rtos_rd32(w, th->tcb + l->sp, saved_sp)) {
		cw_thread_problem(th, "TCB at 0x%08x not in the dump", th->tcb);
		*saved_sp = 0;
	}
}

/*
 * The thread whose stack is live: rt_current_thread, unless rt_schedule ran
 * in an interrupt and the PendSV it pended has not switched yet. Then
 * rt_current_thread already names the next thread and the port's
 * rt_interrupt_from_thread still points at the interrupted one's sp.
 */
static uint32_t rtt_live_thread(struct cw_rtos_walk *w, const struct rtt_layout *l,
				uint32_t cur)
{
	const struct cw_image *img = w->t->img;
	uint32_t flag_sym, from_sym, flag, from;

	if (cw_image_lookup(img, "rt_thread_switch_interrupt_flag", &flag_sym) ||
	    cw_image_lookup(img, "rt_interrupt_from_thread", &from_sym) ||
	    cw_rtos_rd32(w, flag_sym, &flag) || cw_rtos_rd32(w, from_sym, &from) || !flag || !from)
		return cur;
	if (!rtt_is_class(w, l, from - l->sp, RTT_CLASS_THREAD)) {
		cw_rtos_warn(w, "rt_interrupt_from_thread 0x%08x is no thread's sp", from);
		return cur;
	}
	return from - l->sp;
}

/* The object container's thread list: _object_container[0] (rt_object_container before 4.0). */
static int rtt_container(const struct cw_image *img, uint32_t *addr)
{
	return cw_image_lookup(img, "_object_container", addr) &&
	       cw_image_lookup(img, "rt_object_container", addr);
}

/*
 * Every thread is in the object container's thread list (through the
 * object's list node) from rt_thread_init or rt_thread_create until the
 * idle thread frees it after it closed; the idle thread is "tidle0" and
 * the soft-timer thread "timer". The list is walked forward, each node
 * checked to link back and to be a thread object: a break ends the walk
 * with a warning, never a thread made up.
 */
static int rtt_find(struct cw_rtos_walk *w)
{
	const struct cw_image *img = w->t->img;
	uint32_t container, cur_sym, cur = 0, live, head, node, next, back, tcb, sym;
	uint32_t at[CW_MAX_THREADS];
	struct rtt_kernel k = { 0 };
	struct rtt_layout l;
	struct cw_thread *th;
	unsigned int n = 0, i;
	int measured = 0;
	int v8m = !cw_image_lookup(img, "rt_trustzone_current_context", &sym);

	if (rtt_container(img, &container) || cw_image_lookup(img, "rt_current_thread", &cur_sym))
		return -1;
	w->out->layout_dwarf = rtt_layout(img, &l);
	if (l.name_len > RTT_MAX_NAME)
		l.name_len = RTT_MAX_NAME;
	/* Its size is the number of priorities (RT_THREAD_PRIORITY_MAX): without it, unchecked. */
	if (cw_image_object(img, "rt_thread_priority_table", &k.prio_table, &k.prio_table_size) ||
	    !k.prio_table_size)
		k.prio_table = 0;
	if (cw_image_lookup(img, "_rt_thread_defunct", &k.defunct) &&
	    cw_image_lookup(img, "rt_thread_defunct", &k.defunct))
		k.defunct = 0;
	if (cw_rtos_rd32(w, cur_sym, &cur))
		cw_rtos_warn(w, "rt_current_thread at 0x%08x not in the dump", cur_sym);
	w->out->not_started = !cur;
	live = rtt_live_thread(w, &l, cur);
	head = container + l.obj_list;
	if (cw_rtos_rd32(w, head, &node)) {
		cw_rtos_warn(w, "the object container's thread list at 0x%08x is not in the dump",
			     head);
		return 0;
	}
	for (back = head; node != head; back = node, node = next) {
		tcb = node - l.list;
		if (!rtt_is_class(w, &l, tcb, RTT_CLASS_THREAD)) {
			cw_rtos_warn(w, "thread list broken after 0x%08x: 0x%08x is not a thread",
				     back, node);
			break;
		}
		if (cw_rtos_rd32(w, node, &next) || cw_rtos_rd32(w, node + 4, &sym) || sym != back) {
			cw_rtos_warn(w, "thread list: node 0x%08x does not link back to 0x%08x", node,
				     back);
			break;
		}
		/* Every node links back: a loop that misses the head cannot, only a long list. */
		if (n++ >= CW_MAX_THREADS) {
			cw_rtos_warn(w, "thread list longer than %d at 0x%08x", CW_MAX_THREADS, node);
			break;
		}
		if (!w->out->layout_dwarf && !measured)
			measured = !rtt_measure_timer(w, &l, tcb);
		th = cw_rtos_add_thread(w, tcb, "the object container");
		if (!th)
			break;
		th->current = tcb == live;
		rtt_thread(w, &l, &k, th, &at[w->out->nr - 1]);
	}
	if (live) {
		for (i = 0; i < w->out->nr && w->out->threads[i].tcb != live; i++)
			;
		if (i == w->out->nr)
			cw_rtos_warn(w, "the running thread 0x%08x is not in the object container",
				     live);
	}
	/*
	 * The running thread's sp is where its last switch left it: stale,
	 * read only so that the frame search knows that context is.
	 */
	if (v8m) {
		for (i = 0; i < w->out->nr; i++)
			if (at[i])
				rtt_context_v8m(w, &w->out->threads[i], at[i]);
	} else {
		cw_rtos_contexts_by_majority(w, at, rtt_try_context, 0, "sp");
	}
	return 0;
}

const struct cw_rtos_ops cw_rtthread_ops = {
	.detect = "rt_current_thread",
	.fill = RTT_FILL, .find = rtt_find, .task_exit = "_thread_exit",
};
