// SPDX-License-Identifier: GPL-2.0
/*
 * cw_cmd_summary.c - crashwalk summary [--json] [REPORTS...]: crashwalk
 * --json's lines grouped by crash signature (fleet/cw_summary.c groups them).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cw_cli.h"
#include "crashwalk.h"

/* What summary reads, for the error a file of something else gets. */
#define REPORTS	"the JSON lines of crashwalk --json or --batch"

struct summary_ctx {
	struct cw_summary *s;
	const char *name;
	unsigned int reports;		/* lines added to s */
	unsigned int refused, last;	/* lines that were not reports, the last one's number */
};

static int summary_line(void *p, char *line, size_t n, unsigned int lineno)
{
	struct summary_ctx *c = p;
	struct cw_error err = { { 0 } };

	if (strspn(line, " \t\r\n") == n)
		return 0;
	if (!cw_summary_add(c->s, line, n, &err)) {
		c->reports++;
		return 0;
	}
	/* The first says why; the others are counted: a log holds thousands of them. */
	if (!c->refused++)
		fprintf(stderr, "crashwalk: %s:%u: %s\n", c->name, lineno, err.msg);
	c->last = lineno;
	return 1;
}

/*
 * Add the JSON lines of the file at name ("-": standard input) to s; 0, or 1
 * after an error. *reports counts the reports added.
 */
static int summary_read(struct cw_summary *s, const char *name, unsigned int *reports)
{
	struct summary_ctx c = { s, name, 0, 0, 0 };
	int rc = cw_each_line(name, "summary:", REPORTS, summary_line, &c);

	if (c.refused > 1)
		fprintf(stderr, "crashwalk: %s: %u more line%s refused, the last at line %u\n",
			name, c.refused - 1, c.refused == 2 ? "" : "s", c.last);
	*reports += c.reports;
	return rc;
}

/* Hidden files are skipped, as --watch skips them: a writer's file is not complete yet. */
static int visible(const struct dirent *e)
{
	return e->d_name[0] != '.';
}

/*
 * The files directly in dir, in name order, as if each were named (reports-*.jsonl
 * of processes run side by side); a directory that holds no report is an error.
 */
static int summary_dir(struct cw_summary *s, const char *dir)
{
	unsigned int files = 0, reports = 0;
	struct dirent **e;
	struct stat st;
	int i, n, rc = 0;
	char *path;

	n = scandir(dir, &e, visible, alphasort);
	if (n < 0) {
		fprintf(stderr, "crashwalk: summary: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	for (i = 0; i < n; i++) {
		if (asprintf(&path, "%s/%s", dir, e[i]->d_name) < 0) {
			path = NULL;
			rc = 1;
		} else if (!stat(path, &st) && S_ISREG(st.st_mode)) {
			rc |= summary_read(s, path, &reports);
			files++;
		}
		free(path);
		free(e[i]);
	}
	free(e);
	if (!reports) {
		fprintf(stderr, "crashwalk: summary: %s: no crashwalk --json report in this "
			"directory (%u file%s read)\n", dir, files, files == 1 ? "" : "s");
		rc = 1;
	}
	return rc;
}

static int summary_arg(struct cw_summary *s, const char *name)
{
	unsigned int reports = 0;
	struct stat st;

	if (strcmp(name, "-") && !stat(name, &st) && S_ISDIR(st.st_mode))
		return summary_dir(s, name);
	return summary_read(s, name, &reports);
}

int cw_cmd_summary(int argc, char **argv)
{
	struct cw_summary *s;
	int i, json = 0, files = 0, rc = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json") || !strcmp(argv[i], "-j")) {
			json = 1;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs("usage: crashwalk summary [--json] [REPORTS...]\n", stdout);
			return 0;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "crashwalk: summary: unknown option '%s'\n", argv[i]);
			return 2;
		}
	}
	s = cw_summary_new();
	if (!s) {
		fputs("crashwalk: out of memory\n", stderr);
		return 1;
	}
	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "--json") && strcmp(argv[i], "-j")) {
			rc |= summary_arg(s, argv[i]);
			files++;
		}
	if (!files)
		rc |= summary_arg(s, "-");
	cw_summary_print(stdout, s, json);
	cw_summary_free(s);
	return rc;
}
