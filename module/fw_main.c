// SPDX-License-Identifier: GPL-2.0
/*
 * fw_main.c - framewalk.ko: at every ftrace hit of a filtered function,
 * reconstruct the traced function (child), its caller (parent) and the
 * callers above them (ancestors) from arm64 frame records, and write them
 * as a framewalk:chain trace event, count them (fw_aggregate.c), or both.
 * This file loads and unloads it; Documentation/framewalk.rst's "Module
 * layout" names the room of each part.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/trace.h>
#include <linux/trace_events.h>

#include "framewalk.h"
#include "fw_aggregate.h"
#include "fw_recover.h"

static struct trace_array *fw_tr;

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
	/* NULL: both events, chain and chain_user; user decides which a hit writes. */
	ret = trace_array_set_clr_event(fw_tr, "framewalk", NULL, true);
	if (ret) {
		pr_err("instance: cannot enable framewalk's events in '%s' (%d)\n", fw_instance,
		       ret);
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
	trace_array_set_clr_event(fw_tr, "framewalk", NULL, false);
	trace_array_put(fw_tr);
	fw_tr = NULL;
}

static int __init fw_init(void)
{
	struct dentry *dir;
	unsigned int cpu, ctx;
	int ret;

	if (fw_load_refused)
		return -EINVAL;
	fw_recovery_init();
	fw_pcpu = alloc_percpu(struct fw_cpu);
	if (!fw_pcpu)
		return -ENOMEM;
	for_each_possible_cpu(cpu)
		for (ctx = 0; ctx < FW_CONTEXTS; ctx++)
			fw_user_chain_empty(per_cpu_ptr(&fw_pcpu->slots[ctx], cpu));
	ret = fw_stats_init(fw_pcpu, &dir);
	if (ret)
		goto err_scratch;
	ret = fw_agg_init(fw_pcpu, dir);
	if (ret)
		goto err_stats;
	ret = fw_instance_setup();
	if (ret)
		goto err_agg;

	ret = fw_ops_start();
	if (ret)
		goto err_instance;
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
	fw_ops_stop();
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
