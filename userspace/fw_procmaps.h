/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fw_procmaps.h - the process mappings trace-cmd record --proc-map keeps in a
 * trace.dat, for plugin_framewalk to say which file a user frame is in.
 */
#ifndef FW_PROCMAPS_H
#define FW_PROCMAPS_H

#include <stddef.h>
#include <stdio.h>

struct fw_procmaps;

/*
 * The PROCMAPS options of trace_dat, as `trace-cmd dump --options -i
 * trace_dat` prints them (libtracecmd keeps its reader of them private): the
 * trace-cmd running this, else the one in PATH. NULL, with why in err, when
 * dump fails or the file holds no maps.
 */
struct fw_procmaps *fw_procmaps_read(const char *trace_dat, char *err, size_t errlen);
/* The same from dump's text; NULL when it holds no maps or memory ran out. */
struct fw_procmaps *fw_procmaps_parse(FILE *dump);
void fw_procmaps_free(struct fw_procmaps *m);

/*
 * Where addr is among pid's mappings: the file (or "[vdso]"...) and the
 * distance from that file's lowest mapping. trace-cmd keeps no file offset:
 * the distance is the offset only where the file's lowest mapping holds addr
 * (exact), the first loadable segment of an ELF, mapped from its offset 0.
 */
struct fw_procmap_place {
	const char *path;
	unsigned long long off;
	int exact;
};

/* 0 and *p filled; -1 when pid's maps are unknown or no mapping holds addr. */
int fw_procmaps_find(const struct fw_procmaps *m, int pid, unsigned long long addr,
		     struct fw_procmap_place *p);

#endif /* FW_PROCMAPS_H */
