/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktap.h - minimal KTAP producer for the host unit tests, so host and guest
 * results are read by the same parser in scripts/ktap-results.awk.
 */
#ifndef FW_TESTS_KTAP_H
#define FW_TESTS_KTAP_H

#include <stdarg.h>
#include <stdio.h>

static int ktap_n, ktap_failed;
static int ktap_case_failed;

static inline void ktap_header(const char *suite)
{
	printf("KTAP version 1\n# suite: %s\n", suite);
}

/* Record a failed expectation inside the current case, with where it failed. */
#define KTAP_EXPECT(cond, ...)							\
	do {									\
		if (!(cond)) {							\
			printf("# %s:%d: expected %s: ", __FILE__, __LINE__, #cond); \
			printf(__VA_ARGS__);					\
			printf("\n");						\
			ktap_case_failed = 1;					\
		}								\
	} while (0)

static inline void ktap_case_begin(void)
{
	ktap_case_failed = 0;
}

static inline void ktap_case_end(const char *name)
{
	ktap_n++;
	if (ktap_case_failed)
		ktap_failed++;
	printf("%sok %d %s\n", ktap_case_failed ? "not " : "", ktap_n, name);
	fflush(stdout);
}

#define KTAP_RUN(fn)				\
	do {					\
		ktap_case_begin();		\
		fn();				\
		ktap_case_end(#fn);		\
	} while (0)

static inline int ktap_finish(void)
{
	printf("1..%d\n# %d passed, %d failed\n", ktap_n, ktap_n - ktap_failed, ktap_failed);
	return ktap_failed ? 1 : 0;
}

#endif /* FW_TESTS_KTAP_H */
