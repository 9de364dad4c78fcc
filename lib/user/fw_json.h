/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fw_json.h - a C string as a JSON string literal, for crashwalk's reports and framewalk's pages.
 */
#ifndef FW_JSON_H
#define FW_JSON_H

#include <stdio.h>

/*
 * The string also lands inside an HTML <script> element, which '<' could
 * close: '<', '>' and '&' go out as \u escapes.
 */
#define FW_JSON_SCRIPT	0x1

/*
 * s as a JSON string literal on out ('"', '\\' and control characters
 * escaped, other bytes as they are: UTF-8 passes through), or null for NULL.
 */
void fw_json_str(FILE *out, const char *s, unsigned int flags);

#endif /* FW_JSON_H */
