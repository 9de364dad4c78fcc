// SPDX-License-Identifier: GPL-2.0
/*
 * cw_match.c - is this dump from this firmware? The dump's copy of the
 * firmware's read-only sections, its GNU build-id, and whether the code its
 * registers and stack point at could have done what they say.
 *
 * A wrong ELF gives a report that looks as sure as a right one, so every
 * check here is one a dump of the right firmware always passes: bytes the
 * firmware cannot change, an id the linker wrote, a fault cause the
 * instruction at the stacked pc can raise, return addresses that follow a
 * call, an lr a call wrote. A dump of RAM alone also keeps .data's initial
 * image and the build's return addresses: those two checks are judgements
 * by a fraction, not certainties. What differs is named with its address,
 * so a user can tell a wrong build from a corrupt dump.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "dump/cw_dump.h"
#include "decode/cw_exc.h"
#include "image/cw_image.h"
#include "report/cw_match.h"
#include "decode/cw_thumb.h"

/* CFSR causes whose stacked pc is the instruction that faulted, and what it must be. */
#define CFSR_DATA_ACCESS	(CW_CFSR_DACCVIOL | CW_CFSR_PRECISERR | CW_CFSR_UNALIGNED)
/* The pc itself may be wild. */
#define CFSR_FETCH	(CW_CFSR_IACCVIOL | CW_CFSR_IBUSERR | CW_CFSR_INVSTATE)
/* Causes raised by the fetch or the return, not by the instruction at the stacked pc. */
#define CFSR_NOT_AT_PC	(CFSR_FETCH | CW_CFSR_IMPRECISERR | CW_CFSR_INVPC | CW_CFSR_STACKING | \
			 CW_CFSR_MUNSTKERR | CW_CFSR_UNSTKERR | CW_CFSR_MLSPERR | CW_CFSR_LSPERR)

static void mismatch(struct cw_match *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void mismatch(struct cw_match *m, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cw_add_linev(*m->lines, sizeof(m->lines[0]), ARRAY_SIZE(m->lines), &m->nr, fmt, ap);
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
				mismatch(m, "%s: %u of the %u byte%s at 0x%08x-0x%08x differ%s from "
					 "the firmware's, the first at 0x%08x (dump 0x%02x, firmware "
					 "0x%02x)", s->name, ndiff, hi - lo, cw_plural(hi - lo), lo, hi,
					 cw_verb_s(ndiff), first,
					 dr->data[first - dr->addr], s->data[first - s->addr]);
		}
	}
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
	cw_build_id_hex(id, len, want, sizeof(want));
	cw_build_id_hex(d->build_id, d->build_id_len, got, sizeof(got));
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
		return cfsr & CW_CFSR_PRECISERR ? "PRECISERR" : cfsr & CW_CFSR_DACCVIOL ? "DACCVIOL" :
		       "UNALIGNED";
	if ((cfsr & CW_CFSR_DIVBYZERO) && !mnemonic_is(insn, divide))
		return "DIVBYZERO";
	if ((cfsr & CW_CFSR_NOCP) && !mnemonic_is(insn, coproc))
		return "NOCP";
	if ((cfsr & CW_CFSR_UNDEFINSTR) && !mnemonic_is(insn, (const char *const[]){ "udf", NULL }) &&
	    !mnemonic_is(insn, coproc))
		return "UNDEFINSTR";
	return NULL;
}

/*
 * The lr of interrupted code (stacked by the exception, or the dump's own
 * when it recorded the registers before the exception): an odd address
 * into code was written by a BL or BLX (or popped after one), or is a
 * function's address a thread was started with to return to.
 */
static void match_lr(const struct cw_target *t, uint32_t lr, uint32_t pc, unsigned int i,
		     const char *whose, struct cw_match *m)
{
	const struct cw_symbol *fn;
	uint32_t target;

	if (!(lr & 1) || cw_is_exc_return(lr) || !cw_image_is_code(t->img, lr & ~1u))
		return;
	/* A low-overhead loop's count (v8.1-M) may be any odd number too. */
	if (cw_thumb_lr_free(t->mem, t->img, pc))
		return;
	if (t->bounds && t->bounds->task_exit && (lr & ~1u) == t->bounds->task_exit)
		return;
	fn = cw_image_func(t->img, lr & ~1u);
	if (fn && fn->addr == (lr & ~1u))
		return;
	if (cw_thumb_call_before(t->mem, lr, &target) == CW_CALL_NONE)
		mismatch(m, "frame #%u: the %s lr 0x%08x does not follow a call in the "
			 "firmware", i, whose, lr);
}

/*
 * Could v be a return address into this firmware: odd, inside a function
 * past its first instruction (a function's own address is a pointer), with
 * code before it? in_code() is the cheap part; an instruction must also
 * start there, which may decode up to 64 KiB of the function.
 */
static int in_code(const struct cw_target *t, uint32_t v)
{
	const struct cw_symbol *fn;

	if (!(v & 1) || !cw_image_is_code(t->img, v & ~1u) ||
	    !cw_image_is_code(t->img, (v & ~1u) - 2))
		return 0;
	fn = cw_image_func(t->img, v & ~1u);
	return fn && fn->addr != (v & ~1u);
}

static int looks_returned_to(const struct cw_target *t, uint32_t v)
{
	return in_code(t, v) && cw_image_insn_start(t->img, v & ~1u) == 1;
}

/*
 * A frame never stacked (an overflow): the walk took the first word above it
 * that follows a call. The words it passed are the lost function's saved
 * registers and locals; in the dumped build, none of them is a return
 * address. Odd words at an instruction inside a function, with code before
 * them but no call, are return addresses of another build.
 */
static void match_lost(const struct cw_target *t, const struct cw_backtrace *bt, unsigned int ff,
		       struct cw_match *m)
{
	const struct cw_frame *lost = &bt->frames[ff];
	uint32_t a, v, target, first = 0;
	unsigned int passed = 0;

	if (!(lost->flags & CW_FRAME_LOST) || ff + 1 >= bt->nr)
		return;
	for (a = lost->sp; a + 4 < bt->frames[ff + 1].sp; a += 4) {
		if (cw_mem_read32(t->mem, a, &v) || !looks_returned_to(t, v) ||
		    cw_thumb_call_before(t->mem, v, &target) != CW_CALL_NONE)
			continue;
		if (!passed++)
			first = a;
	}
	if (passed)
		mismatch(m, "frame #%u: %u word%s above the frame that was never stacked, the "
			 "first at 0x%08x, point%s into the firmware's code after no call", ff,
			 passed, cw_plural(passed), first, cw_verb_s(passed));
}

/*
 * The fault frame's own caller: the word its function's unwind rule reads
 * as the return address points into the firmware's flash, with the Thumb
 * bit, yet at no code.
 */
static void match_first_caller(const struct cw_target *t, const struct cw_backtrace *bt,
			       unsigned int ff, struct cw_match *m)
{
	const struct cw_image_section *s;
	uint32_t a = bt->stop_addr & ~1u;
	unsigned int i;

	if (bt->stop != CW_STOP_BAD_PC || bt->nr != ff + 1 || !(bt->stop_addr & 1) ||
	    cw_image_is_code(t->img, a))
		return;
	for (i = 0; (s = cw_image_rosec(t->img, i)); i++)
		if (a - s->addr < s->size)
			mismatch(m, "frame #%u: its return address 0x%08x lies in the "
				 "firmware's %s, not in its code", ff + 1, bt->stop_addr, s->name);
}

/*
 * The word of section s whose initial value the dumped word at offset o
 * holds, while it no longer holds it itself; -1 when there is none.
 */
static int moved_from(const struct cw_target *t, const struct cw_image_section *s, uint32_t o,
		      uint32_t dv)
{
	uint32_t p, iv, pd;

	for (p = 0; p + 4 <= s->size; p += 4) {
		memcpy(&iv, s->data + p, 4);
		if (p != o && iv == dv && !cw_mem_read32_dumped(t->mem, s->addr + p, &pd) &&
		    pd != iv)
			return (int)p;
	}
	return -1;
}

/*
 * Variables never written since reset still hold their initial values. A
 * word of the dump's .data that holds another word's initial value, while
 * that word itself no longer does, says the variables sit at other
 * addresses in the dumped build: two such words, or one when at least half
 * of the section differs from the firmware's image. A program that writes
 * its variables changes them to values of its own, seldom to each other's.
 */
static void match_data(const struct cw_target *t, struct cw_match *m)
{
	const struct cw_image_section *s;
	unsigned int i, moved, differ, dumped;
	uint32_t o, dv, iv, first = 0, from = 0;
	int p;

	for (i = 0; (s = cw_image_datasec(t->img, i)); i++) {
		moved = differ = dumped = 0;
		for (o = 0; o + 4 <= s->size; o += 4) {
			if (cw_mem_read32_dumped(t->mem, s->addr + o, &dv))
				continue;
			dumped++;
			memcpy(&iv, s->data + o, 4);
			if (dv == iv)
				continue;
			differ++;
			p = dv ? moved_from(t, s, o, dv) : -1;
			if (p >= 0 && !moved++) {
				first = s->addr + o;
				from = s->addr + (uint32_t)p;
			}
		}
		if (moved >= 2 || (moved && 2 * differ >= dumped))
			mismatch(m, "%s: the word at 0x%08x (%s) holds the initial value of 0x%08x "
				 "(%s), which no longer does; %u such word%s, %u of %u differ%s "
				 "from the firmware's", s->name, first,
				 cw_image_object_name(t->img, first) ?: "?", from,
				 cw_image_object_name(t->img, from) ?: "?", moved, cw_plural(moved),
				 differ, dumped, cw_verb_s(differ));
	}
}

/* The firmware's own bytes (a literal pool holds code addresses): not RAM. */
static int in_rosec(const struct cw_target *t, uint32_t a)
{
	const struct cw_image_section *s;
	unsigned int i;

	for (i = 0; (s = cw_image_rosec(t->img, i)); i++)
		if (a - s->addr < s->size)
			return 1;
	return 0;
}

/* Fewer return-address-like words than this in RAM say too little either way. */
#define CENSUS_MIN	6
/* Words judged at most: each may decode up to 64 KiB of code (hostile RAM ends here). */
#define CENSUS_MAX	4096

/*
 * A build's RAM holds its own return addresses, live and stale, and each
 * follows a call. Words that look like return addresses into this
 * firmware's code (odd, at an instruction inside a function past its
 * first, with code before it) of which fewer than half follow a call are
 * another build's.
 */
static void match_ram_returns(const struct cw_target *t, const struct cw_dump *d,
			      struct cw_match *m)
{
	unsigned int r, n = 0, calls = 0, judged = 0;
	uint32_t a, v, target, first = 0, first_v = 0;

	for (r = 0; r < d->mem.nr && judged < CENSUS_MAX; r++) {
		const struct cw_region *dr = &d->mem.regions[r];

		if (strcmp(dr->origin, "dump"))
			continue;
		for (a = dr->addr; a - dr->addr + 4 <= dr->size && judged < CENSUS_MAX; a += 4) {
			if (in_rosec(t, a))
				continue;
			memcpy(&v, dr->data + (a - dr->addr), 4);
			if (!in_code(t, v))
				continue;
			judged++;
			if (cw_image_insn_start(t->img, v & ~1u) != 1)
				continue;
			n++;
			if (cw_thumb_call_before(t->mem, v, &target) != CW_CALL_NONE) {
				calls++;
			} else if (!first_v) {
				first = a;
				first_v = v;
			}
		}
	}
	if (n >= CENSUS_MIN && 2 * calls < n)
		mismatch(m, "RAM: %u of the %u words that look like return addresses into the "
			 "firmware's code follow%s a call; the first that does not is 0x%08x at "
			 "0x%08x", calls, n, cw_verb_s(calls), first_v, first);
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
	} else if (f->have_scb && f->insn[0] && !f->insn_undecoded &&
		   (cause = cause_mismatch(f->cfsr, f->insn))) {
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
	for (i = ff; i < end; i++)
		if ((bt->frames[i].flags & CW_FRAME_EXCEPTION) &&
		    bt->frames[i].method == CW_M_EXCEPTION)
			match_lr(t, bt->frames[i].stacked_lr, bt->frames[i].pc, i, "stacked", m);
	if (d->context == CW_CTX_PRE_EXCEPTION && ff == 0 && cw_reg_ok(&d->regs, CW_LR))
		match_lr(t, d->regs.r[CW_LR], bt->frames[0].pc, 0, "dump's", m);
	match_first_caller(t, bt, ff, m);
	match_lost(t, bt, ff, m);
}

/* Fill m with every way the dump contradicts the firmware; returns how many. */
unsigned int cw_match(const struct cw_target *t, const struct cw_dump *dump,
		      const struct cw_backtrace *bt, const struct cw_fault *f, struct cw_match *m)
{
	memset(m, 0, sizeof(*m));
	match_build_id(t, dump, m);
	match_sections(t, dump, m);
	match_pcs(t, dump, bt, f, m);
	match_data(t, m);
	match_ram_returns(t, dump, m);
	return m->nr;
}
