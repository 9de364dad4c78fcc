/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fw_walk_chains.h - the fake target memory and the random, hostile frame
 * record chains that both fw_walk tests walk: test_fw_walk.c on the host,
 * test_fw_walk_arm64.c with the kernel's assembly under qemu-aarch64.
 */
#ifndef FW_TESTS_WALK_CHAINS_H
#define FW_TESTS_WALK_CHAINS_H

#include <stdint.h>
#include <string.h>

#include "../../lib/fw_walk.h"
#include "../ktap.h"

#define MEM_MAX		16384

/*
 * A fake target memory: one byte array seen at a base address. On the host
 * the base is a kernel address, never dereferenced; the arm64 test makes it
 * the array's own address, so that the kernel's loads read the same bytes.
 * Page-aligned, so that the arm64 test can make a page of it fault.
 */
struct mem {
	uint64_t base;
	uint64_t size;		/* bytes in use, at most MEM_MAX */
	uint64_t fault_lo;	/* reads touching [fault_lo, fault_hi) fail */
	uint64_t fault_hi;
	unsigned int reads;
	uint8_t bytes[MEM_MAX] __attribute__((aligned(4096)));
};

static inline void mem_reset(struct mem *m, uint64_t base, uint64_t size)
{
	memset(m->bytes, 0, size);
	m->base = base;
	m->size = size;
	m->fault_lo = 0;
	m->fault_hi = 0;
	m->reads = 0;
}

static inline int mem_read(void *ctx, fw_u64 addr, void *buf, unsigned int size)
{
	struct mem *m = ctx;

	m->reads++;
	if (addr < m->fault_hi && m->fault_lo < addr + size)
		return -1;
	if (addr < m->base || addr + size > m->base + m->size)
		return -1;
	memcpy(buf, m->bytes + (addr - m->base), size);
	return 0;
}

static inline void put(struct mem *m, uint64_t addr, uint64_t v, unsigned int size)
{
	unsigned int i;

	for (i = 0; i < size; i++)
		m->bytes[addr - m->base + i] = (uint8_t)(v >> (8 * i));
}

/* Write an arm64 record {fp, lr} at addr. */
static inline void rec64(struct mem *m, uint64_t addr, uint64_t fp, uint64_t lr)
{
	put(m, addr, fp, 8);
	put(m, addr + 8, lr, 8);
}

/* load_record over mem_read, for fw_walk_native() and the fast path's model. */
static inline void mem_load_record(void *ctx, fw_u64 addr, fw_u64 *fp, fw_u64 *ret, int *fault)
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

#define TRAMP_RET	0xdead0000ull

/*
 * A return trampoline at TRAMP_RET: seen behind (as function_graph's is) in
 * the record 0x180 above the base, not elsewhere.
 */
static inline int tramp_cb(void *ctx, fw_u64 record, fw_u64 *ret)
{
	struct mem *m = ctx;

	if (*ret != TRAMP_RET)
		return 0;
	if (record == m->base + 0x180) {
		*ret = 0xffff800008002008ull;
		return 2;
	}
	return 1;
}

/*
 * An exception's saved state as arm64 keeps it since 6.13 (struct pt_regs,
 * in bytes): a record {0, 0} at PT_REGS_RECORD, the type word after it,
 * regs[29] at PT_REGS_FP, sp and pc at PT_REGS_SP. The arm64 test gives the
 * module's boundary the same layout.
 */
#define PT_REGS_RECORD	296
#define PT_REGS_SIZE	320
#define PT_REGS_FP	232
#define PT_REGS_SP	248
#define PT_REGS_TYPE	2
#define PT_PC_MARK	0xfeed0000ull	/* interrupted pcs the random chains plant */

/* pt_regs whose record is at @rec: interrupted at @pc with frame pointer @fp. */
static inline void pt_regs64(struct mem *m, uint64_t rec, uint64_t fp, uint64_t pc,
			     uint64_t type)
{
	uint64_t regs = rec - PT_REGS_RECORD;

	put(m, regs + PT_REGS_FP, fp, 8);
	put(m, regs + PT_REGS_SP + 8, pc, 8);
	rec64(m, rec, 0, 0);
	put(m, rec + 16, type, 8);
}

static unsigned int boundaries_crossed;

/*
 * fw_walk_ops.boundary's contract over mem_read, for that layout: the
 * reference the module's fw_exception_boundary() is held to. It reads what
 * the module's loads read, pairs of words, so that a fault hits both alike.
 */
static inline enum fw_stop boundary_cb(void *ctx, fw_u64 record,
				       const struct fw_stack_range *stack, fw_u64 *ret,
				       fw_u64 *fp, fw_u64 *prev)
{
	fw_u64 regs = record - PT_REGS_RECORD, words[2];

	if (stack->hi - record < 24)
		return FW_STOP_OFF_STACK;
	if (mem_read(ctx, record + 8, words, sizeof(words)))
		return FW_STOP_READ_FAULT;
	if (words[1] != PT_REGS_TYPE)
		return FW_STOP_CHAIN_END;
	if (record < PT_REGS_RECORD || regs < stack->lo || stack->hi - regs < PT_REGS_SIZE)
		return FW_STOP_OFF_STACK;
	if (mem_read(ctx, regs + PT_REGS_FP, words, sizeof(words)))
		return FW_STOP_READ_FAULT;
	*fp = words[0];
	if (mem_read(ctx, regs + PT_REGS_SP, words, sizeof(words)))
		return FW_STOP_READ_FAULT;
	*ret = words[1];
	*prev = regs + PT_REGS_SIZE - 1;
	boundaries_crossed++;
	return FW_STOP_NONE;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static inline uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Where the record at @at might link: mostly a caller's record above, sometimes hostile. */
static inline uint64_t random_link(const struct mem *m, uint64_t at)
{
	switch (next_rand() % 10) {
	case 0:
		return 0;
	case 1:
		return m->base + next_rand() % m->size;		/* any alignment */
	case 2:
		return m->base - 16 * (next_rand() % 4);	/* below every stack */
	case 3:
		return m->base + 8 * (next_rand() % (m->size / 8));	/* aligned, anywhere */
	default:
		return at + 16 * (1 + next_rand() % 8);		/* a caller */
	}
}

/*
 * One round of random and hostile memory (cycles, misaligned and off-stack
 * links, stack transitions both ways, stacks too small or misaligned for
 * the fast test, trampolines) on @m as mem_reset() left it: records
 * everywhere, in a quarter of the rounds a fault in the @fault_size bytes
 * (a power of 2) around a random address, and 0 to 3 stacks in @cfg: an
 * "irq" stack in the upper half above a "task" stack in the lower, as the
 * kernel passes them, and one too small for a record. Returns the frame
 * pointer to start from, and the depth limit in *@max.
 */
static inline uint64_t random_chains(struct mem *m, struct fw_stack_range stacks[3],
			      struct fw_walk_cfg *cfg, uint64_t fault_size, unsigned int *max)
{
	uint64_t half = m->size / 2, i;

	*max = next_rand() % 13;
	for (i = 0; i < m->size / 16; i++)
		rec64(m, m->base + 16 * i, random_link(m, m->base + 16 * i),
		      next_rand() % 16 == 0 ? TRAMP_RET : next_rand() % 12 ? 0x1000 + i : 0);
	/*
	 * Exception boundaries: mostly a kernel exception's, whose interrupted
	 * frame lies above the saved state, sometimes another type of record
	 * or an interrupted pc of 0 or a trampoline.
	 */
	for (i = next_rand() % (m->size / 512); i > 0; i--) {
		uint64_t rec = m->base + 16 * (next_rand() % (m->size / 16 - 2));
		uint64_t type = next_rand() % 8 ? PT_REGS_TYPE : next_rand() % 3;
		uint64_t pc = next_rand() % 16 == 0 ? 0 : next_rand() % 16 == 0 ? TRAMP_RET :
			      PT_PC_MARK + i;
		uint64_t end = rec - PT_REGS_RECORD + PT_REGS_SIZE;
		/* The interrupted frame: above the state, or at its edge, or hostile. */
		uint64_t fp = next_rand() % 4 ? random_link(m, end - 16) :
			      end - 8 * (next_rand() % 3);

		if (rec >= m->base + PT_REGS_RECORD)
			pt_regs64(m, rec, fp, pc, type);
		else
			rec64(m, rec, 0, 0);	/* its state would lie below the memory */
	}
	if (next_rand() % 4 == 0) {
		m->fault_lo = m->base + ((next_rand() % m->size) & ~(fault_size - 1));
		m->fault_hi = m->fault_lo + fault_size;
	}
	stacks[0].lo = m->base + half + 8 * (next_rand() % 4 == 0 ? 1 : 0);
	stacks[0].hi = m->base + m->size - 16 * (next_rand() % 3);
	stacks[1].lo = m->base;
	stacks[1].hi = m->base + half + 4 * (next_rand() % 3);
	stacks[2].lo = m->base + 0x100;
	stacks[2].hi = m->base + 0x108;	/* too small for a record */
	cfg->stacks = stacks;
	cfg->nr_stacks = (unsigned int)(next_rand() % 4);
	return random_link(m, m->base + half + 0x100 - 16 * (next_rand() % 0x80));
}

/*
 * fw_walk_native() with @nops and fw_walk_native_ancestors() with @nops must be
 * fw_walk() with @gops from @start: the same frames, records, recovered
 * frames and stop. Returns the number of frames, or -1 where a walk differs;
 * *@stop is fw_walk()'s. Inlined, so that the walks see @nops as a constant,
 * as the module's do: the kernel's fast path compiles only so.
 */
static __always_inline int native_matches(const struct fw_walk_cfg *cfg,
					  const struct fw_walk_ops *gops,
					  const struct fw_walk_ops *nops, void *ctx,
					  uint64_t start, unsigned int max, enum fw_stop *stop)
{
	struct fw_frame f[16];
	fw_u64 ancestors[16], records[16], ancestors_only[16], fixed, rfixed;
	/* Set where the walks end, which the compiler cannot see through the fast path. */
	enum fw_stop nstop = FW_STOP_NONE, rstop = FW_STOP_NONE;
	unsigned int gn, nn, rn, i;

	gn = fw_walk(cfg, gops, ctx, start, f, max, stop);
	nn = fw_walk_native(cfg, nops, ctx, start, ancestors, records, &fixed, max, &nstop);
	/* The aggregation's walk: the same returns and stop, no records. */
	rn = fw_walk_native_ancestors(cfg, nops, ctx, start, ancestors_only, &rfixed, max, &rstop);
	if (gn != nn || *stop != nstop || rn != nn || rstop != nstop || rfixed != fixed)
		return -1;
	for (i = 0; i < gn; i++)
		if (ancestors[i] != f[i].ret || records[i] != f[i].record || ancestors_only[i] != f[i].ret ||
		    !!(fixed & (1ull << i)) != !!(f[i].flags & FW_FRAME_RECOVERED))
			return -1;
	return (int)gn;
}

/* Counts what native_matches() said: a walk that differed, or the frames of one that agreed. */
static inline void count_match(int n, unsigned int *differ, unsigned int *frames)
{
	if (n < 0)
		(*differ)++;
	else
		*frames += n;
}

/*
 * A comparison of walks means something only if the walks went places and
 * ended every way: frames found, exception boundaries crossed, every stop of
 * a kernel walk but the Thumb one reached.
 */
static inline void expect_walks_varied(unsigned int frames, const unsigned int *stops)
{
	unsigned int i;

	KTAP_EXPECT(frames > 10000, "frames=%u", frames);
	KTAP_EXPECT(boundaries_crossed > 300, "boundaries_crossed=%u", boundaries_crossed);
	for (i = 0; i < FW_STOP_KERNEL_NR; i++)
		if (i != FW_STOP_NO_RECORD)
			KTAP_EXPECT(stops[i] > 0, "no walk ended with %s", fw_stop_name(i));
}

#endif /* FW_TESTS_WALK_CHAINS_H */
