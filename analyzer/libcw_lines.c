// SPDX-License-Identifier: GPL-2.0
/*
 * libcw_lines.c - the firmware image's line info: address -> file:line as a
 * debugger reports it, and the inlined calls at an address, through libdw.
 */
#include <stdlib.h>
#include <string.h>

#include "cw_image_impl.h"

/*
 * The line of addr as a debugger reports it: among the line-table rows at
 * the highest address not above addr, the last that is a statement (GCC
 * emits a function's opening line and first body line at the same address).
 */
static int line_addr_at(Dwarf_Lines *lines, size_t i, Dwarf_Addr *a)
{
	Dwarf_Line *l = dwarf_onesrcline(lines, i);

	return !l || dwarf_lineaddr(l, a) ? -1 : 0;
}

/*
 * libdw hands the rows over sorted by address, so only the rows at the
 * greatest address not above addr can win: bisect to them, then apply the
 * rule above to those alone. A scan of the whole table per lookup cost 70% of
 * a batch run on a firmware of 50 000 functions.
 */
static Dwarf_Line *best_line(Dwarf_Lines *lines, size_t n, Dwarf_Addr addr)
{
	Dwarf_Line *best = NULL;
	Dwarf_Addr a, top;
	size_t lo = 0, hi = n, first, i;
	int best_stmt = 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (line_addr_at(lines, mid, &a) == 0 && a <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || line_addr_at(lines, lo - 1, &top))
		return NULL;
	for (first = lo - 1; first > 0; first--)
		if (line_addr_at(lines, first - 1, &a) || a != top)
			break;
	for (i = first; i < lo; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		bool end = false, stmt = false;

		dwarf_lineendsequence(l, &end);
		dwarf_linebeginstatement(l, &stmt);
		if (end) {
			/* addr lies past the end of this sequence, unless a later row covers it */
			best = NULL;
			continue;
		}
		if (!best || stmt || !best_stmt) {
			best = l;
			best_stmt = stmt;
		}
	}
	return best;
}

int cw_image_srcline(struct cw_image *img, uint32_t addr, struct cw_srcline *out)
{
	Dwfl_Module *mod = img->dwfl ? dwfl_addrmodule(img->dwfl, addr) : NULL;
	Dwarf_Die *cu;
	Dwarf_Lines *lines;
	Dwarf_Line *line;
	Dwarf_Addr bias = 0;
	const char *file;
	size_t n;
	int lineno = 0;

	cu = mod ? dwfl_module_addrdie(mod, addr, &bias) : NULL;
	if (!cu || dwarf_getsrclines(cu, &lines, &n))
		return -1;
	line = best_line(lines, n, addr - bias);
	if (!line || dwarf_lineno(line, &lineno) || lineno <= 0)
		return -1;
	file = dwarf_linesrc(line, NULL, NULL);
	if (!file)
		return -1;
	out->file = file;
	out->line = lineno;
	return 0;
}

static const char *inline_call_file(Dwarf_Die *cu, Dwarf_Die *scope)
{
	Dwarf_Attribute attr;
	Dwarf_Files *files;
	Dwarf_Word idx;
	size_t nfiles;

	if (!dwarf_attr(scope, DW_AT_call_file, &attr) || dwarf_formudata(&attr, &idx) ||
	    dwarf_getsrcfiles(cu, &files, &nfiles) || idx >= nfiles)
		return NULL;
	return dwarf_filesrc(files, idx, NULL, NULL);
}

static int inline_call_line(Dwarf_Die *scope)
{
	Dwarf_Attribute attr;
	Dwarf_Word line;

	if (!dwarf_attr(scope, DW_AT_call_line, &attr) || dwarf_formudata(&attr, &line))
		return 0;
	return (int)line;
}

static int funcrange_cmp(const void *a, const void *b)
{
	const struct cw_funcrange *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static int note_function(Dwarf_Die *fn, void *arg)
{
	struct cw_cuindex *ix = arg;
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;

	while ((off = dwarf_ranges(fn, off, &base, &lo, &hi)) > 0) {
		if (ix->nr == ix->cap) {
			size_t cap = ix->cap ? 2 * ix->cap : 64;
			struct cw_funcrange *n = realloc(ix->funcs, cap * sizeof(*n));

			if (!n)
				return DWARF_CB_ABORT;
			ix->funcs = n;
			ix->cap = cap;
		}
		ix->funcs[ix->nr++] = (struct cw_funcrange){ lo, hi, dwarf_dieoffset(fn) };
	}
	return DWARF_CB_OK;
}

/*
 * The index of a unit's functions, built at its first lookup. Without it each
 * lookup asked libdw for the scopes at an address, which walks and sorts the
 * whole unit: 86% of a batch run on a firmware of 50 000 functions. Indexing
 * every unit up front instead made a cold run of one dump 60% slower.
 */
static const struct cw_cuindex *cu_index(struct cw_image *img, Dwarf_Die *cu)
{
	Dwarf_Off off = dwarf_dieoffset(cu);
	struct cw_cuindex *ix, *n;
	size_t i;

	for (i = 0; i < img->nr_cus; i++)
		if (img->cus[i].cu == off)
			return &img->cus[i];
	n = realloc(img->cus, (img->nr_cus + 1) * sizeof(*n));
	if (!n)
		return NULL;
	img->cus = n;
	ix = &img->cus[img->nr_cus++];
	*ix = (struct cw_cuindex){ .cu = off };
	dwarf_getfuncs(cu, note_function, ix, 0);
	qsort(ix->funcs, ix->nr, sizeof(*ix->funcs), funcrange_cmp);
	return ix;
}

static const struct cw_funcrange *find_func(const struct cw_cuindex *ix, Dwarf_Addr pc)
{
	size_t lo = 0, hi = ix->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ix->funcs[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && pc < ix->funcs[lo - 1].hi ? &ix->funcs[lo - 1] : NULL;
}

/* The inlined subroutines around pc inside die, outermost first. */
static unsigned int inline_chain(Dwarf_Die *die, Dwarf_Addr pc, Dwarf_Die *chain,
				 unsigned int max)
{
	unsigned int n = 0, depth;
	Dwarf_Die child;

	/* Lexical blocks nest too; the bound keeps a malformed tree from looping. */
	for (depth = 0; depth < 64 && n < max && dwarf_child(die, &child) == 0; depth++) {
		int found = 0;

		do {
			int tag = dwarf_tag(&child);

			if ((tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block) &&
			    dwarf_haspc(&child, pc) > 0) {
				found = 1;
				break;
			}
		} while (dwarf_siblingof(&child, &child) == 0);
		if (!found)
			break;
		if (dwarf_tag(&child) == DW_TAG_inlined_subroutine)
			chain[n++] = child;
		*die = child;
	}
	return n;
}

/*
 * The inlined subroutines whose code holds addr, innermost first, from the
 * DWARF tree of the function holding addr. out[0] is where execution is (the
 * line table's answer, which the caller looked up already and passes in
 * *outer); each outer one is at the call site of the one inside it, and
 * *outer becomes the line in the real function, the call site of the
 * outermost. Returns the count.
 */
unsigned int cw_image_inlines(struct cw_image *img, uint32_t addr, struct cw_inline *out,
			      unsigned int max, struct cw_srcline *outer)
{
	Dwfl_Module *mod = img->dwfl ? dwfl_addrmodule(img->dwfl, addr) : NULL;
	Dwarf_Die chain[CW_MAX_INLINE], die, *cu;
	const struct cw_funcrange *fr;
	const struct cw_cuindex *ix;
	struct cw_srcline here = *outer;
	Dwarf_Addr bias = 0;
	unsigned int n = 0, k;

	cu = mod ? dwfl_module_addrdie(mod, addr, &bias) : NULL;
	if (!cu)
		return 0;
	ix = cu_index(img, cu);
	fr = ix ? find_func(ix, addr - bias) : NULL;
	if (!fr || !dwarf_offdie(dwarf_cu_getdwarf(cu->cu), fr->die, &die))
		return 0;
	k = inline_chain(&die, addr - bias, chain, max < CW_MAX_INLINE ? max : CW_MAX_INLINE);
	while (k--) {
		Dwarf_Attribute attr;
		const char *name;

		name = dwarf_formstring(dwarf_attr_integrate(&chain[k], DW_AT_name, &attr));
		out[n].func = name ? name : "??";
		out[n].src = here;
		here.file = inline_call_file(cu, &chain[k]);
		here.line = inline_call_line(&chain[k]);
		if (!here.file)
			here.file = out[n].src.file;
		n++;
	}
	if (n)
		*outer = here;
	return n;
}
