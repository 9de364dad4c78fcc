/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fw_arm64_walk.h - the arm64 walk's record access: lib/fw_walk.h's ops for
 * {x29, x30} records, with the loads, the PAC strip and the fast path in
 * assembly, inlined into the hit path.
 *
 * No kernel header, so that tests/lib/test_fw_walk_arm64.c runs this very
 * code under qemu-aarch64 against fw_walk() and lib/fw_walk_fast_model.h.
 * The includer provides what fw_arm64_insn.h asks for, and __maybe_unused.
 */
#ifndef FW_ARM64_WALK_H
#define FW_ARM64_WALK_H

#include "fw_walk.h"
#include "fw_arm64_insn.h"

/**
 * fw_load_record() - the walk's load_record operation: fw_load_pair_nofault()
 * @ctx: unused
 * @addr: the record's address
 * @fp: set to the next record's address
 * @ret: set to the return address, 0 after a fault
 * @fault: set by a fault
 *
 * The walker reads only records it has placed on the current task or IRQ
 * stack, which are mapped kernel memory: an inline exception-table load is
 * enough, and a stray fault still just ends the walk (read_fault). Inlined
 * into the walk, as are the PAC strip and the trampoline check: a call per
 * frame cost a return-address signing pair (paciasp/autiasp) on top of the
 * branch.
 */
static __always_inline void fw_load_record(void *ctx, fw_u64 addr, fw_u64 *fp, fw_u64 *ret,
					   int *fault)
{
	fw_load_pair_nofault((unsigned long)addr, fp, ret, fault);
}

/**
 * fw_fixup_ret() - the walk's fixup_ret operation: fw_strip_pac()
 * @ctx: unused
 * @ret: a return address as loaded
 *
 * Return: @ret without its PAC bits.
 */
static __always_inline fw_u64 fw_fixup_ret(void *ctx, fw_u64 ret)
{
	return fw_strip_pac(ret);
}

/*
 * One pass of the fast path over two records, their frame pointers in two
 * registers that trade places: %[a] is the record to test and %[b] the one
 * before it, whose register then takes the next frame pointer. Records are
 * fw_cfg()'s: {x29, x30} at an 8-byte aligned address. Three checks in one
 * branch: tst for aligned, then, each only while the last held, above %[b]
 * and at most %[top] (a failed check leaves the flags "hi"). Where %[keep]
 * is 1, each record's address is stored at %[rec] too. A record that
 * fails exits at 7 (or at 8, which swaps the roles back) with it in %[a] and
 * the one before it in %[b]; a return address of 0 sets %[end_kind] to 1
 * with that record in %[a] (10 swaps too), the depth to 2. A fault sets
 * %[err] (w9, which the fixup names by number), zeroes x30 and resumes at
 * the xpaclri.
 */
#define FW_WALK_FAST_ASM						\
	"1:	tst	%[a], #7\n"					\
	"	ccmp	%[a], %[b], #0, eq\n"				\
	"	ccmp	%[a], %[top], #2, hi\n"			\
	"	b.hi	7f\n"						\
	"2:	ldp	%[b], x30, [%[a]]\n"				\
	"3:	hint	#7\n"						\
	"	cbz	x30, 5f\n"					\
	"	cmp	%[out], %[end]\n"				\
	"	b.eq	6f\n"						\
	"	.if	%c[keep]\n"					\
	"	str	%[a], [%[rec]], #8\n"				\
	"	.endif\n"					\
	"	str	x30, [%[out]], #8\n"				\
	"	tst	%[b], #7\n"					\
	"	ccmp	%[b], %[a], #0, eq\n"				\
	"	ccmp	%[b], %[top], #2, hi\n"			\
	"	b.hi	8f\n"						\
	"4:	ldp	%[a], x30, [%[b]]\n"				\
	"9:	hint	#7\n"						\
	"	cbz	x30, 10f\n"					\
	"	cmp	%[out], %[end]\n"				\
	"	b.eq	6f\n"						\
	"	.if	%c[keep]\n"					\
	"	str	%[b], [%[rec]], #8\n"				\
	"	.endif\n"					\
	"	str	x30, [%[out]], #8\n"				\
	"	b	1b\n"						\
	"10:	mov	%[t], %[a]\n"					\
	"	mov	%[a], %[b]\n"					\
	"	mov	%[b], %[t]\n"					\
	"5:	mov	%w[end_kind], #1\n"				\
	"	b	7f\n"						\
	"6:	mov	%w[end_kind], #2\n"				\
	"	b	7f\n"						\
	"8:	mov	%[t], %[a]\n"					\
	"	mov	%[a], %[b]\n"					\
	"	mov	%[b], %[t]\n"					\
	"7:\n"								\
	FW_ASM_LOAD_FIXUP(2, 3, w9, x30)				\
	FW_ASM_LOAD_FIXUP(4, 9, w9, x30)

/**
 * fw_walk_fast() - the walk's walk_fast operation: FW_WALK_FAST_ASM
 * @ctx: unused
 * @fp: the record to test next; set to where the pass stopped
 * @prev: the record before it; set likewise
 * @top: the highest record address the current stack allows
 * @ret_out: where the next return address goes; advanced past those stored
 * @ret_end: the end of the return addresses' array (the depth)
 * @rec_out: where the next record address goes, NULL where none is kept
 * @stop: set where the walk ends here (chain_end, read_fault, depth)
 *
 * In C each record cost two moves, the frame pointer read becoming the
 * previous one and the loaded one the next to test, and the three checks two
 * branches; here 11
 * instructions a record with its address stored, 10 without. It also ends
 * the walk where a chain's last record or the depth is met, sparing the C
 * loop a second load of that record.
 *
 * Return: 0 where a record failed a check and the C loop takes it over, 1
 * where the chain ended, 2 where the depth did (@stop says which).
 */
static __always_inline int fw_walk_fast(void *ctx, fw_u64 *fp, fw_u64 *prev, fw_u64 top,
					fw_u64 **ret_out, fw_u64 *ret_end, fw_u64 **rec_out,
					enum fw_stop *stop)
{
	register int err asm("w9") = 0;
	u64 a = *fp, b = *prev, *out = *ret_out, *rec = rec_out ? *rec_out : NULL, t;
	int end_kind = 0;

	asm volatile(FW_WALK_FAST_ASM
		     : [a] "+r" (a), [b] "+r" (b), [out] "+r" (out), [rec] "+r" (rec),
		       [t] "=&r" (t), [err] "+r" (err), [end_kind] "+r" (end_kind)
		     : [top] "r" (top), [end] "r" (ret_end), [keep] "i" (!!rec_out),
		       FW_EFAULT_OPERAND
		     : "x30", "cc", "memory");
	if (rec_out)
		*rec_out = rec;
	*fp = a;
	*prev = b;
	*ret_out = out;
	if (end_kind == 2)
		*stop = FW_STOP_DEPTH;
	else if (end_kind == 1)
		*stop = err ? FW_STOP_READ_FAULT : FW_STOP_CHAIN_END;
	return end_kind;
}

#ifdef FW_PT_REGS_RECORD
/**
 * fw_exception_boundary() - the walk's boundary operation: through pt_regs
 * @ctx: unused
 * @record: a record {0, 0}, maybe the metadata record of a pt_regs
 * @stack: the stack it is on
 * @ret: set to the interrupted pc
 * @fp: set to the interrupted x29
 * @prev: set to the top of the pt_regs, below which no record may follow
 *
 * Since 6.13 an exception taken in the kernel leaves in its pt_regs, where
 * the record {x29, elr} was, a record {0, 0} and a type word, and the
 * kernel's unwinder reports regs->pc there and walks on from regs->regs[29]
 * (arch/arm64/kernel/stacktrace.c): so does this, in the unwinder's order of
 * checks. The includer gives the layout in bytes: FW_PT_REGS_RECORD (the
 * record in pt_regs), FW_PT_REGS_SIZE, FW_PT_REGS_FP (regs[29]),
 * FW_PT_REGS_SP (sp, which pc follows) and FW_PT_REGS_TYPE (the type word
 * of a kernel exception's pt_regs; the others end the chain).
 *
 * Return: FW_STOP_NONE to walk on from @fp, else the stop that ends the chain.
 */
static __always_inline enum fw_stop fw_exception_boundary(void *ctx, fw_u64 record,
							  const struct fw_stack_range *stack,
							  fw_u64 *ret, fw_u64 *fp, fw_u64 *prev)
{
	fw_u64 regs = record - FW_PT_REGS_RECORD, word, type;
	int fault = 0;

	/* The record and its type word: the ldp reads the record's zero lr too. */
	if (stack->hi - record < 24)
		return FW_STOP_OFF_STACK;
	fw_load_pair_nofault(record + 8, &word, &type, &fault);
	if (fault)
		return FW_STOP_READ_FAULT;
	if (type != FW_PT_REGS_TYPE)
		return FW_STOP_CHAIN_END;
	if (record < FW_PT_REGS_RECORD || regs < stack->lo ||
	    stack->hi - regs < FW_PT_REGS_SIZE)
		return FW_STOP_OFF_STACK;
	fw_load_pair_nofault(regs + FW_PT_REGS_FP, fp, &word, &fault);
	fw_load_pair_nofault(regs + FW_PT_REGS_SP, &word, ret, &fault);
	if (fault)
		return FW_STOP_READ_FAULT;
	*prev = regs + FW_PT_REGS_SIZE - 1;
	return FW_STOP_NONE;
}

#define FW_BOUNDARY	fw_exception_boundary
#else
/* Before 6.13 the record in pt_regs is {x29, elr}: the walk goes through it as any other. */
#define FW_BOUNDARY	NULL
#endif

/* The common walk: no return of this task is hooked, no trampoline to look for. */
static const struct fw_walk_ops fw_walk_ops __maybe_unused = {
	.load_record = fw_load_record,
	.fixup_ret = fw_fixup_ret,
	.walk_fast = fw_walk_fast,
	.boundary = FW_BOUNDARY,
};

#endif /* FW_ARM64_WALK_H */
