// SPDX-License-Identifier: GPL-2.0
/*
 * fw_test_chain.c - a known call chain for the framewalk selftests:
 * fw_test_l1 -> ... -> fw_test_l5 -> fw_test_leaf, run from a debugfs write
 * (task context) or from a hard-IRQ hrtimer. The leaf saves the kernel's own
 * stack_trace_save() of the same moment, the oracle the tests compare with.
 *
 * debugfs framewalk_test/trigger: write "write" or "timer" to run the chain, or
 * "misaligned", "off_stack" or "cycle" to call fw_test_target with the frame
 * pointer aimed at a broken frame record of that kind, or "tramp ADDR" for a
 * record whose saved return address is ADDR (a return trampoline no tracer
 * put there, so nothing can recover what it replaced).
 * debugfs framewalk_test/oracle: the last leaf's stack, "0xADDR SYMBOL+OFF/SIZE" a line.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/debugfs.h>
#include <linux/hrtimer.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/stacktrace.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "fw_compat.h"

/*
 * Every level is noinline and __noclone so that it keeps its own frame and
 * exactly its own symbol name; "+ 1" after each call forbids a tail call.
 */

#define FW_ORACLE_MAX	64

static unsigned long fw_oracle[FW_ORACLE_MAX];
static unsigned int fw_oracle_nr;
static struct dentry *fw_test_dir;
static struct hrtimer fw_test_timer;
static DECLARE_COMPLETION(fw_test_timer_done);

static noinline __noclone int fw_test_leaf(int x)
{
	fw_oracle_nr = stack_trace_save(fw_oracle, FW_ORACLE_MAX, 0);
	return x + 1;
}

static noinline __noclone int fw_test_l5(int x)
{
	return fw_test_leaf(x) + 1;
}

static noinline __noclone int fw_test_l4(int x)
{
	return fw_test_l5(x) + 1;
}

static noinline __noclone int fw_test_l3(int x)
{
	return fw_test_l4(x) + 1;
}

static noinline __noclone int fw_test_l2(int x)
{
	return fw_test_l3(x) + 1;
}

static noinline __noclone int fw_test_l1(int x)
{
	return fw_test_l2(x) + 1;
}

static noinline __noclone int fw_test_target(int x)
{
	return x + 1;
}

/*
 * Call fw_test_target with x29 pointing at a fake frame record, as if its
 * caller had built that record: the walk from the call site must read it and
 * stop for the reason its saved frame pointer gives. x29 is restored after.
 */
static noinline __noclone int fw_test_bad_chain(const char *kind)
{
	unsigned long rec[4] __aligned(16);
	unsigned long ret, addr;

	rec[1] = (unsigned long)__builtin_return_address(0);
	if (!strncmp(kind, "tramp ", 6)) {
		if (kstrtoul(kind + 6, 16, &addr))
			return -EINVAL;
		rec[1] = addr;
		/* The last record: no hook's frame can match it, nothing recovers it. */
		rec[0] = 0;
	} else if (!strcmp(kind, "misaligned")) {
		rec[0] = (unsigned long)&rec[2] + 4;
	} else if (!strcmp(kind, "off_stack")) {
		rec[0] = (unsigned long)fw_test_target & ~15UL;
	} else if (!strcmp(kind, "cycle")) {
		rec[0] = (unsigned long)&rec[0];
	} else {
		return -EINVAL;
	}
	asm volatile("mov x19, x29\n\t"
		     "mov x29, %[rec]\n\t"
		     "mov x0, #41\n\t"
		     "blr %[fn]\n\t"
		     "mov x29, x19\n\t"
		     "mov %[ret], x0"
		     : [ret] "=r" (ret)
		     : [rec] "r" (rec), [fn] "r" (fw_test_target)
		     : "x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10",
		       "x11", "x12", "x13", "x14", "x15", "x16", "x17", "x18", "x19", "x30",
		       "cc", "memory");
	return ret == 42 ? 0 : -EIO;
}

static enum hrtimer_restart fw_test_timer_fn(struct hrtimer *t)
{
	if (fw_test_l1(0) != 6)
		pr_err("chain returned a wrong value\n");
	complete(&fw_test_timer_done);
	return HRTIMER_NORESTART;
}

static ssize_t fw_test_trigger_write(struct file *file, const char __user *ubuf,
				     size_t len, loff_t *ppos)
{
	char cmd[32] = {};

	if (copy_from_user(cmd, ubuf, min(len, sizeof(cmd) - 1)))
		return -EFAULT;
	strim(cmd);
	if (!strcmp(cmd, "write")) {
		if (fw_test_l1(0) != 6)
			return -EIO;
	} else if (!strcmp(cmd, "timer")) {
		reinit_completion(&fw_test_timer_done);
		hrtimer_start(&fw_test_timer, ns_to_ktime(1000), HRTIMER_MODE_REL_HARD);
		if (!wait_for_completion_timeout(&fw_test_timer_done, HZ))
			return -ETIMEDOUT;
	} else if (fw_test_bad_chain(cmd)) {
		return -EINVAL;
	}
	return len;
}

static const struct file_operations fw_test_trigger_fops = {
	.owner = THIS_MODULE,
	.write = fw_test_trigger_write,
};

static int fw_test_oracle_show(struct seq_file *m, void *unused)
{
	unsigned int i;

	for (i = 0; i < fw_oracle_nr; i++)
		seq_printf(m, "0x%lx %pS\n", fw_oracle[i], (void *)fw_oracle[i]);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(fw_test_oracle);

static int __init fw_test_init(void)
{
	fw_hrtimer_setup(&fw_test_timer, fw_test_timer_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	fw_test_dir = debugfs_create_dir("framewalk_test", NULL);
	debugfs_create_file("trigger", 0200, fw_test_dir, NULL, &fw_test_trigger_fops);
	debugfs_create_file("oracle", 0400, fw_test_dir, NULL, &fw_test_oracle_fops);
	return 0;
}

static void __exit fw_test_exit(void)
{
	debugfs_remove_recursive(fw_test_dir);
	hrtimer_cancel(&fw_test_timer);
}

module_init(fw_test_init);
module_exit(fw_test_exit);
MODULE_DESCRIPTION("framewalk selftest: a known call chain in task and IRQ context");
MODULE_LICENSE("GPL");
