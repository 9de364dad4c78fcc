/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cw_internal.h - what the crashwalk library's files share beyond the API of
 * crashwalk.h: memory building, the image's code and DWARF lookups, Thumb
 * decoding and pseudo-execution, EHABI, CFI and the exception model.
 */
#ifndef CW_INTERNAL_H
#define CW_INTERNAL_H

#include "crashwalk.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

/* ---- registers and memory ---- */

static inline void cw_reg_set(struct cw_regs *regs, enum cw_reg n, uint32_t v)
{
	regs->r[n] = v;
	regs->valid |= 1u << n;
}


int cw_mem_add(struct cw_mem *mem, uint32_t addr, uint32_t size, const uint8_t *data,
	       const char *origin);
const struct cw_region *cw_mem_find(const struct cw_mem *mem, uint32_t addr);
int cw_mem_read32_dumped(const struct cw_mem *mem, uint32_t addr, uint32_t *val);
void cw_mem_free(struct cw_mem *mem);

/* ---- firmware image: code, symbols, line info, struct layouts ---- */

/* A loadable section of the firmware, named. */
struct cw_image_section {
	const char *name;
	uint32_t addr, size;
	const uint8_t *data;
};

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

/* ---- Thumb decoding ---- */

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

#define CW_EXC_BASIC_WORDS	8
#define CW_EXC_XPSR_WORD	7
extern const enum cw_reg cw_exc_stacked[CW_EXC_BASIC_WORDS];

/* A frame the hardware pushed, as read from memory. */
struct cw_exc_frame {
	uint32_t base;		/* address of the stacked r0 */
	uint32_t words[CW_EXC_BASIC_WORDS];	/* in cw_exc_stacked order (FNC_RETURN: 2 words) */
	int have_callee;	/* v8-M additional state: r4-r11 below the basic frame */
	uint32_t callee[8];
	uint32_t size;		/* bytes from base to the sp before the exception */
	unsigned int fp;	/* CW_FRAME_FP_STACKED or CW_FRAME_FP_LAZY for an extended frame */
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
	const struct cw_regs *known;	/* stacked words the dump recorded, or NULL */
	const struct cw_regs *given;	/* MSP and PSP given by hand (--sp), or NULL: the
					 * words below each on its stack are dead */
	cw_search_trial_fn trial;
	void *ctx;
};

int cw_search_frame(const struct cw_target *t, const struct cw_search_req *req,
		    struct cw_exc_frame *out, struct cw_search *res, struct cw_backtrace *scratch);

/* ---- unwinding ---- */

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

#define CW_FPCCR		0xE000EF34u
#define CW_FPCAR		0xE000EF38u
#define CW_SCB_MMFAR		0xE000ED34u
#define CW_SCB_BFAR		0xE000ED38u

void cw_fault_explain(uint32_t cfsr, uint32_t hfsr, struct cw_fault *f);
void cw_fault_explain_debug(uint32_t dfsr, struct cw_fault *f);
void cw_fault_explain_secure(uint32_t sfsr, struct cw_fault *f);

#endif /* CW_INTERNAL_H */
