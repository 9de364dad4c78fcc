/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cw_match.h - the dump against the firmware (report/cw_match.c): each way the
 * dump contradicts the image, for a refusal or a warning.
 */
#ifndef CW_MATCH_H
#define CW_MATCH_H

#include "dump/cw_dump.h"
#include "decode/cw_fault.h"
#include "unwind/cw_unwind.h"

/* Each way the dump contradicts the firmware, one line naming what differed and where. */
struct cw_match {
	char lines[8][224];
	unsigned int nr;
};

unsigned int cw_match(const struct cw_target *t, const struct cw_dump *dump,
		      const struct cw_backtrace *bt, const struct cw_fault *f, struct cw_match *m);

#endif /* CW_MATCH_H */
