// SPDX-License-Identifier: GPL-2.0-only
/*
 * The record of SIGHUP's outcome (reload_state.c): what status shows as
 * daemon.reload and the metrics count. A refusal keeps its reason until a
 * reload works; the counts only grow.
 */
#include <string.h>

#include "reload_state.h"
#include "unit.h"

UT_TEST(never_then_refused_then_ok)
{
	struct reload_state r = {};

	UT_ASSERT_STR_EQ(reload_result_name(r.last), "never");
	UT_ASSERT_EQ_INT(r.time, 0);

	reload_note(&r, 100, "f.ini: [daemon] tick_ms: expected an integer from 50 to 60000, got '5'");
	UT_ASSERT_STR_EQ(reload_result_name(r.last), "refused");
	UT_ASSERT_EQ_INT(r.time, 100);
	UT_ASSERT_STR_CONTAINS(r.error, "tick_ms: expected");
	UT_ASSERT_EQ_INT(r.count_refused, 1);
	UT_ASSERT_EQ_INT(r.count_ok, 0);

	reload_note(&r, 200, "second");
	UT_ASSERT_STR_EQ(r.error, "second");
	UT_ASSERT_EQ_INT(r.count_refused, 2);

	reload_note(&r, 300, NULL);
	UT_ASSERT_STR_EQ(reload_result_name(r.last), "ok");
	UT_ASSERT_EQ_INT(r.time, 300);
	UT_ASSERT_STR_EQ(r.error, "");
	UT_ASSERT_EQ_INT(r.count_ok, 1);
	UT_ASSERT_EQ_INT(r.count_refused, 2);
}

UT_TEST(long_error_cut)
{
	struct reload_state r = {};
	char big[2048];

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	reload_note(&r, 1, big);
	UT_ASSERT_EQ_INT(strlen(r.error), sizeof(r.error) - 1);
}

int main(void)
{
	ut_run("never_then_refused_then_ok", never_then_refused_then_ok);
	ut_run("long_error_cut", long_error_cut);
	return ut_finish();
}
