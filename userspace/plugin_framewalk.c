// SPDX-License-Identifier: GPL-2.0
/*
 * plugin_framewalk.c - libtraceevent plugin: print framewalk:chain and chain_user events as
 * symbolized call chains in trace-cmd report.
 *
 * Default, one "=> func+off" line per frame, like the kernel_stack event:
 *   vfs_read nr_ancestors=6 stop=chain_end
 *    => ksys_read+0x7c
 *    => __arm64_sys_read+0x24 [recovered]
 * With -O framewalk:oneline=1, one line per call:
 *   vfs_read <- ksys_read+0x7c <- __arm64_sys_read+0x24 [recovered] ... [chain_end]
 * [recovered]: a return trampoline had replaced that return address and the
 * module recovered the real one. At stop=trampoline, tramp=NAME says which
 * trampoline it could not see behind. The layout is fw_chain.c's, shared with
 * framewalk report and stream; this file reads the event and names addresses.
 * The stop names are the event format's own (its __print_symbolic()), so a
 * trace.dat of a module older or newer than the plugin prints its own names.
 * User frames (chain_user) are addresses marked [u]: a libtraceevent plugin
 * is given the event parser alone, not the trace.dat trace-cmd report reads,
 * whose process maps (trace-cmd record --proc-map) would name them; framewalk
 * report -i TRACE.DAT reads those through libtracecmd and names each frame's
 * file and function, and the plugin says so once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "../lib/fw_walk.h"
#include "fw_chain.h"
#include "fw_stops.h"
#include "fw_tep_event.h"

struct tep_plugin_option TEP_PLUGIN_OPTIONS[] = {
	{
		.name = "oneline",
		.plugin_alias = "framewalk",
		.description = "print each chain on one line: child <- parent <- ancestors",
		.set = 0,
	},
	{
		.name = "addr",
		.plugin_alias = "framewalk",
		.description = "also print each frame's raw address",
		.set = 0,
	},
	{ .name = NULL }
};

static struct tep_plugin_option *fw_opt_oneline = &TEP_PLUGIN_OPTIONS[0];
static struct tep_plugin_option *fw_opt_addr = &TEP_PLUGIN_OPTIONS[1];

/* Whether the way to name user frames was said: once per trace-cmd run. */
static int fw_said_usym;

/* Where fw_chain_format writes and the symbols it names addresses with. */
struct fw_seq {
	struct trace_seq *s;
	struct tep_handle *tep;
};

static void fw_seq_vprint(void *ctx, const char *fmt, va_list ap)
{
	trace_seq_vprintf(((struct fw_seq *)ctx)->s, fmt, ap);
}

/* addr as func+0xoff, or as a bare address where no symbol covers it; addr=1 adds it raw. */
static void fw_seq_sym(void *ctx, unsigned long long addr, int with_offset)
{
	struct fw_seq *seq = ctx;
	const char *func = tep_find_function(seq->tep, addr);

	if (!func)
		trace_seq_printf(seq->s, "0x%llx", addr);
	else if (with_offset)
		trace_seq_printf(seq->s, "%s+0x%llx", func,
				 addr - tep_find_function_address(seq->tep, addr));
	else
		trace_seq_printf(seq->s, "%s", func);
	if (fw_opt_addr->set && func)
		trace_seq_printf(seq->s, " <0x%llx>", addr);
}

/*
 * The name of stop @val in @event's field @field, from the event's format,
 * which the module that wrote it made from its own list; where the format
 * names no stops, from the plugin's own table, which is said once.
 */
static const char *fw_stop_label(struct tep_event *event, const char *field,
				 unsigned long long val)
{
	static int said;
	const char *name;

	switch (fw_event_stop_name(event, field, val, &name)) {
	case 1:
		return name;
	case 0:
		return fw_stop_name(FW_STOP_NONE);
	default:
		if (!said++)
			fprintf(stderr, "plugin_framewalk: the %s:%s format names no stops: "
				"naming them with the plugin's own table\n", event->system,
				event->name);
		return fw_stop_name(val < FW_STOP_NONE ? (unsigned int)val : FW_STOP_NONE);
	}
}

static int fw_chain_handler(struct trace_seq *s, struct tep_record *record,
			    struct tep_event *event, void *context)
{
	struct fw_seq seq = { .s = s, .tep = event->tep };
	struct fw_chain_out out = {
		.vprint = fw_seq_vprint, .sym = fw_seq_sym, .ctx = &seq,
		.oneline = fw_opt_oneline->set,
	};
	unsigned long long val;
	struct fw_event e;
	struct fw_chain c;

	(void)context;
	if (fw_tep_event(s, event, record, &e))
		return 0;
	if (e.nr_user && !fw_said_usym) {
		fw_said_usym = 1;
		fprintf(stderr, "plugin_framewalk: user frames are addresses here; framewalk "
			"report -i TRACE.DAT names their files (trace-cmd record --proc-map) and "
			"functions\n");
	}
	fw_chain_of_event(&c, &e);
	/* The names the event's own format gives the values, known to the plugin or not. */
	if (!tep_get_field_val(NULL, event, "stop", record, &val, 0))
		c.stop_name = fw_stop_label(event, "stop", val);
	if (!tep_get_field_val(NULL, event, "user_stop", record, &val, 0))
		c.user_stop_name = fw_stop_label(event, "user_stop", val);
	fw_chain_format(&out, &c);
	return 0;
}

int TEP_PLUGIN_LOADER(struct tep_handle *tep)
{
	tep_plugin_add_options("framewalk", TEP_PLUGIN_OPTIONS);
	tep_register_event_handler(tep, -1, "framewalk", "chain", fw_chain_handler, NULL);
	tep_register_event_handler(tep, -1, "framewalk", "chain_user", fw_chain_handler, NULL);
	return 0;
}

void TEP_PLUGIN_UNLOADER(struct tep_handle *tep)
{
	tep_unregister_event_handler(tep, -1, "framewalk", "chain", fw_chain_handler, NULL);
	tep_unregister_event_handler(tep, -1, "framewalk", "chain_user", fw_chain_handler, NULL);
	tep_plugin_remove_options(TEP_PLUGIN_OPTIONS);
}
