// SPDX-License-Identifier: GPL-2.0
/*
 * test_exc.c - the Cortex-M exception model alone: EXC_RETURN and FNC_RETURN
 * decoding, frame sizes, FP state, popping basic, extended and v8-M frames,
 * banked stack pointers; frames written word by word as the ARM ARM lays them.
 */
#include "cw_test.h"

#define STACK	0x20001000u
#define SIG	0xFEFA125Bu	/* integrity signature, SFTC = 1 */

/* Memory for one frame, and what the model reads from it. */
struct fake {
	uint8_t stack[0x200];
	uint8_t fp[8];		/* FPCCR, FPCAR */
	struct cw_mem mem;
	struct cw_exc_frame fr;
	struct cw_regs regs;
};

static struct fake fake;

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* A basic frame at STACK + off whose r0..xPSR are 0xA0..0xA5, pc 0x1001, xpsr. */
static void basic_frame(struct fake *f, uint32_t off, uint32_t xpsr)
{
	unsigned int i;

	for (i = 0; i < 6; i++)
		put32(f->stack + off + 4 * i, 0xA0 + i);
	put32(f->stack + off + 24, 0x1001);
	put32(f->stack + off + 28, xpsr);
}

static void fake_init(struct fake *f, int with_fp, uint32_t fpccr, uint32_t fpcar)
{
	memset(f->stack, 0, sizeof(f->stack));
	memset(&f->mem, 0, sizeof(f->mem));
	memset(&f->fr, 0, sizeof(f->fr));
	memset(&f->regs, 0, sizeof(f->regs));
	cw_mem_add(&f->mem, STACK, sizeof(f->stack), f->stack, "dump");
	if (with_fp) {
		put32(f->fp, fpccr);
		put32(f->fp + 4, fpcar);
		cw_mem_add(&f->mem, CW_FPCCR, sizeof(f->fp), f->fp, "dump");
	}
}

static void exc_return(void)
{
	struct cw_exc_return er;

	KTAP_EXPECT(!cw_exc_return_decode(0xFFFFFFF1, &er) && !er.thread && !er.psp &&
		    !er.fp_frame && !er.v8m, "F1");
	KTAP_EXPECT(!cw_exc_return_decode(0xFFFFFFF9, &er) && er.thread && !er.psp, "F9");
	KTAP_EXPECT(!cw_exc_return_decode(0xFFFFFFFD, &er) && er.thread && er.psp, "FD");
	KTAP_EXPECT(!cw_exc_return_decode(0xFFFFFFE9, &er) && er.fp_frame, "E9");
	KTAP_EXPECT(!cw_exc_return_decode(0xFFFFFFED, &er) && er.fp_frame && er.psp, "ED");
	/* v8-M Non-secure thread on PSP: S=0, DCRS=1, FType=1, Mode=1, SPSEL=1, ES=0 */
	KTAP_EXPECT(!cw_exc_return_decode(0xFFFFFFBC, &er) && er.v8m && !er.secure && er.dcrs &&
		    er.thread && er.psp && !er.es, "BC");
	/* v8-M Secure, callee registers stacked by hardware (DCRS=0) */
	KTAP_EXPECT(!cw_exc_return_decode(0xFFFFFFDD, &er) && er.v8m && er.secure && !er.dcrs,
		    "DD");
	/* v8-M Handler mode with CONTROL.SPSEL as a handler wrote it: the frame is on MSP. */
	KTAP_EXPECT(!cw_exc_return_decode(0xFFFFFFF5, &er) && !er.thread && !er.psp && er.v8m,
		    "F5");
	KTAP_EXPECT(cw_exc_return_decode(0xFFFFFFF3, &er) != 0, "reserved bit 1 accepted");
	KTAP_EXPECT(cw_exc_return_decode(0xFFFF0FF9, &er) != 0, "reserved ones accepted");
	KTAP_EXPECT(!cw_exc_return_decode(0xFEFFFFFF, &er) && er.fnc_return, "FNC_RETURN");
}

/*
 * The words the engine's, the RTOS code's and decode/cw_exc.c's rules used to
 * disagree on: both look like a return to Thread mode on PSP by bits 3:2,
 * but 0xFFFFFF0C clears reserved bits 23:7 and 0xFFFFFFFE sets reserved bit 1.
 */
static void disputed_words(void)
{
	static const uint32_t bad[] = { 0xFFFFFF0Cu, 0xFFFFFFFEu };
	struct cw_exc_return er;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		KTAP_EXPECT(cw_exc_return_decode(bad[i], &er) != 0, "0x%08x decoded", bad[i]);
		KTAP_EXPECT(!cw_exc_return_to_thread_psp(bad[i]), "0x%08x a thread return",
			    bad[i]);
		KTAP_EXPECT(!cw_exc_return_fp_frame(bad[i]), "0x%08x an FP frame", bad[i]);
		/* Still not code: the walk hands it to the model, which refuses it. */
		KTAP_EXPECT(cw_is_exc_return(bad[i]), "0x%08x taken for code", bad[i]);
	}
	KTAP_EXPECT(cw_exc_return_to_thread_psp(0xFFFFFFFDu), "FD");
	KTAP_EXPECT(cw_exc_return_to_thread_psp(0xFFFFFFBCu), "BC");
	KTAP_EXPECT(!cw_exc_return_to_thread_psp(0xFFFFFFF9u), "F9 is MSP");
	KTAP_EXPECT(!cw_exc_return_to_thread_psp(0xFEFFFFFFu), "FNC_RETURN");
	KTAP_EXPECT(cw_exc_return_fp_frame(0xFFFFFFEDu) && !cw_exc_return_fp_frame(0xFFFFFFFDu),
		    "FType");
	KTAP_EXPECT(!cw_is_exc_return(0x08000001u) && !cw_is_exc_return(0xFEFFFFFCu), "code");
}

static void frame_sizes(void)
{
	struct cw_exc_return er;

	cw_exc_return_decode(0xFFFFFFF9, &er);
	KTAP_EXPECT(cw_exc_frame_size(&er, 0x01000000, 0) == 0x20, "basic");
	KTAP_EXPECT(cw_exc_frame_size(&er, 0x01000200, 0) == 0x24, "basic + realign");
	KTAP_EXPECT(cw_exc_frame_size(&er, 0x01000000, 1) == 0x20, "TS without FP");
	cw_exc_return_decode(0xFFFFFFE9, &er);
	KTAP_EXPECT(cw_exc_frame_size(&er, 0x01000000, 0) == 0x68, "extended");
	KTAP_EXPECT(cw_exc_frame_size(&er, 0x01000200, 0) == 0x6C, "extended + realign");
	cw_exc_return_decode(0xFFFFFFED, &er);	/* S = 1, FType = 0 */
	KTAP_EXPECT(cw_exc_frame_size(&er, 0, 1) == 0xA8, "secure extended with TS: 0x%x",
		    cw_exc_frame_size(&er, 0, 1));
	cw_exc_return_decode(0xFFFFFFAD, &er);	/* S = 0, FType = 0: TS is Secure state only */
	KTAP_EXPECT(cw_exc_frame_size(&er, 0, 1) == 0x68, "non-secure extended with TS: 0x%x",
		    cw_exc_frame_size(&er, 0, 1));
}

static void pop_basic(void)
{
	struct cw_exc_return er;
	struct fake *f = &fake;

	fake_init(f, 0, 0, 0);
	basic_frame(f, 0x10, 0x01000200);	/* realigned */
	cw_exc_return_decode(0xFFFFFFF9, &er);
	KTAP_EXPECT(cw_exc_frame_read(&f->mem, STACK + 0x10, &er, &f->fr) == CW_EXC_OK, "read");
	cw_exc_frame_pop(&f->fr, &f->regs);
	KTAP_EXPECT(f->regs.r[CW_R0] == 0xA0 && f->regs.r[CW_R12] == 0xA4 && f->regs.r[CW_LR] == 0xA5,
		    "r0 0x%x r12 0x%x lr 0x%x", f->regs.r[CW_R0], f->regs.r[CW_R12], f->regs.r[CW_LR]);
	KTAP_EXPECT(f->regs.r[CW_PC] == 0x1000 && f->regs.r[CW_XPSR] == 0x01000200,
		    "pc 0x%x xpsr 0x%x", f->regs.r[CW_PC], f->regs.r[CW_XPSR]);
	KTAP_EXPECT(f->regs.r[CW_SP] == STACK + 0x10 + 0x24, "sp 0x%x", f->regs.r[CW_SP]);
	KTAP_EXPECT(!cw_reg_ok(&f->regs, CW_R4) && cw_reg_ok(&f->regs, CW_R3), "valid 0x%x",
		    f->regs.valid);
	/* A frame running off the end of memory names the first missing word. */
	KTAP_EXPECT(cw_exc_frame_read(&f->mem, STACK + 0x1f0, &er, &f->fr) == CW_EXC_READ &&
		    f->fr.bad_addr == STACK + 0x200, "bad 0x%x", f->fr.bad_addr);
	cw_mem_free(&f->mem);
}

/* Where the hardware stacks each register: ARMv7-M ARM B1.5.6, r0 lowest. */
static void stacked_words(void)
{
	static const enum cw_reg arm[] = { CW_R0, CW_R1, CW_R2, CW_R3, CW_R12, CW_LR, CW_PC,
					   CW_XPSR };
	unsigned int k;
	int r;

	for (k = 0; k < ARRAY_SIZE(arm); k++)
		KTAP_EXPECT(cw_exc_stacked_word(arm[k]) == (int)k, "%s at word %d, ARM: %u",
			    cw_reg_name(arm[k]), cw_exc_stacked_word(arm[k]), k);
	KTAP_EXPECT(cw_exc_stacked_word(CW_LR) == CW_EXC_LR_WORD &&
		    cw_exc_stacked_word(CW_PC) == CW_EXC_PC_WORD &&
		    cw_exc_stacked_word(CW_XPSR) == CW_EXC_XPSR_WORD, "named words");
	for (r = CW_R4; r <= CW_SP; r++)
		if (r != CW_R12)
			KTAP_EXPECT(cw_exc_stacked_word((enum cw_reg)r) == -1, "%s is not stacked",
				    cw_reg_name((enum cw_reg)r));
}

static void pop_fp(void)
{
	struct cw_exc_return er;
	struct fake *f = &fake;
	const uint32_t lazy = (1u << 31) | (1u << 30) | 1u;

	/* Lazy: FPCAR points at this frame's s0 slot, LSPACT set. */
	fake_init(f, 1, lazy, STACK + 0x20);
	basic_frame(f, 0, 0x01000000);
	cw_exc_return_decode(0xFFFFFFE9, &er);
	KTAP_EXPECT(!cw_exc_frame_read(&f->mem, STACK, &er, &f->fr) && f->fr.fp == CW_FRAME_FP_LAZY &&
		    f->fr.size == 0x68, "lazy: fp 0x%x size 0x%x", f->fr.fp, f->fr.size);
	cw_mem_free(&f->mem);
	/* FPCAR points at another frame: this one was written. */
	fake_init(f, 1, lazy, STACK + 0x100);
	basic_frame(f, 0, 0x01000000);
	KTAP_EXPECT(!cw_exc_frame_read(&f->mem, STACK, &er, &f->fr) &&
		    f->fr.fp == CW_FRAME_FP_STACKED, "other frame: fp 0x%x", f->fr.fp);
	cw_mem_free(&f->mem);
	/* Secure with FPCCR.TS: s16-s31 too. */
	fake_init(f, 1, 1u << 26, 0);
	basic_frame(f, 0, 0x01000000);
	cw_exc_return_decode(0xFFFFFFED, &er);
	KTAP_EXPECT(!cw_exc_frame_read(&f->mem, STACK, &er, &f->fr) && f->fr.size == 0xA8,
		    "TS: size 0x%x", f->fr.size);
	cw_exc_frame_pop(&f->fr, &f->regs);
	KTAP_EXPECT(f->regs.r[CW_SP] == STACK + 0xA8, "TS: sp 0x%x", f->regs.r[CW_SP]);
	cw_mem_free(&f->mem);
	/* No FPCCR in the dump: stacked or lazy cannot be told, no s16-s31. */
	fake_init(f, 0, 0, 0);
	basic_frame(f, 0, 0x01000000);
	KTAP_EXPECT(!cw_exc_frame_read(&f->mem, STACK, &er, &f->fr) &&
		    f->fr.fp == CW_FRAME_FP_UNKNOWN && f->fr.size == 0x68, "no FPCCR: fp 0x%x size 0x%x",
		    f->fr.fp, f->fr.size);
	cw_mem_free(&f->mem);
}

/* v8-M DCRS = 0: signature, reserved, r4-r11 below the basic frame. */
static void pop_additional_state(void)
{
	struct cw_exc_return er;
	struct fake *f = &fake;
	unsigned int i;

	fake_init(f, 0, 0, 0);
	put32(f->stack, SIG);
	for (i = 0; i < 8; i++)
		put32(f->stack + 8 + 4 * i, 0x40 + i);
	basic_frame(f, 0x28, 0x01000000);
	cw_exc_return_decode(0xFFFFFFDD, &er);
	KTAP_EXPECT(!cw_exc_frame_read(&f->mem, STACK, &er, &f->fr) && f->fr.base == STACK + 0x28,
		    "base 0x%x", f->fr.base);
	cw_exc_frame_pop(&f->fr, &f->regs);
	KTAP_EXPECT(f->regs.r[CW_R4] == 0x40 && f->regs.r[CW_R11] == 0x47 && f->regs.r[CW_R0] == 0xA0,
		    "r4 0x%x r11 0x%x r0 0x%x", f->regs.r[CW_R4], f->regs.r[CW_R11], f->regs.r[CW_R0]);
	KTAP_EXPECT(f->regs.r[CW_SP] == STACK + 0x48, "sp 0x%x", f->regs.r[CW_SP]);
	put32(f->stack, 0x12345678);
	KTAP_EXPECT(cw_exc_frame_read(&f->mem, STACK, &er, &f->fr) == CW_EXC_SIGNATURE &&
		    f->fr.signature == 0x12345678, "signature 0x%x", f->fr.signature);
	cw_mem_free(&f->mem);
}

/* BLXNS's two words: the return address and partial xPSR, nothing else. */
static void fnc_frame(void)
{
	struct fake *f = &fake;

	fake_init(f, 0, 0, 0);
	put32(f->stack + 0x40, 0x1235);
	put32(f->stack + 0x44, 0x01000000);
	KTAP_EXPECT(!cw_exc_fnc_frame_read(&f->mem, STACK + 0x40, &f->fr) &&
		    f->fr.words[CW_FNC_RET_WORD] == 0x1235 && f->fr.size == 8,
		    "ret 0x%x size %u", f->fr.words[CW_FNC_RET_WORD], f->fr.size);
	KTAP_EXPECT(cw_exc_fnc_frame_read(&f->mem, STACK + 0x1fc, &f->fr) == CW_EXC_READ &&
		    f->fr.bad_addr == STACK + 0x200, "bad 0x%x", f->fr.bad_addr);
	cw_mem_free(&f->mem);
}

static void banked_sp(void)
{
	KTAP_EXPECT(cw_exc_banked_sp(-1, 1, 1) == CW_PSP, "unknown state: the dump's PSP");
	KTAP_EXPECT(cw_exc_banked_sp(1, 1, 0) == CW_MSP, "same state: the dump's MSP");
	KTAP_EXPECT(cw_exc_banked_sp(0, 1, 0) == CW_MSP_S, "Secure from Non-secure");
	KTAP_EXPECT(cw_exc_banked_sp(1, 0, 1) == CW_PSP_NS, "Non-secure from Secure");
}

int main(void)
{
	ktap_header("crashwalk-exc");
	KTAP_RUN(exc_return);
	KTAP_RUN(disputed_words);
	KTAP_RUN(frame_sizes);
	KTAP_RUN(pop_basic);
	KTAP_RUN(stacked_words);
	KTAP_RUN(pop_fp);
	KTAP_RUN(pop_additional_state);
	KTAP_RUN(fnc_frame);
	KTAP_RUN(banked_sp);
	return ktap_finish();
}
