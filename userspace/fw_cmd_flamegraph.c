// SPDX-License-Identifier: GPL-2.0
/*
 * fw_cmd_flamegraph.c - framewalk flamegraph: one self-contained HTML page drawn by
 * d3-flame-graph, from a recording's chains or from folded stacks (fw_folded.c both).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/fw_walk.h"
#include "../lib/user/fw_json.h"
#include "fw_cli.h"

/*
 * d3 and d3-flame-graph exactly as their npm packages ship them (make deps fetches the
 * versions userspace/flamegraph/package-lock.json pins), built into the binary so that the
 * page needs neither the network nor files beside it, on the host or on a board.
 */
#define FW_INCBIN(sym, file)						\
	__asm__(".section .rodata\n.global " #sym "\n.type " #sym ", %object\n"	\
		#sym ":\n.incbin \"" file "\"\n.byte 0\n.previous\n")
FW_INCBIN(fw_d3_js, FW_D3_JS);
FW_INCBIN(fw_flame_js, FW_FLAME_JS);
extern const char fw_d3_js[], fw_flame_js[];

/* One frame of the merged tree; value counts the chains through it. */
struct fw_fnode {
	char *name;
	unsigned long long value;
	struct fw_fnode *child, *next;
};

static struct fw_fnode *fw_fnode_new(const char *name)
{
	struct fw_fnode *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	n->name = strdup(name);
	if (!n->name) {
		free(n);
		return NULL;
	}
	return n;
}

static void fw_fnode_free(struct fw_fnode *n)
{
	while (n) {
		struct fw_fnode *next = n->next;

		fw_fnode_free(n->child);
		free(n->name);
		free(n);
		n = next;
	}
}

/*
 * Add a chain's count along its elements, outermost first. Children stay
 * sorted by name: the page is the same whatever order the chains came in
 * (a recording's, or folded text's).
 */
static int fw_fnode_add(void *ctx, const struct fw_fold *f)
{
	struct fw_fnode *at = ctx, *c, **link;
	unsigned int i;
	int cmp = 1;

	at->value += f->count;
	for (i = 0; i < f->n; i++) {
		for (link = &at->child; (c = *link); link = &c->next) {
			cmp = strcmp(c->name, f->elem[i]);
			if (cmp >= 0)
				break;
		}
		if (!c || cmp) {
			c = fw_fnode_new(f->elem[i]);
			if (!c) {
				fprintf(stderr, "framewalk flamegraph: out of memory\n");
				return -1;
			}
			c->next = *link;
			*link = c;
		}
		c->value += f->count;
		at = c;
	}
	return 0;
}

/* Every line of folded stacks in F into the tree; errors name NAME and the line. */
static int fw_flame_read_folded(FILE *f, const char *name, struct fw_fnode *root)
{
	int ret = fw_folded_read(f, "framewalk flamegraph", name, fw_fnode_add, root);

	if (!ret && !root->value) {
		fprintf(stderr, "framewalk flamegraph: %s: no stacks: %s\n", name,
			"neither a framewalk recording nor folded stacks");
		ret = -1;
	}
	return ret;
}

/* A recording: its chains, folded as fw_fold_each lays them out, into the tree; its header into summary. */
static int fw_flame_read_recording(const char *path, const char *name, struct fw_fnode *root,
				   char *summary, size_t len)
{
	unsigned long long stops[FW_STOP_NR_COUNTERS] = {};
	struct fw_recording r;
	char err[512];
	unsigned int i;
	size_t n;
	int used, ret;

	if (fw_recording_read(path, &r, err, sizeof(err))) {
		fprintf(stderr, "framewalk flamegraph: %s\n", err);
		return -1;
	}
	for (n = 0; n < r.nev; n++)
		stops[fw_stop_counter(r.ev[n].stop)]++;
	if (r.tracedat)
		used = snprintf(summary, len, "%s: %zu chains (trace-cmd trace.dat)", name, r.nev);
	else
		used = snprintf(summary, len,
				"%s: %zu chains, %llu dropped; kernel %s, filter '%s', depth %u",
				name, r.nev, r.dropped, r.kernel, r.filter, r.depth);
	for (i = 0; i < FW_STOP_NR_COUNTERS && used > 0 && (size_t)used < len; i++)
		if (stops[i])
			used += snprintf(summary + used, len - used, "%s %s=%llu",
					 strstr(summary, "; stops:") ? "" : "; stops:",
					 fw_stop_name(i), stops[i]);
	ret = fw_fold_each(&r, fw_fnode_add, root);
	if (!ret && !root->value) {
		fprintf(stderr, "framewalk flamegraph: %s: no stacks: the recording holds no chain\n",
			name);
		ret = -1;
	}
	fw_recording_free(&r);
	return ret;
}

static void fw_json_tree(FILE *out, const struct fw_fnode *n)
{
	const struct fw_fnode *c;

	fputs("{\"name\":", out);
	fw_json_str(out, n->name, FW_JSON_SCRIPT);
	fprintf(out, ",\"value\":%llu", n->value);
	if (n->child) {
		fputs(",\"children\":[", out);
		for (c = n->child; c; c = c->next) {
			fw_json_tree(out, c);
			if (c->next)
				fputc(',', out);
		}
		fputc(']', out);
	}
	fputc('}', out);
}

static const char fw_flame_head[] =
	"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	"<!-- written by framewalk flamegraph; inlined below: d3 (ISC licence, Mike Bostock) and "
	"d3-flame-graph (Apache-2.0 licence, Martin Spier), from their npm packages -->\n"
	"<title>framewalk flame graph</title>\n<style>\n"
	"body { font-family: Verdana, sans-serif; margin: 12px; }\n"
	"h1 { font-size: 18px; margin: 0 0 4px; }\n"
	"p { font-size: 13px; color: #333; margin: 4px 0; }\n"
	"#fw-details { min-height: 1.4em; }\n"
	"</style>\n</head>\n<body>\n"
	"<h1>framewalk flame graph</h1>\n<p id=\"fw-summary\"></p>\n"
	"<form id=\"fw-search\"><input id=\"fw-term\" type=\"search\" size=\"32\" "
	"placeholder=\"function name (regular expression)\"> <button type=\"submit\">Search</button> "
	"<button type=\"button\" id=\"fw-clear\">Clear</button> "
	"<button type=\"button\" id=\"fw-reset\">Reset zoom</button></form>\n"
	"<div id=\"fw-chart\"></div>\n<p id=\"fw-details\"></p>\n"
	"<p>Each box is a function; its width is the number of chains through it. The traced "
	"functions are at the top, the outermost callers at the bottom. Click a box to zoom, "
	"hover for its count. A grey box [reason] under a stack says why those walks stopped "
	"short of the outermost frame and of the depth limit (see framewalk(1)).</p>\n";

/* Draw, search, zoom; the root's and the [stop] boxes' labels carry the counts. */
static const char fw_flame_script[] =
	"(function () {\n"
	"\tvar data = JSON.parse(document.getElementById('fw-data').textContent);\n"
	"\tvar total = data.tree.value;\n"
	"\tvar details = document.getElementById('fw-details');\n"
	"\tdocument.getElementById('fw-summary').textContent = data.summary;\n"
	"\tfunction label(d) {\n"
	"\t\tvar n = d.data.name, v = d.value;\n"
	"\t\tvar s = v + (v === 1 ? ' chain, ' : ' chains, ') + (100 * v / total).toFixed(2) + '%';\n"
	"\t\tif (/^\\[.*\\]$/.test(n))\n"
	"\t\t\treturn 'walk stopped: ' + n.slice(1, -1) + ' (' + s + ')';\n"
	"\t\treturn n + ' (' + s + ')';\n"
	"\t}\n"
	"\tvar chart = flamegraph.default()\n"
	"\t\t.width(Math.max(800, document.body.clientWidth - 24))\n"
	"\t\t.cellHeight(18).minFrameSize(0).transitionDuration(250).sort(true)\n"
	"\t\t.setLabelHandler(label).setDetailsElement(details)\n"
	"\t\t.setColorMapper(function (d, c) {\n"
	"\t\t\treturn /^\\[.*\\]$/.test(d.data.name) && !d.highlight ? '#b4b4b4' : c;\n"
	"\t\t});\n"
	"\td3.select('#fw-chart').datum(data.tree).call(chart);\n"
	"\t/*\n"
	"\t * d3-flame-graph grows each new box from width 0 and writes its label later, in\n"
	"\t * transitions: a screenshot or a slow machine caught them half drawn. Finish them\n"
	"\t * now, from the width and name it set on the box's group; zooms still animate.\n"
	"\t */\n"
	"\td3.select('#fw-chart').selectAll('g.frame').each(function () {\n"
	"\t\tvar g = d3.select(this);\n"
	"\t\tg.select('rect').interrupt().attr('width', g.attr('width'));\n"
	"\t\tg.select('foreignObject div').interrupt().text(g.attr('name'));\n"
	"\t});\n"
	"\tfunction search(term) {\n"
	"\t\ttry {\n"
	"\t\t\tchart.search(term);\n"
	"\t\t} catch (e) {\n"
	"\t\t\tdetails.textContent = 'search: ' + e.message;\n"
	"\t\t}\n"
	"\t}\n"
	"\tdocument.getElementById('fw-search').addEventListener('submit', function (ev) {\n"
	"\t\tev.preventDefault();\n"
	"\t\tsearch(document.getElementById('fw-term').value);\n"
	"\t});\n"
	"\t/* page.html#search=TERM opens with TERM searched: a link can point at a function. */\n"
	"\tvar m = /^#search=(.*)$/.exec(location.hash);\n"
	"\tif (m) {\n"
	"\t\tdocument.getElementById('fw-term').value = decodeURIComponent(m[1]);\n"
	"\t\tsearch(decodeURIComponent(m[1]));\n"
	"\t}\n"
	"\tdocument.getElementById('fw-clear').addEventListener('click', function () {\n"
	"\t\tdocument.getElementById('fw-term').value = '';\n"
	"\t\tchart.clear();\n"
	"\t});\n"
	"\tdocument.getElementById('fw-reset').addEventListener('click', function () {\n"
	"\t\tchart.resetZoom();\n"
	"\t});\n"
	"})();\n";

static int fw_flame_write(FILE *out, const struct fw_fnode *root, const char *summary)
{
	fputs(fw_flame_head, out);
	fprintf(out, "<script>\n%s\n</script>\n<script>\n%s\n</script>\n", fw_d3_js, fw_flame_js);
	fputs("<script type=\"application/json\" id=\"fw-data\">{\"summary\":", out);
	fw_json_str(out, summary, FW_JSON_SCRIPT);
	fputs(",\"tree\":", out);
	fw_json_tree(out, root);
	fprintf(out, "}</script>\n<script>\n%s</script>\n</body>\n</html>\n", fw_flame_script);
	return ferror(out) ? -1 : 0;
}

/* Standard input into an unnamed temporary file, so that it can be read twice. */
static FILE *fw_flame_stdin(void)
{
	FILE *t = tmpfile();
	char buf[65536];
	size_t n;

	if (!t)
		return NULL;
	while ((n = fread(buf, 1, sizeof(buf), stdin)) > 0)
		if (fwrite(buf, 1, n, t) != n)
			break;
	if (ferror(stdin) || ferror(t) || fflush(t)) {
		fclose(t);
		return NULL;
	}
	rewind(t);
	return t;
}

int fw_flamegraph(const char *input, const char *output)
{
	char summary[2560], magic[sizeof(FW_RECORDING_MAGIC)] = "", path[64];
	struct fw_fnode root = { .name = "all" };
	const char *name;
	FILE *in, *out;
	int ret;

	name = strcmp(input, "-") ? input : "<stdin>";
	in = strcmp(input, "-") ? fopen(input, "r") : fw_flame_stdin();
	if (!in) {
		fprintf(stderr, "framewalk flamegraph: %s: %s\n", name, strerror(errno));
		return -1;
	}
	if (!fgets(magic, sizeof(magic), in))
		magic[0] = 0;
	rewind(in);
	if (!strcmp(magic, FW_RECORDING_MAGIC) || (strcmp(input, "-") && fw_tracedat_is(input))) {
		snprintf(path, sizeof(path), "/dev/fd/%d", fileno(in));
		ret = fw_flame_read_recording(strcmp(input, "-") ? input : path, name, &root,
					      summary, sizeof(summary));
	} else {
		ret = fw_flame_read_folded(in, name, &root);
		snprintf(summary, sizeof(summary), "%s: %llu chains (folded stacks)", name,
			 root.value);
	}
	fclose(in);
	if (ret)
		goto out;
	out = strcmp(output, "-") ? fopen(output, "w") : stdout;
	if (!out) {
		fprintf(stderr, "framewalk flamegraph: %s: %s\n", output, strerror(errno));
		ret = -1;
		goto out;
	}
	ret = fw_flame_write(out, &root, summary);
	if (out == stdout ? fflush(out) : fclose(out))
		ret = -1;
	if (ret)
		fprintf(stderr, "framewalk flamegraph: %s: write error: %s\n", output,
			strerror(errno));
	else if (fw_verbosity > 0)
		fprintf(stderr, "framewalk flamegraph: wrote %s: %s\n",
			strcmp(output, "-") ? output : "<stdout>", summary);
out:
	fw_fnode_free(root.child);
	return ret ? -1 : 0;
}
