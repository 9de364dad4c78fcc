/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cw_options.h - the option strings' parsed forms that stay inside the
 * library (analyze/cw_options.c); the parsers a program calls are in crashwalk.h.
 */
#ifndef CW_OPTIONS_H
#define CW_OPTIONS_H

#include "base/cw_base.h"

#define CW_REGBLOCK_MAX_WORDS	64
#define CW_REGBLOCK_SKIP	CW_NR_REGS	/* a word "-": not a register */

/*
 * --regs SYMBOL:LAYOUT: where the register block is (the registers the
 * firmware saved in RAM at the fault) and what each 32-bit word of it holds.
 */
struct cw_regblock {
	char symbol[128];
	uint8_t word[CW_REGBLOCK_MAX_WORDS];	/* enum cw_reg, or CW_REGBLOCK_SKIP */
	unsigned int nr;
};

int cw_regblock_parse(const char *spec, struct cw_regblock *out, struct cw_error *err);
int cw_regblock_find(const struct cw_image *img, const struct cw_regblock *blk,
		     const char *spec, uint32_t *addr, struct cw_error *err);

#endif /* CW_OPTIONS_H */
