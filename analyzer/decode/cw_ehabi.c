// SPDX-License-Identifier: GPL-2.0
/*
 * cw_ehabi.c - ARM EHABI unwinding: find a function's .ARM.exidx entry and
 * run its unwind opcodes (inline, compact personality 0/1/2 or the generic
 * model's opcode words in .ARM.extab) to recover the caller's registers.
 *
 * The tables and the stack are read only through cw_mem, so a corrupt table
 * or a wild vsp ends in a status, never in a read outside the dump or image.
 */
#include <string.h>

#include "decode/cw_ehabi.h"

#define EXIDX_CANTUNWIND	0x1u
/* Personality 1/2 and the generic model carry at most 255 extra words after the first. */
#define EHABI_MAX_EXTRA		255u
#define EHABI_MAX_OPS		(3u + 4u * EHABI_MAX_EXTRA)
/* A uleb128 that fits 32 bits has at most 5 bytes; longer ones are corrupt. */
#define ULEB_MAX_BYTES		5u

const char *cw_ehabi_status_name(enum cw_ehabi_status s)
{
	static const char *const names[CW_EHABI_NR] = {
		[CW_EHABI_OK] = "ok", [CW_EHABI_NO_ENTRY] = "no exidx entry",
		[CW_EHABI_CANTUNWIND] = "EXIDX_CANTUNWIND", [CW_EHABI_REFUSE] = "refuse to unwind",
		[CW_EHABI_SPARE] = "spare opcode", [CW_EHABI_TABLE] = "truncated or bad table",
		[CW_EHABI_PERSONALITY] = "unknown personality",
		[CW_EHABI_STACK] = "pop outside memory", [CW_EHABI_REG] = "register unknown",
	};

	return s < CW_EHABI_NR ? names[s] : "unknown";
}

/* A prel31 word: a 31-bit signed offset from the word's own address. */
static uint32_t prel31(uint32_t word, uint32_t at)
{
	int32_t off = (int32_t)(word << 1) >> 1;

	return at + (uint32_t)off;
}

/*
 * Binary search over the sorted 8-byte entries for the last one whose
 * function starts at or below addr.
 */
enum cw_ehabi_status cw_ehabi_find(const struct cw_mem *mem, uint32_t tab, uint32_t size,
				   uint32_t addr, uint32_t *func, uint32_t *entry)
{
	uint32_t lo = 0, hi = size / 8, w, start;
	int found = 0;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2, at = tab + 8 * mid;

		if (cw_mem_read32(mem, at, &w))
			return CW_EHABI_TABLE;
		start = prel31(w, at) & ~1u;
		if (start <= addr) {
			*func = start;
			*entry = at;
			found = 1;
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return found ? CW_EHABI_OK : CW_EHABI_NO_ENTRY;
}

struct ops {
	uint8_t b[EHABI_MAX_OPS];
	unsigned int n;
};

/* Append the bytes of a word MSB first, from byte index first down to 0. */
static void ops_word(struct ops *o, uint32_t w, int first)
{
	int i;

	for (i = first; i >= 0; i--)
		o->b[o->n++] = (uint8_t)(w >> (8 * i));
}

/* The opcode words after a compact or generic header: extra words, MSB first. */
static enum cw_ehabi_status ops_extra(const struct cw_mem *mem, uint32_t at, unsigned int nr,
				      struct ops *o)
{
	unsigned int i;
	uint32_t w;

	for (i = 0; i < nr; i++) {
		if (cw_mem_read32(mem, at + 4 * i, &w))
			return CW_EHABI_TABLE;
		ops_word(o, w, 3);
	}
	return CW_EHABI_OK;
}

/* Collect the opcode bytes of the entry at 'entry' (word 1 of exidx). */
static enum cw_ehabi_status ehabi_ops(const struct cw_mem *mem, uint32_t entry, struct ops *o)
{
	uint32_t w1, x, hdr;
	unsigned int idx;

	o->n = 0;
	if (cw_mem_read32(mem, entry + 4, &w1))
		return CW_EHABI_TABLE;
	if (w1 == EXIDX_CANTUNWIND)
		return CW_EHABI_CANTUNWIND;
	if (w1 & 0x80000000u) {
		/* Inline: only personality 0 fits in one word. */
		if ((w1 >> 24) != 0x80)
			return CW_EHABI_PERSONALITY;
		ops_word(o, w1, 2);
		return CW_EHABI_OK;
	}
	x = prel31(w1, entry + 4);
	if (cw_mem_read32(mem, x, &hdr))
		return CW_EHABI_TABLE;
	if (!(hdr & 0x80000000u)) {
		/*
		 * Generic model: a personality routine, then GCC's __gnu_unwind
		 * layout: a count of extra words, three opcodes, the words.
		 */
		if (cw_mem_read32(mem, x + 4, &hdr))
			return CW_EHABI_TABLE;
		ops_word(o, hdr, 2);
		return ops_extra(mem, x + 8, hdr >> 24, o);
	}
	if ((hdr >> 28) != 0x8)
		return CW_EHABI_PERSONALITY;
	idx = (hdr >> 24) & 0xf;
	if (idx == 0) {
		ops_word(o, hdr, 2);
		return CW_EHABI_OK;
	}
	if (idx > 2)
		return CW_EHABI_PERSONALITY;
	ops_word(o, hdr, 1);
	return ops_extra(mem, x + 4, (hdr >> 16) & 0xff, o);
}

struct vm {
	const struct cw_mem *mem;
	struct cw_regs *regs;
	uint32_t vsp;
	uint32_t popped;
};

static enum cw_ehabi_status pop_mask(struct vm *v, uint32_t mask)
{
	uint32_t val, r, new_sp = 0;
	int sp_popped = 0;

	for (r = 0; r < 16; r++) {
		if (!(mask & (1u << r)))
			continue;
		if (cw_mem_read32(v->mem, v->vsp, &val))
			return CW_EHABI_STACK;
		v->vsp += 4;
		if (r == CW_SP) {
			/* Popping r13 makes the loaded value the vsp, after the whole pop. */
			new_sp = val;
			sp_popped = 1;
		} else {
			cw_reg_set(v->regs, (enum cw_reg)r, val);
			v->popped |= 1u << r;
		}
	}
	if (sp_popped)
		v->vsp = new_sp;
	return CW_EHABI_OK;
}

/* VFP registers are not tracked: skipping their words is all a pop needs. */
static enum cw_ehabi_status pop_skip(struct vm *v, uint32_t bytes)
{
	uint32_t dummy;

	if (cw_mem_read32(v->mem, v->vsp + bytes - 4, &dummy))
		return CW_EHABI_STACK;
	v->vsp += bytes;
	return CW_EHABI_OK;
}

/* 10110010 uleb128: vsp += 0x204 + (uleb128 << 2). */
static enum cw_ehabi_status op_uleb(struct vm *v, const struct ops *o, unsigned int *i)
{
	uint32_t val = 0;
	unsigned int k;

	for (k = 0; k < ULEB_MAX_BYTES; k++) {
		uint8_t b;

		if (*i >= o->n)
			return CW_EHABI_TABLE;
		b = o->b[(*i)++];
		val |= (uint32_t)(b & 0x7f) << (7 * k);
		if (!(b & 0x80)) {
			v->vsp += 0x204 + (val << 2);
			return CW_EHABI_OK;
		}
	}
	return CW_EHABI_TABLE;
}

/* The 1011xxxx group: finish, pop r0-r3, uleb128, FSTMFDX pops, PAC. */
static enum cw_ehabi_status op_b(struct vm *v, const struct ops *o, unsigned int *i, uint8_t op,
				 int *done)
{
	uint8_t op2;

	switch (op) {
	case 0xb0:
		*done = 1;
		return CW_EHABI_OK;
	case 0xb1:
		if (*i >= o->n)
			return CW_EHABI_TABLE;
		op2 = o->b[(*i)++];
		if (!op2 || (op2 & 0xf0))
			return CW_EHABI_SPARE;
		return pop_mask(v, op2);
	case 0xb2:
		return op_uleb(v, o, i);
	case 0xb3:
		if (*i >= o->n)
			return CW_EHABI_TABLE;
		op2 = o->b[(*i)++];
		return pop_skip(v, 8 * ((op2 & 0xfu) + 1) + 4);
	case 0xb4:
		/* PACBTI: the return address authentication code, one word. */
		return pop_skip(v, 4);
	default:
		if ((op & 0xf8) == 0xb8)
			return pop_skip(v, 8 * ((op & 0x7u) + 1) + 4);
		return CW_EHABI_SPARE;
	}
}

/* The 11xxxxxx group: VPUSH pops (D0-D15, D16-D31, D8-), the rest spare. */
static enum cw_ehabi_status op_c(struct vm *v, const struct ops *o, unsigned int *i, uint8_t op)
{
	uint8_t op2;

	if (op == 0xc8 || op == 0xc9) {
		if (*i >= o->n)
			return CW_EHABI_TABLE;
		op2 = o->b[(*i)++];
		/* 0xc8 counts from D16; the size of the pop is the same either way. */
		if ((op2 >> 4) + (op2 & 0xf) > 15)
			return CW_EHABI_TABLE;
		return pop_skip(v, 8 * ((op2 & 0xfu) + 1));
	}
	if ((op & 0xf8) == 0xd0)
		return pop_skip(v, 8 * ((op & 0x7u) + 1));
	return CW_EHABI_SPARE;
}

static enum cw_ehabi_status run_ops(struct vm *v, const struct ops *o)
{
	enum cw_ehabi_status st = CW_EHABI_OK;
	unsigned int i = 0, n;
	int done = 0;

	/* Each opcode consumes at least one byte: the loop ends within o->n steps. */
	while (!done && i < o->n && st == CW_EHABI_OK) {
		uint8_t op = o->b[i++];

		if ((op & 0xc0) == 0x00) {
			v->vsp += ((op & 0x3fu) << 2) + 4;
		} else if ((op & 0xc0) == 0x40) {
			v->vsp -= ((op & 0x3fu) << 2) + 4;
		} else if ((op & 0xf0) == 0x80) {
			uint32_t mask;

			if (i >= o->n)
				return CW_EHABI_TABLE;
			mask = ((op & 0xfu) << 8) | o->b[i++];
			if (!mask)
				return CW_EHABI_REFUSE;
			st = pop_mask(v, mask << 4);
		} else if ((op & 0xf0) == 0x90) {
			n = op & 0xf;
			if (n == 13 || n == 15)
				return CW_EHABI_SPARE;
			if (!cw_reg_ok(v->regs, (enum cw_reg)n))
				return CW_EHABI_REG;
			v->vsp = v->regs->r[n];
		} else if ((op & 0xf0) == 0xa0) {
			n = op & 0x7;
			st = pop_mask(v, (((1u << (n + 1)) - 1) << 4) |
					 (op & 0x8 ? 1u << CW_LR : 0));
		} else if ((op & 0xf0) == 0xb0) {
			st = op_b(v, o, &i, op, &done);
		} else {
			st = op_c(v, o, &i, op);
		}
	}
	return st;
}

/*
 * Unwind one frame: regs hold the frame's registers (sp and whatever the
 * opcodes name), addr is where in the function it is (a return address minus
 * one for callers). On success regs hold the caller's sp, the popped
 * registers and pc = the return address (popped pc, else lr; Thumb bit kept).
 */
enum cw_ehabi_status cw_ehabi_step(const struct cw_mem *mem, uint32_t tab, uint32_t size,
				   uint32_t addr, struct cw_regs *regs, struct cw_ehabi *info)
{
	/* Work on a copy: a failed step leaves the caller's registers as they were. */
	struct cw_regs r = *regs;
	struct vm v = { .mem = mem, .regs = &r };
	enum cw_ehabi_status st;
	struct ops o;

	memset(info, 0, sizeof(*info));
	st = cw_ehabi_find(mem, tab, size, addr, &info->func, &info->entry);
	if (st)
		return st;
	st = ehabi_ops(mem, info->entry, &o);
	if (st)
		return st;
	if (!cw_reg_ok(&r, CW_SP))
		return CW_EHABI_REG;
	v.vsp = r.r[CW_SP];
	st = run_ops(&v, &o);
	if (st)
		return st;
	info->popped = v.popped;
	if (!(v.popped & (1u << CW_PC))) {
		if (!cw_reg_ok(&r, CW_LR))
			return CW_EHABI_REG;
		cw_reg_set(&r, CW_PC, r.r[CW_LR]);
	}
	cw_reg_set(&r, CW_SP, v.vsp);
	*regs = r;
	return CW_EHABI_OK;
}
