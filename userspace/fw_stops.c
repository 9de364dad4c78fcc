// SPDX-License-Identifier: GPL-2.0
/*
 * fw_stops.c - stop reasons by name, so that events of another module version print right.
 *
 * The events and recordings carry stops as numbers, and the numbers of one
 * framewalk need not be another's (the user stops moved from 8 to 128). The
 * name is what stays: the event format's __print_symbolic() lists each value
 * with its name, as the module that wrote the events numbered them.
 */
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "../lib/fw_walk.h"
#include "fw_stops.h"

int fw_stop_by_name(const char *name, size_t len)
{
	unsigned int v;

	for (v = 0; v < FW_STOP_USER_NEXT; v++) {
		const char *n;

		/* The two ranges only: the values between them are all "unknown". */
		if (v == FW_STOP_KERNEL_NR)
			v = FW_STOP_USER_FIRST;
		n = fw_stop_name(v);

		if (strlen(n) == len && !strncmp(n, name, len))
			return (int)v;
	}
	return -1;
}

/* The __print_symbolic() of @field in @ev's print fmt; NULL: none. */
static const struct tep_print_flag_sym *fw_event_symbols(const struct tep_event *ev,
							   const char *field)
{
	const struct tep_print_arg *arg;

	for (arg = ev->print_fmt.args; arg; arg = arg->next) {
		const struct tep_print_arg *f = arg->symbol.field;

		if (arg->type == TEP_PRINT_SYMBOL && f && f->type == TEP_PRINT_FIELD &&
		    f->field.name && !strcmp(f->field.name, field))
			return arg->symbol.symbols;
	}
	return NULL;
}

int fw_event_stop_name(const struct tep_event *ev, const char *field, unsigned long long val,
		       const char **name)
{
	const struct tep_print_flag_sym *sym = fw_event_symbols(ev, field);
	char *end;

	if (!sym)
		return -1;
	/* The kernel writes the values out as numbers (TRACE_DEFINE_ENUM): others are skipped. */
	for (; sym; sym = sym->next) {
		if (!sym->value || !sym->str || strtoull(sym->value, &end, 0) != val || *end)
			continue;
		*name = sym->str;
		return 1;
	}
	return 0;
}

unsigned int fw_event_stop(const struct tep_event *ev, const char *field,
			   unsigned long long val, int *guessed)
{
	const char *name;
	int v;

	switch (fw_event_stop_name(ev, field, val, &name)) {
	case 1:
		v = fw_stop_by_name(name, strlen(name));
		return v < 0 ? FW_STOP_NONE : (unsigned int)v;
	case 0:
		return FW_STOP_NONE;
	default:
		*guessed = 1;
		return val < FW_STOP_NONE ? (unsigned int)val : FW_STOP_NONE;
	}
}
