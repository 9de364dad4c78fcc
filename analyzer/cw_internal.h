/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cw_internal.h - what the crashwalk library's stages share beyond the API of
 * crashwalk.h: the dump and its memory, the image's code and DWARF lookups,
 * the engine's frames, Thumb decoding and pseudo-execution, EHABI, CFI, the
 * exception model, the fault, the RTOS threads and the report's input.
 */
#ifndef CW_INTERNAL_H
#define CW_INTERNAL_H

#include "crashwalk.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

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
int cw_mem_add(struct cw_mem *mem, uint32_t addr, uint32_t size, const uint8_t *data,
	       const char *origin);
const struct cw_region *cw_mem_find(const struct cw_mem *mem, uint32_t addr);
int cw_mem_read32_dumped(const struct cw_mem *mem, uint32_t addr, uint32_t *val);
void cw_mem_free(struct cw_mem *mem);

/* ---- registers ---- */

const char *cw_reg_name(enum cw_reg r);
int cw_reg_by_name(const char *name, size_t len);

static inline int cw_reg_ok(const struct cw_regs *regs, enum cw_reg n)
{
	return (regs->valid >> n) & 1;
}

static inline void cw_reg_set(struct cw_regs *regs, enum cw_reg n, uint32_t v)
{
	regs->r[n] = v;
	regs->valid |= 1u << n;
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

/* ---- firmware image: code, symbols, line info, struct layouts ---- */

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

int cw_image_add_memory(struct cw_image *img, struct cw_mem *mem);
void cw_image_gaps(const struct cw_image *img, struct cw_dump *dump);
int cw_image_lookup(const struct cw_image *img, const char *name, uint32_t *addr);

/* A loadable section of the firmware, named. */
struct cw_image_section {
	const char *name;
	uint32_t addr, size;
	const uint8_t *data;
};

/* The path the image was opened with, naming it in messages. */
const char *cw_image_path(const struct cw_image *img);
const struct cw_mem *cw_image_contents(const struct cw_image *img);
const struct cw_image_section *cw_image_rosec(const struct cw_image *img, unsigned int n);
const struct cw_image_section *cw_image_datasec(const struct cw_image *img, unsigned int n);
const char *cw_image_object_name(const struct cw_image *img, uint32_t addr);
uint32_t cw_image_build_id(const struct cw_image *img, const uint8_t **id);
const struct cw_symbol *cw_image_func(const struct cw_image *img, uint32_t addr);
int cw_image_is_code(const struct cw_image *img, uint32_t addr);
int cw_image_insn_start(const struct cw_image *img, uint32_t addr);
int cw_image_srcline(struct cw_image *img, uint32_t addr, struct cw_srcline *out);
unsigned int cw_image_inlines(struct cw_image *img, uint32_t addr, struct cw_inline *out,
			      unsigned int max, struct cw_srcline *outer);
uint32_t cw_image_vector(const struct cw_image *img, unsigned int n, int *ok);
int cw_image_object(const struct cw_image *img, const char *name, uint32_t *addr, uint32_t *size);
int cw_image_object_at(const struct cw_image *img, uint32_t addr, uint32_t *size);
int cw_image_is_handler(const struct cw_image *img, uint32_t func_addr);
int cw_image_exidx(const struct cw_image *img, uint32_t *addr, uint32_t *size);

struct Dwarf_CFI_s;	/* libdw's Dwarf_CFI */

void cw_image_cfi(struct cw_image *img, struct Dwarf_CFI_s **debug_frame,
		  struct Dwarf_CFI_s **eh_frame);
int cw_image_has_dwarf(const struct cw_image *img);
int cw_image_struct_member(const struct cw_image *img, const char *type, const char *path,
			   uint32_t *off, uint32_t *size);
int cw_image_struct_size(const struct cw_image *img, const char *type, uint32_t *size);

/* A variable that is an array of a given struct; rows: a 2-D array's first dimension, else 1. */
struct cw_typed_object {
	const char *name;
	uint32_t addr, size, rows;
};

unsigned int cw_image_objects_of_type(const struct cw_image *img, const char *elem,
				      struct cw_typed_object *out, unsigned int max);

/* ---- unwinding ---- */

/*
 * How a frame was found, written once for the enum and the names the report
 * prints (as lib/fw_walk.h's FW_STOP_LIST): REGS the dump's registers;
 * EXCEPTION popped from a hardware exception frame; PROLOGUE pseudo-execution
 * of the prologue from the function start to the pc; FP the r7 frame record,
 * via lib/fw_walk.h; LR the link register of a leaf; SCAN a stack scan, the
 * return address checked against the call graph; EHABI the unwind opcodes of
 * .ARM.exidx/.ARM.extab; CFI DWARF CFI from .debug_frame or .eh_frame;
 * EPILOGUE pseudo-execution from the pc forward through the epilogue.
 */
#define CW_METHOD_LIST(...)	\
__VA_ARGS__(REGS, registers)\
__VA_ARGS__(EXCEPTION, exception)\
__VA_ARGS__(PROLOGUE, prologue)\
__VA_ARGS__(FP, fp)\
__VA_ARGS__(LR, lr)\
__VA_ARGS__(SCAN, scan)\
__VA_ARGS__(EHABI, ehabi)\
__VA_ARGS__(CFI, cfi)\
__VA_ARGS__(EPILOGUE, epilogue)

#define CW_METHOD_ENUM(id, ...)	CW_M_##id,

enum cw_method {
	CW_METHOD_LIST(CW_METHOD_ENUM)
	CW_M_NR
};

/*
 * Why a walk ended, written once for the enum and the report's names:
 * OUTERMOST reached the reset handler or a zero return address; DEPTH
 * CW_MAX_FRAMES; NO_SYMBOL pc not inside a known function; BAD_PC pc not in
 * code; READ needed memory not in the dump or the image; NO_RETURN no saved
 * return address found; NO_PSP an exception frame on the process stack, PSP
 * unknown; FP_CHAIN the frame-pointer chain ended or broke; NOT_INCREASING sp
 * did not move up (a loop); TASK_ENTRY reached where the RTOS started the
 * thread; STACK_END the caller's frame would lie above the thread's stack.
 */
#define CW_STOP_LIST(...)	\
__VA_ARGS__(OUTERMOST, outermost)\
__VA_ARGS__(DEPTH, depth)\
__VA_ARGS__(NO_SYMBOL, no_symbol)\
__VA_ARGS__(BAD_PC, bad_pc)\
__VA_ARGS__(READ, read_fault)\
__VA_ARGS__(NO_RETURN, no_return_address)\
__VA_ARGS__(NO_PSP, no_psp)\
__VA_ARGS__(FP_CHAIN, fp_chain)\
__VA_ARGS__(NOT_INCREASING, not_increasing)\
__VA_ARGS__(TASK_ENTRY, task_entry)\
__VA_ARGS__(STACK_END, stack_end)

#define CW_STOP_ENUM(id, ...)	CW_STOP_##id,

enum cw_stop {
	CW_STOP_LIST(CW_STOP_ENUM)
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
#define CW_FRAME_FP_UNKNOWN	0x400	/* extended frame, FPCCR/FPCAR not in the dump: s0-s15
					 * stacked, or lazily only reserved */

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

#define CW_MAX_STACK_RANGES	24

/* Where the stacks are, for a search: cw_stack_hints() fills it. */
struct cw_search_hints {
	struct cw_stack_range ranges[CW_MAX_STACK_RANGES];
	unsigned int nr;
	int rtos;		/* an RTOS's objects name a running thread */
	/*
	 * Its scheduler has started: thread mode runs on the process stack
	 * only, so a thread-mode frame on the main stack is stale (the one
	 * the scheduler's start left there).
	 */
	int threads_run;
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
	char stop_detail[160];
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
	const char *task_exit_from;	/* how task_exit was learned: the code that stores it
					 * in a new task's frame, or NULL (by its default name) */
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
int cw_find_exception_frame(const struct cw_target *t, enum cw_reg_context context,
			    uint32_t only_at, struct cw_regs *regs, uint32_t *at,
			    struct cw_search *res);
int cw_unwind(const struct cw_target *t, const struct cw_regs *regs,
	      enum cw_reg_context context, enum cw_unwinder how, struct cw_backtrace *bt);
void cw_symbolize(struct cw_image *img, struct cw_backtrace *bt);
const char *cw_method_name(enum cw_method m);
const char *cw_stop_name(enum cw_stop s);

int cw_tail_branches_to(const struct cw_target *t, uint32_t fn_addr, uint32_t target);

/*
 * Where a frame's code is looked up: a return address may follow a call that
 * ends its function, so its call site is at pc - 1.
 */
static inline uint32_t cw_code_addr(uint32_t pc, int is_return_addr)
{
	return is_return_addr ? pc - 1 : pc;
}

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

/* CFSR (MMFSR, BFSR, UFSR) bits; libcw_fault.c explains each. */
#define CW_CFSR_IACCVIOL	(1u << 0)
#define CW_CFSR_DACCVIOL	(1u << 1)
#define CW_CFSR_MUNSTKERR	(1u << 3)
#define CW_CFSR_MSTKERR		(1u << 4)
#define CW_CFSR_MLSPERR		(1u << 5)
#define CW_CFSR_MMARVALID	(1u << 7)
#define CW_CFSR_IBUSERR		(1u << 8)
#define CW_CFSR_PRECISERR	(1u << 9)
#define CW_CFSR_IMPRECISERR	(1u << 10)
#define CW_CFSR_UNSTKERR	(1u << 11)
#define CW_CFSR_STKERR		(1u << 12)
#define CW_CFSR_LSPERR		(1u << 13)
#define CW_CFSR_BFARVALID	(1u << 15)
#define CW_CFSR_UNDEFINSTR	(1u << 16)
#define CW_CFSR_INVSTATE	(1u << 17)
#define CW_CFSR_INVPC		(1u << 18)
#define CW_CFSR_NOCP		(1u << 19)
#define CW_CFSR_STKOF		(1u << 20)
#define CW_CFSR_UNALIGNED	(1u << 24)
#define CW_CFSR_DIVBYZERO	(1u << 25)
/* A failed exception stacking: the crash's own frame was never written. */
#define CW_CFSR_STACKING	(CW_CFSR_MSTKERR | CW_CFSR_STKERR | CW_CFSR_STKOF)
#define CW_SFSR_SFARVALID	(1u << 6)	/* v8-M SAU: SFAR holds the address */
#define CW_SCB_CFSR		0xE000ED28u

void cw_fault_decode(const struct cw_mem *mem, uint32_t fault_pc, int pc_ok, struct cw_fault *f);

#define CW_FPCCR		0xE000EF34u
#define CW_FPCAR		0xE000EF38u
#define CW_SCB_MMFAR		0xE000ED34u
#define CW_SCB_BFAR		0xE000ED38u

void cw_fault_explain(uint32_t cfsr, uint32_t hfsr, struct cw_fault *f);
void cw_fault_explain_debug(uint32_t dfsr, struct cw_fault *f);
void cw_fault_explain_secure(uint32_t sfsr, struct cw_fault *f);

/* ---- the dump against the firmware (libcw_match.c) ---- */

/* Each way the dump contradicts the firmware, one line naming what differed and where. */
struct cw_match {
	char lines[8][224];
	unsigned int nr;
};

unsigned int cw_match(const struct cw_target *t, const struct cw_dump *dump,
		      const struct cw_backtrace *bt, const struct cw_fault *f, struct cw_match *m);

/* ---- RTOS threads (libcw_rtos.c) ---- */

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
	int not_started;	/* the kernel says its scheduler has not started yet */
	int unpainted;		/* no stack holds the kernel's fill: stack use unknown */
	struct cw_thread *threads;
	unsigned int nr;
	char warnings[8][160];	/* inconsistencies in the kernel's lists, one per line */
	unsigned int nr_warnings;
};

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

/* ---- Thumb decoding ---- */

/* Is hw the first halfword of a 32-bit Thumb instruction (ARMv7-M ARM A5.1)? */
static inline int cw_thumb_is_32bit(uint16_t hw)
{
	return (hw >> 11) >= 0x1D;
}

enum cw_call_kind {
	CW_CALL_NONE,
	CW_CALL_BL,		/* direct: the target is known */
	CW_CALL_BLX_REG,	/* indirect: the target is in a register */
};

enum cw_call_kind cw_thumb_call_before(const struct cw_mem *mem, uint32_t ret, uint32_t *target);
int cw_thumb_bl_decode(uint16_t hw1, uint16_t hw2, uint32_t addr, uint32_t *target);
int cw_thumb_is_blx_reg(uint16_t hw);
int cw_thumb_b_target(const struct cw_mem *mem, uint32_t addr, uint32_t *target, unsigned int *len);

/* What a function's prologue did before a given pc, relative to the CFA (the sp at entry). */
struct cw_prologue {
	int32_t sp_off;		/* sp = CFA + sp_off (sp_off <= 0) */
	int32_t slot[16];	/* rN saved at CFA + slot[N], when saved & (1 << N) */
	uint32_t saved;
	int fp_set;		/* r7 = CFA + fp_off */
	int32_t fp_off;
	int sp_dynamic;		/* sp moved by an amount unknown here (alloca, VLA): use r7 */
	unsigned int insns;	/* instructions decoded */
};

int cw_prologue_analyze(const struct cw_mem *mem, const struct cw_image *img, uint32_t func,
			uint32_t pc, struct cw_prologue *out);

/* What the code from a pc to its function's return does, relative to a register at the pc. */
struct cw_epilogue {
	int base;		/* CW_SP or CW_R7: the register the offsets below start from */
	int32_t cfa_off;	/* the caller's sp = base + cfa_off */
	int32_t slot[16];	/* rN (pc: the return address) reloaded from base + slot[N] */
	uint32_t restored;
	uint32_t clobbered;	/* registers written with values the analysis does not know */
	int ret_lr;		/* returns through lr (BX lr, tail call): lr, or its slot */
	unsigned int insns;
};

int cw_epilogue_analyze(const struct cw_mem *mem, const struct cw_image *img, uint32_t func,
			uint32_t end, uint32_t pc, struct cw_epilogue *out);

/* A word a function stored at its first argument plus off. */
struct cw_stored_word {
	int32_t off;
	uint32_t val;
};

int cw_thumb_arg_stores(const struct cw_mem *mem, const struct cw_image *img, uint32_t func,
			struct cw_stored_word *out, unsigned int max);

/* ---- ARM EHABI unwind tables (.ARM.exidx, .ARM.extab) ---- */

enum cw_ehabi_status {
	CW_EHABI_OK,
	CW_EHABI_NO_ENTRY,	/* no exidx entry at or below the address */
	CW_EHABI_CANTUNWIND,	/* the entry is EXIDX_CANTUNWIND */
	CW_EHABI_REFUSE,	/* opcode 0x80 0x00: the table refuses to unwind */
	CW_EHABI_SPARE,		/* a spare or reserved opcode */
	CW_EHABI_TABLE,		/* table unreadable, truncated or malformed */
	CW_EHABI_PERSONALITY,	/* a compact personality index other than 0, 1, 2 */
	CW_EHABI_STACK,		/* a pop reads outside the dump and the image */
	CW_EHABI_REG,		/* the opcodes need a register whose value is unknown */
	CW_EHABI_NR
};

/* What a step used: the entry, the function start it names, the registers popped. */
struct cw_ehabi {
	uint32_t func;
	uint32_t entry;
	uint32_t popped;	/* bit n: rN was restored from the stack */
};

enum cw_ehabi_status cw_ehabi_find(const struct cw_mem *mem, uint32_t tab, uint32_t size,
				   uint32_t addr, uint32_t *func, uint32_t *entry);
enum cw_ehabi_status cw_ehabi_step(const struct cw_mem *mem, uint32_t tab, uint32_t size,
				   uint32_t addr, struct cw_regs *regs, struct cw_ehabi *info);
const char *cw_ehabi_status_name(enum cw_ehabi_status s);

/* ---- DWARF call frame information (.debug_frame, .eh_frame) ---- */

enum cw_cfi_status {
	CW_CFI_OK,
	CW_CFI_NO_ENTRY,	/* no CFI section, or no FDE covers the address */
	CW_CFI_TABLE,		/* libdw could not read the CFI, or a rule is malformed */
	CW_CFI_EXPR,		/* a DWARF expression operation crashwalk does not evaluate */
	CW_CFI_REG,		/* the CFA or return address needs a register whose value is unknown */
	CW_CFI_READ,		/* a saved register lies outside the dump and the image */
	CW_CFI_UNDEFINED,	/* the return address column is undefined: the outermost frame */
	CW_CFI_NR
};

struct cw_cfi {
	uint32_t start, end;	/* the address range the rules hold for */
	int eh_frame;		/* found in .eh_frame (else .debug_frame) */
	unsigned int bad_op;	/* with CW_CFI_EXPR: the DW_OP refused */
};

enum cw_cfi_status cw_cfi_step(struct cw_image *img, const struct cw_mem *mem, uint32_t addr,
			       struct cw_regs *regs, struct cw_cfi *info);
const char *cw_cfi_status_name(enum cw_cfi_status s);

/* ---- exception model (libcw_exc.c) ---- */

#define CW_EXC_RETURN_PREFIX	0xFF000000u	/* bits 31:24 of every EXC_RETURN */
#define CW_EXC_RETURN_FTYPE	(1u << 4)	/* 0: the frame has the FP extension */
#define CW_EXC_RETURN_THREAD_MSP	0xFFFFFFF9u	/* basic frame, Thread mode, MSP */
#define CW_EXC_RETURN_THREAD_MSP_FP	0xFFFFFFE9u	/* extended frame, Thread mode, MSP */
#define CW_EXC_RETURN_THREAD_PSP	0xFFFFFFFDu	/* basic frame, Thread mode, PSP */
#define CW_EXC_RETURN_LOW_BYTE_BASE	0xFFFFFF00u	/* Zephyr keeps only bits 7:0 */
#define CW_FNC_RETURN		0xFEFFFFFEu	/* bit 0 aside */
#define CW_FNC_FRAME_SIZE	8u	/* BLXNS pushed the return address and partial xPSR */
#define CW_FNC_RET_WORD		0	/* where in that frame the return address is */
#define CW_CONTROL_SPSEL	(1u << 1)	/* Thread mode runs on PSP */
#define CW_LR_RESET_VALUE	0xFFFFFFFFu
#define CW_XPSR_T		(1u << 24)
#define CW_XPSR_ALIGN		(1u << 9)	/* the frame was realigned: one word of padding */
#define CW_XPSR_IPSR		0x1FFu		/* exception number: non-zero in Handler mode */
#define CW_XPSR_RESERVED	0x00E00000u	/* bits 23:21; bit 20 is v8-M SFPA */
#define CW_SYSTEM_BASE		0xE0000000u	/* the System region: no stack lives there */

struct cw_exc_return {
	uint32_t value;
	int v8m;		/* value uses v8-M bits (S, DCRS, ES) */
	int thread;		/* return to Thread mode (else Handler) */
	int psp;		/* frame on the process stack */
	int fp_frame;		/* extended frame: FType == 0 */
	int secure;		/* v8-M: S == 1 */
	int dcrs;		/* v8-M: default callee register stacking */
	int es;			/* v8-M: exception taken to Secure */
	int fnc_return;		/* FNC_RETURN (0xFEFFFFFx), not an exception return */
};

int cw_is_exc_return(uint32_t v);
int cw_exc_return_decode(uint32_t value, struct cw_exc_return *out);
int cw_exc_return_to_thread_psp(uint32_t v);
int cw_exc_return_fp_frame(uint32_t v);
uint32_t cw_exc_frame_size(const struct cw_exc_return *er, uint32_t xpsr, int lazy_fp_ts);
unsigned int cw_exc_fp_state(const struct cw_mem *mem, uint32_t base, int *ts);
int cw_exc_lazy_frame(const struct cw_mem *mem, uint32_t *base);

#define CW_EXC_BASIC_WORDS	8
#define CW_EXC_LR_WORD		5
#define CW_EXC_PC_WORD		6
#define CW_EXC_XPSR_WORD	7
extern const enum cw_reg cw_exc_stacked[CW_EXC_BASIC_WORDS];
int cw_exc_stacked_word(enum cw_reg r);

/* A frame the hardware pushed, as read from memory. */
struct cw_exc_frame {
	uint32_t base;		/* address of the stacked r0 */
	uint32_t words[CW_EXC_BASIC_WORDS];	/* in cw_exc_stacked order (FNC_RETURN: 2 words) */
	int have_callee;	/* v8-M additional state: r4-r11 below the basic frame */
	uint32_t callee[8];
	uint32_t size;		/* bytes from base to the sp before the exception */
	unsigned int fp;	/* CW_FRAME_FP_STACKED, _LAZY or _UNKNOWN for an extended frame */
	uint32_t bad_addr;	/* with CW_EXC_READ: the word not in memory */
	uint32_t signature;	/* with CW_EXC_SIGNATURE: the word found instead */
};

enum cw_exc_status {
	CW_EXC_OK,
	CW_EXC_READ,		/* a word of the frame is not in the dump or the image */
	CW_EXC_SIGNATURE,	/* the additional state's integrity signature is wrong */
};

enum cw_exc_status cw_exc_frame_read(const struct cw_mem *mem, uint32_t sp,
				     const struct cw_exc_return *er, struct cw_exc_frame *f);
enum cw_exc_status cw_exc_fnc_frame_read(const struct cw_mem *mem, uint32_t sp,
					 struct cw_exc_frame *f);
void cw_exc_frame_pop(const struct cw_exc_frame *f, struct cw_regs *regs);
enum cw_reg cw_exc_banked_sp(int handler_state, int secure, int psp);

/* ---- the frame search (libcw_search.c) ---- */

/* A trial unwind from a candidate's registers: 0 with bt filled. */
typedef int (*cw_search_trial_fn)(void *ctx, const struct cw_regs *regs, struct cw_backtrace *bt);

struct cw_search_req {
	enum cw_reg reg;		/* the stack pointer the dump lacks */
	int process;			/* the frame is on a process (1) or main (0) stack, or
					 * either (-1) */
	const struct cw_exc_return *er;	/* the EXC_RETURN that named the frame */
	int fault_frame;		/* the fault's own frame: CFSR must agree with its pc */
	int innermost;			/* the newest exception's frame: a wild pc there can
					 * only be a fault's (no interrupt stacks one) */
	const struct cw_regs *known;	/* stacked words the dump recorded, or NULL */
	const struct cw_regs *given;	/* MSP and PSP given by hand (--sp), or NULL: the
					 * words below each on its stack are dead */
	uint32_t only_at;		/* where the frame is, when the dump says so; 0: anywhere */
	cw_search_trial_fn trial;
	void *ctx;
};

int cw_search_frame(const struct cw_target *t, const struct cw_search_req *req,
		    struct cw_exc_frame *out, struct cw_search *res, struct cw_backtrace *scratch);

/* ---- report ---- */

#define CW_SHOWN_PATH_MAX 4096

/* The crash (rtos, match: NULL for none) as cw_report() prints a struct cw_analysis. */
void cw_report_crash(FILE *out, const struct cw_report_opts *o, const struct cw_dump *dump,
		     const struct cw_backtrace *bt, const struct cw_fault *f, const struct cw_rtos *rtos,
		     const struct cw_match *match);

/* ---- the pipeline (libcw_analyze.c) ---- */

struct cw_analysis {
	struct cw_dump dump;
	struct cw_bounds ends;		/* where the RTOS starts and ends its threads */
	struct cw_search_hints hints;	/* where the stacks are, when a stack pointer is missing */
	struct cw_search found;		/* how a search found the registers */
	struct cw_backtrace bt;
	struct cw_fault fault;
	struct cw_match match;
	struct cw_rtos rtos;
};

/* --regs SYMBOL:LAYOUT: the registers of a dump without them, from a record in its memory. */
int cw_regs_from_record(const struct cw_target *t, struct cw_dump *dump, const char *spec,
			struct cw_error *err);

#endif /* CW_INTERNAL_H */
