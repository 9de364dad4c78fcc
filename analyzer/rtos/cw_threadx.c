// SPDX-License-Identifier: GPL-2.0
/*
 * cw_threadx.c - Eclipse ThreadX for the RTOS model: the created-thread
 * list, the TX_THREAD layout and the context its Cortex-M ports save.
 */
#include <stdio.h>
#include <string.h>

#include "decode/cw_exc.h"
#include "rtos/cw_rtos_model.h"

#define THREADX_FILL	0xEF		/* TX_STACK_FILL, tx_api.h */
#define TX_THREAD_ID	0x54485244u	/* "THRD": tx_thread_id of a created thread */
#define TX_INITIALIZE_IN_PROGRESS	0xF0F0F0F0u	/* _tx_thread_system_state before the
							 * scheduler (and ..._ALMOST_DONE) */
#define MAX_NAME	32
#define FP_CALLEE_WORDS	16		/* s16-s31 */

/*
 * What the Cortex-M ports (cortex_m0..m7, gnu/ac6/iar tx_thread_schedule)
 * store at tx_thread_stack_ptr when PendSV switches a thread out, from the
 * lowest address: EXC_RETURN, s16-s31 when its bit 4 is 0 (an extended frame:
 * the thread had used the FPU), r4-r11, then the hardware frame. A thread that
 * never ran has the same shape from _tx_thread_stack_build: EXC_RETURN
 * 0xFFFFFFFD, zeroes, and a frame whose pc is _tx_thread_shell_entry.
 */
static void tx_context(struct cw_rtos_walk *w, struct cw_thread *th, uint32_t sp)
{
	uint32_t exc, r4;

	if (cw_rtos_rd32(w, sp, &exc)) {
		cw_thread_problem(th, "saved context at 0x%08x not in the dump", sp);
		return;
	}
	if (!cw_exc_return_to_thread_psp(exc)) {
		cw_thread_problem(th, "saved EXC_RETURN 0x%08x at 0x%08x does not return to a "
				  "thread", exc, sp);
		return;
	}
	r4 = sp + 4 + (cw_exc_return_fp_frame(exc) ? 4 * FP_CALLEE_WORDS : 0);
	if (cw_rtos_read_callee(w, th, r4) || cw_rtos_pop_frame(w, th, r4 + 32, exc)) {
		th->have_regs = 0;
		th->regs.valid = 0;
		return;
	}
	th->layout = "cortex-m PendSV";
}

struct tx_layout {
	uint32_t stack_ptr, stack_start, stack_end, name, prio, state, control, created_next;
	uint32_t created_prev, timer_head;
	int have_timer;
};

/*
 * Defaults: TX_THREAD of ThreadX 6.x on Cortex-M (tx_api.h) with the port's
 * TX_THREAD_EXTENSION_0..2 empty, as gcc builds it. The first ten fields are
 * fixed by the ports' assembly; the rest move with the extensions, so DWARF
 * names them when it is there. TX_THREAD_USER_EXTENSION comes last and moves
 * nothing read here.
 */
static int tx_layout(const struct cw_image *img, struct tx_layout *l)
{
	const struct cw_rtos_field f[] = {
		{ "TX_THREAD_STRUCT", "tx_thread_stack_ptr", &l->stack_ptr, 8, NULL, 0, 0, NULL },
		{ "TX_THREAD_STRUCT", "tx_thread_stack_start", &l->stack_start, 12, NULL, 0, 0, NULL },
		{ "TX_THREAD_STRUCT", "tx_thread_stack_end", &l->stack_end, 16, NULL, 0, 0, NULL },
		{ "TX_THREAD_STRUCT", "tx_thread_name", &l->name, 40, NULL, 0, 0, NULL },
		{ "TX_THREAD_STRUCT", "tx_thread_priority", &l->prio, 44, NULL, 0, 0, NULL },
		{ "TX_THREAD_STRUCT", "tx_thread_state", &l->state, 48, NULL, 0, 0, NULL },
		{ "TX_THREAD_STRUCT", "tx_thread_suspend_control_block", &l->control, 108, NULL, 0,
		  0, NULL },
		{ "TX_THREAD_STRUCT", "tx_thread_created_next", &l->created_next, 136, NULL, 0, 0,
		  NULL },
		{ "TX_THREAD_STRUCT", "tx_thread_created_previous", &l->created_prev, 140, NULL, 0,
		  0, NULL },
		{ "TX_THREAD_STRUCT", "tx_thread_timer.tx_timer_internal_list_head", &l->timer_head,
		  100, NULL, 0, 1, &l->have_timer },
	};

	return cw_rtos_read_fields(img, f, ARRAY_SIZE(f));
}

/* A TCB: word aligned, in the dump, and stamped by tx_thread_create. */
static int tx_is_thread(const struct cw_rtos_walk *w, uint32_t tcb)
{
	uint32_t id;

	return !(tcb & 3) && !cw_rtos_rd32(w, tcb, &id) && id == TX_THREAD_ID;
}

/*
 * Without DWARF, an extension (TX_THREAD_EXTENSION_1/2, a compiler's TLS
 * pointer) moves the created links: where the default does not link the
 * first thread to threads whose links point back, the first offset that
 * does is taken.
 */
static int tx_links_at(const struct cw_rtos_walk *w, uint32_t tcb, uint32_t next_off)
{
	uint32_t next, prev, back;

	return !cw_rtos_rd32(w, tcb + next_off, &next) && tx_is_thread(w, next) &&
	       !cw_rtos_rd32(w, tcb + next_off + 4, &prev) && tx_is_thread(w, prev) &&
	       !cw_rtos_rd32(w, next + next_off + 4, &back) && back == tcb;
}

static void tx_find_links(struct cw_rtos_walk *w, struct tx_layout *l, uint32_t head)
{
	uint32_t off;

	if (tx_links_at(w, head, l->created_next))
		return;
	for (off = 64; off < 256; off += 4)
		if (tx_links_at(w, head, off)) {
			cw_rtos_warn(w, "no DWARF: the created list is at +%u in TX_THREAD, not +%u "
				     "(a port extension)", off, l->created_next);
			l->created_next = off;
			l->created_prev = off + 4;
			return;
		}
}

/* The kernel's name of a thread state, and what the wait is on (tx_api.h). */
static const struct {
	const char *name;
	enum cw_thread_state state;
	const char *object;	/* what tx_thread_suspend_control_block points to, or NULL */
	uint32_t id;		/* that object's tx_*_id */
} tx_states[] = {
	{ "TX_READY", CW_TS_READY, NULL, 0 },
	{ "TX_COMPLETED", CW_TS_DEAD, NULL, 0 },	/* its entry function returned */
	{ "TX_TERMINATED", CW_TS_DEAD, NULL, 0 },
	{ "TX_SUSPENDED", CW_TS_SUSPENDED, NULL, 0 },
	{ "TX_SLEEP", CW_TS_DELAYED, NULL, 0 },
	{ "TX_QUEUE_SUSP", CW_TS_BLOCKED, "queue", 0x51554555u },
	{ "TX_SEMAPHORE_SUSP", CW_TS_BLOCKED, "semaphore", 0x53454D41u },
	{ "TX_EVENT_FLAG", CW_TS_BLOCKED, "event flags", 0x4456444Eu },
	{ "TX_BLOCK_MEMORY", CW_TS_BLOCKED, "block pool", 0x424C4F43u },
	{ "TX_BYTE_MEMORY", CW_TS_BLOCKED, "byte pool", 0x42595445u },
	{ "TX_IO_DRIVER", CW_TS_BLOCKED, NULL, 0 },
	{ "TX_FILE", CW_TS_BLOCKED, NULL, 0 },	/* FileX */
	{ "TX_TCP_IP", CW_TS_BLOCKED, NULL, 0 },	/* NetX */
	{ "TX_MUTEX_SUSP", CW_TS_BLOCKED, "mutex", 0x4D555445u },
	/* tx_thread_priority_change() suspends it for a moment: runnable. */
	{ "TX_PRIORITY_CHANGE", CW_TS_READY, NULL, 0 },
};

/* Every ThreadX object starts with its id and its name pointer. */
static void tx_wait_object(struct cw_rtos_walk *w, struct cw_thread *th, const char *what,
			   uint32_t want_id, uint32_t obj)
{
	uint32_t id, name;
	char s[MAX_NAME + 1] = "";

	if (!obj) {
		snprintf(th->waits_on, sizeof(th->waits_on), "%s (none recorded)", what);
		return;
	}
	if (cw_rtos_rd32(w, obj, &id) || cw_rtos_rd32(w, obj + 4, &name)) {
		snprintf(th->waits_on, sizeof(th->waits_on), "%s at 0x%08x (not in the dump)",
			 what, obj);
		return;
	}
	if (want_id && id != want_id) {
		snprintf(th->waits_on, sizeof(th->waits_on), "%s at 0x%08x (id 0x%08x is not "
			 "one)", what, obj, id);
		return;
	}
	if (name)
		cw_rtos_read_name(w, name, MAX_NAME, s, sizeof(s));
	snprintf(th->waits_on, sizeof(th->waits_on), "%s \"%s\" at 0x%08x", what, s, obj);
}

static void tx_state(struct cw_rtos_walk *w, struct cw_thread *th, const struct tx_layout *l)
{
	uint32_t st, obj = 0;

	if (cw_rtos_rd32(w, th->tcb + l->state, &st))
		return;
	if (st >= ARRAY_SIZE(tx_states)) {
		snprintf(th->kernel_state, sizeof(th->kernel_state), "%u", st);
		return;
	}
	th->state = tx_states[st].state;
	snprintf(th->kernel_state, sizeof(th->kernel_state), "%s", tx_states[st].name);
	if (th->state != CW_TS_BLOCKED)
		return;
	if (cw_rtos_rd32(w, th->tcb + l->control, &obj))
		obj = 0;
	if (tx_states[st].object)
		tx_wait_object(w, th, tx_states[st].object, tx_states[st].id, obj);
	else if (obj)
		snprintf(th->waits_on, sizeof(th->waits_on), "%s at 0x%08x",
			 tx_states[st].name + 3, obj);
}

/*
 * tx_thread_stack_end is the stack's last byte (start + size - 1, the size
 * less a word with TX_ENABLE_STACK_CHECKING).
 */
static void tx_thread(struct cw_rtos_walk *w, struct cw_thread *th, const struct tx_layout *l)
{
	uint32_t name, v, end, sp;

	if (!cw_rtos_rd32(w, th->tcb + l->name, &name) && name)
		cw_rtos_read_name(w, name, MAX_NAME, th->name, sizeof(th->name));
	if (!cw_rtos_rd32(w, th->tcb + l->prio, &v))
		th->priority = (int)v;
	tx_state(w, th, l);
	if (!cw_rtos_rd32(w, th->tcb + l->stack_start, &th->stack_lo) &&
	    !cw_rtos_rd32(w, th->tcb + l->stack_end, &end) && end > th->stack_lo &&
	    end - th->stack_lo < 0x10000000u) {
		th->have_stack = 1;
		th->stack_hi = end + 1;
		th->stack_size = th->stack_hi - th->stack_lo;
	}
	if (cw_rtos_rd32(w, th->tcb + l->stack_ptr, &sp)) {
		cw_thread_problem(th, "TCB at 0x%08x not in the dump", th->tcb);
		return;
	}
	if (th->have_stack && (sp < th->stack_lo || sp >= th->stack_hi))
		th->overflow |= CW_OVF_SP_OUTSIDE;
	tx_context(w, th, sp);
}

/*
 * _tx_thread_created_ptr heads a circular list, doubly linked through
 * tx_thread_created_next/_previous, of _tx_thread_created_count threads,
 * the timer thread among them; terminated and completed threads stay in
 * it until tx_thread_delete. ThreadX has no idle thread: with nothing
 * ready, PendSV waits with _tx_thread_current_ptr NULL.
 */
static int tx_find(struct cw_rtos_walk *w)
{
	const struct cw_image *img = w->t->img;
	uint32_t head_sym, cur_sym, cur = 0, head, tcb, count = 0, addr, v, next, back;
	uint32_t seen[CW_MAX_THREADS + 1];
	int have_count = 0, cur_found = 0;
	struct tx_layout l;
	struct cw_thread *th;
	unsigned int n = 0, i;

	if (cw_image_lookup(img, "_tx_thread_created_ptr", &head_sym) ||
	    cw_image_lookup(img, "_tx_thread_current_ptr", &cur_sym))
		return -1;
	w->out->layout_dwarf = tx_layout(img, &l);
	if (cw_rtos_rd32(w, cur_sym, &cur))
		cw_rtos_warn(w, "_tx_thread_current_ptr at 0x%08x not in the dump", cur_sym);
	if (!cw_image_lookup(img, "_tx_thread_system_state", &addr) && !cw_rtos_rd32(w, addr, &v))
		w->out->not_started = v >= TX_INITIALIZE_IN_PROGRESS;
	if (!cw_image_lookup(img, "_tx_thread_created_count", &addr) &&
	    !cw_rtos_rd32(w, addr, &count))
		have_count = 1;
	if (cw_rtos_rd32(w, head_sym, &head)) {
		cw_rtos_warn(w, "_tx_thread_created_ptr at 0x%08x not in the dump", head_sym);
		return 0;
	}
	if (head && !tx_is_thread(w, head)) {
		cw_rtos_warn(w, "_tx_thread_created_ptr 0x%08x is not a thread (no TX_THREAD_ID)",
			     head);
		return 0;
	}
	if (head && !w->out->layout_dwarf)
		tx_find_links(w, &l, head);
	for (tcb = head; tcb; tcb = next) {
		seen[n++] = tcb;
		th = cw_rtos_add_thread(w, tcb, "_tx_thread_created_ptr");
		if (!th)
			break;
		th->current = tcb == cur;
		cur_found |= th->current;
		tx_thread(w, th, &l);
		if (cw_rtos_rd32(w, tcb + l.created_next, &next)) {
			cw_rtos_warn(w, "thread 0x%08x: tx_thread_created_next not in the dump", tcb);
			break;
		}
		if (next == head)
			break;
		if (!tx_is_thread(w, next)) {
			cw_rtos_warn(w, "created list broken after thread 0x%08x: 0x%08x is not a "
				     "thread", tcb, next);
			break;
		}
		if (cw_rtos_rd32(w, next + l.created_prev, &back) || back != tcb)
			cw_rtos_warn(w, "created list: thread 0x%08x links back to 0x%08x, not "
				     "0x%08x", next, back, tcb);
		for (i = 0; i < n; i++)
			if (seen[i] == next)
				break;
		if (i < n) {
			cw_rtos_warn(w, "created list is cyclic at 0x%08x without coming back to "
				     "its head", next);
			break;
		}
		if (n > CW_MAX_THREADS) {
			cw_rtos_warn(w, "created list longer than %d: stopped at 0x%08x",
				     CW_MAX_THREADS, next);
			break;
		}
	}
	if (have_count && count != w->out->nr)
		cw_rtos_warn(w, "_tx_thread_created_count says %u thread%s, the created list holds %u",
			     count, cw_plural(count), w->out->nr);
	if (cur && !cur_found)
		cw_rtos_warn(w, "_tx_thread_current_ptr 0x%08x is not in the created list", cur);
	return 0;
}

const struct cw_rtos_ops cw_threadx_ops = {
	.detect = "_tx_thread_current_ptr",
	.fill = THREADX_FILL, .find = tx_find, .thread_entry = "_tx_thread_shell_entry",
};
