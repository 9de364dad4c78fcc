// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_dump.c - libFuzzer harness: every crashwalk dump reader (ELF core,
 * remoteproc ELF, Zephyr binary and #CD: text, CrashCatcher) through the
 * format auto-detection, on arbitrary bytes.
 */
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "dump/cw_dump.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cw_error err = { { 0 } };
	struct cw_dump d;
	uint8_t *buf;

	/* The reader owns its buffer, as cw_dump_load() hands it a file's. */
	buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	cw_dump_parse(&d, "fuzz", buf, size, &err);
	cw_dump_free(&d);
	return 0;
}
