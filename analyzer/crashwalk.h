/* SPDX-License-Identifier: GPL-2.0 */
/*
 * crashwalk.h - the crashwalk library's API: Cortex-M crash dumps in, call
 * stack, fault cause and RTOS threads out.
 *
 * Data flows one way: a dump reader fills a struct cw_dump (registers and
 * memory), the firmware image supplies code and symbols, the engine turns
 * registers and memory into frames, the symbolizer names them, the RTOS
 * model adds the threads and the report prints it all. The decoders and
 * models behind them are declared in cw_internal.h.
 */
#ifndef CRASHWALK_H
#define CRASHWALK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CW_JSON_SCHEMA_VERSION	5

/* An error that names the file, the byte offset and what is wrong with it. */
struct cw_error {
	char msg[512];
};

/* Fill err ("FILE: offset N (0xN): ...", or "FILE: ..." when offset < 0); returns -1. */
int cw_fail(struct cw_error *err, const char *file, long offset, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* ---- memory: the dump's regions, then the firmware's loadable sections ---- */

struct cw_region {
	uint32_t addr;
	uint32_t size;
	const uint8_t *data;	/* points into a buffer owned by the dump or the image */
	const char *origin;	/* "dump" or "image" */
};

struct cw_mem {
	struct cw_region *regions;
	unsigned int nr;
	unsigned int cap;
};

int cw_mem_read(const struct cw_mem *mem, uint32_t addr, void *buf, uint32_t size);
int cw_mem_read32(const struct cw_mem *mem, uint32_t addr, uint32_t *val);

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

const char *cw_reg_name(enum cw_reg r);

static inline int cw_reg_ok(const struct cw_regs *regs, enum cw_reg n)
{
	return (regs->valid >> n) & 1;
}

/* ---- dumps ---- */

enum cw_dump_format {
	CW_FMT_UNKNOWN,
	CW_FMT_ELF_CORE,
	CW_FMT_ZEPHYR,
	CW_FMT_CRASHCATCHER,
};

/*
 * Whether the registers are those at the fault handler's first instruction
 * (LR holds EXC_RETURN, the exception frame is still on the stack) or those
 * of the interrupted code (the dump writer already popped the frame).
 */
enum cw_reg_context {
	CW_CTX_HANDLER_ENTRY,
	CW_CTX_PRE_EXCEPTION,
	CW_CTX_MEMORY_ONLY,	/* no registers (remoteproc): cw_find_exception_frame() */
};

/* A writable section of the firmware the dump does not cover. */
struct cw_gap {
	const char *section;
	uint32_t lo, hi;	/* [lo, hi) */
	int initial;		/* the image's initial values stand in (.data), else unknown (.bss) */
};

#define CW_MAX_GAPS	8
#define CW_MAX_BUILD_ID	64	/* bytes: SHA-1 ids are 20, the longest in use 32 */

struct cw_dump {
	const char *path;
	enum cw_dump_format format;
	enum cw_reg_context context;
	struct cw_regs regs;
	uint32_t reason;	/* Zephyr reason code, or ~0u */
	uint8_t *buf;		/* the whole file, owned */
	size_t len;
	struct cw_mem mem;
	unsigned int has_fp;	/* CrashCatcher: s0-s31 and fpscr present */
	const char *warning;	/* the dump is readable but its writer reported a problem */
	struct cw_gap gaps[CW_MAX_GAPS];	/* filled by cw_image_gaps() */
	unsigned int nr_gaps;
	uint8_t build_id[CW_MAX_BUILD_ID];	/* ELF core: its NT_GNU_BUILD_ID note */
	uint32_t build_id_len;
};

int cw_dump_parse(struct cw_dump *dump, const char *path, const uint8_t *buf, size_t len,
		  struct cw_error *err);
/* Read and parse the dump at path; "-" is standard input, named "<stdin>". */
int cw_dump_load(struct cw_dump *dump, const char *path, struct cw_error *err);
void cw_dump_free(struct cw_dump *dump);
const char *cw_dump_format_name(enum cw_dump_format fmt);

/* ---- firmware image: code, symbols, line info ---- */

struct cw_image;

struct cw_symbol {
	const char *name;
	uint32_t addr;		/* Thumb bit cleared */
	uint32_t size;
};

struct cw_srcline {
	const char *file;
	int line;
};

/* A function inlined at an address, innermost first; line is where execution is in it. */
struct cw_inline {
	const char *func;
	struct cw_srcline src;
};

#define CW_MAX_INLINE	8

struct cw_image *cw_image_open(const char *path, struct cw_error *err);
void cw_image_close(struct cw_image *img);
int cw_image_add_memory(struct cw_image *img, struct cw_mem *mem);
void cw_image_gaps(const struct cw_image *img, struct cw_dump *dump);
int cw_image_lookup(const struct cw_image *img, const char *name, uint32_t *addr);

/* ---- unwinding ---- */

enum cw_method {
	CW_M_REGS,		/* the dump's registers */
	CW_M_EXCEPTION,		/* popped from a hardware exception frame */
	CW_M_PROLOGUE,		/* pseudo-execution: the prologue from the function start to the pc */
	CW_M_FP,		/* r7 frame record, via lib/fw_walk.h */
	CW_M_LR,		/* the link register of a leaf */
	CW_M_SCAN,		/* stack scan, return address checked against the call graph */
	CW_M_EHABI,		/* ARM EHABI unwind opcodes from .ARM.exidx/.ARM.extab */
	CW_M_CFI,		/* DWARF CFI from .debug_frame or .eh_frame */
	CW_M_EPILOGUE,		/* pseudo-execution: from the pc forward through the epilogue */
	CW_M_NR
};

enum cw_unwinder {
	CW_UNWIND_AUTO,		/* the engine: CFI, EHABI, pseudo-execution, fp, scan, cross-checked */
	CW_UNWIND_PROLOGUE,	/* pseudo-execution (epilogue forward, else prologue) alone */
	CW_UNWIND_FP,
	CW_UNWIND_SCAN,
	CW_UNWIND_EHABI,	/* EHABI; pseudo-execution only for code without an entry */
	CW_UNWIND_CFI,		/* DWARF CFI; pseudo-execution only for code without CFI */
};

enum cw_stop {
	CW_STOP_OUTERMOST,	/* reached the reset handler or a zero return address */
	CW_STOP_DEPTH,
	CW_STOP_NO_SYMBOL,	/* pc not inside a known function */
	CW_STOP_BAD_PC,		/* pc not in code */
	CW_STOP_READ,		/* needed memory not in the dump or the image */
	CW_STOP_NO_RETURN,	/* no saved return address found */
	CW_STOP_NO_PSP,		/* exception frame on the process stack, PSP unknown */
	CW_STOP_FP_CHAIN,	/* frame-pointer chain ended or broke */
	CW_STOP_NOT_INCREASING,	/* sp did not move up: a loop */
	CW_STOP_TASK_ENTRY,	/* reached where the RTOS started the thread */
	CW_STOP_STACK_END,	/* the caller's frame would lie above the thread's stack */
	CW_STOP_NR
};

#define CW_FRAME_EXCEPTION	0x1	/* this frame was interrupted by an exception */
#define CW_FRAME_INDIRECT	0x2	/* found at a BLX register call */
#define CW_FRAME_TAILCALL	0x4	/* the call graph needed a tail call to agree */
#define CW_FRAME_FALLBACK	0x8	/* --method cfi/ehabi: no table for this code, pseudo-executed */
#define CW_FRAME_LOST		0x10	/* the exception frame was never stacked: pc unknown,
					 * the function inferred from its caller's call */
#define CW_FRAME_FP_STACKED	0x20	/* extended frame, s0-s15 and FPSCR written */
#define CW_FRAME_FP_LAZY	0x40	/* extended frame, space reserved but FPCCR.LSPACT:
					 * s0-s15 were still in the FPU at the crash */
#define CW_FRAME_FNC_RETURN	0x80	/* Secure code that called Non-secure code (BLXNS) */
#define CW_FRAME_RETURN_ADDR	0x100	/* pc is a return address: the call is before it */
#define CW_FRAME_SEARCHED	0x200	/* the exception frame was found by search: the dump
					 * lacked the stack pointer that held it */

struct cw_frame {
	uint32_t pc;
	uint32_t sp;
	enum cw_method method;
	int confidence;		/* 0-100 */
	unsigned int flags;
	/*
	 * How the engine found the caller of the frame below this one: bit
	 * (1 << enum cw_method) of each unwinder that gave an answer, and of
	 * the others split by whether their answer (caller pc and sp) agreed
	 * with the one taken.
	 */
	unsigned int applied;
	unsigned int agreed;
	unsigned int disagreed;
	uint32_t exc_return;	/* with CW_FRAME_EXCEPTION */
	uint32_t stacked_lr;	/* popped with CW_FRAME_EXCEPTION: the interrupted code's lr */
	const struct cw_symbol *func;
	struct cw_srcline src;
	int has_src;
	struct cw_inline inl[CW_MAX_INLINE];	/* inlined calls at pc, innermost first */
	unsigned int nr_inl;
};

#define CW_MAX_FRAMES	64

/* What bounded a frame search: the stack it looked in. */
enum cw_search_bound {
	CW_BOUND_DUMP,		/* every dumped RAM word outside the other kind's stacks */
	CW_BOUND_SYMBOLS,	/* a stack the firmware's symbols name */
	CW_BOUND_RTOS,		/* the running thread's stack, from the RTOS's objects */
};

struct cw_stack_range {
	uint32_t lo, hi;	/* [lo, hi) */
	int process;		/* a thread's (process) stack, else the main stack */
	enum cw_search_bound bound;
	char what[64];		/* the symbols or the thread that name it */
};

#define CW_MAX_STACK_RANGES	8

/* Where the stacks are, for a search: cw_stack_hints() fills it. */
struct cw_search_hints {
	struct cw_stack_range ranges[CW_MAX_STACK_RANGES];
	unsigned int nr;
	int rtos;		/* an RTOS's objects name a running thread */
};

/* The outcome of a frame search, for the report. */
struct cw_search {
	int ran, found;
	enum cw_reg reg;	/* the stack pointer the dump lacked */
	uint32_t at;		/* the frame taken as live */
	unsigned int candidates;	/* frames that passed the checks on their words */
	unsigned int tried;	/* trial unwinds, from the highest candidate down */
	unsigned int complete;	/* of those, with a complete chain (at most 2: the
				 * search ends at the first rival) */
	int have_other;		/* another candidate also yields a complete chain: */
	uint32_t other;		/* the next one below the frame taken */
	int truncated;		/* more candidates than trial unwinds allowed */
	int confidence;
	enum cw_search_bound bound;
	uint32_t lo, hi;	/* the stack searched, [lo, hi) */
};

struct cw_backtrace {
	struct cw_frame frames[CW_MAX_FRAMES];
	unsigned int nr;
	enum cw_stop stop;
	char stop_detail[128];
	uint32_t stop_addr;	/* CW_STOP_BAD_PC: the return address that is not code */
	struct cw_search search;
};

/*
 * What bounds an unwind besides memory: the thread's stack, and where the
 * RTOS starts its threads. Every unwinder's caller lies inside the stack;
 * the chain ends at the thread's start instead of reading what is above it.
 */
struct cw_bounds {
	uint32_t stack_lo, stack_hi;	/* [lo, hi); hi 0: not known */
	uint32_t task_exit;	/* the return address a task's function is given (FreeRTOS
				 * prvTaskExitError, configTASK_RETURN_ADDRESS); 0: none */
	uint32_t thread_entry;	/* the function every thread starts in (Zephyr
				 * z_thread_entry); 0: none */
	const char *task_exit_name, *thread_entry_name;
};

struct cw_target {
	const struct cw_mem *mem;
	struct cw_image *img;
	const struct cw_bounds *bounds;	/* or NULL */
	const struct cw_search_hints *hints;	/* NULL: a missing stack pointer stops the walk */
	const struct cw_search *found;	/* how cw_find_exception_frame() found the registers */
};

unsigned int cw_fault_frame(enum cw_reg_context context, const struct cw_backtrace *bt);
const char *cw_search_bound_name(enum cw_search_bound b);
int cw_sp_parse(const char *spec, struct cw_regs *regs, struct cw_error *err);
int cw_find_exception_frame(const struct cw_target *t, struct cw_dump *dump, uint32_t *at,
			    struct cw_search *res);
int cw_regs_from_record(const struct cw_target *t, struct cw_dump *dump, const char *spec,
			struct cw_error *err);
int cw_unwind(const struct cw_target *t, const struct cw_regs *regs,
	      enum cw_reg_context context, enum cw_unwinder how, struct cw_backtrace *bt);
void cw_symbolize(struct cw_image *img, struct cw_backtrace *bt);
const char *cw_method_name(enum cw_method m);
const char *cw_stop_name(enum cw_stop s);
int cw_unwinder_parse(const char *s, enum cw_unwinder *out);

/* ---- fault decoding ---- */

struct cw_fault {
	int have_scb;
	uint32_t cfsr, hfsr, dfsr, mmfar, bfar, afsr, shcsr;
	int have_sfsr;		/* v8-M SAU registers were in the dump */
	uint32_t sfsr, sfar;
	char lines[16][160];
	unsigned int nr;
	char insn[224];		/* the faulting instruction, disassembled */
	char cls[48];		/* short class for grouping: "bus-precise", "undefined", ... */
};

/* CFSR bits for a failed exception stacking: MSTKERR, STKERR, STKOF. */
#define CW_CFSR_STACKING	((1u << 4) | (1u << 12) | (1u << 20))
#define CW_SCB_CFSR		0xE000ED28u

void cw_fault_decode(const struct cw_mem *mem, uint32_t fault_pc, int pc_ok, struct cw_fault *f);

/* ---- the dump against the firmware (libcw_match.c) ---- */

/* Each way the dump contradicts the firmware, one line naming what differed and where. */
struct cw_match {
	char lines[8][224];
	unsigned int nr;
};

unsigned int cw_match(const struct cw_target *t, const struct cw_dump *dump,
		      const struct cw_backtrace *bt, const struct cw_fault *f, struct cw_match *m);

/* ---- RTOS threads (libcw_rtos.c) ---- */

enum cw_rtos_kind {
	CW_RTOS_AUTO,		/* detect from the firmware's symbols */
	CW_RTOS_NONE,
	CW_RTOS_FREERTOS,
	CW_RTOS_ZEPHYR,
};

enum cw_thread_state {
	CW_TS_UNKNOWN,
	CW_TS_RUNNING,		/* the thread the CPU was in (FreeRTOS pxCurrentTCB, Zephyr _current) */
	CW_TS_READY,
	CW_TS_DELAYED,		/* sleeping until a tick */
	CW_TS_BLOCKED,		/* waiting on an event, with or without a timeout */
	CW_TS_SUSPENDED,
	CW_TS_DEAD,
};

/* Why a thread's stack is reported overflowed. */
#define CW_OVF_SP_OUTSIDE	0x1	/* its sp is outside its stack */
#define CW_OVF_WATERMARK	0x2	/* the fill pattern at the stack's low end is overwritten */
#define CW_OVF_PSPLIM		0x4	/* the fault is a v8-M stack-limit (STKOF) fault in it */

struct cw_thread {
	char name[48];
	uint32_t tcb;
	enum cw_thread_state state;
	int priority;
	int current;
	int have_stack;		/* stack_lo is known; stack_hi too when stack_size */
	uint32_t stack_lo, stack_hi, stack_size;
	uint32_t stack_bound;	/* without stack_size: the next thread's stack or TCB above
				 * stack_lo, which its stack cannot reach into; 0: none */
	int have_use;
	uint32_t stack_untouched;	/* bytes of fill pattern left at the low end */
	uint32_t overflow;	/* CW_OVF_* */
	const char *layout;	/* how its registers were found: "ARM_CM4F", "callee_saved", ... */
	int have_psplim;
	uint32_t psplim, exc_return;
	int have_regs;
	struct cw_regs regs;	/* its registers when switched out, or at the fault */
	char problem[160];	/* why it has no backtrace, or what looked wrong */
	struct cw_backtrace bt;
};

#define CW_MAX_THREADS	64

struct cw_rtos {
	enum cw_rtos_kind kind;
	int layout_dwarf;	/* struct layouts came from DWARF (else the documented defaults) */
	struct cw_thread *threads;
	unsigned int nr;
	char warnings[8][160];	/* inconsistencies in the kernel's lists, one per line */
	unsigned int nr_warnings;
};

int cw_rtos_parse(const char *s, enum cw_rtos_kind *out);
const char *cw_rtos_name(enum cw_rtos_kind kind);
const char *cw_thread_state_name(enum cw_thread_state s);
int cw_rtos_threads(const struct cw_target *t, const struct cw_dump *dump,
		    const struct cw_backtrace *bt, const struct cw_fault *f, enum cw_rtos_kind kind,
		    enum cw_unwinder how, struct cw_rtos *out);
void cw_rtos_free(struct cw_rtos *r);
void cw_rtos_bounds(const struct cw_image *img, enum cw_rtos_kind kind, struct cw_bounds *b);
/* Where the stacks are: the firmware's stack symbols, and the running thread's with an RTOS. */
int cw_stack_hints(const struct cw_target *t, const struct cw_dump *dump, enum cw_rtos_kind kind,
		   enum cw_unwinder how, struct cw_search_hints *h);

/* ---- watching a directory for new dumps ---- */

typedef int (*cw_watch_fn)(void *ctx, const char *path);

int cw_watch_dir(const char *dir, const char *keep, cw_watch_fn fn, void *ctx);

/* ---- following a serial log for dumps (Zephyr #CD: lines) ---- */

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
#define CW_SHOWN_PATH_MAX 4096

struct cw_report_opts {
	int json;
	int color;			/* text: function names in bold */
	const struct cw_rtos *rtos;	/* threads to list after the backtrace, or NULL */
	const struct cw_match *match;	/* --allow-mismatch: how the dump contradicts the
					 * firmware, or NULL */
	/*
	 * Source paths as shown: each "OLD=NEW" (--path-map, the first that
	 * matches) replaces a leading directory OLD by NEW, as GDB's set
	 * substitute-path does; then strip_path (--strip-path) keeps the base
	 * name only, as addr2line -s does.
	 */
	const char *path_map[CW_PATH_MAP_MAX];
	unsigned int nr_path_map;
	int strip_path;
};

void cw_report(FILE *out, const struct cw_report_opts *o, const struct cw_dump *dump,
	       const struct cw_backtrace *bt, const struct cw_fault *f);
void cw_report_error(FILE *out, const struct cw_report_opts *o, const char *path,
		     const char *msg);
/* Check one --path-map argument, OLD=NEW with OLD not empty; 0 when it is one. */
int cw_path_map_valid(const char *arg);

#endif /* CRASHWALK_H */
