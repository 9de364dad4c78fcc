/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cw_dump.h - the dump reader (dump/cw_dump.c): a file's format, registers and
 * memory, and the parts of the firmware's RAM it lacks.
 */
#ifndef CW_DUMP_H
#define CW_DUMP_H

#include "base/cw_base.h"
#include "base/cw_mem.h"

enum cw_dump_format {
	CW_FMT_UNKNOWN,
	CW_FMT_ELF_CORE,
	CW_FMT_ZEPHYR,
	CW_FMT_CRASHCATCHER,
};

/* A writable section of the firmware the dump does not cover. */
struct cw_gap {
	const char *section;
	uint32_t lo, hi;	/* [lo, hi) */
	int initial;		/* the image's initial values stand in (.data), else unknown (.bss) */
};

/* The reason of a dump that is not a Zephyr coredump, whose header has none. */
#define CW_NO_ZEPHYR_REASON	(~0u)

#define CW_MAX_GAPS	8
#define CW_MAX_BUILD_ID	64	/* bytes: SHA-1 ids are 20, the longest in use 32 */

struct cw_dump {
	const char *path;
	enum cw_dump_format format;
	enum cw_reg_context context;
	struct cw_regs regs;
	uint32_t reason;	/* Zephyr reason code, or CW_NO_ZEPHYR_REASON */
	uint8_t *buf;		/* the whole file, owned */
	size_t len;
	struct cw_mem mem;
	unsigned int has_fp;	/* CrashCatcher: s0-s31 and fpscr present */
	const char *warning;	/* the dump is readable but its writer reported a problem */
	struct cw_gap gaps[CW_MAX_GAPS];	/* filled by cw_image_gaps() */
	unsigned int nr_gaps;
	/*
	 * The firmware's GNU build-id: an ELF core's NT_GNU_BUILD_ID note, else
	 * a build-id note in the dumped memory (the firmware's own, in flash or
	 * loaded into RAM); build_id_at is where that copy is, 0 for the note.
	 */
	uint8_t build_id[CW_MAX_BUILD_ID];
	uint32_t build_id_len;
	uint32_t build_id_at;
};

int cw_dump_parse(struct cw_dump *dump, const char *path, const uint8_t *buf, size_t len,
		  struct cw_error *err);
/* Read and parse the dump at path; "-" is standard input, named "<stdin>". */
int cw_dump_load(struct cw_dump *dump, const char *path, struct cw_error *err);
void cw_dump_free(struct cw_dump *dump);
const char *cw_dump_format_name(enum cw_dump_format fmt);

#endif /* CW_DUMP_H */
