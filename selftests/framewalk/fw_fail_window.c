// SPDX-License-Identifier: GPL-2.0
/*
 * fw_fail_window.c - aim failslab and fail_page_alloc at a module's code alone.
 *
 * usage: fw_fail_window MODULE | fw_fail_window off
 *
 * With a module loaded, sets both capabilities so that a task's fail-nth
 * counts only the allocations with that module's code on the stack (the
 * stack-trace filter): its load, its parameter setters, its file operations,
 * and not the module loader's or the shell's own. The window is the arm64
 * module region's part on the module's side of the kernel image: 128 MiB
 * below the kernel's end up to its start, or from its end up to 128 MiB past
 * its start (arch/arm64/mm/init.c places modules within 128 MiB of the
 * kernel when the image is smaller), so a reload at another address is still
 * in it, and no kernel code is. GFP_KERNEL allocations and order-0 pages are
 * made failable, and the failures quiet (no dump per failure). Prints the
 * window. "off" puts the kernel's defaults back.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAULT_DIR "/sys/kernel/debug/"
#define SZ_128M 0x8000000ULL

static int set(const char *cap, const char *attr, const char *value)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), FAULT_DIR "%s/%s", cap, attr);
	f = fopen(path, "w");
	if (!f || fputs(value, f) < 0 || fclose(f)) {
		fprintf(stderr, "fw_fail_window: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* The kernel image's bounds and the lowest address of MODULE's symbols. */
static int read_symbols(const char *module, unsigned long long *text,
			unsigned long long *end, unsigned long long *mod)
{
	char line[512], name[256], tag[260], owner[256];
	unsigned long long addr;
	FILE *f = fopen("/proc/kallsyms", "r");
	char type;

	if (!f) {
		fprintf(stderr, "fw_fail_window: /proc/kallsyms: %s\n", strerror(errno));
		return -1;
	}
	*text = *end = *mod = 0;
	snprintf(tag, sizeof(tag), "[%s]", module);
	while (fgets(line, sizeof(line), f)) {
		owner[0] = '\0';
		if (sscanf(line, "%llx %c %255s %255s", &addr, &type, name, owner) < 3)
			continue;
		if (!owner[0] && !strcmp(name, "_text"))
			*text = addr;
		else if (!owner[0] && !strcmp(name, "_end"))
			*end = addr;
		else if (!strcmp(owner, tag) && addr && (!*mod || addr < *mod))
			*mod = addr;
	}
	fclose(f);
	if (!*text || !*end || !*mod) {
		fprintf(stderr, "fw_fail_window: /proc/kallsyms has no %s (as root, %s loaded?)\n",
			!*text ? "_text" : !*end ? "_end" : tag, module);
		return -1;
	}
	return 0;
}

static int window(unsigned long long lo, unsigned long long hi)
{
	static const char * const caps[] = { "failslab", "fail_page_alloc" };
	char start[32], end[32];
	int i, rc = 0;

	snprintf(start, sizeof(start), "%llu", lo);
	snprintf(end, sizeof(end), "%llu", hi);
	for (i = 0; i < 2; i++) {
		rc |= set(caps[i], "require-start", start);
		rc |= set(caps[i], "require-end", end);
		rc |= set(caps[i], "stacktrace-depth", "32");
		rc |= set(caps[i], "verbose", lo ? "0" : "2");
		rc |= set(caps[i], "ignore-gfp-wait", lo ? "N" : "Y");
	}
	rc |= set("fail_page_alloc", "ignore-gfp-highmem", lo ? "N" : "Y");
	rc |= set("fail_page_alloc", "min-order", lo ? "0" : "1");
	return rc;
}

int main(int argc, char **argv)
{
	unsigned long long text, end, mod, lo, hi;

	if (argc != 2) {
		fprintf(stderr, "usage: fw_fail_window MODULE | fw_fail_window off\n");
		return 2;
	}
	if (!strcmp(argv[1], "off"))
		return window(0, ~0ULL) ? 1 : 0;
	if (read_symbols(argv[1], &text, &end, &mod))
		return 1;
	if (end - text >= SZ_128M) {
		fprintf(stderr, "fw_fail_window: a kernel image of %llu MiB: %s\n",
			(end - text) >> 20, "no module region within 128 MiB");
		return 1;
	}
	if (mod < text) {
		lo = end - SZ_128M;
		hi = text;
	} else {
		lo = end;
		hi = text + SZ_128M;
	}
	if (mod < lo || mod >= hi) {
		fprintf(stderr, "fw_fail_window: %s at %#llx, outside %#llx-%#llx\n", argv[1], mod,
			lo, hi);
		return 1;
	}
	if (window(lo, hi))
		return 1;
	printf("%#llx-%#llx\n", lo, hi);
	return 0;
}
