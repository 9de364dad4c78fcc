// SPDX-License-Identifier: GPL-2.0
/*
 * test_decode.c - crashwalk's decoders: Thumb calls, branches and low-overhead
 * loops (encodings produced by GNU as, not by crashwalk), prologue analysis, fault status
 * bits, and the r7 record hook of the shared frame walker. The exception
 * model has its own test, test_exc.c.
 */
#include "cw_test.h"
#include "../lib/fw_walk.h"

/* hw1, hw2, address, target: from arm-none-eabi-as + objdump (see the commit message). */
static const struct {
	uint16_t hw1, hw2;
	uint32_t addr, target;
} bl_vectors[] = {
	{ 0xf000, 0xf800, 0x1000000, 0x1000004 },
	{ 0xf3ff, 0xf7fb, 0x1000004, 0x17ffffe },	/* +8 MB: J1/J2 clear */
	{ 0xf7ff, 0xdffa, 0x1000008, 0x0800000 },	/* -8 MB */
	{ 0xf2bc, 0xdee8, 0x100000c, 0x1abcde0 },	/* +11 MB: J1 = 0 */
	{ 0xf543, 0xd906, 0x1000010, 0x0543220 },	/* -11 MB */
};

static void bl_decode(void)
{
	unsigned int i;
	uint32_t t;

	for (i = 0; i < ARRAY_SIZE(bl_vectors); i++) {
		t = 0;
		KTAP_EXPECT(cw_thumb_bl_decode(bl_vectors[i].hw1, bl_vectors[i].hw2,
					       bl_vectors[i].addr, &t) &&
			    t == bl_vectors[i].target, "vector %u: 0x%x, want 0x%x", i, t,
			    bl_vectors[i].target);
	}
	/* B.W (T4) has bit 14 of hw2 clear: not a call. */
	KTAP_EXPECT(!cw_thumb_bl_decode(0xf7ff, 0xbfe0, 0, &t), "B.W taken for BL");
}

static void blx_not_bx(void)
{
	KTAP_EXPECT(cw_thumb_is_blx_reg(0x4798), "blx r3");
	KTAP_EXPECT(cw_thumb_is_blx_reg(0x47f0), "blx lr");
	KTAP_EXPECT(!cw_thumb_is_blx_reg(0x4718), "bx r3 taken for a call");
	KTAP_EXPECT(!cw_thumb_is_blx_reg(0x4770), "bx lr taken for a call");
	KTAP_EXPECT(!cw_thumb_is_blx_reg(0x4799), "low bits must be zero");
}

/* A code region at 0x1000: the test's own little "flash". */
static uint8_t flash[256];

static void put_hw(uint32_t at, uint16_t hw)
{
	flash[at] = (uint8_t)hw;
	flash[at + 1] = (uint8_t)(hw >> 8);
}

static void call_before(void)
{
	struct cw_mem mem = { 0 };
	uint32_t t = 0;
	unsigned int len = 0;

	memset(flash, 0, sizeof(flash));
	cw_mem_add(&mem, 0x1000000, sizeof(flash), flash, "image");
	put_hw(0, 0xf000);
	put_hw(2, 0xf800);	/* bl 0x1000004 */
	put_hw(4, 0x4798);	/* blx r3 */
	put_hw(6, 0x4718);	/* bx r3 */
	put_hw(8, 0xf7ff);
	put_hw(10, 0xbffa);	/* b.w 0x1000000 */
	put_hw(12, 0xe7fe);	/* b . */
	KTAP_EXPECT(cw_thumb_call_before(&mem, 0x1000005, &t) == CW_CALL_BL && t == 0x1000004,
		    "bl before 0x1000004: 0x%x", t);
	KTAP_EXPECT(cw_thumb_call_before(&mem, 0x1000007, &t) == CW_CALL_BLX_REG, "blx");
	KTAP_EXPECT(cw_thumb_call_before(&mem, 0x1000009, &t) == CW_CALL_NONE, "bx is no call");
	KTAP_EXPECT(cw_thumb_b_target(&mem, 0x1000008, &t, &len) && t == 0x1000000 && len == 4,
		    "b.w 0x%x", t);
	KTAP_EXPECT(cw_thumb_b_target(&mem, 0x100000c, &t, &len) && t == 0x100000c && len == 2,
		    "b . 0x%x", t);
	KTAP_EXPECT(!cw_thumb_b_target(&mem, 0x1000000, &t, &len) && len == 4, "bl is not b");
	cw_mem_free(&mem);
}

/*
 * ARMv8.1-M's low-overhead loops: hw1, hw2, address and the text, from
 * arm-none-eabi-as -march=armv8.1-m.main+mve and objdump (the le at 0x8a6
 * and the dls before it are GCC 12's for cortex-m55, in the corpus's lob_sum).
 */
static const struct {
	uint16_t hw1, hw2;
	uint32_t addr;
	const char *text;
} lob_vectors[] = {
	{ 0xf043, 0xe001, 0x0, "dls lr, r3" },
	{ 0xf042, 0xc803, 0x4, "wls lr, r2, #0xe" },
	{ 0xf021, 0xe001, 0x8, "dlstp.32 lr, r1" },
	{ 0xf01f, 0xc809, 0xe, "letp lr, #0x0" },
	{ 0xf00f, 0xc80b, 0x12, "le lr, #0x0" },
	{ 0xf02f, 0xc80d, 0x16, "le #0x0" },
	{ 0xf00f, 0xe001, 0x1a, "lctp" },
	{ 0xf004, 0xc003, 0x1e, "wlstp.8 lr, r4, #0x26" },
	{ 0xf04e, 0xe001, 0x896, "dls lr, lr" },
	{ 0xf00f, 0xc807, 0x8a6, "le lr, #0x89c" },
};

static void low_overhead_loops(void)
{
	struct cw_mem mem = { 0 };
	struct cw_fault f;
	unsigned int i;
	uint32_t t;
	char buf[64];

	for (i = 0; i < ARRAY_SIZE(lob_vectors); i++) {
		buf[0] = 0;
		cw_thumb_lob_format(lob_vectors[i].hw1, lob_vectors[i].hw2, lob_vectors[i].addr,
				    buf, sizeof(buf));
		KTAP_EXPECT(!strcmp(buf, lob_vectors[i].text), "%04x %04x: '%s', want '%s'",
			    lob_vectors[i].hw1, lob_vectors[i].hw2, buf, lob_vectors[i].text);
	}
	/* Their neighbours in the encoding space are no loop: BL, BLX, B.W. */
	KTAP_EXPECT(cw_thumb_lob_decode(0xf000, 0xf800, 0, &t) == CW_LOB_NONE, "bl");
	KTAP_EXPECT(cw_thumb_lob_decode(0xf000, 0xe800, 0, &t) == CW_LOB_NONE, "blx");
	KTAP_EXPECT(cw_thumb_lob_decode(0xf7ff, 0xbffa, 0, &t) == CW_LOB_NONE, "b.w");

	/* The faulting instruction: a loop's own text, MVE said to be not decoded, not ldc. */
	memset(flash, 0, sizeof(flash));
	cw_mem_add(&mem, 0x1000, sizeof(flash), flash, "image");
	put_hw(0, 0xf00f);
	put_hw(2, 0xc807);	/* le lr, #0xff6 */
	put_hw(4, 0xed90);
	put_hw(6, 0x1f00);	/* vldrw.u32 q0, [r0] */
	put_hw(8, 0xf852);
	put_hw(10, 0x3b04);	/* ldr r3, [r2], #4 */
	cw_fault_decode(&mem, 0x1000, 1, &f);
	KTAP_EXPECT(!strcmp(f.insn, "le lr, #0xff6") && !f.insn_undecoded, "le: '%s'", f.insn);
	cw_fault_decode(&mem, 0x1004, 1, &f);
	KTAP_EXPECT(f.insn_undecoded && strstr(f.insn, "not decoded: ed90 1f00"), "vldrw: '%s'",
		    f.insn);
	cw_fault_decode(&mem, 0x1008, 1, &f);
	KTAP_EXPECT(!strcmp(f.insn, "ldr r3, [r2], #4") && !f.insn_undecoded, "ldr: '%s'",
		    f.insn);
	cw_mem_free(&mem);
}

static void prologue(void)
{
	struct cw_mem mem = { 0 };
	struct cw_prologue p;

	memset(flash, 0, sizeof(flash));
	cw_mem_add(&mem, 0x2000, sizeof(flash), flash, "image");
	/* GCC -O0 Thumb: push {r7, lr}; sub sp, #16; add r7, sp, #0 */
	put_hw(0, 0xb580);
	put_hw(2, 0xb084);
	put_hw(4, 0xaf00);
	put_hw(6, 0xbf00);
	KTAP_EXPECT(!cw_prologue_analyze(&mem, NULL, 0x2000, 0x2006, &p), "read");
	KTAP_EXPECT(p.sp_off == -24, "sp_off %d", p.sp_off);
	KTAP_EXPECT(p.slot[7] == -8 && p.slot[14] == -4, "slots %d %d", p.slot[7], p.slot[14]);
	KTAP_EXPECT(p.fp_set && p.fp_off == -24, "fp_off %d", p.fp_off);
	/* Stopped inside the prologue: only the push has happened. */
	KTAP_EXPECT(!cw_prologue_analyze(&mem, NULL, 0x2000, 0x2002, &p) && p.sp_off == -8 && !p.fp_set,
		    "partial %d", p.sp_off);

	/* push.w {r4-r11, lr}; sub.w sp, #0x200; subw sp, #0x123; vpush {d8-d9}; add r7, sp, #8 */
	put_hw(0, 0xe92d);
	put_hw(2, 0x4ff0);
	put_hw(4, 0xf5ad);
	put_hw(6, 0x7d00);
	put_hw(8, 0xf2ad);
	put_hw(10, 0x1d23);
	put_hw(12, 0xed2d);
	put_hw(14, 0x8b04);
	put_hw(16, 0xaf02);
	put_hw(18, 0xbd00);	/* pop {pc}: the analysis ends here */
	put_hw(20, 0xb082);	/* never reached */
	KTAP_EXPECT(!cw_prologue_analyze(&mem, NULL, 0x2000, 0x2020, &p), "read");
	KTAP_EXPECT(p.sp_off == -(36 + 0x200 + 0x123 + 16), "sp_off %d", p.sp_off);
	KTAP_EXPECT(p.slot[4] == -36 && p.slot[11] == -8 && p.slot[14] == -4, "slots");
	KTAP_EXPECT(p.fp_set && p.fp_off == p.sp_off + 8, "fp_off %d", p.fp_off);

	/* str lr, [sp, #-4]!; add.w r7, sp, #256 */
	put_hw(0, 0xf84d);
	put_hw(2, 0xed04);
	put_hw(4, 0xf50d);
	put_hw(6, 0x7780);
	put_hw(8, 0x466f);	/* mov r7, sp */
	KTAP_EXPECT(!cw_prologue_analyze(&mem, NULL, 0x2000, 0x2008, &p) && p.slot[14] == -4 &&
		    p.fp_off == -4 + 256, "str/add.w: %d %d", p.slot[14], p.fp_off);
	KTAP_EXPECT(!cw_prologue_analyze(&mem, NULL, 0x2000, 0x200a, &p) && p.fp_off == -4,
		    "mov r7, sp: %d", p.fp_off);
	KTAP_EXPECT(cw_prologue_analyze(&mem, NULL, 0x3000, 0x3004, &p) != 0, "unreadable code");
	cw_mem_free(&mem);
}

/* Load halfwords at 0x2000 + 2 * i (the test encodings come from GNU as, checked against A7.7). */
static void put_code(const uint16_t *hw, unsigned int n)
{
	unsigned int i;

	memset(flash, 0, sizeof(flash));
	for (i = 0; i < n; i++)
		put_hw(2 * i, hw[i]);
}

/* sp moved by a register: by the constant it holds, else only r7 can say where the frame is. */
static void prologue_sp_by_register(void)
{
	static const uint16_t thumb1[] = {
		0xb510,		/* push {r4, lr} */
		0x4b01,		/* ldr r3, [pc, #4]: the literal at 0x2008 */
		0x449d,		/* add sp, r3 */
		0xbf00,
		0xfbf8, 0xffff,	/* .word -1032 */
	};
	static const uint16_t thumb2[] = {
		0xb580,		/* push {r7, lr} */
		0xf241, 0x2334,	/* movw r3, #0x1234 */
		0xebad, 0x0d03,	/* sub.w sp, sp, r3 */
		0xaf00,		/* add r7, sp, #0 */
		0xebad, 0x0d02,	/* sub.w sp, sp, r2: a VLA, r2 unknown */
		0x46bd,		/* mov sp, r7 */
		0xbf00,
	};
	static const uint16_t mvn_pop[] = {
		0xf06f, 0x0307,	/* mvn r3, #7: r3 = -8 */
		0x449d,		/* add sp, r3 */
		0xf85d, 0x4b04,	/* ldr.w r4, [sp], #4: an early return's pop, not this path's */
		0x4695,		/* mov sp, r2: nothing says what r2 is */
		0xbf00,
	};
	static const uint16_t fp_teardown[] = {
		0xb580,		/* push {r7, lr} */
		0xaf00,		/* add r7, sp, #0 */
		0x3708,		/* adds r7, #8 */
		0x46bd,		/* mov sp, r7 */
		0xbd80,		/* pop {r7, pc} */
		0xbf00,		/* reached by a branch from before the return */
	};
	struct cw_mem mem = { 0 };
	struct cw_prologue p;

	cw_mem_add(&mem, 0x2000, sizeof(flash), flash, "image");
	put_code(thumb1, ARRAY_SIZE(thumb1));
	KTAP_EXPECT(!cw_prologue_analyze(&mem, NULL, 0x2000, 0x2006, &p) && !p.sp_dynamic &&
		    p.sp_off == -8 - 1032, "literal: sp_off %d", p.sp_off);
	KTAP_EXPECT(p.slot[4] == -8 && p.slot[14] == -4, "slots %d %d", p.slot[4], p.slot[14]);

	put_code(thumb2, ARRAY_SIZE(thumb2));
	KTAP_EXPECT(!cw_prologue_analyze(&mem, NULL, 0x2000, 0x200c, &p) && !p.sp_dynamic &&
		    p.sp_off == -8 - 0x1234 && p.fp_set && p.fp_off == p.sp_off,
		    "movw: sp_off %d fp_off %d", p.sp_off, p.fp_off);
	KTAP_EXPECT(!cw_prologue_analyze(&mem, NULL, 0x2000, 0x2010, &p) && p.sp_dynamic &&
		    p.fp_set && p.fp_off == -8 - 0x1234, "vla: dynamic %d fp_off %d",
		    p.sp_dynamic, p.fp_off);
	/* mov sp, r7 gives sp back: the frame pointer knows where it is. */
	KTAP_EXPECT(!cw_prologue_analyze(&mem, NULL, 0x2000, 0x2012, &p) && !p.sp_dynamic &&
		    p.sp_off == -8 - 0x1234, "mov sp, r7: dynamic %d sp_off %d", p.sp_dynamic,
		    p.sp_off);

	/* r7 moved by the epilogue on the way to the pc: no longer a frame pointer... */
	put_code(fp_teardown, ARRAY_SIZE(fp_teardown));
	KTAP_EXPECT(!cw_prologue_analyze(&mem, NULL, 0x2000, 0x2006, &p) && !p.fp_set,
		    "adds r7 before the pc: fp_set %d", p.fp_set);
	/* ...but one that belongs to an early return the path jumped over leaves it one. */
	KTAP_EXPECT(!cw_prologue_analyze(&mem, NULL, 0x2000, 0x200c, &p) && p.fp_set &&
		    p.fp_off == -8, "early return: fp_set %d fp_off %d", p.fp_set, p.fp_off);

	put_code(mvn_pop, ARRAY_SIZE(mvn_pop));
	KTAP_EXPECT(!cw_prologue_analyze(&mem, NULL, 0x2000, 0x200a, &p) && !p.sp_dynamic &&
		    p.sp_off == -8, "mvn, then a pop skipped: sp_off %d", p.sp_off);
	KTAP_EXPECT(!cw_prologue_analyze(&mem, NULL, 0x2000, 0x200c, &p) && p.sp_dynamic,
		    "mov sp, r2 not flagged");
	cw_mem_free(&mem);
}

/* The word stored at off, or 0 when the tracker found none there. */
static uint32_t stored_at(const struct cw_stored_word *st, int n, int32_t off)
{
	int i;

	for (i = 0; i < n; i++)
		if (st[i].off == off)
			return st[i].val;
	return 0;
}

/*
 * A FreeRTOS port's pxPortInitialiseStack() as GCC builds it: the constants it
 * stores through its first argument, xPSR (0x01000000) a word below the top,
 * the task return address (the literal 0x1235) three below. -O0 keeps the
 * pointer in a stack slot; -O2 for v8-M stores with strd and negative offsets.
 */
static void task_frame_stores(void)
{
	static const uint16_t cm0_o0[] = {
		0xb580, 0xb084, 0xaf00,	/* push {r7, lr}; sub sp, #16; add r7, sp, #0 */
		0x60f8, 0x60b9, 0x607a,	/* str r0, [r7, #12]; str r1, [r7, #8]; str r2, [r7, #4] */
		0x68fb, 0x3b04, 0x60fb,	/* ldr r3, [r7, #12]; subs r3, #4; str r3, [r7, #12] */
		0x68fb, 0x2280, 0x0452,	/* ldr r3, [r7, #12]; movs r2, #128; lsls r2, r2, #17 */
		0x601a,			/* str r2, [r3, #0] */
		0x68fb, 0x3b04, 0x60fb,
		0x68bb, 0x2201, 0x4393,	/* ldr r3, [r7, #8]; movs r2, #1; bics r3, r2 */
		0x001a, 0x68fb, 0x601a,	/* movs r2, r3; ldr r3, [r7, #12]; str r2, [r3, #0] */
		0x68fb, 0x3b04, 0x60fb,
		0x4a08, 0x68fb, 0x601a,	/* ldr r2, [pc, #32]; ldr r3, [r7, #12]; str r2, [r3, #0] */
		0x68fb, 0x3b14, 0x60fb,
		0x687a, 0x68fb, 0x601a,	/* ldr r2, [r7, #4]; ldr r3, [r7, #12]; str r2, [r3, #0] */
		0x68fb, 0x3b20, 0x60fb,
		0x68fb, 0x0018, 0x46bd,	/* ldr r3, [r7, #12]; movs r0, r3; mov sp, r7 */
		0xb004, 0xbd80,		/* add sp, #16; pop {r7, pc} */
		0x1235, 0x0000,		/* .word 0x1235 */
	};
	static const uint16_t cm33_o2[] = {
		0xb430,			/* push {r4, r5} */
		0xf06f, 0x0302,		/* mvn.w r3, #2 */
		0xf04f, 0x7480,		/* mov.w r4, #0x1000000 */
		0x4d06,			/* ldr r5, [pc, #24] */
		0xf021, 0x0101,		/* bic.w r1, r1, #1 */
		0xf840, 0x5c0c,		/* str.w r5, [r0, #-12] */
		0xe940, 0x1402,		/* strd r1, r4, [r0, #-8] */
		0xbc30,			/* pop {r4, r5} */
		0xe940, 0x3209,		/* strd r3, r2, [r0, #-36] */
		0x3844, 0x4770, 0xbf00,	/* subs r0, #68; bx lr; nop */
		0x1235, 0x0000,		/* .word 0x1235 */
	};
	struct cw_mem mem = { 0 };
	struct cw_stored_word st[8];
	int n;

	cw_mem_add(&mem, 0x2000, sizeof(flash), flash, "image");
	put_code(cm0_o0, ARRAY_SIZE(cm0_o0));
	n = cw_thumb_arg_stores(&mem, NULL, 0x2000, st, ARRAY_SIZE(st));
	KTAP_EXPECT(stored_at(st, n, -4) == 0x01000000 && stored_at(st, n, -12) == 0x1235,
		    "-O0 (v6-M): %d stores, xPSR 0x%08x, lr 0x%08x", n, stored_at(st, n, -4),
		    stored_at(st, n, -12));
	put_code(cm33_o2, ARRAY_SIZE(cm33_o2));
	n = cw_thumb_arg_stores(&mem, NULL, 0x2000, st, ARRAY_SIZE(st));
	KTAP_EXPECT(stored_at(st, n, -4) == 0x01000000 && stored_at(st, n, -12) == 0x1235 &&
		    stored_at(st, n, -36) == 0xfffffffd,
		    "-O2 (v8-M): %d stores, xPSR 0x%08x, lr 0x%08x, EXC_RETURN 0x%08x", n,
		    stored_at(st, n, -4), stored_at(st, n, -12), stored_at(st, n, -36));
	KTAP_EXPECT(cw_thumb_arg_stores(&mem, NULL, 0x3000, st, ARRAY_SIZE(st)) == -1,
		    "unreadable code");
	cw_mem_free(&mem);
}

static int epilogue_at(const uint16_t *hw, unsigned int n, uint32_t pc, struct cw_epilogue *e)
{
	struct cw_mem mem = { 0 };
	int r;

	put_code(hw, n);
	cw_mem_add(&mem, 0x2000, sizeof(flash), flash, "image");
	r = cw_epilogue_analyze(&mem, NULL, 0x2000, 0x2000 + 2 * n, pc, e);
	cw_mem_free(&mem);
	return r;
}

/* From the pc forward to the return: offsets from sp (or r7) at the pc. */
static void epilogue_forms(void)
{
	static const uint16_t t1[] = {
		0x2000,		/* movs r0, #0: no stack effect */
		0xb002,		/* add sp, #8 */
		0xbd90,		/* pop {r4, r7, pc} */
	};
	static const uint16_t t2[] = {
		0xecbd, 0x8b02,	/* vpop {d8} */
		0xe8bd, 0x41f0,	/* pop.w {r4-r8, lr} */
		0x4770,		/* bx lr */
	};
	static const uint16_t ldr_pc[] = {
		0xf50d, 0x7d80,	/* add.w sp, sp, #256 */
		0xf85d, 0xfb04,	/* ldr.w pc, [sp], #4 */
	};
	static const uint16_t fp[] = {
		0x3710,		/* adds r7, #16 */
		0x46bd,		/* mov sp, r7 */
		0xbd80,		/* pop {r7, pc} */
	};
	static const uint16_t shared[] = {
		0xe001,		/* b.n 0x2006: to the shared return */
		0xd0fd,		/* beq: not on the path */
		0xbf00,
		0xbc10,		/* pop {r4} */
		0x2401,		/* movs r4, #1: the popped value is gone again */
		0x9901,		/* ldr r1, [sp, #4] */
		0x4770,		/* bx lr */
	};
	static const uint16_t tail[] = {
		0xb001,		/* add sp, #4 */
		0xe7fc,		/* b.n 0x1ffe: outside the function, a tail call */
	};
	struct cw_epilogue e;

	KTAP_EXPECT(!epilogue_at(t1, ARRAY_SIZE(t1), 0x2000, &e) && e.base == CW_SP &&
		    e.cfa_off == 20 && e.slot[4] == 8 && e.slot[7] == 12 && e.slot[15] == 16 &&
		    e.restored == 0x8090 && !e.ret_lr, "add sp; pop pc: cfa %d", e.cfa_off);
	/* Inside the epilogue: the add already ran. */
	KTAP_EXPECT(!epilogue_at(t1, ARRAY_SIZE(t1), 0x2004, &e) && e.cfa_off == 12 &&
		    e.slot[15] == 8, "at the pop: cfa %d", e.cfa_off);
	KTAP_EXPECT(!epilogue_at(t2, ARRAY_SIZE(t2), 0x2000, &e) && e.cfa_off == 32 &&
		    e.slot[4] == 8 && e.slot[14] == 28 && e.ret_lr && !(e.restored & 0x8000),
		    "vpop; pop.w; bx lr: cfa %d lr %d", e.cfa_off, e.slot[14]);
	KTAP_EXPECT(!epilogue_at(ldr_pc, ARRAY_SIZE(ldr_pc), 0x2000, &e) && e.cfa_off == 0x104 &&
		    e.slot[15] == 0x100, "ldr pc, [sp], #4: cfa %d", e.cfa_off);
	KTAP_EXPECT(!epilogue_at(fp, ARRAY_SIZE(fp), 0x2000, &e) && e.base == CW_R7 &&
		    e.cfa_off == 24 && e.slot[7] == 16 && e.slot[15] == 20,
		    "mov sp, r7: base %d cfa %d", e.base, e.cfa_off);
	KTAP_EXPECT(!epilogue_at(shared, ARRAY_SIZE(shared), 0x2000, &e) && e.cfa_off == 4 &&
		    !(e.restored & 0x10) && (e.clobbered & 0x10) && e.slot[1] == 8 && e.ret_lr,
		    "branch to a shared return: cfa %d", e.cfa_off);
	KTAP_EXPECT(!epilogue_at(tail, ARRAY_SIZE(tail), 0x2000, &e) && e.cfa_off == 4 &&
		    e.ret_lr, "tail call: cfa %d", e.cfa_off);
}

/* What pseudo-execution must refuse: conditions, calls, sp or lr from unknown values, loops. */
static void epilogue_refusals(void)
{
	static const uint16_t cond[] = { 0xd000, 0xbd00 };		/* beq; pop {pc} */
	static const uint16_t call[] = { 0xf7ff, 0xfffe, 0xbd00 };	/* bl; pop {pc} */
	static const uint16_t sp_reg[] = { 0x4695, 0xbd00 };		/* mov sp, r2 */
	static const uint16_t it[] = { 0xbf08, 0xbd00, 0x4770 };	/* it eq; popeq {pc} */
	static const uint16_t lr[] = { 0x469e, 0x4770 };		/* mov lr, r3; bx lr */
	static const uint16_t loop[] = { 0xe7fe };			/* b . */
	static const uint16_t fp_late[] = { 0xbc10, 0x46bd, 0xbd80 };	/* pop; mov sp, r7 */
	uint16_t nops[40];
	struct cw_epilogue e;
	unsigned int i;

	KTAP_EXPECT(epilogue_at(cond, ARRAY_SIZE(cond), 0x2000, &e) < 0, "conditional branch");
	KTAP_EXPECT(epilogue_at(call, ARRAY_SIZE(call), 0x2000, &e) < 0, "call");
	KTAP_EXPECT(epilogue_at(sp_reg, ARRAY_SIZE(sp_reg), 0x2000, &e) < 0, "mov sp, r2");
	KTAP_EXPECT(epilogue_at(it, ARRAY_SIZE(it), 0x2000, &e) < 0, "it block");
	KTAP_EXPECT(epilogue_at(lr, ARRAY_SIZE(lr), 0x2000, &e) < 0, "lr overwritten");
	KTAP_EXPECT(epilogue_at(loop, ARRAY_SIZE(loop), 0x2000, &e) < 0, "b . ends");
	KTAP_EXPECT(epilogue_at(fp_late, ARRAY_SIZE(fp_late), 0x2000, &e) < 0,
		    "sp from r7 after a pop");
	for (i = 0; i < ARRAY_SIZE(nops); i++)
		nops[i] = 0xbf00;
	nops[ARRAY_SIZE(nops) - 1] = 0x4770;
	KTAP_EXPECT(epilogue_at(nops, ARRAY_SIZE(nops), 0x2000, &e) < 0, "no bound on length");
	/* Running off the function's end, or starting outside it. */
	KTAP_EXPECT(epilogue_at(cond + 1, 0, 0x2000, &e) < 0, "empty function");
	KTAP_EXPECT(epilogue_at(lr + 1, 1, 0x1ffe, &e) < 0, "pc below the function");
}

static int has_line(const struct cw_fault *f, const char *name)
{
	unsigned int i;

	for (i = 0; i < f->nr; i++)
		if (!strncmp(f->lines[i], name, strlen(name)))
			return 1;
	return 0;
}

static void fault_bits(void)
{
	struct cw_fault f;

	memset(&f, 0, sizeof(f));
	cw_fault_explain(0x00008200, 0x40000000, &f);
	KTAP_EXPECT(!strcmp(f.cls, "bus-precise") && has_line(&f, "BFARVALID") &&
		    has_line(&f, "FORCED"), "precise: %s", f.cls);
	cw_fault_explain(0x00000400, 0x40000000, &f);
	KTAP_EXPECT(!strcmp(f.cls, "bus-imprecise") && !has_line(&f, "BFARVALID"), "%s", f.cls);
	cw_fault_explain(0x00020000, 0x40000000, &f);
	KTAP_EXPECT(!strcmp(f.cls, "invalid-state") && strstr(f.lines[0], "Thumb bit"), "%s",
		    f.cls);
	cw_fault_explain(0x02000000, 0, &f);
	KTAP_EXPECT(!strcmp(f.cls, "divide-by-zero"), "%s", f.cls);
	cw_fault_explain(0x01000000, 0, &f);
	KTAP_EXPECT(!strcmp(f.cls, "unaligned"), "%s", f.cls);
	cw_fault_explain(0x00000082, 0, &f);
	KTAP_EXPECT(!strcmp(f.cls, "mem-data") && has_line(&f, "MMARVALID"), "%s", f.cls);
	cw_fault_explain(0x00001000, 0, &f);
	KTAP_EXPECT(!strcmp(f.cls, "stack-overflow"), "%s", f.cls);
	/* An overflow into an MPU guard: the data access is a symptom of the stacking failure. */
	cw_fault_explain(0x00000092, 0x40000000, &f);
	KTAP_EXPECT(!strcmp(f.cls, "stack-overflow") && has_line(&f, "DACCVIOL"), "%s", f.cls);
	cw_fault_explain(0, 0x00000002, &f);
	KTAP_EXPECT(!strcmp(f.cls, "vector-table"), "%s", f.cls);
	cw_fault_explain(0, 0, &f);
	KTAP_EXPECT(!strcmp(f.cls, "hardfault") && f.nr == 0, "%s", f.cls);
	/* A BKPT with no debugger: HardFault with DEBUGEVT, DFSR.BKPT says why. */
	cw_fault_explain(0, 0x80000000, &f);
	cw_fault_explain_debug(0x00000002, &f);
	KTAP_EXPECT(!strcmp(f.cls, "debug") && has_line(&f, "DEBUGEVT") && has_line(&f, "BKPT") &&
		    !has_line(&f, "HALTED"), "%s", f.cls);
	cw_fault_explain(0x00020000, 0x40000000, &f);
	cw_fault_explain_debug(0, &f);
	KTAP_EXPECT(!strcmp(f.cls, "invalid-state") && !has_line(&f, "BKPT"),
		    "a clear DFSR adds nothing: %s", f.cls);
	/* v8-M SecureFault escalated: SFSR names the cause, SFARVALID the address. */
	cw_fault_explain(0, 0x40000000, &f);
	cw_fault_explain_secure(0x48, &f);
	KTAP_EXPECT(!strcmp(f.cls, "secure-access") && has_line(&f, "AUVIOL") &&
		    has_line(&f, "SFARVALID") && has_line(&f, "FORCED"), "%s", f.cls);
}

/* ---- the shared walker's record_at hook, as crashwalk uses it for GCC's r7 ---- */

static uint8_t stack[512];
#define STACK_BASE	0x20000000u

static int stack_read(void *ctx, fw_u64 addr, void *buf, unsigned int size)
{
	(void)ctx;
	if (addr < STACK_BASE || addr + size > STACK_BASE + sizeof(stack))
		return 1;
	memcpy(buf, stack + (addr - STACK_BASE), size);
	return 0;
}

/* Every function here keeps 16 bytes of locals between r7 and its record. */
static fw_u64 record_16_above(void *ctx, fw_u64 fp, fw_u64 ret)
{
	(void)ctx;
	return ret == 0xdead ? 0 : fp + 16;
}

static void put_stack32(uint32_t addr, uint32_t v)
{
	memcpy(stack + (addr - STACK_BASE), &v, 4);
}

static void fw_walk_record_at(void)
{
	struct fw_stack_range r = { STACK_BASE, STACK_BASE + sizeof(stack) };
	struct fw_walk_cfg cfg = { .word_size = 4, .fp_off = 0, .lr_off = 4, .align = 4,
				   .stacks = &r, .nr_stacks = 1 };
	struct fw_walk_ops ops = { .read = stack_read, .record_at = record_16_above };
	struct fw_frame out[8];
	enum fw_stop why;
	unsigned int n;

	memset(stack, 0, sizeof(stack));
	/* r7 values 0x..40 -> record 0x..50 {r7 0x..80, lr 0x101}; 0x..80 -> 0x..90 {0, 0x201} */
	put_stack32(STACK_BASE + 0x50, STACK_BASE + 0x80);
	put_stack32(STACK_BASE + 0x54, 0x101);
	put_stack32(STACK_BASE + 0x90, 0);
	put_stack32(STACK_BASE + 0x94, 0x201);
	n = fw_walk(&cfg, &ops, NULL, STACK_BASE + 0x40, out, 8, &why);
	KTAP_EXPECT(n == 2 && why == FW_STOP_CHAIN_END, "n %u why %s", n, fw_stop_name(why));
	KTAP_EXPECT(n == 2 && out[0].record == STACK_BASE + 0x50 && out[1].ret == 0x201,
		    "records");
	/* The hook refuses the record of the function holding 0xdead. */
	put_stack32(STACK_BASE + 0x54, 0xdead);
	n = fw_walk(&cfg, &ops, NULL, STACK_BASE + 0x40, out, 8, &why);
	KTAP_EXPECT(n == 1 && why == FW_STOP_NO_RECORD, "n %u why %s", n, fw_stop_name(why));
	/* Without the hook the walk reads r7 itself as the record, as before. */
	ops.record_at = NULL;
	n = fw_walk(&cfg, &ops, NULL, STACK_BASE + 0x50, out, 8, &why);
	KTAP_EXPECT(n == 1 && out[0].ret == 0xdead, "no hook: n %u", n);
}

/* What an instruction lowers sp by: the stack-limit overflow's evidence (rtos/cw_rtos_model.c). */
static void sp_decrement(void)
{
	static const struct { uint16_t hw1, hw2; uint32_t bytes; const char *what; } v[] = {
		{ 0xb530, 0, 12, "push {r4, r5, lr}" },
		{ 0xb09d, 0, 116, "sub sp, #116" },
		{ 0xe92d, 0x4ff0, 36, "push.w {r4-r11, lr}" },
		{ 0xf84d, 0xbd04, 4, "str.w fp, [sp, #-4]!" },
		{ 0xf5ad, 0x7d00, 512, "sub.w sp, sp, #512" },
		{ 0xf2ad, 0x4d04, 1028, "subw sp, sp, #1028" },
		{ 0xed2d, 0x8b10, 64, "vpush {d8-d15}" },
		{ 0xb01d, 0, 0, "add sp, #116" },
		{ 0xbd30, 0, 0, "pop {r4, r5, pc}" },
		{ 0xf8cd, 0x0004, 0, "str.w r0, [sp, #4]" },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(v); i++)
		KTAP_EXPECT(cw_thumb_sp_decrement(v[i].hw1, v[i].hw2) == v[i].bytes, "%s: %u, want %u",
			    v[i].what, cw_thumb_sp_decrement(v[i].hw1, v[i].hw2), v[i].bytes);
}

int main(void)
{
	ktap_header("crashwalk-decode");
	KTAP_RUN(bl_decode);
	KTAP_RUN(blx_not_bx);
	KTAP_RUN(call_before);
	KTAP_RUN(low_overhead_loops);
	KTAP_RUN(sp_decrement);
	KTAP_RUN(prologue);
	KTAP_RUN(prologue_sp_by_register);
	KTAP_RUN(epilogue_forms);
	KTAP_RUN(epilogue_refusals);
	KTAP_RUN(task_frame_stores);
	KTAP_RUN(fault_bits);
	KTAP_RUN(fw_walk_record_at);
	return ktap_finish();
}
