// SPDX-License-Identifier: GPL-2.0
/*
 * cw_analyze.c - the pipeline for one dump: read it, complete its registers,
 * unwind, symbolize, decode the fault, check it against the firmware, list the
 * RTOS threads; the report prints what it leaves in struct cw_analysis.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analyze/cw_analyze.h"
#include "decode/cw_exc.h"
#include "analyze/cw_options.h"
#include "image/cw_symbolize.h"

/* A note for the caller; error: a refused dump's further reason, for after its error. */
static void tell_caller(const struct cw_options *o, int error, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void tell_caller(const struct cw_options *o, int error, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (!o->note)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	o->note(o->note_ctx, error, msg);
}

/* Read DUMP ("-": standard input); a directory or an empty file is named as such. */
static int load_dump(struct cw_dump *d, const char *path, struct cw_error *err)
{
	struct stat st;

	if (strcmp(path, "-") && !stat(path, &st)) {
		if (S_ISDIR(st.st_mode))
			return cw_fail(err, path, -1, "is a directory, expected a crash dump");
		if (S_ISREG(st.st_mode) && !st.st_size)
			return cw_fail(err, path, -1, "empty file, expected a crash dump");
	}
	return cw_dump_load(d, path, err);
}

/*
 * Registers from a register block, the copy the firmware saved in RAM: spec
 * is --regs "SYMBOL:reg,reg,..." (cw_regblock_parse() has its rule) naming the
 * 32-bit words at SYMBOL in order. A block saved at the fault handler's entry
 * holds EXC_RETURN in lr and no pc: the walk then starts in the HardFault
 * handler on MSP.
 */
int cw_regs_from_regblock(const struct cw_target *t, struct cw_dump *d, const char *spec,
			  struct cw_error *err)
{
	struct cw_regblock blk;
	uint32_t addr, v;
	unsigned int i;
	int ok;

	if (cw_regblock_parse(spec, &blk, err) || cw_regblock_find(t->img, &blk, spec, &addr, err))
		return -1;
	for (i = 0; i < blk.nr; i++, addr += 4) {
		if (blk.word[i] == CW_REGBLOCK_SKIP)
			continue;
		if (cw_mem_read32(t->mem, addr, &v))
			return cw_fail(err, d->path, -1, "register block word at 0x%08x is not in "
				       "the dump", addr);
		cw_reg_set(&d->regs, (enum cw_reg)blk.word[i], v);
	}
	if (!cw_reg_ok(&d->regs, CW_PC) && cw_reg_ok(&d->regs, CW_LR) &&
	    cw_is_exc_return(d->regs.r[CW_LR])) {
		cw_reg_set(&d->regs, CW_PC, cw_image_vector(t->img, 3, &ok) & ~1u);
		if (!ok)
			return cw_fail(err, spec, -1, "no vector table for the HardFault handler");
	}
	if (!cw_reg_ok(&d->regs, CW_SP) && cw_reg_ok(&d->regs, CW_MSP))
		cw_reg_set(&d->regs, CW_SP, d->regs.r[CW_MSP]);
	if (!cw_reg_ok(&d->regs, CW_PC) || !cw_reg_ok(&d->regs, CW_SP))
		return cw_fail(err, spec, -1, "the register block gives neither pc nor EXC_RETURN and sp");
	d->context = cw_is_exc_return(d->regs.r[CW_LR]) ? CW_CTX_HANDLER_ENTRY
						     : CW_CTX_PRE_EXCEPTION;
	return 0;
}

/* --sp: a value given by hand replaces the dump's (a writer may have recorded a wrong one). */
static void use_given_sp(struct cw_dump *d, const struct cw_regs *given)
{
	unsigned int i;

	for (i = 0; i < CW_NR_REGS; i++)
		if (cw_reg_ok(given, (enum cw_reg)i))
			d->regs.r[i] = given->r[i];
	d->regs.valid |= given->valid;
}

/*
 * Zephyr's coredump records as sp the address of the exception frame
 * (z_arm_coredump_fault_sp = esf) up to 4.0, and the sp from before it since
 * 4.1. The frame's words at the sp given are the dump's registers only in
 * the first case: the frame is there, and trial unwinds of it as a basic and
 * as an extended frame say which it is (EXC_RETURN is not in the dump).
 */
static int sp_is_the_frame(const struct cw_dump *d)
{
	uint32_t v, cfsr, any = 0;
	unsigned int i;

	/* A frame never stacked (the writer copied whatever lay there) is none. */
	if (d->format != CW_FMT_ZEPHYR || !cw_reg_ok(&d->regs, CW_SP) ||
	    (!cw_mem_read32(&d->mem, CW_SCB_CFSR, &cfsr) && (cfsr & CW_CFSR_STACKING)))
		return 0;
	for (i = 0; i < CW_EXC_BASIC_WORDS; i++) {
		enum cw_reg r = cw_exc_stacked[i];

		if (!cw_reg_ok(&d->regs, r) ||
		    cw_mem_read32(&d->mem, d->regs.r[CW_SP] + 4 * i, &v) ||
		    (v & ~(r == CW_PC ? 1u : 0u)) != (d->regs.r[r] & ~(r == CW_PC ? 1u : 0u)))
			return 0;
		any |= v;
	}
	return any != 0;
}

#define INTEGRITY_SIG		0xFEFA125Au	/* | 1: no FP state stacked */
#define ADDITIONAL_STATE_SIZE	0x28		/* signature, reserved, r4-r11 */

/*
 * ARMv8-M's additional state context (EXC_RETURN.DCRS = 0, a Secure
 * exception's frame on Mainline and Baseline alike) lies below the basic
 * frame:
 *
 *	base + 0x28 + 0x20  sp before the exception (basic frame; 0x68 with FP)
 *	base + 0x28         r0 r1 r2 r3 r12 lr pc xPSR
 *	base + 0x08         r4 ... r11
 *	base                integrity signature 0xFEFA125B (0xFEFA125A: FP), reserved
 *
 * A Zephyr that takes the frame's address at base writes those words as the
 * registers: r0 the signature, pc r8, xPSR r9 (no Thumb bit). Its sp is base
 * (up to 4.0) or base + 0x20 (4.1 on). Read the registers from the basic
 * frame instead: 0 when done (*at: base), 1 when the dump is no such one,
 * -1 when its signature is not in memory where either form puts it.
 */
static int zephyr_additional_state(struct cw_dump *d, uint32_t *at)
{
	uint32_t base, sig, w[CW_EXC_BASIC_WORDS], callee[8];
	unsigned int form, i;

	if (d->format != CW_FMT_ZEPHYR || !cw_reg_ok(&d->regs, CW_R0) ||
	    !cw_reg_ok(&d->regs, CW_SP) || (d->regs.r[CW_R0] & ~1u) != INTEGRITY_SIG)
		return 1;
	for (form = 0; form < 2; form++) {
		base = d->regs.r[CW_SP] - (form ? CW_EXC_BASIC_WORDS * 4 : 0);
		if (cw_mem_read32(&d->mem, base, &sig) || sig != d->regs.r[CW_R0])
			continue;
		for (i = 0; i < 8; i++)
			if (cw_mem_read32(&d->mem, base + 8 + 4 * i, &callee[i]))
				break;
		if (i < 8)
			continue;
		for (i = 0; i < CW_EXC_BASIC_WORDS; i++)
			if (cw_mem_read32(&d->mem, base + ADDITIONAL_STATE_SIZE + 4 * i, &w[i]))
				break;
		if (i < CW_EXC_BASIC_WORDS)
			continue;
		for (i = 0; i < 8; i++)
			cw_reg_set(&d->regs, (enum cw_reg)(CW_R4 + i), callee[i]);
		for (i = 0; i < CW_EXC_BASIC_WORDS; i++)
			cw_reg_set(&d->regs, cw_exc_stacked[i], w[i]);
		cw_reg_set(&d->regs, CW_SP, base + ADDITIONAL_STATE_SIZE +
			   ((sig & 1) ? CW_EXC_BASIC_WORDS * 4 : 0x68) +
			   ((w[CW_EXC_XPSR_WORD] & CW_XPSR_ALIGN) ? 4 : 0));
		*at = base;
		return 0;
	}
	return -1;
}

/*
 * Zephyr's reasons for an overflow whose exception could not be stacked: the
 * stack check (the MPU guard's MSTKERR, which Zephyr reports so) and the
 * stacking faults themselves.
 */
#define ZEPHYR_STACK_CHK_FAIL	2
#define ZEPHYR_MEM_STACKING	17
#define ZEPHYR_BUS_STACKING	23

/*
 * A Zephyr dump of a fault whose stacking failed: Zephyr has no frame to copy
 * and writes every register 0 but sp. Its reason says so where the dump holds
 * no fault status (Zephyr's never does). A stack overflow a PSPLIM stopped
 * stacks its frame, whose pc is not 0.
 */
static int zephyr_stacking_failed(const struct cw_dump *d)
{
	unsigned int i;

	if (d->format != CW_FMT_ZEPHYR || (d->reason != ZEPHYR_STACK_CHK_FAIL &&
	    d->reason != ZEPHYR_MEM_STACKING && d->reason != ZEPHYR_BUS_STACKING) ||
	    !cw_reg_ok(&d->regs, CW_SP) || !d->regs.r[CW_SP])
		return 0;
	for (i = 0; i < CW_EXC_BASIC_WORDS; i++)
		if (!cw_reg_ok(&d->regs, cw_exc_stacked[i]) || d->regs.r[cw_exc_stacked[i]])
			return 0;
	return 1;
}

/* The refusal of a dump without registers whose crash frame may never have been written. */
static int stacking_failed(const struct cw_dump *d, uint32_t cfsr, struct cw_error *err)
{
	return cw_fail(err, d->path, -1, "no registers, and exception stacking failed "
		       "(CFSR 0x%08x): the crash's own frame was never written; give the "
		       "registers with --regs", cfsr);
}

/*
 * ARMv8-M sets STKOF for two things: an instruction that would move SP
 * below its limit (sub sp, push), which faults with SP unmoved, so that the
 * exception's stacking goes on above the limit and writes the whole frame;
 * and stacking that itself crosses the limit, which writes none of the words
 * below it. A frame found wholly inside the running thread's stack, whose
 * low end its v8-M port makes PSPLIM, was stacked; any other, or one on a
 * main stack whose MSPLIM is unknown, may be older than the crash.
 */
static int stacked_within_limit(const struct cw_target *t, uint32_t at)
{
	const struct cw_search_hints *h = t->hints;

	return h && h->running_lo && at >= h->running_lo && (!h->running_hi || at < h->running_hi);
}

/*
 * A dump without registers: start from the innermost exception frame in its
 * memory. A dump with the interrupted registers but no stack pointer: find the
 * frame that holds them.
 */
static int find_registers(const struct cw_options *o, const struct cw_target *t,
			  struct cw_dump *d, uint32_t frame_at, struct cw_search *found,
			  struct cw_error *err)
{
	uint32_t at, cfsr;

	if (d->context != CW_CTX_MEMORY_ONLY) {
		if (cw_find_exception_frame(t, d->context, frame_at, &d->regs, &at, found))
			return cw_fail(err, d->path, -1, "no stack pointer, and no exception frame "
				       "in memory holds the dump's registers; give it with --sp");
		tell_caller(o, 0, "%s: no stack pointer; the dump's registers are the exception frame "
			    "at 0x%08x", d->path, at);
		return 0;
	}

	/* Any frame a search finds would be older than the crash: refuse rather than mislead. */
	if (cw_mem_read32(t->mem, CW_SCB_CFSR, &cfsr))
		cfsr = 0;
	if ((cfsr & CW_CFSR_STACKING) && (cfsr & CW_CFSR_STACKING) != CW_CFSR_STKOF)
		return stacking_failed(d, cfsr, err);
	if (cw_find_exception_frame(t, d->context, 0, &d->regs, &at, found))
		return (cfsr & CW_CFSR_STKOF) ? stacking_failed(d, cfsr, err) :
		       cw_fail(err, d->path, -1, "no registers and no exception frame in memory "
			       "with a complete chain above it%s", d->regs.valid ? " (none was "
			       "looked for below the stack pointers given with --sp)" : "");
	if ((cfsr & CW_CFSR_STKOF) && !stacked_within_limit(t, at))
		return stacking_failed(d, cfsr, err);
	tell_caller(o, 0, "%s: no registers; using the exception frame at 0x%08x", d->path, at);
	return 0;
}

/*
 * A dump the firmware contradicts: refused with the first difference and how
 * many others there are, each other one an error note (the evidence, which
 * crashwalk shows with -v); with allow_mismatch every one is
 * a note and the report carries them as warnings.
 */
static int refuse_mismatch(const struct cw_options *o, const struct cw_image *img,
			   const struct cw_dump *d, const struct cw_match *m, struct cw_error *err)
{
	const char *fw = cw_image_path(img);
	unsigned int i;

	if (o->allow_mismatch) {
		for (i = 0; i < m->nr; i++)
			tell_caller(o, 0, "%s: warning: does not match %s: %s", d->path, fw,
				    m->lines[i]);
		return 0;
	}
	for (i = 1; i < m->nr; i++)
		tell_caller(o, 1, "%s: does not match %s: %s", d->path, fw, m->lines[i]);
	if (m->nr > 1)
		return cw_fail(err, d->path, -1, "not a dump of %s (--allow-mismatch reports it "
			       "anyway): %s; %u more difference%s (-v lists them)", fw,
			       m->lines[0], m->nr - 1, cw_plural(m->nr - 1));
	return cw_fail(err, d->path, -1, "not a dump of %s (--allow-mismatch reports it anyway): "
		       "%s", fw, m->lines[0]);
}

/*
 * Zephyr's dump-every-thread mode (CONFIG_DEBUG_COREDUMP_MEMORY_DUMP_THREADS)
 * dumps each thread's struct and stack and the interrupt stacks, and _kernel
 * only as its threads metadata block: put those bytes where the firmware's
 * _kernel is, unless the dump holds that memory itself, so the thread list
 * and the running thread are read as from a whole-RAM dump.
 */
static int zephyr_kernel_meta(const struct cw_image *img, struct cw_dump *d)
{
	uint32_t addr;

	if (!d->kernel_meta_len || cw_image_lookup(img, "_kernel", &addr) ||
	    cw_mem_find(&d->mem, addr))
		return 0;
	return cw_mem_add(&d->mem, addr, d->kernel_meta_len, d->kernel_meta, "dump");
}

/* The running thread overflowed at the faulting instruction: the crash's class, if none. */
static void stack_limit_class(const struct cw_rtos *r, struct cw_fault *f)
{
	unsigned int i;

	for (i = 0; i < r->nr; i++)
		if (r->threads[i].current && (r->threads[i].overflow & CW_OVF_STACK_LIMIT) &&
		    r->threads[i].bt.nr)
			cw_fault_explain_stack_limit(f, r->threads[i].bt.frames[0].pc,
						     r->threads[i].bt.frames[0].sp,
						     r->threads[i].stack_lo);
}

/* The steps after reading: each takes what the one before it left in a. */
static int run(struct cw_image *img, const struct cw_options *o, struct cw_analysis *a,
	       struct cw_error *err)
{
	struct cw_dump *d = &a->dump;
	struct cw_backtrace *bt = &a->bt;
	uint32_t frame_at = 0;
	struct cw_target t;
	unsigned int ff;

	if (zephyr_kernel_meta(img, d))
		return cw_fail(err, d->path, -1, "out of memory");
	cw_image_gaps(img, d);
	if (cw_image_add_memory(img, &d->mem))
		return cw_fail(err, d->path, -1, "out of memory");
	/* The crash's chain ends where the RTOS started the thread, as each thread's does. */
	cw_rtos_bounds(img, o->rtos, &a->ends);
	t = (struct cw_target){ .mem = &d->mem, .img = img, .bounds = &a->ends,
				.stacking_failed = d->context == CW_CTX_PRE_EXCEPTION &&
						   zephyr_stacking_failed(d) };
	if (t.stacking_failed)
		tell_caller(o, 0, "%s: Zephyr's reason %u with every register 0 but sp: the "
			    "exception was never stacked; unwinding from the stack above sp 0x%08x",
			    d->path, d->reason, d->regs.r[CW_SP]);
	switch (zephyr_additional_state(d, &frame_at)) {
	case 0:
		tell_caller(o, 0, "%s: the registers recorded are the ARMv8-M additional state "
			    "context at 0x%08x (r0 its integrity signature): the exception frame's "
			    "are 0x%x above it", d->path, frame_at, ADDITIONAL_STATE_SIZE);
		frame_at = 0;
		break;
	case -1:
		return cw_fail(err, d->path, -1, "the registers recorded are an ARMv8-M additional "
			       "state context (r0 0x%08x, its integrity signature), and the dump does "
			       "not hold it where sp 0x%08x says: the exception frame is unknown",
			       d->regs.r[CW_R0], d->regs.r[CW_SP]);
	}
	if (sp_is_the_frame(d)) {
		tell_caller(o, 0, "%s: the sp recorded, 0x%08x, is the exception frame's address (as "
			    "Zephyr before 4.1 writes it), not the sp before it", d->path,
			    d->regs.r[CW_SP]);
		frame_at = d->regs.r[CW_SP];
		d->regs.valid &= ~(1u << CW_SP);
	}
	use_given_sp(d, &o->sp);
	if (d->context != CW_CTX_MEMORY_ONLY && o->regs)
		tell_caller(o, 0, "%s: the dump has its registers; --regs is not used", d->path);
	if (d->context == CW_CTX_MEMORY_ONLY && o->regs &&
	    cw_regs_from_regblock(&t, d, o->regs, err))
		return -1;
	/* A stack pointer the walk may need is missing: say where the stacks are. */
	if (!cw_reg_ok(&d->regs, CW_PSP) || !cw_reg_ok(&d->regs, CW_MSP) ||
	    !cw_reg_ok(&d->regs, CW_SP)) {
		cw_stack_hints(&t, d, o->rtos, o->how, &a->hints);
		t.hints = &a->hints;
	}
	if ((d->context == CW_CTX_MEMORY_ONLY || !cw_reg_ok(&d->regs, CW_SP)) &&
	    find_registers(o, &t, d, frame_at, &a->found, err))
		return -1;
	t.found = &a->found;
	cw_unwind(&t, &d->regs, d->context, o->how, bt);
	cw_symbolize(img, bt);
	ff = cw_fault_frame(d->context, bt);
	/*
	 * Never the handler's own instruction, nor the data a wild pc points at
	 * (a call through NULL): only an instruction the fault interrupted.
	 */
	cw_fault_decode(&d->mem, ff < bt->nr ? bt->frames[ff].pc : 0,
			ff < bt->nr && cw_image_is_code(img, bt->frames[ff].pc), &a->fault);
	cw_fault_explain_zephyr(d->reason, &a->fault);
	if (cw_match(&t, d, bt, &a->fault, &a->match) && refuse_mismatch(o, img, d, &a->match, err))
		return -1;
	if (cw_rtos_threads(&t, d, bt, &a->fault, o->rtos, o->how, &a->rtos))
		tell_caller(o, 0, "%s: no %s kernel objects in the firmware", d->path,
			    cw_rtos_name(o->rtos));
	stack_limit_class(&a->rtos, &a->fault);
	return 0;
}

int cw_analysis_read(const char *path, uint8_t *buf, size_t len, struct cw_analysis **out,
		     struct cw_error *err)
{
	struct cw_analysis *a = calloc(1, sizeof(*a));
	int rc;

	*out = NULL;
	if (!a) {
		free(buf);
		return cw_fail(err, path, -1, "out of memory");
	}
	rc = buf ? cw_dump_parse(&a->dump, path, buf, len, err) : load_dump(&a->dump, path, err);
	if (rc) {
		cw_analysis_free(a);
		return -1;
	}
	*out = a;
	return 0;
}

uint32_t cw_analysis_build_id(const struct cw_analysis *a, const uint8_t **id, uint32_t *at)
{
	*id = a->dump.build_id;
	if (at)
		*at = a->dump.build_id_at;
	return a->dump.build_id_len;
}

const char *cw_analysis_path(const struct cw_analysis *a)
{
	return a->dump.path;
}

int cw_analysis_run(struct cw_image *img, const struct cw_options *o, struct cw_analysis *a,
		    struct cw_error *err)
{
	a->img = img;
	return run(img, o, a, err);
}

int cw_analyze(struct cw_image *img, const struct cw_options *o, const char *path,
	       uint8_t *buf, size_t len, struct cw_analysis **out, struct cw_error *err)
{
	if (cw_analysis_read(path, buf, len, out, err))
		return -1;
	if (cw_analysis_run(img, o, *out, err)) {
		cw_analysis_free(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}

void cw_analysis_free(struct cw_analysis *a)
{
	if (!a)
		return;
	cw_rtos_free(&a->rtos);
	cw_dump_free(&a->dump);
	free(a);
}

unsigned int cw_analysis_frames(const struct cw_analysis *a)
{
	return a->bt.nr;
}

int cw_analysis_frame(const struct cw_analysis *a, unsigned int i, struct cw_frame_info *out)
{
	const struct cw_frame *f;

	if (i >= a->bt.nr)
		return -1;
	f = &a->bt.frames[i];
	*out = (struct cw_frame_info){
		.pc = f->pc,
		.sp = f->sp,
		.function = f->func ? f->func->name : NULL,
		.offset = f->func ? f->pc - f->func->addr : 0,
		.file = f->has_src ? f->src.file : NULL,
		.line = f->has_src ? f->src.line : 0,
		.return_address = !!(f->flags & CW_FRAME_RETURN_ADDR),
		.exception = !!(f->flags & CW_FRAME_EXCEPTION),
	};
	return 0;
}

const char *cw_analysis_stop(const struct cw_analysis *a)
{
	return cw_stop_name(a->bt.stop);
}
