// SPDX-License-Identifier: GPL-2.0
/*
 * test_plugin.c - plugin_framewalk.so on hand-made framewalk:chain events
 * (KTAP): the event as today's module describes it (nr_ancestors) and as the
 * modules before it did (depth), so trace.dat files of both print alike.
 * usage: test_plugin PATH/plugin_framewalk.so
 */
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "../ktap.h"

#define FW_EVENT_ID 1500

/* The format file of the event, 64-bit, with the count field called %s. */
static const char fw_format[] =
	"name: chain\n"
	"ID: 1500\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long parent_ip;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long sp;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned char %s;\toffset:32;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char stop;\toffset:33;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char tramp;\toffset:34;\tsize:1;\tsigned:0;\n"
	"\tfield:u64 recovered;\toffset:40;\tsize:8;\tsigned:0;\n"
	"\tfield:__data_loc unsigned long[] ancestors;\toffset:48;\tsize:4;\tsigned:0;\n"
	"\tfield:__data_loc unsigned long[] records;\toffset:52;\tsize:4;\tsigned:0;\n"
	"\n"
	"print fmt: \"ip=%%lx %s=%%u\", REC->ip, REC->%s\n";

/* One event: child (0x1000) called from parentfn+0x10, two ancestors above it. */
struct fw_test_event {
	uint16_t type;
	uint8_t flags, preempt;
	int32_t pid;
	uint64_t ip, parent_ip, sp;
	uint8_t nr, stop, tramp, pad[5];
	uint64_t recovered;
	uint32_t ancestors_loc, records_loc;
	uint64_t ancestors[2];
};

static const char fw_expected[] =
	"child nr_ancestors=2 stop=chain_end\n => parentfn+0x10\n => grand+0x20\n => great+0x30";

static const char *plugin_path;

/* What the plugin prints for the event when the format names the count field. */
static int fw_print(const char *field, char *out, size_t len)
{
	struct fw_test_event ev = {
		.type = FW_EVENT_ID, .pid = 10, .ip = 0x1000, .parent_ip = 0x2010,
		.sp = 0x8000, .nr = 2, .ancestors = { 0x3020, 0x4030 },
		.ancestors_loc = (sizeof(ev.ancestors) << 16) |
				 offsetof(struct fw_test_event, ancestors),
		.records_loc = sizeof(ev) & 0xffff,
	};
	struct tep_record rec = { .data = &ev, .size = sizeof(ev) };
	/* libtraceevent bounds a function by the next one: "end" closes great. */
	static char *const names[] = { "child", "parentfn", "grand", "great", "end" };
	tep_plugin_load_func load;
	tep_plugin_unload_func unload;
	struct tep_handle *tep;
	struct trace_seq s;
	char format[sizeof(fw_format) + 64];
	void *plugin;
	int i, ret = -1;

	snprintf(format, sizeof(format), fw_format, field, field, field);
	tep = tep_alloc();
	plugin = dlopen(plugin_path, RTLD_NOW | RTLD_LOCAL);
	if (!tep || !plugin) {
		printf("# cannot load %s: %s\n", plugin_path, dlerror());
		goto out;
	}
	tep_set_long_size(tep, 8);
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	for (i = 0; i < 5; i++)
		tep_register_function(tep, names[i], 0x1000ULL * (i + 1), NULL);
	if (tep_parse_event(tep, format, strlen(format), "framewalk")) {
		printf("# the format with %s does not parse\n", field);
		goto out;
	}
	load = (tep_plugin_load_func)dlsym(plugin, TEP_PLUGIN_LOADER_NAME);
	unload = (tep_plugin_unload_func)dlsym(plugin, TEP_PLUGIN_UNLOADER_NAME);
	if (!load || !unload || load(tep)) {
		printf("# %s has no working %s\n", plugin_path, TEP_PLUGIN_LOADER_NAME);
		goto out;
	}
	trace_seq_init(&s);
	tep_print_event(tep, &s, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&s);
	snprintf(out, len, "%s", s.buffer);
	trace_seq_destroy(&s);
	unload(tep);
	ret = 0;
out:
	if (plugin)
		dlclose(plugin);
	if (tep)
		tep_free(tep);
	return ret;
}

static void fw_expect_chain(const char *field)
{
	char got[512] = "", *nl;

	KTAP_EXPECT(fw_print(field, got, sizeof(got)) == 0, "the event with %s", field);
	KTAP_EXPECT(!strcmp(got, fw_expected), "%s:", field);
	/* One KTAP comment line: the line ends shown as |. */
	while ((nl = strchr(got, '\n')))
		*nl = '|';
	printf("# %s: %s\n", field, got);
}

/* Today's module: the count of ancestors found is nr_ancestors. */
static void chain_with_nr_ancestors_prints_symbolized(void)
{
	fw_expect_chain("nr_ancestors");
}

/* Recordings of the modules before it, whose field was called depth. */
static void chain_with_old_depth_field_prints_the_same(void)
{
	fw_expect_chain("depth");
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: test_plugin PATH/plugin_framewalk.so\n");
		return 2;
	}
	plugin_path = argv[1];
	ktap_header("plugin");
	KTAP_RUN(chain_with_nr_ancestors_prints_symbolized);
	KTAP_RUN(chain_with_old_depth_field_prints_the_same);
	return ktap_finish();
}
