/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fw_trace.h - the framewalk:chain, chain_user and chain_return trace events; this
 * header is the reference for their format (Documentation/framewalk.rst repeats it).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM framewalk

#if !defined(_FW_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _FW_TRACE_H

#include <linux/build_bug.h>
#include <linux/tracepoint.h>
#include "framewalk.h"

/* The event's arrays are unsigned long, filled from the walk's u64 arrays. */
static_assert(sizeof(unsigned long) == sizeof(u64));
/*
 * The stops are one byte each, and each range grows at its end alone: the
 * kernel's stay below the user's, and FW_STOP_KERNEL_NR, which counters
 * use for any other value, names none.
 */
static_assert(FW_STOP_KERNEL_NR < FW_STOP_USER_FIRST);
static_assert(FW_STOP_USER_NEXT <= FW_STOP_NONE);
static_assert((u8)FW_STOP_NONE == FW_STOP_NONE);

/* The tokens as given: lets a macro below expand to a leading comma or a statement. */
#define fw_tokens(...)	__VA_ARGS__

/* Let the format file carry numbers, so libtraceevent can print the names. */
#define FW_STOP_TRACE_ENUM(id, ...)	fw_tokens(TRACE_DEFINE_ENUM(FW_STOP_##id);)
#define FW_TRAMP_TRACE_ENUM(id, ...)	fw_tokens(TRACE_DEFINE_ENUM(FW_TRAMP_##id);)
FW_STOP_LIST(FW_STOP_TRACE_ENUM)
FW_TRAMP_LIST(FW_TRAMP_TRACE_ENUM)

/*
 * __print_symbolic(stop, { FW_STOP_CHAIN_END, "chain_end" }, ...) made from
 * the list, and the same of tramp: each symbol brings its leading comma, and
 * fw_symbolic_value() ends the value without whitespace, so the format text
 * reads as it did when the symbols were written out.
 */
#define FW_STOP_SYMBOL(id, name)	fw_tokens(, { FW_STOP_##id, #name })
#define FW_TRAMP_SYMBOL(id, name)	fw_tokens(, { FW_TRAMP_##id, #name })
#define fw_symbolic_value(value)	value
#define fw_print_symbolic(...)		__print_symbolic(__VA_ARGS__)
#define fw_show_stop(stop)		\
	fw_print_symbolic(fw_symbolic_value(stop)FW_STOP_LIST(FW_STOP_SYMBOL))
#define fw_show_tramp(tramp)		\
	fw_print_symbolic(fw_symbolic_value(tramp)FW_TRAMP_LIST(FW_TRAMP_SYMBOL))

/*
 * One event per hit of a filtered function: the function (child), where it
 * was called from (parent) and the callers above it (ancestors), outermost
 * last. Frame j's record holds ancestor j: records[0] is the parent's frame
 * record, so records[j + 1] - records[j] is the stack used by ancestor j's
 * caller chain step, and records[0] - sp bounds the parent's own frame.
 *
 * Where a return trampoline (function_graph, kretprobe, rethook) had
 * replaced ancestor j's return address, the real one recovered from the
 * kernel's unwinder is in ancestors[j] and bit j of recovered is set; the
 * trampoline's address is not shown. Where it could not be recovered, the
 * chain ends there with stop=trampoline, ancestors[nr_ancestors - 1] is
 * the trampoline's address and tramp says which trampoline it is; tramp is
 * none on every other event.
 *
 * nr_ancestors was called depth in the modules before it: the plugin reads
 * either, so recordings of both print alike.
 *
 */
TRACE_EVENT(chain,
	    TP_PROTO(unsigned long ip, unsigned long parent_ip, unsigned long sp,
		     const u64 *ancestors, const u64 *records, unsigned int nr,
		     unsigned int stop, u64 recovered, unsigned int tramp),

	TP_ARGS(ip, parent_ip, sp, ancestors, records, nr, stop, recovered, tramp),

	TP_STRUCT__entry(__field(unsigned long, ip)		/* start of the traced function */
			 __field(unsigned long, parent_ip)	/* return address into the caller */
			 __field(unsigned long, sp)		/* stack pointer at the call */
			 __field(unsigned char, nr_ancestors)	/* found, at most depth */
			 __field(unsigned char, stop)		/* enum fw_stop: why it ended */
			 __field(unsigned char, tramp)		/* enum fw_tramp: which */
			 __field(u64, recovered)		/* bit j: ancestors[j] recovered */
			 __dynamic_array(unsigned long, ancestors, nr)	/* their return addresses */
			 /* where each was read; empty with records=0 (records is NULL) */
			 __dynamic_array(unsigned long, records, records ? nr : 0)
	),

	TP_fast_assign(__entry->ip = ip;
		       __entry->parent_ip = parent_ip;
		       __entry->sp = sp;
		       __entry->nr_ancestors = nr;
		       __entry->stop = stop;
		       __entry->tramp = tramp;
		       __entry->recovered = recovered;
		       /* The walk wrote them in this layout: one copy each (none of none). */
		       memcpy(__get_dynamic_array(ancestors), ancestors, nr * sizeof(u64));
		       memcpy(__get_dynamic_array(records), records ?: ancestors,
			      __get_dynamic_array_len(records));
	),

	TP_printk("%ps <- %pS nr_ancestors=%u stop=%s tramp=%s recovered=0x%llx parent_ip=0x%lx sp=0x%lx ancestors=%s records=%s",
		  (void *)__entry->ip, (void *)__entry->parent_ip,
		  __entry->nr_ancestors, fw_show_stop(__entry->stop), fw_show_tramp(__entry->tramp),
		  __entry->recovered,
		  __entry->parent_ip, __entry->sp,
		  __print_array(__get_dynamic_array(ancestors),
				__get_dynamic_array_len(ancestors) / sizeof(unsigned long),
				sizeof(unsigned long)),
		  __print_array(__get_dynamic_array(records),
				__get_dynamic_array_len(records) / sizeof(unsigned long),
				sizeof(unsigned long)))
);

/*
 * The same chain and, behind it, the frames of the user-space code the
 * kernel was entered from (user=N), innermost first: user[0] is the user pc
 * (the instruction after the svc in a system call), then, where user_lr is
 * 1, user[1] is the lr register, the caller of a function that may build no
 * frame record (a leaf), then one return address per user frame record,
 * outermost last. user_stop says why they end (user_kernel at a hit that
 * has no user context, user_end...). A hit writes this event in place of
 * chain only while user is above 0, so that with user=0 the event a hit
 * writes is chain, and costs what it cost before user frames existed. Its
 * fields up to records are chain's, written out again: a macro of trace
 * fields is not a C expression, which kernel style asks a macro to be.
 */
TRACE_EVENT(chain_user,
	    TP_PROTO(unsigned long ip, unsigned long parent_ip, unsigned long sp,
		     const struct fw_context *slot, const u64 *records, unsigned int nr,
		     unsigned int stop, u64 recovered, unsigned int tramp),

	TP_ARGS(ip, parent_ip, sp, slot, records, nr, stop, recovered, tramp),

	TP_STRUCT__entry(__field(unsigned long, ip)
			 __field(unsigned long, parent_ip)
			 __field(unsigned long, sp)
			 __field(unsigned char, nr_ancestors)
			 __field(unsigned char, stop)
			 __field(unsigned char, tramp)
			 __field(u64, recovered)
			 __dynamic_array(unsigned long, ancestors, nr)
			 __dynamic_array(unsigned long, records, records ? nr : 0)
			 /* pc, lr where user_lr, return addresses */
			 __dynamic_array(unsigned long, user, slot->user_chain.nr)
			 __field(unsigned char, user_stop)	/* enum fw_stop: why they ended */
			 __field(unsigned char, user_lr)	/* 1: user[1] is the lr register */
			 __field(unsigned short, nr_user)	/* user frames, at most user */
	),

	TP_fast_assign(__entry->ip = ip;
		       __entry->parent_ip = parent_ip;
		       __entry->sp = sp;
		       __entry->nr_ancestors = nr;
		       __entry->stop = stop;
		       __entry->tramp = tramp;
		       __entry->recovered = recovered;
		       memcpy(__get_dynamic_array(ancestors), slot->ancestors, nr * sizeof(u64));
		       memcpy(__get_dynamic_array(records), records ?: slot->ancestors,
			      __get_dynamic_array_len(records));
		       __entry->user_stop = slot->user_chain.stop;
		       __entry->user_lr = slot->user_chain.lr;
		       __entry->nr_user = slot->user_chain.nr;
		       memcpy(__get_dynamic_array(user), slot->user, __get_dynamic_array_len(user));
	),

	TP_printk("%ps <- %pS nr_ancestors=%u stop=%s tramp=%s recovered=0x%llx parent_ip=0x%lx sp=0x%lx ancestors=%s records=%s nr_user=%u user_stop=%s user_lr=%u user=%s",
		  (void *)__entry->ip, (void *)__entry->parent_ip,
		  __entry->nr_ancestors, fw_show_stop(__entry->stop), fw_show_tramp(__entry->tramp),
		  __entry->recovered,
		  __entry->parent_ip, __entry->sp,
		  __print_array(__get_dynamic_array(ancestors),
				__get_dynamic_array_len(ancestors) / sizeof(unsigned long),
				sizeof(unsigned long)),
		  __print_array(__get_dynamic_array(records),
				__get_dynamic_array_len(records) / sizeof(unsigned long),
				sizeof(unsigned long)),
		  __entry->nr_user, fw_show_stop(__entry->user_stop), __entry->user_lr,
		  __print_array(__get_dynamic_array(user),
				__get_dynamic_array_len(user) / sizeof(unsigned long),
				sizeof(unsigned long)))
);

/*
 * One event per return of a call latency mode timed (latency=1): the
 * function, the return address into its caller (the chain event's
 * parent_ip) and the wall time from the call's entry to its return in
 * nanoseconds, sleep and preemption included. It ties to its entry's chain
 * event by task and nesting: a task's timed calls return in the reverse
 * order of their entries, so each is the latest chain event of the same
 * task, ip and parent_ip not yet returned.
 */
TRACE_EVENT(chain_return,
	    TP_PROTO(unsigned long ip, unsigned long parent_ip, u64 duration),

	TP_ARGS(ip, parent_ip, duration),

	TP_STRUCT__entry(__field(unsigned long, ip)		/* start of the timed function */
			 __field(unsigned long, parent_ip)	/* return address into the caller */
			 __field(u64, duration)			/* entry to return, ns */
	),

	TP_fast_assign(__entry->ip = ip;
		       __entry->parent_ip = parent_ip;
		       __entry->duration = duration;
	),

	TP_printk("%ps <- %pS duration=%llu", (void *)__entry->ip, (void *)__entry->parent_ip,
		  __entry->duration)
);

#endif /* _FW_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE fw_trace
#include <trace/define_trace.h>
