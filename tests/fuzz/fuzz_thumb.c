// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_thumb.c - libFuzzer harness: Thumb decoding on arbitrary code bytes:
 * the BL/BLX call check the stack scan makes at every return address and
 * branch targets at every halfword, EXC_RETURN decoding of every word, and
 * prologue and epilogue pseudo-execution and the constant stores of a
 * task-frame initialiser from halfwords the input's first bytes choose.
 * Each of those reads on to the function's end: from every halfword an input
 * cost its length squared (46 inputs/s inside make check), from a few it
 * costs its length, and the fuzzer still reaches every start through them.
 */
#include <stdint.h>
#include <stddef.h>
#include <string.h>

#include "decode/cw_exc.h"
#include "decode/cw_thumb.h"

#define FUZZ_BASE	0x00000100u
/* Pseudo-execution starts per input, each chosen by one 16-bit word of its head. */
#define FUZZ_STARTS	8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cw_mem mem = { 0 };
	struct cw_exc_return er;
	struct cw_prologue p;
	struct cw_epilogue e;
	struct cw_stored_word st[8];
	uint32_t a, target, v, halfwords = (uint32_t)size / 2;
	unsigned int len, i;
	uint16_t pick;

	if (size < 4 || size > 4096)
		return 0;
	if (cw_mem_add(&mem, FUZZ_BASE, (uint32_t)size, data, "fuzz"))
		return 0;
	for (a = FUZZ_BASE; a < FUZZ_BASE + size; a += 2) {
		cw_thumb_call_before(&mem, a | 1, &target);
		cw_thumb_b_target(&mem, a, &target, &len);
	}
	/* The whole function's prologue once, then the chosen starts. */
	cw_prologue_analyze(&mem, NULL, FUZZ_BASE, FUZZ_BASE + (uint32_t)size, &p);
	for (i = 0; i < FUZZ_STARTS && 2 * i + 2 <= size; i++) {
		memcpy(&pick, data + 2 * i, 2);
		a = FUZZ_BASE + 2 * (pick % halfwords);
		cw_prologue_analyze(&mem, NULL, FUZZ_BASE, a, &p);
		/* Branches may point anywhere: the function's end is past the input on purpose. */
		cw_epilogue_analyze(&mem, NULL, FUZZ_BASE, FUZZ_BASE + (uint32_t)size + 64, a, &e);
		cw_thumb_arg_stores(&mem, NULL, a, st, 8);
	}
	for (a = 0; a + 4 <= size; a += 4) {
		memcpy(&v, data + a, 4);
		if (cw_exc_return_decode(v, &er) == 0)
			cw_exc_frame_size(&er, v, (int)(v & 1));
	}
	cw_mem_free(&mem);
	return 0;
}
