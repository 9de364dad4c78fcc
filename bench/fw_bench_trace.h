/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fw_bench_trace.h - fw_bench:bare, the smallest trace event (one word), so
 * the benchmark can price the trace-event layers framewalk:chain pays for.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM fw_bench

#if !defined(_FW_BENCH_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _FW_BENCH_TRACE_H

#include <linux/tracepoint.h>

TRACE_EVENT(bare,
	    TP_PROTO(unsigned long ip),

	TP_ARGS(ip),

	TP_STRUCT__entry(__field(unsigned long, ip)	/* the traced function's call site */
	),

	TP_fast_assign(__entry->ip = ip;
	),

	TP_printk("%ps", (void *)__entry->ip)
);

#endif /* _FW_BENCH_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE fw_bench_trace
#include <trace/define_trace.h>
