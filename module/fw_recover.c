// SPDX-License-Identifier: GPL-2.0
/*
 * fw_recover.c - the walk of a task whose returns a tracer hooks: it finds
 * the return trampolines (function_graph, kretprobes, rethook) and looks
 * behind them with the kernel's own unwinder, where that unwinder can, which
 * a test at load finds out (the recovery parameter).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/stacktrace.h>
#include <linux/string.h>

#include "fw_arm64.h"
#include "fw_hook.h"
#include "fw_recover.h"

/*
 * Return trampolines, found by name at load; 0 where the kernel has none.
 * The kretprobe one is fw_hit.c's too where the task cannot say whether it
 * holds an instance (FW_KRETPROBE_GLOBAL).
 */
/* Also fw_trampoline_seen()'s, for the hits fprobe's entry handler makes. */
unsigned long fw_return_to_handler __read_mostly;
/* Also latency's: a hit whose return it hooked has it as parent_ip. */
unsigned long fw_kretprobe_trampoline __read_mostly;
static unsigned long fw_rethook_trampoline;

/*
 * The trampolines behind which walks recover the real return address, as
 * the kernel's unwinder does on this kernel: "graph", "kretprobe",
 * "rethook", comma-separated. Read-only, so users and tests know where
 * stop=trampoline can still appear.
 */
static char fw_recovery[32];
module_param_string(recovery, fw_recovery, sizeof(fw_recovery), 0444);
MODULE_PARM_DESC(recovery, "Trampolines walks see behind: graph,kretprobe,rethook (read-only)");

/* The trampolines' addresses, copied into the walk so the loop keeps them in registers. */
struct fw_trampolines {
	unsigned long graph;
	unsigned long kretprobe;
	unsigned long rethook;
};

static __always_inline bool fw_is_trampoline(const struct fw_trampolines *tramps,
					     unsigned long ret)
{
	return ret == tramps->graph || ret == tramps->kretprobe || ret == tramps->rethook;
}

/*
 * function_graph, kretprobes and rethook (fprobe exits) replace saved return
 * addresses with their trampolines. The hooked walk only notices one and
 * stops there; fw_recover_chain() then looks behind it.
 */
static __always_inline int fw_trampoline(void *ctx, fw_u64 record, fw_u64 *ret)
{
	return fw_is_trampoline(ctx, *ret);
}

static const struct fw_walk_ops fw_walk_ops_hooked = {
	.load_record = fw_load_record,
	.fixup_ret = fw_fixup_ret,
	.trampoline = fw_trampoline,
	.boundary = FW_BOUNDARY,
};

/* Which trampoline @ret is; FW_TRAMP_NONE for an ordinary return address. */
static enum fw_tramp fw_tramp_kind(const struct fw_trampolines *tramps, unsigned long ret)
{
	if (ret == tramps->graph)
		return FW_TRAMP_GRAPH;
	if (ret == tramps->kretprobe)
		return FW_TRAMP_KRETPROBE;
	if (ret == tramps->rethook)
		return FW_TRAMP_RETHOOK;
	return FW_TRAMP_NONE;
}

/*
 * The kernel's unwinder at the same hit, aligned with the walk: trace[j] is
 * what it found for frame j. A trampoline is replaced only while every
 * ordinary frame before it equalled the kernel's, so the alignment is proven
 * up to there.
 */
struct fw_recovery {
	const struct fw_trampolines *tramps;
	const unsigned long *trace;
	unsigned int nr;
	unsigned int pos;	/* the frame the walk is at */
	bool aligned;
};

static __always_inline int fw_trampoline_recover(void *ctx, fw_u64 record, fw_u64 *ret)
{
	struct fw_recovery *r = ctx;
	unsigned int pos = r->pos++;
	unsigned long real = pos < r->nr ? r->trace[pos] : 0;

	if (!fw_is_trampoline(r->tramps, *ret)) {
		if (*ret != real)
			r->aligned = false;
		return 0;
	}
	if (!r->aligned || !real || fw_is_trampoline(r->tramps, real))
		return 1;
	*ret = real;
	return 2;
}

static const struct fw_walk_ops fw_walk_ops_recover = {
	.load_record = fw_load_record,
	.fixup_ret = fw_fixup_ret,
	.trampoline = fw_trampoline_recover,
	.boundary = FW_BOUNDARY,
};

/*
 * The rare walk that met a return trampoline: take the kernel's own stack
 * trace, which recovers the addresses behind function_graph and kretprobe
 * trampolines (and rethook's where kretprobes run on it), and walk again
 * with it beside the records; slot->recovered marks the frames it fixed,
 * slot->tramp names the trampoline where the walk still ends at one. The
 * trace holds the `bl ftrace_caller` return (ip + 4), then parent_ip, then
 * the walk's frame j.
 * stack_trace_save() is traced code, called with the recursion lock held: a
 * filtered function inside it is refused, or re-enters once in the
 * transition context, which has its own slot. The stop stays trampoline,
 * with tramp naming it, where the kernel could not see behind it either; the
 * first walk's @nr frames stand where the two traces do not line up.
 */
static noinline enum fw_stop fw_recover_chain(const struct fw_hook_hit *h,
					      struct fw_context *slot,
					      const struct fw_walk_cfg *cfg,
					      const struct fw_trampolines *tramps,
					      unsigned int depth, unsigned int *nr)
{
	struct fw_recovery r = { .tramps = tramps, .aligned = true };
	enum fw_stop stop = FW_STOP_TRAMPOLINE;
	unsigned long *trace = slot->trace;
	unsigned int n, i;

	n = stack_trace_save(trace, FW_TRACE_MAX, 0);
	for (i = 0; i + 1 < n; i++)
		if (trace[i] == h->callsite + AARCH64_INSN_SIZE)
			break;
	if (i + 1 < n && trace[i + 1] == h->parent_ip) {
		r.trace = trace + i + 2;
		r.nr = n - i - 2;
		*nr = fw_walk_native(cfg, &fw_walk_ops_recover, &r, h->fp, slot->ancestors,
				     slot->records, &slot->recovered, depth, &stop);
	}
	if (stop == FW_STOP_TRAMPOLINE)
		slot->tramp = fw_tramp_kind(tramps, slot->ancestors[*nr - 1]);
	return stop;
}

/**
 * fw_walk_hooked() - walk a chain whose returns a tracer may hook
 * @callsite: where the hook stands (struct fw_hook_hit), to align the
 *	kernel's own stack trace on
 * @parent_ip: the traced function's return address into its caller
 * @fp: the first frame record to walk, the parent's
 * @slot: the hit's context: frames, stop, trampoline and recovered bits
 * @nr_stacks: how many of @slot's stacks the walk may visit
 * @depth: the most ancestors to walk
 *
 * It watches for the return trampolines and looks behind them. Out of
 * line, with its results in @slot, so that no local of the common walk has
 * its address taken: there the compiler keeps the walk's state in
 * registers, with no stack canary.
 *
 * Return: the number of ancestors written to @slot; the stop is in
 * @slot->stop.
 */
noinline unsigned int fw_walk_hooked(unsigned long callsite, unsigned long parent_ip,
				     unsigned long fp, struct fw_context *slot,
				     unsigned int nr_stacks, unsigned int depth)
{
	struct fw_hook_hit h = { .callsite = callsite, .parent_ip = parent_ip, .fp = fp };
	struct fw_walk_cfg cfg = fw_cfg(slot, nr_stacks);
	struct fw_trampolines tramps = {
		.graph = fw_return_to_handler,
		.kretprobe = fw_kretprobe_trampoline,
		.rethook = fw_rethook_trampoline,
	};
	enum fw_stop stop;
	unsigned int nr;

	slot->recovered = 0;
	slot->tramp = FW_TRAMP_NONE;
	nr = fw_walk_native(&cfg, &fw_walk_ops_hooked, &tramps, h.fp, slot->ancestors,
			    slot->records, NULL, depth, &stop);
	if (unlikely(stop == FW_STOP_TRAMPOLINE))
		stop = fw_recover_chain(&h, slot, &cfg, &tramps, depth, &nr);
	slot->stop = stop;
	return nr;
}

/*
 * No trampoline is exported; kprobes resolve a name even where they may
 * not probe it. The probe is registered disabled, so it is never armed: a
 * breakpoint on return_to_handler while the graph tracer hooks the stop_machine
 * thread that writes it traps again in its own handler until the stack
 * overflows (6.1 and 6.12 under function_graph on every function). It is
 * removed at once.
 */
static unsigned long fw_lookup_symbol(const char *name)
{
	struct kprobe kp = { .symbol_name = name, .flags = KPROBE_FLAG_DISABLED };
	unsigned long addr;

	if (!IS_ENABLED(CONFIG_KPROBES))
		return 0;
	if (register_kprobe(&kp) == 0)
		unregister_kprobe(&kp);
	addr = (unsigned long)kp.addr;
	return IS_ERR_VALUE(addr) ? 0 : addr;
}

#ifdef CONFIG_KRETPROBES
/*
 * Whether the kernel's unwinder sees behind a kretprobe: the stack trace
 * fw_probe_target() takes while a kretprobe hooks its return must equal the
 * one it takes unhooked. Tested, not read from Kconfig: 7.x arm64 dropped
 * ARCH_CORRECT_STACKTRACE_ON_KRETPROBE while its unwinder still recovers
 * kretprobes, and 5.10's does not.
 */
#define FW_PROBE_TRACE	8

static unsigned int fw_probe_returns;

static int fw_probe_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	WRITE_ONCE(fw_probe_returns, fw_probe_returns + 1);
	return 0;
}

static noinline unsigned int fw_probe_target(unsigned long *trace)
{
	unsigned int n = stack_trace_save(trace, FW_PROBE_TRACE, 0);

	barrier();	/* a call, not a tail call: the return stays hooked */
	return n;
}

static noinline unsigned int fw_probe_caller(unsigned long *trace)
{
	unsigned int n = fw_probe_target(trace);

	barrier();
	return n;
}

static bool fw_unwinder_recovers_kretprobe(void)
{
	struct kretprobe rp = {
		.kp.addr = (kprobe_opcode_t *)fw_probe_target,
		.handler = fw_probe_ret,
		.maxactive = 1,
	};
	unsigned long plain[FW_PROBE_TRACE], hooked[FW_PROBE_TRACE];
	unsigned long caller = (unsigned long)fw_probe_caller;
	unsigned int n, i;

	if (register_kretprobe(&rp))
		return false;
	n = fw_probe_caller(hooked);
	unregister_kretprobe(&rp);
	if (READ_ONCE(fw_probe_returns) != 1 || fw_probe_caller(plain) != n)
		return false;
	/*
	 * Equal up to the return into fw_probe_caller(), the one the kretprobe
	 * hooked; the two calls from here return to two different places.
	 */
	for (i = 0; i < n; i++) {
		if (hooked[i] != plain[i])
			return false;
		if (plain[i] - caller < 64)
			return true;
	}
	return false;
}
#else
static bool fw_unwinder_recovers_kretprobe(void)
{
	return false;
}
#endif

/**
 * fw_recovery_init() - find the return trampolines and what the kernel's
 *	unwinder sees behind them
 *
 * Called once at load, before the ops are registered: the walks read what it
 * finds without a lock. It sets the recovery parameter.
 */
void fw_recovery_init(void)
{
	size_t len;

	fw_return_to_handler = fw_lookup_symbol("return_to_handler");
	/* Renamed in 5.15. */
	fw_kretprobe_trampoline = fw_lookup_symbol("__kretprobe_trampoline") ?:
				  fw_lookup_symbol("kretprobe_trampoline");
	fw_rethook_trampoline = fw_lookup_symbol("arch_rethook_trampoline");

	/* arm64's unwinder has recovered the graph tracer's returns since 4.x. */
	if (IS_ENABLED(CONFIG_FUNCTION_GRAPH_TRACER) && fw_return_to_handler)
		strlcat(fw_recovery, "graph,", sizeof(fw_recovery));
	if (fw_unwinder_recovers_kretprobe()) {
		strlcat(fw_recovery, "kretprobe,", sizeof(fw_recovery));
		/* fprobe exits share kretprobes' rethook list where they run on it. */
		if (IS_ENABLED(CONFIG_KRETPROBE_ON_RETHOOK) && fw_rethook_trampoline)
			strlcat(fw_recovery, "rethook,", sizeof(fw_recovery));
	}
	len = strlen(fw_recovery);
	if (len)
		fw_recovery[len - 1] = '\0';	/* the last comma */
}
