// SPDX-License-Identifier: GPL-2.0
/*
 * cw_rtx5.c - Keil RTX5 (CMSIS-RTOS2 RTX) for the RTOS model: osRtxInfo's
 * thread lists, the control-block storage RTX's own component viewer reads,
 * and the contexts its GCC ports (irq_armv6m, irq_armv7m, irq_armv8mml) save.
 */
#include <stdio.h>
#include <string.h>

#include "rtos/cw_rtos_model.h"

/* rtx_os.h */
#define RTX_ID_THREAD		0xF1
#define RTX_ID_EVENT_FLAGS	0xF3
#define RTX_ID_MUTEX		0xF5
#define RTX_ID_SEMAPHORE	0xF6
#define RTX_ID_MEMORY_POOL	0xF7
#define RTX_ID_MESSAGE_QUEUE	0xFA
#define RTX_STATE_MASK		0x0F
#define RTX_INACTIVE		0x00
#define RTX_READY		0x01
#define RTX_RUNNING		0x02
#define RTX_BLOCKED		0x03
#define RTX_TERMINATED		0x04
#define RTX_STACK_MAGIC		0xE25A2EA5u	/* stack_mem[0]: osRtxThreadStackCheck's */
#define RTX_STACK_FILL		0xCCCCCCCCu	/* the rest, with osRtxConfigStackWatermark */
#define RTX_FRAME_DEFAULT	0xFD	/* STACK_FRAME_INIT_VAL: the ports without FP keep it */
#define FP_CALLEE		64	/* s16-s31 */
#define MEM_BLOCK_ALLOCATED	0x3	/* rtx_memory.c's MB_INFO_TYPE_MASK */
#define MAX_NAME		32

/* Where a thread was found; a state tells which list it must be on. */
#define IN_CURR		0x01
#define IN_NEXT		0x02
#define IN_READY	0x04
#define IN_DELAY	0x08
#define IN_WAIT		0x10
#define IN_TERMINATE	0x20
#define IN_STORAGE	0x40	/* only in the control-block memory, no list */

struct rtx_layout {
	/* osRtxThread_t */
	uint32_t id, state, name, thread_next, thread_prev, delay_next, delay_prev, delay, prio;
	uint32_t stack_frame, wait_flags, stack_mem, stack_size, sp, tcb_size;
	/* osRtxInfo_t */
	uint32_t curr, next, ready, idle, delay_list, wait_list, terminate_list, timer_thread;
	uint32_t mem_common, mpi_thread;
	/* osRtxObject_t, osRtxMpInfo_t */
	uint32_t obj_list, mp_max, mp_base;
};

/*
 * Defaults: RTX 5.x on a 32-bit core (rtx_os.h), the layout RTX5.scvd
 * describes; osRtxInfo's mem and mpi members as of 5.5 on.
 */
static int rtx_layout(const struct cw_image *img, struct rtx_layout *l)
{
	const struct cw_rtos_field f[] = {
		{ "osRtxThread_s", "id", &l->id, 0, NULL, 0, 0, NULL },
		{ "osRtxThread_s", "state", &l->state, 1, NULL, 0, 0, NULL },
		{ "osRtxThread_s", "name", &l->name, 4, NULL, 0, 0, NULL },
		{ "osRtxThread_s", "thread_next", &l->thread_next, 8, NULL, 0, 0, NULL },
		{ "osRtxThread_s", "thread_prev", &l->thread_prev, 12, NULL, 0, 0, NULL },
		{ "osRtxThread_s", "delay_next", &l->delay_next, 16, NULL, 0, 0, NULL },
		{ "osRtxThread_s", "delay_prev", &l->delay_prev, 20, NULL, 0, 0, NULL },
		{ "osRtxThread_s", "delay", &l->delay, 28, NULL, 0, 0, NULL },
		{ "osRtxThread_s", "priority", &l->prio, 32, NULL, 0, 0, NULL },
		{ "osRtxThread_s", "stack_frame", &l->stack_frame, 34, NULL, 0, 0, NULL },
		{ "osRtxThread_s", "wait_flags", &l->wait_flags, 36, NULL, 0, 0, NULL },
		{ "osRtxThread_s", "stack_mem", &l->stack_mem, 48, NULL, 0, 0, NULL },
		{ "osRtxThread_s", "stack_size", &l->stack_size, 52, NULL, 0, 0, NULL },
		{ "osRtxThread_s", "sp", &l->sp, 56, NULL, 0, 0, NULL },
		{ "osRtxInfo_t", "thread.run.curr", &l->curr, 20, NULL, 0, 0, NULL },
		{ "osRtxInfo_t", "thread.run.next", &l->next, 24, NULL, 0, 0, NULL },
		{ "osRtxInfo_t", "thread.ready", &l->ready, 28, NULL, 0, 0, NULL },
		{ "osRtxInfo_t", "thread.idle", &l->idle, 40, NULL, 0, 0, NULL },
		{ "osRtxInfo_t", "thread.delay_list", &l->delay_list, 44, NULL, 0, 0, NULL },
		{ "osRtxInfo_t", "thread.wait_list", &l->wait_list, 48, NULL, 0, 0, NULL },
		{ "osRtxInfo_t", "thread.terminate_list", &l->terminate_list, 52, NULL, 0, 0, NULL },
		{ "osRtxInfo_t", "timer.thread", &l->timer_thread, 72, NULL, 0, 0, NULL },
		{ "osRtxInfo_t", "mem.common", &l->mem_common, 128, NULL, 0, 0, NULL },
		{ "osRtxInfo_t", "mpi.thread", &l->mpi_thread, 136, NULL, 0, 0, NULL },
		{ "osRtxObject_t", "thread_list", &l->obj_list, 8, NULL, 0, 0, NULL },
		{ "osRtxMpInfo_t", "max_blocks", &l->mp_max, 0, NULL, 0, 0, NULL },
		{ "osRtxMpInfo_t", "block_base", &l->mp_base, 12, NULL, 0, 0, NULL },
	};
	int all = cw_rtos_read_fields(img, f, ARRAY_SIZE(f));

	if (cw_image_struct_size(img, "osRtxThread_s", &l->tcb_size) || l->tcb_size < l->sp + 4)
		l->tcb_size = 80;
	return all;
}

static int rd8(const struct cw_rtos_walk *w, uint32_t addr, uint8_t *v)
{
	return cw_mem_read(w->t->mem, addr, v, 1);
}

/* A thread control block: the id osRtxThreadNew stamped, word-aligned. */
static int is_thread(const struct cw_rtos_walk *w, const struct rtx_layout *l, uint32_t tcb)
{
	uint8_t id;

	return tcb && !(tcb & 3) && !rd8(w, tcb + l->id, &id) && id == RTX_ID_THREAD;
}

struct rtx_found {
	uint32_t tcb[CW_MAX_THREADS];
	unsigned int where[CW_MAX_THREADS];
	unsigned int n;
};

/* Record tcb as found in list `in`; a new one is added, in the order found. */
static void found(struct cw_rtos_walk *w, struct rtx_found *fd, uint32_t tcb, unsigned int in)
{
	unsigned int i;

	for (i = 0; i < fd->n; i++)
		if (fd->tcb[i] == tcb) {
			fd->where[i] |= in;
			return;
		}
	if (fd->n == CW_MAX_THREADS) {
		cw_rtos_warn(w, "more than %d threads: thread 0x%08x and later ones left out",
			     CW_MAX_THREADS, tcb);
		return;
	}
	fd->tcb[fd->n] = tcb;
	fd->where[fd->n++] = in;
}

/*
 * A NULL-terminated list through the next member at off_next, each node
 * linking back through off_prev (the first to first_prev). A node that is
 * no thread or does not link back ends the walk with a warning.
 */
static void walk_list(struct cw_rtos_walk *w, const struct rtx_layout *l, struct rtx_found *fd,
		      const char *what, uint32_t head, uint32_t first_prev, uint32_t off_next,
		      uint32_t off_prev, unsigned int in)
{
	uint32_t node, prev = first_prev, back, next;
	unsigned int n;

	if (cw_rtos_rd32(w, head, &node)) {
		cw_rtos_warn(w, "%s at 0x%08x is not in the dump", what, head);
		return;
	}
	for (n = 0; node; n++) {
		if (n >= CW_RTOS_MAX_LIST_ITEMS) {
			cw_rtos_warn(w, "%s longer than %d threads: a loop?", what,
				     CW_RTOS_MAX_LIST_ITEMS);
			return;
		}
		if (!is_thread(w, l, node)) {
			cw_rtos_warn(w, "%s broken: 0x%08x is not a thread", what, node);
			return;
		}
		if (cw_rtos_rd32(w, node + off_prev, &back) || back != prev) {
			cw_rtos_warn(w, "%s: thread 0x%08x does not link back to 0x%08x", what, node,
				     prev);
			return;
		}
		found(w, fd, node, in);
		if (cw_rtos_rd32(w, node + off_next, &next)) {
			cw_rtos_warn(w, "%s: thread 0x%08x not in the dump", what, node);
			return;
		}
		prev = node;
		node = next;
	}
}

/* A control block in RTX's storage: a thread it has created and not freed (RTX5.scvd's test). */
static void from_storage(struct cw_rtos_walk *w, const struct rtx_layout *l,
			 struct rtx_found *fd, uint32_t tcb)
{
	uint8_t state;
	uint32_t sp;

	if (is_thread(w, l, tcb) && !rd8(w, tcb + l->state, &state) && state != RTX_INACTIVE &&
	    !cw_rtos_rd32(w, tcb + l->sp, &sp) && sp)
		found(w, fd, tcb, IN_STORAGE);
}

/*
 * Where RTX keeps control blocks, as RTX5.scvd enumerates them: the
 * .bss.os.thread.cb section (os_cb_sections), the fixed-size pool of
 * osRtxInfo.mpi.thread, the common memory's allocated blocks. A thread
 * there is real though a damaged list lost it.
 */
static void walk_storage(struct cw_rtos_walk *w, const struct rtx_layout *l, uint32_t info,
			 struct rtx_found *fd)
{
	uint32_t sec, lo = 0, hi = 0, a, mp, max = 0, base = 0, mem, blk, next, len;
	unsigned int n;

	if (!cw_image_lookup(w->t->img, "os_cb_sections", &sec) && !cw_rtos_rd32(w, sec, &lo) &&
	    !cw_rtos_rd32(w, sec + 4, &hi) && lo && hi > lo && hi - lo <= CW_MAX_THREADS * l->tcb_size)
		for (a = lo; a + l->tcb_size <= hi; a += l->tcb_size)
			from_storage(w, l, fd, a);
	if (!cw_rtos_rd32(w, info + l->mpi_thread, &mp) && mp &&
	    !cw_rtos_rd32(w, mp + l->mp_max, &max) && !cw_rtos_rd32(w, mp + l->mp_base, &base) &&
	    max <= CW_MAX_THREADS)
		for (n = 0; n < max; n++)
			from_storage(w, l, fd, base + n * l->tcb_size);
	/* mem_head_t {size, used}, then blocks {next, info}, the object after each header. */
	if (cw_rtos_rd32(w, info + l->mem_common, &mem) || !mem)
		return;
	for (blk = mem + 8, n = 0; blk && n < 4 * CW_RTOS_MAX_LIST_ITEMS; blk = next, n++) {
		if (cw_rtos_rd32(w, blk, &next) || cw_rtos_rd32(w, blk + 4, &len)) {
			cw_rtos_warn(w, "the common memory's block list breaks at 0x%08x", blk);
			return;
		}
		if ((len & MEM_BLOCK_ALLOCATED) && next)
			from_storage(w, l, fd, blk + 8);
		if (next && next <= blk) {
			cw_rtos_warn(w, "the common memory's block 0x%08x links back to 0x%08x", blk,
				     next);
			return;
		}
	}
}

static const char *const rtx_wait_names[] = {
	"Blocked", "WaitingDelay", "WaitingJoin", "WaitingThreadFlags", "WaitingEventFlags",
	"WaitingMutex", "WaitingSemaphore", "WaitingMemoryPool", "WaitingMessageGet",
	"WaitingMessagePut",
};

static const char *object_kind(uint8_t id)
{
	switch (id) {
	case RTX_ID_EVENT_FLAGS:	return "event flags";
	case RTX_ID_MUTEX:		return "mutex";
	case RTX_ID_SEMAPHORE:		return "semaphore";
	case RTX_ID_MEMORY_POOL:	return "memory pool";
	case RTX_ID_MESSAGE_QUEUE:	return "message queue";
	default:			return NULL;
	}
}

/*
 * The object a waiting thread is queued on: the first node up thread_prev
 * that is no thread (osRtxThreadListRoot), its list's head its thread_list.
 */
static void wait_object(struct cw_rtos_walk *w, const struct rtx_layout *l, struct cw_thread *th)
{
	uint32_t node = th->tcb, prev, nameptr;
	char name[MAX_NAME];
	const char *kind;
	unsigned int n;
	uint8_t id;

	for (n = 0; n < CW_RTOS_MAX_LIST_ITEMS; n++) {
		if (cw_rtos_rd32(w, node + l->thread_prev, &prev) || !prev || rd8(w, prev, &id))
			return;
		if (id != RTX_ID_THREAD)
			break;
		node = prev;
	}
	if (n == CW_RTOS_MAX_LIST_ITEMS)
		return;
	/* The thread_list of the object is where the list's first thread links back to. */
	kind = object_kind(id);
	if (!kind) {
		cw_rtos_warn(w, "thread \"%s\" waits on 0x%08x, which is no RTX object (id 0x%02x)",
			     th->name, prev, id);
		return;
	}
	name[0] = 0;
	if (!cw_rtos_rd32(w, prev + l->name, &nameptr) && nameptr)
		cw_rtos_read_name(w, nameptr, sizeof(name) - 1, name, sizeof(name));
	snprintf(th->waits_on, sizeof(th->waits_on), "%s \"%s\" at 0x%08x", kind, name, prev);
}

/* The state byte, checked against the lists the thread was found on. */
static void rtx_state(struct cw_rtos_walk *w, const struct rtx_layout *l, struct cw_thread *th,
		      unsigned int in)
{
	uint8_t state, sub;
	uint32_t flags;

	if (rd8(w, th->tcb + l->state, &state))
		return;
	sub = state >> 4;
	switch (state & RTX_STATE_MASK) {
	case RTX_INACTIVE:
		snprintf(th->kernel_state, sizeof(th->kernel_state), "Inactive");
		th->state = CW_TS_DEAD;
		break;
	case RTX_READY:
		snprintf(th->kernel_state, sizeof(th->kernel_state), "Ready");
		th->state = CW_TS_READY;
		if (!(in & IN_READY))
			cw_rtos_warn(w, "thread \"%s\" is ready but not in the ready list", th->name);
		break;
	case RTX_RUNNING:
		/* osRtxThreadSwitch chose it (run.next); the switch has not been made yet. */
		snprintf(th->kernel_state, sizeof(th->kernel_state), "Running");
		th->state = th->current ? CW_TS_RUNNING : CW_TS_READY;
		if (!(in & (IN_CURR | IN_NEXT)))
			cw_rtos_warn(w, "thread \"%s\" is running but neither run.curr nor run.next",
				     th->name);
		break;
	case RTX_BLOCKED:
		snprintf(th->kernel_state, sizeof(th->kernel_state), "%s",
			 sub < ARRAY_SIZE(rtx_wait_names) ? rtx_wait_names[sub] : "Blocked");
		/* osThreadSuspend: blocked with no reason, on the wait list. */
		th->state = !sub ? CW_TS_SUSPENDED : sub == 1 ? CW_TS_DELAYED : CW_TS_BLOCKED;
		if (!(in & (IN_DELAY | IN_WAIT)))
			cw_rtos_warn(w, "thread \"%s\" is blocked but in neither the delay nor the "
				     "wait list", th->name);
		if (sub == 2) {
			snprintf(th->waits_on, sizeof(th->waits_on), "a thread to join");
		} else if (sub == 3) {
			if (!cw_rtos_rd32(w, th->tcb + l->wait_flags, &flags))
				snprintf(th->waits_on, sizeof(th->waits_on),
					 "thread flags 0x%08x", flags);
		} else if (sub >= 4) {
			wait_object(w, l, th);
		}
		break;
	case RTX_TERMINATED:
		snprintf(th->kernel_state, sizeof(th->kernel_state), "Terminated");
		th->state = CW_TS_DEAD;
		break;
	default:
		snprintf(th->kernel_state, sizeof(th->kernel_state), "0x%02x", state);
	}
	if ((in & IN_READY) && (state & RTX_STATE_MASK) != RTX_READY)
		cw_rtos_warn(w, "thread \"%s\" is in the ready list in state 0x%02x", th->name,
			     state);
}

/*
 * What SVC_Handler, PendSV_Handler and SysTick_Handler (irq_armv6m.S,
 * irq_armv7m.S, irq_armv8mml.S) leave at thread->sp, from the lowest
 * address: s16-s31 when EXC_RETURN bit 4 is 0, r4-r11, the hardware frame.
 * EXC_RETURN's low byte is thread->stack_frame: the FP ports and v8-M store
 * it at each switch, the others keep osRtxThreadNew's 0xFD.
 */
static void rtx_context(struct cw_rtos_walk *w, const struct rtx_layout *l, struct cw_thread *th,
			uint32_t sp, int exited)
{
	uint8_t sf;
	uint32_t exc, callee;

	if (rd8(w, th->tcb + l->stack_frame, &sf) || !sf)
		sf = RTX_FRAME_DEFAULT;
	exc = 0xFFFFFF00u | sf;
	if (!cw_rtos_thread_return(w, exc)) {
		cw_thread_problem(th, "stack_frame 0x%02x does not return to a thread", sf);
		return;
	}
	/* svcRtxThreadExit keeps only the PSP: the svc's frame, no register saved below it. */
	if (exited) {
		if (cw_rtos_pop_frame(w, th, sp, exc) ||
		    !cw_image_is_code(w->t->img, th->regs.r[CW_PC])) {
			th->have_regs = 0;
			th->regs.valid = 0;
			cw_thread_problem(th, "no svc frame of its exit at sp 0x%08x", sp);
			return;
		}
		th->layout = "RTX5 exit";
		return;
	}
	callee = sp + (exc & 0x10 ? 0 : FP_CALLEE);
	if (cw_rtos_read_context(w, th, callee, callee + 32, exc)) {
		cw_thread_problem(th, "no saved context fits at sp 0x%08x", sp);
		return;
	}
	th->layout = exc & 0x10 ? "RTX5" : "RTX5 FP";
}

static void rtx_thread(struct cw_rtos_walk *w, const struct rtx_layout *l, struct cw_thread *th,
		       unsigned int in)
{
	uint32_t nameptr, size, sp, magic;
	uint8_t state;
	int8_t prio;

	if (!cw_rtos_rd32(w, th->tcb + l->name, &nameptr) && nameptr)
		cw_rtos_read_name(w, nameptr, sizeof(th->name) - 1, th->name, sizeof(th->name));
	if (!rd8(w, th->tcb + l->prio, (uint8_t *)&prio))
		th->priority = prio;
	rtx_state(w, l, th, in);
	if (!cw_rtos_rd32(w, th->tcb + l->stack_mem, &th->stack_lo) &&
	    !cw_rtos_rd32(w, th->tcb + l->stack_size, &size) && size && th->stack_lo &&
	    size < 0x10000000u && th->stack_lo + size > th->stack_lo) {
		th->have_stack = 1;
		th->stack_size = size;
		th->stack_hi = th->stack_lo + size;
	}
	/* osRtxThreadStackCheck's test at each switch: the magic word at the low end gone. */
	if (th->have_stack && !cw_rtos_rd32(w, th->stack_lo, &magic) && magic != RTX_STACK_MAGIC)
		th->overflow |= CW_OVF_WATERMARK;
	/* The running thread's sp is its last switch's: stale, read for the frame search. */
	if (cw_rtos_rd32(w, th->tcb + l->sp, &sp))
		cw_thread_problem(th, "control block at 0x%08x not in the dump", th->tcb);
	else if (sp)
		rtx_context(w, l, th, sp, !rd8(w, th->tcb + l->state, &state) &&
			    (state & RTX_STATE_MASK) == RTX_TERMINATED);
}

/* Where thread tcb's saved context puts its hardware frame, 0 if unreadable. */
static uint32_t saved_frame_at(const struct cw_rtos_walk *w, const struct rtx_layout *l,
			       uint32_t tcb)
{
	uint32_t sp;
	uint8_t sf;

	if (cw_rtos_rd32(w, tcb + l->sp, &sp) || !sp || rd8(w, tcb + l->stack_frame, &sf))
		return 0;
	return sp + 32 + (sf && !(sf & 0x10) ? FP_CALLEE : 0);
}

/*
 * osRtxThreadStackCheck's sp test failed on the thread's saved sp (at or
 * below its stack's start). Its magic-word test is not taken: that word is
 * in RAM a dump may have lost, the sp is in the control block.
 */
static int sp_check_failed(const struct cw_rtos_walk *w, const struct rtx_layout *l, uint32_t tcb)
{
	uint32_t sp, mem;

	return !cw_rtos_rd32(w, tcb + l->sp, &sp) && !cw_rtos_rd32(w, tcb + l->stack_mem, &mem) &&
	       sp && sp <= mem;
}

/*
 * The thread whose stack is live: run.curr, but for a fault inside the
 * port's switch. SVC_Context makes run.next current before it saves the
 * old thread, and with RTX_STACK_CHECK it stores the old thread's sp and
 * calls osRtxThreadStackCheck, then osRtxKernelErrorNotify on an overflow,
 * before its registers are saved: the PSP is still the old thread's, its
 * frame where its new sp says. Without the PSP, that thread is the one
 * whose saved sp is below its stack: every other passed the check as it
 * left.
 */
static uint32_t rtx_live_thread(struct cw_rtos_walk *w, const struct rtx_layout *l,
				const struct rtx_found *fd, uint32_t curr)
{
	const struct cw_regs *dr = &w->dump->regs;
	int have_psp = cw_reg_ok(dr, CW_PSP) && dr->r[CW_PSP];
	uint32_t live = 0;
	unsigned int i;

	if (!curr || (have_psp && saved_frame_at(w, l, curr) == dr->r[CW_PSP]))
		return curr;
	for (i = 0; i < fd->n; i++) {
		if (fd->tcb[i] == curr ||
		    (have_psp ? saved_frame_at(w, l, fd->tcb[i]) != dr->r[CW_PSP] :
				!sp_check_failed(w, l, fd->tcb[i])))
			continue;
		if (live)
			return curr;	/* two such threads: no telling */
		live = fd->tcb[i];
	}
	return live ? live : curr;
}

/*
 * The threads: run.curr and run.next, the ready list (through thread_next,
 * its first thread linking back to the ready object), the delay list and
 * the wait list (through delay_next: every blocked thread, a timeout or
 * not, is on one, and on its object's list too), the terminate list of
 * joinable threads, the idle and timer threads, then the control-block
 * storage. run.next is on no list while its switch is pending.
 */
static int rtx_find(struct cw_rtos_walk *w)
{
	const struct cw_image *img = w->t->img;
	struct rtx_found fd = { .n = 0 };
	struct rtx_layout l;
	uint32_t info, curr = 0, next = 0, t, live;
	unsigned int i;

	if (cw_image_lookup(img, "osRtxInfo", &info))
		return -1;
	w->out->layout_dwarf = rtx_layout(img, &l);
	if (cw_rtos_rd32(w, info + l.curr, &curr) || cw_rtos_rd32(w, info + l.next, &next)) {
		cw_rtos_warn(w, "osRtxInfo at 0x%08x not in the dump", info);
		return 0;
	}
	w->out->not_started = !curr;
	if (curr && !is_thread(w, &l, curr))
		cw_rtos_warn(w, "osRtxInfo.thread.run.curr 0x%08x is not a thread", curr);
	else if (curr)
		found(w, &fd, curr, IN_CURR);
	if (next && next != curr && is_thread(w, &l, next))
		found(w, &fd, next, IN_NEXT);
	walk_list(w, &l, &fd, "the ready list", info + l.ready + l.obj_list, info + l.ready,
		  l.thread_next, l.thread_prev, IN_READY);
	walk_list(w, &l, &fd, "the delay list", info + l.delay_list, 0, l.delay_next, l.delay_prev,
		  IN_DELAY);
	walk_list(w, &l, &fd, "the wait list", info + l.wait_list, 0, l.delay_next, l.delay_prev,
		  IN_WAIT);
	walk_list(w, &l, &fd, "the terminate list", info + l.terminate_list, 0, l.thread_next,
		  l.thread_prev, IN_TERMINATE);
	if (!cw_rtos_rd32(w, info + l.idle, &t) && t)
		from_storage(w, &l, &fd, t);
	if (!cw_rtos_rd32(w, info + l.timer_thread, &t) && t)
		from_storage(w, &l, &fd, t);
	walk_storage(w, &l, info, &fd);
	live = rtx_live_thread(w, &l, &fd, curr);
	for (i = 0; i < fd.n; i++) {
		struct cw_thread *th = cw_rtos_add_thread(w, fd.tcb[i], "RTX's lists");

		if (!th)
			break;
		th->current = fd.tcb[i] == live;
		rtx_thread(w, &l, th, fd.where[i]);
	}
	return 0;
}

const struct cw_rtos_ops cw_rtx5_ops = {
	.detect = "osRtxInfo",
	.fill_word = RTX_STACK_FILL, .stack_guard = 4, .find = rtx_find,
	.thread_entry = "osThreadEntry", .task_exit = "osThreadExit",
	.start_svc = (const char *const[]){ "osKernelStart", NULL },
};
