/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cw_image_impl.h - struct cw_image's fields, for the image's own files only
 * (libcw_image.c, libcw_lines.c, libcw_dwarf_types.c); every other stage sees
 * an opaque handle through cw_image.h.
 */
#ifndef CW_IMAGE_IMPL_H
#define CW_IMAGE_IMPL_H

#include <gelf.h>
#include <libelf.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include "cw_image.h"

struct cw_mapsym {
	uint32_t addr;
	char kind;		/* 't' Thumb code, 'a' ARM code, 'd' data */
};

/* Where a function's code lies, and its DWARF entry: the start of every inline lookup. */
struct cw_funcrange {
	Dwarf_Addr lo, hi;	/* [lo, hi) in DWARF addresses (before the module bias) */
	Dwarf_Off die;
};

/* A defined symbol by name, for lookups of kernel objects and register blocks. */
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
	struct cw_named *named;		/* open-addressed hash of defined symbols by name */
	size_t nr_named;		/* slots, a power of two */
	struct cw_cuindex *cus;		/* units an inline lookup has needed so far */
	size_t nr_cus;
	Dwarf *cfi_dwarf;		/* our own handle on .debug_frame, opened on first use */
	Dwarf_CFI *debug_frame, *eh_frame;
	int cfi_opened;
	struct cw_typed_cache typed;
};

#endif /* CW_IMAGE_IMPL_H */
