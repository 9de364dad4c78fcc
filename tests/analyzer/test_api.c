// SPDX-License-Identifier: GPL-2.0
/*
 * test_api.c - the library as a user sees it: crashwalk.h alone, the bundled
 * crash through cw_analyze() against GDB's backtrace of it, and refusals.
 */
#include <stdlib.h>
#include <string.h>

#include "crashwalk.h"
#include "ktap.h"

#define DEMO_ELF	BUNDLED_DIR "/demo.elf"

/* GDB's backtrace of the bundled crash, from the fault handler (tests/firmware/bundled/README). */
static const char *const gdb_bt[] = {
	"hardfault_entry", "fault_bus", "do_fault", "big_locals", "recurse", "recurse",
	"pendsv_handler", "run_case", "main", "reset_handler",
};

#define GDB_NR	(sizeof(gdb_bt) / sizeof(gdb_bt[0]))

struct notes {
	char text[2048];
	unsigned int nr, errors;
};

static void collect(void *ctx, int error, const char *msg)
{
	struct notes *n = ctx;
	size_t at = strlen(n->text);

	snprintf(n->text + at, sizeof(n->text) - at, "%s\n", msg);
	n->nr++;
	n->errors += !!error;
}

static struct cw_image *demo(void)
{
	struct cw_error err = { { 0 } };
	struct cw_image *img = cw_image_open(DEMO_ELF, &err);

	KTAP_EXPECT(img, "%s", err.msg);
	return img;
}

/* Frames first..GDB_NR-1 of GDB's list, from frame 0 of a. */
static void expect_gdb(const struct cw_analysis *a, unsigned int first)
{
	struct cw_frame_info fi;
	unsigned int i, nr = cw_analysis_frames(a);

	KTAP_EXPECT(nr == GDB_NR - first, "%u frames, GDB has %zu", nr, GDB_NR - first);
	for (i = 0; i < nr && first + i < GDB_NR; i++) {
		KTAP_EXPECT(!cw_analysis_frame(a, i, &fi), "frame %u", i);
		KTAP_EXPECT(fi.function && !strcmp(fi.function, gdb_bt[first + i]),
			    "frame %u: %s, GDB: %s", i, fi.function ? fi.function : "??",
			    gdb_bt[first + i]);
	}
	KTAP_EXPECT(cw_analysis_frame(a, nr, &fi) == -1, "frame %u past the last", nr);
	KTAP_EXPECT(!strcmp(cw_analysis_stop(a), "outermost"), "stop %s", cw_analysis_stop(a));
}

/* The ELF core from its file: the handler's frame, the faulting one, its callers. */
static void core_file(void)
{
	struct cw_options o = { .how = CW_UNWIND_AUTO };
	struct cw_error err = { { 0 } };
	struct cw_image *img = demo();
	struct cw_analysis *a = NULL;
	struct cw_frame_info fi;

	if (!img)
		return;
	KTAP_EXPECT(!cw_analyze(img, &o, BUNDLED_DIR "/demo.core", NULL, 0, &a, &err), "%s",
		    err.msg);
	if (a) {
		expect_gdb(a, 0);
		/* The pc an exception interrupted is no return address; a caller's is. */
		KTAP_EXPECT(!cw_analysis_frame(a, 1, &fi) && fi.exception && !fi.return_address &&
			    fi.offset == 8 && fi.file && strstr(fi.file, "cases.c") &&
			    fi.line == 59, "frame 1: exc %d ret %d +0x%x %s:%d", fi.exception,
			    fi.return_address, fi.offset, fi.file ? fi.file : "??", fi.line);
		KTAP_EXPECT(!cw_analysis_frame(a, 2, &fi) && !fi.exception && fi.return_address,
			    "frame 2: exc %d ret %d", fi.exception, fi.return_address);
	}
	cw_analysis_free(a);
	cw_image_close(img);
}

/* The Zephyr coredump from a buffer the library takes over: the pre-exception registers. */
static void zephyr_buffer(void)
{
	struct cw_options o = { .how = CW_UNWIND_AUTO };
	struct cw_report_opts ro = { .json = 1 };
	struct cw_error err = { { 0 } };
	struct cw_image *img = demo();
	struct cw_analysis *a = NULL;
	char *json = NULL;
	uint8_t *buf;
	size_t len = 0;
	FILE *f;
	long n;

	f = fopen(BUNDLED_DIR "/demo.zephyr", "rb");
	if (!img || !f || fseek(f, 0, SEEK_END) || (n = ftell(f)) <= 0) {
		KTAP_EXPECT(0, "demo.zephyr readable");
		goto out;
	}
	rewind(f);
	buf = malloc(n);
	KTAP_EXPECT(buf && fread(buf, 1, n, f) == (size_t)n, "read demo.zephyr");
	KTAP_EXPECT(!cw_analyze(img, &o, "serial:12", buf, n, &a, &err), "%s", err.msg);
	if (a) {
		expect_gdb(a, 1);
		fclose(f);
		f = open_memstream(&json, &len);
		cw_report(f, &ro, a);
		fflush(f);
		KTAP_EXPECT(json && strstr(json, "\"path\": \"serial:12\"") &&
			    strstr(json, "\"function\": \"fault_bus\""), "%.200s", json);
		/* Its header's reason 0 (K_ERR_CPU_EXCEPTION) leaves the SCB's class. */
		KTAP_EXPECT(json && strstr(json, "\"class\": \"bus-precise\"") &&
			    strstr(json, "\"zephyr_reason\": {\"code\": 0, \"name\": "
				   "\"K_ERR_CPU_EXCEPTION\"}}"), "%.200s",
			    json ? strstr(json, "\"fault\"") : "");
	}
out:
	if (f)
		fclose(f);
	free(json);
	cw_analysis_free(a);
	cw_image_close(img);
}

/* What cannot be analyzed is refused with the dump's name and why; nothing is returned. */
static void refusals(void)
{
	struct notes n;
	struct cw_options o = { .how = CW_UNWIND_AUTO, .note = collect,
				.note_ctx = &n };
	struct cw_error err = { { 0 } };
	struct cw_image *img = demo();
	struct cw_analysis *a = NULL;

	memset(&n, 0, sizeof(n));
	if (!img)
		return;
	KTAP_EXPECT(cw_analyze(img, &o, BUNDLED_DIR, NULL, 0, &a, &err) && !a &&
		    strstr(err.msg, BUNDLED_DIR ": is a directory"), "%s", err.msg);
	/* Another firmware's dump: refused, unless allowed, when it is reported with notes. */
	KTAP_EXPECT(cw_analyze(img, &o, BUNDLED_DIR "/rtos-m4f-freertos.core", NULL, 0, &a,
			       &err) && !a && strstr(err.msg, "not a dump of " DEMO_ELF),
		    "%s", err.msg);
	o.allow_mismatch = 1;
	memset(&n, 0, sizeof(n));
	KTAP_EXPECT(!cw_analyze(img, &o, BUNDLED_DIR "/rtos-m4f-freertos.core", NULL, 0, &a,
				&err) && a, "%s", err.msg);
	KTAP_EXPECT(n.nr && !n.errors && strstr(n.text, "warning: does not match " DEMO_ELF),
		    "%u notes, %u errors: %s", n.nr, n.errors, n.text);
	cw_analysis_free(a);
	KTAP_EXPECT(!cw_image_check_regblock(img, "crash_entry:r0,pc", &err), "%s", err.msg);
	KTAP_EXPECT(cw_image_check_regblock(img, "no_such_block:r0", &err) &&
		    strstr(err.msg, "no symbol 'no_such_block' in " DEMO_ELF), "%s", err.msg);
	KTAP_EXPECT(cw_image_check_regblock(img, "crash_regs", &err) &&
		    strstr(err.msg, "expected SYMBOL:LAYOUT"), "%s", err.msg);
	/* The one --regs rule: the pipeline refuses what the check refuses. */
	KTAP_EXPECT(cw_image_check_regblock(img, "crash_entry:", &err) &&
		    strstr(err.msg, "empty LAYOUT"), "%s", err.msg);
	KTAP_EXPECT(cw_image_check_regblock(img, "crash_entry:r0,bogus", &err) &&
		    strstr(err.msg, "word 2: unknown register 'bogus'"), "%s", err.msg);
	cw_image_close(img);
}

int main(void)
{
	ktap_header("crashwalk-api");
	KTAP_RUN(core_file);
	KTAP_RUN(zephyr_buffer);
	KTAP_RUN(refusals);
	return ktap_finish();
}
