// SPDX-License-Identifier: GPL-2.0-only
/* hybrid = auto at ring setup (daemon/hybrid/hybrid_auto.c): each branch, in order. */
#include <string.h>

#include "hybrid_auto.h"
#include "unit.h"

#define T0		1800000000ULL

static const struct hv_bounds bounds = { .min_saving = 0.25, .max_loss = 0.10 };

/* a record measured at @saving and @change on 4 hybrid windows, judged by the bounds */
static struct hv_record measured(double saving, double change)
{
	struct hv_record r = { .comm = "fio", .exe = "/usr/bin/fio", .measured = true,
			       .meas_saving = saving, .meas_iops_change = change };

	r.side[HV_HYBRID].windows = 4;
	r.verdict = saving >= 0.25 && -change <= 0.10 ? HV_VERDICT_HYBRID : HV_VERDICT_CLASSIC;
	return r;
}

UT_TEST(nothing_known)
{
	struct hybrid_auto_answer a;
	struct hybrid_pred invalid = { .valid = false, .cpu_per_read_saving = 0.9 };
	struct hv_record empty = { .comm = "fio" };

	hybrid_auto_decide(NULL, NULL, &bounds, T0, &a);
	UT_ASSERT(!a.hybrid);
	UT_ASSERT_EQ_INT(a.source, HYBRID_AUTO_NOTHING);
	UT_ASSERT_STR_EQ(a.why, "hybrid: classic, no IOPOLL history of this program yet (auto)");
	/* an invalid prediction and an unjudged record without one say nothing either */
	hybrid_auto_decide(&empty, &invalid, &bounds, T0, &a);
	UT_ASSERT(!a.hybrid);
	UT_ASSERT_EQ_INT(a.source, HYBRID_AUTO_NOTHING);
}

UT_TEST(measured_classic_wins)
{
	struct hv_record r = measured(0.19, -0.31);
	struct hybrid_pred good = { .valid = true, .cpu_per_read_saving = 0.5,
				    .iops_change = 0 };
	struct hybrid_auto_answer a;

	/* a prediction however good does not overrule what was measured */
	hybrid_auto_decide(&r, &good, &bounds, T0, &a);
	UT_ASSERT(!a.hybrid);
	UT_ASSERT_EQ_INT(a.source, HYBRID_AUTO_MEASURED);
	UT_ASSERT_STR_EQ(a.why, "hybrid: classic, measured on 4 hybrid windows: -31% IOPS "
			 "(bound 10%)");
	r = measured(0.19, -0.02);
	hybrid_auto_decide(&r, NULL, &bounds, T0, &a);
	UT_ASSERT(!a.hybrid);
	UT_ASSERT_STR_EQ(a.why, "hybrid: classic, measured on 4 hybrid windows: 19% less CPU "
			 "per read (needs 25%)");
}

UT_TEST(measured_hybrid_wins)
{
	struct hv_record r = measured(0.36, -0.05);
	struct hybrid_pred bad = { .valid = true, .cpu_per_read_saving = 0.1,
				   .iops_change = -0.5 };
	struct hybrid_auto_answer a;

	hybrid_auto_decide(&r, &bad, &bounds, T0, &a);
	UT_ASSERT(a.hybrid);
	UT_ASSERT_EQ_INT(a.source, HYBRID_AUTO_MEASURED);
	UT_ASSERT_STR_EQ(a.why, "hybrid: added, measured on 4 hybrid windows: 36% less CPU per "
			 "read, -5% IOPS");
}

/* the bounds in force decide, whatever the record was judged by */
UT_TEST(measured_by_the_bounds_in_force)
{
	struct hv_record r = measured(0.36, -0.05);
	struct hv_bounds strict = { .min_saving = 0.4, .max_loss = 0.10 };
	struct hybrid_auto_answer a;

	hybrid_auto_decide(&r, NULL, &strict, T0, &a);
	UT_ASSERT(!a.hybrid);
	UT_ASSERT_STR_CONTAINS(a.why, "(needs 40%)");
}

UT_TEST(live_prediction_decides)
{
	struct hybrid_pred p = { .valid = true, .cpu_per_read_saving = 0.25, .iops_change = -0.1 };
	struct hv_record unjudged = { .comm = "fio", .have_pred = true, .pred_saving = 0,
				      .pred_iops_change = -0.9, .pred_unix_s = T0 - 60 };
	struct hybrid_auto_answer a;

	/* exactly on both bounds: within */
	hybrid_auto_decide(NULL, &p, &bounds, T0, &a);
	UT_ASSERT(a.hybrid);
	UT_ASSERT_EQ_INT(a.source, HYBRID_AUTO_PREDICTED);
	UT_ASSERT_STR_EQ(a.why, "hybrid: added, predicted 25% less CPU per read, -10% IOPS");
	/* the live one is newer than the record's */
	hybrid_auto_decide(&unjudged, &p, &bounds, T0, &a);
	UT_ASSERT(a.hybrid);
	p.iops_change = -0.1001;
	hybrid_auto_decide(NULL, &p, &bounds, T0, &a);
	UT_ASSERT(!a.hybrid);
	UT_ASSERT_STR_EQ(a.why, "hybrid: classic, predicted -10% IOPS (bound 10%)");
	p.iops_change = 0.02;
	p.cpu_per_read_saving = 0.2499;
	hybrid_auto_decide(NULL, &p, &bounds, T0, &a);
	UT_ASSERT(!a.hybrid);
	UT_ASSERT_STR_EQ(a.why, "hybrid: classic, predicted 25% less CPU per read (needs 25%)");
}

UT_TEST(record_prediction_when_no_live_one)
{
	struct hv_record r = { .comm = "fio", .have_pred = true, .pred_saving = 0.4,
			       .pred_iops_change = -0.03, .pred_unix_s = T0 - 90 };
	struct hybrid_auto_answer a;

	hybrid_auto_decide(&r, NULL, &bounds, T0, &a);
	UT_ASSERT(a.hybrid);
	UT_ASSERT_EQ_INT(a.source, HYBRID_AUTO_PREDICTED);
	UT_ASSERT_STR_EQ(a.why, "hybrid: added, predicted 40% less CPU per read, -3% IOPS, "
			 "90 s ago");
	r.pred_iops_change = -0.4;
	hybrid_auto_decide(&r, NULL, &bounds, T0, &a);
	UT_ASSERT(!a.hybrid);
	UT_ASSERT_STR_CONTAINS(a.why, "-40% IOPS (bound 10%), 90 s ago");
}

int main(void)
{
	ut_run("nothing_known", nothing_known);
	ut_run("measured_classic_wins", measured_classic_wins);
	ut_run("measured_hybrid_wins", measured_hybrid_wins);
	ut_run("measured_by_the_bounds_in_force", measured_by_the_bounds_in_force);
	ut_run("live_prediction_decides", live_prediction_decides);
	ut_run("record_prediction_when_no_live_one", record_prediction_when_no_live_one);
	return ut_finish();
}
