/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cw_sort.h - the one sort for the image's arrays that mostly arrive in
 * order (symbols, mapping symbols, line sequences, a unit's functions), and
 * the one search in them: stable, by a 32-bit key, inlined so that each
 * caller's is specialised.
 */
#ifndef CW_SORT_H
#define CW_SORT_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CW_SORT_RADIX_BITS	11
#define CW_SORT_RADIX_DIGITS	((32 + CW_SORT_RADIX_BITS - 1) / CW_SORT_RADIX_BITS)
#define CW_SORT_RADIX_MASK	((1u << CW_SORT_RADIX_BITS) - 1)
#define CW_SORT_MERGE_RUNS	64	/* more runs in order than this: radix sort instead */

/*
 * The first index in [lo, hi) whose key is at least v (above v when past is
 * set), by halving: with past set, one past the last element at or below v,
 * which is how the image's lookups find the symbol, sequence or function
 * that holds an address.
 */
static inline __attribute__((always_inline)) size_t
cw_sort_bound(const void *base, size_t lo, size_t hi, uint32_t v, int past, size_t size,
	      uint32_t (*key)(const void *))
{
	const uint8_t *b = base;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (past ? key(b + mid * size) <= v : key(b + mid * size) < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * cw_sort_bound() from from, a doubling step first, so that a long stretch
 * short of v costs a log, and a short one a compare or two.
 */
static inline __attribute__((always_inline)) size_t
cw_sort_gallop(const uint8_t *base, size_t from, size_t to, uint32_t v, int past, size_t size,
	       uint32_t (*key)(const void *))
{
	size_t lo = from, step = 1, hi;

	while (lo + step < to && (past ? key(base + (lo + step) * size) <= v :
					 key(base + (lo + step) * size) < v))
		step *= 2;
	hi = lo + step < to ? lo + step : to;
	/* Every index below lo + step / 2 (below lo, at the first step) is known short of v. */
	return cw_sort_bound(base, step > 1 ? lo + step / 2 : lo, hi, v, past, size, key);
}

/*
 * Stable merge of the two runs in order [lo, mid) and [mid, hi), through tmp.
 * What already sits where it belongs stays: the left's head up to the right's
 * first key, the right's tail from the left's last. The rest moves in blocks
 * found by galloping. Runs that do not overlap (one object file's symbols
 * after another's) cost a compare.
 */
static inline __attribute__((always_inline)) void
cw_sort_merge(uint8_t *base, size_t lo, size_t mid, size_t hi, uint8_t *tmp, size_t size,
	      uint32_t (*key)(const void *))
{
	uint32_t first = key(base + mid * size), last = key(base + (mid - 1) * size);
	size_t i = 0, j = mid, k, nl, e;

	if (last <= first)
		return;
	lo = cw_sort_gallop(base, lo, mid, first, 1, size, key);
	/* From the right's end: its elements at or above last stay put. */
	while (hi > mid && key(base + (hi - 1) * size) >= last)
		hi--;
	nl = mid - lo;
	memcpy(tmp, base + lo * size, nl * size);
	for (k = lo; i < nl && j < hi;) {
		/* The right's elements below the left's next go first, as one block. */
		e = cw_sort_gallop(base, j, hi, key(tmp + i * size), 0, size, key);
		memmove(base + k * size, base + j * size, (e - j) * size);
		k += e - j;
		j = e;
		if (j == hi)
			break;
		/* Then the left's up to the right's next: equal keys keep the left first. */
		e = cw_sort_gallop(tmp, i, nl, key(base + j * size), 1, size, key);
		memcpy(base + k * size, tmp + i * size, (e - i) * size);
		k += e - i;
		i = e;
	}
	memcpy(base + k * size, tmp + i * size, (nl - i) * size);
}

/*
 * Reverse n elements in place: an input strictly descending (GCC writes a
 * unit's functions last first) is sorted so, and stays stable, no key tying.
 */
static inline __attribute__((always_inline)) void
cw_sort_reverse(uint8_t *a, size_t n, size_t size)
{
	size_t i, j, b;

	for (i = 0, j = n - 1; i < j; i++, j--)
		for (b = 0; b < size; b++) {
			uint8_t t = a[i * size + b];

			a[i * size + b] = a[j * size + b];
			a[j * size + b] = t;
		}
}

/*
 * A stable sort of n elements of size bytes by a 32-bit key, for arrays
 * that mostly arrive in order. Inlined into each caller, so size and key
 * are constants and an element moves as a word or two.
 *
 * In order already (a unit's line sequences) costs one pass; strictly
 * descending (a unit's functions as GCC writes them) one reversal. Mapping
 * symbols come in address order per object file, which the linker lays out
 * in turn: a few runs, merged. Otherwise LSD radix, 11 bits a digit, every
 * digit's histogram from one pass over the keys, the digits where every key
 * agrees (the high ones, in a small flash) skipped: global symbols come in
 * the linker's hash order. qsort() on the 50 000 symbols and their 100 000
 * mapping symbols of a large firmware was 45% of a cold run's instructions,
 * a radix sort through an index and a copy still 28%; qsort() on a unit's
 * 2 500 functions 3%. Returns -1 when out of memory, the input then left as it
 * was.
 */
static inline __attribute__((always_inline)) int
cw_sort_by_key(void *base, size_t n, size_t size, uint32_t (*key)(const void *))
{
	uint32_t (*count)[1u << CW_SORT_RADIX_BITS] = NULL;
	size_t run[CW_SORT_MERGE_RUNS + 1], nr_runs = 1, i, w;
	uint8_t *a = base, *b, *t;
	unsigned int d;

	if (n > UINT32_MAX)
		return -1;
	/* run[r] is where run r starts: at each key below the one before it. */
	run[0] = 0;
	for (i = 1; i < n; i++) {
		if (key(a + i * size) >= key(a + (i - 1) * size))
			continue;
		if (nr_runs++ < CW_SORT_MERGE_RUNS)
			run[nr_runs - 1] = i;
	}
	if (nr_runs == 1)
		return 0;
	if (nr_runs == n) {
		cw_sort_reverse(a, n, size);
		return 0;
	}
	/* Pages of tmp a merge never reaches are never touched: malloc, not calloc. */
	b = malloc(n * size);
	if (nr_runs <= CW_SORT_MERGE_RUNS && b) {
		run[nr_runs] = n;
		/* Neighbours merged pairwise; run[] keeps the bounds of what is left. */
		for (; nr_runs > 1; nr_runs = (nr_runs + 1) / 2) {
			for (i = 0, w = 0; i + 1 < nr_runs; i += 2, w++) {
				cw_sort_merge(a, run[i], run[i + 1], run[i + 2], b, size, key);
				run[w] = run[i];
			}
			if (i < nr_runs)
				run[w] = run[i];
			run[(nr_runs + 1) / 2] = n;
		}
		free(b);
		return 0;
	}
	count = calloc(CW_SORT_RADIX_DIGITS, sizeof(*count));
	if (!count || !b) {
		free(count);
		free(b);
		return -1;
	}
	for (i = 0; i < n; i++) {
		uint32_t k = key(a + i * size);

		count[0][k & CW_SORT_RADIX_MASK]++;
		count[1][(k >> CW_SORT_RADIX_BITS) & CW_SORT_RADIX_MASK]++;
		count[2][k >> (2 * CW_SORT_RADIX_BITS)]++;
	}
	for (d = 0; d < CW_SORT_RADIX_DIGITS; d++) {
		unsigned int shift = d * CW_SORT_RADIX_BITS;
		uint32_t sum = 0, *c = count[d];

		if (c[(key(a) >> shift) & CW_SORT_RADIX_MASK] == n)
			continue;
		for (i = 0; i <= CW_SORT_RADIX_MASK; i++) {
			uint32_t v = c[i];

			c[i] = sum;
			sum += v;
		}
		for (i = 0; i < n; i++) {
			uint32_t to = c[(key(a + i * size) >> shift) & CW_SORT_RADIX_MASK]++;

			memcpy(b + (size_t)to * size, a + i * size, size);
		}
		t = a;
		a = b;
		b = t;
	}
	/* An odd number of passes leaves the sorted elements in the scratch copy. */
	if (a != base)
		memcpy(base, a, n * size);
	free(count);
	free(a != base ? a : b);
	return 0;
}

#endif /* CW_SORT_H */
