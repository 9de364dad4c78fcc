// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - crashwalk command line: options, then one report per dump; the
 * library does the work.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/user/fw_color.h"
#include "crashwalk.h"
#include "fw_version.h"

static void usage(FILE *out)
{
	fputs("usage: crashwalk [OPTIONS] FIRMWARE.elf DUMP...\n"
	      "       crashwalk [OPTIONS] -w DIR [-k DIR] FIRMWARE.elf [DUMP...]\n"
	      "       crashwalk [OPTIONS] -f FIRMWARE.elf STREAM...\n"
	      "Unwind and explain Cortex-M crash dumps (ELF core, Zephyr coredump or #CD: log,\n"
	      "CrashCatcher, remoteproc ELF); DUMP '-' is standard input.\n\n"
	      "  -j, --json              one JSON object per dump, failed dumps included\n"
	      "  -m, --method=M          auto, cfi, ehabi, prologue, fp or scan (default auto)\n"
	      "  -r, --regs=SYM:LAYOUT   registers of a dump without them, from the register\n"
	      "                          block the firmware saved at SYM\n"
	      "  -R, --rtos=KIND         auto, none, freertos, zephyr, threadx or liteos\n"
	      "                          (default auto)\n"
	      "      --allow-mismatch    report a dump that contradicts the firmware, with a\n"
	      "                          warning, instead of refusing it\n"
	      "  -s, --sp=REG=ADDR,...   stack pointers the dump lacks: msp, psp, msp_s,\n"
	      "                          psp_s, msp_ns, psp_ns (else they are searched for)\n"
	      "      --path-map=OLD=NEW  show source paths under directory OLD under NEW\n"
	      "                          (repeatable; as GDB's set substitute-path)\n"
	      "      --strip-path        show source files by base name (as addr2line -s)\n"
	      "  -w, --watch=DIR         analyze dumps as they arrive in DIR\n"
	      "  -k, --keep=DIR          where --watch keeps devcoredump copies (default .)\n"
	      "  -f, --follow            read each STREAM (tty, pipe, file, '-') to its end and\n"
	      "                          analyze its #CD: and CrashCatcher hex dumps as they come\n"
	      "      --color[=WHEN]      bold function names: auto, always or never (default\n"
	      "                          auto: a terminal, NO_COLOR unset, TERM not dumb)\n"
	      "  -q, --quiet             print no notes on stderr, only errors\n"
	      "  -v, --verbose           say which dump is being read\n"
	      "  -h, --help              this help\n"
	      "  -V, --version           the version\n"
	      "See crashwalk(1).\n", out);
}

static int verbosity;	/* -1 with -q, 1 with -v */

/* A note on stderr, unless -q. */
static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...)
{
	va_list ap;

	if (verbosity < 0)
		return;
	va_start(ap, fmt);
	fputs("crashwalk: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

struct options {
	struct cw_options analyze;
	struct cw_report_opts report;
};

/* A refused dump's further reasons, held to follow its error with -v. */
struct held {
	char lines[8][1024];
	unsigned int nr;
};

/* The library's notes on a dump; its errors are shown with -q too. */
static void library_note(void *ctx, int error, const char *msg)
{
	struct held *h = ctx;

	if (!error)
		note("%s\n", msg);
	else if (h->nr < sizeof(h->lines) / sizeof(h->lines[0]))
		snprintf(h->lines[h->nr++], sizeof(h->lines[0]), "%s", msg);
}

/*
 * A dump that cannot be analyzed: the message on stderr and, with --json, an
 * error object in the JSON-lines stream, so a pipeline reading stdout sees it.
 */
static int dump_failed(const struct options *opt, const char *path, const char *msg)
{
	fprintf(stderr, "crashwalk: %s\n", msg);
	cw_report_error(stdout, &opt->report, strcmp(path, "-") ? path : "<stdin>", msg);
	return 1;
}

/* The dump at path, or, when buf is not NULL, in buf (malloc'ed, taken over) under that name. */
static int analyze(struct cw_image *img, const char *path, uint8_t *buf, size_t len,
		   const struct options *opt)
{
	struct cw_options o = opt->analyze;
	struct cw_error err = { { 0 } };
	struct cw_analysis *a;
	struct held held;
	unsigned int i;

	held.nr = 0;
	o.note_ctx = &held;
	if (verbosity > 0)
		note("reading %s\n", path);
	if (cw_analyze(img, &o, path, buf, len, &a, &err)) {
		dump_failed(opt, path, err.msg);
		/* The error is one line; the evidence behind it is for -v. */
		for (i = 0; verbosity > 0 && i < held.nr; i++)
			fprintf(stderr, "crashwalk: %s\n", held.lines[i]);
		return 1;
	}
	cw_report(stdout, &opt->report, a);
	cw_analysis_free(a);
	return 0;
}

struct watch_ctx {
	struct cw_image *img;
	const struct options *opt;
	int failed;		/* a followed stream had a dump that could not be analyzed */
	unsigned int dumps;	/* dumps a followed stream held, whole or cut */
};

/* A dump that cannot be read is reported and the watch goes on. */
static int watch_one(void *p, const char *path)
{
	struct watch_ctx *w = p;

	analyze(w->img, path, NULL, 0, w->opt);
	fflush(stdout);
	return 0;
}

/* A dump from a followed stream; one cut short is reported and the stream goes on. */
static int follow_one(void *p, struct cw_stream_dump *sd)
{
	struct watch_ctx *w = p;

	w->dumps++;
	if (sd->text)
		w->failed |= analyze(w->img, sd->name, sd->text, sd->len, w->opt);
	else
		w->failed |= dump_failed(w->opt, sd->name, sd->why);
	fflush(stdout);
	return 0;
}

enum { OPT_COLOR = 256, OPT_ALLOW_MISMATCH, OPT_PATH_MAP, OPT_STRIP_PATH };

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "method", required_argument, NULL, 'm' },
		{ "watch", required_argument, NULL, 'w' },
		{ "keep", required_argument, NULL, 'k' },
		{ "follow", no_argument, NULL, 'f' },
		{ "regs", required_argument, NULL, 'r' },
		{ "rtos", required_argument, NULL, 'R' },
		{ "allow-mismatch", no_argument, NULL, OPT_ALLOW_MISMATCH },
		{ "sp", required_argument, NULL, 's' },
		{ "path-map", required_argument, NULL, OPT_PATH_MAP },
		{ "strip-path", no_argument, NULL, OPT_STRIP_PATH },
		{ "color", optional_argument, NULL, OPT_COLOR },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct options opt = { .analyze = { .how = CW_UNWIND_AUTO, .note = library_note } };
	struct cw_error err = { { 0 } };
	const char *watch = NULL, *keep = ".", *color = "auto";
	struct cw_image *img;
	struct stat st;
	int c, i, rc = 0, follow = 0;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":jm:w:k:fr:R:s:qvhV", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			opt.report.json = 1;
			break;
		case 'm':
			if (cw_unwinder_parse(optarg, &opt.analyze.how)) {
				fprintf(stderr, "crashwalk: --method: unknown method '%s'; the "
					"methods are auto, cfi, ehabi, prologue, fp and scan\n",
					optarg);
				return 2;
			}
			break;
		case 'w':
			watch = optarg;
			break;
		case 'k':
			keep = optarg;
			break;
		case 'f':
			follow = 1;
			break;
		case 'r':
			opt.analyze.regs = optarg;
			break;
		case 'R':
			if (cw_rtos_parse(optarg, &opt.analyze.rtos)) {
				fprintf(stderr, "crashwalk: --rtos: unknown RTOS '%s'; use auto, "
					"none, freertos, zephyr, threadx or liteos\n", optarg);
				return 2;
			}
			break;
		case OPT_ALLOW_MISMATCH:
			opt.analyze.allow_mismatch = 1;
			break;
		case 's':
			if (cw_sp_parse(optarg, &opt.analyze.sp, &err)) {
				fprintf(stderr, "crashwalk: %s\n", err.msg);
				return 2;
			}
			break;
		case OPT_PATH_MAP:
			if (cw_path_map_valid(optarg)) {
				fprintf(stderr, "crashwalk: --path-map: '%s' is not OLD=NEW with OLD "
					"a directory\n", optarg);
				return 2;
			}
			if (opt.report.nr_path_map == CW_PATH_MAP_MAX) {
				fprintf(stderr, "crashwalk: --path-map: at most %d maps\n",
					CW_PATH_MAP_MAX);
				return 2;
			}
			opt.report.path_map[opt.report.nr_path_map++] = optarg;
			break;
		case OPT_STRIP_PATH:
			opt.report.strip_path = 1;
			break;
		case OPT_COLOR:
			color = optarg;
			break;
		case 'q':
			verbosity = -1;
			break;
		case 'v':
			verbosity = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("crashwalk %s\n", FW_VERSION);
			return 0;
		case ':':
			fprintf(stderr, "crashwalk: missing value for option '%s'\n",
				argv[optind - 1]);
			fputs("Try 'crashwalk --help'.\n", stderr);
			return 2;
		default:
			if (optopt && strncmp(argv[optind - 1], "--", 2))
				fprintf(stderr, "crashwalk: unknown option '-%c'\n", optopt);
			else
				fprintf(stderr, "crashwalk: unknown option '%s'\n", argv[optind - 1]);
			fputs("Try 'crashwalk --help'.\n", stderr);
			return 2;
		}
	}
	if (fw_color_parse("crashwalk", color, &opt.report.color))
		return 2;
	if (follow && watch) {
		fprintf(stderr, "crashwalk: --follow and --watch: one at a time (a stream may "
			"never end)\n");
		return 2;
	}
	if (argc - optind < (watch ? 1 : 2)) {
		fprintf(stderr, "crashwalk: %s\nTry 'crashwalk --help'.\n",
			argc == optind ? "no firmware image" :
			follow ? "no stream to follow (a tty, a pipe, a file or '-')" :
			"no dump (name one or more, or --watch DIR)");
		return 2;
	}
	/* A dump is a file: read from a terminal, crashwalk would wait for what never comes. */
	for (i = optind + 1; !follow && i < argc; i++)
		if (!strcmp(argv[i], "-") && isatty(STDIN_FILENO)) {
			fprintf(stderr, "crashwalk: -: standard input is a terminal, expected a "
				"dump: crashwalk FIRMWARE.elf - <DUMP, or --follow a UART\n");
			return 2;
		}
	for (i = 0; watch && i < 2; i++) {
		const char *dir = i ? keep : watch, *why = NULL;

		if (stat(dir, &st))
			why = strerror(errno);
		else if (!S_ISDIR(st.st_mode))
			why = "not a directory";
		if (why) {
			fprintf(stderr, "crashwalk: --%s '%s': %s\n", i ? "keep" : "watch", dir, why);
			return 2;
		}
	}
	img = cw_image_open(argv[optind], &err);
	if (!img) {
		fprintf(stderr, "crashwalk: %s\n", err.msg);
		return 1;
	}
	if (opt.analyze.regs && cw_image_check_regblock(img, opt.analyze.regs, &err)) {
		fprintf(stderr, "crashwalk: %s\n", err.msg);
		cw_image_close(img);
		return 2;
	}
	for (i = optind + 1; i < argc; i++) {
		struct watch_ctx w = { img, &opt, 0, 0 };

		if (!follow) {
			rc |= analyze(img, argv[i], NULL, 0, &opt);
		} else if (cw_follow(argv[i], verbosity > 0 ? stderr : NULL, follow_one, &w, &err)) {
			fprintf(stderr, "crashwalk: %s\n", err.msg);
			rc = 1;
		} else if (!w.dumps) {
			note("%s: the stream ended without a crash dump (no #CD: or CrashCatcher "
			     "lines)\n", strcmp(argv[i], "-") ? argv[i] : "<stdin>");
		}
		rc |= w.failed;
	}
	if (watch) {
		struct watch_ctx w = { img, &opt, 0, 0 };

		if (cw_watch_dir(watch, keep, watch_one, &w)) {
			fprintf(stderr, "crashwalk: %s: cannot watch: %s\n", watch, strerror(errno));
			rc = 1;
		}
	}
	cw_image_close(img);
	return rc;
}
