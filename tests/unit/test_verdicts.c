// SPDX-License-Identifier: GPL-2.0-only
/* The per-program verdict table (daemon/hybrid/verdicts.c). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "unit.h"
#include "verdicts.h"

#define NSEC		1000000000ULL
#define T0		1800000000ULL	/* unix seconds */

static const struct hv_bounds bounds = { .min_saving = 0.25, .max_loss = 0.10 };
static struct verdicts v;

/* @n windows of a second each, @reads reads and @cpu_ns of CPU per window */
static void windows(const char *comm, const char *exe, bool hybrid, int n, uint64_t reads,
		    uint64_t cpu_ns, uint64_t t)
{
	struct hv_sample s = { .reads = reads, .cpu_ns = cpu_ns, .wall_ns = NSEC };

	for (int i = 0; i < n; i++)
		verdicts_note_window(&v, comm, exe, hybrid, &s, t);
}

UT_TEST(accumulates_per_side)
{
	const struct hv_record *r;

	verdicts_init(&v, &bounds);
	windows("fio", "/usr/bin/fio", false, 2, 10000, NSEC, T0);
	windows("fio", "/usr/bin/fio", true, 1, 7000, NSEC / 2, T0 + 1);
	verdicts_note_ring(&v, "fio", "/usr/bin/fio", true, T0 + 1);
	r = verdicts_find(&v, "fio", "/usr/bin/fio");
	UT_ASSERT(r);
	UT_ASSERT_EQ_INT(v.n, 1);
	UT_ASSERT_EQ_INT(r->side[HV_CLASSIC].reads, 20000);
	UT_ASSERT_EQ_INT(r->side[HV_CLASSIC].cpu_ns, 2 * NSEC);
	UT_ASSERT_EQ_INT(r->side[HV_CLASSIC].wall_ns, 2 * NSEC);
	UT_ASSERT_EQ_INT(r->side[HV_CLASSIC].windows, 2);
	UT_ASSERT_EQ_INT(r->side[HV_CLASSIC].rings, 0);
	UT_ASSERT_EQ_INT(r->side[HV_HYBRID].reads, 7000);
	UT_ASSERT_EQ_INT(r->side[HV_HYBRID].windows, 1);
	UT_ASSERT_EQ_INT(r->side[HV_HYBRID].rings, 1);
	UT_ASSERT_EQ_INT(r->updated_unix_s, T0 + 1);
	UT_ASSERT(v.dirty);
	/* not enough of either side yet */
	UT_ASSERT_EQ_INT(r->verdict, HV_UNJUDGED);
	UT_ASSERT(!r->measured);
	UT_ASSERT_STR_CONTAINS(r->why, "unjudged: 1 hybrid windows, 7000 reads measured");
	/* another executable of the same name is another program */
	windows("fio", "/opt/fio/bin/fio", false, 1, 100, NSEC, T0 + 2);
	UT_ASSERT_EQ_INT(v.n, 2);
	UT_ASSERT(verdicts_find(&v, "fio", "/usr/bin/fio") == r);
	/* an unknown executable: the newest of the name */
	UT_ASSERT(verdicts_find(&v, "fio", "") == &v.rec[1]);
	UT_ASSERT(!verdicts_find(&v, "dd", ""));
	UT_ASSERT(!verdicts_find(&v, "fio", "/bin/fio"));
}

UT_TEST(empty_window_ignored)
{
	struct hv_sample s = { .reads = 0, .cpu_ns = NSEC, .wall_ns = NSEC };

	verdicts_init(&v, &bounds);
	verdicts_note_window(&v, "fio", "/usr/bin/fio", false, &s, T0);
	s = (struct hv_sample){ .reads = 10, .cpu_ns = NSEC, .wall_ns = 0 };
	verdicts_note_window(&v, "fio", "/usr/bin/fio", false, &s, T0);
	UT_ASSERT_EQ_INT(v.n, 0);
	UT_ASSERT(!v.dirty);
}

UT_TEST(predictions_kept_when_valid)
{
	struct hybrid_pred p = { .valid = true, .cpu_per_read_saving = 0.3, .iops_change = -0.2 };
	const struct hv_record *r;

	verdicts_init(&v, &bounds);
	verdicts_note_prediction(&v, "fio", "/usr/bin/fio", &p, T0);
	p.valid = false;
	p.cpu_per_read_saving = 0.9;
	verdicts_note_prediction(&v, "fio", "/usr/bin/fio", &p, T0 + 5);
	r = verdicts_find(&v, "fio", "/usr/bin/fio");
	UT_ASSERT(r && r->have_pred);
	UT_ASSERT(r->pred_saving == 0.3);
	UT_ASSERT(r->pred_iops_change == -0.2);
	UT_ASSERT_EQ_INT(r->pred_unix_s, T0);
	verdicts_note_prediction(&v, "dd", "/bin/dd", NULL, T0);
	UT_ASSERT_EQ_INT(v.n, 1);
}

/* the least recently updated program makes room */
UT_TEST(eviction_of_the_oldest)
{
	char comm[16];

	verdicts_init(&v, &bounds);
	for (int i = 0; i < HV_MAX_PROGRAMS; i++) {
		snprintf(comm, sizeof(comm), "p%d", i);
		windows(comm, "/bin/p", false, 1, 10, 10, T0 + i);
	}
	UT_ASSERT_EQ_INT(v.n, HV_MAX_PROGRAMS);
	/* p0 is used again: p1 is the oldest now */
	windows("p0", "/bin/p", false, 1, 10, 10, T0 + 1000);
	windows("new", "/bin/new", false, 1, 10, 10, T0 + 1001);
	UT_ASSERT_EQ_INT(v.n, HV_MAX_PROGRAMS);
	UT_ASSERT(verdicts_find(&v, "new", "/bin/new"));
	UT_ASSERT(verdicts_find(&v, "p0", "/bin/p"));
	UT_ASSERT(!verdicts_find(&v, "p1", "/bin/p"));
	UT_ASSERT(verdicts_find(&v, "p2", "/bin/p"));
	UT_ASSERT_EQ_INT(verdicts_find(&v, "new", "/bin/new")->side[HV_CLASSIC].reads, 10);
	/* put (a load) does not evict: a full table refuses */
	UT_ASSERT_EQ_INT(verdicts_put(&v, verdicts_find(&v, "p0", "/bin/p")), 0);
	{
		struct hv_record r = { .comm = "other", .exe = "/x" };

		UT_ASSERT_EQ_INT(verdicts_put(&v, &r), -ENOSPC);
	}
}

/*
 * Classic: 1000 ns of CPU per read, 10000 IOPS. Hybrid: @cpr ns per read
 * at @iops; 3 windows and 30000 reads at least on each side.
 */
static const struct hv_record *judged(uint64_t cpr, uint64_t iops)
{
	verdicts_init(&v, &bounds);
	windows("fio", "/usr/bin/fio", false, 3, 10000, 10000 * 1000, T0);
	windows("fio", "/usr/bin/fio", true, 3, iops, iops * cpr, T0);
	return verdicts_find(&v, "fio", "/usr/bin/fio");
}

UT_TEST(judged_hybrid_within_bounds)
{
	const struct hv_record *r = judged(600, 9500);

	UT_ASSERT(r->measured);
	UT_ASSERT(r->meas_saving > 0.3999 && r->meas_saving < 0.4001);
	UT_ASSERT(r->meas_iops_change > -0.0501 && r->meas_iops_change < -0.0499);
	UT_ASSERT_EQ_INT(r->verdict, HV_VERDICT_HYBRID);
	UT_ASSERT_STR_EQ(r->why, "hybrid: -40% CPU per read, -5% IOPS on 3 hybrid windows "
			 "(bounds: saving >= 25%, loss <= 10%)");
}

UT_TEST(judged_classic_each_bound)
{
	const struct hv_record *r;

	/* saves plenty, loses too many IOPS */
	r = judged(500, 6000);
	UT_ASSERT_EQ_INT(r->verdict, HV_VERDICT_CLASSIC);
	UT_ASSERT_STR_EQ(r->why, "classic: hybrid lost 40% IOPS on 3 windows (bound 10%)");
	/* keeps its IOPS, saves too little */
	r = judged(900, 10000);
	UT_ASSERT_EQ_INT(r->verdict, HV_VERDICT_CLASSIC);
	UT_ASSERT_STR_EQ(r->why, "classic: hybrid saved 10% CPU per read on 3 windows "
			 "(needs 25%)");
	/* both */
	r = judged(900, 5000);
	UT_ASSERT_EQ_INT(r->verdict, HV_VERDICT_CLASSIC);
	UT_ASSERT_STR_CONTAINS(r->why, "lost 50% IOPS (bound 10%) and saved 10% CPU per read "
			       "(needs 25%)");
	/* hybrid costing more CPU per read than classic */
	r = judged(1200, 10000);
	UT_ASSERT_EQ_INT(r->verdict, HV_VERDICT_CLASSIC);
	UT_ASSERT(r->meas_saving < -0.19);
}

/* exactly on a bound is within it; a read's worth past it is not */
UT_TEST(judged_at_the_exact_bounds)
{
	const struct hv_record *r;

	r = judged(750, 9000);		/* saving 0.25, loss 0.10 */
	UT_ASSERT_EQ_INT(r->verdict, HV_VERDICT_HYBRID);
	r = judged(751, 9000);
	UT_ASSERT_EQ_INT(r->verdict, HV_VERDICT_CLASSIC);
	r = judged(750, 8999);
	UT_ASSERT_EQ_INT(r->verdict, HV_VERDICT_CLASSIC);
}

UT_TEST(unjudged_until_enough)
{
	const struct hv_record *r;

	verdicts_init(&v, &bounds);
	windows("fio", "/usr/bin/fio", false, 3, 10000, 10000 * 1000, T0);
	/* enough reads, too few windows */
	windows("fio", "/usr/bin/fio", true, HV_MIN_WINDOWS - 1, 5000, 5000 * 500, T0);
	r = verdicts_find(&v, "fio", "/usr/bin/fio");
	UT_ASSERT_EQ_INT(r->verdict, HV_UNJUDGED);
	/* enough windows, too few reads */
	verdicts_init(&v, &bounds);
	windows("fio", "/usr/bin/fio", false, 3, 10000, 10000 * 1000, T0);
	windows("fio", "/usr/bin/fio", true, HV_MIN_WINDOWS, HV_MIN_READS / HV_MIN_WINDOWS - 1,
		1000, T0);
	UT_ASSERT_EQ_INT(verdicts_find(&v, "fio", "/usr/bin/fio")->verdict, HV_UNJUDGED);
	/* ... and at the minimum it is judged (hybrid's IOPS are far below: classic) */
	windows("fio", "/usr/bin/fio", true, 1, HV_MIN_READS -
		HV_MIN_WINDOWS * (HV_MIN_READS / HV_MIN_WINDOWS - 1), 1000, T0);
	r = verdicts_find(&v, "fio", "/usr/bin/fio");
	UT_ASSERT_EQ_INT(r->side[HV_HYBRID].reads, HV_MIN_READS);
	UT_ASSERT(r->measured);
	UT_ASSERT_EQ_INT(r->verdict, HV_VERDICT_CLASSIC);
	/* hybrid enough, no classic history */
	verdicts_init(&v, &bounds);
	windows("fio", "/usr/bin/fio", true, 5, 10000, 1000, T0);
	r = verdicts_find(&v, "fio", "/usr/bin/fio");
	UT_ASSERT_EQ_INT(r->verdict, HV_UNJUDGED);
	UT_ASSERT_STR_CONTAINS(r->why, "too little classic history");
	/* classic without CPU measured: nothing to compare with */
	windows("fio", "/usr/bin/fio", false, 3, 10000, 0, T0);
	r = verdicts_find(&v, "fio", "/usr/bin/fio");
	UT_ASSERT_EQ_INT(r->verdict, HV_UNJUDGED);
	UT_ASSERT_STR_CONTAINS(r->why, "CPU was not measured");
}

/* a reload's bounds judge again; the same bounds change nothing */
UT_TEST(new_bounds_judge_again)
{
	struct hv_bounds strict = { .min_saving = 0.5, .max_loss = 0.10 };

	judged(600, 9500);
	v.dirty = false;
	verdicts_set_bounds(&v, &bounds);
	UT_ASSERT(!v.dirty);
	verdicts_set_bounds(&v, &strict);
	UT_ASSERT(v.dirty);
	UT_ASSERT_EQ_INT(v.rec[0].verdict, HV_VERDICT_CLASSIC);
	UT_ASSERT_STR_CONTAINS(v.rec[0].why, "(needs 50%)");
}

UT_TEST(verdict_names)
{
	UT_ASSERT_EQ_INT(hv_verdict_from_name("hybrid"), HV_VERDICT_HYBRID);
	UT_ASSERT_EQ_INT(hv_verdict_from_name("classic"), HV_VERDICT_CLASSIC);
	UT_ASSERT_EQ_INT(hv_verdict_from_name("unjudged"), HV_UNJUDGED);
	UT_ASSERT_EQ_INT(hv_verdict_from_name("maybe"), -1);
	UT_ASSERT_EQ_INT(hv_verdict_from_name(NULL), -1);
}

int main(void)
{
	ut_run("accumulates_per_side", accumulates_per_side);
	ut_run("empty_window_ignored", empty_window_ignored);
	ut_run("predictions_kept_when_valid", predictions_kept_when_valid);
	ut_run("eviction_of_the_oldest", eviction_of_the_oldest);
	ut_run("judged_hybrid_within_bounds", judged_hybrid_within_bounds);
	ut_run("judged_classic_each_bound", judged_classic_each_bound);
	ut_run("judged_at_the_exact_bounds", judged_at_the_exact_bounds);
	ut_run("unjudged_until_enough", unjudged_until_enough);
	ut_run("new_bounds_judge_again", new_bounds_judge_again);
	ut_run("verdict_names", verdict_names);
	return ut_finish();
}
