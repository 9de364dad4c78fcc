// SPDX-License-Identifier: GPL-2.0
/*
 * fw_procmaps.c - trace-cmd's PROCMAPS options (trace-cmd record --proc-map)
 * read from trace-cmd dump's text: for each process, "PID N EXE" (hex), then
 * N lines "START END PATH" (hex), the named lines of /proc/PID/maps as
 * trace-cmd read them when the process exited, without their file offsets.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fw_procmaps.h"

struct fw_procmap {
	int pid;
	unsigned long long start, end;
	unsigned long long base;	/* the lowest start of the same path in the process */
	char *path;
};

/* Each process's mappings one after the other, in the order of the dump. */
struct fw_procmaps {
	struct fw_procmap *map;
	size_t n, cap;
};

/* Drop the mappings from first on: a set that did not read whole, or all. */
static void fw_procmaps_cut(struct fw_procmaps *m, size_t first)
{
	while (m->n > first)
		free(m->map[--m->n].path);
}

void fw_procmaps_free(struct fw_procmaps *m)
{
	if (!m)
		return;
	fw_procmaps_cut(m, 0);
	free(m->map);
	free(m);
}

/* "START END PATH" appended for pid; -1 when the line is not one, -2 out of memory. */
static int fw_procmaps_add(struct fw_procmaps *m, int pid, char *line)
{
	struct fw_procmap *e, *v;
	size_t len;
	int pos = 0;

	if (m->n == m->cap) {
		v = realloc(m->map, (m->cap ? 2 * m->cap : 64) * sizeof(*v));
		if (!v)
			return -2;
		m->map = v;
		m->cap = m->cap ? 2 * m->cap : 64;
	}
	e = &m->map[m->n];
	if (sscanf(line, "%llx %llx %n", &e->start, &e->end, &pos) != 2 || !pos ||
	    e->end <= e->start)
		return -1;
	len = strcspn(line + pos, "\n");
	if (!len)
		return -1;
	e->path = strndup(line + pos, len);
	if (!e->path)
		return -2;
	e->pid = pid;
	m->n++;
	return 0;
}

/*
 * The set maps[first, n) is whole: each mapping learns where its file's
 * lowest mapping starts. A pid seen before keeps its first set (the dump lists
 * a process once per buffer instance that traced it).
 */
static void fw_procmaps_close_set(struct fw_procmaps *m, size_t first)
{
	size_t i, j;

	for (i = 0; i < first; i++)
		if (first < m->n && m->map[i].pid == m->map[first].pid) {
			fw_procmaps_cut(m, first);
			return;
		}
	for (i = first; i < m->n; i++) {
		m->map[i].base = m->map[i].start;
		for (j = first; j < m->n; j++)
			if (m->map[j].start < m->map[i].base &&
			    !strcmp(m->map[j].path, m->map[i].path))
				m->map[i].base = m->map[j].start;
	}
}

struct fw_procmaps *fw_procmaps_parse(FILE *dump)
{
	struct fw_procmaps *m = calloc(1, sizeof(*m));
	unsigned int pid = 0, left = 0, want_head = 0;
	size_t first = 0, cap = 0;
	char *line = NULL, *p;
	int rc;

	if (!m)
		return NULL;
	while (getline(&line, &cap, dump) > 0) {
		if (left) {
			rc = fw_procmaps_add(m, (int)pid, line);
			if (rc == -2)
				goto fail;
			if (!rc) {
				if (!--left)
					fw_procmaps_close_set(m, first);
				continue;
			}
			/* Not a mapping: the set is short, and this line may head the next. */
			fw_procmaps_cut(m, first);
			left = 0;
		}
		p = line + strspn(line, " \t");
		if (!strncmp(p, "[Option PROCMAPS, ", 18)) {
			want_head = 1;
			continue;
		}
		if (want_head) {
			want_head = 0;
			if (sscanf(line, "%x %x", &pid, &left) != 2)
				left = 0;
			first = m->n;
		}
	}
	/* A set the dump ended inside of. */
	if (left)
		fw_procmaps_cut(m, first);
	if (m->n) {
		free(line);
		return m;
	}
fail:
	free(line);
	fw_procmaps_free(m);
	return NULL;
}

/* The trace-cmd that runs this plugin (report), else the one in PATH. */
static const char *fw_trace_cmd(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);
	const char *name;

	if (n <= 0)
		return "trace-cmd";
	buf[n] = '\0';
	name = strrchr(buf, '/');
	return !strcmp(name ? name + 1 : buf, "trace-cmd") ? buf : "trace-cmd";
}

struct fw_procmaps *fw_procmaps_read(const char *trace_dat, char *err, size_t errlen)
{
	char self[4096];
	const char *cmd = fw_trace_cmd(self, sizeof(self));
	char *argv[] = { "trace-cmd", "dump", "--options", "-i", (char *)trace_dat, NULL };
	posix_spawn_file_actions_t fa;
	struct fw_procmaps *m = NULL;
	int fds[2], status = 0, rc;
	pid_t pid;
	FILE *f;

	if (pipe2(fds, O_CLOEXEC)) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return NULL;
	}
	rc = posix_spawn_file_actions_init(&fa);
	if (!rc) {
		rc = posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
		if (!rc)
			rc = posix_spawnp(&pid, cmd, &fa, NULL, argv, environ);
		posix_spawn_file_actions_destroy(&fa);
	}
	close(fds[1]);
	if (rc) {
		close(fds[0]);
		snprintf(err, errlen, "cannot run %s: %s", cmd, strerror(rc));
		return NULL;
	}
	f = fdopen(fds[0], "r");
	if (f) {
		m = fw_procmaps_parse(f);
		fclose(f);
	} else {
		close(fds[0]);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		snprintf(err, errlen, "%s dump --options -i %s failed", cmd, trace_dat);
		fw_procmaps_free(m);
		return NULL;
	}
	if (!m)
		snprintf(err, errlen, "no process maps in it (trace-cmd record --proc-map keeps them)");
	return m;
}

int fw_procmaps_find(const struct fw_procmaps *m, int pid, unsigned long long addr,
		     struct fw_procmap_place *p)
{
	size_t i;

	for (i = 0; m && i < m->n; i++) {
		const struct fw_procmap *e = &m->map[i];

		if (e->pid != pid || addr < e->start || addr >= e->end)
			continue;
		p->path = e->path;
		p->off = addr - e->base;
		p->exact = e->start == e->base;
		return 0;
	}
	return -1;
}
