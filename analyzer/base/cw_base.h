/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cw_base.h - what every stage shares beyond crashwalk.h: errors naming the
 * file and offset, the registers by name, and whose registers a dump holds.
 */
#ifndef CW_BASE_H
#define CW_BASE_H

#include <stdarg.h>

#include "crashwalk.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

/* Fill err ("FILE: offset N (0xN): ...", or "FILE: ..." when offset < 0); returns -1. */
int cw_fail(struct cw_error *err, const char *file, long offset, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int cw_failv(struct cw_error *err, const char *file, long offset, const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0)));

/*
 * Append a line to lines, a char [max][width] with *nr of them in use; a full
 * list drops it. Reports keep such lists in fixed arrays, nothing to free.
 */
void cw_add_linev(char *lines, size_t width, size_t max, unsigned int *nr, const char *fmt,
		  va_list ap) __attribute__((format(printf, 5, 0)));

/*
 * A count's agreement in messages: cw_plural() ends its noun ("1 difference",
 * "2 differences"), cw_verb_s() the verb whose subject it is ("1 word points",
 * "2 words point"). A report reads as prose; "1 more differences" does not.
 */
static inline const char *cw_plural(unsigned long n)
{
	return n == 1 ? "" : "s";
}

static inline const char *cw_verb_s(unsigned long n)
{
	return n == 1 ? "s" : "";
}

const char *cw_reg_name(enum cw_reg r);
int cw_reg_by_name(const char *name, size_t len);

static inline int cw_reg_ok(const struct cw_regs *regs, enum cw_reg n)
{
	return (regs->valid >> n) & 1;
}

static inline void cw_reg_set(struct cw_regs *regs, enum cw_reg n, uint32_t v)
{
	regs->r[n] = v;
	regs->valid |= 1u << n;
}

/*
 * Whether the registers are those at the fault handler's first instruction
 * (LR holds EXC_RETURN, the exception frame is still on the stack) or those
 * of the interrupted code (the dump writer already popped the frame).
 */
enum cw_reg_context {
	CW_CTX_HANDLER_ENTRY,
	CW_CTX_PRE_EXCEPTION,
	CW_CTX_MEMORY_ONLY,	/* no registers (remoteproc): cw_find_exception_frame() */
};

#endif /* CW_BASE_H */
