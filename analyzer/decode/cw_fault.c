// SPDX-License-Identifier: GPL-2.0
/*
 * cw_fault.c - why the core faulted: the System Control Block fault status
 * registers decoded bit by bit (ARMv7-M B3.2.15-B3.2.18), a Zephyr dump's
 * fatal error reason, and the faulting instruction disassembled with capstone.
 */
#include <capstone/capstone.h>
#include <stdio.h>
#include <string.h>

#include "base/cw_base.h"
#include "decode/cw_fault.h"
#include "decode/cw_thumb.h"
#include "dump/cw_dump.h"

#define SCB_CPUID	0xE000ED00u
#define SCB_SHCSR	0xE000ED24u
#define SCB_HFSR	0xE000ED2Cu
#define SCB_DFSR	0xE000ED30u
#define SCB_AFSR	0xE000ED3Cu
#define SAU_SFSR	0xE000EDE4u	/* v8-M Security Extension */
#define SAU_SFAR	0xE000EDE8u

struct fault_bit {
	uint32_t mask;
	const char *name;
	const char *why;
	const char *cls;
};

/* A CFSR bit and its name, as the ARMv7-M ARM spells it. */
#define CFSR(bit)	CW_CFSR_##bit, #bit

static const struct fault_bit cfsr_bits[] = {
	{ CFSR(IACCVIOL), "instruction fetch from a region the MPU forbids", "mem-ifetch" },
	{ CFSR(DACCVIOL), "data access the MPU forbids", "mem-data" },
	{ CFSR(MUNSTKERR), "MPU fault while unstacking on exception return", "stacking" },
	{ CFSR(MSTKERR),
	  "MPU fault while stacking on exception entry: stack overflow into a guard, or a bad sp",
	  "stack-overflow" },
	{ CFSR(MLSPERR), "MPU fault during lazy FP state preservation", "stacking" },
	{ CFSR(IBUSERR), "bus error on instruction fetch (wild pc?)", "bus-ifetch" },
	{ CFSR(PRECISERR), "precise data bus error: the stacked pc is the culprit",
	  "bus-precise" },
	{ CFSR(IMPRECISERR),
	  "imprecise data bus error: the stacked pc is PAST the culprit store", "bus-imprecise" },
	{ CFSR(UNSTKERR), "bus fault while unstacking on exception return", "stacking" },
	{ CFSR(STKERR),
	  "bus fault while stacking on exception entry: stack overflow off memory, or a bad sp",
	  "stack-overflow" },
	{ CFSR(LSPERR), "bus fault during lazy FP state preservation", "stacking" },
	{ CFSR(UNDEFINSTR), "undefined instruction", "undefined-instruction" },
	{ CFSR(INVSTATE),
	  "execution with EPSR.T = 0: a call or return through a pointer without the Thumb bit",
	  "invalid-state" },
	{ CFSR(INVPC), "bad EXC_RETURN on exception return", "invalid-pc" },
	{ CFSR(NOCP), "coprocessor (FPU) access while it is disabled", "no-coprocessor" },
	{ CFSR(STKOF), "stack limit (MSPLIM/PSPLIM) exceeded", "stack-overflow" },
	{ CFSR(UNALIGNED), "unaligned access with CCR.UNALIGN_TRP set", "unaligned" },
	{ CFSR(DIVBYZERO), "integer division by zero with CCR.DIV_0_TRP set",
	  "divide-by-zero" },
};

static const struct fault_bit sfsr_bits[] = {
	{ 1u << 0, "INVEP", "Non-secure code entered Secure code not at an SG entry point",
	  "secure-entry" },
	{ 1u << 1, "INVIS", "bad integrity signature when returning to Secure state",
	  "secure-integrity" },
	{ 1u << 2, "INVER", "exception return with an EXC_RETURN invalid for the state",
	  "secure-return" },
	{ 1u << 3, "AUVIOL", "Non-secure access to a Secure address", "secure-access" },
	{ 1u << 4, "INVTRAN", "branch to Non-secure code without BLXNS/BXNS",
	  "secure-transition" },
	{ 1u << 5, "LSPERR", "SAU violation during lazy FP state preservation", "stacking" },
	{ 1u << 7, "LSERR", "error while stacking or unstacking across security states",
	  "stacking" },
};

/* ARMv7-M ARM B3.2.15: why the core entered debug state or took a debug event. */
static const struct fault_bit dfsr_bits[] = {
	{ 1u << 0, "HALTED", "halt request or single step from a debugger", "debug" },
	{ 1u << 1, "BKPT",
	  "BKPT instruction or breakpoint (with no debugger attached: an assert, or a "
	  "semihosting call without a host)", "debug" },
	{ 1u << 2, "DWTTRAP", "DWT watchpoint or trace event", "debug" },
	{ 1u << 3, "VCATCH", "vector catch: the debugger asked to stop on this exception",
	  "debug" },
	{ 1u << 4, "EXTERNAL", "external debug request (EDBGRQ)", "debug" },
};

static const struct fault_bit hfsr_bits[] = {
	{ 1u << 1, "VECTTBL", "bus fault reading the vector table", "vector-table" },
	{ 1u << 30, "FORCED", "a configurable fault escalated to HardFault", NULL },
	{ 1u << 31, "DEBUGEVT", "debug event while halting debug is off", "debug" },
};

static void add_line(struct cw_fault *f, const char *name, const char *why)
{
	if (f->nr < ARRAY_SIZE(f->lines))
		snprintf(f->lines[f->nr++], sizeof(f->lines[0]), "%s: %s", name, why);
}

static void set_class(struct cw_fault *f, const char *cls)
{
	if (cls && !f->cls[0])
		snprintf(f->cls, sizeof(f->cls), "%s", cls);
}

/*
 * Add a line for each bit of v that the table names. A sharper cause (debug
 * event, SecureFault) replaces the generic "hardfault" class an escalation set.
 */
static void explain_bits(struct cw_fault *f, const struct fault_bit *bits, size_t n, uint32_t v,
			 int sharper)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v & bits[i].mask) {
			add_line(f, bits[i].name, bits[i].why);
			if (sharper && !strcmp(f->cls, "hardfault"))
				f->cls[0] = 0;
			set_class(f, bits[i].cls);
		}
}

void cw_fault_explain(uint32_t cfsr, uint32_t hfsr, struct cw_fault *f)
{
	f->nr = 0;
	f->cls[0] = 0;
	/* A failed stacking is the crash's real story; the access that tripped it is a symptom. */
	if (cfsr & CW_CFSR_STACKING)
		set_class(f, "stack-overflow");
	explain_bits(f, cfsr_bits, ARRAY_SIZE(cfsr_bits), cfsr, 0);
	if (cfsr & CW_CFSR_MMARVALID)
		add_line(f, "MMARVALID", "MMFAR holds the faulting data address");
	if (cfsr & CW_CFSR_BFARVALID)
		add_line(f, "BFARVALID", "BFAR holds the faulting data address");
	explain_bits(f, hfsr_bits, ARRAY_SIZE(hfsr_bits), hfsr, 0);
	set_class(f, "hardfault");
}

/* Debug events, added to what CFSR and HFSR said; HFSR.DEBUGEVT points here. */
void cw_fault_explain_debug(uint32_t dfsr, struct cw_fault *f)
{
	explain_bits(f, dfsr_bits, ARRAY_SIZE(dfsr_bits), dfsr, 1);
}

/* SecureFault status, added to what CFSR and HFSR said. */
void cw_fault_explain_secure(uint32_t sfsr, struct cw_fault *f)
{
	explain_bits(f, sfsr_bits, ARRAY_SIZE(sfsr_bits), sfsr, 1);
	if (sfsr & CW_SFSR_SFARVALID)
		add_line(f, "SFARVALID", "SFAR holds the faulting address");
}

/*
 * Zephyr's fatal error reasons, the reason word of its coredump header: enum
 * k_fatal_error_reason (include/zephyr/fatal_types.h, before that fatal.h),
 * 0-4 in every release; and from K_ERR_ARCH_START = 16, the Cortex-M part of
 * enum k_fatal_error_reason_arch (include/zephyr/arch/arm/arch.h), 16-44 in
 * every release that has it (3.5 to 4.3 checked). Zephyr 3.0's Cortex-M fault
 * handler gives only 0-4. The Cortex-A/R codes after 44 are left unnamed: a
 * Cortex-M never raises them, and 4.x inserted codes among them, so one
 * number means different faults in different releases.
 *
 * cls is the class a reason gives when the SCB registers explain nothing,
 * the one the matching CFSR or SFSR bit gives where there is one; none for
 * K_ERR_CPU_EXCEPTION, which says no more than "unknown" or an ARMv6-M
 * "hardfault" does.
 */
#define ZEPHYR_ARCH_START	16

struct zephyr_reason {
	const char *name;
	const char *why;
	const char *cls;
};

static const struct zephyr_reason zephyr_reasons[] = {
	[0] = { "K_ERR_CPU_EXCEPTION", "CPU exception (Zephyr gave no finer reason)", NULL },
	[1] = { "K_ERR_SPURIOUS_IRQ", "interrupt with no handler installed", "spurious-irq" },
	[2] = { "K_ERR_STACK_CHK_FAIL",
		"stack check failure: the faulting context overflowed its stack (canary, "
		"sentinel or guard)", "stack-overflow" },
	[3] = { "K_ERR_KERNEL_OOPS",
		"kernel oops, a software error that ends the thread (k_oops(), a bad system call)",
		"kernel-oops" },
	[4] = { "K_ERR_KERNEL_PANIC",
		"kernel panic, a software error that halts the system (k_panic(), a kernel "
		"assertion)", "kernel-panic" },
	[16] = { "K_ERR_ARM_MEM_GENERIC", "MemManage fault", "memmanage" },
	[17] = { "K_ERR_ARM_MEM_STACKING",
		 "MPU fault while stacking on exception entry: stack overflow into a guard",
		 "stack-overflow" },
	[18] = { "K_ERR_ARM_MEM_UNSTACKING", "MPU fault while unstacking on exception return",
		 "stacking" },
	[19] = { "K_ERR_ARM_MEM_DATA_ACCESS", "data access the MPU forbids", "mem-data" },
	[20] = { "K_ERR_ARM_MEM_INSTRUCTION_ACCESS",
		 "instruction fetch from a region the MPU forbids", "mem-ifetch" },
	[21] = { "K_ERR_ARM_MEM_FP_LAZY_STATE_PRESERVATION",
		 "MPU fault during lazy FP state preservation", "stacking" },
	[22] = { "K_ERR_ARM_BUS_GENERIC", "BusFault", "busfault" },
	[23] = { "K_ERR_ARM_BUS_STACKING",
		 "bus fault while stacking on exception entry: stack overflow off memory",
		 "stack-overflow" },
	[24] = { "K_ERR_ARM_BUS_UNSTACKING", "bus fault while unstacking on exception return",
		 "stacking" },
	[25] = { "K_ERR_ARM_BUS_PRECISE_DATA_BUS", "precise data bus error", "bus-precise" },
	[26] = { "K_ERR_ARM_BUS_IMPRECISE_DATA_BUS",
		 "imprecise data bus error: the stacked pc is past the culprit store",
		 "bus-imprecise" },
	[27] = { "K_ERR_ARM_BUS_INSTRUCTION_BUS", "bus error on instruction fetch",
		 "bus-ifetch" },
	[28] = { "K_ERR_ARM_BUS_FP_LAZY_STATE_PRESERVATION",
		 "bus fault during lazy FP state preservation", "stacking" },
	[29] = { "K_ERR_ARM_USAGE_GENERIC", "UsageFault", "usagefault" },
	[30] = { "K_ERR_ARM_USAGE_DIV_0", "integer division by zero", "divide-by-zero" },
	[31] = { "K_ERR_ARM_USAGE_UNALIGNED_ACCESS", "unaligned access", "unaligned" },
	[32] = { "K_ERR_ARM_USAGE_STACK_OVERFLOW", "stack limit (PSPLIM/MSPLIM) exceeded",
		 "stack-overflow" },
	[33] = { "K_ERR_ARM_USAGE_NO_COPROCESSOR",
		 "coprocessor (FPU) access while it is disabled", "no-coprocessor" },
	[34] = { "K_ERR_ARM_USAGE_ILLEGAL_EXC_RETURN", "bad EXC_RETURN on exception return",
		 "invalid-pc" },
	[35] = { "K_ERR_ARM_USAGE_ILLEGAL_EPSR",
		 "execution with EPSR.T = 0: a call or return through a pointer without the "
		 "Thumb bit", "invalid-state" },
	[36] = { "K_ERR_ARM_USAGE_UNDEFINED_INSTRUCTION", "undefined instruction",
		 "undefined-instruction" },
	[37] = { "K_ERR_ARM_SECURE_GENERIC", "SecureFault", "securefault" },
	[38] = { "K_ERR_ARM_SECURE_ENTRY_POINT",
		 "Non-secure code entered Secure code not at an SG entry point", "secure-entry" },
	[39] = { "K_ERR_ARM_SECURE_INTEGRITY_SIGNATURE",
		 "bad integrity signature when returning to Secure state", "secure-integrity" },
	[40] = { "K_ERR_ARM_SECURE_EXCEPTION_RETURN",
		 "exception return with an EXC_RETURN invalid for the state", "secure-return" },
	[41] = { "K_ERR_ARM_SECURE_ATTRIBUTION_UNIT", "Non-secure access to a Secure address",
		 "secure-access" },
	[42] = { "K_ERR_ARM_SECURE_TRANSITION",
		 "branch to Non-secure code without BLXNS/BXNS", "secure-transition" },
	[43] = { "K_ERR_ARM_SECURE_LAZY_STATE_PRESERVATION",
		 "SAU violation during lazy FP state preservation", "stacking" },
	[44] = { "K_ERR_ARM_SECURE_LAZY_STATE_ERROR",
		 "error while stacking or unstacking across security states", "stacking" },
};

static const struct zephyr_reason *zephyr_reason(uint32_t reason)
{
	if (reason >= ARRAY_SIZE(zephyr_reasons) || !zephyr_reasons[reason].name)
		return NULL;
	return &zephyr_reasons[reason];
}

/* Zephyr's name for a reason code, or NULL: one it does not give a Cortex-M. */
const char *cw_fault_zephyr_reason_name(uint32_t reason)
{
	const struct zephyr_reason *z = zephyr_reason(reason);

	return z ? z->name : NULL;
}

/*
 * A Zephyr dump's reason, added to what the SCB registers said. When they
 * said nothing (none in the dump, or no status bit set, as after k_panic()'s
 * svc) the reason is the crash's class; otherwise theirs is the sharper one.
 */
void cw_fault_explain_zephyr(uint32_t reason, struct cw_fault *f)
{
	const struct zephyr_reason *z = zephyr_reason(reason);

	f->zephyr_reason = reason;
	if (reason == CW_NO_ZEPHYR_REASON)
		return;
	if (z && z->cls && (!f->have_scb || !f->nr))
		snprintf(f->cls, sizeof(f->cls), "%s", z->cls);
	if (f->nr >= ARRAY_SIZE(f->lines))
		return;
	if (z)
		snprintf(f->lines[f->nr++], sizeof(f->lines[0]), "%s: Zephyr's reason %u: %s",
			 z->name, reason, z->why);
	else
		snprintf(f->lines[f->nr++], sizeof(f->lines[0]), "Zephyr: reason %u, %s", reason,
			 reason < ZEPHYR_ARCH_START ? "a code no Zephyr release defines" :
			 "an architecture's code, not one of Cortex-M's");
}

/*
 * The running thread's faulting instruction lowers its sp below its stack's
 * start (rtos/cw_rtos_model.c): where neither the fault status nor a Zephyr
 * reason names the crash (no SCB in the dump, K_ERR_CPU_EXCEPTION; ARMv6-M
 * and Baseline, whose every fault is a HardFault), it is a stack overflow.
 */
void cw_fault_explain_stack_limit(struct cw_fault *f, uint32_t pc, uint32_t sp, uint32_t lo)
{
	if (strcmp(f->cls, "unknown") && strcmp(f->cls, "hardfault"))
		return;
	snprintf(f->cls, sizeof(f->cls), "stack-overflow");
	if (f->nr < ARRAY_SIZE(f->lines))
		snprintf(f->lines[f->nr++], sizeof(f->lines[0]), "stack overflow: the instruction "
			 "at 0x%08x lowers sp 0x%08x below its thread's stack start 0x%08x", pc,
			 sp, lo);
}

/*
 * A coprocessor instruction on p8, p9 or p12-p15 cannot be one on M-profile,
 * which has only the FPU's p10/p11 and the custom datapath's p0-p7: in that
 * space ARMv8.1-M puts MVE (vldrw, vaddv, ...), which capstone 4 reads as
 * ldc/cdp p15.
 */
static int coproc_space(const cs_insn *insn)
{
	static const char *const ops[] = { "ldc", "stc", "mcr", "mrc", "cdp", NULL };
	unsigned int i, cp;

	for (i = 0; ops[i]; i++)
		if (!strncmp(insn->mnemonic, ops[i], 3))
			break;
	if (!ops[i] || sscanf(insn->op_str, "p%u", &cp) != 1)
		return 0;
	return cp >= 8 && cp != 10 && cp != 11;
}

static void undecoded(struct cw_fault *f, const uint8_t *code, size_t len, const char *why)
{
	f->insn_undecoded = 1;
	if (len == 4)
		snprintf(f->insn, sizeof(f->insn), "not decoded: %02x%02x %02x%02x (%s)", code[1],
			 code[0], code[3], code[2], why);
	else
		snprintf(f->insn, sizeof(f->insn), "not decoded: %02x%02x (%s)", code[1], code[0],
			 why);
}

static void disassemble(const struct cw_mem *mem, uint32_t pc, struct cw_fault *f)
{
	uint8_t code[4] = { 0 };
	size_t len = 4, n;
	cs_insn *insn;
	csh h;

	if (cw_mem_read(mem, pc, code, 4)) {
		len = 2;
		if (cw_mem_read(mem, pc, code, 2))
			return;
	}
	if (len == 4 && cw_thumb_lob_format((uint16_t)(code[0] | code[1] << 8),
					    (uint16_t)(code[2] | code[3] << 8), pc, f->insn,
					    sizeof(f->insn)))
		return;
	if (cs_open(CS_ARCH_ARM, CS_MODE_THUMB | CS_MODE_MCLASS, &h) != CS_ERR_OK)
		return;
	n = cs_disasm(h, code, len, pc, 1, &insn);
	if (n && coproc_space(insn))
		undecoded(f, code, insn[0].size, "MVE or no M-profile instruction; capstone 4 "
			  "has no ARMv8.1-M");
	else if (n)
		snprintf(f->insn, sizeof(f->insn), "%s %s", insn[0].mnemonic, insn[0].op_str);
	else
		undecoded(f, code, cw_thumb_is_32bit((uint16_t)(code[0] | code[1] << 8)) ? 4 : 2,
			  "not an instruction capstone 4 knows");
	if (n)
		cs_free(insn, n);
	cs_close(&h);
}

void cw_fault_decode(const struct cw_mem *mem, uint32_t fault_pc, int pc_ok, struct cw_fault *f)
{
	uint32_t cpuid;

	memset(f, 0, sizeof(*f));
	f->zephyr_reason = CW_NO_ZEPHYR_REASON;
	f->have_scb = !cw_mem_read32_dumped(mem, CW_SCB_CFSR, &f->cfsr) &&
		      !cw_mem_read32_dumped(mem, SCB_HFSR, &f->hfsr);
	if (f->have_scb) {
		cw_mem_read32_dumped(mem, SCB_DFSR, &f->dfsr);
		cw_mem_read32_dumped(mem, CW_SCB_MMFAR, &f->mmfar);
		cw_mem_read32_dumped(mem, CW_SCB_BFAR, &f->bfar);
		cw_mem_read32_dumped(mem, SCB_AFSR, &f->afsr);
		cw_mem_read32_dumped(mem, SCB_SHCSR, &f->shcsr);
		cw_fault_explain(f->cfsr, f->hfsr, f);
		cw_fault_explain_debug(f->dfsr, f);
		f->have_sfsr = !cw_mem_read32_dumped(mem, SAU_SFSR, &f->sfsr);
		if (f->have_sfsr) {
			cw_mem_read32_dumped(mem, SAU_SFAR, &f->sfar);
			cw_fault_explain_secure(f->sfsr, f);
		}
	} else if (!cw_mem_read32_dumped(mem, SCB_CPUID, &cpuid) &&
		   ((cpuid >> 16) & 0xF) == 0xC) {
		/* CPUID.ARCHITECTURE 0xC: ARMv6-M, where every fault is a bare HardFault. */
		snprintf(f->cls, sizeof(f->cls), "hardfault");
		add_line(f, "ARMv6-M", "no fault status registers: the cause is not recorded");
	} else {
		snprintf(f->cls, sizeof(f->cls), "unknown");
	}
	if (pc_ok)
		disassemble(mem, fault_pc, f);
}
