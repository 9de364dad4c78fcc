// SPDX-License-Identifier: GPL-2.0
/*
 * cw_step_ehabi.c - the EHABI stepper: the caller from the firmware's
 * .ARM.exidx/.ARM.extab opcodes (decode/cw_ehabi.c).
 */
#include "decode/cw_ehabi.h"
#include "unwind/cw_walk.h"

/*
 * Returns 0 with s filled, 1 when the function has no usable entry (none,
 * CANTUNWIND, or the nearest entry is an earlier function's), -1 on a stop.
 */
int cw_step_ehabi(struct cw_walk *w, const struct cw_symbol *fn, struct cw_step *s)
{
	uint32_t pc = w->regs.r[CW_PC], tab, size, r;
	uint32_t at = cw_walk_code_at(w, pc);
	struct cw_regs regs = w->regs;
	enum cw_ehabi_status st;
	struct cw_ehabi info;

	if (cw_image_exidx(w->t->img, &tab, &size))
		return 1;
	st = cw_ehabi_step(w->t->mem, tab, size, at, &regs, &info);
	if (st == CW_EHABI_REG && !cw_reg_ok(&w->regs, CW_R7)) {
		/* "vsp = r7" in a dump without r7: the prologue says where r7 points. */
		cw_fp_recover_r7(w, fn);
		regs = w->regs;
		st = cw_ehabi_step(w->t->mem, tab, size, at, &regs, &info);
	}
	if (st == CW_EHABI_NO_ENTRY || st == CW_EHABI_CANTUNWIND || info.func < fn->addr)
		return 1;
	if (st)
		return cw_walk_stop(w, st == CW_EHABI_STACK ? CW_STOP_READ : CW_STOP_NO_RETURN,
			    "EHABI entry at 0x%08x for 0x%08x: %s", info.entry, pc,
			    cw_ehabi_status_name(st));
	s->pc = regs.r[CW_PC];
	s->sp = regs.r[CW_SP];
	for (r = 0; r < 12; r++)
		if (info.popped & (1u << r)) {
			s->restore[r] = regs.r[r];
			s->restored |= 1u << r;
		}
	s->method = CW_M_EHABI;
	s->confidence = CONF_EHABI;
	return 0;
}
