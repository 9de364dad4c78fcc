// SPDX-License-Identifier: GPL-2.0
/*
 * fw_pid.c - the pid and notrace_pid parameters: which processes' hits are walked.
 *
 * A reader of the trace (cat, grep, trace-cmd) that framewalk traces writes
 * a chain for each of its own reads, and those chains are more to read: the
 * feedback loop Documentation/framewalk.rst warns about. An event filter
 * (set_event_notrace_pid) drops such chains only after they were walked;
 * these lists drop them before the walk, at the cost of one patched-out
 * branch while both are empty.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jump_label.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/threads.h>
#include "framewalk.h"

/* Each list holds this many processes: enough for a reader and its helpers. */
#define FW_PIDS_MAX	16

/* Thread-group ids as the initial pid namespace numbers them (what /proc shows). */
struct fw_pid_list {
	struct rcu_head rcu;
	unsigned int nr;
	pid_t pids[FW_PIDS_MAX];
};

/* pid: walk only the listed; notrace_pid: walk all but the listed. */
struct fw_pid_param {
	struct fw_pid_list __rcu *list;
};

static struct fw_pid_param fw_pid_only;
static struct fw_pid_param fw_pid_notrace;
static DEFINE_MUTEX(fw_pid_lock);
DEFINE_STATIC_KEY_FALSE(fw_pid_filtering);

static bool fw_pid_listed(const struct fw_pid_list *l, pid_t tgid)
{
	unsigned int i;

	for (i = 0; i < l->nr; i++)
		if (l->pids[i] == tgid)
			return true;
	return false;
}

/**
 * fw_pid_skip_slow() - whether pid and notrace_pid exclude the current process
 *
 * The lists' test behind fw_pid_skip(), called only while a list is set.
 * Called with preemption disabled (the recursion lock), which is an RCU
 * read-side section for the lists' kfree_rcu().
 *
 * Return: true if the hit's process is not to be walked.
 */
bool fw_pid_skip_slow(void)
{
	pid_t tgid = task_tgid_nr(current);
	const struct fw_pid_list *l;

	l = rcu_dereference_sched(fw_pid_only.list);
	if (l && !fw_pid_listed(l, tgid))
		return true;
	l = rcu_dereference_sched(fw_pid_notrace.list);
	return l && fw_pid_listed(l, tgid);
}

/* Parse "pid,pid,..." (blank: no list) into @l; name what is wrong. */
static int fw_pid_parse(const char *val, struct fw_pid_list *l, const char *param)
{
	char *buf, *cur, *tok;
	size_t len;
	int pid, ret = 0;

	val = fw_trim(val, &len);
	buf = kmemdup_nul(val, len, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	l->nr = 0;
	cur = buf;
	while (len && (tok = strsep(&cur, ",")) != NULL) {
		tok = strim(tok);
		if (kstrtoint(tok, 10, &pid) || pid <= 0 || pid > PID_MAX_LIMIT) {
			pr_err("%s: '%s' is not a process id (1 to %d)\n", param, tok,
			       (int)PID_MAX_LIMIT);
			ret = -EINVAL;
			break;
		}
		if (l->nr == FW_PIDS_MAX) {
			pr_err("%s: more than %d processes\n", param, FW_PIDS_MAX);
			ret = -EINVAL;
			break;
		}
		l->pids[l->nr++] = pid;
	}
	kfree(buf);
	return ret;
}

static int fw_pid_set(const char *val, const struct kernel_param *kp)
{
	struct fw_pid_param *p = kp->arg;
	struct fw_pid_list *l, *old;
	bool on;
	int ret;

	l = kzalloc(sizeof(*l), GFP_KERNEL);
	if (!l)
		return -ENOMEM;
	ret = fw_pid_parse(val, l, kp->name);
	if (ret) {
		kfree(l);
		return fw_refuse();
	}
	if (!l->nr) {
		kfree(l);
		l = NULL;
	}
	mutex_lock(&fw_pid_lock);
	old = rcu_replace_pointer(p->list, l, lockdep_is_held(&fw_pid_lock));
	on = rcu_access_pointer(fw_pid_only.list) || rcu_access_pointer(fw_pid_notrace.list);
	/* On before a hit can miss a new list; off only once both are gone. */
	if (on)
		static_branch_enable(&fw_pid_filtering);
	else
		static_branch_disable(&fw_pid_filtering);
	mutex_unlock(&fw_pid_lock);
	if (old)
		kfree_rcu(old, rcu);
	return 0;
}

static int fw_pid_get(char *buf, const struct kernel_param *kp)
{
	struct fw_pid_param *p = kp->arg;
	const struct fw_pid_list *l;
	unsigned int i;
	int n = 0;

	mutex_lock(&fw_pid_lock);
	l = rcu_dereference_protected(p->list, lockdep_is_held(&fw_pid_lock));
	for (i = 0; l && i < l->nr; i++)
		n += scnprintf(buf + n, PAGE_SIZE - n, "%s%d", i ? "," : "", l->pids[i]);
	n += scnprintf(buf + n, PAGE_SIZE - n, "\n");
	mutex_unlock(&fw_pid_lock);
	return n;
}

/*
 * The kernel calls this when the module is done with its parameters: on
 * unload after fw_exit(), and on every refused or failed load, whether
 * parse_args() or fw_init() failed. No hit can read the list by then. A load
 * can fail before init runs, so init's error paths could not free it.
 */
static void fw_pid_free(void *arg)
{
	struct fw_pid_param *p = arg;

	kfree(rcu_dereference_protected(p->list, true));
}

static const struct kernel_param_ops fw_pid_ops = {
	.set = fw_pid_set,
	.get = fw_pid_get,
	.free = fw_pid_free,
};

module_param_cb(pid, &fw_pid_ops, &fw_pid_only, 0644);
MODULE_PARM_DESC(pid, "Walk only the hits of these processes: comma-separated tgids (blank: all)");
module_param_cb(notrace_pid, &fw_pid_ops, &fw_pid_notrace, 0644);
MODULE_PARM_DESC(notrace_pid, "Never walk the hits of these processes: comma-separated tgids");
