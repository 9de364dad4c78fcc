// SPDX-License-Identifier: GPL-2.0
/*
 * Commits one deliberate bug at load, so that the test run proves the
 * kernel log check (tests/kernel-log/test_kernel_log.sh) sees what the debug kernel reports.
 *
 * Parameter bug= names the bug and the debug check that must report it:
 *   kasan         a read of freed memory (KASAN)
 *   ubsan         an array index past the end of its array (UBSAN bounds)
 *   atomic-sleep  a GFP_KERNEL allocation under a spinlock (DEBUG_ATOMIC_SLEEP)
 *   rcu           an rcu_dereference() outside an RCU read-side section (PROVE_RCU)
 *   lockdep       two mutexes taken in both orders (PROVE_LOCKING); lockdep turns itself
 *                 off after its first report, and KASAN's taint turns it off too
 *   kmemleak      eight 32-byte objects allocated and never freed (DEBUG_KMEMLEAK)
 * Only for debug kernels: on a production kernel the read of freed memory goes unnoticed.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#if IS_ENABLED(CONFIG_KFENCE)
#include <linux/kfence.h>
#endif
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>

static char *bug = "";
module_param(bug, charp, 0444);
MODULE_PARM_DESC(bug, "the bug to commit at load: kasan, ubsan, atomic-sleep, rcu, lockdep, kmemleak");

/* A run-time index, so that the compiler cannot see the out-of-bounds access coming. */
static int index = 4;
module_param(index, int, 0444);
MODULE_PARM_DESC(index, "the index the ubsan bug uses into an array of 4");

struct fw_planted_rcu {
	int value;
};

static struct fw_planted_rcu __rcu *fw_planted_rcu_ptr;
static DEFINE_SPINLOCK(fw_planted_lock);
static DEFINE_MUTEX(fw_planted_a);
static DEFINE_MUTEX(fw_planted_b);

/*
 * KFENCE samples one allocation every so often and then reports the bad read
 * itself, so KASAN never sees it: keep any sampled object aside and allocate
 * again, or the planted KASAN bug is missed now and then.
 */
static int *fw_planted_unsampled(void)
{
	int *held[4] = {}, *p = NULL;
	int i;

	for (i = 0; i < ARRAY_SIZE(held); i++) {
		p = kmalloc(sizeof(*p), GFP_KERNEL);
#if IS_ENABLED(CONFIG_KFENCE)
		if (p && is_kfence_address(p)) {
			held[i] = p;
			p = NULL;
			continue;
		}
#endif
		break;
	}
	for (i = 0; i < ARRAY_SIZE(held); i++)
		kfree(held[i]);
	return p;
}

static int fw_planted_kasan(void)
{
	int *p = fw_planted_unsampled();

	if (!p)
		return -ENOMEM;
	*p = 1;
	kfree(p);
	/* Hide the pointer from GCC's -Wuse-after-free: the access is the point. */
	OPTIMIZER_HIDE_VAR(p);
	pr_info("read %d from freed memory\n", READ_ONCE(*p));
	return 0;
}

static int fw_planted_ubsan(void)
{
	/* The array sits inside a larger object, so the bad index stays inside KASAN's bounds. */
	struct {
		int a[4];
		int after;
	} s = { .a = { 1, 2, 3, 4 }, .after = 5 };

	int v;

	OPTIMIZER_HIDE_VAR(index);
	/* A plain subscript: READ_ONCE() takes &s.a[4], a legal one-past-the-end address. */
	v = s.a[index];
	pr_info("read %d past the array's end\n", v);
	return 0;
}

static int fw_planted_atomic_sleep(void)
{
	void *p;

	spin_lock(&fw_planted_lock);
	p = kmalloc(32, GFP_KERNEL);
	spin_unlock(&fw_planted_lock);
	kfree(p);
	return 0;
}

static int fw_planted_rcu(void)
{
	struct fw_planted_rcu *p;

	p = rcu_dereference(fw_planted_rcu_ptr);
	return p ? p->value : 0;
}

static int fw_planted_lockdep(void)
{
	mutex_lock(&fw_planted_a);
	mutex_lock(&fw_planted_b);
	mutex_unlock(&fw_planted_b);
	mutex_unlock(&fw_planted_a);

	mutex_lock(&fw_planted_b);
	mutex_lock(&fw_planted_a);
	mutex_unlock(&fw_planted_a);
	mutex_unlock(&fw_planted_b);
	return 0;
}

/*
 * The last pointer can outlive the load on a stack or in a register that
 * kmemleak still scans (CI missed a single leak over four scans once): leak
 * several, each one's pointer overwritten by the next, so that the first ones
 * are referenced nowhere.
 */
#define FW_PLANTED_LEAKS 8

static int fw_planted_kmemleak(void)
{
	int i;

	for (i = 0; i < FW_PLANTED_LEAKS; i++) {
		void *p = kmalloc(32, GFP_KERNEL);

		if (!p)
			return -ENOMEM;
		memset(p, 0x5a, 32);
		/* Drop the only reference. */
		OPTIMIZER_HIDE_VAR(p);
	}
	return 0;
}

static const struct {
	const char *name;
	int (*commit)(void);
} fw_planted_bugs[] = {
	{ "kasan", fw_planted_kasan },
	{ "ubsan", fw_planted_ubsan },
	{ "atomic-sleep", fw_planted_atomic_sleep },
	{ "rcu", fw_planted_rcu },
	{ "lockdep", fw_planted_lockdep },
	{ "kmemleak", fw_planted_kmemleak },
};

static int __init fw_planted_bug_init(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fw_planted_bugs); i++) {
		if (!strcmp(bug, fw_planted_bugs[i].name)) {
			pr_info("committing the %s bug\n", bug);
			return fw_planted_bugs[i].commit();
		}
	}
	pr_err("unknown bug '%s' (kasan, ubsan, atomic-sleep, rcu, lockdep or kmemleak)\n", bug);
	return -EINVAL;
}

static void __exit fw_planted_bug_exit(void)
{
}

module_init(fw_planted_bug_init);
module_exit(fw_planted_bug_exit);
MODULE_DESCRIPTION("framewalk selftests: deliberate bugs for the debug kernel's checks");
MODULE_LICENSE("GPL");
