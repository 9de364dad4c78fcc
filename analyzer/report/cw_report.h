/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cw_report.h - the report (report/cw_report.c): one crash, its threads and its
 * warnings as text or JSON, for cw_report() and the tests.
 */
#ifndef CW_REPORT_H
#define CW_REPORT_H

#include "dump/cw_dump.h"
#include "decode/cw_fault.h"
#include "report/cw_match.h"
#include "rtos/cw_rtos.h"
#include "unwind/cw_unwind.h"

#define CW_SHOWN_PATH_MAX 4096

/* The crash (rtos, match: NULL for none) as cw_report() prints a struct cw_analysis. */
void cw_report_crash(FILE *out, const struct cw_report_opts *o, const struct cw_dump *dump,
		     const struct cw_backtrace *bt, const struct cw_fault *f, const struct cw_rtos *rtos,
		     const struct cw_match *match);

#endif /* CW_REPORT_H */
