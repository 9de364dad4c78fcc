// SPDX-License-Identifier: GPL-2.0
/*
 * test_readers.c - crashwalk's dump readers on inputs built from the format
 * specs (GDB's ARM ELF core, Zephyr coredump, CrashCatcher), valid and broken;
 * broken input must give an error that names the offset, never a crash.
 */
#include <zlib.h>

#include "cw_test.h"

#define RAM	0x20000000u

/* ---- ELF32 ARM core as GDB lays it out ---- */

struct core_opts {
	uint16_t machine;
	uint16_t phnum_extra;		/* claim more program headers than there are */
	uint32_t prstatus_size;
	int with_stacks_note;		/* 1: version 1; 2: version 2, the v8-M banked sps too */
	uint32_t load_size_extra;	/* claim a longer PT_LOAD than the file holds */
};

/* Parses the whole of t into d, which must succeed. */
#define EXPECT_PARSED(t, d)							\
	do {									\
		struct cw_error err_;						\
										\
		KTAP_EXPECT(tb_parse(t, (t)->n, d, &err_) == 0, "%s", err_.msg);	\
	} while (0)

static void build_core(struct tbuf *t, const struct core_opts *o)
{
	uint32_t notes_off = 52 + 2 * 32, notes_size, load_off, i;
	uint32_t prs = o->prstatus_size ? o->prstatus_size : 148;

	notes_size = 12 + 8 + ((prs + 3) & ~3u) +
		     (o->with_stacks_note ? 12 + 12 + (o->with_stacks_note == 2 ? 32 : 16) : 0);
	load_off = notes_off + notes_size;
	memset(t, 0, sizeof(*t));
	tb_bytes(t, "\177ELF\1\1\1", 7);
	t->n = 16;
	tb_u16(t, 4);				/* ET_CORE */
	tb_u16(t, o->machine ? o->machine : 40);
	tb_u32(t, 1);
	tb_u32(t, 0);
	tb_u32(t, 52);				/* e_phoff */
	tb_u32(t, 0);
	tb_u32(t, 0);
	tb_u16(t, 52);
	tb_u16(t, 32);
	tb_u16(t, 2 + o->phnum_extra);
	tb_u16(t, 40);
	tb_u32(t, 0);
	/* PT_NOTE, PT_LOAD */
	tb_u32(t, 4); tb_u32(t, notes_off); tb_u32(t, 0); tb_u32(t, 0);
	tb_u32(t, notes_size); tb_u32(t, 0); tb_u32(t, 0); tb_u32(t, 4);
	tb_u32(t, 1); tb_u32(t, load_off); tb_u32(t, RAM); tb_u32(t, RAM);
	tb_u32(t, 64 + o->load_size_extra); tb_u32(t, 64); tb_u32(t, 6); tb_u32(t, 4);
	/* NT_PRSTATUS "CORE": pr_reg at 72 holds r0-r15, xPSR at 136 */
	tb_u32(t, 5); tb_u32(t, prs); tb_u32(t, 1);
	tb_bytes(t, "CORE\0\0\0", 8);
	for (i = 0; i < 72; i++)
		tb_u8(t, 0);
	for (i = 0; i < 16 && 72 + 4 * i + 4 <= prs; i++)
		tb_u32(t, 0x1000 + i);
	if (prs >= 148) {
		tb_u32(t, 0x21000003);		/* xPSR */
		tb_u32(t, 0);
		t->n += ((prs + 3) & ~3u) - 144;
	}
	if (o->with_stacks_note) {
		tb_u32(t, 10); tb_u32(t, o->with_stacks_note == 2 ? 32 : 16); tb_u32(t, 1);
		tb_bytes(t, "CRASHWALK\0\0", 12);
		tb_u32(t, o->with_stacks_note); tb_u32(t, RAM + 0x100); tb_u32(t, RAM + 0x80);
		tb_u32(t, 2);
		for (i = 0; o->with_stacks_note == 2 && i < 4; i++)
			tb_u32(t, RAM + 0x10 * i);	/* msp_s, psp_s, msp_ns, psp_ns */
	}
	for (i = 0; i < 16; i++)
		tb_u32(t, 0xA0A00000 + i);
}

static void elf_core_valid(void)
{
	struct core_opts o = { .with_stacks_note = 1 };
	struct cw_dump d;
	struct tbuf *t = calloc(1, sizeof(*t));
	uint32_t v = 0;

	build_core(t, &o);
	EXPECT_PARSED(t, &d);
	KTAP_EXPECT(d.format == CW_FMT_ELF_CORE, "format %d", d.format);
	KTAP_EXPECT(d.regs.r[CW_R0] == 0x1000 && d.regs.r[CW_PC] == 0x100f, "pc 0x%x",
		    d.regs.r[CW_PC]);
	KTAP_EXPECT(d.regs.r[CW_XPSR] == 0x21000003, "xpsr 0x%x", d.regs.r[CW_XPSR]);
	KTAP_EXPECT(cw_reg_ok(&d.regs, CW_PSP) && d.regs.r[CW_PSP] == RAM + 0x80, "psp");
	KTAP_EXPECT(cw_mem_read32(&d.mem, RAM + 8, &v) == 0 && v == 0xA0A00002, "mem 0x%x", v);
	KTAP_EXPECT(cw_mem_read32(&d.mem, RAM + 64, &v) != 0, "read past the segment succeeded");
	KTAP_EXPECT(!cw_reg_ok(&d.regs, CW_MSP_NS), "version 1 note gave banked sps");
	cw_dump_free(&d);

	/* Version 2 adds both security states' stack pointers. */
	o.with_stacks_note = 2;
	build_core(t, &o);
	EXPECT_PARSED(t, &d);
	KTAP_EXPECT(cw_reg_ok(&d.regs, CW_PSP_NS) && d.regs.r[CW_MSP_S] == RAM &&
		    d.regs.r[CW_PSP_NS] == RAM + 0x30 && d.regs.r[CW_PSP] == RAM + 0x80,
		    "v2 banked sps 0x%x 0x%x", d.regs.r[CW_MSP_S], d.regs.r[CW_PSP_NS]);
	cw_dump_free(&d);
	free(t);
}

static void expect_error(struct tbuf *t, size_t len, const char *want_offset, const char *want)
{
	struct cw_error err;
	struct cw_dump d;

	KTAP_EXPECT(tb_parse(t, len, &d, &err) != 0, "accepted broken input");
	KTAP_EXPECT(strstr(err.msg, "test.dump") != NULL, "no file name: %s", err.msg);
	KTAP_EXPECT(!want_offset || strstr(err.msg, want_offset), "want '%s' in: %s", want_offset,
		    err.msg);
	KTAP_EXPECT(!want || strstr(err.msg, want), "want '%s' in: %s", want, err.msg);
	cw_dump_free(&d);
}

static void elf_core_errors(void)
{
	struct tbuf *t = calloc(1, sizeof(*t));
	struct core_opts o = { 0 };

	o.machine = 3;
	build_core(t, &o);
	expect_error(t, t->n, "offset 18 ", "EM_ARM");
	o = (struct core_opts){ .phnum_extra = 3000 };
	build_core(t, &o);
	expect_error(t, t->n, "offset 28 ", "program headers");
	o = (struct core_opts){ .load_size_extra = 0x10000 };
	build_core(t, &o);
	expect_error(t, t->n, "offset 84 ", "past the end");
	o = (struct core_opts){ .prstatus_size = 100 };
	build_core(t, &o);
	expect_error(t, t->n, NULL, "NT_PRSTATUS");
	build_core(t, &(struct core_opts){ 0 });
	expect_error(t, 40, NULL, "truncated");
	free(t);
}

/* ---- Zephyr coredump ---- */

static void zephyr_header(struct tbuf *t, uint16_t ver, uint8_t flag)
{
	memset(t, 0, sizeof(*t));
	tb_bytes(t, "ZE", 2);
	tb_u16(t, ver);
	tb_u16(t, 3);		/* ARM Cortex-M */
	tb_u8(t, 5);		/* 32-bit pointers */
	tb_u8(t, flag);
	tb_u32(t, 4);		/* K_ERR_KERNEL_PANIC */
}

static void zephyr_arch(struct tbuf *t, uint16_t ver)
{
	uint32_t i, words = ver >= 2 ? 17 : 9;

	tb_u8(t, 'A');
	tb_u16(t, ver);
	tb_u16(t, 4 * words);
	/* r0 r1 r2 r3 r12 lr pc xpsr sp, then r4-r11 */
	for (i = 0; i < words; i++)
		tb_u32(t, 0x100 + i);
}

static void zephyr_mem(struct tbuf *t, uint32_t start, uint32_t n)
{
	uint32_t i;

	tb_u8(t, 'M');
	tb_u16(t, 1);
	tb_u32(t, start);
	tb_u32(t, start + n);
	for (i = 0; i < n; i++)
		tb_u8(t, i);
}

static void zephyr_crc(struct tbuf *t)
{
	uint32_t crc = (uint32_t)crc32(0, t->b, (uInt)t->n);	/* zlib: the independent CRC */

	tb_u8(t, 'C');
	tb_u16(t, 1);
	tb_u32(t, crc);
}

/* A whole version 2 dump with its CRC: header, arch block, n bytes of RAM. */
static void zephyr_v2(struct tbuf *t, uint32_t n)
{
	zephyr_header(t, 2, 1);
	zephyr_arch(t, 2);
	zephyr_mem(t, RAM, n);
	zephyr_crc(t);
}

static void zephyr_v1(void)
{
	struct tbuf *t = calloc(1, sizeof(*t));
	struct cw_dump d;
	uint32_t v = 0;

	zephyr_header(t, 1, 0);
	zephyr_arch(t, 1);
	zephyr_mem(t, RAM, 32);
	EXPECT_PARSED(t, &d);
	KTAP_EXPECT(d.regs.r[CW_R12] == 0x104 && d.regs.r[CW_LR] == 0x105, "r12/lr order");
	KTAP_EXPECT(d.regs.r[CW_PC] == 0x106 && d.regs.r[CW_SP] == 0x108, "pc/sp order");
	KTAP_EXPECT(!cw_reg_ok(&d.regs, CW_R4), "v1 arch block has no r4");
	KTAP_EXPECT(d.reason == 4, "reason %u", d.reason);
	KTAP_EXPECT(cw_mem_read32(&d.mem, RAM + 4, &v) == 0 && v == 0x07060504, "mem 0x%x", v);
	cw_dump_free(&d);
	free(t);
}

static void zephyr_v2_crc(void)
{
	struct tbuf *t = calloc(1, sizeof(*t));
	struct cw_dump d;
	size_t n;

	zephyr_v2(t, 64);
	EXPECT_PARSED(t, &d);
	KTAP_EXPECT(d.regs.r[CW_R4] == 0x109 && d.regs.r[CW_R11] == 0x110, "r4-r11");
	cw_dump_free(&d);

	n = t->n;
	t->b[40] ^= 1;
	expect_error(t, n, NULL, "CRC mismatch");
	t->b[40] ^= 1;
	expect_error(t, n - 7, NULL, "CRC trailer");
	free(t);
}

static void zephyr_errors(void)
{
	struct tbuf *t = calloc(1, sizeof(*t));
	size_t at;

	zephyr_header(t, 3, 0);
	expect_error(t, t->n, "offset 2 ", "version");
	zephyr_header(t, 2, 0);
	t->b[4] = 9;
	expect_error(t, t->n, "offset 4 ", "target");
	zephyr_header(t, 2, 0);
	zephyr_arch(t, 2);
	at = t->n;
	zephyr_mem(t, RAM, 64);
	expect_error(t, t->n - 10, NULL, "overruns");
	tb_put32(t, at + 7, RAM - 4);		/* end below start */
	expect_error(t, t->n, "offset ", "below start");
	zephyr_header(t, 2, 0);
	tb_u8(t, 'Q');
	expect_error(t, t->n, "offset 12 ", "unknown block");
	zephyr_header(t, 2, 0);
	zephyr_mem(t, RAM, 4);
	expect_error(t, t->n, NULL, "no arch block");
	free(t);
}

/*
 * The dump in bin as the log transport writes it, after Zephyr's log prefix,
 * each line between on and off (the log colours' escapes, or nothing).
 */
static size_t cd_log(char *text, const struct tbuf *bin, const char *on, const char *off)
{
	static const char prefix[] = "[00:00:01.000,000] <err> coredump: #CD:";
	size_t i, k, n;

	n = sprintf(text, "[00:00:01.000,000] <err> os: boom\n");
	n += sprintf(text + n, "%s%sBEGIN#%s\r\n", on, prefix, off);
	for (i = 0; i < bin->n; i += 16) {
		n += sprintf(text + n, "%s%s", on, prefix);
		for (k = i; k < i + 16 && k < bin->n; k++)
			n += sprintf(text + n, "%02x", bin->b[k]);
		n += sprintf(text + n, "%s\r\n", off);
	}
	n += sprintf(text + n, "%s%sEND#%s\r\n", on, prefix, off);
	return n;
}

static int parse_log(const char *text, size_t n, struct cw_dump *d, struct cw_error *err)
{
	uint8_t *copy = malloc(n);

	memcpy(copy, text, n);
	err->msg[0] = 0;
	return cw_dump_parse(d, "test.log", copy, n, err);
}

static void zephyr_log(void)
{
	struct tbuf *bin = calloc(1, sizeof(*bin));
	static char text[8192];
	struct cw_dump d;
	struct cw_error err;
	size_t n;

	zephyr_v2(bin, 40);
	n = cd_log(text, bin, "", "");
	KTAP_EXPECT(parse_log(text, n, &d, &err) == 0, "%s", err.msg);
	KTAP_EXPECT(d.format == CW_FMT_ZEPHYR && d.regs.r[CW_PC] == 0x106, "decoded log");
	cw_dump_free(&d);
	/* Without its END line the dump may be cut short: refuse it. */
	KTAP_EXPECT(parse_log(text, n - 11, &d, &err) != 0 && strstr(err.msg, "#CD:END#"), "%s",
		    err.msg);
	cw_dump_free(&d);

	/* Zephyr's default log colours: escape sequences around each line, after the hex too. */
	n = cd_log(text, bin, "\033[1;31m", "\033[0m");
	KTAP_EXPECT(parse_log(text, n, &d, &err) == 0 && d.regs.r[CW_PC] == 0x106,
		    "coloured log: %s", err.msg);
	cw_dump_free(&d);
	/* A stray byte that is neither a hex digit nor in an escape is still refused. */
	strstr(strstr(text, "#CD:") + 4, "#CD:")[8] = 'g';
	KTAP_EXPECT(parse_log(text, n, &d, &err) != 0 && strstr(err.msg, "bad hex digit"), "%s",
		    err.msg);
	cw_dump_free(&d);
	free(bin);
}

/* Zephyr's svc path (k_panic, k_oops) records no stack pointer: an sp of 0 is none. */
static void zephyr_no_sp(void)
{
	struct tbuf *t = calloc(1, sizeof(*t));
	struct cw_error err;
	struct cw_dump d;
	uint32_t i;

	zephyr_header(t, 2, 0);
	tb_u8(t, 'A');
	tb_u16(t, 2);
	tb_u16(t, 4 * 17);
	for (i = 0; i < 17; i++)
		tb_u32(t, i == 8 ? 0 : 0x100 + i);
	zephyr_mem(t, RAM, 4);
	KTAP_EXPECT(tb_parse(t, t->n, &d, &err) == 0 &&
		    cw_reg_ok(&d.regs, CW_PC) && !cw_reg_ok(&d.regs, CW_SP), "%s", err.msg);
	cw_dump_free(&d);
	free(t);
}

/*
 * ---- Zephyr's fatal error reason, as the report shows it ----
 *
 * The numbers are Zephyr's own, not crashwalk's table: enum
 * k_fatal_error_reason (include/zephyr/fatal_types.h) counts 0 CPU exception,
 * 1 spurious IRQ, 2 stack check failure, 3 oops, 4 panic; enum
 * k_fatal_error_reason_arch (include/zephyr/arch/arm/arch.h) starts at
 * K_ERR_ARCH_START = 16 with six MEM_, seven BUS_ and eight USAGE_ reasons,
 * so 17 is K_ERR_ARM_MEM_STACKING and 26 K_ERR_ARM_BUS_IMPRECISE_DATA_BUS.
 */

#define DEMO_ELF	BUNDLED_DIR "/demo.elf"
#define SCB_BASE	0xE000ED00u
#define NO_SCB		(~0u)

/*
 * A Zephyr dump of demo.elf stopped at fault_bus's load (pc 0x64c) with the
 * given reason in the header's reason word (coredump_hdr_t.reason, offset 8);
 * unless cfsr is NO_SCB, the SCB is dumped too, CFSR at +0x28, HFSR at +0x2c.
 */
static void zephyr_reason_dump(struct tbuf *t, uint32_t reason, uint32_t cfsr, uint32_t hfsr)
{
	static const uint32_t regs[9] = {	/* r0 r1 r2 r3 r12 lr pc xpsr sp */
		0, 0, 0, 0xf0000000, 0, 0x783, 0x64c, 0x01000000, RAM + 0x100,
	};
	uint32_t i;

	zephyr_header(t, 1, 0);
	tb_put32(t, 8, reason);
	tb_u8(t, 'A');
	tb_u16(t, 1);
	tb_u16(t, sizeof(regs));
	for (i = 0; i < 9; i++)
		tb_u32(t, regs[i]);
	tb_u8(t, 'M');
	tb_u16(t, 1);
	tb_u32(t, RAM + 0x80);
	tb_u32(t, RAM + 0x180);
	for (i = 0; i < 0x100 / 4; i++)
		tb_u32(t, 0);
	if (cfsr == NO_SCB)
		return;
	tb_u8(t, 'M');
	tb_u16(t, 1);
	tb_u32(t, SCB_BASE);
	tb_u32(t, SCB_BASE + 0x40);
	for (i = 0; i < 0x40; i += 4)
		tb_u32(t, i == 0x28 ? cfsr : i == 0x2c ? hfsr : i == 0x38 ? 0xf0000000 : 0);
}

/* The text or JSON report of t against demo.elf, malloc'ed; NULL when refused. */
static char *zephyr_reason_report(struct cw_image *img, const struct tbuf *t, int json)
{
	struct cw_options o = { .how = CW_UNWIND_AUTO, .rtos = CW_RTOS_NONE };
	struct cw_report_opts ro = { .json = json };
	struct cw_error err = { { 0 } };
	struct cw_analysis *a = NULL;
	uint8_t *buf = malloc(t->n);
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	memcpy(buf, t->b, t->n);
	if (cw_analyze(img, &o, "reason.zephyr", buf, t->n, &a, &err)) {
		KTAP_EXPECT(0, "refused: %s", err.msg);
		return NULL;
	}
	f = open_memstream(&out, &len);
	cw_report(f, &ro, a);
	fclose(f);
	cw_analysis_free(a);
	return out;
}

struct reason_case {
	const char *what;
	uint32_t reason, cfsr, hfsr;
	const char *fault_line;		/* the text report's, whole */
	const char *reason_line;	/* its explanation line for the reason, whole */
	const char *json_class;
	const char *json_reason;
};

static const struct reason_case reason_cases[] = {
	{ "k_panic() through svc: no SCB in the dump", 4, NO_SCB, 0,
	  "fault: kernel-panic at 0x0000064c in fault_bus\n",
	  "  K_ERR_KERNEL_PANIC: Zephyr's reason 4: kernel panic, a software error that halts "
	  "the system (k_panic(), a kernel assertion)\n",
	  "\"class\": \"kernel-panic\"", "{\"code\": 4, \"name\": \"K_ERR_KERNEL_PANIC\"}" },
	{ "k_oops(): the SCB dumped, no status bit set", 3, 0, 0,
	  "fault: kernel-oops at 0x0000064c in fault_bus\n",
	  "  K_ERR_KERNEL_OOPS: Zephyr's reason 3: kernel oops, a software error that ends the "
	  "thread (k_oops(), a bad system call)\n",
	  "\"class\": \"kernel-oops\"", "{\"code\": 3, \"name\": \"K_ERR_KERNEL_OOPS\"}" },
	{ "stack canary or sentinel", 2, NO_SCB, 0,
	  "fault: stack-overflow at 0x0000064c in fault_bus\n",
	  "  K_ERR_STACK_CHK_FAIL: Zephyr's reason 2: stack check failure: the faulting context "
	  "overflowed its stack (canary, sentinel or guard)\n",
	  "\"class\": \"stack-overflow\"", "{\"code\": 2, \"name\": \"K_ERR_STACK_CHK_FAIL\"}" },
	/* PRECISERR | BFARVALID, FORCED: the registers keep their class, the reason is a line. */
	{ "a CPU exception the SCB explains", 0, 0x00008200, 0x40000000,
	  "fault: bus-precise at 0x0000064c in fault_bus\n",
	  "  FORCED: a configurable fault escalated to HardFault\n"
	  "  K_ERR_CPU_EXCEPTION: Zephyr's reason 0: CPU exception (Zephyr gave no finer "
	  "reason)\n",
	  "\"class\": \"bus-precise\"", "{\"code\": 0, \"name\": \"K_ERR_CPU_EXCEPTION\"}" },
	/* Zephyr's reason when it has no finer one says no more than "unknown". */
	{ "a CPU exception without the SCB", 0, NO_SCB, 0,
	  "fault: unknown at 0x0000064c in fault_bus\n",
	  "  K_ERR_CPU_EXCEPTION: Zephyr's reason 0: CPU exception (Zephyr gave no finer "
	  "reason)\n",
	  "\"class\": \"unknown\"", "{\"code\": 0, \"name\": \"K_ERR_CPU_EXCEPTION\"}" },
	{ "an ARM stacking reason without the SCB", 17, NO_SCB, 0,
	  "fault: stack-overflow at 0x0000064c in fault_bus\n",
	  "  K_ERR_ARM_MEM_STACKING: Zephyr's reason 17: MPU fault while stacking on exception "
	  "entry: stack overflow into a guard\n",
	  "\"class\": \"stack-overflow\"",
	  "{\"code\": 17, \"name\": \"K_ERR_ARM_MEM_STACKING\"}" },
	{ "an ARM bus reason, the SCB silent", 26, 0, 0,
	  "fault: bus-imprecise at 0x0000064c in fault_bus\n",
	  "  K_ERR_ARM_BUS_IMPRECISE_DATA_BUS: Zephyr's reason 26: imprecise data bus error: "
	  "the stacked pc is past the culprit store\n",
	  "\"class\": \"bus-imprecise\"",
	  "{\"code\": 26, \"name\": \"K_ERR_ARM_BUS_IMPRECISE_DATA_BUS\"}" },
	/* Between the generic reasons and K_ERR_ARCH_START: no release defines 5-15. */
	{ "a code Zephyr does not define", 7, NO_SCB, 0,
	  "fault: unknown at 0x0000064c in fault_bus\n",
	  "  Zephyr: reason 7, a code no Zephyr release defines\n",
	  "\"class\": \"unknown\"", "{\"code\": 7, \"name\": null}" },
};

static void zephyr_reason_reported(void)
{
	struct tbuf *t = calloc(1, sizeof(*t));
	struct cw_error err = { { 0 } };
	struct cw_image *img = cw_image_open(DEMO_ELF, &err);
	struct cw_analysis *a = NULL;
	struct cw_options o = { .how = CW_UNWIND_AUTO, .rtos = CW_RTOS_NONE };
	struct cw_report_opts ro = { .json = 1 };
	char *text, *json = NULL;
	const char *at;
	size_t i, len;
	FILE *f;

	KTAP_EXPECT(img, "%s", err.msg);
	for (i = 0; img && i < ARRAY_SIZE(reason_cases); i++) {
		const struct reason_case *c = &reason_cases[i];

		zephyr_reason_dump(t, c->reason, c->cfsr, c->hfsr);
		text = zephyr_reason_report(img, t, 0);
		json = zephyr_reason_report(img, t, 1);
		KTAP_EXPECT(text && strstr(text, c->fault_line) && strstr(text, c->reason_line),
			    "%s: %s", c->what, text ? text : "");
		KTAP_EXPECT(json && strstr(json, c->json_class), "%s: %s", c->what,
			    json ? json : "");
		/* The reason is the fault object's last member. */
		at = json ? strstr(json, "\"zephyr_reason\": ") : NULL;
		KTAP_EXPECT(at && !strncmp(at + 17, c->json_reason, strlen(c->json_reason)) &&
			    !strncmp(at + 17 + strlen(c->json_reason), "}, \"fault_frame\"", 16),
			    "%s: %.120s", c->what, at ? at : "");
		free(text);
		free(json);
		json = NULL;
	}

	/* A dump of another format has no reason: null, and no line for it. */
	if (img && !cw_analyze(img, &o, BUNDLED_DIR "/demo.core", NULL, 0, &a, &err)) {
		f = open_memstream(&json, &len);
		cw_report(f, &ro, a);
		fclose(f);
		KTAP_EXPECT(strstr(json, "\"zephyr_reason\": null}") &&
			    !strstr(json, "K_ERR_") && !strstr(json, "Zephyr"), "%s", json);
		free(json);
	} else {
		KTAP_EXPECT(0, "demo.core: %s", err.msg);
	}
	cw_analysis_free(a);
	cw_image_close(img);
	free(t);
}

/* ---- CrashCatcher ---- */

static void build_cc(struct tbuf *t, int fp, int trailer)
{
	uint32_t i;

	memset(t, 0, sizeof(*t));
	tb_bytes(t, "cC\3\0", 4);
	tb_u32(t, fp ? 1 : 0);
	for (i = 0; i < 13; i++)
		tb_u32(t, 0x200 + i);	/* r0-r12 */
	tb_u32(t, RAM + 0x40);		/* sp */
	tb_u32(t, 0x301);		/* lr */
	tb_u32(t, 0x400);		/* pc */
	tb_u32(t, 0x01000000);		/* xpsr */
	tb_u32(t, RAM + 0x40);		/* msp */
	tb_u32(t, RAM + 0x20);		/* psp */
	tb_u32(t, 3);			/* exceptionPSR */
	for (i = 0; fp && i < 33; i++)
		tb_u32(t, 0x3f800000);
	tb_u32(t, RAM);
	tb_u32(t, RAM + 16);
	for (i = 0; i < 4; i++)
		tb_u32(t, 0xCC000000 + i);
	if (trailer)
		tb_u32(t, 0xACCE55ED);
}

static void crashcatcher(void)
{
	struct tbuf *t = calloc(1, sizeof(*t));
	struct cw_error err;
	struct cw_dump d;
	uint32_t v = 0;

	build_cc(t, 1, 1);
	EXPECT_PARSED(t, &d);
	KTAP_EXPECT(d.format == CW_FMT_CRASHCATCHER && d.has_fp, "format/fp");
	KTAP_EXPECT(d.regs.r[CW_PC] == 0x400 && d.regs.r[CW_PSP] == RAM + 0x20, "pc/psp");
	KTAP_EXPECT(cw_mem_read32(&d.mem, RAM + 12, &v) == 0 && v == 0xCC000003, "mem 0x%x", v);
	KTAP_EXPECT(d.warning && strstr(d.warning, "overflowed"), "trailer not reported");
	cw_dump_free(&d);
	build_cc(t, 0, 0);
	KTAP_EXPECT(tb_parse(t, t->n, &d, &err) == 0 && !d.warning, "%s", err.msg);
	cw_dump_free(&d);
	build_cc(t, 1, 0);
	expect_error(t, 100, NULL, "FP registers truncated");
	build_cc(t, 0, 0);
	expect_error(t, t->n - 3, NULL, "overruns");
	expect_error(t, 40, NULL, "registers truncated");
	free(t);
}

static void unknown_format(void)
{
	struct tbuf *t = calloc(1, sizeof(*t));

	tb_bytes(t, "hello world", 11);
	expect_error(t, t->n, "offset 0 ", "not a known dump format");
	expect_error(t, 0, NULL, NULL);
	free(t);
}

/*
 * Mutate valid dumps at random (fixed seed): every result is a clean parse
 * or an error message; under `make asan` any out-of-bounds access aborts.
 */
static void fuzz_readers(void)
{
	struct tbuf *base = calloc(3, sizeof(*base)), *t = calloc(1, sizeof(*t));
	unsigned int seed = 12345, i, k, bad = 0;

	build_core(&base[0], &(struct core_opts){ .with_stacks_note = 1 });
	zephyr_header(&base[1], 2, 0);
	zephyr_arch(&base[1], 2);
	zephyr_mem(&base[1], RAM, 64);
	build_cc(&base[2], 1, 1);
	for (i = 0; i < 30000; i++) {
		struct cw_error err;
		struct cw_dump d;
		size_t len;

		*t = base[i % 3];
		len = t->n;
		for (k = 0; k < 1 + (unsigned int)rand_r(&seed) % 4; k++) {
			size_t at = rand_r(&seed) % len;

			t->b[at] = (k & 1) ? 0xFF : (uint8_t)rand_r(&seed);
		}
		if (rand_r(&seed) % 4 == 0)
			len = rand_r(&seed) % len;
		if (tb_parse(t, len, &d, &err) != 0 && !err.msg[0])
			bad++;
		cw_dump_free(&d);
	}
	KTAP_EXPECT(bad == 0, "%u errors without a message", bad);
	free(base);
	free(t);
}

int main(void)
{
	ktap_header("crashwalk-readers");
	KTAP_RUN(elf_core_valid);
	KTAP_RUN(elf_core_errors);
	KTAP_RUN(zephyr_v1);
	KTAP_RUN(zephyr_v2_crc);
	KTAP_RUN(zephyr_errors);
	KTAP_RUN(zephyr_log);
	KTAP_RUN(zephyr_no_sp);
	KTAP_RUN(zephyr_reason_reported);
	KTAP_RUN(crashcatcher);
	KTAP_RUN(unknown_format);
	KTAP_RUN(fuzz_readers);
	return ktap_finish();
}
