// SPDX-License-Identifier: GPL-2.0
/*
 * libcw_thumb.c - the few Thumb encodings an unwinder needs: calls (BL, BLX
 * register), branches (tail calls, veneers) and the prologue instructions
 * that move sp, save registers and set up r7 (ARMv7-M ARM, chapter A7).
 */
#include "crashwalk.h"

static int read16(const struct cw_mem *mem, uint32_t addr, uint16_t *hw)
{
	uint8_t b[2];

	if (cw_mem_read(mem, addr, b, 2))
		return -1;
	*hw = (uint16_t)(b[0] | b[1] << 8);
	return 0;
}

static int is_32bit(uint16_t hw1)
{
	return (hw1 >> 11) >= 0x1D;
}

/* S:I1:I2:imm10:imm11:0 of BL (T1) and B.W (T4), I1 = NOT(J1 XOR S), I2 = NOT(J2 XOR S). */
static int32_t branch24_offset(uint16_t hw1, uint16_t hw2)
{
	uint32_t s = (hw1 >> 10) & 1, j1 = (hw2 >> 13) & 1, j2 = (hw2 >> 11) & 1;
	uint32_t i1 = !(j1 ^ s), i2 = !(j2 ^ s);
	uint32_t off = s << 24 | i1 << 23 | i2 << 22 | (hw1 & 0x3FFu) << 12 | (hw2 & 0x7FFu) << 1;

	return (int32_t)(off << 7) >> 7;
}

int cw_thumb_bl_decode(uint16_t hw1, uint16_t hw2, uint32_t addr, uint32_t *target)
{
	if ((hw1 & 0xF800) != 0xF000 || (hw2 & 0xD000) != 0xD000)
		return 0;
	*target = addr + 4 + (uint32_t)branch24_offset(hw1, hw2);
	return 1;
}

/* BLX Rm writes LR; BX Rm, which shares 0x47xx, does not and is no call. */
int cw_thumb_is_blx_reg(uint16_t hw)
{
	return (hw & 0xFF87) == 0x4780;
}

enum cw_call_kind cw_thumb_call_before(const struct cw_mem *mem, uint32_t ret, uint32_t *target)
{
	uint16_t hw1, hw2;

	ret &= ~1u;
	if (!read16(mem, ret - 4, &hw1) && !read16(mem, ret - 2, &hw2) &&
	    cw_thumb_bl_decode(hw1, hw2, ret - 4, target))
		return CW_CALL_BL;
	if (!read16(mem, ret - 2, &hw2) && cw_thumb_is_blx_reg(hw2))
		return CW_CALL_BLX_REG;
	return CW_CALL_NONE;
}

/* An unconditional branch (B T2 or B.W T4) at addr: how a tail call or a veneer leaves. */
int cw_thumb_b_target(const struct cw_mem *mem, uint32_t addr, uint32_t *target, unsigned int *len)
{
	uint16_t hw1, hw2;

	if (read16(mem, addr, &hw1))
		return 0;
	if ((hw1 & 0xF800) == 0xE000) {
		*target = addr + 4 + (uint32_t)((int32_t)((uint32_t)hw1 << 21) >> 20);
		*len = 2;
		return 1;
	}
	*len = is_32bit(hw1) ? 4 : 2;
	if (*len == 2 || read16(mem, addr + 2, &hw2))
		return 0;
	if ((hw1 & 0xF800) == 0xF000 && (hw2 & 0xD000) == 0x9000) {
		*target = addr + 4 + (uint32_t)branch24_offset(hw1, hw2);
		return 1;
	}
	return 0;
}

static uint32_t thumb_expand_imm(uint32_t imm12)
{
	uint32_t imm8 = imm12 & 0xFF, rot;

	if (!(imm12 >> 10)) {
		switch ((imm12 >> 8) & 3) {
		case 0:
			return imm8;
		case 1:
			return imm8 << 16 | imm8;
		case 2:
			return imm8 << 24 | imm8 << 8;
		default:
			return imm8 * 0x01010101u;
		}
	}
	rot = imm12 >> 7;
	imm8 = 0x80 | (imm12 & 0x7F);
	return imm8 >> rot | imm8 << (32 - rot);
}

static uint32_t t32_imm12(uint16_t hw1, uint16_t hw2)
{
	return ((hw1 >> 10) & 1u) << 11 | ((hw2 >> 12) & 7u) << 8 | (hw2 & 0xFFu);
}

static void prologue_push(struct cw_prologue *p, uint32_t regs)
{
	int32_t at;
	int r, n = __builtin_popcount(regs);

	p->sp_off -= 4 * n;
	at = p->sp_off;
	for (r = 0; r < 16; r++) {
		if (!(regs & (1u << r)))
			continue;
		if (!(p->saved & (1u << r))) {
			p->saved |= 1u << r;
			p->slot[r] = at;
		}
		at += 4;
	}
}

/* Returns 1 when the instruction ends the straight-line prologue path. */
static int prologue_t16(struct cw_prologue *p, uint16_t hw)
{
	if ((hw & 0xFE00) == 0xB400) {			/* PUSH {rlist, lr} */
		prologue_push(p, (hw & 0xFFu) | ((hw & 0x100u) ? 1u << 14 : 0));
	} else if ((hw & 0xFF80) == 0xB080) {		/* SUB sp, sp, #imm7*4 */
		p->sp_off -= 4 * (hw & 0x7F);
	} else if ((hw & 0xFF00) == 0xAF00) {		/* ADD r7, sp, #imm8*4 */
		p->fp_set = 1;
		p->fp_off = p->sp_off + 4 * (hw & 0xFF);
	} else if (hw == 0x466F) {			/* MOV r7, sp */
		p->fp_set = 1;
		p->fp_off = p->sp_off;
	} else if ((hw & 0xF800) == 0xE000 || (hw & 0xFF00) == 0x4700 ||
		   (hw & 0xFF00) == 0xBD00) {		/* B, BX/BLX, POP {.., pc} */
		return 1;
	}
	return 0;
}

static int prologue_t32(struct cw_prologue *p, uint16_t hw1, uint16_t hw2)
{
	if (hw1 == 0xE92D) {				/* PUSH.W / STMDB sp! */
		prologue_push(p, hw2 & 0x5FFFu);
	} else if (hw1 == 0xF84D && (hw2 & 0x0FFF) == 0x0D04) {	/* STR Rt, [sp, #-4]! */
		prologue_push(p, 1u << (hw2 >> 12));
	} else if ((hw1 & 0xFBEF) == 0xF1AD && (hw2 & 0x8F00) == 0x0D00) {	/* SUB.W sp */
		p->sp_off -= (int32_t)thumb_expand_imm(t32_imm12(hw1, hw2));
	} else if ((hw1 & 0xFBFF) == 0xF2AD && (hw2 & 0x8F00) == 0x0D00) {	/* SUBW sp */
		p->sp_off -= (int32_t)t32_imm12(hw1, hw2);
	} else if ((hw1 & 0xFFBF) == 0xED2D && (hw2 & 0x0E00) == 0x0A00) {	/* VPUSH */
		p->sp_off -= 4 * (hw2 & 0xFF);
	} else if ((hw1 & 0xFBEF) == 0xF10D && (hw2 & 0x8F00) == 0x0700) {	/* ADD.W r7, sp */
		p->fp_set = 1;
		p->fp_off = p->sp_off + (int32_t)thumb_expand_imm(t32_imm12(hw1, hw2));
	} else if ((hw1 & 0xFBFF) == 0xF20D && (hw2 & 0x8F00) == 0x0700) {	/* ADDW r7, sp */
		p->fp_set = 1;
		p->fp_off = p->sp_off + (int32_t)t32_imm12(hw1, hw2);
	} else if (((hw1 & 0xF800) == 0xF000 && (hw2 & 0xD000) == 0x9000) ||	/* B.W */
		   (hw1 == 0xE8BD && (hw2 & 0x8000)) ||		/* POP.W {.., pc} */
		   (hw1 == 0xF85D && hw2 == 0xFB04)) {		/* LDR pc, [sp], #4 */
		return 1;
	}
	return 0;
}

/*
 * Decode the straight line from the function start to pc, the way the code
 * reached pc on its first pass: conditional branches are stepped over, the
 * first unconditional branch or return ends the prologue.
 */
int cw_prologue_analyze(const struct cw_mem *mem, uint32_t func, uint32_t pc,
			struct cw_prologue *out)
{
	uint32_t a = func & ~1u;

	*out = (struct cw_prologue){ 0 };
	pc &= ~1u;
	while (a < pc && out->insns < 256) {
		uint16_t hw1, hw2;
		int end;

		if (read16(mem, a, &hw1))
			return -1;
		if (is_32bit(hw1)) {
			if (read16(mem, a + 2, &hw2))
				return -1;
			end = prologue_t32(out, hw1, hw2);
			a += 4;
		} else {
			end = prologue_t16(out, hw1);
			a += 2;
		}
		out->insns++;
		if (end)
			break;
	}
	return 0;
}
