// SPDX-License-Identifier: GPL-2.0-only
/*
 * The enum name tables (name_table.h): each value's name and back from the
 * one table, the fallback for values without a name, and names that are
 * none of the values refused.
 */
#include <errno.h>
#include <stdint.h>

#include "abi_names.h"
#include "config.h"
#include "setup_flags.h"
#include "tunable.h"
#include "uringtune.h"
#include "unit.h"

UT_TEST(track_modes)
{
	uint8_t m = 7;

	UT_ASSERT_STR_EQ(track_mode_name(UT_TRACK_DYNAMIC), "dynamic");
	UT_ASSERT_STR_EQ(track_mode_name(UT_TRACK_STATIC), "static");
	UT_ASSERT_STR_EQ(track_mode_name(UT_TRACK_INACTIVE), "inactive");
	/* the kernel's values are sparse: 2..254 have no name */
	UT_ASSERT(track_mode_name(2) == NULL);
	UT_ASSERT(track_mode_name(254) == NULL);
	UT_ASSERT_EQ_INT(track_mode_from_name("inactive", &m), 0);
	UT_ASSERT_EQ_INT(m, UT_TRACK_INACTIVE);
	UT_ASSERT_EQ_INT(track_mode_from_name("static", &m), 0);
	UT_ASSERT_EQ_INT(m, UT_TRACK_STATIC);
	UT_ASSERT_EQ_INT(track_mode_from_name("auto", &m), -EINVAL);
	UT_ASSERT_EQ_INT(track_mode_from_name("", &m), -EINVAL);
	UT_ASSERT_EQ_INT(track_mode_from_name(NULL, &m), -EINVAL);
	UT_ASSERT_EQ_INT(m, UT_TRACK_STATIC);
}

UT_TEST(agent_names)
{
	enum ut_agent_want w = UT_WANT_UNSET;

	UT_ASSERT_STR_EQ(agent_want_name(UT_WANT_OFF), "off");
	UT_ASSERT_STR_EQ(agent_want_name(UT_WANT_ON), "on");
	UT_ASSERT_STR_EQ(agent_want_name(UT_WANT_AUTO), "auto");
	UT_ASSERT_STR_EQ(agent_want_name(UT_WANT_UNSET), "unset");
	UT_ASSERT_STR_EQ(agent_want_name((enum ut_agent_want)9), "unset");
	UT_ASSERT_EQ_INT(agent_want_from_name("auto", &w), 0);
	UT_ASSERT_EQ_INT(w, UT_WANT_AUTO);
	/* "unset" is what is printed for no wish, not a wish one can give */
	UT_ASSERT_EQ_INT(agent_want_from_name("unset", &w), -EINVAL);
	UT_ASSERT_EQ_INT(agent_want_from_name("ON", &w), -EINVAL);

	UT_ASSERT_STR_EQ(agent_entry_name(UT_ENTRY_SYSCALL), "syscall");
	UT_ASSERT_STR_EQ(agent_entry_name(UT_ENTRY_LIBURING), "io_uring_queue_init");
	UT_ASSERT_STR_EQ(agent_entry_name(UT_ENTRY_LIBURING_SETUP), "io_uring_setup");
	UT_ASSERT_STR_EQ(agent_entry_name((enum ut_agent_entry)0), "unknown");
	UT_ASSERT_STR_EQ(agent_entry_name((enum ut_agent_entry)200), "unknown");
}

UT_TEST(config_names)
{
	enum ut_iopoll_stats_mode io;
	enum tuner_tracking t;
	enum ut_mode m;

	UT_ASSERT_STR_EQ(config_mode_name(UT_MODE_TUNE), "tune");
	UT_ASSERT_STR_EQ(config_mode_name((enum ut_mode)5), "unknown");
	UT_ASSERT_EQ_INT(config_mode_from_name("observe", &m), 0);
	UT_ASSERT_EQ_INT(m, UT_MODE_OBSERVE);
	UT_ASSERT_EQ_INT(config_mode_from_name("Tune", &m), -EINVAL);

	UT_ASSERT_STR_EQ(iopoll_stats_name(UT_IOPOLL_AUTO), "auto");
	UT_ASSERT_STR_EQ(iopoll_stats_name(UT_IOPOLL_ALWAYS), "always");
	UT_ASSERT_STR_EQ(iopoll_stats_name(UT_IOPOLL_OFF), "off");
	UT_ASSERT_EQ_INT(iopoll_stats_from_name("off", &io), 0);
	UT_ASSERT_EQ_INT(io, UT_IOPOLL_OFF);

	UT_ASSERT_STR_EQ(tuner_tracking_name(TUNER_TRACK_AUTO), "auto");
	UT_ASSERT_EQ_INT(tuner_tracking_from_name("static", &t), 0);
	UT_ASSERT_EQ_INT(t, TUNER_TRACK_STATIC);
	UT_ASSERT_EQ_INT(tuner_tracking_from_name("inactive", &t), -EINVAL);
}

UT_TEST(managed_by_and_flags)
{
	enum ut_managed_by m;
	unsigned int bit;

	UT_ASSERT_EQ_INT(managed_by_from_name("uringtune", &m), 0);
	UT_ASSERT_EQ_INT(m, UT_MANAGED_URINGTUNE);
	UT_ASSERT_EQ_INT(managed_by_from_name("agent", &m), -EINVAL);

	UT_ASSERT_EQ_INT(setup_flag_from_name("IOPOLL", &bit), 0);
	UT_ASSERT_EQ_INT(bit, 0);
	UT_ASSERT_EQ_INT(setup_flag_from_name("HYBRID_IOPOLL", &bit), 0);
	UT_ASSERT_EQ_INT(bit, 17);
	UT_ASSERT_EQ_INT(setup_flag_from_name("iopoll", &bit), -EINVAL);
	/* every named bit goes both ways */
	for (unsigned int b = 0; b < 32; b++) {
		if (!setup_flag_name(b))
			continue;
		UT_ASSERT_EQ_INT(setup_flag_from_name(setup_flag_name(b), &bit), 0);
		UT_ASSERT_EQ_INT(bit, b);
	}
}

int main(void)
{
	ut_run("track_modes", track_modes);
	ut_run("agent_names", agent_names);
	ut_run("config_names", config_names);
	ut_run("managed_by_and_flags", managed_by_and_flags);
	return ut_finish();
}
