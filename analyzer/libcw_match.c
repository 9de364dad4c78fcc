// SPDX-License-Identifier: GPL-2.0
/*
 * libcw_match.c - is this dump from this firmware? The dump's copy of the
 * firmware's read-only sections, its GNU build-id, and whether the code its
 * registers and stack point at could have done what they say.
 *
 * A wrong ELF gives a report that looks as sure as a right one, so every
 * check here is one a dump of the right firmware always passes: bytes the
 * firmware cannot change, an id the linker wrote, a fault cause the
 * instruction at the stacked pc can raise, return addresses that follow a
 * call. What differs is named with its address, so a user can tell a wrong
 * build from a corrupt dump.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cw_internal.h"

/* CFSR causes whose stacked pc is the instruction that faulted, and what it must be. */
#define CFSR_DACCVIOL	(1u << 1)
#define CFSR_PRECISERR	(1u << 9)
#define CFSR_UNDEFINSTR	(1u << 16)
#define CFSR_NOCP	(1u << 19)
#define CFSR_UNALIGNED	(1u << 24)
#define CFSR_DIVBYZERO	(1u << 25)
#define CFSR_DATA_ACCESS	(CFSR_DACCVIOL | CFSR_PRECISERR | CFSR_UNALIGNED)
/* IACCVIOL, IBUSERR, INVSTATE: the pc itself may be wild. */
#define CFSR_FETCH	((1u << 0) | (1u << 8) | (1u << 17))
/* Causes raised by the fetch or the return, not by the instruction at the stacked pc. */
#define CFSR_NOT_AT_PC	((1u << 0) | (1u << 8) | (1u << 10) | (1u << 17) | (1u << 18) | \
			 CW_CFSR_STACKING | (1u << 3) | (1u << 11) | (1u << 5) | (1u << 13))

static void mismatch(struct cw_match *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void mismatch(struct cw_match *m, const char *fmt, ...)
{
	va_list ap;

	if (m->nr >= ARRAY_SIZE(m->lines))
		return;
	va_start(ap, fmt);
	vsnprintf(m->lines[m->nr++], sizeof(m->lines[0]), fmt, ap);
	va_end(ap);
}

/* The dump's bytes of each read-only section it holds against the firmware's. */
static void match_sections(const struct cw_target *t, const struct cw_dump *d,
			   struct cw_match *m)
{
	const struct cw_image_section *s;
	unsigned int i, r;

	for (i = 0; (s = cw_image_rosec(t->img, i)); i++) {
		for (r = 0; r < d->mem.nr; r++) {
			const struct cw_region *dr = &d->mem.regions[r];
			uint32_t lo = dr->addr > s->addr ? dr->addr : s->addr, hi, a, ndiff = 0, first = 0;
			uint64_t dend = (uint64_t)dr->addr + dr->size, send = (uint64_t)s->addr + s->size;

			hi = (uint32_t)(dend < send ? dend : send);
			if (strcmp(dr->origin, "dump") || (uint64_t)lo >= (dend < send ? dend : send))
				continue;
			for (a = lo; a < hi; a++)
				if (dr->data[a - dr->addr] != s->data[a - s->addr] && !ndiff++)
					first = a;
			if (ndiff)
				mismatch(m, "%s: %u of the %u bytes at 0x%08x-0x%08x differ from the "
					 "firmware's, the first at 0x%08x (dump 0x%02x, firmware 0x%02x)",
					 s->name, ndiff, hi - lo, lo, hi, first,
					 dr->data[first - dr->addr], s->data[first - s->addr]);
		}
	}
}

static void hex(char *out, size_t len, const uint8_t *b, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n && 2 * i + 2 < len; i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
}

static void match_build_id(const struct cw_target *t, const struct cw_dump *d, struct cw_match *m)
{
	char want[2 * CW_MAX_BUILD_ID + 1] = "", got[2 * CW_MAX_BUILD_ID + 1] = "";
	const uint8_t *id;
	uint32_t len = cw_image_build_id(t->img, &id);

	if (!d->build_id_len)
		return;
	if (len == d->build_id_len && !memcmp(id, d->build_id, len))
		return;
	hex(want, sizeof(want), id, len < CW_MAX_BUILD_ID ? len : CW_MAX_BUILD_ID);
	hex(got, sizeof(got), d->build_id, d->build_id_len);
	if (!len)
		mismatch(m, "build-id: the dump names build-id %s, the firmware has none", got);
	else
		mismatch(m, "build-id: the dump names %s, the firmware is %s", got, want);
}

static int mnemonic_is(const char *insn, const char *const *prefixes)
{
	for (; *prefixes; prefixes++)
		if (!strncmp(insn, *prefixes, strlen(*prefixes)))
			return 1;
	return 0;
}

/*
 * Could the instruction at the stacked pc have raised the fault CFSR names?
 * Each cause is checked alone: a data access fault needs a load or store, a
 * divide by zero a divide, an undefined instruction one that does not decode
 * to a core instruction, a coprocessor fault an FPU or coprocessor one.
 */
static const char *cause_mismatch(uint32_t cfsr, const char *insn)
{
	static const char *const access[] = { "ld", "st", "push", "pop", "tb", "vld", "vst",
					      "vpush", "vpop", "vldm", "vstm", "lda", "stl", NULL };
	static const char *const divide[] = { "sdiv", "udiv", NULL };
	static const char *const coproc[] = { "v", "cdp", "mcr", "mrc", "ldc", "stc", NULL };

	if (cfsr & CFSR_NOT_AT_PC)
		return NULL;
	if ((cfsr & CFSR_DATA_ACCESS) && !mnemonic_is(insn, access))
		return cfsr & CFSR_PRECISERR ? "PRECISERR" : cfsr & CFSR_DACCVIOL ? "DACCVIOL" :
		       "UNALIGNED";
	if ((cfsr & CFSR_DIVBYZERO) && !mnemonic_is(insn, divide))
		return "DIVBYZERO";
	if ((cfsr & CFSR_NOCP) && !mnemonic_is(insn, coproc))
		return "NOCP";
	if ((cfsr & CFSR_UNDEFINSTR) && !mnemonic_is(insn, (const char *const[]){ "udf", NULL }) &&
	    !mnemonic_is(insn, coproc))
		return "UNDEFINSTR";
	return NULL;
}

/*
 * The frames' pcs: the fault frame's in code and able to raise the fault,
 * every return address an unwinder took from a table or a frame record right
 * after a call (the scan only takes such addresses, so it is not asked).
 */
static void match_pcs(const struct cw_target *t, const struct cw_dump *d,
		      const struct cw_backtrace *bt, const struct cw_fault *f, struct cw_match *m)
{
	unsigned int ff = cw_fault_frame(d->context, bt), i, end;
	const char *cause;
	uint32_t target;

	if (ff >= bt->nr)
		return;
	/* At handler entry the dump's pc is the handler's first instruction: firmware code. */
	if (d->context == CW_CTX_HANDLER_ENTRY && !cw_image_is_code(t->img, bt->frames[0].pc))
		mismatch(m, "frame #0: the dump's pc 0x%08x, at the exception handler's entry, is "
			 "not in the firmware's code", bt->frames[0].pc);
	/*
	 * Past a frame outside the code the chain is the unwinders' guess over
	 * whatever the stack holds (an overflow, the words above a task's first
	 * frame), not something the dump asserts: only the frames below count.
	 */
	for (end = ff + 1; end < bt->nr && cw_image_is_code(t->img, bt->frames[end].pc); end++)
		;
	if (!cw_image_is_code(t->img, bt->frames[ff].pc)) {
		if (f->have_scb && !(f->cfsr & CFSR_NOT_AT_PC) && (f->cfsr & ~CFSR_NOT_AT_PC))
			mismatch(m, "frame #%u: the stacked pc 0x%08x is not in the firmware's code, "
				 "yet the fault (CFSR 0x%08x) was raised by an instruction there", ff,
				 bt->frames[ff].pc, f->cfsr);
	} else if (f->have_scb && f->insn[0] && (cause = cause_mismatch(f->cfsr, f->insn))) {
		mismatch(m, "frame #%u: the firmware's instruction at the stacked pc 0x%08x (%s) "
			 "cannot raise %s", ff, bt->frames[ff].pc, f->insn, cause);
	}
	for (i = 0; i < end; i++) {
		const struct cw_frame *fr = &bt->frames[i];

		if ((fr->flags & (CW_FRAME_FNC_RETURN | CW_FRAME_LOST)) ||
		    (i == ff && f->have_scb && (f->cfsr & CFSR_FETCH)))
			continue;
		if (!cw_image_insn_start(t->img, fr->pc))
			mismatch(m, "frame #%u: pc 0x%08x is inside one of the firmware's "
				 "instructions, not at its start", i, fr->pc);
		/* A BL or BLX wrote an odd lr that points into code: the next instruction. */
		if ((fr->flags & CW_FRAME_EXCEPTION) && fr->method == CW_M_EXCEPTION &&
		    (fr->stacked_lr & 1) && !cw_is_exc_return(fr->stacked_lr) &&
		    !cw_image_insn_start(t->img, fr->stacked_lr & ~1u))
			mismatch(m, "frame #%u: the stacked lr 0x%08x is inside one of the "
				 "firmware's instructions, not at its start", i, fr->stacked_lr);
	}
	for (i = 1; i < end; i++) {
		const struct cw_frame *fr = &bt->frames[i];

		if (!(fr->flags & CW_FRAME_RETURN_ADDR) || fr->method == CW_M_SCAN ||
		    (fr->flags & (CW_FRAME_FNC_RETURN | CW_FRAME_LOST)))
			continue;
		if (cw_image_is_code(t->img, fr->pc) &&
		    cw_thumb_call_before(t->mem, fr->pc, &target) == CW_CALL_NONE)
			mismatch(m, "frame #%u: the return address 0x%08x (%s) does not follow a "
				 "call in the firmware", i, fr->pc, cw_method_name(fr->method));
	}
}

/* Fill m with every way the dump contradicts the firmware; returns how many. */
unsigned int cw_match(const struct cw_target *t, const struct cw_dump *dump,
		      const struct cw_backtrace *bt, const struct cw_fault *f, struct cw_match *m)
{
	memset(m, 0, sizeof(*m));
	match_build_id(t, dump, m);
	match_sections(t, dump, m);
	match_pcs(t, dump, bt, f, m);
	return m->nr;
}
