// SPDX-License-Identifier: GPL-2.0
/*
 * cases.c - call chains that end in each kind of fault. The shapes are chosen
 * to trouble unwinders: recursion, calls through pointers, more arguments than
 * registers, large locals, a tail call, inlined helpers (one on the call path),
 * floating point, an interrupt handler and a thread on the process stack.
 */
#include <stdint.h>
#include "fw.h"

enum crash_kind {
	CASE_BUS = 1,		/* precise data bus fault on an unmapped address */
	CASE_UNDEF,		/* permanently undefined instruction */
	CASE_DIV0,		/* SDIV by zero with CCR.DIV_0_TRP */
	CASE_UNALIGNED,		/* LDR from an odd address with CCR.UNALIGN_TRP */
	CASE_INVSTATE,		/* call through a pointer without the Thumb bit */
	CASE_ISR,		/* bus fault inside the PendSV handler */
	CASE_PSP,		/* undefined instruction in a thread on the process stack */
	CASE_FPU,		/* bus fault after FP use: an extended exception frame */
};

/* Set by the GDB oracle after load; reset leaves .noinit alone. 0 (plain runs) means CASE_BUS. */
__attribute__((section(".noinit"))) volatile uint32_t crash_case;
volatile int sink;
/* Unmapped on every board here; QEMU's nRF51 answers reads at 0xF0000000. */
volatile uint32_t bad_address = FW_V6M ? 0x30000000u : 0xF0000000u;
volatile int zero;
static volatile uint32_t thread_stack_top;
extern uint32_t __psp_stack_hi[];

#define SCB_ICSR	(*(volatile uint32_t *)0xE000ED04)
#define SCB_CCR		(*(volatile uint32_t *)0xE000ED14)

static inline int mix(int a, int b)
{
	return (a * 31) ^ (b + 7);
}

NOINLINE void fault_bus(int x)
{
	sink = *(volatile int *)bad_address + x;
	sink = x;
}

NOINLINE void fault_undef(int x)
{
	sink = x;
	__asm__ volatile(".inst.n 0xde00");	/* UDF #0 */
	sink = x + 1;
}

NOINLINE int fault_div0(int a)
{
	int r = a / zero;

	sink = r;
	return r + 1;
}

static uint32_t words[2];
/* Through a volatile so the compiler cannot split the load into byte loads. */
volatile uintptr_t unaligned_base = (uintptr_t)words;

NOINLINE int fault_unaligned(int x)
{
	return *(volatile int *)(unaligned_base + (x & 1 ? 1 : 3)) + x;
}

NOINLINE void invstate_target(int x)
{
	sink = x;
}

NOINLINE void fault_invstate(int x)
{
	void (*volatile fn)(int) = invstate_target;

	fn = (void (*)(int))((uintptr_t)fn & ~1u);
	fn(x);
	sink = x;
}

#ifdef __ARM_FP
NOINLINE float fpu_work(float a, float b, int n)
{
	float acc = a;
	int i;

	for (i = 0; i < n; i++)
		acc = acc * b + (float)i;
	return acc;
}
#endif

NOINLINE int do_fault(int kind, int x)
{
	switch (kind) {
	case CASE_UNDEF:
	case CASE_PSP:
		fault_undef(x);
		break;
	case CASE_DIV0:
		sink = fault_div0(x);
		break;
	case CASE_UNALIGNED:
		sink = fault_unaligned(x);
		break;
	case CASE_INVSTATE:
		fault_invstate(x);
		break;
#ifdef __ARM_FP
	case CASE_FPU:
		sink = (int)fpu_work((float)x, 1.5f, x & 7);
		fault_bus(x);
		break;
#endif
	default:
		fault_bus(x);
		break;
	}
	return sink + 1;
}

/* Its only call is in tail position: at -O2 its frame is gone from the stack. */
NOINLINE int tail_hop(int kind, int x)
{
	return do_fault(kind, mix(x, kind));
}

NOINLINE int big_locals(int kind, int x)
{
	volatile char buf[300];
	int i, r;

	for (i = 0; i < (int)sizeof(buf); i++)
		buf[i] = (char)(i + x);
	r = tail_hop(kind, buf[x & 0xff]);
	sink = buf[7];
	return r + buf[3];
}

NOINLINE int recurse(int kind, int depth, int x)
{
	int r;

	if (depth == 0)
		r = big_locals(kind, x);
	else
		r = recurse(kind, depth - 1, x + depth);
	sink = r;
	return r + depth;
}

/* Inlined even at -O0, and it calls on: an inline frame with a return address inside. */
static inline __attribute__((always_inline)) int enter_recursion(int kind, int x)
{
	return recurse(kind, 3, x) + 1;
}

NOINLINE int many_args(int kind, int a, int b, int c, int d, int e, int f, int g)
{
	int r = enter_recursion(kind, a + b + c + d + e + f + g);

	sink = r;
	return r * 2;
}

struct step {
	int (*fn)(int kind, int a, int b, int c, int d, int e, int f, int g);
};

static const struct step steps[] = { { many_args } };
static volatile int pendsv_kind;

void pendsv_handler(void)
{
	sink = recurse(pendsv_kind, 1, 5);
}

NOINLINE void thread_entry(int kind)
{
	sink = steps[0].fn(kind, 1, 2, 3, 4, 5, 6, 7);
}

NOINLINE int run_case(int kind)
{
	const struct step *volatile s = &steps[0];

#if !FW_V6M
	/* DIV_0_TRP, UNALIGN_TRP; v6-M always traps unaligned accesses */
	SCB_CCR |= (1u << 4) | (1u << 3);
#endif
	if (kind == CASE_ISR) {
		pendsv_kind = CASE_BUS;
		SCB_ICSR = 1u << 28;		/* PENDSVSET: taken at once */
		__asm__ volatile("dsb\n isb" ::: "memory");
		return sink;
	}
	if (kind == CASE_PSP) {
		run_on_psp(thread_entry, kind, __psp_stack_hi);
		return sink;
	}
	return s->fn(kind, 11, 12, 13, 14, 15, 16, 17) + 1;
}

int main(void)
{
	sink = run_case(crash_case ? (int)crash_case : CASE_BUS);
	return 1;	/* no fault happened: the run fails */
}
