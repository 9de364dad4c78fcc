// SPDX-License-Identifier: GPL-2.0
/*
 * fw_ops.c - the ftrace_ops that calls fw_callback(), built from the filter
 * and notrace parameters. A change builds a new ops and registers it before
 * it reports: the callback reports only for fw_live_ops, and switching that
 * pointer is the single step that moves every CPU from the old filter to the
 * new one. Each ops is used once: ftrace_free_filter() leaves dangling hash
 * pointers.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ftrace.h>
#include <linux/kernel.h>
#include <linux/lockdep.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "framewalk.h"
#include "fw_aggregate.h"
#include "fw_hook.h"
#include "fw_latency.h"

/* Longest filter or notrace list accepted, in bytes. */
#define FW_PATTERNS_MAX	1024

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
	fw_free_filter(ops);
	kfree(ops);
}

/* Build a new ops from the two glob lists, then switch to it. */
static int fw_switch_ops(const char *filter, const char *exclude)
{
	struct ftrace_ops *prev = fw_live_ops;
	struct ftrace_ops *next;
	bool timing;
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
	/*
	 * The new filter's returns hooked first: one that cannot be is
	 * refused here, while the filter traced stays whole and timed.
	 */
	timing = fw_ready && fw_latency;
	if (!ret && timing)
		ret = fw_lat_prepare(next);
	if (!ret) {
		ret = register_ftrace_function(next);
		if (ret && timing)
			fw_lat_abort();
	}
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
	if (timing)
		fw_lat_commit();
	return 0;
}

/*
 * Comma-separated globs in set_ftrace_filter syntax naming the functions to
 * trace. Required: an empty filter would mean "trace every function", which
 * is never what a frame walker at every call wants.
 */
static char fw_filter[FW_PATTERNS_MAX];

/* Globs of functions to leave out even where the filter matches them. */
static char fw_notrace[FW_PATTERNS_MAX];

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

module_param_cb(filter, &fw_patterns_ops, fw_filter, 0644);
MODULE_PARM_DESC(filter, "Functions to trace: comma-separated globs (required)");
/* The parameter is named like set_ftrace_notrace, but notrace is a kernel macro. */
#pragma push_macro("notrace")
#undef notrace
module_param_cb(notrace, &fw_patterns_ops, fw_notrace, 0644);
MODULE_PARM_DESC(notrace, "Functions not to trace: comma-separated globs");
#pragma pop_macro("notrace")

/**
 * fw_ops_start() - start tracing with the filter given at load
 *
 * The module is ready from here on (fw_ready): a change of a parameter then
 * takes effect or fails.
 *
 * Return: 0, or the error of building or registering the ops.
 */
int fw_ops_start(void)
{
	int ret;

	mutex_lock(&fw_lock);
	ret = fw_switch_ops(fw_filter, fw_notrace);
	if (!ret && fw_latency) {
		ret = fw_lat_start();
		if (ret) {
			unregister_ftrace_function(fw_live_ops);
			fw_ops_free(fw_live_ops);
			WRITE_ONCE(fw_live_ops, NULL);
		}
	}
	if (!ret)
		fw_ready = true;
	mutex_unlock(&fw_lock);
	if (!ret)
		pr_info("tracing '%s'%s%s, depth %u%s%s (%s hook)\n", fw_filter,
			*fw_notrace ? " except " : "", fw_notrace, fw_depth,
			fw_aggregate ? ", aggregating" : "", fw_latency ? ", timing" : "",
			FW_HOOK_NAME);
	return ret;
}

/**
 * fw_ops_stop() - stop tracing
 *
 * Returns once no CPU can still be inside the callback, so the caller may
 * free what the callback writes.
 */
void fw_ops_stop(void)
{
	struct ftrace_ops *ops;

	mutex_lock(&fw_lock);
	fw_lat_stop();
	fw_ready = false;
	ops = fw_live_ops;
	WRITE_ONCE(fw_live_ops, NULL);
	unregister_ftrace_function(ops);
	fw_ops_free(ops);
	mutex_unlock(&fw_lock);
}
