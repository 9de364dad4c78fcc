/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fw_arm64.h - the walk of arm64 frame records {x29, x30} on the current
 * task's and IRQ stacks: where the stacks are and the record layout, for
 * lib/fw_walk.h's walk with fw_arm64_walk.h's record access.
 */
#ifndef FW_ARM64_H
#define FW_ARM64_H

#include <linux/sched/task_stack.h>
#include <asm/stack_pointer.h>

#include "framewalk.h"
#include "fw_compat.h"
#include "fw_arm64_walk.h"

/**
 * fw_stacks() - the stacks a walk from here may visit, innermost first
 * @st: the ranges to fill, room for two
 *
 * On an IRQ stack the chain continues on the interrupted task's stack, never
 * the other way. The IRQ stack's bounds follow from sp: with VMAP_STACK each
 * is IRQ_STACK_SIZE bytes allocated at THREAD_ALIGN (arch/arm64/kernel/irq.c),
 * so the per-CPU irq_stack_ptr, which is not exported, is not needed.
 *
 * Return: the number of ranges in @st, 1 or 2.
 */
static __always_inline unsigned int fw_stacks(struct fw_stack_range *st)
{
	unsigned long low = (unsigned long)task_stack_page(current);
	unsigned long sp = current_stack_pointer;
	unsigned int n = 0;

	if (IS_ENABLED(CONFIG_VMAP_STACK) && !in_nmi() &&
	    (sp < low || sp >= low + THREAD_SIZE)) {
		st[n].lo = ALIGN_DOWN(sp, IRQ_STACK_SIZE);
		st[n].hi = st[n].lo + IRQ_STACK_SIZE;
		n++;
	}
	st[n].lo = low;
	st[n].hi = low + THREAD_SIZE;
	return n + 1;
}

/**
 * fw_cfg() - lib/fw_walk.h's configuration for arm64's frame records
 * @slot: the context whose stacks fw_stacks() filled
 * @nr_stacks: how many it filled
 *
 * Return: the walk's configuration: {x29, x30} records, 8-byte words and
 * alignment, on @slot's stacks.
 */
static __always_inline struct fw_walk_cfg fw_cfg(struct fw_context *slot, unsigned int nr_stacks)
{
	return (struct fw_walk_cfg){
		.word_size = 8,
		.lr_off = 8,
		.align = 8,
		.stacks = slot->stacks,
		.nr_stacks = nr_stacks,
	};
}

#endif /* FW_ARM64_H */
