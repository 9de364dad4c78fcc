// SPDX-License-Identifier: GPL-2.0
/*
 * cw_thumb.c - the Thumb encodings an unwinder needs: calls (BL, BLX
 * register), branches (tail calls, veneers), and pseudo-execution of the
 * instructions that move sp, save or restore registers and set up r7, from a
 * function's start to the pc (prologue) or from the pc to its return
 * (epilogue) (ARMv7-M ARM, chapter A7; ARMv6-M is its 16-bit subset).
 */
#include <stdio.h>

#include "image/cw_image.h"
#include "decode/cw_thumb.h"

static int read16(const struct cw_mem *mem, uint32_t addr, uint16_t *hw)
{
	uint8_t b[2];

	if (cw_mem_read(mem, addr, b, 2))
		return -1;
	*hw = (uint16_t)(b[0] | b[1] << 8);
	return 0;
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

/*
 * ARMv8.1-M's low-overhead loops (Armv8-M ARM, C2.4 "Branch and loop"):
 * 1111 0000 0 size Rn | 11x0 ... 1. DLS/DLSTP (hw2 0xE001) and WLS/WLSTP
 * (hw2 110x, exit offset) set lr to the iteration count; LE/LETP (Rn = 15,
 * hw2 110x) branch back while they count lr down, LE without lr (size 2)
 * loops for ever, and LCTP (Rn = 15, hw2 0xE001) ends tail predication.
 * Their hw2 has bit 0 set, which v7-M leaves undefined in BLX's encoding.
 */
enum cw_lob_kind cw_thumb_lob_decode(uint16_t hw1, uint16_t hw2, uint32_t addr, uint32_t *target)
{
	unsigned int size = (hw1 >> 4) & 7, rn = hw1 & 0xF;
	uint32_t off = (hw2 & 0x7FEu) << 1 | (hw2 & 0x800u) >> 10;

	if ((hw1 & 0xFF80) != 0xF000 || !(hw2 & 1))
		return CW_LOB_NONE;
	if (hw2 == 0xE001)
		return rn == 15 ? (size == 0 ? CW_LOB_LCTP : CW_LOB_NONE) :
		       size <= 4 ? CW_LOB_DLS : CW_LOB_NONE;
	if ((hw2 & 0xE000) != 0xC000)
		return CW_LOB_NONE;
	if (rn == 15) {
		if (size > 2)
			return CW_LOB_NONE;
		*target = addr + 4 - off;
		return size == 2 ? CW_LOB_LE_FOREVER : CW_LOB_LE;
	}
	if (size > 4)
		return CW_LOB_NONE;
	*target = addr + 4 + off;
	return CW_LOB_WLS;
}

/* The assembler's text of a low-overhead loop instruction; 0 when it is none. */
int cw_thumb_lob_format(uint16_t hw1, uint16_t hw2, uint32_t addr, char *buf, size_t n)
{
	static const char *const tp[] = { ".8", ".16", ".32", ".64", "" };
	static const char *const reg[] = { "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8",
					   "r9", "r10", "r11", "r12", "sp", "lr", "pc" };
	unsigned int size = (hw1 >> 4) & 7, rn = hw1 & 0xF;
	uint32_t target = 0;

	switch (cw_thumb_lob_decode(hw1, hw2, addr, &target)) {
	case CW_LOB_DLS:
		snprintf(buf, n, "dls%s%s lr, %s", size < 4 ? "tp" : "", tp[size], reg[rn]);
		return 1;
	case CW_LOB_WLS:
		snprintf(buf, n, "wls%s%s lr, %s, #0x%x", size < 4 ? "tp" : "", tp[size], reg[rn],
			 target);
		return 1;
	case CW_LOB_LE:
		snprintf(buf, n, "%s lr, #0x%x", size ? "letp" : "le", target);
		return 1;
	case CW_LOB_LE_FOREVER:
		snprintf(buf, n, "le #0x%x", target);
		return 1;
	case CW_LOB_LCTP:
		snprintf(buf, n, "lctp");
		return 1;
	default:
		return 0;
	}
}

/*
 * Does lr hold something other than a return address at pc? In a function
 * that counts a low-overhead loop in lr, once its prologue has saved the
 * return address: between the save and the loop lr holds the count being
 * computed, in the loop the count, after it what LE left (GCC and clang
 * reuse lr so only where it is saved). The whole function is read, a loop
 * may lie before or after pc.
 */
int cw_thumb_lr_free(const struct cw_mem *mem, const struct cw_image *img, uint32_t pc)
{
	const struct cw_symbol *fn = cw_image_func(img, pc);
	struct cw_prologue p;
	uint16_t hw1, hw2;
	uint32_t a, end, target;
	int lob = 0;

	if (!fn || !fn->size || fn->size > 0x10000)
		return 0;
	end = fn->addr + fn->size;
	for (a = fn->addr; a + 4 <= end && !lob; a += cw_thumb_is_32bit(hw1) ? 4 : 2) {
		if (read16(mem, a, &hw1))
			return 0;
		if (!cw_thumb_is_32bit(hw1))
			continue;
		if (read16(mem, a + 2, &hw2))
			return 0;
		switch (cw_thumb_lob_decode(hw1, hw2, a, &target)) {
		case CW_LOB_DLS:
		case CW_LOB_WLS:
		case CW_LOB_LE:
			lob = 1;
			break;
		default:
			break;
		}
	}
	return lob && !cw_prologue_analyze(mem, img, fn->addr, pc, &p) &&
	       (p.saved & 1u << CW_LR);
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
	*len = cw_thumb_is_32bit(hw1) ? 4 : 2;
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

/* MOVW/MOVT: imm4:i:imm3:imm8. */
static uint32_t t32_imm16(uint16_t hw1, uint16_t hw2)
{
	return (hw1 & 0xFu) << 12 | t32_imm12(hw1, hw2);
}

/* What a 32-bit instruction does to a register when it loads a constant. */
enum t32_const {
	T32_NO_CONST,		/* not such an instruction */
	T32_CONST,		/* rd = v: MOV.W, MVN, MOVW, LDR.W literal */
	T32_CONST_HIGH,		/* rd's high half = v: MOVT */
	T32_CONST_UNREAD,	/* rd = a literal not in memory */
};

static enum t32_const t32_const(const struct cw_mem *mem, uint32_t a, uint16_t hw1, uint16_t hw2,
				unsigned int *rd, uint32_t *v)
{
	uint32_t base = (a + 4) & ~3u, off = hw2 & 0xFFF;

	*rd = hw2 >> 8 & 0xF;
	if ((hw1 & 0xFBEF) == 0xF04F && !(hw2 & 0x8000))		/* MOV.W rd, #const */
		*v = thumb_expand_imm(t32_imm12(hw1, hw2));
	else if ((hw1 & 0xFBEF) == 0xF06F && !(hw2 & 0x8000))	/* MVN rd, #const */
		*v = ~thumb_expand_imm(t32_imm12(hw1, hw2));
	else if ((hw1 & 0xFBF0) == 0xF240 && !(hw2 & 0x8000))	/* MOVW */
		*v = t32_imm16(hw1, hw2);
	else if ((hw1 & 0xFBF0) == 0xF2C0 && !(hw2 & 0x8000))	/* MOVT */
		return *v = t32_imm16(hw1, hw2) << 16, T32_CONST_HIGH;
	else if ((hw1 & 0xFF7F) == 0xF85F)			/* LDR.W rt, [pc, #+-imm12] */
		return *rd = hw2 >> 12, cw_mem_read32(mem, hw1 & 0x80 ? base + off : base - off, v) ?
		       T32_CONST_UNREAD : T32_CONST;
	else
		return T32_NO_CONST;
	return T32_CONST;
}

#define ALL_REGS	0xFFFFu
#define REG(n)		(1u << ((n) & 0xF))	/* a 4-bit register field */
#define LREG(n)		(1u << ((n) & 0x7))	/* a 3-bit (r0-r7) register field */
#define SP_PC		(REG(13) | REG(15))

/*
 * The core registers a 16-bit instruction writes; ALL_REGS when it is a
 * branch, a trap or something not decoded, which ends any simulation.
 */
static uint32_t t16_writes(uint16_t hw)
{
	unsigned int op;

	if (hw < 0x2000)				/* shift (imm), add/sub (reg, imm3) */
		return LREG(hw);
	if (hw < 0x4000)				/* movs/cmp/adds/subs imm8 */
		return (hw & 0xF800) == 0x2800 ? 0 : LREG(hw >> 8);
	if (hw < 0x4400) {				/* data processing */
		op = (hw >> 6) & 0xF;
		return op == 8 || op == 10 || op == 11 ? 0 : LREG(hw);
	}
	if (hw < 0x4800) {				/* hi-register add/cmp/mov, bx/blx */
		op = (hw >> 8) & 3;
		if (op == 3)
			return ALL_REGS;
		return op == 1 ? 0 : REG((hw >> 4 & 8) | (hw & 7));
	}
	if (hw < 0x5000)				/* ldr literal */
		return LREG(hw >> 8);
	if (hw < 0x6000)				/* ldr/str register offset */
		return ((hw >> 9) & 7) < 3 ? 0 : LREG(hw);
	if (hw < 0x9000)				/* ldr/str immediate */
		return hw & 0x0800 ? LREG(hw) : 0;
	if (hw < 0xB000)				/* ldr/str sp-relative, adr, add rd, sp */
		return hw < 0xA000 && !(hw & 0x0800) ? 0 : LREG(hw >> 8);
	if (hw < 0xC000) {				/* miscellaneous */
		if ((hw & 0xFF00) == 0xB000)
			return REG(13);
		if ((hw & 0xFF00) == 0xB200 || (hw & 0xFF00) == 0xBA00)	/* extend, rev */
			return LREG(hw);
		if ((hw & 0xFFE8) == 0xB660 || ((hw & 0xFF00) == 0xBF00 && !(hw & 0xF)))
			return 0;			/* cps, hints */
		if ((hw & 0xFE00) == 0xB400)		/* push */
			return REG(13);
		if ((hw & 0xFE00) == 0xBC00)		/* pop */
			return REG(13) | (hw & 0xFF) | (hw & 0x100 ? REG(15) : 0);
		return ALL_REGS;			/* cbz/cbnz, it, bkpt */
	}
	if (hw < 0xD000)				/* stm/ldm */
		return LREG(hw >> 8) | (hw & 0x0800 ? hw & 0xFF : 0);
	return ALL_REGS;				/* b<c>, udf, svc, b */
}

/* The same for a 32-bit instruction. */
static uint32_t t32_writes(uint16_t hw1, uint16_t hw2)
{
	uint32_t rn = REG(hw1), w = hw1 & 0x20;

	if ((hw1 & 0xFE40) == 0xE800)		/* ldm/stm (ia, db) */
		return (w ? rn : 0) | (hw1 & 0x10 ? hw2 : 0);
	if ((hw1 & 0xFE40) == 0xE840) {		/* ldrd/strd, exclusives, tbb/tbh */
		if ((hw1 & 0x0120) == 0 && (hw1 & 0x0080) == 0)
			return REG(hw2 >> 12) | REG(hw2 >> 8);
		if ((hw1 & 0xFFF0) == 0xE8D0)
			return (hw2 & 0x00E0) == 0 ? ALL_REGS : REG(hw2 >> 12);
		if ((hw1 & 0xFFF0) == 0xE8C0)
			return REG(hw2);		/* strexb/h status */
		return (w ? rn : 0) | (hw1 & 0x10 ? REG(hw2 >> 12) | REG(hw2 >> 8) : 0);
	}
	if ((hw1 & 0xFE00) == 0xEA00)		/* data processing, shifted register */
		return (hw2 & 0x0F00) == 0x0F00 && (hw1 & 0x10) ? 0 : REG(hw2 >> 8);
	if ((hw1 & 0xFE00) == 0xEC00) {		/* coprocessor, VFP load/store */
		if ((hw1 & 0xFFE0) == 0xEC40)	/* vmov two core registers */
			return hw1 & 0x10 ? REG(hw2 >> 12) | rn : 0;
		return w ? rn : 0;
	}
	if ((hw1 & 0xFF00) == 0xEE00) {		/* VFP data processing, vmov/vmrs to core */
		if (!(hw2 & 0x10) || !(hw1 & 0x10))
			return 0;
		return (hw2 >> 12) == 15 ? 0 : REG(hw2 >> 12);	/* rt 15: the flags */
	}
	if ((hw1 & 0xF800) == 0xF000 && (hw2 & 0x8000)) {	/* branches, misc control */
		if ((hw2 & 0x5000) == 0 && (hw1 & 0x03E0) == 0x03E0)
			return REG(hw2 >> 8);			/* mrs */
		if ((hw2 & 0x5000) == 0 && (hw1 & 0x03F0) == 0x03A0)
			return 0;				/* hints */
		if ((hw2 & 0x5000) == 0 && (hw1 & 0x03F0) == 0x03B0)
			return 0;				/* barriers */
		return ALL_REGS;		/* b, bl, b<c>, msr (may switch the stack) */
	}
	if ((hw1 & 0xF800) == 0xF000) {		/* data processing, immediate */
		if ((hw2 & 0x0F00) == 0x0F00 && (hw1 & 0x10) && !(hw1 & 0x0200))
			return 0;			/* tst/teq/cmp/cmn */
		return REG(hw2 >> 8);
	}
	if ((hw1 & 0xFE00) == 0xF800) {		/* load/store single */
		uint32_t wb = !(hw1 & 0x80) && (hw2 & 0x0900) == 0x0900 && (hw1 & 0xF) != 15;

		return (wb ? rn : 0) | (hw1 & 0x10 ? REG(hw2 >> 12) : 0);
	}
	if ((hw1 & 0xFF80) == 0xFB80) {		/* long multiply, divide */
		unsigned int op = (hw1 >> 4) & 7;

		return REG(hw2 >> 8) | (op == 1 || op == 3 ? 0 : REG(hw2 >> 12));
	}
	if ((hw1 & 0xFE00) == 0xFA00 || (hw1 & 0xFF80) == 0xFB00)	/* data processing, multiply */
		return REG(hw2 >> 8);
	return ALL_REGS;
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

/* Constants the prologue loads into registers. */
struct consts {
	uint32_t val[13];
	uint32_t known;
};

/* r7 = sp + off: a frame pointer only if sp itself is known here. */
static void prologue_fp(struct cw_prologue *p, int32_t off)
{
	p->fp_set = !p->sp_dynamic;
	p->fp_off = p->sp_off + off;
}

static void const_set(struct consts *c, unsigned int r, uint32_t v)
{
	if (r < 13) {
		c->val[r] = v;
		c->known |= 1u << r;
	}
}

/*
 * sp moved by rm: by a constant the prologue loaded, else by an amount only
 * r7 can recover. A known move up is an early return's teardown: skipped.
 */
static void prologue_sp_reg(struct cw_prologue *p, const struct consts *c, unsigned int rm,
			    int sub)
{
	int32_t d;

	if (rm >= 13 || !(c->known & (1u << rm))) {
		p->sp_dynamic = 1;
		return;
	}
	d = sub ? -(int32_t)c->val[rm] : (int32_t)c->val[rm];
	if (d < 0)
		p->sp_off += d;
}

/*
 * Registers written by an instruction the prologue model does not follow: sp
 * then moved by an unknown amount, constants are gone, r7 is no longer the
 * frame pointer ("adds r7, #N" before "mov sp, r7").
 */
static void prologue_clobber(struct cw_prologue *p, struct consts *c, uint32_t wr)
{
	if (wr == ALL_REGS)
		return;		/* branches and traps: stepped over, as conditional code is */
	if (wr & REG(13))
		p->sp_dynamic = 1;
	if (wr & REG(7))
		p->fp_set = 0;
	c->known &= ~wr;
}

/* Returns 1 when the instruction ends the straight-line prologue path. */
static int prologue_t16(const struct cw_mem *mem, uint32_t a, struct cw_prologue *p,
			struct consts *c, uint16_t hw)
{
	uint32_t v;

	if ((hw & 0xFE00) == 0xB400) {			/* PUSH {rlist, lr} */
		prologue_push(p, (hw & 0xFFu) | ((hw & 0x100u) ? 1u << 14 : 0));
	} else if ((hw & 0xFF80) == 0xB080) {		/* SUB sp, sp, #imm7*4 */
		p->sp_off -= 4 * (hw & 0x7F);
	} else if ((hw & 0xFF80) == 0xB000 || (hw & 0xFF00) == 0xBC00) {
		/* ADD sp, #imm; POP without pc: an early return's epilogue the path skipped */
	} else if ((hw & 0xFF00) == 0xAF00) {		/* ADD r7, sp, #imm8*4 */
		prologue_fp(p, 4 * (hw & 0xFF));
	} else if (hw == 0x466F) {			/* MOV r7, sp */
		prologue_fp(p, 0);

	} else if (hw == 0x46BD) {			/* MOV sp, r7 */
		/* Back to a known sp, after alloca too. */
		if (p->fp_set) {
			p->sp_off = p->fp_off;
			p->sp_dynamic = 0;
		}
	} else if ((hw & 0xFF87) == 0x4485) {		/* ADD sp, sp, rm */
		prologue_sp_reg(p, c, (hw >> 3) & 0xF, 0);
	} else if ((hw & 0xF800) == 0x2000) {		/* MOVS rd, #imm8 */
		const_set(c, hw >> 8 & 7, hw & 0xFF);
	} else if ((hw & 0xF800) == 0x4800) {		/* LDR rd, [pc, #imm8*4] */
		c->known &= ~REG(hw >> 8 & 7);
		if (!cw_mem_read32(mem, ((a + 4) & ~3u) + 4 * (hw & 0xFF), &v))
			const_set(c, hw >> 8 & 7, v);
	} else if ((hw & 0xF800) == 0xE000 || (hw & 0xFF00) == 0x4700 ||
		   (hw & 0xFF00) == 0xBD00) {		/* B, BX/BLX, POP {.., pc} */
		return 1;
	} else {
		uint32_t wr = t16_writes(hw);

		prologue_clobber(p, c, wr);
	}
	return 0;
}

static int prologue_t32(const struct cw_mem *mem, uint32_t a, struct cw_prologue *p,
			struct consts *c, uint16_t hw1, uint16_t hw2)
{
	unsigned int rd = hw2 >> 8 & 0xF;
	enum t32_const k;
	uint32_t v;

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
		prologue_fp(p, (int32_t)thumb_expand_imm(t32_imm12(hw1, hw2)));
	} else if ((hw1 & 0xFBFF) == 0xF20D && (hw2 & 0x8F00) == 0x0700) {	/* ADDW r7, sp */
		prologue_fp(p, (int32_t)t32_imm12(hw1, hw2));
	} else if (((hw1 & 0xFBEF) == 0xF10D || (hw1 & 0xFBFF) == 0xF20D) &&
		   (hw2 & 0x8F00) == 0x0D00) {			/* ADD.W/ADDW sp, sp */
		/* Frame teardown of an early return the path stepped over, as in prologue_t16. */
	} else if ((hw1 == 0xE8BD && !(hw2 & 0xA000)) ||		/* POP.W without pc */
		   ((hw1 & 0xFFBF) == 0xECBD && (hw2 & 0x0E00) == 0x0A00) ||	/* VPOP */
		   (hw1 == 0xF85D && (hw2 & 0x0B00) == 0x0B00 && hw2 >> 12 != 15)) {
		/* LDR rt, [sp], #imm or [sp, #imm]! with U=1: more early-return teardown */
	} else if ((hw1 == 0xEBAD || hw1 == 0xEB0D) && (hw2 & 0xFF00) == 0x0D00 &&
		   !(hw2 & 0x00F0)) {			/* SUB.W / ADD.W sp, sp, rm */
		prologue_sp_reg(p, c, hw2 & 0xF, hw1 == 0xEBAD);
	} else if ((k = t32_const(mem, a, hw1, hw2, &rd, &v)) != T32_NO_CONST) {
		if (k == T32_CONST)
			const_set(c, rd, v);
		else if (k == T32_CONST_HIGH && rd < 13 && (c->known & REG(rd)))
			const_set(c, rd, (c->val[rd] & 0xFFFF) | v);
		else if (k == T32_CONST_UNREAD)
			c->known &= ~REG(rd);
	} else if (((hw1 & 0xF800) == 0xF000 && (hw2 & 0xD000) == 0x9000) ||	/* B.W */
		   (hw1 == 0xE8BD && (hw2 & 0x8000)) ||		/* POP.W {.., pc} */
		   (hw1 == 0xF85D && hw2 == 0xFB04)) {		/* LDR pc, [sp], #4 */
		return 1;
	} else {
		prologue_clobber(p, c, t32_writes(hw1, hw2));
	}
	return 0;
}

/*
 * The bytes an instruction lowers sp by as it stores (PUSH, STMDB sp!, STR
 * [sp, #-4]!, VPUSH) or makes room (SUB sp): 0 for any other instruction.
 */
uint32_t cw_thumb_sp_decrement(uint16_t hw1, uint16_t hw2)
{
	if (!cw_thumb_is_32bit(hw1)) {
		if ((hw1 & 0xFE00) == 0xB400)		/* PUSH {rlist, lr} */
			return 4 * (uint32_t)__builtin_popcount(hw1 & 0x1FFu);
		if ((hw1 & 0xFF80) == 0xB080)		/* SUB sp, sp, #imm7*4 */
			return 4 * (hw1 & 0x7Fu);
		return 0;
	}
	if (hw1 == 0xE92D)				/* PUSH.W / STMDB sp! */
		return 4 * (uint32_t)__builtin_popcount(hw2 & 0x5FFFu);
	if (hw1 == 0xF84D && (hw2 & 0x0FFF) == 0x0D04)	/* STR Rt, [sp, #-4]! */
		return 4;
	if ((hw1 & 0xFBEF) == 0xF1AD && (hw2 & 0x8F00) == 0x0D00)	/* SUB.W sp */
		return thumb_expand_imm(t32_imm12(hw1, hw2));
	if ((hw1 & 0xFBFF) == 0xF2AD && (hw2 & 0x8F00) == 0x0D00)	/* SUBW sp */
		return t32_imm12(hw1, hw2);
	if ((hw1 & 0xFFBF) == 0xED2D && (hw2 & 0x0E00) == 0x0A00)	/* VPUSH */
		return 4 * (hw2 & 0xFFu);
	return 0;
}

/*
 * Decode the straight line from the function start to pc, the way the code
 * reached pc on its first pass: conditional branches are stepped over, the
 * first unconditional branch or return ends the prologue. With img, data
 * inside the function ($d: jump tables, literal pools) is skipped, not decoded.
 */
/* Does the instruction move sp back to r7, or write r7 once it is the frame pointer? */
static int fp_teardown(const struct cw_prologue *p, uint16_t hw1, uint16_t hw2, int wide)
{
	uint32_t wr = wide ? t32_writes(hw1, hw2) : t16_writes(hw1);

	return p->fp_set && ((!wide && hw1 == 0x46BD) || (wr != ALL_REGS && (wr & REG(7))));
}

int cw_prologue_analyze(const struct cw_mem *mem, const struct cw_image *img, uint32_t func,
			uint32_t pc, struct cw_prologue *out)
{
	uint32_t a = func & ~1u;
	struct consts c = { .known = 0 };
	struct cw_prologue before;
	int pending = 0;

	*out = (struct cw_prologue){ 0 };
	pc &= ~1u;
	while (a < pc && out->insns < 256) {
		uint16_t hw1, hw2;
		int end;

		if (img && !cw_image_is_code(img, a)) {
			a += 2;		/* a jump table or literal pool inside the function */
			continue;
		}
		if (read16(mem, a, &hw1))
			return -1;
		hw2 = 0;
		if (cw_thumb_is_32bit(hw1) && read16(mem, a + 2, &hw2))
			return -1;
		if (!pending && fp_teardown(out, hw1, hw2, cw_thumb_is_32bit(hw1))) {
			before = *out;
			pending = 1;
		}
		if (cw_thumb_is_32bit(hw1)) {
			end = prologue_t32(mem, a, out, &c, hw1, hw2);
			a += 4;
		} else {
			end = prologue_t16(mem, a, out, &c, hw1);
			a += 2;
		}
		out->insns++;
		if (!end)
			continue;
		/*
		 * A return before the pc: the pc is reached by a branch from before it, so
		 * the frame-pointer teardown on the way to that return never happened there.
		 */
		if (pending) {
			before.insns = out->insns;
			*out = before;
		}
		break;
	}
	return 0;
}

/* ---- epilogue: from the pc forward to the return ---- */

#define EPILOGUE_MAX_INSNS	32	/* an epilogue is a few instructions; more is a body */
#define EPILOGUE_MAX_BRANCHES	4	/* unconditional branches followed to a shared return */

struct epi {
	struct cw_epilogue *e;
	int32_t cur;		/* sp = base + cur */
	int r7_ok;		/* r7 = r7 at pc + r7_add */
	int32_t r7_add;
	uint32_t clobbered;	/* written by something else than a load from the stack */
};

static void epi_load(struct epi *s, unsigned int r, int32_t at)
{
	s->e->slot[r] = at;
	s->e->restored |= 1u << r;
	s->clobbered &= ~(1u << r);
}

static void epi_pop(struct epi *s, uint32_t list)
{
	unsigned int r;

	for (r = 0; r < 16; r++)
		if (list & (1u << r)) {
			epi_load(s, r, s->cur);
			s->cur += 4;
		}
}

/* sp = r7 + off: the base becomes r7, possible only before anything is restored. */
static int epi_sp_from_r7(struct epi *s, int32_t off)
{
	if (!s->r7_ok || s->e->restored || s->e->base != CW_SP)
		return -1;
	s->e->base = CW_R7;
	s->cur = s->r7_add + off;
	return 0;
}

/* A write to registers not followed: values lost, r7 no longer a base. */
static int epi_clobber(struct epi *s, uint32_t wr)
{
	if (wr == ALL_REGS || (wr & SP_PC))
		return -1;
	s->clobbered |= wr;
	s->e->restored &= ~wr;
	if (wr & REG(7))
		s->r7_ok = 0;
	return 0;
}

enum { EPI_NEXT, EPI_RETURN, EPI_BRANCH };

static int epi_t16(struct epi *s, uint16_t hw, uint32_t a, uint32_t *target)
{
	if ((hw & 0xFF80) == 0xB000) {			/* ADD sp, #imm7*4 */
		s->cur += 4 * (hw & 0x7F);
	} else if ((hw & 0xFF80) == 0xB080) {		/* SUB sp, #imm7*4 */
		s->cur -= 4 * (hw & 0x7F);
	} else if ((hw & 0xFE00) == 0xBC00) {		/* POP {rlist[, pc]} */
		epi_pop(s, (hw & 0xFFu) | (hw & 0x100 ? REG(15) : 0));
		return hw & 0x100 ? EPI_RETURN : EPI_NEXT;
	} else if ((hw & 0xF800) == 0x9800) {		/* LDR rt, [sp, #imm8*4] */
		epi_load(s, hw >> 8 & 7, s->cur + 4 * (hw & 0xFF));
	} else if (hw == 0x46BD) {			/* MOV sp, r7 */
		return epi_sp_from_r7(s, 0) ? -1 : EPI_NEXT;
	} else if ((hw & 0xFF00) == 0x3700 && s->r7_ok) {	/* ADDS r7, #imm8 */
		s->r7_add += hw & 0xFF;
		s->clobbered |= REG(7);
	} else if ((hw & 0xFF00) == 0x3F00 && s->r7_ok) {	/* SUBS r7, #imm8 */
		s->r7_add -= hw & 0xFF;
		s->clobbered |= REG(7);
	} else if (hw == 0x4770 || hw == 0x46F7) {	/* BX lr, MOV pc, lr */
		s->e->ret_lr = 1;
		return EPI_RETURN;
	} else if ((hw & 0xF800) == 0xE000) {		/* B */
		*target = a + 4 + (uint32_t)((int32_t)((uint32_t)hw << 21) >> 20);
		return EPI_BRANCH;
	} else {
		return epi_clobber(s, t16_writes(hw)) ? -1 : EPI_NEXT;
	}
	return EPI_NEXT;
}

static int epi_t32(struct epi *s, uint16_t hw1, uint16_t hw2, uint32_t a, uint32_t *target)
{
	uint32_t imm8 = hw2 & 0xFF;

	if (hw1 == 0xE8BD && !(hw2 & 0x2000)) {		/* POP.W / LDMIA sp! */
		epi_pop(s, hw2);
		return hw2 & 0x8000 ? EPI_RETURN : EPI_NEXT;
	}
	if (hw1 == 0xF85D && (hw2 & 0x0800)) {		/* LDR rt, [sp, #+-imm8]{!}, [sp], #+-imm8 */
		int32_t off = hw2 & 0x0200 ? (int32_t)imm8 : -(int32_t)imm8;
		int pre = hw2 & 0x0400, wb = hw2 & 0x0100;

		if (!pre && !wb)
			return -1;	/* undefined */
		epi_load(s, hw2 >> 12, s->cur + (pre ? off : 0));
		if (wb)
			s->cur += off;
		return hw2 >> 12 == 15 ? EPI_RETURN : EPI_NEXT;
	}
	if (hw1 == 0xF8DD) {				/* LDR rt, [sp, #imm12] */
		epi_load(s, hw2 >> 12, s->cur + (int32_t)(hw2 & 0xFFF));
		return hw2 >> 12 == 15 ? EPI_RETURN : EPI_NEXT;
	}
	if ((hw1 & 0xFFBF) == 0xECBD && (hw2 & 0x0E00) == 0x0A00) {	/* VPOP */
		s->cur += 4 * (int32_t)imm8;
		return EPI_NEXT;
	}
	if ((hw1 & 0xFBEF) == 0xF10D && (hw2 & 0x8F00) == 0x0D00) {	/* ADD.W sp, sp, #const */
		s->cur += (int32_t)thumb_expand_imm(t32_imm12(hw1, hw2));
		return EPI_NEXT;
	}
	if ((hw1 & 0xFBFF) == 0xF20D && (hw2 & 0x8F00) == 0x0D00) {	/* ADDW sp, sp, #imm12 */
		s->cur += (int32_t)t32_imm12(hw1, hw2);
		return EPI_NEXT;
	}
	if ((hw1 & 0xFBEF) == 0xF107 && (hw2 & 0x8F00) == 0x0700 && s->r7_ok) {
		/* ADD.W r7, r7, #const: the frame size, before MOV sp, r7 */
		s->r7_add += (int32_t)thumb_expand_imm(t32_imm12(hw1, hw2));
		s->clobbered |= REG(7);
		return EPI_NEXT;
	}
	if ((hw1 & 0xFBFF) == 0xF207 && (hw2 & 0x8F00) == 0x0700 && s->r7_ok) {	/* ADDW r7 */
		s->r7_add += (int32_t)t32_imm12(hw1, hw2);
		s->clobbered |= REG(7);
		return EPI_NEXT;
	}
	if ((hw1 & 0xF800) == 0xF000 && (hw2 & 0xD000) == 0x9000) {	/* B.W */
		*target = a + 4 + (uint32_t)branch24_offset(hw1, hw2);
		return EPI_BRANCH;
	}
	return epi_clobber(s, t32_writes(hw1, hw2)) ? -1 : EPI_NEXT;
}

/*
 * Simulate from pc to the function's return: every instruction on the way
 * must be understood (what it does to sp, or which registers it writes),
 * conditional code and calls end the attempt, unconditional branches inside
 * [func, end) are followed a few times, and one that leaves the function is
 * a tail call, which returns through lr like BX lr. With img, literal pools
 * ($d) are not code: reaching one ends the attempt. Returns 0 when a return
 * was reached.
 */
int cw_epilogue_analyze(const struct cw_mem *mem, const struct cw_image *img, uint32_t func,
			uint32_t end, uint32_t pc, struct cw_epilogue *out)
{
	struct epi s = { .e = out, .r7_ok = 1 };
	uint32_t a = pc & ~1u, target = 0;
	unsigned int branches = 0;
	int r;

	*out = (struct cw_epilogue){ .base = CW_SP };
	func &= ~1u;
	while (out->insns < EPILOGUE_MAX_INSNS) {
		uint16_t hw1, hw2;

		if (a < func || a >= end || (img && !cw_image_is_code(img, a)) ||
		    read16(mem, a, &hw1))
			return -1;
		if (cw_thumb_is_32bit(hw1)) {
			if (a + 2 >= end || read16(mem, a + 2, &hw2))
				return -1;
			r = epi_t32(&s, hw1, hw2, a, &target);
			a += 4;
		} else {
			r = epi_t16(&s, hw1, a, &target);
			a += 2;
		}
		out->insns++;
		if (r < 0)
			return -1;
		if (r == EPI_BRANCH) {
			if (target < func || target >= end) {
				out->ret_lr = 1;	/* tail call: the frame is gone */
				r = EPI_RETURN;
			} else if (++branches > EPILOGUE_MAX_BRANCHES) {
				return -1;
			} else {
				a = target;
				continue;
			}
		}
		if (r == EPI_RETURN) {
			out->cfa_off = s.cur;
			out->clobbered = s.clobbered;
			/* Returning through lr needs an lr nothing but a load wrote. */
			if (out->ret_lr && (s.clobbered & REG(14)))
				return -1;
			return 0;
		}
	}
	return -1;
}

/* ---- constant stores: what a function writes through its first argument ---- */

#define ARG_STORES_MAX_INSNS	96	/* an initialiser that writes a few words, at -O0 too */
#define ARG_STACK_SLOTS		16	/* the locals an -O0 build keeps on the stack */

/*
 * A register's value on the path: unknown, a constant, r0 at entry plus an
 * offset, or sp at entry plus an offset (where -O0 code keeps its locals).
 */
struct arg_reg {
	enum { ARG_UNKNOWN, ARG_CONST, ARG_BASE, ARG_SP } kind;
	uint32_t v;		/* the constant, or the offset from r0 or sp at entry */
};

struct arg_sim {
	struct arg_reg r[16];	/* lr and pc stay unknown */
	struct {
		uint32_t at;	/* offset from sp at entry */
		struct arg_reg v;
	} slot[ARG_STACK_SLOTS];
	unsigned int nr_slots;
	struct cw_stored_word *out;
	unsigned int nr, max;
};

static struct arg_reg *arg_reg(struct arg_sim *s, unsigned int n)
{
	return &s->r[n & 15];
}

static void arg_const(struct arg_sim *s, unsigned int rd, uint32_t v)
{
	*arg_reg(s, rd) = (struct arg_reg){ ARG_CONST, v };
}

/* rd = rn + add, for a base or a constant; else unknown. */
static void arg_add(struct arg_sim *s, unsigned int rd, unsigned int rn, uint32_t add)
{
	struct arg_reg v = *arg_reg(s, rn);

	v.v += add;
	*arg_reg(s, rd) = v.kind == ARG_UNKNOWN ? (struct arg_reg){ ARG_UNKNOWN, 0 } : v;
}

/*
 * A word stored at rn + off: kept when rn is the argument and rt a constant;
 * on the stack, rt's value is kept in its slot for a later load.
 */
static void arg_store(struct arg_sim *s, unsigned int rt, unsigned int rn, int32_t off)
{
	const struct arg_reg *b = arg_reg(s, rn), *v = arg_reg(s, rt);
	uint32_t at = b->v + (uint32_t)off;
	unsigned int i;

	if (b->kind == ARG_BASE && v->kind == ARG_CONST && s->nr < s->max)
		s->out[s->nr++] = (struct cw_stored_word){ (int32_t)at, v->v };
	if (b->kind != ARG_SP)
		return;
	for (i = 0; i < s->nr_slots && s->slot[i].at != at; i++)
		;
	if (i == ARRAY_SIZE(s->slot))
		return;
	s->nr_slots += i == s->nr_slots;
	s->slot[i].at = at;
	s->slot[i].v = *v;
}

/* rt = the word at rn + off: known when it is a stack slot the path stored. */
static void arg_load(struct arg_sim *s, unsigned int rt, unsigned int rn, int32_t off)
{
	const struct arg_reg *b = arg_reg(s, rn);
	uint32_t at = b->v + (uint32_t)off;
	unsigned int i;

	for (i = 0; b->kind == ARG_SP && i < s->nr_slots; i++)
		if (s->slot[i].at == at) {
			*arg_reg(s, rt) = s->slot[i].v;
			return;
		}
	*arg_reg(s, rt) = (struct arg_reg){ ARG_UNKNOWN, 0 };
}

static void arg_clobber(struct arg_sim *s, uint32_t wr)
{
	unsigned int i;

	for (i = 0; i < 16; i++)
		if (wr & (1u << i))
			s->r[i].kind = ARG_UNKNOWN;
}

/* STM/STMDB rn{!}, list: ascending registers at ascending addresses. */
static void arg_store_multiple(struct arg_sim *s, unsigned int rn, uint32_t list, int db, int wb)
{
	int32_t n = __builtin_popcount(list & 0x1FFF), off = db ? -4 * n : 0;
	unsigned int r;

	for (r = 0; r < 13; r++)
		if (list & (1u << r)) {
			arg_store(s, r, rn, off);
			off += 4;
		}
	if (wb)
		arg_add(s, rn, rn, (uint32_t)(db ? -4 * n : 4 * n));
}

/* Returns 1 when the 16-bit instruction ends the straight-line path. */
static int arg_t16(struct arg_sim *s, const struct cw_mem *mem, uint32_t a, uint16_t hw)
{
	unsigned int rd = hw & 7, rn = (hw >> 3) & 7;
	uint32_t v, wr;

	if ((hw & 0xF800) == 0x2000) {			/* MOVS rd, #imm8 */
		arg_const(s, hw >> 8 & 7, hw & 0xFF);
	} else if ((hw & 0xF800) == 0x0000) {		/* LSLS rd, rm, #imm5 (MOVS rd, rm) */
		struct arg_reg m = *arg_reg(s, rn);

		if (m.kind == ARG_CONST)
			arg_const(s, rd, m.v << ((hw >> 6) & 31));
		else
			*arg_reg(s, rd) = (hw >> 6) & 31 ? (struct arg_reg){ ARG_UNKNOWN, 0 } : m;
	} else if ((hw & 0xFC00) == 0x1C00) {		/* ADDS/SUBS rd, rn, #imm3 */
		arg_add(s, rd, rn, hw & 0x200 ? -((hw >> 6) & 7u) : (hw >> 6) & 7u);
	} else if ((hw & 0xF000) == 0x3000) {		/* ADDS/SUBS rdn, #imm8 */
		arg_add(s, hw >> 8 & 7, hw >> 8 & 7, hw & 0x800 ? -(hw & 0xFFu) : hw & 0xFFu);
	} else if ((hw & 0xFF00) == 0x4600) {		/* MOV rd, rm */
		*arg_reg(s, (hw >> 4 & 8) | rd) = *arg_reg(s, (hw >> 3) & 0xF);
	} else if ((hw & 0xF800) == 0x4800) {		/* LDR rd, [pc, #imm8*4] */
		if (cw_mem_read32(mem, ((a + 4) & ~3u) + 4 * (hw & 0xFF), &v))
			arg_clobber(s, LREG(hw >> 8));
		else
			arg_const(s, hw >> 8 & 7, v);
	} else if ((hw & 0xF800) == 0x6000) {		/* STR rt, [rn, #imm5*4] */
		arg_store(s, rd, rn, (int32_t)(4 * ((hw >> 6) & 31)));
	} else if ((hw & 0xF800) == 0x6800) {		/* LDR rt, [rn, #imm5*4] */
		arg_load(s, rd, rn, (int32_t)(4 * ((hw >> 6) & 31)));
	} else if ((hw & 0xF800) == 0x9000) {		/* STR rt, [sp, #imm8*4] */
		arg_store(s, hw >> 8 & 7, 13, (int32_t)(4 * (hw & 0xFF)));
	} else if ((hw & 0xF800) == 0x9800) {		/* LDR rt, [sp, #imm8*4] */
		arg_load(s, hw >> 8 & 7, 13, (int32_t)(4 * (hw & 0xFF)));
	} else if ((hw & 0xF800) == 0xA800) {		/* ADD rd, sp, #imm8*4 */
		arg_add(s, hw >> 8 & 7, 13, 4 * (hw & 0xFFu));
	} else if ((hw & 0xFF00) == 0xB000) {		/* ADD/SUB sp, sp, #imm7*4 */
		arg_add(s, 13, 13, hw & 0x80 ? -4 * (hw & 0x7Fu) : 4 * (hw & 0x7Fu));
	} else if ((hw & 0xFE00) == 0xB400) {		/* PUSH {list} */
		arg_add(s, 13, 13, -4u * (uint32_t)__builtin_popcount(hw & 0x1FF));
	} else if ((hw & 0xF800) == 0xC000) {		/* STMIA rn!, list */
		arg_store_multiple(s, hw >> 8 & 7, hw & 0xFF, 0, 1);
	} else if ((hw & 0xFF00) == 0xBD00) {		/* POP {.., pc} */
		return 1;
	} else {
		wr = t16_writes(hw);
		if (wr == ALL_REGS)
			return 1;
		arg_clobber(s, wr);
	}
	return 0;
}

/* Returns 1 when the 32-bit instruction ends the straight-line path. */
static int arg_t32(struct arg_sim *s, const struct cw_mem *mem, uint32_t a, uint16_t hw1,
		   uint16_t hw2)
{
	unsigned int rn = hw1 & 0xF, rt = hw2 >> 12, rd = hw2 >> 8 & 0xF, cd;
	enum t32_const k;
	uint32_t v, wr;

	if ((k = t32_const(mem, a, hw1, hw2, &cd, &v)) != T32_NO_CONST) {
		if (k == T32_CONST)
			arg_const(s, cd, v);
		else if (k == T32_CONST_HIGH && arg_reg(s, cd)->kind == ARG_CONST)
			arg_const(s, cd, (arg_reg(s, cd)->v & 0xFFFF) | v);
		else
			arg_clobber(s, REG(cd));
	} else if ((hw1 & 0xFBE0) == 0xF100 && !(hw2 & 0x8000) && rd != 15) {	/* ADD.W #const */
		arg_add(s, rd, rn, thumb_expand_imm(t32_imm12(hw1, hw2)));
	} else if ((hw1 & 0xFBE0) == 0xF1A0 && !(hw2 & 0x8000) && rd != 15) {	/* SUB.W #const */
		arg_add(s, rd, rn, -thumb_expand_imm(t32_imm12(hw1, hw2)));
	} else if ((hw1 & 0xFBF0) == 0xF200 && !(hw2 & 0x8000)) {	/* ADDW */
		arg_add(s, rd, rn, t32_imm12(hw1, hw2));
	} else if ((hw1 & 0xFBF0) == 0xF2A0 && !(hw2 & 0x8000)) {	/* SUBW */
		arg_add(s, rd, rn, -t32_imm12(hw1, hw2));
	} else if ((hw1 & 0xFFF0) == 0xF8C0) {			/* STR.W rt, [rn, #imm12] */
		arg_store(s, rt, rn, (int32_t)(hw2 & 0xFFF));
	} else if ((hw1 & 0xFFF0) == 0xF8D0 && rn != 15) {	/* LDR.W rt, [rn, #imm12] */
		arg_load(s, rt, rn, (int32_t)(hw2 & 0xFFF));
	} else if ((hw1 & 0xFFF0) == 0xF840 && (hw2 & 0x0800)) {	/* STR rt, [rn, #+-imm8]{!} */
		int32_t off = hw2 & 0x200 ? (int32_t)(hw2 & 0xFF) : -(int32_t)(hw2 & 0xFF);

		arg_store(s, rt, rn, hw2 & 0x400 ? off : 0);
		if (hw2 & 0x100)
			arg_add(s, rn, rn, (uint32_t)off);
	} else if ((hw1 & 0xFE50) == 0xE840 && (hw1 & 0x0120)) {	/* STRD rt, rt2, [rn, #+-imm8*4]{!} */
		int32_t off = 4 * (int32_t)(hw2 & 0xFF) * (hw1 & 0x80 ? 1 : -1);

		arg_store(s, rt, rn, hw1 & 0x100 ? off : 0);
		arg_store(s, rd, rn, (hw1 & 0x100 ? off : 0) + 4);
		if (hw1 & 0x20)
			arg_add(s, rn, rn, (uint32_t)off);
	} else if ((hw1 == 0xE8BD && (hw2 & 0x8000)) || (hw1 == 0xF85D && hw2 == 0xFB04)) {
		return 1;					/* POP.W {.., pc}, LDR pc, [sp], #4 */
	} else if ((hw1 & 0xFFD0) == 0xE880 || (hw1 & 0xFFD0) == 0xE900) {	/* STM(IA|DB).W */
		arg_store_multiple(s, rn, hw2, (hw1 & 0xFFD0) == 0xE900, !!(hw1 & 0x20));
	} else {
		wr = t32_writes(hw1, hw2);
		if (wr == ALL_REGS)
			return 1;
		arg_clobber(s, wr);
	}
	return 0;
}

/*
 * The constants a function stores relative to its first argument (r0 at
 * entry) on its straight-line path from the start, in the order stored:
 * how an RTOS port builds a new task's first frame. Values an -O0 build
 * keeps in stack slots are followed; conditional code and calls end the
 * path. With img, data in the function ends it too. Returns how many, or -1
 * when the code is unreadable.
 */
int cw_thumb_arg_stores(const struct cw_mem *mem, const struct cw_image *img, uint32_t func,
			struct cw_stored_word *out, unsigned int max)
{
	struct arg_sim s = { .out = out, .max = max };
	uint32_t a = func & ~1u;
	unsigned int n;

	s.r[0] = (struct arg_reg){ ARG_BASE, 0 };
	s.r[13] = (struct arg_reg){ ARG_SP, 0 };
	for (n = 0; n < ARG_STORES_MAX_INSNS; n++) {
		uint16_t hw1, hw2 = 0;
		int end;

		if ((img && !cw_image_is_code(img, a)) || read16(mem, a, &hw1))
			return n ? (int)s.nr : -1;
		if (cw_thumb_is_32bit(hw1)) {
			if (read16(mem, a + 2, &hw2))
				return -1;
			end = arg_t32(&s, mem, a, hw1, hw2);
			a += 4;
		} else {
			end = arg_t16(&s, mem, a, hw1);
			a += 2;
		}
		if (end)
			break;
		arg_clobber(&s, REG(14) | REG(15));
	}
	return (int)s.nr;
}
