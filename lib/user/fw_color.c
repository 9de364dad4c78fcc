// SPDX-License-Identifier: GPL-2.0
/*
 * fw_color.c - --color=WHEN for framewalk and crashwalk, so that both tools
 * bold on the same terms and refuse a bad value with the same words.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fw_color.h"

int fw_color_parse(const char *who, const char *when, int *color)
{
	const char *no_color = getenv("NO_COLOR"), *term = getenv("TERM");

	if (!when || !strcmp(when, "always")) {
		*color = 1;
	} else if (!strcmp(when, "never")) {
		*color = 0;
	} else if (!strcmp(when, "auto")) {
		*color = isatty(STDOUT_FILENO) && !(no_color && *no_color) &&
			 !(term && !strcmp(term, "dumb"));
	} else {
		fprintf(stderr, "%s: --color: unknown value '%s'; use auto, always or never\n",
			who, when);
		return -1;
	}
	return 0;
}
