/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fw_recursion.h - the callback's recursion guard and the per-CPU context
 * index it hands out, shared with the selftests' oracle module.
 */
#ifndef FW_RECURSION_H
#define FW_RECURSION_H

#include <linux/bits.h>
#include <linux/ftrace.h>
#include <linux/hardirq.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#ifdef FW_TRACE_RECURSION_H
#include <linux/trace_recursion.h>
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

/**
 * fw_recursion_lock() - take the recursion guard of the running context
 * @ip: the hit's call site, as ftrace's guard takes it
 * @parent_ip: its return address, likewise
 * @busy: the per-CPU context bits where the module keeps them (5.10)
 *
 * Also disables preemption, which the per-CPU state needs.
 *
 * Return: the context index, the slot of struct fw_cpu, or -1 where this
 * context already holds the guard.
 */
static __always_inline int fw_recursion_lock(unsigned long ip, unsigned long parent_ip,
					     unsigned long *busy)
{
	return ftrace_test_recursion_trylock(ip, parent_ip) - TRACE_FTRACE_START;
}

/**
 * fw_recursion_unlock() - drop what fw_recursion_lock() took
 * @ctx: the context index it returned
 * @busy: the same per-CPU bits
 */
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

#endif /* FW_RECURSION_H */
