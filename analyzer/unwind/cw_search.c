// SPDX-License-Identifier: GPL-2.0
/*
 * cw_search.c - the exception frame a walk needs when the dump lacks the
 * stack pointer that holds it (PSP, or a banked v8-M one), found in the
 * dumped RAM: every candidate is checked against the exception model, the
 * fault status and a trial unwind, and the live one is picked by the rule
 * Documentation/crashwalk.rst states ("Frames found by search").
 */
#include <stdlib.h>
#include <string.h>

#include "decode/cw_exc.h"
#include "decode/cw_fault.h"
#include "image/cw_image.h"
#include "unwind/cw_search.h"
#include "decode/cw_thumb.h"
#include "unwind/cw_unwind.h"

#define SEARCH_MAX_TRIALS	48	/* trial unwinds per search: hostile RAM ends here */
#define SEARCH_MAX_CANDIDATES	16384	/* frames kept for trial, highest first */
#define SEARCH_RESCUE_TRIALS	16	/* after a rival: lower candidates tried for one
					 * whose chain runs through both */
#define SEARCH_SEGMENTS		8	/* backtraces a trial chain may run through */
#define SEARCH_TOP_SLACK	64	/* a complete chain ends this close to its stack's top */
#define CONF_SEARCH_SURE	80	/* one complete candidate in a bounded stack */
#define CONF_SEARCH_KNOWN	90	/* its words are the registers the dump recorded */
#define CONF_SEARCH_UNBOUNDED	60	/* one complete candidate, stack bounds unknown */
#define CONF_SEARCH_AMBIGUOUS	30	/* another candidate also yields a complete chain */
#define CONF_SEARCH_STALE	60	/* the only complete one is the running thread's
					 * context from its last switch */

/* Exception numbers no stacked IPSR holds: Reset, and the reserved 8-10 and 13. */
#define IPSR_IMPOSSIBLE	((1u << 1) | (1u << 8) | (1u << 9) | (1u << 10) | (1u << 13))

const char *cw_search_bound_name(enum cw_search_bound b)
{
	switch (b) {
	case CW_BOUND_RTOS:
		return "rtos-thread";
	case CW_BOUND_SYMBOLS:
		return "elf-symbols";
	default:
		return "dumped-ram";
	}
}

/*
 * Does the instruction at pc read or write memory (what a data fault needs)?
 * Of the coprocessor space only 0xEC00-0xEDFF does (VLDR, VSTR, VLDM, VSTM,
 * VPUSH, VPOP; VMOV of two core registers is there too): 0xEE00-0xEFFF
 * holds the FP arithmetic and the single-register VMOVs, which never fault
 * on data.
 */
static int is_load_store(uint16_t hw1)
{
	if (cw_thumb_is_32bit(hw1))
		return (hw1 & 0xFE00) == 0xE800 || (hw1 & 0xFE00) == 0xF800 ||
		       (hw1 & 0xFE00) == 0xEC00;
	return (hw1 >= 0x4800 && hw1 < 0xA000) || (hw1 & 0xF000) == 0xC000 ||
	       (hw1 & 0xF600) == 0xB400;
}

/*
 * The base register of a load or store, when the frame knows it: a stacked
 * register (r0-r3, r12), sp (the sp before the exception) or pc. -1 when it
 * is one of r4-r11, which the frame does not hold.
 */
static int access_base(const uint32_t *w, uint32_t sp, const uint16_t *hw, uint32_t *base)
{
	unsigned int rn;
	int k;

	if (cw_thumb_is_32bit(hw[0])) {
		rn = hw[0] & 0xF;
	} else if ((hw[0] & 0xF600) == 0xB400 || (hw[0] & 0xF000) == 0x9000) {
		rn = CW_SP;	/* push, pop, sp-relative */
	} else if ((hw[0] & 0xF800) == 0x4800) {
		rn = CW_PC;	/* literal */
	} else if ((hw[0] & 0xF000) == 0xC000) {
		rn = (hw[0] >> 8) & 7;
	} else {
		rn = (hw[0] >> 3) & 7;
	}
	k = cw_exc_stacked_word((enum cw_reg)rn);
	if (rn == CW_SP)
		*base = sp;
	else if (k >= 0)
		*base = w[k];
	else
		return -1;
	return 0;
}

/* An offset a Thumb load or store adds to its base: at most 4 KB either way, or a list. */
#define ACCESS_REACH	4096u

/*
 * With BFAR (or MMFAR) valid the faulting access's address is known: a
 * frame whose instruction's base register is far from it is not the fault's.
 * Register-offset forms add a register the frame may not hold: only the
 * immediate forms and push, pop, literal and multiple loads are judged.
 */
static int near_fault_address(const struct cw_mem *mem, uint32_t cfsr, const uint32_t *w,
			      uint32_t sp, const uint16_t *hw)
{
	uint32_t far, base;
	int valid = (cfsr & CW_CFSR_BFARVALID) ? !cw_mem_read32_dumped(mem, CW_SCB_BFAR, &far) :
		    (cfsr & CW_CFSR_MMARVALID) ? !cw_mem_read32_dumped(mem, CW_SCB_MMFAR, &far) : 0;

	if (!valid || (!cw_thumb_is_32bit(hw[0]) && (hw[0] & 0xF000) == 0x5000))
		return 1;
	if (cw_thumb_is_32bit(hw[0]) && (hw[0] & 0xFE00) == 0xF800 && !(hw[1] & 0x0800) &&
	    (hw[0] & 0xF) != 0xF && !(hw[0] & 0x0080))
		return 1;	/* T2 LDR/STR (register) */
	if (access_base(w, sp, hw, &base))
		return 1;
	return far - base + ACCESS_REACH <= 2 * ACCESS_REACH;
}

/*
 * The fault status names what the faulting instruction was: a frame whose pc
 * holds another kind of instruction is not the fault's. Returns 1 when the
 * words agree with CFSR (or the dump has none).
 */
static int agrees_with_fault(const struct cw_mem *mem, const uint32_t *w, uint32_t sp)
{
	uint32_t cfsr, pc = w[CW_EXC_PC_WORD], xpsr = w[CW_EXC_XPSR_WORD];
	uint16_t hw[2];

	if (cw_mem_read32_dumped(mem, CW_SCB_CFSR, &cfsr) || !cfsr)
		return 1;
	if (cfsr & (CW_CFSR_IACCVIOL | CW_CFSR_IBUSERR | CW_CFSR_INVSTATE))
		return (cfsr & CW_CFSR_INVSTATE) ? !(xpsr & CW_XPSR_T) : 1;
	if (cw_mem_read(mem, pc, hw, 4) && cw_mem_read(mem, pc, hw, 2))
		return 0;
	if (cfsr & CW_CFSR_UNDEFINSTR)
		return (hw[0] & 0xFF00) == 0xDE00 || (cw_thumb_is_32bit(hw[0]) && (hw[0] & 0xEC00) == 0xEC00) ||
		       ((hw[0] & 0xFFF0) == 0xF7F0 && (hw[1] & 0xF000) == 0xA000);
	if (cfsr & CW_CFSR_DIVBYZERO)
		return (hw[0] & 0xFFD0) == 0xFB90 && (hw[1] & 0x00F0) == 0x00F0;
	if (cfsr & (CW_CFSR_PRECISERR | CW_CFSR_DACCVIOL | CW_CFSR_UNALIGNED))
		return is_load_store(hw[0]) && near_fault_address(mem, cfsr, w, sp, hw);
	return 1;
}

/*
 * A call through a bad pointer (NULL, data, execute-never) faults on the
 * fetch at its target: the stacked pc is not code (0 may even be a discarded
 * function's symbol, in the vector table's data), and the stacked lr
 * returns right after an indirect call. Whether or not the dump holds the
 * fault status that says so (a gcore or a RAM-only dump does not). The
 * call's register still holds the target: where the frame stacked it (r0-r3,
 * r12), the pc must be its value, or the words are the remains of older
 * frames that only look like such a call's.
 */
static int wild_call(const struct cw_target *t, const uint32_t *w)
{
	uint32_t lr = w[CW_EXC_LR_WORD], target, rm;
	uint16_t hw;

	if (!(lr & 1) || !cw_image_func(t->img, lr & ~1u) ||
	    cw_thumb_call_before(t->mem, lr & ~1u, &target) != CW_CALL_BLX_REG)
		return 0;
	if (cw_mem_read(t->mem, (lr & ~1u) - 2, &hw, 2))
		return 1;
	rm = (hw >> 3) & 0xF;
	if (rm == 12)
		rm = 4;		/* r12's word in the frame */
	else if (rm > 3)
		return 1;
	return (w[rm] & ~1u) == w[CW_EXC_PC_WORD];
}

/*
 * The checks on one candidate's basic frame, before any unwinding: the
 * stacked xPSR (Thumb bit, reserved bits, IPSR against the mode EXC_RETURN
 * names, realignment against the frame's own alignment), the stacked pc (in
 * a function, at an instruction boundary, the kind of instruction the fault
 * status names) and the stacked lr (EXC_RETURN, reset value or code).
 */
/*
 * Is the frame sought the newest exception's: the fault's own, the one that
 * holds the registers a dump recorded, or the first the walk meets?
 */
static int newest_frame(const struct cw_search_req *req)
{
	return req->fault_frame || req->known || req->innermost;
}

/*
 * T = 0 is stacked only by the INVSTATE fault it causes: a frame with T = 0
 * can be only the newest one, and only when the fault status is unknown or
 * says INVSTATE.
 */
static int t0_possible(const struct cw_mem *mem, const struct cw_search_req *req)
{
	uint32_t cfsr;

	return newest_frame(req) &&
	       (cw_mem_read32_dumped(mem, CW_SCB_CFSR, &cfsr) || !cfsr ||
		(cfsr & CW_CFSR_INVSTATE));
}

static int candidate_ok(const struct cw_target *t, const struct cw_search_req *req,
			uint32_t base, const uint32_t *w)
{
	uint32_t lr = w[CW_EXC_LR_WORD], pc = w[CW_EXC_PC_WORD], xpsr = w[CW_EXC_XPSR_WORD];
	const struct cw_symbol *fn = cw_image_func(t->img, pc);
	int fetch_fault = 0, have_cfsr, faulting;
	uint32_t target;
	struct cw_exc_return er;
	uint32_t cfsr;
	unsigned int k;

	if (req->known) {
		for (k = 0; k < CW_EXC_BASIC_WORDS; k++)
			if (cw_reg_ok(req->known, cw_exc_stacked[k]) &&
			    (req->known->r[cw_exc_stacked[k]] & ~(k == CW_EXC_PC_WORD ? 1u : 0u)) !=
			    (w[k] & ~(k == CW_EXC_PC_WORD ? 1u : 0u)))
				return 0;
	}
	if ((xpsr & CW_XPSR_RESERVED) || (pc & 1) ||
	    ((xpsr & CW_XPSR_IPSR) < 16 && (IPSR_IMPOSSIBLE >> (xpsr & CW_XPSR_IPSR) & 1)))
		return 0;
	/* Only a frame stacked on an unaligned sp says it realigned. */
	if ((base & 7) && (xpsr & CW_XPSR_ALIGN))
		return 0;
	if (req->er && req->er->thread != !(xpsr & CW_XPSR_IPSR))
		return 0;
	have_cfsr = !cw_mem_read32_dumped(t->mem, CW_SCB_CFSR, &cfsr) && cfsr;
	if (req->fault_frame) {
		if (!agrees_with_fault(t->mem, w, base + CW_EXC_BASIC_WORDS * 4))
			return 0;
		fetch_fault = have_cfsr && (cfsr & (CW_CFSR_IACCVIOL | CW_CFSR_IBUSERR));
	}
	/*
	 * T = 0 is stacked only by the INVSTATE fault it causes. The frame that
	 * holds the registers a dump recorded is the fault's too.
	 */
	faulting = newest_frame(req);
	if (!(xpsr & CW_XPSR_T) && !t0_possible(t->mem, req))
		return 0;
	if (!fetch_fault && faulting && (!fn || !cw_image_is_code(t->img, pc)))
		fetch_fault = wild_call(t, w);
	if (!fetch_fault) {
		if (!fn || cw_image_insn_start(t->img, pc) != 1)
			return 0;
		/* T = 0 only at a function's entry: a call through an even pointer. */
		if (!(xpsr & CW_XPSR_T) && pc != fn->addr)
			return 0;
	}
	if (lr == CW_LR_RESET_VALUE || (cw_is_exc_return(lr) && !cw_exc_return_decode(lr, &er)))
		return 1;
	/* After a call to a noreturn function that ends its caller, lr is past the code. */
	if ((lr & 1) && (cw_image_is_code(t->img, lr & ~1u) ||
			 cw_thumb_call_before(t->mem, lr, &target) == CW_CALL_BL))
		return 1;
	/* A low-overhead loop's count (v8.1-M), where the function has saved its return address. */
	return fn && cw_thumb_lr_free(t->mem, t->img, pc);
}

/* The stack a candidate sits in, as [lo, hi), and how it was bounded. */
static const struct cw_stack_range *range_of(const struct cw_search_hints *h, uint32_t a)
{
	unsigned int i;

	for (i = 0; h && i < h->nr; i++)
		if (a >= h->ranges[i].lo && a < h->ranges[i].hi)
			return &h->ranges[i];
	return NULL;
}

/* Is pc the return address of an svc that started the first task (struct cw_bounds)? */
static int start_svc_frame(const struct cw_bounds *b, uint32_t pc)
{
	unsigned int i;

	for (i = 0; b && i < b->nr_start_svc; i++)
		if (b->start_svc[i] == (pc & ~1u))
			return 1;
	return 0;
}

/*
 * Did the trial chain stop at a handler whose EXC_RETURN is in no stack slot
 * (ARM_CM0's PendSV), the stale one the kernel's start left refused? The
 * handler returns to the thread it interrupted, on a stack the chain has no
 * pointer for: as far as the chain can go, like a stop at a missing PSP.
 */
static int stale_start_stop(const struct cw_target *t, const struct cw_backtrace *bt)
{
	return bt->stop == CW_STOP_NO_RETURN && start_svc_frame(t->bounds, bt->stop_addr);
}

/*
 * Does the trial chain end by returning to the address the kernel gives
 * every new task to return to (FreeRTOS's prvTaskExitError, or
 * configTASK_RETURN_ADDRESS)? Its last frame is then a task's own function.
 */
static int returns_to_task_exit(const struct cw_target *t, const struct cw_backtrace *bt)
{
	return bt->stop == CW_STOP_BAD_PC && t->bounds && t->bounds->task_exit &&
	       (bt->stop_addr & ~1u) == t->bounds->task_exit;
}

/*
 * One byte repeated, as a kernel paints its stacks (Zephyr 0xAA, FreeRTOS
 * 0xA5, ThreadX 0xEF, LiteOS-M 0xCA): a return address read there is a slot
 * nothing wrote since the paint, such as the lr of a thread's first frame,
 * which Zephyr's arch_new_thread() leaves as it is.
 */
static int stack_fill_word(uint32_t v)
{
	return v == (v & 0xFF) * 0x01010101u && (v & 0xFF) && (v & 0xFF) != 0xFF;
}

/*
 * A trial chain is complete when it ends at the outermost frame, at an
 * exception return to a stack whose pointer it lacks, or at the frame cap
 * (every one of its 64 steps was checked); within a few words of its
 * stack's known top; where the RTOS started the thread (task_entry), or,
 * the RTOS unknown, at a return address that is a function's first
 * instruction (the one an RTOS gives a new task, which the task's entry
 * returns to) or a stack's fill (a first frame's lr no kernel wrote); or,
 * in a stack of unknown bounds, where the dumped memory ends. A chain of one
 * frame only in the first case the kernel names: a thread stopped in its own
 * task function, the tick hook's fault over a task that spins there among
 * them.
 */
static int chain_complete(const struct cw_target *t, const struct cw_backtrace *bt,
			  const struct cw_stack_range *r)
{
	const struct cw_symbol *fn;
	uint32_t top;

	if (bt->nr < 2)
		return bt->nr == 1 && (bt->stop == CW_STOP_TASK_ENTRY || returns_to_task_exit(t, bt));
	top = bt->frames[bt->nr - 1].sp;
	if (bt->stop == CW_STOP_OUTERMOST || bt->stop == CW_STOP_NO_PSP ||
	    bt->stop == CW_STOP_DEPTH || bt->stop == CW_STOP_TASK_ENTRY ||
	    (r && top <= r->hi && r->hi - top <= SEARCH_TOP_SLACK))
		return 1;
	if (bt->stop == CW_STOP_READ)
		return !r;
	if (bt->stop == CW_STOP_BAD_PC && stack_fill_word(bt->stop_addr))
		return 1;
	if (stale_start_stop(t, bt))
		return 1;
	fn = cw_image_func(t->img, bt->stop_addr & ~1u);
	return bt->stop == CW_STOP_BAD_PC && (bt->stop_addr & 1) && fn &&
	       fn->addr == (bt->stop_addr & ~1u);
}

struct candidate {
	uint32_t base;		/* where the frame's words start (v8-M: the additional state) */
	uint32_t region, end;	/* the dumped region it is in */
	unsigned int variant;	/* which frame type (ers[]) its words were read as */
	int stale;		/* the running thread's context from its last switch */
};

struct search {
	const struct cw_target *t;
	const struct cw_search_req *req;
	struct cw_exc_return ers[2];
	unsigned int nr_er;
	int bounded;		/* the hints name a stack of the kind searched: keep to it */
	int t0_ok;		/* a frame with T = 0 may be the INVSTATE fault's */
	int have_lazy;		/* FPCAR locates the newest extended frame: */
	uint32_t lazy_base;	/* its stacked r0 */
	struct candidate *c;
	unsigned int nr, cap;
	struct cw_search *res;
	struct chain_sp {
		uint32_t sp;
		int exception;	/* popped from an exception frame */
		int scanned;	/* found by the stack scan: it read no saved register */
	} sps[SEARCH_SEGMENTS * CW_MAX_FRAMES];	/* the chain just tried */
	unsigned int nr_sps;
	struct cw_exc_frame rivals[4];	/* complete candidates below the frame taken */
	unsigned int nr_rivals;
};

/*
 * The frame types to read at a: EXC_RETURN's when the walk has it; else what
 * a handler pushed right below the frame, when that is an EXC_RETURN; else
 * both the basic and the extended frame, and the trial unwinds decide.
 */
static unsigned int variants(struct search *s, uint32_t a, unsigned int *first)
{
	struct cw_exc_return er;
	uint32_t below;

	*first = 0;
	if (s->req->er)
		return 1;
	if (!cw_mem_read32(s->t->mem, a - 4, &below) && !cw_exc_return_decode(below, &er) &&
	    !er.fnc_return && er.dcrs) {
		*first = er.fp_frame;
		return *first + 1;
	}
	return 2;
}

/*
 * Below a stack pointer the words of its stack are dead: a frame pushed
 * there has been popped. Its stack is the range the hints give, else the
 * dumped region that holds it.
 */
static int below_given_sp(const struct search *s, uint32_t a, uint32_t start, uint32_t end)
{
	static const enum cw_reg sps[] = { CW_MSP, CW_PSP };
	const struct cw_regs *g = s->req->given;
	const struct cw_stack_range *r;
	unsigned int i;
	uint32_t sp;

	for (i = 0; g && i < ARRAY_SIZE(sps); i++) {
		if (!cw_reg_ok(g, sps[i]))
			continue;
		sp = g->r[sps[i]];
		r = range_of(s->t->hints, sp);
		if (r ? a >= r->lo && a < sp : a >= start && a < sp && sp <= end)
			return 1;
	}
	return 0;
}

/* The stack searched starts at a stack pointer given inside it. */
static void narrow_to_given(const struct cw_search_req *req, struct cw_search *res)
{
	const struct cw_regs *g = req->given;

	if (g && cw_reg_ok(g, CW_PSP) && g->r[CW_PSP] > res->lo && g->r[CW_PSP] <= res->at)
		res->lo = g->r[CW_PSP];
	if (g && cw_reg_ok(g, CW_MSP) && g->r[CW_MSP] > res->lo && g->r[CW_MSP] <= res->at)
		res->lo = g->r[CW_MSP];
}

/*
 * Once an RTOS's scheduler runs, thread mode runs on the process stacks
 * only: a frame on the main stack that interrupted thread mode (stacked
 * IPSR 0) is the one the scheduler's start left there (FreeRTOS's svc 0 in
 * prvPortStartFirstTask, ThreadX's PendSV wait), or older, never popped and
 * never the live one. Only where the walk has no EXC_RETURN that says
 * otherwise, and not for a kernel whose threads run on the main stack.
 */
static int stale_start_frame(const struct search *s, const struct cw_stack_range *r, uint32_t a)
{
	uint32_t xpsr;

	if (s->req->er || !s->t->hints || !s->t->hints->threads_run ||
	    s->t->hints->threads_on_msp || !r || r->process)
		return 0;
	return !cw_mem_read32(s->t->mem, a + 4 * CW_EXC_XPSR_WORD, &xpsr) &&
	       !(xpsr & CW_XPSR_IPSR);
}

/*
 * Is the frame at base the one the kernel saved when the running thread was
 * last switched out, looked at for the fault's own frame? The thread ran on
 * since: a fault in it stacked its frame elsewhere, but for the odd one at
 * the very same sp. An interrupt, unlike the fault, often stacks its frame
 * right where the last preemption did (a thread spinning in one loop), so
 * the frame an interrupt left is not judged so.
 */
static int listed(const uint32_t *frames, unsigned int n, uint32_t base)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (frames[i] == base)
			return 1;
	return 0;
}

static int is_stale(const struct search *s, uint32_t base)
{
	const struct cw_search_hints *h = s->t->hints;

	return s->req->fault_frame && h && listed(h->stale, h->nr_stale, base);
}

/* Is the frame at base the context the kernel saved for a thread not running? */
static int is_other_context(const struct search *s, uint32_t base)
{
	const struct cw_search_hints *h = s->t->hints;

	return h && listed(h->others, h->nr_others, base);
}

/*
 * The frame the svc that started the first task stacked (struct cw_bounds
 * start_svc): once the kernel says its threads run, dead, whatever stack it
 * is on and whether or not the firmware names that stack.
 */
static int start_frame(const struct search *s, uint32_t pc)
{
	return s->t->hints && s->t->hints->threads_run && start_svc_frame(s->t->bounds, pc);
}

/*
 * Whether the basic frame at a fails one of candidate_ok()'s tests of its
 * own pc and xPSR (a set reserved bit, an odd pc, T = 0 where no INVSTATE
 * fault can have stacked it): two reads instead of a frame's worth for the
 * most of RAM's words, which are no frame (zeroed RAM has T = 0).
 */
static int plainly_no_frame(const struct cw_mem *mem, uint32_t a, int t0_ok)
{
	uint32_t pc, xpsr;

	return cw_mem_read32(mem, a + CW_EXC_PC_WORD * 4, &pc) ||
	       cw_mem_read32(mem, a + CW_EXC_XPSR_WORD * 4, &xpsr) ||
	       (xpsr & CW_XPSR_RESERVED) || (pc & 1) || (!(xpsr & CW_XPSR_T) && !t0_ok);
}

static void collect(struct search *s, uint32_t a, uint32_t start, uint32_t end)
{
	const struct cw_stack_range *r = range_of(s->t->hints, a);
	unsigned int v, first, n = variants(s, a, &first);
	struct cw_exc_frame f;
	int plain_no = -1;

	/*
	 * Where the dump says the frame is, only there. Else a bounded search
	 * keeps to its stacks, and out of the other kind's; a search on either
	 * kind keeps to the live stacks when both are known.
	 */
	if (s->req->only_at ? a != s->req->only_at :
	    s->req->process >= 0 ? (r && r->process != s->req->process) || (!r && s->bounded) :
	    !r && s->bounded)
		return;
	if (below_given_sp(s, a, start, end) || stale_start_frame(s, r, a) ||
	    (r && r->not_running))
		return;
	for (v = first; v < n; v++) {
		/* Without additional state the basic frame starts at a, in every variant. */
		if (s->ers[v].dcrs) {
			if (plain_no < 0)
				plain_no = plainly_no_frame(s->t->mem, a, s->t0_ok);
			if (plain_no)
				continue;
		}
		if (cw_exc_frame_read(s->t->mem, a, &s->ers[v], &f) != CW_EXC_OK ||
		    f.base + f.size > end || f.base + f.size < f.base)
			continue;
		/*
		 * FPCAR locates the newest extended frame: a frame there is
		 * extended. While its FP state is still owed (LSPACT), no newer
		 * one can have been stacked (that takes an FP instruction,
		 * which pays the debt), so the newest exception's frame, when
		 * extended, is that one: the fault's, or the interrupt's under
		 * a handler that faulted. Any other extended frame is older,
		 * such as the context a thread's last switch saved.
		 */
		if (s->have_lazy && f.base == s->lazy_base && !s->ers[v].fp_frame)
			continue;
		if (newest_frame(s->req) && s->have_lazy && s->ers[v].fp_frame &&
		    f.base != s->lazy_base)
			continue;
		/*
		 * Handler mode always stacks on a main stack: a frame on a
		 * thread's process stack interrupted Thread mode (IPSR 0).
		 */
		if (r && r->process && (f.words[CW_EXC_XPSR_WORD] & CW_XPSR_IPSR))
			continue;
		if (!candidate_ok(s->t, s->req, f.base, f.words) || is_other_context(s, f.base) ||
		    start_frame(s, f.words[CW_EXC_PC_WORD]))
			continue;
		s->res->candidates++;
		if (s->nr == s->cap) {
			s->res->truncated = 1;
			return;
		}
		s->c[s->nr++] = (struct candidate){ .base = a, .region = start, .end = end,
						    .variant = v,
						    .stale = is_stale(s, f.base) };
	}
}

static int by_address_down(const void *a, const void *b)
{
	const struct candidate *x = a, *y = b;

	if (x->base != y->base)
		return x->base < y->base ? 1 : -1;
	return (int)x->variant - (int)y->variant;
}

/*
 * Trial-unwind one candidate: when its chain is complete, how much the chain
 * is worth (the sum of its frames' confidence: a frame read as the wrong type
 * leaves the unwinders disagreeing above it), else 0. A chain longer than a
 * backtrace holds goes on from its last frame, up to SEARCH_SEGMENTS times:
 * its frames' stack pointers are kept in s->sps for accounts_for().
 */
static unsigned int try_chain(struct search *s, const struct candidate *c,
			      struct cw_exc_frame *f, struct cw_backtrace *bt)
{
	const struct cw_stack_range *r = range_of(s->t->hints, c->base);
	struct cw_regs regs = { .valid = 0 };
	unsigned int i, seg, worth = 0, crossed = 0;
	int handler;

	s->nr_sps = 0;
	cw_exc_frame_read(s->t->mem, c->base, &s->ers[c->variant], f);
	handler = !!(f->words[CW_EXC_XPSR_WORD] & CW_XPSR_IPSR);
	cw_exc_frame_pop(f, &regs);
	for (seg = 0; seg < SEARCH_SEGMENTS; seg++) {
		memset(bt, 0, sizeof(*bt));
		if (s->req->trial(s->req->ctx, &regs, bt))
			return 0;
		for (i = seg ? 1 : 0; i < bt->nr; i++) {
			worth += (unsigned int)bt->frames[i].confidence;
			if (s->nr_sps < ARRAY_SIZE(s->sps))
				s->sps[s->nr_sps++] = (struct chain_sp){
					bt->frames[i].sp, !!(bt->frames[i].flags & CW_FRAME_EXCEPTION),
					bt->frames[i].method == CW_M_SCAN };
			crossed |= (seg || i) && (bt->frames[i].flags & CW_FRAME_EXCEPTION);
		}
		if (bt->stop != CW_STOP_DEPTH || !bt->nr)
			break;
		/* From the last frame's pc and sp: a caller's registers are those alone. */
		regs = (struct cw_regs){ .valid = 0 };
		cw_reg_set(&regs, CW_PC, bt->frames[bt->nr - 1].pc);
		cw_reg_set(&regs, CW_SP, bt->frames[bt->nr - 1].sp);
	}
	/*
	 * The frame interrupted a handler (stacked IPSR not 0): its code was
	 * entered through an exception, so its chain leaves by an exception
	 * return. One that ends at the outermost frame or a thread's entry
	 * without one ran into older frames past the handler's (the same
	 * words read as an extended frame skip the handler's own).
	 */
	if (handler && !crossed && bt->stop != CW_STOP_NO_PSP && bt->stop != CW_STOP_DEPTH &&
	    !stale_start_stop(s->t, bt))
		return 0;
	/*
	 * A handler's leaf interrupted with its EXC_RETURN still in lr (code
	 * the vector's handler tail-called, such as the application's hook a
	 * SysTick handler ends in) returns straight to the stack it has no
	 * pointer for: its one frame is the handler's whole chain.
	 */
	if (handler && bt->nr == 1 && bt->stop == CW_STOP_NO_PSP)
		return worth;
	return chain_complete(s->t, bt, r) ? worth : 0;
}

/*
 * Does the chain just tried (s->sps) account for the frame f found higher
 * up: does it pop f (a later exception, nested in f's), or does one of its
 * frames start strictly inside f's words (the chain read its saved registers
 * there, so those words are its frames' data and f only looks like a frame)?
 * A scanned frame read no saved register: its sp proves nothing (a scan
 * from a stale copy of a frame climbs through the live one word by word).
 */
static int accounts_for(const struct search *s, const struct cw_exc_frame *f)
{
	unsigned int i;

	for (i = 1; i < s->nr_sps; i++) {
		if (s->sps[i].exception && s->sps[i].sp == f->base + f->size)
			return 1;
		if (!s->sps[i].scanned && s->sps[i].sp > f->base && s->sps[i].sp < f->base + f->size)
			return 1;
	}
	return 0;
}

/*
 * The frame taken interrupted Thread mode on a process stack, and a lower
 * rival interrupted a handler on a main stack, whose chain (bt) leaves by an
 * exception return to the process stack it has no pointer for: the same
 * crash seen at two levels, a fault in a handler over that thread (its
 * frame on the process stack the handler's entry stacked). Where the
 * main stack lies above the threads' the rule takes the handler's frame
 * first; where it lies below, so does this, and either way the other is
 * named as a rival. Only when the dump does not say which stack the fault
 * was on.
 */
static int handler_over_thread(const struct search *s, const struct cw_exc_frame *taken,
			       const struct cw_exc_frame *f, const struct cw_backtrace *bt)
{
	const struct cw_stack_range *rt = range_of(s->t->hints, taken->base);
	const struct cw_stack_range *rf = range_of(s->t->hints, f->base);

	return s->req->process < 0 && s->req->fault_frame && rt && rt->process &&
	       (!rf || !rf->process) && !(taken->words[CW_EXC_XPSR_WORD] & CW_XPSR_IPSR) &&
	       (f->words[CW_EXC_XPSR_WORD] & CW_XPSR_IPSR) && bt->stop == CW_STOP_NO_PSP;
}

/* Does the chain just tried account for every rival seen below the frame taken? */
static int accounts_for_rivals(const struct search *s)
{
	unsigned int i;

	for (i = 0; i < s->nr_rivals; i++)
		if (!accounts_for(s, &s->rivals[i]))
			return 0;
	return 1;
}

/* Do f's stacked r0-r3 and r12 hold what the handler's entry registers do? */
static int matches_entry(const struct cw_regs *entry, const struct cw_exc_frame *f)
{
	unsigned int k;

	if (!entry)
		return 0;
	for (k = 0; k < CW_EXC_LR_WORD; k++)
		if (!cw_reg_ok(entry, cw_exc_stacked[k]) ||
		    entry->r[cw_exc_stacked[k]] != f->words[k])
			return 0;
	return 1;
}

/*
 * Look through the dumped RAM (only the stacks req may be on, when the hints
 * bound them) for the frame req describes. The rule: among candidates whose
 * trial chain is complete, the live frame is the highest. Only one exception
 * frame of a stack is live; the stack below it is dead and keeps what earlier
 * exceptions stacked there (the context the last switch saved, interrupts
 * that hit deeper calls), whose chains the live frame's own stacking usually
 * breaks. A stale frame above the live one survives only in a hole of a live
 * frame, and its chain must then run through the live frames above it. The
 * candidates are tried from the top down; the search ends at the second
 * complete one, which the report names as a rival.
 */
int cw_search_frame(const struct cw_target *t, const struct cw_search_req *req,
		    struct cw_exc_frame *out, struct cw_search *res, struct cw_backtrace *scratch)
{
	struct search *s = calloc(1, sizeof(*s));
	unsigned int i, pass, worth, best_worth = 0, found = 0, kinds = 0, rescue_end = 0;
	const struct cw_stack_range *r;
	struct cw_exc_frame f;
	uint32_t a;

	memset(res, 0, sizeof(*res));
	res->ran = 1;
	if (!s)
		return -1;
	*s = (struct search){ .t = t, .req = req, .res = res, .nr_er = 1,
			      .cap = SEARCH_MAX_CANDIDATES };
	res->reg = req->reg;
	if (req->er) {
		s->ers[0] = *req->er;
	} else {
		cw_exc_return_decode(CW_EXC_RETURN_THREAD_MSP, &s->ers[0]);
		cw_exc_return_decode(CW_EXC_RETURN_THREAD_MSP_FP, &s->ers[1]);
		s->nr_er = 2;
	}
	for (i = 0; t->hints && i < t->hints->nr; i++)
		if (!t->hints->ranges[i].not_running)
			kinds |= 1u << !!t->hints->ranges[i].process;
	/*
	 * A search on either kind is bounded when both are known; where the
	 * kernel runs its threads on the main stack and names the running
	 * one, every live frame is on that thread's stack, handlers' too.
	 */
	s->bounded = req->process >= 0 ? !!(kinds & (1u << req->process)) :
		     kinds == 3 || (t->hints && t->hints->threads_on_msp && t->hints->rtos);
	s->have_lazy = !cw_exc_lazy_frame(t->mem, &s->lazy_base);
	s->t0_ok = t0_possible(t->mem, req);
	s->c = calloc(s->cap, sizeof(*s->c));
	if (!s->c) {
		free(s);
		return -1;
	}
	for (i = 0; i < t->mem->nr; i++) {
		const struct cw_region *reg = &t->mem->regions[i];
		uint32_t end = reg->addr + reg->size;

		if (strcmp(reg->origin, "dump") || reg->addr >= CW_SYSTEM_BASE || end < reg->addr)
			continue;
		for (a = (reg->addr + 3) & ~3u; a < end && end - a >= 32; a += 4)
			collect(s, a, reg->addr, end);
	}
	qsort(s->c, s->nr, sizeof(*s->c), by_address_down);
	/* The running thread's stale context only when no other candidate fits. */
	for (pass = 0; pass < 2 && !found; pass++) {
		for (i = 0; i < s->nr; i++) {
			const struct candidate *c = &s->c[i];

			if (c->stale != (int)pass)
				continue;
			if (res->tried == SEARCH_MAX_TRIALS ||
			    (s->nr_rivals && res->tried == rescue_end)) {
				res->truncated |= !s->nr_rivals;
				break;
			}
			res->tried++;
			worth = try_chain(s, c, &f, scratch);
			if (!worth)
				continue;
			/* The same words read as the other frame type: the surer chain is the frame. */
			if (found && c->base == res->at) {
				if (worth > best_worth) {
					*out = f;
					best_worth = worth;
				}
				continue;
			}
			res->complete++;
			if (found && (!accounts_for(s, out) || !accounts_for_rivals(s))) {
				/*
				 * A rival. Where the frame taken lacks the handler's
				 * entry registers, a lower one that holds them is live.
				 */
				int swap = (req->entry && !matches_entry(req->entry, out) &&
					    matches_entry(req->entry, &f)) ||
					   handler_over_thread(s, out, &f, scratch);

				if (!res->have_other) {
					res->have_other = 1;
					res->other = c->base;
				}
				if (!swap && (!req->entry || matches_entry(req->entry, out))) {
					/*
					 * The two may be words of a live frame's data
					 * that look like frames: a lower candidate whose
					 * chain runs through both is then the live one.
					 */
					if (s->nr_rivals == ARRAY_SIZE(s->rivals))
						break;
					if (!s->nr_rivals)
						rescue_end = res->tried + SEARCH_RESCUE_TRIALS;
					s->rivals[s->nr_rivals++] = f;
					continue;
				}
				if (!swap)
					continue;
				res->other = res->at;
				s->nr_rivals = 0;
			}
			/*
			 * The first complete candidate, a lower one that accounts for
			 * it (and for every rival seen), or one that holds the
			 * handler's entry registers.
			 */
			if (s->nr_rivals) {	/* it accounts for them all */
				s->nr_rivals = 0;
				res->have_other = 0;
			}
			found = 1;
			res->stale = (int)pass;
			*out = f;
			best_worth = worth;
			res->at = c->base;
			r = range_of(t->hints, c->base);
			res->lo = r ? r->lo : c->region;
			res->hi = r ? r->hi : c->end;
			res->bound = r ? r->bound : CW_BOUND_DUMP;
			narrow_to_given(req, res);
		}
	}
	free(s->c);
	free(s);
	if (!found)
		return -1;
	res->found = 1;
	if (res->have_other || res->truncated)
		res->confidence = CONF_SEARCH_AMBIGUOUS;
	else if (res->stale)
		res->confidence = CONF_SEARCH_STALE;
	else if (req->known)
		res->confidence = CONF_SEARCH_KNOWN;
	else
		res->confidence = res->bound == CW_BOUND_DUMP ? CONF_SEARCH_UNBOUNDED
							      : CONF_SEARCH_SURE;
	return 0;
}
