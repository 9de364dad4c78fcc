// SPDX-License-Identifier: GPL-2.0
/*
 * fw_hit.c - the ftrace_ops callback: at every hit of a filtered function,
 * walk the chain from the hook (fw_hook.h says where it stands), then write
 * it as a framewalk:chain event, count it (fw_aggregate.c), or both.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ftrace.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>

#include "fw_aggregate.h"
#include "fw_arm64.h"
#include "fw_hook.h"
#include "fw_latency.h"
#include "fw_recover.h"

#define CREATE_TRACE_POINTS
#include "fw_trace.h"

/* Allocated at load: static per-CPU data of modules comes from a small reserve. */
struct fw_cpu __percpu *fw_pcpu;

/*
 * The ops whose hits are reported: fw_ops.c switches it, and every hit of
 * any other (an ops being replaced) is only counted.
 */
struct ftrace_ops *fw_live_ops;

/*
 * Until 5.11 nothing on the task says whether a kretprobe hooks one of its
 * returns: the common walk runs, and a chain in which the trampoline's
 * address appears is walked again by fw_walk_hooked(). A compare a frame,
 * where watching every walk cost 5.10 about 30 instructions a frame.
 */
static __always_inline bool fw_kretprobe_seen(unsigned long parent_ip,
					      const fw_u64 *ret, unsigned int nr)
{
#ifdef FW_KRETPROBE_GLOBAL
	return fw_trampoline_seen(READ_ONCE(fw_kretprobe_trampoline), parent_ip, ret, nr);
#else
	return false;
#endif
}

/*
 * The event of a timed hit, out of line: inlined into latency's copies of
 * the walk as well, the tracepoints' inline bodies were called out of line
 * by every hit instead (34 instructions more on 7.2's event).
 */
static noinline void fw_timed_event(const struct fw_hook_hit *h, struct fw_context *slot,
				    bool user_event, unsigned int nr, unsigned int stop,
				    u64 recovered, unsigned int tramp)
{
	const fw_u64 *records = READ_ONCE(fw_records) ? slot->records : NULL;

	if (user_event)
		trace_chain_user(h->child, h->parent_ip, h->sp, slot, records, nr, stop,
				 recovered, tramp);
	else
		trace_chain(h->child, h->parent_ip, h->sp, slot->ancestors, records, nr, stop,
			    recovered, tramp);
	slot->stats.events++;
}

/*
 * Walk, then write the event and count the chain. @user_on is a constant:
 * fw_write_hit() inlines this twice, so that with user=0 the hit runs the
 * copy that knows nothing of user frames, not a test per step. With user
 * above 0 a hit writes chain_user where that event is enabled, chain
 * where only chain is, and walks the user frames only for chain_user or
 * the counted chain.
 */
static __always_inline void fw_emit_chain(unsigned long ip, unsigned long parent_ip,
					  struct fw_regs *regs, struct fw_context *slot,
					  bool event, bool aggregate, const bool user_on,
					  const bool latency, struct fw_lat_call *timed)
{
	struct fw_walk_cfg cfg = fw_cfg(slot, fw_stacks(slot->stacks));
	unsigned int nr = 0, depth = READ_ONCE(fw_depth), tramp = FW_TRAMP_NONE;
	bool user_event = user_on && trace_chain_user_enabled();
	bool user_walk = user_on && (user_event || aggregate);
	struct fw_lat_call *lat = NULL;
	struct fw_agg_chain *counted;
	bool unrecovered = false;
	struct fw_hook_hit h;
	u64 recovered = 0;
	enum fw_stop stop = FW_STOP_READ_FAULT;

	if (unlikely(!fw_hook_locate(&h, ip, parent_ip, regs))) {
		/* The -pg hook's record was not where it belongs: the two known frames only. */
		h.child = ip;
		h.parent_ip = parent_ip;
		h.sp = 0;
	} else {
		bool hooked;

		if (latency) {
			/*
			 * A kretprobe hooks the hit's own return (latency mode's,
			 * or another tracer's on the traced function): the parent
			 * is behind the trampoline, and a timed call is claimed.
			 * fprobe's entry handler brings its call, the graph
			 * holding its return.
			 */
			lat = timed;
			if (timed)
				timed->ip = h.child;
			else if (h.parent_ip == READ_ONCE(fw_kretprobe_trampoline))
				lat = fw_kretprobe_parent(&h);
			unrecovered = h.parent_ip == READ_ONCE(fw_kretprobe_trampoline);
			hooked = fw_return_hooks_pending(h.parent_ip != parent_ip, timed);
		} else {
			hooked = fw_return_hooks_pending(false, false);
		}

		/*
		 * Only the event keeps where each record was: a counted chain is
		 * its returns. One walk for every event, records or not: a second
		 * copy of the walk on the event's path cost the default more than
		 * it saved records=0.
		 */
		if (likely(!hooked)) {
			if (event || user_event)
				nr = fw_walk_native(&cfg, &fw_walk_ops, NULL, h.fp, slot->ancestors,
						    slot->records, NULL, depth, &stop);
			else
				nr = fw_walk_native_ancestors(&cfg, &fw_walk_ops, NULL, h.fp,
							      slot->ancestors, NULL, depth, &stop);
			hooked = fw_kretprobe_seen(h.parent_ip, slot->ancestors, nr) ||
				 (latency && timed &&
				  fw_trampoline_seen(READ_ONCE(fw_return_to_handler), h.parent_ip,
						     slot->ancestors, nr));
		}
		if (unlikely(hooked)) {
			nr = fw_walk_hooked(h.callsite, h.parent_ip, h.fp, slot, cfg.nr_stacks,
					    depth);
			stop = slot->stop;
			recovered = slot->recovered;
			tramp = slot->tramp;
		}
	}
	/* The parent not found behind the trampoline (5.10): the chain ends there, said so. */
	if (latency && unlikely(unrecovered)) {
		nr = 0;
		stop = FW_STOP_TRAMPOLINE;
		tramp = FW_TRAMP_KRETPROBE;
	}
	slot->stats.stops[stop]++;
	if (user_walk) {
		fw_user_chain_walk(slot);
		slot->stats.user_stops[slot->user_chain.stop - FW_STOP_USER_FIRST]++;
	}
	if (latency && (user_event || event)) {
		fw_timed_event(&h, slot, user_event, nr, stop, recovered, tramp);
	} else if (user_event) {
		trace_chain_user(h.child, h.parent_ip, h.sp, slot,
				 READ_ONCE(fw_records) ? slot->records : NULL, nr, stop,
				 recovered, tramp);
		slot->stats.events++;
	} else if (event) {
		trace_chain(h.child, h.parent_ip, h.sp, slot->ancestors,
			    READ_ONCE(fw_records) ? slot->records : NULL, nr, stop, recovered,
			    tramp);
		slot->stats.events++;
	}
	if (aggregate) {
		counted = fw_agg_hit(&slot->agg, h.child, h.parent_ip, slot->ancestors, nr, stop,
				     user_walk ? &slot->user_chain : NULL, &slot->stats);
		if (latency && lat && counted) {
			fw_lat_counted(lat, &slot->agg, counted);
			slot->stats.timed++;
		}
	}
	if (user_walk)
		fw_user_chain_empty(slot);
}

/*
 * A hit while latency mode's exit hooks are in: the copies of the walk that
 * find the parent behind the trampoline and claim and tie a call, out of
 * line, so that the copies every other hit runs hold nothing of it.
 */
static noinline void fw_emit_timed(unsigned long ip, unsigned long parent_ip,
				   struct fw_regs *regs, struct fw_context *slot,
				   bool event, bool aggregate, struct fw_lat_call *timed)
{
	if (static_branch_unlikely(&fw_user_walking))
		fw_emit_chain(ip, parent_ip, regs, slot, event, aggregate, true, true, timed);
	else
		fw_emit_chain(ip, parent_ip, regs, slot, event, aggregate, false, true, timed);
}

/*
 * A hit with something to write, out of line with the walk and the event so
 * that fw_callback() saves no register on the path of a hit that writes
 * nothing; it drops the recursion lock fw_callback() took.
 */
static noinline void fw_write_hit(unsigned long ip, unsigned long parent_ip,
				  struct fw_regs *regs, struct fw_context *slot,
				  bool event, bool aggregate, int ctx)
{
	/*
	 * Tracepoints need RCU, and fw_agg_clear() waits for counting hits with
	 * synchronize_rcu(); asked only of a hit that has something to write.
	 */
	if (!rcu_is_watching())
		slot->stats.rcu_off++;
	else if (fw_pid_skip())
		slot->stats.filtered++;
	else if (static_branch_unlikely(&fw_exit_hooked))
		fw_emit_timed(ip, parent_ip, regs, slot, event, aggregate, NULL);
	else if (static_branch_unlikely(&fw_user_walking))
		fw_emit_chain(ip, parent_ip, regs, slot, event, aggregate, true, false, NULL);
	else
		fw_emit_chain(ip, parent_ip, regs, slot, event, aggregate, false, false, NULL);
	fw_recursion_unlock(ctx, &fw_pcpu->busy);
}

/* chain_user is on and user above 0: asked only where neither chain nor counting is. */
static __always_inline bool fw_user_event_on(void)
{
	return static_branch_unlikely(&fw_user_walking) && trace_chain_user_enabled();
}

/**
 * fw_callback() - the ftrace_ops callback, at every hit of a filtered function
 * @ip: the call site ftrace reports for the traced function (fw_hook.h)
 * @parent_ip: the return address into its caller
 * @op: the ops that called; only fw_live_ops' hits are reported
 * @regs: what the hook saved (NULL with the -pg/_mcount hook)
 *
 * Counts the hit and, where an event or the aggregate wants it, walks and
 * writes the chain. It runs in any context, NMI included, and so takes no
 * lock but the recursion guard, which also keeps the per-CPU slot its own.
 */
notrace void fw_callback(unsigned long ip, unsigned long parent_ip,
			 struct ftrace_ops *op, struct fw_regs *regs)
{
	struct fw_context *slot;
	bool event, aggregate;
	int ctx;

	/*
	 * Taken even though 6.1 dispatches through a protected list: 6.12's
	 * CALL_OPS calls a lone ops directly, unprotected and preemptible. The
	 * lock also disables preemption, which the per-CPU state needs.
	 */
	/* fprobe's entry handler makes the hits of timed calls (fw_timed_hit()). */
	if (fw_lat_fprobe_on())
		return;
	ctx = fw_recursion_lock(ip, parent_ip, &fw_pcpu->busy);
	if (ctx < 0) {
		this_cpu_inc(fw_pcpu->recursion);
		return;
	}
	if (op != READ_ONCE(fw_live_ops))
		goto out;
	slot = this_cpu_ptr(&fw_pcpu->slots[ctx]);
	slot->stats.hits++;
	event = trace_chain_enabled();
	aggregate = fw_agg_on();
	if (event || aggregate || fw_user_event_on()) {
		fw_write_hit(ip, parent_ip, regs, slot, event, aggregate, ctx);
		return;
	}
out:
	fw_recursion_unlock(ctx, &fw_pcpu->busy);
}

/**
 * fw_timed_hit() - a hit whose call latency mode times through fprobe
 * @ip: the call site ftrace reports for the traced function (fw_hook.h)
 * @parent_ip: the return address into its caller
 * @regs: what the hook saved
 * @call: fprobe's data for the call, which its exit handler charges
 *
 * fprobe's entry handler runs at the ftrace hook of the call, as
 * fw_callback() would, and hands it what the callback gets: the hit is made
 * here, with the recursion guard and the per-CPU slot of the callback, and
 * the callback stands aside while latency is on.
 */
notrace void fw_timed_hit(unsigned long ip, unsigned long parent_ip, struct fw_regs *regs,
			  struct fw_lat_call *call)
{
	struct fw_context *slot;
	int ctx;

	ctx = fw_recursion_lock(ip, parent_ip, &fw_pcpu->busy);
	if (ctx < 0) {
		this_cpu_inc(fw_pcpu->recursion);
		return;
	}
	slot = this_cpu_ptr(&fw_pcpu->slots[ctx]);
	slot->stats.hits++;
	/* As fw_write_hit() asks, for a hit that always writes: latency counts it. */
	if (!rcu_is_watching())
		slot->stats.rcu_off++;
	else if (fw_pid_skip())
		slot->stats.filtered++;
	else
		fw_emit_timed(ip, parent_ip, regs, slot, trace_chain_enabled(), fw_agg_on(), call);
	fw_recursion_unlock(ctx, &fw_pcpu->busy);
}
