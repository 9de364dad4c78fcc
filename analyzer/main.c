// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - crashwalk command line: options, then one report per dump; the
 * library does the work.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "crashwalk.h"

static void usage(FILE *out)
{
	fputs("usage: crashwalk [--json] [--method auto|cfi|ehabi|prologue|fp|scan]\n"
	      "                 [--regs SYM:LAYOUT] [--rtos auto|none|freertos|zephyr]\n"
	      "                 FIRMWARE.elf DUMP...\n"
	      "       crashwalk [--json] [--method M] [--regs ...] [--rtos ...] --watch DIR\n"
	      "                 [--keep DIR] FIRMWARE.elf\n"
	      "Unwind and explain Cortex-M crash dumps (ELF core, Zephyr coredump or #CD: log,\n"
	      "CrashCatcher, remoteproc ELF). See crashwalk(1).\n", out);
}

/* A dump without registers: start from the innermost exception frame in its memory. */
static int find_registers(const struct cw_target *t, struct cw_dump *d, const char *path)
{
	uint32_t at, cfsr;

	/* Any frame a search finds would be older than the crash: refuse rather than mislead. */
	if (!cw_mem_read32(t->mem, CW_SCB_CFSR, &cfsr) && (cfsr & CW_CFSR_STACKING)) {
		fprintf(stderr, "crashwalk: %s: no registers, and exception stacking failed "
			"(CFSR 0x%08x): the crash's own frame was never written; give the "
			"registers with --regs\n", path, cfsr);
		return -1;
	}
	if (cw_find_exception_frame(t, d, &at)) {
		fprintf(stderr, "crashwalk: %s: no registers and no exception frame in memory\n",
			path);
		return -1;
	}
	fprintf(stderr, "crashwalk: %s: no registers; using the exception frame at 0x%08x\n",
		path, at);
	return 0;
}

struct options {
	enum cw_unwinder how;
	struct cw_report_opts report;
	const char *regs;	/* --regs SYMBOL:LAYOUT for dumps without registers */
	enum cw_rtos_kind rtos;	/* whose threads to list after the crash backtrace */
};

static int analyze(struct cw_image *img, const char *path, const struct options *opt)
{
	struct cw_error err = { { 0 } };
	struct cw_report_opts ropt = opt->report;
	struct cw_rtos rtos = { 0 };
	struct cw_backtrace *bt;
	struct cw_target t;
	struct cw_fault f;
	struct cw_dump d;
	unsigned int ff;
	int rc = 1;

	bt = calloc(1, sizeof(*bt));
	if (!bt) {
		fprintf(stderr, "crashwalk: %s: out of memory\n", path);
		return 1;
	}
	if (cw_dump_load(&d, path, &err)) {
		fprintf(stderr, "crashwalk: %s\n", err.msg);
		goto out;
	}
	cw_image_gaps(img, &d);
	if (cw_image_add_memory(img, &d.mem)) {
		fprintf(stderr, "crashwalk: %s: out of memory\n", path);
		goto out;
	}
	t = (struct cw_target){ .mem = &d.mem, .img = img };
	if (d.context == CW_CTX_MEMORY_ONLY && opt->regs &&
	    cw_regs_from_record(&t, &d, opt->regs, &err)) {
		fprintf(stderr, "crashwalk: %s\n", err.msg);
		goto out;
	}
	if (d.context == CW_CTX_MEMORY_ONLY && find_registers(&t, &d, path))
		goto out;
	cw_unwind(&t, &d, opt->how, bt);
	ff = cw_fault_frame(&d, bt);
	cw_fault_decode(&d.mem, bt->nr ? bt->frames[ff].pc : 0, bt->nr > 0, &f);
	if (cw_rtos_threads(&t, &d, bt, &f, opt->rtos, opt->how, &rtos))
		fprintf(stderr, "crashwalk: %s: no %s kernel objects in the firmware\n", path,
			cw_rtos_name(opt->rtos));
	ropt.rtos = &rtos;
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
};

/* A dump that cannot be read is reported and the watch goes on. */
static int watch_one(void *p, const char *path)
{
	struct watch_ctx *w = p;

	analyze(w->img, path, w->opt);
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "method", required_argument, NULL, 'm' },
		{ "watch", required_argument, NULL, 'w' },
		{ "keep", required_argument, NULL, 'k' },
		{ "regs", required_argument, NULL, 'r' },
		{ "rtos", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct options opt = { .how = CW_UNWIND_AUTO };
	struct cw_error err = { { 0 } };
	const char *watch = NULL, *keep = ".";
	struct cw_image *img;
	int c, i, rc = 0;

	while ((c = getopt_long(argc, argv, "jm:w:k:r:R:h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			opt.report.json = 1;
			break;
		case 'm':
			if (cw_unwinder_parse(optarg, &opt.how)) {
				fprintf(stderr, "crashwalk: unknown method '%s'\n", optarg);
				return 2;
			}
			break;
		case 'w':
			watch = optarg;
			break;
		case 'k':
			keep = optarg;
			break;
		case 'r':
			opt.regs = optarg;
			break;
		case 'R':
			if (cw_rtos_parse(optarg, &opt.rtos)) {
				fprintf(stderr, "crashwalk: unknown RTOS '%s'\n", optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (argc - optind < (watch ? 1 : 2)) {
		usage(stderr);
		return 2;
	}
	img = cw_image_open(argv[optind], &err);
	if (!img) {
		fprintf(stderr, "crashwalk: %s\n", err.msg);
		return 1;
	}
	for (i = optind + 1; i < argc; i++)
		rc |= analyze(img, argv[i], &opt);
	if (watch) {
		struct watch_ctx w = { img, &opt };

		if (cw_watch_dir(watch, keep, watch_one, &w)) {
			fprintf(stderr, "crashwalk: %s: cannot watch: %s\n", watch, strerror(errno));
			rc = 1;
		}
	}
	cw_image_close(img);
	return rc;
}
