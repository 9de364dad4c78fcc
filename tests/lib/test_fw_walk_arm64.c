// SPDX-License-Identifier: GPL-2.0
/*
 * test_fw_walk_arm64.c - the kernel's arm64 walk itself (module/fw_arm64_walk.h:
 * the record loads, the PAC strip and the fast path in assembly), built for
 * arm64 user space and run under qemu-aarch64 against fw_walk() and lib's
 * model of the fast path, on test_fw_walk.c's random and hostile chains,
 * with real faults.
 */
#ifndef __aarch64__
#error "arm64 code: build with aarch64-linux-gnu-gcc -O2, run under qemu-aarch64"
#endif

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

/*
 * What the module's headers take from the kernel's. glibc's <sys/cdefs.h>
 * forces __always_inline as the kernel does, which the fast path needs: its
 * %[keep] is an "i" operand, a constant only once fw_walk_fast() is inlined
 * where the walk calls it through its ops.
 */
#define __maybe_unused		__attribute__((__unused__))
#include <linux/types.h>
typedef __u64 u64;

/*
 * The exception table the module's loads get from the kernel, for user
 * space: each entry says where the faulting load resumes and which
 * registers take -EFAULT and 0 (_ASM_EXTABLE_KACCESS_ERR_ZERO's entry), and
 * fw_fault(), the SIGSEGV handler, applies it as the kernel's
 * ex_handler_uaccess_err_zero() does. Register names become numbers as in
 * the kernel's asm/gpr-num.h.
 */
struct fw_extable {
	int32_t insn;		/* the load, relative to this field */
	int32_t cont;		/* where to resume, relative to this field */
	uint8_t err;		/* the register that takes -EFAULT */
	uint8_t zero;		/* the register that takes 0 */
	uint16_t pad;
};

#define FW_ASM_LOAD_FIXUP(insn, cont, err, zero)				\
	"	.irp	n,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30\n" \
	"	.equ	.Lfw_gpr_x\\n, \\n\n"					\
	"	.equ	.Lfw_gpr_w\\n, \\n\n"					\
	"	.endr\n"							\
	"	.pushsection fw_extable, \"a\"\n"				\
	"	.balign	4\n"							\
	"	.long	(" #insn "b - .), (" #cont "b - .)\n"			\
	"	.byte	.Lfw_gpr_" #err ", .Lfw_gpr_" #zero "\n"		\
	"	.short	0\n"							\
	"	.popsection\n"
#define FW_EFAULT_OPERAND	[efault] "i" (-EFAULT)

#include "fw_walk_chains.h"

/* The exception boundary of kernels since 6.13, in fw_walk_chains.h's layout. */
#define FW_PT_REGS_RECORD	PT_REGS_RECORD
#define FW_PT_REGS_SIZE		PT_REGS_SIZE
#define FW_PT_REGS_FP		PT_REGS_FP
#define FW_PT_REGS_SP		PT_REGS_SP
#define FW_PT_REGS_TYPE		PT_REGS_TYPE

/* The module's code leaves the ctx of its ops unused, which kernel builds do not warn of. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "../../module/fw_arm64_walk.h"
#pragma GCC diagnostic pop

#include "../../lib/fw_walk_fast_model.h"
#include "../ktap.h"

extern const struct fw_extable __start_fw_extable[], __stop_fw_extable[];

static volatile unsigned int faults;	/* loads the table fixed up */

static void fw_fault(int sig, siginfo_t *si, void *uctx)
{
	mcontext_t *mc = &((ucontext_t *)uctx)->uc_mcontext;
	const struct fw_extable *e;

	(void)si;
	for (e = __start_fw_extable; e < __stop_fw_extable; e++) {
		if ((uintptr_t)&e->insn + e->insn != mc->pc)
			continue;
		mc->regs[e->err] = (uint64_t)-EFAULT;
		mc->regs[e->zero] = 0;
		mc->pc = (uintptr_t)&e->cont + e->cont;
		faults++;
		return;
	}
	/* A fault the table does not cover: die of it. */
	signal(sig, SIG_DFL);
}

static struct mem m;

/* The module's hooked walk (fw_recover.c): its loads, no fast path, a trampoline check. */
static const struct fw_walk_ops hooked_ops = {
	.load_record = fw_load_record,
	.fixup_ret = fw_fixup_ret,
	.trampoline = tramp_cb,
	.boundary = FW_BOUNDARY,
};

/* lib's model of the fast path, reading what the assembly reads through mem_read. */
static const struct fw_walk_ops model_loads = { .load_record = mem_load_record };

static int model_walk_fast(void *ctx, fw_u64 *fp, fw_u64 *prev, fw_u64 top, fw_u64 **ret_out,
			   fw_u64 *ret_end, fw_u64 **rec_out, enum fw_stop *stop)
{
	return fw_walk_fast_model(&model_loads, ctx, fp, prev, top, ret_out, ret_end, rec_out,
				  stop);
}

static const struct fw_walk_ops model_ops = {
	.load_record = mem_load_record,
	.walk_fast = model_walk_fast,
	.boundary = boundary_cb,
};

static const struct fw_walk_ops plain_ops = { .read = mem_read, .boundary = boundary_cb };
static const struct fw_walk_ops generic_tramp_ops = {
	.read = mem_read,
	.trampoline = tramp_cb,
	.boundary = boundary_cb,
};

/*
 * One call of the fast path as __fw_walk_native() makes its first, and of
 * the model: the same result, frames and stop; where neither ended the walk,
 * the same record to go on from and the one below it. @keep stores the
 * records too (the event's walk), else the returns only (the aggregation's).
 * Returns the frames the assembly stored, or -1 where it differs.
 */
static __always_inline int fast_matches(const struct fw_walk_cfg *cfg, uint64_t start,
					unsigned int max, const int keep)
{
	fw_u64 ancestors[2][16], records[2][16], fp[2] = { start, start }, prev[2] = { 0, 0 };
	fw_u64 *ret_out[2] = { ancestors[0], ancestors[1] }, *rec_out[2] = { records[0], records[1] };
	fw_u64 top = 0;
	enum fw_stop stop[2] = { FW_STOP_NONE, FW_STOP_NONE };
	int end[2];
	long n;

	if (cfg->nr_stacks) {
		top = fw_stack_top(&cfg->stacks[0], 16);
		prev[0] = prev[1] = cfg->stacks[0].lo ? cfg->stacks[0].lo - 1 : 0;
	}
	end[0] = fw_walk_fast(NULL, &fp[0], &prev[0], top, &ret_out[0], ancestors[0] + max,
			      keep ? &rec_out[0] : NULL, &stop[0]);
	end[1] = fw_walk_fast_model(&model_loads, &m, &fp[1], &prev[1], top, &ret_out[1],
				    ancestors[1] + max, keep ? &rec_out[1] : NULL, &stop[1]);
	n = ret_out[0] - ancestors[0];
	if (!end[0] != !end[1] || stop[0] != stop[1] || n != ret_out[1] - ancestors[1] ||
	    memcmp(ancestors[0], ancestors[1], n * sizeof(ancestors[0][0])))
		return -1;
	if (keep && (rec_out[0] - records[0] != n ||
		     memcmp(records[0], records[1], n * sizeof(records[0][0]))))
		return -1;
	if (!end[0] && (fp[0] != fp[1] || prev[0] != prev[1]))
		return -1;
	/* The record that ended the chain, where the walk asks about a boundary. */
	if (end[0] && stop[0] == FW_STOP_CHAIN_END && fp[0] != fp[1])
		return -1;
	return (int)n;
}

static void set_fault_page(int prot)
{
	if (m.fault_hi && mprotect(m.bytes + (m.fault_lo - m.base), m.fault_hi - m.fault_lo, prot))
		KTAP_EXPECT(0, "mprotect: %s", strerror(errno));
}

/*
 * The kernel's common walk (fw_walk_ops: the loads and the fast path in
 * assembly) must find what fw_walk() finds, as must its hooked walk with
 * trampolines and lib's model of the fast path; and the fast path alone must
 * do what the model does. A quarter of the rounds make a page of the chains
 * fault: the kernel's loads take their fixups, the others see mem_read fail.
 */
static void arm64_walk_equals_generic(void)
{
	struct fw_stack_range stacks[3];
	struct fw_walk_cfg cfg = {
		.word_size = 8, .fp_off = 0, .lr_off = 8, .align = 8,
	};
	unsigned int round, stops[FW_STOP_KERNEL_NR] = { 0 }, frames = 0, fast_frames = 0;
	unsigned int bad = 0, hooked_bad = 0, model_bad = 0, fast_bad = 0, fault_rounds = 0;
	long page = sysconf(_SC_PAGESIZE);
	struct sigaction sa = { .sa_sigaction = fw_fault, .sa_flags = SA_SIGINFO };

	/* A fault here is a whole page: the records fill four (the host test's, one). */
	KTAP_EXPECT(page == 4096, "page size %ld: the layout assumes 4096", page);
	sigaction(SIGSEGV, &sa, NULL);
	for (round = 0; round < 20000; round++) {
		enum fw_stop stop, hstop;
		unsigned int max;
		uint64_t start;
		int n;

		mem_reset(&m, (uintptr_t)m.bytes, sizeof(m.bytes));
		start = random_chains(&m, stacks, &cfg, 4096, &max);
		set_fault_page(PROT_NONE);
		fault_rounds += !!m.fault_hi;
		count_match(native_matches(&cfg, &plain_ops, &fw_walk_ops, &m, start, max, &stop),
			    &bad, &frames);
		if (native_matches(&cfg, &generic_tramp_ops, &hooked_ops, &m, start, max, &hstop) < 0)
			hooked_bad++;
		else
			stops[hstop]++;
		if (native_matches(&cfg, &plain_ops, &model_ops, &m, start, max, &stop) < 0)
			model_bad++;
		n = fast_matches(&cfg, start, max, 1);
		if (n < 0 || fast_matches(&cfg, start, max, 0) != n)
			fast_bad++;
		else
			fast_frames += n;
		set_fault_page(PROT_READ | PROT_WRITE);
	}
	signal(SIGSEGV, SIG_DFL);
	KTAP_EXPECT(bad == 0, "%u of 20000 walks with the kernel's fast path differ", bad);
	KTAP_EXPECT(hooked_bad == 0, "%u of 20000 hooked walks differ", hooked_bad);
	KTAP_EXPECT(model_bad == 0, "%u of 20000 walks with the model differ", model_bad);
	KTAP_EXPECT(fast_bad == 0, "%u of 20000 fast paths differ from the model", fast_bad);
	expect_walks_varied(frames, stops);
	KTAP_EXPECT(fast_frames > 2000, "fast_frames=%u", fast_frames);
	KTAP_EXPECT(faults > 100, "faults=%u in %u rounds with a faulting page", faults,
		    fault_rounds);
	printf("# 20000 walks: %u frames, %u through the fast path alone, %u faults fixed up, "
	       "%u exception boundaries crossed\n", frames, fast_frames, faults, boundaries_crossed);
}

int main(void)
{
	ktap_header("fw_walk_arm64");
	KTAP_RUN(arm64_walk_equals_generic);
	return ktap_finish();
}
