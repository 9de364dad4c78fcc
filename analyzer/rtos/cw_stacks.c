// SPDX-License-Identifier: GPL-2.0
/*
 * cw_stacks.c - where a dump's stacks are, for the frame search: the
 * ranges the firmware's stack symbols name and the running thread's stack
 * from the RTOS's objects; and stack pointers given by hand (--sp).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump/cw_dump.h"
#include "image/cw_image.h"
#include "rtos/cw_rtos.h"
#include "unwind/cw_search.h"

/* How far below its start an overflowed thread's last frame may lie. */
#define OVERFLOW_REACH	256u
#define MAX_THREAD_RANGES	6	/* threads searched when none is known to run */

/*
 * Zephyr's stack objects: K_THREAD_STACK_DEFINE, K_KERNEL_STACK_DEFINE and
 * their arrays declare every stack as an array of this struct, in a no-init
 * section other data shares, so the DWARF type is what marks them. The
 * interrupt stacks (kernel/init.c, one per CPU) are the main stack on
 * Cortex-M; any other is a thread's.
 */
#define ZEPHYR_STACK_ELEMENT	"z_thread_stack_element"
#define ZEPHYR_ISR_STACKS	"z_interrupt_stacks"
#define MAX_STACK_OBJECTS	32

/* The stacks the kernel's objects name, whether or not the search keeps to them. */
struct named_stacks {
	uint32_t lo[CW_MAX_THREADS], hi[CW_MAX_THREADS];
	unsigned int nr;
};

/* Linker-script names for a stack's ends, as common startup code spells them. */
static const struct {
	const char *lo, *hi;
	int process;
} stack_symbols[] = {
	{ "__psp_stack_lo", "__psp_stack_hi", 1 },
	{ "__msp_stack_lo", "__msp_stack_hi", 0 },
	{ "__StackLimit", "__StackTop", 0 },	/* CMSIS startup files */
	{ "_sstack", "_estack", 0 },		/* STM32Cube */
	{ "__stack_start__", "__stack_end__", 0 },
};

static struct cw_stack_range *add_range(struct cw_search_hints *h, uint32_t lo, uint32_t hi,
					int process, enum cw_search_bound bound)
{
	struct cw_stack_range *r;

	if (h->nr >= CW_MAX_STACK_RANGES || hi <= lo)
		return NULL;
	r = &h->ranges[h->nr++];
	*r = (struct cw_stack_range){ .lo = lo, .hi = hi, .process = process, .bound = bound };
	return r;
}

/*
 * A thread's stack as the kernel's objects give it, from a little below its
 * start when it may have overflowed: below an intact low end (the kernel's
 * fill still there) lies another's memory, often a neighbour's stack whose
 * saved context would pass for this thread's live frame.
 */
static void thread_range(struct cw_search_hints *h, const struct cw_rtos *rtos,
			 const struct cw_thread *th)
{
	int intact = th->have_use && !(th->overflow & CW_OVF_WATERMARK);
	uint32_t reach = intact ? 0 : OVERFLOW_REACH;
	/* Without the kernel's size (FreeRTOS without pxEndOfStack): the next thread's stack. */
	uint32_t hi = th->stack_size ? th->stack_hi : th->stack_bound;
	struct cw_stack_range *r;

	if (!th->have_stack || !hi)
		return;
	r = add_range(h, th->stack_lo > reach ? th->stack_lo - reach : 0, hi, !rtos->threads_on_msp,
		      CW_BOUND_RTOS);
	if (r)
		snprintf(r->what, sizeof(r->what), "%s thread %s", cw_rtos_name(rtos->kind),
			 th->name);
}

/*
 * A thread not running: its stack, as the kernel gives it, holds no live
 * frame, and the context the kernel saved for it is none, wherever it lies.
 */
static void other_thread(struct cw_search_hints *h, const struct cw_thread *th)
{
	struct cw_stack_range *r;

	if (th->saved_frame && h->nr_others < CW_MAX_OTHER_FRAMES)
		h->others[h->nr_others++] = th->saved_frame;
	if (!th->have_stack || !th->stack_size)
		return;
	r = add_range(h, th->stack_lo, th->stack_hi, !h->threads_on_msp, CW_BOUND_RTOS);
	if (!r)
		return;
	r->not_running = 1;
	snprintf(r->what, sizeof(r->what), "thread %.40s, not running", th->name);
}

/* The running thread's stack as its kernel gives it (without its size: up to the next one's). */
static void running_stack(struct cw_search_hints *h, const struct cw_thread *th)
{
	if (!th->have_stack)
		return;
	h->running_lo = th->stack_lo;
	h->running_hi = th->stack_size ? th->stack_hi : th->stack_bound;
}

/* The running thread's contexts its kernel saved at a switch: stale while it runs. */
static void stale_frames(struct cw_search_hints *h, const struct cw_thread *th)
{
	unsigned int i;

	if (th->saved_frame && h->nr_stale < CW_MAX_STALE_FRAMES)
		h->stale[h->nr_stale++] = th->saved_frame;
	for (i = 0; i < th->nr_restored && h->nr_stale < CW_MAX_STALE_FRAMES; i++)
		h->stale[h->nr_stale++] = th->restored[i];
}

/*
 * The running thread's stack, read through the RTOS model with no crash
 * backtrace yet: only the kernel's objects say where it is (FreeRTOS's
 * pxStack and size, Zephyr's thread->stack_info). The range reaches a little
 * below the stack's start, where the frame of a thread that overflowed it
 * was stacked.
 */
static void running_thread(const struct cw_target *t, const struct cw_dump *d,
			   enum cw_rtos_kind kind, enum cw_unwinder how, struct cw_search_hints *h,
			   struct named_stacks *named)
{
	struct cw_backtrace *none = calloc(1, sizeof(*none));
	struct cw_rtos rtos = { 0 };
	struct cw_fault f = { 0 };
	unsigned int i;

	if (!none)
		return;
	if (!cw_rtos_threads(t, d, none, &f, kind, how, &rtos)) {
		h->threads_on_msp = rtos.threads_on_msp;
		for (i = 0; i < rtos.nr && named->nr < CW_MAX_THREADS; i++)
			if (rtos.threads[i].have_stack && rtos.threads[i].stack_size) {
				named->lo[named->nr] = rtos.threads[i].stack_lo;
				named->hi[named->nr++] = rtos.threads[i].stack_hi;
			}
		for (i = 0; i < rtos.nr; i++)
			if (rtos.threads[i].current) {
				h->rtos = 1;
				running_stack(h, &rtos.threads[i]);
				thread_range(h, &rtos, &rtos.threads[i]);
				stale_frames(h, &rtos.threads[i]);
			}
		h->threads_run = h->rtos && !rtos.not_started;
		/*
		 * The kernel names the running thread: every other thread's stack
		 * holds only what it saved when switched out, and older frames.
		 * After the running one's, whose reach below an overflowed stack
		 * goes first.
		 */
		for (i = 0; h->threads_run && i < rtos.nr; i++)
			if (!rtos.threads[i].current)
				other_thread(h, &rtos.threads[i]);
		/*
		 * No thread is known to run (the kernel's pointer to it is not in
		 * the dump): the frame is on one of the threads' stacks, all of
		 * which the kernel's objects name, leaving room for the main stack.
		 */
		for (i = 0; !h->rtos && i < rtos.nr && h->nr < MAX_THREAD_RANGES; i++)
			thread_range(h, &rtos, &rtos.threads[i]);
	}
	cw_rtos_free(&rtos);
	free(none);
}

/* Does a stack the kernel names lie in [lo, hi)? */
static int is_named(const struct named_stacks *named, uint32_t lo, uint32_t hi)
{
	unsigned int i;

	for (i = 0; i < named->nr; i++)
		if (named->lo[i] >= lo && named->hi[i] <= hi)
			return 1;
	return 0;
}

/*
 * Each row of the firmware's stack objects that no thread the kernel names
 * uses: the interrupt stack; and, when the kernel does not say which thread
 * runs, an aborted thread's or one not yet given to a thread (else the
 * running thread's stack holds the live thread frame, and these only stale
 * ones, kept across a warm reset too). A named thread's stack stays out:
 * the running one's bounds are the kernel's, and another's saved context is
 * no live frame.
 */
static void stack_objects(const struct cw_target *t, const struct named_stacks *named,
			  struct cw_search_hints *h)
{
	struct cw_typed_object obj[MAX_STACK_OBJECTS];
	struct cw_stack_range *r;
	unsigned int n, i, k;
	uint32_t isr_stacks;

	/*
	 * Every Zephyr kernel defines its interrupt stacks: without them there
	 * are no stack objects, and a cold run on a firmware of another kernel
	 * skips the walk of all its DWARF that finding them by type takes.
	 */
	if (cw_image_lookup(t->img, ZEPHYR_ISR_STACKS, &isr_stacks))
		return;
	n = cw_image_objects_of_type(t->img, ZEPHYR_STACK_ELEMENT, obj, ARRAY_SIZE(obj));
	for (i = 0; i < n; i++) {
		uint32_t row = obj[i].size / obj[i].rows;
		int isr = !strcmp(obj[i].name, ZEPHYR_ISR_STACKS);

		for (k = 0; k < obj[i].rows; k++) {
			uint32_t lo = obj[i].addr + k * row;

			if (is_named(named, lo, lo + row) || (!isr && h->rtos))
				continue;
			r = add_range(h, lo, lo + row, !isr, CW_BOUND_SYMBOLS);
			if (r)
				snprintf(r->what, sizeof(r->what), "%s[%u] (%s)", obj[i].name, k,
					 ZEPHYR_STACK_ELEMENT);
		}
	}
}

/* Returns the number of ranges found. */
int cw_stack_hints(const struct cw_target *t, const struct cw_dump *dump, enum cw_rtos_kind kind,
		   enum cw_unwinder how, struct cw_search_hints *h)
{
	unsigned int i, have_process;
	struct named_stacks *named = calloc(1, sizeof(*named));
	struct cw_stack_range *r;
	uint32_t lo, hi;

	memset(h, 0, sizeof(*h));
	if (!named)
		return 0;
	if (kind != CW_RTOS_NONE) {
		const char *isr = cw_rtos_isr_stack(t->img, kind, &lo, &hi);

		running_thread(t, dump, kind, how, h, named);
		r = isr ? add_range(h, lo, hi, 0, CW_BOUND_SYMBOLS) : NULL;
		if (r)
			snprintf(r->what, sizeof(r->what), "%s (the kernel's interrupt stack)", isr);
	}
	have_process = h->nr;
	stack_objects(t, named, h);
	free(named);
	for (i = 0; i < ARRAY_SIZE(stack_symbols); i++) {
		if ((stack_symbols[i].process && have_process) ||
		    cw_image_lookup(t->img, stack_symbols[i].lo, &lo) ||
		    cw_image_lookup(t->img, stack_symbols[i].hi, &hi))
			continue;
		r = add_range(h, lo, hi, stack_symbols[i].process, CW_BOUND_SYMBOLS);
		if (r)
			snprintf(r->what, sizeof(r->what), "%s..%s", stack_symbols[i].lo,
				 stack_symbols[i].hi);
	}
	return (int)h->nr;
}
