// SPDX-License-Identifier: GPL-2.0
/*
 * cw_liteos.c - OpenHarmony LiteOS-M for the RTOS model: the task control
 * block array, the status bits, the ready and delay lists that cross-check
 * them, and the context its Cortex-M port's PendSV leaves on a task's stack.
 */
#include <string.h>

#include "decode/cw_exc.h"
#include "rtos/cw_rtos_model.h"

#define LITEOS_FILL	0xCA		/* OS_TASK_STACK_INIT 0xCACACACA, memset byte by byte */
#define LITEOS_MAGIC	0xCCCCCCCCu	/* OS_TASK_MAGIC_WORD, at the stack's lowest word */
#define LITEOS_NAME_MAX	32

/* taskStatus bits (kernel/include/los_task.h). */
#define LOS_UNUSED	0x0001
#define LOS_SUSPEND	0x0002
#define LOS_READY	0x0004
#define LOS_PEND	0x0008
#define LOS_RUNNING	0x0010
#define LOS_DELAY	0x0020
#define LOS_PEND_TIME	0x0080
#define LOS_EXIT	0x0100

#define LOS_PRI_QUEUES	32	/* OS_PRIORITY_QUEUE_NUM: g_priQueueList's length */
#define MAX_TASKS	256	/* more TCBs than LOSCFG_BASE_CORE_TSK_LIMIT allows */

/*
 * What the GCC cortex-m4 port (arch/arm/cortex-m4/gcc/los_dispatch.S,
 * TaskContext in los_arch_context.h) stores at a task's stackPointer, from
 * the lowest address: s16-s31 when the FPU is enabled (CPACR, read at each
 * switch), r4-r11, PRIMASK, then the hardware frame. EXC_RETURN is not
 * saved: with the FPU on, HalStartToRun sets CONTROL.FPCA before the first
 * task, so every frame a task's switch leaves is an extended one.
 */
#define CTX_FP_CALLEE	64	/* s16-s31 */
#define CTX_CORE	36	/* r4-r11, PRIMASK */
#define EXC_RETURN_FP	0xFFFFFFEDu	/* extended frame, Thread mode, PSP */

struct los_layout {
	uint32_t tcb_size, sp, status, status_len, prio, prio_len, stack_size, top, id, name;
	uint32_t pend_list, sort_list, run_task, list_next;
};

/*
 * The defaults: LosTaskCB of kernel_liteos_m (OpenHarmony 3.x-5.x) on a
 * 32-bit port with LOSCFG_KERNEL_SIGNAL off and no LOSCFG_TASK_STRUCT_EXTENSION.
 * Without DWARF the TCB's size, which those options change, is measured in
 * the dump (los_measure_tcb).
 */
static int los_layout(const struct cw_image *img, struct los_layout *l)
{
	const struct cw_rtos_field f[] = {
		{ "LosTaskCB", "stackPointer", &l->sp, 0, NULL, 0, 0, NULL },
		{ "LosTaskCB", "taskStatus", &l->status, 4, &l->status_len, 2, 0, NULL },
		{ "LosTaskCB", "priority", &l->prio, 6, &l->prio_len, 2, 0, NULL },
		{ "LosTaskCB", "stackSize", &l->stack_size, 40, NULL, 0, 0, NULL },
		{ "LosTaskCB", "topOfStack", &l->top, 44, NULL, 0, 0, NULL },
		{ "LosTaskCB", "taskID", &l->id, 48, NULL, 0, 0, NULL },
		{ "LosTaskCB", "taskName", &l->name, 68, NULL, 0, 0, NULL },
		{ "LosTaskCB", "pendList", &l->pend_list, 72, NULL, 0, 0, NULL },
		{ "LosTaskCB", "sortList.sortLinkNode", &l->sort_list, 16, NULL, 0, 0, NULL },
		{ "LosTask", "runTask", &l->run_task, 0, NULL, 0, 0, NULL },
		{ "LOS_DL_LIST", "pstNext", &l->list_next, 4, NULL, 0, 0, NULL },
	};
	int dwarf = cw_rtos_read_fields(img, f, ARRAY_SIZE(f));

	if (!dwarf || cw_image_struct_size(img, "LosTaskCB", &l->tcb_size))
		l->tcb_size = 0;
	return dwarf;
}

static int los_rd16(const struct cw_rtos_walk *w, uint32_t addr, uint32_t len, uint32_t *v)
{
	uint8_t b[4] = { 0 };

	if (len > sizeof(b) || cw_mem_read(w->t->mem, addr, b, len))
		return -1;
	*v = b[0] | b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
	return 0;
}

/*
 * OsTaskInit numbers every TCB of g_taskCBArray with its index: the stride
 * at which taskID counts 1, 2, 3 is the TCB's size, whatever LOSCFG_*
 * options added to it.
 */
static uint32_t los_measure_tcb(const struct cw_rtos_walk *w, const struct los_layout *l,
				uint32_t array, uint32_t count)
{
	uint32_t size, k, v;

	for (size = l->pend_list + 8; size <= 512; size += 8) {
		for (k = 1; k < 4 && k < count; k++)
			if (cw_rtos_rd32(w, array + k * size + l->id, &v) || v != k)
				break;
		if (k >= 4 || (k == count && k > 1))
			return size;
	}
	return 0;
}

/*
 * A task's saved context at sp, in the FP layout or the core one; 0 when it
 * is one: PRIMASK 0 or 1, a Thumb xPSR and a pc in code.
 */
static int los_try_context(struct cw_rtos_walk *w, struct cw_thread *th, uint32_t sp, int fp)
{
	uint32_t callee = sp + (fp ? CTX_FP_CALLEE : 0), primask;

	th->problem[0] = 0;
	if (cw_rtos_rd32(w, callee + 32, &primask) || primask > 1) {
		th->have_regs = 0;
		th->regs.valid = 0;
		return -1;
	}
	if (cw_rtos_read_context(w, th, callee, callee + CTX_CORE,
				 fp ? EXC_RETURN_FP : CW_EXC_RETURN_THREAD_PSP))
		return -1;
	th->layout = fp ? "cortex-m4 fpu" : "cortex-m4";
	return 0;
}

struct los_task {
	uint32_t status, sp, id;
	int context;		/* its saved context can be read */
};

/*
 * The kernel's own reading (OsConvertTskStatus), running decided by
 * g_losTask.runTask; exited first: a task that deleted itself keeps the
 * RUNNING bit it had (the switch clears it in the stand-in TCB).
 */
static enum cw_thread_state los_state(uint32_t s)
{
	if (s & LOS_EXIT)
		return CW_TS_DEAD;
	if (s & (LOS_READY | LOS_RUNNING))
		return CW_TS_READY;
	if (s & LOS_SUSPEND)
		return CW_TS_SUSPENDED;
	if (s & LOS_DELAY)
		return CW_TS_DELAYED;
	if (s & LOS_PEND)
		return CW_TS_BLOCKED;
	return CW_TS_UNKNOWN;
}

/*
 * Walk a LOS_DL_LIST of TCBs linked at member off, counting them; warn on a
 * cycle, a link out of the dump, a member outside g_taskCBArray or a task
 * whose status says it is not on this list. Returns the count, -1 when the
 * list cannot be read.
 */
static int los_walk_list(struct cw_rtos_walk *w, const struct los_layout *l, uint32_t head,
			 uint32_t off, uint32_t array, uint32_t stride, uint32_t count,
			 uint32_t want, const char *name)
{
	uint32_t seen[MAX_TASKS], node, tcb, st;
	unsigned int n = 0, i;

	if (cw_rtos_rd32(w, head + l->list_next, &node)) {
		cw_rtos_warn(w, "%s at 0x%08x not in the dump", name, head);
		return -1;
	}
	while (node != head) {
		for (i = 0; i < n; i++)
			if (seen[i] == node) {
				cw_rtos_warn(w, "%s at 0x%08x is cyclic at 0x%08x", name, head, node);
				return -1;
			}
		if (n >= MAX_TASKS) {
			cw_rtos_warn(w, "%s at 0x%08x: more than %d items", name, head, MAX_TASKS);
			return -1;
		}
		seen[n++] = node;
		tcb = node - off;
		if (tcb < array || tcb >= array + count * stride || (tcb - array) % stride) {
			cw_rtos_warn(w, "%s at 0x%08x: item 0x%08x is no task of g_taskCBArray", name,
				     head, node);
			return -1;
		}
		if (los_rd16(w, tcb + l->status, l->status_len, &st) || !(st & want))
			cw_rtos_warn(w, "%s at 0x%08x: task 0x%08x has status 0x%04x", name, head, tcb,
				     st);
		if (cw_rtos_rd32(w, node + l->list_next, &node)) {
			cw_rtos_warn(w, "%s at 0x%08x: item 0x%08x not in the dump", name, head,
				     seen[n - 1]);
			return -1;
		}
	}
	return (int)n;
}

/*
 * The ready queues (g_priQueueList, linked through pendList) and the delay
 * list (g_taskSortLink, through sortList) hold exactly the tasks whose status
 * says so, the running one perhaps not yet: a count outside [lo, hi] means
 * the array or the lists are damaged.
 */
static void los_check_lists(struct cw_rtos_walk *w, const struct los_layout *l, uint32_t array,
			    uint32_t stride, uint32_t count, unsigned int ready_lo,
			    unsigned int ready_hi, unsigned int delayed_lo, unsigned int delayed_hi)
{
	const struct cw_image *img = w->t->img;
	uint32_t queues, size, head;
	unsigned int i, n = 0;
	int k;

	if (!cw_image_object(img, "g_priQueueList", &queues, &size) && size) {
		for (i = 0; i < size / 8 && i < LOS_PRI_QUEUES; i++) {
			k = los_walk_list(w, l, queues + 8 * i, l->pend_list, array, stride, count,
					  LOS_READY, "g_priQueueList");
			if (k < 0)
				return;
			n += (unsigned int)k;
		}
		if (n < ready_lo || n > ready_hi)
			cw_rtos_warn(w, "g_priQueueList holds %u task%s, %u %s ready", n, cw_plural(n),
				     ready_lo, ready_lo == 1 ? "is" : "are");
	}
	if (!cw_image_lookup(img, "g_taskSortLink", &head)) {
		k = los_walk_list(w, l, head, l->sort_list, array, stride, count,
				  LOS_DELAY | LOS_PEND_TIME, "g_taskSortLink");
		if (k >= 0 && ((unsigned int)k < delayed_lo || (unsigned int)k > delayed_hi))
			cw_rtos_warn(w, "g_taskSortLink holds %d task%s, %u wait%s with a timeout", k,
				     cw_plural((unsigned long)k), delayed_lo, cw_verb_s(delayed_lo));
	}
}

static void los_task(struct cw_rtos_walk *w, const struct los_layout *l, uint32_t tcb,
		     struct los_task *t)
{
	struct cw_thread *th = cw_rtos_add_thread(w, tcb, "g_taskCBArray");
	uint32_t v, name, magic;

	if (!th)
		return;
	th->state = los_state(t->status);
	if (!cw_rtos_rd32(w, tcb + l->name, &name) && name)
		cw_rtos_read_name(w, name, LITEOS_NAME_MAX, th->name, sizeof(th->name));
	if (!los_rd16(w, tcb + l->prio, l->prio_len, &v))
		th->priority = (int)v;
	if (!cw_rtos_rd32(w, tcb + l->top, &th->stack_lo) &&
	    !cw_rtos_rd32(w, tcb + l->stack_size, &v) && v && v < 0x10000000u &&
	    th->stack_lo + v > th->stack_lo) {
		th->have_stack = 1;
		th->stack_size = v;
		th->stack_hi = th->stack_lo + v;
		/* OsTaskSwitchCheck's own test: the magic word at the low end is gone. */
		if (!cw_rtos_rd32(w, th->stack_lo, &magic) && magic != LITEOS_MAGIC)
			th->overflow |= CW_OVF_WATERMARK;
	}
	t->context = !cw_rtos_rd32(w, tcb + l->sp, &t->sp);
}

static int los_find(struct cw_rtos_walk *w)
{
	const struct cw_image *img = w->t->img;
	uint32_t los_task_sym, array_sym, max_sym, array, max, run = 0, stride, sched, dummy;
	uint32_t dummy_id = ~0u, dummy_sp = 0, idle_id, tcb, i;
	unsigned int ready = 0, delayed = 0, cur_ready = 0, cur_delayed = 0;
	struct los_task t[CW_MAX_THREADS];
	uint32_t at[CW_MAX_THREADS];
	struct los_layout l;

	if (cw_image_lookup(img, "g_losTask", &los_task_sym) ||
	    cw_image_lookup(img, "g_taskCBArray", &array_sym) ||
	    cw_image_lookup(img, "g_taskMaxNum", &max_sym))
		return -1;
	w->out->layout_dwarf = los_layout(img, &l);
	if (cw_rtos_rd32(w, los_task_sym + l.run_task, &run))
		cw_rtos_warn(w, "g_losTask at 0x%08x not in the dump", los_task_sym);
	if (!cw_image_lookup(img, "g_taskScheduled", &sched) && !cw_rtos_rd32(w, sched, &i))
		w->out->not_started = !(i & 0xff);
	if (cw_rtos_rd32(w, array_sym, &array) || cw_rtos_rd32(w, max_sym, &max)) {
		cw_rtos_warn(w, "g_taskCBArray or g_taskMaxNum not in the dump");
		return 0;
	}
	if (!max || max > MAX_TASKS) {
		cw_rtos_warn(w, "g_taskMaxNum says %u tasks: not a task count", max);
		return 0;
	}
	stride = l.tcb_size ? l.tcb_size : los_measure_tcb(w, &l, array, max);
	if (!stride) {
		cw_rtos_warn(w, "g_taskCBArray at 0x%08x: no TCB numbered by its index", array);
		return 0;
	}
	/*
	 * The TCB past the last one stands in for a task that deleted itself while
	 * running (OsRunningTaskDelete): the switch away from it saves the deleted
	 * task's context there, under its taskID. Before the scheduler starts,
	 * runTask points at it too.
	 */
	dummy = array + max * stride;
	if (cw_rtos_rd32(w, dummy + l.id, &dummy_id) || cw_rtos_rd32(w, dummy + l.sp, &dummy_sp))
		dummy_id = ~0u;
	if (cw_image_lookup(img, "g_idleTaskID", &idle_id) || cw_rtos_rd32(w, idle_id, &idle_id))
		idle_id = ~0u;
	if (run && (run < array || run > dummy || (run - array) % stride))
		cw_rtos_warn(w, "g_losTask.runTask 0x%08x is no task of g_taskCBArray", run);
	for (i = 0; i < max; i++) {
		struct los_task cur = { 0 };

		tcb = array + i * stride;
		if (los_rd16(w, tcb + l.status, l.status_len, &cur.status) ||
		    cw_rtos_rd32(w, tcb + l.id, &cur.id)) {
			cw_rtos_warn(w, "task %u at 0x%08x not in the dump", i, tcb);
			continue;
		}
		if (cur.id != i) {
			cw_rtos_warn(w, "task %u at 0x%08x says it is task %u: the array is damaged",
				     i, tcb, cur.id);
			return 0;
		}
		/*
		 * The running task joins a list when it is switched out: between its
		 * status bit and the switch it may be on it or not yet.
		 */
		if (i == idle_id) {
			/* OsSchedTaskEnQueue marks the idle task ready but never queues it. */
		} else if (tcb == run) {
			cur_ready = !!(cur.status & LOS_READY);
			cur_delayed = !!(cur.status & (LOS_DELAY | LOS_PEND_TIME));
		} else {
			ready += !!(cur.status & LOS_READY);
			delayed += !!(cur.status & (LOS_DELAY | LOS_PEND_TIME));
		}
		/* A free TCB, or a deleted one the idle task has recycled. */
		if ((cur.status & LOS_UNUSED) && !(cur.status & LOS_EXIT))
			continue;
		if (w->out->nr >= CW_MAX_THREADS) {
			cw_rtos_warn(w, "more than %d tasks: task %u and later ones left out",
				     CW_MAX_THREADS, i);
			break;
		}
		los_task(w, &l, tcb, &cur);
		if ((cur.status & LOS_UNUSED) && dummy_id == i && run != dummy)
			cur.sp = dummy_sp;
		t[w->out->nr - 1] = cur;
		if (tcb == run || (run == dummy && dummy_id == i && !w->out->not_started)) {
			w->out->threads[w->out->nr - 1].current = 1;
			t[w->out->nr - 1].context = 0;	/* what it saved last is stale */
		}
	}
	for (i = 0; i < w->out->nr; i++)
		at[i] = t[i].context ? t[i].sp : 0;
	/* Whether the FPU was on (the kernel reads CPACR at every switch) is not in a dump. */
	cw_rtos_contexts_by_majority(w, at, los_try_context, 1, "stackPointer");
	/* Where the running task's stale context lies, for a frame search to pass over. */
	for (i = 0; i < w->out->nr; i++) {
		struct cw_thread tmp = w->out->threads[i];

		if (tmp.current && t[i].sp &&
		    (!los_try_context(w, &tmp, t[i].sp, 1) || !los_try_context(w, &tmp, t[i].sp, 0)))
			w->out->threads[i].saved_frame = tmp.saved_frame;
	}
	los_check_lists(w, &l, array, stride, max + 1, ready, ready + cur_ready, delayed,
			delayed + cur_delayed);
	return 0;
}

const struct cw_rtos_ops cw_liteos_ops = {
	.detect = "g_losTask", .fill = LITEOS_FILL,
	.stack_guard = 4, .find = los_find,
	.task_exit = "ArchSysExit", .thread_entry = "OsTaskEntry",
};
