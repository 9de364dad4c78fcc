// SPDX-License-Identifier: GPL-2.0
/*
 * cw_dump.c - dump readers: ELF32 ARM cores, Zephyr coredumps (binary and
 * #CD: log text) and CrashCatcher binaries, into registers and the address
 * space (base/cw_mem.c) of the dumped memory.
 *
 * Every length and offset in a dump is checked against the file before use;
 * an error names the file, the byte offset and the field that is wrong.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dump/cw_dump.h"

/* Dumps are RAM images of microcontrollers: anything larger is not one. */
#define CW_DUMP_MAX	(256u << 20)

/* ---- little-endian field access, bounds checked by the callers ---- */

static uint32_t le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t le16(const uint8_t *p)
{
	return p[0] | p[1] << 8;
}

/* Does [off, off + n) fit in a buffer of len bytes? Written to avoid overflow. */
static int fits(size_t len, uint64_t off, uint64_t n)
{
	return off <= len && n <= len - off;
}

const char *cw_dump_format_name(enum cw_dump_format fmt)
{
	switch (fmt) {
	case CW_FMT_ELF_CORE:
		return "elf-core";
	case CW_FMT_ZEPHYR:
		return "zephyr";
	case CW_FMT_CRASHCATCHER:
		return "crashcatcher";
	default:
		return "unknown";
	}
}

/* ---- ELF32 ARM core ---- */

#define NT_PRSTATUS		1
#define NT_GNU_BUILD_ID		3	/* name "GNU": the firmware's build-id, as ld wrote it */
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

/*
 * A memory range as both firmware formats store it: skip bytes of block
 * header, u32 start, u32 end (exclusive), then end - start bytes. Advances *offp.
 */
static int add_range(struct cw_dump *d, size_t *offp, unsigned int skip, const char *what,
		     struct cw_error *err)
{
	size_t off = *offp, data = off + skip + 8;
	uint32_t start, end;

	if (!fits(d->len, off, skip + 8))
		return cw_fail(err, d->path, (long)off, "%s header truncated", what);
	start = le32(d->buf + off + skip);
	end = le32(d->buf + off + skip + 4);
	if (end < start)
		return cw_fail(err, d->path, (long)(off + skip + 4),
			       "%s end 0x%08x below start 0x%08x", what, end, start);
	if (!fits(d->len, data, end - start))
		return cw_fail(err, d->path, (long)off, "%s 0x%08x-0x%08x overruns the file", what,
			       start, end);
	if (cw_mem_add(&d->mem, start, end - start, d->buf + data, "dump"))
		return cw_fail(err, d->path, (long)off, "too many %ss", what);
	*offp = data + (end - start);
	return 0;
}

/* ---- Zephyr coredump ---- */

#define ZEPHYR_HDR_SIZE		12
#define ZEPHYR_TGT_CORTEX_M	3
#define ZEPHYR_FLAG_CRC		0x1

static const uint8_t zephyr_arch_v1_order[9] = {
	CW_R0, CW_R1, CW_R2, CW_R3, CW_R12, CW_LR, CW_PC, CW_XPSR, CW_SP
};

static uint32_t crc32_le(const uint8_t *p, size_t n)
{
	uint32_t crc = ~0u;
	int k;

	while (n--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1)));
	}
	return ~crc;
}

static int zephyr_arch(struct cw_dump *d, size_t off, uint16_t ver, uint16_t n,
		       struct cw_error *err)
{
	const uint8_t *p = d->buf + off;
	unsigned int i;

	if (ver < 1 || ver > 3)
		return cw_fail(err, d->path, (long)off - 5, "arch block version %u not 1-3", ver);
	if (n < 36 || (ver >= 2 && n < 68))
		return cw_fail(err, d->path, (long)off - 2,
			       "arch block v%u is %u bytes, too short for its registers", ver, n);
	if (cw_reg_ok(&d->regs, CW_PC))
		return 0;	/* a per-CPU block repeats it: the first one is the faulting CPU */
	/*
	 * An sp of 0 was never recorded: Zephyr's SVC path (k_panic, k_oops)
	 * hands its coredump no stack pointer, and the walk needs one from the
	 * frame search.
	 */
	for (i = 0; i < 9; i++)
		if (zephyr_arch_v1_order[i] != CW_SP || le32(p + 4 * i))
			cw_reg_set(&d->regs, (enum cw_reg)zephyr_arch_v1_order[i],
				   le32(p + 4 * i));
	for (i = 0; ver >= 2 && i < 8; i++)
		cw_reg_set(&d->regs, (enum cw_reg)(CW_R4 + i), le32(p + 36 + 4 * i));
	return 0;
}

static int zephyr_block(struct cw_dump *d, size_t *offp, struct cw_error *err)
{
	size_t off = *offp;
	uint8_t id = d->buf[off];
	uint16_t ver, n;

	if (id == 'M')	/* {id, u16 version, start, end} + bytes */
		return add_range(d, offp, 3, "memory block", err);
	if (id == 'F') {
		/* Per-CPU header; the arch block that follows is parsed on its own. */
		if (!fits(d->len, off, 13))
			return cw_fail(err, d->path, (long)off, "per-CPU block truncated");
		*offp = off + 13;
		return 0;
	}
	if (id != 'A' && id != 'T')
		return cw_fail(err, d->path, (long)off, "unknown block id 0x%02x", id);
	if (!fits(d->len, off, 5))
		return cw_fail(err, d->path, (long)off, "block header truncated");
	ver = le16(d->buf + off + 1);
	n = le16(d->buf + off + 3);
	if (!fits(d->len, off + 5, n))
		return cw_fail(err, d->path, (long)off + 3, "block of %u bytes overruns the file",
			       n);
	if (id == 'A' && zephyr_arch(d, off + 5, ver, n, err))
		return -1;
	*offp = off + 5 + n;
	return 0;
}

static int zephyr_crc(struct cw_dump *d, size_t off, struct cw_error *err)
{
	uint32_t want, got;

	if (d->len - off != 7)
		return cw_fail(err, d->path, (long)off,
			       "CRC trailer must be the last 7 bytes (%zu left)", d->len - off);
	want = le32(d->buf + off + 3);
	got = crc32_le(d->buf, off);
	if (want != got)
		return cw_fail(err, d->path, (long)off + 3,
			       "CRC mismatch: trailer says 0x%08x, data gives 0x%08x", want, got);
	return 0;
}

static int parse_zephyr(struct cw_dump *d, struct cw_error *err)
{
	const uint8_t *h = d->buf;
	uint16_t ver, tgt;
	size_t off = ZEPHYR_HDR_SIZE;
	int want_crc;

	if (d->len < ZEPHYR_HDR_SIZE)
		return cw_fail(err, d->path, (long)d->len, "Zephyr header truncated");
	ver = le16(h + 2);
	tgt = le16(h + 4);
	if (ver < 1 || ver > 2)
		return cw_fail(err, d->path, 2, "header version %u not supported (1-2)", ver);
	if (tgt != ZEPHYR_TGT_CORTEX_M)
		return cw_fail(err, d->path, 4, "target code %u is not ARM Cortex-M (3)", tgt);
	if (h[6] != 5)
		return cw_fail(err, d->path, 6, "pointer size 2^%u bits, only 32-bit supported",
			       h[6]);
	want_crc = ver >= 2 && (h[7] & ZEPHYR_FLAG_CRC);
	d->reason = le32(h + 8);
	while (off < d->len) {
		if (d->buf[off] == 'C') {
			if (zephyr_crc(d, off, err))
				return -1;
			want_crc = 0;
			break;
		}
		if (zephyr_block(d, &off, err))
			return -1;
	}
	if (want_crc)
		return cw_fail(err, d->path, (long)d->len,
			       "header promises a CRC trailer, none found");
	if (!cw_reg_ok(&d->regs, CW_PC))
		return cw_fail(err, d->path, -1, "no arch block: no registers");
	d->context = CW_CTX_PRE_EXCEPTION;
	return 0;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * The length of the ANSI escape sequence (CSI: ESC '[', parameters, a final
 * byte from '@' to '~') at p, 0 if none: Zephyr's log colours put them
 * around a message, after the hex too.
 */
static size_t ansi_escape(const char *p, size_t n)
{
	size_t i;

	if (n < 2 || p[0] != 0x1b || p[1] != '[')
		return 0;
	for (i = 2; i < n; i++)
		if (p[i] >= '@' && p[i] <= '~')
			return i + 1;
	return 0;
}

/*
 * Append the hex digits of one "#CD:" line; a log prefix before the marker
 * is allowed, and colour escapes anywhere in it are skipped.
 */
static int zephyr_log_line(struct cw_dump *d, const char *p, size_t n, uint8_t *out,
			   size_t *outlen, long off, struct cw_error *err)
{
	size_t i = 0, esc;
	int hi = -1, v;

	while (i < n && p[i] != '\r') {
		esc = ansi_escape(p + i, n - i);
		if (esc) {
			i += esc;
			continue;
		}
		v = hexval(p[i]);
		if (v < 0)
			return cw_fail(err, d->path, off + (long)i, "bad hex digit in #CD: line");
		if (hi < 0) {
			hi = v;
		} else {
			out[(*outlen)++] = (uint8_t)(hi << 4 | v);
			hi = -1;
		}
		i++;
	}
	if (hi >= 0)
		return cw_fail(err, d->path, off + (long)i, "odd number of hex digits");
	return 0;
}

static int decode_zephyr_log(struct cw_dump *d, struct cw_error *err)
{
	const char *s = (const char *)d->buf;
	uint8_t *out = malloc(d->len / 2 + 1);
	size_t pos = 0, outlen = 0;
	int begun = 0, ended = 0;

	if (!out)
		return cw_fail(err, d->path, -1, "out of memory");
	while (pos < d->len && !ended) {
		const char *nl = memchr(s + pos, '\n', d->len - pos);
		size_t end = nl ? (size_t)(nl - s) : d->len;
		const char *m = memmem(s + pos, end - pos, "#CD:", 4);

		if (m) {
			const char *body = m + 4;
			size_t n = end - (size_t)(body - s);

			if (n >= 6 && !memcmp(body, "BEGIN#", 6)) {
				begun = 1;
			} else if (n >= 4 && !memcmp(body, "END#", 4)) {
				ended = 1;
			} else if (n >= 6 && !memcmp(body, "ERROR ", 6)) {
				free(out);
				return cw_fail(err, d->path, (long)(m - s),
					       "device reported: cannot dump");
			} else if (begun && zephyr_log_line(d, body, n, out, &outlen,
							    (long)(body - s), err)) {
				free(out);
				return -1;
			}
		}
		pos = end + 1;
	}
	if (!begun || !ended) {
		free(out);
		return cw_fail(err, d->path, (long)d->len, "#CD:%s# marker missing",
			       begun ? "END" : "BEGIN");
	}
	free(d->buf);
	d->buf = out;
	d->len = outlen;
	return 0;
}

/* ---- CrashCatcher binary ---- */

#define CC_REGS_WORDS		20	/* r0-r12 sp lr pc xpsr msp psp exceptionPSR */
#define CC_FLAG_FP		0x1
#define CC_TRAILER		0xACCE55EDu	/* written when CrashCatcher's own stack overflowed */

static const enum cw_reg cc_stack_pointers[] = { CW_SP, CW_MSP, CW_PSP };

static int parse_crashcatcher(struct cw_dump *d, struct cw_error *err)
{
	size_t off = 8;
	uint32_t flags;
	unsigned int i;

	if (d->len < 8 + 4 * CC_REGS_WORDS)
		return cw_fail(err, d->path, (long)d->len, "CrashCatcher registers truncated");
	flags = le32(d->buf + 4);
	for (i = 0; i < 17; i++)
		cw_reg_set(&d->regs, (enum cw_reg)i, le32(d->buf + off + 4 * i));
	cw_reg_set(&d->regs, CW_MSP, le32(d->buf + off + 68));
	cw_reg_set(&d->regs, CW_PSP, le32(d->buf + off + 72));
	/* A zero stack pointer is one the writer did not know (a lost PSP, and the sp from it). */
	for (i = 0; i < ARRAY_SIZE(cc_stack_pointers); i++)
		if (!d->regs.r[cc_stack_pointers[i]])
			d->regs.valid &= ~(1u << cc_stack_pointers[i]);
	off += 4 * CC_REGS_WORDS;
	if (flags & CC_FLAG_FP) {
		if (!fits(d->len, off, 33 * 4))
			return cw_fail(err, d->path, (long)off, "FP registers truncated");
		d->has_fp = 1;
		off += 33 * 4;
	}
	while (off < d->len) {
		if (d->len - off == 4 && le32(d->buf + off) == CC_TRAILER) {
			d->warning = "the dump writer's stack overflowed (0xACCE55ED): "
				     "memory may be corrupt";
			break;
		}
		if (add_range(d, &off, 0, "region", err))
			return -1;
	}
	d->context = CW_CTX_PRE_EXCEPTION;
	return 0;
}

/* ---- detection ---- */

static enum cw_dump_format detect(const uint8_t *b, size_t len)
{
	if (len >= 4 && !memcmp(b, "\177ELF", 4))
		return CW_FMT_ELF_CORE;
	if (len >= 2 && b[0] == 'Z' && b[1] == 'E')
		return CW_FMT_ZEPHYR;
	if (len >= 4 && b[0] == 'c' && b[1] == 'C' && b[2] == 3 && b[3] == 0)
		return CW_FMT_CRASHCATCHER;
	return CW_FMT_UNKNOWN;
}

/* ---- the firmware's build-id in the dumped memory ---- */

#define BUILD_ID_MIN	8	/* bytes: ld's shortest (--build-id=md5 is 16, uuid 16, sha1 20) */

/*
 * A GNU build-id note at p (name "GNU", type NT_GNU_BUILD_ID, a descriptor
 * of 8 to CW_MAX_BUILD_ID bytes that fits in n): its descriptor's size, else 0.
 */
static uint32_t build_id_note_at(const uint8_t *p, size_t n)
{
	uint32_t descsz;

	if (n < 16 || le32(p) != 4 || le32(p + 8) != NT_GNU_BUILD_ID || memcmp(p + 12, "GNU", 4))
		return 0;
	descsz = le32(p + 4);
	if (descsz < BUILD_ID_MIN || descsz > CW_MAX_BUILD_ID || descsz > n - 16)
		return 0;
	return descsz;
}

/*
 * A dump without the note may still hold the firmware's own: a remoteproc
 * dump of a firmware loaded into RAM, or a CrashCatcher or Zephyr dump whose
 * firmware added its .note.gnu.build-id to the regions it dumps. Notes are
 * 4-byte aligned, so only word offsets of each region are tried; the first
 * note found is the firmware's.
 */
static void build_id_in_memory(struct cw_dump *d)
{
	unsigned int i;
	size_t off;

	for (i = 0; i < d->mem.nr && !d->build_id_len; i++) {
		const struct cw_region *r = &d->mem.regions[i];
		size_t skip = (4 - (r->addr & 3)) & 3;

		for (off = skip; off + 16 <= r->size; off += 4) {
			uint32_t descsz = build_id_note_at(r->data + off, r->size - off);

			if (!descsz)
				continue;
			memcpy(d->build_id, r->data + off + 16, descsz);
			d->build_id_len = descsz;
			d->build_id_at = r->addr + (uint32_t)off;
			break;
		}
	}
}

static int parse_format(struct cw_dump *d, struct cw_error *err)
{
	switch (d->format) {
	case CW_FMT_ELF_CORE:
		return parse_elf_core(d, err);
	case CW_FMT_ZEPHYR:
		return parse_zephyr(d, err);
	case CW_FMT_CRASHCATCHER:
		return parse_crashcatcher(d, err);
	default:
		return cw_fail(err, d->path, 0,
			       "not a known dump format (ELF core, Zephyr, #CD: log, CrashCatcher)");
	}
}

/* Does buf (a file's first bytes) start a crash dump, rather than a firmware image? */
int cw_dump_sniff(const uint8_t *buf, size_t len)
{
	if (memmem(buf, len < 4096 ? len : 4096, "#CD:", 4))
		return 1;
	if (detect(buf, len) == CW_FMT_ELF_CORE)
		return len >= 18 && le16(buf + 16) == 4;	/* ET_CORE */
	return detect(buf, len) != CW_FMT_UNKNOWN;
}

/* Takes ownership of buf (malloc'ed). */
int cw_dump_parse(struct cw_dump *d, const char *path, const uint8_t *buf, size_t len,
		  struct cw_error *err)
{
	memset(d, 0, sizeof(*d));
	d->path = path;
	d->buf = (uint8_t *)buf;
	d->len = len;
	d->reason = CW_NO_ZEPHYR_REASON;
	if (memmem(buf, len < 4096 ? len : 4096, "#CD:", 4) && decode_zephyr_log(d, err))
		return -1;
	d->format = detect(d->buf, d->len);
	if (parse_format(d, err))
		return -1;
	if (!d->build_id_len)
		build_id_in_memory(d);
	return 0;
}

int cw_dump_load(struct cw_dump *d, const char *path, struct cw_error *err)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : fdopen(dup(STDIN_FILENO), "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, n;

	memset(d, 0, sizeof(*d));
	if (!strcmp(path, "-"))
		path = "<stdin>";
	if (!f)
		return cw_fail(err, path, -1, "%s", strerror(errno));
	do {
		if (len == cap) {
			uint8_t *nb;

			cap = cap ? cap * 2 : 65536;
			nb = cap <= CW_DUMP_MAX ? realloc(buf, cap) : NULL;
			if (!nb) {
				free(buf);
				fclose(f);
				return cw_fail(err, path, (long)len,
					       "larger than %u MiB or out of memory", CW_DUMP_MAX >> 20);
			}
			buf = nb;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n);
	if (ferror(f)) {
		int e = errno;

		free(buf);
		fclose(f);
		return cw_fail(err, path, (long)len, "%s", strerror(e));
	}
	fclose(f);
	if (!len) {
		free(buf);
		return cw_fail(err, path, -1, "empty input, expected a crash dump");
	}
	return cw_dump_parse(d, path, buf, len, err);
}

void cw_dump_free(struct cw_dump *d)
{
	cw_mem_free(&d->mem);
	free(d->buf);
	d->buf = NULL;
}
