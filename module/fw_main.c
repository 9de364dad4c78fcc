// SPDX-License-Identifier: GPL-2.0
/*
 * fw_main.c - framewalk.ko: at every ftrace hit of a filtered function,
 * reconstruct the traced function (child), its caller (parent) and the
 * callers above them (ancestors) from arm64 frame records, and write them
 * as a framewalk:chain trace event, count them (fw_aggregate.c), or both.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/stacktrace.h>
#include <linux/string.h>
#include <linux/trace_recursion.h>
#include <linux/trace.h>
#include <linux/uaccess.h>
#include <asm/insn.h>
#include <asm/stack_pointer.h>

#include "framewalk.h"
#include "fw_compat.h"

#define CREATE_TRACE_POINTS
#include "fw_trace.h"

/* Longest filter or notrace list accepted, in bytes. */
#define FW_PATTERNS_MAX	1024

/* Allocated at load: static per-CPU data of modules comes from a small reserve. */
static struct fw_cpu __percpu *fw_pcpu;

/*
 * A filter change builds a new ops and registers it before it reports: the
 * callback reports only for fw_live_ops, and switching that pointer is the
 * single step that moves every CPU from the old filter to the new one. Each
 * ops is used once: ftrace_free_filter() leaves dangling hash pointers.
 */
static struct ftrace_ops *fw_live_ops;

/* Serialises filter/notrace changes against each other and against init/exit. */
static DEFINE_MUTEX(fw_lock);
static bool fw_ready;
/*
 * A value refused while the module loads: its setter said why, and init fails
 * with -EINVAL. Returning the error from the setter would make the kernel log
 * a second, generic "invalid for parameter" line for the same value.
 */
static bool fw_load_refused;

/* Return trampolines, found by name at load; 0 where the kernel has none. */
static unsigned long fw_return_to_handler;
static unsigned long fw_kretprobe_trampoline;
static unsigned long fw_rethook_trampoline;

/*
 * The trampolines behind which walks recover the real return address, as
 * the kernel's unwinder does on this kernel (fw_compat.h): "graph",
 * "kretprobe", "rethook", comma-separated. Read-only, so users and tests know
 * where stop=trampoline can still appear.
 */
static char fw_recovery[32];

static struct trace_array *fw_tr;

/*
 * Comma-separated globs in set_ftrace_filter syntax naming the functions to
 * trace. Required: an empty filter would mean "trace every function", which
 * is never what a frame walker at every call wants.
 */
static char fw_filter[FW_PATTERNS_MAX];

/* Globs of functions to leave out even where the filter matches them. */
static char fw_notrace[FW_PATTERNS_MAX];

/*
 * Ancestors to walk above the parent. Each costs one frame-record read per
 * hit, so keep it as small as the question needs; 0 records child and parent.
 */
static unsigned int fw_depth = 16;
/* Whether the event carries records[]: off, the event holds half the words. */
static bool fw_records = true;

/*
 * Name of a trace instance (created if missing) to enable the event in at
 * load, so framewalk's events do not mix with other tracers' in the
 * top-level buffer. Empty: enable the event in tracefs yourself.
 */
static char *fw_instance = "";

/*
 * The walker reads only records it has placed on the current task or IRQ
 * stack, which are mapped kernel memory: an inline exception-table load is
 * enough, and a stray fault still just ends the walk (read_fault). Inlined
 * into the walk, as are the PAC strip and the trampoline check: a call per
 * frame cost a return-address signing pair (paciasp/autiasp) on top of the
 * branch.
 */
static __always_inline void fw_load_record(void *ctx, fw_u64 addr, fw_u64 *fp, fw_u64 *ret,
					   int *fault)
{
	fw_load_pair_nofault((unsigned long)addr, fp, ret, fault);
}

static __always_inline fw_u64 fw_fixup_ret(void *ctx, fw_u64 ret)
{
	return fw_strip_pac(ret);
}

/*
 * One pass of the fast path over two records, their frame pointers in two
 * registers that trade places: %[a] is the record to test and %[b] the one
 * before it, whose register then takes the next frame pointer. Records are
 * fw_cfg()'s: {x29, x30} at an 8-byte aligned address. Three checks in one
 * branch: tst for aligned, then, each only while the last held, above %[b]
 * and at most %[top] (a failed check leaves the flags "hi"). Where %[keep]
 * is 1, each record's address is stored at %[rec] too. A record that
 * fails exits at 7 (or at 8, which swaps the roles back) with it in %[a] and
 * the one before it in %[b]; a return address of 0 sets %[end_kind] to 1,
 * the depth to 2. A fault sets %[err] (w9, which the fixup names by
 * number), zeroes x30 and resumes at the xpaclri.
 */
#define FW_WALK_FAST_ASM						\
	"1:	tst	%[a], #7\n"					\
	"	ccmp	%[a], %[b], #0, eq\n"				\
	"	ccmp	%[a], %[top], #2, hi\n"			\
	"	b.hi	7f\n"						\
	"2:	ldp	%[b], x30, [%[a]]\n"				\
	"3:	hint	#7\n"						\
	"	cbz	x30, 5f\n"					\
	"	cmp	%[out], %[end]\n"				\
	"	b.eq	6f\n"						\
	"	.if	%c[keep]\n"					\
	"	str	%[a], [%[rec]], #8\n"				\
	"	.endif\n"					\
	"	str	x30, [%[out]], #8\n"				\
	"	tst	%[b], #7\n"					\
	"	ccmp	%[b], %[a], #0, eq\n"				\
	"	ccmp	%[b], %[top], #2, hi\n"			\
	"	b.hi	8f\n"						\
	"4:	ldp	%[a], x30, [%[b]]\n"				\
	"9:	hint	#7\n"						\
	"	cbz	x30, 5f\n"					\
	"	cmp	%[out], %[end]\n"				\
	"	b.eq	6f\n"						\
	"	.if	%c[keep]\n"					\
	"	str	%[b], [%[rec]], #8\n"				\
	"	.endif\n"					\
	"	str	x30, [%[out]], #8\n"				\
	"	b	1b\n"						\
	"5:	mov	%w[end_kind], #1\n"				\
	"	b	7f\n"						\
	"6:	mov	%w[end_kind], #2\n"				\
	"	b	7f\n"						\
	"8:	mov	%[t], %[a]\n"					\
	"	mov	%[a], %[b]\n"					\
	"	mov	%[b], %[t]\n"					\
	"7:\n"								\
	_ASM_EXTABLE_KACCESS_ERR_ZERO(2b, 3b, w9, x30)		\
	_ASM_EXTABLE_KACCESS_ERR_ZERO(4b, 9b, w9, x30)

/*
 * The common walk's fast path (fw_walk_ops.walk_fast). In C each record
 * cost two moves, the frame pointer read becoming the previous one and the
 * loaded one the next to test, and the three checks two branches; here 11
 * instructions a record with its address stored, 10 without. It also ends
 * the walk where a chain's last record or the depth is met, sparing the C
 * loop a second load of that record.
 */
static __always_inline int fw_walk_fast(void *ctx, fw_u64 *fp, fw_u64 *prev, fw_u64 top,
					fw_u64 **ret_out, fw_u64 *ret_end, fw_u64 **rec_out,
					enum fw_stop *stop)
{
	register int err asm("w9") = 0;
	u64 a = *fp, b = *prev, *out = *ret_out, *rec = rec_out ? *rec_out : NULL, t;
	int end_kind = 0;

	asm volatile(FW_WALK_FAST_ASM
		     : [a] "+r" (a), [b] "+r" (b), [out] "+r" (out), [rec] "+r" (rec),
		       [t] "=&r" (t), [err] "+r" (err), [end_kind] "+r" (end_kind)
		     : [top] "r" (top), [end] "r" (ret_end), [keep] "i" (!!rec_out)
		     : "x30", "cc", "memory");
	if (rec_out)
		*rec_out = rec;
	*fp = a;
	*prev = b;
	*ret_out = out;
	if (end_kind == 2)
		*stop = FW_STOP_DEPTH;
	else if (end_kind == 1)
		*stop = err ? FW_STOP_READ_FAULT : FW_STOP_CHAIN_END;
	return end_kind;
}

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

/* The common walk: no return of this task is hooked, no trampoline to look for. */
static const struct fw_walk_ops fw_walk_ops = {
	.load_record = fw_load_record,
	.fixup_ret = fw_fixup_ret,
	.walk_fast = fw_walk_fast,
};

static const struct fw_walk_ops fw_walk_ops_hooked = {
	.load_record = fw_load_record,
	.fixup_ret = fw_fixup_ret,
	.trampoline = fw_trampoline,
};

/*
 * The stacks a walk from here may visit, innermost first. On an IRQ stack the
 * chain continues on the interrupted task's stack, never the other way. The
 * IRQ stack's bounds follow from sp: with VMAP_STACK each is IRQ_STACK_SIZE
 * bytes allocated at THREAD_ALIGN (arch/arm64/kernel/irq.c), so the per-CPU
 * irq_stack_ptr, which is not exported, is not needed.
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
static noinline enum fw_stop fw_recover_chain(unsigned long ip, unsigned long parent_ip,
					      struct ftrace_regs *fregs,
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
		if (trace[i] == ip + AARCH64_INSN_SIZE)
			break;
	if (i + 1 < n && trace[i + 1] == parent_ip) {
		r.trace = trace + i + 2;
		r.nr = n - i - 2;
		*nr = fw_walk_native(cfg, &fw_walk_ops_recover, &r, fw_fregs_fp(fregs), slot->rets,
				     slot->records, &slot->recovered, depth, &stop);
	}
	if (stop == FW_STOP_TRAMPOLINE)
		slot->tramp = fw_tramp_kind(tramps, slot->rets[*nr - 1]);
	return stop;
}

/* arm64's frame records, {x29, x30}, on the stacks fw_stacks() put in @slot. */
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

/*
 * The walk of a task one of whose returns a tracer hooks: it watches for the
 * trampolines and looks behind them. Out of line, with its results in @slot,
 * so that no local of the common walk has its address taken: there the
 * compiler keeps the walk's state in registers, with no stack canary.
 */
static noinline unsigned int fw_walk_hooked(unsigned long ip, unsigned long parent_ip,
					    struct ftrace_regs *fregs, struct fw_context *slot,
					    unsigned int nr_stacks, unsigned int depth)
{
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
	nr = fw_walk_native(&cfg, &fw_walk_ops_hooked, &tramps, fw_fregs_fp(fregs), slot->rets,
			    slot->records, NULL, depth, &stop);
	if (unlikely(stop == FW_STOP_TRAMPOLINE))
		stop = fw_recover_chain(ip, parent_ip, fregs, slot, &cfg, &tramps, depth, &nr);
	slot->stop = stop;
	return nr;
}

/* Walk, then write the event and count the chain. */
static __always_inline void fw_emit_chain(unsigned long ip, unsigned long parent_ip,
					  struct ftrace_regs *fregs, struct fw_context *slot,
					  bool event, bool aggregate)
{
	struct fw_walk_cfg cfg = fw_cfg(slot, fw_stacks(slot->stacks));
	unsigned int nr, depth = READ_ONCE(fw_depth), tramp = FW_TRAMP_NONE;
	u64 recovered = 0;
	enum fw_stop stop;

	if (likely(!fw_return_hooks_pending())) {
		/*
		 * Only the event keeps where each record was: a counted chain is
		 * its returns. One walk for every event, records or not: a second
		 * copy of the walk on the event's path cost the default more than
		 * it saved records=0.
		 */
		if (event)
			nr = fw_walk_native(&cfg, &fw_walk_ops, NULL, fw_fregs_fp(fregs),
					    slot->rets, slot->records, NULL, depth, &stop);
		else
			nr = fw_walk_native_rets(&cfg, &fw_walk_ops, NULL, fw_fregs_fp(fregs),
						 slot->rets, NULL, depth, &stop);
	} else {
		nr = fw_walk_hooked(ip, parent_ip, fregs, slot, cfg.nr_stacks, depth);
		stop = slot->stop;
		recovered = slot->recovered;
		tramp = slot->tramp;
	}
	ip -= FW_CALLSITE_OFFSET;
	slot->stats.stops[stop]++;
	if (event) {
		trace_chain(ip, parent_ip, fw_fregs_sp(fregs), slot->rets,
			    READ_ONCE(fw_records) ? slot->records : NULL, nr, stop, recovered,
			    tramp);
		slot->stats.events++;
	}
	if (aggregate)
		fw_agg_hit(&slot->agg, ip, parent_ip, slot->rets, nr, stop, &slot->stats);
}

/*
 * A hit with something to write, out of line with the walk and the event so
 * that fw_callback() saves no register on the path of a hit that writes
 * nothing; it drops the recursion lock fw_callback() took.
 */
static noinline void fw_write_hit(unsigned long ip, unsigned long parent_ip,
				  struct ftrace_regs *fregs, struct fw_context *slot,
				  bool event, bool aggregate, int bit)
{
	/*
	 * Tracepoints need RCU, and fw_agg_clear() waits for counting hits with
	 * synchronize_rcu(); asked only of a hit that has something to write.
	 */
	if (!rcu_is_watching())
		slot->stats.rcu_off++;
	else if (fw_pid_skip())
		slot->stats.filtered++;
	else
		fw_emit_chain(ip, parent_ip, fregs, slot, event, aggregate);
	ftrace_test_recursion_unlock(bit);
}

static notrace void fw_callback(unsigned long ip, unsigned long parent_ip,
				struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct fw_context *slot;
	bool event, aggregate;
	int bit;

	/*
	 * Taken even though 6.1 dispatches through a protected list: 6.12's
	 * CALL_OPS calls a lone ops directly, unprotected and preemptible. The
	 * lock also disables preemption, which the per-CPU state needs.
	 */
	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (bit < 0) {
		this_cpu_inc(fw_pcpu->recursion);
		return;
	}
	if (op != READ_ONCE(fw_live_ops))
		goto out;
	slot = this_cpu_ptr(&fw_pcpu->slots[bit - TRACE_FTRACE_START]);
	slot->stats.hits++;
	event = trace_chain_enabled();
	aggregate = fw_agg_on();
	if (event || aggregate) {
		fw_write_hit(ip, parent_ip, fregs, slot, event, aggregate, bit);
		return;
	}
out:
	ftrace_test_recursion_unlock(bit);
}

typedef int (*fw_set_fn)(struct ftrace_ops *ops, unsigned char *buf, int len, int reset);

/* Add each comma-separated glob of @list to @ops; name the first that fails. */
static int fw_apply_globs(struct ftrace_ops *ops, const char *list, fw_set_fn set,
			  const char *param)
{
	char *buf, *cur, *glob, *arg;
	int reset = 1, ret = 0;

	buf = kstrdup(list, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	cur = buf;
	while ((glob = strsep(&cur, ",")) != NULL) {
		glob = strim(glob);
		if (!*glob) {
			pr_err("%s: empty pattern in '%s'\n", param, list);
			ret = -EINVAL;
			break;
		}
		if (set == ftrace_set_filter && *glob == '!') {
			pr_err("%s: '%s': exclude functions with notrace=, not with '!'\n",
			       param, glob);
			ret = -EINVAL;
			break;
		}
		/* ftrace edits the glob in place; keep ours intact for the message. */
		arg = kstrdup(glob, GFP_KERNEL);
		if (!arg) {
			ret = -ENOMEM;
			break;
		}
		ret = set(ops, arg, strlen(arg), reset);
		kfree(arg);
		if (ret == -EINVAL)
			pr_err("%s: '%s' matches no traceable function\n", param, glob);
		else if (ret)
			pr_err("%s: cannot apply '%s' (%d)\n", param, glob, ret);
		if (ret)
			break;
		reset = 0;
	}
	kfree(buf);
	return ret;
}

static void fw_ops_free(struct ftrace_ops *ops)
{
	ftrace_free_filter(ops);
	kfree(ops);
}

/* Build a new ops from the two glob lists, then switch to it. */
static int fw_switch_ops(const char *filter, const char *exclude)
{
	struct ftrace_ops *prev = fw_live_ops;
	struct ftrace_ops *next;
	int ret;

	lockdep_assert_held(&fw_lock);
	if (!*filter) {
		pr_err("filter: empty; name the functions to trace\n");
		return -EINVAL;
	}
	next = kzalloc(sizeof(*next), GFP_KERNEL);
	if (!next)
		return -ENOMEM;
	next->func = fw_callback;
	ret = fw_apply_globs(next, filter, ftrace_set_filter, "filter");
	if (!ret && *exclude)
		ret = fw_apply_globs(next, exclude, ftrace_set_notrace, "notrace");
	if (!ret)
		ret = register_ftrace_function(next);
	if (ret) {
		fw_ops_free(next);
		return ret;
	}
	WRITE_ONCE(fw_live_ops, next);
	if (prev) {
		/* Returns once no CPU can still be inside prev's callback. */
		unregister_ftrace_function(prev);
		fw_ops_free(prev);
	}
	return 0;
}

/* The value without the blanks around it: "echo ' x' > p" reads back "x". */
const char *fw_trim(const char *val, size_t *len)
{
	val = skip_spaces(val);
	*len = strlen(val);
	while (*len && isspace(val[*len - 1]))
		(*len)--;
	return val;
}

/*
 * A refused value: while loading, remember it for init to fail on; at run
 * time, fail the write.
 */
int fw_refuse(void)
{
	if (fw_ready)
		return -EINVAL;
	fw_load_refused = true;
	return 0;
}

/* Copy a parameter value trimmed; refuse it if too long. */
static int fw_copy_patterns(char *dst, const char *val, const char *param)
{
	size_t len;

	val = fw_trim(val, &len);
	if (len >= FW_PATTERNS_MAX) {
		pr_err("%s: longer than %d bytes\n", param, FW_PATTERNS_MAX - 1);
		return -EINVAL;
	}
	memcpy(dst, val, len);
	dst[len] = '\0';
	return 0;
}

/* Before init only remember the value; init validates it. */
static int fw_patterns_set(const char *val, const struct kernel_param *kp)
{
	char *copy, *target = kp->arg;
	bool is_filter = target == fw_filter;
	int ret;

	copy = kzalloc(FW_PATTERNS_MAX, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	mutex_lock(&fw_lock);
	ret = fw_copy_patterns(copy, val, kp->name);
	if (ret) {
		ret = fw_refuse();
		goto out;
	}
	if (fw_ready)
		ret = fw_switch_ops(is_filter ? copy : fw_filter,
				    is_filter ? fw_notrace : copy);
	if (!ret)
		strscpy(target, copy, FW_PATTERNS_MAX);
out:
	mutex_unlock(&fw_lock);
	kfree(copy);
	return ret;
}

static int fw_patterns_get(char *buf, const struct kernel_param *kp)
{
	int ret;

	mutex_lock(&fw_lock);
	ret = scnprintf(buf, PAGE_SIZE, "%s\n", (char *)kp->arg);
	mutex_unlock(&fw_lock);
	return ret;
}

static const struct kernel_param_ops fw_patterns_ops = {
	.set = fw_patterns_set,
	.get = fw_patterns_get,
};

static int fw_depth_set(const char *val, const struct kernel_param *kp)
{
	unsigned int depth = 0;
	char num[16];
	size_t len;
	int ret = -EINVAL;

	val = fw_trim(val, &len);
	if (len < sizeof(num)) {
		memcpy(num, val, len);
		num[len] = '\0';
		ret = kstrtouint(num, 0, &depth);
	}
	mutex_lock(&fw_lock);
	if (ret || depth > FW_DEPTH_MAX) {
		pr_err("depth: '%.*s' is not a number from 0 to %d\n", (int)len, val,
		       FW_DEPTH_MAX);
		ret = fw_refuse();
	} else {
		WRITE_ONCE(fw_depth, depth);
	}
	mutex_unlock(&fw_lock);
	return ret;
}

static const struct kernel_param_ops fw_depth_ops = {
	.set = fw_depth_set,
	.get = param_get_uint,
};

module_param_cb(filter, &fw_patterns_ops, fw_filter, 0644);
MODULE_PARM_DESC(filter, "Functions to trace: comma-separated globs (required)");
/* The parameter is named like set_ftrace_notrace, but notrace is a kernel macro. */
#pragma push_macro("notrace")
#undef notrace
module_param_cb(notrace, &fw_patterns_ops, fw_notrace, 0644);
MODULE_PARM_DESC(notrace, "Functions not to trace: comma-separated globs");
#pragma pop_macro("notrace")
module_param_cb(depth, &fw_depth_ops, &fw_depth, 0644);
MODULE_PARM_DESC(depth, "Ancestors to walk above the parent, 0-64 (default 16)");
module_param_named(records, fw_records, bool, 0644);
MODULE_PARM_DESC(records, "Write each ancestor's frame record address in the event (default Y)");
module_param_named(instance, fw_instance, charp, 0444);
MODULE_PARM_DESC(instance, "Trace instance to enable framewalk:chain in at load");
module_param_string(recovery, fw_recovery, sizeof(fw_recovery), 0444);
MODULE_PARM_DESC(recovery, "Trampolines walks see behind: graph,kretprobe,rethook (read-only)");

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

static void fw_recovery_init(void)
{
	size_t len;

	if (FW_UNWINDER_RECOVERS_GRAPH && fw_return_to_handler)
		strlcat(fw_recovery, "graph,", sizeof(fw_recovery));
	if (FW_UNWINDER_RECOVERS_KRETPROBE && fw_kretprobe_trampoline)
		strlcat(fw_recovery, "kretprobe,", sizeof(fw_recovery));
	if (FW_UNWINDER_RECOVERS_RETHOOK && fw_rethook_trampoline)
		strlcat(fw_recovery, "rethook,", sizeof(fw_recovery));
	len = strlen(fw_recovery);
	if (len)
		fw_recovery[len - 1] = '\0';	/* the last comma */
}

static int fw_instance_setup(void)
{
	int ret;

	if (!fw_instance || !*fw_instance)
		return 0;
	fw_tr = fw_trace_array_get(fw_instance);
	if (!fw_tr) {
		pr_err("instance: cannot create trace instance '%s'\n", fw_instance);
		return -EINVAL;
	}
	ret = trace_array_set_clr_event(fw_tr, "framewalk", "chain", true);
	if (ret) {
		pr_err("instance: cannot enable framewalk:chain in '%s' (%d)\n", fw_instance, ret);
		trace_array_put(fw_tr);
		fw_tr = NULL;
	}
	return ret;
}

static void fw_instance_release(void)
{
	if (!fw_tr)
		return;
	/* The instance and its data stay for the user to read. */
	trace_array_set_clr_event(fw_tr, "framewalk", "chain", false);
	trace_array_put(fw_tr);
	fw_tr = NULL;
}

static int __init fw_init(void)
{
	struct dentry *dir;
	int ret;

	fw_return_to_handler = fw_lookup_symbol("return_to_handler");
	fw_kretprobe_trampoline = fw_lookup_symbol("__kretprobe_trampoline");
	fw_rethook_trampoline = fw_lookup_symbol("arch_rethook_trampoline");
	fw_recovery_init();

	if (fw_load_refused)
		return -EINVAL;
	fw_pcpu = alloc_percpu(struct fw_cpu);
	if (!fw_pcpu)
		return -ENOMEM;
	ret = fw_stats_init(fw_pcpu, &dir);
	if (ret)
		goto err_scratch;
	ret = fw_agg_init(fw_pcpu, dir);
	if (ret)
		goto err_stats;
	ret = fw_instance_setup();
	if (ret)
		goto err_agg;

	mutex_lock(&fw_lock);
	ret = fw_switch_ops(fw_filter, fw_notrace);
	if (!ret)
		fw_ready = true;
	mutex_unlock(&fw_lock);
	if (ret)
		goto err_instance;

	pr_info("tracing '%s'%s%s, depth %u%s\n", fw_filter, *fw_notrace ? " except " : "",
		fw_notrace, fw_depth, fw_aggregate ? ", aggregating" : "");
	return 0;

err_instance:
	fw_instance_release();
err_agg:
	/* The tables go after their debugfs files, which may be open. */
	fw_stats_exit();
	fw_agg_exit();
	goto err_scratch;
err_stats:
	fw_stats_exit();
err_scratch:
	free_percpu(fw_pcpu);
	return ret;
}

static void __exit fw_exit(void)
{
	struct ftrace_ops *ops;

	mutex_lock(&fw_lock);
	fw_ready = false;
	ops = fw_live_ops;
	WRITE_ONCE(fw_live_ops, NULL);
	unregister_ftrace_function(ops);
	fw_ops_free(ops);
	mutex_unlock(&fw_lock);

	fw_instance_release();
	/* Removing the debugfs files waits for their readers; then no one reaches a table. */
	fw_stats_exit();
	fw_agg_exit();
	free_percpu(fw_pcpu);
}

module_init(fw_init);
module_exit(fw_exit);

MODULE_AUTHOR("framewalk developers");
MODULE_DESCRIPTION("Reconstruct call frames at ftrace hooks on arm64");
MODULE_LICENSE("GPL");
MODULE_VERSION(FW_MODULE_VERSION);
