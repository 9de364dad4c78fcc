// SPDX-License-Identifier: GPL-2.0
/*
 * libcw_rtos.c - RTOS awareness: pick the kernel (FreeRTOS or Zephyr, each
 * behind struct cw_rtos_ops), let it find its threads, then finish each one
 * in the thread model (saved registers, unwind, stack use); no kernel patch
 * and no help from the firmware needed.
 *
 * The kernel objects are found by ELF symbol; struct layouts come from DWARF
 * (libdw) when the firmware has it, else from the defaults documented in
 * Documentation/crashwalk.rst. Everything read comes through cw_mem_read, and
 * every list walk is bounded and checked for cycles: a dump of a crashed
 * system may hold any garbage in these structures.
 */
#include <stdlib.h>
#include <string.h>

#include "cw_rtos.h"

/* In the order --rtos auto tries them. */
static const struct cw_rtos_ops *const kernels[] = { &cw_freertos_ops, &cw_zephyr_ops };

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
	struct cw_rtos_walk w = { .t = t, .dump = dump, .bt = bt, .fault = f, .how = how,
				  .out = out };
	const struct cw_rtos_ops *ops = NULL;
	uint32_t addr;
	unsigned int i;

	memset(out, 0, sizeof(*out));
	out->kind = CW_RTOS_NONE;
	for (i = 0; i < ARRAY_SIZE(kernels); i++)
		if (kernels[i]->kind == kind ||
		    (kind == CW_RTOS_AUTO && !cw_image_lookup(t->img, kernels[i]->detect, &addr))) {
			ops = kernels[i];
			break;
		}
	if (!ops)
		return kind == CW_RTOS_NONE || kind == CW_RTOS_AUTO ? 0 : -1;
	out->threads = calloc(CW_MAX_THREADS, sizeof(*out->threads));
	if (!out->threads)
		return -1;
	out->kind = ops->kind;
	w.fill = ops->fill;
	if (ops->find(&w)) {
		cw_rtos_free(out);
		return -1;
	}
	for (i = 0; i < out->nr; i++)
		cw_rtos_finish_thread(&w, &out->threads[i]);
	return 0;
}

void cw_rtos_free(struct cw_rtos *r)
{
	free(r->threads);
	r->threads = NULL;
	r->nr = 0;
}
