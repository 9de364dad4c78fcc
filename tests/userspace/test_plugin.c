// SPDX-License-Identifier: GPL-2.0
/*
 * test_plugin.c - plugin_framewalk.so on hand-made framewalk:chain events
 * (KTAP): the event as today's module describes it (nr_ancestors) and as the
 * modules before it did (depth), so trace.dat files of both print alike; and
 * a chain_user event's user frames, addresses, with the plugin saying once
 * where they are named (framewalk report -i); and stop names as the event
 * format's own symbols number them, whatever the plugin's numbering.
 * usage: test_plugin PATH/plugin_framewalk.so
 */
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "../../lib/fw_walk.h"
#include "../ktap.h"

#define FW_EVENT_ID 1500

/* The fields chain and chain_user share, 64-bit, the count field called count. */
#define FW_CHAIN_FIELDS(count)							\
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"	\
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"	\
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"		\
	"\n"									\
	"\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"		\
	"\tfield:unsigned long parent_ip;\toffset:16;\tsize:8;\tsigned:0;\n"	\
	"\tfield:unsigned long sp;\toffset:24;\tsize:8;\tsigned:0;\n"		\
	"\tfield:unsigned char " count ";\toffset:32;\tsize:1;\tsigned:0;\n"	\
	"\tfield:unsigned char stop;\toffset:33;\tsize:1;\tsigned:0;\n"	\
	"\tfield:unsigned char tramp;\toffset:34;\tsize:1;\tsigned:0;\n"	\
	"\tfield:u64 recovered;\toffset:40;\tsize:8;\tsigned:0;\n"		\
	"\tfield:__data_loc unsigned long[] ancestors;\toffset:48;\tsize:4;\tsigned:0;\n" \
	"\tfield:__data_loc unsigned long[] records;\toffset:52;\tsize:4;\tsigned:0;\n"

/* The format file of the event, with the count field called %s. */
static const char fw_format[] =
	"name: chain\n"
	"ID: 1500\n"
	"format:\n"
	FW_CHAIN_FIELDS("%s")
	"\n"
	"print fmt: \"ip=%%lx %s=%%u\", REC->ip, REC->%s\n";

/* What both events begin with: FW_CHAIN_FIELDS. */
struct fw_test_head {
	uint16_t type;
	uint8_t flags, preempt;
	int32_t pid;
	uint64_t ip, parent_ip, sp;
	uint8_t nr, stop, tramp, pad[5];
	uint64_t recovered;
	uint32_t ancestors_loc, records_loc;
};

/* One event: child (0x1000) called from parentfn+0x10, two ancestors above it. */
struct fw_test_event {
	struct fw_test_head h;
	uint64_t ancestors[2];
};

static const char fw_expected[] =
	"child nr_ancestors=2 stop=chain_end\n => parentfn+0x10\n => grand+0x20\n => great+0x30";

static const char *plugin_path;

/*
 * What the plugin prints for the event rec of format into out, the plugin
 * loaded once and given the event times times, as trace-cmd report gives it
 * each event of a file.
 */
static int fw_plugin_print(const char *format, struct tep_record *rec, int times, char *out,
			   size_t len)
{
	/* libtraceevent bounds a function by the next one: "end" closes great. */
	static char *const names[] = { "child", "parentfn", "grand", "great", "end" };
	tep_plugin_load_func load;
	tep_plugin_unload_func unload;
	struct tep_handle *tep;
	struct trace_seq s;
	void *plugin;
	int i, ret = -1;

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
		printf("# the format does not parse:\n%s", format);
		goto out;
	}
	load = (tep_plugin_load_func)dlsym(plugin, TEP_PLUGIN_LOADER_NAME);
	unload = (tep_plugin_unload_func)dlsym(plugin, TEP_PLUGIN_UNLOADER_NAME);
	if (!load || !unload || load(tep)) {
		printf("# %s has no working %s\n", plugin_path, TEP_PLUGIN_LOADER_NAME);
		goto out;
	}
	for (i = 0; i < times; i++) {
		trace_seq_init(&s);
		tep_print_event(tep, &s, rec, "%s", TEP_PRINT_INFO);
		trace_seq_terminate(&s);
		snprintf(out, len, "%s", s.buffer);
		trace_seq_destroy(&s);
	}
	unload(tep);
	ret = 0;
out:
	if (plugin)
		dlclose(plugin);
	if (tep)
		tep_free(tep);
	return ret;
}

/* What the plugin prints for the event when the format names the count field. */
static int fw_print(const char *field, char *out, size_t len)
{
	struct fw_test_event ev = {
		.h = {
			.type = FW_EVENT_ID, .pid = 10, .ip = 0x1000, .parent_ip = 0x2010,
			.sp = 0x8000, .nr = 2,
			.ancestors_loc = (sizeof(ev.ancestors) << 16) |
					 offsetof(struct fw_test_event, ancestors),
			.records_loc = sizeof(ev) & 0xffff,
		},
		.ancestors = { 0x3020, 0x4030 },
	};
	struct tep_record rec = { .data = &ev, .size = sizeof(ev) };
	char format[sizeof(fw_format) + 64];

	snprintf(format, sizeof(format), fw_format, field, field, field);
	return fw_plugin_print(format, &rec, 1, out, len);
}

/* One KTAP comment line: the line ends shown as |. */
static void fw_note(const char *what, char *text)
{
	char *nl;

	while ((nl = strchr(text, '\n')))
		*nl = '|';
	printf("# %s: %s\n", what, text);
}

static void fw_expect_chain(const char *field)
{
	char got[512] = "";

	KTAP_EXPECT(fw_print(field, got, sizeof(got)) == 0, "the event with %s", field);
	KTAP_EXPECT(!strcmp(got, fw_expected), "%s:", field);
	fw_note(field, got);
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

/* chain_user: the chain's fields, then the user frames (module/fw_trace.h); then its print fmt. */
#define FW_USER_FORMAT							\
	"name: chain_user\n"						\
	"ID: 1501\n"							\
	"format:\n"							\
	FW_CHAIN_FIELDS("nr_ancestors")					\
	"\tfield:__data_loc unsigned long[] user;\toffset:56;\tsize:4;\tsigned:0;\n" \
	"\tfield:unsigned char user_stop;\toffset:60;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char user_lr;\toffset:61;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned short nr_user;\toffset:62;\tsize:2;\tsigned:0;\n" \
	"\n"								\
	"print fmt: "

/* A format that names no stops: the plugin falls back to its own table. */
static const char fw_user_format[] =
	FW_USER_FORMAT "\"ip=%lx nr_user=%u\", REC->ip, REC->nr_user\n";

/*
 * Formats that name the stops as the module fw_trace.h makes them does: the
 * values are the module's, whatever the plugin's are. Today's module (the
 * user stops from 128), the modules before it (from 8), and a module that
 * numbers both otherwise and has a stop the plugin does not know.
 */
#define FW_USER_FORMAT_SYMBOLIC(kernel, user)				\
	FW_USER_FORMAT "\"ip=%lx stop=%s user_stop=%s\", REC->ip, "	\
	"__print_symbolic(REC->stop, " kernel "), "			\
	"__print_symbolic(REC->user_stop, " user ")\n"
static const char fw_user_format_today[] = FW_USER_FORMAT_SYMBOLIC(
	"{ 0, \"chain_end\" }, { 1, \"depth\" }",
	"{ 128, \"user_off\" }, { 129, \"user_kernel\" }, { 131, \"user_end\" }");
static const char fw_user_format_older[] = FW_USER_FORMAT_SYMBOLIC(
	"{ 0, \"chain_end\" }, { 1, \"depth\" }",
	"{ 8, \"user_off\" }, { 9, \"user_kernel\" }, { 11, \"user_end\" }");
static const char fw_user_format_other[] = FW_USER_FORMAT_SYMBOLIC(
	"{ 0, \"chain_end\" }, { 5, \"off_stack\" }, { 9, \"frobbed\" }",
	"{ 40, \"user_off\" }, { 42, \"user_end\" }, { 47, \"user_new\" }");

struct fw_test_user_event {
	struct fw_test_head h;
	uint32_t user_loc;
	uint8_t user_stop, user_lr;
	uint16_t nr_user;
	uint64_t ancestors[1];
	uint64_t user[4];
};

/*
 * The chain_user event: the leaf's pc, the lr, a return address in libc and
 * one in no mapping, each printed as its address.
 */
static int fw_print_user_as(const char *format, unsigned int stop, unsigned int user_stop,
			    int times, char *out, size_t len)
{
	struct fw_test_user_event ev = {
		.h = {
			.type = 1501, .pid = 0xa4, .ip = 0x1000, .parent_ip = 0x2010, .nr = 1,
			.stop = stop,
			.ancestors_loc = (sizeof(ev.ancestors) << 16) |
					 offsetof(struct fw_test_user_event, ancestors),
			.records_loc = offsetof(struct fw_test_user_event, user),
		},
		.ancestors = { 0x3020 },
		.user_loc = (sizeof(ev.user) << 16) | offsetof(struct fw_test_user_event, user),
		.user_stop = user_stop, .user_lr = 1, .nr_user = 4,
		.user = { 0xaaaa000010b4, 0xaaaa00010800, 0xffff00027744, 0x12345 },
	};
	struct tep_record rec = { .data = &ev, .size = sizeof(ev) };

	return fw_plugin_print(format, &rec, times, out, len);
}

/*
 * User frames are addresses: a libtraceevent plugin cannot reach the
 * trace.dat's maps. What the plugin says on stderr must name the way that
 * can, framewalk report -i, and only once for two events.
 */
static void user_frames_are_addresses_and_the_way_to_name_them_is_said(void)
{
	char got[1024] = "", said[512] = "", want[1024];
	char path[] = "/tmp/fw_test_plugin.XXXXXX";
	int fd = mkstemp(path), saved = dup(STDERR_FILENO);
	FILE *f;

	snprintf(want, sizeof(want), "%s%s",
		 "child nr_ancestors=1 stop=chain_end user_stop=user_end\n"
		 " => parentfn+0x10\n => grand+0x20\n",
		 " => 0xaaaa000010b4 [u]\n => 0xaaaa00010800 [u lr]\n => 0xffff00027744 [u]\n"
		 " => 0x12345 [u]");
	KTAP_EXPECT(fd >= 0 && saved >= 0 && dup2(fd, STDERR_FILENO) >= 0, "stderr to %s", path);
	KTAP_EXPECT(fw_print_user_as(fw_user_format_today, FW_STOP_CHAIN_END, FW_STOP_USER_END, 2,
				     got, sizeof(got)) == 0, "the event printed twice");
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (f) {
		rewind(f);
		if (!fread(said, 1, sizeof(said) - 1, f))
			said[0] = '\0';
		fclose(f);
	}
	close(saved);
	unlink(path);
	KTAP_EXPECT(!strcmp(got, want), "the user frames as addresses");
	fw_note("user frames", got);
	KTAP_EXPECT(!strcmp(said, "plugin_framewalk: user frames are addresses here; framewalk "
			    "report -i TRACE.DAT names their files (trace-cmd record --proc-map) "
			    "and functions\n"), "the way to name them said once");
	fw_note("stderr", said);
}

/* The first line the plugin prints of the chain_user event in format, with these values. */
static void fw_expect_stops(const char *format, unsigned int stop, unsigned int user_stop,
			    const char *what, const char *want)
{
	char got[1024] = "";

	KTAP_EXPECT(fw_print_user_as(format, stop, user_stop, 1, got, sizeof(got)) == 0,
		    "%s: printed", what);
	got[strcspn(got, "\n")] = '\0';
	KTAP_EXPECT(!strcmp(got, want), "%s: %s", what, got);
}

/* The names come from the event's own format, as the module that wrote it numbered them. */
static void stop_names_come_from_the_event_format(void)
{
	fw_expect_stops(fw_user_format_today, 1, 131, "today's module",
			"child nr_ancestors=1 stop=depth user_stop=user_end");
	fw_expect_stops(fw_user_format_older, 0, 11, "a module before the user stops moved",
			"child nr_ancestors=1 stop=chain_end user_stop=user_end");
	fw_expect_stops(fw_user_format_older, 0, 9, "the same, user_kernel",
			"child nr_ancestors=1 stop=chain_end user_stop=user_kernel");
	fw_expect_stops(fw_user_format_other, 5, 42, "a module numbered otherwise",
			"child nr_ancestors=1 stop=off_stack user_stop=user_end");
	fw_expect_stops(fw_user_format_other, 9, 47, "stops the plugin does not know",
			"child nr_ancestors=1 stop=frobbed user_stop=user_new");
	/* user_off by its name in the format, not by the plugin's value of it: no user_stop=. */
	fw_expect_stops(fw_user_format_other, 0, 40, "user_off of another numbering",
			"child nr_ancestors=1 stop=chain_end");
	fw_expect_stops(fw_user_format_today, 0, 130, "a value the format does not name",
			"child nr_ancestors=1 stop=chain_end user_stop=unknown");
}

/* A format without the symbols (none of framewalk's modules): the plugin's own table. */
static void stop_names_without_symbols_are_the_plugins(void)
{
	fw_expect_stops(fw_user_format, FW_STOP_DEPTH, FW_STOP_USER_FAULT, "no symbols",
			"child nr_ancestors=1 stop=depth user_stop=user_fault");
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
	KTAP_RUN(user_frames_are_addresses_and_the_way_to_name_them_is_said);
	KTAP_RUN(stop_names_come_from_the_event_format);
	KTAP_RUN(stop_names_without_symbols_are_the_plugins);
	return ktap_finish();
}
