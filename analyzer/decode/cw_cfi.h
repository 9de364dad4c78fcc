/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cw_cfi.h - DWARF call frame information (decode/cw_cfi.c): one step through
 * .debug_frame or .eh_frame rules.
 */
#ifndef CW_CFI_H
#define CW_CFI_H

#include "base/cw_base.h"
#include "base/cw_mem.h"

struct cw_image;

enum cw_cfi_status {
	CW_CFI_OK,
	CW_CFI_NO_ENTRY,	/* no CFI section, or no FDE covers the address */
	CW_CFI_TABLE,		/* libdw could not read the CFI, or a rule is malformed */
	CW_CFI_EXPR,		/* a DWARF expression operation crashwalk does not evaluate */
	CW_CFI_REG,		/* the CFA or return address needs a register whose value is unknown */
	CW_CFI_READ,		/* a saved register lies outside the dump and the image */
	CW_CFI_UNDEFINED,	/* the return address column is undefined: the outermost frame */
	CW_CFI_NR
};

struct cw_cfi {
	uint32_t start, end;	/* the address range the rules hold for */
	int eh_frame;		/* found in .eh_frame (else .debug_frame) */
	unsigned int bad_op;	/* with CW_CFI_EXPR: the DW_OP refused */
};

enum cw_cfi_status cw_cfi_step(struct cw_image *img, const struct cw_mem *mem, uint32_t addr,
			       struct cw_regs *regs, struct cw_cfi *info);
const char *cw_cfi_status_name(enum cw_cfi_status s);

#endif /* CW_CFI_H */
