/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cw_walk.h - the unwinder engine's insides, shared by the engine
 * (unwind/cw_unwind.c), the walk's state and helpers (unwind/cw_walk.c), its
 * steppers (cw_step_*.c) and the exception walk (cw_walk_exc.c).
 */
#ifndef CW_WALK_H
#define CW_WALK_H

#include "unwind/cw_unwind.h"

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

struct cw_walk {
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
	/*
	 * The engine's trial unwind for the frame search: handed down by
	 * cw_unwind() so the exception walk reaches the engine only through
	 * this pointer, never by name (the files' calls flow one way).
	 */
	cw_search_trial_fn trial;
};

/* What one step found: the caller's pc and sp, or a stop. */
struct cw_step {
	uint32_t pc;		/* may be an EXC_RETURN value */
	uint32_t sp;		/* caller's sp; for an EXC_RETURN, the sp at exception entry */
	enum cw_method method;
	int confidence;
	unsigned int flags;
	uint32_t restore[16];	/* callee-saved registers recovered by the step */
	uint32_t restored;
	uint32_t lost;		/* r4-r11 the step knows were changed to unknown values */
	unsigned int applied, agreed, disagreed;	/* as in struct cw_frame */
	struct cw_proposal proposed[CW_MAX_PROPOSALS];
	unsigned int nr_proposed;
};

/* The engine's trial unwinds for the frame search: which target, which unwinders. */
struct cw_walk_trial {
	const struct cw_target *t;
	enum cw_unwinder how;
};

/* ---- the walk's helpers (unwind/cw_walk.c) ---- */

/* End the walk: bt->stop and its detail; returns -1. */
int cw_walk_stop(struct cw_walk *w, enum cw_stop why, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int cw_walk_is_return(const struct cw_walk *w, uint32_t ret);
int cw_walk_is_task_exit(const struct cw_walk *w, uint32_t v);
void cw_walk_push(struct cw_walk *w, uint32_t pc, uint32_t sp, enum cw_method m, int conf,
		  unsigned int flags);
uint32_t cw_walk_code_at(const struct cw_walk *w, uint32_t pc);
int cw_walk_below_top(const struct cw_walk *w, uint32_t end);

/*
 * ---- the steppers: one caller of the frame at w->regs each ----
 * 0 with s filled, 1 when the method does not apply here, -1 on a stop.
 */

int cw_step_cfi(struct cw_walk *w, const struct cw_symbol *fn, struct cw_step *s);
int cw_step_ehabi(struct cw_walk *w, const struct cw_symbol *fn, struct cw_step *s);
int cw_step_pseudo(struct cw_walk *w, const struct cw_symbol *fn, struct cw_step *s);
int cw_step_fp(struct cw_walk *w, const struct cw_symbol *fn, struct cw_step *s);
int cw_step_fp_leaf(struct cw_walk *w, const struct cw_symbol *fn, struct cw_step *s);
int cw_step_scan(struct cw_walk *w, const struct cw_symbol *fn, struct cw_step *s);

/* unwind/cw_step_fp.c: the r7 record chain as --method fp walks it, and r7 rebuilt. */
int cw_fp_record_offset(struct cw_walk *w, const struct cw_symbol *fn, uint32_t pc,
			int32_t *off);
void cw_fp_recover_r7(struct cw_walk *w, const struct cw_symbol *fn);
int cw_walk_fp_segment(struct cw_walk *w);

/* ---- the exception walk (unwind/cw_walk_exc.c) ---- */

int cw_stacking_failed(const struct cw_mem *mem);
int cw_walk_exception(struct cw_walk *w, uint32_t exc_return, uint32_t sp_at_entry);
int cw_walk_lost_frame(struct cw_walk *w, uint32_t exc_return, uint32_t base,
		       unsigned int flags);

#endif /* CW_WALK_H */
