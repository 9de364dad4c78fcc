// SPDX-License-Identifier: GPL-2.0
/*
 * fw_oracle.c - the kernel's own unwinder at the same ftrace hits framewalk
 * sees: an ftrace_ops on the functions named by `funcs` that calls
 * stack_trace_save() and writes what lies above the traced function as a
 * fw_oracle:stack event, next to framewalk's chain event for the same call.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ftrace.h>
#include <linux/module.h>
#include <linux/stacktrace.h>
#include <linux/string.h>
#include <asm/insn.h>

#include "fw_compat.h"
#include "fw_recursion.h"

#define CREATE_TRACE_POINTS
#include "fw_oracle_trace.h"

#define FW_ORACLE_MAX	96

/* Comma-separated globs of the functions to unwind at (the same as framewalk's filter). */
static char *funcs = "";
module_param(funcs, charp, 0444);
MODULE_PARM_DESC(funcs, "Functions to record the kernel's stack trace at");

struct fw_oracle_buf {
	unsigned long entries[FW_CONTEXTS][FW_ORACLE_MAX];
	unsigned long busy;	/* fw_recursion_lock()'s contexts where the module keeps them */
};

static struct fw_oracle_buf __percpu *fw_oracle_buf;

/*
 * ftrace_caller's own frame record returns to the instruction after its
 * `bl ftrace_caller` (`bl _mcount` under -pg), ip + 4: the kernel's trace
 * reaches the traced function there, and everything after that entry is the
 * caller chain.
 */
static void fw_oracle_cb(unsigned long ip, unsigned long parent_ip,
			 struct ftrace_ops *op, struct fw_regs *regs)
{
	unsigned long *buf;
	unsigned int nr, i;
	int ctx;

	ctx = fw_recursion_lock(ip, parent_ip, &fw_oracle_buf->busy);
	if (ctx < 0)
		return;
	if (!rcu_is_watching())
		goto out;
	/* One buffer per context the recursion lock tells apart, its transition slot included. */
	buf = this_cpu_ptr(fw_oracle_buf)->entries[ctx];
	nr = stack_trace_save(buf, FW_ORACLE_MAX, 0);
	for (i = 0; i < nr; i++)
		if (buf[i] == ip + AARCH64_INSN_SIZE)
			break;
	if (i < nr)
		trace_stack(ip, true, buf + i + 1, nr - i - 1);
	else
		trace_stack(ip, false, buf, nr);
out:
	fw_recursion_unlock(ctx, &fw_oracle_buf->busy);
}

static struct ftrace_ops fw_oracle_ops = {
	.func = fw_oracle_cb,
};

static int __init fw_oracle_init(void)
{
	char *list, *cur, *glob;
	int reset = 1, ret = 0;

	fw_oracle_buf = alloc_percpu(struct fw_oracle_buf);
	list = kstrdup(funcs, GFP_KERNEL);
	if (!list || !fw_oracle_buf) {
		kfree(list);
		free_percpu(fw_oracle_buf);
		return -ENOMEM;
	}
	cur = list;
	while ((glob = strsep(&cur, ",")) != NULL) {
		ret = ftrace_set_filter(&fw_oracle_ops, glob, strlen(glob), reset);
		if (ret) {
			pr_err("funcs: '%s' matches nothing\n", glob);
			break;
		}
		reset = 0;
	}
	kfree(list);
	if (!ret && reset)
		ret = -EINVAL;
	if (!ret)
		ret = register_ftrace_function(&fw_oracle_ops);
	if (ret) {
		fw_free_filter(&fw_oracle_ops);
		free_percpu(fw_oracle_buf);
	}
	return ret;
}

static void __exit fw_oracle_exit(void)
{
	unregister_ftrace_function(&fw_oracle_ops);
	fw_free_filter(&fw_oracle_ops);
	free_percpu(fw_oracle_buf);
}

module_init(fw_oracle_init);
module_exit(fw_oracle_exit);
MODULE_DESCRIPTION("framewalk selftest: the kernel unwinder at the same ftrace hits");
MODULE_LICENSE("GPL");
