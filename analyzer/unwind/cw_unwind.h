/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cw_unwind.h - the unwinder engine's interface (unwind/cw_unwind.c): registers
 * and memory in, frames out, each with how it was found and why the walk ended.
 * Its steppers share cw_walk.h.
 */
#ifndef CW_UNWIND_H
#define CW_UNWIND_H

#include "base/cw_base.h"
#include "image/cw_image.h"
#include "unwind/cw_search.h"

struct cw_mem;

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

/*
 * The caller an unwinder proposed where the engine took another's (a bit of
 * struct cw_frame's disagreed): a reader weighing the frame sees what else
 * the stack could mean there, not only that something else was read.
 */
struct cw_proposal {
	enum cw_method method;
	uint32_t pc;		/* a return address (Thumb bit clear), or an EXC_RETURN value */
	uint32_t sp;		/* the caller's sp; for an EXC_RETURN, the sp at exception entry */
	const struct cw_symbol *func;	/* pc's function (cw_symbolize()), NULL: none */
};

/* The engine's five unwinders but the one taken. */
#define CW_MAX_PROPOSALS	4

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
	/* What each unwinder of disagreed proposed, in the engine's order. */
	struct cw_proposal proposed[CW_MAX_PROPOSALS];
	unsigned int nr_proposed;
	/*
	 * The registers the walk knew at this frame (--frame-regs): the dump's
	 * at frame 0, those an exception frame stacked, the callee-saved ones
	 * the unwinders restored or the callee kept, pc and sp.
	 */
	struct cw_regs regs;
	uint32_t exc_return;	/* with CW_FRAME_EXCEPTION */
	uint32_t stacked_lr;	/* popped with CW_FRAME_EXCEPTION: the interrupted code's lr */
	const struct cw_symbol *func;
	struct cw_srcline src;
	int has_src;
	struct cw_inline inl[CW_MAX_INLINE];	/* inlined calls at pc, innermost first */
	unsigned int nr_inl;
};

#define CW_MAX_FRAMES	64

struct cw_backtrace {
	struct cw_frame frames[CW_MAX_FRAMES];
	unsigned int nr;
	enum cw_stop stop;
	char stop_detail[160];
	uint32_t stop_addr;	/* CW_STOP_BAD_PC: the return address that is not code;
				 * CW_STOP_NO_RETURN at a stale EXC_RETURN: the pc of
				 * the kernel's start frame it led to */
	struct cw_search search;
};

/*
 * What bounds an unwind besides memory: the thread's stack, and where the
 * RTOS starts its threads. Every unwinder's caller lies inside the stack;
 * the chain ends at the thread's start instead of reading what is above it.
 */
#define CW_MAX_START_SVCS	4

struct cw_bounds {
	uint32_t stack_lo, stack_hi;	/* [lo, hi); hi 0: not known */
	uint32_t task_exit;	/* the return address a task's function is given (FreeRTOS
				 * prvTaskExitError, configTASK_RETURN_ADDRESS); 0: none */
	uint32_t thread_entry;	/* the function every thread starts in (Zephyr
				 * z_thread_entry); 0: none */
	const char *task_exit_name, *thread_entry_name;
	const char *task_exit_from;	/* how task_exit was learned: the code that stores it
					 * in a new task's frame, or NULL (by its default name) */
	/*
	 * The return address of each svc with which the kernel's port starts
	 * the first task (FreeRTOS: prvPortStartFirstTask, vStartFirstTask):
	 * only SVCall returns to the frame it stacks, and the handler that
	 * starts the first task never does, so that frame is dead once the
	 * threads run, wherever it lies (ARM_CM0, which leaves the main stack
	 * where it was, keeps it above every later frame).
	 */
	uint32_t start_svc[CW_MAX_START_SVCS];
	unsigned int nr_start_svc;
	const char *start_svc_name[CW_MAX_START_SVCS];
};

struct cw_target {
	const struct cw_mem *mem;
	struct cw_image *img;
	const struct cw_bounds *bounds;	/* or NULL */
	const struct cw_search_hints *hints;	/* NULL: a missing stack pointer stops the walk */
	const struct cw_search *found;	/* how cw_find_exception_frame() found the registers */
	/*
	 * The dump says the exception's stacking failed where its fault
	 * status is not in memory (a Zephyr dump's reason, its registers all
	 * zero but sp): the registers are none the code had, the stack above
	 * sp is intact.
	 */
	int stacking_failed;
};

unsigned int cw_fault_frame(enum cw_reg_context context, const struct cw_backtrace *bt);
int cw_find_exception_frame(const struct cw_target *t, enum cw_reg_context context,
			    uint32_t only_at, struct cw_regs *regs, uint32_t *at,
			    struct cw_search *res);
int cw_unwind(const struct cw_target *t, const struct cw_regs *regs,
	      enum cw_reg_context context, enum cw_unwinder how, struct cw_backtrace *bt);
const char *cw_method_name(enum cw_method m);
const char *cw_stop_name(enum cw_stop s);

/* Does the function at fn_addr leave through a branch to target (unwind/cw_step_scan.c)? */
int cw_tail_branches_to(const struct cw_target *t, uint32_t fn_addr, uint32_t target);

/*
 * Where a frame's code is looked up: a return address may follow a call that
 * ends its function, so its call site is at pc - 1.
 */
static inline uint32_t cw_code_addr(uint32_t pc, int is_return_addr)
{
	return is_return_addr ? pc - 1 : pc;
}

#endif /* CW_UNWIND_H */
