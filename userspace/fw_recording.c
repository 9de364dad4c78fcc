// SPDX-License-Identifier: GPL-2.0
/*
 * fw_recording.c - the recording file that framewalk record writes and report,
 * folded, top and flamegraph read, and the kernel symbol table that makes its
 * addresses readable. The format is documented in Documentation/framewalk-cli.rst:
 * line-oriented text, one event, counted chain, task name or symbol per line.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/fw_walk.h"
#include "../lib/user/fw_hex.h"
#include "fw_recording.h"
#include "fw_stops.h"

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
	unsigned long long addr;
	char *line = NULL, type;
	size_t cap = 0, len;
	int used, ret = 0;

	/* getline: a symbol name is never cut, however long (KSYM_NAME_LEN is 512). */
	while (getline(&line, &cap, f) > 0) {
		used = 0;
		if (sscanf(line, "%llx %c %n", &addr, &type, &used) != 2 || !used)
			continue;
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		len = strcspn(line + used, " \t\n");
		if (!len)
			continue;
		line[used + len] = '\0';
		if (fw_symtab_add(t, addr, line + used)) {
			ret = -ENOMEM;
			break;
		}
	}
	free(line);
	return ret;
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

/* One "stop VALUE NAME" line per stop: the numbers of the lines after it, by name. */
static void fw_recording_write_stops(FILE *f)
{
	unsigned int v;

	for (v = 0; v < FW_STOP_NONE; v++)
		if (v < FW_STOP_KERNEL_NR || fw_stop_is_user(v))
			fprintf(f, "stop %u %s\n", v, fw_stop_name(v));
}

void fw_recording_write_header(FILE *f, const char *kernel, const char *filter,
			 const char *notrace, unsigned int depth)
{
	fprintf(f, "%s %d\n", FW_RECORDING_MAGIC, FW_RECORDING_VERSION);
	fprintf(f, "kernel %s\nfilter %s\nnotrace %s\ndepth %u\n", kernel, filter, notrace, depth);
	fw_recording_write_stops(f);
}

void fw_recording_write_event(FILE *f, const struct fw_event *e)
{
	unsigned int i;

	fprintf(f, "E %u %llu %d %llx %llx %u %u %llx %u", e->cpu, e->ts, e->pid, e->ip,
		e->parent, e->stop, e->tramp, e->recovered, e->nr_ancestors);
	for (i = 0; i < e->nr_ancestors; i++)
		fprintf(f, " %llx", e->ancestors[i]);
	fputc('\n', f);
}

/* "A COUNT IP PARENT STOP N ANCESTORS...": a chain the module counted count times. */
void fw_recording_write_chain(FILE *f, const struct fw_event *e)
{
	unsigned int i;

	fprintf(f, "A %llu %llx %llx %u %u", e->count, e->ip, e->parent, e->stop, e->nr_ancestors);
	for (i = 0; i < e->nr_ancestors; i++)
		fprintf(f, " %llx", e->ancestors[i]);
	fputc('\n', f);
}

void fw_recording_write_comm(FILE *f, int pid, const char *comm)
{
	fprintf(f, "C %d %s\n", pid, comm);
}

void fw_recording_write_user(FILE *f, const struct fw_event *e)
{
	unsigned int i;

	if (e->user_stop == FW_STOP_USER_OFF)
		return;
	fprintf(f, "U %u %d %u", e->user_stop, e->user_lr, e->nr_user);
	for (i = 0; i < e->nr_user; i++)
		fprintf(f, " %llx", e->user[i]);
	fputc('\n', f);
}

const char *fw_build_id_hex(const unsigned char *id, unsigned int len, char *buf)
{
	if (!len)
		return strcpy(buf, "-");
	return fw_hex(id, len, buf, 2 * FW_BUILD_ID_MAX + 1);
}

void fw_recording_write_mapset(FILE *f, int pid, const struct fw_mapping *m, size_t n)
{
	char hex[2 * FW_BUILD_ID_MAX + 1];
	size_t i;

	fprintf(f, "P %d %zu\n", pid, n);
	for (i = 0; i < n; i++)
		fprintf(f, "M %llx %llx %llx %s %s\n", m[i].start, m[i].end, m[i].offset,
			fw_build_id_hex(m[i].build_id, m[i].build_id_len, hex), m[i].path);
}

void fw_recording_write_syms(FILE *f, const struct fw_symtab *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		fprintf(f, "S %llx %s\n", t->v[i].addr, t->v[i].name);
}

void fw_recording_write_end(FILE *f, size_t events, unsigned long long dropped)
{
	fprintf(f, "end %zu %llu\n", events, dropped);
}

static int fw_read_err(char *err, size_t len, const char *path, unsigned long line,
		       const char *fmt, ...)
{
	va_list ap;
	int n;

	n = line ? snprintf(err, len, "%s:%lu: ", path, line) : snprintf(err, len, "%s: ", path);
	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < len)
		vsnprintf(err + n, len - n, fmt, ap);
	va_end(ap);
	return -1;
}

/*
 * How a recording numbers its stops: its value v is this framewalk's to[v],
 * by the name its "stop v NAME" line gives v (name[v], "" where no line
 * does). Recordings before format 4 have no such lines: they numbered the
 * stops as fw_stop_legacy lists them.
 */
struct fw_stop_table {
	unsigned char to[FW_STOP_NONE + 1];
	char name[FW_STOP_NONE + 1][FW_STOP_NAME_MAX];
};

/* The stops of formats 1 to 3, in their order: the kernel's 0 to 7, then the user's 8 to 15. */
static const char *const fw_stop_legacy[] = {
	"chain_end", "depth", "misaligned", "off_stack", "not_increasing", "read_fault",
	"trampoline", "no_record", "user_off", "user_kernel", "user_compat", "user_end",
	"user_depth", "user_bad_fp", "user_not_increasing", "user_fault",
};

/* Value v of the recording is name: a "stop" line, or a legacy entry. NULL when fine. */
static const char *fw_stop_table_set(struct fw_stop_table *t, unsigned int v, const char *name)
{
	size_t len = strlen(name);
	int to;

	if (v >= FW_STOP_NONE)
		return "a stop value above 254";
	if (!len || len >= FW_STOP_NAME_MAX ||
	    strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_") != len)
		return "a stop name that is not lowercase letters, digits and _, or longer than 31";
	if (t->name[v][0] && strcmp(t->name[v], name))
		return "a stop value named twice, differently";
	to = fw_stop_by_name(name, len);
	t->to[v] = to < 0 ? FW_STOP_NONE : (unsigned char)to;
	strcpy(t->name[v], name);
	return NULL;
}

static void fw_stop_table_init(struct fw_stop_table *t, int version)
{
	unsigned int v;

	memset(t->to, FW_STOP_NONE, sizeof(t->to));
	memset(t->name, 0, sizeof(t->name));
	if (version >= 4)
		return;
	for (v = 0; v < sizeof(fw_stop_legacy) / sizeof(fw_stop_legacy[0]); v++)
		fw_stop_table_set(t, v, fw_stop_legacy[v]);
}

/*
 * The recording's stop *stop as this framewalk numbers it, in place; a
 * message on error, NULL when fine. FW_STOP_NONE is a stop whose name the
 * recorder did not know, written as such.
 */
static const char *fw_stop_table_map(const struct fw_stop_table *t, unsigned int *stop)
{
	static char why[128];

	if (*stop == FW_STOP_NONE)
		return NULL;
	if (*stop > FW_STOP_NONE || !t->name[*stop][0]) {
		snprintf(why, sizeof(why), "stop %u is not in the recording's stop table "
			 "(its 'stop VALUE NAME' lines)", *stop);
		return why;
	}
	if (t->to[*stop] == FW_STOP_NONE) {
		snprintf(why, sizeof(why), "stop %u is '%s', which this framewalk does not know "
			 "(a newer one wrote the recording?)", *stop, t->name[*stop]);
		return why;
	}
	*stop = t->to[*stop];
	return NULL;
}

/*
 * The n addresses that end a line into v; on error "fewer WHAT than the line
 * says" or "trailing data after the WHAT" (of the static buffer), else NULL.
 */
static const char *fw_recording_parse_addrs(char *p, unsigned long long *v, unsigned int n,
					    const char *what)
{
	static char why[64];
	unsigned int i;
	int used;

	for (i = 0; i < n; i++) {
		if (sscanf(p, " %llx%n", &v[i], &used) != 1) {
			snprintf(why, sizeof(why), "fewer %s than the line says", what);
			return why;
		}
		p += used;
	}
	while (*p == ' ' || *p == '\n')
		p++;
	if (!*p)
		return NULL;
	snprintf(why, sizeof(why), "trailing data after the %s", what);
	return why;
}

/* The ancestors that end an "E" or "A" line; returns a message on error, NULL when fine. */
static const char *fw_recording_parse_ancestors(char *p, struct fw_event *e)
{
	if (e->nr_ancestors > FW_MAX_ANCESTORS)
		return "more than 64 ancestors";
	return fw_recording_parse_addrs(p, e->ancestors, e->nr_ancestors, "ancestors");
}

/*
 * Parse "S ADDR NAME" in place: the name is the rest of the line, however
 * long, so a long (Rust, LTO) symbol is never cut. NULL when malformed.
 */
static char *fw_recording_parse_sym(char *p, unsigned long long *addr)
{
	int used = 0;
	size_t len;

	if (sscanf(p, "S %llx %n", addr, &used) != 1 || !used)
		return NULL;
	p += used;
	len = strcspn(p, "\n");
	p[len] = '\0';
	return len && !strpbrk(p, " \t") ? p : NULL;
}

/* The kernel stop of an E or A line, mapped by t; a message on error, NULL when fine. */
static const char *fw_recording_kernel_stop(const struct fw_stop_table *t, struct fw_event *e)
{
	const char *why = fw_stop_table_map(t, &e->stop);

	if (why)
		return why;
	return fw_stop_is_user(e->stop) ? "not a kernel stop reason" : NULL;
}

/*
 * Parse an "E ..." line of a recording in format @version, whose stops @t
 * maps, into e; returns a message on error, NULL when fine. Version 1 had no
 * tramp and recovered.
 */
static const char *fw_recording_parse_event(char *p, int version, const struct fw_stop_table *t,
					    struct fw_event *e)
{
	const char *why;
	int used;

	if (version == 1) {
		if (sscanf(p, "E %u %llu %d %llx %llx %u %u%n", &e->cpu, &e->ts, &e->pid,
			   &e->ip, &e->parent, &e->stop, &e->nr_ancestors, &used) != 7)
			return "malformed event line";
	} else if (sscanf(p, "E %u %llu %d %llx %llx %u %u %llx %u%n", &e->cpu, &e->ts,
			  &e->pid, &e->ip, &e->parent, &e->stop, &e->tramp, &e->recovered,
			  &e->nr_ancestors, &used) != 9) {
		return "malformed event line";
	}
	why = fw_recording_kernel_stop(t, e);
	if (why)
		return why;
	if (e->tramp >= FW_TRAMP_NR)
		return "unknown trampoline number";
	if (e->tramp != FW_TRAMP_NONE && e->stop != FW_STOP_TRAMPOLINE)
		return "a trampoline named on an event that did not stop at one";
	if (e->nr_ancestors < FW_MAX_ANCESTORS && e->recovered >> e->nr_ancestors)
		return "recovered marks a frame beyond the ancestors";
	e->count = 1;
	return fw_recording_parse_ancestors(p + used, e);
}

/* Parse an "A ..." line (a counted chain) into e. */
static const char *fw_recording_parse_chain(char *p, const struct fw_stop_table *t,
					    struct fw_event *e)
{
	const char *why;
	int used;

	if (sscanf(p, "A %llu %llx %llx %u %u%n", &e->count, &e->ip, &e->parent, &e->stop,
		   &e->nr_ancestors, &used) != 5)
		return "malformed chain line";
	why = fw_recording_kernel_stop(t, e);
	if (why)
		return why;
	if (!e->count)
		return "chain counted 0 times";
	e->counted = 1;
	return fw_recording_parse_ancestors(p + used, e);
}

/* Parse "U STOP LR NR ADDR..." into e, whose E or A line it follows. */
static const char *fw_recording_parse_user(char *p, const struct fw_stop_table *t,
					   struct fw_event *e)
{
	const char *why;
	int used;

	if (sscanf(p, "U %u %d %u%n", &e->user_stop, &e->user_lr, &e->nr_user, &used) != 3)
		return "malformed user line, expected 'U STOP LR NR ADDR...'";
	why = fw_stop_table_map(t, &e->user_stop);
	if (why)
		return why;
	if (!fw_stop_is_user(e->user_stop) && e->user_stop != FW_STOP_NONE)
		return "not a user stop reason";
	if (e->nr_user > FW_MAX_USER)
		return "more than 64 user frames";
	if (e->user_lr != 0 && (e->user_lr != 1 || e->nr_user < 2))
		return "user_lr set without a second user frame";
	return fw_recording_parse_addrs(p + used, e->user, e->nr_user, "user frames");
}

/* A build-id's hex ("-": none) into m; NULL when fine. */
static const char *fw_parse_build_id(const char *hex, struct fw_mapping *m)
{
	size_t len = strlen(hex), i;
	unsigned int byte;

	m->build_id_len = 0;
	if (!strcmp(hex, "-"))
		return NULL;
	if (len % 2 || len / 2 > FW_BUILD_ID_MAX)
		return "a build-id of an odd length or longer than 64 bytes";
	for (i = 0; i < len / 2; i++) {
		if (!isxdigit((unsigned char)hex[2 * i]) || !isxdigit((unsigned char)hex[2 * i + 1]) ||
		    sscanf(hex + 2 * i, "%2x", &byte) != 1)
			return "a build-id that is not hexadecimal";
		m->build_id[i] = (unsigned char)byte;
	}
	m->build_id_len = (unsigned int)(len / 2);
	return NULL;
}

/* Parse "M START END OFFSET BUILDID PATH" into m: PATH is the rest of the line, spaces too. */
static const char *fw_recording_parse_mapping(char *p, struct fw_mapping *m)
{
	char hex[2 * FW_BUILD_ID_MAX + 2];
	const char *why;
	int used = 0;

	if (sscanf(p, "M %llx %llx %llx %129s %n", &m->start, &m->end, &m->offset, hex,
		   &used) != 4 || !used)
		return "malformed mapping line, expected 'M START END OFFSET BUILDID PATH'";
	if (m->end <= m->start)
		return "a mapping that ends before it starts";
	why = fw_parse_build_id(hex, m);
	if (why)
		return why;
	p += used;
	p[strcspn(p, "\n")] = '\0';
	m->path = strdup(p);
	return m->path ? NULL : "out of memory";
}

/* The mapping set of pid that the lines read so far make current; -1: none. */
static long fw_recording_mapset_of(const struct fw_recording *r, int pid)
{
	size_t i = r->nmapsets;

	while (i--)
		if (r->mapsets[i].pid == pid)
			return (long)i;
	return -1;
}

int fw_recording_add(struct fw_recording *r, const struct fw_event *e)
{
	struct fw_event *v = fw_grow(r->ev, &r->cap, r->nev, sizeof(*v), 1024);

	if (!v)
		return -ENOMEM;
	r->ev = v;
	r->ev[r->nev++] = *e;
	return 0;
}

int fw_recording_add_comm(struct fw_recording *r, int pid, const char *name)
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

int fw_recording_add_mapset(struct fw_recording *r, int pid)
{
	struct fw_mapset *v = fw_grow(r->mapsets, &r->mscap, r->nmapsets, sizeof(*v), 64);

	if (!v)
		return -ENOMEM;
	r->mapsets = v;
	v[r->nmapsets].pid = pid;
	v[r->nmapsets].first = r->nmaps;
	v[r->nmapsets].n = 0;
	r->nmapsets++;
	return 0;
}

/* m into the last mapping set; its path is the recording's from now on. */
int fw_recording_add_mapping(struct fw_recording *r, const struct fw_mapping *m)
{
	struct fw_mapping *v = fw_grow(r->maps, &r->mcap, r->nmaps, sizeof(*v), 256);

	if (!v)
		return -ENOMEM;
	r->maps = v;
	v[r->nmaps++] = *m;
	r->mapsets[r->nmapsets - 1].n++;
	return 0;
}

/*
 * A U, P or M line (format 3) into r, t mapping its stops: user_due says whether an E or A line
 * came just before, maps_due how many M lines the last P line still counts.
 * Returns a message on error, NULL when fine.
 */
static const char *fw_recording_read_user_line(struct fw_recording *r, char *line,
					       const struct fw_stop_table *t, int user_due,
					       size_t *maps_due)
{
	struct fw_event *e = r->nev ? &r->ev[r->nev - 1] : NULL;
	struct fw_mapping m = {};
	const char *why;
	int pid;

	switch (line[0]) {
	case 'U':
		if (!user_due)
			return "a user line that follows no E or A line";
		why = fw_recording_parse_user(line, t, e);
		/* A counted chain has no pid: its frames go unnamed. */
		if (!why && !e->counted)
			e->mapset = fw_recording_mapset_of(r, e->pid);
		return why;
	case 'P':
		if (sscanf(line, "P %d %zu", &pid, maps_due) != 2)
			return "malformed mappings line, expected 'P PID N'";
		return fw_recording_add_mapset(r, pid) ? "out of memory" : NULL;
	default:
		if (!*maps_due)
			return "a mapping line beyond what its P line counts";
		why = fw_recording_parse_mapping(line, &m);
		if (why)
			return why;
		if (fw_recording_add_mapping(r, &m)) {
			free(m.path);
			return "out of memory";
		}
		(*maps_due)--;
		return NULL;
	}
}

static void fw_copy_value(char *dst, size_t len, const char *line, const char *key)
{
	size_t k = strlen(key);

	snprintf(dst, len, "%s", line + k + (line[k] == ' '));
	dst[strcspn(dst, "\n")] = '\0';
}

/*
 * What a file that is not a recording is, from its first bytes, for an error
 * that tells the user which tool reads it; NULL when it looks like text.
 */
static const char *fw_recording_sniff(const char *head, size_t n)
{
	static const char tracedat[] = "\x17\x08\x44tracing";

	if (n >= sizeof(tracedat) - 1 && !memcmp(head, tracedat, sizeof(tracedat) - 1))
		return "it is a trace-cmd trace.dat (name it as a file, not standard input)";
	if (n >= 4 && !memcmp(head, "\x7f" "ELF", 4))
		return "it is an ELF file";
	if (memchr(head, '\0', n))
		return "it holds binary data";
	return NULL;
}

/* Open path ("-": standard input) as a regular file or a pipe, never a directory. */
static FILE *fw_recording_open(const char *path, char *err, size_t errlen)
{
	struct stat st;
	FILE *f;

	f = strcmp(path, "-") ? fopen(path, "r") : fdopen(dup(STDIN_FILENO), "r");
	if (!f) {
		fw_read_err(err, errlen, path, 0, "%s", strerror(errno));
		return NULL;
	}
	if (!fstat(fileno(f), &st) && S_ISDIR(st.st_mode)) {
		fw_read_err(err, errlen, path, 0,
			    "is a directory, expected a framewalk recording");
		fclose(f);
		return NULL;
	}
	return f;
}

int fw_recording_read(const char *path, struct fw_recording *r, char *err, size_t errlen)
{
	const char *name = strcmp(path, "-") ? path : "<stdin>";
	unsigned long lineno = 0;
	unsigned long long addr;
	char *line = NULL, *sym, comm[256], stop_name[FW_STOP_NAME_MAX + 1];
	struct fw_stop_table *stops;
	unsigned int stop;
	struct fw_event e;
	const char *why;
	int version, pid, ended = 0, user_due = 0, ret = -1;
	size_t nend, cap = 0, maps_due = 0;
	ssize_t len;
	FILE *f;

	if (strcmp(path, "-") && fw_tracedat_is(path))
		return fw_tracedat_read(path, r, err, errlen);
	memset(r, 0, sizeof(*r));
	stops = malloc(sizeof(*stops));
	if (!stops) {
		fw_read_err(err, errlen, name, 0, "out of memory");
		return -1;
	}
	f = fw_recording_open(path, err, errlen);
	if (!f) {
		free(stops);
		return -1;
	}
	while ((len = getline(&line, &cap, f)) > 0) {
		lineno++;
		if (lineno == 1) {
			why = fw_recording_sniff(line, len);
			if (why || sscanf(line, FW_RECORDING_MAGIC " %d", &version) != 1) {
				fw_read_err(err, errlen, name, 1, "not a framewalk recording%s%s; "
					    "expected a '" FW_RECORDING_MAGIC " %d' line",
					    why ? ": " : "", why ? why : "", FW_RECORDING_VERSION);
				goto out;
			}
		}
		if (memchr(line, '\0', len)) {
			fw_read_err(err, errlen, name, lineno, "binary data in a text recording");
			goto out;
		}
		if (len > FW_RECORDING_LINE_MAX) {
			fw_read_err(err, errlen, name, lineno,
				    "line of %zd bytes, longer than any a recording holds (%d)",
				    len, FW_RECORDING_LINE_MAX);
			goto out;
		}
		if (line[len - 1] != '\n') {
			/* The recorder died mid-line: what it had written whole stays. */
			r->cut_line = lineno;
			break;
		}
		if (lineno == 1) {
			if (version < 1 || version > FW_RECORDING_VERSION) {
				fw_read_err(err, errlen, name, 1, "format version %d, expected 1 to %d%s",
					    version, FW_RECORDING_VERSION, version > FW_RECORDING_VERSION ?
					    " (a newer framewalk wrote it)" : "");
				goto out;
			}
			fw_stop_table_init(stops, version);
			continue;
		}
		if (ended) {
			fw_read_err(err, errlen, name, lineno, "data after the end line");
			goto out;
		}
		if (maps_due && line[0] != 'M') {
			fw_read_err(err, errlen, name, lineno, "%zu mapping lines missing after "
				    "the P line", maps_due);
			goto out;
		}
		if (version < 3 && strchr("UPM", line[0])) {
			fw_read_err(err, errlen, name, lineno, "a '%c' line in a format %d recording "
				    "(user frames came with format 3)", line[0], version);
			goto out;
		}
		switch (line[0]) {
		case 'E':
		case 'A':
			memset(&e, 0, sizeof(e));
			e.user_stop = FW_STOP_USER_OFF;
			why = line[0] == 'E' ? fw_recording_parse_event(line, version, stops, &e) :
					       fw_recording_parse_chain(line, stops, &e);
			if (why) {
				fw_read_err(err, errlen, name, lineno, "%s", why);
				goto out;
			}
			e.mapset = -1;
			if (fw_recording_add(r, &e))
				goto nomem;
			user_due = 1;
			continue;
		case 'U':
		case 'P':
		case 'M':
			why = fw_recording_read_user_line(r, line, stops, user_due, &maps_due);
			if (why) {
				fw_read_err(err, errlen, name, lineno, "%s", why);
				goto out;
			}
			break;
		case 'S':
			sym = fw_recording_parse_sym(line, &addr);
			if (!sym) {
				fw_read_err(err, errlen, name, lineno,
					    "malformed symbol line, expected 'S ADDR NAME'");
				goto out;
			}
			if (fw_symtab_add(&r->syms, addr, sym))
				goto nomem;
			break;
		case 'C':
			if (sscanf(line, "C %d %255s", &pid, comm) != 2) {
				fw_read_err(err, errlen, name, lineno,
					    "malformed comm line, expected 'C PID COMM'");
				goto out;
			}
			if (fw_recording_add_comm(r, pid, comm))
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
			} else if (!strncmp(line, "stop ", 5)) {
				why = version < 4 ? "a stop line in a recording of format 3 or older "
						    "(stop tables came with format 4)" :
				      sscanf(line, "stop %u %" FW_STR(FW_STOP_NAME_MAX) "s", &stop,
					     stop_name) != 2 ?
						"malformed stop line, expected 'stop VALUE NAME'" :
						fw_stop_table_set(stops, stop, stop_name);
				if (why) {
					fw_read_err(err, errlen, name, lineno, "%s", why);
					goto out;
				}
			} else if (sscanf(line, "end %zu %llu", &nend, &r->dropped) == 2) {
				if (nend != r->nev) {
					fw_read_err(err, errlen, name, lineno,
						    "end line counts %zu events, the file has %zu",
						    nend, r->nev);
					goto out;
				}
				ended = 1;
			} else {
				fw_read_err(err, errlen, name, lineno, "unknown line '%.*s'",
					    (int)strcspn(line, "\n") < 20 ? (int)strcspn(line, "\n") : 20,
					    line);
				goto out;
			}
		}
		user_due = 0;
	}
	if (ferror(f)) {
		fw_read_err(err, errlen, name, lineno, "%s", strerror(errno));
		goto out;
	}
	if (maps_due && !r->cut_line) {
		fw_read_err(err, errlen, name, lineno, "%zu mapping lines missing after the P line",
			    maps_due);
		goto out;
	}
	if (lineno == 0) {
		fw_read_err(err, errlen, name, 0, "empty file, expected a framewalk recording");
		goto out;
	}
	/* Cut short (the recorder was killed): the complete events read, marked so. */
	if (!ended && !r->cut_line)
		r->cut_line = lineno + 1;
	ret = 0;
	goto out;
nomem:
	fw_read_err(err, errlen, name, lineno, "out of memory");
out:
	free(line);
	free(stops);
	fclose(f);
	if (ret)
		fw_recording_free(r);
	return ret;
}

const char *fw_recording_comm(const struct fw_recording *r, int pid)
{
	size_t i;

	for (i = 0; i < r->ncomm; i++)
		if (r->comm[i].pid == pid)
			return r->comm[i].name;
	return pid == 0 ? "<idle>" : "<...>";
}

void fw_recording_free(struct fw_recording *r)
{
	size_t i;

	for (i = 0; i < r->nmaps; i++)
		free(r->maps[i].path);
	free(r->maps);
	free(r->mapsets);
	free(r->ev);
	free(r->comm);
	fw_symtab_free(&r->syms);
	memset(r, 0, sizeof(*r));
}
