/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fw_cli.h - the framewalk CLI's commands, one function each.
 */
#ifndef FW_CLI_H
#define FW_CLI_H

#include <signal.h>
#include <sys/types.h>

#include "../lib/fw_walk.h"
#include "fw_recording.h"

/* -q: -1, errors only; 0: normal; -v: 1, say what is being done. */
extern int fw_verbosity;
/* --color: the traced function in bold. */
extern int fw_color;
#define FW_PARAMS	"/sys/module/framewalk/parameters"
#define FW_MODULE	"/sys/module/framewalk"
#define FW_DEBUGFS	"/sys/kernel/debug/framewalk"

/* The most processes -p names: the module's pid list holds 16. */
#define FW_PIDS_MAX	16

/* What record, stream and profile are told: the module's setup, the output, the command. */
struct fw_session_opts {
	const char *filter;	/* NULL: keep the module's */
	const char *notrace;	/* NULL: keep the module's */
	int depth;		/* the depth limit; -1: keep the module's */
	const char *pid;	/* -p: the module's pid list for the run; NULL: keep it */
	int user;		/* --user: user frames for the run; -1: keep the module's */
	const char *module;	/* framewalk.ko to load when it is not loaded */
	const char *output;	/* record: the recording file, "-" for stdout */
	char **cmd;		/* run this, then stop; NULL: until interrupted */
	unsigned int seconds;	/* -t: stop after this long; 0: no limit */
	const char *comm;	/* --comm: record only these task names (event filter) */
	const char *cpus;	/* -C: record only on these CPUs (event filter) */
	int stream;		/* print events as they come instead of recording */
	int frames;		/* stream: one line per frame */
};

/* profile and latency: the module's table of chains instead of events. */
struct fw_table_opts {
	struct fw_session_opts session;	/* filter, notrace, depth, module, output, cmd */
	int folded;			/* folded stacks (latency: weighted by time) */
	unsigned int limit;		/* edges (profile) or chains (latency) printed */
};

int fw_record(const struct fw_session_opts *o);
/* The traceable functions that match any of globs (comma-separated; NULL: all). */
int fw_list(const char *globs);
/* Remove framewalk's leftovers from tracefs; with unload, framewalk.ko too. */
int fw_reset(int unload);
int fw_profile(const struct fw_table_opts *o);
/* fw_cmd_profile.c's readers of the module's counts, which latency shares. */
unsigned long long fw_stat(const char *name);
int fw_clear_counts(void);

int fw_latency(const struct fw_table_opts *o);

/*
 * fw_session.c, shared by record, stream and profile: module parameters,
 * symbols, the command. fw_interrupted is set by the signals fw_catch_signal
 * was given (and by a reader that went away): the run ends and cleans up.
 */
extern volatile sig_atomic_t fw_interrupted;
void fw_catch_signal(int sig);
int fw_write_param(const char *name, const char *value);
void fw_read_param(const char *name, char *buf, size_t len);
/*
 * The parameters a run sets for itself alone and puts back when it ends
 * (-p's pid, --user): left behind, a pid list would keep every later
 * trace empty of all other processes, and user frames would change every
 * later event. filter, notrace and depth are the module's setup, and stay.
 */
struct fw_module_was {
	char pid[256];
	char user[16];
	int pid_set, user_set;	/* what the run changed */
};
int fw_setup_module(const struct fw_session_opts *o, struct fw_module_was *was);
void fw_restore_module(const struct fw_module_was *was);
int fw_load_syms(struct fw_symtab *t);
/*
 * Run o's command (if any) until it exits, o's seconds pass, the processes
 * of o's pid list have all exited (without a command) or a signal arrives,
 * calling @tick every 100 ms and, for a command held at its tasks' exits,
 * @exiting at each; returns the command's exit status.
 */
int fw_run_command(const struct fw_session_opts *o, void (*tick)(void *ctx, unsigned int n),
		   void (*exiting)(void *ctx, int pid), void *ctx);
/*
 * Keep framewalk.ko loaded until fw_unpin_module() (rmmod fails: in use);
 * 0, or -errno after saying why it cannot and that unloading it ends @run
 * (a recording, a stream, a profile). fw_module_unloaded(): the module
 * loaded then is gone (it could not be kept).
 */
int fw_pin_module(const char *run);
int fw_module_unloaded(void);
void fw_unpin_module(void);

/*
 * fw_exit_hold.c, for fw_run_command(): the command seized before it runs
 * (0, or -errno after saying why not), and one stop of a task it holds
 * handled, exiting(ctx, pid) called at an exit, the task let go.
 */
int fw_exit_hold_attach(pid_t pid);
void fw_exit_hold_stop(pid_t pid, int status, void (*exiting)(void *ctx, int pid), void *ctx);

struct fw_usym;
/* usym NULL: user frames as addresses (stream, which keeps no mappings). */
void fw_print_chain(FILE *out, struct fw_symtab *syms, struct fw_usym *usym,
		    const struct fw_event *e, const char *comm, int frames);
int fw_report(struct fw_recording *r, FILE *out, int frames);
/*
 * Kernel stops are counted in FW_STOP_NR_COUNTERS counters, at
 * fw_stop_counter(stop): one a stop, and a last one for any other value.
 */
#define FW_STOP_NR_COUNTERS	(FW_STOP_KERNEL_NR + 1)

static inline unsigned int fw_stop_counter(unsigned int stop)
{
	return stop < FW_STOP_KERNEL_NR ? stop : FW_STOP_KERNEL_NR;
}

/* "; stops: a=N b=M" for the stop reasons counted (fw_stop_counter()); nothing if none. */
void fw_print_stops(FILE *out, const unsigned long long *stops);
/*
 * Frame i of e from the child outward (child, parent, ancestors, then the user
 * frames from the pc), as folded stacks and top name it: the kernel's by
 * function, the user's by function or address, marked FW_FOLDED_USER_MARK.
 */
const char *fw_frame_name(struct fw_recording *r, struct fw_usym *u, const struct fw_event *e,
			  unsigned int i, char *buf, size_t len);

/* fw_folded.c: one chain's folded stack, its elements outermost first (lib/fw_folded.h). */
struct fw_fold {
	const char **elem;
	unsigned int n;
	unsigned long long count;
};

/* Each chain of r, as the module's folded file lays it out, to cb; stops at cb's non-zero. */
int fw_fold_each(struct fw_recording *r, int (*cb)(void *ctx, const struct fw_fold *f),
		 void *ctx);
/* r's folded stacks as text: one line per distinct stack, sorted. */
int fw_folded(struct fw_recording *r, FILE *out);
/*
 * Each line of folded text in `in` to cb; a line that is not one is an error
 * printed as "WHO: NAME:LINE: not folded stacks: why", and -1.
 */
int fw_folded_read(FILE *in, const char *who, const char *name,
		   int (*cb)(void *ctx, const struct fw_fold *f), void *ctx);
/* A key and the hits behind it. */
struct fw_count {
	const char *key;
	unsigned long long count;
};

/* Sort keys and add up the counts of equal ones; returns the number of distinct keys. */
size_t fw_count_keys(struct fw_count *c, size_t n);
int fw_top(struct fw_recording *r, FILE *out, unsigned int limit);
/* The HTML flame graph page of a recording or folded stacks (input "-": stdin, output "-": stdout). */
int fw_flamegraph(const char *input, const char *output);

#endif /* FW_CLI_H */
