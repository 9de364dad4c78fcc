/* SPDX-License-Identifier: GPL-2.0 */
/* cw_test.h - helpers for crashwalk unit tests: build dumps byte by byte as their specs say. */
#ifndef CW_TEST_H
#define CW_TEST_H

#include <stdlib.h>
#include <string.h>

/* The tests reach into every stage. */
#include "analyze/cw_analyze.h"
#include "decode/cw_cfi.h"
#include "dump/cw_dump.h"
#include "decode/cw_ehabi.h"
#include "decode/cw_exc.h"
#include "decode/cw_fault.h"
#include "image/cw_image.h"
#include "report/cw_match.h"
#include "base/cw_mem.h"
#include "analyze/cw_options.h"
#include "report/cw_report.h"
#include "rtos/cw_rtos.h"
#include "unwind/cw_search.h"
#include "image/cw_symbolize.h"
#include "decode/cw_thumb.h"
#include "unwind/cw_unwind.h"
#include "ktap.h"

struct tbuf {
	uint8_t b[65536];
	size_t n;
};

static inline void tb_u8(struct tbuf *t, uint32_t v)
{
	t->b[t->n++] = (uint8_t)v;
}

static inline void tb_u16(struct tbuf *t, uint32_t v)
{
	tb_u8(t, v);
	tb_u8(t, v >> 8);
}

static inline void tb_u32(struct tbuf *t, uint32_t v)
{
	tb_u16(t, v);
	tb_u16(t, v >> 16);
}

static inline void tb_bytes(struct tbuf *t, const void *p, size_t n)
{
	memcpy(t->b + t->n, p, n);
	t->n += n;
}

static inline void tb_put32(struct tbuf *t, size_t at, uint32_t v)
{
	t->b[at] = (uint8_t)v;
	t->b[at + 1] = (uint8_t)(v >> 8);
	t->b[at + 2] = (uint8_t)(v >> 16);
	t->b[at + 3] = (uint8_t)(v >> 24);
}

/* Parse a copy: the reader owns and frees its buffer. */
static inline int tb_parse(const struct tbuf *t, size_t len, struct cw_dump *d,
			   struct cw_error *err)
{
	uint8_t *copy = malloc(len ? len : 1);

	memcpy(copy, t->b, len);
	err->msg[0] = 0;
	return cw_dump_parse(d, "test.dump", copy, len, err);
}

#endif
