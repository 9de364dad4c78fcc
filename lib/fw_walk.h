/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fw_walk.h - frame-record chain walk shared by framewalk.ko and crashwalk.
 *
 * Freestanding (only <linux/types.h>), so the same code walks arm64
 * {x29, x30} records in the kernel and Thumb {r7, lr} records in the analyzer.
 * The word size, the record layout, the stacks a walk may visit and the way
 * memory is read are parameters; every walk ends with an explicit reason.
 *
 * Validation follows arch/arm64/kernel/stacktrace.c: a record must be aligned,
 * lie wholly on one of the permitted stacks, and be strictly above the previous
 * record on the same stack; a walk may move from one stack to a later one in
 * the list (IRQ stack -> task stack) but never back.
 */
#ifndef FW_WALK_H
#define FW_WALK_H

/*
 * In userspace this is the UAPI header: fixed-width types, no libc, and an
 * __always_inline that is plain inline (the analyzer needs no forcing).
 */
#include <linux/types.h>

typedef __u64 fw_u64;
typedef __u8 fw_u8;

/*
 * Why a walk ended, written once: the enum, fw_stop_name() and the trace
 * event's symbols (module/fw_trace.h) are all made from these lists, each of
 * which applies the macro it is given to each (ID, name). The values are an
 * ABI: the trace events, the module's counters and chains files, framewalk's
 * recordings and crashwalk's JSON carry them, so a value never changes.
 * The kernel walk's stops, from 0, in FW_STOP_KERNEL_LIST:
 *   CHAIN_END       record with fp == 0 or lr == 0: outermost frame
 *   DEPTH           the caller's frame budget is used up
 *   MISALIGNED      fp not aligned to the record alignment
 *   OFF_STACK       record not wholly on a permitted stack
 *   NOT_INCREASING  record not above the previous one (cycle)
 *   READ_FAULT      the reader could not read the record
 *   TRAMPOLINE      a return trampoline replaced the return address
 *   NO_RECORD       record_at found no record for this frame pointer
 * The user-space walk's (framewalk.ko's user=N), from FW_STOP_USER_FIRST
 * (128), in FW_STOP_USER_LIST, which the event and the counters keep apart
 * from the kernel walk's stop:
 *   USER_OFF             no user walk asked for (user=0)
 *   USER_KERNEL          no user context: a kernel thread, or an interrupt,
 *                        softirq or NMI that did not interrupt user mode
 *   USER_COMPAT          an AArch32 task: its frames are not walked
 *   USER_END             x29 or a saved return address of 0: outermost frame
 *   USER_DEPTH           user=N frames stored and the chain goes on
 *   USER_BAD_FP          x29 not 8-aligned or not a user address
 *   USER_NOT_INCREASING  record not above the previous one (a cycle)
 *   USER_FAULT           the record could not be read without a page fault
 * To add a kernel stop, add its line at the end of FW_STOP_KERNEL_LIST; to
 * add a user stop, at the end of FW_STOP_USER_LIST. Each range grows at its
 * end alone, so neither moves the other's values (static asserts in
 * module/fw_trace.h keep the kernel's below FW_STOP_USER_FIRST and the
 * user's in the events' byte). Then add its value and name to the tables
 * of Documentation/framewalk.rst and of tests/lib/test_fw_walk.c, which
 * pins them. Readers of events and recordings of other versions map the
 * values by name (userspace/fw_stops.c, the recording's stop lines).
 * The entries are not indented: the trace event's format text is the lists
 * stringified, and whitespace before an entry would show there as a space.
 */
#define FW_STOP_KERNEL_LIST(...)	\
__VA_ARGS__(CHAIN_END, chain_end)\
__VA_ARGS__(DEPTH, depth)\
__VA_ARGS__(MISALIGNED, misaligned)\
__VA_ARGS__(OFF_STACK, off_stack)\
__VA_ARGS__(NOT_INCREASING, not_increasing)\
__VA_ARGS__(READ_FAULT, read_fault)\
__VA_ARGS__(TRAMPOLINE, trampoline)\
__VA_ARGS__(NO_RECORD, no_record)

#define FW_STOP_USER_LIST(...)	\
__VA_ARGS__(USER_OFF, user_off)\
__VA_ARGS__(USER_KERNEL, user_kernel)\
__VA_ARGS__(USER_COMPAT, user_compat)\
__VA_ARGS__(USER_END, user_end)\
__VA_ARGS__(USER_DEPTH, user_depth)\
__VA_ARGS__(USER_BAD_FP, user_bad_fp)\
__VA_ARGS__(USER_NOT_INCREASING, user_not_increasing)\
__VA_ARGS__(USER_FAULT, user_fault)

/* Every stop, kernel then user: for what names them all (no space between, see above). */
#define FW_STOP_LIST(...)	\
FW_STOP_KERNEL_LIST(__VA_ARGS__)FW_STOP_USER_LIST(__VA_ARGS__)

/* The first of the user walk's stops: the kernel walk ends with one below it. */
#define FW_STOP_USER_FIRST	128

#define FW_STOP_ENUM(id, ...)	FW_STOP_##id,

enum fw_stop {
	FW_STOP_KERNEL_LIST(FW_STOP_ENUM)
	FW_STOP_KERNEL_NR,		/* one past the last kernel stop: their count */
	/* So that the user list starts at FW_STOP_USER_FIRST. */
	FW_STOP_USER_BEFORE = FW_STOP_USER_FIRST - 1,
	FW_STOP_USER_LIST(FW_STOP_ENUM)
	FW_STOP_USER_NEXT,		/* one past the last user stop */
	/*
	 * Not a stop: what a walk holds while it goes on, and what a reader
	 * makes of a stop whose name it does not know (framewalk record then
	 * writes it as such). The module never stores it.
	 */
	FW_STOP_NONE = 255,
};

#define FW_STOP_USER_NR		(FW_STOP_USER_NEXT - FW_STOP_USER_FIRST)

/* A stack the walk may visit: [lo, hi). */
struct fw_stack_range {
	fw_u64 lo;
	fw_u64 hi;
};

struct fw_walk_cfg {
	unsigned int word_size;		/* 4 (Thumb) or 8 (arm64) */
	unsigned int fp_off;		/* offset of the saved frame pointer in a record */
	unsigned int lr_off;		/* offset of the saved return address in a record */
	unsigned int align;		/* required alignment of a record address, power of 2 */
	/* Stacks in the only order a walk may traverse them (innermost first). */
	const struct fw_stack_range *stacks;
	unsigned int nr_stacks;
};

struct fw_walk_ops {
	/* Copy size bytes at addr into buf; 0 on success, non-zero on a fault. */
	int (*read)(void *ctx, fw_u64 addr, void *buf, unsigned int size);
	/* Turn a saved return address into a code address (PAC strip, Thumb bit); may be NULL. */
	fw_u64 (*fixup_ret)(void *ctx, fw_u64 ret);
	/*
	 * Non-zero when ret is a return trampoline; it may replace *ret with the
	 * real return address and return 2, in which case the walk goes on.
	 * Return 1 to end the walk there. May be NULL.
	 */
	int (*trampoline)(void *ctx, fw_u64 record, fw_u64 *ret);
	/*
	 * Where the record of the frame pointer @fp is, for ABIs whose frame
	 * pointer does not point at it (GCC's Thumb r7 sits below the locals).
	 * @ret is the return address of the previous record, which lies in the
	 * function that set @fp up; it is 0 for the first record, whose function
	 * the caller knows. Return 0 when there is no record. NULL: fp is the record.
	 */
	fw_u64 (*record_at)(void *ctx, fw_u64 fp, fw_u64 ret);
	/*
	 * fw_walk_native() only: load the record at @addr, two native words,
	 * into *fp and *ret. A fault sets *fault non-zero and *ret to 0; nothing
	 * clears *fault. The walk tests it only where a return address is 0, so
	 * a load costs no error test of its own. fixup_ret must keep 0 at 0.
	 */
	void (*load_record)(void *ctx, fw_u64 addr, fw_u64 *fp, fw_u64 *ret, int *fault);
	/*
	 * fw_walk_native() only, may be NULL: walk on from *@fp, *@prev the
	 * record before it and @top the current stack's highest record
	 * address, over every record that passes the fast test, storing the
	 * frames at *@ret_out and, where @rec_out is not NULL, *@rec_out, and
	 * advancing the pointers. A record whose return address (after
	 * fixup_ret, which it must do itself) is 0 ends the walk with
	 * chain_end or read_fault, else one met at @ret_end with depth: then
	 * it returns non-zero with *@stop set. Otherwise it returns 0 before
	 * the first record that fails the fast test, with *@fp at that record
	 * and *@prev below it, and the walk's own loop takes that record
	 * through every test.
	 */
	int (*walk_fast)(void *ctx, fw_u64 *fp, fw_u64 *prev, fw_u64 top, fw_u64 **ret_out,
			 fw_u64 *ret_end, fw_u64 **rec_out, enum fw_stop *stop);
	/*
	 * May be NULL: whether the record at @record, on @stack, whose return
	 * address is 0 and was read without a fault, is not the chain's end
	 * but an exception boundary, as arm64's pt_regs have held since 6.13
	 * (a record {0, 0} followed by a type word). Returns FW_STOP_NONE where
	 * it is, with *@ret the interrupted pc, *@fp the interrupted frame
	 * pointer and *@prev the last byte of the saved state, which must lie
	 * wholly on @stack (the next record on it lies above); otherwise the
	 * stop that ends the walk: chain_end, off_stack or read_fault. It
	 * reads nothing outside @stack.
	 */
	enum fw_stop (*boundary)(void *ctx, fw_u64 record, const struct fw_stack_range *stack,
				 fw_u64 *ret, fw_u64 *fp, fw_u64 *prev);
};

/* One frame: the return address found in a record and where the record was. */
struct fw_frame {
	fw_u64 ret;
	fw_u64 record;
	unsigned int flags;
};

#define FW_FRAME_RECOVERED	0x1	/* ret was recovered from behind a return trampoline */

/*
 * Which return trampoline replaced a saved return address, where a walk met
 * one it could not see behind (stop=trampoline), written once as the stops
 * are: the enum, fw_tramp_name() and the trace event's symbols. Stable
 * values, exported in the framewalk:chain event and the recording: add a
 * trampoline at the end.
 *   NONE       the walk met none it could not recover
 *   GRAPH      the function graph tracer's return_to_handler
 *   KRETPROBE  kretprobes' __kretprobe_trampoline
 *   RETHOOK    arch_rethook_trampoline: fprobe exits
 * Not indented, for the same reason as FW_STOP_LIST.
 */
#define FW_TRAMP_LIST(...)	\
__VA_ARGS__(NONE, none)\
__VA_ARGS__(GRAPH, graph)\
__VA_ARGS__(KRETPROBE, kretprobe)\
__VA_ARGS__(RETHOOK, rethook)

#define FW_TRAMP_ENUM(id, ...)	FW_TRAMP_##id,

enum fw_tramp {
	FW_TRAMP_LIST(FW_TRAMP_ENUM)
	FW_TRAMP_NR
};

#define FW_TRAMP_NAME(id, name)		\
	[FW_TRAMP_##id] = #name,

static inline const char *fw_tramp_name(unsigned int tramp)
{
	static const char *const names[FW_TRAMP_NR] = { FW_TRAMP_LIST(FW_TRAMP_NAME) };

	return tramp < FW_TRAMP_NR ? names[tramp] : "unknown";
}

#define FW_STOP_NAME(id, name)		\
	[FW_STOP_##id] = #name,
#define FW_STOP_USER_NAME(id, name)	\
	[FW_STOP_##id - FW_STOP_USER_FIRST] = #name,

/* Whether stop is one of the user walk's. */
static inline int fw_stop_is_user(unsigned int stop)
{
	return stop - FW_STOP_USER_FIRST < FW_STOP_USER_NR;
}

/* A stop's name, "unknown" for a value of neither range. */
static inline const char *fw_stop_name(unsigned int stop)
{
	static const char *const kernel[FW_STOP_KERNEL_NR] = {
		FW_STOP_KERNEL_LIST(FW_STOP_NAME)
	};
	static const char *const user[FW_STOP_USER_NR] = { FW_STOP_USER_LIST(FW_STOP_USER_NAME) };

	if (stop < FW_STOP_KERNEL_NR)
		return kernel[stop];
	if (fw_stop_is_user(stop))
		return user[stop - FW_STOP_USER_FIRST];
	return "unknown";
}

/*
 * Whether a walk, the kernel's or the user's, that ended with stop was cut
 * short: by neither its chain's end nor its depth limit. Folded stacks root
 * such a part at "[stop]" (fw_folded.h).
 */
static inline int fw_stop_cut_short(unsigned int stop)
{
	return stop != FW_STOP_CHAIN_END && stop != FW_STOP_DEPTH &&
	       stop != FW_STOP_USER_END && stop != FW_STOP_USER_DEPTH;
}

static inline fw_u64 fw_load_le(const fw_u8 *p, unsigned int size)
{
	fw_u64 v = 0;
	unsigned int i;

	/*
	 * GCC does not fold the byte loop into one load, and the kernel walk
	 * runs it twice per frame on its hot path; on little-endian hosts a
	 * word copy is the same value.
	 */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (size == sizeof(fw_u64)) {
		__builtin_memcpy(&v, p, sizeof(v));
		return v;
	}
	if (size == sizeof(__u32)) {
		__u32 w;

		__builtin_memcpy(&w, p, sizeof(w));
		return w;
	}
#endif
	for (i = 0; i < size; i++)
		v |= (fw_u64)p[i] << (8 * i);
	return v;
}

/* Index of the first stack at or after @from holding [addr, addr + size), or -1. */
static inline int fw_stack_index(const struct fw_walk_cfg *cfg, unsigned int from,
				 fw_u64 addr, fw_u64 size)
{
	unsigned int i;

	for (i = from; i < cfg->nr_stacks; i++) {
		const struct fw_stack_range *s = &cfg->stacks[i];

		if (addr >= s->lo && addr < s->hi && s->hi - addr >= size)
			return (int)i;
	}
	return -1;
}

/*
 * At the record @fp on stack @cur whose return address is 0, read without a
 * fault: go through it where ops->boundary says it is an exception boundary.
 * Returns FW_STOP_NONE with the interrupted pc in *@ret, the record to go on
 * from in *@next and in *@prev the address the next record on this stack
 * must lie above; otherwise the stop that ends the walk there.
 */
static __always_inline enum fw_stop fw_cross(const struct fw_walk_cfg *cfg,
					     const struct fw_walk_ops *ops, void *ctx,
					     unsigned int cur, fw_u64 fp, fw_u64 *ret,
					     fw_u64 *next, fw_u64 *prev)
{
	enum fw_stop stop;

	if (!ops->boundary)
		return FW_STOP_CHAIN_END;
	stop = ops->boundary(ctx, fp, &cfg->stacks[cur], ret, next, prev);
	if (stop != FW_STOP_NONE)
		return stop;
	if (ops->fixup_ret)
		*ret = ops->fixup_ret(ctx, *ret);
	return *ret ? FW_STOP_NONE : FW_STOP_CHAIN_END;
}

/*
 * Walk the chain of frame records starting at the record @fp, storing at most
 * @max frames in @out. Returns the number stored; *stop says why it ended.
 * Each pass stores a frame or ends the walk, so it reads at most @max + 1
 * records: a hostile chain cannot hang it.
 */
/*
 * The checks a record address must pass before its record is read, after the
 * zero test: fw_walk()'s every time, the native walk's when its fast test fails.
 * The stack holding it goes to *idx.
 */
static __always_inline enum fw_stop fw_check_record(const struct fw_walk_cfg *cfg,
						    unsigned int cur, fw_u64 fp, fw_u64 prev,
						    int first, unsigned int rec_size, int *idx)
{
	if (fp & (cfg->align - 1))
		return FW_STOP_MISALIGNED;
	*idx = fw_stack_index(cfg, cur, fp, rec_size);
	if (*idx < 0)
		return FW_STOP_OFF_STACK;
	if (!first && (unsigned int)*idx == cur && fp <= prev)
		return FW_STOP_NOT_INCREASING;
	return FW_STOP_NONE;
}

/*
 * A record read: a zero return address may be a crossing to the next stack,
 * and a full output ends the walk here, after the read, so that a chain that
 * ends exactly at the depth says so.
 */
static __always_inline enum fw_stop fw_end_record(const struct fw_walk_cfg *cfg,
						  const struct fw_walk_ops *ops, void *ctx,
						  unsigned int cur, fw_u64 fp, fw_u64 *ret,
						  fw_u64 *next, fw_u64 *floor, int full)
{
	*floor = fp;
	if (*ret == 0) {
		enum fw_stop s = fw_cross(cfg, ops, ctx, cur, fp, ret, next, floor);

		if (s != FW_STOP_NONE)
			return s;
	}
	return full ? FW_STOP_DEPTH : FW_STOP_NONE;
}

static inline unsigned int fw_walk(const struct fw_walk_cfg *cfg,
				   const struct fw_walk_ops *ops, void *ctx,
				   fw_u64 fp, struct fw_frame *out,
				   unsigned int max, enum fw_stop *stop)
{
	unsigned int rec_size, n = 0, cur_stack = 0;
	fw_u64 prev = 0, last_ret = 0;
	fw_u64 words[2];	/* the record, word-aligned for readers that load words */
	fw_u8 *buf = (fw_u8 *)words;

	rec_size = (cfg->fp_off > cfg->lr_off ? cfg->fp_off : cfg->lr_off) + cfg->word_size;
	if (rec_size > sizeof(words)) {
		*stop = FW_STOP_READ_FAULT;
		return 0;
	}

	for (;;) {
		fw_u64 next, ret, floor;
		int idx, tramp;

		if (fp == 0) {
			*stop = FW_STOP_CHAIN_END;
			break;
		}
		if (ops->record_at) {
			fw_u64 rec = ops->record_at(ctx, fp, last_ret);

			if (rec == 0) {
				*stop = FW_STOP_NO_RECORD;
				break;
			}
			fp = rec;
		}
		*stop = fw_check_record(cfg, cur_stack, fp, prev, n == 0, rec_size, &idx);
		if (*stop != FW_STOP_NONE)
			break;
		if (ops->read(ctx, fp, buf, rec_size)) {
			*stop = FW_STOP_READ_FAULT;
			break;
		}
		next = fw_load_le(buf + cfg->fp_off, cfg->word_size);
		ret = fw_load_le(buf + cfg->lr_off, cfg->word_size);
		if (ops->fixup_ret)
			ret = ops->fixup_ret(ctx, ret);
		*stop = fw_end_record(cfg, ops, ctx, (unsigned int)idx, fp, &ret, &next, &floor,
				      n == max);
		if (*stop != FW_STOP_NONE)
			break;
		out[n].record = fp;
		out[n].flags = 0;
		tramp = ops->trampoline ? ops->trampoline(ctx, fp, &ret) : 0;
		out[n].ret = ret;
		if (tramp == 1) {
			n++;
			*stop = FW_STOP_TRAMPOLINE;
			break;
		}
		if (tramp == 2)
			out[n].flags |= FW_FRAME_RECOVERED;
		n++;
		cur_stack = (unsigned int)idx;
		last_ret = ret;
		prev = floor;
		fp = next;
	}
	return n;
}

/* The highest record address a stack holds, for fw_walk_native(); 0 when it holds none. */
static __always_inline fw_u64 fw_stack_top(const struct fw_stack_range *s, fw_u64 size)
{
	return s->hi > s->lo && s->hi - s->lo >= size ? s->hi - size : 0;
}

/*
 * fw_walk() for an ABI whose frame pointer points at a record of two native
 * words {fp, ret} (arm64's {x29, x30}): the same validation steps in the
 * same order, the same frames and stop (tests/lib/test_fw_walk.c runs both on
 * the same chains), shaped for the kernel's hot path. Return addresses and
 * record addresses go to two arrays, as the trace event stores them, and
 * each frame recovered from behind a trampoline sets bit n of *recovered (frames
 * past 63 are not marked). Per record one test covers the three checks of
 * the common case — aligned, on the current stack, above the previous record
 * — and only a record that fails it takes the exact tests, which also move
 * the walk to a later stack. Where ops->walk_fast is given, the records that
 * pass that test go through it, and the loop below takes the first that does
 * not. Uses ops->load_record, not ops->read; no record_at.
 */
static __always_inline unsigned int __fw_walk_native(const struct fw_walk_cfg *cfg,
						     const struct fw_walk_ops *ops, void *ctx,
						     fw_u64 fp, fw_u64 *ancestors, fw_u64 *records,
						     fw_u64 *recovered, unsigned int max,
						     enum fw_stop *stop, const int keep_records)
{
	const fw_u64 rec_size = 2 * sizeof(fw_u64);
	fw_u64 top = 0, prev = 0, next, ret, mask = 0;
	/* Pointers, not an index: the stores advance them and the depth test is one compare. */
	fw_u64 *ret_out = ancestors, *rec_out = records, *ret_end = ancestors + max;
	unsigned int cur = 0;
	int tramp, fault = 0;

	/*
	 * Above the previous record and at most the top makes a record lie
	 * wholly on the current stack once the first is above its bottom:
	 * so the first record's "previous" is the byte below the stack.
	 */
	if (cfg->nr_stacks) {
		top = fw_stack_top(&cfg->stacks[0], rec_size);
		prev = cfg->stacks[0].lo ? cfg->stacks[0].lo - 1 : 0;
	}
	for (;;) {
		fw_u64 floor;

		if (ops->walk_fast && ops->walk_fast(ctx, &fp, &prev, top, &ret_out, ret_end,
						     keep_records ? &rec_out : NULL, stop)) {
			/* It leaves a chain's end record at fp, where a boundary may be. */
			if (!ops->boundary || *stop != FW_STOP_CHAIN_END)
				break;
			ret = 0;
			goto end_record;
		}
		/*
		 * A zero fp fails the fast test (0 <= prev): fw_walk()'s first
		 * check is the slow path's.
		 */
		if (__builtin_expect(!(fp > prev && fp <= top) || (fp & (cfg->align - 1)), 0)) {
			int idx;

			if (fp == 0) {
				*stop = FW_STOP_CHAIN_END;
				break;
			}
			*stop = fw_check_record(cfg, cur, fp, prev, ret_out == ancestors,
						(unsigned int)rec_size, &idx);
			if (*stop != FW_STOP_NONE)
				break;
			if ((unsigned int)idx != cur) {
				cur = (unsigned int)idx;
				top = fw_stack_top(&cfg->stacks[cur], rec_size);
			}
		}
		ops->load_record(ctx, fp, &next, &ret, &fault);
		if (ops->fixup_ret)
			ret = ops->fixup_ret(ctx, ret);
		if (ret == 0 && fault) {
			*stop = FW_STOP_READ_FAULT;
			break;
		}
end_record:
		*stop = fw_end_record(cfg, ops, ctx, cur, fp, &ret, &next, &floor,
				      ret_out == ret_end);
		if (*stop != FW_STOP_NONE)
			break;
		if (keep_records)
			*rec_out++ = fp;
		tramp = ops->trampoline ? ops->trampoline(ctx, fp, &ret) : 0;
		*ret_out++ = ret;
		if (__builtin_expect(tramp != 0, 0)) {
			unsigned int n = (unsigned int)(ret_out - ancestors) - 1;

			if (tramp == 1) {
				*stop = FW_STOP_TRAMPOLINE;
				break;
			}
			if (n < 64)
				mask |= 1ull << n;
		}
		prev = floor;
		fp = next;
	}
	if (recovered)
		*recovered = mask;
	return (unsigned int)(ret_out - ancestors);
}

static __always_inline unsigned int fw_walk_native(const struct fw_walk_cfg *cfg,
						   const struct fw_walk_ops *ops, void *ctx,
						   fw_u64 fp, fw_u64 *ancestors, fw_u64 *records,
						   fw_u64 *recovered, unsigned int max,
						   enum fw_stop *stop)
{
	return __fw_walk_native(cfg, ops, ctx, fp, ancestors, records, recovered, max, stop, 1);
}

/*
 * fw_walk_native() for a caller that keeps only the return addresses (the
 * kernel's aggregation): the same frames and stop, one store a frame fewer.
 */
static __always_inline unsigned int fw_walk_native_ancestors(const struct fw_walk_cfg *cfg,
							     const struct fw_walk_ops *ops,
							     void *ctx, fw_u64 fp,
							     fw_u64 *ancestors,
							     fw_u64 *recovered,
							     unsigned int max,
							     enum fw_stop *stop)
{
	return __fw_walk_native(cfg, ops, ctx, fp, ancestors, NULL, recovered, max, stop, 0);
}

#endif /* FW_WALK_H */
