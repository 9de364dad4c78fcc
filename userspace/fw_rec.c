// SPDX-License-Identifier: GPL-2.0
/*
 * fw_rec.c - read and write framewalk recordings, and the kernel symbol table
 * that makes their addresses readable. The format is documented in
 * Documentation/framewalk-cli.rst: line-oriented text, one record per line.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "fw_rec.h"

/*
 * The doubling array v with room for its element n: v itself, or v moved;
 * NULL when out of memory, v then left as it was.
 */
static void *fw_grow(void *v, size_t *cap, size_t n, size_t elem, size_t first)
{
	size_t want = *cap ? *cap * 2 : first;
	void *p;

	if (n < *cap)
		return v;
	p = realloc(v, want * elem);
	if (p)
		*cap = want;
	return p;
}

int fw_symtab_add(struct fw_symtab *t, unsigned long long addr, const char *name)
{
	struct fw_sym *v = fw_grow(t->v, &t->cap, t->n, sizeof(*v), 4096);

	if (!v)
		return -ENOMEM;
	t->v = v;
	t->v[t->n].addr = addr;
	t->v[t->n].name = strdup(name);
	if (!t->v[t->n].name)
		return -ENOMEM;
	t->n++;
	t->sorted = 0;
	return 0;
}

int fw_symtab_load_kallsyms(struct fw_symtab *t, FILE *f)
{
	char line[512], type, name[256];
	unsigned long long addr;

	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3)
			continue;
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		if (fw_symtab_add(t, addr, name))
			return -ENOMEM;
	}
	return 0;
}

static int fw_sym_cmp(const void *a, const void *b)
{
	const struct fw_sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The symbol at or below addr; kallsyms has no sizes, so the next symbol bounds it. */
const struct fw_sym *fw_symtab_find(struct fw_symtab *t, unsigned long long addr)
{
	size_t lo = 0, hi = t->n;

	if (!t->n)
		return NULL;
	if (!t->sorted) {
		qsort(t->v, t->n, sizeof(*t->v), fw_sym_cmp);
		t->sorted = 1;
	}
	if (addr < t->v[0].addr)
		return NULL;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->v[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	/* Past the last symbol by more than any function is long: unknown. */
	if (lo == t->n - 1 && addr - t->v[lo].addr > 1 << 20)
		return NULL;
	return &t->v[lo];
}

const char *fw_symtab_format(struct fw_symtab *t, unsigned long long addr, int with_offset,
			     char *buf, size_t len)
{
	const struct fw_sym *s = fw_symtab_find(t, addr);

	if (!s)
		snprintf(buf, len, "0x%llx", addr);
	else if (with_offset)
		snprintf(buf, len, "%s+0x%llx", s->name, addr - s->addr);
	else
		snprintf(buf, len, "%s", s->name);
	return buf;
}

void fw_symtab_free(struct fw_symtab *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->v[i].name);
	free(t->v);
	memset(t, 0, sizeof(*t));
}

void fw_rec_write_header(FILE *f, const char *kernel, const char *filter,
			 const char *notrace, unsigned int depth)
{
	fprintf(f, "%s %d\n", FW_REC_MAGIC, FW_REC_VERSION);
	fprintf(f, "kernel %s\nfilter %s\nnotrace %s\ndepth %u\n", kernel, filter, notrace, depth);
}

void fw_rec_write_event(FILE *f, const struct fw_event *e)
{
	unsigned int i;

	fprintf(f, "E %u %llu %d %llx %llx %u %u", e->cpu, e->ts, e->pid, e->ip, e->parent,
		e->stop, e->nanc);
	for (i = 0; i < e->nanc; i++)
		fprintf(f, " %llx", e->anc[i]);
	fputc('\n', f);
}

void fw_rec_write_comm(FILE *f, int pid, const char *comm)
{
	fprintf(f, "C %d %s\n", pid, comm);
}

void fw_rec_write_syms(FILE *f, const struct fw_symtab *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		fprintf(f, "S %llx %s\n", t->v[i].addr, t->v[i].name);
}

void fw_rec_write_end(FILE *f, size_t events, unsigned long long dropped)
{
	fprintf(f, "end %zu %llu\n", events, dropped);
}

static int fw_rec_err(char *err, size_t len, const char *path, unsigned long line,
		      const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(err, len, "%s:%lu: ", path, line);
	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < len)
		vsnprintf(err + n, len - n, fmt, ap);
	va_end(ap);
	return -1;
}

/* Parse an "E ..." line into e; returns a message on error, NULL when fine. */
static const char *fw_rec_parse_event(char *p, struct fw_event *e)
{
	unsigned int i;
	int used;

	if (sscanf(p, "E %u %llu %d %llx %llx %u %u%n", &e->cpu, &e->ts, &e->pid, &e->ip,
		   &e->parent, &e->stop, &e->nanc, &used) != 7)
		return "malformed event line";
	if (e->nanc > FW_MAX_ANC)
		return "more than 64 ancestors";
	p += used;
	for (i = 0; i < e->nanc; i++) {
		if (sscanf(p, " %llx%n", &e->anc[i], &used) != 1)
			return "fewer ancestors than the event says";
		p += used;
	}
	while (*p == ' ' || *p == '\n')
		p++;
	return *p ? "trailing data after the ancestors" : NULL;
}

static int fw_rec_add_event(struct fw_recording *r, const struct fw_event *e)
{
	struct fw_event *v = fw_grow(r->ev, &r->cap, r->nev, sizeof(*v), 1024);

	if (!v)
		return -ENOMEM;
	r->ev = v;
	r->ev[r->nev++] = *e;
	return 0;
}

static int fw_rec_add_comm(struct fw_recording *r, int pid, const char *name)
{
	struct fw_comm *v = fw_grow(r->comm, &r->ccap, r->ncomm, sizeof(*v), 64);

	if (!v)
		return -ENOMEM;
	r->comm = v;
	v[r->ncomm].pid = pid;
	/* Kernel comms are at most 15 characters; a longer one is cut, not refused. */
	snprintf(v[r->ncomm].name, sizeof(v[r->ncomm].name), "%.31s", name);
	r->ncomm++;
	return 0;
}

static void fw_copy_value(char *dst, size_t len, const char *line, const char *key)
{
	size_t k = strlen(key);

	snprintf(dst, len, "%s", line + k + (line[k] == ' '));
	dst[strcspn(dst, "\n")] = '\0';
}

int fw_rec_read(const char *path, struct fw_recording *r, char *err, size_t errlen)
{
	unsigned long lineno = 0;
	char line[4096], name[256];
	unsigned long long addr;
	struct fw_event e;
	const char *why;
	int version, pid, ended = 0, ret = -1;
	size_t nend;
	FILE *f;

	memset(r, 0, sizeof(*r));
	f = fopen(path, "r");
	if (!f)
		return fw_rec_err(err, errlen, path, 0, "%s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		if (!strchr(line, '\n') && !feof(f)) {
			fw_rec_err(err, errlen, path, lineno, "line longer than %zu bytes",
				   sizeof(line) - 1);
			goto out;
		}
		if (lineno == 1) {
			if (sscanf(line, FW_REC_MAGIC " %d", &version) != 1) {
				fw_rec_err(err, errlen, path, 1, "not a framewalk recording");
				goto out;
			}
			if (version != FW_REC_VERSION) {
				fw_rec_err(err, errlen, path, 1, "format version %d, expected %d",
					   version, FW_REC_VERSION);
				goto out;
			}
			continue;
		}
		if (ended) {
			fw_rec_err(err, errlen, path, lineno, "data after the end line");
			goto out;
		}
		switch (line[0]) {
		case 'E':
			memset(&e, 0, sizeof(e));
			why = fw_rec_parse_event(line, &e);
			if (why) {
				fw_rec_err(err, errlen, path, lineno, "%s", why);
				goto out;
			}
			if (fw_rec_add_event(r, &e))
				goto nomem;
			break;
		case 'S':
			if (sscanf(line, "S %llx %255s", &addr, name) != 2) {
				fw_rec_err(err, errlen, path, lineno, "malformed symbol line");
				goto out;
			}
			if (fw_symtab_add(&r->syms, addr, name))
				goto nomem;
			break;
		case 'C':
			if (sscanf(line, "C %d %255s", &pid, name) != 2) {
				fw_rec_err(err, errlen, path, lineno, "malformed comm line");
				goto out;
			}
			if (fw_rec_add_comm(r, pid, name))
				goto nomem;
			break;
		default:
			if (!strncmp(line, "kernel", 6)) {
				fw_copy_value(r->kernel, sizeof(r->kernel), line, "kernel");
			} else if (!strncmp(line, "filter", 6)) {
				fw_copy_value(r->filter, sizeof(r->filter), line, "filter");
			} else if (!strncmp(line, "notrace", 7)) {
				fw_copy_value(r->notrace, sizeof(r->notrace), line, "notrace");
			} else if (sscanf(line, "depth %u", &r->depth) == 1) {
				;
			} else if (sscanf(line, "end %zu %llu", &nend, &r->dropped) == 2) {
				if (nend != r->nev) {
					fw_rec_err(err, errlen, path, lineno,
						   "end line counts %zu events, the file has %zu",
						   nend, r->nev);
					goto out;
				}
				ended = 1;
			} else {
				fw_rec_err(err, errlen, path, lineno, "unknown line '%.*s'",
					   (int)strcspn(line, "\n") < 20 ? (int)strcspn(line, "\n") : 20,
					   line);
				goto out;
			}
		}
	}
	if (lineno == 0) {
		fw_rec_err(err, errlen, path, 0, "empty file");
		goto out;
	}
	/* A recording cut short (the recorder was killed) still reads, with what it has. */
	ret = 0;
	goto out;
nomem:
	fw_rec_err(err, errlen, path, lineno, "out of memory");
out:
	fclose(f);
	if (ret)
		fw_rec_free(r);
	return ret;
}

const char *fw_rec_comm(const struct fw_recording *r, int pid)
{
	size_t i;

	for (i = 0; i < r->ncomm; i++)
		if (r->comm[i].pid == pid)
			return r->comm[i].name;
	return pid == 0 ? "<idle>" : "<...>";
}

void fw_rec_free(struct fw_recording *r)
{
	free(r->ev);
	free(r->comm);
	fw_symtab_free(&r->syms);
	memset(r, 0, sizeof(*r));
}
