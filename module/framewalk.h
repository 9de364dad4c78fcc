/* SPDX-License-Identifier: GPL-2.0 */
/*
 * framewalk.h - declarations shared by the framewalk.ko source files.
 */
#ifndef FRAMEWALK_H
#define FRAMEWALK_H

#include <linux/percpu.h>
#include <linux/trace_recursion.h>
#include "fw_walk.h"

/* Upper bound of the depth parameter: the size of the per-CPU frame buffers. */
#define FW_DEPTH_MAX	64

/*
 * Entries of the kernel's stack trace a recovery takes: the frames below the
 * traced function (callback, ftrace_caller), the parent and every ancestor.
 */
#define FW_TRACE_MAX	(FW_DEPTH_MAX + 32)

/*
 * Contexts a callback can nest in on one CPU, as the ftrace recursion lock
 * numbers them: NMI, hardirq, softirq, task, and the one re-entry it lets
 * through while an interrupt has not yet raised the preempt count
 * (TRACE_CTX_TRANSITION).
 */
#define FW_CONTEXTS	(TRACE_CTX_TRANSITION + 1)

/* Counters of one context on one CPU; the reader sums them, so totals may lag a hit in flight. */
struct fw_stats {
	u64 hits;		/* callback entered for a filtered function */
	u64 events;		/* chain events written */
	u64 recursion;		/* skipped, already running; a slot's stays 0, see fw_cpu */
	u64 rcu_off;		/* event on but skipped: RCU was not watching (idle, early entry) */
	u64 stops[FW_STOP_NR];	/* how each written chain ended */
};

/*
 * What one context of one CPU owns: the chain being written (return
 * addresses and record addresses in the two arrays the event stores), the
 * stacks it may visit, and its counters. The holder of a context's recursion
 * lock is the only writer of its slot, so a nested walk never overwrites the
 * frames of the one it interrupted, and the counters take plain increments:
 * no atomic read-modify-write on the hot path, and no count lost to an
 * interrupt.
 */
struct fw_context {
	fw_u64 rets[FW_DEPTH_MAX];
	fw_u64 records[FW_DEPTH_MAX];
	struct fw_stack_range stacks[2];
	struct fw_stats stats;
	unsigned long trace[FW_TRACE_MAX];	/* the kernel's, for fw_recover_chain() */
};

/*
 * Per-CPU state, one slot per context. A refused entry owns no slot; it
 * counts in recursion with an interrupt-safe this_cpu_inc().
 */
struct fw_cpu {
	struct fw_context slots[FW_CONTEXTS];
	u64 recursion;
};

int fw_stats_init(struct fw_cpu __percpu *pcpu);
void fw_stats_exit(void);

#endif /* FRAMEWALK_H */
