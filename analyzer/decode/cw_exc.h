/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cw_exc.h - the exception model (decode/cw_exc.c): EXC_RETURN and FNC_RETURN
 * decoded, frame layouts, the one table of stacked registers, pop, banked SPs.
 */
#ifndef CW_EXC_H
#define CW_EXC_H

#include "base/cw_base.h"
#include "base/cw_mem.h"

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
#define CW_EXC_SVCALL		11u		/* the exception number svc raises */
#define CW_XPSR_RESERVED	0x00E00000u	/* bits 23:21; bit 20 is v8-M SFPA */
/* The FPU's context control: lazy stacking state and the reserved FP slots' address. */
#define CW_FPCCR		0xE000EF34u
#define CW_FPCAR		0xE000EF38u
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
int cw_exc_return_to_thread(uint32_t v, int psp);
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

#endif /* CW_EXC_H */
