/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fw_maps.h - what framewalk record knows of the processes behind user
 * frames (fw_maps.c), and the symbolizer report and its kin name them with
 * (fw_usym.c).
 */
#ifndef FW_MAPS_H
#define FW_MAPS_H

#include <stdio.h>

#include "fw_recording.h"

struct fw_maps;

struct fw_maps *fw_maps_new(void);
void fw_maps_free(struct fw_maps *t);
/*
 * An event of pid with these user frames is about to be written to out: first
 * write pid's mappings ("P"/"M" lines) if pid is new or a frame falls outside
 * every mapping known for it (an exec, a new mmap), at most once per drain (its number).
 */
int fw_maps_see(struct fw_maps *t, FILE *out, int pid, const unsigned long long *addr,
		unsigned int n, unsigned int drain);
/* Mapping sets written; processes gone before their first read. */
unsigned long long fw_maps_sets(const struct fw_maps *t);
unsigned long long fw_maps_unread(const struct fw_maps *t);

/* How fw_usym_name names a user frame. */
enum fw_usym_style {
	FW_USYM_FULL,	/* "func+0xoff (file) src.c:N", "[unknown] 0xaddr (file+0xoff)" */
	FW_USYM_FUNC,	/* "func", or "0xaddr" where no symbol covers it: folded, top */
};

struct fw_usym;

/* A symbolizer of r's user frames; libdwfl loads each process's files on first use. */
struct fw_usym *fw_usym_new(const struct fw_recording *r);
void fw_usym_free(struct fw_usym *u);
/*
 * User frame i of e (0 the pc, the others return addresses, looked up at
 * addr - 1 for their line: the call) named into buf.
 */
const char *fw_usym_name(struct fw_usym *u, const struct fw_event *e, unsigned int i,
			 enum fw_usym_style style, char *buf, size_t len);

#endif /* FW_MAPS_H */
