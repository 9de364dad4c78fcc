// SPDX-License-Identifier: GPL-2.0
/*
 * test_sort.c - the image's sort (cw_sort_by_key() in base/cw_sort.h, for
 * symbols, mapping symbols, line sequences and functions) against a
 * reference stable sort: input in a few runs in order (merged), in many
 * (radix sorted), sorted, reversed, with keys repeated or not; and its
 * search, cw_sort_bound(), against a scan.
 */
#include <stdlib.h>
#include <string.h>

/* The sort is inline: this test compiles its own instances, as its callers do. */
#include "base/cw_sort.h"
#include "image/cw_image_impl.h"
#include "ktap.h"

#define MERGE_RUNS	CW_SORT_MERGE_RUNS

static uint32_t sym_key(const void *p)
{
	return ((const struct cw_symbol *)p)->addr;
}

static uint32_t map_key(const void *p)
{
	return ((const struct cw_mapsym *)p)->addr;
}

#define MAX_N		6000
#define TRIALS		400

static struct cw_symbol syms[MAX_N], want[MAX_N];
static struct cw_mapsym maps[MAX_N], want_maps[MAX_N];

/* By address, then by size: the tests number the symbols in their size, so ties keep input order. */
static int ref_cmp(const void *a, const void *b)
{
	const struct cw_symbol *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->size < y->size ? -1 : x->size > y->size;
}

/* The input numbered in order (in the symbols' size), the mapping symbols beside it, the answer. */
static void expect_stable(size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		syms[i].size = (uint32_t)i;
		maps[i] = (struct cw_mapsym){ syms[i].addr, "tad"[i % 3] };
	}
	memcpy(want, syms, n * sizeof(*syms));
	qsort(want, n, sizeof(*want), ref_cmp);
	for (i = 0; i < n; i++)
		want_maps[i] = (struct cw_mapsym){ want[i].addr, "tad"[want[i].size % 3] };
}

/* n symbols with keys below range, sorted in runs pieces: runs in order, or fewer where pieces tie. */
static void make_input(size_t n, size_t runs, uint32_t range)
{
	size_t i;

	for (i = 0; i < n; i++)
		syms[i] = (struct cw_symbol){ "s", (uint32_t)rand() % range, 0 };
	for (i = 0; i < runs && n; i++) {
		size_t lo = n * i / runs, hi = n * (i + 1) / runs;

		qsort(syms + lo, hi - lo, sizeof(*syms), ref_cmp);
	}
	expect_stable(n);
}

/* Both instances the image uses, symbols and mapping symbols; 0 when both match the reference. */
static int sort_matches(size_t n)
{
	if (cw_sort_by_key(syms, n, sizeof(*syms), sym_key) ||
	    cw_sort_by_key(maps, n, sizeof(*maps), map_key))
		return -1;
	return memcmp(syms, want, n * sizeof(*syms)) || memcmp(maps, want_maps, n * sizeof(*maps));
}

static void trials(size_t min_runs, size_t max_runs)
{
	unsigned int t, bad = 0;

	for (t = 0; t < TRIALS; t++) {
		size_t n = (size_t)rand() % MAX_N;
		size_t runs = min_runs + (size_t)rand() % (max_runs - min_runs + 1);
		/* Half the trials with few distinct keys: long stretches of ties across runs. */
		uint32_t range = t % 2 ? 1 + (uint32_t)rand() % 40 : 1 + (uint32_t)rand() % 0x300000;

		make_input(n, runs, range);
		if (sort_matches(n)) {
			KTAP_EXPECT(0, "trial %u: n %zu, %zu runs, keys below %u differ", t, n, runs,
				    range);
			if (++bad == 3)
				return;
		}
	}
}

/* Up to MERGE_RUNS runs: merged, galloping past what stays in place. */
static void few_runs_merge_stably(void)
{
	trials(1, MERGE_RUNS);
}

/*
 * More than MERGE_RUNS pieces: the radix sort, two or three digits by the
 * range of the keys (a short input has fewer runs than pieces, and merges).
 */
static void many_runs_radix_sort_stably(void)
{
	trials(MERGE_RUNS + 1, 4 * MERGE_RUNS);
}

/* The edges of the run count, and input already sorted, reversed, empty, all one key. */
static void edge_cases_match(void)
{
	const size_t runs[] = { 1, MERGE_RUNS - 1, MERGE_RUNS, MERGE_RUNS + 1 };
	size_t i, n = MAX_N;

	for (i = 0; i < ARRAY_SIZE(runs); i++) {
		make_input(n, runs[i], 0x300000);
		KTAP_EXPECT(!sort_matches(n), "%zu runs", runs[i]);
	}
	make_input(n, 1, 7);
	for (i = 0; i < n / 2; i++) {
		struct cw_symbol s = syms[i];

		syms[i] = syms[n - 1 - i];
		syms[n - 1 - i] = s;
	}
	expect_stable(n);
	KTAP_EXPECT(!sort_matches(n), "reversed input with ties");
	/* Strictly descending (a unit's functions as GCC writes them): reversed in place. */
	for (i = 0; i < n; i++)
		syms[i] = (struct cw_symbol){ "s", (uint32_t)(3 * (n - i)), 0 };
	expect_stable(n);
	KTAP_EXPECT(!sort_matches(n), "strictly descending input");
	/* The same with one tie: runs of one and one of two, so sorted, not reversed. */
	syms[n / 2].addr = syms[n / 2 + 1].addr;
	expect_stable(n);
	KTAP_EXPECT(!sort_matches(n), "descending input with one tie");
	make_input(n, 1, 1);
	KTAP_EXPECT(!sort_matches(n), "one key");
	make_input(0, 1, 1);
	KTAP_EXPECT(!sort_matches(0), "no symbols");
	make_input(1, 1, 1);
	KTAP_EXPECT(!sort_matches(1), "one symbol");
}

/*
 * cw_sort_bound(), the lookups' search, against a scan: for every key in a
 * sorted array with ties and gaps, and below and above them all, the first
 * element at or above it, and the first above it.
 */
static void bound_matches_a_scan(void)
{
	size_t n = 300, i, scan, got, bad = 0;
	uint32_t v, bad_v = 0;
	int past, bad_past = 0;

	make_input(n, 1, 200);
	cw_sort_by_key(syms, n, sizeof(*syms), sym_key);
	for (past = 0; past < 2; past++)
		for (v = 0; v <= syms[n - 1].addr + 1; v++) {
			for (scan = 0; scan < n; scan++)
				if (past ? syms[scan].addr > v : syms[scan].addr >= v)
					break;
			got = cw_sort_bound(syms, 0, n, v, past, sizeof(*syms), sym_key);
			if (got != scan && !bad++) {
				bad_v = v;
				bad_past = past;
			}
		}
	KTAP_EXPECT(!bad, "every key's bound is the scan's: %zu differ, the first key %u, past %d",
		    bad, bad_v, bad_past);
	for (i = 0; i < 2; i++)
		KTAP_EXPECT(cw_sort_bound(syms, 0, 0, 5, (int)i, sizeof(*syms), sym_key) == 0,
			    "an empty range: 0 (past %zu)", i);
}

int main(void)
{
	srand(1);
	ktap_header("crashwalk-sort");
	KTAP_RUN(few_runs_merge_stably);
	KTAP_RUN(many_runs_radix_sort_stably);
	KTAP_RUN(edge_cases_match);
	KTAP_RUN(bound_matches_a_scan);
	return ktap_finish();
}
