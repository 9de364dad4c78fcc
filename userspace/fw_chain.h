/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fw_chain.h - one framewalk:chain as text, written once for the trace-cmd
 * plugin and for framewalk report and stream, so that both print it alike.
 */
#ifndef FW_CHAIN_H
#define FW_CHAIN_H

#include <stdarg.h>

/* One chain as an event holds it; the ancestors are read through a function. */
struct fw_chain {
	unsigned long long ip;		/* the traced function (child) */
	unsigned long long parent;	/* return address into its caller */
	unsigned int stop;		/* enum fw_stop: why the walk ended */
	unsigned int tramp;		/* enum fw_tramp: at stop=trampoline, which one */
	unsigned long long recovered;	/* bit j: ancestor j recovered from behind one */
	unsigned int nr_ancestors;	/* the callers found above the parent */
	/* Ancestor i's return address, innermost (the parent's caller) first. */
	unsigned long long (*ancestor)(const void *src, unsigned int i);
	const void *src;
	/*
	 * The user frames (user=N), innermost first, read through ancestor() at
	 * user_first + i; user_stop is FW_STOP_USER_OFF where none were walked.
	 */
	unsigned int nr_user;
	unsigned int user_first;
	unsigned int user_stop;
	int user_lr;		/* user frame 1 is the lr register */
	/*
	 * Where not NULL, the names stop and user_stop print as: the plugin's,
	 * from the event's format, as the module that wrote it numbered them.
	 * user_stop then only tells user_off from the others.
	 */
	const char *stop_name;
	const char *user_stop_name;
};

/* Where the text goes (a trace_seq, a FILE) and how an address is named there. */
struct fw_chain_out {
	void (*vprint)(void *ctx, const char *fmt, va_list ap);
	/* "func+0xoff" (with_offset) or "func", or "0xaddr" where no symbol covers addr. */
	void (*sym)(void *ctx, unsigned long long addr, int with_offset);
	/* User frame i at addr, named; NULL (the plugin's): as "0xaddr". */
	void (*usym)(void *ctx, unsigned int i, unsigned long long addr);
	void *ctx;
	int oneline;	/* "child <- parent+off <- ... [stop]"; else a " => frame" line each */
	int bold;	/* the child in bold (--color) */
};

/*
 * The chain, from the child's name to the last frame, without a line end:
 *   oneline:  child <- parent+0x10 <- grand+0x20 [recovered]   [stop tramp=NAME]
 *   else:     child nr_ancestors=N stop=STOP tramp=NAME\n => parent+0x10\n => grand+0x20
 * then, where user frames were walked, each as " <- NAME [u]" (" [u lr]" for the lr)
 * or a "\n => NAME [u]" line, NAME from usym or 0xaddr, and the user stop:
 * "   [stop user_stop]", or
 * " user_stop=STOP" in the first line.
 * where N counts the ancestors found, as the event's nr_ancestors field does, and
 * tramp= shows only at a trampoline the walk could not see behind.
 */
void fw_chain_format(const struct fw_chain_out *out, const struct fw_chain *c);

struct fw_event;
/* c reading e: its frames, stops and marks, the user frames after the ancestors. */
void fw_chain_of_event(struct fw_chain *c, const struct fw_event *e);

#endif /* FW_CHAIN_H */
