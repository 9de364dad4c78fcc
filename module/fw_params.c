// SPDX-License-Identifier: GPL-2.0
/*
 * fw_params.c - the parameters of the walk and the event (depth, records,
 * instance), and what every parameter's setter shares: trimming, refusing a
 * value at load, and the lock against init and exit. The other parameters
 * sit beside what they drive: filter and notrace in fw_ops.c, pid and
 * notrace_pid in fw_pid.c, aggregate* in fw_aggregate.c, recovery in
 * fw_recover.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/string.h>

#include "framewalk.h"

/* Serialises parameter changes against each other and against init/exit. */
DEFINE_MUTEX(fw_lock);

/* Set once the module is loaded: from then on a change takes effect or fails. */
bool fw_ready;

/*
 * A value refused while the module loads: its setter said why, and init fails
 * with -EINVAL. Returning the error from the setter would make the kernel log
 * a second, generic "invalid for parameter" line for the same value.
 */
bool fw_load_refused;

/*
 * Ancestors to walk above the parent. Each costs one frame-record read per
 * hit, so keep it as small as the question needs; 0 records child and parent.
 */
unsigned int fw_depth = 16;

/**
 * fw_trim() - a parameter's value without the blanks around it
 * @val: the value as written
 * @len: set to the length of what is returned
 *
 * So that "echo ' x' > p" reads back "x".
 *
 * Return: the first non-blank character of @val; @len characters from it.
 */
const char *fw_trim(const char *val, size_t *len)
{
	val = skip_spaces(val);
	*len = strlen(val);
	while (*len && isspace(val[*len - 1]))
		(*len)--;
	return val;
}

/**
 * fw_refuse() - refuse a parameter's value
 *
 * While loading, it remembers the refusal for init to fail on: an error from
 * the setter would make the kernel log a second, generic line for the same
 * value (fw_load_refused). At run time, the write fails.
 *
 * Return: what the setter returns: -EINVAL at run time, 0 while loading.
 */
int fw_refuse(void)
{
	if (fw_ready)
		return -EINVAL;
	fw_load_refused = true;
	return 0;
}

/**
 * fw_param_uint() - a number parameter's value
 * @name: the parameter, for the log
 * @val: the value as written
 * @max: the largest value accepted; 0 is the smallest
 * @num: set to the number where it is one
 * @ret: set to what the setter returns where it is not (fw_refuse())
 *
 * Called with fw_lock held.
 *
 * Return: true if @val is a number from 0 to @max; false if not, said in
 * the log.
 */
bool fw_param_uint(const char *name, const char *val, unsigned int max,
		   unsigned int *num, int *ret)
{
	char buf[16];
	size_t len;
	int err = -EINVAL;

	val = fw_trim(val, &len);
	if (len < sizeof(buf)) {
		memcpy(buf, val, len);
		buf[len] = '\0';
		err = kstrtouint(buf, 0, num);
	}
	if (err || *num > max) {
		pr_err("%s: '%.*s' is not a number from 0 to %u\n", name, (int)len, val, max);
		*ret = fw_refuse();
		return false;
	}
	*ret = 0;
	return true;
}

static int fw_depth_set(const char *val, const struct kernel_param *kp)
{
	unsigned int depth;
	int ret;

	mutex_lock(&fw_lock);
	if (fw_param_uint("depth", val, FW_DEPTH_MAX, &depth, &ret))
		WRITE_ONCE(fw_depth, depth);
	mutex_unlock(&fw_lock);
	return ret;
}

static const struct kernel_param_ops fw_depth_ops = {
	.set = fw_depth_set,
	.get = param_get_uint,
};

module_param_cb(depth, &fw_depth_ops, &fw_depth, 0644);
MODULE_PARM_DESC(depth, "Ancestors to walk above the parent, 0-64 (default 16)");

/* Whether the event carries records[]: off, the event holds half the words. */
bool fw_records = true;
module_param_named(records, fw_records, bool, 0644);
MODULE_PARM_DESC(records, "Write each ancestor's frame record address in the event (default Y)");

/*
 * Name of a trace instance (created if missing) to enable the event in at
 * load, so framewalk's events do not mix with other tracers' in the
 * top-level buffer. Empty: enable the event in tracefs yourself.
 */
char *fw_instance = "";
module_param_named(instance, fw_instance, charp, 0444);
MODULE_PARM_DESC(instance, "Trace instance to enable framewalk:chain and chain_user in at load");
