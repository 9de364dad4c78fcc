// SPDX-License-Identifier: GPL-2.0
/*
 * cw_base.c - what every stage shares: errors that name the file and the
 * byte offset, and the registers' names.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../../lib/user/fw_hex.h"
#include "base/cw_base.h"

int cw_failv(struct cw_error *err, const char *file, long offset, const char *fmt, va_list ap)
{
	int n = 0;

	if (!err)
		return -1;
	if (offset >= 0)
		n = snprintf(err->msg, sizeof(err->msg), "%s: offset %ld (0x%lx): ", file, offset,
			     offset);
	else
		n = snprintf(err->msg, sizeof(err->msg), "%s: ", file);
	if (n < 0 || (size_t)n >= sizeof(err->msg))
		return -1;
	vsnprintf(err->msg + n, sizeof(err->msg) - n, fmt, ap);
	return -1;
}

int cw_fail(struct cw_error *err, const char *file, long offset, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cw_failv(err, file, offset, fmt, ap);
	va_end(ap);
	return -1;
}

void cw_add_linev(char *lines, size_t width, size_t max, unsigned int *nr, const char *fmt,
		  va_list ap)
{
	if (*nr >= max)
		return;
	vsnprintf(lines + (size_t)(*nr)++ * width, width, fmt, ap);
}

/* The names JSON reports and --regs accepts. */
const char *cw_reg_name(enum cw_reg r)
{
	static const char *const names[CW_NR_REGS] = {
		"r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12",
		"sp", "lr", "pc", "xpsr", "msp", "psp", "control",
		"msp_s", "psp_s", "msp_ns", "psp_ns",
	};

	return r < CW_NR_REGS ? names[r] : "?";
}

/* The register called name[0..len), or -1. */
int cw_reg_by_name(const char *name, size_t len)
{
	int i;

	for (i = 0; i < CW_NR_REGS; i++)
		if (strlen(cw_reg_name((enum cw_reg)i)) == len &&
		    !strncmp(cw_reg_name((enum cw_reg)i), name, len))
			return i;
	return -1;
}

/* The library's name for lib/user/'s hex, which framewalk's recordings use too. */
void cw_build_id_hex(const uint8_t *id, uint32_t len, char *buf, size_t size)
{
	fw_hex(id, len, buf, size);
}
