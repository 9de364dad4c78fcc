// SPDX-License-Identifier: GPL-2.0
/*
 * cw_rtos_model.c - the RTOS thread model, whatever the kernel: the thread
 * table, struct layouts with their documented defaults, a switched-out
 * thread's saved context (popped by the exception model), the running
 * thread's frames, each thread's unwind and stack use. Every read comes
 * through cw_mem_read: a dump of a crashed system may hold any garbage.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/cw_exc.h"
#include "decode/cw_thumb.h"
#include "rtos/cw_rtos_model.h"
#include "image/cw_symbolize.h"

#define MAX_STACK_SCAN	(1u << 20)	/* bytes of a stack read for its high-water mark */
#define WATERMARK_MIN	16	/* fill bytes FreeRTOS's overflow check wants at the low end */

/* ---- struct layouts: DWARF when present, documented defaults otherwise ---- */

/*
 * Each field's offset (and size) from DWARF, else its default. Returns 1 when
 * DWARF gave every field that is not optional, 0 when the defaults stand in.
 */
/*
 * A member under any of its names, '|'-separated: a kernel's compatibility
 * macros rename members (FreeRTOS.h turns pxContainer into pvContainer), so
 * the DWARF holds the name the macros gave, not the one in the source.
 */
static int member_any_name(const struct cw_image *img, const char *type, const char *names,
			   uint32_t *off, uint32_t *size)
{
	char path[64];
	size_t len;

	for (;;) {
		len = strcspn(names, "|");
		if (len < sizeof(path)) {
			memcpy(path, names, len);
			path[len] = 0;
			if (!cw_image_struct_member(img, type, path, off, size))
				return 0;
		}
		if (!names[len])
			return -1;
		names += len + 1;
	}
}

int cw_rtos_read_fields(const struct cw_image *img, const struct cw_rtos_field *f,
			unsigned int n)
{
	unsigned int i;
	int all = 1;

	for (i = 0; i < n; i++) {
		*f[i].off = f[i].def;
		if (f[i].size)
			*f[i].size = f[i].def_size;
		if (f[i].present)
			*f[i].present = !f[i].optional;
	}
	if (!cw_image_has_dwarf(img))
		return 0;
	for (i = 0; i < n; i++) {
		uint32_t off, size;

		if (!member_any_name(img, f[i].type, f[i].path, &off, &size)) {
			*f[i].off = off;
			if (f[i].size)
				*f[i].size = size;
			if (f[i].present)
				*f[i].present = 1;
		} else if (f[i].optional) {
			if (f[i].present)
				*f[i].present = 0;
		} else {
			all = 0;
		}
	}
	return all;
}

/* ---- the walk's state ---- */

void cw_rtos_warn(struct cw_rtos_walk *w, const char *fmt, ...)
{
	struct cw_rtos *r = w->out;
	va_list ap;

	va_start(ap, fmt);
	cw_add_linev(*r->warnings, sizeof(r->warnings[0]), ARRAY_SIZE(r->warnings),
		     &r->nr_warnings, fmt, ap);
	va_end(ap);
}

void cw_thread_problem(struct cw_thread *th, const char *fmt, ...)
{
	va_list ap;

	if (th->problem[0])
		return;		/* the first problem is the one that explains the rest */
	va_start(ap, fmt);
	vsnprintf(th->problem, sizeof(th->problem), fmt, ap);
	va_end(ap);
}

int cw_rtos_rd32(const struct cw_rtos_walk *w, uint32_t addr, uint32_t *v)
{
	return cw_mem_read32(w->t->mem, addr, v);
}

/* An EXC_RETURN to Thread mode on the stack the kernel runs its threads on. */
int cw_rtos_thread_return(const struct cw_rtos_walk *w, uint32_t exc_return)
{
	return cw_exc_return_to_thread(exc_return, !w->out->threads_on_msp);
}

/* A thread's name as bytes in the dump: printable, terminated, never longer than the field. */
void cw_rtos_read_name(const struct cw_rtos_walk *w, uint32_t addr, uint32_t len, char *out,
		       size_t outlen)
{
	uint8_t buf[64];
	uint32_t i;

	if (len > sizeof(buf))
		len = sizeof(buf);
	if (len >= outlen)
		len = (uint32_t)outlen - 1;
	if (cw_mem_read(w->t->mem, addr, buf, len)) {
		snprintf(out, outlen, "?");
		return;
	}
	for (i = 0; i < len && buf[i]; i++)
		out[i] = buf[i] >= 0x20 && buf[i] < 0x7f ? (char)buf[i] : '?';
	out[i] = 0;
}

struct cw_thread *cw_rtos_add_thread(struct cw_rtos_walk *w, uint32_t tcb, const char *where)
{
	struct cw_rtos *r = w->out;
	unsigned int i;

	for (i = 0; i < r->nr; i++)
		if (r->threads[i].tcb == tcb) {
			cw_rtos_warn(w, "thread 0x%08x is in %s and in an earlier list", tcb, where);
			return NULL;
		}
	if (r->nr >= CW_MAX_THREADS) {
		cw_rtos_warn(w, "more than %d threads: thread 0x%08x (%s) and later ones left out",
		     CW_MAX_THREADS, tcb, where);
		return NULL;
	}
	memset(&r->threads[r->nr], 0, sizeof(r->threads[0]));
	r->threads[r->nr].tcb = tcb;
	return &r->threads[r->nr++];
}

/* ---- saved contexts ---- */

/*
 * Pop the hardware frame the thread's switch-out left at base into its
 * registers, as the exception return would.
 */
int cw_rtos_pop_frame(struct cw_rtos_walk *w, struct cw_thread *th, uint32_t base,
		      uint32_t exc_return)
{
	struct cw_exc_return er;
	struct cw_exc_frame f;

	if (cw_exc_return_decode(exc_return, &er) || er.fnc_return) {
		cw_thread_problem(th, "saved EXC_RETURN 0x%08x is not valid", exc_return);
		return -1;
	}
	switch (cw_exc_frame_read(w->t->mem, base, &er, &f)) {
	case CW_EXC_OK:
		break;
	case CW_EXC_SIGNATURE:
		cw_thread_problem(th, "saved frame at 0x%08x has integrity signature 0x%08x",
			       base, f.signature);
		return -1;
	default:
		cw_thread_problem(th, "saved frame word at 0x%08x not in the dump", f.bad_addr);
		return -1;
	}
	if (!(f.words[CW_EXC_XPSR_WORD] & CW_XPSR_T)) {
		cw_thread_problem(th, "saved frame at 0x%08x has xPSR 0x%08x without the Thumb bit",
			       f.base, f.words[CW_EXC_XPSR_WORD]);
		return -1;
	}
	cw_exc_frame_pop(&f, &th->regs);
	/* Where the switch left the stack pointer the thread runs on. */
	cw_reg_set(&th->regs, er.psp ? CW_PSP : CW_MSP, base);
	th->saved_frame = base;
	th->exc_return = exc_return;
	th->have_regs = 1;
	return 0;
}

int cw_rtos_read_callee(struct cw_rtos_walk *w, struct cw_thread *th, uint32_t at)
{
	uint32_t v;
	unsigned int i;

	for (i = 0; i < 8; i++) {
		if (cw_rtos_rd32(w, at + 4 * i, &v)) {
			cw_thread_problem(th, "saved r%u at 0x%08x not in the dump", 4 + i, at + 4 * i);
			return -1;
		}
		cw_reg_set(&th->regs, (enum cw_reg)(CW_R4 + i), v);
	}
	return 0;
}

/*
 * A switched-out thread's r4-r11 saved at callee and its hardware frame at
 * frame; 0 when they make a context: the frame pops (a Thumb xPSR) to a pc in
 * code. Otherwise th keeps no registers, so another layout can be tried.
 */
int cw_rtos_read_context(struct cw_rtos_walk *w, struct cw_thread *th, uint32_t callee,
			 uint32_t frame, uint32_t exc_return)
{
	if (cw_rtos_read_callee(w, th, callee) || cw_rtos_pop_frame(w, th, frame, exc_return) ||
	    !cw_image_is_code(w->t->img, th->regs.r[CW_PC])) {
		th->have_regs = 0;
		th->regs.valid = 0;
		return -1;
	}
	return 0;
}

/*
 * A kernel whose saved context has a layout the dump does not record (an FPU
 * build option, or the FPU's state read at run time): the layout under which
 * more threads' contexts fit is taken for all, prefer on a tie; a thread's
 * context that fits neither says so. at[i] is where thread i's context is, 0
 * when it has none to read.
 */
void cw_rtos_contexts_by_majority(struct cw_rtos_walk *w, const uint32_t *at,
				  cw_rtos_try_context try_context, int prefer, const char *where)
{
	struct cw_rtos *r = w->out;
	unsigned int i, ok[2] = { 0, 0 };
	int layout;

	for (layout = 0; layout < 2; layout++)
		for (i = 0; i < r->nr; i++) {
			struct cw_thread tmp = r->threads[i];

			ok[layout] += at[i] && !try_context(w, &tmp, at[i], layout);
		}
	layout = ok[1] > ok[0] || (ok[1] == ok[0] && prefer);
	for (i = 0; i < r->nr; i++)
		if (at[i] && try_context(w, &r->threads[i], at[i], layout) &&
		    try_context(w, &r->threads[i], at[i], !layout))
			cw_thread_problem(&r->threads[i], "no saved context fits at %s 0x%08x", where,
					  at[i]);
}

/* ---- per thread: stack use, the backtrace ---- */

/* The fill byte expected at addr: the byte, or that byte of a little-endian word pattern. */
static uint8_t fill_at(const struct cw_rtos_walk *w, uint32_t addr)
{
	return w->fill_word ? (uint8_t)(w->fill_word >> 8 * (addr & 3)) : w->fill;
}

/*
 * Fill bytes left untouched at the low end of a descending stack, above its
 * guard word; a word pattern counts in whole words, as the kernel checks it.
 */
static void stack_use(struct cw_rtos_walk *w, struct cw_thread *th)
{
	uint32_t limit = th->stack_size ? th->stack_size : MAX_STACK_SCAN, n = 0, i;
	uint32_t lo = th->stack_lo + w->stack_guard;
	uint8_t buf[256];

	if (!th->have_stack || limit > MAX_STACK_SCAN || limit <= w->stack_guard)
		return;
	limit -= w->stack_guard;
	while (n < limit) {
		uint32_t chunk = limit - n < sizeof(buf) ? limit - n : sizeof(buf);

		if (cw_mem_read(w->t->mem, lo + n, buf, chunk))
			break;
		for (i = 0; i < chunk && buf[i] == fill_at(w, lo + n + i); i++)
			;
		n += i;
		if (i < chunk) {
			th->have_use = 1;
			break;
		}
	}
	if (w->fill_word || w->whole_words)
		n &= ~3u;
	th->stack_untouched = n;
	if (th->have_use && n < WATERMARK_MIN)
		th->overflow |= CW_OVF_WATERMARK;
}

static void unwind_thread(struct cw_rtos_walk *w, struct cw_thread *th);

/*
 * The fault frame ran in Handler mode: its EXC_RETURN says so, or the IPSR of
 * its xPSR (the dump's, or the stacked one of the frame a memory-only dump's
 * search found, whose EXC_RETURN no register holds).
 */
static int crash_in_handler(const struct cw_rtos_walk *w, const struct cw_frame *f)
{
	const struct cw_regs *dr = &w->dump->regs;

	if ((f->flags & CW_FRAME_EXCEPTION) && f->exc_return)
		return !cw_rtos_thread_return(w, f->exc_return);
	return w->dump->context != CW_CTX_HANDLER_ENTRY && cw_reg_ok(dr, CW_XPSR) &&
	       (dr->r[CW_XPSR] & CW_XPSR_IPSR);
}

/* The top of the thread's stack, exact or as far as it can reach; 0: not known. */
static uint32_t thread_top(const struct cw_thread *th)
{
	if (!th->have_stack)
		return 0;
	return th->stack_size ? th->stack_hi : th->stack_bound;
}

/*
 * The running thread's frames are the crash backtrace's: from the exception
 * that interrupted Thread mode on the process stack (the main stack, where
 * the kernel runs its threads there) if there is one (the fault, or the
 * context switch that was running), else from the fault frame. When the
 * crash backtrace does not get back to Thread mode but the context switch
 * had saved the thread (a fault in the switch itself, such as a stack
 * overflow hook), the saved context is the thread's state: it is used when
 * its frame is where the dump's PSP points, or when the dump has no PSP, or
 * the thread's frame is on the main stack, where no register says where the
 * switch left it.
 */
static void current_frames(struct cw_rtos_walk *w, struct cw_thread *th)
{
	const struct cw_backtrace *bt = w->bt;
	unsigned int i, from = cw_fault_frame(w->dump->context, bt), found = 0;
	const struct cw_regs *dr = &w->dump->regs;

	for (i = 0; i < bt->nr; i++)
		if ((bt->frames[i].flags & CW_FRAME_EXCEPTION) &&
		    cw_rtos_thread_return(w, bt->frames[i].exc_return)) {
			from = i;
			found = 1;
		}
	if (!found && th->have_regs && from < bt->nr && crash_in_handler(w, &bt->frames[from]) &&
	    (!cw_reg_ok(dr, CW_PSP) || !cw_reg_ok(&th->regs, CW_PSP) ||
	     dr->r[CW_PSP] == th->regs.r[CW_PSP])) {
		if (!cw_reg_ok(dr, CW_PSP))
			cw_thread_problem(th, "frames from its saved context: the dump has no PSP to "
				       "check it is current");
		unwind_thread(w, th);
		return;
	}
	th->bt.nr = 0;
	th->bt.stop = bt->stop;
	memcpy(th->bt.stop_detail, bt->stop_detail, sizeof(th->bt.stop_detail));
	/*
	 * A handler's chain that stops at the process stack it cannot read, with
	 * nothing saved (LiteOS-M saves a task only after choosing the next): the
	 * thread's frames are not in this dump, and the handler's are not its.
	 */
	if (!found && !th->have_regs && bt->stop == CW_STOP_NO_PSP && from < bt->nr &&
	    crash_in_handler(w, &bt->frames[from])) {
		th->layout = "crash";
		th->regs = (struct cw_regs){ 0 };
		cw_thread_problem(th, "the dump has no PSP and the kernel had not saved the "
			       "thread's context: its frames are not in the dump");
		return;
	}
	for (i = from; i < bt->nr; i++) {
		/* The crash's walk knew no thread: what lies above its stack is another's. */
		if (i > from && thread_top(th) && bt->frames[i].sp > thread_top(th)) {
			th->bt.stop = CW_STOP_STACK_END;
			snprintf(th->bt.stop_detail, sizeof(th->bt.stop_detail),
				 "caller sp 0x%08x above the thread's stack (top 0x%08x)",
				 bt->frames[i].sp, thread_top(th));
			break;
		}
		th->bt.frames[th->bt.nr++] = bt->frames[i];
	}
	/* What the switch saved last time is stale: the crash has the live registers. */
	th->layout = "crash";
	th->have_psplim = 0;
	th->exc_return = 0;
	th->regs = (struct cw_regs){ 0 };
	/* A chain that never got back to Thread mode holds no register of the thread's. */
	th->have_regs = from < bt->nr && (found || !crash_in_handler(w, &bt->frames[from]));
	if (th->have_regs) {
		cw_reg_set(&th->regs, CW_PC, bt->frames[from].pc);
		cw_reg_set(&th->regs, CW_SP, bt->frames[from].sp);
		th->exc_return = bt->frames[from].exc_return;
	}
	th->problem[0] = 0;
}

/* Every unwinder is kept inside the thread's stack and stops where the kernel started it. */
static void unwind_thread(struct cw_rtos_walk *w, struct cw_thread *th)
{
	struct cw_bounds b = w->ends;
	struct cw_target t = *w->t;

	if (th->have_stack) {
		b.stack_lo = th->stack_lo;
		b.stack_hi = thread_top(th);
	}
	t.bounds = &b;
	cw_unwind(&t, &th->regs, CW_CTX_PRE_EXCEPTION, w->how, &th->bt);
}

/*
 * A kernel that does not paint its stacks (Zephyr without CONFIG_INIT_STACKS,
 * its default) leaves no fill at any thread's low end, where a painted kernel
 * leaves it at every thread's but an overflowed one's. With no thread
 * showing WATERMARK_MIN fill bytes there, the watermark says nothing: the
 * stack use is unknown, not the whole stack.
 */
void cw_rtos_check_painted(struct cw_rtos_walk *w)
{
	struct cw_rtos *r = w->out;
	unsigned int i, judged = 0;

	for (i = 0; i < r->nr; i++) {
		if (!r->threads[i].have_use)
			continue;
		if (r->threads[i].stack_untouched >= WATERMARK_MIN)
			return;
		judged++;
	}
	if (judged < 2)
		return;
	r->unpainted = 1;
	for (i = 0; i < r->nr; i++) {
		r->threads[i].have_use = 0;
		r->threads[i].stack_untouched = 0;
		r->threads[i].overflow &= ~CW_OVF_WATERMARK;
	}
}

/*
 * Does the instruction the running thread faulted at move its sp below its
 * stack's start (a push, a sub sp)? A stack limit (v8-M PSPLIM, which a
 * kernel sets to that start) stops it there with its frame stacked: the
 * overflow is then plain though the dump holds no fault status and its
 * writer gave no reason.
 */
static int faults_below_start(const struct cw_rtos_walk *w, const struct cw_thread *th)
{
	const struct cw_frame *f = &th->bt.frames[0];
	uint16_t hw[2] = { 0, 0 };

	if (!th->bt.nr || !th->have_stack || (f->flags & (CW_FRAME_LOST | CW_FRAME_RETURN_ADDR)) ||
	    !cw_image_is_code(w->t->img, f->pc) || cw_mem_read(w->t->mem, f->pc, hw, 2) ||
	    (cw_thumb_is_32bit(hw[0]) && cw_mem_read(w->t->mem, f->pc + 2, &hw[1], 2)))
		return 0;
	return f->sp >= th->stack_lo &&
	       f->sp - th->stack_lo < cw_thumb_sp_decrement(hw[0], hw[1]);
}

void cw_rtos_finish_thread(struct cw_rtos_walk *w, struct cw_thread *th)
{
	uint32_t sp;

	if (th->current) {
		th->state = CW_TS_RUNNING;
		current_frames(w, th);
		if (w->fault && (w->fault->cfsr & CW_CFSR_STKOF))
			th->overflow |= CW_OVF_PSPLIM;
		else if (faults_below_start(w, th))
			th->overflow |= CW_OVF_STACK_LIMIT;
	} else if (th->have_regs) {
		unwind_thread(w, th);
	}
	cw_symbolize(w->t->img, &th->bt);
	stack_use(w, th);
	if (!th->have_regs || !th->have_stack)
		return;
	sp = th->regs.r[CW_SP];
	if (sp < th->stack_lo || (th->stack_size && sp > th->stack_hi))
		th->overflow |= CW_OVF_SP_OUTSIDE;
	if (th->have_psplim && sp < th->psplim)
		th->overflow |= CW_OVF_PSPLIM;
}
