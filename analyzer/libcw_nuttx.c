// SPDX-License-Identifier: GPL-2.0
/*
 * libcw_nuttx.c - Apache NuttX for the RTOS model: the TCBs of g_pidhash,
 * the task lists that cross-check their states, and the context the ARMv7-M
 * port's exception_common saves at the TCB's xcp.regs.
 */
#include <stdio.h>
#include <string.h>

#include "cw_exc.h"
#include "cw_rtos_model.h"

#define NUTTX_STACK_COLOR	0xdeadbeefu	/* STACK_COLOR, arm_internal.h */
#define NUTTX_NAME_MAX		32		/* CONFIG_TASK_NAME_SIZE 31, with its NUL */
#define MAX_PIDHASH		1024		/* more slots than a Cortex-M system grows to */

/* enum tstate_e without CONFIG_SMP (which adds TSTATE_TASK_ASSIGNED after READYTORUN). */
enum {
	TSTATE_TASK_INVALID, TSTATE_TASK_PENDING, TSTATE_TASK_READYTORUN, TSTATE_TASK_RUNNING,
	TSTATE_TASK_INACTIVE, TSTATE_WAIT_SEM, TSTATE_WAIT_SIG, TSTATE_WAIT_MQNOTEMPTY,
	TSTATE_WAIT_MQNOTFULL, NUM_TASK_STATES
};

/*
 * What exception_common (arch/arm/src/armv7-m/arm_exception.S) stores at
 * xcp.regs, from the lowest address: the sp before the exception, BASEPRI,
 * r4-r11, CONTROL, EXC_RETURN, s16-s31 with CONFIG_ARCH_FPU (their space
 * kept for a basic frame too), then the hardware frame. Whether the build
 * had CONFIG_ARCH_FPU is not in the dump: the layout under which more saved
 * contexts make sense is the one.
 */
#define REG_R4		2
#define REG_EXC_RETURN	11
#define SW_INT_REGS	12
#define SW_FPU_REGS	16

struct nx_layout {
	uint32_t pid, prio, state, wd_func, stack_size, stack_alloc, stack_base, waitobj, regs;
	uint32_t name, flink, sem_waitlist;
	int have_name;
};

/*
 * Defaults: struct tcb_s of NuttX 12.x on ARMv7-M in a flat build with
 * CONFIG_DISABLE_PTHREAD (no join members before pid), CONFIG_RR_INTERVAL >
 * 0, signals, no SMP, no priority inheritance, a 64-bit clock_t and
 * CONFIG_TASK_NAME_SIZE 31. The options that move fields are many
 * (pthreads' join members, CONFIG_PRIORITY_INHERITANCE, CONFIG_SMP, the
 * critical-section monitor): DWARF names them when it is there, else
 * nx_measure finds them in the dump.
 */
static int nx_layout(const struct cw_image *img, struct nx_layout *l)
{
	const struct cw_rtos_field f[] = {
		{ "tcb_s", "flink", &l->flink, 0, NULL, 0, 0, NULL },
		{ "tcb_s", "pid", &l->pid, 12, NULL, 0, 0, NULL },
		{ "tcb_s", "sched_priority", &l->prio, 16, NULL, 0, 0, NULL },
		{ "tcb_s", "task_state", &l->state, 28, NULL, 0, 0, NULL },
		{ "tcb_s", "waitdog.func", &l->wd_func, 60, NULL, 0, 0, NULL },
		{ "tcb_s", "adj_stack_size", &l->stack_size, 72, NULL, 0, 0, NULL },
		{ "tcb_s", "stack_alloc_ptr", &l->stack_alloc, 76, NULL, 0, 0, NULL },
		{ "tcb_s", "stack_base_ptr", &l->stack_base, 80, NULL, 0, 0, NULL },
		{ "tcb_s", "waitobj", &l->waitobj, 84, NULL, 0, 0, NULL },
		{ "tcb_s", "xcp.regs", &l->regs, 112, NULL, 0, 0, NULL },
		{ "tcb_s", "name", &l->name, 116, NULL, 0, 1, &l->have_name },
		{ "sem_s", "waitlist", &l->sem_waitlist, 8, NULL, 0, 0, NULL },
	};
	int dwarf = cw_rtos_read_fields(img, f, ARRAY_SIZE(f));

	/* Without DWARF the default, CONFIG_TASK_NAME_SIZE 31, has the name. */
	if (!cw_image_has_dwarf(img))
		l->have_name = 1;
	return dwarf;
}

static int nx_rd8(const struct cw_rtos_walk *w, uint32_t addr, uint32_t *v)
{
	uint8_t b;

	if (cw_mem_read(w->t->mem, addr, &b, 1))
		return -1;
	*v = b;
	return 0;
}

/* The saved context at regs under one layout; 0 when it is one: a valid EXC_RETURN, pc in code. */
static int nx_try_context(struct cw_rtos_walk *w, struct cw_thread *th, uint32_t regs, int fp)
{
	uint32_t exc;

	th->problem[0] = 0;
	if (cw_rtos_rd32(w, regs + 4 * REG_EXC_RETURN, &exc) ||
	    !cw_exc_return_to_thread_psp(exc) ||
	    cw_rtos_read_context(w, th, regs + 4 * REG_R4,
				 regs + 4 * (SW_INT_REGS + (fp ? SW_FPU_REGS : 0)), exc))
		return -1;
	th->layout = fp ? "armv7-m xcptcontext fpu" : "armv7-m xcptcontext";
	return 0;
}

/* The kernel's names of its states (enum tstate_e), mapped. */
static const struct {
	const char *name;
	enum cw_thread_state state;
} nx_states[NUM_TASK_STATES] = {
	[TSTATE_TASK_INVALID] = { "INVALID", CW_TS_UNKNOWN },
	[TSTATE_TASK_PENDING] = { "PENDING", CW_TS_READY },	/* waits for preemption */
	[TSTATE_TASK_READYTORUN] = { "READYTORUN", CW_TS_READY },
	[TSTATE_TASK_RUNNING] = { "RUNNING", CW_TS_READY },	/* the model decides running */
	[TSTATE_TASK_INACTIVE] = { "INACTIVE", CW_TS_SUSPENDED },	/* created, not activated */
	[TSTATE_WAIT_SEM] = { "WAIT_SEM", CW_TS_BLOCKED },
	[TSTATE_WAIT_SIG] = { "WAIT_SIG", CW_TS_BLOCKED },
	[TSTATE_WAIT_MQNOTEMPTY] = { "WAIT_MQNOTEMPTY", CW_TS_BLOCKED },
	[TSTATE_WAIT_MQNOTFULL] = { "WAIT_MQNOTFULL", CW_TS_BLOCKED },
};

/*
 * A task waiting for a signal with its watchdog armed sleeps (nxsig_usleep,
 * nxsig_timedwait); a semaphore or queue wait names its object (waitobj).
 */
static void nx_state(struct cw_rtos_walk *w, struct cw_thread *th, const struct nx_layout *l,
		     uint32_t st)
{
	const char *obj_name;
	uint32_t obj = 0, wd = 0;

	if (st >= NUM_TASK_STATES) {
		snprintf(th->kernel_state, sizeof(th->kernel_state), "%u", st);
		return;
	}
	th->state = nx_states[st].state;
	snprintf(th->kernel_state, sizeof(th->kernel_state), "%s", nx_states[st].name);
	if (st == TSTATE_WAIT_SIG && !cw_rtos_rd32(w, th->tcb + l->wd_func, &wd) && wd) {
		th->state = CW_TS_DELAYED;
		return;
	}
	if (st == TSTATE_WAIT_SIG) {
		snprintf(th->waits_on, sizeof(th->waits_on), "a signal");
		return;
	}
	if (th->state != CW_TS_BLOCKED)
		return;
	if (cw_rtos_rd32(w, th->tcb + l->waitobj, &obj) || !obj) {
		snprintf(th->waits_on, sizeof(th->waits_on), "%s (none recorded)",
			 st == TSTATE_WAIT_SEM ? "semaphore" : "message queue");
		return;
	}
	obj_name = cw_image_object_name(w->t->img, obj);
	snprintf(th->waits_on, sizeof(th->waits_on), "%s %s%s%sat 0x%08x",
		 st == TSTATE_WAIT_SEM ? "semaphore" : "message queue", obj_name ? "\"" : "",
		 obj_name ? obj_name : "", obj_name ? "\" " : "", obj);
}

/* A TCB pointer that can be one: aligned, its words in the dump. */
static int nx_is_tcb(const struct cw_rtos_walk *w, const struct nx_layout *l, uint32_t tcb)
{
	uint32_t v;

	return tcb && !(tcb & 3) && !cw_rtos_rd32(w, tcb, &v) &&
	       !cw_rtos_rd32(w, tcb + l->regs, &v);
}

static void nx_task(struct cw_rtos_walk *w, const struct nx_layout *l, struct cw_thread *th,
		    uint32_t pid, uint32_t st)
{
	uint32_t v, base;

	if (l->have_name)
		cw_rtos_read_name(w, th->tcb + l->name, NUTTX_NAME_MAX, th->name, sizeof(th->name));
	if (!th->name[0])
		snprintf(th->name, sizeof(th->name), "pid %u", pid);
	if (!nx_rd8(w, th->tcb + l->prio, &v))
		th->priority = (int)v;
	nx_state(w, th, l, st);
	/* Coloured and used from stack_base_ptr (above the TLS block) to its top. */
	if (!cw_rtos_rd32(w, th->tcb + l->stack_base, &base) &&
	    !cw_rtos_rd32(w, th->tcb + l->stack_size, &v) && base && v && v < 0x10000000u &&
	    base + v > base) {
		th->have_stack = 1;
		th->stack_lo = base;
		th->stack_size = v;
		th->stack_hi = base + v;
	}
}

/*
 * Walk a dq_queue_t of TCBs (linked through flink), counting them and
 * checking each is a task of g_pidhash in one of the states this list
 * holds; warn on a cycle, a stranger or a link out of the dump. Returns the
 * count, -1 when the list cannot be trusted.
 */
static int nx_walk_list(struct cw_rtos_walk *w, const struct nx_layout *l, uint32_t head_addr,
			const char *name, uint32_t want_lo, uint32_t want_hi)
{
	const struct cw_rtos *r = w->out;
	uint32_t node, st = ~0u, seen[CW_MAX_THREADS];
	unsigned int n = 0, i;

	if (cw_rtos_rd32(w, head_addr, &node)) {
		cw_rtos_warn(w, "%s at 0x%08x not in the dump", name, head_addr);
		return -1;
	}
	while (node) {
		for (i = 0; i < n; i++)
			if (seen[i] == node) {
				cw_rtos_warn(w, "%s is cyclic at 0x%08x", name, node);
				return -1;
			}
		for (i = 0; i < r->nr && r->threads[i].tcb != node; i++)
			;
		if (i == r->nr || n >= ARRAY_SIZE(seen)) {
			cw_rtos_warn(w, "%s holds 0x%08x, no task of g_pidhash", name, node);
			return -1;
		}
		seen[n++] = node;
		if (nx_rd8(w, node + l->state, &st) || st < want_lo || st > want_hi)
			cw_rtos_warn(w, "%s holds task 0x%08x in state %u", name, node, st);
		if (cw_rtos_rd32(w, node + l->flink, &node)) {
			cw_rtos_warn(w, "%s: task 0x%08x not in the dump", name, seen[n - 1]);
			return -1;
		}
	}
	return (int)n;
}

/*
 * The lists must hold exactly the tasks whose states say so: g_readytorun
 * the running and ready ones, g_pendingtasks the pending, g_waitingforsignal
 * those waiting for a signal, g_inactivetasks the inactive; a semaphore
 * waiter is on its semaphore's waitlist.
 */
static void nx_check_lists(struct cw_rtos_walk *w, const struct nx_layout *l,
			   const unsigned int *count)
{
	static const struct { const char *sym; uint32_t lo, hi; } lists[] = {
		{ "g_readytorun", TSTATE_TASK_READYTORUN, TSTATE_TASK_RUNNING },
		{ "g_pendingtasks", TSTATE_TASK_PENDING, TSTATE_TASK_PENDING },
		{ "g_waitingforsignal", TSTATE_WAIT_SIG, TSTATE_WAIT_SIG },
		{ "g_inactivetasks", TSTATE_TASK_INACTIVE, TSTATE_TASK_INACTIVE },
	};
	uint32_t addr, want, obj, st;
	unsigned int i, k;
	int n;

	for (i = 0; i < ARRAY_SIZE(lists); i++) {
		if (cw_image_lookup(w->t->img, lists[i].sym, &addr))
			continue;
		n = nx_walk_list(w, l, addr, lists[i].sym, lists[i].lo, lists[i].hi);
		for (want = 0, k = lists[i].lo; k <= lists[i].hi; k++)
			want += count[k];
		if (n >= 0 && (unsigned int)n != want)
			cw_rtos_warn(w, "%s holds %d tasks, %u are in its states", lists[i].sym, n,
				     want);
	}
	for (i = 0; i < w->out->nr; i++) {
		const struct cw_thread *th = &w->out->threads[i];
		uint32_t node;
		unsigned int hops;

		if (nx_rd8(w, th->tcb + l->state, &st) || st != TSTATE_WAIT_SEM ||
		    cw_rtos_rd32(w, th->tcb + l->waitobj, &obj) || !obj)
			continue;
		if (cw_rtos_rd32(w, obj + l->sem_waitlist, &node))
			continue;
		for (hops = 0; node && node != th->tcb && hops < CW_MAX_THREADS; hops++)
			if (cw_rtos_rd32(w, node + l->flink, &node))
				break;
		if (node != th->tcb)
			cw_rtos_warn(w, "task 0x%08x waits on semaphore 0x%08x, not in its waitlist",
				     th->tcb, obj);
	}
}

/*
 * Without DWARF, the layout as the dump shows it, where struct tcb_s's many
 * options moved it: the name is where g_idletcb holds "Idle_Task", with
 * xcp.regs, xcp's last member, before it; pid is the word at which every
 * task of g_pidhash hashes to its slot and is followed, 8 bytes on, by a
 * start function in code; adj_stack_size, stack_alloc_ptr and
 * stack_base_ptr are the first three words above it that are a stack for
 * every task (the base at most 1 KiB of TLS and arguments above the
 * allocation), the waitdog just below and waitobj just above them. What
 * cannot be measured keeps its default, with a warning.
 */
static void nx_measure(struct cw_rtos_walk *w, struct nx_layout *l, const uint32_t *tcbs,
		       unsigned int n, uint32_t nhash)
{
	static const char idle_name[] = "Idle_Task";
	uint32_t idle, size, k, v, alloc, base, start;
	uint8_t buf[512];
	unsigned int i, named = 0;

	if (!cw_image_object(w->t->img, "g_idletcb", &idle, &size) && size <= sizeof(buf) &&
	    !cw_mem_read(w->t->mem, idle, buf, size))
		for (k = 8; k + sizeof(idle_name) <= size; k++)
			if (!memcmp(buf + k, idle_name, sizeof(idle_name))) {
				l->name = k;
				l->regs = k - 4;
				named = 1;
				break;
			}
	for (k = 8; k + 20 < l->regs; k += 4) {
		for (i = 0; i < n; i++)
			if (cw_rtos_rd32(w, tcbs[i] + k, &v) || (v & (nhash - 1)) != tcbs[n + i] ||
			    (v && (cw_rtos_rd32(w, tcbs[i] + k + 8, &start) ||
				   !cw_image_is_code(w->t->img, start))))
				break;
		if (i == n)
			break;
	}
	if (k + 20 >= l->regs || !named) {
		cw_rtos_warn(w, "no DWARF, and struct tcb_s's layout not measurable in the dump: "
			     "its defaults are used");
		return;
	}
	l->pid = k;
	l->prio = k + 4;
	l->state = k + 16;
	for (k = l->state + 4; k + 12 < l->regs; k += 4) {
		for (i = 0; i < n; i++)
			if (cw_rtos_rd32(w, tcbs[i] + k, &size) ||
			    cw_rtos_rd32(w, tcbs[i] + k + 4, &alloc) ||
			    cw_rtos_rd32(w, tcbs[i] + k + 8, &base) || !size || size >= 0x1000000u ||
			    !alloc || base < alloc || base - alloc > 1024 || base + size < base)
				break;
		if (i == n)
			break;
	}
	if (k + 12 >= l->regs)
		return;
	l->stack_size = k;
	l->stack_alloc = k + 4;
	l->stack_base = k + 8;
	l->wd_func = k - 12;	/* struct wdog_s: node, arg, func, expired (24 bytes) */
	l->waitobj = k + 12;
}

/*
 * g_pidhash (g_npidhash slots, a power of two) holds every task by pid;
 * the idle task is pid 0. The running task heads g_readytorun;
 * g_running_tasks[0] names it too and, in an interrupt that has just
 * decided to switch, is still the task whose stack is live.
 */
static int nx_find(struct cw_rtos_walk *w)
{
	const struct cw_image *img = w->t->img;
	uint32_t hash_sym, nhash_sym, ready, hash, nhash, cur = 0, run_sym, tcb, pid, st, i;
	uint32_t regs[CW_MAX_THREADS], tcbs[2 * CW_MAX_THREADS], slots[CW_MAX_THREADS];
	unsigned int count[NUM_TASK_STATES] = { 0 }, n;
	struct cw_thread *th;
	struct nx_layout l;

	if (cw_image_lookup(img, "g_pidhash", &hash_sym) ||
	    cw_image_lookup(img, "g_npidhash", &nhash_sym) ||
	    cw_image_lookup(img, "g_readytorun", &ready))
		return -1;
	w->out->layout_dwarf = nx_layout(img, &l);
	if (cw_rtos_rd32(w, ready, &cur))
		cw_rtos_warn(w, "g_readytorun at 0x%08x not in the dump", ready);
	if (!cw_image_lookup(img, "g_running_tasks", &run_sym) && !cw_rtos_rd32(w, run_sym, &i) &&
	    i)
		cur = i;
	if (cw_rtos_rd32(w, hash_sym, &hash) || cw_rtos_rd32(w, nhash_sym, &nhash)) {
		cw_rtos_warn(w, "g_pidhash or g_npidhash not in the dump");
		return 0;
	}
	if (!nhash || nhash > MAX_PIDHASH || (nhash & (nhash - 1))) {
		cw_rtos_warn(w, "g_npidhash says %u slots: not a power of two", nhash);
		return 0;
	}
	/* Before nx_start, no task exists and g_readytorun is empty. */
	w->out->not_started = !cur;
	if (!w->out->layout_dwarf) {
		/* The TCBs first, their slots after them. */
		for (i = 0, n = 0; i < nhash && n < CW_MAX_THREADS; i++)
			if (!cw_rtos_rd32(w, hash + 4 * i, &tcb) && tcb) {
				tcbs[n] = tcb;
				slots[n++] = i;
			}
		memcpy(tcbs + n, slots, n * sizeof(*slots));
		nx_measure(w, &l, tcbs, n, nhash);
	}
	for (i = 0; i < nhash; i++) {
		if (cw_rtos_rd32(w, hash + 4 * i, &tcb)) {
			cw_rtos_warn(w, "g_pidhash slot %u at 0x%08x not in the dump", i, hash + 4 * i);
			return 0;
		}
		if (!tcb)
			continue;
		if (!nx_is_tcb(w, &l, tcb) || cw_rtos_rd32(w, tcb + l.pid, &pid) ||
		    (pid & (nhash - 1)) != i || nx_rd8(w, tcb + l.state, &st)) {
			cw_rtos_warn(w, "g_pidhash slot %u holds 0x%08x, no task of that pid", i, tcb);
			continue;
		}
		th = cw_rtos_add_thread(w, tcb, "g_pidhash");
		if (!th)
			break;
		if (st < NUM_TASK_STATES)
			count[st]++;
		th->current = tcb == cur;
		nx_task(w, &l, th, pid, st);
		/*
		 * The running task's xcp.regs is NULL, or the context an interrupt
		 * over it saved: the model takes that when the crash is in the handler.
		 */
		if (cw_rtos_rd32(w, tcb + l.regs, &regs[w->out->nr - 1]))
			regs[w->out->nr - 1] = 0;
		else if (!regs[w->out->nr - 1] && !th->current)
			cw_thread_problem(th, "xcp.regs is NULL: no saved context");
	}
	if (cur && !w->out->nr)
		cw_rtos_warn(w, "g_pidhash holds no task");
	for (i = 0; i < w->out->nr && w->out->threads[i].tcb != cur; i++)
		;
	if (cur && i == w->out->nr)
		cw_rtos_warn(w, "the running task 0x%08x is not in g_pidhash", cur);
	cw_rtos_contexts_by_majority(w, regs, nx_try_context, 0, "xcp.regs");
	nx_check_lists(w, &l, count);
	return 0;
}

/*
 * The idle task is the boot thread: nx_start runs its loop, called from the
 * reset code, which no task start function ends; the chain ends there.
 */
static void nx_settle(struct cw_rtos_walk *w, struct cw_thread *th)
{
	unsigned int i;

	(void)w;
	for (i = 0; i < th->bt.nr; i++)
		if (th->bt.frames[i].func && !strcmp(th->bt.frames[i].func->name, "nx_start")) {
			th->bt.nr = i + 1;
			th->bt.stop = CW_STOP_TASK_ENTRY;
			snprintf(th->bt.stop_detail, sizeof(th->bt.stop_detail),
				 "nx_start: the idle task's loop");
			return;
		}
}

const struct cw_rtos_ops cw_nuttx_ops = {
	.kind = CW_RTOS_NUTTX, .name = "nuttx", .detect = "g_readytorun",
	.fill_word = NUTTX_STACK_COLOR, .find = nx_find, .thread_entry = "nxtask_start",
	.isr_stack_lo = "g_intstackalloc", .isr_stack_hi = "g_intstacktop", .settle = nx_settle,
};
