// SPDX-License-Identifier: GPL-2.0
/*
 * cw_symbolize.c - the symbolizer: the function, source line and inlined
 * calls of each frame the engine found, looked up in the firmware image.
 */
#include "image/cw_symbolize.h"

/* The function of a return address an unwinder proposed; none for data (an EXC_RETURN value). */
static const struct cw_symbol *proposed_func(struct cw_image *img, uint32_t pc)
{
	uint32_t at = cw_code_addr(pc, 1);

	return cw_image_is_code(img, at) ? cw_image_func(img, at) : NULL;
}

void cw_symbolize(struct cw_image *img, struct cw_backtrace *bt)
{
	unsigned int i, k;

	for (i = 0; i < bt->nr; i++) {
		struct cw_frame *f = &bt->frames[i];
		uint32_t at = cw_code_addr(f->pc, !!(f->flags & CW_FRAME_RETURN_ADDR));

		for (k = 0; k < f->nr_proposed; k++)
			f->proposed[k].func = proposed_func(img, f->proposed[k].pc);

		/* A wild pc (a call through NULL): data is no function, a discarded one's
		 * DWARF at 0 no source. */
		if (!cw_image_is_code(img, at)) {
			f->func = NULL;
			f->has_src = 0;
			f->nr_inl = 0;
			continue;
		}
		f->func = cw_image_func(img, at);
		f->has_src = !cw_image_srcline(img, at, &f->src);
		f->nr_inl = f->has_src ? cw_image_inlines(img, at, f->inl, CW_MAX_INLINE, &f->src)
				       : 0;
	}
}
