// SPDX-License-Identifier: GPL-2.0-only
/*
 * The CLI's growable string: what sb_take() hands over is always a
 * NUL-terminated string, also when nothing was added (an empty process name
 * once printed heap bytes: sb_take() allocated but wrote no terminator).
 * M_PERTURB fills fresh allocations with 0xaa, so a missing terminator is
 * seen here without ASan too. Unit tests link the daemon's objects, not the
 * CLI's, so strbuf.c is compiled in here directly.
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../cli/strbuf.c"
#include "unit.h"

/* the first byte is the terminator (read so that the compiler cannot see it unset) */
static int terminated(const char *s)
{
	return s && memchr(s, '\0', 1) != NULL;
}

UT_TEST(take_empty_is_terminated)
{
	struct strbuf sb = { 0 };
	char *s = sb_take(&sb);

	UT_ASSERT(terminated(s));
	free(s);
}

/* the path of an empty comm: cli_escape() of zero bytes */
UT_TEST(escape_empty_is_terminated)
{
	char *s = cli_escape("", 0, true);

	UT_ASSERT(terminated(s));
	free(s);
	s = cli_escape("abc", 0, false);
	UT_ASSERT(s != NULL);
	UT_ASSERT_STR_EQ(s, "");
	free(s);
}

UT_TEST(take_after_adds)
{
	struct strbuf sb = { 0 };
	char *s;

	sb_adds(&sb, "");
	sb_add(&sb, "ab", 2);
	sb_add_esc(&sb, "\n\x01\"", 3, true);
	s = sb_take(&sb);
	UT_ASSERT_STR_EQ(s, "ab\\n\\x01\\\"");
	free(s);
}

int main(void)
{
	/* fresh allocations hold 0xaa, never a lucky 0 */
	mallopt(M_PERTURB, 0x55);
	ut_run("take_empty_is_terminated", take_empty_is_terminated);
	ut_run("escape_empty_is_terminated", escape_empty_is_terminated);
	ut_run("take_after_adds", take_after_adds);
	return ut_finish();
}
