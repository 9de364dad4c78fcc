// SPDX-License-Identifier: GPL-2.0
/*
 * cw_summary.c - crashwalk summary: the JSON lines of many reports
 * grouped by crash signature, each group with its count, first and last
 * dump, the builds it was seen in and one representative's top frames.
 *
 * It reads only what crashwalk --json writes, so a fleet's reports can be
 * made anywhere (one host, many, a job engine's map step) and grouped here;
 * a small JSON reader is enough for them and keeps the library's
 * dependencies as they are.
 */
#include <stdlib.h>
#include <string.h>

#include "../../lib/user/fw_grow.h"
#include "../../lib/user/fw_json.h"
#include "base/cw_base.h"

/* ---- a JSON value tree, for one line ---- */

enum jtype { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

struct jval {
	enum jtype type;
	char *key;		/* member name, inside an object */
	char *str;		/* J_STR decoded, J_NUM as written */
	struct jval *child, *next;
};

struct jparser {
	const char *p, *end;
	int depth;
};

static void jfree(struct jval *v)
{
	while (v) {
		struct jval *next = v->next;

		jfree(v->child);
		free(v->key);
		free(v->str);
		free(v);
		v = next;
	}
}

static void skip_ws(struct jparser *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\r' || *j->p == '\n'))
		j->p++;
}

/* A string at j->p (after its quote), decoded into UTF-8; NULL when malformed. */
static char *jstring(struct jparser *j)
{
	char *out = malloc((size_t)(j->end - j->p) + 1), *o = out;
	unsigned int cp;

	if (!out)
		return NULL;
	while (j->p < j->end && *j->p != '"') {
		char c = *j->p++;

		if (c != '\\') {
			*o++ = c;
			continue;
		}
		if (j->p >= j->end)
			break;
		c = *j->p++;
		switch (c) {
		case 'b': *o++ = '\b'; break;
		case 'f': *o++ = '\f'; break;
		case 'n': *o++ = '\n'; break;
		case 'r': *o++ = '\r'; break;
		case 't': *o++ = '\t'; break;
		case 'u':
			if (j->end - j->p < 4 || sscanf(j->p, "%4x", &cp) != 1)
				goto bad;
			j->p += 4;
			if (cp < 0x80) {
				*o++ = (char)cp;
			} else if (cp < 0x800) {
				*o++ = (char)(0xc0 | cp >> 6);
				*o++ = (char)(0x80 | (cp & 0x3f));
			} else {
				*o++ = (char)(0xe0 | cp >> 12);
				*o++ = (char)(0x80 | ((cp >> 6) & 0x3f));
				*o++ = (char)(0x80 | (cp & 0x3f));
			}
			break;
		default:
			*o++ = c;	/* \" \\ \/ */
		}
	}
	if (j->p >= j->end)
		goto bad;
	j->p++;
	*o = 0;
	return out;
bad:
	free(out);
	return NULL;
}

static struct jval *jvalue(struct jparser *j);

/* The members of an object or the elements of an array, up to close; 0 or -1. */
static int jlist(struct jparser *j, struct jval *v, char close)
{
	struct jval **tail = &v->child;

	skip_ws(j);
	if (j->p < j->end && *j->p == close) {
		j->p++;
		return 0;
	}
	for (;;) {
		char *key = NULL;
		struct jval *e;

		skip_ws(j);
		if (close == '}') {
			if (j->p >= j->end || *j->p++ != '"' || !(key = jstring(j)))
				return -1;
			skip_ws(j);
			if (j->p >= j->end || *j->p++ != ':') {
				free(key);
				return -1;
			}
		}
		e = jvalue(j);
		if (!e) {
			free(key);
			return -1;
		}
		e->key = key;
		*tail = e;
		tail = &e->next;
		skip_ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (j->p < j->end && *j->p == close) {
			j->p++;
			return 0;
		}
		return -1;
	}
}

static struct jval *jvalue(struct jparser *j)
{
	struct jval *v = calloc(1, sizeof(*v));
	const char *start;
	int ok = 0;

	if (!v || ++j->depth > 64)
		goto bad;
	skip_ws(j);
	if (j->p >= j->end)
		goto bad;
	switch (*j->p) {
	case '{':
	case '[':
		v->type = *j->p == '{' ? J_OBJ : J_ARR;
		j->p++;
		ok = !jlist(j, v, v->type == J_OBJ ? '}' : ']');
		break;
	case '"':
		j->p++;
		v->type = J_STR;
		ok = (v->str = jstring(j)) != NULL;
		break;
	default:
		/* Numbers, true, false, null: only strings and structure are read. */
		v->type = *j->p == 'n' ? J_NULL : *j->p == 't' || *j->p == 'f' ? J_BOOL : J_NUM;
		start = j->p;
		while (j->p < j->end && !strchr(",]} \t\r\n", *j->p))
			j->p++;
		ok = j->p > start && (v->type != J_NUM ||
				      (v->str = strndup(start, (size_t)(j->p - start))));
	}
	j->depth--;
	if (ok)
		return v;
bad:
	jfree(v);
	return NULL;
}

/* The member key of object o, or NULL. */
static const struct jval *jget(const struct jval *o, const char *key)
{
	const struct jval *v;

	for (v = o && o->type == J_OBJ ? o->child : NULL; v; v = v->next)
		if (v->key && !strcmp(v->key, key))
			return v;
	return NULL;
}

static const char *jstr(const struct jval *v)
{
	return v && v->type == J_STR ? v->str : NULL;
}

/* ---- groups ---- */

#define SUMMARY_FRAMES	8	/* a representative's frames kept, from the faulting one out */
#define SUMMARY_BUILDS	32	/* builds listed per group; more are counted */

struct build_seen {
	char *build_id, *firmware;
	unsigned int count;
};

struct group {
	char *key;		/* the signature, or for failures the error without the dump's name */
	char *cls;
	unsigned int count;
	char *first, *last;
	char *frames[SUMMARY_FRAMES];
	unsigned int nr_frames;
	struct build_seen builds[SUMMARY_BUILDS];
	unsigned int nr_builds, other_builds;
};

struct group_list {
	struct group *g;
	size_t nr, cap;
};

struct cw_summary {
	struct group_list crashes, errors;
	unsigned int dumps, failed;
};

struct cw_summary *cw_summary_new(void)
{
	return calloc(1, sizeof(struct cw_summary));
}

static void free_groups(struct group_list *l)
{
	size_t i;
	unsigned int k;

	for (i = 0; i < l->nr; i++) {
		struct group *g = &l->g[i];

		free(g->key);
		free(g->cls);
		free(g->first);
		free(g->last);
		for (k = 0; k < g->nr_frames; k++)
			free(g->frames[k]);
		for (k = 0; k < g->nr_builds; k++) {
			free(g->builds[k].build_id);
			free(g->builds[k].firmware);
		}
	}
	free(l->g);
}

void cw_summary_free(struct cw_summary *s)
{
	if (!s)
		return;
	free_groups(&s->crashes);
	free_groups(&s->errors);
	free(s);
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* The group of key, made when it is new (first set to path); NULL when out of memory. */
static struct group *group_of(struct group_list *l, const char *key, const char *path, int *fresh)
{
	struct group *g;
	size_t i;

	*fresh = 0;
	for (i = 0; i < l->nr; i++)
		if (!strcmp(l->g[i].key, key))
			return &l->g[i];
	g = fw_grow(l->g, &l->cap, l->nr, sizeof(*g), 64);
	if (!g)
		return NULL;
	l->g = g;
	g = &l->g[l->nr];
	memset(g, 0, sizeof(*g));
	g->key = strdup(key);
	if (!g->key)
		return NULL;
	g->first = dup_or_null(path);
	l->nr++;
	*fresh = 1;
	return g;
}

static void seen_in(struct group *g, const char *build_id, const char *firmware)
{
	struct build_seen *b;
	unsigned int k;

	for (k = 0; k < g->nr_builds; k++) {
		b = &g->builds[k];
		if (!strcmp(b->build_id ? b->build_id : "", build_id ? build_id : "") &&
		    !strcmp(b->firmware ? b->firmware : "", firmware ? firmware : "")) {
			b->count++;
			return;
		}
	}
	if (g->nr_builds == SUMMARY_BUILDS) {
		g->other_builds++;
		return;
	}
	b = &g->builds[g->nr_builds++];
	b->build_id = dup_or_null(build_id);
	b->firmware = dup_or_null(firmware);
	b->count = 1;
}

/* The representative's frames: from the faulting frame out, as the signature hashes them. */
static void keep_frames(struct group *g, const struct jval *report)
{
	const struct jval *f = jget(report, "frames"), *ff = jget(report, "fault_frame"), *e;
	long first = ff && ff->type == J_NUM ? strtol(ff->str, NULL, 10) : 0, i = 0;

	for (e = f && f->type == J_ARR ? f->child : NULL; e; e = e->next, i++) {
		const char *fn = jstr(jget(e, "function"));

		if (i >= first && g->nr_frames < SUMMARY_FRAMES)
			g->frames[g->nr_frames++] = strdup(fn ? fn : "?");
	}
}

/* An error's text without the dump's own name before it, so one cause makes one group. */
static const char *error_cause(const char *msg, const char *path)
{
	size_t n = path ? strlen(path) : 0;

	if (n && !strncmp(msg, path, n) && msg[n] == ':' && msg[n + 1] == ' ')
		return msg + n + 2;
	return msg;
}

int cw_summary_add(struct cw_summary *s, const char *line, size_t len, struct cw_error *err)
{
	struct jparser j = { line, line + len, 0 };
	const struct jval *dump, *fw;
	const char *path, *sig, *msg, *build_id, *firmware;
	struct group *g;
	struct jval *v;
	int fresh, rc = 0;

	v = jvalue(&j);
	if (!v || v->type != J_OBJ || !jstr(jget(v, "schema")) ||
	    strcmp(jstr(jget(v, "schema")), "crashwalk")) {
		jfree(v);
		return cw_fail(err, "summary", -1, "not a crashwalk --json report");
	}
	dump = jget(v, "dump");
	fw = jget(v, "firmware");
	path = jstr(jget(dump, "path"));
	build_id = jstr(jget(dump, "build_id"));
	firmware = jstr(jget(fw, "path"));
	if (!build_id)
		build_id = jstr(jget(fw, "build_id"));
	sig = jstr(jget(v, "signature"));
	msg = jstr(jget(v, "error"));
	s->dumps++;
	if (msg) {
		s->failed++;
		g = group_of(&s->errors, error_cause(msg, path), path, &fresh);
	} else if (sig) {
		g = group_of(&s->crashes, sig, path, &fresh);
		if (g && fresh) {
			g->cls = dup_or_null(jstr(jget(jget(v, "fault"), "class")));
			keep_frames(g, v);
		}
	} else {
		s->dumps--;
		jfree(v);
		return cw_fail(err, "summary", -1, "a report with neither a signature nor an error");
	}
	if (!g) {
		rc = cw_fail(err, "summary", -1, "out of memory");
	} else {
		g->count++;
		free(g->last);
		g->last = dup_or_null(path);
		seen_in(g, build_id, firmware);
	}
	jfree(v);
	return rc;
}

/* Most dumps first; equal counts by key, so the output does not depend on the input order. */
static int by_count(const void *a, const void *b)
{
	const struct group *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->key, y->key);
}

static void group_json(FILE *out, const struct group *g, int crash)
{
	unsigned int k;

	fputs(crash ? "{\"signature\": " : "{\"error\": ", out);
	fw_json_str(out, g->key, 0);
	fprintf(out, ", \"count\": %u, \"first\": ", g->count);
	fw_json_str(out, g->first, 0);
	fputs(", \"last\": ", out);
	fw_json_str(out, g->last, 0);
	if (crash) {
		fputs(", \"fault\": ", out);
		fw_json_str(out, g->cls, 0);
		fputs(", \"frames\": [", out);
		for (k = 0; k < g->nr_frames; k++) {
			fputs(k ? ", " : "", out);
			fw_json_str(out, g->frames[k], 0);
		}
		fputc(']', out);
	}
	fputs(", \"builds\": [", out);
	for (k = 0; k < g->nr_builds; k++) {
		fputs(k ? ", {\"build_id\": " : "{\"build_id\": ", out);
		fw_json_str(out, g->builds[k].build_id, 0);
		fputs(", \"firmware\": ", out);
		fw_json_str(out, g->builds[k].firmware, 0);
		fprintf(out, ", \"count\": %u}", g->builds[k].count);
	}
	fprintf(out, "], \"other_builds\": %u}", g->other_builds);
}

static void group_text(FILE *out, const struct group *g, unsigned int rank, int crash)
{
	unsigned int k;

	if (crash)
		fprintf(out, "#%u  %u dump%s  signature %s%s%s\n", rank, g->count,
			g->count == 1 ? "" : "s", g->key, g->cls ? "  " : "", g->cls ? g->cls : "");
	else
		fprintf(out, "#%u  %u dump%s  %s\n", rank, g->count, g->count == 1 ? "" : "s",
			g->key);
	if (crash && g->nr_frames) {
		fputs("    frames:", out);
		for (k = 0; k < g->nr_frames; k++)
			fprintf(out, "%s%s", k ? " < " : " ", g->frames[k]);
		fputc('\n', out);
	}
	fprintf(out, "    builds: %u\n", g->nr_builds + g->other_builds);
	for (k = 0; k < g->nr_builds; k++)
		fprintf(out, "      %6u  %s  %s\n", g->builds[k].count,
			g->builds[k].build_id ? g->builds[k].build_id : "(no build-id)",
			g->builds[k].firmware ? g->builds[k].firmware : "");
	if (g->other_builds)
		fprintf(out, "      and %u more\n", g->other_builds);
	fprintf(out, "    first: %s\n    last:  %s\n", g->first ? g->first : "?",
		g->last ? g->last : "?");
}

void cw_summary_print(FILE *out, struct cw_summary *s, int json)
{
	size_t i;

	if (s->crashes.nr)
		qsort(s->crashes.g, s->crashes.nr, sizeof(*s->crashes.g), by_count);
	if (s->errors.nr)
		qsort(s->errors.g, s->errors.nr, sizeof(*s->errors.g), by_count);
	if (json) {
		fprintf(out, "{\"schema\": \"crashwalk-summary\", \"version\": 1, \"dumps\": %u, "
			"\"failed\": %u, \"groups\": [", s->dumps, s->failed);
		for (i = 0; i < s->crashes.nr; i++) {
			fputs(i ? ", " : "", out);
			group_json(out, &s->crashes.g[i], 1);
		}
		fputs("], \"errors\": [", out);
		for (i = 0; i < s->errors.nr; i++) {
			fputs(i ? ", " : "", out);
			group_json(out, &s->errors.g[i], 0);
		}
		fputs("]}\n", out);
		return;
	}
	fprintf(out, "%u dump%s: %u analyzed in %zu crash group%s, %u failed\n", s->dumps,
		s->dumps == 1 ? "" : "s", s->dumps - s->failed, s->crashes.nr,
		s->crashes.nr == 1 ? "" : "s", s->failed);
	for (i = 0; i < s->crashes.nr; i++)
		group_text(out, &s->crashes.g[i], (unsigned int)i + 1, 1);
	if (s->errors.nr)
		fprintf(out, "failed dumps, by cause:\n");
	for (i = 0; i < s->errors.nr; i++)
		group_text(out, &s->errors.g[i], (unsigned int)i + 1, 0);
}
