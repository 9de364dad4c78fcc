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
 * What the exit hook keeps of one call, in its kretprobe instance: written
 * at the hook's entry (a BRK on the function's first instruction, before
 * the ftrace hook), finished by the callback that claims it, read at the
 * return. time is NULL until a callback claimed the call: its return then
 * charges nothing and counts in latency_untimed.
 */
struct fw_lat_call {
	struct task_struct *task;
	unsigned long ip;		/* the function, once claimed; 0 before */
	unsigned long fp;		/* x29 at entry: the parent's frame record */
	u64 entry;			/* trace_clock_local() at the exit hook's entry */
	struct fw_agg_time *time;	/* the chain's durations */
	unsigned int gen;		/* fw_agg_gen when it was counted */
};

DECLARE_STATIC_KEY_FALSE(fw_latency_on);
DECLARE_PER_CPU(struct kretprobe_instance *, fw_lat_pending);
extern unsigned long fw_kretprobe_trampoline;

/**
 * fw_lat_claim() - the timed call a hit belongs to
 * @h: the hit; its parent_ip becomes the real return address
 *
 * The exit hook ran on this CPU just before the ftrace hook of the same call
 * and left its instance pending; its return address is the kretprobe
 * trampoline now. An interrupt between the two hooks returns before the
 * callback runs, but a timed call inside it takes the pending place, and a
 * migration leaves it on the other CPU: the task and the parent's frame
 * record tell the instance is this call's, and a call not claimed is not
 * timed, never charged to another's chain.
 *
 * Return: the call to time, NULL if the hit is not a timed call's.
 */
static __always_inline struct fw_lat_call *fw_lat_claim(struct fw_hook_hit *h)
{
	struct kretprobe_instance *ri;
	struct fw_lat_call *call;

	if (!static_branch_unlikely(&fw_latency_on) || h->parent_ip != fw_kretprobe_trampoline)
		return NULL;
	ri = this_cpu_xchg(fw_lat_pending, NULL);
	if (!ri)
		return NULL;
	call = (struct fw_lat_call *)ri->data;
	if (call->task != current || call->fp != h->fp)
		return NULL;
	h->parent_ip = (unsigned long)ri->ret_addr;
	call->ip = h->child;
	return call;
}

/**
 * fw_lat_counted() - tie a claimed call to the chain its hit counted
 * @call: from fw_lat_claim()
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
int fw_lat_check(struct ftrace_ops *ops);
u64 fw_lat_missed(void);

/* The return side's counters, per CPU: a return may land on any. */
struct fw_lat_stats {
	u64 returns;	/* charged to their chain */
	u64 untimed;	/* their entry was not counted: no chain to charge */
	u64 stale;	/* their chain's table was cleared since */
};

DECLARE_PER_CPU(struct fw_lat_stats, fw_lat_stats);

#endif /* FW_LATENCY_H */
