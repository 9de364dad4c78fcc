/* SPDX-License-Identifier: GPL-2.0 */
/* fw.h - declarations shared by the crash corpus firmware files. */
#ifndef CORPUS_FW_H
#define CORPUS_FW_H

#define NOINLINE __attribute__((noinline))

void semihost_exit(int code);
void crash_handler(void);
void run_on_psp(void (*fn)(int), int arg, void *stack_top);
void pendsv_handler(void);

#endif
