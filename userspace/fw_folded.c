// SPDX-License-Identifier: GPL-2.0
/*
 * fw_folded.c - folded stacks in the CLI: the one reader and writer of them.
 *
 * A recording's chains as their elements (lib/fw_folded.h's layout, as the
 * module writes them), printed as folded text; folded text read back.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/fw_folded.h"
#include "fw_cli.h"
#include "fw_maps.h"

/* The elements of one chain: names one after the other in text, found by offset. */
struct fw_fold_buf {
	struct fw_recording *r;
	struct fw_usym *usym;
	const struct fw_event *e;
	char *text;
	size_t len, cap;
	size_t off[FW_MAX_ANCESTORS + 2 + FW_MAX_USER + 2];
	unsigned int n;
	int nomem;
};

static void fw_fold_put(struct fw_fold_buf *b, const char *name)
{
	size_t need = strlen(name) + 1;
	char *t;

	if (b->nomem || b->n == sizeof(b->off) / sizeof(b->off[0]))
		return;
	if (b->len + need > b->cap) {
		t = realloc(b->text, b->len + need + FW_SYM_BUF);
		if (!t) {
			b->nomem = 1;
			return;
		}
		b->text = t;
		b->cap = b->len + need + FW_SYM_BUF;
	}
	memcpy(b->text + b->len, name, need);
	b->off[b->n++] = b->len;
	b->len += need;
}

static void fw_fold_stop(void *ctx, unsigned int stop)
{
	char buf[64];

	snprintf(buf, sizeof(buf), FW_FOLDED_STOP_FMT, fw_stop_name(stop));
	fw_fold_put(ctx, buf);
}

static void fw_fold_user(void *ctx, unsigned int i)
{
	struct fw_fold_buf *b = ctx;
	char buf[FW_SYM_BUF];

	fw_fold_put(b, fw_frame_name(b->r, b->usym, b->e, b->e->nr_ancestors + 2 + i, buf,
				     sizeof(buf)));
}

static void fw_fold_kernel(void *ctx, unsigned int i)
{
	struct fw_fold_buf *b = ctx;
	char buf[FW_SYM_BUF];

	fw_fold_put(b, fw_frame_name(b->r, b->usym, b->e, i, buf, sizeof(buf)));
}

/* Elements are kept apart in fw_fold_buf: the separator is the text's business. */
static void fw_fold_sep(void *ctx)
{
	(void)ctx;
}

static const struct fw_folded_ops fw_fold_ops = {
	.stop = fw_fold_stop,
	.user = fw_fold_user,
	.kernel = fw_fold_kernel,
	.sep = fw_fold_sep,
};

int fw_fold_each(struct fw_recording *r, int (*cb)(void *ctx, const struct fw_fold *f),
		 void *ctx)
{
	struct fw_fold_buf b = { .r = r, .usym = fw_usym_new(r) };
	const char *elem[sizeof(b.off) / sizeof(b.off[0])];
	struct fw_fold f = { .elem = elem };
	unsigned int i;
	size_t n;
	int ret = 0;

	if (!b.usym)
		b.nomem = 1;
	for (n = 0; n < r->nev && !b.nomem && !ret; n++) {
		b.e = &r->ev[n];
		b.len = 0;
		b.n = 0;
		fw_folded_chain(&fw_fold_ops, &b, b.e->nr_ancestors + 2, b.e->stop, b.e->nr_user,
				b.e->user_stop, 0);
		if (b.nomem)
			break;
		for (i = 0; i < b.n; i++)
			elem[i] = b.text + b.off[i];
		f.n = b.n;
		f.count = b.e->count;
		ret = cb(ctx, &f);
	}
	free(b.text);
	fw_usym_free(b.usym);
	if (b.nomem) {
		fprintf(stderr, "framewalk: out of memory\n");
		return -1;
	}
	return ret;
}

/* The folded lines of a recording as keys (elements joined), and their text. */
struct fw_fold_keys {
	struct fw_count *v;
	size_t n, cap;
};

static int fw_fold_key_add(void *ctx, const struct fw_fold *f)
{
	struct fw_fold_keys *k = ctx;
	struct fw_count *v;
	size_t len = 0, at = 0;
	unsigned int i;
	char *s;

	for (i = 0; i < f->n; i++)
		len += strlen(f->elem[i]) + 1;
	v = fw_grow(k->v, &k->cap, k->n, sizeof(*v), 64);
	if (v)
		k->v = v;
	s = v ? malloc(len ? len : 1) : NULL;
	if (!s) {
		fprintf(stderr, "framewalk: out of memory\n");
		return -1;
	}
	s[0] = '\0';
	for (i = 0; i < f->n; i++)
		at += sprintf(s + at, "%s%s", i ? FW_FOLDED_SEP_STR : "", f->elem[i]);
	v[k->n].key = s;
	v[k->n++].count = f->count;
	return 0;
}

/*
 * One line per distinct stack, sorted, equal stacks' hits added up: the
 * module's folded file lists each counted chain once too.
 */
int fw_folded(struct fw_recording *r, FILE *out)
{
	struct fw_fold_keys k = {};
	char **text;
	size_t i, d;
	int ret;

	ret = fw_fold_each(r, fw_fold_key_add, &k);
	/* fw_count_keys drops the keys it merges: their text is freed from here. */
	text = calloc(k.n ? k.n : 1, sizeof(*text));
	if (!ret && !text) {
		fprintf(stderr, "framewalk: out of memory\n");
		ret = -1;
	}
	for (i = 0; i < k.n; i++)
		if (text)
			text[i] = (char *)k.v[i].key;
		else
			free((char *)k.v[i].key);
	if (!ret) {
		d = fw_count_keys(k.v, k.n);
		for (i = 0; i < d; i++)
			fprintf(out, "%s %llu\n", k.v[i].key, k.v[i].count);
	}
	for (i = 0; text && i < k.n; i++)
		free(text[i]);
	free(text);
	free(k.v);
	return ret ? 1 : 0;
}

/*
 * One folded line, "elem;...;elem COUNT", split in place into f (elem of
 * *cap entries, grown as needed). 0, or -1 with what is wrong in err.
 */
static int fw_folded_parse(char *line, struct fw_fold *f, const char ***elem, size_t *cap,
			   char *err, size_t errlen)
{
	const char **v;
	char *sp, *end, *s;

	line[strcspn(line, "\r\n")] = 0;
	sp = strrchr(line, ' ');
	if (!sp || sp == line) {
		snprintf(err, errlen, "expected 'frame;...;frame COUNT'");
		return -1;
	}
	errno = 0;
	f->count = strtoull(sp + 1, &end, 10);
	if (sp[1] < '0' || sp[1] > '9' || *end || errno || !f->count) {
		snprintf(err, errlen, "expected a positive count after the last space, not '%s'",
			 sp + 1);
		return -1;
	}
	*sp = 0;
	for (s = line; ; s = end + 1) {
		end = s + strcspn(s, FW_FOLDED_SEP_STR);
		if (end == s) {
			snprintf(err, errlen, "empty frame name in '%s'", line);
			return -1;
		}
		if (!*end)
			break;
	}
	f->n = 0;
	for (s = line; ; s = end + 1) {
		end = s + strcspn(s, FW_FOLDED_SEP_STR);
		v = fw_grow(*elem, cap, f->n, sizeof(*v), 64);
		if (!v) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		*elem = v;
		v[f->n++] = s;
		if (!*end)
			break;
		*end = 0;
	}
	f->elem = *elem;
	return 0;
}

int fw_folded_read(FILE *in, const char *who, const char *name,
		   int (*cb)(void *ctx, const struct fw_fold *f), void *ctx)
{
	char *line = NULL, err[256];
	size_t lcap = 0, cap = 0, lineno = 0;
	const char **elem = NULL;
	struct fw_fold f;
	int ret = 0;

	while (!ret && getline(&line, &lcap, in) > 0) {
		lineno++;
		if (line[0] == '\n' || line[0] == '#')
			continue;
		if (fw_folded_parse(line, &f, &elem, &cap, err, sizeof(err))) {
			fprintf(stderr, "%s: %s:%zu: not folded stacks: %s\n", who, name, lineno,
				err);
			ret = -1;
			break;
		}
		ret = cb(ctx, &f);
	}
	free(line);
	free(elem);
	return ret;
}
