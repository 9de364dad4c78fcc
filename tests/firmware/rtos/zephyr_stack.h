/* SPDX-License-Identifier: GPL-2.0 */
/*
 * zephyr_stack.h - stack objects in the shape Zephyr's kernel/thread_stack.h
 * gives them on Cortex-M without userspace: arrays of struct
 * z_thread_stack_element in a unique .noinit."<file>".<n> section, aligned to
 * ARCH_STACK_PTR_ALIGN, with K_THREAD_STACK_RESERVED bytes at the object's
 * start that the thread's stack_info leaves out (the guard an MPU stack guard
 * build reserves there; here RTOS_GUARD_WORDS, which an overflow lands in).
 * Written from the documented macros; no Zephyr code.
 */
#ifndef RTOS_ZEPHYR_STACK_H
#define RTOS_ZEPHYR_STACK_H

#include "rtos.h"

struct __attribute__((packed)) z_thread_stack_element {
	char data;
};
typedef struct z_thread_stack_element k_thread_stack_t;

#define ARCH_STACK_PTR_ALIGN	8
#ifdef CONFIG_MPU_STACK_GUARD
/*
 * An ARMv7-M MPU region is aligned to its size: the guard's 32 bytes
 * (MPU_GUARD_ALIGN_AND_SIZE) below stack_info.start, so the objects too.
 */
#define MPU_GUARD_ALIGN_AND_SIZE	32
#define Z_THREAD_STACK_OBJ_ALIGN	MPU_GUARD_ALIGN_AND_SIZE
#else
#define Z_THREAD_STACK_OBJ_ALIGN	ARCH_STACK_PTR_ALIGN
#endif
#define K_KERNEL_STACK_RESERVED	0u
#define K_THREAD_STACK_RESERVED	(RTOS_GUARD_WORDS * 4u)
#define Z_STACK_ROUND_UP(x)	(((x) + ARCH_STACK_PTR_ALIGN - 1) / ARCH_STACK_PTR_ALIGN * \
				 ARCH_STACK_PTR_ALIGN)
#define K_KERNEL_STACK_LEN(size)	(Z_STACK_ROUND_UP(size) + K_KERNEL_STACK_RESERVED)
#define K_THREAD_STACK_LEN(size)	(Z_STACK_ROUND_UP(size) + K_THREAD_STACK_RESERVED)

/* __noinit: a section of its own per object, named after the file and a counter. */
#define Z_STR2(x)	#x
#define Z_STR(x)	Z_STR2(x)
#define __kstackmem	__attribute__((section(".noinit." Z_STR(__FILE__) "." Z_STR(__COUNTER__))))

#define K_KERNEL_STACK_ARRAY_DEFINE(sym, nmemb, size) \
	struct z_thread_stack_element __kstackmem __attribute__((aligned(ARCH_STACK_PTR_ALIGN))) \
		sym[nmemb][K_KERNEL_STACK_LEN(size)]
#define K_THREAD_STACK_ARRAY_DEFINE(sym, nmemb, size) \
	struct z_thread_stack_element __kstackmem __attribute__((aligned(Z_THREAD_STACK_OBJ_ALIGN))) \
		sym[nmemb][K_THREAD_STACK_LEN(size)]
#define K_KERNEL_STACK_SIZEOF(sym)	(sizeof(sym) - K_KERNEL_STACK_RESERVED)
#define K_THREAD_STACK_BUFFER(sym)	((char *)(sym) + K_THREAD_STACK_RESERVED)

#endif
