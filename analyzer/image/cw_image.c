// SPDX-License-Identifier: GPL-2.0
/*
 * cw_image.c - the firmware ELF: checked before libelf reads it, then its
 * loadable sections as memory, function symbols, $t/$d mapping symbols, the
 * vector table and the handles on its DWARF.
 *
 * libelf reads sections and symbols; libdwfl opens the DWARF that line info
 * (image/cw_lines.c) and struct layouts (image/cw_dwarf_types.c) are read from, so
 * no DWARF is parsed by hand.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <gelf.h>
#include <libelf.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cw_sort.h"
#include "dump/cw_dump.h"
#include "image/cw_image_impl.h"
#include "decode/cw_thumb.h"

#define VECTOR_SCAN	256	/* entries examined when asking "is this an exception handler" */

/* Sort keys: symbols and mapping symbols by address. */
static uint32_t sym_key(const void *p)
{
	return ((const struct cw_symbol *)p)->addr;
}

static uint32_t map_key(const void *p)
{
	return ((const struct cw_mapsym *)p)->addr;
}

/*
 * Of the symbols at one address the sized ones go first, the largest first,
 * which lookups then find; such runs are a few symbols long.
 */
static void sort_aliases(struct cw_symbol *syms, size_t n)
{
	size_t i, j;

	for (i = 1; i < n; i++) {
		struct cw_symbol s = syms[i];

		for (j = i; j > 0 && syms[j - 1].addr == s.addr && syms[j - 1].size < s.size; j--)
			syms[j] = syms[j - 1];
		syms[j] = s;
	}
}

static const char *const vector_names[] = {
	"vectors", "__isr_vector", "__Vectors", "g_pfnVectors", "_vector_table", "_vectors",
	"vector_table", NULL
};

/* ARM ELF mapping symbols: $t, $a and $d, alone or with a suffix after a dot. */
static int is_mapping_symbol(const char *name)
{
	return name[0] == '$' && (name[1] == 't' || name[1] == 'd' || name[1] == 'a') &&
	       (name[2] == 0 || name[2] == '.');
}

/* A symbol other than a mapping symbol: the vector table, or a function. */
static void image_note_symbol(struct cw_image *img, const Elf32_Sym *s, const char *name)
{
	unsigned int i;

	/* Every name of a vector table starts with one of these: most symbols skip the list. */
	for (i = 0; (name[0] == 'v' || name[0] == '_' || name[0] == 'g') && vector_names[i]; i++)
		if (!strcmp(name, vector_names[i])) {
			img->vectors = s->st_value;
			img->have_vectors = 1;
		}
	if (ELF32_ST_TYPE(s->st_info) != STT_FUNC || !s->st_value)
		return;
	img->syms[img->nr_syms++] = (struct cw_symbol){
		.name = name, .addr = s->st_value & ~1u, .size = s->st_size,
	};
}

/*
 * djb2, its bits then mixed: names that differ in a digit or two (bf_1234,
 * bf_1235) left djb2's low bits clustered, seven string compares an insert.
 */
static uint32_t name_hash(const char *s)
{
	uint64_t h = 5381;

	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return (uint32_t)((h * 0x9e3779b97f4a7c15ull) >> 32);
}

/* The symbol in a slot of the name hash. */
static const Elf32_Sym *named_sym(const struct cw_image *img, size_t slot)
{
	return &img->elfsyms[img->named[slot]];
}

static const char *named_name(const struct cw_image *img, size_t slot)
{
	return img->strtab + named_sym(img, slot)->st_name;
}

/*
 * The first definition of each name wins, as a walk of the symbol table in
 * order would find it. RTOS detection looks several names up per dump: a
 * table scan each time cost 80% of a batch run on a 50 000-function firmware.
 * A slot holds the symbol's index, not a copy: a cold run touches every page
 * of the table, and 24-byte slots were 768 of its 2 700 page faults.
 */
static void note_named(struct cw_image *img, const Elf32_Sym *s, const char *name)
{
	size_t i;

	if (!img->nr_named || s->st_shndx == SHN_UNDEF)
		return;
	uint32_t h = name_hash(name);

	for (i = h & (img->nr_named - 1); img->named[i]; i = (i + 1) & (img->nr_named - 1))
		if (!strcmp(named_name(img, i), name))
			return;
	img->named[i] = (uint32_t)(s - img->elfsyms);
}

/*
 * Whether section shndx is loaded (SHF_ALLOC): a mapping symbol in another
 * (an assembler's $d in .debug_frame, at offsets from 0) says nothing of the
 * code at the same address. The last answer is kept: symbols come grouped.
 */
static int loaded_section(const struct cw_image *img, size_t shndx, size_t *last, int *loaded)
{
	GElf_Shdr sh;
	Elf_Scn *scn;

	if (shndx != *last) {
		*last = shndx;
		scn = shndx && shndx < SHN_LORESERVE ? elf_getscn(img->elf, shndx) : NULL;
		*loaded = scn && gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_ALLOC);
	}
	return *loaded;
}

/*
 * The symbol table read in place: libelf has already converted it to the
 * host's Elf32_Sym, and the names lie in the string table it links to.
 * gelf_getsym() and elf_strptr() for each symbol were a sixth of a cold run on
 * a firmware of 50 000 functions. A first pass counts the kinds, so the tables
 * are sized to what they hold (the mapping symbols are two thirds of them).
 */
static int image_symbols(struct cw_image *img, Elf_Scn *scn, GElf_Shdr *sh)
{
	Elf_Scn *strscn = elf_getscn(img->elf, sh->sh_link);
	Elf_Data *data = elf_getdata(scn, NULL);
	Elf_Data *strs = strscn ? elf_getdata(strscn, NULL) : NULL;
	size_t i, n, nr_maps = 0, nr_other = 0, last = SIZE_MAX;
	const Elf32_Sym *syms;
	int loaded = 0;
	const char *str;

	img->symtab = scn;
	if (!data || data->d_type != ELF_T_SYM || !strs || !strs->d_size || !data->d_buf)
		return -1;
	n = data->d_size / sizeof(*syms);
	syms = data->d_buf;
	str = strs->d_buf;
	/* A string table that does not end its last name would let a name run off its end. */
	if (str[strs->d_size - 1] || n > UINT32_MAX)
		return -1;
	img->elfsyms = syms;
	img->strtab = str;
	for (i = 0; i < n; i++) {
		const char *name = str + syms[i].st_name;

		if (syms[i].st_name >= strs->d_size || !*name)
			continue;
		if (is_mapping_symbol(name))
			nr_maps++;
		else
			nr_other++;
	}
	img->syms = calloc(nr_other + 1, sizeof(*img->syms));
	img->maps = calloc(nr_maps + 1, sizeof(*img->maps));
	/* At most half full, so every probe sequence ends at a free slot. */
	for (img->nr_named = 16; img->nr_named < 2 * (nr_other + 1); img->nr_named *= 2)
		;
	img->named = calloc(img->nr_named, sizeof(*img->named));
	if (!img->syms || !img->maps || !img->named)
		return -1;
	for (i = 0; i < n; i++) {
		const char *name = str + syms[i].st_name;

		if (syms[i].st_name >= strs->d_size || !*name)
			continue;
		if (is_mapping_symbol(name)) {
			if (loaded_section(img, syms[i].st_shndx, &last, &loaded))
				img->maps[img->nr_maps++] =
					(struct cw_mapsym){ syms[i].st_value, name[1] };
			continue;
		}
		image_note_symbol(img, &syms[i], name);
		note_named(img, &syms[i], name);
	}
	if (cw_sort_by_key(img->syms, img->nr_syms, sizeof(*img->syms), sym_key) ||
	    cw_sort_by_key(img->maps, img->nr_maps, sizeof(*img->maps), map_key))
		return -1;
	sort_aliases(img->syms, img->nr_syms);
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

static int __attribute__((format(printf, 2, 3)))
image_refuse(struct cw_error *err, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return -1;
}

/*
 * The file, checked before libelf sees it: a missing file gives the errno
 * text, a file that is no ELF says so, instead of libelf's "invalid `Elf'
 * handle".
 */
static int image_check_file(const char *path, struct cw_error *err)
{
	unsigned char id[EI_NIDENT + 4];
	struct stat st;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return image_refuse(err, "%s: cannot open firmware image: %s", path,
				    strerror(errno));
	if (!fstat(fd, &st) && S_ISDIR(st.st_mode)) {
		close(fd);
		return image_refuse(err, "%s: is a directory, expected a firmware ELF image",
				    path);
	}
	n = read(fd, id, sizeof(id));
	close(fd);
	if (n < 0)
		return image_refuse(err, "%s: %s", path, strerror(errno));
	if (n == 0)
		return image_refuse(err, "%s: empty file, expected a firmware ELF image", path);
	if (n < SELFMAG || memcmp(id, ELFMAG, SELFMAG))
		return image_refuse(err, "%s: offset 0: not an ELF file; the firmware image is "
				    "the ELF the linker wrote", path);
	if (n <= EI_CLASS || id[EI_CLASS] != ELFCLASS32)
		return image_refuse(err, "%s: offset %d: a 64-bit ELF, expected a 32-bit ARM "
				    "firmware image", path, EI_CLASS);
	if (n < EI_NIDENT + 4 || id[EI_DATA] != ELFDATA2LSB ||
	    (id[EI_NIDENT + 2] | id[EI_NIDENT + 3] << 8) != EM_ARM)
		return image_refuse(err, "%s: offset %d: not a little-endian ARM ELF "
				    "(e_machine %u)", path, EI_NIDENT + 2,
				    n < EI_NIDENT + 4 ? 0 : id[EI_NIDENT + 2] | id[EI_NIDENT + 3] << 8);
	return 0;
}

struct cw_image *cw_image_open(const char *path, struct cw_error *err)
{
	struct cw_image *img;
	Elf_Scn *scn = NULL;
	struct stat st;
	GElf_Ehdr eh;

	if (image_check_file(path, err))
		return NULL;
	img = calloc(1, sizeof(*img));
	if (!img)
		return NULL;
	img->path = path;
	elf_version(EV_CURRENT);
	img->fd = open(path, O_RDONLY);
	if (img->fd < 0) {
		cw_fail(err, path, -1, "cannot open firmware image");
		goto fail;
	}
	img->elf = elf_begin(img->fd, ELF_C_READ_MMAP, NULL);
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
		cw_cuindex_free(&img->cus[img->nr_cus]);
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
	unsigned int lo, k;

	lo = cw_sort_bound(img->syms, 0, img->nr_syms, addr, 1, sizeof(*img->syms), sym_key);
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
	size_t lo = cw_sort_bound(img->maps, 0, img->nr_maps, addr, 1, sizeof(*img->maps),
				  map_key);

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
	if (m && m->kind != 't')
		return 0;
	/*
	 * GNU as marks every input section, data too; LLVM's assembler marks only
	 * executable ones. So in a clang build the data a linker script puts in
	 * an executable output section (a vector table at 0, .rodata after the
	 * code) has no $d: there, where mapping symbols exist, what no function
	 * covers is not code.
	 */
	return !img->nr_maps || cw_image_func(img, addr);
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

/* Address and size of the symbol called name (any type: a register block is data). */
int cw_image_object(const struct cw_image *img, const char *name, uint32_t *addr, uint32_t *size)
{
	size_t i;
	uint32_t h;

	if (!img->nr_named)
		return -1;
	h = name_hash(name);
	for (i = h & (img->nr_named - 1); img->named[i]; i = (i + 1) & (img->nr_named - 1))
		if (!strcmp(named_name(img, i), name)) {
			*addr = named_sym(img, i)->st_value;
			if (size)
				*size = named_sym(img, i)->st_size;
			return 0;
		}
	return -1;
}

/* The size of a sized symbol defined at exactly addr (a static buffer); -1 if none. */
int cw_image_object_at(const struct cw_image *img, uint32_t addr, uint32_t *size)
{
	size_t i;

	for (i = 0; i < img->nr_named; i++)
		if (img->named[i] && named_sym(img, i)->st_value == addr &&
		    named_sym(img, i)->st_size) {
			*size = named_sym(img, i)->st_size;
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
		if (img->named[i] && addr - named_sym(img, i)->st_value < named_sym(img, i)->st_size &&
		    !cw_image_is_code(img, named_sym(img, i)->st_value))
			return named_name(img, i);
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
