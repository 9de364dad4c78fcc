// SPDX-License-Identifier: GPL-2.0
/*
 * cw_crashcatcher.c - CrashCatcher's binary dumps: registers, optional FP
 * registers, memory regions; on a serial link its hex dump of the same bytes.
 */
#include "dump/cw_dump_reader.h"

#define CC_REGS_WORDS		20	/* r0-r12 sp lr pc xpsr msp psp exceptionPSR */
#define CC_FLAG_FP		0x1
#define CC_TRAILER		0xACCE55EDu	/* written when CrashCatcher's own stack overflowed */

static const enum cw_reg cc_stack_pointers[] = { CW_SP, CW_MSP, CW_PSP };

static int parse_crashcatcher(struct cw_dump *d, struct cw_error *err)
{
	size_t off = 8;
	uint32_t flags;
	unsigned int i;

	if (d->len < 8 + 4 * CC_REGS_WORDS)
		return cw_fail(err, d->path, (long)d->len, "CrashCatcher registers truncated");
	flags = le32(d->buf + 4);
	for (i = 0; i < 17; i++)
		cw_reg_set(&d->regs, (enum cw_reg)i, le32(d->buf + off + 4 * i));
	cw_reg_set(&d->regs, CW_MSP, le32(d->buf + off + 68));
	cw_reg_set(&d->regs, CW_PSP, le32(d->buf + off + 72));
	/* A zero stack pointer is one the writer did not know (a lost PSP, and the sp from it). */
	for (i = 0; i < ARRAY_SIZE(cc_stack_pointers); i++)
		if (!d->regs.r[cc_stack_pointers[i]])
			d->regs.valid &= ~(1u << cc_stack_pointers[i]);
	off += 4 * CC_REGS_WORDS;
	if (flags & CC_FLAG_FP) {
		if (!fits(d->len, off, 33 * 4))
			return cw_fail(err, d->path, (long)off, "FP registers truncated");
		d->has_fp = 1;
		off += 33 * 4;
	}
	while (off < d->len) {
		if (d->len - off == 4 && le32(d->buf + off) == CC_TRAILER) {
			d->warning = "the dump writer's stack overflowed (0xACCE55ED): "
				     "memory may be corrupt";
			break;
		}
		if (cw_dump_add_range(d, &off, 0, "region", err))
			return -1;
	}
	d->context = CW_CTX_PRE_EXCEPTION;
	return 0;
}

static int crashcatcher_detect(const uint8_t *b, size_t len)
{
	return len >= 4 && b[0] == 'c' && b[1] == 'C' && b[2] == 3 && b[3] == 0;
}

const struct cw_dump_reader cw_crashcatcher_reader = {
	.detect = crashcatcher_detect, .parse = parse_crashcatcher,
	.log = { .begin = "CRASH ENCOUNTERED", .end = "End of dump", .skip = "press any key" },
};
