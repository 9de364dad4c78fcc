// SPDX-License-Identifier: GPL-2.0
/*
 * bench_lines.c - crashwalk's own line-program reader against libdw's, on
 * the firmware images named: time and peak memory to read every unit's
 * table, and to answer a first lookup in each (what a cold run pays).
 *
 * usage: bench_lines own|libdw all|first FW.elf...
 *   all    every row of every unit decoded (own: each sequence run to its end)
 *   first  each unit's table made ready and one address looked up in it
 * Prints one line: units, rows, milliseconds, and the peak resident set's
 * growth over the images' own (KiB). Run each reader in a process of its
 * own: the peak is the process's.
 */
#include <sys/resource.h>
#include <time.h>

/* The reader is static to the line code: this program compiles its own copy. */
#include "image/cw_lines.c"

static long peak_kib(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int count_row(void *arg, const struct line_row *r, const uint8_t *next)
{
	(void)next;
	++*(unsigned long *)arg;
	return r->end;
}

/*
 * Every row of a unit, or its first sequence's start looked up; rows counted.
 * Not inlined, here and below, so that valgrind --toggle-collect=own_unit
 * counts one reader's instructions alone: wall time on a shared host varies.
 */
static __attribute__((noinline)) unsigned long
own_unit(struct cw_image *img, Dwarf_Die *cu, int all)
{
	struct cw_cuindex *ix = cu_entry(img, cu);
	struct cw_linetab *lt = ix ? &ix->lines : NULL;
	struct cw_srcline src;
	unsigned long rows = 0;
	size_t i;

	if (!lt)
		return 0;
	if (!lt->state)
		lt->state = read_linetab(lt, cu) ? -1 : 1;
	if (lt->state < 0)
		return 0;
	if (!all) {
		if (lt->nr_seqs)
			fast_srcline(img, cu, lt->seqs[0].lo, &src);
		return lt->nr_seqs;
	}
	for (i = 0; i < lt->nr_seqs; i++) {
		const struct cw_linemark *m = &lt->marks[lt->seqs[i].mark];
		struct line_row from = { m->addr, m->file, m->line, m->stmt, false };

		rows++;		/* the mark's own row */
		line_run(lt, m->ops, &from, 1, count_row, &rows);
	}
	return rows;
}

static __attribute__((noinline)) unsigned long
libdw_unit(Dwarf_Die *cu, int all)
{
	Dwarf_Lines *lines;
	Dwarf_Addr a;
	size_t n, i;
	int line;

	if (dwarf_getsrclines(cu, &lines, &n))
		return 0;
	if (!all) {
		if (n && !dwarf_lineaddr(dwarf_onesrcline(lines, 0), &a))
			best_line(lines, n, a);
		return n;
	}
	for (i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);

		if (dwarf_lineaddr(l, &a) || dwarf_lineno(l, &line) ||
		    !dwarf_linesrc(l, NULL, NULL))
			return 0;
	}
	return n;
}

int main(int argc, char **argv)
{
	unsigned long units = 0, rows = 0;
	struct cw_image *img[64];
	double t0, ms;
	long base;
	int i, own, all, nr = 0;

	if (argc < 4 || argc - 3 > 64) {
		fprintf(stderr, "usage: bench_lines own|libdw all|first FW.elf...\n");
		return 2;
	}
	own = !strcmp(argv[1], "own");
	all = !strcmp(argv[2], "all");
	for (i = 3; i < argc; i++) {
		struct cw_error err = { 0 };

		img[nr] = cw_image_open(argv[i], &err);
		if (!img[nr]) {
			fprintf(stderr, "%s\n", err.msg);
			return 1;
		}
		nr++;
	}
	base = peak_kib();
	t0 = now_ms();
	for (i = 0; i < nr; i++) {
		Dwfl_Module *mod;
		Dwarf_Die *cu = NULL;
		Dwarf_Addr bias;

		mod = dwfl_addrmodule(img[i]->dwfl, img[i]->exec[0].addr);
		while (mod && (cu = dwfl_module_nextcu(mod, cu, &bias))) {
			units++;
			rows += own ? own_unit(img[i], cu, all) : libdw_unit(cu, all);
		}
	}
	ms = now_ms() - t0;
	printf("%s %s: %lu units, %lu %s, %.2f ms, peak +%ld KiB\n", argv[1], argv[2], units,
	       rows, all ? "rows" : own ? "sequences" : "rows", ms, peak_kib() - base);
	for (i = 0; i < nr; i++)
		cw_image_close(img[i]);
	return 0;
}
