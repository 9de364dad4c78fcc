// SPDX-License-Identifier: GPL-2.0
/*
 * cw_lines.c - the firmware image's line info: address -> file:line as a
 * debugger reports it (its own line-program reader, libdw's where that one
 * declines), and the inlined calls at an address.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/user/fw_grow.h"
#include "base/cw_sort.h"
#include "image/cw_image_impl.h"

/*
 * The line of addr as a debugger reports it: among the line-table rows at
 * the highest address not above addr, the last that is a statement (GCC
 * emits a function's opening line and first body line at the same address).
 * A row of line 0 (clang's mark for code merged from several lines) is no row
 * at all, as GDB reads it: the line before it runs on.
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
	bool ended = false;
	int best_stmt = 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (line_addr_at(lines, mid, &a) == 0 && a <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* From the rows at the highest address down, while they are all line 0. */
	for (; !best && !ended; lo = first) {
		if (lo == 0 || line_addr_at(lines, lo - 1, &top))
			return NULL;
		for (first = lo - 1; first > 0; first--)
			if (line_addr_at(lines, first - 1, &a) || a != top)
				break;
		for (i = first; i < lo; i++) {
			Dwarf_Line *l = dwarf_onesrcline(lines, i);
			bool end = false, stmt = false;
			int lineno = 0;

			dwarf_lineendsequence(l, &end);
			dwarf_linebeginstatement(l, &stmt);
			if (end) {
				/* addr lies past the end of this sequence, unless a later row covers it */
				best = NULL;
				ended = true;
				continue;
			}
			if (dwarf_lineno(l, &lineno) || lineno == 0)
				continue;
			if (!best || stmt || !best_stmt) {
				best = l;
				best_stmt = stmt;
			}
		}
	}
	return best;
}

/*
 * The unit whose code holds addr. libdwfl finds it through .debug_aranges,
 * which clang writes only for assembly units, and credits the gap after a
 * unit's last range to that unit: so a unit it names must hold addr by its own
 * ranges, and where it names none, or another, every unit's own ranges are
 * asked, as GDB does. A unit with no ranges at all is taken on libdwfl's word.
 */
static Dwarf_Die *unit_at(struct cw_image *img, uint32_t addr, Dwarf_Addr *bias)
{
	Dwfl_Module *mod = img->dwfl ? dwfl_addrmodule(img->dwfl, addr) : NULL;
	Dwarf_Die *cu, *c = NULL;

	if (!mod)
		return NULL;
	cu = dwfl_module_addrdie(mod, addr, bias);
	if (cu && dwarf_haspc(cu, addr - *bias) != 0)
		return cu;
	while ((c = dwfl_module_nextcu(mod, c, bias)))
		if (dwarf_haspc(c, addr - *bias) > 0)
			return c;
	return NULL;
}

int cw_image_srcline_libdw(struct cw_image *img, uint32_t addr, struct cw_srcline *out)
{
	Dwarf_Die *cu;
	Dwarf_Lines *lines;
	Dwarf_Line *line;
	Dwarf_Addr bias = 0;
	const char *file;
	size_t n;
	int lineno = 0;

	cu = unit_at(img, addr, &bias);
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

/*
 * The unit's line program, read here: libdw decodes a unit's whole program into
 * rows and sorts them at its first lookup, 45% of a cold run on a firmware of
 * 50 000 functions. A sequence starts from the initial state, so one pass
 * notes where each begins, and a lookup runs only the one that covers the
 * address (a function, with -ffunction-sections). Any form this reader does
 * not take (DWARF64, more than one operation an instruction, define_file,
 * string offsets) leaves the unit to libdw.
 */
struct line_row {
	uint32_t addr;
	uint32_t file;
	int64_t line;
	bool stmt, end;
};

struct line_state {
	struct line_row row;
	const struct cw_linetab *lt;
};

static int read_uleb(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	unsigned int shift = 0;

	*v = 0;
	while (*p < end) {
		uint8_t b = *(*p)++;

		if (shift < 64)
			*v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			return 0;
	}
	return -1;
}

static int read_sleb(const uint8_t **p, const uint8_t *end, int64_t *v)
{
	unsigned int shift = 0;
	uint8_t b = 0;
	uint64_t u = 0;

	while (*p < end) {
		b = *(*p)++;
		if (shift < 64)
			u |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80)) {
			if (shift < 64 && (b & 0x40))
				u |= ~0ull << shift;
			*v = (int64_t)u;
			return 0;
		}
	}
	return -1;
}

static uint32_t read_le(const uint8_t *p, unsigned int n)
{
	uint32_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

static void line_reset(struct line_state *st)
{
	st->row = (struct line_row){ .file = 1, .line = 1, .stmt = st->lt->default_stmt };
}

/*
 * Run the program from p, in the initial state or after the row from: each
 * row goes to row(), which returns nonzero to stop. Returns where it stopped,
 * or NULL on a malformed or unsupported opcode. one_sequence: stop after the
 * first end_sequence.
 */
static const uint8_t *line_run(const struct cw_linetab *lt, const uint8_t *p,
			       const struct line_row *from, int one_sequence,
			       int (*row)(void *arg, const struct line_row *r, const uint8_t *next),
			       void *arg)
{
	struct line_state st = { .lt = lt };
	uint64_t u;
	int64_t sv;

	if (from)
		st.row = *from;
	else
		line_reset(&st);
	while (p < lt->end) {
		uint8_t op = *p++;

		if (op >= lt->opcode_base) {
			unsigned int adj = op - lt->opcode_base;

			st.row.addr += adj / lt->line_range * lt->min_insn;
			st.row.line += lt->line_base + (int)(adj % lt->line_range);
			if (row(arg, &st.row, p))
				return p;
			continue;
		}
		switch (op) {
		case 0:	/* extended */
			if (read_uleb(&p, lt->end, &u) || !u || u > (uint64_t)(lt->end - p))
				return NULL;
			op = *p;
			if (op == DW_LNE_end_sequence) {
				p += u;
				st.row.end = true;
				if (row(arg, &st.row, p) || one_sequence)
					return p;
				line_reset(&st);
			} else if (op == DW_LNE_set_address) {
				if (u - 1 > 4)
					return NULL;
				st.row.addr = read_le(p + 1, (unsigned int)(u - 1));
				p += u;
			} else if (op == DW_LNE_define_file) {
				return NULL;
			} else {
				p += u;
			}
			break;
		case DW_LNS_copy:
			if (row(arg, &st.row, p))
				return p;
			break;
		case DW_LNS_advance_pc:
			if (read_uleb(&p, lt->end, &u))
				return NULL;
			st.row.addr += (uint32_t)u * lt->min_insn;
			break;
		case DW_LNS_advance_line:
			if (read_sleb(&p, lt->end, &sv))
				return NULL;
			st.row.line += sv;
			break;
		case DW_LNS_set_file:
			if (read_uleb(&p, lt->end, &u))
				return NULL;
			st.row.file = (uint32_t)u;
			break;
		case DW_LNS_negate_stmt:
			st.row.stmt = !st.row.stmt;
			break;
		case DW_LNS_const_add_pc:
			st.row.addr += (255u - lt->opcode_base) / lt->line_range * lt->min_insn;
			break;
		case DW_LNS_fixed_advance_pc:
			if (lt->end - p < 2)
				return NULL;
			st.row.addr += read_le(p, 2);
			p += 2;
			break;
		default:	/* column, basic_block, prologue_end... and unknown: skip operands */
			for (unsigned int i = lt->std_lengths[op - 1]; i; i--)
				if (read_uleb(&p, lt->end, &u))
					return NULL;
			break;
		}
	}
	return NULL;
}

#define LINE_MARK_EVERY	32	/* rows: what a lookup runs at most, before its own */

struct seq_scan {
	struct cw_linetab *lt;
	size_t cap_seqs, cap_marks;
	int open;
	uint32_t lo, last;	/* the open sequence's first and latest row address */
	size_t first_mark;
	unsigned int since;	/* rows since its latest mark */
	int failed;
};

static int scan_row(void *arg, const struct line_row *r, const uint8_t *next)
{
	struct seq_scan *sc = arg;
	struct cw_linetab *lt = sc->lt;

	if (r->end) {
		if (sc->open && r->addr > sc->lo) {
			struct cw_lineseq *s = fw_grow(lt->seqs, &sc->cap_seqs, lt->nr_seqs,
						       sizeof(*s), 64);

			if (!s)
				goto fail;
			lt->seqs = s;
			lt->seqs[lt->nr_seqs++] = (struct cw_lineseq){
				sc->lo, r->addr, 0, sc->first_mark, lt->nr_marks - sc->first_mark
			};
		} else {
			lt->nr_marks = sc->first_mark;	/* an empty sequence: nothing to find */
		}
		sc->open = 0;
		return next >= lt->end;
	}
	/* No mark on a row of line 0 but a sequence's first: a lookup starts at its mark. */
	if (!sc->open || (sc->since >= LINE_MARK_EVERY && r->addr > sc->last && r->line)) {
		struct cw_linemark *m;

		if (!sc->open) {
			sc->open = 1;
			sc->lo = r->addr;
			sc->first_mark = lt->nr_marks;
		}
		m = fw_grow(lt->marks, &sc->cap_marks, lt->nr_marks, sizeof(*m), 64);
		if (!m)
			goto fail;
		lt->marks = m;
		lt->marks[lt->nr_marks++] = (struct cw_linemark){
			r->addr, r->file, r->line, r->stmt, next
		};
		sc->since = 0;
	}
	sc->since++;
	sc->last = r->addr;
	return 0;
fail:
	sc->failed = 1;
	return 1;
}

/*
 * By address; at one address in the program's order, which is the order
 * they were read in, so the stable sort keeps it (marks follow the program).
 */
static uint32_t lineseq_key(const void *p)
{
	return ((const struct cw_lineseq *)p)->lo;
}

static uint32_t linemark_key(const void *p)
{
	return ((const struct cw_linemark *)p)->addr;
}

/* A string of a DWARF 5 entry format: inline, or an offset into .debug_str or .debug_line_str. */
struct line_strs {
	Elf_Data *str, *line_str;
};

static Elf_Data *named_section(Elf *elf, const char *name)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *n;

		if (gelf_getshdr(scn, &sh) && (n = elf_strptr(elf, shstrndx, sh.sh_name)) &&
		    !strcmp(n, name))
			return (sh.sh_flags & SHF_COMPRESSED) ? NULL : elf_getdata(scn, NULL);
	}
	return NULL;
}

static const char *data_string(const Elf_Data *d, uint64_t off)
{
	if (!d || off >= d->d_size || !memchr((const char *)d->d_buf + off, 0, d->d_size - off))
		return NULL;
	return (const char *)d->d_buf + off;
}

/*
 * One field of a DWARF 5 directory or file entry: its string (path) or
 * number (directory index) when asked for, else skipped. -1: a form not taken.
 */
static int entry_field(const uint8_t **p, const uint8_t *end, uint64_t form,
		       const struct line_strs *s, const char **str, uint64_t *num)
{
	const uint8_t *q = *p;
	uint64_t v = 0;

	switch (form) {
	case DW_FORM_string:
		q = memchr(*p, 0, end - *p);
		if (!q)
			return -1;
		if (str)
			*str = (const char *)*p;
		*p = q + 1;
		return 0;
	case DW_FORM_line_strp:
	case DW_FORM_strp:
		if (end - q < 4)
			return -1;
		v = read_le(q, 4);
		*p = q + 4;
		if (str && !(*str = data_string(form == DW_FORM_strp ? s->str : s->line_str, v)))
			return -1;
		return 0;
	case DW_FORM_udata:
		if (read_uleb(p, end, &v))
			return -1;
		break;
	case DW_FORM_data1:
	case DW_FORM_data2:
	case DW_FORM_data4:
	case DW_FORM_data8:
	case DW_FORM_data16: {
		unsigned int n = form == DW_FORM_data1 ? 1 : form == DW_FORM_data2 ? 2 :
				 form == DW_FORM_data4 ? 4 : form == DW_FORM_data8 ? 8 : 16;

		if (end - q < n)
			return -1;
		v = n <= 4 ? read_le(q, n) : 0;
		*p = q + n;
		break;
	}
	case DW_FORM_block:
		if (read_uleb(p, end, &v) || v > (uint64_t)(end - *p))
			return -1;
		*p += v;
		v = 0;
		break;
	default:
		return -1;
	}
	if (str)
		return -1;	/* a path that is not a string */
	if (num)
		*num = v;
	return 0;
}

/* libdw's name for a file: absolute as written, else under its directory. */
static char *join_path(const char *dir, const char *name)
{
	char *path;

	if (name[0] == '/' || !dir)
		return strdup(name);
	if (asprintf(&path, "%s/%s", dir, name) < 0)
		return NULL;
	return path;
}

static int add_file(struct cw_linetab *lt, char *name)
{
	char **n;

	if (!name)
		return -1;
	n = fw_grow(lt->files, &lt->cap_files, lt->nr_files, sizeof(*n), 16);
	if (!n) {
		free(name);
		return -1;
	}
	lt->files = n;
	lt->files[lt->nr_files++] = name;
	return 0;
}

#define MAX_LINE_DIRS	4096

/* DWARF 5's directory and file tables: entry formats, then entries. */
static int read_entries(const uint8_t **p, const uint8_t *end, const struct line_strs *s,
			const char **dirs, size_t *nr_dirs, struct cw_linetab *lt)
{
	uint64_t fmt[2][16], count, i, desc;
	unsigned int nfmt, k, pass;

	for (pass = 0; pass < 2; pass++) {
		if (*p >= end || (nfmt = *(*p)++) > 16)
			return -1;
		for (k = 0; k < nfmt; k++)
			if (read_uleb(p, end, &fmt[0][k]) || read_uleb(p, end, &fmt[1][k]))
				return -1;
		if (read_uleb(p, end, &count) || (pass == 0 && count > MAX_LINE_DIRS))
			return -1;
		for (i = 0; i < count; i++) {
			const char *path = NULL;
			uint64_t dir = 0;

			for (k = 0; k < nfmt; k++) {
				desc = fmt[0][k];
				if (entry_field(p, end, fmt[1][k], s,
						desc == DW_LNCT_path ? &path : NULL,
						desc == DW_LNCT_directory_index ? &dir : NULL))
					return -1;
			}
			if (!path)
				return -1;
			if (pass == 0) {
				dirs[(*nr_dirs)++] = path;
			} else if (dir >= *nr_dirs || add_file(lt, join_path(dirs[dir], path))) {
				return -1;
			}
		}
	}
	return 0;
}

/* Before DWARF 5: NUL-terminated directories, then files with three numbers each. */
static int read_old_entries(const uint8_t **p, const uint8_t *end, const char *comp_dir,
			    const char **dirs, size_t *nr_dirs, struct cw_linetab *lt)
{
	uint64_t dir, skip;

	dirs[(*nr_dirs)++] = comp_dir;
	while (*p < end && **p) {
		const uint8_t *z = memchr(*p, 0, end - *p);

		if (!z || *nr_dirs == MAX_LINE_DIRS)
			return -1;
		dirs[(*nr_dirs)++] = (const char *)*p;
		*p = z + 1;
	}
	if (*p >= end || add_file(lt, strdup("???")))
		return -1;
	(*p)++;
	while (*p < end && **p) {
		const uint8_t *z = memchr(*p, 0, end - *p);
		const char *name = (const char *)*p;

		if (!z)
			return -1;
		*p = z + 1;
		if (read_uleb(p, end, &dir) || dir >= *nr_dirs || read_uleb(p, end, &skip) ||
		    read_uleb(p, end, &skip) || add_file(lt, join_path(dirs[dir], name)))
			return -1;
	}
	return *p < end ? 0 : -1;
}

static int read_linetab(struct cw_linetab *lt, Dwarf_Die *cu)
{
	Dwarf *dbg = dwarf_cu_getdwarf(cu->cu);
	Elf *elf = dbg ? dwarf_getelf(dbg) : NULL;
	Elf_Data *sec = elf ? named_section(elf, ".debug_line") : NULL;
	const char **dirs = calloc(MAX_LINE_DIRS, sizeof(*dirs));
	struct line_strs strs = { NULL, NULL };
	const uint8_t *p, *end, *hdr_end;
	struct seq_scan sc = { .lt = lt };
	Dwarf_Attribute attr;
	Dwarf_Word off;
	uint32_t len, hlen;
	size_t nr_dirs = 0, i;
	int rc = -1;

	if (!sec || !dirs || !dwarf_attr(cu, DW_AT_stmt_list, &attr) ||
	    dwarf_formudata(&attr, &off) || off >= sec->d_size || sec->d_size - off < 16)
		goto out;
	strs.str = named_section(elf, ".debug_str");
	strs.line_str = named_section(elf, ".debug_line_str");
	p = (const uint8_t *)sec->d_buf + off;
	len = read_le(p, 4);
	if (len >= 0xfffffff0u || len > sec->d_size - off - 4)
		goto out;	/* DWARF64 or cut */
	end = p + 4 + len;
	lt->version = (int)read_le(p + 4, 2);
	p += 6;
	if (lt->version < 2 || lt->version > 5)
		goto out;
	if (lt->version >= 5) {
		if (p[0] != 4 || p[1] != 0)	/* 4-byte addresses, no segments */
			goto out;
		p += 2;
	}
	hlen = read_le(p, 4);
	p += 4;
	if (hlen > (uint32_t)(end - p))
		goto out;
	hdr_end = p + hlen;
	if (hdr_end - p < (lt->version >= 4 ? 5 : 4))
		goto out;
	lt->min_insn = *p++;
	if (lt->version >= 4 && *p++ != 1)
		goto out;	/* VLIW operation indexes */
	lt->default_stmt = *p++;
	lt->line_base = (int8_t)*p++;
	lt->line_range = *p++;
	lt->opcode_base = *p++;
	if (!lt->line_range || !lt->opcode_base || hdr_end - p < lt->opcode_base - 1)
		goto out;
	lt->std_lengths = p;
	p += lt->opcode_base - 1;
	if (lt->version >= 5) {
		if (read_entries(&p, hdr_end, &strs, dirs, &nr_dirs, lt))
			goto out;
	} else {
		const char *comp_dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &attr));

		if (read_old_entries(&p, hdr_end, comp_dir, dirs, &nr_dirs, lt))
			goto out;
	}
	lt->end = end;
	if (hdr_end < end && (!line_run(lt, hdr_end, NULL, 0, scan_row, &sc) || sc.failed))
		goto out;
	if (cw_sort_by_key(lt->seqs, lt->nr_seqs, sizeof(*lt->seqs), lineseq_key))
		goto out;
	for (i = 0; i < lt->nr_seqs; i++)
		lt->seqs[i].reach = i && lt->seqs[i - 1].reach > lt->seqs[i].hi ?
				    lt->seqs[i - 1].reach : lt->seqs[i].hi;
	rc = 0;
out:
	free(dirs);
	return rc;
}

/*
 * A lookup in one sequence: among its rows at the highest address not above
 * addr, the last that is a statement (else the last), as best_line() does on
 * libdw's rows.
 */
struct seq_query {
	uint32_t addr;
	int found;
	struct line_row best;
};

static int query_row(void *arg, const struct line_row *r, const uint8_t *next)
{
	struct seq_query *q = arg;

	(void)next;
	if (r->end || r->addr > q->addr)
		return 1;	/* the rows only climb from here */
	if (r->line == 0)
		return 0;
	if (!q->found || r->addr > q->best.addr) {
		q->found = 1;
		q->best = *r;
	} else if (r->addr == q->best.addr && (r->stmt || !q->best.stmt)) {
		q->best = *r;
	}
	return 0;
}

static struct cw_cuindex *cu_entry(struct cw_image *img, Dwarf_Die *cu);

/* 0: answered; 1: this unit is libdw's; -1: no line. */
static int fast_srcline(struct cw_image *img, Dwarf_Die *cu, Dwarf_Addr addr,
			struct cw_srcline *out)
{
	struct cw_cuindex *ix = cu_entry(img, cu);
	struct cw_linetab *lt = ix ? &ix->lines : NULL;
	struct seq_query q = { .addr = (uint32_t)addr };
	size_t lo, i, mark = 0;
	int found = 0;

	if (!lt || addr > UINT32_MAX)
		return 1;
	if (!lt->state)
		lt->state = read_linetab(lt, cu) ? -1 : 1;
	if (lt->state < 0)
		return 1;
	lo = cw_sort_bound(lt->seqs, 0, lt->nr_seqs, q.addr, 1, sizeof(*lt->seqs), lineseq_key);
	/*
	 * Sequences may overlap: every one that starts at or below addr and
	 * covers it. libdw's rows at one address keep the program's order, so
	 * of two sequences' answers at one address the later wins unless only
	 * the earlier is a statement.
	 */
	for (i = lo; i-- > 0 && lt->seqs[i].reach > addr;) {
		const struct cw_lineseq *sq = &lt->seqs[i];
		struct seq_query one = { .addr = q.addr, .found = 1 };
		const struct cw_linemark *m;
		const struct line_row *e, *l;
		size_t mlo;

		if (addr >= sq->hi)
			continue;
		mlo = cw_sort_bound(lt->marks + sq->mark, 0, sq->nr_marks, q.addr, 1,
				    sizeof(*lt->marks), linemark_key);
		m = &lt->marks[sq->mark + mlo - 1];	/* mlo >= 1: the first mark is at sq->lo */
		one.best = (struct line_row){ m->addr, m->file, m->line, m->stmt, false };
		if (!line_run(lt, m->ops, &one.best, 1, query_row, &one))
			return 1;
		if (!one.best.line)
			continue;	/* the sequence opens with line 0, and no row follows */
		if (found && one.best.addr == q.best.addr) {
			e = sq->mark < mark ? &one.best : &q.best;
			l = e == &one.best ? &q.best : &one.best;
			if ((l->stmt || !e->stmt ? l : e) == &q.best)
				continue;
		} else if (found && one.best.addr < q.best.addr) {
			continue;
		}
		q = one;
		mark = sq->mark;
		found = 1;
	}
	if (!found || q.best.line <= 0 || q.best.line > INT32_MAX || q.best.file >= lt->nr_files)
		return -1;
	out->file = lt->files[q.best.file];
	out->line = (int)q.best.line;
	return 0;
}

int cw_image_srcline(struct cw_image *img, uint32_t addr, struct cw_srcline *out)
{
	Dwarf_Addr bias = 0;
	Dwarf_Die *cu;
	int rc;

	cu = unit_at(img, addr, &bias);
	if (!cu)
		return -1;
	rc = fast_srcline(img, cu, addr - bias, out);
	return rc == 1 ? cw_image_srcline_libdw(img, addr, out) : rc;
}

/*
 * The file of an inlined call, by its number in the unit's file table: the
 * table read above when it was, since libdw's own file table decodes and
 * sorts the unit's whole line program first.
 */
static const char *inline_call_file(struct cw_image *img, Dwarf_Die *cu, Dwarf_Die *scope)
{
	struct cw_cuindex *ix = cu_entry(img, cu);
	Dwarf_Attribute attr;
	Dwarf_Files *files;
	Dwarf_Word idx;
	size_t nfiles;

	if (!dwarf_attr(scope, DW_AT_call_file, &attr) || dwarf_formudata(&attr, &idx))
		return NULL;
	if (ix && ix->lines.state > 0)
		return idx < ix->lines.nr_files ? ix->lines.files[idx] : NULL;
	if (dwarf_getsrcfiles(cu, &files, &nfiles) || idx >= nfiles)
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

/* A 32-bit image's DWARF addresses fit the sort's key. */
static uint32_t funcrange_key(const void *p)
{
	return (uint32_t)((const struct cw_funcrange *)p)->lo;
}

static int note_range(struct cw_cuindex *ix, Dwarf_Die *fn, Dwarf_Addr lo, Dwarf_Addr hi)
{
	struct cw_funcrange *f = fw_grow(ix->funcs, &ix->cap, ix->nr, sizeof(*f), 64);

	if (!f)
		return -1;
	ix->funcs = f;
	ix->funcs[ix->nr++] = (struct cw_funcrange){ lo, hi, dwarf_dieoffset(fn) };
	return 0;
}

/* The attributes that place a function's code, as its own entry holds them. */
struct code_attrs {
	Dwarf_Attribute low, high;
	bool has_low, has_high, has_ranges;
};

static int code_attr(Dwarf_Attribute *attr, void *arg)
{
	struct code_attrs *c = arg;

	switch (dwarf_whatattr(attr)) {
	case DW_AT_low_pc:
		c->low = *attr;
		c->has_low = true;
		break;
	case DW_AT_high_pc:
		c->high = *attr;
		c->has_high = true;
		break;
	case DW_AT_ranges:
		c->has_ranges = true;
		break;
	}
	return DWARF_CB_OK;
}

static bool is_constant_form(unsigned int form)
{
	return form == DW_FORM_data1 || form == DW_FORM_data2 || form == DW_FORM_data4 ||
	       form == DW_FORM_data8 || form == DW_FORM_udata;
}

/*
 * low_pc and high_pc as dwarf_lowpc() and dwarf_highpc() read them, from one
 * pass over the entry's attributes: each of those looks its attribute up from
 * the start, and dwarf_highpc() asks for low_pc again; a third of a cold run's
 * instructions went to indexing one unit of 2 500 functions. Forms other than
 * these, and attributes only an abstract origin holds, go to libdw.
 */
static int code_bounds(Dwarf_Die *fn, const struct code_attrs *c, Dwarf_Addr *lo,
		       Dwarf_Addr *hi)
{
	Dwarf_Word len;

	if (!c->has_low || !c->has_high || c->low.form != DW_FORM_addr ||
	    (c->high.form != DW_FORM_addr && !is_constant_form(c->high.form)))
		return dwarf_lowpc(fn, lo) || dwarf_highpc(fn, hi) ? -1 : 0;
	if (dwarf_formaddr((Dwarf_Attribute *)&c->low, lo))
		return -1;
	if (c->high.form == DW_FORM_addr)
		return dwarf_formaddr((Dwarf_Attribute *)&c->high, hi);
	if (dwarf_formudata((Dwarf_Attribute *)&c->high, &len))
		return -1;
	*hi = *lo + len;
	return 0;
}

/* A function's code: low_pc and high_pc, or its range list (a function split hot and cold). */
static int note_function(struct cw_cuindex *ix, Dwarf_Die *fn)
{
	struct code_attrs c = { 0 };
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;

	if (dwarf_getattrs(fn, code_attr, &c, 0) != 1)
		c = (struct code_attrs){ .has_ranges = dwarf_hasattr(fn, DW_AT_ranges) };
	if (!c.has_ranges)
		return code_bounds(fn, &c, &lo, &hi) ? 0 : note_range(ix, fn, lo, hi);
	while ((off = dwarf_ranges(fn, off, &base, &lo, &hi)) > 0)
		if (note_range(ix, fn, lo, hi))
			return -1;
	return 0;
}

/*
 * The functions with code among a scope's children: the unit's, and those of
 * the namespaces in it (C++). dwarf_getfuncs() also walks every function's
 * own children, two thirds of its time on a unit of 2 500 functions; a C or
 * C++ function's code never nests inside another's.
 */
static void index_functions(struct cw_cuindex *ix, Dwarf_Die *scope, unsigned int depth)
{
	Dwarf_Die d;

	if (depth > 16 || dwarf_child(scope, &d))
		return;
	do {
		int tag = dwarf_tag(&d);

		if (tag == DW_TAG_subprogram) {
			if (note_function(ix, &d))
				return;
		} else if (tag == DW_TAG_namespace || tag == DW_TAG_module) {
			index_functions(ix, &d, depth + 1);
		}
	} while (dwarf_siblingof(&d, &d) == 0);
}

/* The unit's entry in the image's list, made at its first lookup. */
static struct cw_cuindex *cu_entry(struct cw_image *img, Dwarf_Die *cu)
{
	Dwarf_Off off = dwarf_dieoffset(cu);
	struct cw_cuindex *n;
	size_t i;

	for (i = 0; i < img->nr_cus; i++)
		if (img->cus[i].cu == off)
			return &img->cus[i];
	n = fw_grow(img->cus, &img->cap_cus, img->nr_cus, sizeof(*n), 16);
	if (!n)
		return NULL;
	img->cus = n;
	n[img->nr_cus] = (struct cw_cuindex){ .cu = off };
	return &n[img->nr_cus++];
}

/*
 * The index of a unit's functions, built at its first lookup. Without it each
 * lookup asked libdw for the scopes at an address, which walks and sorts the
 * whole unit: 86% of a batch run on a firmware of 50 000 functions. Indexing
 * every unit up front instead made a cold run of one dump 60% slower.
 */
static const struct cw_cuindex *cu_index(struct cw_image *img, Dwarf_Die *cu)
{
	struct cw_cuindex *ix = cu_entry(img, cu);

	if (ix && !ix->funcs_read) {
		ix->funcs_read = 1;
		index_functions(ix, cu, 0);
		/* Out of memory: no index, so no inlined calls, rather than wrong ones. */
		if (cw_sort_by_key(ix->funcs, ix->nr, sizeof(*ix->funcs), funcrange_key))
			ix->nr = 0;
	}
	return ix;
}

void cw_cuindex_free(struct cw_cuindex *ix)
{
	size_t i;

	free(ix->funcs);
	for (i = 0; i < ix->lines.nr_files; i++)
		free(ix->lines.files[i]);
	free(ix->lines.files);
	free(ix->lines.seqs);
	free(ix->lines.marks);
}

static const struct cw_funcrange *find_func(const struct cw_cuindex *ix, Dwarf_Addr pc)
{
	size_t lo;

	/* Sorted by funcrange_key(): a 32-bit target's addresses, none of which reaches pc. */
	if (pc > UINT32_MAX)
		return NULL;
	lo = cw_sort_bound(ix->funcs, 0, ix->nr, (uint32_t)pc, 1, sizeof(*ix->funcs),
			   funcrange_key);
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
	Dwarf_Die chain[CW_MAX_INLINE], die, *cu;
	const struct cw_funcrange *fr;
	const struct cw_cuindex *ix;
	struct cw_srcline here = *outer;
	Dwarf_Addr bias = 0;
	unsigned int n = 0, k;

	cu = unit_at(img, addr, &bias);
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
		here.file = inline_call_file(img, cu, &chain[k]);
		here.line = inline_call_line(&chain[k]);
		if (!here.file)
			here.file = out[n].src.file;
		n++;
	}
	if (n)
		*outer = here;
	return n;
}
