// SPDX-License-Identifier: GPL-2.0
/*
 * plugin_framewalk.c - libtraceevent plugin: print framewalk:chain events as
 * symbolized call chains in trace-cmd report.
 *
 * Default, one "=> func+off" line per frame, like the kernel_stack event:
 *   vfs_read depth=6 stop=chain_end
 *    => ksys_read+0x7c
 *    => __arm64_sys_read+0x24 [recovered]
 * With -O framewalk:oneline=1, one line per call:
 *   vfs_read <- ksys_read+0x7c <- __arm64_sys_read+0x24 [recovered] ... [chain_end]
 * [recovered]: a return trampoline had replaced that return address and the
 * module recovered the real one. At stop=trampoline, tramp=NAME says which
 * trampoline it could not see behind.
 */
#include <stdio.h>
#include <string.h>

#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "../lib/fw_walk.h"

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

/* Print addr as func+0xoff, or as a bare address where no symbol covers it. */
static void fw_print_sym(struct trace_seq *s, struct tep_handle *tep,
			 unsigned long long addr, int with_offset)
{
	const char *func = tep_find_function(tep, addr);

	if (!func)
		trace_seq_printf(s, "0x%llx", addr);
	else if (with_offset)
		trace_seq_printf(s, "%s+0x%llx", func, addr - tep_find_function_address(tep, addr));
	else
		trace_seq_printf(s, "%s", func);
	if (fw_opt_addr->set && func)
		trace_seq_printf(s, " <0x%llx>", addr);
}

static void fw_print_frame(struct trace_seq *s, struct tep_handle *tep,
			   unsigned long long addr)
{
	if (fw_opt_oneline->set) {
		trace_seq_puts(s, " <- ");
	} else {
		trace_seq_puts(s, "\n => ");
	}
	fw_print_sym(s, tep, addr, 1);
}

/* " tramp=NAME" where the walk stopped at a trampoline it could not see behind. */
static void fw_print_tramp(struct trace_seq *s, unsigned long long tramp)
{
	if (tramp != FW_TRAMP_NONE)
		trace_seq_printf(s, " tramp=%s", fw_tramp_name((unsigned int)tramp));
}

static int fw_chain_handler(struct trace_seq *s, struct tep_record *record,
			    struct tep_event *event, void *context)
{
	struct tep_handle *tep = event->tep;
	unsigned long long ip, parent, stop, depth, tramp = FW_TRAMP_NONE, recovered = 0;
	int len, word, i, n;
	void *anc;

	(void)context;
	if (tep_get_field_val(s, event, "ip", record, &ip, 1) ||
	    tep_get_field_val(s, event, "parent_ip", record, &parent, 1) ||
	    tep_get_field_val(s, event, "stop", record, &stop, 1) ||
	    tep_get_field_val(s, event, "depth", record, &depth, 1))
		return 0;
	/* Absent from events of modules older than the recovery. */
	tep_get_field_val(NULL, event, "tramp", record, &tramp, 0);
	tep_get_field_val(NULL, event, "recovered", record, &recovered, 0);
	anc = tep_get_field_raw(s, event, "ancestors", record, &len, 1);
	if (!anc)
		return 0;
	word = tep_get_long_size(tep);
	if (word != 4 && word != 8)
		word = 8;
	n = len / word;

	fw_print_sym(s, tep, ip, 0);
	if (!fw_opt_oneline->set) {
		trace_seq_printf(s, " depth=%llu stop=%s", depth, fw_stop_name((unsigned int)stop));
		fw_print_tramp(s, tramp);
	}
	fw_print_frame(s, tep, parent);
	for (i = 0; i < n; i++) {
		fw_print_frame(s, tep, tep_read_number(tep, (char *)anc + i * word, word));
		if (i < 64 && (recovered & (1ull << i)))
			trace_seq_puts(s, " [recovered]");
	}
	if (fw_opt_oneline->set) {
		trace_seq_printf(s, "   [%s", fw_stop_name((unsigned int)stop));
		fw_print_tramp(s, tramp);
		trace_seq_puts(s, "]");
	}
	return 0;
}

int TEP_PLUGIN_LOADER(struct tep_handle *tep)
{
	tep_plugin_add_options("framewalk", TEP_PLUGIN_OPTIONS);
	tep_register_event_handler(tep, -1, "framewalk", "chain", fw_chain_handler, NULL);
	return 0;
}

void TEP_PLUGIN_UNLOADER(struct tep_handle *tep)
{
	tep_unregister_event_handler(tep, -1, "framewalk", "chain", fw_chain_handler, NULL);
	tep_plugin_remove_options(TEP_PLUGIN_OPTIONS);
}
