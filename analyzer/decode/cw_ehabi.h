/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cw_ehabi.h - ARM EHABI unwind tables (decode/cw_ehabi.c): one step through
 * .ARM.exidx/.ARM.extab opcodes.
 */
#ifndef CW_EHABI_H
#define CW_EHABI_H

#include "base/cw_base.h"
#include "base/cw_mem.h"

enum cw_ehabi_status {
	CW_EHABI_OK,
	CW_EHABI_NO_ENTRY,	/* no exidx entry at or below the address */
	CW_EHABI_CANTUNWIND,	/* the entry is EXIDX_CANTUNWIND */
	CW_EHABI_REFUSE,	/* opcode 0x80 0x00: the table refuses to unwind */
	CW_EHABI_SPARE,		/* a spare or reserved opcode */
	CW_EHABI_TABLE,		/* table unreadable, truncated or malformed */
	CW_EHABI_PERSONALITY,	/* a compact personality index other than 0, 1, 2 */
	CW_EHABI_STACK,		/* a pop reads outside the dump and the image */
	CW_EHABI_REG,		/* the opcodes need a register whose value is unknown */
	CW_EHABI_NR
};

/* What a step used: the entry, the function start it names, the registers popped. */
struct cw_ehabi {
	uint32_t func;
	uint32_t entry;
	uint32_t popped;	/* bit n: rN was restored from the stack */
};

enum cw_ehabi_status cw_ehabi_find(const struct cw_mem *mem, uint32_t tab, uint32_t size,
				   uint32_t addr, uint32_t *func, uint32_t *entry);
enum cw_ehabi_status cw_ehabi_step(const struct cw_mem *mem, uint32_t tab, uint32_t size,
				   uint32_t addr, struct cw_regs *regs, struct cw_ehabi *info);
const char *cw_ehabi_status_name(enum cw_ehabi_status s);

#endif /* CW_EHABI_H */
