// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - crashwalk command line: options, then one report per dump; the
 * library does the work.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
	      "  -r, --regs=SYM:LAYOUT   registers of a dump without them, from a crash record\n"
	      "  -R, --rtos=KIND         auto, none, freertos or zephyr (default auto)\n"
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
	enum cw_unwinder how;
	struct cw_report_opts report;
	const char *regs;	/* --regs SYMBOL:LAYOUT for dumps without registers */
	struct cw_regs sp;	/* --sp: stack pointers given by hand */
	enum cw_rtos_kind rtos;	/* whose threads to list after the crash backtrace */
	const char *firmware;
	int allow_mismatch;	/* a dump that contradicts the firmware is reported, not refused */
};

/*
 * A dump that cannot be analyzed: the message on stderr and, with --json, an
 * error object in the JSON-lines stream, so a pipeline reading stdout sees it.
 */
static int dump_failed(const struct options *opt, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int dump_failed(const struct options *opt, const char *path, const char *fmt, ...)
{
	char msg[sizeof(((struct cw_error *)0)->msg) + 256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "crashwalk: %s\n", msg);
	cw_report_error(stdout, &opt->report, strcmp(path, "-") ? path : "<stdin>", msg);
	return 1;
}

/*
 * A dump without registers: start from the innermost exception frame in its
 * memory. A dump with the interrupted registers but no stack pointer: find the
 * frame that holds them.
 */
static int find_registers(const struct cw_target *t, struct cw_dump *d, const char *path,
			  const struct options *opt, struct cw_search *found)
{
	uint32_t at, cfsr;

	if (d->context != CW_CTX_MEMORY_ONLY) {
		if (cw_find_exception_frame(t, d, &at, found))
			return dump_failed(opt, path, "%s: no stack pointer, and no exception frame "
					   "in memory holds the dump's registers; give it with --sp",
					   path);
		note("%s: no stack pointer; the dump's registers are the exception frame at "
		     "0x%08x\n", path, at);
		return 0;
	}

	/* Any frame a search finds would be older than the crash: refuse rather than mislead. */
	if (!cw_mem_read32(t->mem, CW_SCB_CFSR, &cfsr) && (cfsr & CW_CFSR_STACKING))
		return dump_failed(opt, path, "%s: no registers, and exception stacking failed "
				   "(CFSR 0x%08x): the crash's own frame was never written; give "
				   "the registers with --regs", path, cfsr);
	if (cw_find_exception_frame(t, d, &at, found))
		return dump_failed(opt, path, "%s: no registers and no exception frame in memory "
				   "with a complete chain above it%s", path,
				   d->regs.valid ? " (none was looked for below the stack pointers "
				   "given with --sp)" : "");
	note("%s: no registers; using the exception frame at 0x%08x\n", path, at);
	return 0;
}

/*
 * A dump the firmware contradicts: every difference on stderr, then refused
 * unless --allow-mismatch, when the report carries them as warnings.
 */
static int refuse_mismatch(const struct cw_match *m, const char *path, const struct options *opt)
{
	unsigned int i;
	int rc;

	if (opt->allow_mismatch) {
		for (i = 0; i < m->nr; i++)
			note("%s: warning: does not match %s: %s\n", path, opt->firmware, m->lines[i]);
		return 0;
	}
	rc = dump_failed(opt, path, "%s: not a dump of %s (--allow-mismatch reports it "
			 "anyway): %s%s", path, opt->firmware, m->lines[0],
			 m->nr > 1 ? "; more below" : "");
	for (i = 1; i < m->nr; i++)
		fprintf(stderr, "crashwalk: %s: does not match %s: %s\n", path, opt->firmware,
			m->lines[i]);
	return rc;
}

/* --sp: a value given by hand replaces the dump's (a writer may have recorded a wrong one). */
static void use_given_sp(struct cw_dump *d, const struct cw_regs *given)
{
	unsigned int i;

	for (i = 0; i < CW_NR_REGS; i++)
		if (cw_reg_ok(given, (enum cw_reg)i))
			d->regs.r[i] = given->r[i];
	d->regs.valid |= given->valid;
}

/* Read DUMP ("-": standard input); a directory or an empty file is named as such. */
static int load_dump(struct cw_dump *d, const char *path, struct cw_error *err)
{
	struct stat st;

	if (strcmp(path, "-") && !stat(path, &st)) {
		if (S_ISDIR(st.st_mode))
			return cw_fail(err, path, -1, "is a directory, expected a crash dump");
		if (S_ISREG(st.st_mode) && !st.st_size)
			return cw_fail(err, path, -1, "empty file, expected a crash dump");
	}
	return cw_dump_load(d, path, err);
}

/* The dump at path, or, when buf is not NULL, in buf (malloc'ed, taken over) under that name. */
static int analyze(struct cw_image *img, const char *path, uint8_t *buf, size_t len,
		   const struct options *opt)
{
	struct cw_error err = { { 0 } };
	struct cw_report_opts ropt = opt->report;
	struct cw_search_hints hints;
	struct cw_search found = { 0 };
	struct cw_rtos rtos = { 0 };
	struct cw_match match;
	struct cw_bounds ends;
	struct cw_backtrace *bt;
	struct cw_target t;
	struct cw_fault f;
	struct cw_dump d;
	unsigned int ff;
	int rc = 1;

	memset(&d, 0, sizeof(d));
	bt = calloc(1, sizeof(*bt));
	if (!bt)
		return dump_failed(opt, path, "%s: out of memory", path);
	if (verbosity > 0)
		note("reading %s\n", path);
	if (buf ? cw_dump_parse(&d, path, buf, len, &err) : load_dump(&d, path, &err)) {
		dump_failed(opt, path, "%s", err.msg);
		goto out;
	}
	cw_image_gaps(img, &d);
	if (cw_image_add_memory(img, &d.mem)) {
		dump_failed(opt, path, "%s: out of memory", path);
		goto out;
	}
	/* The crash's chain ends where the RTOS started the thread, as each thread's does. */
	cw_rtos_bounds(img, opt->rtos, &ends);
	t = (struct cw_target){ .mem = &d.mem, .img = img, .bounds = &ends };
	use_given_sp(&d, &opt->sp);
	if (d.context != CW_CTX_MEMORY_ONLY && opt->regs)
		note("%s: the dump has its registers; --regs is not used\n", d.path);
	if (d.context == CW_CTX_MEMORY_ONLY && opt->regs &&
	    cw_regs_from_record(&t, &d, opt->regs, &err)) {
		dump_failed(opt, path, "%s", err.msg);
		goto out;
	}
	/* A stack pointer the walk may need is missing: say where the stacks are. */
	if (!cw_reg_ok(&d.regs, CW_PSP) || !cw_reg_ok(&d.regs, CW_MSP) ||
	    !cw_reg_ok(&d.regs, CW_SP)) {
		cw_stack_hints(&t, &d, opt->rtos, opt->how, &hints);
		t.hints = &hints;
	}
	if ((d.context == CW_CTX_MEMORY_ONLY || !cw_reg_ok(&d.regs, CW_SP)) &&
	    find_registers(&t, &d, d.path, opt, &found))
		goto out;
	t.found = &found;
	cw_unwind(&t, &d.regs, d.context, opt->how, bt);
	cw_symbolize(img, bt);
	ff = cw_fault_frame(d.context, bt);
	/* Never the handler's own instruction: only a frame the fault interrupted. */
	cw_fault_decode(&d.mem, ff < bt->nr ? bt->frames[ff].pc : 0, ff < bt->nr, &f);
	if (cw_match(&t, &d, bt, &f, &match) && refuse_mismatch(&match, d.path, opt))
		goto out;
	if (cw_rtos_threads(&t, &d, bt, &f, opt->rtos, opt->how, &rtos))
		note("%s: no %s kernel objects in the firmware\n", d.path, cw_rtos_name(opt->rtos));
	ropt.rtos = &rtos;
	ropt.match = &match;
	cw_report(stdout, &ropt, &d, bt, &f);
	rc = 0;
out:
	cw_rtos_free(&rtos);
	cw_dump_free(&d);
	free(bt);
	return rc;
}

struct watch_ctx {
	struct cw_image *img;
	const struct options *opt;
	int failed;		/* a followed stream had a dump that could not be analyzed */
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

	if (sd->text)
		w->failed |= analyze(w->img, sd->name, sd->text, sd->len, w->opt);
	else
		w->failed |= dump_failed(w->opt, sd->name, "%s", sd->why);
	fflush(stdout);
	return 0;
}

/*
 * The firmware image, checked before libelf sees it: a missing file gives the
 * errno text, a file that is no ELF says so, instead of libelf's "invalid
 * `Elf' handle".
 */
static int check_firmware(const char *path)
{
	unsigned char id[EI_NIDENT + 4];
	struct stat st;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "crashwalk: %s: cannot open firmware image: %s\n", path,
			strerror(errno));
		return -1;
	}
	if (!fstat(fd, &st) && S_ISDIR(st.st_mode)) {
		fprintf(stderr, "crashwalk: %s: is a directory, expected a firmware ELF image\n",
			path);
		close(fd);
		return -1;
	}
	n = read(fd, id, sizeof(id));
	close(fd);
	if (n < 0)
		fprintf(stderr, "crashwalk: %s: %s\n", path, strerror(errno));
	else if (n == 0)
		fprintf(stderr, "crashwalk: %s: empty file, expected a firmware ELF image\n", path);
	else if (n < SELFMAG || memcmp(id, ELFMAG, SELFMAG))
		fprintf(stderr, "crashwalk: %s: offset 0: not an ELF file; the firmware image "
			"is the ELF the linker wrote\n", path);
	else if (n <= EI_CLASS || id[EI_CLASS] != ELFCLASS32)
		fprintf(stderr, "crashwalk: %s: offset %d: a 64-bit ELF, expected a 32-bit ARM "
			"firmware image\n", path, EI_CLASS);
	else if (n < EI_NIDENT + 4 || id[EI_DATA] != ELFDATA2LSB ||
		 (id[EI_NIDENT + 2] | id[EI_NIDENT + 3] << 8) != EM_ARM)
		fprintf(stderr, "crashwalk: %s: offset %d: not a little-endian ARM ELF "
			"(e_machine %u)\n", path, EI_NIDENT + 2,
			n < EI_NIDENT + 4 ? 0 : id[EI_NIDENT + 2] | id[EI_NIDENT + 3] << 8);
	else
		return 0;
	return -1;
}

/* --regs SYMBOL:LAYOUT: the symbol must be in the firmware, whether a dump needs it or not. */
static int check_regs(const struct cw_image *img, const char *spec, const char *fw)
{
	const char *colon = strchr(spec, ':');
	char sym[128];
	uint32_t addr;

	if (!colon || colon == spec || !colon[1] || (size_t)(colon - spec) >= sizeof(sym)) {
		fprintf(stderr, "crashwalk: --regs '%s': expected SYMBOL:LAYOUT, e.g. "
			"crash_record:r0,r1,r2,r3,r12,lr,pc,xpsr\n", spec);
		return -1;
	}
	memcpy(sym, spec, colon - spec);
	sym[colon - spec] = '\0';
	if (cw_image_lookup(img, sym, &addr)) {
		fprintf(stderr, "crashwalk: --regs '%s': no symbol '%s' in %s\n", spec, sym, fw);
		return -1;
	}
	return 0;
}

/* --color=WHEN; auto follows https://no-color.org, TERM=dumb and whether stdout is a terminal. */
static int parse_color(const char *when, int *color)
{
	const char *no_color = getenv("NO_COLOR"), *term = getenv("TERM");

	if (!when || !strcmp(when, "always")) {
		*color = 1;
	} else if (!strcmp(when, "never")) {
		*color = 0;
	} else if (!strcmp(when, "auto")) {
		*color = isatty(STDOUT_FILENO) && !(no_color && *no_color) &&
			 !(term && !strcmp(term, "dumb"));
	} else {
		fprintf(stderr, "crashwalk: --color: unknown value '%s'; use auto, always or "
			"never\n", when);
		return -1;
	}
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
	struct options opt = { .how = CW_UNWIND_AUTO };
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
			if (cw_unwinder_parse(optarg, &opt.how)) {
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
			opt.regs = optarg;
			break;
		case 'R':
			if (cw_rtos_parse(optarg, &opt.rtos)) {
				fprintf(stderr, "crashwalk: --rtos: unknown RTOS '%s'; use auto, "
					"none, freertos or zephyr\n", optarg);
				return 2;
			}
			break;
		case OPT_ALLOW_MISMATCH:
			opt.allow_mismatch = 1;
			break;
		case 's':
			if (cw_sp_parse(optarg, &opt.sp, &err)) {
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
	if (parse_color(color, &opt.report.color))
		return 2;
	if (follow && watch) {
		fprintf(stderr, "crashwalk: --follow and --watch: one at a time (a stream may "
			"never end)\n");
		return 2;
	}
	if (argc - optind < (watch ? 1 : 2)) {
		fprintf(stderr, "crashwalk: %s\n", argc == optind ? "no firmware image" :
			follow ? "no stream to follow (a tty, a pipe, a file or '-')" :
			"no dump (name one or more, or --watch DIR)");
		usage(stderr);
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
	opt.firmware = argv[optind];
	if (check_firmware(argv[optind]))
		return 1;
	img = cw_image_open(argv[optind], &err);
	if (!img) {
		fprintf(stderr, "crashwalk: %s\n", err.msg);
		return 1;
	}
	if (opt.regs && check_regs(img, opt.regs, argv[optind])) {
		cw_image_close(img);
		return 2;
	}
	for (i = optind + 1; i < argc; i++) {
		struct watch_ctx w = { img, &opt, 0 };

		if (!follow) {
			rc |= analyze(img, argv[i], NULL, 0, &opt);
		} else if (cw_follow(argv[i], verbosity > 0 ? stderr : NULL, follow_one, &w, &err)) {
			fprintf(stderr, "crashwalk: %s\n", err.msg);
			rc = 1;
		}
		rc |= w.failed;
	}
	if (watch) {
		struct watch_ctx w = { img, &opt, 0 };

		if (cw_watch_dir(watch, keep, watch_one, &w)) {
			fprintf(stderr, "crashwalk: %s: cannot watch: %s\n", watch, strerror(errno));
			rc = 1;
		}
	}
	cw_image_close(img);
	return rc;
}
