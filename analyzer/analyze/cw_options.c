// SPDX-License-Identifier: GPL-2.0
/*
 * cw_options.c - every option string crashwalk takes, parsed here and only
 * here: --method, --rtos, --sp, --path-map and the --regs register block, so a
 * string has one rule whether the command line or the pipeline reads it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image/cw_image.h"
#include "analyze/cw_options.h"

/* --method NAME */
int cw_unwinder_parse(const char *s, enum cw_unwinder *out)
{
	static const struct { const char *name; enum cw_unwinder how; } tab[] = {
		{ "auto", CW_UNWIND_AUTO }, { "prologue", CW_UNWIND_PROLOGUE },
		{ "fp", CW_UNWIND_FP }, { "scan", CW_UNWIND_SCAN }, { "ehabi", CW_UNWIND_EHABI },
		{ "cfi", CW_UNWIND_CFI },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tab); i++)
		if (!strcmp(s, tab[i].name)) {
			*out = tab[i].how;
			return 0;
		}
	return -1;
}

/*
 * --sp REG=VALUE[,REG=VALUE...]: stack pointers the dump lacks, given by
 * hand (msp, psp and the v8-M banked msp_s, psp_s, msp_ns, psp_ns).
 */
int cw_sp_parse(const char *spec, struct cw_regs *regs, struct cw_error *err)
{
	static const enum cw_reg allowed[] = {
		CW_MSP, CW_PSP, CW_MSP_S, CW_PSP_S, CW_MSP_NS, CW_PSP_NS,
	};
	const char *p = spec;

	while (*p) {
		size_t len = strcspn(p, ","), name = strcspn(p, "=");
		unsigned long long v;
		unsigned int i;
		char *end;

		if (name >= len)
			return cw_fail(err, "--sp", (long)(p - spec), "'%.*s': expected REG=VALUE, "
				       "e.g. psp=0x20001e60", (int)len, p);
		for (i = 0; i < ARRAY_SIZE(allowed); i++)
			if ((int)allowed[i] == cw_reg_by_name(p, name))
				break;
		if (i == ARRAY_SIZE(allowed))
			return cw_fail(err, "--sp", (long)(p - spec), "unknown stack pointer '%.*s'; "
				       "use msp, psp, msp_s, psp_s, msp_ns or psp_ns", (int)name, p);
		v = strtoull(p + name + 1, &end, 0);
		if (end == p + name + 1 || end != p + len || v > 0xFFFFFFFFull || (v & 3))
			return cw_fail(err, "--sp", (long)(p + name + 1 - spec),
				       "'%.*s': not a word-aligned 32-bit address", (int)(len - name - 1),
				       p + name + 1);
		cw_reg_set(regs, allowed[i], (uint32_t)v);
		p += len + (p[len] == ',');
	}
	return 0;
}

/* --path-map OLD=NEW: OLD a directory, never empty. */
int cw_path_map_valid(const char *arg)
{
	const char *eq = strchr(arg, '=');

	return eq && eq != arg ? 0 : -1;
}

#define REGBLOCK_EXAMPLE	"crash_regs:r0,r1,r2,r3,r12,lr,pc,xpsr"

/* "--regs 'SPEC': ...": the error names the option and the string as given. */
static int __attribute__((format(printf, 3, 4)))
regblock_fail(struct cw_error *err, const char *spec, const char *fmt, ...)
{
	char what[sizeof(err->msg)];
	va_list ap;

	snprintf(what, sizeof(what), "--regs '%s'", spec);
	va_start(ap, fmt);
	cw_failv(err, what, -1, fmt, ap);
	va_end(ap);
	return -1;
}

/*
 * --regs SYMBOL:LAYOUT, the one rule: SYMBOL not empty, LAYOUT one or more
 * words separated by commas, each a register name (cw_reg_name()) or "-" for
 * a word to skip. An empty layout or word is refused rather than read as
 * nothing: a register block that sets no register cannot start a walk, and a
 * stray comma more likely hides a word the user meant than none.
 */
int cw_regblock_parse(const char *spec, struct cw_regblock *out, struct cw_error *err)
{
	const char *colon = strchr(spec, ':'), *p;

	if (!colon || colon == spec || (size_t)(colon - spec) >= sizeof(out->symbol))
		return regblock_fail(err, spec, "expected SYMBOL:LAYOUT, e.g. " REGBLOCK_EXAMPLE);
	memcpy(out->symbol, spec, colon - spec);
	out->symbol[colon - spec] = '\0';
	out->nr = 0;
	if (!colon[1])
		return regblock_fail(err, spec, "empty LAYOUT: name the register block's "
				     "32-bit words in order, e.g. " REGBLOCK_EXAMPLE);
	for (p = colon + 1;; p++) {
		size_t len = strcspn(p, ",");
		int r = len == 1 && *p == '-' ? CW_REGBLOCK_SKIP : cw_reg_by_name(p, len);

		if (out->nr == CW_REGBLOCK_MAX_WORDS)
			return regblock_fail(err, spec, "more than %d words", CW_REGBLOCK_MAX_WORDS);
		if (!len)
			return regblock_fail(err, spec, "word %u is empty", out->nr + 1);
		if (r < 0)
			return regblock_fail(err, spec, "word %u: unknown register '%.*s'; use "
					     "r0-r12, sp, lr, pc, xpsr, msp, psp, control, msp_s, "
					     "psp_s, msp_ns, psp_ns, or - to skip a word",
					     out->nr + 1, (int)len, p);
		out->word[out->nr++] = (uint8_t)r;
		p += len;
		if (!*p)
			return 0;
	}
}

/* The register block's address in the firmware: 0, or -1 with err naming the symbol. */
int cw_regblock_find(const struct cw_image *img, const struct cw_regblock *blk,
		     const char *spec, uint32_t *addr, struct cw_error *err)
{
	if (!cw_image_lookup(img, blk->symbol, addr))
		return 0;
	return regblock_fail(err, spec, "no symbol '%s' in %s", blk->symbol, cw_image_path(img));
}

/* --regs is checked when given, whether a dump needs it or not. */
int cw_image_check_regblock(const struct cw_image *img, const char *spec, struct cw_error *err)
{
	struct cw_regblock blk;
	uint32_t addr;

	if (cw_regblock_parse(spec, &blk, err))
		return -1;
	return cw_regblock_find(img, &blk, spec, &addr, err);
}
