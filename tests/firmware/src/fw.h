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

#endif
