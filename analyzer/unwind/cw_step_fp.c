// SPDX-License-Identifier: GPL-2.0
/*
 * cw_step_fp.c - the frame-pointer stepper: GCC's Thumb {r7, lr} records,
 * walked by lib/fw_walk.h (shared with framewalk.ko), the leaf rules before a
 * function has set r7 up, and r7 rebuilt from the prologue when a dump lacks it.
 */
#include "decode/cw_exc.h"
#include "decode/cw_thumb.h"
#include "unwind/cw_walk.h"
#include "../../lib/fw_walk.h"

struct fp_ctx {
	struct cw_walk *w;
	uint32_t first_pc;
};

static int fp_read(void *ctx, fw_u64 addr, void *buf, unsigned int size)
{
	struct fp_ctx *c = ctx;

	return cw_mem_read(c->w->t->mem, (uint32_t)addr, buf, size);
}

/* LR resets to 0xFFFFFFFF: a record holding it is the outermost one. */
static fw_u64 fp_fixup(void *ctx, fw_u64 ret)
{
	(void)ctx;
	if ((uint32_t)ret == CW_LR_RESET_VALUE)
		return 0;
	return cw_is_exc_return((uint32_t)ret) ? ret : ret & ~1ull;
}

/* EXC_RETURN in a record ends the segment: the exception model takes over. */
static int fp_exception(void *ctx, fw_u64 record, fw_u64 *ret)
{
	(void)ctx;
	(void)record;
	return cw_is_exc_return((uint32_t)*ret) ? 1 : 0;
}

/*
 * GCC's Thumb r7 points below the locals; the {r7, lr} record is where the
 * prologue pushed them. Read that function's prologue to find it.
 */
#define FP_RECORD_REGS	((1u << CW_R7) | (1u << CW_LR))

int cw_fp_record_offset(struct cw_walk *w, const struct cw_symbol *fn, uint32_t pc,
			int32_t *off)
{
	struct cw_prologue p;

	if (!fn || cw_prologue_analyze(w->t->mem, w->t->img, fn->addr, pc, &p) || !p.fp_set)
		return -1;
	if ((p.saved & FP_RECORD_REGS) != FP_RECORD_REGS || p.slot[CW_LR] != p.slot[CW_R7] + 4)
		return -1;
	*off = p.slot[CW_R7] - p.fp_off;
	return 0;
}

/* @ret, the return address found in the record before, is a caller's pc. */
static fw_u64 fp_record_at(void *ctx, fw_u64 fp, fw_u64 ret)
{
	struct fp_ctx *c = ctx;
	uint32_t pc = ret ? (uint32_t)ret : c->first_pc;
	uint32_t at = ret ? cw_code_addr(pc, 1) : cw_walk_code_at(c->w, pc);
	int32_t off;

	if (cw_fp_record_offset(c->w, cw_image_func(c->w->t->img, at), pc, &off))
		return 0;
	return (uint32_t)(fp + (uint32_t)off);
}

static const struct fw_walk_ops fp_ops = {
	.read = fp_read, .fixup_ret = fp_fixup, .trampoline = fp_exception,
	.record_at = fp_record_at,
};

#define PROLOGUE_MAX	64	/* bytes of a function start that may hold its prologue */

static int sets_fp_later(struct cw_walk *w, const struct cw_symbol *fn)
{
	uint32_t end = fn->addr + (fn->size && fn->size < PROLOGUE_MAX ? fn->size : PROLOGUE_MAX);
	struct cw_prologue p;

	return !cw_prologue_analyze(w->t->mem, w->t->img, fn->addr, end, &p) && p.fp_set;
}

/*
 * The function at the top has not set r7 up (a leaf, or the fault hit between
 * its push and its "add r7, sp"): its caller is in lr or in the pushed slot,
 * and r7 still belongs to the caller.
 */
int cw_step_fp_leaf(struct cw_walk *w, const struct cw_symbol *fn, struct cw_step *s)
{
	struct cw_prologue p;

	if (cw_prologue_analyze(w->t->mem, w->t->img, fn->addr, w->regs.r[CW_PC], &p))
		return cw_walk_stop(w, CW_STOP_READ, "cannot read code at 0x%08x", fn->addr);
	s->sp = w->regs.r[CW_SP] - (uint32_t)p.sp_off;
	if (p.saved & (1u << CW_LR)) {
		/* Only a function that goes on to set r7 up has a record to read already. */
		if (p.fp_set || !sets_fp_later(w, fn) ||
		    cw_mem_read32(w->t->mem, s->sp + p.slot[CW_LR], &s->pc))
			return cw_walk_stop(w, CW_STOP_FP_CHAIN,
					    "function at 0x%08x keeps no frame pointer", fn->addr);
		s->method = CW_M_FP;
		s->confidence = CONF_LR;
	} else if (w->lr_live) {
		s->pc = w->regs.r[CW_LR];
		s->method = CW_M_LR;
		s->confidence = CONF_LR;
	} else {
		return cw_walk_stop(w, CW_STOP_FP_CHAIN, "function at 0x%08x keeps no frame pointer",
				    fn->addr);
	}
	if ((p.saved & (1u << CW_R7)) &&
	    !cw_mem_read32(w->t->mem, s->sp + p.slot[CW_R7], &s->restore[CW_R7]))
		s->restored |= 1u << CW_R7;
	return 0;
}

/* The engine's fp step: one {r7, lr} record, or the leaf rules above. */
int cw_step_fp(struct cw_walk *w, const struct cw_symbol *fn, struct cw_step *s)
{
	uint32_t rec;
	int32_t off;

	if (!cw_reg_ok(&w->regs, CW_R7) || cw_fp_record_offset(w, fn, w->regs.r[CW_PC], &off))
		return cw_step_fp_leaf(w, fn, s);
	rec = w->regs.r[CW_R7] + (uint32_t)off;
	if (cw_mem_read32(w->t->mem, rec, &s->restore[CW_R7]) ||
	    cw_mem_read32(w->t->mem, rec + 4, &s->pc))
		return cw_walk_stop(w, CW_STOP_READ, "frame record at 0x%08x not in the dump", rec);
	s->restored = 1u << CW_R7;
	s->sp = rec + 8;
	s->method = CW_M_FP;
	s->confidence = CONF_FP;
	return 0;
}

/*
 * Walk r7 records until the chain ends or hands over to an exception frame.
 * Returns 1 when the walk goes on from w->regs, 0 when it ended.
 */
int cw_walk_fp_segment(struct cw_walk *w)
{
	const struct cw_region *stack = cw_mem_find(w->t->mem, w->regs.r[CW_SP]);
	struct fw_frame out[CW_MAX_FRAMES];
	struct fw_stack_range range;
	struct fw_walk_cfg cfg = { .word_size = 4, .fp_off = 0, .lr_off = 4, .align = 4,
				   .stacks = &range, .nr_stacks = 1 };
	struct fp_ctx ctx = { w, w->regs.r[CW_PC] };
	unsigned int n, i, room = CW_MAX_FRAMES - w->bt->nr;
	struct cw_regs *regs;
	enum fw_stop why;
	uint32_t saved_r7;

	if (!stack || !cw_reg_ok(&w->regs, CW_R7))
		return cw_walk_stop(w, CW_STOP_FP_CHAIN, "no stack or no r7 at sp 0x%08x",
				    w->regs.r[CW_SP]), 0;
	range = (struct fw_stack_range){ w->regs.r[CW_SP], (fw_u64)stack->addr + stack->size };
	/* A record above the thread's stack belongs to whatever lies there. */
	if (w->t->bounds && w->t->bounds->stack_hi && w->t->bounds->stack_hi < range.hi)
		range.hi = w->t->bounds->stack_hi;
	n = fw_walk(&cfg, &fp_ops, &ctx, w->regs.r[CW_R7], out, room, &why);
	for (i = 0; i < n; i++) {
		uint32_t ret = (uint32_t)out[i].ret, cfa = (uint32_t)out[i].record + 8;

		if (why == FW_STOP_TRAMPOLINE && i == n - 1) {
			if (cw_mem_read32(w->t->mem, (uint32_t)out[i].record, &saved_r7))
				return cw_walk_stop(w, CW_STOP_READ, "record at 0x%08x unreadable",
						    (uint32_t)out[i].record), 0;
			cw_reg_set(&w->regs, CW_R7, saved_r7);
			return cw_walk_exception(w, ret, cfa) == 0;
		}
		if (!ret)
			break;
		cw_walk_push(w, ret, cfa, CW_M_FP, CONF_FP, CW_FRAME_RETURN_ADDR);
		/* A record restores r7 alone: the other registers its function saved are not read. */
		regs = &w->bt->frames[w->bt->nr - 1].regs;
		regs->valid &= (1u << CW_PC) | (1u << CW_SP);
		if (!cw_mem_read32(w->t->mem, (uint32_t)out[i].record, &saved_r7))
			cw_reg_set(regs, CW_R7, saved_r7);
	}
	if (why == FW_STOP_CHAIN_END)
		return cw_walk_stop(w, CW_STOP_OUTERMOST, "frame-pointer chain ends at a zero record"), 0;
	if (why == FW_STOP_DEPTH)
		return cw_walk_stop(w, CW_STOP_DEPTH, "more than %d frames", CW_MAX_FRAMES), 0;
	if (why == FW_STOP_OFF_STACK && w->t->bounds && range.hi == w->t->bounds->stack_hi)
		return cw_walk_stop(w, CW_STOP_STACK_END, "next frame record above the thread's stack "
				    "(top 0x%08x)", w->t->bounds->stack_hi), 0;
	return cw_walk_stop(w, CW_STOP_FP_CHAIN, "fp walk stopped: %s", fw_stop_name(why)), 0;
}

/*
 * A dump without r7 (found exception frame, Zephyr v1): once the prologue has
 * run "add r7, sp, #imm", r7 is a fixed distance from sp.
 */
void cw_fp_recover_r7(struct cw_walk *w, const struct cw_symbol *fn)
{
	struct cw_prologue p;

	if (cw_reg_ok(&w->regs, CW_R7) ||
	    cw_prologue_analyze(w->t->mem, w->t->img, fn->addr, w->regs.r[CW_PC], &p) || !p.fp_set ||
	    p.sp_dynamic)
		return;
	cw_reg_set(&w->regs, CW_R7, w->regs.r[CW_SP] - (uint32_t)p.sp_off + (uint32_t)p.fp_off);
}
