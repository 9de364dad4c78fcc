// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_follow.c - libFuzzer harness: crashwalk --follow's stream reader
 * (fleet/cw_follow.c) on arbitrary serial logs, each dump it picks out, whole or
 * cut, through the dump readers as main.c hands them on.
 */
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "dump/cw_dump.h"

static int take(void *ctx, struct cw_stream_dump *sd)
{
	struct cw_error err = { { 0 } };
	struct cw_dump d;

	(void)ctx;
	if (!sd->text)
		return 0;
	cw_dump_parse(&d, sd->name, sd->text, sd->len, &err);
	cw_dump_free(&d);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cw_error err = { { 0 } };
	char path[64];
	int fd = memfd_create("fuzz-follow", 0);

	if (fd < 0)
		return 0;
	/* The follower reads a path, as it reads a tty: the input as a file. */
	if (write(fd, data, size) == (ssize_t)size && lseek(fd, 0, SEEK_SET) == 0) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		cw_follow(path, NULL, take, NULL, &err);
	}
	close(fd);
	return 0;
}
