// SPDX-License-Identifier: GPL-2.0
/*
 * cw_step_pseudo.c - the pseudo-execution stepper: the epilogue simulated
 * forward from the pc when it leads to a return, else the prologue's model
 * (decode/cw_thumb.c decodes both).
 */
#include "decode/cw_thumb.h"
#include "unwind/cw_walk.h"

static int step_prologue(struct cw_walk *w, const struct cw_symbol *fn, struct cw_step *s)
{
	const struct cw_mem *mem = w->t->mem;
	uint32_t sp = w->regs.r[CW_SP], cfa, r;
	struct cw_prologue p;

	if (cw_prologue_analyze(mem, w->t->img, fn->addr, w->regs.r[CW_PC], &p))
		return cw_walk_stop(w, CW_STOP_READ, "cannot read the code of the function at 0x%08x",
				    fn->addr);
	cfa = sp - (uint32_t)p.sp_off;
	if (p.sp_dynamic) {
		/* alloca or a VLA moved sp by a run-time amount: only r7 still knows the frame. */
		if (!p.fp_set || !cw_reg_ok(&w->regs, CW_R7))
			return cw_walk_stop(w, CW_STOP_NO_RETURN, "sp at 0x%08x moved by a run-time amount "
					    "and no frame pointer says by how much", w->regs.r[CW_PC]);
		cfa = w->regs.r[CW_R7] - (uint32_t)p.fp_off;
	}
	s->sp = cfa;
	for (r = 4; r < 12; r++) {
		if ((p.saved & (1u << r)) && !cw_mem_read32(mem, cfa + p.slot[r], &s->restore[r]))
			s->restored |= 1u << r;
	}
	if (p.saved & (1u << CW_LR)) {
		if (cw_mem_read32(mem, cfa + p.slot[CW_LR], &s->pc))
			return cw_walk_stop(w, CW_STOP_READ, "saved lr at 0x%08x not in the dump",
					    cfa + p.slot[CW_LR]);
		s->method = CW_M_PROLOGUE;
		s->confidence = CONF_PROLOGUE;
		return 0;
	}
	if (!w->lr_live)
		return cw_walk_stop(w, CW_STOP_NO_RETURN,
				    "lr not saved by the prologue and not live at 0x%08x", w->regs.r[CW_PC]);
	s->pc = w->regs.r[CW_LR];
	s->method = CW_M_LR;
	s->confidence = CONF_LR;
	return 0;
}

/*
 * The code from the pc to the return, simulated: exact wherever it gets
 * there (in particular inside an epilogue, where part of the frame is gone
 * and the prologue's model no longer holds). Returns 1 when the path to the
 * return is not straight or not understood.
 */
static int step_epilogue(struct cw_walk *w, const struct cw_symbol *fn, struct cw_step *s)
{
	const struct cw_mem *mem = w->t->mem;
	struct cw_epilogue e;
	uint32_t base, r;

	if (!fn->size ||
	    cw_epilogue_analyze(mem, w->t->img, fn->addr, fn->addr + fn->size, w->regs.r[CW_PC],
				&e) ||
	    !cw_reg_ok(&w->regs, (enum cw_reg)e.base))
		return 1;
	base = w->regs.r[e.base];
	s->sp = base + (uint32_t)e.cfa_off;
	if (e.restored & (1u << CW_PC)) {
		if (cw_mem_read32(mem, base + (uint32_t)e.slot[CW_PC], &s->pc))
			return 1;
	} else if (e.restored & (1u << CW_LR)) {
		if (cw_mem_read32(mem, base + (uint32_t)e.slot[CW_LR], &s->pc))
			return 1;
	} else if (w->lr_live && cw_reg_ok(&w->regs, CW_LR)) {
		s->pc = w->regs.r[CW_LR];
	} else {
		return 1;
	}
	for (r = 4; r < 12; r++)
		if ((e.restored & (1u << r)) &&
		    !cw_mem_read32(mem, base + (uint32_t)e.slot[r], &s->restore[r]))
			s->restored |= 1u << r;
	s->lost = e.clobbered & ~s->restored & 0xFF0u;
	s->method = CW_M_EPILOGUE;
	s->confidence = CONF_EPILOGUE;
	return 0;
}

/* Pseudo-execution: the epilogue forward from the pc when it leads to a return, else the prologue. */
int cw_step_pseudo(struct cw_walk *w, const struct cw_symbol *fn, struct cw_step *s)
{
	if (!step_epilogue(w, fn, s))
		return 0;
	*s = (struct cw_step){ 0 };
	return step_prologue(w, fn, s);
}
