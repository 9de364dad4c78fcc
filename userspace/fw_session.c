// SPDX-License-Identifier: GPL-2.0
/*
 * fw_session.c - what record, stream and profile share around a run:
 * framewalk.ko loaded or its parameters set (and kept loaded), the kernel's
 * symbols, and the command run until it ends, time is up or the user
 * interrupts (for record, with its exits held: fw_exit_hold.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fw_cli.h"

volatile sig_atomic_t fw_interrupted;

static void fw_on_signal(int sig)
{
	(void)sig;
	fw_interrupted = 1;
}

void fw_catch_signal(int sig)
{
	struct sigaction sa = { .sa_handler = fw_on_signal };

	sigaction(sig, &sa, NULL);
}

int fw_write_param(const char *name, const char *value)
{
	char path[128];
	int fd, ret = 0;

	if (fw_verbosity > 0)
		fprintf(stderr, "framewalk: setting the module's %s to '%s'\n", name, value);
	snprintf(path, sizeof(path), FW_PARAMS "/%s", name);
	fd = open(path, O_WRONLY);
	if (fd < 0 || write(fd, value, strlen(value)) < 0)
		ret = -errno;
	if (fd >= 0)
		close(fd);
	if (ret)
		fprintf(stderr, "framewalk: the module refused %s '%s': %s%s\n", name, value,
			strerror(-ret), ret == -EINVAL ? " (the kernel log says which pattern)" : "");
	return ret;
}

void fw_read_param(const char *name, char *buf, size_t len)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), FW_PARAMS "/%s", name);
	buf[0] = '\0';
	f = fopen(path, "r");
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

/* Load framewalk.ko with the requested parameters, in one finit_module() call. */
static int fw_load_module(const struct fw_session_opts *o)
{
	char params[2600], user[24] = "";
	int fd, ret = 0;

	if (!o->filter) {
		fprintf(stderr, "framewalk: loading the module needs a filter (-f)\n");
		return -EINVAL;
	}
	if (o->user >= 0)
		snprintf(user, sizeof(user), " user=%d", o->user);
	snprintf(params, sizeof(params), "filter=%s notrace=%s depth=%d%s%s%s", o->filter,
		 o->notrace ? o->notrace : "", o->depth >= 0 ? o->depth : 16,
		 o->pid ? " pid=" : "", o->pid ? o->pid : "", user);
	if (fw_verbosity > 0)
		fprintf(stderr, "framewalk: loading %s with %s\n", o->module, params);
	fd = open(o->module, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		fprintf(stderr, "framewalk: -k %s: %s; give the path of a framewalk.ko built "
			"for this kernel\n", o->module, strerror(-ret));
		return ret;
	}
	if (syscall(SYS_finit_module, fd, params, 0))
		ret = -errno;
	close(fd);
	/* Only the kernel knows why it refused a module it could read: dmesg says. */
	if (ret)
		fprintf(stderr, "framewalk: -k %s: the kernel refused to load it: %s (dmesg "
			"says why)\n", o->module, strerror(-ret));
	return ret;
}

/*
 * Whether process @pid runs: a process that exited but is not reaped yet
 * (a zombie) still has its /proc entry, and is gone for -p.
 */
static int fw_pid_running(long pid)
{
	char path[64], line[512], *state;
	FILE *f;
	int running = 0;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	/* "PID (COMM) STATE ...": the comm may hold spaces and parentheses. */
	if (fgets(line, sizeof(line), f)) {
		state = strrchr(line, ')');
		running = state && state[1] == ' ' && state[2] != 'Z' && state[2] != 'X';
	}
	fclose(f);
	return running;
}

/* How many processes of a pid list ("12,34", checked by the option parser) run. */
static unsigned int fw_pids_running(const char *list)
{
	unsigned int n = 0;
	const char *p;
	char *end;

	for (p = list; *p; p = *end ? end + 1 : end)
		n += fw_pid_running(strtol(p, &end, 10));
	return n;
}

/* A parameter this run sets for itself, after saving the module's value in @was. */
static int fw_set_for_run(const char *name, const char *value, char *was, size_t len)
{
	char path[128];

	snprintf(path, sizeof(path), FW_PARAMS "/%s", name);
	if (access(path, F_OK)) {
		fprintf(stderr, "framewalk: the loaded framewalk module has no %s parameter "
			"(an older module?)\n", name);
		return -ENOENT;
	}
	fw_read_param(name, was, len);
	return fw_write_param(name, value);
}

int fw_setup_module(const struct fw_session_opts *o, struct fw_module_was *was)
{
	char num[16];
	const char *p;
	char *end;

	memset(was, 0, sizeof(*was));
	/* A process that is not running would be recorded as nothing at all. */
	for (p = o->pid; p && *p; p = *end ? end + 1 : end)
		if (!fw_pid_running(strtol(p, &end, 10))) {
			fprintf(stderr, "framewalk: -p/--pid: no process %.*s is running\n",
				(int)(end - p), p);
			return -ESRCH;
		}
	if (access(FW_PARAMS "/filter", F_OK)) {
		if (!o->module) {
			fprintf(stderr, "framewalk: the framewalk module is not loaded: "
				"insmod framewalk.ko filter=..., or pass -k PATH/framewalk.ko\n");
			return -ENOENT;
		}
		/* The module's defaults (no pid list, no user frames) are put back. */
		strcpy(was->user, "0");
		was->pid_set = o->pid != NULL;
		was->user_set = o->user >= 0;
		return fw_load_module(o);
	}
	if (o->filter && fw_write_param("filter", o->filter))
		return -EINVAL;
	if (o->notrace && fw_write_param("notrace", o->notrace))
		return -EINVAL;
	snprintf(num, sizeof(num), "%d", o->depth);
	if (o->depth >= 0 && fw_write_param("depth", num))
		return -EINVAL;
	if (o->pid) {
		if (fw_set_for_run("pid", o->pid, was->pid, sizeof(was->pid)))
			return -EINVAL;
		was->pid_set = 1;
	}
	snprintf(num, sizeof(num), "%d", o->user);
	if (o->user >= 0) {
		if (fw_set_for_run("user", num, was->user, sizeof(was->user))) {
			fw_restore_module(was);
			return -EINVAL;
		}
		was->user_set = 1;
	}
	return 0;
}

void fw_restore_module(const struct fw_module_was *was)
{
	/* A blank list clears pid; an empty write would not reach the module. */
	if (was->pid_set)
		fw_write_param("pid", was->pid[0] ? was->pid : " ");
	if (was->user_set)
		fw_write_param("user", was->user);
}

int fw_load_syms(struct fw_symtab *t)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	int ret;

	if (!f) {
		fprintf(stderr, "framewalk: cannot read /proc/kallsyms: %s\n", strerror(errno));
		return -errno;
	}
	ret = fw_symtab_load_kallsyms(t, f);
	fclose(f);
	return ret;
}

/*
 * Keep framewalk.ko loaded while this process records. debugfs takes a
 * reference on the module behind each of its open files (the owner of their
 * file_operations), so while the module's stats file is open rmmod fails
 * with "in use", as it does for a module whose events perf has open; the
 * tracefs files of the module's events take none (5.10 to 7.2), and the
 * module would go with its events and the buffers' unread events. O_CLOEXEC:
 * the command must not keep the module after the recording.
 */
static int fw_pin_fd = -1;
/* The module's initstate in sysfs, open: once that module is gone, reads fail (ENODEV). */
static int fw_live_fd = -1;

int fw_pin_module(const char *run)
{
	int err;

	fw_live_fd = open(FW_MODULE "/initstate", O_RDONLY | O_CLOEXEC);
	fw_pin_fd = open(FW_DEBUGFS "/stats", O_RDONLY | O_CLOEXEC);
	if (fw_pin_fd >= 0)
		return 0;
	err = errno;
	if (fw_verbosity >= 0)
		fprintf(stderr, "framewalk: cannot keep framewalk.ko loaded (%s/stats: %s): "
			"unloading it ends the %s\n", FW_DEBUGFS, strerror(err), run);
	return -err;
}

int fw_module_unloaded(void)
{
	char state[32];

	return fw_live_fd >= 0 && pread(fw_live_fd, state, sizeof(state), 0) < 0 &&
	       errno == ENODEV;
}

void fw_unpin_module(void)
{
	if (fw_pin_fd >= 0)
		close(fw_pin_fd);
	if (fw_live_fd >= 0)
		close(fw_live_fd);
	fw_pin_fd = fw_live_fd = -1;
}

/*
 * Start @cmd with the signal mask @mask. With @held, seize it before it
 * runs: it waits on a pipe until the recorder has tried, so that even its
 * first exec and exit are seen; *held says whether the kernel let it.
 */
static pid_t fw_spawn(char **cmd, const sigset_t *mask, int *held)
{
	int go[2] = { -1, -1 };
	char c;
	pid_t pid;

	if (held && pipe2(go, O_CLOEXEC)) {
		fprintf(stderr, "framewalk: pipe: %s\n", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		sigprocmask(SIG_SETMASK, mask, NULL);
		if (held) {
			close(go[1]);
			while (read(go[0], &c, 1) < 0 && errno == EINTR)
				;
		}
		execvp(cmd[0], cmd);
		fprintf(stderr, "framewalk: cannot run %s: %s\n", cmd[0], strerror(errno));
		_exit(127);
	}
	if (pid < 0)
		fprintf(stderr, "framewalk: fork: %s\n", strerror(errno));
	if (held) {
		*held = pid > 0 && !fw_exit_hold_attach(pid);
		close(go[0]);
		close(go[1]);
	}
	return pid;
}

/*
 * Take what the command's tasks reported, waiting for it unless @flags has
 * WNOHANG: a held task's stop is handled and the task let go, a task's end
 * passes. Returns 1 once the command itself is gone, its wait status in
 * *status (left as it was when the status is lost: ECHILD, whoever started
 * framewalk ignored SIGCHLD and the kernel reaped it).
 */
static int fw_reap(pid_t child, int held, int *status, int flags,
		   void (*exiting)(void *ctx, int pid), void *ctx)
{
	int st;
	pid_t pid;

	for (;;) {
		pid = waitpid(held ? -1 : child, &st, flags | __WALL);
		if (pid == 0)
			return 0;
		if (pid < 0 && errno == EINTR)
			continue;
		if (pid < 0)
			return 1;
		if (WIFSTOPPED(st))
			fw_exit_hold_stop(pid, st, exiting, ctx);
		else if (pid == child)
			break;
	}
	*status = st;
	return 1;
}

/* What remains of the 100 ms from @last, in *left; 0 when they are over. */
static int fw_tick_left(const struct timespec *last, struct timespec *left)
{
	struct timespec now;
	long long ns;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ns = 100000000LL - ((now.tv_sec - last->tv_sec) * 1000000000LL +
			    (now.tv_nsec - last->tv_nsec));
	if (ns <= 0)
		return 0;
	left->tv_sec = 0;
	left->tv_nsec = ns;
	return 1;
}

/*
 * Run o's command (if any) until it exits, o's seconds pass (0: no limit),
 * the processes of o's pid list have all exited (without a command) or SIGINT
 * or SIGTERM arrives, calling @tick every 100 ms with the tick's number (so
 * seconds count ten ticks); returns the command's exit status. With
 * @exiting, the command and every task it starts are held at their exit
 * while exiting(ctx, pid) runs (fw_exit_hold.c).
 */
int fw_run_command(const struct fw_session_opts *o, void (*tick)(void *ctx, unsigned int n),
		   void (*exiting)(void *ctx, int pid), void *ctx)
{
	struct timespec last = { 0, 0 }, left;
	unsigned int ticks = 0;
	int status = 0, held = 0;
	sigset_t chld, mask;
	pid_t child = -1;

	fw_catch_signal(SIGINT);
	fw_catch_signal(SIGTERM);
	/*
	 * SIGCHLD blocked, to be waited for with the tick's timeout: a held
	 * task is let go as soon as it stops, not at the next tick. The
	 * command runs with the mask framewalk was given.
	 */
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &mask);
	if (o->cmd) {
		child = fw_spawn(o->cmd, &mask, exiting ? &held : NULL);
		if (child < 0) {
			sigprocmask(SIG_SETMASK, &mask, NULL);
			return 1;
		}
	}
	while (!fw_interrupted) {
		if (child > 0 && fw_reap(child, held, &status, WNOHANG, exiting, ctx)) {
			child = -1;
			break;
		}
		if (!ticks || !fw_tick_left(&last, &left)) {
			if (o->seconds && ticks >= o->seconds * 10)
				break;
			/* -p without a command ends with its processes, as perf record -p does. */
			if (!o->cmd && o->pid && !fw_pids_running(o->pid)) {
				if (fw_verbosity > 0)
					fprintf(stderr, "framewalk: the processes of -p %s have exited\n",
						o->pid);
				break;
			}
			tick(ctx, ++ticks);
			clock_gettime(CLOCK_MONOTONIC, &last);
			continue;
		}
		sigtimedwait(&chld, NULL, &left);
	}
	if (child > 0) {
		kill(child, SIGTERM);
		fw_reap(child, held, &status, 0, exiting, ctx);
	}
	sigprocmask(SIG_SETMASK, &mask, NULL);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
