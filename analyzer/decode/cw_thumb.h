/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cw_thumb.h - Thumb decoding and pseudo-execution (decode/cw_thumb.c): calls
 * before a return address, branches, and what a prologue or an epilogue does.
 */
#ifndef CW_THUMB_H
#define CW_THUMB_H

#include <stddef.h>

#include "base/cw_mem.h"

struct cw_image;

/* Is hw the first halfword of a 32-bit Thumb instruction (ARMv7-M ARM A5.1)? */
static inline int cw_thumb_is_32bit(uint16_t hw)
{
	return (hw >> 11) >= 0x1D;
}

enum cw_call_kind {
	CW_CALL_NONE,
	CW_CALL_BL,		/* direct: the target is known */
	CW_CALL_BLX_REG,	/* indirect: the target is in a register */
};

enum cw_call_kind cw_thumb_call_before(const struct cw_mem *mem, uint32_t ret, uint32_t *target);
int cw_thumb_bl_decode(uint16_t hw1, uint16_t hw2, uint32_t addr, uint32_t *target);
int cw_thumb_is_blx_reg(uint16_t hw);
int cw_thumb_b_target(const struct cw_mem *mem, uint32_t addr, uint32_t *target, unsigned int *len);

/* ARMv8.1-M's low-overhead loop instructions (cw_thumb_lob_decode()). */
enum cw_lob_kind {
	CW_LOB_NONE,
	CW_LOB_DLS,		/* DLS, DLSTP: lr = the count */
	CW_LOB_WLS,		/* WLS, WLSTP: lr = the count, or to the target when 0 */
	CW_LOB_LE,		/* LE, LETP: count lr down, back to the target */
	CW_LOB_LE_FOREVER,	/* LE without lr: back to the target */
	CW_LOB_LCTP,		/* end tail predication */
};

enum cw_lob_kind cw_thumb_lob_decode(uint16_t hw1, uint16_t hw2, uint32_t addr, uint32_t *target);
int cw_thumb_lob_format(uint16_t hw1, uint16_t hw2, uint32_t addr, char *buf, size_t n);
int cw_thumb_lr_free(const struct cw_mem *mem, const struct cw_image *img, uint32_t pc);

/* What a function's prologue did before a given pc, relative to the CFA (the sp at entry). */
struct cw_prologue {
	int32_t sp_off;		/* sp = CFA + sp_off (sp_off <= 0) */
	int32_t slot[16];	/* rN saved at CFA + slot[N], when saved & (1 << N) */
	uint32_t saved;
	int fp_set;		/* r7 = CFA + fp_off */
	int32_t fp_off;
	int sp_dynamic;		/* sp moved by an amount unknown here (alloca, VLA): use r7 */
	unsigned int insns;	/* instructions decoded */
};

uint32_t cw_thumb_sp_decrement(uint16_t hw1, uint16_t hw2);
int cw_prologue_analyze(const struct cw_mem *mem, const struct cw_image *img, uint32_t func,
			uint32_t pc, struct cw_prologue *out);

/* What the code from a pc to its function's return does, relative to a register at the pc. */
struct cw_epilogue {
	int base;		/* CW_SP or CW_R7: the register the offsets below start from */
	int32_t cfa_off;	/* the caller's sp = base + cfa_off */
	int32_t slot[16];	/* rN (pc: the return address) reloaded from base + slot[N] */
	uint32_t restored;
	uint32_t clobbered;	/* registers written with values the analysis does not know */
	int ret_lr;		/* returns through lr (BX lr, tail call): lr, or its slot */
	unsigned int insns;
};

int cw_epilogue_analyze(const struct cw_mem *mem, const struct cw_image *img, uint32_t func,
			uint32_t end, uint32_t pc, struct cw_epilogue *out);

/* A word a function stored at its first argument plus off. */
struct cw_stored_word {
	int32_t off;
	uint32_t val;
};

int cw_thumb_arg_stores(const struct cw_mem *mem, const struct cw_image *img, uint32_t func,
			struct cw_stored_word *out, unsigned int max);

#endif /* CW_THUMB_H */
