// SPDX-License-Identifier: GPL-2.0-only
/* The hybrid verdicts in the export (prom_verdict.h). */
#include <stdio.h>

#include "prom_text.h"
#include "prom_verdict.h"

#define LABELS_SIZE	(sizeof("comm=\"\",exe=\"\"") + PROM_ESCAPED_SIZE(HV_COMM_LEN) + \
			 PROM_ESCAPED_SIZE(HV_EXE_LEN))

enum figure {
	FIG_SIDE_CPR,
	FIG_SIDE_IOPS,
	FIG_MEAS_SAVING,
	FIG_MEAS_CHANGE,
	FIG_PRED_SAVING,
	FIG_PRED_CHANGE,
};

static const struct {
	const char *name, *help;
} families[] = {
	[FIG_SIDE_CPR] = { "uringtune_hybrid_cpu_per_read_seconds",
		"CPU the polling thread spent per read on the program's IOPOLL rings, classic "
		"or hybrid, over their measured windows." },
	[FIG_SIDE_IOPS] = { "uringtune_hybrid_iops",
		"Reads per second of the program's IOPOLL rings, classic or hybrid, over their "
		"measured windows." },
	[FIG_MEAS_SAVING] = { "uringtune_hybrid_measured_cpu_per_read_saving",
		"Measured: 1 - hybrid / classic CPU per read (positive: hybrid uses less)." },
	[FIG_MEAS_CHANGE] = { "uringtune_hybrid_measured_iops_change",
		"Measured: hybrid / classic IOPS - 1 (negative: hybrid loses IOPS)." },
	[FIG_PRED_SAVING] = { "uringtune_hybrid_predicted_cpu_per_read_saving",
		"The model's last prediction on a classic ring of the program: CPU per read "
		"hybrid would save." },
	[FIG_PRED_CHANGE] = { "uringtune_hybrid_predicted_iops_change",
		"The model's last prediction on a classic ring of the program: IOPS change "
		"under hybrid." },
};

static void labels_of(const struct hv_record *r, char labels[LABELS_SIZE])
{
	char comm[PROM_ESCAPED_SIZE(HV_COMM_LEN)], exe[PROM_ESCAPED_SIZE(HV_EXE_LEN)];

	prom_escape(comm, r->comm, sizeof(r->comm));
	prom_escape(exe, r->exe, sizeof(r->exe));
	snprintf(labels, LABELS_SIZE, "comm=\"%s\",exe=\"%s\"", comm, exe);
}

/* one program's samples of @fig; %.15g: every digit a double has, 0.4 printed as 0.4 */
static void figure(const struct hv_record *r, enum figure fig, const char *labels, FILE *out)
{
	static const char *const sides[HV_SIDES] = { "classic", "hybrid" };
	const char *name = families[fig].name;
	double cpr, iops;

	switch (fig) {
	case FIG_SIDE_CPR:
	case FIG_SIDE_IOPS:
		for (int s = 0; s < HV_SIDES; s++)
			if (hv_side_rates(&r->side[s], &cpr, &iops))
				fprintf(out, "%s{%s,polling=\"%s\"} %.15g\n", name, labels, sides[s],
					fig == FIG_SIDE_CPR ? cpr / 1e9 : iops);
		break;
	case FIG_MEAS_SAVING:
	case FIG_MEAS_CHANGE:
		if (r->measured)
			fprintf(out, "%s{%s} %.15g\n", name, labels,
				fig == FIG_MEAS_SAVING ? r->meas_saving : r->meas_iops_change);
		break;
	case FIG_PRED_SAVING:
	case FIG_PRED_CHANGE:
		if (r->have_pred)
			fprintf(out, "%s{%s} %.15g\n", name, labels,
				fig == FIG_PRED_SAVING ? r->pred_saving : r->pred_iops_change);
		break;
	}
}

void prom_verdicts(const struct verdicts *v, FILE *out)
{
	char labels[LABELS_SIZE];

	prom_family(out, "uringtune_hybrid_verdict", "gauge",
		    "1 for the program's verdict on hybrid IOPOLL: hybrid (kept within "
		    "[agent] hybrid_min_saving and hybrid_max_loss), classic (lost more), "
		    "unjudged (too little measured yet).");
	for (size_t i = 0; i < v->n; i++) {
		labels_of(&v->rec[i], labels);
		fprintf(out, "uringtune_hybrid_verdict{%s,verdict=\"%s\"} 1\n", labels,
			hv_verdict_names[v->rec[i].verdict]);
	}
	for (size_t f = 0; f < sizeof(families) / sizeof(families[0]); f++) {
		prom_family(out, families[f].name, "gauge", families[f].help);
		for (size_t i = 0; i < v->n; i++) {
			labels_of(&v->rec[i], labels);
			figure(&v->rec[i], (enum figure)f, labels, out);
		}
	}
}
