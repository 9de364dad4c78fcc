/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cw_rtos_model.h - the RTOS model's internals, shared by the thread model
 * (rtos/cw_rtos_model.c), the kernels (rtos/cw_freertos.c, rtos/cw_zephyr.c, ...) and
 * the entry point that picks one (rtos/cw_rtos.c); other stages see cw_rtos.h.
 */
#ifndef CW_RTOS_MODEL_H
#define CW_RTOS_MODEL_H

#include "dump/cw_dump.h"
#include "image/cw_image.h"
#include "rtos/cw_rtos.h"

#define CW_RTOS_MAX_LIST_ITEMS	256	/* more items than any list of a sane kernel holds */

/* One walk over a dump's kernel objects. */
struct cw_rtos_walk {
	const struct cw_target *t;
	const struct cw_dump *dump;
	const struct cw_backtrace *bt;
	const struct cw_fault *fault;
	enum cw_unwinder how;
	struct cw_rtos *out;
	uint8_t fill;
	uint32_t fill_word;	/* a word pattern instead of the byte (NuttX), or 0 */
	uint32_t stack_guard;	/* bytes at each stack's low end that hold no fill */
	int whole_words;	/* the fill is counted in whole words, as the kernel counts it */
	struct cw_bounds ends;	/* the kernel's task_exit and thread_entry */
};

/*
 * A kernel: the symbol that shows it is there, its stack fill byte, how to
 * find its threads. Its kind and name are its line in CW_RTOS_KERNELS.
 */
struct cw_rtos_ops {
	const char *detect;
	uint8_t fill;
	uint32_t fill_word;	/* a kernel that paints words (NuttX): the word, fill unused */
	uint32_t stack_guard;	/* bytes of a magic word below the fill (LiteOS), or 0 */
	int whole_words;	/* the kernel counts fill words, not bytes (µC/OS's zeroes) */
	int (*find)(struct cw_rtos_walk *w);	/* -1: its objects are not in the firmware */
	/* What ends a thread's chain (struct cw_bounds): symbols, or NULL. */
	const char *task_exit, *thread_entry;
	/*
	 * The return address the kernel gives a new task as the firmware's code
	 * builds it (a configured one under any name), or NULL; task_exit by
	 * name when it fails. Returns the function that builds it, NULL if none.
	 */
	const char *(*find_task_exit)(const struct cw_image *img, uint32_t *addr);
	/*
	 * The interrupt stack the kernel allocates itself ([lo, hi) symbols; hi
	 * NULL: the lo symbol's object), or NULL: with the running thread's,
	 * where a fault's frame can be.
	 */
	const char *isr_stack_lo, *isr_stack_hi;
	/*
	 * The functions in which the kernel's ports start the first task with
	 * an svc whose handler never returns (NULL-terminated), or NULL.
	 */
	const char *const *start_svc;
	/* After the unwind: a state only the thread's frames tell apart, or NULL. */
	void (*settle)(struct cw_rtos_walk *w, struct cw_thread *th);
};

#define CW_RTOS_OPS_(NAME, name)	extern const struct cw_rtos_ops cw_##name##_ops;
CW_RTOS_KERNELS(CW_RTOS_OPS_)
#undef CW_RTOS_OPS_

/* One field: its offset from DWARF, else the default. */
struct cw_rtos_field {
	const char *type, *path;
	uint32_t *off, def;
	uint32_t *size, def_size;
	int optional;		/* a config option may leave it out: absent is not a miss */
	int *present;
};

int cw_rtos_read_fields(const struct cw_image *img, const struct cw_rtos_field *f,
			unsigned int n);
void cw_rtos_warn(struct cw_rtos_walk *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void cw_thread_problem(struct cw_thread *th, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int cw_rtos_rd32(const struct cw_rtos_walk *w, uint32_t addr, uint32_t *v);
int cw_rtos_thread_return(const struct cw_rtos_walk *w, uint32_t exc_return);
void cw_rtos_read_name(const struct cw_rtos_walk *w, uint32_t addr, uint32_t len, char *out,
		       size_t outlen);
struct cw_thread *cw_rtos_add_thread(struct cw_rtos_walk *w, uint32_t tcb, const char *where);
int cw_rtos_read_callee(struct cw_rtos_walk *w, struct cw_thread *th, uint32_t at);
int cw_rtos_pop_frame(struct cw_rtos_walk *w, struct cw_thread *th, uint32_t base,
		      uint32_t exc_return);
int cw_rtos_read_context(struct cw_rtos_walk *w, struct cw_thread *th, uint32_t callee,
			 uint32_t frame, uint32_t exc_return);
/* Read th's context saved at addr under one of two layouts; 0 when it fits. */
typedef int (*cw_rtos_try_context)(struct cw_rtos_walk *w, struct cw_thread *th, uint32_t addr,
				   int layout);
void cw_rtos_contexts_by_majority(struct cw_rtos_walk *w, const uint32_t *at,
				  cw_rtos_try_context try_context, int prefer, const char *where);
void cw_rtos_finish_thread(struct cw_rtos_walk *w, struct cw_thread *th);
void cw_rtos_check_painted(struct cw_rtos_walk *w);

#endif /* CW_RTOS_MODEL_H */
