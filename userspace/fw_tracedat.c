// SPDX-License-Identifier: GPL-2.0
/*
 * fw_tracedat.c - a trace-cmd trace.dat read as a recording, through libtracecmd.
 *
 * Its framewalk events, task names, kernel symbols and the process maps
 * trace-cmd record --proc-map kept: report, folded, top and flamegraph read
 * it as they read a recording.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "fw_cli.h"
#include "fw_tep_event.h"

/*
 * libtracecmd is opened when a trace.dat is read, not linked: framewalk runs
 * without it (on a board without trace-cmd), and Debian's libtracecmd-dev
 * cannot be installed for two architectures at once, which the arm64
 * package's cross-build would need. These are trace-cmd.h's declarations;
 * the host build checks them against it below.
 */
#define FW_TRACECMD_LIB		"libtracecmd.so.1"
#define FW_TRACECMD_NO_PLUGINS	1	/* TRACECMD_FL_LOAD_NO_PLUGINS */

struct tracecmd_input;
typedef struct tracecmd_input *(*fw_tracecmd_open_fn)(const char *file, int flags);
typedef void (*fw_tracecmd_close_fn)(struct tracecmd_input *handle);
typedef struct tep_handle *(*fw_tracecmd_get_tep_fn)(struct tracecmd_input *handle);
typedef int (*fw_tracecmd_iterate_fn)(struct tracecmd_input *handle, cpu_set_t *cpus,
				      int cpu_size,
				      int (*callback)(struct tracecmd_input *handle,
						      struct tep_record *, int, void *),
				      void *callback_data);

/*
 * libtracecmd's reader of the PROCMAPS options: exported, in Debian's
 * symbols file since 3.0.3 and documented as the way to look up a task's
 * maps, but declared in trace-cmd's private header, which no package
 * installs; the struct is that header's. The maps of a pid are sorted and
 * hold the named lines of /proc/PID/maps, without their file offsets.
 */
struct fw_tracecmd_map {
	size_t start;
	size_t end;
	char *lib_name;
};

typedef struct fw_tracecmd_map *(*fw_tracecmd_search_fn)(struct tracecmd_input *handle,
							 int pid, unsigned long long addr);

#if __has_include(<trace-cmd/trace-cmd.h>)
#include <trace-cmd/trace-cmd.h>
#define FW_SAME_TYPE(f, t) \
	_Static_assert(__builtin_types_compatible_p(__typeof__(&f), t), #f " is not " #t)
FW_SAME_TYPE(tracecmd_open, fw_tracecmd_open_fn);
FW_SAME_TYPE(tracecmd_close, fw_tracecmd_close_fn);
FW_SAME_TYPE(tracecmd_get_tep, fw_tracecmd_get_tep_fn);
FW_SAME_TYPE(tracecmd_iterate_events, fw_tracecmd_iterate_fn);
_Static_assert(TRACECMD_FL_LOAD_NO_PLUGINS == FW_TRACECMD_NO_PLUGINS,
	       "TRACECMD_FL_LOAD_NO_PLUGINS changed");
#endif

static struct {
	fw_tracecmd_open_fn open;
	fw_tracecmd_close_fn close;
	fw_tracecmd_get_tep_fn get_tep;
	fw_tracecmd_iterate_fn iterate;
	fw_tracecmd_search_fn search;
} fw_tracecmd;

__attribute__((format(printf, 4, 5)))
static int fw_tracedat_err(char *err, size_t len, const char *path, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(err, len, "%s: ", path);

	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < len)
		vsnprintf(err + n, len - n, fmt, ap);
	va_end(ap);
	return -1;
}

/* libtracecmd's functions, looked up once; 0, or -1 with why in err. */
static int fw_tracecmd_load(const char *path, char *err, size_t len)
{
	static void *lib;

	if (lib)
		return 0;
	lib = dlopen(FW_TRACECMD_LIB, RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		return fw_tracedat_err(err, len, path, "a trace.dat is read through %s (Debian: "
				       "libtracecmd1, which trace-cmd installs): %s",
				       FW_TRACECMD_LIB, dlerror());
	fw_tracecmd.open = (fw_tracecmd_open_fn)dlsym(lib, "tracecmd_open");
	fw_tracecmd.close = (fw_tracecmd_close_fn)dlsym(lib, "tracecmd_close");
	fw_tracecmd.get_tep = (fw_tracecmd_get_tep_fn)dlsym(lib, "tracecmd_get_tep");
	fw_tracecmd.iterate = (fw_tracecmd_iterate_fn)dlsym(lib, "tracecmd_iterate_events");
	/* Only the maps need it: without it user frames stay addresses. */
	fw_tracecmd.search = (fw_tracecmd_search_fn)dlsym(lib, "tracecmd_search_task_map");
	if (!fw_tracecmd.open || !fw_tracecmd.close || !fw_tracecmd.get_tep ||
	    !fw_tracecmd.iterate) {
		dlclose(lib);
		lib = NULL;
		return fw_tracedat_err(err, len, path, "%s lacks tracecmd_iterate_events "
				       "(libtracecmd 1.3, trace-cmd 3.1, has it)", FW_TRACECMD_LIB);
	}
	return 0;
}

int fw_tracedat_is(const char *path)
{
	static const char magic[] = "\x17\x08\x44tracing";
	char head[sizeof(magic) - 1];
	FILE *f = fopen(path, "r");
	int is;

	if (!f)
		return 0;
	is = fread(head, 1, sizeof(head), f) == sizeof(head) && !memcmp(head, magic, sizeof(head));
	fclose(f);
	return is;
}

/* What the events are read into, and the two events worth reading. */
struct fw_tracedat {
	struct fw_recording *r;
	struct tep_handle *tep;
	int chain, chain_user;	/* event ids; -1: not in the file */
	int nomem;
};

static int fw_tracedat_event(struct tracecmd_input *h, struct tep_record *rec, int cpu,
			     void *ctx)
{
	struct fw_tracedat *t = ctx;
	struct tep_event *event = tep_find_event_by_record(t->tep, rec);
	struct fw_event e;

	(void)h;
	if (!event || (event->id != t->chain && event->id != t->chain_user))
		return 0;
	if (fw_tep_event(NULL, event, rec, &e))
		return 0;
	e.cpu = (unsigned int)cpu;
	e.ts = rec->ts;
	if (fw_recording_add(t->r, &e)) {
		t->nomem = 1;
		return -1;
	}
	return 0;
}

/* The function starts added to the symbols: a set, open addressing, at most half full. */
struct fw_tracedat_starts {
	unsigned long long *v;	/* 0: a free slot (no function starts at 0) */
	size_t n, cap;
};

/* Whether start was in the set; it is from now on. -1: out of memory. */
static int fw_tracedat_seen(struct fw_tracedat_starts *s, unsigned long long start)
{
	unsigned long long *old = s->v;
	size_t i, cap = s->cap;

	if (2 * (s->n + 1) > s->cap) {
		s->cap = s->cap ? 2 * s->cap : 1024;
		s->v = calloc(s->cap, sizeof(*s->v));
		if (!s->v) {
			s->v = old;
			s->cap = cap;
			return -1;
		}
		s->n = 0;
		for (i = 0; i < cap; i++)
			if (old[i])
				fw_tracedat_seen(s, old[i]);
		free(old);
	}
	for (i = (start * 0x9e3779b97f4a7c15ull >> 20) & (s->cap - 1); s->v[i];
	     i = (i + 1) & (s->cap - 1))
		if (s->v[i] == start)
			return 1;
	s->v[i] = start;
	s->n++;
	return 0;
}

/*
 * The function holding addr into the symbols, with the next one: fw_symtab
 * has no sizes, and a function ends where the next one it knows begins.
 */
static int fw_tracedat_sym(struct fw_tracedat *t, struct fw_tracedat_starts *seen,
			   unsigned long long addr)
{
	unsigned long long start, next_start;
	unsigned long size, next_size;
	const char *name, *next;
	int was;

	/* 1: found. */
	if (!tep_find_function_info(t->tep, addr, &name, &start, &size) || !start)
		return 0;
	was = fw_tracedat_seen(seen, start);
	if (was)
		return was < 0 ? -1 : 0;
	if (fw_symtab_add(&t->r->syms, start, name))
		return -1;
	if (!tep_find_function_info(t->tep, start + size, &next, &next_start, &next_size) ||
	    next_start != start + size)
		return 0;
	was = fw_tracedat_seen(seen, next_start);
	if (was)
		return was < 0 ? -1 : 0;
	return fw_symtab_add(&t->r->syms, next_start, next) ? -1 : 0;
}

/* The kernel frames' functions and the tasks' names, as a recording keeps them. */
static int fw_tracedat_names(struct fw_tracedat *t)
{
	struct fw_tracedat_starts seen = {};
	struct fw_recording *r = t->r;
	unsigned int i;
	size_t n;
	int ret = 0;

	for (n = 0; n < r->nev && !ret; n++) {
		const struct fw_event *e = &r->ev[n];

		if (e->pid && !strcmp(fw_recording_comm(r, e->pid), "<...>") &&
		    fw_recording_add_comm(r, e->pid, tep_data_comm_from_pid(t->tep, e->pid)))
			ret = -1;
		if (!ret && (fw_tracedat_sym(t, &seen, e->ip) || fw_tracedat_sym(t, &seen, e->parent)))
			ret = -1;
		for (i = 0; i < e->nr_ancestors && !ret; i++)
			ret = fw_tracedat_sym(t, &seen, e->ancestors[i]);
	}
	free(seen.v);
	return ret;
}

/* One process's mappings as trace-cmd kept them: those its user frames fall in. */
struct fw_tracedat_proc {
	int pid;
	struct fw_mapping *m;
	size_t n, cap;
};

/*
 * The mapping trace-cmd holds for pid at addr, added to p once (*known: it
 * was there before); NULL if none.
 */
static const struct fw_tracecmd_map *fw_tracedat_map(struct tracecmd_input *h,
						     struct fw_tracedat_proc *p,
						     unsigned long long addr, int *known,
						     int *nomem)
{
	const struct fw_tracecmd_map *m = fw_tracecmd.search(h, p->pid, addr);
	struct fw_mapping *v;
	size_t i;

	*known = 0;
	if (!m || !m->lib_name)
		return NULL;
	for (i = 0; i < p->n; i++)
		if (p->m[i].start == m->start) {
			*known = 1;
			return m;
		}
	v = fw_grow(p->m, &p->cap, p->n, sizeof(*v), 16);
	if (v)
		p->m = v;
	if (!v || !(v[p->n].path = strdup(m->lib_name))) {
		*nomem = 1;
		return NULL;
	}
	v[p->n].start = m->start;
	v[p->n].end = m->end;
	v[p->n].offset = 0;
	v[p->n].build_id_len = 0;
	p->n++;
	return m;
}

/*
 * The mapping of each user frame and, below it, the file's other mappings
 * down to its lowest: libdwfl places an ELF by that one. A mapping known
 * before had those below it added then.
 */
static int fw_tracedat_proc_maps(struct tracecmd_input *h, struct fw_tracedat_proc *p,
				 const struct fw_event *e)
{
	const struct fw_tracecmd_map *m, *below;
	int nomem = 0, known;
	unsigned int i;

	for (i = 0; i < e->nr_user && !nomem; i++) {
		m = fw_tracedat_map(h, p, e->user[i], &known, &nomem);
		while (m && !known && m->start) {
			below = fw_tracecmd.search(h, p->pid, m->start - 1);
			if (!below || !below->lib_name || strcmp(below->lib_name, m->lib_name))
				break;
			m = fw_tracedat_map(h, p, m->start - 1, &known, &nomem);
		}
	}
	return nomem ? -1 : 0;
}

/*
 * Each process's mappings into r as one set. trace-cmd keeps no file
 * offset: a mapping's is taken as its distance from its file's lowest, which
 * it is for the lowest (an ELF's first segment, from offset 0) and, in the
 * usual layouts, for the code segment after it.
 */
static int fw_tracedat_mapsets(struct fw_recording *r, struct tracecmd_input *h)
{
	struct fw_tracedat_proc *p = NULL;
	size_t np = 0, cap = 0, i, j, k, n;
	unsigned long long base;
	int ret = 0;

	for (n = 0; n < r->nev && !ret; n++) {
		struct fw_event *e = &r->ev[n];

		if (!e->nr_user)
			continue;
		for (i = 0; i < np && p[i].pid != e->pid; i++)
			;
		if (i == np) {
			struct fw_tracedat_proc *v = fw_grow(p, &cap, np, sizeof(*v), 16);

			if (!v) {
				ret = -1;
				break;
			}
			p = v;
			memset(&p[np++], 0, sizeof(*p));
			p[i].pid = e->pid;
		}
		e->mapset = (long)i;
		ret = fw_tracedat_proc_maps(h, &p[i], e);
	}
	for (i = 0; i < np; i++) {
		if (!ret)
			ret = fw_recording_add_mapset(r, p[i].pid);
		for (j = 0; j < p[i].n; j++) {
			base = p[i].m[j].start;
			for (k = 0; k < p[i].n; k++)
				if (!strcmp(p[i].m[k].path, p[i].m[j].path) && p[i].m[k].start < base)
					base = p[i].m[k].start;
			p[i].m[j].offset = p[i].m[j].start - base;
			if (!ret && fw_recording_add_mapping(r, &p[i].m[j]) == 0)
				continue;
			ret = -1;
			free(p[i].m[j].path);
		}
		free(p[i].m);
	}
	free(p);
	return ret;
}

int fw_tracedat_read(const char *path, struct fw_recording *r, char *err, size_t errlen)
{
	struct fw_tracedat t = { .r = r };
	struct tracecmd_input *h;
	struct tep_event *ev;
	int ret = -1;

	memset(r, 0, sizeof(*r));
	if (fw_tracecmd_load(path, err, errlen))
		return -1;
	/* Without plugins: the events' fields are read here, not printed by one. */
	h = fw_tracecmd.open(path, FW_TRACECMD_NO_PLUGINS);
	if (!h)
		return fw_tracedat_err(err, errlen, path, "libtracecmd cannot read it");
	t.tep = fw_tracecmd.get_tep(h);
	ev = tep_find_event_by_name(t.tep, "framewalk", "chain");
	t.chain = ev ? ev->id : -1;
	ev = tep_find_event_by_name(t.tep, "framewalk", "chain_user");
	t.chain_user = ev ? ev->id : -1;
	if (t.chain < 0 && t.chain_user < 0) {
		fw_tracedat_err(err, errlen, path, "no framewalk events in it (trace-cmd record "
				"-e framewalk records them)");
		goto out;
	}
	r->tracedat = 1;
	snprintf(r->kernel, sizeof(r->kernel), "unknown");
	if (fw_tracecmd.iterate(h, NULL, 0, fw_tracedat_event, &t) < 0 && !t.nomem) {
		fw_tracedat_err(err, errlen, path, "libtracecmd cannot read its events");
		goto out;
	}
	if (t.nomem || fw_tracedat_names(&t) ||
	    (fw_tracecmd.search && fw_tracedat_mapsets(r, h))) {
		fw_tracedat_err(err, errlen, path, "out of memory");
		goto out;
	}
	ret = 0;
out:
	if (ret)
		fw_recording_free(r);
	fw_tracecmd.close(h);
	return ret;
}
