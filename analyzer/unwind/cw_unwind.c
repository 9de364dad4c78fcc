// SPDX-License-Identifier: GPL-2.0
/*
 * cw_unwind.c - the unwinder engine: from registers and memory to frames,
 * through hardware exception frames (unwind/cw_walk_exc.c). Five steppers find a
 * caller: DWARF CFI (unwind/cw_step_cfi.c), ARM EHABI unwind tables
 * (unwind/cw_step_ehabi.c), pseudo-execution of the prologue or epilogue
 * (unwind/cw_step_pseudo.c), the r7 frame-record chain (unwind/cw_step_fp.c, through
 * lib/fw_walk.h, shared with framewalk.ko) and a stack scan checked against
 * the call graph (unwind/cw_step_scan.c). The engine tries them in that order for
 * every frame, takes the first plausible caller and records which of the
 * others agreed.
 */
#include <stdlib.h>
#include <string.h>

#include "decode/cw_exc.h"
#include "decode/cw_thumb.h"
#include "unwind/cw_walk.h"

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

/* ---- the engine ---- */

/*
 * A trial walk for the search: the same unwinders, and no search of its own.
 * It ends where the kernel starts its threads, as the walk does: past that
 * frame lie words the kernel never wrote as a caller (Zephyr leaves the
 * initial frame's lr as the stack's fill), which end a trial bad_pc and drop
 * the true candidate; and at the frames the kernel's start left (a trial
 * chain through one is no more complete than the walk's). Not the stack
 * bounds: the candidate may be on another stack than the walk's.
 */
static int search_trial(void *ctx, const struct cw_regs *regs, struct cw_backtrace *bt)
{
	const struct cw_walk_trial *c = ctx;
	struct cw_bounds ends = { 0 };
	struct cw_target plain = { .mem = c->t->mem, .img = c->t->img };

	if (c->t->bounds && (c->t->bounds->thread_entry || c->t->bounds->task_exit ||
			     c->t->bounds->nr_start_svc)) {
		ends = *c->t->bounds;
		ends.stack_lo = ends.stack_hi = 0;
		plain.bounds = &ends;
	}
	return cw_unwind(&plain, regs, CW_CTX_PRE_EXCEPTION, c->how, bt);
}

/*
 * A thread that never ran: at its function's first instruction, the kernel's
 * task return address in lr. Nothing is pushed yet, so that is its caller
 * (EHABI's pops there read what was never pushed); anywhere else the same
 * address is only as good as the unwinder that read it.
 */
static int task_start_return(const struct cw_walk *w, uint32_t pc)
{
	uint32_t at = w->regs.r[CW_PC] & ~1u;
	const struct cw_symbol *fn = cw_image_func(w->t->img, at);

	return w->lr_live && fn && fn->addr == at && cw_walk_is_task_exit(w, pc);
}

/* A return address the walk can believe: an EXC_RETURN, or code right after a call. */
static int plausible_return(const struct cw_walk *w, uint32_t pc)
{
	uint32_t target;

	return cw_is_exc_return(pc) || task_start_return(w, pc) ||
	       (cw_walk_is_return(w, pc) &&
		cw_thumb_call_before(w->t->mem, pc, &target) != CW_CALL_NONE);
}

/* ---- the engine: every unwinder on every frame ---- */

typedef int (*step_fn)(struct cw_walk *w, const struct cw_symbol *fn, struct cw_step *s);

/* One unwinder's answer for a frame: 0 a caller, 1 not applicable, -1 a stop. */
struct attempt {
	int rc;
	struct cw_step s;
	enum cw_stop why;
	char detail[sizeof(((struct cw_backtrace *)0)->stop_detail)];
};

static void try_step(struct cw_walk *w, const struct cw_symbol *fn, step_fn fn_step,
		     struct attempt *a)
{
	struct cw_backtrace *bt = w->bt;

	a->s = (struct cw_step){ 0 };
	bt->stop_detail[0] = 0;
	a->rc = fn_step(w, fn, &a->s);
	a->why = bt->stop;
	memcpy(a->detail, bt->stop_detail, sizeof(a->detail));
	bt->stop_detail[0] = 0;
}

static int same_caller(const struct cw_step *a, const struct cw_step *b)
{
	return (a->pc & ~1u) == (b->pc & ~1u) && a->sp == b->sp;
}

/* Keep the caller that unwinder m proposed (other) with s, the answer taken, which it contradicts. */
static void disagree(struct cw_step *s, enum cw_method m, const struct cw_step *other)
{
	s->disagreed |= 1u << m;
	if (s->nr_proposed < CW_MAX_PROPOSALS)
		s->proposed[s->nr_proposed++] = (struct cw_proposal){
			.method = m, .sp = other->sp,
			.pc = cw_is_exc_return(other->pc) ? other->pc : other->pc & ~1u,
		};
}

enum { E_CFI, E_EHABI, E_PSEUDO, E_FP, E_SCAN, E_NR };

static const struct {
	enum cw_method bit;
	step_fn step;
} engine[E_NR] = {
	[E_CFI] = { CW_M_CFI, cw_step_cfi }, [E_EHABI] = { CW_M_EHABI, cw_step_ehabi },
	[E_PSEUDO] = { CW_M_PROLOGUE, cw_step_pseudo }, [E_FP] = { CW_M_FP, cw_step_fp },
	[E_SCAN] = { CW_M_SCAN, cw_step_scan },
};

/*
 * Which answer to take: the first plausible one in engine order. EHABI tables
 * describe a function's body only, so in a frame the exception interrupted
 * (which may sit in a prologue or an epilogue) pseudo-execution, which read
 * the code around the pc, outranks them when the two differ; it outranks CFI
 * there too when it simulated an epilogue.
 */
static int engine_choose(const struct cw_walk *w, const struct attempt *at)
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

static int step_auto(struct cw_walk *w, const struct cw_symbol *fn, struct cw_step *s)
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
			disagree(s, engine[i].bit, &at[i].s);
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
static int step_alone(struct cw_walk *w, const struct cw_symbol *fn, struct cw_step *s)
{
	struct cw_step table;
	struct attempt p;
	int err;

	switch (w->how) {
	case CW_UNWIND_SCAN:
		err = cw_step_scan(w, fn, s);
		s->applied = 1u << CW_M_SCAN;
		return err;
	case CW_UNWIND_PROLOGUE:
		err = cw_step_pseudo(w, fn, s);
		s->applied = 1u << CW_M_PROLOGUE;
		return err;
	case CW_UNWIND_CFI:
		err = cw_step_cfi(w, fn, s);
		s->applied = 1u << CW_M_CFI;
		break;
	default:
		err = cw_step_ehabi(w, fn, s);
		s->applied = 1u << CW_M_EHABI;
		if (err > 0 || !w->lr_live)
			break;
		try_step(w, fn, cw_step_pseudo, &p);
		if (p.rc || !plausible_return(w, p.s.pc) || (!err && same_caller(&p.s, s))) {
			if (err)
				cw_step_ehabi(w, fn, s);	/* again, for its stop reason */
			return err;
		}
		table = *s;
		*s = p.s;
		s->flags |= CW_FRAME_FALLBACK;
		s->applied = 1u << CW_M_PROLOGUE;
		if (!err) {
			s->applied |= 1u << CW_M_EHABI;
			disagree(s, CW_M_EHABI, &table);
		}
		return 0;
	}
	if (err <= 0)
		return err;
	/* Hand-written code (handlers, startup) has no table: read its code. */
	*s = (struct cw_step){ 0 };
	err = cw_step_pseudo(w, fn, s);
	s->flags |= CW_FRAME_FALLBACK;
	s->applied = 1u << CW_M_PROLOGUE;
	return err;
}

static int is_reset_handler(const struct cw_walk *w, const struct cw_symbol *fn)
{
	int ok;
	uint32_t v = cw_image_vector(w->t->img, 1, &ok);

	return ok && fn && (v & ~1u) == fn->addr;
}

/* One caller. Returns 1 to go on, 0 when the walk ended (bt->stop says why). */
static int walk_one(struct cw_walk *w)
{
	uint32_t pc = w->regs.r[CW_PC], sp = w->regs.r[CW_SP];
	const struct cw_symbol *fn;
	struct cw_step s = { 0 };
	unsigned int r;
	int err, wild;

	if (w->bt->nr >= CW_MAX_FRAMES)
		return cw_walk_stop(w, CW_STOP_DEPTH, "more than %d frames", CW_MAX_FRAMES), 0;
	fn = cw_image_func(w->t->img, cw_walk_code_at(w, pc));
	if (is_reset_handler(w, fn))
		return cw_walk_stop(w, CW_STOP_OUTERMOST, "reached the reset handler at 0x%08x",
				    fn->addr), 0;
	/* In no function, or in one's data (a vector table at 0: a call through NULL). */
	wild = !fn || !cw_image_is_code(w->t->img, cw_walk_code_at(w, pc));
	if (wild && !w->lr_live)
		return cw_walk_stop(w, CW_STOP_NO_SYMBOL, "pc 0x%08x is in no known function", pc), 0;
	if (fn && w->t->bounds && w->t->bounds->thread_entry == fn->addr)
		return cw_walk_stop(w, CW_STOP_TASK_ENTRY, "%s started the thread",
				    w->t->bounds->thread_entry_name), 0;
	if (wild) {
		/* A wild pc (fetch fault, jump to data): the caller is still in lr. */
		s.pc = w->regs.r[CW_LR];
		s.sp = sp;
		s.method = CW_M_LR;
		s.confidence = CONF_LR;
		err = 0;
	} else if (w->how == CW_UNWIND_FP) {
		cw_fp_recover_r7(w, fn);
		if (cw_reg_ok(&w->regs, CW_R7) && !cw_fp_record_offset(w, fn, pc, &(int32_t){ 0 }))
			return cw_walk_fp_segment(w);
		err = cw_step_fp_leaf(w, fn, &s);
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
		return cw_walk_exception(w, s.pc, s.sp) == 0;
	if (!s.pc)
		return cw_walk_stop(w, CW_STOP_OUTERMOST, "return address is 0"), 0;
	if (w->t->bounds && w->t->bounds->task_exit && (s.pc & ~1u) == w->t->bounds->task_exit)
		return cw_walk_stop(w, CW_STOP_TASK_ENTRY, "return address 0x%08x is %s%s%s: this is the "
				    "task's function", s.pc, w->t->bounds->task_exit_name,
				    w->t->bounds->task_exit_from ? ", which every task is given by " : "",
				    w->t->bounds->task_exit_from ? w->t->bounds->task_exit_from : ""), 0;
	if (!cw_walk_below_top(w, s.sp))
		return cw_walk_stop(w, CW_STOP_STACK_END, "caller sp 0x%08x above the thread's stack "
				    "(top 0x%08x)", s.sp, w->t->bounds->stack_hi), 0;
	if (!cw_walk_is_return(w, s.pc))
		return w->bt->stop_addr = s.pc,
		       cw_walk_stop(w, CW_STOP_BAD_PC, "return address 0x%08x is not code after a call", s.pc), 0;
	if (s.sp < sp || (s.sp == sp && !w->lr_live))
		return cw_walk_stop(w, CW_STOP_NOT_INCREASING, "caller sp 0x%08x below this frame's", s.sp),
		       0;
	if (w->how == CW_UNWIND_SCAN || s.method == CW_M_SCAN)
		w->regs.valid &= ~0xFF0u;	/* a scan does not know r4-r11 */
	cw_reg_set(&w->regs, CW_PC, s.pc & ~1u);
	cw_reg_set(&w->regs, CW_SP, s.sp);
	w->regs.valid &= ~(1u << CW_LR);
	w->lr_live = 0;
	cw_walk_push(w, s.pc & ~1u, s.sp, s.method, s.confidence, s.flags | CW_FRAME_RETURN_ADDR);
	w->bt->frames[w->bt->nr - 1].applied = s.applied;
	w->bt->frames[w->bt->nr - 1].agreed = s.agreed;
	w->bt->frames[w->bt->nr - 1].disagreed = s.disagreed;
	memcpy(w->bt->frames[w->bt->nr - 1].proposed, s.proposed, sizeof(s.proposed));
	w->bt->frames[w->bt->nr - 1].nr_proposed = s.nr_proposed;
	return 1;
}

/*
 * Frames from registers and memory: pc and sp of each, how it was found, and
 * whether its pc is a return address; symbols are cw_symbolize()'s.
 */
int cw_unwind(const struct cw_target *t, const struct cw_regs *regs,
	      enum cw_reg_context context, enum cw_unwinder how, struct cw_backtrace *bt)
{
	struct cw_walk w = { .t = t, .bt = bt, .how = how, .regs = *regs, .lr_live = 1,
			     .handler_state = -1, .trial = search_trial };

	memset(bt, 0, sizeof(*bt));
	/* A fault handler's IPSR is 3 to 7 (HardFault to SecureFault); unknown, a dump's is. */
	w.fault_entry = context == CW_CTX_HANDLER_ENTRY &&
			(!cw_reg_ok(regs, CW_XPSR) || ((regs->r[CW_XPSR] & CW_XPSR_IPSR) >= 3 &&
						       (regs->r[CW_XPSR] & CW_XPSR_IPSR) <= 7));
	/*
	 * A dump of registers taken before an exception whose pc is a fault's
	 * vector (a Zephyr dump written in the fault handler): its entry too.
	 */
	if (context == CW_CTX_PRE_EXCEPTION && cw_reg_ok(regs, CW_XPSR) && cw_reg_ok(regs, CW_PC) &&
	    (regs->r[CW_XPSR] & CW_XPSR_IPSR) >= 3 && (regs->r[CW_XPSR] & CW_XPSR_IPSR) <= 7) {
		int ok;
		uint32_t vec = cw_image_vector(t->img, regs->r[CW_XPSR] & CW_XPSR_IPSR, &ok);

		w.fault_entry = ok && (vec & ~1u) == (regs->r[CW_PC] & ~1u);
	}
	if (!cw_reg_ok(&w.regs, CW_PC) || !cw_reg_ok(&w.regs, CW_SP)) {
		cw_walk_stop(&w, CW_STOP_READ, "dump has no pc or sp");
		return -1;
	}
	w.regs.r[CW_PC] &= ~1u;
	/*
	 * A writer that popped a frame which was never stacked hands over
	 * garbage pc and xPSR, or (Zephyr) zeros: the walk starts from the
	 * stack above sp.
	 */
	if (context == CW_CTX_PRE_EXCEPTION &&
	    (t->stacking_failed ||
	     (cw_stacking_failed(t->mem) &&
	      (!cw_reg_ok(&w.regs, CW_XPSR) || !(w.regs.r[CW_XPSR] & CW_XPSR_T)) &&
	      !cw_image_is_code(t->img, w.regs.r[CW_PC])))) {
		if (!cw_walk_lost_frame(&w, 0, w.regs.r[CW_SP], 0))
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
		cw_walk_push(&w, w.regs.r[CW_PC], w.regs.r[CW_SP], CW_M_EXCEPTION, CONF_FOUND_FRAME,
			     CW_FRAME_EXCEPTION);
	else
		cw_walk_push(&w, w.regs.r[CW_PC], w.regs.r[CW_SP], CW_M_REGS, CONF_REGS, 0);
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
	struct cw_walk_trial ctx = { t, CW_UNWIND_AUTO };
	int known = context != CW_CTX_MEMORY_ONLY && cw_reg_ok(regs, CW_PC);
	/*
	 * Where the scheduler runs, a frame that interrupted thread mode is on a
	 * thread's stack: a copy of its words elsewhere (a kernel's saved copy of
	 * the ESF, its coredump's own register block) is no frame. The process
	 * stacks, or the main one where the kernel runs its threads there.
	 */
	int thread = known && t->hints && t->hints->threads_run && cw_reg_ok(regs, CW_XPSR) &&
		     !(regs->r[CW_XPSR] & CW_XPSR_IPSR);
	struct cw_search_req req = {
		.reg = CW_SP, .process = thread ? !t->hints->threads_on_msp : -1,
		.fault_frame = !known,
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
