// SPDX-License-Identifier: GPL-2.0
/*
 * cw_nuttx.c - Apache NuttX for the RTOS model: the TCBs of g_pidhash,
 * the task lists that cross-check their states, and the context the ARMv7-M
 * port's exception_common saves at the TCB's xcp.regs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/cw_exc.h"
#include "rtos/cw_rtos_model.h"

#define NUTTX_STACK_COLOR	0xdeadbeefu	/* STACK_COLOR, arm_internal.h */
#define NUTTX_NAME_MAX		32		/* CONFIG_TASK_NAME_SIZE 31, with its NUL */
#define MAX_PIDHASH		1024		/* more slots than a Cortex-M system grows to */

/*
 * The states of enum tstate_e, crashwalk's order; their numbers come from
 * the firmware's DWARF, as CONFIG_SMP (ASSIGNED), CONFIG_SCHED_EVENTS
 * (WAIT_EVENT), the message queues, CONFIG_LEGACY_PAGING (WAIT_PAGEFILL)
 * and CONFIG_SIG_SIGSTOP_ACTION (STOPPED) add and shift them.
 */
enum {
	NX_INVALID, NX_PENDING, NX_READYTORUN, NX_ASSIGNED, NX_RUNNING, NX_INACTIVE, NX_WAIT_SEM,
	NX_WAIT_SIG, NX_WAIT_EVENT, NX_WAIT_MQNOTEMPTY, NX_WAIT_MQNOTFULL, NX_WAIT_PAGEFILL,
	NX_STOPPED, NX_NSTATES
};

/*
 * The kernel's names of its states, mapped, with their numbers in a
 * stripped firmware: NuttX's defaults (no SMP, no events, queues on, no
 * paging) and STOPPED next, where CONFIG_SIG_SIGSTOP_ACTION puts it; -1 absent.
 */
static const struct {
	const char *enumerator, *name;
	enum cw_thread_state state;
	int def;
} nx_states[NX_NSTATES] = {
	[NX_INVALID] = { "TSTATE_TASK_INVALID", "INVALID", CW_TS_UNKNOWN, 0 },
	[NX_PENDING] = { "TSTATE_TASK_PENDING", "PENDING", CW_TS_READY, 1 },	/* preemption locked */
	[NX_READYTORUN] = { "TSTATE_TASK_READYTORUN", "READYTORUN", CW_TS_READY, 2 },
	[NX_ASSIGNED] = { "TSTATE_TASK_ASSIGNED", "ASSIGNED", CW_TS_READY, -1 },
	[NX_RUNNING] = { "TSTATE_TASK_RUNNING", "RUNNING", CW_TS_READY, 3 },	/* the model decides */
	[NX_INACTIVE] = { "TSTATE_TASK_INACTIVE", "INACTIVE", CW_TS_SUSPENDED, 4 },	/* not activated */
	[NX_WAIT_SEM] = { "TSTATE_WAIT_SEM", "WAIT_SEM", CW_TS_BLOCKED, 5 },
	[NX_WAIT_SIG] = { "TSTATE_WAIT_SIG", "WAIT_SIG", CW_TS_BLOCKED, 6 },
	[NX_WAIT_EVENT] = { "TSTATE_WAIT_EVENT", "WAIT_EVENT", CW_TS_BLOCKED, -1 },
	[NX_WAIT_MQNOTEMPTY] = { "TSTATE_WAIT_MQNOTEMPTY", "WAIT_MQNOTEMPTY", CW_TS_BLOCKED, 7 },
	[NX_WAIT_MQNOTFULL] = { "TSTATE_WAIT_MQNOTFULL", "WAIT_MQNOTFULL", CW_TS_BLOCKED, 8 },
	[NX_WAIT_PAGEFILL] = { "TSTATE_WAIT_PAGEFILL", "WAIT_PAGEFILL", CW_TS_BLOCKED, -1 },
	[NX_STOPPED] = { "TSTATE_TASK_STOPPED", "STOPPED", CW_TS_SUSPENDED, 9 },	/* SIGSTOP */
};

/* The state numbers: the firmware's enum tstate_e by name, else the defaults. */
static void nx_state_numbers(const struct cw_image *img, int64_t *num)
{
	const char *names[NX_NSTATES];
	unsigned int i;

	for (i = 0; i < NX_NSTATES; i++) {
		names[i] = nx_states[i].enumerator;
		num[i] = cw_image_has_dwarf(img) ? -1 : nx_states[i].def;
	}
	if (cw_image_has_dwarf(img) &&
	    cw_image_enumerators(img, "tstate_e", names, NX_NSTATES, num) <= 0)
		for (i = 0; i < NX_NSTATES; i++)
			num[i] = nx_states[i].def;
}

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
	uint32_t name, flink, sem_waitlist, saved_regs;
	int have_name, have_saved_regs;
	int64_t st_num[NX_NSTATES];	/* each state's number in this firmware */
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
		/* CONFIG_ENABLE_ALL_SIGNALS: the context signal delivery interrupted */
		{ "tcb_s", "xcp.saved_regs", &l->saved_regs, 108, NULL, 0, 1,
		  &l->have_saved_regs },
		{ "tcb_s", "name", &l->name, 116, NULL, 0, 1, &l->have_name },
		{ "sem_s", "waitlist", &l->sem_waitlist, 8, NULL, 0, 0, NULL },
	};
	int dwarf = cw_rtos_read_fields(img, f, ARRAY_SIZE(f));

	/* Without DWARF the default, CONFIG_TASK_NAME_SIZE 31, has the name. */
	if (!cw_image_has_dwarf(img))
		l->have_name = l->have_saved_regs = 1;
	nx_state_numbers(img, l->st_num);
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
	if (cw_rtos_rd32(w, regs + 4 * REG_EXC_RETURN, &exc) || !cw_rtos_thread_return(w, exc) ||
	    cw_rtos_read_context(w, th, regs + 4 * REG_R4,
				 regs + 4 * (SW_INT_REGS + (fp ? SW_FPU_REGS : 0)), exc))
		return -1;
	th->layout = fp ? "armv7-m xcptcontext fpu" : "armv7-m xcptcontext";
	return 0;
}

/*
 * exception_common stores the sp before the exception first: its hardware
 * frame's base plus HW_XCPT_SIZE (the extended frame's size with
 * CONFIG_ARCH_FPU, whatever the frame's kind), so a context the port saved
 * points just above itself.
 */
#define NX_HW_XCPT_SIZE(fp)	((fp) ? 104u : 32u)
/* Bytes below a stack's top scanned for them: a damaged TCB's size costs no more. */
#define NX_RESTORED_REACH	0x100000u

/*
 * The running task's xcp.regs is NULL: arm_doirq clears it as it switches
 * the task in, and the context it came back from stays whole in the dead
 * part of its stack with nothing pointing at it. Found by its shape (its
 * first word the sp above its own hardware frame, a Thread-mode EXC_RETURN,
 * a context that reads), it is stale as ThreadX's saved sp names one; from
 * the stack's top, the ones a search meets first. Not the context signal
 * delivery will resume (xcp.saved_regs): that one is live.
 */
static void nx_restored(struct cw_rtos_walk *w, const struct nx_layout *l, struct cw_thread *th)
{
	struct cw_thread *tmp;
	uint32_t a, v, sw, keep = 0;
	int fp;

	if (!th->have_stack || th->stack_hi - th->stack_lo < 4)
		return;
	tmp = malloc(sizeof(*tmp));
	if (!tmp)
		return;
	if (!l->have_saved_regs || cw_rtos_rd32(w, th->tcb + l->saved_regs, &keep))
		keep = 0;
	for (a = (th->stack_hi - 4) & ~3u; a >= th->stack_lo && a < th->stack_hi &&
	     th->stack_hi - a <= NX_RESTORED_REACH && th->nr_restored < CW_MAX_RESTORED; a -= 4) {
		for (fp = 0; fp < 2 && !cw_rtos_rd32(w, a, &v); fp++) {
			sw = 4 * (SW_INT_REGS + (fp ? SW_FPU_REGS : 0));
			if (v != a + sw + NX_HW_XCPT_SIZE(fp) || a == keep)
				continue;
			*tmp = *th;
			tmp->nr_restored = 0;
			if (!nx_try_context(w, tmp, a, fp) && tmp->saved_frame == a + sw)
				th->restored[th->nr_restored++] = a + sw;
		}
	}
	free(tmp);
}

/* The state a task's task_state byte names, NX_NSTATES for none. */
static unsigned int nx_state_of(const struct nx_layout *l, uint32_t v)
{
	unsigned int i;

	for (i = 0; i < NX_NSTATES && l->st_num[i] != (int64_t)v; i++)
		;
	return i;
}

/*
 * A task waiting for a signal with its watchdog armed sleeps (nxsig_usleep,
 * nxsig_timedwait); a semaphore or queue wait names its object (waitobj).
 */
static void nx_state(struct cw_rtos_walk *w, struct cw_thread *th, const struct nx_layout *l,
		     uint32_t v)
{
	unsigned int st = nx_state_of(l, v);
	const char *obj_name, *what;
	uint32_t obj = 0, wd = 0;

	if (st == NX_NSTATES) {
		snprintf(th->kernel_state, sizeof(th->kernel_state), "%u", v);
		return;
	}
	th->state = nx_states[st].state;
	snprintf(th->kernel_state, sizeof(th->kernel_state), "%s", nx_states[st].name);
	if (st == NX_WAIT_SIG && !cw_rtos_rd32(w, th->tcb + l->wd_func, &wd) && wd) {
		th->state = CW_TS_DELAYED;
		return;
	}
	if (st == NX_WAIT_SIG) {
		snprintf(th->waits_on, sizeof(th->waits_on), "a signal");
		return;
	}
	if (st == NX_STOPPED) {
		snprintf(th->waits_on, sizeof(th->waits_on), "SIGCONT");
		return;
	}
	if (th->state != CW_TS_BLOCKED)
		return;
	what = st == NX_WAIT_SEM ? "semaphore" : st == NX_WAIT_EVENT ? "event" :
	       st == NX_WAIT_PAGEFILL ? "page fill" : "message queue";
	if (cw_rtos_rd32(w, th->tcb + l->waitobj, &obj) || !obj) {
		snprintf(th->waits_on, sizeof(th->waits_on), "%s (none recorded)", what);
		return;
	}
	obj_name = cw_image_object_name(w->t->img, obj);
	snprintf(th->waits_on, sizeof(th->waits_on), "%s %s%s%sat 0x%08x", what,
		 obj_name ? "\"" : "", obj_name ? obj_name : "", obj_name ? "\" " : "", obj);
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
		if (nx_rd8(w, node + l->state, &st) || nx_state_of(l, st) < want_lo ||
		    nx_state_of(l, st) > want_hi)
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
 * those waiting for a signal, g_inactivetasks the inactive, g_stoppedtasks
 * the stopped; a semaphore waiter is on its semaphore's waitlist.
 */
static void nx_check_lists(struct cw_rtos_walk *w, const struct nx_layout *l,
			   const unsigned int *count)
{
	static const struct { const char *sym; uint32_t lo, hi; } lists[] = {
		{ "g_readytorun", NX_READYTORUN, NX_RUNNING },
		{ "g_pendingtasks", NX_PENDING, NX_PENDING },
		{ "g_waitingforsignal", NX_WAIT_SIG, NX_WAIT_SIG },
		{ "g_inactivetasks", NX_INACTIVE, NX_INACTIVE },
		{ "g_stoppedtasks", NX_STOPPED, NX_STOPPED },
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
			cw_rtos_warn(w, "%s holds %d task%s, %u %s in its states", lists[i].sym, n,
				     cw_plural((unsigned long)n), want, want == 1 ? "is" : "are");
	}
	for (i = 0; i < w->out->nr; i++) {
		const struct cw_thread *th = &w->out->threads[i];
		uint32_t node;
		unsigned int hops;

		if (nx_rd8(w, th->tcb + l->state, &st) || nx_state_of(l, st) != NX_WAIT_SEM ||
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
				l->saved_regs = k - 8;
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

/* nx_measure over the tasks of g_pidhash. */
static void nx_measure_tasks(struct cw_rtos_walk *w, struct nx_layout *l, uint32_t hash,
			     uint32_t nhash)
{
	uint32_t tcbs[2 * CW_MAX_THREADS], slots[CW_MAX_THREADS], tcb, i;
	unsigned int n;

	/* The TCBs first, their slots after them. */
	for (i = 0, n = 0; i < nhash && n < CW_MAX_THREADS; i++)
		if (!cw_rtos_rd32(w, hash + 4 * i, &tcb) && tcb) {
			tcbs[n] = tcb;
			slots[n++] = i;
		}
	memcpy(tcbs + n, slots, n * sizeof(*slots));
	nx_measure(w, l, tcbs, n, nhash);
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
	uint32_t regs[CW_MAX_THREADS], isr;
	unsigned int count[NX_NSTATES + 1] = { 0 };
	struct cw_thread *th;
	struct nx_layout l;

	if (cw_image_lookup(img, "g_pidhash", &hash_sym) ||
	    cw_image_lookup(img, "g_npidhash", &nhash_sym) ||
	    cw_image_lookup(img, "g_readytorun", &ready))
		return -1;
	w->out->layout_dwarf = nx_layout(img, &l);
	/*
	 * The build decides the stack threads run on, and the ELF shows it:
	 * CONFIG_ARCH_INTERRUPTSTACK > 7 allocates g_intstackalloc
	 * (arm_exception.S) and gives every task EXC_RETURN_PROCESS_STACK
	 * (exc_return.h); without it, NuttX's default, tasks and handlers share
	 * the MSP and every context returns to Thread mode on the MSP.
	 */
	w->out->threads_on_msp = !!cw_image_lookup(img, cw_nuttx_ops.isr_stack_lo, &isr);
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
	if (!w->out->layout_dwarf)
		nx_measure_tasks(w, &l, hash, nhash);
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
		count[nx_state_of(&l, st)]++;
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
	for (i = 0; i < w->out->nr; i++)
		if (w->out->threads[i].current && !regs[i])
			nx_restored(w, &l, &w->out->threads[i]);
	nx_check_lists(w, &l, count);
	return 0;
}

/*
 * A task in signal delivery runs arm_sigdeliver, entered through the context
 * up_schedule_sigaction built from the interrupted one's copy (pc changed,
 * the interrupted lr kept, so no unwinder finds its caller); at its end
 * arm_fullcontextrestore resumes the interrupted context, which it kept at
 * xcp.saved_regs. That context, read the way xcp.regs is, is the caller.
 */
static void nx_sigdeliver(struct cw_rtos_walk *w, struct cw_thread *th)
{
	struct cw_thread *tmp;
	struct nx_layout l;
	uint32_t saved, hash, nhash;
	unsigned int i, k, nwarn = w->out->nr_warnings;

	for (k = 0; k < th->bt.nr; k++)
		if (th->bt.frames[k].func && !strcmp(th->bt.frames[k].func->name, "arm_sigdeliver"))
			break;
	if (k == th->bt.nr || !th->have_stack)
		return;
	if (!nx_layout(w->t->img, &l) && !cw_image_lookup(w->t->img, "g_pidhash", &hash) &&
	    !cw_rtos_rd32(w, hash, &hash) && !cw_image_lookup(w->t->img, "g_npidhash", &nhash) &&
	    !cw_rtos_rd32(w, nhash, &nhash) && nhash && nhash <= MAX_PIDHASH &&
	    !(nhash & (nhash - 1)))
		nx_measure_tasks(w, &l, hash, nhash);
	/* nx_find has said what measuring the layout again would. */
	w->out->nr_warnings = nwarn;
	if (!l.have_saved_regs || cw_rtos_rd32(w, th->tcb + l.saved_regs, &saved) || !saved ||
	    (saved & 3) || saved < th->bt.frames[k].sp || saved >= th->stack_hi)
		return;
	tmp = malloc(sizeof(*tmp));
	if (!tmp)
		return;
	*tmp = *th;
	tmp->current = 0;
	tmp->have_regs = 0;
	if (nx_try_context(w, tmp, saved, th->layout && strstr(th->layout, "fpu")) &&
	    nx_try_context(w, tmp, saved, !(th->layout && strstr(th->layout, "fpu")))) {
		cw_thread_problem(th, "in signal delivery: no context fits at xcp.saved_regs 0x%08x",
				  saved);
		th->bt.nr = k + 1;
		th->bt.stop = CW_STOP_NO_RETURN;
		snprintf(th->bt.stop_detail, sizeof(th->bt.stop_detail),
			 "arm_sigdeliver: the interrupted context is unreadable");
		free(tmp);
		return;
	}
	cw_rtos_finish_thread(w, tmp);
	th->bt.nr = k + 1;
	for (i = 0; i < tmp->bt.nr && th->bt.nr < CW_MAX_FRAMES; i++)
		th->bt.frames[th->bt.nr++] = tmp->bt.frames[i];
	th->bt.stop = tmp->bt.stop;
	memcpy(th->bt.stop_detail, tmp->bt.stop_detail, sizeof(th->bt.stop_detail));
	free(tmp);
}

/*
 * The idle task is the boot thread: nx_start runs its loop, called from the
 * reset code, which no task start function ends; the chain ends there.
 */
static void nx_settle(struct cw_rtos_walk *w, struct cw_thread *th)
{
	unsigned int i;

	nx_sigdeliver(w, th);
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
	.detect = "g_readytorun",
	.fill_word = NUTTX_STACK_COLOR, .find = nx_find, .thread_entry = "nxtask_start",
	.isr_stack_lo = "g_intstackalloc", .isr_stack_hi = "g_intstacktop", .settle = nx_settle,
};
