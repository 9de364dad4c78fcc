/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fw_recording.h - the framewalk CLI's recording file, symbol table and event type.
 */
#ifndef FW_RECORDING_H
#define FW_RECORDING_H

#include <stddef.h>
#include <stdio.h>

#include "../lib/user/fw_grow.h"

#define FW_RECORDING_MAGIC	"framewalk-record"
/*
 * 3: user frames (U lines) and the mappings they are symbolized with (P, M lines).
 * 4: the stop table ("stop VALUE NAME" lines), by which a reader maps the
 * stops by name: the user stops moved from 8 to 128.
 */
#define FW_RECORDING_VERSION	4
/* Room for a stop's name in a recording's stop table, its '\0' included. */
#define FW_STOP_NAME_MAX	32
#define FW_STR_(x)		#x
#define FW_STR(x)		FW_STR_(x)
#define FW_MAX_ANCESTORS	64
/* The module's user=N limit (FW_USER_MAX): a user array holds at most this many. */
#define FW_MAX_USER		64
/* The longest GNU build-id kept: SHA-1's 20 bytes, with room for a longer hash. */
#define FW_BUILD_ID_MAX		64
/* The longest line a recording holds: an event with 64 ancestors is ~1.2 KiB. */
#define FW_RECORDING_LINE_MAX	4096
/* Room for any symbol a recording holds, with "+0x" and an offset: none is cut. */
#define FW_SYM_BUF	(FW_RECORDING_LINE_MAX + 32)

/*
 * One framewalk:chain event, as recorded, or one chain the module counted
 * (aggregation mode), standing for count hits of it.
 */
struct fw_event {
	unsigned int cpu;
	unsigned long long ts;		/* ns, trace clock */
	int pid;
	unsigned long long ip;		/* child */
	unsigned long long parent;
	unsigned int stop;		/* enum fw_stop, a kernel stop, as this framewalk numbers it */
	unsigned int tramp;		/* enum fw_tramp: which one, at stop=trampoline */
	unsigned long long recovered;	/* bit j: ancestors[j] recovered behind a trampoline */
	unsigned int nr_ancestors;	/* found above the parent; at most the depth limit */
	/* Their return addresses, innermost first. */
	unsigned long long ancestors[FW_MAX_ANCESTORS];
	unsigned long long count;	/* hits: 1 for an event, the count for a chain */
	int counted;			/* a counted chain: no cpu, time or pid */
	/* The user frames (user=N), innermost (the user pc) first, as the event has them. */
	unsigned int user_stop;		/* enum fw_stop; FW_STOP_USER_OFF: none walked */
	int user_lr;			/* user[1] is the lr register */
	unsigned int nr_user;
	unsigned long long user[FW_MAX_USER];
	/* Reading: the pid's mappings when the event was recorded (r->mapsets); -1: none. */
	long mapset;
};

/* One mapping of a process, as /proc/PID/maps lists it, with its file's build-id. */
struct fw_mapping {
	unsigned long long start, end, offset;
	unsigned char build_id[FW_BUILD_ID_MAX];
	unsigned int build_id_len;	/* 0: none read (not an ELF, unreadable, anonymous) */
	char *path;			/* "[vdso]", "" for anonymous memory */
};

/*
 * A process's mappings as record saw them at one time: maps[first, first + n)
 * of the recording. A later set of the same pid replaces it for the events after.
 */
struct fw_mapset {
	int pid;
	size_t first, n;
};

struct fw_sym {
	unsigned long long addr;
	char *name;
};

struct fw_symtab {
	struct fw_sym *v;
	size_t n, cap;
	int sorted;
};

struct fw_comm {
	int pid;
	char name[32];
};

/* A whole recording in memory. */
struct fw_recording {
	char kernel[128];
	char filter[1024];
	char notrace[1024];
	unsigned int depth;		/* the module's depth limit while it recorded */
	struct fw_event *ev;
	size_t nev, cap;
	struct fw_comm *comm;
	size_t ncomm, ccap;
	struct fw_symtab syms;
	struct fw_mapping *maps;
	size_t nmaps, mcap;
	struct fw_mapset *mapsets;
	size_t nmapsets, mscap;
	unsigned long long dropped;	/* from the end line */
	unsigned long cut_line;		/* 0: complete; else where it was cut short */
	int tracedat;			/* a trace.dat's events: no filter, depth or drops */
};

int fw_symtab_add(struct fw_symtab *t, unsigned long long addr, const char *name);
/* Text symbols of a kallsyms listing ("addr type name [module]"). */
int fw_symtab_load_kallsyms(struct fw_symtab *t, FILE *f);
const struct fw_sym *fw_symtab_find(struct fw_symtab *t, unsigned long long addr);
/* "func+0xoff", "func" (with_offset 0) or "0xaddr" into buf. */
const char *fw_symtab_format(struct fw_symtab *t, unsigned long long addr, int with_offset,
			     char *buf, size_t len);
void fw_symtab_free(struct fw_symtab *t);

void fw_recording_write_header(FILE *f, const char *kernel, const char *filter,
			 const char *notrace, unsigned int depth);
void fw_recording_write_event(FILE *f, const struct fw_event *e);
void fw_recording_write_chain(FILE *f, const struct fw_event *e);
void fw_recording_write_comm(FILE *f, int pid, const char *comm);
/* "U STOP LR NR ADDR...": the user frames of the E or A line just written; none with user=0. */
void fw_recording_write_user(FILE *f, const struct fw_event *e);
/* "P PID N", then N "M START END OFFSET BUILDID PATH" lines: pid's mappings from now on. */
void fw_recording_write_mapset(FILE *f, int pid, const struct fw_mapping *m, size_t n);
/* A build-id as lowercase hex into buf (2 * FW_BUILD_ID_MAX + 1 bytes), "-" for none. */
const char *fw_build_id_hex(const unsigned char *id, unsigned int len, char *buf);
void fw_recording_write_syms(FILE *f, const struct fw_symtab *t);
void fw_recording_write_end(FILE *f, size_t events, unsigned long long dropped);

/*
 * Read PATH ("-": standard input); on failure return -1 with "PATH:LINE: what"
 * in err. A recording cut short reads, with its complete lines and cut_line set.
 */
int fw_recording_read(const char *path, struct fw_recording *r, char *err, size_t errlen);
int fw_recording_add(struct fw_recording *r, const struct fw_event *e);
int fw_recording_add_comm(struct fw_recording *r, int pid, const char *name);
/* A new mapping set of pid, which fw_recording_add_mapping fills; r owns m's path then. */
int fw_recording_add_mapset(struct fw_recording *r, int pid);
int fw_recording_add_mapping(struct fw_recording *r, const struct fw_mapping *m);

/* fw_tracedat.c: whether path is a trace-cmd trace.dat, and it read as a recording. */
int fw_tracedat_is(const char *path);
int fw_tracedat_read(const char *path, struct fw_recording *r, char *err, size_t errlen);
const char *fw_recording_comm(const struct fw_recording *r, int pid);
void fw_recording_free(struct fw_recording *r);

#endif /* FW_RECORDING_H */
