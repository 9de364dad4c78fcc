/* SPDX-License-Identifier: GPL-2.0 */
/*
 * crashwalk.h - the crashwalk library's API: Cortex-M crash dumps in, call
 * stack, fault cause and RTOS threads out.
 *
 * Data flows one way: cw_analyze() reads a dump (registers and memory),
 * completes its registers, unwinds them against the firmware image into
 * frames, names the frames, decodes the fault and lists the RTOS threads; the
 * report prints the result. Each stage behind it is a folder of its own
 * (dump/, image/, decode/, unwind/, rtos/, report/, fleet/ over base/),
 * whose headers the library's files and its unit tests share.
 */
#ifndef CRASHWALK_H
#define CRASHWALK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CW_JSON_SCHEMA_VERSION	6

/* An error that names the file, the byte offset and what is wrong with it. */
struct cw_error {
	char msg[768];
};

/* ---- registers ---- */

enum cw_reg {
	CW_R0, CW_R1, CW_R2, CW_R3, CW_R4, CW_R5, CW_R6, CW_R7,
	CW_R8, CW_R9, CW_R10, CW_R11, CW_R12, CW_SP, CW_LR, CW_PC,
	CW_XPSR, CW_MSP, CW_PSP, CW_CONTROL,
	/* With the v8-M Security Extension: both states' stack pointers (CRASHWALK note v2). */
	CW_MSP_S, CW_PSP_S, CW_MSP_NS, CW_PSP_NS,
	CW_NR_REGS
};

struct cw_regs {
	uint32_t r[CW_NR_REGS];
	uint32_t valid;		/* bit n: r[n] is known */
};

/* --sp REG=ADDR,...: the stack pointers a dump lacks, into regs. */
int cw_sp_parse(const char *spec, struct cw_regs *regs, struct cw_error *err);

/* ---- firmware image: code, symbols, line info, struct layouts ---- */

struct cw_image;

struct cw_image *cw_image_open(const char *path, struct cw_error *err);
void cw_image_close(struct cw_image *img);
/* --regs SYMBOL:LAYOUT: 0 when it has that form and the firmware has SYMBOL. */
int cw_image_check_regblock(const struct cw_image *img, const char *spec, struct cw_error *err);

/* ---- the firmware found by a dump's build-id (image/cw_symbol_store.c) ---- */

struct cw_symbols_opts {
	const char *const *dirs;	/* --symbols: .build-id trees or flat directories of ELFs */
	unsigned int nr_dirs;
	int debuginfod;			/* then the servers DEBUGINFOD_URLS names */
	unsigned int cache_images;	/* images kept open, least recently used closed first */
	int progress;			/* a progress line on stderr while a file downloads */
};

/* Where firmware images are found by build-id, and those opened so far. */
struct cw_symbols;

struct cw_symbols *cw_symbols_new(const struct cw_symbols_opts *o);
void cw_symbols_free(struct cw_symbols *s);
/*
 * The firmware whose GNU build-id is id: an image opened before, else the
 * first file the directories, then debuginfod, have for it, refused unless
 * its own build-id is id. The image stays the store's; a later call may
 * close it. *where names the file and the place it came from. NULL with err
 * naming the id and every place searched; an id not found is not searched
 * for again.
 */
struct cw_image *cw_symbols_image(struct cw_symbols *s, const uint8_t *id, uint32_t len,
				  const char **where, struct cw_error *err);
/* How many images were opened: once per firmware unless the cache was too small. */
unsigned int cw_symbols_opened(const struct cw_symbols *s);

/* ---- unwinding and RTOS threads: what cw_analyze() does with a dump ---- */

enum cw_unwinder {
	CW_UNWIND_AUTO,		/* the engine: CFI, EHABI, pseudo-execution, fp, scan, cross-checked */
	CW_UNWIND_PROLOGUE,	/* pseudo-execution (epilogue forward, else prologue) alone */
	CW_UNWIND_FP,
	CW_UNWIND_SCAN,
	CW_UNWIND_EHABI,	/* EHABI; pseudo-execution only for code without an entry */
	CW_UNWIND_CFI,		/* DWARF CFI; pseudo-execution only for code without CFI */
};

/*
 * The kernels crashwalk reads, in the order --rtos auto tries them: the one
 * list of them. Each line X(NAME, name) is a kernel's file rtos/cw_name.c,
 * which defines struct cw_rtos_ops cw_name_ops; its value CW_RTOS_NAME of enum
 * cw_rtos_kind; and its --rtos and JSON name "name". A new kernel is its file
 * and its line here (a family sharing its port's code shares a file:
 * rtos/cw_ucos.c defines cw_ucos2_ops and cw_ucos3_ops).
 */
#define CW_RTOS_KERNELS(X)						\
	X(FREERTOS, freertos)						\
	X(ZEPHYR, zephyr)						\
	X(THREADX, threadx)						\
	X(LITEOS, liteos)	/* OpenHarmony LiteOS-M */		\
	X(NUTTX, nuttx)							\
	X(RTTHREAD, rtthread)	/* RT-Thread and RT-Thread Nano */	\
	X(RTX5, rtx5)		/* Keil RTX5 (CMSIS-RTOS2 RTX) */	\
	X(UCOS2, ucos2)		/* µC/OS-II */				\
	X(UCOS3, ucos3)		/* µC/OS-III */

#define CW_RTOS_KIND_(NAME, name)	CW_RTOS_##NAME,
enum cw_rtos_kind {
	CW_RTOS_AUTO,		/* detect from the firmware's symbols */
	CW_RTOS_NONE,
	CW_RTOS_KERNELS(CW_RTOS_KIND_)
};
#undef CW_RTOS_KIND_

int cw_unwinder_parse(const char *s, enum cw_unwinder *out);
int cw_rtos_parse(const char *s, enum cw_rtos_kind *out);
/* What --rtos takes, from the kernels' table: "auto, none, freertos, ... or nuttx". */
const char *cw_rtos_kinds(void);

struct cw_options {
	enum cw_unwinder how;
	enum cw_rtos_kind rtos;	/* whose threads to list after the crash's backtrace */
	const char *regs;	/* SYMBOL:LAYOUT: the registers of a dump without them */
	struct cw_regs sp;	/* stack pointers given by hand: they replace the dump's */
	int allow_mismatch;	/* a dump that contradicts the firmware is reported, not refused */
	/* Notes on how a dump was read; error: a refused dump's further reason, for after err. */
	void (*note)(void *ctx, int error, const char *msg);
	void *note_ctx;
};

/* One dump's result: its registers, frames, fault, threads, ready to report. */
struct cw_analysis;

/*
 * Analyze the dump at path ("-": standard input) or, when buf is not NULL, in
 * buf (malloc'ed, taken over) under that name. 0 with *out set, or -1 with
 * err naming the dump and what stopped it.
 */
int cw_analyze(struct cw_image *img, const struct cw_options *o, const char *path,
	       uint8_t *buf, size_t len, struct cw_analysis **out, struct cw_error *err);
void cw_analysis_free(struct cw_analysis *a);

/*
 * cw_analyze() in two steps, for a caller that finds the firmware by the
 * dump's build-id: read the dump (as cw_analyze() does), then analyze it
 * against the image; on failure the caller still frees a.
 */
int cw_analysis_read(const char *path, uint8_t *buf, size_t len, struct cw_analysis **out,
		     struct cw_error *err);
int cw_analysis_run(struct cw_image *img, const struct cw_options *o, struct cw_analysis *a,
		    struct cw_error *err);
/*
 * The firmware's GNU build-id the dump holds, 0 bytes when none; *at is 0
 * when it came from an ELF core's note, else the address of the note in the
 * dumped memory. at may be NULL.
 */
uint32_t cw_analysis_build_id(const struct cw_analysis *a, const uint8_t **id, uint32_t *at);
/* The dump's name, "<stdin>" for standard input. */
const char *cw_analysis_path(const struct cw_analysis *a);
/* Does buf, a file's first bytes (4096 suffice), start a crash dump rather than an ELF image? */
int cw_dump_sniff(const uint8_t *buf, size_t len);
/* The dump formats crashwalk reads, as reports name them: "elf-core, ... or crashcatcher". */
const char *cw_dump_formats(void);

/* A frame of the crash's backtrace, innermost first; its strings are the image's. */
struct cw_frame_info {
	uint32_t pc, sp;
	const char *function;	/* NULL: pc is in no known function */
	uint32_t offset;	/* pc - the function's start */
	const char *file;	/* NULL: no line info */
	int line;
	int return_address;	/* pc is a return address: the call is before it */
	int exception;		/* an exception interrupted this frame */
};

unsigned int cw_analysis_frames(const struct cw_analysis *a);
int cw_analysis_frame(const struct cw_analysis *a, unsigned int i, struct cw_frame_info *out);
/* Why the backtrace ends, as the report names it ("outermost", "depth", ...). */
const char *cw_analysis_stop(const struct cw_analysis *a);

/* ---- watching a directory, following a serial log ---- */

typedef int (*cw_watch_fn)(void *ctx, const char *path);

int cw_watch_dir(const char *dir, const char *keep, cw_watch_fn fn, void *ctx);

struct cw_stream_dump {
	const char *name;	/* STREAM:LINE, the line the dump's first #CD: line was on */
	uint8_t *text;		/* its lines, malloc'ed, the callback's to free; NULL when cut */
	size_t len;
	char why[1024];		/* a cut dump: what cut it and what its bytes lack */
};

typedef int (*cw_follow_fn)(void *ctx, struct cw_stream_dump *dump);

/*
 * Read path ("-": standard input; a tty is set raw while read) to its end and
 * call fn for each dump as its #CD:END# line arrives, and for each dump cut
 * short, until fn returns non-zero. Lines outside dumps go to log unless it
 * is NULL. Returns 0, or -1 with err set when path cannot be read.
 */
int cw_follow(const char *path, FILE *log, cw_follow_fn fn, void *ctx, struct cw_error *err);

/* ---- report ---- */

#define CW_PATH_MAP_MAX 16

struct cw_report_opts {
	int json;
	int color;			/* text: function names in bold */
	/*
	 * Source paths as shown: each "OLD=NEW" (--path-map, the first that
	 * matches) replaces a leading directory OLD by NEW, as GDB's set
	 * substitute-path does; then strip_path (--strip-path) keeps the base
	 * name only, as addr2line -s does.
	 */
	const char *path_map[CW_PATH_MAP_MAX];
	unsigned int nr_path_map;
	int strip_path;
	/*
	 * Text: under a frame, the caller each unwinder that disagreed with the
	 * one taken proposed (crashwalk -v); the JSON always has them.
	 */
	int proposals;
	/*
	 * Under each frame (text) or in it (JSON "registers"), the registers
	 * the walk knew there (--frame-regs), as GDB's info registers in that
	 * frame: what a caller's frame cannot know is left out.
	 */
	int frame_regs;
};

void cw_report(FILE *out, const struct cw_report_opts *o, const struct cw_analysis *a);
/* A dump that could not be analyzed: with json, an object of its own in the stream. */
void cw_report_error(FILE *out, const struct cw_report_opts *o, const char *path,
		     const struct cw_analysis *a, const char *msg);
/* A build-id as lowercase hex into buf (2 * len + 1 bytes), as debuginfod names it. */
void cw_build_id_hex(const uint8_t *id, uint32_t len, char *buf, size_t size);
/* Check one --path-map argument, OLD=NEW with OLD not empty; 0 when it is one. */
int cw_path_map_valid(const char *arg);

/* ---- grouping many reports (fleet/cw_summary.c) ---- */

/* Reports grouped by crash signature, failed dumps by the cause of their error. */
struct cw_summary;

struct cw_summary *cw_summary_new(void);
/* One line of crashwalk --json output; -1 with err set when it is not one. */
int cw_summary_add(struct cw_summary *s, const char *line, size_t len, struct cw_error *err);
/* The groups, most dumps first: text, or with json one JSON object. */
void cw_summary_print(FILE *out, struct cw_summary *s, int json);
void cw_summary_free(struct cw_summary *s);

#endif /* CRASHWALK_H */
