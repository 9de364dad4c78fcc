// SPDX-License-Identifier: GPL-2.0
/*
 * fw_bench.c - cost per call of a traced function, the way
 * samples/ftrace/ftrace-ops.c measures it: a tight loop of calls to a
 * noinline fw_bench_tracee() bracketed by ktime_get_ns(), run at the bottom
 * of a deep noinline recursion so that framewalk has ancestors to walk.
 *
 * debugfs fw_bench/run: write the number of calls; read "calls ns ns_per_call_x1000".
 * debugfs fw_bench/probe: attach an ftrace_ops of our own to fw_bench_tracee
 *   that does one layer of what a tracer pays, to price the layers:
 *   "nop" (ftrace's dispatch alone), "ring_buffer" (reserve and commit one
 *   word in a private ring buffer), "event" (fw_bench:bare, the smallest trace
 *   event: the tracepoint, trace_event_buffer_reserve, commit), "off".
 * debugfs fw_bench/gap_ns: pause between calls (0: none), to pace the event rate.
 *
 * Under qemu -icount shift=0 (scripts/guest.sh -I) the guest clock advances
 * one nanosecond per instruction, so "ns" are instructions.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/ftrace.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/ring_buffer.h>
#include <linux/uaccess.h>

#define CREATE_TRACE_POINTS
#include "fw_bench_trace.h"
#include "fw_compat.h"

/*
 * Frames below the loop: deeper than framewalk's largest benchmarked depth
 * (32), so every depth walks as far as it is allowed.
 */
#define FW_BENCH_NEST	40

static struct dentry *fw_bench_dir;
static DEFINE_MUTEX(fw_bench_lock);
static u64 fw_bench_calls, fw_bench_ns;
/* Pause between calls, for the drop-free rate sweep; 0 runs them back to back. */
static u64 fw_bench_gap_ns;

enum fw_bench_probe {
	FW_PROBE_OFF,
	FW_PROBE_NOP,
	FW_PROBE_RING_BUFFER,
	FW_PROBE_EVENT,
	FW_PROBE_NR
};

static const char *const fw_bench_probe_names[FW_PROBE_NR] = {
	[FW_PROBE_OFF] = "off",
	[FW_PROBE_NOP] = "nop",
	[FW_PROBE_RING_BUFFER] = "ring_buffer",
	[FW_PROBE_EVENT] = "event",
};

static enum fw_bench_probe fw_bench_probe_on;

/* The ring_buffer probe's own buffer: overwritten in a loop, never read. */
static struct trace_buffer *fw_bench_rb;
#define FW_BENCH_RB_BYTES	(64 * 1024)

/* The traced function: as cheap as a call can be, so the tracer's cost shows. */
static noinline __noclone int fw_bench_tracee(int x)
{
	return x + 1;
}

static noinline __noclone u64 fw_bench_loop(u64 calls)
{
	u64 i, start, next, gap = READ_ONCE(fw_bench_gap_ns);
	int x = 0;

	start = ktime_get_ns();
	next = start;
	for (i = 0; i < calls; i++) {
		x = fw_bench_tracee(x);
		if (gap) {
			/* Paced runs last seconds: let the readers have this CPU too. */
			next += gap;
			while (ktime_get_ns() < next)
				cond_resched();
		}
	}
	/* Keep x alive so the calls are not optimised away. */
	WRITE_ONCE(fw_bench_calls, x ? calls : 0);
	return ktime_get_ns() - start;
}

static noinline __noclone u64 fw_bench_nest(int level, u64 calls)
{
	u64 ns;

	if (level == 0)
		return fw_bench_loop(calls);
	ns = fw_bench_nest(level - 1, calls);
	/* Work after the call: no tail call, so each level keeps its frame. */
	barrier();
	return ns;
}

static void fw_bench_nop(unsigned long ip, unsigned long parent_ip,
			 struct ftrace_ops *op, struct fw_regs *regs)
{
}

/* 6.1's commit also takes the event; Kbuild tells the two apart. */
static __always_inline void fw_bench_rb_commit(struct trace_buffer *buffer,
					       struct ring_buffer_event *event)
{
#ifdef FW_BENCH_RB_COMMIT_ONE_ARG
	ring_buffer_unlock_commit(buffer);
#else
	ring_buffer_unlock_commit(buffer, event);
#endif
}

static void fw_bench_ring_buffer(unsigned long ip, unsigned long parent_ip,
				 struct ftrace_ops *op, struct fw_regs *regs)
{
	struct ring_buffer_event *event;

	event = ring_buffer_lock_reserve(fw_bench_rb, sizeof(ip));
	if (!event)
		return;
	*(unsigned long *)ring_buffer_event_data(event) = ip;
	fw_bench_rb_commit(fw_bench_rb, event);
}

static void fw_bench_event(unsigned long ip, unsigned long parent_ip,
			   struct ftrace_ops *op, struct fw_regs *regs)
{
	trace_bare(ip);
}

/* One ops per probe: ftrace_ops.func must not change while registered. */
static struct ftrace_ops fw_bench_ops[FW_PROBE_NR] = {
	[FW_PROBE_NOP] = { .func = fw_bench_nop },
	[FW_PROBE_RING_BUFFER] = { .func = fw_bench_ring_buffer },
	[FW_PROBE_EVENT] = { .func = fw_bench_event },
};

static ssize_t fw_bench_run_write(struct file *file, const char __user *ubuf,
				  size_t len, loff_t *ppos)
{
	u64 calls;
	int ret;

	ret = kstrtou64_from_user(ubuf, len, 0, &calls);
	if (ret)
		return ret;
	if (!calls || calls > 100000000)
		return -EINVAL;
	mutex_lock(&fw_bench_lock);
	fw_bench_ns = fw_bench_nest(FW_BENCH_NEST, calls);
	mutex_unlock(&fw_bench_lock);
	return len;
}

static ssize_t fw_bench_run_read(struct file *file, char __user *ubuf, size_t len,
				 loff_t *ppos)
{
	char buf[64];
	int n;

	mutex_lock(&fw_bench_lock);
	n = scnprintf(buf, sizeof(buf), "%llu %llu %llu\n", fw_bench_calls, fw_bench_ns,
		      fw_bench_calls ? div64_u64(fw_bench_ns * 1000, fw_bench_calls) : 0);
	mutex_unlock(&fw_bench_lock);
	return simple_read_from_buffer(ubuf, len, ppos, buf, n);
}

static const struct file_operations fw_bench_run_fops = {
	.owner = THIS_MODULE,
	.write = fw_bench_run_write,
	.read = fw_bench_run_read,
};

static ssize_t fw_bench_probe_write(struct file *file, const char __user *ubuf,
				    size_t len, loff_t *ppos)
{
	char name[16];
	int probe, ret = 0;

	if (len >= sizeof(name))
		return -EINVAL;
	if (copy_from_user(name, ubuf, len))
		return -EFAULT;
	name[len] = '\0';
	probe = match_string(fw_bench_probe_names, FW_PROBE_NR, strim(name));
	if (probe < 0)
		return -EINVAL;
	mutex_lock(&fw_bench_lock);
	if (probe != fw_bench_probe_on) {
		if (fw_bench_probe_on != FW_PROBE_OFF)
			ret = unregister_ftrace_function(&fw_bench_ops[fw_bench_probe_on]);
		if (!ret)
			fw_bench_probe_on = FW_PROBE_OFF;
		if (!ret && probe != FW_PROBE_OFF)
			ret = register_ftrace_function(&fw_bench_ops[probe]);
		if (!ret)
			fw_bench_probe_on = probe;
	}
	mutex_unlock(&fw_bench_lock);
	return ret ? ret : len;
}

static const struct file_operations fw_bench_probe_fops = {
	.owner = THIS_MODULE,
	.write = fw_bench_probe_write,
};

static void fw_bench_free_filters(void)
{
	int i;

	for (i = FW_PROBE_NOP; i < FW_PROBE_NR; i++)
		fw_free_filter(&fw_bench_ops[i]);
}

static int __init fw_bench_init(void)
{
	int i, ret;

	for (i = FW_PROBE_NOP; i < FW_PROBE_NR; i++) {
		ret = ftrace_set_filter(&fw_bench_ops[i], "fw_bench_tracee",
					strlen("fw_bench_tracee"), 1);
		if (ret) {
			pr_err("cannot filter the %s probe on fw_bench_tracee (%d)\n",
			       fw_bench_probe_names[i], ret);
			goto err_filters;
		}
	}
	fw_bench_rb = ring_buffer_alloc(FW_BENCH_RB_BYTES, RB_FL_OVERWRITE);
	if (!fw_bench_rb) {
		ret = -ENOMEM;
		goto err_filters;
	}
	fw_bench_dir = debugfs_create_dir("fw_bench", NULL);
	debugfs_create_file("run", 0600, fw_bench_dir, NULL, &fw_bench_run_fops);
	debugfs_create_file("probe", 0200, fw_bench_dir, NULL, &fw_bench_probe_fops);
	debugfs_create_u64("gap_ns", 0600, fw_bench_dir, &fw_bench_gap_ns);
	return 0;

err_filters:
	fw_bench_free_filters();
	return ret;
}

static void __exit fw_bench_exit(void)
{
	debugfs_remove_recursive(fw_bench_dir);
	if (fw_bench_probe_on != FW_PROBE_OFF)
		unregister_ftrace_function(&fw_bench_ops[fw_bench_probe_on]);
	fw_bench_free_filters();
	ring_buffer_free(fw_bench_rb);
}

module_init(fw_bench_init);
module_exit(fw_bench_exit);
MODULE_DESCRIPTION("framewalk benchmark: cost per call of a traced function");
MODULE_LICENSE("GPL");
