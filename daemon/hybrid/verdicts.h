/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What hybrid IOPOLL did for each program, measured: a bounded table keyed
 * by program (comm and executable path), fed with the closed measurement
 * windows of the program's IOPOLL rings, classic and hybrid kept apart,
 * and with the last prediction the model made on one of its classic rings.
 * Pure: verdict_file.c keeps it in state_dir, hybrid_auto.c decides on it.
 *
 * Once both sides have HV_MIN_WINDOWS windows and HV_MIN_READS reads, the
 * program is judged against the bounds ([agent] hybrid_min_saving and
 * hybrid_max_loss):
 *
 *	saving = 1 - (h.cpu_ns / h.reads) / (c.cpu_ns / c.reads)
 *	change = (h.reads / h.wall_ns) / (c.reads / c.wall_ns) - 1
 *
 * "hybrid" when saving >= min_saving and -change <= max_loss (a value on
 * the bound is within it), "classic" when hybrid lost more than the bound,
 * "unjudged" until there is enough of both.
 */
#ifndef UT_VERDICTS_H
#define UT_VERDICTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hybrid_model.h"

/* programs remembered; the least recently updated makes room */
#define HV_MAX_PROGRAMS		256
#define HV_COMM_LEN		16
/* an executable's path, cut at this many bytes (a longer one is rare) */
#define HV_EXE_LEN		256
/* evidence a side needs before the program is judged */
#define HV_MIN_WINDOWS		3
#define HV_MIN_READS		1000
/* bounds compared with this much leeway: 0.25 is 0.25 whatever the rounding */
#define HV_BOUND_EPS		1e-9

enum hv_side_id { HV_CLASSIC, HV_HYBRID, HV_SIDES };

enum hv_verdict {
	HV_UNJUDGED,		/* not enough hybrid (or classic) measurement yet */
	HV_VERDICT_HYBRID,	/* hybrid kept within the bounds */
	HV_VERDICT_CLASSIC,	/* hybrid lost more than the bounds allow */
};

struct hv_sample {
	uint64_t reads, cpu_ns, wall_ns;
};

/* one side (classic or hybrid rings) of a program, summed over its closed windows */
struct hv_side {
	uint64_t reads;
	uint64_t cpu_ns;	/* the polling thread's CPU */
	uint64_t wall_ns;	/* the windows' time */
	uint64_t windows;
	uint64_t rings;
};

struct hv_bounds {
	double min_saving;	/* [agent] hybrid_min_saving */
	double max_loss;	/* [agent] hybrid_max_loss */
};

struct hv_record {
	char comm[HV_COMM_LEN];
	char exe[HV_EXE_LEN];		/* "" if not known */
	struct hv_side side[HV_SIDES];
	/* the last valid prediction on one of its classic rings */
	bool have_pred;
	double pred_saving, pred_iops_change;
	uint64_t pred_unix_s;
	/* measured, once both sides have enough */
	bool measured;
	double meas_saving, meas_iops_change;
	enum hv_verdict verdict;
	char why[160];
	uint64_t updated_unix_s;
};

struct verdicts {
	struct hv_record rec[HV_MAX_PROGRAMS];
	size_t n;
	struct hv_bounds bounds;
	bool dirty;			/* changed since verdicts_saved() */
};

extern const char *const hv_verdict_names[];	/* "unjudged", "hybrid", "classic" */
/* the verdict for @name, -1 if none is */
int hv_verdict_from_name(const char *name);

/* an empty table judging by @b */
void verdicts_init(struct verdicts *v, const struct hv_bounds *b);
/* new bounds (a reload): every program judged again; dirty if a verdict changed */
void verdicts_set_bounds(struct verdicts *v, const struct hv_bounds *b);

/* a closed measurement window of one of the program's IOPOLL rings */
void verdicts_note_window(struct verdicts *v, const char *comm, const char *exe, bool hybrid,
			  const struct hv_sample *s, uint64_t now_unix_s);
/* a ring of the program's takes part (once per ring, at its first closed window) */
void verdicts_note_ring(struct verdicts *v, const char *comm, const char *exe, bool hybrid,
			uint64_t now_unix_s);
/* the model's prediction on one of its classic rings (an invalid one is not kept) */
void verdicts_note_prediction(struct verdicts *v, const char *comm, const char *exe,
			      const struct hybrid_pred *p, uint64_t now_unix_s);

/*
 * The program's record, NULL if none. An @exe of "" (not known) finds the
 * most recently updated record of @comm.
 */
const struct hv_record *verdicts_find(const struct verdicts *v, const char *comm,
				      const char *exe);

/*
 * A record as it was saved (verdict_file.c): put whole, judged again by
 * the table's bounds. -ENOSPC when the table is full. Not dirty.
 */
int verdicts_put(struct verdicts *v, const struct hv_record *r);

/* judge @r by @b: measured, verdict and why from its sides */
void hv_judge(struct hv_record *r, const struct hv_bounds *b);

/* a side's CPU per read (ns) and reads per second; false if it has none */
bool hv_side_rates(const struct hv_side *s, double *cpu_per_read_ns, double *iops);

#endif /* UT_VERDICTS_H */
