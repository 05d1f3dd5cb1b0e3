// SPDX-License-Identifier: GPL-2.0-only
/* The hybrid verdicts in the status reply (status_verdict.h). */
#include <stdlib.h>
#include <time.h>

#include "program_exe.h"
#include "status_verdict.h"

static void side_write(struct status_writer *w, const char *key, const struct hv_side *s)
{
	double cpr, iops;
	bool have = hv_side_rates(s, &cpr, &iops);

	sw_object(w, key);
	sw_u64(w, "reads", s->reads);
	if (have) {
		sw_double(w, "cpu_per_read_ns", cpr);
		sw_double(w, "iops", iops);
	} else {
		sw_null(w, "cpu_per_read_ns");
		sw_null(w, "iops");
	}
	sw_u64(w, "windows", s->windows);
	sw_u64(w, "rings", s->rings);
	sw_object_end(w);
}

void status_verdict_record(struct status_writer *w, const char *key, const struct hv_record *r,
			   uint64_t now_unix_s)
{
	if (!r) {
		sw_null(w, key);
		return;
	}
	sw_object(w, key);
	sw_str(w, "comm", r->comm);
	sw_str(w, "exe", r->exe);
	sw_str(w, "verdict", hv_verdict_names[r->verdict]);
	sw_str(w, "why", r->why);
	side_write(w, "classic", &r->side[HV_CLASSIC]);
	side_write(w, "hybrid", &r->side[HV_HYBRID]);
	if (r->measured) {
		sw_object(w, "measured");
		sw_double(w, "cpu_per_read_saving", r->meas_saving);
		sw_double(w, "iops_change", r->meas_iops_change);
		sw_object_end(w);
	} else {
		sw_null(w, "measured");
	}
	if (r->have_pred) {
		sw_object(w, "predicted");
		sw_double(w, "cpu_per_read_saving", r->pred_saving);
		sw_double(w, "iops_change", r->pred_iops_change);
		sw_u64(w, "age_s", now_unix_s > r->pred_unix_s ? now_unix_s - r->pred_unix_s : 0);
		sw_object_end(w);
	} else {
		sw_null(w, "predicted");
	}
	sw_u64(w, "updated", r->updated_unix_s);
	sw_object_end(w);
}

static int newest_first(const void *a, const void *b)
{
	const struct hv_record *x = *(const struct hv_record *const *)a;
	const struct hv_record *y = *(const struct hv_record *const *)b;

	return (x->updated_unix_s < y->updated_unix_s) - (x->updated_unix_s > y->updated_unix_s);
}

void status_verdicts_write(struct status_writer *w, const struct verdicts *v,
			   const struct verdict_file *f)
{
	const struct hv_record *order[HV_MAX_PROGRAMS];
	uint64_t now = (uint64_t)time(NULL);

	for (size_t i = 0; i < v->n; i++)
		order[i] = &v->rec[i];
	qsort(order, v->n, sizeof(order[0]), newest_first);
	sw_array(w, "hybrid_verdicts");
	for (size_t i = 0; i < v->n; i++)
		status_verdict_record(w, NULL, order[i], now);
	sw_array_end(w);
	sw_object(w, "hybrid_verdicts_file");
	sw_str(w, "path", f->open ? f->path : NULL);
	sw_u64(w, "write_errors", f->errors);
	sw_str_or_null(w, "error", f->error);
	sw_object_end(w);
}

void status_verdict_ring(struct status_writer *w, const struct verdicts *v,
			 const struct ut_ring *ring)
{
	char exe[HV_EXE_LEN];

	program_exe(ring->obs.holder.pid, exe, sizeof(exe));
	status_verdict_record(w, "verdict", verdicts_find(v, ring->obs.holder.comm, exe),
			      (uint64_t)time(NULL));
}
