/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cw_dump_reader.h - what the dump readers (dump/cw_elf_core.c, ...) share
 * with dump/cw_dump.c, which picks one: bounds-checked little-endian access
 * and the memory range both firmware formats store (dump/cw_dump_reader.c).
 */
#ifndef CW_DUMP_READER_H
#define CW_DUMP_READER_H

#include "dump/cw_dump.h"

#define NT_GNU_BUILD_ID		3	/* name "GNU": the firmware's build-id, as ld wrote it */

/* Fields are little-endian whatever the host; the callers check the bounds. */
static inline uint32_t le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint16_t le16(const uint8_t *p)
{
	return p[0] | p[1] << 8;
}

/* Does [off, off + n) fit in a buffer of len bytes? Written to avoid overflow. */
static inline int fits(size_t len, uint64_t off, uint64_t n)
{
	return off <= len && n <= len - off;
}

int cw_dump_add_range(struct cw_dump *d, size_t *offp, unsigned int skip, const char *what,
		      struct cw_error *err);

#endif /* CW_DUMP_READER_H */
