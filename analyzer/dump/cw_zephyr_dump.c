// SPDX-License-Identifier: GPL-2.0
/*
 * cw_zephyr_dump.c - Zephyr coredumps: the binary (header, arch, memory,
 * thread and per-CPU blocks, CRC trailer) and the #CD: log lines that carry
 * it in hex.
 */
#include <stdlib.h>
#include <string.h>

#include "dump/cw_dump_reader.h"

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
		return cw_dump_add_range(d, offp, 3, "memory block", err);
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
		return cw_fail(err, d->path, (long)off + 3, "block of %u byte%s overruns the file",
			       n, cw_plural(n));
	if (id == 'A' && zephyr_arch(d, off + 5, ver, n, err))
		return -1;
	if (id == 'T' && n && !d->kernel_meta_len) {
		d->kernel_meta = d->buf + off + 5;
		d->kernel_meta_len = n;
	}
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

static int zephyr_detect(const uint8_t *b, size_t len)
{
	return len >= 2 && b[0] == 'Z' && b[1] == 'E';
}

const struct cw_dump_reader cw_zephyr_dump_reader = {
	.detect = zephyr_detect, .parse = parse_zephyr,
	.decode_text = decode_zephyr_log,
	.log = { .begin = "#CD:BEGIN#", .end = "#CD:END#", .tag = "#CD:" },
};
