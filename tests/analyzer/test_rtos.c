// SPDX-License-Identifier: GPL-2.0
/*
 * test_rtos.c - RTOS awareness on the bundled multi-thread dumps (FreeRTOS on
 * Cortex-M4F, Zephyr on Cortex-M33), then on copies whose kernel structures
 * are broken or rewritten by hand: cyclic lists, garbage TCB and stack
 * pointers, an overwritten watermark, a v8-M saved context with PSPLIM,
 * EXC_RETURN and s16-s31 built word by word as FreeRTOS's ARM_CM33 port
 * stores it, and frames moved or planted for the frame search.
 */
#include "cw_test.h"

#define FRT_ELF		BUNDLED_DIR "/rtos-m4f-freertos.elf"
#define FRT_CORE	BUNDLED_DIR "/rtos-m4f-freertos.core"
#define ZEP_ELF		BUNDLED_DIR "/rtos-m33-zephyr.elf"
#define ZEP_CORE	BUNDLED_DIR "/rtos-m33-zephyr.core"

/* FreeRTOS TCB and list item offsets of this firmware (and FreeRTOS's defaults). */
#define TCB_TOP		0
#define TCB_STATE_ITEM	4
#define ITEM_NEXT	4
#define ITEM_OWNER	12
#define LIST_END	8
#define ZEP_NEXT_THREAD	112
#define ZEP_STATE_WORD	12	/* user_options, thread_state, prio, sched_locked */
#define ZEP_TIMEOUT_NEXT	24	/* base.timeout.node.next: non-NULL while armed */
#define ZEP_THREADS_MAX	16	/* more than the bundled firmware starts */

struct session {
	struct cw_image *img;
	struct cw_dump d;
	struct cw_target t;
	struct cw_backtrace bt;
	struct cw_fault f;
	struct cw_rtos r;
};

/* A bundled dump and its firmware; one that does not load fails the case that wants it. */
static int open_session(struct session *s, const char *elf, const char *core)
{
	struct cw_error err = { { 0 } };

	memset(s, 0, sizeof(*s));
	s->img = cw_image_open(elf, &err);
	if (!s->img || cw_dump_load(&s->d, core, &err) || cw_image_add_memory(s->img, &s->d.mem)) {
		KTAP_EXPECT(0, "bundled dump %s loads: %s", core, err.msg);
		if (s->img)
			cw_image_close(s->img);
		return -1;
	}
	s->t = (struct cw_target){ .mem = &s->d.mem, .img = s->img };
	return 0;
}

/* Unwind the crash and list the threads, as main.c does. */
static int run(struct session *s, enum cw_rtos_kind kind)
{
	unsigned int ff;

	cw_rtos_free(&s->r);
	cw_unwind(&s->t, &s->d.regs, s->d.context, CW_UNWIND_AUTO, &s->bt);
	cw_symbolize(s->t.img, &s->bt);
	ff = cw_fault_frame(s->d.context, &s->bt);
	cw_fault_decode(&s->d.mem, ff < s->bt.nr ? s->bt.frames[ff].pc : 0, ff < s->bt.nr,
			&s->f);
	return cw_rtos_threads(&s->t, &s->d, &s->bt, &s->f, kind, CW_UNWIND_AUTO, &s->r);
}

static void close_session(struct session *s)
{
	cw_rtos_free(&s->r);
	cw_dump_free(&s->d);
	cw_image_close(s->img);
}

/* Overwrite a word of the dump's memory (the dump owns its buffer). */
static void poke32(struct session *s, uint32_t addr, uint32_t v)
{
	const struct cw_region *r = cw_mem_find(&s->d.mem, addr);

	KTAP_EXPECT(r && addr + 4 <= r->addr + r->size, "0x%08x in the dump", addr);
	if (r && addr + 4 <= r->addr + r->size)
		memcpy((uint8_t *)r->data + (addr - r->addr), &v, 4);
}

static uint32_t peek32(struct session *s, uint32_t addr)
{
	uint32_t v = 0;

	cw_mem_read32(&s->d.mem, addr, &v);
	return v;
}

static const struct cw_thread *thread(const struct cw_rtos *r, const char *name)
{
	unsigned int i;

	for (i = 0; i < r->nr; i++)
		if (!strcmp(r->threads[i].name, name))
			return &r->threads[i];
	printf("# no thread %s\n", name);
	return NULL;
}

/*
 * A bundled dump read by kind's reader, for a case that rewrites one of its
 * threads: that thread, or NULL, the session closed, where it is missing.
 */
static const struct cw_thread *open_thread(struct session *s, const char *elf, const char *core,
					   enum cw_rtos_kind kind, const char *name)
{
	const struct cw_thread *th;

	if (open_session(s, elf, core))
		return NULL;
	run(s, kind);
	th = thread(&s->r, name);
	KTAP_EXPECT(th, "a thread %s", name);
	if (!th)
		close_session(s);
	return th;
}

/*
 * The bundled FreeRTOS dump read, for a case that writes a context into its
 * IDLE thread's stack: that thread, and idle_task's address without the Thumb
 * bit, the pc to write. NULL, the session closed, when either is missing.
 */
static const struct cw_thread *freertos_idle(struct session *s, uint32_t *pc)
{
	const struct cw_thread *th = open_thread(s, FRT_ELF, FRT_CORE, CW_RTOS_FREERTOS, "IDLE");

	if (!th)
		return NULL;
	if (cw_image_lookup(s->img, "idle_task", pc)) {
		KTAP_EXPECT(0, "idle_task symbol");
		close_session(s);
		return NULL;
	}
	*pc &= ~1u;	/* a Thumb function symbol has bit 0 set */
	return th;
}

static int has_warning(const struct cw_rtos *r, const char *what)
{
	unsigned int i;

	for (i = 0; i < r->nr_warnings; i++)
		if (strstr(r->warnings[i], what))
			return 1;
	return 0;
}

static const char *fn(const struct cw_thread *th, unsigned int i)
{
	return i < th->bt.nr && th->bt.frames[i].func ? th->bt.frames[i].func->name : "";
}

static void freertos_threads(void)
{
	static const char *const chain[] = { "sensor_settle", "sensor_filter", "sensor_read",
					     "sensor_task" };
	const struct cw_thread *th;
	struct session s;
	unsigned int i;

	if (open_session(&s, FRT_ELF, FRT_CORE))
		return;
	KTAP_EXPECT(!run(&s, CW_RTOS_AUTO), "threads found");
	KTAP_EXPECT(s.r.kind == CW_RTOS_FREERTOS, "detected %s", cw_rtos_name(s.r.kind));
	KTAP_EXPECT(s.r.nr == 9, "%u threads", s.r.nr);
	KTAP_EXPECT(s.r.layout_dwarf, "layout from DWARF");
	KTAP_EXPECT(s.r.nr_warnings == 0, "%s", s.r.nr_warnings ? s.r.warnings[0] : "");
	th = thread(&s.r, "sensor");
	KTAP_EXPECT(th && th->state == CW_TS_DELAYED, "sensor delayed");
	for (i = 0; th && i < ARRAY_SIZE(chain); i++)
		KTAP_EXPECT(!strcmp(fn(th, i + 1), chain[i]), "sensor #%u %s is %s", i + 1,
			    fn(th, i + 1), chain[i]);
	th = thread(&s.r, "fpu");
	KTAP_EXPECT(th && th->layout && !strcmp(th->layout, "ARM_CM4F"), "fpu layout");
	KTAP_EXPECT(th && th->exc_return == 0xFFFFFFEDu, "fpu EXC_RETURN 0x%08x",
		    th ? th->exc_return : 0);
	KTAP_EXPECT(th && !strncmp(fn(th, 0), "fpu_", 4), "fpu frame 0 in %s", th ? fn(th, 0) : "");
	th = thread(&s.r, "waiter");
	KTAP_EXPECT(th && th->state == CW_TS_BLOCKED, "waiter blocked");
	/* eTaskGetState(): suspended list + waiting for a notification is blocked. */
	th = thread(&s.r, "notified");
	KTAP_EXPECT(th && th->state == CW_TS_BLOCKED, "notified blocked");
	th = thread(&s.r, "pending");
	KTAP_EXPECT(th && th->state == CW_TS_READY, "pending-ready is ready");
	th = thread(&s.r, "doomed");
	KTAP_EXPECT(th && th->state == CW_TS_DEAD, "deleted, awaiting clean-up");
	th = thread(&s.r, "crasher");
	KTAP_EXPECT(th && th->current && th->state == CW_TS_RUNNING, "crasher running");
	KTAP_EXPECT(th && !strcmp(fn(th, 0), "crasher_store"), "crasher #0 %s",
		    th ? fn(th, 0) : "");
	for (i = 0; i < s.r.nr; i++)
		KTAP_EXPECT(!s.r.threads[i].overflow && s.r.threads[i].have_use,
			    "%s: overflow 0x%x", s.r.threads[i].name, s.r.threads[i].overflow);
	KTAP_EXPECT(!run(&s, CW_RTOS_NONE) && s.r.kind == CW_RTOS_NONE && !s.r.nr, "--rtos none");
	KTAP_EXPECT(run(&s, CW_RTOS_ZEPHYR) == -1, "no Zephyr kernel in a FreeRTOS firmware");
	close_session(&s);
}

/* The delayed list loops on its only item: the walk must stop and say where. */
static void freertos_cyclic_list(void)
{
	struct session s;
	uint32_t list, item;

	if (open_session(&s, FRT_ELF, FRT_CORE))
		return;
	KTAP_EXPECT(!cw_image_lookup(s.img, "xDelayedTaskList1", &list), "list symbol");
	item = peek32(&s, list + LIST_END + ITEM_NEXT);
	poke32(&s, item + ITEM_NEXT, item);
	run(&s, CW_RTOS_FREERTOS);
	KTAP_EXPECT(has_warning(&s.r, "is cyclic at item"), "cycle reported");
	KTAP_EXPECT(thread(&s.r, "sensor") != NULL, "the item before the cycle is listed");
	close_session(&s);
}

/* A wild TCB pointer and a wild pxTopOfStack: named, no backtrace, no crash. */
static void freertos_garbage_pointers(void)
{
	const struct cw_thread *th;
	struct session s;
	uint32_t list, item;
	unsigned int i;

	th = open_thread(&s, FRT_ELF, FRT_CORE, CW_RTOS_FREERTOS, "waiter");
	if (!th)
		return;
	poke32(&s, th->tcb + TCB_TOP, 0xDEADBEE0u);
	KTAP_EXPECT(!cw_image_lookup(s.img, "xDelayedTaskList1", &list), "list symbol");
	item = peek32(&s, list + LIST_END + ITEM_NEXT);
	poke32(&s, item + ITEM_OWNER, 0x12345678u);
	run(&s, CW_RTOS_FREERTOS);
	th = thread(&s.r, "waiter");
	KTAP_EXPECT(th && th->bt.nr == 0 && strstr(th->problem, "0xdeadbee0"), "waiter: %s",
		    th ? th->problem : "");
	for (i = 0, th = NULL; i < s.r.nr; i++)
		if (s.r.threads[i].tcb == 0x12345678u)
			th = &s.r.threads[i];
	KTAP_EXPECT(th && strstr(th->problem, "0x12345678") && th->bt.nr == 0, "wild TCB: %s",
		    th ? th->problem : "not listed");
	close_session(&s);
}

/*
 * FreeRTOS ARM_CM33 with the FPU, from pxTopOfStack up: PSPLIM, EXC_RETURN,
 * r4-r11, s16-s31, then an extended hardware frame; written into the idle
 * thread's stack and read back.
 */
static void freertos_cm33_fp_context(void)
{
	const struct cw_thread *th;
	struct session s;
	uint32_t top, base, pc, i;

	th = freertos_idle(&s, &pc);
	if (!th)
		return;
	top = th->stack_lo + 0x100;
	poke32(&s, top, th->stack_lo);				/* PSPLIM */
	poke32(&s, top + 4, 0xFFFFFFEDu);			/* EXC_RETURN: FP frame */
	for (i = 0; i < 8; i++)
		poke32(&s, top + 8 + 4 * i, 0x40 + i);		/* r4-r11 */
	for (i = 0; i < 16; i++)
		poke32(&s, top + 40 + 4 * i, 0x3f800000u);	/* s16-s31 */
	base = top + 40 + 64;
	for (i = 0; i < 26; i++)
		poke32(&s, base + 4 * i, 0x10 + i);		/* r0.., s0-s15, FPSCR */
	poke32(&s, base + 20, 0);				/* lr */
	poke32(&s, base + 24, pc | 1);
	poke32(&s, base + 28, 0x01000000u);			/* xPSR */
	poke32(&s, th->tcb + TCB_TOP, top);
	run(&s, CW_RTOS_FREERTOS);
	th = thread(&s.r, "IDLE");
	KTAP_EXPECT(th && th->layout && !strcmp(th->layout, "ARM_CM33"), "layout %s",
		    th && th->layout ? th->layout : "none");
	KTAP_EXPECT(th && th->have_psplim && th->psplim == th->stack_lo, "PSPLIM");
	KTAP_EXPECT(th && th->regs.r[CW_R4] == 0x40 && th->regs.r[CW_R11] == 0x47, "r4-r11");
	KTAP_EXPECT(th && th->regs.r[CW_R0] == 0x10 && th->regs.r[CW_PC] == pc, "frame");
	KTAP_EXPECT(th && th->regs.r[CW_SP] == base + 0x68, "sp 0x%08x past the extended frame",
		    th ? th->regs.r[CW_SP] : 0);
	KTAP_EXPECT(th && !th->overflow, "no overflow");
	close_session(&s);
}

/*
 * FreeRTOS ARM_CM33 whose task stack is only word-aligned (a StackType_t
 * array the application gave xTaskCreateStatic(), the idle task's among
 * them): the port saves pxStack as PSPLIM, and PSPLIM ignores bits [2:0],
 * so the saved word may be 4 mod 8.
 */
#define TCB_STACK	48	/* pxStack, after the two list items and uxPriority */

static void freertos_cm33_word_aligned_psplim(void)
{
	const struct cw_thread *th;
	struct session s;
	uint32_t lo, top, base, pc, i;

	th = freertos_idle(&s, &pc);
	if (!th)
		return;
	lo = th->stack_lo + 4;
	top = th->stack_lo + 0x100;
	poke32(&s, th->tcb + TCB_STACK, lo);
	poke32(&s, top, lo);					/* PSPLIM */
	poke32(&s, top + 4, 0xFFFFFFFDu);			/* EXC_RETURN: basic frame */
	for (i = 0; i < 8; i++)
		poke32(&s, top + 8 + 4 * i, 0x40 + i);		/* r4-r11 */
	base = top + 40;
	for (i = 0; i < 5; i++)
		poke32(&s, base + 4 * i, 0x10 + i);		/* r0-r3, r12 */
	poke32(&s, base + 20, 0);				/* lr */
	poke32(&s, base + 24, pc);
	poke32(&s, base + 28, 0x01000000u);			/* xPSR */
	poke32(&s, th->tcb + TCB_TOP, top);
	run(&s, CW_RTOS_FREERTOS);
	th = thread(&s.r, "IDLE");
	KTAP_EXPECT(th && th->layout && !strcmp(th->layout, "ARM_CM33"), "layout %s (%s)",
		    th && th->layout ? th->layout : "none", th ? th->problem : "");
	KTAP_EXPECT(th && th->have_psplim && th->psplim == lo, "PSPLIM 0x%08x", th ? th->psplim : 0);
	KTAP_EXPECT(th && th->regs.r[CW_R0] == 0x10 && th->regs.r[CW_PC] == pc, "frame");
	close_session(&s);

	/* Once the task ran, its switch saved PSPLIM as mrs reads it: rounded down to 8. */
	th = freertos_idle(&s, &pc);
	if (!th)
		return;
	lo = th->stack_lo + 4;
	poke32(&s, th->tcb + TCB_STACK, lo);
	poke32(&s, top, lo & ~7u);				/* PSPLIM */
	poke32(&s, top + 4, 0xFFFFFFFDu);
	for (i = 0; i < 8; i++)
		poke32(&s, top + 8 + 4 * i, 0x40 + i);
	for (i = 0; i < 5; i++)
		poke32(&s, base + 4 * i, 0x10 + i);
	poke32(&s, base + 20, 0);
	poke32(&s, base + 24, pc);
	poke32(&s, base + 28, 0x01000000u);
	poke32(&s, th->tcb + TCB_TOP, top);
	run(&s, CW_RTOS_FREERTOS);
	th = thread(&s.r, "IDLE");
	KTAP_EXPECT(th && th->layout && !strcmp(th->layout, "ARM_CM33"), "saved PSPLIM: layout %s",
		    th && th->layout ? th->layout : "none");
	close_session(&s);
}

/* A context saved below the stack, and a stack whose low end lost its fill pattern. */
static void freertos_overflow(void)
{
	const struct cw_thread *th;
	struct session s;
	const struct cw_thread *worker;
	uint32_t top, pc, i, lo;

	th = freertos_idle(&s, &pc);
	if (!th)
		return;
	worker = thread(&s.r, "worker");
	KTAP_EXPECT(worker, "a worker thread");
	if (!worker) {
		close_session(&s);
		return;
	}
	/* ARM_CM3 shape: r4-r11, then a basic frame; 0x80 bytes below the stack. */
	top = th->stack_lo - 0x80;
	for (i = 0; i < 16; i++)
		poke32(&s, top + 4 * i, i);
	poke32(&s, top + 32 + 24, pc | 1);
	poke32(&s, top + 32 + 28, 0x01000000u);
	poke32(&s, th->tcb + TCB_TOP, top);
	lo = worker->stack_lo;
	for (i = 0; i < 4; i++)
		poke32(&s, lo + 4 * i, 0);
	run(&s, CW_RTOS_FREERTOS);
	th = thread(&s.r, "IDLE");
	KTAP_EXPECT(th && th->layout && !strcmp(th->layout, "ARM_CM3"), "layout %s",
		    th && th->layout ? th->layout : "none");
	KTAP_EXPECT(th && (th->overflow & CW_OVF_SP_OUTSIDE), "sp below the stack flagged");
	th = thread(&s.r, "worker");
	KTAP_EXPECT(th && th->overflow == CW_OVF_WATERMARK, "worker watermark: 0x%x",
		    th ? th->overflow : 0);
	close_session(&s);
}

static void zephyr_threads(void)
{
	const struct cw_thread *th;
	struct session s;
	uint32_t kernel, first;

	if (open_session(&s, ZEP_ELF, ZEP_CORE))
		return;
	KTAP_EXPECT(!run(&s, CW_RTOS_AUTO), "threads found");
	KTAP_EXPECT(s.r.kind == CW_RTOS_ZEPHYR, "detected %s", cw_rtos_name(s.r.kind));
	KTAP_EXPECT(s.r.nr == 6 && !s.r.nr_warnings, "%u threads", s.r.nr);
	th = thread(&s.r, "crasher");
	KTAP_EXPECT(th && th->current && (th->overflow & CW_OVF_PSPLIM), "STKOF in the crasher");
	KTAP_EXPECT(th && !strcmp(fn(th, 0), "crasher_recurse"), "crasher #0 %s",
		    th ? fn(th, 0) : "");
	th = thread(&s.r, "fpu");
	KTAP_EXPECT(th && !(th->exc_return & 0x10) && th->bt.nr >= 3, "fpu: FP frame, unwound");
	th = thread(&s.r, "sensor");
	KTAP_EXPECT(th && th->state == CW_TS_DELAYED && !strcmp(fn(th, 1), "sensor_settle"),
		    "sensor delayed in sensor_settle");
	/* The newest thread points at itself: the walk stops with a warning. */
	KTAP_EXPECT(!cw_image_lookup(s.img, "_kernel", &kernel), "_kernel symbol");
	first = peek32(&s, kernel + 32);
	poke32(&s, first + ZEP_NEXT_THREAD, first);
	run(&s, CW_RTOS_ZEPHYR);
	KTAP_EXPECT(has_warning(&s.r, "cyclic") && s.r.nr == 1, "cycle: %u threads", s.r.nr);
	close_session(&s);
}

/*
 * The running thread's frames come from the crash's walk, which knew no
 * thread: with the crasher's stack cut short (stack_info.size) above its
 * fourth frame, none of the frames above the new top may be kept.
 */
static void running_thread_bounded(void)
{
	const struct cw_thread *th;
	struct session s;
	uint32_t off, size, top, i, above = 0;

	if (open_session(&s, ZEP_ELF, ZEP_CORE))
		return;
	run(&s, CW_RTOS_ZEPHYR);
	th = thread(&s.r, "crasher");
	if (!th || th->bt.nr < 6 ||
	    cw_image_struct_member(s.img, "k_thread", "stack_info.size", &off, &size)) {
		KTAP_EXPECT(0, "a crasher with 6 frames and stack_info.size");
		close_session(&s);
		return;
	}
	top = th->bt.frames[3].sp;
	poke32(&s, th->tcb + off, top - th->stack_lo);
	run(&s, CW_RTOS_ZEPHYR);
	th = thread(&s.r, "crasher");
	for (i = 0; th && i < th->bt.nr; i++)
		above += th->bt.frames[i].sp > top;
	KTAP_EXPECT(th && th->bt.nr == 4 && !above && th->bt.stop == CW_STOP_STACK_END,
		    "crasher: %u frames, %u above the top 0x%08x, stop %s", th ? th->bt.nr : 0,
		    above, top, th ? cw_stop_name(th->bt.stop) : "");
	close_session(&s);
}

/* Stack ranges for the frame search from the kernel's objects. */
static unsigned int rtos_ranges(struct session *s, uint32_t *crasher_lo, unsigned int *others)
{
	struct cw_search_hints h;
	unsigned int i, n = 0;

	*others = 0;
	cw_stack_hints(&s->t, &s->d, CW_RTOS_ZEPHYR, CW_UNWIND_AUTO, &h);
	for (i = 0; i < h.nr; i++) {
		if (h.ranges[i].bound != CW_BOUND_RTOS)
			continue;
		if (h.ranges[i].not_running) {
			(*others)++;
			continue;
		}
		n++;
		if (strstr(h.ranges[i].what, "crasher"))
			*crasher_lo = h.ranges[i].lo;
	}
	return n;
}

/*
 * The search's range from Zephyr's thread->stack_info: the running thread's
 * stack, every other thread's ruled out; when the dump does not say which
 * thread runs, every thread's searched.
 */
static void zephyr_search_ranges(void)
{
	struct session s;
	uint32_t kernel, lo = 0, cur;
	unsigned int n, others;

	if (open_session(&s, ZEP_ELF, ZEP_CORE))
		return;
	n = rtos_ranges(&s, &lo, &others);
	KTAP_EXPECT(n == 1 && lo, "running thread: %u ranges, crasher's from 0x%08x", n, lo);
	KTAP_EXPECT(others >= 3, "running thread: %u other threads' stacks ruled out", others);
	KTAP_EXPECT(!cw_image_lookup(s.img, "_kernel", &kernel), "_kernel symbol");
	KTAP_EXPECT(!cw_image_struct_member(s.img, "_cpu", "current", &cur, NULL), "_cpu.current");
	poke32(&s, kernel + cur, 0);
	lo = 0;
	n = rtos_ranges(&s, &lo, &others);
	KTAP_EXPECT(n >= 4 && lo && !others, "no running thread: %u ranges, the crasher's among "
		    "them, %u ruled out", n, others);
	close_session(&s);
}

/* The bundled FreeRTOS crash, for searches of its memory alone. */
struct crasher {
	struct session s;
	uint32_t tcb, psp;	/* the running task's TCB; the dump's PSP, the live frame */
	struct cw_search_hints h;
	struct cw_search res;
	uint32_t at;		/* the frame the search took */
};

/* Reports and returns -1 when the dump lacks the running task or the PSP. */
static int open_crasher(struct crasher *c)
{
	uint32_t cur;

	if (open_session(&c->s, FRT_ELF, FRT_CORE))
		return -1;
	if (cw_image_lookup(c->s.img, "pxCurrentTCB", &cur) || !cw_reg_ok(&c->s.d.regs, CW_PSP)) {
		KTAP_EXPECT(0, "pxCurrentTCB and the dump's PSP");
		close_session(&c->s);
		return -1;
	}
	c->tcb = peek32(&c->s, cur);
	c->psp = c->s.d.regs.r[CW_PSP];
	return 0;
}

/* A memory-only search of the crash, with the stacks the kernel names. */
static int search_crasher(struct crasher *c)
{
	struct cw_regs regs = { .valid = 0 };

	cw_stack_hints(&c->s.t, &c->s.d, CW_RTOS_FREERTOS, CW_UNWIND_AUTO, &c->h);
	c->s.t.hints = &c->h;
	c->at = 0;
	return cw_find_exception_frame(&c->s.t, CW_CTX_MEMORY_ONLY, 0, &regs, &c->at, &c->res);
}

/*
 * The crasher's context from its last switch (callee-saved words and frame)
 * copied 0x40 bytes lower, pxTopOfStack with it: as if the switch had been
 * deeper, so that the live frame is no longer the one the kernel names.
 */
static void move_switch_context(struct crasher *c)
{
	uint32_t top = peek32(&c->s, c->tcb + TCB_TOP), a;

	for (a = top; a < c->psp + 0x20; a += 4)
		poke32(&c->s, a - 0x40, peek32(&c->s, a));
	poke32(&c->s, c->tcb + TCB_TOP, top - 0x40);
}

/*
 * The running task's context from its last switch (pxTopOfStack) is stale
 * while it runs: the search for the fault's frame takes it only when no other
 * frame fits, and then says so below full confidence. In the bundled dump the
 * crasher faulted at the very sp of its last switch: the live frame is that
 * context's. Moved lower (as if the switch had been deeper), pxTopOfStack no
 * longer names the live frame, which is then taken as sure.
 */
static void freertos_stale_context(void)
{
	struct crasher c;
	int err;

	if (open_crasher(&c))
		return;
	err = search_crasher(&c);
	KTAP_EXPECT(c.h.nr_stale == 1 && c.h.stale[0] == c.psp, "the last switch's frame 0x%08x "
		    "is the live one's", c.h.nr_stale ? c.h.stale[0] : 0);
	KTAP_EXPECT(!err && c.at == c.psp && c.res.stale && c.res.confidence == 60,
		    "the live frame found at 0x%08x, marked stale (%d), %d%%", c.at, c.res.stale,
		    c.res.confidence);
	move_switch_context(&c);
	err = search_crasher(&c);
	KTAP_EXPECT(c.h.nr_stale == 1 && c.h.stale[0] == c.psp - 0x40, "the last switch's frame "
		    "moved to 0x%08x", c.h.nr_stale ? c.h.stale[0] : 0);
	KTAP_EXPECT(!err && c.at == c.psp && !c.res.stale && c.res.confidence >= 80,
		    "the live frame found at 0x%08x, not stale (%d), %d%%", c.at, c.res.stale,
		    c.res.confidence);
	close_session(&c.s);
}

/*
 * Plant, in the crasher's dead stack, a copy of its fault frame as a handler
 * would have stacked it (stacked IPSR SysTick, lr EXC_RETURN to the PSP): a
 * one-frame handler chain that returns to a stack the dump has no pointer
 * for, complete on trial, as the real NuttX on Cortex-M7 left one. Handler
 * mode stacks only on a main stack, so it is no candidate on a thread's
 * process stack: the search must find the live frame, whether that frame is
 * the last switch's context (the copy would have won as the only non-stale
 * one) or not (the copy would have been named a rival).
 */
#define PLANT_BELOW	0x100	/* how far below the live frame the copy lies */
#define IPSR_SYSTICK	15

static void plant_handler_frame(struct crasher *c)
{
	uint32_t at = c->psp - PLANT_BELOW;
	unsigned int k;

	for (k = 0; k < CW_EXC_BASIC_WORDS; k++)
		poke32(&c->s, at + 4 * k, peek32(&c->s, c->psp + 4 * k));
	poke32(&c->s, at + 4 * CW_EXC_LR_WORD, CW_EXC_RETURN_THREAD_PSP);
	poke32(&c->s, at + 4 * CW_EXC_XPSR_WORD,
	       (peek32(&c->s, c->psp + 4 * CW_EXC_XPSR_WORD) & ~CW_XPSR_IPSR) | IPSR_SYSTICK);
}

static void handler_frame_on_psp(void)
{
	struct crasher c;
	int err;

	if (open_crasher(&c))
		return;
	plant_handler_frame(&c);
	err = search_crasher(&c);
	KTAP_EXPECT(!err && c.at == c.psp && c.res.stale && !c.res.have_other,
		    "stale live frame: found at 0x%08x (the copy at 0x%08x), stale %d, rival %d",
		    c.at, c.psp - PLANT_BELOW, c.res.stale, c.res.have_other);
	move_switch_context(&c);
	plant_handler_frame(&c);
	err = search_crasher(&c);
	KTAP_EXPECT(!err && c.at == c.psp && !c.res.stale && !c.res.have_other &&
		    c.res.confidence >= 80, "live frame: found at 0x%08x, rival %d (0x%08x), %d%%",
		    c.at, c.res.have_other, c.res.other, c.res.confidence);
	close_session(&c.s);
}

/*
 * The real FreeRTOS allocates a task's TCB and stack from one heap, so a
 * stack's neighbour below it is another task's; where the stacks are not
 * painted (configCHECK_FOR_STACK_OVERFLOW 0) nothing says the running one did
 * not overflow, and the search reaches below its start, into that neighbour
 * and the context the kernel saved for it. That context is never the live
 * frame: with the crasher's stack made to look overflowed and the worker's
 * saved context and the frames above it moved into the reach below it
 * (pxTopOfStack with them), the live frame must still win over that
 * complete, non-stale chain below.
 */
static void other_thread_context(void)
{
	const struct cw_thread *w, *cr;
	uint32_t top, to, lo, a, base;
	struct crasher c;
	int err;

	if (open_crasher(&c))
		return;
	run(&c.s, CW_RTOS_FREERTOS);
	w = thread(&c.s.r, "worker");
	cr = thread(&c.s.r, "crasher");
	if (!w || !cr || !w->saved_frame || w->exc_return != CW_EXC_RETURN_THREAD_PSP) {
		KTAP_EXPECT(0, "the worker's saved context, a basic frame");
		close_session(&c.s);
		return;
	}
	/* The worker's whole used stack, its chain's frames above the context too. */
	top = peek32(&c.s, w->tcb + TCB_TOP);
	lo = cr->stack_lo;
	to = ((lo - (w->stack_hi - top) - 8) & ~7u) | (top & 7);	/* frames stay 8-aligned */
	for (a = top; a < w->stack_hi; a += 4)
		poke32(&c.s, to + (a - top), peek32(&c.s, a));
	poke32(&c.s, w->tcb + TCB_TOP, to);
	base = to + (w->saved_frame - top);
	poke32(&c.s, lo, 0);	/* the fill at the crasher's low end gone */
	/* No fault status to rule the worker's frame out, as on v6-M or in RAM alone. */
	poke32(&c.s, CW_SCB_CFSR, 0);
	err = search_crasher(&c);
	KTAP_EXPECT(c.h.nr_others >= 1, "the kernel's saved contexts known: %u", c.h.nr_others);
	KTAP_EXPECT(!err && c.at == c.psp, "the live frame 0x%08x found at 0x%08x, not the worker's "
		    "saved context at 0x%08x", c.psp, c.at, base);
	close_session(&c.s);
}

/*
 * Where a call from caller to callee returns: the first address in caller
 * whose preceding instruction is a BL to callee. 0 when there is none.
 */
static uint32_t return_site(struct session *s, const char *caller, const char *callee)
{
	const struct cw_symbol *fn;
	uint32_t from, to, a, target;

	if (cw_image_lookup(s->img, caller, &from) || cw_image_lookup(s->img, callee, &to))
		return 0;
	fn = cw_image_func(s->img, from & ~1u);
	for (a = (from & ~1u) + 4; fn && a < fn->addr + fn->size; a += 2)
		if (cw_thumb_call_before(&s->d.mem, a, &target) == CW_CALL_BL &&
		    target == (to & ~1u))
			return a;
	return 0;
}

/*
 * The ThreadX timer-callback class the real kernel showed in RAM-only dumps:
 * words of live frames' data that read as exception frames whose chains are
 * complete, above the live one. The crasher's live stack is rebuilt as the
 * "overflow" case's recursion (crasher_task, then RESCUE_DEPTH frames of
 * crasher_recurse, whose 28-word buf the unwinders never read), the fault's
 * frame below the last; in two bufs a frame is planted across the frame
 * boundary (its r0-r3 the callee's saved words, the rest in the buf) whose
 * pc returns from crasher_apply into crasher_task and on to the task's exit.
 * The higher is taken first, the lower is a rival its chain does not run
 * through; the live frame's chain runs through both, and the search must go
 * on past the rival to find it.
 */
#define RESCUE_DEPTH	5
#define RECURSE_FRAME	128	/* crasher_recurse's frame: buf, pad, r4, r5, lr */

static void plant_data_frame(struct crasher *c, uint32_t sp, uint32_t apply_ret,
			     uint32_t task_ret, uint32_t task_exit)
{
	poke32(&c->s, sp + 4, task_ret | 1);		/* its lr: code */
	poke32(&c->s, sp + 8, apply_ret);		/* its pc */
	poke32(&c->s, sp + 12, CW_XPSR_T);
	poke32(&c->s, sp + 20, task_ret | 1);		/* crasher_apply's saved lr */
	poke32(&c->s, sp + 28, task_exit);		/* crasher_task's */
}

static void rescue_through_rivals(void)
{
	uint32_t task_sp, task_exit, apply_ret, task_ret, recurse_ret, task_recurse_ret;
	uint32_t sp, live, a;
	struct cw_backtrace bt;
	struct cw_regs regs = { .valid = 0 };
	struct crasher c;
	unsigned int k;
	int err;

	if (open_crasher(&c))
		return;
	/* The dump's own chain: crasher_store, crasher_apply, crasher_task. */
	run(&c.s, CW_RTOS_FREERTOS);
	apply_ret = c.s.bt.nr > 3 ? c.s.bt.frames[2].pc : 0;
	task_ret = c.s.bt.nr > 3 ? c.s.bt.frames[3].pc : 0;
	task_sp = c.s.bt.nr > 3 ? c.s.bt.frames[3].sp : 0;
	recurse_ret = return_site(&c.s, "crasher_recurse", "crasher_recurse");
	task_recurse_ret = return_site(&c.s, "crasher_task", "crasher_recurse");
	if (!task_sp || !recurse_ret || !task_recurse_ret) {
		KTAP_EXPECT(0, "the crash's chain and crasher_recurse's call sites");
		close_session(&c.s);
		return;
	}
	task_exit = peek32(&c.s, task_sp + 4);
	/* A RAM-only dump: no fault status rules a frame out. */
	poke32(&c.s, CW_SCB_CFSR, 0);
	live = task_sp - RESCUE_DEPTH * RECURSE_FRAME - 4 * CW_EXC_BASIC_WORDS;
	for (a = live; a < task_sp; a += 4)
		poke32(&c.s, a, 0);
	for (k = 0; k < RESCUE_DEPTH; k++)	/* each frame's saved lr */
		poke32(&c.s, task_sp - RECURSE_FRAME * k - 4,
		       (k ? recurse_ret : task_recurse_ret) | 1);
	sp = task_sp - RESCUE_DEPTH * RECURSE_FRAME;	/* the innermost crasher_recurse */
	poke32(&c.s, live + 4 * CW_EXC_LR_WORD, recurse_ret | 1);
	poke32(&c.s, live + 4 * CW_EXC_PC_WORD, recurse_ret);
	poke32(&c.s, live + 4 * CW_EXC_XPSR_WORD, CW_XPSR_T);
	/* The rebuilt stack must unwind whole from the live frame, or the search proves nothing. */
	cw_reg_set(&regs, CW_PC, recurse_ret);
	cw_reg_set(&regs, CW_SP, sp);
	cw_reg_set(&regs, CW_LR, recurse_ret | 1);
	cw_unwind(&c.s.t, &regs, CW_CTX_PRE_EXCEPTION, CW_UNWIND_AUTO, &bt);
	KTAP_EXPECT(bt.nr == RESCUE_DEPTH + 1 && bt.frames[RESCUE_DEPTH].pc == task_recurse_ret,
		    "the rebuilt chain: %u frames, crasher_task last", bt.nr);
	plant_data_frame(&c, task_sp - RECURSE_FRAME, apply_ret, task_ret, task_exit);
	plant_data_frame(&c, task_sp - 3 * RECURSE_FRAME, apply_ret, task_ret, task_exit);
	err = search_crasher(&c);
	KTAP_EXPECT(!err && c.at == live && !c.res.have_other && c.res.confidence >= 80,
		    "the live frame found at 0x%08x (taken 0x%08x), rival %d (0x%08x), %d%%",
		    live, c.at, c.res.have_other, c.res.other, c.res.confidence);
	close_session(&c.s);
}

/* The stack-object ranges: the interrupt stack, thread_stacks rows, rows with a thread in them. */
static void object_ranges(struct session *s, unsigned int *nr_isr, unsigned int *nr_rows,
			  unsigned int *named_rows)
{
	uint32_t isr, isr_size, rows, rows_size, lo[ZEP_THREADS_MAX], hi[ZEP_THREADS_MAX];
	struct cw_search_hints h;
	unsigned int i, k, n = 0;

	*nr_isr = *nr_rows = *named_rows = 0;
	if (cw_image_object(s->img, "z_interrupt_stacks", &isr, &isr_size) ||
	    cw_image_object(s->img, "thread_stacks", &rows, &rows_size))
		return;
	run(s, CW_RTOS_ZEPHYR);
	for (i = 0; i < s->r.nr && n < ZEP_THREADS_MAX; i++, n++) {
		lo[n] = s->r.threads[i].stack_lo;
		hi[n] = s->r.threads[i].stack_hi;
	}
	cw_stack_hints(&s->t, &s->d, CW_RTOS_ZEPHYR, CW_UNWIND_AUTO, &h);
	for (i = 0; i < h.nr; i++) {
		const struct cw_stack_range *r = &h.ranges[i];

		if (r->bound != CW_BOUND_SYMBOLS)
			continue;
		*nr_isr += r->lo == isr && r->hi == isr + isr_size && !r->process &&
			   strstr(r->what, "z_interrupt_stacks[0]");
		*nr_rows += r->lo >= rows && r->hi <= rows + rows_size && r->process;
		for (k = 0; k < n; k++)
			*named_rows += lo[k] >= r->lo && hi[k] <= r->hi;
	}
}

/*
 * Zephyr's stack objects as search ranges: the interrupt stack (a main
 * stack) always; the thread_stacks rows no thread uses only when the dump
 * does not say which thread runs; a row whose thread the kernel names never.
 */
static void zephyr_stack_objects(void)
{
	unsigned int nr_isr, nr_rows, named_rows;
	struct session s;
	uint32_t kernel, cur;

	if (open_session(&s, ZEP_ELF, ZEP_CORE))
		return;
	object_ranges(&s, &nr_isr, &nr_rows, &named_rows);
	KTAP_EXPECT(nr_isr == 1 && !nr_rows && !named_rows,
		    "running thread known: interrupt stack %u, thread rows %u, named rows %u",
		    nr_isr, nr_rows, named_rows);
	KTAP_EXPECT(!cw_image_lookup(s.img, "_kernel", &kernel) &&
		    !cw_image_struct_member(s.img, "_cpu", "current", &cur, NULL), "_kernel.current");
	poke32(&s, kernel + cur, 0);
	object_ranges(&s, &nr_isr, &nr_rows, &named_rows);
	/* 10 rows (RTOS_MAX_TASKS), 6 threads on M33: 4 rows no thread uses. */
	KTAP_EXPECT(nr_isr == 1 && nr_rows == 4 && !named_rows,
		    "no running thread: interrupt stack %u, thread rows %u, named rows %u", nr_isr,
		    nr_rows, named_rows);
	close_session(&s);
}

static void parse_names(void)
{
	enum cw_rtos_kind k = CW_RTOS_NONE;

	KTAP_EXPECT(!cw_rtos_parse("zephyr", &k) && k == CW_RTOS_ZEPHYR, "zephyr");
	KTAP_EXPECT(!cw_rtos_parse("auto", &k) && k == CW_RTOS_AUTO, "auto");
	KTAP_EXPECT(cw_rtos_parse("vxworks", &k) == -1, "unknown name refused");
}

/*
 * The member names of the JSON object starting at p, at its top level only,
 * each followed by a space; the optional frame members are left out.
 */
static void json_keys(const char *p, char *out, size_t len)
{
	static const char *const optional[] = { "lost", "secure_call", "fp_state" };
	int depth = 0;
	size_t n = 0;
	unsigned int k;

	out[0] = 0;
	for (; *p; p++) {
		const char *q;

		if (*p == '{' || *p == '[')
			depth++;
		if ((*p == '}' || *p == ']') && --depth == 0)
			return;
		if (*p != '"')
			continue;
		for (q = p + 1; *q && *q != '"'; q++)
			if (*q == '\\' && q[1])
				q++;
		if (depth == 1 && q[0] == '"' && q[1] == ':') {
			for (k = 0; k < ARRAY_SIZE(optional); k++)
				if ((size_t)(q - p - 1) == strlen(optional[k]) &&
				    !strncmp(p + 1, optional[k], strlen(optional[k])))
					break;
			if (k == ARRAY_SIZE(optional) && n + (size_t)(q - p) + 1 < len)
				n += (size_t)snprintf(out + n, len - n, "%.*s ", (int)(q - p - 1),
						      p + 1);
		}
		p = *q ? q : q - 1;
	}
}

/* A thread's frames print with the crash's JSON frame schema, member for member. */
static void one_frame_schema(void)
{
	struct cw_report_opts o = { .json = 1 };
	char crash[512], thr[512], *json = NULL;
	const char *at;
	struct session s;
	size_t len = 0;
	FILE *out;

	if (open_session(&s, FRT_ELF, FRT_CORE))
		return;
	KTAP_EXPECT(!run(&s, CW_RTOS_AUTO) && s.r.nr, "threads found");
	out = open_memstream(&json, &len);
	cw_report_crash(out, &o, &s.d, &s.bt, &s.f, &s.r, NULL);
	fclose(out);
	at = strstr(json, "\"frames\": [{");
	json_keys(at ? at + 11 : "", crash, sizeof(crash));
	at = strstr(json, "\"threads\": [");
	at = at ? strstr(at, "\"frames\": [{") : NULL;
	json_keys(at ? at + 11 : "", thr, sizeof(thr));
	KTAP_EXPECT(crash[0] && strstr(crash, "return_address") && !strcmp(crash, thr),
		    "crash frame: %s; thread frame: %s", crash, thr);
	free(json);
	close_session(&s);
}

/* A thread_state byte as the given Zephyr writes it, and whether its timeout is armed. */
static enum cw_thread_state zephyr_state_of(struct session *s, uint32_t tcb, uint8_t state,
					    uint32_t timeout_next)
{
	uint32_t w = peek32(s, tcb + ZEP_STATE_WORD);
	const struct cw_thread *th;

	poke32(s, tcb + ZEP_STATE_WORD, (w & ~0xFF00u) | (uint32_t)state << 8);
	poke32(s, tcb + ZEP_TIMEOUT_NEXT, timeout_next);
	run(s, CW_RTOS_ZEPHYR);
	th = thread(&s->r, "sensor");
	return th ? th->state : CW_TS_UNKNOWN;
}

/*
 * Zephyr before 3.7 marks a sleeping thread _THREAD_SUSPENDED with its
 * timeout armed (k_thread_suspend disarms it); _THREAD_ABORTING is dying.
 */
static void zephyr_states(void)
{
	const struct cw_thread *th;
	struct session s;
	uint32_t tcb;

	th = open_thread(&s, ZEP_ELF, ZEP_CORE, CW_RTOS_ZEPHYR, "sensor");
	if (!th)
		return;
	tcb = th->tcb;
	KTAP_EXPECT(zephyr_state_of(&s, tcb, 0x10, tcb) == CW_TS_DELAYED,
		    "suspended with its timeout armed: sleeping");
	KTAP_EXPECT(zephyr_state_of(&s, tcb, 0x10, 0) == CW_TS_SUSPENDED, "suspended");
	KTAP_EXPECT(zephyr_state_of(&s, tcb, 0x12, tcb) == CW_TS_SUSPENDED,
		    "pending and suspended, timeout armed: suspended");
	KTAP_EXPECT(zephyr_state_of(&s, tcb, 0x04, 0) == CW_TS_DELAYED, "sleeping (3.7) / prestart");
	KTAP_EXPECT(zephyr_state_of(&s, tcb, 0x20, 0) == CW_TS_DEAD, "aborting");
	KTAP_EXPECT(zephyr_state_of(&s, tcb, 0x40, 0) == CW_TS_SUSPENDED, "suspending (4.x)");
	/* The idle thread is never queued: 0 is runnable. */
	KTAP_EXPECT(zephyr_state_of(&s, tcb, 0x00, 0) == CW_TS_READY, "state 0: ready");
	close_session(&s);
}

/*
 * Zephyr paints stacks only with CONFIG_INIT_STACKS (off by default): with
 * the fill wiped from every stack the watermark tells nothing, and no thread
 * may be flagged for it; the crasher's PSPLIM fault still is.
 */
static void zephyr_unpainted(void)
{
	const struct cw_thread *th;
	struct session s;
	unsigned int i, flagged = 0, used = 0;
	uint32_t a;

	if (open_session(&s, ZEP_ELF, ZEP_CORE))
		return;
	run(&s, CW_RTOS_ZEPHYR);
	KTAP_EXPECT(!s.r.unpainted, "painted stacks taken as painted");
	for (i = 0; i < s.r.nr; i++)
		for (a = s.r.threads[i].stack_lo; a < s.r.threads[i].stack_hi; a += 4)
			if (peek32(&s, a) == 0xAAAAAAAAu)
				poke32(&s, a, 0);
	run(&s, CW_RTOS_ZEPHYR);
	for (i = 0; i < s.r.nr; i++) {
		flagged += !!(s.r.threads[i].overflow & CW_OVF_WATERMARK);
		used += s.r.threads[i].have_use;
	}
	KTAP_EXPECT(s.r.unpainted && !flagged && !used, "unpainted: %u flagged, %u with use",
		    flagged, used);
	th = thread(&s.r, "crasher");
	KTAP_EXPECT(th && (th->overflow & CW_OVF_PSPLIM), "the crasher's STKOF still flagged");
	close_session(&s);
}

int main(void)
{
	ktap_header("crashwalk-rtos-unit");
	KTAP_RUN(freertos_threads);
	KTAP_RUN(freertos_cyclic_list);
	KTAP_RUN(freertos_garbage_pointers);
	KTAP_RUN(freertos_cm33_fp_context);
	KTAP_RUN(freertos_cm33_word_aligned_psplim);
	KTAP_RUN(freertos_overflow);
	KTAP_RUN(zephyr_threads);
	KTAP_RUN(zephyr_states);
	KTAP_RUN(zephyr_unpainted);
	KTAP_RUN(running_thread_bounded);
	KTAP_RUN(zephyr_search_ranges);
	KTAP_RUN(freertos_stale_context);
	KTAP_RUN(handler_frame_on_psp);
	KTAP_RUN(rescue_through_rivals);
	KTAP_RUN(other_thread_context);
	KTAP_RUN(zephyr_stack_objects);
	KTAP_RUN(parse_names);
	KTAP_RUN(one_frame_schema);
	return ktap_finish();
}
