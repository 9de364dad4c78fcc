/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cw_rtos.h - RTOS threads (rtos/cw_rtos.c picks a kernel): each thread's state,
 * stack and backtrace from the firmware's kernel objects. The kernels' shared
 * model is cw_rtos_model.h.
 */
#ifndef CW_RTOS_H
#define CW_RTOS_H

#include "decode/cw_fault.h"
#include "unwind/cw_unwind.h"

struct cw_dump;

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
#define CW_OVF_STACK_LIMIT	0x8	/* the faulting instruction moves its sp below the
					 * stack's start: caught as it overflowed (PSPLIM,
					 * an MPU guard), whatever the dump says of the fault */

#define CW_MAX_RESTORED	4

struct cw_thread {
	char name[48];
	uint32_t tcb;
	enum cw_thread_state state;
	char kernel_state[24];	/* the kernel's own name for the state, "" if it has none */
	char waits_on[80];	/* blocked: on what object, where the kernel records it */
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
	/*
	 * The hardware frame of the context the kernel saved at the thread's
	 * last switch, 0 if none: the running thread's is stale (a frame search
	 * must not take it for the live one while another fits).
	 */
	uint32_t saved_frame;
	/*
	 * The running thread's: more contexts its kernel saved at earlier
	 * switches and has restored since, found by their shape where the
	 * kernel keeps no pointer to them (NuttX clears xcp.regs): as stale.
	 */
	uint32_t restored[CW_MAX_RESTORED];
	unsigned int nr_restored;
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
	/*
	 * Its threads run on the main stack, as its handlers do (NuttX without
	 * an interrupt stack): a switched-out thread's EXC_RETURN names the MSP.
	 */
	int threads_on_msp;
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
const char *cw_rtos_isr_stack(const struct cw_image *img, enum cw_rtos_kind kind, uint32_t *lo,
			      uint32_t *hi);

#endif /* CW_RTOS_H */
