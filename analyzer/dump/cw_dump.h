/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cw_dump.h - the dump reader (dump/cw_dump.c and a file per format): a
 * file's format, registers and memory, and the parts of the firmware's RAM it
 * lacks.
 */
#ifndef CW_DUMP_H
#define CW_DUMP_H

#include "base/cw_base.h"
#include "base/cw_mem.h"

/*
 * The dump formats crashwalk reads, in the order their first bytes are
 * tried: the one list of them. Each line X(NAME, file, "name") is a reader
 * dump/cw_file.c, which defines struct cw_dump_reader cw_file_reader; its
 * value CW_FMT_NAME of enum cw_dump_format; and the name reports, --help and
 * the JSON give it. A new format is its file and its line here.
 */
#define CW_DUMP_FORMATS(X)						\
	X(ELF_CORE, elf_core, "elf-core")				\
	X(ZEPHYR, zephyr_dump, "zephyr")				\
	X(CRASHCATCHER, crashcatcher, "crashcatcher")

#define CW_FMT_(NAME, file, name)	CW_FMT_##NAME,
enum cw_dump_format {
	CW_FMT_UNKNOWN,
	CW_DUMP_FORMATS(CW_FMT_)
	CW_NR_FORMATS
};
#undef CW_FMT_

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
	/*
	 * A Zephyr dump's threads metadata block ('T', which the dump-every-
	 * thread mode turns on): the bytes of _kernel, at an address only the
	 * firmware's symbols give. Points into buf; length 0: none.
	 */
	const uint8_t *kernel_meta;
	uint32_t kernel_meta_len;
};

/*
 * How a format travels in a serial log, for --follow (fleet/cw_follow.c):
 * begin and end are found anywhere in the lines that start and end a dump.
 * A tagged dump's every line carries tag, after whatever prefix the logger
 * gives its lines, and is kept verbatim for the reader's decode_text: the
 * firmware's own log may come between them. An untagged one is bare hex
 * lines of the binary format until its end, nothing between them but skip
 * (a prompt): a writer with interrupts off.
 */
struct cw_dump_log {
	const char *begin, *end;	/* NULL: the format has no log transport */
	const char *tag;
	const char *skip;
};

/* A format's reader: what dump/cw_dump.c and fleet/cw_follow.c know of it. */
struct cw_dump_reader {
	/* Do a file's first bytes (at least 4096 of them when it has them) start this format? */
	int (*detect)(const uint8_t *buf, size_t len);
	/* Is such a file a crash dump, not a firmware image (both ELF)? NULL: it is. */
	int (*is_dump)(const uint8_t *buf, size_t len);
	/* Registers, memory and context from d->buf. */
	int (*parse)(struct cw_dump *d, struct cw_error *err);
	/*
	 * The format as text (log.tag within a file's first 4096 bytes): into
	 * its binary form, d->buf replaced. NULL: it has none.
	 */
	int (*decode_text)(struct cw_dump *d, struct cw_error *err);
	struct cw_dump_log log;
};

#define CW_READER_(NAME, file, name)	extern const struct cw_dump_reader cw_##file##_reader;
CW_DUMP_FORMATS(CW_READER_)
#undef CW_READER_

/* A format as CW_DUMP_FORMATS lists it: its name, its reader. */
struct cw_format {
	const char *name;
	const struct cw_dump_reader *reader;
};

/* Indexed by format; [CW_FMT_UNKNOWN] has neither. */
extern const struct cw_format cw_formats[CW_NR_FORMATS];

int cw_dump_parse(struct cw_dump *dump, const char *path, const uint8_t *buf, size_t len,
		  struct cw_error *err);
/* Read and parse the dump at path; "-" is standard input, named "<stdin>". */
int cw_dump_load(struct cw_dump *dump, const char *path, struct cw_error *err);
void cw_dump_free(struct cw_dump *dump);
const char *cw_dump_format_name(enum cw_dump_format fmt);

#endif /* CW_DUMP_H */
