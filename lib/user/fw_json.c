// SPDX-License-Identifier: GPL-2.0
/*
 * fw_json.c - JSON string escaping, written once for crashwalk and framewalk.
 */
#include <stdbool.h>
#include <stdio.h>

#include "fw_json.h"

void fw_json_str(FILE *out, const char *s, unsigned int flags)
{
	if (!s) {
		fputs("null", out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = *s;
		bool markup = c == '<' || c == '>' || c == '&';

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20 || (markup && (flags & FW_JSON_SCRIPT)))
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}
