/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fw_cli.h - the framewalk CLI's commands, one function each.
 */
#ifndef FW_CLI_H
#define FW_CLI_H

#include "fw_rec.h"

/* -q: -1, errors only; 0: normal; -v: 1, say what is being done. */
extern int fw_verbosity;
/* --color: the traced function in bold. */
extern int fw_color;

struct fw_record_opts {
	const char *filter;	/* NULL: keep the module's */
	const char *notrace;	/* NULL: keep the module's */
	int depth;		/* -1: keep the module's */
	const char *module;	/* framewalk.ko to load when it is not loaded */
	const char *output;	/* record: the recording file, "-" for stdout */
	char **cmd;		/* run this, then stop; NULL: until interrupted */
	int stream;		/* print events as they come instead of recording */
	int frames;		/* stream: one line per frame */
};

int fw_record(const struct fw_record_opts *o);
/* Remove framewalk's leftovers from tracefs; with unload, framewalk.ko too. */
int fw_reset(int unload);

void fw_print_chain(FILE *out, struct fw_symtab *syms, const struct fw_event *e,
		    const char *comm, int frames);
int fw_report(struct fw_recording *r, FILE *out, int frames);
int fw_folded(struct fw_recording *r, FILE *out);
int fw_top(struct fw_recording *r, FILE *out, unsigned int limit);
/* framewalk flamegraph, options and all: the HTML page from a recording or folded stacks. */
int fw_cmd_flamegraph(int argc, char **argv);

#endif /* FW_CLI_H */
