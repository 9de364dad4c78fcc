/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fw_color.h - the one --color=WHEN rule of the two userspace tools, framewalk and crashwalk.
 */
#ifndef FW_COLOR_H
#define FW_COLOR_H

/*
 * WHEN is auto, always, never, or NULL for a bare --color (always). auto
 * follows https://no-color.org, TERM=dumb and whether standard output is a
 * terminal. Sets *color to 0 or 1 and returns 0; an unknown WHEN is named in
 * "WHO: --color: ..." on stderr, *color is left alone, and it returns -1.
 */
int fw_color_parse(const char *who, const char *when, int *color);

#endif /* FW_COLOR_H */
