// SPDX-License-Identifier: GPL-2.0
/*
 * cases.c - call chains that end in each kind of fault. The shapes are chosen
 * to trouble unwinders: recursion, calls through pointers, more arguments than
 * registers, large locals, a tail call, inlined helpers (one on the call path),
 * floating point, an interrupt handler and a thread on the process stack; a
 * frame whose size is only known at run time; a thread that runs out of stack;
 * and a timer interrupt that lands wherever the code happens to be, prologues
 * and epilogues included (QEMU runs with -icount, so "wherever" repeats).
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
	CASE_OVERFLOW,		/* a thread's recursion runs into its stack guard */
	CASE_ALLOCA,		/* bus fault below a frame sized at run time (alloca) */
	CASE_TICK,		/* SysTick interrupts busy code and its handler faults; */
	CASE_TICK_LAST = CASE_TICK + 7,	/* each case number fires after a different count */
};

/* Set by the GDB oracle after load; reset leaves .noinit alone. 0 (plain runs) means CASE_BUS. */
__attribute__((section(".noinit"))) volatile uint32_t crash_case;
volatile int sink;
/* Unmapped on every board here; QEMU's nRF51 answers reads at 0xF0000000. */
volatile uint32_t bad_address = FW_V6M ? 0x30000000u : 0xF0000000u;
volatile int zero;
extern uint32_t __psp_stack_lo[], __psp_stack_hi[];
/* Run-time values the compiler cannot fold: an alloca size and a recursion bound. */
volatile int alloca_len = 100;
volatile int overflow_limit = 1 << 30;

#define SCB_ICSR	(*(volatile uint32_t *)0xE000ED04)
#define SCB_CCR		(*(volatile uint32_t *)0xE000ED14)
#define SYST_CSR	(*(volatile uint32_t *)0xE000E010)
#define SYST_RVR	(*(volatile uint32_t *)0xE000E014)
#define SYST_CVR	(*(volatile uint32_t *)0xE000E018)
#define MPU_CTRL	(*(volatile uint32_t *)0xE000ED94)
#define MPU_RNR		(*(volatile uint32_t *)0xE000ED98)
#define MPU_RBAR	(*(volatile uint32_t *)0xE000ED9C)
#define MPU_RASR	(*(volatile uint32_t *)0xE000EDA0)
/* Below the process stack: what the overflow case runs into. */
#define STACK_GUARD	256u

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

/*
 * Unbounded in practice: the guard below the thread's stack stops it. The
 * locals are written from the lowest address up, as a real buffer would be.
 */
NOINLINE int overflow(int depth)
{
	volatile int pad[12];
	int i;

	if (depth > overflow_limit)
		return 0;
	for (i = 0; i < 12; i++)
		pad[i] = depth + i;
	return overflow(depth + 1) + pad[3];
}

NOINLINE void overflow_thread(int kind)
{
	sink = overflow(kind);
}

/*
 * The stack guard: on v8-M the PSPLIM register, else an MPU region no one may
 * access just below the stack. Not inside it: QEMU checks a debugger's reads
 * against the MPU at the start of each 1 KiB page, so a guard sharing a page
 * with the stack would hide the stack from GDB.
 */
static void guard_process_stack(void)
{
#if defined(__ARM_ARCH_8M_MAIN__) || defined(__ARM_ARCH_8_1M_MAIN__)
	uint32_t lim = (uint32_t)__psp_stack_lo;

	__asm__ volatile("msr psplim, %0" : : "r"(lim));
#elif !FW_V6M
	MPU_RNR = 0;
	MPU_RBAR = (uint32_t)__psp_stack_lo - STACK_GUARD;
	/* SIZE = log2(256) - 1, AP = 000 (no access), XN, enabled */
	MPU_RASR = (1u << 28) | (7u << 1) | 1u;
	MPU_CTRL = (1u << 2) | 1u;	/* PRIVDEFENA: the rest of the map as without an MPU */
	__asm__ volatile("dsb\n isb" ::: "memory");
#endif
}

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
		FW_DEFAULT_FAULT(kind, x);
		break;
	}
	return sink + 1;
}

/* Its frame size is known only at run time: sp moves by a register, not a constant. */
NOINLINE int dyn_frame(int kind, int x)
{
	volatile char *buf = __builtin_alloca(alloca_len);
	int i, r;

	for (i = 0; i < alloca_len; i++)
		buf[i] = (char)(x + i);
	r = do_fault(kind == CASE_ALLOCA ? CASE_BUS : kind, buf[x & 63]);
	sink = buf[1];
	return r;
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

/*
 * Busy code for the timer cases: calls, returns, prologues and epilogues all
 * the time, so an interrupt can land in any of them.
 */
NOINLINE int busy_leaf(int x)
{
	return x * 3 + 1;
}

NOINLINE int busy_mid(int x)
{
	volatile int v[3];

	v[0] = x;
	v[1] = busy_leaf(x);
	v[2] = busy_leaf(v[1]);
	return v[0] + v[2];
}

NOINLINE int busy_top(int x)
{
	int i, s = 0;

	for (i = 0; i < 3; i++)
		s += busy_mid(x + i);
	return s;
}

void systick_handler(void)
{
	SYST_CSR = 0;
	fault_bus(sink);
}

static NOINLINE void busy_forever(int kind)
{
	/* Cycles to the first tick: far apart, and odd so they fall on different instructions. */
	SYST_RVR = 2000u + 97u * (uint32_t)(kind - CASE_TICK);
	SYST_CVR = 0;
	SYST_CSR = 7;	/* ENABLE, TICKINT, processor clock */
	for (;;)
		sink = busy_top(sink);
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
	if (kind == CASE_OVERFLOW) {
		guard_process_stack();
		run_on_psp(overflow_thread, 0, __psp_stack_hi);
		return sink;
	}
	if (kind == CASE_ALLOCA)
		return dyn_frame(kind, 5) + 1;
	if (kind >= CASE_TICK && kind <= CASE_TICK_LAST)
		busy_forever(kind);
	return s->fn(kind, 11, 12, 13, 14, 15, 16, 17) + 1;
}

int main(void)
{
	sink = run_case(crash_case ? (int)crash_case : CASE_BUS);
	return 1;	/* no fault happened: the run fails */
}

#ifdef __ARM_FEATURE_MVE
#include <arm_mve.h>

static int lob_data[16];

/* A counted loop: GCC at -O1 and up and clang make it dls/le, with the count in lr. */
NOINLINE int lob_sum(const volatile int *p, int n)
{
	int i, s = 0;

	for (i = 0; i < n; i++)
		s += p[i] * 3;
	return s;
}

/* MVE loads, which capstone 4 does not know (it reads them as coprocessor loads). */
NOINLINE int mve_sum(const int32_t *p, int n)
{
	int32x4_t acc = vdupq_n_s32(0);
	int i;

	for (i = 0; i < n; i += 4)
		acc = vaddq_s32(acc, vldrwq_s32(p + i));
	return vaddvq_s32(acc);
}

void v81m_fault(int kind, int x)
{
	switch (kind) {
	case CASE_LOB:
		sink = lob_sum((const volatile int *)bad_address, 16 + (x & 1));
		break;
	case CASE_MVE:
		sink = mve_sum((const int32_t *)bad_address, 16 + (x & 4));
		break;
	default:
		if (kind < CASE_LOB_TICK || kind > CASE_LOB_TICK_LAST) {
			fault_bus(x);
			break;
		}
		/* Odd counts to the tick, as busy_forever's, inside the loop most of the time. */
		SYST_RVR = 3001u + 89u * (uint32_t)(kind - CASE_LOB_TICK);
		SYST_CVR = 0;
		SYST_CSR = 7;
		for (;;)
			sink = lob_sum(lob_data, 16);
	}
}
#endif
