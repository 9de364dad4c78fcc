// SPDX-License-Identifier: GPL-2.0
/*
 * cw_follow.c - follow a serial log (a tty, a pipe, a file) and hand each
 * crash dump in it to a callback as soon as its last line arrives, so a host
 * reports an attached MCU's crashes live, from the UART they come out of.
 *
 * Each dump format that has a log transport says what it looks like
 * (struct cw_dump_log, in its reader): tagged, as Zephyr's coredump log lines
 * ("#CD:BEGIN#", lines of "#CD:" and hex, "#CD:END#", each after whatever
 * prefix the logger puts on its lines; lines without the tag are the
 * firmware's ordinary log, also between the lines of a dump), or bare hex, as
 * CrashCatcher's ("CRASH ENCOUNTERED", its prompt, lines of bare hex, "End of
 * dump"; written with interrupts off, so nothing else comes between).
 * A dump cut short (the MCU reset while writing it, the stream ended, the
 * start was missed) is handed over too, with what cut it and what its bytes
 * lack, and the stream goes on: one bad dump never stops the next.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "dump/cw_dump.h"

#define LINE_MAX_LEN	4096		/* a dump's line is a log line: short */
#define TEXT_MAX	(64u << 20)	/* text of the largest dump taken */

struct follow {
	const char *path;
	cw_follow_fn fn;
	void *ctx;
	FILE *log;
	unsigned long lineno;
	char line[LINE_MAX_LEN];
	size_t line_len;
	int line_long;			/* the current line overflowed line[] */
	/*
	 * The format of the dump being collected, CW_FMT_UNKNOWN when none: a
	 * tagged one's lines verbatim, so offsets point into them; a bare hex
	 * one's bytes, decoded.
	 */
	enum cw_dump_format kind;
	int headless;			/* its #CD:BEGIN# was never seen */
	unsigned long first_line;
	char *text;
	size_t len, cap;
	char cut[256];			/* set once the dump is known to be damaged */
	char name[300];
};

/* How the format of kind travels in a log. */
static const struct cw_dump_log *log_of(enum cw_dump_format kind)
{
	return &cw_formats[kind].reader->log;
}

static int hexdigit(char c)
{
	return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

static int text_add(struct follow *f, const char *p, size_t n)
{
	if (f->len + n + 1 > f->cap) {
		size_t cap = f->cap ? f->cap : 65536;
		char *t;

		while (cap < f->len + n + 1)
			cap *= 2;
		if (cap > TEXT_MAX)
			return -1;
		t = realloc(f->text, cap);
		if (!t)
			return -1;
		f->text = t;
		f->cap = cap;
	}
	memcpy(f->text + f->len, p, n);
	f->len += n;
	f->text[f->len] = '\0';
	return 0;
}

/*
 * What a cut dump lacks, from its own bytes: parsed as if its end marker had
 * come, the reader names the first block or trailer that is short.
 */
static void describe_cut(struct follow *f, struct cw_stream_dump *sd)
{
	const struct cw_dump_log *log = log_of(f->kind);
	size_t end_len = log->tag ? strlen(log->end) + 1 : 0;
	struct cw_error err = { { 0 } };
	struct cw_dump d;
	uint8_t *copy = malloc(f->len + end_len + 1);
	int n;

	n = snprintf(sd->why, sizeof(sd->why), "%s: incomplete dump (%s)", sd->name, f->cut);
	/* Without its header there is nothing to parse. */
	if (!copy || n < 0 || (size_t)n >= sizeof(sd->why) || f->headless) {
		free(copy);
		return;
	}
	if (f->len)
		memcpy(copy, f->text, f->len);
	if (end_len) {
		memcpy(copy + f->len, log->end, end_len - 1);
		copy[f->len + end_len - 1] = '\n';
	}
	if (cw_dump_parse(&d, sd->name, copy, f->len + end_len, &err)) {
		size_t skip = strlen(sd->name) + 2;	/* the reader's "NAME: ", said already */

		if (strncmp(err.msg, sd->name, skip - 2))
			skip = 0;
		snprintf(sd->why + n, sizeof(sd->why) - n, "; what came: %s", err.msg + skip);
	}
	else
		snprintf(sd->why + n, sizeof(sd->why) - n,
			 "; its %zu byte%s parse%s, only the end marker is missing", d.len,
			 cw_plural(d.len), cw_verb_s(d.len));
	cw_dump_free(&d);
}

/* Hand the dump collected so far to the callback; the follower starts afresh. */
static int deliver(struct follow *f)
{
	struct cw_stream_dump sd = { .name = f->name };
	int rc;

	if (f->headless && !f->cut[0])
		snprintf(f->cut, sizeof(f->cut), "no %s before line %lu: the stream "
			 "began inside a dump", log_of(f->kind)->begin, f->first_line);
	if (!f->len && !f->cut[0])
		snprintf(f->cut, sizeof(f->cut), "no bytes before %s at line %lu",
			 log_of(f->kind)->end, f->lineno);
	if (f->cut[0]) {
		describe_cut(f, &sd);
		free(f->text);
	} else {
		sd.text = (uint8_t *)f->text;
		sd.len = f->len;
	}
	f->text = NULL;
	f->len = f->cap = 0;
	f->kind = CW_FMT_UNKNOWN;
	f->headless = 0;
	f->cut[0] = '\0';
	rc = f->fn(f->ctx, &sd);
	return rc;
}

/* A dump of kind starts at this line; one being collected is cut by it. */
static int begin(struct follow *f, enum cw_dump_format kind, int headless)
{
	if (f->kind) {
		snprintf(f->cut, sizeof(f->cut), "a new %s at line %lu before %s",
			 log_of(kind)->begin, f->lineno, log_of(f->kind)->end);
		if (deliver(f))
			return 1;
	}
	f->kind = kind;
	f->headless = headless;
	f->first_line = f->lineno;
	snprintf(f->name, sizeof(f->name), "%s:%lu", f->path, f->lineno);
	return 0;
}

/* A line of the dump; once the dump is known to be cut, nothing more is kept. */
static void dump_add(struct follow *f, const char *p, size_t n)
{
	if (!f->cut[0] && f->line_long)
		snprintf(f->cut, sizeof(f->cut), "line %lu is longer than %d bytes", f->lineno,
			 LINE_MAX_LEN);
	if (!f->cut[0] && text_add(f, p, n))
		snprintf(f->cut, sizeof(f->cut), "larger than %u MiB at line %lu",
			 TEXT_MAX >> 20, f->lineno);
}

static int follow_line(struct follow *f, const char *p, size_t n);

/* A line inside a bare hex dump: hex, a blank, the prompt, or its end. */
static int bare_line(struct follow *f, const char *p, size_t n)
{
	const struct cw_dump_log *log = log_of(f->kind);
	char bytes[LINE_MAX_LEN / 2];
	size_t i;

	if (memmem(p, n, log->end, strlen(log->end)))
		return deliver(f);
	for (i = 0; i < n && isxdigit((unsigned char)p[i]); i++)
		if (i % 2)
			bytes[i / 2] = (char)(hexdigit(p[i - 1]) << 4 | hexdigit(p[i]));
	if (i == n && !(n % 2)) {
		dump_add(f, bytes, n / 2);
		return 0;
	}
	if (log->skip && memmem(p, n, log->skip, strlen(log->skip)))
		return 0;
	snprintf(f->cut, sizeof(f->cut), "line %lu is not hex, before %s", f->lineno, log->end);
	if (deliver(f))
		return 1;
	return follow_line(f, p, n);	/* the firmware's log again */
}

/* Does the n bytes at p start with mark? */
static int starts(const char *p, size_t n, const char *mark)
{
	size_t len = strlen(mark);

	return n >= len && !memcmp(p, mark, len);
}

/* The format whose untagged dump line p begins, CW_FMT_UNKNOWN if none. */
static enum cw_dump_format bare_begin(const char *p, size_t n)
{
	const struct cw_dump_log *log;
	unsigned int k;

	for (k = CW_FMT_UNKNOWN + 1; k < CW_NR_FORMATS; k++) {
		log = log_of((enum cw_dump_format)k);
		if (log->begin && !log->tag && memmem(p, n, log->begin, strlen(log->begin)))
			return (enum cw_dump_format)k;
	}
	return CW_FMT_UNKNOWN;
}

/* The format whose tag line p carries, *tag where; CW_FMT_UNKNOWN if none. */
static enum cw_dump_format tagged(const char *p, size_t n, const char **tag)
{
	const struct cw_dump_log *log;
	unsigned int k;

	for (k = CW_FMT_UNKNOWN + 1; k < CW_NR_FORMATS; k++) {
		log = log_of((enum cw_dump_format)k);
		if (log->tag && (*tag = memmem(p, n, log->tag, strlen(log->tag))))
			return (enum cw_dump_format)k;
	}
	return CW_FMT_UNKNOWN;
}

/* One line of the log, without its end of line. */
static int follow_line(struct follow *f, const char *p, size_t n)
{
	enum cw_dump_format kind;
	const char *m = NULL;
	size_t rest;

	if (n && p[n - 1] == '\r')
		n--;
	/* A bare dump's first line starts it wherever it comes, a dump being collected cut. */
	kind = bare_begin(p, n);
	if (kind)
		return begin(f, kind, 0);
	if (f->kind && !log_of(f->kind)->tag)
		return bare_line(f, p, n);
	kind = tagged(p, n, &m);
	if (!kind) {
		if (f->log) {
			fprintf(f->log, "%s: %.*s\n", f->path, (int)n, p);
			fflush(f->log);
		}
		return 0;
	}
	rest = n - (size_t)(m - p);
	if (starts(m, rest, log_of(kind)->begin)) {
		if (begin(f, kind, 0))
			return 1;
	} else if (f->kind != kind && begin(f, kind, 1)) {
		return 1;
	}
	dump_add(f, p, n);
	dump_add(f, "\n", 1);
	if (starts(m, rest, log_of(kind)->end))
		return deliver(f);
	return 0;
}

static int follow_bytes(struct follow *f, const char *buf, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (buf[i] != '\n') {
			if (f->line_len < sizeof(f->line))
				f->line[f->line_len++] = buf[i];
			else
				f->line_long = 1;
			continue;
		}
		f->lineno++;
		if (follow_line(f, f->line, f->line_len))
			return 1;
		f->line_len = 0;
		f->line_long = 0;
	}
	return 0;
}

/* A tty passes bytes as they come: no echo back to the MCU, no CR/LF translation. */
static int tty_raw(int fd, struct termios *saved)
{
	struct termios t;

	if (tcgetattr(fd, saved))
		return 0;
	t = *saved;
	cfmakeraw(&t);
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	return tcsetattr(fd, TCSANOW, &t) ? -1 : 1;
}

int cw_follow(const char *path, FILE *log, cw_follow_fn fn, void *ctx, struct cw_error *err)
{
	struct follow *f = calloc(1, sizeof(*f));
	int fd, raw, rc = 0, stopped = 0;
	struct termios saved;
	char buf[4096];
	ssize_t n;

	if (!f)
		return cw_fail(err, path, -1, "out of memory");
	*f = (struct follow){ .path = strcmp(path, "-") ? path : "<stdin>", .fn = fn,
			      .ctx = ctx, .log = log };
	fd = strcmp(path, "-") ? open(path, O_RDONLY | O_NOCTTY | O_CLOEXEC) : STDIN_FILENO;
	if (fd < 0) {
		rc = cw_fail(err, path, -1, "cannot follow: %s", strerror(errno));
		free(f);
		return rc;
	}
	raw = tty_raw(fd, &saved);
	if (raw < 0)
		rc = cw_fail(err, f->path, -1, "cannot set the tty raw: %s", strerror(errno));
	while (!rc && !stopped) {
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			rc = cw_fail(err, f->path, -1, "read failed after line %lu: %s",
				     f->lineno, strerror(errno));
		else if (!n)
			break;
		else
			stopped = follow_bytes(f, buf, (size_t)n);
	}
	/* A last line without its newline still counts. */
	if (!rc && !stopped && f->line_len) {
		f->lineno++;
		stopped = follow_line(f, f->line, f->line_len);
	}
	if (f->kind && !stopped) {
		snprintf(f->cut, sizeof(f->cut), "the stream %s after line %lu, before %s",
			 rc ? "failed" : "ended", f->lineno, log_of(f->kind)->end);
		deliver(f);
	}
	if (raw > 0)
		tcsetattr(fd, TCSANOW, &saved);
	if (fd != STDIN_FILENO)
		close(fd);
	free(f->text);
	free(f);
	return rc;
}
