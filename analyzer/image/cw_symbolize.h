/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cw_symbolize.h - the symbolizer (image/cw_symbolize.c): each frame's function,
 * line and inlined calls from the image.
 */
#ifndef CW_SYMBOLIZE_H
#define CW_SYMBOLIZE_H

#include "unwind/cw_unwind.h"

void cw_symbolize(struct cw_image *img, struct cw_backtrace *bt);

#endif /* CW_SYMBOLIZE_H */
