// SPDX-License-Identifier: GPL-2.0
/*
 * libcw_watch.c - wait for dumps to appear in a directory and hand each
 * finished file to a callback, so a host reports MCU crashes unattended.
 *
 * A file counts once it is closed after writing or moved in: a dump is never
 * read while its writer is still filling it.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "crashwalk.h"

/* Room for a batch of events with the longest file names. */
#define WATCH_BUF	(16 * (sizeof(struct inotify_event) + NAME_MAX + 1))

static int watch_events(int fd, const char *dir, cw_watch_fn fn, void *ctx)
{
	char buf[WATCH_BUF] __attribute__((aligned(__alignof__(struct inotify_event))));
	char path[PATH_MAX];
	ssize_t len, off;

	len = read(fd, buf, sizeof(buf));
	if (len < 0)
		return errno == EINTR ? 0 : -1;
	for (off = 0; off < len;) {
		const struct inotify_event *ev = (const void *)(buf + off);

		off += sizeof(*ev) + ev->len;
		if (!ev->len || ev->name[0] == '.' || (ev->mask & IN_ISDIR))
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, ev->name) >= (int)sizeof(path))
			continue;
		if (fn(ctx, path))
			return 1;
	}
	return 0;
}

/*
 * Call fn for every file closed after writing in, or moved into, dir until
 * fn returns non-zero (returns 0) or watching fails (returns -1, errno set).
 * Hidden files are skipped: writers may build a dump under a dot name first.
 */
int cw_watch_dir(const char *dir, cw_watch_fn fn, void *ctx)
{
	int fd = inotify_init1(IN_CLOEXEC), rc = 0;

	if (fd < 0)
		return -1;
	if (inotify_add_watch(fd, dir, IN_CLOSE_WRITE | IN_MOVED_TO) < 0) {
		close(fd);
		return -1;
	}
	while (!rc)
		rc = watch_events(fd, dir, fn, ctx);
	close(fd);
	return rc < 0 ? -1 : 0;
}
