// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_unwind.c - libFuzzer harness: a dump parsed from arbitrary bytes,
 * unwound against the bundled firmware by every method (exception model,
 * prologue pseudo-execution, frame-pointer walk, stack scan), its fault
 * decoded and reported: whatever registers and memory the input claims.
 */
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump/cw_dump.h"
#include "decode/cw_fault.h"
#include "image/cw_image.h"
#include "report/cw_report.h"
#include "rtos/cw_rtos.h"
#include "image/cw_symbolize.h"
#include "unwind/cw_unwind.h"

static struct cw_image *fuzz_img;
static FILE *fuzz_null;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct cw_error err = { { 0 } };

	(void)argc;
	(void)argv;
	fuzz_img = cw_image_open(BUNDLED_DIR "/demo.elf", &err);
	fuzz_null = fopen("/dev/null", "w");
	if (!fuzz_img || !fuzz_null) {
		fprintf(stderr, "fuzz_unwind: %s\n", err.msg);
		abort();
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum cw_unwinder methods[] = {
		CW_UNWIND_AUTO, CW_UNWIND_PROLOGUE, CW_UNWIND_FP, CW_UNWIND_SCAN,
		CW_UNWIND_CFI, CW_UNWIND_EHABI,
	};
	struct cw_report_opts ropts = { 0 };
	struct cw_error err = { { 0 } };
	struct cw_backtrace *bt;
	struct cw_target t;
	struct cw_fault f;
	struct cw_dump d;
	unsigned int i, ff;
	uint8_t *buf;
	uint32_t at;

	/* The reader owns its buffer, as cw_dump_load() hands it a file's. */
	buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	if (cw_dump_parse(&d, "fuzz", buf, size, &err)) {
		cw_dump_free(&d);
		return 0;
	}
	bt = calloc(1, sizeof(*bt));
	if (!bt || cw_image_add_memory(fuzz_img, &d.mem))
		goto out;
	t = (struct cw_target){ .mem = &d.mem, .img = fuzz_img };
	if (d.context == CW_CTX_MEMORY_ONLY)
		cw_find_exception_frame(&t, d.context, 0, &d.regs, &at, NULL);
	for (i = 0; i < sizeof(methods) / sizeof(methods[0]); i++) {
		cw_unwind(&t, &d.regs, d.context, methods[i], bt);
		cw_symbolize(t.img, bt);
		ff = cw_fault_frame(d.context, bt);
		cw_fault_decode(&d.mem, ff < bt->nr ? bt->frames[ff].pc : 0, ff < bt->nr, &f);
		ropts.json = (int)(i & 1);
		cw_report_crash(fuzz_null, &ropts, &d, bt, &f, NULL, NULL);
	}
out:
	free(bt);
	cw_dump_free(&d);
	return 0;
}
