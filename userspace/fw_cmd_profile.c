// SPDX-License-Identifier: GPL-2.0
/*
 * fw_cmd_profile.c - framewalk profile: have the module count chains in the
 * kernel (its aggregation mode) while a command runs or for some seconds,
 * then read the merged counts and print caller -> callee edges or folded
 * stacks, and optionally save them as a recording for report, folded and top.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "../lib/fw_walk.h"
#include "fw_cli.h"
#include "fw_stops.h"

/* A total from the module's stats file (the unprefixed lines); 0 if absent. */
unsigned long long fw_stat(const char *name)
{
	unsigned long long v, found = 0;
	char line[128], key[64];
	FILE *f = fopen(FW_DEBUGFS "/stats", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %llu", key, &v) == 2 && !strcmp(key, name)) {
			found = v;
			break;
		}
	fclose(f);
	return found;
}

/* Writing folded empties the module's tables (counts and durations). */
int fw_clear_counts(void)
{
	FILE *f = fopen(FW_DEBUGFS "/folded", "w");

	if (!f || fputs("0\n", f) < 0 || fclose(f)) {
		fprintf(stderr, "framewalk: cannot clear %s/folded: %s (is debugfs mounted?)\n",
			FW_DEBUGFS, strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	return 0;
}

/*
 * The user part of a chains line, "[user_stop];0xoutermost_[u];...;0xpc_[u];",
 * into e; *tok is its first token, and is left at the kernel part's [stop].
 */
static const char *fw_parse_user(char **tok, char **save, struct fw_event *e)
{
	unsigned long long addr[FW_MAX_USER];
	unsigned int n = 0, i;
	char *end;
	int stop;

	stop = fw_stop_by_name(*tok + 1, strlen(*tok) - 2);
	if (stop < 0 || !fw_stop_is_user(stop))
		return NULL;	/* a kernel stop: no user part */
	while ((*tok = strtok_r(NULL, ";", save)) != NULL && (*tok)[0] != '[') {
		if (n == FW_MAX_USER)
			return "more than 64 user frames";
		errno = 0;
		addr[n++] = strtoull(*tok, &end, 16);
		if (errno || strncmp(*tok, "0x", 2) || strcmp(end, "_[u]"))
			return "user frame is not a hexadecimal address marked _[u]";
	}
	if (!*tok || (*tok)[strlen(*tok) - 1] != ']')
		return "no [stop] of the kernel's frames after the user frames";
	e->user_stop = (unsigned int)stop;
	e->nr_user = n;
	for (i = 0; i < n; i++)
		e->user[i] = addr[n - 1 - i];
	return NULL;
}

/*
 * One line of the chains file, "[stop];0xoutermost;...;0xparent;0xchild count",
 * after the user part where user frames were walked, into e. Returns a message
 * on error, NULL when fine.
 */
static const char *fw_parse_chain(char *line, struct fw_event *e)
{
	unsigned long long addr[FW_MAX_ANCESTORS + 2];
	char *sp, *tok, *save = NULL, *end;
	const char *why;
	unsigned int n = 0, i;
	int stop;

	line[strcspn(line, "\n")] = '\0';
	sp = strrchr(line, ' ');
	if (!sp)
		return "no count";
	errno = 0;
	e->count = strtoull(sp + 1, &end, 10);
	if (*end || errno || !e->count)
		return "count is not a positive number";
	*sp = '\0';
	tok = strtok_r(line, ";", &save);
	if (!tok || tok[0] != '[' || tok[strlen(tok) - 1] != ']')
		return "no [stop] root element";
	e->user_stop = FW_STOP_USER_OFF;
	e->mapset = -1;
	why = fw_parse_user(&tok, &save, e);
	if (why)
		return why;
	stop = fw_stop_by_name(tok + 1, strlen(tok) - 2);
	if (stop < 0 || fw_stop_is_user(stop))
		return "unknown stop reason";
	while ((tok = strtok_r(NULL, ";", &save)) != NULL) {
		if (n == FW_MAX_ANCESTORS + 2)
			return "more than 64 ancestors";
		errno = 0;
		addr[n++] = strtoull(tok, &end, 16);
		if (*end || errno || strncmp(tok, "0x", 2))
			return "frame is not a hexadecimal address";
	}
	if (n < 2)
		return "fewer than two frames (parent and child)";
	e->stop = (unsigned int)stop;
	e->ip = addr[n - 1];
	e->parent = addr[n - 2];
	e->nr_ancestors = n - 2;
	for (i = 0; i < e->nr_ancestors; i++)
		e->ancestors[i] = addr[n - 3 - i];
	e->counted = 1;
	return NULL;
}

/* The module's merged counts as a recording of counted chains. */
static int fw_read_chains(struct fw_recording *r)
{
	FILE *f = fopen(FW_DEBUGFS "/chains", "r");
	unsigned long lineno = 0;
	char line[(FW_MAX_ANCESTORS + FW_MAX_USER) * 24 + 64];
	struct fw_event e;
	const char *why;

	if (!f) {
		fprintf(stderr, "framewalk: cannot read %s/chains: %s\n", FW_DEBUGFS,
			strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		memset(&e, 0, sizeof(e));
		why = strchr(line, '\n') ? fw_parse_chain(line, &e) : "line too long";
		if (!why && fw_recording_add(r, &e))
			why = "out of memory";
		if (why) {
			fprintf(stderr, "framewalk: %s/chains:%lu: %s\n", FW_DEBUGFS, lineno, why);
			fclose(f);
			return -1;
		}
	}
	fclose(f);
	return 0;
}

/* Hits counted and dropped since the start (the stats' totals then); the progress line. */
struct fw_profile_base {
	unsigned long long hits, dropped;
	int shown;	/* the length of the progress line on the terminal */
};

/*
 * On a terminal, the running count of the stats on one line while the module
 * counts; elsewhere nothing. The line is wiped at the end (final), where the
 * summary gives the counts that were read: a last progress line would be
 * another reading, another total.
 */
static void fw_profile_progress(struct fw_profile_base *b, int final)
{
	unsigned long long dropped;
	int n;

	if (fw_verbosity < 0 || !isatty(STDERR_FILENO))
		return;
	if (final) {
		fprintf(stderr, "\r%*s\r", b->shown, "");
		return;
	}
	dropped = fw_stat("aggregate_dropped") - b->dropped;
	n = fprintf(stderr, "\rframewalk: %llu hits counted", fw_stat("aggregated") - b->hits);
	if (dropped)
		n += fprintf(stderr, ", %llu dropped (the table is full)", dropped);
	b->shown = n > b->shown ? n : b->shown;
}

/* A progress line each second. */
static void fw_profile_tick(void *ctx, unsigned int n)
{
	if (n % 10 == 0)
		fw_profile_progress(ctx, 0);
}

static int fw_profile_save(const struct fw_table_opts *o, struct fw_recording *r)
{
	FILE *f = fopen(o->session.output, "w");
	struct utsname uts;
	size_t i;

	if (!f) {
		fprintf(stderr, "framewalk: cannot write %s: %s\n", o->session.output,
			strerror(errno));
		return -1;
	}
	uname(&uts);
	fw_recording_write_header(f, uts.release, r->filter, r->notrace, r->depth);
	for (i = 0; i < r->nev; i++) {
		fw_recording_write_chain(f, &r->ev[i]);
		fw_recording_write_user(f, &r->ev[i]);
	}
	fw_recording_write_syms(f, &r->syms);
	fw_recording_write_end(f, r->nev, r->dropped);
	if (fclose(f)) {
		fprintf(stderr, "framewalk: writing %s: %s\n", o->session.output, strerror(errno));
		return -1;
	}
	if (fw_verbosity >= 0)
		fprintf(stderr, "framewalk: wrote %s\n", o->session.output);
	return 0;
}

int fw_profile(const struct fw_table_opts *o)
{
	struct fw_profile_base base = {};
	unsigned long long hits = 0;
	struct fw_module_was mod;
	struct fw_recording r;
	char was[8] = "", depth[16];
	int ret = 1, status, unread;
	size_t i;

	memset(&r, 0, sizeof(r));
	if (geteuid() != 0) {
		fprintf(stderr, "framewalk: profile needs root: it sets module parameters and "
			"reads debugfs\n");
		return 1;
	}
	fw_read_param("aggregate", was, sizeof(was));
	if (fw_setup_module(&o->session, &mod))
		return 1;
	/* Its counts are in the module: an rmmod during the run would take them. */
	fw_pin_module("profile");
	if (access(FW_PARAMS "/aggregate", F_OK)) {
		fprintf(stderr, "framewalk: the loaded framewalk module has no aggregation mode\n");
		goto out;
	}
	/* Counted from a clean table, so the result is this run's alone. */
	if (fw_write_param("aggregate", "0") || fw_clear_counts())
		goto out;
	base.hits = fw_stat("aggregated");
	base.dropped = fw_stat("aggregate_dropped");
	if (fw_write_param("aggregate", "1"))
		goto out;
	status = fw_run_command(&o->session, fw_profile_tick, NULL, &base);
	/*
	 * Every count printed comes from one reading of the table, taken with
	 * counting off: read later, it would hold this process's own reads and
	 * writes after the run (a module found counting counts on), and the
	 * progress line, the edges and the summary would each give another total.
	 */
	fw_write_param("aggregate", "0");
	unread = fw_read_chains(&r);
	r.dropped = fw_stat("aggregate_dropped") - base.dropped;
	/* Leave the mode as it was found; a module this run loaded stops counting. */
	if (was[0] == 'Y')
		fw_write_param("aggregate", "1");
	fw_profile_progress(&base, 1);
	if (unread)
		goto out;
	fw_read_param("filter", r.filter, sizeof(r.filter));
	fw_read_param("notrace", r.notrace, sizeof(r.notrace));
	fw_read_param("depth", depth, sizeof(depth));
	r.depth = (unsigned int)atoi(depth);
	if (fw_load_syms(&r.syms))
		goto out;
	for (i = 0; i < r.nev; i++)
		hits += r.ev[i].count;
	if (o->session.output && fw_profile_save(o, &r))
		goto out;
	ret = o->folded ? fw_folded(&r, stdout) : fw_top(&r, stdout, o->limit);
	if (fw_verbosity >= 0)
		fprintf(stderr, "framewalk: %llu hits in %zu chains of '%s' at depth %u%s%.0llu%s\n",
			hits, r.nev, r.filter, r.depth, r.dropped ? ", " : "", r.dropped,
			r.dropped ? " dropped: the table was full, load with a larger "
			"aggregate_entries" : "");
	if (!ret && o->session.cmd)
		ret = status;
out:
	if (!fw_module_unloaded())
		fw_restore_module(&mod);
	fw_unpin_module();
	fw_recording_free(&r);
	return ret;
}
