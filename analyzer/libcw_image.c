// SPDX-License-Identifier: GPL-2.0
/*
 * libcw_image.c - the firmware ELF: loadable sections as memory, function
 * symbols, $t/$d mapping symbols, the vector table and DWARF line info.
 *
 * libelf reads sections and symbols; libdwfl answers address -> file:line so
 * no DWARF is parsed by hand.
 */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cw_internal.h"

#define VECTOR_SCAN	256	/* entries examined when asking "is this an exception handler" */

struct cw_mapsym {
	uint32_t addr;
	char kind;		/* 't' Thumb code, 'a' ARM code, 'd' data */
};

/* Where a function's code lies, and its DWARF entry: the start of every inline lookup. */
struct cw_funcrange {
	Dwarf_Addr lo, hi;	/* [lo, hi) in DWARF addresses (before the module bias) */
	Dwarf_Off die;
};

/* A defined symbol by name, for lookups of kernel objects and crash records. */
struct cw_named {
	const char *name;	/* NULL: free slot */
	uint32_t addr, size;
};

/* The functions of one compilation unit, sorted by address; built when first needed. */
struct cw_cuindex {
	Dwarf_Off cu;
	struct cw_funcrange *funcs;
	size_t nr, cap;
};

struct cw_image {
	const char *path;
	int fd;
	Elf *elf;
	Elf_Scn *symtab;
	Dwfl *dwfl;
	struct cw_symbol *syms;
	unsigned int nr_syms;
	struct cw_mapsym *maps;
	unsigned int nr_maps;
	struct cw_region exec[16];	/* executable sections */
	unsigned int nr_exec;
	struct cw_wsec {
		const char *name;
		uint32_t addr, size;
		int nobits;
	} wsec[16];			/* writable sections: what a dump should cover */
	unsigned int nr_wsec;
	struct cw_image_section rosec[16];	/* read-only ones: what a dump must match */
	unsigned int nr_rosec;
	struct cw_image_section datasec[16];	/* writable with initial values: .data */
	unsigned int nr_datasec;
	const uint8_t *build_id;	/* NT_GNU_BUILD_ID's descriptor, when the firmware has one */
	uint32_t build_id_len;
	struct cw_mem mem;		/* all loadable sections */
	uint32_t vectors;
	int have_vectors;
	uint32_t exidx, exidx_size;	/* .ARM.exidx, when the firmware has unwind tables */
	struct cw_named *named;		/* open-addressed hash of defined symbols by name */
	size_t nr_named;		/* slots, a power of two */
	struct cw_cuindex *cus;		/* units an inline lookup has needed so far */
	size_t nr_cus;
	Dwarf *cfi_dwarf;		/* our own handle on .debug_frame, opened on first use */
	Dwarf_CFI *debug_frame, *eh_frame;
	int cfi_opened;
};

static int sym_cmp(const void *a, const void *b)
{
	const struct cw_symbol *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->size > y->size ? -1 : x->size < y->size;	/* sized symbols first */
}

static int map_cmp(const void *a, const void *b)
{
	const struct cw_mapsym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static const char *const vector_names[] = {
	"vectors", "__isr_vector", "__Vectors", "g_pfnVectors", "_vector_table", "_vectors",
	"vector_table", NULL
};

static void image_note_symbol(struct cw_image *img, const GElf_Sym *s, const char *name)
{
	unsigned int i;

	if (name[0] == '$' && (name[1] == 't' || name[1] == 'd' || name[1] == 'a') &&
	    (name[2] == 0 || name[2] == '.')) {
		img->maps[img->nr_maps++] = (struct cw_mapsym){ (uint32_t)s->st_value, name[1] };
		return;
	}
	for (i = 0; vector_names[i]; i++)
		if (!strcmp(name, vector_names[i])) {
			img->vectors = (uint32_t)s->st_value;
			img->have_vectors = 1;
		}
	if (GELF_ST_TYPE(s->st_info) != STT_FUNC || !s->st_value)
		return;
	img->syms[img->nr_syms++] = (struct cw_symbol){
		.name = name, .addr = (uint32_t)s->st_value & ~1u, .size = (uint32_t)s->st_size,
	};
}

static size_t name_hash(const char *s)
{
	size_t h = 5381;

	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h;
}

/*
 * The first definition of each name wins, as a walk of the symbol table in
 * order would find it. RTOS detection looks several names up per dump: a
 * table scan each time cost 80% of a batch run on a 50 000-function firmware.
 */
static void note_named(struct cw_image *img, const GElf_Sym *s, const char *name)
{
	size_t i;

	if (!img->nr_named || s->st_shndx == SHN_UNDEF)
		return;
	for (i = name_hash(name) & (img->nr_named - 1); img->named[i].name;
	     i = (i + 1) & (img->nr_named - 1))
		if (!strcmp(img->named[i].name, name))
			return;
	img->named[i] = (struct cw_named){ name, (uint32_t)s->st_value, (uint32_t)s->st_size };
}

static int image_symbols(struct cw_image *img, Elf_Scn *scn, GElf_Shdr *sh)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t i, n;

	img->symtab = scn;
	if (!data || !sh->sh_entsize)
		return -1;
	n = sh->sh_size / sh->sh_entsize;
	img->syms = calloc(n + 1, sizeof(*img->syms));
	img->maps = calloc(n + 1, sizeof(*img->maps));
	/* At most half full, so every probe sequence ends at a free slot. */
	for (img->nr_named = 16; img->nr_named < 2 * (n + 1); img->nr_named *= 2)
		;
	img->named = calloc(img->nr_named, sizeof(*img->named));
	if (!img->syms || !img->maps || !img->named)
		return -1;
	for (i = 0; i < n; i++) {
		GElf_Sym s;
		const char *name;

		if (!gelf_getsym(data, (int)i, &s))
			continue;
		name = elf_strptr(img->elf, sh->sh_link, s.st_name);
		if (name && *name) {
			image_note_symbol(img, &s, name);
			note_named(img, &s, name);
		}
	}
	qsort(img->syms, img->nr_syms, sizeof(*img->syms), sym_cmp);
	qsort(img->maps, img->nr_maps, sizeof(*img->maps), map_cmp);
	return 0;
}

/* The GNU build-id among a note section's notes (name "GNU", type NT_GNU_BUILD_ID). */
static void image_build_id(struct cw_image *img, const Elf_Data *data)
{
	const uint8_t *p = data->d_buf;
	size_t off = 0;

	while (data->d_size - off >= 12) {
		uint32_t namesz, descsz, type;
		size_t desc;

		memcpy(&namesz, p + off, 4);
		memcpy(&descsz, p + off + 4, 4);
		memcpy(&type, p + off + 8, 4);
		desc = off + 12 + ((namesz + 3ul) & ~3ul);
		if (namesz > data->d_size || descsz > data->d_size || desc + descsz > data->d_size)
			return;
		if (type == NT_GNU_BUILD_ID && namesz == 4 && !memcmp(p + off + 12, "GNU", 4)) {
			img->build_id = p + desc;
			img->build_id_len = descsz;
			return;
		}
		off = desc + ((descsz + 3ul) & ~3ul);
	}
}

static int image_section(struct cw_image *img, Elf_Scn *scn, GElf_Shdr *sh)
{
	Elf_Data *data;

	size_t shstrndx;

	if (sh->sh_type == SHT_SYMTAB)
		return image_symbols(img, scn, sh);
	if ((sh->sh_flags & (SHF_ALLOC | SHF_WRITE)) == (SHF_ALLOC | SHF_WRITE) && sh->sh_size &&
	    img->nr_wsec < ARRAY_SIZE(img->wsec) && !elf_getshdrstrndx(img->elf, &shstrndx))
		img->wsec[img->nr_wsec++] = (struct cw_wsec){
			elf_strptr(img->elf, shstrndx, sh->sh_name), (uint32_t)sh->sh_addr,
			(uint32_t)sh->sh_size, sh->sh_type == SHT_NOBITS
		};
	if (!(sh->sh_flags & SHF_ALLOC) || sh->sh_type == SHT_NOBITS || !sh->sh_size)
		return 0;
	if (sh->sh_type == SHT_ARM_EXIDX) {
		img->exidx = (uint32_t)sh->sh_addr;
		img->exidx_size = (uint32_t)sh->sh_size;
	}
	data = elf_rawdata(scn, NULL);
	if (!data || data->d_size < sh->sh_size)
		return -1;
	if (sh->sh_type == SHT_NOTE && !img->build_id)
		image_build_id(img, data);
	if (!(sh->sh_flags & SHF_WRITE) && img->nr_rosec < ARRAY_SIZE(img->rosec) &&
	    !elf_getshdrstrndx(img->elf, &shstrndx))
		img->rosec[img->nr_rosec++] = (struct cw_image_section){
			elf_strptr(img->elf, shstrndx, sh->sh_name), (uint32_t)sh->sh_addr,
			(uint32_t)sh->sh_size, data->d_buf
		};
	else if ((sh->sh_flags & SHF_WRITE) && img->nr_datasec < ARRAY_SIZE(img->datasec) &&
		 !elf_getshdrstrndx(img->elf, &shstrndx))
		img->datasec[img->nr_datasec++] = (struct cw_image_section){
			elf_strptr(img->elf, shstrndx, sh->sh_name), (uint32_t)sh->sh_addr,
			(uint32_t)sh->sh_size, data->d_buf
		};
	if (cw_mem_add(&img->mem, (uint32_t)sh->sh_addr, (uint32_t)sh->sh_size, data->d_buf,
		       "image"))
		return -1;
	if ((sh->sh_flags & SHF_EXECINSTR) && img->nr_exec < 16)
		img->exec[img->nr_exec++] = (struct cw_region){
			(uint32_t)sh->sh_addr, (uint32_t)sh->sh_size, data->d_buf, "image"
		};
	return 0;
}

static Dwfl *image_dwfl(const char *path)
{
	static const Dwfl_Callbacks cb = {
		.find_debuginfo = dwfl_standard_find_debuginfo,
		.section_address = dwfl_offline_section_address,
	};
	Dwfl *dwfl = dwfl_begin(&cb);

	if (!dwfl)
		return NULL;
	if (!dwfl_report_offline(dwfl, "firmware", path, -1)) {
		dwfl_end(dwfl);
		return NULL;
	}
	dwfl_report_end(dwfl, NULL, NULL);
	return dwfl;
}

struct cw_image *cw_image_open(const char *path, struct cw_error *err)
{
	struct cw_image *img = calloc(1, sizeof(*img));
	Elf_Scn *scn = NULL;
	struct stat st;
	GElf_Ehdr eh;

	if (!img)
		return NULL;
	img->path = path;
	elf_version(EV_CURRENT);
	img->fd = open(path, O_RDONLY);
	if (img->fd < 0) {
		cw_fail(err, path, -1, "cannot open firmware image");
		goto fail;
	}
	img->elf = elf_begin(img->fd, ELF_C_READ, NULL);
	if (!img->elf || !gelf_getehdr(img->elf, &eh) || eh.e_ident[EI_CLASS] != ELFCLASS32 ||
	    eh.e_machine != EM_ARM) {
		cw_fail(err, path, 0, "not an ELF32 ARM firmware image: %s", elf_errmsg(-1));
		goto fail;
	}
	/* libelf reads a cut copy's missing section headers as none: say it is cut. */
	if (!fstat(img->fd, &st) && eh.e_shoff + (uint64_t)eh.e_shnum * eh.e_shentsize >
	    (uint64_t)st.st_size) {
		cw_fail(err, path, -1, "truncated: %llu bytes, but its section headers end at "
			"%llu; copy the whole file the linker wrote",
			(unsigned long long)st.st_size,
			(unsigned long long)(eh.e_shoff + (uint64_t)eh.e_shnum * eh.e_shentsize));
		goto fail;
	}
	while ((scn = elf_nextscn(img->elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || image_section(img, scn, &sh)) {
			cw_fail(err, path, (long)eh.e_shoff, "bad section %zu", elf_ndxscn(scn));
			goto fail;
		}
	}
	if (eh.e_type == ET_CORE || !img->nr_exec) {
		cw_fail(err, path, 16, "not a firmware image: %s",
			eh.e_type == ET_CORE ? "it is a core file" : "no executable section");
		goto fail;
	}
	if (!img->have_vectors) {
		img->vectors = img->exec[0].addr;
		img->have_vectors = 1;
	}
	img->dwfl = image_dwfl(path);
	return img;
fail:
	cw_image_close(img);
	return NULL;
}

void cw_image_close(struct cw_image *img)
{
	if (!img)
		return;
	if (img->dwfl)
		dwfl_end(img->dwfl);
	if (img->eh_frame)
		dwarf_cfi_end(img->eh_frame);
	if (img->cfi_dwarf)
		dwarf_end(img->cfi_dwarf);
	cw_mem_free(&img->mem);
	free(img->syms);
	free(img->maps);
	free(img->named);
	while (img->nr_cus--)
		free(img->cus[img->nr_cus].funcs);
	free(img->cus);
	if (img->elf)
		elf_end(img->elf);
	if (img->fd >= 0)
		close(img->fd);
	free(img);
}

/* Appends the image's sections behind whatever the dump holds. */
int cw_image_add_memory(struct cw_image *img, struct cw_mem *mem)
{
	unsigned int i;

	for (i = 0; i < img->mem.nr; i++) {
		const struct cw_region *r = &img->mem.regions[i];

		if (cw_mem_add(mem, r->addr, r->size, r->data, r->origin))
			return -1;
	}
	return 0;
}

/* The first byte at or after addr, below hi, that no region of the dump holds; hi if none. */
static uint32_t first_missing(const struct cw_mem *mem, uint32_t addr, uint32_t hi)
{
	unsigned int i;
	int moved = 1;

	while (addr < hi && moved) {
		moved = 0;
		for (i = 0; i < mem->nr; i++) {
			const struct cw_region *r = &mem->regions[i];

			if (!strcmp(r->origin, "dump") && addr >= r->addr &&
			    addr - r->addr < r->size) {
				addr = r->size - (addr - r->addr) >= hi - addr ? hi :
				       r->addr + r->size;
				moved = 1;
			}
		}
	}
	return addr;
}

/* The first byte at or after addr, below hi, that the dump holds; hi if none. */
static uint32_t first_present(const struct cw_mem *mem, uint32_t addr, uint32_t hi)
{
	uint32_t best = hi;
	unsigned int i;

	for (i = 0; i < mem->nr; i++) {
		const struct cw_region *r = &mem->regions[i];

		if (strcmp(r->origin, "dump") || !r->size)
			continue;
		if (addr >= r->addr && addr - r->addr < r->size)
			return addr;
		if (r->addr > addr && r->addr < best)
			best = r->addr;
	}
	return best;
}

/*
 * Which parts of the firmware's writable sections the dump lacks: their
 * contents are unknown (.bss), or the image's initial values stand in for
 * them (.data), which a running program has usually changed. Listed so a
 * reader knows which answers rest on memory nobody saved.
 */
void cw_image_gaps(const struct cw_image *img, struct cw_dump *dump)
{
	unsigned int i;

	dump->nr_gaps = 0;
	for (i = 0; i < img->nr_wsec; i++) {
		const struct cw_wsec *w = &img->wsec[i];
		uint32_t end = w->addr + w->size < w->addr ? UINT32_MAX : w->addr + w->size;
		uint32_t lo = w->addr, hi;

		/* Each pass moves lo forward: at most one gap per dump region, plus one. */
		while (lo < end && dump->nr_gaps < CW_MAX_GAPS) {
			lo = first_missing(&dump->mem, lo, end);
			if (lo >= end)
				break;
			hi = first_present(&dump->mem, lo, end);
			dump->gaps[dump->nr_gaps++] = (struct cw_gap){
				w->name ? w->name : "?", lo, hi, !w->nobits
			};
			lo = hi;
		}
	}
}

/* Where .ARM.exidx is: its words are read through the image's memory like code. */
int cw_image_exidx(const struct cw_image *img, uint32_t *addr, uint32_t *size)
{
	if (!img || !img->exidx_size)
		return -1;
	*addr = img->exidx;
	*size = img->exidx_size;
	return 0;
}

/*
 * The call frame information, read on first use: most runs of crashwalk on
 * firmware without CFI never pay for it. Either may be NULL.
 */
void cw_image_cfi(struct cw_image *img, Dwarf_CFI **debug_frame, Dwarf_CFI **eh_frame)
{
	if (!img->cfi_opened) {
		img->cfi_opened = 1;
		img->cfi_dwarf = dwarf_begin_elf(img->elf, DWARF_C_READ, NULL);
		if (img->cfi_dwarf)
			img->debug_frame = dwarf_getcfi(img->cfi_dwarf);
		img->eh_frame = dwarf_getcfi_elf(img->elf);
	}
	*debug_frame = img->debug_frame;
	*eh_frame = img->eh_frame;
}

const struct cw_symbol *cw_image_func(const struct cw_image *img, uint32_t addr)
{
	unsigned int lo = 0, hi = img->nr_syms, k;

	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;

		if (img->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* lo - 1 is the last symbol at or below addr; aliases and nesting sit just before it. */
	for (k = lo; k > 0 && lo - k < 8; k--) {
		const struct cw_symbol *s = &img->syms[k - 1];

		if (s->size && addr - s->addr < s->size)
			return s;
	}
	/* Hand-written code without .size: trust the nearest label. */
	if (lo > 0 && !img->syms[lo - 1].size)
		return &img->syms[lo - 1];
	return NULL;
}

/* The last mapping symbol ($t, $d, $a) at or below addr, NULL if none. */
static const struct cw_mapsym *map_at(const struct cw_image *img, uint32_t addr)
{
	unsigned int lo = 0, hi = img->nr_maps;

	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;

		if (img->maps[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &img->maps[lo - 1] : NULL;
}

int cw_image_is_code(const struct cw_image *img, uint32_t addr)
{
	const struct cw_mapsym *m;
	unsigned int i;
	int in_exec = 0;

	for (i = 0; i < img->nr_exec; i++)
		if (addr >= img->exec[i].addr && addr - img->exec[i].addr < img->exec[i].size)
			in_exec = 1;
	if (!in_exec)
		return 0;
	/* Literal pools ($d) inside a text section are not code. */
	m = map_at(img, addr);
	return !m || m->kind == 't';
}

#define MAX_SWEEP	0x10000u	/* bytes decoded to find whether addr starts an instruction */

/*
 * Whether an instruction of the firmware starts at addr: 1 yes, 0 no, -1 not
 * known (not code, or too far from where the decoding can start). Thumb
 * instructions are decoded by length only, from the function's start or the
 * last $t mapping symbol, whichever is nearer: literal pools end at a $t.
 */
int cw_image_insn_start(const struct cw_image *img, uint32_t addr)
{
	const struct cw_symbol *fn = cw_image_func(img, addr);
	const struct cw_mapsym *m = map_at(img, addr);
	uint32_t a, from;
	uint16_t hw;

	if ((addr & 1) || !fn || !cw_image_is_code(img, addr))
		return -1;
	from = m && m->addr > fn->addr ? m->addr : fn->addr;
	if (from > addr || addr - from > MAX_SWEEP)
		return -1;
	for (a = from; a < addr; a += cw_thumb_is_32bit(hw) ? 4 : 2)
		if (cw_mem_read(&img->mem, a, &hw, 2))
			return -1;
	return a == addr;
}

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

/* Address and size of the symbol called name (any type: a crash record is data). */
int cw_image_object(const struct cw_image *img, const char *name, uint32_t *addr, uint32_t *size)
{
	size_t i;

	if (!img->nr_named)
		return -1;
	for (i = name_hash(name) & (img->nr_named - 1); img->named[i].name;
	     i = (i + 1) & (img->nr_named - 1))
		if (!strcmp(img->named[i].name, name)) {
			*addr = img->named[i].addr;
			if (size)
				*size = img->named[i].size;
			return 0;
		}
	return -1;
}

/* The size of a sized symbol defined at exactly addr (a static buffer); -1 if none. */
int cw_image_object_at(const struct cw_image *img, uint32_t addr, uint32_t *size)
{
	size_t i;

	for (i = 0; i < img->nr_named; i++)
		if (img->named[i].name && img->named[i].addr == addr && img->named[i].size) {
			*size = img->named[i].size;
			return 0;
		}
	return -1;
}

int cw_image_lookup(const struct cw_image *img, const char *name, uint32_t *addr)
{
	return cw_image_object(img, name, addr, NULL);
}

const char *cw_image_path(const struct cw_image *img)
{
	return img->path;
}

/* --regs is checked when given, whether a dump needs it or not. */
int cw_image_check_record(const struct cw_image *img, const char *spec, struct cw_error *err)
{
	const char *colon = strchr(spec, ':');
	char sym[128];
	uint32_t addr;

	if (!colon || colon == spec || !colon[1] || (size_t)(colon - spec) >= sizeof(sym)) {
		snprintf(err->msg, sizeof(err->msg), "--regs '%s': expected SYMBOL:LAYOUT, e.g. "
			 "crash_record:r0,r1,r2,r3,r12,lr,pc,xpsr", spec);
		return -1;
	}
	memcpy(sym, spec, colon - spec);
	sym[colon - spec] = '\0';
	if (cw_image_lookup(img, sym, &addr)) {
		snprintf(err->msg, sizeof(err->msg), "--regs '%s': no symbol '%s' in %s", spec, sym,
			 img->path);
		return -1;
	}
	return 0;
}

uint32_t cw_image_vector(const struct cw_image *img, unsigned int n, int *ok)
{
	uint32_t v = 0;

	*ok = img->have_vectors && !cw_mem_read32(&img->mem, img->vectors + 4 * n, &v);
	return v;
}

/* The firmware's own loadable contents, as the ELF holds them (not the dump's). */
const struct cw_mem *cw_image_contents(const struct cw_image *img)
{
	return &img->mem;
}

/* The n-th loadable read-only section (code, constants, the vector table), NULL past the last. */
const struct cw_image_section *cw_image_rosec(const struct cw_image *img, unsigned int n)
{
	return n < img->nr_rosec ? &img->rosec[n] : NULL;
}

/* The n-th section the firmware loads into writable memory with its initial values. */
const struct cw_image_section *cw_image_datasec(const struct cw_image *img, unsigned int n)
{
	return n < img->nr_datasec ? &img->datasec[n] : NULL;
}

/* The name of the data object that holds addr, or NULL. */
const char *cw_image_object_name(const struct cw_image *img, uint32_t addr)
{
	size_t i;

	for (i = 0; i < img->nr_named; i++)
		if (img->named[i].name && addr - img->named[i].addr < img->named[i].size &&
		    !cw_image_is_code(img, img->named[i].addr))
			return img->named[i].name;
	return NULL;
}

/* The firmware's GNU build-id; 0 bytes when it has none. */
uint32_t cw_image_build_id(const struct cw_image *img, const uint8_t **id)
{
	*id = img->build_id;
	return img->build_id_len;
}

int cw_image_is_handler(const struct cw_image *img, uint32_t func_addr)
{
	unsigned int n;
	int ok;

	for (n = 2; n < VECTOR_SCAN; n++) {
		uint32_t v = cw_image_vector(img, n, &ok);

		if (!ok)
			break;
		if (v && (v & ~1u) == func_addr)
			return 1;
	}
	return 0;
}

/* ---- struct layouts from DWARF (the RTOS model's kernel objects) ---- */

static int first_module(Dwfl_Module *mod, void **user, const char *name, Dwarf_Addr base,
			void *arg)
{
	(void)user;
	(void)name;
	(void)base;
	*(Dwfl_Module **)arg = mod;
	return DWARF_CB_ABORT;
}

/* The firmware's DWARF, or NULL when it has none. */
static Dwarf *image_dwarf(const struct cw_image *img)
{
	Dwfl_Module *mod = NULL;
	Dwarf_Addr bias;

	if (!img->dwfl || dwfl_getmodules(img->dwfl, first_module, &mod, 0) < 0 || !mod)
		return NULL;
	return dwfl_module_getdwarf(mod, &bias);
}

int cw_image_has_dwarf(const struct cw_image *img)
{
	return image_dwarf(img) != NULL;
}

static int die_is_named(Dwarf_Die *die, const char *name)
{
	const char *n = dwarf_diename(die);

	return n && !strcmp(n, name);
}

/* A struct (or the struct behind a typedef) defined, not only declared, at a CU's top level. */
static int find_struct(Dwarf *dw, const char *name, Dwarf_Die *out)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	if (!dw)
		return -1;
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, child;

		if (dwarf_offdie(dw, off + hsize, &cu) && dwarf_child(&cu, &child) == 0) {
			do {
				int tag = dwarf_tag(&child);

				if ((tag == DW_TAG_structure_type || tag == DW_TAG_typedef) &&
				    die_is_named(&child, name) &&
				    !dwarf_hasattr(&child, DW_AT_declaration) &&
				    dwarf_peel_type(&child, out) == 0 &&
				    dwarf_tag(out) == DW_TAG_structure_type &&
				    dwarf_hasattr(out, DW_AT_byte_size))
					return 0;
			} while (dwarf_siblingof(&child, &child) == 0);
		}
		off = next;
	}
	return -1;
}

static int member_type(Dwarf_Die *member, Dwarf_Die *type)
{
	Dwarf_Attribute a;

	return dwarf_formref_die(dwarf_attr(member, DW_AT_type, &a), type) &&
	       dwarf_peel_type(type, type) == 0 ? 0 : -1;
}

static uint32_t member_offset(Dwarf_Die *member)
{
	Dwarf_Attribute a;
	Dwarf_Word v = 0;

	if (dwarf_attr(member, DW_AT_data_member_location, &a))
		dwarf_formudata(&a, &v);
	return (uint32_t)v;
}

/* One member of a struct or union, looking into anonymous members as C does. */
static int find_member(Dwarf_Die *agg, const char *name, size_t len, uint32_t *off,
		       Dwarf_Die *type)
{
	Dwarf_Die m, t;

	if (dwarf_child(agg, &m))
		return -1;
	do {
		const char *n;

		if (dwarf_tag(&m) != DW_TAG_member)
			continue;
		n = dwarf_diename(&m);
		if (n && strlen(n) == len && !strncmp(n, name, len)) {
			*off = member_offset(&m);
			return member_type(&m, type);
		}
		if (!n && !member_type(&m, &t) &&
		    !find_member(&t, name, len, off, type)) {
			*off += member_offset(&m);
			return 0;
		}
	} while (dwarf_siblingof(&m, &m) == 0);
	return -1;
}

/*
 * Offset (and size, when size is not NULL) of a dotted member path such as
 * "callee_saved.psp" in a struct the firmware's DWARF defines.
 */
int cw_image_struct_member(const struct cw_image *img, const char *type, const char *path,
			   uint32_t *off, uint32_t *size)
{
	Dwarf_Die agg, t;
	uint32_t total = 0, o;
	const char *p = path;

	if (find_struct(image_dwarf(img), type, &agg))
		return -1;
	for (;;) {
		size_t len = strcspn(p, ".");

		if (find_member(&agg, p, len, &o, &t))
			return -1;
		total += o;
		if (!p[len])
			break;
		agg = t;
		p += len + 1;
	}
	*off = total;
	if (size) {
		Dwarf_Word sz;

		*size = dwarf_aggregate_size(&t, &sz) == 0 ? (uint32_t)sz : 4;
	}
	return 0;
}

int cw_image_struct_size(const struct cw_image *img, const char *type, uint32_t *size)
{
	Dwarf_Die agg;
	Dwarf_Word sz;

	if (find_struct(image_dwarf(img), type, &agg) || dwarf_aggregate_size(&agg, &sz))
		return -1;
	*size = (uint32_t)sz;
	return 0;
}

/*
 * An array variable's element type, its size and its outer dimension (1 for
 * a one-dimensional array).
 */
static int array_element(Dwarf_Die *var, Dwarf_Die *elem, uint32_t *size, uint32_t *rows)
{
	Dwarf_Die arr, sub;
	Dwarf_Attribute a;
	Dwarf_Word n;
	unsigned int dims = 0;

	/* A definition apart from its declaration has the type on the declaration. */
	if (!dwarf_formref_die(dwarf_attr_integrate(var, DW_AT_type, &a), &arr) ||
	    dwarf_peel_type(&arr, &arr) || dwarf_tag(&arr) != DW_TAG_array_type ||
	    dwarf_aggregate_size(&arr, &n) || !n ||
	    !dwarf_formref_die(dwarf_attr(&arr, DW_AT_type, &a), elem) ||
	    dwarf_peel_type(elem, elem) || dwarf_child(&arr, &sub))
		return -1;
	*size = (uint32_t)n;
	*rows = 1;
	do {
		if (dwarf_tag(&sub) != DW_TAG_subrange_type)
			continue;
		if (!dims++ && dwarf_attr(&sub, DW_AT_upper_bound, &a) && !dwarf_formudata(&a, &n))
			*rows = (uint32_t)n + 1;
	} while (dwarf_siblingof(&sub, &sub) == 0);
	if (dims < 2)
		*rows = 1;
	return 0;
}

/* A variable's name, on its DIE or on the declaration its definition names. */
static const char *var_name(Dwarf_Die *var)
{
	Dwarf_Attribute a;

	return dwarf_formstring(dwarf_attr_integrate(var, DW_AT_name, &a));
}

/* Where a variable is, when its location is a plain address (DW_OP_addr). */
static int variable_address(Dwarf_Die *var, uint32_t *addr)
{
	Dwarf_Attribute a;
	Dwarf_Op *expr;
	size_t len;

	if (!dwarf_attr(var, DW_AT_location, &a) || dwarf_getlocation(&a, &expr, &len) ||
	    len != 1 || expr[0].atom != DW_OP_addr)
		return -1;
	*addr = (uint32_t)expr[0].number;
	return 0;
}

/*
 * The variables, at a compilation unit's top level, that are arrays (one- or
 * two-dimensional) of the struct named elem: objects that only their type
 * marks, as Zephyr's stack objects (their output section holds any other
 * no-init data too). Returns how many were stored in out.
 */
unsigned int cw_image_objects_of_type(const struct cw_image *img, const char *elem,
				      struct cw_typed_object *out, unsigned int max)
{
	Dwarf *dw = image_dwarf(img);
	Dwarf_Off off = 0, next;
	unsigned int nr = 0;
	size_t hsize;

	while (dw && nr < max && dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, var, el;
		uint32_t addr, size, rows;

		if (dwarf_offdie(dw, off + hsize, &cu) && dwarf_child(&cu, &var) == 0) {
			do {
				if (dwarf_tag(&var) != DW_TAG_variable || !var_name(&var) ||
				    variable_address(&var, &addr) ||
				    array_element(&var, &el, &size, &rows) ||
				    dwarf_tag(&el) != DW_TAG_structure_type ||
				    !die_is_named(&el, elem))
					continue;
				out[nr++] = (struct cw_typed_object){ var_name(&var), addr,
								      size, rows };
			} while (nr < max && dwarf_siblingof(&var, &var) == 0);
		}
		off = next;
	}
	return nr;
}
