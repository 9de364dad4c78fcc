/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fw_recover.h - whether a hit's task may have hooked returns on its stack,
 * and the walk (fw_recover.c) that then looks behind the trampolines.
 */
#ifndef FW_RECOVER_H
#define FW_RECOVER_H

#include <linux/sched.h>

#include "framewalk.h"

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

/**
 * fw_return_hooks_pending() - whether a return of the current task may be
 *	hooked now
 * @own: a kretprobe hooks the hit's own return (its parent was found behind
 *	the trampoline): that instance, the task's newest, hooks no return
 *	above the hit's parent
 * @graph_own: the function graph holds the hit's own return (fprobe's entry
 *	handler runs after it was pushed): its return stack is not asked, and
 *	the walk watches for the graph's trampoline instead (fw_trampoline_seen())
 *
 * Then its stack can hold a trampoline's address and the walk must be
 * fw_walk_hooked(). The answer holds for the whole walk (see above).
 *
 * Return: true if the graph tracer's return stack is not empty or a
 * kretprobe or rethook may hold an instance of this task.
 */
static __always_inline bool fw_return_hooks_pending(bool own, bool graph_own)
{
#ifdef CONFIG_FUNCTION_GRAPH_TRACER
	if (!graph_own && READ_ONCE(current->curr_ret_stack) > FW_GRAPH_STACK_EMPTY)
		return true;
#endif
#ifdef CONFIG_RETHOOK
	/* Kretprobes on rethook and fprobe exits. */
	if (READ_ONCE(current->rethooks.first))
		return true;
#endif
#if defined(CONFIG_KRETPROBES) && !defined(CONFIG_KRETPROBE_ON_RETHOOK)
#ifdef FW_KRETPROBE_TASK_LIST
	{
		struct llist_node *first = READ_ONCE(current->kretprobe_instances.first);

		if (first && (!own || READ_ONCE(first->next)))
			return true;
	}
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

void fw_recovery_init(void);
unsigned int fw_walk_hooked(unsigned long callsite, unsigned long parent_ip,
			    unsigned long fp, struct fw_context *slot,
			    unsigned int nr_stacks, unsigned int depth);
extern unsigned long fw_kretprobe_trampoline;
extern unsigned long fw_return_to_handler;

/**
 * fw_trampoline_seen() - whether a walk met a trampoline
 * @tramp: the trampoline's address
 * @parent_ip: the hit's return address into its caller
 * @ret: the ancestors' return addresses the walk found
 * @nr: how many
 *
 * Where nothing on the task says whether a return above the hit is hooked
 * (5.10's kretprobes; the function graph while it holds the hit's own return
 * for fprobe), the walk is looked through instead: a compare a frame.
 *
 * Return: true if the walk must be done again by fw_walk_hooked().
 */
static __always_inline bool fw_trampoline_seen(unsigned long tramp, unsigned long parent_ip,
					       const fw_u64 *ret, unsigned int nr)
{
	unsigned int i;

	if (unlikely(parent_ip == tramp))
		return true;
	for (i = 0; i < nr; i++)
		if (unlikely(ret[i] == tramp))
			return true;
	return false;
}

#endif /* FW_RECOVER_H */
