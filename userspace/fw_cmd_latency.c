// SPDX-License-Identifier: GPL-2.0
/*
 * fw_cmd_latency.c - framewalk latency: have the module time each call of the
 * traced functions by calling chain (its latency mode) while a command runs
 * or for some seconds, then print the chains by total time with their
 * duration histograms, or time-folded stacks ("a;b;c <ns>") for a flame graph
 * weighted by time.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fw_cli.h"

/* The module's histogram: bucket 0 is 0 ns, b is [2^(b-1), 2^b), the last open. */
#define FW_LAT_BUCKETS	40

/* One chain of debugfs framewalk/latency, equal folded lines merged. */
struct fw_lat_chain {
	char *folded;
	unsigned long long calls, total, min, max;
	unsigned long long hist[FW_LAT_BUCKETS];
};

struct fw_lat_table {
	struct fw_lat_chain *c;
	size_t n, cap;
};

static struct fw_lat_chain *fw_lat_find(struct fw_lat_table *t, const char *folded)
{
	struct fw_lat_chain *c;
	size_t i;

	for (i = 0; i < t->n; i++)
		if (!strcmp(t->c[i].folded, folded))
			return &t->c[i];
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64;
		struct fw_lat_chain *more = realloc(t->c, cap * sizeof(*more));

		if (!more)
			return NULL;
		t->c = more;
		t->cap = cap;
	}
	c = &t->c[t->n];
	memset(c, 0, sizeof(*c));
	c->folded = strdup(folded);
	if (!c->folded)
		return NULL;
	c->min = ~0ULL;
	t->n++;
	return c;
}

/*
 * One line, "FOLDED CALLS TOTAL MIN MAX H0,H1,...", into the table. Returns
 * a message on error, NULL when fine.
 */
static const char *fw_lat_parse(char *line, struct fw_lat_table *t)
{
	unsigned long long v[4], h;
	struct fw_lat_chain *c;
	char *field[5], *end, *p;
	unsigned int i;

	line[strcspn(line, "\n")] = '\0';
	/* The five numbers are the last five fields; the chain is all before them. */
	for (i = 0; i < 5; i++) {
		p = strrchr(line, ' ');
		if (!p)
			return "fewer than five numbers after the chain";
		field[4 - i] = p + 1;
		*p = '\0';
	}
	for (i = 0; i < 4; i++) {
		errno = 0;
		v[i] = strtoull(field[i], &end, 10);
		if (errno || *end || !*field[i])
			return "calls, total, min or max is not a number";
	}
	if (!v[0] || v[2] > v[3])
		return "no calls, or min above max";
	c = fw_lat_find(t, line);
	if (!c)
		return "out of memory";
	c->calls += v[0];
	c->total += v[1];
	c->min = v[2] < c->min ? v[2] : c->min;
	c->max = v[3] > c->max ? v[3] : c->max;
	for (i = 0, p = field[4]; *p; i++) {
		if (i == FW_LAT_BUCKETS)
			return "more than 40 histogram buckets";
		errno = 0;
		h = strtoull(p, &end, 10);
		if (errno || end == p || (*end && *end != ','))
			return "histogram is not comma-separated numbers";
		c->hist[i] += h;
		p = *end ? end + 1 : end;
	}
	return NULL;
}

static int fw_lat_read(struct fw_lat_table *t)
{
	FILE *f = fopen(FW_DEBUGFS "/latency", "r");
	unsigned long lineno = 0;
	char line[(FW_MAX_ANCESTORS + FW_MAX_USER + 2) * 512 + 512];
	const char *why;

	if (!f) {
		fprintf(stderr, "framewalk: cannot read %s/latency: %s\n", FW_DEBUGFS,
			strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		why = strchr(line, '\n') ? fw_lat_parse(line, t) : "line too long";
		if (why) {
			fprintf(stderr, "framewalk: %s/latency:%lu: %s\n", FW_DEBUGFS, lineno, why);
			fclose(f);
			return -1;
		}
	}
	fclose(f);
	return 0;
}

static int fw_lat_by_total(const void *a, const void *b)
{
	const struct fw_lat_chain *x = a, *y = b;

	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return strcmp(x->folded, y->folded);
}

/* A duration in ns with the unit that keeps it short: 950 ns, 12.3 us, 1.20 s. */
static void fw_lat_time(char *buf, size_t len, unsigned long long ns)
{
	if (ns < 1000)
		snprintf(buf, len, "%llu ns", ns);
	else if (ns < 1000000)
		snprintf(buf, len, "%.1f us", ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.1f ms", ns / 1e6);
	else
		snprintf(buf, len, "%.2f s", ns / 1e9);
}

/* A bucket bound as bpftrace's hist() writes it: 512, 1K, 2M, 4G (powers of 1024). */
static void fw_lat_bound(char *buf, size_t len, unsigned long long v)
{
	static const char unit[] = " KMGTP";
	unsigned int u = 0;

	while (v >= 1024 && v % 1024 == 0 && u < 5) {
		v /= 1024;
		u++;
	}
	if (u)
		snprintf(buf, len, "%llu%c", v, unit[u]);
	else
		snprintf(buf, len, "%llu", v);
}

/* The histogram from its first used bucket to its last, as bpftrace prints hist(). */
static void fw_lat_hist(FILE *out, const struct fw_lat_chain *c)
{
	unsigned long long most = 0;
	int first = -1, last = -1, b, bar;
	char lo[24], hi[24], label[64];

	for (b = 0; b < FW_LAT_BUCKETS; b++)
		if (c->hist[b]) {
			first = first < 0 ? b : first;
			last = b;
			most = c->hist[b] > most ? c->hist[b] : most;
		}
	for (b = first; b >= 0 && b <= last; b++) {
		if (b < 2) {
			snprintf(label, sizeof(label), "[%d]", b);
		} else {
			fw_lat_bound(lo, sizeof(lo), 1ULL << (b - 1));
			fw_lat_bound(hi, sizeof(hi), 1ULL << b);
			if (b == FW_LAT_BUCKETS - 1)
				snprintf(label, sizeof(label), "[%s, ...)", lo);
			else
				snprintf(label, sizeof(label), "[%s, %s)", lo, hi);
		}
		bar = (int)(c->hist[b] * 52 / most);
		fprintf(out, "    %-18s %8llu |%.*s%*s|\n", label, c->hist[b], bar,
			"@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@", 52 - bar, "");
	}
}

static void fw_lat_print(FILE *out, const struct fw_lat_table *t, unsigned int limit)
{
	char total[32], min[32], avg[32], max[32];
	size_t i;

	for (i = 0; i < t->n && i < limit; i++) {
		const struct fw_lat_chain *c = &t->c[i];

		fw_lat_time(total, sizeof(total), c->total);
		fw_lat_time(min, sizeof(min), c->min);
		fw_lat_time(avg, sizeof(avg), c->total / c->calls);
		fw_lat_time(max, sizeof(max), c->max);
		fprintf(out, "%s%s\n    %llu calls, total %s, min %s, avg %s, max %s (ns):\n",
			i ? "\n" : "", c->folded, c->calls, total, min, avg, max);
		fw_lat_hist(out, c);
	}
}

/* fw_run_command() calls it every 100 ms: latency shows no progress line. */
static void fw_lat_tick(void *ctx, unsigned int n)
{
	(void)ctx;
	(void)n;
}

int fw_latency(const struct fw_table_opts *o)
{
	unsigned long long untimed, stale, missed;
	struct fw_module_was mod;
	struct fw_lat_table t = {};
	char was[8] = "", depth[16], filter[1024];
	int ret = 1, status, unread;
	size_t i;

	if (geteuid() != 0) {
		fprintf(stderr, "framewalk: latency needs root: it sets module parameters and "
			"reads debugfs\n");
		return 1;
	}
	fw_read_param("latency", was, sizeof(was));
	if (fw_setup_module(&o->session, &mod))
		return 1;
	/* Its durations are in the module: an rmmod during the run would take them. */
	fw_pin_module("latency");
	if (access(FW_PARAMS "/latency", F_OK)) {
		fprintf(stderr, "framewalk: the loaded framewalk module has no latency mode\n");
		goto out;
	}
	/* Timed from a clean table, so the result is this run's alone. */
	if (fw_write_param("latency", "0") || fw_clear_counts())
		goto out;
	untimed = fw_stat("latency_untimed");
	stale = fw_stat("latency_stale");
	missed = fw_stat("latency_missed");
	if (fw_write_param("latency", "1"))
		goto out;
	status = fw_run_command(&o->session, fw_lat_tick, NULL, NULL);
	/*
	 * Off before the table is read: no call is charged after it, so the
	 * run's own reads of debugfs are not in what it prints.
	 */
	fw_write_param("latency", "0");
	unread = fw_lat_read(&t);
	if (was[0] == 'Y')
		fw_write_param("latency", "1");
	if (unread)
		goto out;
	qsort(t.c, t.n, sizeof(*t.c), fw_lat_by_total);
	if (o->folded) {
		for (i = 0; i < t.n; i++)
			printf("%s %llu\n", t.c[i].folded, t.c[i].total);
	} else {
		fw_lat_print(stdout, &t, o->limit);
	}
	fw_read_param("filter", filter, sizeof(filter));
	fw_read_param("depth", depth, sizeof(depth));
	if (fw_verbosity >= 0) {
		unsigned long long calls = 0;

		for (i = 0; i < t.n; i++)
			calls += t.c[i].calls;
		fprintf(stderr, "framewalk: %llu calls timed in %zu chains of '%s' at depth %s",
			calls, t.n, filter, depth);
		untimed = fw_stat("latency_untimed") - untimed;
		stale = fw_stat("latency_stale") - stale;
		missed = fw_stat("latency_missed") - missed;
		if (untimed + stale + missed)
			fprintf(stderr, "; not timed: %llu untimed, %llu stale, %llu missed "
				"(framewalk.rst, Latency mode)", untimed, stale, missed);
		fputc('\n', stderr);
	}
	ret = 0;
	if (o->session.cmd)
		ret = status;
out:
	if (!fw_module_unloaded())
		fw_restore_module(&mod);
	fw_unpin_module();
	for (i = 0; i < t.n; i++)
		free(t.c[i].folded);
	free(t.c);
	return ret;
}
