// SPDX-License-Identifier: GPL-2.0
/*
 * fw_usym.c - user frames named through elfutils' libdwfl, from the mappings
 * a recording holds: each process's files placed where they were mapped,
 * found by path when the file there has the recorded build-id, else by
 * build-id (/usr/lib/debug/.build-id, then debuginfod when DEBUGINFOD_URLS is
 * set: libdwfl loads libdebuginfod itself, only when it is needed).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>

#include "fw_maps.h"

/* A frame named before: the same address of the same set is named alike. */
struct fw_usym_seen {
	unsigned long long addr;
	long set;		/* -1: a free slot */
	unsigned int how;	/* style * 2 + 1 for a return address (its line is the call's) */
	char *name;
};

struct fw_usym {
	const struct fw_recording *r;
	Dwfl **dwfl;		/* per mapping set, made on first use; NULL: not yet */
	char *made;		/* per mapping set: 1 once tried, whether it worked or not */
	/*
	 * Names by address: frames repeat from chain to chain, and libdwfl
	 * searches a module's symbols one by one for each address.
	 */
	struct fw_usym_seen *seen;
	size_t nseen, seen_cap;	/* seen_cap: a power of two, at most half used */
};

/*
 * The file at modname if it is the one recorded (same build-id, or none was
 * recorded), else the file of that build-id wherever libdwfl finds it.
 */
static int fw_usym_find_elf(Dwfl_Module *mod, void **userdata, const char *modname,
			    Dwarf_Addr base, char **file_name, Elf **elfp)
{
	const unsigned char *want;
	const void *got;
	GElf_Addr vaddr;
	int len = dwfl_module_build_id(mod, &want, &vaddr);
	int fd = open(modname, O_RDONLY | O_CLOEXEC);
	Elf *elf;

	if (fd >= 0) {
		elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
		if (elf && elf_kind(elf) == ELF_K_ELF &&
		    (len <= 0 || (dwelf_elf_gnu_build_id(elf, &got) == len &&
				  !memcmp(got, want, (size_t)len)))) {
			*file_name = strdup(modname);
			*elfp = elf;
			return fd;
		}
		elf_end(elf);
		close(fd);
	}
	if (len <= 0)
		return -1;
	return dwfl_build_id_find_elf(mod, userdata, modname, base, file_name, elfp);
}

static char *fw_debuginfo_path;

static const Dwfl_Callbacks fw_usym_callbacks = {
	.find_elf = fw_usym_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &fw_debuginfo_path,
};

struct fw_usym *fw_usym_new(const struct fw_recording *r)
{
	struct fw_usym *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->r = r;
	u->dwfl = calloc(r->nmapsets ? r->nmapsets : 1, sizeof(*u->dwfl));
	u->made = calloc(r->nmapsets ? r->nmapsets : 1, 1);
	if (!u->dwfl || !u->made) {
		fw_usym_free(u);
		return NULL;
	}
	return u;
}

void fw_usym_free(struct fw_usym *u)
{
	size_t i;

	if (!u)
		return;
	for (i = 0; i < u->seen_cap; i++)
		if (u->seen[i].set >= 0)
			free(u->seen[i].name);
	free(u->seen);
	for (i = 0; u->dwfl && i < u->r->nmapsets; i++)
		if (u->dwfl[i])
			dwfl_end(u->dwfl[i]);
	free(u->dwfl);
	free(u->made);
	free(u);
}

/*
 * One module per file, from its lowest mapping to the end of its highest, as
 * libdwfl's own reading of /proc/PID/maps reports them: libdwfl then places
 * the ELF by its first loadable segment, which the lowest mapping holds.
 */
static Dwfl *fw_usym_dwfl(struct fw_usym *u, long set)
{
	const struct fw_mapset *s = &u->r->mapsets[set];
	const struct fw_mapping *m = &u->r->maps[s->first];
	unsigned long long low, high;
	Dwfl_Module *mod;
	size_t i, j;
	Dwfl *dwfl;

	if (u->made[set])
		return u->dwfl[set];
	u->made[set] = 1;
	dwfl = dwfl_begin(&fw_usym_callbacks);
	if (!dwfl)
		return NULL;
	dwfl_report_begin(dwfl);
	for (i = 0; i < s->n; i++) {
		if (m[i].path[0] != '/')
			continue;
		for (j = 0; j < i && strcmp(m[j].path, m[i].path); j++)
			;
		if (j < i)
			continue;	/* reported with its first mapping */
		low = m[i].start;
		high = m[i].end;
		for (j = i + 1; j < s->n; j++)
			if (!strcmp(m[j].path, m[i].path)) {
				low = m[j].start < low ? m[j].start : low;
				high = m[j].end > high ? m[j].end : high;
			}
		mod = dwfl_report_module(dwfl, m[i].path, low, high);
		if (mod && m[i].build_id_len)
			dwfl_module_report_build_id(mod, m[i].build_id, (int)m[i].build_id_len, 0);
	}
	dwfl_report_end(dwfl, NULL, NULL);
	u->dwfl[set] = dwfl;
	return dwfl;
}

/* The mapping of set that holds addr; NULL if none. */
static const struct fw_mapping *fw_usym_mapping(const struct fw_usym *u, long set,
						unsigned long long addr)
{
	const struct fw_mapset *s = &u->r->mapsets[set];
	size_t i;

	for (i = 0; i < s->n; i++)
		if (addr >= u->r->maps[s->first + i].start && addr < u->r->maps[s->first + i].end)
			return &u->r->maps[s->first + i];
	return NULL;
}

static size_t fw_usym_slot(const struct fw_usym *u, long set, unsigned long long addr,
			   unsigned int how)
{
	size_t mask = u->seen_cap - 1;
	size_t i = (size_t)((addr ^ (unsigned long long)set << 40 ^ how) *
			    0x9e3779b97f4a7c15ull >> 20) & mask;

	while (u->seen[i].set >= 0 && (u->seen[i].addr != addr || u->seen[i].set != set ||
				       u->seen[i].how != how))
		i = (i + 1) & mask;
	return i;
}

/* The name given to this frame before, or NULL. */
static const char *fw_usym_lookup(const struct fw_usym *u, long set, unsigned long long addr,
				  unsigned int how)
{
	size_t i;

	if (!u->seen_cap)
		return NULL;
	i = fw_usym_slot(u, set, addr, how);
	return u->seen[i].set >= 0 ? u->seen[i].name : NULL;
}

/* Remember name; out of memory, it is only not remembered. */
static void fw_usym_remember(struct fw_usym *u, long set, unsigned long long addr,
			     unsigned int how, const char *name)
{
	struct fw_usym_seen *old = u->seen;
	size_t old_cap = u->seen_cap, i;

	if (2 * (u->nseen + 1) > u->seen_cap) {
		u->seen_cap = old_cap ? 2 * old_cap : 1024;
		u->seen = malloc(u->seen_cap * sizeof(*u->seen));
		if (!u->seen) {
			u->seen = old;
			u->seen_cap = old_cap;
			return;
		}
		for (i = 0; i < u->seen_cap; i++)
			u->seen[i].set = -1;
		for (i = 0; i < old_cap; i++)
			if (old[i].set >= 0)
				u->seen[fw_usym_slot(u, old[i].set, old[i].addr, old[i].how)] = old[i];
		free(old);
	}
	i = fw_usym_slot(u, set, addr, how);
	u->seen[i].name = strdup(name);
	if (!u->seen[i].name)
		return;
	u->seen[i].addr = addr;
	u->seen[i].set = set;
	u->seen[i].how = how;
	u->nseen++;
}

static const char *fw_basename(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static const char *fw_usym_lookup_name(struct fw_usym *u, const struct fw_event *e,
				       unsigned int i, enum fw_usym_style style, char *buf,
				       size_t len);

const char *fw_usym_name(struct fw_usym *u, const struct fw_event *e, unsigned int i,
			 enum fw_usym_style style, char *buf, size_t len)
{
	unsigned int how = style * 2 + (i > 0);
	const char *seen;

	if (!u || e->mapset < 0)
		return fw_usym_lookup_name(u, e, i, style, buf, len);
	seen = fw_usym_lookup(u, e->mapset, e->user[i], how);
	if (seen) {
		snprintf(buf, len, "%s", seen);
		return buf;
	}
	fw_usym_lookup_name(u, e, i, style, buf, len);
	fw_usym_remember(u, e->mapset, e->user[i], how, buf);
	return buf;
}

/* Frame i of e named through libdwfl (fw_usym_name without the memory of names). */
static const char *fw_usym_lookup_name(struct fw_usym *u, const struct fw_event *e,
				       unsigned int i, enum fw_usym_style style, char *buf,
				       size_t len)
{
	unsigned long long addr = e->user[i];
	const struct fw_mapping *map = NULL;
	const char *func = NULL, *src;
	Dwfl_Module *mod = NULL;
	Dwfl_Line *line;
	GElf_Off off = 0;
	GElf_Sym sym;
	Dwfl *dwfl;
	int lineno = 0, n;

	if (u && e->mapset >= 0) {
		map = fw_usym_mapping(u, e->mapset, addr);
		dwfl = map && map->path[0] == '/' ? fw_usym_dwfl(u, e->mapset) : NULL;
		mod = dwfl ? dwfl_addrmodule(dwfl, addr) : NULL;
		if (mod)
			func = dwfl_module_addrinfo(mod, addr, &off, &sym, NULL, NULL, NULL);
	}
	if (style == FW_USYM_FUNC) {
		if (func)
			snprintf(buf, len, "%s", func);
		else
			snprintf(buf, len, "0x%llx", addr);
		return buf;
	}
	if (!func) {
		if (map)
			snprintf(buf, len, "[unknown] 0x%llx (%s+0x%llx)", addr,
				 map->path[0] ? map->path : "anon",
				 addr - map->start + map->offset);
		else
			snprintf(buf, len, "[unknown] 0x%llx", addr);
		return buf;
	}
	n = snprintf(buf, len, "%s+0x%llx (%s)", func, (unsigned long long)off, map->path);
	/* A return address's line is its call's: the instruction before it. */
	line = dwfl_module_getsrc(mod, i ? addr - 1 : addr);
	src = line ? dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL) : NULL;
	if (src && lineno > 0 && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - n, " %s:%d", fw_basename(src), lineno);
	return buf;
}
