// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - crashwalk command line: options, then one report per dump; the
 * library does the work.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../lib/user/fw_color.h"
#include "cli/cw_cli.h"
#include "crashwalk.h"
#include "fw_version.h"

/* A subcommand as CW_SUBCOMMANDS (cli/cw_cli.h) lists it. */
struct subcommand {
	const char *name, *args;
	int (*run)(int argc, char **argv);
};

#define CW_CMD_(name, args)	{ #name, args, cw_cmd_##name },
static const struct subcommand subcommands[] = { CW_SUBCOMMANDS(CW_CMD_) };
#undef CW_CMD_

static void usage(FILE *out)
{
	unsigned int i;

	fputs("usage: crashwalk [OPTIONS] [FIRMWARE.elf] DUMP...\n"
	      "       crashwalk [OPTIONS] --batch[=LIST] [FIRMWARE.elf] [DUMP...]\n"
	      "       crashwalk [OPTIONS] -w DIR [-k DIR] [FIRMWARE.elf] [DUMP...]\n"
	      "       crashwalk [OPTIONS] -f [FIRMWARE.elf] STREAM...\n", out);
	for (i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		fprintf(out, "       crashwalk %s %s\n", subcommands[i].name, subcommands[i].args);
	fprintf(out, "Unwind and explain Cortex-M crash dumps; DUMP '-' is standard input. Without\n"
	      "FIRMWARE.elf each dump's firmware is found by the GNU build-id it holds: in\n"
	      "--symbols directories, then from the debuginfod servers DEBUGINFOD_URLS names.\n"
	      "Dump formats: %s, told apart by their first bytes.\n\n"
	      "  -j, --json              one JSON object per dump, failed dumps included\n"
	      "  -m, --method=M          auto, cfi, ehabi, prologue, fp or scan (default auto)\n"
	      "  -r, --regs=SYM:LAYOUT   registers of a dump without them, from the register\n"
	      "                          block the firmware saved at SYM\n"
	      "  -R, --rtos=KIND         %s\n"
	      "                          (default auto)\n"
	      "      --allow-mismatch    report a dump that contradicts the firmware, with a\n"
	      "                          warning, instead of refusing it\n"
	      "  -s, --sp=REG=ADDR,...   stack pointers the dump lacks: msp, psp, msp_s,\n"
	      "                          psp_s, msp_ns, psp_ns (else they are searched for)\n"
	      "      --path-map=OLD=NEW  show source paths under directory OLD under NEW\n"
	      "                          (repeatable; as GDB's set substitute-path)\n"
	      "      --strip-path        show source files by base name (as addr2line -s)\n"
	      "      --frame-regs        under each frame, the registers known there (as GDB's\n"
	      "                          info registers in that frame; JSON: each frame's\n"
	      "                          \"registers\")\n"
	      "      --symbols=DIR       find firmware by build-id in DIR: DIR/.build-id/xx/\n"
	      "                          rest.debug, or any ELF in DIR (repeatable)\n"
	      "      --no-debuginfod     do not ask debuginfod servers (DEBUGINFOD_URLS)\n"
	      "      --image-cache=N     firmware images kept open at once (default 8)\n"
	      "  -b, --batch[=LIST]      JSON lines for the dumps named in LIST (default\n"
	      "                          standard input), one path a line, then a count\n"
	      "  -w, --watch=DIR         analyze dumps as they arrive in DIR\n"
	      "  -k, --keep=DIR          where --watch keeps devcoredump copies (default .)\n"
	      "  -f, --follow            read each STREAM (tty, pipe, file, '-') to its end and\n"
	      "                          analyze its #CD: and CrashCatcher hex dumps as they come\n"
	      "      --color[=WHEN]      bold function names: auto, always or never (default\n"
	      "                          auto: a terminal, NO_COLOR unset, TERM not dumb)\n"
	      "  -q, --quiet             print no notes on stderr, only errors\n"
	      "  -v, --verbose           say which dump is being read, and under a frame the\n"
	      "                          caller each disagreeing unwinder proposed\n"
	      "  -h, --help              this help\n"
	      "  -V, --version           the version\n"
	      "See crashwalk(1).\n", cw_dump_formats(), cw_rtos_kinds());
}

static int verbosity;	/* -1 with -q, 1 with -v */

/* A note on stderr, unless -q. */
static void stderr_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void stderr_note(const char *fmt, ...)
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
		stderr_note("%s\n", msg);
	else if (h->nr < sizeof(h->lines) / sizeof(h->lines[0]))
		snprintf(h->lines[h->nr++], sizeof(h->lines[0]), "%s", msg);
}

/* Where each dump's firmware comes from. */
struct firmware {
	struct cw_image *given;		/* the ELF named on the command line: it wins */
	struct cw_symbols *store;	/* else found by the dump's build-id */
	int no_build_id;		/* a dump had no build-id and no firmware was given */
	unsigned int dumps, failed;
};

/*
 * A dump that cannot be analyzed: the message on stderr and, with --json, an
 * error object in the JSON-lines stream, so a pipeline reading stdout sees it.
 */
static int dump_failed(const struct options *opt, const char *path, const struct cw_analysis *a,
		       const char *msg)
{
	fprintf(stderr, "crashwalk: %s\n", msg);
	cw_report_error(stdout, &opt->report, strcmp(path, "-") ? path : "<stdin>", a, msg);
	return 1;
}

/*
 * The firmware of a dump read without one given: found by the build-id the
 * dump holds. NULL with msg set: the dump names no build-id (a usage error:
 * the user must name the ELF), or no place has that firmware.
 */
static struct cw_image *firmware_of(struct firmware *fw, const struct cw_analysis *a,
				    const struct options *opt, struct cw_error *err)
{
	const char *name = cw_analysis_path(a), *where;
	struct cw_error why = { { 0 } };
	unsigned int opened = cw_symbols_opened(fw->store);
	struct cw_image *img;
	const uint8_t *id;
	uint32_t len;

	len = cw_analysis_build_id(a, &id, NULL);
	if (!len) {
		fw->no_build_id = 1;
		snprintf(err->msg, sizeof(err->msg), "%s: the dump holds no GNU build-id (no "
			 "NT_GNU_BUILD_ID note, no build-id note in its memory): name its firmware "
			 "first, crashwalk FIRMWARE.elf DUMP", name);
		return NULL;
	}
	img = cw_symbols_image(fw->store, id, len, &where, &why);
	if (!img) {
		snprintf(err->msg, sizeof(err->msg), "%s: %.640s", name, why.msg);
		return NULL;
	}
	if (cw_symbols_opened(fw->store) != opened) {
		stderr_note("firmware %s\n", where);
		if (opt->analyze.regs && cw_image_check_regblock(img, opt->analyze.regs, &why)) {
			snprintf(err->msg, sizeof(err->msg), "%s: %.640s", name, why.msg);
			return NULL;
		}
	}
	return img;
}

/* The dump at path, or, when buf is not NULL, in buf (malloc'ed, taken over) under that name. */
static int analyze(struct firmware *fw, const char *path, uint8_t *buf, size_t len,
		   const struct options *opt)
{
	struct cw_options o = opt->analyze;
	struct cw_error err = { { 0 } };
	struct cw_analysis *a;
	struct cw_image *img;
	struct held held;
	unsigned int i;

	held.nr = 0;
	o.note_ctx = &held;
	fw->dumps++;
	if (verbosity > 0)
		stderr_note("reading %s\n", path);
	if (cw_analysis_read(path, buf, len, &a, &err)) {
		fw->failed++;
		return dump_failed(opt, path, NULL, err.msg);
	}
	img = fw->given ? fw->given : firmware_of(fw, a, opt, &err);
	if (!img || cw_analysis_run(img, &o, a, &err)) {
		fw->failed++;
		dump_failed(opt, path, a, err.msg);
		/* The error is one line; the evidence behind it is for -v. */
		for (i = 0; verbosity > 0 && i < held.nr; i++)
			fprintf(stderr, "crashwalk: %s\n", held.lines[i]);
		cw_analysis_free(a);
		return 1;
	}
	cw_report(stdout, &opt->report, a);
	cw_analysis_free(a);
	return 0;
}

/*
 * A line input: its first bytes, read to judge the file before its lines,
 * handed back ahead of the rest (fopencookie), so that nothing is lost from
 * a pipe and lines still come as soon as they arrive.
 */
struct line_input {
	int fd;
	uint8_t head[4096];
	size_t len, off;
};

static ssize_t line_input_read(void *p, char *buf, size_t size)
{
	struct line_input *in = p;
	size_t n = in->len - in->off;

	if (!n)
		return read(in->fd, buf, size);
	n = n < size ? n : size;
	memcpy(buf, in->head + in->off, n);
	in->off += n;
	return (ssize_t)n;
}

static int line_input_close(void *p)
{
	struct line_input *in = p;

	return in->fd == STDIN_FILENO ? 0 : close(in->fd);
}

/* The head: up to 4096 bytes, or the first line when a pipe sends no more yet. */
static int line_input_head(struct line_input *in)
{
	ssize_t n;

	while (in->len < sizeof(in->head) && !memchr(in->head, '\n', in->len)) {
		n = read(in->fd, in->head + in->len, sizeof(in->head) - in->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (!n)
			break;
		in->len += (size_t)n;
	}
	return 0;
}

/*
 * What a file whose first bytes hold a control character no text of lines
 * has (only tab, CR and LF are) is, that byte's offset in *at; NULL: text.
 * The binary dump formats all have one in their first bytes.
 */
static const char *binary_kind(const uint8_t *b, size_t n, size_t *at)
{
	size_t i;

	for (i = 0; i < n && (b[i] >= 0x20 || b[i] == '\t' || b[i] == '\r' || b[i] == '\n'); i++)
		;
	*at = i;
	if (i == n)
		return NULL;
	if (cw_dump_sniff(b, n))
		return "a crash dump";
	if (n >= 4 && !memcmp(b, "\177ELF", 4))
		return "an ELF file";
	return "binary data";
}

int cw_each_line(const char *name, const char *what, const char *expected,
		 int (*fn)(void *ctx, char *line, size_t n, unsigned int lineno), void *ctx)
{
	static const cookie_io_functions_t io = { .read = line_input_read,
						   .close = line_input_close };
	struct line_input in = { .fd = strcmp(name, "-") ? open(name, O_RDONLY) : STDIN_FILENO };
	unsigned int lineno = 0;
	const char *kind;
	char *line = NULL;
	size_t cap = 0, at;
	ssize_t n;
	FILE *f;
	int rc = 0;

	if (in.fd < 0 || line_input_head(&in)) {
		fprintf(stderr, "crashwalk: %s %s: %s\n", what, name, strerror(errno));
		line_input_close(&in);
		return 1;
	}
	/* Binary input is one error, not one per "line" of it, and is not read further. */
	kind = binary_kind(in.head, in.len, &at);
	if (kind) {
		if (strcmp(kind, "binary data"))
			fprintf(stderr, "crashwalk: %s %s: %s, expected %s\n", what, name, kind,
				expected);
		else
			fprintf(stderr, "crashwalk: %s %s: offset %zu (0x%zx): byte 0x%02x: binary "
				"data, expected %s\n", what, name, at, at, in.head[at], expected);
		line_input_close(&in);
		return 1;
	}
	f = fopencookie(&in, "r", io);
	if (!f) {
		fprintf(stderr, "crashwalk: %s %s: %s\n", what, name, strerror(errno));
		line_input_close(&in);
		return 1;
	}
	while ((n = getline(&line, &cap, f)) > 0)
		rc |= fn(ctx, line, (size_t)n, ++lineno);
	free(line);
	fclose(f);
	return rc;
}

struct batch_ctx {
	struct firmware *fw;
	const struct options *opt;
};

static int batch_line(void *p, char *line, size_t n, unsigned int lineno)
{
	struct batch_ctx *b = p;

	(void)lineno;
	while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
		line[--n] = 0;
	return n ? analyze(b->fw, line, NULL, 0, b->opt) : 0;
}

/*
 * --batch: the dumps named in list, one path a line; each gets its JSON
 * line, a failed one an error line, and the batch goes on to the end.
 */
static int batch(struct firmware *fw, const char *list, const struct options *opt)
{
	struct batch_ctx b = { fw, opt };

	return cw_each_line(list, "--batch", "the dumps' paths, one a line", batch_line, &b);
}

struct watch_ctx {
	struct firmware *fw;
	const struct options *opt;
	int failed;		/* a followed stream had a dump that could not be analyzed */
	unsigned int dumps;	/* dumps a followed stream held, whole or cut */
};

/* A dump that cannot be read is reported and the watch goes on. */
static int watch_one(void *p, const char *path)
{
	struct watch_ctx *w = p;

	analyze(w->fw, path, NULL, 0, w->opt);
	fflush(stdout);
	return 0;
}

/* A dump from a followed stream; one cut short is reported and the stream goes on. */
static int follow_one(void *p, struct cw_stream_dump *sd)
{
	struct watch_ctx *w = p;

	w->dumps++;
	if (sd->text)
		w->failed |= analyze(w->fw, sd->name, sd->text, sd->len, w->opt);
	else
		w->failed |= dump_failed(w->opt, sd->name, NULL, sd->why);
	fflush(stdout);
	return 0;
}

/*
 * Is the file at path the firmware ELF that may come before the dumps? Not a
 * pipe or a tty: those are not opened here, as a byte read from one would be
 * lost to the dump reader. A followed stream is text, so there the
 * firmware is an ELF that is not a core; a log whose first dump starts past the
 * bytes read here is not taken for the firmware.
 */
static int is_firmware(const char *path, int follow)
{
	uint8_t buf[4096];
	struct stat st;
	ssize_t n;
	int fd;

	if (!strcmp(path, "-"))
		return 0;
	/* One that cannot be read is taken for the firmware, as cw_image_open says why. */
	if (stat(path, &st))
		return 1;
	if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode) || S_ISSOCK(st.st_mode))
		return 0;
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 1;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (follow)
		return n >= 18 && !memcmp(buf, "\177ELF", 4) && (buf[16] | buf[17] << 8) != 4;
	return n <= 0 || !cw_dump_sniff(buf, (size_t)n);
}

/*
 * Why a lone file taken for the firmware is none: NULL when it starts an ELF
 * file, else the reason (it cannot be read, or is neither firmware nor dump).
 */
static const char *not_firmware(const char *path, char *why, size_t len)
{
	char magic[4];
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return strerror(errno);
	n = read(fd, magic, sizeof(magic));
	if (n < 0) {
		snprintf(why, len, "%s", strerror(errno));
		close(fd);
		return why;
	}
	close(fd);
	if (n == sizeof(magic) && !memcmp(magic, "\177ELF", 4))
		return NULL;
	snprintf(why, len, "neither a firmware ELF nor a dump crashwalk reads (%s)",
		 cw_dump_formats());
	return why;
}

enum {
	OPT_COLOR = 256, OPT_ALLOW_MISMATCH, OPT_PATH_MAP, OPT_STRIP_PATH, OPT_SYMBOLS,
	OPT_NO_DEBUGINFOD, OPT_IMAGE_CACHE, OPT_FRAME_REGS,
};

#define MAX_SYMBOL_DIRS	16

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
		{ "frame-regs", no_argument, NULL, OPT_FRAME_REGS },
		{ "symbols", required_argument, NULL, OPT_SYMBOLS },
		{ "no-debuginfod", no_argument, NULL, OPT_NO_DEBUGINFOD },
		{ "image-cache", required_argument, NULL, OPT_IMAGE_CACHE },
		{ "batch", optional_argument, NULL, 'b' },
		{ "color", optional_argument, NULL, OPT_COLOR },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct options opt = { .analyze = { .how = CW_UNWIND_AUTO, .note = library_note } };
	struct cw_error err = { { 0 } };
	const char *watch = NULL, *keep = ".", *color = "auto", *list = NULL;
	const char *dirs[MAX_SYMBOL_DIRS];
	struct cw_symbols_opts so = { .dirs = dirs, .debuginfod = 1, .cache_images = 8 };
	struct firmware fw = { 0 };
	struct stat st;
	int c, i, rc = 0, follow = 0, first;
	unsigned int opened;
	char *end, whybuf[160];
	const char *why;

	for (i = 0; argc > 1 && i < (int)(sizeof(subcommands) / sizeof(subcommands[0])); i++)
		if (!strcmp(argv[1], subcommands[i].name))
			return subcommands[i].run(argc - 1, argv + 1);
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":jm:w:k:fr:R:s:b::qvhV", opts, NULL)) != -1) {
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
				fprintf(stderr, "crashwalk: --rtos: unknown RTOS '%s'; use %s\n",
					optarg, cw_rtos_kinds());
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
		case OPT_FRAME_REGS:
			opt.report.frame_regs = 1;
			break;
		case OPT_SYMBOLS:
			c = stat(optarg, &st) ? errno : S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
			if (c) {
				fprintf(stderr, "crashwalk: --symbols '%s': %s\n", optarg,
					strerror(c));
				return 2;
			}
			if (so.nr_dirs == MAX_SYMBOL_DIRS) {
				fprintf(stderr, "crashwalk: --symbols: at most %d directories\n",
					MAX_SYMBOL_DIRS);
				return 2;
			}
			dirs[so.nr_dirs++] = optarg;
			break;
		case OPT_NO_DEBUGINFOD:
			so.debuginfod = 0;
			break;
		case OPT_IMAGE_CACHE:
			so.cache_images = (unsigned int)strtoul(optarg, &end, 10);
			if (*end || !*optarg || !so.cache_images || so.cache_images > 4096) {
				fprintf(stderr, "crashwalk: --image-cache: '%s' is not a number of "
					"images from 1 to 4096\n", optarg);
				return 2;
			}
			break;
		case 'b':
			list = optarg ? optarg : "-";
			opt.report.json = 1;
			break;
		case OPT_COLOR:
			color = optarg;
			break;
		case 'q':
			verbosity = -1;
			break;
		case 'v':
			verbosity = 1;
			opt.report.proposals = 1;
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
	/* The firmware comes first when given; without it, each dump's is found by build-id. */
	first = optind < argc && is_firmware(argv[optind], follow) ? optind + 1 : optind;
	/* A lone file taken for the firmware that is none: say what it is, not "no dump". */
	if (argc == first && first > optind && !watch && !list && !follow &&
	    (why = not_firmware(argv[optind], whybuf, sizeof(whybuf)))) {
		fprintf(stderr, "crashwalk: %s: %s\nTry 'crashwalk --help'.\n", argv[optind], why);
		return 2;
	}
	if (argc == first && !watch && !list) {
		fprintf(stderr, "crashwalk: %s\nTry 'crashwalk --help'.\n",
			follow ? "no stream to follow (a tty, a pipe, a file or '-')" :
			"no dump (name one or more, or --watch DIR)");
		return 2;
	}
	/* A dump is a file: read from a terminal, crashwalk would wait for what never comes. */
	for (i = first; !follow && i < argc; i++)
		if (!strcmp(argv[i], "-") && (isatty(STDIN_FILENO) || (list && !strcmp(list, "-")))) {
			fprintf(stderr, "crashwalk: -: standard input is %s, expected a dump: "
				"crashwalk FIRMWARE.elf - <DUMP, or --follow a UART\n",
				isatty(STDIN_FILENO) ? "a terminal" : "the --batch list");
			return 2;
		}
	if (list && !strcmp(list, "-") && isatty(STDIN_FILENO)) {
		fprintf(stderr, "crashwalk: --batch: standard input is a terminal, expected the "
			"dumps' paths, one a line: find DIR -name '*.core' | crashwalk --batch\n");
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
	if (first > optind) {
		fw.given = cw_image_open(argv[optind], &err);
		if (!fw.given) {
			fprintf(stderr, "crashwalk: %s\n", err.msg);
			return 1;
		}
		if (opt.analyze.regs && cw_image_check_regblock(fw.given, opt.analyze.regs, &err)) {
			fprintf(stderr, "crashwalk: %s\n", err.msg);
			cw_image_close(fw.given);
			return 2;
		}
	} else {
		so.progress = isatty(STDERR_FILENO) && verbosity >= 0;
		fw.store = cw_symbols_new(&so);
		if (!fw.store) {
			fputs("crashwalk: out of memory\n", stderr);
			return 1;
		}
	}
	for (i = first; i < argc; i++) {
		struct watch_ctx w = { &fw, &opt, 0, 0 };

		if (!follow) {
			rc |= analyze(&fw, argv[i], NULL, 0, &opt);
		} else if (cw_follow(argv[i], verbosity > 0 ? stderr : NULL, follow_one, &w, &err)) {
			fprintf(stderr, "crashwalk: %s\n", err.msg);
			rc = 1;
		} else if (!w.dumps) {
			stderr_note("%s: the stream ended without a crash dump (no #CD: or CrashCatcher "
				    "lines)\n", strcmp(argv[i], "-") ? argv[i] : "<stdin>");
		}
		rc |= w.failed;
	}
	if (list) {
		rc |= batch(&fw, list, &opt);
		fflush(stdout);
		/* The count after the stream, where a reader of stdout does not trip on it. */
		opened = fw.store ? cw_symbols_opened(fw.store) : 1;
		stderr_note("%u dump%s, %u failed, %u firmware image%s opened\n", fw.dumps,
			    fw.dumps == 1 ? "" : "s", fw.failed, opened, opened == 1 ? "" : "s");
	}
	if (watch) {
		struct watch_ctx w = { &fw, &opt, 0, 0 };

		if (cw_watch_dir(watch, keep, watch_one, &w)) {
			fprintf(stderr, "crashwalk: %s: cannot watch: %s\n", watch, strerror(errno));
			rc = 1;
		}
	}
	cw_image_close(fw.given);
	cw_symbols_free(fw.store);
	/* A dump that names no build-id, with no firmware given: the command line lacks it. */
	return fw.no_build_id ? 2 : rc;
}
