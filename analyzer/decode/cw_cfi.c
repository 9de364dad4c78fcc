// SPDX-License-Identifier: GPL-2.0
/*
 * cw_cfi.c - DWARF call frame information (.debug_frame, .eh_frame)
 * through libdw: the rules libdw computes for an address are evaluated here
 * against the dump, so every stack read goes through cw_mem.
 *
 * libdw hands each rule over as a small DWARF expression (an offset rule is
 * "DW_OP_call_frame_cfa; DW_OP_plus_uconst N", a register rule "DW_OP_regx R"
 * and so on); the evaluator below knows the operations those rules and GCC's
 * CFA expressions use and refuses any other with CW_CFI_EXPR.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdlib.h>
#include <string.h>

#include "decode/cw_cfi.h"
#include "image/cw_image.h"

#define EVAL_STACK	8	/* CFI rules need one or two entries; more is a corrupt table */
#define EVAL_MAX_OPS	64	/* longer expressions are refused, not walked */

const char *cw_cfi_status_name(enum cw_cfi_status s)
{
	static const char *const names[CW_CFI_NR] = {
		[CW_CFI_OK] = "ok", [CW_CFI_NO_ENTRY] = "no CFI for the address",
		[CW_CFI_TABLE] = "CFI unreadable",
		[CW_CFI_EXPR] = "DWARF expression not evaluated",
		[CW_CFI_REG] = "register unknown", [CW_CFI_READ] = "saved register outside memory",
		[CW_CFI_UNDEFINED] = "return address undefined",
	};

	return s < CW_CFI_NR ? names[s] : "unknown";
}

struct eval {
	const struct cw_mem *mem;
	const struct cw_regs *regs;	/* the frame being unwound */
	uint32_t cfa;
	int have_cfa;
	unsigned int bad_op;		/* the atom refused, for the caller's message */
};

static enum cw_cfi_status reg_value(const struct eval *e, Dwarf_Word reg, uint32_t *v)
{
	/* sp is the only one of r13-r15 a rule may name: pc is what we unwind to. */
	if (reg > CW_SP || !cw_reg_ok(e->regs, (enum cw_reg)reg))
		return CW_CFI_REG;
	*v = e->regs->r[reg];
	return CW_CFI_OK;
}

/* One operation on the stack st of depth *n. */
static enum cw_cfi_status eval_op(struct eval *e, const Dwarf_Op *op, uint32_t *st,
				  unsigned int *n, int *is_value)
{
	unsigned int a = op->atom;
	enum cw_cfi_status r;
	uint32_t v = 0, x;

	if (a == DW_OP_stack_value) {
		*is_value = 1;
		return CW_CFI_OK;
	}
	if (a == DW_OP_nop)
		return CW_CFI_OK;
	if (a == DW_OP_plus_uconst || a == DW_OP_deref || a == DW_OP_drop || a == DW_OP_dup) {
		if (!*n)
			return CW_CFI_TABLE;
		if (a == DW_OP_plus_uconst)
			st[*n - 1] += (uint32_t)op->number;
		else if (a == DW_OP_deref)
			return cw_mem_read32(e->mem, st[*n - 1], &st[*n - 1]) ? CW_CFI_READ : 0;
		else if (a == DW_OP_drop)
			(*n)--;
		else if (*n < EVAL_STACK)
			st[*n] = st[*n - 1], (*n)++;
		else
			return CW_CFI_TABLE;
		return CW_CFI_OK;
	}
	if (a == DW_OP_plus || a == DW_OP_minus || a == DW_OP_and || a == DW_OP_swap) {
		if (*n < 2)
			return CW_CFI_TABLE;
		x = st[*n - 1];
		if (a == DW_OP_swap) {
			st[*n - 1] = st[*n - 2];
			st[*n - 2] = x;
			return CW_CFI_OK;
		}
		(*n)--;
		if (a == DW_OP_plus)
			st[*n - 1] += x;
		else if (a == DW_OP_minus)
			st[*n - 1] -= x;
		else
			st[*n - 1] &= x;
		return CW_CFI_OK;
	}
	/* The rest push one value. */
	if (a == DW_OP_call_frame_cfa) {
		if (!e->have_cfa)
			return CW_CFI_TABLE;
		v = e->cfa;
	} else if (a >= DW_OP_lit0 && a <= DW_OP_lit31) {
		v = a - DW_OP_lit0;
	} else if (a == DW_OP_const1u || a == DW_OP_const1s || a == DW_OP_const2u ||
		   a == DW_OP_const2s || a == DW_OP_const4u || a == DW_OP_const4s ||
		   a == DW_OP_constu || a == DW_OP_consts) {
		v = (uint32_t)op->number;
	} else if (a >= DW_OP_breg0 && a <= DW_OP_breg31) {
		r = reg_value(e, a - DW_OP_breg0, &v);
		if (r)
			return r;
		v += (uint32_t)op->number;
	} else if (a == DW_OP_bregx) {
		r = reg_value(e, op->number, &v);
		if (r)
			return r;
		v += (uint32_t)op->number2;
	} else if ((a >= DW_OP_reg0 && a <= DW_OP_reg31) || a == DW_OP_regx) {
		/* A register location: its content is the value. */
		r = reg_value(e, a == DW_OP_regx ? op->number : a - DW_OP_reg0, &v);
		if (r)
			return r;
		*is_value = 1;
	} else {
		e->bad_op = a;
		return CW_CFI_EXPR;
	}
	if (*n >= EVAL_STACK)
		return CW_CFI_TABLE;
	st[(*n)++] = v;
	return CW_CFI_OK;
}

/* Evaluate ops; *is_value says whether the result is the value or the address holding it. */
static enum cw_cfi_status eval_ops(struct eval *e, const Dwarf_Op *ops, size_t nops,
				   uint32_t *out, int *is_value)
{
	uint32_t st[EVAL_STACK];
	unsigned int n = 0;
	size_t i;

	*is_value = 0;
	if (!nops || nops > EVAL_MAX_OPS)
		return nops ? CW_CFI_EXPR : CW_CFI_TABLE;
	for (i = 0; i < nops; i++) {
		enum cw_cfi_status r = eval_op(e, &ops[i], st, &n, is_value);

		if (r)
			return r;
	}
	if (!n)
		return CW_CFI_TABLE;
	*out = st[n - 1];
	return CW_CFI_OK;
}

/*
 * The caller's value of DWARF register regno. Returns CW_CFI_OK with *known
 * set or cleared (undefined), or why it cannot be computed.
 */
static enum cw_cfi_status caller_reg(struct eval *e, Dwarf_Frame *frame, int regno,
				     uint32_t *val, int *known)
{
	Dwarf_Op mem[3], *ops = NULL;
	size_t nops = 0;
	enum cw_cfi_status r;
	uint32_t v;
	int is_value;

	*known = 0;
	if (dwarf_frame_register(frame, regno, mem, &ops, &nops))
		return CW_CFI_TABLE;
	if (!nops && !ops) {
		/* same_value: the frame did not change it. */
		if (!cw_reg_ok(e->regs, (enum cw_reg)regno))
			return CW_CFI_REG;
		*val = e->regs->r[regno];
		*known = 1;
		return CW_CFI_OK;
	}
	if (!nops)
		return CW_CFI_OK;	/* undefined */
	r = eval_ops(e, ops, nops, &v, &is_value);
	if (r)
		return r;
	if (!is_value && cw_mem_read32(e->mem, v, &v))
		return CW_CFI_READ;
	*val = v;
	*known = 1;
	return CW_CFI_OK;
}

enum cw_cfi_status cw_cfi_step(struct cw_image *img, const struct cw_mem *mem, uint32_t addr,
			       struct cw_regs *regs, struct cw_cfi *info)
{
	struct eval e = { .mem = mem, .regs = regs };
	Dwarf_CFI *tabs[2];
	Dwarf_Frame *frame = NULL;
	enum cw_cfi_status st;
	struct cw_regs caller;
	Dwarf_Addr start, end;
	Dwarf_Op *ops;
	size_t nops;
	uint32_t v, ra;
	int i, known, is_value, ra_col;

	memset(info, 0, sizeof(*info));
	cw_image_cfi(img, &tabs[0], &tabs[1]);
	/* .debug_frame is the compiler's full description; .eh_frame the allocated copy. */
	for (i = 0; i < 2 && !frame; i++)
		if (tabs[i] && dwarf_cfi_addrframe(tabs[i], addr, &frame))
			frame = NULL;
	if (!frame)
		return CW_CFI_NO_ENTRY;
	info->eh_frame = i == 2;
	ra_col = dwarf_frame_info(frame, &start, &end, NULL);
	info->start = (uint32_t)start;
	info->end = (uint32_t)end;
	st = CW_CFI_TABLE;
	if (ra_col < 0 || ra_col > CW_LR || dwarf_frame_cfa(frame, &ops, &nops) || !nops)
		goto out;
	st = eval_ops(&e, ops, nops, &e.cfa, &is_value);
	if (st)
		goto out;
	e.have_cfa = 1;
	st = caller_reg(&e, frame, ra_col, &ra, &known);
	if (!st && !known)
		st = CW_CFI_UNDEFINED;
	if (st)
		goto out;
	/* The caller's registers: a rule that cannot be computed only loses that register. */
	caller = *regs;
	caller.valid &= ~((1u << 13) - 1);
	for (i = 0; i <= CW_R12; i++)
		if (!caller_reg(&e, frame, i, &v, &known) && known)
			cw_reg_set(&caller, (enum cw_reg)i, v);
	if (!caller_reg(&e, frame, CW_LR, &v, &known) && known)
		cw_reg_set(&caller, CW_LR, v);
	else
		caller.valid &= ~(1u << CW_LR);
	cw_reg_set(&caller, CW_SP, e.cfa);
	cw_reg_set(&caller, CW_PC, ra);
	*regs = caller;
out:
	info->bad_op = e.bad_op;
	free(frame);
	return st;
}
