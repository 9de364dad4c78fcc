// SPDX-License-Identifier: GPL-2.0
/*
 * cw_zephyr.c - Zephyr for the RTOS model: the _kernel thread list, the
 * k_thread layout and the callee_saved context of a switched-out thread.
 */
#include "decode/cw_exc.h"
#include "rtos/cw_rtos_model.h"

#define ZEPHYR_FILL	0xAA	/* CONFIG_INIT_STACKS */

struct zep_layout {
	uint32_t current, threads, state, prio, callee, psp, next, name, name_len;
	uint32_t stack_start, stack_size, exc_return, timeout_next;
	int have_name, have_stack, have_exc_return, have_timeout;
};

/*
 * Defaults: struct k_thread of a Zephyr 3.x Cortex-M build with
 * CONFIG_THREAD_MONITOR, CONFIG_THREAD_NAME (32), CONFIG_THREAD_STACK_INFO,
 * CONFIG_FPU_SHARING and CONFIG_ARM_STORE_EXC_RETURN, and nothing else that
 * adds members: other configurations move the fields, so use DWARF.
 */
static int zep_layout(const struct cw_image *img, struct zep_layout *l)
{
	const struct cw_rtos_field f[] = {
		{ "z_kernel", "cpus", &l->current, 8, NULL, 0, 0, NULL },
		{ "z_kernel", "threads", &l->threads, 32, NULL, 0, 0, NULL },
		{ "k_thread", "base.thread_state", &l->state, 13, NULL, 0, 0, NULL },
		{ "k_thread", "base.prio", &l->prio, 14, NULL, 0, 0, NULL },
		{ "k_thread", "callee_saved", &l->callee, 48, NULL, 0, 0, NULL },
		{ "k_thread", "callee_saved.psp", &l->psp, 80, NULL, 0, 0, NULL },
		{ "k_thread", "next_thread", &l->next, 112, NULL, 0, 0, NULL },
		{ "k_thread", "name", &l->name, 116, &l->name_len, 32, 1, &l->have_name },
		{ "k_thread", "stack_info.start", &l->stack_start, 148, NULL, 0, 1,
		  &l->have_stack },
		{ "k_thread", "stack_info.size", &l->stack_size, 152, NULL, 0, 1, NULL },
		{ "k_thread", "arch.mode_exc_return", &l->exc_return, 233, NULL, 0, 1,
		  &l->have_exc_return },
		{ "k_thread", "base.timeout.node.next", &l->timeout_next, 24, NULL, 0, 1,
		  &l->have_timeout },
	};
	int dwarf = cw_rtos_read_fields(img, f, ARRAY_SIZE(f));
	uint32_t cur;

	/* cpus[0].current: the member's offset inside struct _cpu. */
	if (dwarf && !cw_image_struct_member(img, "_cpu", "current", &cur, NULL))
		l->current += cur;
	else if (dwarf)
		dwarf = 0;
	if (!dwarf) {
		l->current = 8;
		l->have_name = l->have_stack = l->have_exc_return = l->have_timeout = 1;
	}
	return dwarf;
}

/*
 * Zephyr's thread_state bits (kernel/include/kthread.h, kernel_structs.h),
 * most telling first. Bit 2 is _THREAD_SLEEPING since Zephyr 3.7 and
 * _THREAD_PRESTART before (a thread not started yet, its start delayed):
 * delayed either way. Before 3.7, k_sleep() marked a sleeping thread
 * _THREAD_SUSPENDED with its timeout armed, and k_thread_suspend() disarms
 * the timeout: suspended with a timeout is delayed. _THREAD_ABORTING is on
 * its way to dead, _THREAD_SUSPENDING (4.x) to suspended.
 */
#define ZEP_PENDING	0x02
#define ZEP_SLEEPING	0x04
#define ZEP_DEAD	0x08
#define ZEP_SUSPENDED	0x10
#define ZEP_ABORTING	0x20
#define ZEP_SUSPENDING	0x40
#define ZEP_QUEUED	0x80

static enum cw_thread_state zep_state(uint8_t s, int timeout_armed)
{
	if (s & (ZEP_DEAD | ZEP_ABORTING))
		return CW_TS_DEAD;
	if ((s & ZEP_SUSPENDED) && timeout_armed && !(s & ZEP_PENDING))
		return CW_TS_DELAYED;
	if (s & (ZEP_SUSPENDED | ZEP_SUSPENDING))
		return CW_TS_SUSPENDED;
	if (s & ZEP_PENDING)
		return CW_TS_BLOCKED;
	if (s & ZEP_SLEEPING)
		return CW_TS_DELAYED;
	/*
	 * Runnable: in the run queue, or out of it as the idle thread always is
	 * (and a thread that never ran: state 0).
	 */
	if (!(s & ~ZEP_QUEUED))
		return CW_TS_READY;
	return CW_TS_UNKNOWN;
}

static void zep_context(struct cw_rtos_walk *w, struct cw_thread *th, const struct zep_layout *l)
{
	uint32_t psp, exc = CW_EXC_RETURN_THREAD_PSP;
	uint8_t b;

	if (cw_rtos_read_callee(w, th, th->tcb + l->callee))
		return;
	if (cw_rtos_rd32(w, th->tcb + l->psp, &psp)) {
		cw_thread_problem(th, "callee_saved.psp at 0x%08x not in the dump", th->tcb + l->psp);
		return;
	}
	/* Without the stored EXC_RETURN a frame is taken as basic: FP threads would be wrong. */
	if (l->have_exc_return && !cw_mem_read(w->t->mem, th->tcb + l->exc_return, &b, 1))
		exc = CW_EXC_RETURN_LOW_BYTE_BASE | b;
	if (th->have_stack && th->stack_size &&
	    (psp < th->stack_lo || psp >= th->stack_hi))
		th->overflow |= CW_OVF_SP_OUTSIDE;
	if (cw_rtos_pop_frame(w, th, psp, exc)) {
		th->have_regs = 0;
		return;
	}
	th->layout = "callee_saved";
}

static int zep_find(struct cw_rtos_walk *w)
{
	const struct cw_image *img = w->t->img;
	uint32_t kernel, cur = 0, tcb, seen[CW_MAX_THREADS + 1], v;
	struct zep_layout l;
	struct cw_thread *th;
	unsigned int n = 0, i;
	uint8_t b;

	if (cw_image_lookup(img, "_kernel", &kernel))
		return -1;
	w->out->layout_dwarf = zep_layout(img, &l);
	if (cw_rtos_rd32(w, kernel + l.current, &cur))
		cw_rtos_warn(w, "_kernel.cpus[0].current at 0x%08x not in the dump", kernel + l.current);
	if (cw_rtos_rd32(w, kernel + l.threads, &tcb)) {
		cw_rtos_warn(w, "_kernel.threads at 0x%08x not in the dump", kernel + l.threads);
		return 0;
	}
	while (tcb) {
		for (i = 0; i < n; i++)
			if (seen[i] == tcb) {
				cw_rtos_warn(w, "thread list is cyclic at 0x%08x", tcb);
				return 0;
			}
		if (n > CW_MAX_THREADS) {
			cw_rtos_warn(w, "thread list longer than %d: stopped at 0x%08x", CW_MAX_THREADS, tcb);
			return 0;
		}
		seen[n++] = tcb;
		th = cw_rtos_add_thread(w, tcb, "_kernel.threads");
		if (th) {
			th->current = tcb == cur;
			if (!cw_mem_read(w->t->mem, tcb + l.state, &b, 1))
				th->state = zep_state(b, l.have_timeout &&
						      !cw_rtos_rd32(w, tcb + l.timeout_next, &v) && v);
			if (!cw_mem_read(w->t->mem, tcb + l.prio, &b, 1))
				th->priority = (int8_t)b;
			if (l.have_name)
				cw_rtos_read_name(w, tcb + l.name, l.name_len, th->name, sizeof(th->name));
			if (l.have_stack && !cw_rtos_rd32(w, tcb + l.stack_start, &th->stack_lo) &&
			    !cw_rtos_rd32(w, tcb + l.stack_size, &v) && v && v < 0x10000000u) {
				th->have_stack = 1;
				th->stack_size = v;
				th->stack_hi = th->stack_lo + v;
			}
			zep_context(w, th, &l);
		}
		if (cw_rtos_rd32(w, tcb + l.next, &tcb)) {
			cw_rtos_warn(w, "thread 0x%08x: next_thread not in the dump", seen[n - 1]);
			return 0;
		}
	}
	return 0;
}

const struct cw_rtos_ops cw_zephyr_ops = {
	.detect = "_kernel", .fill = ZEPHYR_FILL, .find = zep_find,
	.thread_entry = "z_thread_entry",
};
