/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fw_compat.h - the differences between the kernel versions framewalk.ko
 * builds for (5.10 to 7.x) that are only that: another name, argument or
 * layout for the same thing.
 *
 * Each difference is one #if here, on a Kconfig symbol or on a feature test
 * of the headers in Kbuild (FW_*): distributions backport such changes
 * regardless of version numbers, so no test reads LINUX_VERSION_CODE. A
 * concept that differs between kernels keeps its #if with its code: where the
 * hook stands (fw_hook.h), the recursion guard (fw_recursion.h) and whether a
 * return may be hooked (fw_recover.h).
 */
#ifndef FW_COMPAT_H
#define FW_COMPAT_H

#include <linux/ftrace.h>
#include <linux/hrtimer.h>
#include <linux/trace.h>
#include <linux/uaccess.h>
#include <asm/insn.h>
#include <asm/pointer_auth.h>
#ifdef FW_ASM_EXTABLE_H
#include <asm/asm-extable.h>
#endif

/*
 * What ftrace hands the callback beside ip and parent_ip: 5.11 replaced the
 * pt_regs of DYNAMIC_FTRACE_WITH_REGS by ftrace_regs, which 6.x fills as
 * DYNAMIC_FTRACE_WITH_ARGS (with accessors) where it can.
 */
#ifdef FW_FTRACE_REGS
#define fw_regs		ftrace_regs
#else
#define fw_regs		pt_regs
#endif

#if defined(CONFIG_DYNAMIC_FTRACE_WITH_ARGS) && defined(FW_FTRACE_REGS)
/**
 * fw_regs_fp() - x29 as the hook saved it
 * @regs: what ftrace hands the callback
 *
 * Return: the frame pointer at the hook.
 */
static __always_inline unsigned long fw_regs_fp(struct fw_regs *regs)
{
	return ftrace_regs_get_frame_pointer(regs);
}

/**
 * fw_regs_sp() - sp as the hook saved it
 * @regs: what ftrace hands the callback
 *
 * Return: the stack pointer at the hook.
 */
static __always_inline unsigned long fw_regs_sp(struct fw_regs *regs)
{
	return ftrace_regs_get_stack_pointer(regs);
}
#elif defined(FW_FTRACE_REGS)
static __always_inline unsigned long fw_regs_fp(struct fw_regs *regs)
{
	return regs->regs.regs[29];
}

static __always_inline unsigned long fw_regs_sp(struct fw_regs *regs)
{
	return regs->regs.sp;
}
#else
static __always_inline unsigned long fw_regs_fp(struct fw_regs *regs)
{
	return regs->regs[29];
}

static __always_inline unsigned long fw_regs_sp(struct fw_regs *regs)
{
	return regs->sp;
}
#endif

/*
 * A load that cannot oops: a fault resumes at the label after it with err
 * set to -EFAULT and the destination zeroed. 5.16 brought the fixup types that
 * do this from the exception table itself; before, each load gets a .fixup
 * stub that does the same and branches back.
 */
#ifdef FW_ASM_EXTABLE_H
#define FW_ASM_LOAD_FIXUP(insn, cont, err, zero)				\
	_ASM_EXTABLE_KACCESS_ERR_ZERO(insn##b, cont##b, err, zero)
#else
/* The stub's label is the load's with a 9 after it: unique while the loads' labels are. */
#define FW_ASM_LOAD_FIXUP(insn, cont, err, zero)				\
	"	.pushsection .fixup, \"ax\"\n"				\
	"	.align	2\n"							\
	#insn "9:	mov	" #err ", %[efault]\n"			\
	"	mov	" #zero ", xzr\n"					\
	"	b	" #cont "b\n"						\
	"	.popsection\n"							\
	"	.pushsection __ex_table, \"a\"\n"				\
	"	.align	3\n"							\
	"	.long	(" #insn "b - .), (" #insn "9b - .)\n"			\
	"	.popsection\n"
#endif
#define FW_EFAULT_OPERAND \
	[efault] "i" (-EFAULT)

/* The same for a load of a user address (ldtr), with a user access's fixup type. */
#ifdef FW_ASM_EXTABLE_H
#define FW_ASM_ULOAD_FIXUP(insn, cont, err, zero)				\
	_ASM_EXTABLE_UACCESS_ERR_ZERO(insn##b, cont##b, err, zero)
#else
#define FW_ASM_ULOAD_FIXUP(insn, cont, err, zero)				\
	FW_ASM_LOAD_FIXUP(insn, cont, err, zero)
#endif

/* The loads that use them, free of kernel headers so tests/lib runs them too. */
#include "fw_arm64_insn.h"

/* 6.7 added the list of event systems an instance starts with. */
#ifdef FW_TRACE_ARRAY_SYSTEMS
#define fw_trace_array_get(name)	trace_array_get_by_name(name, NULL)
#else
#define fw_trace_array_get(name)	trace_array_get_by_name(name)
#endif

/*
 * A filter's hashes are freed with ftrace_free_filter(), exported since 5.13.
 * Before, resetting both hashes of the unregistered ops to empty frees them
 * the same way (ftrace_set_hash() swaps in the static empty hash).
 */
#ifdef FW_FREE_FILTER_EXPORTED
#define fw_free_filter(ops)	ftrace_free_filter(ops)
#else
/**
 * fw_free_filter() - free the filter hashes of an unregistered ops
 * @ops: the ops, unregistered
 */
static inline void fw_free_filter(struct ftrace_ops *ops)
{
	ftrace_set_filter(ops, NULL, 0, 1);
	ftrace_set_notrace(ops, NULL, 0, 1);
}
#endif

/*
 * A user return address without its PAC bits, as perf strips the user
 * callchain's: until 6.4, ptrauth_strip_insn_pac() clears the user mask
 * (ptrauth_user_pac_mask(), the bits above the user virtual addresses);
 * since, ptrauth_strip_user_insn_pac() is xpaclri, which clears the same
 * bits for an EL0 address. Both are the address itself without pointer
 * authentication.
 *
 * Before 6.4 the strip is ptrauth_clear_pac()'s, with the mask taken once
 * per walk (fw_user_pac_mask()): the kernel's macro reads vabits_actual
 * again at each frame, since the frames stored in between may alias it,
 * and that was 3 of 5.10's 41 instructions a user frame.
 */
#ifdef FW_PTRAUTH_STRIP_USER
/**
 * fw_user_pac_mask() - the mask fw_strip_user_pac() takes, once per walk
 *
 * Return: the user PAC mask before 6.4, 0 where it is not needed.
 */
static __always_inline u64 fw_user_pac_mask(void)
{
	return 0;
}

/**
 * fw_strip_user_pac() - a user return address without its PAC bits
 * @ptr: the address as loaded
 * @mask: fw_user_pac_mask()
 *
 * Return: @ptr stripped.
 */
static __always_inline u64 fw_strip_user_pac(u64 ptr, u64 mask)
{
	return ptrauth_strip_user_insn_pac(ptr);
}
#elif defined(CONFIG_ARM64_PTR_AUTH)
static __always_inline u64 fw_user_pac_mask(void)
{
	return ptrauth_user_pac_mask();
}

/* ptrauth_clear_pac(): bit 55 picks the kernel's mask, the user's and bits 63-55. */
static __always_inline u64 fw_strip_user_pac(u64 ptr, u64 mask)
{
	return ptr & BIT_ULL(55) ? ptr | mask | GENMASK_ULL(63, 55) : ptr & ~mask;
}
#else
static __always_inline u64 fw_user_pac_mask(void)
{
	return 0;
}

static __always_inline u64 fw_strip_user_pac(u64 ptr, u64 mask)
{
	return ptr;
}
#endif

/**
 * fw_hrtimer_setup() - hrtimer_setup() where the kernel has it
 * @timer: the timer
 * @fn: its callback
 * @clock: its clock
 * @mode: its mode
 *
 * The selftests' timer: 6.13 set the callback with the timer, 7.x dropped
 * hrtimer_init().
 */
static inline void fw_hrtimer_setup(struct hrtimer *timer,
				    enum hrtimer_restart (*fn)(struct hrtimer *),
				    clockid_t clock, enum hrtimer_mode mode)
{
#ifdef FW_HRTIMER_SETUP
	hrtimer_setup(timer, fn, clock, mode);
#else
	hrtimer_init(timer, clock, mode);
	timer->function = fn;
#endif
}

/*
 * 6.13 replaced the record {x29, elr} in an exception's pt_regs by a
 * metadata record, {0, 0} and a type word: the layout fw_arm64_walk.h's
 * boundary reads, in bytes.
 */
#ifdef FW_FRAME_META
#include <asm/stacktrace/frame.h>
#define FW_PT_REGS_RECORD	offsetof(struct pt_regs, stackframe)
#define FW_PT_REGS_SIZE		sizeof(struct pt_regs)
#define FW_PT_REGS_FP		offsetof(struct pt_regs, regs[29])
#define FW_PT_REGS_SP		offsetof(struct pt_regs, sp)
#define FW_PT_REGS_TYPE		FRAME_META_TYPE_PT_REGS
static_assert(offsetof(struct pt_regs, pc) == FW_PT_REGS_SP + 8);
static_assert(offsetof(struct pt_regs, stackframe.type) == FW_PT_REGS_RECORD + 16);
#endif

#endif /* FW_COMPAT_H */
