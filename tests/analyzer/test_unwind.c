// SPDX-License-Identifier: GPL-2.0
/*
 * test_unwind.c - the unwinder engine on the bundled crash (Cortex-M3, -O2,
 * bus fault in code called from the PendSV handler, which interrupted thread
 * code): every method against GDB's backtrace of the same crash, and every
 * method on randomly corrupted stacks, where it must end with a reason.
 */
#include "cw_test.h"

#ifndef BUNDLED_DIR
#define BUNDLED_DIR "../tests/firmware/bundled"
#endif
#define ELF	BUNDLED_DIR "/demo.elf"

/*
 * GDB 13 attached to QEMU at the fault handler's entry (tests/firmware/oracle.py),
 * real frames only: GDB's tail-call frame for tail_hop comes from DWARF call
 * sites and has no stack frame. 0 marks an exception frame boundary.
 */
static const struct {
	uint32_t pc;
	const char *func;
} gdb_frames[] = {
	{ 0x040, "hardfault_entry" }, { 0, NULL }, { 0x64c, "fault_bus" },
	{ 0x782, "do_fault" }, { 0x820, "big_locals" }, { 0x846, "recurse" },
	{ 0x858, "recurse" }, { 0x974, "pendsv_handler" }, { 0, NULL },
	{ 0x9be, "run_case" }, { 0xa80, "main" }, { 0x1f0, "reset_handler" },
};

/* Open the firmware and a dump of it; a failure fails the current case. */
static int load(struct cw_image **img, struct cw_dump *d, const char *path)
{
	struct cw_error err;

	*img = cw_image_open(ELF, &err);
	if (!*img) {
		KTAP_EXPECT(0, "cannot open the firmware: %s", err.msg);
		return -1;
	}
	if (cw_dump_load(d, path, &err) || cw_image_add_memory(*img, &d->mem)) {
		KTAP_EXPECT(0, "cannot load %s: %s", path, err.msg);
		cw_image_close(*img);
		return -1;
	}
	return 0;
}

/* The bundled demo crash, unwound as crashwalk does by default and symbolized into bt. */
static int unwind_demo(struct cw_image **img, struct cw_dump *d, struct cw_backtrace *bt)
{
	struct cw_target t;

	if (load(img, d, BUNDLED_DIR "/demo.core"))
		return -1;
	t = (struct cw_target){ .mem = &d->mem, .img = *img };
	cw_unwind(&t, &d->regs, d->context, CW_UNWIND_AUTO, bt);
	cw_symbolize(*img, bt);
	return 0;
}

/* Compare with GDB from the frame the dump starts at (pre-exception dumps skip the handler). */
static void check_against_gdb(const char *dump_path, unsigned int skip)
{
	static const enum cw_unwinder how[] = {
		CW_UNWIND_AUTO, CW_UNWIND_PROLOGUE, CW_UNWIND_FP, CW_UNWIND_SCAN, CW_UNWIND_CFI,
		CW_UNWIND_EHABI,
	};
	struct cw_backtrace *bt = calloc(1, sizeof(*bt));
	struct cw_image *img;
	struct cw_dump d;
	unsigned int m, i, f;

	if (load(&img, &d, dump_path)) {
		free(bt);
		return;
	}
	for (m = 0; m < ARRAY_SIZE(how); m++) {
		struct cw_target t = { .mem = &d.mem, .img = img };

		cw_unwind(&t, &d.regs, d.context, how[m], bt);
		cw_symbolize(t.img, bt);
		for (i = skip, f = 0; i < ARRAY_SIZE(gdb_frames); i++) {
			if (!gdb_frames[i].func) {
				KTAP_EXPECT(f < bt->nr &&
					    (bt->frames[f].flags & CW_FRAME_EXCEPTION),
					    "method %u: no exception frame at #%u", m, f);
				continue;
			}
			KTAP_EXPECT(f < bt->nr && bt->frames[f].pc == gdb_frames[i].pc &&
				    bt->frames[f].func &&
				    !strcmp(bt->frames[f].func->name, gdb_frames[i].func),
				    "method %u frame #%u: want %s 0x%x, got 0x%x", m, f,
				    gdb_frames[i].func, gdb_frames[i].pc,
				    f < bt->nr ? bt->frames[f].pc : 0);
			/* Only the first frame and interrupted ones hold the pc itself. */
			KTAP_EXPECT(f >= bt->nr || !(bt->frames[f].flags & CW_FRAME_RETURN_ADDR) ==
				    (f == 0 || (bt->frames[f].flags & CW_FRAME_EXCEPTION)),
				    "method %u frame #%u: return address flag 0x%x", m, f,
				    bt->frames[f].flags);
			f++;
		}
		KTAP_EXPECT(bt->stop == CW_STOP_OUTERMOST, "method %u stopped: %s (%s)", m,
			    cw_stop_name(bt->stop), bt->stop_detail);
	}
	cw_dump_free(&d);
	cw_image_close(img);
	free(bt);
}

static void bundled_elf_core(void)
{
	check_against_gdb(BUNDLED_DIR "/demo.core", 0);
}

static void bundled_zephyr(void)
{
	check_against_gdb(BUNDLED_DIR "/demo.zephyr", 2);
}

static void bundled_fault(void)
{
	struct cw_backtrace *bt = calloc(1, sizeof(*bt));
	struct cw_image *img;
	struct cw_fault f;
	struct cw_dump d;

	if (unwind_demo(&img, &d, bt)) {
		free(bt);
		return;
	}
	KTAP_EXPECT(cw_fault_frame(d.context, bt) < bt->nr, "no fault frame");
	cw_fault_decode(&d.mem, bt->frames[cw_fault_frame(d.context, bt)].pc, 1, &f);
	/* The firmware reads *(int *)0xF0000000: a precise bus fault, escalated. */
	KTAP_EXPECT(f.have_scb && !strcmp(f.cls, "bus-precise"), "class %s", f.cls);
	KTAP_EXPECT((f.cfsr & (1u << 15)) && f.bfar == 0xF0000000, "bfar 0x%x", f.bfar);
	KTAP_EXPECT(f.hfsr & (1u << 30), "not FORCED");
	KTAP_EXPECT(!strncmp(f.insn, "ldr", 3), "insn '%s'", f.insn);
	KTAP_EXPECT(bt->frames[1].exc_return == 0xFFFFFFF1, "handler-mode EXC_RETURN 0x%x",
		    bt->frames[1].exc_return);
	cw_dump_free(&d);
	cw_image_close(img);
	free(bt);
}

/*
 * The bundled core with its notes turned into PT_NULL is what Linux remoteproc
 * writes: memory only. The registers must come from the exception frame that
 * the search finds, and the walk from there must still agree with GDB.
 */
static struct cw_image *reload_without_notes(struct cw_dump *d)
{
	uint8_t *copy = malloc(d->len);
	struct cw_image *img;
	struct cw_error err;
	size_t len = d->len;
	uint32_t phoff, i;

	memcpy(copy, d->buf, len);
	phoff = copy[28] | copy[29] << 8;
	for (i = 0; i < (uint32_t)(copy[44] | copy[45] << 8); i++)
		if (copy[phoff + 32 * i] == 4)	/* PT_NOTE -> PT_NULL */
			copy[phoff + 32 * i] = 0;
	cw_dump_free(d);
	img = cw_image_open(ELF, &err);
	if (!img || cw_dump_parse(d, "memory-only", copy, len, &err) ||
	    cw_image_add_memory(img, &d->mem)) {
		printf("# %s\n", err.msg);
		cw_image_close(img);
		return NULL;
	}
	return img;
}

static void memory_only(const char *regblock)
{
	struct cw_backtrace *bt = calloc(1, sizeof(*bt));
	struct cw_image *img;
	struct cw_dump d;
	struct cw_target t;
	uint32_t at = 0, i;
	unsigned int f = 0;

	if (load(&img, &d, BUNDLED_DIR "/demo.core")) {
		free(bt);
		return;
	}
	cw_image_close(img);
	img = reload_without_notes(&d);
	KTAP_EXPECT(img != NULL, "cannot reload");
	if (!img) {
		free(bt);
		return;
	}
	KTAP_EXPECT(d.context == CW_CTX_MEMORY_ONLY, "context %d", d.context);
	t = (struct cw_target){ .mem = &d.mem, .img = img };
	if (regblock) {
		struct cw_error err;

		KTAP_EXPECT(!cw_regs_from_regblock(&t, &d, regblock, &err), "%s", err.msg);
	} else {
		KTAP_EXPECT(cw_find_exception_frame(&t, d.context, 0, &d.regs, &at, NULL) == 0, "no frame found");
	}
	cw_unwind(&t, &d.regs, d.context, CW_UNWIND_AUTO, bt);
	cw_symbolize(t.img, bt);
	for (i = regblock ? 0 : 2; i < ARRAY_SIZE(gdb_frames); i++) {
		if (!gdb_frames[i].func) {
			if (regblock)
				KTAP_EXPECT(f < bt->nr &&
					    (bt->frames[f].flags & CW_FRAME_EXCEPTION),
					    "no exception frame at #%u", f);
			continue;
		}
		KTAP_EXPECT(f < bt->nr && bt->frames[f].pc == gdb_frames[i].pc,
			    "frame #%u: want 0x%x, got 0x%x", f, gdb_frames[i].pc,
			    f < bt->nr ? bt->frames[f].pc : 0);
		f++;
	}
	cw_dump_free(&d);
	cw_image_close(img);
	free(bt);
}

static void bundled_memory_only(void)
{
	memory_only(NULL);
}

/* The firmware's own register block (struct crash_entry in tests/firmware/src/crash.c). */
static void bundled_register_block(void)
{
	struct cw_image *img;
	struct cw_target t;
	struct cw_error err;
	struct cw_dump d;

	memory_only("crash_entry:r4,r5,r6,r7,r8,r9,r10,r11,msp,psp,control,lr");

	/* Every register name the JSON report uses is accepted; an unknown one is named. */
	if (load(&img, &d, BUNDLED_DIR "/demo.core")) {
		return;
	}
	t = (struct cw_target){ .mem = &d.mem, .img = img };
	KTAP_EXPECT(!cw_regs_from_regblock(&t, &d, "crash_entry:msp_s,psp_s,msp_ns,psp_ns", &err),
		    "%s", err.msg);
	KTAP_EXPECT(cw_regs_from_regblock(&t, &d, "crash_entry:r0,bogus", &err) &&
		    strstr(err.msg, "bogus"), "unknown register accepted: %s", err.msg);
	/* An empty layout was read here as a block of nothing; it has the check's one rule now. */
	KTAP_EXPECT(cw_regs_from_regblock(&t, &d, "crash_entry:", &err) &&
		    strstr(err.msg, "empty LAYOUT"), "empty layout accepted: %s", err.msg);
	cw_dump_free(&d);
	cw_image_close(img);
}

/* ---- the exception model on hand-built stacks, code from the bundled firmware ---- */

#define SYN_SP		0x20003000u
#define SYN_PSP		0x20001c00u
#define FAULT_BUS_PC	0x64cu		/* inside fault_bus */
#define RET_DO_FAULT	0x783u		/* after "bl fault_bus" in do_fault, Thumb bit set */

/*
 * A CrashCatcher dump whose registers are those at hardfault_entry's first
 * instruction: lr = exc_return, the frame the hardware pushed at frame_at.
 */
static void syn_dump(struct tbuf *t, uint32_t exc_return, uint32_t frame_at, uint32_t xpsr,
		     int additional, uint32_t sig)
{
	uint32_t i;

	memset(t, 0, sizeof(*t));
	tb_bytes(t, "cC\3\0", 4);
	tb_u32(t, 0);
	for (i = 0; i < 13; i++)
		tb_u32(t, i == 7 ? 0 : 0x100 + i);
	tb_u32(t, SYN_SP);		/* sp */
	tb_u32(t, exc_return);		/* lr */
	tb_u32(t, 0x40);		/* pc: hardfault_entry */
	tb_u32(t, 0x01000003);		/* xpsr: HardFault */
	tb_u32(t, SYN_SP);		/* msp */
	tb_u32(t, SYN_PSP);		/* psp */
	tb_u32(t, 3);
	tb_u32(t, frame_at);
	tb_u32(t, frame_at + 0x100);
	if (additional) {
		tb_u32(t, sig);		/* integrity signature */
		tb_u32(t, 0);
		for (i = 0; i < 8; i++)
			tb_u32(t, 0x4000 + i);	/* r4-r11 */
	}
	tb_u32(t, 1); tb_u32(t, 2); tb_u32(t, 3); tb_u32(t, 4); tb_u32(t, 12);
	tb_u32(t, RET_DO_FAULT);
	tb_u32(t, FAULT_BUS_PC);
	tb_u32(t, xpsr);
	while (t->n < 8 + 4 * 20 + 8 + 0x100)
		tb_u32(t, 0);
}

static int syn_unwind(struct tbuf *t, struct cw_backtrace *bt, struct cw_dump *d)
{
	struct cw_image *img;
	struct cw_error err;
	struct cw_target tg;

	img = cw_image_open(ELF, &err);
	if (!img || tb_parse(t, t->n, d, &err) || cw_image_add_memory(img, &d->mem)) {
		printf("# %s\n", err.msg);
		cw_image_close(img);
		return -1;
	}
	tg = (struct cw_target){ .mem = &d->mem, .img = img };
	cw_unwind(&tg, &d->regs, d->context, CW_UNWIND_PROLOGUE, bt);
	cw_symbolize(tg.img, bt);
	cw_dump_free(d);
	cw_image_close(img);
	return 0;
}

static void exception_frames(void)
{
	struct cw_backtrace *bt = calloc(1, sizeof(*bt));
	struct tbuf *t = calloc(1, sizeof(*t));
	struct cw_dump d;

	/* MSP, basic frame, xPSR bit 9: the interrupted sp is 4 bytes further up. */
	syn_dump(t, 0xFFFFFFF9, SYN_SP, 0x01000200, 0, 0);
	KTAP_EXPECT(!syn_unwind(t, bt, &d) && bt->nr >= 2, "no frames");
	KTAP_EXPECT(bt->frames[1].pc == FAULT_BUS_PC && bt->frames[1].sp == SYN_SP + 0x24 &&
		    (bt->frames[1].flags & CW_FRAME_EXCEPTION), "realign: pc 0x%x sp 0x%x",
		    bt->frames[1].pc, bt->frames[1].sp);
	KTAP_EXPECT(bt->nr >= 3 && bt->frames[2].pc == (RET_DO_FAULT & ~1u), "caller 0x%x",
		    bt->nr >= 3 ? bt->frames[2].pc : 0);

	/* PSP: the frame is on the process stack, not at the handler's sp. */
	syn_dump(t, 0xFFFFFFFD, SYN_PSP, 0x01000000, 0, 0);
	KTAP_EXPECT(!syn_unwind(t, bt, &d) && bt->nr >= 2 && bt->frames[1].sp == SYN_PSP + 0x20,
		    "psp frame sp 0x%x", bt->frames[1].sp);

	/* Extended frame (FType = 0): 0x68 bytes. */
	syn_dump(t, 0xFFFFFFE9, SYN_SP, 0x01000000, 0, 0);
	KTAP_EXPECT(!syn_unwind(t, bt, &d) && bt->frames[1].sp == SYN_SP + 0x68, "ext sp 0x%x",
		    bt->frames[1].sp);

	/* v8-M DCRS = 0: additional state context below the frame, r4-r11 from it. */
	syn_dump(t, 0xFFFFFFD9, SYN_SP, 0x01000000, 1, 0xFEFA125B);
	KTAP_EXPECT(!syn_unwind(t, bt, &d) && bt->nr >= 2 && bt->frames[1].pc == FAULT_BUS_PC &&
		    bt->frames[1].sp == SYN_SP + 0x28 + 0x20, "dcrs: pc 0x%x sp 0x%x",
		    bt->frames[1].pc, bt->frames[1].sp);
	syn_dump(t, 0xFFFFFFD9, SYN_SP, 0x01000000, 1, 0x12345678);
	KTAP_EXPECT(!syn_unwind(t, bt, &d) && bt->nr == 1 && bt->stop == CW_STOP_BAD_PC &&
		    strstr(bt->stop_detail, "integrity"), "bad signature accepted: %s",
		    bt->stop_detail);

	/* FNC_RETURN ends the walk with a reason, and so does an invalid EXC_RETURN. */
	syn_dump(t, 0xFEFFFFFF, SYN_SP, 0x01000000, 0, 0);
	KTAP_EXPECT(!syn_unwind(t, bt, &d) && bt->stop == CW_STOP_BAD_PC &&
		    strstr(bt->stop_detail, "FNC_RETURN"), "%s", bt->stop_detail);
	syn_dump(t, 0xFFFFFFF3, SYN_SP, 0x01000000, 0, 0);
	KTAP_EXPECT(!syn_unwind(t, bt, &d) && bt->stop == CW_STOP_BAD_PC, "%s", bt->stop_detail);
	free(t);
	free(bt);
}

/* A CrashCatcher memory region appended to a dump syn_dump() built. */
static void syn_region(struct tbuf *t, uint32_t addr, const uint32_t *words, unsigned int n)
{
	unsigned int i;

	tb_u32(t, addr);
	tb_u32(t, addr + 4 * n);
	for (i = 0; i < n; i++)
		tb_u32(t, words[i]);
}

/*
 * An extended frame whose FP slots lazy preservation never filled (FPCCR
 * LSPACT with FPCAR at them), one it did fill, and a frame that a stack
 * overflow kept from being written at all (MSTKERR, no Thumb bit in xPSR).
 */
static void lazy_and_lost_frames(void)
{
	struct cw_backtrace *bt = calloc(1, sizeof(*bt));
	struct tbuf *t = calloc(1, sizeof(*t));
	uint32_t fp[2] = { 0xC0000001, SYN_SP + 0x20 }, mstkerr = 1u << 4;
	const struct cw_symbol *fn;
	struct cw_image *img;
	struct cw_error err;
	struct cw_dump d;

	syn_dump(t, 0xFFFFFFE9, SYN_SP, 0x01000000, 0, 0);
	syn_region(t, CW_FPCCR, fp, 2);
	KTAP_EXPECT(!syn_unwind(t, bt, &d) && bt->nr >= 2 &&
		    (bt->frames[1].flags & CW_FRAME_FP_LAZY) && bt->frames[1].sp == SYN_SP + 0x68,
		    "lazy: flags 0x%x sp 0x%x", bt->frames[1].flags, bt->frames[1].sp);
	fp[1] = SYN_SP + 0x100;
	syn_dump(t, 0xFFFFFFE9, SYN_SP, 0x01000000, 0, 0);
	syn_region(t, CW_FPCCR, fp, 2);
	KTAP_EXPECT(!syn_unwind(t, bt, &d) && bt->nr >= 2 &&
		    (bt->frames[1].flags & CW_FRAME_FP_STACKED), "stacked: flags 0x%x",
		    bt->frames[1].flags);

	img = cw_image_open(ELF, &err);
	fn = img ? cw_image_func(img, FAULT_BUS_PC) : NULL;
	KTAP_EXPECT(fn != NULL, "no function at 0x%x", FAULT_BUS_PC);
	syn_dump(t, 0xFFFFFFF9, SYN_SP, 0 /* never written */, 0, 0);
	syn_region(t, CW_SCB_CFSR, &mstkerr, 1);
	KTAP_EXPECT(!syn_unwind(t, bt, &d) && bt->nr >= 3 && fn &&
		    (bt->frames[1].flags & CW_FRAME_LOST) && bt->frames[1].pc == fn->addr &&
		    bt->frames[2].pc == (RET_DO_FAULT & ~1u),
		    "lost frame: flags 0x%x pc 0x%x, caller 0x%x", bt->frames[1].flags,
		    bt->frames[1].pc, bt->nr >= 3 ? bt->frames[2].pc : 0);
	/* The same frame without the fault status is taken at its word, and found wrong. */
	syn_dump(t, 0xFFFFFFF9, SYN_SP, 0, 0, 0);
	KTAP_EXPECT(!syn_unwind(t, bt, &d) && !(bt->frames[bt->nr - 1].flags & CW_FRAME_LOST),
		    "lost without evidence");
	cw_image_close(img);
	free(t);
	free(bt);
}

/* syn_dump()'s frame starts after the header, 20 registers and the region's bounds. */
#define SYN_FRAME_OFF	(8 + 4 * 20 + 8)

static int syn_unwind_regs(struct tbuf *t, struct cw_backtrace *bt, const uint32_t *banked)
{
	struct cw_image *img;
	struct cw_error err;
	struct cw_target tg;
	struct cw_dump d;
	unsigned int i;

	img = cw_image_open(ELF, &err);
	if (!img || tb_parse(t, t->n, &d, &err) || cw_image_add_memory(img, &d.mem)) {
		printf("# %s\n", err.msg);
		cw_image_close(img);
		return -1;
	}
	for (i = 0; banked && i < 4; i++)
		cw_reg_set(&d.regs, (enum cw_reg)(CW_MSP_S + i), banked[i]);
	tg = (struct cw_target){ .mem = &d.mem, .img = img };
	cw_unwind(&tg, &d.regs, d.context, CW_UNWIND_PROLOGUE, bt);
	cw_symbolize(tg.img, bt);
	cw_dump_free(&d);
	cw_image_close(img);
	return 0;
}

/*
 * TrustZone: a Secure handler (EXC_RETURN.ES = 1) catches a fault of
 * Non-secure thread code (S = 0), whose frame is on the Non-secure main stack,
 * not on the handler's. That code was called from Secure code with BLXNS:
 * its lr is FNC_RETURN and the Secure caller's return address is on the
 * Secure main stack.
 */
static void trustzone_frames(void)
{
	struct cw_backtrace *bt = calloc(1, sizeof(*bt));
	struct tbuf *t = calloc(1, sizeof(*t));
	uint32_t banked[4] = { SYN_SP, 0, SYN_PSP, 0 }, secure_call[2] = { RET_DO_FAULT, 0 };
	const uint32_t ns_thread_msp = 0xFFFFFFB9;

	syn_dump(t, ns_thread_msp, SYN_PSP, 0x01000000, 0, 0);
	KTAP_EXPECT(!syn_unwind_regs(t, bt, banked) && bt->nr >= 2 &&
		    bt->frames[1].pc == FAULT_BUS_PC && bt->frames[1].sp == SYN_PSP + 0x20,
		    "Non-secure frame: pc 0x%x sp 0x%x (%s)", bt->frames[1].pc, bt->frames[1].sp,
		    bt->stop_detail);
	KTAP_EXPECT(!syn_unwind_regs(t, bt, NULL) && bt->nr == 1 && bt->stop == CW_STOP_NO_PSP &&
		    strstr(bt->stop_detail, "Non-secure main"), "without MSP_NS: %s",
		    bt->stop_detail);

	/* lr = FNC_RETURN in the frame; the Secure caller's return address at MSP_S. */
	syn_dump(t, ns_thread_msp, SYN_PSP, 0x01000000, 0, 0);
	memcpy(t->b + SYN_FRAME_OFF + 0x14, &(uint32_t){ 0xFEFFFFFF }, 4);
	syn_region(t, SYN_SP, secure_call, 2);
	KTAP_EXPECT(!syn_unwind_regs(t, bt, banked) && bt->nr >= 3 &&
		    (bt->frames[2].flags & CW_FRAME_FNC_RETURN) &&
		    bt->frames[2].pc == (RET_DO_FAULT & ~1u) && bt->frames[2].sp == SYN_SP + 8,
		    "Secure caller: %u frames, pc 0x%x flags 0x%x (%s)", bt->nr,
		    bt->nr >= 3 ? bt->frames[2].pc : 0, bt->nr >= 3 ? bt->frames[2].flags : 0,
		    bt->stop_detail);
	free(t);
	free(bt);
}

/*
 * The bundled firmware's writable sections: .data 0x20000000+0x10, .noinit
 * 0x20000010+4, .bss 0x20000018+0xb8. A dump of the stack alone lacks all of
 * them; one that holds part of .bss leaves the rest as two gaps.
 */
static void memory_gaps(void)
{
	struct tbuf *t = calloc(1, sizeof(*t));
	uint32_t words[4] = { 0 };
	struct cw_image *img;
	struct cw_error err;
	struct cw_dump d;

	img = cw_image_open(ELF, &err);
	KTAP_EXPECT(img != NULL, "%s", err.msg);
	syn_dump(t, 0xFFFFFFF9, SYN_SP, 0x01000000, 0, 0);
	KTAP_EXPECT(img && !tb_parse(t, t->n, &d, &err), "%s", err.msg);
	if (img) {
		cw_image_gaps(img, &d);
		KTAP_EXPECT(d.nr_gaps == 3 && !strcmp(d.gaps[0].section, ".data") &&
			    d.gaps[0].initial && d.gaps[0].lo == 0x20000000 &&
			    d.gaps[0].hi == 0x20000010 && !strcmp(d.gaps[2].section, ".bss") &&
			    !d.gaps[2].initial && d.gaps[2].hi == 0x200000dc,
			    "%u gaps, first %s 0x%x-0x%x", d.nr_gaps,
			    d.nr_gaps ? d.gaps[0].section : "-", d.nr_gaps ? d.gaps[0].lo : 0,
			    d.nr_gaps ? d.gaps[0].hi : 0);
		cw_dump_free(&d);
	}
	syn_dump(t, 0xFFFFFFF9, SYN_SP, 0x01000000, 0, 0);
	syn_region(t, 0x20000020, words, 4);
	KTAP_EXPECT(img && !tb_parse(t, t->n, &d, &err), "%s", err.msg);
	if (img) {
		cw_image_gaps(img, &d);
		KTAP_EXPECT(d.nr_gaps == 4 && d.gaps[2].lo == 0x20000018 &&
			    d.gaps[2].hi == 0x20000020 && d.gaps[3].lo == 0x20000030 &&
			    d.gaps[3].hi == 0x200000dc, "%u gaps, .bss split at 0x%x-0x%x",
			    d.nr_gaps, d.nr_gaps > 2 ? d.gaps[2].hi : 0,
			    d.nr_gaps > 3 ? d.gaps[3].lo : 0);
		cw_dump_free(&d);
	}
	cw_image_close(img);
	free(t);
}

/*
 * The engine's provenance on the bundled crash. fault_bus's caller: GDB (and
 * CFI, pseudo-execution, the r7 record) say do_fault above the word fault_bus
 * pushed; the scan takes the stacked lr at fault_bus's own sp, as if it had
 * pushed nothing, so it disagrees, costs confidence and is kept as what it
 * proposed. Further up all four agree.
 */
static void provenance(void)
{
	const unsigned int cfi_pe_fp = (1u << CW_M_PROLOGUE) | (1u << CW_M_FP);
	struct cw_backtrace *bt = calloc(1, sizeof(*bt));
	struct cw_report_opts o = { .json = 1 };
	struct cw_image *img;
	struct cw_fault f = { .cls = "x" };
	struct cw_target t;
	struct cw_dump d;
	char *json = NULL, want[256];
	size_t len = 0;
	FILE *out;
	unsigned int i;

	if (unwind_demo(&img, &d, bt)) {
		free(bt);
		return;
	}
	KTAP_EXPECT(bt->nr > 3 && bt->frames[2].method == CW_M_CFI &&
		    bt->frames[2].agreed == cfi_pe_fp &&
		    bt->frames[2].disagreed == 1u << CW_M_SCAN &&
		    bt->frames[2].confidence < bt->frames[3].confidence,
		    "frame 2: method %d agreed 0x%x disagreed 0x%x conf %d", bt->frames[2].method,
		    bt->frames[2].agreed, bt->frames[2].disagreed, bt->frames[2].confidence);
	KTAP_EXPECT(bt->nr > 3 && bt->frames[2].nr_proposed == 1 &&
		    bt->frames[2].proposed[0].method == CW_M_SCAN &&
		    bt->frames[2].proposed[0].pc == (bt->frames[1].stacked_lr & ~1u) &&
		    bt->frames[2].proposed[0].sp == bt->frames[1].sp &&
		    bt->frames[2].proposed[0].sp != bt->frames[2].sp &&
		    bt->frames[2].proposed[0].func == bt->frames[2].func,
		    "frame 2: %u proposed, the first by %d: pc 0x%x sp 0x%x (frame 1: lr 0x%x sp 0x%x)",
		    bt->frames[2].nr_proposed, bt->frames[2].proposed[0].method,
		    bt->frames[2].proposed[0].pc, bt->frames[2].proposed[0].sp,
		    bt->frames[1].stacked_lr, bt->frames[1].sp);
	KTAP_EXPECT(bt->nr > 3 && bt->frames[3].agreed == (cfi_pe_fp | 1u << CW_M_SCAN) &&
		    !bt->frames[3].disagreed && bt->frames[3].confidence == 99,
		    "frame 3: agreed 0x%x conf %d", bt->frames[3].agreed,
		    bt->frames[3].confidence);
	out = open_memstream(&json, &len);
	cw_report_crash(out, &o, &d, bt, &f, NULL, NULL);
	fclose(out);
	KTAP_EXPECT(strstr(json, "\"version\": 6") &&
		    strstr(json, "\"method\": \"cfi\"") &&
		    strstr(json, "\"agreed\": [\"prologue\", \"fp\"], \"disagreed\": [\"scan\"]"),
		    "json: %.300s", json);
	snprintf(want, sizeof(want), "\"disagreed\": [\"scan\"], \"proposed\": [{\"method\": "
		 "\"scan\", \"pc\": %u, \"sp\": %u, \"function\": \"do_fault\", \"offset\": %u}]",
		 bt->frames[1].stacked_lr & ~1u, bt->frames[1].sp,
		 (bt->frames[1].stacked_lr & ~1u) - (bt->frames[2].func ? bt->frames[2].func->addr : 0));
	KTAP_EXPECT(strstr(json, want), "json lacks %s", want);
	free(json);

	/* Alone, CFI has no rules for the hand-written handler: frame 0 falls back. */
	t = (struct cw_target){ .mem = &d.mem, .img = img };
	cw_unwind(&t, &d.regs, d.context, CW_UNWIND_CFI, bt);
	cw_symbolize(t.img, bt);
	for (i = 1; i < bt->nr; i++)
		if (!(bt->frames[i].flags & CW_FRAME_EXCEPTION))
			KTAP_EXPECT(bt->frames[i].method == CW_M_CFI && !bt->frames[i].agreed &&
				    bt->frames[i].applied == 1u << CW_M_CFI,
				    "cfi frame %u: method %d", i, bt->frames[i].method);
	/* No .ARM.exidx in this firmware: every caller is a flagged fallback. */
	cw_unwind(&t, &d.regs, d.context, CW_UNWIND_EHABI, bt);
	cw_symbolize(t.img, bt);
	for (i = 1; i < bt->nr; i++)
		if (!(bt->frames[i].flags & CW_FRAME_EXCEPTION))
			KTAP_EXPECT((bt->frames[i].flags & CW_FRAME_FALLBACK) &&
				    (bt->frames[i].method == CW_M_EPILOGUE ||
				     bt->frames[i].method == CW_M_PROLOGUE ||
				     bt->frames[i].method == CW_M_LR),
				    "ehabi frame %u: flags 0x%x method %d", i, bt->frames[i].flags,
				    bt->frames[i].method);
	cw_dump_free(&d);
	cw_image_close(img);
	free(bt);
}

/*
 * Corrupt the stack words at random. Each method must still end, with a
 * reason, and keep what the corruption cannot have touched: frame 0 comes
 * from the registers, and a frame is derived from the stack below its own
 * sp, so every frame of the clean walk whose sp is at or below the lowest
 * corrupted word (while the walk stays on this stack, going up) must come
 * out the same.
 */
static void corrupted_stacks(void)
{
	struct cw_backtrace *bt = calloc(1, sizeof(*bt));
	struct cw_backtrace *clean = calloc(6, sizeof(*clean));
	unsigned int seed = 777, i, k, j, bad = 0, changed = 0, kept = 0;
	const struct cw_region *stack;
	struct cw_image *img;
	struct cw_dump d;
	uint8_t *saved;

	if (load(&img, &d, BUNDLED_DIR "/demo.core")) {
		free(bt);
		free(clean);
		return;
	}
	stack = cw_mem_find(&d.mem, d.regs.r[CW_SP]);
	for (k = 0; k < 6; k++) {
		struct cw_target t = { .mem = &d.mem, .img = img };

		cw_unwind(&t, &d.regs, d.context, (enum cw_unwinder)k, &clean[k]);
		cw_symbolize(t.img, &clean[k]);
	}
	saved = malloc(stack->size);
	memcpy(saved, stack->data, stack->size);
	for (i = 0; i < 4000; i++) {
		struct cw_target t = { .mem = &d.mem, .img = img };
		const struct cw_backtrace *c = &clean[i % 6];
		uint8_t *w = (uint8_t *)stack->data;
		uint32_t off, low = UINT32_MAX;

		memcpy(w, saved, stack->size);
		for (k = 0; k < 1 + (unsigned int)rand_r(&seed) % 8; k++) {
			off = (uint32_t)rand_r(&seed) % 512 & ~3u;
			if (off + 4 <= stack->size) {
				memcpy(w + off, &(uint32_t){ (uint32_t)rand_r(&seed) *
							     (k & 1 ? 1u : 0x10001u) }, 4);
				if (stack->addr + off < low)
					low = stack->addr + off;
			}
		}
		cw_unwind(&t, &d.regs, d.context, (enum cw_unwinder)(i % 6), bt);
		cw_symbolize(t.img, bt);
		if (bt->nr == 0 || bt->nr > CW_MAX_FRAMES || bt->stop >= CW_STOP_NR) {
			bad++;
			continue;
		}
		for (j = 0; j < c->nr; j++) {
			const struct cw_frame *f = &c->frames[j];

			if (j > 0 && (f->sp > low || f->sp < c->frames[j - 1].sp ||
				      !cw_mem_find(&d.mem, f->sp) ||
				      cw_mem_find(&d.mem, f->sp)->addr != stack->addr))
				break;
			if (j >= bt->nr || bt->frames[j].pc != f->pc || bt->frames[j].sp != f->sp) {
				if (changed++ < 4)
					printf("# method %u run %u: frame %u changed below the corruption at 0x%08x\n",
					       i % 6, i, j, low);
				break;
			}
			kept++;
		}
	}
	printf("# %u frames below the corruption kept over 4000 walks\n", kept);
	KTAP_EXPECT(bad == 0, "%u walks out of bounds", bad);
	KTAP_EXPECT(changed == 0, "%u walks changed frames the corruption could not reach", changed);
	/* The check above must have had frames to hold to, not just frame 0. */
	KTAP_EXPECT(kept > 2 * 4000, "only %u frames kept over 4000 walks", kept);
	free(saved);
	cw_dump_free(&d);
	cw_image_close(img);
	free(clean);
	free(bt);
}

/*
 * A thread's stack ends below the crash's outer frames: every method must
 * stop at its top (stack_end) instead of making frames of what lies above,
 * as it would with the next thread's stack or TCB there.
 */
static void stack_top_bounds(void)
{
	struct cw_backtrace *bt = calloc(2, sizeof(*bt)), *clean = bt + 1;
	struct cw_image *img;
	struct cw_dump d;
	unsigned int k, i, above, tried = 0;

	if (load(&img, &d, BUNDLED_DIR "/demo.core")) {
		free(bt);
		return;
	}
	for (k = 0; k < 6; k++) {
		struct cw_target t = { .mem = &d.mem, .img = img };
		struct cw_bounds b = { 0 };

		cw_unwind(&t, &d.regs, d.context, (enum cw_unwinder)k, clean);
		if (clean->nr < 5)
			continue;
		/* The top just above frame 2's sp: frames 3 and on lie above it. */
		b.stack_hi = clean->frames[2].sp + 4;
		t.bounds = &b;
		cw_unwind(&t, &d.regs, d.context, (enum cw_unwinder)k, bt);
		for (i = above = 0; i < bt->nr; i++)
			above += bt->frames[i].sp > b.stack_hi;
		tried++;
		KTAP_EXPECT(!above && bt->nr <= 4 && bt->stop == CW_STOP_STACK_END,
			    "method %u: %u of %u frames above the top 0x%08x, stop %s (%s)", k, above,
			    bt->nr, b.stack_hi, cw_stop_name(bt->stop), bt->stop_detail);
	}
	KTAP_EXPECT(tried == 6, "only %u methods had a chain of 5 frames to cut", tried);
	cw_dump_free(&d);
	cw_image_close(img);
	free(bt);
}

int main(void)
{
	ktap_header("crashwalk-unwind");
	KTAP_RUN(bundled_elf_core);
	KTAP_RUN(bundled_zephyr);
	KTAP_RUN(bundled_fault);
	KTAP_RUN(bundled_memory_only);
	KTAP_RUN(bundled_register_block);
	KTAP_RUN(exception_frames);
	KTAP_RUN(lazy_and_lost_frames);
	KTAP_RUN(memory_gaps);
	KTAP_RUN(trustzone_frames);
	KTAP_RUN(provenance);
	KTAP_RUN(corrupted_stacks);
	KTAP_RUN(stack_top_bounds);
	return ktap_finish();
}
