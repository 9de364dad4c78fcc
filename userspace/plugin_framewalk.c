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
 * User frames (chain_user) are addresses marked [u]; with
 * -O framewalk:maps=TRACE.DAT, recorded with trace-cmd record --proc-map, each
 * also shows its mapping: "0xaaaadcdf0db4 (/usr/bin/prog+0xdb4) [u]".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "../lib/fw_walk.h"
#include "fw_chain.h"
#include "fw_procmaps.h"
#include "fw_stops.h"

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
	{
		/* A string option: libtraceevent takes a value only where there is one. */
		.name = "maps",
		.plugin_alias = "framewalk",
		.description = "the trace.dat (this one) whose process maps, kept by trace-cmd "
			       "record --proc-map, name the file of each user frame",
		.value = "",
	},
	{ .name = NULL }
};

static struct tep_plugin_option *fw_opt_oneline = &TEP_PLUGIN_OPTIONS[0];
static struct tep_plugin_option *fw_opt_addr = &TEP_PLUGIN_OPTIONS[1];
static struct tep_plugin_option *fw_opt_maps = &TEP_PLUGIN_OPTIONS[2];

/* The maps of the file maps= names, read at the first user frame; the file they were read from. */
static struct fw_procmaps *fw_maps;
static char *fw_maps_file;

/* Where fw_chain_format writes, the symbols it names addresses with, and the task's maps. */
struct fw_seq {
	struct trace_seq *s;
	struct tep_handle *tep;
	const struct fw_procmaps *maps;
	int pid;
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
 * A user frame: its address, and where maps= knows the task's mapping that
 * holds it, "(FILE+0xOFF)" as framewalk report writes an unnamed frame;
 * "+~0x" where the offset is a distance from the file's lowest mapping, not
 * its offset in the file (fw_procmaps.h).
 */
static void fw_seq_usym(void *ctx, unsigned int i, unsigned long long addr)
{
	struct fw_seq *seq = ctx;
	struct fw_procmap_place p;

	(void)i;
	trace_seq_printf(seq->s, "0x%llx", addr);
	if (!fw_procmaps_find(seq->maps, seq->pid, addr, &p))
		trace_seq_printf(seq->s, " (%s+%s0x%llx)", p.path, p.exact ? "" : "~", p.off);
}

/*
 * The maps of the trace.dat maps= names, read once (again only if the option
 * changes); NULL without the option, or, said once, when they cannot be read.
 */
static const struct fw_procmaps *fw_plugin_maps(void)
{
	const char *file = fw_opt_maps->value;
	char err[256];

	if (!file || !*file)
		return NULL;
	if (fw_maps_file && !strcmp(fw_maps_file, file))
		return fw_maps;
	fw_procmaps_free(fw_maps);
	free(fw_maps_file);
	fw_maps = fw_procmaps_read(file, err, sizeof(err));
	fw_maps_file = strdup(file);
	if (!fw_maps)
		fprintf(stderr, "plugin_framewalk: maps=%s: %s; user frames stay addresses\n",
			file, err);
	return fw_maps;
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

/*
 * The event's ancestors array, then its user array, in the traced kernel's
 * word size and byte order: word i past the ancestors is user frame i - nr.
 */
struct fw_raw_ancestors {
	struct tep_handle *tep;
	const char *data;
	const char *user;
	unsigned int nr;
	int word;
};

static unsigned long long fw_raw_ancestor(const void *src, unsigned int i)
{
	const struct fw_raw_ancestors *a = src;

	if (i >= a->nr)
		return tep_read_number(a->tep, a->user + (i - a->nr) * a->word, a->word);
	return tep_read_number(a->tep, a->data + i * a->word, a->word);
}

static int fw_chain_handler(struct trace_seq *s, struct tep_record *record,
			    struct tep_event *event, void *context)
{
	struct tep_handle *tep = event->tep;
	unsigned long long ip, parent, stop, found, tramp = FW_TRAMP_NONE, recovered = 0;
	unsigned long long user_stop, user_lr = 0;
	const char *nr_field = tep_find_field(event, "nr_ancestors") ? "nr_ancestors" : "depth";
	struct fw_raw_ancestors raw = { .tep = tep };
	struct fw_seq seq = { .s = s, .tep = tep, .pid = tep_data_pid(tep, record) };
	struct fw_chain_out out = {
		.vprint = fw_seq_vprint, .sym = fw_seq_sym, .ctx = &seq,
		.oneline = fw_opt_oneline->set,
	};
	struct fw_chain c = { .ancestor = fw_raw_ancestor, .src = &raw };
	int len, user_len = 0;

	(void)context;
	/*
	 * nr_ancestors, the ancestors found (called depth in older modules'
	 * recordings), is only checked for: the ancestors array's length says
	 * the same.
	 */
	if (tep_get_field_val(s, event, "ip", record, &ip, 1) ||
	    tep_get_field_val(s, event, "parent_ip", record, &parent, 1) ||
	    tep_get_field_val(s, event, "stop", record, &stop, 1) ||
	    tep_get_field_val(s, event, nr_field, record, &found, 1))
		return 0;
	/* Absent from events of modules older than the recovery. */
	tep_get_field_val(NULL, event, "tramp", record, &tramp, 0);
	tep_get_field_val(NULL, event, "recovered", record, &recovered, 0);
	raw.data = tep_get_field_raw(s, event, "ancestors", record, &len, 1);
	if (!raw.data)
		return 0;
	raw.word = tep_get_long_size(tep);
	if (raw.word != 4 && raw.word != 8)
		raw.word = 8;

	c.ip = ip;
	c.parent = parent;
	c.stop_name = fw_stop_label(event, "stop", stop);
	c.tramp = (unsigned int)tramp;
	c.recovered = recovered;
	c.nr_ancestors = (unsigned int)(len / raw.word);
	/* Only chain_user has them (user=N): chain shows no user frame. */
	tep_get_field_val(NULL, event, "user_lr", record, &user_lr, 0);
	if (tep_find_field(event, "user"))
		raw.user = tep_get_field_raw(NULL, event, "user", record, &user_len, 0);
	raw.nr = c.nr_ancestors;
	c.user_first = c.nr_ancestors;
	c.nr_user = raw.user ? (unsigned int)(user_len / raw.word) : 0;
	c.user_stop = FW_STOP_USER_OFF;
	if (!tep_get_field_val(NULL, event, "user_stop", record, &user_stop, 0)) {
		c.user_stop_name = fw_stop_label(event, "user_stop", user_stop);
		/* By name: user_off's value is the module's, not necessarily the plugin's. */
		if (strcmp(c.user_stop_name, fw_stop_name(FW_STOP_USER_OFF)))
			c.user_stop = FW_STOP_NONE;
	}
	c.user_lr = user_lr != 0;
	if (c.nr_user) {
		seq.maps = fw_plugin_maps();
		out.usym = fw_seq_usym;
	}
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
	fw_procmaps_free(fw_maps);
	fw_maps = NULL;
	free(fw_maps_file);
	fw_maps_file = NULL;
}
