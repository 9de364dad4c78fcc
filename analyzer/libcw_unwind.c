// SPDX-License-Identifier: GPL-2.0
/*
 * libcw_unwind.c - the unwinder engine: from registers and memory to frames,
 * through hardware exception frames. Five ways find a caller: DWARF CFI
 * (libcw_cfi.c), ARM EHABI unwind tables (libcw_ehabi.c), pseudo-execution of
 * the prologue or epilogue (libcw_thumb.c), the r7 frame-record chain
 * (lib/fw_walk.h, shared with framewalk.ko) and a stack scan checked against
 * the call graph. The engine tries them in that order for every frame, takes
 * the first plausible caller and records which of the others agreed.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cw_internal.h"
#include "../lib/fw_walk.h"

#define SCAN_WORDS	2048	/* how far above sp a scan looks for a return address */

/* Confidence of a frame, by how it was found. */
#define CONF_REGS	100
#define CONF_EXCEPTION	95
#define CONF_CFI	90
#define CONF_EHABI	90
#define CONF_EPILOGUE	85
#define CONF_PROLOGUE	85
#define CONF_FP		85
#define CONF_SCAN_BL	75
#define CONF_LR		60
#define CONF_SCAN_TAIL	50
#define CONF_SCAN_BLX	35
#define CONF_FOUND_FRAME	50	/* registers from an exception frame found by search */
#define CONF_LOST	30	/* a function named only by the call that entered it */
#define CONF_AGREED	3	/* per other unwinder that found the same caller */
#define CONF_DISAGREED	10	/* per other unwinder that found another */
#define CONF_MAX_UNWOUND	99	/* only the dump's own registers are certain */
#define CONF_MIN	5

struct walk {
	const struct cw_target *t;
	struct cw_backtrace *bt;
	enum cw_unwinder how;
	struct cw_regs regs;	/* state of the frame being unwound */
	int lr_live;		/* regs LR belongs to this frame (frame 0 or just interrupted) */
	int psp_used;		/* the process stack was entered: PSP is spent */
	int handler_state;	/* security state the innermost handler ran in: -1 unknown,
				 * 0 Non-secure, 1 Secure; the dump's MSP/PSP are that state's */
	int conf_cap;		/* past a searched frame no frame is surer than it (0: none) */
	int fault_entry;	/* the walk starts at a fault handler's entry */
	unsigned int exceptions;	/* exception frames popped so far */
};

/* What one step found: the caller's pc and sp, or a stop. */
struct step {
	uint32_t pc;		/* may be an EXC_RETURN value */
	uint32_t sp;		/* caller's sp; for an EXC_RETURN, the sp at exception entry */
	enum cw_method method;
	int confidence;
	unsigned int flags;
	uint32_t restore[16];	/* callee-saved registers recovered by the step */
	uint32_t restored;
	uint32_t lost;		/* r4-r11 the step knows were changed to unknown values */
	unsigned int applied, agreed, disagreed;	/* as in struct cw_frame */
};

#define CW_LIST_NAME(id, name)	#name,

const char *cw_method_name(enum cw_method m)
{
	static const char *const names[CW_M_NR] = { CW_METHOD_LIST(CW_LIST_NAME) };

	return m < CW_M_NR ? names[m] : "unknown";
}

const char *cw_stop_name(enum cw_stop s)
{
	static const char *const names[CW_STOP_NR] = { CW_STOP_LIST(CW_LIST_NAME) };

	return s < CW_STOP_NR ? names[s] : "unknown";
}

int cw_unwinder_parse(const char *s, enum cw_unwinder *out)
{
	static const struct { const char *name; enum cw_unwinder how; } tab[] = {
		{ "auto", CW_UNWIND_AUTO }, { "prologue", CW_UNWIND_PROLOGUE },
		{ "fp", CW_UNWIND_FP }, { "scan", CW_UNWIND_SCAN }, { "ehabi", CW_UNWIND_EHABI },
		{ "cfi", CW_UNWIND_CFI },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tab); i++)
		if (!strcmp(s, tab[i].name)) {
			*out = tab[i].how;
			return 0;
		}
	return -1;
}

static int __attribute__((format(printf, 3, 4)))
stop(struct walk *w, enum cw_stop why, const char *fmt, ...)
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
static int is_return_address(const struct walk *w, uint32_t ret)
{
	const struct cw_symbol *fn = cw_image_func(w->t->img, ret & ~1u);
	uint32_t target;

	if (!cw_image_is_code(w->t->img, (ret & ~1u) - 2))
		return 0;
	return !fn || fn->addr != (ret & ~1u) ||
	       cw_thumb_call_before(w->t->mem, ret, &target) != CW_CALL_NONE;
}

static void push_frame(struct walk *w, uint32_t pc, uint32_t sp, enum cw_method m, int conf,
		       unsigned int flags)
{
	struct cw_frame *f = &w->bt->frames[w->bt->nr++];

	if (w->conf_cap && conf > w->conf_cap)
		conf = w->conf_cap;
	*f = (struct cw_frame){ .pc = pc, .sp = sp, .method = m, .confidence = conf,
				.flags = flags };
}

/* ---- prologue analysis ---- */

static int step_prologue(struct walk *w, const struct cw_symbol *fn, struct step *s)
{
	const struct cw_mem *mem = w->t->mem;
	uint32_t sp = w->regs.r[CW_SP], cfa, r;
	struct cw_prologue p;

	if (cw_prologue_analyze(mem, w->t->img, fn->addr, w->regs.r[CW_PC], &p))
		return stop(w, CW_STOP_READ, "cannot read the code of the function at 0x%08x",
			    fn->addr);
	cfa = sp - (uint32_t)p.sp_off;
	if (p.sp_dynamic) {
		/* alloca or a VLA moved sp by a run-time amount: only r7 still knows the frame. */
		if (!p.fp_set || !cw_reg_ok(&w->regs, CW_R7))
			return stop(w, CW_STOP_NO_RETURN, "sp at 0x%08x moved by a run-time amount "
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
			return stop(w, CW_STOP_READ, "saved lr at 0x%08x not in the dump",
				    cfa + p.slot[CW_LR]);
		s->method = CW_M_PROLOGUE;
		s->confidence = CONF_PROLOGUE;
		return 0;
	}
	if (!w->lr_live)
		return stop(w, CW_STOP_NO_RETURN,
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
static int step_epilogue(struct walk *w, const struct cw_symbol *fn, struct step *s)
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
static int step_pseudo(struct walk *w, const struct cw_symbol *fn, struct step *s)
{
	if (!step_epilogue(w, fn, s))
		return 0;
	*s = (struct step){ 0 };
	return step_prologue(w, fn, s);
}

/*
 * Where to look up the code of a frame whose pc is @pc: a caller's pc is a
 * return address, and the call may be its function's last instruction.
 */
static uint32_t code_at(const struct walk *w, uint32_t pc)
{
	return cw_code_addr(pc, !w->lr_live);
}

/* ---- DWARF CFI ---- */

static void fp_recover_r7(struct walk *w, const struct cw_symbol *fn);

static int step_cfi(struct walk *w, const struct cw_symbol *fn, struct step *s)
{
	uint32_t pc = w->regs.r[CW_PC], r;
	uint32_t at = code_at(w, pc);
	struct cw_regs regs = w->regs;
	enum cw_cfi_status st;
	struct cw_cfi info;

	st = cw_cfi_step(w->t->img, w->t->mem, at, &regs, &info);
	if (st == CW_CFI_REG && !cw_reg_ok(&w->regs, CW_R7)) {
		/* CFA = r7 + N in a dump without r7: the prologue says where r7 points. */
		fp_recover_r7(w, fn);
		regs = w->regs;
		st = cw_cfi_step(w->t->img, w->t->mem, at, &regs, &info);
	}
	switch (st) {
	case CW_CFI_OK:
		break;
	case CW_CFI_NO_ENTRY:
		return 1;
	case CW_CFI_UNDEFINED:
		return stop(w, CW_STOP_OUTERMOST, "CFI for 0x%08x: return address undefined", pc);
	case CW_CFI_EXPR:
		return stop(w, CW_STOP_NO_RETURN,
			    "CFI for 0x%08x uses DW_OP 0x%02x, which crashwalk does not evaluate",
			    pc, info.bad_op);
	default:
		return stop(w, st == CW_CFI_READ ? CW_STOP_READ : CW_STOP_NO_RETURN,
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

/* ---- ARM EHABI unwind tables ---- */

/*
 * Returns 0 with s filled, 1 when the function has no usable entry (none,
 * CANTUNWIND, or the nearest entry is an earlier function's), -1 on a stop.
 */
static int step_ehabi(struct walk *w, const struct cw_symbol *fn, struct step *s)
{
	uint32_t pc = w->regs.r[CW_PC], tab, size, r;
	uint32_t at = code_at(w, pc);
	struct cw_regs regs = w->regs;
	enum cw_ehabi_status st;
	struct cw_ehabi info;

	if (cw_image_exidx(w->t->img, &tab, &size))
		return 1;
	st = cw_ehabi_step(w->t->mem, tab, size, at, &regs, &info);
	if (st == CW_EHABI_REG && !cw_reg_ok(&w->regs, CW_R7)) {
		/* "vsp = r7" in a dump without r7: the prologue says where r7 points. */
		fp_recover_r7(w, fn);
		regs = w->regs;
		st = cw_ehabi_step(w->t->mem, tab, size, at, &regs, &info);
	}
	if (st == CW_EHABI_NO_ENTRY || st == CW_EHABI_CANTUNWIND || info.func < fn->addr)
		return 1;
	if (st)
		return stop(w, st == CW_EHABI_STACK ? CW_STOP_READ : CW_STOP_NO_RETURN,
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

/* ---- frame-pointer walk over r7 records ---- */

struct fp_ctx {
	struct walk *w;
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

static int fp_record_offset(struct walk *w, const struct cw_symbol *fn, uint32_t pc,
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
	uint32_t at = ret ? cw_code_addr(pc, 1) : code_at(c->w, pc);
	int32_t off;

	if (fp_record_offset(c->w, cw_image_func(c->w->t->img, at), pc, &off))
		return 0;
	return (uint32_t)(fp + (uint32_t)off);
}

static const struct fw_walk_ops fp_ops = {
	.read = fp_read, .fixup_ret = fp_fixup, .trampoline = fp_exception,
	.record_at = fp_record_at,
};

#define PROLOGUE_MAX	64	/* bytes of a function start that may hold its prologue */

static int sets_fp_later(struct walk *w, const struct cw_symbol *fn)
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
static int fp_leaf_step(struct walk *w, const struct cw_symbol *fn, struct step *s)
{
	struct cw_prologue p;

	if (cw_prologue_analyze(w->t->mem, w->t->img, fn->addr, w->regs.r[CW_PC], &p))
		return stop(w, CW_STOP_READ, "cannot read code at 0x%08x", fn->addr);
	s->sp = w->regs.r[CW_SP] - (uint32_t)p.sp_off;
	if (p.saved & (1u << CW_LR)) {
		/* Only a function that goes on to set r7 up has a record to read already. */
		if (p.fp_set || !sets_fp_later(w, fn) ||
		    cw_mem_read32(w->t->mem, s->sp + p.slot[CW_LR], &s->pc))
			return stop(w, CW_STOP_FP_CHAIN,
				    "function at 0x%08x keeps no frame pointer", fn->addr);
		s->method = CW_M_FP;
		s->confidence = CONF_LR;
	} else if (w->lr_live) {
		s->pc = w->regs.r[CW_LR];
		s->method = CW_M_LR;
		s->confidence = CONF_LR;
	} else {
		return stop(w, CW_STOP_FP_CHAIN, "function at 0x%08x keeps no frame pointer",
			    fn->addr);
	}
	if ((p.saved & (1u << CW_R7)) &&
	    !cw_mem_read32(w->t->mem, s->sp + p.slot[CW_R7], &s->restore[CW_R7]))
		s->restored |= 1u << CW_R7;
	return 0;
}

/* The engine's fp step: one {r7, lr} record, or the leaf rules above. */
static int step_fp(struct walk *w, const struct cw_symbol *fn, struct step *s)
{
	uint32_t rec;
	int32_t off;

	if (!cw_reg_ok(&w->regs, CW_R7) || fp_record_offset(w, fn, w->regs.r[CW_PC], &off))
		return fp_leaf_step(w, fn, s);
	rec = w->regs.r[CW_R7] + (uint32_t)off;
	if (cw_mem_read32(w->t->mem, rec, &s->restore[CW_R7]) ||
	    cw_mem_read32(w->t->mem, rec + 4, &s->pc))
		return stop(w, CW_STOP_READ, "frame record at 0x%08x not in the dump", rec);
	s->restored = 1u << CW_R7;
	s->sp = rec + 8;
	s->method = CW_M_FP;
	s->confidence = CONF_FP;
	return 0;
}

static int walk_exception(struct walk *w, uint32_t exc_return, uint32_t sp_at_entry);

/*
 * Walk r7 records until the chain ends or hands over to an exception frame.
 * Returns 1 when the walk goes on from w->regs, 0 when it ended.
 */
static int walk_fp_segment(struct walk *w)
{
	const struct cw_region *stack = cw_mem_find(w->t->mem, w->regs.r[CW_SP]);
	struct fw_frame out[CW_MAX_FRAMES];
	struct fw_stack_range range;
	struct fw_walk_cfg cfg = { .word_size = 4, .fp_off = 0, .lr_off = 4, .align = 4,
				   .stacks = &range, .nr_stacks = 1 };
	struct fp_ctx ctx = { w, w->regs.r[CW_PC] };
	unsigned int n, i, room = CW_MAX_FRAMES - w->bt->nr;
	enum fw_stop why;
	uint32_t saved_r7;

	if (!stack || !cw_reg_ok(&w->regs, CW_R7))
		return stop(w, CW_STOP_FP_CHAIN, "no stack or no r7 at sp 0x%08x",
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
				return stop(w, CW_STOP_READ, "record at 0x%08x unreadable",
					    (uint32_t)out[i].record), 0;
			cw_reg_set(&w->regs, CW_R7, saved_r7);
			return walk_exception(w, ret, cfa) == 0;
		}
		if (!ret)
			break;
		push_frame(w, ret, cfa, CW_M_FP, CONF_FP, CW_FRAME_RETURN_ADDR);
	}
	if (why == FW_STOP_CHAIN_END)
		return stop(w, CW_STOP_OUTERMOST, "frame-pointer chain ends at a zero record"), 0;
	if (why == FW_STOP_DEPTH)
		return stop(w, CW_STOP_DEPTH, "more than %d frames", CW_MAX_FRAMES), 0;
	if (why == FW_STOP_OFF_STACK && w->t->bounds && range.hi == w->t->bounds->stack_hi)
		return stop(w, CW_STOP_STACK_END, "next frame record above the thread's stack "
			    "(top 0x%08x)", w->t->bounds->stack_hi), 0;
	return stop(w, CW_STOP_FP_CHAIN, "fp walk stopped: %s", fw_stop_name(why)), 0;
}

/*
 * A dump without r7 (found exception frame, Zephyr v1): once the prologue has
 * run "add r7, sp, #imm", r7 is a fixed distance from sp.
 */
static void fp_recover_r7(struct walk *w, const struct cw_symbol *fn)
{
	struct cw_prologue p;

	if (cw_reg_ok(&w->regs, CW_R7) ||
	    cw_prologue_analyze(w->t->mem, w->t->img, fn->addr, w->regs.r[CW_PC], &p) || !p.fp_set ||
	    p.sp_dynamic)
		return;
	cw_reg_set(&w->regs, CW_R7, w->regs.r[CW_SP] - (uint32_t)p.sp_off + (uint32_t)p.fp_off);
}

/* ---- stack scan, each candidate checked against the call graph ---- */

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
static int scan_candidate(const struct walk *w, uint32_t v, const struct cw_symbol *callee,
			  int *conf, unsigned int *flags)
{
	uint32_t target;

	if (!(v & 1) || !is_return_address(w, v))
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

static int lr_pushed_before_pc(const struct walk *w, const struct cw_symbol *fn)
{
	struct cw_prologue p;

	return !cw_prologue_analyze(w->t->mem, w->t->img, fn->addr, w->regs.r[CW_PC], &p) &&
	       (p.saved & (1u << CW_LR));
}

/* Whether [.., end) stays inside the thread's stack, when the walk knows it. */
static int below_stack_top(const struct walk *w, uint32_t end)
{
	const struct cw_bounds *b = w->t->bounds;

	return !b || !b->stack_hi || end <= b->stack_hi;
}

/* The return address a task's function was given: no call precedes it, yet it ends the chain. */
static int is_task_exit(const struct walk *w, uint32_t v)
{
	const struct cw_bounds *b = w->t->bounds;

	return b && b->task_exit && (v & 1) && (v & ~1u) == b->task_exit;
}

static int step_scan(struct walk *w, const struct cw_symbol *fn, struct step *s)
{
	uint32_t sp = w->regs.r[CW_SP], a, v;
	struct cw_exc_return er;
	unsigned int i;
	int handler = fn && cw_image_is_handler(w->t->img, fn->addr);

	s->method = CW_M_SCAN;
	/* lr still holds this frame's return address unless the prologue already saved it. */
	if (w->lr_live && !(fn && lr_pushed_before_pc(w, fn))) {
		v = w->regs.r[CW_LR];
		if ((cw_is_exc_return(v) && !cw_exc_return_decode(v, &er)) || is_task_exit(w, v) ||
		    scan_candidate(w, v, fn, &s->confidence, &s->flags)) {
			s->pc = v;
			s->sp = sp;
			s->method = CW_M_LR;
			s->confidence = cw_is_exc_return(v) ? CONF_LR : s->confidence;
			return 0;
		}
	}
	for (i = 0, a = sp; i < SCAN_WORDS && below_stack_top(w, a + 4); i++, a += 4) {
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
		if (is_task_exit(w, v) || scan_candidate(w, v, fn, &s->confidence, &s->flags)) {
			s->pc = v;
			s->sp = a + 4;
			s->confidence = is_task_exit(w, v) ? CONF_SCAN_BL : s->confidence;
			return 0;
		}
	}
	if (i < SCAN_WORDS && !below_stack_top(w, a + 4))
		return stop(w, CW_STOP_STACK_END, "no return address that calls this function "
			    "between 0x%08x and the thread's stack top 0x%08x", sp,
			    w->t->bounds->stack_hi);
	return stop(w, CW_STOP_NO_RETURN, "no return address that calls this function above 0x%08x",
		    sp);
}

/* ---- exception frames ---- */

/*
 * Was the innermost exception's frame never written? The fault status says
 * stacking failed (MSTKERR, STKERR, STKOF) and what sits where the frame should
 * be has no Thumb bit in its xPSR, which every stacked xPSR has.
 */
static int stacking_failed(const struct cw_mem *mem)
{
	uint32_t cfsr;

	return !cw_mem_read32(mem, CW_SCB_CFSR, &cfsr) && (cfsr & CW_CFSR_STACKING);
}

static int frame_lost(const struct walk *w, const uint32_t *f)
{
	return w->bt->nr == 1 && stacking_failed(w->t->mem) && !(f[CW_EXC_XPSR_WORD] & CW_XPSR_T);
}

/*
 * A stack overflow destroys the state it happened in: the pc, lr and r0-r3
 * of the interrupted code never reached memory. The stack above is intact,
 * so the nearest return address that follows a BL names the function that
 * was running (its target), and the walk goes on from that return address.
 */
static int walk_lost_frame(struct walk *w, uint32_t exc_return, uint32_t base,
			   unsigned int flags)
{
	uint32_t a, v, target = 0;
	enum cw_call_kind kind = CW_CALL_NONE;
	unsigned int i;

	for (i = 0, a = base; i < SCAN_WORDS && below_stack_top(w, a + 4); i++, a += 4) {
		if (cw_mem_read32(w->t->mem, a, &v))
			break;
		if (!(v & 1) || !is_return_address(w, v))
			continue;
		kind = cw_thumb_call_before(w->t->mem, v, &target);
		if (kind != CW_CALL_NONE)
			break;
	}
	if (kind == CW_CALL_NONE)
		return stop(w, CW_STOP_NO_RETURN,
			    "exception frame at 0x%08x never stacked, no return address above it",
			    base);
	if (w->bt->nr + 2 > CW_MAX_FRAMES)
		return stop(w, CW_STOP_DEPTH, "more than %d frames", CW_MAX_FRAMES);
	push_frame(w, kind == CW_CALL_BL ? target : 0, base, CW_M_SCAN, CONF_LOST,
		   flags | CW_FRAME_LOST);
	w->bt->frames[w->bt->nr - 1].exc_return = exc_return;
	push_frame(w, v & ~1u, a + 4, CW_M_SCAN, CONF_SCAN_BL,
		   CW_FRAME_RETURN_ADDR | (kind == CW_CALL_BL ? 0 : CW_FRAME_INDIRECT));
	/* Only the stack survived: no register of the lost frame is known. */
	w->regs.valid &= ~((1u << CW_R0) | (1u << CW_R1) | (1u << CW_R2) | (1u << CW_R3) |
			   (1u << CW_R12) | 0xFF0u | (1u << CW_LR));
	cw_reg_set(&w->regs, CW_PC, v & ~1u);
	cw_reg_set(&w->regs, CW_SP, a + 4);
	w->lr_live = 0;
	return 0;
}

/* A stack pointer of one security state (see cw_exc_banked_sp), or a stop. */
static int banked_sp(struct walk *w, int secure, int psp, uint32_t *sp)
{
	enum cw_reg r = cw_exc_banked_sp(w->handler_state, secure, psp);

	if (!cw_reg_ok(&w->regs, r))
		return stop(w, CW_STOP_NO_PSP, "the %s %s stack pointer is not in the dump",
			    secure ? "Secure" : "Non-secure", psp ? "process" : "main");
	*sp = w->regs.r[r];
	return 0;
}

struct trial_ctx {
	const struct cw_target *t;
	enum cw_unwinder how;
};

/* A trial walk for the search: the same unwinders, and no search of its own. */
static int search_trial(void *ctx, const struct cw_regs *regs, struct cw_backtrace *bt)
{
	const struct trial_ctx *c = ctx;
	struct cw_target plain = { .mem = c->t->mem, .img = c->t->img };

	return cw_unwind(&plain, regs, CW_CTX_PRE_EXCEPTION, c->how, bt);
}

/*
 * Is the frame the walk is leaving the PendSV handler's (exception 14), where
 * an RTOS switches threads? The outgoing thread's live frame is then the one
 * the switch saves, which the RTOS's objects point at; its stack's dead part
 * holds earlier switch frames of the very same kind.
 */
static int in_context_switch(const struct walk *w)
{
	const struct cw_frame *f = &w->bt->frames[w->bt->nr - 1];
	const struct cw_symbol *fn;
	int ok;
	uint32_t pendsv = cw_image_vector(w->t->img, 14, &ok);

	fn = cw_image_func(w->t->img, cw_code_addr(f->pc, !!(f->flags & CW_FRAME_RETURN_ADDR)));
	return ok && fn && fn->addr == (pendsv & ~1u);
}

/*
 * The dump lacks the stack pointer r that holds the frame EXC_RETURN er
 * names: look for the frame in RAM (libcw_search.c). The first exception the
 * walk meets from a fault handler's entry is the fault's own.
 */
static int searched_frame(struct walk *w, enum cw_reg r, const struct cw_exc_return *er,
			  struct cw_exc_frame *f)
{
	struct trial_ctx ctx = { w->t, w->how };
	struct cw_search_req req = {
		.reg = r, .process = er->psp, .er = er, .trial = search_trial, .ctx = &ctx,
		.fault_frame = w->fault_entry && !w->exceptions, .innermost = !w->exceptions,
	};
	struct cw_backtrace *scratch;
	int err;

	if (w->t->hints && w->t->hints->rtos && r == CW_PSP && in_context_switch(w))
		return stop(w, CW_STOP_NO_PSP, "EXC_RETURN 0x%08x: the thread the context switch "
			    "saves, PSP not in the dump: its saved context is the RTOS's",
			    er->value);
	if (!w->t->hints && r == CW_PSP)
		return stop(w, CW_STOP_NO_PSP, "EXC_RETURN 0x%08x: frame on the process stack, PSP "
			    "not in the dump", er->value);
	if (!w->t->hints)
		return stop(w, CW_STOP_NO_PSP, "the %s %s stack pointer is not in the dump",
			    er->secure ? "Secure" : "Non-secure", er->psp ? "process" : "main");
	scratch = calloc(1, sizeof(*scratch));
	if (!scratch)
		return stop(w, CW_STOP_NO_PSP, "out of memory for the frame search");
	err = cw_search_frame(w->t, &req, f, &w->bt->search, scratch);
	free(scratch);
	if (err)
		return stop(w, CW_STOP_NO_PSP, "EXC_RETURN 0x%08x: %s not in the dump, and none of "
			    "%u candidate frames in RAM yields a complete chain", er->value,
			    cw_reg_name(r), w->bt->search.candidates);
	w->conf_cap = w->bt->search.confidence;
	return 0;
}

/*
 * FNC_RETURN: this code is Non-secure and was called from Secure code with
 * BLXNS, which pushed the return address and part of xPSR on the Secure stack
 * it ran on (PSP_S when CONTROL_S.SPSEL, else MSP_S). Take them and go on in
 * the Secure caller.
 */
static int walk_fnc_return(struct walk *w, uint32_t fnc_return)
{
	int spsel = w->handler_state == 1 && cw_reg_ok(&w->regs, CW_CONTROL) &&
		    (w->regs.r[CW_CONTROL] & CW_CONTROL_SPSEL);
	struct cw_exc_frame f;
	uint32_t sp, ret;

	if (banked_sp(w, 1, spsel, &sp))
		return -1;
	if (cw_exc_fnc_frame_read(w->t->mem, sp, &f))
		return stop(w, CW_STOP_READ, "exception frame word at 0x%08x not in the dump",
			    f.bad_addr);
	ret = f.words[CW_FNC_RET_WORD];
	if (!is_return_address(w, ret | 1))
		return stop(w, CW_STOP_BAD_PC, "FNC_RETURN: return address 0x%08x at 0x%08x "
			    "on the Secure stack is not code", ret, sp);
	if (w->bt->nr >= CW_MAX_FRAMES)
		return stop(w, CW_STOP_DEPTH, "more than %d frames", CW_MAX_FRAMES);
	cw_reg_set(&w->regs, CW_PC, ret & ~1u);
	cw_reg_set(&w->regs, CW_SP, sp + f.size);
	w->regs.valid &= ~(1u << CW_LR);
	w->lr_live = 0;
	push_frame(w, ret & ~1u, sp + f.size, CW_M_EXCEPTION, CONF_EXCEPTION,
		   CW_FRAME_FNC_RETURN | CW_FRAME_RETURN_ADDR);
	w->bt->frames[w->bt->nr - 1].exc_return = fnc_return;
	return 0;
}

/* The interrupted context: pop the frame the hardware pushed at exception entry. */
static int walk_exception(struct walk *w, uint32_t exc_return, uint32_t sp_at_entry)
{
	struct cw_exc_return er;
	struct cw_exc_frame f;
	unsigned int flags = 0;
	enum cw_reg missing;
	uint32_t base;

	if (exc_return == CW_LR_RESET_VALUE)
		return stop(w, CW_STOP_OUTERMOST, "lr holds its reset value 0x%08x", exc_return);
	if (cw_exc_return_decode(exc_return, &er))
		return stop(w, CW_STOP_BAD_PC, "0x%08x is not a valid EXC_RETURN", exc_return);
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
			return stop(w, CW_STOP_NO_PSP, "EXC_RETURN 0x%08x: a second frame on the "
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
			return stop(w, CW_STOP_BAD_PC, "integrity signature 0x%08x is wrong",
				    f.signature);
		default:
			return stop(w, CW_STOP_READ, "exception frame word at 0x%08x not in the dump",
				    f.bad_addr);
		}
	}
	if (!below_stack_top(w, f.base + f.size))
		return stop(w, CW_STOP_STACK_END, "exception frame at 0x%08x above the thread's "
			    "stack (top 0x%08x)", f.base, w->t->bounds->stack_hi);
	w->exceptions++;
	if (frame_lost(w, f.words))
		return walk_lost_frame(w, exc_return, f.base, CW_FRAME_EXCEPTION);
	cw_exc_frame_pop(&f, &w->regs);
	w->lr_live = 1;
	if (w->bt->nr >= CW_MAX_FRAMES)
		return stop(w, CW_STOP_DEPTH, "more than %d frames", CW_MAX_FRAMES);
	push_frame(w, w->regs.r[CW_PC], f.base + f.size, CW_M_EXCEPTION,
		   flags ? w->conf_cap : CONF_EXCEPTION, CW_FRAME_EXCEPTION | f.fp | flags);
	w->bt->frames[w->bt->nr - 1].exc_return = exc_return;
	w->bt->frames[w->bt->nr - 1].stacked_lr = w->regs.r[CW_LR];
	return 0;
}

/* ---- the engine ---- */

/* A return address the walk can believe: an EXC_RETURN, or code right after a call. */
static int plausible_return(const struct walk *w, uint32_t pc)
{
	uint32_t target;

	return cw_is_exc_return(pc) ||
	       (is_return_address(w, pc) &&
		cw_thumb_call_before(w->t->mem, pc, &target) != CW_CALL_NONE);
}

/* ---- the engine: every unwinder on every frame ---- */

typedef int (*step_fn)(struct walk *w, const struct cw_symbol *fn, struct step *s);

/* One unwinder's answer for a frame: 0 a caller, 1 not applicable, -1 a stop. */
struct attempt {
	int rc;
	struct step s;
	enum cw_stop why;
	char detail[sizeof(((struct cw_backtrace *)0)->stop_detail)];
};

static void try_step(struct walk *w, const struct cw_symbol *fn, step_fn fn_step,
		     struct attempt *a)
{
	struct cw_backtrace *bt = w->bt;

	a->s = (struct step){ 0 };
	bt->stop_detail[0] = 0;
	a->rc = fn_step(w, fn, &a->s);
	a->why = bt->stop;
	memcpy(a->detail, bt->stop_detail, sizeof(a->detail));
	bt->stop_detail[0] = 0;
}

static int same_caller(const struct step *a, const struct step *b)
{
	return (a->pc & ~1u) == (b->pc & ~1u) && a->sp == b->sp;
}

enum { E_CFI, E_EHABI, E_PSEUDO, E_FP, E_SCAN, E_NR };

static const struct {
	enum cw_method bit;
	step_fn step;
} engine[E_NR] = {
	[E_CFI] = { CW_M_CFI, step_cfi }, [E_EHABI] = { CW_M_EHABI, step_ehabi },
	[E_PSEUDO] = { CW_M_PROLOGUE, step_pseudo }, [E_FP] = { CW_M_FP, step_fp },
	[E_SCAN] = { CW_M_SCAN, step_scan },
};

/*
 * Which answer to take: the first plausible one in engine order. EHABI tables
 * describe a function's body only, so in a frame the exception interrupted
 * (which may sit in a prologue or an epilogue) pseudo-execution, which read
 * the code around the pc, outranks them when the two differ; it outranks CFI
 * there too when it simulated an epilogue.
 */
static int engine_choose(const struct walk *w, const struct attempt *at)
{
	const struct attempt *pe = &at[E_PSEUDO];
	int i;

	for (i = 0; i < E_NR; i++) {
		if (at[i].rc || !plausible_return(w, at[i].s.pc))
			continue;
		if (i == E_EHABI && w->lr_live && !pe->rc && plausible_return(w, pe->s.pc) &&
		    !same_caller(&at[i].s, &pe->s))
			continue;
		/*
		 * Nor does GCC's Thumb-1 CFI describe epilogues. Where the epilogue
		 * model simulated the way out to the return, it saw what is left to
		 * undo; on Thumb-2 the two agree at every corpus instruction.
		 */
		if (i == E_CFI && w->lr_live && !pe->rc && pe->s.method == CW_M_EPILOGUE &&
		    plausible_return(w, pe->s.pc) && !same_caller(&at[i].s, &pe->s))
			continue;
		return i;
	}
	/* No plausible caller: an implausible one still ends the walk with a reason. */
	for (i = 0; i < E_NR; i++)
		if (!at[i].rc)
			return i;
	return -1;
}

static int step_auto(struct walk *w, const struct cw_symbol *fn, struct step *s)
{
	struct attempt at[E_NR];
	int i, pick, n_agreed = 0, n_disagreed = 0;

	for (i = 0; i < E_NR; i++)
		try_step(w, fn, engine[i].step, &at[i]);
	pick = engine_choose(w, at);
	if (pick < 0) {
		/* Every unwinder stopped: the first that applied names the reason. */
		for (i = 0; i < E_NR - 1 && at[i].rc > 0; i++)
			;
		w->bt->stop = at[i].why;
		memcpy(w->bt->stop_detail, at[i].detail, sizeof(at[i].detail));
		return -1;
	}
	*s = at[pick].s;
	for (i = 0; i < E_NR; i++) {
		if (at[i].rc)
			continue;
		s->applied |= 1u << engine[i].bit;
		if (i == pick)
			continue;
		if (same_caller(&at[i].s, s)) {
			s->agreed |= 1u << engine[i].bit;
			n_agreed++;
		} else {
			s->disagreed |= 1u << engine[i].bit;
			n_disagreed++;
		}
	}
	s->confidence += CONF_AGREED * n_agreed - CONF_DISAGREED * n_disagreed;
	if (s->confidence > CONF_MAX_UNWOUND)
		s->confidence = CONF_MAX_UNWOUND;
	if (s->confidence < CONF_MIN)
		s->confidence = CONF_MIN;
	return 0;
}

/*
 * One unwinder alone. cfi and ehabi pseudo-execute code their tables do not
 * cover; EHABI tables also hold only at call sites (the ABI promises nothing
 * inside a prologue or an epilogue), so in a frame an exception interrupted
 * pseudo-execution decides when the table fails or gives another caller.
 * Either way the frame is flagged as a fallback, and the table's other
 * answer is kept as disagreed.
 */
static int step_alone(struct walk *w, const struct cw_symbol *fn, struct step *s)
{
	struct attempt p;
	int err;

	switch (w->how) {
	case CW_UNWIND_SCAN:
		err = step_scan(w, fn, s);
		s->applied = 1u << CW_M_SCAN;
		return err;
	case CW_UNWIND_PROLOGUE:
		err = step_pseudo(w, fn, s);
		s->applied = 1u << CW_M_PROLOGUE;
		return err;
	case CW_UNWIND_CFI:
		err = step_cfi(w, fn, s);
		s->applied = 1u << CW_M_CFI;
		break;
	default:
		err = step_ehabi(w, fn, s);
		s->applied = 1u << CW_M_EHABI;
		if (err > 0 || !w->lr_live)
			break;
		try_step(w, fn, step_pseudo, &p);
		if (p.rc || !plausible_return(w, p.s.pc) || (!err && same_caller(&p.s, s))) {
			if (err)
				step_ehabi(w, fn, s);	/* again, for its stop reason */
			return err;
		}
		*s = p.s;
		s->flags |= CW_FRAME_FALLBACK;
		s->applied = 1u << CW_M_PROLOGUE;
		if (!err) {
			s->applied |= 1u << CW_M_EHABI;
			s->disagreed = 1u << CW_M_EHABI;
		}
		return 0;
	}
	if (err <= 0)
		return err;
	/* Hand-written code (handlers, startup) has no table: read its code. */
	*s = (struct step){ 0 };
	err = step_pseudo(w, fn, s);
	s->flags |= CW_FRAME_FALLBACK;
	s->applied = 1u << CW_M_PROLOGUE;
	return err;
}

static int is_reset_handler(const struct walk *w, const struct cw_symbol *fn)
{
	int ok;
	uint32_t v = cw_image_vector(w->t->img, 1, &ok);

	return ok && fn && (v & ~1u) == fn->addr;
}

/* One caller. Returns 1 to go on, 0 when the walk ended (bt->stop says why). */
static int walk_one(struct walk *w)
{
	uint32_t pc = w->regs.r[CW_PC], sp = w->regs.r[CW_SP];
	const struct cw_symbol *fn;
	struct step s = { 0 };
	unsigned int r;
	int err, wild;

	if (w->bt->nr >= CW_MAX_FRAMES)
		return stop(w, CW_STOP_DEPTH, "more than %d frames", CW_MAX_FRAMES), 0;
	fn = cw_image_func(w->t->img, code_at(w, pc));
	if (is_reset_handler(w, fn))
		return stop(w, CW_STOP_OUTERMOST, "reached the reset handler at 0x%08x",
			    fn->addr), 0;
	/* In no function, or in one's data (a vector table at 0: a call through NULL). */
	wild = !fn || !cw_image_is_code(w->t->img, code_at(w, pc));
	if (wild && !w->lr_live)
		return stop(w, CW_STOP_NO_SYMBOL, "pc 0x%08x is in no known function", pc), 0;
	if (fn && w->t->bounds && w->t->bounds->thread_entry == fn->addr)
		return stop(w, CW_STOP_TASK_ENTRY, "%s started the thread",
			    w->t->bounds->thread_entry_name), 0;
	if (wild) {
		/* A wild pc (fetch fault, jump to data): the caller is still in lr. */
		s.pc = w->regs.r[CW_LR];
		s.sp = sp;
		s.method = CW_M_LR;
		s.confidence = CONF_LR;
		err = 0;
	} else if (w->how == CW_UNWIND_FP) {
		fp_recover_r7(w, fn);
		if (cw_reg_ok(&w->regs, CW_R7) && !fp_record_offset(w, fn, pc, &(int32_t){ 0 }))
			return walk_fp_segment(w);
		err = fp_leaf_step(w, fn, &s);
	} else if (w->how == CW_UNWIND_AUTO) {
		err = step_auto(w, fn, &s);
	} else {
		err = step_alone(w, fn, &s);
	}
	if (err)
		return 0;
	/* The handler restored its callee-saved registers before the exception returned. */
	w->regs.valid &= ~s.lost;
	for (r = 4; r < 12; r++)
		if (s.restored & (1u << r))
			cw_reg_set(&w->regs, (enum cw_reg)r, s.restore[r]);
	if (cw_is_exc_return(s.pc))
		return walk_exception(w, s.pc, s.sp) == 0;
	if (!s.pc)
		return stop(w, CW_STOP_OUTERMOST, "return address is 0"), 0;
	if (w->t->bounds && w->t->bounds->task_exit && (s.pc & ~1u) == w->t->bounds->task_exit)
		return stop(w, CW_STOP_TASK_ENTRY, "return address 0x%08x is %s%s%s: this is the "
			    "task's function", s.pc, w->t->bounds->task_exit_name,
			    w->t->bounds->task_exit_from ? ", which every task is given by " : "",
			    w->t->bounds->task_exit_from ? w->t->bounds->task_exit_from : ""), 0;
	if (!below_stack_top(w, s.sp))
		return stop(w, CW_STOP_STACK_END, "caller sp 0x%08x above the thread's stack "
			    "(top 0x%08x)", s.sp, w->t->bounds->stack_hi), 0;
	if (!is_return_address(w, s.pc))
		return w->bt->stop_addr = s.pc,
		       stop(w, CW_STOP_BAD_PC, "return address 0x%08x is not code after a call", s.pc), 0;
	if (s.sp < sp || (s.sp == sp && !w->lr_live))
		return stop(w, CW_STOP_NOT_INCREASING, "caller sp 0x%08x below this frame's", s.sp),
		       0;
	if (w->how == CW_UNWIND_SCAN || s.method == CW_M_SCAN)
		w->regs.valid &= ~0xFF0u;	/* a scan does not know r4-r11 */
	cw_reg_set(&w->regs, CW_PC, s.pc & ~1u);
	cw_reg_set(&w->regs, CW_SP, s.sp);
	w->regs.valid &= ~(1u << CW_LR);
	w->lr_live = 0;
	push_frame(w, s.pc & ~1u, s.sp, s.method, s.confidence, s.flags | CW_FRAME_RETURN_ADDR);
	w->bt->frames[w->bt->nr - 1].applied = s.applied;
	w->bt->frames[w->bt->nr - 1].agreed = s.agreed;
	w->bt->frames[w->bt->nr - 1].disagreed = s.disagreed;
	return 1;
}

/*
 * Frames from registers and memory: pc and sp of each, how it was found, and
 * whether its pc is a return address; symbols are cw_symbolize()'s.
 */
int cw_unwind(const struct cw_target *t, const struct cw_regs *regs,
	      enum cw_reg_context context, enum cw_unwinder how, struct cw_backtrace *bt)
{
	struct walk w = { .t = t, .bt = bt, .how = how, .regs = *regs, .lr_live = 1,
			  .handler_state = -1 };

	memset(bt, 0, sizeof(*bt));
	/* A fault handler's IPSR is 3 to 7 (HardFault to SecureFault); unknown, a dump's is. */
	w.fault_entry = context == CW_CTX_HANDLER_ENTRY &&
			(!cw_reg_ok(regs, CW_XPSR) || ((regs->r[CW_XPSR] & CW_XPSR_IPSR) >= 3 &&
						       (regs->r[CW_XPSR] & CW_XPSR_IPSR) <= 7));
	if (!cw_reg_ok(&w.regs, CW_PC) || !cw_reg_ok(&w.regs, CW_SP)) {
		stop(&w, CW_STOP_READ, "dump has no pc or sp");
		return -1;
	}
	w.regs.r[CW_PC] &= ~1u;
	/* A writer that popped a frame which was never stacked hands over garbage pc and xPSR. */
	if (context == CW_CTX_PRE_EXCEPTION && stacking_failed(t->mem) &&
	    (!cw_reg_ok(&w.regs, CW_XPSR) || !(w.regs.r[CW_XPSR] & CW_XPSR_T)) &&
	    !cw_image_is_code(t->img, w.regs.r[CW_PC])) {
		if (!walk_lost_frame(&w, 0, w.regs.r[CW_SP], 0))
			while (walk_one(&w))
				;
		return 0;
	}
	if (t->found && t->found->found) {
		/* The registers came from a searched frame: nothing above it is surer. */
		bt->search = *t->found;
		w.conf_cap = t->found->confidence;
	}
	if (context == CW_CTX_MEMORY_ONLY)
		push_frame(&w, w.regs.r[CW_PC], w.regs.r[CW_SP], CW_M_EXCEPTION, CONF_FOUND_FRAME,
			   CW_FRAME_EXCEPTION);
	else
		push_frame(&w, w.regs.r[CW_PC], w.regs.r[CW_SP], CW_M_REGS, CONF_REGS, 0);
	if (w.conf_cap) {
		bt->frames[0].flags |= CW_FRAME_SEARCHED;
		bt->frames[0].confidence = w.conf_cap;
	}
	while (walk_one(&w))
		;
	return 0;
}

/*
 * A dump without registers (memory only), or whose writer recorded the
 * interrupted registers but not the stack pointer (CrashCatcher with a zero
 * PSP): the frame search finds the exception frame, the fault's own for
 * memory only, or the one that holds the recorded words.
 */
int cw_find_exception_frame(const struct cw_target *t, enum cw_reg_context context,
			    uint32_t only_at, struct cw_regs *regs, uint32_t *at,
			    struct cw_search *res)
{
	struct trial_ctx ctx = { t, CW_UNWIND_AUTO };
	int known = context != CW_CTX_MEMORY_ONLY && cw_reg_ok(regs, CW_PC);
	/*
	 * Where the scheduler runs, a frame that interrupted thread mode is on a
	 * thread's stack: a copy of its words elsewhere (a kernel's saved copy of
	 * the ESF, its coredump's own register block) is no frame.
	 */
	int thread = known && t->hints && t->hints->threads_run && cw_reg_ok(regs, CW_XPSR) &&
		     !(regs->r[CW_XPSR] & CW_XPSR_IPSR);
	struct cw_search_req req = {
		.reg = CW_SP, .process = thread ? 1 : -1, .fault_frame = !known,
		.known = known ? regs : NULL, .trial = search_trial, .ctx = &ctx,
		.given = known ? NULL : regs, .only_at = only_at,
	};
	struct cw_backtrace *scratch = calloc(1, sizeof(*scratch));
	struct cw_search none;
	struct cw_exc_frame f;
	int err;

	if (!scratch)
		return -1;
	err = cw_search_frame(t, &req, &f, res ? res : &none, scratch);
	free(scratch);
	if (err)
		return -1;
	*at = f.base;
	if (known) {
		cw_reg_set(regs, CW_SP, f.base + f.size);
		return 0;
	}
	cw_exc_frame_pop(&f, regs);
	return 0;
}

/*
 * The frame the fault interrupted: frame 0 when the dump holds the
 * interrupted registers, else the first frame popped from an exception frame;
 * bt->nr when the walk never reached that frame.
 */
unsigned int cw_fault_frame(enum cw_reg_context context, const struct cw_backtrace *bt)
{
	unsigned int i;

	if (context != CW_CTX_HANDLER_ENTRY)
		return 0;
	for (i = 0; i < bt->nr; i++)
		if (bt->frames[i].flags & CW_FRAME_EXCEPTION)
			return i;
	/* The handler's own frames are not the fault's: where it happened is unknown. */
	return bt->nr;
}
