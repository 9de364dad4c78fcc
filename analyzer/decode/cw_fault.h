/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cw_fault.h - fault decoding (decode/cw_fault.c): the SCB's fault status
 * registers and a Zephyr dump's reason explained, and the faulting
 * instruction disassembled.
 */
#ifndef CW_FAULT_H
#define CW_FAULT_H

#include "base/cw_mem.h"

struct cw_fault {
	int have_scb;
	uint32_t cfsr, hfsr, dfsr, mmfar, bfar, afsr, shcsr;
	int have_sfsr;		/* v8-M SAU registers were in the dump */
	uint32_t sfsr, sfar;
	char lines[16][160];
	unsigned int nr;
	char insn[224];		/* the faulting instruction, disassembled */
	int insn_undecoded;	/* insn says why it is not disassembled, with the encoding */
	char cls[48];		/* short class for grouping: "bus-precise", "undefined", ... */
	uint32_t zephyr_reason;	/* a Zephyr dump's reason code, or CW_NO_ZEPHYR_REASON */
};

/* CFSR (MMFSR, BFSR, UFSR) bits; decode/cw_fault.c explains each. */
#define CW_CFSR_IACCVIOL	(1u << 0)
#define CW_CFSR_DACCVIOL	(1u << 1)
#define CW_CFSR_MUNSTKERR	(1u << 3)
#define CW_CFSR_MSTKERR		(1u << 4)
#define CW_CFSR_MLSPERR		(1u << 5)
#define CW_CFSR_MMARVALID	(1u << 7)
#define CW_CFSR_IBUSERR		(1u << 8)
#define CW_CFSR_PRECISERR	(1u << 9)
#define CW_CFSR_IMPRECISERR	(1u << 10)
#define CW_CFSR_UNSTKERR	(1u << 11)
#define CW_CFSR_STKERR		(1u << 12)
#define CW_CFSR_LSPERR		(1u << 13)
#define CW_CFSR_BFARVALID	(1u << 15)
#define CW_CFSR_UNDEFINSTR	(1u << 16)
#define CW_CFSR_INVSTATE	(1u << 17)
#define CW_CFSR_INVPC		(1u << 18)
#define CW_CFSR_NOCP		(1u << 19)
#define CW_CFSR_STKOF		(1u << 20)
#define CW_CFSR_UNALIGNED	(1u << 24)
#define CW_CFSR_DIVBYZERO	(1u << 25)
/* A failed exception stacking: the crash's own frame was never written. */
#define CW_CFSR_STACKING	(CW_CFSR_MSTKERR | CW_CFSR_STKERR | CW_CFSR_STKOF)
#define CW_SFSR_SFARVALID	(1u << 6)	/* v8-M SAU: SFAR holds the address */
#define CW_SCB_CFSR		0xE000ED28u

void cw_fault_decode(const struct cw_mem *mem, uint32_t fault_pc, int pc_ok, struct cw_fault *f);

#define CW_SCB_MMFAR		0xE000ED34u
#define CW_SCB_BFAR		0xE000ED38u

void cw_fault_explain(uint32_t cfsr, uint32_t hfsr, struct cw_fault *f);
void cw_fault_explain_debug(uint32_t dfsr, struct cw_fault *f);
void cw_fault_explain_secure(uint32_t sfsr, struct cw_fault *f);
void cw_fault_explain_zephyr(uint32_t reason, struct cw_fault *f);
void cw_fault_explain_stack_limit(struct cw_fault *f, uint32_t pc, uint32_t sp, uint32_t lo);
const char *cw_fault_zephyr_reason_name(uint32_t reason);

#endif /* CW_FAULT_H */
