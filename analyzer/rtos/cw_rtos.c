// SPDX-License-Identifier: GPL-2.0
/*
 * cw_rtos.c - RTOS awareness: pick the kernel (FreeRTOS, Zephyr, ThreadX,
 * LiteOS-M or NuttX, each behind struct cw_rtos_ops), let it find its threads, then
 * finish each one in the thread model (saved registers, unwind, stack use); no kernel patch
 * and no help from the firmware needed.
 *
 * The kernel objects are found by ELF symbol; struct layouts come from DWARF
 * (libdw) when the firmware has it, else from the defaults documented in
 * Documentation/crashwalk.rst. Everything read comes through cw_mem_read, and
 * every list walk is bounded and checked for cycles: a dump of a crashed
 * system may hold any garbage in these structures.
 */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "rtos/cw_rtos_model.h"

/* A kernel as CW_RTOS_KERNELS (crashwalk.h) lists it: its kind, its name, its reader. */
struct kernel {
	enum cw_rtos_kind kind;
	const char *name;
	const struct cw_rtos_ops *ops;
};

#define CW_RTOS_KERNEL_(NAME, name)	{ CW_RTOS_##NAME, #name, &cw_##name##_ops },
static const struct kernel kernels[] = { CW_RTOS_KERNELS(CW_RTOS_KERNEL_) };
#undef CW_RTOS_KERNEL_

/*
 * Kernels crashwalk does not read, by a symbol only they define: --rtos auto
 * names the one it sees rather than saying there is none.
 */
static const struct { const char *name, *symbol; } unread_kernels[] = {
	{ "embOS", "OS_Global" },
};

const char *cw_rtos_name(enum cw_rtos_kind kind)
{
	unsigned int i;

	if (kind == CW_RTOS_AUTO)
		return "auto";
	for (i = 0; i < ARRAY_SIZE(kernels); i++)
		if (kernels[i].kind == kind)
			return kernels[i].name;
	return kind == CW_RTOS_NONE ? "none" : "unknown";
}

/* --rtos KIND: auto, none or a kernel's name. */
int cw_rtos_parse(const char *s, enum cw_rtos_kind *out)
{
	unsigned int i;

	if (!strcmp(s, "auto") || !strcmp(s, "none")) {
		*out = s[0] == 'a' ? CW_RTOS_AUTO : CW_RTOS_NONE;
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(kernels); i++)
		if (!strcmp(s, kernels[i].name)) {
			*out = kernels[i].kind;
			return 0;
		}
	return -1;
}

const char *cw_rtos_kinds(void)
{
	static char list[32 * (ARRAY_SIZE(kernels) + 2)];
	size_t n;
	unsigned int i;

	if (list[0])
		return list;
	n = snprintf(list, sizeof(list), "auto, none");
	for (i = 0; i < ARRAY_SIZE(kernels); i++)
		n += snprintf(list + n, sizeof(list) - n, "%s%s",
			      i + 1 < ARRAY_SIZE(kernels) ? ", " : " or ", kernels[i].name);
	return list;
}

const char *cw_thread_state_name(enum cw_thread_state s)
{
	static const char *const names[] = {
		[CW_TS_UNKNOWN] = "unknown", [CW_TS_RUNNING] = "running", [CW_TS_READY] = "ready",
		[CW_TS_DELAYED] = "delayed", [CW_TS_BLOCKED] = "blocked",
		[CW_TS_SUSPENDED] = "suspended", [CW_TS_DEAD] = "dead",
	};

	return s < ARRAY_SIZE(names) ? names[s] : "unknown";
}

static const struct kernel *pick_kernel(const struct cw_image *img, enum cw_rtos_kind kind)
{
	uint32_t addr;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kernels); i++)
		if (kernels[i].kind == kind ||
		    (kind == CW_RTOS_AUTO && !cw_image_lookup(img, kernels[i].ops->detect, &addr)))
			return &kernels[i];
	return NULL;
}

static const struct cw_rtos_ops *pick_ops(const struct cw_image *img, enum cw_rtos_kind kind)
{
	const struct kernel *k = pick_kernel(img, kind);

	return k ? k->ops : NULL;
}

/*
 * The return address of each svc in the functions the kernel's ports start
 * the first task with: the address after an svc instruction (0xDFxx) there.
 */
static void start_svcs(const struct cw_image *img, const struct cw_rtos_ops *ops,
		       struct cw_bounds *b)
{
	const struct cw_symbol *fn;
	unsigned int i;
	uint32_t at, a;
	uint16_t hw;

	for (i = 0; ops && ops->start_svc && ops->start_svc[i]; i++) {
		if (cw_image_lookup(img, ops->start_svc[i], &at) ||
		    !(fn = cw_image_func(img, at & ~1u)))
			continue;
		for (a = fn->addr; a + 2 <= fn->addr + fn->size; a += 2) {
			if (cw_mem_read(cw_image_contents(img), a, &hw, sizeof(hw)) ||
			    (hw & 0xFF00) != 0xDF00 || !cw_image_insn_start(img, a))
				continue;
			if (b->nr_start_svc == CW_MAX_START_SVCS)
				return;
			b->start_svc_name[b->nr_start_svc] = ops->start_svc[i];
			b->start_svc[b->nr_start_svc++] = a + 2;
		}
	}
}

static void kernel_ends(const struct cw_image *img, const struct cw_rtos_ops *ops,
			struct cw_bounds *b)
{
	const struct cw_symbol *fn;

	memset(b, 0, sizeof(*b));
	if (ops && ops->find_task_exit &&
	    (b->task_exit_from = ops->find_task_exit(img, &b->task_exit))) {
		fn = cw_image_func(img, b->task_exit);
		b->task_exit_name = fn && fn->addr == b->task_exit ? fn->name : "a function";
	} else if (ops && ops->task_exit && !cw_image_lookup(img, ops->task_exit, &b->task_exit)) {
		b->task_exit &= ~1u;
		b->task_exit_name = ops->task_exit;
	}
	if (ops && ops->thread_entry && !cw_image_lookup(img, ops->thread_entry, &b->thread_entry)) {
		b->thread_entry &= ~1u;
		b->thread_entry_name = ops->thread_entry;
	}
	start_svcs(img, ops, b);
}

/*
 * Where the kernel kind (or the one the symbols show) starts its threads, so
 * the crash's own chain ends there too; no stack bounds.
 */
void cw_rtos_bounds(const struct cw_image *img, enum cw_rtos_kind kind, struct cw_bounds *b)
{
	kernel_ends(img, pick_ops(img, kind), b);
}

/* The kernel's own interrupt stack: the name of its low end's symbol, NULL if none. */
const char *cw_rtos_isr_stack(const struct cw_image *img, enum cw_rtos_kind kind, uint32_t *lo,
			      uint32_t *hi)
{
	const struct cw_rtos_ops *ops = pick_ops(img, kind);
	uint32_t size;

	if (!ops || !ops->isr_stack_lo)
		return NULL;
	/* Without an end symbol the stack is the low one's object, its size in the symbol. */
	if (!ops->isr_stack_hi) {
		if (cw_image_object(img, ops->isr_stack_lo, lo, &size) || !size)
			return NULL;
		*hi = *lo + size;
		return ops->isr_stack_lo;
	}
	if (cw_image_lookup(img, ops->isr_stack_lo, lo) ||
	    cw_image_lookup(img, ops->isr_stack_hi, hi) || *hi <= *lo)
		return NULL;
	return ops->isr_stack_lo;
}

/*
 * The top of a stack whose size the kernel does not record: the nearest
 * other thread's stack or TCB above its start, so no unwinder reads into them.
 */
static void stack_top_from_neighbours(struct cw_rtos *r, struct cw_thread *th)
{
	uint32_t top = 0;
	unsigned int i;

	for (i = 0; i < r->nr; i++) {
		const struct cw_thread *o = &r->threads[i];

		if (o == th)
			continue;
		if (o->tcb > th->stack_lo && (!top || o->tcb < top))
			top = o->tcb;
		if (o->have_stack && o->stack_lo > th->stack_lo && (!top || o->stack_lo < top))
			top = o->stack_lo;
	}
	th->stack_bound = top;
}

/* A kernel the symbols show that crashwalk cannot read: a warning, not silence. */
static void note_unread_kernel(struct cw_rtos_walk *w)
{
	uint32_t addr;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(unread_kernels); i++)
		if (!cw_image_lookup(w->t->img, unread_kernels[i].symbol, &addr)) {
			cw_rtos_warn(w, "the firmware has %s's symbols (%s): crashwalk does not read "
				     "its threads", unread_kernels[i].name, unread_kernels[i].symbol);
			return;
		}
}

/*
 * Fill out with the threads of the kernel kind names (or the one the symbols
 * show, for CW_RTOS_AUTO). Returns 0 with out->kind CW_RTOS_NONE when there
 * is no kernel to read, -1 when out of memory or the named kernel is absent.
 */
int cw_rtos_threads(const struct cw_target *t, const struct cw_dump *dump,
		    const struct cw_backtrace *bt, const struct cw_fault *f, enum cw_rtos_kind kind,
		    enum cw_unwinder how, struct cw_rtos *out)
{
	struct cw_rtos_walk w = { .t = t, .dump = dump, .bt = bt, .fault = f, .how = how,
				  .out = out };
	const struct kernel *k;
	const struct cw_rtos_ops *ops;
	unsigned int i;

	memset(out, 0, sizeof(*out));
	out->kind = CW_RTOS_NONE;
	k = pick_kernel(t->img, kind);
	if (!k && kind == CW_RTOS_AUTO)
		note_unread_kernel(&w);
	if (!k)
		return kind == CW_RTOS_NONE || kind == CW_RTOS_AUTO ? 0 : -1;
	out->threads = calloc(CW_MAX_THREADS, sizeof(*out->threads));
	if (!out->threads)
		return -1;
	out->kind = k->kind;
	ops = k->ops;
	w.fill = ops->fill;
	w.fill_word = ops->fill_word;
	w.stack_guard = ops->stack_guard;
	w.whole_words = ops->whole_words;
	kernel_ends(t->img, ops, &w.ends);
	if (ops->find(&w)) {
		cw_rtos_free(out);
		return -1;
	}
	for (i = 0; i < out->nr; i++)
		if (out->threads[i].have_stack)
			stack_top_from_neighbours(out, &out->threads[i]);
	for (i = 0; i < out->nr; i++) {
		cw_rtos_finish_thread(&w, &out->threads[i]);
		if (ops->settle)
			ops->settle(&w, &out->threads[i]);
	}
	cw_rtos_check_painted(&w);
	return 0;
}

void cw_rtos_free(struct cw_rtos *r)
{
	free(r->threads);
	r->threads = NULL;
	r->nr = 0;
}
