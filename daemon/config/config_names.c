// SPDX-License-Identifier: GPL-2.0-only
/*
 * The names of the configuration's enum values, one table each: what
 * uringtune.ini takes, and what status, metrics and logs print.
 */
#include "config.h"

const char *const config_mode_names[] = {
	[UT_MODE_OBSERVE]	= "observe",
	[UT_MODE_TUNE]		= "tune",
	NULL
};
UT_NAME_TABLE(config_mode, enum ut_mode, "unknown")

const char *const iopoll_stats_names[] = {
	[UT_IOPOLL_AUTO]	= "auto",
	[UT_IOPOLL_ALWAYS]	= "always",
	[UT_IOPOLL_OFF]		= "off",
	NULL
};
UT_NAME_TABLE(iopoll_stats, enum ut_iopoll_stats_mode, "unknown")

const char *const tuner_tracking_names[] = {
	[TUNER_TRACK_DYNAMIC]	= "dynamic",
	[TUNER_TRACK_STATIC]	= "static",
	[TUNER_TRACK_AUTO]	= "auto",
	NULL
};
UT_NAME_TABLE(tuner_tracking, enum tuner_tracking, "unknown")
