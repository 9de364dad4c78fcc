/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cw_search.h - the frame search (unwind/cw_search.c) in the stacks rtos/cw_stacks.c
 * names: an exception frame found in RAM when the dump lacks its stack pointer.
 */
#ifndef CW_SEARCH_H
#define CW_SEARCH_H

#include "base/cw_base.h"

struct cw_backtrace;
struct cw_dump;
struct cw_exc_frame;
struct cw_exc_return;
struct cw_target;

/* What bounded a frame search: the stack it looked in. */
enum cw_search_bound {
	CW_BOUND_DUMP,		/* every dumped RAM word outside the other kind's stacks */
	CW_BOUND_SYMBOLS,	/* a stack the firmware's symbols name */
	CW_BOUND_RTOS,		/* the running thread's stack, from the RTOS's objects */
};

struct cw_stack_range {
	uint32_t lo, hi;	/* [lo, hi) */
	int process;		/* a thread's (process) stack, else the main stack */
	/*
	 * A thread's the kernel says is not running: its words are that
	 * thread's saved context and older frames, never the live frame.
	 */
	int not_running;
	enum cw_search_bound bound;
	char what[64];		/* the symbols or the thread that name it */
};

#define CW_MAX_STACK_RANGES	96	/* a thread's each, the main stacks */
#define CW_MAX_STALE_FRAMES	8
#define CW_MAX_OTHER_FRAMES	64

/* Where the stacks are, for a search: cw_stack_hints() fills it. */
struct cw_search_hints {
	struct cw_stack_range ranges[CW_MAX_STACK_RANGES];
	unsigned int nr;
	int rtos;		/* an RTOS's objects name a running thread */
	/*
	 * Its scheduler has started: thread mode runs on the process stack
	 * only, so a thread-mode frame on the main stack is stale (the one
	 * the scheduler's start left there).
	 */
	int threads_run;
	/*
	 * Its threads run on the main stack (struct cw_rtos threads_on_msp):
	 * their stacks are main-stack ranges, and a thread-mode frame there
	 * is a thread's.
	 */
	int threads_on_msp;
	/*
	 * The frames the kernel saved at the running thread's last switch:
	 * stale while it runs, taken only when no other frame fits.
	 */
	uint32_t stale[CW_MAX_STALE_FRAMES];
	unsigned int nr_stale;
	/*
	 * The frames the kernel saved for the threads not running: never the
	 * live one, wherever they lie (a neighbour's stack, below the running
	 * thread's, which a search reaches when that one may have overflowed).
	 */
	uint32_t others[CW_MAX_OTHER_FRAMES];
	unsigned int nr_others;
	/*
	 * [lo, hi) of the running thread's stack as its kernel gives it (lo 0:
	 * unknown, hi 0: its top unknown): a v8-M port sets its PSPLIM to lo.
	 */
	uint32_t running_lo, running_hi;
};

/* The outcome of a frame search, for the report. */
struct cw_search {
	int ran, found;
	enum cw_reg reg;	/* the stack pointer the dump lacked */
	uint32_t at;		/* the frame taken as live */
	unsigned int candidates;	/* frames that passed the checks on their words */
	unsigned int tried;	/* trial unwinds, from the highest candidate down */
	unsigned int complete;	/* of those, with a complete chain (at most 2: the
				 * search ends at the first rival) */
	int have_other;		/* another candidate also yields a complete chain: */
	uint32_t other;		/* the next one below the frame taken */
	int truncated;		/* more candidates than trial unwinds allowed */
	int stale;		/* the frame taken is the running thread's stale saved
				 * context: no other candidate yields a complete chain */
	int confidence;
	enum cw_search_bound bound;
	uint32_t lo, hi;	/* the stack searched, [lo, hi) */
};

/* A trial unwind from a candidate's registers: 0 with bt filled. */
typedef int (*cw_search_trial_fn)(void *ctx, const struct cw_regs *regs, struct cw_backtrace *bt);

struct cw_search_req {
	enum cw_reg reg;		/* the stack pointer the dump lacks */
	int process;			/* the frame is on a process (1) or main (0) stack, or
					 * either (-1) */
	const struct cw_exc_return *er;	/* the EXC_RETURN that named the frame */
	int fault_frame;		/* the fault's own frame: CFSR must agree with its pc */
	int innermost;			/* the newest exception's frame: a wild pc there can
					 * only be a fault's (no interrupt stacks one) */
	const struct cw_regs *known;	/* stacked words the dump recorded, or NULL */
	const struct cw_regs *entry;	/* registers at the fault handler's first instruction,
					 * or NULL: r0-r3 and r12 are still the stacked ones
					 * (unless tail-chained), preferred among rivals */
	const struct cw_regs *given;	/* MSP and PSP given by hand (--sp), or NULL: the
					 * words below each on its stack are dead */
	uint32_t only_at;		/* where the frame is, when the dump says so; 0: anywhere */
	cw_search_trial_fn trial;
	void *ctx;
};

int cw_search_frame(const struct cw_target *t, const struct cw_search_req *req,
		    struct cw_exc_frame *out, struct cw_search *res, struct cw_backtrace *scratch);

const char *cw_search_bound_name(enum cw_search_bound b);

/*
 * Where the stacks are (rtos/cw_stacks.c): the firmware's stack symbols, and
 * the running thread's with an RTOS.
 */
int cw_stack_hints(const struct cw_target *t, const struct cw_dump *dump, enum cw_rtos_kind kind,
		   enum cw_unwinder how, struct cw_search_hints *h);

#endif /* CW_SEARCH_H */
