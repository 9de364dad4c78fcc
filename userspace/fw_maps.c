// SPDX-License-Identifier: GPL-2.0
/*
 * fw_maps.c - framewalk record's view of the processes behind user frames:
 * each one's mappings from /proc/PID/maps, with every mapped ELF's GNU
 * build-id, written into the recording when a pid is first seen and again
 * when one of its user frames falls outside every mapping known for it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <elfutils/libdwelf.h>
#include <libelf.h>

#include "fw_maps.h"

/* One process: the ranges its last mapping set covers, and when it was read. */
struct fw_maps_proc {
	int pid;
	unsigned long long *range;	/* start, end pairs */
	size_t nrange;
	int tried;			/* its maps were read, or found gone, at read_drain */
	unsigned int read_drain;
	int gone;			/* gone before they were ever read: counted once */
};

/* A file's build-id by its device and inode: each file is opened once per recording. */
struct fw_build_id_seen {
	unsigned long long dev, ino;
	unsigned char id[FW_BUILD_ID_MAX];
	unsigned int len;
};

struct fw_maps {
	struct fw_maps_proc *proc;
	size_t nproc, proc_cap;
	struct fw_build_id_seen *ids;
	size_t nids, ids_cap;
	unsigned long long sets;	/* mapping sets written */
	unsigned long long unread;	/* processes gone before their maps were read */
};

struct fw_maps *fw_maps_new(void)
{
	elf_version(EV_CURRENT);
	return calloc(1, sizeof(struct fw_maps));
}

void fw_maps_free(struct fw_maps *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->nproc; i++)
		free(t->proc[i].range);
	free(t->proc);
	free(t->ids);
	free(t);
}

unsigned long long fw_maps_sets(const struct fw_maps *t)
{
	return t->sets;
}

unsigned long long fw_maps_unread(const struct fw_maps *t)
{
	return t->unread;
}

/* The GNU build-id of the ELF open at fd, into m; none when it is no ELF or has none. */
static void fw_fd_build_id(int fd, struct fw_mapping *m)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	const void *id;
	ssize_t n = -1;

	if (elf && elf_kind(elf) == ELF_K_ELF)
		n = dwelf_elf_gnu_build_id(elf, &id);
	if (n > 0 && n <= FW_BUILD_ID_MAX) {
		memcpy(m->build_id, id, (size_t)n);
		m->build_id_len = (unsigned int)n;
	}
	elf_end(elf);
}

/*
 * The build-id of the file mapped at m: read through /proc/PID/map_files, the
 * very file mapped even if it was deleted or replaced since, or lives in
 * another mount namespace; through its path where that is refused.
 */
static void fw_mapping_build_id(struct fw_maps *t, int pid, unsigned long long dev,
				unsigned long long ino, struct fw_mapping *m)
{
	struct fw_build_id_seen *v;
	char path[96];
	size_t i;
	int fd;

	for (i = 0; i < t->nids; i++)
		if (t->ids[i].dev == dev && t->ids[i].ino == ino) {
			memcpy(m->build_id, t->ids[i].id, t->ids[i].len);
			m->build_id_len = t->ids[i].len;
			return;
		}
	snprintf(path, sizeof(path), "/proc/%d/map_files/%llx-%llx", pid, m->start, m->end);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fd = open(m->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	fw_fd_build_id(fd, m);
	close(fd);
	v = fw_grow(t->ids, &t->ids_cap, t->nids, sizeof(*v), 64);
	if (!v)
		return;
	t->ids = v;
	v[t->nids].dev = dev;
	v[t->nids].ino = ino;
	memcpy(v[t->nids].id, m->build_id, m->build_id_len);
	v[t->nids].len = m->build_id_len;
	t->nids++;
}

static struct fw_maps_proc *fw_maps_proc(struct fw_maps *t, int pid)
{
	struct fw_maps_proc *v;
	size_t i;

	for (i = 0; i < t->nproc; i++)
		if (t->proc[i].pid == pid)
			return &t->proc[i];
	v = fw_grow(t->proc, &t->proc_cap, t->nproc, sizeof(*v), 64);
	if (!v)
		return NULL;
	t->proc = v;
	memset(&v[t->nproc], 0, sizeof(*v));
	v[t->nproc].pid = pid;
	return &v[t->nproc++];
}

static int fw_maps_covered(const struct fw_maps_proc *p, unsigned long long addr)
{
	size_t i;

	for (i = 0; i < p->nrange; i++)
		if (addr >= p->range[2 * i] && addr < p->range[2 * i + 1])
			return 1;
	return 0;
}

/*
 * Whether a line of /proc/PID/maps is worth keeping: every mapping of a file
 * (libdwfl places an ELF by its lowest one, which is not executable), and the
 * executable ones of no file ([vdso], JIT code) so that their frames are
 * known to be there.
 */
static int fw_maps_keep(const char *perms, const char *path)
{
	return path[0] == '/' || perms[2] == 'x';
}

/* Read pid's mappings into m (allocated); returns how many, -1 if the process is gone. */
static long fw_maps_read(struct fw_maps *t, int pid, struct fw_mapping **out)
{
	struct fw_mapping *m = NULL, *v;
	size_t n = 0, cap = 0;
	char path[64], perms[8], *line = NULL;
	unsigned int major, minor;
	unsigned long long ino;
	size_t lcap = 0;
	int used;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (getline(&line, &lcap, f) > 0) {
		struct fw_mapping one = {};
		char *name;

		used = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &one.start, &one.end, perms,
			   &one.offset, &major, &minor, &ino, &used) != 7 || !used)
			continue;
		name = line + used;
		name[strcspn(name, "\n")] = '\0';
		if (!fw_maps_keep(perms, name))
			continue;
		v = fw_grow(m, &cap, n, sizeof(*m), 64);
		if (!v)
			break;
		m = v;
		one.path = strdup(name);
		if (!one.path)
			break;
		if (name[0] == '/' && ino)
			fw_mapping_build_id(t, pid, (unsigned long long)major << 32 | minor, ino,
					    &one);
		m[n++] = one;
	}
	free(line);
	fclose(f);
	*out = m;
	return (long)n;
}

int fw_maps_see(struct fw_maps *t, FILE *out, int pid, const unsigned long long *addr,
		unsigned int n, unsigned int drain)
{
	struct fw_maps_proc *p = fw_maps_proc(t, pid);
	struct fw_mapping *m = NULL;
	unsigned long long *range;
	unsigned int i;
	long nm, k;

	if (!p)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		if (!fw_maps_covered(p, addr[i]))
			break;
	/* All known, or read already this drain: reading again would find the same. */
	if (i == n || (p->tried && p->read_drain == drain))
		return 0;
	p->tried = 1;
	p->read_drain = drain;
	nm = fw_maps_read(t, pid, &m);
	if (nm < 0) {
		if (!p->nrange && !p->gone)
			t->unread++;
		p->gone = 1;
		return 0;
	}
	range = malloc((nm ? nm : 1) * 2 * sizeof(*range));
	if (!range) {
		for (k = 0; k < nm; k++)
			free(m[k].path);
		free(m);
		return -ENOMEM;
	}
	for (k = 0; k < nm; k++) {
		range[2 * k] = m[k].start;
		range[2 * k + 1] = m[k].end;
	}
	free(p->range);
	p->range = range;
	p->nrange = (size_t)nm;
	fw_recording_write_mapset(out, pid, m, (size_t)nm);
	t->sets++;
	for (k = 0; k < nm; k++)
		free(m[k].path);
	free(m);
	return 0;
}
