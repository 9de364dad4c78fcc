/* SPDX-License-Identifier: GPL-2.0 */
/*
 * framewalk.h - declarations shared by the framewalk.ko source files.
 */
#ifndef FRAMEWALK_H
#define FRAMEWALK_H

#include <linux/percpu.h>
#include "fw_walk.h"

/* Upper bound of the depth parameter: the size of the per-CPU frame buffers. */
#define FW_DEPTH_MAX	64

/*
 * Per-CPU counters. Written only by the local CPU in the callback; summed by
 * the reader, so the totals may lag a hit that is in flight.
 */
struct fw_stats {
	u64 hits;		/* callback entered for a filtered function */
	u64 events;		/* chain events written */
	u64 recursion;		/* skipped: the callback was already running in this context */
	u64 rcu_off;		/* skipped: RCU was not watching (idle, early entry) */
	u64 stops[FW_STOP_NR];	/* how each written chain ended */
};

DECLARE_PER_CPU(struct fw_stats, fw_stats);

int fw_stats_init(void);
void fw_stats_exit(void);

#endif /* FRAMEWALK_H */
