// SPDX-License-Identifier: GPL-2.0
/*
 * cw_watch.c - wait for dumps to appear in a directory and hand each
 * finished file to a callback, so a host reports MCU crashes unattended.
 *
 * A file counts once it is closed after writing or moved in: a dump is never
 * read while its writer is still filling it. A devcdN entry is a Linux
 * devcoredump (/sys/class/devcoredump, where remoteproc co-processors' dumps
 * arrive): its data is copied out, then released by a write to data. sysfs
 * sends no inotify events for entries the kernel adds, so the directory is
 * also rescanned every second for those.
 */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cw_base.h"

/* Room for a batch of events with the longest file names. */
#define WATCH_BUF	(16 * (sizeof(struct inotify_event) + NAME_MAX + 1))
#define RESCAN_MS	1000
#define TAKEN_MAX	64	/* devcoredump inodes already copied, newest last */

struct watch {
	const char *dir;
	const char *keep;
	cw_watch_fn fn;
	void *ctx;
	ino_t taken[TAKEN_MAX];
	unsigned int nr_taken;
};

static int copy_fd(int in, int out)
{
	char buf[65536];
	ssize_t n;

	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			return -1;
	return n < 0 ? -1 : 0;
}

/* Copy <dir>/<name>/data to <keep>/<name>-<n>.core, release the device, return the copy. */
static int devcd_take(const char *dir, const char *name, const char *keep, char *copy,
		      size_t size)
{
	static unsigned int seq;
	char data[PATH_MAX];
	int in, out, rc;

	if (snprintf(data, sizeof(data), "%s/%s/data", dir, name) >= (int)sizeof(data))
		return -1;
	in = open(data, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -1;
	/* devcdN names are reused once released: a counter keeps copies apart. */
	do {
		if (snprintf(copy, size, "%s/%s-%u.core", keep, name, seq++) >= (int)size) {
			close(in);
			return -1;
		}
		out = open(copy, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	} while (out < 0 && errno == EEXIST);
	if (out < 0) {
		close(in);
		return -1;
	}
	rc = copy_fd(in, out);
	close(out);
	close(in);
	if (rc)
		return -1;
	/* Any write to data frees the dump in the kernel. */
	out = open(data, O_WRONLY | O_CLOEXEC);
	if (out >= 0) {
		rc = write(out, "1", 1) == 1 ? 0 : -1;
		close(out);
	}
	return out < 0 ? -1 : rc;
}

static int was_taken(struct watch *w, ino_t ino)
{
	unsigned int i;

	for (i = 0; i < w->nr_taken; i++)
		if (w->taken[i] == ino)
			return 1;
	if (w->nr_taken == TAKEN_MAX) {
		memmove(w->taken, w->taken + 1, sizeof(w->taken) - sizeof(w->taken[0]));
		w->nr_taken--;
	}
	w->taken[w->nr_taken++] = ino;
	return 0;
}

/* Take every devcdN entry not taken before (they are symlinks to directories in sysfs). */
static int scan_devcd(struct watch *w)
{
	char path[PATH_MAX], copy[PATH_MAX];
	struct dirent *de;
	struct stat st;
	DIR *d = opendir(w->dir);
	int rc = 0;

	if (!d)
		return -1;
	while (!rc && (de = readdir(d))) {
		if (strncmp(de->d_name, "devcd", 5) ||
		    snprintf(path, sizeof(path), "%s/%s", w->dir, de->d_name) >= (int)sizeof(path) ||
		    stat(path, &st) || !S_ISDIR(st.st_mode) || was_taken(w, st.st_ino))
			continue;
		if (!devcd_take(w->dir, de->d_name, w->keep, copy, sizeof(copy)))
			rc = w->fn(w->ctx, copy);
	}
	closedir(d);
	return rc;
}

static int watch_events(int fd, struct watch *w)
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
		if (!ev->len || ev->name[0] == '.')
			continue;
		if (!strncmp(ev->name, "devcd", 5)) {
			if (scan_devcd(w))
				return 1;
			continue;
		}
		if ((ev->mask & IN_ISDIR) || !(ev->mask & (IN_CLOSE_WRITE | IN_MOVED_TO)) ||
		    snprintf(path, sizeof(path), "%s/%s", w->dir, ev->name) >= (int)sizeof(path))
			continue;
		if (w->fn(w->ctx, path))
			return 1;
	}
	return 0;
}

/*
 * Call fn for every file closed after writing in, or moved into, dir, and for
 * the copy in keep of every devcdN directory that appears, until fn returns
 * non-zero (returns 0) or watching fails (returns -1, errno set). Hidden
 * files are skipped: writers may build a dump under a dot name first.
 */
int cw_watch_dir(const char *dir, const char *keep, cw_watch_fn fn, void *ctx)
{
	struct watch w = { .dir = dir, .keep = keep, .fn = fn, .ctx = ctx };
	int fd = inotify_init1(IN_CLOEXEC), rc;

	if (fd < 0)
		return -1;
	if (inotify_add_watch(fd, dir, IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE) < 0) {
		close(fd);
		return -1;
	}
	rc = scan_devcd(&w);
	while (!rc) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		int n = poll(&pfd, 1, RESCAN_MS);

		if (n < 0 && errno != EINTR)
			rc = -1;
		else if (n > 0)
			rc = watch_events(fd, &w);
		else
			rc = scan_devcd(&w);
	}
	close(fd);
	return rc < 0 ? -1 : 0;
}
