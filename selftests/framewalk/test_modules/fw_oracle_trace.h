/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fw_oracle_trace.h - the fw_oracle:stack event: the kernel unwinder's view of
 * a traced call, from the parent's return address outward.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM fw_oracle

#if !defined(_FW_ORACLE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _FW_ORACLE_TRACE_H

#include <linux/tracepoint.h>

TRACE_EVENT(stack,
	    TP_PROTO(unsigned long ip, bool found, const unsigned long *entries, unsigned int nr),

	TP_ARGS(ip, found, entries, nr),

	TP_STRUCT__entry(__field(unsigned long, ip)	/* the traced function */
			 __field(bool, found)		/* its entry was on the stack */
			 __dynamic_array(unsigned long, entries, nr)	/* callers above it */
	),

	TP_fast_assign(__entry->ip = ip;
		       __entry->found = found;
		       memcpy(__get_dynamic_array(entries), entries, nr * sizeof(*entries));
	),

	TP_printk("%ps found=%d entries=%s", (void *)__entry->ip, __entry->found,
		  __print_array(__get_dynamic_array(entries),
				__get_dynamic_array_len(entries) / sizeof(unsigned long),
				sizeof(unsigned long)))
);

#endif /* _FW_ORACLE_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE fw_oracle_trace
#include <trace/define_trace.h>
