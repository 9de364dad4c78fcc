// SPDX-License-Identifier: GPL-2.0
/*
 * test_pseudo_cfi.c - pseudo-execution against the compiler's own DWARF CFI
 * at every instruction of every function of the firmware images named on the
 * command line (the crash corpus): where both answer, the CFA and the return
 * address slot must be the same.
 *
 * usage: test_pseudo_cfi [--thumb1 | --clang] FW.elf...
 * A synthetic frame: sp, r7 and lr are fixed values and every stack word
 * holds its own address, so the register a rule loads names the slot it
 * loaded from. r7 is placed where the prologue model says it points, so an
 * r7-based CFA rule is comparable. At an epilogue instruction the function is
 * also run to its return (Unicorn), which judges the epilogue model whatever
 * the compiler's CFI says. --thumb1 and --clang images only report how often
 * the model and CFI differ there: GCC's Thumb-1 (ARMv6-M) .debug_frame does
 * not describe epilogues (the CFA stays sp+40 after "add sp, #36" at the
 * final "pop {pc}"), nor does clang's on any core.
 */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unicorn/unicorn.h>
#include <unistd.h>

#include "cw_test.h"

#define STACK_BASE	0x20000000u
#define STACK_SIZE	0x4000u
#define SP0		(STACK_BASE + 0x1000u)
/* lr's value: a return through lr returns here (below 0xE0000000: M-profile executes there) */
#define LR0		0x0EEE0001u
#define PROLOGUE_MISS_PCT	2	/* the straight-line prologue model may miss this often */

static uint8_t stack[STACK_SIZE];

struct tally {
	unsigned int cfi, epi, epi_bad, pro, pro_bad;
	unsigned int run, run_bad, run_not;	/* epilogue instructions executed to the return */
};

/*
 * The executed oracle: Unicorn (QEMU's Cortex-M33) runs the function from an
 * epilogue instruction to its return on a stack whose every word holds its own
 * address with the Thumb bit set, so the pc the return loads names the slot it
 * came from; the sp then is the CFA. It judges the epilogue model whatever CFI
 * the compiler wrote (GCC's Thumb-1 and clang's describe no epilogue).
 */
#define PAGE		0x1000u
#define MAX_PAGES	64
#define LR_PAGE		(LR0 & ~(PAGE - 1))

struct exec {
	uc_engine *uc;
	uint8_t fill[STACK_SIZE];	/* the stack as each run starts it */
	uint32_t pages[MAX_PAGES];	/* code pages mapped, copied from the image */
	unsigned int nr_pages;
	uint32_t lo, hi;		/* the function being run */
	unsigned int zero_pages;	/* mapped by map_zeros() */
};

/*
 * Memory the synthetic frame does not have (globals, peripherals, the
 * registers' made-up pointers): zeros, so that the run goes on to the return.
 */
static bool map_zeros(uc_engine *uc, uc_mem_type type, uint64_t addr, int size, int64_t value,
		      void *data)
{
	unsigned int *mapped = data;

	(void)type;
	(void)size;
	(void)value;
	return ++*mapped <= 256 && !uc_mem_map(uc, addr & ~(uint64_t)(PAGE - 1), PAGE, UC_PROT_ALL);
}

static void leave_function(uc_engine *uc, uint64_t addr, uint32_t size, void *data)
{
	const struct exec *x = data;

	(void)size;
	if (addr < x->lo || addr >= x->hi)
		uc_emu_stop(uc);
}

static int exec_open(struct exec *x)
{
	static uint8_t ret[PAGE];
	uc_hook hook;
	uint32_t a;

	memset(x, 0, sizeof(*x));
	for (a = 0; a < STACK_SIZE; a += 4) {
		uint32_t v = (STACK_BASE + a) | 1;

		memcpy(x->fill + a, &v, 4);
	}
	if (uc_open(UC_ARCH_ARM, UC_MODE_THUMB | UC_MODE_MCLASS, &x->uc))
		return -1;
	if (uc_ctl_set_cpu_model(x->uc, UC_CPU_ARM_CORTEX_M33) ||
	    uc_mem_map(x->uc, STACK_BASE, STACK_SIZE, UC_PROT_ALL) ||
	    uc_mem_write(x->uc, STACK_BASE, x->fill, STACK_SIZE) ||
	    uc_mem_map(x->uc, LR_PAGE, PAGE, UC_PROT_ALL) ||
	    uc_mem_write(x->uc, LR_PAGE, ret, PAGE) ||
	    uc_hook_add(x->uc, &hook, UC_HOOK_CODE, leave_function, x, 1, 0) ||
	    uc_hook_add(x->uc, &hook, UC_HOOK_MEM_UNMAPPED, map_zeros, &x->zero_pages, 1, 0)) {
		uc_close(x->uc);
		x->uc = NULL;
		return -1;
	}
	return 0;
}

/* Map the function's code pages, copied from the image, once each. */
static int exec_map(struct exec *x, const struct cw_mem *mem, uint32_t lo, uint32_t hi)
{
	uint8_t page[PAGE];
	uint32_t p, a;
	unsigned int i;
	uc_err err;

	for (p = lo & ~(PAGE - 1); p < hi; p += PAGE) {
		for (i = 0; i < x->nr_pages && x->pages[i] != p; i++)
			;
		if (i < x->nr_pages)
			continue;
		if (x->nr_pages == MAX_PAGES || p == STACK_BASE || p == LR_PAGE)
			return -1;
		for (a = 0; a < PAGE; a++)
			if (cw_mem_read(mem, p + a, page + a, 1))
				page[a] = 0;
		/* map_zeros() may have mapped it for a branch into it: fill it now. */
		err = uc_mem_map(x->uc, p, PAGE, UC_PROT_ALL);
		if ((err && err != UC_ERR_MAP) || uc_mem_write(x->uc, p, page, PAGE))
			return -1;
		x->pages[x->nr_pages++] = p;
	}
	return 0;
}

/*
 * Run from pc with the synthetic frame's registers until the pc leaves the
 * function (a return, or a tail call's branch). 0: *cfa is the sp then and
 * *ra where the return address came from (LR0: it was lr); -1: Unicorn could
 * not run it (an instruction its Cortex-M33 lacks, such as MVE; a fault).
 */
static int executed(struct exec *x, const struct cw_mem *mem, const struct cw_symbol *fn,
		    uint32_t pc, const struct cw_regs *r, uint32_t *cfa, uint32_t *ra)
{
	static const int regs[] = {
		UC_ARM_REG_R0, UC_ARM_REG_R1, UC_ARM_REG_R2, UC_ARM_REG_R3, UC_ARM_REG_R4,
		UC_ARM_REG_R5, UC_ARM_REG_R6, UC_ARM_REG_R7, UC_ARM_REG_R8, UC_ARM_REG_R9,
		UC_ARM_REG_R10, UC_ARM_REG_R11, UC_ARM_REG_R12, UC_ARM_REG_SP, UC_ARM_REG_LR,
	};
	uint32_t v, out_pc, out_sp, out_lr;
	unsigned int i;
	uc_err err;

	/* Code run before it (-O0 keeps locals there) may have written the stack. */
	if (!x->uc || exec_map(x, mem, fn->addr, fn->addr + fn->size) ||
	    uc_mem_write(x->uc, STACK_BASE, x->fill, STACK_SIZE))
		return -1;
	for (i = 0; i < sizeof(regs) / sizeof(regs[0]); i++) {
		v = r->r[i];
		if (uc_reg_write(x->uc, regs[i], &v))
			return -1;
	}
	x->lo = fn->addr;
	x->hi = fn->addr + fn->size;
	/*
	 * At most the epilogue's few instructions: a loop there is no epilogue.
	 * A tail call's target may lie on a page not mapped: its fetch fails,
	 * with the pc there.
	 */
	err = uc_emu_start(x->uc, pc | 1, 0, 0, 32);
	if ((err && err != UC_ERR_FETCH_UNMAPPED) ||
	    uc_reg_read(x->uc, UC_ARM_REG_PC, &out_pc) || uc_reg_read(x->uc, UC_ARM_REG_SP, &out_sp) ||
	    uc_reg_read(x->uc, UC_ARM_REG_LR, &out_lr))
		return -1;
	if (out_pc >= x->lo && out_pc < x->hi)
		return -1;
	*cfa = out_sp;
	/* A return: the pc came from a stack slot, or from lr; a tail call: lr holds it. */
	if (out_pc >= STACK_BASE && out_pc < STACK_BASE + STACK_SIZE)
		*ra = out_pc & ~1u;
	else if ((out_pc | 1) == LR0 || out_lr == LR0)
		*ra = LR0;
	else
		*ra = out_lr & ~1u;
	return 0;
}

/* One instruction: pseudo-execution's CFA and return-address slot against CFI's. */
static void check_at(struct cw_image *img, const struct cw_mem *mem, struct exec *x,
		     const struct cw_symbol *fn, uint32_t pc, struct tally *t)
{
	struct cw_regs r = { 0 };
	struct cw_epilogue e;
	struct cw_prologue p;
	struct cw_cfi info;
	uint32_t r7, cfa, ra, base;
	unsigned int i;

	for (i = 0; i <= CW_R12; i++)
		cw_reg_set(&r, (enum cw_reg)i, 0x30000000u + i);
	if (cw_prologue_analyze(mem, img, fn->addr, pc, &p))
		return;
	r7 = p.fp_set && !p.sp_dynamic ? SP0 - (uint32_t)p.sp_off + (uint32_t)p.fp_off
				       : SP0 + 0x1000u;
	cw_reg_set(&r, CW_R7, r7);
	cw_reg_set(&r, CW_SP, SP0);
	cw_reg_set(&r, CW_LR, LR0);
	cw_reg_set(&r, CW_PC, pc);
	if (!cw_epilogue_analyze(mem, img, fn->addr, fn->addr + fn->size, pc, &e)) {
		uint32_t model_ra;

		base = e.base == CW_SP ? SP0 : r7;
		model_ra = e.restored & (1u << CW_PC) ? base + (uint32_t)e.slot[CW_PC] :
			   e.restored & (1u << CW_LR) ? base + (uint32_t)e.slot[CW_LR] : LR0;
		if (executed(x, mem, fn, pc, &r, &cfa, &ra)) {
			t->run_not++;
		} else {
			t->run++;
			if (base + (uint32_t)e.cfa_off != cfa || model_ra != ra) {
				if (t->run_bad++ < 8)
					printf("# %s+0x%x: the epilogue model says CFA 0x%08x, return "
					       "address from 0x%08x; run, 0x%08x and 0x%08x\n",
					       fn->name, pc - fn->addr, base + (uint32_t)e.cfa_off,
					       model_ra, cfa, ra);
			}
		}
		if (cw_cfi_step(img, mem, pc, &r, &info))
			return;
		t->cfi++;
		t->epi++;
		if (base + (uint32_t)e.cfa_off != r.r[CW_SP] || model_ra != r.r[CW_PC])
			t->epi_bad++;
		return;
	}
	if (cw_cfi_step(img, mem, pc, &r, &info))
		return;
	t->cfi++;
	cfa = r.r[CW_SP];
	ra = r.r[CW_PC];
	t->pro++;
	base = p.sp_dynamic ? r7 - (uint32_t)p.fp_off : SP0 - (uint32_t)p.sp_off;
	if (base != cfa || (p.saved & (1u << CW_LR) ? base + (uint32_t)p.slot[CW_LR] : LR0) != ra)
		t->pro_bad++;
}

/* Instruction boundaries of each sized function symbol, literal pools ($d) left out. */
static void check_image(const char *path, struct tally *t)
{
	struct cw_error err;
	struct cw_image *img = cw_image_open(path, &err);
	struct cw_mem mem = { 0 };
	Elf_Scn *scn = NULL;
	struct exec x;
	Elf *elf;
	int fd;

	if (!img) {
		printf("# %s\n", err.msg);
		return;
	}
	cw_mem_add(&mem, STACK_BASE, STACK_SIZE, stack, "dump");
	cw_image_add_memory(img, &mem);
	if (exec_open(&x))
		printf("# %s: Unicorn would not start\n", path);
	fd = open(path, O_RDONLY);
	elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ, NULL);
	while (elf && (scn = elf_nextscn(elf, scn))) {
		Elf_Data *d = elf_getdata(scn, NULL);
		GElf_Shdr sh;
		size_t i;

		if (!d || !gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		for (i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			const struct cw_symbol *fn;
			uint32_t a, len;
			uint8_t hw[2];
			GElf_Sym s;

			if (!gelf_getsym(d, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC ||
			    !s.st_size)
				continue;
			fn = cw_image_func(img, (uint32_t)s.st_value & ~1u);
			if (!fn || fn->addr != ((uint32_t)s.st_value & ~1u))
				continue;
			for (a = fn->addr; a < fn->addr + fn->size; a += len) {
				len = 2;
				if (cw_mem_read(&mem, a, hw, 2))
					break;
				if ((hw[1] >> 3) >= 0x1D)
					len = 4;
				if (cw_image_is_code(img, a))
					check_at(img, &mem, &x, fn, a, t);
			}
		}
	}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	if (x.uc)
		uc_close(x.uc);
	cw_mem_free(&mem);
	cw_image_close(img);
}

static struct tally tally;

static void compared(void)
{
	KTAP_EXPECT(tally.epi > 0 && tally.pro > 0, "nothing compared");
}

static void epilogue_equals_cfi(void)
{
	KTAP_EXPECT(!tally.epi_bad, "%u of %u differ", tally.epi_bad, tally.epi);
}

static void epilogue_equals_execution(void)
{
	KTAP_EXPECT(tally.run > 0 && !tally.run_bad, "%u of %u differ", tally.run_bad, tally.run);
}

static void prologue_near_cfi(void)
{
	KTAP_EXPECT(100u * tally.pro_bad <= PROLOGUE_MISS_PCT * tally.pro, "%u of %u differ",
		    tally.pro_bad, tally.pro);
}

int main(int argc, char **argv)
{
	const char *flag = argc > 1 && !strncmp(argv[1], "--", 2) ? argv[1] + 2 : NULL;
	int i, no_epilogue_cfi = flag && (!strcmp(flag, "thumb1") || !strcmp(flag, "clang"));
	char suite[64];
	uint32_t a;

	if (flag && !no_epilogue_cfi) {
		fprintf(stderr, "usage: test_pseudo_cfi [--thumb1 | --clang] FW.elf...\n");
		return 2;
	}
	for (a = 0; a < STACK_SIZE; a += 4) {
		uint32_t v = STACK_BASE + a;

		memcpy(stack + a, &v, 4);
	}
	elf_version(EV_CURRENT);
	snprintf(suite, sizeof(suite), "crashwalk-pseudo-vs-cfi%s%s", flag ? "-" : "",
		 flag ? flag : "");
	ktap_header(suite);
	for (i = 1 + !!flag; i < argc; i++)
		check_image(argv[i], &tally);
	printf("# %d images, %u instructions with CFI: epilogue model %u (%u differ), "
	       "prologue model %u (%u differ); epilogue instructions run to the return %u "
	       "(%u differ from the model, %u not run)\n", argc - 1 - !!flag, tally.cfi, tally.epi,
	       tally.epi_bad, tally.pro, tally.pro_bad, tally.run, tally.run_bad, tally.run_not);
	KTAP_RUN(compared);
	if (!no_epilogue_cfi)
		KTAP_RUN(epilogue_equals_cfi);
	KTAP_RUN(epilogue_equals_execution);
	KTAP_RUN(prologue_near_cfi);
	return ktap_finish();
}
