// SPDX-License-Identifier: GPL-2.0
/*
 * test_pseudo_cfi.c - pseudo-execution against the compiler's own DWARF CFI
 * at every instruction of every function of the firmware images named on the
 * command line (the crash corpus): where both answer, the CFA and the return
 * address slot must be the same.
 *
 * usage: test_pseudo_cfi [--thumb1] FW.elf...
 * A synthetic frame: sp, r7 and lr are fixed values and every stack word
 * holds its own address, so the register a rule loads names the slot it
 * loaded from. r7 is placed where the prologue model says it points, so an
 * r7-based CFA rule is comparable. --thumb1 images only report how often the
 * two differ: GCC's Thumb-1 (ARMv6-M) .debug_frame does not describe
 * epilogues (the CFA stays sp+40 after "add sp, #36" at the final "pop {pc}"),
 * and after "mov sp, r7" this synthetic frame cannot place r7 consistently.
 */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include "cw_test.h"

#define STACK_BASE	0x20000000u
#define STACK_SIZE	0x4000u
#define SP0		(STACK_BASE + 0x1000u)
#define LR0		0xEEEE0001u	/* lr's value: a return through lr returns here */
#define PROLOGUE_MISS_PCT	2	/* the straight-line prologue model may miss this often */

static uint8_t stack[STACK_SIZE];

struct tally {
	unsigned int cfi, epi, epi_bad, pro, pro_bad;
};

/* One instruction: pseudo-execution's CFA and return-address slot against CFI's. */
static void check_at(struct cw_image *img, const struct cw_mem *mem,
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
	if (cw_cfi_step(img, mem, pc, &r, &info))
		return;
	t->cfi++;
	cfa = r.r[CW_SP];
	ra = r.r[CW_PC];
	if (!cw_epilogue_analyze(mem, img, fn->addr, fn->addr + fn->size, pc, &e)) {
		base = e.base == CW_SP ? SP0 : r7;
		t->epi++;
		if (base + (uint32_t)e.cfa_off != cfa ||
		    (e.restored & (1u << CW_PC) ? base + (uint32_t)e.slot[CW_PC] :
		     e.restored & (1u << CW_LR) ? base + (uint32_t)e.slot[CW_LR] : LR0) != ra)
			t->epi_bad++;
		return;
	}
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
	Elf *elf;
	int fd;

	if (!img) {
		printf("# %s\n", err.msg);
		return;
	}
	cw_mem_add(&mem, STACK_BASE, STACK_SIZE, stack, "dump");
	cw_image_add_memory(img, &mem);
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
					check_at(img, &mem, fn, a, t);
			}
		}
	}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
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

static void prologue_near_cfi(void)
{
	KTAP_EXPECT(100u * tally.pro_bad <= PROLOGUE_MISS_PCT * tally.pro, "%u of %u differ",
		    tally.pro_bad, tally.pro);
}

int main(int argc, char **argv)
{
	int i, thumb1 = argc > 1 && !strcmp(argv[1], "--thumb1");
	uint32_t a;

	for (a = 0; a < STACK_SIZE; a += 4) {
		uint32_t v = STACK_BASE + a;

		memcpy(stack + a, &v, 4);
	}
	elf_version(EV_CURRENT);
	ktap_header(thumb1 ? "crashwalk-pseudo-vs-cfi-thumb1" : "crashwalk-pseudo-vs-cfi");
	for (i = 1 + thumb1; i < argc; i++)
		check_image(argv[i], &tally);
	printf("# %d images, %u instructions with CFI: epilogue model %u (%u differ), "
	       "prologue model %u (%u differ)\n", argc - 1 - thumb1, tally.cfi, tally.epi,
	       tally.epi_bad, tally.pro, tally.pro_bad);
	KTAP_RUN(compared);
	if (!thumb1)
		KTAP_RUN(epilogue_equals_cfi);
	KTAP_RUN(prologue_near_cfi);
	return ktap_finish();
}
