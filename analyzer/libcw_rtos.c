// SPDX-License-Identifier: GPL-2.0
/*
 * libcw_rtos.c - RTOS awareness: find the kernel's threads in a dump (FreeRTOS
 * or Zephyr), read each one's saved registers, unwind it with the engine and
 * measure its stack; no kernel patch and no help from the firmware needed.
 *
 * The kernel objects are found by ELF symbol; struct layouts come from DWARF
 * (libdw) when the firmware has it, else from the defaults documented in
 * Documentation/crashwalk.rst. Everything read comes through cw_mem_read, and
 * every list walk is bounded and checked for cycles: a dump of a crashed
 * system may hold any garbage in these structures.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "crashwalk.h"

#define MAX_LIST_ITEMS	256	/* more items than any list of a sane kernel holds */
#define MAX_STACK_SCAN	(1u << 20)	/* bytes of a stack read for its high-water mark */
#define WATERMARK_MIN	16	/* fill bytes FreeRTOS's overflow check wants at the low end */
#define CFSR_STKOF	(1u << 20)	/* UFSR.STKOF: v8-M stack limit violation */
#define FREERTOS_FILL	0xA5	/* tskSTACK_FILL_BYTE */
#define ZEPHYR_FILL	0xAA	/* CONFIG_INIT_STACKS */
#define FP_CALLEE	0x40u	/* s16-s31, saved by the context switch */

/* ---- struct layouts: DWARF when present, documented defaults otherwise ---- */

struct type_reader {
	Dwarf *dw;
};

static int die_is_named(Dwarf_Die *die, const char *name)
{
	const char *n = dwarf_diename(die);

	return n && !strcmp(n, name);
}

/* A struct (or the struct behind a typedef) defined, not only declared, at a CU's top level. */
static int find_struct(struct type_reader *tr, const char *name, Dwarf_Die *out)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	if (!tr->dw)
		return -1;
	while (dwarf_nextcu(tr->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, child;

		if (dwarf_offdie(tr->dw, off + hsize, &cu) && dwarf_child(&cu, &child) == 0) {
			do {
				int tag = dwarf_tag(&child);

				if ((tag == DW_TAG_structure_type || tag == DW_TAG_typedef) &&
				    die_is_named(&child, name) &&
				    !dwarf_hasattr(&child, DW_AT_declaration) &&
				    dwarf_peel_type(&child, out) == 0 &&
				    dwarf_tag(out) == DW_TAG_structure_type &&
				    dwarf_hasattr(out, DW_AT_byte_size))
					return 0;
			} while (dwarf_siblingof(&child, &child) == 0);
		}
		off = next;
	}
	return -1;
}

static int member_type(Dwarf_Die *member, Dwarf_Die *type)
{
	Dwarf_Attribute a;

	return dwarf_formref_die(dwarf_attr(member, DW_AT_type, &a), type) &&
	       dwarf_peel_type(type, type) == 0 ? 0 : -1;
}

static uint32_t member_offset(Dwarf_Die *member)
{
	Dwarf_Attribute a;
	Dwarf_Word v = 0;

	if (dwarf_attr(member, DW_AT_data_member_location, &a))
		dwarf_formudata(&a, &v);
	return (uint32_t)v;
}

/* One member of a struct or union, looking into anonymous members as C does. */
static int find_member(Dwarf_Die *agg, const char *name, size_t len, uint32_t *off,
		       Dwarf_Die *type)
{
	Dwarf_Die m, t;

	if (dwarf_child(agg, &m))
		return -1;
	do {
		const char *n;

		if (dwarf_tag(&m) != DW_TAG_member)
			continue;
		n = dwarf_diename(&m);
		if (n && strlen(n) == len && !strncmp(n, name, len)) {
			*off = member_offset(&m);
			return member_type(&m, type);
		}
		if (!n && !member_type(&m, &t) &&
		    !find_member(&t, name, len, off, type)) {
			*off += member_offset(&m);
			return 0;
		}
	} while (dwarf_siblingof(&m, &m) == 0);
	return -1;
}

/* Offset (and size) of a dotted member path such as "callee_saved.psp" in a struct. */
static int dwarf_member(struct type_reader *tr, const char *type, const char *path,
			uint32_t *off, uint32_t *size)
{
	Dwarf_Die agg, t;
	uint32_t total = 0, o;
	const char *p = path;

	if (find_struct(tr, type, &agg))
		return -1;
	for (;;) {
		size_t len = strcspn(p, ".");

		if (find_member(&agg, p, len, &o, &t))
			return -1;
		total += o;
		if (!p[len])
			break;
		agg = t;
		p += len + 1;
	}
	*off = total;
	if (size) {
		Dwarf_Word sz;

		*size = dwarf_aggregate_size(&t, &sz) == 0 ? (uint32_t)sz : 4;
	}
	return 0;
}

static int dwarf_struct_size(struct type_reader *tr, const char *type, uint32_t *size)
{
	Dwarf_Die agg;
	Dwarf_Word sz;

	if (find_struct(tr, type, &agg) || dwarf_aggregate_size(&agg, &sz))
		return -1;
	*size = (uint32_t)sz;
	return 0;
}

static int first_module(Dwfl_Module *mod, void **user, const char *name, Dwarf_Addr base,
			void *arg)
{
	(void)user;
	(void)name;
	(void)base;
	*(Dwfl_Module **)arg = mod;
	return DWARF_CB_ABORT;
}

static void type_reader_open(struct type_reader *tr, const struct cw_image *img)
{
	Dwfl *dwfl = cw_image_dwfl(img);
	Dwfl_Module *mod = NULL;
	Dwarf_Addr bias;

	tr->dw = NULL;
	if (dwfl && dwfl_getmodules(dwfl, first_module, &mod, 0) >= 0 && mod)
		tr->dw = dwfl_module_getdwarf(mod, &bias);
}

/* One field: its offset from DWARF, else the default; *dwarf_ok is cleared on a miss. */
struct field {
	const char *type, *path;
	uint32_t *off, def;
	uint32_t *size, def_size;
	int optional;		/* a config option may leave it out: absent is not a miss */
	int *present;
};

static int read_fields(struct type_reader *tr, const struct field *f, unsigned int n)
{
	unsigned int i;
	int all = 1;

	for (i = 0; i < n; i++) {
		*f[i].off = f[i].def;
		if (f[i].size)
			*f[i].size = f[i].def_size;
		if (f[i].present)
			*f[i].present = !f[i].optional;
	}
	if (!tr->dw)
		return 0;
	for (i = 0; i < n; i++) {
		uint32_t off, size;

		if (!dwarf_member(tr, f[i].type, f[i].path, &off, &size)) {
			*f[i].off = off;
			if (f[i].size)
				*f[i].size = size;
			if (f[i].present)
				*f[i].present = 1;
		} else if (f[i].optional) {
			if (f[i].present)
				*f[i].present = 0;
		} else {
			all = 0;
		}
	}
	return all;
}

/* ---- the walk's state ---- */

struct rtos_walk {
	const struct cw_target *t;
	const struct cw_dump *dump;
	const struct cw_backtrace *bt;
	const struct cw_fault *fault;
	enum cw_unwinder how;
	struct cw_rtos *out;
	uint8_t fill;
};

static void __attribute__((format(printf, 2, 3))) warn(struct rtos_walk *w, const char *fmt, ...)
{
	struct cw_rtos *r = w->out;
	va_list ap;

	if (r->nr_warnings >= ARRAY_SIZE(r->warnings))
		return;
	va_start(ap, fmt);
	vsnprintf(r->warnings[r->nr_warnings++], sizeof(r->warnings[0]), fmt, ap);
	va_end(ap);
}

static void __attribute__((format(printf, 2, 3)))
thread_problem(struct cw_thread *th, const char *fmt, ...)
{
	va_list ap;

	if (th->problem[0])
		return;		/* the first problem is the one that explains the rest */
	va_start(ap, fmt);
	vsnprintf(th->problem, sizeof(th->problem), fmt, ap);
	va_end(ap);
}

static int rd32(const struct rtos_walk *w, uint32_t addr, uint32_t *v)
{
	return cw_mem_read32(w->t->mem, addr, v);
}

/* A thread's name as bytes in the dump: printable, terminated, never longer than the field. */
static void read_name(const struct rtos_walk *w, uint32_t addr, uint32_t len, char *out,
		      size_t outlen)
{
	uint8_t buf[64];
	uint32_t i;

	if (len > sizeof(buf))
		len = sizeof(buf);
	if (len >= outlen)
		len = (uint32_t)outlen - 1;
	if (cw_mem_read(w->t->mem, addr, buf, len)) {
		snprintf(out, outlen, "?");
		return;
	}
	for (i = 0; i < len && buf[i]; i++)
		out[i] = buf[i] >= 0x20 && buf[i] < 0x7f ? (char)buf[i] : '?';
	out[i] = 0;
}

static struct cw_thread *add_thread(struct rtos_walk *w, uint32_t tcb, const char *where)
{
	struct cw_rtos *r = w->out;
	unsigned int i;

	for (i = 0; i < r->nr; i++)
		if (r->threads[i].tcb == tcb) {
			warn(w, "thread 0x%08x is in %s and in an earlier list", tcb, where);
			return NULL;
		}
	if (r->nr >= CW_MAX_THREADS) {
		warn(w, "more than %d threads: thread 0x%08x (%s) and later ones left out",
		     CW_MAX_THREADS, tcb, where);
		return NULL;
	}
	memset(&r->threads[r->nr], 0, sizeof(r->threads[0]));
	r->threads[r->nr].tcb = tcb;
	return &r->threads[r->nr++];
}

/* ---- saved contexts ---- */

/*
 * Pop the hardware frame the thread's switch-out left at base into its
 * registers, as the exception return would.
 */
static int pop_hw_frame(struct rtos_walk *w, struct cw_thread *th, uint32_t base,
			uint32_t exc_return)
{
	struct cw_exc_return er;
	struct cw_exc_frame f;

	if (cw_exc_return_decode(exc_return, &er) || er.fnc_return) {
		thread_problem(th, "saved EXC_RETURN 0x%08x is not valid", exc_return);
		return -1;
	}
	switch (cw_exc_frame_read(w->t->mem, base, &er, &f)) {
	case CW_EXC_OK:
		break;
	case CW_EXC_SIGNATURE:
		thread_problem(th, "saved frame at 0x%08x has integrity signature 0x%08x",
			       base, f.signature);
		return -1;
	default:
		thread_problem(th, "saved frame word at 0x%08x not in the dump", f.bad_addr);
		return -1;
	}
	if (!(f.words[CW_EXC_XPSR_WORD] & CW_XPSR_T)) {
		thread_problem(th, "saved frame at 0x%08x has xPSR 0x%08x without the Thumb bit",
			       f.base, f.words[CW_EXC_XPSR_WORD]);
		return -1;
	}
	cw_exc_frame_pop(&f, &th->regs);
	cw_reg_set(&th->regs, CW_PSP, base);	/* where the switch left the PSP */
	th->exc_return = exc_return;
	th->have_regs = 1;
	return 0;
}

static int read_callee(struct rtos_walk *w, struct cw_thread *th, uint32_t at)
{
	uint32_t v;
	unsigned int i;

	for (i = 0; i < 8; i++) {
		if (rd32(w, at + 4 * i, &v)) {
			thread_problem(th, "saved r%u at 0x%08x not in the dump", 4 + i, at + 4 * i);
			return -1;
		}
		cw_reg_set(&th->regs, (enum cw_reg)(CW_R4 + i), v);
	}
	return 0;
}

/*
 * What FreeRTOS's GCC ports store at pxTopOfStack, from the lowest address:
 *   ARM_CM33 with TrustZone: xSecureContext, PSPLIM, EXC_RETURN, r4-r11
 *   ARM_CM33 (and CM23/CM55/CM85 ports) without: PSPLIM, EXC_RETURN, r4-r11
 *   ARM_CM4F (and CM7):       r4-r11, EXC_RETURN
 *   ARM_CM3 (and CM0, CM4 without FPU): r4-r11
 * then s16-s31 when EXC_RETURN bit 4 is 0, then the hardware frame. Which one
 * a build used is not recorded anywhere, so each candidate is tried and kept
 * only if its EXC_RETURN, PSPLIM and hardware frame all make sense.
 */
struct frt_port {
	const char *name;
	int exc_at;		/* word index of EXC_RETURN, -1: none (CW_EXC_RETURN_THREAD_PSP) */
	int psplim_at;		/* word index of PSPLIM, -1: none */
	unsigned int r4_at;	/* word index of r4 */
	unsigned int words;	/* words the switch stored below s16-s31 / the frame */
};

static const struct frt_port frt_ports[] = {
	{ "ARM_CM33_TZ", 2, 1, 3, 11 },
	{ "ARM_CM33", 1, 0, 2, 10 },
	{ "ARM_CM4F", 8, -1, 0, 9 },
	{ "ARM_CM3", -1, -1, 0, 8 },
};

static int frt_try_port(struct rtos_walk *w, struct cw_thread *th, uint32_t top,
			const struct frt_port *p)
{
	uint32_t exc = CW_EXC_RETURN_THREAD_PSP, psplim = 0, base;

	if (p->exc_at >= 0 && (rd32(w, top + 4 * (uint32_t)p->exc_at, &exc) ||
			       !cw_exc_return_to_thread_psp(exc)))
		return -1;
	if (p->psplim_at >= 0) {
		if (rd32(w, top + 4 * (uint32_t)p->psplim_at, &psplim) || psplim > top ||
		    (psplim & 7) || (th->have_stack && psplim < th->stack_lo))
			return -1;
	}
	base = top + 4 * p->words + (cw_exc_return_fp_frame(exc) ? FP_CALLEE : 0);
	th->problem[0] = 0;
	if (read_callee(w, th, top + 4 * p->r4_at) || pop_hw_frame(w, th, base, exc) ||
	    !cw_image_is_code(w->t->img, th->regs.r[CW_PC])) {
		th->have_regs = 0;
		th->regs.valid = 0;
		return -1;
	}
	th->layout = p->name;
	th->have_psplim = p->psplim_at >= 0;
	th->psplim = psplim;
	return 0;
}

static void frt_context(struct rtos_walk *w, struct cw_thread *th, uint32_t top, int tz)
{
	unsigned int i;

	for (i = tz ? 0 : 1; i < ARRAY_SIZE(frt_ports); i++)
		if (!frt_try_port(w, th, top, &frt_ports[i]))
			return;
	thread_problem(th, "no FreeRTOS port's saved context fits at pxTopOfStack 0x%08x", top);
}

/* ---- FreeRTOS ---- */

struct frt_layout {
	uint32_t top, state_item, event_item, prio, stack, name, name_len, end_of_stack;
	uint32_t item_next, item_owner, item_container;
	uint32_t list_count, list_end, list_size;
	int have_end_of_stack;
};

/*
 * The defaults are those of FreeRTOS V10/V11 for a 32-bit port without MPU,
 * list integrity check bytes or configRECORD_STACK_HIGH_ADDRESS.
 */
static int frt_layout(struct type_reader *tr, struct frt_layout *l)
{
	const struct field f[] = {
		{ "tskTaskControlBlock", "pxTopOfStack", &l->top, 0, NULL, 0, 0, NULL },
		{ "tskTaskControlBlock", "xStateListItem", &l->state_item, 4, NULL, 0, 0, NULL },
		{ "tskTaskControlBlock", "xEventListItem", &l->event_item, 24, NULL, 0, 0, NULL },
		{ "tskTaskControlBlock", "uxPriority", &l->prio, 44, NULL, 0, 0, NULL },
		{ "tskTaskControlBlock", "pxStack", &l->stack, 48, NULL, 0, 0, NULL },
		{ "tskTaskControlBlock", "pcTaskName", &l->name, 52, &l->name_len, 16, 0, NULL },
		{ "tskTaskControlBlock", "pxEndOfStack", &l->end_of_stack, 0, NULL, 0, 1,
		  &l->have_end_of_stack },
		{ "xLIST_ITEM", "pxNext", &l->item_next, 4, NULL, 0, 0, NULL },
		{ "xLIST_ITEM", "pvOwner", &l->item_owner, 12, NULL, 0, 0, NULL },
		{ "xLIST_ITEM", "pxContainer", &l->item_container, 16, NULL, 0, 0, NULL },
		{ "xLIST", "uxNumberOfItems", &l->list_count, 0, NULL, 0, 0, NULL },
		{ "xLIST", "xListEnd", &l->list_end, 8, NULL, 0, 0, NULL },
	};
	int dwarf = read_fields(tr, f, ARRAY_SIZE(f));

	if (!dwarf || dwarf_struct_size(tr, "xLIST", &l->list_size))
		l->list_size = 20;
	return dwarf;
}

static void frt_thread(struct rtos_walk *w, const struct frt_layout *l, uint32_t tcb,
		       enum cw_thread_state state, const char *where)
{
	struct cw_thread *th = add_thread(w, tcb, where);
	uint32_t v, event_container = 0;

	if (!th)
		return;
	th->state = state;
	read_name(w, tcb + l->name, l->name_len, th->name, sizeof(th->name));
	if (!rd32(w, tcb + l->prio, &v))
		th->priority = (int)v;
	if (!rd32(w, tcb + l->stack, &th->stack_lo))
		th->have_stack = 1;
	if (l->have_end_of_stack && !rd32(w, tcb + l->end_of_stack, &v) && v > th->stack_lo) {
		/* pxEndOfStack is the highest word of a descending stack. */
		th->stack_hi = v + 4;
		th->stack_size = th->stack_hi - th->stack_lo;
	}
	/* In the suspended or delayed list while waiting on an event: blocked. */
	if ((state == CW_TS_SUSPENDED || state == CW_TS_DELAYED) &&
	    !rd32(w, tcb + l->event_item + l->item_container, &event_container) && event_container)
		th->state = CW_TS_BLOCKED;
}

/* Walk one xLIST from its xListEnd, adding the owner of every item. */
static void frt_walk_list(struct rtos_walk *w, const struct frt_layout *l, uint32_t list,
			  enum cw_thread_state state, const char *name)
{
	uint32_t seen[MAX_LIST_ITEMS], count, end = list + l->list_end, item, owner, container;
	unsigned int n = 0, i;

	if (rd32(w, list + l->list_count, &count)) {
		warn(w, "%s at 0x%08x not in the dump", name, list);
		return;
	}
	if (rd32(w, end + l->item_next, &item)) {
		warn(w, "%s at 0x%08x: end marker not in the dump", name, list);
		return;
	}
	while (item != end) {
		for (i = 0; i < n; i++)
			if (seen[i] == item) {
				warn(w, "%s at 0x%08x is cyclic at item 0x%08x", name, list, item);
				return;
			}
		if (n >= MAX_LIST_ITEMS) {
			warn(w, "%s at 0x%08x: more than %d items", name, list, MAX_LIST_ITEMS);
			return;
		}
		seen[n++] = item;
		if (rd32(w, item + l->item_owner, &owner) ||
		    rd32(w, item + l->item_container, &container)) {
			warn(w, "%s at 0x%08x: item 0x%08x not in the dump", name, list, item);
			return;
		}
		if (container != list)
			warn(w, "%s at 0x%08x: item 0x%08x says it is in 0x%08x", name, list, item,
			     container);
		frt_thread(w, l, owner, state, name);
		if (rd32(w, item + l->item_next, &item)) {
			warn(w, "%s at 0x%08x: item 0x%08x not in the dump", name, list, seen[n - 1]);
			return;
		}
	}
	if (n != count)
		warn(w, "%s at 0x%08x: %u items, its count says %u", name, list, n, count);
}

static int frt_find(struct rtos_walk *w)
{
	const struct cw_image *img = w->t->img;
	static const struct { const char *sym; enum cw_thread_state state; } lists[] = {
		{ "xDelayedTaskList1", CW_TS_DELAYED },
		{ "xDelayedTaskList2", CW_TS_DELAYED },
		{ "xPendingReadyList", CW_TS_READY },
		{ "xSuspendedTaskList", CW_TS_SUSPENDED },
		{ "xTasksWaitingTermination", CW_TS_DEAD },
	};
	uint32_t cur_sym, cur = 0, ready, ready_size, addr, nr_tasks;
	struct type_reader tr;
	struct frt_layout l;
	struct cw_thread *th;
	char name[48];
	unsigned int i;

	if (cw_image_lookup(img, "pxCurrentTCB", &cur_sym) ||
	    cw_image_object(img, "pxReadyTasksLists", &ready, &ready_size))
		return -1;
	type_reader_open(&tr, img);
	w->out->layout_dwarf = frt_layout(&tr, &l);
	if (rd32(w, cur_sym, &cur))
		warn(w, "pxCurrentTCB at 0x%08x not in the dump", cur_sym);
	for (i = 0; i < ready_size / l.list_size && i < 256; i++) {
		snprintf(name, sizeof(name), "pxReadyTasksLists[%u]", i);
		frt_walk_list(w, &l, ready + i * l.list_size, CW_TS_READY, name);
	}
	for (i = 0; i < ARRAY_SIZE(lists); i++)
		if (!cw_image_lookup(img, lists[i].sym, &addr))
			frt_walk_list(w, &l, addr, lists[i].state, lists[i].sym);
	if (!cw_image_lookup(img, "uxCurrentNumberOfTasks", &addr) && !rd32(w, addr, &nr_tasks) &&
	    nr_tasks != w->out->nr)
		warn(w, "uxCurrentNumberOfTasks says %u tasks, the lists hold %u", nr_tasks,
		     w->out->nr);
	for (i = 0; i < w->out->nr; i++) {
		uint32_t top;

		th = &w->out->threads[i];
		th->current = th->tcb == cur;
		if (rd32(w, th->tcb + l.top, &top))
			thread_problem(th, "TCB at 0x%08x not in the dump", th->tcb);
		else
			frt_context(w, th, top, !cw_image_lookup(img, "xSecureContext", &addr));
	}
	return 0;
}

/* ---- Zephyr ---- */

struct zep_layout {
	uint32_t current, threads, state, prio, callee, psp, next, name, name_len;
	uint32_t stack_start, stack_size, exc_return;
	int have_name, have_stack, have_exc_return;
};

/*
 * Defaults: struct k_thread of a Zephyr 3.x Cortex-M build with
 * CONFIG_THREAD_MONITOR, CONFIG_THREAD_NAME (32), CONFIG_THREAD_STACK_INFO,
 * CONFIG_FPU_SHARING and CONFIG_ARM_STORE_EXC_RETURN, and nothing else that
 * adds members: other configurations move the fields, so use DWARF.
 */
static int zep_layout(struct type_reader *tr, struct zep_layout *l)
{
	const struct field f[] = {
		{ "z_kernel", "cpus", &l->current, 8, NULL, 0, 0, NULL },
		{ "z_kernel", "threads", &l->threads, 32, NULL, 0, 0, NULL },
		{ "k_thread", "base.thread_state", &l->state, 13, NULL, 0, 0, NULL },
		{ "k_thread", "base.prio", &l->prio, 14, NULL, 0, 0, NULL },
		{ "k_thread", "callee_saved", &l->callee, 48, NULL, 0, 0, NULL },
		{ "k_thread", "callee_saved.psp", &l->psp, 80, NULL, 0, 0, NULL },
		{ "k_thread", "next_thread", &l->next, 112, NULL, 0, 0, NULL },
		{ "k_thread", "name", &l->name, 116, &l->name_len, 32, 1, &l->have_name },
		{ "k_thread", "stack_info.start", &l->stack_start, 148, NULL, 0, 1,
		  &l->have_stack },
		{ "k_thread", "stack_info.size", &l->stack_size, 152, NULL, 0, 1, NULL },
		{ "k_thread", "arch.mode_exc_return", &l->exc_return, 233, NULL, 0, 1,
		  &l->have_exc_return },
	};
	int dwarf = read_fields(tr, f, ARRAY_SIZE(f));
	uint32_t cur;

	/* cpus[0].current: the member's offset inside struct _cpu. */
	if (dwarf && !dwarf_member(tr, "_cpu", "current", &cur, NULL))
		l->current += cur;
	else if (dwarf)
		dwarf = 0;
	if (!dwarf) {
		l->current = 8;
		l->have_name = l->have_stack = l->have_exc_return = 1;
	}
	return dwarf;
}

/* Zephyr's thread_state bits (kernel_structs.h), most telling first. */
static enum cw_thread_state zep_state(uint8_t s)
{
	if (s & 0x08)
		return CW_TS_DEAD;
	if (s & 0x10)
		return CW_TS_SUSPENDED;
	if (s & 0x02)
		return CW_TS_BLOCKED;
	if (s & 0x04)
		return CW_TS_DELAYED;
	if (s & 0x80)
		return CW_TS_READY;
	return CW_TS_UNKNOWN;
}

static void zep_context(struct rtos_walk *w, struct cw_thread *th, const struct zep_layout *l)
{
	uint32_t psp, exc = CW_EXC_RETURN_THREAD_PSP;
	uint8_t b;

	if (read_callee(w, th, th->tcb + l->callee))
		return;
	if (rd32(w, th->tcb + l->psp, &psp)) {
		thread_problem(th, "callee_saved.psp at 0x%08x not in the dump", th->tcb + l->psp);
		return;
	}
	/* Without the stored EXC_RETURN a frame is taken as basic: FP threads would be wrong. */
	if (l->have_exc_return && !cw_mem_read(w->t->mem, th->tcb + l->exc_return, &b, 1))
		exc = CW_EXC_RETURN_LOW_BYTE_BASE | b;
	if (th->have_stack && th->stack_size &&
	    (psp < th->stack_lo || psp >= th->stack_hi))
		th->overflow |= CW_OVF_SP_OUTSIDE;
	if (pop_hw_frame(w, th, psp, exc)) {
		th->have_regs = 0;
		return;
	}
	th->layout = "callee_saved";
}

static int zep_find(struct rtos_walk *w)
{
	const struct cw_image *img = w->t->img;
	uint32_t kernel, cur = 0, tcb, seen[CW_MAX_THREADS + 1], v;
	struct type_reader tr;
	struct zep_layout l;
	struct cw_thread *th;
	unsigned int n = 0, i;
	uint8_t b;

	if (cw_image_lookup(img, "_kernel", &kernel))
		return -1;
	type_reader_open(&tr, img);
	w->out->layout_dwarf = zep_layout(&tr, &l);
	if (rd32(w, kernel + l.current, &cur))
		warn(w, "_kernel.cpus[0].current at 0x%08x not in the dump", kernel + l.current);
	if (rd32(w, kernel + l.threads, &tcb)) {
		warn(w, "_kernel.threads at 0x%08x not in the dump", kernel + l.threads);
		return 0;
	}
	while (tcb) {
		for (i = 0; i < n; i++)
			if (seen[i] == tcb) {
				warn(w, "thread list is cyclic at 0x%08x", tcb);
				return 0;
			}
		if (n > CW_MAX_THREADS) {
			warn(w, "thread list longer than %d: stopped at 0x%08x", CW_MAX_THREADS, tcb);
			return 0;
		}
		seen[n++] = tcb;
		th = add_thread(w, tcb, "_kernel.threads");
		if (th) {
			th->current = tcb == cur;
			if (!cw_mem_read(w->t->mem, tcb + l.state, &b, 1))
				th->state = zep_state(b);
			if (!cw_mem_read(w->t->mem, tcb + l.prio, &b, 1))
				th->priority = (int8_t)b;
			if (l.have_name)
				read_name(w, tcb + l.name, l.name_len, th->name, sizeof(th->name));
			if (l.have_stack && !rd32(w, tcb + l.stack_start, &th->stack_lo) &&
			    !rd32(w, tcb + l.stack_size, &v) && v && v < 0x10000000u) {
				th->have_stack = 1;
				th->stack_size = v;
				th->stack_hi = th->stack_lo + v;
			}
			zep_context(w, th, &l);
		}
		if (rd32(w, tcb + l.next, &tcb)) {
			warn(w, "thread 0x%08x: next_thread not in the dump", seen[n - 1]);
			return 0;
		}
	}
	return 0;
}

/* ---- per thread: stack use, the backtrace ---- */

/* Fill bytes left untouched at the low end of a descending stack. */
static void stack_use(struct rtos_walk *w, struct cw_thread *th)
{
	uint32_t limit = th->stack_size ? th->stack_size : MAX_STACK_SCAN, n = 0, i;
	uint8_t buf[256];

	if (!th->have_stack || limit > MAX_STACK_SCAN)
		return;
	while (n < limit) {
		uint32_t chunk = limit - n < sizeof(buf) ? limit - n : sizeof(buf);

		if (cw_mem_read(w->t->mem, th->stack_lo + n, buf, chunk))
			break;
		for (i = 0; i < chunk && buf[i] == w->fill; i++)
			;
		n += i;
		if (i < chunk) {
			th->have_use = 1;
			break;
		}
	}
	th->stack_untouched = n;
	if (th->have_use && n < WATERMARK_MIN)
		th->overflow |= CW_OVF_WATERMARK;
}

static void unwind_thread(struct rtos_walk *w, struct cw_thread *th);

/* The fault frame ran in Handler mode: its EXC_RETURN says so, or the IPSR of its xPSR. */
static int crash_in_handler(const struct rtos_walk *w, const struct cw_frame *f)
{
	const struct cw_regs *dr = &w->dump->regs;

	if (f->flags & CW_FRAME_EXCEPTION)
		return !cw_exc_return_to_thread_psp(f->exc_return);
	return w->dump->context == CW_CTX_PRE_EXCEPTION && cw_reg_ok(dr, CW_XPSR) &&
	       (dr->r[CW_XPSR] & CW_XPSR_IPSR);
}

/*
 * The running thread's frames are the crash backtrace's: from the exception
 * that interrupted Thread mode on the process stack if there is one (the
 * fault, or the context switch that was running), else from the fault frame.
 * When the crash backtrace does not get back to Thread mode but the context
 * switch had saved the thread (a fault in the switch itself, such as a stack
 * overflow hook), the saved context is the thread's state: it is used when
 * its frame is where the dump's PSP points, or when the dump has no PSP.
 */
static void current_frames(struct rtos_walk *w, struct cw_thread *th)
{
	const struct cw_backtrace *bt = w->bt;
	unsigned int i, from = cw_fault_frame(w->dump->context, bt), found = 0;
	const struct cw_regs *dr = &w->dump->regs;

	for (i = 0; i < bt->nr; i++)
		if ((bt->frames[i].flags & CW_FRAME_EXCEPTION) &&
		    cw_exc_return_to_thread_psp(bt->frames[i].exc_return)) {
			from = i;
			found = 1;
		}
	if (!found && th->have_regs && bt->nr && crash_in_handler(w, &bt->frames[from]) &&
	    (!cw_reg_ok(dr, CW_PSP) || dr->r[CW_PSP] == th->regs.r[CW_PSP])) {
		if (!cw_reg_ok(dr, CW_PSP))
			thread_problem(th, "frames from its saved context: the dump has no PSP to "
				       "check it is current");
		unwind_thread(w, th);
		return;
	}
	th->bt.nr = 0;
	for (i = from; i < bt->nr; i++)
		th->bt.frames[th->bt.nr++] = bt->frames[i];
	th->bt.stop = bt->stop;
	memcpy(th->bt.stop_detail, bt->stop_detail, sizeof(th->bt.stop_detail));
	/* What the switch saved last time is stale: the crash has the live registers. */
	th->layout = "crash";
	th->have_psplim = 0;
	th->exc_return = 0;
	th->regs = (struct cw_regs){ 0 };
	th->have_regs = from < bt->nr;
	if (th->have_regs) {
		cw_reg_set(&th->regs, CW_PC, bt->frames[from].pc);
		cw_reg_set(&th->regs, CW_SP, bt->frames[from].sp);
		th->exc_return = bt->frames[from].exc_return;
	}
	th->problem[0] = 0;
}

static void unwind_thread(struct rtos_walk *w, struct cw_thread *th)
{
	unsigned int i;

	cw_unwind(w->t, &th->regs, CW_CTX_PRE_EXCEPTION, w->how, &th->bt);
	/* Past its stack's top the walk reads another thread's stack or the task start. */
	for (i = 1; th->stack_size && i < th->bt.nr; i++)
		if (th->bt.frames[i].sp > th->stack_hi) {
			th->bt.nr = i;
			th->bt.stop = CW_STOP_OUTERMOST;
			snprintf(th->bt.stop_detail, sizeof(th->bt.stop_detail),
				 "sp 0x%08x above the thread's stack", th->bt.frames[i].sp);
			break;
		}
}

static void finish_thread(struct rtos_walk *w, struct cw_thread *th)
{
	uint32_t sp;

	if (th->current) {
		th->state = CW_TS_RUNNING;
		current_frames(w, th);
		if (w->fault && (w->fault->cfsr & CFSR_STKOF))
			th->overflow |= CW_OVF_PSPLIM;
	} else if (th->have_regs) {
		unwind_thread(w, th);
	}
	cw_symbolize(w->t->img, &th->bt);
	stack_use(w, th);
	if (!th->have_regs || !th->have_stack)
		return;
	sp = th->regs.r[CW_SP];
	if (sp < th->stack_lo || (th->stack_size && sp > th->stack_hi))
		th->overflow |= CW_OVF_SP_OUTSIDE;
	if (th->have_psplim && sp < th->psplim)
		th->overflow |= CW_OVF_PSPLIM;
}

/* ---- entry points ---- */

int cw_rtos_parse(const char *s, enum cw_rtos_kind *out)
{
	static const struct { const char *name; enum cw_rtos_kind kind; } tab[] = {
		{ "auto", CW_RTOS_AUTO }, { "none", CW_RTOS_NONE },
		{ "freertos", CW_RTOS_FREERTOS }, { "zephyr", CW_RTOS_ZEPHYR },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tab); i++)
		if (!strcmp(s, tab[i].name)) {
			*out = tab[i].kind;
			return 0;
		}
	return -1;
}

const char *cw_rtos_name(enum cw_rtos_kind kind)
{
	static const char *const names[] = {
		[CW_RTOS_AUTO] = "auto", [CW_RTOS_NONE] = "none",
		[CW_RTOS_FREERTOS] = "freertos", [CW_RTOS_ZEPHYR] = "zephyr",
	};

	return kind < ARRAY_SIZE(names) ? names[kind] : "unknown";
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

/*
 * Fill out with the threads of the kernel kind names (or the one the symbols
 * show, for CW_RTOS_AUTO). Returns 0 with out->kind CW_RTOS_NONE when there
 * is no kernel to read, -1 when out of memory or the named kernel is absent.
 */
int cw_rtos_threads(const struct cw_target *t, const struct cw_dump *dump,
		    const struct cw_backtrace *bt, const struct cw_fault *f, enum cw_rtos_kind kind,
		    enum cw_unwinder how, struct cw_rtos *out)
{
	struct rtos_walk w = { .t = t, .dump = dump, .bt = bt, .fault = f, .how = how, .out = out };
	uint32_t addr;
	unsigned int i;
	int rc;

	memset(out, 0, sizeof(*out));
	out->kind = CW_RTOS_NONE;
	if (kind == CW_RTOS_NONE)
		return 0;
	if (kind == CW_RTOS_AUTO) {
		if (!cw_image_lookup(t->img, "pxCurrentTCB", &addr))
			kind = CW_RTOS_FREERTOS;
		else if (!cw_image_lookup(t->img, "_kernel", &addr))
			kind = CW_RTOS_ZEPHYR;
		else
			return 0;
	}
	out->threads = calloc(CW_MAX_THREADS, sizeof(*out->threads));
	if (!out->threads)
		return -1;
	out->kind = kind;
	w.fill = kind == CW_RTOS_FREERTOS ? FREERTOS_FILL : ZEPHYR_FILL;
	rc = kind == CW_RTOS_FREERTOS ? frt_find(&w) : zep_find(&w);
	if (rc) {
		cw_rtos_free(out);
		return -1;
	}
	for (i = 0; i < out->nr; i++)
		finish_thread(&w, &out->threads[i]);
	return 0;
}

void cw_rtos_free(struct cw_rtos *r)
{
	free(r->threads);
	r->threads = NULL;
	r->nr = 0;
}
