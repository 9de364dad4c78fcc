// SPDX-License-Identifier: GPL-2.0
/*
 * fw_session.c - what record, stream and profile share around a run:
 * framewalk.ko loaded or its parameters set, the kernel's symbols, and the
 * command run until it ends, time is up or the user interrupts.
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

static pid_t fw_spawn(char **cmd)
{
	pid_t pid = fork();

	if (pid == 0) {
		execvp(cmd[0], cmd);
		fprintf(stderr, "framewalk: cannot run %s: %s\n", cmd[0], strerror(errno));
		_exit(127);
	}
	if (pid < 0)
		fprintf(stderr, "framewalk: fork: %s\n", strerror(errno));
	return pid;
}

/* The tick's number is the time: every 100 ms, so seconds count ten ticks. */
int fw_run_command(const struct fw_session_opts *o, void (*tick)(void *ctx, unsigned int n),
		   void *ctx)
{
	struct timespec pause = { 0, 100 * 1000 * 1000 };
	unsigned int ticks = 0;
	int status = 0;
	pid_t child = -1;

	fw_catch_signal(SIGINT);
	fw_catch_signal(SIGTERM);
	if (o->cmd) {
		child = fw_spawn(o->cmd);
		if (child < 0)
			return 1;
	}
	while (!fw_interrupted) {
		if (child > 0 && waitpid(child, &status, WNOHANG) == child) {
			child = -1;
			break;
		}
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
		nanosleep(&pause, NULL);
	}
	if (child > 0) {
		kill(child, SIGTERM);
		waitpid(child, &status, 0);
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

