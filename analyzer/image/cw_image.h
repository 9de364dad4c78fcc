/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cw_image.h - the firmware image: sections and symbols (image/cw_image.c), line
 * info and inlined calls (image/cw_lines.c), struct layouts from DWARF
 * (image/cw_dwarf_types.c). cw_image_open() and cw_image_close() are in
 * crashwalk.h.
 */
#ifndef CW_IMAGE_H
#define CW_IMAGE_H

#include "base/cw_base.h"
#include "base/cw_mem.h"

struct cw_dump;
struct Dwarf_CFI_s;	/* libdw's Dwarf_CFI */

/* ---- sections, symbols, the vector table (image/cw_image.c) ---- */

struct cw_symbol {
	const char *name;
	uint32_t addr;		/* Thumb bit cleared */
	uint32_t size;
};

/* A loadable section of the firmware, named. */
struct cw_image_section {
	const char *name;
	uint32_t addr, size;
	const uint8_t *data;
};

int cw_image_add_memory(struct cw_image *img, struct cw_mem *mem);
void cw_image_gaps(const struct cw_image *img, struct cw_dump *dump);
int cw_image_lookup(const struct cw_image *img, const char *name, uint32_t *addr);
/* The path the image was opened with, naming it in messages. */
const char *cw_image_path(const struct cw_image *img);
const struct cw_mem *cw_image_contents(const struct cw_image *img);
const struct cw_image_section *cw_image_rosec(const struct cw_image *img, unsigned int n);
const struct cw_image_section *cw_image_datasec(const struct cw_image *img, unsigned int n);
const char *cw_image_object_name(const struct cw_image *img, uint32_t addr);
uint32_t cw_image_build_id(const struct cw_image *img, const uint8_t **id);
const struct cw_symbol *cw_image_func(const struct cw_image *img, uint32_t addr);
int cw_image_is_code(const struct cw_image *img, uint32_t addr);
int cw_image_insn_start(const struct cw_image *img, uint32_t addr);
uint32_t cw_image_vector(const struct cw_image *img, unsigned int n, int *ok);
int cw_image_object(const struct cw_image *img, const char *name, uint32_t *addr, uint32_t *size);
int cw_image_object_at(const struct cw_image *img, uint32_t addr, uint32_t *size);
int cw_image_is_handler(const struct cw_image *img, uint32_t func_addr);
int cw_image_exidx(const struct cw_image *img, uint32_t *addr, uint32_t *size);
void cw_image_cfi(struct cw_image *img, struct Dwarf_CFI_s **debug_frame,
		  struct Dwarf_CFI_s **eh_frame);

/* ---- line info and inlined calls (image/cw_lines.c) ---- */

struct cw_srcline {
	const char *file;
	int line;
};

/* A function inlined at an address, innermost first; line is where execution is in it. */
struct cw_inline {
	const char *func;
	struct cw_srcline src;
};

#define CW_MAX_INLINE	8

int cw_image_srcline(struct cw_image *img, uint32_t addr, struct cw_srcline *out);
unsigned int cw_image_inlines(struct cw_image *img, uint32_t addr, struct cw_inline *out,
			      unsigned int max, struct cw_srcline *outer);

/* ---- struct layouts and typed objects from DWARF (image/cw_dwarf_types.c) ---- */

int cw_image_has_dwarf(const struct cw_image *img);
int cw_image_struct_member(const struct cw_image *img, const char *type, const char *path,
			   uint32_t *off, uint32_t *size);
int cw_image_struct_size(const struct cw_image *img, const char *type, uint32_t *size);
int cw_image_enumerators(const struct cw_image *img, const char *type, const char *const *names,
			 unsigned int n, int64_t *values);

/* A variable that is an array of a given struct; rows: a 2-D array's first dimension, else 1. */
struct cw_typed_object {
	const char *name;
	uint32_t addr, size, rows;
};

unsigned int cw_image_objects_of_type(struct cw_image *img, const char *elem,
				      struct cw_typed_object *out, unsigned int max);

#endif /* CW_IMAGE_H */
