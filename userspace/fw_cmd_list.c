// SPDX-License-Identifier: GPL-2.0
/*
 * fw_cmd_list.c - framewalk list: the functions -f can name, from tracefs's
 * available_filter_functions, narrowed by the globs given (as trace-cmd list -f).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "fw_cli.h"

/*
 * ftrace lists a record it disabled at boot (a weak function's address that
 * no symbol holds) under this name: nothing a filter can select.
 */
#define FW_INVALID_FUNCTION	"__ftrace_invalid_address__"

/* Whether name matches one of the n globs (none given: every name). */
static int fw_glob_match(char *const *glob, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!fnmatch(glob[i], name, 0))
			return 1;
	return !n;
}

/*
 * The lines of available_filter_functions whose name one of the globs
 * matches; returns how many, or -1 when the file cannot be read.
 */
static long fw_list_matching(char *const *glob, size_t n)
{
	char *path, *line = NULL, *name;
	unsigned long listed = 0, all = 0;
	size_t cap = 0;
	FILE *f;

	path = tracefs_get_tracing_file("available_filter_functions");
	f = path ? fopen(path, "r") : NULL;
	if (!f) {
		if (!path)
			fprintf(stderr, "framewalk: tracefs is not mounted: "
				"mount -t tracefs nodev /sys/kernel/tracing\n");
		else
			fprintf(stderr, "framewalk: cannot read %s: %s%s\n", path, strerror(errno),
				geteuid() ? " (list needs root)" : "");
		tracefs_put_tracing_file(path);
		return -1;
	}
	/* "name" or "name [module]": the glob is matched against the name, as ftrace does. */
	while (getline(&line, &cap, f) > 0) {
		line[strcspn(line, "\n")] = '\0';
		name = strndup(line, strcspn(line, " "));
		if (!name) {
			fprintf(stderr, "framewalk: out of memory\n");
			break;
		}
		if (strncmp(name, FW_INVALID_FUNCTION, strlen(FW_INVALID_FUNCTION))) {
			all++;
			if (fw_glob_match(glob, n, name)) {
				puts(line);
				listed++;
			}
		}
		free(name);
	}
	free(line);
	fclose(f);
	if (fw_verbosity > 0)
		fprintf(stderr, "framewalk list: %lu of the %lu functions in %s\n", listed, all,
			path);
	tracefs_put_tracing_file(path);
	return (long)listed;
}

int fw_list(const char *globs)
{
	char *copy = globs ? strdup(globs) : NULL, **glob, *tok, *save = NULL;
	size_t n = 0, i, commas = 0;
	long listed;

	for (i = 0; globs && globs[i]; i++)
		commas += globs[i] == ',';
	glob = calloc(commas + 1, sizeof(*glob));
	if ((globs && !copy) || !glob) {
		fprintf(stderr, "framewalk: out of memory\n");
		free(copy);
		free(glob);
		return 1;
	}
	/* The globs as the module's filter takes them: comma-separated, blanks trimmed. */
	for (tok = copy ? strtok_r(copy, ",", &save) : NULL; tok;
	     tok = strtok_r(NULL, ",", &save)) {
		tok += strspn(tok, " \t");
		tok[strcspn(tok, " \t")] = '\0';
		if (*tok)
			glob[n++] = tok;
	}
	listed = fw_list_matching(glob, n);
	free(glob);
	free(copy);
	if (listed < 0)
		return 1;
	/* What -f would refuse too: say so rather than print nothing. */
	if (!listed && globs) {
		fprintf(stderr, "framewalk list: no traceable function matches '%s'\n", globs);
		return 1;
	}
	return fflush(stdout) ? 1 : 0;
}
