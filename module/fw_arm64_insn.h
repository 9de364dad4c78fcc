/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fw_arm64_insn.h - the two instructions the arm64 walk reads a frame record
 * with: a load that cannot oops and the PAC strip.
 *
 * No kernel header: tests/lib/test_fw_walk_arm64.c builds these same loads
 * for user space and runs them under qemu-aarch64. The includer provides
 * u64, __always_inline, FW_ASM_LOAD_FIXUP and FW_EFAULT_OPERAND (the module:
 * fw_compat.h, which says how each kernel fixes a faulting load up).
 */
#ifndef FW_ARM64_INSN_H
#define FW_ARM64_INSN_H

/**
 * fw_load_pair_nofault() - load a frame record in one ldp that cannot oops
 * @addr: the record's address
 * @fp: set to its first word, the next record's address
 * @lr: set to its second, the return address; 0 after a fault
 * @fault: set to -EFAULT by a fault, else left as it was
 *
 * A fault jumps to the end with @fault set and @lr zeroed, as
 * __get_kernel_nofault() does for one word (which would cost the walk two
 * loads and two error tests per frame). The walk's test for a zero return
 * address catches the fault, and @fault is read only then: the load has no
 * error test of its own. The copy_from_kernel_nofault() load without its
 * call, its pagefault_disable() (a kernel address never sleeps in the fault
 * handler) and its byte loop.
 */
static __always_inline void fw_load_pair_nofault(unsigned long addr, u64 *fp, u64 *lr,
						 int *fault)
{
	/*
	 * The fixup names err and lr by number. lr lands in x30, where
	 * xpaclri strips it; err is carried from frame to frame, never reset.
	 * No early clobber: one instruction reads addr before it writes, so fp
	 * may land in addr's register and the walk moves one value less.
	 */
	register int err asm("w9") = *fault;
	register u64 b asm("x30");
	u64 a;

	asm volatile("1:	ldp	%[a], %[b], [%[addr]]\n"
		     "2:\n"
		     FW_ASM_LOAD_FIXUP(1, 2, w9, x30)
		     : [err] "+r" (err), [a] "=r" (a), [b] "=r" (b)
		     : [addr] "r" (addr), FW_EFAULT_OPERAND);
	*fault = err;
	*fp = a;
	*lr = b;
}

/**
 * fw_strip_pac() - a kernel return address without its PAC bits
 * @lr: the saved lr, maybe signed
 *
 * Saved LRs of non-leaf functions are PAC-signed. xpaclri strips x30 on every
 * kernel in one instruction (a NOP without pointer authentication); 6.1's
 * ptrauth_strip_insn_pac() tests bit 55 and masks in three.
 *
 * Return: @lr stripped.
 */
static __always_inline u64 fw_strip_pac(u64 lr)
{
	register u64 x30 asm("x30") = lr;

	asm("hint	#7" : "+r" (x30));	/* xpaclri */
	return x30;
}

#endif /* FW_ARM64_INSN_H */
