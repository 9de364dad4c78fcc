// SPDX-License-Identifier: GPL-2.0
/*
 * fw_cmd_report.c - what the framewalk CLI prints from a recording: the chains,
 * folded stacks for flame graphs, and the hottest caller -> callee edges.
 */
#include <stdlib.h>
#include <string.h>

#include "../lib/fw_walk.h"
#include "fw_chain.h"
#include "fw_cli.h"

/* Where fw_chain_format writes for the CLI, and the recording's symbols it names addresses with. */
struct fw_file_sink {
	FILE *f;
	struct fw_symtab *syms;
};

static void fw_file_vprint(void *ctx, const char *fmt, va_list ap)
{
	vfprintf(((struct fw_file_sink *)ctx)->f, fmt, ap);
}

static void fw_file_sym(void *ctx, unsigned long long addr, int with_offset)
{
	struct fw_file_sink *sink = ctx;
	char buf[FW_SYM_BUF];

	fputs(fw_symtab_format(sink->syms, addr, with_offset, buf, sizeof(buf)), sink->f);
}

static unsigned long long fw_event_ancestor(const void *src, unsigned int i)
{
	return ((const struct fw_event *)src)->ancestors[i];
}

/*
 * One event's chain, or a counted chain, after its task, CPU and time (or
 * its count): one line, or one "=> frame" line per frame, laid out by
 * fw_chain_format as the plugin lays it out.
 */
void fw_print_chain(FILE *out, struct fw_symtab *syms, const struct fw_event *e,
		    const char *comm, int frames)
{
	struct fw_file_sink sink = { .f = out, .syms = syms };
	struct fw_chain_out to = { .vprint = fw_file_vprint, .sym = fw_file_sym, .ctx = &sink,
				   .oneline = !frames, .bold = fw_color };
	struct fw_chain c = {
		.ip = e->ip, .parent = e->parent, .stop = e->stop, .tramp = e->tramp,
		.recovered = e->recovered, .nr_ancestors = e->nr_ancestors,
		.ancestor = fw_event_ancestor, .src = e, .user_stop = FW_STOP_USER_OFF,
	};

	if (e->counted)
		fprintf(out, "%10llu hits: ", e->count);
	else
		fprintf(out, "%16s-%-6d [%03u] %6llu.%06llu: ", comm, e->pid, e->cpu,
			e->ts / 1000000000ull, (e->ts / 1000) % 1000000);
	fw_chain_format(&to, &c);
	fputc('\n', out);
}

int fw_report(struct fw_recording *r, FILE *out, int frames)
{
	unsigned long long stops[FW_STOP_NR + 1] = {}, hits = 0;
	size_t n;

	if (fw_verbosity >= 0)
		fprintf(out, "# framewalk recording: kernel %s, filter '%s', notrace '%s', depth %u\n",
			r->kernel, r->filter, r->notrace, r->depth);
	for (n = 0; n < r->nev; n++) {
		fw_print_chain(out, &r->syms, &r->ev[n], fw_recording_comm(r, r->ev[n].pid),
			       frames);
		stops[r->ev[n].stop < FW_STOP_NR ? r->ev[n].stop : FW_STOP_NR] += r->ev[n].count;
		hits += r->ev[n].count;
	}
	if (fw_verbosity < 0)
		return 0;
	if (r->cut_line)
		fprintf(out, "# %zu events, drops unknown: cut short at line %lu", r->nev,
			r->cut_line);
	else if (hits == r->nev)
		fprintf(out, "# %zu events, %llu dropped", r->nev, r->dropped);
	else
		fprintf(out, "# %zu chains of %llu hits, %llu dropped", r->nev, hits, r->dropped);
	fw_print_stops(out, stops);
	fprintf(out, "\n");
	return 0;
}

void fw_print_stops(FILE *out, const unsigned long long *stops)
{
	const char *sep = "; stops:";
	unsigned int i;

	for (i = 0; i <= FW_STOP_NR; i++) {
		if (!stops[i])
			continue;
		fprintf(out, "%s %s=%llu", sep, fw_stop_name(i), stops[i]);
		sep = "";
	}
}

/* The i-th frame from the child outward: child, parent, ancestors. */
static unsigned long long fw_frame_at(const struct fw_event *e, unsigned int i)
{
	if (i == 0)
		return e->ip;
	if (i == 1)
		return e->parent;
	return e->ancestors[i - 2];
}

/* A key and the hits behind it. */
struct fw_count {
	const char *key;
	unsigned long long count;
};

static int fw_key_cmp(const void *a, const void *b)
{
	return strcmp(((const struct fw_count *)a)->key, ((const struct fw_count *)b)->key);
}

static int fw_count_cmp(const void *a, const void *b)
{
	const struct fw_count *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->key, y->key);
}

/* Sort keys and add up the counts of equal ones; returns the number of distinct keys. */
static size_t fw_count_keys(struct fw_count *c, size_t n)
{
	size_t i, d = 0;

	qsort(c, n, sizeof(*c), fw_key_cmp);
	for (i = 0; i < n; i++) {
		if (d && !strcmp(c[d - 1].key, c[i].key)) {
			c[d - 1].count += c[i].count;
			continue;
		}
		c[d++] = c[i];
	}
	return d;
}

static void fw_free_keys(char **keys, size_t n)
{
	while (n)
		free(keys[--n]);
	free(keys);
}

/*
 * "outermost;...;parent;child count" per distinct stack, for flamegraph.pl, inferno and
 * framewalk flamegraph. A walk cut short (fw_stop_cut_short: neither chain_end nor depth)
 * has its stop reason as the root, "[off_stack];...", as the module's own folded file has.
 */
int fw_folded(struct fw_recording *r, FILE *out)
{
	char **keys = calloc(r->nev ? r->nev : 1, sizeof(*keys));
	struct fw_count *counts = calloc(r->nev ? r->nev : 1, sizeof(*counts));
	char buf[FW_SYM_BUF];
	size_t n, d, len;
	int i;

	if (!keys || !counts)
		goto nomem;
	for (n = 0; n < r->nev; n++) {
		const struct fw_event *e = &r->ev[n];
		char *s = NULL;

		len = 0;
		if (fw_stop_cut_short(e->stop)) {
			s = malloc(strlen(fw_stop_name(e->stop)) + 3);
			if (!s)
				goto nomem;
			len = sprintf(s, "[%s]", fw_stop_name(e->stop));
		}
		for (i = (int)e->nr_ancestors + 1; i >= 0; i--) {
			const char *name = fw_symtab_format(&r->syms, fw_frame_at(e, i), 0,
							    buf, sizeof(buf));
			char *t = realloc(s, len + strlen(name) + 2);

			if (!t) {
				free(s);
				goto nomem;
			}
			s = t;
			len += sprintf(s + len, "%s%s", len ? ";" : "", name);
		}
		keys[n] = s;
		counts[n].key = s;
		counts[n].count = e->count;
	}
	d = fw_count_keys(counts, r->nev);
	for (n = 0; n < d; n++)
		fprintf(out, "%s %llu\n", counts[n].key, counts[n].count);
	fw_free_keys(keys, r->nev);
	free(counts);
	return 0;
nomem:
	fprintf(stderr, "framewalk: out of memory\n");
	if (keys)
		fw_free_keys(keys, r->nev);
	free(counts);
	return 1;
}

/* The caller -> callee pairs along every chain, most frequent first. */
int fw_top(struct fw_recording *r, FILE *out, unsigned int limit)
{
	char callee[FW_SYM_BUF], caller[FW_SYM_BUF];
	struct fw_count *counts;
	size_t nkeys = 0, cap = 0, n, d;
	unsigned long long edges = 0, hits = 0;
	char **keys = NULL;
	unsigned int i;

	for (n = 0; n < r->nev; n++)
		cap += r->ev[n].nr_ancestors + 1;
	keys = calloc(cap ? cap : 1, sizeof(*keys));
	counts = calloc(cap ? cap : 1, sizeof(*counts));
	if (!keys || !counts)
		goto nomem;
	for (n = 0; n < r->nev; n++) {
		const struct fw_event *e = &r->ev[n];

		hits += e->count;
		for (i = 0; i <= e->nr_ancestors; i++) {
			fw_symtab_format(&r->syms, fw_frame_at(e, i), 0, callee, sizeof(callee));
			fw_symtab_format(&r->syms, fw_frame_at(e, i + 1), 0, caller, sizeof(caller));
			keys[nkeys] = malloc(strlen(caller) + strlen(callee) + 5);
			if (!keys[nkeys])
				goto nomem;
			sprintf(keys[nkeys], "%s -> %s", caller, callee);
			counts[nkeys].key = keys[nkeys];
			counts[nkeys].count = e->count;
			edges += e->count;
			nkeys++;
		}
	}
	d = fw_count_keys(counts, nkeys);
	qsort(counts, d, sizeof(*counts), fw_count_cmp);
	if (fw_verbosity >= 0)
		fprintf(out, "# %llu caller -> callee edges in %llu chains%s\n", edges, hits,
			r->cut_line ? " (cut short)" : "");
	for (n = 0; n < d && n < limit; n++)
		fprintf(out, "%8llu %6.2f%%  %s\n", counts[n].count,
			100.0 * counts[n].count / (double)edges, counts[n].key);
	fw_free_keys(keys, nkeys);
	free(counts);
	return 0;
nomem:
	fprintf(stderr, "framewalk: out of memory\n");
	fw_free_keys(keys, nkeys);
	free(counts);
	return 1;
}
