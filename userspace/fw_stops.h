/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fw_stops.h - stop reasons by name, as a module's event format or a recording names them.
 */
#ifndef FW_STOPS_H
#define FW_STOPS_H

#include <stddef.h>

struct tep_event;

/* The stop (enum fw_stop) this framewalk calls name, of len bytes; -1: none. */
int fw_stop_by_name(const char *name, size_t len);

/*
 * The name @ev's own format gives value @val of its field @field, from the
 * __print_symbolic() of its print fmt, into *@name: 1 where it names @val,
 * 0 where it names others but not @val, -1 where it has no symbols for
 * @field (a format of no module of framewalk's: then fall back to
 * fw_stop_name()).
 */
int fw_event_stop_name(const struct tep_event *ev, const char *field, unsigned long long val,
		       const char **name);

/*
 * Value @val of @ev's stop field @field as this framewalk numbers it: by the
 * name the format gives it, so that a module of another version maps right;
 * FW_STOP_NONE where that name is not one of this framewalk's. A format
 * without symbols is taken as numbered like this framewalk, and *@guessed
 * is set.
 */
unsigned int fw_event_stop(const struct tep_event *ev, const char *field,
			   unsigned long long val, int *guessed);

#endif /* FW_STOPS_H */
