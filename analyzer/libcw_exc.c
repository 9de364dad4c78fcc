// SPDX-License-Identifier: GPL-2.0
/*
 * libcw_exc.c - the Cortex-M exception model: what an EXC_RETURN value says
 * and how large the frame the hardware pushed is (ARMv7-M B1.5.6-B1.5.8,
 * ARMv8-M B3.19-B3.21).
 */
#include "crashwalk.h"

#define EXC_BIT_ES	(1u << 0)
#define EXC_BIT_SPSEL	(1u << 2)
#define EXC_BIT_MODE	(1u << 3)
#define EXC_BIT_FTYPE	(1u << 4)
#define EXC_BIT_DCRS	(1u << 5)
#define EXC_BIT_S	(1u << 6)

#define FRAME_BASIC	0x20u
#define FRAME_EXT_FP	0x48u	/* S0-S15, FPSCR, reserved */
#define FRAME_EXT_TS	0x40u	/* S16-S31 when FPCCR.TS: Secure FP state */
#define XPSR_ALIGN	(1u << 9)

/* Returns 0 for a valid EXC_RETURN or FNC_RETURN, -1 otherwise. */
int cw_exc_return_decode(uint32_t v, struct cw_exc_return *er)
{
	*er = (struct cw_exc_return){ .value = v };
	if ((v & 0xFFFFFFFEu) == 0xFEFFFFFEu) {
		er->fnc_return = 1;
		return 0;
	}
	/* Bits 31:24 are all ones, bits 23:7 reserved as ones, bit 1 reserved as zero. */
	if ((v & 0xFFFFFF80u) != 0xFFFFFF80u || (v & 2u))
		return -1;
	er->thread = !!(v & EXC_BIT_MODE);
	er->psp = !!(v & EXC_BIT_SPSEL);
	er->fp_frame = !(v & EXC_BIT_FTYPE);
	er->secure = !!(v & EXC_BIT_S);
	er->dcrs = !!(v & EXC_BIT_DCRS);
	er->es = !!(v & EXC_BIT_ES);
	/* v6-M/v7-M values have S, DCRS and ES set: anything else needs v8-M. */
	er->v8m = !(er->secure && er->dcrs && er->es);
	if (!er->thread && er->psp)
		return -1;	/* Handler mode always runs on MSP */
	return 0;
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
	if (xpsr & XPSR_ALIGN)
		size += 4;
	return size;
}
