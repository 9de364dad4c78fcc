// SPDX-License-Identifier: GPL-2.0
/*
 * fw_insmod.c - load a module with one finit_module() call. busybox insmod
 * retries init_module() when finit_module() fails, running the module's init
 * twice, which would double every refusal message the tests count.
 * usage: fw_insmod MODULE.ko [PARAM=VALUE]...
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char params[4096] = "";
	size_t used = 0;
	int fd, i;

	if (argc < 2) {
		fprintf(stderr, "usage: fw_insmod MODULE.ko [PARAM=VALUE]...\n");
		return 2;
	}
	for (i = 2; i < argc; i++) {
		int n = snprintf(params + used, sizeof(params) - used, "%s%s",
				 used ? " " : "", argv[i]);

		if (n < 0 || (size_t)n >= sizeof(params) - used) {
			fprintf(stderr, "fw_insmod: parameters longer than %zu bytes\n",
				sizeof(params) - 1);
			return 2;
		}
		used += (size_t)n;
	}
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "fw_insmod: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	if (syscall(SYS_finit_module, fd, params, 0)) {
		fprintf(stderr, "fw_insmod: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	return 0;
}
