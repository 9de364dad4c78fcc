// SPDX-License-Identifier: GPL-2.0
/*
 * fw_cmd_report.c - what the framewalk CLI prints from a recording: the chains
 * and the hottest caller -> callee edges (folded stacks: fw_folded.c).
 */
#include <stdlib.h>
#include <string.h>

#include "../lib/fw_folded.h"
#include "fw_chain.h"
#include "fw_cli.h"
#include "fw_maps.h"

/*
 * Where fw_chain_format writes for the CLI, the recording's symbols it names
 * kernel addresses with, and the symbolizer of the event's user frames.
 */
struct fw_file_sink {
	FILE *f;
	struct fw_symtab *syms;
	struct fw_usym *usym;
	const struct fw_event *e;
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

static void fw_file_usym(void *ctx, unsigned int i, unsigned long long addr)
{
	struct fw_file_sink *sink = ctx;
	char buf[FW_SYM_BUF];

	(void)addr;
	fputs(fw_usym_name(sink->usym, sink->e, i, FW_USYM_FULL, buf, sizeof(buf)), sink->f);
}

/*
 * One event's chain, or a counted chain, after its task, CPU and time (or
 * its count): one line, or one "=> frame" line per frame, laid out by
 * fw_chain_format as the plugin lays it out.
 */
void fw_print_chain(FILE *out, struct fw_symtab *syms, struct fw_usym *usym,
		    const struct fw_event *e, const char *comm, int frames)
{
	struct fw_file_sink sink = { .f = out, .syms = syms, .usym = usym, .e = e };
	struct fw_chain_out to = { .vprint = fw_file_vprint, .sym = fw_file_sym,
				   .usym = fw_file_usym, .ctx = &sink,
				   .oneline = !frames, .bold = fw_color };
	struct fw_chain c;

	fw_chain_of_event(&c, e);
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
	unsigned long long stops[FW_STOP_NR_COUNTERS] = {}, hits = 0;
	struct fw_usym *usym = fw_usym_new(r);
	size_t n;

	if (!usym) {
		fprintf(stderr, "framewalk: out of memory\n");
		return 1;
	}
	if (fw_verbosity >= 0 && r->tracedat)
		fprintf(out, "# framewalk events of a trace-cmd trace.dat\n");
	else if (fw_verbosity >= 0)
		fprintf(out, "# framewalk recording: kernel %s, filter '%s', notrace '%s', depth %u\n",
			r->kernel, r->filter, r->notrace, r->depth);
	for (n = 0; n < r->nev; n++) {
		fw_print_chain(out, &r->syms, usym, &r->ev[n], fw_recording_comm(r, r->ev[n].pid),
			       frames);
		stops[fw_stop_counter(r->ev[n].stop)] += r->ev[n].count;
		hits += r->ev[n].count;
	}
	fw_usym_free(usym);
	if (fw_verbosity < 0)
		return 0;
	if (r->cut_line)
		fprintf(out, "# %zu events, drops unknown: cut short at line %lu", r->nev,
			r->cut_line);
	else if (r->tracedat)
		fprintf(out, "# %zu events", r->nev);
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

	for (i = 0; i < FW_STOP_NR_COUNTERS; i++) {
		if (!stops[i])
			continue;
		fprintf(out, "%s %s=%llu", sep, fw_stop_name(i), stops[i]);
		sep = "";
	}
}

/* The frames of e: child, parent, ancestors, then its user frames. */
static unsigned int fw_nr_frames(const struct fw_event *e)
{
	return e->nr_ancestors + 2 + e->nr_user;
}

const char *fw_frame_name(struct fw_recording *r, struct fw_usym *u, const struct fw_event *e,
			  unsigned int i, char *buf, size_t len)
{
	size_t n, mark = strlen(FW_FOLDED_USER_MARK);

	if (i == 0)
		return fw_symtab_format(&r->syms, e->ip, 0, buf, len);
	if (i == 1)
		return fw_symtab_format(&r->syms, e->parent, 0, buf, len);
	if (i < e->nr_ancestors + 2)
		return fw_symtab_format(&r->syms, e->ancestors[i - 2], 0, buf, len);
	fw_usym_name(u, e, i - e->nr_ancestors - 2, FW_USYM_FUNC, buf, len - mark);
	n = strlen(buf);
	snprintf(buf + n, len - n, FW_FOLDED_USER_MARK);
	return buf;
}

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

size_t fw_count_keys(struct fw_count *c, size_t n)
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

/* The caller -> callee pairs along every chain, most frequent first. */
int fw_top(struct fw_recording *r, FILE *out, unsigned int limit)
{
	char callee[FW_SYM_BUF], caller[FW_SYM_BUF];
	struct fw_usym *usym = NULL;
	struct fw_count *counts;
	size_t nkeys = 0, cap = 0, n, d;
	unsigned long long edges = 0, hits = 0;
	char **keys = NULL;
	unsigned int i;

	for (n = 0; n < r->nev; n++)
		cap += fw_nr_frames(&r->ev[n]) - 1;
	keys = calloc(cap ? cap : 1, sizeof(*keys));
	counts = calloc(cap ? cap : 1, sizeof(*counts));
	usym = fw_usym_new(r);
	if (!keys || !counts || !usym)
		goto nomem;
	for (n = 0; n < r->nev; n++) {
		const struct fw_event *e = &r->ev[n];

		hits += e->count;
		for (i = 0; i + 1 < fw_nr_frames(e); i++) {
			fw_frame_name(r, usym, e, i, callee, sizeof(callee));
			fw_frame_name(r, usym, e, i + 1, caller, sizeof(caller));
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
	/*
	 * What is listed, out of how many distinct edges; then how often they were
	 * seen in all, the base of the percentages, and in how many chains (of how
	 * many hits, for counted chains: report's words).
	 */
	if (fw_verbosity >= 0) {
		if (d > limit)
			fprintf(out, "# the %u most frequent of %zu distinct", limit, d);
		else
			fprintf(out, "# %zu distinct", d);
		fprintf(out, " caller -> callee edges, seen %llu times along %zu chains", edges,
			r->nev);
		if (hits != r->nev)
			fprintf(out, " of %llu hits", hits);
		fprintf(out, "%s\n", r->cut_line ? " (cut short)" : "");
	}
	for (n = 0; n < d && n < limit; n++)
		fprintf(out, "%8llu %6.2f%%  %s\n", counts[n].count,
			100.0 * counts[n].count / (double)edges, counts[n].key);
	fw_free_keys(keys, nkeys);
	free(counts);
	fw_usym_free(usym);
	return 0;
nomem:
	fprintf(stderr, "framewalk: out of memory\n");
	fw_free_keys(keys, nkeys);
	free(counts);
	fw_usym_free(usym);
	return 1;
}
