// SPDX-License-Identifier: GPL-2.0
/*
 * fw_tep_event.c - one framewalk event's fields, for the plugin and the CLI alike.
 *
 * A chain or chain_user event into an fw_event, through libtraceevent:
 * plugin_framewalk.so prints it, framewalk report -i TRACE.DAT records it.
 */
#include <string.h>

#include <traceevent/trace-seq.h>

#include "../lib/fw_walk.h"
#include "fw_stops.h"
#include "fw_tep_event.h"

/* A dynamic array of words into v (at most max of them); how many it holds. */
static unsigned int fw_tep_words(struct trace_seq *s, struct tep_event *event,
				 struct tep_record *record, const char *name, int err,
				 unsigned long long *v, unsigned int max, int *ok)
{
	struct tep_handle *tep = event->tep;
	int word = tep_get_long_size(tep), len = 0;
	const char *raw = tep_get_field_raw(s, event, name, record, &len, err);
	unsigned int i, n;

	*ok = raw != NULL;
	if (!raw)
		return 0;
	if (word != 4 && word != 8)
		word = 8;
	n = (unsigned int)(len / word);
	/* The module stores no more; a longer array is not the module's. */
	n = n < max ? n : max;
	for (i = 0; i < n; i++)
		v[i] = tep_read_number(tep, raw + i * word, word);
	return n;
}

int fw_tep_event(struct trace_seq *s, struct tep_event *event, struct tep_record *record,
		 struct fw_event *e)
{
	unsigned long long stop, found, tramp = FW_TRAMP_NONE, recovered = 0;
	unsigned long long user_stop = FW_STOP_USER_OFF, user_lr = 0;
	int guessed = 0;
	/* nr_ancestors was called depth in older modules' events. */
	const char *nr_field = tep_find_field(event, "nr_ancestors") ? "nr_ancestors" : "depth";
	int ok;

	memset(e, 0, sizeof(*e));
	e->count = 1;
	e->mapset = -1;
	e->pid = tep_data_pid(event->tep, record);
	/*
	 * nr_ancestors, the ancestors found, is only checked for: the
	 * ancestors array's length says the same.
	 */
	if (tep_get_field_val(s, event, "ip", record, &e->ip, 1) ||
	    tep_get_field_val(s, event, "parent_ip", record, &e->parent, 1) ||
	    tep_get_field_val(s, event, "stop", record, &stop, 1) ||
	    tep_get_field_val(s, event, nr_field, record, &found, 1))
		return -1;
	/* Absent from events of modules older than the recovery. */
	tep_get_field_val(NULL, event, "tramp", record, &tramp, 0);
	tep_get_field_val(NULL, event, "recovered", record, &recovered, 0);
	e->nr_ancestors = fw_tep_words(s, event, record, "ancestors", 1, e->ancestors,
				       FW_MAX_ANCESTORS, &ok);
	if (!ok)
		return -1;
	/* Stops as this framewalk numbers them: by the names the module's format gives. */
	e->stop = fw_event_stop(event, "stop", stop, &guessed);
	e->tramp = (unsigned int)tramp;
	e->recovered = recovered;
	/* Only chain_user has them (user=N): chain shows no user frame. */
	if (!tep_get_field_val(NULL, event, "user_stop", record, &user_stop, 0))
		user_stop = fw_event_stop(event, "user_stop", user_stop, &guessed);
	tep_get_field_val(NULL, event, "user_lr", record, &user_lr, 0);
	if (tep_find_field(event, "user"))
		e->nr_user = fw_tep_words(NULL, event, record, "user", 0, e->user, FW_MAX_USER,
					  &ok);
	e->user_stop = (unsigned int)user_stop;
	e->user_lr = user_lr != 0;
	return 0;
}
