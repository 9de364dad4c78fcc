// SPDX-License-Identifier: GPL-2.0
/*
 * cw_step_cfi.c - the DWARF CFI stepper: the caller from .debug_frame or
 * .eh_frame rules (decode/cw_cfi.c), r7 rebuilt first when the CFA needs it.
 */
#include "decode/cw_cfi.h"
#include "unwind/cw_walk.h"

int cw_step_cfi(struct cw_walk *w, const struct cw_symbol *fn, struct cw_step *s)
{
	uint32_t pc = w->regs.r[CW_PC], r;
	uint32_t at = cw_walk_code_at(w, pc);
	struct cw_regs regs = w->regs;
	enum cw_cfi_status st;
	struct cw_cfi info;

	st = cw_cfi_step(w->t->img, w->t->mem, at, &regs, &info);
	if (st == CW_CFI_REG && !cw_reg_ok(&w->regs, CW_R7)) {
		/* CFA = r7 + N in a dump without r7: the prologue says where r7 points. */
		cw_fp_recover_r7(w, fn);
		regs = w->regs;
		st = cw_cfi_step(w->t->img, w->t->mem, at, &regs, &info);
	}
	switch (st) {
	case CW_CFI_OK:
		break;
	case CW_CFI_NO_ENTRY:
		return 1;
	case CW_CFI_UNDEFINED:
		return cw_walk_stop(w, CW_STOP_OUTERMOST, "CFI for 0x%08x: return address undefined", pc);
	case CW_CFI_EXPR:
		return cw_walk_stop(w, CW_STOP_NO_RETURN,
				    "CFI for 0x%08x uses DW_OP 0x%02x, which crashwalk does not evaluate",
				    pc, info.bad_op);
	default:
		return cw_walk_stop(w, st == CW_CFI_READ ? CW_STOP_READ : CW_STOP_NO_RETURN,
				    "CFI for 0x%08x (%s rules for 0x%08x-0x%08x): %s", pc,
				    info.eh_frame ? ".eh_frame" : ".debug_frame", info.start, info.end,
				    cw_cfi_status_name(st));
	}
	s->pc = regs.r[CW_PC];
	s->sp = regs.r[CW_SP];
	for (r = 4; r < 12; r++)
		if (cw_reg_ok(&regs, (enum cw_reg)r)) {
			s->restore[r] = regs.r[r];
			s->restored |= 1u << r;
		}
	s->method = CW_M_CFI;
	s->confidence = CONF_CFI;
	return 0;
}
