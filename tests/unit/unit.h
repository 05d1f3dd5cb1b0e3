/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A tiny unit-test harness. A test file defines tests with UT_TEST(name) and
 * a main() that calls ut_run("name", name) for each, then returns
 * ut_finish(). After each test exactly one line goes to stdout, which
 * tests/run.sh counts:
 *
 *	PASS <file-stem>.<name>
 *	FAIL <file-stem>.<name>: <file>:<line>: <message>
 *
 * A failed UT_ASSERT* records the first failure and returns from the calling
 * function, so use them only in functions returning void.
 */
#ifndef UT_UNIT_H
#define UT_UNIT_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define UT_TEST(name)	static void name(void)

/* first failure of the running test, "" while it passes */
static char ut_msg[1024] __attribute__((unused));
static int ut_nr_failed __attribute__((unused));

__attribute__((format(printf, 3, 4)))
static inline void ut_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (ut_msg[0])
		return;
	n = snprintf(ut_msg, sizeof(ut_msg), "%s:%d: ", file, line);
	if (n < 0 || (size_t)n >= sizeof(ut_msg))
		return;
	va_start(ap, fmt);
	vsnprintf(ut_msg + n, sizeof(ut_msg) - n, fmt, ap);
	va_end(ap);
}

#define UT_ASSERT(cond) do {						\
	if (!(cond)) {							\
		ut_fail(__FILE__, __LINE__, "assertion failed: %s", #cond); \
		return;							\
	}								\
} while (0)

#define UT_ASSERT_EQ_INT(a, b) do {					\
	long long ut_a = (a), ut_b = (b);				\
	if (ut_a != ut_b) {						\
		ut_fail(__FILE__, __LINE__, "%s == %s: %lld != %lld",	\
			#a, #b, ut_a, ut_b);				\
		return;							\
	}								\
} while (0)

#define UT_ASSERT_STR_EQ(a, b) do {					\
	const char *ut_a = (a), *ut_b = (b);				\
	if (!ut_a || !ut_b || strcmp(ut_a, ut_b)) {			\
		ut_fail(__FILE__, __LINE__, "%s == %s: \"%s\" != \"%s\"", \
			#a, #b, ut_a ? ut_a : "(null)", ut_b ? ut_b : "(null)"); \
		return;							\
	}								\
} while (0)

#define UT_ASSERT_STR_CONTAINS(hay, needle) do {			\
	const char *ut_h = (hay), *ut_n = (needle);			\
	if (!ut_h || !ut_n || !strstr(ut_h, ut_n)) {			\
		ut_fail(__FILE__, __LINE__, "%s contains %s: \"%s\" lacks \"%s\"", \
			#hay, #needle, ut_h ? ut_h : "(null)", ut_n ? ut_n : "(null)"); \
		return;							\
	}								\
} while (0)

/* @file is the test file's __FILE__: its stem names the tests */
static inline void ut_run_test(const char *file, const char *name, void (*fn)(void))
{
	const char *stem = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
	int stem_len = (int)strcspn(stem, ".");

	ut_msg[0] = '\0';
	fn();
	if (ut_msg[0]) {
		ut_nr_failed++;
		printf("FAIL %.*s.%s: %s\n", stem_len, stem, name, ut_msg);
	} else {
		printf("PASS %.*s.%s\n", stem_len, stem, name);
	}
	/* keep the lines already printed if a later test crashes */
	fflush(stdout);
}

#define ut_run(name, fn)	ut_run_test(__FILE__, name, fn)

static inline int ut_finish(void)
{
	return ut_nr_failed ? 1 : 0;
}

#endif /* UT_UNIT_H */
