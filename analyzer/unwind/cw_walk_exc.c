// SPDX-License-Identifier: GPL-2.0
/*
 * cw_walk_exc.c - the walk through hardware exception frames: EXC_RETURN
 * and FNC_RETURN popped with the exception model (decode/cw_exc.c), a frame
 * never stacked rebuilt from the stack, a missing stack pointer's frame
 * searched for (unwind/cw_search.c).
 */
#include <stdlib.h>

#include "decode/cw_exc.h"
#include "decode/cw_fault.h"
#include "decode/cw_thumb.h"
#include "unwind/cw_walk.h"

/*
 * Was the innermost exception's frame never written? The fault status says
 * stacking failed (MSTKERR, STKERR, STKOF) and what sits where the frame should
 * be has no Thumb bit in its xPSR, which every stacked xPSR has.
 */
int cw_stacking_failed(const struct cw_mem *mem)
{
	uint32_t cfsr;

	return !cw_mem_read32(mem, CW_SCB_CFSR, &cfsr) && (cfsr & CW_CFSR_STACKING);
}

static int frame_lost(const struct cw_walk *w, const uint32_t *f)
{
	return w->bt->nr == 1 && cw_stacking_failed(w->t->mem) && !(f[CW_EXC_XPSR_WORD] & CW_XPSR_T);
}

/*
 * Words where an exception frame should be that are all zero: nothing was
 * stacked there (a stack wiped, or never written), and the chain ends, as
 * at a return address of 0 (unless the fault status says the stacking
 * failed: frame_lost). A real frame holds a return address or a pc, and a
 * fault at pc 0 keeps its caller in lr.
 */
static int frame_blank(const struct cw_exc_frame *f)
{
	unsigned int i;

	for (i = 0; i < CW_EXC_BASIC_WORDS && !f->words[i]; i++)
		;
	return i == CW_EXC_BASIC_WORDS;
}

/*
 * A stack overflow destroys the state it happened in: the pc, lr and r0-r3
 * of the interrupted code never reached memory. The stack above is intact,
 * so the nearest return address that follows a BL names the function that
 * was running (its target), and the walk goes on from that return address.
 */
int cw_walk_lost_frame(struct cw_walk *w, uint32_t exc_return, uint32_t base,
		       unsigned int flags)
{
	uint32_t a, v, target = 0;
	enum cw_call_kind kind = CW_CALL_NONE;
	unsigned int i;

	for (i = 0, a = base; i < SCAN_WORDS && cw_walk_below_top(w, a + 4); i++, a += 4) {
		if (cw_mem_read32(w->t->mem, a, &v))
			break;
		if (!(v & 1) || !cw_walk_is_return(w, v))
			continue;
		kind = cw_thumb_call_before(w->t->mem, v, &target);
		if (kind != CW_CALL_NONE)
			break;
	}
	if (kind == CW_CALL_NONE)
		return cw_walk_stop(w, CW_STOP_NO_RETURN,
				    "exception frame at 0x%08x never stacked, no return address above it",
				    base);
	if (w->bt->nr + 2 > CW_MAX_FRAMES)
		return cw_walk_stop(w, CW_STOP_DEPTH, "more than %d frames", CW_MAX_FRAMES);
	/* Only the stack survived: no register of the lost frame is known. */
	w->regs.valid &= ~((1u << CW_R0) | (1u << CW_R1) | (1u << CW_R2) | (1u << CW_R3) |
			   (1u << CW_R12) | 0xFF0u | (1u << CW_LR));
	cw_walk_push(w, kind == CW_CALL_BL ? target : 0, base, CW_M_SCAN, CONF_LOST,
		     flags | CW_FRAME_LOST);
	w->bt->frames[w->bt->nr - 1].exc_return = exc_return;
	cw_walk_push(w, v & ~1u, a + 4, CW_M_SCAN, CONF_SCAN_BL,
		     CW_FRAME_RETURN_ADDR | (kind == CW_CALL_BL ? 0 : CW_FRAME_INDIRECT));
	cw_reg_set(&w->regs, CW_PC, v & ~1u);
	cw_reg_set(&w->regs, CW_SP, a + 4);
	w->lr_live = 0;
	return 0;
}

/* A stack pointer of one security state (see cw_exc_banked_sp), or a stop. */
static int banked_sp(struct cw_walk *w, int secure, int psp, uint32_t *sp)
{
	enum cw_reg r = cw_exc_banked_sp(w->handler_state, secure, psp);

	if (!cw_reg_ok(&w->regs, r))
		return cw_walk_stop(w, CW_STOP_NO_PSP, "the %s %s stack pointer is not in the dump",
				    secure ? "Secure" : "Non-secure", psp ? "process" : "main");
	*sp = w->regs.r[r];
	return 0;
}

/*
 * Is the frame the walk is leaving the PendSV handler's (exception 14), where
 * an RTOS switches threads? The outgoing thread's live frame is then the one
 * the switch saves, which the RTOS's objects point at; its stack's dead part
 * holds earlier switch frames of the very same kind.
 */
static int in_context_switch(const struct cw_walk *w)
{
	const struct cw_frame *f = &w->bt->frames[w->bt->nr - 1];
	const struct cw_symbol *fn;
	int ok;
	uint32_t pendsv = cw_image_vector(w->t->img, 14, &ok);

	fn = cw_image_func(w->t->img, cw_code_addr(f->pc, !!(f->flags & CW_FRAME_RETURN_ADDR)));
	return ok && fn && fn->addr == (pendsv & ~1u);
}

/*
 * Is the walk still at the fault handler's first instruction (its vector),
 * where r0-r3 and r12 are the ones the hardware stacked?
 */
static int at_handler_vector(const struct cw_walk *w)
{
	uint32_t vec;
	int ok;

	if (!w->fault_entry || w->exceptions || w->bt->nr != 1 || !cw_reg_ok(&w->regs, CW_XPSR))
		return 0;
	vec = cw_image_vector(w->t->img, w->regs.r[CW_XPSR] & CW_XPSR_IPSR, &ok);
	return ok && (vec & ~1u) == w->bt->frames[0].pc;
}

/*
 * The dump lacks the stack pointer r that holds the frame EXC_RETURN er
 * names: look for the frame in RAM (unwind/cw_search.c). The first exception the
 * walk meets from a fault handler's entry is the fault's own.
 */
static int searched_frame(struct cw_walk *w, enum cw_reg r, const struct cw_exc_return *er,
			  struct cw_exc_frame *f)
{
	struct cw_walk_trial ctx = { w->t, w->how };
	struct cw_search_req req = {
		.reg = r, .process = er->psp, .er = er, .trial = w->trial, .ctx = &ctx,
		.fault_frame = w->fault_entry && !w->exceptions, .innermost = !w->exceptions,
		.entry = at_handler_vector(w) ? &w->regs : NULL,
	};
	struct cw_backtrace *scratch;
	struct cw_search earlier;
	int err;

	if (w->t->hints && w->t->hints->rtos && r == CW_PSP && in_context_switch(w))
		return cw_walk_stop(w, CW_STOP_NO_PSP, "EXC_RETURN 0x%08x: the thread the context switch "
				    "saves, PSP not in the dump: its saved context is the RTOS's",
				    er->value);
	if (!w->t->hints && r == CW_PSP)
		return cw_walk_stop(w, CW_STOP_NO_PSP, "EXC_RETURN 0x%08x: frame on the process stack, PSP "
				    "not in the dump", er->value);
	if (!w->t->hints)
		return cw_walk_stop(w, CW_STOP_NO_PSP, "the %s %s stack pointer is not in the dump",
				    er->secure ? "Secure" : "Non-secure", er->psp ? "process" : "main");
	scratch = calloc(1, sizeof(*scratch));
	if (!scratch)
		return cw_walk_stop(w, CW_STOP_NO_PSP, "out of memory for the frame search");
	earlier = w->bt->search;
	err = cw_search_frame(w->t, &req, f, &w->bt->search, scratch);
	free(scratch);
	if (err)
		return cw_walk_stop(w, CW_STOP_NO_PSP, "EXC_RETURN 0x%08x: %s not in the dump, and none of "
				    "%u candidate frame%s in RAM yields a complete chain", er->value,
				    cw_reg_name(r), w->bt->search.candidates,
				    cw_plural(w->bt->search.candidates));
	/*
	 * The frames above rest on an earlier search too: none is surer than
	 * it, and the report keeps the less certain of the two.
	 */
	if (w->conf_cap && w->conf_cap < w->bt->search.confidence)
		w->bt->search = earlier;
	else
		w->conf_cap = w->bt->search.confidence;
	return 0;
}

/*
 * FNC_RETURN: this code is Non-secure and was called from Secure code with
 * BLXNS, which pushed the return address and part of xPSR on the Secure stack
 * it ran on (PSP_S when CONTROL_S.SPSEL, else MSP_S). Take them and go on in
 * the Secure caller.
 */
static int walk_fnc_return(struct cw_walk *w, uint32_t fnc_return)
{
	int spsel = w->handler_state == 1 && cw_reg_ok(&w->regs, CW_CONTROL) &&
		    (w->regs.r[CW_CONTROL] & CW_CONTROL_SPSEL);
	struct cw_exc_frame f;
	uint32_t sp, ret;

	if (banked_sp(w, 1, spsel, &sp))
		return -1;
	if (cw_exc_fnc_frame_read(w->t->mem, sp, &f))
		return cw_walk_stop(w, CW_STOP_READ, "exception frame word at 0x%08x not in the dump",
				    f.bad_addr);
	ret = f.words[CW_FNC_RET_WORD];
	if (!cw_walk_is_return(w, ret | 1))
		return cw_walk_stop(w, CW_STOP_BAD_PC, "FNC_RETURN: return address 0x%08x at 0x%08x "
				    "on the Secure stack is not code", ret, sp);
	if (w->bt->nr >= CW_MAX_FRAMES)
		return cw_walk_stop(w, CW_STOP_DEPTH, "more than %d frames", CW_MAX_FRAMES);
	cw_reg_set(&w->regs, CW_PC, ret & ~1u);
	cw_reg_set(&w->regs, CW_SP, sp + f.size);
	w->regs.valid &= ~(1u << CW_LR);
	w->lr_live = 0;
	cw_walk_push(w, ret & ~1u, sp + f.size, CW_M_EXCEPTION, CONF_EXCEPTION,
		     CW_FRAME_FNC_RETURN | CW_FRAME_RETURN_ADDR);
	w->bt->frames[w->bt->nr - 1].exc_return = fnc_return;
	return 0;
}

/*
 * Only SVCall returns to the frame the svc that started the first task
 * stacked, and only while its handler starts that task. Another handler
 * that reaches it read a stale EXC_RETURN: on ARM_CM0, whose PendSV keeps
 * its own in a register, the one the start's vPortSVCHandler_C() pushed,
 * which is still on the main stack. Returns the start function's name.
 */
static const char *stale_start_return(const struct cw_walk *w, const struct cw_exc_frame *f)
{
	const struct cw_bounds *b = w->t->bounds;
	unsigned int i;

	if (!cw_reg_ok(&w->regs, CW_XPSR) ||
	    (w->regs.r[CW_XPSR] & CW_XPSR_IPSR) == CW_EXC_SVCALL)
		return NULL;
	for (i = 0; b && i < b->nr_start_svc; i++)
		if (b->start_svc[i] == (f->words[CW_EXC_PC_WORD] & ~1u))
			return b->start_svc_name[i];
	return NULL;
}

/* The interrupted context: pop the frame the hardware pushed at exception entry. */
int cw_walk_exception(struct cw_walk *w, uint32_t exc_return, uint32_t sp_at_entry)
{
	struct cw_exc_return er;
	struct cw_exc_frame f;
	unsigned int flags = 0;
	enum cw_reg missing;
	const char *start;
	uint32_t base;

	if (exc_return == CW_LR_RESET_VALUE)
		return cw_walk_stop(w, CW_STOP_OUTERMOST, "lr holds its reset value 0x%08x", exc_return);
	if (cw_exc_return_decode(exc_return, &er))
		return cw_walk_stop(w, CW_STOP_BAD_PC, "0x%08x is not a valid EXC_RETURN", exc_return);
	if (er.fnc_return)
		return walk_fnc_return(w, exc_return);
	if (w->handler_state < 0 && er.v8m)
		w->handler_state = er.es;
	base = sp_at_entry;
	missing = CW_NR_REGS;
	if (er.v8m && w->handler_state >= 0 && er.secure != w->handler_state) {
		/* Taken from the other security state: its frame is on that state's stack. */
		missing = cw_exc_banked_sp(w->handler_state, er.secure, er.psp);
		if (cw_reg_ok(&w->regs, missing) && banked_sp(w, er.secure, er.psp, &base))
			return -1;
	} else if (er.psp) {
		if (w->psp_used)
			return cw_walk_stop(w, CW_STOP_NO_PSP, "EXC_RETURN 0x%08x: a second frame on the "
					    "process stack, whose PSP is spent", exc_return);
		missing = CW_PSP;
		base = w->regs.r[CW_PSP];
		w->psp_used = 1;
	}
	if (missing < CW_NR_REGS && !cw_reg_ok(&w->regs, missing)) {
		if (searched_frame(w, missing, &er, &f))
			return -1;
		flags = CW_FRAME_SEARCHED;
	} else {
		switch (cw_exc_frame_read(w->t->mem, base, &er, &f)) {
		case CW_EXC_OK:
			break;
		case CW_EXC_SIGNATURE:
			return cw_walk_stop(w, CW_STOP_BAD_PC, "integrity signature 0x%08x is wrong",
					    f.signature);
		default:
			return cw_walk_stop(w, CW_STOP_READ, "exception frame word at 0x%08x not in the dump",
					    f.bad_addr);
		}
	}
	if (!cw_walk_below_top(w, f.base + f.size))
		return cw_walk_stop(w, CW_STOP_STACK_END, "exception frame at 0x%08x above the thread's "
				    "stack (top 0x%08x)", f.base, w->t->bounds->stack_hi);
	start = stale_start_return(w, &f);
	if (start)
		return w->bt->stop_addr = f.words[CW_EXC_PC_WORD],
		       cw_walk_stop(w, CW_STOP_NO_RETURN, "EXC_RETURN 0x%08x is stale: 0x%08x holds "
				    "the frame of the svc in %s that started the first task, which "
				    "only SVCall returns to", exc_return, f.base, start);
	w->exceptions++;
	if (frame_lost(w, f.words))
		return cw_walk_lost_frame(w, exc_return, f.base, CW_FRAME_EXCEPTION);
	if (frame_blank(&f))
		return cw_walk_stop(w, CW_STOP_OUTERMOST, "exception frame at 0x%08x holds only zeros: "
				    "nothing was stacked there", f.base);
	cw_exc_frame_pop(&f, &w->regs);
	w->lr_live = 1;
	if (w->bt->nr >= CW_MAX_FRAMES)
		return cw_walk_stop(w, CW_STOP_DEPTH, "more than %d frames", CW_MAX_FRAMES);
	cw_walk_push(w, w->regs.r[CW_PC], f.base + f.size, CW_M_EXCEPTION,
		     flags ? w->conf_cap : CONF_EXCEPTION, CW_FRAME_EXCEPTION | f.fp | flags);
	w->bt->frames[w->bt->nr - 1].exc_return = exc_return;
	w->bt->frames[w->bt->nr - 1].stacked_lr = w->regs.r[CW_LR];
	return 0;
}
