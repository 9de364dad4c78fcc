// SPDX-License-Identifier: GPL-2.0
/*
 * cw_dump.c - read a crash dump: pick its format's reader (CW_DUMP_FORMATS,
 * one file each: ELF32 ARM cores, Zephyr coredumps and their #CD: log text,
 * CrashCatcher binaries) by its first bytes, into registers and the address
 * space (base/cw_mem.c) of the dumped memory, then find the firmware's
 * build-id in it.
 *
 * Every length and offset in a dump is checked against the file before use;
 * an error names the file, the byte offset and the field that is wrong.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dump/cw_dump_reader.h"

/* Dumps are RAM images of microcontrollers: anything larger is not one. */
#define CW_DUMP_MAX	(256u << 20)
/* What a reader's detect() and the text forms' tag search look at (struct cw_dump_reader). */
#define CW_DUMP_SNIFF	4096u

#define CW_FORMAT_(NAME, file, name)	[CW_FMT_##NAME] = { name, &cw_##file##_reader },
const struct cw_format cw_formats[CW_NR_FORMATS] = {
	[CW_FMT_UNKNOWN] = { "unknown", NULL },
	CW_DUMP_FORMATS(CW_FORMAT_)
};
#undef CW_FORMAT_

const char *cw_dump_format_name(enum cw_dump_format fmt)
{
	return cw_formats[fmt < CW_NR_FORMATS ? fmt : CW_FMT_UNKNOWN].name;
}

/* The formats' names for --help and errors: "elf-core, zephyr or crashcatcher". */
const char *cw_dump_formats(void)
{
	static char list[32 * CW_NR_FORMATS];
	size_t n = 0;
	unsigned int f;

	if (list[0])
		return list;
	for (f = CW_FMT_UNKNOWN + 1; f < CW_NR_FORMATS; f++)
		n += snprintf(list + n, sizeof(list) - n, "%s%s", f == CW_FMT_UNKNOWN + 1 ? "" :
			      f + 1 < CW_NR_FORMATS ? ", " : " or ", cw_formats[f].name);
	return list;
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

/* The format whose first bytes buf has. */
static enum cw_dump_format detect(const uint8_t *buf, size_t len)
{
	unsigned int f;

	for (f = CW_FMT_UNKNOWN + 1; f < CW_NR_FORMATS; f++)
		if (cw_formats[f].reader->detect(buf, len))
			return (enum cw_dump_format)f;
	return CW_FMT_UNKNOWN;
}

/* The reader whose text form buf (a file's first bytes) is, NULL if none. */
static const struct cw_dump_reader *detect_text(const uint8_t *buf, size_t len)
{
	const struct cw_dump_reader *r;
	unsigned int f;

	for (f = CW_FMT_UNKNOWN + 1; f < CW_NR_FORMATS; f++) {
		r = cw_formats[f].reader;
		if (r->decode_text && memmem(buf, len < CW_DUMP_SNIFF ? len : CW_DUMP_SNIFF,
					     r->log.tag, strlen(r->log.tag)))
			return r;
	}
	return NULL;
}

/* Does buf (a file's first bytes) start a crash dump, rather than a firmware image? */
int cw_dump_sniff(const uint8_t *buf, size_t len)
{
	const struct cw_dump_reader *r;
	enum cw_dump_format f;

	if (detect_text(buf, len))
		return 1;
	f = detect(buf, len);
	r = cw_formats[f].reader;
	return r && (!r->is_dump || r->is_dump(buf, len));
}

/* A file whose first bytes start no format: said the same way, early or late. */
static int unknown_format(struct cw_error *err, const char *path)
{
	return cw_fail(err, path, 0, "not a known dump format (%s)", cw_dump_formats());
}

/* Takes ownership of buf (malloc'ed). */
int cw_dump_parse(struct cw_dump *d, const char *path, const uint8_t *buf, size_t len,
		  struct cw_error *err)
{
	const struct cw_dump_reader *r;

	memset(d, 0, sizeof(*d));
	d->path = path;
	d->buf = (uint8_t *)buf;
	d->len = len;
	d->reason = CW_NO_ZEPHYR_REASON;
	r = detect_text(buf, len);
	if (r && r->decode_text(d, err))
		return -1;
	d->format = detect(d->buf, d->len);
	r = cw_formats[d->format].reader;
	if (!r)
		return unknown_format(err, d->path);
	if (r->parse(d, err))
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
		/*
		 * Every format is told by its first bytes: a file that starts none
		 * is refused after the first read (len == n), not after reading up
		 * to 256 MiB of it (or, from a pipe that never ends, waiting for its
		 * end).
		 */
		n = fread(buf + len, 1, len ? cap - len : CW_DUMP_SNIFF, f);
		len += n;
		if (len == n && n && !ferror(f) && !detect_text(buf, len) &&
		    detect(buf, len) == CW_FMT_UNKNOWN) {
			free(buf);
			fclose(f);
			return unknown_format(err, path);
		}
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
