/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fw_grow.h - room for one more element in an array that doubles, for both userspace tools.
 */
#ifndef FW_GROW_H
#define FW_GROW_H

#include <stddef.h>

/*
 * v (holding n of *cap elements of elem bytes) with room for element n:
 * v itself while n < *cap, else reallocated to twice *cap (first when
 * *cap is 0) and *cap updated. NULL when out of memory, v then still
 * valid and *cap unchanged, so the caller frees it as before.
 */
void *fw_grow(void *v, size_t *cap, size_t n, size_t elem, size_t first);

#endif /* FW_GROW_H */
