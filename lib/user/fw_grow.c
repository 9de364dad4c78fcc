// SPDX-License-Identifier: GPL-2.0
/*
 * fw_grow.c - array growth by doubling, written once: each caller keeps its
 * own pointer and capacity and names its first size.
 */
#include <stdint.h>
#include <stdlib.h>

#include "fw_grow.h"

void *fw_grow(void *v, size_t *cap, size_t n, size_t elem, size_t first)
{
	size_t want = *cap ? *cap * 2 : first;
	void *p;

	if (n < *cap)
		return v;
	/* A doubled size that wraps would be a short buffer, not a large one. */
	if (!want || want > SIZE_MAX / elem)
		return NULL;
	p = realloc(v, want * elem);
	if (p)
		*cap = want;
	return p;
}
