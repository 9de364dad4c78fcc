// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_ehabi.c - libFuzzer harness: EHABI table lookup and opcode
 * interpretation on arbitrary .ARM.exidx/.ARM.extab bytes and an arbitrary
 * stack, from arbitrary register values.
 */
#include <stdint.h>
#include <stddef.h>
#include <string.h>

#include "decode/cw_ehabi.h"

#define FUZZ_TABLES	0x00001000u
#define FUZZ_STACK	0x20000000u

/* Input: 4 bytes sp offset, 4 bytes r7 offset, then tables and stack, halved. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cw_mem mem = { 0 };
	struct cw_ehabi info;
	struct cw_regs regs;
	uint32_t sp_off, r7_off, tab_len, stack_len, addr, func, entry;
	unsigned int i;

	if (size < 16 || size > 8192)
		return 0;
	memcpy(&sp_off, data, 4);
	memcpy(&r7_off, data + 4, 4);
	data += 8;
	size -= 8;
	tab_len = (uint32_t)size / 2;
	stack_len = (uint32_t)size - tab_len;
	if (cw_mem_add(&mem, FUZZ_TABLES, tab_len, data, "fuzz tables") ||
	    cw_mem_add(&mem, FUZZ_STACK, stack_len, data + tab_len, "fuzz stack"))
		goto out;
	for (i = 0; i < 32; i++) {
		addr = FUZZ_TABLES + (i * 37) % (tab_len + 64);
		cw_ehabi_find(&mem, FUZZ_TABLES, tab_len & ~7u, addr, &func, &entry);
		memset(&regs, 0, sizeof(regs));
		regs.r[CW_SP] = FUZZ_STACK + sp_off % (stack_len + 16);
		regs.r[7] = FUZZ_STACK + r7_off % (stack_len + 16);
		regs.r[CW_LR] = addr + 0x41;
		regs.r[CW_PC] = addr;
		regs.valid = (i & 1) ? ~0u : (1u << CW_SP) | (1u << CW_PC) | (1u << CW_LR);
		cw_ehabi_step(&mem, FUZZ_TABLES, tab_len & ~7u, addr, &regs, &info);
	}
out:
	cw_mem_free(&mem);
	return 0;
}
