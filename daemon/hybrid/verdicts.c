// SPDX-License-Identifier: GPL-2.0-only
/* The per-program verdict table (verdicts.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include "verdicts.h"

const char *const hv_verdict_names[] = {
	[HV_UNJUDGED] = "unjudged",
	[HV_VERDICT_HYBRID] = "hybrid",
	[HV_VERDICT_CLASSIC] = "classic",
	NULL,
};

int hv_verdict_from_name(const char *name)
{
	for (int i = 0; hv_verdict_names[i]; i++)
		if (name && !strcmp(hv_verdict_names[i], name))
			return i;
	return -1;
}

void verdicts_init(struct verdicts *v, const struct hv_bounds *b)
{
	memset(v, 0, sizeof(*v));
	v->bounds = *b;
}

bool hv_side_rates(const struct hv_side *s, double *cpu_per_read_ns, double *iops)
{
	if (!s->reads || !s->wall_ns)
		return false;
	*cpu_per_read_ns = (double)s->cpu_ns / (double)s->reads;
	*iops = (double)s->reads * 1e9 / (double)s->wall_ns;
	return true;
}

static bool enough(const struct hv_side *s)
{
	return s->windows >= HV_MIN_WINDOWS && s->reads >= HV_MIN_READS && s->wall_ns;
}

/* not judged yet: which side lacks what */
static void unjudged(struct hv_record *r)
{
	const struct hv_side *h = &r->side[HV_HYBRID], *c = &r->side[HV_CLASSIC];

	r->measured = false;
	r->verdict = HV_UNJUDGED;
	if (!enough(h))
		snprintf(r->why, sizeof(r->why), "unjudged: %" PRIu64 " hybrid windows, %" PRIu64
			 " reads measured (needs %d and %d)", h->windows, h->reads,
			 HV_MIN_WINDOWS, HV_MIN_READS);
	else if (!enough(c))
		snprintf(r->why, sizeof(r->why), "unjudged: too little classic history to "
			 "compare with (%" PRIu64 " windows, %" PRIu64 " reads; needs %d and %d)",
			 c->windows, c->reads, HV_MIN_WINDOWS, HV_MIN_READS);
	else
		snprintf(r->why, sizeof(r->why), "unjudged: the classic rings' CPU was not "
			 "measured");
}

void hv_judge(struct hv_record *r, const struct hv_bounds *b)
{
	const struct hv_side *h = &r->side[HV_HYBRID], *c = &r->side[HV_CLASSIC];
	double c_cpr, c_iops, h_cpr, h_iops, loss;
	bool save_ok, loss_ok;

	if (!enough(h) || !enough(c) || !hv_side_rates(c, &c_cpr, &c_iops) ||
	    !hv_side_rates(h, &h_cpr, &h_iops) || c_cpr <= 0 || c_iops <= 0) {
		unjudged(r);
		return;
	}
	r->measured = true;
	r->meas_saving = 1.0 - h_cpr / c_cpr;
	r->meas_iops_change = h_iops / c_iops - 1.0;
	loss = -r->meas_iops_change;
	save_ok = r->meas_saving >= b->min_saving - HV_BOUND_EPS;
	loss_ok = loss <= b->max_loss + HV_BOUND_EPS;
	r->verdict = save_ok && loss_ok ? HV_VERDICT_HYBRID : HV_VERDICT_CLASSIC;
	if (r->verdict == HV_VERDICT_HYBRID)
		snprintf(r->why, sizeof(r->why), "hybrid: %+.0f%% CPU per read, %+.0f%% IOPS on %"
			 PRIu64 " hybrid windows (bounds: saving >= %.0f%%, loss <= %.0f%%)",
			 -r->meas_saving * 100, r->meas_iops_change * 100, h->windows,
			 b->min_saving * 100, b->max_loss * 100);
	else if (!loss_ok && !save_ok)
		snprintf(r->why, sizeof(r->why), "classic: hybrid lost %.0f%% IOPS (bound %.0f%%) "
			 "and saved %.0f%% CPU per read (needs %.0f%%) on %" PRIu64 " windows",
			 loss * 100, b->max_loss * 100, r->meas_saving * 100,
			 b->min_saving * 100, h->windows);
	else if (!loss_ok)
		snprintf(r->why, sizeof(r->why), "classic: hybrid lost %.0f%% IOPS on %" PRIu64
			 " windows (bound %.0f%%)", loss * 100, h->windows, b->max_loss * 100);
	else
		snprintf(r->why, sizeof(r->why), "classic: hybrid saved %.0f%% CPU per read on %"
			 PRIu64 " windows (needs %.0f%%)", r->meas_saving * 100, h->windows,
			 b->min_saving * 100);
}

void verdicts_set_bounds(struct verdicts *v, const struct hv_bounds *b)
{
	if (v->bounds.min_saving == b->min_saving && v->bounds.max_loss == b->max_loss)
		return;
	v->bounds = *b;
	for (size_t i = 0; i < v->n; i++) {
		enum hv_verdict was = v->rec[i].verdict;

		hv_judge(&v->rec[i], b);
		v->dirty |= was != v->rec[i].verdict;
	}
}

static bool same(const struct hv_record *r, const char *comm, const char *exe)
{
	return !strncmp(r->comm, comm, HV_COMM_LEN - 1) && !strncmp(r->exe, exe, HV_EXE_LEN - 1);
}

/* the record of exactly (@comm, @exe), -1 if none */
static ssize_t exact(const struct verdicts *v, const char *comm, const char *exe)
{
	for (size_t i = 0; i < v->n; i++)
		if (same(&v->rec[i], comm, exe))
			return (ssize_t)i;
	return -1;
}

static ssize_t index_of(const struct verdicts *v, const char *comm, const char *exe)
{
	ssize_t best = -1;

	if (exe[0])
		return exact(v, comm, exe);
	for (size_t i = 0; i < v->n; i++) {
		const struct hv_record *r = &v->rec[i];

		/* exe not known: the newest record of the name */
		if (!strncmp(r->comm, comm, HV_COMM_LEN - 1) &&
		    (best < 0 || r->updated_unix_s > v->rec[best].updated_unix_s))
			best = (ssize_t)i;
	}
	return best;
}

const struct hv_record *verdicts_find(const struct verdicts *v, const char *comm,
				      const char *exe)
{
	ssize_t i = index_of(v, comm, exe ? exe : "");

	return i < 0 ? NULL : &v->rec[i];
}

/* the least recently updated record: the one a new program replaces */
static size_t oldest(const struct verdicts *v)
{
	size_t o = 0;

	for (size_t i = 1; i < v->n; i++)
		if (v->rec[i].updated_unix_s < v->rec[o].updated_unix_s)
			o = i;
	return o;
}

/* the program's record, made (or taken from the oldest) if it has none */
static struct hv_record *record_of(struct verdicts *v, const char *comm, const char *exe)
{
	struct hv_record *r;
	ssize_t found;
	size_t i;

	if (!exe)
		exe = "";
	found = exact(v, comm, exe);
	if (found >= 0)
		return &v->rec[found];
	i = v->n < HV_MAX_PROGRAMS ? v->n++ : oldest(v);
	r = &v->rec[i];
	memset(r, 0, sizeof(*r));
	snprintf(r->comm, sizeof(r->comm), "%s", comm);
	snprintf(r->exe, sizeof(r->exe), "%s", exe);
	hv_judge(r, &v->bounds);
	return r;
}

void verdicts_note_window(struct verdicts *v, const char *comm, const char *exe, bool hybrid,
			  const struct hv_sample *s, uint64_t now_unix_s)
{
	struct hv_record *r;
	struct hv_side *side;

	/* a window without reads or time says nothing */
	if (!s->reads || !s->wall_ns)
		return;
	r = record_of(v, comm, exe);
	side = &r->side[hybrid ? HV_HYBRID : HV_CLASSIC];
	side->reads += s->reads;
	side->cpu_ns += s->cpu_ns;
	side->wall_ns += s->wall_ns;
	side->windows++;
	r->updated_unix_s = now_unix_s;
	hv_judge(r, &v->bounds);
	v->dirty = true;
}

void verdicts_note_ring(struct verdicts *v, const char *comm, const char *exe, bool hybrid,
			uint64_t now_unix_s)
{
	struct hv_record *r = record_of(v, comm, exe);

	r->side[hybrid ? HV_HYBRID : HV_CLASSIC].rings++;
	r->updated_unix_s = now_unix_s;
	v->dirty = true;
}

void verdicts_note_prediction(struct verdicts *v, const char *comm, const char *exe,
			      const struct hybrid_pred *p, uint64_t now_unix_s)
{
	struct hv_record *r;

	if (!p || !p->valid)
		return;
	r = record_of(v, comm, exe);
	r->have_pred = true;
	r->pred_saving = p->cpu_per_read_saving;
	r->pred_iops_change = p->iops_change;
	r->pred_unix_s = now_unix_s;
	r->updated_unix_s = now_unix_s;
	v->dirty = true;
}

int verdicts_put(struct verdicts *v, const struct hv_record *r)
{
	struct hv_record *dst;
	ssize_t i = exact(v, r->comm, r->exe);

	if (i < 0 && v->n == HV_MAX_PROGRAMS)
		return -ENOSPC;
	dst = i < 0 ? &v->rec[v->n++] : &v->rec[i];
	*dst = *r;
	dst->comm[HV_COMM_LEN - 1] = '\0';
	dst->exe[HV_EXE_LEN - 1] = '\0';
	hv_judge(dst, &v->bounds);
	return 0;
}
