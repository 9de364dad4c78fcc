// SPDX-License-Identifier: GPL-2.0
/*
 * cw_step_scan.c - the stack-scan stepper: words above sp that are return
 * addresses after a call to this function (or a tail call to it), checked
 * against the call graph.
 */
#include "decode/cw_exc.h"
#include "decode/cw_thumb.h"
#include "unwind/cw_walk.h"

/* Does the function at fn_addr leave through a B/B.W to target (tail call or veneer)? */
int cw_tail_branches_to(const struct cw_target *t, uint32_t fn_addr, uint32_t target)
{
	const struct cw_symbol *fn = cw_image_func(t->img, fn_addr);
	uint32_t a, end, dest;
	unsigned int len;

	if (!fn)
		return 0;
	end = fn->size ? fn->addr + fn->size : fn->addr + 16;
	for (a = fn->addr; a < end && a - fn->addr < 4096; a += len)
		if (cw_thumb_b_target(t->mem, a, &dest, &len) && dest == target)
			return 1;
	return 0;
}

/* Score a candidate return address for the frame whose function is callee. */
static int scan_candidate(const struct cw_walk *w, uint32_t v, const struct cw_symbol *callee,
			  int *conf, unsigned int *flags)
{
	uint32_t target;

	if (!(v & 1) || !cw_walk_is_return(w, v))
		return 0;
	switch (cw_thumb_call_before(w->t->mem, v, &target)) {
	case CW_CALL_BL:
		if (callee && target == callee->addr) {
			*conf = CONF_SCAN_BL;
			return 1;
		}
		if (callee && cw_tail_branches_to(w->t, target, callee->addr)) {
			*conf = CONF_SCAN_TAIL;
			*flags |= CW_FRAME_TAILCALL;
			return 1;
		}
		return 0;
	case CW_CALL_BLX_REG:
		*conf = CONF_SCAN_BLX;
		*flags |= CW_FRAME_INDIRECT;
		return 1;
	default:
		return 0;
	}
}

static int lr_pushed_before_pc(const struct cw_walk *w, const struct cw_symbol *fn)
{
	struct cw_prologue p;

	return !cw_prologue_analyze(w->t->mem, w->t->img, fn->addr, w->regs.r[CW_PC], &p) &&
	       (p.saved & (1u << CW_LR));
}


int cw_step_scan(struct cw_walk *w, const struct cw_symbol *fn, struct cw_step *s)
{
	uint32_t sp = w->regs.r[CW_SP], a, v;
	struct cw_exc_return er;
	unsigned int i;
	int handler = fn && cw_image_is_handler(w->t->img, fn->addr);

	s->method = CW_M_SCAN;
	/* lr still holds this frame's return address unless the prologue already saved it. */
	if (w->lr_live && !(fn && lr_pushed_before_pc(w, fn))) {
		v = w->regs.r[CW_LR];
		if ((cw_is_exc_return(v) && !cw_exc_return_decode(v, &er)) || cw_walk_is_task_exit(w, v) ||
		    scan_candidate(w, v, fn, &s->confidence, &s->flags)) {
			s->pc = v;
			s->sp = sp;
			s->method = CW_M_LR;
			s->confidence = cw_is_exc_return(v) ? CONF_LR : s->confidence;
			return 0;
		}
	}
	for (i = 0, a = sp; i < SCAN_WORDS && cw_walk_below_top(w, a + 4); i++, a += 4) {
		if (cw_mem_read32(w->t->mem, a, &v))
			break;
		s->flags = 0;
		if (handler && cw_is_exc_return(v) && !cw_exc_return_decode(v, &er) &&
		    !er.fnc_return) {
			s->pc = v;
			s->sp = a + 4;
			s->confidence = CONF_SCAN_BL;
			return 0;
		}
		if (cw_walk_is_task_exit(w, v) || scan_candidate(w, v, fn, &s->confidence, &s->flags)) {
			s->pc = v;
			s->sp = a + 4;
			s->confidence = cw_walk_is_task_exit(w, v) ? CONF_SCAN_BL : s->confidence;
			return 0;
		}
	}
	if (i < SCAN_WORDS && !cw_walk_below_top(w, a + 4))
		return cw_walk_stop(w, CW_STOP_STACK_END, "no return address that calls this function "
				    "between 0x%08x and the thread's stack top 0x%08x", sp,
				    w->t->bounds->stack_hi);
	return cw_walk_stop(w, CW_STOP_NO_RETURN, "no return address that calls this function above 0x%08x",
			    sp);
}
