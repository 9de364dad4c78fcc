/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fw_walk_fast_model.h - what a walk_fast operation (fw_walk.h) must do, in
 * plain C: the reference the kernel's fast path in assembly
 * (module/fw_arm64_walk.h) is tested against.
 *
 * Not used by the module or the analyzer: the kernel's fast path must be
 * assembly to be fast, so it cannot be this code. tests/lib runs this model
 * inside fw_walk_native() against fw_walk() on the host, and the assembly
 * against both under qemu-aarch64, on the same random and hostile chains.
 */
#ifndef FW_WALK_FAST_MODEL_H
#define FW_WALK_FAST_MODEL_H

#include "fw_walk.h"

/*
 * walk_fast for native records {fp, ret} at addresses aligned to a native
 * word (arm64's {x29, x30}), read with @ops->load_record and @ops->fixup_ret
 * as fw_walk_native() reads them. The fast test is the one of
 * __fw_walk_native(): aligned, above the previous record, at most @top.
 * Each record that passes it is loaded; a return address of 0 ends the walk
 * (read_fault where the load faulted, else chain_end), else one met with
 * the output full ends it with depth; otherwise its frame is stored and the
 * walk moves on. Returns non-zero where it ended the walk, with *@stop set;
 * 0 with *@fp at the first record that fails the test and *@prev the record
 * before it. Where it ends the walk with chain_end, *@fp is the record
 * that ended it (fw_walk_native() asks ops->boundary about it); otherwise
 * *@fp and *@prev are unspecified where it ends the walk.
 */
static inline int fw_walk_fast_model(const struct fw_walk_ops *ops, void *ctx, fw_u64 *fp,
				     fw_u64 *prev, fw_u64 top, fw_u64 **ret_out,
				     fw_u64 *ret_end, fw_u64 **rec_out, enum fw_stop *stop)
{
	fw_u64 rec = *fp, below = *prev, next, ret;
	int fault = 0;

	while (!(rec & (sizeof(fw_u64) - 1)) && rec > below && rec <= top) {
		ops->load_record(ctx, rec, &next, &ret, &fault);
		if (ops->fixup_ret)
			ret = ops->fixup_ret(ctx, ret);
		if (ret == 0) {
			*stop = fault ? FW_STOP_READ_FAULT : FW_STOP_CHAIN_END;
			*fp = rec;
			return 1;
		}
		if (*ret_out == ret_end) {
			*stop = FW_STOP_DEPTH;
			return 1;
		}
		if (rec_out)
			*(*rec_out)++ = rec;
		*(*ret_out)++ = ret;
		below = rec;
		rec = next;
	}
	*fp = rec;
	*prev = below;
	return 0;
}

#endif /* FW_WALK_FAST_MODEL_H */
