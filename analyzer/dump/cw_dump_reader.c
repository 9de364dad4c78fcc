// SPDX-License-Identifier: GPL-2.0
/*
 * cw_dump_reader.c - what the format readers share, in a file of its own so
 * that dump/cw_dump.c, which picks them, is above them and never below.
 */
#include "dump/cw_dump_reader.h"

/*
 * A memory range as both firmware formats store it: skip bytes of block
 * header, u32 start, u32 end (exclusive), then end - start bytes. Advances *offp.
 */
int cw_dump_add_range(struct cw_dump *d, size_t *offp, unsigned int skip, const char *what,
		      struct cw_error *err)
{
	size_t off = *offp, data = off + skip + 8;
	uint32_t start, end;

	if (!fits(d->len, off, skip + 8))
		return cw_fail(err, d->path, (long)off, "%s header truncated", what);
	start = le32(d->buf + off + skip);
	end = le32(d->buf + off + skip + 4);
	if (end < start)
		return cw_fail(err, d->path, (long)(off + skip + 4),
			       "%s end 0x%08x below start 0x%08x", what, end, start);
	if (!fits(d->len, data, end - start))
		return cw_fail(err, d->path, (long)off, "%s 0x%08x-0x%08x overruns the file", what,
			       start, end);
	if (cw_mem_add(&d->mem, start, end - start, d->buf + data, "dump"))
		return cw_fail(err, d->path, (long)off, "too many %ss", what);
	*offp = data + (end - start);
	return 0;
}
