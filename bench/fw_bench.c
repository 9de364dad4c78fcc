// SPDX-License-Identifier: GPL-2.0
/*
 * fw_bench.c - cost per call of a traced function, the way
 * samples/ftrace/ftrace-ops.c measures it: a tight loop of calls to a
 * noinline fw_bench_tracee() bracketed by ktime_get_ns(), run at the bottom
 * of a deep noinline recursion so that framewalk has ancestors to walk.
 *
 * debugfs fw_bench/run: write the number of calls; read "calls ns ns_per_call_x1000".
 * debugfs fw_bench/nop_ops: write 1/0 to attach/detach a no-op ftrace_ops.
 * debugfs fw_bench/gap_ns: pause between calls (0: none), to pace the event rate.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/ftrace.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/uaccess.h>

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
static bool fw_bench_nop_on;

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
			 struct ftrace_ops *op, struct ftrace_regs *fregs)
{
}

static struct ftrace_ops fw_bench_nop_ops = {
	.func = fw_bench_nop,
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

static ssize_t fw_bench_nop_write(struct file *file, const char __user *ubuf,
				  size_t len, loff_t *ppos)
{
	bool on;
	int ret;

	ret = kstrtobool_from_user(ubuf, len, &on);
	if (ret)
		return ret;
	mutex_lock(&fw_bench_lock);
	if (on && !fw_bench_nop_on)
		ret = register_ftrace_function(&fw_bench_nop_ops);
	else if (!on && fw_bench_nop_on)
		ret = unregister_ftrace_function(&fw_bench_nop_ops);
	if (!ret)
		fw_bench_nop_on = on;
	mutex_unlock(&fw_bench_lock);
	return ret ? ret : len;
}

static const struct file_operations fw_bench_nop_fops = {
	.owner = THIS_MODULE,
	.write = fw_bench_nop_write,
};

static int __init fw_bench_init(void)
{
	int ret;

	ret = ftrace_set_filter(&fw_bench_nop_ops, "fw_bench_tracee",
				strlen("fw_bench_tracee"), 1);
	if (ret) {
		pr_err("cannot filter the no-op ops on fw_bench_tracee (%d)\n", ret);
		return ret;
	}
	fw_bench_dir = debugfs_create_dir("fw_bench", NULL);
	debugfs_create_file("run", 0600, fw_bench_dir, NULL, &fw_bench_run_fops);
	debugfs_create_file("nop_ops", 0200, fw_bench_dir, NULL, &fw_bench_nop_fops);
	debugfs_create_u64("gap_ns", 0600, fw_bench_dir, &fw_bench_gap_ns);
	return 0;
}

static void __exit fw_bench_exit(void)
{
	debugfs_remove_recursive(fw_bench_dir);
	if (fw_bench_nop_on)
		unregister_ftrace_function(&fw_bench_nop_ops);
	ftrace_free_filter(&fw_bench_nop_ops);
}

module_init(fw_bench_init);
module_exit(fw_bench_exit);
MODULE_DESCRIPTION("framewalk benchmark: cost per call of a traced function");
MODULE_LICENSE("GPL");
