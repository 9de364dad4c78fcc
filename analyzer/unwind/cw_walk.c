// SPDX-License-Identifier: GPL-2.0
/*
 * cw_walk.c - the unwinder walk's helpers every stepper uses: how a walk
 * stops, pushes a frame, and tells a return address and the stack's top.
 */
#include <stdarg.h>
#include <stdio.h>

#include "decode/cw_thumb.h"
#include "unwind/cw_walk.h"

int __attribute__((format(printf, 3, 4)))
cw_walk_stop(struct cw_walk *w, enum cw_stop why, const char *fmt, ...)
{
	va_list ap;

	w->bt->stop = why;
	va_start(ap, fmt);
	vsnprintf(w->bt->stop_detail, sizeof(w->bt->stop_detail), fmt, ap);
	va_end(ap);
	return -1;
}

/*
 * Code precedes a return address, but need not follow it: a call to a
 * function that never returns may be the last instruction before a literal
 * pool or the next function. One at a function's first instruction must
 * follow a call (the function before it ends calling one that does not
 * return): else it was never pushed by a call, only given to a task as the
 * address its function returns to, and the chain ends there.
 */
int cw_walk_is_return(const struct cw_walk *w, uint32_t ret)
{
	const struct cw_symbol *fn = cw_image_func(w->t->img, ret & ~1u);
	uint32_t target;

	if (!cw_image_is_code(w->t->img, (ret & ~1u) - 2))
		return 0;
	return !fn || fn->addr != (ret & ~1u) ||
	       cw_thumb_call_before(w->t->mem, ret, &target) != CW_CALL_NONE;
}

/* The return address a task's function was given: no call precedes it, yet it ends the chain. */
int cw_walk_is_task_exit(const struct cw_walk *w, uint32_t v)
{
	const struct cw_bounds *b = w->t->bounds;

	return b && b->task_exit && (v & 1) && (v & ~1u) == b->task_exit;
}

/*
 * What a call may change (AAPCS): r0-r3, r12, lr and the flags. The walk
 * keeps its values for the steppers, but a caller's frame does not know them.
 */
#define CALL_CLOBBERED	((1u << CW_R0) | (1u << CW_R1) | (1u << CW_R2) | (1u << CW_R3) | \
			 (1u << CW_R12) | (1u << CW_LR) | (1u << CW_XPSR))

void cw_walk_push(struct cw_walk *w, uint32_t pc, uint32_t sp, enum cw_method m, int conf,
		  unsigned int flags)
{
	struct cw_frame *f = &w->bt->frames[w->bt->nr++];

	if (w->conf_cap && conf > w->conf_cap)
		conf = w->conf_cap;
	*f = (struct cw_frame){ .pc = pc, .sp = sp, .method = m, .confidence = conf,
				.flags = flags, .regs = w->regs };
	cw_reg_set(&f->regs, CW_PC, pc);
	cw_reg_set(&f->regs, CW_SP, sp);
	if (flags & CW_FRAME_RETURN_ADDR)
		f->regs.valid &= ~CALL_CLOBBERED;
	/* A frame never stacked: its pc is the function's start, a name, not a register. */
	if (flags & CW_FRAME_LOST)
		f->regs.valid &= ~(CALL_CLOBBERED | (1u << CW_PC));
}

/* Whether [.., end) stays inside the thread's stack, when the walk knows it. */
int cw_walk_below_top(const struct cw_walk *w, uint32_t end)
{
	const struct cw_bounds *b = w->t->bounds;

	return !b || !b->stack_hi || end <= b->stack_hi;
}

/*
 * Where to look up the code of a frame whose pc is @pc: a caller's pc is a
 * return address, and the call may be its function's last instruction.
 */
uint32_t cw_walk_code_at(const struct cw_walk *w, uint32_t pc)
{
	return cw_code_addr(pc, !w->lr_live);
}
