/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fw_compat.h - every difference between the arm64 kernels framewalk.ko
 * builds for (5.10 to 7.x, patchable-entry and -pg/_mcount hooks), in one place.
 *
 * Each difference is one #if here, on a Kconfig symbol or on a feature test
 * of the headers in Kbuild (FW_*): distributions backport such changes
 * regardless of version numbers, so no test reads LINUX_VERSION_CODE.
 */
#ifndef FW_COMPAT_H
#define FW_COMPAT_H

#include <linux/ftrace.h>
#include <linux/hardirq.h>
#include <linux/hrtimer.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/trace.h>
#include <linux/uaccess.h>
#include <asm/insn.h>
#include <asm/pointer_auth.h>
#ifdef FW_ASM_EXTABLE_H
#include <asm/asm-extable.h>
#endif
#ifdef FW_TRACE_RECURSION_H
#include <linux/trace_recursion.h>
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
static __always_inline unsigned long fw_regs_fp(struct fw_regs *regs)
{
	return ftrace_regs_get_frame_pointer(regs);
}

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
 * Where the hook stands, as data the walk starts from (fw_hit.c), so the
 * patchable-entry and -pg/_mcount hooks run the same walk:
 *   callsite  the address ftrace reports, whose return (+ 4) the kernel's own
 *             stack trace shows next to parent_ip (fw_recover.c aligns on it);
 *   child     the traced function as the event names it;
 *   fp        the first frame record to walk: the parent's;
 *   sp        the stack pointer the event reports.
 */
struct fw_hook_hit {
	unsigned long callsite;
	unsigned long child;
	unsigned long parent_ip;
	unsigned long fp;
	unsigned long sp;
};

#if defined(CONFIG_DYNAMIC_FTRACE_WITH_REGS) || defined(CONFIG_DYNAMIC_FTRACE_WITH_ARGS)
/*
 * The patchable entry (-fpatchable-function-entry): the hook runs before the
 * traced function's prologue, so x29 is still the parent's frame record, and
 * ftrace reports the `bl ftrace_caller` after `mov x9, lr` (and after
 * `bti c` when BTI is built in).
 */
#define FW_HOOK_NAME		"patchable-entry"
#define FW_CALLSITE_OFFSET \
	(AARCH64_INSN_SIZE * (IS_ENABLED(CONFIG_ARM64_BTI_KERNEL) ? 2 : 1))

static __always_inline bool fw_hook_locate(struct fw_hook_hit *h, unsigned long ip,
					   unsigned long parent_ip, struct fw_regs *regs)
{
	h->callsite = ip;
	h->child = ip - FW_CALLSITE_OFFSET;
	h->parent_ip = parent_ip;
	h->fp = fw_regs_fp(regs);
	h->sp = fw_regs_sp(regs);
	return true;
}
#else
/*
 * The -pg hook (`mov x0, x30; bl _mcount` after the prologue): the traced
 * function's own frame record is built, and ftrace_caller pushed one more
 * whose return is ip + 4; regs is NULL. That record is found from this
 * callback's own frame, a few records up (the list function, maybe the
 * assist function, ftrace_caller); its fp is the traced function's record,
 * whose fp is the parent's. ftrace reports the `bl _mcount` itself, inside
 * the body: the event's child is that address, which symbolizes to the
 * function like an entry does. sp is the traced function's record.
 */
#define FW_HOOK_NAME		"mcount"
#define FW_HOOK_SEARCH		8

static __always_inline bool fw_hook_locate(struct fw_hook_hit *h, unsigned long ip,
					   unsigned long parent_ip, struct fw_regs *regs)
{
	unsigned long fp = (unsigned long)__builtin_frame_address(0);
	u64 next, lr, self_fp;
	int fault = 0, i;

	for (i = 0; i < FW_HOOK_SEARCH; i++) {
		fw_load_pair_nofault(fp, &next, &lr, &fault);
		if (fault || !next)
			return false;
		if (fw_strip_pac(lr) == ip + AARCH64_INSN_SIZE) {
			/* next is the traced function's record: {parent's fp, parent_ip}. */
			fw_load_pair_nofault(next, &self_fp, &lr, &fault);
			if (fault)
				return false;
			h->callsite = ip;
			h->child = ip;
			h->parent_ip = parent_ip;
			h->fp = self_fp;
			h->sp = next;
			return true;
		}
		fp = next;
	}
	return false;
}
#endif

/*
 * The recursion guard, which also disables preemption for the per-CPU state.
 * Since 5.11 it is ftrace's own (trace_recursion.h): one bit per context of
 * the task, and one re-entry let through while an interrupt has not yet
 * raised the preempt count (TRACE_CTX_TRANSITION). 5.10 keeps that lock
 * private to kernel/trace; there the module keeps the same bits per CPU, in
 * fw_cpu.busy, with preemption disabled for as long as one is set. Both give
 * the context index (the slot of fw_cpu) or -1.
 */
#ifdef FW_TRACE_RECURSION_H
#define FW_CONTEXTS	(TRACE_CTX_TRANSITION + 1)

static __always_inline int fw_recursion_lock(unsigned long ip, unsigned long parent_ip,
					     unsigned long *busy)
{
	return ftrace_test_recursion_trylock(ip, parent_ip) - TRACE_FTRACE_START;
}

static __always_inline void fw_recursion_unlock(int ctx, unsigned long *busy)
{
	ftrace_test_recursion_unlock(ctx + TRACE_FTRACE_START);
}
#else
#define FW_CTX_NMI		0
#define FW_CTX_IRQ		1
#define FW_CTX_SOFTIRQ		2
#define FW_CTX_NORMAL		3
#define FW_CTX_TRANSITION	4
#define FW_CONTEXTS		(FW_CTX_TRANSITION + 1)

static __always_inline int fw_recursion_lock(unsigned long ip, unsigned long parent_ip,
					     unsigned long *busy)
{
	unsigned long pc = preempt_count(), val;
	int ctx;

	if (pc & NMI_MASK)
		ctx = FW_CTX_NMI;
	else if (pc & HARDIRQ_MASK)
		ctx = FW_CTX_IRQ;
	else if (pc & SOFTIRQ_OFFSET)
		ctx = FW_CTX_SOFTIRQ;
	else
		ctx = FW_CTX_NORMAL;
	preempt_disable_notrace();
	/*
	 * An interrupt between the read and the write sets and clears its own
	 * bit before it returns, so the plain read-modify-write loses nothing.
	 */
	val = READ_ONCE(*this_cpu_ptr(busy));
	if (unlikely(val & BIT(ctx))) {
		ctx = FW_CTX_TRANSITION;
		if (val & BIT(ctx)) {
			preempt_enable_notrace();
			return -1;
		}
	}
	WRITE_ONCE(*this_cpu_ptr(busy), val | BIT(ctx));
	barrier();
	return ctx;
}

static __always_inline void fw_recursion_unlock(int ctx, unsigned long *busy)
{
	barrier();
	WRITE_ONCE(*this_cpu_ptr(busy), READ_ONCE(*this_cpu_ptr(busy)) & ~BIT(ctx));
	preempt_enable_notrace();
}
#endif

/*
 * A filter's hashes are freed with ftrace_free_filter(), exported since 5.13.
 * Before, resetting both hashes of the unregistered ops to empty frees them
 * the same way (ftrace_set_hash() swaps in the static empty hash).
 */
#ifdef FW_FREE_FILTER_EXPORTED
#define fw_free_filter(ops)	ftrace_free_filter(ops)
#else
static inline void fw_free_filter(struct ftrace_ops *ops)
{
	ftrace_set_filter(ops, NULL, 0, 1);
	ftrace_set_notrace(ops, NULL, 0, 1);
}
#endif

/*
 * Whether a return of the current task may be hooked now, so that its stack
 * can hold a trampoline's address: the graph tracer's return stack is not
 * empty, or a kretprobe (with RETHOOK, a rethook) holds an instance. The walk
 * runs on this task's stacks, and interrupts unhook what they hook before
 * they return, so the answer holds for the whole walk. The empty graph stack
 * is -1 in the array layout (until 6.8), 0 since. Until 5.11 kretprobe
 * instances are in a global hash, not on the task (FW_KRETPROBE_GLOBAL):
 * there the common walk runs, and a chain that holds the trampoline's
 * address is walked again by the one that watches (fw_kretprobe_seen()).
 */
#ifdef FW_GRAPH_RET_STACK_ARRAY
#define FW_GRAPH_STACK_EMPTY	(-1)
#else
#define FW_GRAPH_STACK_EMPTY	0
#endif

static __always_inline bool fw_return_hooks_pending(void)
{
#ifdef CONFIG_FUNCTION_GRAPH_TRACER
	if (READ_ONCE(current->curr_ret_stack) > FW_GRAPH_STACK_EMPTY)
		return true;
#endif
#ifdef CONFIG_RETHOOK
	/* Kretprobes on rethook and fprobe exits. */
	if (READ_ONCE(current->rethooks.first))
		return true;
#endif
#if defined(CONFIG_KRETPROBES) && !defined(CONFIG_KRETPROBE_ON_RETHOOK)
#ifdef FW_KRETPROBE_TASK_LIST
	if (READ_ONCE(current->kretprobe_instances.first))
		return true;
#ifndef FW_KRETPROBE_BRK
	/*
	 * Until the kretprobe trampoline became a BRK (handled with interrupts
	 * masked), it ran its handler in C with them on, and its saved
	 * registers' frame record kept the trampoline's address after the
	 * instance had left the task's list: an interrupt there walks into a
	 * trampoline whose list is empty (6.1: once in 23 587 chains).
	 */
	if (!in_task())
		return true;
#endif
#endif
#endif
	return false;
}

#if defined(CONFIG_KRETPROBES) && !defined(CONFIG_KRETPROBE_ON_RETHOOK) && \
	!defined(FW_KRETPROBE_TASK_LIST)
#define FW_KRETPROBE_GLOBAL
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
static __always_inline u64 fw_user_pac_mask(void)
{
	return 0;
}

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

/* The selftests' timer: 6.13 set the callback with the timer, 7.x dropped hrtimer_init(). */
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
