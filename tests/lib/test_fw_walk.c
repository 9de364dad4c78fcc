// SPDX-License-Identifier: GPL-2.0
/*
 * test_fw_walk.c - unit tests of lib/fw_walk.h on synthetic stacks, for both
 * the arm64 {x29, x30} layout and the Thumb {r7, lr} layout.
 */
#include <stdint.h>
#include <string.h>

#include "../../lib/fw_walk.h"
#include "../ktap.h"

/* A fake target memory: one byte array mapped at a base address. */
struct mem {
	uint64_t base;
	uint8_t bytes[4096];
	uint64_t fault_at;	/* reads touching this address fail (0: none) */
	unsigned int reads;
};

static int mem_read(void *ctx, fw_u64 addr, void *buf, unsigned int size)
{
	struct mem *m = ctx;

	m->reads++;
	if (m->fault_at && addr <= m->fault_at && m->fault_at < addr + size)
		return -1;
	if (addr < m->base || addr + size > m->base + sizeof(m->bytes))
		return -1;
	memcpy(buf, m->bytes + (addr - m->base), size);
	return 0;
}

static void put(struct mem *m, uint64_t addr, uint64_t v, unsigned int size)
{
	unsigned int i;

	for (i = 0; i < size; i++)
		m->bytes[addr - m->base + i] = (uint8_t)(v >> (8 * i));
}

/* Write an arm64 record {fp, lr} at addr. */
static void rec64(struct mem *m, uint64_t addr, uint64_t fp, uint64_t lr)
{
	put(m, addr, fp, 8);
	put(m, addr + 8, lr, 8);
}

static const struct fw_walk_ops ops = { .read = mem_read };

#define BASE 0xffff800010000000ull

static struct fw_stack_range task_stack = { BASE, BASE + 4096 };
static const struct fw_walk_cfg cfg64 = {
	.word_size = 8, .fp_off = 0, .lr_off = 8, .align = 8,
	.stacks = &task_stack, .nr_stacks = 1,
};

static struct mem m;

static void reset(void)
{
	memset(&m, 0, sizeof(m));
	m.base = BASE;
}

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
	struct fw_frame f[8];
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
	struct fw_frame f[8];
	enum fw_stop stop;
	unsigned int n;

	reset();
	rec64(&m, BASE + 0x100, 0, 0xffff800008001004ull);
	n = fw_walk(&cfg64, &ops, &m, BASE + 0x100, f, 8, &stop);
	KTAP_EXPECT(n == 1 && stop == FW_STOP_CHAIN_END, "n=%u stop=%s", n, fw_stop_name(stop));
	n = fw_walk(&cfg64, &ops, &m, 0, f, 8, &stop);
	KTAP_EXPECT(n == 0 && stop == FW_STOP_CHAIN_END, "n=%u stop=%s", n, fw_stop_name(stop));
}

static void walk_depth_limit(void)
{
	struct fw_frame f[8];
	enum fw_stop stop;
	unsigned int n;

	build_chain();
	n = fw_walk(&cfg64, &ops, &m, BASE + 0x100, f, 2, &stop);
	KTAP_EXPECT(n == 2 && stop == FW_STOP_DEPTH, "n=%u stop=%s", n, fw_stop_name(stop));
	n = fw_walk(&cfg64, &ops, &m, BASE + 0x100, f, 0, &stop);
	KTAP_EXPECT(n == 0 && stop == FW_STOP_DEPTH, "n=%u stop=%s", n, fw_stop_name(stop));
	/* A chain that ends exactly at the limit reports its end, not the limit. */
	n = fw_walk(&cfg64, &ops, &m, BASE + 0x100, f, 3, &stop);
	KTAP_EXPECT(n == 3 && stop == FW_STOP_CHAIN_END, "n=%u stop=%s", n, fw_stop_name(stop));
}

static void walk_misaligned(void)
{
	struct fw_frame f[8];
	enum fw_stop stop;
	unsigned int n;

	build_chain();
	rec64(&m, BASE + 0x180, BASE + 0x304, 0xffff800008002008ull);
	n = fw_walk(&cfg64, &ops, &m, BASE + 0x100, f, 8, &stop);
	KTAP_EXPECT(n == 2 && stop == FW_STOP_MISALIGNED, "n=%u stop=%s", n, fw_stop_name(stop));
}

static void walk_off_stack(void)
{
	struct fw_frame f[8];
	enum fw_stop stop;
	unsigned int n;

	build_chain();
	rec64(&m, BASE + 0x180, BASE + 0x2000, 0xffff800008002008ull);
	n = fw_walk(&cfg64, &ops, &m, BASE + 0x100, f, 8, &stop);
	KTAP_EXPECT(n == 2 && stop == FW_STOP_OFF_STACK, "n=%u stop=%s", n, fw_stop_name(stop));
	/* A record straddling the top of the stack is off the stack too. */
	build_chain();
	rec64(&m, BASE + 0x180, BASE + 4096 - 8, 0xffff800008002008ull);
	n = fw_walk(&cfg64, &ops, &m, BASE + 0x100, f, 8, &stop);
	KTAP_EXPECT(n == 2 && stop == FW_STOP_OFF_STACK, "n=%u stop=%s", n, fw_stop_name(stop));
	KTAP_EXPECT(m.reads == 2, "reads=%u: must not read a record it has refused", m.reads);
}

static void walk_cycle(void)
{
	struct fw_frame f[64];
	enum fw_stop stop;
	unsigned int n;

	build_chain();
	rec64(&m, BASE + 0x300, BASE + 0x100, 0xffff80000800300cull);
	n = fw_walk(&cfg64, &ops, &m, BASE + 0x100, f, 64, &stop);
	KTAP_EXPECT(n == 3 && stop == FW_STOP_NOT_INCREASING, "n=%u stop=%s", n, fw_stop_name(stop));
	/* A record pointing at itself. */
	reset();
	rec64(&m, BASE + 0x100, BASE + 0x100, 0xffff800008001004ull);
	n = fw_walk(&cfg64, &ops, &m, BASE + 0x100, f, 64, &stop);
	KTAP_EXPECT(n == 1 && stop == FW_STOP_NOT_INCREASING, "n=%u stop=%s", n, fw_stop_name(stop));
}

static void walk_read_fault(void)
{
	struct fw_frame f[8];
	enum fw_stop stop;
	unsigned int n;

	build_chain();
	m.fault_at = BASE + 0x308;
	n = fw_walk(&cfg64, &ops, &m, BASE + 0x100, f, 8, &stop);
	KTAP_EXPECT(n == 2 && stop == FW_STOP_READ_FAULT, "n=%u stop=%s", n, fw_stop_name(stop));
}

/* IRQ stack first, then the task stack: the walk may cross once, upward in the list only. */
static void walk_stack_transition(void)
{
	struct fw_stack_range stacks[2] = {
		{ BASE + 0x800, BASE + 0x1000 },	/* "irq" */
		{ BASE, BASE + 0x800 },			/* "task", lower addresses */
	};
	struct fw_walk_cfg cfg = cfg64;
	struct fw_frame f[8];
	enum fw_stop stop;
	unsigned int n;

	cfg.stacks = stacks;
	cfg.nr_stacks = 2;
	reset();
	rec64(&m, BASE + 0x900, BASE + 0xa00, 0x1111);
	rec64(&m, BASE + 0xa00, BASE + 0x100, 0x2222);	/* irq -> task, lower address: fine */
	rec64(&m, BASE + 0x100, BASE + 0x200, 0x3333);
	rec64(&m, BASE + 0x200, 0, 0);
	n = fw_walk(&cfg, &ops, &m, BASE + 0x900, f, 8, &stop);
	KTAP_EXPECT(n == 3 && stop == FW_STOP_CHAIN_END, "n=%u stop=%s", n, fw_stop_name(stop));
	/* task -> irq is a transition backwards: refused. */
	rec64(&m, BASE + 0x200, BASE + 0x900, 0x4444);
	n = fw_walk(&cfg, &ops, &m, BASE + 0x900, f, 8, &stop);
	KTAP_EXPECT(n == 4 && stop == FW_STOP_OFF_STACK, "n=%u stop=%s", n, fw_stop_name(stop));
}

static int tramp_cb(void *ctx, fw_u64 record, fw_u64 *ret)
{
	(void)ctx;
	if (*ret != 0xdead0000)
		return 0;
	if (record == BASE + 0x180) {
		*ret = 0xffff800008002008ull;
		return 2;
	}
	return 1;
}

static void walk_trampoline(void)
{
	struct fw_walk_ops tops = { .read = mem_read, .trampoline = tramp_cb };
	struct fw_frame f[8];
	enum fw_stop stop;
	unsigned int n;

	build_chain();
	rec64(&m, BASE + 0x180, BASE + 0x300, 0xdead0000);	/* recoverable */
	n = fw_walk(&cfg64, &tops, &m, BASE + 0x100, f, 8, &stop);
	KTAP_EXPECT(n == 3 && stop == FW_STOP_CHAIN_END, "n=%u stop=%s", n, fw_stop_name(stop));
	KTAP_EXPECT(f[1].ret == 0xffff800008002008ull && (f[1].flags & FW_FRAME_RECOVERED),
		    "ret1=%llx flags=%x", (unsigned long long)f[1].ret, f[1].flags);
	rec64(&m, BASE + 0x300, BASE + 0xf00, 0xdead0000);	/* not recoverable */
	n = fw_walk(&cfg64, &tops, &m, BASE + 0x100, f, 8, &stop);
	KTAP_EXPECT(n == 3 && stop == FW_STOP_TRAMPOLINE, "n=%u stop=%s", n, fw_stop_name(stop));
	KTAP_EXPECT(f[2].ret == 0xdead0000, "the trampoline itself is kept as the last frame");
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
	struct fw_frame f[8];
	enum fw_stop stop;
	unsigned int n;

	memset(&m, 0, sizeof(m));
	m.base = 0x20000000;
	put(&m, 0x20000f00, 0x20000f10, 4);
	put(&m, 0x20000f04, 0x00000211, 4);
	put(&m, 0x20000f10, 0x20000f24, 4);
	put(&m, 0x20000f14, 0x00000301, 4);
	put(&m, 0x20000f24, 0, 4);
	put(&m, 0x20000f28, 0x00000401, 4);
	n = fw_walk(&cfg, &tops, &m, 0x20000f00, f, 8, &stop);
	KTAP_EXPECT(n == 3 && stop == FW_STOP_CHAIN_END, "n=%u stop=%s", n, fw_stop_name(stop));
	KTAP_EXPECT(f[0].ret == 0x210 && f[1].ret == 0x300 && f[2].ret == 0x400,
		    "rets %llx %llx %llx", (unsigned long long)f[0].ret,
		    (unsigned long long)f[1].ret, (unsigned long long)f[2].ret);
	KTAP_EXPECT(f[2].record == 0x20000f24, "record2");
	/* 4-byte alignment accepts 0x...f24 but an odd fp is refused. */
	put(&m, 0x20000f10, 0x20000f26, 4);
	n = fw_walk(&cfg, &tops, &m, 0x20000f00, f, 8, &stop);
	KTAP_EXPECT(n == 2 && stop == FW_STOP_MISALIGNED, "n=%u stop=%s", n, fw_stop_name(stop));
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
	struct fw_frame f[8];
	enum fw_stop stop;
	unsigned int n;

	memset(&m, 0, sizeof(m));
	m.base = 0x20000000;
	/* fp 0x...f00 -> record at f08: {r7 = 0x...f20, lr = 0x211} */
	put(&m, 0x20000f08, 0x20000f20, 4);
	put(&m, 0x20000f0c, 0x00000211, 4);
	/* fp 0x...f20 -> record at f28: {r7 = 0x...f40, lr = 0x301} */
	put(&m, 0x20000f28, 0x20000f40, 4);
	put(&m, 0x20000f2c, 0x00000301, 4);
	n = fw_walk(&cfg, &tops, &m, 0x20000f00, f, 8, &stop);
	KTAP_EXPECT(n == 2 && stop == FW_STOP_NO_RECORD, "n=%u stop=%s", n, fw_stop_name(stop));
	KTAP_EXPECT(f[0].record == 0x20000f08 && f[1].record == 0x20000f28,
		    "records %llx %llx", (unsigned long long)f[0].record,
		    (unsigned long long)f[1].record);
	KTAP_EXPECT(f[0].ret == 0x210 && f[1].ret == 0x300, "rets");
}

static void mem_load_record(void *ctx, fw_u64 addr, fw_u64 *fp, fw_u64 *ret, int *fault)
{
	fw_u64 words[2];

	if (mem_read(ctx, addr, words, sizeof(words))) {
		/* As the kernel's exception fixup leaves them: fp stale, ret zeroed. */
		*ret = 0;
		*fault = 1;
		return;
	}
	*fp = words[0];
	*ret = words[1];
}

/*
 * The kernel's walk_fast (module/fw_main.c, assembly) in C, to the contract
 * in fw_walk.h: it stores the frames that pass the fast test and ends the
 * walk at a return address of 0 or at the depth; the walk's loop must pick
 * up at the first record that fails the test and end as fw_walk() does.
 */
static int mem_walk_fast(void *ctx, fw_u64 *fp, fw_u64 *prev, fw_u64 top, fw_u64 **ret_out,
			 fw_u64 *ret_end, fw_u64 **rec_out, enum fw_stop *stop)
{
	fw_u64 a = *fp, b = *prev, words[2];
	int end = 0;

	while (!(a & 7) && a > b && a <= top) {
		if (mem_read(ctx, a, words, sizeof(words))) {
			*stop = FW_STOP_READ_FAULT;
			end = 1;
			break;
		}
		if (!words[1] || *ret_out == ret_end) {
			*stop = words[1] ? FW_STOP_DEPTH : FW_STOP_CHAIN_END;
			end = 1;
			break;
		}
		if (rec_out)
			*(*rec_out)++ = a;
		*(*ret_out)++ = words[1];
		b = a;
		a = words[0];
	}
	*fp = a;
	*prev = b;
	return end;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Where the record at @at might link: mostly a caller's record above, sometimes hostile. */
static uint64_t random_link(uint64_t at)
{
	switch (next_rand() % 10) {
	case 0:
		return 0;
	case 1:
		return BASE + next_rand() % 4096;		/* any alignment */
	case 2:
		return BASE - 16 * (next_rand() % 4);		/* below every stack */
	case 3:
		return BASE + 8 * (next_rand() % 512);	/* aligned, anywhere */
	default:
		return at + 16 * (1 + next_rand() % 8);	/* a caller */
	}
}

/*
 * fw_walk_native() must be fw_walk() for native records: the same frames,
 * the same stop, the same recovered frames, on random and hostile memory
 * (cycles, misaligned and off-stack links, faults, stack transitions both
 * ways, stacks too small or misaligned for the fast test, trampolines).
 */
static void native_equals_generic(void)
{
	struct fw_stack_range stacks[3];
	struct fw_walk_ops nops = { .load_record = mem_load_record, .trampoline = tramp_cb };
	struct fw_walk_ops gops = { .read = mem_read, .trampoline = tramp_cb };
	/* The kernel's common walk: a fast path, no trampolines to watch for. */
	struct fw_walk_ops fops = { .load_record = mem_load_record, .walk_fast = mem_walk_fast };
	struct fw_walk_ops plain = { .read = mem_read };
	struct fw_walk_cfg cfg = cfg64;
	unsigned int round, i, bad = 0, frames = 0, stops[FW_STOP_NR] = { 0 };
	unsigned int fast_bad = 0, fast_frames = 0;

	cfg.stacks = stacks;
	for (round = 0; round < 20000; round++) {
		struct fw_frame f[16];
		fw_u64 rets[16], records[16], rets_only[16], fixed, rfixed;
		enum fw_stop gstop, nstop, rstop;
		unsigned int gn, nn, rn, max = next_rand() % 13;
		uint64_t start;

		reset();
		for (i = 0; i < sizeof(m.bytes) / 16; i++)
			rec64(&m, BASE + 16 * i, random_link(BASE + 16 * i),
			      next_rand() % 16 == 0 ? 0xdead0000 : next_rand() % 12 ? 0x1000 + i : 0);
		if (next_rand() % 4 == 0)
			m.fault_at = BASE + next_rand() % 4096;
		/* An "irq" stack above a "task" stack, as the kernel passes them. */
		stacks[0].lo = BASE + 0x800 + 8 * (next_rand() % 4 == 0 ? 1 : 0);
		stacks[0].hi = BASE + 0x1000 - 16 * (next_rand() % 3);
		stacks[1].lo = BASE;
		stacks[1].hi = BASE + 0x800 + 4 * (next_rand() % 3);
		stacks[2].lo = BASE + 0x100;
		stacks[2].hi = BASE + 0x108;	/* too small for a record */
		cfg.nr_stacks = (unsigned int)(next_rand() % 4);
		start = random_link(BASE + 0x900 - 16 * (next_rand() % 0x80));
		gn = fw_walk(&cfg, &gops, &m, start, f, max, &gstop);
		nn = fw_walk_native(&cfg, &nops, &m, start, rets, records, &fixed, max, &nstop);
		if (gn != nn || gstop != nstop) {
			bad++;
			continue;
		}
		for (i = 0; i < gn; i++)
			if (rets[i] != f[i].ret || records[i] != f[i].record ||
			    !!(fixed & (1ull << i)) != !!(f[i].flags & FW_FRAME_RECOVERED))
				bad++;
		/* The aggregation's walk: the same returns and stop, no records. */
		rn = fw_walk_native_rets(&cfg, &nops, &m, start, rets_only, &rfixed, max, &rstop);
		if (rn != nn || rstop != nstop || rfixed != fixed ||
		    memcmp(rets_only, rets, nn * sizeof(rets[0])))
			bad++;
		frames += gn;
		stops[gstop]++;
		/* With the fast path: fw_walk() without trampolines, both walks. */
		gn = fw_walk(&cfg, &plain, &m, start, f, max, &gstop);
		nn = fw_walk_native(&cfg, &fops, &m, start, rets, records, NULL, max, &nstop);
		rn = fw_walk_native_rets(&cfg, &fops, &m, start, rets_only, NULL, max, &rstop);
		if (gn != nn || gstop != nstop || rn != nn || rstop != nstop) {
			fast_bad++;
			continue;
		}
		for (i = 0; i < gn; i++)
			if (rets[i] != f[i].ret || records[i] != f[i].record ||
			    rets_only[i] != f[i].ret)
				fast_bad++;
		fast_frames += gn;
	}
	KTAP_EXPECT(bad == 0, "%u of 20000 walks differ", bad);
	KTAP_EXPECT(fast_bad == 0, "%u of 20000 walks with walk_fast differ", fast_bad);
	KTAP_EXPECT(fast_frames > 10000, "fast_frames=%u", fast_frames);
	/* The comparison means something only if the walks went places and ended every way. */
	KTAP_EXPECT(frames > 10000, "frames=%u", frames);
	for (i = 0; i < FW_STOP_NR; i++)
		if (i != FW_STOP_NO_RECORD)
			KTAP_EXPECT(stops[i] > 0, "no walk ended with %s", fw_stop_name(i));
}

static void stop_names(void)
{
	unsigned int i;

	for (i = 0; i < FW_STOP_NR; i++)
		KTAP_EXPECT(strcmp(fw_stop_name(i), "unknown") != 0, "stop %u has a name", i);
	KTAP_EXPECT(strcmp(fw_stop_name(FW_STOP_NR), "unknown") == 0, "out of range");
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
	KTAP_RUN(walk_thumb32);
	KTAP_RUN(walk_record_at);
	KTAP_RUN(native_equals_generic);
	KTAP_RUN(stop_names);
	return ktap_finish();
}
