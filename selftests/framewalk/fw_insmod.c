// SPDX-License-Identifier: GPL-2.0
/*
 * fw_insmod.c - load a module with one finit_module() call. busybox insmod
 * retries init_module() when finit_module() fails, running the module's init
 * twice, which would double every refusal message the tests count.
 * usage: [FW_FAIL_NTH=N] fw_insmod MODULE.ko [PARAM=VALUE]...
 * With FW_FAIL_NTH, the Nth fault injection point the load meets fails
 * (/proc/thread-self/fail-nth, set just before the call so that nothing else
 * counts), and "injected" or "not reached" is the last line printed.
 */
#include <errno.h>
#include <stdlib.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define FAIL_NTH "/proc/thread-self/fail-nth"

/* Arm the task's fault injection: the Nth injection point it meets fails. */
static int fail_nth_set(const char *n)
{
	int fd = open(FAIL_NTH, O_WRONLY | O_CLOEXEC);
	ssize_t len = (ssize_t)strlen(n);

	if (fd < 0 || write(fd, n, len) != len) {
		fprintf(stderr, "fw_insmod: FW_FAIL_NTH=%s: %s: %s\n", n, FAIL_NTH,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/* 0 in fail-nth: the failure was injected; the count left: the call met fewer points. */
static int fail_nth_report(void)
{
	char left[32] = "";
	int fd = open(FAIL_NTH, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, left, sizeof(left) - 1);

	if (n <= 0) {
		fprintf(stderr, "fw_insmod: %s: %s\n", FAIL_NTH, n ? strerror(errno) : "empty");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	/* Disarm it for whatever this task does next. */
	fail_nth_set("0");
	printf("%s\n", atoi(left) ? "not reached" : "injected");
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	char params[4096] = "";
	const char *nth;
	size_t used = 0;
	int fd, i, rc;

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
	nth = getenv("FW_FAIL_NTH");
	if (nth && fail_nth_set(nth))
		return 2;
	rc = syscall(SYS_finit_module, fd, params, 0) ? errno : 0;
	if (rc)
		fprintf(stderr, "fw_insmod: %s: %s\n", argv[1], strerror(rc));
	/* Last, after the error: the caller reads the last line. */
	if (nth && fail_nth_report())
		return 2;
	return rc ? 1 : 0;
}
