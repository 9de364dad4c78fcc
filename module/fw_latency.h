/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fw_latency.h - latency mode: how the callback's hit claims the exit hook
 * that times its call, inlined into fw_hit.c, and what fw_latency.c offers.
 */
#ifndef FW_LATENCY_H
#define FW_LATENCY_H

#include <linux/jump_label.h>
#include <linux/kprobes.h>
#include <linux/percpu.h>
#include <linux/sched.h>

#include "fw_aggregate.h"
#include "fw_hook.h"

/*
 * The exit hook: fprobe where the kernel has it on the function graph for
 * modules (6.14 on, with CONFIG_FPROBE: 7.2 here), whose entry handler is
 * called from the ftrace hook itself and hands the walk what the ftrace
 * callback gets; else a kretprobe, a BRK on the function's first
 * instruction before the ftrace hook.
 */
#if defined(FW_FPROBE_FREGS) && defined(CONFIG_FPROBE) && defined(FW_FTRACE_REGS)
#define FW_LAT_FPROBE
#include <linux/fprobe.h>
#endif

/*
 * What the exit hook keeps of one call (a kretprobe instance's data, or
 * fprobe's on the function graph's return stack): written at the hook's
 * entry, finished by the hit that claims it, read at the return. time is
 * NULL until a hit counted the call: its return then charges nothing and
 * counts in latency_untimed. epoch tells fprobe's data of a module loaded
 * before (a call in flight across an unload and a load) from this one's.
 */
struct fw_lat_call {
	struct task_struct *task;
	unsigned long ip;		/* the function, once claimed; 0 before */
	unsigned long fp;		/* x29 at entry: the parent's frame record */
	u64 entry;			/* trace_clock_local() at the exit hook's entry */
	u64 epoch;			/* fw_lat_epoch of the module that stamped it */
	struct fw_agg_time *time;	/* the chain's durations */
	unsigned int gen;		/* fw_agg_gen when it was counted */
};

void fw_timed_hit(unsigned long ip, unsigned long parent_ip, struct fw_regs *regs,
		  struct fw_lat_call *call);

DECLARE_STATIC_KEY_FALSE(fw_latency_on);
DECLARE_PER_CPU(struct kretprobe_instance *, fw_lat_pending);
extern unsigned long fw_kretprobe_trampoline;
int fw_lat_return(struct kretprobe_instance *ri, struct pt_regs *regs);

#if defined(FW_KRETPROBE_TASK_LIST) && !defined(CONFIG_KRETPROBE_ON_RETHOOK)
/**
 * fw_kretprobe_hooking() - the kretprobe instance that hooks the hit's return
 *
 * The task's instances are listed newest first: where parent_ip is the
 * trampoline, the newest hooks the hit's own return (an interrupt between
 * the kretprobe's BRK and the ftrace hook returned, instances and all,
 * before the hook ran). Any kretprobe's, not only latency mode's. Until
 * 5.11 the instances are in a global hash whose lock is not exported:
 * latency mode's own entry handler leaves it pending on the CPU there, and
 * an interrupt between the two hooks that times a call of its own takes the
 * pending place, or a migration leaves it on the other CPU; the task and
 * the parent's frame record tell it is this call's.
 *
 * Return: the instance, NULL if none is known.
 */
static __always_inline struct kretprobe_instance *fw_kretprobe_hooking(void)
{
	struct llist_node *first = READ_ONCE(current->kretprobe_instances.first);

	return first ? container_of(first, struct kretprobe_instance, llist) : NULL;
}

/**
 * fw_kretprobe_is_latency() - whether an instance is latency mode's
 * @ri: a kretprobe instance
 *
 * Only then does its data hold a struct fw_lat_call.
 *
 * Return: true if latency mode's exit hook made @ri.
 */
static __always_inline bool fw_kretprobe_is_latency(struct kretprobe_instance *ri)
{
	struct kretprobe *rp = get_kretprobe(ri);

	return rp && rp->handler == fw_lat_return;
}

/* Two kretprobes on one function (a filter change's overlap): that many instances deep. */
#define FW_KRETPROBE_STACKED	4

/**
 * fw_kretprobe_ret_addr() - the real return address behind an instance
 * @ri: the newest instance of the task, which hooks the hit's return
 *
 * Where two kretprobes hook the same return, the later one's instance
 * saved the earlier one's trampoline: the real address is in the first
 * older instance that holds another, as the kernel's unwinder finds it.
 *
 * Return: the return address, the trampoline if none was found.
 */
static __always_inline unsigned long fw_kretprobe_ret_addr(struct kretprobe_instance *ri)
{
	unsigned long tramp = READ_ONCE(fw_kretprobe_trampoline);
	struct llist_node *node = &ri->llist;
	unsigned int i;

	for (i = 0; node && i < FW_KRETPROBE_STACKED; i++, node = READ_ONCE(node->next)) {
		ri = container_of(node, struct kretprobe_instance, llist);
		if ((unsigned long)ri->ret_addr != tramp)
			return (unsigned long)ri->ret_addr;
	}
	return tramp;
}
#else
static __always_inline struct kretprobe_instance *fw_kretprobe_hooking(void)
{
	return this_cpu_xchg(fw_lat_pending, NULL);
}

static __always_inline bool fw_kretprobe_is_latency(struct kretprobe_instance *ri)
{
	return true;
}

static __always_inline unsigned long fw_kretprobe_ret_addr(struct kretprobe_instance *ri)
{
	return (unsigned long)ri->ret_addr;
}
#endif

/**
 * fw_lat_fprobe_on() - whether fprobe's entry handler makes the hits now
 *
 * Then the ftrace callback leaves them to it: one walk a call.
 *
 * Return: true while latency mode times calls through fprobe.
 */
static __always_inline bool fw_lat_fprobe_on(void)
{
#ifdef FW_LAT_FPROBE
	return static_branch_unlikely(&fw_latency_on);
#else
	return false;
#endif
}

/**
 * fw_kretprobe_parent() - the real parent of a hit whose return a kretprobe hooks
 * @h: the hit, parent_ip the kretprobe trampoline; set to the real return
 *	address where it is found
 *
 * The kretprobe's BRK on the function's first instruction ran before the
 * ftrace hook and replaced the return address. Where the instance is
 * latency mode's, the hit claims the call it stamped, to tie the chain it
 * counts to the duration.
 *
 * Return: the call to time, NULL if the hit is not one latency mode times.
 */
static __always_inline struct fw_lat_call *fw_kretprobe_parent(struct fw_hook_hit *h)
{
	struct kretprobe_instance *ri = fw_kretprobe_hooking();
	struct fw_lat_call *call = NULL;

	if (!ri)
		return NULL;
	/* While latency turns on or off the parent is found, and nothing claimed. */
	if (fw_kretprobe_is_latency(ri) && static_branch_likely(&fw_latency_on)) {
		call = (struct fw_lat_call *)ri->data;
		if (call->task != current || call->fp != h->fp || call->ip)
			call = NULL;
		else
			call->ip = h->child;
	}
	h->parent_ip = fw_kretprobe_ret_addr(ri);
	return call;
}

/**
 * fw_lat_counted() - tie a claimed call to the chain its hit counted
 * @call: from fw_kretprobe_parent(), or fprobe's entry handler
 * @t: the table that counted it
 * @c: the chain, NULL where the table had no room
 */
static __always_inline void fw_lat_counted(struct fw_lat_call *call,
					   const struct fw_agg_table *t,
					   const struct fw_agg_chain *c)
{
	if (!c || !t->time)
		return;
	call->gen = READ_ONCE(fw_agg_gen);
	call->time = &t->time[c->nth];
}

int fw_lat_start(void);
void fw_lat_stop(void);
int fw_lat_prepare(struct ftrace_ops *next);
void fw_lat_commit(void);
void fw_lat_abort(void);
u64 fw_lat_missed(void);

/* The return side's counters, per CPU: a return may land on any. */
struct fw_lat_stats {
	u64 returns;	/* charged to their chain */
	u64 untimed;	/* their entry was not counted: no chain to charge */
	u64 stale;	/* their chain's table was cleared since */
};

DECLARE_PER_CPU(struct fw_lat_stats, fw_lat_stats);

#endif /* FW_LATENCY_H */
