/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cw_mem.h - the address space (base/cw_mem.c): the dump's memory, then the
 * firmware's loadable sections; what every stage reads memory through.
 */
#ifndef CW_MEM_H
#define CW_MEM_H

#include <stddef.h>
#include <stdint.h>

struct cw_region {
	uint32_t addr;
	uint32_t size;
	const uint8_t *data;	/* points into a buffer owned by the dump or the image */
	const char *origin;	/* "dump" or "image" */
};

struct cw_mem {
	struct cw_region *regions;
	unsigned int nr;
	size_t cap;
	/*
	 * The last lookup's answer and the addresses around it it holds for, and
	 * the last gap no region holds: the searches read word after word, and
	 * the SCB and FP registers a memory-only dump lacks between them, and
	 * each lookup walked every region. Regions are only appended, so an
	 * answer stays the first region's; an appended region may fill the gap.
	 */
	unsigned int hint;
	uint32_t hint_lo, gap_lo;
	uint64_t hint_hi, gap_hi;
};

int cw_mem_read(const struct cw_mem *mem, uint32_t addr, void *buf, uint32_t size);
int cw_mem_read32(const struct cw_mem *mem, uint32_t addr, uint32_t *val);
int cw_mem_add(struct cw_mem *mem, uint32_t addr, uint32_t size, const uint8_t *data,
	       const char *origin);
const struct cw_region *cw_mem_find(const struct cw_mem *mem, uint32_t addr);
int cw_mem_read32_dumped(const struct cw_mem *mem, uint32_t addr, uint32_t *val);
void cw_mem_free(struct cw_mem *mem);

#endif /* CW_MEM_H */
