// SPDX-License-Identifier: GPL-2.0
/*
 * cw_mem.c - the address space every stage reads: regions of the dump's
 * memory, then the firmware's loadable sections, searched in that order.
 *
 * It owns no bytes: each region points into a buffer the dump or the image
 * holds, so the reader, the image and the unwinder share it without copies.
 */
#include <stdlib.h>
#include <string.h>

#include "../../lib/user/fw_grow.h"
#include "base/cw_mem.h"

#define CW_MAX_REGIONS	4096

int cw_mem_add(struct cw_mem *mem, uint32_t addr, uint32_t size, const uint8_t *data,
	       const char *origin)
{
	struct cw_region *r;

	if (!size)
		return 0;
	if (mem->nr >= CW_MAX_REGIONS || (uint64_t)addr + size > 0x100000000ull)
		return -1;
	r = fw_grow(mem->regions, &mem->cap, mem->nr, sizeof(*r), 16);
	if (!r)
		return -1;
	mem->regions = r;
	mem->regions[mem->nr++] = (struct cw_region){ addr, size, data, origin };
	mem->gap_hi = 0;
	return 0;
}

/* The first region added wins: dump regions are added before the image's sections. */
/*
 * The first region holding addr. Found by a walk, the answer holds for every
 * address of that region that no earlier region holds: the walk narrows
 * [lo, hi) around addr by the earlier regions it passes, and keeps it as the
 * hint; a miss keeps the gap between the regions around addr (the only
 * fields a lookup writes; crashwalk reads a dump in one thread).
 */
const struct cw_region *cw_mem_find(const struct cw_mem *mem, uint32_t addr)
{
	struct cw_mem *hint = (struct cw_mem *)mem;
	uint64_t hi = 1ull << 32, end;
	uint32_t lo = 0;
	unsigned int i;

	if (addr >= mem->hint_lo && addr < mem->hint_hi)
		return &mem->regions[mem->hint];
	if (addr >= mem->gap_lo && addr < mem->gap_hi)
		return NULL;
	for (i = 0; i < mem->nr; i++) {
		const struct cw_region *r = &mem->regions[i];

		end = (uint64_t)r->addr + r->size;
		if (addr >= r->addr && addr < end) {
			hint->hint = i;
			hint->hint_lo = lo > r->addr ? lo : r->addr;
			hint->hint_hi = hi < end ? hi : end;
			return r;
		}
		if (!r->size)
			continue;
		if (end <= addr && end > lo)
			lo = (uint32_t)end;
		else if (r->addr > addr && r->addr < hi)
			hi = r->addr;
	}
	hint->gap_lo = lo;
	hint->gap_hi = hi;
	return NULL;
}

int cw_mem_read(const struct cw_mem *mem, uint32_t addr, void *buf, uint32_t size)
{
	uint8_t *out = buf;

	while (size) {
		const struct cw_region *r = cw_mem_find(mem, addr);
		uint32_t off, n;

		if (!r)
			return -1;
		off = addr - r->addr;
		n = r->size - off < size ? r->size - off : size;
		memcpy(out, r->data + off, n);
		out += n;
		addr += n;
		size -= n;
	}
	return 0;
}

int cw_mem_read32(const struct cw_mem *mem, uint32_t addr, uint32_t *val)
{
	uint8_t b[4];

	if (cw_mem_read(mem, addr, b, 4))
		return -1;
	*val = b[0] | b[1] << 8 | b[2] << 16 | (uint32_t)b[3] << 24;
	return 0;
}

/* A word the dump itself holds: an image never carries SCB state or stack contents. */
int cw_mem_read32_dumped(const struct cw_mem *mem, uint32_t addr, uint32_t *val)
{
	const struct cw_region *r = cw_mem_find(mem, addr);

	return (!r || strcmp(r->origin, "dump")) ? -1 : cw_mem_read32(mem, addr, val);
}

void cw_mem_free(struct cw_mem *mem)
{
	free(mem->regions);
	memset(mem, 0, sizeof(*mem));
}
