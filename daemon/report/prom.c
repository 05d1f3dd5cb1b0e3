// SPDX-License-Identifier: GPL-2.0-only
/*
 * Prometheus text exposition format 0.0.4 of the daemon's state, whole or
 * in steps (prom.h). Pure: formats struct ut_daemon to a FILE, no other
 * I/O, unit-tested.
 *
 * Every family is written whole (HELP, TYPE, then all its samples) before
 * the next: parsers refuse a family split in two. So a job goes family by
 * family, each over the snapshot of the rings, rather than ring by ring:
 * a ring is looked up once per family (a hash lookup), and nothing is
 * buffered but stdio's own buffer. Values are in base units (seconds),
 * counters end in _total, metadata goes in _info gauges of value 1.
 * Meanings mirror status_json.c. Only rings with statistics (a BPF map
 * slot) get the counter and histogram families.
 *
 * Labels. A ring is a pid and an fd: every ring series carries them as one
 * label, ring="PID:FD" (as `uringtune status --ring PID:FD` takes it), and
 * comm, the name that survives a restart, which dashboards and rules
 * aggregate by (sum by (comm)). pid and fd apart, for joins with other
 * exporters' per-process series, are on uringtune_ring_info alone. Labels
 * that follow from the ring add no series; what a restart churns is the
 * ring itself, so the per-ring families are kept few.
 *
 * Cardinality. A ring's busy-poll families (its windows, paid windows and
 * bill: 8 series) are written from its first busy-poll window on: most
 * rings never busy-poll, and all those zeros were half of an idle ring's
 * series. (A counter that appears mid-way loses to rate() only the growth
 * of its first interval.) A ring's histogram of paid windows is 35 series: it is
 * written only with [export] ring_histograms (default off, for fleets);
 * the host's (paid_hist.h: every ring's summed) is always written. Both
 * say _sampled_ in their names: their _count is a 1-in-16 sample of the
 * paid windows; the exact counts are the _paid_total counters.
 *
 * The wait counters are the two BPF counters as they are (all blocking
 * waits, and those that did not sleep), not split by outcome: user space
 * copies the map value while other CPUs bump it, waits before waits_nosleep,
 * so "slept" (their difference) can dip by one for a tick. Exported as a
 * counter such a dip reads as a reset, and rate() would count the ring's
 * whole slept total again.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "prom.h"
#include "prom_bill.h"
#include "prom_verdict.h"
#include "prom_daemon.h"
#include "advice.h"
#include "setup_flags.h"
#include "status_advice.h"
#include "tunable.h"

#define RING_HIST	"uringtune_ring_busy_poll_paid_window_sampled_seconds"
#define HOST_HIST	"uringtune_host_busy_poll_paid_window_sampled_seconds"
#define HIST_HELP_SAMPLE \
	" Timed on a 1-in-16 sample per CPU: _count counts the sample, not the " \
	"windows (those are the _paid_total counters); read the distribution " \
	"(histogram_quantile), never its rate."

/* what a step counts a ring's histogram as: its lines */
#define HIST_LINES	(UT_HIST_SLOTS + 3)
/* ... and the daemon's own families, written at once */
#define DAEMON_LINES	64

/* a ring of the snapshot: its address, and the pid and fd its labels say */
struct snap_ring {
	uint64_t ctx;
	pid_t pid;
	int fd;
};

struct prom_job {
	struct snap_ring *rings;
	size_t n;
	size_t phase;			/* index in phases[] */
	size_t i;			/* the next ring of a ring family */
	size_t agent, managed;		/* rings through an agent, counted by ring_info */
	char le[UT_HIST_SLOTS][PROM_LE_SIZE];	/* the histogram's edges, formatted once */
};

#define LABELS_SIZE	(sizeof("ring=\"-2147483648:-2147483648\",comm=\"\"") + \
			 PROM_ESCAPED_SIZE(UT_COMM_LEN))

static void ring_labels(const struct ut_ring *ring, char labels[LABELS_SIZE])
{
	char comm[PROM_ESCAPED_SIZE(UT_COMM_LEN)];

	prom_escape(comm, ring->obs.holder.comm, sizeof(ring->obs.holder.comm));
	snprintf(labels, LABELS_SIZE, "ring=\"%d:%d\",comm=\"%s\"",
		 (int)ring->obs.holder.pid, ring->obs.holder.fd, comm);
}

struct phase;
/* one ring's samples of a family; returns the lines written */
typedef size_t (*ring_writer)(const struct phase *p, struct prom_job *job,
			      const struct ut_daemon *d, const struct ut_ring *ring,
			      const char *labels, FILE *out);

/* a step of the file: families written at once, or one family over the rings */
struct phase {
	void (*whole)(struct prom_job *job, const struct ut_daemon *d, FILE *out);
	bool busy;			/* only rings that busy-polled (busy_polled()) */
	bool (*on)(const struct ut_daemon *d);	/* NULL: always written */
	const char *name, *type, *help;
	ring_writer ring;
	size_t off;			/* ring_counter(): where in struct ut_ring_stats;
				 * ring_bill(): an enum prom_bill_family */
};

static size_t ring_info(const struct phase *p, struct prom_job *job,
			const struct ut_daemon *d, const struct ut_ring *ring,
			const char *labels, FILE *out)
{
	char flags[512], flags_esc[PROM_ESCAPED_SIZE(sizeof(flags))], why[160];
	const char *reason;
	bool tunable;

	/* as status says it: [select] too */
	tunable = status_ring_tunable(d, ring, &reason, why, sizeof(why));
	/* no flags: empty, which PromQL reads as an absent label */
	if (ring->obs.setup_flags)
		setup_flags_str(ring->obs.setup_flags, flags, sizeof(flags));
	else
		flags[0] = '\0';
	prom_escape(flags_esc, flags, sizeof(flags));
	fprintf(out, "%s{%s,pid=\"%d\",fd=\"%d\",setup_flags=\"%s\",managed_by=\"%s\","
		"tunable=\"%s\"} 1\n", p->name, labels, (int)ring->obs.holder.pid,
		ring->obs.holder.fd, flags_esc, managed_by_name(ring->tune.managed_by),
		tunable ? "true" : "false");
	/* for the agent's families, which come next */
	job->agent += ring->agent.via;
	job->managed += ring->agent.via && ring->tune.managed_by == UT_MANAGED_URINGTUNE;
	return 1;
}

static void sample(FILE *out, const char *name, const char *labels, uint64_t value)
{
	fprintf(out, "%s{%s} %" PRIu64 "\n", name, labels, value);
}

static size_t napi_enabled(const struct phase *p, struct prom_job *job,
			   const struct ut_daemon *d, const struct ut_ring *ring,
			   const char *labels, FILE *out)
{
	(void)job, (void)d;
	sample(out, p->name, labels, ring->obs.napi.enabled ? 1 : 0);
	return 1;
}

static size_t napi_timeout(const struct phase *p, struct prom_job *job,
			   const struct ut_daemon *d, const struct ut_ring *ring,
			   const char *labels, FILE *out)
{
	char secs[PROM_SECONDS_SIZE];

	(void)job, (void)d;
	fprintf(out, "%s{%s} %s\n", p->name, labels,
		prom_seconds(secs, ring->obs.napi.busy_poll_ns));
	return 1;
}

static size_t napi_prefer(const struct phase *p, struct prom_job *job,
			  const struct ut_daemon *d, const struct ut_ring *ring,
			  const char *labels, FILE *out)
{
	(void)job, (void)d;
	sample(out, p->name, labels, ring->obs.napi.prefer ? 1 : 0);
	return 1;
}

/* observe mode: the timeout tune mode would set (0: off), rings with advice only */
static size_t advice_timeout(const struct phase *p, struct prom_job *job,
			     const struct ut_daemon *d, const struct ut_ring *ring,
			     const char *labels, FILE *out)
{
	const struct ring_advice *a = lifecycle_advice(&d->lc, ring);
	char secs[PROM_SECONDS_SIZE];

	(void)job;
	if (!a)
		return 0;
	fprintf(out, "%s{%s} %s\n", p->name, labels, prom_seconds(secs, a->shadow.cur.enabled ?
		(uint64_t)a->shadow.cur.busy_poll_us * 1000 : 0));
	return 1;
}

/*
 * The ring busy-polled at least once: its statistics say so, or its bill
 * does (which only grows: a reused map slot's counters start again from 0,
 * and a series once written is kept).
 */
static bool busy_polled(const struct ut_ring *ring)
{
	return ring->obs.have_stats &&
	       (ring->obs.stats.busy_windows || ring->obs.bill.total.windows);
}

/* a counter of the rings with statistics, p->off into ut_ring_stats */
static size_t ring_counter(const struct phase *p, struct prom_job *job,
			   const struct ut_daemon *d, const struct ut_ring *ring,
			   const char *labels, FILE *out)
{
	(void)job, (void)d;
	if (!ring->obs.have_stats || (p->busy && !busy_polled(ring)))
		return 0;
	sample(out, p->name, labels, *(const uint64_t *)((const char *)&ring->obs.stats + p->off));
	return 1;
}

/*
 * A histogram's samples: @labels "" for none. Every slot is written, empty
 * or not: a fixed set of le values over time and across rings is what
 * rate() and sum by (le) need; a bucket appearing when its slot first fills
 * would start mid-way and skew quantiles.
 */
static void hist_samples(FILE *out, const char *name, const char *labels,
			 const char (*le)[PROM_LE_SIZE], const uint64_t *hist, uint64_t ns)
{
	const char *sep = labels[0] ? "," : "";
	char secs[PROM_SECONDS_SIZE];
	uint64_t cum = 0;

	for (unsigned int slot = 0; slot < UT_HIST_SLOTS; slot++) {
		cum += hist[slot];
		fprintf(out, "%s_bucket{%s%sle=\"%s\"} %" PRIu64 "\n", name, labels, sep,
			le[slot], cum);
	}
	fprintf(out, "%s_bucket{%s%sle=\"+Inf\"} %" PRIu64 "\n", name, labels, sep, cum);
	if (labels[0])
		fprintf(out, "%s_sum{%s} %s\n%s_count{%s} %" PRIu64 "\n", name, labels,
			prom_seconds(secs, ns), name, labels, cum);
	else
		fprintf(out, "%s_sum %s\n%s_count %" PRIu64 "\n", name, prom_seconds(secs, ns),
			name, cum);
}

static bool ring_hists_on(const struct ut_daemon *d)
{
	return d->cfg.export_ring_histograms;
}

/*
 * [export] ring_histograms only. To keep the file small, a ring gets its
 * histogram (35 lines) from its first busy-poll window on, all buckets at
 * once: most rings never busy-poll.
 */
static size_t ring_hist(const struct phase *p, struct prom_job *job,
			const struct ut_daemon *d, const struct ut_ring *ring,
			const char *labels, FILE *out)
{
	const struct ut_ring_stats *s = &ring->obs.stats;
	uint64_t hist[UT_HIST_SLOTS];

	(void)p, (void)d;
	if (!busy_polled(ring))
		return 0;
	for (unsigned int slot = 0; slot < UT_HIST_SLOTS; slot++)
		hist[slot] = s->busy_hist[slot];
	hist_samples(out, RING_HIST, labels, (const char (*)[PROM_LE_SIZE])job->le, hist,
		     s->busy_ns);
	return HIST_LINES;
}

/* the host's, always: every ring's summed, rings gone included */
static void host_hist_family(struct prom_job *job, const struct ut_daemon *d, FILE *out)
{
	const struct paid_hist *h = &d->reg.paid_hist;

	prom_family(out, HOST_HIST, "histogram",
		    "Lengths of all rings' busy-poll windows that paid off (the wait did not "
		    "sleep), rings gone included." HIST_HELP_SAMPLE);
	hist_samples(out, HOST_HIST, "", (const char (*)[PROM_LE_SIZE])job->le, h->hist, h->ns);
}

/* the ring's bill (prom_bill.c), p->off its family */
static size_t ring_bill(const struct phase *p, struct prom_job *job,
			const struct ut_daemon *d, const struct ut_ring *ring,
			const char *labels, FILE *out)
{
	(void)job, (void)d;
	if (!busy_polled(ring))
		return 0;
	return prom_bill_ring((enum prom_bill_family)p->off, p->name, &ring->obs.bill, labels, out);
}

static void host_bill_families(struct prom_job *job, const struct ut_daemon *d, FILE *out)
{
	(void)job;
	prom_bill_host(&d->reg.bill, out);
}

static void daemon_families(struct prom_job *job, const struct ut_daemon *d, FILE *out)
{
	(void)job;
	prom_daemon_metrics(d, out);
}

static void verdict_families(struct prom_job *job, const struct ut_daemon *d, FILE *out)
{
	(void)job;
	prom_verdicts(&d->verdicts, out);
}

static void agent_families(struct prom_job *job, const struct ut_daemon *d, FILE *out)
{
	prom_agent_metrics(d, job->agent, job->managed, out);
}

#define COUNTER(n, h, field)	{ .name = n, .type = "counter", .help = h, .ring = ring_counter, \
				  .off = offsetof(struct ut_ring_stats, field) }
/* ... of the rings that busy-polled */
#define BUSY_COUNTER(n, h, field)	{ .name = n, .type = "counter", .help = h, \
					  .ring = ring_counter, .busy = true, \
					  .off = offsetof(struct ut_ring_stats, field) }

/* the file, in order */
static const struct phase phases[] = {
	{ .whole = daemon_families },
	{ .name = "uringtune_ring_info", .type = "gauge", .ring = ring_info,
	  .help = "A ring: its IORING_SETUP_* flags, who manages its NAPI settings "
		  "(none, app, uringtune), whether uringtune can tune it." },
	{ .whole = agent_families },
	{ .name = "uringtune_ring_napi_enabled", .type = "gauge", .ring = napi_enabled,
	  .help = "1 if the kernel busy-polls NAPI for the ring." },
	{ .name = "uringtune_ring_napi_busy_poll_timeout_seconds", .type = "gauge",
	  .ring = napi_timeout, .help = "The ring's NAPI busy-poll timeout." },
	{ .name = "uringtune_ring_napi_prefer_busy_poll", .type = "gauge", .ring = napi_prefer,
	  .help = "1 if the ring's prefer_busy_poll flag is set." },
	{ .name = "uringtune_ring_advice_busy_poll_seconds", .type = "gauge",
	  .ring = advice_timeout, .help = "Observe mode: the busy-poll timeout tune mode would "
	  "set on the ring (0: NAPI off), computed by the same tuner." },
	COUNTER("uringtune_ring_waits_total",
		"Waits on the ring that had to block (io_uring_cqring_wait).", waits),
	COUNTER("uringtune_ring_waits_no_sleep_total",
		"Of those waits, the ones whose events came before the task slept.",
		waits_nosleep),
	BUSY_COUNTER("uringtune_ring_busy_poll_windows_total", "Waits that busy-polled NAPI "
		     "first (rings that busy-polled at least once).", busy_windows),
	BUSY_COUNTER("uringtune_ring_busy_poll_paid_total",
		     "Of those, the ones that paid off: the wait did not sleep (every one "
		     "counted).", busy_paid),
	{ .name = RING_HIST, .type = "histogram", .ring = ring_hist, .on = ring_hists_on,
	  .help = "Lengths of the ring's busy-poll windows that paid off (the wait did "
		  "not sleep); [export] ring_histograms only." HIST_HELP_SAMPLE },
	{ .name = "uringtune_busy_poll_spin_seconds_total", .type = "counter",
	  .ring = ring_bill, .off = PROM_BILL_SPIN, .help = PROM_BILL_SPIN_HELP },
	{ .name = "uringtune_busy_poll_saved_seconds_total", .type = "counter",
	  .ring = ring_bill, .off = PROM_BILL_SAVED, .help = PROM_BILL_SAVED_HELP },
	{ .name = "uringtune_busy_poll_wakeups_avoided_total", .type = "counter",
	  .ring = ring_bill, .off = PROM_BILL_WAKEUPS, .help = PROM_BILL_WAKEUPS_HELP },
	{ .name = "uringtune_busy_poll_unknown_windows_total", .type = "counter",
	  .ring = ring_bill, .off = PROM_BILL_UNKNOWN, .help = PROM_BILL_UNKNOWN_HELP },
	{ .name = "uringtune_busy_poll_capped_seconds_total", .type = "counter",
	  .ring = ring_bill, .off = PROM_BILL_CAPPED, .help = PROM_BILL_CAPPED_HELP },
	{ .whole = host_bill_families },
	{ .whole = host_hist_family },
	{ .whole = verdict_families },
};

#define NR_PHASES	(sizeof(phases) / sizeof(phases[0]))

/*
 * Sorted by pid and fd, one ring per (pid, fd): a ring closed and another
 * opened on the same fd are both in the registry until the next sweep, and
 * two series with the same labels would make node_exporter drop them. The
 * newer is the one the fd holds.
 */
static size_t unique_rings(struct ut_ring **rings, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		if (k && rings[k - 1]->obs.holder.pid == rings[i]->obs.holder.pid &&
		    rings[k - 1]->obs.holder.fd == rings[i]->obs.holder.fd) {
			if (rings[i]->obs.first_seen_ns > rings[k - 1]->obs.first_seen_ns)
				rings[k - 1] = rings[i];
			continue;
		}
		rings[k++] = rings[i];
	}
	return k;
}

struct prom_job *prom_job_new(const struct ut_daemon *d)
{
	struct prom_job *job = calloc(1, sizeof(*job));
	struct ut_ring **sorted = NULL;
	size_t n = 0;

	if (!job)
		return NULL;
	sorted = registry_sorted(&d->reg, &n);
	if (!sorted)
		goto fail;
	n = unique_rings(sorted, n);
	job->rings = malloc((n ? n : 1) * sizeof(*job->rings));
	if (!job->rings)
		goto fail;
	for (size_t i = 0; i < n; i++) {
		job->rings[i].ctx = sorted[i]->ctx;
		job->rings[i].pid = sorted[i]->obs.holder.pid;
		job->rings[i].fd = sorted[i]->obs.holder.fd;
	}
	job->n = n;
	free(sorted);
	for (unsigned int i = 0; i < UT_HIST_SLOTS; i++)
		prom_le(job->le[i], i);
	return job;
fail:
	free(sorted);
	prom_job_free(job);
	return NULL;
}

/* the ring of the snapshot, if it is still there under the same pid and fd */
static const struct ut_ring *lookup(const struct ut_daemon *d, const struct snap_ring *s)
{
	const struct ut_ring *ring = registry_find(&d->reg, s->ctx);

	if (!ring || ring->obs.holder.pid != s->pid || ring->obs.holder.fd != s->fd)
		return NULL;
	return ring;
}

/* the rest of a ring family, or as much of it as @budget allows; returns what it used */
static size_t ring_phase(struct prom_job *job, const struct phase *p, const struct ut_daemon *d,
			 FILE *out, size_t budget)
{
	char labels[LABELS_SIZE];
	size_t used = 0;

	if (!job->i)
		prom_family(out, p->name, p->type, p->help);
	for (; job->i < job->n && used < budget; job->i++) {
		const struct ut_ring *ring = lookup(d, &job->rings[job->i]);

		used++;
		if (!ring)
			continue;
		ring_labels(ring, labels);
		used += p->ring(p, job, d, ring, labels, out);
	}
	return used;
}

int prom_job_step(struct prom_job *job, const struct ut_daemon *d, FILE *out, size_t budget)
{
	size_t used = 0;

	while (job->phase < NR_PHASES && used < budget) {
		const struct phase *p = &phases[job->phase];

		if (p->on && !p->on(d)) {
			/* a family switched off: not even its HELP */
		} else if (p->whole) {
			p->whole(job, d, out);
			used += DAEMON_LINES;
		} else {
			used += ring_phase(job, p, d, out, budget - used);
			if (job->i < job->n)
				break;
		}
		job->phase++;
		job->i = 0;
	}
	if (ferror(out))
		return -EIO;
	return job->phase < NR_PHASES;
}

size_t prom_job_rings(const struct prom_job *job)
{
	return job->n;
}

void prom_job_free(struct prom_job *job)
{
	if (!job)
		return;
	free(job->rings);
	free(job);
}

int prom_format(const struct ut_daemon *d, FILE *out)
{
	struct prom_job *job = prom_job_new(d);
	int ret;

	if (!job)
		return -ENOMEM;
	do
		ret = prom_job_step(job, d, out, SIZE_MAX);
	while (ret > 0);
	if (!ret && (fflush(out) || ferror(out)))
		ret = -EIO;
	prom_job_free(job);
	return ret;
}
