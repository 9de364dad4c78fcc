// SPDX-License-Identifier: GPL-2.0
/*
 * cw_exc.c - the Cortex-M exception model: what an EXC_RETURN or
 * FNC_RETURN value says, the layout of the frame the hardware pushed, popping
 * it into registers and which banked stack pointer holds it (ARMv7-M
 * B1.5.6-B1.5.8, ARMv8-M B3.19-B3.21). The engine, the RTOS saved contexts
 * and the frame search (unwind/cw_search.c) all use this one model.
 */
#include <string.h>

#include "decode/cw_exc.h"
#include "unwind/cw_unwind.h"

#define EXC_BIT_ES	(1u << 0)
#define EXC_BIT_SPSEL	(1u << 2)
#define EXC_BIT_MODE	(1u << 3)
#define EXC_BIT_DCRS	(1u << 5)
#define EXC_BIT_S	(1u << 6)
#define EXC_RESERVED_ONES	0xFFFFFF80u	/* bits 31:24 prefix, 23:7 reserved as ones */
#define EXC_RESERVED_ZERO	(1u << 1)

#define FRAME_BASIC	0x20u
#define FRAME_EXT_FP	0x48u	/* S0-S15, FPSCR, reserved */
#define FRAME_EXT_TS	0x40u	/* S16-S31 when FPCCR.TS: Secure FP state */
#define ADDITIONAL_STATE_WORDS	10	/* integrity signature, reserved, r4-r11 */
#define INTEGRITY_SIG_MASK	0xFFFFFFFEu
#define INTEGRITY_SIG		0xFEFA125Au

#define FPCCR_LSPACT	(1u << 0)
#define FPCCR_TS	(1u << 26)
#define FPCCR_LSPEN	(1u << 30)
#define FPCCR_ASPEN	(1u << 31)
#define FPCAR_ADDR_MASK	(~7u)


/* The basic frame from its lowest word: the one table of stacked registers. */
const enum cw_reg cw_exc_stacked[CW_EXC_BASIC_WORDS] = {
	CW_R0, CW_R1, CW_R2, CW_R3, CW_R12, CW_LR, CW_PC, CW_XPSR
};

/* Where in the basic frame r is stacked, or -1 (r4-r11, sp: not in it). */
int cw_exc_stacked_word(enum cw_reg r)
{
	int k;

	for (k = 0; k < CW_EXC_BASIC_WORDS; k++)
		if (cw_exc_stacked[k] == r)
			return k;
	return -1;
}

/*
 * A value the walk must hand to this model rather than treat as code: any
 * word with the EXC_RETURN prefix, valid or not, or FNC_RETURN.
 */
int cw_is_exc_return(uint32_t v)
{
	return (v & CW_EXC_RETURN_PREFIX) == CW_EXC_RETURN_PREFIX ||
	       (v & ~1u) == CW_FNC_RETURN;
}

/* Returns 0 for a valid EXC_RETURN or FNC_RETURN, -1 otherwise. */
int cw_exc_return_decode(uint32_t v, struct cw_exc_return *er)
{
	*er = (struct cw_exc_return){ .value = v };
	if ((v & ~1u) == CW_FNC_RETURN) {
		er->fnc_return = 1;
		return 0;
	}
	if ((v & EXC_RESERVED_ONES) != EXC_RESERVED_ONES || (v & EXC_RESERVED_ZERO))
		return -1;
	er->thread = !!(v & EXC_BIT_MODE);
	er->psp = !!(v & EXC_BIT_SPSEL);
	er->fp_frame = !(v & CW_EXC_RETURN_FTYPE);
	er->secure = !!(v & EXC_BIT_S);
	er->dcrs = !!(v & EXC_BIT_DCRS);
	er->es = !!(v & EXC_BIT_ES);
	/* v6-M/v7-M values have S, DCRS and ES set: anything else needs v8-M. */
	er->v8m = !(er->secure && er->dcrs && er->es);
	/*
	 * Handler mode always runs on the MSP. v8-M keeps CONTROL.SPSEL as a
	 * handler wrote it (RTX's SetPrivileged in SVC_Context reads and writes
	 * CONTROL there), and a nested exception's EXC_RETURN records that bit:
	 * Mode 0 with SPSEL 1 is v8-M's return to a handler, on the MSP.
	 */
	if (!er->thread && er->psp) {
		er->psp = 0;
		er->v8m = 1;
	}
	return 0;
}

/*
 * A valid EXC_RETURN to Thread mode on the process stack (psp), or on the
 * main one: how a thread was switched out, on the stack its kernel runs
 * threads on.
 */
int cw_exc_return_to_thread(uint32_t v, int psp)
{
	struct cw_exc_return er;

	return !cw_exc_return_decode(v, &er) && !er.fnc_return && er.thread && er.psp == !!psp;
}

/* Thread mode on the process stack: where most kernels run their threads. */
int cw_exc_return_to_thread_psp(uint32_t v)
{
	return cw_exc_return_to_thread(v, 1);
}

/* A valid EXC_RETURN whose frame carries the FP extension. */
int cw_exc_return_fp_frame(uint32_t v)
{
	struct cw_exc_return er;

	return !cw_exc_return_decode(v, &er) && !er.fnc_return && er.fp_frame;
}

/*
 * Bytes from the basic frame's R0 to the pre-exception SP. The additional
 * state context (DCRS == 0) sits below R0 and is not counted here.
 */
uint32_t cw_exc_frame_size(const struct cw_exc_return *er, uint32_t xpsr, int lazy_fp_ts)
{
	uint32_t size = FRAME_BASIC;

	if (er->fp_frame) {
		size += FRAME_EXT_FP;
		if (er->secure && lazy_fp_ts)
			size += FRAME_EXT_TS;
	}
	if (xpsr & CW_XPSR_ALIGN)
		size += 4;
	return size;
}

/*
 * What an extended frame at base holds. With lazy preservation (FPCCR.ASPEN,
 * LSPEN) the hardware only reserves the FP slots; while LSPACT is set and
 * FPCAR points at those slots nothing was written there. FPCCR.TS says a
 * Secure frame also carries s16-s31. Without FPCCR in the dump either may
 * be (a lazy frame's slots hold whatever the stack held): unknown, taken as
 * without s16-s31.
 */
unsigned int cw_exc_fp_state(const struct cw_mem *mem, uint32_t base, int *ts)
{
	const uint32_t lazy = FPCCR_ASPEN | FPCCR_LSPEN | FPCCR_LSPACT;
	uint32_t fpccr, fpcar;

	*ts = 0;
	if (cw_mem_read32(mem, CW_FPCCR, &fpccr) || cw_mem_read32(mem, CW_FPCAR, &fpcar))
		return CW_FRAME_FP_UNKNOWN;
	*ts = !!(fpccr & FPCCR_TS);
	if ((fpccr & lazy) == lazy && (fpcar & FPCAR_ADDR_MASK) == base + FRAME_BASIC)
		return CW_FRAME_FP_LAZY;
	return CW_FRAME_FP_STACKED;
}

/*
 * Where the newest extended frame is, when the dump says: with lazy state
 * active (FPCCR.ASPEN, LSPEN, LSPACT) no FP instruction ran since the
 * exception that stacked it, which has not returned, and FPCAR points at its
 * FP slots. 0 with *base the frame's stacked r0, -1 when the dump has no
 * FPCCR or FPCAR, or no lazy state.
 */
int cw_exc_lazy_frame(const struct cw_mem *mem, uint32_t *base)
{
	const uint32_t lazy = FPCCR_ASPEN | FPCCR_LSPEN | FPCCR_LSPACT;
	uint32_t fpccr, fpcar;

	if (cw_mem_read32_dumped(mem, CW_FPCCR, &fpccr) ||
	    cw_mem_read32_dumped(mem, CW_FPCAR, &fpcar) || (fpccr & lazy) != lazy)
		return -1;
	*base = (fpcar & FPCAR_ADDR_MASK) - FRAME_BASIC;
	return 0;
}

static int read_words(const struct cw_mem *mem, uint32_t addr, uint32_t *out, unsigned int n,
		      uint32_t *bad)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (cw_mem_read32(mem, addr + 4 * i, &out[i])) {
			*bad = addr + 4 * i;
			return -1;
		}
	return 0;
}

/*
 * Read the frame an exception with EXC_RETURN er pushed at sp: the v8-M
 * additional state context first when DCRS is 0, then the basic frame and
 * what its FP part holds. Nothing is checked beyond the integrity signature:
 * whether the words make sense is the caller's judgement.
 */
enum cw_exc_status cw_exc_frame_read(const struct cw_mem *mem, uint32_t sp,
				     const struct cw_exc_return *er, struct cw_exc_frame *f)
{
	uint32_t extra[ADDITIONAL_STATE_WORDS];
	int ts = 0;

	memset(f, 0, sizeof(*f));
	f->base = sp;
	if (!er->dcrs) {
		if (read_words(mem, sp, extra, ADDITIONAL_STATE_WORDS, &f->bad_addr))
			return CW_EXC_READ;
		if ((extra[0] & INTEGRITY_SIG_MASK) != INTEGRITY_SIG) {
			f->signature = extra[0];
			return CW_EXC_SIGNATURE;
		}
		memcpy(f->callee, &extra[2], sizeof(f->callee));
		f->have_callee = 1;
		f->base += ADDITIONAL_STATE_WORDS * 4;
	}
	if (read_words(mem, f->base, f->words, CW_EXC_BASIC_WORDS, &f->bad_addr))
		return CW_EXC_READ;
	if (er->fp_frame)
		f->fp = cw_exc_fp_state(mem, f->base, &ts);
	f->size = cw_exc_frame_size(er, f->words[CW_EXC_XPSR_WORD], ts);
	return CW_EXC_OK;
}

/*
 * FNC_RETURN: Secure code called Non-secure code with BLXNS, which pushed the
 * return address and partial xPSR on the Secure stack it ran on (PSP_S when
 * CONTROL_S.SPSEL, else MSP_S). Read that frame at sp.
 */
enum cw_exc_status cw_exc_fnc_frame_read(const struct cw_mem *mem, uint32_t sp,
					 struct cw_exc_frame *f)
{
	memset(f, 0, sizeof(*f));
	f->base = sp;
	f->size = CW_FNC_FRAME_SIZE;
	if (read_words(mem, sp, f->words, CW_FNC_FRAME_SIZE / 4, &f->bad_addr))
		return CW_EXC_READ;
	return CW_EXC_OK;
}

/* The registers the exception interrupted: the stacked ones and the sp before stacking. */
void cw_exc_frame_pop(const struct cw_exc_frame *f, struct cw_regs *regs)
{
	unsigned int i;

	if (f->have_callee)
		for (i = 0; i < 8; i++)
			cw_reg_set(regs, (enum cw_reg)(CW_R4 + i), f->callee[i]);
	for (i = 0; i < CW_EXC_BASIC_WORDS; i++)
		cw_reg_set(regs, cw_exc_stacked[i], f->words[i]);
	regs->r[CW_PC] &= ~1u;
	cw_reg_set(regs, CW_SP, f->base + f->size);
}

/*
 * Which register holds a stack pointer of one security state. The dump's MSP
 * and PSP belong to the state the innermost handler ran in (handler_state:
 * -1 unknown, 0 Non-secure, 1 Secure); the other state's are the banked
 * registers a v8-M dump may add.
 */
enum cw_reg cw_exc_banked_sp(int handler_state, int secure, int psp)
{
	if (handler_state < 0 || handler_state == secure)
		return psp ? CW_PSP : CW_MSP;
	if (secure)
		return psp ? CW_PSP_S : CW_MSP_S;
	return psp ? CW_PSP_NS : CW_MSP_NS;
}
