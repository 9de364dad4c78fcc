// SPDX-License-Identifier: GPL-2.0
/*
 * test_fw_walk.c - unit tests of lib/fw_walk.h on synthetic stacks, for both
 * the arm64 {x29, x30} layout and the Thumb {r7, lr} layout.
 */
#include <stdint.h>
#include <string.h>

#include "../../lib/fw_walk.h"
#include "../../lib/fw_walk_fast_model.h"
#include "../ktap.h"
#include "fw_walk_chains.h"

static const struct fw_walk_ops ops = { .read = mem_read };

#define BASE 0xffff800010000000ull

static struct fw_stack_range task_stack = { BASE, BASE + 4096 };
static const struct fw_walk_cfg cfg64 = {
	.word_size = 8, .fp_off = 0, .lr_off = 8, .align = 8,
	.stacks = &task_stack, .nr_stacks = 1,
};

static struct mem m;
/* The frames of the last walk. */
static struct fw_frame f[64];

static void reset(void)
{
	mem_reset(&m, BASE, 4096);
}

/*
 * Walks from fp into f[], at most max frames, and expects want_n frames
 * ending at want_stop.
 */
#define EXPECT_WALK(cfg, o, fp, max, want_n, want_stop)				\
	do {									\
		enum fw_stop stop_;						\
		unsigned int n_ = fw_walk(cfg, o, &m, fp, f, max, &stop_);	\
										\
		KTAP_EXPECT(n_ == (want_n) && stop_ == (want_stop),		\
			    "n=%u stop=%s", n_, fw_stop_name(stop_));		\
	} while (0)

/* Three records ending in the {0, 0} final record, as a task's pt_regs holds it. */
static void build_chain(void)
{
	reset();
	rec64(&m, BASE + 0x100, BASE + 0x180, 0xffff800008001004ull);
	rec64(&m, BASE + 0x180, BASE + 0x300, 0xffff800008002008ull);
	rec64(&m, BASE + 0x300, BASE + 0xf00, 0xffff80000800300cull);
	rec64(&m, BASE + 0xf00, 0, 0);
}

static void walk_chain_end(void)
{
	enum fw_stop stop;
	unsigned int n;

	build_chain();
	n = fw_walk(&cfg64, &ops, &m, BASE + 0x100, f, 8, &stop);
	KTAP_EXPECT(n == 3, "n=%u", n);
	KTAP_EXPECT(stop == FW_STOP_CHAIN_END, "stop=%s", fw_stop_name(stop));
	KTAP_EXPECT(f[0].ret == 0xffff800008001004ull, "ret0=%llx", (unsigned long long)f[0].ret);
	KTAP_EXPECT(f[2].ret == 0xffff80000800300cull, "ret2=%llx", (unsigned long long)f[2].ret);
	KTAP_EXPECT(f[1].record == BASE + 0x180, "record1");
}

static void walk_fp_zero(void)
{
	reset();
	rec64(&m, BASE + 0x100, 0, 0xffff800008001004ull);
	EXPECT_WALK(&cfg64, &ops, BASE + 0x100, 8, 1, FW_STOP_CHAIN_END);
	EXPECT_WALK(&cfg64, &ops, 0, 8, 0, FW_STOP_CHAIN_END);
}

static void walk_depth_limit(void)
{
	build_chain();
	EXPECT_WALK(&cfg64, &ops, BASE + 0x100, 2, 2, FW_STOP_DEPTH);
	EXPECT_WALK(&cfg64, &ops, BASE + 0x100, 0, 0, FW_STOP_DEPTH);
	/* A chain that ends exactly at the limit reports its end, not the limit. */
	EXPECT_WALK(&cfg64, &ops, BASE + 0x100, 3, 3, FW_STOP_CHAIN_END);
}

static void walk_misaligned(void)
{
	build_chain();
	rec64(&m, BASE + 0x180, BASE + 0x304, 0xffff800008002008ull);
	EXPECT_WALK(&cfg64, &ops, BASE + 0x100, 8, 2, FW_STOP_MISALIGNED);
}

static void walk_off_stack(void)
{
	build_chain();
	rec64(&m, BASE + 0x180, BASE + 0x2000, 0xffff800008002008ull);
	EXPECT_WALK(&cfg64, &ops, BASE + 0x100, 8, 2, FW_STOP_OFF_STACK);
	/* A record straddling the top of the stack is off the stack too. */
	build_chain();
	rec64(&m, BASE + 0x180, BASE + 4096 - 8, 0xffff800008002008ull);
	EXPECT_WALK(&cfg64, &ops, BASE + 0x100, 8, 2, FW_STOP_OFF_STACK);
	KTAP_EXPECT(m.reads == 2, "reads=%u: must not read a record it has refused", m.reads);
}

static void walk_cycle(void)
{
	build_chain();
	rec64(&m, BASE + 0x300, BASE + 0x100, 0xffff80000800300cull);
	EXPECT_WALK(&cfg64, &ops, BASE + 0x100, 64, 3, FW_STOP_NOT_INCREASING);
	/* A record pointing at itself. */
	reset();
	rec64(&m, BASE + 0x100, BASE + 0x100, 0xffff800008001004ull);
	EXPECT_WALK(&cfg64, &ops, BASE + 0x100, 64, 1, FW_STOP_NOT_INCREASING);
}

static void walk_read_fault(void)
{
	build_chain();
	m.fault_lo = BASE + 0x308;
	m.fault_hi = m.fault_lo + 1;
	EXPECT_WALK(&cfg64, &ops, BASE + 0x100, 8, 2, FW_STOP_READ_FAULT);
}

/* IRQ stack first, then the task stack: the walk may cross once, upward in the list only. */
static void walk_stack_transition(void)
{
	struct fw_stack_range stacks[2] = {
		{ BASE + 0x800, BASE + 0x1000 },	/* "irq" */
		{ BASE, BASE + 0x800 },			/* "task", lower addresses */
	};
	struct fw_walk_cfg cfg = cfg64;

	cfg.stacks = stacks;
	cfg.nr_stacks = 2;
	reset();
	rec64(&m, BASE + 0x900, BASE + 0xa00, 0x1111);
	rec64(&m, BASE + 0xa00, BASE + 0x100, 0x2222);	/* irq -> task, lower address: fine */
	rec64(&m, BASE + 0x100, BASE + 0x200, 0x3333);
	rec64(&m, BASE + 0x200, 0, 0);
	EXPECT_WALK(&cfg, &ops, BASE + 0x900, 8, 3, FW_STOP_CHAIN_END);
	/* task -> irq is a transition backwards: refused. */
	rec64(&m, BASE + 0x200, BASE + 0x900, 0x4444);
	EXPECT_WALK(&cfg, &ops, BASE + 0x900, 8, 4, FW_STOP_OFF_STACK);
}

static void walk_trampoline(void)
{
	struct fw_walk_ops tops = { .read = mem_read, .trampoline = tramp_cb };

	build_chain();
	rec64(&m, BASE + 0x180, BASE + 0x300, TRAMP_RET);	/* recoverable */
	EXPECT_WALK(&cfg64, &tops, BASE + 0x100, 8, 3, FW_STOP_CHAIN_END);
	KTAP_EXPECT(f[1].ret == 0xffff800008002008ull && (f[1].flags & FW_FRAME_RECOVERED),
		    "ret1=%llx flags=%x", (unsigned long long)f[1].ret, f[1].flags);
	rec64(&m, BASE + 0x300, BASE + 0xf00, TRAMP_RET);	/* not recoverable */
	EXPECT_WALK(&cfg64, &tops, BASE + 0x100, 8, 3, FW_STOP_TRAMPOLINE);
	KTAP_EXPECT(f[2].ret == TRAMP_RET, "the trampoline itself is kept as the last frame");
}

/*
 * A chain through an exception (arm64 since 6.13): the handler's record, then
 * the {0, 0} record in pt_regs, where the walk reports the interrupted pc and
 * goes on from the interrupted frame pointer, then the task's final record.
 */
static void walk_exception_boundary(void)
{
	struct fw_walk_ops bops = { .read = mem_read, .boundary = boundary_cb };
	uint64_t regs = BASE + 0x400 - PT_REGS_RECORD;

	reset();
	rec64(&m, BASE + 0x100, BASE + 0x400, 0xffff800008001004ull);
	pt_regs64(&m, BASE + 0x400, BASE + 0x600, 0xffff800008004000ull, PT_REGS_TYPE);
	rec64(&m, BASE + 0x600, 0, 0);
	put(&m, BASE + 0x610, 1, 8);	/* FRAME_META_TYPE_FINAL */
	EXPECT_WALK(&cfg64, &bops, BASE + 0x100, 8, 2, FW_STOP_CHAIN_END);
	KTAP_EXPECT(f[1].ret == 0xffff800008004000ull && f[1].record == BASE + 0x400,
		    "ret1=%llx record1=%llx", (unsigned long long)f[1].ret,
		    (unsigned long long)f[1].record);
	/* Without the operation, the {0, 0} record is the chain's end, as before 6.13. */
	EXPECT_WALK(&cfg64, &ops, BASE + 0x100, 8, 1, FW_STOP_CHAIN_END);
	/* The interrupted frame must lie above the saved state. */
	put(&m, regs + PT_REGS_FP, regs + PT_REGS_SIZE - 16, 8);
	EXPECT_WALK(&cfg64, &bops, BASE + 0x100, 8, 2, FW_STOP_NOT_INCREASING);
	/* The saved state must lie on the stack. */
	reset();
	rec64(&m, BASE + 0x100, BASE + 0x110, 0xffff800008001004ull);
	rec64(&m, BASE + 0x110, 0, 0);
	put(&m, BASE + 0x120, PT_REGS_TYPE, 8);
	EXPECT_WALK(&cfg64, &bops, BASE + 0x100, 8, 1, FW_STOP_OFF_STACK);
}

static fw_u64 clear_thumb(void *ctx, fw_u64 ret)
{
	(void)ctx;
	return ret & ~1ull;
}

/* Thumb: 32-bit words, {r7, lr} records, 4-byte alignment, Thumb bit cleared. */
static void walk_thumb32(void)
{
	struct fw_stack_range msp = { 0x20000000, 0x20001000 };
	struct fw_walk_cfg cfg = {
		.word_size = 4, .fp_off = 0, .lr_off = 4, .align = 4,
		.stacks = &msp, .nr_stacks = 1,
	};
	struct fw_walk_ops tops = { .read = mem_read, .fixup_ret = clear_thumb };

	mem_reset(&m, 0x20000000, 4096);
	put(&m, 0x20000f00, 0x20000f10, 4);
	put(&m, 0x20000f04, 0x00000211, 4);
	put(&m, 0x20000f10, 0x20000f24, 4);
	put(&m, 0x20000f14, 0x00000301, 4);
	put(&m, 0x20000f24, 0, 4);
	put(&m, 0x20000f28, 0x00000401, 4);
	EXPECT_WALK(&cfg, &tops, 0x20000f00, 8, 3, FW_STOP_CHAIN_END);
	KTAP_EXPECT(f[0].ret == 0x210 && f[1].ret == 0x300 && f[2].ret == 0x400,
		    "ancestors %llx %llx %llx", (unsigned long long)f[0].ret,
		    (unsigned long long)f[1].ret, (unsigned long long)f[2].ret);
	KTAP_EXPECT(f[2].record == 0x20000f24, "record2");
	/* 4-byte alignment accepts 0x...f24 but an odd fp is refused. */
	put(&m, 0x20000f10, 0x20000f26, 4);
	EXPECT_WALK(&cfg, &tops, 0x20000f00, 8, 2, FW_STOP_MISALIGNED);
}

/* GCC's Thumb r7 points 8 bytes below its {r7, lr} record; record_at finds it. */
static fw_u64 record_above(void *ctx, fw_u64 fp, fw_u64 ret)
{
	(void)ctx;
	if (ret == 0x300)	/* the function returning to 0x300 keeps no record */
		return 0;
	return fp + 8;
}

static void walk_record_at(void)
{
	struct fw_stack_range msp = { 0x20000000, 0x20001000 };
	struct fw_walk_cfg cfg = {
		.word_size = 4, .fp_off = 0, .lr_off = 4, .align = 4,
		.stacks = &msp, .nr_stacks = 1,
	};
	struct fw_walk_ops tops = {
		.read = mem_read, .fixup_ret = clear_thumb, .record_at = record_above,
	};

	mem_reset(&m, 0x20000000, 4096);
	/* fp 0x...f00 -> record at f08: {r7 = 0x...f20, lr = 0x211} */
	put(&m, 0x20000f08, 0x20000f20, 4);
	put(&m, 0x20000f0c, 0x00000211, 4);
	/* fp 0x...f20 -> record at f28: {r7 = 0x...f40, lr = 0x301} */
	put(&m, 0x20000f28, 0x20000f40, 4);
	put(&m, 0x20000f2c, 0x00000301, 4);
	EXPECT_WALK(&cfg, &tops, 0x20000f00, 8, 2, FW_STOP_NO_RECORD);
	KTAP_EXPECT(f[0].record == 0x20000f08 && f[1].record == 0x20000f28,
		    "records %llx %llx", (unsigned long long)f[0].record,
		    (unsigned long long)f[1].record);
	KTAP_EXPECT(f[0].ret == 0x210 && f[1].ret == 0x300, "ancestors");
}

/* The kernel's common walk with lib's model of its fast path, over mem_read. */
static const struct fw_walk_ops model_loads = { .load_record = mem_load_record };

static int model_walk_fast(void *ctx, fw_u64 *fp, fw_u64 *prev, fw_u64 top, fw_u64 **ret_out,
			   fw_u64 *ret_end, fw_u64 **rec_out, enum fw_stop *stop)
{
	return fw_walk_fast_model(&model_loads, ctx, fp, prev, top, ret_out, ret_end, rec_out,
				  stop);
}

/*
 * fw_walk_native() must be fw_walk() for native records: the same frames,
 * the same stop, the same recovered frames, on random and hostile memory
 * (fw_walk_chains.h). With lib's model of the kernel's fast path too:
 * tests/lib/test_fw_walk_arm64.c holds the kernel's assembly to the same.
 */
static void native_equals_generic(void)
{
	struct fw_stack_range stacks[3];
	struct fw_walk_ops nops = { .load_record = mem_load_record, .trampoline = tramp_cb,
				    .boundary = boundary_cb };
	struct fw_walk_ops gops = { .read = mem_read, .trampoline = tramp_cb,
				    .boundary = boundary_cb };
	/* The kernel's common walk: a fast path, no trampolines to watch for. */
	struct fw_walk_ops fops = { .load_record = mem_load_record, .walk_fast = model_walk_fast,
				    .boundary = boundary_cb };
	struct fw_walk_ops plain = { .read = mem_read, .boundary = boundary_cb };
	/* And as kernels before 6.13 walk: no exception boundary to go through. */
	struct fw_walk_ops fops_old = { .load_record = mem_load_record,
					.walk_fast = model_walk_fast };
	struct fw_walk_ops plain_old = { .read = mem_read };
	struct fw_walk_cfg cfg = cfg64;
	unsigned int round, bad = 0, frames = 0, stops[FW_STOP_KERNEL_NR] = { 0 };
	unsigned int fast_bad = 0, fast_frames = 0;

	for (round = 0; round < 20000; round++) {
		enum fw_stop stop;
		unsigned int max;
		uint64_t start;
		int n;

		reset();
		start = random_chains(&m, stacks, &cfg, 1, &max);
		n = native_matches(&cfg, &gops, &nops, &m, start, max, &stop);
		if (n < 0) {
			bad++;
			continue;
		}
		frames += n;
		stops[stop]++;
		/* With the fast path: fw_walk() without trampolines, both walks. */
		count_match(native_matches(&cfg, &plain, &fops, &m, start, max, &stop), &fast_bad,
			    &fast_frames);
		if (native_matches(&cfg, &plain_old, &fops_old, &m, start, max, &stop) < 0)
			fast_bad++;
	}
	KTAP_EXPECT(bad == 0, "%u of 20000 walks differ", bad);
	KTAP_EXPECT(fast_bad == 0, "%u of 20000 walks with walk_fast differ", fast_bad);
	KTAP_EXPECT(fast_frames > 10000, "fast_frames=%u", fast_frames);
	expect_walks_varied(frames, stops);
}

/*
 * The stops' values and names as the trace events, the counters and the
 * recordings promise them, written out here rather than made from
 * FW_STOP_LIST: a stop inserted, moved or renamed in the list fails here.
 * A new stop adds its line to the end of its range.
 */
static const struct {
	unsigned int stop;	/* the enum's value */
	unsigned int value;	/* the ABI's */
	const char *name;
} stop_abi[] = {
	{ FW_STOP_CHAIN_END, 0, "chain_end" },
	{ FW_STOP_DEPTH, 1, "depth" },
	{ FW_STOP_MISALIGNED, 2, "misaligned" },
	{ FW_STOP_OFF_STACK, 3, "off_stack" },
	{ FW_STOP_NOT_INCREASING, 4, "not_increasing" },
	{ FW_STOP_READ_FAULT, 5, "read_fault" },
	{ FW_STOP_TRAMPOLINE, 6, "trampoline" },
	{ FW_STOP_NO_RECORD, 7, "no_record" },
	{ FW_STOP_USER_OFF, 128, "user_off" },
	{ FW_STOP_USER_KERNEL, 129, "user_kernel" },
	{ FW_STOP_USER_COMPAT, 130, "user_compat" },
	{ FW_STOP_USER_END, 131, "user_end" },
	{ FW_STOP_USER_DEPTH, 132, "user_depth" },
	{ FW_STOP_USER_BAD_FP, 133, "user_bad_fp" },
	{ FW_STOP_USER_NOT_INCREASING, 134, "user_not_increasing" },
	{ FW_STOP_USER_FAULT, 135, "user_fault" },
};

#define NR_STOP_ABI	(sizeof(stop_abi) / sizeof(stop_abi[0]))

static void stop_values_and_names(void)
{
	unsigned int i, v, named = 0;

	for (i = 0; i < NR_STOP_ABI; i++) {
		KTAP_EXPECT(stop_abi[i].stop == stop_abi[i].value, "%s is %u, the ABI says %u",
			    stop_abi[i].name, stop_abi[i].stop, stop_abi[i].value);
		KTAP_EXPECT(strcmp(fw_stop_name(stop_abi[i].value), stop_abi[i].name) == 0,
			    "stop %u is %s, the ABI says %s", stop_abi[i].value,
			    fw_stop_name(stop_abi[i].value), stop_abi[i].name);
		KTAP_EXPECT(fw_stop_is_user(stop_abi[i].value) == (stop_abi[i].value >= 128),
			    "%s is in the %s range", stop_abi[i].name,
			    stop_abi[i].value >= 128 ? "user" : "kernel");
	}
	/* Every value of the events' byte that has a name is one of the table's. */
	for (v = 0; v < 256; v++)
		named += strcmp(fw_stop_name(v), "unknown") != 0;
	KTAP_EXPECT(named == NR_STOP_ABI, "%u values have a name, the ABI %zu", named,
		    NR_STOP_ABI);
	KTAP_EXPECT(FW_STOP_KERNEL_NR == 8 && FW_STOP_USER_NR == 8, "kernel %d, user %d",
		    FW_STOP_KERNEL_NR, FW_STOP_USER_NR);
	KTAP_EXPECT(strcmp(fw_stop_name(FW_STOP_NONE), "unknown") == 0, "FW_STOP_NONE named");
	KTAP_EXPECT(strcmp(fw_stop_name(1000), "unknown") == 0, "out of range");
}

/* The values and names are exported (event, recording): generating them must keep both. */
static void tramp_names(void)
{
	static const char *const want[] = { "none", "graph", "kretprobe", "rethook" };
	unsigned int i;

	KTAP_EXPECT(FW_TRAMP_NR == 4, "FW_TRAMP_NR=%d", FW_TRAMP_NR);
	for (i = 0; i < 4; i++)
		KTAP_EXPECT(strcmp(fw_tramp_name(i), want[i]) == 0, "tramp %u is %s", i,
			    fw_tramp_name(i));
	KTAP_EXPECT(FW_TRAMP_NONE == 0 && FW_TRAMP_RETHOOK == 3, "values moved");
	KTAP_EXPECT(strcmp(fw_tramp_name(FW_TRAMP_NR), "unknown") == 0, "out of range");
}

int main(void)
{
	ktap_header("fw_walk");
	KTAP_RUN(walk_chain_end);
	KTAP_RUN(walk_fp_zero);
	KTAP_RUN(walk_depth_limit);
	KTAP_RUN(walk_misaligned);
	KTAP_RUN(walk_off_stack);
	KTAP_RUN(walk_cycle);
	KTAP_RUN(walk_read_fault);
	KTAP_RUN(walk_stack_transition);
	KTAP_RUN(walk_trampoline);
	KTAP_RUN(walk_exception_boundary);
	KTAP_RUN(walk_thumb32);
	KTAP_RUN(walk_record_at);
	KTAP_RUN(native_equals_generic);
	KTAP_RUN(stop_values_and_names);
	KTAP_RUN(tramp_names);
	return ktap_finish();
}
