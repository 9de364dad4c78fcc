// SPDX-License-Identifier: GPL-2.0
/*
 * fw_exit_hold.c - the command record runs, and every task it starts, held at
 * its exit through ptrace while record reads what it needs of it (its
 * mappings), so that a program shorter than a drain still has its user
 * frames named.
 *
 * A task that exits stops at PTRACE_EVENT_EXIT with its memory still mapped;
 * fw_run_command() calls the recorder there, then lets it go. Forks, vforks,
 * clones and execs are followed (each new task is attached by the kernel,
 * before it runs); signals are delivered as they came, and a stop signal
 * stops the task as it would untraced (PTRACE_LISTEN).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include "fw_cli.h"

#define FW_EXIT_HOLD_OPTIONS	(PTRACE_O_TRACEEXIT | PTRACE_O_TRACEFORK | \
				 PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE | \
				 PTRACE_O_TRACEEXEC)

int fw_exit_hold_attach(pid_t pid)
{
	int err;

	/*
	 * PTRACE_SEIZE, not PTRACE_TRACEME in the child: the options hold
	 * from the first instruction, no SIGSTOP or SIGTRAP is sent, and the
	 * recorder learns here whether the kernel let it trace.
	 */
	if (!ptrace(PTRACE_SEIZE, pid, NULL, (void *)(long)FW_EXIT_HOLD_OPTIONS))
		return 0;
	err = errno;
	/*
	 * Refused when a tracer of framewalk follows its children and took
	 * this one first (strace -f, trace-cmd record --proc-map), or by
	 * kernel.yama.ptrace_scope=3 or an LSM: record then reads the
	 * mappings at the drains, as it does for the processes it did not start.
	 */
	if (fw_verbosity >= 0)
		fprintf(stderr, "framewalk: cannot hold the command's exits (ptrace: %s%s): a "
			"process gone before its events are drained keeps its user frames "
			"as addresses\n", strerror(err),
			err == EPERM ? "; is framewalk itself traced?" : "");
	return -err;
}

/* A stop that is a group-stop: the task stays stopped, as it would untraced. */
static int fw_group_stop(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

void fw_exit_hold_stop(pid_t pid, int status, void (*exiting)(void *ctx, int pid), void *ctx)
{
	int sig = WSTOPSIG(status);

	switch (status >> 16) {
	case PTRACE_EVENT_EXIT:
		/* Still mapped: the recorder reads it now, then the task exits. */
		exiting(ctx, pid);
		sig = 0;
		break;
	case PTRACE_EVENT_STOP:
		if (fw_group_stop(sig)) {
			ptrace(PTRACE_LISTEN, pid, NULL, NULL);
			return;
		}
		/* A new task's first stop: it runs. */
		sig = 0;
		break;
	case 0:
		/* A signal for the task: delivered as it came. */
		break;
	default:
		/* A fork, vfork, clone or exec: the new task is followed too. */
		sig = 0;
		break;
	}
	/* ESRCH: the task was killed meanwhile (SIGKILL does not wait). */
	ptrace(PTRACE_CONT, pid, NULL, (void *)(long)sig);
}
