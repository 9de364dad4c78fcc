/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fw_hook.h - where the ftrace hook leaves the callback on the stack, for the
 * patchable-entry hook and the -pg/_mcount one, as the data the walk starts from.
 */
#ifndef FW_HOOK_H
#define FW_HOOK_H

#include "fw_compat.h"

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

/**
 * fw_hook_locate() - where the hook stands, for the patchable entry
 * @h: set to the hit's call site, child, parent, first record and sp
 * @ip: the call site ftrace reports
 * @parent_ip: the return address into the caller
 * @regs: what the hook saved
 *
 * Return: true; false only for the -pg hook, whose record may not be found.
 */
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

#endif /* FW_HOOK_H */
