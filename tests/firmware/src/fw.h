/* SPDX-License-Identifier: GPL-2.0 */
/* fw.h - declarations shared by the crash corpus firmware files. */
#ifndef CORPUS_FW_H
#define CORPUS_FW_H

#define NOINLINE __attribute__((noinline))

/* ARMv6-M (Cortex-M0) has no CFSR/HFSR and no configurable fault traps. */
#ifdef __ARM_ARCH_6M__
#define FW_V6M 1
#else
#define FW_V6M 0
#endif

void semihost_exit(int code);
void crash_handler(void);
void run_on_psp(void (*fn)(int), int arg, void *stack_top);
void pendsv_handler(void);
void systick_handler(void);

/*
 * ARMv8.1-M (Cortex-M55) cases, numbered after enum crash_kind's, reached
 * through do_fault's default case: on every other core that case is the bus
 * fault it always was, so their builds do not change.
 */
#ifdef __ARM_FEATURE_MVE
#define CASE_LOB		19	/* bus fault inside a dls/le loop: lr holds its count */
#define CASE_MVE		20	/* bus fault in an MVE vector load (vldrw) */
#define CASE_LOB_TICK		21	/* SysTick interrupts a dls/le loop, its handler faults; */
#define CASE_LOB_TICK_LAST	24	/* each case number fires after a different count */
void v81m_fault(int kind, int x);
#define FW_DEFAULT_FAULT(kind, x)	v81m_fault(kind, x)
#else
#define FW_DEFAULT_FAULT(kind, x)	fault_bus(x)
#endif

/*
 * clang turns reset_handler's copy loops into MVE code, which needs the FPU
 * on first: v, once CPACR gives access to CP10/CP11.
 */
#ifdef __ARM_FEATURE_MVE
#define FW_EARLY_FPU(v)	((*(volatile uint32_t *)0xE000ED88 |= 0xFu << 20), (v))
#else
#define FW_EARLY_FPU(v)	(v)
#endif

#endif
