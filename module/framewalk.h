/* SPDX-License-Identifier: GPL-2.0 */
/*
 * framewalk.h - declarations shared by the framewalk.ko source files.
 */
#ifndef FRAMEWALK_H
#define FRAMEWALK_H

#include <linux/jump_label.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include "fw_compat.h"
#include "fw_recursion.h"
#include "fw_walk.h"

/* Upper bound of the depth parameter: the size of the per-CPU frame buffers. */
#define FW_DEPTH_MAX	64

/*
 * Entries of the kernel's stack trace a recovery takes: the frames below the
 * traced function (callback, ftrace_caller), the parent and every ancestor.
 */
#define FW_TRACE_MAX	(FW_DEPTH_MAX + 32)

/* Upper bound of the user parameter: the size of the per-CPU user frame buffers. */
#define FW_USER_MAX	64

/* Counters of one context on one CPU; the reader sums them, so totals may lag a hit in flight. */
struct fw_stats {
	u64 hits;		/* callback entered for a filtered function */
	u64 events;		/* chain events written */
	u64 aggregated;		/* chains counted in the aggregate */
	u64 aggregate_dropped;	/* chains not counted: their table was full */
	u64 recursion;		/* skipped, already running; a slot's stays 0, see fw_cpu */
	u64 rcu_off;		/* event or aggregate on but skipped: RCU was not watching */
	u64 filtered;		/* not walked: pid or notrace_pid excludes the process */
	u64 timed;		/* calls latency mode tied to their counted chain */
	/*
	 * How each walked chain ended: the kernel stops' sum is walks; where
	 * user=N is set, each walk also ends its user frames with a user stop,
	 * counted at user_stops[stop - FW_STOP_USER_FIRST].
	 */
	u64 stops[FW_STOP_KERNEL_NR];
	u64 user_stops[FW_STOP_USER_NR];
};

struct fw_agg_chain;
struct fw_agg_time;

/*
 * The chains one context of one CPU counted: an open-addressing hash table
 * of mask + 1 slots, at most aggregate_entries of them used, and the
 * ancestors' return addresses in words, allocated in order of first hit.
 * Here because every context embeds one; what fills it is fw_aggregate.h's.
 */
struct fw_agg_table {
	struct fw_agg_chain *slots;
	unsigned long *words;
	struct fw_agg_time *time;	/* by fw_agg_chain.nth, from latency's first start */
	unsigned int mask;
	unsigned int last;		/* slot of the chain counted last */
	unsigned int used;
	unsigned int nr_words;
	unsigned int used_words;
};

/*
 * A hit's user frames, as the event and the aggregate keep them; walked
 * only where fw_user_walking is on, a patched-out branch with user=0.
 * Outside a walk, none: nr 0 and stop user_off, what every event of a hit
 * with user=0 copies. The bytes are in the event's order (fw_trace.h).
 */
struct fw_user_chain {
	const fw_u64 *frames;
	u8 stop;		/* enum fw_stop, a user stop */
	u8 nr;
	u8 lr;			/* frames[1] is the lr register, not a record's */
};

/*
 * What one context of one CPU owns: the chain being written (return
 * addresses and record addresses in the two arrays the event stores), the
 * stacks it may visit, its counters and its aggregation table. The holder of
 * a context's recursion lock is the only writer of its slot, so a nested
 * walk never overwrites the frames of the one it interrupted, and the
 * counters and counts take plain increments: no atomic read-modify-write on
 * the hot path, and no count lost to an interrupt.
 */
struct fw_context {
	fw_u64 ancestors[FW_DEPTH_MAX];
	fw_u64 records[FW_DEPTH_MAX];
	fw_u64 user[FW_USER_MAX];	/* the user frames, innermost (the user pc) first */
	/*
	 * The user walk of the hit being written, which the event reads here
	 * rather than as one more argument on every hit's path; fw_emit_chain()
	 * empties it after the event, so no event shows another hit's frames.
	 */
	struct fw_user_chain user_chain;
	struct fw_stack_range stacks[2];
	struct fw_stats stats;
	struct fw_agg_table agg;	/* the chains it counted (aggregation mode) */
	unsigned long trace[FW_TRACE_MAX];	/* the kernel's, for fw_recover_chain() */
	/* What fw_walk_hooked() found besides the frames: off the common path's stack. */
	u64 recovered;
	unsigned int tramp;
	unsigned int stop;
};

/*
 * Per-CPU state, one slot per context. A refused entry owns no slot; it
 * counts in recursion with an interrupt-safe this_cpu_inc().
 */
struct fw_cpu {
	struct fw_context slots[FW_CONTEXTS];	/* one per context of fw_recursion_lock() */
	u64 recursion;
	unsigned long busy;	/* the contexts holding a slot, where the module keeps them */
};

/* fw_hit.c: the callback, the per-CPU state it writes and the ops it reports for. */
extern struct fw_cpu __percpu *fw_pcpu;
extern struct ftrace_ops *fw_live_ops;
void fw_callback(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
		 struct fw_regs *regs);

/* fw_ops.c: the ftrace_ops and the filter it was built from. */
int fw_ops_start(void);
void fw_ops_stop(void);

/* fw_params.c: the walk's and the event's parameters, and what all setters share. */
extern struct mutex fw_lock;
extern bool fw_ready;
extern bool fw_load_refused;
extern unsigned int fw_depth;
extern bool fw_records;
extern char *fw_instance;

struct dentry;

int fw_stats_init(struct fw_cpu __percpu *pcpu, struct dentry **dir);
void fw_stats_exit(void);

/* fw_user.c: the user-space frames behind a hit. */
extern unsigned int fw_user;
DECLARE_STATIC_KEY_FALSE(fw_user_walking);
void fw_user_chain_walk(struct fw_context *slot);

/**
 * fw_user_chain_empty() - no user frames in @slot
 * @slot: the context whose user_chain to empty
 *
 * The state of a slot's user_chain outside a user walk, which every event of
 * a hit with user=0 copies.
 */
static __always_inline void fw_user_chain_empty(struct fw_context *slot)
{
	slot->user_chain.stop = FW_STOP_USER_OFF;
	slot->user_chain.nr = 0;
	slot->user_chain.lr = 0;
}

const char *fw_trim(const char *val, size_t *len);
int fw_refuse(void);
bool fw_param_uint(const char *name, const char *val, unsigned int max,
		   unsigned int *num, int *ret);

DECLARE_STATIC_KEY_FALSE(fw_pid_filtering);
bool fw_pid_skip_slow(void);

/**
 * fw_pid_skip() - whether pid or notrace_pid excludes the hit's process
 *
 * A patched-out branch while no list is set, so the common hit pays nothing.
 *
 * Return: true if the hit is not to be walked.
 */
static __always_inline bool fw_pid_skip(void)
{
	return static_branch_unlikely(&fw_pid_filtering) && fw_pid_skip_slow();
}

#endif /* FRAMEWALK_H */
