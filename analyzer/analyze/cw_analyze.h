/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cw_analyze.h - the pipeline (analyze/cw_analyze.c): what cw_analyze() leaves for
 * the report, and the register block that completes a dump's registers.
 */
#ifndef CW_ANALYZE_H
#define CW_ANALYZE_H

#include "dump/cw_dump.h"
#include "decode/cw_fault.h"
#include "report/cw_match.h"
#include "rtos/cw_rtos.h"
#include "unwind/cw_search.h"
#include "unwind/cw_unwind.h"

struct cw_analysis {
	struct cw_dump dump;
	struct cw_image *img;		/* the firmware it was analyzed against */
	struct cw_bounds ends;		/* where the RTOS starts and ends its threads */
	struct cw_search_hints hints;	/* where the stacks are, when a stack pointer is missing */
	struct cw_search found;		/* how a search found the registers */
	struct cw_backtrace bt;
	struct cw_fault fault;
	struct cw_match match;
	struct cw_rtos rtos;
};

/* --regs SYMBOL:LAYOUT: the registers of a dump without them, from a register block in RAM. */
int cw_regs_from_regblock(const struct cw_target *t, struct cw_dump *dump, const char *spec,
			  struct cw_error *err);

#endif /* CW_ANALYZE_H */
