/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cw_image_impl.h - struct cw_image's fields, for the image's own files only
 * (image/cw_image.c, image/cw_lines.c, image/cw_dwarf_types.c); every other stage sees
 * an opaque handle through cw_image.h.
 */
#ifndef CW_IMAGE_IMPL_H
#define CW_IMAGE_IMPL_H

#include <gelf.h>
#include <libelf.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include "image/cw_image.h"

struct cw_mapsym {
	uint32_t addr;
	char kind;		/* 't' Thumb code, 'a' ARM code, 'd' data */
};

/* Where a function's code lies, and its DWARF entry: the start of every inline lookup. */
struct cw_funcrange {
	Dwarf_Addr lo, hi;	/* [lo, hi) in DWARF addresses (before the module bias) */
	Dwarf_Off die;
};

/*
 * A row of a line program the reader can resume after: its registers, and
 * the opcodes that follow it. Its address is above the row's before it, so
 * every row at that address or above comes after it.
 */
struct cw_linemark {
	uint32_t addr, file;
	int64_t line;
	int stmt;
	const uint8_t *ops;
};

/* One sequence of a unit's line program: [lo, hi), and its marks. */
struct cw_lineseq {
	uint32_t lo, hi;
	uint32_t reach;		/* the highest hi of this and every sequence before it */
	size_t mark, nr_marks;	/* in cw_linetab.marks, by address */
};

/*
 * A unit's line program, read by image/cw_lines.c itself: its header, its file
 * names as libdw spells them, and its sequences sorted by address. A lookup
 * resumes the sequence that covers the address at its last mark below it. state: 0 not read yet, 1
 * read, -1 a form this reader does not take (libdw answers instead).
 */
struct cw_linetab {
	int state;
	int version;
	uint8_t min_insn, default_stmt, line_range, opcode_base;
	int8_t line_base;
	const uint8_t *std_lengths;	/* [opcode - 1] */
	const uint8_t *end;		/* the unit's program ends here */
	char **files;			/* libdw's numbering: 0 is "???" before DWARF 5 */
	size_t nr_files, cap_files;
	struct cw_lineseq *seqs;
	size_t nr_seqs;
	struct cw_linemark *marks;
	size_t nr_marks;
};

/* What one compilation unit's lookups need, each part built when first needed. */
struct cw_cuindex {
	Dwarf_Off cu;
	struct cw_funcrange *funcs;	/* its functions, sorted by address */
	size_t nr, cap;
	int funcs_read;
	struct cw_linetab lines;
};

/* The typed objects of one element type, found on first use (cw_image_objects_of_type). */
#define CW_TYPED_CACHE_MAX	64
struct cw_typed_cache {
	const char *elem;		/* NULL: not looked for yet */
	unsigned int nr;
	struct cw_typed_object obj[CW_TYPED_CACHE_MAX];
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
	const Elf32_Sym *elfsyms;	/* the symbol table, as libelf maps it */
	const char *strtab;		/* and its names */
	uint32_t *named;		/* open-addressed hash of defined symbols by name: */
	size_t nr_named;		/* elfsyms indices (0 a free slot), a power of two of them */
	struct cw_cuindex *cus;		/* units an inline lookup has needed so far */
	size_t nr_cus, cap_cus;
	Dwarf *cfi_dwarf;		/* our own handle on .debug_frame, opened on first use */
	Dwarf_CFI *debug_frame, *eh_frame;
	int cfi_opened;
	struct cw_typed_cache typed;
};

void cw_cuindex_free(struct cw_cuindex *ix);
/* libdw's answer to cw_image_srcline(), for the test that holds the two side by side. */
int cw_image_srcline_libdw(struct cw_image *img, uint32_t addr, struct cw_srcline *out);

#endif /* CW_IMAGE_IMPL_H */
