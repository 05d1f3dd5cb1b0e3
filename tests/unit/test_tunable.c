// SPDX-License-Identifier: GPL-2.0-only
/*
 * ring_tunable(): every reason a ring cannot be tuned from outside, the key
 * word an operator looks for in each, the order in which obstacles are
 * reported, and managed_by_name().
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "tunable.h"
#include "uring_abi.h"
#include "unit.h"

/* a reason pointer the function must overwrite */
static const char stale[] = "stale";

#define ASSERT_NOT_TUNABLE(flags, supported, managed, word) do {	\
	const char *r = stale;						\
	UT_ASSERT(!ring_tunable(flags, supported, managed, &r));	\
	UT_ASSERT(r != stale);						\
	UT_ASSERT_STR_CONTAINS(r, word);				\
} while (0)

#define ASSERT_TUNABLE(flags, managed) do {				\
	const char *r = stale;						\
	UT_ASSERT(ring_tunable(flags, true, managed, &r));		\
	UT_ASSERT_STR_EQ(r, "");					\
} while (0)

UT_TEST(no_napi_kernel)
{
	ASSERT_NOT_TUNABLE(0, false, UT_MANAGED_NONE, "6.9");
	ASSERT_NOT_TUNABLE(UT_SETUP_SQPOLL, false, UT_MANAGED_NONE, "NAPI");
}

UT_TEST(iopoll)
{
	ASSERT_NOT_TUNABLE(UT_SETUP_IOPOLL, true, UT_MANAGED_NONE, "EINVAL");
	ASSERT_NOT_TUNABLE(UT_SETUP_IOPOLL, true, UT_MANAGED_NONE, "IOPOLL");
}

UT_TEST(single_issuer)
{
	const char *r = stale;

	ASSERT_NOT_TUNABLE(UT_SETUP_SINGLE_ISSUER, true, UT_MANAGED_NONE, "EEXIST");
	ASSERT_NOT_TUNABLE(UT_SETUP_SINGLE_ISSUER, true, UT_MANAGED_NONE, "SINGLE_ISSUER");
	/* ... and names the fix: the agent, asked for by exec's flag or the config */
	ASSERT_NOT_TUNABLE(UT_SETUP_SINGLE_ISSUER, true, UT_MANAGED_NONE, "uringtune exec --napi");
	ASSERT_NOT_TUNABLE(UT_SETUP_SINGLE_ISSUER, true, UT_MANAGED_NONE, "[agent] napi_comm");
	ASSERT_NOT_TUNABLE(UT_SETUP_DEFER_TASKRUN | UT_SETUP_SINGLE_ISSUER, true,
			   UT_MANAGED_NONE, "uringtune exec --napi");
	UT_ASSERT(!ring_tunable(UT_SETUP_SINGLE_ISSUER, true, UT_MANAGED_NONE, &r));
	UT_ASSERT(!strstr(r, "DEFER_TASKRUN"));
}

UT_TEST(defer_taskrun)
{
	ASSERT_NOT_TUNABLE(UT_SETUP_DEFER_TASKRUN | UT_SETUP_SINGLE_ISSUER, true,
			   UT_MANAGED_NONE, "DEFER_TASKRUN");
	ASSERT_NOT_TUNABLE(UT_SETUP_DEFER_TASKRUN | UT_SETUP_SINGLE_ISSUER, true,
			   UT_MANAGED_NONE, "EEXIST");
	/* the kernel never creates DEFER_TASKRUN alone, but it is refused too */
	ASSERT_NOT_TUNABLE(UT_SETUP_DEFER_TASKRUN, true, UT_MANAGED_NONE, "DEFER_TASKRUN");
}

UT_TEST(registered_fd_only)
{
	ASSERT_NOT_TUNABLE(UT_SETUP_REGISTERED_FD_ONLY, true, UT_MANAGED_NONE,
			   "REGISTERED_FD_ONLY");
	ASSERT_NOT_TUNABLE(UT_SETUP_REGISTERED_FD_ONLY | UT_SETUP_NO_MMAP, true,
			   UT_MANAGED_NONE, "file descriptor");
}

UT_TEST(managed_by_app)
{
	ASSERT_NOT_TUNABLE(0, true, UT_MANAGED_APP, "application");
	ASSERT_NOT_TUNABLE(UT_SETUP_SQPOLL, true, UT_MANAGED_APP, "application");
}

UT_TEST(tunable_rings)
{
	ASSERT_TUNABLE(0, UT_MANAGED_NONE);
	ASSERT_TUNABLE(UT_SETUP_SQPOLL, UT_MANAGED_NONE);
	ASSERT_TUNABLE(UT_SETUP_SQPOLL | UT_SETUP_SQ_AFF, UT_MANAGED_NONE);
	ASSERT_TUNABLE(UT_SETUP_COOP_TASKRUN | UT_SETUP_TASKRUN_FLAG |
		       UT_SETUP_CQSIZE | UT_SETUP_CLAMP | UT_SETUP_SUBMIT_ALL |
		       UT_SETUP_NO_SQARRAY, UT_MANAGED_NONE);
	/* one uringtune tuned already may be tuned again */
	ASSERT_TUNABLE(0, UT_MANAGED_URINGTUNE);
}

/* the most fundamental obstacle is the one reported */
UT_TEST(precedence)
{
	const uint32_t all = UT_SETUP_IOPOLL | UT_SETUP_SINGLE_ISSUER |
			     UT_SETUP_DEFER_TASKRUN | UT_SETUP_REGISTERED_FD_ONLY;
	const char *r = stale;

	/* no NAPI in the kernel beats everything */
	ASSERT_NOT_TUNABLE(all, false, UT_MANAGED_APP, "6.9");
	UT_ASSERT(!ring_tunable(all, false, UT_MANAGED_APP, &r));
	UT_ASSERT(!strstr(r, "IOPOLL"));

	/* IOPOLL beats the issuer checks */
	ASSERT_NOT_TUNABLE(UT_SETUP_IOPOLL | UT_SETUP_SINGLE_ISSUER, true,
			   UT_MANAGED_NONE, "IOPOLL");
	ASSERT_NOT_TUNABLE(UT_SETUP_IOPOLL | UT_SETUP_SINGLE_ISSUER, true,
			   UT_MANAGED_NONE, "EINVAL");
	ASSERT_NOT_TUNABLE(all, true, UT_MANAGED_APP, "EINVAL");

	/* DEFER_TASKRUN, then SINGLE_ISSUER, beat REGISTERED_FD_ONLY */
	ASSERT_NOT_TUNABLE(all & ~UT_SETUP_IOPOLL, true, UT_MANAGED_APP, "DEFER_TASKRUN");
	ASSERT_NOT_TUNABLE(UT_SETUP_SINGLE_ISSUER | UT_SETUP_REGISTERED_FD_ONLY, true,
			   UT_MANAGED_APP, "EEXIST");
	UT_ASSERT(!ring_tunable(UT_SETUP_SINGLE_ISSUER | UT_SETUP_REGISTERED_FD_ONLY,
				true, UT_MANAGED_APP, &r));
	UT_ASSERT(!strstr(r, "REGISTERED_FD_ONLY"));

	/* any flag obstacle beats an application managing NAPI */
	ASSERT_NOT_TUNABLE(UT_SETUP_REGISTERED_FD_ONLY, true, UT_MANAGED_APP,
			   "REGISTERED_FD_ONLY");
}

/* the reason is always set, to "" when tunable, whatever it held before */
UT_TEST(reason_always_set)
{
	const char *r = NULL;

	UT_ASSERT(ring_tunable(0, true, UT_MANAGED_NONE, &r));
	UT_ASSERT_STR_EQ(r, "");
	r = NULL;
	UT_ASSERT(!ring_tunable(UT_SETUP_IOPOLL, true, UT_MANAGED_NONE, &r));
	UT_ASSERT(r != NULL && r[0] != '\0');
}

UT_TEST(managed_by_names)
{
	UT_ASSERT_STR_EQ(managed_by_name(UT_MANAGED_NONE), "none");
	UT_ASSERT_STR_EQ(managed_by_name(UT_MANAGED_APP), "app");
	UT_ASSERT_STR_EQ(managed_by_name(UT_MANAGED_URINGTUNE), "uringtune");
	/* a value from nowhere still prints as something */
	UT_ASSERT_STR_EQ(managed_by_name((enum ut_managed_by)42), "none");
}

int main(void)
{
	ut_run("no_napi_kernel", no_napi_kernel);
	ut_run("iopoll", iopoll);
	ut_run("single_issuer", single_issuer);
	ut_run("defer_taskrun", defer_taskrun);
	ut_run("registered_fd_only", registered_fd_only);
	ut_run("managed_by_app", managed_by_app);
	ut_run("tunable_rings", tunable_rings);
	ut_run("precedence", precedence);
	ut_run("reason_always_set", reason_always_set);
	ut_run("managed_by_names", managed_by_names);
	return ut_finish();
}
