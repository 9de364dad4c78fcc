// SPDX-License-Identifier: GPL-2.0
/*
 * fw_user.c - the user-space frames behind a hit (user=N): the user pc, the
 * user lr where the stopped function may be a leaf, then the frame records
 * from the user x29, read without sleeping and without taking a page fault.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jump_label.h>
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/uaccess.h>
#include <asm/irq_regs.h>
#include <asm/ptrace.h>

#include "framewalk.h"

/*
 * User frames to append to each chain, 0 to 64: each is one frame record
 * read from the process's memory, so this costs per hit as depth does; with
 * 0 (the default) the walk is a patched-out branch, and an event writes
 * only its empty user fields.
 */
unsigned int fw_user;
DEFINE_STATIC_KEY_FALSE(fw_user_walking);

static int fw_user_set(const char *val, const struct kernel_param *kp)
{
	unsigned int user;
	int ret;

	mutex_lock(&fw_lock);
	if (fw_param_uint("user", val, FW_USER_MAX, &user, &ret)) {
		/* The count first: a hit that sees the branch on reads the new count. */
		WRITE_ONCE(fw_user, user);
		if (user)
			static_branch_enable(&fw_user_walking);
		else
			static_branch_disable(&fw_user_walking);
	}
	mutex_unlock(&fw_lock);
	return ret;
}

static const struct kernel_param_ops fw_user_ops = {
	.set = fw_user_set,
	.get = param_get_uint,
};

module_param_cb(user, &fw_user_ops, &fw_user, 0644);
MODULE_PARM_DESC(user, "User-space frames to append to each chain, 0-64 (default 0: none)");

/*
 * The user registers of the hit, or NULL with the stop that says why there
 * are none. A task's hit (a system call, a page fault) has them at the top
 * of its stack; an interrupt only where it interrupted user mode, which its
 * own saved registers say. A softirq or NMI is never walked: what it
 * interrupted is not known here.
 */
static struct pt_regs *fw_user_regs(enum fw_stop *stop)
{
	struct pt_regs *regs;

	*stop = FW_STOP_USER_KERNEL;
	if (!current->mm || (current->flags & PF_KTHREAD))
		return NULL;
	if (in_task()) {
		regs = task_pt_regs(current);
	} else {
		if (in_nmi() || softirq_count() || !hardirq_count())
			return NULL;
		regs = get_irq_regs();
	}
	if (!regs || !user_mode(regs))
		return NULL;
	if (compat_user_mode(regs)) {
		*stop = FW_STOP_USER_COMPAT;
		return NULL;
	}
	return regs;
}

/*
 * One frame record {fp, lr} at @fp, checked as perf checks the records of
 * its user callchain: 8-aligned and wholly a user address. The user stack's
 * VMA is not looked up: that takes the mmap lock, which a hit cannot. Page
 * faults are disabled around the walk, so a record that is not mapped, or
 * not resident, ends it with user_fault instead of being paged in.
 *
 * The two words are read as EL0 reads them (ldtr: there is no unprivileged
 * pair load) after one access_ok() and one uaccess_mask_ptr() for both,
 * each load fixed up on a fault as __get_user()'s is: two __get_user()
 * calls check and mask each word again, which made a user frame cost 46
 * to 79 instructions. The fixup names err and the words by number.
 */
static __always_inline enum fw_stop fw_user_record(unsigned long fp, u64 pac, u64 *next,
						   u64 *ret)
{
	register int err asm("w9") = 0;
	register u64 a asm("x10");
	register u64 b asm("x11");
	u64 __user *rec = (u64 __user *)fp;

	if ((fp & 7) || !access_ok(rec, 2 * sizeof(u64)))
		return FW_STOP_USER_BAD_FP;
	rec = uaccess_mask_ptr(rec);
	asm volatile("1:	ldtr	%[a], [%[rec]]\n"
		     "2:	ldtr	%[b], [%[rec], #8]\n"
		     "3:\n"
		     FW_ASM_ULOAD_FIXUP(1, 3, w9, x10)
		     FW_ASM_ULOAD_FIXUP(2, 3, w9, x11)
		     : [err] "+r" (err), [a] "=&r" (a), [b] "=&r" (b)
		     : [rec] "r" (rec), FW_EFAULT_OPERAND);
	if (err)
		return FW_STOP_USER_FAULT;
	*next = a;
	*ret = fw_strip_user_pac(b, pac);
	return FW_STOP_NONE;
}

/* The records from @fp on, the first's return address already read as @ret. */
static unsigned int fw_user_records(unsigned long fp, u64 pac, u64 next, u64 ret,
				    fw_u64 *out, unsigned int n, unsigned int max,
				    enum fw_stop *stop)
{
	unsigned long prev;

	for (;;) {
		if (!ret) {
			*stop = FW_STOP_USER_END;
			break;
		}
		/* Checked after the read, so a chain that ends exactly here says so. */
		if (n == max) {
			*stop = FW_STOP_USER_DEPTH;
			break;
		}
		out[n++] = ret;
		if (!next) {
			*stop = FW_STOP_USER_END;
			break;
		}
		prev = fp;
		fp = next;
		if (fp <= prev) {
			*stop = FW_STOP_USER_NOT_INCREASING;
			break;
		}
		*stop = fw_user_record(fp, pac, &next, &ret);
		if (*stop != FW_STOP_NONE)
			break;
	}
	return n;
}

/*
 * Walk the current task's user frames into @out, at most @max: the pc, then
 * the lr where *@lr is set, then a return address per frame record. The lr
 * is the caller of a function that builds no frame record (a leaf: a libc
 * system call wrapper), which the records alone miss; it is added where it
 * differs from the first record's return address, so a function that did
 * build its record, and has called nothing since, does not show its caller
 * twice. In a function that did call since, lr points into that function
 * itself: the event marks the frame (user_lr) for the reader to judge with
 * symbols. Returns the frames stored, *@stop why the walk ended.
 */
static unsigned int fw_walk_user(fw_u64 *out, unsigned int max, bool *lr, enum fw_stop *stop)
{
	struct pt_regs *regs = fw_user_regs(stop);
	unsigned long fp;
	u64 pac, next = 0, ret = 0, link;
	unsigned int n = 0;

	*lr = false;
	if (!regs)
		return 0;
	pac = fw_user_pac_mask();
	out[n++] = regs->pc;
	fp = regs->regs[29];
	link = fw_strip_user_pac(regs->regs[30], pac);
	pagefault_disable();
	/* Where user memory is mapped only inside uaccess (software PAN): one window. */
	uaccess_ttbr0_enable();
	*stop = fp ? fw_user_record(fp, pac, &next, &ret) : FW_STOP_USER_END;
	if (link && link != ret && access_ok((void __user *)link, 4)) {
		if (n == max) {
			*stop = FW_STOP_USER_DEPTH;
			goto out;
		}
		out[n++] = link;
		*lr = true;
	}
	if (*stop == FW_STOP_NONE)
		n = fw_user_records(fp, pac, next, ret, out, n, max, stop);
out:
	uaccess_ttbr0_disable();
	pagefault_enable();
	return n;
}

/**
 * fw_user_chain_walk() - walk the user frames behind a hit
 * @slot: the hit's context; its user_chain gets the frames and the stop
 *
 * For the event and the aggregate. Out of line, so that its locals, whose
 * addresses the walk takes, give the hit path no stack canary to pay where
 * user=0.
 */
noinline void fw_user_chain_walk(struct fw_context *slot)
{
	struct fw_user_chain *u = &slot->user_chain;
	/* The branch is on: user was set, and may have been set to 0 since. */
	unsigned int max = READ_ONCE(fw_user);
	enum fw_stop stop = FW_STOP_USER_OFF;
	bool lr = false;

	u->frames = slot->user;
	u->nr = max ? fw_walk_user(slot->user, max, &lr, &stop) : 0;
	u->stop = stop;
	u->lr = lr;
}
