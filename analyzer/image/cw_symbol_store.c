// SPDX-License-Identifier: GPL-2.0
/*
 * cw_symbol_store.c - the firmware found by a dump's GNU build-id: symbol
 * directories (a .build-id tree as /usr/lib/debug has, or a flat directory
 * of ELFs indexed on first use), then debuginfod through libdebuginfod; the
 * images opened are kept in a bounded least-recently-used cache.
 *
 * Every file found is opened and its own build-id compared with the one
 * asked for: a symbol store or a server that hands back another file is
 * refused, never used to explain a dump it did not build.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <libelf.h>
#include <elfutils/libdwelf.h>
#include <elfutils/debuginfod.h>

#include "../../lib/user/fw_grow.h"
#include "base/cw_base.h"
#include "dump/cw_dump.h"
#include "image/cw_image.h"

#define HEX_MAX		(2 * CW_MAX_BUILD_ID + 1)
#define PATH_LEN	4096
#define MISSES_MAX	1024	/* build-ids remembered as not found, oldest forgotten first */

/* An ELF of a flat symbol directory, by its build-id. */
struct indexed_file {
	uint8_t id[CW_MAX_BUILD_ID];
	uint32_t len;
	char *path;
};

struct symbol_dir {
	const char *dir;
	int indexed;			/* the flat index is built on the first lookup it serves */
	struct indexed_file *files;
	size_t nr;
};

/* An opened image, or a slot not used yet (img NULL). */
struct cached_image {
	uint8_t id[CW_MAX_BUILD_ID];
	uint32_t len;
	struct cw_image *img;
	char *path;			/* the image names itself by this string: owned here */
	char where[PATH_LEN + 64];
	unsigned long last_use;
};

/* A build-id no source had: a batch of its dumps asks the servers once. */
struct miss {
	uint8_t id[CW_MAX_BUILD_ID];
	uint32_t len;
	char msg[sizeof(((struct cw_error *)0)->msg)];
};

/*
 * libdebuginfod, loaded when a dump first needs a server (as libdwfl loads
 * it): linked in, its libcurl and TLS libraries made every start of
 * crashwalk ten times dearer, for runs that never download anything.
 */
struct debuginfod_lib {
	void *handle;
	debuginfod_client *(*begin)(void);
	void (*end)(debuginfod_client *c);
	int (*find_debuginfo)(debuginfod_client *c, const unsigned char *id, int len, char **path);
	int (*find_executable)(debuginfod_client *c, const unsigned char *id, int len, char **path);
	void (*set_progressfn)(debuginfod_client *c, debuginfod_progressfn_t fn);
};

struct cw_symbols {
	struct debuginfod_lib lib;
	struct symbol_dir *dirs;
	unsigned int nr_dirs;
	int use_debuginfod, progress;
	debuginfod_client *client;
	struct cached_image *cache;
	unsigned int cache_size;
	unsigned long clock;
	unsigned int opened;
	struct miss *misses;
	unsigned int nr_misses, next_miss;
};

struct cw_symbols *cw_symbols_new(const struct cw_symbols_opts *o)
{
	struct cw_symbols *s = calloc(1, sizeof(*s));
	unsigned int i;

	if (!s)
		return NULL;
	s->cache_size = o->cache_images ? o->cache_images : 1;
	s->cache = calloc(s->cache_size, sizeof(*s->cache));
	s->dirs = calloc(o->nr_dirs + 1, sizeof(*s->dirs));
	s->misses = calloc(MISSES_MAX, sizeof(*s->misses));
	if (!s->cache || !s->dirs || !s->misses) {
		cw_symbols_free(s);
		return NULL;
	}
	for (i = 0; i < o->nr_dirs; i++)
		s->dirs[i].dir = o->dirs[i];
	s->nr_dirs = o->nr_dirs;
	s->use_debuginfod = o->debuginfod;
	s->progress = o->progress;
	elf_version(EV_CURRENT);
	return s;
}

void cw_symbols_free(struct cw_symbols *s)
{
	unsigned int i;
	size_t k;

	if (!s)
		return;
	for (i = 0; s->cache && i < s->cache_size; i++) {
		cw_image_close(s->cache[i].img);
		free(s->cache[i].path);
	}
	for (i = 0; s->dirs && i < s->nr_dirs; i++) {
		for (k = 0; k < s->dirs[i].nr; k++)
			free(s->dirs[i].files[k].path);
		free(s->dirs[i].files);
	}
	/*
	 * The library stays loaded, as libdwfl leaves it: libcurl's global
	 * state, set up when it loaded, is freed at exit, not by dlclose().
	 */
	if (s->client)
		s->lib.end(s->client);
	free(s->cache);
	free(s->dirs);
	free(s->misses);
	free(s);
}

unsigned int cw_symbols_opened(const struct cw_symbols *s)
{
	return s->opened;
}

/* The GNU build-id of the ELF at path, as ld wrote it; 0 bytes for none or no ELF. */
static uint32_t file_build_id(const char *path, uint8_t *id)
{
	const void *p;
	ssize_t n = 0;
	Elf *elf;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF)
		n = dwelf_elf_gnu_build_id(elf, &p);
	if (n > 0 && n <= CW_MAX_BUILD_ID)
		memcpy(id, p, (size_t)n);
	else
		n = 0;
	elf_end(elf);
	close(fd);
	return (uint32_t)n;
}

/* The flat index of dir: every regular file (or link to one) that is an ELF with a build-id. */
static void index_dir(struct symbol_dir *d)
{
	struct indexed_file *f;
	struct dirent *e;
	struct stat st;
	size_t cap = 0;
	DIR *dh;

	d->indexed = 1;
	dh = opendir(d->dir);
	if (!dh)
		return;
	while ((e = readdir(dh))) {
		char path[PATH_LEN];
		uint8_t id[CW_MAX_BUILD_ID];
		uint32_t len;

		if (e->d_name[0] == '.' ||
		    snprintf(path, sizeof(path), "%s/%s", d->dir, e->d_name) >= (int)sizeof(path) ||
		    stat(path, &st) || !S_ISREG(st.st_mode))
			continue;
		len = file_build_id(path, id);
		if (!len)
			continue;
		f = fw_grow(d->files, &cap, d->nr, sizeof(*f), 64);
		if (!f)
			break;
		d->files = f;
		f = &d->files[d->nr];
		f->path = strdup(path);
		if (!f->path)
			break;
		memcpy(f->id, id, len);
		f->len = len;
		d->nr++;
	}
	closedir(dh);
}

/* A file of d for the build-id: its .build-id tree first (.debug, then the file itself). */
static int find_in_dir(struct symbol_dir *d, const uint8_t *id, uint32_t len, const char *hex,
		       char *path, size_t size)
{
	static const char *const suffix[] = { ".debug", "" };
	unsigned int k;
	size_t i;

	for (k = 0; k < ARRAY_SIZE(suffix); k++)
		if (snprintf(path, size, "%s/.build-id/%.2s/%s%s", d->dir, hex, hex + 2,
			     suffix[k]) < (int)size && !access(path, R_OK))
			return 0;
	if (!d->indexed)
		index_dir(d);
	for (i = 0; i < d->nr; i++)
		if (d->files[i].len == len && !memcmp(d->files[i].id, id, len)) {
			snprintf(path, size, "%s", d->files[i].path);
			return 0;
		}
	return -1;
}

/* "downloading" on stderr while libdebuginfod fetches, when stderr is a terminal. */
static int show_progress(debuginfod_client *c, long done, long total)
{
	(void)c;
	if (total > 0)
		fprintf(stderr, "\rcrashwalk: debuginfod: downloading %ld of %ld KiB ", done >> 10,
			total >> 10);
	else
		fprintf(stderr, "\rcrashwalk: debuginfod: downloading %ld KiB ", done >> 10);
	return 0;	/* go on */
}

static int load_debuginfod(struct debuginfod_lib *l)
{
	if (l->handle)
		return 0;
	l->handle = dlopen("libdebuginfod.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!l->handle)
		return -1;
	*(void **)&l->begin = dlsym(l->handle, "debuginfod_begin");
	*(void **)&l->end = dlsym(l->handle, "debuginfod_end");
	*(void **)&l->find_debuginfo = dlsym(l->handle, "debuginfod_find_debuginfo");
	*(void **)&l->find_executable = dlsym(l->handle, "debuginfod_find_executable");
	*(void **)&l->set_progressfn = dlsym(l->handle, "debuginfod_set_progressfn");
	if (l->begin && l->end && l->find_debuginfo && l->find_executable && l->set_progressfn)
		return 0;
	dlclose(l->handle);
	l->handle = NULL;
	return -1;
}

/*
 * The file the servers in DEBUGINFOD_URLS have for the build-id, in
 * libdebuginfod's cache (DEBUGINFOD_CACHE_PATH); its timeouts are
 * DEBUGINFOD_TIMEOUT's. A firmware ELF with DWARF is debuginfo; one
 * without is only an executable. Returns the path (malloc'ed) or NULL with
 * *rc the negative errno libdebuginfod gave.
 */
static char *ask_debuginfod(struct cw_symbols *s, const uint8_t *id, uint32_t len, int *rc)
{
	char *path = NULL;
	int fd;

	if (!s->client) {
		if (load_debuginfod(&s->lib)) {
			*rc = -ELIBACC;
			return NULL;
		}
		s->client = s->lib.begin();
		if (!s->client) {
			*rc = -ENOMEM;
			return NULL;
		}
		if (s->progress)
			s->lib.set_progressfn(s->client, show_progress);
	}
	fd = s->lib.find_debuginfo(s->client, id, (int)len, &path);
	if (fd == -ENOENT)
		fd = s->lib.find_executable(s->client, id, (int)len, &path);
	if (s->progress)
		fputs("\r\033[K", stderr);
	if (fd < 0) {
		*rc = fd;
		return NULL;
	}
	close(fd);
	return path;
}

/* Append to the list of places searched, as the error names them. */
static void searched(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void searched(char *buf, size_t size, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;

	if (n + 2 >= size)
		return;
	if (n)
		n += (size_t)snprintf(buf + n, size - n, "; ");
	va_start(ap, fmt);
	vsnprintf(buf + n, size - n, fmt, ap);
	va_end(ap);
}

/* The slot to open a new image in: a free one, else the least recently used, closed. */
static struct cached_image *free_slot(struct cw_symbols *s)
{
	struct cached_image *c = &s->cache[0];
	unsigned int i;

	for (i = 0; i < s->cache_size; i++) {
		if (!s->cache[i].img)
			return &s->cache[i];
		if (s->cache[i].last_use < c->last_use)
			c = &s->cache[i];
	}
	cw_image_close(c->img);
	free(c->path);
	memset(c, 0, sizeof(*c));
	return c;
}

/*
 * Open path as the firmware for the build-id into a cache slot, refusing a
 * file whose own build-id is another: a store or a server can be wrong.
 */
static struct cw_image *open_checked(struct cw_symbols *s, const uint8_t *id, uint32_t len,
				     const char *hex, const char *path, const char *from,
				     struct cw_error *err)
{
	struct cached_image *c = free_slot(s);
	char got[HEX_MAX];
	const uint8_t *fid;
	uint32_t flen;

	c->path = strdup(path);
	if (!c->path) {
		cw_fail(err, path, -1, "out of memory");
		return NULL;
	}
	c->img = cw_image_open(c->path, err);
	if (!c->img)
		goto fail;
	flen = cw_image_build_id(c->img, &fid);
	if (flen != len || memcmp(fid, id, len)) {
		cw_build_id_hex(fid, flen, got, sizeof(got));
		cw_fail(err, path, -1, "the firmware %s gave for build-id %s has build-id %s: "
			"refused", from, hex, flen ? got : "(none)");
		cw_image_close(c->img);
		c->img = NULL;
		goto fail;
	}
	memcpy(c->id, id, len);
	c->len = len;
	snprintf(c->where, sizeof(c->where), "%s (%s)", path, from);
	c->last_use = ++s->clock;
	s->opened++;
	return c->img;
fail:
	free(c->path);
	c->path = NULL;
	return NULL;
}

static void remember_miss(struct cw_symbols *s, const uint8_t *id, uint32_t len,
			  const struct cw_error *err)
{
	struct miss *m = &s->misses[s->next_miss];

	memcpy(m->id, id, len);
	m->len = len;
	snprintf(m->msg, sizeof(m->msg), "%s", err->msg);
	s->next_miss = (s->next_miss + 1) % MISSES_MAX;
	if (s->nr_misses < MISSES_MAX)
		s->nr_misses++;
}

/* Look in every place in order; the first file found decides (a wrong one is refused). */
static struct cw_image *find_image(struct cw_symbols *s, const uint8_t *id, uint32_t len,
				   const char *hex, struct cw_error *err)
{
	char path[PATH_LEN], where[512] = "", from[PATH_LEN + 32];
	const char *urls = getenv("DEBUGINFOD_URLS");
	struct cw_image *img;
	unsigned int i;
	char *got;
	int rc = 0;

	for (i = 0; i < s->nr_dirs; i++) {
		if (find_in_dir(&s->dirs[i], id, len, hex, path, sizeof(path))) {
			searched(where, sizeof(where),
				 "%s (.build-id, %zu ELF%s with a build-id): not there",
				 s->dirs[i].dir, s->dirs[i].nr, cw_plural(s->dirs[i].nr));
			continue;
		}
		snprintf(from, sizeof(from), "--symbols %s", s->dirs[i].dir);
		return open_checked(s, id, len, hex, path, from, err);
	}
	if (!s->use_debuginfod)
		searched(where, sizeof(where), "debuginfod: not asked (--no-debuginfod)");
	else if (!urls || !*urls)
		searched(where, sizeof(where), "debuginfod: not asked (DEBUGINFOD_URLS is not set)");
	else if (!(got = ask_debuginfod(s, id, len, &rc)))
		searched(where, sizeof(where), "debuginfod %s: %s", urls,
			 rc == -ENOENT ? "not there" : rc == -ELIBACC ?
			 "libdebuginfod.so.1 cannot be loaded (Debian: libdebuginfod1)" :
			 strerror(-rc));
	else {
		snprintf(from, sizeof(from), "debuginfod %s", urls);
		img = open_checked(s, id, len, hex, got, from, err);
		free(got);
		return img;
	}
	snprintf(path, sizeof(path), "build-id %s", hex);
	cw_fail(err, path, -1, "no firmware found: %s; give the firmware with --symbols DIR, "
		"DEBUGINFOD_URLS or as the first argument", where);
	return NULL;
}

struct cw_image *cw_symbols_image(struct cw_symbols *s, const uint8_t *id, uint32_t len,
				  const char **where, struct cw_error *err)
{
	char hex[HEX_MAX];
	struct cw_image *img;
	unsigned int i;

	for (i = 0; i < s->cache_size; i++) {
		struct cached_image *c = &s->cache[i];

		if (c->img && c->len == len && !memcmp(c->id, id, len)) {
			c->last_use = ++s->clock;
			*where = c->where;
			return c->img;
		}
	}
	for (i = 0; i < s->nr_misses; i++)
		if (s->misses[i].len == len && !memcmp(s->misses[i].id, id, len)) {
			snprintf(err->msg, sizeof(err->msg), "%s", s->misses[i].msg);
			return NULL;
		}
	cw_build_id_hex(id, len, hex, sizeof(hex));
	img = find_image(s, id, len, hex, err);
	if (!img) {
		remember_miss(s, id, len, err);
		return NULL;
	}
	for (i = 0; i < s->cache_size; i++)
		if (s->cache[i].img == img)
			*where = s->cache[i].where;
	return img;
}
