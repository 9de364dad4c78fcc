// SPDX-License-Identifier: GPL-2.0
/*
 * fw_stats.c - framewalk's per-CPU counters in debugfs: read
 * /sys/kernel/debug/framewalk/stats, write anything to it to reset them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "framewalk.h"
#include "fw_latency.h"

static struct dentry *fw_debugfs_dir;
static struct fw_cpu __percpu *fw_stats_pcpu;

static void fw_stats_print(struct seq_file *m, const char *prefix, const struct fw_stats *s)
{
	u64 walks = 0;
	unsigned int i;

	/*
	 * Each walk ends with one kernel stop: their sum is the walks, a
	 * counter the hit path saves. The user stops count the user walks.
	 */
	for (i = 0; i < FW_STOP_KERNEL_NR; i++)
		walks += s->stops[i];
	seq_printf(m, "%shits %llu\n", prefix, s->hits);
	seq_printf(m, "%swalks %llu\n", prefix, walks);
	seq_printf(m, "%sevents %llu\n", prefix, s->events);
	seq_printf(m, "%saggregated %llu\n", prefix, s->aggregated);
	seq_printf(m, "%saggregate_dropped %llu\n", prefix, s->aggregate_dropped);
	seq_printf(m, "%srecursion %llu\n", prefix, s->recursion);
	seq_printf(m, "%srcu_off %llu\n", prefix, s->rcu_off);
	seq_printf(m, "%sfiltered %llu\n", prefix, s->filtered);
	seq_printf(m, "%slatency_timed %llu\n", prefix, s->timed);
	for (i = 0; i < FW_STOP_KERNEL_NR; i++)
		seq_printf(m, "%sstop.%s %llu\n", prefix, fw_stop_name(i), s->stops[i]);
	for (i = 0; i < FW_STOP_USER_NR; i++)
		seq_printf(m, "%sstop.%s %llu\n", prefix, fw_stop_name(FW_STOP_USER_FIRST + i),
			   s->user_stops[i]);
}

static void fw_stats_add(struct fw_stats *sum, const struct fw_stats *s)
{
	unsigned int i;

	sum->hits += s->hits;
	sum->events += s->events;
	sum->aggregated += s->aggregated;
	sum->aggregate_dropped += s->aggregate_dropped;
	sum->recursion += s->recursion;
	sum->rcu_off += s->rcu_off;
	sum->filtered += s->filtered;
	sum->timed += s->timed;
	for (i = 0; i < FW_STOP_KERNEL_NR; i++)
		sum->stops[i] += s->stops[i];
	for (i = 0; i < FW_STOP_USER_NR; i++)
		sum->user_stops[i] += s->user_stops[i];
}

/* One CPU's counters: its context slots and its refused entries. */
static void fw_stats_cpu(struct fw_stats *sum, int cpu)
{
	const struct fw_cpu *c = per_cpu_ptr(fw_stats_pcpu, cpu);
	unsigned int i;

	for (i = 0; i < FW_CONTEXTS; i++)
		fw_stats_add(sum, &c->slots[i].stats);
	sum->recursion += READ_ONCE(c->recursion);
}

/*
 * Latency mode's returns, counted on the CPU each call returned on, which
 * need not be the one that counted its entry.
 */
static void fw_stats_latency(struct seq_file *m, const char *prefix,
			     const struct fw_lat_stats *s)
{
	seq_printf(m, "%slatency_returns %llu\n", prefix, s->returns);
	seq_printf(m, "%slatency_untimed %llu\n", prefix, s->untimed);
	seq_printf(m, "%slatency_stale %llu\n", prefix, s->stale);
}

static void fw_stats_latency_cpu(struct fw_lat_stats *one, struct fw_lat_stats *sum, int cpu)
{
	const struct fw_lat_stats *s = per_cpu_ptr(&fw_lat_stats, cpu);

	one->returns = READ_ONCE(s->returns);
	one->untimed = READ_ONCE(s->untimed);
	one->stale = READ_ONCE(s->stale);
	sum->returns += one->returns;
	sum->untimed += one->untimed;
	sum->stale += one->stale;
}

/*
 * Totals first, unprefixed, then each possible CPU as "cpuN.name value". Each
 * CPU is read once and the totals are the sum of those reads, so the file
 * agrees with itself even while hits land (the debug kernel's stress test
 * once read a total one hit behind the per-CPU lines read after it).
 */
static int fw_stats_show(struct seq_file *m, void *unused)
{
	struct fw_lat_stats lat_sum = {}, *lat;
	struct fw_stats sum = {}, *one;
	char prefix[16];
	int cpu;

	one = kcalloc(nr_cpu_ids, sizeof(*one), GFP_KERNEL);
	lat = kcalloc(nr_cpu_ids, sizeof(*lat), GFP_KERNEL);
	if (!one || !lat) {
		kfree(one);
		kfree(lat);
		return -ENOMEM;
	}
	for_each_possible_cpu(cpu) {
		fw_stats_cpu(&one[cpu], cpu);
		fw_stats_add(&sum, &one[cpu]);
		fw_stats_latency_cpu(&lat[cpu], &lat_sum, cpu);
	}
	fw_stats_print(m, "", &sum);
	fw_stats_latency(m, "", &lat_sum);
	/* Per exit hook, not per CPU: the kretprobes count them. */
	seq_printf(m, "latency_missed %llu\n", fw_lat_missed());
	for_each_possible_cpu(cpu) {
		snprintf(prefix, sizeof(prefix), "cpu%d.", cpu);
		fw_stats_print(m, prefix, &one[cpu]);
		fw_stats_latency(m, prefix, &lat[cpu]);
	}
	kfree(one);
	kfree(lat);
	return 0;
}

static int fw_stats_open(struct inode *inode, struct file *file)
{
	return single_open(file, fw_stats_show, NULL);
}

/* A hit in flight on another CPU may land just after the reset: counters are not a barrier. */
static ssize_t fw_stats_write(struct file *file, const char __user *ubuf, size_t len,
			      loff_t *ppos)
{
	unsigned int i;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct fw_cpu *c = per_cpu_ptr(fw_stats_pcpu, cpu);

		for (i = 0; i < FW_CONTEXTS; i++)
			memset(&c->slots[i].stats, 0, sizeof(c->slots[i].stats));
		WRITE_ONCE(c->recursion, 0);
		memset(per_cpu_ptr(&fw_lat_stats, cpu), 0, sizeof(struct fw_lat_stats));
	}
	return len;
}

static const struct file_operations fw_stats_fops = {
	.owner = THIS_MODULE,
	.open = fw_stats_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.write = fw_stats_write,
	.release = single_release,
};

/**
 * fw_stats_init() - create the framewalk debugfs directory and its stats file
 * @pcpu: the per-CPU state whose counters the file sums
 * @dir: set to the directory, where fw_agg_init() puts its files too
 *
 * Return: 0, or the error of creating the directory.
 */
int fw_stats_init(struct fw_cpu __percpu *pcpu, struct dentry **dir)
{
	fw_stats_pcpu = pcpu;
	fw_debugfs_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	if (IS_ERR(fw_debugfs_dir)) {
		pr_err("stats: cannot create debugfs directory (%ld)\n", PTR_ERR(fw_debugfs_dir));
		return PTR_ERR(fw_debugfs_dir);
	}
	debugfs_create_file("stats", 0600, fw_debugfs_dir, NULL, &fw_stats_fops);
	*dir = fw_debugfs_dir;
	return 0;
}

/**
 * fw_stats_exit() - remove the framewalk debugfs directory and all its files
 *
 * Aggregation's files go with it: they are in the same directory.
 */
void fw_stats_exit(void)
{
	debugfs_remove_recursive(fw_debugfs_dir);
}
