// SPDX-License-Identifier: GPL-2.0
/*
 * cw_elf_core.c - ELF32 ARM cores as GDB writes them (NT_PRSTATUS, PT_LOAD,
 * crashwalk's own CRASHWALK note for the banked stack pointers), and
 * remoteproc's cores of memory alone.
 */
#include <string.h>

#include "dump/cw_dump_reader.h"

#define NT_PRSTATUS		1
#define PRSTATUS_REGS_OFF	72
#define PRSTATUS_MIN		148
#define CW_NOTE_STACKS		1	/* "CRASHWALK" note: version, msp, psp, control
					 * (version 2: + msp_s, psp_s, msp_ns, psp_ns) */

static int elf_core_prstatus(struct cw_dump *d, const uint8_t *desc, uint32_t descsz, long off,
			     struct cw_error *err)
{
	int i;

	if (descsz < PRSTATUS_MIN)
		return cw_fail(err, d->path, off, "NT_PRSTATUS descsz %u, need %u for ARM", descsz,
			       PRSTATUS_MIN);
	for (i = 0; i < 16; i++)
		cw_reg_set(&d->regs, (enum cw_reg)i, le32(desc + PRSTATUS_REGS_OFF + 4 * i));
	cw_reg_set(&d->regs, CW_XPSR, le32(desc + PRSTATUS_REGS_OFF + 64));
	return 0;
}

static int elf_core_stacks(struct cw_dump *d, const uint8_t *desc, uint32_t descsz, long off,
			   struct cw_error *err)
{
	uint32_t version = descsz >= 4 ? le32(desc) : 0;
	int i;

	if (descsz < 16 || version < 1 || version > 2 || (version == 2 && descsz < 32))
		return cw_fail(err, d->path, off,
			       "CRASHWALK note: size %u for version %u (1: 16 bytes, 2: 32)",
			       descsz, version);
	cw_reg_set(&d->regs, CW_MSP, le32(desc + 4));
	cw_reg_set(&d->regs, CW_PSP, le32(desc + 8));
	cw_reg_set(&d->regs, CW_CONTROL, le32(desc + 12));
	/* Version 2, from a Secure handler on v8-M: MSP_S, PSP_S, MSP_NS, PSP_NS. */
	for (i = 0; version == 2 && i < 4; i++)
		cw_reg_set(&d->regs, (enum cw_reg)(CW_MSP_S + i), le32(desc + 16 + 4 * i));
	return 0;
}

static int elf_core_notes(struct cw_dump *d, uint32_t off, uint32_t size, struct cw_error *err)
{
	uint32_t end = off + size;

	while (end - off >= 12) {
		const uint8_t *n = d->buf + off;
		uint32_t namesz = le32(n), descsz = le32(n + 4), type = le32(n + 8);
		uint32_t name_off = off + 12, desc_off;
		uint64_t next;

		desc_off = name_off + ((namesz + 3) & ~3u);
		next = (uint64_t)desc_off + ((descsz + 3ull) & ~3ull);
		if (namesz > 256 || next > end || desc_off < name_off)
			return cw_fail(err, d->path, off,
				       "note overruns its segment (namesz %u, descsz %u)", namesz,
				       descsz);
		if (namesz == 5 && !memcmp(d->buf + name_off, "CORE", 5) && type == NT_PRSTATUS &&
		    !cw_reg_ok(&d->regs, CW_PC)) {
			if (elf_core_prstatus(d, d->buf + desc_off, descsz, off, err))
				return -1;
		} else if (namesz == 4 && !memcmp(d->buf + name_off, "GNU", 4) &&
			   type == NT_GNU_BUILD_ID) {
			if (!descsz || descsz > sizeof(d->build_id))
				return cw_fail(err, d->path, off, "GNU build-id note of %u bytes "
					       "(1 to %zu expected)", descsz, sizeof(d->build_id));
			memcpy(d->build_id, d->buf + desc_off, descsz);
			d->build_id_len = descsz;
		} else if (namesz == 10 && !memcmp(d->buf + name_off, "CRASHWALK", 10) &&
			   type == CW_NOTE_STACKS) {
			if (elf_core_stacks(d, d->buf + desc_off, descsz, off, err))
				return -1;
		}
		off = (uint32_t)next;
	}
	return 0;
}

static int elf_core_phdr(struct cw_dump *d, uint32_t ph_off, struct cw_error *err)
{
	const uint8_t *ph = d->buf + ph_off;
	uint32_t type = le32(ph), off = le32(ph + 4), vaddr = le32(ph + 8);
	uint32_t filesz = le32(ph + 16);

	if ((type == 1 || type == 4) && !fits(d->len, off, filesz))
		return cw_fail(err, d->path, ph_off,
			       "segment [0x%x, +0x%x) extends past the end of the file (%zu bytes)",
			       off, filesz, d->len);
	if (type == 4)
		return elf_core_notes(d, off, filesz, err);
	if (type == 1 && cw_mem_add(&d->mem, vaddr, filesz, d->buf + off, "dump"))
		return cw_fail(err, d->path, ph_off, "PT_LOAD at 0x%08x size 0x%x does not fit",
			       vaddr, filesz);
	return 0;
}

static int parse_elf_core(struct cw_dump *d, struct cw_error *err)
{
	const uint8_t *e = d->buf;
	uint32_t phoff, i;
	uint16_t phnum, phentsize;

	if (d->len < 52)
		return cw_fail(err, d->path, (long)d->len, "ELF header truncated");
	if (e[4] != 1 || e[5] != 1)
		return cw_fail(err, d->path, 4, "not ELF32 little-endian (class %u, data %u)", e[4],
			       e[5]);
	/* ET_REL, ET_EXEC, ET_DYN: most likely the firmware, named where the dump goes. */
	if (le16(e + 16) >= 1 && le16(e + 16) <= 3)
		return cw_fail(err, d->path, -1, "an ELF %s, not a crash dump: name the firmware "
			       "first, then the dump", le16(e + 16) == 1 ? "object file" :
			       "executable (a firmware image?)");
	if (le16(e + 16) != 4)
		return cw_fail(err, d->path, 16, "e_type %u is not ET_CORE", le16(e + 16));
	if (le16(e + 18) != 40)
		return cw_fail(err, d->path, 18, "e_machine %u is not EM_ARM", le16(e + 18));
	phoff = le32(e + 28);
	phentsize = le16(e + 42);
	phnum = le16(e + 44);
	if (phentsize != 32)
		return cw_fail(err, d->path, 42, "e_phentsize %u, expected 32", phentsize);
	if (!fits(d->len, phoff, (uint64_t)phnum * 32))
		return cw_fail(err, d->path, 28, "%u program headers at 0x%x overrun the file",
			       phnum, phoff);
	for (i = 0; i < phnum; i++)
		if (elf_core_phdr(d, phoff + 32 * i, err))
			return -1;
	/* A remoteproc coredump carries memory only: registers must be found in it. */
	if (!cw_reg_ok(&d->regs, CW_PC)) {
		d->context = CW_CTX_MEMORY_ONLY;
		return 0;
	}
	/* A core written at the fault handler's entry has EXC_RETURN in LR. */
	d->context = (d->regs.r[CW_LR] >> 24) == 0xff ? CW_CTX_HANDLER_ENTRY
						       : CW_CTX_PRE_EXCEPTION;
	return 0;
}

static int elf_core_detect(const uint8_t *b, size_t len)
{
	return len >= 4 && !memcmp(b, "\177ELF", 4);
}

/* A firmware image is ELF too: only ET_CORE is a dump. */
static int elf_core_is_dump(const uint8_t *b, size_t len)
{
	return len >= 18 && le16(b + 16) == 4;
}

const struct cw_dump_reader cw_elf_core_reader = {
	.detect = elf_core_detect, .is_dump = elf_core_is_dump, .parse = parse_elf_core,
};
