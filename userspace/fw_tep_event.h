/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fw_tep_event.h - a framewalk event read through libtraceevent (fw_tep_event.c).
 */
#ifndef FW_TEP_EVENT_H
#define FW_TEP_EVENT_H

#include <traceevent/event-parse.h>

#include "fw_recording.h"

/*
 * The chain record holds into e, in the traced kernel's word size and byte
 * order, as one uncounted event of the record's pid (cpu and ts are the
 * caller's to set), its stops numbered as this framewalk numbers them, by the
 * names the event's format gives (fw_stops.h). Fields older modules lack take their defaults. -1 when a
 * field every module writes is missing, said into s where s is not NULL.
 */
int fw_tep_event(struct trace_seq *s, struct tep_event *event, struct tep_record *record,
		 struct fw_event *e);

#endif /* FW_TEP_EVENT_H */
