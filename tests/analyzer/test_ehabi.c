// SPDX-License-Identifier: GPL-2.0
/*
 * test_ehabi.c - the ARM EHABI unwinder on .ARM.exidx/.ARM.extab bytes built
 * by the spec (ehabi32): every opcode family, CANTUNWIND, personalities 0/1/2
 * and the generic model, refuse, spare opcodes, and broken tables and stacks,
 * each checked for the caller's sp/lr/pc or for the error it must give.
 */
#include "cw_test.h"

#define TAB		0x00001000u	/* .ARM.exidx */
#define EXTAB		0x00002000u	/* .ARM.extab */
#define FUNC		0x00008100u	/* the function under test; entries around it */
#define STACK		0x20000000u
#define STACK_WORDS	64u
#define LR_IN		0x00008aabu	/* lr of the frame: the return address when not popped */
#define WORD(i)		(0x00009001u + 0x10u * (i))	/* stack word i: distinct, Thumb */

enum layout { INLINE, PR0, PR1, PR2, GENERIC };

struct env {
	uint8_t tab[4 * 8];
	uint8_t extab[4096];
	uint32_t extab_len;	/* bytes of extab visible in memory */
	uint8_t stack[4 * STACK_WORDS];
	struct cw_mem mem;
	uint32_t tab_size;
};

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static uint32_t prel31_to(uint32_t target, uint32_t at)
{
	return (target - at) & 0x7fffffffu;
}

/*
 * Three entries: CANTUNWIND at FUNC - 0x100, the function under test at FUNC,
 * CANTUNWIND at FUNC + 0x100. Word 1 of the middle entry is w1.
 */
static void env_table(struct env *e, uint32_t w1)
{
	uint32_t i, funcs[3] = { FUNC - 0x100, FUNC, FUNC + 0x100 };

	for (i = 0; i < 3; i++) {
		put32(e->tab + 8 * i, prel31_to(funcs[i], TAB + 8 * i));
		put32(e->tab + 8 * i + 4, 1);
	}
	put32(e->tab + 12, w1);
	e->tab_size = 24;
}

static void env_map(struct env *e)
{
	uint32_t i;

	for (i = 0; i < STACK_WORDS; i++)
		put32(e->stack + 4 * i, WORD(i));
	cw_mem_free(&e->mem);
	cw_mem_add(&e->mem, TAB, sizeof(e->tab), e->tab, "image");
	if (e->extab_len)
		cw_mem_add(&e->mem, EXTAB, e->extab_len, e->extab, "image");
	cw_mem_add(&e->mem, STACK, sizeof(e->stack), e->stack, "dump");
}

/* Pack opcode bytes MSB first into words, padding with finish (0xb0). */
static uint32_t op_word(const uint8_t *ops, unsigned int n, unsigned int from, int bytes)
{
	uint32_t w = 0;
	int k;

	for (k = 0; k < bytes; k++)
		w = (w << 8) | (from + k < n ? ops[from + k] : 0xb0);
	return w;
}

/* Encode ops for the function at FUNC in the given layout. */
static void env_build(struct env *e, enum layout how, const uint8_t *ops, unsigned int n)
{
	unsigned int extra, i, first = 3, at = 0;
	uint32_t hdr;

	memset(e, 0, offsetof(struct env, mem));
	if (how == INLINE) {
		env_table(e, 0x80000000u | op_word(ops, n, 0, 3));
		e->extab_len = 0;
		env_map(e);
		return;
	}
	env_table(e, prel31_to(EXTAB, TAB + 12));
	if (how == GENERIC) {
		/* A personality routine, then GCC's count byte and three opcodes. */
		put32(e->extab, prel31_to(0x8400, EXTAB));
		at = 4;
	}
	if (how == PR1 || how == PR2)
		first = 2;
	extra = n > first ? (n - first + 3) / 4 : 0;
	if (how == PR0)
		hdr = 0x80000000u | op_word(ops, n, 0, 3);
	else if (how == GENERIC)
		hdr = extra << 24 | op_word(ops, n, 0, 3);
	else
		hdr = (how == PR1 ? 0x81000000u : 0x82000000u) | extra << 16 |
		      op_word(ops, n, 0, 2);
	put32(e->extab + at, hdr);
	for (i = 0; i < extra; i++)
		put32(e->extab + at + 4 + 4 * i, op_word(ops, n, first + 4 * i, 4));
	e->extab_len = at + 4 + 4 * extra;
	env_map(e);
}

static void regs_init(struct cw_regs *r)
{
	memset(r, 0, sizeof(*r));
	cw_reg_set(r, CW_SP, STACK);
	cw_reg_set(r, CW_LR, LR_IN);
}

static enum cw_ehabi_status step(struct env *e, struct cw_regs *r, struct cw_ehabi *info)
{
	return cw_ehabi_step(&e->mem, TAB, e->tab_size, FUNC + 0x10, r, info);
}

/* Run ops in a layout from the default registers. */
static enum cw_ehabi_status run(struct env *e, enum layout how, const uint8_t *ops,
				unsigned int n, struct cw_regs *r)
{
	struct cw_ehabi info;

	env_build(e, how, ops, n);
	regs_init(r);
	return step(e, r, &info);
}

#define RUN(e, r, ...)							\
	run(e, PR1, (const uint8_t[]){ __VA_ARGS__ },			\
	    sizeof((const uint8_t[]){ __VA_ARGS__ }), r)

static struct env *env_new(void)
{
	return calloc(1, sizeof(struct env));
}

static void env_free(struct env *e)
{
	cw_mem_free(&e->mem);
	free(e);
}

/* Binary search: below the first entry, on each start, between, past the last. */
static void find_entries(void)
{
	struct env *e = env_new();
	uint32_t func, entry;

	env_build(e, INLINE, (const uint8_t[]){ 0xb0 }, 1);
	KTAP_EXPECT(cw_ehabi_find(&e->mem, TAB, 24, FUNC - 0x101, &func, &entry) ==
		    CW_EHABI_NO_ENTRY, "below the first entry");
	KTAP_EXPECT(!cw_ehabi_find(&e->mem, TAB, 24, FUNC - 0x100, &func, &entry) &&
		    func == FUNC - 0x100 && entry == TAB, "first: 0x%x 0x%x", func, entry);
	KTAP_EXPECT(!cw_ehabi_find(&e->mem, TAB, 24, FUNC + 0xff, &func, &entry) &&
		    func == FUNC && entry == TAB + 8, "middle: 0x%x 0x%x", func, entry);
	KTAP_EXPECT(!cw_ehabi_find(&e->mem, TAB, 24, 0xfffffff0u, &func, &entry) &&
		    func == FUNC + 0x100 && entry == TAB + 16, "last: 0x%x 0x%x", func, entry);
	KTAP_EXPECT(cw_ehabi_find(&e->mem, TAB, 0, FUNC, &func, &entry) == CW_EHABI_NO_ENTRY,
		    "empty table");
	/* A table longer than its section: the unreadable entry is an error, not a read past. */
	KTAP_EXPECT(cw_ehabi_find(&e->mem, TAB, 8 * 1000, FUNC, &func, &entry) ==
		    CW_EHABI_TABLE, "truncated table");
	env_free(e);
}

static void cantunwind(void)
{
	struct env *e = env_new();
	struct cw_ehabi info;
	struct cw_regs r;

	env_build(e, INLINE, (const uint8_t[]){ 0xb0 }, 1);
	regs_init(&r);
	KTAP_EXPECT(cw_ehabi_step(&e->mem, TAB, e->tab_size, FUNC - 0x80, &r, &info) ==
		    CW_EHABI_CANTUNWIND, "CANTUNWIND entry");
	KTAP_EXPECT(cw_ehabi_step(&e->mem, TAB, e->tab_size, 0x100, &r, &info) ==
		    CW_EHABI_NO_ENTRY, "no entry");
	KTAP_EXPECT(r.r[CW_SP] == STACK && r.r[CW_LR] == LR_IN && !cw_reg_ok(&r, CW_PC),
		    "registers changed on failure");
	env_free(e);
}

/* 00xxxxxx vsp += (x << 2) + 4, 01xxxxxx vsp -= (x << 2) + 4; lr not popped is the return. */
static void vsp_add_sub(void)
{
	struct env *e = env_new();
	struct cw_regs r;

	KTAP_EXPECT(!RUN(e, &r, 0x04, 0x3f) && r.r[CW_SP] == STACK + 20 + 256 &&
		    r.r[CW_PC] == LR_IN, "add: sp 0x%x pc 0x%x", r.r[CW_SP], r.r[CW_PC]);
	KTAP_EXPECT(!RUN(e, &r, 0x07, 0x41, 0xa8) && r.r[CW_SP] == STACK + 32 - 8 + 8 &&
		    r.r[CW_R4] == WORD(6) && r.r[CW_PC] == WORD(7) && r.r[CW_LR] == WORD(7),
		    "sub then pop: sp 0x%x pc 0x%x", r.r[CW_SP], r.r[CW_PC]);
	env_free(e);
}

/* 1000iiii iiiiiiii: pop r4-r15 by mask, lowest register from the lowest address. */
static void pop_by_mask(void)
{
	struct env *e = env_new();
	struct cw_regs r;

	KTAP_EXPECT(!RUN(e, &r, 0x84, 0x09) && r.r[CW_SP] == STACK + 12 &&
		    r.r[CW_R4] == WORD(0) && r.r[CW_R7] == WORD(1) && r.r[CW_PC] == WORD(2),
		    "{r4, r7, lr}: sp 0x%x pc 0x%x", r.r[CW_SP], r.r[CW_PC]);
	/* pc popped: it is the return address, lr stays. */
	KTAP_EXPECT(!RUN(e, &r, 0x88, 0x01) && r.r[CW_R4] == WORD(0) && r.r[CW_PC] == WORD(1) &&
		    r.r[CW_LR] == LR_IN && r.r[CW_SP] == STACK + 8, "{r4, pc}: pc 0x%x",
		    r.r[CW_PC]);
	/* r13 in the mask: the popped value becomes the vsp. */
	KTAP_EXPECT(!RUN(e, &r, 0x86, 0x00) && r.r[CW_SP] == WORD(0) && r.r[CW_PC] == WORD(1),
		    "{sp, lr}: sp 0x%x", r.r[CW_SP]);
	/* Every register r4-r15 but sp. */
	KTAP_EXPECT(!RUN(e, &r, 0x8d, 0xff) && r.r[CW_R11] == WORD(7) && r.r[CW_R12] == WORD(8) &&
		    r.r[CW_LR] == WORD(9) && r.r[CW_PC] == WORD(10) && r.r[CW_SP] == STACK + 44,
		    "all: sp 0x%x", r.r[CW_SP]);
	/* Second byte missing: truncated. */
	KTAP_EXPECT(run(e, INLINE, (const uint8_t[]){ 0x00, 0x00, 0x84 }, 3, &r) ==
		    CW_EHABI_TABLE, "truncated mask");
	env_free(e);
}

/* 1001nnnn vsp = r[n]; 13 and 15 are reserved. */
static void vsp_from_reg(void)
{
	struct env *e = env_new();
	struct cw_ehabi info;
	struct cw_regs r;

	env_build(e, PR0, (const uint8_t[]){ 0x97, 0x84, 0x08 }, 3);
	regs_init(&r);
	cw_reg_set(&r, CW_R7, STACK + 16);
	KTAP_EXPECT(!step(e, &r, &info) && r.r[CW_SP] == STACK + 24 && r.r[CW_R7] == WORD(4) &&
		    r.r[CW_PC] == WORD(5) && info.popped == (1u << CW_R7 | 1u << CW_LR),
		    "vsp = r7: sp 0x%x pc 0x%x", r.r[CW_SP], r.r[CW_PC]);
	KTAP_EXPECT(RUN(e, &r, 0x97, 0xa8) == CW_EHABI_REG, "r7 unknown");
	KTAP_EXPECT(RUN(e, &r, 0x9d) == CW_EHABI_SPARE, "0x9d reserved");
	KTAP_EXPECT(RUN(e, &r, 0x9f) == CW_EHABI_SPARE, "0x9f reserved");
	env_free(e);
}

/* 10100nnn pop r4-r[4+n]; 10101nnn the same and r14. */
static void pop_range(void)
{
	struct env *e = env_new();
	struct cw_regs r;

	KTAP_EXPECT(!RUN(e, &r, 0xa3) && r.r[CW_R7] == WORD(3) && r.r[CW_SP] == STACK + 16 &&
		    r.r[CW_PC] == LR_IN, "r4-r7: sp 0x%x", r.r[CW_SP]);
	KTAP_EXPECT(!RUN(e, &r, 0xaf) && r.r[CW_R11] == WORD(7) && r.r[CW_PC] == WORD(8) &&
		    r.r[CW_SP] == STACK + 36, "r4-r11, lr: sp 0x%x pc 0x%x", r.r[CW_SP],
		    r.r[CW_PC]);
	env_free(e);
}

/* 10110000 finish: nothing after it runs; a missing trailing opcode is a finish too. */
static void finish(void)
{
	struct env *e = env_new();
	struct cw_regs r;

	KTAP_EXPECT(!RUN(e, &r, 0x04, 0xb0, 0x84, 0x09) && r.r[CW_SP] == STACK + 20 &&
		    r.r[CW_PC] == LR_IN, "after finish: sp 0x%x", r.r[CW_SP]);
	KTAP_EXPECT(!run(e, PR0, (const uint8_t[]){ 0x01 }, 1, &r) && r.r[CW_SP] == STACK + 8,
		    "implicit finish: sp 0x%x", r.r[CW_SP]);
	env_free(e);
}

/* 10110001 0000iiii pop r0-r3 by mask; 0 and 0001xxxx-1111xxxx are spare. */
static void pop_low(void)
{
	struct env *e = env_new();
	struct cw_regs r;

	KTAP_EXPECT(!RUN(e, &r, 0xb1, 0x05) && r.r[CW_R0] == WORD(0) && r.r[CW_R2] == WORD(1) &&
		    !cw_reg_ok(&r, CW_R1) && r.r[CW_SP] == STACK + 8, "r0, r2: sp 0x%x",
		    r.r[CW_SP]);
	KTAP_EXPECT(RUN(e, &r, 0xb1, 0x00) == CW_EHABI_SPARE, "b1 00");
	KTAP_EXPECT(RUN(e, &r, 0xb1, 0x11) == CW_EHABI_SPARE, "b1 11");
	env_free(e);
}

/* 10110010 uleb128: vsp += 0x204 + (uleb128 << 2); bounded, and a truncated one fails. */
static void uleb_add(void)
{
	struct env *e = env_new();
	struct cw_regs r;

	KTAP_EXPECT(!RUN(e, &r, 0xb2, 0x00) && r.r[CW_SP] == STACK + 0x204, "uleb 0: 0x%x",
		    r.r[CW_SP]);
	KTAP_EXPECT(!RUN(e, &r, 0xb2, 0x81, 0x01) && r.r[CW_SP] == STACK + 0x204 + (129 << 2),
		    "uleb 129: 0x%x", r.r[CW_SP]);
	/* A uleb128 that never ends: continuation bits to the end of the opcodes. */
	KTAP_EXPECT(RUN(e, &r, 0xb2, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
			0x80, 0x80, 0x80) == CW_EHABI_TABLE, "endless uleb");
	/* An inline entry has exactly three opcode bytes: the uleb128 runs off their end. */
	KTAP_EXPECT(run(e, INLINE, (const uint8_t[]){ 0xb2, 0x80, 0x80 }, 3, &r) ==
		    CW_EHABI_TABLE, "uleb cut short");
	env_free(e);
}

/* 10110011 sssscccc and 10111nnn: FSTMFDX pops, 8 bytes a register and a pad word. */
static void fstmfdx_pops(void)
{
	struct env *e = env_new();
	struct cw_regs r;

	KTAP_EXPECT(!RUN(e, &r, 0xb3, 0x12) && r.r[CW_SP] == STACK + 8 * 3 + 4,
		    "D1-D3: sp 0x%x", r.r[CW_SP]);
	KTAP_EXPECT(!RUN(e, &r, 0xb9, 0xa8) && r.r[CW_SP] == STACK + 8 * 2 + 4 + 8 &&
		    r.r[CW_R4] == WORD(5) && r.r[CW_PC] == WORD(6),
		    "D8-D9 then r4, lr: sp 0x%x", r.r[CW_SP]);
	KTAP_EXPECT(run(e, INLINE, (const uint8_t[]){ 0x00, 0x00, 0xb3 }, 3, &r) ==
		    CW_EHABI_TABLE, "truncated");
	env_free(e);
}

/* 11001000/11001001 sssscccc and 11010nnn: VPUSH pops, 8 bytes a register. */
static void vpush_pops(void)
{
	struct env *e = env_new();
	struct cw_regs r;

	KTAP_EXPECT(!RUN(e, &r, 0xc9, 0x03) && r.r[CW_SP] == STACK + 32, "D0-D3: sp 0x%x",
		    r.r[CW_SP]);
	KTAP_EXPECT(!RUN(e, &r, 0xc8, 0x21) && r.r[CW_SP] == STACK + 16, "D18-D19: sp 0x%x",
		    r.r[CW_SP]);
	KTAP_EXPECT(!RUN(e, &r, 0xd2, 0xa8) && r.r[CW_SP] == STACK + 24 + 8 &&
		    r.r[CW_PC] == WORD(7), "D8-D10 then r4, lr: sp 0x%x", r.r[CW_SP]);
	/* Past D31. */
	KTAP_EXPECT(RUN(e, &r, 0xc8, 0xf1) == CW_EHABI_TABLE, "D31+");
	env_free(e);
}

/* 10110100: pop the PAC (return address authentication code), one word. */
static void pac_pop(void)
{
	struct env *e = env_new();
	struct cw_regs r;

	KTAP_EXPECT(!RUN(e, &r, 0xb4, 0xa8) && r.r[CW_SP] == STACK + 12 && r.r[CW_R4] == WORD(1) &&
		    r.r[CW_PC] == WORD(2), "PAC then r4, lr: sp 0x%x pc 0x%x", r.r[CW_SP],
		    r.r[CW_PC]);
	env_free(e);
}

static void refuse_and_spare(void)
{
	static const uint8_t spare[] = {
		0xb5, 0xb6, 0xb7, 0xc0, 0xc5, 0xc6, 0xc7, 0xca, 0xcf, 0xd8, 0xe0, 0xff,
	};
	struct env *e = env_new();
	struct cw_regs r;
	unsigned int i;

	KTAP_EXPECT(RUN(e, &r, 0x80, 0x00) == CW_EHABI_REFUSE, "refuse");
	for (i = 0; i < ARRAY_SIZE(spare); i++)
		KTAP_EXPECT(run(e, PR0, &spare[i], 1, &r) == CW_EHABI_SPARE &&
			    r.r[CW_SP] == STACK && !cw_reg_ok(&r, CW_PC),
			    "opcode 0x%02x is spare", spare[i]);
	env_free(e);
}

/* One sequence in every layout: inline, extab Su16, Lu16, Lu32, generic model. */
static void personalities(void)
{
	static const uint8_t ops[] = { 0x01, 0x42, 0x03, 0x84, 0x09, 0x00, 0x40, 0xb0 };
	static const enum layout how[] = { PR0, PR1, PR2, GENERIC };
	struct env *e = env_new();
	struct cw_regs r;
	unsigned int i;

	KTAP_EXPECT(!run(e, INLINE, ops, 3, &r) && r.r[CW_SP] == STACK + 8 - 12 + 16,
		    "inline: sp 0x%x", r.r[CW_SP]);
	KTAP_EXPECT(!run(e, PR0, ops, 3, &r) && r.r[CW_SP] == STACK + 8 - 12 + 16,
		    "Su16: sp 0x%x", r.r[CW_SP]);
	for (i = 1; i < ARRAY_SIZE(how); i++) {
		KTAP_EXPECT(!run(e, how[i], ops, ARRAY_SIZE(ops), &r) &&
			    r.r[CW_SP] == STACK + 8 - 12 + 16 + 12 + 4 - 4 &&
			    r.r[CW_R4] == WORD(3) && r.r[CW_PC] == WORD(5),
			    "layout %u: sp 0x%x pc 0x%x", how[i], r.r[CW_SP], r.r[CW_PC]);
	}
	/* Personality index 3 and an inline word that is not personality 0. */
	env_build(e, PR1, ops, 3);
	put32(e->extab, 0x83000000u | 0xb0b0);
	regs_init(&r);
	KTAP_EXPECT(step(e, &r, &(struct cw_ehabi){ 0 }) == CW_EHABI_PERSONALITY, "index 3");
	env_build(e, INLINE, ops, 3);
	put32(e->tab + 12, 0x81b0b0b0u);
	KTAP_EXPECT(step(e, &r, &(struct cw_ehabi){ 0 }) == CW_EHABI_PERSONALITY, "inline 0x81");
	env_free(e);
}

static void truncated_tables(void)
{
	static const uint8_t ops[] = { 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09 };
	struct env *e = env_new();
	struct cw_regs r;

	/* Lu16 announcing more words than the section holds. */
	env_build(e, PR1, ops, ARRAY_SIZE(ops));
	e->extab_len -= 4;
	env_map(e);
	regs_init(&r);
	KTAP_EXPECT(step(e, &r, &(struct cw_ehabi){ 0 }) == CW_EHABI_TABLE, "Lu16 cut");
	/* Generic model with a count past the end. */
	env_build(e, GENERIC, ops, ARRAY_SIZE(ops));
	e->extab[7] = 0xff;
	regs_init(&r);
	KTAP_EXPECT(step(e, &r, &(struct cw_ehabi){ 0 }) == CW_EHABI_TABLE, "generic cut");
	/* extab pointer to nowhere. */
	env_build(e, PR1, ops, 3);
	put32(e->tab + 12, prel31_to(0x40000000u, TAB + 12));
	regs_init(&r);
	KTAP_EXPECT(step(e, &r, &(struct cw_ehabi){ 0 }) == CW_EHABI_TABLE, "extab missing");
	env_free(e);
}

/* A vsp that leaves memory: the pop fails, nothing is read outside the regions. */
static void vsp_outside(void)
{
	struct env *e = env_new();
	struct cw_ehabi info;
	struct cw_regs r;

	KTAP_EXPECT(RUN(e, &r, 0x3f, 0xa8) == CW_EHABI_STACK && r.r[CW_SP] == STACK,
		    "pop above the stack");
	KTAP_EXPECT(RUN(e, &r, 0x40, 0xa8) == CW_EHABI_STACK, "pop below the stack");
	KTAP_EXPECT(RUN(e, &r, 0xb2, 0xff, 0xff, 0xff, 0xff, 0x0f, 0xa8) == CW_EHABI_STACK,
		    "uleb to the top of memory");
	KTAP_EXPECT(RUN(e, &r, 0x3f, 0xd7) == CW_EHABI_STACK, "VPUSH pop past the end");
	env_build(e, PR0, (const uint8_t[]){ 0x97, 0xa8 }, 2);
	regs_init(&r);
	cw_reg_set(&r, CW_R7, 0xfffffffcu);
	KTAP_EXPECT(step(e, &r, &info) == CW_EHABI_STACK && r.r[CW_R7] == 0xfffffffcu,
		    "vsp = r7 at the top of the address space");
	env_free(e);
}

/* Whether v can have come from memory the step could read, or was there before it. */
static int value_from(const struct env *e, uint32_t v, uint32_t before)
{
	uint32_t i, w;

	if (v == before)
		return 1;
	for (i = 0; i < STACK_WORDS; i++)
		if (v == WORD(i))
			return 1;
	for (i = 0; i + 4 <= sizeof(e->tab); i++) {
		memcpy(&w, e->tab + i, 4);
		if (v == w)
			return 1;
	}
	for (i = 0; i + 4 <= e->extab_len; i++) {
		memcpy(&w, e->extab + i, 4);
		if (v == w)
			return 1;
	}
	return 0;
}

/*
 * Random opcodes in every layout. Each step must end with a status, under
 * ASan, and a step that succeeds must not invent values: every core register
 * it leaves known held that value before, or was read from the stack or the
 * tables (pc from lr or a pop, Thumb bit aside). The same opcodes must give
 * the same result twice.
 */
static void random_tables(void)
{
	struct env *e = env_new();
	unsigned int seed = 4242, i, k, bad = 0, invented = 0, unstable = 0, ok = 0;
	uint8_t ops[64];
	struct cw_regs r, again;

	for (i = 0; i < 20000; i++) {
		unsigned int n = 1 + (unsigned int)rand_r(&seed) % sizeof(ops);
		enum cw_ehabi_status st;

		for (k = 0; k < n; k++)
			ops[k] = (uint8_t)rand_r(&seed);
		st = run(e, (enum layout)(i % 5), ops, n, &r);
		if (st >= CW_EHABI_NR)
			bad++;
		if (run(e, (enum layout)(i % 5), ops, n, &again) != st ||
		    memcmp(&r, &again, sizeof(r)))
			unstable++;
		if (st != CW_EHABI_OK)
			continue;
		ok++;
		for (k = CW_R0; k <= CW_PC; k++) {
			uint32_t before = k == CW_LR || k == CW_PC ? LR_IN : 0;

			if (k == CW_SP || !cw_reg_ok(&r, (enum cw_reg)k))
				continue;
			if (!value_from(e, r.r[k], before) && !value_from(e, r.r[k] | 1u, before) &&
			    !value_from(e, r.r[k] & ~1u, before)) {
				if (invented++ < 4)
					printf("# run %u: %s = 0x%08x from nowhere\n", i,
					       cw_reg_name((enum cw_reg)k), r.r[k]);
			}
		}
	}
	printf("# %u of 20000 random steps succeeded\n", ok);
	KTAP_EXPECT(bad == 0, "%u bad statuses", bad);
	KTAP_EXPECT(unstable == 0, "%u steps gave another result the second time", unstable);
	KTAP_EXPECT(invented == 0, "%u registers got values from nowhere", invented);
	KTAP_EXPECT(ok > 1000, "only %u steps succeeded: the check saw too few", ok);
	env_free(e);
}

int main(void)
{
	ktap_header("crashwalk-ehabi");
	KTAP_RUN(find_entries);
	KTAP_RUN(cantunwind);
	KTAP_RUN(vsp_add_sub);
	KTAP_RUN(pop_by_mask);
	KTAP_RUN(vsp_from_reg);
	KTAP_RUN(pop_range);
	KTAP_RUN(finish);
	KTAP_RUN(pop_low);
	KTAP_RUN(uleb_add);
	KTAP_RUN(fstmfdx_pops);
	KTAP_RUN(vpush_pops);
	KTAP_RUN(pac_pop);
	KTAP_RUN(refuse_and_spare);
	KTAP_RUN(personalities);
	KTAP_RUN(truncated_tables);
	KTAP_RUN(vsp_outside);
	KTAP_RUN(random_tables);
	return ktap_finish();
}
