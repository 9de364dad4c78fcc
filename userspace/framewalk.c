// SPDX-License-Identifier: GPL-2.0
/*
 * framewalk.c - the framewalk command: find the subcommand in one table, parse
 * its options and hand the work to record, stream, profile, report, folded, top, list,
 * reset or flamegraph.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/user/fw_color.h"
#include "fw_cli.h"
#include "fw_version.h"

int fw_verbosity;
int fw_color;

/*
 * One subcommand: its options, the help text that documents them, and the
 * function that runs it. A new subcommand is one more entry in fw_cmds[],
 * with its options and run function here, and its file (README.md says why).
 */
struct fw_subcmd {
	const char *name;
	const char *args;	/* after "framewalk NAME" in the usage line */
	const char *summary;
	const char *help;	/* one line per option, without -h, -q and -v */
	const char *shortopts;	/* with "+:" (stop at CMD, report a missing value) */
	const struct option *longopts;
	int (*run)(const struct fw_subcmd *cmd, int argc, char **argv);
};

/* Every subcommand takes these; fw_getopt handles them. */
#define FW_COMMON_SHORT		"hqv"
#define FW_COMMON_LONG							\
	{ "help", no_argument, NULL, 'h' },				\
	{ "quiet", no_argument, NULL, 'q' },				\
	{ "verbose", no_argument, NULL, 'v' },				\
	{ NULL, 0, NULL, 0 }

enum { FW_OPT_HELP = 256, FW_OPT_BAD, FW_OPT_COLOR, FW_OPT_FOLDED, FW_OPT_USER, FW_OPT_COMM };

#define FW_COLOR_LONG	{ "color", optional_argument, NULL, FW_OPT_COLOR }
#define FW_COLOR_HELP							\
	"      --color[=WHEN]    bold traced functions: auto, always or never\n"	\
	"                        (auto: a terminal, NO_COLOR unset, TERM not dumb)\n"

static void fw_cmd_usage(const struct fw_subcmd *cmd, FILE *out)
{
	fprintf(out, "usage: framewalk %s %s\n%s\n\n%s"
		"  -q, --quiet           print nothing but errors\n"
		"  -v, --verbose         say what is being done\n"
		"  -h, --help            this help\n"
		"See framewalk(1).\n", cmd->name, cmd->args, cmd->summary, cmd->help);
}

/* --color=WHEN for cmd, by the rule crashwalk uses too. */
static int fw_parse_color(const struct fw_subcmd *cmd, const char *when)
{
	char who[64];

	snprintf(who, sizeof(who), "framewalk %s", cmd->name);
	return fw_color_parse(who, when, &fw_color);
}

/*
 * getopt_long over cmd's options; -h, -q, -v and --color are handled here. Returns the
 * option, -1 at the end, FW_OPT_HELP after printing the help, or FW_OPT_BAD
 * after an error that names the option.
 */
static int fw_getopt(const struct fw_subcmd *cmd, int argc, char **argv)
{
	const char *arg;
	int c;

	opterr = 0;
	for (;;) {
		c = getopt_long(argc, argv, cmd->shortopts, cmd->longopts, NULL);
		if (c == 'q' || c == 'v')
			fw_verbosity = c == 'q' ? -1 : 1;
		else if (c == FW_OPT_COLOR && fw_parse_color(cmd, optarg))
			return FW_OPT_BAD;
		else if (c != FW_OPT_COLOR)
			break;
	}
	switch (c) {
	case 'h':
		fw_cmd_usage(cmd, stdout);
		return FW_OPT_HELP;
	case '?':
	case ':':
		arg = argv[optind - 1];
		if (optopt && strncmp(arg, "--", 2))
			fprintf(stderr, "framewalk %s: %s '-%c'\n", cmd->name,
				c == ':' ? "missing value for option" : "unknown option", optopt);
		else
			fprintf(stderr, "framewalk %s: %s '%s'\n", cmd->name,
				c == ':' ? "missing value for option" : "unknown option", arg);
		fprintf(stderr, "Try 'framewalk %s --help'.\n", cmd->name);
		return FW_OPT_BAD;
	}
	return c;
}

/* How a command ends at an option it does not take: 0 after --help, else a usage error. */
static int fw_opt_status(int c)
{
	return c == FW_OPT_HELP ? 0 : 2;
}

/* A whole decimal number from min to max, or an error naming the option and value. */
static int fw_parse_long(const struct fw_subcmd *cmd, const char *opt, const char *arg,
			 long min, long max, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(arg, &end, 10);
	if (!*arg || *end || errno || *out < min || *out > max) {
		fprintf(stderr, "framewalk %s: %s: '%s' is not a number from %ld to %ld\n",
			cmd->name, opt, arg, min, max);
		return -1;
	}
	return 0;
}

/* A glob list for the module: refuse an empty one here, where the option is named. */
static int fw_parse_globs(const struct fw_subcmd *cmd, const char *opt, const char *arg,
			  int may_be_empty)
{
	if (!may_be_empty && !arg[strspn(arg, " \t,")]) {
		fprintf(stderr, "framewalk %s: %s: '%s' names no function\n", cmd->name, opt, arg);
		return -1;
	}
	return 0;
}

/*
 * A comma-separated list of at most @max items, each whole (no empty one) and
 * passing @ok; else an error naming the option and value, with an example.
 */
static int fw_parse_list(const struct fw_subcmd *cmd, const char *opt, const char *arg,
			 unsigned int max, int (*ok)(const char *item, size_t len),
			 const char *what)
{
	unsigned int n = 0;
	const char *p;
	size_t len;

	for (p = arg;; p += len + 1) {
		len = strcspn(p, ",");
		if (!len || !ok(p, len) || ++n > max) {
			fprintf(stderr, "framewalk %s: %s: '%s' is not %s\n", cmd->name, opt, arg,
				what);
			return -1;
		}
		if (!p[len])
			return 0;
	}
}

/* A number from 0 to max in p[0, len): digits only. */
static int fw_number_in(const char *p, size_t len, long max)
{
	long v = 0;
	size_t i;

	for (i = 0; i < len; i++) {
		if (p[i] < '0' || p[i] > '9' || v > max / 10)
			return 0;
		v = v * 10 + (p[i] - '0');
	}
	return len && v <= max;
}

/* A process id, as the module's pid parameter takes it (PID_MAX_LIMIT at most). */
static int fw_pid_ok(const char *p, size_t len)
{
	return fw_number_in(p, len, 4194304) && !(len == 1 && *p == '0');
}

/* A CPU or a range of them, "2" or "2-3"; below 4096, as many as arm64 Linux counts. */
static int fw_cpus_ok(const char *p, size_t len)
{
	const char *dash = memchr(p, '-', len);

	if (!dash)
		return fw_number_in(p, len, 4095);
	return fw_number_in(p, (size_t)(dash - p), 4095) &&
	       fw_number_in(dash + 1, len - (size_t)(dash - p) - 1, 4095) &&
	       atol(p) <= atol(dash + 1);
}

/*
 * A task name or a glob of them, as the kernel's event filter reads it inside
 * quotes. The kernel keeps a name's first 15 characters: a longer name without
 * a wildcard would match no task, and is refused rather than record nothing.
 */
static int fw_comm_ok(const char *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] == '"' || p[i] == '\\')
			return 0;
	return len <= 15 || strcspn(p, "*?[") < len;
}

/*
 * The options record, stream and profile share: the module's setup, the
 * output file, how long to run and whose events to keep. 1 when @c was one
 * of them, 0 when not, -1 on a bad value.
 */
static int fw_setup_option(const struct fw_subcmd *cmd, int c, struct fw_session_opts *o)
{
	long v;

	switch (c) {
	case 'p':
		if (fw_parse_list(cmd, "-p/--pid", optarg, FW_PIDS_MAX, fw_pid_ok,
				  "a list of at most 16 process ids (such as 1234,5678)"))
			return -1;
		o->pid = optarg;
		return 1;
	case 't':
		if (fw_parse_long(cmd, "-t/--duration", optarg, 1, 86400, &v))
			return -1;
		o->seconds = (unsigned int)v;
		return 1;
	case FW_OPT_USER:
		if (fw_parse_long(cmd, "--user", optarg, 0, FW_MAX_USER, &v))
			return -1;
		o->user = (int)v;
		return 1;
	case 'C':
		if (fw_parse_list(cmd, "-C/--cpu", optarg, 4096, fw_cpus_ok,
				  "a list of CPUs (such as 0,2-3)"))
			return -1;
		o->cpus = optarg;
		return 1;
	case FW_OPT_COMM:
		if (fw_parse_list(cmd, "--comm", optarg, 64, fw_comm_ok,
				  "a list of task names or globs (such as dd,kworker/*; a name is "
				  "at most 15 characters, without quotes or backslashes)"))
			return -1;
		o->comm = optarg;
		return 1;
	case 'f':
		if (fw_parse_globs(cmd, "-f/--filter", optarg, 0))
			return -1;
		o->filter = optarg;
		return 1;
	case 'n':
		o->notrace = optarg;
		return 1;
	case 'd':
		if (fw_parse_long(cmd, "-d/--depth", optarg, 0, FW_MAX_ANCESTORS, &v))
			return -1;
		o->depth = (int)v;
		return 1;
	case 'k':
		o->module = optarg;
		return 1;
	case 'o':
		if (!*optarg) {
			fprintf(stderr, "framewalk %s: -o/--output: empty file name\n", cmd->name);
			return -1;
		}
		o->output = optarg;
		return 1;
	}
	return 0;
}

/*
 * fw_getopt with the shared options (fw_setup_option) stored in o: returns
 * the next option left to the caller, -1 at the end, or FW_OPT_BAD.
 */
static int fw_getopt_session(const struct fw_subcmd *cmd, int argc, char **argv,
			     struct fw_session_opts *o)
{
	int c, done;

	while ((c = fw_getopt(cmd, argc, argv)) != -1) {
		done = fw_setup_option(cmd, c, o);
		if (done < 0)
			return FW_OPT_BAD;
		if (!done)
			break;
	}
	return c;
}

static int fw_run_record(const struct fw_subcmd *cmd, int argc, char **argv)
{
	struct fw_session_opts o = { .depth = -1, .user = -1, .output = "framewalk.rec",
				    .stream = !strcmp(cmd->name, "stream") };
	int c;

	while ((c = fw_getopt_session(cmd, argc, argv, &o)) != -1) {
		switch (c) {
		case 'F':
			o.frames = 1;
			break;
		default:
			return fw_opt_status(c);
		}
	}
	if (optind < argc)
		o.cmd = argv + optind;
	return fw_record(&o);
}

/*
 * The input, from -i FILE (trace-cmd's way) or the one argument, into *input
 * (left alone when neither); 0, or -1 after a usage error.
 */
static int fw_one_input(const struct fw_subcmd *cmd, const char *what, const char **input,
			int argc, char **argv)
{
	int n = argc - optind + (*input != NULL);

	if (n > 1) {
		fprintf(stderr, "framewalk %s: one %s, not %d ('%s' is extra)\n", cmd->name, what,
			n, argv[*input ? optind : optind + 1]);
		return -1;
	}
	if (optind < argc)
		*input = argv[optind];
	return 0;
}

static int fw_run_file(const struct fw_subcmd *cmd, int argc, char **argv)
{
	const char *path = "framewalk.rec", *input = NULL;
	struct fw_recording r;
	long limit = 20;
	int c, frames = 0, ret;
	char err[512];

	while ((c = fw_getopt(cmd, argc, argv)) != -1) {
		switch (c) {
		case 'i':
			input = optarg;
			break;
		case 'F':
			frames = 1;
			break;
		case 'l':
			if (fw_parse_long(cmd, "-l/--limit", optarg, 1, INT_MAX, &limit))
				return 2;
			break;
		default:
			return fw_opt_status(c);
		}
	}
	if (fw_one_input(cmd, "recording", &input, argc, argv))
		return 2;
	if (input)
		path = input;
	if (fw_recording_read(path, &r, err, sizeof(err))) {
		fprintf(stderr, "framewalk %s: %s\n", cmd->name, err);
		return 1;
	}
	if (r.cut_line && fw_verbosity >= 0)
		fprintf(stderr, "framewalk %s: %s:%lu: the recording was cut short; "
			"reading its %zu complete events\n", cmd->name,
			strcmp(path, "-") ? path : "<stdin>", r.cut_line, r.nev);
	if (fw_verbosity > 0)
		fprintf(stderr, "framewalk %s: %s: %zu events, %zu symbols, %zu task names\n",
			cmd->name, path, r.nev, r.syms.n, r.ncomm);
	if (!strcmp(cmd->name, "report"))
		ret = fw_report(&r, stdout, frames);
	else if (!strcmp(cmd->name, "folded"))
		ret = fw_folded(&r, stdout);
	else
		ret = fw_top(&r, stdout, (unsigned int)limit);
	fw_recording_free(&r);
	return ret;
}

static int fw_run_reset(const struct fw_subcmd *cmd, int argc, char **argv)
{
	int c, unload = 0;

	while ((c = fw_getopt(cmd, argc, argv)) != -1) {
		switch (c) {
		case 'u':
			unload = 1;
			break;
		default:
			return fw_opt_status(c);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "framewalk reset: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	return fw_reset(unload);
}

/*
 * The options of profile and latency, which read the module's table once
 * after the run: --folded, -l and the command. -C and --comm are taken to be
 * refused, not ignored: a chain in the table keeps no task or CPU, so the
 * module could only have been told to keep some, and it cannot; @why says so
 * in the command's words. -1 to go on, or the status to exit with (-h's 0 too).
 */
static int fw_parse_table_run(const struct fw_subcmd *cmd, int argc, char **argv,
			      struct fw_table_opts *o, const char *why, const char *elsewhere)
{
	long v;
	int c;

	while ((c = fw_getopt_session(cmd, argc, argv, &o->session)) != -1) {
		switch (c) {
		case 'F':	/* profile's --folded's old short form: -F is --frames elsewhere */
		case FW_OPT_FOLDED:
			o->folded = 1;
			break;
		case 'l':
			if (fw_parse_long(cmd, "-l/--limit", optarg, 1, INT_MAX, &v))
				return 2;
			o->limit = (unsigned int)v;
			break;
		default:
			return fw_opt_status(c);
		}
	}
	if (o->session.comm || o->session.cpus) {
		fprintf(stderr, "framewalk %s: %s: %s", cmd->name,
			o->session.comm ? "--comm" : "-C/--cpu", why);
		if (elsewhere)
			fprintf(stderr, ", and record %s %s", o->session.comm ? "--comm" : "-C",
				elsewhere);
		fputc('\n', stderr);
		return 2;
	}
	if (optind < argc)
		o->session.cmd = argv + optind;
	return -1;
}

static int fw_run_profile(const struct fw_subcmd *cmd, int argc, char **argv)
{
	struct fw_table_opts o = { .session = { .depth = -1, .user = -1 }, .limit = 20 };
	int ret;

	ret = fw_parse_table_run(cmd, argc, argv, &o, "the module counts chains without the "
				 "task or CPU of each hit, so profile cannot keep some; -p/--pid "
				 "keeps processes", "keeps events for report, folded and top");
	return ret >= 0 ? ret : fw_profile(&o);
}

static int fw_run_latency(const struct fw_subcmd *cmd, int argc, char **argv)
{
	struct fw_table_opts o = { .session = { .depth = -1, .user = -1 }, .limit = 10 };
	int ret;

	ret = fw_parse_table_run(cmd, argc, argv, &o, "the module times chains without the "
				 "task or CPU of each call, so latency cannot keep some; -p/--pid "
				 "keeps processes", NULL);
	return ret >= 0 ? ret : fw_latency(&o);
}

#define FW_SETUP_HELP							\
	"  -f, --filter=GLOBS    functions to trace, comma-separated globs (see list)\n"	\
	"  -n, --notrace=GLOBS   functions not to trace\n"			\
	"  -d, --depth=N         ancestors to walk above the caller, 0 to 64\n"	\
	"  -p, --pid=PIDS        walk only these processes (comma-separated); without CMD,\n" \
	"                        until they exit\n"				\
	"      --user=N          walk up to N user frames too, 0 to 64\n"	\
	"  -k, --module=FILE     load this framewalk.ko when none is loaded\n"	\
	"  -t, --duration=SEC    stop after SEC seconds (1 to 86400), CMD or not\n"

/* Whose events record and stream keep: a tracefs event filter. */
#define FW_EVENTS_HELP							\
	"  -C, --cpu=CPUS        keep the events of these CPUs only (such as 0,2-3)\n"	\
	"      --comm=NAMES      keep the events of these task names or globs only\n"

/* --time: -t's long name before --duration, still taken for scripts. */
#define FW_SETUP_LONG						\
	{ "filter", required_argument, NULL, 'f' },			\
	{ "notrace", required_argument, NULL, 'n' },			\
	{ "depth", required_argument, NULL, 'd' },			\
	{ "pid", required_argument, NULL, 'p' },			\
	{ "user", required_argument, NULL, FW_OPT_USER },		\
	{ "module", required_argument, NULL, 'k' },			\
	{ "duration", required_argument, NULL, 't' },			\
	{ "time", required_argument, NULL, 't' },			\
	{ "cpu", required_argument, NULL, 'C' },			\
	{ "comm", required_argument, NULL, FW_OPT_COMM }

static const struct option fw_record_long[] = {
	FW_SETUP_LONG,
	{ "output", required_argument, NULL, 'o' },
	FW_COMMON_LONG
};

static const struct option fw_stream_long[] = {
	FW_SETUP_LONG,
	{ "frames", no_argument, NULL, 'F' },
	FW_COLOR_LONG,
	FW_COMMON_LONG
};

static const struct option fw_profile_long[] = {
	FW_SETUP_LONG,
	{ "folded", no_argument, NULL, FW_OPT_FOLDED },
	{ "limit", required_argument, NULL, 'l' },
	{ "output", required_argument, NULL, 'o' },
	FW_COMMON_LONG
};

static const struct option fw_latency_long[] = {
	FW_SETUP_LONG,
	{ "folded", no_argument, NULL, FW_OPT_FOLDED },
	{ "limit", required_argument, NULL, 'l' },
	FW_COMMON_LONG
};

#define FW_INPUT_LONG	{ "input", required_argument, NULL, 'i' }
#define FW_INPUT_HELP							\
	"  -i, --input=FILE      read FILE, as trace-cmd report -i does (or give it as FILE)\n"

static const struct option fw_report_long[] = {
	FW_INPUT_LONG,
	{ "frames", no_argument, NULL, 'F' },
	FW_COLOR_LONG,
	FW_COMMON_LONG
};

static const struct option fw_top_long[] = {
	FW_INPUT_LONG,
	{ "limit", required_argument, NULL, 'l' },
	FW_COMMON_LONG
};

static const struct option fw_reset_long[] = {
	{ "unload", no_argument, NULL, 'u' },
	FW_COMMON_LONG
};

static const struct option fw_folded_long[] = {
	FW_INPUT_LONG,
	FW_COMMON_LONG
};

static const struct option fw_output_long[] = {
	FW_INPUT_LONG,
	{ "output", required_argument, NULL, 'o' },
	FW_COMMON_LONG
};

static int fw_run_flamegraph(const struct fw_subcmd *cmd, int argc, char **argv)
{
	struct fw_session_opts o = { .output = "flamegraph.html" };	/* -o alone */
	const char *input = NULL;
	int c;

	while ((c = fw_getopt_session(cmd, argc, argv, &o)) != -1) {
		if (c != 'i')
			return fw_opt_status(c);
		input = optarg;
	}
	if (fw_one_input(cmd, "recording or folded file", &input, argc, argv))
		return 2;
	return fw_flamegraph(input ? input : "framewalk.rec", o.output) ? 1 : 0;
}

static int fw_run_list(const struct fw_subcmd *cmd, int argc, char **argv)
{
	const char *globs = NULL;
	int c;

	c = fw_getopt(cmd, argc, argv);
	if (c != -1)
		return fw_opt_status(c);
	if (fw_one_input(cmd, "list of globs", &globs, argc, argv))
		return 2;
	if (globs && fw_parse_globs(cmd, "GLOBS", globs, 0))
		return 2;
	return fw_list(globs);
}

static const struct option fw_list_long[] = {
	FW_COMMON_LONG
};

static const struct fw_subcmd fw_cmds[] = {
	{ "record", "[OPTIONS] [-- CMD...]",
	  "Record call chains into a file until CMD ends or SIGINT (as root).",
	  FW_SETUP_HELP FW_EVENTS_HELP
	  "  -o, --output=FILE     the recording (default framewalk.rec)\n",
	  "+:f:n:d:p:k:t:C:o:" FW_COMMON_SHORT, fw_record_long, fw_run_record },
	{ "stream", "[OPTIONS] [-- CMD...]",
	  "Print call chains as they happen until CMD ends or SIGINT (as root).",
	  FW_SETUP_HELP FW_EVENTS_HELP
	  "  -F, --frames          one line per frame\n" FW_COLOR_HELP,
	  "+:f:n:d:p:k:t:C:F" FW_COMMON_SHORT, fw_stream_long, fw_run_record },
	{ "profile", "[OPTIONS] [-- CMD...]",
	  "Count call chains in the module until CMD ends, SECONDS pass or SIGINT, then print\n"
	  "the top caller -> callee edges or folded stacks (as root).",
	  FW_SETUP_HELP
	  "      --folded          print folded stacks instead of edges\n"
	  "  -l, --limit=N         how many edges (default 20)\n"
	  "  -o, --output=FILE     also save the counted chains as a recording\n",
	  /*
	   * -F, --folded's old short form, is still taken for scripts but not
	   * shown; -C and --comm only to say why profile cannot keep them.
	   */
	  "+:f:n:d:p:k:t:C:Fl:o:" FW_COMMON_SHORT, fw_profile_long, fw_run_profile },
	{ "latency", "[OPTIONS] [-- CMD...]",
	  "Time each call by calling chain in the module until CMD ends, SECONDS pass or\n"
	  "SIGINT, then print the chains by total time with their histograms (as root).",
	  FW_SETUP_HELP
	  "      --folded          print \"chain total_ns\" lines, a flame graph weighted by time\n"
	  "  -l, --limit=N         how many chains (default 10)\n",
	  "+:f:n:d:p:k:t:C:l:" FW_COMMON_SHORT, fw_latency_long, fw_run_latency },
	{ "report", "[OPTIONS] [FILE|-]",
	  "Print each recorded chain (FILE defaults to framewalk.rec). A trace-cmd trace.dat\n"
	  "is read too, its user frames named from trace-cmd record --proc-map's maps.",
	  FW_INPUT_HELP "  -F, --frames          one line per frame\n" FW_COLOR_HELP,
	  ":i:F" FW_COMMON_SHORT, fw_report_long, fw_run_file },
	{ "folded", "[OPTIONS] [FILE|-]",
	  "Print folded stacks, outermost first, for flame graphs.",
	  FW_INPUT_HELP,
	  ":i:" FW_COMMON_SHORT, fw_folded_long, fw_run_file },
	{ "top", "[OPTIONS] [FILE|-]",
	  "Print the most frequent caller -> callee edges.",
	  FW_INPUT_HELP "  -l, --limit=N         how many edges (default 20)\n",
	  ":i:l:" FW_COMMON_SHORT, fw_top_long, fw_run_file },
	{ "list", "[OPTIONS] [GLOBS]",
	  "List the functions -f can trace, those GLOBS match (comma-separated, as -f takes\n"
	  "them), from tracefs's available_filter_functions (as root).",
	  "",
	  ":" FW_COMMON_SHORT, fw_list_long, fw_run_list },
	{ "reset", "[OPTIONS]",
	  "Remove what framewalk left in tracefs (as root).",
	  "Removes the trace instances of recorders that are gone and disables\n"
	  "framewalk's events wherever they are enabled.\n"
	  "  -u, --unload          unload framewalk.ko too\n",
	  ":u" FW_COMMON_SHORT, fw_reset_long, fw_run_reset },
	{ "flamegraph", "[OPTIONS] [FILE|FOLDED|-]",
	  "Write a self-contained HTML flame graph of a recording (FILE defaults to\n"
	  "framewalk.rec) or of folded stacks, as folded prints them.",
	  FW_INPUT_HELP "  -o, --output=FILE     the page (default flamegraph.html; - for stdout)\n",
	  ":i:o:" FW_COMMON_SHORT, fw_output_long, fw_run_flamegraph },
};

#define FW_NCMDS (sizeof(fw_cmds) / sizeof(fw_cmds[0]))

/* The command list, each summary's lines under the first, past the longest name. */
static void fw_usage(FILE *out)
{
	const char *line, *nl;
	int width = 0, len;
	size_t i;

	for (i = 0; i < FW_NCMDS; i++) {
		len = (int)strlen(fw_cmds[i].name);
		width = len > width ? len : width;
	}
	fputs("usage: framewalk COMMAND [OPTIONS] [ARGS]\n"
	      "       framewalk -h|--help | -V|--version\n\nCommands:\n", out);
	for (i = 0; i < FW_NCMDS; i++) {
		fprintf(out, "  %-*s  ", width, fw_cmds[i].name);
		for (line = fw_cmds[i].summary; (nl = strchr(line, '\n')); line = nl + 1)
			fprintf(out, "%.*s\n  %-*s  ", (int)(nl - line), line, width, "");
		fprintf(out, "%s\n", line);
	}
	fputs("\n'framewalk COMMAND --help' lists a command's options. See framewalk(1).\n",
	      out);
}

int main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : NULL;
	size_t i;

	if (!name) {
		fputs("framewalk: no command\n", stderr);
		fw_usage(stderr);
		return 2;
	}
	if (!strcmp(name, "-h") || !strcmp(name, "--help")) {
		fw_usage(stdout);
		return 0;
	}
	/* --color=auto unless a subcommand's option says otherwise. */
	fw_parse_color(&fw_cmds[0], "auto");
	if (!strcmp(name, "-V") || !strcmp(name, "--version")) {
		printf("framewalk %s\n", FW_VERSION);
		return 0;
	}
	for (i = 0; i < FW_NCMDS; i++)
		if (!strcmp(name, fw_cmds[i].name))
			return fw_cmds[i].run(&fw_cmds[i], argc - 1, argv + 1);
	fprintf(stderr, "framewalk: unknown %s '%s'; the commands are", *name == '-' ?
		"option" : "command", name);
	for (i = 0; i < FW_NCMDS; i++)
		fprintf(stderr, " %s", fw_cmds[i].name);
	fputs(" (framewalk --help)\n", stderr);
	return 2;
}
