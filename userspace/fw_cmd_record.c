// SPDX-License-Identifier: GPL-2.0
/*
 * fw_cmd_record.c - framewalk record and stream, on the traced machine: set the
 * module's parameters, enable framewalk:chain and chain_user in a private trace instance,
 * run the command, and drain the instance's buffers into a recording (or to
 * the terminal) until the command ends or the user interrupts; and framewalk
 * reset, which clears what a killed recorder left in tracefs.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "../lib/fw_walk.h"
#include "fw_cli.h"
#include "fw_maps.h"
#include "fw_stops.h"

/* Every recorder's trace instance is named so; reset finds them by it. */
#define FW_INSTANCE	"framewalk-"

/* One record or stream run: its trace instance, where it writes, what it counted. */
struct fw_recorder {
	const struct fw_session_opts *o;
	struct tep_handle *tep;
	struct tep_handle *formats;	/* the events again, for their stop names */
	struct tracefs_instance *inst;
	int chain_id, chain_user_id;	/* user=0 hits write chain, user=N ones chain_user */
	FILE *out;
	struct fw_symtab syms;		/* stream: symbolize as events come */
	struct fw_maps *maps;		/* record: the mappings behind user frames */
	unsigned int drains;		/* so far: a pid's maps are read at most once a drain */
	int unloaded;			/* the module went during the run (fw_pin_module()) */
	size_t events;
	unsigned long long stops[FW_STOP_NR_COUNTERS];
	int stops_guessed, stops_unknown;	/* said once: see fw_stop_field() */
};

static unsigned long long fw_field(struct tep_event *ev, struct tep_record *rec,
				   const char *name)
{
	unsigned long long v = 0;

	tep_get_field_val(NULL, ev, name, rec, &v, 0);
	return v;
}

/*
 * The stop in field @name as this framewalk numbers it: the module's event
 * format names each of its values, and a module of another version may
 * number them otherwise. Where the format names none, or names one this
 * framewalk does not know, the recording says it once on stderr.
 */
static unsigned int fw_stop_field(struct fw_recorder *s, struct tep_event *ev,
				  struct tep_record *rec, const char *name)
{
	struct tep_event *fmt = s->formats ?
		tep_find_event_by_name(s->formats, ev->system, ev->name) : NULL;
	unsigned long long v = fw_field(ev, rec, name);
	int guessed = 0;
	unsigned int stop = fw_event_stop(fmt ? fmt : ev, name, v, &guessed);

	if (guessed && !s->stops_guessed++)
		fprintf(stderr, "framewalk: the module's %s event names no stop values: "
			"taking them as this framewalk numbers them\n", ev->name);
	if (stop == FW_STOP_NONE && !s->stops_unknown++)
		fprintf(stderr, "framewalk: the module's %s %llu is no stop this framewalk "
			"knows (a newer module?): recorded as unknown\n", name, v);
	return stop;
}

/*
 * The task name of pid for stream: the kernel's saved_cmdlines, else
 * /proc/PID/comm; remembered in tep either way, so each pid is looked up once.
 */
static const char *fw_stream_comm(struct fw_recorder *s, int pid)
{
	char path[64], comm[64] = "<...>";
	char *text;
	FILE *f;

	if (!pid)
		return "<idle>";
	if (tep_is_pid_registered(s->tep, pid))
		return tep_data_comm_from_pid(s->tep, pid);
	text = tracefs_instance_file_read(NULL, "saved_cmdlines", NULL);
	if (text)
		tep_parse_saved_cmdlines(s->tep, text);
	free(text);
	if (tep_is_pid_registered(s->tep, pid))
		return tep_data_comm_from_pid(s->tep, pid);
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	f = fopen(path, "r");
	if (f) {
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = '\0';
		fclose(f);
	}
	tep_register_comm(s->tep, comm, pid);
	return tep_data_comm_from_pid(s->tep, pid);
}

/* The user frames (user=N); a module older than them has none of the fields: user_off. */
static void fw_user_fields(struct fw_recorder *s, struct tep_event *ev, struct tep_record *rec,
			   struct fw_event *e)
{
	int len = 0, word, i;
	char *raw;

	e->user_stop = FW_STOP_USER_OFF;
	if (!tep_find_field(ev, "user_stop"))
		return;
	e->user_stop = fw_stop_field(s, ev, rec, "user_stop");
	e->user_lr = fw_field(ev, rec, "user_lr") != 0;
	raw = tep_get_field_raw(NULL, ev, "user", rec, &len, 0);
	word = tep_get_long_size(s->tep);
	for (i = 0; raw && word > 0 && i < len / word && i < FW_MAX_USER; i++)
		e->user[i] = tep_read_number(s->tep, raw + i * word, word);
	e->nr_user = (unsigned int)i;
	if (e->nr_user < 2)
		e->user_lr = 0;
}

static int fw_on_event(struct tep_event *ev, struct tep_record *rec, int cpu, void *ctx)
{
	struct fw_recorder *s = ctx;
	struct fw_event e = {};
	int len = 0, word, i;
	char *raw;

	if (ev->id != s->chain_id && ev->id != s->chain_user_id)
		return 0;
	e.cpu = (unsigned int)cpu;
	e.ts = rec->ts;
	e.pid = tep_data_pid(s->tep, rec);
	e.ip = fw_field(ev, rec, "ip");
	e.parent = fw_field(ev, rec, "parent_ip");
	e.stop = fw_stop_field(s, ev, rec, "stop");
	e.tramp = (unsigned int)fw_field(ev, rec, "tramp");
	e.recovered = fw_field(ev, rec, "recovered");
	raw = tep_get_field_raw(NULL, ev, "ancestors", rec, &len, 0);
	word = tep_get_long_size(s->tep);
	for (i = 0; raw && word > 0 && i < len / word && i < FW_MAX_ANCESTORS; i++)
		e.ancestors[i] = tep_read_number(s->tep, raw + i * word, word);
	e.nr_ancestors = (unsigned int)i;
	fw_user_fields(s, ev, rec, &e);
	if (s->o->stream) {
		fw_print_chain(s->out, &s->syms, NULL, &e, fw_stream_comm(s, e.pid),
			       s->o->frames);
	} else {
		if (e.nr_user && e.pid > 0)
			fw_maps_see(s->maps, s->out, e.pid, e.user, e.nr_user, s->drains);
		fw_recording_write_event(s->out, &e);
		fw_recording_write_user(s->out, &e);
	}
	s->events++;
	s->stops[fw_stop_counter(e.stop)]++;
	return 0;
}

static void fw_drain(struct fw_recorder *s)
{
	s->drains++;
	tracefs_iterate_raw_events(s->tep, s->inst, NULL, 0, fw_on_event, s);
	/* A reader that went away (stream | head) ends the session like SIGPIPE would. */
	if (fflush(s->out) || ferror(s->out))
		fw_interrupted = 1;
}

/* Events the ring buffer had to overwrite or refuse, over all CPUs. */
static unsigned long long fw_dropped(struct fw_recorder *s)
{
	unsigned long long total = 0, v;
	char path[64], *text, *p;
	long cpu, ncpu = sysconf(_SC_NPROCESSORS_CONF);

	for (cpu = 0; cpu < ncpu; cpu++) {
		snprintf(path, sizeof(path), "per_cpu/cpu%ld/stats", cpu);
		text = tracefs_instance_file_read(s->inst, path, NULL);
		if (!text)
			continue;
		p = strstr(text, "overrun:");
		if (p && sscanf(p, "overrun: %llu", &v) == 1)
			total += v;
		p = strstr(text, "dropped events:");
		if (p && sscanf(p, "dropped events: %llu", &v) == 1)
			total += v;
		free(text);
	}
	return total;
}

static void fw_progress(struct fw_recorder *s, int final)
{
	if (fw_verbosity < 0 || (!final && !isatty(STDERR_FILENO)))
		return;
	fprintf(stderr, "%sframewalk: %zu events, ", final ? "" : "\r", s->events);
	/* The buffers an unloaded module took with it were never counted. */
	if (s->unloaded)
		fprintf(stderr, "drops unknown");
	else
		fprintf(stderr, "%llu dropped", fw_dropped(s));
	fw_print_stops(stderr, s->stops);
	fprintf(stderr, final ? "\n" : "   ");
}

/* Comms of the recorded pids, from the kernel's saved_cmdlines. */
static void fw_write_comms(struct fw_recorder *s)
{
	char *text = tracefs_instance_file_read(NULL, "saved_cmdlines", NULL);
	char comm[64], *line, *save = NULL;
	int pid;

	for (line = text ? strtok_r(text, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save))
		if (sscanf(line, "%d %63s", &pid, comm) == 2)
			fw_recording_write_comm(s->out, pid, comm);
	free(text);
}

/*
 * Drain each tick; a progress line each second. A module unloaded all the
 * same (where fw_pin_module() could not hold it) took its events and the
 * unread part of its buffers with it: the run ends as if interrupted.
 */
static void fw_record_tick(void *ctx, unsigned int n)
{
	struct fw_recorder *s = ctx;

	if (fw_module_unloaded()) {
		s->unloaded = 1;
		fw_interrupted = 1;
		return;
	}
	fw_drain(s);
	if (!s->o->stream && n % 10 == 0)
		fw_progress(s, 0);
}

/*
 * A task of the command is about to exit, held there (fw_exit_hold.c): drain
 * now, while the mappings behind its user frames can still be read.
 */
static void fw_record_exiting(void *ctx, int pid)
{
	(void)pid;
	fw_drain(ctx);
}

/*
 * framewalk's two events from tracefs, parsed again with the word size set
 * first, for their stop names only: libtraceevent sizes the events' arrays
 * (sizeof(unsigned long) in the print fmt) by it, and
 * tracefs_local_events_system() (libtracefs 1.6) parses before it is known,
 * which cuts chain_user's print fmt short, user_stop's stop names with it.
 * The records are still read through that tep, which libtracefs completes.
 * framewalk runs on the traced machine: its long is the kernel's.
 */
static struct tep_handle *fw_stop_formats(void)
{
	static const char *const names[] = { "chain", "chain_user" };
	struct tep_handle *tep = tep_alloc();
	unsigned int i;
	char *text;
	int size;

	if (!tep)
		return NULL;
	tep_set_long_size(tep, sizeof(long));
	tep_set_page_size(tep, getpagesize());
	for (i = 0; i < 2; i++) {
		text = tracefs_event_file_read(NULL, "framewalk", names[i], "format", &size);
		if (text)
			tep_parse_event(tep, text, size, "framewalk");
		free(text);
	}
	return tep;
}

/* printf into buf[*n...]; *n counts what was asked for, so an overflow shows as *n >= len. */
static void __attribute__((format(printf, 4, 5)))
fw_append(char *buf, size_t len, size_t *n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	*n += vsnprintf(*n < len ? buf + *n : NULL, *n < len ? len - *n : 0, fmt, ap);
	va_end(ap);
}

/*
 * --comm and -C as a tracefs filter of framewalk's events, "(COMM ~ "a" ||
 * COMM ~ "b*") && (CPU == 0 || CPU == 2)": COMM and CPU are fields every
 * event has, the task and the CPU that wrote it, with the same syntax from
 * 5.10 to 7.2 (CPUS{} masks came later). The option parser checked the
 * syntax; a CPU this machine does not have is refused here. Empty: none.
 */
static int fw_event_filter(const struct fw_session_opts *o, char *buf, size_t len)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF), cpu, last;
	const char *p, *sep = "(";
	size_t n = 0;
	char *end;

	buf[0] = '\0';
	for (p = o->comm; p && *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, ',');
		fw_append(buf, len, &n, "%sCOMM ~ \"%.*s\"", sep, (int)(end - p), p);
		sep = " || ";
	}
	if (o->comm)
		fw_append(buf, len, &n, ")%s", o->cpus ? " && " : "");
	sep = "(";
	for (p = o->cpus; p && *p; p = *end ? end + 1 : end) {
		cpu = last = strtol(p, &end, 10);
		if (*end == '-')
			last = strtol(end + 1, &end, 10);
		if (last >= ncpu) {
			fprintf(stderr, "framewalk: -C/--cpu: no CPU %ld here (CPUs 0 to %ld)\n",
				last, ncpu - 1);
			return -1;
		}
		for (; cpu <= last; cpu++) {
			fw_append(buf, len, &n, "%sCPU == %ld", sep, cpu);
			sep = " || ";
		}
	}
	if (o->cpus)
		fw_append(buf, len, &n, ")");
	if (n >= len) {
		fprintf(stderr, "framewalk: --comm and -C/--cpu make a filter longer than %zu "
			"bytes\n", len - 1);
		return -1;
	}
	if (fw_verbosity > 0 && n)
		fprintf(stderr, "framewalk: keeping only the events of filter '%s'\n", buf);
	return 0;
}

int fw_record(const struct fw_session_opts *o)
{
	const char *systems[] = { "framewalk", NULL };
	struct fw_recorder s = { .o = o };
	char name[64], pid[16], filter[1024], notrace[1024], depth[16], evfilter[4096], user[16];
	struct fw_module_was was;
	struct tep_event *ev;
	struct utsname uts;
	int ret = 1, status;

	if (geteuid() != 0) {
		fprintf(stderr, "framewalk: %s needs root: it sets module parameters and "
			"reads tracefs\n", o->stream ? "stream" : "record");
		return 1;
	}
	if (!tracefs_tracing_dir()) {
		fprintf(stderr, "framewalk: tracefs is not mounted: "
			"mount -t tracefs nodev /sys/kernel/tracing\n");
		return 1;
	}
	/*
	 * From here on an interrupted session still removes its instance and
	 * disables the event: a signal only ends the drain loop. SIGKILL cannot
	 * be caught; framewalk reset clears what it leaves.
	 */
	fw_catch_signal(SIGINT);
	fw_catch_signal(SIGTERM);
	fw_catch_signal(SIGHUP);
	fw_catch_signal(SIGPIPE);
	if (fw_event_filter(o, evfilter, sizeof(evfilter)))
		return 1;
	if (fw_setup_module(o, &was))
		return 1;
	fw_pin_module(o->stream ? "stream" : "recording");
	s.tep = tracefs_local_events_system(NULL, systems);
	s.formats = fw_stop_formats();
	ev = s.tep ? tep_find_event_by_name(s.tep, "framewalk", "chain") : NULL;
	if (!ev) {
		fprintf(stderr, "framewalk: no framewalk:chain event in tracefs\n");
		goto out;
	}
	s.chain_id = ev->id;
	/* A module older than user frames has no chain_user: chain alone then. */
	ev = tep_find_event_by_name(s.tep, "framewalk", "chain_user");
	s.chain_user_id = ev ? ev->id : -1;
	snprintf(name, sizeof(name), FW_INSTANCE "%d", (int)getpid());
	s.inst = tracefs_instance_create(name);
	/*
	 * Our own reads of the buffers would be traced too when the filter
	 * matches read paths, each drain making more to drain: leave this
	 * process out (the command runs as a child and is traced).
	 */
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	if (!s.inst || tracefs_instance_file_write(s.inst, "set_event_notrace_pid", pid) < 0) {
		fprintf(stderr, "framewalk: cannot set up trace instance %s\n", name);
		goto out;
	}
	/* The instance's own filter: it goes with the instance, nothing to put back. */
	if (evfilter[0] &&
	    tracefs_instance_file_write(s.inst, "events/framewalk/filter", evfilter) < 0) {
		fprintf(stderr, "framewalk: the kernel refused the event filter '%s'\n", evfilter);
		goto out;
	}
	if (tracefs_event_enable(s.inst, "framewalk", NULL)) {
		fprintf(stderr, "framewalk: cannot set up trace instance %s\n", name);
		goto out;
	}
	if (fw_verbosity > 0)
		fprintf(stderr, "framewalk: framewalk's events enabled in trace instance %s\n",
			name);
	if (o->stream) {
		s.out = stdout;
		if (fw_load_syms(&s.syms))
			goto out;
		tep_load_plugins(s.tep);
	} else {
		s.out = strcmp(o->output, "-") ? fopen(o->output, "w") : stdout;
		if (!s.out) {
			fprintf(stderr, "framewalk: cannot write %s: %s\n", o->output,
				strerror(errno));
			goto out;
		}
		s.maps = fw_maps_new();
		if (!s.maps) {
			fprintf(stderr, "framewalk: out of memory\n");
			goto out;
		}
		uname(&uts);
		fw_read_param("filter", filter, sizeof(filter));
		fw_read_param("notrace", notrace, sizeof(notrace));
		fw_read_param("depth", depth, sizeof(depth));
		fw_recording_write_header(s.out, uts.release, filter, notrace,
					  (unsigned int)atoi(depth));
	}
	/*
	 * User frames are named by the mappings of their process: hold the
	 * exit of each process of the command until they are read. Without
	 * user frames (user=0) nothing needs them, and the command runs untraced.
	 */
	fw_read_param("user", user, sizeof(user));
	status = fw_run_command(o, fw_record_tick,
				!o->stream && atoi(user) > 0 ? fw_record_exiting : NULL, &s);
	tracefs_event_disable(s.inst, "framewalk", NULL);
	fw_drain(&s);
	if (!o->stream) {
		fw_write_comms(&s);
		if (fw_load_syms(&s.syms) == 0)
			fw_recording_write_syms(s.out, &s.syms);
		/* Without its end line the file reads as cut short: its drops are unknown. */
		if (!s.unloaded)
			fw_recording_write_end(s.out, s.events, fw_dropped(&s));
		if (s.out == stdout ? fflush(stdout) : fclose(s.out)) {
			fprintf(stderr, "framewalk: writing %s: %s\n", o->output, strerror(errno));
			s.out = NULL;
			goto out;
		}
		s.out = NULL;
		if (fw_verbosity >= 0)
			fprintf(stderr, "framewalk: wrote %s\n",
				strcmp(o->output, "-") ? o->output : "standard output");
		if (fw_verbosity > 0 || (fw_verbosity >= 0 && fw_maps_unread(s.maps)))
			fprintf(stderr, "framewalk: %llu mapping sets of the processes behind user "
				"frames; %llu processes gone before their mappings were read "
				"(their frames stay addresses)\n", fw_maps_sets(s.maps),
				fw_maps_unread(s.maps));
	}
	fw_progress(&s, 1);
	ret = o->cmd ? status : 0;
	if (s.unloaded) {
		fprintf(stderr, "framewalk: framewalk.ko was unloaded during the %s: the %zu "
			"events read before it are kept, those still in its buffers went "
			"with it\n", o->stream ? "stream" : "recording", s.events);
		ret = 1;
	}
out:
	if (s.out && s.out != stdout)
		fclose(s.out);
	if (s.inst) {
		tracefs_instance_destroy(s.inst);
		tracefs_instance_free(s.inst);
	}
	/* A module unloaded during the run took its parameters with it. */
	if (!s.unloaded)
		fw_restore_module(&was);
	fw_unpin_module();
	fw_symtab_free(&s.syms);
	fw_maps_free(s.maps);
	tep_free(s.tep);
	tep_free(s.formats);
	return ret;
}

/* Whether pid is a running framewalk, the owner of instance framewalk-PID. */
static int fw_recorder_alive(int pid)
{
	char path[64], comm[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = '\0';
	fclose(f);
	return !strcmp(comm, "framewalk\n");
}

/* What reset found to do, done or not: for -v's "nothing to do". */
static unsigned int fw_reset_found;

/* Remove the instances of recorders that are gone; returns how many failed. */
static int fw_reset_instances(void)
{
	char dir[PATH_MAX], *end;
	struct tracefs_instance *inst;
	struct dirent *de;
	int failed = 0;
	long pid;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/instances", tracefs_tracing_dir());
	d = opendir(dir);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, FW_INSTANCE, strlen(FW_INSTANCE)))
			continue;
		pid = strtol(de->d_name + strlen(FW_INSTANCE), &end, 10);
		if (*end || pid <= 0)
			continue;
		fw_reset_found++;
		if (fw_recorder_alive((int)pid)) {
			if (fw_verbosity >= 0)
				fprintf(stderr, "framewalk reset: kept instance %s: framewalk %ld "
					"is still recording\n", de->d_name, pid);
			continue;
		}
		inst = tracefs_instance_alloc(NULL, de->d_name);
		if (inst)
			tracefs_event_disable(inst, "framewalk", NULL);
		if (!inst || tracefs_instance_destroy(inst)) {
			fprintf(stderr, "framewalk reset: cannot remove instance %s: %s\n",
				de->d_name, strerror(errno));
			failed++;
		} else if (fw_verbosity >= 0) {
			fprintf(stderr, "framewalk reset: removed instance %s (its recorder is "
				"gone)\n", de->d_name);
		}
		tracefs_instance_free(inst);
	}
	closedir(d);
	return failed;
}

/*
 * Disable framewalk's events (chain, chain_user) where any is enabled: the top
 * buffer and any instance. The system's enable file reads 0 only when none is.
 */
static int fw_reset_event_in(const char *name, void *ctx)
{
	struct tracefs_instance *inst = name ? tracefs_instance_alloc(NULL, name) : NULL;
	char *on = tracefs_instance_file_read(inst, "events/framewalk/enable", NULL);
	int *failed = ctx;

	if (on && on[0] != '0') {
		fw_reset_found++;
		if (tracefs_event_disable(inst, "framewalk", NULL)) {
			fprintf(stderr, "framewalk reset: cannot disable framewalk events in %s\n",
				name ? name : "the top trace buffer");
			(*failed)++;
		} else if (fw_verbosity >= 0) {
			fprintf(stderr, "framewalk reset: disabled framewalk events in %s\n",
				name ? name : "the top trace buffer");
		}
	}
	free(on);
	tracefs_instance_free(inst);
	return 0;
}

int fw_reset(int unload)
{
	int failed;

	if (geteuid() != 0) {
		fprintf(stderr, "framewalk: reset needs root: it changes tracefs\n");
		return 1;
	}
	if (!tracefs_tracing_dir()) {
		fprintf(stderr, "framewalk: tracefs is not mounted\n");
		return 1;
	}
	failed = fw_reset_instances();
	fw_reset_event_in(NULL, &failed);
	tracefs_instances_walk(fw_reset_event_in, &failed);
	if (unload && !access(FW_PARAMS, F_OK)) {
		fw_reset_found++;
		if (syscall(SYS_delete_module, "framewalk", O_NONBLOCK)) {
			fprintf(stderr, "framewalk reset: cannot unload framewalk.ko: %s\n",
				strerror(errno));
			failed++;
		} else if (fw_verbosity >= 0) {
			fprintf(stderr, "framewalk reset: unloaded framewalk.ko\n");
		}
	}
	if (!fw_reset_found && fw_verbosity > 0)
		fprintf(stderr, "framewalk reset: nothing to do: no recorder's instance left, "
			"framewalk events enabled nowhere%s\n",
			unload ? ", framewalk.ko not loaded" : "");
	return failed ? 1 : 0;
}
