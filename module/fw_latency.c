// SPDX-License-Identifier: GPL-2.0
/*
 * fw_latency.c - latency mode: an exit hook on each function the filter
 * matches times every call from entry to return, and the duration is
 * charged to the chain the call's hit counted (fw_aggregate.c prints them in
 * debugfs framewalk/latency); a chain_return event carries each call.
 *
 * The exit hook is fprobe where the kernel runs it on the function graph
 * (6.14 on, configured on 7.2 here): its entry handler is the ftrace hook of
 * the call, and makes the hit itself (fw_timed_hit()), the ftrace callback
 * standing aside. Elsewhere it is a kretprobe, which every kernel exports
 * (fgraph_ops none): its entry handler runs first, at a BRK on the function's
 * first instruction, and stamps the call; the ftrace hook's callback then
 * claims it (fw_kretprobe_parent()), walks as always and ties the call to the
 * chain it counted. The return handler charges the time.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kallsyms.h>
#include <linux/lockdep.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/moduleparam.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/bsearch.h>
#include <linux/sort.h>
#include <linux/trace_clock.h>

#include "fw_latency.h"
#include "fw_trace.h"

/* Time each call of the filtered functions and charge it to its chain. */
bool fw_latency;

/*
 * Calls of one function timed at once: kretprobe's maxactive. A call beyond
 * it is not timed, and counted in latency_missed. A function that blocks
 * (schedule) holds one per sleeping task. fprobe keeps its calls on each
 * task's function graph return stack and has no such bound.
 */
static unsigned int fw_lat_active = 128;
module_param_named(latency_active, fw_lat_active, uint, 0444);
MODULE_PARM_DESC(latency_active,
		 "Calls of one function timed at once, fixed at load (default 128)");

#define FW_LAT_ACTIVE_MAX	4096

/* Which exit hook this build of the module uses, for the user and the tests. */
#ifdef FW_LAT_FPROBE
static char fw_exit_hook[16] = "fprobe";
#else
static char fw_exit_hook[16] = "kretprobe";
#endif
module_param_string(exit_hook, fw_exit_hook, sizeof(fw_exit_hook), 0444);
MODULE_PARM_DESC(exit_hook, "Latency mode's exit hook: fprobe or kretprobe (read-only)");

/*
 * Functions latency mode hooks at most: each exit hook is a kprobe, armed
 * by patching the function, with latency_active instances of its own.
 */
#define FW_LAT_FUNCS_MAX	256

DEFINE_STATIC_KEY_FALSE(fw_latency_on);
/*
 * On from before latency's exit hooks are registered to after they are all
 * gone, wider than fw_latency_on: a hit whose return they hooked while
 * latency turns on or off still finds its parent behind the trampoline.
 */
DEFINE_STATIC_KEY_FALSE(fw_exit_hooked);
DEFINE_PER_CPU(struct kretprobe_instance *, fw_lat_pending);
DEFINE_PER_CPU(struct fw_lat_stats, fw_lat_stats);

/* A set of exit hooks: one kretprobe per function of an ops' filter, or one fprobe. */
struct fw_lat_hooks {
	struct kretprobe *probes;
	struct fprobe *fp;
	unsigned int nr;
};

/* Tells this module's fprobe data from a module loaded before it: see struct fw_lat_call. */
static u64 fw_lat_epoch;

/*
 * The hooks in force while latency is on, those a filter change prepares
 * beside them, and the calls the removed ones missed.
 */
static struct fw_lat_hooks fw_lat_live, fw_lat_next;
static u64 fw_lat_missed_before;

/*
 * ftrace's filter hash, read for the functions the filter matched: the
 * kernel exports no list of an ops' functions. These are the leading
 * fields of struct ftrace_hash and struct ftrace_func_entry
 * (kernel/trace/trace.h, include/linux/ftrace.h since 6.x), the same from
 * 5.10 to 7.x; the walk checks the count it finds against the hash's own.
 */
struct fw_ftrace_hash {
	unsigned long size_bits;
	struct hlist_head *buckets;
	unsigned long count;
};

struct fw_ftrace_entry {
	struct hlist_node hlist;
	unsigned long ip;
};

/* Every ip of @hash into @ips (room for @max); -EIO if the hash is not as it says. */
static int fw_hash_ips(const struct fw_ftrace_hash *hash, unsigned long *ips, unsigned int max)
{
	const struct fw_ftrace_entry *e;
	unsigned long i, n = 0;

	if (!hash || !hash->count)
		return 0;
	if (!hash->buckets || hash->size_bits > 20 || hash->count > max)
		return -EIO;
	for (i = 0; i < 1UL << hash->size_bits; i++)
		hlist_for_each_entry(e, &hash->buckets[i], hlist) {
			if (n == hash->count)
				return -EIO;
			ips[n++] = e->ip;
		}
	return n == hash->count ? n : -EIO;
}

static int fw_ip_cmp(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

/**
 * fw_lat_functions() - the call sites of the functions @ops traces
 * @ops: an ops with its filter set (and notrace)
 * @ips: set to a kmalloc'ed array of them, sorted
 *
 * Return: how many, or a negative error: -E2BIG past FW_LAT_FUNCS_MAX,
 * said in one line.
 */
static int fw_lat_functions(struct ftrace_ops *ops, unsigned long **ips)
{
	const struct fw_ftrace_hash *filter, *excluded;
	unsigned int room = FW_LAT_FUNCS_MAX * 64;
	unsigned long *all, *out = NULL;
	int nr_filter, nr_notrace, i, n = 0;

	all = kvmalloc_array(2 * room, sizeof(*all), GFP_KERNEL);
	if (!all)
		return -ENOMEM;
	mutex_lock(&ops->func_hash->regex_lock);
	filter = (const void *)rcu_dereference_protected(ops->func_hash->filter_hash, 1);
	excluded = (const void *)rcu_dereference_protected(ops->func_hash->notrace_hash, 1);
	nr_filter = fw_hash_ips(filter, all, room);
	nr_notrace = fw_hash_ips(excluded, all + room, room);
	mutex_unlock(&ops->func_hash->regex_lock);
	if (nr_filter < 0 || nr_notrace < 0) {
		pr_err("latency: cannot read the functions the filter matched\n");
		n = -EIO;
		goto out;
	}
	sort(all + room, nr_notrace, sizeof(*all), fw_ip_cmp, NULL);
	for (i = 0; i < nr_filter; i++)
		if (!bsearch(&all[i], all + room, nr_notrace, sizeof(*all), fw_ip_cmp))
			all[n++] = all[i];
	if (n > FW_LAT_FUNCS_MAX) {
		pr_err("latency: the filter matches %d functions; exit hooks (kretprobes) are limited to %d\n",
		       n, FW_LAT_FUNCS_MAX);
		n = -E2BIG;
		goto out;
	}
	out = kmalloc_array(max(n, 1), sizeof(*out), GFP_KERNEL);
	if (!out) {
		n = -ENOMEM;
		goto out;
	}
	memcpy(out, all, n * sizeof(*out));
	sort(out, n, sizeof(*out), fw_ip_cmp, NULL);
	*ips = out;
out:
	kvfree(all);
	return n;
}

#ifndef FW_LAT_FPROBE
/*
 * The function a call site is in, by its symbol's offset: the site is
 * after the patchable entry's NOPs, or the -pg hook's `bl _mcount` in the
 * body, and the exit hook goes on the first instruction.
 */
static unsigned long fw_lat_function_start(unsigned long site)
{
	char sym[KSYM_SYMBOL_LEN];
	const char *plus;
	unsigned long off;

	sprint_symbol(sym, site);
	plus = strstr(sym, "+0x");
	if (!plus || sscanf(plus + 1, "%lx", &off) != 1 || off > site)
		return 0;
	return site - off;
}
#endif

/* A histogram bucket: 0 for 0 ns, then b for [2^(b-1), 2^b), the last open. */
static __always_inline unsigned int fw_lat_bucket(u64 ns)
{
	return min_t(unsigned int, fls64(ns), FW_LAT_BUCKETS - 1);
}

/* A bound that only grows, from any CPU. */
static __always_inline void fw_lat_raise(atomic64_t *bound, u64 v)
{
	s64 old = atomic64_read(bound);

	while ((u64)old < v) {
		s64 seen = atomic64_cmpxchg(bound, old, v);

		if (seen == old)
			break;
		old = seen;
	}
}

#ifndef FW_LAT_FPROBE
/*
 * Entry: before the ftrace hook of the same call. Interrupts are masked in
 * the BRK's handler, so the pending place (5.10's) is written whole.
 */
static int fw_lat_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct fw_lat_call *call = (struct fw_lat_call *)ri->data;

	call->task = current;
	call->fp = regs->regs[29];
	call->time = NULL;
	call->ip = 0;
	call->entry = trace_clock_local();
#if !defined(FW_KRETPROBE_TASK_LIST) || defined(CONFIG_KRETPROBE_ON_RETHOOK)
	this_cpu_write(fw_lat_pending, ri);
#endif
	return 0;
}
#endif

/* Charge the call's chain, unless it was not counted or the table was cleared since. */
static __always_inline void fw_lat_charge(struct fw_lat_call *call, unsigned long parent_ip)
{
	u64 ns = trace_clock_local() - call->entry;
	struct fw_agg_time *tm = call->time;

	if (!call->ip) {
		this_cpu_inc(fw_lat_stats.untimed);
		return;
	}
	trace_chain_return(call->ip, parent_ip, ns);
	if (!tm) {
		this_cpu_inc(fw_lat_stats.untimed);
		return;
	}
	if (call->gen != READ_ONCE(fw_agg_gen)) {
		this_cpu_inc(fw_lat_stats.stale);
		return;
	}
	atomic64_inc(&tm->calls);
	atomic64_add(ns, &tm->total);
	fw_lat_raise(&tm->min_inv, U64_MAX - ns);
	fw_lat_raise(&tm->max, ns);
	atomic_inc(&tm->hist[fw_lat_bucket(ns)]);
	this_cpu_inc(fw_lat_stats.returns);
}

/**
 * fw_lat_return() - the kretprobe's return handler: charge the call's chain
 * @ri: the call's kretprobe instance
 * @regs: the registers at the return
 *
 * Not static: fw_kretprobe_parent() knows latency mode's instances by it.
 *
 * Return: 0, as kretprobe handlers return.
 */
int fw_lat_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	fw_lat_charge((struct fw_lat_call *)ri->data, (unsigned long)ri->ret_addr);
	return 0;
}

#ifdef FW_LAT_FPROBE
/*
 * fprobe's entry, from the function graph's entry at the ftrace hook: the
 * hit is made here, once, and the ftrace callback stands aside. A prepared
 * set (a filter change) stays quiet until it is the live one.
 */
static int fw_lat_fentry(struct fprobe *fp, unsigned long ip, unsigned long ret_ip,
			 struct ftrace_regs *fregs, void *data)
{
	struct fw_lat_call *call = data;

	/* Latency turning off: the ftrace callback makes the hits again. */
	if (fp != READ_ONCE(fw_lat_live.fp) || !static_branch_likely(&fw_latency_on))
		return 1;
	call->entry = trace_clock_local();
	call->epoch = fw_lat_epoch;
	call->ip = 0;
	call->time = NULL;
	fw_timed_hit(ip, ret_ip, fregs, call);
	return 0;
}

/* fprobe's exit, at the return through the function graph's trampoline. */
static void fw_lat_fexit(struct fprobe *fp, unsigned long ip, unsigned long ret_ip,
			 struct ftrace_regs *fregs, void *data)
{
	struct fw_lat_call *call = data;

	/* A module unloaded and loaded again may get its fprobe's address back. */
	if (call->epoch == fw_lat_epoch)
		fw_lat_charge(call, ret_ip);
}
#endif

#ifdef FW_LAT_FPROBE
/* Unregister @h's fprobe, keeping what it missed, and free it. */
static void fw_lat_unhook(struct fw_lat_hooks *h, unsigned int nr)
{
	if (!h->fp)
		return;
	unregister_fprobe(h->fp);
	fw_lat_missed_before += READ_ONCE(h->fp->nmissed);
	/*
	 * A call in flight finds its fprobe by address in fprobe's table and
	 * never reads it: once unregistered, it may go.
	 */
	kfree(h->fp);
	h->fp = NULL;
	h->nr = 0;
}

/* One fprobe on every function @ops traces, into @h; nothing left on failure. */
static int fw_lat_hook(struct ftrace_ops *ops, struct fw_lat_hooks *h)
{
	unsigned long *ips;
	int n, ret;

	n = fw_lat_functions(ops, &ips);
	if (n < 0)
		return n;
	h->fp = kzalloc(sizeof(*h->fp), GFP_KERNEL);
	if (!h->fp) {
		kfree(ips);
		return -ENOMEM;
	}
	h->fp->entry_handler = fw_lat_fentry;
	h->fp->exit_handler = fw_lat_fexit;
	h->fp->entry_data_size = sizeof(struct fw_lat_call);
	ret = register_fprobe_ips(h->fp, ips, n);
	kfree(ips);
	if (ret) {
		pr_err("latency: cannot hook the returns of the filter's %d functions (fprobe: %d)\n",
		       n, ret);
		kfree(h->fp);
		h->fp = NULL;
		return ret;
	}
	h->nr = n;
	return 0;
}

static u64 fw_lat_hooks_missed(const struct fw_lat_hooks *h)
{
	return h->fp ? READ_ONCE(h->fp->nmissed) : 0;
}
#else
/* Unregister the first @nr hooks of @h, keeping what they missed, and free them. */
static void fw_lat_unhook(struct fw_lat_hooks *h, unsigned int nr)
{
	struct kretprobe **rps;
	unsigned int i;

	rps = kcalloc(max(nr, 1U), sizeof(*rps), GFP_KERNEL);
	for (i = 0; i < nr; i++) {
		if (rps)
			rps[i] = &h->probes[i];
		else
			unregister_kretprobe(&h->probes[i]);
	}
	/* One grace period for them all, where memory allows. */
	if (rps)
		unregister_kretprobes(rps, nr);
	kfree(rps);
	for (i = 0; i < nr; i++)
		fw_lat_missed_before += h->probes[i].nmissed;
	kfree(h->probes);
	h->probes = NULL;
	h->nr = 0;
}

/*
 * Hook the return of every function @ops traces into @h. A function the exit
 * hook cannot go on (one kprobes refuse) is named, and nothing stays hooked.
 */
static int fw_lat_hook(struct ftrace_ops *ops, struct fw_lat_hooks *h)
{
	unsigned long *ips, start;
	int n, i, ret = 0;

	n = fw_lat_functions(ops, &ips);
	if (n < 0)
		return n;
	h->probes = kcalloc(max(n, 1), sizeof(*h->probes), GFP_KERNEL);
	if (!h->probes) {
		kfree(ips);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		struct kretprobe *rp = &h->probes[i];

		start = fw_lat_function_start(ips[i]);
		if (!start) {
			pr_err("latency: no function at %pS\n", (void *)ips[i]);
			ret = -EINVAL;
			break;
		}
		rp->kp.addr = (kprobe_opcode_t *)start;
		rp->entry_handler = fw_lat_entry;
		rp->handler = fw_lat_return;
		rp->data_size = sizeof(struct fw_lat_call);
		rp->maxactive = fw_lat_active;
		ret = register_kretprobe(rp);
		if (ret) {
			pr_err("latency: cannot hook the return of %ps (%d)\n", (void *)start, ret);
			break;
		}
	}
	kfree(ips);
	if (ret)
		fw_lat_unhook(h, i);
	else
		h->nr = n;
	return ret;
}

static u64 fw_lat_hooks_missed(const struct fw_lat_hooks *h)
{
	u64 sum = 0;
	unsigned int i;

	for (i = 0; i < h->nr; i++)
		sum += READ_ONCE(h->probes[i].nmissed);
	return sum;
}
#endif

/**
 * fw_lat_prepare() - hook the returns of what @next traces, beside the live hooks
 * @next: the ops a filter change is about to switch to
 *
 * Called with fw_lock held, before the switch, so that a filter whose
 * returns cannot be hooked is refused with the one traced still timed. A
 * function in both filters is hooked twice until fw_lat_commit(): its calls
 * meanwhile are claimed by the newest instance, the other one's return is
 * untimed.
 *
 * Return: 0, or the error that stopped it, nothing left of the new hooks.
 */
int fw_lat_prepare(struct ftrace_ops *next)
{
	lockdep_assert_held(&fw_lock);
	return fw_lat_hook(next, &fw_lat_next);
}

/**
 * fw_lat_commit() - the prepared hooks replace the live ones
 *
 * Called with fw_lock held, once the ops they were prepared for is live.
 */
void fw_lat_commit(void)
{
	struct fw_lat_hooks old = fw_lat_live;

	lockdep_assert_held(&fw_lock);
	/* The new set's entry handler acts from here on (fprobe), the old one's no more. */
	WRITE_ONCE(fw_lat_live.fp, fw_lat_next.fp);
	fw_lat_live.probes = fw_lat_next.probes;
	fw_lat_live.nr = fw_lat_next.nr;
	fw_lat_unhook(&old, old.nr);
	fw_lat_next.probes = NULL;
	fw_lat_next.fp = NULL;
	fw_lat_next.nr = 0;
}

/**
 * fw_lat_abort() - remove the prepared hooks: the switch did not happen
 *
 * Called with fw_lock held.
 */
void fw_lat_abort(void)
{
	lockdep_assert_held(&fw_lock);
	fw_lat_unhook(&fw_lat_next, fw_lat_next.nr);
}

/**
 * fw_lat_start() - hook the returns of every function fw_live_ops traces
 *
 * Called with fw_lock held. A function the exit hook cannot go on (one
 * kprobes refuse) is named and nothing stays hooked.
 *
 * Return: 0, or the error that stopped it.
 */
int fw_lat_start(void)
{
	int ret;

	lockdep_assert_held(&fw_lock);
	if (fw_lat_active < 1 || fw_lat_active > FW_LAT_ACTIVE_MAX) {
		pr_err("latency_active: %u is not from 1 to %u\n", fw_lat_active,
		       FW_LAT_ACTIVE_MAX);
		return -EINVAL;
	}
	if (!fw_lat_epoch)
		fw_lat_epoch = get_random_u64() | 1;
	ret = fw_agg_time_alloc();
	if (ret)
		return ret;
	static_branch_enable(&fw_exit_hooked);
	ret = fw_lat_hook(fw_live_ops, &fw_lat_live);
	if (ret)
		static_branch_disable(&fw_exit_hooked);
	else
		static_branch_enable(&fw_latency_on);
	return ret;
}

/**
 * fw_lat_stop() - unhook every return
 *
 * Called with fw_lock held. Once it returns no callback claims a call and
 * no return handler of this module runs: calls still in flight return
 * through the kernel's trampoline, which no longer calls it.
 */
void fw_lat_stop(void)
{
	int cpu;

	lockdep_assert_held(&fw_lock);
	if (!fw_lat_live.probes && !fw_lat_live.fp)
		return;
	static_branch_disable(&fw_latency_on);
	/* Callbacks run with preemption off: after this none still claims. */
	synchronize_rcu();
	for_each_possible_cpu(cpu)
		per_cpu(fw_lat_pending, cpu) = NULL;
	fw_lat_unhook(&fw_lat_live, fw_lat_live.nr);
	/* Calls in flight return through the kernel's trampoline, which calls us no more. */
	static_branch_disable(&fw_exit_hooked);
}

/**
 * fw_lat_missed() - calls not timed for want of an instance
 *
 * Return: the exit hooks' nmissed, with those of hooks already removed.
 */
u64 fw_lat_missed(void)
{
	u64 sum;

	mutex_lock(&fw_lock);
	sum = fw_lat_missed_before + fw_lat_hooks_missed(&fw_lat_live);
	mutex_unlock(&fw_lock);
	return sum;
}

static int fw_latency_set(const char *val, const struct kernel_param *kp)
{
	bool on;
	int ret = 0;

	if (kstrtobool(val, &on)) {
		pr_err("latency: '%s' is not 0 or 1\n", val);
		return fw_refuse();
	}
	mutex_lock(&fw_lock);
	if (fw_ready && on != fw_latency) {
		/* The filter's checks read it; hits count once the hooks are in. */
		WRITE_ONCE(fw_latency, on);
		if (on)
			ret = fw_lat_start();
		else
			fw_lat_stop();
		if (ret)
			WRITE_ONCE(fw_latency, false);
	} else if (!fw_ready) {
		fw_latency = on;
	}
	mutex_unlock(&fw_lock);
	return ret;
}

static const struct kernel_param_ops fw_latency_ops = {
	.set = fw_latency_set,
	.get = param_get_bool,
};

module_param_cb(latency, &fw_latency_ops, &fw_latency, 0644);
MODULE_PARM_DESC(latency, "Time each call, entry to return, per chain (debugfs framewalk/latency)");
