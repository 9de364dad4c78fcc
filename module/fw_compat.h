/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fw_compat.h - every difference between the arm64 6.1 and 6.12 kernels that
 * framewalk.ko meets, in one place.
 */
#ifndef FW_COMPAT_H
#define FW_COMPAT_H

#include <linux/ftrace.h>
#include <linux/sched.h>
#include <linux/trace.h>
#include <linux/uaccess.h>
#include <asm/asm-extable.h>
#include <asm/insn.h>
#include <asm/pointer_auth.h>

/*
 * 6.1 passes a full pt_regs (DYNAMIC_FTRACE_WITH_REGS); 6.12 passes the
 * smaller ftrace_regs of DYNAMIC_FTRACE_WITH_ARGS, which has accessors.
 */
#ifdef CONFIG_DYNAMIC_FTRACE_WITH_ARGS
static __always_inline unsigned long fw_fregs_fp(struct ftrace_regs *fregs)
{
	return ftrace_regs_get_frame_pointer(fregs);
}

static __always_inline unsigned long fw_fregs_sp(struct ftrace_regs *fregs)
{
	return ftrace_regs_get_stack_pointer(fregs);
}
#else
static __always_inline unsigned long fw_fregs_fp(struct ftrace_regs *fregs)
{
	return fregs->regs.regs[29];
}

static __always_inline unsigned long fw_fregs_sp(struct ftrace_regs *fregs)
{
	return fregs->regs.sp;
}
#endif

/*
 * Load a frame record {fp, lr} in one ldp that cannot oops: a fault jumps to
 * the end with *fault set and lr zeroed, as __get_kernel_nofault() does for
 * one word (which would cost the walk two loads and two error tests per
 * frame). The walk's test for a zero return address catches the fault, and
 * *fault is read only then: the load has no error test of its own. The
 * copy_from_kernel_nofault() load without its call, its pagefault_disable()
 * (a kernel address never sleeps in the fault handler) and its byte loop.
 */
static __always_inline void fw_load_pair_nofault(unsigned long addr, u64 *fp, u64 *lr,
						 int *fault)
{
	/*
	 * The fixup names err and lr by number. lr lands in x30, where
	 * xpaclri strips it; err is carried from frame to frame, never reset.
	 * No early clobber: one instruction reads addr before it writes, so fp
	 * may land in addr's register and the walk moves one value less.
	 */
	register int err asm("w9") = *fault;
	register u64 b asm("x30");
	u64 a;

	asm volatile("1:	ldp	%[a], %[b], [%[addr]]\n"
		     "2:\n"
		     _ASM_EXTABLE_KACCESS_ERR_ZERO(1b, 2b, w9, x30)
		     : [err] "+r" (err), [a] "=r" (a), [b] "=r" (b)
		     : [addr] "r" (addr));
	*fault = err;
	*fp = a;
	*lr = b;
}

/*
 * Saved LRs of non-leaf functions are PAC-signed. xpaclri strips x30 on both
 * kernels in one instruction (a NOP without pointer authentication); 6.1's
 * ptrauth_strip_insn_pac() tests bit 55 and masks in three.
 */
static __always_inline u64 fw_strip_pac(u64 lr)
{
	register u64 x30 asm("x30") = lr;

	asm("hint	#7" : "+r" (x30));	/* xpaclri */
	return x30;
}

/*
 * 6.7 added the list of event systems an instance starts with. Kbuild
 * detects it in the headers (FW_TRACE_ARRAY_SYSTEMS), since distributions
 * backport such changes regardless of version numbers.
 */
#ifdef FW_TRACE_ARRAY_SYSTEMS
#define fw_trace_array_get(name)	trace_array_get_by_name(name, NULL)
#else
#define fw_trace_array_get(name)	trace_array_get_by_name(name)
#endif

/*
 * ftrace hands the callback the address of the `bl ftrace_caller` in the
 * patched entry: after `mov x9, lr`, and after `bti c` when BTI is built in.
 */
#define FW_CALLSITE_OFFSET \
	(AARCH64_INSN_SIZE * (IS_ENABLED(CONFIG_ARM64_BTI_KERNEL) ? 2 : 1))

/*
 * What the kernel's unwinder (stack_trace_save()) recovers behind return
 * trampolines, the same on 6.1 (unwind_next()) and 6.12
 * (kunwind_recover_return_address()) in arch/arm64/kernel/stacktrace.c: the
 * graph tracer's return_to_handler through ftrace_graph_ret_addr(), and the
 * kretprobe trampoline through kretprobe_find_ret_addr(), which is
 * rethook_find_ret_addr() where kretprobes run on rethook; that list is the
 * one fprobe exits use, so their rethook trampoline is recovered with it.
 * Neither kernel's arm64 selects HAVE_RETHOOK, so neither has fprobe.
 */
#define FW_UNWINDER_RECOVERS_GRAPH	IS_ENABLED(CONFIG_FUNCTION_GRAPH_TRACER)
#define FW_UNWINDER_RECOVERS_KRETPROBE \
	(IS_ENABLED(CONFIG_KRETPROBES) && IS_ENABLED(CONFIG_ARCH_CORRECT_STACKTRACE_ON_KRETPROBE))
#define FW_UNWINDER_RECOVERS_RETHOOK \
	(FW_UNWINDER_RECOVERS_KRETPROBE && IS_ENABLED(CONFIG_KRETPROBE_ON_RETHOOK))

/*
 * Whether a return of the current task may be hooked now, so that its stack
 * can hold a trampoline's address: the graph tracer's return stack is not
 * empty, or a kretprobe (on 6.12 with RETHOOK, a rethook) holds an instance.
 * The walk runs on this task's stacks, and interrupts unhook what they hook
 * before they return, so the answer holds for the whole walk. The empty
 * graph stack is -1 in the array layout (until 6.8), 0 since.
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
	if (READ_ONCE(current->kretprobe_instances.first))
		return true;
#endif
	return false;
}

#endif /* FW_COMPAT_H */
